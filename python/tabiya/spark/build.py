"""A tabiya database built on Spark: the stages of a single-machine ingest, spread over tasks.

1. **split**: a task reads consecutive files up to ``split_bytes`` of them (less when the
   input would make fewer tasks than twice the cluster's cores; a larger file alone; decompressing .zst, .bz2 or .gz on a thread of its own: a compressed stream is read
   from its start, so one file is never cut across tasks) and cuts each into pieces
   of 16,384 games, each written zstd-compressed into the shared work directory (named by the
   task attempt: only the attempt Spark reports is read), so the PGN goes through no shuffle;
   the driver cuts the batches ``tabiya ingest`` cuts (every 16,384 games of all the inputs, across
   files) from slices of the pieces, knowing their counts;
   a file named by a URL (``hdfs://``, ``s3a://``, ``file://``: any file system of Spark's
   Hadoop configuration) is fetched whole by its task through Spark (up to 2 GB) or, larger,
   first copied by the driver into the shared work directory; a local path is read by its
   task from a mount every executor shares;
2. **prepare**: a task a few consecutive batches (read from their pieces' files) parses, replays and
   keys their games (tabiya's Rust code, in the Python worker), dropping copies within a batch
   and games the database holds already, and writes each batch's position occurrences, sorted
   and indexed, as a file of the work directory (named by the task attempt);
3. **ids**: duplicates across batches are found by fingerprint (the first in input order
   stays; with ``skip_twins``, duplicates and twins together: each game with its players, moves and
   twin key, shuffled by its date and first moves, which twins and copies share, decided in
   input order as ``tabiya ingest --skip-twins`` decides them), and each batch gets its first game id, a prefix sum of the kept counts in input
   order: the ids ``tabiya ingest`` gives the same files;
4. **ranges**: the key ranges ``tabiya ingest`` commits, or more for a larger build, each
   holding ``range_occurrences`` on average (their pivots are quantiles of a sample of keys
   chosen by their hash: the same on every run), are written by a task each: it reads its part
   of every batch's occurrences file (a binary search of the file's index, then the records
   of its part: the shuffle, with no Python and no Spark shuffle in its data path) and writes what a commit writes of its range, the positions' SST files and the single-game
   tier's records, summed with the positions the database stores already, under a directory
   of its own attempt, which the driver takes only from the attempt Spark reports successful;
   a task holds its parts (each sorted by its prepare task) as they arrive and merges them as
   a commit merges runs, spilling them merged to a file past a bound, not holding its whole
   range in memory;
5. **games**: a task a few batches writes each batch's game records (tags, mainlines, facts,
   header facts, event and site texts, fingerprints, players, their names' words, twins) as
   SST files of their families, under a directory of its own attempt;
6. **assemble**: the driver ingests the games' files in input order, gathers the ranges' tier
   marks and ingests every range's files with the new totals in one atomic step.

The build is one commit: up to the size of one ``tabiya ingest`` commit (about 1 GiB of staged
positions, a million games or so) the database is byte for byte the one ``tabiya ingest``
builds from the same files (in the same order), beyond it it gives the same answers; whatever
the number of executors or tasks (the number of key ranges depends on the input alone). Building into an existing database appends, as ``tabiya
ingest`` does; a build that fails removes the games it wrote and records its run as failed.
"""

from __future__ import annotations

import os
import re
import shutil
import time
import uuid
from collections import defaultdict
from typing import Iterable, Optional, Sequence

from .. import _native
from ._workers import database

# The sizes of what prepare_batch and commit_pivots hand on, as the library writes them.
_FINGERPRINT = _native.FINGERPRINT_BYTES
_KEY = _native.KEY_BYTES

# Bytes of input files a split task reads by default: a folder of small files (a weekly
# archive, a club's, per-player downloads) is read by a few tasks, not a task a file.
SPLIT_BYTES = 128 << 20


