"""Figures of paper 000 (BBRv3 over Wi-Fi 6) in the paper's layout: one panel per AQM (or per
BBR version in Fig. 5), time series of the first seed as the paper shows single traces, and box
plots and bars over every seed."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from airlab.plotstyle import subplots
from airlab.reproduce.figures import _save, _style
from airlab.reproduce.metrics_wifi6 import AQM_LABEL, AQMS, BBR_LABEL, MSS, one_second_bins, roles

COLOR = {"bbr": "tab:blue", "cubic": "tab:red"}
WAY_STYLE = {"up": "-", "down": "--"}


def _run(records: Mapping[str, dict[str, Any]], **tags: Any) -> dict[str, Any]:
    """The run with these tags and the lowest seed (the trace a figure shows)."""
    runs = [r for r in records.values() if all(r["tags"].get(k) == v for k, v in tags.items())]
    return min(runs, key=lambda r: r["seed"])


def _label(rec: Mapping[str, Any], name: str, role: str, way: str) -> str:
    cc = BBR_LABEL[rec["tags"]["bbr"]] if role == "bbr" else "CUBIC"
    return f"{cc} {way}link" if rec["tags"]["pattern"] == "bidir" else cc


def _times(rec: Mapping[str, Any], n: int) -> np.ndarray:
    return (np.arange(n) + 1) * rec["interval_s"]


def _throughput(ax: Any, rec: Mapping[str, Any]) -> None:
    for name, role, way in roles(rec):
        b = one_second_bins(rec, rec["goodput_mbps"][name])
        ax.plot(
            np.arange(1, b.size + 1),
            b,
            WAY_STYLE[way],
            color=COLOR[role],
            label=_label(rec, name, role, way),
        )
    _style(ax, "time (s)", "throughput (Mbit/s)")
    ax.set_ylim(0, 11)


def _cwnd(ax: Any, rec: Mapping[str, Any]) -> None:
    for name, role, way in roles(rec):
        c = np.asarray(rec["series"]["flows"][name]["cwnd_pkts"], dtype=float) * MSS / 1024
        ax.plot(
            _times(rec, c.size),
            c,
            WAY_STYLE[way],
            color=COLOR[role],
            lw=0.8,
            label=_label(rec, name, role, way),
        )
    _style(ax, "time (s)", "cwnd (KB)")


def fig5(records: Mapping[str, dict[str, Any]], path: Path) -> Path:
    """Fig. 5: throughput of BBRv1 / v2 / v3 against CUBIC under PFIFO (uplink; downlink below)."""
    fig, axes = subplots(2, 3, figsize=(13, 6.5), sharey=True)
    for row, pattern in enumerate(("uplink", "downlink")):
        for col, bbr in enumerate(BBR_LABEL):
            ax = axes[row, col]
            _throughput(ax, _run(records, pattern=pattern, aqm="pfifo", bbr=bbr))
            ax.set_title(f"({'abc'[col]}) {BBR_LABEL[bbr]} vs CUBIC, PFIFO, {pattern}")
            ax.legend(loc="upper right", fontsize=8)
    return _save(fig, path)


def fig6(records: Mapping[str, dict[str, Any]], path: Path) -> Path:
    """Fig. 6: BBRv3's pacing rate and delivery rate (100 ms samples), uplink, per AQM."""
    fig, axes = subplots(1, 3, figsize=(13, 3.6), sharey=True)
    for ax, aqm in zip(axes, AQMS, strict=True):
        rec = _run(records, pattern="uplink", aqm=aqm, bbr="bbr3")
        s = rec["series"]["flows"]["bbr3"]
        n = len(s["pacing_rate_mbps"])
        ax.plot(
            _times(rec, n), s["pacing_rate_mbps"], color="tab:purple", lw=0.8, label="pacing rate"
        )
        ax.plot(
            _times(rec, n),
            s["delivery_rate_mbps"],
            color="tab:green",
            lw=0.8,
            label="delivery rate",
        )
        _style(ax, "time (s)", "rate (Mbit/s)")
        ax.set_ylim(0, 12)
        ax.set_title(f"BBRv3, {AQM_LABEL[aqm]}")
        ax.legend(loc="upper right", fontsize=8)
    return _save(fig, path)


def fig_throughput_cwnd(records: Mapping[str, dict[str, Any]], pattern: str, path: Path) -> Path:
    """Figs. 7, 9 and 11: throughput (top) and cwnd (bottom) per AQM."""
    fig, axes = subplots(2, 3, figsize=(13, 6.5), sharex=True)
    for col, aqm in enumerate(AQMS):
        rec = _run(records, pattern=pattern, aqm=aqm, bbr="bbr3")
        _throughput(axes[0, col], rec)
        axes[0, col].set_title(f"{AQM_LABEL[aqm]}, {pattern}")
        _cwnd(axes[1, col], rec)
        axes[0, col].legend(loc="upper right", fontsize=7)
    return _save(fig, path)


