"""Extract the published many-rater values of irrCAC's Python port from its own test files.

The Python port of irrCAC (A. Fergadis, https://github.com/afergadis/irrCAC) checks its raw-data API
(``irrCAC.raw.CAC``) against the values of Gwet's R package on Gwet's example data sets, printed to
3 decimals (p-values to 5 or 6). Those assertions are this project's "published" reference for the
many-rater coefficients; this script copies them, untouched, into ``irrcac_published.json``, so the
tests read numbers with a recorded source instead of numbers typed by hand.

Usage (from the repository root; the port's git directory, e.g. a clone or a bare mirror)::

    python tests/reference/extract_irrcac_published.py /path/to/irrCAC/.git [commit]

Every ``assertEqual(est[...], value)`` of ``test/unit/irrCAC/raw/test_*.py`` becomes one entry
with its file, class and test name, the data set (``raw_4raters`` ...), the weights (a scheme name,
``"unweighted"`` or the custom matrix) and the coefficient method (``fleiss``, ``gwet`` ...). Only
the standard library is used; the output is deterministic.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
FILES = ["test_bp.py", "test_conger.py", "test_fleiss.py", "test_gwet.py", "test_krippendorff.py"]
#: the port's data sets and the R package's names for the same data (irrCAC 1.0 ``data/``)
DATASETS = {"raw_4raters": "cac.raw4raters", "raw_5observers": "cac.raw5obser", "raw_g1g2": "cac.raw.g1g2",
            "raw_gender": "cac.raw.gender", "raw_ben_gerry": "cac.ben.gerry"}


def _git(gitdir: str, *args: str) -> str:
    return subprocess.run(["git", f"--git-dir={gitdir}", *args], check=True, capture_output=True,
                          text=True).stdout


def _const(node):
    return ast.literal_eval(node)


def _extract(source: str, fname: str) -> list[dict]:
    tree = ast.parse(source)
    out = []
    for cls in [n for n in tree.body if isinstance(n, ast.ClassDef)]:
        for fn in [n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name.startswith("test")]:
            dataset = weights = method = None
            local_arrays = {}
            expected = {}
            for st in ast.walk(fn):
                if isinstance(st, ast.Assign) and isinstance(st.value, ast.Call):
                    call = st.value
                    name = st.targets[0].id if isinstance(st.targets[0], ast.Name) else None
                    f = call.func
                    if isinstance(f, ast.Name) and f.id in DATASETS:
                        dataset = f.id
                    elif isinstance(f, ast.Attribute) and f.attr == "array" and name:
                        local_arrays[name] = _const(call.args[0])
                    elif isinstance(f, ast.Name) and f.id == "CAC":
                        weights = "unweighted"
                        for kw in call.keywords:
                            if kw.arg == "weights":
                                weights = (local_arrays[kw.value.id] if isinstance(kw.value, ast.Name)
                                           else _const(kw.value))
                if isinstance(st, ast.Subscript) and isinstance(st.value, ast.Call):
                    f = st.value.func
                    if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "cac":
                        method = f.attr
                if (isinstance(st, ast.Call) and isinstance(st.func, ast.Attribute)
                        and st.func.attr == "assertEqual"):
                    got, want = st.args[0], _const(st.args[1])
                    digits = None
                    if isinstance(got, ast.Call) and isinstance(got.func, ast.Name) and got.func.id == "round":
                        digits = _const(got.args[1])
                        got = got.args[0]
                    if isinstance(got, ast.Subscript) and isinstance(got.value, ast.Subscript):
                        key = _const(got.value.slice)
                        key = f"{key}[{_const(got.slice)}]"
                    else:
                        key = _const(got.slice)
                    key = {"confidence_interval[0]": "ci_lower", "confidence_interval[1]": "ci_upper"}.get(key, key)
                    expected[key] = {"value": want, "round_digits": digits}
            out.append({"source": f"test/unit/irrCAC/raw/{fname}::{cls.name}::{fn.name}", "dataset": dataset,
                        "r_dataset": DATASETS[dataset], "weights": weights, "method": method,
                        "expected": expected})
    return out


def main(gitdir: str, commit: str = "HEAD") -> None:
    sha = _git(gitdir, "rev-parse", commit).strip()
    entries = []
    for f in FILES:
        entries += _extract(_git(gitdir, "show", f"{sha}:test/unit/irrCAC/raw/{f}"), f)
    version = [ln for ln in _git(gitdir, "show", f"{sha}:pyproject.toml").splitlines()
               if ln.startswith("version")][0].split("=")[1].strip().strip('"')
    out = {
        "generated_by": "tests/reference/extract_irrcac_published.py",
        "source_repository": "https://github.com/afergadis/irrCAC",
        "source_commit": sha,
        "source_version": version,
        "note": ("assertions of the port's raw-API tests, copied untouched: values printed to 3 decimals "
                 "(CAC(..., digits=3)); p-values compared after round(p, round_digits). The port's data "
                 "sets are the R package's (r_dataset); ci_upper 1 is irrCAC's min(1, upper)."),
        "entries": entries,
    }
    (HERE / "irrcac_published.json").write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {len(entries)} entries from {sha[:10]}")


if __name__ == "__main__":
    main(*sys.argv[1:])
