"""deepeval test runs (``.deepeval/.latest_test_run.json``, or the bare ``TestRun`` body).

One record per test case (``testCases`` and ``conversationalTestCases``); one row per metric in its
``metricsData`` (level ``test_case``) and in the ``metricsData`` of its trace's spans (level
``agentSpans``, ``llmSpans`` ...; column ``span``). value = score = the metric's ``score``; ``passed``
its ``success``; the grader is ``evaluationModel``. A metric without a score is a row with a NaN score
and ``error`` True (deepeval counts it among ``errors``). ``test_success`` is the test case's
``success`` (what ``testPassed`` and ``testFailed`` count).
"""

from __future__ import annotations

from . import base

FORMAT = "deepeval"

_SPANS = ("agentSpans", "llmSpans", "retrieverSpans", "toolSpans", "baseSpans")


def read(path, name: str, c: base.Collector, **_):
    doc = base.parse_json(base.read_text(path, name), name)
    run = doc.get("testRunData", doc) if isinstance(doc, dict) else {}
    cases = list(run.get("testCases") or []) + list(run.get("conversationalTestCases") or [])
    for ordinal, tc in enumerate(cases, start=1):
        c.at(f"testCases[{ordinal - 1}]")
        metrics = [("test_case", None, m) for m in tc.get("metricsData") or []]
        trace = tc.get("trace") or {}
        for kind in _SPANS:
            for span in trace.get(kind) or []:
                for m in span.get("metricsData") or []:
                    metrics.append((kind, span.get("uuid") or span.get("name"), m))
        if not metrics:
            c.fate("unscored")
            continue
        c.fate("read")
        item = tc.get("name") if tc.get("name") is not None else tc.get("order", ordinal - 1)
        for level, span, m in metrics:
            s = m.get("score")
            c.row(ordinal, item=item, scorer=base.scorer_id(m.get("name"), m.get("evaluationModel")), value=s,
                  score=s if s is not None else float("nan"), role="judge", model=None,
                  record=f"testCases[{ordinal - 1}]", metric=m.get("name"), grader_model=m.get("evaluationModel"),
                  level=level, span=span, passed=m.get("success"), threshold=m.get("threshold"),
                  error=s is None or m.get("success") is None or bool(m.get("error")), reason=m.get("reason"),
                  test_success=tc.get("success"))
    c.report.stored[name] = {k: run[k] for k in ("testPassed", "testFailed", "evaluationCost", "runDuration")
                             if k in run}
    c.report.stored[name]["metricsScores"] = {m.get("metric"): {k: m.get(k) for k in ("scores", "passes", "fails", "errors")}
                                              for m in run.get("metricsScores") or []}
