"""The sharing grid: how competing flows divide one bottleneck, the simulator against the kernel
(issue 33; docs/validation/tcp-grid.md). The TCP grid (:mod:`airlab.testbed.grid`) covers one
and two flows; these cells cover what decides sharing: two to four flows of base RTTs from 5 to
100 ms, CC pairs and triples at equal RTT, four and eight flows of one CC, 10, 50 and 100
Mbit/s, buffers of 0.5 to 4 BDP, pfifo, bfifo and a tbf shaper, staggered starts, and short
transfers beside a bulk flow.

Topology: one sender per flow (``s1``, ``s2``, ...) -- r1 == bottleneck == h2. The bottleneck's
delay is set by the shortest base RTT (its senders' access links are 0.5 ms); every other
sender's access delay makes up its own RTT. A buffer of ``k`` BDP holds ``k`` times the
bottleneck rate times the shortest base RTT: ``pfifo`` in packets of 1500 B, ``bfifo`` in
bytes; ``tbf`` shapes a 1 Gbit/s link to the cell's rate with its default bucket (1 ms) over a
bfifo of that many bytes.

Usage::

    sudo python -m airlab.testbed.sharing run --backend linux --seeds 3 \\
        --out docs/validation/kernel-sharing.csv
    python -m airlab.testbed.sharing run --backend airlab --seeds 3 --out results/sharing.csv
    python -m airlab.testbed.sharing table --linux A.csv --airlab B.csv
    python -m airlab.testbed.sharing ceiling --linux A.csv --airlab B15.csv

Per flow a row records goodput, its share of the cell's total, sRTT p50 after the warm-up,
retransmissions over the run and, for short transfers, the mean flow completion time of the
connections opened after the warm-up. Targets (issue 33): goodput 5 %, sRTT p50 10 %, every
flow's share within 5 points, FCT 10 %. Cells of identical flows compare the flows by the rank
of their share in each run (:func:`by_rank`), since which one wins is chance.
"""

from __future__ import annotations

import argparse
import math
from dataclasses import dataclass
from typing import Any

import pandas as pd

from airlab.testbed.grid import (
    ACCESS_DELAY_MS,
    GOODPUT_TOL,
    RTT_TOL,
    add_run_parser,
    add_table_parser,
    counts,
    matching,
    parse_with_ceiling,
    run_from_args,
    verdict_columns,
    within,
)

#: Each flow's share of the cell's goodput, in points (absolute), and the FCT's relative error.
SHARE_POINTS = 0.05
FCT_TOL = 0.10
#: Short transfers open one connection per period, after a bulk flow has filled the queue.
TRANSFER_PERIOD_S = 2.0


@dataclass(frozen=True)
class Flow:
    cc: str
    rtt_ms: float
    start_s: float = 0.0
    #: Bytes per connection of a periodic short transfer; ``None`` for a bulk flow.
    size: int | None = None


