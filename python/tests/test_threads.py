"""Calls into the database release the GIL: Python threads run while a scan runs, and a
lookup on one thread overlaps a scan on another."""

from __future__ import annotations

import threading
import time

import tabiya


# Move generation and 60 pins on every position: one call of about 0.1 s on the test database.
HEAVY = " or ".join(["stalemate", "mate"] + [f"pin({a}, {b}, {c})" for a in "BRQ" for b in "nbrqp" for c in "kq"]
                    + [f"pin({a}, {b}, {c})" for a in "brq" for b in "NBRQP" for c in "KQ"])


def scan(db, spans, calls=6):
    """Times each call alone: inside it only Rust runs, so a thread that holds the GIL
    through it shuts every other Python thread out."""
    for _ in range(calls):
        started = time.perf_counter()
        db.search_pattern(HEAVY, limit=10)
        spans.append((started, time.perf_counter()))


def spin_while(work, calls: int):
    """Ticks of this thread while another thread makes `calls` timed calls of `work`, and the
    spans of those calls."""
    spans, ticks = [], []

    def run():
        for _ in range(calls):
            started = time.perf_counter()
            work()
            spans.append((started, time.perf_counter()))

    worker = threading.Thread(target=run)
    worker.start()
    while worker.is_alive():
        ticks.append(time.perf_counter())
    worker.join()
    return spans, ticks


def test_python_runs_while_a_scan_runs(generated):
    db = tabiya.Database(generated[2])
    pgn = generated[0].read_bytes() * 8
    for name, work in [("pattern search", lambda: db.search_pattern(HEAVY, limit=10)),
                       ("parse_games", lambda: tabiya.parse_games(pgn)),
                       ("positions", lambda: db._db.position_scan().read(0, 1000, True)),
                       ("opening report", lambda: [db.report("opening", depth=12, lines=12) for _ in range(3)])]:
        spans, ticks = spin_while(work, 6)
        # With the GIL held through a call, this thread could not run inside it (beyond the
        # interpreter's switch intervals at its edges): count the ticks in each call's middle half.
        middles = [(a + (b - a) / 4, b - (b - a) / 4) for a, b in spans]
        inside = [t for t in ticks if any(a < t < b for a, b in middles)]
        assert min(b - a for a, b in spans) > 0.02, (name, "calls too short to tell", spans)
        # About one tick a microsecond or two when this thread runs; none when it cannot.
        assert len(inside) > 2000, (name, len(inside), spans)


def test_lookups_on_one_thread_run_inside_a_scan_on_another(generated):
    """Explorer lookups on this thread start and end inside the other thread's scans:
    impossible while the scan holds the GIL. (Two scans share the one rayon pool, so a second
    scan would wait for workers, not for the GIL; a lookup runs on its own thread.)"""
    db = tabiya.Database(generated[2])
    long_spans, short_spans = [], []
    worker = threading.Thread(target=scan, args=(db, long_spans))
    worker.start()
    while worker.is_alive():
        started = time.perf_counter()
        db.query(moves="1. e4 c5 2. Nf3", max_moves=20)
        short_spans.append((started, time.perf_counter()))
    worker.join()
    # In each scan's middle half: at its edges the scan's thread runs Python, and the
    # interpreter hands the GIL over every few milliseconds.
    middles = [(a + (b - a) / 4, b - (b - a) / 4) for a, b in long_spans]
    nested = [s for s in short_spans if any(a < s[0] and s[1] < b for a, b in middles)]
    assert len(nested) >= 50, (len(nested), len(short_spans))
