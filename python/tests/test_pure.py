"""Keys, materials, patterns and PGN chunks without a database, checked against the CLI and
against python-chess's own replay and rules."""

from __future__ import annotations

import chess
import pytest

import tabiya
from conftest import cli_json
from tabiya.arrow import record_batch


def fens_of(games, every: int = 7):
    out = []
    for game in games[::every]:
        board = game.board()
        for move in game.mainline_moves():
            board.push(move)
            out.append(board.fen())
    return out


def test_keys_equal_the_cli_and_decode_back(generated):
    fens = fens_of(generated[1], every=25)
    assert len(fens) > 500
    for fen in fens[::20]:
        assert tabiya.key(fen).hex() == cli_json("key", fen, "--json")["key"]
    for fen in fens:
        key = tabiya.key(fen)
        assert len(key) == 21 and tabiya.key(tabiya.decode_key(key)) == key
        assert tabiya.decode_key(key.hex()) == tabiya.decode_key(key) == tabiya.normalize_fen(fen)
        theirs, ours = chess.Board(fen), chess.Board(tabiya.decode_key(key))
        assert (ours.board_fen(), ours.turn, ours.castling_rights) == (theirs.board_fen(), theirs.turn, theirs.castling_rights)
        assert ours.has_legal_en_passant() == theirs.has_legal_en_passant()


def test_material_signatures_count_what_python_chess_counts(generated):
    for fen in fens_of(generated[1], every=40):
        board = chess.Board(fen)
        side = lambda color: "".join(chess.piece_symbol(role).upper() * len(board.pieces(role, color))
                                     for role in (chess.KING, chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT, chess.PAWN))
        assert tabiya.material(fen) == f"{side(chess.WHITE)}v{side(chess.BLACK)}"


def test_patterns_agree_with_python_chess(generated):
    check, mate = tabiya.Pattern("check"), tabiya.Pattern("mate")
    flipped = tabiya.Pattern("wtm", flip_colours=True)
    assert repr(flipped) == 'Pattern("wtm", flip_colours=True)' and flipped.expression == "wtm" and flipped.flip_colours
    mates = 0
    for fen in fens_of(generated[1], every=5):
        board = chess.Board(fen)
        key = tabiya.key(fen)
        assert check.matches(fen) == check.matches_key(key) == board.is_check()
        assert mate.matches(fen) == mate.matches_key(key) == board.is_checkmate()
        assert flipped.matches(fen)
        mates += board.is_checkmate()
    assert mates > 0


def test_parse_games_keys_every_position_as_a_replay_does(generated):
    pgn, games, _ = generated
    chunk = tabiya.parse_games(pgn.read_bytes())
    rows = chunk.games.rows()
    assert len(rows) == len(games) and not chunk.rejected
    assert chunk.games.names == ["number", "line", "fingerprint", "head", "mainline", "plies"]
    assert chunk.occurrences.names == ["key", "game", "ply", "move"]
    occurrences = chunk.occurrences.rows()
    by_game = {}
    for key, game, ply, move in occurrences:
        by_game.setdefault(game, []).append((key, ply, move))
    for row, game in enumerate(games):
        number, line, fingerprint, head, mainline, plies = rows[row]
        moves = list(game.mainline_moves())
        assert number == row + 1 and plies == len(moves) and len(fingerprint) == 16
        board, expected = game.board(), {}
        expected.setdefault(tabiya.key(board.fen()), 0)
        for ply, move in enumerate(moves, start=1):
            board.push(move)
            expected.setdefault(tabiya.key(board.fen()), ply)
        got = by_game[row]
        assert {key: ply for key, ply, _ in got} == expected
        assert [move is None for _, ply, move in got] == [ply == len(moves) for _, ply, _ in got]
    # A game ending in a position it reached before (a repetition) has no null move.
    ends_new = sum(1 for _, _, ply, move in occurrences if move is None)
    assert len(games) - 5 < ends_new <= len(games)
    table = record_batch(chunk.occurrences)
    assert table.num_rows == len(occurrences) and table.column("move").null_count == ends_new
    assert table.column("key").to_pylist() == [row[0] for row in occurrences]


def test_parse_games_takes_any_bytes_reports_bad_games_and_fingerprints_the_same_game_alike():
    game = b'[White "M\xfcller, J\xfcrgen"]\n[Black "B"]\n[Result "1-0"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n\n'
    same = b'[White "M\xfcller, J\xfcrgen"]\n[Black "B"]\n[Result "1-0"]\n\n1.e4 {a comment} e5 2.Qh5 Nc6 (2... g6) 3.Bc4 Nf6 4.Qxf7# 1-0\n\n'
    broken = b'[White "C"]\n\n1. e4 e5 2. Ke3 1-0\n\n'
    chunk = tabiya.parse_games(game + broken + same + b"\xff\xfe garbage without moves\n")
    rows = chunk.games.rows()
    assert [row[0] for row in rows] == [1, 3]
    assert rows[0][2] == rows[1][2] and rows[0][3] == rows[1][3] and rows[0][4] == rows[1][4]
    assert "Müller, Jürgen".encode() in rows[0][3]
    # Game number and line, as an ingest reports them: the move's line, the garbage's start.
    assert chunk.rejected == [(2, 9, "illegal_move", "illegal move 2. Ke3 (illegal san)"),
                              (4, 17, "syntax_error", 'unrecognised token "\ufffd\ufffd"')]
    assert tabiya.parse_games(b"").games.rows() == []
