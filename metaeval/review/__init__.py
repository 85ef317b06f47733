"""Reviewer mode: check a paper's claims from the numbers it reports (issue #21)."""

from .claims import check_claims

__all__ = ["check_claims"]
