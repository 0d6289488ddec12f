"""Confidence intervals for what runs measure: over independent replicates (seeds), and by
batch means over the batches of one long run (``[metrics] batches``, paper 001's method); and
the summary's distributions computed from raw samples (the testbed's, a Flent file's)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from scipy import stats

#: The summary's distribution (``rtt_ms``, ``owd_ms``): each key a quantile, "mean" the mean.
DISTRIBUTION = {"min": 0.0, "mean": 0, "p50": 0.5, "p95": 0.95, "p99": 0.99, "max": 1.0}
#: The summary's ``srtt_ms``.
SRTT = {"mean": 0, "min": 0.0, "p50": 0.5, "p95": 0.95}


def distribution(
    values: Sequence[float] | np.ndarray, quantiles: dict[str, float] = DISTRIBUTION
) -> dict[str, float] | None:
    """``{"mean": ..., "p50": ...}`` of ``values`` (exact quantiles), ``None`` without values:
    each key of ``quantiles`` a quantile, "mean" the mean."""
    if len(values) == 0:
        return None
    a = np.asarray(values, dtype=float)
    return {
        k: float(a.mean()) if k == "mean" else float(np.quantile(a, q))
        for k, q in quantiles.items()
    }


def mean_ci(values: Sequence[float], confidence: float = 0.95) -> tuple[float, float]:
    """Mean and half-width of the Student-t confidence interval (NaN width for one value);
    NaN and None values are left out."""
    x = np.asarray([v for v in values if v is not None and not math.isnan(v)], dtype=float)
    if x.size == 0:
        return math.nan, math.nan
    if x.size == 1:
        return float(x[0]), math.nan
    half = stats.t.ppf(0.5 + confidence / 2, x.size - 1) * x.std(ddof=1) / math.sqrt(x.size)
    return float(x.mean()), float(half)


def batch_means(batches: Any, column: str, discard: int = 1, confidence: float = 0.95) -> Any:
    """Per flow, the mean of ``column`` over a run's batches after the first ``discard`` and
    the half-width of its Student-t interval, treating the batch means as independent (the
    batches must be long enough for that: compare ``lag1`` with 0).

    ``batches`` is a run's ``batches`` table (``Result.batches``). Returns a DataFrame indexed
    by flow with columns ``mean``, ``ci``, ``batches`` (how many were used; NaN values, e.g. a
    batch without a completed transfer, are left out) and ``lag1``, the lag-1
    autocorrelation of the batch means."""
    import pandas as pd

    kept = batches[batches["batch"] >= discard]
    rows = {}
    for flow, g in kept.groupby("flow", observed=True, sort=False):
        x = g.sort_values("batch")[column].to_numpy(dtype=float)
        x = x[np.isfinite(x)]
        mean, half = mean_ci(x.tolist(), confidence)
        rows[flow] = {"mean": mean, "ci": half, "batches": x.size, "lag1": lag1(x)}
    return pd.DataFrame.from_dict(rows, orient="index", columns=["mean", "ci", "batches", "lag1"])


def lag1(x: Sequence[float]) -> float:
    """The lag-1 autocorrelation of a series (NaN for fewer than three values or no spread)."""
    v = np.asarray(x, dtype=float)
    if v.size < 3:
        return math.nan
    d = v - v.mean()
    den = float(d @ d)
    return float(d[:-1] @ d[1:] / den) if den > 0 else math.nan


#: The batch columns a sweep keeps as batch means.
SWEPT = ("goodput_mbps", "active_goodput_mbps", "owd_ms", "fct_s")


def batch_summary(batches: Any, discard: int) -> dict[str, dict[str, dict[str, float]]]:
    """``{flow: {column: {mean, ci, batches}}}`` for the columns a sweep keeps (NaN-free)."""
    out: dict[str, dict[str, dict[str, float]]] = {}
    for column in SWEPT:
        for flow, row in batch_means(batches, column, discard).iterrows():
            if row["batches"] > 0:
                entry = {"mean": row["mean"], "batches": int(row["batches"])}
                if math.isfinite(row["ci"]):
                    entry["ci"] = row["ci"]
                out.setdefault(str(flow), {})[column] = entry
    return out
