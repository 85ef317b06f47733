"""The ``metaeval-cli`` directive: the command-line reference, read from the argument parser.

``.. metaeval-cli::`` (MyST: a ```` ```{metaeval-cli} ```` fence) renders, from
:func:`metaeval.cli.build_parser`, the program's usage and description and then one section per
subcommand: its usage line, its help, and a table of its arguments (name, default, choices, help).
Nothing is typed by hand, so the page cannot drift from the parser.

Options: ``:prog:`` — only this subcommand (e.g. ``:prog: report``); ``:no-sections:`` — render
subcommands as rubrics instead of sections (for use inside another page's section).
"""

from __future__ import annotations

import argparse

from docutils import nodes
from docutils.parsers.rst import directives
from docutils.statemachine import StringList
from sphinx.util.docutils import SphinxDirective


def _parser():
    from metaeval.cli import build_parser

    return build_parser()


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, tuple[argparse.ArgumentParser, str]]:
    """``{name: (parser, help)}`` of the subcommands, in definition order."""
    out = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help for a in action._choices_actions}
            for name, sub in action.choices.items():
                out[name] = (sub, helps.get(name) or "")
    return out


def _usage(parser: argparse.ArgumentParser) -> str:
    return " ".join(parser.format_usage().split())  # one line, "usage: ..." included


def _lit(text: str) -> str:
    return "``" + text.replace("`", "'") + "``"


def _arg_rows(parser: argparse.ArgumentParser) -> list[tuple[str, str, str]]:
    rows = []
    for a in parser._actions:
        if isinstance(a, (argparse._HelpAction, argparse._SubParsersAction)):
            continue
        if a.option_strings:
            name = ", ".join(a.option_strings)
            if a.nargs != 0:
                name += " " + (a.metavar or a.dest.upper())
        else:
            name = a.metavar or a.dest
        bits = []
        if a.help and a.help != argparse.SUPPRESS:
            bits.append(a.help.replace("%(prog)s", parser.prog))
        if a.choices is not None:
            bits.append("One of " + ", ".join(_lit(str(c)) for c in a.choices) + ".")
        if a.required and a.option_strings:
            bits.append("Required.")
        if not a.option_strings:
            bits.append("Positional.")
        default = "" if a.default in (None, argparse.SUPPRESS) or a.nargs == 0 else _lit(str(a.default))
        rows.append((_lit(name), default, " ".join(b if b.endswith(".") else b + "." for b in bits)))
    return rows


def _table(rows: list[tuple[str, str, str]]) -> list[str]:
    lines = [".. list-table::", "   :header-rows: 1", "   :widths: 30 15 55", "", "   * - argument",
             "     - default", "     - meaning"]
    for name, default, meaning in rows:
        lines += [f"   * - {name}", f"     - {default}", f"     - {meaning}"]
    return lines


class CliDirective(SphinxDirective):
    has_content = False
    option_spec = {"prog": directives.unchanged, "no-sections": directives.flag}

    def run(self):
        parser = _parser()
        subs = _subparsers(parser)
        only = self.options.get("prog")
        lines: list[str] = []
        if not only:
            lines += ["::", "", "   " + _usage(parser).removeprefix("usage: "), ""]
            if parser.description:
                lines += [parser.description, ""]
            lines += _table(_arg_rows(parser)) + [""]
        for name, (sub, help_) in subs.items():
            if only and name != only:
                continue
            title = f"metaeval {name}"
            if "no-sections" in self.options:
                lines += [f".. rubric:: {title}", ""]
            else:
                lines += [title, "-" * len(title), ""]
            lines += ["::", "", "   " + _usage(sub).removeprefix("usage: "), ""]
            if help_:
                lines += [help_[0].upper() + help_[1:] + ("" if help_.endswith(".") else "."), ""]
            if sub.description:
                lines += [sub.description, ""]
            lines += _table(_arg_rows(sub)) + [""]
        if only and only not in subs:
            raise self.error(f"metaeval-cli: no subcommand {only!r} (the parser has {', '.join(subs)})")
        container = nodes.section() if "no-sections" not in self.options and not only else nodes.container()
        self.state.nested_parse(StringList(lines, source="metaeval.cli.build_parser"), self.content_offset,
                                container, match_titles=True)
        self.env.note_dependency(__import__("metaeval.cli").cli.__file__)
        return list(container.children)


def setup(app):
    app.add_directive("metaeval-cli", CliDirective)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}
