"""What a Python worker keeps from task to task: the databases it opened (read-only), which
its tasks share."""

from __future__ import annotations

from .. import _native

_OPEN = {}


def database(path: str):
    """The database at ``path``, opened read-only once in this process."""
    opened = _OPEN.get(path)
    if opened is None:
        opened = _OPEN[path] = _native.Database(path)
    return opened
