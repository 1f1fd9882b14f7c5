"""tabiya: a chess position database indexing engine, from Python.

Open a database that ``tabiya ingest`` (or :meth:`Database.ingest`) built, and ask it what the
command line and the HTTP API answer, as Python values::

    import tabiya

    db = tabiya.Database("tabiya-db")
    answer = db.query(moves="1. e4 c5", since="2020")
    for move in answer["moves"]:
        print(move["san"], move["white"], move["draws"], move["black"])

    table = db.positions(material="KRPvKR").to_arrow()    # pyarrow.Table, a row a position
    games = db.games(moves="1. e4 c5 2. b4").to_pandas()  # pandas.DataFrame, a row a game

Every call that reads the database or parses PGN releases the GIL, so threads run in parallel.
``tabiya.set_memory_budget("256M")``, before the first database is opened, bounds what they keep
in memory, as the command line's ``--memory`` does (or ``TABIYA_MEMORY``, read at import).
Errors are :mod:`tabiya.errors` exceptions, with the CLI's messages.
"""

from __future__ import annotations

import os
from typing import Any, Iterable, Iterator, Optional, Sequence, Tuple, Union

from . import _native
from ._native import (
    FORMAT_VERSION,
    ParsedChunk,
    Pattern,
    decode_key,
    key,
    key_variant,
    material,
    memory_budget,
    normalize_fen,
    parse_games,
    set_memory_budget,
)
from .errors import CorruptDatabase, DatabaseError, DatabaseNotFound, InvalidInput, TabiyaError

__version__: str = _native.__version__

PathLike = Union[str, "os.PathLike[str]"]
PositionRow = Tuple[str, bytes, int, int, int, int]
"""A position row: (fen, key, games, white wins, draws, black wins)."""

# Rows an iterator makes Python values of at once.
_ROWS_A_PAGE = 4096

_REPORT_OPTIONS = {
    "opening": ("fen", "moves", "uci", "versus", "depth", "lines", "themes", "default_themes", "theme_plies",
                "variant"),
    "player": ("name", "color", "depth", "min_share", "variant"),
    "database": ("plies", "top", "variant"),
}


