"""Argilla v2 exports: records with ``responses`` (people) and ``suggestions`` (models).

Read from ``Dataset.records.to_json`` / ``to_list`` (a JSON list, or JSONL), nested
(``responses: {question: [{value, user_id, status}]}``, ``suggestions: {question: {value, score,
agent}}``) or flattened (``question.responses`` with ``question.responses.users``,
``question.suggestion`` with ``question.suggestion.agent`` and ``.score``). One record per Argilla
record; one row per response (scorer ``annotator:<user_id>``, role ``human``) and per suggestion
(scorer ``agent:<agent>``, role ``judge``, column ``suggestion_score``); item = the record ``id``,
column ``question``. A ``discarded`` response is left out and counted in the notes; a record with
neither responses nor suggestions is ``unscored``.
"""

from __future__ import annotations

from ...core.errors import InputError
from . import base

FORMAT = "argilla"


def _records(path, name):
    data = base.read_text(path, name)
    head = data.lstrip()[:1]
    if head == b"[":
        doc = base.parse_json(data, name)
        return [(i + 1, r) for i, r in enumerate(doc)]
    if head == b"{":
        nl = data.strip().find(b"\n")
        if nl < 0 or not data.strip()[nl:].lstrip().startswith(b"{"):
            doc = base.parse_json(data, name)
            recs = doc.get("records") if isinstance(doc, dict) else None
            if isinstance(recs, list):
                return [(i + 1, r) for i, r in enumerate(recs)]
            return [(1, doc)]
        return list(base.iter_jsonl(data, name))
    raise InputError("not JSON or JSONL", source=name, expected="an Argilla records export")


def _value(v):
    return ", ".join(map(str, v)) if isinstance(v, list) else v


def read(path, name: str, c: base.Collector, **_):
    discarded = 0
    for ordinal, rec in _records(path, name):
        c.at(f"records[{ordinal - 1}]")
        if not isinstance(rec, dict):
            raise InputError(f"record {ordinal} is not a JSON object", source=name, line=ordinal)
        item = rec.get("id", rec.get("_server_id", ordinal))
        rows = []
        for q, resps in (rec.get("responses") or {}).items():
            for resp in resps or []:
                if resp.get("status") == "discarded":
                    discarded += 1
                    continue
                rows.append((q, f"annotator:{resp.get('user_id')}", "human", resp.get("value"), None, None))
        for q, s in (rec.get("suggestions") or {}).items():
            if isinstance(s, dict):
                rows.append((q, f"agent:{s.get('agent') or 'suggestion'}", "judge", s.get("value"), s.get("score"),
                             s.get("agent")))
        for k in rec:
            if k.endswith(".responses"):
                q = k[:-len(".responses")]
                users = rec.get(f"{q}.responses.users") or [None] * len(rec[k] or [])
                status = rec.get(f"{q}.responses.status") or [None] * len(rec[k] or [])
                for v, u, st in zip(rec[k] or [], users, status):
                    if st == "discarded":
                        discarded += 1
                        continue
                    rows.append((q, f"annotator:{u}", "human", v, None, None))
            elif k.endswith(".suggestion") and rec[k] is not None:
                q = k[:-len(".suggestion")]
                agent = rec.get(f"{q}.suggestion.agent")
                rows.append((q, f"agent:{agent or 'suggestion'}", "judge", rec[k], rec.get(f"{q}.suggestion.score"), agent))
        if not rows:
            c.fate("unscored")
            continue
        c.fate("read")
        for q, scorer, role, v, sscore, agent in rows:
            c.row(ordinal, item=item, scorer=scorer, value=_value(v), role=role, model=agent,
                  record=f"records[{ordinal - 1}]", question=q, suggestion_score=sscore, status=rec.get("status"))
    if discarded:
        c.report.note(f"{name}: {discarded} discarded response(s) left out")
