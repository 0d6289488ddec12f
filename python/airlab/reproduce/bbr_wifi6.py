"""Paper 000: BBRv3 against CUBIC over Wi-Fi 6 under PFIFO, FQ-CoDel and CAKE (Figs. 5-11).

Three laptops on one 802.11ax AP (``scenarios/bbr-wifi6/``); the AP's htb limits each direction
to 10 Mbit/s over the leaf qdisc (PFIFO-50, FQ-CoDel or CAKE with Linux defaults). Uplink: the
BBR and CUBIC laptops send to the receiver/sender laptop; downlink: it sends to them;
bidirectional: both at once, four flows. E0-1 replaces BBRv3 with BBRv1 and BBRv2 under PFIFO.

Per flow we report what the paper's iperf3 and ``ss -tin`` show: throughput in 1 s bins, cwnd in
KB (cwnd x MSS / 1024, as iperf3 prints it), srtt at the 100 ms sampling interval (its median
and the jitter: the mean absolute difference of consecutive samples), pacing and delivery rate,
and retransmitted segments. Box plots and medians use the samples after the 5 s warm-up; time
series start at 0. Five seeds; seeds differ in the MAC's backoffs and U(0, 100 ms) flow starts.
Means over seeds with 95 % confidence intervals.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from airlab import _io
from airlab.reproduce.runner import (
    Job,
    Reading,
    Target,
    direction,
    mean_ci,
    point,
    row_where,
    seed_means,
    span,
    write_runs_table,
    write_targets,
)

if TYPE_CHECKING:  # the model's module imports scipy: this one loads it when it solves
    from airlab.model.fluid import Aqm, MinRttReading

TITLE = "TCP BBRv3 over Wi-Fi 6: PFIFO, FQ-CoDel and CAKE (paper 000)"
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

#: Per-flow time series kept per run (the goodput series is always kept).
SERIES = {"flows": ("cwnd_pkts", "srtt_ms", "pacing_rate_mbps", "delivery_rate_mbps")}
SERIES_LINKS: tuple[str, ...] = ()


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
_E01 = "the direction of Fig. 5's flows (E0-1; the text states neither direction nor AQM)"
_PHY = "the Wi-Fi PHY (the text gives no band, width, spatial streams or MCS)"
_PATH = "the path's base RTT (the text reports none)"
_MIN_RTT = "the fluid model's minimum RTT tau_min (eqs. 10-13)"
#: The readings every row stands on: each is measured (or, for the model's rows, solved) at
#: HE-MCS 7 over the two-hop path, whose 1 ms base RTT is the model's tau_min.
MAIN_READINGS = (PHY_READING[MAIN_MCS], PATH_READING[0.0])
#: What the paper leaves open that this module runs more than one way. The PHY (HE-MCS 7 and
#: the slower MCS of the sensitivity study), the direction of Fig. 5 (E0-1 uplink and downlink)
#: and the model's two min_rtt readings entered the plan on 2026-11-26 with the module and its
#: model (3a8e665, 3eb9e20), the base-RTT wires the same day (131711c): the oldest hits of
#: ``git log -S`` for SENSITIVITY_MCS, "downlink a supplement", MODEL_READINGS and WIRE_MS.
#: The primaries were declared on 2026-11-27, after every reading had run, from the text alone
#: (below), never from which reading hits more rows. Only the primaries' rows are judged; the
#: other readings have no rows of their own (the PHY and base-RTT tables, the model rows'
#: notes and model_vs_sim.csv), except E0-1's downlink, whose rows are reported beside.
READINGS_DECLARED = (
    Reading(
        _E01,
        E01_UPLINK,
        "BBRv1, BBRv2 and BBRv3 each against CUBIC uplink (both laptops send to the "
        "receiver/sender laptop), under PFIFO-50",
        True,
        "Sec. 5.1 explains Fig. 5 by each station's MAC service rate (L376) and a Theta_i(t) "
        "that 'fluctuates due to contention, aggregation, and backoff' (L387), and the paper "
        "itself gives the downlink 'a more regular MAC-layer service rate' and 'less severe "
        "contention than in uplink transmissions' (L434): the account fits the uplink",
        "2026-11-26",
    ),
    Reading(
        _E01,
        E01_DOWNLINK,
        "the same three pairs downlink (the receiver/sender laptop sends to both), under PFIFO-50",
        False,
        "the other direction the text leaves possible, run as reproduction-targets P0.5's "
        "supplement; the contention the text credits (L387) is what it says the downlink "
        "lacks (L434)",
        "2026-11-26",
    ),
    Reading(
        _PHY,
        PHY_READING[MAIN_MCS],
        f"802.11ax single-user EDCA at 20 MHz, one spatial stream, constant HE-MCS {MAIN_MCS} "
        "(86 Mbit/s), as reproduction-targets P0.2 proposes; the model's rows take eq. 2's "
        "cell rate at the same MCS",
        True,
        "the text names no rate but puts the bottleneck at the router: its queue tree "
        "'enforces a 10 Mbps bandwidth limit in both directions ..., creating the bottleneck "
        "link' (L358), on a testbed where every flow crosses the air twice (L354-356), so the "
        "PHY must leave that limit binding in every pattern; the text cannot tell which MCS "
        "does, so the primary is the fastest run, the one closest to a Wi-Fi 6 router and "
        "laptops in one home (L349, L354), where the 10 Mbit/s classes alone bind",
        "2026-11-26",
    ),
    *(
        Reading(
            _PHY,
            PHY_READING[mcs],
            f"the same PHY at HE-MCS {mcs}; runs uplink under each AQM and bidirectional CAKE "
            "(the sensitivity table, no rows)",
            False,
            "the captions' '10 Mbps Wi-Fi bottleneck' (L394, L411, L439) and the text's "
            "Theta_i-driven account (L376, L387): a PHY slow enough that the air adds "
            "contention and delay outside the AP's AQM (reproduction-targets P0.7 X.1)",
            "2026-11-26",
        )
        for mcs in sorted(SENSITIVITY_MCS, reverse=True)
    ),
    Reading(
        _PATH,
        PATH_READING[0.0],
        "all three laptops on the AP over Wi-Fi, no added delay: a base RTT of two Wi-Fi hops "
        "and the router (about 1 ms); the fluid model's tau_min is the same 1 ms",
        True,
        "'All devices connect to the AP over Wi-Fi, creating a fully wireless environment' "
        "(L349-354), and the testbed's description adds only the router's rate limit and "
        "qdiscs (L358), no delay emulation",
        "2026-11-26",
    ),
    *(
        Reading(
            _PATH,
            PATH_READING[w],
            f"the receiver/sender laptop behind the AP's wired port, a wire of {w} ms one way "
            "in place of its Wi-Fi hop; runs uplink under each AQM (the base-RTT table, no "
            "rows)",
            False,
            "a step toward the base RTT near 10 ms that the paper's FQ-CoDel and CAKE RTT "
            "medians (L424) and windows (L415, L419) imply, over a wire the 'fully wireless' "
            "testbed (L354) does not have",
            "2026-11-26",
        )
        for w in WIRE_MS
    ),
    Reading(
        _MIN_RTT,
        MIN_RTT_READING["propagation"],
        "BBR's min_rtt in eqs. 10-13 is the path's propagation delay, fixed",
        True,
        "'tau_i^min denotes the minimum RTT (propagation delay)' (L270), and the model's "
        "rows are what the paper says its equations predict",
        "2026-11-26",
    ),
    Reading(
        _MIN_RTT,
        MIN_RTT_READING["filtered"],
        "BBR's min_rtt is a 10 s min filter of the flow's RTT samples, as real BBR keeps it "
        "(docs/models/fluid.md); a standing queue inflates it",
        False,
        "matches the simulator's BBR and the text's account of PFIFO, where RTT inflation "
        "spoils BBRv3's 'estimate of ... minRTT' (L413), which the printed model does not "
        "contain; in each model row's note and in model_vs_sim.csv",
        "2026-11-26",
    ),
)


@dataclass(frozen=True)
class Plan:
    seeds: tuple[int, ...]
    duration_s: int
    warmup_s: int


FULL = Plan((1, 2, 3, 4, 5), 60, 5)
QUICK = Plan((1, 2), 20, 5)


def plan(quick: bool) -> Plan:
    return QUICK if quick else FULL


def _job(
    pattern: str, aqm: str, bbr: str, seed: int, p: Plan, mcs: int = MAIN_MCS, wire_ms: float = 0
) -> Job:
    """One run; ``wire_ms`` > 0 puts the receiver/sender laptop behind a wire of that delay."""
    flows = FLOWS[pattern]
    starts = np.random.default_rng(seed).uniform(0.0, 100.0, size=len(flows))  # ms
    params = [("duration", f"{p.duration_s}s"), ("metrics.warmup", f"{p.warmup_s}s")]
    params.append(("wifi.cell.mcs", str(mcs)))
    params += [(f"flow.{name}.start", f"{s:.3f}ms") for name, s in zip(flows, starts, strict=True)]
    params += [(f"flow.{name}.cc", bbr) for name in flows if name.startswith("bbr")]
    scenario = f"bbr-wifi6/{pattern}-{aqm}"
    if wire_ms:
        scenario = f"bbr-wifi6/wired-rs-{pattern}-{aqm}"
        params.append(("link.wire.delay", f"{wire_ms}ms"))
    tags = (("mcs", mcs), ("wire_ms", wire_ms), ("pattern", pattern), ("aqm", aqm), ("bbr", bbr))
    return Job(scenario, tuple(params), seed, tags)


def jobs(quick: bool = False) -> list[Job]:
    """Every run: BBRv3 vs CUBIC in each pattern under each AQM (E0-2..E0-7), BBRv1 and BBRv2
    vs CUBIC under PFIFO uplink and downlink (E0-1, beside the BBRv3 runs), the slower PHYs
    of the sensitivity study and the longer base RTTs of the base-RTT study."""
    p = plan(quick)
    out = []
    for seed in p.seeds:
        for pattern in DIRECTIONS:
            for aqm in AQMS:
                out.append(_job(pattern, aqm, "bbr3", seed, p))
        for bbr in BBRS[:2]:
            for pattern in ("uplink", "downlink"):
                out.append(_job(pattern, "pfifo", bbr, seed, p))
        for mcs in SENSITIVITY_MCS:
            for aqm in AQMS:
                out.append(_job("uplink", aqm, "bbr3", seed, p, mcs))
            out.append(_job("bidir", "cake", "bbr3", seed, p, mcs))
        for wire in WIRE_MS:
            for aqm in AQMS:
                out.append(_job("uplink", aqm, "bbr3", seed, p, wire_ms=wire))
    return out


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


def threshold(
    experiment: str,
    metric: str,
    lo: float,
    hi: float,
    ours: float,
    variant: str = "",
    note: str = "",
) -> Target:
    """A range of P0.5's [DEF] acceptance rules (a share, a correlation, a swing): exact, where
    :func:`span`'s ranges read off the paper's plots are widened by 20 %."""
    return span(experiment, metric, lo, hi, ours, variant, note, read_off_plot=False)


# -- rows that cannot fail on their own ---------------------------------------------------------

#: Goodput of a busy 10 Mbit/s class: the htb counts 1514-byte frames, iperf3 1448-byte payloads.
CLASS_GOODPUT_MBPS = CAPACITY_MBPS * MSS / 1514

#: Why the rate of a class kept busy, and each flow's half of it under a flow-fair qdisc, cannot
#: tell a faithful model from a wrong one (the review's finding for this paper).
BUSY_TOTAL = (
    f"the 10 Mbit/s htb class carries {CLASS_GOODPUT_MBPS:.2f} Mbit/s of goodput whenever it is "
    "kept busy, whatever the two CCs do"
)
BUSY_SUM = (
    f"with the class busy the two 1 s throughputs sum to about {CLASS_GOODPUT_MBPS:.2f} Mbit/s, "
    "so what moves one moves the other the opposite way: near -1 for any model"
)


def fair_split(aqm: str, tail: str = "") -> str:
    """Why a per-flow rate (or share, or their difference: ``tail``) under a flow-fair qdisc
    echoes the configuration."""
    return (
        f"{AQM_LABEL[aqm]}'s flow queues split the busy class evenly, "
        f"{CLASS_GOODPUT_MBPS / 2:.2f} Mbit/s each, and on the ~1 ms path (0.4 packets of BDP) "
        f"any window keeps both flows backlogged{tail}"
    )


#: PFIFO's uplink median RTT: the buffer the scenario sets, filled by CUBIC.
PFIFO_RTT = (
    "PFIFO's 50 packets drain in 60.6 ms at 10 Mbit/s and CUBIC refills them after backing off "
    "30 %, so on the ~1 ms path the median lies at 42-62 ms, inside the widened 40-66"
)


# -- paper numbers -----------------------------------------------------------------------------


@dataclass
class Tables:
    flows: pd.DataFrame
    pairs: pd.DataFrame

    def flow(self, pattern: str, aqm: str, role: str, way: str = "", bbr: str = "bbr3") -> Any:
        way = way or ("down" if pattern == "downlink" else "up")
        return row_where(self.flows, pattern=pattern, aqm=aqm, bbr=bbr, role=role, way=way)

    def pair(self, pattern: str, aqm: str, bbr: str = "bbr3", way: str = "") -> Any:
        way = way or ("down" if pattern == "downlink" else "up")
        return row_where(self.pairs, pattern=pattern, aqm=aqm, bbr=bbr, way=way)


def e01_targets(t: Tables) -> list[Target]:
    """E0-1 (Fig. 5): each BBR version against CUBIC under PFIFO; uplink is the primary
    reading, downlink reported beside it (the paper names neither): each row carries its
    direction's reading."""
    out: list[Target] = []
    for pattern in ("uplink", "downlink"):
        v = pattern
        first = len(out)
        v1, v2, v3 = (t.pair(pattern, "pfifo", b) for b in BBRS)
        b1 = t.flow(pattern, "pfifo", "bbr", bbr="bbr1")
        c1 = t.flow(pattern, "pfifo", "cubic", bbr="bbr1")
        b2 = t.flow(pattern, "pfifo", "bbr", bbr="bbr2")
        out += [
            threshold("E0-1 (Fig. 5a)", "BBRv1 share of the two flows", 0.6, 1.0, v1.bbr_share, v),
            span("E0-1 (Fig. 5a)", "CUBIC against BBRv1 (Mbit/s)", 0.0, 5.0, c1.thr, v),
            direction(
                "E0-1 (Fig. 5a)",
                "BBRv1 frequently above 7.5 Mbit/s (share of 1 s bins over 10 %)",
                b1.bins_over_7_5 > 0.1,
                b1.bins_over_7_5 - 0.1,
                v,
            ),
            threshold("E0-1 (Fig. 5b)", "BBRv2 share of the two flows", 0.0, 0.5, v2.bbr_share, v),
            direction(
                "E0-1 (Fig. 5b)",
                "BBRv2 sometimes below 2 Mbit/s (lowest 1 s bin under 2)",
                b2.bin_min < 2.0,
                2.0 - b2.bin_min,
                v,
            ),
            threshold(
                "E0-1 (Fig. 5c)",
                "BBRv3/CUBIC 1 s throughput correlation",
                -1.0,
                -0.3,
                v3.correlation,
                v,
            ).not_informative("insensitive", BUSY_SUM),
            threshold(
                "E0-1 (Fig. 5c)",
                "BBRv3 peak-to-trough swing (Mbit/s)",
                4.0,
                math.inf,
                v3.swing_bbr,
                v,
            ),
            threshold(
                "E0-1 (Fig. 5c)",
                "CUBIC peak-to-trough swing (Mbit/s)",
                4.0,
                math.inf,
                v3.swing_cubic,
                v,
            ).not_informative(
                "follows",
                "the two 1 s throughputs sum to the busy class's rate, so CUBIC's peak-to-trough "
                "is BBRv3's (the BBRv3 peak-to-trough swing row)",
            ),
        ]
        for x in out[first:]:
            x.reading = (E01_READING[pattern],)
    return out


