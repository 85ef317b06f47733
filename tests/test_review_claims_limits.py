"""check_claims at the edges: numbers outside their statistic's range, statistics that cannot be
computed, counts that are not counts, and sizes beyond what enumeration can do.

Every expectation is a property: a correlation or κ lies in [−1, 1] and a proportion in [0, 1]
(definitions), a win rate needs a battle, n is a whole number; the timings bound the work.
"""

from __future__ import annotations

import time

import numpy as np
import pytest

from metaeval import InputError
from metaeval.review.claims import check_claims


def one(**claim):
    return check_claims([claim]).iloc[0]


@pytest.mark.parametrize("claim, what", [
    ({"kind": "correlation", "method": "pearson", "value": 1.52, "n": 30}, "Pearson's r"),
    ({"kind": "correlation", "method": "spearman", "value": -1.2, "n": 30, "p": "< .001"}, "Spearman's ρ"),
    ({"kind": "correlation", "method": "kendall", "value": "1.01", "n": 30}, "Kendall's τ"),
    ({"kind": "rank_correlation", "value": 1.3, "systems": 10}, "Kendall's τ"),
    ({"kind": "accuracy", "value": 1.7, "n": 10}, "accuracy"),
    ({"kind": "precision", "value": -0.1, "n": 10}, "precision"),
    ({"kind": "kappa", "value": 1.2, "n": 50}, "Cohen's κ"),
    ({"kind": "kappa", "value": 1.2, "table": [[5, 1], [1, 5]]}, "Cohen's κ"),
    ({"kind": "kappa", "value": 0.5, "n": 50, "percent_agreement": 1.3}, "percent agreement"),
    ({"kind": "fleiss_kappa", "value": 1.5}, "Fleiss' κ"),
    ({"kind": "f1", "value": 0.5, "precision": 1.4, "recall": 0.5}, "precision"),
    ({"kind": "win_rate", "wins": 3, "losses": 2, "value": 1.5}, "win rate"),
    ({"kind": "win_rate_difference", "a": {"wins": 3, "losses": 2}, "b": {"wins": 2, "losses": 3}, "value": -2},
     "difference of win rates"),
    ({"kind": "judge_vs_human", "judge_kappa": 1.5, "judge_n": 100, "human_kappa": 0.6, "human_n": 100}, "Cohen's κ"),
])
def a_number_outside_its_range_is_inconsistent_test(claim, what):
    r = one(**claim)
    assert r.verdict == "inconsistent"
    assert "outside the range" in r.reason and what in r.reason


def the_range_ends_themselves_are_possible_test():
    # r = 1.00 (perfect agreement) and accuracy 1.000 are possible; 1.004 printed with 3 decimals is not
    assert one(kind="correlation", method="pearson", value="1.00", n=30).verdict != "inconsistent"
    assert one(kind="accuracy", value="1.000", n=10).verdict == "consistent"
    assert one(kind="correlation", method="pearson", value="1.004", n=30).verdict == "inconsistent"


def a_win_rate_without_battles_is_not_computable_test():
    for claim in ({"kind": "win_rate", "wins": 0, "losses": 0, "ties": 0},
                  {"kind": "win_rate", "wins": 0, "losses": 0, "ties": 0, "value": 0.5}):
        r = one(**claim)
        assert r.verdict == "inconsistent" and "not computable" in r.reason and np.isnan(r.recomputed)
    r = one(kind="win_rate_difference", a={"wins": 0, "losses": 0, "ties": 0}, b={"wins": 3, "losses": 2}, value=0.1)
    assert r.verdict == "inconsistent" and "side a" in r.reason and "not computable" in r.reason
    # only ties: not computable without ties, 0.5 with ties as halves
    r = one(kind="win_rate", wins=0, losses=0, ties=4, value=0.5)
    assert r.verdict == "consistent" and "tie_half" in r.reason


@pytest.mark.parametrize("n", [float("nan"), float("inf"), 1e300, 10.5, -3, "12.5", 2 ** 63 - 1])
def a_count_that_is_not_a_count_is_one_line_test(n):
    with pytest.raises(InputError) as e:
        check_claims([{"kind": "accuracy", "value": 0.5, "n": n}])
    msg = str(e.value)
    assert len(msg.splitlines()) == 1 and "claim 1" in msg and "'accuracy'" in msg


