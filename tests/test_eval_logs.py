"""read_eval_log on generated logs: formats without public examples, joins across sources, repeats,
non-random human labels, and hostile files (each a one-line InputError or a fate, never a traceback).

Expected numbers are counted by hand from the generated records (said beside each), or come from the
``krippendorff`` package (0.15) and statsmodels' ``fleiss_kappa`` on the same labels.
"""

from __future__ import annotations

import json
import zipfile

import numpy as np
import pandas as pd
import pytest

import metaeval
from metaeval.cli import main
from metaeval.data import logs
from metaeval.data.logs import base


def _write(path, text):
    path.write_text(text, encoding="utf-8")
    return path


def _jsonl(path, rows):
    return _write(path, "".join(json.dumps(r) + "\n" for r in rows))


def _accounted(frame):
    rep = frame.attrs["report"]
    for src, n in rep.n_records.items():
        assert sum(v for (s, _), v in rep.counts.items() if s == src) == n
    return rep


def inspect_log(ids, grades, *, scorer="model_graded_qa", epochs=1, version=2, history=None, errors=()):
    """An Inspect JSON log: one sample per id and epoch, ``grades[i][e]`` its grade."""
    samples = []
    for i, sid in enumerate(ids):
        for e in range(epochs):
            g = grades[i][e] if epochs > 1 else grades[i]
            sc = {"value": g, "answer": "x", "explanation": "GRADE: " + str(g)}
            if history and sid in history:
                sc["history"] = history[sid]
            s = {"id": sid, "epoch": e + 1, "input": f"q{sid}", "target": "t", "scores": {scorer: sc}}
            if sid in errors:
                s = {"id": sid, "epoch": e + 1, "error": {"message": "boom"}}
            samples.append(s)
    return {"version": version, "status": "success",
            "eval": {"task": "t", "model": "openai/gpt-4o", "config": {"epochs": epochs},
                     "scorers": [{"name": scorer, "options": {"model": "anthropic/claude-x", "template": "T {q}"}}]},
            "results": {"scores": [{"name": scorer, "params": {"model": "anthropic/claude-x", "template": "T {q}"},
                                    "metrics": {}}]},
            "samples": samples}


def label_studio_export(ids, choices_by_annotator, *, cancelled=()):
    """A Label Studio export of choice annotations: ``choices_by_annotator[a][i]`` for task ``ids[i]``."""
    tasks = []
    for i, tid in enumerate(ids):
        anns = []
        for a, choices in choices_by_annotator.items():
            if choices[i] is None:
                continue
            anns.append({"id": 100 * i + a, "completed_by": a, "was_cancelled": (tid, a) in cancelled,
                         "result": [{"from_name": "verdict", "to_name": "text", "type": "choices",
                                     "value": {"choices": [choices[i]]}}]})
        tasks.append({"id": tid, "data": {"text": f"q{tid}"}, "annotations": anns, "predictions": []})
    return tasks


# --------------------------------------------------------------------------------------------
# formats
# --------------------------------------------------------------------------------------------

def inspect_scorer_identity_and_fates_test(tmp_path):
    p = _write(tmp_path / "log.json", json.dumps(inspect_log(["1", "2", "3"], ["C", "P", "I"], errors=("3",))))
    f = metaeval.read_eval_log(p)
    rep = _accounted(f)
    # by hand: samples 1, 2 read; 3 errored
    assert rep.counts[(str(p), "read")] == 2 and rep.counts[(str(p), "errored")] == 1
    # Inspect's value_to_float: C = 1, P = 0.5
    assert f["score"].tolist() == [1.0, 0.5] and f["value"].tolist() == ["C", "P"]
    sid = base.short_hash("T {q}")
    assert set(f["scorer"]) == {f"model_graded_qa@anthropic/claude-x#{sid}"}
    assert set(f["grader_model"]) == {"anthropic/claude-x"}


