"""The report folder as a transaction: built beside ``--out``, renamed into place when complete.

:func:`output_folder` is what :meth:`metaeval.output.report.Report.write`, :func:`metaeval.run_study`
and the reviewer's note write through:

1. ``out`` is checked first (:func:`check_out`): a symbolic link, an existing file, the current
   folder (or one holding it), a folder holding an input of the run, or a folder holding anything but
   a previous output of the same kind is refused with an :class:`~metaeval.core.errors.InputError`,
   before any analysis runs. A previous output is recognised by its marker, :data:`MARKER`
   (``.metaeval-output.json``: the package, its version, the kind of output and the SHA-256 of every
   file written): the folder may hold those files (or some of them) unchanged, and the files pdflatex
   writes when one of its ``.tex`` files is compiled there; a folder without the marker, with another
   file, or with a file changed since it was written is never replaced;
2. a lock file beside ``out`` (``.<name>.metaeval-lock``, holding the owner's pid) is opened without
   following links (``O_NOFOLLOW``; a link, a file with other hard links, or anything but a regular file
   this user owns is refused) and taken with an exclusive ``flock``: a second run on the same ``out``
   is refused with an InputError naming that pid. The kernel releases the lock when its owner dies
   (even by SIGKILL), so a stale lock is taken over;
3. the output is written into a temporary folder beside ``out`` (``.<name>.tmp-<pid>-…``, created
   with ``mkdtemp``: new, private, on the same file system), the marker is added, and only then is the
   previous output renamed aside (``.<name>.old-<pid>-…``), the new one renamed to ``out`` and the old
   one removed. If the second rename fails, the first is undone.

A run killed before step 3 leaves the previous output untouched and no partial file in ``out``; its
temporary folder is removed by the next run on the same ``out`` (which holds the lock, so no live run
owns it). A run killed between the two renames leaves ``out`` missing and the previous output set
aside: the next run on ``out`` puts it back before anything else (even if that run then fails), and a
set-aside folder is deleted only after a swap has succeeded. Writing errors (a read-only file system,
a full disk) are InputErrors naming ``out``. On Windows (no ``fcntl``) the lock is a file created
exclusively, taken over when the pid it names is no longer running.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import re
import shutil
import stat
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path

from ..core.errors import InputError
from ..core.procs import pid_alive

__all__ = ["output_folder", "check_out", "REPORT_ENTRIES", "MARKER", "run_inputs"]

#: What a report folder may hold (a previous report, compiled or not): anything else is not replaced.
REPORT_ENTRIES = re.compile(r"report(\.[A-Za-z0-9_-]+)+|results\.json|tables|figures")
#: The marker every output folder holds: the package, its version, the kind and each file's SHA-256.
MARKER = ".metaeval-output.json"
# what pdflatex (and latexmk, synctex) writes beside a .tex file it compiles
_LATEX_PRODUCTS = (".pdf", ".aux", ".log", ".out", ".toc", ".lof", ".lot", ".fls", ".fdb_latexmk", ".synctex.gz",
                   ".bbl", ".blg")


def _holder(path: Path) -> str:
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return "unknown"
    try:
        text = os.read(fd, 32).decode("ascii", errors="replace").strip()
    except OSError:
        text = ""
    finally:
        os.close(fd)
    return text if text.isdigit() else "unknown"


def _write_error(exc: OSError, out, kind: str) -> InputError:
    """An OSError met while the output folder was made or written, as one line naming ``out``."""
    why = exc.strerror or str(exc)
    fixes = {errno.EROFS: "the file system is read-only: give --out a folder on a writable one",
             errno.ENOSPC: "free some disk space, or give --out a folder on another disk",
             errno.EDQUOT: "free some space within your quota, or give --out a folder elsewhere",
             errno.EACCES: "give --out a folder you may write in",
             errno.EPERM: "give --out a folder you may write in",
             errno.ENAMETOOLONG: "give --out a shorter path",
             errno.ENOTDIR: "a parent of --out is a file: give --out a folder path"}
    return InputError(f"cannot write the {kind} folder ({why})", source=str(out),
                      fix=fixes.get(exc.errno, f"give --out another folder; nothing of the previous {kind} was removed"))


class _Lock:
    """An exclusive lock on ``path`` (fcntl.flock; an O_EXCL pid file where fcntl is missing)."""

    def __init__(self, path: Path, out: Path):
        self.path, self.out, self.fd = path, out, None

    def _refuse(self):
        pid = _holder(self.path)
        return InputError(f"another metaeval run (pid {pid}) is writing this output folder", source=str(self.out),
                          fix=f"wait for it to finish, or give another --out (the lock file is {self.path})")

    def _unsafe(self, what: str):
        return InputError(f"the lock file {self.path} is {what}: it is not opened (writing through it would "
                          "change another file)", source=str(self.out),
                          fix=f"remove {self.path} if no metaeval run is writing this folder, or give another --out")

    def acquire(self) -> None:
        try:
            import fcntl
        except ImportError:  # pragma: no cover - Windows
            return self._acquire_pidfile()
        flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
        for _ in range(10):
            try:
                fd = os.open(self.path, flags, 0o644)
            except OSError as exc:
                if exc.errno == errno.ELOOP or os.path.islink(self.path):
                    raise self._unsafe("a symbolic link") from None
                raise _write_error(exc, self.out, "output") from None
            st = os.fstat(fd)
            bad = ("not a regular file" if not stat.S_ISREG(st.st_mode) else
                   "a file with other hard links" if st.st_nlink != 1 else
                   "owned by another user" if st.st_uid != os.getuid() else None)
            if bad:
                os.close(fd)
                raise self._unsafe(bad)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                raise self._refuse() from None
            # the holder before us may have removed the file after we opened it: lock the file on disk
            try:
                same = os.path.samestat(st, os.lstat(self.path))
            except FileNotFoundError:
                same = False
            if same:
                os.ftruncate(fd, 0)
                os.write(fd, f"{os.getpid()}\n".encode("ascii"))
                self.fd = fd
                return
            os.close(fd)
        raise self._refuse()  # pragma: no cover

    def _acquire_pidfile(self) -> None:  # pragma: no cover - Windows
        for _ in range(10):
            try:
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o644)
            except FileExistsError:
                pid = _holder(self.path)
                if pid.isdigit() and pid_alive(int(pid)):
                    raise self._refuse() from None
                with contextlib.suppress(OSError):
                    os.unlink(self.path)          # a stale lock: its owner is gone
                continue
            os.write(fd, f"{os.getpid()}\n".encode("ascii"))
            self.fd = fd
            return
        raise self._refuse()

    def release(self) -> None:
        if self.fd is None:
            return
        with contextlib.suppress(OSError):
            os.unlink(self.path)
        os.close(self.fd)                          # (closing releases the flock)
        self.fd = None


# --------------------------------------------------------------------------------------------
# the marker
# --------------------------------------------------------------------------------------------

def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _walk(folder: Path) -> tuple[list[str], list[str]]:
    """The files under ``folder`` (relative POSIX paths, links not followed) and the entries that are
    neither files nor folders (links, devices, FIFOs, sockets)."""
    files, odd = [], []
    for root, dirs, names in os.walk(folder, followlinks=False):
        for n in list(dirs):
            if os.path.islink(os.path.join(root, n)):
                odd.append(Path(root, n).relative_to(folder).as_posix())
                dirs.remove(n)
        for n in names:
            rel = Path(root, n).relative_to(folder).as_posix()
            (files if stat.S_ISREG(os.lstat(os.path.join(root, n)).st_mode) else odd).append(rel)
    return sorted(files), sorted(odd)


def _write_marker(folder: Path, kind: str) -> None:
    from .. import __version__

    files, _ = _walk(folder)
    doc = {"package": "metaeval", "version": __version__, "kind": kind,
           "files": {rel: _sha256(folder / rel) for rel in files if rel != MARKER}}
    fd = os.open(folder / MARKER, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o644)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(json.dumps(doc, indent=1, sort_keys=True) + "\n")


def _read_marker(folder: Path) -> dict | None:
    m = folder / MARKER
    try:
        if not stat.S_ISREG(os.lstat(m).st_mode) or os.lstat(m).st_size > 50 * 2**20:
            return None
        doc = json.loads(m.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not (isinstance(doc, dict) and doc.get("package") == "metaeval" and isinstance(doc.get("files"), dict)
            and isinstance(doc.get("kind"), str)):
        return None
    return doc


def _foreign(folder: Path, kind: str, entries: re.Pattern | None = None) -> tuple[str, str] | None:
    """Why ``folder`` (a folder, not a link) may not be replaced by an output of ``kind``: (problem,
    the files named), or None when it is empty or holds only a previous output of that kind."""
    files, odd = _walk(folder)
    if not files and not odd:
        return None
    doc = _read_marker(folder)
    if doc is None:
        return (f"the output folder holds files that are not a metaeval {kind} (no {MARKER} lists them; a {kind} "
                "replaces the whole folder)", ", ".join((odd + files)[:5]))
    if doc["kind"] != kind:
        return (f"the output folder holds a metaeval {doc['kind']}, which a {kind} never replaces", "")
    if odd:
        return ("the output folder holds links or special files that metaeval did not write", ", ".join(odd[:5]))
    listed = doc["files"]
    texs = {rel[:-4] for rel in listed if rel.endswith(".tex")}
    since = os.lstat(folder / MARKER).st_mtime
    extra, changed = [], []
    for rel in files:
        if rel == MARKER:
            continue
        if rel in listed:
            try:
                if _sha256(folder / rel) != listed[rel]:
                    changed.append(rel)
            except OSError:
                changed.append(rel)
            continue
        stem = next((rel[:-len(e)] for e in _LATEX_PRODUCTS if rel.endswith(e)), None)
        if stem in texs and os.lstat(folder / rel).st_mtime >= since:
            continue                                    # pdflatex's files from compiling a listed .tex
        extra.append(rel)
    if entries is not None:
        extra += [rel for rel in listed if rel in files and not entries.fullmatch(rel.split("/")[0])]
    if extra:
        return (f"the output folder holds files that are not a metaeval {kind} (its {MARKER} does not list them; "
                f"a {kind} replaces the whole folder)", ", ".join(extra[:5]))
    if changed:
        return (f"files of the previous {kind} were changed since metaeval wrote them", ", ".join(changed[:5]))
    return None


# --------------------------------------------------------------------------------------------
# checking --out
# --------------------------------------------------------------------------------------------

def _inside(p: Path, folder: Path) -> bool:
    return p == folder or folder in p.parents


def run_inputs(doc, base: str | os.PathLike) -> list[Path]:
    """The existing paths a study or claims document names (every string value that is one).

    Parameters
    ----------
    doc : dict, list or str
        The parsed TOML (or any part of it).
    base : str or path-like
        The folder relative paths start from.

    Returns
    -------
    list of Path
        Each string of ``doc`` (titles and texts aside) that names an existing file or folder, or
        whose part before a glob character does.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "q.txt").write_text("x")
    >>> [p.name for p in run_inputs({"title": "q.txt", "data": {"a": {"path": "q.txt"}}}, d)]
    ['q.txt']
    """
    out: list[Path] = []
    skip = {"title", "description", "text", "sentence", "name", "type", "kind"}

    def visit(v, key=None):
        if isinstance(v, dict):
            for k, x in v.items():
                if k not in skip:
                    visit(x, k)
        elif isinstance(v, (list, tuple)):
            for x in v:
                visit(x, key)
        elif isinstance(v, str) and 0 < len(v) < 4096 and "\n" not in v and "\x00" not in v:
            head = re.split(r"[*?\[]", v, maxsplit=1)[0]
            p = Path(head) if Path(head).is_absolute() else Path(base) / head
            with contextlib.suppress(OSError, ValueError):
                if head and os.path.lexists(p):
                    out.append(p)
    visit(doc)
    return out


def _check_path(path: Path, out, kind: str) -> None:
    """Refuse an --out path that cannot be a folder: a parent that is a file, a name too long, a link."""
    try:
        limit = os.pathconf(next(p for p in (path, *path.parents) if p.is_dir()), "PC_NAME_MAX")
    except (OSError, ValueError, StopIteration):
        limit = 255
    for part in path.parts[1:]:
        if len(os.fsencode(part)) > limit:
            raise InputError(f"a name in the output folder's path is too long ({len(os.fsencode(part))} bytes; "
                             f"the file system allows {limit})", source=str(out)[:200], fix="give --out a shorter name")
    for p in reversed((path, *path.parents)):
        try:
            st = os.lstat(p)
        except FileNotFoundError:
            return
        except OSError as exc:
            raise _write_error(exc, str(out)[:200], kind) from None
        if p == path and stat.S_ISLNK(st.st_mode):
            raise InputError("the output folder is a symbolic link" + (" to nothing" if not p.exists() else ""),
                             source=str(out), fix="give --out the folder itself (a new folder, or a previous "
                                                   f"{kind}), not a link to it")
        if p != path and stat.S_ISLNK(st.st_mode):
            try:
                st = os.stat(p)
            except OSError:
                raise InputError(f"a parent of the output folder is a symbolic link to nothing: {p}", source=str(out),
                                 fix="give --out a path under an existing folder") from None
        if p != path and not stat.S_ISDIR(st.st_mode):
            raise InputError(f"a parent of the output folder is a file, not a folder: {p}", source=str(out),
                             fix="give --out a path under a folder")


def check_out(out: str | os.PathLike, *, entries: re.Pattern = REPORT_ENTRIES, kind: str = "report",
              inputs: Iterable[str | os.PathLike] = ()) -> Path:
    """``out`` as an absolute path, refused (InputError) when an output of ``kind`` cannot replace it.

    Parameters
    ----------
    out : str or path-like
        The output folder.
    entries : re.Pattern
        The top-level names a previous output of this kind holds (default :data:`REPORT_ENTRIES`; the
        reviewer's note passes ``review.*``).
    kind : str
        What is written ("report", "review"): a folder holding a previous output of another kind is
        refused.
    inputs : iterable of path-like
        The files the run reads: a folder holding one of them is refused.

    Returns
    -------
    Path

    Raises
    ------
    InputError
        When ``out`` is a symbolic link, an existing file, under a file, too long a name, the current
        folder or a folder holding it, a folder holding an input of the run, or a folder holding
        anything but an unchanged previous output of ``kind`` (its :data:`MARKER` lists the files).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "notes.txt"
    >>> _ = f.write_text("x")
    >>> check_out(f)
    Traceback (most recent call last):
    ...
    metaeval.core.errors.InputError: ...notes.txt: the output folder is an existing file. Fix: give --out a folder (new, or holding a previous report)
    >>> check_out(f.parent, inputs=[f])
    Traceback (most recent call last):
    ...
    metaeval.core.errors.InputError: ...: the output folder holds an input of this run (a report replaces the whole folder): '...notes.txt'. Fix: give --out a new folder
    """
    path = Path(os.path.abspath(out))
    if path.parent == path:
        raise InputError("the output folder is a file system's root", source=str(out), fix="give --out a new folder")
    _check_path(path, out, kind)
    if path.exists() and not path.is_dir():
        raise InputError("the output folder is an existing file", source=str(out),
                         fix=f"give --out a folder (new, or holding a previous {kind})")
    real = Path(os.path.realpath(path))
    for i in inputs:
        try:
            held = _inside(Path(os.path.realpath(i)), real)
        except (OSError, ValueError):
            held = False
        if held:
            raise InputError(f"the output folder holds an input of this run (a {kind} replaces the whole folder)",
                             source=str(out), text=str(i), fix="give --out a new folder")
    if path.is_dir():
        cwd = Path(os.path.realpath(os.getcwd()))
        if real == cwd or real in cwd.parents:
            raise InputError(f"the output folder is the current folder (or holds it): a {kind} replaces the "
                             "whole folder", source=str(out), fix=f"give --out a new folder, e.g. --out {kind}")
        try:
            why = _foreign(path, kind, entries)
        except OSError as exc:
            raise _write_error(exc, out, kind) from None
        if why:
            problem, names = why
            raise InputError(problem, source=str(out), text=names or None,
                             fix=f"give --out a new folder, or move those files away (only an unchanged previous "
                                 f"{kind} is replaced)")
    return path


# --------------------------------------------------------------------------------------------
# leftovers of earlier runs (the caller holds the lock: no live run owns them)
# --------------------------------------------------------------------------------------------

def _leftovers(parent: Path, name: str, kind: str) -> list[Path]:
    import glob

    return sorted(p for p in parent.glob(f".{glob.escape(name)}.{kind}-*") if p.is_dir() and not p.is_symlink())


def _recover(parent: Path, name: str, kind: str) -> None:
    """``out`` missing and a previous output set aside by a run killed between its renames: put it back."""
    path = parent / name
    if os.path.lexists(path):
        return
    found = [d / name for d in _leftovers(parent, name, "old")
             if (d / name).is_dir() and not (d / name).is_symlink() and _read_marker(d / name) is not None
             and _read_marker(d / name)["kind"] == kind and _foreign(d / name, kind) is None]
    if found:
        best = max(found, key=lambda p: os.lstat(p / MARKER).st_mtime)
        os.replace(best, path)
        with contextlib.suppress(OSError):
            best.parent.rmdir()


def _remove_tmp(parent: Path, name: str) -> None:
    for p in _leftovers(parent, name, "tmp"):
        shutil.rmtree(p, ignore_errors=True)


def _remove_old(parent: Path, name: str, kind: str) -> None:
    """Set-aside folders of earlier runs, once a swap has succeeded (only those holding nothing but an
    output of this package, or nothing)."""
    for d in _leftovers(parent, name, "old"):
        inner = list(d.iterdir())
        if not inner or (len(inner) == 1 and inner[0].name == name and inner[0].is_dir()
                         and not inner[0].is_symlink() and _read_marker(inner[0]) is not None
                         and _foreign(inner[0], _read_marker(inner[0])["kind"]) is None):
            shutil.rmtree(d, ignore_errors=True)


def _mkdtemp(prefix: str, parent: Path) -> Path:
    """A new folder in ``parent`` with the permissions of ``mkdir`` (mkdtemp's are 0700)."""
    d = Path(tempfile.mkdtemp(prefix=prefix, dir=parent))
    mask = os.umask(0)
    os.umask(mask)
    os.chmod(d, 0o777 & ~mask)
    return d


@contextlib.contextmanager
def output_folder(out: str | os.PathLike, *, entries: re.Pattern = REPORT_ENTRIES, kind: str = "report",
                  inputs: Iterable[str | os.PathLike] = ()) -> Iterator[Path]:
    """Build an output folder as a transaction: yield a temporary folder, rename it to ``out`` at the end.

    Parameters
    ----------
    out : str or path-like
        The output folder (created with its parents; a previous output of ``kind`` in it is replaced as
        a whole).
    entries, kind, inputs : re.Pattern, str, iterable of path-like
        What a previous output in ``out`` may hold, its name, and the files the run reads
        (:func:`check_out`).

    Yields
    ------
    Path
        An empty temporary folder beside ``out`` to write every file into. When the block ends
        without an exception the marker (:data:`MARKER`) is added and it becomes ``out``; on an
        exception it is removed and ``out`` is left as it was.

    Raises
    ------
    InputError
        When ``out`` is refused (:func:`check_out`), another run holds its lock (the message names
        its pid), its lock file is a link, or the folder cannot be written (a read-only file system,
        a full disk: the message names ``out`` and the reason).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "report"
    >>> with output_folder(out) as tmp:
    ...     _ = (tmp / "report.md").write_text("# new")
    >>> sorted(p.name for p in out.parent.iterdir()), sorted(p.name for p in out.iterdir())
    (['report'], ['.metaeval-output.json', 'report.md'])
    >>> with output_folder(out) as tmp:
    ...     _ = (tmp / "report.md").write_text("# half")
    ...     raise RuntimeError("interrupted")
    Traceback (most recent call last):
    ...
    RuntimeError: interrupted
    >>> (out / "report.md").read_text()
    '# new'
    """
    inputs = list(inputs)
    path = check_out(out, entries=entries, kind=kind, inputs=inputs)
    parent, name = path.parent, path.name
    try:
        parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise _write_error(exc, out, kind) from None
    lock = _Lock(parent / f".{name}.metaeval-lock", Path(out))
    lock.acquire()
    tmp = None
    try:
        try:
            _recover(parent, name, kind)            # a run killed between its renames set the previous one aside
            check_out(out, entries=entries, kind=kind, inputs=inputs)   # (again: no other run can change it now)
            _remove_tmp(parent, name)
            tmp = _mkdtemp(f".{name}.tmp-{os.getpid()}-", parent)
        except OSError as exc:
            raise _write_error(exc, out, kind) from None
        try:
            yield tmp
        except OSError as exc:                      # writing the files: a full disk, a read-only file system
            where = Path(os.path.abspath(exc.filename)) if isinstance(exc.filename, (str, os.PathLike)) else None
            if where is None or _inside(where, tmp):
                raise _write_error(exc, out, kind) from None
            raise
        try:
            _write_marker(tmp, kind)
            old = None
            if os.path.lexists(path):
                old = Path(tempfile.mkdtemp(prefix=f".{name}.old-{os.getpid()}-", dir=parent))
                os.replace(path, old / name)
            try:
                os.replace(tmp, path)
            except BaseException:
                if old is not None:                 # put the previous output back
                    with contextlib.suppress(OSError):
                        os.replace(old / name, path)
                        old.rmdir()
                raise
            tmp = None
            if old is not None:
                shutil.rmtree(old, ignore_errors=True)
            _remove_old(parent, name, kind)
        except OSError as exc:
            raise _write_error(exc, out, kind) from None
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
        lock.release()
