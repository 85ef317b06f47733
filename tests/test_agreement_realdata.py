"""Published agreement numbers reproduced from the released judgment files.

* LLMJudge (SIGIR 2024 LLM4Eval challenge; Rahmani et al., "Judging the Judges", arXiv:2502.13908):
  Table 4 (Cohen's kappa, 4-point and binarised 0|123, 01|23, 012|3) and Table 5 (Krippendorff's
  alpha, ordinal, same columns) for all 33 released judges, as transcribed in
  ``shared/data/llmjudge/reference_numbers.txt``. Recipe (PROVENANCE.md and reference_numbers.txt):
  human labels from ``human_qrels/llmjudge_test_qrel_idx.txt``; judge labels clipped into [0, 3];
  unweighted Cohen's kappa; Krippendorff's alpha over the two raters with the ordinal metric (the
  binarised alphas use the same routine on 0/1 data, which equals nominal alpha). 4 decimals.
* TREC DL 2019-2021 passage (``shared/data/trec_dl_passage/reference_numbers.txt`` §E): the
  collector-computed kappas of the UMBRELA and binary LLM qrels against the NIST labels (not
  published; regression checks).

The data live outside the repository: ``$METAEVAL_SHARED_DATA`` or ``<repo>/../shared/data``.
"""

from __future__ import annotations

import os
import re
import warnings
from functools import cache
from pathlib import Path

import numpy as np
import pytest

import metaeval