def inspect_score_edits_are_human_labels_test(tmp_path):
    # tests/reference/eval_log_reducers.json "edited_score": a match score "C" edited by Inspect's own
    # edit_score to "I" (author ana), then confirmed with value UNCHANGED (author ben); Inspect's
    # recomputed accuracy after the edits is 0.0
    from pathlib import Path

    ref = json.loads((Path(__file__).resolve().parent / "reference" / "eval_log_reducers.json").read_text())
    edited = ref["edited_score"]
    doc = inspect_log(["1", "2"], ["C", "C"], scorer="match")
    doc["samples"][0]["scores"]["match"] = edited["score"]
    f = metaeval.read_eval_log(_write(tmp_path / "log.json", json.dumps(doc)))
    judge = f[f["role"] == "judge"]
    # the judge row holds the grader's original value (history[0]), final_value the edited one
    assert judge[["item", "value", "score", "final_value"]].values.tolist() == [["1", "C", 1.0, "I"], ["2", "C", 1.0, "C"]]
    hum = f[f["role"] == "human"]
    assert hum[["item", "scorer", "value", "score"]].values.tolist() == [["1", "edit:ana", "I", 0.0],
                                                                          ["1", "edit:ben", "I", 0.0]]
    # what Inspect's metric uses after the edit: the final value (accuracy 0.0 on that one-sample log)
    assert base.grade_score(judge["final_value"].iloc[0], base.INSPECT_GRADES) == edited["metrics_after_edit"]["accuracy"]
    note = " ".join(f.attrs["report"].notes)
    assert "not a random sample" in note and "estimate_from_validation" in note


def inspect_unscored_nan_test(tmp_path):
    # Score.unscored(): value NaN (written as the JSON constant NaN), left out of Inspect's metrics
    doc = inspect_log(["1", "2"], ["C", "C"], scorer="match")
    doc["samples"][1]["scores"]["match"] = {"value": float("nan"), "reason": "refusal"}
    f = metaeval.read_eval_log(_write(tmp_path / "log.json", json.dumps(doc)))
    rep = _accounted(f)
    assert dict((k[1], v) for k, v in rep.counts.items()) == {"read": 1, "unscored": 1}


def inspect_eval_zip_and_journal_only_test(tmp_path):
    doc = inspect_log(["1", "2"], [["I", "C"], ["C", "C"]], scorer="match", epochs=2)
    header = {k: v for k, v in doc.items() if k != "samples"}
    p = tmp_path / "run.eval"
    with zipfile.ZipFile(p, "w") as z:
        z.writestr("header.json", json.dumps(header))
        z.writestr("_journal/start.json", json.dumps({"version": 2, "eval": doc["eval"]}))
        for s in doc["samples"]:
            z.writestr(f"samples/{s['id']}_epoch_{s['epoch']}.json", json.dumps(s))
    f = metaeval.read_eval_log(p)
    assert len(f) == 4 and sorted(f["epoch"].unique()) == [1, 2]
    # the epochs as the repeated-samples input of score_correlation (items x epochs)
    m = logs.epoch_matrix(f)
    assert m.to_numpy().tolist() == [[0.0, 1.0], [1.0, 1.0]]
    # journal-only: no header.json, the samples still read, and a note says so
    q = tmp_path / "journal.eval"
    with zipfile.ZipFile(p) as src, zipfile.ZipFile(q, "w") as z:
        for n in src.namelist():
            if n != "header.json":
                z.writestr(n, src.read(n))
    g = metaeval.read_eval_log(q)
    assert len(g) == 4 and any("journal-only" in n for n in g.attrs["report"].notes)


