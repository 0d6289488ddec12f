"""The result of one run: summary dict, resolved scenario, and time series as DataFrames."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from airlab import _checks, _core, _io
from airlab.schema import provenance, scenario_digest


def _tables() -> dict[str, tuple[list[str], str]]:
    """Each table's guaranteed columns (time, entity, then the values in the documented order)
    and its entity column, as the engine defines them (``airlab._core.columns()``). The engine
    may add more: a congestion control's ``cc.<var>``, a qdisc's ``qdisc.<var>``."""
    out = {}
    for name, (time, entity, cols) in _core.columns().items():
        out[name] = ([time, entity, *(c[0] for c in cols)], entity)
    return out


TABLES: dict[str, tuple[list[str], str]] = _tables()


def _frame(columns: dict[str, Any] | None, expected: list[str], key: str | None) -> pd.DataFrame:
    """A DataFrame over the engine's numpy columns, without copying them.

    The entity column arrives as ``(codes, names)`` and becomes a categorical, so a long run
    holds one small integer per row instead of a string object.
    """
    data: dict[str, Any] = dict(columns or {})
    if key is not None and isinstance(data.get(key), tuple):
        codes, names = data[key]
        data[key] = pd.Categorical.from_codes(codes.astype(np.int32), categories=names)
    df = pd.DataFrame(data, copy=False)
    for col in expected:
        if col not in df.columns:
            df[col] = pd.Categorical([None] * len(df)) if col == key else np.full(len(df), np.nan)
    # the documented columns first, in the documented order, then extras (e.g. "cc.<var>")
    extras = sorted(c for c in df.columns if c not in expected)
    return df[[*expected, *extras]]


@dataclass(repr=False)
class Result:
    """Everything one run produced.

    ``summary`` is the engine's summary (see docs/results.md), ``scenario`` the resolved
    scenario, and ``flows``, ``queues``, ``links``, ``wifi``, ``fcts``, ``pings`` are long-format
    DataFrames with one row per (sample time, flow/queue/link/Wi-Fi link), per completed
    connection or per ping reply;
    ``batches`` has one row per batch and flow when ``[metrics] batches`` cut the run.
    """

    summary: dict[str, Any]
    scenario: dict[str, Any]
    flows: pd.DataFrame
    queues: pd.DataFrame
    links: pd.DataFrame
    wifi: pd.DataFrame
    fcts: pd.DataFrame
    pings: pd.DataFrame
    batches: pd.DataFrame
    source: str | None = None

    @classmethod
    def from_core(cls, raw: dict[str, Any], source: str | None = None) -> Result:
        """Build a Result from what ``_core.run`` returns."""
        tables = {name: _frame(raw.get(name), cols, key) for name, (cols, key) in TABLES.items()}
        summary = json.loads(raw["summary"])
        scenario = json.loads(raw["scenario"])
        made = provenance(summary["seed"], scenario_digest(scenario))
        return cls(
            summary={"provenance": made} | summary,
            scenario=scenario,
            source=source,
            **tables,
        )

    @classmethod
    def load(cls, out_dir: str | os.PathLike[str]) -> Result:
        """Read back a result directory written by :meth:`save`."""
        d = Path(out_dir)
        tables = {}
        for name, (cols, key) in TABLES.items():
            p = d / f"{name}.parquet"
            tables[name] = pd.read_parquet(p) if p.exists() else _frame(None, cols, key)
        return cls(
            summary=json.loads((d / "summary.json").read_text()),
            scenario=json.loads((d / "scenario.json").read_text()),
            source=str(d),
            **tables,
        )

    def __repr__(self) -> str:
        s = self.summary
        return (
            f"<Result {s.get('scenario')!r} seed={s.get('seed')}: "
            f"{len(s.get('flows', []))} flows, {len(s.get('queues', []))} queues, "
            f"{len(s.get('links', []))} links, {len(self.flows)} flow samples>"
        )

    def _repr_html_(self) -> str:
        """Jupyter's view of a run: the flows table and the goodput plot."""
        from airlab.report import fragment

        return fragment(self)

    # -- convenience views ---------------------------------------------------------------

    @property
    def flow_names(self) -> list[str]:
        return [f["name"] for f in self.summary.get("flows", [])]

    def flow_summary(self) -> pd.DataFrame:
        """One row per flow with the main summary numbers."""
        rows = []
        for f in self.summary.get("flows", []):
            rtt = f.get("rtt_ms") or {}
            rows.append(
                {
                    "flow": f.get("name"),
                    "cc": f.get("cc"),
                    "app": f.get("app"),
                    "goodput_mbps": f.get("goodput_mbps"),
                    "rtt_p50_ms": rtt.get("p50"),
                    "rtt_p95_ms": rtt.get("p95"),
                    "retransmits": f.get("retransmits"),
                }
            )
        return pd.DataFrame(rows)

    # -- output --------------------------------------------------------------------------

    def save(
        self, out_dir: str | os.PathLike[str], plots: bool = True, report: bool = True
    ) -> Path:
        """Write the run's files into ``out_dir`` (created if needed); each write is atomic.

        Files: summary.json, scenario.json, flows/queues/links/wifi/fcts/pings/batches.parquet,
        and unless disabled plots/*.png and report.html. ``ValueError`` if ``out_dir`` is
        empty or cannot be created and written to.
        """
        d = _checks.output_dir(out_dir, "out_dir")
        d.mkdir(parents=True, exist_ok=True)
        _io.write_json(d / "summary.json", self.summary)
        _io.write_json(d / "scenario.json", self.scenario)
        for name in TABLES:
            df: pd.DataFrame = getattr(self, name)
            _io.write_parquet(d / f"{name}.parquet", df, self.summary.get("provenance"))
        images: dict[str, Path] = {}
        if plots:
            from airlab import plots as _plots

            images = _plots.plot_all(self, d / "plots")
        if report:
            from airlab import report as _report

            _io.write_text(d / "report.html", _report.render(self, images))
        return d
