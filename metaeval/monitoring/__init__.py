"""Judges over time: confidence sequences, an anytime-valid drift monitor, and its planner."""

from .drift import AgreementMonitor, MonitorResult, monitor, plan_anchors
from .sequences import agreement_sequence, bernoulli_cs

__all__ = ["agreement_sequence", "bernoulli_cs", "AgreementMonitor", "MonitorResult", "monitor", "plan_anchors"]
