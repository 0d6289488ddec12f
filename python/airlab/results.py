"""The result of one run: summary dict, resolved scenario, and time series as DataFrames."""

from __future__ import annotations

import json
import math
import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, overload

from airlab import _checks, _core, _io
from airlab.schema import provenance, scenario_digest
from airlab.tables import Columns, frame

# numpy and pandas are imported where a table is built or read: ``import airlab`` (a command
# line's --help, a sweep's driver) does not load them.
if TYPE_CHECKING:
    import pandas as pd


def _tables() -> dict[str, tuple[list[str], str]]:
    """Each table's guaranteed columns (time, entity, then the values in the documented order)
    and its entity column, as the engine defines them (``airlab._core.columns()``). The engine
    may add more: a congestion control's ``cc.<var>``, a qdisc's ``qdisc.<var>``."""
    out = {}
    for name, (time, entity, cols) in _core.columns().items():
        out[name] = ([time, entity, *(c[0] for c in cols)], entity)
    return out


TABLES: dict[str, tuple[list[str], str]] = _tables()


#: The largest summary.json or scenario.json read back: a summary holds about a kilobyte per
#: flow, queue and link, so 10,000 flows (the most a scenario has) fit many times over.
MAX_JSON_BYTES = 256 << 20


class ResultFileError(ValueError):
    """A file of a result directory is not what ``Result.save`` writes."""

    def __init__(self, path: Path, problem: str) -> None:
        super().__init__(f"{path}: {problem}")
        self.path = path


def read_json(path: Path) -> Any:
    """A result directory's JSON file (or a sweep's run record), at most
    :data:`MAX_JSON_BYTES`; ResultFileError saying why it cannot be one. Every reader of
    summary.json, scenario.json and runs/*.json goes through here."""
    try:
        size = path.stat().st_size
        if size > MAX_JSON_BYTES:
            raise ResultFileError(path, f"{size:,} bytes; expected at most {MAX_JSON_BYTES:,}")
        return json.loads(path.read_bytes().decode("utf-8"))
    except ResultFileError:
        raise
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
    except ValueError:  # an integer literal longer than Python converts
        raise ResultFileError(
            path, f"an integer of more than {sys.get_int_max_str_digits()} digits"
        ) from None


#: Summary numbers no run can have outside a range, by entity list (``wifi.links`` being each
#: Wi-Fi network's links) and key: ``share`` is a time or a fraction over the window, from 0 to
#: 1; ``amount`` a finite number of at least 0 (a rate, a goodput, a duration); ``count`` an
#: integer of at least 0. Null or absent passes: backends leave out what they do not measure.
# fmt: off
_BOUNDS: dict[str, dict[str, str]] = {
    "run": {"duration_s": "amount", "warmup_s": "amount", "jain_index": "share"},
    "flows": {
        "goodput_mbps": "amount", "window_s": "amount", "goodput_stats_mbps.median": "amount",
        "goodput_stats_mbps.p95": "amount", "retransmit_rate": "share",
        **dict.fromkeys(("bytes_delivered", "data_segs_out", "retransmits", "lost", "queue_drops",
                         "local_drops", "undos", "spurious_rtos", "wire_lost", "ecn_marks",
                         "unanswered", "udp.sent", "udp.received"), "count"),
    },
    "queues": dict.fromkeys(("enqueued", "dequeued", "drops", "marks", "device_drops",
                             "device_marks"), "count"),
    "links": {"utilization": "share", "rate_mbps": "amount", "throughput_mbps": "amount",
              "wire_lost": "count"},
    "wifi": {"busy_share": "share"},
    "wifi.links": {
        "airtime_share": "share", "throughput_mbps": "amount", "phy_rate_mbps": "amount",
        **dict.fromkeys(("ppdus", "failed_ppdus", "collisions", "ampdus", "mu_ppdus", "mpdus",
                         "mpdus_acked", "mpdu_drops"), "count"),
    },
}
# fmt: on
#: How far above 1 a share computed from floating-point sums may read (the engine's invariant
#: check allows as much).
ROUNDING = 1e-9
#: What a testbed run (``backend: "linux"``) measures rather than computes: its links'
#: utilization is the bytes counted between two samples over the window's length, which for a
#: saturated link can read above 1 by up to a sampling interval.
_MEASURED = {"links": {"utilization": "amount"}}
_EXPECTED = {
    "share": "a number from 0 to 1",
    "amount": "a finite number of at least 0",
    "count": "an integer of at least 0",
}
_ENTITY = {"flows": "flow", "queues": "queue", "links": "link", "wifi": "Wi-Fi network",
           "wifi.links": "Wi-Fi link"}  # fmt: skip