def e02_targets(t: Tables) -> list[Target]:
    """E0-2 (Fig. 6): BBRv3's pacing rate against its delivery rate, uplink."""
    e = "E0-2 (Fig. 6)"
    pf, fq, ck = (t.flow("uplink", a, "bbr") for a in AQMS)
    out = [
        span(e, "BBRv3 pacing rate, median (Mbit/s)", 5.0, 6.0, pf.pacing, "PFIFO"),
        span(e, "BBRv3 delivery rate, median (Mbit/s)", 0.0, 2.0, pf.delivery, "PFIFO"),
        threshold(e, "delivery / pacing, median", 0.0, 0.4, pf.delivery_over_pacing, "PFIFO"),
        span(e, "BBRv3 delivery-rate peaks, p95 (Mbit/s)", 3.0, 4.5, fq.delivery_p95, "FQ-CoDel"),
        point(e, "BBRv3 pacing rate, median (Mbit/s)", 5.5, ck.pacing, "CAKE"),
        point(e, "BBRv3 delivery rate, median (Mbit/s)", 4.5, ck.delivery, "CAKE").not_informative(
            "follows",
            "a delivery-rate sample is the flow's goodput over a round, so its median is BBRv3's "
            "CAKE share (the E0-3 CAKE BBRv3 throughput row)",
        ),
        point(e, "delivery / pacing, median", 0.8, ck.delivery_over_pacing, "CAKE"),
    ]
    r = [x.delivery_over_pacing for x in (pf, fq, ck)]
    m = min(r[1] - r[0], r[2] - r[1])
    out.append(direction(e, "delivery/pacing: PFIFO < FQ-CoDel < CAKE", m > 0, m, "uplink"))
    return out


