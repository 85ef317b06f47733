"""Packaging: every subpackage of metaeval/ is installed, and the public modules import by name."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]


def every_subpackage_is_listed_test():
    """A subpackage missing from [tool.setuptools] packages is absent from a non-editable install."""
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "metaeval").rglob("__init__.py")
             if "__pycache__" not in p.parts}
    assert found - listed == set(), f"add to pyproject.toml packages: {sorted(found - listed)}"


def public_modules_import_by_name_test():
    """``import metaeval.figures`` / ``metaeval.datasets`` work and are the modules that define them."""
    import metaeval

    for name, home in (("figures", "metaeval.output.figures"), ("datasets", "metaeval.data.datasets")):
        mod = importlib.import_module(f"metaeval.{name}")
        assert mod is importlib.import_module(home) is getattr(metaeval, name)
        assert all(hasattr(mod, fn) for fn in mod.__all__)


def version_has_one_home_test():
    """Issue #20 (10): the package said 0.1.0 while the CHANGELOG described 0.2.0. The version now lives
    only in metaeval.__version__ (pyproject reads it), and the CHANGELOG's newest entry is that version,
    dated."""
    import re

    import metaeval

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" not in project["project"] and project["project"]["dynamic"] == ["version"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "metaeval.__version__"}
    assert metaeval.__version__ == "0.3.1"
    first = next(ln for ln in (ROOT / "CHANGELOG.md").read_text().splitlines() if ln.startswith("## "))
    m = re.match(r"## (\S+) \((\d{4}-\d{2}-\d{2})\)", first)
    assert m and m.group(1) == metaeval.__version__, first


def writers_have_numpydoc_sections_test():
    """Issue #20 (10): the three public writers document what they return, raise and how to call them."""
    from numpydoc.docscrape import FunctionDoc

    import metaeval

    for name in ("write_qrels", "write_run", "write_table"):
        doc = FunctionDoc(getattr(metaeval, name))
        for section in ("Parameters", "Returns", "Raises", "See Also", "Examples"):
            assert doc[section], (name, section)
        assert ">>>" in "\n".join(doc["Examples"]) and "read_" in "\n".join(doc["Examples"]) + name
