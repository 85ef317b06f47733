"""Reference values for metaeval.levels from the peers themselves: mt-metrics-eval, nlpstats, sacrerouge.

Run in a throwaway environment (the peers are not dependencies of metaeval)::

    python -m venv /tmp/venv-levels
    /tmp/venv-levels/bin/pip install nlpstats sacrerouge
    # mt-metrics-eval: google-research's source (the PyPI name "mt-metrics-eval" is an unrelated
    # placeholder package, not Google's code); a checkout of github.com/google-research/mt-metrics-eval
    git clone https://github.com/google-research/mt-metrics-eval /tmp/mtme-src
    PYTHONPATH=/tmp/mtme-src /tmp/venv-levels/bin/python tests/reference/make_reference_levels.py

It writes ``tests/reference/levels_reference.json`` with the versions used. Nothing here is metaeval
code: every value comes from a peer function, on seeded random matrices with ties and missing cells.
sacrerouge 0.2.5 imports ``google_drive_downloader`` at package import (renamed ``googledrivedownloader``
by that package since); a stub module stands in for it (sacrerouge.stats does not use it).
"""

from __future__ import annotations

import functools
import json
import subprocess
import sys
import types
from importlib import metadata
from pathlib import Path

import numpy as np
import scipy
import scipy.stats

sys.modules.setdefault("google_drive_downloader", types.SimpleNamespace(GoogleDriveDownloader=None))

import importlib  # noqa: E402

import nlpstats.correlations as nc  # noqa: E402
import sacrerouge.stats as ss  # noqa: E402
from mt_metrics_eval import stats as ms  # noqa: E402

# the modules themselves (nlpstats.correlations re-exports functions named like its modules)
nboot = importlib.import_module("nlpstats.correlations.bootstrap")
nperm = importlib.import_module("nlpstats.correlations.permutation")
nwill = importlib.import_module("nlpstats.correlations.williams")

OUT = Path(__file__).with_name("levels_reference.json")


def mtme_commit():
    try:
        root = Path(ms.__file__).resolve().parents[1]
        return subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True,
                              text=True).stdout.strip() or (root / "COMMIT").read_text().strip()
    except Exception:  # noqa: BLE001
        return "unknown"


def matrices(seed, s=7, i=10, missing=0.15):
    """Human 1–5 integers (ties) with missing cells; judge = human + noise rounded to 0.5 (ties)."""
    g = np.random.default_rng(seed)
    H = g.integers(1, 6, (s, i)).astype(float)
    M = np.round(2 * (H + g.normal(0, 1.3, (s, i)))) / 2
    H[g.random((s, i)) < missing] = np.nan
    return H, M


def packed(H):
    return [None if np.isnan(v) else float(v) for v in H.ravel()]


def system_means(H, M):
    V = ~np.isnan(H)
    cnt = V.sum(1)
    return np.where(V, H, 0).sum(1) / cnt, np.where(V, M, 0).sum(1) / cnt


def f(x):
    return None if x is None or (isinstance(x, float) and np.isnan(x)) else float(x)


def mtme_values(H, M):
    S = H.shape[0]
    out = {}
    corr = ms.Correlation(S, packed(H), [float(v) for v in M.ravel()])
    hs, msys = system_means(H, M)
    sysc = ms.Correlation(S, [float(v) for v in hs], [float(v) for v in msys])
    for level, ab, c in (("none", "none", corr), ("system_group", "sys", corr), ("item", "item", corr),
                         ("system", "none", sysc)):
        r = {"pearson": c.Pearson(average_by=ab)[0], "spearman": c.Spearman(average_by=ab)[0],
             "kendall": c.Kendall(average_by=ab)[0], "tau_c": c.Kendall(average_by=ab, variant="c")[0],
             "tau_23": c.KendallVariants(average_by=ab, variant="23")[0],
             "acc_23": c.KendallVariants(average_by=ab, variant="acc23")[0],
             "acc_23_eps0.5": c.KendallVariants(average_by=ab, variant="acc23", epsilon=0.5)[0]}
        v, eps, _ = ms.KendallWithTiesOpt(c.gold_scores, c.metric_scores, variant="acc23", num_sys=c.num_sys,
                                          average_by=ab, sample_rate=1.0)
        r["acc_eq"], r["acc_eq_epsilon"] = v, eps
        r["kendall_like_thresh1_weighted"] = c.KendallLike(average_by=ab, thresh=1)[0]
        r["pearson_zero"] = ms.AverageCorrelation(scipy.stats.pearsonr, S, ab, replace_nans_with_zeros=True)(
            c.gold_scores, c.metric_scores)[0]
        r["pearson_weighted"] = ms.AverageCorrelation(scipy.stats.pearsonr, S, ab, macro=False)(
            c.gold_scores, c.metric_scores)[0]
        out[level] = {k: f(x) for k, x in r.items()}
    agree, n = ms.Agreement(list(hs), list(msys))
    out["system"]["pairwise_accuracy"] = float(agree / n)
    return out


