"""metaeval: statistical meta-evaluation of LLM and VLM judges.

The public API is re-exported here and loaded lazily, so that ``metaeval --help`` starts fast.
"""

from __future__ import annotations

import importlib

from ._errors import InputError, MetaevalWarning, SmallSampleWarning, UndefinedStatisticWarning

__version__ = "0.1.0"

_LAZY = {
    # io
    "read_qrels": "io", "read_run": "io", "read_runs": "io", "read_judgments": "io",
    "read_battles": "io", "read_score_table": "io", "write_qrels": "io", "write_run": "io",
    "write_table": "io",
    # scales and alignment
    "Scale": "scale",
    "align": "alignment", "Paired": "alignment", "AlignmentReport": "alignment",
    # resampling and results
    "bootstrap": "resample", "Units": "resample", "Estimate": "results", "ConfidenceInterval": "results",
    "ResultSet": "results", "contingency": "tables",
    # agreement
    "cohen_kappa": "agreement", "scott_pi": "agreement", "pabak": "agreement", "bennett_s": "agreement",
    "gwet_ac1": "agreement", "gwet_ac2": "agreement", "observed_agreement": "agreement",
    "kappa_max": "agreement", "matthews_corrcoef": "agreement", "krippendorff_alpha": "agreement",
    "fleiss_kappa": "agreement", "confusion_matrix": "agreement", "per_class": "agreement",
    "binary_metrics": "agreement", "prevalence_bias_index": "agreement",
    "kappa_at_prevalence": "agreement", "threshold_agreement": "agreement",
    "agreement_report": "agreement", "agreement_by": "agreement", "agreement_difference": "agreement",
    # item-level score correlation, ICC, square-table tests
    "score_correlation": "correlation", "mean_of_samples": "correlation", "icc": "correlation",
    "fisher_z_interval": "correlation",
    "stuart_maxwell": "tests_square", "bowker": "tests_square", "SquareTestResult": "tests_square",
    # system rankings
    "system_scores": "evaluation", "scores_from_table": "evaluation", "SystemScores": "evaluation",
    "rank_correlation": "ranking", "kendall_tau": "ranking", "tau_ap": "ranking", "rbo": "ranking",
    "significance_agreement": "ranking", "score_matrices": "ranking",
    # pairwise judgments
    "win_rates": "pairwise", "head_to_head": "pairwise", "pairwise_agreement": "pairwise",
    "seen_unseen_agreement": "pairwise", "inter_rater_agreement": "pairwise", "majority_verdict": "pairwise",
    "combine_swaps": "pairwise", "position_bias": "pairwise", "bradley_terry": "pairwise",
    "ranking_correlation": "pairwise", "length_controlled_win_rate": "pairwise", "pairwise_confusion": "pairwise",
    # bias, sensitivity, validation design
    "length_bias": "bias", "self_enhancement": "bias", "prefer_longer": "bias", "rank_change": "bias",
    "sensitivity": "sensitivity", "Scenario": "sensitivity",
    "design_validation_sample": "design", "estimate_from_validation": "design", "sample_size": "design",
    # reports
    "Report": "report", "run_study": "study", "load_study": "study",
    # sample data, figures
    "datasets": None, "figures": None,
}

__all__ = ["InputError", "MetaevalWarning", "SmallSampleWarning", "UndefinedStatisticWarning",
           "__version__", *_LAZY]


def __getattr__(name: str):
    if name in _LAZY:
        mod = _LAZY[name]
        if mod is None:
            value = importlib.import_module(f".{name}", __name__)
        else:
            value = getattr(importlib.import_module(f".{mod}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'metaeval' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))
