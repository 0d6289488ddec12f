"""Figures of paper 004 (FCCC): cwnd and instantaneous airtime series of the first seed, as the
paper shows single traces, and bars over every seed (means, 95 % CIs). Traces and bars are of
the primary readings of the receivers' buffer and the AP table's membership; one figure per
path sets E4-2's other readings beside them."""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from airlab.plotstyle import subplots
from airlab.reproduce.figures import _save, _style
from airlab.reproduce.metrics_fccc import (
    BUFFER,
    E42_SETTINGS,
    FLOORS,
    LEAVE,
    PAIRS,
    PATHS,
    RATES,
    SCALES,
    THREE,
    difference,
)

COLOR = {"ed1": "tab:green", "ed2": "tab:orange", "ed3": "tab:red"}


def _run(records: Mapping[str, dict[str, Any]], **tags: Any) -> dict[str, Any]:
    """The first seed's run with ``tags``, under the primary buffer and membership unless
    ``tags`` names others."""
    tags = {"buffer": BUFFER, "leave": LEAVE, **tags}
    runs = [r for r in records.values() if all(r["tags"].get(k) == v for k, v in tags.items())]
    return min(runs, key=lambda r: r["seed"])


def _t(rec: Mapping[str, Any], n: int) -> np.ndarray:
    return (np.arange(n) + 1) * rec["interval_s"]


def _until(rec: Mapping[str, Any], flow: str) -> float:
    """When a transfer completed (its series end there), or infinity for a bulk flow."""
    fct = next(x for x in rec["summary"]["flows"] if x["name"] == flow).get("fct_s")
    return float(fct["mean"]) if isinstance(fct, dict) and fct.get("count") else math.inf


def _plot(ax: Any, rec: Mapping[str, Any], flow: str, y: Any, **style: Any) -> None:
    """A flow's series up to its completion; the axis ends a little after the last one."""
    t = _t(rec, len(y))
    end = _until(rec, flow)
    ax.plot(t[t <= end], np.asarray(y, dtype=float)[t <= end], color=COLOR[flow], lw=0.8, **style)
    ends = [_until(rec, x["name"]) for x in rec["summary"]["flows"]]
    if all(math.isfinite(e) for e in ends):
        ax.set_xlim(0, 1.05 * max(ends))


def _cwnd(ax: Any, rec: Mapping[str, Any], flows: tuple[str, ...]) -> None:
    for f in flows:
        c = rec["series"]["flows"][f]["cwnd_pkts"]
        _plot(ax, rec, f, c, label=f"{f} ({RATES.get(f, 24)} Mbit/s)")
    _style(ax, "time (s)", "cwnd (packets)")


def _airtime(ax: Any, rec: Mapping[str, Any], flows: tuple[str, ...]) -> None:
    for f in flows:
        _plot(ax, rec, f, rec["series"]["wifi"][f"senders:{f}->ap1"]["airtime_share"], label=f)
    _style(ax, "time (s)", "airtime share")


def variant_key(path: str, floor: int) -> str:
    """The suffix of a variant's figure keys."""
    return f"@{path}/{floor}"


def fig5(records: Mapping[str, dict[str, Any]], way: str, floor: int, path: Path) -> Path:
    """Fig. 5/6: ED1's cwnd and airtime with the timeslot /20, computed, x20 (E4-1)."""
    fig, axes = subplots(2, 3, figsize=(13, 6))
    for col, scale in enumerate(SCALES):
        rec = _run(records, experiment="E4-1", path=way, floor=floor, scale=scale)
        _cwnd(axes[0, col], rec, ("ed1", "ed3"))
        axes[0, col].set_yscale("log")
        axes[0, col].set_title(f"timeslot x {scale:g}")
        _airtime(axes[1, col], rec, ("ed1", "ed3"))
    axes[0, 0].legend(fontsize=8)
    return _save(fig, path)


