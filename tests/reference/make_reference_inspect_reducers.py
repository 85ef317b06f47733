"""Generate tests/reference/eval_log_reducers.json: Inspect AI's epoch reducers, and what Inspect reads from logs.

Two parts, both computed by inspect_ai itself:

* ``reducers``: Inspect's ``mean_score``, ``median_score``, ``mode_score``, ``max_score``,
  ``at_least(k)`` and ``pass_at(k)`` applied to fixed lists of per-epoch score values (letter grades
  and numbers), the inputs of ``metaeval.data.logs.reduce_epochs`` in tests/test_eval_logs.py;
* ``edited_score``: the ``match`` score of ``log_read_sample.json`` after two edits with Inspect's
  ``edit_score`` (value and ``history`` as a log stores them) and the metrics Inspect recomputes;
* ``logs``: for each Inspect log of ``../shared/data/eval_logs/inspect_ai`` that has samples, what
  ``inspect_ai.log.read_eval_log`` gives: per sample and epoch, each scorer's value and
  ``value_to_float`` of it, so that the rows of ``metaeval.read_eval_log`` can be compared with them
  (tests/test_eval_logs_realdata.py).

Run from the repository root, in a THROWAWAY venv (never the project's environment):

    python3 -m venv /tmp/venv-inspect
    /tmp/venv-inspect/bin/pip install inspect-ai==0.3.285
    /tmp/venv-inspect/bin/python tests/reference/make_reference_inspect_reducers.py [DATA]

DATA is the eval_logs folder (default ../shared/data/eval_logs). The JSON records the versions.
"""

from __future__ import annotations

import json
import platform
import sys
from importlib import metadata
from pathlib import Path

from inspect_ai.log import ProvenanceData, edit_score, read_eval_log
from inspect_ai.scorer import (
    Score,
    ScoreEdit,
    at_least,
    max_score,
    mean_score,
    median_score,
    mode_score,
    pass_at,
    value_to_float,
)

HERE = Path(__file__).resolve().parent
DATA = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE.parents[2] / "shared" / "data" / "eval_logs"

#: per-epoch values of one sample, as a log would hold them
CASES = {
    "ci_3": ["C", "I", "C"],
    "ici_3": ["I", "C", "I"],
    "cpi_3": ["C", "P", "I"],
    "tie_mode_4": ["I", "C", "C", "I"],
    "all_i_2": ["I", "I"],
    "all_c_5": ["C", "C", "C", "C", "C"],
    "numbers_5": [0.2, 0.9, 0.4, 0.9, 0.1],
    "numbers_4": [3, 7, 7, 1],
}
REDUCERS = {"mean": mean_score(), "median": median_score(), "mode": mode_score(), "max": max_score(),
            "at_least_2": at_least(2), "pass_at_2": pass_at(2), "at_least_1": at_least(1), "pass_at_1": pass_at(1)}


def _plain(v):
    return v if isinstance(v, (str, int, float, bool)) or v is None else str(v)


def main():
    to_float = value_to_float()
    reducers = {}
    for case, values in CASES.items():
        scores = [Score(value=v) for v in values]
        reducers[case] = {"values": values,
                          "reduced": {name: _plain(r(scores).value) for name, r in REDUCERS.items()},
                          "as_float": {name: to_float(r(scores).value) for name, r in REDUCERS.items()}}
    logs = {}
    for p in sorted((DATA / "inspect_ai").glob("*")):
        if p.suffix not in (".json", ".eval"):
            continue
        log = read_eval_log(str(p))
        if not log.samples:
            continue
        logs[p.name] = [{"id": str(s.id), "epoch": s.epoch, "scorer": name, "value": _plain(sc.value),
                         "float": to_float(sc.value)}
                        for s in log.samples for name, sc in (s.scores or {}).items()]
    # a score edited twice with Inspect's own edit_score (a reviewer flips the grade, a second confirms it),
    # as the log then stores it: the value, and the history (original first)
    log = read_eval_log(str(DATA / "inspect_ai" / "log_read_sample.json"))
    sid = log.samples[0].id
    edit_score(log, sid, "match", ScoreEdit(value="I", explanation="wrong",
                                            provenance=ProvenanceData(author="ana", reason="misgraded")))
    edit_score(log, sid, "match", ScoreEdit(provenance=ProvenanceData(author="ben", reason="agree")))
    edited = log.samples[0].scores["match"].model_dump(mode="json")
    metrics = {k: v.value for k, v in log.results.scores[0].metrics.items()}
    out = {"generator": "tests/reference/make_reference_inspect_reducers.py",
           "versions": {"inspect_ai": metadata.version("inspect_ai"), "python": platform.python_version()},
           "reducers": reducers, "logs": logs,
           "edited_score": {"score": edited, "metrics_after_edit": metrics}}
    (HERE / "eval_log_reducers.json").write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    print(f"wrote {len(reducers)} reducer cases and {len(logs)} logs")


if __name__ == "__main__":
    main()
