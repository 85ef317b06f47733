"""Hostile input on the output folder's edges, in text that reaches spreadsheets and terminals, and in
special files given as study files (issue #26, findings 1-4, 10 and the output-folder and command-line
part of 12).

Each test fails before the marker-checked report folder, the link-proof lock, the recoverable swap,
the per-format neutralisation of control and bidi characters and the bounded study reader, and passes
now. The expectations are properties of the files (bytes present or absent, digests unchanged), the
exit status and the one-line message; the CSV-injection rule is OWASP's ("CSV Injection", owasp.org:
prefix a cell starting with ``= + - @`` TAB or CR with a single quote).
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import re
import resource
import subprocess
import sys
import textwrap
from pathlib import Path

import pandas as pd
import pytest

from metaeval import InputError
from metaeval.cli import main
from metaeval.output import escape as esc

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "data_samples"
VALIDATION = SAMPLES / "imageclef_like" / "validation.csv"
BATTLES = SAMPLES / "battles_like" / "battles.csv"
CLAIMS = SAMPLES / "claims" / "example.toml"
MARKER = ".metaeval-output.json"


def _env():
    return {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}


def _limit_memory():                                    # (a run that reads /dev/zero must not take the machine)
    resource.setrlimit(resource.RLIMIT_AS, (6 * 2**30, 6 * 2**30))


def _cli(*args, timeout=120, cwd=None):
    return subprocess.run([sys.executable, "-m", "metaeval.cli", *map(str, args)], capture_output=True, text=True,
                          env=_env(), timeout=timeout, cwd=cwd, preexec_fn=_limit_memory)


def _quick_study(tmp_path: Path, name: str = "study.toml", paths=(VALIDATION,)) -> Path:
    p = tmp_path / name
    listed = ", ".join(f'"{Path(x).as_posix()}"' for x in paths)
    p.write_text("\n".join(['title = "quick"', "seed = 1", "n_resamples = 30", "", "[[analysis]]",
                            'type = "inspect"', 'name = "files"', f"paths = [{listed}]", ""]), encoding="utf-8")
    return p


def _digests(folder: Path) -> dict:
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def _one_line_error(err: str, *wants: str) -> None:
    assert err.startswith("metaeval: error: ") and err.count("\n") == 1 and "Traceback" not in err, err
    for w in wants:
        assert w in err, err


# --------------------------------------------------------------------------------------------
# finding 1: the lock file is never opened through a link
# --------------------------------------------------------------------------------------------

def a_symlinked_lock_file_is_refused_and_its_target_untouched_test(tmp_path, capsys, monkeypatch):
    victim = tmp_path / "v.txt"
    victim.write_text("X\n")
    (tmp_path / ".note.metaeval-lock").symlink_to("v.txt")
    monkeypatch.chdir(tmp_path)
    assert main(["review", str(CLAIMS), "--out", "note", "--n-resamples", "50"]) == 2
    _one_line_error(capsys.readouterr().err, "lock file", "link")
    assert victim.read_text() == "X\n" and not (tmp_path / "note").exists()


def a_hard_linked_lock_file_is_refused_and_its_target_untouched_test(tmp_path):
    from metaeval.output.folder import output_folder

    victim = tmp_path / "v.txt"
    victim.write_text("X\n")
    os.link(victim, tmp_path / ".out.metaeval-lock")
    with pytest.raises(InputError, match="lock file"):
        with output_folder(tmp_path / "out"):
            pass
    assert victim.read_text() == "X\n"


def leftover_folders_that_are_links_are_not_followed_test(tmp_path):
    from metaeval.output.folder import output_folder

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "keep.txt").write_text("mine")
    (tmp_path / ".out.tmp-1-x").symlink_to(elsewhere)
    (tmp_path / ".out.old-1-x").symlink_to(elsewhere)
    with output_folder(tmp_path / "out") as tmp:
        (tmp / "report.md").write_text("# r")
    assert (elsewhere / "keep.txt").read_text() == "mine"


# --------------------------------------------------------------------------------------------
# finding 2: only a folder holding this package's previous output is replaced
# --------------------------------------------------------------------------------------------

def reviewing_a_text_into_its_own_folder_is_refused_test(tmp_path, capsys, monkeypatch):
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "review.txt").write_text("F(1, 20) = 4.5, p = .04\n")
    monkeypatch.chdir(tmp_path)
    assert main(["review", "notes/review.txt", "--out", "notes"]) == 2
    _one_line_error(capsys.readouterr().err)
    assert (notes / "review.txt").read_text() == "F(1, 20) = 4.5, p = .04\n"
    assert sorted(p.name for p in notes.iterdir()) == ["review.txt"]


@pytest.mark.parametrize("files", [{"report.docx": "my draft"}, {"results.json": "{}"},
                                   {"tables/mine.csv": "a\n1\n"}, {"figures/plot.png": "png"},
                                   {"report.md": "# mine", "review.md": "x"}])
def a_folder_of_look_alike_files_is_not_replaced_test(tmp_path, capsys, files):
    out = tmp_path / "out"
    for rel, text in files.items():
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
        (out / rel).write_text(text)
    before = _digests(out)
    assert main(["report", str(_quick_study(tmp_path)), "--out", str(out)]) == 2
    _one_line_error(capsys.readouterr().err, "not a metaeval report")
    assert _digests(out) == before


def a_previous_report_is_replaced_and_its_marker_lists_every_file_test(tmp_path, capsys):
    out = tmp_path / "out"
    study = _quick_study(tmp_path)
    assert main(["report", str(study), "--out", str(out)]) == 0
    marker = json.loads((out / MARKER).read_text())
    on_disk = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file() and p.name != MARKER)
    assert marker["kind"] == "report" and sorted(marker["files"]) == on_disk and "tables/files_inspection.csv" in on_disk
    assert marker["version"] == __import__("metaeval").__version__
    (out / "report.html").unlink()                                    # a subset of the listed files: replaced
    assert main(["report", str(study), "--out", str(out), "--seed", "2"]) == 0
    assert json.loads((out / "results.json").read_text())["_meta"]["seed"] == 2
    assert (out / "report.html").is_file()


def a_changed_or_added_file_in_a_previous_report_is_kept_test(tmp_path, capsys):
    out = tmp_path / "out"
    study = _quick_study(tmp_path)
    assert main(["report", str(study), "--out", str(out)]) == 0
    (out / "tables" / "mine.csv").write_text("a\n1\n")
    assert main(["report", str(study), "--out", str(out)]) == 2
    _one_line_error(capsys.readouterr().err, "tables/mine.csv")
    (out / "tables" / "mine.csv").unlink()
    (out / "report.md").write_text("# my edits")
    assert main(["report", str(study), "--out", str(out)]) == 2
    _one_line_error(capsys.readouterr().err, "report.md", "changed")
    assert (out / "report.md").read_text() == "# my edits"


def a_review_never_replaces_a_report_nor_a_report_a_review_test(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["report", str(_quick_study(tmp_path)), "--out", str(out)]) == 0
    before = _digests(out)
    text = tmp_path / "paper.txt"
    text.write_text("t(28) = 2.20, p = .03\n")
    assert main(["review", str(text), "--out", str(out)]) == 2
    _one_line_error(capsys.readouterr().err, "report")
    assert _digests(out) == before
    note = tmp_path / "note"
    assert main(["review", str(text), "--out", str(note)]) == 0
    assert main(["report", str(_quick_study(tmp_path)), "--out", str(note)]) == 2
    _one_line_error(capsys.readouterr().err, "review")


def an_input_inside_the_output_folder_is_refused_test(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["report", str(_quick_study(tmp_path)), "--out", str(out)]) == 0
    before = _digests(out)
    study = _quick_study(tmp_path, "again.toml", paths=[out / "tables" / "files_inspection.csv"])
    assert main(["report", str(study), "--out", str(out)]) == 2
    _one_line_error(capsys.readouterr().err, "holds an input of this run")
    assert _digests(out) == before
    inside = out / "study.toml"                      # the study file itself inside --out
    os.replace(study, inside)
    assert main(["report", str(inside), "--out", str(out)]) == 2
    assert inside.is_file()


# --------------------------------------------------------------------------------------------
# finding 3: a kill between the two renames loses nothing
# --------------------------------------------------------------------------------------------

_KILL_BETWEEN_RENAMES = textwrap.dedent("""
    import os, signal, sys
    from metaeval.output import folder
    real = os.replace
    def replace(src, dst):
        real(src, dst)
        if ".old-" in str(dst):                  # the previous report is set aside: die before the new one lands
            os.kill(os.getpid(), signal.SIGKILL)
    folder.os.replace = replace
    with folder.output_folder(sys.argv[1]) as tmp:
        (tmp / "report.md").write_text("# new")
