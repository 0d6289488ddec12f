"""Flent's data files: export a run so Flent's GUI and plots open it, and read Flent files as
results that ``airlab compare`` and ``airlab plot`` take beside airlab's own.

A Flent data file (``.flent.gz``) is gzipped JSON, file format version 4: ``metadata`` (the
test's name, start time, step size, per-series metadata...), ``x_values`` (the common time axis,
seconds from the start), ``results`` (each series on that axis, ``null`` where it has no value)
and ``raw_values`` (each series' own samples ``{"t": unix time, "val": value, ...}``). Flent
draws a file with the plots of the test named in ``metadata.NAME``, so an export names the Flent
test whose series it fills:

- ``tcp_1up`` for one TCP flow (series ``TCP upload``), ``tcp_nup`` for several (``TCP
  upload::1``... and their ``sum``, ``avg`` and ``fairness``), ``ping`` for pings alone;
- the first ping flow is ``Ping (ms) ICMP``, further ones ``Ping (ms) <flow>``;
- a TCP series carries the flow's goodput per sample, and in its raw values the sender's
  ``tcp_rtt``, ``tcp_cwnd``, ``tcp_delivery_rate`` and ``tcp_pacing_rate`` (what Flent's ``ss``
  sampling records), so ``totals_with_tcp_rtt`` and ``tcp_delivery_with_rtt`` draw them.

UDP flows have no series in these tests and are left out (the file's ``AIRLAB`` metadata names
them). Each series' metadata keeps the airlab flow it came from, so a file read back has the
run's flow names.
"""

from __future__ import annotations

import bz2
import datetime as dt
import gzip
import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from airlab import _core, _io
from airlab.results import TABLES, Result, _frame
from airlab.stats import SRTT, distribution

#: The Flent file format version written and read.
FORMAT_VERSION = 4
#: File names Flent's loader opens (gzip, bzip2 or plain JSON).
SUFFIXES = (".flent.gz", ".flent.bz2", ".flnt", ".flent")
#: The first ping flow's series, as Flent's ping runner names it.
PING = "Ping (ms) ICMP"
#: Aggregate series of ``tcp_nup`` computed from the streams, not flows of their own.
AGGREGATES = ("TCP upload sum", "TCP upload avg", "TCP upload fairness")
#: The flows-table columns a TCP series is made of.
TCP_COLUMNS = ("time_s", "goodput_mbps", "srtt_ms", "cwnd_pkts", "delivery_rate_mbps",
               "pacing_rate_mbps")  # fmt: skip
#: Flent looks up data points at most this many steps away when it aligns a series.
MAX_STEPS = 5


class FlentError(ValueError):
    """A file that is not a Flent data file airlab can read."""


def is_flent(path: str | os.PathLike[str]) -> bool:
    """True if ``path`` names a Flent data file (by its suffix)."""
    return str(path).endswith(SUFFIXES)


# -- export -----------------------------------------------------------------------------------


def _test_for(tcp: list[str], pings: list[str]) -> tuple[str, list[str], dict[str, Any]]:
    """The Flent test whose series a run with these TCP and ping flows fills: its name, the
    TCP flows' series names and its test parameters."""
    if len(tcp) == 1:
        return "tcp_1up", ["TCP upload"], {}
    if tcp:
        series = [f"TCP upload::{k + 1}" for k in range(len(tcp))]
        return "tcp_nup", series, {"upload_streams": len(tcp)}
    if pings:
        return "ping", [], {}
    raise ValueError("a Flent export needs a TCP or ping flow; this run has neither")


def _on_axis(times: np.ndarray, values: np.ndarray, axis: np.ndarray, step: float) -> list:
    """``values`` sampled at ``times``, interpolated onto ``axis`` as Flent's timeseries
    aggregator aligns a series: linearly between neighbouring samples, ``None`` beyond the
    first and last sample or more than :data:`MAX_STEPS` steps from the nearest one."""
    ok = np.isfinite(values)
    times, values = times[ok], values[ok]
    if len(times) == 0:
        return [None] * len(axis)
    on = np.interp(axis, times, values)
    idx = np.clip(np.searchsorted(times, axis), 1, max(len(times) - 1, 1))
    nearest = np.minimum(
        np.abs(axis - times[idx - 1]), np.abs(times[np.minimum(idx, len(times) - 1)] - axis)
    )
    gap = (axis < times[0]) | (axis > times[-1]) | (nearest > MAX_STEPS * step + 1e-9)
    return [None if g else float(v) for v, g in zip(on, gap, strict=True)]


