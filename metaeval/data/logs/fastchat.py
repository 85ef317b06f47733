"""FastChat ``llm_judge`` judgments (MT-Bench): single-answer grading and pairwise comparison.

Single (``model_judgment/<judge>_single.jsonl``): one record per line, one row: item = ``question_id``,
scorer = the judge prompt ``@`` the judge model (``single-v1@gpt-4``), value = score = ``score``
(1–10); a score of -1 (a judgment that could not be parsed, which ``show_result.py`` leaves out) is
``errored``, and so is a score that is not a finite number (NaN, infinite, text), with a note. Columns ``model`` (the answering model) and ``turn``.

Pairwise (``<judge>_pair.jsonl``): one record per line, two rows, one per presentation order: position
1 shows ``model_1`` first (value ``g1_winner``), position 2 the swap (value ``g2_winner``). Each row has
the battle columns of :func:`metaeval.read_battles` (``item_id, model_a, model_b, outcome, judge``),
``model_a`` being the answer shown first, so that the two orders are the position-swapped repeats
:func:`metaeval.combine_swaps` and :func:`metaeval.position_bias` take; score is 1 when ``model_a``
wins, 0.5 for a tie, 0 when it loses. A judge that answered ``error`` in either order makes the record
``errored`` (``show_result.py`` drops it). The same battle judged again later is the next ``epoch``.
"""

from __future__ import annotations

import math

from . import base

FORMAT = "fastchat"

_MIRROR = {"A": "B", "B": "A", "tie": "tie"}


def read(path, name: str, c: base.Collector, **_):
    data = base.read_text(path, name)
    seen: dict = {}
    odd: list = []
    for line, r in base.iter_jsonl(data, name):
        c.at(f"line {line}")
        judge = r.get("judge")
        jmodel, jprompt = (judge[0], judge[1]) if isinstance(judge, list) and len(judge) >= 2 else (judge, None)
        scorer = base.scorer_id(jprompt or "judge", jmodel)
        turn = r.get("turn", 1)
        if "g1_winner" in r:
            key = (r.get("question_id"), r.get("model_1"), r.get("model_2"), turn, scorer)
            epoch = seen[key] = seen.get(key, 0) + 1
            g1, g2 = r.get("g1_winner"), r.get("g2_winner")
            if "error" in (g1, g2):
                c.fate("errored")
                continue
            c.fate("read")
            m1, m2 = r.get("model_1"), r.get("model_2")
            for pos, (first, second, g) in enumerate(((m1, m2, g1), (m2, m1, g2)), start=1):
                out = {"model_1": "A", "model_2": "B", "tie": "tie"}.get(g, "invalid")
                if pos == 2 and out in _MIRROR:
                    out = _MIRROR[out]
                c.row(line, item=r.get("question_id"), scorer=scorer, epoch=epoch, value=g,
                      score={"A": 1.0, "B": 0.0, "tie": 0.5}.get(out, float("nan")), role="judge", model=None,
                      record=f"line {line}", turn=turn, item_id=str(r.get("question_id")), model_a=first,
                      model_b=second, outcome=out, judge=scorer, position=pos, model_1=m1, model_2=m2)
        else:
            key = (r.get("question_id"), r.get("model"), turn, scorer)
            epoch = seen[key] = seen.get(key, 0) + 1
            s = r.get("score")
            unparsed = s is None or s == -1  # show_result.py's own marker of a judgment it could not read
            if unparsed or math.isnan(base.grade_score(s)):
                if not unparsed:  # NaN, infinite or not a number: no score to average
                    odd.append(f"line {line}")
                c.fate("errored")
                continue
            c.fate("read")
            c.row(line, item=r.get("question_id"), scorer=scorer, epoch=epoch, value=s, role="judge",
                  model=r.get("model"), record=f"line {line}", turn=turn, grader_model=jmodel, judge_prompt=jprompt)
    if odd:
        c.report.note(f"{name}: {len(odd)} single-answer score(s) not a finite number (read as errored, as "
                      f"-1 is): {base.listing(odd)}")