""")


def a_kill_between_the_renames_is_recovered_by_the_next_run_test(tmp_path, capsys):
    from metaeval.output.folder import output_folder

    out = tmp_path / "out"
    study = _quick_study(tmp_path)
    assert main(["report", str(study), "--out", str(out)]) == 0
    before = _digests(out)
    r = subprocess.run([sys.executable, "-c", _KILL_BETWEEN_RENAMES, str(out)], env=_env(), capture_output=True,
                       timeout=120)
    assert r.returncode == -9, r.stderr
    assert not out.exists() and list(tmp_path.glob(".out.old-*"))       # the moment the issue describes
    # the next run fails (a bad study): the set-aside report is back in place all the same
    bad = tmp_path / "bad.toml"
    bad.write_text('title = "x"\n[[analysis]]\ntype = "inspect"\nname = "files"\npaths = ["missing.csv"]\n')
    assert main(["report", str(bad), "--out", str(out)]) == 2
    capsys.readouterr()
    assert _digests(out) == before and not list(tmp_path.glob(".out.old-*"))
    # and a successful run replaces it, leaving nothing beside it
    with output_folder(out) as tmp:
        (tmp / "report.md").write_text("# newer")
    assert (out / "report.md").read_text() == "# newer"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["out", "study.toml", "bad.toml"])


def an_error_between_the_renames_puts_the_previous_report_back_test(tmp_path, monkeypatch):
    from metaeval.output import folder

    out = tmp_path / "out"
    with folder.output_folder(out) as tmp:
        (tmp / "report.md").write_text("# old")
    real = os.replace

    def replace(src, dst):
        if Path(dst) == out and ".tmp-" in str(src):                   # the new output cannot land
            raise OSError(errno.EIO, "Input/output error")
        return real(src, dst)

    monkeypatch.setattr(folder.os, "replace", replace)
    with pytest.raises(InputError, match="Input/output error"):
        with folder.output_folder(out) as tmp:
            (tmp / "report.md").write_text("# new")
    assert (out / "report.md").read_text() == "# old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


# --------------------------------------------------------------------------------------------
# finding 4: spreadsheet formulas, control and bidi characters are neutralised per format
# --------------------------------------------------------------------------------------------

HOSTILE = ['=HYPERLINK("http://x","y")', "evil\x1b[31mred\u202eabc"]
RAW = ("\x1b", "\u202e", "\x9b", "\u2066")


@pytest.mark.parametrize("cell, want", [
    ('=HYPERLINK("http://x","y")', '\'=HYPERLINK("http://x","y")'), ("+1+2", "'+1+2"), ("-2+3", "'-2+3"),
    ("@SUM(A1)", "'@SUM(A1)"), ("\tx", "'\tx"), ("\rx", "'\\rx"), ("\uff1dcmd", "'\uff1dcmd"),
    ("-0.5", "-0.5"), ("+3", "+3"), ("1e-3", "1e-3"), ("gpt-4", "gpt-4"), ("a\x1bb", "a\\x1bb"),
    ("a\u202eb", "a\\u202eb"), ("x\x9by", "x\\x9by"), (-0.5, -0.5), (3, 3)])
def csv_cells_follow_owasp_test(cell, want):
    assert esc.csv_cell(cell) == want


def every_format_shows_control_and_bidi_characters_escaped_test():
    s = "a\x1b[2Jb\u202ec\u2066d\x9be\x00f\u200fg"
    for fmt in (esc.visible, esc.markdown, esc.html, esc.latex, esc.csv_cell, esc.mpl_text):
        out = fmt(s)
        assert not any(ch in out for ch in (*RAW, "\x00", "\u200f")), (fmt.__name__, out)
        assert "x1b" in out and "u202e" in out, (fmt.__name__, out)
    assert esc.visible("line 1\nline\t2") == "line 1\nline\t2"          # the layout characters stay
    assert json.loads(esc.json_text(json.dumps(s, ensure_ascii=False))) == s   # JSON: escaped, same value
    assert not any(ch in esc.json_text(json.dumps(s, ensure_ascii=False)) for ch in RAW)


@pytest.fixture(scope="module")
def hostile_report(tmp_path_factory):
    d = tmp_path_factory.mktemp("hostile")
    b = pd.read_csv(BATTLES)
    models = sorted(set(b["model_a"]) | set(b["model_b"]))
    ren = dict(zip(models, HOSTILE))
    b["model_a"], b["model_b"] = b["model_a"].replace(ren), b["model_b"].replace(ren)
    b.to_csv(d / "battles.csv", index=False)
    (d / "s.toml").write_text('title = "t"\nseed = 1\nn_resamples = 30\n[data.b]\nkind = "battles"\n'
                              'path = "battles.csv"\n[[analysis]]\ntype = "pairwise"\nname = "pw"\ndata = "b"\n',
                              encoding="utf-8")
    r = _cli("report", d / "s.toml", "--out", d / "out", timeout=300)
    assert r.returncode == 0, r.stderr
    return d / "out", r


def hostile_names_reach_no_output_raw_test(hostile_report):
    out, r = hostile_report
    for stream in (r.stdout, r.stderr):
        assert not any(ch in stream for ch in RAW), stream
    assert "HYPERLINK" in r.stdout                                      # shown (the headline's model)
    for f in out.rglob("*"):
        if f.is_file() and f.suffix in (".csv", ".md", ".html", ".tex", ".json", ".svg"):
            text = f.read_text(encoding="utf-8")
            assert not any(ch in text for ch in RAW), f
    csvs = list(out.glob("tables/*.csv"))
    assert any("HYPERLINK" in f.read_text() for f in csvs)
    for f in [*csvs, out / "report.md", out / "report.html"]:              # shown, escaped
        text = f.read_text(encoding="utf-8")
        assert re.search(r"evil\\+x1b\\?\[31mred\\+u202eabc", text) or "evil" not in text, f
    for f in csvs:
        df = pd.read_csv(f, dtype=str, keep_default_na=False)
        cells = [c for col in df.columns for c in df[col]] + list(df.columns)
        assert not [c for c in cells if c[:1] in ("=", "+", "@", "\t", "\r")], f
        assert not [c for c in cells if c.startswith("-") and not _number(c)], f
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert set(HOSTILE) <= {r.get("model") for r in results["pw_win_rates"]}   # JSON keeps the data (escaped)


def _number(text: str) -> bool:
    try:
        float(text)
        return True
    except ValueError:
        return False


def review_outputs_show_control_characters_escaped_test(tmp_path, capsys):
    text = tmp_path / "paper.txt"
    text.write_text("We found \x1b]0;pwned\x07 t(28) = 2.20, p = .03 \u202eend.\n", encoding="utf-8")
    assert main(["review", str(text), "--out", str(tmp_path / "note"), "--title", "T\x1bitle\u202e"]) == 0
    printed = capsys.readouterr()
    assert "t(28) = 2.20" in printed.out and not any(ch in printed.out + printed.err for ch in RAW)
    for f in (tmp_path / "note").iterdir():
        assert not any(ch in f.read_text(encoding="utf-8") for ch in (*RAW, "\x07")), f


# --------------------------------------------------------------------------------------------
# finding 10: special files as study files and for metaeval inspect
# --------------------------------------------------------------------------------------------

def _specials(tmp_path: Path) -> list[Path]:
    fifo = tmp_path / "fifo.toml"
    os.mkfifo(fifo)
    (tmp_path / "loop1").symlink_to(tmp_path / "loop2")
    (tmp_path / "loop2").symlink_to(tmp_path / "loop1")
    paths = [Path("/dev/zero"), fifo, tmp_path / "loop1", Path("/")]
    paths += [p for p in (Path("/proc/self/mem"), Path("/proc/kmsg")) if p.exists()]
    return paths


_RUN_EACH = textwrap.dedent("""
    import contextlib, io, json, sys
    from metaeval.cli import main
    out = []
    for argv in json.loads(sys.argv[1]):
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            rc = main(argv)
        out.append([rc, err.getvalue()])
    print(json.dumps(out))
