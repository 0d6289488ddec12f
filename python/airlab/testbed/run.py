"""One testbed run: set up the plan, carry the traffic, sample the sockets and queues every
interval, and give back a :class:`airlab.Result` with the simulator's summary schema and
table columns (what a real run cannot measure is null or NaN; docs/testbed.md lists it)."""

from __future__ import annotations

import contextlib
import json
import math
import os
import secrets
import selectors
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

import numpy as np

from airlab import _core
from airlab.reproduce.runner import jain
from airlab.results import TABLES, Result
from airlab.schema import provenance, scenario_digest
from airlab.stats import SRTT, distribution
from airlab.tables import frame
from airlab.testbed import agent, fidelity, kernel
from airlab.testbed.kernel import TestbedError
from airlab.testbed.plan import Plan, make_plan, required_ccs, required_qdiscs

#: inet_diag's extension bit for struct tcp_info (1 << (INET_DIAG_INFO - 1)).
_TCP_INFO = 1 << 1
#: The extension bit that asks the congestion control for its state (INET_DIAG_VEGASINFO's,
#: which `ss` uses too): BBR answers with INET_DIAG_BBRINFO.
_CC_INFO = 1 << 2
#: BBR's state in the simulator's `cc.` columns, from INET_DIAG_BBRINFO.
_BBR_COLUMNS = ["cc.bbr_bw_mbps", "cc.bbr_min_rtt_ms", "cc.bbr_pacing_gain", "cc.bbr_cwnd_gain"]
#: Seconds an agent may sleep before it is ready without using or waiting for a CPU: such an
#: agent waits for something that will not come. One slowed by a loaded machine is runnable
#: (waiting for a CPU) or in disk sleep, which never counts, so there is no deadline for it.
_STUCK_S = 60.0
#: Seconds between two start-up progress reports.
_REPORT_S = 5.0


class DegradedRunError(TestbedError):
    """A run asked to be strict was degraded (see :mod:`airlab.testbed.fidelity`); the result
    is ``.result``, its summary's ``fidelity`` says what failed."""

    def __init__(self, result: Result) -> None:
        super().__init__(fidelity.warning_text(result.summary["fidelity"]))
        self.result = result


class DegradedRunWarning(UserWarning):
    """A testbed run's numbers are not the kernel's alone: its summary's ``fidelity`` says
    which checks failed."""


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
    hz = kernel.config_hz()
    for f in plan.resolved["flows"]:
        asked = f.get("tcp", {}).get("timer_hz")
        if hz is not None and asked is not None and asked != hz:
            raise TestbedError(
                f"flow {f['name']!r} asks for tcp.timer_hz = {asked}; this kernel's timers tick "
                f"at HZ = {hz} (CONFIG_HZ), which a run cannot change"
            )


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
        # Per node, its directions by their device's index: one qdisc dump a node per sample.
        self.devices: dict[str, dict[int, Any]] = {}
        for d in plan.directions:
            index = self.netlink[d.src].link_lookup(ifname=d.device)[0]
            self.devices.setdefault(d.src, {})[index] = d
        self.by_port = {f.port: f for f in tcp}
        self.flows: list[dict[str, Any]] = []
        self.queues: list[dict[str, Any]] = []
        #: Each direction's device drops (:func:`kernel.device_tx_dropped`) when the measurement
        #: window began and when the run ended: read twice, not at every sample.
        self.device_drops: dict[str, dict[str, int]] = {}

    def count_device_drops(self, when: str) -> None:
        """Record every direction's device drops now, as ``when`` ("start" or "end")."""
        self.device_drops[when] = {
            d.name: kernel.device_tx_dropped(self.netlink[node], index)
            for node, devices in self.devices.items()
            for index, d in devices.items()
        }

    def sample(self, t_ns: int, epoch: int) -> None:
        """The samples of boundary ``t_ns``; each row records when it was read (``taken``,
        since ``epoch``), which tells a late one from an on-time one."""
        for node, ds in self.diag.items():
            taken = time.monotonic_ns() - epoch
            for msg in ds.get_sock_stats(family=socket.AF_INET, extensions=_TCP_INFO | _CC_INFO):
                flow = self.by_port.get(msg["idiag_dport"])
                info = msg.get_attr("INET_DIAG_INFO")
                if flow is None or flow.src != node or info is None:
                    continue
                row = {"t": t_ns, "taken": taken, "flow": flow.name, **dict(info)}
                bbr = msg.get_attr("INET_DIAG_BBRINFO")
                if bbr is not None:
                    row["bbr"] = dict(bbr)
                self.flows.append(row)
        for node, devices in self.devices.items():
            taken = time.monotonic_ns() - epoch
            stats = kernel.leaf_qdisc_stats(self.netlink[node])
            for index, d in devices.items():
                if index not in stats:
                    raise TestbedError(f"{d.name}: the qdisc on {d.device} is gone")
                self.queues.append({"t": t_ns, "taken": taken, "queue": d.name, **stats[index]})

    def close(self) -> None:
        for sock in [*self.diag.values(), *self.netlink.values()]:
            with contextlib.suppress(Exception):
                sock.close()


