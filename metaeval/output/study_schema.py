"""The schema of a study file: every section, every key, its type, allowed values, default and meaning.

One declaration serves three readers: :func:`validate_study` (a study's unknown keys, data kinds,
analysis types and values of the wrong type are :class:`~metaeval.core.errors.InputError`\\ s that
name the file, the section, the key and the nearest valid key), :func:`schema_table` (the tables of
``docs/guide/study-files.md``, which ``tests/test_docs_content.py`` checks row by row against it)
and the study runner (``metaeval/output/study.py``).

Sections: ``study`` (the top level), ``analysis`` (keys of every ``[[analysis]]`` entry),
``data:KIND`` (a ``[data.NAME]`` table of that kind) and ``analysis:TYPE`` (the keys of that
analysis type besides those of every analysis). A key ``a.b`` is the key ``b`` of the table ``a``.
"""

from __future__ import annotations

import difflib
import math
import warnings
from typing import NamedTuple

from ..core.errors import InputError, MetaevalWarning
from ..core.resample import check_n_resamples, check_seed
from .escape import STEM_RULE, file_stem, unique_stems

__all__ = ["SCHEMA", "Key", "DATA_KINDS", "ANALYSIS_TYPES", "validate_study", "schema_table", "study_scale"]

STR, INT, NUM, BOOL, LIST, TABLE, ANY = "string", "integer", "number", "boolean", "list", "table", "any"


class Key(NamedTuple):
    """One key of a study section: its type(s), its default and meaning (as the docs show them), its allowed values."""

    type: str | tuple[str, ...]
    default: str
    meaning: str
    allowed: tuple = ()


_K = Key

