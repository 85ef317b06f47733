"""Reviewer mode: check a paper's claims from the numbers it reports."""

from .claims import check_claims
from .prose import find_claims
from .text import review_text

__all__ = ["check_claims", "find_claims", "review_text"]
