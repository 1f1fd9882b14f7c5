"""Sequence queries (`seq(A, B, N)`) against an independent replay of every game with
python-chess: the games each sequence matches, and the ply of each step, through the binding,
the command line and the HTTP API's error."""

from __future__ import annotations

import chess
import chess.pgn
import pytest

import tabiya
from conftest import cli_json, generate_games, run_cli

FRENCH = "e4 e6 d4 d5 Nc3 Nf6 e5 Nfd7 Nf3 c5 Bd3 Nc6 O-O Be7 Re1 O-O".split()
# Greek gifts (Bxh7+ then Ng5+ within 3 plies) and near misses (Ng5 too late or not a check).
CRAFTED = [
    FRENCH + "Bxh7+ Kxh7 Ng5+ Kg8 Qh5 Bxg5 Bxg5".split(),
    FRENCH + "Bxh7+ Kxh7 Ng5+ Kg6 Qg4 f5 Qg3".split(),
    FRENCH + "Bxh7+ Kxh7 Qd3+ Kg8 Ng5 Bxg5".split(),
    FRENCH + "Bxh7+ Kh8 Ng5 g6 Bxg6+ Kg7".split(),
    FRENCH + "a3 a6 Bxh7+ Kxh7 Ng5+ Kg8".split(),
]


def white_on(board: chess.Board, piece: int, square: int) -> bool:
    found = board.piece_at(square)
    return found is not None and found.piece_type == piece and found.color == chess.WHITE


def queens(board: chess.Board, color: chess.Color) -> int:
    return len(board.pieces(chess.QUEEN, color))


def minor_and_rooks(board: chess.Board) -> int:
    return sum(len(board.pieces(p, c)) for p in (chess.ROOK, chess.BISHOP, chess.KNIGHT) for c in chess.COLORS)


# (expression, [(predicate, within)]): the same steps written with python-chess.
SEQUENCES = [
    ("seq(Bh7 and check and btm, Ng5 and check and btm, 3)", [
        (lambda b: white_on(b, chess.BISHOP, chess.H7) and b.is_check() and b.turn == chess.BLACK, None),
        (lambda b: white_on(b, chess.KNIGHT, chess.G5) and b.is_check() and b.turn == chess.BLACK, 3),
    ]),
    ("seq(Pa-h7, count(Q) >= 2)", [
        (lambda b: any(b.piece_at(s) == chess.Piece(chess.PAWN, chess.WHITE) for s in chess.SquareSet(chess.BB_RANK_7)), None),
        (lambda b: queens(b, chess.WHITE) >= 2, None),
    ]),
    ("seq(check, seq(check, check, 2), 2)", [
        (lambda b: b.is_check(), None),
        (lambda b: b.is_check(), 2),
        (lambda b: b.is_check(), 2),
    ]),
    ("seq(count([Qq]) >= 1 and count([RrBbNn]) = 0, count([Qq]) = 0)", [
        (lambda b: queens(b, chess.WHITE) + queens(b, chess.BLACK) >= 1 and minor_and_rooks(b) == 0, None),
        (lambda b: queens(b, chess.WHITE) + queens(b, chess.BLACK) == 0, None),
    ]),
]


def find(boards: list, steps: list):
    """The plies of the steps as tabiya defines them: the earliest first step that starts a
    whole match, then the earliest of each next step (a plain search over every choice)."""
    def rest(s: int, after: int):
        predicate, within = steps[s]
        end = len(boards) if within is None else min(len(boards), after + within + 1)
        for ply in range(after + 1, end):
            if predicate(boards[ply]):
                tail = [] if s + 1 == len(steps) else rest(s + 1, ply)
                if tail is not None:
                    return [ply] + tail
        return None
    return rest(0, -1) if steps[0][1] is None else None


@pytest.fixture(scope="module")
def collection(tmp_path_factory):
    """(database, {round: python-chess boards}) of crafted Greek gifts and 600 random games."""
    folder = tmp_path_factory.mktemp("sequences")
    generated = generate_games(folder / "random.pgn", 600, seed=33)
    games = []
    for sans in CRAFTED:
        board = chess.Board()
        for san in sans:
            board.push_san(san)
        games.append(chess.pgn.Game.from_board(board))
    games += generated
    pgn = folder / "games.pgn"
    boards = {}
    with open(pgn, "w", encoding="utf-8") as out:
        for number, game in enumerate(games, 1):
            game.headers["Round"] = str(number)
            game.headers["White"], game.headers["Black"] = f"White {number}", f"Black {number}"
            print(game, file=out, end="\n\n")
            board = game.board()
            line = [board.copy()]
            for move in game.mainline_moves():
                board.push(move)
                line.append(board.copy())
            boards[str(number)] = line
    db = folder / "db"
    run_cli("ingest", "--db", str(db), str(pgn))
    return db, boards


@pytest.mark.parametrize("expression,steps", SEQUENCES, ids=[s[0] for s in SEQUENCES])
def test_sequences_equal_a_python_chess_replay(collection, expression, steps):
    db, boards = collection
    expected = {number: plies for number, line in boards.items() if (plies := find(line, steps)) is not None}
    with tabiya.Database(db) as database:
        games = list(database.games(pattern=expression))
    got = {game["round"]: game["steps"] for game in games}
    assert got == expected
    # Every game is replayed by the independent search: the answer is neither empty nor all.
    if expression.startswith("seq(count"):
        return
    assert 0 < len(expected) < len(boards), expression
    cli = cli_json("games", "--db", str(db), "--pattern", expression, "--limit", "100000", "--json")
    assert {game["round"]: game["steps"] for game in cli["games"]} == expected
    assert cli["total"] == len(expected)


def test_greek_gifts_are_the_crafted_ones(collection):
    db, _ = collection
    with tabiya.Database(db) as database:
        games = list(database.games(pattern=SEQUENCES[0][0]))
    assert sorted((g["round"], g["steps"]) for g in games) == [("1", [17, 19]), ("2", [17, 19]), ("5", [19, 21])]


@pytest.mark.parametrize("expression,message", [
    ("seq(check, mate, 0)", "0 plies later is never later"),
    ("seq(seq(check, mate), mate)", "first step is a position pattern"),
    ("check and seq(check, mate)", "sequence of positions in one game"),
    ("seq(check, mate) and check", "a sequence is a whole pattern"),
    ("seq(check)", "expected ','"),
])
def test_malformed_sequences_are_one_line_errors(collection, expression, message):
    db, _ = collection
    done = run_cli("games", "--db", str(db), "--pattern", expression, check=False)
    assert done.returncode == 1 and message in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr
    with tabiya.Database(db) as database, pytest.raises(ValueError, match="pattern error"):
        database.games(pattern=expression)


def test_search_says_a_sequence_is_about_games(collection):
    db, _ = collection
    done = run_cli("search", "--db", str(db), "--pattern", "seq(check, mate)", check=False)
    assert done.returncode == 1 and "games --pattern" in done.stderr, done.stderr
