"""Paper 000's rows: each experiment's (E0-1 to E0-7) from the seed-averaged tables,
the model's rows (Sec. 3) from the model-against-simulator comparison, and the notes of the rows
that cannot fail on their own (what the busy 10 Mbit/s class and the flow-fair qdiscs fix
whatever the CCs do)."""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from airlab.reproduce.metrics_wifi6 import (
    AQM_LABEL,
    AQMS,
    BBRS,
    CAPACITY_MBPS,
    E01_READING,
    MIN_RTT_READING,
    MSS,
)
from airlab.reproduce.paper_targets import load
from airlab.reproduce.runner import Target, row_where

#: The paper's numbers and claims (``targets/bbr-wifi6.toml``; its thresholds are the ranges of
#: P0.5's [DEF] acceptance rules, held exactly, where ranges read off the plots are widened).
T = load("bbr-wifi6")


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
            T.span("E0-1 (Fig. 5a)", "BBRv1 share of the two flows", v1.bbr_share, v),
            T.span("E0-1 (Fig. 5a)", "CUBIC against BBRv1 (Mbit/s)", c1.thr, v),
            T.direction(
                "E0-1 (Fig. 5a)",
                "BBRv1 frequently above 7.5 Mbit/s (share of 1 s bins over 10 %)",
                b1.bins_over_7_5 > 0.1,
                b1.bins_over_7_5 - 0.1,
                v,
            ),
            T.span("E0-1 (Fig. 5b)", "BBRv2 share of the two flows", v2.bbr_share, v),
            T.direction(
                "E0-1 (Fig. 5b)",
                "BBRv2 sometimes below 2 Mbit/s (lowest 1 s bin under 2)",
                b2.bin_min < 2.0,
                2.0 - b2.bin_min,
                v,
            ),
            T.span(
                "E0-1 (Fig. 5c)", "BBRv3/CUBIC 1 s throughput correlation", v3.correlation, v
            ).not_informative("insensitive", BUSY_SUM),
            T.span("E0-1 (Fig. 5c)", "BBRv3 peak-to-trough swing (Mbit/s)", v3.swing_bbr, v),
            T.span(
                "E0-1 (Fig. 5c)", "CUBIC peak-to-trough swing (Mbit/s)", v3.swing_cubic, v
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
        T.span(e, "BBRv3 pacing rate, median (Mbit/s)", pf.pacing, "PFIFO"),
        T.span(e, "BBRv3 delivery rate, median (Mbit/s)", pf.delivery, "PFIFO"),
        T.span(e, "delivery / pacing, median", pf.delivery_over_pacing, "PFIFO"),
        T.span(e, "BBRv3 delivery-rate peaks, p95 (Mbit/s)", fq.delivery_p95, "FQ-CoDel"),
        T.point(e, "BBRv3 pacing rate, median (Mbit/s)", ck.pacing, "CAKE"),
        T.point(e, "BBRv3 delivery rate, median (Mbit/s)", ck.delivery, "CAKE").not_informative(
            "follows",
            "a delivery-rate sample is the flow's goodput over a round, so its median is BBRv3's "
            "CAKE share (the E0-3 CAKE BBRv3 throughput row)",
        ),
        T.point(e, "delivery / pacing, median", ck.delivery_over_pacing, "CAKE"),
    ]
    r = [x.delivery_over_pacing for x in (pf, fq, ck)]
    m = min(r[1] - r[0], r[2] - r[1])
    out.append(T.direction(e, "delivery/pacing: PFIFO < FQ-CoDel < CAKE", m > 0, m, "uplink"))
    return out


