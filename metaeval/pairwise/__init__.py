"""Pairwise judgments (battles): win rates under every tie rule, judge-human agreement, position
bias, Bradley-Terry strengths and the length-controlled win rate."""