def repeats_feed_score_correlation_and_icc_test(tmp_path):
    # 30 items, 3 epochs of a judge; the human in a Label Studio export (rating control)
    rng = np.random.default_rng(3)
    truth = rng.integers(1, 6, 30)
    epochs = np.clip(truth[:, None] + rng.integers(-1, 2, (30, 3)), 1, 5)
    samples = [{"id": str(i), "epoch": e + 1, "scores": {"rubric": {"value": int(epochs[i, e])}}}
               for i in range(30) for e in range(3)]
    doc = {"version": 2, "status": "success", "eval": {"model": "m", "config": {"epochs": 3}}, "results": {},
           "samples": samples}
    f = metaeval.read_eval_log(_write(tmp_path / "judge.json", json.dumps(doc)))
    m = logs.epoch_matrix(f)
    assert m.shape == (30, 3)
    human = pd.Series(truth.astype(float), index=[str(i) for i in range(30)])
    a = metaeval.score_correlation(human, m, ci_method=None, samples="mean")
    # by hand: Pearson of the human with the mean of the epochs (scipy)
    from scipy.stats import pearsonr
    ref = pearsonr(truth, epochs.mean(axis=1)).statistic
    assert a.estimate == pytest.approx(ref, abs=1e-12)
    # ICC over the epochs: the long frame as it is (targets = item, raters = epoch)
    res = metaeval.icc(f, targets="item", raters="epoch", ratings="score", kind="ICC2", ci_method=None)
    pingouin = pytest.importorskip("pingouin")
    pg = pingouin.intraclass_corr(f, targets="item", raters="epoch", ratings="score").set_index("Type")
    assert res.estimate == pytest.approx(pg.loc["ICC(A,1)", "ICC"], abs=1e-10)     # ICC2 = ICC(A,1)
    # grading noise from the same frame: the reliability of one grading is ICC(A,1) (absolute agreement
    # over items x epochs), and the components are the two-way random ANOVA ones pingouin's ICC uses
    g = metaeval.grading_noise(f, item="item", run="epoch", score="score")
    assert g.reliability == pytest.approx(pg.loc["ICC(A,1)", "ICC"], abs=1e-10)
    assert g.reliability_mean == pytest.approx(pg.loc["ICC(A,k)", "ICC"], abs=1e-10)


def promptfoo_human_rating_test(tmp_path):
    comp = [{"pass": True, "score": 1, "reason": "ok", "assertion": {"type": "llm-rubric", "value": "polite",
                                                                     "provider": "openai:gpt-4o"}},
            {"pass": False, "score": 0, "reason": "rated", "assertion": {"type": "human"}}]
    results = [{"id": "r1", "testIdx": 0, "promptIdx": 0, "provider": {"id": "openai:gpt-5"}, "score": 0.5,
                "success": False, "gradingResult": {"pass": False, "score": 0.5, "componentResults": comp}},
               {"id": "r2", "testIdx": 1, "promptIdx": 0, "provider": {"id": "openai:gpt-5"}, "error": "timeout",
                "failureReason": 2, "gradingResult": None}]
    doc = {"evalId": "eval-x", "results": {"version": 3, "results": results, "stats": {}}, "config": {}}
    f = metaeval.read_eval_log(_write(tmp_path / "export.json", json.dumps(doc)))
    rep = _accounted(f)
    assert dict((k[1], v) for k, v in rep.counts.items()) == {"read": 1, "errored": 1}
    assert f.set_index("role")["scorer"].to_dict() == {"judge": f"llm-rubric@openai:gpt-4o#{base.short_hash('polite')}",
                                                       "human": "human"}
    assert any("not a random sample" in n for n in rep.notes)


def argilla_nested_and_flat_test(tmp_path):
    nested = [{"id": "a", "fields": {"text": "t"}, "status": "completed",
               "responses": {"label": [{"value": "yes", "user_id": "u1"}, {"value": "no", "user_id": "u2",
                                                                           "status": "discarded"}]},
               "suggestions": {"label": {"value": "yes", "score": 0.9, "agent": "gpt-4o"}}},
              {"id": "b", "fields": {"text": "u"}, "responses": {}, "suggestions": {}}]
    f = metaeval.read_eval_log(_write(tmp_path / "records.json", json.dumps(nested)))
    rep = _accounted(f)
    assert f["format"].iloc[0] == "argilla"
    assert f[["item", "scorer", "role", "value", "score"]].values.tolist() == [
        ["a", "annotator:u1", "human", "yes", 1.0], ["a", "agent:gpt-4o", "judge", "yes", 1.0]]
    assert dict((k[1], v) for k, v in rep.counts.items()) == {"read": 1, "unscored": 1}
    assert any("discarded" in n for n in rep.notes)
    flat = [{"id": "c", "text": "t", "label.responses": ["good", "bad"], "label.responses.users": ["u1", "u2"],
             "label.suggestion": "good", "label.suggestion.agent": "judge-v1", "label.suggestion.score": 0.7}]
    g = metaeval.read_eval_log(_jsonl(tmp_path / "records.jsonl", flat))
    assert g[["scorer", "value", "score"]].values.tolist() == [
        ["annotator:u1", "good", 1.0], ["annotator:u2", "bad", 0.0], ["agent:judge-v1", "good", 1.0]]