#: Every section of a study file and its keys.
SCHEMA: dict[str, dict[str, Key]] = {

    'study': {
        'title': _K(STR, '`"metaeval report"`',
                "the report's title"),
        'description': _K(STR, 'none',
                'a paragraph under the title'),
        'seed': _K(INT, '`20261130`',
                'seed of every bootstrap and permutation in the study'),
        'n_resamples': _K(INT, '`2000`',
                'bootstrap resamples of every interval'),
        'data': _K(TABLE, '—',
                'the data sets: one table `[data.NAME]` each (kinds below)'),
        'analysis': _K(LIST, '—',
                'the analyses, in report order: one `[[analysis]]` entry each (types below); at least one'),
    },

    'analysis': {
        'type': _K(STR, '— (required)',
                '`inspect`, `agreement`, `prevalence`, `ranking`, `pairwise`, `correlation`, `length_bias`, `self_enhancement`, `corrected_scores`, `corrected_prevalence`, `alt_test`, `label_budget`, `leaderboard`, `panel`, `jury`, `monitor`, `grading_noise` or `levels`'),
        'name': _K(STR, '`NN_TYPE` (`NN` its position: `01`, `02` ...)',
                'the prefix of its tables and figures, and where its notes are filed: letters, digits, `-`, `_` '
                'and `.`, not starting with `.`, at most 100 characters, unique ignoring case'),
        'title': _K(STR, '`"TYPE: DATA"`',
                'the section heading'),
        'text': _K(STR, 'none',
                'a paragraph under the heading'),
        'data': _K(STR, '—',
                'the data set it analyses (every type but `inspect`, `corrected_scores` and `label_budget`, which name their data sets by role)'),
    },

    'data:pair': {
        'kind': _K(STR, '—',
                '`"pair"`'),
        'reference': _K(STR, '— (required)',
                'the reference file (usually human)'),
        'candidate': _K(STR, '— (required)',
                'the candidate file (usually the judge)'),
        'on': _K((STR, LIST), '`["query_id", "doc_id"]`',
                'the key columns'),
        'label': _K((STR, LIST), '`"relevance"`',
                'the label column (or one per side: `["human", "judge"]`)'),
        'scale': _K(LIST, 'inferred',
                'the levels, e.g. `[0, 1, 2, 3]`'),
        'scale_kind': _K(STR, '`"ordinal"` for more than two levels, else `"nominal"`',
                'the kind of scale: `nominal`, `ordinal`, `interval`, `ratio`',
                ("nominal", "ordinal", "interval", "ratio")),
        'out_of_scale': _K(STR, '`"error"`',
                '`clip`, `drop` or `missing` (see [the fates](../getting-started.md#alignment-fates))',
                ("error", "clip", "drop", "missing")),
        'duplicates': _K(STR, '`"error"`',
                '`first`, `last`, `majority` or `mean`',
                ("error", "first", "last", "majority", "mean")),
        'refusal_flag': _K(STR, 'none',
                'a column whose truthy values mark refusals'),
        'refusals': _K(ANY, '`"keep"`',
                '`drop`, or a label to give them'),
        'unjudged': _K(ANY, '`"drop"`',
                '`keep`, or a fill label for reference items the candidate did not judge'),
        'names': _K(LIST, '`["reference", "candidate"]`',
                'the names of the two sides in tables and notes'),
        'engine': _K(STR, '`"auto"`',
                'who aligns: `pandas` (in memory), `duckdb` (beyond memory; Parquet folders, globs) or '
                '`spark` (see [Scale](../scale.md))',
                ("auto", "pandas", "duckdb", "spark")),
        'by': _K((STR, LIST), 'the key columns but the last',
                'the columns whose groups keep their own tables (what `cluster` may name with the '
                'DuckDB and Spark engines)'),
    },

    'data:table': {
        'kind': _K(STR, '—',
                '`"table"`'),
        'path': _K(STR, '— (required)',
                'the table (CSV, TSV, JSON, JSONL, Parquet)'),
        'key': _K((STR, LIST), '`["query_id", "doc_id"]`',
                'the key column(s)'),
        'reference': _K(STR, '`"human"`',
                'the reference label column'),
        'candidate': _K(STR, '`"judge"`',
                'the candidate label column'),
        'scale': _K(LIST, 'as for `pair`',
                'the scale'),
        'scale_kind': _K(STR, 'as for `pair`',
                'the scale',
                ("nominal", "ordinal", "interval", "ratio")),
        'out_of_scale': _K(STR, 'as for `pair`',
                'the alignment policies',
                ("error", "clip", "drop", "missing")),
        'duplicates': _K(STR, 'as for `pair`',
                'the alignment policies',
                ("error", "first", "last", "majority", "mean")),
        'refusal_flag': _K(STR, 'as for `pair`',
                'the alignment policies'),
        'refusals': _K(ANY, 'as for `pair`',
                'the alignment policies'),
        'names': _K(LIST, 'the two column names',
                'the names of the two sides'),
    },

    'data:long': {
        'kind': _K(STR, '—',
                '`"long"`'),
        'path': _K(STR, '— (required)',
                'the table'),
        'item': _K(STR, '`"item_id"`',
                'the item column'),
        'rater': _K(STR, '`"rater"`',
                'the column naming the rater'),
        'score': _K(STR, '`"score"`',
                'the score column (numbers)'),
        'reference': _K(STR, '— (required)',
                "the reference rater's name in the rater column"),
        'candidate': _K(STR, '— (required)',
                "the candidate rater's name"),
        'samples': _K(STR, '`"mean"`',
                'repeated samples of one rater on one item (rows with different `sample` values): their `mean`, '
                'or the `first`',
                ("mean", "first")),
        'keep': _K(LIST, '`[]`',
                "item metadata columns to keep (taken from the item's first row)"),
        'names': _K(LIST, 'the two rater names',
                'the names of the two sides'),
        'scale': _K(LIST, 'inferred',
                'with `samples = "first"` only; averaged samples are on an interval scale inferred from the values'),
        'scale_kind': _K(STR, 'inferred',
                'with `samples = "first"` only; averaged samples are on an interval scale inferred from the values',
                ("nominal", "ordinal", "interval", "ratio")),
        'sample': _K(STR, '`"sample"` or `"epoch"` if the table has it',
                'the column numbering repeated samples of a rater on an item; without one, a second row of a '
                'rater on an item is a duplicate'),
        'duplicates': _K(STR, '`"error"`',
                'rows of a rater repeating an item (and sample) with a different score: `error`, or merge them by '
                '`first`, `last`, `majority` or `mean`; identical repeats are collapsed; the notes count every row by '
                'fate',
                ("error", "first", "last", "majority", "mean")),
    },

    'data:runs': {
        'kind': _K(STR, '—',
                '`"runs"`'),
        'path': _K(STR, '— (required)',
                'a TREC run file, or a folder of them ({func}`metaeval.read_runs`)'),
    },

    'data:battles': {
        'kind': _K(STR, '—',
                '`"battles"`'),
        'path': _K(STR, '— (required)',
                'a battles table ({func}`metaeval.read_battles`; the `judge` column names the rater of each row)'),
    },

    'data:qrels': {
        'kind': _K(STR, '—',
                '`"qrels"`'),
        'path': _K(STR, '— (required)',
                'a qrels file ({func}`metaeval.read_qrels`)'),
    },

    'data:frame': {
        'kind': _K(STR, '—',
                '`"frame"`'),
        'path': _K(STR, '— (required)',
                'a CSV, TSV, JSON, JSONL or Parquet table (gzipped too); every column is read as text'),
    },

    'data:eval_log': {
        'kind': _K(STR, '—',
                '`"eval_log"`'),
        'reference': _K(STR, '— (required)',
                'an evaluation-harness log or annotation-tool export, a folder of them ({func}`metaeval.read_eval_log`)'),
        'candidate': _K(STR, 'the reference file',
                'the log of the judge (when the judge is in another file)'),
        'reference_scorer': _K((STR, LIST), '`"human"`',
                'the rows of the reference: scorer names or roles (`human`, `judge`, `reference`)'),
        'candidate_scorer': _K((STR, LIST), '`"judge"`',
                'the rows of the candidate: scorer names or roles'),
        'format': _K(STR, '`"auto"`',
                'the logs\' format (told from their content by default)'),
        'on': _K((STR, LIST), '`["item"]`',
                'the key columns (add `"model"` when the log judges several models)'),
        'label': _K(STR, '`"score"`',
                'the label column (`score`: the number the harness averages)'),
        'scale': _K(LIST, 'inferred',
                'the levels'),
        'scale_kind': _K(STR, 'as for `pair`',
                'the kind of scale',
                ("nominal", "ordinal", "interval", "ratio")),
        'duplicates': _K(STR, '`"error"`',
                'several rows of one key (epochs, repeats): `mean` reduces them as Inspect\'s mean reducer',
                ("error", "first", "last", "majority", "mean")),
        'names': _K(LIST, '`["reference", "candidate"]`',
                'the names of the two sides'),
    },

    'analysis:inspect': {
        'paths': _K(LIST, '`[]`',
                'files or folders (every file in a folder), relative to the study'),
    },

    'analysis:agreement': {
        'data': _K(STR, '—',
                'a `pair`, `table` or `long` data set'),
        'cluster': _K(STR, 'none (items)',
                'the column to resample (e.g. `"query_id"`)'),
        'thresholds': _K(BOOL, '`true`',
                'agreement at every binarization (only for more than two ordered levels)'),
        'per_class': _K(BOOL, '`true`',
                'per-class precision, recall, F1 (only for at most 10 levels)'),
    },

    'analysis:prevalence': {
        'data': _K(STR, '—',
                'a binary `pair` or `table` data set'),
        'prevalence': _K(NUM, '—',
                'the target prevalence, in (0, 1)'),
        'prevalence_from': _K(TABLE, '—',
                'a table to take it from: the share of rows where `column == positive`'),
        'prevalence_from.path': _K(STR, '—',
                'that table'),
        'prevalence_from.column': _K(STR, '`"judge"`',
                'its label column'),
        'prevalence_from.positive': _K(ANY, '`1`',
                'the positive label'),
        'cluster': _K(STR, 'none (items)',
                'the column to resample'),
    },

    'analysis:ranking': {
        'data': _K(STR, '—',
                'a `pair` data set of qrels (labels rounded to integers)'),
        'runs': _K(STR, '—',
                'a `runs` data set'),
        'measure': _K(STR, '`"nDCG@10"`',
                'an ir-measures measure'),
        'methods': _K((STR, LIST), '`["kendall_b", "spearman", "tau_ap", "rbo"]`',
                'the rank correlations'),
    },

    'analysis:pairwise': {
        'data': _K(STR, '—',
                'a `battles` data set'),
        'reference': _K(STR, '`"human"`',
                "the reference rater's name in the `judge` column"),
        'candidate': _K(STR, '`"judge"`',
                "the candidate rater's name (rows with `swapped = 1`, if any, feed the position bias only)"),
        'invalid': _K(STR, '`"drop"`',
                'parse failures and refusals: `drop`, `tie` or `loss`',
                ("drop", "tie", "loss")),
    },

    'analysis:correlation': {
        'data': _K(STR, '—',
                'a `pair`, `table` or `long` data set'),
        'cluster': _K(STR, 'none (items)',
                'the column to resample'),
    },

    'analysis:length_bias': {
        'data': _K(STR, '—',
                'a data set with a length column kept as metadata'),
        'length': _K(STR, '`"length"`',
                'the length column'),
        'cluster': _K(STR, 'none',
                'the column for cluster-robust standard errors'),
        'unit': _K(STR, 'none',
                'what a length counts (`"words"`, `"tokens"`, `"characters"`), shown on the figure\'s axis; '
                'without it the axis shows the column\'s name alone'),
    },

    'analysis:self_enhancement': {
        'data': _K(STR, '—',
                'a data set with a generator column kept as metadata'),
        'generator': _K(STR, '`"generator"`',
                'the generator column'),
        'own': _K((STR, LIST), '— (required)',
                "the judge's own generator (family)"),
        'cluster': _K(STR, 'none',
                'the column for cluster-robust standard errors and the within-cluster permutation test'),
    },

    'analysis:corrected_scores': {
        'human': _K(STR, '— (required)',
                'a `qrels` data set: the human qrels (of the labelled topics, or of every topic)'),
        'judge': _K(STR, '— (required)',
                "a `qrels` data set: the judge's qrels on every topic (its topics are the population)"),
        'runs': _K(STR, '— (required)',
                'a `runs` data set'),
        'measure': _K(STR, '`"nDCG@10"`',
                'an ir-measures measure'),
        'labelled_topics': _K((STR, LIST), "the human qrels' topics",
                'the topics that count as human-labelled (give this or `n_labelled`; without either, the human qrels must not judge every topic)'),
        'n_labelled': _K(INT, 'none',
                "label a simple random sample of this many topics instead: `numpy.random.default_rng(seed).choice(topics, n_labelled, replace=False)` over the sorted topics both qrels judge, with the study's `seed`"),
        'method': _K(STR, '`"ppi++"`',
                'the corrected estimator: `ppi++`, `ppi`, `classical` (human labels only) or `judge_only`',
                ("ppi++", "ppi", "classical", "judge_only")),
        'compare': _K((STR, LIST), '`["judge_only", "classical"]`',
                'estimators computed beside it (table and figure)'),
        'confidence_level': _K(NUM, '`0.95`',
                "the intervals' level"),
        'quantile': _K(STR, '`"t"`',
                '`t` (t(n − 1), n labelled topics) or `normal`',
                ("t", "normal")),
        'lam_optim_mode': _K(STR, '`"overall"`',
                "PPI++'s λ: one for all runs (`overall`) or one per run (`element`)",
                ("overall", "element")),
        'finite_population': _K(BOOL, '`true`',
                "the target is the mean over the judge's topics (`false`: over a population of topics)"),
        'differences': _K(BOOL, '`true`',
                'the corrected difference of every pair of runs'),
        'coverage': _K((INT, LIST), 'none',
                'numbers of labelled topics at which to replay the design (needs human qrels on every topic)'),
        'coverage_draws': _K(INT, '`100`',
                'random samples of topics per number'),
    },

    'analysis:label_budget': {
        'human': _K(STR, '— (required)',
                "a `qrels` data set: the pilot's human qrels"),
        'judge': _K(STR, '— (required)',
                "a `qrels` data set: the judge's qrels on every topic"),
        'runs': _K(STR, '— (required)',
                'a `runs` data set'),
        'measure': _K(STR, '`"nDCG@10"`',
                'an ir-measures measure'),
        'labelled_topics': _K((STR, LIST), "the human qrels' topics",
                'the pilot topics (as for `corrected_scores`)'),
        'n_labelled': _K(INT, 'none',
                'a random pilot of this many topics (as for `corrected_scores`)'),
        'n': _K(LIST, '30 values from 3 to the topics − 2',
                'numbers of labelled topics to project to (each at least 3)'),
        'methods': _K((STR, LIST), '`["ppi++", "ppi", "classical"]`',
                'the estimators compared'),
        'confidence_level': _K(NUM, '`0.95`',
                "the intervals' level"),
        'quantile': _K(STR, '`"t"`',
                '`t` or `normal`',
                ("t", "normal")),
        'width': _K(NUM, 'none',
                'a target interval width: the topics needed (`NAME_required`) and a line on the curve'),
        'difference': _K(NUM, 'none',
                'a true difference to detect: the power at each n, and the topics needed for `power`'),
        'power': _K(NUM, '`0.8`',
                'the power asked for `difference`, and of the minimum detectable difference'),
    },

    'analysis:corrected_prevalence': {
        'data': _K(STR, '— (required)',
                'the validation sample: a binary (0/1) `pair`, `table` or `long` data set, reference = human'),
        'labelled': _K(STR, '— (required)',
                'a `frame` data set: the items the judge labelled, one row each'),
        'topic': _K(STR, '`"query_id"`',
                'its topic column (one corrected count per topic)'),
        'label': _K(STR, '`"judge"`',
                "its column of the judge's labels"),
        'positive': _K(ANY, '`1`',
                'the positive label (a number compares numerically, text as text)'),
        'ci_method': _K(STR, '`"delta"`',
                '`delta`, `percentile`, `bca`, `basic`, or `"none"` for point estimates'),
        'confidence_level': _K(NUM, '`0.95`',
                "the intervals' level"),
        'judge_error': _K(BOOL, '`true`',
                "include the binomial error of each topic's judged share"),
        'original': _K(STR, 'none',
                'a `qrels` data set: the original qrels, for the figure of relevant items per topic before and after'),
        'relevant': _K(NUM, '`1`',
                'the lowest relevant label of `original`'),
    },

    'analysis:alt_test': {
        'data': _K(STR, '— (required)',
                'a `frame` data set, long: one row per item and rater, the judge(s) among the raters'),
        'item': _K(STR, '`"item_id"`',
                'the item column'),
        'rater': _K(STR, '`"rater"`',
                'the column naming the rater (annotator or judge)'),
        'label': _K(STR, '`"label"`',
                'the label column (numbers when every value is one)'),
        'judge': _K((STR, LIST), '— (required)',
                "the judge's rater name, or a list of judges (each tested alone)"),
        'humans': _K((STR, LIST), 'every other rater',
                "the human annotators' rater names"),
        'scoring': _K(STR, '`"accuracy"`',
                '`accuracy` or `neg_rmse` (scores)',
                ("accuracy", "neg_rmse")),
        'epsilon': _K((NUM, LIST), '`0.2`',
                'ε, or a list of them (0.2 experts, 0.15 skilled annotators, 0.1 crowd workers)'),
        'q': _K(NUM, '`0.05`',
                'the false discovery rate of the Benjamini–Yekutieli step'),
        'min_humans_per_item': _K(INT, '`2`',
                'items with fewer human labels are left out'),
        'min_items_per_human': _K(INT, '`30`',
                'annotators with fewer items are not tested'),
    },

    'analysis:panel': {
        'data': _K(STR, '— (required)',
                'a `frame` data set, long: one row per item and rater (the key columns, the rater, the label)'),
        'on': _K((STR, LIST), '`["query_id", "doc_id"]`',
                'the key columns naming an item'),
        'rater': _K(STR, '`"rater"`',
                'the column naming the rater (the reference or a judge)'),
        'label': _K(STR, '`"label"`',
                'the label column (numbers when every value is one)'),
        'reference': _K(STR, '`"human"`',
                "the reference rater's name"),
        'judges': _K((STR, LIST), 'every other rater',
                "the judges' rater names"),
        'statistic': _K(STR, '`"cohen_kappa"`',
                'a registered table statistic (`krippendorff_alpha_ordinal`, `cohen_kappa_quadratic`, `observed_agreement` ...)'),
        'cluster': _K(STR, 'none (items)',
                'a key column to resample (e.g. `"query_id"`)'),
        'binarize': _K(NUM, 'none',
                'score on the binary scale `label >= binarize`'),
        'scale': _K(LIST, 'inferred',
                'the levels, e.g. `[0, 1, 2, 3]`'),
        'errors': _K(STR, '`"indicator"`',
                'what an error is for the error correlation: `indicator` (judge ≠ reference) or `signed` (judge − reference)',
                ("indicator", "signed")),
        'confidence_level': _K(NUM, '`0.95`',
                'of every interval, the simultaneous ones and the set tied with the best'),
    },

    'analysis:jury': {
        'data': _K(STR, '— (required)',
                'a `frame` data set, long, as for `panel`'),
        'on': _K((STR, LIST), '`["query_id", "doc_id"]`',
                'the key columns naming an item'),
        'rater': _K(STR, '`"rater"`',
                'the column naming the rater'),
        'label': _K(STR, '`"label"`',
                'the label column (numbers when every value is one)'),
        'reference': _K(STR, '`"human"`',
                "the reference rater's name (its labels train the juries that learn, cross-fitted)"),
        'judges': _K((STR, LIST), 'every other rater',
                "the jury's members"),
        'methods': _K((STR, LIST), '`["majority", "dawid_skene"]`',
                'the juries ({func}`metaeval.jury` methods; `weighted` learns its weights, cross-fitted)'),
        'statistic': _K(STR, '`"cohen_kappa"`',
                'the agreement compared (a scalar two-rater statistic with `max_judges`)'),
        'cluster': _K(STR, 'none (items)',
                'a key column: the bootstrap resamples it and the cross-fitting keeps its groups whole'),
        'ties': _K((STR, LIST), '`"lowest"`',
                'the tie rule of `majority` and `weighted`: `lowest`, `highest`, `random`, or every label in order of preference'),
        'max_judges': _K(INT, 'none',
                'also choose the best jury of 1 … `max_judges` members ({func}`metaeval.select_jury`, nested cross-fitting, the first method)'),
        'confidence_level': _K(NUM, '`0.95`',
                "the intervals' level"),
    },

    'analysis:monitor': {
        'data': _K(STR, '— (required)',
                'a `frame` data set: the stream in arrival order, one row per judged item; the human label '
                'on anchor items, empty on production items'),
        'baseline': _K(STR, '— (required)',
                'a `frame` data set: the validation pairs (human and judge label on the same items)'),
        'reference': _K(STR, '`"reference"`',
                'the human label column (in both data sets)'),
        'candidate': _K(STR, '`"candidate"`',
                "the judge's label column (in both data sets)"),
        'order': _K(STR, 'the row order',
                "the stream's arrival-order column"),
        'statistic': _K(STR, '`"accuracy"`',
                'what is monitored: `accuracy`, `sensitivity`, `specificity`, `ppv` or `npv`',
                ("accuracy", "sensitivity", "specificity", "ppv", "npv")),
        'delta': _K(NUM, '`0.0`',
                'the tolerated fall of the statistic'),
        'alpha': _K(NUM, '`0.05`',
                'the probability of any false alarm over the whole stream'),
        'positive': _K(ANY, '`1` for 0/1 labels',
                'the positive label'),
        'baseline_production': _K(STR, 'none',
                "a `frame` data set of the judge's labels on production items before the change "
                '(its `candidate` column): lets the monitor tell a change of the systems from one of the judge'),
        'every': _K(INT, 'a look per 1/20 of the anchors',
                'pairs between two looks of the confidence sequence in the table (the figure looks 400 times)'),
    },

    'analysis:grading_noise': {
        'data': _K(STR, '— (required)',
                'a `frame` data set, long: one row per item and run (repeated gradings of the same items)'),
        'item': _K(STR, '`"item"`',
                'the item column'),
        'run': _K(STR, '`"run"`',
                'the run (epoch, repeat) column'),
        'score': _K(STR, '`"score"`',
                'the grade column (numbers)'),
        'threshold': _K(NUM, 'none',
                'a pass mark (grade ≥ threshold passes): gives the flip rates'),
        'target': _K(NUM, '`0.8`',
                'the reliability the number of repeats is computed for'),
        'human_reliability': _K(NUM, '`1.0`',
                "the human scores' reliability, for the ceiling on agreement"),
        'confidence_level': _K(NUM, '`0.95`',
                "the variance components' intervals"),
    },

    'analysis:levels': {
        'data': _K(STR, '— (required)',
                'a `frame` data set: one row per system and item, a column of human scores and one per judge'),
        'system': _K(STR, '`"system"`',
                'the column naming the system'),
        'item': _K(STR, '`"item"`',
                'the column naming the item (input, document, prompt)'),
        'human': _K(STR, '`"human"`',
                'the column of human scores (empty cells are missing, dropped from every judge)'),
        'judges': _K((STR, LIST), 'every other column',
                'the columns of judge scores'),
        'levels': _K((STR, LIST), '`["none", "item", "system_group", "system"]`',
                'the correlation levels (`none`, `item`, `system_group`, `system`)'),
        'methods': _K((STR, LIST), '`["pearson", "spearman", "kendall"]`',
                'registered level methods (`metaeval.core.registry.names("levels")`)'),
        'resample': _K(STR, '`"both"`',
                'the bootstrap: `systems`, `items` or `both` (BOOT-SYSTEMS, BOOT-INPUTS, BOOT-BOTH)',
                ("systems", "items", "both")),
        'undefined': _K(STR, '`"drop"`',
                'groups whose correlation is undefined: `drop` (counted), `zero` or `error`',
                ("drop", "zero", "error")),
        'average': _K(STR, '`"macro"`',
                'mean over groups: `macro` or `weighted` (by the group\'s cells)',
                ("macro", "weighted")),
        'absolute': _K(BOOL, '`false`',
                'report the absolute value (papers that print the absolute r)'),
        'convention': _K(STR, 'none',
                'a preset of defaults: `mtme`, `nlpstats`, `sacrerouge`, `geval` or `unieval`',
                ("mtme", "nlpstats", "sacrerouge", "geval", "unieval")),
    },

    'analysis:leaderboard': {
        'data': _K(STR, '—',
                'a `pair`, `table` or `long` data set with a model column kept as metadata'),
        'item': _K(STR, "the data set's key (one column)",
                'the column of the items (prompts) resampled'),
        'model': _K(STR, '— (required with `data`)',
                'the column naming the model'),
        'reference': _K(BOOL, '`true`',
                "compare with the reference's leaderboard (`false`: separability only)"),
        'runs': _K(STR, '—',
                'a `runs` data set: the runs are the models (instead of `data`)'),
        'judge': _K(STR, '— (required with `runs`)',
                "a `qrels` data set: the benchmark's qrels"),
        'human': _K(STR, 'none',
                "a `qrels` data set: the reference leaderboard's qrels"),
        'measure': _K(STR, '`"nDCG@10"`',
                'with `runs`: an ir-measures measure'),
        'cluster': _K(STR, 'none (items)',
                'a column of groups of items to resample instead'),
        'pair_confidence_level': _K(NUM, '`0.95`',
                "the level of each model's interval (which decides separation)"),
        'confidence_level': _K(NUM, '`0.95`',
                "the level of the meta-metrics' intervals"),
        'ci_method': _K(STR, '`"percentile"`',
                'or `"none"` for point values'),
        'n_outer': _K(INT, '`200`',
                'outer resamples'),
        'n_inner': _K(INT, "the study's `n_resamples`",
                'inner resamples per outer one'),
        'overlap': _K(STR, '`"strict"`',
                'when two intervals overlap: `strict` or `positive_length`',
                ("strict", "positive_length")),
    },}

