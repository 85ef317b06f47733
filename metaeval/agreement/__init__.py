"""Agreement between a reference rater and a candidate (or many raters): chance-corrected
coefficients with their variances, item-level score correlation and square-table tests."""
