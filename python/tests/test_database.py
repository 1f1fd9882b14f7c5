"""Each Database method answers exactly what the CLI's --json prints, on the sample and on a
generated collection."""

from __future__ import annotations

import json
import threading
import time

import chess
import pytest

import tabiya
from conftest import cli_json, run_cli

FILTERS = [
    {},
    {"since": "2019", "until": "2022-06"},
    {"min_rating": 2600},
    {"speed": "blitz,classical", "max_rating": 2800},
    {"player": "carlsen", "color": "white"},
]


def cli_filters(filters: dict) -> list:
    args = []
    for name, value in filters.items():
        args += ["--" + name.replace("_", "-"), str(value)]
    return args


def positions_of(games, plies: int, every: int):
    """FENs of the first plies of every `every`-th game, by python-chess's replay."""
    seen = []
    for game in games[::every]:
        board = game.board()
        for move in list(game.mainline_moves())[:plies]:
            if board.fen() not in seen:
                seen.append(board.fen())
            board.push(move)
    return seen


def without_timing(document):
    """A report without its wall-clock fields."""
    if isinstance(document, dict):
        return {k: without_timing(v) for k, v in document.items() if k not in ("elapsedMs", "generated")}
    if isinstance(document, list):
        return [without_timing(v) for v in document]
    return document


def test_stats_equal_the_cli(generated, sample_db):
    for db in (generated[2], sample_db):
        assert tabiya.Database(db).stats() == cli_json("stats", "--db", str(db), "--json")


@pytest.mark.parametrize("filters", FILTERS, ids=lambda f: ",".join(f) or "unfiltered")
def test_query_equals_the_cli(generated, filters):
    _, games, db_path = generated
    db = tabiya.Database(db_path)
    fens = positions_of(games, plies=6, every=60)
    assert len(fens) > 20
    for fen in fens:
        mine = db.query(fen, max_moves=20, top=6, recent=5, **filters)
        theirs = cli_json("query", "--db", str(db_path), "--fen", fen, "--max-moves", "20", "--top", "6",
                          "--recent", "5", "--json", *cli_filters(filters))
        assert mine == theirs, fen


def test_query_by_moves_and_uci(generated):
    _, games, db_path = generated
    db = tabiya.Database(db_path)
    by_san = db.query(moves="1. e4 c5 2. Nf3")
    assert by_san == db.query(uci="e2e4,c7c5,g1f3")
    assert by_san == cli_json("query", "--db", str(db_path), "--moves", "1. e4 c5 2. Nf3", "--json")
    results = [g.headers["Result"] for g in games
               if [m.uci() for m in list(g.mainline_moves())[:3]] == ["e2e4", "c7c5", "g1f3"]]
    assert by_san["games"] == len(results) > 0
    assert [by_san["white"], by_san["draws"], by_san["black"]] == [results.count(r) for r in ("1-0", "1/2-1/2", "0-1")]


def test_sample_queries_equal_the_cli(sample_db):
    db = tabiya.Database(sample_db)
    for moves in ["", "1. e4", "1. d4 Nf6", "1. e4 e5 2. Nf3 Nc6"]:
        args = ["--moves", moves] if moves else []
        assert db.query(moves=moves or None) == cli_json("query", "--db", str(sample_db), *args, "--json")


@pytest.mark.parametrize("sort", ["id", "date", "rating"])
def test_games_equal_the_cli_every_page(generated, sort):
    _, _, db_path = generated
    db = tabiya.Database(db_path)
    mine = list(db.games(moves="1. e4 e5", sort=sort, page_size=7))
    theirs = cli_json("games", "--db", str(db_path), "--moves", "1. e4 e5", "--sort", sort, "--limit", "100000",
                      "--json")
    assert mine == theirs["games"] and len(mine) == theirs["total"] > 7


