"""Figures of paper 001 (the cross-layer AQM): its Figs. 4-14 in its layout, means over seeds
with 95 % CIs, the cross-layer AQM beside FQ-CoDel, and Tables 1/2 as plots of K."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from airlab.plotstyle import subplots, tight_layout
from airlab.reproduce.metrics_xlayer import AQMS, SETTINGS, TABLE_KS, family, k_table, paper_table

STYLE = {"xlayer": ("tab:blue", "cross-layer AQM"), "fq_codel": ("tab:orange", "FQ-CoDel")}
LABELS = {
    "mice_goodput": "mice goodput (Mbit/s)",
    "mice_transfer_goodput": "mice goodput per transfer (Mbit/s)",
    "mice_fct": "mice FCT (s)",
    "bulk_goodput": "bulk goodput (Mbit/s)",
    "jain": "Jain's index",
    "mice_delay": "mice one-way delay (ms)",
}


def _style(ax: Any, xlabel: str, ylabel: str) -> None:
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(alpha=0.3)
    ax.spines[["top", "right"]].set_visible(False)


def _save(fig: Any, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    tight_layout(fig)
    fig.savefig(path, dpi=120)
    return path


def _lines(ax: Any, frame: pd.DataFrame, x: str, metric: str) -> None:
    for aqm in AQMS:
        g = frame[frame.aqm == aqm].sort_values(x)
        if g.empty:
            continue
        color, label = STYLE[aqm]
        ax.errorbar(g[x], g[metric], yerr=g.get(f"{metric}_ci"), color=color, label=label,
                    marker="o", ms=3, capsize=2, lw=1)  # fmt: skip
    _style(ax, "mice sources" if x == "sources" else "transfer round", LABELS[metric])


def steady(agg: Mapping[str, pd.DataFrame], setting: str, path: Path) -> Path:
    """Figs. 6-8 and 11-14: mice goodput, bulk goodput, mice FCT and Jain's index against the
    number of sources."""
    s = agg["steady"]
    s = s[s.setting == setting]
    fig, axes = subplots(1, 4, figsize=(16, 3.6))
    for ax, metric in zip(axes, ("mice_goodput", "bulk_goodput", "mice_fct", "jain"), strict=True):
        _lines(ax, s, "sources", metric)
    axes[0].set_title(setting)
    axes[0].legend(fontsize=8)
    return _save(fig, path)


def transient(agg: Mapping[str, pd.DataFrame], setting: str, path: Path) -> Path:
    """Figs. 4/5: the first five transfer rounds, 8 sources."""
    t = agg["transient"]
    t = t[t.setting == setting]
    fig, axes = subplots(1, 3, figsize=(12, 3.6))
    for ax, metric in zip(axes, ("mice_goodput", "bulk_goodput", "mice_fct"), strict=True):
        _lines(ax, t, "round", metric)
    axes[0].set_title(f"{setting}: initial transient")
    axes[0].legend(fontsize=8)
    return _save(fig, path)


def k_tables(agg: Mapping[str, pd.DataFrame], path: Path, settings: Mapping[str, int]) -> Path:
    """Tables 1/2 as plots: mice goodput and delay against K at each setting's source count
    (``settings``: the paper module's ``k_settings()``), the paper's values beside."""
    fig, axes = subplots(2, len(settings), figsize=(5 * len(settings), 6.4), squeeze=False)
    for col, (setting, n) in enumerate(settings.items()):
        k = k_table(agg, setting, n)
        for row, (metric, col_name) in enumerate((("goodput", "mice_goodput"),
                                                  ("delay", "mice_delay"))):  # fmt: skip
            ax = axes[row, col]
            ax.errorbar(k.index, k[col_name], yerr=k.get(f"{col_name}_ci"), marker="o", ms=3,
                        capsize=2, lw=1, label="airlab")  # fmt: skip
            if metric == "goodput" and "mice_transfer_goodput" in k.columns:
                ax.plot(k.index, k["mice_transfer_goodput"], marker="^", ms=3, lw=1,
                        label="airlab, per transfer")  # fmt: skip
            paper = paper_table(family(setting), metric)
            ax.plot(TABLE_KS, paper, "k--", marker="s", ms=3, lw=1, label="paper")
            _style(ax, "K (mice packets per round and flow)", LABELS[col_name])
            if row == 0:
                table = 1 if family(setting) == "smart home" else 2
                ax.set_title(f"Table {table}: {setting}, {n} sources")
    for ax in axes[0]:
        ax.legend(fontsize=8)
    return _save(fig, path)


def all_figures(
    agg: Mapping[str, pd.DataFrame], out: Path, k_settings: Mapping[str, int]
) -> dict[str, Path]:
    figs: dict[str, Path] = {}
    for setting in SETTINGS:
        slug = setting.replace(", ", "_").replace(" ", "_")
        figs[f"steady {setting}"] = steady(agg, setting, out / f"steady_{slug}.png")
    for setting in ("eHealth, mac80211", "eHealth, device FIFO"):
        if not agg["transient"][agg["transient"].setting == setting].empty:
            slug = setting.replace(", ", "_").replace(" ", "_")
            figs[f"transient {setting}"] = transient(agg, setting, out / f"transient_{slug}.png")
    figs["K tables"] = k_tables(agg, out / "k_tables.png", k_settings)
    return figs