def _stats(values: np.ndarray, units: str) -> dict[str, Any]:
    """The per-series metadata Flent's runners record."""
    meta: dict[str, Any] = {"UNITS": units}
    if len(values):
        meta |= {
            "MEAN_VALUE": float(np.mean(values)),
            "MIN_VALUE": float(np.min(values)),
            "MAX_VALUE": float(np.max(values)),
        }
    return meta


def _raw(t0: float, times: np.ndarray, columns: dict[str, np.ndarray]) -> list[dict[str, Any]]:
    rows = []
    for i, t in enumerate(times):
        row: dict[str, Any] = {"t": t0 + float(t)}
        for key, col in columns.items():
            v = float(col[i])
            if math.isfinite(v):
                row[key] = v
        if "val" in row:
            rows.append(row)
    return rows


@dataclass
class _Series:
    """What a Flent file holds, series by series."""

    axis: np.ndarray
    step: float
    t0: float
    warm: float
    results: dict[str, list] = field(default_factory=dict)
    raw: dict[str, list] = field(default_factory=dict)
    meta: dict[str, dict[str, Any]] = field(default_factory=dict)

    def add(
        self,
        series: str,
        t: np.ndarray,
        values: np.ndarray,
        raw: dict[str, np.ndarray],
        meta: dict[str, Any],
    ) -> None:
        self.results[series] = _on_axis(t, values, self.axis, self.step)
        self.raw[series] = _raw(self.t0, t, {"val": values, **raw})
        units = "ms" if series.startswith("Ping") else "Mbits/s"
        self.meta[series] = _stats(values[t > self.warm], units) | meta


def _stream_aggregates(out: _Series, streams: list[str]) -> None:
    """tcp_nup's sum, average and Jain's fairness of the streams at each point of the axis."""
    on_axis = [out.results[s] for s in streams]
    points = [[v for v in p if v is not None] for p in zip(*on_axis, strict=True)]
    out.results["TCP upload sum"] = [sum(p) if p else None for p in points]
    out.results["TCP upload avg"] = [sum(p) / len(p) if p else None for p in points]
    out.results["TCP upload fairness"] = [
        sum(p) ** 2 / (len(p) * sum(v * v for v in p)) if p and any(p) else None for p in points
    ]
    units = {"TCP upload sum": "Mbits/s", "TCP upload avg": "Mbits/s", "TCP upload fairness": "Idx"}
    out.meta |= {name: {"UNITS": u} for name, u in units.items()}


