"""The prose pages of the documentation site say what the code does.

* Every ``pycon`` block of a page (getting started, user guide, statistics reference, cite) runs as
  a doctest, in page order with one namespace per page, in a fresh working directory (so examples
  may write files). Expected output is compared with ELLIPSIS and NORMALIZE_WHITESPACE.
* Every ``console`` block runs its ``$ metaeval ...`` commands through :func:`metaeval.cli.main`
  (and ``$ ls``) in a working directory where ``data_samples/`` is the repository's folder, as in a
  clone, and compares the printed output with the page. A ``toml`` block whose first line is
  ``# NAME.toml`` is written to that directory first (the study files the commands run).
* Lists on the pages that restate the code are compared with the code: the alignment fates
  (``metaeval.data.alignment.FATES``), and every key a study file may hold: the page's tables are
  those ``metaeval/output/study_schema.py`` renders (its SCHEMA is the one declaration of the keys),
  and every key ``metaeval/output/study.py`` reads (each ``spec[...]``/``spec.get(...)``,
  ``a[...]``/``a.get(...)`` and ``study.get(...)`` call) is declared there.
"""

from __future__ import annotations

import ast
import contextlib
import doctest
import io
import os
import re
import shlex
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"

# the pages written as prose with examples (docs-infra's generated pages are not listed here)
PAGES = sorted(p for p in [DOCS / "getting-started.md", DOCS / "citing.md", DOCS / "scale.md",
                           *DOCS.glob("guide/*.md"), *DOCS.glob("statistics/*.md")] if p.exists())

_FENCE = re.compile(r"^(?P<fence>`{3,})(?P<lang>[\w{}-]*)[^\n]*\n(?P<body>.*?)^(?P=fence)[ \t]*$", re.M | re.S)


def blocks(path: Path, lang: str) -> list[tuple[int, str]]:
    """``(line, body)`` of every fenced block of language ``lang`` in a Markdown page."""
    text = path.read_text(encoding="utf-8")
    out = []
    for m in _FENCE.finditer(text):
        if m.group("lang") == lang:
            out.append((text.count("\n", 0, m.start()) + 2, m.group("body")))
    return out


def _rel(p: Path) -> str:
    return str(p.relative_to(ROOT))


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    """A fresh working directory holding ``data_samples`` (a link to the repository's folder)."""
    (tmp_path / "data_samples").symlink_to(ROOT / "data_samples", target_is_directory=True)
    monkeypatch.chdir(tmp_path)
    import matplotlib

    matplotlib.use("Agg")
    return tmp_path


# --------------------------------------------------------------------------------------------
# pycon blocks: doctests
# --------------------------------------------------------------------------------------------

PYCON_PAGES = [p for p in PAGES if blocks(p, "pycon")]


def _slow(page: Path, lang: str) -> bool:
    """Pages whose examples run the demo (about 30 s) run with the slow tests."""
    text = "\n".join(b for _, b in blocks(page, lang))
    return bool(re.search(r"metaeval demo\b|run_demo\(", text))


@pytest.mark.parametrize("page", [pytest.param(p, id=_rel(p), marks=[pytest.mark.slow] if _slow(p, "pycon") else [])
                                  for p in PYCON_PAGES])
def pycon_examples_test(page, workdir):
    globs: dict = {"__name__": "__docs__"}
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    report = io.StringIO()
    n = 0
    for line, body in blocks(page, "pycon"):
        test = parser.get_doctest(body, globs, f"{_rel(page)}:{line}", str(page), line - 1)
        n += len(test.examples)
        runner.run(test, out=report.write, clear_globs=False)
        globs = test.globs  # DocTest copies the namespace it is given: carry this block's names on
    assert n > 0
    assert runner.failures == 0, f"{runner.failures} of {n} examples of {_rel(page)} failed:\n{report.getvalue()}"


# --------------------------------------------------------------------------------------------
# console blocks: the command line
# --------------------------------------------------------------------------------------------

CONSOLE_PAGES = [p for p in PAGES if blocks(p, "console")]


