"""Type stubs of tabiya's compiled module (the Rust library's binding); tabiya/__init__.py is
the documented interface over it."""

from os import PathLike
from pathlib import Path
from typing import Any, Optional, Sequence, Tuple, Union

__version__: str
FORMAT_VERSION: int

def key(fen: str, variant: Optional[str] = None) -> bytes:
    """The 21-byte key of a position (FEN or EPD) of a variant (lichess's name; standard by
    default), as `tabiya key` prints in hexadecimal."""

def decode_key(key: Union[bytes, str]) -> str:
    """The position (FEN) of a key, given as 21 bytes or 42 hexadecimal digits."""

def key_variant(key: Union[bytes, str]) -> str:
    """The variant whose space a key lies in, by its lichess name (`standard`, `chess960`,
    `kingOfTheHill`, `threeCheck`, `racingKings`, `atomic`, `antichess`)."""

def material(fen: str) -> str:
    """The material signature of a position, White v Black (`KRPPvKR`)."""

def normalize_fen(fen: str) -> str:
    """The position as tabiya stores it: en passant only when a capture is legal, no counters."""

def set_memory_budget(size: Union[int, str]) -> None:
    """Bounds the memory of the databases opened afterwards, their ingests and scans, as
    ``tabiya --memory`` does: bytes, or a size such as ``"256M"`` (160M at the least). Once a
    process, before the first database is opened; ``TABIYA_MEMORY`` is read at import. For the
    whole process: glibc's malloc keeps two arenas, and threads started afterwards without a
    stack size get 2 MiB stacks. Raises ``InvalidInput`` for a size refused, ``TypeError`` for
    neither an int nor text."""

def memory_budget() -> Optional[int]:
    """The memory budget set, in bytes."""

def parse_games(chunk: bytes) -> ParsedChunk:
    """The games of a chunk of PGN text (whole games, any encoding), parsed and keyed on every
    core, with no database: the per-game work of an ingest."""

class Columns:
    """A batch of rows as named columns, laid out as Arrow arrays (tabiya.arrow.record_batch)."""

    def __len__(self) -> int: ...
    @property
    def names(self) -> list[str]:
        """The column names, in order."""
    def rows(self) -> list[tuple[Any, ...]]:
        """The rows as tuples (bytes for binary columns, None for absent values)."""
    def arrow_buffers(self) -> list[tuple[str, str, list[Optional[bytes]]]]:
        """(name, Arrow type, buffers) of each column: validity, offsets, values."""

class ParsedChunk:
    """What a chunk of PGN held."""

    @property
    def games(self) -> Columns:
        """A row a game: number, line, fingerprint (16 bytes), head, mainline, plies."""
    @property
    def occurrences(self) -> Columns:
        """A row a distinct position a game reached: key (21 bytes), game (row of games), ply,
        move (the two-byte move played from it; None at the game's end)."""
    @property
    def rejected(self) -> list[tuple[int, int, str, str]]:
        """The games skipped: (number, line, reason, detail)."""

class Pattern:
    """A pattern expression (the user guide's grammar), parsed once."""

    def __init__(self, expression: str, *, flip_colours: bool = False) -> None: ...
    def matches(self, fen: str) -> bool:
        """Whether the position (FEN or EPD) matches."""
    def matches_key(self, key: Union[bytes, str]) -> bool:
        """Whether the position of a key matches."""
    @property
    def expression(self) -> str: ...
    @property
    def flip_colours(self) -> bool: ...

class GameCursor:
    """The games of a query in its order, resolved once; pages read on demand."""

    def __len__(self) -> int: ...
    def page_json(self, offset: int, limit: int) -> dict[str, Any]: ...
    def page_pgn(self, offset: int, limit: int) -> str: ...
    def page_columns(self, offset: int, limit: int) -> Columns: ...

class PositionScan:
    """A position listing's parts, each read as one batch."""

    def __len__(self) -> int: ...
    @property
    def batch(self) -> int:
        """Parts to read at once: 8, fewer under a memory budget."""
    def read_rows(self, first: int, count: int) -> PositionBatch:
        """Parts first..first+count, read on every core, as rows made tuples on demand."""
    def read(self, first: int, count: int, fen: bool = True) -> Columns:
        """Parts first..first+count, read on every core, as one batch in order (without the
        FEN column when fen is False)."""

class PositionBatch:
    """Listed positions of a few parts, in order."""

    def __len__(self) -> int: ...
    def rows(self, start: int, stop: int) -> list[Tuple[str, bytes, int, int, int, int]]:
        """Rows start:stop as (fen, key, games, white, draws, black), FENs decoded on every core."""

class Database:
    """The compiled half of tabiya.Database."""

    def __init__(self, path: Union[str, PathLike[str]], *, read_only: bool = True) -> None: ...
    def close(self) -> None: ...
    @property
    def path(self) -> Path: ...
    @property
    def read_only(self) -> bool: ...
    def stats(self) -> dict[str, Any]: ...
    def query(self, fen: Optional[str] = None, moves: Optional[str] = None, uci: Optional[str] = None,
              max_moves: int = 12, top: int = 4, recent: int = 4,
              filters: Optional[dict[str, Any]] = None, variant: Optional[str] = None) -> dict[str, Any]: ...
    def search_material(self, signature: str, *, side: Optional[str] = None, castling: Optional[str] = None,
                        limit: int = 20, variant: Optional[str] = None, **filters: Any) -> dict[str, Any]: ...
    def search_pattern(self, expression: str, *, material: Optional[str] = None, side: Optional[str] = None,
                       flip_colours: bool = False, limit: int = 20, variant: Optional[str] = None,
                       **filters: Any) -> dict[str, Any]: ...
    def games_cursor(self, fen: Optional[str] = None, moves: Optional[str] = None, uci: Optional[str] = None, *,
                     pattern: Optional[str] = None, flip_colours: bool = False, material: Optional[str] = None,
                     side: Optional[str] = None, and_: Sequence[str] = ..., not_: Sequence[str] = ...,
                     sort: str = "id", variant: Optional[str] = None, **filters: Any) -> GameCursor: ...
    def position_scan(self, *, material: Optional[str] = None, pattern: Optional[str] = None,
                      flip_colours: bool = False, side: Optional[str] = None,
                      variant: Optional[str] = None) -> PositionScan: ...
    def report_opening(self, fen: Optional[str] = None, moves: Optional[str] = None, uci: Optional[str] = None, *,
                       versus: Optional[dict[str, Any]] = None, depth: int = 8, lines: int = 6,
                       themes: Sequence[str] = ..., default_themes: bool = True, theme_plies: int = 40,
                       variant: Optional[str] = None,
                       filters: Optional[dict[str, Any]] = None) -> dict[str, Any]: ...
    def report_player(self, name: str, *, color: Optional[str] = None, depth: int = 8, min_share: float = 2.0,
                      variant: Optional[str] = None, filters: Optional[dict[str, Any]] = None) -> dict[str, Any]: ...
    def report_database(self, *, plies: int = 10, top: int = 30, variant: Optional[str] = None) -> dict[str, Any]: ...
    def ingest(self, paths: Sequence[Union[str, PathLike[str]]], *,
               rejects: Optional[Union[str, PathLike[str]]] = None) -> dict[str, Any]: ...
    def _time_lookup(self, fen: str, rounds: int) -> tuple[float, float]: ...
