"""The options table of the fixes (``metaeval.core.errors.OPTIONS``) is derived from the study schema.

Before: ``OPTIONS`` was a second table beside ``study_schema.SCHEMA`` that said where each study key
lives, and it named a ``[data.NAME]`` section for keys that a ``panel`` or ``jury`` analysis sets in
its own ``[[analysis]]`` entry (``scale``, ``label``, ``on``): "set scale = [0, 1, 2, 3] in
[data.NAME]" inside a panel, whose data set is a ``frame`` without such a key.
"""

from __future__ import annotations

import metaeval.core.errors as errors
from metaeval.core.errors import FLAGS, OPTIONS, interface, render
from metaeval.output.study_schema import SCHEMA


def options_follow_the_schema_test():
    """Each option's key and place are what SCHEMA says (checked against the schema, section by section)."""
    assert set(OPTIONS) == set(FLAGS)
    for kw, (flag, key, place) in OPTIONS.items():
        holders = [name for name, keys in SCHEMA.items() if FLAGS[kw][1] in keys]
        assert flag == FLAGS[kw][0]
        if place == "data":
            assert any(h.startswith("data:") for h in holders), kw
        elif place == "analysis":
            assert not any(h.startswith("data:") for h in holders)
            assert any(h.startswith("analysis") for h in holders), kw
        elif place == "study":
            assert holders == ["study"], kw
        else:
            assert key is None and not holders
    # the places the hand-written table had, now derived
    assert OPTIONS["scale"][2] == "data" and OPTIONS["cluster"][2] == "analysis" and OPTIONS["seed"][2] == "study"
    assert OPTIONS["rng"] == ("--seed", "seed", "study") and OPTIONS["item"] == ("--on", "on", "data")


def errors_module_holds_no_copy_of_the_places_test():
    """One declaration: the module's own tables name flags and keys, never sections."""
    tables = [v for k, v in vars(errors).items() if k.isupper() and isinstance(v, dict)]
    assert tables and all(len(entry) == 2 for table in tables for entry in table.values())
    assert not isinstance(OPTIONS, dict)


def panel_and_jury_fixes_name_their_analysis_entry_test():
    for kind in ("panel", "jury"):
        with interface("study", analysis="03_x", type=kind):
            assert render("pass label='grade'") == "set label = \"grade\" in the [[analysis]] entry '03_x'"
            assert render("pass on=('qid', 'docno')") == "set on = [\"qid\", \"docno\"] in the [[analysis]] entry '03_x'"
    with interface("study", analysis="03_panel", type="panel"):
        assert render("pass scale=(0, 1, 2, 3)") == "set scale = [0, 1, 2, 3] in the [[analysis]] entry '03_panel'"
        assert render("pass n_resamples=500") == "set n_resamples = 500 at the top of the study file"
        # a data set loaded by the analysis: its keys are the data section's
        with interface("study", data="llm"):
            assert render("pass scale=(0, 1)") == "set scale = [0, 1] in [data.llm]"
    with interface("study", analysis="01_agreement", type="agreement"):  # agreement has no scale key
        assert render("pass scale=(0, 1)") == "set scale = [0, 1] in [data.NAME]"
        assert render("pass cluster='query_id'") == "set cluster = \"query_id\" in the [[analysis]] entry '01_agreement'"