def _in_bounds(value: Any, kind: str) -> bool:
    if value is None:
        return True
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    if kind == "count":
        return isinstance(value, int) and value >= 0
    # NaN fails every comparison
    return 0 <= value <= 1 + ROUNDING if kind == "share" else 0 <= value < math.inf


def _check_bounds(entity: dict[str, Any], bounds: dict[str, str], path: Path, where: str) -> None:
    for key, kind in bounds.items():
        value: Any = entity
        for part in key.split("."):
            value = value.get(part) if isinstance(value, dict) else None
        if not _in_bounds(value, kind):
            raise ResultFileError(
                path, f"{where}{key}: expected {_EXPECTED[kind]} or null, got {_shown(value)}"
            )


def _shown(value: Any) -> str:
    """A value of a file in a message, at most a line long."""
    text = repr(value)
    return text if len(text) <= 40 else f"{text[:40]}..."


def check_summary(summary: Any, path: Path, key: str = "") -> None:
    """What every reader of a summary relies on: an object whose entity lists (flows, queues,
    links, wifi) hold objects with a string ``name``, whose seed is null or a run seed and
    whose numbers are possible (:data:`_BOUNDS`: no share above 1, no negative rate or count,
    nothing infinite). ResultFileError naming ``path``, the entity and the key otherwise;
    ``key`` is where the summary is in the file (``summary`` in a sweep's run record)."""
    top = f"{key}: " if key else ""
    if not isinstance(summary, dict):
        raise ResultFileError(path, f"{top}expected a JSON object, got {type(summary).__name__}")
    for table in ("flows", "queues", "links", "wifi"):
        entities = summary.get(table, [])
        if not isinstance(entities, list):
            raise ResultFileError(
                path, f"{top}{table}: expected a list, got {type(entities).__name__}"
            )
        for i, e in enumerate(entities):
            if not isinstance(e, dict) or not isinstance(e.get("name"), str):
                raise ResultFileError(path, f"{top}{table}[{i}]: expected an object with a name")
    seed = summary.get("seed")
    if seed is not None and not (_checks.is_int(seed) and 0 <= int(seed) <= _checks.MAX_SEED):
        raise ResultFileError(
            path, f"{top}seed: expected an integer from 0 to 2**64 - 1 or null, got {_shown(seed)}"
        )
    _check_bounds(summary, _BOUNDS["run"], path, top)
    measured = summary.get("backend") == "linux"
    for table in ("flows", "queues", "links", "wifi"):
        bounds = _BOUNDS[table] | (_MEASURED.get(table, {}) if measured else {})
        for e in summary.get(table, []):
            where = f"{top}{_ENTITY[table]} {json.dumps(e['name'])}: "
            _check_bounds(e, bounds, path, where)
            if table != "wifi":
                continue
            links = e.get("links") or []
            if not isinstance(links, list) or not all(isinstance(lk, dict) for lk in links):
                raise ResultFileError(path, f"{where}links: expected a list of objects")
            for lk in links:
                name = json.dumps(lk.get("name"))
                _check_bounds(lk, _BOUNDS["wifi.links"], path, f"{top}Wi-Fi link {name}: ")


def _read_table(path: Path, columns: list[str]) -> pd.DataFrame:
    """A time-series table of a result directory. Its time and entity columns (the first two)
    must be there; a value column that a directory from an older version lacks is NaN."""
    import numpy as np
    import pandas as pd

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


#: Draws a result's figures into a folder (created if needed) and returns ``{name: png path}``
#: of those it drew; figures an earlier result drew there that this one has none of go.
PlotRenderer = Callable[["Result", Path], Mapping[str, Path]]
#: A result's HTML report, given the figures drawn for it (``{name: png path}``).
ReportRenderer = Callable[["Result", Mapping[str, Path]], str]