def to_flent(result: Result, time: dt.datetime | None = None) -> dict[str, Any]:
    """The Flent data file of ``result`` as a JSON-ready dict (see the module's description);
    ``time`` is the test's start (default: now, UTC)."""
    s = result.summary
    flows = {f["name"]: f for f in s.get("flows", [])}
    tcp = [n for n, f in flows.items() if f.get("cc") and f.get("app") != "ping"]
    pings = [n for n, f in flows.items() if f.get("app") == "ping"]
    others = [n for n in flows if n not in tcp and n not in pings]
    test, tcp_series, params = _test_for(tcp, pings)
    start = (time or dt.datetime.now(dt.UTC)).astimezone(dt.UTC)
    ft, pt = result.flows, result.pings
    times = np.unique(ft["time_s"].to_numpy(float)) if len(ft) else np.array([])
    length = float(s["duration_s"])
    step = float(np.min(np.diff(times))) if len(times) > 1 else length
    axis = np.round(np.arange(0.0, length + step / 2, step), 9)
    out = _Series(axis, step, start.timestamp(), float(s.get("warmup_s") or 0.0))
    for name, series in zip(tcp, tcp_series, strict=True):
        rows = ft[ft["flow"].astype(str) == name]
        column = {c: rows[c].to_numpy(float) for c in TCP_COLUMNS}
        raw = {
            "tcp_rtt": column["srtt_ms"],
            "tcp_cwnd": column["cwnd_pkts"],
            "tcp_delivery_rate": column["delivery_rate_mbps"],
            "tcp_pacing_rate": column["pacing_rate_mbps"],
        }
        meta = {
            "AIRLAB_FLOW": name,
            "CONG_CONTROL": flows[name].get("cc"),
            "HOST": flows[name].get("dst"),
        }
        out.add(series, column["time_s"], column["goodput_mbps"], raw, meta)
    if test == "tcp_nup":
        _stream_aggregates(out, tcp_series)
    for k, name in enumerate(pings):
        rows = pt[pt["flow"].astype(str) == name]
        t, seq = rows["time_s"].to_numpy(float), rows["seq"].to_numpy(float)
        series = PING if k == 0 else f"Ping (ms) {name}"
        meta = {"AIRLAB_FLOW": name, "HOST": flows[name].get("dst")}
        out.add(series, t, rows["rtt_ms"].to_numpy(float), {"seq": seq}, meta)
        for r in out.raw[series]:
            r["seq"] = int(r["seq"])
    iso = start.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    hosts = sorted({flows[n].get("dst") for n in [*tcp, *pings]} - {None})
    metadata = {
        "NAME": test,
        "TITLE": s.get("scenario"),
        "NOTE": f"airlab {_core.version()}, seed {s.get('seed')}",
        "TIME": iso,
        "T0": iso,
        "LENGTH": length,
        "TOTAL_LENGTH": length,
        "STEP_SIZE": step,
        "HOST": hosts[0] if hosts else None,
        "HOSTS": hosts,
        "LOCAL_HOST": "airlab",
        "IP_VERSION": 4,
        "TEST_PARAMETERS": params,
        "FLENT_VERSION": None,
        "DATA_FILENAME": None,
        "SERIES_META": out.meta,
        "FAILED_RUNNERS": 0,
        "AIRLAB": {"provenance": s.get("provenance"), "warmup_s": out.warm, "left_out": others},
    }
    return {
        "metadata": metadata,
        "version": FORMAT_VERSION,
        "x_values": axis.tolist(),
        "results": out.results,
        "raw_values": out.raw,
    }


def export(result: Result, path: str | os.PathLike[str], time: dt.datetime | None = None) -> Path:
    """Write ``result`` as a Flent data file at ``path`` (gzip when it ends in ``.gz``;
    written atomically). Returns the path."""
    p = Path(path)
    if not is_flent(p):
        raise ValueError(f"{p}: a Flent data file's name ends in {' or '.join(SUFFIXES)}")
    data = to_flent(result, time)
    data["metadata"]["DATA_FILENAME"] = p.name
    text = json.dumps(data, indent=2, sort_keys=True).encode()
    if p.name.endswith(".gz"):
        text = gzip.compress(text, mtime=0)
    elif p.name.endswith((".bz2", ".flnt")):
        text = bz2.compress(text)
    _io.write_bytes(p, text)
    return p


# -- import -----------------------------------------------------------------------------------


