"""Time check_claims at the sizes that used to run unbounded: many systems, κ at large n, huge counts.

    python benchmarks/bench_claims_limits.py > benchmarks/results/bench_claims_limits.txt

Each case runs once after a warm-up claim (imports excluded); a refusal is timed to the InputError.
"""

from __future__ import annotations

import platform
import time

import metaeval
from metaeval import InputError

CASES = [
    ("rank_correlation, 100,000 systems, p < .001",
     {"kind": "rank_correlation", "value": 0.89, "systems": 100_000, "p": "< .001", "compare_to": 0.9}),
    ("rank_correlation, 10^9 systems", {"kind": "rank_correlation", "value": 0.89, "systems": 10 ** 9, "p": "< .001"}),
    ("correlation kendall, n = 10^9", {"kind": "correlation", "method": "kendall", "value": 0.3, "n": 10 ** 9,
                                      "p": "< .001"}),
    ("kappa, n = 10^5 (2x2 search)", {"kind": "kappa", "value": 0.5, "n": 10 ** 5}),
    ("kappa, n = 10^6 (2x2 search, the bound)", {"kind": "kappa", "value": 0.5, "n": 10 ** 6}),
    ("kappa + p_o, n = 10^6, infeasible (full search)", {"kind": "kappa", "value": "0.99", "n": 10 ** 6,
                                                        "percent_agreement": "0.20"}),
    ("kappa, n = 10^8 (refused)", {"kind": "kappa", "value": 0.5, "n": 10 ** 8}),
    ("kappa, table with 10^8 items", {"kind": "kappa", "value": "0.50", "table": [[3 * 10 ** 7, 10 ** 7],
                                                                                 [10 ** 7, 3 * 10 ** 7]]}),
    ("kappa, n = 2^63 - 1 (refused)", {"kind": "kappa", "value": 0.5, "n": 2 ** 63 - 1}),
    ("accuracy, n = 10^12 (GRIM)", {"kind": "accuracy", "value": 0.77, "n": 10 ** 12}),
]


def main():
    metaeval.check_claims([{"kind": "accuracy", "value": 0.5, "n": 10}])
    print(f"metaeval {metaeval.__version__}, python {platform.python_version()}, {platform.machine()}")
    for name, claim in CASES:
        t0 = time.perf_counter()
        try:
            verdict = metaeval.check_claims([claim]).verdict[0]
        except InputError as exc:
            verdict = "refused: " + str(exc).split(": ", 2)[-1][:70]
        print(f"{name:52s} {time.perf_counter() - t0:8.3f} s  {verdict}")


if __name__ == "__main__":
    main()
