"""How far a testbed run's numbers are the kernel's: every run measures its own fidelity.

A testbed run shares the machine with whatever else runs on it. When other work takes the CPU,
the sampler misses its intervals, the traffic processes read and write their sockets late, the
wire delivers packets late, and a backlogged link can carry less than its rate: the run still
writes numbers, and they are wrong. Each run therefore checks
what it measured of itself against a bound (docs/testbed.md, "Fidelity"), and a run that
breaks one is *degraded*: summary.json says which check failed and what it affects, the run
warns, ``airlab compare`` shows the caveat beside each affected number, and ``--strict`` makes
it an error.

The checks, each with its bound and why:

* ``samples.tcp_info`` (per TCP flow), ``samples.goodput`` (per flow with a receiver),
  ``samples.queues``: the share of the measurement window's intervals with a sample taken on
  time, at least :data:`MIN_COVERAGE`. A sample is on time when it was read within half an
  interval of its boundary (closer to it than to either neighbour, so it belongs to its row);
  later ones are left out of the tables. With a share ``c`` of the samples, a quantile ``q``
  the summary reports lies between the true quantiles ``q - (1 - c)`` and ``q + (1 - c)``:
  95 % keeps the p50 and p95 within five percentile points, whichever samples were missed.
* ``wire.late_p99`` (per link direction that carried packets): the delay line's 99th
  percentile lateness, at most :data:`WIRE_LATE_SHARE` of the shortest base RTT of the flows
  crossing the direction either way, and never less than :data:`WIRE_LATE_FLOOR_US`. The
  validation's RTT target is 10 % (``grid.RTT_TOL``); with each direction within 5 %, a round
  trip gains at most 10 % for 98 % of its packets. The floor is what the wire keeps on a quiet
  machine at 100 Mbit/s (p99 50-63 µs, docs/testbed.md), so sub-2 ms paths are not flagged
  for the timer resolution alone.
* ``link.backlogged_utilization`` (per direction whose queue held packets at both ends of
  at least :data:`MIN_BACKLOGGED_INTERVALS` intervals): what the direction carried over those
  intervals against its rate (a tbf's if lower; not for htb, whose classes may hold packets
  they may not send yet), at least :data:`MIN_BACKLOGGED_UTILIZATION`. A link with a
  standing queue sends at its rate; HTB's bucket (1 ms at the rate + 1600 bytes) and a queue
  that drains and refills between two samples leave a few percent, a starved wire or shaper
  much more (0.66-0.96 seen on a loaded machine).
* ``cpu.agent_wait`` (the run): the longest share of its time any traffic process spent
  runnable but waiting for a CPU (the kernel's schedstat ``run_delay``), at most
  :data:`MAX_AGENT_WAIT`. A receiver kept off the CPU while it holds its socket's lock makes
  the kernel acknowledge in stretches (docs/testbed.md), a sender kept off it lets its socket
  run dry. The run's own processes share the traffic CPUs: quiet runs wait up to 0.017 at
  100 Mbit/s, loaded ones 0.04-0.35, and a run that overloads the CPUs itself shows here.
* ``cpu.available`` (the run): the share of the run's CPUs' time that neither other processes
  nor the hypervisor (steal) took, from ``/proc/stat`` less the CPU time of the run's own
  processes, at least :data:`MIN_CPU_AVAILABLE`. Quiet runs measure 0.997-1.00; with the
  machine busy (0.07-0.33) every 100 Mbit/s run lost goodput, even when its own processes
  waited little, so the bound is conservative: what a run needs but cannot measure goes with
  the machine's load.
"""

from __future__ import annotations

import itertools
import math
import resource
from dataclasses import dataclass
from typing import Any

from airlab import _core, _cpu
from airlab.testbed.plan import Direction, Plan

#: Sample coverage a series needs (see the module's docstring).
MIN_COVERAGE = 0.95
#: The wire's p99 lateness, as a share of the shortest base RTT across the direction.
WIRE_LATE_SHARE = 0.05
#: ... and never less than this (µs): the quiet machine's p99 at 100 Mbit/s, rounded up.
WIRE_LATE_FLOOR_US = 100.0
#: A backlogged direction's utilization.
MIN_BACKLOGGED_UTILIZATION = 0.95
#: Intervals with a standing queue before the utilization check applies (one second at the
#: default interval: fewer say more about HTB's bucket than about the link).
MIN_BACKLOGGED_INTERVALS = 10
#: The longest share of its time a traffic process may wait for a CPU.
MAX_AGENT_WAIT = 0.05
#: The share of the run's CPU time others and the hypervisor may leave it.
MIN_CPU_AVAILABLE = 0.90

