"""Math as MathML, converted at build time: no MathJax, nothing fetched when a page is viewed.

Sphinx's default math renderer loads MathJax from a CDN in the reader's browser; the site has to
work offline (and the browser check treats a failed request as an error). docutils ships a LaTeX to
MathML converter (``docutils.utils.math.latex2mathml``), and every current browser renders MathML
Core. A formula the converter cannot parse is a build warning (so an error under ``-W``) that names
the formula.
"""

from __future__ import annotations

import re

from docutils import nodes
from docutils.utils.math import latex2mathml
from sphinx.util import logging

logger = logging.getLogger(__name__)


#: LaTeX that MathJax accepts and docutils' converter does not, rewritten before conversion
REWRITES = {r"\dots": r"\ldots", r"\dotsc": r"\ldots", r"\dotsb": r"\cdots", r"\tfrac": r"\frac", r"\dfrac": r"\frac"}
_REWRITE = re.compile("|".join(re.escape(k) + r"(?![A-Za-z])" for k in sorted(REWRITES, key=len, reverse=True)))


def to_mathml(latex: str, display: bool) -> str:
    """MathML for a LaTeX formula (raises on what the converter cannot parse)."""
    latex = _REWRITE.sub(lambda m: REWRITES[m.group(0)], latex)
    if display and "\\\\" in latex and "\\begin" not in latex:
        latex = "\\begin{aligned}" + latex + "\\end{aligned}"  # several lines in one block, as MathJax does
    return latex2mathml.tex2mathml(latex, as_block=display)


def _mathml(self, node, latex: str, display: bool) -> str:
    try:
        return to_mathml(latex, display)
    except Exception as exc:  # noqa: BLE001 - any parser failure is reported with the formula
        logger.warning("cannot convert math to MathML (%s): %s", exc, latex, location=node)
        return f'<code class="math-error">{self.encode(latex)}</code>'


def visit_math_html(self, node) -> None:
    self.body.append(f'<span class="math">{_mathml(self, node, node.astext(), False)}</span>')
    raise nodes.SkipNode


def visit_displaymath_html(self, node) -> None:
    if node.get("number"):
        self.body.append(f'<div class="math-wrapper" id="{node["ids"][0] if node.get("ids") else ""}">')
        self.body.append(f'<span class="eqno">({node["number"]})</span>')
    else:
        self.body.append('<div class="math-wrapper">')
    latex = node.astext()
    parts = [latex] if node.get("nowrap") else [p for p in latex.split("\n\n") if p.strip()]
    for part in parts:
        self.body.append(_mathml(self, node, part, True))
    self.body.append("</div>\n")
    raise nodes.SkipNode


def setup(app):
    app.add_html_math_renderer("mathml", (visit_math_html, None), (visit_displaymath_html, None))
    app.connect("config-inited", _use_mathml)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}


def _use_mathml(app, config) -> None:
    if not config.html_math_renderer:
        config.html_math_renderer = "mathml"
