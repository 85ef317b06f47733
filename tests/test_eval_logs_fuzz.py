"""Hypothesis fuzz of read_eval_log: realistic corruptions of a valid log of every format.

A node of the log (any value at any depth) is replaced by another JSON value of another type, or a key
is deleted, or the file is cut short. The contract on every generated file: read_eval_log returns a
frame with the shared columns whose report accounts for every record (the fates of a file add up to its
records; the rows are the rows of the frame), or it raises :class:`metaeval.InputError` naming the
file; no other exception escapes.
"""

from __future__ import annotations

import copy
import json
import zipfile

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import metaeval
from metaeval.data.logs import base

FUZZ = settings(max_examples=60, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

_INSPECT = {"version": 2, "status": "success",
            "eval": {"model": "m", "config": {"epochs": 1, "epochs_reducer": ["mean"]},
                     "scorers": [{"name": "model_graded_fact", "options": {"model": "g", "template": "t"}}]},
            "results": {"scores": [{"name": "model_graded_fact", "params": {},
                                    "metrics": {"accuracy": {"value": 0.5}}}]},
            "samples": [{"id": 1, "epoch": 1, "target": "x",
                         "scores": {"model_graded_fact": {"value": "C", "history": [
                             {"value": "I", "provenance": {"author": "a"}}]}}},
                        {"id": 2, "epoch": 1, "scores": {"model_graded_fact": {"value": {"a": 1, "b": "I"}}}}],
            "reductions": [{"scorer": "model_graded_fact", "samples": [{"sample_id": 1, "value": 1.0}]}]}

#: One small valid document per format: (file name, JSON document or list of JSONL records).
LOGS = {
    "inspect_ai": ("log.json", _INSPECT),
    "lm_eval": ("samples_t_2026-01-01T00-00-00.000000.jsonl",
                [{"doc_id": 0, "metrics": ["exact_match"], "filter": "none", "exact_match": 1.0, "target": "3"},
                 {"doc_id": 1, "metrics": ["exact_match"], "filter": "strict", "exact_match": 0.0}]),
    "openai_evals": ("run.jsonl", [{"spec": {"completion_fns": ["m"], "run_config": {"eval_spec": {"cls": "a:B"}}}},
                                   {"final_report": {"accuracy": 0.5}},
                                   {"run_id": "r", "event_id": 1, "sample_id": "s.0", "type": "match",
                                    "data": {"correct": True, "expected": "x"}},
                                   {"run_id": "r", "data_source_idx": 0, "item": {"correct_label": "L"},
                                    "sample": {"sampled_model_name": "m"}, "grades": {"g": 1}, "passes": {"g": True}}]),
    "promptfoo": ("export.json", {"evalId": "e", "config": {}, "results": {"version": 3, "stats": {"successes": 1},
              "prompts": [{"provider": "p", "metrics": {"score": 1}}],
              "results": [{"id": "r", "testIdx": 0, "provider": {"id": "p"}, "score": 1, "success": True,
                           "gradingResult": {"componentResults": [
                               {"pass": True, "score": 1, "assertion": {"type": "llm-rubric", "value": "v"}},
                               {"pass": False, "score": 0, "assertion": {"type": "human"}}]}}]}}),
    "deepeval": ("run.json", {"testRunData": {"testPassed": 1, "metricsScores": [{"metric": "F", "scores": [1]}],
                 "testCases": [{"name": "c", "success": True,
                                "metricsData": [{"name": "F", "score": 1.0, "success": True, "evaluationModel": "g"}],
                                "trace": {"llmSpans": [{"uuid": "u", "metricsData": [{"name": "F", "score": 0.5}]}]}}]}}),
    "fastchat": ("pair.jsonl", [{"question_id": 1, "model_1": "a", "model_2": "b", "g1_winner": "model_1",
                                 "g2_winner": "tie", "judge": ["gpt-4", "pair-v2"], "turn": 1},
                                {"question_id": 2, "model": "a", "judge": ["gpt-4", "single-v1"], "score": 7}]),
    "label_studio": ("ls.json", [{"id": 1, "data": {}, "agreement": 100.0,
                                  "annotations": [{"id": 1, "completed_by": {"id": 3, "email": "e"},
                                                   "result": [{"from_name": "c", "value": {"choices": ["yes"]}},
                                                              {"from_name": "r", "value": {"rating": 4}},
                                                              {"from_name": "b", "value": {"rectanglelabels": ["x"]}}]}],
                                  "predictions": [{"model_version": "v", "score": 0.5,
                                                   "result": [{"from_name": "c", "value": {"choices": ["no"]}}]}]}]),
    "prodigy": ("db.jsonl", [{"text": "t", "_input_hash": 1, "_task_hash": 2, "answer": "accept",
                              "_annotator_id": "a", "meta": {"score": 0.3}},
                             {"text": "t", "_input_hash": 1, "_task_hash": 2, "answer": "reject", "_annotator_id": "a"},
                             {"text": "u", "_input_hash": 3, "_task_hash": 4, "answer": "accept", "accept": ["X"],
                              "options": [{"id": "X"}], "_annotator_id": "b"}]),
    "argilla": ("records.json", [{"id": "r", "responses": {"q": [{"value": "yes", "user_id": "u"}]},
                                  "suggestions": {"q": {"value": "no", "score": 0.4, "agent": "m"}},
                                  "q2.responses": ["a"], "q2.responses.users": ["u"], "q2.suggestion": "a"}]),
    "eee": ("x_samples.jsonl", [{"evaluation_id": "e", "sample_id": "s1", "evaluation_name": "b",
                                 "model_id": "m", "evaluation": {"score": 1.0, "is_correct": True}}]),
}

_VALUES = [None, 0, 1.5, -1, "", "x", "C", True, [], [1, "a"], {}, {"a": None}, [{}], float(10 ** 30)]


def _paths(node, prefix=()):
    out = [prefix]
    if isinstance(node, dict):
        for k, v in node.items():
            out += _paths(v, prefix + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += _paths(v, prefix + (i,))
    return out


def _mutate(doc, which: int, action: str, value):
    doc = copy.deepcopy(doc)
    paths = _paths(doc)[1:] or [()]
    path = paths[which % len(paths)]
    if not path:
        return value if action == "replace" else doc
    parent = doc
    for p in path[:-1]:
        parent = parent[p]
    if action == "delete" and isinstance(parent, dict):
        del parent[path[-1]]
    elif action == "delete" and isinstance(parent, list):
        parent.pop(path[-1])
    else:
        parent[path[-1]] = value
    return doc


def _write(tmp_path, name, doc, cut):
    p = tmp_path / name
    if name.endswith(".jsonl"):
        text = "".join(json.dumps(r) + "\n" for r in (doc if isinstance(doc, list) else [doc]))
    else:
        text = json.dumps(doc)
    data = text.encode("utf-8")
    if cut is not None:
        data = data[: int(len(data) * cut)]
    p.write_bytes(data)
    return p


def _check(p, fmt):
    try:
        f = metaeval.read_eval_log(p, format=fmt)
    except metaeval.InputError as exc:
        assert str(p) in str(exc) or exc.source is not None, str(exc)
        assert "\n" not in str(exc)
        return
    assert list(f.columns[:len(base.COLUMNS)]) == list(base.COLUMNS)
    rep = f.attrs["report"]
    for src, n in rep.n_records.items():
        assert sum(v for (s, _), v in rep.counts.items() if s == src) == n
    assert rep.n_rows == len(f)


@pytest.mark.parametrize("fmt", list(LOGS))
@FUZZ
@given(which=st.integers(0, 10 ** 6), action=st.sampled_from(["replace", "replace", "delete", "cut"]),
       value=st.sampled_from(_VALUES), cut=st.floats(0.0, 1.0))
def fuzz_every_format_test(tmp_path, fmt, which, action, value, cut):
    name, doc = LOGS[fmt]
    if action == "cut":
        p = _write(tmp_path, name, doc, cut)
    else:
        p = _write(tmp_path, name, _mutate(doc, which, action, value), None)
    _check(p, fmt)


def valid_documents_read_test(tmp_path):
    # the unmutated documents read, each in its own format, told from the content
    for fmt, (name, doc) in LOGS.items():
        p = _write(tmp_path, name, doc, None)
        f = metaeval.read_eval_log(p)
        assert set(f["format"]) == {fmt} and len(f) > 0, fmt


@FUZZ
@given(which=st.integers(0, 10 ** 6), action=st.sampled_from(["replace", "delete"]), value=st.sampled_from(_VALUES),
       member=st.sampled_from(["header.json", "samples/1_epoch_1.json", "reductions.json"]), cut=st.floats(0.05, 1.0))
def fuzz_eval_zip_test(tmp_path, which, action, value, member, cut):
    header = {k: v for k, v in _INSPECT.items() if k not in ("samples", "reductions")}
    parts = {"header.json": header, "samples/1_epoch_1.json": _INSPECT["samples"][0],
             "reductions.json": _INSPECT["reductions"]}
    parts[member] = _mutate(parts[member], which, action, value)
    p = tmp_path / "run.eval"
    with zipfile.ZipFile(p, "w", compression=zipfile.ZIP_DEFLATED) as z:
        for n, d in parts.items():
            z.writestr(n, json.dumps(d))
    if cut < 1.0:
        p.write_bytes(p.read_bytes()[: int(p.stat().st_size * cut)])
    _check(p, "inspect_ai")