def fig_three(
    records: Mapping[str, dict[str, Any]], exp: str, way: str, floor: int, path: Path
) -> Path:
    """Figs. 9/10 (E4-2) and 12 (E4-3): each device's airtime and cwnd, CUBIC beside FCCC."""
    fig, axes = subplots(2, 2, figsize=(12, 6))
    for col, (cc, fl) in enumerate((("cubic", 0), ("fccc", floor))):
        rec = _run(records, experiment=exp, path=way, cc=cc, floor=fl)
        _airtime(axes[0, col], rec, THREE)
        axes[0, col].set_title(
            f"{exp}: {cc.upper()}" + (f", cwnd_min {floor}" if cc == "fccc" else "")
        )
        _cwnd(axes[1, col], rec, THREE)
        axes[1, col].set_yscale("log")
    axes[0, 0].legend(fontsize=8)
    return _save(fig, path)


def fig14(records: Mapping[str, dict[str, Any]], way: str, floor: int, path: Path) -> Path:
    """Fig. 14 (E4-4): cwnd and cwnd_up while the rate alternates 24/6 Mbit/s."""
    rec = _run(records, experiment="E4-4", path=way, floor=floor)
    s = rec["series"]["flows"]["ed1"]
    t = _t(rec, len(s["cwnd_pkts"]))
    fig, ax = subplots(figsize=(9, 3.8))
    ax.plot(t, s["cwnd_pkts"], lw=0.8, label="cwnd")
    ax.plot(t, s["cc.fccc_cwnd_up"], lw=0.8, ls="--", label="cwnd_up")
    rate = ax.twinx()
    rate.plot(t, s["cc.fccc_dr_mbps"], color="grey", lw=0.6, alpha=0.6)
    rate.set_ylabel("PHY rate (Mbit/s)")
    _style(ax, "time (s)", "packets")
    ax.legend(fontsize=8, loc="upper right")
    ax.set_title(f"E4-4: rate switching, cwnd_min {floor}")
    return _save(fig, path)


def fig15(records: Mapping[str, dict[str, Any]], way: str, floor: int, path: Path) -> Path:
    """Figs. 15/16 (E4-5): airtime and cwnd of the sp 0.45 and sp 0.15 devices."""
    rec = _run(records, experiment="E4-5", path=way, floor=floor)
    fig, axes = subplots(1, 2, figsize=(12, 3.8))
    _airtime(axes[0], rec, ("ed1", "ed2"))
    _cwnd(axes[1], rec, ("ed1", "ed2"))
    axes[0].set_title(f"E4-5: sp 0.45 (ed1) and 0.15 (ed2), cwnd_min {floor}")
    axes[0].legend(fontsize=8)
    return _save(fig, path)


def bars(agg: Mapping[str, pd.DataFrame], way: str, out: Path) -> dict[str, Path]:
    """Figs. 7, 8 and 11 over one path: average throughput, % change against CUBIC, airtime
    difference."""
    e2, e3 = (agg[e][agg[e].path == way] for e in ("E4-2", "E4-3"))
    e2 = e2[(e2.buffer == BUFFER) & (e2.leave == LEAVE)]
    settings = [("cubic", 0, "CUBIC")] + [("fccc", f, f"FCCC, cwnd_min {f}") for f in FLOORS]
    x = np.arange(len(THREE))
    width = 0.8 / len(settings)
    fig7, ax7 = subplots(figsize=(8, 4))
    fig8, ax8 = subplots(figsize=(8, 4))
    fig11, ax11 = subplots(figsize=(8, 4))
    cub = e2[e2.cc == "cubic"].iloc[0]
    for k, (cc, floor, label) in enumerate(settings):
        row = e2[(e2.cc == cc) & (e2.floor == floor)].iloc[0]
        off = x + (k - (len(settings) - 1) / 2) * width
        ax7.bar(
            off,
            [row[f"thr_{f}"] for f in THREE],
            width * 0.9,
            yerr=[np.nan_to_num(row[f"thr_{f}_ci"]) for f in THREE],
            capsize=3,
            label=label,
        )
        if cc == "fccc":
            ax8.bar(
                off,
                [100 * (row[f"thr_{f}"] / cub[f"thr_{f}"] - 1) for f in THREE],
                width * 0.9,
                label=label,
            )
        r3 = e3[(e3.cc == cc) & (e3.floor == floor)].iloc[0]
        ax11.bar(
            np.arange(len(PAIRS)) + (k - (len(settings) - 1) / 2) * width,
            [difference(r3[f"air_{i}"], r3[f"air_{j}"]) for i, j in PAIRS],
            width * 0.9,
            label=label,
        )
    names = [f"{f} ({RATES[f]} Mbit/s)" for f in THREE]
    ax7.set_xticks(x, names)
    _style(ax7, "", "average throughput, 5 MB (Mbit/s)")
    ax7.legend(fontsize=8)
    ax7.set_title(f"{way} path")
    ax8.axhline(58, color="grey", ls="--", lw=0.8)
    ax8.axhline(-43, color="grey", ls="--", lw=0.8)
    ax8.set_xticks(x, names)
    _style(ax8, "", "change against CUBIC (%); paper +58 / -43")
    ax8.legend(fontsize=8)
    ax11.axhline(0, color="black", lw=0.6)
    ax11.set_xticks(np.arange(len(PAIRS)), [f"D_{i[-1]}{j[-1]}" for i, j in PAIRS])
    _style(ax11, "", "airtime difference (%), 30 s")
    ax11.legend(fontsize=8)
    return {
        f"fig7 {way}": _save(fig7, out / f"fig7_throughput_{way.replace(' ', '_')}.png"),
        f"fig8 {way}": _save(fig8, out / f"fig8_change_{way.replace(' ', '_')}.png"),
        f"fig11 {way}": _save(fig11, out / f"fig11_airtime_difference_{way.replace(' ', '_')}.png"),
    }


