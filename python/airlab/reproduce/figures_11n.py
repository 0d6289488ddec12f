"""Figures of paper 002 (bufferbloat in 802.11n): Figs. 1a-f, 2, 3, 4, 5 and 6a-d.

Bars and points are means over seeds; error bars are standard deviations, as in the paper.
Time series show one seed (the first); distributions pool the samples of every seed after the
warm-up.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.axes import Axes

from airlab.plotstyle import Figure, subplots
from airlab.reproduce.figures import _save, _style
from airlab.reproduce.metrics_11n import PARKING_FLOWS
from airlab.reproduce.runner import Plan

RATE_COLOR = {6.5: "tab:green", 144.4: "tab:blue", 300.0: "tab:red"}
AGG_COLOR = {"none": "tab:gray", "partial": "tab:olive", "full": "tab:purple"}
NODE_COLOR = ["tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple"]
FLOW_COLOR = {"1hop": "tab:blue", "2hop": "tab:orange", "3hop": "tab:green", "4hop": "tab:red"}
SD_NOTE = "error bars: standard deviation over {n} runs"


def _sd(x: Any) -> np.ndarray:
    return np.nan_to_num(np.asarray(x, dtype=float))


def _runs(records: Mapping[str, dict[str, Any]], **tags: Any) -> list[dict[str, Any]]:
    found = [r for r in records.values() if all(r["tags"].get(k) == v for k, v in tags.items())]
    return sorted(found, key=lambda r: r["seed"])


def _time(values: Sequence[float], interval: float) -> np.ndarray:
    return interval * np.arange(1, len(values) + 1)


def _bars(
    ax: Axes,
    x: np.ndarray,
    g: pd.DataFrame,
    col: str,
    width: float,
    color: str,
    label: str,
    capsize: int = 2,
) -> None:
    """Bars of the seed means in ``g[col]`` at ``x``, their standard deviations as error bars."""
    ax.bar(x, g[col], width, yerr=_sd(g[f"{col}_sd"]), capsize=capsize, color=color, label=label)


def _seeds(agg: pd.DataFrame) -> int:
    return int(agg["seeds"].max()) if len(agg) else 0


def _vs_hops(
    ax: Axes, agg: pd.DataFrame, mode: str, metric: str, rates: Sequence[float], ylabel: str
) -> None:
    for rate in rates:
        g = agg[(agg.ampdu == mode) & (agg.rate == rate)].sort_values("hops")
        if g.empty:
            continue
        ax.errorbar(
            g.hops,
            g[metric],
            yerr=_sd(g[f"{metric}_sd"]),
            fmt="o-",
            capsize=3,
            color=RATE_COLOR[rate],
            label=f"{rate:g} Mbit/s",
        )
    ax.set_xticks([1, 2, 3, 4])
    ax.set_ylim(bottom=0)
    _style(ax, "hops", ylabel)
    ax.legend(frameon=False)


def fig1_pair(
    agg: pd.DataFrame, mode: str, rates: Sequence[float], out: Path, name: str, title: str
) -> Path:
    """Throughput and RTT against the number of hops, one line per rate."""
    fig, (a, b) = subplots(1, 2, figsize=(10, 3.8))
    _vs_hops(a, agg, mode, "thr", rates, "throughput (Mbit/s)")
    _vs_hops(b, agg, mode, "rtt", rates, "mean RTT (ms)")
    a.set_title("throughput")
    b.set_title("RTT")
    fig.suptitle(f"{title}; {SD_NOTE.format(n=_seeds(agg))}", fontsize=10)
    return _save(fig, out / f"{name}.png")


def fig1_partial(agg: pd.DataFrame, metric: str, out: Path, name: str, ylabel: str) -> Path:
    """Figs. 1e/1f: none, partial and full aggregation side by side at 3 and 4 hops."""
    rates = [r for r in (144.4, 300.0) if r in set(agg.rate)]
    fig, axes = subplots(1, len(rates), figsize=(10, 3.8), squeeze=False)
    modes = ("none", "partial", "full")
    width = 0.26
    for ax, rate in zip(axes[0], rates, strict=True):
        for k, mode in enumerate(modes):
            g = agg[(agg.ampdu == mode) & (agg.rate == rate) & agg.hops.isin((3, 4))]
            g = g.sort_values("hops")
            x = np.arange(len(g)) + (k - 1) * width
            _bars(ax, x, g, metric, width, AGG_COLOR[mode], mode, capsize=3)
            ax.set_xticks(np.arange(len(g)), [f"{h} hops" for h in g.hops])
        ax.set_title(f"{rate:g} Mbit/s")
        _style(ax, "chain length", ylabel)
        ax.legend(frameon=False, title="A-MPDU")
    fig.suptitle(
        f"Fig. {name[3:]}: partial aggregation (n0, n1 aggregate); {SD_NOTE.format(n=_seeds(agg))}",
        fontsize=10,
    )
    return _save(fig, out / f"{name}.png")


def _queue_box(ax: Axes, runs: Sequence[Mapping[str, Any]], nodes: int, warmup_s: float) -> None:
    """Distribution of the sampled qdisc backlog at each transmitting node, all seeds pooled."""
    data = []
    for i in range(nodes):
        vals: list[float] = []
        for r in runs:
            s = r["series"]["queues"][f"chain:n{i}"]["backlog_pkts"]
            t = _time(s, r["interval_s"])
            vals += [v for v, tt in zip(s, t, strict=True) if tt > warmup_s]
        data.append(vals)
    ax.boxplot(data, whis=(5, 95), showfliers=False)
    ax.set_xticks(range(1, nodes + 1), [f"n{i}" for i in range(nodes)])
    ax.axhline(1000, color="k", ls=":", lw=1, label="txqueue limit (1000)")
    ax.set_ylim(0, 1150)
    _style(ax, "transmitting node", "qdisc backlog (packets)")
    ax.legend(frameon=False, loc="upper left")


def _flow_series(ax: Axes, run: Mapping[str, Any], column: str, ylabel: str, color: str) -> None:
    s = run["series"]["flows"]["tcp"][column]
    ax.plot(_time(s, run["interval_s"]), s, color=color, lw=1)
    ax.set_ylim(bottom=0)
    _style(ax, "time (s)", ylabel)


def fig2(records: Mapping[str, dict[str, Any]], out: Path) -> Path:
    """1-hop 300 Mbit/s without A-MPDU: cwnd, RTT and the queue at n0 over time (one seed)."""
    run = _runs(records, topology="chain", rate=300.0, hops=1, ampdu="none")[0]
    fig, axes = subplots(3, 1, figsize=(8, 7), sharex=True)
    _flow_series(axes[0], run, "cwnd_pkts", "cwnd (packets)", "tab:blue")
    _flow_series(axes[1], run, "srtt_ms", "smoothed RTT (ms)", "tab:orange")
    q = run["series"]["queues"]["chain:n0"]
    t = _time(q["backlog_pkts"], run["interval_s"])
    axes[2].plot(t, q["backlog_pkts"], color="tab:green", lw=1, label="qdisc (txqueue)")
    axes[2].plot(t, q["device_pkts"], color="tab:gray", lw=1, label="device queue")
    axes[2].axhline(1000, color="k", ls=":", lw=1, label="txqueue limit")
    _style(axes[2], "time (s)", "queue at n0 (packets)")
    axes[2].set_ylim(0, 1250)
    axes[2].legend(frameon=False, loc="upper center", ncol=3)
    for ax in axes[:2]:
        ax.set_xlabel("")
    fig.suptitle(f"Fig. 2: 1-hop TCP flow, 300 Mbit/s, no A-MPDU (seed {run['seed']})", fontsize=10)
    return _save(fig, out / "fig2_1hop_300_timeseries.png")


def fig_chain_queues(
    records: Mapping[str, dict[str, Any]],
    rate: float,
    mode: str,
    out: Path,
    name: str,
    title: str,
    warmup_s: float,
) -> Path:
    """4-hop chain: cwnd and RTT (one seed), the queue at each node over time (one seed), and
    the distribution of each node's queue (all seeds)."""
    runs = _runs(records, topology="chain", rate=rate, hops=4, ampdu=mode)
    run = runs[0]
    fig = Figure(figsize=(12, 6.5))
    grid = fig.add_gridspec(2, 3)
    _flow_series(fig.add_subplot(grid[0, 0]), run, "cwnd_pkts", "cwnd (packets)", "tab:blue")
    _flow_series(fig.add_subplot(grid[1, 0]), run, "srtt_ms", "smoothed RTT (ms)", "tab:orange")
    ax = fig.add_subplot(grid[:, 1])
    for i in range(4):
        s = run["series"]["queues"][f"chain:n{i}"]["backlog_pkts"]
        ax.plot(_time(s, run["interval_s"]), s, color=NODE_COLOR[i], lw=0.9, label=f"n{i}")
    ax.axhline(1000, color="k", ls=":", lw=1)
    ax.set_ylim(0, 1150)
    _style(ax, "time (s)", "qdisc backlog (packets)")
    ax.legend(frameon=False, ncol=4, loc="upper center")
    ax.set_title(f"queue at each node (seed {run['seed']})")
    box = fig.add_subplot(grid[:, 2])
    _queue_box(box, runs, 4, warmup_s)
    box.set_title(
        f"distribution over {len(runs)} runs\n(box: quartiles, whiskers: 5-95 %)", fontsize=9
    )
    fig.suptitle(f"{title} (cwnd and RTT: seed {run['seed']})", fontsize=10)
    return _save(fig, out / f"{name}.png")


