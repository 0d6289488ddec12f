"""Publication-quality PNG plots of a run's time series and ping RTT CDF (matplotlib on an Agg
canvas, without pyplot: :class:`airlab.plotstyle.Figure`)."""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import matplotlib
import numpy as np
from matplotlib.axes import Axes

from airlab import _io
from airlab.plotstyle import PNG, STYLE, Figure, _text, tight_layout

if TYPE_CHECKING:
    from airlab.model.fluid import FluidResult
    from airlab.results import Result
    from airlab.tables import Columns

DPI = 160
MAX_LEGEND = 12  # above this many series, draw thin lines without a legend
MAX_SERIES = 8  # queues/links: only the busiest ones are drawn
MAX_POINTS = 4000  # per line; longer series are drawn as means of consecutive samples

#: One entity's rows of a table: values by column name.
Rows = dict[str, np.ndarray]


def _series(table: Columns, col: str, *more: str) -> list[tuple[str, Rows]]:
    """(label, rows) per entity that has at least one value of ``col`` that is not NaN; the
    rows hold the time, ``col`` and the ``more`` columns only (a long run's table is not copied
    whole). The tables are read as numpy columns (``Result.columns``): drawing a run does not
    build its DataFrames."""
    if not len(table) or col not in table.values:
        return []
    cols = ["time_s", col, *(c for c in more if c in table.values)]
    out = []
    for name, at in table.groups():
        rows = {c: np.asarray(table.values[c][at], dtype=float) for c in cols}
        if not np.isnan(rows[col]).all():
            out.append((_text(name), rows))
    return out


def _total(table: Columns, col: str) -> Rows:
    """``col`` summed over the entities at each sample time (NaN where every entity's is)."""
    values = np.asarray(table.values[col], dtype=float)
    times, at = np.unique(np.asarray(table.values["time_s"], dtype=float), return_inverse=True)
    known = ~np.isnan(values)
    total = np.bincount(at, weights=np.where(known, values, 0.0), minlength=len(times))
    total[np.bincount(at, minlength=len(times), weights=known) == 0] = np.nan
    return {"time_s": times, col: total}