def nlp_values(H, M):
    X = np.where(np.isnan(H), np.nan, M)
    out = {}
    for level, nl in (("none", "global"), ("item", "input"), ("system", "system")):
        out[level] = {c: f(nc.correlate(X, H, nl, c)) for c in ("pearson", "spearman", "kendall")}
    return out


def sacre_values(H, M):
    X = np.where(np.isnan(H), np.nan, M)
    out = {}
    for level, fn in (("item", ss.summary_level_corr), ("system", ss.system_level_corr), ("none", ss.global_corr)):
        out[level] = {c: f(fn(g, X, H)) for c, g in (("pearson", scipy.stats.pearsonr),
                                                     ("spearman", scipy.stats.spearmanr),
                                                     ("kendall", scipy.stats.kendalltau))}
    return out


def perm_data(seed=21, s=10, i=30):
    g = np.random.default_rng(seed)
    H = g.normal(0, 1, (s, i)) + g.normal(0, 1, (s, 1))
    A = H + g.normal(0, 1.0, (s, i))
    B = H + g.normal(0, 1.15, (s, i))
    return H, A, B


def _perm_setup():
    H, A, B = perm_data()
    S = H.shape[0]
    c_other = ms.Correlation(S, [float(v) for v in H.ravel()], [float(v) for v in B.ravel()])
    c_judge = ms.Correlation(S, [float(v) for v in H.ravel()], [float(v) for v in A.ravel()])
    return H, A, B, c_other, c_judge


def permutation_mtme(P=2000):
    H, A, B, c_other, c_judge = _perm_setup()
    out = {}
    for level, ab, fn in (("item", "item", scipy.stats.pearsonr), ("none", "none", scipy.stats.pearsonr),
                          ("item_kendall", "item", scipy.stats.kendalltau)):
        np.random.seed(1)  # noqa: NPY002 (the peers draw from the global RandomState)
        p, d, k, _ = ms.PermutationSigDiff(c_other, c_judge, fn, ab, k=P,
                                           params=ms.PermutationSigDiffParams(block_size=P))
        out[f"mtme_{level}"] = {"p": p, "delta": d, "k": k}
    return out


def permutation_nlpstats(P=2000):
    H, A, B, _, _ = _perm_setup()
    out = {}
    for method in ("both", "systems", "inputs"):
        np.random.seed(2)  # noqa: NPY002 (the peers draw from the global RandomState)
        res = nperm.permutation_test(A, B, H, "input", "pearson", method, alternative="greater", n_resamples=P)
        out[f"nlpstats_item_{method}_greater"] = {"p": res.pvalue}
    np.random.seed(3)  # noqa: NPY002 (the peers draw from the global RandomState)
    res = nperm.permutation_test(A, B, H, "input", "pearson", "both", alternative="two-sided", n_resamples=P)
    out["nlpstats_item_both_two-sided"] = {"p": res.pvalue}
    return out


def permutation_sacrerouge(P=2000):
    H, A, B, _, _ = _perm_setup()
    out = {}
    for name, pf in (("both", ss.permute_both), ("systems", ss.permute_systems), ("inputs", ss.permute_inputs)):
        np.random.seed(4)  # noqa: NPY002 (the peers draw from the global RandomState)
        p = ss.permutation_diff_test(functools.partial(ss.summary_level_corr, scipy.stats.pearsonr), A, B, H, pf,
                                     False, num_permutations=P)
        out[f"sacrerouge_item_{name}_greater"] = {"p": p}
    return out


def permutation_values(P=2000):
    return {"P": P, **permutation_mtme(P), **permutation_nlpstats(P), **permutation_sacrerouge(P)}


def williams_values():
    H, A, B = perm_data(seed=22, s=9, i=12)
    S = H.shape[0]
    out = {}
    c1 = ms.Correlation(S, [float(v) for v in H.ravel()], [float(v) for v in A.ravel()])
    c2 = ms.Correlation(S, [float(v) for v in H.ravel()], [float(v) for v in B.ravel()])
    p, r1, r2 = ms.WilliamsSigDiff(c1, c2, ms.AverageCorrelation(scipy.stats.pearsonr, S, "none"))
    out["mtme_none"] = {"p": p, "r1": r1, "r2": r2}
    for level, nl in (("system", "system"), ("item", "input"), ("none", "global")):
        for alt in ("two-sided", "greater", "less"):
            out[f"nlpstats_{level}_{alt}"] = {"p": nwill.williams_test(A, B, H, nl, "pearson", alternative=alt).pvalue}
    for level, fn in (("item", ss.summary_level_corr), ("system", ss.system_level_corr), ("none", ss.global_corr)):
        for tt in (True, False):
            out[f"sacrerouge_{level}_{'two' if tt else 'one'}"] = {
                "p": float(ss.williams_diff_test(functools.partial(fn, scipy.stats.pearsonr), A, B, H, tt))}
    return out


