"""Hostile inputs to read_eval_log beyond those of test_eval_logs.py: nesting deep enough to exhaust
Python's recursion, symbolic-link loops, and .eval archives whose members are each under the size limit
but together far over it (a zip bomb). Each must be a one-line InputError naming the file, in bounded
time and memory; ``metaeval inspect`` exits 2 with one line."""

from __future__ import annotations

import json
import os
import zipfile

import pytest

import metaeval
from metaeval.cli import main
from metaeval.data.logs import base

DEPTH = 100_000          # far beyond the interpreter's recursion limit (1,000 by default)
HEADER = {"version": 2, "status": "success", "eval": {"task": "t", "model": "m"}, "results": {"scores": []}}


def _one_line(exc):
    msg = str(exc.value)
    assert "\n" not in msg and "Traceback" not in msg
    return msg


def _deep(n=DEPTH) -> str:
    return "[" * n + "]" * n


def _inspect_with_deep_sample() -> str:
    return json.dumps(HEADER)[:-1] + ', "samples": [{"id": 1, "epoch": 1, "x": ' + _deep() + "}]}"


@pytest.mark.parametrize("case", ["array", "inspect_json", "jsonl_line", "eval_member", "forced_format"])
def deeply_nested_json_is_one_line_test(tmp_path, case):
    if case == "array":                      # the head does not decide: the whole document is parsed
        p, fmt = tmp_path / "deep.json", "auto"
        p.write_text(_deep())
    elif case == "inspect_json":             # detected from its head, then parsed by the reader
        p, fmt = tmp_path / "deep_inspect.json", "auto"
        p.write_text(_inspect_with_deep_sample())
    elif case == "jsonl_line":
        p, fmt = tmp_path / "judgments.jsonl", "auto"
        first = json.dumps({"question_id": 1, "model": "m", "judge": ["gpt-4", "single-v1"], "score": 8, "turn": 1})
        p.write_text(first + "\n" + '{"question_id": 2, "x": ' + _deep() + "}\n")
    elif case == "eval_member":
        p, fmt = tmp_path / "deep.eval", "auto"
        with zipfile.ZipFile(p, "w", compression=zipfile.ZIP_DEFLATED) as z:
            z.writestr("header.json", json.dumps(HEADER))
            z.writestr("samples/1_epoch_1.json", '{"id": 1, "epoch": 1, "x": ' + _deep() + "}")
    else:
        p, fmt = tmp_path / "tasks.json", "label_studio"
        p.write_text(_deep())
    with pytest.raises(metaeval.InputError) as e:
        metaeval.read_eval_log(p, format=fmt)
    assert "nested too deeply" in _one_line(e) and str(p) in str(e.value)


def deeply_nested_json_in_a_folder_test(tmp_path):
    (tmp_path / "a.jsonl").write_text(json.dumps({"question_id": 1, "model": "m", "judge": ["gpt-4", "single-v1"],
                                                  "score": 8, "turn": 1}) + "\n")
    (tmp_path / "b.json").write_text("[" * DEPTH)           # deep and unterminated
    with pytest.raises(metaeval.InputError) as e:
        metaeval.read_eval_log(tmp_path)
    assert "nested too deeply" in _one_line(e) and "b.json" in str(e.value)


@pytest.mark.parametrize("case", ["inspect_json", "eval_header"])
def cli_inspect_deeply_nested_exits_2_test(tmp_path, capsys, case):
    if case == "inspect_json":
        p = tmp_path / "deep_inspect.json"
        p.write_text(_inspect_with_deep_sample())
    else:
        p = tmp_path / "deep.eval"
        with zipfile.ZipFile(p, "w", compression=zipfile.ZIP_DEFLATED) as z:
            z.writestr("header.json", _deep())
    assert main(["inspect", str(p)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err and str(p) in err


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symbolic links on this platform")
def symlink_loop_is_one_line_test(tmp_path, capsys):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    os.symlink(b, a)
    os.symlink(a, b)
    with pytest.raises(metaeval.InputError) as e:
        metaeval.read_eval_log(a)
    assert str(a) in _one_line(e)
    assert main(["inspect", str(a)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "symbolic link" in err
    # in a folder, a link loop is not a regular file: listed as not read, the rest is read
    (tmp_path / "c.jsonl").write_text(json.dumps({"question_id": 1, "model": "m", "judge": ["gpt-4", "single-v1"],
                                                  "score": 8, "turn": 1}) + "\n")
    assert len(metaeval.read_eval_log(tmp_path)) == 1


def zip_members_together_too_large_test(tmp_path, monkeypatch):
    # each member is under the limit, their sum is not: a zip bomb of many members is refused from the
    # archive's directory, before any member is decompressed
    p = tmp_path / "bomb.eval"
    with zipfile.ZipFile(p, "w", compression=zipfile.ZIP_DEFLATED) as z:
        z.writestr("header.json", json.dumps(HEADER))
        for i in range(1, 6):
            z.writestr(f"samples/{i}_epoch_1.json", json.dumps({"id": i, "epoch": 1, "scores": {"m": {"value": "C"}}, "pad": " " * 60_000}))
    assert p.stat().st_size < 5_000
    monkeypatch.setattr(base, "MAX_LOG_BYTES", 100_000)
    calls, real = [], base.zip_json
    monkeypatch.setattr(base, "zip_json", lambda *a, **k: calls.append(a[1]) or real(*a, **k))
    with pytest.raises(metaeval.InputError) as e:
        metaeval.read_eval_log(p)
    assert "the total of the archive's 6 members" in _one_line(e) and "100000 bytes" in str(e.value)
    assert str(p) in str(e.value) and not calls
    monkeypatch.setattr(base, "MAX_LOG_BYTES", 10 ** 6)
    assert metaeval.read_eval_log(p)["score"].tolist() == [1.0] * 5      # under the limit: read as before


def repeated_sample_id_and_epoch_test(tmp_path):
    """A crafted .eval whose members repeat an id and epoch (under other member names): the second
    record is a ``duplicate`` (the first kept, every record accounted for), and a note names the one
    whose scores differ."""
    p = tmp_path / "dup.eval"
    with zipfile.ZipFile(p, "w", compression=zipfile.ZIP_DEFLATED) as z:
        z.writestr("header.json", json.dumps(HEADER))
        z.writestr("samples/1_epoch_1.json", json.dumps({"id": 1, "epoch": 1, "scores": {"m": {"value": "C"}}}))
        z.writestr("samples/01_epoch_1.json", json.dumps({"id": 1, "epoch": 1, "scores": {"m": {"value": "I"}}}))
        z.writestr("samples/2_epoch_1.json", json.dumps({"id": 2, "epoch": 1, "scores": {"m": {"value": "C"}}}))
        z.writestr("samples/2_epoch_2.json", json.dumps({"id": 2, "epoch": 2, "scores": {"m": {"value": "C"}}}))
        z.writestr("samples/x_epoch_2.json", json.dumps({"id": 2, "epoch": 2, "scores": {"m": {"value": "C"}}}))
    f = metaeval.read_eval_log(p)
    rep = f.attrs["report"]
    assert sorted(zip(f["item"].astype(str), f["epoch"].astype(int))) == [("1", 1), ("2", 1), ("2", 2)]
    assert rep.counts[(str(p), "duplicate")] == 2 and rep.counts[(str(p), "read")] == 3
    assert sum(v for (src, _), v in rep.counts.items() if src == str(p)) == 5
    differ = [n for n in rep.notes if "repeat an id and epoch" in n]
    assert len(differ) == 1 and "1 sample record(s)" in differ[0]
