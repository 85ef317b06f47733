"""Inspect AI logs: the ``.json`` log and the ``.eval`` zip (with a header, or journal-only).

One record per sample and epoch (a second record of the same id and epoch, possible only in a
crafted or merged log, is a ``duplicate``: the first is kept, and a note names those whose scores
differ); one row per scorer of a scored sample (a scorer whose value is a
dictionary gives one row per key, named ``scorer/key``). ``value`` is the score as stored, ``score``
the number Inspect's ``value_to_float`` makes of it (``C`` = 1, ``P`` = 0.5, ``I`` = ``N`` = 0, yes/true
= 1, no/false = 0, numbers as they are), which is what its ``accuracy()`` and ``stderr()`` average. The
grader of a model-graded scorer is its ``model`` (or ``grader_model``) parameter, else the evaluated
model (Inspect's default); a template or rubric (``template``, ``grader_template``, ``instructions``)
is hashed into the scorer's name. A score edited with Inspect's ``edit_score`` keeps its original in
``history[0]`` (no ``provenance``): the judge row holds that original (``final_value`` the edited value
Inspect's recomputed metrics use), and each edit with a ``provenance`` is a human row (scorer
``edit:<author>``; an edit that leaves the value ``UNCHANGED`` confirms it); the report notes that such
labels exist only on the items someone chose. A sample whose scores are all NaN (``Score.unscored``) is
``unscored``; a score's ``reason`` (refusal, format violation, grader error ...) is a column.
"""

from __future__ import annotations

import math

from ...core.errors import InputError
from . import base

FORMAT = "inspect_ai"

#: Inspect's sentinel for a field an edit leaves as it was.
UNCHANGED = "UNCHANGED"

#: The log format versions this reader knows (2 is the JSON log of 2024–25, 3 adds a message pool).
VERSIONS = (1, 2, 3)

_FLOAT = {**base.INSPECT_GRADES, "yes": 1.0, "no": 0.0, "true": 1.0, "false": 0.0}
_TEMPLATE_KEYS = ("template", "grader_template", "instructions", "prompt", "rubric")


def _grader(params: dict | None, eval_model: str | None, name: str):
    """(grader model, template hash) of a scorer from its parameters."""
    params = params or {}
    model = None
    for k in ("model", "grader_model", "judge_model", "grader"):
        m = params.get(k)
        if isinstance(m, dict):
            m = m.get("model") or m.get("name")
        if isinstance(m, list):
            m = ",".join(map(str, m))
        if m:
            model = str(m)
            break
    if model is None and str(name).startswith("model_graded"):
        model = eval_model                    # Inspect grades with the evaluated model by default
    tmpl = next((params[k] for k in _TEMPLATE_KEYS if params.get(k)), None)
    return model, base.short_hash(tmpl)


def _scorers(doc: dict) -> dict:
    """Scorer name → its parameters, from ``results.scores`` and ``eval.scorers``."""
    out = {}
    for s in ((doc.get("eval") or {}).get("scorers") or []):
        if isinstance(s, dict) and s.get("name"):
            out[s["name"]] = s.get("options") or {}
    for s in ((doc.get("results") or {}).get("scores") or []):
        if isinstance(s, dict) and s.get("name"):
            out[s["name"]] = {**out.get(s["name"], {}), **(s.get("params") or {})}
    return out


def _stored(doc: dict, reductions) -> dict:
    res = doc.get("results") or {}
    out = {}
    for k in ("total_samples", "completed_samples"):
        if k in res:
            out[k] = res[k]
    for s in res.get("scores") or []:
        for mname, m in (s.get("metrics") or {}).items():
            out[f"{s.get('name')}/{mname}"] = m.get("value") if isinstance(m, dict) else m
        if "scored_samples" in s:
            out[f"{s.get('name')}/scored_samples"] = s["scored_samples"]
    if reductions:
        out["reductions"] = {r.get("scorer"): {str(x.get("sample_id")): x.get("value") for x in r.get("samples") or []}
                             for r in reductions if isinstance(r, dict)}
    return out


