"""Small docutils node builders shared by the site's directives.

The directives build nodes directly instead of parsing generated reStructuredText, so they work
the same in ``.rst`` pages and in MyST Markdown pages (where a nested parse would read Markdown).
"""

from __future__ import annotations

import re

from docutils import nodes
from sphinx import addnodes

_LITERAL = re.compile(r"``(.+?)``")


def inline(text: str) -> list[nodes.Node]:
    """Text with ````literal```` spans as literal nodes, the rest as plain text."""
    out: list[nodes.Node] = []
    pos = 0
    for m in _LITERAL.finditer(text):
        if m.start() > pos:
            out.append(nodes.Text(text[pos:m.start()]))
        out.append(nodes.literal(m.group(1), m.group(1)))
        pos = m.end()
    if pos < len(text):
        out.append(nodes.Text(text[pos:]))
    return out


def literal(text: str) -> nodes.literal:
    return nodes.literal(text, text)


def pyref(target: str, text: str | None = None, reftype: str = "obj") -> addnodes.pending_xref:
    """A cross-reference to a Python object (``metaeval.cohen_kappa``), shown as code."""
    text = text or target
    ref = addnodes.pending_xref("", refdomain="py", reftype=reftype, reftarget=target, refexplicit=True,
                                refwarn=False, **{"py:module": None, "py:class": None})
    ref += nodes.literal(text, text, classes=["xref", "py", f"py-{reftype}"])
    return ref


def cell(content) -> nodes.entry:
    entry = nodes.entry()
    if content is None or content == "":
        return entry
    if isinstance(content, nodes.Node):
        content = [content]
    if isinstance(content, str):
        content = inline(content)
    para = nodes.paragraph()
    para.extend(content)
    entry += para
    return entry


def table(header: list[str], rows: list[list], *, widths: list[int] | None = None,
          classes: list[str] | None = None, row_classes: list[list[str]] | None = None) -> nodes.table:
    """A table node; each cell is a string (````literal```` allowed), a node, a list of nodes or None."""
    tbl = nodes.table(classes=["metaeval-table", *(classes or [])])
    group = nodes.tgroup(cols=len(header))
    tbl += group
    for w in widths or [1] * len(header):
        group += nodes.colspec(colwidth=w)
    thead = nodes.thead()
    group += thead
    hrow = nodes.row()
    for h in header:
        hrow += cell(h)
    thead += hrow
    tbody = nodes.tbody()
    group += tbody
    for i, r in enumerate(rows):
        row = nodes.row(classes=(row_classes[i] if row_classes else []))
        for c in r:
            row += cell(c)
        tbody += row
    return tbl


def paragraph(text_or_nodes) -> nodes.paragraph:
    p = nodes.paragraph()
    p.extend(inline(text_or_nodes) if isinstance(text_or_nodes, str) else text_or_nodes)
    return p


def literal_block(text: str) -> nodes.literal_block:
    block = nodes.literal_block(text, text)
    block["language"] = "text"
    return block
