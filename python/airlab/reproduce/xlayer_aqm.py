"""Paper 001: the cross-layer AQM for mice flows in the smart home and eHealth (Figs. 4-14,
Tables 1-2).

Mice sources upload 1 MB every 1.5 s (open loop, first start U(0, 10 s)) beside bulk flows
(``scenarios/xlayer-aqm/``); the cross-layer AQM (``xlayer``: mice and bulk classes, each an
FQ-CoDel, a weighted round robin of K mice packets per bulk one) against FQ-CoDel alone. Smart
home: the AQM on the router's 50 Mbit/s wired uplink, above a 100-packet ring (the primary
reading) or as the child of a 50 Mbit/s tbf on a gigabit port. eHealth: on the 802.11ax AP's
downlink, where the mice's ACKs queue behind two video calls, over two device layers: a
500-packet device FIFO whose frames live at most 500 ms (the NDQ the paper describes, as its
ns-3 WifiMacQueue builds it, P1.1 B; primary) and Linux's mac80211 (the paper's OpenWrt AP as
Linux builds it), which never pushes back. ``READINGS_DECLARED`` says why.

The paper's method: steady-state runs end after eleven batches of 5,000 delivered packets
(here the first mice source's), the first discarded, and report batch means; mice goodput only
over active transfer periods. Beside the batch means, three independent seeds (replicates);
targets use the means over seeds with their 95 % CIs. The initial transient (E1-1/E1-2) uses
ten replicates of the first five transfers of each source.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from airlab.jobs import SeriesSpec
from airlab.reproduce.metrics_xlayer import (
    AQMS,
    METRICS,
    SETTINGS,
    TABLE_KS,
    TARGETS,
    family,
    k_table,
    paper_table,
    run_metrics,
    table_metric,
)
from airlab.reproduce.runner import (
    Job,
    Reading,
    Target,
    seed_means,
    write_runs_table,
    write_targets,
)
from airlab.stats import mean_ci

TITLE = "Cross-layer AQM for mice flows: smart home and eHealth (paper 001)"
SERIES_LINKS: tuple[str, ...] = ()
SERIES: SeriesSpec | None = None
#: The K run: those of Tables 1/2.
KS = TABLE_KS
DEVICE_KEY = "wifi.ward.node.ap.device"
#: Settings whose 50 Mbit/s is a tbf on a gigabit port, the AQM its child (the uplink's other
#: reading): the rate the shaper takes the link's place with.
SHAPERS = {"smart home, shaper": "50Mbit"}
SHAPED_PORT = ("link.uplink.rate", "1Gbit")
#: Settings where the two AQMs are one run: the scenario's default device layer, mac80211,
#: takes every packet at once (as Linux's, which marks the interface IFF_NO_QUEUE), so the
#: qdisc above never holds one, CoDel never sees a sojourn and the WRR never chooses; both
#: AQMs forward each packet as it comes, and the runs are bit-identical (test_reproduce's
#: end-to-end test checks it; targets.json has gains of exactly 0 there). A claim that the two
#: AQMs give the same bulk goodput holds there by construction and is marked. Claims that the
#: cross-layer AQM does better fail there by construction too, but stay informative: the paper
#: measured them on an OpenWrt (mac80211) AP, so a model in which the AQM acts there hits them
#: and ours does not; they tell the two apart.
SAME_RUNS = {
    "eHealth, mac80211": "mac80211 never refuses a packet, so the AP's qdisc holds none and the "
    "cross-layer AQM and FQ-CoDel give bit-identical runs"
}
#: The number of sources of Tables 1/2 (not stated): where FQ-CoDel's mice goodput is the
#: paper's (reproduction-targets P1.2 calibrates to it): 6 in the smart home (10 overload its
#: uplink: 10 x 5.33 Mbit/s offered on 50), 10 in eHealth.
TABLE_SOURCES = {"smart home": 6, "eHealth, device FIFO": 10}
#: Why the tables' goodput rows cannot fail on their own. Their operating point is free (the
#: paper states neither the number of sources nor, for eHealth, the channel width) and was
#: chosen where FQ-CoDel's mice goodput meets the table: 6 sources in the smart home (12.6
#: Mbit/s against 11.4-11.9), and in eHealth 10 monitors with the PHY width (40 MHz, two
#: streams: 1 MB in 1.41 s, 5.7 Mbit/s against 5.6). The paper's spread over K (4 % in Table
#: 1, 11 % in Table 2) lies inside the ±20 % tolerance, so every K row asks for that chosen
#: level again, moved only by the cross-layer AQM's gain at the point, a number the paper does
#: not give (it is E1-5's and E1-7's rows' business). The delay rows and the best K stay
#: informative: nothing was chosen to meet them.
CALIBRATED = {
    "smart home": "the unstated source count was chosen where FQ-CoDel's mice goodput meets "
    "Table 1, whose spread over K lies inside ±20 %",
    "eHealth, device FIFO": "the 40 MHz two-stream PHY and the unstated 10 monitors were chosen "
    "where FQ-CoDel's mice goodput meets Table 2, whose spread over K lies inside ±20 %",
}
#: The classifier's mean and the round robin: the corrected readings and the printed ones.
READINGS = (("recent", "intended"), ("active", "intended"), ("recent", "literal"))

#: What the paper leaves open, each reading of it, and which one is judged. The primaries were
#: declared on 2026-11-27 from the text alone, after the readings of 2026-11-26 had run (found
#: with git log -S on this file); the shaper entered the plan on 2026-11-27. The testbed's
#: figures (4-8) are reported under every reading of their platform's layer; ns-3's (11-14)
#: under the ns-3 layer, which the simulator fixes (its WifiMacQueue, its links' DataRate with a
#: 100-packet device queue). The classifier's mean, the round robin and the per-transfer goodput
#: run at the tables' operating points only (a sensitivity table beside Tables 1/2): the rows are
#: computed under their primaries and, like paper 003's lost equations, are not tagged with them.
READINGS_DECLARED = (
    Reading(
        "the eHealth AP's device layer below the qdisc (the NDQ, L75, L85)",
        "device FIFO",
        "a drop-tail FIFO that takes a packet only when it has room, 500 packets whose frames "
        "live at most 500 ms (ns-3's WifiMacQueue, the paper's simulator, L220)",
        True,
        "the text puts the AQM above a queue the packets enter 'provided it can accommodate "
        "packets' (L75), 'a simple droptail queue' that 'will usually be filled with packets "
        "from the bulk flows' (L85), on the testbed's router as in ns-3; its size is not "
        "stated, so ns-3's",
        "2026-11-26",
    ),
    Reading(
        "the eHealth AP's device layer below the qdisc (the NDQ, L75, L85)",
        "mac80211",
        "Linux's mac80211 as the testbed's OpenWrt 21.02.2 builds it (L176): per-station queues "
        "that take every packet at once, so the qdisc above holds none",
        False,
        "the testbed's software as Linux builds it, not the filling NDQ the text describes; both "
        "AQMs give bit-identical runs there, so the testbed's figures (4-7) only; Table 2's K "
        "would change nothing",
        "2026-11-26",
    ),
    Reading(
        "how the smart home's 50 Mbit/s uplink was made (L155, L182)",
        "50 Mbit/s link",
        "the router's wired port runs at 50 Mbit/s, the AQM above its 100-packet driver ring",
        True,
        "'the ethernet capacity between the access point and the central server is reduced to "
        "50 Mbps' (L182), the bottleneck 'the uplink buffer at the IEEE 802.11ax router' (L157), "
        "and the AQM designed for an NDQ below it that bulk fills (L75, L85); ns-3's figures "
        "(13, 14) have a link at its DataRate above its device queue",
        "2026-11-26",
    ),
    Reading(
        "how the smart home's 50 Mbit/s uplink was made (L155, L182)",
        "tbf on a gigabit port",
        "a 50 Mbit/s token bucket (tbf) on the router's gigabit port, the AQM its child: the "
        "whole backlog in the AQM, no NDQ below it filling",
        False,
        "how a Linux testbed makes 50 Mbit/s on a gigabit port; it drops the NDQ the text's "
        "design rests on (L85); the testbed's Fig. 8 and Table 1",
        "2026-11-27",
    ),
    Reading(
        "the classifier's mean flow size B̄ (eq. 1, L53)",
        "mean recent",
        "B̄ over the active flows and those that ended within the last 10 s, each at its final size",
        True,
        "with the flow itself in a mean over the 'currently active' flows (L53), b_f/B̄ cannot "
        "exceed their number, so with z = 4 (L59) no flow is bulk while fewer than four are "
        "active, against L63 (misclassifications are corrected) and Fig. 4's classification "
        "settled after one round (L189); the size data are a flow table kept on the router "
        "(L63, L65), which holds a flow for a while after its last packet",
        "2026-11-26",
    ),
    Reading(
        "the classifier's mean flow size B̄ (eq. 1, L53)",
        "mean active",
        "B̄ over the flows active now only (a packet within the last 2 s)",
        False,
        "L53's 'currently active' word for word; run at the tables' operating points (K = 3): "
        "a sensitivity table, no rows",
        "2026-11-26",
    ),
    Reading(
        "the round robin (eqs. 2, 3 against Algorithm 1 as printed)",
        "WRR intended",
        "each packet handed out spends its class's allowance of eqs. 2/3, mice first in every "
        "round, a new round when both allowances are spent",
        True,
        "eqs. 2/3 bound each class's packets 'during a loop pass of the round robin' (L122) and "
        "give both classes a guaranteed share, a WRR that avoids starving the bulk traffic; "
        "Algorithm 1 as printed never decrements rem1 or rem2 (L93-L106), so its turn freezes "
        "and one class is served alone",
        "2026-11-26",
    ),
    Reading(
        "the round robin (eqs. 2, 3 against Algorithm 1 as printed)",
        "WRR literal",
        "Algorithm 1 line by line: allowances never spent, the turn alternating only at refills",
        False,
        "the printed pseudocode; run at the tables' operating points (K = 3): a sensitivity "
        "table, no rows",
        "2026-11-26",
    ),
    Reading(
        "mice goodput 'only during active transmission periods' (L187)",
        "goodput per source",
        "a mice source's delivered bytes over the time it had a transfer open, averaged over "
        "the sources",
        True,
        "the idle periods are cut out of a source's time ('excluding idle times', L187), which "
        "a single transfer's rate never contains",
        "2026-11-26",
    ),
    Reading(
        "mice goodput 'only during active transmission periods' (L187)",
        "goodput per transfer",
        "each 1 MB transfer over its own completion time, averaged over the transfers",
        False,
        "each connection's own rate; equal to the per-source reading while a source's transfers "
        "do not overlap, lower when they do; shown beside Tables 1/2's goodput, no rows",
        "2026-11-26",
    ),
)
#: The reading of its layer each setting runs.
SETTING_READING = {
    "smart home": "50 Mbit/s link",
    "smart home, shaper": "tbf on a gigabit port",
    "eHealth, mac80211": "mac80211",
    "eHealth, device FIFO": "device FIFO",
}


@dataclass(frozen=True)
class Plan:
    seeds: tuple[int, ...]
    sources: tuple[int, ...]
    replicates: int


FULL = Plan((1, 2, 3), tuple(range(2, 21, 2)), 10)
QUICK = Plan((1,), (2, 10, 20), 2)


def plan(quick: bool) -> Plan:
    return QUICK if quick else FULL


def k_settings() -> dict[str, int]:
    """Where Tables 1/2's K runs, at how many sources: the tables' settings, and the smart
    home's other uplink at Table 1's point."""
    return {**TABLE_SOURCES, "smart home, shaper": TABLE_SOURCES["smart home"]}


def _aqm(aqm: str, k: float = 3.0, reading: tuple[str, str] = READINGS[0]) -> str:
    if aqm == "fq_codel":
        return '{ kind = "fq_codel" }'
    mean, wrr = reading
    return f'{{ kind = "xlayer", k = {k:g}, mean = "{mean}", wrr = "{wrr}" }}'


def _job(
    experiment: str,
    setting: str,
    aqm: str,
    sources: int,
    seed: int,
    k: float = 3.0,
    reading: tuple[str, str] = READINGS[0],
    extra: Sequence[tuple[str, str]] = (),
) -> Job:
    scenario, key, device = SETTINGS[setting]
    qdisc = _aqm(aqm, k, reading)
    if setting in SHAPERS:
        qdisc = f'{{ kind = "tbf", rate = "{SHAPERS[setting]}", qdisc = {qdisc} }}'
    params = [(key, qdisc), ("flow.mice.count", str(sources))]
    if device:
        params.append((DEVICE_KEY, device))
    if setting in SHAPERS:
        params.append(SHAPED_PORT)
    # The batches need no fine series: the record keeps one goodput sample per second.
    if not any(key == "metrics.interval" for key, _ in extra):
        params.append(("metrics.interval", "1s"))
    params += extra
    tags = {
        "experiment": experiment,
        "setting": setting,
        "aqm": aqm,
        "sources": sources,
        "k": k if aqm == "xlayer" else 0.0,
        "reading": "/".join(reading) if aqm == "xlayer" else "",
    }
    return Job(scenario, tuple(params), seed, tuple(sorted(tags.items())))


def jobs(quick: bool = False) -> list[Job]:
    """Steady state against the number of sources (both AQMs, every setting); the K tables; the
    initial transient (eHealth, 8 sources, replicates); the classifier and round-robin
    readings."""
    p = plan(quick)
    out = []
    for setting, n, aqm, seed in itertools.product(SETTINGS, p.sources, AQMS, p.seeds):
        out.append(_job("steady", setting, aqm, n, seed))
    for setting, n in k_settings().items():
        for k, seed in itertools.product(KS, p.seeds):
            if k != 3.0 or n not in p.sources:
                out.append(_job("K", setting, "xlayer", n, seed, k=k))
        if n not in p.sources:
            out += [_job("steady", setting, "fq_codel", n, s) for s in p.seeds]
    for setting, n in TABLE_SOURCES.items():
        for reading, seed in itertools.product(READINGS[1:], p.seeds):
            out.append(_job("reading", setting, "xlayer", n, seed, reading=reading))
    transient = [("duration", "40s"), ("metrics.interval", "100ms")]
    for setting in ("eHealth, mac80211", "eHealth, device FIFO"):
        for aqm, rep in itertools.product(AQMS, range(1, p.replicates + 1)):
            out.append(_job("transient", setting, aqm, 8, 100 + rep, extra=transient))
    return out


# -- paper numbers -----------------------------------------------------------------------------


def _gain(steady: pd.DataFrame, setting: str, metric: str) -> pd.DataFrame:
    """Per number of sources, the cross-layer AQM's change against FQ-CoDel in % (and the
    absolute difference)."""
    s = steady[steady.setting == setting]
    x = s[s.aqm == "xlayer"].set_index("sources")[metric]
    q = s[s.aqm == "fq_codel"].set_index("sources")[metric]
    both = x.index.intersection(q.index)
    return pd.DataFrame(
        {"xlayer": x[both], "fq_codel": q[both], "change": 100 * (x[both] / q[both] - 1),
         "difference": x[both] - q[both]}
    )  # fmt: skip


def _equal_bulk(t: Target, setting: str) -> Target:
    """A claim that the cross-layer AQM leaves the bulk goodput as FQ-CoDel's, marked where
    the setting makes the two AQMs one run (:data:`SAME_RUNS`)."""
    if setting in SAME_RUNS:
        return t.not_informative(
            "configuration", f"{SAME_RUNS[setting]}: equal bulk goodput by construction"
        )
    return t


def _trend(g: pd.Series) -> float:
    """The least-squares slope of a series over its index (per source), in closed form:
    np.polyfit goes through LAPACK, whose last bits vary between runs of the same input."""
    if len(g) < 2:
        return math.nan
    x = np.asarray(g.index, dtype=float)
    y = g.to_numpy(dtype=float)
    dx = x - x.mean()
    return float(np.sum(dx * (y - y.mean())) / np.sum(dx * dx))


def _tag(rows: list[Target], setting: str) -> list[Target]:
    """The rows, tagged with the reading of its layer their setting runs."""
    for t in rows:
        t.reading = (SETTING_READING[setting],)
    return rows


def targets(agg: Mapping[str, pd.DataFrame]) -> list[Target]:
    """Every number and claim of P1.3/P1.4 (E1-6, testbed against ns-3, aside). The testbed's
    figures are rows under every reading of the layer they depend on; ns-3's under its own."""
    T = TARGETS
    out: list[Target] = []
    steady = agg["steady"]
    for setting in ("eHealth, mac80211", "eHealth, device FIFO"):
        tr = agg["transient"]
        tr = tr[tr.setting == setting]
        if tr.empty:
            continue
        x = tr[tr.aqm == "xlayer"].set_index("round")
        q = tr[tr.aqm == "fq_codel"].set_index("round")
        gain = 100 * (x.mice_goodput / q.mice_goodput - 1)
        fct = 100 * (x.mice_fct / q.mice_fct - 1)
        later = x.mice_goodput.loc[x.index >= 2]
        steady_bulk = (x.bulk_goodput / q.bulk_goodput - 1).loc[x.index >= 3].abs()
        out += _tag([
            T.point("E1-1 (Fig. 4)", "largest mice goodput gain over the first 5 rounds (%)",
                    float(gain.max()), setting),
            T.direction("E1-1 (Fig. 4)", "mice goodput stable after one round (rounds 2-5 within "
                        "15 % of their mean)", bool((later / later.mean() - 1).abs().max() <= 0.15),
                        0.15 - float((later / later.mean() - 1).abs().max()), setting),
            _equal_bulk(T.direction("E1-1 (Fig. 4)", "equal bulk goodput from round 3 (within "
                                    "10 %)", bool(steady_bulk.max() <= 0.10),
                                    0.10 - float(steady_bulk.max()), setting), setting),
            T.point("E1-2 (Fig. 5)", "largest mice FCT reduction over the first 5 rounds (%)",
                    float(fct.min()), setting),
        ], setting)  # fmt: skip
    for setting in ("eHealth, mac80211", "eHealth, device FIFO"):
        g = _gain(steady, setting, "mice_goodput")
        f = _gain(steady, setting, "mice_fct")
        b = _gain(steady, setting, "bulk_goodput")
        out += _tag([
            T.direction("E1-3 (Fig. 6)", "cross-layer mice goodput above FQ-CoDel at every source "
                        "count", bool((g.change > 0).all()), float(g.change.min()), setting),
            T.point("E1-3 (Fig. 6)", "largest mice goodput gain (%)", float(g.change.max()),
                    setting),
            T.direction("E1-3 (Fig. 6)", "the gain grows with the sources (slope, % per source)",
                        _trend(g.change) > 0, _trend(g.change), setting),
            _equal_bulk(T.direction("E1-3 (Fig. 6)", "bulk goodput within 10 % of FQ-CoDel at "
                                    "every source count", bool((b.change.abs() <= 10).all()),
                                    10 - float(b.change.abs().max()), setting), setting),
            T.direction("E1-4 (Fig. 7)", "cross-layer mice FCT lower at every source count",
                        bool((f.change < 0).all()), -float(f.change.max()), setting),
            T.point("E1-4 (Fig. 7)", "mean FCT reduction over the source counts (ms)",
                    -1e3 * float(f.difference.mean()), setting),
            T.point("abstract (L25)", "eHealth FCT reduction at the paper's table point (%)",
                    float(f.change.get(TABLE_SOURCES["eHealth, device FIFO"], math.nan)),
                    setting),
        ], setting)  # fmt: skip
    # ns-3's eHealth figures: its WifiMacQueue is the device FIFO, the runs of Figs. 6/7's
    # primary reading.
    setting = "eHealth, device FIFO"
    g = _gain(steady, setting, "mice_goodput")
    j = _gain(steady, setting, "jain")
    out += [
        T.direction("E1-7 (Fig. 11)", "cross-layer mice goodput above FQ-CoDel at every source "
                    "count", bool((g.change > 0).all()), float(g.change.min()),
                    setting).not_informative(
            "duplicate", "ns-3's WifiMacQueue is the device FIFO of Fig. 6's primary reading: the "
            "same runs and number as E1-3's row under it"),
        T.direction("E1-8 (Fig. 12)", "cross-layer Jain index above FQ-CoDel at every source "
                    "count", bool((j.difference > 0).all()), float(j.difference.min()), setting),
        T.point("E1-8 (Fig. 12)", "cross-layer Jain index, largest", float(j.xlayer.max()),
                setting),
    ]  # fmt: skip
    for setting in ("smart home", "smart home, shaper"):
        g = _gain(steady, setting, "mice_goodput")
        b = _gain(steady, setting, "bulk_goodput")
        out += _tag([
            T.point("E1-5 (Fig. 8)", "largest mice goodput gain (%)", float(g.change.max()),
                    setting),
            T.direction("E1-5 (Fig. 8)", "cross-layer mice goodput above FQ-CoDel at every source "
                        "count", bool((g.change > 0).all()), float(g.change.min()), setting),
            T.direction("E1-5 (Fig. 8)", "the gain shrinks as the sources grow (slope, % per "
                        "source)", _trend(g.change) < 0, -_trend(g.change), setting),
            # Only the sign is asked, and the 50 Mbit/s uplink the bulk upload fills gets 5.3
            # Mbit/s more offered by every source (10.7 at 2 sources, 107 at 20): whatever the
            # AQM, the bulk keeps what the mice leave, so it falls even under FQ-CoDel's fair
            # shares.
            T.direction("E1-5 (Fig. 8)", "bulk goodput falls as the sources grow (slope, Mbit/s "
                        "per source)", _trend(b.xlayer) < 0, -_trend(b.xlayer),
                        setting).not_informative(
                "insensitive", "the mice offer 5.3 Mbit/s more per source to the 50 Mbit/s "
                "uplink the bulk upload fills, so any model that keeps it busy and serves the "
                "mice passes"),
        ], setting)  # fmt: skip
    g = _gain(steady, "smart home", "mice_goodput")
    j = _gain(steady, "smart home", "jain")
    eh = _gain(steady, "eHealth, device FIFO", "mice_goodput")
    small, large = j[j.index <= 12], j[j.index > 12]
    # The abstract's headline (L11; "up to almost 80 %" in the home network, L25) is Fig. 8's
    # largest gain rounded up: the same number of ours against the same measurement.
    out += _tag([
        T.point("abstract (L11)", "mice goodput 'almost 80 %' higher (largest gain, %)",
                float(g.change.max())).not_informative(
            "duplicate", "the abstract's 'almost 80 %' is E1-5's largest smart-home gain (Fig. "
            "8, 77 %), the same number of ours"),
    ], "smart home")  # fmt: skip
    out += [
        # ns-3's smart-home figures: a link at its DataRate above its device queue.
        T.direction("E1-9 (Fig. 13)", "at the most sources the gain is below eHealth's (device "
                    "FIFO), %", float(g.change.iloc[-1]) < float(eh.change.iloc[-1]),
                    float(eh.change.iloc[-1] - g.change.iloc[-1])),
        T.direction("E1-10 (Fig. 14)", "Jain index higher up to 12 sources and not beyond",
                    bool((small.difference > 0).all() and (large.difference <= 0).all()),
                    float(min(small.difference.min(), -large.difference.max()))
                    if len(large) else float(small.difference.min())),
    ]  # fmt: skip
    out += _k_targets(agg)
    return out


