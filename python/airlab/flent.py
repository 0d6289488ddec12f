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
import io
import json
import math
import os
import re
import sys
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

import numpy as np

from airlab import _core, _io
from airlab.results import TABLES, Result
from airlab.stats import SRTT, distribution
from airlab.tables import frame

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


#: The most bytes a Flent file may hold once decompressed: a real Flent test's file holds a few
#: MB, and this is about 300,000 samples of an airlab export. A gzip bomb is refused after this
#: much.
MAX_BYTES = 64 * 2**20
#: A file may hold a JSON value (a number, a string, an array...) per this many bytes of the
#: bound, fewer than the files Flent and airlab write (19 to 26). Parsed, a value takes up to
#: 72 bytes however short its text (``[],`` is 3), so this bounds what parsing takes (about
#: 350 MB for MAX_BYTES) where the bytes alone would not (1.6 GB for 64 MiB of ``[],``).
BYTES_PER_VALUE = 16
#: The most series a file may have: airlab's own limit on flows, so every export fits, while a
#: file of a million empty series does not become a million flows.
MAX_SERIES = 10_000
#: The largest magnitude of a number read from a file (a Unix time in seconds is 2e9): sums of
#: millions of them and a plot's axis range stay far from a float's overflow, which near
#: 1.8e308 turns them into infinity and breaks matplotlib's ticks.
MAX_MAGNITUDE = 1e15
#: Decompressed bytes read at a time.
_CHUNK = 2**20
#: Characters of a name (a series', a string value's) shown in an error message.
_SHOWN = 40


class FlentError(ValueError):
    """A file that is not a Flent data file airlab can read. The message is ``<file>: <key>:
    expected <what>, got <what>``, where ``key`` is the key path in the file's JSON
    (``raw_values["TCP upload"][3].val``), ``(file)`` for its bytes (compression, size, UTF-8,
    JSON syntax) or ``(top level)`` for the JSON value they hold."""

    def __init__(self, path: str | os.PathLike[str], key: str, expected: str) -> None:
        # the parts are the exception's args, so it pickles (to another process) whole
        super().__init__(os.fspath(path), key, expected)
        self.path, self.key, self.expected = os.fspath(path), key, expected

    def __str__(self) -> str:
        return f"{self.path}: {self.key}: {self.expected}"


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
    ``time`` is the test's start (default: now, UTC). ``TypeError`` naming the argument for a
    ``result`` that is not a Result or a ``time`` that is not a datetime; ``ValueError`` for a
    run without the samples the file is made of."""
    if not isinstance(result, Result):
        raise TypeError(f"result: expected an airlab.Result, got {result!r:.60}")
    if time is not None and not isinstance(time, dt.datetime):
        raise TypeError(
            f"time: expected a datetime.datetime (the test's start) or None, got {time!r:.60}"
        )
    s = result.summary
    flows = {f["name"]: f for f in s.get("flows", [])}
    tcp = [n for n, f in flows.items() if f.get("cc") and f.get("app") != "ping"]
    pings = [n for n, f in flows.items() if f.get("app") == "ping"]
    others = [n for n in flows if n not in tcp and n not in pings]
    test, tcp_series, params = _test_for(tcp, pings)
    start = (time or dt.datetime.now(dt.UTC)).astimezone(dt.UTC)
    ft, pt = result.flows, result.pings
    if tcp and ft.empty:  # (a ping flow may rightly have no samples: every reply lost)
        more = f" and {len(tcp) - 3} more" if len(tcp) > 3 else ""
        raise ValueError(
            f"{result.source or 'the result'}: expected samples of the flows "
            f"{', '.join(tcp[:3])}{more} in its flows table, got none (flows.parquet missing "
            "or empty); a Flent file is made of them"
        )
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
    written atomically). Returns the path. Raises as :func:`to_flent` does."""
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

#: A key path: the keys and indices from the top of the file to one value.
_Key = tuple[str | int, ...]
#: Stands for a key the file does not have.
_MISSING = object()
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _quoted(text: str) -> str:
    """``text`` as a JSON string, cut to :data:`_SHOWN` characters and escaped to ASCII: a name
    from a file never makes an error message long or puts a control character on a terminal."""
    return json.dumps(text if len(text) <= _SHOWN else text[:_SHOWN] + "...")


def _key(parts: _Key) -> str:
    """A key path as text: ``metadata.SERIES_META["TCP upload"].UNITS``, ``x_values[3]``."""
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        elif _IDENT.fullmatch(part) and len(part) <= _SHOWN:
            out += f".{part}" if out else part
        else:
            out += f"[{_quoted(part)}]"
    return out or "(top level)"


