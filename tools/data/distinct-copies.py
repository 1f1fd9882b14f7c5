"""Writes a copy of a PGN collection whose games are other games than the original's: each
game's Round tag gets a suffix (`-copy2`, say; a Round tag is added where there is none), which
changes its fingerprint and nothing else of what is indexed, so that a database of several
copies holds several times the games and occurrences of one. For measuring how a build grows
with its input (tools/bench/spark.py on a folder of copies 1 to N).

Usage:
    zstd -dc ../shared/datasets/players.pgn.zst | python3 tools/data/distinct-copies.py 2 \
        | zstd -T0 -3 -q -o copies/players-2.pgn.zst

Reads PGN on standard input, writes it on standard output, line by line: a `[Round "…"]`
line becomes `[Round "…-copyN"]`; a game without one gets `[Round "-copyN"]` after its last
tag line. Copy 1 is the input as it is.
"""

from __future__ import annotations

import argparse
import sys


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("copy", type=int, help="the copy's number, from 1 (1: the input as it is)")
    args = parser.parse_args()
    if args.copy < 1:
        parser.error("copies are numbered from 1")
    source, out = sys.stdin.buffer, sys.stdout.buffer
    if args.copy == 1:
        for line in source:
            out.write(line)
        return
    suffix = f"-copy{args.copy}".encode()
    in_tags, has_round = False, False
    for line in source:
        is_tag = line.startswith(b"[")
        if is_tag and not in_tags:
            in_tags, has_round = True, False
        if in_tags and not is_tag:
            # The game's tag section ends: a Round tag where it had none.
            if not has_round:
                out.write(b'[Round "' + suffix + b'"]\n')
            in_tags = False
        if is_tag and line.startswith(b"[Round "):
            has_round = True
            end = line.rfind(b'"')
            line = line[:end] + suffix + line[end:] if end > len(b"[Round ") else line
        out.write(line)
    if in_tags and not has_round:
        out.write(b'[Round "' + suffix + b'"]\n')


if __name__ == "__main__":
    main()
