"""tabiya.spark on a real Spark standalone cluster on 127.0.0.1: a master and two workers, each a
separate JVM started with spark-class, and a driver in this process. A slice of the shared
players.pgn.zst (36,000 real games in two files, one gzip-compressed, with the collection's own
duplicates and 2,000 copied across the files, plus a broken game, 200 Chess960 games and 150
games of King of the Hill, Three-check, Racing Kings, Atomic and Antichess) is built on the cluster and by
`tabiya ingest`, and the databases must hold the same bytes (every column family's digest, so
every position's statistics, move table and game list); a build with other task counts, an
append, a build during which a worker is killed, and a build on the one worker left give the
same bytes too, and builds skipping twins those of `tabiya ingest --skip-twins`; pattern searches on the cluster (standard, Chess960, Three-check, Atomic and
Antichess) answer as
`tabiya search --pattern` does."""

from __future__ import annotations

import gzip
import os
import subprocess
import threading
import time
from pathlib import Path

import pytest
import zstandard

from conftest import DATASETS, ROOT, cli_json, cli_path, run_cli

GAMES = 36_000


def digests(db: Path) -> str:
    tool = cli_path().parent / "examples" / "db-digest"
    if not tool.exists():
        pytest.fail(f"no {tool}: run `cargo test --release --no-run`")
    return subprocess.run([str(tool), str(db)], capture_output=True, text=True, check=True).stdout


@pytest.fixture(scope="module")
def collection(tmp_path_factory) -> list:
    source = DATASETS / "players.pgn.zst"
    if not source.exists():
        pytest.fail(f"the Spark tests read {source} (set TABIYA_DATASETS)")
    games, text = [], b""
    with open(source, "rb") as raw, zstandard.ZstdDecompressor().stream_reader(raw) as stream:
        while len(games) <= GAMES:
            chunk = stream.read(1 << 22)
            if not chunk:
                break
            text += chunk
            parts = text.split(b"\n[Event ")
            text = b"[Event " + parts.pop()
            games.extend(part if part.startswith(b"[Event ") else b"[Event " + part for part in parts)
    games = [game.strip() + b"\n" for game in games[:GAMES]]
    # Chess960 games (python-chess's), in a key space of their own.
    from test_chess960 import random_games

    chess960 = [str(game).encode() + b"\n" for game in random_games(200, 59)]
    # King of the Hill, Three-check, Racing Kings, Atomic and Antichess games (python-chess's), 30 of each.
    from test_lichess_variants import random_games as variant_games

    chess960 += [str(game).encode() + b"\n" for _, game in variant_games(30, 59)]
    broken = b'[Event "broken"]\n[White "a"]\n[Black "b"]\n[Result "1-0"]\n\n1. e4 e5 2. Ke3 Nf6 1-0\n'
    folder = tmp_path_factory.mktemp("collection")
    first, second = folder / "a.pgn", folder / "b.pgn.gz"
    first.write_bytes(b"\n".join(games[:20_000] + chess960))
    with gzip.open(second, "wb") as out:
        out.write(b"\n".join(games[20_000:30_000] + [broken] + games[30_000:] + games[500:2_500]))
    return [first, second]


@pytest.fixture(scope="module")
def cli_db(collection, tmp_path_factory) -> Path:
    db = tmp_path_factory.mktemp("cli") / "db"
    summary = cli_json("ingest", "--db", str(db), "--json", *map(str, collection))
    assert summary["duplicates"] > 2_000 and summary["skipped"].get("illegal_move", 0) >= 1, summary
    return db, summary


@pytest.fixture(scope="module")
def spark(tmp_path_factory):
    from pyspark.sql import SparkSession

    from tabiya.spark.cluster import LocalCluster, wait_for_executors

    session = None
    with LocalCluster(workers=2, root=str(tmp_path_factory.mktemp("cluster"))) as cluster:
        try:
            session = (
                SparkSession.builder.master(cluster.url)
                .appName("tabiya tests")
                .config("spark.executor.memory", "1g")
                .config("spark.executor.cores", "1")
                .config("spark.executorEnv.RAYON_NUM_THREADS", "1")
                .config("spark.ui.showConsoleProgress", "false")
                .getOrCreate()
            )
            session.sparkContext.setLogLevel("WARN")
            wait_for_executors(session, 2)
            yield session, cluster
        finally:
            if session is not None:
                session.stop()


