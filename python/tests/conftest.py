"""Fixtures: the tabiya command line (the answers the binding must equal), a database of the
project's sample games and one of a generated collection, each built by `tabiya ingest`."""

from __future__ import annotations

import json
import os
import random
import subprocess
from pathlib import Path

import chess
import chess.pgn
import pytest

ROOT = Path(__file__).resolve().parents[2]
# The shared datasets (players.pgn.zst, opening tables) the Spark and memory tests read.
DATASETS = Path(os.environ.get("TABIYA_DATASETS", ROOT.parent / "shared" / "datasets"))
PLAYERS = ["Carlsen, Magnus", "Caruana, Fabiano", "Nakamura, Hikaru", "Ding, Liren", "Nepomniachtchi, Ian",
           "Firouzja, Alireza", "So, Wesley", "Giri, Anish", "Müller, Jürgen", "Østergaard, Søren"]
OPENINGS = ["e2e4 c7c5 g1f3", "e2e4 e7e5 g1f3 b8c6", "d2d4 g8f6 c2c4 e7e6", "d2d4 d7d5 c2c4", "c2c4 e7e5",
            "g1f3 d7d5", "e2e4 c7c6 d2d4 d7d5", "e2e4 e7e6 d2d4 d7d5"]


def cli_path() -> Path:
    path = Path(os.environ.get("TABIYA_BIN", ROOT / "target" / "release" / "tabiya"))
    if not path.exists():
        pytest.fail(f"no tabiya binary at {path}: run `cargo build --release` (or set TABIYA_BIN)")
    return path


def run_cli(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    done = subprocess.run([str(cli_path()), *args], capture_output=True, text=True)
    if check and done.returncode != 0:
        pytest.fail(f"tabiya {' '.join(args)} exited {done.returncode}: {done.stderr.strip()}")
    return done


def cli_json(*args: str):
    return json.loads(run_cli(*args).stdout)


def generate_games(path: Path, count: int, seed: int) -> list:
    """Random games from a few openings (so that positions repeat and transpose), with
    players, ratings, dates and results; some promote, some end in mate."""
    rng = random.Random(seed)
    games = []
    with open(path, "w", encoding="utf-8") as out:
        for number in range(count):
            board = chess.Board()
            for uci in rng.choice(OPENINGS).split():
                board.push_uci(uci)
            for _ in range(rng.randint(0, 110)):
                moves = list(board.legal_moves)
                if not moves:
                    break
                promotions = [m for m in moves if m.promotion]
                captures = [m for m in moves if board.is_capture(m)]
                pick = promotions or (captures if captures and rng.random() < 0.4 else moves)
                board.push(rng.choice(pick))
            game = chess.pgn.Game.from_board(board)
            white, black = rng.sample(PLAYERS, 2)
            outcome = board.outcome()
            result = outcome.result() if outcome else rng.choice(["1-0", "0-1", "1/2-1/2", "*"])
            game.headers.update({
                "Event": rng.choice(["Tata Steel", "Norway Chess", "Club"]), "Site": "Test", "Round": str(number % 13 + 1),
                "White": white, "Black": black, "Result": result,
                "Date": f"{rng.randint(2015, 2024)}.{rng.randint(1, 12):02d}.{rng.randint(1, 28):02d}",
                "WhiteElo": str(rng.randrange(2400, 2900, 7)), "BlackElo": str(rng.randrange(2400, 2900, 7)),
                "TimeControl": rng.choice(["5400+30", "180+2", "600+5"]),
            })
            print(game, file=out, end="\n\n")
            games.append(game)
    return games


@pytest.fixture(scope="session")
def cli() -> Path:
    return cli_path()


@pytest.fixture(scope="session")
def sample_db(tmp_path_factory) -> Path:
    db = tmp_path_factory.mktemp("sample") / "db"
    run_cli("ingest", "--db", str(db), str(ROOT / "datasets" / "sample.pgn"))
    return db


@pytest.fixture(scope="session")
def generated(tmp_path_factory):
    """(pgn path, python-chess games, database) of 600 generated games."""
    folder = tmp_path_factory.mktemp("generated")
    pgn = folder / "games.pgn"
    games = generate_games(pgn, 600, seed=20261126)
    db = folder / "db"
    run_cli("ingest", "--db", str(db), str(pgn))
    return pgn, games, db
