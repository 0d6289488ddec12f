"""What a testbed run sets up, worked out from a resolved scenario without touching the kernel.

A scenario's node becomes a network namespace; each direction of a link becomes an egress TUN
device in the sending node's namespace, shaped by an HTB class at the link rate with the
scenario's qdisc below it, and a wire (``airlab._core.delay_line``) that carries its packets to
the TUN device of the same link in the receiving node's namespace after their serialization
time plus the propagation delay. Every node has one address; static routes follow the
scenario's next hops. Flows become sockets in the end hosts' namespaces.

Everything here is data: :mod:`airlab.testbed.kernel` applies a :class:`Plan`. Names are unique
per run (the run's id is in every namespace name), so two runs never collide and a stale run's
namespaces can be told apart.
"""

from __future__ import annotations

import ipaddress
import random
from dataclasses import dataclass, field
from typing import Any

from airlab import _core

#: The scenario congestion controls the kernel can run, by the kernel's name for them.
KERNEL_CC = {"cubic": "cubic", "reno": "reno", "bbr1": "bbr"}

#: Scenario qdiscs and the kernel qdisc each needs.
KERNEL_QDISC = {
    "pfifo": "pfifo",
    "bfifo": "bfifo",
    "pfifo_head_drop": "pfifo_head_drop",
    "codel": "codel",
    "fq_codel": "fq_codel",
    "cake": "cake",
    "tbf": "tbf",
    "htb": "htb",
}

#: Apps the testbed runs.
APPS = ("bulk", "transfer", "periodic", "ping", "udp")

#: IPv4 and UDP headers: a UDP app's `packet_size` is its payload.
UDP_HEADER = 28

#: The block of addresses nodes get inside the run's namespaces (never routed elsewhere).
NETWORK = ipaddress.ip_network("10.99.0.0/16")

#: Namespace names start with this, then the run id.
PREFIX = "airlab"

#: Linux's MSS on a 1500-byte MTU with TCP timestamps, the simulator's default.
KERNEL_MSS = 1448

#: The first port flows listen on.
BASE_PORT = 5001

#: The most flows a run starts. Each (but a ping) runs two processes, a sender and a receiver,
#: of 14 MB each (resident; 7.4 MB proportional, shared pages split), measured on Python 3.11:
#: 64 flows take 1.8 GB (0.95 GB proportional), plus the kernel's socket buffers.
MAX_FLOWS = 64
#: The most nodes (hosts and routers) a run sets up. The sampler reads every node's qdiscs
#: (and every sending host's sockets) at each interval, about 1 ms a node on the 2-core
#: machine this project runs on: 32 nodes keep a pass near 30 ms, inside the half interval
#: (50 ms at the default 100 ms) after which a sample no longer counts (docs/testbed.md).
MAX_NODES = 32


class PlanError(ValueError):
    """The scenario asks for something the testbed cannot set up; the message says what."""


@dataclass(frozen=True)
class Direction:
    """One direction of a link: the TUN device packets leave ``src`` by, its shaper and qdisc,
    and the wire to ``dst``."""

    name: str  # "link:from->to", as the simulator names the queue
    link: str
    src: str
    dst: str
    device: str  # TUN device name, the same at both ends
    rate_bps: int
    delay_ns: int
    loss: float
    overhead: int
    qdisc: dict[str, Any]


@dataclass(frozen=True)
class Route:
    node: str
    dst: str  # destination host
    device: str  # the TUN device towards the next hop


@dataclass(frozen=True)
class FlowPlan:
    name: str
    src: str
    dst: str
    cc: str | None  # the scenario's name; None for ping
    kernel_cc: str | None
    app: str
    size: int | None  # bytes: a transfer's, or a ping's IP packet
    start_ns: int
    stop_ns: int
    port: int  # a TCP flow's port; a ping's ICMP identifier
    ecn: bool
    interval_ns: int | None = None  # between pings, datagrams (udp) or connections (periodic)
    offset_ns: int = 0  # a periodic flow's random start, drawn from the run's seed
    dscp: int = 0  # the sender's IP_TOS >> 2


