"""Write the API reference's index page (``docs/api/index.rst``) from ``metaeval.__all__``.

Called from ``docs/conf.py`` before Sphinx reads the sources, so autosummary sees the generated
``.. autosummary::`` lists and writes one page per public name into ``docs/api/generated/``. The
page is regenerated on every build and is not committed: a name added to ``metaeval._LAZY`` appears
on the site with no edit here. Names are grouped by the subpackage that defines them (the
``_LAZY`` target); a subpackage not listed in :data:`GROUPS` gets a section of its own, so no name
is ever left out (``tests/test_docs_site.py`` checks that every name has a page).
"""

from __future__ import annotations

import sys
from pathlib import Path

#: (prefix of the defining module, section title) — the first matching prefix wins; order = page order
GROUPS = [
    ("data.io", "Reading and writing files"),
    ("core.scale", "Scales and alignment"),
    ("data.alignment", "Scales and alignment"),
    ("core.resample", "Resampling and results"),
    ("core.results", "Resampling and results"),
    ("core.tables", "Resampling and results"),
    ("agreement.coefficients", "Agreement of two raters"),
    ("agreement.multirater", "Agreement of many raters"),
    ("agreement.correlation", "Scores: correlation, ICC and square-table tests"),
    ("agreement.square_tests", "Scores: correlation, ICC and square-table tests"),
    ("agreement", "Agreement: more"),
    ("systems", "System rankings"),
    ("pairwise", "Pairwise judgments"),
    ("checks.bias", "Bias tests"),
    ("checks.sensitivity", "Sensitivity"),
    ("checks.design", "Validation design"),
    ("checks", "Checks: more"),
    ("inference.prevalence", "Corrected estimates: prevalence"),
    ("inference.ppi", "Corrected estimates: prediction-powered inference and label budgets"),
    ("inference.systems", "Corrected estimates: system scores"),
    ("inference.alt_test", "The alternative annotator test"),
    ("inference", "Corrected estimates: more"),
    ("review", "Reviewer mode: check a paper's claims"),
    ("panels", "Many judges: panels and juries"),
    ("output.report", "Reports and study files"),
    ("output.study", "Reports and study files"),
    ("core.errors", "Errors and warnings"),
    (":module", "Sample data and figures (modules)"),
]

INTRO = """\
API reference
=============

Every public name of ``metaeval``, one page each. Import them from the package itself
(``from metaeval import cohen_kappa``; ``metaeval.figures`` and ``metaeval.datasets`` are modules).
This page is generated from ``metaeval.__all__`` at build time.

.. currentmodule:: metaeval
"""

#: names of ``__all__`` that get no page of their own
SKIP = {"__version__"}


def public_names() -> list[tuple[str, str]]:
    """``(name, defining module relative to metaeval)`` for every documented name, in ``_LAZY`` order.

    Names of ``__all__`` outside ``_LAZY`` (the errors and warnings imported eagerly) get the module
    their object says it comes from; public modules get ``":module"``.
    """
    import metaeval

    out = []
    for name in metaeval.__all__:
        if name in SKIP:
            continue
        target = metaeval._LAZY.get(name)
        if target is None:
            obj = getattr(metaeval, name)
            target = getattr(obj, "__module__", "metaeval").removeprefix("metaeval.")
        elif target.endswith(":"):
            target = ":module"
        out.append((name, target))
    return out


def group_of(target: str) -> str:
    for prefix, title in GROUPS:
        if target == prefix or target.startswith(prefix + "."):
            return title
    return f"More: metaeval.{target.split('.')[0]}"


def alias_public_modules() -> None:
    """Make ``metaeval.figures`` and ``metaeval.datasets`` importable by those names (autodoc imports them).

    They are lazy attributes of the package that point at ``metaeval.output.figures`` and
    ``metaeval.data.datasets``; ``import metaeval.figures`` itself would fail.
    """
    import metaeval

    for name, target in metaeval._LAZY.items():
        if target.endswith(":"):
            sys.modules.setdefault(f"metaeval.{name}", getattr(metaeval, name))


def render() -> str:
    """The text of ``api/index.rst``."""
    groups: dict[str, list[str]] = {}
    order = [title for _, title in GROUPS]
    for name, target in public_names():
        title = group_of(target)
        groups.setdefault(title, []).append(name)
        if title not in order:
            order.insert(len(order) - 2, title)  # unknown subpackages before errors and modules
    lines = [INTRO]
    for title in dict.fromkeys(order):
        names = groups.get(title)
        if not names:
            continue
        lines += ["", title, "-" * len(title), "", ".. autosummary::", "   :toctree: generated", "   :nosignatures:", ""]
        lines += [f"   {n}" for n in names]
    return "\n".join(lines) + "\n"


def write_api_index(folder: Path) -> Path:
    """Write ``folder/index.rst`` (only when its text changed, so incremental builds stay incremental)."""
    alias_public_modules()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "index.rst"
    text = render()
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")
    return path
