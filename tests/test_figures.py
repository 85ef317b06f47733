"""Figures: what each plot function draws (artist data, tick labels, texts), not pixels.

Sources of the expected numbers:

* the inputs themselves (a plot must show exactly the values it is given: the property tested);
* numpy / pandas computed independently in the test (medians, means, histogram counts);
* data_samples/README.md ("Achieved statistics"): the trec_dl_like confusion matrix and per-class
  accuracy 0.750 / 0.504 / 0.299 / 0.448; imageclef_like relevant counts 1,041 → 1,576; rubric_like
  mean judge − human +0.492 / +0.038 / −0.223;
* /work/shared/STATISTICS.md: the balanced table [[85, 20], [20, 77]] has κ = 0.603 and κ ≈ 0.063
  at prevalence 0.0107;
* OpenING's calculate_model_winrate.py (Zhou et al. 2024): the four tie rules, counted by hand;
* Okabe & Ito (2008), "Color Universal Design": the eight palette colours.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import subprocess
import sys
import warnings
from pathlib import Path

import matplotlib
import numpy as np
import pandas as pd
import pytest

import metaeval
from metaeval import InputError, MetaevalWarning, datasets
from metaeval import figures as F
from metaeval.core.scale import Scale

ROOT = Path(__file__).resolve().parents[1]
GALLERY = ROOT / "figures"

# data_samples/README.md, trec_dl_like "Confusion matrix (rows = human 0..3, columns = judge 0..3)"
TREC_CONFUSION = np.array([[3333, 772, 293, 44], [350, 772, 336, 73], [94, 437, 283, 133], [22, 134, 292, 363]])


def _gids(ax, prefix):
    """All artists of ``ax`` whose gid starts with ``prefix``."""
    found = []
    for a in ax.get_children():
        gid = a.get_gid()
        if gid is not None and gid.startswith(prefix):
            found.append(a)
    return found


def _one(ax, gid):
    hits = [a for a in ax.get_children() if a.get_gid() == gid]
    assert len(hits) == 1, f"{len(hits)} artists with gid {gid!r}"
    return hits[0]


def _segments(coll):
    return [np.asarray(s) for s in coll.get_segments()]


def _texts(ax):
    return [t.get_text() for t in ax.texts]


def _yticklabels(ax):
    return [t.get_text() for t in ax.get_yticklabels()]


def _xticklabels(ax):
    return [t.get_text() for t in ax.get_xticklabels()]


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def trec_paired():
    d = datasets.load("trec_dl_like")
    return metaeval.align(d.qrels_human, d.qrels_judge, scale=Scale((0, 1, 2, 3)), names=("human", "judge"))


def _load_script(name):
    if str(GALLERY) not in sys.path:
        sys.path.insert(0, str(GALLERY))
    spec = importlib.util.spec_from_file_location(f"_test_gallery_{name}", GALLERY / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# --------------------------------------------------------------------------------------------
# theme and files
# --------------------------------------------------------------------------------------------

def palette_is_okabe_ito_test():
    # Okabe & Ito (2008): the eight colours of the colour-universal-design palette
    expected = {"#000000", "#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7"}
    assert set(F.PALETTE) == expected and len(F.PALETTE) == 8
    with F.theme():
        cycle = [c.upper() for c in matplotlib.rcParams["axes.prop_cycle"].by_key()["color"]]
        assert matplotlib.rcParams["svg.hashsalt"] == "metaeval"
    assert cycle == [c.upper() for c in F.PALETTE]
    # property: the heatmap colormap gets darker monotonically (readable in greyscale)
    cmap = matplotlib.colormaps[F.HEATMAP_CMAP]
    rgb = cmap(np.linspace(0, 1, 64))[:, :3]
    lum = rgb @ np.array([0.2126, 0.7152, 0.0722])
    assert np.all(np.diff(lum) < 0)


def theme_does_not_leak_test():
    before = dict(matplotlib.rcParams)
    F.plot_confusion(TREC_CONFUSION)
    after = dict(matplotlib.rcParams)
    assert {k for k in before if before[k] != after[k]} == set()


def _busy_figure():
    """A figure with text, mathtext, log axis, band, histogram and an image."""
    fig, (a, b) = F.subplots(1, 2, figsize=(6, 2.6))
    F.plot_confusion(TREC_CONFUSION, normalize="row", ax=a)
    rng = np.random.default_rng(0)
    est = metaeval.cohen_kappa(table=[[85, 20], [20, 77]], n_resamples=300, rng=1)
    F.plot_bootstrap(est, ax=b)
    b.set_xscale("log")
    b.set_title("τ$_\\mathrm{AP}$ = 0.5")
    b.fill_between([0.5, 0.7], [0, 0], [rng.random(), 1], alpha=0.2)
    return fig


def save_is_byte_identical_test(tmp_path):
    files1 = F.save(_busy_figure(), tmp_path / "one" / "fig")
    files2 = F.save(_busy_figure(), tmp_path / "two" / "fig.pdf")  # a known suffix is stripped
    assert [p.name for p in files1] == ["fig.pdf", "fig.svg", "fig.png"] == [p.name for p in files2]
    for p1, p2 in zip(files1, files2):
        assert p1.stat().st_size > 1000
        assert _sha(p1) == _sha(p2), p1.name
    pdf = files1[0].read_bytes()
    svg = files1[1].read_text()
    assert b"CreationDate" not in pdf and b"ModDate" not in pdf and b"metaeval" in pdf
    assert "<dc:date>" not in svg and "metaeval" in svg
    with pytest.raises(InputError, match="unsupported"):
        F.save(_busy_figure(), tmp_path / "x", formats=("jpg",))


def save_is_byte_identical_across_processes_test(tmp_path):
    """The same gallery script in a fresh interpreter (another hash seed) writes the same bytes."""
    mod = _load_script("fig_confusion")
    here = mod.render(tmp_path / "in_process")
    env = {**os.environ, "PYTHONHASHSEED": "12345", "MPLBACKEND": "Agg"}
    subprocess.run([sys.executable, str(GALLERY / "fig_confusion.py"), str(tmp_path / "subprocess")], check=True,
                   env=env, capture_output=True, timeout=120)
    for p in here:
        assert _sha(p) == _sha(tmp_path / "subprocess" / p.name), p.name


# --------------------------------------------------------------------------------------------
# confusion matrices
# --------------------------------------------------------------------------------------------

def plot_confusion_counts_test(trec_paired):
    cm = metaeval.confusion_matrix(trec_paired)
    ax = F.plot_confusion(cm)
    img = ax.images[0].get_array()
    np.testing.assert_array_equal(np.asarray(img), TREC_CONFUSION)          # README confusion matrix
    assert _texts(ax) == [str(v) for v in TREC_CONFUSION.ravel()]          # row-major cell texts
    assert _xticklabels(ax) == ["0", "1", "2", "3"] == _yticklabels(ax)
    assert ax.get_xlabel() == "judge" and ax.get_ylabel() == "human"
    # a Paired gives the same picture, with its side names
    ax2 = F.plot_confusion(trec_paired)
    np.testing.assert_array_equal(np.asarray(ax2.images[0].get_array()), TREC_CONFUSION)
    assert (ax2.get_ylabel(), ax2.get_xlabel()) == ("human", "judge")


def plot_confusion_row_normalized_test():
    ax = F.plot_confusion(TREC_CONFUSION, normalize="row", labels=["0", "1", "2", "3"])
    v = np.asarray(ax.images[0].get_array())
    np.testing.assert_allclose(v.sum(axis=1), 1.0)
    # README per-class accuracy (human 0/1/2/3): 0.750 / 0.504 / 0.299 / 0.448
    np.testing.assert_allclose(np.diag(v), [0.750, 0.504, 0.299, 0.448], atol=5e-4)
    assert _texts(ax)[0] == "0.75" and _texts(ax)[5] == "0.50"
    assert ax.images[0].norm.vmin == 0 and ax.images[0].norm.vmax == 1
    # an empty row cannot be normalized: shown as a dash, masked in the image
    ax = F.plot_confusion([[5, 1], [0, 0]], normalize="row")
    assert _texts(ax) == ["0.83", "0.17", "–", "–"]
    assert np.ma.getmaskarray(ax.images[0].get_array())[1].all()


def plot_confusion_bad_input_test():
    with pytest.raises(InputError, match="square"):
        F.plot_confusion(np.ones((2, 3)))
    with pytest.raises(InputError, match="normalize"):
        F.plot_confusion(np.ones((2, 2)), normalize="rows")
    with pytest.raises(InputError, match="labels"):
        F.plot_confusion(np.ones((2, 2)), labels=["a"])


def plot_confusion_panels_test():
    tables = {"counts": TREC_CONFUSION, "row": TREC_CONFUSION, "binary": [[85, 20], [20, 77]],
              "five": np.eye(5) * 3 + 1, "again": TREC_CONFUSION}
    axes = F.plot_confusion_panels(tables, normalize=[None, "row", None, "row", None], ncols=3)
    assert len(axes) == 5
    assert [a.get_title() for a in axes] == list(tables)
    fig = axes[0].figure
    assert len(fig.axes) == 6 and not fig.axes[5].get_visible()        # 2 × 3 grid, last cell hidden
    assert _texts(axes[1])[0] == "0.75" and _texts(axes[0])[0] == "3333"
    assert _texts(axes[2]) == ["85", "20", "20", "77"]
    with pytest.raises(InputError, match="normalize"):
        F.plot_confusion_panels(tables, normalize=[None, "row"])


# --------------------------------------------------------------------------------------------
# system ranking scatter
# --------------------------------------------------------------------------------------------

def plot_ranking_scatter_frame_test():
    rng = np.random.default_rng(3)
    x = rng.uniform(0.4, 0.8, 12)
    y = 0.6 * x + rng.normal(0, 0.02, 12)
    df = pd.DataFrame({"reference": x, "candidate": y, "reference_low": x - 0.03, "reference_high": x + 0.04,
                       "candidate_low": y - 0.02, "candidate_high": y + 0.01},
                      index=pd.Index([f"run_{i:02d}" for i in range(12)], name="system"))
    # a basic-bootstrap interval need not contain the estimate: make one that does not
    df.loc["run_03", "candidate_low"] = y[3] + 0.001
    tau = metaeval.Estimate("kendall_b", 0.8, metaeval.ConfidenceInterval(0.7, 0.9, 0.95, "basic"))
    ax = F.plot_ranking_scatter(df, tau=tau, rho=0.912345, tau_ap={"estimate": 0.75, "ci_low": 0.6, "ci_high": 0.85},
                                label_points=True)
    pts = _one(ax, "systems")
    np.testing.assert_array_equal(pts.get_xdata(), x)
    np.testing.assert_array_equal(pts.get_ydata(), y)
    h = _segments(_one(ax, "interval:reference"))
    v = _segments(_one(ax, "interval:candidate"))
    assert len(h) == len(v) == 12
    np.testing.assert_allclose([s[:, 0] for s in h], np.c_[x - 0.03, x + 0.04])
    np.testing.assert_allclose([s[:, 1] for s in h], np.c_[y, y])
    np.testing.assert_allclose([s[:, 1] for s in v], np.c_[df["candidate_low"], y + 0.01])
    text = _one(ax, "correlations").get_text()
    assert text.split("\n") == ["τ = 0.800 [0.700, 0.900]", "ρ = 0.912", "τ$_\\mathrm{AP}$ = 0.750 [0.600, 0.850]"]
    assert "run_00" in _texts(ax)  # point labels


def plot_ranking_scatter_vectors_test():
    x = pd.Series([0.5, 0.6, 0.7], index=["a", "b", "c"])
    y = pd.Series([0.33, 0.31, 0.35], index=["c", "a", "b"])   # another order: matched on the index
    corr = pd.DataFrame({"method": ["kendall_b", "spearman", "tau_ap"], "statistic": ["kendall_b", "spearman", "tau_ap"],
                         "estimate": [0.333, 0.5, 0.25], "ci_low": [-0.1, 0.0, -0.2], "ci_high": [0.9, 1.0, 0.8]})
    ax = F.plot_ranking_scatter(x, y, y_interval=([0.3, 0.3, 0.3], [0.4, 0.4, 0.4]), correlations=corr, tau=0.9)
    pts = _one(ax, "systems")
    np.testing.assert_array_equal(pts.get_ydata(), [0.31, 0.35, 0.33])
    assert len(_segments(_one(ax, "interval:candidate"))) == 3
    assert len(_segments(_one(ax, "interval:reference"))) == 0          # no x intervals given
    lines = _one(ax, "correlations").get_text().split("\n")
    assert lines[0] == "τ = 0.900" and lines[1] == "ρ = 0.500 [0.000, 1.000]"   # explicit tau wins
    with pytest.raises(InputError, match="share"):
        F.plot_ranking_scatter(x, pd.Series([1.0, 2.0], index=["a", "z"]))
    with pytest.raises(InputError, match="x_interval"):
        F.plot_ranking_scatter([1, 2, 3], [1, 2, 3], x_interval=[1, 2])


# --------------------------------------------------------------------------------------------
# forest plot
# --------------------------------------------------------------------------------------------

def plot_forest_thresholds_test():
    thr = metaeval.threshold_agreement(table=TREC_CONFUSION, n_resamples=200, ci_method="percentile", rng=0)
    f = thr.to_frame()
    ax = F.plot_forest(thr)
    assert _yticklabels(ax) == ["0|123", "01|23", "012|3"]
    assert ax.get_ylabel() == "split"
    for stat in ("cohen_kappa", "gwet_ac1", "pabak"):
        sub = f[f["statistic"] == stat]
        mk = _one(ax, f"estimate:{stat}")
        np.testing.assert_array_equal(mk.get_xdata(), sub["estimate"])
        segs = _segments(_one(ax, f"interval:{stat}"))
        assert len(segs) == 3
        np.testing.assert_allclose([s[:, 0] for s in segs], sub[["ci_low", "ci_high"]].to_numpy())
    # groups top to bottom in frame order; each statistic dodged within its group
    y_k = _one(ax, "estimate:cohen_kappa").get_ydata()
    assert np.all(np.diff(y_k) < 0)
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["Cohen's κ", "Gwet's AC1", "PABAK"]
    assert _one(ax, "reference").get_xdata()[0] == 0
    # the kappa of the 01|23 split is the binarized table's kappa (sklearn-validated cohen_kappa)
    b = np.array([[TREC_CONFUSION[:2, :2].sum(), TREC_CONFUSION[:2, 2:].sum()],
                  [TREC_CONFUSION[2:, :2].sum(), TREC_CONFUSION[2:, 2:].sum()]])
    k = metaeval.cohen_kappa(table=b, ci_method="analytic").estimate
    assert _one(ax, "estimate:cohen_kappa").get_xdata()[1] == pytest.approx(k, abs=1e-12)


def plot_forest_mapping_and_single_group_test():
    reps = {"judge A": metaeval.agreement_report(table=[[85, 20], [20, 77]], n_resamples=100, rng=0),
            "judge B": metaeval.agreement_report(table=[[90, 15], [25, 72]], n_resamples=100, rng=0)}
    ax = F.plot_forest(reps, group="judge", statistics=["cohen_kappa", "matthews_corrcoef"])
    assert _yticklabels(ax) == ["judge A", "judge B"] and ax.get_ylabel() == "judge"
    np.testing.assert_allclose(_one(ax, "estimate:cohen_kappa").get_xdata(),
                               [reps["judge A"]["cohen_kappa"].estimate, reps["judge B"]["cohen_kappa"].estimate])
    assert len(_gids(ax, "estimate:")) == 2
    # a single report: one row per statistic
    ax = F.plot_forest(reps["judge A"].to_frame())
    assert _yticklabels(ax) == ["Cohen's κ", "Gwet's AC1", "PABAK"]
    assert _one(ax, "estimate:pabak").get_xdata()[0] == pytest.approx(reps["judge A"]["pabak"].estimate)
    # per_class: grouped by class, precision / recall / F1 (no kappa rows)
    pc = metaeval.per_class(table=TREC_CONFUSION, n_resamples=100, ci_method="percentile", rng=0)
    ax = F.plot_forest(pc)
    assert _yticklabels(ax) == ["0", "1", "2", "3"] and ax.get_ylabel() == "class"
    # README per-class accuracy = recall: 0.750 / 0.504 / 0.299 / 0.448
    np.testing.assert_allclose(_one(ax, "estimate:recall").get_xdata(), [0.750, 0.504, 0.299, 0.448], atol=5e-4)
    with pytest.raises(InputError, match="not in the frame"):
        F.plot_forest(reps["judge A"], statistics=["fleiss_kappa"])
    # labels are the registry's (metaeval.core.registry), weights included; labels= overrides; a name
    # the registry does not hold is shown as given
    from metaeval.core import registry

    f = reps["judge A"].to_frame()
    f = pd.concat([f, f.iloc[[0, 0]].assign(statistic=["my_stat", "cohen_kappa_quadratic"])], ignore_index=True)
    ax = F.plot_forest(f, statistics=["cohen_kappa_quadratic", "observed_agreement", "my_stat"],
                       labels={"observed_agreement": "p_o"})
    assert _yticklabels(ax) == [registry.resolve("cohen_kappa_quadratic").label, "p_o", "my_stat"]
    assert _yticklabels(ax)[0] == "Cohen's κ (quadratic)"
    with pytest.raises(InputError, match="missing column"):
        F.plot_forest(pd.DataFrame({"statistic": ["x"], "estimate": [1.0]}))


# --------------------------------------------------------------------------------------------
# kappa versus prevalence
# --------------------------------------------------------------------------------------------

def plot_kappa_vs_prevalence_test():
    r = metaeval.kappa_at_prevalence(table=[[85, 20], [20, 77]], prevalence=0.0107, n_resamples=500, rng=0)
    ax = F.plot_kappa_vs_prevalence(r)
    curve = _one(ax, "curve:kappa")
    cv = r.curve.sort_values("prevalence")
    np.testing.assert_array_equal(curve.get_xdata(), cv["prevalence"])
    np.testing.assert_array_equal(curve.get_ydata(), cv["kappa"])
    band = _one(ax, "band:kappa").get_paths()[0].vertices
    assert band[:, 1].min() == pytest.approx(cv["kappa_low"].min())
    assert band[:, 1].max() == pytest.approx(cv["kappa_high"].max())
    # STATISTICS.md: the balanced table has kappa 0.603 at its own prevalence 97/202 ...
    m = _one(ax, "measured")
    assert m.get_xdata()[0] == pytest.approx(97 / 202)
    assert m.get_ydata()[0] == pytest.approx(0.603, abs=5e-4)
    # ... and kappa ≈ 0.063 at prevalence 0.0107
    t = _one(ax, "target_point")
    assert t.get_xdata()[0] == 0.0107 and t.get_ydata()[0] == pytest.approx(0.063, abs=5e-4)
    assert _one(ax, "target").get_xdata()[0] == 0.0107
    seg = _segments(_one(ax, "interval:target"))[0]
    np.testing.assert_allclose(seg[:, 1], [r["kappa"].ci.low, r["kappa"].ci.high])
    assert "κ = 0.063" in _one(ax, "target_text").get_text()
    assert _one(ax, "measured_text").get_text() == "κ = 0.603"
    assert ax.get_xscale() == "log"
    assert _gids(ax, "curve:ppv") == []
    ax = F.plot_kappa_vs_prevalence(r, ppv=True, logx=False)
    np.testing.assert_array_equal(_one(ax, "curve:ppv").get_ydata(), cv["ppv"])
    assert ax.get_xscale() == "linear"


def plot_kappa_vs_prevalence_from_curve_test():
    cv = pd.DataFrame({"prevalence": [0.01, 0.1, 0.5], "kappa": [0.1, 0.4, 0.6], "kappa_low": [0.0, 0.3, 0.5],
                       "kappa_high": [0.2, 0.5, 0.7]})
    ax = F.plot_kappa_vs_prevalence(curve=cv, measured_prevalence=0.1, target=(0.01, 0.1, 0.0, 0.2), logx=False)
    assert _one(ax, "measured").get_ydata()[0] == 0.4
    assert len(_gids(ax, "target_point")) == 1
    with pytest.raises(InputError, match="curve"):
        F.plot_kappa_vs_prevalence()


# --------------------------------------------------------------------------------------------
# per-topic agreement
# --------------------------------------------------------------------------------------------

def plot_per_topic_test(trec_paired):
    topics = sorted(trec_paired.data["query_id"].unique())[:6]
    sub = trec_paired.subset(trec_paired.data["query_id"].isin(topics))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MetaevalWarning)
        by = metaeval.agreement_by(sub, "query_id", statistics=("cohen_kappa", "gwet_ac1"), n_resamples=100,
                                   ci_method="percentile", rng=0)
    k = by[by["statistic"] == "cohen_kappa"].reset_index(drop=True)
    # one topic with an undefined estimate, as agreement_by gives for a one-class topic
    k.loc[5, ["estimate", "ci_low", "ci_high"]] = np.nan
    pooled = metaeval.cohen_kappa(sub, cluster="query_id", n_resamples=200, rng=0)
    ax = F.plot_per_topic(k, overall=pooled)
    order = k.iloc[:5].sort_values("estimate", ascending=False)
    assert _yticklabels(ax) == list(order["query_id"])             # tick labels top to bottom: best first
    pts = _one(ax, "estimate")
    by_y = dict(zip(pts.get_ydata(), pts.get_xdata()))
    np.testing.assert_allclose([by_y[y] for y in sorted(by_y, reverse=True)], order["estimate"])
    assert len(_segments(_one(ax, "interval"))) == 5
    assert _one(ax, "overall").get_xdata()[0] == pooled.estimate
    assert "1 group(s) undefined" in _one(ax, "undefined").get_text()
    assert ax.get_xlabel() == "Cohen's κ"
    # statistic must be chosen when several are present; gwet_ac1 picked explicitly
    ax = F.plot_per_topic(by, statistic="gwet_ac1", sort=False)
    np.testing.assert_allclose(_one(ax, "estimate").get_xdata(),
                               by.loc[by["statistic"] == "gwet_ac1", "estimate"])
    with pytest.raises(InputError, match="no rows"):
        F.plot_per_topic(by, statistic="pabak")


# --------------------------------------------------------------------------------------------
# length by label, generator means
# --------------------------------------------------------------------------------------------

def plot_length_by_label_test():
    s = datasets.load("rubric_like").scores
    ax = F.plot_length_by_label(s, label="score", length="length", rater="rater")
    assert _xticklabels(ax) == ["1", "2", "3", "4", "5"]
    assert ax.get_yscale() == "log"
    meds = _gids(ax, "median:")
    assert len(meds) == 10
    for line in meds:
        _, rater, level = line.get_gid().split(":")
        expected = np.median(s.loc[(s["rater"] == rater) & (s["score"] == int(level)), "length"])   # numpy
        assert line.get_ydata()[0] == pytest.approx(expected), line.get_gid()
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["human", "judge"]
    # the wide form (one label column per rater) draws the same medians
    wide = pd.DataFrame({"h": [1, 1, 2, 2, 2], "j": [1, 2, 2, 2, 1], "len": [10, 30, 20, 40, 100]})
    ax = F.plot_length_by_label(wide, label={"human": "h", "judge": "j"}, length="len", log=False)
    got = {m.get_gid(): m.get_ydata()[0] for m in _gids(ax, "median:")}
    assert got == {"median:human:1": 20.0, "median:human:2": 40.0, "median:judge:1": 55.0,
                   "median:judge:2": 30.0}
    with pytest.raises(InputError, match="positive"):
        F.plot_length_by_label(wide.assign(len=[0, 1, 2, 3, 4]), label={"human": "h"}, length="len")


def plot_generator_means_raw_test():
    s = datasets.load("rubric_like").scores
    order = ["gpt-4v", "llava-13b", "instructblip"]
    ax = F.plot_generator_means(s, cluster="prompt_id", order=order, n_resamples=300, rng=0)
    means = s.groupby(["rater", "generator"])["score"].mean()                   # pandas
    for r in ("human", "judge"):
        np.testing.assert_allclose(_one(ax, f"estimate:{r}").get_ydata(), [means[(r, g)] for g in order])
        segs = _segments(_one(ax, f"interval:{r}"))
        assert len(segs) == 3
        for seg, g in zip(segs, order):
            assert seg[0, 1] < means[(r, g)] < seg[1, 1]
    assert _xticklabels(ax) == order
    # README: mean judge − human +0.492 / +0.038 / −0.223 (gpt-4v / llava-13b / instructblip)
    assert [_one(ax, f"difference:{g}").get_text() for g in order] == ["Δ = +0.49", "Δ = +0.04", "Δ = −0.22"]


def plot_generator_means_intervals_come_from_the_engine_test():
    # the group means are bootstrapped by metaeval.core.resample: over 3 prompts the engine's few-cluster
    # SmallSampleWarning fires (MIN_CLUSTERS = 7), and the estimates carry the engine's unit, clusters and seed
    from metaeval import SmallSampleWarning

    s = datasets.load("rubric_like").scores
    s = s[s["prompt_id"].isin(sorted(s["prompt_id"].unique())[:3])]
    with pytest.warns(SmallSampleWarning, match="only 3 clusters"):
        ax = F.plot_generator_means(s, cluster="prompt_id", n_resamples=300, rng=0)
    with pytest.warns(SmallSampleWarning):
        summ = F._group_means_bootstrap(s, ["generator", "rater"], "score", "prompt_id", 300, 0.95, 0)
    assert set(summ["unit"]) == {"clusters"} and set(summ["n_units"]) == {3} and set(summ["seed"]) == {0}
    means = s.groupby(["generator", "rater"])["score"].mean()                   # pandas
    np.testing.assert_allclose(summ["estimate"], [means[(g, r)] for g, r in zip(summ["generator"], summ["rater"])])
    assert (summ["n"] == s.groupby(["generator", "rater"]).size().loc[list(zip(summ["generator"],
                                                                                summ["rater"]))].to_numpy()).all()
    # the drawn intervals are the summary's
    segs = _segments(_one(ax, "interval:human"))
    human = summ[summ["rater"] == "human"]
    np.testing.assert_allclose([seg[0, 1] for seg in segs], human["ci_low"])
    np.testing.assert_allclose([seg[1, 1] for seg in segs], human["ci_high"])


def plot_generator_means_summary_test():
    summ = pd.DataFrame({"generator": ["g1", "g1", "g2", "g2"], "score": ["reference", "candidate"] * 2,
                         "mean": [3.0, 3.5, 2.0, 1.75], "ci_low": [2.9, 3.4, 1.9, 1.6], "ci_high": [3.1, 3.6, 2.1, 1.9]})
    ax = F.plot_generator_means(summ, rater="score", score="value")
    np.testing.assert_array_equal(_one(ax, "estimate:reference").get_ydata(), [3.0, 2.0])
    np.testing.assert_array_equal(_one(ax, "estimate:candidate").get_ydata(), [3.5, 1.75])
    assert _one(ax, "difference:g2").get_text() == "Δ = −0.25"
    assert _one(ax, "estimate:reference").get_color().lower() == F.OKABE_ITO["blue"].lower()


# --------------------------------------------------------------------------------------------
# win rates, relevant counts, sensitivity, bootstrap
# --------------------------------------------------------------------------------------------

def plot_win_rates_test():
    models, rules = ["m1", "m2", "m3"], ["fdt", "without_ties", "tie_zero", "tie_half"]
    rows = [(m, r, 0.2 + 0.2 * i + 0.01 * j, 0.1 + 0.2 * i, 0.4 + 0.2 * i) for i, m in enumerate(models)
            for j, r in enumerate(rules)]
    df = pd.DataFrame(rows, columns=["model", "tie_rule", "estimate", "ci_low", "ci_high"])
    ax = F.plot_win_rates(df)
    assert _yticklabels(ax) == ["m3", "m2", "m1"]                 # top to bottom: highest mean first
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["force-dividing tie", "without ties", "tie as 0",
                                                                   "tie as 0.5"]
    for r in rules:
        mk = _one(ax, f"estimate:{r}")
        np.testing.assert_allclose(mk.get_xdata(), df.loc[df["tie_rule"] == r, "estimate"])
        assert len(_segments(_one(ax, f"interval:{r}"))) == 3
    assert _one(ax, "reference").get_xdata()[0] == 0.5
    ax = F.plot_win_rates(df, order=["m2", "m1", "m3"], rules=["tie_half"])
    assert _yticklabels(ax) == ["m2", "m1", "m3"] and len(_gids(ax, "estimate:")) == 1


def plot_relevant_counts_test():
    d = datasets.load("imageclef_like")
    q = d.original_qrels
    o = q[q["relevance"] > 0].groupby("query_id").size()
    e = o.add(d.expansion[d.expansion["judge"] == 1].groupby("query_id").size(), fill_value=0)
    ax = F.plot_relevant_counts(o, e)
    assert _one(ax, "totals").get_text() == "total: 1,041 → 1,576"     # README: 1,041 → 1,576
    oy, ey = _one(ax, "counts:original").get_ydata(), _one(ax, "counts:expanded").get_ydata()
    assert np.all(np.diff(oy) >= 0)                                     # sorted by the original count
    labels = _xticklabels(ax)
    assert sorted(labels, key=int) == [str(i) for i in range(1, 36)]
    np.testing.assert_array_equal(oy, o.reindex(labels).to_numpy())
    np.testing.assert_array_equal(ey, e.reindex(labels).to_numpy())
    assert len(_segments(_one(ax, "change"))) == 35 and ax.get_yscale() == "log"
    # frame input; a topic with no relevant document in the original qrels
    f = pd.DataFrame({"query_id": ["a", "b"], "original": [0, 5], "expanded": [3, 5]})
    ax = F.plot_relevant_counts(f)
    assert "1 zero count(s)" in _one(ax, "zeros").get_text()
    with pytest.raises(InputError, match="expanded"):
        F.plot_relevant_counts(o)


def plot_sensitivity_test():
    df = pd.DataFrame({"scenario": ["all", "no leak", "no refusals"], "estimate": [0.603, 0.581, 0.609],
                       "ci_low": [0.5, 0.47, 0.51], "ci_high": [0.7, 0.68, 0.71],
                       "difference": [np.nan, -0.022, 0.006], "difference_low": [np.nan, -0.036, -0.006],
                       "difference_high": [np.nan, -0.011, 0.027]})
    ax = F.plot_sensitivity(df)
    assert _yticklabels(ax) == ["all", "no leak", "no refusals"]        # top to bottom in frame order
    assert _one(ax, "baseline").get_xdata()[0] == 0.603
    np.testing.assert_allclose(_one(ax, "estimate").get_offsets()[:, 0], df["estimate"])
    assert len(_segments(_one(ax, "interval"))) == 3
    assert _one(ax, "difference:no leak").get_text() == "Δ = −0.022 [−0.036, −0.011]"
    assert _gids(ax, "difference:all") == []
    ax = F.plot_sensitivity(df.drop(columns=["difference"]), baseline="no leak")
    assert _one(ax, "baseline").get_xdata()[0] == 0.581 and _gids(ax, "difference:") == []
    with pytest.raises(InputError, match="baseline"):
        F.plot_sensitivity(df, baseline="nope")


def plot_bootstrap_test():
    est = metaeval.cohen_kappa(table=[[85, 20], [20, 77]], n_resamples=2000, rng=7)
    ax = F.plot_bootstrap(est, bins=30)
    heights = [p.get_height() for p in ax.patches if p.get_gid() is None]
    counts, _ = np.histogram(est.replicates, bins=30)                    # numpy
    np.testing.assert_array_equal(heights, counts)
    assert sum(heights) == 2000
    ci_lines = [a for a in ax.get_children() if a.get_gid() == "ci"]
    assert sorted(line.get_xdata()[0] for line in ci_lines) == [est.ci.low, est.ci.high]
    band = _one(ax, "ci_band")   # a Rectangle (matplotlib >= 3.9) or a Polygon
    lo, hi = ((band.get_x(), band.get_x() + band.get_width()) if hasattr(band, "get_width")
              else (band.get_xy()[:, 0].min(), band.get_xy()[:, 0].max()))
    assert (lo, hi) == pytest.approx((est.ci.low, est.ci.high))
    assert _one(ax, "estimate").get_xdata()[0] == est.estimate
    cap = _one(ax, "caption").get_text()
    assert "95% bca interval" in cap and "B = 2,000" in cap and f"{est.ci.low:.3f}" in cap
    # numeric form, NaN replicates left out and counted
    reps = np.r_[np.linspace(0, 1, 99), np.nan]
    ax = F.plot_bootstrap(0.5, replicates=reps, ci=(0.025, 0.975), bins=10)
    assert sum(p.get_height() for p in ax.patches if p.get_gid() is None) == 99
    assert "1 NaN left out" in _one(ax, "caption").get_text()
    analytic = metaeval.cohen_kappa(table=[[85, 20], [20, 77]], ci_method="analytic")
    with pytest.raises(InputError, match="replicates"):
        F.plot_bootstrap(analytic)


def every_plot_function_takes_and_returns_ax_test():
    """The shared contract: draw on the given Axes and return it (one figure, several panels)."""
    fig, axes = F.subplots(2, 3)
    a = axes.ravel()
    frame = pd.DataFrame({"statistic": ["cohen_kappa"] * 2, "estimate": [0.3, 0.4], "ci_low": [0.2, 0.3],
                          "ci_high": [0.4, 0.5], "query_id": ["1", "2"]})
    assert F.plot_confusion(TREC_CONFUSION, ax=a[0]) is a[0]
    assert F.plot_forest(frame, ax=a[1]) is a[1]
    assert F.plot_per_topic(frame, ax=a[2]) is a[2]
    assert F.plot_ranking_scatter([1, 2, 3], [2, 1, 3], ax=a[3]) is a[3]
    assert F.plot_sensitivity(frame.rename(columns={"query_id": "scenario"}), ax=a[4]) is a[4]
    assert F.plot_bootstrap(0.1, replicates=[0, 0.1, 0.2], ci=(0, 0.2), ax=a[5]) is a[5]
    assert len(fig.axes) == 6


def docstring_examples_run_test():
    """The Examples sections of metaeval.figures (each shows what a function draws) are correct."""
    import doctest

    res = doctest.testmod(F, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert res.attempted >= 14 and res.failed == 0


# --------------------------------------------------------------------------------------------
# the gallery
# --------------------------------------------------------------------------------------------

def gallery_win_rates_are_openings_rules_test():
    """The gallery's win rates (metaeval.win_rates) equal OpenING's rules counted by hand with pandas.

    OpenING's calculate_model_winrate.py, per model with W decisive wins, L decisive losses, T plain
    ties, LW/LL ties leaning to/away from it and N battles: without ties W/(W + L), force-dividing
    tie (W + LW)/N, tie as 0 W/N, tie as 0.5 (W + (LW + T + LL)/2)/N.
    """
    mod = _load_script("fig_win_rates")
    for rater in ("human", "judge"):
        b = mod.verdicts(rater)
        f = mod.win_rates_frame(b)
        parts = []
        for side, win, lose, lean_win, lean_lose in (("model_a", "A", "B", "tie_a", "tie_b"),
                                                      ("model_b", "B", "A", "tie_b", "tie_a")):
            o = b["outcome"]
            parts.append(pd.DataFrame({"model": b[side], "W": o == win, "L": o == lose, "T": o == "tie",
                                       "LW": o == lean_win, "LL": o == lean_lose}).astype({"model": str}))
        c = pd.concat(parts).groupby("model").sum().astype(float)
        n = c.sum(axis=1)
        w, loss, lw, ll, tie = c["W"], c["L"], c["LW"], c["LL"], c["T"]
        expected = {"without_ties": w / (w + loss), "fdt": (w + lw) / n, "tie_zero": w / n,
                    "tie_half": (w + (lw + tie + ll) / 2) / n}
        assert set(f["tie_rule"]) == set(expected)
        for rule, want in expected.items():
            got = f[f["tie_rule"] == rule].set_index("model")["estimate"]
            np.testing.assert_allclose(got.loc[want.index], want, atol=1e-12, err_msg=f"{rater} {rule}")


def gallery_renders_every_figure_test(tmp_path):
    mod = _load_script("make_all")
    files = mod.render_all(tmp_path)
    stems = sorted({p.stem for p in files})
    assert len(stems) >= len(mod.scripts()) >= 12     # a script may draw several figures
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(p.name for p in files)
    assert len(files) == 3 * len(stems)
    for p in files:
        assert p.stat().st_size > 2000, p.name
    for need in ("confusion_trec_dl", "confusion_datasets", "ranking_scatter", "forest_datasets",
                 "forest_thresholds", "kappa_vs_prevalence", "per_topic_kappa", "length_by_label",
                 "generator_means", "win_rates", "relevant_counts", "sensitivity", "bootstrap_kappa",
                 "corrected_intervals", "coverage_width", "budget_curve"):
        assert need in stems


@pytest.mark.slow
def gallery_second_run_is_byte_identical_test(tmp_path):
    env = {**os.environ, "MPLBACKEND": "Agg"}
    for run, seed in (("a", "0"), ("b", "4242")):
        subprocess.run([sys.executable, str(GALLERY / "make_all.py"), str(tmp_path / run)], check=True,
                       env={**env, "PYTHONHASHSEED": seed}, capture_output=True, timeout=300)
    a = {p.name: _sha(p) for p in (tmp_path / "a").iterdir()}
    b = {p.name: _sha(p) for p in (tmp_path / "b").iterdir()}
    assert len(a) >= 36 and a == b
