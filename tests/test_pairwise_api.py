"""The pairwise API: point-estimate mode, one orientation (reference, candidate), one set of defaults.

Sources of the expected numbers:

* scikit-learn ``cohen_kappa_score`` and ``pandas.crosstab`` (orientation of kappa and of the
  confusion table);
* the functions themselves with resampling (a point estimate is the same number without the
  bootstrap); the engine's defaults in metaeval.core.resample (DEFAULT_N_RESAMPLES,
  DEFAULT_CI_METHOD) and the documented model-refit defaults in metaeval.pairwise._results;
* data_samples/README.md §4 for the battles_like agreement (0.714 on 346 decisive battles).
"""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score

import metaeval
from metaeval import MetaevalWarning, datasets
from metaeval.core.resample import DEFAULT_CI_METHOD, DEFAULT_N_RESAMPLES
from metaeval.pairwise._results import MODEL_CI_METHOD, MODEL_N_RESAMPLES


def _data():
    b = datasets.load("battles_like").battles
    h = b[b.judge == "human"]
    j = b[(b.judge == "judge") & (b.swapped == 0) & (b.outcome != "invalid")]
    return b, h, j


def _calls():
    b, h, j = _data()
    multi = pd.concat([h.assign(judge="h1"), j.assign(judge="j")])
    return {
        "win_rates": lambda **k: metaeval.win_rates(h, **k),
        "head_to_head": lambda **k: metaeval.head_to_head(h, **k),
        "pairwise_agreement": lambda **k: metaeval.pairwise_agreement(h, j, **k),
        "seen_unseen_agreement": lambda **k: metaeval.seen_unseen_agreement(h, j, **k),
        "inter_rater_agreement": lambda **k: metaeval.inter_rater_agreement(multi, tie_rule="fdt", **k),
        "position_bias": lambda **k: metaeval.position_bias(b[b.outcome != "invalid"], **k),
        "bradley_terry": lambda **k: metaeval.bradley_terry(h, position_effect=True, **k),
        "model_rank_correlation": lambda **k: metaeval.model_rank_correlation(h, j, **k),
        "length_controlled_win_rate": lambda **k: metaeval.length_controlled_win_rate(h, **k),
    }


@pytest.mark.parametrize("name", list(_calls()))
def point_estimate_mode_test(name):
    call = _calls()[name]
    gen = np.random.default_rng(11)
    state = gen.bit_generator.state
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MetaevalWarning)
        point = call(ci_method=None, rng=gen).to_frame()
        boot = call(ci_method="percentile", n_resamples=30, rng=1).to_frame()
    assert gen.bit_generator.state == state                  # nothing drawn
    assert (point.ci_method == "none").all() and (point.n_resamples == 0).all()
    assert point.ci_low.isna().all() and point.ci_high.isna().all() and point.seed.isna().all()
    assert (boot.ci_method == "percentile").all() and (boot.seed == 1).all()
    # the same estimates, the same n and units, in the same rows
    assert len(point) == len(boot)
    assert np.allclose(point.estimate, boot.estimate, atol=1e-12, equal_nan=True)
    assert (point.n == boot.n).all() and (point.n_units == boot.n_units).all()


def defaults_are_the_engines_test():
    # sibling functions share the engine's defaults; the refitting ones differ for a documented reason
    resampling = ["win_rates", "head_to_head", "pairwise_agreement", "seen_unseen_agreement",
                  "inter_rater_agreement", "position_bias"]
    refitting = ["bradley_terry", "model_rank_correlation", "length_controlled_win_rate"]
    for name in resampling + refitting:
        p = inspect.signature(getattr(metaeval, name)).parameters
        want = (DEFAULT_N_RESAMPLES, DEFAULT_CI_METHOD) if name in resampling else (MODEL_N_RESAMPLES, MODEL_CI_METHOD)
        assert (p["n_resamples"].default, p["ci_method"].default) == want, name
        assert p["confidence_level"].default == 0.95 and p["rng"].default is None
        assert all(p[k].kind == p[k].KEYWORD_ONLY for k in ("n_resamples", "ci_method", "confidence_level", "rng"))
    import metaeval.pairwise._results as r
    assert "documented reason" in r.__doc__


def _two_raters():
    # six battles of X and Y; the reference saw battles 4-6 the other way round (Y first)
    ref = pd.DataFrame({"item_id": list("123456"), "model_a": ["X", "X", "X", "Y", "Y", "Y"],
                        "model_b": ["Y", "Y", "Y", "X", "X", "X"], "outcome": ["A", "B", "tie", "A", "A", "B"]})
    cand = pd.DataFrame({"item_id": list("123456"), "model_a": "X", "model_b": "Y",
                         "outcome": ["A", "A", "tie", "B", "A", "B"]})
    return ref, cand


