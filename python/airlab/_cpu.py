"""What the machine's CPUs did over an interval, from ``/proc/stat``: the time others used and
the hypervisor stole, for measurements that must say when the machine was not theirs (the
testbed's fidelity checks, ``bench --against``)."""

from __future__ import annotations

import os
from dataclasses import dataclass


def ticks(cpus: set[int] | None = None) -> dict[str, int]:
    """The CPUs' time in clock ticks, summed over ``cpus`` (every CPU if None): busy (user,
    nice, system), kernel (irq, softirq), idle (idle, iowait) and steal; their sum is the
    CPUs' time."""
    out = {"busy": 0, "kernel": 0, "idle": 0, "steal": 0, "cpus": 0}
    with open("/proc/stat") as f:
        for line in f:
            name, *fields = line.split()
            if not name.startswith("cpu") or name == "cpu":
                continue
            if cpus is not None and int(name[3:]) not in cpus:
                continue
            user, nice, system, idle, iowait, irq, softirq, steal = map(int, fields[:8])
            out["busy"] += user + nice + system
            out["kernel"] += irq + softirq
            out["idle"] += idle + iowait
            out["steal"] += steal
            out["cpus"] += 1
    return out


@dataclass(frozen=True)
class Shares:
    """Shares of the CPUs' time over an interval: ``others`` (busy, less the measured work's
    own CPU time), ``steal`` and ``available`` (neither); ``cores`` counted."""

    others: float
    steal: float
    available: float
    cores: int


def shares(start: dict[str, int], end: dict[str, int], own_cpu_s: float) -> Shares | None:
    """The shares between two :func:`ticks` readings, the measured work having used
    ``own_cpu_s``; None if no time was counted."""
    d = {k: end[k] - start[k] for k in ("busy", "kernel", "idle", "steal")}
    total = sum(d.values())
    if total <= 0:
        return None
    ours = own_cpu_s * os.sysconf("SC_CLK_TCK")
    others = max(0.0, d["busy"] - ours) / total
    steal = d["steal"] / total
    return Shares(others, steal, 1 - others - steal, end["cpus"])
