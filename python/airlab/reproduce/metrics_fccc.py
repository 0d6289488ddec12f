"""Paper 004's runs and what each run measures: the senders and their rates, the window
floors, paths, timeslot scales, receive buffers and AP-table memberships every run is made of,
and the per-run metrics each experiment reads from a run's series (airtime, throughput,
completion times, windows, and the rate-switch lags).

The paper module (``fccc``) and its figures (``figures_fccc``) import from here; this module
imports neither."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

THREE = ("ed1", "ed2", "ed3")
RATES = {"ed1": 24, "ed2": 12, "ed3": 6}
FLOORS = (10, 1)
#: The wire between the APs: as reproduction-targets P4.4 proposes (1 Gbit/s, 0.1 ms), and with
#: the one-way delay that makes eq. 6's timeslot about 0.96 s, the paper's own (its ts/20 is
#: 48 ms, L449; the timeslot follows the RTT): the testbed's control loop took about a second.
PATHS = {"direct": "0.1ms", "slow loop": "470ms"}
SCALES = (0.05, 1.0, 20.0)
#: The receivers' buffer, by reading (the first is the primary): Linux's autotuned receive
#: buffer (the linux-6 profile's ``tcp_rmem``, no override), or every receiver's window fixed
#: (``tcp.rwnd``, as SO_RCVBUF sets it: no autotuning) above any window FCCC's bound allows.
BUFFERS: dict[str, str | None] = {"autotuned rmem": None, "rwnd 16 MB": "16MB"}
#: When a device leaves the AP's airtime table, by reading (the first is the primary): the
#: ``airtime_telemetry`` hook's ``leave``.
LEAVES = {"leave closed": "closed", "leave idle 1 s": "idle", "leave never": "never"}
#: The primary readings of the receivers' buffer and of the table's membership.
BUFFER, LEAVE = next(iter(BUFFERS)), next(iter(LEAVES))
#: E4-2's settings besides the path and the floor: (buffer, leave) pairs, each reading of one
#: beside the other's primary. CUBIC reads no telemetry, so the table's membership cannot
#: change its runs: it runs once per buffer.
E42_SETTINGS = tuple((BUFFER, leave) for leave in LEAVES) + tuple(
    (buffer, LEAVE) for buffer in BUFFERS if buffer != BUFFER
)
TRANSFER_BYTES = 5_000_000
MSS = 1448
#: Pairs (faster, slower) for the airtime difference D_ij = 100 (A_i - A_j) / A_i.
PAIRS = (("ed1", "ed2"), ("ed1", "ed3"), ("ed2", "ed3"))


# -- per-run metrics ---------------------------------------------------------------------------


def _airtime(rec: Mapping[str, Any], device: str) -> np.ndarray:
    return np.asarray(rec["series"]["wifi"][f"senders:{device}->ap1"]["airtime_share"], dtype=float)


def _flow_series(rec: Mapping[str, Any], flow: str, col: str) -> np.ndarray:
    return np.asarray(rec["series"]["flows"][flow][col], dtype=float)


def _fct(rec: Mapping[str, Any], flow: str) -> float:
    f = next(x for x in rec["summary"]["flows"] if x["name"] == flow)
    fct = f.get("fct_s")
    return float(fct["mean"]) if isinstance(fct, dict) and fct.get("count") else math.nan


def _times(rec: Mapping[str, Any], n: int) -> np.ndarray:
    return (np.arange(n) + 1) * rec["interval_s"]


def _window_full(rec: Mapping[str, Any], flow: str) -> np.ndarray:
    """Samples in which the flow has its whole window in flight (at least 90 % of it): the
    window, not the receiver's or the application's, sets what it sends."""
    inflight = _flow_series(rec, flow, "inflight_bytes") / MSS
    return inflight >= 0.9 * _flow_series(rec, flow, "cwnd_pkts")


def run_metrics(rec: Mapping[str, Any]) -> dict[str, Any]:
    """What each experiment reads from one run."""
    t = rec["tags"]
    row: dict[str, Any] = {**t, "seed": rec["seed"]}
    flows = [f["name"] for f in rec["summary"]["flows"]]
    exp = t["experiment"]
    if exp in ("E4-2", "E4-5"):
        fct = {f: _fct(rec, f) for f in flows}
        for f in flows:
            row[f"fct_{f}"] = fct[f]
            row[f"thr_{f}"] = 8 * TRANSFER_BYTES / fct[f] / 1e6
        # Airtime and throughput while every transfer is still running, and the network's
        # throughput over the whole exchange (every byte over the last completion).
        end = np.nanmin(list(fct.values()))
        row["network_mbps"] = 8 * TRANSFER_BYTES * len(flows) / np.nanmax(list(fct.values())) / 1e6
        for f in flows:
            a = _airtime(rec, f)
            active = _times(rec, a.size) <= end
            row[f"air_{f}"] = float(a[active].mean()) if active.any() else math.nan
            good = _flow_series(rec, f, "goodput_mbps")
            row[f"shared_{f}"] = (
                float(good[_times(rec, good.size) <= end].sum()) * rec["interval_s"] / end
            )
        if exp == "E4-5":
            full = np.logical_and.reduce([_window_full(rec, f) for f in flows])
            a1, a2 = (_airtime(rec, f)[full[: _airtime(rec, f).size]] for f in flows)
            row["air_full_ed1"] = float(a1.mean()) if a1.size else math.nan
            row["air_full_ed2"] = float(a2.mean()) if a2.size else math.nan
            cwnd = _flow_series(rec, "ed2", "cwnd_pkts")
            times = _times(rec, cwnd.size)
            before = cwnd[times <= fct["ed1"]]
            after = cwnd[(times > fct["ed1"]) & (times <= fct["ed2"])]
            row["ed2_cwnd_before"] = float(np.median(before)) if before.size else math.nan
            row["ed2_cwnd_after"] = float(np.median(after)) if after.size else math.nan
            row["cwnd_ratio"] = float(
                np.median(_flow_series(rec, "ed1", "cwnd_pkts")[times <= fct["ed1"]])
                / max(row["ed2_cwnd_before"], 1e-9)
            )
    elif exp in ("E4-1", "E4-3"):
        warm = rec["summary"]["warmup_s"]
        for f in flows:
            row[f"thr_{f}"] = next(x for x in rec["summary"]["flows"] if x["name"] == f)[
                "goodput_mbps"
            ]
            a = _airtime(rec, f)
            row[f"air_{f}"] = float(a[_times(rec, a.size) > warm].mean())
            if t["cc"] == "fccc":
                cwnd = _flow_series(rec, f, "cwnd_pkts")[_times(rec, a.size) > warm]
                row[f"cwnd_{f}"] = float(np.median(cwnd))
                row[f"cwnd_spread_{f}"] = float(
                    np.percentile(cwnd, 95) / max(np.percentile(cwnd, 5), 1)
                )
                ts = _flow_series(rec, f, "cc.fccc_ts_ms")
                row[f"ts_{f}"] = float(np.nanmedian(ts))
                row[f"ts_first_{f}"] = (
                    float(ts[np.isfinite(ts)][0]) if np.isfinite(ts).any() else math.nan
                )
                row[f"ts_last_{f}"] = (
                    float(ts[np.isfinite(ts)][-1]) if np.isfinite(ts).any() else math.nan
                )
                row[f"w_ar_{f}"] = float(np.nanmedian(_flow_series(rec, f, "cc.fccc_w_ar")))
    elif exp == "E4-4":
        row.update(switch_metrics(rec))
    return row


def switch_metrics(rec: Mapping[str, Any]) -> dict[str, float]:
    """E4-4: cwnd_up at each rate (medians), and how long after each rate change the sender's
    bound first reflects it. The AP learns the new rate from the device's next frame and the
    sender from the ACK that echoes it, so the lag is the time until that frame (the sender
    may be idle, waiting for ACKs) plus the echo's way back. Reported: the echo's part (from
    the first frame at the new rate) in timeslots, the whole lag in timeslots and in RTTs (the
    largest over the switches), the longest idle, and the switches the sender never saw."""
    dr = _flow_series(rec, "ed1", "cc.fccc_dr_mbps")
    up = _flow_series(rec, "ed1", "cc.fccc_cwnd_up")
    ts = _flow_series(rec, "ed1", "cc.fccc_ts_ms")
    srtt = _flow_series(rec, "ed1", "srtt_ms")
    # Each switch k (s) sets 6 Mbit/s at odd k, 24 at even k (scenarios/fccc/rate-switch).
    frames = np.asarray(rec["series"]["wifi"]["senders:ed1->ap1"]["ppdus"], dtype=float)
    times = _times(rec, dr.size)
    step = rec["interval_s"]
    fast, slow = up[dr == 24], up[dr == 6]
    in_ts, in_rtt, echo_ts, idle, missed = [], [], [], [], 0
    for k in range(1, int(times[-1]) - 1):
        new = 6 if k % 2 else 24
        # The AP's first frame at the new rate (none if the sender was idle all period).
        sent = np.flatnonzero((times[: frames.size] > k) & (times[: frames.size] <= k + 1))
        sent = sent[frames[sent] > 0]
        if not sent.size:
            continue
        first_frame = times[sent[0]] - step
        # The sender follows at the first change of its echoed rate to the new one after that
        # frame (it may still hold the new rate from an earlier period, an echo not of this).
        now_new = (dr == new) & (times > first_frame)
        changed = np.flatnonzero(now_new[1:] & (dr[:-1] != new)) + 1
        changed = changed[times[changed] <= first_frame + 2]
        if not changed.size:
            missed += 1
            continue
        seen = times[changed[0]]
        slot_ms = max(float(np.nanmedian(ts[changed[0] : changed[0] + 10])), 1e-9)
        rtt_ms = max(float(np.nanmedian(srtt[changed[0] : changed[0] + 10])), 1e-9)
        in_ts.append((seen - k) * 1e3 / slot_ms)
        in_rtt.append((seen - k) * 1e3 / rtt_ms)
        echo_ts.append((seen - first_frame) * 1e3 / slot_ms)
        idle.append(first_frame - k)
    return {
        "cwnd_up_fast": float(np.median(fast)) if fast.size else math.nan,
        "cwnd_up_slow": float(np.median(slow)) if slow.size else math.nan,
        "lag_in_timeslots": float(max(in_ts)) if in_ts else math.nan,
        "lag_in_rtts": float(max(in_rtt)) if in_rtt else math.nan,
        "echo_lag_in_timeslots": float(max(echo_ts)) if echo_ts else math.nan,
        "idle_after_switch_s": float(max(idle)) if idle else math.nan,
        "switches_missed": float(missed),
    }


#: Tags of a run that are not metrics.
TAGS = {"seed", "experiment", "cc", "floor", "scale", "path", "buffer", "leave"}


def difference(a_fast: float, a_slow: float) -> float:
    """D_ij = 100 (A_i - A_j) / A_i (reproduction-targets P4.5, E4-3)."""
    return 100 * (a_fast - a_slow) / a_fast if a_fast > 0 else math.nan