def _check_version(doc: dict, name: str, where: str) -> int | None:
    v = doc.get("version")
    if v is None:
        return None
    if not isinstance(v, int) or v not in VERSIONS:
        raise InputError(f"unknown Inspect log version {v!r} (in {where})", source=name,
                         expected="log format version " + ", ".join(map(str, VERSIONS)),
                         fix="read it with a newer metaeval, or convert it with inspect_ai's `inspect log convert`")
    return v


def read(path, name: str, c: base.Collector, **_):
    with open(path, "rb") as fh:
        magic = fh.read(4)
    if magic[:2] == b"PK" or name.endswith(".eval"):
        doc, samples, reductions, journal = _read_zip(path, name)
    else:
        doc = base.parse_json(base.read_text(path, name), name)
        if not isinstance(doc, dict) or "eval" not in doc:
            raise InputError("not an Inspect log (no 'eval' object at the top)", source=name,
                             fix="pass the log as Inspect wrote it")
        _check_version(doc, name, "the log")
        samples = [(f"samples[{i}]", s) for i, s in enumerate(doc.get("samples") or [])]
        reductions, journal = doc.get("reductions"), False
    _rows(doc, samples, reductions, journal, name, c)


def _read_zip(path, name):
    z = base.open_zip(path, name)
    with z:
        names = z.namelist()
        journal = "header.json" not in names
        if not journal:
            doc = base.zip_json(z, "header.json", name)
            where = "header.json"
        elif "_journal/start.json" in names:
            doc = base.zip_json(z, "_journal/start.json", name)
            where = "_journal/start.json"
        else:
            raise InputError("an .eval archive without header.json or _journal/start.json", source=name,
                             expected="an Inspect .eval log", fix="check that this is an Inspect log")
        if not isinstance(doc, dict):
            raise InputError(f"{where} is not a JSON object", source=name)
        _check_version(doc, name, where)
        sample_names = sorted((n for n in names if n.startswith("samples/") and n.endswith(".json")),
                              key=_sample_order)
        samples = [(n, base.zip_json(z, n, name)) for n in sample_names]
        if not samples:  # journal summaries hold id, epoch and scores of every finished sample
            summ = sorted((n for n in names if n.startswith("_journal/summaries/") and n.endswith(".json")),
                          key=lambda n: int(n.rsplit("/", 1)[1][:-5]) if n.rsplit("/", 1)[1][:-5].isdigit() else 0)
            if not summ and "summaries.json" in names:
                summ = ["summaries.json"]
            for n in summ:
                part = base.zip_json(z, n, name)
                samples.extend((f"{n}[{i}]", s) for i, s in enumerate(part if isinstance(part, list) else []))
        reductions = base.zip_json(z, "reductions.json", name) if "reductions.json" in names else doc.get("reductions")
        if journal:
            # the last journal summary of results, when the run wrote one
            doc = dict(doc)
            doc.setdefault("status", "started")
    return doc, samples, reductions, journal


def _sample_order(n: str):
    stem = n[len("samples/"):-len(".json")]
    sid, _, ep = stem.rpartition("_epoch_")
    return (0, int(sid), int(ep) if ep.isdigit() else 0) if sid.isdigit() else (1, sid, int(ep) if ep.isdigit() else 0)