def _agent(plan: Plan, role: str, node: str, out: Path, **opts: Any) -> subprocess.Popen:
    # The agent runs as a script, not as a module of the package: it needs only the standard
    # library, and importing the package (numpy, pandas) first would delay its parent-death
    # signal by seconds, during which a killed controller leaves it running.
    args = [sys.executable, agent.__file__, role, "--parent", str(os.getpid()),
            "--netns", kernel.netns_path(plan.namespace(node)),
            "--out", str(out)]  # fmt: skip
    for key, value in opts.items():
        if value is not None:
            args += [f"--{key}", str(value)]
    return subprocess.Popen(
        args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def _stdin(proc: subprocess.Popen) -> IO[str]:
    """An agent's standard input (:func:`_agent` starts every agent with pipes)."""
    if proc.stdin is None:
        raise RuntimeError(f"agent {proc.pid} was started without a pipe to its stdin")
    return proc.stdin


def _stdout(proc: subprocess.Popen) -> IO[str]:
    """An agent's standard output (:func:`_agent` starts every agent with pipes)."""
    if proc.stdout is None:
        raise RuntimeError(f"agent {proc.pid} was started without a pipe from its stdout")
    return proc.stdout


def _stderr(proc: subprocess.Popen) -> str:
    """The end of a finished agent's stderr, or a sentence saying it wrote none."""
    err = proc.stderr.read().strip() if proc.stderr else ""
    return err[-1500:] if err else "it wrote nothing to stderr"


def _exit_text(code: int) -> str:
    if code < 0:
        return f"was killed by {signal.Signals(-code).name}"
    return f"exited with status {code}"


def _activity(pid: int) -> tuple[int, str] | None:
    """(ns it has run or waited to run, its state letter) of a live process, None if gone."""
    try:
        run, wait, _ = Path(f"/proc/{pid}/schedstat").read_text().split()
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, ValueError, IndexError):
        return None
    return int(run) + int(wait), state


#: Seconds an agent may sleep at the end of the run, using and waiting for no CPU, before it
#: is killed (it waits for something that will not come: a receiver whose sender never
#: connected).
_END_STUCK_S = 3.0


def _reap(procs: list[subprocess.Popen]) -> None:
    """Wait for the agents to exit, however long a loaded machine makes that take; kill one
    that sleeps :data:`_END_STUCK_S` without using or waiting for a CPU."""
    moved = {p.pid: (-1, time.monotonic()) for p in procs}
    live = list(procs)
    while live:
        now = time.monotonic()
        for p in list(live):
            act = None if p.poll() is not None else _activity(p.pid)
            if act is None:
                p.wait()
                live.remove(p)
            elif act[0] != moved[p.pid][0] or act[1] in ("R", "D"):
                moved[p.pid] = (act[0], now)
            elif now - moved[p.pid][1] > _END_STUCK_S:
                p.kill()
                p.wait()
                live.remove(p)
        time.sleep(0.05)


