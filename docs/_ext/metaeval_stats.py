"""Directives that render the statistics registry and the measured coverage of the cluster bootstrap.

Everything they print is read from the code at build time (``metaeval.core.registry`` and
``metaeval.core.resample``), so the reference cannot drift from it:

``metaeval-statistics``
    A table of every registered statistic: name, label, family, weights and their default, when it
    is defined, whether it has an analytic variance, what it is checked against, and the public
    function that computes it. Option ``:family: table`` or ``:family: multirater`` keeps one
    family. A name links to its ``metaeval-statistic`` block when a page has one.
``metaeval-statistic:: NAME``
    The same facts for one statistic, as a field list, with the anchor ``statistic-NAME`` (write
    ``{ref}`statistic-cohen_kappa``` in MyST, ``:ref:`statistic-cohen_kappa``` in rST). Put it under
    the heading of the statistic's section, next to its formula. An unknown name is a build error.
``metaeval-coverage`` [``module.CONSTANT``]
    Without an argument: the measured coverage of nominal 95% cluster-bootstrap intervals by number
    of clusters (``metaeval.core.resample.CLUSTER_COVERAGE``), the threshold ``MIN_CLUSTERS`` below
    which a warning is emitted, and the provenance comments (``#:``) of both constants. With an
    argument: any dict constant of measured coverage (e.g.
    ``metaeval.inference.prevalence.RG_COVERAGE``) as a table — ``{key: number}``,
    ``{key: {column: number}}``, tuple keys as several columns — with its ``#:`` comment. Options
    ``:keys:`` and ``:values:`` (comma-separated) name the key and value columns.

With ``metaeval_require_all_statistics = True`` in conf.py, a registered statistic that no page
describes with ``metaeval-statistic`` is a build warning (an error under ``-W``).
"""

from __future__ import annotations

import importlib

from docutils import nodes
from docutils.parsers.rst import directives
from metaeval_nodes import literal, paragraph, pyref, table
from sphinx.pycode import ModuleAnalyzer
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

logger = logging.getLogger(__name__)

FAMILIES = {"table": "two raters (K×K table)", "multirater": "many raters (per-item counts)",
            "levels": "score judges by level (systems × items)"}
FAMILY_SHORT = {"table": "two raters", "multirater": "many raters", "levels": "score levels"}


def _registry():
    from metaeval.core import registry

    return registry


def _weights(s) -> str:
    if s.weights is None:
        return "none"
    kind = {"agreement": "agreement weights", "level": "level of measurement"}.get(s.weights, s.weights)
    return f"{kind}; default ``{s.default_weights}``" if s.default_weights else kind


def _analytic(s) -> list[nodes.Node] | str:
    if not s.analytic:
        return "no (bootstrap only)"
    module, func = s.analytic.split(":")
    return [nodes.Text("yes: "), pyref(f"{module}.{func}", f"{module.removeprefix('metaeval.')}.{func}", "func")]


def _public(s):
    return pyref(f"metaeval.{s.public}", s.public, "func") if s.public else ""


def _source_files() -> list[str]:
    reg = _registry()
    files = [reg.__file__]
    for mod in reg._PROVIDERS:
        files.append(importlib.import_module(mod).__file__)
    return files


class stat_link(nodes.Inline, nodes.TextElement):
    """A statistic's name; becomes a link to its ``metaeval-statistic`` block if a page has one."""


def _visit_skip(self, node):
    raise nodes.SkipNode


class StatisticsDirective(SphinxDirective):
    has_content = False
    option_spec = {"family": lambda a: directives.choice(a, tuple(FAMILIES))}

    def run(self):
        reg = _registry()
        family = self.options.get("family")
        rows = []
        for s in reg.statistics(family):
            link = stat_link(s.name, "", literal(s.name), statname=s.name)
            rows.append([link, s.label, FAMILY_SHORT.get(s.family, s.family), _weights(s), s.defined or "—",
                         "yes" if s.analytic else "bootstrap only", s.reference, _public(s)])
        for f in _source_files():
            self.env.note_dependency(f)
        header = ["statistic", "label", "family", "weights", "defined", "analytic variance", "checked against",
                  "function"]
        return [table(header, rows, widths=[12, 10, 10, 12, 16, 12, 18, 10], classes=["metaeval-statistics"])]


