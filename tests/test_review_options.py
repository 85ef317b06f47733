"""The review's options — alpha, confidence_level, n_resamples, seed — through one table for the
Python keyword, the `metaeval review` flag and the claims file's top-level key.

Expected verdicts: r = 0.30 with n = 50 gives t(48) = 2.18, two-sided p = .034 (scipy.stats.pearsonr
on any data with that r, or 2·t.sf(2.18, 48)); "ns" is p > alpha: inconsistent at alpha = .05,
consistent at alpha = .01.
"""

from __future__ import annotations

import json

import pytest
from scipy import stats

from metaeval import InputError, check_claims
from metaeval.cli import main
from metaeval.core.errors import render
from metaeval.review.claims import REVIEW_OPTIONS, review_options

CLAIM = '[[claim]]\nkind = "correlation"\nmethod = "pearson"\nvalue = "0.30"\nn = 50\np = "ns"\n'


def _p():
    t = 0.30 * (48 / (1 - 0.09)) ** 0.5
    return 2 * stats.t.sf(t, 48)


def the_example_is_significant_at_05_and_not_at_01_test():
    assert 0.01 < _p() < 0.05


def _review(tmp_path, text, *flags):
    f = tmp_path / "claims.toml"
    f.write_text(text, encoding="utf-8")
    out = tmp_path / f"out{len(list(tmp_path.iterdir()))}"
    rc = main(["review", str(f), "--out", str(out), *flags])
    return rc, (json.loads((out / "review.json").read_text())["claims"][0]["verdict"] if rc == 0 else None)


def alpha_reaches_check_claims_from_the_command_line_test(tmp_path):
    assert _review(tmp_path, CLAIM) == (0, "inconsistent")
    assert _review(tmp_path, CLAIM, "--alpha", "0.01") == (0, "consistent")
    # the API says the same
    claim = {"kind": "correlation", "method": "pearson", "value": "0.30", "n": 50, "p": "ns"}
    assert check_claims([claim]).verdict[0] == "inconsistent"
    assert check_claims([claim], alpha=0.01).verdict[0] == "consistent"


def the_claims_file_sets_alpha_and_the_flag_wins_test(tmp_path):
    assert _review(tmp_path, "alpha = 0.01\n" + CLAIM) == (0, "consistent")
    assert _review(tmp_path, "alpha = 0.01\n" + CLAIM, "--alpha", "0.05") == (0, "inconsistent")
    f = tmp_path / "c.toml"
    f.write_text("alpha = 0.01\n" + CLAIM, encoding="utf-8")
    assert check_claims(f).verdict[0] == "consistent"
    assert check_claims(f, alpha=0.05).verdict[0] == "inconsistent"


@pytest.mark.parametrize("flags", [["--alpha", "2"], ["--alpha", "nan"], ["--alpha", "0"], ["--alpha", "inf"],
                                   ["--confidence-level", "1.5"], ["--n-resamples", "0"]])
def out_of_range_options_are_refused_in_one_line_test(tmp_path, capsys, flags):
    rc, _ = _review(tmp_path, CLAIM, *flags)
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and flags[0] in err[0]


@pytest.mark.parametrize("kw", [{"alpha": 2}, {"alpha": float("nan")}, {"confidence_level": 1.0}, {"alpha": "0.05"}])
def out_of_range_keywords_are_refused_test(kw):
    with pytest.raises(InputError):
        check_claims([{"kind": "accuracy", "value": 0.5, "n": 10}], **kw)


def a_bad_option_in_the_file_or_a_stray_key_is_refused_test(tmp_path):
    f = tmp_path / "c.toml"
    f.write_text("alpha = 2\n" + CLAIM, encoding="utf-8")
    with pytest.raises(InputError, match="top-level alpha"):
        check_claims(f)
    f.write_text('kind = "kappa"\n' + CLAIM, encoding="utf-8")         # a claim field above the first [[claim]]
    with pytest.raises(InputError, match="unknown top-level key 'kind'"):
        check_claims(f)


def one_table_names_each_option_everywhere_test():
    assert set(REVIEW_OPTIONS) == {"alpha", "confidence_level", "n_resamples", "rng"}
    assert review_options() == {k: v[2] for k, v in REVIEW_OPTIONS.items()}
    for kw, (flag, _, default, _) in REVIEW_OPTIONS.items():
        assert render(f"pass {kw}={default}", "cli") == f"pass {flag} {default}"
