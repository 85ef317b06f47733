"""Shared settings and data of the figure gallery (not a figure itself).

Every ``fig_*.py`` script beside this file renders one figure from the bundled sample data
(``metaeval.datasets``) with the library's public statistics, and writes it with
:func:`metaeval.figures.save` as PDF, SVG and PNG into ``figures/out/`` (or the folder given as the
first argument). The seed and the number of bootstrap resamples are fixed here, so every run
writes byte-identical files.
"""

from __future__ import annotations

import contextlib
import functools
import sys
import warnings
from pathlib import Path

from metaeval import MetaevalWarning, datasets, figures
from metaeval.core.scale import Scale
from metaeval.data.alignment import align

OUT = Path(__file__).resolve().parent / "out"
SEED = 20261130
N_RESAMPLES = 2000

TREC_SCALE = Scale((0, 1, 2, 3), names=("0", "1", "2", "3"))
BINARY_SCALE = Scale((0, 1), kind="nominal", names=("not relevant", "relevant"))
RUBRIC_SCALE = Scale((1, 2, 3, 4, 5))
# battle outcomes on an ordinal scale from "B better" to "A better"
OUTCOME_CODES = {"B": 0, "tie_b": 1, "tie": 2, "tie_a": 3, "A": 4}
OUTCOME_SCALE = Scale((0, 1, 2, 3, 4), names=("B", "tie_b", "tie", "tie_a", "A"))


def out_dir(argv=None) -> Path:
    """The output folder: the first command-line argument, else ``figures/out``."""
    argv = sys.argv[1:] if argv is None else argv
    return Path(argv[0]) if argv else OUT


def finish(fig, name: str, out: Path | None = None) -> list[Path]:
    """Save ``fig`` as ``out/name.{pdf,svg,png}``."""
    return figures.save(fig, Path(out or OUT) / name)


@contextlib.contextmanager
def quiet():
    """Silence metaeval's small-sample and undefined-statistic warnings (the figures show them)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MetaevalWarning)
        yield


@functools.cache
def load(name: str):
    return datasets.load(name)


@functools.cache
def trec_paired():
    """trec_dl_like: human vs judge qrels on the 7,731 pairs labelled by both."""
    d = load("trec_dl_like")
    return align(d.qrels_human, d.qrels_judge, scale=TREC_SCALE, names=("human", "judge"))


@functools.cache
def imageclef_paired():
    """imageclef_like: the 202-item balanced validation subset (human vs judge)."""
    v = load("imageclef_like").validation
    return align(v.drop(columns=["judge"]), v[["query_id", "doc_id", "judge"]], label=("human", "judge"),
                 scale=BINARY_SCALE, names=("human", "judge"))


@functools.cache
def rubric_paired():
    """rubric_like: human score vs the judge's first sample, per item."""
    s = load("rubric_like").scores
    hum = s[s["rater"] == "human"][["item_id", "prompt_id", "generator", "length", "score"]]
    jud = s[(s["rater"] == "judge") & (s["sample"] == 1)][["item_id", "score"]]
    return align(hum, jud, on="item_id", label="score", scale=RUBRIC_SCALE, names=("human", "judge"))


@functools.cache
def battles_paired():
    """battles_like: human vs judge outcome per battle (unswapped judge rows, parse errors left out)."""
    b = load("battles_like").battles
    b = b[(b["swapped"] == 0) & (b["outcome"] != "invalid")].copy()
    b["code"] = b["outcome"].map(OUTCOME_CODES).astype(float)
    hum = b[b["judge"] == "human"][["battle_id", "item_id", "code"]]
    jud = b[b["judge"] == "judge"][["battle_id", "code"]]
    return align(hum, jud, on="battle_id", label="code", scale=OUTCOME_SCALE, names=("human", "judge"))


def main(render):
    """Command-line entry of a figure script: render into the folder named by the first argument."""
    for p in render(out_dir()):
        print(p)


__all__ = ["OUT", "SEED", "N_RESAMPLES", "TREC_SCALE", "BINARY_SCALE", "RUBRIC_SCALE", "OUTCOME_SCALE", "out_dir",
           "finish", "quiet", "load", "trec_paired", "imageclef_paired", "rubric_paired", "battles_paired", "main"]