def _thin(rows: Mapping[str, Any], col: str) -> tuple[np.ndarray, np.ndarray]:
    """Time and values of a series (``rows``: :data:`Rows`, or a DataFrame's rows), averaged
    over runs of consecutive samples when there are more than :data:`MAX_POINTS` (a figure is
    ~1100 pixels wide; an hour at 100 ms is 36,000 samples, which would only cost memory and
    time to draw)."""
    t = np.asarray(rows["time_s"], dtype=float)
    v = np.asarray(rows[col], dtype=float)
    k = -(-len(t) // MAX_POINTS)
    if k <= 1:
        return t, v
    n = len(t) // k * k
    with np.errstate(invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN bins stay NaN
        return t[:n].reshape(-1, k).mean(axis=1), np.nanmean(v[:n].reshape(-1, k), axis=1)


def _draw(ax: Axes, series: list[tuple[str, Rows]], col: str, scale: float = 1.0) -> None:
    many = len(series) > MAX_LEGEND
    for name, rows in series:
        t, v = _thin(rows, col)
        ax.plot(
            t,
            v * scale,
            label=None if many else name,
            linewidth=0.7 if many else None,
            alpha=0.6 if many else 1.0,
        )
    if series and not many:
        ax.legend(loc="best", frameon=False, ncol=2 if len(series) > 6 else 1)
    ax.set_xlabel("time (s)")
    ax.set_xlim(left=0)


def _busiest(series: list[tuple[str, Rows]], col: str, how: str) -> list[tuple[str, Rows]]:
    def score(item: tuple[str, Rows]) -> float:
        v = item[1][col]  # not all NaN (_series)
        return float(np.nanmax(v) if how == "max" else np.nanmean(v))

    active = [s for s in series if score(s) > 0]
    return sorted(active, key=score, reverse=True)[:MAX_SERIES]


def _title(res: Result, what: str) -> str:
    name = _text(res.summary.get("scenario", ""))
    seed = res.summary.get("seed")
    return f"{what} — {name} (seed {seed})" if name else what


def _save(fig: Figure, path: Path) -> Path:
    tight_layout(fig)
    _io.write_with(path, lambda p: fig.savefig(p, dpi=DPI, format="png", pil_kwargs=PNG))
    return path


def plot_throughput(res: Result, path: Path) -> Path | None:
    flows = res.columns("flows")
    series = _series(flows, "goodput_mbps")
    if not series:
        return None
    t_total, v_total = _thin(_total(flows, "goodput_mbps"), "goodput_mbps")
    title = _title(res, f"Goodput per flow ({len(series)} flows)")
    if len(series) > MAX_LEGEND:
        # many flows: per-flow lines on top, the aggregate in its own panel below
        fig = Figure(figsize=(7, 5.6))
        ax, ax_tot = fig.subplots(2, 1, sharex=True, gridspec_kw={"height_ratios": [3, 2]})
        _draw(ax, series, "goodput_mbps")
        ax.set_xlabel("")
        ax_tot.plot(t_total, v_total, color="black", linewidth=1.2)
        ax_tot.set_ylabel("total (Mbit/s)")
        ax_tot.set_xlabel("time (s)")
        ax_tot.set_ylim(bottom=0)
    else:
        fig = Figure(figsize=(7, 3.8))
        ax = fig.subplots()
        _draw(ax, series, "goodput_mbps")
        if len(series) > 1:
            ax.plot(t_total, v_total, color="black", linestyle="--", linewidth=1.2,
                    label="total")  # fmt: skip
            ax.legend(loc="best", frameon=False, ncol=2 if len(series) > 6 else 1)
    ax.set_ylabel("goodput (Mbit/s)")
    ax.set_ylim(bottom=0)
    ax.set_title(title)
    return _save(fig, path)


def _plot_flow_metric(res: Result, path: Path, column: str, ylabel: str, title: str) -> Path | None:
    """One line per flow of a per-flow time-series column."""
    series = _series(res.columns("flows"), column)
    if not series:
        return None
    fig = Figure(figsize=(7, 3.8))
    ax = fig.subplots()
    _draw(ax, series, column)
    ax.set_ylabel(ylabel)
    ax.set_ylim(bottom=0)
    ax.set_title(_title(res, title))
    return _save(fig, path)


def plot_cwnd(res: Result, path: Path) -> Path | None:
    return _plot_flow_metric(res, path, "cwnd_pkts", "cwnd (packets)", "Congestion window")


def plot_rtt(res: Result, path: Path) -> Path | None:
    return _plot_flow_metric(res, path, "srtt_ms", "smoothed RTT (ms)", "Round-trip time (srtt)")


def _two_rows(
    res: Result,
    path: Path,
    table: tuple[str, str],
    title: str,
    top: tuple[str, str],
    sparse: tuple[str, str],
    percent: bool = False,
) -> Path | None:
    """Two panels against time for the busiest entities of ``table`` (its name, how the
    ``top`` column ranks them; see :func:`_busiest`): above, ``top`` (column, axis label)
    (``percent``: a share in 0-1, drawn in %); below, ``sparse``, a column that is NaN in the
    intervals without a sample, with markers, for the entities that have one at all."""
    name, how = table
    series = _busiest(_series(res.columns(name), top[0], sparse[0]), top[0], how)
    if not series:
        return None
    fig = Figure(figsize=(7, 5.6))
    ax1, ax2 = fig.subplots(2, 1, sharex=True)
    _draw(ax1, series, top[0], scale=100.0 if percent else 1.0)
    ax1.set_ylabel(top[1])
    ax1.set_ylim(0, 105 if percent else None)
    ax1.set_xlabel("")
    ax1.set_title(_title(res, title))
    col, ylabel = sparse
    sampled = [(n, r) for n, r in series if not np.isnan(r[col]).all()]
    for name, rows in sampled:
        ax2.plot(*_thin(rows, col), marker=".", markersize=2, label=name)
    if sampled and len(sampled) <= MAX_LEGEND:
        ax2.legend(loc="best", frameon=False)
    ax2.set_ylabel(ylabel)
    ax2.set_xlabel("time (s)")
    ax2.set_ylim(bottom=0)
    return _save(fig, path)


def plot_queues(res: Result, path: Path) -> Path | None:
    # sojourn is NaN in intervals where nothing left the queue
    top, sparse = ("backlog_pkts", "backlog (packets)"), ("sojourn_ms", "sojourn (ms)")
    title = "Queue backlog and sojourn time"
    return _two_rows(res, path, ("queues", "max"), title, top, sparse)


def plot_links(res: Result, path: Path) -> Path | None:
    series = _busiest(_series(res.columns("links"), "utilization"), "utilization", "mean")
    if not series:
        return None
    fig = Figure(figsize=(7, 3.8))
    ax = fig.subplots()
    _draw(ax, series, "utilization", scale=100.0)
    ax.set_ylabel("utilization (%)")
    ax.set_ylim(0, 105)
    ax.set_title(_title(res, "Link utilization"))
    return _save(fig, path)


def plot_wifi(res: Result, path: Path) -> Path | None:
    """Airtime share and aggregation per Wi-Fi link (the links that carried data)."""
    top, sparse = ("airtime_share", "airtime (%)"), ("mpdus_per_ppdu", "MPDUs per PPDU")
    title = "Wi-Fi airtime and aggregation per link"
    return _two_rows(res, path, ("wifi", "mean"), title, top, sparse, percent=True)


def plot_ping_cdf(res: Result, path: Path) -> Path | None:
    """The CDF of each ping flow's RTT over the measurement window (the summary's ``rtt_ms``
    sample by sample)."""
    if not len(res.columns("pings")):
        return None
    # pandas-based, as the Flent-style plots are: imported only for a run with pings
    from airlab import flentplots, samples

    got = samples.of_result(res)
    if got.latency.empty:  # every reply came during the warm-up
        return None
    fig = flentplots.figure("cdf", [flentplots.Dataset(str(res.summary.get("scenario")), got)])
    fig.axes[0].set_title(_title(res, "Ping RTT CDF"), loc="left")
    return _save(fig, path)


PLOTS = {
    "throughput": plot_throughput,
    "cwnd": plot_cwnd,
    "rtt": plot_rtt,
    "ping_cdf": plot_ping_cdf,
    "queues": plot_queues,
    "links": plot_links,
    "wifi": plot_wifi,
}


#: Every file :func:`plot_all` may write.
PLOT_FILES = [f"{name}.png" for name in PLOTS]


def plot_all(res: Result, out_dir: str | os.PathLike[str]) -> dict[str, Path]:
    """Draw every plot that has data into ``out_dir``; return {name: png path}. A plot drawn
    there before for another result that this one has no data for is removed."""
    d = Path(out_dir)
    d.mkdir(parents=True, exist_ok=True)
    written: dict[str, Path] = {}
    with matplotlib.rc_context(STYLE):
        for name, fn in PLOTS.items():
            p = fn(res, d / f"{name}.png")
            if p is not None:
                written[name] = p
    remove_unwritten(d, PLOT_FILES, written.values())
    return written


def remove_unwritten(folder: Path, names: Iterable[str], written: Iterable[Path]) -> None:
    """Delete the files of ``names`` in ``folder`` that are not ``written``: plots airlab drew
    there for an earlier result, which would show what the new one does not hold. Only those
    names are touched; any other file in the folder stays."""
    keep = {p.name for p in written}
    for name in names:
        if name not in keep:
            (folder / name).unlink(missing_ok=True)


def plot_fluid(res: FluidResult, path: Path) -> Path:
    """An analytical fluid model's trajectories (:class:`airlab.model.fluid.FluidResult`):
    throughput, RTT, bottleneck queue and cwnd per flow."""
    fig = Figure(figsize=(11, 6.5))
    axes = fig.subplots(2, 2, sharex=True)
    panels = (
        ("throughput_mbps", "throughput (Mbit/s)"),
        ("rtt_ms", "RTT (ms)"),
        ("queue_pkts", "queue (packets)"),
        ("cwnd_kb", "cwnd (KB)"),
    )
    for ax, (col, label) in zip(axes.flat, panels, strict=True):
        for name, g in res.series.groupby("flow", sort=False):
            ax.plot(g.time_s, g[col], lw=0.9, label=str(name))
        ax.set_ylabel(label)
        ax.grid(True, alpha=0.3)
    for ax in axes[1]:
        ax.set_xlabel("time (s)")
    axes[0, 0].legend(fontsize=8)
    cfg = res.config
    fig.suptitle(f"fluid model: {cfg.aqm}, {cfg.capacity_bps / 1e6:.3g} Mbit/s bottleneck")
    return _save(fig, path)