def _run_command(cmd: str) -> str:
    from metaeval import cli

    args = shlex.split(cmd)
    if args[0] == "ls":
        target = Path(args[1]) if len(args) > 1 else Path(".")
        return "\n".join(sorted(q.name for q in target.iterdir() if not q.name.startswith("."))) + "\n"  # as ls
    assert args[0] == "metaeval", f"the docs run only metaeval and ls commands, not {cmd!r}"
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = cli.main(args[1:])
    text = out.getvalue() + err.getvalue()
    return text + (f"[exit status {status}]\n" if status else "")


def _parse_console(body: str) -> list[tuple[str, str]]:
    """``(command, expected output)`` pairs of a console block (commands start with ``$ ``)."""
    pairs, cmd, out = [], None, []
    for ln in body.splitlines():
        if ln.startswith("$ "):
            if cmd is not None:
                pairs.append((cmd, "\n".join(out)))
            cmd, out = ln[2:].split("  #")[0].strip(), []
        elif cmd is not None:
            out.append(ln)
    if cmd is not None:
        pairs.append((cmd, "\n".join(out)))
    return pairs


def _matches(expected: str, got: str) -> bool:
    checker = doctest.OutputChecker()
    return checker.check_output(expected.strip() + "\n", got.strip() + "\n",
                                doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)


@pytest.mark.parametrize("page", [pytest.param(p, id=_rel(p), marks=[pytest.mark.slow] if _slow(p, "console") else [])
                                  for p in CONSOLE_PAGES])
def console_examples_test(page, workdir):
    import warnings

    # files the page shows before using them: a toml block whose first line is ``# NAME.toml``
    for _, body in blocks(page, "toml"):
        first = body.splitlines()[0] if body else ""
        if re.fullmatch(r"# [\w.-]+\.toml", first):
            Path(first[2:]).write_text(body, encoding="utf-8")
    n = 0
    for line, body in blocks(page, "console"):
        for cmd, expected in _parse_console(body):
            n += 1
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                got = _run_command(cmd)
            assert _matches(expected, got), f"{_rel(page)}:{line}: `{cmd}` printed\n{got}\nthe page says\n{expected}"
    assert n > 0


def parse_console_test():
    body = "$ metaeval demo --out x  # comment\nline 1\nline 2\n$ ls x\na\n"
    assert _parse_console(body) == [("metaeval demo --out x", "line 1\nline 2"), ("ls x", "a")]
    assert _matches("a ... c", "a b c") and not _matches("a c", "a b c")


# --------------------------------------------------------------------------------------------
# lists that restate the code
# --------------------------------------------------------------------------------------------

def _table_first_column(text: str, header: str) -> list[str]:
    """The first column (backticks stripped) of the Markdown table whose header row starts with ``header``."""
    lines = text.splitlines()
    for i, ln in enumerate(lines):
        if ln.startswith("|") and ln.strip("| ").startswith(header):
            rows = []
            for row in lines[i + 2:]:
                if not row.startswith("|"):
                    break
                rows.append(row.strip("|").split("|")[0].strip().strip("`"))
            return rows
    raise AssertionError(f"no table with header {header!r}")


def alignment_fates_test():
    """Getting started lists every fate of metaeval.data.alignment.FATES, in the code's order."""
    from metaeval.data.alignment import FATES

    page = (DOCS / "getting-started.md").read_text(encoding="utf-8")
    assert tuple(_table_first_column(page, "fate")) == FATES


def _is_name(node: ast.AST, names: set[str]) -> bool:
    return (isinstance(node, ast.Name) and node.id in names) or (isinstance(node, ast.Attribute) and node.attr in names)


def _key_of(node: ast.AST, names: set[str]) -> str | None:
    """The string key of ``x["k"]`` or ``x.get("k", ...)`` with ``x`` in ``names`` (None otherwise)."""
    if isinstance(node, ast.Subscript) and _is_name(node.value, names):
        if isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
            return node.slice.value
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get"
            and _is_name(node.func.value, names) and node.args
            and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
        return node.args[0].value
    return None


def _keys_read(fn: ast.AST, names: set[str]) -> set[str]:
    """Keys read of the dicts ``names`` inside ``fn``; a dict read into a variable (``src = a["k"]``)
    contributes its own keys as ``k.sub``."""
    keys = {k for node in ast.walk(fn) if (k := _key_of(node, names)) is not None}
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            parent = _key_of(node.value, names)
            if parent is not None:
                sub = _keys_read(fn, {node.targets[0].id}) if node.targets[0].id not in names else set()
                keys |= {f"{parent}.{k}" for k in sub}
    return keys