def build(spark, collection, db: Path, **options) -> dict:
    from tabiya.spark import build as spark_build

    return spark_build(spark, [str(path) for path in collection], str(db), **options)


def test_a_cluster_build_holds_the_bytes_of_tabiya_ingest(spark, collection, cli_db, tmp_path):
    session, _ = spark
    cli_db, cli = cli_db
    summary = build(session, collection, tmp_path / "db")
    assert digests(tmp_path / "db") == digests(cli_db)
    for count in ("gamesRead", "indexed", "duplicates", "skipped", "positionsWritten", "annotations"):
        assert summary[count] == cli[count], count
    assert summary["database"] == {**cli["database"], "path": str(tmp_path / "db")}
    assert len(summary["rejected"]) == sum(cli["skipped"].values())
    assert {"file": str(collection[1]), "game": 10_001, "line": summary["rejected"][-1]["line"],
            "reason": "illegal_move", "detail": summary["rejected"][-1]["detail"]} in summary["rejected"]
    # Another number of prepare tasks: the same bytes.
    build(session, collection, tmp_path / "other", partitions=2)
    assert digests(tmp_path / "other") == digests(cli_db)


def test_a_folder_of_small_files_is_split_a_few_files_a_task(spark, collection, tmp_path):
    """A folder of 24 small files (8,000 games of the first file, Chess960 and variant games
    among them) is read by split tasks of several consecutive files (``split_bytes``, or by
    default the input spread over twice the cluster's cores), and builds the bytes `tabiya
    ingest` of the folder builds."""
    session, _ = spark
    text = collection[0].read_bytes()
    games = [part if at == 0 else b"[Event " + part for at, part in enumerate(text.split(b"\n[Event "))]
    games = games[:7_800] + games[-200:]
    folder = tmp_path / "small"
    folder.mkdir()
    for number in range(24):
        (folder / f"{number:03d}.pgn").write_bytes(b"\n".join(games[number * 334:(number + 1) * 334]))
    sizes = [path.stat().st_size for path in sorted(folder.iterdir())]
    cli_db = tmp_path / "cli"
    cli_json("ingest", "--db", str(cli_db), "--json", str(folder))
    expected = digests(cli_db)

    def tasks(most: int) -> int:
        """Consecutive files while they fit, counted apart from the build's own grouping."""
        count, held = 1, 0
        for size in sizes:
            if held and held + size > most:
                count, held = count + 1, 0
            held += size
        return count

    # Task sizes set (more tasks than twice the cores), and by default: the input (a few MB)
    # spread over twice the cores.
    spread = sum(sizes) // (2 * session.sparkContext.defaultParallelism)
    split_bytes = sum(sizes) // 6
    assert 6 <= tasks(split_bytes) < 24 and 2 <= tasks(spread) < tasks(split_bytes)
    for at, (options, count) in enumerate((({"split_bytes": split_bytes}, tasks(split_bytes)), ({}, tasks(spread)))):
        db = tmp_path / f"db-{at}"
        summary = build(session, [folder], db, **options)
        assert summary["splitTasks"] == count, options
        assert digests(db) == expected, options
    with pytest.raises(ValueError, match="split_bytes"):
        build(session, [folder], tmp_path / "refused", split_bytes=0)


def test_a_build_of_more_key_ranges_answers_as_tabiya_ingest(spark, cli_db, collection, tmp_path):
    """A larger build cuts more key ranges than a commit's 16 (forced here by a small
    range_occurrences): the single-game tier's records (its maps, one a range) differ, every
    other family holds the same bytes, and every distinct position, full-key or in the tier,
    is exported with the same statistics."""
    session, _ = spark
    cli_db, cli = cli_db
    db = tmp_path / "db"
    summary = build(session, collection, db, range_occurrences=40_000)
    assert summary["ranges"] > 16, summary["ranges"]
    assert summary["positionsWritten"] == cli["positionsWritten"]
    ours, theirs = digests(db).splitlines(), digests(cli_db).splitlines()
    assert [a.split()[0] for a, b in zip(ours, theirs) if a != b] == ["positions"]

    def exported(path: Path) -> Path:
        out = tmp_path / f"{path.parent.name}-{path.name}.csv"
        run_cli("export", "positions", "--db", str(path), "--format", "csv", "-o", str(out))
        subprocess.run(["sort", "-o", str(out), str(out)], check=True, env={**os.environ, "LC_ALL": "C"})
        return out

    ours, theirs = exported(db), exported(cli_db)
    assert ours.stat().st_size > 10_000_000
    assert ours.read_bytes() == theirs.read_bytes()
    with pytest.raises(ValueError, match="at least 1"):
        build(session, collection, tmp_path / "refused", range_occurrences=0)


