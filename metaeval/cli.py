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
    import math

    from .core.scale import Scale

    if text is None:
        return None
    bad = InputError("--scale must be comma-separated finite numbers", source="the command line", text=text,
                     fix="--scale 0,1,2,3")
    try:
        values = [float(v) for v in text.split(",")]
    except ValueError:
        raise bad from None
    if not values or not all(math.isfinite(v) for v in values):
        raise bad
    try:
        return Scale(tuple(int(v) if v.is_integer() else v for v in values))
    except ValueError as exc:
        raise InputError(f"--scale is not a scale: {exc}", source="the command line", text=text,
                         fix="--scale 0,1,2,3") from None


def _binarize(paired, threshold):
    """``paired.binarize(threshold)``, a threshold outside the labels' range an InputError naming --binarize."""
    try:
        return paired.binarize(threshold)
    except ValueError as exc:
        if isinstance(exc, InputError):
            raise
        raise InputError(f"--binarize {threshold:g} cannot split the labels: {exc}", source="the command line",
                         fix="give a threshold between the lowest and the highest label (label >= it counts as 1)"
                         ) from None


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
    from .data.logs import LOG_EXTENSIONS, sniff

    try:
        if str(exc.source).lower().endswith(LOG_EXTENSIONS) and sniff(exc.source, deep=False):  # an eval log
            return InputError(exc.problem, source=exc.source, line=exc.line, expected=exc.expected,
                              fix="pass --on item --label score (the columns of metaeval.read_eval_log)")
    except (InputError, OSError):
        pass
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
    import math
    import warnings

    from .agreement.coefficients import agreement_report
    from .data.alignment import PairedTables, align

    _check_resampling(args)
    if args.binarize is not None and not math.isfinite(args.binarize):
        raise InputError("--binarize must be a finite number", source="the command line", text=str(args.binarize),
                         fix="--binarize 2 (labels >= 2 count as 1)")
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
        paired = _binarize(paired, args.binarize)
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
        from .output.escape import csv_frame

        print(csv_frame(frame).to_csv(index=False), end="")
    elif args.format == "json":
        import json

        doc = {"engine": engine, "alignment": _accounting_record(paired.report),
               "results": json.loads(frame.to_json(orient="records", double_precision=15)),
               "warnings": messages}
        from .output.escape import json_text

        print(json_text(json.dumps(doc, indent=1, ensure_ascii=False, allow_nan=False)))
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

    check_out(args.out, entries=REVIEW_ENTRIES, kind="review", inputs=[args.claims])   # before anything is read
    _check_resampling(args)
    path = Path(args.claims)
    from .data.io import check_regular
    from .review.prose import check_found, find_claims
    from .review.text import read_text

    check_regular(path)                                # a FIFO or a device: refused before it is opened
    if not path.is_file():
        raise InputError("no such file" if not path.exists() else "not a file", source=path,
                         fix="give a claims file (.toml) or a paper's text (.txt, .md, .tex, .html)")
    data = _read_input(path)
    if path.suffix.lower() == ".toml":            # the files a claims file names are inputs too
        check_out(args.out, entries=REVIEW_ENTRIES, kind="review", inputs=[path, *_claims_inputs(data, path)])
    title = args.title or f"Reviewer's note: {path.name}"
    from .review.claims import review_options

    opts = review_options(path if path.suffix.lower() == ".toml" else None, source="the command line",
                          alpha=args.alpha, confidence_level=args.confidence_level, n_resamples=args.n_resamples,
                          rng=args.seed)      # one table: flag > claims file > default, each checked
    args.alpha = opts["alpha"]
    if path.suffix.lower() == ".toml":
        import pandas as pd

        from .review.text import load_texts

        frame = check_claims(path, **opts)
        texts = load_texts(path)                       # [[text]] entries: passages read with review_text
        tests = found = None
        if texts:
            tests = pd.concat([review_text(t, alpha=args.alpha, one_tailed_in_text=args.one_tailed_in_text)
                               .assign(source=label) for label, t in texts], ignore_index=True)
            found = check_found([{**c, "sentence": f"{label}: {c['sentence']}"} for label, t in texts
                                 for c in find_claims(t)], alpha=args.alpha, n_resamples=args.n_resamples, rng=args.seed)
        paths = write_review(frame if len(frame) or not texts else None, args.out, tests=tests, title=title,
                             source=str(path), alpha=args.alpha, one_tailed_in_text=args.one_tailed_in_text,
                             found=found)
        if len(frame) or not texts:
            counts = frame["verdict"].value_counts()
            print(f"{len(frame)} claim{'' if len(frame) == 1 else 's'}: "
                  + ", ".join(f"{int(counts.get(v, 0))} {v}" for v in ("consistent", "inconsistent", "not supported")))
            _print_claims(frame)
        if tests is not None:
            _print_tests(tests, args.alpha)
            _print_claims(found, found_in_text=True)
    else:
        if path.suffix.lower() in (".pdf", ".docx", ".doc"):
            raise InputError(f"a {path.suffix} file is not text", source=path,
                             fix=f"convert it to text first (e.g. pdftotext {path.name}) and review the .txt")
        text = read_text(path)                         # bounded (MAX_TEXT_BYTES), UTF-8
        tests = review_text(text, alpha=args.alpha, one_tailed_in_text=args.one_tailed_in_text)
        found = check_found(find_claims(text), alpha=args.alpha, n_resamples=args.n_resamples, rng=args.seed)
        paths = write_review(None, args.out, tests=tests, title=title, source=str(path), alpha=args.alpha,
                             one_tailed_in_text=args.one_tailed_in_text, found=found)
        _print_tests(tests, args.alpha)
        _print_claims(found, found_in_text=True)
    print(f"written to {args.out}/: " + ", ".join(p.name for p in paths.values()))
    return 0


