"""A run's time-series tables as numpy columns, as the engine returns them, read without pandas.

Writing a run's Parquet files and drawing its figures need one numpy array per column and each
row's entity; importing pandas costs 0.3 CPU s, a third of what ``airlab run`` of a 1 s
scenario may cost in all (docs/performance.md). :class:`Columns` holds a table as the engine
returned it and gives it as a pyarrow Table (the Parquet file), as per-entity rows (the
figures) and, when asked, as the pandas DataFrame of ``Result.flows`` etc.

numpy, pandas and pyarrow are imported where used: ``import airlab`` loads none of them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd
    import pyarrow as pa


def frame(columns: Mapping[str, Any] | None, expected: list[str], key: str | None) -> pd.DataFrame:
    """A DataFrame over ``columns`` (numpy arrays or lists), without copying arrays.

    An entity column given as ``(codes, names)`` (the engine's) becomes a categorical, so a
    long run holds one small integer per row instead of a string object. A column of
    ``expected`` that is absent is NaN (the entity column: missing); the expected columns come
    first, in their order, then the others sorted (e.g. ``cc.<var>``).
    """
    import numpy as np
    import pandas as pd

    data: dict[str, Any] = dict(columns or {})
    if key is not None and isinstance(data.get(key), tuple):
        codes, names = data[key]
        data[key] = pd.Categorical.from_codes(codes.astype(np.int32), categories=names)
    df = pd.DataFrame(data, copy=False)
    for col in expected:
        if col not in df.columns:
            df[col] = pd.Categorical([None] * len(df)) if col == key else np.full(len(df), np.nan)
    extras = sorted(c for c in df.columns if c not in expected)
    return df[[*expected, *extras]]


class Columns:
    """One table: its value columns as numpy arrays and its entity column (``key``) as
    ``codes``, each row's index into ``names`` (-1 for none). The columns and their order are
    those of :meth:`frame`'s DataFrame."""

    def __init__(self, columns: Mapping[str, Any] | None, expected: list[str], key: str) -> None:
        """``columns`` as :func:`frame` takes them, numpy arrays, the entity column as
        ``(codes, names)``; None (or no columns) for a table without rows."""
        import numpy as np

        data = dict(columns or {})
        entity = data.pop(key, None)
        rows = len(next(iter(data.values()))) if data else 0
        if entity is None and rows:
            raise ValueError(f"{key}: {rows} rows without the entity column")
        codes, names = (np.zeros(0, dtype=np.int32), []) if entity is None else entity
        self.key = key
        self.codes: np.ndarray = np.asarray(codes, dtype=np.int32)
        self.names: list[Any] = list(names)
        self.values: dict[str, np.ndarray] = {
            c: np.asarray(data[c]) if c in data else np.full(rows, np.nan)
            for c in expected
            if c != key
        }
        self.values |= {c: np.asarray(data[c]) for c in sorted(data) if c not in expected}
        self.order = [*expected, *(c for c in self.values if c not in expected)]
        self._expected = expected

    @classmethod
    def of_frame(cls, df: pd.DataFrame, key: str) -> Columns:
        """The columns of a DataFrame whose ``key`` column names each row's entity (a
        categorical, or values such as strings)."""
        import pandas as pd

        entity = df[key]
        if isinstance(entity.dtype, pd.CategoricalDtype):
            codes, names = entity.cat.codes.to_numpy(), list(entity.cat.categories)
        else:
            codes, uniques = pd.factorize(entity, sort=False)
            names = list(uniques)
        data: dict[str, Any] = {c: df[c].to_numpy() for c in df.columns if c != key}
        return cls({**data, key: (codes, names)}, list(df.columns), key)

    def __len__(self) -> int:
        return len(self.codes)

    def frame(self) -> pd.DataFrame:
        """The table as a DataFrame (``Result.flows`` etc.), over the same arrays."""
        data = {**self.values, self.key: (self.codes, self.names)}
        return frame(data, self._expected, self.key)

    def arrow(self) -> pa.Table:
        """The table as pyarrow holds it for Parquet, with the types and values a pandas round
        trip gives (what the files held when they were written from the DataFrame): the entity
        column a dictionary of strings indexed by the smallest integer pandas would use, or all
        nulls when there is no entity; a value column's NaN a null.

        The arrays are built from their buffers, over the engine's memory: ``pyarrow.array()``
        imports pandas (0.3 s) to ask whether its argument is a pandas object."""
        import pyarrow as pa

        arrays = [
            self._entity_array() if name == self.key else _floats(name, self.values[name])
            for name in self.order
        ]
        return pa.Table.from_arrays(arrays, names=self.order)

    def _entity_array(self) -> pa.Array:
        """The entity column: the names as a dictionary of strings, or nulls without names."""
        import numpy as np
        import pyarrow as pa

        if not self.names:
            return pa.nulls(len(self))
        encoded = [str(n).encode() for n in self.names]
        offsets = np.cumsum([0, *map(len, encoded)], dtype=np.int32)
        names = pa.Array.from_buffers(
            pa.string(),
            len(encoded),
            [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))],
        )
        index = _index_type(len(self.names))
        known = self.codes >= 0
        codes = pa.Array.from_buffers(
            pa.from_numpy_dtype(index),
            len(self),
            [_validity(known), pa.py_buffer(self.codes.astype(index))],
            null_count=len(self) - int(known.sum()),
        )
        return pa.DictionaryArray.from_arrays(codes, names)

    def groups(self) -> list[tuple[Any, np.ndarray]]:
        """``(entity name, its rows' indices)`` per entity with rows, in the order each first
        appears (as ``DataFrame.groupby(key, sort=False, observed=True)``); rows without an
        entity are in none."""
        import numpy as np

        if not len(self):
            return []
        # numpy sorts 8- and 16-bit integers by radix, in linear time
        narrow = self.codes.astype(_index_type(len(self.names)))
        by_entity = np.argsort(narrow, kind="stable")
        sorted_codes = self.codes[by_entity]
        starts = np.flatnonzero(np.r_[True, sorted_codes[1:] != sorted_codes[:-1]])
        ends = np.r_[starts[1:], len(sorted_codes)]
        # the stable sort keeps each entity's rows in table order: its first row comes first
        found = [(by_entity[s], s, e) for s, e in zip(starts, ends, strict=True)]
        return [
            (self.names[sorted_codes[s]], by_entity[s:e])
            for _, s, e in sorted(found)
            if sorted_codes[s] >= 0
        ]


def _index_type(categories: int) -> Any:
    """The integer type of a categorical's codes with this many categories, as pandas picks it
    (int8 below 127 categories, then int16, int32, int64)."""
    import numpy as np

    for kind in (np.int8, np.int16, np.int32):
        if categories < np.iinfo(kind).max:
            return kind
    return np.int64


def _floats(name: str, values: np.ndarray) -> pa.Array:
    """A float64 column over the array's memory, NaN as null (as pandas writes it)."""
    import numpy as np
    import pyarrow as pa

    if values.dtype != np.float64:
        raise TypeError(f"{name}: expected float64 values, got {values.dtype}")
    values = np.ascontiguousarray(values)
    known = ~np.isnan(values)
    buffers = [_validity(known), pa.py_buffer(values)]
    return pa.Array.from_buffers(
        pa.float64(), len(values), buffers, null_count=len(values) - int(known.sum())
    )


def _validity(known: np.ndarray) -> pa.Buffer | None:
    """Arrow's validity bitmap (one bit per row, least significant first) of the rows that are
    ``known``; None when all are."""
    import numpy as np
    import pyarrow as pa

    return None if known.all() else pa.py_buffer(np.packbits(known, bitorder="little"))
