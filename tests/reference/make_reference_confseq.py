"""Reference values for metaeval's confidence sequences from confseq (run in a throwaway venv).

confseq 0.0.11 has no wheel for Python 3.11 on PyPI and its sdist pins an old pybind11; it builds with
Debian's libboost-dev and a current pybind11:

    python -m venv /tmp/venv-cs && /tmp/venv-cs/bin/pip install pybind11 scikit-build cmake ninja numpy
    apt-get install -y libboost-dev
    /tmp/venv-cs/bin/pip install --no-build-isolation confseq==0.0.11
    /tmp/venv-cs/bin/python tests/reference/make_reference_confseq.py

writes tests/reference/confseq_values.json: for each case (successes, n, alpha, t_opt) the bounds of
``confseq.boundaries.bernoulli_confidence_interval(successes, n, alpha, t_opt, alpha)``.
"""

import json
import platform
from importlib.metadata import version
from pathlib import Path

import numpy as np
from confseq.boundaries import bernoulli_confidence_interval

rng = np.random.default_rng(20261202)
cases = [(0, 5, 0.05, 1000.0), (5, 5, 0.05, 1000.0), (0, 1, 0.05, 10.0), (1, 1, 0.1, 10.0),
         (3, 7, 0.01, 50.0), (4999, 5000, 0.05, 5000.0), (1, 100000, 0.05, 100000.0)]
for _ in range(300):
    n = int(rng.integers(1, 200000))
    s = int(rng.binomial(n, rng.uniform()))
    cases.append((s, n, float(rng.choice([0.1, 0.05, 0.01, 0.05 / 3, 0.001])), float(rng.choice([10, 100, 1000, 5000, 1e5]))))
out = {"generator": "tests/reference/make_reference_confseq.py", "confseq": version("confseq"),
       "numpy": np.__version__, "python": platform.python_version(),
       "cases": [{"successes": s, "n": n, "alpha": a, "t_opt": t,
                  "bounds": list(bernoulli_confidence_interval(s, n, a, t, a))} for s, n, a, t in cases]}
Path(__file__).with_name("confseq_values.json").write_text(json.dumps(out, indent=1) + "\n")
print(f"{len(cases)} cases written")
