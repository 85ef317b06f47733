"""Study files: name the data and the analyses in TOML, get every table and figure (``metaeval report``).

A study file has a few top-level settings, a ``[data.NAME]`` table per data set and an
``[[analysis]]`` entry per analysis. Paths are relative to the study file. Example (the bundled
demo study, ``metaeval/data_samples/demo_study.toml``, is a complete one)::

    title = "UMBRELA-style check of a relevance judge"
    seed = 20261130
    n_resamples = 2000

    [data.trec]
    kind = "pair"                          # two judgment files on the same items
    reference = "qrels.human.txt"
    candidate = "qrels.judge.txt"
    scale = [0, 1, 2, 3]
    names = ["human", "judge"]
    out_of_scale = "error"                 # or clip / drop / missing
    duplicates = "error"                   # or first / last / majority / mean

    [data.runs]
    kind = "runs"
    path = "runs"                          # a directory of TREC runs

    [[analysis]]
    type = "agreement"                     # agreement report, thresholds, per class, confusion matrix
    data = "trec"
    cluster = "query_id"

    [[analysis]]
    type = "ranking"                       # system-ranking correlation of the runs under both qrels
    data = "trec"
    runs = "runs"
    measure = "nDCG@10"

Data kinds: ``pair`` (two files; ``on``, ``label``, ``scale``, policies as for :func:`metaeval.align`),
``table`` (one table with a reference and a candidate column: ``path``, ``key``, ``reference``,
``candidate``), ``long`` (one row per rater and sample: ``path``, ``item``, ``rater``, ``score``,
``reference``/``candidate`` rater names, ``samples = "mean"`` or ``"first"``, ``keep`` metadata
columns), ``runs`` (``path``), ``battles`` (``path``, read with :func:`metaeval.read_battles`).

Analysis types: ``agreement``, ``prevalence`` (``prevalence`` or ``prevalence_from = {path, column}``),
``ranking`` (``runs``, ``measure``), ``pairwise`` (``reference``/``candidate`` rater names),
``correlation``, ``length_bias`` (``length``), ``self_enhancement`` (``generator``, ``own``),
``inspect`` (``paths``).
"""

from __future__ import annotations

import os
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from ..core.errors import InputError
from ..output.report import Report, progress

__all__ = ["load_study", "run_study"]

_SHOW = ["statistic", "estimate", "ci_low", "ci_high", "ci_method", "unit", "n_units"]


def load_study(path: str | os.PathLike) -> dict:
    """Parse a study file (TOML) into a dict.

    Parameters
    ----------
    path : str or path-like
        The study file (see the module docstring for its format).

    Returns
    -------
    dict
        The TOML's tables, plus ``_base`` (the file's folder: paths in the study are relative to
        it) and ``_source`` (the file, named in error messages).

    Raises
    ------
    InputError
        When the file is missing or is not valid TOML (the message names the file and the fix).

    Examples
    --------
    >>> from metaeval.output import demo
    >>> s = load_study(demo._study_path())
    >>> s["seed"], [a["type"] for a in s["analysis"]][:3]
    (20261130, ['inspect', 'agreement', 'ranking'])
    """
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    path = Path(path)
    try:
        with open(path, "rb") as fh:
            study = tomllib.load(fh)
    except FileNotFoundError:
        raise InputError("study file not found", source=str(path)) from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"invalid TOML ({exc})", source=str(path), fix="check the study file's syntax") from None
    study["_base"] = str(path.parent)
    study["_source"] = str(path)
    return study


class _Context:
    def __init__(self, study: dict, base: Path, rep: Report | None = None):
        self.study = study
        self.base = base
        self.rep = rep
        self.cache: dict = {}
        self.seed = int(study.get("seed", 20261130))
        self.n_resamples = int(study.get("n_resamples", 2000))

    def relative(self, text: str) -> str:
        """``text`` with the study folder left out of file paths (reports do not depend on where they ran)."""
        return str(text).replace(str(self.base) + "/", "").replace(str(self.base) + "\\", "")

    def path(self, p) -> Path:
        p = Path(p)
        return p if p.is_absolute() else self.base / p

    def data(self, name):
        if name in self.cache:
            return self.cache[name]
        spec = self.study.get("data", {}).get(name)
        if spec is None:
            raise InputError(f"no data set named {name!r}", source=self.study.get("_source", "<study>"),
                             fix=f"define [data.{name}] (have: {', '.join(self.study.get('data', {}))})")
        with _collect(self, f"data.{name}"):
            self.cache[name] = obj = _load_data(spec, self)
            if self.rep is not None and hasattr(obj, "report") and hasattr(obj.report, "counts"):
                for category, message in _alignment_notes(obj.report):
                    self.rep.note(f"data.{name}", category, self.relative(message))
        return obj


