"""HANNA (Chhun et al., COLING 2022): every story-level and system-level value of the authors' tables.

The expected numbers are the authors' own files ``rankings/story.csv`` and ``rankings/system.csv``
(../shared/data/hanna, PROVENANCE.md): 72 metrics × 6 criteria × 3 methods (Pearson, Spearman,
Kendall τ_b) × 2 levels = 2,592 numbers, stored as |r|. They are recomputed here from
``hanna_metric_scores.csv`` through the public API only: ``level_correlation(level="item")`` (the
story level: per prompt across the 10 systems, undefined prompts dropped, |mean|) and
``level="system"`` (the systems' mean scores), with ``absolute=True``. The Human row is left out.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd
import pytest

import metaeval

pytestmark = pytest.mark.realdata

CRITERIA = ["Relevance", "Coherence", "Empathy", "Surprise", "Engagement", "Complexity"]
METHODS = ["pearson", "spearman", "kendall"]


def _hanna() -> Path:
    env = os.environ.get("METAEVAL_SHARED_DATA")
    base = Path(env) if env else Path(__file__).resolve().parents[2] / "shared" / "data"
    p = base / "hanna"
    if not (p / "hanna_metric_scores.csv").is_file():
        pytest.skip(f"HANNA not found at {p} (set METAEVAL_SHARED_DATA to the shared data folder)")
    return p


@pytest.fixture(scope="module")
def hanna():
    p = _hanna()
    raw = pd.read_csv(p / "hanna_metric_scores.csv", encoding="utf-8")
    raw = raw[raw["Model"] != "Human"].set_index("Model")
    mats = {c: pd.DataFrame([json.loads(v) for v in raw[c]], index=raw.index) for c in raw.columns}
    story = pd.read_csv(p / "rankings" / "story.csv", encoding="utf-8").set_index("Model")
    system = pd.read_csv(p / "rankings" / "system.csv", encoding="utf-8").set_index("Model")
    return mats, story, system


def test_shape(hanna):
    mats, story, system = hanna
    metrics = [c for c in mats if c not in CRITERIA]
    assert len(metrics) == 72 and story.shape == (72, 18) and system.shape == (72, 18)   # PROVENANCE.md
    assert mats["Relevance"].shape == (10, 96)
    assert set(story.index) == set(metrics) == set(system.index)


def test_every_story_and_system_value(hanna):
    mats, story, system = hanna
    compared, worst = 0, 0.0
    for metric in story.index:
        for crit in CRITERIA:
            rs = metaeval.level_correlation(mats[crit], mats[metric], level=["item", "system"], method=METHODS,
                                            ci_method=None, absolute=True)
            for lv, table, tag in (("item", story, "story"), ("system", system, "system")):
                for mt in METHODS:
                    got = rs.get(level=lv, method=mt).estimate
                    want = float(table.loc[metric, f"{crit}_{tag}_{mt}"])
                    worst = max(worst, abs(got - want))
                    compared += 1
    assert compared == 2592
    assert worst < 1e-12, worst


def test_undefined_prompts_counted(hanna):
    # PROVENANCE.md / reference_numbers.txt: ROUGE-4 metrics give a defined story-level correlation on
    # 43 of 96 prompts; BLEU on all 96.
    mats, story, _ = hanna
    rouge4 = next(m for m in story.index if m.startswith("ROUGE-4 Recall"))
    e = metaeval.level_correlation(mats["Relevance"], mats[rouge4], level="item", method="pearson", ci_method=None,
                                   absolute=True)
    assert e.extra["groups"] == 96 and e.extra["groups"] - e.extra["groups_dropped"] == 43
    bleu = next(m for m in story.index if m.startswith("BLEU"))
    e = metaeval.level_correlation(mats["Relevance"], mats[bleu], level="item", method="kendall", ci_method=None,
                                   absolute=True)
    assert e.extra["groups_dropped"] == 0
    assert abs(e.estimate - 0.13922033417177257) < 1e-12      # reference_numbers.txt


def test_docs_worked_example(hanna):
    # docs/guide/levels.md prints this table (B = 1000, rng = 1, BOOT-BOTH, BCa): the page must not drift
    mats, _, _ = hanna
    bert = next(m for m in mats if m.startswith("BERTScore F1"))
    rs = metaeval.level_correlation(mats["Coherence"], mats[bert], level=["none", "item", "system_group", "system"],
                                    method=["pearson", "kendall"], n_resamples=1000, rng=1)
    got = rs.to_frame()[["estimate", "ci_low", "ci_high"]].round(3).to_numpy().tolist()
    page = (Path(__file__).resolve().parents[1] / "docs" / "guide" / "levels.md").read_text(encoding="utf-8")
    block = page.split("       level  method  estimate  ci_low  ci_high\n")[1].split("```")[0]
    want = [[float(x) for x in line.split()[2:]] for line in block.strip().splitlines()]
    assert got == want
