"""Tests of metaeval.core.results: estimates and result sets that keep their keys (issue 10, item 5).

Sources of the expected numbers: scikit-learn's ``precision_recall_fscore_support`` for the
per-class precision and recall of the 3×3 table (the estimates the keys must lead to); everything
else is a property of the result objects (keys travel with the estimates, lookups are explicit,
renderings show the keys and the numbers, the frame schema is the package's fixed one).
"""

from __future__ import annotations

import copy
import pickle
import warnings
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import precision_recall_fscore_support

import metaeval
from metaeval import ConfidenceInterval, Estimate, ResultSet
from metaeval.core.results import FRAME_COLUMNS

#: A 3×3 table (rows: reference, columns: candidate) with distinct per-class precisions.
TABLE = np.array([[30, 6, 2], [5, 25, 8], [1, 4, 19]])
FAST = {"n_resamples": 200, "rng": 0}

#: The columns of ``to_frame()`` before issue 10 (key columns first), written out so that a change fails.
OLD_FRAME_COLUMNS = ["statistic", "estimate", "ci_low", "ci_high", "confidence_level", "ci_method", "se", "bias",
                     "pvalue", "n", "unit", "n_units", "n_resamples", "seed"]


def _labels(t):
    x, y = [], []
    for i in range(t.shape[0]):
        for j in range(t.shape[1]):
            x += [i] * int(t[i, j])
            y += [j] * int(t[i, j])
    return np.array(x), np.array(y)


@pytest.fixture(scope="module")
def pc():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", metaeval.MetaevalWarning)
        return metaeval.per_class(table=TABLE, **FAST)


def _ci(low=0.1, high=0.9, method="percentile"):
    return ConfidenceInterval(low, high, 0.95, method)


def _est(stat="s", value=0.5, **kw):
    return Estimate(stat, value, _ci(), n=10, n_units=10, **kw)