#: The flow summary fields that come from the sender's tcp_info samples.
TCP_INFO_FIELDS = ("srtt_ms", "srtt_jitter_ms", "data_segs_out", "retransmits",
                   "retransmit_rate", "ecn_marks")  # fmt: skip
#: ... and from the receiver's samples.
GOODPUT_FIELDS = ("goodput_mbps", "goodput_stats_mbps")


def on_time(taken_ns: int, due_ns: int, interval_ns: int) -> bool:
    """Whether a sample read at ``taken_ns`` belongs to the boundary ``due_ns``."""
    return abs(taken_ns - due_ns) <= interval_ns // 2


def window(plan: Plan) -> list[int]:
    """The interval boundaries of the measurement window (after the warm-up)."""
    n = plan.duration_ns // plan.interval_ns
    return [k * plan.interval_ns for k in range(1, n + 1) if k * plan.interval_ns > plan.warmup_ns]


# -- the CPU ------------------------------------------------------------------------------------


def _own_cpu_s() -> float:
    """CPU time of the controller's threads: the wire, the sampler and the main thread."""
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


@dataclass
class CpuMeter:
    """The CPU the run's CPUs gave, from the epoch to the last sample."""

    cpus: set[int]
    start: dict[str, int]
    own_start: float
    end: dict[str, int] | None = None
    own_s: float = 0.0

    @classmethod
    def begin(cls, cpus: set[int]) -> CpuMeter:
        return cls(cpus=set(cpus), start=_cpu.ticks(cpus), own_start=_own_cpu_s())

    def stop(self) -> None:
        self.end = _cpu.ticks(self.cpus)
        self.own_s = _own_cpu_s() - self.own_start

    def shares(self, agents_cpu_s: float) -> _cpu.Shares | None:
        """Shares of the run's CPUs' time: others (busy, less what the run's processes used),
        steal and available (neither); None if nothing was counted."""
        if self.end is None:
            return None
        return _cpu.shares(self.start, self.end, self.own_s + agents_cpu_s)


# -- the checks ---------------------------------------------------------------------------------


def _check(name: str, subject: str, value: float | None, bound: float, op: str,
           affects: list[str], detail: str) -> dict[str, Any]:  # fmt: skip
    """One check; ``value`` None (nothing to measure) passes."""
    ok = value is None or (value >= bound if op == ">=" else value <= bound)
    return {"name": name, "subject": subject, "value": value, "bound": bound, "op": op,
            "pass": ok, "affects": affects, "detail": detail}  # fmt: skip


def _flow_keys(f: Any, fields: tuple[str, ...] | None = None) -> list[str]:
    if fields is None:
        return [f"flows:{f.name}"]
    return [f"flows:{f.name}:{field}" for field in fields]


def _open_spans(f: Any, sink: dict[str, Any], sender: dict[str, Any]) -> list[tuple[int, int]]:
    """When the flow carried data, per connection: from the sender's connect to the
    receiver's last byte (the sender's socket has its tcp_info until then; its application
    closes it as soon as the kernel has taken the last byte)."""
    if f.app == "periodic":
        got = sink["connections"]
        spans = [(c["started_ns"], got.get(str(c["port"]), {}).get("last_byte_ns"))
                 for c in sender["connections"]]  # fmt: skip
        return [(a, b) for a, b in spans if b is not None]
    return [(sender["started_ns"], sink["last_byte_ns"])] if sink["last_byte_ns"] else []


def _coverage(due: list[int], covered: set[int]) -> float | None:
    return len([t for t in due if t in covered]) / len(due) if due else None


def _coverage_check(kind: str, subject: str, due: list[int], covered: set[int],
                    affects: list[str], what: str) -> dict:  # fmt: skip
    """The check that at least MIN_COVERAGE of the samples `due` were `covered` on time."""
    return _check(
        kind, subject, _coverage(due, covered), MIN_COVERAGE, ">=", affects,
        f"{len(covered & set(due))} of {len(due)} {what} on time",
    )  # fmt: skip


