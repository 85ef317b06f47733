"""Prodigy JSONL exports (``prodigy db-out``).

One record per line; one row: item = ``_input_hash`` (the input, shared by every annotator), scorer =
``annotator:<_annotator_id>`` (or the session, or ``annotator`` when the export names none), role
``human``, value = ``answer`` (accept/reject/ignore), score accept = 1, reject = 0, ignore = NaN (for a
choice task with an ``accept`` list, the chosen options joined by ``", "``, scored through ``labels=``).
The same task (``_task_hash``) answered again by the same annotator is a ``duplicate`` (the first answer
is kept; the report counts repeats that changed the answer). A model score shown during active learning
(``meta.score``) is a second row, scorer ``model:meta.score``, role ``judge``.
"""

from __future__ import annotations

import math

from . import base

FORMAT = "prodigy"

_ANSWER = {"accept": 1.0, "reject": 0.0, "ignore": math.nan}


def read(path, name: str, c: base.Collector, **_):
    data = base.read_text(path, name)
    seen: dict = {}
    changed = 0
    for line, r in base.iter_jsonl(data, name):
        c.at(f"line {line}")
        who = r.get("_annotator_id") or r.get("_session_id")
        scorer = f"annotator:{who}" if who else "annotator"
        task = r.get("_task_hash", r.get("_input_hash"))
        key = (task, scorer)
        answer = r.get("answer")
        if key in seen:
            c.fate("duplicate")
            changed += seen[key] != answer
            continue
        seen[key] = answer
        if answer is None:
            c.fate("unscored")
            continue
        c.fate("read")
        item = r.get("_input_hash", task)
        value, score = answer, _ANSWER.get(answer, math.nan)
        if isinstance(r.get("accept"), list) and r.get("options"):
            value, score = ", ".join(sorted(map(str, r["accept"]))) if answer == "accept" else answer, None
            if answer != "accept":
                score = math.nan
        c.row(line, item=item, scorer=scorer, value=value, score=score, role="human", model=None,
              record=f"line {line}", label=r.get("label"), task_hash=r.get("_task_hash"),
              session_id=r.get("_session_id"), text=r.get("text"))
        meta = r.get("meta") or {}
        if isinstance(meta, dict) and isinstance(meta.get("score"), (int, float)):
            c.row(line, item=item, scorer="model:meta.score", value=meta["score"], role="judge", model=None,
                  record=f"line {line}", label=r.get("label"), task_hash=r.get("_task_hash"),
                  session_id=r.get("_session_id"), text=r.get("text"))
    if changed:
        c.report.note(f"{name}: {changed} repeated answer(s) of an annotator to the same task differ from "
                      "the first (the first is kept)")