def test_a_build_from_urls_holds_the_bytes_of_tabiya_ingest(spark, collection, cli_db, tmp_path, monkeypatch):
    """Inputs named by URLs are listed and fetched through Spark's Hadoop file systems (file://
    here; hdfs:// and s3a:// go through the same API with the cluster's configuration): a
    directory's PGN files in sorted order, as tabiya ingest reads the same folder, so the same
    bytes, a file fetched into its task (b.pgn.gz) or, too large for that (here over 8 MB
    instead of 2 GB), copied by the driver into the work directory first (a.pgn); a broken
    game is reported in the file its URL names; a URL naming nothing is refused before
    anything is written."""
    import importlib

    from tabiya.errors import InvalidInput

    module = importlib.import_module("tabiya.spark.build")

    session, _ = spark
    cli_db, cli = cli_db
    assert collection[0].stat().st_size > 8 << 20 > collection[1].stat().st_size
    monkeypatch.setattr(module, "_MAX_FETCHED", 8 << 20)
    copied = []

    def spied(sc, urls, directory):
        copies = original(sc, urls, directory)
        copied.extend((url, os.path.getsize(copy)) for url, copy in copies.items())
        return copies

    original = module._copied
    monkeypatch.setattr(module, "_copied", spied)
    summary = build(session, [f"file://{collection[0].parent}"], tmp_path / "db")
    assert [(url.rsplit("/", 1)[1], size) for url, size in copied] == [("a.pgn", collection[0].stat().st_size)]
    assert not (tmp_path / "db.spark-work").exists(), "the copy and the tasks' files removed"
    assert digests(tmp_path / "db") == digests(cli_db)
    assert summary["indexed"] == cli["indexed"] and summary["duplicates"] == cli["duplicates"]
    broken = [game for game in summary["rejected"] if game["game"] == 10_001]
    assert len(broken) == 1 and broken[0]["reason"] == "illegal_move", summary["rejected"]
    assert broken[0]["file"].startswith("file:") and broken[0]["file"].endswith(f"{collection[1].parent.name}/b.pgn.gz")
    with pytest.raises(InvalidInput, match="cannot read file:///nowhere/x.pgn"):
        build(session, ["file:///nowhere/x.pgn"], tmp_path / "refused")
    assert not (tmp_path / "refused").exists()


def test_a_url_folder_is_read_as_tabiya_ingest_reads_the_same_folder(spark, collection, tmp_path):
    """A folder named by a URL is listed in the order tabiya ingest walks it (nested folders,
    capitals, dots, hidden names); names Spark's binaryFiles would not take as they are (a
    comma, a glob's brackets, a leading underscore or dot) are copied by the driver instead of
    fetched; the database holds the bytes of tabiya ingest of the folder. An empty folder
    builds an empty database."""
    import importlib

    module = importlib.import_module("tabiya.spark.build")
    session, _ = spark
    games = collection[0].read_bytes().split(b"\n[Event ")
    folder = tmp_path / "games"
    names = ["a/x.pgn", "a.pgn", "B.pgn", ".h.pgn", "_u.pgn", "c,d.pgn", "e[1].pgn", "a/b/y.pgn.gz", "notes.txt"]
    for number, name in enumerate(names):
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        text = b"\n[Event ".join(games[1 + 40 * number : 41 + 40 * number])
        path.write_bytes(gzip.compress(b"[Event " + text) if name.endswith(".gz") else b"[Event " + text)
    from tabiya import _native

    files, urls, large = module._input_files(session.sparkContext, [f"file://{folder}"])
    assert [name.removeprefix("file:") for name in files] == _native.expand_inputs([str(folder)])
    assert len(files) == 8 and set(files) == urls
    assert sorted(name.rsplit("/", 1)[1] for name in large) == [".h.pgn", "_u.pgn", "c,d.pgn", "e[1].pgn"]
    summary = build(session, [f"file://{folder}"], tmp_path / "db")
    assert summary["indexed"] > 300 and not summary["readErrors"], summary
    run_cli("ingest", "--db", str(tmp_path / "cli"), str(folder))
    assert digests(tmp_path / "db") == digests(tmp_path / "cli")
    (tmp_path / "empty").mkdir()
    assert build(session, [f"file://{tmp_path / 'empty'}"], tmp_path / "none")["indexed"] == 0


