"""Setting up and tearing down a testbed plan on the machine's own kernel, over netlink
(pyroute2): namespaces, TUN devices, addresses, routes, sysctls, HTB shapers and qdiscs.

Needs root (CAP_NET_ADMIN and CAP_SYS_ADMIN for namespaces). The TUN devices are created by
opening ``/dev/net/tun`` inside each namespace and live as long as their descriptors, which
the wire holds; the namespaces carry the run id (the controller's pid first), so a run killed
with SIGKILL leaves namespaces that :func:`remove_stale` recognises and removes.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import os
import platform
import re
import shutil
import struct
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

from airlab.testbed.plan import KERNEL_QDISC, PREFIX, Direction, Plan

TUNSETIFF = 0x400454CA
IFF_TUN = 0x0001
IFF_NO_PI = 0x1000

#: Sysctls that shape a TCP experiment, recorded with every run.
TCP_SYSCTLS = (
    "net/ipv4/tcp_rmem",
    "net/ipv4/tcp_wmem",
    "net/ipv4/tcp_limit_output_bytes",
    "net/ipv4/tcp_ecn",
    "net/ipv4/tcp_sack",
    "net/ipv4/tcp_timestamps",
    "net/ipv4/tcp_no_metrics_save",
    "net/core/default_qdisc",
)

_STALE = re.compile(rf"^{PREFIX}(\d+)-[0-9a-f]+-\d+$")
#: A run's scratch directory (the agents' records), named after the run like its namespaces.
_STALE_DIR = re.compile(rf"^{PREFIX}-testbed-(\d+)-[0-9a-f]+-")


class TestbedError(RuntimeError):
    """The machine cannot run the testbed as asked; the message says what is missing."""


def _netns() -> Any:
    try:
        from pyroute2 import netns
    except ImportError as e:  # pragma: no cover - pyroute2 is a dependency
        raise TestbedError("the testbed needs pyroute2 (pip install pyroute2)") from e
    return netns


def netns_path(ns: str) -> str:
    """Where namespace ``ns`` is bound (what setns(2) opens)."""
    return os.path.join(_netns().NETNS_RUN_DIR, ns)


def make_run_dir(run_id: str) -> Path:
    """A new scratch directory for run ``run_id``, under the system's temporary directory. Its
    name carries the run id (the controller's pid first), so that :func:`remove_stale` finds
    it after the controller was killed before it could remove it."""
    return Path(tempfile.mkdtemp(prefix=f"{PREFIX}-testbed-{run_id}-"))


@contextlib.contextmanager
def inside(ns: str) -> Iterator[None]:
    """Run the block with this thread in namespace ``ns``: sockets and TUN devices it opens
    belong there and stay there."""
    netns = _netns()
    netns.pushns(ns)
    try:
        yield
    finally:
        netns.popns()


def require_root() -> None:
    if os.geteuid() != 0:
        raise TestbedError(
            "the testbed creates network namespaces and qdiscs: run it as root "
            "(sudo airlab testbed ...) or with CAP_NET_ADMIN and CAP_SYS_ADMIN"
        )


def cpu_split() -> tuple[int | None, set[int]]:
    """The CPU the wire runs on and the CPUs left to the traffic processes: the wire's thread
    spins near due times at real-time priority, and a receiver that it stops while holding its
    socket lock makes the kernel send stretch ACKs (docs/testbed.md, "Accuracy of the wire").
    With one CPU nothing is pinned."""
    cpus = os.sched_getaffinity(0)
    if len(cpus) < 2:
        return None, cpus
    wire = max(cpus)
    return wire, cpus - {wire}


def sysctl(name: str) -> str | None:
    """A sysctl's value as this thread's namespace sees it, or None if absent."""
    try:
        return Path("/proc/sys", name).read_text().strip()
    except OSError:
        return None


def set_sysctl(name: str, value: str) -> None:
    Path("/proc/sys", name).write_text(value)


def kernel_facts() -> dict[str, Any]:
    """The kernel and the sysctls that matter for a TCP experiment."""
    return {
        "kernel": platform.release(),
        "sysctls": {name.replace("/", "."): sysctl(name) for name in TCP_SYSCTLS},
    }


def config_hz() -> int | None:
    """The kernel's timer tick rate (``CONFIG_HZ``), from its build configuration in
    ``/proc/config.gz`` or ``/boot``; None if neither is there."""
    import gzip

    def text(path: str, gzipped: bool) -> TextIO:
        if gzipped:
            return gzip.open(path, "rt")
        return open(path)

    sources = [("/proc/config.gz", True), (f"/boot/config-{platform.release()}", False)]
    for path, gzipped in sources:
        with contextlib.suppress(OSError), text(path, gzipped) as f:
            for line in f:
                if line.startswith("CONFIG_HZ="):
                    return int(line.split("=", 1)[1])
    return None


def available_ccs() -> list[str]:
    value = sysctl("net/ipv4/tcp_available_congestion_control") or ""
    return value.split()


def probe_qdiscs(kinds: list[str]) -> dict[str, bool]:
    """Which of these qdiscs the kernel has: each is added to a scratch namespace's loopback."""
    require_root()
    netns = _netns()
    name = f"{PREFIX}{os.getpid()}-0-0"
    netns.create(name)
    found = {}
    try:
        with netlink(name) as ip:
            lo = ip.link_lookup(ifname="lo")[0]
            for kind in kinds:
                try:
                    _add_qdisc(ip, lo, kind, _PROBE_OPTIONS.get(kind, {}), root=True)
                    found[kind] = True
                    ip.tc("del", index=lo, root=True)
                except Exception:
                    found[kind] = False
    finally:
        netns.remove(name)
    return found


#: The IPv4 ethertype (linux/if_ether.h), which a filter matching IP headers names.
ETH_P_IP = 0x0800

#: Options for qdiscs that cannot be added without any (a shaper needs its rate).
_PROBE_OPTIONS: dict[str, dict[str, Any]] = {
    "tbf": {"rate": "1000000bit", "burst": 1514, "limit": 15140},
}


#: The FIFOs, which all take struct tc_fifo_qopt: a limit in packets (bytes for bfifo).
FIFOS = ("pfifo", "bfifo", "pfifo_head_drop")


@functools.cache
def _fifo_message() -> type:
    """A tc message whose options are always struct tc_fifo_qopt (pyroute2's tcmsg picks the
    options' layout by the kind's plugin, and has none for bfifo or pfifo_head_drop). It
    derives from nlmsg, not tcmsg: pyroute2 compiles a message's attribute table once per
    class and a subclass of a compiled class inherits the compiled table, not its own."""
    from pyroute2.netlink import nla, nlmsg

    class fifo_msg(nlmsg):
        prefix = "TCA_"
        fields = (("family", "B"), ("pad1", "B"), ("pad2", "H"), ("index", "i"),
                  ("handle", "I"), ("parent", "I"), ("info", "I"))  # fmt: skip
        nla_map = (("TCA_UNSPEC", "none"), ("TCA_KIND", "asciiz"), ("TCA_OPTIONS", "qopt"))

        class qopt(nla):
            fields = (("limit", "I"),)

    return fifo_msg


def add_fifo(ip: Any, index: int, kind: str, limit: int, parent: int, handle: int) -> None:
    """Add FIFO ``kind`` with ``limit`` under ``parent``. pyroute2's ``tc()`` knows only pfifo
    of the three: for a kind without a plugin of its own it silently replaces the parent with
    the root, which the shaper's htb holds, so the kernel refused bfifo and pfifo_head_drop
    with EEXIST ("File exists"), and it would not have encoded their limit either. The request
    is built here instead, as tc(8) sends it."""
    from pyroute2.netlink import NLM_F_ACK, NLM_F_CREATE, NLM_F_EXCL, NLM_F_REQUEST
    from pyroute2.netlink.rtnl import RTM_NEWQDISC

    msg = _fifo_message()()
    msg["index"], msg["handle"], msg["parent"] = index, handle, parent
    msg["attrs"] = [("TCA_KIND", kind), ("TCA_OPTIONS", {"limit": limit})]
    msg["header"]["type"] = RTM_NEWQDISC
    msg["header"]["flags"] = NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL
    ip.nlm_request_batch([msg])


def _add_qdisc(ip: Any, index: int, kind: str, params: dict[str, Any], root: bool) -> None:
    where: dict[str, Any] = {"root": True} if root else {"parent": 0x10001, "handle": 0x100000}
    if not params:  # probing whether the kernel has it
        ip.tc("add", kind, index=index, **where)
    elif kind in FIFOS:
        add_fifo(ip, index, kind, int(params["limit"]), parent=0x10001, handle=0x100000)
    elif kind == "tbf":
        # tc's tbf builds its own bfifo child of `limit` bytes.
        ip.tc("add", kind, index=index, **params, **where)
    elif kind == "htb" and not root:
        _add_htb(ip, index, params)
    else:
        raise TestbedError(
            f"the testbed does not set up {kind} yet (its parameters are not translated to "
            "the kernel's); it runs pfifo, bfifo and pfifo_head_drop"
        )


def kernel_qdisc_params(direction: Direction) -> tuple[str, dict[str, Any]]:
    """The kernel qdisc of a direction and its options, in tc's units (limit: packets for
    pfifo, bytes for bfifo)."""
    q = dict(direction.qdisc)
    kind = KERNEL_QDISC.get(q.pop("kind"), "")
    if not kind:
        raise TestbedError(f"{direction.name}: the kernel has no counterpart of this qdisc")
    from airlab import _core

    if kind == "bfifo":
        q["limit"] = int(_core.quantity("size", q["limit"]))
    if kind == "tbf":
        return kind, _kernel_tbf(direction.name, q)
    if kind == "htb":
        return kind, _kernel_htb(direction.name, q)
    return kind, q


def _kernel_htb(name: str, q: dict[str, Any]) -> dict[str, Any]:
    """A scenario's htb in tc's terms: rates in bit/s, buckets and quanta in bytes, and each
    class's leaf, which must be a FIFO (the testbed translates no other leaf yet)."""
    from airlab import _core

    def rate(value: Any) -> int:
        return int(_core.quantity("rate", value))

    def size(value: Any) -> int:
        return int(_core.quantity("size", value))

    classes = []
    for i, c in enumerate(q["classes"]):
        if "dst" in c:
            raise TestbedError(
                f"{name}: htb class {i} takes packets by destination ({c['dst']}); the testbed "
                "filters on the DS field only so far"
            )
        leaf = dict(c.get("qdisc", {"kind": "pfifo", "limit": 1000}))
        if leaf["kind"] not in ("pfifo", "bfifo", "pfifo_head_drop"):
            raise TestbedError(
                f"{name}: htb class {i}'s leaf is {leaf['kind']}; the testbed sets up "
                "FIFO leaves only"
            )
        if leaf["kind"] == "bfifo":
            leaf["limit"] = size(leaf["limit"])
        r = rate(c["rate"])
        ceil = rate(c.get("ceil", c["rate"]))
        classes.append({
            "rate": r, "ceil": ceil,
            "burst": size(c["burst"]) if "burst" in c else r // 8 // 1000 + 1600,
            "cburst": size(c["cburst"]) if "cburst" in c else ceil // 8 // 1000 + 1600,
            "prio": int(c.get("prio", 0)),
            "quantum": size(c["quantum"]) if "quantum" in c else None,
            "dscp": c.get("dscp"), "leaf": leaf,
        })  # fmt: skip
    parent = rate(q["rate"]) if "rate" in q else None
    burst = size(q["burst"]) if "burst" in q else (parent // 8 // 1000 + 1600 if parent else None)
    return {"rate": parent, "burst": burst, "r2q": int(q.get("r2q", 10)),
            "overhead": int(q.get("overhead", 14)), "classes": classes}  # fmt: skip


def _add_htb(ip: Any, index: int, spec: dict[str, Any]) -> None:
    """The htb of ``spec`` as the leaf of the link's shaper class 1:1: qdisc 10:, the parent
    class 10:1 if it has a rate, classes 10:10, 10:11, ... with FIFO leaves 20:, 21:, ..., and
    a u32 filter per class on the DS field (first class first; a class without `dscp` takes
    anything); packets no filter takes go out through htb's direct queue (`default 0`)."""
    qdisc, parent = 0x100000, 0x100000
    ip.tc("add", "htb", index=index, parent=0x10001, handle=qdisc, default=0, r2q=spec["r2q"])
    overhead = spec["overhead"]
    if spec["rate"]:
        parent = qdisc | 1
        ip.tc("add-class", "htb", index=index, parent=qdisc, handle=parent,
              rate=f"{spec['rate']}bit", ceil=f"{spec['rate']}bit", burst=spec["burst"],
              cburst=spec["burst"], overhead=overhead)  # fmt: skip
    for i, c in enumerate(spec["classes"]):
        classid = qdisc | (0x10 + i)
        extra = {"quantum": c["quantum"]} if c["quantum"] else {}
        ip.tc("add-class", "htb", index=index, parent=parent, handle=classid,
              rate=f"{c['rate']}bit", ceil=f"{c['ceil']}bit", burst=c["burst"],
              cburst=c["cburst"], prio=c["prio"], overhead=overhead, **extra)  # fmt: skip
        leaf = c["leaf"]
        add_fifo(ip, index, leaf["kind"], int(leaf["limit"]), parent=classid,
                 handle=(0x20 + i) << 16)  # fmt: skip
        # The TOS byte is the second of the IP header: bits 16-23 of its first word.
        tos = None if c["dscp"] is None else c["dscp"] << 2
        key = "0x0/0x0+0" if tos is None else f"0x{tos << 16:08x}/0x00fc0000+0"
        ip.tc("add-filter", "u32", index=index, parent=qdisc, prio=1 + i,
              protocol=ETH_P_IP, target=classid, keys=[key])  # fmt: skip


def _kernel_tbf(name: str, q: dict[str, Any]) -> dict[str, Any]:
    """tc's tbf options for a scenario's tbf: rate and burst in bytes, and the byte limit of
    the bfifo it builds. The kernel counts what the device carries: on the testbed's TUN
    devices IP packets without an Ethernet header, so the scenario must say ``overhead = 0``."""
    from airlab import _core

    child = q.get("qdisc", {"kind": "bfifo"})
    if child["kind"] != "bfifo":
        raise TestbedError(
            f"{name}: the testbed sets up tbf over its own bfifo only, not over {child['kind']}"
        )
    if int(q.get("overhead", 14)) != 0:
        raise TestbedError(
            f"{name}: the testbed's TUN devices carry IP packets with no Ethernet header, so the "
            "kernel's tbf counts IP bytes: set the tbf's overhead = 0 to compare"
        )
    rate_bps = int(_core.quantity("rate", q["rate"]))
    burst = int(_core.quantity("size", q["burst"])) if "burst" in q else None
    if burst is None:
        burst = max(1514, rate_bps // 8 // 1000)
    limit = int(_core.quantity("size", child.get("limit", "1514000B")))
    return {"rate": f"{rate_bps}bit", "burst": burst, "limit": limit}


def open_tun(ns: str, device: str) -> int:
    """Create TUN device ``device`` in namespace ``ns``; it lives while the descriptor is open."""
    with inside(ns):
        fd = os.open("/dev/net/tun", os.O_RDWR | os.O_CLOEXEC)
        try:
            fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", device.encode(), IFF_TUN | IFF_NO_PI))
        except OSError:
            os.close(fd)
            raise
    return fd


def build(plan: Plan, offloads: bool = False) -> dict[tuple[str, str], int]:
    """Create the plan's namespaces, TUN devices, addresses, routes and qdiscs. Returns the TUN
    descriptors by (node, device); on failure everything created so far is removed. With
    ``offloads`` the kernel's segmentation offload (GSO) stays on."""
    require_root()
    netns = _netns()
    fds: dict[tuple[str, str], int] = {}
    try:
        for node in plan.nodes:
            netns.create(plan.namespace(node))
        for d in plan.directions[::2]:
            for node in (d.src, d.dst):
                fds[(node, d.device)] = open_tun(plan.namespace(node), d.device)
        for node in plan.nodes:
            ns = plan.namespace(node)
            with inside(ns):
                set_sysctl("net/ipv4/ip_forward", "1")
                for scope in ("all", "default", "lo"):
                    set_sysctl(f"net/ipv4/conf/{scope}/rp_filter", "0")
            with netlink(ns) as ip:
                lo = ip.link_lookup(ifname="lo")[0]
                ip.link("set", index=lo, state="up")
                ip.addr("add", index=lo, address=plan.addresses[node], prefixlen=32)
                for (owner, device), _ in fds.items():
                    if owner == node:
                        idx = ip.link_lookup(ifname=device)[0]
                        # One packet per skb, as on the simulator's wire: without GSO a
                        # qdisc's packet limit counts packets, not 64 KB super-packets.
                        if not offloads:
                            ip.link("set", index=idx, gso_max_segs=1, gso_max_size=1500)
                        ip.link("set", index=idx, state="up")
                        with inside(ns):
                            set_sysctl(f"net/ipv4/conf/{device}/rp_filter", "0")
        for f in plan.flows:
            if f.ecn:
                with inside(plan.namespace(f.src)):
                    set_sysctl("net/ipv4/tcp_ecn", "1")
        for d in plan.directions:
            with netlink(plan.namespace(d.src)) as ip:
                idx = ip.link_lookup(ifname=d.device)[0]
                ip.tc("add", "htb", index=idx, handle=0x10000, default=1)
                ip.tc(
                    "add-class", "htb", index=idx, handle=0x10001, parent=0x10000,
                    rate=f"{d.rate_bps}bit", ceil=f"{d.rate_bps}bit",
                )  # fmt: skip
                kind, params = kernel_qdisc_params(d)
                _add_qdisc(ip, idx, kind, params, root=False)
        for r in plan.routes:
            with netlink(plan.namespace(r.node)) as ip:
                idx = ip.link_lookup(ifname=r.device)[0]
                ip.route(
                    "add", dst=f"{plan.addresses[r.dst]}/32", oif=idx,
                    prefsrc=plan.addresses[r.node],
                )  # fmt: skip
    except BaseException:
        teardown(plan, fds)
        raise
    return fds


def netlink(ns: str) -> Any:
    """A route-netlink socket bound to namespace ``ns`` (for repeated queries: opening one
    per query costs far more than the query)."""
    from pyroute2 import IPRoute

    with inside(ns):
        return IPRoute()


def leaf_qdisc_stats(ip: Any) -> dict[int, dict[str, int]]:
    """The counters of every link's leaf qdisc (the scenario's, below the shaper) in ``ip``'s
    namespace (``ip`` from :func:`netlink`), by the device's index, from one dump: packets and
    bytes sent, drops, backlog."""
    out = {}
    for msg in ip.get_qdiscs():
        if msg.get("handle") == 0x100000:
            basic = msg.get_attr("TCA_STATS2").get_attr("TCA_STATS_BASIC") or {}
            queue = msg.get_attr("TCA_STATS2").get_attr("TCA_STATS_QUEUE") or {}
            out[msg["index"]] = {
                "packets": int(basic.get("packets", 0)),
                "bytes": int(basic.get("bytes", 0)),
                "drops": int(queue.get("drops", 0)),
                "backlog_bytes": int(queue.get("backlog", 0)),
                "backlog_pkts": int(queue.get("qlen", 0)),
            }
    return out


def device_tx_dropped(ip: Any, index: int) -> int:
    """Packets device ``index`` dropped on transmit in ``ip``'s namespace since it was made. A
    TUN device drops a packet its qdisc hands it when the ring its reader drains is full
    (``tx_queue_len`` packets): below the qdisc, so the qdisc's own counters never see it."""
    (link,) = ip.get_links(index)
    stats = link.get_attr("IFLA_STATS64") or link.get_attr("IFLA_STATS") or {}
    return int(stats.get("tx_dropped", 0))


def teardown(plan: Plan, fds: dict[tuple[str, str], int]) -> None:
    """Close the TUN devices and remove the plan's namespaces; never raises."""
    for fd in fds.values():
        with contextlib.suppress(OSError):
            os.close(fd)
    fds.clear()
    netns = _netns()
    existing = set(netns.listnetns())
    for ns in plan.namespaces:
        if ns in existing:
            with contextlib.suppress(Exception):
                netns.remove(ns)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def remove_stale(everything: bool = False) -> list[str]:
    """Remove what testbed runs that are over (their controller is gone) left behind: their
    namespaces (with the TUN devices, qdiscs and routes in them) and their scratch
    directories; with ``everything``, those of live runs too. Returns the namespaces' names
    and the directories' paths. Their agents need no removing: they die with the controller."""
    netns = _netns()
    removed = []
    for name in netns.listnetns():
        m = _STALE.match(name)
        if m and (everything or not _alive(int(m.group(1)))):
            with contextlib.suppress(Exception):
                netns.remove(name)
                removed.append(name)
    for d in Path(tempfile.gettempdir()).iterdir():
        m = _STALE_DIR.match(d.name)
        if m and d.is_dir() and (everything or not _alive(int(m.group(1)))):
            shutil.rmtree(d, ignore_errors=True)
            removed.append(str(d))
    return removed
