"""One testbed run: set up the plan, carry the traffic, sample the sockets and queues every
interval, and give back a :class:`airlab.Result` with the simulator's summary schema and
table columns (what a real run cannot measure is null or NaN; docs/testbed.md lists it)."""

from __future__ import annotations

import contextlib
import json
import math
import os
import secrets
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np

from airlab import _core
from airlab.reproduce.runner import jain
from airlab.results import TABLES, Result, _frame
from airlab.schema import provenance, scenario_digest
from airlab.stats import SRTT, distribution
from airlab.testbed import agent, kernel
from airlab.testbed.kernel import TestbedError
from airlab.testbed.plan import Plan, make_plan, required_ccs, required_qdiscs

#: inet_diag's extension bit for struct tcp_info (1 << (INET_DIAG_INFO - 1)).
_TCP_INFO = 1 << 1
#: The extension bit that asks the congestion control for its state (INET_DIAG_VEGASINFO's,
#: which `ss` uses too): BBR answers with INET_DIAG_BBRINFO.
_CC_INFO = 1 << 2
#: BBR's state in the simulator's `cc.` columns, from INET_DIAG_BBRINFO.
_BBR_COLUMNS = ["cc.bbr_bw_mbps", "cc.bbr_min_rtt_ms", "cc.bbr_pacing_gain", "cc.bbr_cwnd_gain"]
#: Seconds a sink has to start listening.
_READY_TIMEOUT = 10.0


def new_run_id() -> str:
    """The controller's pid (for stale-run detection) and a random tag (for uniqueness)."""
    return f"{os.getpid()}-{secrets.token_hex(2)}"


def check_plan(plan: Plan) -> None:
    """Refuse a plan this kernel cannot run, naming what is missing."""
    kernel.require_root()
    missing_cc = sorted(required_ccs(plan) - set(kernel.available_ccs()))
    if missing_cc:
        raise TestbedError(
            f"this kernel lacks the congestion control(s) {', '.join(missing_cc)} "
            f"(it has: {', '.join(kernel.available_ccs())})"
        )
    qdiscs = sorted(required_qdiscs(plan) | {"htb"})
    found = kernel.probe_qdiscs(qdiscs)
    missing = [q for q in qdiscs if not found[q]]
    if missing:
        raise TestbedError(f"this kernel lacks the qdisc(s) {', '.join(missing)}")
    if not os.path.exists("/dev/net/tun"):
        raise TestbedError("the testbed's wire needs TUN devices (/dev/net/tun)")


class _Sampler:
    """Reads every sender's tcp_info and every queue's counters at each interval."""

    def __init__(self, plan: Plan) -> None:
        from pyroute2 import DiagSocket

        self.plan = plan
        self.diag: dict[str, Any] = {}
        tcp = [f for f in plan.flows if f.app not in ("ping", "udp")]
        for node in {f.src for f in tcp}:
            with kernel.inside(plan.namespace(node)):
                ds = DiagSocket()
                ds.bind()
            self.diag[node] = ds
        self.netlink = {d.src: kernel.netlink(plan.namespace(d.src)) for d in plan.directions}
        self.by_port = {f.port: f for f in tcp}
        self.flows: list[dict[str, Any]] = []
        self.queues: list[dict[str, Any]] = []

    def sample(self, t_ns: int) -> None:
        for node, ds in self.diag.items():
            for msg in ds.get_sock_stats(family=socket.AF_INET, extensions=_TCP_INFO | _CC_INFO):
                flow = self.by_port.get(msg["idiag_dport"])
                info = msg.get_attr("INET_DIAG_INFO")
                if flow is None or flow.src != node or info is None:
                    continue
                row = {"t": t_ns, "flow": flow.name, **dict(info)}
                bbr = msg.get_attr("INET_DIAG_BBRINFO")
                if bbr is not None:
                    row["bbr"] = dict(bbr)
                self.flows.append(row)
        for d in self.plan.directions:
            stats = kernel.qdisc_stats(self.netlink[d.src], d.device)
            self.queues.append({"t": t_ns, "queue": d.name, **stats})

    def close(self) -> None:
        for sock in [*self.diag.values(), *self.netlink.values()]:
            with contextlib.suppress(Exception):
                sock.close()


