"""Any two or more results side by side: the simulator against the Linux testbed, two seeds,
two versions of a model. Per flow, queue and link, each summary metric for every result and its
relative difference from the first; and the time series of the flows (goodput, cwnd, smoothed
RTT) and of the busiest queues (backlog) overlaid, one panel per flow or queue."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from airlab import _io
from airlab.report import fmt, get
from airlab.results import Result

#: (table, metric path in the summary, label)
METRICS: list[tuple[str, str, str]] = [
    ("flows", "goodput_mbps", "goodput Mbit/s"),
    ("flows", "srtt_ms.p50", "sRTT p50 ms"),
    ("flows", "srtt_ms.p95", "sRTT p95 ms"),
    ("flows", "rtt_ms.p50", "RTT p50 ms"),
    ("flows", "retransmits", "retransmits"),
    ("flows", "fct_s", "FCT s"),
    ("queues", "drops", "drops"),
    ("queues", "backlog_pkts.mean", "backlog mean pkts"),
    ("queues", "backlog_pkts.max", "backlog max pkts"),
    ("queues", "sojourn_ms.p50", "sojourn p50 ms"),
    ("links", "utilization", "utilization"),
]

#: Flow time series drawn overlaid: (column, axis label).
FLOW_SERIES = [("goodput_mbps", "goodput (Mbit/s)"), ("cwnd_pkts", "cwnd (packets)"),
               ("srtt_ms", "smoothed RTT (ms)")]  # fmt: skip


def _get(d: dict[str, Any], path: str) -> float | None:
    v = get(d, path)
    if isinstance(v, dict):  # a distribution where a number was asked for: its mean
        v = v.get("mean")
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def load_result(result: Result | str | os.PathLike[str]) -> Result:
    """A ``Result``, or one read from a result directory or a Flent file; ValueError for any
    other path."""
    if isinstance(result, Result):
        return result
    from airlab import flent

    if flent.is_flent(result):
        return flent.load(result)
    if not (Path(result) / "summary.json").is_file():
        raise ValueError(f"{result}: not a result directory (summary.json) or a Flent file")
    return Result.load(result)


def label_of(res: Result, fallback: str) -> str:
    """A result's label: its backend (the simulator, Linux or Flent) and its source."""
    backend = res.summary.get("backend") or "airlab"
    return f"{backend}:{Path(res.source).name}" if res.source else f"{backend}:{fallback}"


@dataclass
class Comparison:
    labels: list[str]
    results: list[Result]
    #: One row per (table, entity, metric): a column per result, and for each result after
    #: the first a ``<label> vs <first label>`` column with the relative difference.
    table: pd.DataFrame

    @property
    def relative_columns(self) -> list[str]:
        return [f"{lb} vs {self.labels[0]}" for lb in self.labels[1:]]

    def markdown(self) -> str:
        head = ["table", "name", "metric", *self.labels, *self.relative_columns]
        lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for _, r in self.table.iterrows():
            cells = [r["table"], r["name"], r["metric"]]
            cells += [fmt(r[lb]) for lb in self.labels]
            cells += [_pct(r[c]) for c in self.relative_columns]
            lines.append("| " + " | ".join(cells) + " |")
        return "\n".join(lines) + "\n"

    def save(self, out_dir: str | os.PathLike[str], plots: bool = True) -> Path:
        d = Path(out_dir)
        d.mkdir(parents=True, exist_ok=True)
        _io.write_with(d / "compare.csv", lambda p: self.table.to_csv(p, index=False))
        _io.write_text(d / "compare.md", self.markdown())
        if plots:
            plot(self, d)
        return d


def _pct(x: Any) -> str:
    return "—" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x * 100:+.1f} %"


