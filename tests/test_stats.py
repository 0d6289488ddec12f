"""Batch means against synthetic series whose mean and autocorrelation are known."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import signal

from airlab.stats import batch_means, lag1, mean_ci


def _ar1(rng: np.random.Generator, n: int, phi: float, mean: float) -> np.ndarray:
    """x_t = mean + phi (x_{t-1} - mean) + e_t, started in its stationary distribution."""
    e = rng.normal(size=n)
    e[0] /= math.sqrt(1 - phi**2)
    return mean + signal.lfilter([1.0], [1.0, -phi], e)


def _batches(x: np.ndarray, size: int) -> pd.DataFrame:
    means = x[: x.size // size * size].reshape(-1, size).mean(axis=1)
    return pd.DataFrame({"flow": "f", "batch": np.arange(means.size), "owd_ms": means})


def test_batch_means_cover_the_mean_of_a_correlated_series() -> None:
    # Paper 001's plan: 55,000 samples, 11 batches of 5,000, the first discarded. An AR(1)
    # with phi = 0.95 has a correlation time of about 40 samples: consecutive samples are
    # far from independent, batches of 5,000 nearly are.
    rng = np.random.default_rng(7)
    phi, mean, runs = 0.95, 5.0, 300
    covered = naive = 0
    lags = []
    for _ in range(runs):
        x = _ar1(rng, 55_000, phi, mean)
        row = batch_means(_batches(x, 5_000), "owd_ms", discard=1).loc["f"]
        assert row["batches"] == 10
        covered += abs(row["mean"] - mean) <= row["ci"]
        lags.append(row["lag1"])
        # The same interval from the samples as if they were independent.
        m, half = mean_ci(x[5_000:].tolist())
        naive += abs(m - mean) <= half
    assert 0.90 <= covered / runs <= 0.99, covered / runs
    assert naive / runs < 0.5, naive / runs
    # The batch means are nearly uncorrelated (the lag-1 estimate of 10 independent values
    # averages about -0.1).
    assert abs(np.mean(lags) + 0.1) < 0.05, np.mean(lags)


def test_batch_means_see_correlated_batches() -> None:
    # Batches of 50 samples of the same series are too short: their means stay correlated.
    x = _ar1(np.random.default_rng(1), 55_000, 0.99, 0.0)
    row = batch_means(_batches(x, 50), "owd_ms", discard=1).loc["f"]
    assert row["lag1"] > 0.3


def test_batches_without_a_value_are_left_out() -> None:
    df = pd.DataFrame(
        {"flow": ["a"] * 4 + ["b"] * 4, "batch": [0, 1, 2, 3] * 2,
         "fct_s": [9.0, 1.0, math.nan, 3.0, 9.0, 2.0, 2.0, 2.0]}
    )  # fmt: skip
    out = batch_means(df, "fct_s", discard=1)
    assert out.loc["a", "mean"] == 2.0 and out.loc["a", "batches"] == 2
    assert out.loc["b", "ci"] == 0.0
    assert lag1([1.0, 2.0]) != lag1([1.0, 2.0])  # NaN for fewer than three


def test_mean_ci_is_students_t() -> None:
    mean, half = mean_ci([1.0, 2.0, 3.0, 4.0])
    assert mean == 2.5
    assert half == pytest.approx(3.182446 * math.sqrt(5 / 3) / 2, rel=1e-6)