def _print_claims(frame, *, found_in_text: bool = False) -> None:
    """The claims' lines that `metaeval review` prints, each with its warnings (the note's, in every format)."""
    from .review.note import claim_warnings, no_nan

    if found_in_text:
        counts = frame["verdict"].value_counts()
        print(f"{len(frame)} claim{'' if len(frame) == 1 else 's'} found in the text: "
              + ", ".join(f"{int(counts.get(v, 0))} {v}" for v in ("consistent", "inconsistent", "not supported",
                                                                     "not checked")))
    for r in frame.to_dict(orient="records"):
        print(f"  {r['claim']}. {r['kind']}: {r['verdict']}" + (f" ({r['reproduced']})" if r["reproduced"] else "")
              + (f": {no_nan(r['reason']).split(';')[0]}" if found_in_text else ""))
        for w in claim_warnings(r):
            print(f"     warning: {w}")


#: The largest claims file or paper text `metaeval review` reads (bytes).
MAX_REVIEW_BYTES = 50 * 2**20


def _read_input(path):
    """The bytes of a file named on the command line: special files refused, size bounded, never blocking."""
    from .core.regular import read_regular

    return read_regular(path, limit=MAX_REVIEW_BYTES, what="the file",
                        limit_fix="review the results section (or split the text into parts)")


def _claims_inputs(data: bytes, path) -> list:
    """The paths a claims file names (``files = {...}``, ``[[text]] path``); none if it does not parse."""
    try:
        import tomllib
    except ImportError:  # pragma: no cover - Python 3.10
        import tomli as tomllib

    from .output.folder import run_inputs

    try:
        return run_inputs(tomllib.loads(data.decode("utf-8")), path.parent)
    except (ValueError, RecursionError):          # (check_claims says what is wrong with it)
        return []


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

    check_out(args.out, inputs=[args.study])    # before the study is read or any analysis runs
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

    import numpy as np
    import pandas as pd

    out = []
    for name, df in tables.items():
        if not {"statistic", "estimate", "ci_low", "ci_high"} <= set(df.columns) or not len(df):
            continue
        stats = list(df["statistic"])
        pick = next((stats.index(s) for s in HEADLINE_STATISTICS if s in stats), 0)
        if "rank" in df.columns and pd.to_numeric(df["rank"], errors="coerce").notna().any():
            pick = int(np.argmin(pd.to_numeric(df["rank"], errors="coerce").fillna(np.inf).to_numpy()))  # the best
        row = df.iloc[pick]
        groups = [c for c in df.columns[:list(df.columns).index("statistic")]]
        where = " ".join(_headline_cell(df, row, c) for c in groups if _headline_cell(df, row, c))
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


def _headline_cell(df, row, c) -> str:
    """``column=value`` of a grouping column of a headline row, in the report's rounding (whole numbers as
    integers, a column's ``_low``/``_high`` bounds beside it). In a ranked table (a panel) only the names
    and the rank: the row is the best one, its differences and p-values are in the report."""
    import numpy as np

    from .output.report import _fmt, _int_or

    v = row[c]
    cols = set(df.columns)
    if _isnan(v) or (c.endswith(("_low", "_high")) and c.rsplit("_", 1)[0] in cols):
        return ""
    numeric = isinstance(v, (bool, np.bool_, int, float, np.number)) or df[c].dtype.kind in "iufcb"
    if "rank" in cols and numeric and c != "rank":
        return ""
    text = _int_or(v, 4) if numeric and not isinstance(v, (bool, np.bool_)) else _fmt(v, 4)
    lo, hi = row.get(f"{c}_low"), row.get(f"{c}_high")
    if numeric and f"{c}_low" in cols and f"{c}_high" in cols and not (_isnan(lo) or _isnan(hi)):
        text += f" [{_int_or(lo, 4)}, {_int_or(hi, 4)}]"
    return f"{c}={text}"


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


