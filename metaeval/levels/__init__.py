"""Score judges the way NLG and MT meta-evaluation does: correlation levels, Kendall variants with ties,
tie calibration, pairwise accuracy, BOOT/PERM-SYSTEMS/INPUTS/BOTH and Williams' test.

Modules: :mod:`~metaeval.levels.pairs` (pair counts and every Kendall variant from them),
:mod:`~metaeval.levels.methods` (the methods, declared in the package registry, family ``"levels"``),
:mod:`~metaeval.levels.correlation` (the public functions), :mod:`~metaeval.levels.many` (many judges).
"""
