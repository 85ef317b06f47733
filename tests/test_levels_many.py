"""level_panel: many score judges on the same humans (shared draw, max-T, rank clusters).

Expected values: mt-metrics-eval's ``data.AssignRanks`` on random p-value matrices (read from
tests/reference/levels_reference.json, written by tests/reference/make_reference_levels.py);
the max-T critical value recomputed by hand from the replicates; the shared draw checked against
``level_correlation`` with the same seed.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest

import metaeval
from metaeval.levels.many import assign_ranks
from metaeval.panels.simultaneous import pairwise_max_t

REF = json.loads((Path(__file__).parent / "reference" / "levels_reference.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("case", range(20))
def test_assign_ranks_matches_mtme(case):
    c = REF["assign_ranks"][case]
    assert assign_ranks(np.array(c["p"]), 0.05) == c["ranks"]


def test_pairwise_max_t_by_hand():
    g = np.random.default_rng(4)
    theta = np.array([0.6, 0.55, 0.3, 0.29])
    reps = theta + g.normal(0, 0.03, (3000, 4)) + g.normal(0, 0.02, (3000, 1))
    pw = pairwise_max_t(theta, reps, confidence_level=0.9)  # (the one max-T of panels and level panels)
    lo, hi, q = pw.low, pw.high, pw.crit
    t = []
    for a in range(4):
        for b in range(a + 1, 4):
            d = reps[:, a] - reps[:, b]
            t.append(np.abs(d - (theta[a] - theta[b])) / d.std(ddof=1))
    # (the shared max-T forms the studentised maxima in float32 blocks: agreement to float32 precision)
    assert q == pytest.approx(np.quantile(np.max(t, axis=0), 0.9), rel=1e-6)
    se01 = (reps[:, 0] - reps[:, 1]).std(ddof=1)
    assert lo[0, 1] == pytest.approx(0.05 - q * se01) and hi[1, 0] == pytest.approx(-lo[0, 1])


def _data():
    g = np.random.default_rng(0)
    H = g.normal(size=(8, 40)) + g.normal(size=(8, 1))
    return H, {"good": H + g.normal(size=H.shape), "same": H + 1.02 * g.normal(size=H.shape),
               "poor": H + 3 * g.normal(size=H.shape)}


def test_panel_shared_draw_ranks_and_tied_set():
    H, judges = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        panel = metaeval.level_panel(H, judges, level="item", n_resamples=400, n_permutations=400, rng=5)
        one = metaeval.level_correlation(H, judges["good"], level="item", ci_method="percentile", n_resamples=400,
                                         rng=5)
    e = panel.estimates.get(judge="good")
    np.testing.assert_array_equal(e.replicates, one.replicates)       # one shared draw, same seed
    assert e.estimate == one.estimate and e.ci.low == one.ci.low
    assert panel.ranks["poor"] > panel.ranks["good"] == panel.ranks["same"] == 1
    assert "poor" not in panel.tied_with_best and "good" in panel.tied_with_best
    d = panel.differences.get(judge="good", other="poor")
    assert d.ci.low > 0 and d.pvalue < 0.01
    df = panel.to_frame()
    assert list(df["judge"]) == ["good", "same", "poor"] and df["rank"].tolist()[2] == 2


def test_panel_bad_input():
    H, judges = _data()
    with pytest.raises(metaeval.InputError):
        metaeval.level_panel(H, {"only": judges["good"]})


def one_long_frame_with_a_scorer_column_equals_the_dict_form_test():
    # the same panel from one long frame (scorer column, rows shuffled) and from a dict of frames
    import pandas as pd

    g = np.random.default_rng(0)
    H = g.normal(size=(6, 30))
    A, B = H + g.normal(size=H.shape), H + 3 * g.normal(size=H.shape)

    def long(M, name):
        s, i = np.meshgrid(range(6), range(30), indexing="ij")
        return pd.DataFrame({"sys": s.ravel(), "doc": i.ravel(), "v": M.ravel(), "who": name})

    frame = pd.concat([long(B, "b"), long(H, "human"), long(A, "a")]).sample(frac=1, random_state=0)
    kw = dict(system="sys", item="doc", value="v", n_resamples=200, n_permutations=200, rng=1)
    one = metaeval.level_panel(frame, scorer="who", **kw)
    two = metaeval.level_panel(long(H, "h"), {"b": long(B, "b"), "a": long(A, "a")}, **kw)
    pd.testing.assert_frame_equal(one.estimates.to_frame(), two.estimates.to_frame())
    with pytest.raises(metaeval.InputError, match="no rows with who == 'people'"):
        metaeval.level_panel(frame, scorer="who", reference="people", **kw)
    with pytest.raises(metaeval.InputError, match="either judges= or scorer="):
        metaeval.level_panel(frame, {"a": frame}, scorer="who", **kw)