@dataclass(frozen=True)
class Renderers:
    """What draws a result: the render layer's functions, passed in. This module (the core)
    imports no renderer; ``airlab`` installs :data:`airlab.renderers.DEFAULT`
    (:func:`airlab.plots.plot_all`, :func:`airlab.report.render` and
    :func:`airlab.report.fragment`) with :func:`use_renderers` when it is imported."""

    #: The figures of :meth:`Result.save` (into ``out_dir/plots``).
    plots: PlotRenderer
    #: Removes the figures ``plots`` may have drawn into a folder (a result saved without
    #: plots where an earlier one drew them); other files stay.
    clear_plots: Callable[[Path], None]
    #: The report.html of :meth:`Result.save`.
    report: ReportRenderer
    #: The notebook view of a result (``Result._repr_html_``).
    html: Callable[[Result], str]


_renderers: Renderers | None = None


def use_renderers(renderers: Renderers) -> None:
    """Make ``renderers`` the ones :meth:`Result.save` and a notebook's view of a result use
    by default (``airlab`` installs :data:`airlab.renderers.DEFAULT`)."""
    global _renderers
    if not isinstance(renderers, Renderers):
        raise TypeError(f"renderers: expected airlab.results.Renderers, got {renderers!r:.60}")
    _renderers = renderers


def installed_renderers() -> Renderers:
    """The renderers :func:`use_renderers` installed; ``RuntimeError`` if none is."""
    if _renderers is None:
        raise RuntimeError("no renderers installed (airlab.results.use_renderers)")
    return _renderers