def build(
    spark,
    inputs: Sequence[str],
    db: str,
    *,
    work: Optional[str] = None,
    partitions: Optional[int] = None,
    range_occurrences: Optional[int] = None,
    split_bytes: int = SPLIT_BYTES,
    skip_twins: bool = False,
    min_prefix: Optional[int] = None,
) -> dict:
    """Builds (or appends to) the database ``db`` from the PGN files and directories
    ``inputs`` (paths every executor shares, or URLs Spark's Hadoop file systems read), on the
    cluster of ``spark`` (a SparkSession). ``work`` is a directory every
    executor and the driver share (default: beside the database; the database's own path must
    be one every executor reads too), ``partitions`` the number of prepare tasks, at most one
    a batch (default: four times the default parallelism), ``range_occurrences`` the position
    occurrences a range task holds on average (default ``RANGE_OCCURRENCES``, 8,388,608: 16 ranges, a single-machine
    commit's, up to 134 million occurrences; fewer, more range tasks), ``split_bytes`` the
    bytes of input files a split task reads at most (default ``SPLIT_BYTES``, 128 MiB; less
    when the input would make fewer tasks than twice the cluster's cores: a folder of small
    files is read by a few tasks, not a task a file; a larger file is a task alone; a file
    fetched from a URL into its task is a task alone too). With ``skip_twins``, the twins of
    stored games and of games read before them are skipped, as ``tabiya ingest --skip-twins``
    skips them (``min_prefix``: the fewest plies of a game whose moves start its twin's, its
    ``--min-prefix``, 20 by default). Returns the summary
    ``tabiya ingest --json`` prints, with ``rejected`` (each skipped game: file, game, line, reason, detail),
    ``readErrors`` (each input that could not be read to its end), ``stages`` (seconds) and
    ``splitTasks``."""
    from pyspark import StorageLevel

    if range_occurrences is not None and range_occurrences < 1:
        raise ValueError(f"range_occurrences must be at least 1, not {range_occurrences}")
    if isinstance(split_bytes, bool) or not isinstance(split_bytes, int) or split_bytes < 1:
        raise ValueError(f"split_bytes must be a whole number of at least 1, not {split_bytes!r}")
    if min_prefix is not None and not skip_twins:
        raise ValueError("min_prefix needs skip_twins")
    if min_prefix is None:
        min_prefix = _native.MIN_PREFIX_PLIES
    if isinstance(min_prefix, bool) or not isinstance(min_prefix, int) or not 10 <= min_prefix <= 65535:
        raise ValueError(f"min_prefix must be a whole number from 10 to 65535, not {min_prefix!r}")
    twins_at = min_prefix if skip_twins else None
    sc = spark.sparkContext
    files, urls, large = _input_files(sc, [os.fspath(path) for path in inputs])
    db = os.path.abspath(os.fspath(db))
    work = os.path.abspath(work or db + ".spark-work")
    runs_dir = os.path.join(work, "runs")
    copies_dir = os.path.join(work, "inputs")
    existing = db if os.path.exists(db) else None
    # The writer first: it removes the games an interrupted run wrote without committing them
    # (else their fingerprints would make this run skip them), and holds the database; then
    # what the tasks of an interrupted run left goes too.
    assembly = _native.Assembly(db, files)
    for directory in (runs_dir, copies_dir):
        shutil.rmtree(directory, ignore_errors=True)
    os.makedirs(runs_dir)
    partitions = partitions or 4 * sc.defaultParallelism
    stages = {}
    clock = time.perf_counter()

    def lap(name: str) -> None:
        nonlocal clock
        now = time.perf_counter()
        stages[name] = round(now - clock, 3)
        clock = now

    broadcasts = []
    parsed = None
    try:
        first_id = _native.next_game_id(db)
        # The prepare tasks' handles are this build's own: one opened for another (before a
        # killed run's games were removed, say) is not reused.
        build_token = f"{first_id}:{uuid.uuid4()}"
        # 1-2. Split (a few files a task, the pieces written as files), prepare the batches; kept
        # on the executors' disks for the later stages, with what the driver and the dedup need
        # apart (small).
        pieces_dir = os.path.join(runs_dir, "pieces")
        occurrences_dir = os.path.join(runs_dir, "occurrences")
        split_rdd, split_tasks = _split(sc, files, urls, _copied(sc, large, copies_dir), pieces_dir, split_bytes)
        split = split_rdd.collect()
        if len({piece for piece, _ in split}) != len(split):
            raise RuntimeError("a piece reported twice")
        lap("split")
        split.sort()
        # The batches ``tabiya ingest`` cuts, as slices of the pieces; a read error stops its
        # file after the pieces before it.
        pieces = [(value, path, count) for _, (kind, value, path, count) in split if kind == "games"]
        read_errors = [value for _, (kind, value, _, _) in split if kind == "error"]
        plan = [
            [(pieces[piece][0], start, end, pieces[piece][1]) for piece, start, end in batch]
            for batch in _native.batch_plan([count for _, _, count in pieces])
        ]
        parsed = (
            sc.parallelize(list(enumerate(plan)), max(1, min(partitions, len(plan))))
            .map(lambda item: (item[0], _prepare(item, occurrences_dir, existing, build_token, twins_at)))
            .persist(StorageLevel.DISK_ONLY)
        )
        small = parsed.map(_small).persist(StorageLevel.MEMORY_AND_DISK)
        rows = small.map(_batch_row).collect()
        rows.sort()
        lap("prepare")

        # 3. Duplicates across batches, found by a shuffle of fingerprints (or, skipping twins,
        # duplicates and twins, by a shuffle of what twins share); then ids.
        if twins_at is None:
            duplicates = (
                small.flatMap(lambda item: _native.fingerprint_parts(item[1]["fingerprints"], item[0], partitions))
                .partitionBy(partitions, lambda part: part)
                .mapPartitions(lambda parts: _native.later_twins([bytes for _, bytes in parts]))
                .collect()
            )
            twins = []
        else:
            decided = (
                small.flatMap(lambda item: _native.twin_parts(item[1]["twins"], item[0], partitions))
                .partitionBy(partitions, lambda part: part)
                .mapPartitions(lambda parts: [_native.skipped_twins([bytes for _, bytes in parts], twins_at)])
                .collect()
            )
            duplicates = [game for found, _ in decided for game in found]
            twins = [game for _, found in decided for game in found]
        dropped = defaultdict(list)
        for batch, number in duplicates + twins:
            dropped[batch].append(number)
        ids = {}
        next_id = first_id
        counts = {"games_read": 0, "duplicates": len(duplicates), "twins": len(twins), "read_errors": 0,
                  "skipped": defaultdict(int)}
        occurrences = 0
        # Each batch's ids and facts, in input order (rows are sorted).
        rejected, sample, batch_facts, occurrence_files = [], set(), [], []
        for batch, games_read, duplicates, skipped, batch_rejected, kept, bound_keys, facts, batch_occurrences, path in rows:
            occurrence_files.append((batch, path))
            numbers = sorted(dropped.get(batch, []))
            if twins_at is not None:
                # The sample of what the kept games reach: a twin's own positions are no kept game's.
                bound_keys = _native.kept_bound_keys(bound_keys, numbers)
            ids[batch] = (next_id, b"".join(n.to_bytes(4, "big") for n in numbers))
            batch_facts.append((*ids[batch], facts))
            next_id += kept - len(numbers)
            counts["games_read"] += games_read
            counts["duplicates"] += duplicates
            occurrences += batch_occurrences
            for reason, count in skipped.items():
                counts["skipped"][reason] += count
            rejected.extend(batch_rejected)
            sample.update(bound_keys[at : at + _KEY] for at in range(0, len(bound_keys), _KEY))
        counts["read_errors"] = len(read_errors)
        counts["skipped"] = dict(counts["skipped"])
        small.unpersist()
        lap("ids")

        # 4. The commit's range pivots from the hash-chosen sample, as many ranges as the build's
        # size asks; each range written by a task from its parts of the batches' occurrences
        # files, from the database opened read-only.
        ranges = _native.range_count(occurrences, range_occurrences or _native.RANGE_OCCURRENCES)
        pivots = _native.commit_pivots(b"".join(sorted(sample)), ranges)
        facts = _native.kept_facts(batch_facts)
        del batch_facts
        pivots_value = sc.broadcast(pivots)
        ids_value = sc.broadcast(ids)
        facts_value = sc.broadcast((facts, next_id))
        files_value = sc.broadcast(occurrence_files)
        broadcasts = [pivots_value, ids_value, facts_value, files_value]
        range_numbers = len(pivots) // _KEY + 1
        written = (
            sc.parallelize(range(range_numbers), range_numbers)
            .flatMap(lambda number: _write_range(number, files_value, ids_value, pivots_value, facts_value, db, runs_dir))
            .collect()
        )
        by_range = {}
        for number, record in written:
            if number in by_range:
                raise RuntimeError(f"key range {number} reported twice")
            by_range[number] = record
        records = [by_range[number] for number in sorted(by_range)]
        lap("ranges")

        # 5. Each batch's games written by a task, as SST files of the games' families.
        games = parsed.mapPartitions(lambda items: _write_games(items, ids_value, db, runs_dir)).collect()
        lap("games")

        # 6. The games ingested in input order, then the commit.
        if len({batch for batch, _ in games}) != len(games):
            raise RuntimeError("a batch's games reported twice")
        assembly.add_written([record for _, record in sorted(games)])
        summary = assembly.finish(records, counts)
        lap("assemble")
    except BaseException as err:
        assembly.abort(f"{type(err).__name__}: {err}")
        raise
    finally:
        if parsed is not None:
            parsed.unpersist()
        for value in broadcasts:
            value.unpersist()
        # What the tasks wrote (the games' and ranges' files) is ingested or of no use, and so
        # are the inputs' copies.
        for directory in (runs_dir, copies_dir):
            shutil.rmtree(directory, ignore_errors=True)
        try:
            os.rmdir(work)
        except OSError:
            pass
    summary["rejected"] = [
        {"file": file, "game": game, "line": line, "reason": reason, "detail": detail}
        for file, game, line, reason, detail in rejected
    ]
    summary["readErrors"] = read_errors
    summary["stages"] = stages
    summary["ranges"] = len(records)
    summary["splitTasks"] = split_tasks
    return summary


