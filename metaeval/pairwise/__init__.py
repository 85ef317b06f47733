"""Pairwise judgments (battles): win rates under every tie rule, agreement with a reference, position
bias, Bradley–Terry strengths, model-ranking correlation and the length-controlled win rate.

The modules, in the order the data flows through them:

==========================  ===========================================================================
``outcomes``                the outcome codes and the tie rules as ONE table (:func:`tie_rule_table`)
``_prepare``                battle frames → normalized codes, raters, baseline, orientation, units
``_results``                :class:`PairwiseResult`, the engine call, defaults
``verdicts``                :func:`majority_verdict`, :func:`combine_swaps`
``winrates``                :func:`win_rates`, :func:`head_to_head`
``agreement``               :func:`pairwise_agreement`, :func:`seen_unseen_agreement`,
                            :func:`inter_rater_agreement`, :func:`pairwise_confusion`
``position``                :func:`position_bias`
``bradley_terry``           :func:`bradley_terry`
``model_ranking``           :func:`model_rank_correlation` (and the deprecated ``ranking_correlation``)
``length_control``          :func:`length_controlled_win_rate`
==========================  ===========================================================================

Every public function is also ``metaeval.<name>``. Functions that compare two raters take
``(reference, candidate)``: the reference is the human (or gold) side, the candidate the judge.

Examples
--------
>>> from metaeval import pairwise
>>> sorted(pairwise.outcomes.RULES)
['exact', 'fdt', 'soft', 'tie_half', 'tie_zero', 'without_ties']
"""

from __future__ import annotations

from . import outcomes
from ._results import PairwiseResult
from .agreement import inter_rater_agreement, pairwise_agreement, pairwise_confusion, seen_unseen_agreement
from .bradley_terry import bradley_terry
from .length_control import length_controlled_win_rate
from .model_ranking import model_rank_correlation, ranking_correlation
from .outcomes import TIE_RULES, tie_rule_table
from .position import position_bias
from .verdicts import combine_swaps, majority_verdict
from .winrates import head_to_head, win_rates

__all__ = [
    "TIE_RULES", "tie_rule_table", "PairwiseResult", "outcomes",
    "win_rates", "head_to_head", "pairwise_agreement", "seen_unseen_agreement", "inter_rater_agreement",
    "pairwise_confusion", "majority_verdict", "combine_swaps", "position_bias", "bradley_terry",
    "model_rank_correlation", "ranking_correlation", "length_controlled_win_rate",
]
