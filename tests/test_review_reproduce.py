"""check_claims recomputes a claim from released files (qrels pair, scores) and compares at the printed rounding.

Expected numbers come from computations independent of metaeval.align: pandas merges of the two
qrels files with scikit-learn's ``cohen_kappa_score``, numpy's ``corrcoef``, and Kendall's τ_a by
counting concordant pairs. The real-data test reproduces the collector-computed κ of UMBRELA
(GPT-4o) against the NIST qrels on TREC DL 2020 (``shared/data/trec_dl_passage/reference_numbers.txt``
§E: 4-level 0.3413, binarised at 2: 0.4497).
"""

from __future__ import annotations

import os
from itertools import combinations
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score

from metaeval import InputError, check_claims

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "data_samples" / "trec_dl_like"
DATA = Path(os.environ.get("METAEVAL_SHARED_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))
TRECDL = DATA / "trec_dl_passage"


def _qrels(path):
    return pd.read_csv(path, sep=" ", header=None, names=["q", "x", "d", "rel"], dtype={"q": str, "d": str})


def _merged():
    h, j = _qrels(SAMPLES / "qrels.human.txt"), _qrels(SAMPLES / "qrels.judge.txt")
    return h.merge(j, on=["q", "d"], suffixes=("_h", "_j"))


def _write(tmp_path, body):
    p = tmp_path / "claims.toml"
    p.write_text(body, encoding="utf-8")
    return p


def kappa_from_qrels_pair_test(tmp_path):
    m = _merged()
    k4 = cohen_kappa_score(m.rel_h, m.rel_j)
    k2 = cohen_kappa_score(m.rel_h >= 2, m.rel_j >= 2)
    rel = os.path.relpath(SAMPLES, tmp_path)                 # paths relative to the claims file
    files = f'files = {{ reference = "{rel}/qrels.human.txt", candidate = "{rel}/qrels.judge.txt" }}\n'
    p = _write(tmp_path, f'[[claim]]\nkind = "kappa"\nvalue = "{k4:.3f}"\n{files}'
                         f'[[claim]]\nkind = "kappa"\nvalue = "{k2:.4f}"\nbinarize = 2\n{files}'
                         f'[[claim]]\nkind = "kappa"\nvalue = "{k2 + 0.02:.2f}"\nbinarize = 2\n{files}'
                         f'[[claim]]\nkind = "accuracy"\nvalue = "{(m.rel_h == m.rel_j).mean():.3f}"\n{files}')
    df = check_claims(p)
    assert df["reproduced"].tolist()[:2] == ["reproduced", "reproduced"]
    assert df["recomputed"][0] == pytest.approx(k4, abs=1e-12) and df["recomputed"][1] == pytest.approx(k2, abs=1e-12)
    assert df["verdict"].tolist()[:2] == ["consistent", "consistent"]
    assert df["details"][1]["table"] == [[int(((m.rel_h < 2) & (m.rel_j < 2)).sum()), int(((m.rel_h < 2) & (m.rel_j >= 2)).sum())],
                                        [int(((m.rel_h >= 2) & (m.rel_j < 2)).sum()), int(((m.rel_h >= 2) & (m.rel_j >= 2)).sum())]]
    # off by more than the rounding: "differs by …" and inconsistent
    assert df["reproduced"][2].startswith("differs by ") and df["verdict"][2] == "inconsistent"
    diff = float(df["reproduced"][2].split()[2])
    assert diff == pytest.approx(k2 - float(f"{k2 + 0.02:.2f}"), abs=1e-3)
    # accuracy: the count of equal labels over the paired items
    assert df["reproduced"][3] == "reproduced" and df["recomputed"][3] == pytest.approx((m.rel_h == m.rel_j).mean())


def scores_files_test(tmp_path):
    rng = np.random.default_rng(4)
    x = rng.normal(size=40)
    y = x + rng.normal(size=40)
    pd.DataFrame({"judge": x, "human": y}).to_csv(tmp_path / "items.csv", index=False)
    r = np.corrcoef(x, y)[0, 1]
    sx, sy = rng.permutation(12).astype(float), None
    sy = sx.copy()
    sy[[0, 1]] = sy[[1, 0]]
    sy[[5, 9]] = sy[[9, 5]]
    pd.DataFrame({"system": [f"s{i}" for i in range(12)], "human": sx, "judge": sy}).to_csv(tmp_path / "systems.csv", index=False)
    pairs = list(combinations(range(12), 2))
    tau_a = sum(np.sign(sx[i] - sx[j]) * np.sign(sy[i] - sy[j]) for i, j in pairs) / len(pairs)
    p = _write(tmp_path, f'[[claim]]\nkind = "correlation"\nmethod = "pearson"\nvalue = "{r:.2f}"\n'
                         'files = { scores = "items.csv" }\ncolumns = ["judge", "human"]\n'
                         f'[[claim]]\nkind = "rank_correlation"\nvalue = "{tau_a:.3f}"\n'
                         'files = { scores = "systems.csv" }\ncolumns = ["human", "judge"]\n')
    df = check_claims(p)
    assert df["reproduced"].tolist() == ["reproduced", "reproduced"]
    assert df["recomputed"][1] == pytest.approx(tau_a)
    assert df["details"][0]["reproduced_value"] == pytest.approx(r, abs=1e-12)


def reproduce_errors_test(tmp_path):
    p = _write(tmp_path, '[[claim]]\nkind = "kappa"\nvalue = 0.5\nfiles = { reference = "nope.txt", candidate = "x.txt" }\n')
    with pytest.raises(InputError, match="claim 1 .*'nope.txt' does not exist"):
        check_claims(p)
    p = _write(tmp_path, '[[claim]]\nkind = "win_rate"\nwins = 3\nlosses = 2\nfiles = { battles = "b.csv" }\n')
    with pytest.raises(InputError, match="cannot be recomputed from files"):
        check_claims(p)
    pd.DataFrame({"a": [1, 2, 3, 4, 5]}).to_csv(tmp_path / "s.csv", index=False)
    p = _write(tmp_path, '[[claim]]\nkind = "correlation"\nvalue = 0.5\nfiles = { scores = "s.csv" }\ncolumns = ["a", "b"]\n')
    with pytest.raises(InputError, match="no column 'b'"):
        check_claims(p)


@pytest.mark.realdata
@pytest.mark.skipif(not (TRECDL / "reference_numbers.txt").is_file(),
                    reason=f"no trec_dl_passage data in {DATA} (set METAEVAL_SHARED_DATA to the shared/data folder)")
def umbrela_dl20_kappa_realdata_test(tmp_path):
    # reference_numbers.txt §E (collector-computed, unweighted κ on the pairs present in both files):
    # umbrela gpt-4o, DL20: 4-level 0.3413, binarised (≥ 2) 0.4497
    files = (f'files = {{ reference = "{TRECDL}/qrels/human/qrels.dl20-passage.txt", '
             f'candidate = "{TRECDL}/qrels/llm/umbrela-zeroshot-gpt-4o.dl20.txt" }}\n')
    p = _write(tmp_path, f'[[claim]]\nkind = "kappa"\nvalue = "0.3413"\n{files}'
                         f'[[claim]]\nkind = "kappa"\nvalue = "0.4497"\nbinarize = 2\n{files}')
    df = check_claims(p)
    assert df["reproduced"].tolist() == ["reproduced", "reproduced"]
    assert int(np.sum(df["details"][0]["table"])) == 11_386
