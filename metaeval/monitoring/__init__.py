"""Judges over time: confidence sequences, an anytime-valid drift monitor, and its planner; grading noise of repeated gradings."""

from .drift import AgreementMonitor, MonitorResult, monitor, plan_anchors
from .repeats import GradingNoise, grading_noise, repeats_for_reliability, spearman_brown, variance_components
from .sequences import agreement_sequence, bernoulli_cs

__all__ = ["agreement_sequence", "bernoulli_cs", "AgreementMonitor", "MonitorResult", "monitor", "plan_anchors",
           "variance_components", "grading_noise", "GradingNoise", "spearman_brown", "repeats_for_reliability"]
