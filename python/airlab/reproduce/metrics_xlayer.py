"""Paper 001's runs and what each run measures: the AQMs and settings every run is made of,
the K of Tables 1/2 with the paper's values (from its targets file), the per-run metrics (batch
means of a steady run, the rounds of a transient one), and the K table the targets and the
figures read.

The paper module (``xlayer_aqm``) and its figures (``figures_xlayer``) import from here; this
module imports neither."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from airlab.reproduce import paper_targets
from airlab.reproduce.runner import jain
from airlab.stats import mean_ci

AQMS = ("xlayer", "fq_codel")
#: The K of Tables 1/2 (the paper module's ``KS`` runs them).
TABLE_KS = (2.0, 2.5, 3.0, 3.5, 4.0, 5.0)
#: Settings: scenario, its AQM's key, the device layer below it (None: the scenario's own).
SETTINGS: dict[str, tuple[str, str, str | None]] = {
    "smart home": ("xlayer-aqm/smart-home", "link.uplink.forward.qdisc", None),
    "eHealth, mac80211": ("xlayer-aqm/ehealth", "wifi.ward.node.ap.qdisc", None),
    "eHealth, device FIFO": (
        "xlayer-aqm/ehealth",
        "wifi.ward.node.ap.qdisc",
        '{ kind = "fifo", size = 500, lifetime = "500ms" }',
    ),
    "smart home, shaper": ("xlayer-aqm/smart-home", "link.uplink.forward.qdisc", None),
}
#: The flows whose packets cross the AQM beside the mice (their goodput is "bulk goodput").
BULK = {"smart home": ("bulk-up",), "eHealth": ("video-down-1", "video-down-2")}
TRANSFER_MBIT = 8.0
#: The paper's numbers and claims (``targets/xlayer-aqm.toml``), Tables 1/2 among them.
TARGETS = paper_targets.load("xlayer-aqm")


def family(setting: str) -> str:
    """``smart home`` or ``eHealth``: the scenario a setting runs."""
    return "smart home" if setting.startswith("smart home") else "eHealth"


def table_metric(scenario: str, k: float, metric: str) -> str:
    """The row of Table 1 (``scenario`` smart home) or 2 (eHealth) for the mice ``metric``
    (goodput in Mbit/s, delay in ms) at ``k``, as the targets file names it."""
    table = 1 if scenario == "smart home" else 2
    return f"Table {table}: K = {k:g}, mice {metric}"


def paper_table(scenario: str, metric: str) -> tuple[float, ...]:
    """The paper's mice ``metric`` at each K of :data:`TABLE_KS` (Table 1 or 2)."""
    return tuple(TARGETS.entry("E1-11", table_metric(scenario, k, metric)).value for k in TABLE_KS)


# -- per-run metrics ---------------------------------------------------------------------------


def _frame(rec: Mapping[str, Any], table: str) -> pd.DataFrame:
    return pd.DataFrame(rec.get(table) or {})


def batch_rows(rec: Mapping[str, Any]) -> pd.DataFrame:
    """Per kept batch (after the discarded): the mice sources' mean goodput over their active
    periods, their completions' mean FCT, their data packets' mean one-way delay, the bulk
    flows' mean goodput, and Jain's index over all of them (mice at their active goodput)."""
    b = _frame(rec, "batches")
    if b.empty:
        return pd.DataFrame()
    discard = int(rec["summary"]["batches"]["discard"])
    b = b[b["batch"] >= discard]
    bulk = BULK[family(rec["tags"]["setting"])]
    rows = []
    for k, g in b.groupby("batch"):
        mice = g[g["flow"].str.startswith("mice")]
        big = g[g["flow"].isin(bulk)]
        done = mice["fcts"].to_numpy()
        fct = mice["fct_s"].to_numpy()
        shares = [*mice["active_goodput_mbps"].dropna(), *big["goodput_mbps"]]
        rows.append(
            {
                "batch": k,
                "mice_goodput": float(mice["active_goodput_mbps"].mean()),
                "mice_fct": float(np.nansum(done * fct) / done.sum()) if done.sum() else math.nan,
                "mice_delay": float(mice["owd_ms"].mean()),
                "bulk_goodput": float(big["goodput_mbps"].mean()),
                "jain": jain(shares),
            }
        )
    return pd.DataFrame(rows)