# A file a URL names is fetched whole into a task's memory (by Spark's binaryFiles): at most
# what a Java array holds. A larger one is copied by the driver into the work directory.
_MAX_FETCHED = 2**31 - 64
# Names binaryFiles would not take as they are (a list, a glob, a hidden file): copied too.
_NOT_FETCHED_NAME = re.compile(r"[,*?\[\]{}\\]|/[_.]")


def _is_url(path: str) -> bool:
    """Whether an input names a file system by a scheme (hdfs://, s3a://, file:/...)."""
    return re.match(r"[A-Za-z][A-Za-z0-9+.-]*:/", path) is not None


def _input_files(sc, inputs: Sequence[str]):
    """The PGN files ``inputs`` name, in order: local files and directories as ``tabiya
    ingest`` expands them, URLs listed through Spark's Hadoop file systems (a directory's PGN
    files recursively, in sorted order); which of them are URLs; and the URLs of those to copy
    instead of fetching them into a task (too large, or named as binaryFiles would not take
    them). A URL that names nothing is refused before anything is written."""
    files, urls, large = [], set(), []
    for path in inputs:
        if not _is_url(path):
            files.extend(_native.expand_inputs([path]))
            continue
        for name, length in _listed(sc, path):
            files.append(name)
            urls.add(name)
            if length > _MAX_FETCHED or _NOT_FETCHED_NAME.search(name):
                large.append(name)
    return files, urls, large