@dataclass(frozen=True)
class Plan:
    run_id: str
    scenario: str
    duration_ns: int
    interval_ns: int
    warmup_ns: int
    seed: int
    nodes: list[str]
    hosts: list[str]
    addresses: dict[str, str]
    directions: list[Direction]
    routes: list[Route]
    flows: list[FlowPlan]
    resolved: dict[str, Any] = field(repr=False)

    def namespace(self, node: str) -> str:
        """The network namespace of ``node``: the run's prefix and the node's index (node
        names may hold characters a namespace name cannot)."""
        return f"{PREFIX}{self.run_id}-{self.nodes.index(node)}"

    @property
    def namespaces(self) -> list[str]:
        return [self.namespace(n) for n in self.nodes]

    def path(self, src: str, dst: str) -> list[Direction]:
        """The directions a packet from ``src`` to ``dst`` crosses, along the static routes."""
        device = {(r.node, r.dst): r.device for r in self.routes}
        out: list[Direction] = []
        node = src
        while node != dst and len(out) <= len(self.nodes):
            via = device[(node, dst)]
            d = next(d for d in self.directions if d.src == node and d.device == via)
            out.append(d)
            node = d.dst
        return out


def _quantity(kind: str, text: Any) -> int:
    return int(_core.quantity(kind, str(text)))


#: The TCP stack settings the kernel runs with, which a flow may not ask to change.
KERNEL_STACK: dict[str, Any] = {
    "profile": "linux-6",
    "recovery": "rack-tlp",
    "frto": True,
    "small_queues": True,
    "sack_compression": True,
    "rwnd": None,
}