def _throughput_cwnd(t: Tables, pattern: str) -> list[Target]:
    """E0-3 / E0-5: throughput and cwnd per AQM."""
    if pattern == "uplink":
        e = "E0-3 (Fig. 7)"
        out = [
            span(
                e,
                "CUBIC throughput (Mbit/s)",
                6.0,
                8.0,
                t.flow(pattern, "pfifo", "cubic").thr,
                "PFIFO",
            ),
            span(
                e,
                "BBRv3 throughput (Mbit/s)",
                2.0,
                4.0,
                t.flow(pattern, "pfifo", "bbr").thr,
                "PFIFO",
            ),
            span(
                e,
                "CUBIC cwnd, median (KB)",
                35.0,
                50.0,
                t.flow(pattern, "pfifo", "cubic").cwnd_kb,
                "PFIFO",
            ),
            span(
                e,
                "BBRv3 cwnd, median (KB)",
                20.0,
                30.0,
                t.flow(pattern, "pfifo", "bbr").cwnd_kb,
                "PFIFO",
            ),
            span(
                e,
                "CUBIC cwnd, median (KB)",
                15.0,
                20.0,
                t.flow(pattern, "fq_codel", "cubic").cwnd_kb,
                "FQ-CoDel",
            ),
            span(
                e,
                "BBRv3 cwnd, median (KB)",
                20.0,
                30.0,
                t.flow(pattern, "fq_codel", "bbr").cwnd_kb,
                "FQ-CoDel",
            ),
            point(
                e,
                "BBRv3 cwnd when probing, p95 (KB)",
                35.0,
                t.flow(pattern, "cake", "bbr").cwnd_kb_p95,
                "CAKE",
            ),
            span(
                e,
                "CUBIC cwnd, median (KB)",
                12.0,
                18.0,
                t.flow(pattern, "cake", "cubic").cwnd_kb,
                "CAKE",
            ),
        ]
        for aqm in ("fq_codel", "cake"):
            for role, name in (("bbr", "BBRv3"), ("cubic", "CUBIC")):
                out.append(
                    point(
                        e,
                        f"{name} throughput (Mbit/s)",
                        5.0,
                        t.flow(pattern, aqm, role).thr,
                        AQM_LABEL[aqm],
                    ).not_informative("configuration", fair_split(aqm))
                )
        pf = t.pair(pattern, "pfifo")
        m = 0.5 - pf.bbr_share
        out.append(
            direction(
                e, "CUBIC dominates BBRv3 under PFIFO (CUBIC share - 0.5)", m > 0, m, "PFIFO"
            ).not_informative(
                "follows",
                f"with the class busy a CUBIC share over 0.5 is CUBIC over "
                f"{CLASS_GOODPUT_MBPS / 2:.2f} Mbit/s, where the PFIFO CUBIC throughput row's "
                "widened 6-8 range starts (4.8)",
            )
        )
    else:
        e = "E0-5 (Fig. 9)"
        out = []
        for aqm in ("pfifo", "fq_codel"):
            b, c = t.flow(pattern, aqm, "bbr"), t.flow(pattern, aqm, "cubic")
            row = direction(
                e, "BBRv3 above CUBIC (Mbit/s)", b.thr > c.thr, b.thr - c.thr, AQM_LABEL[aqm]
            )
            if aqm == "fq_codel":
                # The paper's "consistently outperforms" needs CUBIC to leave its flow queue
                # empty; on this path it never does, so the sign is the seeds' noise.
                row.not_informative("configuration", fair_split(aqm, ", so the sign is noise"))
            out.append(row)
        m = t.pair(pattern, "fq_codel").total - t.pair(pattern, "pfifo").total
        out.append(
            direction(
                e, "FQ-CoDel carries more than PFIFO (Mbit/s, both flows)", m > 0, m, "FQ-CoDel"
            ).not_informative(
                "configuration",
                f"both totals are the busy class's {CLASS_GOODPUT_MBPS:.2f} Mbit/s, so the sign "
                "of their difference is noise",
            )
        )
        for role, name in (("bbr", "BBRv3"), ("cubic", "CUBIC")):
            out.append(
                point(
                    e, f"{name} throughput (Mbit/s)", 5.0, t.flow(pattern, "cake", role).thr, "CAKE"
                ).not_informative("configuration", fair_split("cake"))
            )
        out.append(
            point(
                e,
                "both flows together (Mbit/s)",
                CAPACITY_MBPS,
                t.pair(pattern, "cake").total,
                "CAKE",
                absolute=0.5,
            ).not_informative("configuration", BUSY_TOTAL)
        )
    ck = t.pair(pattern, "cake")
    m = 0.05 - abs(ck.bbr_share - 0.5)
    out.append(
        direction(
            e, "CAKE shares near equal (|BBRv3 share - 0.5| under 0.05)", m > 0, m, "CAKE"
        ).not_informative("configuration", fair_split("cake"))
    )
    return out


