"""Games of lichess's variants on a standard board (King of the Hill, Three-check, Racing Kings, Atomic,
Antichess)
against python-chess, an independent oracle: random legal games on python-chess's variant boards
(checks preferred a third of the time, so that Three-check's counters move), written by its PGN
exporter, ingested through the binding; every position python-chess's replay reaches answers
with its games, results and next moves under its variant, searches find the positions
python-chess finds, and the standard start counts no variant game."""

from __future__ import annotations

import random
from collections import defaultdict

import chess
import chess.pgn
import chess.variant
import pytest

import tabiya
from test_chess960 import RESULTS, naive as chess960_naive

BOARDS = {
    "kingOfTheHill": chess.variant.KingOfTheHillBoard,
    "threeCheck": chess.variant.ThreeCheckBoard,
    "racingKings": chess.variant.RacingKingsBoard,
    "atomic": chess.variant.AtomicBoard,
    "antichess": chess.variant.AntichessBoard,
}


def random_games(per_variant: int, seed: int) -> list:
    rng = random.Random(seed)
    games = []
    for variant, board_type in BOARDS.items():
        for index in range(per_variant):
            board = board_type()
            game = chess.pgn.Game()
            game.setup(board)
            game.headers["Round"] = str(index + 1)
            game.headers["White"] = f"Player, White {index}"
            game.headers["Result"] = rng.choice(RESULTS)
            node = game
            for _ in range(rng.randrange(20, 120)):
                if board.is_game_over():
                    break
                moves = list(board.legal_moves)
                checks = [m for m in moves if board.gives_check(m)]
                move = rng.choice(checks) if checks and rng.random() < 0.33 else rng.choice(moves)
                node = node.add_variation(move)
                board.push(move)
            games.append((variant, game))
    return games


def racing_stalemate():
    """A Racing Kings game whose last position is a stalemate only by its rules: each of
    Black's king steps would discover the bishop's check."""
    board = chess.variant.RacingKingsBoard("b7/1k6/8/8/3K4/8/8/N7 w - - 0 1")
    game = chess.pgn.Game()
    game.setup(board)
    game.headers["Result"] = "1/2-1/2"
    game.add_variation(board.parse_san("Kd5"))
    return "racingKings", game


def naive(games: list) -> dict:
    """Per (variant, python-chess's EPD): [games, white, draws, black] and per next move the
    same (test_chess960's count, keyed by the variant too)."""
    names = {board_type: variant for variant, board_type in BOARDS.items()}
    return chess960_naive([game for _, game in games], key=lambda board: (names[type(board)], board.epd()),
                          chess960=False)


@pytest.fixture(scope="module")
def variants_db(tmp_path_factory):
    games = random_games(100, 11) + [racing_stalemate()]
    tmp = tmp_path_factory.mktemp("variants")
    pgn = tmp / "variants.pgn"
    pgn.write_text("".join(str(game) + "\n\n" for _, game in games))
    with tabiya.Database(tmp / "db", read_only=False) as db:
        summary = db.ingest([pgn])
    assert summary["indexed"] == len(games), summary
    return games, tmp / "db"


def test_every_position_answers_as_python_chess_counts(variants_db):
    games, path = variants_db
    expected = naive(games)
    per_variant = defaultdict(int)
    with tabiya.Database(path) as db:
        for (variant, epd), (counts, by_move) in expected.items():
            answer = db.query(epd + " 0 1", variant=variant, max_moves=256)
            assert [answer["games"], answer["white"], answer["draws"], answer["black"]] == counts, (variant, epd)
            got = {m["uci"]: [m["games"], m["white"], m["draws"], m["black"]] for m in answer["moves"]}
            assert got == {uci: list(c) for uci, c in by_move.items()}, (variant, epd)
            per_variant[variant] += 1
    assert all(per_variant[variant] > 2_000 for variant in BOARDS), dict(per_variant)
    given = [epd for variant, epd in expected if variant == "threeCheck" and not epd.endswith(" 3+3")]
    assert len(given) > 1_000, "Three-check positions with checks given"