def _cmd_monitor(args) -> int:
    import json
    from pathlib import Path

    import numpy as np
    import pandas as pd

    from .data.io import _read_table
    from .monitoring import monitor
    from .monitoring.sequences import _arrival_order
    from .output.study import _labels_column

    def frame(path):
        df, _, _ = _read_table(Path(path))
        return df

    if not (0 < args.alpha < 1):
        raise InputError(f"--alpha must be in (0, 1), got {args.alpha!r}", fix="pass --alpha 0.05")
    if not (0 <= args.delta < 1):
        raise InputError(f"--delta must be in [0, 1), got {args.delta!r}", fix="pass --delta 0.02")
    cols = {"reference": args.reference, "candidate": args.candidate}
    sides = {}
    for role, path in (("baseline", args.baseline), ("stream", args.stream)):
        df = frame(path)
        missing = [c for c in cols.values() if c not in df.columns and not (role == "stream" and c == args.reference)]
        if missing:
            raise InputError(f"{role} file has no column {missing[0]!r} (columns: {', '.join(map(str, df.columns))})",
                             source=path, fix="name the columns with --reference and --candidate")
        if role == "stream" and args.order:
            if args.order not in df.columns:
                raise InputError(f"the stream has no column {args.order!r}", source=path, fix="pass --order COLUMN")
            df = df.iloc[_arrival_order(df[args.order], args.order, path)]
        sides[role] = pd.DataFrame({k: (_labels_column(df, c) if c in df.columns else np.nan) for k, c in cols.items()})
    prod = None
    if args.baseline_production:
        pf = frame(args.baseline_production)
        if args.candidate not in pf.columns:
            raise InputError(f"no column {args.candidate!r}", source=args.baseline_production,
                             fix="give the judge's labels on baseline production items in the --candidate column")
        prod = _labels_column(pf, args.candidate).dropna().to_numpy()
    res = monitor(sides["baseline"], sides["stream"], statistic=args.statistic, delta=args.delta, alpha=args.alpha,
                  baseline_production=prod)
    if args.format == "json":
        out = {k: getattr(res, k) for k in ("statistic", "alarm", "alarm_at", "alarm_anchors", "p_value",
                                            "production_alarm_at", "production_p_value", "attribution", "threshold")}
        print(json.dumps({k: (None if isinstance(v, float) and v != v else v) for k, v in out.items()}))
    else:
        print(res)
    return 0


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
    v.add_argument("--seed", type=int, default=None, help="seed of the bootstraps (κ at another prevalence, F1; "
                   "default: the claims file's seed, else 0)")
    v.add_argument("--n-resamples", type=int, default=None, help="bootstrap replicates (default: the claims file's, "
                   "else 2000)")
    v.add_argument("--alpha", type=float, default=None, help="significance level of the claims and the text "
                   "(decision errors, 'ns'; default: the claims file's alpha, else 0.05)")
    v.add_argument("--confidence-level", type=float, default=None, help="level of the claims' intervals (default: "
                   "the claims file's, else 0.95)")
    v.add_argument("--one-tailed-in-text", action="store_true",
                   help="if the text says one-tailed, read a t, r or z whose p is consistent only one-tailed as "
                        "one-tailed (statcheck's OneTailedTxt)")
    v.set_defaults(func=_cmd_review)

    m = sub.add_parser("monitor", help="watch a deployed judge: an anytime-valid alarm when its agreement on "
                       "anchor items falls, and whether the judge or the judged systems moved",
                       description="Compare a stream of judged items with the validation pairs (metaeval.monitor). "
                                   "For a report with the monitoring chart, use a study file (analysis type "
                                   "`monitor`) with `metaeval report`.")
    m.add_argument("baseline", help="the validation pairs: a table with the human and the judge label of each item")
    m.add_argument("stream", help="the stream in arrival order: the judge's label on every item, the human label "
                   "on anchor items (empty elsewhere)")
    m.add_argument("--reference", default="reference", help="the human label column")
    m.add_argument("--candidate", default="candidate", help="the judge's label column")
    m.add_argument("--order", default=None, help="the stream's arrival-order column (default: file order)")
    m.add_argument("--statistic", default="accuracy", choices=["accuracy", "sensitivity", "specificity", "ppv", "npv"])
    m.add_argument("--delta", type=float, default=0.0, help="the tolerated fall of the statistic")
    m.add_argument("--alpha", type=float, default=0.05, help="the probability of any false alarm over the stream")
    m.add_argument("--baseline-production", default=None,
                   help="the judge's labels on production items before the change (tells systems from judge)")
    m.add_argument("--format", default="text", choices=["text", "json"])
    m.set_defaults(func=_cmd_monitor)

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
    streams = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = _Visible(sys.stdout), _Visible(sys.stderr)   # names from the data shown escaped
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
    except OSError as exc:                      # a file that cannot be read or written, named in one line
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"metaeval: error: {where}{exc.strerror or exc}", file=sys.stderr)
        return 2
    finally:
        sys.stdout, sys.stderr = streams


class _Visible:
    """A text stream that shows control and bidi characters escaped before they reach the terminal
    (:func:`metaeval.output.escape.visible`; a carriage return that starts a write, a progress bar's,
    stays)."""

    def __init__(self, stream):
        self._stream = stream

    def write(self, text):
        from .output.escape import visible

        head = "\r" if text.startswith("\r") else ""
        return self._stream.write(head + visible(text[len(head):]))

    def __getattr__(self, name):
        return getattr(self._stream, name)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