# what each fate of an alignment (metaeval.data.alignment.FATES) means for the rows it names
_FATE_TEXT = {
    "unmatched": "the key is not in the other set",
    "duplicate_identical": "repeats of a key with the same label, collapsed into one",
    "duplicate_conflict": "repeats of a key with a different label, merged by the duplicates policy",
    "missing_key": "an empty key value",
    "missing_label": "an empty or NaN label",
    "out_of_scale_dropped": "a label outside the scale, out_of_scale='drop'",
    "out_of_scale_missing": "a label outside the scale, out_of_scale='missing'",
    "refusal_dropped": "a refusal or parse failure, refusals='drop'",
}


def _alignment_notes(report) -> list[tuple[str, str]]:
    """``(category, message)`` for every fate that leaves rows out of the pairs, and every note."""
    from ..data.alignment import FATES

    out = []
    kept = ("matched", "unjudged", "unjudged_filled")
    for side in report.names:
        src = report.sources.get(side)
        where = f"{side} ({src})" if src else side
        for fate in FATES:
            n = int(report.counts.get((side, fate), 0))
            if n and fate not in kept:
                why = _FATE_TEXT.get(fate, fate)
                out.append(("alignment", f"{where}: {n} of {report.n_input[side]} rows left out of the pairs as "
                                         f"{fate} ({why})"))
        for (s, note), n in report.notes.items():
            if s == side and n:
                out.append(("alignment", f"{where}: {int(n)} rows kept but changed: {note}"))
    return out


class _collect:
    """Record every warning raised inside the block as a note of ``analysis`` (nothing is shown)."""

    def __init__(self, ctx: _Context, analysis: str):
        self.ctx, self.analysis = ctx, analysis
        self._cm = warnings.catch_warnings(record=True)

    def __enter__(self):
        self.caught = self._cm.__enter__()
        warnings.simplefilter("always")
        return self

    def __exit__(self, *exc):
        self._cm.__exit__(*exc)
        if self.ctx.rep is not None and exc[0] is None:
            for w in self.caught:
                self.ctx.rep.note(self.analysis, w.category.__name__, self.ctx.relative(str(w.message)))
        return False


def _scale(spec):
    from ..core.scale import Scale

    if "scale" not in spec:
        return None
    return Scale(tuple(spec["scale"]), kind=spec.get("scale_kind", "ordinal" if len(spec["scale"]) > 2 else "nominal"))


