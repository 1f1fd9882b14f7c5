"""`tabiya export book` read back by an independent reader (python-chess's chess.polyglot): every
entry's key is python-chess's Zobrist hash of a book position, every move legal there, and the
weights of a sample of positions equal the command line's explorer answers."""

from __future__ import annotations

import collections

import chess
import chess.polyglot

from conftest import cli_json, run_cli


def book_positions(reader, limit: int):
    """The positions of the book reached from the initial position through its own moves,
    breadth first (at most `limit`)."""
    seen, queue, found = set(), collections.deque([chess.Board()]), []
    while queue and len(found) < limit:
        board = queue.popleft()
        key = chess.polyglot.zobrist_hash(board)
        if key in seen:
            continue
        seen.add(key)
        entries = list(reader.find_all(board, minimum_weight=0))
        if entries:
            found.append((board, entries))
        for entry in entries:
            child = board.copy()
            child.push(entry.move)
            queue.append(child)
    return found


def test_book_reads_back_with_python_chess(generated, tmp_path):
    _, games, db = generated
    book = tmp_path / "book.bin"
    run_cli("export", "book", "--db", str(db), "-o", str(book), "--min-games", "2", "--max-ply", "12")
    data = book.read_bytes()
    assert len(data) % 16 == 0 and len(data) > 16 * 50
    keys = [int.from_bytes(data[i:i + 8], "big") for i in range(0, len(data), 16)]
    assert keys == sorted(keys)
    with chess.polyglot.open_reader(book) as reader:
        positions = book_positions(reader, 10_000)
        # Every entry belongs to a position the walk reaches through the book's moves.
        assert sum(len(entries) for _, entries in positions) == len(data) // 16
        for board, entries in positions[:60]:
            answer = cli_json("query", "--db", str(db), "--fen", board.fen(), "--max-moves", "300", "--json")
            mover_wins = "white" if board.turn == chess.WHITE else "black"
            expected = {row["uci"]: 2 * row[mover_wins] + row["draws"]
                        for row in answer["moves"] if row["games"] >= 2}
            got = {board.uci(entry.move, chess960=False): entry.weight for entry in entries}
            assert got == expected, board.fen()
            assert all(entry.move in board.legal_moves for entry in entries)
    # The root's moves are the games' first moves played twice or more, counted independently.
    first = collections.Counter(game.next().move.uci() for game in games if game.next() is not None)
    with chess.polyglot.open_reader(book) as reader:
        root = {entry.move.uci() for entry in reader.find_all(chess.Board(), minimum_weight=0)}
    assert root == {uci for uci, n in first.items() if n >= 2}


def test_book_of_one_side_and_a_subtree(generated, tmp_path):
    _, _, db = generated
    book = tmp_path / "black.bin"
    run_cli("export", "book", "--db", str(db), "-o", str(book), "--moves", "1. e4", "--only", "black",
            "--weight", "games", "--min-games", "1", "--max-ply", "4")
    with chess.polyglot.open_reader(book) as reader:
        board = chess.Board()
        board.push_san("e4")
        entries = list(reader.find_all(board, minimum_weight=0))
        answer = cli_json("query", "--db", str(db), "--moves", "1. e4", "--max-moves", "300", "--json")
        assert {e.move.uci(): e.weight for e in entries} == {m["uci"]: m["games"] for m in answer["moves"]}
        # White's moves are followed but not written.
        board.push(entries[0].move)
        assert list(reader.find_all(board, minimum_weight=0)) == []
        assert len(reader) > len(entries)


def test_positions_as_parquet_read_back_with_pyarrow(generated, tmp_path):
    """`tabiya export positions --format parquet` read by pyarrow: the rows of one material
    are `tabiya search --material`'s, every one of them."""
    import pyarrow.parquet as pq

    _, _, db = generated
    material = "KQRRBBNNPPPPPPPPvKQRRBBNNPPPPPPP"
    out = tmp_path / "positions.parquet"
    run_cli("export", "positions", "--db", str(db), "--material", material, "--format", "parquet", "-o", str(out))
    table = pq.read_table(out)
    assert table.column_names == ["key", "fen", "material", "games", "white", "draws", "black", "average_rating",
                                  "eval_games", "eval_cp", "white_mates", "black_mates"]
    rows = table.to_pylist()
    found = cli_json("search", "--db", str(db), "--material", material, "--limit", "10000", "--json")
    assert 20 < found["positions"] == len(rows) < 10000
    expected = {h["key"]: (h["fen"], h["games"], h["white"], h["draws"], h["black"]) for h in found["hits"]}
    assert {r["key"]: (r["fen"], r["games"], r["white"], r["draws"], r["black"]) for r in rows} == expected
    assert {r["material"] for r in rows} == {material}
    assert all(r["average_rating"] is None or 2400 <= r["average_rating"] < 2900 for r in rows)
    # Games without annotations: no evaluation.
    assert all((r["eval_games"], r["eval_cp"], r["white_mates"], r["black_mates"]) == (0, None, 0, 0) for r in rows)
