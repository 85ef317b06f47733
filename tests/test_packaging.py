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
