"""The bundled sample data sets (synthetic, seeded; see data_samples/README.md).

>>> from metaeval import datasets
>>> sorted(datasets.names())
['battles_like', 'imageclef_like', 'rubric_like', 'trec_dl_like']
>>> d = datasets.load("trec_dl_like")
>>> sorted(d)
['dups', 'passages', 'qrels_human', 'qrels_judge', 'runs']
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import pandas as pd

from ..core.errors import InputError

__all__ = ["names", "path", "load", "Dataset"]

_FILES = {
    "trec_dl_like": {
        "qrels_human": "qrels.human.txt",
        "qrels_judge": "qrels.judge.txt",
        "runs": "runs",
        "dups": "dups.tsv",
        "passages": "passages.tsv",
    },
    "imageclef_like": {
        "validation": "validation.csv",
        "expansion": "expansion.tsv.gz",
        "few_shot": "few_shot.tsv",
        "original_qrels": "original_qrels.txt",
    },
    "rubric_like": {"scores": "scores.csv"},
    "battles_like": {"battles": "battles.csv"},
}


class Dataset(dict):
    """A mapping of table name → DataFrame, with attribute access and the folder it came from.

    Parameters
    ----------
    name : str
        The data set's name (one of :func:`names`).
    folder : pathlib.Path
        Where its files are.
    tables : dict
        Table name → DataFrame.

    Examples
    --------
    >>> d = load("imageclef_like")
    >>> d
    Dataset('imageclef_like'; validation: 202 rows, expansion: 50000 rows, few_shot: 35 rows, original_qrels: 11607 rows)
    >>> d.validation is d["validation"]
    True
    """

    def __init__(self, name: str, folder: Path, tables: dict):
        super().__init__(tables)
        self.name = name
        self.folder = folder

    def __getattr__(self, key):
        try:
            return self[key]
        except KeyError:
            raise AttributeError(key) from None

    def __repr__(self):
        parts = ", ".join(f"{k}: {len(v)} rows" for k, v in self.items())
        return f"Dataset({self.name!r}; {parts})"


def names() -> list[str]:
    """Names of the bundled data sets.

    Returns
    -------
    list of str

    Examples
    --------
    >>> names()
    ['trec_dl_like', 'imageclef_like', 'rubric_like', 'battles_like']
    """
    return list(_FILES)


def path(name: str) -> Path:
    """The folder of a bundled data set (inside the installed package).

    Parameters
    ----------
    name : str
        One of :func:`names`.

    Returns
    -------
    pathlib.Path
        The folder; its files are described in data_samples/README.md.

    Raises
    ------
    InputError
        An unknown name, or a folder missing from the installation.

    Examples
    --------
    >>> sorted(p.name for p in path("trec_dl_like").iterdir() if p.is_file())
    ['dups.tsv', 'passages.tsv', 'qrels.human.txt', 'qrels.judge.txt']
    """
    if name not in _FILES:
        raise InputError(f"no sample data set {name!r}", expected=f"one of {', '.join(_FILES)}")
    folder = Path(str(resources.files("metaeval.data_samples").joinpath(name)))
    if not folder.is_dir():
        raise InputError(f"the sample data folder is missing from the installation: {folder}",
                         fix="reinstall metaeval, or run `python data_samples/make_samples.py` in a checkout")
    return folder


def _read_tab(p: Path) -> pd.DataFrame:
    from ..data.io import _read_table

    df, _, _ = _read_table(p, "tsv" if p.name.endswith((".tsv", ".tsv.gz")) else "csv")
    return df


_ID_COLUMNS = {"query_id", "doc_id", "item_id", "prompt_id", "canonical_doc_id", "generator", "rater",
               "model_a", "model_b", "battle_id", "outcome"}


def _numeric_columns(df: pd.DataFrame) -> pd.DataFrame:
    """Convert metadata columns that hold only numbers (or blanks) to numbers; ids stay strings."""
    for c in df.columns:
        if c in _ID_COLUMNS or df[c].dtype.kind in "biuf":
            continue
        present = df[c].astype("object").map(lambda v: v is not None and str(v).strip() != "")
        conv = pd.to_numeric(df[c].where(present, None), errors="coerce")
        if conv.notna().sum() == present.sum():
            df[c] = conv
    return df


def load(name: str) -> Dataset:
    """Load a bundled data set as a :class:`Dataset` of tidy frames.

    ``trec_dl_like``: ``qrels_human``, ``qrels_judge`` (qrels frames), ``runs`` (30 runs),
    ``dups`` (near-duplicate map), ``passages`` (doc lengths).
    ``imageclef_like``: ``validation`` (human and judge labels), ``expansion`` (judge only),
    ``few_shot``, ``original_qrels``.
    ``rubric_like``: ``scores`` (long: one row per rater and sample).
    ``battles_like``: ``battles`` (normalized outcomes, human and judge rows).

    Parameters
    ----------
    name : str
        One of :func:`names`.

    Returns
    -------
    Dataset
        Qrels and runs read with :func:`metaeval.read_qrels` and :func:`metaeval.read_runs`,
        battles with :func:`metaeval.read_battles`, other tables with numeric metadata columns
        converted to numbers (ids stay strings).

    Raises
    ------
    InputError
        An unknown name.

    References
    ----------
    The data are synthetic, drawn by the seeded data_samples/make_samples.py (seeds and planted
    effects in data_samples/README.md); tests/test_scale_datasets.py checks the sizes and counts
    the README gives and that the generator is deterministic.

    Examples
    --------
    >>> d = load("trec_dl_like")
    >>> len(d.qrels_human), d.runs["run_id"].nunique(), len(d.runs)
    (7734, 30, 120000)
    """
    from ..data import io as mio
    folder = path(name)
    tables = {}
    for key, fname in _FILES[name].items():
        p = folder / fname
        if key == "runs":
            tables[key] = mio.read_runs(p)
        elif fname.endswith("qrels.txt") or fname.startswith("qrels."):
            tables[key] = mio.read_qrels(p)
        elif name == "battles_like":
            tables[key] = _numeric_columns(mio.read_battles(p))
        else:
            tables[key] = _numeric_columns(_read_tab(p))
    return Dataset(name, folder, tables)
