"""The samples a latency-under-load analysis needs from a run, as Flent takes them: latency
samples (each ping reply's RTT; without a ping flow, each TCP flow's smoothed RTT per sampling
interval, what Flent's ``tcp_rtt`` records) and throughput samples (each flow's goodput per
sampling interval), over the measurement window (after the warm-up).

The same tables come from a :class:`~airlab.results.Result`, from a sweep's run record (sweeps
keep them, :func:`to_record`) and from an imported Flent file, so one set of plots serves all
three (:mod:`airlab.flentplots`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

#: Columns of the latency samples: ``source`` is ``ping`` (a reply) or ``srtt`` (a TCP sample).
LATENCY = ["flow", "time_s", "rtt_ms", "source"]
#: Columns of the throughput samples.
THROUGHPUT = ["flow", "time_s", "goodput_mbps"]


@dataclass
class Samples:
    """One run's (or several runs') samples; ``interval_s`` is the throughput sampling
    interval, the bin the ellipsis and time-series plots pair latency samples in."""

    latency: pd.DataFrame
    throughput: pd.DataFrame
    interval_s: float


def _window(df: pd.DataFrame, warmup_s: float) -> pd.DataFrame:
    return df[df["time_s"] > warmup_s]


def of_result(res: Any) -> Samples:
    """The samples of a :class:`~airlab.results.Result` (simulated, testbed or Flent)."""
    s = res.summary
    warm = float(s.get("warmup_s") or 0.0)
    apps = {f["name"]: f.get("app") for f in s.get("flows", [])}
    pings = _window(res.pings, warm)
    latency = pd.DataFrame(
        {
            "flow": pings["flow"].astype(str),
            "time_s": pings["time_s"].astype(float),
            "rtt_ms": pings["rtt_ms"].astype(float),
            "source": "ping",
        }
    )
    # only the columns used: a long run's flow table is not copied whole
    flows = _window(res.flows[["flow", "time_s", "goodput_mbps", "srtt_ms"]], warm)
    flows = flows[flows["flow"].astype(str).map(apps).fillna("bulk") != "ping"]
    if latency.empty:
        tcp = flows[flows["srtt_ms"].notna()]
        latency = pd.DataFrame(
            {
                "flow": tcp["flow"].astype(str),
                "time_s": tcp["time_s"].astype(float),
                "rtt_ms": tcp["srtt_ms"].astype(float),
                "source": "srtt",
            }
        )
    throughput = pd.DataFrame(
        {
            "flow": flows["flow"].astype(str),
            "time_s": flows["time_s"].astype(float),
            "goodput_mbps": flows["goodput_mbps"].astype(float),
        }
    )
    times = np.unique(res.flows["time_s"].to_numpy(float)) if len(res.flows) else np.array([])
    interval = float(np.min(np.diff(times))) if len(times) > 1 else 0.1
    return Samples(
        latency[LATENCY].reset_index(drop=True), throughput.reset_index(drop=True), interval
    )


def to_record(samples: Samples) -> dict[str, Any]:
    """The samples as JSON-ready lists, for a sweep's run record."""

    def columns(df: pd.DataFrame) -> dict[str, list[Any]]:
        return {c: df[c].tolist() for c in df.columns}

    return {
        "latency": columns(samples.latency),
        "throughput": columns(samples.throughput),
        "interval_s": samples.interval_s,
    }


def from_record(rec: dict[str, Any]) -> Samples:
    """The samples kept in a run record by :func:`to_record`."""
    return Samples(
        pd.DataFrame(rec["latency"], columns=LATENCY),
        pd.DataFrame(rec["throughput"], columns=THROUGHPUT),
        float(rec["interval_s"]),
    )


def concat(parts: list[Samples], runs: list[str]) -> Samples:
    """Several runs' samples as one, with a ``run`` column saying whose each row is."""

    def stack(frames: list[pd.DataFrame], cols: list[str]) -> pd.DataFrame:
        tagged = [f.assign(run=r) for f, r in zip(frames, runs, strict=True) if len(f)]
        return (
            pd.concat(tagged, ignore_index=True) if tagged else pd.DataFrame(columns=[*cols, "run"])
        )

    return Samples(
        stack([p.latency for p in parts], LATENCY),
        stack([p.throughput for p in parts], THROUGHPUT),
        min((p.interval_s for p in parts), default=0.1),
    )


def total_throughput(samples: Samples) -> pd.DataFrame:
    """All non-ping flows' goodput summed per run (if several) and sampling interval:
    columns ``[run,] time_s, goodput_mbps``."""
    thr = samples.throughput
    keys = ["run", "time_s"] if "run" in thr.columns else ["time_s"]
    total = thr.groupby(keys, as_index=False)["goodput_mbps"].sum()
    total["time_s"] = np.round(total["time_s"].to_numpy(float), 9)
    return total


def paired(samples: Samples) -> pd.DataFrame:
    """Latency and total throughput per run and sampling interval, for the intervals with a
    latency sample: ``time_s`` (the interval's end), ``goodput_mbps`` (all non-ping flows'
    goodput summed), ``rtt_ms`` (the mean of the latency samples in the interval)."""
    dt = samples.interval_s
    total = total_throughput(samples)
    keys = ["run", "time_s"] if "run" in total.columns else ["time_s"]
    # a latency sample at t belongs to the interval (k dt, (k + 1) dt], which ends at (k + 1) dt
    lat = samples.latency
    ends = np.ceil(lat["time_s"].to_numpy(float) / dt - 1e-9) * dt
    mean = lat.assign(time_s=np.round(ends, 9)).groupby(keys, as_index=False)["rtt_ms"].mean()
    return total.merge(mean, on=keys, how="inner")
