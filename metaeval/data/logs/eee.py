"""Every Eval Ever: instance-level JSONL and aggregate JSON.

Instance files (``*_samples.jsonl``, schema ``instance_level_eval``): one record per line, one row:
item = ``sample_id``, scorer = ``evaluation_name`` (with the judge of ``metric_config.llm_scoring``
when the linked aggregate names one), model = ``model_id``, value = score = ``evaluation.score``,
``is_correct`` and ``sample_hash`` as columns; a line without a score is ``unscored``. Aggregate files
hold no records: their ``evaluation_results[].score_details.score`` go to the report's ``stored``
numbers, and the instance file they link (``detailed_evaluation_results``) is checked against its
``checksum`` (sha256) and ``total_rows`` when it lies beside them.
"""

from __future__ import annotations

import hashlib
import os

from . import base

FORMAT = "eee"


def read(path, name: str, c: base.Collector, **_):
    data = base.read_text(path, name)
    stripped = data.lstrip()
    nl = stripped.find(b"\n")
    if stripped.startswith(b"{") and (nl < 0 or not stripped[nl:].lstrip().startswith(b"{")):
        doc = base.parse_json(data, name)
        if "evaluation_results" in doc:
            return _aggregate(doc, path, name, c)
    for line, r in base.iter_jsonl(data, name):
        c.at(f"line {line}")
        ev = r.get("evaluation") or {}
        s = ev.get("score")
        if s is None and ev.get("is_correct") is None:
            c.fate("unscored")
            continue
        c.fate("read")
        c.row(line, item=r.get("sample_id"), scorer=r.get("evaluation_name") or r.get("evaluation_result_id") or "eee",
              value=s if s is not None else ev.get("is_correct"), role="judge", model=r.get("model_id"),
              record=f"line {line}", is_correct=ev.get("is_correct"), sample_hash=r.get("sample_hash"),
              evaluation_id=r.get("evaluation_id"))


def _aggregate(doc, path, name, c: base.Collector):
    stored, judges = {}, {}
    for res in doc.get("evaluation_results") or []:
        key = res.get("evaluation_name") or res.get("evaluation_result_id")
        stored[key] = (res.get("score_details") or {}).get("score")
        js = (((res.get("metric_config") or {}).get("llm_scoring") or {}).get("judges")) or []
        if js:
            judges[key] = [j.get("judge_config", j) for j in js]
    c.report.stored[name] = stored
    facts = {"schema_version": doc.get("schema_version"), "evaluation_id": doc.get("evaluation_id"),
             "model": (doc.get("model_info") or {}).get("id"), "judges": judges}
    det = doc.get("detailed_evaluation_results") or {}
    if det.get("file_path"):
        beside = os.path.join(os.path.dirname(str(path)), os.path.basename(det["file_path"]))
        facts["instances"] = beside
        if os.path.exists(beside):
            base.check_size(beside, beside)
            with open(beside, "rb") as fh:
                blob = fh.read()
            ok = hashlib.sha256(blob).hexdigest() == det.get("checksum") if det.get("checksum") else None
            rows = sum(1 for x in blob.split(b"\n") if x.strip())
            facts["checksum_ok"], facts["instance_rows"] = ok, rows
            if ok is False or (det.get("total_rows") is not None and rows != det.get("total_rows")):
                c.report.note(f"{name}: the linked instance file {beside} does not match the aggregate "
                              f"(checksum {'differs' if ok is False else 'equal'}, {rows} rows, "
                              f"total_rows {det.get('total_rows')})")
    c.report.facts[name] = facts
    c.report.note(f"{name}: an Every Eval Ever aggregate holds scores per benchmark, not per item; read the "
                  "linked instance file for rows")