def label_studio_three_annotators_agreement_test(tmp_path):
    # 40 tasks, 3 annotators, choices Correct / Incorrect / Partly (one rating missing, one cancelled):
    # rater_agreement on the rows equals the krippendorff package and statsmodels' fleiss_kappa
    import krippendorff
    from statsmodels.stats.inter_rater import fleiss_kappa

    rng = np.random.default_rng(11)
    truth = rng.choice(["Correct", "Incorrect", "Partly"], 40, p=[0.5, 0.35, 0.15])
    by = {}
    for a in (1, 2, 3):
        noisy = np.where(rng.random(40) < 0.25, rng.choice(["Correct", "Incorrect", "Partly"], 40), truth)
        by[a] = list(noisy)
    by[3][5] = None
    tasks = label_studio_export(list(range(1, 41)), by, cancelled={(7, 2)})
    labels = {"Correct": 2, "Partly": 1, "Incorrect": 0}
    f = metaeval.read_eval_log(_write(tmp_path / "export.json", json.dumps(tasks)), labels=labels)
    rep = _accounted(f)
    assert dict((k[1], v) for k, v in rep.counts.items()) == {"read": 118, "cancelled": 1}
    res = metaeval.rater_agreement(f, item="item", rater="scorer", value="score", ci_method=None,
                                   statistics=["krippendorff_alpha", "fleiss_kappa"]).to_frame().set_index("statistic")
    m = f.pivot_table(index="scorer", columns="item", values="score", aggfunc="first").to_numpy()
    assert res["estimate"].filter(like="krippendorff").iloc[0] == pytest.approx(
        krippendorff.alpha(reliability_data=m, level_of_measurement="nominal"), abs=1e-12)
    full = f.groupby("item").filter(lambda g: len(g) == 3)           # statsmodels: 3 ratings per task
    tab = full.pivot_table(index="item", columns="score", values="scorer", aggfunc="count", fill_value=0).to_numpy()
    sub = metaeval.rater_agreement(full, item="item", rater="scorer", value="score", ci_method=None,
                                   statistics=["fleiss_kappa"]).to_frame()["estimate"].iloc[0]
    assert sub == pytest.approx(fleiss_kappa(tab), abs=1e-12)


def prodigy_duplicates_test(tmp_path):
    rows = [{"text": "a", "_input_hash": 1, "_task_hash": 11, "answer": "accept", "_annotator_id": "x"},
            {"text": "a", "_input_hash": 1, "_task_hash": 11, "answer": "reject", "_annotator_id": "x"},
            {"text": "a", "_input_hash": 1, "_task_hash": 11, "answer": "ignore", "_annotator_id": "y"},
            {"text": "b", "_input_hash": 2, "_task_hash": 22, "_annotator_id": "y"}]
    f = metaeval.read_eval_log(_jsonl(tmp_path / "db.jsonl", rows))
    rep = _accounted(f)
    assert dict((k[1], v) for k, v in rep.counts.items()) == {"read": 2, "duplicate": 1, "unscored": 1}
    assert f["value"].tolist() == ["accept", "ignore"] and np.isnan(f["score"].iloc[1])
    assert any("differ from the first" in n for n in rep.notes)