def _listed(sc, url: str) -> list:
    from py4j.protocol import Py4JJavaError

    from ..errors import InvalidInput

    jvm = sc._jvm
    try:
        path = jvm.org.apache.hadoop.fs.Path(url)
        system = path.getFileSystem(sc._jsc.hadoopConfiguration())
        status = system.getFileStatus(path)
        if status.isFile():
            found = [status]
        else:
            found, listing = [], system.listFiles(path, True)
            while listing.hasNext():
                status = listing.next()
                if _native.is_pgn_name(status.getPath().getName()):
                    found.append(status)
    except Py4JJavaError as err:
        raise InvalidInput(f"cannot read {url}: {err.java_exception}") from None
    # As a directory is walked: by path component, in order.
    listed = [(status.getPath().toString(), status.getLen()) for status in found]
    return sorted(listed, key=lambda item: item[0].split("/"))


def _copied(sc, urls: Sequence[str], directory: str) -> dict:
    """Copies each of ``urls`` (files too large to fetch into a task, or so named that it
    would not take them) into ``directory``, in the work directory every executor shares, by
    the driver's Hadoop client: {url: copy}. A copy is named by its number alone (its reader
    takes the compression from the URL)."""
    from py4j.protocol import Py4JJavaError

    from ..errors import TabiyaError

    if not urls:
        return {}
    os.makedirs(directory, exist_ok=True)
    hadoop = sc._jvm.org.apache.hadoop.fs
    conf = sc._jsc.hadoopConfiguration()
    local = hadoop.FileSystem.getLocal(conf).getRaw()
    copies = {}
    for number, url in enumerate(urls):
        copy = os.path.join(directory, f"{number:05d}.pgn")
        try:
            source = hadoop.Path(url)
            done = hadoop.FileUtil.copy(source.getFileSystem(conf), source, local, hadoop.Path(copy), False, conf)
        except Py4JJavaError as err:
            raise TabiyaError(f"cannot copy {url} into {directory}: {err.java_exception}") from None
        if not done:
            raise TabiyaError(f"cannot copy {url} into {directory}")
        copies[url] = copy
    return copies


