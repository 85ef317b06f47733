"""System-ranking correlation from per-query score tables alone (../shared/data/syndl)."""

import os
from pathlib import Path

import numpy as np
import pytest
import scipy.stats as sps

import metaeval as me

DATA = Path(os.environ.get("METAEVAL_SHARED_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))
SYNDL = DATA / "syndl" / "per_query_results"
pytestmark = pytest.mark.realdata


@pytest.fixture(scope="module")
def dl2020():
    if not SYNDL.is_dir():
        pytest.skip(f"real data not found at {SYNDL} (set METAEVAL_SHARED_DATA)")
    return me.read_score_table(SYNDL / "per_query_results.dl2020.tsv.gz", keep_all=True)


def syndl_means_match_trec_eval_averages_test(dl2020):
    """The human side's system mean over its judged topics equals trec_eval's own 'all' row
    (PROVENANCE.md: qid=all rows are trec_eval's averages; values printed to 4 decimals)."""
    per_q = dl2020[dl2020["query_id"] != "all"]
    human = per_q[per_q["qrels_source"] == "human"]
    syn = per_q[per_q["qrels_source"] == "syndl_full"]
    R, C, info = me.score_matrices(human, syn, measure="ndcg_cut_10", topics="own")
    # PROVENANCE.md: DL20 has 59 runs; queries with values: human 54, syndl_full 194
    assert info["n_systems"] == 59
    assert R.notna().all(axis=0).sum() == 54 and C.notna().all(axis=0).sum() == 194
    avg = dl2020[(dl2020["query_id"] == "all") & (dl2020["measure"] == "ndcg_cut_10")]
    ref = avg[avg["qrels_source"] == "human"].set_index("system")["value"].reindex(R.index)
    np.testing.assert_allclose(R.mean(axis=1).to_numpy(), ref.to_numpy(), atol=6e-5)
    # the syndl_full 'all' rows are NOT means over its 194 scored queries: trec_eval -c averaged over
    # the whole SynDL query file (about 9x more queries), e.g. run "1": 0.0638 vs 0.5800 over 194
    syn_all = avg[avg["qrels_source"] == "syndl_full"].set_index("system")["value"].reindex(C.index)
    ratio = (syn_all / C.mean(axis=1)).to_numpy()
    assert 0.09 < np.median(ratio) < 0.13


def syndl_rank_correlation_test(dl2020):
    per_q = dl2020[dl2020["query_id"] != "all"]
    human = per_q[per_q["qrels_source"] == "human"]
    syn = per_q[per_q["qrels_source"] == "syndl_full"]
    res = me.rank_correlation(human, syn, measure="ndcg_cut_10", topics="own", n_resamples=300, n_outer=20,
                              n_inner=50, rng=0, methods=("kendall_b", "spearman", "tau_ap", "rbo"))
    f = res.to_frame().set_index("method")
    R, C, _ = me.score_matrices(human, syn, measure="ndcg_cut_10", topics="own")
    x, y = R.mean(axis=1), C.mean(axis=1)
    # point estimates: scipy on the two mean vectors
    assert f.loc["kendall_b", "estimate"] == pytest.approx(sps.kendalltau(x, y)[0], abs=1e-12)
    assert f.loc["spearman", "estimate"] == pytest.approx(sps.spearmanr(x, y)[0], abs=1e-12)
    assert f.loc["tau_ap", "estimate"] == pytest.approx(me.tau_ap(x.to_numpy(), y.to_numpy()), abs=1e-12)
    assert (f["n_units"] == 200).all()  # the union of the two topic sets is resampled
    assert (f["ci_low"] <= f["ci_high"]).all()


def syndl_analysis_script_runs_test(capsys):
    if not SYNDL.is_dir():
        pytest.skip(f"real data not found at {SYNDL}")
    import importlib.util

    spec = importlib.util.spec_from_file_location("syndl_analysis",
                                                  Path(__file__).resolve().parents[1] / "analyses" / "syndl.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    t = mod.syndl_table(DATA, years=("dl2019", "dl2023"), measures=("ndcg_cut_10",), candidates=("syndl_full",),
                        n_resamples=100)
    assert set(t["year"]) == {"dl2019", "dl2023"} and len(t) == 2 * 4
    assert t["systems"].tolist()[0] == 36  # PROVENANCE.md: DL19 has 36 runs in SynDL