def judges_feed_the_panel_test(tmp_path):
    # two graders in one inspect log and a human export: judge_panel sees each grader as a judge
    rng = np.random.default_rng(5)
    truth = rng.integers(0, 2, 40)
    j1 = np.where(rng.random(40) < 0.2, 1 - truth, truth)
    j2 = np.where(rng.random(40) < 0.4, 1 - truth, truth)
    samples = [{"id": str(i), "epoch": 1, "scores": {"a": {"value": "CI"[1 - j1[i]]}, "b": {"value": "CI"[1 - j2[i]]}}}
               for i in range(40)]
    doc = {"version": 2, "eval": {"model": "m"}, "results": {}, "samples": samples}
    f = metaeval.read_eval_log(_write(tmp_path / "judges.json", json.dumps(doc)))
    human = label_studio_export(list(range(40)), {1: ["Correct" if t else "Incorrect" for t in truth]})
    h = metaeval.read_eval_log(_write(tmp_path / "human.json", json.dumps(human)))
    panel = metaeval.judge_panel(h, logs.judges(f), on="item", label="score", statistic="observed_agreement",
                                 ci_method=None)
    est = panel.to_frame().set_index("judge")["estimate"]
    # by hand: the share of items where each grader equals the human
    assert est["a"] == pytest.approx(np.mean(j1 == truth)) and est["b"] == pytest.approx(np.mean(j2 == truth))


# --------------------------------------------------------------------------------------------
# across sources: a judge log and a human export on the same sample ids
# --------------------------------------------------------------------------------------------

def _cross_source(tmp_path):
    ids = [str(i) for i in range(1, 21)]
    grades = ["C" if i % 3 else "I" for i in range(1, 21)]
    judge = _write(tmp_path / "judge.json", json.dumps(inspect_log(ids, grades, errors=("20",))))
    human_labels = ["Correct" if (i % 3 or i == 6) else "Incorrect" for i in range(1, 21)]
    human_labels[0] = None                                               # task 1 not annotated
    tasks = label_studio_export([int(i) for i in ids] + [21], {4: human_labels + ["Correct"]})
    human = _write(tmp_path / "human.json", json.dumps(tasks))
    return judge, human


def cross_source_align_accounts_for_every_record_test(tmp_path):
    judge, human = _cross_source(tmp_path)
    p = metaeval.align(human, judge, on="item", label="score")
    rep = p.report
    # by hand: human rows = tasks 2..21 (20); judge rows = samples 1..19 (20 is errored, no row)
    assert rep.n_input == {"reference": 20, "candidate": 19}
    assert rep.counts[("reference", "matched")] == 18 and rep.counts[("reference", "unmatched")] == 2   # 20, 21
    assert rep.counts[("candidate", "matched")] == 18 and rep.counts[("candidate", "unmatched")] == 1   # 1
    assert rep.sources == {"reference": str(human), "candidate": str(judge)}
    # item 6: the human says Correct, the judge I; every other matched item agrees
    assert int((p.reference != p.candidate).sum()) == 1
    # and the log's own accounting: 20 samples, 19 read, 1 errored
    f = metaeval.read_eval_log(judge)
    assert dict((k[1], v) for k, v in f.attrs["report"].counts.items()) == {"read": 19, "errored": 1}


def cross_source_cli_agree_test(tmp_path, capsys):
    judge, human = _cross_source(tmp_path)
    assert main(["agree", str(human), str(judge), "--on", "item", "--label", "score", "--ci-method", "none",
                 "--format", "csv"]) == 0
    out = capsys.readouterr()
    table = pd.read_csv(__import__("io").StringIO(out.out)).set_index("statistic")
    assert table.loc["observed_agreement", "estimate"] == pytest.approx(17 / 18)
    assert "aligned 18 pairs" in out.err and "2 unmatched" in out.err


def cli_inspect_names_format_and_accounting_test(tmp_path, capsys):
    judge, _ = _cross_source(tmp_path)
    assert main(["inspect", str(judge)]) == 0
    out = capsys.readouterr().out
    assert "kind: eval_log" in out and "format: inspect_ai" in out and "records: 20 (read 19, errored 1)" in out


def study_eval_log_kind_test(tmp_path):
    judge, human = _cross_source(tmp_path)
    study = tmp_path / "s.toml"
    _write(study, f"""n_resamples = 200
[data.d]
kind = "eval_log"
reference = "{human.name}"
candidate = "{judge.name}"

[[analysis]]
type = "agreement"
data = "d"
""")
    metaeval.run_study(study, tmp_path / "out")
    res = json.loads((tmp_path / "out" / "results.json").read_text())
    text = json.dumps(res)
    assert "observed_agreement" in text and (tmp_path / "out" / "report.md").exists()