def _k_targets(agg: Mapping[str, pd.DataFrame]) -> list[Target]:
    """Tables 1/2: mice goodput and delay per K at the tables' sources, and which K is best."""
    out: list[Target] = []
    for setting, n in k_settings().items():
        rows = []
        k = k_table(agg, setting, n)
        for kk in KS:
            row = k.loc[kk] if kk in k.index else None
            for metric, col in (("goodput", "mice_goodput"), ("delay", "mice_delay")):
                ours = float(row[col]) if row is not None else math.nan
                row_target = TARGETS.point("E1-11", table_metric(family(setting), kk, metric),
                                           ours, setting)  # fmt: skip
                # The operating point was chosen at the primary readings, not the shaper.
                if metric == "goodput" and setting in CALIBRATED:
                    row_target = row_target.not_informative("calibration", CALIBRATED[setting])
                rows.append(row_target)
        best = float(k.mice_goodput.idxmax()) if len(k) else math.nan
        paper_best = TABLE_KS[int(np.argmax(paper_table(family(setting), "goodput")))]
        rows.append(
            TARGETS.direction("E1-11", f"the best K for mice goodput is the paper's "
                              f"({paper_best:g})", best == paper_best, -abs(best - paper_best),
                              setting)
        )  # fmt: skip
        out += _tag(rows, setting)
    return out