def _await_ready(agents: list[tuple[str, subprocess.Popen]],
                 status: Callable[[str], None] | None) -> None:  # fmt: skip
    """Wait until every agent has said ``ready``, however long a loaded machine makes that
    take, reporting progress every few seconds. An agent that exits first, says something
    else, or sleeps :data:`_STUCK_S` without using or waiting for a CPU fails the run with an
    error naming it and quoting its stderr."""
    sel = selectors.DefaultSelector()
    for what, p in agents:
        sel.register(_stdout(p), selectors.EVENT_READ, (what, p))
    pending = {p.pid: (what, p) for what, p in agents}
    # Per agent: its CPU activity and when that last changed (or it was runnable).
    moved = {pid: (-1, time.monotonic()) for pid in pending}
    report = time.monotonic() + _REPORT_S
    try:
        while pending:
            for key, _ in sel.select(timeout=0.5):
                what, p = key.data
                line = p.stdout.readline()
                sel.unregister(p.stdout)
                del pending[p.pid]
                if line.strip() == "ready":
                    continue
                if not line:
                    p.wait()
                    raise TestbedError(
                        f"{what} {_exit_text(p.returncode)} before it was ready: {_stderr(p)}"
                    )
                p.kill()
                p.wait()
                raise TestbedError(f"{what} said {line.strip()!r} instead of ready: {_stderr(p)}")
            now = time.monotonic()
            for pid, (what, p) in pending.items():
                act = _activity(pid)
                if act is None:
                    continue  # it exited: its stdout's end is read next round
                busy, state = act
                if busy != moved[pid][0] or state in ("R", "D"):
                    moved[pid] = (busy, now)
                elif now - moved[pid][1] > _STUCK_S:
                    p.kill()
                    p.wait()
                    raise TestbedError(
                        f"{what} has slept {_STUCK_S:g} s without using or waiting for a CPU and "
                        f"is not ready (stuck): {_stderr(p)}"
                    )
            if status is not None and now >= report and pending:
                report = now + _REPORT_S
                waiting = ", ".join(what for what, _ in list(pending.values())[:3])
                more = f" and {len(pending) - 3} more" if len(pending) > 3 else ""
                status(f"starting the traffic: {len(agents) - len(pending)} of {len(agents)} "
                       f"agents ready; waiting for {waiting}{more}")  # fmt: skip
    finally:
        sel.close()


def run(
    scenario: str | os.PathLike[str],
    set: Any = None,
    seed: int | None = None,
    progress: Callable[[float], None] | None = None,
    offloads: bool = False,
    strict: bool = False,
    status: Callable[[str], None] | None = None,
) -> Result:
    """Run a wired scenario on this machine's kernel (needs root). ``set`` and ``seed`` as for
    :func:`airlab.run`; ``progress(fraction)`` is called about every second of the run and
    ``status(text)`` while the traffic processes start. ``offloads`` keeps the kernel's
    segmentation offload (GSO), which airlab turns off so that qdisc limits count packets.
    Everything the run creates is removed when it ends, also on an exception or Ctrl-C.

    Every run checks its own fidelity (summary ``fidelity``, :mod:`airlab.testbed.fidelity`):
    a degraded run warns (:class:`DegradedRunWarning`), or with ``strict`` raises
    :class:`DegradedRunError`, which carries the result."""
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
    scratch = None
    # The agents inherit the controller's CPUs: keep them off the wire's.
    own_cpus = os.sched_getaffinity(0)
    wire_cpu, traffic_cpus = kernel.cpu_split()
    try:
        scratch = kernel.make_run_dir(plan.run_id)
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
        records = _carry(plan, scratch, procs, progress, status, own_cpus, wire_cpu)
        sampler_rows, cpu = records.pop("samples"), records.pop("cpu")
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
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)
    result = _result(plan, facts, records, sampler_rows, wire_stats.get("wires", []), cpu)
    if result.summary["fidelity"]["degraded"]:
        if strict:
            raise DegradedRunError(result)
        warnings.warn(fidelity.warning_text(result.summary["fidelity"]), DegradedRunWarning,
                      stacklevel=2)  # fmt: skip
    return result