def readings(agg: Mapping[str, pd.DataFrame], way: str, out: Path) -> Path:
    """Fig. 8 over one path under each E4-2 reading of the receivers' buffer and the AP table's
    membership (one panel per floor): each device's change against CUBIC with the same buffer,
    over its whole transfer."""
    e2 = agg["E4-2"][agg["E4-2"].path == way]
    fig, axes = subplots(1, len(FLOORS), figsize=(13, 4), sharey=True)
    x = np.arange(len(THREE))
    width = 0.8 / len(E42_SETTINGS)
    for ax, floor in zip(axes, FLOORS, strict=True):
        for k, (buffer, leave) in enumerate(E42_SETTINGS):
            cub = e2[(e2.cc == "cubic") & (e2.buffer == buffer)].iloc[0]
            row = e2[
                (e2.cc == "fccc")
                & (e2.floor == floor)
                & (e2.buffer == buffer)
                & (e2.leave == leave)
            ].iloc[0]
            ax.bar(
                x + (k - (len(E42_SETTINGS) - 1) / 2) * width,
                [100 * (row[f"thr_{f}"] / cub[f"thr_{f}"] - 1) for f in THREE],
                width * 0.9,
                label=f"{buffer}, {leave}",
            )
        ax.axhline(58, color="grey", ls="--", lw=0.8)
        ax.axhline(-43, color="grey", ls="--", lw=0.8)
        ax.axhline(0, color="black", lw=0.6)
        ax.set_xticks(x, [f"{f} ({RATES[f]} Mbit/s)" for f in THREE])
        ax.set_title(f"{way} path, cwnd_min {floor}")
        _style(ax, "", "change against CUBIC (%); paper +58 / -43")
    axes[0].legend(fontsize=8)
    return _save(fig, out / f"fig8_readings_{way.replace(' ', '_')}.png")


def all_figures(
    records: Mapping[str, dict[str, Any]], agg: Mapping[str, pd.DataFrame], out: Path
) -> dict[str, Path]:
    """Every figure; a variant's keys end with :func:`variant_key`."""
    out.mkdir(parents=True, exist_ok=True)
    figs: dict[str, Path] = {}
    for way in PATHS:
        figs.update(bars(agg, way, out))
        figs[f"fig8 readings {way}"] = readings(agg, way, out)
    for way, floor in itertools.product(PATHS, FLOORS):
        key = variant_key(way, floor)
        name = f"{way.replace(' ', '_')}_floor{floor}"
        figs[f"fig5{key}"] = fig5(records, way, floor, out / f"fig5_timeslot_{name}.png")
        figs[f"fig9{key}"] = fig_three(
            records, "E4-2", way, floor, out / f"fig9_10_transfer_{name}.png"
        )
        figs[f"fig12{key}"] = fig_three(
            records, "E4-3", way, floor, out / f"fig12_continuous_{name}.png"
        )
        figs[f"fig14{key}"] = fig14(records, way, floor, out / f"fig14_rate_switch_{name}.png")
        figs[f"fig15{key}"] = fig15(records, way, floor, out / f"fig15_16_priority_{name}.png")
    return figs