class Database:
    """A tabiya database directory.

    ``Database(path)`` opens it for reading (several processes and threads may read at once,
    beside a running ingest or server); ``read_only=False`` opens it for :meth:`ingest`, and
    creates it when missing. Use it as a context manager, or call :meth:`close`.

    Filters, where a method takes ``**filters``, are the CLI's filter options: ``since`` and
    ``until`` (``"YYYY"`` or ``"YYYY-MM"``), ``speed`` (comma-separated lichess speeds),
    ``min_rating`` and ``max_rating`` (multiples of 100), ``player`` (a name, any common
    spelling), ``color`` (``"white"`` or ``"black"``, with ``player``), ``opponent`` (with
    ``player``), ``min_elo`` and ``max_elo`` (both players' ratings), ``event`` and ``site``
    (case-insensitive substrings), ``result`` (``"1-0"``, ``"0-1"``, ``"1/2-1/2"``, ``"*"``),
    ``eco`` (``"B90"`` or ``"B20-B99"``), ``date_from`` and ``date_to`` (``"YYYY[-MM[-DD]]"``)
    and ``min_plies``.
    """

    def __init__(self, path: PathLike, *, read_only: bool = True) -> None:
        self._db = _native.Database(path, read_only=read_only)

    def __enter__(self) -> "Database":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        mode = "read_only=True" if self._db.read_only else "read_only=False"
        return f"tabiya.Database({str(self._db.path)!r}, {mode})"

    @property
    def path(self) -> str:
        """The database directory."""
        return str(self._db.path)

    def close(self) -> None:
        """Closes the database; later calls raise :class:`TabiyaError`. An iterator of
        :meth:`games` or :meth:`positions` not yet exhausted keeps it open until it is."""
        self._db.close()

    def stats(self) -> dict:
        """What ``tabiya stats --json`` prints: totals, bytes per family, ingest runs."""
        return self._db.stats()

    def query(
        self,
        fen: Optional[str] = None,
        moves: Optional[str] = None,
        uci: Optional[str] = None,
        *,
        max_moves: int = 12,
        top: int = 4,
        recent: int = 4,
        variant: Optional[str] = None,
        **filters: Any,
    ) -> dict:
        """The explorer answer for a position, as ``tabiya query --json`` prints it.

        The position is ``fen`` (default: the initial position), then ``moves`` (SAN movetext,
        ``"1. e4 e5 2. Nf3"``) or ``uci`` (``"e2e4,e7e5"``) played from it. ``variant`` is
        ``"standard"`` (the default), ``"chess960"`` (Chess960's positions and games, the FEN in
        X-FEN or Shredder-FEN, castling in UCI as the king taking its rook), or one of lichess's
        variants ``"kingOfTheHill"``, ``"threeCheck"`` (its FEN with the checks left, ``3+3``),
        ``"racingKings"``, ``"atomic"`` and ``"antichess"``, each a space of its own.
        """
        return self._db.query(fen, moves, uci, max_moves, top, recent, filters, variant)

    def games(
        self,
        fen: Optional[str] = None,
        moves: Optional[str] = None,
        uci: Optional[str] = None,
        *,
        pattern: Optional[str] = None,
        flip_colours: bool = False,
        material: Optional[str] = None,
        side: Optional[str] = None,
        also: Union[str, Sequence[str]] = (),
        never: Union[str, Sequence[str]] = (),
        sort: str = "id",
        page_size: int = 1000,
        variant: Optional[str] = None,
        **filters: Any,
    ) -> "GameList":
        """The games that reached a position, or any position matching ``pattern``, or in which
        a sequence occurs (``pattern="seq(A, B, 3)"``), as a :class:`GameList`: iterate it for one
        dict a game, as in ``tabiya games --json`` (id, white, black, whiteElo, blackElo, date,
        event, site, round, result, and with a sequence ``steps``, the ply of each step), or take
        it whole with ``to_arrow()``, ``to_pandas()`` or ``to_pgn()``. ``filters`` are
        :meth:`query`'s.

        ``also`` and ``never`` are FENs (one, or a list) every game also reached or never
        reached; ``sort`` is ``"id"`` (ingest order), ``"date"`` (newest first: the full date,
        then the round) or ``"rating"``; ``variant`` is :meth:`query`'s.
        The list is resolved here (a pattern scans once; bad input raises here); the games'
        headers are read as they are asked for, ``page_size`` at a time.
        """
        cursor = self._db.games_cursor(
            fen, moves, uci, pattern=pattern, flip_colours=flip_colours, material=material, side=side,
            and_=_fens(also), not_=_fens(never), sort=sort, variant=variant, **filters,
        )
        return GameList(cursor, _count(page_size, "page_size", 1))

    def search_material(self, signature: str, *, side: Optional[str] = None, castling: Optional[str] = None,
                        limit: int = 20, variant: Optional[str] = None, **filters: Any) -> dict:
        """Positions with a material signature (``"KRPPvKR"``, ``"KRP*vKR"``), most frequent
        first, as ``tabiya search --material --json`` prints them. With ``filters``, each
        position counts the games they keep, and one they keep none of is left out.
        ``castling`` is a FEN castling field (``"KQkq"``, ``"-"``, Shredder-FEN's ``"HAha"``),
        ``variant`` :meth:`query`'s."""
        return self._db.search_material(signature, side=side, castling=castling, limit=limit, variant=variant,
                                        **filters)

    def search_pattern(self, expression: str, *, material: Optional[str] = None, side: Optional[str] = None,
                       flip_colours: bool = False, limit: int = 20, variant: Optional[str] = None,
                       **filters: Any) -> dict:
        """Positions matching a pattern (``"pin(B, n, k)"``), most frequent first, with the
        games reaching them counted, as ``tabiya search --pattern --json`` prints them. With
        ``filters``, only the games they keep count; ``variant`` is :meth:`query`'s."""
        return self._db.search_pattern(expression, material=material, side=side, flip_colours=flip_colours,
                                       limit=limit, variant=variant, **filters)

    def positions(self, material: Optional[str] = None, pattern: Optional[str] = None, *,
                  side: Optional[str] = None, flip_colours: bool = False,
                  variant: Optional[str] = None) -> "PositionList":
        """Every stored position with this material and/or matching this pattern (all of
        them without either), as a :class:`PositionList`: iterate it for
        ``(fen, key, games, white, draws, black)`` rows, or take it whole with ``to_arrow()`` or
        ``to_pandas()``. Read a few parts of the database at a time, on every core, in key order
        within each part. Bad input raises here. ``variant`` is :meth:`query`'s (Chess960's
        FENs in X-FEN)."""
        return PositionList(
            self._db.position_scan(material=material, pattern=pattern, flip_colours=flip_colours, side=side,
                                   variant=variant)
        )

    def report(self, kind: str, **options: Any) -> dict:
        """A report's JSON document, as ``tabiya report KIND --format json`` writes it.

        - ``report("opening", fen=None, moves=None, uci=None, versus=None, depth=8, lines=6,
          themes=[], default_themes=True, theme_plies=40, **filters)``; ``versus`` is a dict of
          filters for the second subset, ``themes`` pattern expressions, ``variant``
          :meth:`query`'s.
        - ``report("player", name=..., color=None, depth=8, min_share=2.0, variant=None, **filters)``
        - ``report("database", plies=10, top=30, variant=None)``
        """
        if kind not in _REPORT_OPTIONS:
            raise InvalidInput(f"unknown report {kind!r}: expected {', '.join(_REPORT_OPTIONS)}")
        known = {name: options.pop(name) for name in _REPORT_OPTIONS[kind] if name in options}
        if kind == "opening":
            return self._db.report_opening(**known, filters=options)
        if kind == "player":
            if "name" not in known:
                raise InvalidInput("a player report needs the player: report('player', name=...)")
            return self._db.report_player(**known, filters=options)
        if options:
            raise InvalidInput(f"the database report takes plies, top and variant, not {', '.join(options)}")
        return self._db.report_database(**known)

    def ingest(self, paths: Union[PathLike, Sequence[PathLike]], *, rejects: Optional[PathLike] = None) -> dict:
        """Indexes PGN files (.pgn, .pgn.zst, .pgn.bz2, .pgn.gz) and directories into the
        database (opened with ``read_only=False``): new games once each, duplicates counted.
        Returns what ``tabiya ingest --json`` prints, with ``skippedGames``: the lines the CLI
        prints for each skipped game (file, game number, line, reason) and each input it could
        not read to its end. ``rejects`` names a file for the skipped games' text."""
        if isinstance(paths, (str, bytes)) or hasattr(paths, "__fspath__"):
            paths = [paths]
        return self._db.ingest(list(paths), rejects=rejects)


