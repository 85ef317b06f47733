"""The bundled study: inspection, alignment and agreement over the four sample data sets.

``metaeval demo --out DIR`` calls :func:`run_demo`. The output folder holds ``report.md``, every
table as CSV, and ``results.json`` (all numbers, package versions and seeds). Same seed, same
machine → byte-identical files.
"""

from __future__ import annotations

import json
import platform
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from . import __version__
from ._errors import MetaevalWarning

__all__ = ["run_demo"]


def _versions() -> dict:
    import importlib.metadata as md

    out = {"python": platform.python_version(), "metaeval": __version__}
    for pkg in ("numpy", "scipy", "pandas", "statsmodels", "pyarrow", "ir-measures"):
        try:
            out[pkg] = md.version(pkg)
        except md.PackageNotFoundError:  # pragma: no cover
            out[pkg] = None
    return out


def _md_table(df: pd.DataFrame, floatfmt: str = "{:.4f}") -> str:
    cols = [str(c) for c in df.columns]
    lines = ["| " + " | ".join(cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    for row in df.itertuples(index=False):
        cells = []
        for v in row:
            if isinstance(v, (float, np.floating)):
                cells.append("" if np.isnan(v) else floatfmt.format(v))
            else:
                cells.append(str(v))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


_SHOW = ["statistic", "estimate", "ci_low", "ci_high", "ci_method", "unit", "n_units"]


class _Report:
    def __init__(self, out: Path):
        self.out = out
        self.md: list[str] = []
        self.results: dict = {}
        (out / "tables").mkdir(parents=True, exist_ok=True)

    def section(self, title: str, text: str = ""):
        self.md += [f"## {title}", ""] + ([text, ""] if text else [])

    def table(self, name: str, df: pd.DataFrame, caption: str = "", cols=None):
        from .io import write_table

        write_table(df, self.out / "tables" / f"{name}.csv")
        show = df[cols] if cols else df
        self.md += ([f"*{caption}* (`tables/{name}.csv`)", ""] if caption else []) + [_md_table(show), ""]
        self.results[name] = json.loads(df.to_json(orient="records", double_precision=10))

    def text(self, s: str):
        self.md += [s, ""]


def run_demo(out, *, seed: int = 20261130, n_resamples: int = 2000) -> str:
    """Run the bundled study over ``data_samples`` and write the report folder ``out``.

    Returns a short text summary (the CLI prints it).
    """
    from . import agreement as ag
    from . import datasets
    from .alignment import align
    from .inspect import inspect_file
    from .scale import Scale

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    rep = _Report(out)
    summary = []
    rep.md += ["# metaeval demo report", "",
               "The bundled study over the four synthetic sample sets (`data_samples/`). Intervals are "
               f"95% bootstrap intervals (BCa unless stated) with B = {n_resamples}; the resampling unit "
               "is stated on every row (clusters = topics/prompts).", ""]
    kw = dict(n_resamples=n_resamples, rng=seed)

    # ---- inspection of every file -------------------------------------------------------------
    rows = []
    for name in datasets.names():
        folder = datasets.path(name)
        for p in sorted(folder.rglob("*")):
            if p.is_file() and not p.name.endswith((".md", ".py")) and p.parent.name != "runs":
                ins = inspect_file(p)
                rows.append((name, str(p.relative_to(folder)), ins.kind, ins.rows,
                             "; ".join(ins.problems) or "none"))
        runs = folder / "runs"
        if runs.is_dir():
            n_files = len([p for p in runs.iterdir() if p.is_file()])
            problems = [f"{p.name}: {'; '.join(i.problems)}" for p in sorted(runs.iterdir())
                        if (i := inspect_file(p)).problems]
            rows.append((name, f"runs/ ({n_files} files)", "run", int(sum(
                inspect_file(p).rows for p in runs.iterdir())), "; ".join(problems) or "none"))
    insp = pd.DataFrame(rows, columns=["dataset", "file", "kind", "rows", "problems"])
    rep.section("1. Inspection", "Every bundled file, read with the reader for its kind.")
    rep.table("inspection", insp)
    summary.append(f"inspected {len(insp)} files/folders")

    # ---- TREC DL-like: graded relevance -------------------------------------------------------
    d = datasets.load("trec_dl_like")
    scale = Scale((0, 1, 2, 3), names=("0", "1", "2", "3"))
    paired = align(d.qrels_human, d.qrels_judge, scale=scale, names=("human", "judge"))
    rep.section("2. trec_dl_like: human vs judge graded relevance (0-3)")
    rep.text("```\n" + str(paired.report).replace(str(datasets.path("trec_dl_like")) + "/", "") + "\n```")
    rep.table("trec_alignment", paired.report.to_frame(), "Alignment: every input row accounted for")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MetaevalWarning)
        agr = ag.agreement_report(paired, cluster="query_id", **kw)
        thr = ag.threshold_agreement(paired, cluster="query_id", **kw)
        pc = ag.per_class(paired, cluster="query_id", **kw)
        agr_iid = ag.cohen_kappa(paired, **kw)
    rep.table("trec_agreement", agr.to_frame(), "Agreement, topic-cluster bootstrap", _SHOW)
    rep.text(f"For comparison, the iid item bootstrap of Cohen's kappa gives "
             f"[{agr_iid.ci.low:.4f}, {agr_iid.ci.high:.4f}] (width {agr_iid.ci.width:.4f}) against the "
             f"topic-cluster interval [{agr['cohen_kappa'].ci.low:.4f}, {agr['cohen_kappa'].ci.high:.4f}] "
             f"(width {agr['cohen_kappa'].ci.width:.4f}): judgments cluster by topic.")
    rep.table("trec_thresholds", thr.to_frame(), "Agreement at every binarization threshold",
              ["split"] + _SHOW[:4])
    rep.table("trec_per_class", pc.to_frame(), "Per-class precision, recall, F1",
              ["class", "support"] + _SHOW[:4])
    cm = ag.confusion_matrix(paired).reset_index()
    cm.columns = [str(c) for c in cm.columns]
    rep.table("trec_confusion", cm, "Confusion matrix (rows: human, columns: judge)")
    summary.append(f"trec_dl_like: {len(paired)} pairs, kappa {agr['cohen_kappa'].estimate:.3f} "
                   f"[{agr['cohen_kappa'].ci.low:.3f}, {agr['cohen_kappa'].ci.high:.3f}] (topic clusters)")

    # ---- ImageCLEF-like: balanced validation subset, low-prevalence expansion -----------------
    d = datasets.load("imageclef_like")
    v = d.validation
    bscale = Scale((0, 1), kind="nominal", names=("not relevant", "relevant"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MetaevalWarning)
        agr_v = ag.agreement_report(v["human"], v["judge"], scale=bscale, cluster=v["query_id"], **kw)
        prev = float((d.expansion["judge"] == 1).mean())
        kap = ag.kappa_at_prevalence(v["human"], v["judge"], scale=bscale, prevalence=prev,
                                     ci_method="percentile", **kw)
    rep.section("3. imageclef_like: balanced validation subset and the expansion's prevalence")
    rep.table("imageclef_agreement", agr_v.to_frame(), "Validation subset (202 judgments), topic clusters",
              _SHOW)
    rep.table("imageclef_at_prevalence", kap.to_frame(),
              f"Kappa, PPV and agreement expected at the expansion's prevalence ({prev:.4f})",
              ["statistic", "prevalence", "estimate", "ci_low", "ci_high"])
    rep.table("imageclef_prevalence_curve", kap.curve, "Kappa and PPV versus prevalence")
    summary.append(f"imageclef_like: kappa {agr_v['cohen_kappa'].estimate:.3f} on the balanced subset, "
                   f"{kap['kappa'].estimate:.3f} expected at prevalence {prev:.4f}")

    # ---- rubric-like: 1-5 scores, human vs the judge's first sample ---------------------------
    d = datasets.load("rubric_like")
    s = d.scores
    hum = s[s["rater"] == "human"][["item_id", "prompt_id", "score"]]
    jud = s[(s["rater"] == "judge") & (s["sample"] == 1)][["item_id", "score"]]
    rscale = Scale((1, 2, 3, 4, 5))
    paired_r = align(hum, jud, on="item_id", label="score", scale=rscale, names=("human", "judge"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MetaevalWarning)
        agr_r = ag.agreement_report(paired_r, cluster="prompt_id", **kw)
    rep.section("4. rubric_like: 1-5 rubric scores, human vs judge (first sample)")
    rep.table("rubric_alignment", paired_r.report.to_frame(), "Alignment")
    rep.table("rubric_agreement", agr_r.to_frame(), "Agreement, prompt-cluster bootstrap", _SHOW)
    summary.append(f"rubric_like: quadratic kappa {agr_r['cohen_kappa_quadratic'].estimate:.3f}")

    # ---- battles-like: outcomes by rater ------------------------------------------------------
    d = datasets.load("battles_like")
    b = d.battles
    tab = pd.crosstab(b["judge"], b["outcome"]).reset_index()
    tab.columns = [str(c) for c in tab.columns]
    rep.section("5. battles_like: pairwise outcomes",
                "Outcomes normalized to A, B, tie, tie_a, tie_b and invalid (parse failures), per rater.")
    rep.table("battles_outcomes", tab)
    summary.append(f"battles_like: {len(b)} judgments, {int((b['outcome'] == 'invalid').sum())} invalid")

    rep.results["_meta"] = {"seed": seed, "n_resamples": n_resamples, "versions": _versions()}
    (out / "report.md").write_text("\n".join(rep.md), encoding="utf-8")
    (out / "results.json").write_text(json.dumps(rep.results, indent=1, sort_keys=True, allow_nan=True) + "\n",
                                      encoding="utf-8")
    return "metaeval demo\n" + "\n".join(f"  - {s}" for s in summary) + f"\nreport written to {out}/report.md"