def study_keys_from_code() -> dict[str, set[str]]:
    """What ``metaeval/output/study.py`` reads: top-level keys, keys per data kind, keys per analysis type."""
    tree = ast.parse((ROOT / "metaeval" / "output" / "study.py").read_text(encoding="utf-8"))
    funcs = {n.name: n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    out: dict[str, set[str]] = {}
    # the study itself (run_study and the context read it; ``_base``/``_source`` are load_study's own)
    top = _keys_read(funcs["run_study"], {"study"}) | _keys_read(funcs["_Context"], {"study"})
    out["study"] = {k for k in top if not k.startswith("_")}
    # every [[analysis]] entry: the keys run_study reads of it
    out["analysis"] = _keys_read(funcs["run_study"], {"a"})
    # data kinds: the branches ``if kind == "...":`` of _load_data (``_scale(spec)`` reads its own keys)
    scale_keys = _keys_read(funcs["_scale"], {"spec"})
    for node in funcs["_load_data"].body:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Compare) and isinstance(node.test.left, ast.Name) \
                and node.test.left.id == "kind":
            keys = {"kind"}
            for stmt in node.body:
                keys |= _keys_read(stmt, {"spec"})
                if any(isinstance(c, ast.Call) and isinstance(c.func, ast.Name) and c.func.id == "_scale"
                       for c in ast.walk(stmt)):
                    keys |= scale_keys
            out[f"data:{node.test.comparators[0].value}"] = keys
    # analysis types: the handlers named in _HANDLERS
    handlers = next(n for n in tree.body if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", "") == "_HANDLERS")
    for key, val in zip(handlers.value.keys, handlers.value.values):
        out[f"analysis:{key.value}"] = _keys_read(funcs[val.id], {"a"})
    return out


def study_outputs_from_code() -> dict[str, dict[str, set[str]]]:
    """Suffixes of the tables and figures each analysis handler writes (``rep.table(f"{key}_x")``)."""
    tree = ast.parse((ROOT / "metaeval" / "output" / "study.py").read_text(encoding="utf-8"))
    funcs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    handlers = next(n for n in tree.body if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", "") == "_HANDLERS")
    out = {}
    for key, val in zip(handlers.value.keys, handlers.value.values):
        found = {"table": set(), "figure": set()}
        for node in ast.walk(funcs[val.id]):
            if not isinstance(node, ast.Call):
                continue
            if (isinstance(node.func, ast.Attribute) and node.func.attr in found
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == "rep"
                    and node.args and isinstance(node.args[0], ast.JoinedStr)):
                kind, name = node.func.attr, node.args[0]
            elif (isinstance(node.func, ast.Name) and node.func.id == "_table" and len(node.args) > 1
                  and isinstance(node.args[0], ast.Name) and node.args[0].id == "rep"
                  and isinstance(node.args[1], ast.JoinedStr)):   # _table(rep, f"{key}_x", ...): a captioned table
                kind, name = "table", node.args[1]
            else:
                continue
            parts = name.values
            assert isinstance(parts[0], ast.FormattedValue) and isinstance(parts[-1], ast.Constant), ast.dump(node)
            found[kind].add("NAME" + parts[-1].value)
        out[f"analysis:{key.value}"] = found
    return out


def _page_sections(text: str):
    """``(section, line)`` for every line of the study-file page under a ``(study-...)=`` target."""
    section = None
    for ln in text.splitlines():
        m = re.match(r"^\(study-(?P<sec>[\w:-]+)\)=\s*$", ln)
        if m:
            section = m.group("sec").replace("--", ":")
            continue
        if section:
            yield section, ln


def study_outputs_test():
    """Each analysis type's section names exactly the tables and figures its handler writes."""
    text = (DOCS / "guide" / "study-files.md").read_text(encoding="utf-8")
    page: dict = {}
    for section, ln in _page_sections(text):
        for kind, prefix in (("table", "Tables:"), ("figure", "Figures:")):
            if ln.startswith(prefix):
                page.setdefault(section, {"table": set(), "figure": set()})[kind] |= set(re.findall(r"`(NAME_\w+)`", ln))
    code = study_outputs_from_code()
    assert set(page) == set(code), (sorted(set(code) - set(page)), sorted(set(page) - set(code)))
    for section in code:
        assert page[section] == code[section], (section, page[section], code[section])


def study_keys_from_page() -> dict[str, set[str]]:
    """The keys the study-file page documents: the first column of the ``| key |`` tables under each
    ``(study-SECTION)=`` target (``data--pair`` is the section ``data:pair``)."""
    text = (DOCS / "guide" / "study-files.md").read_text(encoding="utf-8")
    out: dict[str, set[str]] = {}
    in_table = None
    for section, ln in _page_sections(text):
        if ln.startswith("| key"):
            in_table = section
            out.setdefault(section, set())
            continue
        if in_table == section and ln.startswith("|"):
            if not set(ln) <= set("|-: "):
                out[section] |= set(re.findall(r"`([\w.]+)`", ln.strip("|").split("|")[0]))
        else:
            in_table = None
    return out


def study_keys_test():
    """The study-file page shows, under each section's target, exactly the table the schema renders
    (metaeval/output/study_schema.py: SCHEMA, schema_table), and every key study.py reads is in the schema."""
    from metaeval.output.study_schema import SCHEMA, schema_table

    text = (DOCS / "guide" / "study-files.md").read_text(encoding="utf-8")
    tables: dict[str, list[str]] = {}
    current = None
    for section, ln in _page_sections(text):
        if ln.startswith("| key"):
            current = tables.setdefault(section, [])
        elif not ln.startswith("|"):
            current = None
        if current is not None:
            current.append(ln)
    assert set(tables) == set(SCHEMA), (sorted(set(SCHEMA) - set(tables)), sorted(set(tables) - set(SCHEMA)))
    for section in SCHEMA:
        shown = "\n".join(tables[section])
        assert shown == schema_table(section), (section, shown, schema_table(section))
    code = study_keys_from_code()
    assert set(code) == set(SCHEMA), (sorted(set(code) ^ set(SCHEMA)))
    for section, keys in code.items():
        declared = set(SCHEMA[section]) | (set(SCHEMA["analysis"]) if section.startswith("analysis:") else set())
        assert keys <= declared, (section, "read by study.py, not in the schema:", sorted(keys - declared))
    assert study_keys_from_page() == {s: set(k) for s, k in SCHEMA.items()}


def study_keys_reader_test():
    """The reader finds keys in every form study.py uses (so the comparison above can fail)."""
    code = study_keys_from_code()
    assert {"seed", "n_resamples", "title", "description", "analysis", "data"} <= code["study"]
    assert {"type", "name", "title", "text"} <= code["analysis"]
    assert {"reference", "candidate", "scale", "out_of_scale", "scale_kind"} <= code["data:pair"]
    assert {"prevalence", "prevalence_from", "prevalence_from.path", "prevalence_from.column",
            "prevalence_from.positive"} <= code["analysis:prevalence"]
    assert {"scale", "scale_kind"} <= code["data:long"] and "scale" not in code["data:runs"]
    assert "own" in code["analysis:self_enhancement"] and "paths" in code["analysis:inspect"]


def docs_pages_exist_test():
    assert (DOCS / "getting-started.md").exists() and os.path.isdir(DOCS / "guide")


def citing_version_test():
    """The BibTeX entries take the version from the build (|release|, set from metaeval.__version__)."""
    import metaeval

    page = (DOCS / "citing.md").read_text(encoding="utf-8")
    assert page.count("|release|") == 2 and f"{{{metaeval.__version__}}}" not in page
    assert re.search(r"^release = metaeval\.__version__$", (DOCS / "conf.py").read_text(encoding="utf-8"), re.M)


def included_files_test():
    """The changelog and contributing pages include the repository's files rather than copies."""
    for page, source in (("changelog.md", "../CHANGELOG.md"), ("contributing.md", "../CONTRIBUTING.md")):
        text = (DOCS / page).read_text(encoding="utf-8")
        assert text.lstrip().startswith(f"```{{include}} {source}"), page
        assert (DOCS / source).resolve().exists()