#: The data kinds (``kind = ...`` of a ``[data.NAME]`` table) and the analysis types, in the docs' order.
DATA_KINDS = tuple(s.split(":", 1)[1] for s in SCHEMA if s.startswith("data:"))
ANALYSIS_TYPES = tuple(s.split(":", 1)[1] for s in SCHEMA if s.startswith("analysis:"))

_ARTICLE = {STR: "a string", INT: "an integer", NUM: "a number", BOOL: "true or false", LIST: "a list",
            TABLE: "a table"}


def _suggest(word, choices) -> str | None:
    """The nearest of ``choices`` to ``word`` (difflib), as a fix, or None."""
    close = difflib.get_close_matches(str(word), [str(c) for c in choices], n=1, cutoff=0.6)
    return f"did you mean `{close[0]}`?" if close else None


def _type_ok(value, types) -> bool:
    types = (types,) if isinstance(types, str) else types
    for t in types:
        if t == ANY:
            return True
        if t == BOOL and isinstance(value, bool):
            return True
        if isinstance(value, bool):
            continue
        if (t == STR and isinstance(value, str)) or (t == INT and isinstance(value, int)) \
                or (t == NUM and isinstance(value, (int, float))) or (t == LIST and isinstance(value, list)) \
                or (t == TABLE and isinstance(value, dict)):
            return True
    return False


