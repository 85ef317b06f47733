"""The ``metaeval`` command line: thin wrappers around the library.

Bad input prints one line (the InputError message) on stderr and exits with status 2.
"""

from __future__ import annotations

import argparse
import difflib
import re
import sys

from .core.errors import OPTIONS, InputError, interface, render

#: The library's keyword -> the CLI's flag, for fix hints printed on the command line (from the one
#: table of options, :data:`metaeval.core.errors.OPTIONS`).
KEYWORD_FLAGS = {k: v[0] for k, v in OPTIONS.items() if v[0]}


def cli_syntax(text: str) -> str:
    """A library message with its Python keywords written as the CLI's flags.

    Parameters
    ----------
    text : str
        A message, e.g. an InputError's text with ``Fix: pass out_of_scale='clip'``.

    Returns
    -------
    str
        The same text with each ``keyword=value`` of :data:`KEYWORD_FLAGS` written as ``--flag value``
        (tuples as comma-separated values, quotes removed); other text is unchanged.

    References
    ----------
    The keywords of :func:`metaeval.align` and :func:`metaeval.agreement_report` and the flags of
    :func:`build_parser`; tests/test_cli_front_door.py.

    Examples
    --------
    >>> cli_syntax("Fix: pass out_of_scale='clip', 'drop' or 'missing' to choose a policy")
    'Fix: pass --out-of-scale clip, drop or missing to choose a policy'
    >>> cli_syntax("columns qid, docno, rel: pass on=('qid', 'docno'), label='rel'")
    'columns qid, docno, rel: pass --on qid,docno --label rel'
    >>> cli_syntax("rename the column or pass on=")
    'rename the column or pass --on'
    """
    return render(text, "cli")


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line with the fix (exit status 2)."""

    def error(self, message):
        m = re.search(r"argument (\S+): invalid choice: '?([^' ]*)'? \(choose from (.*)\)", message)
        if m:
            flag = m.group(1).split("/")[-1]
            choices = [c.strip(" '") for c in m.group(3).split(",")]
            close = difflib.get_close_matches(m.group(2), choices, n=1, cutoff=0.5)
            message = (f"argument {flag}: invalid value {m.group(2)!r}. Expected one of {', '.join(choices)}. "
                       f"Fix: {flag} {close[0] if close else choices[0]}")
        elif "<FLAG>" in message:
            m = re.match(r"argument (\S+): ", message)
            message = message.replace("<FLAG>", m.group(1).split("/")[-1] if m else "the flag")
        elif message.startswith("unrecognized arguments: "):
            options = {o for a in self._actions for o in a.option_strings}
            for a in self._actions:
                if isinstance(a, argparse._SubParsersAction):
                    options |= {o for sp in a.choices.values() for x in sp._actions for o in x.option_strings}
            bad = [w.split("=")[0] for w in message.split(": ", 1)[1].split() if w.startswith("--")]
            close = difflib.get_close_matches(bad[0], sorted(options), n=1, cutoff=0.6) if bad else []
            message += f". Fix: {close[0]}" if close else f" (see {self.prog} -h)"
        else:
            message = f"{message} (see {self.prog} -h)"
        self.exit(2, f"{self.prog}: error: {message}\n")


def _number_or(*words):
    def parse(text):
        if text in words:
            return text
        try:
            return float(text)
        except ValueError:
            close = difflib.get_close_matches(text, words, n=1, cutoff=0.0) or list(words)
            raise argparse.ArgumentTypeError(
                f"invalid value {text!r}. Expected {', '.join(words)} or a number. Fix: <FLAG> {close[0]}") from None
    parse.__name__ = " or ".join(words) + " or a number"
    return parse


def _scale(text):
    from .core.scale import Scale

    if text is None:
        return None
    try:
        levels = tuple(int(v) if float(v).is_integer() else float(v) for v in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"--scale must be comma-separated numbers, e.g. 0,1,2,3; got {text!r}") from None
    return Scale(levels)


def _cmd_inspect(args) -> int:
    from .data.inspect import inspect_file

    print(cli_syntax(inspect_file(args.file, scale=_scale(args.scale)).render()))
    return 0


def _accounting(report, engine: str | None = None) -> str:
    """The alignment accounting in one line (and the engine that aligned, when given)."""
    parts = []
    for side in report.names:
        fates = ", ".join(f"{n} {fate}" for (s, fate), n in report.counts.items() if s == side and n)
        parts.append(f"{side} {report.sources.get(side, '?')} {report.n_input[side]} rows ({fates or 'none'})")
    by = f" by the {engine} engine" if engine else ""
    return f"aligned {report.n_pairs} pairs{by}: " + "; ".join(parts)


def _accounting_record(report) -> dict:
    """The alignment accounting as JSON-ready data: pairs, and per side its source, rows, fates and notes."""
    sides = {}
    for side in report.names:
        sides[side] = {"source": str(report.sources.get(side, "?")), "rows": int(report.n_input[side]),
                       "fates": {fate: int(n) for (s, fate), n in report.counts.items() if s == side and n},
                       "notes": {note: int(n) for (s, note), n in report.notes.items() if s == side and n}}
    return {"pairs": int(report.n_pairs), "sides": sides}


def _engine_used(args, report) -> str:
    """The engine that aligned (the report records it; ``--engine`` for a report that does not)."""
    return getattr(report, "engine", None) or args.engine


def _suggest_columns(exc: InputError, on: str, label: str) -> InputError:
    """A missing key or label column of a file: the error again, with the mapping guessed from its columns."""
    if not (exc.problem.startswith(("no key column", "no label column")) and exc.source):
        return exc
    from .data import io as mio
    from .data.inspect import _guess_mapping

    try:
        raw, _, _ = mio._read_table(exc.source)
    except (InputError, OSError):
        return exc
    keys, lab = _guess_mapping(raw, label if label in raw.columns else None)
    if not keys or not lab:
        return exc
    fix = f"pass --on {','.join(keys)} --label {lab}"
    return InputError(exc.problem, source=exc.source, line=exc.line, expected=exc.expected, fix=fix)


def _label_arg(text):
    return text if "," not in text else tuple(text.split(","))


def _cmd_agree(args) -> int:
    import warnings

    from .agreement.coefficients import agreement_report
    from .data.alignment import PairedTables, align

    _check_resampling(args)
    try:
        paired = align(args.reference, args.candidate, on=tuple(args.on.split(",")), label=_label_arg(args.label),
                       scale=_scale(args.scale), out_of_scale=args.out_of_scale, duplicates=args.duplicates,
                       unjudged=args.unjudged, engine=args.engine,
                       by=None if args.cluster is None else (args.cluster,))
    except InputError as exc:
        if args.cluster is not None and str(exc).find("by= names a column") >= 0:
            on = args.on.split(",")
            raise InputError(f"no column {args.cluster!r} to cluster on", source=args.reference,
                             expected=f"one of the key columns {', '.join(on)} or a column of either file",
                             fix=f"--cluster {on[0]}") from None
        raise _suggest_columns(exc, args.on, args.label) from None
    if args.binarize is not None:
        paired = paired.binarize(args.binarize)
    columns = paired.by if isinstance(paired, PairedTables) else tuple(paired.data.columns)
    if args.cluster is not None and args.cluster not in columns:
        cols = [c for c in columns if c not in ("reference", "candidate")]
        raise InputError(f"no column {args.cluster!r} to cluster on", source=args.reference,
                         expected=f"one of {', '.join(map(str, cols))}", fix=f"--cluster {cols[0]}")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = agreement_report(paired, cluster=args.cluster, ci_method=None if args.ci_method == "none"
                               else args.ci_method, n_resamples=args.n_resamples, rng=args.seed)
    frame = res.to_frame()
    messages = [cli_syntax(str(w.message)) for w in caught]
    engine = _engine_used(args, paired.report)
    # stdout carries only the requested format (a table, CSV or JSON); the accounting goes to stderr
    # (printed once the run has succeeded: an error stays one line)
    print(_accounting(paired.report, engine), file=sys.stderr)
    if args.format == "csv":
        print(frame.to_csv(index=False), end="")
    elif args.format == "json":
        import json

        doc = {"engine": engine, "alignment": _accounting_record(paired.report),
               "results": json.loads(frame.to_json(orient="records", double_precision=15)),
               "warnings": messages}
        print(json.dumps(doc, indent=1, ensure_ascii=False, allow_nan=False))
    else:
        level = f"{frame['confidence_level'].iloc[0]:.0%}"
        unit = frame["unit"].iloc[0]
        shown = frame[["statistic", "estimate", "ci_low", "ci_high", "n"]].rename(
            columns={"ci_low": f"{level} low", "ci_high": f"{level} high"})
        print(shown.to_string(index=False, float_format=lambda v: f"{v:.4f}",
                              formatters={"n": lambda v: f"{int(v)}"}))
        ci = frame["ci_method"].iloc[0]
        if ci != "none":
            print(f"{ci} intervals from {args.n_resamples} resamples of {frame['n_units'].iloc[0]} {unit} "
                  f"(seed {args.seed})")
    for m in messages:
        print(f"warning: {m}", file=sys.stderr)
    return 0


def _cmd_align(args) -> int:
    from .data.alignment import align

    try:
        paired = align(args.reference, args.candidate, on=tuple(args.on.split(",")), label=_label_arg(args.label),
                       scale=_scale(args.scale), out_of_scale=args.out_of_scale, duplicates=args.duplicates,
                       refusal_flag=args.refusal_flag, refusals=args.refusals, unjudged=args.unjudged,
                       engine=args.engine)
    except InputError as exc:
        raise _suggest_columns(exc, args.on, args.label) from None
    print(paired.report)
    return 0


def _cmd_demo(args) -> int:
    from .output.demo import run_demo
    from .output.folder import check_out

    check_out(args.out)
    _check_resampling(args)
    summary = run_demo(args.out, seed=args.seed, n_resamples=args.n_resamples)
    print(summary)
    return 0


def _cmd_review(args) -> int:
    from pathlib import Path

    from .output.folder import check_out
    from .review.claims import check_claims
    from .review.note import REVIEW_ENTRIES, write_review
    from .review.text import review_text

    check_out(args.out, entries=REVIEW_ENTRIES, kind="review")     # before anything is read or computed
    _check_resampling(args)
    path = Path(args.claims)
    if not path.is_file():
        raise InputError("no such file" if not path.exists() else "not a file", source=path,
                         fix="give a claims file (.toml) or a paper's text (.txt, .md, .tex, .html)")
    title = args.title or f"Reviewer's note: {path.name}"
    if path.suffix.lower() == ".toml":
        import pandas as pd

        from .review.claims import load_texts

        frame = check_claims(path, n_resamples=args.n_resamples, rng=args.seed)
        texts = load_texts(path)                       # [[text]] entries: passages read with review_text
        tests = None
        if texts:
            tests = pd.concat([review_text(t, alpha=args.alpha, one_tailed_in_text=args.one_tailed_in_text)
                               .assign(source=label) for label, t in texts], ignore_index=True)
        paths = write_review(frame if len(frame) or not texts else None, args.out, tests=tests, title=title,
                             source=str(path), alpha=args.alpha, one_tailed_in_text=args.one_tailed_in_text)
        if len(frame) or not texts:
            counts = frame["verdict"].value_counts()
            print(f"{len(frame)} claim{'' if len(frame) == 1 else 's'}: "
                  + ", ".join(f"{int(counts.get(v, 0))} {v}" for v in ("consistent", "inconsistent", "not supported")))
            for r in frame.itertuples(index=False):
                print(f"  {r.claim}. {r.kind}: {r.verdict}" + (f" ({r.reproduced})" if r.reproduced else ""))
        if tests is not None:
            _print_tests(tests, args.alpha)
    else:
        if path.suffix.lower() in (".pdf", ".docx", ".doc"):
            raise InputError(f"a {path.suffix} file is not text", source=path,
                             fix=f"convert it to text first (e.g. pdftotext {path.name}) and review the .txt")
        try:
            text = path.read_bytes().decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise InputError(f"not UTF-8 text (byte {exc.start} cannot be read)", source=path,
                             fix="save the text as UTF-8 (e.g. iconv -f latin1 -t utf-8)") from None
        tests = review_text(text, alpha=args.alpha, one_tailed_in_text=args.one_tailed_in_text)
        paths = write_review(None, args.out, tests=tests, title=title, source=str(path), alpha=args.alpha,
                             one_tailed_in_text=args.one_tailed_in_text)
        _print_tests(tests, args.alpha)
    print(f"written to {args.out}/: " + ", ".join(p.name for p in paths.values()))
    return 0


def _print_tests(tests, alpha) -> None:
    """The summary of review_text's rows that `metaeval review` prints."""
    n, ne, nd = len(tests), int(tests["error"].sum()), int(tests["decision_error"].sum())
    print(f"{n} test result{'' if n == 1 else 's'} found: {ne} error{'' if ne == 1 else 's'}, "
          f"{nd} decision error{'' if nd == 1 else 's'} (α = {alpha:g})")
    for i, r in enumerate(tests.to_dict(orient="records"), start=1):
        flag = "decision error" if r["decision_error"] else "error" if r["error"] else "consistent"
        where = f"{r['source']}: " if "source" in r else ""
        print(f"  {i}. {where}{' '.join(r['raw'].split())}: {flag} (recomputed p = {r['computed_p']:.4g})")


