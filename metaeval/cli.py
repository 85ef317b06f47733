"""The ``metaeval`` command line: thin wrappers around the library.

Bad input prints one line (the InputError message) on stderr and exits with status 2.
"""

from __future__ import annotations

import argparse
import sys

from .core.errors import InputError


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

    print(inspect_file(args.file, scale=_scale(args.scale)).render())
    return 0


def _cmd_align(args) -> int:
    from .data.alignment import align

    label = args.label if "," not in args.label else tuple(args.label.split(","))
    refusals = args.refusals
    try:
        refusals = float(refusals)
    except ValueError:
        pass
    unjudged = args.unjudged
    try:
        unjudged = float(unjudged)
    except ValueError:
        pass
    paired = align(args.reference, args.candidate, on=tuple(args.on.split(",")), label=label,
                   scale=_scale(args.scale), out_of_scale=args.out_of_scale, duplicates=args.duplicates,
                   refusal_flag=args.refusal_flag, refusals=refusals, unjudged=unjudged)
    print(paired.report)
    return 0


def _cmd_demo(args) -> int:
    from .output.demo import run_demo

    summary = run_demo(args.out, seed=args.seed, n_resamples=args.n_resamples)
    print(summary)
    return 0


def _cmd_report(args) -> int:
    from .output.study import load_study, run_study

    study = load_study(args.study)
    if args.seed is not None:
        study["seed"] = args.seed
    if args.n_resamples is not None:
        study["n_resamples"] = args.n_resamples
    rep = run_study(study, args.out)
    print(f"{len(rep.tables)} tables and {len(rep.figures)} figures written to {args.out}/ "
          f"(report.md, report.html, results.json)")
    notes = rep.notes
    if len(notes):
        print(f"{len(notes)} note{'' if len(notes) == 1 else 's'} (warnings, rows left out), listed under Notes:")
        for r in notes.itertuples(index=False):
            print(f"  - {r.analysis}: {r.category}: {r.message}" + (f" (x{r.times})" if r.times > 1 else ""))
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``metaeval`` command (inspect, align, report, demo).

    Returns
    -------
    argparse.ArgumentParser

    Examples
    --------
    >>> args = build_parser().parse_args(["report", "study.toml", "--out", "out", "--seed", "7"])
    >>> args.command, args.study, args.seed, args.n_resamples
    ('report', 'study.toml', 7, None)
    """
    p = argparse.ArgumentParser(prog="metaeval", description="Statistical meta-evaluation of LLM and VLM judges.")
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
    a.add_argument("--refusals", default="keep", help="keep, drop, or a label to assign")
    a.add_argument("--unjudged", default="drop", help="drop, keep, or a fill label (e.g. 0)")
    a.set_defaults(func=_cmd_align)

    r = sub.add_parser("report", help="run a study file (TOML) and write the report folder")
    r.add_argument("study", help="the study file (see metaeval.study for the format)")
    r.add_argument("--out", required=True, help="output folder")
    r.add_argument("--seed", type=int, default=None, help="override the study's seed")
    r.add_argument("--n-resamples", type=int, default=None, help="override the study's number of resamples")
    r.set_defaults(func=_cmd_report)

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
        The exit status: 0, or 2 for bad input (the InputError's message is printed on stderr, one
        line).

    Examples
    --------
    >>> main(["inspect", "no-such-file.txt"])
    2
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except InputError as exc:
        print(f"metaeval: error: {exc}".replace("\n", " "), file=sys.stderr)
        return 2
    except BrokenPipeError:  # pragma: no cover - e.g. `metaeval align ... | head`
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
