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
``reference``/``candidate`` rater names, ``sample`` (the column numbering repeated samples),
``samples = "mean"`` or ``"first"``, ``duplicates`` as for ``align``, ``keep`` metadata columns; read by
:func:`metaeval.data.long.align_long`, every row counted by fate), ``runs`` (``path``), ``battles`` (``path``, read with :func:`metaeval.read_battles`),
``qrels`` (``path``, read with :func:`metaeval.read_qrels`), ``frame`` (``path``: any table, read as
text), ``eval_log`` (harness logs and annotation exports read with :func:`metaeval.read_eval_log`:
``reference``, ``candidate``, ``reference_scorer``, ``candidate_scorer``).

Analysis types: ``agreement``, ``prevalence`` (``prevalence`` or ``prevalence_from = {path, column}``),
``ranking`` (``runs``, ``measure``), ``pairwise`` (``reference``/``candidate`` rater names),
``correlation``, ``length_bias`` (``length``), ``self_enhancement`` (``generator``, ``own``),
``inspect`` (``paths``); and the judge-corrected inference of :mod:`metaeval.inference`:
``corrected_scores`` (``human``, ``judge`` qrels and ``runs``: :func:`metaeval.corrected_system_scores`),
``corrected_prevalence`` (a binary validation set and a ``frame`` of judge labels:
:func:`metaeval.rogan_gladen_counts`), ``alt_test`` (a long ``frame`` of human and judge labels:
:func:`metaeval.alt_test`), ``label_budget`` (a pilot: :func:`metaeval.label_budget`,
:func:`metaeval.required_labels`) and ``leaderboard`` (per-item scores:
:func:`metaeval.leaderboard_metrics`); and for many judges (a long ``frame``, one row per item and
rater): ``panel`` (:func:`metaeval.judge_panel`) and ``jury`` (:func:`metaeval.jury`,
:func:`metaeval.jury_vs_best`, :func:`metaeval.select_jury`). They compute nothing themselves: every number in their tables
is the library function's, called with the study's ``seed`` and ``n_resamples``.