""")


@pytest.mark.parametrize("command", ["report", "inspect"])
def special_files_are_one_line_errors_test(tmp_path, command):
    # one interpreter runs every case (memory capped, time bounded: a regression cannot take the machine)
    paths = _specials(tmp_path)
    argvs = [["report", str(p), "--out", str(tmp_path / "out")] if command == "report" else ["inspect", str(p)]
             for p in paths]
    r = subprocess.run([sys.executable, "-c", _RUN_EACH, json.dumps(argvs)], capture_output=True, text=True,
                       env=_env(), timeout=120, preexec_fn=_limit_memory)
    assert r.returncode == 0, r.stderr[-800:]
    for p, (rc, err) in zip(paths, json.loads(r.stdout)):
        assert rc == 2, (p, err)
        _one_line_error(err, str(p))
    assert not (tmp_path / "out").exists()


def a_huge_study_file_is_refused_without_reading_it_test(tmp_path, capsys):
    from metaeval.output.study import MAX_STUDY_BYTES, load_study

    big = tmp_path / "big.toml"
    with open(big, "wb") as fh:
        fh.truncate(MAX_STUDY_BYTES + 1)               # sparse: nothing is written
    with pytest.raises(InputError, match="larger than"):
        load_study(big)


def a_parquet_folder_with_mixed_schemas_is_a_one_line_error_test(tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    import pyarrow as pa

    folder = tmp_path / "ref"
    folder.mkdir()
    pq.write_table(pa.table({"query_id": ["1"], "doc_id": ["d"], "relevance": [1]}), folder / "a.parquet")
    pq.write_table(pa.table({"query_id": [1.5], "other": ["x"]}), folder / "b.parquet")
    r = _cli("agree", folder, VALIDATION, "--on", "query_id,doc_id", "--label", "relevance,judge",
             "--engine", "duckdb", "--ci-method", "none")
    assert r.returncode == 2, r.stderr[-800:]
    _one_line_error(r.stderr)


def a_folder_holding_other_kinds_of_files_is_refused_test(tmp_path):
    pytest.importorskip("pyarrow")
    folder = tmp_path / "shared"
    (folder / "sub").mkdir(parents=True)
    df = pd.read_csv(VALIDATION)
    df.to_parquet(folder / "a.parquet")
    df.head(7).to_parquet(folder / "sub" / "old.parquet")       # somebody else's file, same columns
    df.head(5).to_csv(folder / "notes.csv", index=False)
    r = _cli("agree", folder, VALIDATION, "--on", "query_id,doc_id", "--label", "human,judge", "--engine", "duckdb",
             "--ci-method", "none")
    assert r.returncode == 2, r.stderr[-800:]
    _one_line_error(r.stderr, "notes.csv")


# --------------------------------------------------------------------------------------------
# finding 12 (the output folder and the command line): one line, exit 2
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("code", [errno.EROFS, errno.ENOSPC, errno.EACCES, errno.EDQUOT])
def an_unwritable_out_is_a_one_line_error_test(tmp_path, capsys, monkeypatch, code):
    import metaeval.output.report as report

    def fail(self, *a, **k):
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(report.Report, "_write_files", fail)
    out = tmp_path / "out"
    assert main(["report", str(_quick_study(tmp_path)), "--out", str(out)]) == 2
    _one_line_error(capsys.readouterr().err, str(out), os.strerror(code))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["study.toml"]


def a_read_only_parent_is_a_one_line_error_test(tmp_path, capsys, monkeypatch):
    import tempfile

    def fail(*a, **k):
        raise OSError(errno.EROFS, os.strerror(errno.EROFS))

    monkeypatch.setattr(tempfile, "mkdtemp", fail)
    assert main(["report", str(_quick_study(tmp_path)), "--out", str(tmp_path / "out")]) == 2
    _one_line_error(capsys.readouterr().err, os.strerror(errno.EROFS))


def _out_cases(tmp_path: Path) -> list[tuple[Path, str]]:
    (tmp_path / "file.txt").write_text("keep")
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    (tmp_path / "ok").mkdir()
    (tmp_path / "linked").symlink_to(tmp_path / "ok")
    return [(tmp_path / "file.txt" / "out", "file"), (tmp_path / ("x" * 300), "too long"),
            (tmp_path / "dangling", "symbolic link"), (tmp_path / "linked", "symbolic link"),
            (tmp_path / "file.txt" / ("y" * 300) / "z", ""), (tmp_path / "dangling" / "out", "symbolic link")]


def bad_out_paths_are_one_line_errors_test(tmp_path, capsys):
    study = _quick_study(tmp_path)
    for out, want in _out_cases(tmp_path):
        for argv in (["report", str(study), "--out", str(out)], ["review", str(CLAIMS), "--out", str(out)]):
            assert main(argv) == 2, (argv, capsys.readouterr().err)
            _one_line_error(capsys.readouterr().err, want)
    assert (tmp_path / "file.txt").read_text() == "keep" and not (tmp_path / "nowhere").exists()


@pytest.mark.parametrize("argv, want", [
    (["inspect", str(VALIDATION), "--scale", "a,b"], "--scale"),
    (["inspect", str(VALIDATION), "--scale", "0,nan"], "--scale"),
    (["inspect", str(VALIDATION), "--scale", ""], "--scale"),
    (["agree", str(VALIDATION), str(VALIDATION), "--on", "query_id,doc_id", "--label", "human,judge",
      "--scale", "0,inf"], "--scale"),
    (["agree", str(VALIDATION), str(VALIDATION), "--on", "query_id,doc_id", "--label", "human,judge",
      "--binarize", "nan", "--ci-method", "none"], "--binarize"),
    (["agree", str(VALIDATION), str(VALIDATION), "--on", "query_id,doc_id", "--label", "human,judge",
      "--binarize", "inf", "--ci-method", "none"], "--binarize"),
    (["agree", str(VALIDATION), str(VALIDATION), "--on", "query_id,doc_id", "--label", "human,judge",
      "--binarize", "7", "--ci-method", "none"], "--binarize"),
])
def bad_scale_and_binarize_flags_are_one_line_errors_test(capsys, argv, want):
    assert main(argv) == 2
    _one_line_error(capsys.readouterr().err, want)
