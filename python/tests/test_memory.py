"""The memory budget from Python (`tabiya.set_memory_budget`, `TABIYA_MEMORY`), as the command
line's `--memory`: its errors, and the players collection ingested, scanned and reported under an
address-space limit of the budget plus the overhead the guide states, resident within the budget
plus 128 MiB. The budget is the process's: each case runs a Python process of its own."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import DATASETS

MIB = 1 << 20


def run_python(script: str, *, env: dict | None = None, address_space: int | None = None,
               timeout: float = 600) -> subprocess.CompletedProcess:
    """`script` in a new interpreter (this venv's), under `address_space` bytes if given (set by
    the script itself before it imports tabiya: no code runs between fork and exec)."""
    script = textwrap.dedent(script)
    if address_space is not None:
        script = f"import resource\nresource.setrlimit(resource.RLIMIT_AS, ({address_space}, {address_space}))\n{script}"
    environment = {key: value for key, value in os.environ.items() if key != "TABIYA_MEMORY"}
    environment.update(env or {})
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=environment,
                          timeout=timeout)


def test_a_budget_is_checked_and_set_once_before_a_database_opens(tmp_path: Path) -> None:
    done = run_python(f"""
        import tabiya
        from tabiya import InvalidInput
        assert tabiya.memory_budget() is None
        def refused(size, words):
            try:
                tabiya.set_memory_budget(size)
            except InvalidInput as err:
                assert words in str(err), (size, str(err))
            else:
                raise AssertionError(f"{{size!r}} was accepted")
        refused("100M", "160 MiB at the least")
        refused("lots", "is not a size")
        refused("+256M", "is not a size")
        refused(5000, "a memory budget of 5000 bytes cannot be met")
        refused(-5, "0 or more and below 2^64")
        refused(1 << 70, "0 or more and below 2^64")
        refused(1 << 200, "0 or more and below 2^64")
        for wrong in (True, 2.5, ["256M"]):
            try:
                tabiya.set_memory_budget(wrong)
            except TypeError as err:
                assert "a number of bytes (an int)" in str(err), err
            else:
                raise AssertionError(f"{{wrong!r}} was accepted")
        assert tabiya.memory_budget() is None
        tabiya.set_memory_budget("256M")
        tabiya.set_memory_budget(256 << 20)  # the same budget again: no change
        refused("512M", "set already, to 256 MiB")
        assert tabiya.memory_budget() == 256 << 20
        with tabiya.Database({str(tmp_path / "db")!r}, read_only=False) as db:
            db.ingest([])
        tabiya.set_memory_budget("256M")
        print("ok")
    """)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


def test_a_budget_comes_after_no_database(tmp_path: Path) -> None:
    done = run_python(f"""
        import tabiya
        try:
            tabiya.Database({str(tmp_path / "missing")!r})
        except tabiya.DatabaseNotFound:
            pass
        # A database that failed to open took no sizes: the budget may still be set.
        tabiya.set_memory_budget("300M")
        tabiya.set_memory_budget("300M")
        print(tabiya.memory_budget())
    """)
    assert done.returncode == 0 and done.stdout.strip() == str(300 * MIB), done.stderr
    done = run_python(f"""
        import tabiya
        with tabiya.Database({str(tmp_path / "db")!r}, read_only=False):
            pass
        try:
            tabiya.set_memory_budget("256M")
        except tabiya.InvalidInput as err:
            print(err)
        assert tabiya.memory_budget() is None
    """)
    assert done.returncode == 0, done.stderr
    assert "before the first database is opened" in done.stdout


def test_the_variable_sets_the_budget_at_import() -> None:
    done = run_python("import tabiya; print(tabiya.memory_budget())", env={"TABIYA_MEMORY": "300M"})
    assert done.returncode == 0 and done.stdout.strip() == str(300 * MIB), done.stderr
    done = run_python("import tabiya; tabiya.set_memory_budget('512M')", env={"TABIYA_MEMORY": "300M"})
    assert "set already, to 300 MiB: it is the process's, set once (by TABIYA_MEMORY)" in done.stderr, done.stderr
    done = run_python("import tabiya; tabiya.set_memory_budget('100M')", env={"TABIYA_MEMORY": "300M"})
    assert "cannot be met: tabiya needs 160 MiB at the least\n" in done.stderr, done.stderr
    done = run_python("import tabiya", env={"TABIYA_MEMORY": "3 apples"})
    assert done.returncode != 0
    assert "InvalidInput: TABIYA_MEMORY: \"3 apples\" is not a size" in done.stderr, done.stderr


@pytest.mark.parametrize("size", [256])
def test_players_ingested_scanned_and_reported_within_the_budget(tmp_path: Path, size: int) -> None:
    """The guide's rule: resident memory within SIZE + 128 MiB, under an address-space limit of
    SIZE + 384 MiB (the interpreter, the extension and pyarrow's libraries mapped within it)."""
    source = DATASETS / "players.pgn.zst"
    if not source.exists():
        pytest.fail(f"the memory test reads {source} (set TABIYA_DATASETS)")
    done = run_python(f"""
        import itertools, tabiya
        tabiya.set_memory_budget("{size}M")
        def resident_peak():
            for line in open("/proc/self/status"):
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) << 10
        path = {str(tmp_path / "db")!r}
        with tabiya.Database(path, read_only=False) as db:
            ingest = db.ingest({str(source)!r})
        print("indexed", ingest["indexed"], "peak", resident_peak())
        with tabiya.Database(path) as db:
            # The first batches of a whole-database listing (the largest part among them), one row
            # at a time: a batch's rows were once all made Python tuples at once (928 MB).
            rows = sum(1 for _ in itertools.islice(db.positions(), 4_000_000))
            hits = db.search_pattern("pin(B, n, k)", limit=50)["positions"]
            endings = db.search_material("KRPvKR")["positions"]
            report = db.report("database")
            games = sum(1 for _ in db.games(moves="1. e4", sort="date"))
        print("rows", rows, "hits", hits, "endings", endings, "games", games, "peak", resident_peak())
        assert report["totals"]["games"] == ingest["indexed"], report["totals"]
    """, address_space=(size + 384) * MIB, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    ingest, scans = done.stdout.split("\n")[:2]
    assert ingest.startswith("indexed 327605 "), ingest
    numbers = scans.split()
    assert numbers[1:8:2] == ["4000000", "47945", "23590", "138252"], scans
    for line in (ingest, scans):
        assert int(line.split()[-1]) <= (size + 128) * MIB, f"{line}: above {size} + 128 MiB"
