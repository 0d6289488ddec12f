"""Paper 000's cross-layer model on its testbed (``airlab model bbr-wifi6``): the MU-OFDMA
service rate of the cell (eqs. 1-8, :mod:`airlab.model.mu_ofdma`) bounds the shaped
bottleneck, and the fluid model (eqs. 9-24, :mod:`airlab.model.fluid`) runs BBRv3 against
CUBIC through it under PFIFO-50, FQ-CoDel or CAKE.

One direction is one bottleneck (the AP's 10 Mbit/s htb class toward the receivers): uplink,
both laptops send to the receiver/sender laptop; downlink, it sends to both. The paper's
bidirectional pattern is the two directions at once; each has its own class, so the model
solves each alone (the other direction's ACKs, 2-3 % of a class, are left out).

The bottleneck serves ``min(shaper, Theta / 2)`` packets per second: Theta is eq. 2's cell
throughput for the three stations at the cell's HE-MCS (every flow crosses the air twice, to
the AP and from it). At HE-MCS 7 Theta / 2 is about 32 Mbit/s, so the 10 Mbit/s shaper binds,
as reproduction-targets P0.7 X.1 decides.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from airlab.model import fluid, mu_ofdma

Pattern = Literal["uplink", "downlink"]
PATTERNS: tuple[Pattern, ...] = ("uplink", "downlink")
#: The base RTT of the testbed's two-hop path (ms) as airlab's simulator has it at HE-MCS 7: a
#: data frame and its TCP ACK, each over two EDCA hops (the flows' smallest RTT samples are
#: 0.76-1.05 ms; the handshake's 1.05 ms).
TAU_MIN_MS = 1.0


#: The range of each numeric key: a shaper the model's rates and a float's range can carry, a
#: base RTT from a LAN's 0.1 ms to a satellite's second, at least a second of simulated time
#: (the solver needs samples after the warm-up) and at most an hour.
BOUNDS = {
    "shaper_mbps": (0.1, 100_000.0),
    "tau_min_ms": (0.1, 1_000.0),
    "duration_s": (1.0, 3_600.0),
}
#: duration_s / tau_min at most: a bound on the solver's work (FQ-CoDel, the costliest AQM,
#: takes 6 s of CPU for 100,000 RTTs of 0.1 ms).
MAX_RTTS = 100_000


@dataclass(frozen=True)
class Setting:
    """What ``--set`` may change: every key of the model's setting, with its default."""

    aqm: fluid.Aqm = "pfifo"
    pattern: Pattern = "uplink"
    mcs: int = 7
    shaper_mbps: float = 10.0
    tau_min_ms: float = TAU_MIN_MS
    duration_s: float = 30.0
    warmup_s: float = 5.0
    bbr_reading: fluid.BbrReading = "cwnd_limited"
    min_rtt: fluid.MinRttReading = "propagation"

    @classmethod
    def parse(cls, items: Mapping[str, str]) -> Setting:
        """A setting from ``key=value`` strings; ``ValueError`` naming the key and what was
        expected for anything else."""
        fields = {f.name: f for f in dataclasses.fields(cls)}
        values: dict[str, Any] = {}
        for key, text in items.items():
            if key not in fields:
                raise ValueError(f"unknown key {key!r}, expected one of: {', '.join(fields)}")
            kind = type(getattr(cls(), key))
            try:
                values[key] = kind(text)
            except ValueError:
                raise ValueError(f"{key}: {text!r} is not a {kind.__name__}") from None
        s = cls(**values)
        s.check()
        return s

    def check(self) -> None:
        choices = {
            "aqm": fluid.AQMS,
            "pattern": PATTERNS,
            "bbr_reading": fluid.READINGS,
            "min_rtt": fluid.MIN_RTT_READINGS,
        }
        for key, allowed in choices.items():
            if getattr(self, key) not in allowed:
                raise ValueError(f"{key}: {getattr(self, key)!r}, expected one of {allowed}")
        if not 0 <= self.mcs <= 11:
            raise ValueError(f"mcs: {self.mcs}, expected an HE-MCS 0 to 11")
        for key, (low, high) in BOUNDS.items():
            if not low <= getattr(self, key) <= high:
                raise ValueError(f"{key}: {getattr(self, key)}, expected {low} to {high}")
        steps = self.duration_s / (self.tau_min_ms / 1e3)
        if steps > MAX_RTTS:
            raise ValueError(
                f"duration_s: {self.duration_s} s is {steps:,.0f} times tau_min_ms; expected at "
                f"most {MAX_RTTS:,} (a bound on the solver's work)"
            )
        if not 0 <= self.warmup_s < self.duration_s:
            raise ValueError(f"warmup_s: {self.warmup_s}, expected 0 <= warmup_s < duration_s")


def wifi_capacity_bps(mcs: int, stations: int = 3, width_mhz: int = 20) -> float:
    """Eq. 2's cell throughput (payload bit/s) for the testbed's stations on equal RUs at
    ``mcs``, each sending its eq. 3 aggregate of 1448-byte segments per trigger cycle."""
    cycle = mu_ofdma.he_cycle(stations, width_mhz, mcs)
    p_agg = mu_ofdma.max_aggregation(cycle, s_p=1448 * 8, s_t=32 * 8, s_h=20 * 8)
    return mu_ofdma.aggregate_throughput(cycle, 1448 * 8, p_agg)


def config(s: Setting) -> fluid.FluidConfig:
    """The fluid model of one setting: BBRv3 and CUBIC through one shaped direction."""
    s.check()
    tau = s.tau_min_ms / 1e3
    if s.pattern == "uplink":  # two senders, one receiver
        flows = (
            fluid.FluidFlow("bbr3", "bbr3", tau, "bbr"),
            fluid.FluidFlow("cubic", "cubic", tau, "cubic"),
        )
    else:  # one sender
        flows = (
            fluid.FluidFlow("bbr3", "bbr3", tau, "rs"),
            fluid.FluidFlow("cubic", "cubic", tau, "rs"),
        )
    # The shaper counts 1514-byte frames; the air carries 1448-byte payloads per packet.
    wifi_frames_bps = wifi_capacity_bps(s.mcs) / 2 * 1514 / 1448
    return fluid.FluidConfig(
        flows=flows,
        aqm=s.aqm,
        capacity_bps=min(s.shaper_mbps * 1e6, wifi_frames_bps),
        duration_s=s.duration_s,
        warmup_s=s.warmup_s,
        bbr_reading=s.bbr_reading,
        min_rtt=s.min_rtt,
    )


def solve(s: Setting) -> fluid.FluidResult:
    """Solve one setting."""
    return fluid.solve(config(s))
