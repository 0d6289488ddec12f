"""A run's tables as numpy columns (airlab.tables.Columns): the Parquet file written without
pandas holds what writing the DataFrame did, per-entity rows come in groupby's order, and a
DataFrame gives back the columns it was built from."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import airlab
from airlab import _io
from airlab.results import TABLES
from airlab.tables import Columns
from conftest import DUMBBELL, data_text


def _as_pandas_writes(columns: Columns, folder: Path) -> pa.Table:
    """The table as a Parquet file holds it when written from the DataFrame (pandas' own
    key-value metadata left out); checks that the file written without pandas holds it too,
    in as many row groups."""
    _io.write_parquet(folder / "pandas.parquet", columns.frame())
    _io.write_table(folder / "arrow.parquet", columns.arrow())
    files = [pq.ParquetFile(folder / f"{how}.parquet") for how in ("pandas", "arrow")]
    tables = [f.read().replace_schema_metadata(None) for f in files]
    assert tables[1].equals(tables[0])
    assert files[1].metadata.num_row_groups == files[0].metadata.num_row_groups
    return tables[0]


@pytest.fixture(scope="module")
def runs() -> list[airlab.Result]:
    """A wired run (empty Wi-Fi, FCT, ping and batch tables) and a Wi-Fi cell."""
    return [
        airlab.run(DUMBBELL, seed=1, set={"duration": "2s"}),
        airlab.run_text(data_text("wifi-cell"), seed=1),
    ]


def test_a_runs_tables_are_written_as_from_their_dataframes(
    runs: list[airlab.Result], tmp_path: Path
) -> None:
    for res in runs:
        for name in TABLES:
            columns = res.columns(name)
            assert isinstance(columns, Columns), "a run's tables stay the engine's columns"
            assert columns.arrow().equals(_as_pandas_writes(columns, tmp_path)), name
    flows = runs[0].columns("flows").arrow()
    assert flows["flow"].type == pa.dictionary(pa.int8(), pa.string())


def _table(rows: int, names: list[str], **extra: Any) -> Columns:
    """A flows table of ``rows`` random rows over entities ``names`` (-1: a row without one),
    a fifth of the goodputs NaN."""
    rng = np.random.default_rng(5)
    codes = rng.integers(-1, len(names), rows)
    raw = {"time_s": np.arange(rows) / 10, "flow": (codes, names), **extra}
    values = rng.normal(size=rows)
    values[rng.random(rows) < 0.2] = np.nan
    return Columns({**raw, "goodput_mbps": values}, TABLES["flows"][0], "flow")


@pytest.mark.parametrize(
    "columns",
    [
        _table(50, ["a", "b", "c"]),  # codes in int8, some rows without an entity
        _table(400, [f"flow{i}" for i in range(200)]),  # 200 names: codes in int16
        _table(30, ["a"], **{"cc.x": np.full(30, np.nan)}),  # a column of NaN only
        _table(20, ["a", "b"], **{"cc.extra": np.linspace(0, 1, 20)}),  # a column beyond
    ],
)
def test_arrow_holds_what_pandas_writes(columns: Columns, tmp_path: Path) -> None:
    built = columns.arrow()
    assert built.equals(_as_pandas_writes(columns, tmp_path))
    assert built["goodput_mbps"].null_count == np.isnan(columns.values["goodput_mbps"]).sum() > 0
    assert list(columns.frame().columns) == columns.arrow().column_names


def test_a_table_without_rows_has_an_entity_column_of_nulls(tmp_path: Path) -> None:
    empty = Columns(None, TABLES["pings"][0], "flow")
    assert len(empty) == 0 and empty.groups() == []
    assert empty.arrow().equals(_as_pandas_writes(empty, tmp_path))
    assert empty.arrow()["flow"].type == pa.null()
    with pytest.raises(ValueError, match="flow: 3 rows without the entity column"):
        Columns({"time_s": np.zeros(3)}, TABLES["pings"][0], "flow")


def test_a_column_of_another_type_is_refused_naming_it() -> None:
    columns = _table(5, ["a"], **{"cc.count": np.arange(5)})
    with pytest.raises(TypeError, match=r"cc\.count: expected float64 values, got int64"):
        columns.arrow()


@pytest.mark.parametrize("names", [["a", "b", "c", "d"], [f"f{i}" for i in range(300)]])
def test_groups_come_in_the_order_of_a_pandas_groupby(names: list[str]) -> None:
    columns = _table(1000, names)
    groups = columns.frame().groupby("flow", sort=False, observed=True).indices
    assert [name for name, _ in columns.groups()] == list(groups)
    for name, rows in columns.groups():
        np.testing.assert_array_equal(rows, groups[name])


def test_a_dataframe_gives_the_columns_it_was_built_from(runs: list[airlab.Result]) -> None:
    engine = runs[1].columns("queues")
    back = Columns.of_frame(engine.frame(), "queue")
    assert back.order == engine.order
    assert [(n, list(r)) for n, r in back.groups()] == [(n, list(r)) for n, r in engine.groups()]
    for name, values in engine.values.items():
        np.testing.assert_array_equal(back.values[name], values)
    # a DataFrame whose entities are text rather than a categorical
    text = engine.frame().astype({"queue": object})
    assert [n for n, _ in Columns.of_frame(text, "queue").groups()] == [
        n for n, _ in engine.groups()
    ]
