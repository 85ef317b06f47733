"""What every layer uses: errors, scales, sufficient-statistic tables, the resampling engine, result
objects and the registry of statistics."""