def _mean_of_roles(t: Tables, pattern: str, aqm: str, metric: str) -> float:
    return float(np.mean([getattr(t.flow(pattern, aqm, r), metric) for r in ("bbr", "cubic")]))


def _delay_and_retransmits(t: Tables, pattern: str) -> list[Target]:
    """E0-4 / E0-6: RTT, jitter and retransmissions per AQM (RTT and jitter: the mean of the
    two flows' medians)."""
    rtt = {a: _mean_of_roles(t, pattern, a, "rtt") for a in AQMS}
    jit = {a: _mean_of_roles(t, pattern, a, "jitter") for a in AQMS}
    ck_b, ck_c = t.flow(pattern, "cake", "bbr"), t.flow(pattern, "cake", "cubic")
    out: list[Target] = []
    if pattern == "uplink":
        e = "E0-4 (Fig. 8)"
        out += [
            span(e, "RTT median (ms)", 50.0, 55.0, rtt["pfifo"], "PFIFO").not_informative(
                "configuration", PFIFO_RTT
            ),
            point(e, "RTT median (ms)", 25.0, rtt["fq_codel"], "FQ-CoDel"),
            point(e, "RTT median (ms)", 18.0, rtt["cake"], "CAKE"),
            point(e, "jitter (ms)", 14.0, jit["pfifo"], "PFIFO"),
            point(
                e,
                "retransmissions BBRv3 / CUBIC",
                round(3001 / 952, 2),
                ck_b.retransmits / max(ck_c.retransmits, 1),
                "CAKE",
            ),
        ]
        m = max(jit["fq_codel"], jit["cake"]) / jit["pfifo"]
        out.append(
            direction(
                e,
                "FQ-CoDel and CAKE jitter substantially lower than PFIFO's "
                "(under half; margin 0.5 - worse ratio)",
                m < 0.5,
                0.5 - m,
                "uplink",
            )
        )
        rx = {a: sum(t.flow(pattern, a, r).retransmits for r in ("bbr", "cubic")) for a in AQMS}
        m = rx["fq_codel"] - rx["pfifo"]
        out.append(
            direction(
                e,
                "FQ-CoDel retransmits more than PFIFO (segments, both flows)",
                m > 0,
                m,
                "FQ-CoDel",
            )
        )
    else:
        e = "E0-6 (Fig. 10)"
        out += [
            # Not marked as the uplink's 50-55 is: ±20 % of 50 ends at 60 ms, below a full
            # buffer's 61-62, so a model that keeps PFIFO full misses it.
            point(e, "RTT median (ms)", 50.0, rtt["pfifo"], "PFIFO"),
            point(
                e, "RTT median FQ-CoDel / PFIFO", 0.5, rtt["fq_codel"] / rtt["pfifo"], "FQ-CoDel"
            ),
            span(e, "RTT median (ms)", 0.0, 20.0, rtt["cake"], "CAKE"),
        ]
        m = min(jit["pfifo"] - jit["fq_codel"], jit["fq_codel"] - jit["cake"])
        out.append(direction(e, "jitter: PFIFO > FQ-CoDel > CAKE (ms)", m > 0, m, "downlink"))
        wins = sum(
            t.flow(pattern, a, "cubic").retransmits < t.flow(pattern, a, "bbr").retransmits
            for a in AQMS
        )
        out.append(
            direction(
                e,
                "CUBIC retransmits less than BBRv3 (AQMs where it does, of 3, minus 1.5)",
                wins >= 2,
                wins - 1.5,
                "downlink",
            )
        )
    m = min(rtt["pfifo"] - rtt["fq_codel"], rtt["fq_codel"] - rtt["cake"])
    out.append(direction(e, "RTT: PFIFO > FQ-CoDel > CAKE (ms)", m > 0, m, pattern))
    m = ck_b.retransmits - ck_c.retransmits
    out.append(direction(e, "BBRv3 retransmits more than CUBIC (segments)", m > 0, m, "CAKE"))
    return out