DATA = Path(os.environ.get("METAEVAL_SHARED_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))
LLMJUDGE = DATA / "llmjudge"
TRECDL = DATA / "trec_dl_passage"

pytestmark = [
    pytest.mark.realdata,
    pytest.mark.skipif(not (LLMJUDGE / "reference_numbers.txt").is_file(),
                       reason=f"shared data not found at {DATA} (set METAEVAL_SHARED_DATA to the shared/data folder)"),
]

SCALE = metaeval.Scale((0, 1, 2, 3))
COLUMNS = ("4-point", "0|123", "01|23", "012|3")
HALF_ULP4 = 0.5e-4 + 1e-12          # "agrees to 4 decimals"


def _section(text, start, stop_pattern=r"^-{20,}"):
    lines = text.splitlines()
    i = next(n for n, line in enumerate(lines) if line.startswith(start))
    out = []
    for line in lines[i + 1:]:
        if re.match(stop_pattern, line):
            break
        out.append(line)
    return out


def _numeric_rows(lines, ncol):
    rows = {}
    for line in lines:
        parts = line.split()
        if len(parts) == ncol + 1:
            try:
                rows[parts[0]] = tuple(float(v) for v in parts[1:])
            except ValueError:
                continue
    return rows


@cache
def published():
    """{'kappa': {judge: 4 values}, 'alpha': {...}, 'labels': {...}} from reference_numbers.txt."""
    text = (LLMJUDGE / "reference_numbers.txt").read_text()
    return {
        "kappa": _numeric_rows(_section(text, "Table 4 --"), 4),
        "alpha": _numeric_rows(_section(text, "Table 5 --"), 4),
        "labels": _numeric_rows(_section(text, "Table 6 --"), 4),
    }


def _judges():
    folder = LLMJUDGE / "llm_judgments"
    return sorted(p.stem for p in folder.glob("*.txt")) if folder.is_dir() else []


JUDGES = _judges()


@cache
def human():
    return metaeval.read_qrels(LLMJUDGE / "human_qrels" / "llmjudge_test_qrel_idx.txt")


@cache
def paired(judge):
    return metaeval.align(human(), LLMJUDGE / "llm_judgments" / f"{judge}.txt", scale=SCALE, out_of_scale="clip")


def released_judges_are_all_in_the_tables_test():
    pub = published()
    assert len(JUDGES) == 33
    assert set(JUDGES) <= set(pub["kappa"]) and set(JUDGES) <= set(pub["alpha"])
    # the 9 organiser baselines (llmjudge-*) are in the tables but their files are not released
    assert len(pub["kappa"]) == len(pub["alpha"]) == 42
    assert {j for j in pub["kappa"] if j not in JUDGES} == {f"llmjudge-{s}{i}" for s in ("cot", "simple", "thomas")
                                                           for i in (1, 2, 3)}


def human_label_counts_test():
    # published: Table 1 / Table 6 of arXiv:2502.13908, human row 2005 1233 808 377
    counts = np.bincount(human()["relevance"].to_numpy(), minlength=4)
    assert tuple(counts) == published()["labels"]["human"] == (2005, 1233, 808, 377)


@pytest.mark.parametrize("judge", JUDGES)
def llmjudge_table4_cohen_kappa_test(judge):
    p = paired(judge)
    assert len(p) == 4423
    expected = published()["kappa"][judge]      # Table 4 of arXiv:2502.13908 (reference_numbers.txt)
    got = [metaeval.cohen_kappa(p, ci_method="analytic").estimate]
    with warnings.catch_warnings():
        # NISTRetrieval-instruct* never say 3: kappa at 012|3 is exactly 0, not undefined
        warnings.simplefilter("error", metaeval.UndefinedStatisticWarning)
        got += [metaeval.cohen_kappa(p.binarize(t), ci_method="analytic").estimate for t in (1, 2, 3)]
    for col, g, e in zip(COLUMNS, got, expected):
        assert abs(g - e) <= HALF_ULP4, (judge, col, g, e)
    # threshold_agreement gives the three binarised kappas at once (for the NISTRetrieval-instruct
    # judges the precision at 012|3 is 0/0 in every replicate: a MetaevalWarning, expected here)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", metaeval.MetaevalWarning)
        frame = metaeval.threshold_agreement(p, ci_method="percentile", n_resamples=10, rng=0).to_frame()
    kap = frame[frame["statistic"] == "cohen_kappa"].set_index("split")["estimate"]
    for col, g in zip(COLUMNS[1:], got[1:]):
        assert abs(kap[col] - g) <= 1e-12


@pytest.mark.parametrize("judge", JUDGES)
def llmjudge_table5_krippendorff_alpha_test(judge):
    p = paired(judge)
    expected = published()["alpha"][judge]      # Table 5 of arXiv:2502.13908 (reference_numbers.txt)
    got = [metaeval.krippendorff_alpha(p, level="ordinal", ci_method="percentile", n_resamples=10, rng=0).estimate]
    got += [metaeval.krippendorff_alpha(p.binarize(t), level="ordinal", ci_method="percentile", n_resamples=10,
                                        rng=0).estimate for t in (1, 2, 3)]
    for col, g, e in zip(COLUMNS, got, expected):
        assert abs(g - e) <= HALF_ULP4, (judge, col, g, e)
    # binary data: ordinal alpha == nominal alpha
    for t, g in zip((1, 2, 3), got[1:]):
        nominal = metaeval.krippendorff_alpha(p.binarize(t), level="nominal", ci_method="percentile",
                                              n_resamples=10, rng=0).estimate
        assert abs(nominal - g) <= 1e-12


def llmjudge_out_of_scale_labels_are_clipped_and_reported_test():
    # PROVENANCE.md: RMITIR-llama70B has two labels of 5, h2oloo-zeroshot2 one label of 10
    for judge, value, count in (("RMITIR-llama70B", 5, 2), ("h2oloo-zeroshot2", 10, 1)):
        p = paired(judge)
        oos = p.report.out_of_scale
        row = oos[(oos["side"] == "candidate") & (oos["value"] == value)]
        assert len(row) == 1 and int(row["count"].iloc[0]) == count and row["policy"].iloc[0] == "clip"
        assert p.report.notes[("candidate", "out-of-scale labels clipped")] == count
        assert p.candidate.max() == 3
    with pytest.raises(metaeval.InputError, match="outside the scale"):
        metaeval.align(human(), LLMJUDGE / "llm_judgments" / "RMITIR-llama70B.txt", scale=SCALE)


def llmjudge_notebook_crosstab_test():
    # reference_numbers.txt, notebook codes/0-corr-analysis.ipynb: h2oloo-fewself at >= 2,
    # rows human, columns LLM: [[2719, 519], [483, 702]]
    cm = metaeval.confusion_matrix(paired("h2oloo-fewself").binarize(2))
    np.testing.assert_array_equal(cm.to_numpy(), [[2719, 519], [483, 702]])


def llmjudge_cluster_interval_is_wider_test():
    """25 queries: the topic-clustered interval is wider than the item-level one (not a published
    number; a sanity check on real clustered data)."""
    p = paired("h2oloo-fewself")
    iid = metaeval.cohen_kappa(p, n_resamples=2000, rng=0)
    clu = metaeval.cohen_kappa(p, cluster="query_id", n_resamples=2000, rng=0)
    assert clu.unit == "clusters" and clu.n_units == 25
    assert clu.estimate == iid.estimate
    assert clu.ci.width > 1.5 * iid.ci.width


# ---------------------------------------------------------------------------------------------
# TREC DL passage, reference_numbers.txt §E (collector-computed, regression values)
# ---------------------------------------------------------------------------------------------

TREC_NAMES = {"umbrela gpt-4o": "umbrela-zeroshot-gpt-4o", "umbrela gpt-4": "umbrela-zeroshot-gpt-4",
              "binary gpt-4o": "binary-gpt-4o", "binary gpt-4": "binary-gpt-4", "binary llama3.2": "binary-llama3.2"}


@cache
def trec_section_e():
    """{(qrels file stem, year): (k4 or None, kbin)} from §E's item-level agreement table."""
    text = (TRECDL / "reference_numbers.txt").read_text()
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip().startswith("Item-level agreement"))
    out = {}
    for line in lines[start:]:
        for label, stem in TREC_NAMES.items():
            if line.strip().startswith(label + " "):
                vals = line.strip()[len(label):].split()
                if len(vals) != 6:
                    continue
                vals = [None if v == "-" else float(v) for v in vals]
                for j, year in enumerate(("19", "20", "21")):
                    out[(stem, year)] = (vals[2 * j], vals[2 * j + 1])
    return out


TREC_CASES = [(stem, year) for stem in TREC_NAMES.values() for year in ("19", "20", "21")]


@pytest.mark.skipif(not (TRECDL / "reference_numbers.txt").is_file(), reason=f"no trec_dl_passage data in {DATA}")
@pytest.mark.parametrize("stem,year", TREC_CASES)
def trec_dl_item_level_kappa_test(stem, year):
    ref = trec_section_e()
    assert len(ref) == 15
    k4, kbin = ref[(stem, year)]
    hum = metaeval.read_qrels(TRECDL / "qrels" / "human" / f"qrels.dl{year}-passage.txt")
    # n = pairs present in both files (align drops the unmatched and says so)
    p = metaeval.align(hum, TRECDL / "qrels" / "llm" / f"{stem}.dl{year}.txt")
    assert len(p) == p.report.n_pairs > 9000
    if stem.startswith("umbrela"):
        p4 = metaeval.align(hum, TRECDL / "qrels" / "llm" / f"{stem}.dl{year}.txt", scale=SCALE)
        assert abs(metaeval.cohen_kappa(p4, ci_method="analytic").estimate - k4) <= HALF_ULP4
        got = metaeval.cohen_kappa(p4.binarize(2), ci_method="analytic").estimate
    else:
        # binary files: LLM label 1 compared with human label >= 2
        assert k4 is None and set(np.unique(p.candidate)) <= {0.0, 1.0}
        got = metaeval.cohen_kappa((p.reference >= 2).astype(float), p.candidate, ci_method="analytic").estimate
    assert abs(got - kbin) <= HALF_ULP4, (stem, year, got, kbin)