def bootstrap_values(B=2000):
    H, A, _ = perm_data(seed=23, s=10, i=25)
    out = {"B": B}
    for level, nl in (("system", "system"), ("item", "input")):
        for method, nm in (("systems", "systems"), ("items", "inputs"), ("both", "both")):
            ends = []
            for seed in (5, 6, 7):
                np.random.seed(seed)  # noqa: NPY002 (the peers draw from the global RandomState)
                r = nboot.bootstrap(A, H, nl, "pearson", nm, confidence_level=0.95, n_resamples=B)
                ends.append([r.lower, r.upper])
            out[f"{level}_{method}"] = {"ends": ends}
    return out


def spa_values():
    g = np.random.default_rng(31)
    H = g.normal(0, 1, (6, 40)) + g.normal(0, 0.5, (6, 1))
    M = H + g.normal(0, 1, H.shape)
    c = ms.Correlation(6, [float(v) for v in H.ravel()], [float(v) for v in M.ravel()])
    return {"H": H.tolist(), "M": M.tolist(), "spa": float(c.PairwiseConfidenceError()[0])}


def ranks_values():
    """mt-metrics-eval's AssignRanks on random upper-triangular p-value matrices."""
    # data.py imports apache_beam at module level (for its data pipelines); AssignRanks does not use it
    sys.modules.setdefault("apache_beam", types.ModuleType("apache_beam"))
    from mt_metrics_eval import data as md

    g = np.random.default_rng(41)
    out = []
    for _ in range(20):
        J = int(g.integers(2, 9))
        P = np.ones((J, J))
        iu = np.triu_indices(J, 1)
        P[iu] = np.round(g.random(len(iu[0])) ** 2, 3)
        out.append({"p": P.tolist(), "ranks": list(md.AssignRanks(P, 0.05))})
    return out


def versions():
    return {"python": sys.version.split()[0], "numpy": np.__version__, "scipy": scipy.__version__,
            "nlpstats": metadata.version("nlpstats"), "sacrerouge": metadata.version("sacrerouge"),
            "mt-metrics-eval": f"google-research/mt-metrics-eval git {mtme_commit()}"}


def matrices_values():
    data = {}
    for seed in (0, 1, 2):
        H, M = matrices(seed)
        data[str(seed)] = {"H": [[None if np.isnan(v) else v for v in row] for row in H.tolist()], "M": M.tolist(),
                           "mtme": mtme_values(H, M), "nlpstats": nlp_values(H, M), "sacrerouge": sacre_values(H, M)}
    return data


PARTS = {"matrices": matrices_values, "permutation": permutation_values, "williams": williams_values,
         "bootstrap_nlpstats": bootstrap_values, "soft_pairwise_accuracy": spa_values, "assign_ranks": ranks_values}
#: pieces of the slow parts, computed in separate processes and joined by --merge
PIECES = {"permutation": {"permutation_mtme": permutation_mtme, "permutation_nlpstats": permutation_nlpstats,
                          "permutation_sacrerouge": permutation_sacrerouge}}


def main(argv=None):
    """``--parts A B`` computes some parts into ``levels_reference.PART.json`` (parts run in parallel);
    ``--merge`` joins the part files into levels_reference.json; no argument does everything at once."""
    argv = sys.argv[1:] if argv is None else argv
    pieces = {k: f for v in PIECES.values() for k, f in v.items()}
    if argv and argv[0] == "--parts":
        for part in argv[1:]:
            value = pieces[part]() if part in pieces else PARTS[part]()
            OUT.with_suffix(f".{part}.json").write_text(json.dumps(value, sort_keys=True) + "\n", encoding="utf-8")
            print(f"wrote part {part}")
        return
    if argv and argv[0] == "--merge":
        ref = {}
        for part in PARTS:
            if part in PIECES:
                ref[part] = {"P": 2000}
                for piece in PIECES[part]:
                    ref[part].update(json.loads(OUT.with_suffix(f".{piece}.json").read_text(encoding="utf-8")))
            else:
                ref[part] = json.loads(OUT.with_suffix(f".{part}.json").read_text(encoding="utf-8"))
    else:
        ref = {part: f() for part, f in PARTS.items()}
    ref.update(generated_by="tests/reference/make_reference_levels.py", versions=versions())
    OUT.write_text(json.dumps(ref, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