def transient_rows(rec: Mapping[str, Any], rounds: int = 5) -> list[dict[str, Any]]:
    """E1-1/E1-2: the r-th transfer of every source is round r; its mice goodput is the mean of
    1 MB over their completion times, its FCT their mean, and the bulk goodput the video
    downloads' mean over the round's span (first start to last end)."""
    f = _frame(rec, "fcts")
    if f.empty:
        return []
    f = f[f["flow"].str.startswith("mice")]
    bulk = BULK["eHealth"]
    series = rec["goodput_mbps"]
    step = rec["interval_s"]
    out = []
    for r in range(rounds):
        g = f[f["conn"] == r]
        if g.empty:
            continue
        lo, hi = float(g["start_s"].min()), float(g["end_s"].max())
        samples = [
            v
            for name in bulk
            for i, v in enumerate(series.get(name, []))
            if lo < (i + 1) * step <= hi
        ]
        out.append(
            {
                "round": r + 1,
                "mice_goodput": float((TRANSFER_MBIT / g["fct_s"]).mean()),
                "mice_fct": float(g["fct_s"].mean()),
                "bulk_goodput": float(np.mean(samples)) if samples else math.nan,
                "transfers": len(g),
            }
        )
    return out


def run_metrics(rec: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One row per steady run (its batch means and their CI half-widths), or one per round of
    a transient run."""
    t = rec["tags"]
    base = {**t, "seed": rec["seed"]}
    if t["experiment"] == "transient":
        return [{**base, **row} for row in transient_rows(rec)]
    rows = batch_rows(rec)
    if rows.empty:
        return [base]
    row = dict(base)
    row["batches"] = len(rows)
    for col in ("mice_goodput", "mice_fct", "mice_delay", "bulk_goodput", "jain"):
        mean, half = mean_ci(rows[col].tolist())
        row[col], row[f"{col}_batch_ci"] = mean, half
    row["mice_transfer_goodput"] = transfer_goodput(rec)
    return [row]


def transfer_goodput(rec: Mapping[str, Any]) -> float:
    """The other reading of "mice goodput over active periods": per transfer, 1 MB over its own
    completion time, averaged over the mice transfers that ended in the kept batches. It equals
    the per-source reading while a source's transfers do not overlap, and is lower when they do
    (a source's active time counts overlapping transfers once)."""
    b, f = _frame(rec, "batches"), _frame(rec, "fcts")
    if b.empty or f.empty:
        return math.nan
    kept = b[b["batch"] >= int(rec["summary"]["batches"]["discard"])]
    lo, hi = float(kept["start_s"].min()), float(kept["end_s"].max())
    mice = f[f["flow"].str.startswith("mice") & (f["end_s"] > lo) & (f["end_s"] <= hi)]
    return float((TRANSFER_MBIT / mice["fct_s"]).mean()) if len(mice) else math.nan


METRICS = (
    "mice_goodput",
    "mice_transfer_goodput",
    "mice_fct",
    "mice_delay",
    "bulk_goodput",
    "jain",
)


def k_table(agg: Mapping[str, pd.DataFrame], setting: str, n: int) -> pd.DataFrame:
    """Mice goodput and delay per K (with CIs over seeds) at ``n`` sources."""
    k = agg["K"]
    s = agg["steady"]
    at_3 = s[(s.setting == setting) & (s.sources == n) & (s.aqm == "xlayer")].assign(k=3.0)
    others = k[(k.setting == setting) & (k.sources == n)] if len(k) else k
    rows = pd.concat([others, at_3])
    return rows.drop_duplicates("k").set_index("k").sort_index()