def _pooled(
    records: Mapping[str, dict[str, Any]], pattern: str, aqm: str, warmup_s: float
) -> dict[tuple[str, str], np.ndarray]:
    """srtt samples after the warm-up of every seed, per (role, way)."""
    out: dict[tuple[str, str], list[float]] = {}
    for r in records.values():
        t = r["tags"]
        if (t["pattern"], t["aqm"], t["bbr"]) != (pattern, aqm, "bbr3"):
            continue
        skip = round(warmup_s / r["interval_s"])
        for name, role, way in roles(r):
            out.setdefault((role, way), []).extend(r["series"]["flows"][name]["srtt_ms"][skip:])
    return {k: np.asarray(v, dtype=float) for k, v in sorted(out.items())}


def fig_delay(
    records: Mapping[str, dict[str, Any]],
    flows: pd.DataFrame,
    pattern: str,
    warmup_s: float,
    path: Path,
) -> Path:
    """Figs. 8, 10 and 11: RTT box plots, jitter and retransmissions per AQM per flow."""
    fig, axes = subplots(1, 3, figsize=(13, 3.8))
    rows = flows[(flows.pattern == pattern) & (flows.bbr == "bbr3")]
    keys = sorted({(r.role, r.way) for r in rows.itertuples()})
    width = 0.8 / len(keys)
    x = np.arange(len(AQMS))
    for k, (role, way) in enumerate(keys):
        off = x + (k - (len(keys) - 1) / 2) * width
        label = ("BBRv3" if role == "bbr" else "CUBIC") + (f" {way}" if pattern == "bidir" else "")
        data = [_pooled(records, pattern, a, warmup_s)[(role, way)] for a in AQMS]
        bp = axes[0].boxplot(
            data,
            positions=off,
            widths=width * 0.9,
            showfliers=False,
            patch_artist=True,
            medianprops={"color": "black"},
        )
        for box in bp["boxes"]:
            box.set_facecolor(COLOR[role])
            box.set_alpha(0.5 if way == "down" else 0.8)
        sel = [
            rows[(rows.aqm == a) & (rows.role == role) & (rows.way == way)].iloc[0] for a in AQMS
        ]
        for ax, metric in ((axes[1], "jitter"), (axes[2], "retransmits")):
            ax.bar(
                off,
                [s[metric] for s in sel],
                width * 0.9,
                yerr=[np.nan_to_num(s[f"{metric}_ci"]) for s in sel],
                color=COLOR[role],
                alpha=0.5 if way == "down" else 0.8,
                label=label,
                capsize=3,
            )
    for ax, ylabel in zip(
        axes, ("srtt (ms)", "jitter (ms)", "retransmitted segments"), strict=True
    ):
        _style(ax, "", ylabel)
        ax.set_xticks(x, [AQM_LABEL[a] for a in AQMS])
    axes[0].set_title(f"RTT, {pattern} (all seeds)")
    axes[1].set_title("jitter (mean over seeds, 95 % CI)")
    axes[2].set_title("retransmissions per run")
    axes[1].legend(fontsize=8)
    return _save(fig, path)


def _with_ci(ax: Any, x: np.ndarray, table: pd.DataFrame, col: str, **style: Any) -> None:
    """``table[col]`` against ``x``, its 95 % CI (``<col>_ci``, none where NaN) as error bars."""
    ax.errorbar(x, table[col], yerr=table[f"{col}_ci"].fillna(0), capsize=3, **style)


def sensitivity(table: pd.DataFrame, path: Path) -> Path:
    """Uplink RTT per AQM, CUBIC's PFIFO share and bidirectional CAKE's carried rate per MCS."""
    fig, axes = subplots(1, 3, figsize=(13, 3.6))
    x = table.mcs.to_numpy()
    for aqm, marker in zip(AQMS, "os^", strict=True):
        _with_ci(axes[0], x, table, f"rtt_{aqm}", marker=marker, label=AQM_LABEL[aqm])
    axes[0].legend(fontsize=8)
    _style(axes[0], "HE-MCS (20 MHz)", "uplink srtt median (ms)")
    _with_ci(axes[1], x, table, "cubic_share_pfifo", marker="o", color=COLOR["cubic"])
    axes[1].axhline(0.5, color="grey", lw=0.8, ls=":")
    _style(axes[1], "HE-MCS (20 MHz)", "CUBIC share, PFIFO uplink")
    _with_ci(axes[2], x, table, "bidir_cake_mbps", marker="o", color="tab:green")
    _style(axes[2], "HE-MCS (20 MHz)", "bidir CAKE, weaker way (Mbit/s)")
    axes[2].set_ylim(0, 10.5)
    return _save(fig, path)