def confusion_rows_are_the_reference_test():
    ref, cand = _two_raters()
    # in the candidate's order (X first) the reference said: A, B, tie, B (Y won), B (Y won), A (X won)
    ref_in_cand_order = ["A", "B", "tie", "B", "B", "A"]
    tab = metaeval.pairwise_confusion(ref, cand)
    assert tab.index.name == "reference" and tab.columns.name == "candidate"
    ct = pd.crosstab(pd.Series(ref_in_cand_order, name="r"), pd.Series(cand.outcome.tolist(), name="c"))
    ct = ct.reindex(index=["A", "tie", "B"], columns=["A", "tie", "B"], fill_value=0)
    assert np.array_equal(tab.to_numpy(), ct.to_numpy())
    # swapping the arguments transposes the table when both saw the same order
    same = ref.assign(model_a="X", model_b="Y", outcome=ref_in_cand_order)
    assert np.array_equal(metaeval.pairwise_confusion(cand, same).to_numpy(),
                          metaeval.pairwise_confusion(same, cand).to_numpy().T)


def kappa_uses_the_candidates_presentation_order_test():
    ref, cand = _two_raters()
    r = metaeval.pairwise_agreement(ref, cand, tie_rule="tie_zero", ci_method=None)
    ref_in_cand_order = ["A", "B", "tie", "B", "B", "A"]
    assert r.get(statistic="cohen_kappa").estimate == pytest.approx(
        cohen_kappa_score(ref_in_cand_order, cand.outcome.tolist()), abs=1e-12)
    # agree on battles 1 (A), 3 (tie) and 4 (B, Y won)
    assert r.get(statistic="agreement").estimate == pytest.approx(3 / 6, abs=1e-15)
    # had the reference's own presentation order been used for the candidate, kappa would differ
    ref_own = ["A", "B", "tie", "A", "A", "B"]
    cand_in_ref_order = ["A", "A", "tie", "A", "B", "A"]
    assert cohen_kappa_score(ref_own, cand_in_ref_order) != pytest.approx(r.get(statistic="cohen_kappa").estimate)


def seen_unseen_reads_the_candidates_flags_test():
    _, h, j = _data()
    # the reference says every model is seen; the candidate's flags decide (README: emu3, show-o, vila-u)
    r = metaeval.seen_unseen_agreement(h.assign(seen_a=1, seen_b=1), j, tie_rule="without_ties", ci_method=None)
    assert r.info["unseen_models"] == ["emu3", "show-o", "vila-u"]
    assert round(r.get(statistic="agreement", group="seen").estimate, 3) == 0.735


def old_keyword_names_fail_loudly_test():
    _, h, j = _data()
    with pytest.raises(TypeError):
        metaeval.pairwise_agreement(judge=j, human=h)


def ranking_correlation_is_a_deprecated_alias_test():
    _, h, j = _data()
    with pytest.warns(FutureWarning, match="model_rank_correlation"):
        old = metaeval.ranking_correlation(j, h, ci_method=None)     # the old order: judge, human
    new = metaeval.model_rank_correlation(h, j, ci_method=None)
    assert [e.estimate for e in old] == [e.estimate for e in new]
    s_old, s_new = old.info["scores"], new.info["scores"]
    assert np.array_equal(s_old.human, s_new.reference) and np.array_equal(s_old.judge, s_new.candidate)
    # the human column holds the humans' Bradley-Terry strengths
    bt = metaeval.bradley_terry(h, ci_method=None).to_frame().set_index("model").estimate
    assert np.allclose(s_old.set_index("model").human, bt.loc[s_old.model], atol=1e-9)


def readme_agreement_in_the_new_order_test():
    _, h, j = _data()
    e = metaeval.pairwise_agreement(h, j, tie_rule="without_ties", ci_method=None).get(statistic="agreement")
    assert (round(e.estimate, 3), e.n) == (0.714, 346)


def generator_rng_records_a_seed_that_reproduces_test():
    _, h, _ = _data()
    r1 = metaeval.win_rates(h, tie_rule="fdt", n_resamples=100, ci_method="percentile",
                            rng=np.random.default_rng(5)).to_frame()
    seed = int(r1.seed.iloc[0])
    assert (r1.seed == seed).all()
    r2 = metaeval.win_rates(h, tie_rule="fdt", n_resamples=100, ci_method="percentile", rng=seed).to_frame()
    assert r1[["ci_low", "ci_high"]].equals(r2[["ci_low", "ci_high"]])