def direction_effect(t: Tables) -> Target:
    """E0-6: the traffic direction moves the RTT far less than the AQM does."""
    gaps = [
        abs(_mean_of_roles(t, "uplink", a, "rtt") - _mean_of_roles(t, "downlink", a, "rtt"))
        for a in AQMS
    ]
    ul = sorted(_mean_of_roles(t, "uplink", a, "rtt") for a in AQMS)
    smallest_aqm_step = min(b - a for a, b in itertools.pairwise(ul))
    m = smallest_aqm_step - max(gaps)
    return direction(
        "E0-6 (Fig. 10)",
        "direction moves the RTT less than the AQM does (ms)",
        m > 0,
        m,
        "uplink vs downlink",
    )


def e07_targets(t: Tables) -> list[Target]:
    """E0-7 (Fig. 11): bidirectional, qualitative claims."""
    e = "E0-7 (Fig. 11)"
    iqr = {a: _mean_of_roles_bidir(t, a, "rtt_iqr") for a in AQMS}
    rtt = {a: _mean_of_roles_bidir(t, a, "rtt") for a in AQMS}
    m = iqr["pfifo"] - max(iqr["fq_codel"], iqr["cake"])
    out = [direction(e, "PFIFO has the most variable RTT (IQR, ms)", m > 0, m, "PFIFO")]
    m = 0.5 - rtt["fq_codel"] / rtt["pfifo"]
    out.append(
        direction(e, "FQ-CoDel cuts the RTT well below PFIFO's (under half)", m > 0, m, "FQ-CoDel")
    )
    # "Experimental results (Figure 11a) show that bidirectional traffic suffers from high RTT
    # variability and erratic throughput." / "Under FQ-CoDel (Figure 11b), experimental
    # throughput is more stable" / CAKE: "throughput tightly clustered near the bottleneck
    # capacity". Per flow: each direction's total is its busy class's rate under every AQM.
    sd = {a: _mean_of_roles_bidir(t, a, "bin_sd") for a in AQMS}
    m = sd["pfifo"] - max(sd["fq_codel"], sd["cake"])
    out.append(
        direction(
            e, "PFIFO has the most erratic throughput (SD of 1 s bins, Mbit/s)", m > 0, m, "PFIFO"
        ).not_informative(
            "insensitive",
            "the flow-fair split pins each flow's 1 s rate under FQ-CoDel and CAKE, and in the "
            "shared FIFO every CUBIC back-off moves the split: any model with a busy class passes",
        )
    )
    for way in ("up", "down"):
        out.append(
            threshold(
                e,
                f"CAKE, both flows together, {way} (Mbit/s)",
                0.9 * CAPACITY_MBPS,
                CAPACITY_MBPS,
                t.pair("bidir", "cake", way=way).total,
                "CAKE",
            ).not_informative(
                "configuration",
                f"{BUSY_TOTAL}, less the other direction's ACKs (a few % of the class)",
            )
        )
    rate = max(
        t.flow("bidir", "cake", r, w).retransmit_pct
        for r in ("bbr", "cubic")
        for w in ("up", "down")
    )
    out.append(
        threshold(e, "retransmissions near zero (highest per-flow rate, %)", 0.0, 0.1, rate, "CAKE")
    )
    return out


def _mean_of_roles_bidir(t: Tables, aqm: str, metric: str) -> float:
    return float(
        np.mean(
            [
                getattr(t.flow("bidir", aqm, r, w), metric)
                for r in ("bbr", "cubic")
                for w in ("up", "down")
            ]
        )
    )


def targets(t: Tables) -> dict[str, list[Target]]:
    """Every number and claim of P0.5, by experiment group."""
    return {
        "E0-1": e01_targets(t),
        "E0-2": e02_targets(t),
        "E0-3, E0-4 (uplink)": _throughput_cwnd(t, "uplink") + _delay_and_retransmits(t, "uplink"),
        "E0-5, E0-6 (downlink)": _throughput_cwnd(t, "downlink")
        + _delay_and_retransmits(t, "downlink")
        + [direction_effect(t)],
        "E0-7 (bidirectional)": e07_targets(t),
    }


# -- the whole analysis ------------------------------------------------------------------------


def model_comparison(t: Tables, quick: bool) -> pd.DataFrame:
    """The fluid model (eqs. 1-24) beside the simulator at MCS 7, per direction and AQM: each
    flow's throughput and RTT median, BBRv3's share. The acceptance of issue 14: shares within
    15 % and RTT medians (mean of the two flows) within 25 % under FQ-CoDel and CAKE; under
    PFIFO the same flow ahead."""
    from airlab.model import bbr_wifi6 as model

    duration = 10.0 if quick else 30.0
    rows = []
    for pattern in model.PATTERNS:
        for aqm in AQMS:
            sim_b, sim_c = t.flow(pattern, aqm, "bbr"), t.flow(pattern, aqm, "cubic")
            sim_share = sim_b.thr / (sim_b.thr + sim_c.thr)
            sim_rtt = (sim_b.rtt + sim_c.rtt) / 2
            for reading in MODEL_READINGS:
                res = model.solve(model.Setting(aqm=aqm, pattern=pattern, duration_s=duration,
                                                min_rtt=reading))  # fmt: skip
                m = res.summary.set_index("cc")
                share = float(m.share["bbr3"])
                rtt = float(m.rtt_ms_p50.mean())
                if aqm == "pfifo":
                    ok = (share > 0.5) == (sim_share > 0.5)
                    rule = "same flow ahead"
                else:
                    ok = abs(share / sim_share - 1) <= 0.15 and abs(rtt / sim_rtt - 1) <= 0.25
                    rule = "share ±15 %, RTT ±25 %"
                rows.append(
                    {
                        "pattern": pattern,
                        "aqm": aqm,
                        "min_rtt": reading,
                        "model_bbr_mbps": float(m.throughput_mbps["bbr3"]),
                        "model_cubic_mbps": float(m.throughput_mbps["cubic"]),
                        "sim_bbr_mbps": float(sim_b.thr),
                        "sim_cubic_mbps": float(sim_c.thr),
                        "model_bbr_share": share,
                        "sim_bbr_share": float(sim_share),
                        "model_bbr_rtt": float(m.rtt_ms_p50["bbr3"]),
                        "model_cubic_rtt": float(m.rtt_ms_p50["cubic"]),
                        "sim_bbr_rtt": float(sim_b.rtt),
                        "sim_cubic_rtt": float(sim_c.rtt),
                        "model_rtt": rtt,
                        "sim_rtt": float(sim_rtt),
                        "model_bbr_drops_per_s": float(m.drops["bbr3"]) / res.config.duration_s,
                        "model_cubic_drops_per_s": float(m.drops["cubic"]) / res.config.duration_s,
                        "rule": rule,
                        "agrees": bool(ok),
                    }
                )
    return pd.DataFrame(rows)


