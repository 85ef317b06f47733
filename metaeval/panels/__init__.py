"""Many judges: panels with paired comparisons, juries that combine judges."""

from .jury import JuryResult, JurySelection, jury, select_jury
from .panel import JuryComparison, PanelResult, judge_panel, jury_vs_best

__all__ = ["judge_panel", "jury_vs_best", "PanelResult", "JuryComparison",
           "jury", "JuryResult", "select_jury", "JurySelection"]