def _load_data(spec: dict, ctx: _Context):
    from ..data import io as mio
    from ..data.alignment import align

    kind = spec.get("kind")
    if kind == "pair":
        return align(ctx.path(spec["reference"]), ctx.path(spec["candidate"]),
                     on=tuple(spec.get("on", ("query_id", "doc_id"))), label=spec.get("label", "relevance"),
                     scale=_scale(spec), out_of_scale=spec.get("out_of_scale", "error"),
                     duplicates=spec.get("duplicates", "error"), refusal_flag=spec.get("refusal_flag"),
                     refusals=spec.get("refusals", "keep"), unjudged=spec.get("unjudged", "drop"),
                     names=tuple(spec.get("names", ("reference", "candidate"))))
    if kind == "table":
        df, name, _ = mio._read_table(ctx.path(spec["path"]))
        key = spec.get("key", ["query_id", "doc_id"])
        key = [key] if isinstance(key, str) else list(key)
        ref, cand = spec.get("reference", "human"), spec.get("candidate", "judge")
        meta = [c for c in df.columns if c not in key + [ref, cand]]
        r = df[key + [ref] + meta].rename(columns={ref: "label"})
        c = df[key + [cand]].rename(columns={cand: "label"})
        return align(r, c, on=tuple(key), label="label", scale=_scale(spec),
                     out_of_scale=spec.get("out_of_scale", "error"), duplicates=spec.get("duplicates", "error"),
                     refusal_flag=spec.get("refusal_flag"), refusals=spec.get("refusals", "keep"),
                     names=tuple(spec.get("names", (ref, cand))))
    if kind == "long":
        df, name, _ = mio._read_table(ctx.path(spec["path"]))
        item, rater, score = spec.get("item", "item_id"), spec.get("rater", "rater"), spec.get("score", "score")
        df[score] = pd.to_numeric(df[score], errors="raise")
        keep = list(spec.get("keep", []))
        for c in keep:
            conv = pd.to_numeric(df[c], errors="coerce")
            if conv.notna().all():
                df[c] = conv
        how = spec.get("samples", "mean")
        sides = {}
        for side in ("reference", "candidate"):
            sub = df[df[rater] == spec[side]]
            if sub.empty:
                raise InputError(f"no rows with {rater} == {spec[side]!r}", source=name)
            g = sub.groupby(item, sort=True)[score]
            sides[side] = g.mean() if how == "mean" else g.first()
        meta = df.drop_duplicates(item).set_index(item)[keep] if keep else None
        wide = pd.DataFrame({"reference": sides["reference"], "candidate": sides["candidate"]}).dropna()
        if meta is not None:
            wide = wide.join(meta)
        wide.index.name = item
        r = wide.reset_index()[[item, "reference"] + keep].rename(columns={"reference": "label"})
        c = wide.reset_index()[[item, "candidate"]].rename(columns={"candidate": "label"})
        names = tuple(spec.get("names", (spec["reference"], spec["candidate"])))
        paired = align(r, c, on=item, label="label", names=names)
        if how == "mean":
            from ..core.scale import Scale
            paired.scale = Scale.infer(paired.reference, paired.candidate, kind="interval")
        else:
            paired.scale = _scale(spec) or paired.scale
        return paired
    if kind == "runs":
        return mio.read_runs(ctx.path(spec["path"]))
    if kind == "battles":
        return mio.read_battles(ctx.path(spec["path"]))
    if kind == "qrels":
        return mio.read_qrels(ctx.path(spec["path"]))
    raise InputError(f"unknown data kind {kind!r}", source="<study>",
                     expected="pair, table, long, runs, battles or qrels")


# --------------------------------------------------------------------------------------------
# analyses
# --------------------------------------------------------------------------------------------

def _an_inspect(a, ctx, rep, key):
    from ..data.inspect import inspect_file

    rows = []
    for p in a.get("paths", []):
        full = ctx.path(p)
        files = sorted(q for q in full.iterdir() if q.is_file()) if full.is_dir() else [full]
        for f in files:
            ins = inspect_file(f)
            rows.append((str(f.relative_to(ctx.base)) if f.is_relative_to(ctx.base) else str(f), ins.kind, ins.rows,
                         "; ".join(ins.problems) or "none"))
    rep.table(f"{key}_inspection", pd.DataFrame(rows, columns=["file", "kind", "rows", "problems"]),
              "Every file, read with the reader for its kind")