class _Table:
    """A table of :class:`Result` (``res.flows`` etc.), a DataFrame. A run's table arrives as
    the engine's :class:`~airlab.tables.Columns` and becomes a DataFrame when first read: a run
    saved and drawn without reading one does not import pandas."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, res: None, owner: type) -> _Table: ...

    @overload
    def __get__(self, res: Result, owner: type) -> pd.DataFrame: ...

    def __get__(self, res: Result | None, owner: type) -> pd.DataFrame | _Table:
        if res is None:
            return self
        table = res._tables[self.name]
        if isinstance(table, Columns):
            table = res._tables[self.name] = table.frame()
        return table

    def __set__(self, res: Result, table: pd.DataFrame | Columns) -> None:
        res._tables[self.name] = table


class Result:
    """Everything one run produced.

    ``summary`` is the engine's summary (see docs/results.md), ``scenario`` the resolved
    scenario, and ``flows``, ``queues``, ``links``, ``wifi``, ``fcts``, ``pings`` are long-format
    DataFrames with one row per (sample time, flow/queue/link/Wi-Fi link), per completed
    connection or per ping reply;
    ``batches`` has one row per batch and flow when ``[metrics] batches`` cut the run.
    A table may be given as :class:`~airlab.tables.Columns` (a run's are): it is a DataFrame
    from when it is first read, and :meth:`columns` gives it without one.
    """

    flows = _Table()
    queues = _Table()
    links = _Table()
    wifi = _Table()
    fcts = _Table()
    pings = _Table()
    batches = _Table()

    def __init__(
        self,
        summary: dict[str, Any],
        scenario: dict[str, Any],
        flows: pd.DataFrame | Columns,
        queues: pd.DataFrame | Columns,
        links: pd.DataFrame | Columns,
        wifi: pd.DataFrame | Columns,
        fcts: pd.DataFrame | Columns,
        pings: pd.DataFrame | Columns,
        batches: pd.DataFrame | Columns,
        source: str | None = None,
    ) -> None:
        self.summary = summary
        self.scenario = scenario
        self.source = source
        self._tables: dict[str, pd.DataFrame | Columns] = {}
        self.flows, self.queues, self.links, self.wifi = flows, queues, links, wifi
        self.fcts, self.pings, self.batches = fcts, pings, batches

    @classmethod
    def from_core(cls, raw: dict[str, Any], source: str | None = None) -> Result:
        """Build a Result from what ``_core.run`` returns."""
        tables = {name: Columns(raw.get(name), cols, key) for name, (cols, key) in TABLES.items()}
        summary = json.loads(raw["summary"])
        scenario = json.loads(raw["scenario"])
        made = provenance(summary["seed"], scenario_digest(scenario))
        return cls(
            summary={"provenance": made} | summary,
            scenario=scenario,
            source=source,
            **tables,
        )

    def columns(self, table: str) -> Columns:
        """A table (``"flows"``, ``"queues"``, ...) as numpy columns: the engine's, without
        building a DataFrame, or those of its DataFrame once there is one (which its reader
        may have changed)."""
        got = self._tables[table]
        return got if isinstance(got, Columns) else Columns.of_frame(got, TABLES[table][1])

    @classmethod
    def load(cls, out_dir: str | os.PathLike[str]) -> Result:
        """Read back a result directory written by :meth:`save`.

        Its files are checked before use: :class:`ResultFileError` (a ``ValueError``) names
        the file and what is wrong when one is not what :meth:`save` writes (not JSON, a
        summary that is not an object of entity lists, a seed that is not one, a number no
        run can have such as a negative goodput or count or a share above 1, a table without
        its columns)."""
        d = Path(out_dir)
        summary = read_json(d / "summary.json")
        check_summary(summary, d / "summary.json")
        scenario = read_json(d / "scenario.json")
        if not isinstance(scenario, dict):
            raise ResultFileError(d / "scenario.json", "expected a JSON object, the scenario")
        tables = {}
        for name, (cols, key) in TABLES.items():
            p = d / f"{name}.parquet"
            tables[name] = _read_table(p, cols) if p.exists() else frame(None, cols, key)
        return cls(summary=summary, scenario=scenario, source=str(d), **tables)

    def __repr__(self) -> str:
        s = self.summary
        return (
            f"<Result {s.get('scenario')!r} seed={s.get('seed')}: "
            f"{len(s.get('flows', []))} flows, {len(s.get('queues', []))} queues, "
            f"{len(s.get('links', []))} links, {len(self._tables['flows'])} flow samples>"
        )

    def _repr_html_(self) -> str:
        """Jupyter's view of a run: the flows table and the goodput plot (the installed
        renderers' ``html``, :func:`airlab.report.fragment`)."""
        return installed_renderers().html(self)

    # -- convenience views ---------------------------------------------------------------

    @property
    def warnings(self) -> list[str]:
        """What to know before quoting the run (summary.json's ``warnings``): a measurement
        window too short for steady state, a flow that delivered nothing in it."""
        return [str(w) for w in self.summary.get("warnings") or []]

    @property
    def flow_names(self) -> list[str]:
        return [f["name"] for f in self.summary.get("flows", [])]

    def flow_summary(self) -> pd.DataFrame:
        """One row per flow with the main summary numbers."""
        import pandas as pd

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
        self,
        out_dir: str | os.PathLike[str],
        plots: bool | PlotRenderer = True,
        report: bool | ReportRenderer = True,
    ) -> Path:
        """Write the run's files into ``out_dir`` (created if needed); each write is atomic.

        Files: summary.json, scenario.json, flows/queues/links/wifi/fcts/pings/batches.parquet,
        and unless disabled plots/*.png and report.html. Plots an earlier run saved there that
        this one does not draw are removed. ``ValueError`` if ``out_dir`` is empty or cannot be
        created and written to.

        ``plots`` and ``report`` are true for the installed renderers (:class:`Renderers`:
        :func:`airlab.plots.plot_all` and :func:`airlab.report.render`), false for none, or
        the renderer to use: ``plots(result, folder) -> {name: png path}``, ``report(result,
        images) -> html``.
        """
        d = _checks.output_dir(out_dir, "out_dir")
        d.mkdir(parents=True, exist_ok=True)
        _io.write_json(d / "summary.json", self.summary)
        _io.write_json(d / "scenario.json", self.scenario)
        made = self.summary.get("provenance")
        for name in TABLES:
            table = self._tables[name]
            if isinstance(table, Columns):  # as the engine returned it: written without pandas
                _io.write_table(d / f"{name}.parquet", table.arrow(), made)
            else:
                _io.write_parquet(d / f"{name}.parquet", table, made)
        images: Mapping[str, Path] = {}
        if plots:
            draw = plots if callable(plots) else installed_renderers().plots
            images = draw(self, d / "plots")
        elif (d / "plots").is_dir():  # an earlier run's plots would not be this one's
            installed_renderers().clear_plots(d / "plots")
        if report:
            render = report if callable(report) else installed_renderers().report
            _io.write_text(d / "report.html", render(self, images))
        return d
