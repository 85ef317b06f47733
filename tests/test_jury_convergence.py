"""Iterative aggregators say when they stop before converging, and refuse iteration limits that are not
whole numbers ≥ 1 (properties: an EM with one iteration cannot show convergence; with the default limit
on well-separated votes Dawid–Skene converges, as crowd-kit's DawidSkene does on the same votes)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import metaeval
from metaeval import ConvergenceWarning, InputError

LABELS = [[0, 0, 1], [1, 1, 1], [1, 0, 1], [0, 0, 0], [1, 1, 0], [0, 1, 0], [1, 1, 1], [0, 0, 0]]


@pytest.mark.parametrize("method", ["dawid_skene", "one_coin_dawid_skene", "glad"])
def a_fit_stopped_at_its_limit_warns_test(method):
    with pytest.warns(ConvergenceWarning, match="did not converge in 1 iteration"):
        r = metaeval.jury(LABELS, method=method, n_iter=1)
    assert r.converged is False and r.n_iter == 1


@pytest.mark.parametrize("method", ["dawid_skene", "one_coin_dawid_skene", "glad"])
def a_converged_fit_is_silent_test(method):
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        r = metaeval.jury(LABELS, method=method)
    assert r.converged is True


@pytest.mark.parametrize("method, option", [
    ("dawid_skene", "n_iter"), ("one_coin_dawid_skene", "n_iter"), ("glad", "n_iter"), ("glad", "m_step_max_iter"),
    ("mace", "n_iter"), ("mace", "n_restarts")])
@pytest.mark.parametrize("value", [0, -1, 2.5, float("nan"), float("inf"), True, "10"])
def an_iteration_limit_that_is_not_a_count_is_refused_test(method, option, value):
    with pytest.raises(InputError, match=f"{option} must be a whole number ≥ 1") as e:
        metaeval.jury(LABELS, method=method, **{option: value})
    assert len(str(e.value).splitlines()) == 1


@pytest.mark.parametrize("value", [-1e-5, float("nan"), float("inf")])
def a_tolerance_that_is_not_a_number_is_refused_test(value):
    with pytest.raises(InputError, match="tol must be a finite number"):
        metaeval.jury(LABELS, method="dawid_skene", tol=value)


def the_warning_is_a_metaeval_warning_test():
    assert issubclass(ConvergenceWarning, metaeval.MetaevalWarning)
    assert np.isfinite(metaeval.jury(LABELS, method="dawid_skene", n_iter=100).probabilities.to_numpy()).all()
