"""Columns from tabiya as pyarrow record batches (pyarrow is an optional dependency:
``pip install tabiya[arrow]``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

if TYPE_CHECKING:
    import pyarrow

    from ._native import Columns


def _pyarrow():
    try:
        import pyarrow
    except ImportError as err:  # pragma: no cover - depends on the environment
        raise ImportError("Arrow tables need pyarrow: pip install 'tabiya[arrow]'") from err
    return pyarrow


def _arrow_type(pa, name: str):
    if name.startswith("fixed_size_binary["):
        return pa.binary(int(name[len("fixed_size_binary[") : -1]))
    return {
        "uint64": pa.uint64(),
        "uint32": pa.uint32(),
        "uint16": pa.uint16(),
        "float64": pa.float64(),
        "large_string": pa.large_string(),
        "large_binary": pa.large_binary(),
    }[name]


def record_batch(columns: "Columns") -> "pyarrow.RecordBatch":
    """A record batch over the column buffers tabiya wrote (no copy per row)."""
    pa = _pyarrow()
    arrays, names = [], []
    for name, type_name, buffers in columns.arrow_buffers():
        arrow_type = _arrow_type(pa, type_name)
        wrapped = [None if b is None else pa.py_buffer(b) for b in buffers]
        arrays.append(pa.Array.from_buffers(arrow_type, len(columns), wrapped))
        names.append(name)
    return pa.RecordBatch.from_arrays(arrays, names=names)


POSITION_COLUMNS = [
    ("fen", "large_string"),
    ("key", "fixed_size_binary[21]"),
    ("games", "uint64"),
    ("white", "uint64"),
    ("draws", "uint64"),
    ("black", "uint64"),
    ("eval_games", "uint64"),
    ("eval_cp", "float64"),
    ("white_mates", "uint64"),
    ("black_mates", "uint64"),
]
GAME_COLUMNS = [
    ("id", "uint64"),
    ("white", "large_string"),
    ("black", "large_string"),
    ("white_elo", "uint16"),
    ("black_elo", "uint16"),
    ("date", "large_string"),
    ("event", "large_string"),
    ("site", "large_string"),
    ("round", "large_string"),
    ("result", "large_string"),
]


def table(batches: Iterable["Columns"], columns: "list[tuple[str, str]]") -> "pyarrow.Table":
    """A table of the batches, with these (name, type) columns even when there are none."""
    pa = _pyarrow()
    schema = pa.schema([(name, _arrow_type(pa, type_name)) for name, type_name in columns])
    return pa.Table.from_batches([record_batch(b) for b in batches], schema=schema)