def test_games_of_a_pattern_with_and_not(generated):
    _, _, db_path = generated
    db = tabiya.Database(db_path)
    after_e4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    after_d4 = "rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1"
    for options, args in [
        ({"pattern": "check and count([Qq]) = 0"}, ["--pattern", "check and count([Qq]) = 0"]),
        ({"pattern": "Ra-h7", "flip_colours": True, "also": [after_e4]}, ["--pattern", "Ra-h7", "--flip-colours", "--and", after_e4]),
        ({"pattern": "mate", "never": [after_d4]}, ["--pattern", "mate", "--not", after_d4]),
    ]:
        mine = list(db.games(**options))
        theirs = cli_json("games", "--db", str(db_path), *args, "--limit", "100000", "--json")
        assert mine == theirs["games"] and len(mine) == theirs["total"] > 0, options
    pgn = db.games(pattern="mate").to_pgn(limit=3)
    assert pgn == run_cli("games", "--db", str(db_path), "--pattern", "mate", "--limit", "3",
                                                 "--pgn").stdout


@pytest.mark.parametrize("signature,options", [("KRvKR", {}), ("KRP*vKRP*", {"side": "w"}),
                                                ("KPPPPPPPPvKPPPPPPPP", {"castling": "-"}),
                                                ("KRP*vKRP*", {"min_elo": 2200, "date_from": "2003-05-01"})])
def test_material_search_equals_the_cli(generated, signature, options):
    _, _, db_path = generated
    db = tabiya.Database(db_path)
    args = [a for name, value in options.items() for a in ("--" + name.replace("_", "-"), str(value))]
    theirs = cli_json("search", "--db", str(db_path), "--material", signature, "--limit", "500", *args, "--json")
    assert db.search_material(signature, limit=500, **options) == theirs


def test_material_search_refuses_what_the_cli_refuses(generated):
    db = tabiya.Database(generated[2])
    signature = "KQ*R*B*N*P*vKQ*R*B*N*P*"
    refused = run_cli("search", "--db", str(generated[2]), "--material", signature, check=False)
    with pytest.raises(tabiya.InvalidInput) as raised:
        db.search_material(signature)
    assert refused.returncode == 1 and refused.stderr.strip() == f"tabiya: {raised.value}"


@pytest.mark.parametrize("expression,options", [("check", {}), ("pin(B, n, k)", {"flip_colours": True}),
                                                 ("Pa-h6 and btm", {"material": "KRP*vKRP*"}), ("mate", {"side": "b"}),
                                                 ("check", {"result": "0-1", "max_elo": 2600})])
def test_pattern_search_equals_the_cli(generated, expression, options):
    _, _, db_path = generated
    db = tabiya.Database(db_path)
    args = []
    for name, value in options.items():
        args += ["--flip-colours"] if name == "flip_colours" else ["--" + name.replace("_", "-"), str(value)]
    mine = without_timing(db.search_pattern(expression, limit=10000, **options))
    theirs = without_timing(cli_json("search", "--db", str(db_path), "--pattern", expression, "--limit", "10000",
                                     *args, "--json"))
    assert mine == theirs and mine["positions"] > 0


def test_positions_are_the_searches_hits_and_python_chess_agrees(generated):
    _, games, db_path = generated
    db = tabiya.Database(db_path)
    rows = list(db.positions(pattern="check"))
    search = db.search_pattern("check", limit=10000)
    assert search["positions"] == len(rows) < 10000
    assert sorted((h["fen"], bytes.fromhex(h["key"]), h["games"], h["white"], h["draws"], h["black"])
                  for h in search["hits"]) == sorted(rows)
    for fen, key, *_ in rows:
        assert chess.Board(fen).is_check() and tabiya.key(fen) == key
    every = list(db.positions())
    assert len(every) == db.stats()["distinctPositions"] == len({row[1] for row in every})
    # Every position of every game, by python-chess's replay, is stored with its game counted.
    reached = {}
    for game in games:
        board, fens = game.board(), set()
        fens.add(tabiya.normalize_fen(board.fen()))
        for move in game.mainline_moves():
            board.push(move)
            fens.add(tabiya.normalize_fen(board.fen()))
        for fen in fens:
            reached[fen] = reached.get(fen, 0) + 1
    assert {row[0]: row[2] for row in every} == reached


