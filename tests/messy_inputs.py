"""Seeded messy judgment pairs for the engine tests (pandas, DuckDB, Spark must agree on them).

``messy_pair`` builds a reference and a candidate judgment set with every kind of mess the alignment
accounts for: duplicates identical and conflicting on both sides (some keys three times, so that
``duplicates="majority"`` meets ties), unmatched rows on both sides, out-of-scale labels, refusals (a
flag column on the candidate and the sentinel -1 on both sides), missing labels, missing and blank
keys, and keys that are numbers on the reference (a float column, since some are missing) and text
(some padded with spaces) on the candidate. ``write_pair`` writes a pair in one file format.
``POLICY_CASES`` lists the policy combinations worth testing; ``ERROR_CASES`` the ones that raise.

Used by tests/test_engines_duckdb.py and tests/test_engines_spark.py (import it as
``from messy_inputs import messy_pair, write_pair, POLICY_CASES``; tests/ is on ``sys.path`` under
pytest's default rootdir-based import mode).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from metaeval.core.scale import Scale

__all__ = ["messy_pair", "write_pair", "equivalent_frame", "POLICY_CASES", "ERROR_CASES", "FORMATS"]

#: Formats ``write_pair`` writes. ``parquet_glob``: three files in a folder, returned as a glob;
#: ``parquet_hive``: a hive-partitioned folder (``part=0/``, ``part=1/``, ...), which adds the
#: partition column ``part`` to the rows; ``qrels``/``qrels.gz``: TREC qrels text (only for pairs
#: made with ``qrels_safe=True``: integer labels, no missing keys or labels, no extra columns).
FORMATS = ("qrels", "qrels.gz", "csv", "tsv", "jsonl", "parquet", "parquet_glob", "parquet_hive")

_S = Scale((0, 1, 2, 3))

#: Policy combinations (keyword arguments of ``metaeval.align``) that together reach every fate,
#: every note and every branch of the duplicate and refusal rules.
POLICY_CASES = [
    dict(scale=_S, out_of_scale="clip", duplicates="first", refusal_flag="refused", refusal_value=-1,
         refusals="keep", unjudged="drop"),
    dict(scale=_S, out_of_scale="drop", duplicates="last", refusal_flag="refused", refusal_value=-1,
         refusals="drop", unjudged="keep"),
    dict(scale=_S, out_of_scale="missing", duplicates="majority", refusal_flag="refused", refusal_value=-1,
         refusals=0, unjudged=0),
    dict(scale=_S, out_of_scale="clip", duplicates="mean", refusal_flag=None, refusal_value=-1,
         refusals="drop", unjudged="drop"),
    dict(scale=None, out_of_scale="error", duplicates="majority", refusal_flag="refused", refusal_value=None,
         refusals="keep", unjudged=1),
    dict(scale=None, out_of_scale="error", duplicates="first", refusal_flag=None, refusal_value=None,
         refusals="keep", unjudged="keep"),
]

#: Policy combinations that raise an InputError on a messy pair (out-of-scale labels, conflicts).
ERROR_CASES = [
    dict(scale=_S, out_of_scale="error", duplicates="first", refusal_value=-1, refusals="drop"),
    dict(scale=_S, out_of_scale="clip", duplicates="error", refusal_value=-1, refusals="drop"),
    dict(scale=None, duplicates="error"),
]


def _pick(rng, n, frac, minimum=1):
    k = max(minimum, int(round(n * frac))) if n else 0
    return rng.choice(n, size=min(k, n), replace=False) if k else np.array([], dtype=int)


def messy_pair(n: int = 200, seed: int = 0, scale_levels=(0, 1, 2, 3), *,
               qrels_safe: bool = False) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A (reference, candidate) pair of messy judgment frames, the same for the same arguments.

    Parameters
    ----------
    n : int
        About the number of distinct keys (each side has more rows: duplicates, unmatched rows).
    seed : int
        Seed of the generator.
    scale_levels : sequence of int
        The levels labels are drawn from; out-of-scale labels are ``max + 2``, ``max + 7`` and
        ``min - 3`` (never the refusal sentinel -1).
    qrels_safe : bool
        Only what TREC qrels text can hold: integer labels, no missing keys or labels, no
        padded keys, and only the columns ``query_id, doc_id, relevance``.

    Returns
    -------
    (pandas.DataFrame, pandas.DataFrame)
        Reference: ``query_id`` (float, integral, NaN for a missing key; int64 with
        ``qrels_safe``), ``doc_id`` (str or None), ``relevance`` (float with NaN), ``topic_type``.
        Candidate: ``query_id`` (str, some padded), ``doc_id``, ``relevance`` (str: numbers, ``""``
        and ``"NA"`` for missing), ``refused`` (bool), ``length`` (int).
    """
    rng = np.random.default_rng(seed)
    levels = np.asarray(scale_levels, dtype=float)
    nq = max(2, n // 20)
    q = rng.integers(1, nq + 1, size=n)
    d = rng.permutation(n * 3)[:n]  # distinct doc numbers, so keys are distinct
    ref_lab = rng.choice(levels, size=n)
    agree = rng.random(n) < 0.6
    cand_lab = np.where(agree, ref_lab, rng.choice(levels, size=n))

    # unmatched: the first 5% of keys only in the reference, the next 5% only in the candidate
    k_only = max(1, n // 20)
    ref_idx = np.r_[np.arange(0, k_only), np.arange(2 * k_only, n)]
    cand_idx = np.arange(k_only, n)

    def side(idx, lab, is_ref):
        df = pd.DataFrame({"query_id": q[idx].astype(float), "doc_id": [f"d{v}" for v in d[idx]],
                           "relevance": lab[idx].astype(float)})
        m = len(df)
        # duplicates: identical repeats, conflicting repeats, and some keys three times (ties)
        ident = df.iloc[_pick(rng, m, 0.04)]
        conf = df.iloc[_pick(rng, m, 0.05)].copy()
        conf["relevance"] = [rng.choice(levels[levels != v]) for v in conf["relevance"]]
        third = conf.iloc[: max(1, len(conf) // 2)].copy()
        third["relevance"] = [rng.choice(levels) for _ in range(len(third))]
        df = pd.concat([df, ident, conf, third], ignore_index=True)
        m = len(df)
        lab_arr = df["relevance"].to_numpy().copy()
        oos_values = np.array([levels.max() + 2, levels.max() + 7, levels.min() - 3])
        oos = _pick(rng, m, 0.03)
        lab_arr[oos] = rng.choice(oos_values, size=len(oos))
        ref_sent = _pick(rng, m, 0.02)
        lab_arr[ref_sent] = -1
        if not qrels_safe:
            lab_arr[_pick(rng, m, 0.03)] = np.nan
        df["relevance"] = lab_arr
        if not qrels_safe:
            qid = df["query_id"].to_numpy().copy()
            doc = df["doc_id"].to_numpy(dtype=object).copy()
            qid[_pick(rng, m, 0.01)] = np.nan
            miss = _pick(rng, m, 0.02)
            for j, i in enumerate(miss):
                doc[i] = (None, "", "  ")[j % 3]
            df["query_id"], df["doc_id"] = qid, doc
        df = df.iloc[rng.permutation(m)].reset_index(drop=True)
        if is_ref:
            if qrels_safe:
                df["query_id"] = df["query_id"].astype(np.int64)
            else:
                df["topic_type"] = rng.choice(["factoid", "list", "opinion"], size=len(df))
            return df
        # candidate: text keys (some padded), text labels, a refusal flag and a length column
        qtext = [None if np.isnan(v) else str(int(v)) for v in df["query_id"]]
        if not qrels_safe:
            pad = set(_pick(rng, len(df), 0.05).tolist())
            qtext = [f" {v} " if (i in pad and v is not None) else v for i, v in enumerate(qtext)]
            rel = [("" if i % 2 else "NA") if np.isnan(v) else str(int(v)) if float(v).is_integer() else str(v)
                   for i, v in enumerate(df["relevance"])]
            df["relevance"] = pd.Series(rel, dtype=object)
            refused = np.zeros(len(df), dtype=bool)
            refused[_pick(rng, len(df), 0.03)] = True
            df["refused"] = refused
            df["length"] = rng.integers(20, 400, size=len(df))
        else:
            df["relevance"] = df["relevance"].astype(np.int64)
        df["query_id"] = pd.Series(qtext, dtype=object)
        return df

    return side(ref_idx, ref_lab, True), side(cand_idx, cand_lab, False)


def _clean_for_text(df: pd.DataFrame) -> pd.DataFrame:
    """Integral float columns (numeric keys with NaN) as nullable ints, so text shows 3, not 3.0."""
    out = df.copy()
    for c in out.columns:
        v = out[c]
        if v.dtype.kind == "f" and c != "relevance":
            arr = v.to_numpy()
            if np.all(np.isnan(arr) | (arr == np.round(arr))):
                out[c] = v.astype("Int64")
    return out


def write_pair(ref: pd.DataFrame, cand: pd.DataFrame, folder, fmt: str) -> tuple[str, str]:
    """Write both sides in one format under ``folder``; returns the two paths (or globs) to read.

    Parameters
    ----------
    ref, cand : pandas.DataFrame
        From :func:`messy_pair`.
    folder : path
        Created if missing.
    fmt : str
        One of :data:`FORMATS`.

    Returns
    -------
    (str, str)
        Paths (``parquet_glob``: a ``*.parquet`` glob; ``parquet_hive``: the folder).
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for name, df in (("ref", ref), ("cand", cand)):
        if fmt in ("qrels", "qrels.gz"):
            from metaeval.data.io import write_qrels

            extra = set(df.columns) - {"query_id", "doc_id", "relevance"}
            if extra or df[["query_id", "doc_id", "relevance"]].isna().any().any():
                raise ValueError("qrels text cannot hold this pair: make it with messy_pair(qrels_safe=True)")
            path = folder / f"{name}.{fmt}"
            write_qrels(df, path)
        elif fmt in ("csv", "tsv"):
            path = folder / f"{name}.{fmt}"
            _clean_for_text(df).to_csv(path, sep="," if fmt == "csv" else "\t", index=False, lineterminator="\n")
        elif fmt == "jsonl":
            path = folder / f"{name}.jsonl"
            _clean_for_text(df).to_json(path, orient="records", lines=True)
        elif fmt == "parquet":
            path = folder / f"{name}.parquet"
            df.to_parquet(path, index=False)
        elif fmt == "parquet_glob":
            sub = folder / name
            sub.mkdir(exist_ok=True)
            for i, chunk in enumerate(np.array_split(np.arange(len(df)), 3)):
                df.iloc[chunk].to_parquet(sub / f"part-{i}.parquet", index=False)
            path = sub / "*.parquet"
        elif fmt == "parquet_hive":
            sub = folder / name
            for i, chunk in enumerate(np.array_split(np.arange(len(df)), 3)):
                (sub / f"part={i}").mkdir(parents=True, exist_ok=True)
                df.iloc[chunk].to_parquet(sub / f"part={i}" / "data.parquet", index=False)
            path = sub
        else:
            raise ValueError(f"fmt must be one of {FORMATS}, got {fmt!r}")
        out.append(str(path))
    return out[0], out[1]


def equivalent_frame(df: pd.DataFrame, fmt: str, source: str) -> pd.DataFrame:
    """The DataFrame the pandas path should see for a side written by :func:`write_pair` as a glob or
    hive folder (which the pandas path does not read): the rows in file order, lines numbered per file
    from 1 (as the table readers number Parquet records), the partition column for ``parquet_hive``,
    and ``attrs["source"]`` the glob or folder.

    Parameters
    ----------
    df : pandas.DataFrame
        The side as given to :func:`write_pair`.
    fmt : str
        ``parquet_glob`` or ``parquet_hive``.
    source : str
        The path :func:`write_pair` returned for this side.

    Returns
    -------
    pandas.DataFrame
    """
    chunks = np.array_split(np.arange(len(df)), 3)
    out = df.reset_index(drop=True).copy()
    if fmt == "parquet_hive":
        out["part"] = np.concatenate([np.full(len(c), i, dtype=np.int64) for i, c in enumerate(chunks)])
    out.attrs["source"] = source
    out.attrs["lines"] = np.concatenate([np.arange(1, len(c) + 1) for c in chunks])
    return out