# --------------------------------------------------------------------------------------------
# hostile logs
# --------------------------------------------------------------------------------------------

def _one_line(exc):
    msg = str(exc.value)
    assert "\n" not in msg and "Traceback" not in msg
    return msg


def truncated_zip_test(tmp_path):
    p = tmp_path / "run.eval"
    with zipfile.ZipFile(p, "w") as z:
        z.writestr("header.json", json.dumps({"version": 2, "eval": {}, "results": {}}))
        z.writestr("samples/1_epoch_1.json", json.dumps({"id": 1, "epoch": 1, "scores": {}}) * 50)
    data = p.read_bytes()
    p.write_bytes(data[: len(data) // 2])
    with pytest.raises(metaeval.InputError) as e:
        metaeval.read_eval_log(p)
    assert "truncated" in _one_line(e) and str(p) in str(e.value)


def journal_only_without_anything_test(tmp_path):
    p = tmp_path / "empty.eval"
    with zipfile.ZipFile(p, "w") as z:
        z.writestr("_journal/start.json", json.dumps({"version": 2, "eval": {"model": "m"}}))
    f = metaeval.read_eval_log(p)
    assert len(f) == 0 and any("journal-only" in n for n in f.attrs["report"].notes)


def unknown_version_test(tmp_path):
    doc = inspect_log(["1"], ["C"], version=9)
    with pytest.raises(metaeval.InputError) as e:
        metaeval.read_eval_log(_write(tmp_path / "v9.json", json.dumps(doc)))
    assert "unknown Inspect log version 9" in _one_line(e)


def huge_json_refused_from_its_size_test(tmp_path, monkeypatch):
    # the limit lowered to 1 kB stands in for a 1 GB file: refused by size, before any parsing
    doc = inspect_log([str(i) for i in range(40)], ["C"] * 40)
    p = _write(tmp_path / "big.json", json.dumps(doc))
    monkeypatch.setattr(base, "MAX_LOG_BYTES", 1024)
    calls, loads = [], json.loads
    monkeypatch.setattr(base, "parse_json", lambda *a, **k: calls.append(1) or loads(a[0]))
    with pytest.raises(metaeval.InputError) as e:
        metaeval.read_eval_log(p)
    assert "more than the 1024 bytes" in _one_line(e) and not calls
    monkeypatch.setenv("METAEVAL_MAX_LOG_BYTES", str(10 ** 7))
    assert len(metaeval.read_eval_log(p)) == 40


def gzip_log_stops_decompressing_at_the_log_limit_test(tmp_path, monkeypatch):
    """A gzipped JSONL log that expands past MAX_LOG_BYTES: refused once the stream passes that limit
    (not after the general decompression bound, twice as high by default), naming the log knob."""
    import gzip

    from metaeval.data import io as mio

    rows = [{"question_id": i, "model": "m", "judge": ["gpt-4", "single-v1"], "score": 7, "turn": 1,
             "pad": "x" * 900} for i in range(400)]
    p = tmp_path / "big.jsonl.gz"
    p.write_bytes(gzip.compress("".join(json.dumps(r) + "\n" for r in rows).encode(), mtime=0))
    assert p.stat().st_size < 20_000
    monkeypatch.setattr(base, "MAX_LOG_BYTES", 100_000)
    monkeypatch.setattr(mio, "_CHUNK", 16_384)
    read, real = [], gzip.GzipFile.read
    monkeypatch.setattr(gzip.GzipFile, "read", lambda self, *a: read.append(1) or real(self, *a))
    with pytest.raises(metaeval.InputError) as e:
        metaeval.read_eval_log(p)
    msg = _one_line(e)
    assert "more than the 100000 bytes a log may have" in msg and "METAEVAL_MAX_LOG_BYTES" in str(e.value)
    assert 100_000 // 16_384 < len(read) <= 100_000 // 16_384 + 3  # stopped just past the limit (of 370 kB)
    monkeypatch.setattr(base, "MAX_LOG_BYTES", 10 ** 6)
    assert len(metaeval.read_eval_log(p)) == 400


def zip_member_too_large_test(tmp_path, monkeypatch):
    p = tmp_path / "bomb.eval"
    with zipfile.ZipFile(p, "w", compression=zipfile.ZIP_DEFLATED) as z:
        z.writestr("header.json", json.dumps({"version": 2, "eval": {}}))
        z.writestr("samples/1_epoch_1.json", " " * 200_000)          # compresses to almost nothing
    monkeypatch.setattr(base, "MAX_LOG_BYTES", 100_000)
    with pytest.raises(metaeval.InputError) as e:
        metaeval.read_eval_log(p)
    assert "samples/1_epoch_1.json" in _one_line(e)


def mixed_folder_test(tmp_path):
    judge, human = _cross_source(tmp_path)
    _write(tmp_path / "notes.json", json.dumps({"hello": 1}))
    _write(tmp_path / "README.md", "# not a log")
    _jsonl(tmp_path / "single.jsonl", [{"question_id": 1, "model": "m", "judge": ["gpt-4", "single-v1"],
                                        "score": 7, "turn": 1}])
    f = metaeval.read_eval_log(tmp_path)
    rep = _accounted(f)
    assert set(f["format"]) == {"inspect_ai", "label_studio", "fastchat"}
    assert rep.counts[(str(tmp_path / "notes.json"), "unrecognized")] == 1
    assert rep.facts["not read"] == ["README.md"]
    assert any("several formats" in n for n in rep.notes)
    # one format asked for: a file of another is a one-line error naming it
    with pytest.raises(metaeval.InputError) as e:
        metaeval.read_eval_log([judge, human], format="inspect_ai")
    assert "a label_studio log, not inspect_ai" in _one_line(e) and str(human) in str(e.value)


def not_a_log_and_broken_lines_test(tmp_path):
    with pytest.raises(metaeval.InputError) as e:
        metaeval.read_eval_log(_write(tmp_path / "table.json", json.dumps([{"query_id": 1, "doc_id": "a"}])))
    assert "not a log of a known format" in _one_line(e)
    p = _write(tmp_path / "j.jsonl", json.dumps({"question_id": 1, "judge": ["g", "p"], "score": 3}) + "\n{oops\n")
    with pytest.raises(metaeval.InputError) as e:
        metaeval.read_eval_log(p)
    assert "line 2" in _one_line(e)
    q = _write(tmp_path / "cut.json", json.dumps(inspect_log(["1"], ["C"]))[:-40])
    with pytest.raises(metaeval.InputError) as e:
        metaeval.read_eval_log(q, format="inspect_ai")
    assert str(q) in _one_line(e)
    with pytest.raises(metaeval.InputError):
        metaeval.read_eval_log(tmp_path / "missing.json")
    with pytest.raises(metaeval.InputError):
        metaeval.read_eval_log(q, format="nope")


def align_leaves_plain_tables_alone_test(tmp_path):
    # a JSON table is still a table for align (the log hook looks at content, not the extension)
    t = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "b"], "relevance": [1, 0]})
    p = tmp_path / "t.json"
    t.to_json(p, orient="records")
    assert logs.log_or_source(p) == p
    assert len(metaeval.align(p, p)) == 2