class _Cells(HTMLParser):
    """Collects the text of every cell and counts tables and rows (the HTML must parse)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.cells: list[str] = []
        self.tables = self.rows = 0
        self._cell = None

    def handle_starttag(self, tag, attrs):
        self.tables += tag == "table"
        self.rows += tag == "tr"
        if tag in ("td", "th"):
            self._cell = ""

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self.cells.append(self._cell)
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell += data


def _parse(html_text):
    p = _Cells()
    p.feed(html_text)
    p.close()
    return p


# --------------------------------------------------------------------------------------------
# the estimates behind the keys are the right ones
# --------------------------------------------------------------------------------------------

def per_class_keys_lead_to_sklearn_values_test(pc):
    x, y = _labels(TABLE)
    prec, rec, f1, support = precision_recall_fscore_support(x, y, labels=[0, 1, 2], zero_division=np.nan)
    for c in range(3):
        assert pc.get(statistic="precision", **{"class": str(c)}).estimate == pytest.approx(prec[c], abs=1e-12)
        # a number finds the class labelled with its text
        assert pc.get(statistic="recall", **{"class": c}).estimate == pytest.approx(rec[c], abs=1e-12)
        assert pc.get(statistic="f1", **{"class": c}).estimate == pytest.approx(f1[c], abs=1e-12)
        assert pc.get(statistic="f1", **{"class": c, "support": int(support[c])}).estimate == pytest.approx(f1[c])


# --------------------------------------------------------------------------------------------
# keys travel with slicing and filtering
# --------------------------------------------------------------------------------------------

def slicing_keeps_keys_test(pc):
    whole = pc.to_frame()
    for sl in (slice(1, 3), slice(3, 6), slice(None, None, -1), slice(-4, None), slice(0, 9, 4)):
        part = pc[sl]
        assert type(part) is ResultSet and part.name == "per_class"
        assert part.keys == pc.keys[sl]
        assert [e.statistic for e in part] == [e.statistic for e in pc][sl]
        pd.testing.assert_frame_equal(part.to_frame(), whole.iloc[sl].reset_index(drop=True))
    # the slice owns its keys
    part = pc[0:2]
    part.keys[0]["class"] = "changed"
    assert pc.keys[0]["class"] == "0"
    # single positions stay plain list indexing
    assert pc[0] is list(pc)[0] and pc[-1].statistic == "f1"


def masks_and_positions_keep_keys_test(pc):
    f = pc.to_frame()
    high = pc[(f["estimate"] > 0.7).to_numpy()]
    assert len(high) == int((f["estimate"] > 0.7).sum()) > 0
    assert high.keys == [k for k, v in zip(pc.keys, f["estimate"] > 0.7) if v]
    assert pc[f["statistic"] == "recall"].keys == pc.filter(statistic="recall").keys  # a boolean Series
    assert [k["class"] for k in pc[[2, 0]].keys] == ["2", "0"]
    assert pc[np.array([-1])].keys == [pc.keys[-1]]
    assert len(pc[[]]) == 0 and list(pc[[]].to_frame().columns) == OLD_FRAME_COLUMNS  # no rows, no key columns
    with pytest.raises(IndexError):
        pc[[True, False]]
    with pytest.raises(IndexError):
        pc[[99]]
    with pytest.raises(TypeError, match="rs.get"):
        pc[("precision", "0")]


def filter_test(pc):
    rec = pc.filter(statistic="recall")
    assert len(rec) == 3 and {e.statistic for e in rec} == {"recall"}
    assert [k["class"] for k in rec.keys] == ["0", "1", "2"]
    one = pc.filter(**{"class": 1})
    assert [e.statistic for e in one] == ["precision", "recall", "f1"] and all(k["class"] == "1" for k in one.keys)
    two = pc.filter(statistic=["precision", "f1"], **{"class": ["0", "2"]})
    assert [(e.statistic, k["class"]) for e, k in zip(two, two.keys)] == [
        ("precision", "0"), ("precision", "2"), ("f1", "0"), ("f1", "2")]
    assert len(pc.filter(statistic="kappa")) == 0
    # a misspelt key name is an error, not an empty result
    with pytest.raises(KeyError, match="no key named 'clas'.*class, support"):
        pc.filter(clas=1)


def subclass_and_attributes_survive_slicing_test():
    r = metaeval.kappa_at_prevalence(table=[[85, 20], [20, 77]], prevalence=[0.01, 0.1], n_resamples=100, rng=0)
    assert type(r).__name__ == "PrevalenceResult"
    part = r.filter(prevalence=0.1)
    assert type(part) is type(r) and len(part) == 3
    assert part.curve is r.curve and part.measured_prevalence == r.measured_prevalence
    assert part.get(statistic="kappa").estimate == r.get(statistic="kappa", prevalence=0.1).estimate
    # two prevalences: the name alone is ambiguous now (it used to return the first one silently)
    with pytest.raises(KeyError, match=r"2 estimates named 'kappa': prevalence=0.01, 0.1"):
        r["kappa"]


class _WithExtras(ResultSet):
    """A subclass with a per-estimate list, as PairwiseResult has (``extras``)."""

    def __init__(self, estimates=(), keys=None, name="", extras=None):
        super().__init__(estimates, keys, name)
        self.extras = list(extras) if extras is not None else [{} for _ in self]

    def append_with(self, est, extra=None, **key):
        super().append_with(est, **key)
        self.extras.append(dict(extra or {}))


def per_row_lists_of_subclasses_stay_aligned_test():
    r = _WithExtras(name="w")
    for i in range(5):
        r.append_with(_est("win_rate", i / 10), extra={"wins": i}, model=f"m{i}")
    assert [x["wins"] for x in r[1:4].extras] == [1, 2, 3]
    assert [x["wins"] for x in r.filter(model=["m4", "m0"]).extras] == [0, 4]
    r.reverse()
    assert [x["wins"] for x in r.extras] == [4, 3, 2, 1, 0] and r.keys[0] == {"model": "m4"}
    del r[0]
    assert [x["wins"] for x in r.extras] == [3, 2, 1, 0] and len(r.keys) == 4
    r.insert(1, _est("win_rate", 0.9))
    assert r.extras[1] == {} and r.keys[1] == {} and r.keys[2] == {"model": "m2"}


def pairwise_result_slices_keep_their_counts_test():
    b = metaeval.datasets.load("battles_like").battles
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", metaeval.MetaevalWarning)
        r = metaeval.win_rates(b[b.judge == "human"], tie_rule="fdt", n_resamples=50, rng=0)
    assert type(r).__name__ == "PairwiseResult"
    whole = r.to_frame()
    pd.testing.assert_frame_equal(r[2:5].to_frame(), whole.iloc[2:5].reset_index(drop=True))
    model = r.keys[3]["model"]
    one = r.filter(model=model)
    pd.testing.assert_frame_equal(one.to_frame(), whole[whole["model"] == model].reset_index(drop=True))


# --------------------------------------------------------------------------------------------
# lookups are explicit
# --------------------------------------------------------------------------------------------

def ambiguous_name_raises_with_the_distinguishing_keys_test(pc):
    with pytest.raises(KeyError) as err:
        pc["precision"]
    msg = err.value.args[0]
    assert msg == ("3 estimates named 'precision': class=0, 1, 2; "
                   "use rs.get(statistic='precision', **{'class': ...})")
    with pytest.raises(KeyError, match=r"no estimate with statistic='kappa'.*available: "
                                       r"statistic=precision, recall, f1; class=0, 1, 2"):
        pc["kappa"]


def unique_name_still_works_test():
    rs = ResultSet([_est("cohen_kappa", 0.6), _est("pabak", 0.7)], name="report")
    assert rs["pabak"].estimate == 0.7 and rs.get(statistic="cohen_kappa").estimate == 0.6


def get_lists_matching_or_available_keys_test(pc):
    with pytest.raises(KeyError) as err:
        pc.get(**{"class": 1})
    # three statistics for class 1: the message names them and says to give statistic=
    assert "3 estimates match class=1" in err.value.args[0] and "precision, recall, f1" in err.value.args[0]
    with pytest.raises(KeyError, match=r"no estimate with statistic='precision', class=7 in 'per_class'.*"
                                       r"class=0, 1, 2; support=38, 24"):
        pc.get(statistic="precision", **{"class": 7})
    with pytest.raises(KeyError, match="no key named 'group'"):
        pc.get(statistic="precision", group="a")


def ambiguity_over_two_keys_names_both_test():
    rs = ResultSet(name="agreement")
    for judge in ("gpt", "llama"):
        for rule in ("fdt", "ties_half"):
            rs.append_with(_est("agreement", 0.5), judge=judge, tie_rule=rule, group="all")
    with pytest.raises(KeyError) as err:
        rs["agreement"]
    assert err.value.args[0] == ("4 estimates named 'agreement': judge=gpt, llama; tie_rule=fdt, ties_half; "
                                 "use rs.get(statistic='agreement', judge=..., tie_rule=...)")
    assert rs.get(statistic="agreement", judge="llama", tie_rule="fdt") is rs[2]
    same = ResultSet([_est("x"), _est("x")], keys=[{"g": 1}, {"g": 1}])
    with pytest.raises(KeyError, match=r"2 estimates named 'x' with the same keys \(g=1\); select by position"):
        same["x"]


# --------------------------------------------------------------------------------------------
# rendering
# --------------------------------------------------------------------------------------------

def str_shows_keys_on_every_line_test(pc):
    lines = str(pc).splitlines()
    assert len(lines) == 9
    for line, e, k in zip(lines, pc, pc.keys):
        assert line.startswith(f"[class={k['class']}, support={k['support']}]")
        assert f"{e.statistic} = {e.estimate:.4f}" in line
    precision_lines = [ln for ln in lines if "precision =" in ln]
    assert len(set(precision_lines)) == 3  # the classes can be told apart
    assert repr(pc).splitlines()[0] == "ResultSet('per_class', 9 estimates; keys: class, support)"
    # without keys, the lines are the estimates' own
    rs = ResultSet([_est("a", 0.25)])
    assert str(rs) == str(rs[0])


def estimate_html_parses_and_has_the_numbers_test():
    e = Estimate("cohen_kappa", 0.53214, ConfidenceInterval(0.41237, 0.62001, 0.95, "bca"), pvalue=0.00123,
                 n=202, n_units=35, unit="clusters")
    h = e._repr_html_()
    assert h == e._repr_html_()
    p = _parse(h)
    assert p.tables == 1 and p.rows == 2
    assert p.cells == ["statistic", "estimate", "interval", "method", "p-value", "n", "unit",
                       "cohen_kappa", "0.5321", "95% [0.4124, 0.6200]", "bca", "0.00123", "202", "clusters (35)"]


def resultset_html_parses_and_has_the_numbers_test(pc):
    h = pc._repr_html_()
    assert h == pc._repr_html_()
    p = _parse(h)
    assert p.tables == 1 and p.rows == 1 + len(pc)
    head = ["statistic", "class", "support", "estimate", "interval", "method", "n", "unit"]
    assert p.cells[:len(head)] == head
    body = [p.cells[i:i + len(head)] for i in range(len(head), len(p.cells), len(head))]
    for row, e, k in zip(body, pc, pc.keys):
        assert row[:3] == [e.statistic, k["class"], str(k["support"])]
        assert row[3] == f"{e.estimate:.4f}"
        assert row[4] == f"95% [{e.ci.low:.4f}, {e.ci.high:.4f}]"
        assert row[5:] == ["bca", str(e.n), f"items ({e.n_units})"]
    assert "per_class: 9 estimates" in h
    # markup in keys or names is escaped, and the table still parses
    rs = ResultSet([_est("<b>", 0.5)], keys=[{"group": "a & <b>"}])
    assert _parse(rs._repr_html_()).cells[7:9] == ["<b>", "a & <b>"]


def long_resultset_html_is_cut_test():
    rs = ResultSet([_est("x", i / 1000) for i in range(250)], keys=[{"i": i} for i in range(250)])
    p = _parse(rs._repr_html_())
    assert p.rows == 1 + 200 + 1 and "first 200 of 250 rows shown" in p.cells[-1]


def point_estimate_prints_without_an_interval_test():
    nan = float("nan")
    e = Estimate("cohen_kappa", 0.5321, ConfidenceInterval(nan, nan, 0.95, "none"), n=202, n_units=202)
    s = str(e)
    assert s == "cohen_kappa = 0.5321, no interval (point estimate only; n = 202)"
    assert "CI" not in s and "[" not in s and "nan" not in s
    cells = _parse(e._repr_html_()).cells
    assert "no interval" in cells and "0.5321" in cells and not any("nan" in c for c in cells)
    # with a p-value (an analytic test without an interval)
    assert str(Estimate("z", 1.5, ConfidenceInterval(nan, nan, 0.95, "none"), pvalue=0.1336, n=50)) == \
        "z = 1.5000, no interval, p = 0.1336 (point estimate only; n = 50)"


def rounding_only_in_rendering_test():
    e = Estimate("x", 0.123456789, _ci(0.0123456789, 0.987654321), se=0.0012345678)
    assert e.to_frame().loc[0, "estimate"] == 0.123456789 and e.row()["se"] == 0.0012345678
    assert "0.1235" in str(e)
    # tiny and huge values keep significant digits instead of printing 0.0000
    assert "= 1.235e-06" in str(Estimate("x", 1.23456e-6, _ci()))


# --------------------------------------------------------------------------------------------
# the frame schema, and concatenating frames
# --------------------------------------------------------------------------------------------

def to_frame_columns_unchanged_test(pc):
    assert list(pc.to_frame().columns) == ["class", "support"] + OLD_FRAME_COLUMNS
    assert FRAME_COLUMNS == OLD_FRAME_COLUMNS
    assert list(pc[0].to_frame().columns) == OLD_FRAME_COLUMNS
    assert list(ResultSet([_est()]).to_frame().columns) == OLD_FRAME_COLUMNS
    assert list(ResultSet().to_frame().columns) == OLD_FRAME_COLUMNS
    # partly keyed sets: key columns in order of first appearance, values kept as they are
    rs = ResultSet()
    rs.append_with(_est(), threshold=1)
    rs.append_with(_est(), split="0|12")
    f = rs.to_frame()
    assert list(f.columns[:2]) == ["threshold", "split"] and f.loc[0, "threshold"] == 1 and f.loc[1, "split"] == "0|12"


def concatenating_frames_test(pc):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", metaeval.MetaevalWarning)
        thr = metaeval.threshold_agreement(table=TABLE, **FAST)
        kappa = metaeval.cohen_kappa(table=TABLE, **FAST)
    frames = [pc.to_frame(), thr.to_frame(), kappa.to_frame()]
    both = pd.concat(frames, ignore_index=True)
    assert len(both) == len(pc) + len(thr) + 1
    assert list(both.columns) == ["class", "support"] + OLD_FRAME_COLUMNS + ["threshold", "split"]
    assert both["statistic"].notna().all() and both["estimate"].notna().all()
    assert both["class"].notna().sum() == len(pc) and both["threshold"].notna().sum() == len(thr)
    assert both.loc[len(both) - 1, "statistic"] == "cohen_kappa"
    # the sets themselves concatenate too, keys included
    joined = pc + thr
    assert type(joined) is ResultSet and len(joined) == len(pc) + len(thr)
    assert joined.keys == pc.keys + thr.keys
    pd.testing.assert_frame_equal(joined.to_frame(), pd.concat(frames[:2], ignore_index=True)[joined.to_frame().columns])


# --------------------------------------------------------------------------------------------
# what the rest of the package relies on keeps working
# --------------------------------------------------------------------------------------------

def list_behaviour_kept_test(pc):
    assert isinstance(pc, list) and len(pc) == 9 and all(isinstance(e, Estimate) for e in pc)
    assert list(pc) == [pc[i] for i in range(9)]
    # equality: with a plain list the estimates, with another result set the keys as well
    assert pc[0:3] == list(pc)[0:3] and pc[0:3] == pc.filter(**{"class": "0"})[0:0] + pc[0:3]
    assert ResultSet(pc[0:3], keys=[{"class": "x"}] * 3) != pc[0:3]
    # ResultSet(a + b) keeps the keys of both (a + b is a ResultSet)
    c = ResultSet(pc[:2] + pc[5:6])
    assert c.keys == pc.keys[:2] + pc.keys[5:6]
    # ResultSet(plain list) has no keys; a plain list on the left of + is fine too
    assert ResultSet(list(pc)).keys == [{}] * 9
    d = list(pc[:1]) + pc[1:2]
    assert type(d) is ResultSet and d.keys == [{}, pc.keys[1]]
    # the idiom of checks/design.py: append, then append the keys
    rs = ResultSet(name="design")
    rs.append(_est("a"))
    rs.keys.append({})
    rs.append(_est("b"))
    rs.keys.append({"stratum": 2})
    assert rs.keys == [{}, {"stratum": 2}] and rs.to_frame()["stratum"].tolist()[1] == 2
    # append without keys, then append_with: the first one gets no keys, the second its own
    rs = ResultSet()
    rs.append(_est("a"))
    rs.append_with(_est("b"), g=1)
    assert rs.keys == [{}, {"g": 1}]
    # replacing an estimate keeps its keys (checks/bias.py), also through list.__setitem__ (pairwise)
    rs[1] = _est("b", 0.9)
    list.__setitem__(rs, 0, _est("a", 0.1))
    assert rs.keys == [{}, {"g": 1}] and rs.get(statistic="b", g=1).estimate == 0.9
    with pytest.raises(TypeError, match="Estimate"):
        rs.append(0.5)


def mutators_keep_keys_aligned_test():
    rs = ResultSet([_est(s, v) for s, v in zip("abcd", (0.4, 0.1, 0.3, 0.2))], keys=[{"k": s} for s in "abcd"])
    rs.sort(key=lambda e: e.estimate)
    assert [e.statistic for e in rs] == ["b", "d", "c", "a"] and [k["k"] for k in rs.keys] == ["b", "d", "c", "a"]
    assert rs.pop().statistic == "a" and len(rs.keys) == 3
    rs[0:2] = ResultSet([_est("x")], keys=[{"k": "x"}])
    assert [e.statistic for e in rs] == ["x", "c"] and [k["k"] for k in rs.keys] == ["x", "c"]
    rs.extend(ResultSet([_est("y")], keys=[{"k": "y"}]))
    rs += [_est("z")]
    assert [k.get("k") for k in rs.keys] == ["x", "c", "y", None]
    rs.remove(rs[1])
    assert [k.get("k") for k in rs.keys] == ["x", "y", None]
    assert [k.get("k") for k in (rs * 2).keys] == ["x", "y", None] * 2
    rs.clear()
    assert len(rs) == 0 and rs.keys == []


def copies_and_pickles_keep_keys_test(pc):
    for other in (pc.copy(), copy.copy(pc), copy.deepcopy(pc), pickle.loads(pickle.dumps(pc))):
        assert type(other) is ResultSet and other.keys == pc.keys and other.name == pc.name
        assert [e.estimate for e in other] == [e.estimate for e in pc]
        assert other.keys is not pc.keys
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", metaeval.MetaevalWarning)
        r = metaeval.kappa_at_prevalence(table=[[85, 20], [20, 77]], prevalence=0.01, n_resamples=50, rng=0)
    back = pickle.loads(pickle.dumps(r))
    assert type(back) is type(r) and back.keys == r.keys
    pd.testing.assert_frame_equal(back.curve, r.curve)


def constructor_checks_test():
    with pytest.raises(ValueError, match="2 estimates but 1 keys"):
        ResultSet([_est(), _est()], keys=[{}])
    with pytest.raises(TypeError, match="Estimate"):
        ResultSet([1.0])
    rs = ResultSet((e for e in [_est("a"), _est("b")]), keys=({"g": i} for i in range(2)), name="gen")
    assert rs.keys == [{"g": 0}, {"g": 1}] and rs.key_columns == ["g"]
