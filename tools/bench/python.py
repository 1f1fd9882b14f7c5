"""The Python package's costs, side by side in one process (docs/PERFORMANCE.md):

1. Database.query through Python in a loop, against the same lookup timed in Rust in the same
   process (alone, and with its JSON written): the binding's overhead per call.
2. Positions to Arrow per second (Database.positions().to_arrow() over the whole database), against
   the same scan listing keys and counts in Rust only.

Usage: python tools/bench/python.py DB [ROUNDS]   (tabiya installed: pip install ./python[arrow])
"""

from __future__ import annotations

import statistics
import sys
import time

import tabiya

POSITIONS = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2",
    "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
    "rnbqkb1r/pp2pppp/3p1n2/8/3NP3/8/PPP2PPP/RNBQKB1R w KQkq - 1 5",
    "r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/3P1N2/PPP2PPP/RNBQK2R w KQkq - 1 5",
]


def per_call(function, rounds: int) -> float:
    started = time.perf_counter()
    for _ in range(rounds):
        function()
    return (time.perf_counter() - started) / rounds


def main() -> None:
    db = tabiya.Database(sys.argv[1])
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    blocks = 40
    print(f"database {sys.argv[1]}: {db.stats()['games']} games; per position {blocks} alternating blocks of "
          f"{rounds} calls each way (the fastest block of each: the least disturbed by other work)")
    print(f"{'position':<9} {'rust lookup':>12} {'+ json':>10} {'python':>10} {'overhead':>10} {'over +json':>11}")
    overheads = []
    for number, fen in enumerate(POSITIONS):
        db.query(fen)
        samples = []
        for _ in range(blocks):
            alone, with_json = db._db._time_lookup(fen, rounds)
            python = per_call(lambda: db.query(fen), rounds)
            samples.append((alone, with_json, python))
        alone, with_json, python = (min(s[i] for s in samples) for i in range(3))
        overhead = python - alone
        overheads.append(overhead)
        print(f"{number:<9} {alone * 1e6:>10.1f}us {with_json * 1e6:>8.1f}us {python * 1e6:>8.1f}us "
              f"{overhead * 1e6:>8.1f}us {(python - with_json) * 1e6:>9.1f}us")
    print(f"binding overhead per call on top of the lookup: median {statistics.median(overheads) * 1e6:.1f} us, "
          f"max {max(overheads) * 1e6:.1f} us")

    try:
        import pyarrow  # noqa: F401
    except ImportError:
        print("pyarrow not installed: positions to Arrow not measured")
        return
    times, rows = [], 0
    for _ in range(3):
        started = time.perf_counter()
        table = db.positions().to_arrow()
        times.append(time.perf_counter() - started)
        rows = table.num_rows
    started = time.perf_counter()
    keys_only = db.positions().to_arrow(fen=False).num_rows
    without_fen = time.perf_counter() - started
    scan = db._db.position_scan()
    rust = []
    for _ in range(3):
        started = time.perf_counter()
        for first in range(0, len(scan), 8):
            scan.read(first, 8)
        rust.append(time.perf_counter() - started)
    best, best_rust = min(times), min(rust)
    print(f"positions to Arrow: {rows} rows in {best:.2f} s (best of 3): {rows / best / 1e6:.2f} M rows/s; "
          f"the columns alone (Rust scan, FEN and key per row): {best_rust:.2f} s; Arrow assembly {best / best_rust:.3f}x")
    print(f"without the FEN column: {keys_only} rows in {without_fen:.2f} s: {keys_only / without_fen / 1e6:.2f} M rows/s")


if __name__ == "__main__":
    main()
