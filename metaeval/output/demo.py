"""The main job: the bundled study over the four sample sets (``metaeval demo --out DIR``).

Runs ``metaeval/data_samples/demo_study.toml`` with :func:`metaeval.run_study` and prints a
short summary. The output folder holds ``report.md``, a self-contained ``report.html``, every table
as CSV and LaTeX, every figure (PNG, SVG, PDF) and ``results.json`` (numbers, versions, seed). Same
seed → byte-identical files.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["run_demo"]


def _study_path() -> Path:
    from ..data import datasets
    return datasets.path("trec_dl_like").parent / "demo_study.toml"


def _row(rep, table, **match):
    df = rep.tables.get(table)
    if df is None:
        return None
    for k, v in match.items():
        df = df[df[k] == v]
    return None if df.empty else df.iloc[0]


def run_demo(out: str | os.PathLike, *, seed: int = 20261130, n_resamples: int = 2000) -> str:
    """Run the bundled study over ``data_samples`` and write the report folder ``out``.

    Parameters
    ----------
    out : str or path-like
        The output folder.
    seed : int
        Seed of every bootstrap (the same seed gives byte-identical files).
    n_resamples : int
        Bootstrap resamples of every interval.

    Returns
    -------
    str
        A short summary (the CLI prints it): the headline numbers, how many tables, figures and
        notes, and where the report is.

    Examples
    --------
    >>> import tempfile
    >>> print(run_demo(tempfile.mkdtemp(), n_resamples=100))   # doctest: +ELLIPSIS
    metaeval demo
      - trec_dl_like: Cohen's kappa 0.394 [...] (clusters: 40)
    ...
    report written to .../report.md and .../report.html
    """
    from ..output.study import load_study, run_study

    study = load_study(_study_path())
    study["seed"], study["n_resamples"] = seed, n_resamples
    rep = run_study(study, out)
    lines = []

    def ci(r):
        return f"{r['estimate']:.3f} [{r['ci_low']:.3f}, {r['ci_high']:.3f}]"

    r = _row(rep, "trec_agreement", statistic="cohen_kappa")
    if r is not None:
        lines.append(f"trec_dl_like: Cohen's kappa {ci(r)} ({r['unit']}: {r['n_units']})")
    r = _row(rep, "trec_runs_rank_correlation", method="kendall_b")
    if r is not None:
        lines.append(f"trec_dl_like: Kendall tau-b of the 30 runs' nDCG@10 {ci(r)}")
    r = _row(rep, "imageclef_agreement", statistic="cohen_kappa")
    p = _row(rep, "imageclef_expansion_at_prevalence", statistic="kappa")
    if r is not None and p is not None:
        lines.append(f"imageclef_like: kappa {ci(r)} on the balanced subset, {ci(p)} expected at prevalence "
                     f"{p['prevalence']:.4f}")
    r = _row(rep, "rubric_correlation", statistic="pearson_r")
    if r is not None:
        lines.append(f"rubric_like: Pearson r (human vs mean of 3 judge samples) {ci(r)}")
    n = len(rep.notes)
    lines.append(f"{len(rep.tables)} tables and {len(rep.figures)} figures"
                 + (f"; {n} note{'' if n == 1 else 's'} (warnings, rows left out) under Notes" if n else ""))
    return ("metaeval demo\n" + "\n".join(f"  - {s}" for s in lines)
            + f"\nreport written to {out}/report.md and {out}/report.html")