def _check_keys(entry: dict, keys: dict[str, Key], where: str, source: str, unknown: str, prefix: str = "") -> None:
    """Unknown keys, values of the wrong type and values outside the allowed ones in ``entry``."""
    own = {k[len(prefix):]: spec for k, spec in keys.items() if k.startswith(prefix) and "." not in k[len(prefix):]}
    for k, value in entry.items():
        if not prefix and k.startswith("_"):             # load_study's own (_base, _source)
            continue
        name = prefix + k
        if k not in own:
            err = InputError(f"{where}: unknown key {name!r}", source=source,
                             expected="one of " + ", ".join(prefix + o for o in own),
                             fix=_suggest(k, own) or "remove it (docs/guide/study-files.md lists every key)")
            if unknown == "error":
                raise err
            warnings.warn(str(err), MetaevalWarning, stacklevel=4)
            continue
        spec = own[k]
        if not _type_ok(value, spec.type):
            types = (spec.type,) if isinstance(spec.type, str) else spec.type
            raise InputError(f"{where}: {name} must be " + " or ".join(_ARTICLE[t] for t in types), source=source,
                             text=repr(value))
        if spec.allowed and value not in spec.allowed:
            raise InputError(f"{where}: {name} must be one of " + ", ".join(map(repr, spec.allowed)), source=source,
                             text=repr(value), fix=_suggest(value, spec.allowed))
        if isinstance(value, dict) and any(o.startswith(name + ".") for o in keys):
            _check_keys(value, keys, where, source, unknown, prefix=name + ".")


