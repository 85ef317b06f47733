"""Which files a path names, for every engine: a path that exists is read literally, a glob only when asked.

The rule (the same for the pandas, DuckDB and Spark engines):

* A path that exists is that file or folder, whatever characters its name holds: ``p[1].parquet`` is
  the file ``p[1].parquet``, never ``p1.parquet``.
* A path that does not exist and holds a glob character (``*``, ``?``, ``[``) is a pattern. Its
  longest leading part that exists is taken literally: ``run[2024]/*.parquet`` is every Parquet file in
  the folder ``run[2024]``.
* ``glob=True`` makes the whole path a pattern even when a file of that name exists; ``glob=False``
  never expands one (a missing file is then "file not found").

DuckDB expands glob characters in every file name it is given, so the names it reads are escaped
(:func:`duckdb_path`: ``[`` → ``[[]``, ``*`` → ``[*]``, ``?`` → ``[?]``).
"""

from __future__ import annotations

import glob as globmod
import os
import re

from ...core.errors import InputError

__all__ = ["GLOB_CHARS", "resolve", "duckdb_path"]

#: The characters that make a path that does not exist a pattern.
GLOB_CHARS = re.compile(r"[*?\[]")


def _check_glob(glob) -> None:
    if glob is not None and not isinstance(glob, bool):
        raise InputError(f"glob must be True, False or None, got {glob!r}", source="<align>",
                         fix="glob=True to expand a pattern, glob=False to read the path literally")


def is_pattern(name: str, glob: bool | None = None) -> bool:
    """Whether ``name`` is read as a pattern under the rule of this module (see :func:`resolve`)."""
    _check_glob(glob)
    if glob is False or not GLOB_CHARS.search(name):
        return False
    return bool(glob) or not os.path.exists(name)


def _literal_prefix(name: str) -> str:
    """The pattern with its longest existing leading part escaped (taken literally)."""
    parts = name.split(os.sep)
    for k in range(len(parts), 0, -1):
        head = os.sep.join(parts[:k])
        if head and GLOB_CHARS.search(head) and os.path.exists(head):
            rest = os.sep.join(parts[k:])
            return globmod.escape(head) + (os.sep + rest if rest else "")
    return name


def resolve(source, glob: bool | None = None) -> tuple[str, list[str]]:
    """The files a path names: ``("file", [path])``, ``("dir", [path])`` or ``("glob", files)``.

    Parameters
    ----------
    source : str or os.PathLike
        A file, a folder or a pattern.
    glob : bool, optional
        None (default): a pattern only when the path does not exist; True: always a pattern; False:
        never.

    Returns
    -------
    (str, list of str)
        The kind and the files (a pattern's matches sorted, regular files only; a file or folder as
        given).

    Raises
    ------
    InputError
        A pattern that matches no file.

    Examples
    --------
    >>> import os, tempfile
    >>> d = tempfile.mkdtemp()
    >>> for f in ("p[1].txt", "p1.txt"):
    ...     _ = open(os.path.join(d, f), "w").write("1 0 a 1\\n")
    >>> [(k, [os.path.basename(f) for f in fs]) for k, fs in (resolve(os.path.join(d, "p[1].txt")),
    ...                                                      resolve(os.path.join(d, "p[1].txt"), glob=True))]
    [('file', ['p[1].txt']), ('glob', ['p1.txt'])]
    """
    name = str(source)
    if not is_pattern(name, glob):
        return ("dir" if os.path.isdir(name) else "file"), [name]
    pattern = name if glob else _literal_prefix(name)
    files = sorted(f for f in globmod.glob(pattern, recursive=True) if os.path.isfile(f))
    if not files:
        raise InputError("no file matches the pattern", source=name,
                         fix="check the path and the pattern (a path that exists is read as it is, "
                             "glob=True makes it a pattern)")
    return "glob", files


def duckdb_path(name: str) -> str:
    """A file name as DuckDB reads it literally: absolute, its glob characters escaped.

    Examples
    --------
    >>> duckdb_path("/data/run[2024]/p*.parquet")
    '/data/run[[]2024]/p[*].parquet'
    """
    return re.sub(r"([*?\[])", r"[\1]", os.path.abspath(name))
