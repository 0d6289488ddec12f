"""Time-series columns have one definition (the engine's `metrics/columns.rs`): Python's
tables and docs/results.md follow it, and a run writes no column it does not declare."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import airlab
from airlab import _core
from airlab.results import TABLES

DOCS = Path(__file__).resolve().parents[1] / "docs" / "results.md"
PREFIXES = {"flows": "cc.", "queues": "qdisc."}


def _doc_section(table: str) -> str:
    text = DOCS.read_text(encoding="utf-8")
    match = re.search(rf"\*\*{table}\.parquet\*\*(.*?)(?=\n\*\*\w+\.parquet\*\*|\n## )", text, re.S)
    assert match, f"docs/results.md has no section for {table}.parquet"
    return match.group(1)


@pytest.mark.parametrize("table", list(_core.columns()))
def test_every_column_is_documented(table: str) -> None:
    time, entity, cols = _core.columns()[table]
    section = _doc_section(table)
    missing = [n for n in (time, entity, *(c[0] for c in cols)) if f"`{n}`" not in section]
    assert not missing, f"docs/results.md, {table}.parquet does not describe {missing}"
    assert all(unit is not None and doc for _, unit, doc in cols)


@pytest.mark.parametrize("name", ["basics/dumbbell-cubic", "aqm/xlayer-uplink", "wifi/ax-cell-10"])
def test_runs_write_only_declared_columns(name: str) -> None:
    res = airlab.run(name)  # each runs in well under a second
    for table, (expected, _) in TABLES.items():
        df = getattr(res, table)
        assert list(df.columns[: len(expected)]) == expected, table
        extra = [
            c for c in df.columns[len(expected) :] if not c.startswith(PREFIXES.get(table, "\0"))
        ]
        assert not extra, f"{name}: {table} has undeclared columns {extra}"
    assert any(c.startswith("cc.") for c in res.flows.columns)
