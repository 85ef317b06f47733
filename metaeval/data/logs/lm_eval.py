"""lm-evaluation-harness: ``samples_<task>_<date>.jsonl`` (``--log_samples``) and ``results_<date>.json``.

A samples file has one record per document; each metric the row names in ``metrics`` is a row of the
frame (scorer = the metric, or ``metric,filter`` when the filter is not ``none``; item = ``doc_id``).
lm-eval's own aggregate is the mean of that column and its ``mean_stderr`` (sample standard deviation
over the square root of n). A results file holds only aggregates: no records, its ``results`` go to
the report's ``stored`` numbers.
"""

from __future__ import annotations

import os
import re

from . import base

FORMAT = "lm_eval"

_TASK = re.compile(r"^samples_(?P<task>.+?)_\d{4}-\d{2}-\d{2}T[\d\-.:]+\.jsonl$")


def read(path, name: str, c: base.Collector, **_):
    data = base.read_text(path, name)
    stripped = data.lstrip()
    if stripped.startswith(b"{") and not _is_jsonl(stripped):
        doc = base.parse_json(data, name)
        if isinstance(doc, dict) and "results" in doc and "doc_id" not in doc:
            return _results(doc, name, c)
    base_name = os.path.basename(name)
    m = _TASK.match(base_name[:-3] if base_name.endswith(".gz") else base_name)
    task = m.group("task") if m else None
    for line, r in base.iter_jsonl(data, name):
        c.at(f"line {line}")
        metrics = r.get("metrics") or [k for k in ("exact_match", "acc", "acc_norm", "f1", "bleu") if k in r]
        present = [k for k in metrics if r.get(k) is not None]
        if not present:
            c.fate("unscored")
            continue
        c.fate("read")
        filt = r.get("filter") or "none"
        for k in present:
            v = r[k]
            c.row(line, item=r.get("doc_id"), scorer=k if filt == "none" else f"{k},{filt}", value=v, role="judge",
                  record=f"line {line}", task=task, filter=filt, target=str(r.get("target")),
                  doc_hash=r.get("doc_hash"), prompt_hash=r.get("prompt_hash"), target_hash=r.get("target_hash"))
    c.report.facts[name] = {"task": task}


def _is_jsonl(data: bytes) -> bool:
    nl = data.find(b"\n")
    return nl > 0 and data[nl:].lstrip().startswith(b"{") and data[:nl].rstrip().endswith(b"}")


def _results(doc, name, c: base.Collector):
    stored = {}
    for task, metrics in (doc.get("results") or {}).items():
        for k, v in (metrics or {}).items():
            if k != "alias":
                stored[f"{task}/{k}"] = v
    for task, n in (doc.get("n-samples") or {}).items():
        stored[f"{task}/n"] = n.get("effective") if isinstance(n, dict) else n
    c.report.stored[name] = stored
    c.report.facts[name] = {"model": doc.get("model_name"), "lm_eval_version": doc.get("lm_eval_version"),
                            "tasks": sorted(doc.get("results") or {})}
    c.report.note(f"{name}: an lm-eval results file holds aggregates only (no per-sample records); read the "
                  "matching samples_*.jsonl for the rows")
