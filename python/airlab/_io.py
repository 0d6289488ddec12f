"""Atomic file writes: a reader never sees a half-written file.

Every output goes to a temporary file in the destination directory (so the final rename stays on
one filesystem) and is renamed over the destination only once it is complete and flushed.
Temporary files start with a dot and end in ``.tmp``, so directory scans can ignore them.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

TMP_SUFFIX = ".tmp"


def _file_mode() -> int:
    # mkstemp creates 0600 files; give finished files the usual mode (0666 minus umask).
    mask = os.umask(0o022)
    os.umask(mask)
    return 0o666 & ~mask


_MODE = _file_mode()


def is_temp(path: Path) -> bool:
    """True for the temporary files this module creates."""
    return path.name.startswith(".") and path.name.endswith(TMP_SUFFIX)


@contextmanager
def atomic_path(dest: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a temporary path next to ``dest``; rename it onto ``dest`` if the block succeeds."""
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=dest.parent, prefix=f".{dest.name}.", suffix=TMP_SUFFIX)
    os.close(fd)
    tmp_path = Path(tmp)
    os.chmod(tmp_path, _MODE)
    try:
        yield tmp_path
        with open(tmp_path, "rb+") as f:
            os.fsync(f.fileno())
        os.replace(tmp_path, dest)
    except BaseException:
        tmp_path.unlink(missing_ok=True)
        raise


def write_bytes(dest: str | os.PathLike[str], data: bytes) -> None:
    with atomic_path(dest) as tmp:
        tmp.write_bytes(data)


def write_text(dest: str | os.PathLike[str], text: str) -> None:
    write_bytes(dest, text.encode("utf-8"))


def write_json(dest: str | os.PathLike[str], obj: Any) -> None:
    write_text(dest, json.dumps(obj, indent=2, allow_nan=True) + "\n")


def write_with(dest: str | os.PathLike[str], writer: Callable[[Path], None]) -> None:
    """Atomically write ``dest`` by calling ``writer(tmp_path)``."""
    with atomic_path(dest) as tmp:
        writer(tmp)


#: Rows per Parquet row group: a long run's table is converted and written a slice at a time,
#: so writing it needs memory for one slice, not a second copy of the table.
PARQUET_ROWS = 1 << 16


def _with_provenance(schema: pa.Schema, provenance: dict[str, Any] | None) -> pa.Schema:
    """``schema`` with ``provenance`` in its key-value metadata under ``airlab`` (as JSON)."""
    if provenance is None:
        return schema
    extra = {b"airlab": json.dumps(provenance).encode()}
    return schema.with_metadata({**(schema.metadata or {}), **extra})


def write_parquet(
    dest: str | os.PathLike[str], df: pd.DataFrame, provenance: dict[str, Any] | None = None
) -> None:
    """Atomically write ``df`` (without its index) as Parquet, in row groups; ``provenance``
    goes into the file's key-value metadata under ``airlab`` (as JSON)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    # Column types from an empty slice, unless a column holds Python objects (text of a
    # reproduction's table), whose type only the values tell.
    typed = df if any(dt.kind == "O" for dt in df.dtypes) else df.iloc[:0]
    schema = _with_provenance(pa.Schema.from_pandas(typed, preserve_index=False), provenance)

    def write(path: Path) -> None:
        with pq.ParquetWriter(path, schema) as writer:
            for start in range(0, max(len(df), 1), PARQUET_ROWS):
                part = df.iloc[start : start + PARQUET_ROWS]
                writer.write_table(pa.Table.from_pandas(part, schema=schema, preserve_index=False))

    write_with(dest, write)


def write_table(
    dest: str | os.PathLike[str], table: pa.Table, provenance: dict[str, Any] | None = None
) -> None:
    """Atomically write a pyarrow Table as Parquet, in row groups of :data:`PARQUET_ROWS` (as
    :func:`write_parquet` does), without pandas; ``provenance`` as there."""
    import pyarrow.parquet as pq

    schema = _with_provenance(table.schema, provenance)

    def write(path: Path) -> None:
        with pq.ParquetWriter(path, schema) as writer:
            writer.write_table(table, PARQUET_ROWS)

    write_with(dest, write)