def _split(sc, files: Sequence[str], urls: set, copies: dict, directory: str, split_bytes: int):
    """The pieces of every input file, each written as a file into ``directory`` (in the work
    directory every executor shares; named by its task attempt, so only the attempt Spark
    reports is read): ((file, piece), ("games", piece's file, path, games) or ("error", message,
    path, 0)); and the number of tasks. Local paths and the copies of large URL files are read from the
    shared mount, consecutive files up to ``split_bytes`` a task; the other URL files are
    fetched into a task each by Spark."""
    parts = []
    local = [(number, path, copies.get(path)) for number, path in enumerate(files)
             if path not in urls or path in copies]
    groups = _grouped(local, split_bytes, 2 * sc.defaultParallelism)
    if groups:
        parts.append(sc.parallelize(groups, len(groups)).flatMap(
            lambda group: (part for number, path, copy in group
                           for part in _split_file(number, path, directory, copy=copy))))
    for number, url in enumerate(files):
        if url in urls and url not in copies:
            fetched = sc.binaryFiles(url, minPartitions=1)
            parts.append(fetched.flatMap(
                lambda item, number=number, url=url: _split_file(number, url, directory, item[1])))
    tasks = len(groups) + len(parts) - bool(groups)
    if not parts:
        return sc.parallelize([], 1), 0
    return (parts[0] if len(parts) == 1 else sc.union(parts)), tasks