def docs_page_lists_the_fates_and_formats_test():
    """The guide page lists every fate of LOG_FATES in the code's order, and a section per format."""
    from pathlib import Path

    page = (Path(__file__).resolve().parents[1] / "docs" / "guide" / "eval-logs.md").read_text(encoding="utf-8")
    lines = page.splitlines()
    i = lines.index("| fate | meaning |")
    fates = []
    for row in lines[i + 2:]:
        if not row.startswith("|"):
            break
        fates.append(row.strip("|").split("|")[0].strip().strip("`"))
    assert tuple(fates) == base.LOG_FATES
    titles = {"inspect_ai": "Inspect AI", "lm_eval": "lm-evaluation-harness", "openai_evals": "OpenAI evals",
              "promptfoo": "promptfoo", "deepeval": "deepeval", "fastchat": "FastChat MT-Bench",
              "label_studio": "Label Studio", "prodigy": "Prodigy", "argilla": "Argilla", "eee": "Every Eval Ever"}
    assert set(titles) == set(logs.FORMATS)
    for t in titles.values():
        assert f"## {t}" in page


def long_first_line_jsonl_test(tmp_path):
    # the keys that tell the format come after the first 64 KiB of the first line: the whole first line decides
    rows = [{"doc": "x" * 100_000, "doc_id": i, "metrics": ["acc"], "acc": float(i)} for i in range(3)]
    p = _jsonl(tmp_path / "samples_t_2026-01-01T00-00-00.000000.jsonl", rows)
    assert logs.sniff(p) == "lm_eval" and logs.sniff(p, deep=False) is None
    assert metaeval.read_eval_log(p)["score"].tolist() == [0.0, 1.0, 2.0]