@dataclass(frozen=True)
class SharingCell:
    group: str
    flows: tuple[Flow, ...]
    rate_mbit: int
    buffer_bdp: float
    qdisc: str = "pfifo"
    duration_s: int = 30
    warmup_s: int = 10

    @property
    def name(self) -> str:
        def one(f: Flow) -> str:
            extra = f"-from{f.start_s:g}s" if f.start_s else ""
            extra += f"-{f.size // 1000}kB" if f.size else ""
            return f"{f.cc}-{f.rtt_ms:g}ms{extra}"

        names = [one(f) for f in self.flows]
        same = len(set(names)) == 1 and len(names) > 2
        flows = f"{len(names)}x{names[0]}" if same else "+".join(names)
        return f"{self.group}/{flows}/{self.qdisc}{self.buffer_bdp:g}/{self.rate_mbit}M"

    @property
    def exchangeable(self) -> bool:
        """Whether the flows differ in nothing but their names (same CC, RTT, start and size),
        so that which of them ends up with the larger share is chance."""
        return len(set(self.flows)) == 1 and len(self.flows) > 1

    @property
    def base_rtt_ms(self) -> float:
        return min(f.rtt_ms for f in self.flows)

    @property
    def buffer_bytes(self) -> int:
        return round(self.buffer_bdp * self.rate_mbit * 1e6 / 8 * self.base_rtt_ms / 1e3)

    def _qdisc(self) -> str:
        if self.qdisc == "pfifo":
            return f'{{ kind = "pfifo", limit = {max(2, round(self.buffer_bytes / 1500))} }}'
        child = f'{{ kind = "bfifo", limit = "{max(3000, self.buffer_bytes)}B" }}'
        if self.qdisc == "bfifo":
            return child
        # The testbed's TUN devices carry bare IP packets: its tbf counts no Ethernet header.
        return f'{{ kind = "tbf", rate = "{self.rate_mbit}Mbit", overhead = 0, qdisc = {child} }}'

    def scenario(self) -> str:
        """The cell's scenario file."""
        bottleneck_ms = self.base_rtt_ms / 2 - ACCESS_DELAY_MS
        senders = [f"s{k}" for k in range(1, len(self.flows) + 1)]
        # A tbf cell's link runs at 1 Gbit/s; tbf shapes it to the cell's rate.
        link_mbit = 1000 if self.qdisc == "tbf" else self.rate_mbit
        lines = [
            f'name = "sharing-{self.group}"',
            f'duration = "{self.duration_s}s"',
            f"hosts = {[*senders, 'h2']}".replace("'", '"'),
            'routers = ["r1"]',
            "",
            "[metrics]",
            f'warmup = "{self.warmup_s}s"',
        ]
        for s, f in zip(senders, self.flows, strict=True):
            lines += ["", "[[link]]", f'between = ["{s}", "r1"]', 'rate = "1Gbit"',
                      f'delay = "{f.rtt_ms / 2 - bottleneck_ms:g}ms"']  # fmt: skip
        lines += [
            "",
            "[[link]]",
            'name = "bottleneck"',
            'between = ["r1", "h2"]',
            f'rate = "{link_mbit}Mbit"',
            f'delay = "{bottleneck_ms:g}ms"',
            # The testbed's HTB class hands packets straight to the wire: no driver ring.
            "device_queue = 0",
            f"qdisc = {self._qdisc()}",
        ]
        for k, (s, f) in enumerate(zip(senders, self.flows, strict=True), 1):
            app = (
                f'{{ kind = "periodic", size = "{f.size}B", period = "{TRANSFER_PERIOD_S:g}s" }}'
                if f.size
                else '{ kind = "bulk" }'
            )
            lines += ["", "[[flow]]", f'name = "f{k}"', f'from = "{s}"', 'to = "h2"',
                      f'cc = "{f.cc}"', f"app = {app}", f'start = "{f.start_s:g}s"']  # fmt: skip
        return "\n".join(lines) + "\n"


def _cells() -> list[SharingCell]:
    cells: list[SharingCell] = []
    ccs = ["cubic", "reno", "bbr1"]
    # Different base RTTs, one CC: 2-4 flows spanning 5 to 100 ms.
    for rtts in ((5, 50), (10, 100), (5, 20, 80), (5, 10, 40, 100)):
        for cc in ccs:
            flows = tuple(Flow(cc, rtt) for rtt in rtts)
            cells.append(SharingCell("rtt", flows, 50, 1.0))
            cells.append(SharingCell("rtt", flows, 10, 2.0))
    # CC pairs and a triple at an equal 20 ms.
    for mix in (("reno", "cubic"), ("bbr1", "cubic"), ("bbr1", "reno"), ("reno", "cubic", "bbr1")):
        flows = tuple(Flow(cc, 20) for cc in mix)
        for rate in (10, 50, 100):
            for buf in (0.5, 4.0):
                cells.append(SharingCell("ccmix", flows, rate, buf))
    # Four and eight flows of one CC, in packets and in bytes.
    for n in (4, 8):
        for cc in ccs:
            flows = tuple(Flow(cc, 20) for _ in range(n))
            cells.append(SharingCell("many", flows, 50, 1.0))
            cells.append(SharingCell("many", flows, 50, 2.0, qdisc="bfifo"))
    # A tbf shaper over a bfifo.
    for flows in ((Flow("cubic", 20), Flow("cubic", 60)), (Flow("bbr1", 20), Flow("cubic", 20))):
        cells.append(SharingCell("tbf", flows, 50, 1.0, qdisc="tbf"))
        cells.append(SharingCell("tbf", flows, 10, 2.0, qdisc="tbf"))
    # Staggered starts: the later flows must take their share from those in place.
    for cc in ccs:
        flows = (Flow(cc, 20), Flow(cc, 20, start_s=5), Flow(cc, 20, start_s=10))
        cells.append(SharingCell("stagger", flows, 50, 1.0, duration_s=40, warmup_s=15))
    # Short transfers beside a bulk CUBIC flow: their completion time.
    for size in (10_000, 100_000, 1_000_000):
        for rate in (10, 50):
            flows = (Flow("cubic", 20), Flow("cubic", 20, size=size))
            cells.append(SharingCell("fct", flows, rate, 1.0))
    return cells


CELLS: list[SharingCell] = _cells()