@pytest.mark.parametrize("pattern, options", [
    ("pin(B, n, k)", {}),
    ("check and count(Q) = 0", {"side": "white"}),
    ("wtm", {"material": "KRPvKR"}),
    # Filters: each task counts only the games they keep.
    ("check", {"since": "2000", "min_elo": 2300, "result": "1-0"}),
    ("check", {"variant": "chess960"}),
    ("check", {"variant": "threeCheck"}),
    ("check", {"variant": "atomic"}),
    ("wtm and count(K) = 1", {"variant": "antichess", "material": "KQRRBBNNP*vKQRRBBNNP*"}),
])
def test_a_pattern_search_on_the_cluster_answers_as_the_cli(spark, cli_db, pattern, options):
    from tabiya.spark import search

    session, _ = spark
    cli_db, _ = cli_db
    found = search(session, str(cli_db), pattern, limit=12, **options)
    flags = [arg for name, value in options.items() for arg in (f"--{name.replace('_', '-')}", str(value))]
    cli = cli_json("search", "--db", str(cli_db), "--pattern", pattern, "--limit", "12", "--json", *flags)
    for answer in (found, cli):
        answer.pop("elapsedMs")
    found.pop("tasks")
    assert found == cli
    assert found["positions"] > 0


def test_piece_square_statistics_on_the_cluster_are_the_clis(spark, cli_db):
    from tabiya.spark import psqt_derive

    session, _ = spark
    cli_db, _ = cli_db
    for filters in ({}, {"since": "2000", "min_rating": 2400}, {"variant": "chess960"}, {"variant": "kingOfTheHill"},
                    {"variant": "antichess"}):
        found = psqt_derive(session, str(cli_db), sample=20_000, seed=3, **filters)
        flags = [arg for name, value in filters.items() for arg in (f"--{name.replace('_', '-')}", str(value))]
        cli = cli_json("psqt", "derive", "--db", str(cli_db), "--sample", "20000", "--seed", "3", "--json", *flags)
        for answer in (found, cli):
            answer.pop("elapsedMs")
        assert found == cli, filters
        assert found["positions"] > 0


def test_the_database_report_on_the_cluster_is_the_clis(spark, cli_db, tmp_path):
    from tabiya.spark import report

    session, _ = spark
    cli_db, _ = cli_db
    # A copy with the lichess opening table, so that openings are named and counted too.
    db = tmp_path / "named"
    run_cli("checkpoint", "--db", str(cli_db), str(db))
    tables = DATASETS / "openings" / "lichess-org+chess-openings"
    run_cli("openings", "import", "--db", str(db), *(str(tables / f"{name}.tsv") for name in "abcde"))
    for plies, top in ((10, 30), (14, 200)):
        found = report(session, str(db), plies=plies, top=top)
        cli = cli_json("report", "database", "--db", str(db), "--format", "json",
                       "--plies", str(plies), "--top", str(top))
        assert found == cli, (plies, top)
        assert found["openingTable"] and len(found["openings"]) > 20
        assert found["endgames"] and found["positionsByPly"][plies - 1]["positions"]
    assert found["totals"]["games"] > 30_000
    # The Chess960 games' report: theirs alone, the standard games only counted.
    found = report(session, str(db), variant="chess960")
    cli = cli_json("report", "database", "--db", str(db), "--format", "json", "--variant", "chess960")
    assert found == cli
    assert found["results"]["games"] == 200 and found["otherVariantGames"] > 30_000, found["results"]
    found = report(session, str(db), variant="racingKings")
    cli = cli_json("report", "database", "--db", str(db), "--format", "json", "--variant", "racingKings")
    assert found == cli
    assert found["results"]["games"] == 30 and found["positionsByPly"][0]["positions"], found["results"]
    found = report(session, str(db), variant="antichess")
    cli = cli_json("report", "database", "--db", str(db), "--format", "json", "--variant", "antichess")
    assert found == cli
    assert found["results"]["games"] == 30 and found["positionsByPly"][0]["positions"], found["results"]
    # Options the report cannot answer are refused before any task runs.
    from tabiya.errors import TabiyaError

    with pytest.raises(TabiyaError, match="20 plies"):
        report(session, str(db), plies=21)