def fig4(agg: pd.DataFrame, out: Path) -> Path:
    """Mean MPDUs per data PPDU at each transmitting node, for 1-4 hop chains."""
    rates = [r for r in (144.4, 300.0) if r in set(agg.rate)]
    fig, axes = subplots(1, len(rates), figsize=(10, 3.8), sharey=True, squeeze=False)
    width = 0.2
    for ax, rate in zip(axes[0], rates, strict=True):
        g = agg[(agg.ampdu == "full") & (agg.rate == rate)].sort_values("hops")
        for i in range(4):
            col = f"size_n{i}"
            if col not in g.columns:
                continue
            x = np.arange(len(g)) + (i - 1.5) * width
            _bars(ax, x, g, col, width, NODE_COLOR[i], f"n{i}")
        ax.axhline(32, color="k", ls=":", lw=1, label="driver limit (32)")
        ax.set_ylim(0, 40)
        ax.set_xticks(np.arange(len(g)), [f"{h} hop{'s' if h > 1 else ''}" for h in g.hops])
        ax.set_title(f"{rate:g} Mbit/s")
        _style(ax, "chain length", "MPDUs per A-MPDU (mean)")
        ax.legend(frameon=False, ncol=5, fontsize=7, loc="upper center")
    fig.suptitle(
        f"Fig. 4: A-MPDU size at each transmitting node; {SD_NOTE.format(n=_seeds(agg))}",
        fontsize=10,
    )
    return _save(fig, out / "fig4_ampdu_size.png")