def _throughput_cwnd(t: Tables, pattern: str) -> list[Target]:
    """E0-3 / E0-5: throughput and cwnd per AQM."""
    if pattern == "uplink":
        e = "E0-3 (Fig. 7)"
        out = [
            T.span(e, "CUBIC throughput (Mbit/s)", t.flow(pattern, "pfifo", "cubic").thr, "PFIFO"),
            T.span(e, "BBRv3 throughput (Mbit/s)", t.flow(pattern, "pfifo", "bbr").thr, "PFIFO"),
            T.span(
                e, "CUBIC cwnd, median (KB)", t.flow(pattern, "pfifo", "cubic").cwnd_kb, "PFIFO"
            ),
            T.span(e, "BBRv3 cwnd, median (KB)", t.flow(pattern, "pfifo", "bbr").cwnd_kb, "PFIFO"),
            T.span(
                e,
                "CUBIC cwnd, median (KB)",
                t.flow(pattern, "fq_codel", "cubic").cwnd_kb,
                "FQ-CoDel",
            ),
            T.span(
                e, "BBRv3 cwnd, median (KB)", t.flow(pattern, "fq_codel", "bbr").cwnd_kb, "FQ-CoDel"
            ),
            T.point(
                e,
                "BBRv3 cwnd when probing, p95 (KB)",
                t.flow(pattern, "cake", "bbr").cwnd_kb_p95,
                "CAKE",
            ),
            T.span(e, "CUBIC cwnd, median (KB)", t.flow(pattern, "cake", "cubic").cwnd_kb, "CAKE"),
        ]
        for aqm in ("fq_codel", "cake"):
            for role, name in (("bbr", "BBRv3"), ("cubic", "CUBIC")):
                out.append(
                    T.point(
                        e,
                        f"{name} throughput (Mbit/s)",
                        t.flow(pattern, aqm, role).thr,
                        AQM_LABEL[aqm],
                    ).not_informative("configuration", fair_split(aqm))
                )
        pf = t.pair(pattern, "pfifo")
        m = 0.5 - pf.bbr_share
        out.append(
            T.direction(
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
            row = T.direction(
                e, "BBRv3 above CUBIC (Mbit/s)", b.thr > c.thr, b.thr - c.thr, AQM_LABEL[aqm]
            )
            if aqm == "fq_codel":
                # The paper's "consistently outperforms" needs CUBIC to leave its flow queue
                # empty; on this path it never does, so the sign is the seeds' noise.
                row.not_informative("configuration", fair_split(aqm, ", so the sign is noise"))
            out.append(row)
        m = t.pair(pattern, "fq_codel").total - t.pair(pattern, "pfifo").total
        out.append(
            T.direction(
                e, "FQ-CoDel carries more than PFIFO (Mbit/s, both flows)", m > 0, m, "FQ-CoDel"
            ).not_informative(
                "configuration",
                f"both totals are the busy class's {CLASS_GOODPUT_MBPS:.2f} Mbit/s, so the sign "
                "of their difference is noise",
            )
        )
        for role, name in (("bbr", "BBRv3"), ("cubic", "CUBIC")):
            out.append(
                T.point(
                    e, f"{name} throughput (Mbit/s)", t.flow(pattern, "cake", role).thr, "CAKE"
                ).not_informative("configuration", fair_split("cake"))
            )
        out.append(
            T.point(
                e, "both flows together (Mbit/s)", t.pair(pattern, "cake").total, "CAKE"
            ).not_informative("configuration", BUSY_TOTAL)
        )
    ck = t.pair(pattern, "cake")
    m = 0.05 - abs(ck.bbr_share - 0.5)
    out.append(
        T.direction(
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
            T.span(e, "RTT median (ms)", rtt["pfifo"], "PFIFO").not_informative(
                "configuration", PFIFO_RTT
            ),
            T.point(e, "RTT median (ms)", rtt["fq_codel"], "FQ-CoDel"),
            T.point(e, "RTT median (ms)", rtt["cake"], "CAKE"),
            T.point(e, "jitter (ms)", jit["pfifo"], "PFIFO"),
            T.point(
                e,
                "retransmissions BBRv3 / CUBIC",
                ck_b.retransmits / max(ck_c.retransmits, 1),
                "CAKE",
            ),
        ]
        m = max(jit["fq_codel"], jit["cake"]) / jit["pfifo"]
        out.append(
            T.direction(
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
            T.direction(
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
            T.point(e, "RTT median (ms)", rtt["pfifo"], "PFIFO"),
            T.point(e, "RTT median FQ-CoDel / PFIFO", rtt["fq_codel"] / rtt["pfifo"], "FQ-CoDel"),
            T.span(e, "RTT median (ms)", rtt["cake"], "CAKE"),
        ]
        m = min(jit["pfifo"] - jit["fq_codel"], jit["fq_codel"] - jit["cake"])
        out.append(T.direction(e, "jitter: PFIFO > FQ-CoDel > CAKE (ms)", m > 0, m, "downlink"))
        wins = sum(
            t.flow(pattern, a, "cubic").retransmits < t.flow(pattern, a, "bbr").retransmits
            for a in AQMS
        )
        out.append(
            T.direction(
                e,
                "CUBIC retransmits less than BBRv3 (AQMs where it does, of 3, minus 1.5)",
                wins >= 2,
                wins - 1.5,
                "downlink",
            )
        )
    m = min(rtt["pfifo"] - rtt["fq_codel"], rtt["fq_codel"] - rtt["cake"])
    out.append(T.direction(e, "RTT: PFIFO > FQ-CoDel > CAKE (ms)", m > 0, m, pattern))
    m = ck_b.retransmits - ck_c.retransmits
    out.append(T.direction(e, "BBRv3 retransmits more than CUBIC (segments)", m > 0, m, "CAKE"))
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
    return T.direction(
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
    out = [T.direction(e, "PFIFO has the most variable RTT (IQR, ms)", m > 0, m, "PFIFO")]
    m = 0.5 - rtt["fq_codel"] / rtt["pfifo"]
    out.append(
        T.direction(
            e, "FQ-CoDel cuts the RTT well below PFIFO's (under half)", m > 0, m, "FQ-CoDel"
        )
    )
    # Per flow (the paper's words are in targets/bbr-wifi6.toml): each direction's total is its
    # busy class's rate under every AQM.
    sd = {a: _mean_of_roles_bidir(t, a, "bin_sd") for a in AQMS}
    m = sd["pfifo"] - max(sd["fq_codel"], sd["cake"])
    out.append(
        T.direction(
            e, "PFIFO has the most erratic throughput (SD of 1 s bins, Mbit/s)", m > 0, m, "PFIFO"
        ).not_informative(
            "insensitive",
            "the flow-fair split pins each flow's 1 s rate under FQ-CoDel and CAKE, and in the "
            "shared FIFO every CUBIC back-off moves the split: any model with a busy class passes",
        )
    )
    for way in ("up", "down"):
        out.append(
            T.span(
                e,
                f"CAKE, both flows together, {way} (Mbit/s)",
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
    out.append(T.span(e, "retransmissions near zero (highest per-flow rate, %)", rate, "CAKE"))
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


def model_targets(versus: pd.DataFrame) -> list[Target]:
    """The numbers the paper's text says its model (Sec. 3) predicts or explains, against the
    model as the paper writes it (min_rtt the propagation delay); the 10 s filter's reading is
    in the note. The paper gives no model output of its own, so the numbers are its
    measurements that it credits to an equation (targets/bbr-wifi6.toml quotes the text).
    Uplink only: the model has no direction (the downlink rows are the same numbers)."""

    def row(aqm: str, col: str) -> tuple[float, float]:
        sel = versus[(versus.pattern == "uplink") & (versus.aqm == aqm)].set_index("min_rtt")
        return float(sel.at["propagation", col]), float(sel.at["filtered", col])

    def filtered(v: float) -> str:
        return f"with the 10 s min_rtt filter: {v:.2f}"

    out: list[Target] = []
    # PFIFO: the imbalance the analytical queue model predicts (eqs. 15, 16, 18).
    e = "E0-3 (Fig. 7), model"
    for col, name in (("model_cubic_mbps", "CUBIC"), ("model_bbr_mbps", "BBRv3")):
        ours, alt = row("pfifo", col)
        out.append(T.span(e, f"{name} throughput (Mbit/s)", ours, "PFIFO", filtered(alt)))
    # FQ-CoDel and CAKE: each flow's equal service allocation (eqs. 20, 22).
    for aqm in ("fq_codel", "cake"):
        for col, name in (("model_bbr_mbps", "BBRv3"), ("model_cubic_mbps", "CUBIC")):
            ours, alt = row(aqm, col)
            out.append(
                T.point(
                    e, f"{name} throughput (Mbit/s)", ours, AQM_LABEL[aqm], note=filtered(alt)
                ).not_informative(
                    "configuration",
                    f"eq. {20 if aqm == 'fq_codel' else 22} gives each of two backlogged flows "
                    "half of the shaped rate, and the model starts both at that share",
                )
            )
    # PFIFO's median RTT: the queue accumulation of eq. 16.
    ours, alt = row("pfifo", "model_rtt")
    out.append(
        T.span(
            "E0-4 (Fig. 8), model", "RTT median (ms)", ours, "PFIFO", filtered(alt)
        ).not_informative(
            "configuration",
            "the model's FIFO holds at most Q_max = 50 packets, 60.6 ms at 10 Mbit/s, and drops "
            "only when full (eq. 19), so its CUBIC keeps the median at 42-62 ms, inside 40-66",
        )
    )
    # CAKE's retransmissions BBRv3 / CUBIC from its drop probability (eq. 23): the model's drops
    # per flow.
    bbr, cubic = row("cake", "model_bbr_drops_per_s"), row("cake", "model_cubic_drops_per_s")
    ratio, ratio_alt = (b / c if c > 0 else math.nan for b, c in zip(bbr, cubic, strict=True))
    e = "E0-4 (Fig. 8), model"
    metric = "drops BBRv3 / CUBIC (eq. 23)"
    out.append(T.point(e, metric, ratio, "CAKE", note=filtered(ratio_alt)))
    for x in out:
        x.reading = (MIN_RTT_READING["propagation"],)
    return out
