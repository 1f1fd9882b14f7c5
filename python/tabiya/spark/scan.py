"""Whole-database scans on Spark: a pattern search, the piece-square statistics of
``tabiya psqt derive`` and the database report. A scan's parts (key ranges of the full-key
family, runs of games of the single-game tier; for the report also runs of game ids) are dealt
to tasks, each opening the database read-only from a path every
executor has, and the partial answers are merged on the driver into the CLI's answer."""

from __future__ import annotations

import os
import time
from typing import Optional

from .. import _native
from ._workers import database as _database

def _spread(spark, count: int, tasks: Optional[int], partial) -> list:
    """``partial(parts)`` over a scan's ``count`` parts, dealt round-robin to ``tasks`` tasks
    (default: four times the default parallelism): parts are in key order, and neighbours cost
    alike. Returns each task's partial answer."""
    tasks = max(1, min(count, tasks or 4 * spark.sparkContext.defaultParallelism))
    groups = [list(range(first, count, tasks)) for first in range(tasks)]
    return spark.sparkContext.parallelize(groups, len(groups)).map(partial).collect()


def _scan(spark, db: str, kind: str, tasks: Optional[int], **options) -> tuple:
    """The scan ``kind`` (``pattern``, ``psqt`` or ``report``, with the options its CLI command
    takes) of the database ``db`` on the cluster of ``spark``: its parts counted and its
    options checked on the driver (a bad filter fails here, before any task), each task's
    parts scanned on the executors, the partial answers merged on the driver. Returns the
    answer and the number of tasks."""
    db = os.path.abspath(os.fspath(db))
    state = _native.next_game_id(db)
    local = _native.Database(db)
    try:
        count = _native.scan_part_count(local, kind, **options)
        if options.get("filters"):
            # The filters resolved (a player's games found) before any task: no part scanned.
            _native.scan_partial(local, kind, [], **options)

        def partial(parts):
            return _native.scan_partial(_database(db, state), kind, parts, **options)

        partials = _spread(spark, count, tasks, partial)
        return _native.scan_answer(local, kind, partials, **options), len(partials)
    finally:
        local.close()


def search(
    spark,
    db: str,
    pattern: str,
    *,
    material: Optional[str] = None,
    side: Optional[str] = None,
    flip_colours: bool = False,
    limit: int = 20,
    tasks: Optional[int] = None,
    variant: Optional[str] = None,
    **filters,
) -> dict:
    """Searches the database ``db`` (a path every executor can open: a shared mount or a copy
    on each node) for ``pattern`` on the cluster of ``spark``; the answer is
    :meth:`tabiya.Database.search_pattern`'s (``tabiya search --pattern --json``) for the same
    options and filters (keyword arguments, as that method takes them: each task counts only
    the games they keep), with ``elapsedMs`` the whole job's. ``tasks`` defaults to four times
    the default parallelism; ``variant`` is :meth:`tabiya.Database.query`'s."""
    started = time.perf_counter()
    answer, used = _scan(spark, db, "pattern", tasks, expression=pattern, material=material, side=side,
                         flip_colours=flip_colours, limit=limit, variant=variant, filters=filters or None)
    answer["elapsedMs"] = int((time.perf_counter() - started) * 1000)
    answer["tasks"] = used
    return answer


def psqt_derive(
    spark,
    db: str,
    *,
    sample: int = 2_000_000,
    seed: int = 1,
    epochs: Optional[int] = None,
    tasks: Optional[int] = None,
    variant: Optional[str] = None,
    **filters,
) -> dict:
    """Piece-square statistics and fitted tables of the database ``db`` on the cluster of
    ``spark``: ``tabiya psqt derive --json``'s answer for the same options (``sample``,
    ``seed``, ``epochs``, ``variant``, and the date, speed and rating filters as keyword
    arguments: ``since``, ``until``, ``speed``, ``min_rating``, ``max_rating``). The scan is
    spread; the fit on the sample runs on the driver."""
    started = time.perf_counter()
    answer, _ = _scan(spark, db, "psqt", tasks, sample=sample, seed=seed, epochs=epochs, variant=variant,
                      filters=filters or None)
    answer["elapsedMs"] = int((time.perf_counter() - started) * 1000)
    return answer


def report(spark, db: str, *, plies: int = 10, top: int = 30, tasks: Optional[int] = None,
           variant: Optional[str] = None) -> dict:
    """The database report of ``db`` on the cluster of ``spark``: totals, years, ratings,
    results, openings, players, positions by ply and endgame classes, equal to
    :meth:`tabiya.Database.report_database` (``tabiya report database --format json``) for the
    same ``plies``, ``top`` and ``variant`` (:meth:`tabiya.Database.query`'s).
    Runs of games and key ranges are dealt to tasks; the driver merges their counts and names
    the listed positions."""
    answer, _ = _scan(spark, db, "report", tasks, plies=plies, top=top, variant=variant)
    return answer