def rows(cell: SharingCell, backend: str, seed: int, result: Any) -> list[dict[str, Any]]:
    """One row per flow of a finished run of ``cell``."""
    flows = result.summary["flows"]
    retransmits = result.flows.groupby("flow")["retransmits"].max()
    total = sum(f["goodput_mbps"] for f in flows) or math.nan
    return [
        {
            "cell": cell.name,
            "group": cell.group,
            "backend": backend,
            "seed": seed,
            "flow": f["name"],
            "cc": spec.cc,
            "rtt_ms": spec.rtt_ms,
            "goodput_mbps": f["goodput_mbps"],
            "share": f["goodput_mbps"] / total,
            "srtt_p50_ms": (f.get("srtt_ms") or {}).get("p50"),
            "retransmits": retransmits.get(f["name"]),
            "fct_mean_s": (f.get("fct_s") or {}).get("mean"),
            **verdict_columns(result.summary),
        }
        for f, spec in zip(flows, cell.flows, strict=True)
    ]


def by_rank(rows: pd.DataFrame) -> pd.DataFrame:
    """``rows`` with the flows of exchangeable cells (:attr:`SharingCell.exchangeable`)
    named by their share's rank within each run: ``r1`` the largest. Which of identical flows
    wins is chance, so a flow name's median over runs measures only that chance (with three
    kernel runs of four flows it strays 10 points from 1/4 at random); the ranked shares measure
    how unequal the split is."""
    exchangeable = {c.name for c in CELLS if c.exchangeable}
    same = rows["cell"].isin(exchangeable)
    if not same.any():
        return rows
    ranked = rows[same].copy()
    rank = ranked.groupby(["cell", "seed"])["share"].rank(method="first", ascending=False)
    ranked["flow"] = "r" + rank.astype(int).astype(str)
    return pd.concat([rows[~same], ranked])


def compare(linux: pd.DataFrame, sim: pd.DataFrame) -> pd.DataFrame:
    """One row per cell: kernel and airlab medians over seeds, and whether each target holds
    (every flow's share, sRTT and FCT; the cell's total goodput). Identical flows are compared
    by rank (:func:`by_rank`)."""
    linux = by_rank(linux[counts(linux)])
    sim = by_rank(sim)
    key = ["cell", "group", "flow"]
    metrics = ["goodput_mbps", "share", "srtt_p50_ms", "fct_mean_s"]
    both = pd.merge(linux.groupby(key)[metrics].median(), sim.groupby(key)[metrics].median(),
                    left_index=True, right_index=True, suffixes=("_linux", "_airlab"))  # fmt: skip
    out = []
    for (cell, group), g in both.reset_index().groupby(["cell", "group"], sort=False):
        shares = (g["share_airlab"] - g["share_linux"]).abs()
        fct = g.dropna(subset=["fct_mean_s_linux", "fct_mean_s_airlab"])
        goodput = (g["goodput_mbps_airlab"].sum(), g["goodput_mbps_linux"].sum())
        rtts = zip(g["srtt_p50_ms_airlab"], g["srtt_p50_ms_linux"], strict=True)
        fcts = zip(fct["fct_mean_s_airlab"], fct["fct_mean_s_linux"], strict=True)
        row = {
            "cell": cell,
            "group": group,
            "goodput_ok": within(*goodput, GOODPUT_TOL),
            "rtt_ok": all(within(a, lx, RTT_TOL) for a, lx in rtts),
            "share_ok": bool((shares <= SHARE_POINTS).all()),
            "share_worst_points": float(shares.max()),
            "fct_ok": all(within(a, lx, FCT_TOL) for a, lx in fcts),
        }
        row["all_ok"] = row["goodput_ok"] and row["rtt_ok"] and row["share_ok"] and row["fct_ok"]
        out.append(row)
    return pd.DataFrame(out)


def select(pattern: str | None) -> list[SharingCell]:
    return matching(CELLS, pattern)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="airlab.testbed.sharing")
    sub = ap.add_subparsers(dest="cmd", required=True)
    add_run_parser(sub, seeds=3, example="ccmix/*")
    sub.add_parser("list")
    add_table_parser(sub)
    args = parse_with_ceiling(ap, sub, argv, 9, compare)
    if args is None:
        return
    if args.cmd == "list":
        print("\n".join(c.name for c in CELLS))
    elif args.cmd == "run":
        run_from_args(args, select(args.only), rows_of=rows)
    else:
        cmp = compare(pd.read_csv(args.linux), pd.read_csv(args.airlab))
        print(cmp.to_string(index=False))
        ok = int(cmp["all_ok"].sum())
        print(f"{ok} of {len(cmp)} cells within every target")


if __name__ == "__main__":
    main()