def _got(value: object) -> str:
    """A wrong value, briefly."""
    if value is _MISSING:
        return "nothing (no such key)"
    if isinstance(value, bool) or value is None or isinstance(value, float):
        return json.dumps(value)  # true, null, NaN, Infinity, 1e+300
    if isinstance(value, int):
        digits = len(str(abs(value)))
        return str(value) if digits <= 20 else f"an integer of {digits} digits"
    if isinstance(value, str):
        return f"the string {_quoted(value)}"
    if isinstance(value, list):
        return f"an array of {len(value)} item{'' if len(value) == 1 else 's'}"
    return "an object"


class _Check:
    """The values of one decoded file, checked: the first wrong one raises :class:`FlentError`
    naming its key, what was expected and what is there."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def fail(self, key: _Key, expected: str, value: object, hint: str = "") -> NoReturn:
        raise FlentError(self.path, _key(key), f"expected {expected}, got {_got(value)}{hint}")

    def obj(self, value: object, key: _Key, expected: str = "an object") -> dict[str, Any]:
        if not isinstance(value, dict):
            self.fail(key, expected, value)
        return value

    def array(self, value: object, key: _Key, expected: str) -> list[Any]:
        if not isinstance(value, list):
            self.fail(key, expected, value)
        return value

    def text(self, value: object, key: _Key) -> None:
        """A string or null (or no such key)."""
        if value is not None and not isinstance(value, str):
            self.fail(key, "a string or null", value)

    def number(
        self, value: object, key: _Key, nullable: bool = False, least: float = -MAX_MAGNITUDE
    ) -> None:
        """A JSON number from ``least`` to :data:`MAX_MAGNITUDE`; or null where ``nullable``."""
        if value is None and nullable:
            return
        # NaN fails both comparisons; an integer too big for a float compares exactly
        if isinstance(value, bool) or not (
            isinstance(value, (int, float)) and least <= value <= MAX_MAGNITUDE
        ):
            also = " or null" if nullable else ""
            self.fail(key, f"a number from {least:g} to {MAX_MAGNITUDE:g}{also}", value)


def _compression(path: Path) -> str:
    """How a Flent file is compressed, by its name: "gzip" (``.gz``), "bzip2" (``.bz2`` and
    ``.flnt``) or "" (none)."""
    if path.name.endswith(".gz"):
        return "gzip"
    if path.name.endswith((".bz2", ".flnt")):
        return "bzip2"
    return ""


def _open_raw(path: Path, compression: str) -> io.BufferedIOBase:
    """``path`` opened for reading its bytes, decompressed as ``compression`` says."""
    if compression == "gzip":
        return gzip.open(path, "rb")
    if compression == "bzip2":
        return bz2.open(path, "rb")
    return open(path, "rb")


def _decoded(path: Path, max_bytes: int) -> Any:
    """The JSON value of a Flent file: decompressed (gzip for ``.gz``, bzip2 for ``.bz2`` and
    ``.flnt``, else none) a chunk at a time and refused past ``max_bytes``, so a gzip bomb
    costs at most that much memory; refused with more JSON values than a value per
    :data:`BYTES_PER_VALUE` bytes of ``max_bytes``; then UTF-8 and JSON. Any failure is a
    FlentError."""
    compression = _compression(path)
    what = f"{compression}-compressed data" if compression else "a readable file"
    bigger = "(airlab.flent.load(path, max_bytes=...) reads bigger files)"
    data = bytearray()
    try:
        with _open_raw(path, compression) as fp:
            while chunk := fp.read(_CHUNK):
                data += chunk
                if len(data) > max_bytes:
                    raise FlentError(
                        path,
                        "(file)",
                        f"expected at most {max_bytes / 2**20:g} MiB once decompressed, got "
                        f"more {bigger}",
                    )
    except OSError as e:
        if e.errno is not None:  # the system's: no such file, permission denied...
            raise FlentError(path, "(file)", f"expected a readable file ({e.strerror})") from None
        raise FlentError(path, "(file)", f"expected {what} ({e})") from None  # not gzip, bad CRC
    except (EOFError, zlib.error) as e:  # truncated, corrupt
        raise FlentError(path, "(file)", f"expected {what} ({e})") from None
    if not data or data.isspace():
        raise FlentError(path, "(file)", "expected a JSON object, got an empty file")
    # each value but the first follows a comma or opens an array or object (those inside
    # strings count too, which errs on the safe side)
    values = data.count(b",") + data.count(b"[") + data.count(b"{")
    most = max_bytes // BYTES_PER_VALUE
    if values >= most:
        raise FlentError(
            path, "(file)", f"expected at most {most:,} JSON values, got about {values:,} {bigger}"
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        bad = f"byte 0x{data[e.start]:02x} at offset {e.start}"
        raise FlentError(path, "(file)", f"expected UTF-8 text, got {bad}") from None
    del data  # the text is all that is needed: don't hold both while the JSON is parsed
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        where = f"line {e.lineno} column {e.colno}"
        raise FlentError(path, "(file)", f"expected JSON ({e.msg} at {where})") from None
    except RecursionError:
        raise FlentError(
            path,
            "(file)",
            "expected JSON nested at most a few hundred levels deep (a Flent file's is 4), "
            "got deeper",
        ) from None
    except ValueError:  # an integer literal longer than Python converts
        raise FlentError(
            path,
            "(file)",
            f"expected JSON numbers, got an integer of more than "
            f"{sys.get_int_max_str_digits()} digits",
        ) from None


def _series_kind(series: str, units: object) -> str | None:
    """What :func:`load` makes of a raw series: ``"ping"`` (a ping flow), ``"throughput"`` (a
    flow's goodput) or ``None`` (left out: an aggregate, another unit, Flent's extra data)."""
    if series.startswith("Ping") and units in (None, "ms"):
        return "ping"
    if series not in AGGREGATES and units == "Mbits/s":
        return "throughput"
    return None


#: Per kind of series, the keys of a sample (beside ``t`` and ``val``) :func:`load` reads and
#: whether they may be null.
_SAMPLE_KEYS = {
    "ping": {"seq": False},
    "throughput": dict.fromkeys(
        ("tcp_rtt", "tcp_cwnd", "tcp_delivery_rate", "tcp_pacing_rate"), True
    ),
}


def _validate(data: Any, path: Path) -> None:
    """Check a decoded file before :func:`load` reads any of it: the structure Flent's own
    loader needs (the four keys; each ``results`` series as long as ``x_values``) and every
    value load reads. A missing key, a wrong type, a number that is not finite or beyond
    :data:`MAX_MAGNITUDE` or a series of the wrong length raises FlentError naming its key.
    What load leaves alone (further metadata, the raw values of series it does not read) is
    not checked, as Flent files differ there."""
    c = _Check(path)
    top = c.obj(data, (), "an object with metadata, x_values, results and raw_values")
    version = top.get("version", _MISSING)
    if version != FORMAT_VERSION:
        old = version is _MISSING or (isinstance(version, int) and version < FORMAT_VERSION)
        hint = "; re-save it with Flent 1.0 or later: flent -i FILE -o NEW.flent.gz" if old else ""
        c.fail(("version",), f"{FORMAT_VERSION}, the Flent file format airlab reads", version, hint)
    meta = c.obj(top.get("metadata", _MISSING), ("metadata",))
    x_values = c.array(top.get("x_values", _MISSING), ("x_values",), "an array of numbers")
    results = c.obj(top.get("results", _MISSING), ("results",), "an object of series")
    raw = c.obj(top.get("raw_values", _MISSING), ("raw_values",), "an object of series")
    for i, x in enumerate(x_values):
        c.number(x, ("x_values", i))
    n = len(x_values)
    for name, values in results.items():
        one_each = f"an array of {n} numbers or nulls, one per x_values"
        if len(c.array(values, ("results", name), one_each)) != n:
            c.fail(("results", name), one_each, values)
        for i, v in enumerate(values):
            c.number(v, ("results", name, i), nullable=True)
    for k in ("NAME", "TITLE", "TIME", "T0", "FLENT_VERSION", "HOST"):
        c.text(meta.get(k), ("metadata", k))
    c.number(meta.get("TOTAL_LENGTH"), ("metadata", "TOTAL_LENGTH"), nullable=True, least=0)
    series_meta = meta.get("SERIES_META")
    if series_meta is not None:
        c.obj(series_meta, ("metadata", "SERIES_META"), "an object of series or null")
    for name, sm in (series_meta or {}).items():
        if sm is not None:
            c.obj(sm, ("metadata", "SERIES_META", name), "an object or null")
            for k in ("UNITS", "AIRLAB_FLOW", "CONG_CONTROL"):
                c.text(sm.get(k), ("metadata", "SERIES_META", name, k))
    airlab = meta.get("AIRLAB")
    if airlab is not None:
        c.obj(airlab, ("metadata", "AIRLAB"), "an object or null")
        c.number(airlab.get("warmup_s"), ("metadata", "AIRLAB", "warmup_s"), True, least=0)
        prov = airlab.get("provenance")
        if prov is not None:
            c.obj(prov, ("metadata", "AIRLAB", "provenance"), "an object or null")
            for k, v in prov.items():
                if isinstance(v, (dict, list)):
                    c.fail(("metadata", "AIRLAB", "provenance", k), "a string, number or null", v)
    if len(raw) > MAX_SERIES:
        raise FlentError(
            path, "raw_values", f"expected at most {MAX_SERIES} series, got {len(raw)}"
        )
    flow_of: dict[str, str] = {}  # the flow each read series becomes -> its series
    for name, samples in raw.items():
        c.array(samples, ("raw_values", name), "an array of objects")
        sm = (series_meta or {}).get(name) or {}
        kind = _series_kind(name, sm.get("UNITS"))
        flow = sm.get("AIRLAB_FLOW") or name
        if kind is not None and flow_of.setdefault(flow, name) != name:
            # two series would silently merge into one flow
            c.fail(
                ("metadata", "SERIES_META", name, "AIRLAB_FLOW"),
                f"a flow name no other series has (series {flow_of[flow]!r} is flow {flow!r})",
                flow,
            )
        for i, s in enumerate(samples):
            c.obj(s, ("raw_values", name, i))
            if kind is None or "t" not in s or "val" not in s:
                continue  # load reads only samples with a time and a value
            c.number(s["t"], ("raw_values", name, i, "t"))
            c.number(s["val"], ("raw_values", name, i, "val"))
            for k, nullable in _SAMPLE_KEYS[kind].items():
                if k in s:
                    c.number(s[k], ("raw_values", name, i, k), nullable)


def _t0(meta: dict[str, Any], path: Path) -> float:
    """The test's start (``T0``, else ``TIME``) as a Unix time; a time without a zone is UTC."""
    key = "T0" if meta.get("T0") else "TIME"
    stamp = meta.get(key)
    expected = "an ISO 8601 time such as 2026-01-02T03:04:05.000000Z"
    if not stamp:
        start = f"the test's start (T0 or TIME), {expected}"
        _Check(path).fail(("metadata", "T0"), start, meta.get("T0", _MISSING))
    try:
        when = dt.datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        _Check(path).fail(("metadata", key), expected, stamp)
    return (when if when.tzinfo else when.replace(tzinfo=dt.UTC)).timestamp()


