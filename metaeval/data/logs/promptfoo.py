"""promptfoo ``--output json`` exports.

One record per result (a test case run against one provider); one row per assertion in
``gradingResult.componentResults`` (value = ``pass``, score = the component's ``score``; item =
``testIdx``, model = the provider). The grader of an ``llm-rubric`` (and the other model-graded
assertions) is its ``provider`` when set, else promptfoo's default grading provider; the rubric text
is hashed into the scorer's name. A ``human`` assertion (a rating given in promptfoo's web view) is a
row of role ``human``, and the report notes that such ratings exist only on the results someone chose
to rate. Columns ``result_score`` and ``result_success`` carry the result's own score (the weighted mean
of its components, which promptfoo sums into each prompt's ``metrics.score``) and ``success``.
A result whose ``failureReason`` is 2 (an error, not a failed assertion) is ``errored``.
"""

from __future__ import annotations

from . import base

FORMAT = "promptfoo"

#: Assertion types graded by a model (promptfoo's model-graded assertions).
MODEL_GRADED = ("llm-rubric", "g-eval", "model-graded-closedqa", "model-graded-factuality", "factuality",
                "answer-relevance", "context-faithfulness", "context-recall", "context-relevance", "select-best",
                "search-rubric", "pi")


def read(path, name: str, c: base.Collector, **_):
    doc = base.parse_json(base.read_text(path, name), name)
    res = doc.get("results") if isinstance(doc, dict) else None
    results = res.get("results") if isinstance(res, dict) else res
    if not isinstance(results, list):
        from ...core.errors import InputError

        raise InputError("a promptfoo export without a results list", source=name,
                         expected="results.results[] (promptfoo --output json)", fix="re-export with promptfoo --output json")
    default_grader = (((doc.get("config") or {}).get("defaultTest") or {}).get("options") or {}).get("provider")
    if isinstance(default_grader, dict):
        default_grader = default_grader.get("id")
    humans = 0
    for ordinal, r in enumerate(results, start=1):
        c.at(f"results[{ordinal - 1}]")
        gr = r.get("gradingResult")
        if r.get("failureReason") == 2 or (r.get("error") and not gr):
            c.fate("errored")
            continue
        comps = (gr or {}).get("componentResults") or []
        if not comps:
            c.fate("unscored")
            continue
        c.fate("read")
        provider = r.get("provider")
        model = provider.get("id") if isinstance(provider, dict) else provider
        for comp in comps:
            a = comp.get("assertion") or {}
            atype = a.get("type") or "unknown"
            grader = None
            if atype in MODEL_GRADED:
                p = a.get("provider") or (a.get("options") or {}).get("provider") or default_grader
                grader = p.get("id") if isinstance(p, dict) else p
            value = a.get("value")
            thash = base.short_hash(value) if atype in MODEL_GRADED or atype == "human" else None
            role = "human" if atype == "human" else "judge"
            humans += role == "human"
            c.row(ordinal, item=r.get("testIdx"), scorer=base.scorer_id(atype, grader, thash), value=comp.get("pass"),
                  score=comp.get("score") if comp.get("score") is not None else None, role=role, model=model,
                  record=f"results[{ordinal - 1}]", assertion_type=atype,
                  assertion_value=None if value is None else str(value), grader_model=grader, template_hash=thash,
                  weight=float(a.get("weight", 1.0)), reason=comp.get("reason"), result_id=r.get("id"),
                  result_score=r.get("score"), result_success=r.get("success"), prompt_idx=r.get("promptIdx"))
    stored = {}
    if isinstance(res, dict):
        stats = res.get("stats") or {}
        stored = {k: stats[k] for k in ("successes", "failures", "errors") if k in stats}
        for p in res.get("prompts") or []:
            for k, v in (p.get("metrics") or {}).items():
                if isinstance(v, (int, float)):
                    stored[f"{p.get('provider')}/{k}"] = v
    c.report.stored[name] = stored
    c.report.facts[name] = {"evalId": doc.get("evalId"), "version": res.get("version") if isinstance(res, dict) else None}
    if humans:
        c.report.note(f"{name}: " + base.NONRANDOM_NOTE.format(what=f"{humans} promptfoo human rating(s)"))
