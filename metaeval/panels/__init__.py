"""Many judges: panels with paired comparisons, juries that combine judges (issue #22)."""