class StatisticDirective(SphinxDirective):
    required_arguments = 1
    has_content = False

    def run(self):
        reg = _registry()
        name = self.arguments[0].strip()
        try:
            s = reg.get(name)
        except Exception as exc:  # noqa: BLE001 - the registry's own message names the known statistics
            raise self.error(f"metaeval-statistic: {exc}") from None
        node_id = f"statistic-{s.name}"
        target = nodes.target("", "", ids=[node_id])
        self.state.document.note_explicit_target(target)
        std = self.env.domains.standard_domain if hasattr(self.env.domains, "standard_domain") \
            else self.env.get_domain("std")
        std.note_hyperlink_target(node_id, self.env.docname, node_id, f"{s.label} ({s.name})")
        if not hasattr(self.env, "metaeval_statistics"):
            self.env.metaeval_statistics = {}
        self.env.metaeval_statistics[s.name] = (self.env.docname, node_id)
        for f in _source_files():
            self.env.note_dependency(f)

        fields = [
            ("name", [literal(s.name)]),
            ("label", s.label),
            ("family", FAMILIES.get(s.family, s.family)),
            ("weights", _weights(s)),
            ("defined", s.defined or "—"),
            ("analytic variance", _analytic(s)),
            ("checked against", s.reference or "—"),
            ("symmetric", "yes (unchanged when reference and candidate swap)" if s.symmetric else "no"),
        ]
        if s.needs_binary:
            fields.append(("needs", "two levels (K = 2)"))
        if s.params:
            fields.append(("parameters", [literal(p) for p in s.params]))
        if s.public:
            fields.append(("function", [_public(s)]))
        flist = nodes.field_list(classes=["metaeval-statistic"])
        for fname, body in fields:
            field = nodes.field()
            field += nodes.field_name(fname, fname)
            fb = nodes.field_body()
            if isinstance(body, list) and body and all(isinstance(b, nodes.literal) for b in body) and len(body) > 1:
                joined = []
                for i, b in enumerate(body):
                    joined += ([nodes.Text(", ")] if i else []) + [b]
                body = joined
            fb += paragraph(body)
            field += fb
            flist += field
        return [target, flist]


def _fmt(v) -> str:
    if isinstance(v, float):
        return f"{v:.3f}"
    return "—" if v is None else str(v)


def _import_constant(dotted: str):
    """``(module, name, value)`` of ``package.module.CONSTANT``."""
    module, _, name = dotted.rpartition(".")
    try:
        mod = importlib.import_module(module)
        return mod, name, getattr(mod, name)
    except (ImportError, AttributeError, ValueError) as exc:
        raise ValueError(f"cannot import {dotted!r}: {exc}") from None


def constant_table(value: dict, key_labels: list[str] | None = None, value_labels: list[str] | None = None):
    """Header and rows of a dict constant: ``{key: number}`` or ``{key: {column: number}}``.

    Tuple keys become several key columns. Returns ``(header, rows)``.
    """
    items = list(value.items())
    n_keys = max((len(k) if isinstance(k, tuple) else 1) for k, _ in items)
    nested = all(isinstance(v, dict) for _, v in items)
    columns = list(dict.fromkeys(c for _, v in items for c in v)) if nested else ["value"]
    header = list(key_labels or (["key"] if n_keys == 1 else [f"key {i + 1}" for i in range(n_keys)]))
    header += [str(c) for c in columns] if nested else list(value_labels or ["value"])
    if nested and value_labels:
        header[n_keys:] = value_labels
    rows = []
    for k, v in items:
        keys = list(k) if isinstance(k, tuple) else [k]
        cells = [v.get(c) for c in columns] if nested else [v]
        rows.append([_fmt(x) for x in keys] + [_fmt(x) for x in cells])
    return header, rows


