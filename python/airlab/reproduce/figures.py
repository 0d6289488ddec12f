"""Figures of the paper reproductions: publication-style matplotlib plots (PNG, 150 dpi).

Curves are means over seeds; shaded bands and error bars are 95 % confidence intervals.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from scipy import stats

from airlab import _io
from airlab.plotstyle import subplots, tight_layout
from airlab.reproduce.runner import jain

FLOW_STYLE = {"elephant": "-", "mice": "--"}
CC_COLOR = {"bbr2": "tab:blue", "fairtt": "tab:orange"}


def _band(series: Sequence[Sequence[float]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-bin mean and 95 % CI half-width across runs of equal length."""
    n = min(len(s) for s in series)
    x = np.asarray([list(s)[:n] for s in series], dtype=float)
    mean = x.mean(axis=0)
    if x.shape[0] < 2:
        return np.arange(1, n + 1, dtype=float), mean, np.zeros(n)
    half = stats.t.ppf(0.975, x.shape[0] - 1) * x.std(axis=0, ddof=1) / math.sqrt(x.shape[0])
    return np.arange(1, n + 1, dtype=float), mean, half


def _save(fig: Any, path: Path) -> Path:
    tight_layout(fig)
    _io.write_with(path, lambda tmp: fig.savefig(tmp, dpi=150, format="png"))
    return path


def _style(ax: Axes, xlabel: str, ylabel: str) -> None:
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(True, alpha=0.3)
    ax.spines[["top", "right"]].set_visible(False)


def _time_series(runs: Sequence[Mapping[str, Any]], cc: str, get: Any) -> list[list[float]]:
    return [get(r) for r in runs if r["tags"]["cc"] == cc]


def fairtt_figures(
    main_runs: Sequence[Mapping[str, Any]],
    queue: pd.DataFrame,
    rtt: pd.DataFrame,
    out: Path,
    reading: str,
    label: Mapping[str, str],
) -> dict[str, Path]:
    """Figs. 3a-c, 4a-c and 5 of paper 003 for one reading (a topology on a platform, e.g.
    "A, ns-3"); the file names carry it in lower case without spaces or commas."""
    variant = reading.replace(", ", "_").replace(" ", "-").lower()
    figs: dict[str, Path] = {}
    ccs = [c for c in label if any(r["tags"]["cc"] == c for r in main_runs)]
    suffix = f" (reading {reading})"

    # Fig. 3a: throughput over time, one panel per algorithm.
    fig, axes = subplots(1, len(ccs), figsize=(10, 3.6), sharey=True, squeeze=False)
    for ax, cc in zip(axes[0], ccs, strict=True):
        for flow in ("elephant", "mice"):
            t, m, h = _band(_time_series(main_runs, cc, lambda r, f=flow: r["goodput_mbps"][f]))
            ax.plot(t, m, FLOW_STYLE[flow], color=CC_COLOR[cc], label=flow)
            ax.fill_between(t, m - h, m + h, color=CC_COLOR[cc], alpha=0.2, linewidth=0)
        ax.set_title(label[cc])
        ax.set_ylim(bottom=0)
        _style(ax, "time (s)", "throughput (Mbit/s)")
        ax.legend(frameon=False)
    fig.suptitle("Fig. 3a: throughput over time" + suffix)
    figs["fig3a"] = _save(fig, out / f"fig3a_throughput_time_{variant}.png")

    # Fig. 4a and Fig. 5: Jain's index and bottleneck utilization over time.
    for key, title, ylabel, get in (
        ("fig4a", "Fig. 4a: Jain's fairness index over time", "Jain's index",
         lambda r: [jain([a, b]) for a, b in zip(r["goodput_mbps"]["elephant"],
                                                  r["goodput_mbps"]["mice"], strict=True)]),
        ("fig5", "Fig. 5: bottleneck utilization over time", "utilization (%)",
         lambda r: [100 * u for u in r["utilization"]["bottleneck:r1->r2"]]),
    ):  # fmt: skip
        fig, ax = subplots(figsize=(7, 3.6))
        for cc in ccs:
            t, m, h = _band(_time_series(main_runs, cc, get))
            ax.plot(t, m, color=CC_COLOR[cc], label=label[cc])
            ax.fill_between(t, m - h, m + h, color=CC_COLOR[cc], alpha=0.2, linewidth=0)
        _style(ax, "time (s)", ylabel)
        ax.legend(frameon=False)
        ax.set_title(title + suffix)
        figs[key] = _save(fig, out / f"{key}_{variant}.png")

    # Figs. 3b/3c (throughput) and 4c/4b (Jain) against buffer size and elephant RTT.
    for agg, x, xlabel, log, thr_key, jain_key in (
        (queue, "buffer_bdp", "bottleneck buffer (BDP)", True, "fig3b", "fig4c"),
        (rtt, "rtt_ms", "elephant RTT (ms)", False, "fig3c", "fig4b"),
    ):
        fig, ax = subplots(figsize=(7, 3.8))
        for cc in ccs:
            g = agg[agg.cc == cc].sort_values(x)
            for flow in ("elephant", "mice"):
                ax.errorbar(g[x], g[f"thr_{flow}"], yerr=g[f"thr_{flow}_ci"].fillna(0),
                            fmt="o" + FLOW_STYLE[flow], color=CC_COLOR[cc], capsize=3,
                            label=f"{label[cc]} {flow}")  # fmt: skip
        if log:
            ax.set_xscale("log")
        ax.set_ylim(bottom=0)
        _style(ax, xlabel, "throughput (Mbit/s)")
        ax.legend(frameon=False, ncol=2)
        ax.set_title(f"Fig. {thr_key[3:]}: throughput vs {xlabel.split(' (')[0]}" + suffix)
        figs[thr_key] = _save(fig, out / f"{thr_key}_{variant}.png")

        fig, ax = subplots(figsize=(7, 3.6))
        for cc in ccs:
            g = agg[agg.cc == cc].sort_values(x)
            ax.errorbar(g[x], g["jain_mean"], yerr=g["jain_mean_ci"].fillna(0), fmt="o-",
                        color=CC_COLOR[cc], capsize=3, label=label[cc])  # fmt: skip
        if log:
            ax.set_xscale("log")
        _style(ax, xlabel, "Jain's index (mean of 1 s bins)")
        ax.legend(frameon=False)
        ax.set_title(f"Fig. {jain_key[3:]}: Jain's index vs {xlabel.split(' (')[0]}" + suffix)
        figs[jain_key] = _save(fig, out / f"{jain_key}_{variant}.png")
    return figs