def _fens(fens: Union[str, Iterable[str]]) -> list:
    """One FEN or several."""
    return [fens] if isinstance(fens, str) else list(fens)


def _count(value: Any, what: str, least: int) -> int:
    if not isinstance(value, int) or value < least:
        raise InvalidInput(f"{what} is a number of games, {least} or more, not {value!r}")
    return value


class GameList:
    """The games of :meth:`Database.games`, resolved once: iterate for one dict a game (read
    ``page_size`` at a time), or take them as a table or as PGN. ``len()`` is their number."""

    def __init__(self, cursor: "_native.GameCursor", page_size: int = 1000) -> None:
        self._cursor = cursor
        self.page_size = page_size

    def __len__(self) -> int:
        return len(self._cursor)

    def __iter__(self) -> Iterator[dict]:
        size = _count(self.page_size, "page_size", 1)
        for offset in range(0, len(self._cursor), size):
            yield from self._cursor.page_json(offset, size)["games"]

    def to_arrow(self, *, page_size: int = 65536) -> "Any":
        """A ``pyarrow.Table``: id, white, black, white_elo, black_elo, date, event, site,
        round, result (built from Arrow buffers, ``page_size`` games a record batch)."""
        from . import arrow

        size = _count(page_size, "page_size", 1)
        pages = (self._cursor.page_columns(at, size) for at in range(0, len(self._cursor), size))
        return arrow.table(pages, arrow.GAME_COLUMNS)

    def to_pandas(self) -> "Any":
        """:meth:`to_arrow` as a ``pandas.DataFrame``."""
        return self.to_arrow().to_pandas()

    def to_pgn(self, limit: Optional[int] = None) -> str:
        """The games (the first ``limit``) as PGN text, headers and mainline, as
        ``tabiya games --pgn`` prints them."""
        count = len(self._cursor) if limit is None else _count(limit, "limit", 0)
        return self._cursor.page_pgn(0, count)


class PositionList:
    """The positions of :meth:`Database.positions`: iterate for
    ``(fen, key, games, white, draws, black)`` rows, or take them as a table."""

    def __init__(self, scan: "_native.PositionScan") -> None:
        self._scan = scan

    def __iter__(self) -> Iterator[PositionRow]:
        for first in range(0, len(self._scan), self._scan.batch):
            batch = self._scan.read_rows(first, self._scan.batch)
            # A row as a tuple takes some 500 bytes: made a page at a time, not a batch.
            for start in range(0, len(batch), _ROWS_A_PAGE):
                yield from batch.rows(start, start + _ROWS_A_PAGE)
            del batch  # before the next batch is read, not after

    def to_arrow(self, *, fen: bool = True) -> "Any":
        """A ``pyarrow.Table`` (fen, key, games, white, draws, black, then what annotated
        games said of each position as ``tabiya export positions`` writes it: eval_games,
        eval_cp (the mean numeric evaluation in centipawns, White's view; null without one),
        white_mates, black_mates), a record batch every few parts of the database: no Python
        object per row. ``fen=False`` leaves the FEN column out, which makes a whole-database
        listing several times faster (keys decode with :func:`decode_key`)."""
        from . import arrow

        parts = range(0, len(self._scan), self._scan.batch)
        columns = arrow.POSITION_COLUMNS if fen else arrow.POSITION_COLUMNS[1:]
        return arrow.table((self._scan.read(first, self._scan.batch, fen) for first in parts), columns)

    def to_pandas(self, *, fen: bool = True) -> "Any":
        """:meth:`to_arrow` as a ``pandas.DataFrame``."""
        return self.to_arrow(fen=fen).to_pandas()


__all__ = [
    "Database",
    "GameList",
    "PositionList",
    "Pattern",
    "ParsedChunk",
    "key",
    "decode_key",
    "key_variant",
    "material",
    "normalize_fen",
    "parse_games",
    "set_memory_budget",
    "memory_budget",
    "TabiyaError",
    "InvalidInput",
    "DatabaseError",
    "DatabaseNotFound",
    "CorruptDatabase",
    "FORMAT_VERSION",
    "PositionRow",
]
