#!/usr/bin/env bash
# Release check: build the sdist and the wheel, check them with twine, install the wheel in a clean
# virtual environment under /tmp and run the demo from another folder (no source tree on the path).
# Usage: .ci/wheel_check.sh [python]   (default: python3; needs network or a package index for the deps)
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${1:-python3}"
WORK="$(mktemp -d /tmp/metaeval-wheel.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT
start=$(date +%s)

# 1. build (an isolated build environment with setuptools) and check the metadata
"$PY" -m venv "$WORK/build-venv"
"$WORK/build-venv/bin/python" -m pip install --quiet --upgrade pip build twine
"$WORK/build-venv/bin/python" -m build --outdir "$WORK/dist" . >"$WORK/build.log" 2>&1 || { tail -40 "$WORK/build.log"; exit 1; }
"$WORK/build-venv/bin/python" -m twine check --strict "$WORK"/dist/*
version=$("$PY" -c "import re,sys; print(re.search(r'__version__ = \"([^\"]+)\"', open('metaeval/__init__.py').read()).group(1))")
ls "$WORK/dist/metaeval-$version.tar.gz" "$WORK/dist/metaeval-$version-py3-none-any.whl" >/dev/null

# 2. a clean virtual environment with the wheel only (no editable install, no source tree)
"$PY" -m venv "$WORK/venv"
"$WORK/venv/bin/python" -m pip install --quiet --upgrade pip
"$WORK/venv/bin/python" -m pip install --quiet "$WORK/dist/metaeval-$version-py3-none-any.whl"

# 3. from another folder: the installed package, its version and the demo on the bundled samples
cd /tmp
env -u PYTHONPATH "$WORK/venv/bin/python" -c "import metaeval, sys; assert metaeval.__version__ == '$version', metaeval.__version__; assert '/site-packages/' in metaeval.__file__, metaeval.__file__"
env -u PYTHONPATH "$WORK/venv/bin/metaeval" --version
rm -rf /tmp/x
env -u PYTHONPATH "$WORK/venv/bin/metaeval" demo --out /tmp/x
test -s /tmp/x/report.md && test -s /tmp/x/report.tex && test -s /tmp/x/results.json
echo "wheel check passed: metaeval $version, $(( $(date +%s) - start )) s"