def _describe(plan: Plan, role: str, f: Any, node: str) -> str:
    """An agent as an error names it."""
    return f"the {role} of flow {f.name!r} (on {node}, namespace {plan.namespace(node)})"


def _carry(plan: Plan, tmp: Path, procs: list[subprocess.Popen],
           progress: Callable[[float], None] | None, status: Callable[[str], None] | None,
           cpus: set[int], wire_cpu: int | None) -> dict[str, Any]:  # fmt: skip
    """Start the sinks and senders, sample until the scenario's end, collect the records and
    what the run's CPUs (``cpus``) gave it."""
    sinks, senders, pings = {}, {}, {}
    names: dict[int, str] = {}
    for f in plan.flows:
        if f.app == "ping":
            out = tmp / f"ping-{f.port}.json"
            probe = _agent(plan, "ping", f.src, out, dst=plan.addresses[f.dst], port=f.port,
                           size=f.size, interval=f.interval_ns, start=f.start_ns, stop=f.stop_ns,
                           until=plan.duration_ns, tos=f.dscp << 2)  # fmt: skip
            pings[f.name] = (probe, out)
            names[probe.pid] = _describe(plan, "ping", f, f.src)
            continue
        out = tmp / f"sink-{f.port}.json"
        udp, periodic = f.app == "udp", f.app == "periodic"
        roles = (
            ("udpsink", "udpsend") if udp else ("psink", "psend") if periodic else ("sink", "send")
        )
        sink = _agent(plan, roles[0], f.dst, out, addr=plan.addresses[f.dst],
                      port=f.port, interval=plan.interval_ns, until=plan.duration_ns)  # fmt: skip
        sinks[f.name] = (sink, out)
        names[sink.pid] = _describe(plan, "receiver", f, f.dst)
        out = tmp / f"send-{f.port}.json"
        sender = _agent(plan, roles[1], f.src, out, dst=plan.addresses[f.dst], port=f.port,
                        cc=f.kernel_cc, start=f.start_ns + f.offset_ns, stop=f.stop_ns,
                        size=f.size, interval=f.interval_ns, tos=f.dscp << 2)  # fmt: skip
        senders[f.name] = (sender, out)
        names[sender.pid] = _describe(plan, "sender", f, f.src)
    agents = [*sinks.values(), *senders.values(), *pings.values()]
    procs.extend(p for p, _ in agents)
    _await_ready([(names[p.pid], p) for p, _ in agents], status)
    sampler = _Sampler(plan)
    # Every agent is set up: time starts now, for all of them at once.
    epoch = time.monotonic_ns() + 20_000_000
    for p, _ in agents:
        _stdin(p).write(f"{epoch}\n")
        _stdin(p).flush()
    cpu = fidelity.CpuMeter.begin(cpus)
    per_second = max(1, 1_000_000_000 // plan.interval_ns)
    # The sampler must not take the traffic's CPUs from the receivers. As an ordinary thread
    # there, woken every interval for about 4 ms of netlink dumps, it preempted receivers
    # inside recvmsg, which own their socket's lock: the kernel parked the arriving segments in
    # the socket backlog and acknowledged 3.6 ms of them in one stretch ACK, and the sender's
    # answering burst overflowed shallow queues every 100 ms (CUBIC, 100 Mbit/s, 20 ms,
    # 0.25 BDP: 80-88 Mbit/s instead of 94-95, docs/validation.md). At SCHED_IDLE there, any
    # other work on the machine starved it (a CPU hog: not one sample in a run). So it runs
    # on the wire's CPU as an ordinary thread, where the wire's real-time thread preempts it
    # and other work only shares with it; with one CPU, at SCHED_IDLE. What it still misses,
    # the run's fidelity counts.
    if wire_cpu is None:
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    else:
        os.sched_setaffinity(0, {wire_cpu})
    try:
        if plan.warmup_ns == 0:
            sampler.count_device_drops("start")
        k = 1
        last = plan.duration_ns // plan.interval_ns
        while k <= last:
            t = k * plan.interval_ns
            delay = (epoch + t - time.monotonic_ns()) / 1e9
            if delay > 0:
                time.sleep(delay)
            behind = time.monotonic_ns() - epoch - t
            if behind > plan.interval_ns // 2:
                # Starved past this boundary: a sample now would belong to a later one. Skip to
                # the first boundary still to come (or within half an interval), rather than
                # take a burst of late samples with the little CPU there is.
                k += max(1, -(-(behind - plan.interval_ns // 2) // plan.interval_ns))
                continue
            sampler.sample(t, epoch)
            if t >= plan.warmup_ns and "start" not in sampler.device_drops:
                sampler.count_device_drops("start")
            if progress is not None and k % per_second == 0:
                progress(t / plan.duration_ns)
            k += 1
        sampler.count_device_drops("end")
    finally:
        os.sched_setscheduler(0, os.SCHED_OTHER, os.sched_param(0))
        os.sched_setaffinity(0, cpus)
        sampler.close()
        cpu.stop()
    # The last sample is taken: a bulk receiver may close now (it waits for this line).
    for p, _ in sinks.values():
        with contextlib.suppress(OSError):
            _stdin(p).write("end\n")
            _stdin(p).flush()
    # Every agent ends on its own now: a sender or ping at its stop, a receiver once told.
    _reap([p for p, _ in [*senders.values(), *pings.values(), *sinks.values()]])

    def read(path: Path, proc: subprocess.Popen) -> dict[str, Any]:
        if not path.exists():
            raise TestbedError(
                f"{names[proc.pid]} {_exit_text(proc.returncode)} without writing its record: "
                f"{_stderr(proc)}"
            )
        return json.loads(path.read_text())

    # Senders first: a receiver whose sender failed waits for it in vain, and the sender's
    # error says why.
    return {
        "senders": {n: read(out, p) for n, (p, out) in senders.items()},
        "pings": {n: read(out, p) for n, (p, out) in pings.items()},
        "sinks": {n: read(out, p) for n, (p, out) in sinks.items()},
        "samples": {
            "flows": sampler.flows,
            "queues": sampler.queues,
            "device_drops": sampler.device_drops,
        },
        "cpu": cpu,
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


def _on_time(plan: Plan, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The sampler's rows that belong to their boundary (read within half an interval): a
    later one describes another moment than its row's and is left out (NaN)."""
    return [r for r in rows if fidelity.on_time(r["taken"], r["t"], plan.interval_ns)]


def _flows(plan: Plan, records: dict[str, Any], samples: list[dict[str, Any]]):
    """The flow table and the flows' summaries. Goodput is what the receiver read in each
    interval, as in the simulator (over the times the receiver actually read its count; NaN
    where it read either end more than half an interval late); the rest comes from the
    sender's tcp_info."""
    columns = TABLES["flows"][0]
    if any("bbr" in row for row in samples):
        columns = [*columns, *_BBR_COLUMNS]
    rows: dict[str, list] = {c: [] for c in columns}
    fcts: dict[str, list] = {c: [] for c in TABLES["fcts"][0]}
    summaries = []
    for f in plan.flows:
        if f.app == "ping":
            summaries.append(_ping_summary(plan, f, records["pings"][f.name]))
            continue
        sink, sender = records["sinks"][f.name], records["senders"][f.name]
        info = {row["t"]: row for row in _on_time(plan, samples) if row["flow"] == f.name}
        # A periodic flow opens a connection per period: the kernel counts per connection and
        # a closed one's last increments are never sampled, so the flow's cumulative counters
        # (the simulator's) cannot be had here; they are left unmeasured, not pieced together.
        per_connection = f.app == "periodic"
        goodputs, delivered, prev, last_delivery = [], 0, (0, 0, 0), 0
        half = plan.interval_ns // 2
        for t, b, late in sink["samples"]:
            if b > prev[1]:
                last_delivery = t
            span = t + late - prev[0] - prev[2]
            on_time = late <= half and prev[2] <= half and span > 0
            rate = (b - prev[1]) * 8 / (span / 1e9) / 1e6 if on_time else math.nan
            if t > plan.warmup_ns:
                if on_time:
                    goodputs.append(rate)
                delivered += b - prev[1]
            prev = (t, b, late)
            tcp = _tcp_columns(info.get(t, {}))
            if per_connection:
                tcp.pop("retransmits", None)
            for c in columns:
                rows[c].append(tcp.get(c, math.nan))
            rows["time_s"][-1], rows["flow"][-1], rows["goodput_mbps"][-1] = t / 1e9, f.name, rate
        # tcpi_rtt is 0 until the socket has an RTT sample (a connection caught in its
        # handshake): that is no estimate, not a round trip of 0 ms.
        srtt = [
            r["tcpi_rtt"] / 1e3 for t, r in info.items() if t > plan.warmup_ns and r["tcpi_rtt"] > 0
        ]
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
        window_s = _window_s(plan, f, last_delivery)
        in_window = [(end - start) / 1e9 for start, end in done if start > plan.warmup_ns]
        segs, retrans = counted.get("tcpi_data_segs_out"), counted.get("tcpi_total_retrans")
        if per_connection:
            segs = retrans = None
        summaries.append({
            "name": f.name, "src": f.src, "dst": f.dst, "cc": f.cc, "app": f.app,
            "bytes_delivered": delivered,
            "goodput_mbps": delivered * 8 / window_s / 1e6 if window_s > 0 else 0.0,
            "window_s": window_s,
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
        "bytes_delivered": 0, "goodput_mbps": 0.0, "window_s": _window_s(plan, f),
        "goodput_stats_mbps": None, "rtt_ms": dist, "owd_ms": None, "srtt_ms": None,
        "srtt_jitter_ms": None, "retransmits": 0,
        "data_segs_out": 0, "retransmit_rate": None, "lost": None,
        "unanswered": sum(1 for _, rtt in window if rtt is None),
        "queue_drops": None, "local_drops": None, "undos": None, "spurious_rtos": None,
        "wire_lost": None, "ecn_marks": 0, "jitter_ms": jitter, "fct_s": None,
    }  # fmt: skip


def _window_s(plan: Plan, f: Any, last_delivery_ns: int = 0) -> float:
    """A flow's time in the measurement window, as the simulator's: from its start to its stop,
    or to the sample that saw its last data when that arrived after the stop."""
    to = min(max(f.stop_ns, last_delivery_ns), plan.duration_ns)
    return max(0, to - max(f.start_ns, plan.warmup_ns)) / 1e9


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


def _queues(plan: Plan, samples: list[dict[str, Any]], device_drops: dict[str, dict[str, int]]):
    """The queue table and the queues' summaries, from the leaf qdiscs' counters and the
    devices' drop counts at the window's ends (None where either was not read). The table's
    columns mean what the simulator's do (``_core.columns()``): ``drops`` is cumulative since
    the run began (the qdisc's counter, which starts with it)."""
    dropped_at = (device_drops.get("start", {}), device_drops.get("end", {}))
    rows: dict[str, list] = {c: [] for c in TABLES["queues"][0]}
    summaries = []
    for d in plan.directions:
        mine = [r for r in _on_time(plan, samples) if r["queue"] == d.name]
        for r in mine:
            for c in rows:
                rows[c].append(math.nan)
            rows["time_s"][-1], rows["queue"][-1] = r["t"] / 1e9, d.name
            rows["backlog_pkts"][-1] = r["backlog_pkts"]
            rows["backlog_bytes"][-1] = r["backlog_bytes"]
            rows["drops"][-1] = r["drops"]
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
            # Below the leaf qdisc there is only the TUN device, which the wire drains; it
            # drops when the wire falls behind, and never marks.
            "device_drops": dropped_at[1][d.name] - dropped_at[0][d.name]
            if all(d.name in at for at in dropped_at) else None,
            "device_marks": 0,
            "backlog_pkts": {"max": float(max(backlog)), "mean": float(np.mean(backlog))}
            if backlog else None,
            "sojourn_ms": None,
        })  # fmt: skip
    return rows, summaries


def _link_rows(plan: Plan, samples: list[dict[str, Any]]) -> dict[str, list]:
    """The links table, as the simulator's: per direction and interval, the IP bytes its qdisc
    handed to the wire over the interval (between the times the two samples were read) as
    throughput and as a share of the rate; an interval without both samples is left out."""
    rows: dict[str, list] = {c: [] for c in TABLES["links"][0]}
    for d in plan.directions:
        mine = {r["t"]: r for r in _on_time(plan, samples) if r["queue"] == d.name}
        for t, b in sorted(mine.items()):
            a = mine.get(t - plan.interval_ns)
            if a is None or b["taken"] <= a["taken"]:
                continue
            bps = (b["bytes"] - a["bytes"]) * 8 / ((b["taken"] - a["taken"]) / 1e9)
            for c, v in (("time_s", t / 1e9), ("link", d.name), ("utilization", bps / d.rate_bps),
                         ("throughput_mbps", bps / 1e6)):  # fmt: skip
                rows[c].append(v)
    return rows


def _links(plan: Plan, wires: list[dict[str, Any]], samples: list[dict[str, Any]]):
    """Each direction's throughput in the measurement window, from the bytes its qdisc handed
    to the wire (as the simulator counts the bytes on its wire), with the wire's losses and
    how late it delivered packets over the whole run."""
    span_s = (plan.duration_ns - plan.warmup_ns) / 1e9
    out = []
    for d, w in zip(plan.directions, wires or [{}] * len(plan.directions), strict=True):
        mine = [r for r in _on_time(plan, samples) if r["queue"] == d.name]
        start = next((r["bytes"] for r in reversed(mine) if r["t"] <= plan.warmup_ns), 0)
        # Unmeasured (null), not NaN, when no sample of the direction came on time.
        carried = (mine[-1]["bytes"] - start) * 8 / span_s if mine and span_s > 0 else None
        late = {k.split("_")[1]: w.get(k) for k in ("late_mean_us", "late_p50_us", "late_p99_us",
                                                     "late_max_us")}  # fmt: skip
        out.append({
            "name": d.name, "link": d.link, "from": d.src, "to": d.dst,
            "rate_mbps": d.rate_bps / 1e6,
            "throughput_mbps": None if carried is None else carried / 1e6,
            "utilization": None if carried is None else carried / d.rate_bps,
            "wire_lost": w.get("dropped"),
            "wire_late_us": late, "wire_realtime": w.get("realtime"),
        })  # fmt: skip
    return out


def _result(plan: Plan, facts: dict[str, Any], records: dict[str, Any],
            samples: dict[str, Any], wires: list[dict[str, Any]],
            cpu: fidelity.CpuMeter | None) -> Result:  # fmt: skip
    """The run as the simulator reports one: the summary schema and the long-format tables,
    with what the run measured of its own fidelity."""
    flow_rows, fct_rows, flows = _flows(plan, records, samples["flows"])
    queue_rows, queues = _queues(plan, samples["queues"], samples.get("device_drops", {}))
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
        "fidelity": fidelity.assess(plan, records, samples, wires, cpu),
    }
    tables = {name: frame(None, cols, key) for name, (cols, key) in TABLES.items()}
    tables["links"] = frame(_link_rows(plan, samples["queues"]), TABLES["links"][0], "link")
    tables["flows"] = frame(flow_rows, TABLES["flows"][0], "flow")
    tables["queues"] = frame(queue_rows, TABLES["queues"][0], "queue")
    tables["fcts"] = frame(fct_rows, TABLES["fcts"][0], "flow")
    tables["pings"] = frame(_pings(plan, records), TABLES["pings"][0], "flow")
    return Result(summary=summary, scenario=plan.resolved, source=None, **tables)