def _an_agreement(a, ctx, rep, key):
    from ..agreement import coefficients as ag
    from ..output import figures as fg
    paired = ctx.data(a["data"])
    cluster = a.get("cluster")
    kw = dict(n_resamples=ctx.n_resamples, rng=ctx.seed)
    rep.code(str(paired.report).replace(str(ctx.base) + "/", ""))
    rep.table(f"{key}_alignment", paired.report.to_frame(), "Alignment: every input row accounted for")
    agr = ag.agreement_report(paired, cluster=cluster, **kw)
    rep.table(f"{key}_agreement", agr.to_frame(), "Agreement" + (f", {cluster}-cluster bootstrap" if cluster else ""),
              columns=_SHOW)
    if cluster:
        iid = ag.cohen_kappa(paired, **kw)
        k = agr.get(statistic="cohen_kappa")
        rep.text(f"Cohen's kappa {k.estimate:.4f}: {cluster}-cluster interval [{k.ci.low:.4f}, {k.ci.high:.4f}] "
                 f"against the iid item interval [{iid.ci.low:.4f}, {iid.ci.high:.4f}] (width ratio "
                 f"{k.ci.width / iid.ci.width:.2f}).")
    fig, axes = fg.subplots(1, 2 if paired.scale.k <= 6 else 1, figsize=(9, 3.8))
    axes = np.atleast_1d(axes)
    fg.plot_confusion(paired, ax=axes[0])
    axes[0].set_title("counts")
    if len(axes) > 1:
        fg.plot_confusion(paired, normalize="row", ax=axes[1])
        axes[1].set_title("row-normalized (recall on the diagonal)")
    rep.figure(f"{key}_confusion", fig, "Confusion matrix (rows: reference, columns: candidate)")
    frames = [agr.to_frame().assign(view=f"{paired.scale.k} levels")]
    if a.get("thresholds", True) and paired.scale.k > 2 and paired.scale.kind != "nominal":
        thr = ag.threshold_agreement(paired, cluster=cluster, **kw)
        rep.table(f"{key}_thresholds", thr.to_frame(), "Agreement at every binarization threshold",
                  columns=["split"] + _SHOW[:4])
        tf = thr.to_frame()
        frames.append(tf.assign(view="split " + tf["split"]))
    if a.get("per_class", True) and paired.scale.k <= 10:
        pc = ag.per_class(paired, cluster=cluster, **kw)
        rep.table(f"{key}_per_class", pc.to_frame(), "Per-class precision, recall and F1",
                  columns=["class", "support"] + _SHOW[:4])
    forest = pd.concat(frames, ignore_index=True)
    fig, ax = fg.subplots(figsize=(7, 1.2 + 0.6 * forest["view"].nunique()))
    fg.plot_forest(forest, group="view", ax=ax)             # its default statistics: kappa, AC1, PABAK
    rep.figure(f"{key}_forest", fig, "Kappa, AC1 and PABAK with their intervals")
    return agr


def _an_prevalence(a, ctx, rep, key):
    from ..agreement import coefficients as ag
    from ..data import io as mio
    from ..output import figures as fg
    paired = ctx.data(a["data"])
    if "prevalence" in a:
        prev = float(a["prevalence"])
        where = "given"
    else:
        src = a["prevalence_from"]
        df, _, _ = mio._read_table(ctx.path(src["path"]))
        col = pd.to_numeric(df[src.get("column", "judge")], errors="raise")
        prev = float((col == src.get("positive", 1)).mean())
        where = f"{src.get('column', 'judge')} == {src.get('positive', 1)} in {src['path']} ({len(df)} rows)"
    res = ag.kappa_at_prevalence(paired, prevalence=prev, cluster=a.get("cluster"), n_resamples=ctx.n_resamples,
                                 rng=ctx.seed)
    rep.text(f"Target prevalence {prev:.4f} ({where}); the measured subset has prevalence "
             f"{res.measured_prevalence:.4f}.")
    rep.table(f"{key}_at_prevalence", res.to_frame(), "Kappa, PPV and agreement expected at the target prevalence",
              columns=["statistic", "prevalence", "estimate", "ci_low", "ci_high"])
    rep.table(f"{key}_prevalence_curve", res.curve, "Kappa and PPV versus prevalence")
    fig, ax = fg.subplots(figsize=(6.5, 4))
    fg.plot_kappa_vs_prevalence(res, ppv=True, ax=ax)
    rep.figure(f"{key}_kappa_vs_prevalence", fig, "Kappa (and PPV) versus prevalence, measured point and target")
    return res


def _an_ranking(a, ctx, rep, key):
    from ..output import figures as fg
    from ..systems.evaluation import system_scores
    from ..systems.ranking import rank_correlation, significance_agreement

    paired = ctx.data(a["data"])
    runs = ctx.data(a["runs"])
    measure = a.get("measure", "nDCG@10")
    d = paired.data
    on = list(paired.on)
    qr = d[on + ["reference"]].rename(columns={"reference": "relevance"}).copy()
    qc = d[on + ["candidate"]].rename(columns={"candidate": "relevance"}).copy()
    for q in (qr, qc):
        q["relevance"] = q["relevance"].round().astype(np.int64)
    sr = system_scores(qr, runs, measure)
    sc = system_scores(qc, runs, measure)
    res = rank_correlation(sr, sc, measure=measure, methods=tuple(a.get("methods", ("kendall_b", "spearman",
                                                                                      "tau_ap", "rbo"))),
                           n_resamples=ctx.n_resamples, rng=ctx.seed)
    f = res.to_frame()
    rep.text(f"{measure} of {res.info['n_systems']} runs on {res.info['n_topics']} topics, under the reference "
             "and the candidate labels. Intervals are for the correlation over the population of topics "
             "(debiased topic bootstrap; the bias column is the bootstrap bias of the estimate).")
    rep.table(f"{key}_rank_correlation", f, "Rank correlation of the system rankings",
              columns=["method", "estimate", "ci_low", "ci_high", "bias", "ci_method", "n_units"])
    sig = significance_agreement(sr, sc, measure=measure)
    rep.table(f"{key}_significance", sig[["quantity", "value", "test", "correction"]],
              "Do the pairwise significance decisions agree? (paired t-test, Holm)")
    est = dict(zip(f["method"], f["estimate"]))
    fig, ax = fg.subplots(figsize=(5.2, 5))
    fg.plot_ranking_scatter(res.means, ax=ax, tau=est.get("kendall_b"), rho=est.get("spearman"),
                            tau_ap=est.get("tau_ap"))
    ax.set_xlabel(f"{measure} under {paired.names[0]}")
    ax.set_ylabel(f"{measure} under {paired.names[1]}")
    rep.figure(f"{key}_ranking_scatter", fig, "Mean score per run under the two label sets")
    return res