def _rows(doc, samples, reductions, journal, name, c: base.Collector):
    ev = doc.get("eval") or {}
    eval_model = ev.get("model")
    scorers = _scorers(doc)
    graders = {s: _grader(p, eval_model, s) for s, p in scorers.items()}
    config = ev.get("config") or {}
    status = doc.get("status")
    reducer = config.get("epochs_reducer")
    c.report.facts[name] = {"version": doc.get("version"), "status": status, "task": ev.get("task"),
                            "model": eval_model, "epochs": config.get("epochs") or 1,
                            "epochs_reducer": (reducer[0] if isinstance(reducer, list) and len(reducer) == 1
                                               else reducer) or "mean",
                            "dataset_samples": (ev.get("dataset") or {}).get("samples"),
                            "graders": {s: g[0] for s, g in graders.items() if g[0]}}
    c.report.stored[name] = _stored(doc, reductions)
    if journal:
        c.report.note(f"{name}: journal-only .eval (no header.json): the run did not finish writing its "
                      "log; the rows are the samples it had finished, and no stored results are compared")
    if status not in (None, "success") and samples:
        ds = (ev.get("dataset") or {}).get("samples")
        c.report.note(f"{name}: the run's status is {status!r}: {len(samples)} sample-epoch(s) logged"
                      + (f" of a dataset of {ds}" if ds else ""))
    if not samples:
        scored = [s.get("scored_samples") for s in (doc.get("results") or {}).get("scores") or []]
        total = next((x for x in scored if x), (doc.get("results") or {}).get("total_samples"))
        c.report.note(f"{name}: header only: the log holds no samples"
                      + (f" (its results report {total} scored samples)" if total else "")
                      + "; only its stored aggregates can be compared")
    edits = 0
    seen: dict = {}  # (id, epoch) -> the first record's scores: a second record of it is a duplicate
    differ = []
    for ordinal, (where, s) in enumerate(samples, start=1):
        c.at(where)
        if not isinstance(s, dict):
            raise InputError(f"{where} is not a sample object", source=name)
        key = (repr(s.get("id")), repr(s.get("epoch", 1)))
        if key in seen:
            c.fate("duplicate")
            if seen[key][1] != s.get("scores"):
                differ.append(f"{where} (first: {seen[key][0]})")
            continue
        seen[key] = (where, s.get("scores"))
        if s.get("error"):
            c.fate("errored")
            continue
        scores = s.get("scores") or {}
        if not scores:
            c.fate("unscored")
            continue
        values = [(sc if isinstance(sc, dict) else {"value": sc}).get("value") for sc in scores.values()]
        if all(isinstance(v, float) and math.isnan(v) for v in values):
            c.fate("unscored")                  # Score.unscored(): NaN, left out of metrics and reducers
            continue
        c.fate("read")
        sid, epoch = s.get("id"), s.get("epoch", 1)
        target = s.get("target")
        for sname, sc in scores.items():
            sc = sc if isinstance(sc, dict) else {"value": sc}
            model, thash = graders.get(sname) or _grader({}, eval_model, sname)
            history = [h for h in sc.get("history") or [] if isinstance(h, dict)]
            original = next((h for h in history if not h.get("provenance")), None)
            final = sc.get("value")
            # an edited score: the grader's own value is the original entry of its history
            value = original["value"] if original is not None and original.get("value") != UNCHANGED else final
            parts = value.items() if isinstance(value, dict) else [(None, value)]
            for key, v in parts:
                label = sname if key is None else f"{sname}/{key}"
                fv = final.get(key) if isinstance(final, dict) and key is not None else final
                c.row(ordinal, item=sid, scorer=base.scorer_id(label, model, thash), epoch=epoch,
                      value=_plain(v), score=_float(v), role="judge",
                      model=eval_model, record=where, scorer_name=label, grader_model=model,
                      template_hash=thash, answer=sc.get("answer"), explanation=sc.get("explanation"),
                      reason=sc.get("reason"), final_value=_plain(fv),
                      target=target if not isinstance(target, list) else "; ".join(map(str, target)),
                      sample_uuid=s.get("uuid"))
            running = value
            for h in history:
                prov = h.get("provenance")
                if not prov:
                    continue
                edits += 1
                author = prov.get("author") or "unknown"
                hv = running if h.get("value", UNCHANGED) == UNCHANGED else h.get("value")   # UNCHANGED: confirmed
                running = hv
                c.row(ordinal, item=sid, scorer=f"edit:{author}", epoch=epoch, value=_plain(hv), score=_float(hv),
                      role="human", model=eval_model, record=where, scorer_name=sname, grader_model=None,
                      template_hash=None, answer=None if h.get("answer") == UNCHANGED else h.get("answer"),
                      explanation=prov.get("reason"), reason=None, final_value=_plain(final), target=None,
                      sample_uuid=s.get("uuid"))
    if differ:
        c.report.note(f"{name}: {len(differ)} sample record(s) repeat an id and epoch with other scores "
                      f"(the first record is kept): {base.listing(differ)}")
    if edits:
        c.report.note(f"{name}: " + base.NONRANDOM_NOTE.format(what=f"{edits} Inspect score edit(s) in score history"))


def _plain(v):
    return str(v) if isinstance(v, (list, dict)) else v


def _float(v) -> float:
    return base.grade_score(v, _FLOAT)