# -- the whole analysis ------------------------------------------------------------------------


def analyze(records: Mapping[str, dict[str, Any]], out_dir: Path, quick: bool) -> dict[str, Any]:
    from airlab.reproduce import figures_xlayer

    df = pd.DataFrame([row for r in records.values() for row in run_metrics(r)])
    write_runs_table(out_dir, df)
    metrics = [m for m in (*METRICS, "transfers") if m in df.columns]
    agg = {
        "steady": seed_means(df[df.experiment == "steady"], ["setting", "aqm", "sources"],
                             metrics),
        "K": seed_means(df[df.experiment == "K"], ["setting", "sources", "k"], metrics),
        "transient": seed_means(df[df.experiment == "transient"], ["setting", "aqm", "round"],
                                metrics),
        "reading": seed_means(df[df.experiment.isin(["reading", "steady"]) & (df.aqm == "xlayer")],
                              ["setting", "sources", "reading"], metrics),
    }  # fmt: skip
    r = agg["reading"]
    agg["reading"] = r[r.sources == r.setting.map(TABLE_SOURCES)]
    tg = targets(agg)
    write_targets(out_dir, "xlayer-aqm", quick, tg, READINGS_DECLARED)
    figs = figures_xlayer.all_figures(agg, out_dir / "figures", k_settings())
    section = {"title": "Paper 001's numbers and claims", "targets": tg, "figures": figs}
    return {
        "agg": agg,
        "sections": [section],
        "batch_ci": _batch_ci(df),
        "readings": READINGS_DECLARED,
    }