def reduce_epochs_equals_inspect_test():
    # tests/reference/eval_log_reducers.json: Inspect AI 0.3.285's own reducers on these per-epoch values
    from pathlib import Path

    ref = json.loads((Path(__file__).resolve().parent / "reference" / "eval_log_reducers.json").read_text())
    assert ref["versions"]["inspect_ai"] == "0.3.285"
    to_float = {**base.INSPECT_GRADES}
    for case, c in ref["reducers"].items():
        values = c["values"]
        f = pd.DataFrame({"item": "1", "scorer": "s", "value": values,
                          "score": [base.grade_score(v, to_float) for v in values]})
        for name, expected in c["as_float"].items():
            got = logs.reduce_epochs(f, name)
            assert got["score"].iloc[0] == expected, (case, name, got["score"].iloc[0], expected)
            assert got["epochs"].iloc[0] == len(values)
        assert logs.reduce_epochs(f, "mode")["value"].iloc[0] == c["reduced"]["mode"], case
    with pytest.raises(metaeval.InputError):
        logs.reduce_epochs(f, "mean_of_squares")


def gzipped_logs_test(tmp_path):
    import gzip

    rows = [{"question_id": q, "model": "m", "judge": ["gpt-4", "single-v1"], "score": s, "turn": 1}
            for q, s in ((1, 8), (2, 9))]
    p = tmp_path / "gpt-4_single.jsonl.gz"
    with gzip.open(p, "wt", encoding="utf-8") as fh:
        fh.write("".join(json.dumps(r) + "\n" for r in rows))
    assert logs.sniff(p) == "fastchat"
    assert metaeval.read_eval_log(p)["score"].tolist() == [8.0, 9.0]
    assert metaeval.read_eval_log(tmp_path)["score"].tolist() == [8.0, 9.0]       # a folder takes .jsonl.gz
    bad = tmp_path / "bad.jsonl.gz"
    bad.write_bytes(p.read_bytes()[:30])
    with pytest.raises(metaeval.InputError) as e:
        metaeval.read_eval_log(bad)
    assert "gzip" in _one_line(e)


def fastchat_scores_that_are_not_numbers_test(tmp_path):
    """FastChat single grading: -1 (unparsed judgment) and a score that is not a finite number (NaN,
    which Python's json writes and reads; infinity; text) are ``errored``, never a NaN score row;
    the note names the lines of the latter."""
    rows = [{"question_id": q, "model": "m", "judge": ["gpt-4", "single-v1"], "score": s, "turn": 1}
            for q, s in ((1, 8), (2, -1), (3, float("nan")), (4, float("inf")), (5, "eight"), (6, 7.5))]
    p = _jsonl(tmp_path / "gpt-4_single.jsonl", rows)
    f = metaeval.read_eval_log(p)
    rep = _accounted(f)
    assert f["item"].tolist() == ["1", "6"] and f["score"].tolist() == [8.0, 7.5]
    assert dict((k[1], v) for k, v in rep.counts.items()) == {"read": 2, "errored": 4}
    note = next(n for n in rep.notes if "not a finite number" in n)
    assert "3 single-answer score(s)" in note and "line 3, line 4, line 5" in note
