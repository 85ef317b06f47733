"""Study files that check themselves: the schema of metaeval/output/study_schema.py (issue #14, item 1).

Every expected message below is the format validate_study documents: the study file, the section
(``analysis 'NAME' (type = 'TYPE') at [[analysis]] #N`` or ``[data.NAME]``), the key, and the nearest
valid key chosen by difflib.get_close_matches (cutoff 0.6).
"""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from metaeval.core.errors import InputError, MetaevalWarning
from metaeval.output.study import load_study, run_study
from metaeval.output.study_schema import ANALYSIS_TYPES, DATA_KINDS, SCHEMA, schema_table, validate_study

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "data_samples"

STUDY = """\
title = "t"
seed = 3
n_resamples = 50

[data.trec]
kind = "pair"
reference = "{samples}/trec_dl_like/qrels.human.txt"
candidate = "{samples}/trec_dl_like/qrels.judge.txt"
scale = [0, 1, 2, 3]

[[analysis]]
type = "correlation"
name = "first"
data = "trec"

[[analysis]]
type = "agreement"
data = "trec"
{line}
"""


def _write(tmp_path: Path, line: str, text: str = STUDY) -> Path:
    p = tmp_path / "study.toml"
    p.write_text(text.format(samples=SAMPLES.as_posix(), line=line), encoding="utf-8")
    return p


def _error(path: Path) -> str:
    with pytest.raises(InputError) as err:
        load_study(path)
    return str(err.value)


def misspelled_key_names_file_section_key_and_suggestion_test(tmp_path):
    p = _write(tmp_path, 'clustr = "query_id"')
    msg = _error(p)
    assert msg.startswith(f"{p}: analysis '02_agreement' (type = 'agreement') at [[analysis]] #2: "), msg
    assert "unknown key 'clustr'" in msg and "did you mean `cluster`?" in msg, msg
    # the same study spelled right loads
    assert load_study(_write(tmp_path, 'cluster = "query_id"'))["analysis"][1]["cluster"] == "query_id"


def named_analysis_is_named_test(tmp_path):
    msg = _error(_write(tmp_path, 'name = "agr"\nper_clas = false'))
    assert "analysis 'agr' (type = 'agreement') at [[analysis]] #2: unknown key 'per_clas'" in msg
    assert "did you mean `per_class`?" in msg


def unknown_analysis_type_test(tmp_path):
    text = STUDY.replace('type = "agreement"', 'type = "agrement"')
    msg = _error(_write(tmp_path, "", text))
    assert "[[analysis]] #2: unknown analysis type 'agrement'" in msg and "did you mean `agreement`?" in msg, msg


def unknown_data_kind_names_the_data_set_test(tmp_path):
    msg = _error(_write(tmp_path, "", STUDY.replace('kind = "pair"', 'kind = "pairs"')))
    assert msg.startswith(f"{tmp_path / 'study.toml'}: [data.trec]: unknown data kind 'pairs'"), msg
    assert "did you mean `pair`?" in msg


def unknown_data_key_test(tmp_path):
    msg = _error(_write(tmp_path, "", STUDY.replace("scale = [", "scal = [")))
    assert "[data.trec]: unknown key 'scal'" in msg and "did you mean `scale`?" in msg, msg


def bad_values_test(tmp_path):
    msg = _error(_write(tmp_path, 'thresholds = "yes"'))
    assert "[[analysis]] #2: thresholds must be true or false: \"'yes'\"" in msg, msg
    msg = _error(_write(tmp_path, "", STUDY.replace('scale = [0, 1, 2, 3]', 'duplicates = "majorty"')))
    assert "[data.trec]: duplicates must be one of 'error', 'first', 'last', 'majority', 'mean'" in msg
    assert "did you mean `majority`?" in msg
    msg = _error(_write(tmp_path, "", STUDY.replace("n_resamples = 50", "n_resamples = 50.5")))
    assert "the study's top level: n_resamples must be an integer" in msg, msg


def nested_table_keys_test():
    study = {"_source": "s.toml", "analysis": [{"type": "prevalence", "data": "d",
                                                "prevalence_from": {"path": "x.csv", "colum": "judge"}}]}
    with pytest.raises(InputError, match=r"unknown key 'prevalence_from.colum'.*did you mean `column`"):
        validate_study(study)
    study["analysis"][0]["prevalence_from"] = {"path": "x.csv", "column": "judge"}
    validate_study(study)


def run_study_warns_of_unknown_keys_in_a_dict_test(tmp_path):
    study = load_study(_write(tmp_path, ""))
    study["analysis"] = [{"type": "correlation", "data": "trec", "clustr": "query_id"}]
    with pytest.warns(MetaevalWarning, match="unknown key 'clustr'.*did you mean `cluster`"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", category=RuntimeWarning)
            run_study(study, tmp_path / "out")
    study["analysis"][0]["type"] = "corelation"            # an unknown type stays an error
    with pytest.raises(InputError, match="did you mean `correlation`"):
        run_study(study, tmp_path / "out")


@pytest.mark.parametrize("name", ["demo_study.toml", "inference_study.toml"])
def bundled_studies_are_valid_test(name):
    validate_study(load_study(SAMPLES / name))


def schema_covers_every_handler_and_kind_test():
    from metaeval.output import study

    assert set(ANALYSIS_TYPES) == set(study._HANDLERS)
    assert set(DATA_KINDS) == {"pair", "table", "long", "runs", "battles", "qrels", "frame", "eval_log"}
    assert SCHEMA["analysis"]["type"].meaning.count("`") == 2 * len(ANALYSIS_TYPES)
    assert schema_table("study").splitlines()[2] == '| `title` | `"metaeval report"` | the report\'s title |'