def _check_resampling(args) -> None:
    """``--seed`` and ``--n-resamples``, checked before anything runs."""
    from .core.resample import check_n_resamples, check_seed

    if getattr(args, "seed", None) is not None:
        check_seed(args.seed, where="--seed", source="the command line")
    if getattr(args, "n_resamples", None) is not None:
        check_n_resamples(args.n_resamples, where="--n-resamples", source="the command line")


def _pdflatex() -> str:
    """The pdflatex program on PATH, or an InputError saying how to get it (checked before a study runs)."""
    import shutil

    exe = shutil.which("pdflatex")
    if exe is None:
        raise InputError("--pdf needs pdflatex, which is not on PATH", source="the command line",
                         fix="install TeX Live (Debian/Ubuntu: apt-get install texlive-latex-recommended), "
                             "or drop --pdf and compile report.tex yourself")
    return exe


def compile_pdf(tex, *, pdflatex: str | None = None, runs: int = 2, timeout: float = 600) -> tuple:
    r"""Compile a report's ``report.tex`` with pdflatex, in its folder.

    pdflatex runs with ``-interaction=nonstopmode -halt-on-error``; a second run resolves the
    cross-references (it is skipped when the first log does not ask for it).

    Parameters
    ----------
    tex : str or path-like
        The ``.tex`` file (``OUT/report.tex``).
    pdflatex : str, optional
        The program (default: ``pdflatex`` on PATH).
    runs : int
        At most this many runs.
    timeout : float
        Seconds per run.

    Returns
    -------
    (pathlib.Path or None, str)
        The PDF and an empty string, or None and the first error line of the LaTeX log
        (``"! ..."``, with its ``l.N`` line number when the log gives one).

    References
    ----------
    tests/test_cli_pipelines.py compiles the demo's report with ``metaeval report --pdf``.

    Examples
    --------
    >>> import pathlib, shutil, tempfile
    >>> tex = pathlib.Path(tempfile.mkdtemp()) / "report.tex"
    >>> _ = tex.write_text(r"\documentclass{article}\begin{document}Hello\end{document}")
    >>> pdf, error = compile_pdf(tex) if shutil.which("pdflatex") else (tex.with_suffix(".pdf"), "")
    >>> pdf.name, error
    ('report.pdf', '')
    """
    import subprocess
    from pathlib import Path

    tex = Path(tex)
    exe = pdflatex or _pdflatex()
    log = tex.with_suffix(".log")
    for _ in range(max(1, runs)):
        try:
            r = subprocess.run([exe, "-interaction=nonstopmode", "-halt-on-error", tex.name], cwd=tex.parent,
                               stdin=subprocess.DEVNULL, capture_output=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return None, f"pdflatex did not finish in {timeout:g} s"
        text = log.read_text(encoding="latin-1") if log.exists() else r.stdout.decode("latin-1")
        if r.returncode != 0:
            lines = text.splitlines()
            first = next((i for i, ln in enumerate(lines) if ln.startswith("!")), None)
            if first is None:
                return None, f"pdflatex exited with status {r.returncode}"
            where = next((ln.split(" ", 1)[0] for ln in lines[first + 1:first + 12] if re.match(r"l\.\d+", ln)), "")
            return None, lines[first].lstrip("! ").strip() + (f" (report.tex {where})" if where else "")
        if "Rerun to get" not in text:
            break
    return tex.with_suffix(".pdf"), ""


def _cmd_report(args) -> int:
    from pathlib import Path

    from .output.folder import check_out
    from .output.study import load_study, run_study

    check_out(args.out)                     # before the study is read or any analysis runs
    _check_resampling(args)
    exe = _pdflatex() if args.pdf else None
    study = load_study(args.study)
    if args.seed is not None:
        study["seed"] = args.seed
    if args.n_resamples is not None:
        study["n_resamples"] = args.n_resamples
    rep = run_study(study, args.out)
    print(f"{len(rep.tables)} tables and {len(rep.figures)} figures written to {args.out}/ "
          f"(report.md, report.html, report.tex, results.json)")
    tex = Path(args.out) / "report.tex"
    print(f"LaTeX: {tex}")
    status = 0
    if exe is not None:
        pdf, error = compile_pdf(tex, pdflatex=exe)
        if pdf is not None:
            print(f"PDF: {pdf}")
        else:
            print(f"metaeval: error: pdflatex could not compile {tex}: {error}. "
                  f"The log is {tex.with_suffix('.log')}; the rest of the report is written", file=sys.stderr)
            status = 1
    lines = headlines(rep.tables)
    if lines:
        print("headline numbers (one row per table of estimates; every row is in the report):")
        print("\n".join(f"  {line}" for line in lines))
    notes = rep.notes
    if len(notes):
        print(f"{len(notes)} note{'' if len(notes) == 1 else 's'} (warnings, rows left out), listed under Notes:")
        for r in notes.itertuples(index=False):
            print(f"  - {r.analysis}: {r.category}: {r.message}" + (f" (x{r.times})" if r.times > 1 else ""))
    return status


#: Statistics preferred as a table's headline, in this order (else the table's first row).
HEADLINE_STATISTICS = ("cohen_kappa", "kappa", "kendall_b", "kendall_tau", "pearson_r", "spearman_rho",
                       "agreement", "win_rate")


def headlines(tables: dict) -> list[str]:
    """One line per table of estimates: the headline statistic, its interval and what it was resampled over.

    Parameters
    ----------
    tables : dict of str to pandas.DataFrame
        A report's tables (``Report.tables``); tables without ``statistic``, ``estimate``, ``ci_low``
        and ``ci_high`` columns are skipped.

    Returns
    -------
    list of str
        ``"<table>: <statistic> <estimate> [<low>, <high>] (n=<n>, <n_units> <unit>)"``, preceded by
        the row's grouping columns when the table has any.

    References
    ----------
    The tables :func:`metaeval.run_study` writes; tests/test_cli_front_door.py runs ``metaeval
    report`` on a study and checks the kappa line against the table.

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"statistic": ["observed_agreement", "cohen_kappa"], "estimate": [0.81, 0.6033],
    ...                   "ci_low": [0.76, 0.51], "ci_high": [0.85, 0.69], "n": [202, 202],
    ...                   "unit": ["clusters", "clusters"], "n_units": [35, 35]})
    >>> headlines({"kappa": t, "counts": pd.DataFrame({"side": ["a"], "count": [3]})})
    ['kappa: cohen_kappa 0.6033 [0.5100, 0.6900] (n=202, 35 clusters)']
    """
    import math

    out = []
    for name, df in tables.items():
        if not {"statistic", "estimate", "ci_low", "ci_high"} <= set(df.columns) or not len(df):
            continue
        stats = list(df["statistic"])
        pick = next((stats.index(s) for s in HEADLINE_STATISTICS if s in stats), 0)
        row = df.iloc[pick]
        groups = [c for c in df.columns[:list(df.columns).index("statistic")]]
        where = " ".join(f"{c}={row[c]}" for c in groups)
        est = f"{row['estimate']:.4f}"
        if not (math.isnan(row["ci_low"]) or math.isnan(row["ci_high"])):
            est += f" [{row['ci_low']:.4f}, {row['ci_high']:.4f}]"
        extra = []
        if "n" in df.columns and not _isnan(row["n"]):
            extra.append(f"n={int(row['n'])}")
        if {"unit", "n_units"} <= set(df.columns) and not _isnan(row["n_units"]) and int(row["n_units"]) > 0 \
                and str(row["unit"]) not in ("none", "", "nan"):
            extra.append(f"{int(row['n_units'])} {row['unit']}")
        out.append(f"{name}: " + (f"{where} " if where else "") + f"{row['statistic']} {est}"
                   + (f" ({', '.join(extra)})" if extra else ""))
    return out


def _isnan(v) -> bool:
    try:
        return v != v or v is None
    except (TypeError, ValueError):  # pragma: no cover
        return False


def study_keys() -> str:
    """Every key a study file may hold, section by section (what ``metaeval report --keys`` prints).

    Returns
    -------
    str
        For each section of :data:`metaeval.output.study_schema.SCHEMA` a heading (``[data.NAME]
        with kind = "pair"``, ``[[analysis]] with type = "agreement"`` ...) and its table of keys
        (:func:`metaeval.output.study_schema.schema_table`), the tables of ``docs/guide/study-files.md``.

    References
    ----------
    The one declaration of the keys, ``metaeval/output/study_schema.py``; tests/test_cli_pipelines.py.

    Examples
    --------
    >>> text = study_keys()
    >>> text.splitlines()[0]
    'Keys of a study file (TOML; docs/guide/study-files.md explains them with examples)'
    >>> '[[analysis]] with type = "agreement"' in text
    True
    """
    from .output.study_schema import SCHEMA, schema_table

    def heading(section: str) -> str:
        if section == "study":
            return "top level"
        if section == "analysis":
            return "[[analysis]] (every analysis)"
        kind, _, value = section.partition(":")
        return f'[data.NAME] with kind = "{value}"' if kind == "data" else f'[[analysis]] with type = "{value}"'

    parts = ["Keys of a study file (TOML; docs/guide/study-files.md explains them with examples)"]
    parts += [f"\n{heading(section)}\n{schema_table(section)}" for section in SCHEMA]
    return "\n".join(parts) + "\n"


class _KeysAction(argparse.Action):
    """``--keys``: print :func:`study_keys` and exit (like ``--version``, before other arguments are checked)."""

    def __init__(self, option_strings, dest, **kwargs):
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        sys.stdout.write(study_keys())
        parser.exit(0)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``metaeval`` command (agree, inspect, align, report, demo).

    Returns
    -------
    argparse.ArgumentParser

    Examples
    --------
    >>> args = build_parser().parse_args(["report", "study.toml", "--out", "out", "--seed", "7"])
    >>> args.command, args.study, args.seed, args.n_resamples
    ('report', 'study.toml', 7, None)
    """
    p = _Parser(prog="metaeval", description="Statistical meta-evaluation of LLM and VLM judges.")
    p.add_argument("--version", action="version", version=f"metaeval {__import__('metaeval').__version__}")
    sub = p.add_subparsers(dest="command", required=True)

    q = sub.add_parser("inspect", help="detect a file's kind; print rows, label distribution and problems")
    q.add_argument("file")
    q.add_argument("--scale", help="declared levels, e.g. 0,1,2,3 (labels outside are reported)")
    q.set_defaults(func=_cmd_inspect)

    a = sub.add_parser("align", help="pair two judgment sets and print where every row went")
    a.add_argument("reference")
    a.add_argument("candidate")
    a.add_argument("--on", default="query_id,doc_id", help="key column(s), comma-separated")
    a.add_argument("--label", default="relevance", help="label column (or ref,cand)")
    a.add_argument("--scale", help="declared levels, e.g. 0,1,2,3")
    a.add_argument("--out-of-scale", default="error", choices=["error", "clip", "drop", "missing"])
    a.add_argument("--duplicates", default="error", choices=["error", "first", "last", "majority", "mean"])
    a.add_argument("--refusal-flag", default=None, help="column whose truthy values mark refusals")
    a.add_argument("--refusals", default="keep", type=_number_or("keep", "drop"),
                   help="keep, drop, or a label to assign")
    a.add_argument("--unjudged", default="drop", type=_number_or("drop", "keep"),
                   help="drop, keep, or a fill label (e.g. 0)")
    a.set_defaults(func=_cmd_align)

    g = sub.add_parser("agree", help="align two judgment files and print their agreement with intervals")
    g.add_argument("reference", help="the reference (human) qrels or table of judgments")
    g.add_argument("candidate", help="the candidate (judge) qrels or table of judgments")
    g.add_argument("--on", default="query_id,doc_id", help="key column(s), comma-separated")
    g.add_argument("--label", default="relevance", help="label column (or ref,cand)")
    g.add_argument("--scale", help="declared levels, e.g. 0,1,2,3 (default: the labels seen)")
    g.add_argument("--cluster", default=None, help="resample this column's groups (e.g. query_id: topic intervals)")
    g.add_argument("--binarize", type=float, default=None, help="compare label >= this threshold (e.g. 2)")
    g.add_argument("--format", default="table", choices=["table", "csv", "json"])
    g.add_argument("--n-resamples", type=int, default=2000, help="bootstrap resamples")
    g.add_argument("--seed", type=int, default=20261130, help="random seed of the bootstrap")
    g.add_argument("--ci-method", default="bca", choices=["bca", "percentile", "basic", "analytic", "none"])
    g.add_argument("--out-of-scale", default="error", choices=["error", "clip", "drop", "missing"])
    g.add_argument("--duplicates", default="error", choices=["error", "first", "last", "majority", "mean"])
    g.add_argument("--unjudged", default="drop", type=_number_or("drop"),
                   help="drop, or a fill label for reference items the candidate did not judge (e.g. 0)")
    g.set_defaults(func=_cmd_agree)

    for cmd in (a, g):
        cmd.add_argument("--engine", default="auto", choices=["auto", "pandas", "duckdb", "spark"],
                         help="who aligns: pandas (in memory), duckdb (beyond memory; Parquet folders and "
                              "globs), spark (a local session); auto picks from the inputs' kind and size")
    r = sub.add_parser("report", help="run a study file (TOML) and write the report folder",
                       description="Run a study file and write the report folder (report.md, report.html, "
                                   "report.tex, results.json, tables/, figures/). The format of study files: "
                                   "docs/guide/study-files.md; `metaeval report --keys` lists every key.")
    r.add_argument("study", help="the study file (TOML; every key: docs/guide/study-files.md or metaeval report --keys)")
    r.add_argument("--out", required=True, help="output folder")
    r.add_argument("--pdf", action="store_true",
                   help="also compile report.pdf with pdflatex (which must be on PATH) and print its path")
    r.add_argument("--keys", action=_KeysAction, help="list every key a study file may hold, and exit")
    r.add_argument("--seed", type=int, default=None, help="override the study's seed")
    r.add_argument("--n-resamples", type=int, default=None, help="override the study's number of resamples")
    r.set_defaults(func=_cmd_report)

    v = sub.add_parser("review", help="check a paper's claims (a claims TOML file) or the test results in its "
                       "text, and write the reviewer's note")
    v.add_argument("claims", help="the claims file (TOML, [[claim]] tables; see metaeval.check_claims), or the "
                   "paper's text (any other file, UTF-8: its APA-style results are checked with metaeval.review_text)")
    v.add_argument("--out", required=True, help="output folder (review.md, review.html, review.tex, review.json)")
    v.add_argument("--title", default=None, help="the note's title")
    v.add_argument("--seed", type=int, default=0, help="seed of the bootstraps (κ at another prevalence, F1)")
    v.add_argument("--n-resamples", type=int, default=2000, help="bootstrap replicates")
    v.add_argument("--alpha", type=float, default=0.05, help="a text's significance level (decision errors, 'ns')")
    v.add_argument("--one-tailed-in-text", action="store_true",
                   help="if the text says one-tailed, read a t, r or z whose p is consistent only one-tailed as "
                        "one-tailed (statcheck's OneTailedTxt)")
    v.set_defaults(func=_cmd_review)

    d = sub.add_parser("demo", help="run the bundled study over the sample data and write a report folder")
    d.add_argument("--out", required=True, help="output folder")
    d.add_argument("--seed", type=int, default=20261130)
    d.add_argument("--n-resamples", type=int, default=2000)
    d.set_defaults(func=_cmd_demo)
    return p


def main(argv: list[str] | None = None) -> int:
    """Run the ``metaeval`` command.

    Parameters
    ----------
    argv : list of str, optional
        The arguments (default ``sys.argv[1:]``).

    Returns
    -------
    int
        The exit status: 0, 2 for bad input (the InputError's message is printed on stderr, one
        line), or 130 when interrupted (Ctrl-C: ``metaeval: interrupted`` on stderr, no traceback).

    Examples
    --------
    >>> main(["inspect", "no-such-file.txt"])
    2
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        with interface("cli"):
            return args.func(args)
    except InputError as exc:
        print(cli_syntax(f"metaeval: error: {exc}".replace("\n", " ")), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("metaeval: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # pragma: no cover - e.g. `metaeval align ... | head`
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