def compare(
    *results: Result | str | os.PathLike[str], labels: list[str] | None = None
) -> Comparison:
    """Set two or more results (``Result`` objects, result directories or Flent files) side
    by side.

    Entities are matched by name (flows, queues ``link:from->to``, links)."""
    if len(results) < 2:
        raise ValueError("compare needs at least two results")
    loaded = [load_result(r) for r in results]
    labels = list(labels) if labels else [label_of(r, str(i)) for i, r in enumerate(loaded)]
    if len(labels) != len(loaded) or len(set(labels)) != len(labels):
        raise ValueError(f"need {len(loaded)} distinct labels, got {labels}")
    rows = []
    for table, path, name in METRICS:
        names: list[str] = []
        for res in loaded:
            for entity in res.summary.get(table, []):
                if entity.get("name") not in names:
                    names.append(entity.get("name"))
        for entity_name in names:
            values = []
            for res in loaded:
                found = (e for e in res.summary.get(table, []) if e.get("name") == entity_name)
                entity = next(found, {})
                values.append(_get(entity, path))
            if all(v is None for v in values) or (table != "flows" and not any(values)):
                continue
            row: dict[str, Any] = {"table": table, "name": entity_name, "metric": name}
            for lb, v in zip(labels, values, strict=True):
                row[lb] = math.nan if v is None else v
            base = values[0]
            for lb, v in zip(labels[1:], values[1:], strict=True):
                ok = base not in (None, 0) and v is not None
                row[f"{lb} vs {labels[0]}"] = v / base - 1 if ok else math.nan
            rows.append(row)
    return Comparison(labels=labels, results=loaded, table=pd.DataFrame(rows))


def plot(comparison: Comparison, out_dir: Path) -> list[Path]:
    """Overlaid time series, one figure per flow metric (a panel per flow) and one for the
    queues' backlog (a panel per queue that held packets in any result)."""
    import matplotlib.pyplot as plt

    from airlab import plots

    paths = []
    flows: list[str] = []
    for res in comparison.results:
        for name in res.flows["flow"].astype(str).unique() if not res.flows.empty else []:
            if name not in flows:
                flows.append(name)
    for column, ylabel in FLOW_SERIES:
        shown = flows[: plots.MAX_SERIES]
        if not shown:
            break
        fig, axes = plt.subplots(len(shown), 1, figsize=(7, 2.4 * len(shown) + 0.6), sharex=True,
                                 squeeze=False)  # fmt: skip
        for ax, flow in zip(axes[:, 0], shown, strict=True):
            for lb, res in zip(comparison.labels, comparison.results, strict=True):
                rows = res.flows[res.flows["flow"].astype(str) == flow]
                if column in rows and rows[column].notna().any():
                    t, v = plots._thin(rows, column)
                    ax.plot(t, v, label=plots._text(lb))
            ax.set_ylabel(ylabel)
            ax.set_title(plots._text(flow), loc="left")
            ax.legend(frameon=False, loc="best")
        axes[-1, 0].set_xlabel("time (s)")
        paths.append(plots._save(fig, out_dir / f"compare_{column}.png"))
    queues: list[str] = []
    for res in comparison.results:
        if res.queues.empty:
            continue
        busy = res.queues.groupby("queue", observed=True)["backlog_pkts"].max()
        queues += [str(q) for q, m in busy.items() if m > 0 and str(q) not in queues]
    if queues:
        shown = queues[: plots.MAX_SERIES]
        fig, axes = plt.subplots(len(shown), 1, figsize=(7, 2.4 * len(shown) + 0.6), sharex=True,
                                 squeeze=False)  # fmt: skip
        for ax, queue in zip(axes[:, 0], shown, strict=True):
            for lb, res in zip(comparison.labels, comparison.results, strict=True):
                rows = res.queues[res.queues["queue"].astype(str) == queue]
                if not rows.empty:
                    t, v = plots._thin(rows, "backlog_pkts")
                    ax.plot(t, v, label=plots._text(lb))
            ax.set_ylabel("backlog (packets)")
            ax.set_title(plots._text(queue), loc="left")
            ax.legend(frameon=False, loc="best")
        axes[-1, 0].set_xlabel("time (s)")
        paths.append(plots._save(fig, out_dir / "compare_backlog.png"))
    return paths