def model_targets(versus: pd.DataFrame) -> list[Target]:
    """The numbers the paper's text says its model (Sec. 3) predicts or explains, against the
    model as the paper writes it (min_rtt the propagation delay); the 10 s filter's reading is
    in the note. The paper gives no model output of its own, so the numbers are its
    measurements that it credits to an equation. Uplink only: the model has no direction (the
    downlink rows are the same numbers)."""

    def row(aqm: str, col: str) -> tuple[float, float]:
        sel = versus[(versus.pattern == "uplink") & (versus.aqm == aqm)].set_index("min_rtt")
        return float(sel.at["propagation", col]), float(sel.at["filtered", col])

    def filtered(v: float) -> str:
        return f"with the 10 s min_rtt filter: {v:.2f}"

    out: list[Target] = []
    # "Under PFIFO (Figure 7a), CUBIC obtains a disproportionate share of the link, fluctuating
    # between 6-8 Mbps, while BBRv3 remains restricted to 2-4 Mbps. This strong imbalance is
    # predicted by the analytical queue model" (Sec. 5.3, eqs. 15, 16, 18).
    e = "E0-3 (Fig. 7), model"
    pfifo_rows = (("model_cubic_mbps", "CUBIC", 6.0, 8.0), ("model_bbr_mbps", "BBRv3", 2.0, 4.0))
    for col, name, lo, hi in pfifo_rows:
        ours, alt = row("pfifo", col)
        out.append(span(e, f"{name} throughput (Mbit/s)", lo, hi, ours, "PFIFO", filtered(alt)))
    # FQ-CoDel: "Both flows stabilize near 5 Mbps with reduced oscillatory behavior. This aligns
    # with the analytical expectation that isolating each flow into independent virtual queues
    # effectively equalizes the service allocation s_i^fq(t) (Eq. 20) for each sender." CAKE:
    # "both flows sustaining ≈ 5 Mbps with minimal variability ... CAKE delivers an uplink
    # environment where both loss-driven and model-driven CCAs converge toward the analytically
    # expected steady state." (Sec. 5.3)
    for aqm in ("fq_codel", "cake"):
        for col, name in (("model_bbr_mbps", "BBRv3"), ("model_cubic_mbps", "CUBIC")):
            ours, alt = row(aqm, col)
            out.append(
                point(
                    e, f"{name} throughput (Mbit/s)", 5.0, ours, AQM_LABEL[aqm], note=filtered(alt)
                ).not_informative(
                    "configuration",
                    f"eq. {20 if aqm == 'fq_codel' else 22} gives each of two backlogged flows "
                    "half of the shaped rate, and the model starts both at that share",
                )
            )
    # "Figure 8a shows that PFIFO produces the highest median RTT (50-55 ms) and the widest
    # spread, consistent with the queue accumulation predicted by Eq. 16." (Sec. 5.3)
    ours, alt = row("pfifo", "model_rtt")
    out.append(
        span(
            "E0-4 (Fig. 8), model", "RTT median (ms)", 50.0, 55.0, ours, "PFIFO", filtered(alt)
        ).not_informative(
            "configuration",
            "the model's FIFO holds at most Q_max = 50 packets, 60.6 ms at 10 Mbit/s, and drops "
            "only when full (eq. 19), so its CUBIC keeps the median at 42-62 ms, inside 40-66",
        )
    )
    # "Under CAKE, BBRv3 experiences significantly higher retransmissions than CUBIC (3001 vs.
    # 952). This arises from CAKE's adaptive drop probability m_i^cake(t) (Eq. 23), where
    # BBRv3's aggressive probing leads to more drops" (Sec. 5.3): the model's drops per flow.
    bbr, cubic = row("cake", "model_bbr_drops_per_s"), row("cake", "model_cubic_drops_per_s")
    ratio, ratio_alt = (b / c if c > 0 else math.nan for b, c in zip(bbr, cubic, strict=True))
    e = "E0-4 (Fig. 8), model"
    metric = "drops BBRv3 / CUBIC (eq. 23)"
    out.append(point(e, metric, round(3001 / 952, 2), ratio, "CAKE", note=filtered(ratio_alt)))
    for x in out:
        x.reading = (MIN_RTT_READING["propagation"],)
    return out


def share_within(targets: Sequence[Target], readings: Sequence[Reading] = ()) -> tuple[int, int]:
    """(within, all) over the informative point and range rows of the primary readings: a row
    that cannot fail on its own would only flatter the share, and the other readings' rows
    are reported, not judged."""
    primary = {r.name for r in readings if r.primary}
    rows = [
        t
        for t in targets
        if t.status in ("within", "outside") and t.informative and set(t.reading) <= primary
    ]
    return sum(t.status == "within" for t in rows), len(rows)


def sensitivity(flows: pd.DataFrame, pairs: pd.DataFrame) -> pd.DataFrame:
    """Per MCS, the numbers the PHY could move: uplink RTT medians per AQM (mean of the two
    flows), PFIFO jitter, CUBIC's PFIFO share, and what bidirectional CAKE carries (the
    weaker direction)."""
    rows = []
    flows, pairs = flows[flows.wire_ms == 0], pairs[pairs.wire_ms == 0]
    for mcs in sorted({*SENSITIVITY_MCS, MAIN_MCS}):
        f = flows[(flows.mcs == mcs) & (flows.bbr == "bbr3")]
        q = pairs[(pairs.mcs == mcs) & (pairs.bbr == "bbr3")]
        ul = f[f.pattern == "uplink"]
        row: dict[str, Any] = {"mcs": mcs}
        for aqm in AQMS:
            per_seed = ul[ul.aqm == aqm].groupby("seed").rtt.mean()
            row[f"rtt_{aqm}"], row[f"rtt_{aqm}_ci"] = mean_ci(per_seed.tolist())
        per_seed = ul[ul.aqm == "pfifo"].groupby("seed").jitter.mean()
        row["jitter_pfifo"], row["jitter_pfifo_ci"] = mean_ci(per_seed.tolist())
        share = 1 - q[(q.pattern == "uplink") & (q.aqm == "pfifo")].bbr_share
        row["cubic_share_pfifo"], row["cubic_share_pfifo_ci"] = mean_ci(share.tolist())
        bidir = q[(q.pattern == "bidir") & (q.aqm == "cake")].groupby("seed").total.min()
        row["bidir_cake_mbps"], row["bidir_cake_mbps_ci"] = mean_ci(bidir.tolist())
        rows.append(row)
    return pd.DataFrame(rows)