def test_positions_to_arrow_and_pandas(generated):
    db = tabiya.Database(generated[2])
    rows = list(db.positions(material="KRP*vKRP*", side="w"))
    table = db.positions(material="KRP*vKRP*", side="w").to_arrow()
    assert table.column_names == ["fen", "key", "games", "white", "draws", "black", "eval_games", "eval_cp",
                                  "white_mates", "black_mates"]
    assert [tuple(r.values())[:6] for r in table.to_pylist()] == rows and rows
    # Games without annotations: no evaluation.
    assert {tuple(r.values())[6:] for r in table.to_pylist()} == {(0, None, 0, 0)}
    frame = db.positions(material="KRP*vKRP*", side="w").to_pandas()
    assert len(frame) == len(rows) and int(frame["games"].sum()) == sum(r[2] for r in rows)
    assert db.positions(material="KQQQQvK").to_arrow().num_rows == 0
    keys_only = db.positions(material="KRP*vKRP*", side="w").to_arrow(fen=False)
    assert keys_only.column_names == table.column_names[1:] and keys_only.equals(table.drop_columns(["fen"]))


def test_games_to_arrow(generated):
    db = tabiya.Database(generated[2])
    selected = db.games(moves="1. d4", sort="rating")
    games = list(selected)
    table = selected.to_arrow(page_size=50)
    assert table.num_rows == len(games) == len(selected) > 50
    assert len(selected.to_pandas()) == len(games)
    as_json = [{"id": r["id"], "white": r["white"], "black": r["black"], "whiteElo": r["white_elo"],
                "blackElo": r["black_elo"], "date": r["date"], "event": r["event"], "site": r["site"],
                "round": r["round"], "result": r["result"]} for r in table.to_pylist()]
    assert as_json == games


@pytest.mark.parametrize("kind,options,args", [
    ("opening", {"moves": "1. e4"}, ["--moves", "1. e4"]),
    ("opening", {"moves": "1. d4", "min_rating": 2600, "versus": {"since": "2020"}, "themes": ["count([Qq]) = 0"]},
     ["--moves", "1. d4", "--min-rating", "2600", "--versus", "--since 2020", "--theme", "count([Qq]) = 0"]),
    ("player", {"name": "carlsen", "color": "black", "since": "2018"}, ["carlsen", "--color", "black", "--since", "2018"]),
    ("database", {"plies": 4, "top": 10}, ["--plies", "4", "--top", "10"]),
])
def test_reports_equal_the_cli(generated, kind, options, args):
    _, _, db_path = generated
    mine = tabiya.Database(db_path).report(kind, **options)
    theirs = cli_json("report", kind, "--db", str(db_path), *args, "--format", "json")
    assert without_timing(mine) == without_timing(theirs)


def test_ingest_summary_and_database_equal_the_cli(generated, tmp_path):
    pgn, _, cli_db = generated
    broken = tmp_path / "broken.pgn"
    broken.write_bytes(b'[White "A"]\n\n1. e4 e5 2. Ke3 1-0\n\n[White "B"]\n\n1. d4 d5 1/2-1/2\n')
    with tabiya.Database(tmp_path / "db", read_only=False) as db:
        summary = db.ingest([pgn, broken], rejects=tmp_path / "rejects.pgn")
        again = db.ingest(pgn)
    cli = run_cli("ingest", "--db", str(tmp_path / "cli-db"), str(pgn), str(broken), "--json")
    theirs = json.loads(cli.stdout)
    skipped = summary.pop("skippedGames")
    timing = ("elapsedSeconds", "gamesPerSecond")
    assert {k: v for k, v in summary.items() if k not in timing and k != "database"} == \
        {k: v for k, v in theirs.items() if k not in timing and k != "database"}
    assert {k: v for k, v in summary["database"].items() if k != "path"} == \
        {k: v for k, v in theirs["database"].items() if k != "path"}
    assert [f"tabiya: skipped {line}" for line in skipped] == cli.stderr.strip().splitlines()
    assert summary["indexed"] == 601 and summary["skipped"] == {"illegal_move": 1} and again["duplicates"] == 600
    assert "game 1" in skipped[0] and "Ke3" in skipped[0]
    assert b"Ke3" in (tmp_path / "rejects.pgn").read_bytes()
    expected = cli_json("stats", "--db", str(cli_db), "--json")
    got = tabiya.Database(tmp_path / "db").stats()
    assert got["games"] == expected["games"] + 1 and got["plies"] == expected["plies"] + 2
    reference = tabiya.Database(cli_db)
    for moves in ["1. e4", "1. e4 c5 2. Nf3", "1. c4 e5"]:
        assert reference.query(moves=moves)["moves"] == tabiya.Database(tmp_path / "db").query(moves=moves)["moves"]


