"""Bad input raises the documented exception with the CLI's message; nothing kills the
interpreter."""

from __future__ import annotations

import os
import shutil

import pytest

import tabiya
from conftest import run_cli

BAD_FENS = ["", "nonsense", "8/8/8/8/8/8/8/8 w - - 0 1", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1",
            "k7/8/8/8/8/8/8/K5P1 w - - 0 1", "\x00\xff", "1r2k1r1/8/8/8/8/8/8/1R2K1R1 w BGbg - 0 1", "K" * 10000]


@pytest.mark.parametrize("fen", BAD_FENS, ids=range(len(BAD_FENS)))
def test_bad_fens_raise_invalid_input_with_the_clis_message(generated, fen):
    db = tabiya.Database(generated[2])
    calls = [tabiya.key, tabiya.material, tabiya.normalize_fen, tabiya.Pattern("check").matches]
    if fen:  # an empty FEN asks the database about the initial position, as the CLI's default
        calls += [lambda f: db.query(f), lambda f: list(db.games(f)), lambda f: db.report("opening", fen=f)]
    for call in calls:
        with pytest.raises(tabiya.InvalidInput):
            call(fen)
    if fen and "\x00" not in fen:
        refused = run_cli("query", "--db", str(generated[2]), "--fen", fen, check=False)
        with pytest.raises(tabiya.InvalidInput) as raised:
            db.query(fen)
        assert refused.returncode == 1 and refused.stderr.strip() == f"tabiya: {raised.value}"
    with pytest.raises(ValueError):  # InvalidInput is a ValueError too
        tabiya.key(fen)


def test_bad_moves_patterns_signatures_filters_and_keys(generated):
    db = tabiya.Database(generated[2])
    cases = [
        lambda: db.query(moves="1. e4 e5 2. Ke3"),
        lambda: db.query(uci="e2e5"),
        lambda: db.query(moves="1. e4", uci="e2e4"),
        lambda: db.query(since="2020-13"),
        lambda: db.query(min_rating=2650),
        lambda: db.query(speed="hyperbullet"),
        lambda: db.query(color="white"),
        lambda: db.query(colour="white"),
        lambda: db.query(min_rating="high"),
        lambda: db.search_pattern("pin(B, n"),
        lambda: db.search_pattern("check or " * 2000 + "check"),
        lambda: db.search_material("KRvR"),
        lambda: db.search_material("KRvKR", side="x"),
        lambda: db.search_material("KRvKR", castling="X"),
        lambda: list(db.games(pattern="check", fen="8/8/8/8/8/8/8/K1k5 w - - 0 1")),
        lambda: db.games(sort="elo"),
        lambda: db.games(page_size=0),
        lambda: db.positions(pattern="nonsense("),
        lambda: list(db.positions(pattern="nonsense(")),
        lambda: list(db.positions(material="KXvK")),
        lambda: db.report("nonsense"),
        lambda: db.report("player"),
        lambda: db.report("player", name="carlsen", min_share=101),
        lambda: db.report("opening", themes=["pin("]),
        lambda: db.report("database", moves="1. e4"),
        lambda: tabiya.Pattern("count([Qq]) = "),
        lambda: tabiya.decode_key(b"\x00" * 20),
        lambda: tabiya.decode_key(b"\xff" * 21),
        lambda: tabiya.decode_key("zz"),
        lambda: tabiya.decode_key(42),
        lambda: tabiya.Pattern("check").matches_key(b"\xff" * 21),
    ]
    for number, case in enumerate(cases):
        with pytest.raises(tabiya.InvalidInput) as raised:
            case()
        message = str(raised.value)
        assert message and "\n" not in message and "panic" not in message, (number, message)


def test_the_same_message_as_the_cli_for_a_bad_pattern_and_key(generated):
    db = tabiya.Database(generated[2])
    for args, call in [
        (["search", "--db", str(generated[2]), "--pattern", "pin(B, n"], lambda: db.search_pattern("pin(B, n")),
        (["key", "--decode", "ff" * 21], lambda: tabiya.decode_key("ff" * 21)),
        (["query", "--db", str(generated[2]), "--moves", "1. e4 e5 2. Ke3"], lambda: db.query(moves="1. e4 e5 2. Ke3")),
    ]:
        refused = run_cli(*args, check=False)
        with pytest.raises(tabiya.InvalidInput) as raised:
            call()
        assert refused.returncode == 1 and refused.stderr.strip() == f"tabiya: {raised.value}", args


def test_missing_closed_and_read_only_databases(tmp_path, generated):
    with pytest.raises(tabiya.DatabaseNotFound) as raised:
        tabiya.Database(tmp_path / "nothing")
    assert isinstance(raised.value, FileNotFoundError) and "no tabiya database here" in str(raised.value)
    db = tabiya.Database(generated[2])
    db.close()
    with pytest.raises(tabiya.TabiyaError, match="closed"):
        db.stats()
    with pytest.raises(tabiya.TabiyaError, match="read-only"):
        tabiya.Database(generated[2]).ingest(generated[0])
    with pytest.raises(tabiya.TabiyaError, match="nothing.pgn"):
        tabiya.Database(tmp_path / "new", read_only=False).ingest(tmp_path / "nothing.pgn")


