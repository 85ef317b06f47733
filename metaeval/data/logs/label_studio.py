"""Label Studio JSON exports: a list of tasks with their annotations (people) and predictions (models).

One record per annotation and per prediction; one row per control (``from_name``) of its ``result``:
item = the task ``id``, scorer = ``annotator:<completed_by>`` (role ``human``) or
``model:<model_version>`` (role ``judge``). The value is what the control holds: a choice, a rating or
number, the ``selected`` side of a pairwise control, or for region labels (boxes, spans) the sorted set
of labels of its regions joined by ``", "`` (column ``regions`` counts them). The score is the number
a rating or number holds, else ``labels=`` maps the value (a few binary words — correct/incorrect,
yes/no, pass/fail, accept/reject — count as 1/0 by default). A cancelled annotation
(``was_cancelled``) is ``cancelled``; an annotation or prediction with an empty result, and a task with
neither, ``unscored``. ``review_accepted`` says whether a reviewer accepted the annotation (None: not
reviewed); ``ground_truth`` marks Label Studio's ground-truth annotations.
"""

from __future__ import annotations

from ...core.errors import InputError
from . import base

FORMAT = "label_studio"

_LIST_KEYS = ("choices", "rectanglelabels", "labels", "polygonlabels", "keypointlabels", "brushlabels",
              "ellipselabels", "polylinelabels", "vectorlabels", "timeserieslabels", "paragraphlabels", "taxonomy",
              "hypertextlabels")


def _region_value(v: dict):
    for k in ("rating", "number"):
        if k in v:
            return "number", v[k]
    if "selected" in v:                       # pairwise
        return "text", v["selected"]
    for k in _LIST_KEYS:
        if k in v:
            vals = v[k]
            if k == "taxonomy":
                vals = ["/".join(map(str, p)) if isinstance(p, list) else str(p) for p in vals]
            return "labels", [str(x) for x in (vals if isinstance(vals, list) else [vals])]
    if "text" in v:
        t = v["text"]
        return "text", " ".join(map(str, t)) if isinstance(t, list) else t
    return None, None


def _controls(result: list) -> dict:
    """``from_name`` → (value, number of regions) of one annotation's result."""
    out: dict = {}
    for r in result or []:
        if not isinstance(r, dict) or not isinstance(r.get("value"), dict):
            continue
        kind, v = _region_value(r["value"])
        if kind is None:
            continue
        name = r.get("from_name") or r.get("type") or "label"
        acc = out.setdefault(name, {"kind": kind, "labels": set(), "value": None, "regions": 0})
        acc["regions"] += 1
        if kind == "labels":
            acc["labels"].update(v)
        else:
            acc["value"] = v
    return {k: ((", ".join(sorted(a["labels"])) if a["kind"] == "labels" else a["value"]), a["regions"])
            for k, a in out.items()}


def _review(entry) -> bool | None:
    """Whether the annotation's reviews accepted it (None: not reviewed)."""
    reviews = [r for r in entry.get("reviews") or [] if isinstance(r, dict) and "accepted" in r]
    return None if not reviews else all(bool(r["accepted"]) for r in reviews)


def _who(completed_by) -> str:
    if isinstance(completed_by, dict):
        return str(completed_by.get("email") or completed_by.get("id"))
    return str(completed_by)


def read(path, name: str, c: base.Collector, **_):
    tasks = base.parse_json(base.read_text(path, name), name)
    if isinstance(tasks, dict):
        tasks = [tasks]
    if not isinstance(tasks, list):
        raise InputError("a Label Studio export is a JSON list of tasks", source=name,
                         fix="export the project as JSON (not JSON-MIN or CSV)")
    agreement = {}
    for ti, task in enumerate(tasks):
        if not isinstance(task, dict):
            raise InputError(f"task {ti} is not a JSON object", source=name)
        tid = task.get("id", ti)
        if "agreement" in task:
            agreement[str(tid)] = task["agreement"]
        if not (task.get("annotations") or task.get("predictions")):
            c.at(f"tasks[{ti}]")
            c.fate("unscored")                  # a task nobody labelled: counted, so that nothing is silent
            continue
        for kind, entries in (("annotation", task.get("annotations") or []), ("prediction", task.get("predictions") or [])):
            for ei, e in enumerate(entries):
                c.at(f"tasks[{ti}].{kind}s[{ei}]")
                ordinal = ti + 1
                if kind == "annotation" and e.get("was_cancelled"):
                    c.fate("cancelled")
                    continue
                controls = _controls(e.get("result"))
                if not controls:
                    c.fate("unscored")
                    continue
                c.fate("read")
                if kind == "annotation":
                    scorer, role = f"annotator:{_who(e.get('completed_by'))}", "human"
                else:
                    scorer, role = f"model:{e.get('model_version') or 'prediction'}", "judge"
                for control, (value, regions) in controls.items():
                    c.row(ordinal, item=tid, scorer=scorer, value=value, role=role,
                          model=e.get("model_version") if kind == "prediction" else None,
                          record=f"tasks[{ti}].{kind}s[{ei}]", control=control, regions=regions,
                          entry_id=e.get("id"), ground_truth=bool(e.get("ground_truth", False)),
                          review_accepted=_review(e),
                          prediction_score=e.get("score") if kind == "prediction" else None)
    c.report.stored[name] = {"agreement": agreement} if agreement else {}