def load(path: str | os.PathLike[str], max_bytes: int = MAX_BYTES) -> Result:
    """Read a Flent data file as a :class:`Result`: every throughput series (``TCP ...``,
    ``UDP ...``, in Mbit/s) is a flow with its goodput (and, where Flent sampled them, its
    smoothed RTT, cwnd, delivery and pacing rate), every ``Ping ...`` series a ping flow with its
    replies in ``pings``. Flows keep the airlab names of an airlab export, else their series
    names. The summary covers the samples after an airlab export's warm-up, else all of them.

    The file is checked before it is used: one that is not a Flent data file airlab reads (not
    gzip, truncated, more than ``max_bytes`` decompressed, not JSON, a key missing or of the
    wrong type, a number that is not finite...) raises :class:`FlentError`."""
    p = Path(path)
    data = _decoded(p, max_bytes)
    _validate(data, p)
    meta = data["metadata"]
    series_meta = meta.get("SERIES_META") or {}
    t0 = _t0(meta, p)
    warm = float((meta.get("AIRLAB") or {}).get("warmup_s") or 0.0)
    length = float(meta.get("TOTAL_LENGTH") or max(data["x_values"] or [0.0]))
    # each column's values (numbers, or the flow's name)
    flow_cols: dict[str, list[object]] = {c: [] for c in TABLES["flows"][0]}
    ping_cols: dict[str, list[object]] = {c: [] for c in TABLES["pings"][0]}
    flows = []
    for series, raw in data["raw_values"].items():
        sm = series_meta.get(series) or {}
        units = sm.get("UNITS")
        name = sm.get("AIRLAB_FLOW") or series
        kind = _series_kind(series, units)
        samples = [r for r in raw if "t" in r and "val" in r]
        if kind == "ping":
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
        elif kind == "throughput":
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
                    if r.get("tcp_rtt") is not None and float(r["t"]) - t0 > warm
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
    tables = {name: frame(None, cols, key) for name, (cols, key) in TABLES.items()}
    tables["flows"] = frame(flow_cols, TABLES["flows"][0], "flow")
    tables["pings"] = frame(ping_cols, TABLES["pings"][0], "flow")
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


def load_result(result: Result | str | os.PathLike[str]) -> Result:
    """A ``Result``, or one read from a result directory or a Flent file; ValueError for any
    other path."""
    if isinstance(result, Result):
        return result
    if is_flent(result):
        return load(result)
    if not (Path(result) / "summary.json").is_file():
        raise ValueError(f"{result}: not a result directory (summary.json) or a Flent file")
    return Result.load(result)
