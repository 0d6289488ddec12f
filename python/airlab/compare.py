"""Any two or more results side by side: the simulator against the Linux testbed, two seeds,
two versions of a model. Per flow, queue and link, each summary metric for every result and its
relative difference from the first; and the time series of the flows (goodput, cwnd, smoothed
RTT) and of the busiest queues (backlog) overlaid, one panel per flow or queue.

A testbed run that found its own numbers unreliable (a degraded run: summary ``fidelity``,
docs/testbed.md) marks each number a failed check affects: the cell carries ``⚠`` and the
number of a note saying which run and which check, and so does the relative difference
computed from it."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from airlab import _checks, _io
from airlab.flent import load_result as load_result  # airlab.compare.load_result, as before
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
#: Every file :func:`plot` may write.
PLOT_FILES = [*(f"compare_{column}.png" for column, _ in FLOW_SERIES), "compare_backlog.png"]


def _get(d: dict[str, Any], path: str) -> float | None:
    v = get(d, path)
    if isinstance(v, dict):  # a distribution where a number was asked for: its mean
        v = v.get("mean")
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def _failed_checks(res: Result) -> list[dict[str, Any]]:
    """The fidelity checks a (testbed) result failed; none for a result without them."""
    fid = res.summary.get("fidelity") or {}
    return [c for c in fid.get("checks") or [] if not c.get("pass", True)]


def _affected(check: dict[str, Any], table: str, name: str, path: str) -> bool:
    """Whether a failed check makes this summary number unreliable (its ``affects``: ``*``,
    ``table:name`` or ``table:name:field``)."""
    keys = set(check.get("affects") or [])
    return bool({"*", f"{table}:{name}", f"{table}:{name}:{path.split('.')[0]}"} & keys)


def label_of(res: Result, fallback: str) -> str:
    """A result's label: its backend (the simulator, Linux or Flent) and its source."""
    backend = res.summary.get("backend") or "airlab"
    return f"{backend}:{Path(res.source).name}" if res.source else f"{backend}:{fallback}"


@dataclass
class Comparison:
    labels: list[str]
    results: list[Result]
    #: One row per (table, entity, metric): a column per result, for each result after the
    #: first a ``<label> vs <first label>`` column with the relative difference, and
    #: ``caveat``: the failed fidelity checks of degraded runs that affect the row's numbers
    #: (``<label>: <check> (<subject>)``, ``; ``-separated; empty if none).
    table: pd.DataFrame
    #: Per row of ``table``, per label: the numbers of the notes (:meth:`notes`) on its value.
    marks: list[dict[str, list[int]]] = field(default_factory=list)
    #: The notes, in order: (label, failed check).
    caveats: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    @property
    def relative_columns(self) -> list[str]:
        return [f"{lb} vs {self.labels[0]}" for lb in self.labels[1:]]

    def cells(self, k: int) -> list[str]:
        """Row ``k`` of the table as text: its entity, each value and each relative difference,
        with ``⚠`` and the notes' numbers beside a number a degraded run's failed check
        affects (a difference carries the notes of both its numbers)."""
        n = len(self.table)
        if not _checks.is_int(k):
            raise TypeError(f"k: expected a row number, an integer, got {k!r:.60}")
        if not -n <= int(k) < n:
            rows = f"from 0 to {n - 1} (or -{n} to -1 from the end)" if n else "none: no rows"
            raise ValueError(f"k: expected a row number of the table, {rows}; got {k}")
        k = int(k) % n
        r = self.table.iloc[k]
        marks = self.marks[k] if k < len(self.marks) else {}

        def flag(text: str, notes: list[int]) -> str:
            return f"{text} ⚠{','.join(map(str, notes))}" if notes else text

        cells = [str(r["table"]), str(r["name"]), str(r["metric"])]
        cells += [flag(fmt(r[lb]), sorted(marks.get(lb, []))) for lb in self.labels]
        first = marks.get(self.labels[0], [])
        for lb, col in zip(self.labels[1:], self.relative_columns, strict=True):
            cells.append(flag(_pct(r[col]), sorted({*first, *marks.get(lb, [])})))
        return cells

    def notes(self) -> list[str]:
        """One line per caveat: its number, the run and the check that failed, and why."""
        return [
            f"⚠{n}: {lb} is a degraded testbed run: {c['name']} ({c['subject']}): {c['detail']}"
            for n, (lb, c) in enumerate(self.caveats, 1)
        ]

    def markdown(self) -> str:
        head = ["table", "name", "metric", *self.labels, *self.relative_columns]
        lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for k in range(len(self.table)):
            lines.append("| " + " | ".join(self.cells(k)) + " |")
        notes = self.notes()
        if notes:
            lines += ["", *notes]
        return "\n".join(lines) + "\n"

    def save(self, out_dir: str | os.PathLike[str], plots: bool = True) -> Path:
        """Write compare.csv, compare.md and (unless ``plots`` is false) the overlaid plots
        into ``out_dir``, created if needed; plots a comparison saved there before drew and
        this one does not are removed. ``ValueError`` if ``out_dir`` is empty or cannot be
        created and written to."""
        d = _checks.output_dir(out_dir, "out_dir")
        d.mkdir(parents=True, exist_ok=True)
        _io.write_with(d / "compare.csv", lambda p: self.table.to_csv(p, index=False))
        _io.write_text(d / "compare.md", self.markdown())
        written = plot(self, d) if plots else []
        from airlab.plots import remove_unwritten

        remove_unwritten(d, PLOT_FILES, written)
        return d


