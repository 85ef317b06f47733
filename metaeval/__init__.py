"""metaeval: statistical meta-evaluation of LLM and VLM judges.

The public API is re-exported here and loaded lazily, so that ``metaeval --help`` starts fast.
"""

import importlib as _importlib

from .core.errors import InputError, MetaevalWarning, SmallSampleWarning, UndefinedStatisticWarning

__version__ = "0.3.1"

_LAZY = {
    # io
    "read_qrels": "data.io", "read_run": "data.io", "read_runs": "data.io", "read_judgments": "data.io",
    "read_battles": "data.io", "read_score_table": "data.io", "write_qrels": "data.io", "write_run": "data.io",
    "write_table": "data.io",
    # scales and alignment
    "Scale": "core.scale",
    "align": "data.alignment", "Paired": "data.alignment", "PairedTables": "data.alignment", "AlignmentReport": "data.alignment",
    # resampling and results
    "bootstrap": "core.resample", "Units": "core.resample", "Estimate": "core.results", "ConfidenceInterval": "core.results",
    "ResultSet": "core.results", "contingency": "core.tables",
    # agreement
    "cohen_kappa": "agreement.coefficients", "scott_pi": "agreement.coefficients", "pabak": "agreement.coefficients", "bennett_s": "agreement.coefficients",
    "gwet_ac1": "agreement.coefficients", "gwet_ac2": "agreement.coefficients", "observed_agreement": "agreement.coefficients",
    "kappa_max": "agreement.coefficients", "matthews_corrcoef": "agreement.coefficients", "krippendorff_alpha": "agreement.multirater",
    "fleiss_kappa": "agreement.multirater", "conger_kappa": "agreement.multirater", "rater_agreement": "agreement.multirater",
    "confusion_matrix": "agreement.coefficients", "per_class": "agreement.coefficients",
    "binary_metrics": "agreement.coefficients", "prevalence_bias_index": "agreement.coefficients",
    "kappa_at_prevalence": "agreement.coefficients", "threshold_agreement": "agreement.coefficients",
    "agreement_report": "agreement.coefficients", "agreement_by": "agreement.coefficients", "agreement_difference": "agreement.coefficients",
    # item-level score correlation, ICC, square-table tests
    "score_correlation": "agreement.correlation", "mean_of_samples": "agreement.correlation", "icc": "agreement.correlation",
    "fisher_z_interval": "agreement.correlation",
    "stuart_maxwell": "agreement.square_tests", "bowker": "agreement.square_tests", "SquareTestResult": "agreement.square_tests",
    # system rankings
    "system_scores": "systems.evaluation", "scores_from_table": "systems.evaluation", "SystemScores": "systems.evaluation",
    "rank_correlation": "systems.ranking", "kendall_tau": "systems.ranking", "tau_ap": "systems.ranking", "rbo": "systems.ranking",
    "significance_agreement": "systems.ranking", "score_matrices": "systems.ranking",
    "pool_bias": "systems.ranking", "RankCorrelation": "systems.ranking",
    # pairwise judgments
    "win_rates": "pairwise.winrates", "head_to_head": "pairwise.winrates", "pairwise_agreement": "pairwise.agreement",
    "seen_unseen_agreement": "pairwise.agreement", "inter_rater_agreement": "pairwise.agreement",
    "pairwise_confusion": "pairwise.agreement", "majority_verdict": "pairwise.verdicts",
    "combine_swaps": "pairwise.verdicts", "position_bias": "pairwise.position", "bradley_terry": "pairwise.bradley_terry",
    "model_rank_correlation": "pairwise.model_ranking", "ranking_correlation": "pairwise.model_ranking",
    "length_controlled_win_rate": "pairwise.length_control", "tie_rule_table": "pairwise.outcomes",
    # bias, sensitivity, validation design
    "length_bias": "checks.bias", "self_enhancement": "checks.bias", "prefer_longer": "checks.bias", "rank_change": "checks.bias",
    "sensitivity": "checks.sensitivity", "Scenario": "checks.sensitivity",
    "design_validation_sample": "checks.design", "estimate_from_validation": "checks.design", "sample_size": "checks.design",
    # judge-corrected inference (PPI, PPI++)
    "ppi_mean": "inference.ppi", "ppi_proportion": "inference.ppi", "ppi_mean_difference": "inference.ppi",
    "ppi_quantile": "inference.ppi", "ppi_ols": "inference.ppi", "ppi_logistic": "inference.ppi",
    "ppi_mean_stratified": "inference.ppi", "neyman_allocation": "inference.ppi",
    "proportional_allocation": "inference.ppi", "stratum_residual_sd": "inference.ppi",
    "ppi_mean_variance": "inference.ppi", "ppi_lambda": "inference.ppi", "PPIVariance": "inference.ppi",
    "corrected_system_scores": "inference.systems", "corrected_coverage": "inference.systems", "CorrectedSystemScores": "inference.systems",
    "rogan_gladen": "inference.prevalence", "rogan_gladen_counts": "inference.prevalence",
    "alt_test": "inference.alt_test", "AltTestResult": "inference.alt_test", "alt_test_simulation": "inference.alt_test",
    "Leaderboard": "inference.leaderboard", "leaderboard": "inference.leaderboard", "leaderboard_metrics": "inference.leaderboard", "leaderboard_pairs": "inference.leaderboard",
    "label_budget": "inference.budget", "required_labels": "inference.budget",
    # reviewer mode
    "check_claims": "review.claims",
    # many judges: panels
    "judge_panel": "panels.panel", "jury_vs_best": "panels.panel", "PanelResult": "panels.panel",
    "JuryComparison": "panels.panel",
    # many judges: juries
    "jury": "panels.jury", "JuryResult": "panels.jury", "select_jury": "panels.jury", "JurySelection": "panels.jury",
    "review_text": "review.text",
    # judges over time: confidence sequences, drift monitor, repeated grading
    "agreement_sequence": "monitoring.sequences", "monitor": "monitoring.drift", "AgreementMonitor": "monitoring.drift",
    "MonitorResult": "monitoring.drift", "plan_anchors": "monitoring.drift",
    "variance_components": "monitoring.repeats", "grading_noise": "monitoring.repeats", "GradingNoise": "monitoring.repeats",
    # reports
    "Report": "output.report", "run_study": "output.study", "load_study": "output.study",
    # sample data, figures
    "datasets": "datasets:", "figures": "figures:",
    # harness logs and annotation-tool exports
    "read_eval_log": "data.logs.reader",
    # reviewer mode: judge-validation claims in prose
    "find_claims": "review.prose",
    # a fit that stopped at its iteration limit
    "ConvergenceWarning": "core.errors",
    # score judges by level (NLG/MT meta-evaluation)
    "level_correlation": "levels.correlation", "level_difference": "levels.correlation",
    "williams_test": "levels.correlation", "level_panel": "levels.many", "LevelPanel": "levels.many",
}

__all__ = ["InputError", "MetaevalWarning", "SmallSampleWarning", "UndefinedStatisticWarning",
           "__version__", *_LAZY]


def __getattr__(name: str):
    if name in _LAZY:
        mod = _LAZY[name]
        if mod.endswith(":"):  # a public module (metaeval.figures, metaeval.datasets)
            value = _importlib.import_module(f".{mod[:-1]}", __name__)
        else:
            value = getattr(_importlib.import_module(f".{mod}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'metaeval' has no attribute {name!r}")


def __dir__():
    # only the public API: not the subpackages an import binds (core, output ...) nor the helpers here
    return sorted(__all__)
