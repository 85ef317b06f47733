"""Reviewer mode: check a paper's claims from the numbers it reports (issue #21)."""
