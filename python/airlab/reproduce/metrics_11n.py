"""Paper 002's runs and what each run measures: the rates, hop counts, aggregation modes and
parking-lot flows every run is made of, the labels of the variants, and the per-run metrics
(one row per chain run, one per parking-lot run) with their means over seeds.

The paper module (``bufferbloat_11n``) and its figures (``figures_11n``) import from here; this
module imports neither."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from airlab.reproduce.runner import jain

NETWORK = "chain"
#: Link rates (Mbit/s) and their HT settings (paper Table I).
RATES: dict[float, dict[str, str]] = {
    6.5: {"mcs": "0", "width": "20", "gi": "800ns"},
    144.4: {"mcs": "15", "width": "20", "gi": "400ns"},
    300.0: {"mcs": "15", "width": "40", "gi": "400ns"},
}
#: ath9k does not aggregate at 6.5 Mbit/s: A-MPDU runs only at these rates.
AGG_RATES = (144.4, 300.0)
HOPS = (1, 2, 3, 4)
PARTIAL_HOPS = (3, 4)
#: Parking-lot flows, farthest first; each ends at n4.
PARKING_FLOWS = ("4hop", "3hop", "2hop", "1hop")
#: The pfifo limit of every node (Linux txqueuelen) and what counts as "full".
QUEUE_LIMIT = 1000
FULL_QUEUE = 950
AGG_LABEL = {"none": "no A-MPDU", "full": "A-MPDU", "partial": "partial A-MPDU"}


def rate_label(rate: float) -> str:
    return f"{rate:g} Mbit/s"


def variant(rate: float, agg: str) -> str:
    return f"{rate_label(rate)}, {AGG_LABEL[agg]}"


# -- per-run metrics ---------------------------------------------------------------------------


def _series_max(rec: Mapping[str, Any], queue: str) -> float:
    """Largest sampled qdisc backlog of a queue over the whole run (warm-up included)."""
    s = rec.get("series", {}).get("queues", {}).get(queue, {}).get("backlog_pkts")
    return float(np.nanmax(s)) if s else math.nan


def chain_metrics(rec: Mapping[str, Any]) -> dict[str, Any]:
    """Throughput, RTT, losses, and per node the queue and the A-MPDU size of one chain run."""
    s = rec["summary"]
    f = s["flows"][0]
    links = {link["name"]: link for net in s["wifi"] for link in net["links"]}
    queues = {q["name"]: q for q in s["queues"]}
    h = rec["tags"]["hops"]
    row: dict[str, Any] = {
        **rec["tags"],
        "seed": rec["seed"],
        "thr": f["goodput_mbps"],
        "rtt": (f["rtt_ms"] or {}).get("mean", math.nan),
        "retransmits": f["retransmits"],
        "queue_drops": f["queue_drops"],
        "wire_lost": f["wire_lost"],
    }
    for i in range(h + 1):
        q = queues[f"{NETWORK}:n{i}"]
        row[f"backlog_mean_n{i}"] = q["backlog_pkts"]["mean"]
        row[f"backlog_max_n{i}"] = _series_max(rec, f"{NETWORK}:n{i}")
        row[f"drops_n{i}"] = q["drops"]
    for i in range(h):
        size = links[f"{NETWORK}:n{i}->n{i + 1}"]["mpdus_per_ppdu"]
        row[f"size_n{i}"] = math.nan if size is None else size
    return row


def parking_metrics(rec: Mapping[str, Any]) -> dict[str, Any]:
    """Per-flow throughput and RTT and Jain's index of one parking-lot run."""
    flows = {f["name"]: f for f in rec["summary"]["flows"]}
    row: dict[str, Any] = {**rec["tags"], "seed": rec["seed"]}
    for name in PARKING_FLOWS:
        row[f"thr_{name}"] = flows[name]["goodput_mbps"]
        row[f"rtt_{name}"] = (flows[name]["rtt_ms"] or {}).get("mean", math.nan)
    thr = [row[f"thr_{n}"] for n in PARKING_FLOWS]
    row["jain"] = jain(thr)
    row["total"] = float(sum(thr))
    return row


def tables(records: Mapping[str, dict[str, Any]]) -> tuple[pd.DataFrame, pd.DataFrame]:
    chain = [chain_metrics(r) for r in records.values() if r["tags"]["topology"] == "chain"]
    park = [parking_metrics(r) for r in records.values() if r["tags"]["topology"] == "parking"]
    return pd.DataFrame(chain), pd.DataFrame(park)


def aggregate(df: pd.DataFrame, by: Sequence[str]) -> pd.DataFrame:
    """Mean and standard deviation (``<metric>_sd``) of every metric over seeds."""
    metrics = [
        c
        for c in df.columns
        if c not in (*by, "seed", "topology") and pd.api.types.is_numeric_dtype(df[c])
    ]
    rows = []
    for key, g in df.groupby(list(by), sort=True):
        row = dict(zip(by, key if isinstance(key, tuple) else (key,), strict=True))
        row["seeds"] = len(g)
        for m in metrics:
            x = g[m].astype(float)
            row[m] = float(x.mean())
            row[f"{m}_sd"] = float(x.std(ddof=1)) if x.notna().sum() > 1 else math.nan
        rows.append(row)
    return pd.DataFrame(rows)
