"""Fixes name the interface in use (issue #20, item 7): the keyword in Python, the flag on the command
line, the key in its ``[data.NAME]`` section inside a study file.

Before: ``metaeval report study.toml`` over a candidate with an out-of-scale label said
"Fix: pass --out-of-scale clip, drop or missing" (a flag ``metaeval report`` does not have) and
``run_study`` in Python said ``out_of_scale='clip'``. The one mechanism is
:func:`metaeval.core.errors.interface` and its table :data:`metaeval.core.errors.OPTIONS`.
"""

from __future__ import annotations

import pandas as pd
import pytest

import metaeval
from metaeval.cli import main
from metaeval.core.errors import OPTIONS, current_interface, interface, render
from metaeval.output.study import run_study

QRELS = ["query_id", "iter", "doc_id", "relevance"]


def _files(folder):
    keys = pd.DataFrame({"query_id": ["1"] * 6, "iter": "0", "doc_id": [f"d{i}" for i in range(6)]})
    keys.assign(relevance=[0, 1, 2, 3, 1, 0])[QRELS].to_csv(folder / "h.txt", sep=" ", header=False, index=False)
    keys.assign(relevance=[0, 1, 2, 5, 1, 0])[QRELS].to_csv(folder / "j.txt", sep=" ", header=False, index=False)


def _study_file(folder):
    _files(folder)
    (folder / "study.toml").write_text(
        'title = "t"\nn_resamples = 50\n\n[data.llm]\nkind = "pair"\nreference = "h.txt"\ncandidate = "j.txt"\n'
        'scale = [0, 1, 2, 3]\n\n[[analysis]]\ntype = "agreement"\ndata = "llm"\n')
    return folder / "study.toml"


def python_fix_names_the_keyword_test(tmp_path):
    _files(tmp_path)
    with pytest.raises(metaeval.InputError) as exc:
        metaeval.align(tmp_path / "h.txt", tmp_path / "j.txt", scale=metaeval.Scale((0, 1, 2, 3)))
    assert "out_of_scale='clip'" in str(exc.value) and "--out-of-scale" not in str(exc.value)


def study_fix_names_the_toml_key_test(tmp_path):
    with pytest.raises(metaeval.InputError) as exc:
        run_study(_study_file(tmp_path), tmp_path / "out")
    msg = str(exc.value)
    assert 'out_of_scale = "clip", "drop" or "missing" in [data.llm]' in msg, msg
    assert "--out-of-scale" not in msg and "out_of_scale='clip'" not in msg
    assert current_interface() == "python"              # the study's context ends with it


def cli_report_fix_names_the_toml_key_test(tmp_path, capsys):
    """``metaeval report`` runs a study: the fix is the study's key, not a flag it lacks."""
    assert main(["report", str(_study_file(tmp_path)), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert 'out_of_scale = "clip"' in err and "[data.llm]" in err, err
    assert "--out-of-scale" not in err


def cli_agree_fix_names_the_flag_test(tmp_path, capsys):
    _files(tmp_path)
    assert main(["agree", str(tmp_path / "h.txt"), str(tmp_path / "j.txt"), "--scale", "0,1,2,3"]) == 2
    err = capsys.readouterr().err
    assert "--out-of-scale clip, drop or missing" in err, err


def render_table_test():
    """Every option of the table renders in each interface (flags from the CLI's parser, keys from the
    study schema)."""
    from metaeval.cli import build_parser
    from metaeval.output.study_schema import SCHEMA

    flags = {o for a in build_parser()._actions for o in a.option_strings}
    for sp in [a for a in build_parser()._actions if a.__class__.__name__ == "_SubParsersAction"]:
        flags |= {o for p in sp.choices.values() for x in p._actions for o in x.option_strings}
    keys = {k for sec in SCHEMA.values() for k in sec}
    for kw, (flag, key, _place) in OPTIONS.items():
        assert flag in flags, (kw, flag)
        assert key is None or key in keys, (kw, key)
        assert render(f"pass {kw}='x'", "python") == f"pass {kw}='x'"
        assert render(f"pass {kw}='x'", "cli") == f"pass {flag} x"
    with interface("study", data="dl20"):
        assert render("pass scale=(0, 1, 2, 3)") == "set scale = [0, 1, 2, 3] in [data.dl20]"
        assert render("pass n_resamples=2000") == "set n_resamples = 2000 at the top of the study file"
    with pytest.raises(ValueError):
        with interface("gui"):
            pass