def _agent(plan: Plan, role: str, node: str, out: Path, **opts: Any) -> subprocess.Popen:
    # The agent runs as a script, not as a module of the package: it needs only the standard
    # library and pyroute2, and importing the package (numpy, pandas) first would delay its
    # parent-death signal by seconds, during which a killed controller leaves it running.
    args = [sys.executable, agent.__file__, role, "--parent", str(os.getpid()),
            "--netns", plan.namespace(node),
            "--out", str(out)]  # fmt: skip
    for key, value in opts.items():
        if value is not None:
            args += [f"--{key}", str(value)]
    return subprocess.Popen(
        args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def _wait_line(proc: subprocess.Popen, what: str, timeout: float) -> str:
    """The agent's first line of output, or an error with its stderr."""
    result: list[str] = []
    reader = threading.Thread(target=lambda: result.append(proc.stdout.readline()), daemon=True)
    reader.start()
    reader.join(timeout)
    if not result or not result[0]:
        proc.kill()
        raise TestbedError(f"{what} did not start: {proc.stderr.read().strip()[-500:]}")
    return result[0].strip()


def run(
    scenario: str | os.PathLike[str],
    set: Any = None,
    seed: int | None = None,
    progress: Any = None,
    offloads: bool = False,
) -> Result:
    """Run a wired scenario on this machine's kernel (needs root). ``set`` and ``seed`` as for
    :func:`airlab.run`; ``progress(fraction)`` is called about every second of the run.
    ``offloads`` keeps the kernel's segmentation offload (GSO), which airlab turns off so
    that qdisc limits count packets. Everything the run creates is removed when it ends, also
    on an exception or Ctrl-C."""
    import airlab

    resolved = airlab.validate(scenario, set=set)
    if seed is not None:
        resolved["scenario"]["seed"] = int(seed)
    kernel.require_root()
    kernel.remove_stale()
    plan = make_plan(resolved, new_run_id())
    check_plan(plan)
    fds = kernel.build(plan, offloads=offloads)
    procs: list[subprocess.Popen] = []
    stop_r, stop_w = os.pipe()
    wire_stats: dict[str, Any] = {}
    wire = None
    # The agents inherit the controller's CPUs: keep them and the sampler off the wire's.
    own_cpus = os.sched_getaffinity(0)
    wire_cpu, traffic_cpus = kernel.cpu_split()
    try:
        os.sched_setaffinity(0, traffic_cpus)
        # TCP sysctls are per namespace (a new one copies some from the machine's and takes
        # others from the kernel's defaults): record the senders'.
        with kernel.inside(plan.namespace(plan.flows[0].src if plan.flows else plan.nodes[0])):
            facts = {**kernel.kernel_facts(), "offloads": offloads, "wire_cpu": wire_cpu}
        wires = [
            (fds[(d.src, d.device)], fds[(d.dst, d.device)], d.delay_ns, d.rate_bps, d.loss,
             plan.seed * 1000 + i)
            for i, d in enumerate(plan.directions)
        ]  # fmt: skip
        wire = threading.Thread(
            target=lambda: wire_stats.setdefault(
                "wires", _core.delay_line(wires, stop_r, wire_cpu)
            ),
            name="airlab-wire",
            daemon=True,
        )
        wire.start()
        with tempfile.TemporaryDirectory(prefix="airlab-testbed-") as tmp:
            records = _carry(plan, Path(tmp), procs, progress)
            sampler_rows = records.pop("samples")
        os.write(stop_w, b"x")
        wire.join()
    finally:
        os.sched_setaffinity(0, own_cpus)
        for p in procs:
            if p.poll() is None:
                p.kill()
        if wire is not None and wire.is_alive():
            os.write(stop_w, b"x")
            wire.join(5)
        os.close(stop_r)
        os.close(stop_w)
        kernel.teardown(plan, fds)
    return _result(plan, facts, records, sampler_rows, wire_stats.get("wires", []))


def _carry(plan: Plan, tmp: Path, procs: list[subprocess.Popen], progress: Any) -> dict[str, Any]:
    """Start the sinks and senders, sample until the scenario's end, collect the records."""
    sinks, senders, pings = {}, {}, {}
    for f in plan.flows:
        if f.app == "ping":
            out = tmp / f"ping-{f.port}.json"
            probe = _agent(plan, "ping", f.src, out, dst=plan.addresses[f.dst], port=f.port,
                           size=f.size, interval=f.interval_ns, start=f.start_ns, stop=f.stop_ns,
                           until=plan.duration_ns, tos=f.dscp << 2)  # fmt: skip
            pings[f.name] = (probe, out)
            continue
        out = tmp / f"sink-{f.port}.json"
        udp, periodic = f.app == "udp", f.app == "periodic"
        roles = (
            ("udpsink", "udpsend") if udp else ("psink", "psend") if periodic else ("sink", "send")
        )
        sink = _agent(plan, roles[0], f.dst, out, addr=plan.addresses[f.dst],
                      port=f.port, interval=plan.interval_ns, until=plan.duration_ns)  # fmt: skip
        sinks[f.name] = (sink, out)
        out = tmp / f"send-{f.port}.json"
        sender = _agent(plan, roles[1], f.src, out, dst=plan.addresses[f.dst], port=f.port,
                        cc=f.kernel_cc, start=f.start_ns + f.offset_ns, stop=f.stop_ns,
                        size=f.size, interval=f.interval_ns, tos=f.dscp << 2)  # fmt: skip
        senders[f.name] = (sender, out)
    agents = [*sinks.items(), *senders.items(), *pings.items()]
    procs.extend(p for _, (p, _) in agents)
    for name, (p, _) in agents:
        if _wait_line(p, f"an agent of flow {name!r}", _READY_TIMEOUT) != "ready":
            raise TestbedError(f"an agent of flow {name!r} failed to start")
    # Every agent is set up: time starts now, for all of them at once.
    epoch = time.monotonic_ns() + 20_000_000
    for _, (p, _) in agents:
        p.stdin.write(f"{epoch}\n")
        p.stdin.flush()
    sampler = _Sampler(plan)
    per_second = max(1, 1_000_000_000 // plan.interval_ns)
    # The sampler runs only when the traffic's CPUs are otherwise idle. As an ordinary thread,
    # woken every interval for about 4 ms of netlink dumps, it preempted receivers inside
    # recvmsg, which own their socket's lock: the kernel parked the arriving segments in the
    # socket backlog and acknowledged 3.6 ms of them in one stretch ACK, and the sender's
    # answering burst overflowed shallow queues every 100 ms (CUBIC, 100 Mbit/s, 20 ms,
    # 0.25 BDP: 80-88 Mbit/s instead of 94-95, docs/validation.md).
    os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    try:
        k = 1
        while True:
            t = k * plan.interval_ns
            if t > plan.duration_ns:
                break
            delay = (epoch + t - time.monotonic_ns()) / 1e9
            if delay > 0:
                time.sleep(delay)
            sampler.sample(t)
            if progress is not None and k % per_second == 0:
                progress(t / plan.duration_ns)
            k += 1
    finally:
        os.sched_setscheduler(0, os.SCHED_OTHER, os.sched_param(0))
        sampler.close()
    # The last sample is taken: a bulk receiver may close now (it waits for this line).
    for p, _ in sinks.values():
        with contextlib.suppress(OSError):
            p.stdin.write("end\n")
            p.stdin.flush()
    for p, _ in [*senders.values(), *pings.values()]:
        try:
            p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            p.kill()
    for p, _ in sinks.values():
        # A TCP receiver ends when its sender closes, a UDP one at the end of the run; one that
        # has not is told to write its record now.
        try:
            p.wait(timeout=3)
        except subprocess.TimeoutExpired:
            p.terminate()
        try:
            p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            p.kill()

    def read(path: Path, proc: subprocess.Popen, what: str) -> dict[str, Any]:
        if not path.exists():
            err = proc.stderr.read().strip()[-500:] if proc.stderr else ""
            raise TestbedError(f"{what} wrote no record: {err}")
        return json.loads(path.read_text())

    return {
        "sinks": {n: read(out, p, f"the receiver of {n!r}") for n, (p, out) in sinks.items()},
        "senders": {n: read(out, p, f"the sender of {n!r}") for n, (p, out) in senders.items()},
        "pings": {n: read(out, p, f"the ping of {n!r}") for n, (p, out) in pings.items()},
        "samples": {"flows": sampler.flows, "queues": sampler.queues},
    }


def _completions(f: Any, sink: dict[str, Any], sender: dict[str, Any]) -> list[tuple[int, int]]:
    """(start, end) of each connection of a transfer or periodic flow that delivered all its
    bytes: from the sender's connect to the receiver's last byte."""
    if f.app == "transfer":
        if sink["bytes"] >= f.size:
            return [(sender["started_ns"], sink["last_byte_ns"])]
        return []
    if f.app == "periodic":
        received = sink["connections"]
        out = []
        for conn in sender["connections"]:
            got = received.get(str(conn["port"]))
            if got and got["bytes"] >= f.size:
                out.append((conn["started_ns"], got["last_byte_ns"]))
        return out
    return []


def _fct_stats(fcts: list[float]) -> dict[str, float]:
    """Flow completion times summarized as the simulator does."""
    stats = distribution(fcts, {"min": 0.0, "mean": 0, "p50": 0.5, "p95": 0.95, "max": 1.0}) or {}
    return {"count": len(fcts), **stats}


def _tcp_columns(info: dict[str, Any]) -> dict[str, float]:
    """A sample of Linux's tcp_info in the simulator's flow columns (NaN before the socket
    exists). Linux's in-flight count is packets_out - (sacked_out + lost_out) + retrans_out."""
    if not info:
        return {}
    ssthresh = info["tcpi_snd_ssthresh"]
    in_flight = (
        info["tcpi_unacked"] - info["tcpi_sacked"] - info["tcpi_lost"] + info["tcpi_retrans"]
    )
    return {
        "cwnd_pkts": info["tcpi_snd_cwnd"],
        "ssthresh_pkts": math.nan if ssthresh >= 0x7FFFFFFF else ssthresh,
        "srtt_ms": info["tcpi_rtt"] / 1e3,
        "rttvar_ms": info["tcpi_rttvar"] / 1e3,
        "min_rtt_ms": info["tcpi_min_rtt"] / 1e3,
        "inflight_bytes": in_flight * info["tcpi_snd_mss"],
        "pacing_rate_mbps": info["tcpi_pacing_rate"] * 8 / 1e6,
        "delivery_rate_mbps": info["tcpi_delivery_rate"] * 8 / 1e6,
        "retransmits": info["tcpi_total_retrans"],
        **_bbr_columns(info.get("bbr")),
    }


def _bbr_columns(bbr: dict[str, int] | None) -> dict[str, float]:
    """Linux BBR's state (`tcp_bbr_info`: bandwidth in payload bytes/s, min_rtt in µs, gains
    in 1/256) in the simulator's BBR columns."""
    if not bbr:
        return {}
    bw = (bbr["bbr_bw_hi"] << 32 | bbr["bbr_bw_lo"]) * 8 / 1e6
    return dict(zip(_BBR_COLUMNS, (bw, bbr["bbr_min_rtt"] / 1e3, bbr["bbr_pacing_gain"] / 256,
                                   bbr["bbr_cwnd_gain"] / 256), strict=True))  # fmt: skip


def _flows(plan: Plan, records: dict[str, Any], samples: list[dict[str, Any]]):
    """The flow table and the flows' summaries. Goodput is what the receiver read in each
    interval, as in the simulator; the rest comes from the sender's tcp_info."""
    columns = TABLES["flows"][0]
    if any("bbr" in row for row in samples):
        columns = [*columns, *_BBR_COLUMNS]
    rows: dict[str, list] = {c: [] for c in columns}
    fcts: dict[str, list] = {c: [] for c in TABLES["fcts"][0]}
    summaries = []
    span_s = (plan.duration_ns - plan.warmup_ns) / 1e9
    for f in plan.flows:
        if f.app == "ping":
            summaries.append(_ping_summary(plan, f, records["pings"][f.name]))
            continue
        sink, sender = records["sinks"][f.name], records["senders"][f.name]
        info = {row["t"]: row for row in samples if row["flow"] == f.name}
        goodputs, delivered, prev_b = [], 0, 0
        for t, b in sink["samples"]:
            rate = (b - prev_b) * 8 / (plan.interval_ns / 1e9) / 1e6
            if t > plan.warmup_ns:
                goodputs.append(rate)
                delivered += b - prev_b
            prev_b = b
            tcp = _tcp_columns(info.get(t, {}))
            for c in columns:
                rows[c].append(tcp.get(c, math.nan))
            rows["time_s"][-1], rows["flow"][-1], rows["goodput_mbps"][-1] = t / 1e9, f.name, rate
        srtt = [r["tcpi_rtt"] / 1e3 for t, r in info.items() if t > plan.warmup_ns]
        last = info[max(info)] if info else {}
        # Counters cover the measurement window, as the simulator's: less their value at the
        # end of the warm-up.
        before = [r for t, r in info.items() if t <= plan.warmup_ns]
        at_warmup = before[-1] if before else {}
        counted = {k: v - at_warmup.get(k, 0) for k, v in last.items() if isinstance(v, int)}

        done = _completions(f, sink, sender)
        for k, (start, end) in enumerate(done):
            for c, v in (("start_s", start / 1e9), ("flow", f.name), ("conn", k),
                         ("end_s", end / 1e9), ("fct_s", (end - start) / 1e9),
                         ("bytes", f.size)):  # fmt: skip
                fcts[c].append(v)
        in_window = [(end - start) / 1e9 for start, end in done if start > plan.warmup_ns]
        segs, retrans = counted.get("tcpi_data_segs_out"), counted.get("tcpi_total_retrans")
        summaries.append({
            "name": f.name, "src": f.src, "dst": f.dst, "cc": f.cc, "app": f.app,
            "bytes_delivered": delivered,
            "goodput_mbps": delivered * 8 / span_s / 1e6 if span_s > 0 else None,
            "goodput_stats_mbps": distribution(goodputs, {"median": 0.5, "p95": 0.95}),
            "rtt_ms": None,
            "owd_ms": None,  # TCP data is not timestamped one way on the kernel
            "srtt_ms": distribution(srtt, SRTT),
            "srtt_jitter_ms": float(np.mean(np.abs(np.diff(srtt)))) if len(srtt) > 1 else None,
            "data_segs_out": segs,
            "retransmits": retrans,
            "retransmit_rate": retrans / segs if segs and retrans is not None else None,
            "lost": None,
            "queue_drops": None, "local_drops": None, "undos": None, "spurious_rtos": None,
            "wire_lost": None,
            "ecn_marks": counted.get("tcpi_delivered_ce"),
            "jitter_ms": None,
            "fct_s": _fct_stats(in_window) if in_window else None,
        })  # fmt: skip
        if f.app == "udp":
            summaries[-1].update(_udp_summary(plan, sink, sender))
    return rows, fcts, summaries


def _udp_summary(plan: Plan, sink: dict[str, Any], sender: dict[str, Any]) -> dict[str, Any]:
    """A UDP flow's counts in the measurement window, as the simulator gives them: datagrams
    sent after the warm-up and those of them received, the loss rate up to the highest one
    received, and their one-way delay."""
    start, gap = sender["start_ns"], sender["interval_ns"]
    first = max(0, -(-(plan.warmup_ns - start) // gap)) if plan.warmup_ns > start else 0
    window = [(seq, owd) for seq, sent, owd in sink["arrivals"] if sent > plan.warmup_ns]
    due = max((seq for seq, _ in window), default=first - 1) + 1 - first
    owd = distribution([ns / 1e6 for _, ns in window])
    return {
        "cc": None, "retransmits": 0, "ecn_marks": 0, "srtt_ms": None,
        "srtt_jitter_ms": None, "data_segs_out": 0, "retransmit_rate": None, "owd_ms": owd,
        "udp": {
            "sent": max(0, sender["sent"] - first), "received": len(window),
            "loss_rate": 1 - len(window) / due if due > 0 else 0.0, "owd_ms": owd,
        },
    }  # fmt: skip


def _ping_summary(plan: Plan, f: Any, record: dict[str, Any]) -> dict[str, Any]:
    """A ping flow as the simulator summarizes one: the RTT of the replies to requests sent in
    the measurement window and their jitter (mean absolute difference of consecutive RTTs);
    also the requests without a reply by the end of the run (lost, or still in flight)."""
    window = [(t, rtt) for _, t, rtt in record["sent"] if t > plan.warmup_ns]
    rtts = [rtt / 1e6 for _, rtt in window if rtt is not None]
    jitter = float(np.mean(np.abs(np.diff(rtts)))) if len(rtts) > 1 else None
    dist = distribution(rtts)
    return {
        "name": f.name, "src": f.src, "dst": f.dst, "cc": None, "app": "ping",
        "bytes_delivered": 0, "goodput_mbps": 0.0, "goodput_stats_mbps": None,
        "rtt_ms": dist, "owd_ms": None, "srtt_ms": None, "srtt_jitter_ms": None, "retransmits": 0,
        "data_segs_out": 0, "retransmit_rate": None, "lost": None,
        "unanswered": sum(1 for _, rtt in window if rtt is None),
        "queue_drops": None, "local_drops": None, "undos": None, "spurious_rtos": None,
        "wire_lost": None, "ecn_marks": 0, "jitter_ms": jitter, "fct_s": None,
    }  # fmt: skip


def _pings(plan: Plan, records: dict[str, Any]) -> dict[str, list]:
    """The pings table: one row per reply, at its arrival, as the simulator's."""
    rows: dict[str, list] = {c: [] for c in TABLES["pings"][0]}
    replies = [
        ((sent + rtt) / 1e9, f.name, seq, rtt / 1e6)
        for f in plan.flows
        if f.app == "ping"
        for seq, sent, rtt in records["pings"][f.name]["sent"]
        if rtt is not None
    ]
    for row in sorted(replies, key=lambda r: r[0]):
        for c, v in zip(rows, row, strict=True):
            rows[c].append(v)
    return rows


def _queues(plan: Plan, samples: list[dict[str, Any]]):
    """The queue table and the queues' summaries, from the leaf qdiscs' counters."""
    rows: dict[str, list] = {c: [] for c in TABLES["queues"][0]}
    summaries = []
    for d in plan.directions:
        mine = [r for r in samples if r["queue"] == d.name]
        prev_drops = 0
        for r in mine:
            for c in rows:
                rows[c].append(math.nan)
            rows["time_s"][-1], rows["queue"][-1] = r["t"] / 1e9, d.name
            rows["backlog_pkts"][-1] = r["backlog_pkts"]
            rows["backlog_bytes"][-1] = r["backlog_bytes"]
            rows["drops"][-1] = r["drops"] - prev_drops
            prev_drops = r["drops"]
        window = [r for r in mine if r["t"] > plan.warmup_ns]
        start = next((r for r in reversed(mine) if r["t"] <= plan.warmup_ns), None)
        base = {"packets": 0, "drops": 0} if start is None else start
        last = mine[-1] if mine else None
        backlog = [r["backlog_pkts"] for r in window]
        summaries.append({
            "name": d.name, "node": d.src, "link": d.link, "kind": d.qdisc["kind"],
            "enqueued": None,
            "dequeued": last["packets"] - base["packets"] if last else None,
            "drops": last["drops"] - base["drops"] if last else None,
            "marks": None,
            # Below the leaf qdisc there is only the TUN device, which the wire drains.
            "device_drops": 0, "device_marks": 0,
            "backlog_pkts": {"max": float(max(backlog)), "mean": float(np.mean(backlog))}
            if backlog else None,
            "sojourn_ms": None,
        })  # fmt: skip
    return rows, summaries


def _links(plan: Plan, wires: list[dict[str, Any]], samples: list[dict[str, Any]]):
    """Each direction's throughput in the measurement window, from the bytes its qdisc handed
    to the wire (as the simulator counts the bytes on its wire), with the wire's losses and
    how late it delivered packets over the whole run."""
    span_s = (plan.duration_ns - plan.warmup_ns) / 1e9
    out = []
    for d, w in zip(plan.directions, wires or [{}] * len(plan.directions), strict=True):
        mine = [r for r in samples if r["queue"] == d.name]
        start = next((r["bytes"] for r in reversed(mine) if r["t"] <= plan.warmup_ns), 0)
        carried = (mine[-1]["bytes"] - start) * 8 / span_s if mine and span_s > 0 else math.nan
        late = {k.split("_")[1]: w.get(k) for k in ("late_mean_us", "late_p50_us", "late_p99_us",
                                                     "late_max_us")}  # fmt: skip
        out.append({
            "name": d.name, "link": d.link, "from": d.src, "to": d.dst,
            "rate_mbps": d.rate_bps / 1e6, "throughput_mbps": carried / 1e6,
            "utilization": carried / d.rate_bps, "wire_lost": w.get("dropped"),
            "wire_late_us": late, "wire_realtime": w.get("realtime"),
        })  # fmt: skip
    return out


def _result(plan: Plan, facts: dict[str, Any], records: dict[str, Any],
            samples: dict[str, Any], wires: list[dict[str, Any]]) -> Result:  # fmt: skip
    """The run as the simulator reports one: the summary schema and the long-format tables."""
    flow_rows, fct_rows, flows = _flows(plan, records, samples["flows"])
    queue_rows, queues = _queues(plan, samples["queues"])
    rates = [f["goodput_mbps"] for f in flows if f["goodput_mbps"]]
    summary = {
        "provenance": provenance(plan.seed, scenario_digest(plan.resolved)),
        "scenario": plan.scenario,
        "seed": plan.seed,
        "duration_s": plan.duration_ns / 1e9,
        "warmup_s": plan.warmup_ns / 1e9,
        "backend": "linux",
        "linux": facts,
        "engine": None,
        "flows": flows,
        "queues": queues,
        "links": _links(plan, wires, samples["queues"]),
        "wifi": [],
        "jain_index": jain(rates) if rates else None,
    }
    tables = {name: _frame(None, cols, key) for name, (cols, key) in TABLES.items()}
    tables["flows"] = _frame(flow_rows, TABLES["flows"][0], "flow")
    tables["queues"] = _frame(queue_rows, TABLES["queues"][0], "queue")
    tables["fcts"] = _frame(fct_rows, TABLES["fcts"][0], "flow")
    tables["pings"] = _frame(_pings(plan, records), TABLES["pings"][0], "flow")
    return Result(summary=summary, scenario=plan.resolved, source=None, **tables)