def labels_that_differ_by_rounding_error_are_refused_test(tmp_path):
    # 1 and 1.0000001 would be two categories: κ 0.44 from labels that agree everywhere
    (tmp_path / "ref.csv").write_text("item,label\nd1,1\nd2,0\nd3,1\nd4,0\nd5,1\n")
    (tmp_path / "cand.csv").write_text("item,label\nd1,1.0000001\nd2,0\nd3,1.0000001\nd4,0\nd5,1\n")
    with pytest.raises(InputError, match="differ only by"):
        check_claims([{"kind": "kappa", "value": 1.0, "files": {"reference": "ref.csv", "candidate": "cand.csv"},
                       "on": "item", "label": "label"}], base_dir=tmp_path)


def a_correlation_that_overflows_is_refused_test(tmp_path):
    (tmp_path / "s.csv").write_text("x,y\n1e308,2\n1.5e308,3\n-1e308,4\n3,5\n4,1\n")
    with np.errstate(all="ignore"):
        from scipy import stats
        assert np.isnan(stats.pearsonr([1e308, 1.5e308, -1e308, 3, 4], [2, 3, 4, 5, 1])[0])   # the silent NaN
    with pytest.raises(InputError, match="not computable"):
        check_claims([{"kind": "correlation", "method": "pearson", "value": 0.5, "files": {"scores": "s.csv"},
                       "columns": ["x", "y"]}], base_dir=tmp_path)


def a_hundred_thousand_systems_take_no_time_test():
    t0 = time.perf_counter()
    r = one(kind="rank_correlation", value=0.89, systems=100_000, p="< .001", compare_to=0.9)
    assert time.perf_counter() - t0 < 2.0
    assert r.verdict in ("consistent", "not supported") and "normal approximation" in r.reason


def kappa_beyond_the_search_is_refused_in_one_line_test():
    for n in (10 ** 8, 10 ** 12):
        t0 = time.perf_counter()
        with pytest.raises(InputError, match="beyond the exhaustive search") as e:
            check_claims([{"kind": "kappa", "value": 0.5, "n": n}])
        assert time.perf_counter() - t0 < 1.0 and len(str(e.value).splitlines()) == 1
    # with the table, any n is a closed form (κ of the table)
    r = one(kind="kappa", value="0.50", table=[[3 * 10 ** 7, 10 ** 7], [10 ** 7, 3 * 10 ** 7]])
    assert r.verdict == "consistent"
    # accuracy at a large n is GRIM in closed form
    assert one(kind="accuracy", value=0.77, n=10 ** 12).verdict == "consistent"


def claims_files_that_cannot_be_read_are_one_line_test(tmp_path):
    import os

    latin = tmp_path / "latin.toml"
    latin.write_bytes(b'[[claim]]\nkind = "accuracy"\nsentence = "caf\xe9"\nvalue = 0.5\nn = 10\n')
    deep = tmp_path / "deep.toml"
    deep.write_text('[[claim]]\nkind = "accuracy"\nvalue = 0.5\nn = 10\nx = ' + "[" * 100_000 + "]" * 100_000 + "\n")
    fifo = tmp_path / "fifo.toml"
    os.mkfifo(fifo)
    text_fifo = tmp_path / "texts.toml"
    text_fifo.write_text('[[text]]\nfile = "fifo.toml"\n')
    for path, what in ((latin, "not UTF-8"), (deep, "nested too deep"), (fifo, "not a regular file")):
        with pytest.raises(InputError, match=what) as e:
            check_claims(path)
        assert len(str(e.value).splitlines()) == 1
    from metaeval.review.claims import load_texts
    with pytest.raises(InputError, match="not a regular file"):
        load_texts(text_fifo)


def kappa_with_margins_beyond_the_integer_program_is_refused_test():
    # n = 10^12 with 3×3 margins: HiGHS used to answer "no table" for κ = 0.61 (a false "inconsistent")
    n = 10 ** 12
    m = [[n // 2, n // 4, n - n // 2 - n // 4]] * 2
    with pytest.raises(InputError, match="integer program"):
        check_claims([{"kind": "kappa", "value": "0.61", "n": n, "margins": m}])
    n = 10 ** 6        # within the bound: a table is found and recomputed with the registry's κ
    m = [[n // 2, n // 4, n - n // 2 - n // 4]] * 2
    assert check_claims([{"kind": "kappa", "value": "0.61", "n": n, "margins": m}]).verdict[0] == "consistent"
