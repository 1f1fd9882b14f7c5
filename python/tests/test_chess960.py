"""Chess960 games against python-chess, an independent oracle: random legal games from random
start positions (python-chess's Chess960 boards, castling on both wings whenever it may, half the
time), written by python-chess's PGN exporter, ingested through the binding; every position
python-chess's replay reaches answers with its games, results and next moves (UCI as lichess
writes Chess960 castling: the king takes its rook) under ``variant="chess960"``, and the
standard start position counts no Chess960 game."""

from __future__ import annotations

import random
from collections import defaultdict

import chess
import chess.pgn
import pytest

import tabiya

RESULTS = ["1-0", "1/2-1/2", "0-1"]


def random_games(count: int, seed: int) -> list:
    rng = random.Random(seed)
    games = []
    for index in range(count):
        number = 518 if index % 10 == 0 else rng.randrange(960)
        board = chess.Board.from_chess960_pos(number)
        game = chess.pgn.Game()
        game.setup(board)
        game.headers["Variant"] = "Chess960"
        game.headers["Round"] = str(index + 1)
        game.headers["Result"] = rng.choice(RESULTS)
        node = game
        for _ in range(rng.randrange(10, 90)):
            moves = list(board.legal_moves)
            if not moves:
                break
            castles = [m for m in moves if board.is_castling(m)]
            move = rng.choice(castles) if castles and rng.random() < 0.5 else rng.choice(moves)
            node = node.add_variation(move)
            board.push(move)
        games.append(game)
    return games


def naive(games: list, key=lambda board: board.epd(), chess960: bool = True) -> dict:
    """Per position (``key`` of its board; by default the X-FEN, python-chess's EPD): [games,
    white, draws, black] and per next move (UCI, Chess960's castling as the king taking its rook
    when ``chess960``) the same; a game counts once where it stands more than once."""
    index = defaultdict(lambda: ([0, 0, 0, 0], defaultdict(lambda: [0, 0, 0, 0])))
    for game in games:
        result = 1 + RESULTS.index(game.headers["Result"])
        board = game.board()
        seen = defaultdict(set)
        for move in game.mainline_moves():
            seen[key(board)].add(board.uci(move, chess960=chess960))
            board.push(move)
        seen[key(board)]
        for epd, moves in seen.items():
            counts, by_move = index[epd]
            counts[0] += 1
            counts[result] += 1
            for uci in moves:
                by_move[uci][0] += 1
                by_move[uci][result] += 1
    return index


@pytest.fixture(scope="module")
def chess960_db(tmp_path_factory):
    games = random_games(300, 960)
    tmp = tmp_path_factory.mktemp("chess960")
    pgn = tmp / "chess960.pgn"
    pgn.write_text("".join(str(game) + "\n\n" for game in games))
    with tabiya.Database(tmp / "db", read_only=False) as db:
        summary = db.ingest([pgn])
    assert summary["indexed"] == len(games), summary
    return games, tmp / "db"


def test_every_position_answers_as_python_chess_counts(chess960_db):
    games, path = chess960_db
    expected = naive(games)
    castlings = 0
    with tabiya.Database(path) as db:
        for epd, (counts, by_move) in expected.items():
            answer = db.query(epd + " 0 1", variant="chess960", max_moves=256)
            assert [answer["games"], answer["white"], answer["draws"], answer["black"]] == counts, epd
            got = {m["uci"]: [m["games"], m["white"], m["draws"], m["black"]] for m in answer["moves"]}
            assert got == {uci: list(c) for uci, c in by_move.items()}, epd
            castlings += sum(1 for m in answer["moves"] if m["san"].startswith("O-O"))
    assert len(expected) > 10_000
    assert castlings > 100


def test_standard_answers_count_no_chess960_game(chess960_db):
    games, path = chess960_db
    from_518 = sum(1 for game in games if game.board().fen() == chess.STARTING_FEN)
    with tabiya.Database(path) as db:
        assert db.query()["games"] == 0
        assert db.query(variant="chess960")["games"] == from_518
        assert len(list(db.games(variant="chess960"))) == from_518
        with pytest.raises(tabiya.InvalidInput, match="not indexed"):
            db.query(variant="crazyhouse")
    assert tabiya.key(chess.STARTING_FEN) != tabiya.key(chess.STARTING_FEN, variant="chess960")
    shredder = "bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w GEge - 0 1"
    assert tabiya.decode_key(tabiya.key(shredder, variant="chess960")) == "bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w KQkq -"


def test_searches_and_positions_find_what_python_chess_counts(chess960_db):
    """Material and pattern searches and the positions list under ``variant="chess960"``: the
    positions of python-chess's replay with that material, in check, or all of them."""
    games, path = chess960_db
    expected = naive(games)
    boards = {epd: chess.Board(epd + " 0 1", chess960=True) for epd in expected}
    full_armies = {epd for epd, board in boards.items()
                   if all(len(board.pieces(piece, color)) == count
                          for color in chess.COLORS
                          for piece, count in [(chess.QUEEN, 1), (chess.ROOK, 2), (chess.BISHOP, 2),
                                               (chess.KNIGHT, 2)])}
    in_check = {epd for epd, board in boards.items() if board.is_check()}
    assert len(full_armies) > 1000 and len(in_check) > 100

    def found(answer):
        assert answer["positions"] == len(answer["hits"])
        return {hit["key"]: hit["games"] for hit in answer["hits"]}

    def keyed(epds):
        return {tabiya.key(epd + " 0 1", variant="chess960").hex(): expected[epd][0][0] for epd in epds}

    with tabiya.Database(path) as db:
        material = db.search_material("KQRRBBNNP*vKQRRBBNNP*", variant="chess960", limit=10_000)
        assert found(material) == keyed(full_armies)
        check = db.search_pattern("check", variant="chess960", limit=10_000)
        assert found(check) == keyed(in_check)
        assert db.search_pattern("check", limit=10_000)["positions"] == 0, "standard chess: no game"
        rows = {row[1].hex() if isinstance(row[1], bytes) else row[1]: row[2]
                for row in db.positions(variant="chess960")}
        assert rows == keyed(expected)
        assert all(chess.Board(row[0], chess960=True).is_valid() for row in db.positions("KQRRBBNNP*vKQRRBBNNP*",
                                                                                          variant="chess960"))


def test_the_opening_report_counts_chess960_games(chess960_db):
    """The opening report of Chess960's start 518: the games python-chess's replay has there."""
    games, path = chess960_db
    expected = naive(games)
    start = chess.Board().epd()
    with tabiya.Database(path) as db:
        report = db.report("opening", variant="chess960", depth=2)
    overview = report["subsets"][0]["overview"]
    assert [overview["games"], overview["white"], overview["draws"], overview["black"]] == expected[start][0]
    moves = {m["uci"]: m["games"] for m in report["subsets"][0]["moves"]}
    assert moves == {uci: counts[0] for uci, counts in expected[start][1].items()}
