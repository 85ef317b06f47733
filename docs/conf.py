"""Sphinx configuration of metaeval's documentation site.

Build (from the repository root)::

    pip install -e ".[docs]" && sphinx-build -W -b html docs docs/_build/html

Everything on the site that restates the code is generated from it at build time, so it cannot
drift: the API reference (``docs/api/index.rst``, written below from ``metaeval.__all__``), the
CLI reference (the ``metaeval-cli`` directive), the statistics tables (``metaeval-statistics``,
``metaeval-statistic``, ``metaeval-coverage``) and the gallery (executed from ``figures/fig_*.py``).
The small extensions live in ``docs/_ext``; ``docs/README.md`` lists their directives.
Nothing is downloaded at build or view time (no intersphinx, math as MathML, no CDN scripts).
"""

from __future__ import annotations

import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(DOCS / "_ext"))

from metaeval_apigen import write_api_index  # noqa: E402
from metaeval_gallery import stage_gallery  # noqa: E402

import metaeval  # noqa: E402

# -- project -------------------------------------------------------------------------------------
project = "metaeval"
author = "the metaeval authors"
copyright = "the metaeval authors"  # noqa: A001 (Sphinx's name)
release = metaeval.__version__
version = ".".join(release.split(".")[:2])

# -- extensions ----------------------------------------------------------------------------------
html_math_renderer = "mathml"
extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
    "metaeval_mathml",  # math as MathML at build time (html_math_renderer above): no MathJax download
    "metaeval_cli",
    "metaeval_stats",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "README.md", "Thumbs.db", ".DS_Store", "gallery/*.ipynb", "gallery/*.py",
                    "gallery/*.zip", "gallery/*.md5", "gallery/*.json"]
templates_path = ["_templates"]
nitpicky = False
suppress_warnings = [
    # MyST pages include CHANGELOG.md/CONTRIBUTING.md, whose headings start at whatever level they like
    "myst.header",
]

# -- MyST ----------------------------------------------------------------------------------------
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist", "fieldlist", "attrs_inline"]
myst_heading_anchors = 3

# -- autodoc / autosummary / numpydoc ------------------------------------------------------------
write_api_index(DOCS / "api")  # docs/api/index.rst from metaeval.__all__ (before autosummary reads it)
autosummary_generate = True
autosummary_generate_overwrite = True
autosummary_imported_members = True
autosummary_ignore_module_all = False
autodoc_typehints = "none"  # the numpydoc Parameters section says the types; signatures stay short
autodoc_member_order = "bysource"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
numpydoc_validation_checks: set[str] = set()  # tests/test_docstrings.py is where docstrings are checked
add_module_names = True
metaeval_require_all_statistics = True  # a registered statistic without its metaeval-statistic block fails the build

# -- gallery -------------------------------------------------------------------------------------
_gallery_src = stage_gallery(ROOT / "figures", DOCS / "_build" / "gallery_src", DOCS / "gallery")
sphinx_gallery_conf = {
    "examples_dirs": [str(_gallery_src)],
    "gallery_dirs": ["gallery"],
    "filename_pattern": r"/fig_",
    "ignore_pattern": r"(_gallery|make_all)\.py$",
    "within_subsection_order": "FileNameSortKey",
    "reset_argv": "metaeval_gallery.reset_argv",  # the scripts write their files into _build, not figures/out
    "download_all_examples": False,
    "remove_config_comments": True,
    "show_memory": False,
    "plot_gallery": "True",
    "abort_on_example_error": True,
    "only_warn_on_example_error": False,
    "matplotlib_animations": False,
    "image_scrapers": ("metaeval_gallery.scraper",),  # the PNGs the scripts save (they draw without pyplot)
    "backreferences_dir": None,
    "line_numbers": False,
    "copyfile_regex": "",
    "min_reported_time": 0,
    "show_signature": False,
    "write_computation_times": False,
}

# -- HTML ----------------------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"metaeval {release}"
html_static_path = ["_static"]
html_css_files = ["metaeval.css"]
html_theme_options = {
    "navbar_end": ["theme-switcher", "navbar-icon-links"],
    "show_prev_next": True,
    "navigation_with_keys": False,
    "secondary_sidebar_items": ["page-toc", "sourcelink"],
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version", "theme-version"],
}
html_favicon = "_static/favicon.svg"
html_context = {"default_mode": "auto"}
html_sidebars = {"index": [], "search": []}
html_show_sourcelink = True
html_last_updated_fmt = None