def make_plan(resolved: dict[str, Any], run_id: str) -> Plan:
    """The testbed plan of a resolved scenario (``airlab.validate``'s result). Raises
    :class:`PlanError` naming what the testbed cannot do (Wi-Fi, an app it does not run, a
    congestion control the kernel does not have a counterpart for)."""
    sc = resolved["scenario"]
    name = sc.get("name", "scenario")
    if resolved.get("wifi"):
        raise PlanError(
            f"{name}: the testbed runs wired scenarios only; this one has [[wifi]] networks "
            "(a real Wi-Fi testbed needs radios)"
        )
    nodes = [*sc.get("hosts", []), *sc.get("routers", [])]
    if len(nodes) > MAX_NODES:
        raise PlanError(
            f"{name}: hosts + routers: {len(nodes)} nodes, more than the testbed's {MAX_NODES} "
            "(each is a network namespace its sampler reads every interval; docs/testbed.md)"
        )
    if len(resolved["flows"]) > MAX_FLOWS:
        raise PlanError(
            f"{name}: flow: {len(resolved['flows'])} flows, more than the testbed's {MAX_FLOWS} "
            "(each runs a sender and a receiver process of about 14 MB; docs/testbed.md)"
        )
    addresses = {node: str(NETWORK[256 * (k // 250) + k % 250 + 1]) for k, node in enumerate(nodes)}
    directions = []
    device_of: dict[tuple[str, str], str] = {}
    for i, d in enumerate(resolved["directions"]):
        link_index = i // 2
        device = f"al{link_index}"
        device_of[(d["from"], d["to"])] = device
        directions.append(
            Direction(
                name=f"{d['link']}:{d['from']}->{d['to']}",
                link=d["link"],
                src=d["from"],
                dst=d["to"],
                device=device,
                rate_bps=_quantity("rate", d["rate"]),
                delay_ns=_quantity("duration", d["delay"]),
                loss=float(d["loss"]),
                overhead=int(d["overhead"]),
                qdisc=dict(d["qdisc"]),
            )
        )
    routes = [
        Route(node=h["at"], dst=h["to"], device=device_of[(h["at"], h["via"])])
        for h in resolved["next_hop"]
    ]
    via = {(h["at"], h["to"]): h["via"] for h in resolved["next_hop"]}

    def first_hop_rate(src: str, dst: str) -> int:
        hop = via[(src, dst)]
        return next(d.rate_bps for d in directions if d.src == src and d.dst == hop)

    flows = []
    for k, f in enumerate(resolved["flows"]):
        app = f["app"]["kind"]
        if app not in APPS:
            raise PlanError(
                f"{name}: flow {f['name']!r} is a {app} flow; the testbed runs "
                f"{', '.join(APPS)} flows so far"
            )
        if app == "ping":
            flows.append(
                FlowPlan(
                    name=f["name"], src=f["from"], dst=f["to"], cc=None, kernel_cc=None,
                    app=app, size=_quantity("size", f["app"]["size"]),
                    start_ns=int(f["start"]), stop_ns=int(f["stop"]), port=BASE_PORT + k,
                    dscp=int(f.get("dscp", 0)),
                    ecn=False, interval_ns=_quantity("duration", f["app"]["interval"]),
                )
            )  # fmt: skip
            continue
        if app == "udp":
            payload = _quantity("size", f["app"]["packet_size"])
            rate = f["app"].get("rate")
            # Without a rate, the datagrams saturate the sender's first hop, as in the simulator.
            rate_bps = _quantity("rate", rate) if rate else first_hop_rate(f["from"], f["to"])
            flows.append(
                FlowPlan(
                    name=f["name"], src=f["from"], dst=f["to"], cc=None, kernel_cc=None,
                    app=app, size=payload, start_ns=int(f["start"]), stop_ns=int(f["stop"]),
                    port=BASE_PORT + k, dscp=int(f.get("dscp", 0)), ecn=False,
                    interval_ns=max(1, -(-(payload + UDP_HEADER) * 8 * 10**9 // rate_bps)),
                )
            )  # fmt: skip
            continue
        cc = f["cc"]["kind"]
        if cc not in KERNEL_CC:
            raise PlanError(
                f"{name}: flow {f['name']!r} uses {cc}, which has no Linux counterpart here; "
                f"the testbed runs {', '.join(KERNEL_CC)}"
            )
        if int(f["tcp"]["mss"]) != KERNEL_MSS:
            raise PlanError(
                f"{name}: flow {f['name']!r} asks for mss = {f['tcp']['mss']}; the testbed "
                f"uses the kernel's, {KERNEL_MSS} bytes on its 1500-byte MTU with timestamps"
            )
        for key, kernel_value in KERNEL_STACK.items():
            if f["tcp"].get(key) != kernel_value:
                raise PlanError(
                    f"{name}: flow {f['name']!r} asks for tcp.{key} = {f['tcp'].get(key)!r}; "
                    f"the testbed's kernel runs its own stack ({key} = {kernel_value!r})"
                )
        size = _quantity("size", f["app"]["size"]) if app in ("transfer", "periodic") else None
        period = _quantity("duration", f["app"]["period"]) if app == "periodic" else None
        spread = f["app"].get("random_start") if app == "periodic" else None
        offset = 0
        if spread:
            draw = random.Random(f"{sc.get('seed', 1)}/{f['name']}")
            offset = draw.randrange(_quantity("duration", spread))
        flows.append(
            FlowPlan(
                name=f["name"],
                src=f["from"],
                dst=f["to"],
                cc=cc,
                kernel_cc=KERNEL_CC[cc],
                app=app,
                size=size,
                start_ns=int(f["start"]),
                stop_ns=int(f["stop"]),
                port=BASE_PORT + k,
                dscp=int(f.get("dscp", 0)),
                ecn=bool(f["tcp"]["ecn"]),
                interval_ns=period,
                offset_ns=offset,
            )
        )
    metrics = sc.get("metrics", {})
    return Plan(
        run_id=run_id,
        scenario=name,
        duration_ns=_quantity("duration", sc["duration"]),
        interval_ns=_quantity("duration", metrics.get("interval", "100ms")),
        warmup_ns=_quantity("duration", metrics.get("warmup", "0s")),
        seed=int(sc.get("seed", 1)),
        nodes=nodes,
        hosts=list(sc.get("hosts", [])),
        addresses=addresses,
        directions=directions,
        routes=routes,
        flows=flows,
        resolved=resolved,
    )


def required_qdiscs(plan: Plan) -> set[str]:
    """The kernel qdiscs a plan needs besides the HTB shaper."""
    return {KERNEL_QDISC.get(d.qdisc["kind"], d.qdisc["kind"]) for d in plan.directions}


def required_ccs(plan: Plan) -> set[str]:
    return {f.kernel_cc for f in plan.flows if f.kernel_cc is not None}
