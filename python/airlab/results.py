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


#: The largest summary.json or scenario.json read back: a summary holds about a kilobyte per
#: flow, queue and link, so 10,000 flows (the most a scenario has) fit many times over.
MAX_JSON_BYTES = 256 << 20


class ResultFileError(ValueError):
    """A file of a result directory is not what ``Result.save`` writes."""

    def __init__(self, path: Path, problem: str) -> None:
        super().__init__(f"{path}: {problem}")
        self.path = path


def _read_json(path: Path) -> Any:
    """A result directory's JSON file, or ResultFileError saying why it cannot be one."""
    try:
        size = path.stat().st_size
        if size > MAX_JSON_BYTES:
            raise ResultFileError(path, f"{size:,} bytes; expected at most {MAX_JSON_BYTES:,}")
        return json.loads(path.read_bytes().decode("utf-8"))
    except OSError as e:
        raise ResultFileError(path, f"cannot read it ({e.strerror or e})") from None
    except UnicodeDecodeError as e:
        raise ResultFileError(path, f"not UTF-8 text (byte {e.start})") from None
    except json.JSONDecodeError as e:
        raise ResultFileError(
            path, f"not JSON ({e.msg}, line {e.lineno} column {e.colno})"
        ) from None
    except RecursionError:
        raise ResultFileError(path, "JSON nested deeper than a summary ever is") from None


def _check_summary(summary: Any, path: Path) -> None:
    """What every reader of a summary relies on: an object whose entity lists (flows, queues,
    links, wifi) hold objects with a string ``name``."""
    if not isinstance(summary, dict):
        raise ResultFileError(path, f"expected a JSON object, got {type(summary).__name__}")
    for table in ("flows", "queues", "links", "wifi"):
        entities = summary.get(table, [])
        if not isinstance(entities, list):
            raise ResultFileError(path, f"{table}: expected a list, got {type(entities).__name__}")
        for i, e in enumerate(entities):
            if not isinstance(e, dict) or not isinstance(e.get("name"), str):
                raise ResultFileError(path, f"{table}[{i}]: expected an object with a name")


def _read_table(path: Path, columns: list[str]) -> pd.DataFrame:
    """A time-series table of a result directory. Its time and entity columns (the first two)
    must be there; a value column that a directory from an older version lacks is NaN."""
    try:
        df = pd.read_parquet(path)
    except (OSError, ValueError) as e:  # pyarrow's errors derive from these
        raise ResultFileError(path, f"not a Parquet table ({e})") from None
    missing = [c for c in columns[:2] if c not in df.columns]
    if missing:
        raise ResultFileError(path, f"expected the columns {', '.join(columns[:2])}")
    for c in columns[2:]:
        if c not in df.columns:
            df[c] = np.nan
    return df


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
        """Read back a result directory written by :meth:`save`.

        Its files are checked before use: :class:`ResultFileError` (a ``ValueError``) names
        the file and what is wrong when one is not what :meth:`save` writes (not JSON, a
        summary that is not an object of entity lists, a table without its columns)."""
        d = Path(out_dir)
        summary = _read_json(d / "summary.json")
        _check_summary(summary, d / "summary.json")
        scenario = _read_json(d / "scenario.json")
        if not isinstance(scenario, dict):
            raise ResultFileError(d / "scenario.json", "expected a JSON object, the scenario")
        tables = {}
        for name, (cols, key) in TABLES.items():
            p = d / f"{name}.parquet"
            tables[name] = _read_table(p, cols) if p.exists() else _frame(None, cols, key)
        return cls(summary=summary, scenario=scenario, source=str(d), **tables)

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