#: The paper's uplink numbers the base RTT moves (P0.5 E0-3, E0-4), as (low, high) ranges.
PAPER_UPLINK = {
    "rtt_fq_codel": (25.0, 25.0),
    "rtt_cake": (18.0, 18.0),
    "cwnd_cubic_fq_codel": (15.0, 20.0),
    "cwnd_bbr_fq_codel": (20.0, 30.0),
    "cwnd_cubic_cake": (12.0, 18.0),
    "retx_ratio_cake": (3.15, 3.15),
}


def base_rtt_study(flows: pd.DataFrame, pairs: pd.DataFrame) -> pd.DataFrame:
    """Uplink at HE-MCS 7 with the receiver/sender laptop on Wi-Fi (wire 0) and behind wires of
    ``WIRE_MS``: the base RTT (the smallest RTT sample), the RTT medians per AQM, the cwnd
    medians and CAKE's retransmission ratio BBRv3 / CUBIC."""
    f = flows[(flows.mcs == MAIN_MCS) & (flows.pattern == "uplink") & (flows.bbr == "bbr3")]
    q = pairs[(pairs.mcs == MAIN_MCS) & (pairs.pattern == "uplink") & (pairs.bbr == "bbr3")]
    rows = []
    for wire in (0, *WIRE_MS):
        fw, qw = f[f.wire_ms == wire], q[q.wire_ms == wire]
        # The base RTT: the smallest RTT sample of any flow in any run of the setting.
        row: dict[str, Any] = {"wire_ms": wire, "base_rtt_ms": float(fw.rtt_min.min())}
        for aqm in AQMS:
            per_seed = fw[fw.aqm == aqm].groupby("seed").rtt.mean()
            row[f"rtt_{aqm}"], row[f"rtt_{aqm}_ci"] = mean_ci(per_seed.tolist())
            for role in ("bbr", "cubic"):
                sel = fw[(fw.aqm == aqm) & (fw.role == role)]
                row[f"cwnd_{role}_{aqm}"], row[f"cwnd_{role}_{aqm}_ci"] = mean_ci(
                    sel.cwnd_kb.tolist()
                )
        cake = fw[fw.aqm == "cake"]
        rx = {r: cake[cake.role == r].retransmits.mean() for r in ("bbr", "cubic")}
        row["retx_ratio_cake"] = rx["bbr"] / max(rx["cubic"], 1.0)
        share = 1 - qw[qw.aqm == "pfifo"].bbr_share
        row["cubic_share_pfifo"], row["cubic_share_pfifo_ci"] = mean_ci(share.tolist())
        rows.append(row)
    return pd.DataFrame(rows)


def analyze(records: Mapping[str, dict[str, Any]], out_dir: Path, quick: bool) -> dict[str, Any]:
    """Tables, figures and targets from finished runs; returns what the report shows."""
    from airlab.reproduce import figures_wifi6

    p = plan(quick)
    flows = pd.DataFrame([row for r in records.values() for row in flow_metrics(r, p.warmup_s)])
    pairs = pd.DataFrame([row for r in records.values() for row in pair_metrics(r, p.warmup_s)])
    write_runs_table(out_dir, flows)
    keys = ["pattern", "aqm", "bbr"]
    main_flows = flows[(flows.mcs == MAIN_MCS) & (flows.wire_ms == 0)]
    main_pairs = pairs[(pairs.mcs == MAIN_MCS) & (pairs.wire_ms == 0)]
    t = Tables(
        seed_means(main_flows, [*keys, "way", "role"], FLOW_METRICS),
        seed_means(main_pairs, [*keys, "way"], PAIR_METRICS),
    )
    versus = model_comparison(t, quick)
    groups = targets(t)
    groups["Cross-layer model (Sec. 3)"] = model_targets(versus)
    for x in (x for g in groups.values() for x in g):
        x.reading = (*x.reading, *MAIN_READINGS)
    all_targets = [x for g in groups.values() for x in g]
    write_targets(out_dir, "bbr-wifi6", quick, all_targets, READINGS_DECLARED)
    main = {
        k: r
        for k, r in records.items()
        if r["tags"]["mcs"] == MAIN_MCS and r["tags"]["wire_ms"] == 0
    }
    figs = figures_wifi6.all_figures(main, t.flows, out_dir / "figures", p.warmup_s)
    sens = sensitivity(flows, pairs)
    figs["sensitivity"] = figures_wifi6.sensitivity(sens, out_dir / "figures" / "phy.png")
    base = base_rtt_study(flows, pairs)
    figs["base_rtt"] = figures_wifi6.base_rtt(
        base, PAPER_UPLINK, out_dir / "figures" / "base_rtt.png"
    )
    _io.write_with(out_dir / "model_vs_sim.csv", lambda p: versus.to_csv(p, index=False))
    figs["model"] = figures_wifi6.model_vs_sim(versus, out_dir / "figures" / "model_vs_sim.png")
    fig_of = {
        "E0-1": ("fig5",),
        "E0-2": ("fig6",),
        "E0-3, E0-4 (uplink)": ("fig7", "fig8"),
        "E0-5, E0-6 (downlink)": ("fig9", "fig10"),
        "E0-7 (bidirectional)": ("fig11",),
        # Its figure is the model section's.
        "Cross-layer model (Sec. 3)": (),
    }
    sections = [
        {
            "title": title,
            "targets": tg,
            "figures": {k: v for k, v in figs.items() if k.split("_")[0] in fig_of[title]},
        }
        for title, tg in groups.items()
    ]
    return {
        "sections": sections,
        "readings": READINGS_DECLARED,
        "flows": t.flows,
        "pairs": t.pairs,
        "sensitivity": sens,
        "sensitivity_figure": figs["sensitivity"],
        "base_rtt": base,
        "base_rtt_figure": figs["base_rtt"],
        "model": versus,
        "model_figure": figs["model"],
        "score": share_within(all_targets, READINGS_DECLARED),
    }


INTRO = """
<p>What runs: {runs} runs of <code>scenarios/bbr-wifi6/</code>, {seeds} seeds, {duration} s
each; medians, box plots and means use the samples after the {warmup} s warm-up. BBRv3 against
CUBIC uplink, downlink and both ways at once, under PFIFO-50, FQ-CoDel and CAKE (Linux
defaults) below a 10 Mbit/s htb class per direction at the AP; BBRv1 and BBRv2 against CUBIC
under PFIFO (E0-1). Means over seeds with 95 % confidence intervals.</p>
<p>Metrics as the paper's tools give them: throughput is the receiver's goodput in 1 s bins
(iperf3's interval); cwnd in KB is cwnd &times; 1448 B / 1024; RTT is the sender's srtt sampled
every 100 ms (<code>ss -tin</code>), its median over the run; jitter the mean absolute
difference of consecutive srtt samples; retransmissions the segments sent again per flow per
run, and their share of the data segments sent.</p>
<p>The paper leaves the PHY, the base RTT and the run length open; this run uses the proposed
defaults of reproduction-targets P0.2 (20 MHz, HE-MCS 7, single-user EDCA, no added delay, so
a base RTT of about 1 ms over two Wi-Fi hops). <code>docs/reproduce.md</code> traces each miss
to its mechanism.</p>
"""