def _pct(x: Any) -> str:
    return "—" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x * 100:+.1f} %"


def compare(
    *results: Result | str | os.PathLike[str], labels: list[str] | None = None
) -> Comparison:
    """Set two or more results (``Result`` objects, result directories or Flent files) side
    by side.

    Entities are matched by name (flows, queues ``link:from->to``, links). ``labels`` is a
    list of distinct labels, one per result (a string is refused: ``labels=["a", "b"]``, not
    ``"a,b"``)."""
    if isinstance(labels, str):
        raise TypeError(
            f"labels: expected a list of labels, one per result, got the string {labels!r:.60} "
            f"(write labels={labels.split(',')!r:.60})"
        )
    if len(results) < 2:
        raise ValueError("compare needs at least two results")
    loaded = [load_result(r) for r in results]
    labels = list(labels) if labels else [label_of(r, str(i)) for i, r in enumerate(loaded)]
    if len(labels) != len(loaded) or len(set(labels)) != len(labels):
        raise ValueError(f"need {len(loaded)} distinct labels, got {labels}")
    reserved = {"table", "name", "metric", "caveat"} & set(labels)
    if reserved:
        raise ValueError(f"{', '.join(sorted(reserved))}: a column of the table, not a label")
    failed = [_failed_checks(res) for res in loaded]
    caveats: list[tuple[str, dict[str, Any]]] = []
    note: dict[tuple[int, int], int] = {}  # (result, check) -> note number, from 1
    rows, marks = [], []
    # Each result's entities by name (the first of a name, as listed), built once per table:
    # matching stays linear in the number of flows.
    by_name: dict[str, list[dict[str, dict[str, Any]]]] = {}
    for table in dict.fromkeys(t for t, _, _ in METRICS):
        by_name[table] = [{} for _ in loaded]
        for index, res in zip(by_name[table], loaded, strict=True):
            for entity in res.summary.get(table, []):
                index.setdefault(entity.get("name"), entity)
    for table, path, name in METRICS:
        names = list(dict.fromkeys(n for index in by_name[table] for n in index))
        for entity_name in names:
            values = [_get(index.get(entity_name, {}), path) for index in by_name[table]]
            if all(v is None for v in values) or (table != "flows" and not any(values)):
                continue
            row: dict[str, Any] = {"table": table, "name": entity_name, "metric": name}
            for lb, v in zip(labels, values, strict=True):
                row[lb] = math.nan if v is None else v
            base = values[0]
            for lb, v in zip(labels[1:], values[1:], strict=True):
                rel = math.nan
                if base is not None and base != 0 and v is not None:
                    rel = v / base - 1
                row[f"{lb} vs {labels[0]}"] = rel
            row_marks: dict[str, list[int]] = {}
            texts = []
            for i, (lb, v) in enumerate(zip(labels, values, strict=True)):
                for j, check in enumerate(failed[i]):
                    if v is None or not _affected(check, table, entity_name, path):
                        continue
                    if (i, j) not in note:
                        caveats.append((lb, check))
                        note[(i, j)] = len(caveats)
                    row_marks.setdefault(lb, []).append(note[(i, j)])
                    texts.append(f"{lb}: {check['name']} ({check['subject']})")
            row["caveat"] = "; ".join(texts)
            rows.append(row)
            marks.append(row_marks)
    return Comparison(labels=labels, results=loaded, table=pd.DataFrame(rows), marks=marks,
                      caveats=caveats)  # fmt: skip


def plot(comparison: Comparison, out_dir: Path) -> list[Path]:
    """Overlaid time series, one figure per flow metric (a panel per flow) and one for the
    queues' backlog (a panel per queue that held packets in any result)."""
    from airlab import plots
    from airlab.plotstyle import Figure

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
        fig = Figure(figsize=(7, 2.4 * len(shown) + 0.6))
        axes = fig.subplots(len(shown), 1, sharex=True, squeeze=False)
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
        fig = Figure(figsize=(7, 2.4 * len(shown) + 0.6))
        axes = fig.subplots(len(shown), 1, sharex=True, squeeze=False)
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