def study_scale(levels, kind: str | None = None, *, where: str = "scale", source: str | None = None):
    """The :class:`~metaeval.core.scale.Scale` a data set's ``scale`` and ``scale_kind`` declare.

    The levels must be at least two distinct finite numbers, or at least two distinct strings;
    without ``scale_kind`` (``kind=None``) a scale of more than two levels is ordinal (its levels
    increasing), else nominal.

    Parameters
    ----------
    levels : list
        The ``scale`` of a ``[data.NAME]`` table.
    kind : str, optional
        Its ``scale_kind``.
    where : str
        The data set, for the message.
    source : str, optional
        The study file, for the message.

    Returns
    -------
    Scale

    Raises
    ------
    InputError
        For an empty scale, one level, a nested list, a NaN or infinite level, repeated levels,
        numbers mixed with strings, or levels out of order on an ordered scale.

    Examples
    --------
    >>> study_scale([0, 1, 2, 3]).kind
    'ordinal'
    >>> study_scale([1], where="[data.trec]", source="study.toml")
    Traceback (most recent call last):
    ...
    metaeval.core.errors.InputError: study.toml: [data.trec]: scale must list at least two distinct levels: '[1]'. Fix: e.g. scale = [0, 1, 2, 3]
    """
    from ..core.scale import Scale

    fix = "e.g. scale = [0, 1, 2, 3]"

    def fail(problem):
        return InputError(f"{where}: scale {problem}", source=source, text=repr(levels), fix=fix)

    if not isinstance(levels, list):
        raise fail("must be a list of levels")
    numbers = [v for v in levels if isinstance(v, (int, float)) and not isinstance(v, bool)]
    texts = [v for v in levels if isinstance(v, str)]
    if len(numbers) + len(texts) != len(levels):
        raise fail("levels must be numbers or strings (not lists, tables or booleans)")
    if numbers and texts:
        raise fail("levels must be all numbers or all strings")
    if any(not math.isfinite(v) for v in numbers):
        raise fail("levels must be finite numbers (no nan or inf)")
    if len(set(levels)) < 2:
        raise fail("must list at least two distinct levels")
    if len(set(levels)) != len(levels):
        raise fail("levels must be distinct")
    kind = kind if kind is not None else ("ordinal" if len(levels) > 2 else "nominal")
    try:
        return Scale(tuple(levels), kind=kind)
    except (ValueError, TypeError) as exc:
        raise fail(str(exc).split(", got")[0]) from None


