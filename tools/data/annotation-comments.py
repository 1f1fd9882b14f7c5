"""Writes the comments python-chess writes for evaluations and clocks, with what python-chess
reads back from each: the independent check of tabiya's annotation reader
(`src/input/annotations.rs`, test `python_chess_reads_what_tabiya_reads`).

Usage (python-chess installed):
    python3 tools/data/annotation-comments.py > tests/data/annotation-comments.tsv

One line a comment, tab-separated: the comment, then python-chess's readings: the evaluation
from White's view (`cp N`, `mate N` or `-`), the clock and the move's time in seconds (or `-`).
A fixed seed: the same file on every run.
"""

from __future__ import annotations

import random

import chess
import chess.engine
import chess.pgn


def reading(comment: str) -> list[str]:
    node = chess.pgn.Game()
    node.comment = comment
    score = node.eval()
    if score is None:
        value = "-"
    elif score.white().is_mate():
        value = f"mate {score.white().mate()}"
    else:
        value = f"cp {score.white().score()}"
    clock, emt = node.clock(), node.emt()
    return [value, "-" if clock is None else f"{clock:.2f}", "-" if emt is None else f"{emt:.2f}"]


def main() -> None:
    rng = random.Random(57)
    for _ in range(1000):
        node = chess.pgn.Game()
        if rng.random() < 0.8:
            if rng.random() < 0.15:
                score = chess.engine.Mate(rng.choice([-1, 1]) * rng.randint(1, 40))
            else:
                score = chess.engine.Cp(rng.randint(-3000, 3000))
            node.set_eval(chess.engine.PovScore(score, rng.choice([chess.WHITE, chess.BLACK])))
        if rng.random() < 0.8:
            node.set_clock(rng.randint(0, 3 * 3600 * 10) / 10)
        if rng.random() < 0.3:
            node.set_emt(rng.randint(0, 600 * 10) / 10)
        if rng.random() < 0.3:
            node.comment = f"{rng.choice(['Best.', 'Blunder!', 'Only move'])} {node.comment}"
        print("\t".join([node.comment, *reading(node.comment)]))


if __name__ == "__main__":
    main()