def _read(path: Path) -> dict[str, Any]:
    opener = (
        gzip.open
        if path.name.endswith(".gz")
        else bz2.open
        if path.name.endswith((".bz2", ".flnt"))
        else open
    )
    try:
        with opener(path, "rt", encoding="utf-8") as fp:  # type: ignore[operator]
            data = json.load(fp)
    except (OSError, EOFError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise FlentError(f"{path}: not a readable Flent data file ({e})") from None
    if not isinstance(data, dict) or not isinstance(data.get("metadata"), dict):
        raise FlentError(f"{path}: no `metadata` object; not a Flent data file")
    version = data.get("version", 1)
    if version != FORMAT_VERSION:
        raise FlentError(
            f"{path}: Flent file format version {version}; airlab reads version "
            f"{FORMAT_VERSION} (re-save it with Flent 1.0 or later: flent -i FILE -o NEW.flent.gz)"
        )
    for key in ("x_values", "results", "raw_values"):
        if key not in data:
            raise FlentError(f"{path}: key `{key}` missing from a Flent data file")
    return data


def _t0(meta: dict[str, Any], path: Path) -> float:
    stamp = meta.get("T0") or meta.get("TIME")
    try:
        when = dt.datetime.fromisoformat(str(stamp).replace("Z", "+00:00"))
    except ValueError:
        raise FlentError(f"{path}: metadata.T0 {stamp!r} is not an ISO 8601 time") from None
    return (when if when.tzinfo else when.replace(tzinfo=dt.UTC)).timestamp()


def load(path: str | os.PathLike[str]) -> Result:
    """Read a Flent data file as a :class:`Result`: every throughput series (``TCP ...``,
    ``UDP ...``, in Mbit/s) is a flow with its goodput (and, where Flent sampled them, its
    smoothed RTT, cwnd, delivery and pacing rate), every ``Ping ...`` series a ping flow with its
    replies in ``pings``. Flows keep the airlab names of an airlab export, else their series
    names. The summary covers the samples after an airlab export's warm-up, else all of them."""
    p = Path(path)
    data = _read(p)
    meta = data["metadata"]
    series_meta = meta.get("SERIES_META") or {}
    t0 = _t0(meta, p)
    warm = float((meta.get("AIRLAB") or {}).get("warmup_s") or 0.0)
    length = float(meta.get("TOTAL_LENGTH") or max(data["x_values"] or [0.0]))
    flow_cols = {c: [] for c in TABLES["flows"][0]}
    ping_cols = {c: [] for c in TABLES["pings"][0]}
    flows = []
    for series, raw in data["raw_values"].items():
        sm = series_meta.get(series) or {}
        units = sm.get("UNITS")
        name = sm.get("AIRLAB_FLOW") or series
        samples = [r for r in raw if isinstance(r, dict) and "t" in r and "val" in r]
        if series.startswith("Ping") and units in (None, "ms"):
            rtts = np.array([float(r["val"]) for r in samples])
            times = np.array([float(r["t"]) - t0 for r in samples])
            for k, (t, r, v) in enumerate(zip(times, samples, rtts, strict=True)):
                for c, x in zip(ping_cols, (t, name, float(r.get("seq", k)), v), strict=True):
                    ping_cols[c].append(x)
            window = rtts[times > warm]
            flows.append(
                {
                    "name": name,
                    "app": "ping",
                    "cc": None,
                    "goodput_mbps": 0.0,
                    "rtt_ms": distribution(window),
                    "flent_series": series,
                }
            )
        elif series not in AGGREGATES and units == "Mbits/s":
            times = np.array([float(r["t"]) - t0 for r in samples])
            gp = np.array([float(r["val"]) for r in samples])
            for t, r in zip(times, samples, strict=True):
                row = {
                    "time_s": t,
                    "flow": name,
                    "goodput_mbps": float(r["val"]),
                    "srtt_ms": r.get("tcp_rtt"),
                    "cwnd_pkts": r.get("tcp_cwnd"),
                    "delivery_rate_mbps": r.get("tcp_delivery_rate"),
                    "pacing_rate_mbps": r.get("tcp_pacing_rate"),
                }
                for c in flow_cols:
                    v = row.get(c)
                    flow_cols[c].append(math.nan if v is None else v)
            srtt = np.array(
                [
                    float(r["tcp_rtt"])
                    for r in samples
                    if "tcp_rtt" in r and float(r["t"]) - t0 > warm
                ]
            )
            flows.append(
                {
                    "name": name,
                    "app": "bulk",
                    "cc": sm.get("CONG_CONTROL") or None,
                    "goodput_mbps": float(gp[times > warm].mean())
                    if (times > warm).any()
                    else None,
                    "srtt_ms": distribution(srtt, SRTT),
                    "rtt_ms": None,
                    "flent_series": series,
                }
            )
    tables = {name: _frame(None, cols, key) for name, (cols, key) in TABLES.items()}
    tables["flows"] = _frame(flow_cols, TABLES["flows"][0], "flow")
    tables["pings"] = _frame(ping_cols, TABLES["pings"][0], "flow")
    for name in ("flows", "pings"):
        tables[name]["flow"] = tables[name]["flow"].astype("category")
    airlab_meta = meta.get("AIRLAB") or {}
    summary = {
        "provenance": airlab_meta.get("provenance"),
        "scenario": meta.get("TITLE") or meta.get("NAME"),
        "seed": None,
        "duration_s": length,
        "warmup_s": warm,
        "backend": "flent",
        "flent": {
            "test": meta.get("NAME"),
            "time": meta.get("TIME"),
            "version": meta.get("FLENT_VERSION"),
            "host": meta.get("HOST"),
        },
        "flows": flows,
        "queues": [],
        "links": [],
        "wifi": [],
    }
    return Result(summary=summary, scenario={}, source=str(p), **tables)
