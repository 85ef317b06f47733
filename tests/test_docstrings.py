"""The documentation bar of issue 10, as a test: every public name has a numpydoc docstring.

For every function and class in ``metaeval.__all__`` (and the public methods of the result classes)
the docstring must parse with ``numpydoc.docscrape`` (no warnings), document every parameter in a
Parameters section (a dataclass may use Attributes for its fields), have a Returns (or Yields)
section when it is a function or method that returns something, and an Examples section. Every public
module must give ``pytest --doctest-modules metaeval`` at least one example to run (the examples
themselves are run by that command in ``.ci/run``, not here), and ``metaeval/py.typed`` must exist.

The expectations come from the numpydoc standard (https://numpydoc.readthedocs.io/en/latest/format.html)
and the issue's "Done when" list; nothing here is a measured number.
"""

from __future__ import annotations

import dataclasses
import inspect
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

numpydoc_docscrape = pytest.importorskip("numpydoc.docscrape")

import metaeval  # noqa: E402

ROOT = Path(metaeval.__file__).resolve().parent

#: Classes whose instances users get back and call methods on: their public methods are checked too.
RESULT_CLASSES = ("Estimate", "ConfidenceInterval", "ResultSet", "Paired", "PairedTables", "AlignmentReport", "SystemScores",
                  "SquareTestResult", "Report")
#: Result classes that public functions return but that are not themselves ``metaeval.X``.
EXTRA_RESULT_CLASSES = ("metaeval.systems.evaluation:ScoreReport", "metaeval.systems.ranking:RankCorrelation",
                        "metaeval.core.resample:BootstrapResult", "metaeval.agreement.analytic:AnalyticResult",
                        "metaeval.agreement.coefficients:PrevalenceResult", "metaeval.pairwise._results:PairwiseResult",
                        "metaeval.checks.bias:BiasResult", "metaeval.checks.bias:RankChangeResult",
                        "metaeval.checks.sensitivity:SensitivityResult")


def _resolve(spec: str):
    mod, _, name = spec.partition(":")
    return getattr(__import__(mod, fromlist=[name]), name)


def _public_objects():
    """(qualified name, object, kind) for every function, class and result-class method to check."""
    out = []
    for name in metaeval.__all__:
        obj = getattr(metaeval, name)
        if inspect.isclass(obj):
            out.append((name, obj, "class"))
        elif inspect.isfunction(obj):
            out.append((name, obj, "function"))
    classes = [(n, getattr(metaeval, n)) for n in RESULT_CLASSES if n in metaeval.__all__]
    classes += [(s.split(":")[1], _resolve(s)) for s in EXTRA_RESULT_CLASSES]
    for cname, cls in classes:
        if not any(c[1] is cls for c in out):
            out.append((cname, cls, "class"))
        for mname, member in vars(cls).items():  # its own methods (inherited ones are checked on their class)
            if mname.startswith("_") or not inspect.isfunction(member):
                continue
            out.append((f"{cname}.{mname}", member, "method"))
    return out


PUBLIC = _public_objects()


def _signature_params(obj, kind) -> list[str]:
    """Parameter names a caller can pass (self, *args/**kwargs and private names left out)."""
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):  # builtin-backed classes (exceptions) without a signature
        return []
    names = []
    for i, p in enumerate(sig.parameters.values()):
        if kind == "method" and i == 0 and p.name in ("self", "cls"):
            continue
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) or p.name.startswith("_"):
            continue
        names.append(p.name)
    return names


def _documented(doc, section) -> set[str]:
    names = set()
    for p in doc[section]:
        for part in p.name.split(","):
            part = part.strip().lstrip("*")
            if part:
                names.add(part)
    return names


def _returns_nothing(obj) -> bool:
    try:
        ann = inspect.signature(obj).return_annotation
    except (TypeError, ValueError):
        return False
    return ann is None or ann == "None"


def _problems(obj, kind) -> list[str]:
    raw = obj.__doc__
    if kind == "class" and dataclasses.is_dataclass(obj) and raw and raw.startswith(f"{obj.__name__}("):
        raw = None  # the docstring dataclasses writes when there is none
    if not raw or not raw.strip():
        return ["no docstring"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            doc = numpydoc_docscrape.NumpyDocString(inspect.cleandoc(raw))
        except Exception as exc:  # numpydoc raises ValueError/ParseError on malformed sections
            return [f"does not parse ({type(exc).__name__}: {exc})"]
    problems = [f"numpydoc: {w.message}" for w in caught]
    params = _signature_params(obj, kind)
    documented = _documented(doc, "Parameters")
    if kind == "class":
        init = obj.__dict__.get("__init__")
        if init is not None and init.__doc__:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                documented |= _documented(numpydoc_docscrape.NumpyDocString(inspect.cleandoc(init.__doc__)),
                                          "Parameters")
        if dataclasses.is_dataclass(obj):
            documented |= _documented(doc, "Attributes")
    if params and not documented:
        problems.append("no Parameters section")
    elif params:
        missing = [p for p in params if p not in documented]
        if missing:
            problems.append(f"parameters not documented: {', '.join(missing)}")
    if kind in ("function", "method") and not (doc["Returns"] or doc["Yields"]) and not _returns_nothing(obj):
        problems.append("no Returns section")
    if not "".join(doc["Examples"]).strip():
        problems.append("no Examples section")
    elif ">>>" not in "\n".join(doc["Examples"]):
        problems.append("the Examples section has no >>> example")
    return problems


@pytest.mark.parametrize("name,obj,kind", PUBLIC, ids=[p[0] for p in PUBLIC])
def test_numpydoc_sections(name, obj, kind):
    problems = _problems(obj, kind)
    assert not problems, f"{name} ({obj.__module__}): " + "; ".join(problems)


def test_public_names_are_found():
    # the walk above must see the names the issue is about (a test that cannot fail is a defect)
    names = {p[0] for p in PUBLIC}
    assert {"system_scores", "rank_correlation", "score_correlation", "Scale", "read_qrels", "align",
            "SystemScores.matrix", "Estimate", "ResultSet.to_frame"} <= names


def test_checker_flags_a_bad_docstring():
    def bare(x, y=1):
        """Only a summary."""
        return x

    def good(x, y=1):
        """Summary.

        Parameters
        ----------
        x, y : int
            Numbers.

        Returns
        -------
        int

        Examples
        --------
        >>> good(1)
        1
        """
        return x

    assert _problems(bare, "function") == ["no Parameters section", "no Returns section", "no Examples section"]
    assert _problems(good, "function") == []


def test_py_typed_is_shipped():
    assert (ROOT / "py.typed").is_file()


def _public_modules() -> set[str]:
    import importlib

    mods = {"core.errors"}
    for target in metaeval._LAZY.values():
        mods.add(target.rstrip(":"))
    # metaeval.figures / metaeval.datasets are aliases of the modules that define them
    return {importlib.import_module(f"metaeval.{m}").__name__ for m in mods}


def test_every_public_module_has_a_doctest():
    out = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
                          "--doctest-modules", str(ROOT)], capture_output=True, text=True, cwd=ROOT.parent,
                         timeout=600)
    ids = re.findall(r"^(\S+\.py)::(\S+)$", out.stdout, flags=re.M)
    assert ids, f"no doctest collected:\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}"
    errors = re.findall(r"^ERROR (\S+)", out.stdout, flags=re.M)
    assert not errors, f"doctest collection errors: {errors}"
    have = {Path(path).with_suffix("").as_posix().replace("/", ".") for path, _ in ids}
    without = sorted(_public_modules() - have)
    assert not without, f"public modules without a doctest example: {without}"
