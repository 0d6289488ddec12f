"""The Linux testbed: the same scenario file, run on this machine's own kernel.

Each node is a network namespace, each link direction an HTB shaper at the link rate with the
scenario's qdisc below it and a wire that adds the serialization time and the propagation
delay (airlab's own delay line over TUN devices, so kernels without ``netem`` work too), and
each flow real sockets with the kernel's congestion control. The result has the simulator's
summary schema and table columns, so ``airlab compare`` can set the two side by side. See
docs/testbed.md for what is measured, what is not, and how accurate the wire is.

Needs root. ``check()`` says what this kernel offers, ``run()`` runs a scenario, ``cleanup()``
removes what a killed run left behind. Every run measures its own fidelity (summary
``fidelity``, :mod:`airlab.testbed.fidelity`) and warns with :class:`DegradedRunWarning`, or
raises :class:`DegradedRunError` with ``strict=True``, when its numbers are not the kernel's
alone.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from airlab.testbed import kernel
from airlab.testbed.kernel import TestbedError
from airlab.testbed.plan import KERNEL_CC, KERNEL_QDISC, PlanError
from airlab.testbed.run import DegradedRunError, DegradedRunWarning, run

__all__ = ["DegradedRunError", "DegradedRunWarning", "PlanError", "TestbedError", "check",
           "cleanup", "run"]  # fmt: skip


def check() -> dict[str, Any]:
    """What this machine offers the testbed: privileges, kernel, congestion controls, qdiscs
    (probed in a scratch namespace when running as root), the delay methods, and the TCP
    sysctls a result records."""
    root = os.geteuid() == 0
    qdiscs = sorted({*KERNEL_QDISC.values(), "htb", "netem"})
    facts = kernel.kernel_facts()
    ccs = kernel.available_ccs()
    return {
        "root": root,
        "kernel": facts["kernel"],
        "tun": Path("/dev/net/tun").exists(),
        "congestion_controls": {cc: KERNEL_CC[cc] in ccs for cc in KERNEL_CC},
        "kernel_congestion_controls": ccs,
        "qdiscs": kernel.probe_qdiscs(qdiscs) if root else None,
        "sysctls": facts["sysctls"],
    }


def cleanup(everything: bool = False) -> list[str]:
    """Remove what testbed runs whose controller is gone left behind (that of all runs with
    ``everything``): their namespaces and scratch directories; returns the namespaces' names
    and the directories' paths. A run's agents die with their controller."""
    kernel.require_root()
    return kernel.remove_stale(everything=everything)
