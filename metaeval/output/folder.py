"""The report folder as a transaction: built beside ``--out``, renamed into place when complete.

:func:`output_folder` is what :meth:`metaeval.output.report.Report.write` and
:func:`metaeval.run_study` write through:

1. ``out`` is checked first: an existing file, the current folder (or one holding it), or a folder
   holding anything but a previous report (``report.*``, ``results.json``, ``tables/``,
   ``figures/``) is refused with an :class:`~metaeval.core.errors.InputError`, before any analysis runs;
2. a lock file beside ``out`` (``.<name>.metaeval-lock``, holding the owner's pid) is taken with an
   exclusive ``flock``: a second run on the same ``out`` is refused with an InputError naming that pid.
   The kernel releases the lock when its owner dies (even by SIGKILL), so a stale lock is taken over;
3. the report is written into a temporary folder beside ``out`` (``.<name>.tmp-<pid>-…``, on the same
   file system), and only when every file is complete the previous report is renamed aside
   (``.<name>.old-<pid>-…``), the new one renamed to ``out`` and the old one removed.

A run killed before step 3 leaves the previous report untouched and no partial file in ``out``; its
temporary folder is removed by the next run on the same ``out`` (which holds the lock, so no live run
owns it). On Windows (no ``fcntl``) the lock is a file created exclusively, taken over when the pid it
names is no longer running.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from ..core.errors import InputError

__all__ = ["output_folder", "REPORT_ENTRIES"]

#: What a report folder may hold (a previous report, compiled or not): anything else is not replaced.
REPORT_ENTRIES = re.compile(r"report(\.[A-Za-z0-9_-]+)+|results\.json|tables|figures")


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True
    return True


def _holder(path: Path) -> str:
    try:
        text = path.read_text(encoding="ascii", errors="replace").strip()
    except OSError:
        text = ""
    return text or "unknown"


class _Lock:
    """An exclusive lock on ``path`` (fcntl.flock; an O_EXCL pid file where fcntl is missing)."""

    def __init__(self, path: Path, out: Path):
        self.path, self.out, self.fd = path, out, None

    def _refuse(self):
        pid = _holder(self.path)
        return InputError(f"another metaeval run (pid {pid}) is writing this report folder", source=str(self.out),
                          fix=f"wait for it to finish, or give another --out (the lock file is {self.path})")

    def acquire(self) -> None:
        try:
            import fcntl
        except ImportError:  # pragma: no cover - Windows
            return self._acquire_pidfile()
        for _ in range(10):
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                raise self._refuse() from None
            # the holder before us may have removed the file after we opened it: lock the file on disk
            try:
                same = os.path.samestat(os.fstat(fd), os.stat(self.path))
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
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o644)
            except FileExistsError:
                pid = _holder(self.path)
                if pid.isdigit() and _pid_alive(int(pid)):
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


def check_out(out: str | os.PathLike, *, entries: re.Pattern = REPORT_ENTRIES, kind: str = "report") -> Path:
    """``out`` as an absolute path, refused (InputError) when a report cannot replace it.

    Parameters
    ----------
    out : str or path-like
        The report folder.
    entries : re.Pattern
        The names a previous output of this kind may hold (default :data:`REPORT_ENTRIES`; the
        reviewer's note passes ``review.*``, so that a note never replaces a report folder).
    kind : str
        What is written, for the messages ("report", "review").

    Returns
    -------
    Path

    Raises
    ------
    InputError
        When ``out`` is an existing file, the current folder or a folder holding it, or a folder
        holding files that are not a previous report's (names ``entries`` does not match).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "notes.txt"
    >>> _ = f.write_text("x")
    >>> check_out(f)
    Traceback (most recent call last):
    ...
    metaeval.core.errors.InputError: ...notes.txt: the output folder is an existing file. Fix: give --out a folder (new, or holding a previous report)
    """
    path = Path(os.path.abspath(out))
    if path.exists() and not path.is_dir():
        raise InputError("the output folder is an existing file", source=str(out),
                         fix=f"give --out a folder (new, or holding a previous {kind})")
    if path.parent == path:
        raise InputError("the output folder is a file system's root", source=str(out), fix="give --out a new folder")
    if path.is_dir():
        real, cwd = Path(os.path.realpath(path)), Path(os.path.realpath(os.getcwd()))
        if real == cwd or real in cwd.parents:
            raise InputError(f"the output folder is the current folder (or holds it): a {kind} replaces the "
                             "whole folder", source=str(out), fix=f"give --out a new folder, e.g. --out {kind}")
        others = sorted(p.name for p in path.iterdir() if not entries.fullmatch(p.name))
        if others:
            raise InputError(f"the output folder holds files that are not a metaeval {kind} (a {kind} replaces the "
                             "whole folder)", source=str(out), text=", ".join(others[:5]),
                             fix=f"give --out a new folder, or one that holds only a previous {kind}")
    return path


def _remove_leftovers(parent: Path, name: str) -> None:
    """Temporary and old folders of earlier runs on ``name`` (the caller holds the lock: no live run owns them)."""
    import glob

    for kind in ("tmp", "old"):
        for p in parent.glob(f".{glob.escape(name)}.{kind}-*"):
            shutil.rmtree(p, ignore_errors=True)


def _mkdtemp(prefix: str, parent: Path) -> Path:
    """A new folder in ``parent`` with the permissions of ``mkdir`` (mkdtemp's are 0700)."""
    d = Path(tempfile.mkdtemp(prefix=prefix, dir=parent))
    mask = os.umask(0)
    os.umask(mask)
    os.chmod(d, 0o777 & ~mask)
    return d


@contextlib.contextmanager
def output_folder(out: str | os.PathLike, *, entries: re.Pattern = REPORT_ENTRIES,
                  kind: str = "report") -> Iterator[Path]:
    """Build a report folder as a transaction: yield a temporary folder, rename it to ``out`` at the end.

    Parameters
    ----------
    out : str or path-like
        The report folder (created with its parents; a previous report in it is replaced as a whole).
    entries, kind : re.Pattern, str
        What a previous output in ``out`` may hold, and its name for the messages (:func:`check_out`).

    Yields
    ------
    Path
        An empty temporary folder beside ``out`` to write every file into. When the block ends
        without an exception it becomes ``out``; on an exception it is removed and ``out`` is left
        as it was.

    Raises
    ------
    InputError
        When ``out`` is refused (:func:`check_out`) or another run holds its lock (the message
        names its pid).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "report"
    >>> with output_folder(out) as tmp:
    ...     _ = (tmp / "report.md").write_text("# new")
    >>> sorted(p.name for p in out.parent.iterdir())
    ['report']
    >>> with output_folder(out) as tmp:
    ...     _ = (tmp / "report.md").write_text("# half")
    ...     raise RuntimeError("interrupted")
    Traceback (most recent call last):
    ...
    RuntimeError: interrupted
    >>> (out / "report.md").read_text()
    '# new'
    """
    path = check_out(out, entries=entries, kind=kind)
    parent, name = path.parent, path.name
    parent.mkdir(parents=True, exist_ok=True)
    lock = _Lock(parent / f".{name}.metaeval-lock", Path(out))
    lock.acquire()
    tmp = None
    try:
        check_out(out, entries=entries, kind=kind)  # (again, now that no other run can change it)
        _remove_leftovers(parent, name)
        tmp = _mkdtemp(f".{name}.tmp-{os.getpid()}-", parent)
        yield tmp
        old = None
        if path.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{name}.old-{os.getpid()}-", dir=parent))
            os.replace(path, old / name)
        os.replace(tmp, path)
        tmp = None
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
        lock.release()