def _an_pairwise(a, ctx, rep, key):
    from .. import pairwise as pw
    from ..output import figures as fg
    b = ctx.data(a["data"])
    ref, cand = a.get("reference", "human"), a.get("candidate", "judge")
    kw = dict(n_resamples=ctx.n_resamples, rng=ctx.seed)
    invalid = a.get("invalid", "drop")
    n_inv = int((b["outcome"] == "invalid").sum())
    rep.text(f"{len(b)} judgments; {n_inv} invalid (parse failures or refusals) counted as '{invalid}'.")
    wr = pw.win_rates(b, tie_rule="all", invalid=invalid, **kw)
    wf = wr.to_frame()
    rep.table(f"{key}_win_rates", wf, "Win rates under OpenING's four tie rules, per rater")
    fig, ax = fg.subplots(figsize=(7.5, 4.5))
    sub = wf[wf["judge"] == cand] if "judge" in wf.columns else wf
    fg.plot_win_rates(sub, ax=ax)
    rep.figure(f"{key}_win_rates", fig, f"Win rates of each model ({cand}) under the four tie rules")
    judge = b[b["judge"] == cand]
    human = b[b["judge"] == ref]
    if "swapped" in judge.columns:
        judge_main = judge[pd.to_numeric(judge["swapped"], errors="coerce").fillna(0) == 0]
    else:
        judge_main = judge
    ag = pw.pairwise_agreement(human, judge_main, tie_rule="all", invalid=invalid, **kw)
    rep.table(f"{key}_agreement", ag.to_frame(), f"{cand}–{ref} agreement under each tie rule")
    pb = pw.position_bias(judge, invalid=invalid, **kw)
    rep.table(f"{key}_position_bias", pb.to_frame(), f"Position bias of {cand}")
    return wr


def _an_correlation(a, ctx, rep, key):
    from ..agreement.correlation import score_correlation

    paired = ctx.data(a["data"])
    res = score_correlation(paired, method="all", cluster=a.get("cluster"), n_resamples=ctx.n_resamples,
                            rng=ctx.seed)
    rep.table(f"{key}_correlation", res.to_frame(), "Item-level score correlation", columns=_SHOW)
    return res


def _an_length_bias(a, ctx, rep, key):
    from ..checks.bias import length_bias, length_by_label
    from ..output import figures as fg

    paired = ctx.data(a["data"])
    d = paired.data.rename(columns={"reference": "human", "candidate": "judge"})
    length = a.get("length", "length")
    res = length_bias(d, reference="human", candidate="judge", length=length, cluster=a.get("cluster"),
                      n_resamples=ctx.n_resamples, rng=ctx.seed)
    rep.table(f"{key}_length_bias", res.to_frame(), "Length bias of the judge beyond the reference label")
    long = length_by_label(d, reference="human", candidate="judge", length=length)
    fig, ax = fg.subplots(figsize=(7, 4))
    fg.plot_length_by_label(d, label={"human": "human", "judge": "judge"}, length=length, ax=ax)
    rep.figure(f"{key}_length_by_label", fig, "Length distribution per label, judge beside human")
    rep.table(f"{key}_length_by_label", long, "Length per label and rater")
    return res


