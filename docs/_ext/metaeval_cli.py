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
import importlib
import re

from docutils import nodes
from docutils.parsers.rst import directives
from metaeval_nodes import inline, literal, literal_block, paragraph, table
from sphinx.util.docutils import SphinxDirective
from sphinx.util.nodes import make_id


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


def _usage(parser: argparse.ArgumentParser, width: int = 88) -> str:
    """The usage line without argparse's "usage: " prefix, wrapped at ``width`` (not the terminal's)."""
    text = " ".join(parser.format_usage().split()).removeprefix("usage: ")
    # break only between options: never inside "[--seed SEED]"
    parts = re.findall(r"\[[^\]]*\]|\{[^}]*\}|\S+", text)
    indent = " " * (len(parser.prog) + 1)
    lines, line = [], ""
    for part in parts:
        if line and len(line) + 1 + len(part) > width:
            lines.append(line)
            line = indent + part
        else:
            line = f"{line} {part}" if line else part
    return "\n".join([*lines, line])


def _arg_rows(parser: argparse.ArgumentParser) -> list[list]:
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
        meaning: list[nodes.Node] = []
        if a.help and a.help != argparse.SUPPRESS:
            text = a.help.replace("%(prog)s", parser.prog)
            meaning += inline(text[0].upper() + text[1:] + ("" if text.endswith(".") else "."))
        if a.choices is not None:
            meaning.append(nodes.Text(" One of "))
            for i, c in enumerate(a.choices):
                meaning += ([nodes.Text(", ")] if i else []) + [literal(str(c))]
            meaning.append(nodes.Text("."))
        if a.required and a.option_strings:
            meaning.append(nodes.Text(" Required."))
        if not a.option_strings:
            meaning.append(nodes.Text(" Positional."))
        if isinstance(a, argparse._VersionAction):
            meaning = [nodes.Text("Print the version and exit.")]
        default = None if a.default in (None, argparse.SUPPRESS) or a.nargs == 0 else literal(str(a.default))
        rows.append([literal(name), default, meaning])
    return rows


def _section(directive: SphinxDirective, title: str, rubric: bool) -> nodes.Element:
    if rubric:
        return nodes.container("", nodes.rubric(title, title))
    section = nodes.section(ids=[make_id(directive.env, directive.state.document, "cli", title)], names=[title])
    section += nodes.title(title, title)
    directive.state.document.note_implicit_target(section)
    return section


class CliDirective(SphinxDirective):
    has_content = False
    option_spec = {"prog": directives.unchanged, "no-sections": directives.flag}

    def run(self):
        parser = _parser()
        subs = _subparsers(parser)
        only = self.options.get("prog")
        if only and only not in subs:
            raise self.error(f"metaeval-cli: no subcommand {only!r} (the parser has {', '.join(subs)})")
        self.env.note_dependency(importlib.import_module("metaeval.cli").__file__)
        out: list[nodes.Node] = []
        header = ["argument", "default", "meaning"]
        if not only:
            out.append(literal_block(_usage(parser)))
            if parser.description:
                out.append(paragraph(parser.description))
            out.append(table(header, _arg_rows(parser), widths=[30, 15, 55]))
        for name, (sub, help_) in subs.items():
            if only and name != only:
                continue
            sec = _section(self, f"metaeval {name}", "no-sections" in self.options or bool(only))
            sec += literal_block(_usage(sub))
            if help_:
                sec += paragraph(help_[0].upper() + help_[1:] + ("" if help_.endswith(".") else "."))
            if sub.description:
                sec += paragraph(sub.description)
            sec += table(header, _arg_rows(sub), widths=[30, 15, 55])
            out.append(sec)
        return out


def setup(app):
    app.add_directive("metaeval-cli", CliDirective)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}
