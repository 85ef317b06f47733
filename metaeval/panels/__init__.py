"""Many judges: panels with paired comparisons, juries that combine judges (issue #22)."""

from .jury import JuryResult, JurySelection, jury, select_jury

__all__ = ["jury", "JuryResult", "select_jury", "JurySelection"]