def _sample_checks(plan: Plan, records: dict[str, Any], samples: dict[str, Any]) -> list[dict]:
    checks = []
    boundaries = window(plan)
    half = plan.interval_ns // 2
    for f in plan.flows:
        if f.app == "ping":
            continue
        sink, sender = records["sinks"][f.name], records["senders"][f.name]
        got = {t for t, _, late in sink["samples"] if late <= half}
        keys = _flow_keys(f, GOODPUT_FIELDS)
        checks.append(_coverage_check("samples.goodput", f"flow {f.name}", boundaries, got, keys,
                                      "receiver samples"))  # fmt: skip
        if f.app in ("udp",):
            continue
        spans = _open_spans(f, sink, sender)
        due = [t for t in boundaries if any(a + half <= t <= b - half for a, b in spans)]
        taken = {r["t"] for r in samples["flows"] if r["flow"] == f.name
                 and on_time(r["taken"], r["t"], plan.interval_ns)}  # fmt: skip
        keys = _flow_keys(f, TCP_INFO_FIELDS)
        checks.append(_coverage_check("samples.tcp_info", f"flow {f.name}", due, taken, keys,
                                      "tcp_info samples (sRTT, cwnd)"))  # fmt: skip
    worst: tuple[float, str, int] | None = None
    for d in plan.directions:
        taken = {r["t"] for r in samples["queues"] if r["queue"] == d.name
                 and on_time(r["taken"], r["t"], plan.interval_ns)}  # fmt: skip
        value = _coverage(boundaries, taken)
        if value is not None and (worst is None or value < worst[0]):
            worst = (value, d.name, len(taken & set(boundaries)))
    if worst is not None:
        affects = [f"{t}:{d.name}" for d in plan.directions for t in ("queues", "links")]
        checks.append(_check(
            "samples.queues", "queues", worst[0], MIN_COVERAGE, ">=", affects,
            f"{worst[2]} of {len(boundaries)} qdisc samples on time ({worst[1]}, the fewest)",
        ))  # fmt: skip
    return checks


def _crossing(plan: Plan) -> dict[str, list[tuple[Any, int]]]:
    """Per direction, the flows that cross it either way, with their base RTT (ns)."""
    out: dict[str, list[tuple[Any, int]]] = {d.name: [] for d in plan.directions}
    for f in plan.flows:
        there, back = plan.path(f.src, f.dst), plan.path(f.dst, f.src)
        rtt = sum(d.delay_ns for d in there + back)
        for d in {d.name for d in there + back}:
            out[d].append((f, rtt))
    return out


def _affected_by(plan: Plan, d: Direction, crossing: list[tuple[Any, int]]) -> list[str]:
    """A direction's link and queue, and every flow crossing it with the queues on its path:
    what a direction that misbehaves changes."""
    keys = [f"links:{d.name}", f"queues:{d.name}"]
    for f, _ in crossing:
        keys.append(f"flows:{f.name}")
        keys += [f"queues:{q.name}" for q in plan.path(f.src, f.dst) + plan.path(f.dst, f.src)]
    return list(dict.fromkeys(keys))


def _wire_checks(plan: Plan, wires: list[dict[str, Any]]) -> list[dict]:
    checks = []
    crossing = _crossing(plan)
    for d, w in zip(plan.directions, wires, strict=True):
        late = w.get("late_p99_us")
        if not w.get("packets") or late is None or not crossing[d.name]:
            continue
        rtt_us = min(rtt for _, rtt in crossing[d.name]) / 1e3
        bound = max(WIRE_LATE_SHARE * rtt_us, WIRE_LATE_FLOOR_US)
        checks.append(_check(
            "wire.late_p99", f"link {d.name}", float(late), bound, "<=",
            _affected_by(plan, d, crossing[d.name]),
            f"the wire delivered 1 % of {w['packets']} packets more than {late:.0f} µs late "
            f"(bound: {WIRE_LATE_SHARE:.0%} of the {rtt_us / 1e3:g} ms base RTT, at least "
            f"{WIRE_LATE_FLOOR_US:g} µs)",
        ))  # fmt: skip
    return checks