def _an_self_enhancement(a, ctx, rep, key):
    from ..checks.bias import self_enhancement
    from ..output import figures as fg

    paired = ctx.data(a["data"])
    d = paired.data.rename(columns={"reference": "human", "candidate": "judge"})
    gen = a.get("generator", "generator")
    res = self_enhancement(d, reference="human", candidate="judge", generator=gen, own=a["own"],
                           cluster=a.get("cluster"), n_resamples=ctx.n_resamples, rng=ctx.seed)
    rep.table(f"{key}_self_enhancement", res.to_frame(), f"Self-enhancement: judge − human gap for {a['own']}")
    long = pd.concat([d[[gen, "human"]].rename(columns={"human": "score"}).assign(rater="human"),
                      d[[gen, "judge"]].rename(columns={"judge": "score"}).assign(rater="judge")], ignore_index=True)
    fig, ax = fg.subplots(figsize=(6.5, 4))
    fg.plot_generator_means(long, generator=gen, rater="rater", score="score", ax=ax)
    rep.figure(f"{key}_generator_means", fig, "Mean score per generator, judge beside human")
    return res


_HANDLERS = {"inspect": _an_inspect, "agreement": _an_agreement, "prevalence": _an_prevalence,
             "ranking": _an_ranking, "pairwise": _an_pairwise, "correlation": _an_correlation,
             "length_bias": _an_length_bias, "self_enhancement": _an_self_enhancement}


def run_study(study: dict | str | os.PathLike, out: str | os.PathLike, *, base: str | os.PathLike | None = None
              ) -> Report:
    """Run every analysis of a study and write the report folder.

    Every warning raised while an analysis runs (and while a data set loads) is recorded, not
    shown: the report lists it once under *Notes* (report.md, report.html) and under ``notes`` in
    results.json, with the analysis (its ``name``, or ``data.<name>`` for a data set), the
    warning's class and its message. Rows the alignment leaves out of the pairs, and rows it
    changes, are notes too (category ``alignment``). File paths in the notes are relative to the
    study's folder, so the report does not depend on where it ran.

    Parameters
    ----------
    study : dict, str or path-like
        A dict from :func:`load_study` (possibly edited: ``seed``, ``n_resamples``, ``analysis``),
        or the path of a study file.
    out : str or path-like
        The output folder (created; files of the same names are replaced).
    base : str or path-like, optional
        The folder the study's paths are relative to (default: the study file's folder).

    Returns
    -------
    Report
        The report, already written to ``out``; ``report.notes`` holds the notes.

    Raises
    ------
    InputError
        For an unknown analysis type or data kind, a missing data set, or bad input data.

    Examples
    --------
    >>> import tempfile
    >>> from metaeval.output import demo
    >>> s = load_study(demo._study_path())
    >>> s["analysis"] = [a for a in s["analysis"] if a.get("name") == "imageclef"]
    >>> s["n_resamples"] = 200
    >>> rep = run_study(s, tempfile.mkdtemp())
    >>> sorted(rep.tables)[:2]
    ['imageclef_agreement', 'imageclef_alignment']
    >>> list(rep.notes.columns)
    ['analysis', 'category', 'message', 'times']
    """
    import matplotlib

    matplotlib.use("Agg")
    if not isinstance(study, dict):
        study = load_study(study)
    base = Path(base or study.get("_base", "."))
    ctx = _Context(study, base)
    rep = ctx.rep = Report(study.get("title", "metaeval report"), intro=study.get("description", ""),
                           meta={"seed": ctx.seed, "n_resamples": ctx.n_resamples,
                                 "study": {k: v for k, v in study.items() if not k.startswith("_")}})
    analyses = study.get("analysis", [])
    if not analyses:
        raise InputError("the study has no [[analysis]] entries", source=study.get("_source", "<study>"))
    for i, a in enumerate(progress(analyses, desc="analyses"), start=1):
        kind = a.get("type")
        if kind not in _HANDLERS:
            raise InputError(f"unknown analysis type {kind!r}", source=study.get("_source", "<study>"),
                             expected=", ".join(_HANDLERS))
        key = a.get("name", f"{i:02d}_{kind}")
        rep.section(a.get("title", f"{kind}: {a.get('data', '')}".rstrip(": ")), a.get("text", ""))
        with _collect(ctx, key):
            _HANDLERS[kind](a, ctx, rep, key)
    rep.write(out)
    return rep