class CoverageDirective(SphinxDirective):
    """``metaeval-coverage`` (the cluster bootstrap's table) or ``metaeval-coverage:: module.CONSTANT``."""

    optional_arguments = 1
    has_content = False
    option_spec = {"keys": directives.unchanged, "values": directives.unchanged}

    def run(self):
        dotted = self.arguments[0].strip() if self.arguments else "metaeval.core.resample.CLUSTER_COVERAGE"
        try:
            mod, name, value = _import_constant(dotted)
        except ValueError as exc:
            raise self.error(f"metaeval-coverage: {exc}") from None
        if not isinstance(value, dict):
            raise self.error(f"metaeval-coverage: {dotted} is a {type(value).__name__}, not a dict")
        self.env.note_dependency(mod.__file__)
        attr_docs = ModuleAnalyzer.for_module(mod.__name__).find_attr_docs()

        def provenance(attr):
            text = " ".join(line.strip() for line in attr_docs.get(("", attr), []) if line.strip())
            return paragraph([literal(attr), nodes.Text(": ")] + paragraph(text).children) if text else None

        split = lambda opt: [x.strip() for x in self.options[opt].split(",")] if opt in self.options else None  # noqa: E731
        out: list[nodes.Node] = []
        if not value:
            out.append(paragraph([literal(name), nodes.Text(": no measurements are recorded yet.")]))
        elif dotted == "metaeval.core.resample.CLUSTER_COVERAGE":
            mn = mod.MIN_CLUSTERS
            rows, classes = [], []
            for t, c in sorted(value.items()):
                rows.append([str(t), _fmt(c), "warned (SmallSampleWarning)" if t < mn else ""])
                classes.append(["below-min"] if t < mn else [])
            header = split("keys") or ["clusters"]
            header += split("values") or ["coverage of nominal 95%"]
            out.append(table(header + [f"below MIN_CLUSTERS = {mn}"], rows, widths=[10, 20, 25],
                             classes=["metaeval-coverage"], row_classes=classes))
        else:
            header, rows = constant_table(value, split("keys"), split("values"))
            out.append(table(header, rows, classes=["metaeval-coverage"]))
        for attr in (name, "MIN_CLUSTERS") if dotted.endswith("resample.CLUSTER_COVERAGE") else (name,):
            p = provenance(attr)
            if p is not None:
                out.append(p)
        return out


def _resolve_links(app, doctree, docname) -> None:
    known = getattr(app.env, "metaeval_statistics", {})
    for node in list(doctree.findall(stat_link)):
        name = node["statname"]
        content = node.children[0].deepcopy()
        if name in known and app.builder.format == "html":
            todoc, anchor = known[name]
            uri = (app.builder.get_relative_uri(docname, todoc) if todoc != docname else "") + "#" + anchor
            ref = nodes.reference("", "", internal=True, refuri=uri)
            ref += content
            node.replace_self(ref)
        else:
            node.replace_self(content)


def _purge(app, env, docname) -> None:
    stats = getattr(env, "metaeval_statistics", {})
    for name in [n for n, (d, _) in stats.items() if d == docname]:
        del stats[name]


def _merge(app, env, docnames, other) -> None:
    if not hasattr(env, "metaeval_statistics"):
        env.metaeval_statistics = {}
    env.metaeval_statistics.update(getattr(other, "metaeval_statistics", {}))


def _check(app, env) -> None:
    if not app.config.metaeval_require_all_statistics:
        return
    described = getattr(env, "metaeval_statistics", {})
    missing = [n for n in _registry().names() if n not in described]
    if missing:
        logger.warning("statistics registered but described by no metaeval-statistic directive: %s",
                       ", ".join(missing))


def setup(app):
    app.add_config_value("metaeval_require_all_statistics", False, "env", bool)
    app.add_node(stat_link, html=(_visit_skip, None), latex=(_visit_skip, None), text=(_visit_skip, None))
    app.add_directive("metaeval-statistics", StatisticsDirective)
    app.add_directive("metaeval-statistic", StatisticDirective)
    app.add_directive("metaeval-coverage", CoverageDirective)
    app.connect("doctree-resolved", _resolve_links)
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
    app.connect("env-check-consistency", _check)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1", "env_version": 1}