def test_a_month_appended_on_the_cluster_is_what_two_ingests_give(spark, collection, tmp_path):
    session, _ = spark
    cli_db = tmp_path / "cli"
    for path in collection:
        run_cli("ingest", "--db", str(cli_db), str(path))
    build(session, collection[:1], tmp_path / "db")
    summary = build(session, collection[1:], tmp_path / "db")
    assert summary["duplicates"] >= 2_000
    assert digests(tmp_path / "db") == digests(cli_db)


def test_builds_skipping_twins_hold_the_bytes_of_tabiya_ingest_skipping_them(spark, collection, tmp_path):
    """Twins (the same game from another source: here 1,500 of the collection's games again
    under another round, in a file of their own, beside the collection's own twins), as
    ``tabiya ingest --skip-twins`` finds them: a build with a longer prefix, then an append whose
    twins of stored games the prepare tasks find."""
    import re

    session, _ = spark
    games = collection[0].read_bytes().split(b"\n[Event ")[:15_000:10]
    copies = [re.sub(rb'\[Round "([^"]*)"\]', rb'[Round "\1 copy"]', game, count=1) for game in games]
    twins = tmp_path / "twins.pgn"
    twins.write_bytes(b"\n".join(copy if copy.startswith(b"[Event ") else b"[Event " + copy
                                 for copy, game in zip(copies, games) if copy != game))
    inputs = [*collection, twins]
    cli = cli_json("ingest", "--db", str(tmp_path / "cli-30"), "--skip-twins", "--min-prefix", "30", "--json",
                   *map(str, inputs))
    summary = build(session, inputs, tmp_path / "db-30", skip_twins=True, min_prefix=30)
    assert cli["twins"] > 1_400, cli
    for count in ("gamesRead", "indexed", "duplicates", "twins", "skipped"):
        assert summary[count] == cli[count], count
    assert digests(tmp_path / "db-30") == digests(tmp_path / "cli-30")
    # The collection, then the copies appended.
    for paths in (collection, [twins]):
        cli = cli_json("ingest", "--db", str(tmp_path / "cli"), "--skip-twins", "--json", *map(str, paths))
        summary = build(session, paths, tmp_path / "db", skip_twins=True)
        for count in ("indexed", "duplicates", "twins"):
            assert summary[count] == cli[count], (paths, count)
    assert cli["twins"] > 1_400, cli
    assert digests(tmp_path / "db") == digests(tmp_path / "cli")
    with pytest.raises(ValueError, match="min_prefix"):
        build(session, collection, tmp_path / "refused", skip_twins=True, min_prefix=9)
    with pytest.raises(ValueError, match="needs skip_twins"):
        build(session, collection, tmp_path / "refused", min_prefix=30)
    assert not (tmp_path / "refused").exists()


def test_a_worker_killed_during_the_shuffle_leaves_the_same_bytes(spark, collection, cli_db, tmp_path):
    session, cluster = spark
    cli_db, _ = cli_db
    db = tmp_path / "db"
    work = tmp_path / "work"
    outcome = {}

    def run():
        try:
            outcome["summary"] = build(session, collection, db, work=str(work))
        except BaseException as err:  # reported below
            outcome["error"] = err

    thread = threading.Thread(target=run)
    thread.start()
    # A range task makes its directory as it reads its first part of a batch's occurrences,
    # then writes its files: kill a worker as the first range's directory appears.
    deadline = time.monotonic() + 300
    while not any((work / "runs").glob("range-*")) and thread.is_alive():
        assert time.monotonic() < deadline, "no range task started"
        time.sleep(0.02)
    killed_during_build = thread.is_alive()
    cluster.kill(cluster.workers[1])
    thread.join()
    assert "error" not in outcome, outcome.get("error")
    assert killed_during_build
    # The driver and the one executor left.
    assert session.sparkContext._jsc.sc().getExecutorMemoryStatus().size() == 2
    assert digests(db) == digests(cli_db)


def test_one_worker_builds_the_same_bytes(spark, collection, cli_db, tmp_path):
    session, cluster = spark
    cli_db, _ = cli_db
    assert cluster.workers[1].poll() is not None, "the previous test killed the second worker"
    build(session, collection, tmp_path / "db")
    assert digests(tmp_path / "db") == digests(cli_db)
