"""Reviewer mode: check a paper's claims from the numbers it reports (issue #21)."""

from .text import review_text

__all__ = ["review_text"]