def backlogged(plan: Plan, rows: list[dict[str, Any]]) -> tuple[int, float, float]:
    """Over a direction's on-time qdisc samples in the window: the intervals whose queue held
    packets at both ends, the bytes sent in them and their length (s)."""
    rows = sorted(rows, key=lambda r: r["t"])
    n, sent, span = 0, 0.0, 0.0
    for a, b in itertools.pairwise(rows):
        if b["t"] - a["t"] != plan.interval_ns or a["t"] < plan.warmup_ns:
            continue
        if a["backlog_pkts"] > 0 and b["backlog_pkts"] > 0:
            n += 1
            sent += b["bytes"] - a["bytes"]
            span += (b["taken"] - a["taken"]) / 1e9
    return n, sent, span


def _service_rate(d: Direction) -> int | None:
    """The rate a direction sends at while its queue holds packets: the link's, or a tbf's
    if lower; None for htb, whose classes may hold packets they may not send yet."""
    kind = d.qdisc["kind"]
    if kind == "htb":
        return None
    if kind == "tbf":
        return min(d.rate_bps, int(_core.quantity("rate", str(d.qdisc["rate"]))))
    return d.rate_bps


def _utilization_checks(plan: Plan, samples: dict[str, Any]) -> list[dict]:
    checks = []
    crossing = _crossing(plan)
    for d in plan.directions:
        rate = _service_rate(d)
        rows = [r for r in samples["queues"] if r["queue"] == d.name
                and on_time(r["taken"], r["t"], plan.interval_ns)]  # fmt: skip
        n, sent, span = backlogged(plan, rows)
        if rate is None or n < MIN_BACKLOGGED_INTERVALS or span <= 0:
            continue
        value = sent * 8 / span / rate
        checks.append(_check(
            "link.backlogged_utilization", f"link {d.name}", value, MIN_BACKLOGGED_UTILIZATION,
            ">=", _affected_by(plan, d, crossing[d.name]),
            f"with packets queued through {n} intervals the link carried {value:.1%} of the "
            f"{rate / 1e6:g} Mbit/s it sends at",
        ))  # fmt: skip
    return checks


def _cpu_checks(records: dict[str, Any], cpu: CpuMeter | None) -> list[dict]:
    sched = [(what, name, r["sched"]) for what in ("sinks", "senders", "pings")
             for name, r in records[what].items() if r.get("sched")]  # fmt: skip
    checks = []
    waits = [(s["wait_ns"] / s["wall_ns"], what, name) for what, name, s in sched if s["wall_ns"]]
    if waits:
        share, what, name = max(waits)
        role = {"sinks": "receiver", "senders": "sender", "pings": "ping"}[what]
        checks.append(_check(
            "cpu.agent_wait", "run", share, MAX_AGENT_WAIT, "<=", ["*"],
            f"the {role} of {name!r} waited for a CPU {share:.1%} of its time",
        ))  # fmt: skip
    if cpu is None:
        return checks
    shares = cpu.shares(sum(s["cpu_ns"] for _, _, s in sched) / 1e9)
    if shares is not None:
        checks.append(_check(
            "cpu.available", "run", shares.available, MIN_CPU_AVAILABLE, ">=", ["*"],
            f"other processes took {shares.others:.1%} and the hypervisor "
            f"{shares.steal:.1%} of the run's CPUs ({sorted(cpu.cpus)})",
        ))  # fmt: skip
    return checks


def assess(plan: Plan, records: dict[str, Any], samples: dict[str, Any],
           wires: list[dict[str, Any]], cpu: CpuMeter | None) -> dict[str, Any]:  # fmt: skip
    """The run's ``fidelity`` block: every check, and whether any failed (``degraded``, with
    one reason per failed check)."""
    checks = [
        *_sample_checks(plan, records, samples),
        *(_wire_checks(plan, wires) if wires else []),
        *_utilization_checks(plan, samples),
        *_cpu_checks(records, cpu),
    ]
    for c in checks:
        if isinstance(c["value"], float) and not math.isfinite(c["value"]):
            c["value"] = None
    reasons = [f"{c['name']} ({c['subject']}): {c['detail']}" for c in checks if not c["pass"]]
    return {"degraded": bool(reasons), "reasons": reasons, "checks": checks}


def warning_text(fidelity: dict[str, Any]) -> str:
    """One paragraph for a degraded run: what failed."""
    return "this run's numbers are not the kernel's alone (degraded): " + "; ".join(
        fidelity["reasons"]
    )