def test_a_database_damaged_on_disk_raises_corrupt_database(generated, tmp_path):
    copy = tmp_path / "db"
    shutil.copytree(generated[2], copy)
    tables = sorted(copy.glob("*.sst"), key=lambda p: p.stat().st_size)
    assert tables
    for table in tables:
        data = bytearray(table.read_bytes())
        # Every data block's bytes, not the footer: RocksDB opens the file and finds its checksums wrong.
        for at in range(0, max(0, len(data) - 4096), 7):
            data[at] ^= 0x5A
        table.write_bytes(bytes(data))
    db = tabiya.Database(copy)
    with pytest.raises(tabiya.CorruptDatabase) as raised:
        db.query(moves="1. e4 c5")
    refused = run_cli("query", "--db", str(copy), "--moves", "1. e4 c5", check=False)
    assert refused.returncode == 1 and str(raised.value) in refused.stderr
    with pytest.raises(tabiya.CorruptDatabase):
        list(db.positions())
    with pytest.raises(tabiya.CorruptDatabase):
        db.search_pattern("check")


def test_the_distributed_builds_parts_refuse_bytes_they_did_not_write(tmp_path):
    from tabiya import _native

    assembly = _native.Assembly(str(tmp_path / "db"), [])
    db = _native.Database(str(tmp_path / "db"))
    ranges = tmp_path / "ranges"
    # A range written (here an empty one, elsewhere), then used again.
    finished = _native.RangeWriter(str(tmp_path / "written"))
    finished.finish(db, b"", 0, b"", 1)
    pgn = tmp_path / "two.pgn"
    pgn.write_text("1. e4 e5 1-0\n\n1. d4 d5 0-1\n")
    [(kind, piece, games)] = list(_native.read_batches(str(pgn)))
    assert (kind, games) == ("games", 2)
    occurrences = str(tmp_path / "occurrences")
    prepared = _native.prepare_batch([(piece, 0, 2, str(pgn))], occurrences)
    assert prepared["occurrence_count"] == 6 and os.path.getsize(occurrences) > 0
    refused = [
        lambda: _native.prepare_batch([(b"\xff\xff", 0, 0, "x.pgn")], str(tmp_path / "none")),
        # A slice past the piece's games.
        lambda: _native.prepare_batch([(piece, 1, 3, str(pgn))], str(tmp_path / "none")),
        lambda: _native.fingerprint_parts(b"short", 0, 4),
        lambda: _native.fingerprint_parts(b"", 0, 0),
        lambda: _native.later_twins([b"not a record"]),
        lambda: _native.commit_pivots(b"not 21 bytes"),
        lambda: _native.kept_facts([(1, b"", b"not 8 bytes a game")]),
        lambda: _native.RangeWriter(str(ranges)).add(0, b"", occurrences, b"", 0),
        lambda: _native.RangeWriter(str(ranges)).add(1, b"\0\0\0\2\0\0\0\1", occurrences, b"", 0),
        lambda: _native.RangeWriter(str(ranges)).add(1, b"", occurrences, b"not 21 bytes", 0),
        lambda: _native.RangeWriter(str(ranges)).finish(db, b"short", 0, b"", 1),
        lambda: finished.add(1, b"", occurrences, b"", 0),
        lambda: finished.finish(db, b"", 0, b"", 1),
        lambda: _native.write_batch_games(db, str(ranges), 1, b"\0", b""),
    ]
    for number, call in enumerate(refused):
        with pytest.raises(tabiya.InvalidInput):
            call()
        assert not ranges.exists(), number
    assert not (tmp_path / "none").exists()
    # A fetched file's copy that is not there: the error names the file by its URL.
    assert list(_native.read_batches("hdfs://namenode/a.pgn", copy=str(tmp_path / "gone"))) == [
        ("error", f"cannot open hdfs://namenode/a.pgn: its copy {tmp_path / 'gone'}: No such file or directory (os error 2)")
    ]
    # A file that is not a batch's occurrences, or one cut short: an error naming it, nothing
    # written.
    (tmp_path / "not-occurrences").write_bytes(b"\x05abc")
    with open(occurrences, "rb") as whole:
        (tmp_path / "cut").write_bytes(whole.read()[:-1])
    for name in ("not-occurrences", "cut"):
        with pytest.raises(tabiya.CorruptDatabase, match=f"{name}: corrupt occurrences file"):
            _native.RangeWriter(str(ranges)).add(1, b"", str(tmp_path / name), b"", 0)
    assert not ranges.exists()
    # Facts that are not facts records, games that do not read, a record that is not a range's.
    with pytest.raises(tabiya.TabiyaError, match="facts do not read"):
        _native.RangeWriter(str(ranges)).finish(db, b"", 0, b"\xff" * 8, 2)
    with pytest.raises(tabiya.TabiyaError, match="do not read"):
        _native.write_batch_games(db, str(ranges), 1, b"", b"\xff\xff\xff")
    assert not ranges.exists()
    (tmp_path / "not-a-range").write_bytes(b"\x01\x02")
    with pytest.raises(tabiya.TabiyaError, match="not a range's record"):
        assembly.finish([str(tmp_path / "not-a-range")], {})
    # Games that could not be added: the assembly cannot commit.
    assembly = _native.Assembly(str(tmp_path / "db"), [])
    (tmp_path / "not-games").write_bytes(b"\x01\x02")
    with pytest.raises(tabiya.TabiyaError, match="not a record of a batch's games"):
        assembly.add_written([str(tmp_path / "not-games")])
    with pytest.raises(tabiya.TabiyaError, match="cannot commit"):
        assembly.finish([], {})
    db.close()
