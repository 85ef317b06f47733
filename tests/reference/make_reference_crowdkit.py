"""Reference values of crowd-kit's aggregation models on crowd-kit's own test data.

Writes ``crowdkit_values.json`` (read by tests/test_jury.py; the tests need neither crowd-kit nor
this script). The input data are crowd-kit's test fixtures, loaded from a checkout of its tests
(``tests/conftest.py`` and ``tests/aggregation/test_ds_aggregation.py``, commit
35f06615e6dcf3819cc1d1958ad940f0752a29cf of github.com/Toloka/crowd-kit):

    git -C <crowd-kit clone> archive HEAD tests | tar -x -C /tmp/ck_tests
    pip install crowd-kit==1.4.2
    python tests/reference/make_reference_crowdkit.py /tmp/ck_tests/tests

For each data set it records crowd-kit's labels and probabilities of MajorityVote (also with skills,
the weighted vote), DawidSkene (several iteration limits, with and without ``true_labels``),
OneCoinDawidSkene, GLAD and MACE (with the start values crowd-kit draws, so the comparison is
deterministic).
"""

from __future__ import annotations

import importlib.util
import json
import sys
import types
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.stats as sps

OUT = Path(__file__).with_name("crowdkit_values.json")
COMMIT = "35f06615e6dcf3819cc1d1958ad940f0752a29cf"


def _load_fixtures(path: Path) -> dict:
    """The fixture functions of a crowd-kit test module, callable directly."""
    import pytest

    real = pytest.fixture
    pytest.fixture = lambda f=None, **kw: f if f is not None else (lambda g: g)
    try:
        spec = importlib.util.spec_from_file_location(path.stem, path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
    finally:
        pytest.fixture = real
    return {k: v for k, v in vars(mod).items() if isinstance(v, types.FunctionType)}


def _plain(x):
    if isinstance(x, (np.bool_, bool)):
        return bool(x)
    if isinstance(x, np.integer):
        return int(x)
    if isinstance(x, np.floating):
        return float(x)
    return x


def _frame(p: pd.DataFrame) -> dict:
    return {"items": [_plain(i) for i in p.index], "columns": [_plain(c) for c in p.columns],
            "values": p.to_numpy(dtype=float).tolist()}


def _labels(s: pd.Series) -> list:
    return [[_plain(i), _plain(v)] for i, v in s.items()]


def main(tests_dir: str) -> None:
    import crowdkit
    from crowdkit.aggregation import GLAD, MACE, DawidSkene, MajorityVote, OneCoinDawidSkene

    conf = _load_fixtures(Path(tests_dir) / "conftest.py")
    ds_mod = _load_fixtures(Path(tests_dir) / "aggregation" / "test_ds_aggregation.py")
    overlap = pd.DataFrame([{"task": t, "worker": w, "label": "yes" if (w - t) % 3 else "no"}
                            for w in range(30) for t in range(3)])   # test_dawid_skene_overlap's recipe
    datasets = {
        "toy": (conf["toy_answers_df"](), conf["toy_gold_df"]()),
        "simple": (conf["simple_answers_df"](), conf["simple_gold_df"]()),
        "ds_step": (ds_mod["data"](), None),
        "overlap30": (overlap, None),
        "bool": (conf["data_with_bool_labels"](), None),
    }
    out = {"crowd_kit": crowdkit.__version__ if hasattr(crowdkit, "__version__") else "1.4.2",
           "crowd_kit_commit_of_test_data": COMMIT, "numpy": np.__version__, "pandas": pd.__version__,
           "datasets": {}}
    from importlib.metadata import version

    out["crowd_kit"] = version("crowd-kit")
    for name, (df, gold) in datasets.items():
        df = df[["task", "worker", "label"]].reset_index(drop=True)
        entry = {"rows": [[_plain(a) for a in r] for r in df.itertuples(index=False)],
                 "gold": None if gold is None else _labels(gold), "results": []}
        workers = pd.unique(df["worker"])

        def add(method, params, model, fit_args=(), df=df, entry=entry):
            model.fit(df, *fit_args)
            res = {"method": method, "params": params, "labels": _labels(model.labels_),
                   "probas": _frame(model.probas_)}
            entry["results"].append(res)
            return res

        add("majority", {}, MajorityVote())
        skills = pd.Series(np.round(np.linspace(0.9, 0.3, len(workers)), 3), index=workers)
        add("weighted", {"weights": {_plain(k): float(v) for k, v in skills.items()}},
            MajorityVote(), (skills,))
        for n_iter, tol in ((0, 1e-5), (1, 1e-5), (10, 0.0), (100, 1e-5)):
            add("dawid_skene", {"n_iter": n_iter, "tol": tol}, DawidSkene(n_iter=n_iter, tol=tol))
            add("one_coin_dawid_skene", {"n_iter": n_iter, "tol": tol}, OneCoinDawidSkene(n_iter=n_iter, tol=tol))
        if gold is not None:
            add("dawid_skene_gold", {"n_iter": 100, "tol": 1e-5}, DawidSkene(n_iter=100, tol=1e-5), (gold,))
        if df["label"].dtype != bool:      # crowd-kit's GLAD fails on boolean labels (its _join_all)
            add("glad", {}, GLAD())
            add("glad", {"n_iter": 5, "tol": 0.0}, GLAD(n_iter=5, tol=0.0))
        w_names = pd.factorize(df["worker"])[1]
        l_names = pd.factorize(df["label"])[1]
        for method, n_iter in (("vb", 5), ("vb", 50), ("em", 50)):
            m = MACE(n_restarts=1, n_iter=n_iter, method=method, random_state=0)
            # the start values crowd-kit draws (MACE._initialize), in its factorize order
            spam0 = sps.uniform(1, 1 + m.default_noise).rvs(size=(len(w_names), 2), random_state=0)
            theta0 = sps.uniform(1, 1 + m.default_noise).rvs(size=(len(w_names), len(l_names)), random_state=0)
            res = add("mace", {"method": method, "n_iter": n_iter}, m)
            res["init"] = {"workers": [_plain(w) for w in w_names], "labels": [_plain(x) for x in l_names],
                           "spam": spam0.tolist(), "strategy": theta0.tolist()}
            # crowd-kit indexes its strategy matrix by factorize codes but fills it in sorted order:
            # the two agree only when first appearance is sorted order
            res["orders_sorted"] = bool(list(w_names) == sorted(w_names) and list(l_names) == sorted(l_names))
        out["datasets"][name] = entry
    OUT.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main(sys.argv[1])
