"""May GPT-3.5 or PandaLM-7B replace PandaLM's human annotators? The alternative annotator test.

PandaLM's test set (Wang et al., ICLR 2024; ../shared/data/pandalm, see its PROVENANCE.md): 999
pairwise comparisons, each labelled by three human annotators (0 = tie, 1 = response 1 better,
2 = response 2 better) and by two judges, GPT-3.5 and PandaLM-7B. For each judge and each ε the
alt-test (Calderon, Reichart & Dror, ACL 2025; metaeval.alt_test, accuracy scoring, q = 0.05)
gives the winning rate ω (the judge passes when ω ≥ 0.5), the advantage probability ρ and one
p-value per annotator. GPT-3.5's 25 unparsable answers ('garbage') are scored two ways: as a tie
(the PandaLM repository's convention) and as a label of their own that matches no annotator. As a
yardstick, each human annotator is also tested as the "judge" against the other two.

    python analyses/pandalm_alt_test.py [--data ../shared/data] [--epsilons 0.2 0.15 0.1] [--out table.csv]

Writes the table (CSV, LaTeX, Markdown) to $METAEVAL_ANALYSES_OUT/pandalm_alt_test (default
analyses-out/pandalm_alt_test) and prints it.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import warnings
from pathlib import Path

import pandas as pd

import metaeval as me

ANNOTATORS = ("annotator1", "annotator2", "annotator3")
EPSILONS = (0.2, 0.15, 0.1)


def load_pandalm(data: Path) -> tuple[pd.DataFrame, dict[str, pd.Series]]:
    """The human labels (long: item_id, annotator, label) and the judges' labels (Series by item_id).

    GPT-3.5's answers map as in the PandaLM repository's compute_metrics ('1' → 1, '2' → 2, 'Tie' → 0,
    'garbage' → 0); the judge ``gpt-3.5-turbo (garbage kept)`` keeps 'garbage' as its own label.
    """
    base = data / "pandalm"
    t = json.loads((base / "testset-v1.json").read_text())
    g = json.loads((base / "gpt-3.5-turbo-testset-v1.json").read_text())
    p = json.loads((base / "pandalm-7b-testset-v1.json").read_text())
    humans = pd.DataFrame([(r["idx"], a, int(r[a])) for a in ANNOTATORS for r in t],
                          columns=["item_id", "annotator", "label"])
    gmap = {"1": 1, "2": 2, "Tie": 0, "garbage": 0}
    judges = {
        "gpt-3.5-turbo": pd.Series({r["idx"]: gmap[r["gpt_result"]] for r in g}, dtype=object),
        "gpt-3.5-turbo (garbage kept)": pd.Series(
            {r["idx"]: (gmap[r["gpt_result"]] if r["gpt_result"] != "garbage" else "garbage") for r in g},
            dtype=object),
        "pandalm-7b": pd.Series({r["idx"]: int(r["pandalm_result"]) for r in p}, dtype=object),
    }
    return humans, judges


def alt_test_table(data: Path, *, epsilons=EPSILONS, q: float = 0.05, humans_as_judges: bool = True) -> pd.DataFrame:
    """One row per (judge, ε): ω, ρ, passed, and each annotator's p-value and verdict."""
    humans, judges = load_pandalm(data)
    runs = [(name, humans, j) for name, j in judges.items()]
    if humans_as_judges:
        for a in ANNOTATORS:
            rest = humans[humans["annotator"] != a]
            own = humans[humans["annotator"] == a].set_index("item_id")["label"]
            runs.append((f"{a} (vs the other two)", rest, own))
    rows = []
    for name, h, j in runs:
        for eps in epsilons:
            res = me.alt_test(h, j, epsilon=eps, q=q)
            row = {"judge": name, **res.row()}
            for r in res.pvalues.itertuples(index=False):
                row[f"p_{r.annotator}"] = r.pvalue
                row[f"rho_{r.annotator}"] = r.judge_advantage
            rows.append(row)
    return pd.DataFrame(rows)


def _write(t: pd.DataFrame, out: Path) -> None:
    from metaeval.output.report import Report

    rep = Report("Alternative annotator test on PandaLM's human-annotated test set",
                 intro="Calderon, Reichart & Dror (ACL 2025): accuracy scoring, Benjamini–Yekutieli at q = 0.05; "
                       "a judge passes when its winning rate is at least 0.5.")
    show = ["judge", "epsilon", "winning_rate", "advantage_probability", "passed", "n_items"] + \
        [c for c in t.columns if c.startswith("p_")]
    rep.table("pandalm_alt_test", t, "Alt-test per judge and ε (p-values per left-out annotator)", columns=show)
    rep.write(out)
    print(f"table written to {out}/")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(Path(__file__).resolve().parents[2] / "shared" / "data"))
    ap.add_argument("--epsilons", type=float, nargs="*", default=list(EPSILONS))
    ap.add_argument("--q", type=float, default=0.05)
    ap.add_argument("--out", default=None, help="also write the table (CSV) here")
    args = ap.parse_args(argv)
    data = Path(args.data)
    if not (data / "pandalm").is_dir():
        print(f"PandaLM data not found under {data} (see ../shared/data/pandalm/PROVENANCE.md)", file=sys.stderr)
        return 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", me.MetaevalWarning)
        t = alt_test_table(data, epsilons=args.epsilons, q=args.q)
    cols = ["judge", "epsilon", "winning_rate", "advantage_probability", "passed"] + \
        [c for c in t.columns if c.startswith("p_")]
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(t[cols].round(4).to_string(index=False))
    if args.out:
        me.write_table(t, args.out)
    _write(t, Path(os.environ.get("METAEVAL_ANALYSES_OUT", "analyses-out")) / "pandalm_alt_test")
    return 0


if __name__ == "__main__":
    sys.exit(main())
