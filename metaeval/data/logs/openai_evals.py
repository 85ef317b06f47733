"""OpenAI evals: the ``oaieval`` JSONL run log, and Evals-API output items.

Run log: the ``spec`` and ``final_report`` lines and ``sampling`` events are records of fate
``context``; a ``match`` event is a judgment (``data.correct``: value True/False, score 1/0, which
``evals.metrics.get_accuracy`` averages into ``final_report.accuracy``), and a ``metrics`` event (a
model-graded eval's ``choice`` and ``score``) too. The item is ``sample_id``.

Evals-API output items: one record per line; each grader in ``grades`` is a row (value = the grade,
score = the grader's ``passes`` entry as 1/0, or the grade when it has none), the item is
``data_source_idx``, runs (``run_id``) are repeats numbered 1, 2 ... in order of appearance, and
``item.correct_label`` is a row of role ``reference``. A line with ``sample.error`` is ``errored``.
"""

from __future__ import annotations

from . import base

FORMAT = "openai_evals"


def read(path, name: str, c: base.Collector, **_):
    data = base.read_text(path, name)
    runs: dict = {}
    stored, spec = {}, {}
    for line, r in base.iter_jsonl(data, name):
        c.at(f"line {line}")
        if "spec" in r:
            spec = r["spec"] or {}
            c.fate("context")
        elif "final_report" in r:
            stored.update(r["final_report"] or {})
            c.fate("context")
        elif "grades" in r or "passes" in r or "data_source_idx" in r:
            _api_item(line, r, runs, c)
        elif "type" in r and "sample_id" in r:
            _event(line, r, spec, c)
        else:
            c.fate("context")
    if stored:
        c.report.stored[name] = stored
    if spec:
        es = ((spec.get("run_config") or {}).get("eval_spec") or {})
        c.report.facts[name] = {"eval": spec.get("eval_name"), "cls": es.get("cls"),
                                "completion_fns": spec.get("completion_fns"),
                                "seed": (spec.get("run_config") or {}).get("seed")}
    elif runs:
        c.report.facts[name] = {"runs": list(runs)}


def _event(line, r, spec, c: base.Collector):
    kind, d = r.get("type"), r.get("data") or {}
    model = ",".join(spec.get("completion_fns") or []) or None
    cls = (((spec.get("run_config") or {}).get("eval_spec") or {}).get("cls") or "").rsplit(":", 1)[-1] or None
    if kind == "match":
        c.fate("read")
        c.row(line, item=r.get("sample_id"), scorer=cls or "match", value=d.get("correct"), role="judge",
              model=model, record=f"line {line}", event_id=r.get("event_id"), run_id=r.get("run_id"),
              expected=str(d.get("expected")), picked=None if d.get("picked") is None else str(d.get("picked")))
    elif kind == "metrics" and ("score" in d or "choice" in d):
        c.fate("read")
        c.row(line, item=r.get("sample_id"), scorer=cls or "metrics", value=d.get("choice", d.get("score")),
              score=d.get("score") if d.get("score") is not None else None, role="judge", model=model,
              record=f"line {line}", event_id=r.get("event_id"), run_id=r.get("run_id"), expected=None, picked=None)
    elif "error" in str(kind):
        c.fate("errored")
    else:
        c.fate("context")


def _api_item(line, r, runs, c: base.Collector):
    run = r.get("run_id")
    epoch = runs.setdefault(run, len(runs) + 1)
    sample = r.get("sample") or {}
    if sample.get("error"):
        c.fate("errored")
        return
    grades, passes = r.get("grades") or {}, r.get("passes") or {}
    if not grades and not passes:
        c.fate("unscored")
        return
    c.fate("read")
    item, model = r.get("data_source_idx"), sample.get("sampled_model_name")
    for g in list(grades) + [p for p in passes if p not in grades]:
        grade, passed = grades.get(g), passes.get(g)
        c.row(line, item=item, scorer=g, epoch=epoch, value=grade if grade is not None else passed,
              score=float(passed) if isinstance(passed, bool) else None, role="judge", model=model,
              record=f"line {line}", run_id=run, grade=base.grade_score(grade), passed=passed)
    label = (r.get("item") or {}).get("correct_label")
    if label is not None:
        c.row(line, item=item, scorer="item.correct_label", epoch=epoch, value=label, role="reference",
              model=None, record=f"line {line}", run_id=run, grade=float("nan"), passed=None)
