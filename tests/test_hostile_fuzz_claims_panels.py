"""Fuzz of the reviewer's claims (as dicts and as claims files) and of judge panels: whatever the
numbers, names and shapes, the answer is a result or one InputError line — never another exception.

Properties, not reference values: every claim gets one of the verdicts ``check_claims`` documents
(``metaeval.review.claims.VERDICTS``, plus "not computable" where a claim has nothing to compute);
a claims file that parses gives the same frame as its dicts; ``judge_panel`` on hostile label sets
returns a ``PanelResult`` with one row per judge, or refuses.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import metaeval as me
from metaeval.review.claims import KINDS, VERDICTS

_NUMBERS = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True, width=64),
    st.integers(min_value=-(2 ** 70), max_value=2 ** 70),
    st.sampled_from([0, 1, 2, 0.5, 0.999, 1.0000001, -0.0, 1e-300, 1e300, 2 ** 63 - 1]),
    st.sampled_from(["0.60", ".5", "1.52", "-0.2", "nan", "inf", "", "0,5", "½", "1e9", "0x10", "=1+1"]),
)
_P = st.sampled_from(["= .001", "< .001", "< .05", "= .20", "ns", "> .05", "= 0", "= 1.5", "p", "", "= nan",
                      "< -1", "=.049"])
_TABLES = st.lists(st.lists(_NUMBERS, min_size=1, max_size=3), min_size=1, max_size=3)


@st.composite
def _claims(draw):
    c = {"kind": draw(st.sampled_from(sorted(KINDS) + ["nope", ""])), "sentence": "fuzzed claim"}
    # a value and an n most of the time, well-formed half of the time: the checks behind them get fuzzed too
    plausible = st.one_of(st.sampled_from(["0.61", "0.5", ".80", "0.999", "1", "0"]),
                          st.floats(min_value=-1, max_value=1, allow_nan=False))
    c["value"] = draw(st.one_of(plausible, _NUMBERS))
    if draw(st.integers(0, 9)) < 8:
        c["n"] = draw(st.one_of(st.integers(2, 5000), _NUMBERS))
    for key in ("percent_agreement", "systems", "ci", "count"):
        if draw(st.booleans()):
            c[key] = draw(st.one_of(_NUMBERS, st.lists(_NUMBERS, max_size=3)) if key == "ci" else _NUMBERS)
    if draw(st.booleans()):
        c["p"] = draw(_P)
    if draw(st.booleans()):
        c["method"] = draw(st.sampled_from(["pearson", "spearman", "kendall", "tau_b", "nope"]))
    if draw(st.booleans()):
        c["table"] = draw(_TABLES)
    if draw(st.booleans()):
        c["margins"] = draw(st.lists(st.lists(_NUMBERS, min_size=1, max_size=3), min_size=1, max_size=2))
    if draw(st.booleans()):
        c["wins"] = draw(st.lists(_NUMBERS, min_size=0, max_size=4))
    return c


def _one_line(exc: Exception) -> None:
    assert isinstance(exc, me.InputError), f"{type(exc).__name__}: {exc}"
    assert "\n" not in str(exc).strip(), str(exc)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_claims(), min_size=1, max_size=3))
def claims_fuzz_test(claims):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            frame = me.check_claims(claims, n_resamples=30, rng=0)
    except Exception as exc:  # noqa: BLE001 - the property: only a one-line InputError
        _one_line(exc)
        return
    assert len(frame) == len(claims)
    allowed = set(VERDICTS) | {"not computable", "not checked"}
    assert set(frame["verdict"]) <= allowed, set(frame["verdict"]) - allowed
    for r in frame.itertuples():
        assert "nan" not in str(r.verdict)


def _toml_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    return str(v)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_claims(), min_size=1, max_size=2))
def claims_file_fuzz_test(tmp_path_factory, claims):
    path = tmp_path_factory.mktemp("claims") / "claims.toml"
    path.write_text("".join("[[claim]]\n" + "".join(f"{k} = {_toml_value(v)}\n" for k, v in c.items()) + "\n"
                            for c in claims), encoding="utf-8")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            frame = me.check_claims(path, n_resamples=30, rng=0)
    except Exception as exc:  # noqa: BLE001 - the property: only a one-line InputError
        _one_line(exc)
        return
    assert len(frame) == len(claims)


_LABELS = st.one_of(st.sampled_from([0, 1, 2, 3]), st.just(np.nan), st.sampled_from([0.5, -1, 10, 1e308]))


@st.composite
def _panel(draw):
    n = draw(st.integers(1, 12))
    items = [f"q{draw(st.integers(0, 2))}" for _ in range(n)]
    docs = [f"d{i}" for i in range(n)]
    ref = pd.DataFrame({"query_id": items, "doc_id": docs, "relevance": [draw(_LABELS) for _ in range(n)]})
    judges = {}
    for j in range(draw(st.integers(1, 4))):
        name = draw(st.sampled_from([f"judge{j}", f"=cmd{j}", f"j\u202e{j}", f"ü{j}", f"j {j}"]))
        keep = [draw(st.integers(0, 9)) > 0 for _ in range(n)]      # a judge skips about one item in ten
        labels = [draw(_LABELS) for _ in range(n)]
        judges[name] = ref.assign(relevance=labels)[keep]
    return ref, judges


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_panel(), st.sampled_from(["cohen_kappa", "observed_agreement", "krippendorff_alpha_ordinal"]),
       st.sampled_from([None, "query_id"]))
def panel_fuzz_test(drawn, statistic, cluster):
    ref, judges = drawn
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = me.judge_panel(ref, judges, statistic=statistic, cluster=cluster, n_resamples=50, rng=0,
                                 out_of_scale="clip", scale=me.Scale((0, 1, 2, 3)))
    except Exception as exc:  # noqa: BLE001 - the property: only a one-line InputError
        _one_line(exc)
        return
    frame = res.to_frame()
    assert sorted(frame["judge"]) == sorted(judges)
    assert set(res.tied) <= set(judges)


@pytest.mark.parametrize("claim", [
    {"kind": "correlation", "method": "pearson", "value": 1.52, "n": 30},
    {"kind": "accuracy", "value": 1.7, "n": 10},
    {"kind": "kappa", "value": 1.2, "n": 50, "margins": [[25, 25], [25, 25]]},
])
def out_of_range_claims_are_inconsistent_test(claim):
    # issue #26 item 6, the examples it names: a value outside the statistic's range is "inconsistent"
    assert me.check_claims([claim])["verdict"].iloc[0] == "inconsistent"
