"""What a Python worker keeps from task to task: the databases it opened (read-only), which
its tasks share."""

from __future__ import annotations

from .. import _native

_OPEN = {}


def database(path: str, state):
    """The database at ``path``, opened read-only once in this process for ``state``: its
    committed state as the driver read it when it dealt the tasks (the next game id), or a
    build's own token. A handle opened before a later commit would not see it, so a new state
    closes the handle and opens the database again."""
    opened = _OPEN.get(path)
    if opened is None or opened[0] != state:
        if opened is not None:
            opened[1].close()
        opened = _OPEN[path] = (state, _native.Database(path))
    return opened[1]