def model_vs_sim(table: pd.DataFrame, path: Path) -> Path:
    """Per AQM (uplink): each flow's throughput and RTT median, the simulator beside the fluid
    model under both min_rtt readings."""
    fig, axes = subplots(2, 3, figsize=(13, 6.5))
    up = table[table.pattern == "uplink"]
    sources = [("simulator", "sim", None)] + [
        (f"model, min_rtt {r}", "model", r) for r in up.min_rtt.unique()
    ]
    width = 0.8 / len(sources)
    for col, aqm in enumerate(AQMS):
        rows = up[up.aqm == aqm]
        for k, (label, kind, reading) in enumerate(sources):
            row = rows.iloc[0] if reading is None else rows[rows.min_rtt == reading].iloc[0]
            x = np.arange(2) + (k - (len(sources) - 1) / 2) * width
            hatch = None if kind == "sim" else ("//" if k == 1 else "..")
            for ax, metric in ((axes[0, col], "mbps"), (axes[1, col], "rtt")):
                vals = [row[f"{kind}_bbr_{metric}"], row[f"{kind}_cubic_{metric}"]]
                ax.bar(
                    x,
                    vals,
                    width * 0.9,
                    color=[COLOR["bbr"], COLOR["cubic"]],
                    alpha=0.85 if kind == "sim" else 0.45,
                    hatch=hatch,
                    edgecolor="black",
                    label=label if col == 0 else None,
                )
        for ax, ylabel in ((axes[0, col], "throughput (Mbit/s)"), (axes[1, col], "RTT p50 (ms)")):
            _style(ax, "", ylabel)
            ax.set_xticks(np.arange(2), ["BBRv3", "CUBIC"])
        axes[0, col].set_title(f"{AQM_LABEL[aqm]}, uplink")
    axes[0, 0].legend(fontsize=7)
    return _save(fig, path)


def base_rtt(table: pd.DataFrame, paper: Mapping[str, tuple[float, float]], path: Path) -> Path:
    """Uplink RTT medians per AQM, FQ-CoDel/CAKE cwnd medians and CAKE's retransmission ratio
    against the base RTT, with the paper's values as grey bands."""
    fig, axes = subplots(1, 3, figsize=(13, 3.6))
    x = table.base_rtt_ms.to_numpy()

    def band(ax: Any, key: str) -> None:
        lo, hi = paper[key]
        if hi > lo:
            ax.axhspan(lo, hi, color="grey", alpha=0.2)
        else:
            ax.axhline(lo, color="grey", ls="--", lw=1)

    for aqm, marker in zip(AQMS, "os^", strict=True):
        _with_ci(axes[0], x, table, f"rtt_{aqm}", marker=marker, label=AQM_LABEL[aqm])
    for key in ("rtt_fq_codel", "rtt_cake"):
        band(axes[0], key)
    axes[0].legend(fontsize=8)
    _style(axes[0], "base RTT (ms)", "uplink srtt median (ms)")
    for key, label, ls in (("cwnd_cubic_fq_codel", "CUBIC, FQ-CoDel", "-"),
                           ("cwnd_bbr_fq_codel", "BBRv3, FQ-CoDel", "-"),
                           ("cwnd_cubic_cake", "CUBIC, CAKE", "--")):  # fmt: skip
        color = COLOR["bbr" if "bbr" in key else "cubic"]
        axes[1].plot(x, table[key], ls, marker="o", color=color, label=label)
        band(axes[1], key)
    axes[1].legend(fontsize=8)
    _style(axes[1], "base RTT (ms)", "cwnd median (KB)")
    axes[2].plot(x, table.retx_ratio_cake, marker="o", color="black")
    band(axes[2], "retx_ratio_cake")
    _style(axes[2], "base RTT (ms)", "CAKE retransmissions BBRv3 / CUBIC")
    fig.suptitle("grey: the paper's values (uplink)", fontsize=9)
    return _save(fig, path)


def all_figures(
    records: Mapping[str, dict[str, Any]], flows: pd.DataFrame, out: Path, warmup_s: float
) -> dict[str, Path]:
    """Every figure; keys start with the paper's figure number."""
    out.mkdir(parents=True, exist_ok=True)
    return {
        "fig5": fig5(records, out / "fig5_bbr_versions.png"),
        "fig6": fig6(records, out / "fig6_pacing_delivery.png"),
        "fig7": fig_throughput_cwnd(records, "uplink", out / "fig7_uplink.png"),
        "fig8": fig_delay(records, flows, "uplink", warmup_s, out / "fig8_uplink_delay.png"),
        "fig9": fig_throughput_cwnd(records, "downlink", out / "fig9_downlink.png"),
        "fig10": fig_delay(records, flows, "downlink", warmup_s, out / "fig10_downlink_delay.png"),
        "fig11_a": fig_throughput_cwnd(records, "bidir", out / "fig11a_bidir.png"),
        "fig11_b": fig_delay(records, flows, "bidir", warmup_s, out / "fig11b_bidir_delay.png"),
    }
