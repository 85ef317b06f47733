"""Reading a small file the user names (a study file, a claims file, a paper's text) without hanging.

A path that is a device (``/dev/zero``), a FIFO, a socket or a folder is refused before it is
opened; a regular file is opened without blocking (``O_NONBLOCK``: a pseudo-file such as
``/proc/kmsg`` cannot make the read wait), read at most up to a size limit, and a pseudo-file that
says it is empty yet has content (``/proc``, ``/sys``) is refused after its first block. Every
refusal is one :class:`~metaeval.core.errors.InputError` naming the file.
"""

from __future__ import annotations

import errno
import os
import stat

from .errors import InputError

__all__ = ["read_regular", "check_readable"]

_KINDS = ((stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a folder"))


def _stat(path, what: str) -> os.stat_result:
    try:
        return os.stat(path)
    except FileNotFoundError:
        raise InputError(f"{what} not found", source=str(path), fix="check the path") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise InputError(f"{what} is a loop of symbolic links", source=str(path),
                             fix="give the path of the file itself") from None
        raise InputError(f"cannot read {what} ({exc.strerror or exc})", source=str(path)) from None


def check_readable(path, *, what: str = "the file") -> os.stat_result:
    """Refuse a path that is missing, a link loop, a device, a FIFO, a socket or a folder.

    Parameters
    ----------
    path : str or path-like
    what : str
        What the file is, for the messages.

    Returns
    -------
    os.stat_result
        The file's status (links followed).

    Raises
    ------
    InputError

    Examples
    --------
    >>> check_readable("/dev/zero", what="the study file")
    Traceback (most recent call last):
    ...
    metaeval.core.errors.InputError: /dev/zero: the study file is a character device, not a regular file. Fix: give the path of a file
    """
    st = _stat(path, what)
    for test, kind in _KINDS:
        if test(st.st_mode):
            raise InputError(f"{what} is {kind}, not a regular file", source=str(path), fix="give the path of a file")
    return st


def read_regular(path, *, limit: int, what: str = "the file", limit_fix: str | None = None) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes, read without ever blocking.

    Parameters
    ----------
    path : str or path-like
    limit : int
        The largest size accepted, in bytes.
    what : str
        What the file is, for the messages ("the study file").
    limit_fix : str, optional
        The fix named when the file is larger than ``limit``.

    Returns
    -------
    bytes

    Raises
    ------
    InputError
        As :func:`check_readable`; a file larger than ``limit``; a pseudo-file (stated size 0 and
        content, as in ``/proc``), or one that cannot be read now or at all (``/proc/kmsg``,
        ``/proc/self/mem``).

    Examples
    --------
    >>> import tempfile, os
    >>> fd, p = tempfile.mkstemp()
    >>> _ = os.write(fd, b"seed = 1\\n"); os.close(fd)
    >>> read_regular(p, limit=100)
    b'seed = 1\\n'
    >>> read_regular(p, limit=4, what="the study file")
    Traceback (most recent call last):
    ...
    metaeval.core.errors.InputError: ...: the study file is larger than 4 bytes (9 bytes). Fix: ...
    """
    st = check_readable(path, what=what)
    fix = limit_fix or "give a smaller file"
    if st.st_size > limit:
        raise InputError(f"{what} is larger than {limit} bytes ({st.st_size} bytes)", source=str(path), fix=fix)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise InputError(f"cannot read {what} ({exc.strerror or exc})", source=str(path)) from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):       # (replaced after the check)
            raise InputError(f"{what} is not a regular file", source=str(path), fix="give the path of a file")
        chunks, total = [], 0
        while True:
            try:
                b = os.read(fd, 1 << 16)
            except BlockingIOError:
                raise InputError(f"{what} cannot be read without waiting (a pseudo-file such as /proc/kmsg)",
                                 source=str(path), fix="give the path of a regular file") from None
            except OSError as exc:
                raise InputError(f"cannot read {what} ({exc.strerror or exc})", source=str(path)) from None
            if not b:
                break
            if st.st_size == 0:
                raise InputError(f"{what} is a pseudo-file (its size is 0, yet it has content, as files in /proc "
                                 "and /sys)", source=str(path), fix="copy what you need into a regular file")
            total += len(b)
            if total > limit:
                raise InputError(f"{what} is larger than {limit} bytes (it grew while read)", source=str(path),
                                 fix=fix)
            chunks.append(b)
        return b"".join(chunks)
    finally:
        os.close(fd)