def test_one_ingest_at_a_time_on_a_database(generated, tmp_path):
    many = tmp_path / "many.pgn"
    many.write_bytes(generated[0].read_bytes() * 12)
    db = tabiya.Database(tmp_path / "db", read_only=False)
    results = []
    first = threading.Thread(target=lambda: results.append(db.ingest(many)))
    first.start()
    time.sleep(0.05)
    with pytest.raises(tabiya.DatabaseError, match="an ingest is running"):
        while first.is_alive():
            db.ingest(generated[0])
    first.join()
    assert results[0]["indexed"] == 600 and results[0]["duplicates"] == 600 * 11
    assert db.stats()["games"] == 600


def test_annotated_games_evaluations_equal_the_cli_and_python_chess(tmp_path):
    """A position's `eval` and each move's `eval` and `time` as the CLI answers them, and as
    python-chess reads the games' comments (each game once, at its first arrival)."""
    import chess.pgn
    from conftest import ROOT

    pgn = ROOT / "tests" / "data" / "annotated-lichess.pgn"
    db_path = tmp_path / "db"
    run_cli("ingest", "--db", str(db_path), str(pgn))
    db = tabiya.Database(db_path)
    line = ["e2e4", "e7e6", "d2d4"]
    for filters in ({}, {"since": "1986"}):
        for plies in range(len(line) + 1):
            uci = ",".join(line[:plies]) or None
            mine = db.query(uci=uci, max_moves=60, **filters)
            args = ["--uci", uci] if uci else []
            assert mine == cli_json("query", "--db", str(db_path), *args, "--max-moves", "60", "--json",
                                    *cli_filters(filters))
    # python-chess's reading: the evaluations of the games' moves into the position after 1. e4 e6.
    evals, after_d4 = [], []
    with open(pgn) as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            nodes = list(game.mainline())
            if [n.move.uci() for n in nodes[:2]] != line[:2]:
                continue
            if nodes[1].eval() is not None:
                evals.append(nodes[1].eval().white().score())
            if len(nodes) > 2 and nodes[2].move.uci() == "d2d4" and nodes[2].eval() is not None:
                after_d4.append(nodes[2].eval().white().score())
    answer = db.query(uci="e2e4,e7e6", max_moves=60)
    assert answer["eval"]["games"] == len(evals) > 0
    assert abs(answer["eval"]["cp"] - sum(evals) / len(evals)) <= 0.005
    d4 = next(m for m in answer["moves"] if m["uci"] == "d2d4")
    assert d4["eval"]["games"] == len(after_d4) > 0
    assert abs(d4["eval"]["cp"] - sum(after_d4) / len(after_d4)) <= 0.005
    assert 0 < d4["time"]["moves"] <= d4["games"]
    # Every position's evaluation in the Arrow table as `tabiya export positions` writes it,
    # and as the lookup answers it.
    import pyarrow.parquet as pq

    table = db.positions().to_arrow()
    exported = tmp_path / "positions.parquet"
    run_cli("export", "positions", "--db", str(db_path), "--format", "parquet", "-o", str(exported))
    columns = ["key", "eval_games", "eval_cp", "white_mates", "black_mates"]
    # Keys as the export writes them, in hexadecimal.
    mine = sorted((r["key"].hex(), *(r[c] for c in columns[1:])) for r in table.to_pylist())
    assert mine == sorted(tuple(r[c] for c in columns) for r in pq.read_table(exported).to_pylist())
    assert sum(1 for row in mine if row[1] > 0) > 100
    e6 = tabiya.key("rnbqkbnr/pppp1ppp/4p3/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2").hex()
    after_e6 = next(row for row in mine if row[0] == e6)
    assert after_e6[1] == answer["eval"]["games"] and abs(after_e6[2] - answer["eval"]["cp"]) <= 0.005
