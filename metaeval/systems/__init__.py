"""System rankings: per-topic system scores from qrels and runs, rank correlations between two sets
of scores, significance agreement and pool bias."""
