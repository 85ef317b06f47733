"""Processes: whether a process id names a live process (the owner of a lock or a spill folder)."""

from __future__ import annotations

import os

__all__ = ["pid_alive"]


def pid_alive(pid: int) -> bool:
    """Whether the process ``pid`` is alive (or its liveness cannot be told: then it counts as alive).

    Parameters
    ----------
    pid : int
        A process id, e.g. the one a lock file or a spill folder's name records.

    Returns
    -------
    bool
        False only when the system says no such process exists (``ProcessLookupError``); a process of
        another user (``PermissionError``) is alive. Sends no signal (``os.kill(pid, 0)``). Not for
        Windows, where ``os.kill`` terminates the process.

    Examples
    --------
    >>> import os
    >>> pid_alive(os.getpid())
    True
    """
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):  # alive, another user's
        return True
    return True
