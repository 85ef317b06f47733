"""Math as MathML, converted at build time: no MathJax, nothing fetched when a page is viewed.

Sphinx's default math renderer loads MathJax from a CDN in the reader's browser; the site has to
work offline (and the browser check treats a failed request as an error). docutils ships a LaTeX to
MathML converter (``docutils.utils.math.latex2mathml``), and every current browser renders MathML
Core. A formula the converter cannot parse is a build warning (so an error under ``-W``) that names
the formula.
"""

from __future__ import annotations

from docutils import nodes
from docutils.utils.math import latex2mathml, math2html  # noqa: F401  (math2html: docutils' fallback)
from sphinx.util import logging

logger = logging.getLogger(__name__)


def _mathml(self, node, latex: str, display: bool) -> str:
    try:
        return latex2mathml.tex2mathml(latex, as_block=display)
    except Exception as exc:  # noqa: BLE001 - any parser failure is reported with the formula
        logger.warning("cannot convert math to MathML (%s): %s", exc, latex, location=node)
        return f'<code class="math-error">{self.encode(latex)}</code>'


def visit_math_html(self, node) -> None:
    self.body.append(f'<span class="math">{_mathml(self, node, node.astext(), False)}</span>')
    raise nodes.SkipNode


def visit_displaymath_html(self, node) -> None:
    if node.get("number"):
        number = self.builder.config.math_numfig_format.format(number=node["number"]) \
            if hasattr(self.builder.config, "math_numfig_format") else f"({node['number']})"
        self.body.append(f'<div class="math-wrapper docutils container" id="equation-{node["docname"]}-{node["number"]}">')
        self.body.append(f'<span class="eqno">{number}</span>')
    else:
        self.body.append('<div class="math-wrapper docutils container">')
    latex = node.astext()
    if node.get("nowrap"):
        self.body.append(_mathml(self, node, latex, True))
    else:
        parts = [p for p in latex.split("\n\n") if p.strip()]
        for part in parts:
            # \begin{aligned} ... lets one block hold several aligned lines, as MathJax does
            if "\\\\" in part and "\\begin" not in part:
                part = "\\begin{aligned}" + part + "\\end{aligned}"
            self.body.append(_mathml(self, node, part, True))
    self.body.append("</div>\n")
    raise nodes.SkipNode


def setup(app):
    app.add_html_math_renderer("mathml", (visit_math_html, None), (visit_displaymath_html, None))
    app.config.values  # noqa: B018 - make sure config exists before we set the renderer below
    app.connect("config-inited", _use_mathml)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}


def _use_mathml(app, config) -> None:
    if not config.html_math_renderer:
        config.html_math_renderer = "mathml"