def fig6(park: pd.DataFrame, mode: str, rates: Sequence[float], out: Path, name: str) -> Path:
    """Parking lot: per-flow throughput and RTT at each rate, Jain's index above the bars."""
    flows = list(reversed(PARKING_FLOWS))
    fig, (a, b) = subplots(1, 2, figsize=(11, 4))
    width = 0.2
    g = park[(park.ampdu == mode) & park.rate.isin(rates)].sort_values("rate")
    x0 = np.arange(len(g))
    for k, f in enumerate(flows):
        x = x0 + (k - 1.5) * width
        _bars(a, x, g, f"thr_{f}", width, FLOW_COLOR[f], f)
        _bars(b, x, g, f"rtt_{f}", width, FLOW_COLOR[f], f)
    labels = [f"{r:g} Mbit/s\nJFI {j:.2f}" for r, j in zip(g.rate, g.jain_of_means, strict=True)]
    a.set_yscale("log")
    for ax, ylabel in ((a, "throughput (Mbit/s)"), (b, "mean RTT (ms)")):
        ax.set_xticks(x0, labels)
        _style(ax, "link rate", ylabel)
        ax.legend(frameon=False, ncol=4, loc="upper center")
    a.set_ylim(top=a.get_ylim()[1] * 10)
    b.set_ylim(top=b.get_ylim()[1] * 1.2)
    a.set_title(f"Fig. {name[3]}{name[4]}: throughput (log scale)")
    b.set_title(f"Fig. {name[3]}{name[5]}: RTT")
    fig.suptitle(
        f"Parking lot, {'no A-MPDU' if mode == 'none' else 'A-MPDU'}; JFI = Jain's index of the "
        f"mean throughputs; {SD_NOTE.format(n=_seeds(park))}",
        fontsize=10,
    )
    return _save(fig, out / f"{name}_parking_{mode}.png")


def all_figures(
    records: Mapping[str, dict[str, Any]],
    chain: pd.DataFrame,
    park: pd.DataFrame,
    out: Path,
    p: Plan,
) -> dict[str, Path]:
    """Every figure of paper 002, by key (``fig1ab``, ..., ``fig6cd``)."""
    out.mkdir(parents=True, exist_ok=True)
    return {
        "fig1ab": fig1_pair(
            chain, "none", (6.5, 144.4, 300.0), out, "fig1ab", "Figs. 1a, 1b: chain without A-MPDU"
        ),
        "fig1cd": fig1_pair(
            chain, "full", (144.4, 300.0), out, "fig1cd", "Figs. 1c, 1d: chain with A-MPDU"
        ),
        "fig1e": fig1_partial(chain, "thr", out, "fig1e", "throughput (Mbit/s)"),
        "fig1f": fig1_partial(chain, "rtt", out, "fig1f", "mean RTT (ms)"),
        "fig2": fig2(records, out),
        "fig3": fig_chain_queues(
            records,
            6.5,
            "none",
            out,
            "fig3_4hop_6.5",
            "Fig. 3: 4-hop chain, 6.5 Mbit/s, no A-MPDU",
            p.warmup_s,
        ),
        "fig4": fig4(chain, out),
        "fig5": fig_chain_queues(
            records,
            144.4,
            "partial",
            out,
            "fig5_4hop_144_partial",
            "Fig. 5: 4-hop chain, 144.4 Mbit/s, partial A-MPDU (n0, n1 aggregate)",
            p.warmup_s,
        ),
        "fig6ab": fig6(park, "none", (6.5, 144.4, 300.0), out, "fig6ab"),
        "fig6cd": fig6(park, "full", (144.4, 300.0), out, "fig6cd"),
    }