def validate_study(study: dict, *, unknown: str = "error") -> None:
    """Check a study against :data:`SCHEMA`; raise an InputError naming the file, section, key and fix.

    Parameters
    ----------
    study : dict
        A study as :func:`metaeval.load_study` returns it (its ``_source`` is the file named in
        the errors; keys starting with ``_`` are not checked).
    unknown : {"error", "warn"}
        An unknown key is an error (the default, and what :func:`metaeval.load_study` asks for),
        or a :class:`~metaeval.core.errors.MetaevalWarning` with the same message (what
        :func:`metaeval.run_study` asks for of a study built as a dict in Python).

    Returns
    -------
    None
        The study is valid (a data set or analysis may still refuse its data when it runs).

    Raises
    ------
    InputError
        For an unknown key (with the nearest valid key: ``did you mean `cluster`?``), an unknown
        data kind or analysis type, a missing ``kind`` or ``type``, or a value of the wrong type or
        outside the allowed values; a ``seed`` or ``n_resamples`` out of range
        (:func:`~metaeval.core.resample.check_seed`, :func:`~metaeval.core.resample.check_n_resamples`);
        a ``scale`` that is not at least two distinct finite levels (:func:`study_scale`); an analysis
        ``name`` that is not a safe file stem (:func:`metaeval.output.escape.file_stem`: letters, digits,
        ``-``, ``_``, ``.``) or that repeats another's, ignoring case. An analysis is named as
        ``analysis 'NAME' (type = 'TYPE') at [[analysis]] #N``; a data set as ``[data.NAME]``.

    References
    ----------
    The keys are those ``metaeval/output/study.py`` reads (``tests/test_docs_content.py`` checks
    it) and those ``docs/guide/study-files.md`` lists (checked against :func:`schema_table`).

    Examples
    --------
    >>> study = {"_source": "study.toml", "data": {"d": {"kind": "pair", "reference": "a", "candidate": "b"}},
    ...          "analysis": [{"type": "agreement", "data": "d", "clustr": "query_id"}]}
    >>> validate_study(study)
    Traceback (most recent call last):
    ...
    metaeval.core.errors.InputError: study.toml: analysis '01_agreement' (type = 'agreement') at [[analysis]] #1: unknown key 'clustr'. Expected one of type, name, title, text, data, cluster, thresholds, per_class. Fix: did you mean `cluster`?
    >>> study["analysis"][0]["cluster"] = study["analysis"][0].pop("clustr")
    >>> validate_study(study)
    """
    source = study.get("_source", "<study>")
    if unknown not in ("error", "warn"):
        raise InputError("unknown must be 'error' or 'warn'", text=repr(unknown))
    _check_keys(study, SCHEMA["study"], "the study's top level", source, unknown)
    if "seed" in study:
        check_seed(study["seed"], where="the study's top level: seed", source=source)
    if "n_resamples" in study:
        check_n_resamples(study["n_resamples"], where="the study's top level: n_resamples", source=source)
    for name, spec in (study.get("data") or {}).items():
        where = f"[data.{name}]"
        if not isinstance(spec, dict):
            raise InputError(f"{where} must be a table", source=source, text=repr(spec))
        kind = spec.get("kind")
        if kind is None:
            raise InputError(f"{where}: the key 'kind' is missing", source=source,
                             fix="add kind = one of " + ", ".join(map(repr, DATA_KINDS)))
        if kind not in DATA_KINDS:
            raise InputError(f"{where}: unknown data kind {kind!r}", source=source,
                             expected="kind = " + ", ".join(DATA_KINDS), fix=_suggest(kind, DATA_KINDS))
        _check_keys(spec, SCHEMA[f"data:{kind}"], where, source, unknown)
        if "scale" in spec:
            study_scale(spec["scale"], spec.get("scale_kind"), where=where, source=source)
    keys = []
    for i, a in enumerate(study.get("analysis") or [], start=1):
        if not isinstance(a, dict):
            raise InputError(f"[[analysis]] #{i} must be a table", source=source, text=repr(a))
        kind = a.get("type")
        name = a.get("name", f"{i:02d}_{kind}")
        shown = repr(name) if len(repr(name)) <= 42 else repr(name)[:38] + "...'"
        where = f"analysis {shown} (type = {kind!r}) at [[analysis]] #{i}"
        if kind is None:
            raise InputError(f"{where}: the key 'type' is missing", source=source,
                             fix="add type = one of " + ", ".join(map(repr, ANALYSIS_TYPES)))
        if kind not in ANALYSIS_TYPES:
            raise InputError(f"{where}: unknown analysis type {kind!r}", source=source,
                             expected="type = " + ", ".join(ANALYSIS_TYPES), fix=_suggest(kind, ANALYSIS_TYPES))
        _check_keys(a, {**SCHEMA["analysis"], **SCHEMA[f"analysis:{kind}"]}, where, source, unknown)
        file_stem(name, what=f"{where}: name (the stem of its table and figure files)", source=source,
                  fix=f"rename it following the rule ({STEM_RULE})" if not isinstance(name, str) else None)
        keys.append(name)
    unique_stems(keys, what="the analysis names", source=source)


def schema_table(section: str) -> str:
    """The Markdown table of one section's keys, as ``docs/guide/study-files.md`` shows it.

    Parameters
    ----------
    section : str
        A key of :data:`SCHEMA`: ``"study"``, ``"analysis"``, ``"data:pair"``, ``"analysis:agreement"`` ...

    Returns
    -------
    str
        The header row, the rule and one row per key (``| `key` | default | meaning |``).

    References
    ----------
    ``tests/test_docs_content.py`` checks that the page holds exactly this table under the
    section's ``(study-...)=`` target.

    Examples
    --------
    >>> print(schema_table("data:runs"))
    | key | default | meaning |
    |---|---|---|
    | `kind` | — | `"runs"` |
    | `path` | — (required) | a TREC run file, or a folder of them ({func}`metaeval.read_runs`) |
    """
    rows = ["| key | default | meaning |", "|---|---|---|"]
    rows += [f"| `{k}` | {spec.default} | {spec.meaning} |" for k, spec in SCHEMA[section].items()]
    return "\n".join(rows)