def _grouped(local: list, split_bytes: int, tasks: int) -> list:
    """``local`` (number, path, copy) in runs of consecutive files of at most ``split_bytes``
    bytes on disk each, or less so that a smaller input still makes ``tasks`` runs (the
    cluster's cores, twice: each reads some, and the last to end waits for less), a larger file
    alone: a split task's files. A file that cannot be stat'ed counts as large (its task
    reports why it cannot be read)."""
    sizes = []
    for _, path, copy in local:
        try:
            sizes.append(os.path.getsize(copy or path))
        except OSError:
            sizes.append(split_bytes)
    most = max(1, min(split_bytes, sum(sizes) // max(1, tasks)))
    groups, group, held = [], [], 0
    for item, size in zip(local, sizes):
        if group and held + size > most:
            groups.append(group)
            group, held = [], 0
        group.append(item)
        held += size
    if group:
        groups.append(group)
    return groups


def _split_file(file_number: int, path: str, directory: str, content: Optional[bytes] = None,
                copy: Optional[str] = None):
    """The pieces of one input file, read from ``path`` or, fetched from a URL, from its
    ``content`` or its ``copy``, ``path`` naming it; each piece written into ``directory``."""
    os.makedirs(directory, exist_ok=True)
    attempt = _attempt()
    for piece_number, item in enumerate(_native.read_batches(path, content, copy)):
        if item[0] == "error":
            yield (file_number, piece_number), ("error", item[1], path, 0)
            continue
        name = os.path.join(directory, f"{file_number:05d}-{piece_number:07d}.{attempt}")
        with open(name, "wb") as out:
            out.write(item[1])
        yield (file_number, piece_number), ("games", name, path, item[2])


def _prepare(item, directory, existing, state, skip_twins):
    """Prepares one batch from its slices (the piece's file in the work directory, start, end,
    the input file it is of), writing its occurrences file into ``directory``; with
    ``skip_twins`` (the fewest plies of a prefix twin), its games as twin candidates too."""
    batch, slices = item
    os.makedirs(directory, exist_ok=True)
    occurrences = os.path.join(directory, f"{batch:07d}.{_attempt()}")
    read = {}
    for name, _, _, _ in slices:
        if name not in read:
            with open(name, "rb") as piece:
                read[name] = piece.read()
    prepared = _native.prepare_batch([(read[name], start, end, path) for name, start, end, path in slices],
                                     occurrences, database(existing, state) if existing else None, skip_twins)
    prepared["occurrences"] = occurrences
    return prepared


def _small(item):
    """What the driver and the duplicates' (or twins') shuffle need of a prepared batch: all
    but its games."""
    batch, prepared = item
    return batch, {name: value for name, value in prepared.items() if name != "games"}


def _batch_row(item):
    batch, prepared = item
    kept = len(prepared["fingerprints"]) // _FINGERPRINT
    return (batch, prepared["games_read"], prepared["duplicates"], prepared["skipped"], prepared["rejected"], kept,
            prepared["bound_games"] if "bound_games" in prepared else prepared["bounds"], prepared["facts"], prepared["occurrence_count"], prepared["occurrences"])


def _attempt() -> str:
    """This task attempt's name, for the files and directories it writes."""
    from pyspark import TaskContext

    context = TaskContext.get()
    return f"stage{context.stageId()}-task{context.taskAttemptId()}" if context else f"pid{os.getpid()}"


def _write_games(items: Iterable, ids_value, db: str, runs_dir: str):
    """Writes each batch's games into a directory of this task attempt's own, from the
    database opened read-only for this task alone (as ``_write_range``)."""
    ids = ids_value.value
    handle = None
    try:
        for batch, prepared in items:
            if batch not in ids:
                continue
            if handle is None:
                handle = _native.Database(db)
            first, dropped = ids[batch]
            directory = os.path.join(runs_dir, f"games-{batch:07d}.{_attempt()}")
            yield batch, os.fspath(_native.write_batch_games(handle, directory, first, dropped, prepared["games"]))
    finally:
        if handle is not None:
            handle.close()


def _write_range(number: int, files_value, ids_value, pivots_value, facts_value, db: str, runs_dir: str):
    """Writes key range ``number`` of the commit into a directory of this task attempt's own,
    from its part of each batch's occurrences file (the writer holds them, up to a bound), from
    the database opened read-only for this task alone (a handle kept would hold the files the
    build's commit and compaction replace)."""
    ids, pivots = ids_value.value, pivots_value.value
    writer = _native.RangeWriter(os.path.join(runs_dir, f"range-{number:05d}.{_attempt()}"))
    added = False
    for batch, path in files_value.value:
        first, dropped = ids[batch]
        added |= writer.add(first, dropped, path, pivots, number)
    if not added:
        return
    facts, end = facts_value.value
    handle = _native.Database(db)
    try:
        record = writer.finish(handle, pivots, number, facts, end)
    finally:
        handle.close()
    yield number, os.fspath(record)
