"""Paper 000's runs and what each run measures: the AQMs, BBR versions, directions and flows
every run is made of, the PHYs, wires and model readings the studies vary (with the declared
readings' names), and the per-run metrics, one row per flow and one per direction, read from a
run's series as iperf3 and ``ss -tin`` give them.

The paper module (``bbr_wifi6``), its targets (``targets_wifi6``) and its figures
(``figures_wifi6``) import from here; this module imports none of them."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from airlab.model.fluid import Aqm, MinRttReading

AQMS: tuple[Aqm, ...] = ("pfifo", "fq_codel", "cake")
AQM_LABEL = {"pfifo": "PFIFO", "fq_codel": "FQ-CoDel", "cake": "CAKE"}
BBRS = ("bbr1", "bbr2", "bbr3")
BBR_LABEL = {"bbr1": "BBRv1", "bbr2": "BBRv2", "bbr3": "BBRv3"}
DIRECTIONS = ("uplink", "downlink", "bidir")
#: Segment size of the scenarios' TCP (MTU 1500 with timestamps), for cwnd in KB.
MSS = 1448
CAPACITY_MBPS = 10.0
#: Flows of each scenario in order; the BBR flows are the ones whose cc the plan sets.
FLOWS = {
    "uplink": ("bbr3", "cubic"),
    "downlink": ("bbr3", "cubic"),
    "bidir": ("bbr3_up", "cubic_up", "bbr3_down", "cubic_down"),
}


#: The proposed default PHY (reproduction-targets P0.2): HE-MCS 7 at 20 MHz, 86 Mbit/s, where
#: the AP's 10 Mbit/s classes alone bind. Every target is judged here.
MAIN_MCS = 7
#: Slower PHYs run for the sensitivity study (X.1: is the Wi-Fi the bottleneck?): uplink under
#: each AQM and bidirectional CAKE, BBRv3 against CUBIC.
SENSITIVITY_MCS = (2, 3, 4, 5)
#: One-way delays (ms) of the wire to the receiver/sender laptop in the base-RTT study
#: (``scenarios/bbr-wifi6/wired-rs-uplink-*``): base RTTs of about 2, 6 and 10 ms.
WIRE_MS = (0.5, 2.5, 4.5)
#: The fluid model's readings compared with the simulator: the default, and BBR's min_rtt
#: as its 10 s filter sees it (the simulator's BBR, like Linux's, holds a queue-inflated one).
MODEL_READINGS: tuple[MinRttReading, ...] = ("propagation", "filtered")

#: The declared readings' names: E0-1's direction, the PHY per MCS, the path per wire delay
#: (0: the main runs' two Wi-Fi hops), the model's min_rtt.
E01_UPLINK, E01_DOWNLINK = "Fig. 5 uplink", "Fig. 5 downlink"
E01_READING = {"uplink": E01_UPLINK, "downlink": E01_DOWNLINK}
PHY_READING = {mcs: f"HE-MCS {mcs}" for mcs in (MAIN_MCS, *sorted(SENSITIVITY_MCS, reverse=True))}
PATH_READING = {0.0: "two Wi-Fi hops", **{w: f"wire {w} ms" for w in WIRE_MS}}
MIN_RTT_READING = {r: f"min_rtt {r}" for r in MODEL_READINGS}


# -- per-run metrics ---------------------------------------------------------------------------


def _after(rec: Mapping[str, Any], values: Sequence[float], warmup_s: float) -> np.ndarray:
    """The samples of a 100 ms series taken after the warm-up (sample k ends at (k+1) dt)."""
    dt = rec["interval_s"]
    skip = max(0, round(warmup_s / dt) - 1)
    return np.asarray(values, dtype=float)[skip + 1 :]


def one_second_bins(rec: Mapping[str, Any], values: Sequence[float]) -> np.ndarray:
    """A 100 ms goodput series as 1 s means (iperf3's interval); a partial last bin is dropped."""
    per_bin = max(1, round(1.0 / rec["interval_s"]))
    x = np.asarray(values, dtype=float)
    n = x.size // per_bin
    return x[: n * per_bin].reshape(n, per_bin).mean(axis=1)


def roles(rec: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """(name, role, way) of each flow of a run: role "bbr" or "cubic", way "up" (toward the
    receiver/sender laptop rs) or "down" (from it)."""
    return [
        (
            f["name"],
            "bbr" if f["cc"].startswith("bbr") else "cubic",
            "down" if f["src"] == "rs" else "up",
        )
        for f in rec["summary"]["flows"]
    ]


def flow_metrics(rec: Mapping[str, Any], warmup_s: float) -> list[dict[str, Any]]:
    """One row per flow of a run: throughput, cwnd, RTT, jitter, retransmissions, rates."""
    rows = []
    summary = {f["name"]: f for f in rec["summary"]["flows"]}
    for name, role, way in roles(rec):
        f = summary[name]
        s = rec["series"]["flows"][name]
        cwnd_kb = _after(rec, s["cwnd_pkts"], warmup_s) * MSS / 1024
        srtt = _after(rec, s["srtt_ms"], warmup_s)
        pacing = _after(rec, s["pacing_rate_mbps"], warmup_s)
        delivery = _after(rec, s["delivery_rate_mbps"], warmup_s)
        bins = one_second_bins(rec, rec["goodput_mbps"][name])[int(warmup_s) :]
        q1, q3 = np.percentile(srtt, [25, 75])
        rows.append(
            {
                **rec["tags"],
                "seed": rec["seed"],
                "flow": name,
                "role": role,
                "way": way,
                "thr": f["goodput_mbps"],
                "bin_min": float(bins.min()),
                "bin_max": float(bins.max()),
                "bins_over_7_5": float((bins > 7.5).mean()),
                # How erratic the flow's iperf3 throughput is (Fig. 11: PFIFO "erratic",
                # FQ-CoDel "more stable", CAKE "tightly clustered").
                "bin_sd": float(bins.std()),
                "cwnd_kb": float(np.median(cwnd_kb)),
                "cwnd_kb_p95": float(np.percentile(cwnd_kb, 95)),
                "rtt": float(np.median(srtt)),
                "rtt_iqr": float(q3 - q1),
                "rtt_min": f["rtt_ms"]["min"],
                "jitter": f["srtt_jitter_ms"],
                "retransmits": f["retransmits"],
                "retransmit_pct": 100 * f["retransmit_rate"],
                "pacing": float(np.median(pacing)),
                "delivery": float(np.median(delivery)),
                "delivery_p95": float(np.percentile(delivery, 95)),
                "delivery_over_pacing": float(np.median(delivery / pacing)),
            }
        )
    return rows


def pair_metrics(rec: Mapping[str, Any], warmup_s: float) -> list[dict[str, Any]]:
    """Per direction of a run: the BBR flow's share and how the two flows' 1 s throughputs
    move together (E0-1's limit cycle: correlation and each flow's peak-to-trough swing)."""
    out = []
    by_way: dict[str, dict[str, str]] = {}
    for name, role, way in roles(rec):
        by_way.setdefault(way, {})[role] = name
    thr = {f["name"]: f["goodput_mbps"] for f in rec["summary"]["flows"]}
    for way, names in sorted(by_way.items()):
        b = one_second_bins(rec, rec["goodput_mbps"][names["bbr"]])[int(warmup_s) :]
        c = one_second_bins(rec, rec["goodput_mbps"][names["cubic"]])[int(warmup_s) :]
        total = thr[names["bbr"]] + thr[names["cubic"]]
        out.append(
            {
                **rec["tags"],
                "seed": rec["seed"],
                "way": way,
                "bbr_share": thr[names["bbr"]] / total if total > 0 else math.nan,
                "total": total,
                "correlation": float(np.corrcoef(b, c)[0, 1])
                if b.std() > 0 and c.std() > 0
                else 0.0,
                "swing_bbr": float(b.max() - b.min()),
                "swing_cubic": float(c.max() - c.min()),
            }
        )
    return out


FLOW_METRICS = (
    "thr",
    "bin_min",
    "bin_max",
    "bins_over_7_5",
    "bin_sd",
    "cwnd_kb",
    "cwnd_kb_p95",
    "rtt",
    "rtt_iqr",
    "jitter",
    "retransmits",
    "retransmit_pct",
    "pacing",
    "delivery",
    "delivery_p95",
    "delivery_over_pacing",
)
PAIR_METRICS = ("bbr_share", "total", "correlation", "swing_bbr", "swing_cubic")