SENSITIVITY = """
<p>The paper does not give its PHY, and its captions call the shaped path a "10 Mbps Wi-Fi
bottleneck". Every flow crosses the air twice (laptop to AP, AP to laptop) with its ACKs, so at
slower MCS the air nears saturation and the stations' contention and mac80211 queues add delay
outside the AP's AQM. The same BBRv3-vs-CUBIC runs at HE-MCS 2-5 (uplink under each AQM,
bidirectional CAKE) show what the PHY moves; targets are judged at MCS 7 only.</p>
"""


MODEL = """
<p>The paper's cross-layer model (<code>airlab model bbr-wifi6</code>; docs/models/fluid.md):
the MU-OFDMA cycle (eqs. 1-8) gives the cell's rate, about 64 Mbit/s at HE-MCS 7, so the
10 Mbit/s shaper binds; the fluid BBRv3 (eqs. 9-14) and an expected-value CUBIC run through
the shaped queue under the AQM fluid models (eqs. 15-24), with the P0.4 defaults, the base RTT
of the simulated path (1 ms), and the window bounding BBR's rate (eq. 12 as printed lets a
4-packet window at a 1 ms base RTT send 48 Mbit/s). Two readings of BBR's min_rtt: the propagation
delay, as the paper writes it, and the 10 s filter real BBR keeps. Uplink and downlink are the
same model (one shaped direction each). The rule: BBRv3's share within 15 % and the RTT median
(mean of the two flows) within 25 % under FQ-CoDel and CAKE; under PFIFO the same flow
ahead.</p>
"""


BASE_RTT = """
<p>The paper's FQ-CoDel and CAKE RTTs (25 and 18 ms) and windows (CUBIC 15-20 and 12-18 KB)
imply a base RTT near 10 ms; the simulated two-hop path has 1 ms. To test that reading, the
uplink runs again with the receiver/sender laptop behind the AP's wired port
(<code>scenarios/bbr-wifi6/wired-rs-uplink-*.toml</code>), the wire's one-way delay setting the
base RTT (the laptops still cross one Wi-Fi hop; each direction keeps its 10 Mbit/s class).
The first row is the main runs (both laptops' traffic over two Wi-Fi hops).</p>
"""


def report(analysis: Mapping[str, Any], out_dir: Path, quick: bool) -> str:
    """The HTML report: what runs, then per experiment group the targets, figures and tables."""
    from airlab.reproduce import report as r

    p = plan(quick)
    intro = r.plan_note(quick, analysis) + INTRO.format(
        runs=len({j.id for j in jobs(quick)}),
        seeds=len(p.seeds),
        duration=p.duration_s,
        warmup=p.warmup_s,
    )
    flow_cols = [
        ("pattern", "pattern"),
        ("aqm", "AQM"),
        ("bbr", "BBR"),
        ("way", "way"),
        ("role", "flow"),
        ("thr", "Mbit/s"),
        ("cwnd_kb", "cwnd KB"),
        ("rtt", "RTT p50 (ms)"),
        ("jitter", "jitter (ms)"),
        ("retransmits", "retransmits"),
        ("retransmit_pct", "retrans. %"),
        ("pacing", "pacing Mbit/s"),
        ("delivery", "delivery Mbit/s"),
    ]
    sections = [
        (
            s["title"],
            r.targets_table(s["targets"], show_variant=True) + r.images(s["figures"], out_dir),
        )
        for s in analysis["sections"]
    ]
    sections.append(("Every setting, per flow", r.frame_table(analysis["flows"], flow_cols)))
    w, n = analysis["score"]
    intro += f"<p><b>{w} of {n} informative point and range rows within tolerance "
    intro += f"({100 * w / n:.0f} %), those of the primary readings.</b></p>"
    sens_cols = [
        ("mcs", "HE-MCS"),
        *((f"rtt_{a}", f"UL RTT {AQM_LABEL[a]} (ms)") for a in AQMS),
        ("jitter_pfifo", "UL PFIFO jitter (ms)"),
        ("cubic_share_pfifo", "UL PFIFO CUBIC share"),
        ("bidir_cake_mbps", "bidir CAKE, weaker way (Mbit/s)"),
    ]
    model_cols = [("pattern", "pattern"), ("aqm", "AQM"), ("min_rtt", "model min_rtt"),
                  ("model_bbr_share", "BBRv3 share, model"), ("sim_bbr_share", "simulator"),
                  ("model_rtt", "RTT p50 (ms), model"), ("sim_rtt", "simulator"),
                  ("model_bbr_drops_per_s", "BBRv3 drops/s, model"),
                  ("model_cubic_drops_per_s", "CUBIC drops/s, model"), ("rule", "rule"),
                  ("agrees", "agrees")]  # fmt: skip
    sections.append(
        (
            "The cross-layer model against the simulator",
            MODEL
            + r.frame_table(analysis["model"], model_cols)
            + r.images({"model": analysis["model_figure"]}, out_dir),
        )
    )
    base_cols = [("base_rtt_ms", "base RTT (ms)"),
                 *((f"rtt_{a}", f"RTT {AQM_LABEL[a]} (ms)") for a in AQMS),
                 *((f"cwnd_{r}_{a}", f"cwnd {n} {AQM_LABEL[a]} (KB)") for a in AQMS[1:]
                   for r, n in (("bbr", "BBRv3"), ("cubic", "CUBIC"))),
                 ("retx_ratio_cake", "CAKE retrans. BBRv3/CUBIC"),
                 ("cubic_share_pfifo", "PFIFO CUBIC share")]  # fmt: skip
    sections.append(
        (
            "Sensitivity to the base RTT (the controlled variant behind the misses)",
            BASE_RTT
            + r.frame_table(analysis["base_rtt"], base_cols)
            + r.images({"base_rtt": analysis["base_rtt_figure"]}, out_dir),
        )
    )
    sections.append(
        (
            "Sensitivity to the PHY (X.1: is the Wi-Fi the bottleneck?)",
            SENSITIVITY
            + r.frame_table(analysis["sensitivity"], sens_cols)
            + r.images({"phy": analysis["sensitivity_figure"]}, out_dir),
        )
    )
    return r.page(TITLE, intro, sections)
