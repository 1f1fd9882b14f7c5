"""Writes a PGN collection with an engine-style comment of about 200 bytes after every move (an
evaluation, depth, clock, node count and a principal variation, as engine collections carry),
for measuring ingest on comment-heavy input (tools/bench/ingest.sh on its output).

Usage:
    zstd -dc ../shared/datasets/players.pgn.zst | python3 tools/data/commented-pgn.py [--games N] \
        | zstd -T0 -3 -q -o target/players-commented.pgn.zst

Reads PGN on standard input, writes it on standard output: tag lines as they are, and lines
with (or inside) comments or variations already; on the other movetext lines, a comment after
each move (move numbers and
results are left bare). The comments (65,536 distinct ones, dealt in turn) come from a
fixed-seed generator, so the output is the same on every run.
"""

from __future__ import annotations

import argparse
import random
import re
import sys

RESULTS = {"1-0", "0-1", "1/2-1/2", "*"}
MOVE_NUMBER = re.compile(r"^\d+\.(\.\.)?$")
FILES, RANKS = "abcdefgh", "12345678"


def comment(rng: random.Random) -> str:
    """One comment of about 200 bytes."""
    pv = " ".join(rng.choice(FILES) + rng.choice(RANKS) + rng.choice(FILES) + rng.choice(RANKS) for _ in range(12))
    return (
        f"{{ [%eval {rng.uniform(-3, 3):.2f}] [%clk 0:{rng.randrange(60):02d}:{rng.randrange(60):02d}] "
        f"d={rng.randrange(18, 40)} sd={rng.randrange(30, 60)} mt={rng.randrange(100, 90000)} "
        f"tl={rng.randrange(1000, 900000)} s={rng.randrange(10**5, 10**7)} n={rng.randrange(10**6, 10**9)} "
        f"tb=0 pv={pv} }}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, help="stop after this many games")
    args = parser.parse_args()
    rng = random.Random(1)
    # A pool of comments, dealt in turn: drawing each one's numbers would take most of the run.
    pool = [comment(rng) for _ in range(1 << 16)]
    dealt = 0
    out = sys.stdout
    games = 0
    # Inside a comment, and variations open, at the end of the lines passed through so far.
    in_comment, depth = False, 0
    for line in sys.stdin:
        if not in_comment and depth == 0 and line.startswith("[Event "):
            games += 1
            if args.games is not None and games > args.games:
                break
        if in_comment or depth > 0 or line.startswith("[") or not line.strip() or any(c in line for c in "{};()%"):
            out.write(line)
            if not line.startswith("[") and not line.startswith("%"):
                for ch in line.split(";", 1)[0] if not in_comment else line:
                    if in_comment:
                        in_comment = ch != "}"
                    elif ch == "{":
                        in_comment = True
                    elif ch in "()":
                        depth = max(0, depth + (1 if ch == "(" else -1))
            continue
        words = []
        for token in line.split():
            words.append(token)
            if not MOVE_NUMBER.match(token) and token not in RESULTS:
                words.append(pool[dealt & 0xFFFF])
                dealt += 1
        out.write(" ".join(words) + "\n")


if __name__ == "__main__":
    main()