def _batch_ci(df: pd.DataFrame) -> pd.DataFrame:
    """Batch means against replicates: per setting, AQM and source count, the mean over seeds
    of each run's batch-means CI half-width beside the CI over the seeds."""
    steady = df[df.experiment == "steady"]
    rows = []
    for key, g in steady.groupby(["setting", "aqm", "sources"]):
        row = dict(zip(("setting", "aqm", "sources"), key, strict=True))
        for m in ("mice_goodput", "mice_fct"):
            row[f"{m}_batch_ci"] = float(g[f"{m}_batch_ci"].mean())
            row[f"{m}_seed_ci"] = mean_ci(g[m].tolist())[1]
        rows.append(row)
    return pd.DataFrame(rows)


INTRO = """
<p>What runs: {runs} runs of <code>scenarios/xlayer-aqm/</code>. Steady state: {sources}
sources, both AQMs, {seeds} seeds, each run ended by eleven batches of 5,000 of the first
source's delivered packets, the first discarded (batch means; the table at the end sets their
CIs beside those over the seeds). Initial transient: eHealth with 8 sources, {reps}
replicates, the first five transfers of each source. Mice goodput is over each source's active
transfer periods; bulk goodput is that of the flows crossing the AQM (smart home: the bulk
upload; eHealth: the two video downloads); delay is the mice data packets' one-way delay.
Smart home: the AQM on the 50 Mbit/s uplink above a 100-packet ring, or as the child of a
50 Mbit/s tbf on a gigabit port. eHealth: on the AP's Wi-Fi egress, above a 500-packet device
FIFO (the paper's NDQ, as ns-3 builds it) or mac80211 (a Linux AP).</p>
"""


def report(analysis: Mapping[str, Any], out_dir: Path, quick: bool) -> str:
    from airlab.reproduce import report as r

    p = plan(quick)
    intro = r.intro(
        quick,
        analysis,
        INTRO,
        jobs(quick),
        sources=", ".join(map(str, p.sources)),
        seeds=len(p.seeds),
        reps=p.replicates,
    )
    tables = r.means_tables(analysis["agg"])
    ci = analysis["batch_ci"]
    sections = r.target_sections(analysis["sections"], out_dir)
    sections += [
        ("Every setting (means over seeds)", tables),
        ("Batch means against replicates (95 % CI half-widths)",
         r.frame_table(ci, [(c, c) for c in ci.columns])),
    ]  # fmt: skip
    return r.page(TITLE, intro, sections)