A key an analysis needs and lacks, or a value the library refuses, raises an :class:`InputError`
that names the study file and the analysis (its ``name`` and ``type``). Every key, its type, allowed
values, default and meaning are declared once, in :mod:`metaeval.output.study_schema`: an unknown key
(with the nearest valid one: "did you mean `cluster`?"), data kind or analysis type, or a value of
the wrong type, is an :class:`InputError` naming the file, the section and the key when the study loads.
"""

from __future__ import annotations

import contextlib
import os
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from ..core.errors import InputError, MetaevalWarning, interface
from ..output.report import Report, progress
from .escape import mpl_text
from .study_schema import study_scale, validate_study

__all__ = ["load_study", "run_study"]

_SHOW = ["statistic", "estimate", "ci_low", "ci_high", "ci_method", "unit", "n_units"]


def _table(rep: Report, name: str, result, caption: str, *, columns=None, units: str | None = None,
           frame: pd.DataFrame | None = None) -> None:
    """A table of estimates (``result.to_frame()`` unless ``frame`` is given), captioned from the estimates.

    Every analysis type adds its tables of estimates here: the caption's interval note is built from the
    estimates' own metadata (:func:`metaeval.output.report.interval_note`: interval method, variance and
    quantile, B, the units and how many), never written by hand.
    """
    estimates = getattr(result, "results", result)        # a BiasResult keeps its estimates in .results
    rep.table(name, result.to_frame() if frame is None else frame, caption, columns=columns, intervals=estimates,
              units=units)


#: The largest study file read (bytes): a study names its data files, it does not hold them.
MAX_STUDY_BYTES = 10 * 2**20


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
        When the file is missing or is not valid TOML (the message names the file and the fix); a
        device, FIFO, socket, folder, link loop or pseudo-file, or a file larger than
        :data:`MAX_STUDY_BYTES`, is refused before it is read (:func:`metaeval.core.regular.read_regular`).

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
    from ..core.regular import read_regular

    path = Path(path)
    data = read_regular(path, limit=MAX_STUDY_BYTES, what="the study file",
                        limit_fix="a study file names its data files, it does not hold them")
    try:
        study = tomllib.loads(data.decode("utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"invalid TOML ({exc})", source=str(path), fix="check the study file's syntax") from None
    except UnicodeDecodeError as exc:
        line = (exc.object[:exc.start].count(b"\n") + 1) if isinstance(exc.object, bytes) else None
        raise InputError(f"the study file is not valid UTF-8 (byte {exc.object[exc.start:exc.start + 1]!r} at "
                         f"offset {exc.start})", source=str(path), line=line,
                         fix="save the study file as UTF-8 (TOML files are UTF-8)") from None
    except RecursionError:
        raise InputError("the study file nests arrays or tables too deeply to read", source=str(path),
                         fix="a study file needs at most a few levels of nesting") from None
    study["_base"] = str(path.parent)
    study["_source"] = str(path)
    validate_study(study)
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
        with _collect(self, f"data.{name}"), interface("study", data=name):   # fixes name the study's keys
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
    if "scale" not in spec:
        return None
    return study_scale(spec["scale"], spec.get("scale_kind"))


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
                     names=tuple(spec.get("names", ("reference", "candidate"))), engine=spec.get("engine", "auto"),
                     by=spec.get("by"))
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
        from ..data.long import align_long

        how = spec.get("samples", "mean")
        return align_long(ctx.path(spec["path"]), reference=spec["reference"], candidate=spec["candidate"],
                          item=spec.get("item", "item_id"), rater=spec.get("rater", "rater"),
                          score=spec.get("score", "score"), sample=spec.get("sample", "auto"), samples=how,
                          duplicates=spec.get("duplicates", "error"), keep=list(spec.get("keep", [])),
                          names=tuple(spec.get("names", (spec["reference"], spec["candidate"]))),
                          scale=_scale(spec) if how == "first" else None)
    if kind == "runs":
        return mio.read_runs(ctx.path(spec["path"]))
    if kind == "battles":
        return mio.read_battles(ctx.path(spec["path"]))
    if kind == "qrels":
        return mio.read_qrels(ctx.path(spec["path"]))
    if kind == "frame":
        df, _, _ = mio._read_table(ctx.path(spec["path"]))
        return df
    if kind == "eval_log":
        from ..data.logs import read_eval_log, select

        fmt = spec.get("format", "auto")
        ref_log = read_eval_log(ctx.path(spec["reference"]), format=fmt)
        cand_log = read_eval_log(ctx.path(spec["candidate"]), format=fmt) if "candidate" in spec else ref_log
        on = spec.get("on", ["item"])
        return align(select(ref_log, spec.get("reference_scorer", "human")),
                     select(cand_log, spec.get("candidate_scorer", "judge")), on=(on,) if isinstance(on, str) else tuple(on),
                     label=spec.get("label", "score"), scale=_scale(spec), duplicates=spec.get("duplicates", "error"),
                     names=tuple(spec.get("names", ("reference", "candidate"))))
    raise InputError(f"unknown data kind {kind!r}", source="<study>",
                     expected="pair, table, long, runs, battles, qrels, frame or eval_log")


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
    units = f"{cluster} clusters" if cluster else None
    _table(rep, f"{key}_agreement", agr, "Agreement" + (f", {cluster}-cluster bootstrap" if cluster else ""),
           columns=_SHOW, units=units)
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
        _table(rep, f"{key}_thresholds", thr, "Agreement at every binarization threshold",
               columns=["split"] + _SHOW[:4], units=units)
        tf = thr.to_frame()
        frames.append(tf.assign(view="split " + tf["split"]))
    if a.get("per_class", True) and paired.scale.k <= 10:
        pc = ag.per_class(paired, cluster=cluster, **kw)
        _table(rep, f"{key}_per_class", pc, "Per-class precision, recall and F1",
               columns=["class", "support"] + _SHOW[:4], units=units)
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
    _table(rep, f"{key}_at_prevalence", res, "Kappa, PPV and agreement expected at the target prevalence",
           columns=["statistic", "prevalence", "estimate", "ci_low", "ci_high"],
           units=f"{a['cluster']} clusters" if a.get("cluster") else None)
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
    _table(rep, f"{key}_rank_correlation", res, "Rank correlation of the system rankings",
           columns=["method", "estimate", "ci_low", "ci_high", "bias", "ci_method", "n_units"], frame=f)
    sig = significance_agreement(sr, sc, measure=measure)
    rep.table(f"{key}_significance", sig[["quantity", "value", "test", "correction"]],
              "Do the pairwise significance decisions agree? (paired t-test, Holm)")
    est = dict(zip(f["method"], f["estimate"]))
    fig, ax = fg.subplots(figsize=(5.2, 5))
    fg.plot_ranking_scatter(res.means, ax=ax, tau=est.get("kendall_b"), rho=est.get("spearman"),
                            tau_ap=est.get("tau_ap"))
    ax.set_xlabel(mpl_text(f"{measure} under {paired.names[0]}"))
    ax.set_ylabel(mpl_text(f"{measure} under {paired.names[1]}"))
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
    _table(rep, f"{key}_win_rates", wr, "Win rates under OpenING's four tie rules, per rater", frame=wf)
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
    _table(rep, f"{key}_agreement", ag, f"{cand}–{ref} agreement under each tie rule")
    pb = pw.position_bias(judge, invalid=invalid, **kw)
    _table(rep, f"{key}_position_bias", pb, f"Position bias of {cand}")
    return wr


def _an_correlation(a, ctx, rep, key):
    from ..agreement.correlation import score_correlation

    paired = ctx.data(a["data"])
    res = score_correlation(paired, method="all", cluster=a.get("cluster"), n_resamples=ctx.n_resamples,
                            rng=ctx.seed)
    _table(rep, f"{key}_correlation", res, "Item-level score correlation", columns=_SHOW,
           units=f"{a['cluster']} clusters" if a.get("cluster") else None)
    return res


def _an_length_bias(a, ctx, rep, key):
    from ..checks.bias import length_bias, length_by_label
    from ..output import figures as fg

    paired = ctx.data(a["data"])
    d = paired.data.rename(columns={"reference": "human", "candidate": "judge"})
    length = a.get("length", "length")
    res = length_bias(d, reference="human", candidate="judge", length=length, cluster=a.get("cluster"),
                      n_resamples=ctx.n_resamples, rng=ctx.seed)
    _table(rep, f"{key}_length_bias", res, "Length bias of the judge beyond the reference label",
           units=f"{a['cluster']} clusters" if a.get("cluster") else None)
    ref_name, cand_name = (str(n) for n in paired.names)
    long = length_by_label(d, reference="human", candidate="judge", length=length)
    long["rater"] = long["rater"].map({"reference": ref_name, "candidate": cand_name})
    fig, ax = fg.subplots(figsize=(7, 4))
    fg.plot_length_by_label(d, label={ref_name: "human", cand_name: "judge"}, length=length, ax=ax,
                            unit=a.get("unit"))
    rep.figure(f"{key}_length_by_label", fig, f"Length distribution per label, {cand_name} beside {ref_name}")
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
    _table(rep, f"{key}_self_enhancement", res, f"Self-enhancement: judge − human gap for {a['own']}",
           units=f"{a['cluster']} clusters" if a.get("cluster") else None)
    long = pd.concat([d[[gen, "human"]].rename(columns={"human": "score"}).assign(rater="human"),
                      d[[gen, "judge"]].rename(columns={"judge": "score"}).assign(rater="judge")], ignore_index=True)
    fig, ax = fg.subplots(figsize=(6.5, 4))
    fg.plot_generator_means(long, generator=gen, rater="rater", score="score", ax=ax)
    rep.figure(f"{key}_generator_means", fig, "Mean score per generator, judge beside human")
    return res


# --------------------------------------------------------------------------------------------
# judge-corrected inference (metaeval.inference): every number in these tables is the library's
# --------------------------------------------------------------------------------------------

#: Data kinds that give a Paired (a reference and a candidate label per item).
_PAIRED_KINDS = ("pair", "table", "long", "eval_log")
#: ``extra`` entries of corrected_system_scores' estimates shown as columns of the scores table.
_PPI_EXTRAS = ("lam", "n_labelled", "df", "judge_mean", "labelled_mean")
#: ``extra`` entries of rogan_gladen_counts' estimates shown as columns of the counts table.
_RG_EXTRAS = ("positives", "total", "sensitivity", "specificity", "unclipped", "clipped")


class _Entry(dict):
    """One ``[[analysis]]`` entry: reading a key it lacks raises an InputError naming the study and the analysis."""

    def __init__(self, entry: dict, source: str, name: str):
        super().__init__(entry)
        self.source, self.name = source, name

    def __getitem__(self, k):
        if k not in self:
            raise _study_error(self.source, self.name, dict.get(self, "type"), f"the key {k!r} is missing",
                               fix=f"add {k} = ... to its [[analysis]] entry (the keys of each type: "
                                   "docs/guide/study-files.md)")
        return super().__getitem__(k)


def _study_error(source: str, name: str, kind, problem: str, **kw) -> InputError:
    err = InputError(f"analysis {name!r} (type = {kind!r}): {problem}", source=source, **kw)
    err._in_study = True
    return err


def _fail(ctx: _Context, a, key: str, problem: str, **kw) -> InputError:
    """An InputError about analysis ``key`` of the study (raise it)."""
    return _study_error(ctx.study.get("_source", "<study>"), key, dict.get(a, "type"), problem, **kw)


@contextlib.contextmanager
def _named_errors(ctx: _Context, key: str, kind):
    """Re-raise an InputError from inside an analysis with the study file and the analysis named."""
    try:
        yield
    except InputError as exc:
        if getattr(exc, "_in_study", False):
            raise
        source = ctx.study.get("_source", "<study>")
        where = ""
        if exc.source and exc.source != source:
            where = f" (in {ctx.relative(exc.source)}" + (f", line {exc.line}" if exc.line is not None else "") + ")"
        raise _study_error(source, key, kind, exc.problem + where, text=exc.text, expected=exc.expected,
                           fix=exc.fix) from exc


def _dataset(ctx: _Context, a, key: str, role: str, name, kinds: tuple[str, ...]):
    """The data set ``name`` that analysis ``key`` uses as its ``role``, checked to be of one of ``kinds``."""
    if not isinstance(name, str):
        raise _fail(ctx, a, key, f"{role} must name a data set (a [data.NAME] table)", text=repr(name))
    spec = ctx.study.get("data", {}).get(name)
    if spec is not None and spec.get("kind") not in kinds:         # (a name with no data set: ctx.data says so)
        raise _fail(ctx, a, key, f"{role} = {name!r} is a data set of kind {spec.get('kind')!r}",
                    expected="kind = " + " or ".join(repr(k) for k in kinds))
    return ctx.data(name)


def _number(ctx: _Context, a, key: str, what: str, value, *, integer: bool = False):
    ok = isinstance(value, (int, np.integer)) if integer else isinstance(value, (int, float, np.integer, np.floating))
    if isinstance(value, bool) or not ok:
        raise _fail(ctx, a, key, f"{what} must be {'an integer' if integer else 'a number'}", text=repr(value))
    return int(value) if integer else float(value)


def _strings(ctx: _Context, a, key: str, what: str, value) -> list[str]:
    """A key holding one string or a list of strings, as a list."""
    values = [value] if isinstance(value, str) else value
    if not isinstance(values, list) or not values or not all(isinstance(v, str) for v in values):
        raise _fail(ctx, a, key, f"{what} must be a string or a list of strings", text=repr(value))
    return list(values)


def _flag(ctx: _Context, a, key: str, what: str, value) -> bool:
    if not isinstance(value, bool):
        raise _fail(ctx, a, key, f"{what} must be true or false", text=repr(value))
    return value


def _ci_option(value):
    """A ``ci_method`` key: ``"none"`` (TOML has no null) asks for the point estimate only."""
    return None if value == "none" else value


def _columns(ctx: _Context, a, key: str, df: pd.DataFrame, role: str, **cols) -> None:
    missing = {k: c for k, c in cols.items() if c not in df.columns}
    if missing:
        k, c = next(iter(missing.items()))
        raise _fail(ctx, a, key, f"{role} has no column {c!r} (the {k} key)",
                    expected=f"one of {', '.join(map(str, df.columns))}")


def _with_extras(rs, names) -> pd.DataFrame:
    """``rs.to_frame()`` and, as further columns, the named ``extra`` entries of each estimate (NaN if absent)."""
    f = rs.to_frame()
    for n in names:
        f[n] = [e.extra.get(n, np.nan) for e in rs]
    return f


def _labelled_scores(ctx: _Context, a, key: str, human_q: pd.DataFrame, judge_q: pd.DataFrame, runs, measure,
                     labelled_topics, n_labelled):
    """Judge scores on every topic, human scores on the labelled topics, and the human scores on every
    topic when the human qrels judge them all (else None); the labelled topics and how they were chosen."""
    from ..systems.evaluation import system_scores

    judge = system_scores(judge_q, runs, measure)
    topics = set(judge.topics)
    human_topics = set(human_q["query_id"].astype(str))
    both = sorted(topics & human_topics)
    complete = topics <= human_topics
    if labelled_topics is not None and n_labelled is not None:
        raise _fail(ctx, a, key, "give labelled_topics or n_labelled, not both")
    if labelled_topics is not None:
        lab = _strings(ctx, a, key, "labelled_topics", labelled_topics)
        how = f"the {len(lab)} topics of labelled_topics"
    elif n_labelled is not None:
        n = _number(ctx, a, key, "n_labelled", n_labelled, integer=True)
        if not 2 <= n <= len(both):
            raise _fail(ctx, a, key, f"n_labelled must lie between 2 and {len(both)} (the judge's topics that have "
                                     f"human qrels), got {n}")
        lab = [str(t) for t in np.random.default_rng(ctx.seed).choice(both, n, replace=False)]
        how = (f"a simple random sample of the {len(both)} topics with human qrels, drawn with "
               f"numpy.random.default_rng({ctx.seed}).choice")
    else:
        if complete:
            raise _fail(ctx, a, key, f"the human qrels judge every one of the judge's {len(topics)} topics: "
                                     "say which topics count as labelled",
                        fix="n_labelled = 15 (a random sample drawn with the study's seed) or labelled_topics = [...]")
        lab = both
        how = "the topics of the human qrels"
    human = system_scores(human_q[human_q["query_id"].astype(str).isin(lab)], runs, measure)
    full = system_scores(human_q, runs, measure) if complete else None
    return judge, human, full, lab, how


def _an_corrected_scores(a, ctx, rep, key):
    from ..inference.systems import corrected_coverage, corrected_system_scores
    from ..output import figures as fg

    measure = a.get("measure", "nDCG@10")
    runs = _dataset(ctx, a, key, "runs", a["runs"], ("runs",))
    human_q = _dataset(ctx, a, key, "human", a["human"], ("qrels",))
    judge_q = _dataset(ctx, a, key, "judge", a["judge"], ("qrels",))
    judge, human, full, lab, how = _labelled_scores(ctx, a, key, human_q, judge_q, runs, measure,
                                                    a.get("labelled_topics"), a.get("n_labelled"))
    method = a.get("method", "ppi++")
    methods = [method] + [m for m in _strings(ctx, a, key, "compare", a.get("compare", ["judge_only", "classical"]))
                          if m != method]
    level = _number(ctx, a, key, "confidence_level", a.get("confidence_level", 0.95))
    opts = dict(measure=measure, confidence_level=level, quantile=a.get("quantile", "t"),
                lam_optim_mode=a.get("lam_optim_mode", "overall"),
                finite_population=_flag(ctx, a, key, "finite_population", a.get("finite_population", True)))
    differences = _flag(ctx, a, key, "differences", a.get("differences", True))
    res = {m: corrected_system_scores(human, judge, labelled_topics=lab, method=m, differences=differences and m == method,
                                      **opts) for m in methods}
    main, d = res[method], res[method].design
    lam = f" (λ = {d['lam']:.4f}, one for all runs)" if method == "ppi++" and d["lam"] is not None else ""
    rep.text(f"{measure} of {len(main)} runs: the judge's qrels on all {d['n_topics']} topics, human qrels on "
             f"{d['n_labelled']} of them ({how}). Each run's {method} estimate{lam} aims at its mean over all "
             f"{d['n_topics']} topics under human qrels, with a {level:.0%} interval ({d['quantile']} quantile"
             + (", finite-population correction" if d["finite_population"] else "") + "); beside it: "
             + ", ".join(methods[1:]) + " (metaeval.corrected_system_scores).")
    _table(rep, f"{key}_scores", [e for m in methods for e in res[m]], f"Each run's mean {measure}: {', '.join(methods)}",
           columns=["system", "statistic", "estimate", "ci_low", "ci_high", "lam", "judge_mean"], units="topics",
           frame=pd.concat([_with_extras(res[m], _PPI_EXTRAS) for m in methods], ignore_index=True))
    rep.table(f"{key}_ranking", main.ranking.reset_index(), f"Runs ranked by the {method} estimate and by the judge alone")
    _table(rep, f"{key}_rank_correlation", main.rank_correlation,
           f"The {method} ranking against the judge-only ranking, over the {len(main)} runs",
           columns=["method", "estimate"])
    if differences:
        _table(rep, f"{key}_differences", main.differences, f"Every pair of runs: {method} difference",
               columns=["system_a", "system_b", "estimate", "ci_low", "ci_high", "pvalue"], units="topics")
    rep.table(f"{key}_design", pd.DataFrame([{**d, "labelled_topics": " ".join(d["labelled_topics"])}]),
              "The design: estimator, labelled topics, interval")
    target = None if full is None else full.means()
    ax = fg.plot_corrected_intervals(res, target=target, xlabel=mpl_text(f"{measure} ({level:.0%} interval)"))
    rep.figure(f"{key}_intervals", ax.figure, "Each run's interval per estimator"
               + ("; ticks: its mean over all topics under human qrels (known here)" if target is not None else ""))
    sizes = a.get("coverage")
    if sizes is not None:
        if full is None:
            raise _fail(ctx, a, key, "coverage replays the design against the human qrels of every topic, and the "
                                     "human qrels lack some of the judge's topics", fix="drop coverage")
        cov = corrected_coverage(full, judge, n_labelled=sizes, methods=methods, rng=ctx.seed,
                                 n_draws=_number(ctx, a, key, "coverage_draws", a.get("coverage_draws", 100),
                                                 integer=True), **opts)
        rep.table(f"{key}_coverage", cov, "Coverage and width, replaying the design on the fully judged topics "
                                           "(metaeval.corrected_coverage)")
        axes = fg.plot_coverage_width(cov, nominal=level)
        rep.figure(f"{key}_coverage_width", axes[0].figure, "Coverage of the all-topic human mean and mean interval "
                                                            "width against the number of labelled topics")
    return main


def _an_label_budget(a, ctx, rep, key):
    from ..inference.budget import BUDGET_METHODS, label_budget, required_labels
    from ..output import figures as fg

    measure = a.get("measure", "nDCG@10")
    runs = _dataset(ctx, a, key, "runs", a["runs"], ("runs",))
    human_q = _dataset(ctx, a, key, "human", a["human"], ("qrels",))
    judge_q = _dataset(ctx, a, key, "judge", a["judge"], ("qrels",))
    judge, pilot, _, lab, how = _labelled_scores(ctx, a, key, human_q, judge_q, runs, measure,
                                                 a.get("labelled_topics"), a.get("n_labelled"))
    opts = dict(methods=_strings(ctx, a, key, "methods", a.get("methods", list(BUDGET_METHODS))), measure=measure,
                confidence_level=_number(ctx, a, key, "confidence_level", a.get("confidence_level", 0.95)),
                quantile=a.get("quantile", "t"))
    power = _number(ctx, a, key, "power", a.get("power", 0.8))
    width, difference = a.get("width"), a.get("difference")
    width = None if width is None else _number(ctx, a, key, "width", width)
    difference = None if difference is None else _number(ctx, a, key, "difference", difference)
    n = a.get("n")
    if n is not None and (not isinstance(n, list) or not n):
        raise _fail(ctx, a, key, "n must be a list of numbers of labelled topics", text=repr(n))
    n = None if n is None else [_number(ctx, a, key, "every n", v, integer=True) for v in n]
    b = label_budget(pilot, judge, n=n, difference=difference, power=power, **opts)
    rep.text(f"Pilot: human qrels on {len(lab)} topics ({how}), the judge's qrels on all {len(judge.topics)}. "
             f"Projected {measure} interval width" + (f", power at a difference of {difference:g}" if difference is
                                                     not None else "")
             + f" and minimum detectable difference at power {power:g}, per run and estimator, against the number "
               "of human-labelled topics (metaeval.label_budget).")
    shown = ["system", "method", "n", "lam", "width"] + (["power"] if difference is not None else []) + ["mdd"]
    rep.table(f"{key}_budget", b, "Expected interval width (and power) per run, estimator and labelled topics",
              columns=shown)
    req = []
    if width is not None:
        req.append(required_labels(pilot, judge, width=width, **opts))
    if difference is not None:
        req.append(required_labels(pilot, judge, difference=difference, power=power, **opts))
    if req:
        rep.table(f"{key}_required", pd.concat(req, ignore_index=True),
                  "Labelled topics needed per run (system all: for every run) (metaeval.required_labels)",
                  columns=["target", "system", "method", "n", "width", "power", "saving"])
    _, ax = fg.subplots(figsize=(5.4, 3.8))
    fg.plot_budget_curve(b, y="width", target=width, ax=ax)
    rep.figure(f"{key}_budget_curve", ax.figure, "Expected interval width against labelled topics (median over runs, "
                                                 "10%-90% band)")
    if difference is not None:
        _, ax = fg.subplots(figsize=(5.4, 3.8))
        fg.plot_budget_curve(b, y="power", target=power, ax=ax)
        rep.figure(f"{key}_power_curve", ax.figure, f"Power to detect a difference of {difference:g} against "
                                                    "labelled topics (median over runs)")
    return b


def _an_corrected_prevalence(a, ctx, rep, key):
    from ..inference.prevalence import DEFAULT_RG_CI_METHOD, rogan_gladen_counts
    from ..output import figures as fg

    paired = _dataset(ctx, a, key, "data", a["data"], _PAIRED_KINDS)
    items = _dataset(ctx, a, key, "labelled", a["labelled"], ("frame",))
    topic, label, positive = a.get("topic", "query_id"), a.get("label", "judge"), a.get("positive", 1)
    _columns(ctx, a, key, items, f"the labelled data set {a['labelled']!r}", topic=topic, label=label)
    if isinstance(positive, (int, float)) and not isinstance(positive, bool):
        values = pd.to_numeric(items[label], errors="coerce")
        if values.isna().any():
            raise _fail(ctx, a, key, f"{int(values.isna().sum())} values of the label column {label!r} are not numbers",
                        text=str(items.loc[values.isna(), label].iloc[0]), fix="give positive as text")
        is_pos = values == positive
    else:
        is_pos = items[label].astype(str) == str(positive)
    g = is_pos.groupby(items[topic].astype(str), sort=True)
    rs = rogan_gladen_counts(g.sum(), g.size(), x=paired.reference, y=paired.candidate,
                             ci_method=_ci_option(a.get("ci_method", DEFAULT_RG_CI_METHOD)),
                             confidence_level=_number(ctx, a, key, "confidence_level", a.get("confidence_level", 0.95)),
                             judge_error=_flag(ctx, a, key, "judge_error", a.get("judge_error", True)),
                             n_resamples=ctx.n_resamples, rng=ctx.seed)
    pooled = [e for e, k in zip(rs, rs.keys) if not k and e.statistic == "corrected_count"][0]
    rep.text(f"The judge labelled {pooled.extra['total']} items over {len(g.size())} topics and called "
             f"{pooled.extra['positives']} positive ({label} == {positive!r}); on the {len(paired)} validation pairs "
             f"its sensitivity is {pooled.extra.get('sensitivity', np.nan):.4f} and its specificity "
             f"{pooled.extra.get('specificity', np.nan):.4f}. Rogan-Gladen corrected prevalence and count per topic and "
             "pooled (rows without a topic), clipped to their range (metaeval.rogan_gladen_counts).")
    _table(rep, f"{key}_counts", rs, "Corrected prevalence and count of positives per topic",
           columns=["topic", "statistic", "positives", "total", "unclipped", "estimate", "ci_low", "ci_high"],
           frame=_with_extras(rs, _RG_EXTRAS))
    if a.get("original") is not None:
        orig = _dataset(ctx, a, key, "original", a["original"], ("qrels",))
        relevant = _number(ctx, a, key, "relevant", a.get("relevant", 1))
        before = (orig["relevance"] >= relevant).groupby(orig["query_id"].astype(str)).sum()
        counts = rs.filter(statistic="corrected_count").to_frame().dropna(subset=["topic"])
        after = before.add(counts.set_index(counts["topic"].astype(str))["estimate"], fill_value=0)
        ax = fg.plot_relevant_counts(before, after, topic=topic, labels=("original qrels", "original + corrected judge"))
        rep.figure(f"{key}_relevant_counts", ax.figure, "Relevant items per topic: the original qrels, and with the "
                                                        "expansion's corrected count added")
    return rs


def _an_alternative_annotators(a, ctx, rep, key):
    from ..inference.alt_test import alt_test

    df = _dataset(ctx, a, key, "data", a["data"], ("frame",))
    item, rater, label = a.get("item", "item_id"), a.get("rater", "rater"), a.get("label", "label")
    _columns(ctx, a, key, df, f"the data set {a['data']!r}", item=item, rater=rater, label=label)
    judges = _strings(ctx, a, key, "judge", a["judge"])
    raters = list(dict.fromkeys(df[rater].astype(str)))
    humans = _strings(ctx, a, key, "humans", a.get("humans", [r for r in raters if r not in judges]))
    absent = [r for r in judges + humans if r not in raters]
    if absent:
        raise _fail(ctx, a, key, f"no rows with {rater} == {absent[0]!r}", expected=f"one of {', '.join(raters)}")
    df = df.assign(**{rater: df[rater].astype(str)})
    numbers = pd.to_numeric(df[label], errors="coerce")
    if numbers.notna().all():              # labels written as numbers compare as numbers (neg_rmse needs them)
        df[label] = numbers
    epsilons = a.get("epsilon", 0.2)
    epsilons = [_number(ctx, a, key, "epsilon", e) for e in (epsilons if isinstance(epsilons, list) else [epsilons])]
    opts = dict(scoring=a.get("scoring", "accuracy"), q=_number(ctx, a, key, "q", a.get("q", 0.05)),
                min_humans_per_item=_number(ctx, a, key, "min_humans_per_item", a.get("min_humans_per_item", 2),
                                            integer=True),
                min_items_per_human=_number(ctx, a, key, "min_items_per_human", a.get("min_items_per_human", 30),
                                            integer=True),
                item=item, annotator=rater, label=label)
    human_rows = df[df[rater].isin(humans)]
    verdicts, tests = [], []
    for j in judges:
        labels = df.loc[df[rater] == j].set_index(item)[label]
        for eps in epsilons:
            r = alt_test(human_rows, labels, epsilon=eps, **opts)
            verdicts.append({"judge": j, **r.row()})
            tests.append(r.pvalues.assign(judge=j, epsilon=eps)[["judge", "epsilon", *r.pvalues.columns]])
    rep.text(f"{len(humans)} human annotators ({', '.join(humans)}); may {' or '.join(judges)} replace them? "
             "The alternative annotator test (Calderon, Reichart & Dror 2025; metaeval.alt_test): the judge passes "
             "when it wins against at least half of the annotators (Benjamini-Yekutieli at q = "
             f"{opts['q']:g}), at each epsilon.")
    rep.table(f"{key}_verdict", pd.DataFrame(verdicts), "Winning rate, advantage probability and verdict (passed) per "
                                                        "judge and epsilon, over n_annotators annotators (the items "
                                                        "per annotator: the next table)",
              columns=["judge", "epsilon", "winning_rate", "advantage_probability", "passed", "n_annotators"])
    rep.table(f"{key}_annotators", pd.concat(tests, ignore_index=True), "One test per judge, epsilon and annotator",
              columns=["judge", "epsilon", "annotator", "n_items", "judge_advantage", "mean_difference", "pvalue",
                       "rejected"])
    return verdicts


def _an_leaderboard(a, ctx, rep, key):
    from ..inference.leaderboard import DEFAULT_N_OUTER, leaderboard, leaderboard_metrics
    from ..output import figures as fg
    from ..systems.evaluation import system_scores

    if "runs" in a:                         # the runs as models, the topics as items, scored under qrels
        if "data" in a:
            raise _fail(ctx, a, key, "give data (per-item scores) or runs (with judge and human qrels), not both")
        measure = a.get("measure", "nDCG@10")
        runs = _dataset(ctx, a, key, "runs", a["runs"], ("runs",))
        frames = [system_scores(_dataset(ctx, a, key, "judge", a["judge"], ("qrels",)), runs, measure).frame]
        if a.get("human") is not None:
            frames.append(system_scores(_dataset(ctx, a, key, "human", a["human"], ("qrels",)), runs, measure).frame)
        frames = [f.drop(columns="measure").rename(columns={"value": "score"}) for f in frames]
        item, model, names = "query_id", "system", ("judge qrels", "human qrels")
        what = f"the runs' {measure} per topic, topics resampled"
        xlabel = mpl_text(f"mean {measure}")
    else:
        paired = _dataset(ctx, a, key, "data", a["data"], _PAIRED_KINDS)
        model = a["model"]
        item = a.get("item", paired.on[0] if len(paired.on) == 1 else None)
        if item is None:
            raise _fail(ctx, a, key, f"the data set is keyed by {', '.join(paired.on)}: say which column is the item",
                        fix="item = the column of prompts (the unit resampled)")
        _columns(ctx, a, key, paired.data, f"the data set {a['data']!r}", item=item, model=model)
        sides = ["candidate"] + (["reference"] if _flag(ctx, a, key, "reference", a.get("reference", True)) else [])
        extra = [c for c in (a.get("cluster"),) if c is not None and c not in (item, model)]
        frames = [paired.data[[item, model, *extra, s]].rename(columns={s: "score"}) for s in sides]
        names = (paired.names[1], paired.names[0])
        what = f"the {model}s' scores per {item}, each {item} resampled with all its {model}s"
        xlabel = "mean score"
    cols = dict(item=item, model=model, score="score", cluster=a.get("cluster"))
    if cols["cluster"] is not None and cols["cluster"] in (item, model):
        raise _fail(ctx, a, key, f"cluster = {cols['cluster']!r} is the {'item' if cols['cluster'] == item else 'model'} "
                                 "column", fix="leave cluster out to resample the items, or name a column of groups "
                                               "of items")
    pair_level = _number(ctx, a, key, "pair_confidence_level", a.get("pair_confidence_level", 0.95))
    n_inner = a.get("n_inner")
    rs = leaderboard_metrics(frames[0], frames[1] if len(frames) > 1 else None, pair_confidence_level=pair_level,
                             n_resamples=ctx.n_resamples, ci_method=_ci_option(a.get("ci_method", "percentile")),
                             confidence_level=_number(ctx, a, key, "confidence_level", a.get("confidence_level", 0.95)),
                             n_outer=_number(ctx, a, key, "n_outer", a.get("n_outer", DEFAULT_N_OUTER), integer=True),
                             n_inner=None if n_inner is None else _number(ctx, a, key, "n_inner", n_inner, integer=True),
                             overlap=a.get("overlap", "strict"), rng=ctx.seed, **cols)
    rep.text(f"The leaderboard by {names[0]} ({what})" + (f" against the one by {names[1]}" if len(frames) > 1 else "")
             + ": separability, agreement with confidence and the pair-rank Brier score (Li et al. 2024; "
               "metaeval.leaderboard_metrics), intervals from an outer bootstrap.")
    _table(rep, f"{key}_metrics", rs, "Leaderboard meta-metrics", columns=_SHOW[:5] + ["n"],
           units="topics" if "runs" in a else f"{item} values")
    boards = pd.concat([leaderboard(f, n_resamples=ctx.n_resamples, confidence_level=pair_level, rng=ctx.seed,
                                    **cols).to_frame().assign(board=name)
                        for f, name in zip(frames, names)], ignore_index=True)
    boards = boards[["board", *[c for c in boards.columns if c != "board"]]]
    rep.table(f"{key}_leaderboard", boards, f"Each {model}'s mean score with its {pair_level:.0%} bootstrap interval "
                                            "(metaeval.leaderboard, the study's seed)",
              columns=["board", "model", "score", "ci_low", "ci_high"])
    order = list(boards.loc[boards["board"] == names[0], "model"].astype(str))
    ax = fg.plot_win_rates(boards.rename(columns={"score": "estimate"}), tie_rule="board", order=order,
                           rules=list(reversed(names[:len(frames)])), reference=None, xlabel=xlabel)
    rep.figure(f"{key}_leaderboard", ax.figure, "Each model's mean score and interval, on each leaderboard")
    return rs


def _long_panel(ctx, a, key):
    """The reference's and each judge's judgment set from a long ``frame`` (one row per item and rater)."""
    df = _dataset(ctx, a, key, "data", a["data"], ("frame",))
    on = _strings(ctx, a, key, "on", a.get("on", ["query_id", "doc_id"]))
    rater, label = a.get("rater", "rater"), a.get("label", "label")
    _columns(ctx, a, key, df, f"the data set {a['data']!r}", rater=rater, label=label)
    for c in on:
        _columns(ctx, a, key, df, f"the data set {a['data']!r}", on=c)
    cluster = a.get("cluster")
    if cluster is not None and cluster not in on:
        raise _fail(ctx, a, key, f"cluster = {cluster!r} is not a key column", expected=f"one of {', '.join(on)}",
                    fix="name the topic column in on and in cluster")
    df = df.assign(**{rater: df[rater].astype(str)})
    numbers = pd.to_numeric(df[label], errors="coerce")
    if numbers.notna().all():              # labels written as numbers compare as numbers
        df[label] = numbers
    raters = list(dict.fromkeys(df[rater]))
    ref = a.get("reference", "human")
    judges = _strings(ctx, a, key, "judges", a.get("judges", [r for r in raters if r != ref]))
    absent = [r for r in [ref, *judges] if r not in raters]
    if absent:
        raise _fail(ctx, a, key, f"no rows with {rater} == {absent[0]!r}", expected=f"one of {', '.join(raters)}")
    sets = {r: df.loc[df[rater] == r, [*on, label]].reset_index(drop=True) for r in [ref, *judges]}
    return sets[ref], {j: sets[j] for j in judges}, on, label, ref


def _an_panel(a, ctx, rep, key):
    from ..output import figures as fg
    from ..panels.panel import judge_panel

    ref, judges, on, label, ref_name = _long_panel(ctx, a, key)
    scale = study_scale(a["scale"]) if "scale" in a else None
    level = _number(ctx, a, key, "confidence_level", a.get("confidence_level", 0.95))
    binarize = a.get("binarize")
    res = judge_panel(ref, judges, statistic=a.get("statistic", "cohen_kappa"), cluster=a.get("cluster"),
                      binarize=None if binarize is None else _number(ctx, a, key, "binarize", binarize),
                      on=tuple(on), label=label, scale=scale, errors=a.get("errors", "indicator"),
                      confidence_level=level, n_resamples=ctx.n_resamples, rng=ctx.seed)
    d = res.design
    rep.text(f"{len(judges)} judges against {ref_name} on {d['n_items']} items"
             + (f" in {d['n_clusters']} {d['cluster']} clusters" if d["cluster"] else "")
             + f": {d['statistic']} of every judge from one shared bootstrap draw (metaeval.judge_panel). "
             f"Best: {res.best}; tied with it (the {level:.0%} confidence set for the best judge): "
             f"{', '.join(res.tied)}. Each judge's difference to the best of the others with simultaneous "
             "intervals read off max-T intervals for all pairwise differences (Hsu's multiple comparisons "
             "with the best) and their adjusted p-values; simultaneous and marginal rank sets from the same "
             "intervals (Mogstad, Romano, Shaikh & Wilhelm 2024).")
    frame = res.to_frame()
    # the marginal rank set shown as one "rank_marginal [CI]" cell beside the simultaneous one
    frame = frame.assign(rank_marginal=frame["rank"], rank_marginal_low=frame["rank_low_marginal"],
                         rank_marginal_high=frame["rank_high_marginal"])
    rep.table(f"{key}_panel", frame, f"Each judge's {d['statistic']}, rank sets (simultaneous, marginal), difference to the best of the others",
              columns=["judge", "estimate", "ci_low", "ci_high", "rank", "rank_low", "rank_high", "rank_marginal",
                       "rank_marginal_low", "rank_marginal_high", "difference", "difference_low", "difference_high",
                       "difference_pvalue", "tied_with_best"])
    rep.table(f"{key}_error_correlation", res.error_correlation.reset_index(),
              f"Correlation of the judges' errors against {ref_name} ({d['errors']}), on the items both judged")
    rep.table(f"{key}_agreement", res.agreement.reset_index(), f"Judge x judge agreement ({d['matrix_statistic']})")
    _, ax = fg.subplots(figsize=(6.4, 1.2 + 0.32 * len(judges)))
    fg.plot_panel_forest(res, ax=ax)
    rep.figure(f"{key}_forest", ax.figure, "Each judge's estimate and interval, sorted; the set tied with the best "
                                           "marked")
    size = 2.2 + 0.45 * len(judges)
    _, ax = fg.subplots(figsize=(size + 1.2, size))
    fg.plot_panel_heatmap(res, which="error_correlation", ax=ax)
    rep.figure(f"{key}_error_correlation", ax.figure, f"Pearson correlation of the judges' errors against {ref_name} "
                                                      f"({d['errors']}), in a clustered order; blue below 0, red above")
    return res


def _an_jury(a, ctx, rep, key):
    from ..panels import aggregators
    from ..panels.jury import jury, select_jury
    from ..panels.panel import jury_vs_best

    ref, judges, on, label, ref_name = _long_panel(ctx, a, key)
    if len(judges) < 2:
        raise _fail(ctx, a, key, "a jury needs at least two judges", text=repr(list(judges)))
    methods = _strings(ctx, a, key, "methods", a.get("methods", ["majority", "dawid_skene"]))
    for m in methods:
        aggregators.get(m)                   # an unknown method: InputError naming the known ones
    statistic = a.get("statistic", "cohen_kappa")
    cluster = a.get("cluster")
    level = _number(ctx, a, key, "confidence_level", a.get("confidence_level", 0.95))
    votes = pd.concat({j: f.set_index(on)[label] for j, f in judges.items()}, axis=1)
    truth = ref.set_index(on)[label].reindex(votes.index)
    groups = None if cluster is None else np.asarray(votes.index.get_level_values(cluster))
    ties = a.get("ties")
    rows = []
    with warnings.catch_warnings():
        for i, m in enumerate(methods):
            if i == 1:       # the items every judge labelled are the same for every method: say so once
                warnings.filterwarnings("ignore", message="items='common'", category=MetaevalWarning)
            kw = {"ties": ties} if ties is not None and m in ("majority", "weighted", "median") else {}
            j = jury(votes, method=m, reference=truth, cluster=groups, rng=ctx.seed, **kw)
            cmp = jury_vs_best(ref, judges, j, statistic=statistic, cluster=cluster, on=tuple(on), label=label,
                               n_resamples=ctx.n_resamples, confidence_level=level, rng=ctx.seed)
            f = cmp.to_frame()
            f.insert(0, "method", m)
            f["best_member"] = cmp.best_member
            f["cross_fitted"] = j.folds is not None
            rows.append(f)
    rep.text(f"Juries of {', '.join(judges)} (metaeval.jury: {', '.join(methods)}) against {ref_name}: the jury's "
             f"{statistic} minus its best member's, the best member chosen again in every bootstrap draw "
             "(metaeval.jury_vs_best; one-sided: does the jury beat its best member?). A jury that learns from "
             f"{ref_name}'s labels is cross-fitted" + (f" over {cluster} groups" if cluster else "")
             + ": no item's label comes from a fit that saw its reference label.")
    rep.table(f"{key}_jury_vs_best", pd.concat(rows, ignore_index=True), "Each jury, its best member, and the difference",
              columns=["method", "set", "statistic", "estimate", "ci_low", "ci_high", "pvalue", "best_member",
                       "cross_fitted"])
    mj = a.get("max_judges")
    if mj is not None:
        sel = select_jury(votes, truth, method=methods[0], statistic=statistic, cluster=groups,
                          max_judges=_number(ctx, a, key, "max_judges", mj, integer=True), rng=ctx.seed,
                          **({"ties": ties} if ties is not None and methods[0] in ("majority", "weighted") else {}))
        rep.table(f"{key}_selection", sel.curve, f"The best {methods[0]} jury of each size, measured on items not used "
                                                 "to choose it (metaeval.select_jury, nested cross-fitting)",
                  columns=["n_judges", "judges", "statistic", "estimate", "apparent", "optimism", "stable", "search"])
    return rows


def _labels_column(frame, col):
    """A text column of a ``frame`` data set as labels: numbers when every non-empty value is one."""
    v = frame[col].replace("", np.nan)
    num = pd.to_numeric(v, errors="coerce")
    return num if num.notna().sum() == v.notna().sum() else v


def _an_monitor(a, ctx, rep, key):
    from ..monitoring import agreement_sequence, monitor
    from ..output import figures as fg

    stream = _dataset(ctx, a, key, "data", a["data"], ("frame",))
    if "baseline" not in a:
        raise _fail(ctx, a, key, "a monitor needs a baseline", fix="set baseline = the validation pairs' data set")
    base = _dataset(ctx, a, key, "baseline", a["baseline"], ("frame",))
    ref, cand, order = a.get("reference", "reference"), a.get("candidate", "candidate"), a.get("order")
    _columns(ctx, a, key, stream, f"the data set {a['data']!r}", reference=ref, candidate=cand)
    _columns(ctx, a, key, base, f"the data set {a['baseline']!r}", reference=ref, candidate=cand)
    if order is not None:
        _columns(ctx, a, key, stream, f"the data set {a['data']!r}", order=order)
        from ..monitoring.sequences import _arrival_order

        stream = stream.iloc[_arrival_order(stream[order], order, f"the data set {a['data']!r}")]
    s = pd.DataFrame({"reference": _labels_column(stream, ref), "candidate": _labels_column(stream, cand)})
    b = pd.DataFrame({"reference": _labels_column(base, ref), "candidate": _labels_column(base, cand)})
    prod = None
    if "baseline_production" in a:
        pf = _dataset(ctx, a, key, "baseline_production", a["baseline_production"], ("frame",))
        _columns(ctx, a, key, pf, f"the data set {a['baseline_production']!r}", candidate=cand)
        prod = _labels_column(pf, cand).dropna().to_numpy()
    statistic = a.get("statistic", "accuracy")
    delta = _number(ctx, a, key, "delta", a.get("delta", 0.0))
    alpha = _number(ctx, a, key, "alpha", a.get("alpha", 0.05))
    res = monitor(b, s, statistic=statistic, delta=delta, alpha=alpha, positive=a.get("positive"),
                  baseline_production=prod)
    anchors = s.dropna(subset=["reference"]).reset_index(drop=True)
    every = _number(ctx, a, key, "every", a.get("every", max(1, len(anchors) // 20)), integer=True)
    seq = agreement_sequence(anchors, statistic=statistic, every=every, positive=a.get("positive"))
    fine = agreement_sequence(anchors, statistic=statistic, every=max(1, len(anchors) // 400), positive=a.get("positive"))
    rep.text(f"{len(s):,} streamed items, {len(anchors):,} of them anchors with a human label; baseline "
             f"{len(b):,} pairs. {res} (metaeval.monitor: an e-process, at most a {alpha:.0%} chance of any false "
             "alarm over the whole stream; the sequence below is valid at every look at once).")
    rep.table(f"{key}_monitor", pd.DataFrame([{
        "statistic": statistic, "threshold": res.threshold, "alarm": res.alarm, "alarm_at": res.alarm_at,
        "alarm_anchors": res.alarm_anchors, "p_value": res.p_value, "production_alarm_at": res.production_alarm_at,
        "production_p_value": res.production_p_value, "attribution": res.attribution}]),
        "The monitor's verdict (anytime-valid p-values; positions are 1-based in arrival order)")
    rep.table(f"{key}_sequence", seq[["n", "n_used", "estimate", "ci_low", "ci_high"]],
              f"The {statistic} of the judge on the anchors with its confidence sequence, every {every} pairs")
    _, ax = fg.subplots(figsize=(5.2, 3.0))
    fg.plot_monitor(fine, res, ax=ax, xlabel="anchor pairs streamed")
    rep.figure(f"{key}_monitor", ax.figure, f"The judge's {statistic} on the anchors with its confidence sequence, "
                                            "the alarm threshold and the alarm")
    return res


def _an_grading_noise(a, ctx, rep, key):
    from ..monitoring import grading_noise

    df = _dataset(ctx, a, key, "data", a["data"], ("frame",))
    item, run, score = a.get("item", "item"), a.get("run", "run"), a.get("score", "score")
    _columns(ctx, a, key, df, f"the data set {a['data']!r}", item=item, run=run, score=score)
    thr = a.get("threshold")
    g = grading_noise(df, item=item, run=run, score=score,
                      threshold=None if thr is None else _number(ctx, a, key, "threshold", thr),
                      target=_number(ctx, a, key, "target", a.get("target", 0.8)),
                      human_reliability=_number(ctx, a, key, "human_reliability", a.get("human_reliability", 1.0)),
                      confidence_level=_number(ctx, a, key, "confidence_level", a.get("confidence_level", 0.95)))
    rep.text(f"{g} (metaeval.grading_noise: variance components of the {g.components.attrs['design']} design).")
    methods = "; ".join(f"{c}: {m}" for c, m in zip(g.components["component"], g.components["ci_method"]))
    rep.table(f"{key}_components", g.components[["component", "variance", "share", "ci_low", "ci_high"]],
              f"Variance components of the repeated grades (ANOVA = REML in a balanced design); intervals: {methods}")
    rep.table(f"{key}_summary", pd.DataFrame([{
        "reliability": g.reliability, "reliability_mean": g.reliability_mean, "n_runs": g.n_runs,
        "repeats_needed": g.repeats_needed, "target": g.target, "ceiling": g.ceiling, "flip_rate": g.flip_rate,
        "pair_flip_rate": g.pair_flip_rate, "borderline_flip_rate": g.borderline_flip_rate}]),
        "Reliability of one grading and of their mean, repeats for the target, the ceiling on agreement with humans, flips")
    return g


def _an_levels(a, ctx, rep, key):
    from ..levels.correlation import LEVELS, level_correlation
    from ..output import figures as fg

    df = _dataset(ctx, a, key, "data", a["data"], ("frame",))
    system, item, human = a.get("system", "system"), a.get("item", "item"), a.get("human", "human")
    _columns(ctx, a, key, df, f"the data set {a['data']!r}", system=system, item=item, human=human)
    judges = _strings(ctx, a, key, "judges", a.get("judges", [c for c in df.columns if c not in (system, item, human)]))
    if not judges:
        raise _fail(ctx, a, key, "no judge column", fix="name the judge score columns in judges")
    for j in judges:
        _columns(ctx, a, key, df, f"the data set {a['data']!r}", judges=j)
    levels = _strings(ctx, a, key, "levels", a.get("levels", list(LEVELS)))
    methods = _strings(ctx, a, key, "methods", a.get("methods", ["pearson", "spearman", "kendall"]))
    scores = df[[system, item, human, *judges]].copy()
    for c in (human, *judges):
        raw = scores[c].replace("", np.nan)
        scores[c] = pd.to_numeric(raw, errors="coerce")
        bad = scores[c].isna() & raw.notna()
        if bad.any():
            raise _fail(ctx, a, key, f"column {c!r} holds a value that is not a number", text=str(raw[bad].iloc[0]),
                        expected="numbers (an empty cell is a missing score)", fix="clean the score column")
    hw = scores.pivot(index=system, columns=item, values=human)
    rows, results = [], {}
    for j in judges:
        jw = scores.pivot(index=system, columns=item, values=j)
        rs = level_correlation(hw, jw, level=levels, method=methods, resample=a.get("resample"),
                               undefined=a.get("undefined"), average=a.get("average"), absolute=a.get("absolute"),
                               convention=a.get("convention"), n_resamples=ctx.n_resamples, rng=ctx.seed)
        results[j] = rs
        f = rs.to_frame()
        f.insert(0, "judge", j)
        f["groups"] = [e.extra["groups"] for e in rs]
        f["groups_dropped"] = [e.extra["groups_dropped"] for e in rs]
        rows.append(f)
    first = results[judges[0]]
    fates = first[0].extra["fates"]
    rep.text(f"{len(judges)} judge(s) against {human} on {hw.shape[0]} systems × {hw.shape[1]} items "
             f"({fates['used']} scored outputs; {fates['human_missing']} missing human cells dropped from both). "
             "Levels: none = every output; item = per item across systems, averaged (\"summary level\"); "
             "system_group = per system across items, averaged; system = the systems' mean scores. "
             f"Intervals: bootstrap over {first[0].unit} (metaeval.level_correlation).")
    _table(rep, f"{key}_levels", first,
           "Correlation of each judge with the humans, per level and method",
           columns=["judge", "level", "method", "estimate", "ci_low", "ci_high", "groups", "groups_dropped", "n"],
           frame=pd.concat(rows, ignore_index=True))
    _, ax = fg.subplots(figsize=(1.6 + 1.3 * len(levels), 3.6))
    fg.plot_level_correlations(first, ax=ax)
    rep.figure(f"{key}_correlations", ax.figure, f"Correlation of {judges[0]} with the humans per level and method")
    _, ax = fg.subplots(figsize=(4.4, 4.2))
    fg.plot_system_scatter(hw, scores.pivot(index=system, columns=item, values=judges[0]), ax=ax,
                           xlabel=f"mean {human}", ylabel=f"mean {judges[0]}")
    rep.figure(f"{key}_system_scatter", ax.figure, f"System level: each system's mean {human} and {judges[0]} score")
    return first


_HANDLERS = {"inspect": _an_inspect, "agreement": _an_agreement, "prevalence": _an_prevalence,
             "ranking": _an_ranking, "pairwise": _an_pairwise, "correlation": _an_correlation,
             "length_bias": _an_length_bias, "self_enhancement": _an_self_enhancement,
             "corrected_scores": _an_corrected_scores, "corrected_prevalence": _an_corrected_prevalence,
             "alt_test": _an_alternative_annotators, "label_budget": _an_label_budget, "leaderboard": _an_leaderboard,
             "panel": _an_panel, "jury": _an_jury, "monitor": _an_monitor, "grading_noise": _an_grading_noise,
             "levels": _an_levels}


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
        The output folder: new, or holding only a previous report, which is replaced as a whole when
        the new one is complete (:func:`metaeval.output.folder.output_folder`: built in a temporary
        folder beside it; a second run on the same folder at the same time is refused).
    base : str or path-like, optional
        The folder the study's paths are relative to (default: the study file's folder).

    Returns
    -------
    Report
        The report, already written to ``out``; ``report.notes`` holds the notes.

    Raises
    ------
    InputError
        When ``out`` is an existing file or a folder holding other files, or another run is writing
        it (checked before any analysis runs). For an unknown analysis type or data kind, a missing
        data set, or bad input data. Inside an
        analysis (a key it needs and lacks, a data set of the wrong kind, a value the library
        refuses, a bad data file) the message starts with the study file and the analysis's
        ``name`` and ``type``; the original error is its ``__cause__``.

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
    from .folder import check_out, output_folder, run_inputs

    check_out(out)                               # an --out that cannot be written: say so before any analysis
    if not isinstance(study, dict):
        study = load_study(study)
    validate_study(study, unknown="warn")       # (a study file: load_study has refused unknown keys)
    base = Path(base or study.get("_base", "."))
    # the files it reads (the study file, its data): a report never replaces a folder holding them
    inputs = run_inputs({k: v for k, v in study.items() if not k.startswith("_")}, base) + (
        [Path(study["_source"])] if study.get("_source") else [])
    check_out(out, inputs=inputs)
    ctx = _Context(study, base)
    rep = ctx.rep = Report(study.get("title", "metaeval report"), intro=study.get("description", ""),
                           meta={"seed": ctx.seed, "n_resamples": ctx.n_resamples,
                                 "study": {k: v for k, v in study.items() if not k.startswith("_")}})
    analyses = study.get("analysis", [])
    if not analyses:
        raise InputError("the study has no [[analysis]] entries", source=study.get("_source", "<study>"))
    with output_folder(out, inputs=inputs) as tmp:
        rep._spool = tmp                         # each figure is written and released as its analysis finishes
        for i, a in enumerate(progress(analyses, desc="analyses"), start=1):
            kind = a.get("type")
            if kind not in _HANDLERS:
                raise InputError(f"unknown analysis type {kind!r}", source=study.get("_source", "<study>"),
                                 expected=", ".join(_HANDLERS))
            key = a.get("name", f"{i:02d}_{kind}")
            rep.section(a.get("title", f"{kind}: {a.get('data', '')}".rstrip(": ")), a.get("text", ""))
            with _collect(ctx, key), _named_errors(ctx, key, kind), interface("study", analysis=key, type=kind):
                _HANDLERS[kind](_Entry(a, study.get("_source", "<study>"), key), ctx, rep, key)
            rep._release_figures()
        rep._write_files(tmp)
    rep._moved(tmp, Path(out))
    return rep