def test_each_variant_is_a_space_of_its_own(variants_db):
    games, path = variants_db
    with tabiya.Database(path) as db:
        assert db.query()["games"] == 0
        for variant, board_type in BOARDS.items():
            from_start = sum(1 for v, game in games if v == variant and game.board().fen() == board_type().fen())
            assert db.query(variant=variant)["games"] == from_start
        with pytest.raises(tabiya.InvalidInput, match="not indexed"):
            db.query(variant="crazyhouse")
    keys = {tabiya.key(chess.STARTING_FEN, variant=variant) for variant in ["standard", "kingOfTheHill", "threeCheck"]}
    assert len(keys) == 3
    racing = chess.variant.RacingKingsBoard()
    assert tabiya.decode_key(tabiya.key(racing.fen(), variant="racingKings")) == racing.epd()
    for variant in ["standard", "chess960", *BOARDS]:
        start = chess.STARTING_FEN if variant != "racingKings" else racing.fen()
        assert tabiya.key_variant(tabiya.key(start, variant=variant).hex()) == variant
    with pytest.raises(tabiya.InvalidInput):
        tabiya.key_variant(bytes([0xff] * 21))
    checked = chess.variant.ThreeCheckBoard("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 1+2 0 1")
    assert tabiya.decode_key(tabiya.key(checked.fen(), variant="threeCheck")) == checked.epd()


def test_searches_find_what_python_chess_finds(variants_db):
    """Material and pattern searches and the positions list under each variant: the positions
    of python-chess's replay with that material, in check, or all of them."""
    games, path = variants_db
    expected = naive(games)

    def found(answer):
        assert answer["positions"] == len(answer["hits"])
        return {hit["key"]: hit["games"] for hit in answer["hits"]}

    with tabiya.Database(path) as db:
        for variant, board_type in BOARDS.items():
            boards = {epd: board_type(epd + " 0 1") for v, epd in expected if v == variant}

            def keyed(epds):
                return {tabiya.key(epd + " 0 1", variant=variant).hex(): expected[(variant, epd)][0][0] for epd in epds}

            armies = {epd for epd, board in boards.items()
                      if all(len(board.pieces(piece, color)) == count
                             for color in chess.COLORS
                             for piece, count in [(chess.KING, 1), (chess.QUEEN, 1), (chess.ROOK, 2),
                                                  (chess.BISHOP, 2), (chess.KNIGHT, 2)])}
            in_check = {epd for epd, board in boards.items() if board.is_check()}
            # Racing Kings has no pawns; the others' full armies with any pawns.
            signature = "KQRRBBNNvKQRRBBNN" if variant == "racingKings" else "KQRRBBNNP*vKQRRBBNNP*"
            material = db.search_material(signature, variant=variant, limit=10_000)
            assert len(armies) > 100 and found(material) == keyed(armies), variant
            check = db.search_pattern("check", variant=variant, limit=10_000)
            assert found(check) == keyed(in_check), variant
            if variant == "racingKings":
                assert not in_check, "Racing Kings allows no check"
            # Mate and stalemate by the variant's rules, as python-chess's variant boards count them.
            for test, holds in [("mate", lambda b: b.is_checkmate()), ("stalemate", lambda b: b.is_stalemate())]:
                matching = {epd for epd, board in boards.items() if holds(board)}
                assert found(db.search_pattern(test, variant=variant, limit=10_000)) == keyed(matching), (variant, test)
                if variant == "racingKings" and test == "stalemate":
                    only_checks = {epd for epd in matching if any(chess.Board(epd + " 0 1").legal_moves)}
                    assert only_checks, "a stalemate whose only moves would check"
                    stalemated = tabiya.Pattern("stalemate")
                    assert all(stalemated.matches_key(tabiya.key(epd + " 0 1", variant=variant)) for epd in only_checks)
            rows = {row[1].hex() if isinstance(row[1], bytes) else row[1]: row[2] for row in db.positions(variant=variant)}
            assert rows == keyed(boards), variant


def test_the_opening_report_counts_each_variants_games(variants_db):
    """The opening report of each variant's start: the games python-chess's replay has there."""
    games, path = variants_db
    expected = naive(games)
    with tabiya.Database(path) as db:
        for variant, board_type in BOARDS.items():
            start = board_type().epd()
            report = db.report("opening", fen=start + " 0 1", variant=variant, depth=2)
            overview = report["subsets"][0]["overview"]
            counts, by_move = expected[(variant, start)]
            assert [overview["games"], overview["white"], overview["draws"], overview["black"]] == counts, variant
            moves = {m["uci"]: m["games"] for m in report["subsets"][0]["moves"]}
            assert moves == {uci: c[0] for uci, c in by_move.items()}, variant
            assert report["variant"] == variant
