"""Paper 000's fluid model of BBRv3 and CUBIC flows sharing one bottleneck under PFIFO, FQ-CoDel
or CAKE (its Secs. 3.2-3.4, eqs. 9-24), solved as ODEs with scipy.

Every flow i has a bottleneck queue ``q_i`` (packets) whose service ``s_i`` the AQM sets, and
an RTT by Little's law (eq. 15)::

    tau_i = tau_min_i + q_i / s_i          dq_i/dt = x_i - d_i - s_i        (eqs. 15-17)

with ``x_i`` the sending rate and ``d_i`` its drop rate. The AQMs:

* **PFIFO** (eqs. 18-19): one shared queue served in arrival order, so a flow's part of the
  queue, and of the service, is its part of the arrivals: ``s_i = C q_i / q_tot`` (eq. 18 read
  as the occupancy share). Drop-tail drops a fraction ``p_drop(q_tot)`` of every arrival,
  an indicator at ``Q_max`` smoothed over half a packet.
* **FQ-CoDel** (eqs. 20-21): weighted max-min shares of C, ``alpha_i = w_i / sum w_j`` among
  backlogged flows (a flow below its share keeps its rate); CoDel on each flow's sojourn
  ``q_i / s_i``: once above ``target`` for an ``interval`` it drops at the control law's rate
  ``sqrt(n) / interval``, n growing with every drop (``kappa_codel``, P0.4's default).
* **CAKE** (eqs. 22-24): the same with the per-host weights ``omega_i = phi_host psi_i``
  (triple-isolate: a host's flows share one host share) and COBALT's CoDel as ``F_cake``.

BBRv3 (eqs. 9-14, Scherrer et al.'s fluid BBR as the paper adapts it): the base window
``w_bar = BtlBw tau_min`` (BtlBw a max filter of the delivery rate over two ProbeBW cycles), the
ProbeBW window of eq. 9 from the bounds ``w_hi`` (eq. 10) and ``w_lo`` (eq. 11), the cruise
indicator ``m_crs`` following the ProbeBW schedule (UP one ``tau_min``, DOWN until it has
drained what UP added, CRUISE 2.5 s, the mean of U(2, 3) s), and ProbeRTT every 5 s for 200 ms
at ``w_bar / 2`` (eq. 13).
``BbrReading`` chooses how a window becomes a rate: eq. 12 as printed (``w / tau_min``) or
cwnd-limited at the pacing rate (``min(gain BtlBw, w / tau_i)``).

CUBIC, which the paper does not model but every experiment runs, is the usual expected-value
fluid CUBIC: ``W(t) = C (s - K)^3 + W_max`` growth (at least Reno-friendly), reduced by
``1 - beta`` at the loss-event rate ``min(d_i, 1 / tau_i)`` (one reduction per RTT).

Units: packets of ``packet_bytes`` on the wire, seconds; throughput is reported in payload
Mbit/s (``payload_bytes`` per packet). Only numpy and scipy; nothing of the engine.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import pandas as pd
from scipy.integrate import solve_ivp

Aqm = Literal["pfifo", "fq_codel", "cake"]
BbrReading = Literal["printed", "cwnd_limited"]
MinRttReading = Literal["propagation", "filtered"]
AQMS: tuple[Aqm, ...] = ("pfifo", "fq_codel", "cake")
READINGS: tuple[BbrReading, ...] = ("printed", "cwnd_limited")
MIN_RTT_READINGS: tuple[MinRttReading, ...] = ("propagation", "filtered")


@dataclass(frozen=True)
class FluidFlow:
    """One flow: its algorithm, base RTT and sending host (for CAKE's per-host shares)."""

    name: str
    cc: Literal["bbr3", "cubic"]
    tau_min_s: float
    host: str = ""
    #: Start of its ProbeBW/ProbeRTT schedule (BBR), seconds.
    phase_s: float = 0.0


@dataclass(frozen=True)
class BbrParams:
    """Fluid BBRv3 constants (reproduction-targets P0.3 and P0.4)."""

    g_hi: float = 2.25  # eq. 9, 10: the probe's cwnd gain
    p_th: float = 0.02  # loss threshold
    delta: float = 0.3  # Delta(p) = 1 - beta_bbr (0.7)
    cruise_s: float = 2.5  # mean of U(2, 3) s
    probe_rtt_interval_s: float = 5.0
    probe_rtt_s: float = 0.2
    min_cwnd: float = 4.0  # packets
    up_gain: float = 1.25  # pacing gains for the cwnd-limited reading
    down_gain: float = 0.9
    #: The sigmoid's width as a share of its argument's scale (P0.4: 5 %).
    smooth: float = 0.05


@dataclass(frozen=True)
class CubicParams:
    c: float = 0.4  # packets / s^3
    beta: float = 0.7
    min_cwnd: float = 2.0


@dataclass(frozen=True)
class FluidConfig:
    flows: tuple[FluidFlow, ...]
    aqm: Aqm = "pfifo"
    capacity_bps: float = 10e6
    packet_bytes: int = 1514
    payload_bytes: int = 1448
    fifo_limit: float = 50.0  # packets (PFIFO-50)
    target_s: float = 0.005  # CoDel
    interval_s: float = 0.1
    duration_s: float = 30.0
    warmup_s: float = 5.0
    sample_s: float = 0.01
    bbr_reading: BbrReading = "cwnd_limited"
    min_rtt: MinRttReading = "propagation"
    bbr: BbrParams = field(default_factory=BbrParams)
    cubic: CubicParams = field(default_factory=CubicParams)

    def __post_init__(self) -> None:
        if not self.flows:
            raise ValueError("a fluid model needs at least one flow")
        if self.aqm not in AQMS:
            raise ValueError(f"aqm: {self.aqm!r}, expected one of {', '.join(AQMS)}")
        if self.bbr_reading not in READINGS:
            raise ValueError(f"bbr_reading: {self.bbr_reading!r}, expected {READINGS}")
        if self.min_rtt not in MIN_RTT_READINGS:
            raise ValueError(f"min_rtt: {self.min_rtt!r}, expected {MIN_RTT_READINGS}")
        for f in self.flows:
            if f.cc not in ("bbr3", "cubic"):
                raise ValueError(f"flow {f.name}: cc {f.cc!r}, expected bbr3 or cubic")
            if not f.tau_min_s > 0:
                raise ValueError(f"flow {f.name}: tau_min_s must be > 0, got {f.tau_min_s}")
        if not 0 <= self.warmup_s < self.duration_s:
            raise ValueError("warmup_s must be in [0, duration_s)")

    @property
    def capacity_pps(self) -> float:
        return self.capacity_bps / (8 * self.packet_bytes)


#: State per flow: queue, three algorithm states (CUBIC: w, w_max, s; BBR: w_hi, w_lo, BtlBw),
#: BBR's min_rtt estimate, CoDel's count and time above target, cumulative drops and
#: deliveries.
Q, A1, A2, A3, MIN_RTT, COUNT, ABOVE, DROPS, DELIVERED = range(9)
PER_FLOW = 9
#: BBR's min_rtt filter window (s).
MIN_RTT_WINDOW = 10.0
#: Queue (packets) below which a flow counts as not backlogged.
EMPTY = 1e-3


def sigmoid(z: float, width: float) -> float:
    """The smooth activation of eqs. 10-11, ``1 / (1 + exp(-z / width))``."""
    u = z / width
    if u < -60:
        return 0.0
    if u > 60:
        return 1.0
    return 1.0 / (1.0 + math.exp(-u))


def max_min_shares(capacity: float, demands: Sequence[float], weights: Sequence[float]) -> list:
    """Weighted max-min fair allocation of ``capacity``: a flow demanding less than its weighted
    share keeps its demand; the rest is split among the others by weight (``inf`` demands are
    backlogged flows). Eqs. 20 and 22's ``alpha_i Theta``, made work-conserving."""
    n = len(demands)
    alloc = [0.0] * n
    active = [i for i in range(n) if demands[i] > 0]
    left = capacity
    while active:
        total_w = sum(weights[i] for i in active)
        satisfied = [i for i in active if demands[i] <= left * weights[i] / total_w]
        if not satisfied:
            for i in active:
                alloc[i] = left * weights[i] / total_w
            break
        for i in satisfied:
            alloc[i] = demands[i]
            left -= demands[i]
        active = [i for i in active if i not in satisfied]
    return alloc


def cake_weights(flows: Sequence[FluidFlow]) -> list[float]:
    """Eq. 22: ``omega_i = phi_host(h(i)) psi_i`` with ``phi_host = 1 / (flows of the host)`` and
    ``psi_i = 1`` (P0.4's defaults)."""
    per_host: dict[str, int] = {}
    for f in flows:
        per_host[f.host or f.name] = per_host.get(f.host or f.name, 0) + 1
    return [1.0 / per_host[f.host or f.name] for f in flows]


class _Schedule:
    """A BBR flow's ProbeBW phases and ProbeRTT windows as functions of time."""

    def __init__(self, flow: FluidFlow, p: BbrParams) -> None:
        self.up = flow.tau_min_s
        # DOWN lasts until it has drained what UP added: pacing at down_gain takes
        # (up_gain - 1) / (1 - down_gain) min_rtts for one min_rtt at up_gain (P0.4: DOWN holds
        # until the inflight is back at the BDP).
        self.down = flow.tau_min_s * (p.up_gain - 1) / (1 - p.down_gain)
        self.cycle = self.up + self.down + p.cruise_s
        self.phase = flow.phase_s
        self.rtt_every = p.probe_rtt_interval_s
        self.rtt_len = p.probe_rtt_s

    def probe_rtt(self, t: float) -> bool:
        u = t - self.phase
        return u >= self.rtt_every and (u % self.rtt_every) < self.rtt_len

    def phase_at(self, t: float) -> str:
        u = (t - self.phase) % self.cycle
        if u < self.up:
            return "up"
        if u < self.up + self.down:
            return "down"
        return "cruise"

    def breakpoints(self, end: float) -> list[float]:
        out = []
        k = 0
        while self.phase + k * self.cycle < end:
            base = self.phase + k * self.cycle
            out += [base, base + self.up, base + self.up + self.down]
            k += 1
        k = 1
        while self.phase + k * self.rtt_every < end:
            base = self.phase + k * self.rtt_every
            out += [base, base + self.rtt_len]
            k += 1
        return [b for b in out if 0 < b < end]


@dataclass
class _Rates:
    x: list[float]
    s: list[float]
    d: list[float]
    tau: list[float]
    cwnd: list[float]
    loss: list[float]


class FluidModel:
    """The right-hand side of eqs. 9-24 for one configuration (see the module docstring)."""

    def __init__(self, cfg: FluidConfig) -> None:
        self.cfg = cfg
        self.n = len(cfg.flows)
        self.c = cfg.capacity_pps
        self.sched = [_Schedule(f, cfg.bbr) if f.cc == "bbr3" else None for f in cfg.flows]
        self.weights = cake_weights(cfg.flows) if cfg.aqm == "cake" else [1.0] * self.n
        bt = [s.cycle for s in self.sched if s is not None]
        #: BtlBw's max filter spans two ProbeBW cycles.
        self.bw_window = 2 * (max(bt) if bt else 1.0)

    def initial_state(self) -> np.ndarray:
        """Empty queues; CUBIC at its fair-share window; BBR at its fair-share rate with its
        bounds unset (very large) until a loss sets them."""
        y = np.zeros(self.n * PER_FLOW)
        share = self.c / self.n
        for i, f in enumerate(self.cfg.flows):
            o = i * PER_FLOW
            bdp = max(share * f.tau_min_s, 2.0)
            if f.cc == "cubic":
                y[o + A1] = y[o + A2] = bdp
                y[o + A3] = self._cubic_k(bdp)
            else:
                y[o + A1] = y[o + A2] = 1e4
                y[o + A3] = share
            y[o + COUNT] = 1.0
            y[o + MIN_RTT] = f.tau_min_s
        return y

    def _cubic_k(self, w_max: float) -> float:
        p = self.cfg.cubic
        return (w_max * (1 - p.beta) / p.c) ** (1 / 3)

    # -- sending rates ---------------------------------------------------------------------------

    def _bbr_window(self, i: int, y: Sequence[float], t: float, tau: float) -> tuple[float, float]:
        """(rate, window) of BBR flow i at RTT ``tau`` (eqs. 9, 12-14)."""
        p = self.cfg.bbr
        o = i * PER_FLOW
        w_hi, w_lo, bw = y[o + A1], y[o + A2], max(y[o + A3], 1e-6)
        min_rtt = self.min_rtt(i, y)
        w_bar = bw * min_rtt
        sched = self.sched[i]
        assert sched is not None
        if sched.probe_rtt(t):
            w = max(w_bar / 2, p.min_cwnd)
            if self.cfg.bbr_reading == "printed":
                return w / min_rtt, w
            return min(bw, w / tau), w
        phase = sched.phase_at(t)
        m = 1.0 if phase == "cruise" else 0.0
        w = min(2 * w_bar, m * w_lo) + min(p.g_hi * w_bar, (1 - m) * w_hi)
        w = max(w, p.min_cwnd)
        if self.cfg.bbr_reading == "printed":
            return w / min_rtt, w
        gain = {"up": p.up_gain, "down": p.down_gain, "cruise": 1.0}[phase]
        return min(gain * bw, w / tau), w

    def min_rtt(self, i: int, y: Sequence[float]) -> float:
        """BBR's min_rtt: the propagation delay (as the paper's model has it) or the state of
        its 10 s min filter."""
        if self.cfg.min_rtt == "filtered":
            return max(y[i * PER_FLOW + MIN_RTT], 1e-6)
        return self.cfg.flows[i].tau_min_s

    def _rate(self, i: int, y: Sequence[float], t: float, tau: float) -> tuple[float, float]:
        f = self.cfg.flows[i]
        if f.cc == "bbr3":
            return self._bbr_window(i, y, t, tau)
        w = max(y[i * PER_FLOW + A1], self.cfg.cubic.min_cwnd)
        return w / tau, w

    def rates(self, t: float, y: Sequence[float]) -> _Rates:
        """Every flow's sending, service and drop rates, RTT, window and loss probability at the
        state ``y``, best a list: indexing a numpy array yields numpy scalars, whose arithmetic
        costs several times a float's."""
        cfg = self.cfg
        n = self.n
        q = [max(y[i * PER_FLOW + Q], 0.0) for i in range(n)]
        x = [0.0] * n
        w = [0.0] * n
        tau = [0.0] * n
        if cfg.aqm == "pfifo":
            q_tot = sum(q)
            wait = q_tot / self.c
            for i, f in enumerate(cfg.flows):
                tau[i] = f.tau_min_s + wait
                x[i], w[i] = self._rate(i, y, t, tau[i])
            if q_tot > EMPTY:
                s = [self.c * qi / q_tot for qi in q]
            else:
                scale = min(1.0, self.c / max(sum(x), 1e-12))
                s = [xi * scale for xi in x]
            p_drop = sigmoid(q_tot - cfg.fifo_limit, 0.5)
            d = [p_drop * xi for xi in x]
            loss = [p_drop] * n
            return _Rates(x, s, d, tau, w, loss)
        # FQ-CoDel / CAKE: flows with an empty queue send at their base RTT; their demand and
        # the backlogged flows' infinite one set the max-min shares.
        backlogged = [qi > EMPTY for qi in q]
        for i, f in enumerate(cfg.flows):
            if not backlogged[i]:
                tau[i] = f.tau_min_s
                x[i], w[i] = self._rate(i, y, t, tau[i])
        demand = [math.inf if backlogged[i] else x[i] for i in range(n)]
        s = max_min_shares(self.c, demand, self.weights)
        for i, f in enumerate(cfg.flows):
            if backlogged[i]:
                tau[i] = f.tau_min_s + q[i] / max(s[i], 1e-9)
                x[i], w[i] = self._rate(i, y, t, tau[i])
        d = [0.0] * n
        loss = [0.0] * n
        for i in range(n):
            o = i * PER_FLOW
            signalling = self._signalling(y, i, q[i] / max(s[i], 1e-9))
            d[i] = signalling * math.sqrt(max(y[o + COUNT], 1.0)) / cfg.interval_s
            if q[i] < 1:  # nothing to drop
                d[i] = 0.0
            loss[i] = min(1.0, d[i] / x[i]) if x[i] > 0 else 0.0
        return _Rates(x, s, d, tau, w, loss)

    def _signalling(self, y: Sequence[float], i: int, sojourn: float) -> float:
        """How far flow i's CoDel is in its dropping state (0 to 1). CoDel (FQ-CoDel) drops
        once the sojourn has stayed above target for an interval; COBALT (CAKE) as soon as it
        is above, its count carrying over from earlier episodes."""
        cfg = self.cfg
        if cfg.aqm == "cake":
            return sigmoid(sojourn - cfg.target_s, 0.05 * cfg.target_s)
        return sigmoid(y[i * PER_FLOW + ABOVE] - cfg.interval_s, 0.05 * cfg.interval_s)

    # -- the right-hand side ---------------------------------------------------------------------

    def rhs(self, t: float, state: np.ndarray) -> np.ndarray:
        """dy/dt. The flows are few (two on the testbed), so a loop over them in Python floats
        is cheaper than numpy's per-call overhead on arrays of two (docs/models/fluid.md)."""
        cfg = self.cfg
        y: list[float] = state.tolist()
        r = self.rates(t, y)
        dy = np.zeros_like(state)
        for i, f in enumerate(cfg.flows):
            o = i * PER_FLOW
            q = y[o + Q]
            dq = r.x[i] - r.d[i] - r.s[i]
            dy[o + Q] = dq if q > 0 or dq > 0 else 0.0
            dy[o + DROPS] = r.d[i]
            dy[o + DELIVERED] = r.s[i]
            if cfg.aqm != "pfifo":
                soj = q / max(r.s[i], 1e-9)
                above = y[o + ABOVE]
                dy[o + ABOVE] = 1.0 if soj > cfg.target_s else -above / 1e-3
                signalling = self._signalling(y, i, soj)
                count = max(y[o + COUNT], 1.0)
                if cfg.aqm == "cake":  # COBALT: the count decays at the control law's pace
                    decay = (1 - signalling) * math.sqrt(count) / cfg.interval_s
                else:  # CoDel: re-entry within 16 intervals resumes near the last count
                    decay = (1 - signalling) * (count - 1) / (16 * cfg.interval_s)
                dy[o + COUNT] = r.d[i] - decay if count > 1 or r.d[i] > decay else 0.0
            if f.cc == "cubic":
                self._cubic_rhs(i, y, r, dy)
            else:
                self._bbr_rhs(i, t, y, r, dy)
        return dy

    def _cubic_rhs(self, i: int, y: Sequence[float], r: _Rates, dy: np.ndarray) -> None:
        p = self.cfg.cubic
        o = i * PER_FLOW
        w, w_max, s = y[o + A1], y[o + A2], y[o + A3]
        tau = r.tau[i]
        events = min(r.d[i], 1.0 / tau)  # at most one reduction per RTT
        k = self._cubic_k(max(w_max, 0.0))
        growth = max(3 * p.c * (s - k) ** 2, 3 * (1 - p.beta) / (1 + p.beta) / tau)
        dw = growth - events * (1 - p.beta) * w
        dy[o + A1] = dw if w > p.min_cwnd or dw > 0 else 0.0
        target = w * (1 + p.beta) / 2 if w < w_max else w  # fast convergence
        dy[o + A2] = events * (target - w_max)
        dy[o + A3] = 1.0 - events * s

    def _bbr_rhs(self, i: int, t: float, y: Sequence[float], r: _Rates, dy: np.ndarray) -> None:
        p = self.cfg.bbr
        o = i * PER_FLOW
        w_hi, w_lo, bw = y[o + A1], y[o + A2], y[o + A3]
        tau_min, tau = self.min_rtt(i, y), r.tau[i]
        sched = self.sched[i]
        assert sched is not None
        in_rtt = sched.probe_rtt(t)
        m = 1.0 if in_rtt or sched.phase_at(t) == "cruise" else 0.0
        w_bar = bw * tau_min
        v = r.x[i] * tau  # inflight
        lossy = sigmoid(r.loss[i] - p.p_th, p.smooth * p.p_th)
        grow = (
            (1 - m)
            * p.g_hi
            * (tau / tau_min)
            / tau_min
            * sigmoid(tau - tau_min, p.smooth * tau_min)
            * sigmoid(v - w_hi, p.smooth * max(w_hi, 1.0))
        )
        dy[o + A1] = grow - p.delta / tau_min * lossy * w_hi  # eq. 10
        dy[o + A2] = -(1 - m) * (w_lo - w_bar) / tau_min - m * p.delta / tau_min * lossy * w_lo
        delivered = r.s[i]
        if delivered > bw:
            dy[o + A3] = (delivered - bw) / tau
        elif not in_rtt:  # ProbeRTT's samples are app-limited: the max filter ignores them
            dy[o + A3] = (delivered - bw) / self.bw_window
        if self.cfg.min_rtt == "filtered":  # a min filter: follows down at once, up over 10 s
            est = y[o + MIN_RTT]
            dy[o + MIN_RTT] = (tau - est) / (tau if tau < est else MIN_RTT_WINDOW)

    # -- solving ---------------------------------------------------------------------------------

    def breakpoints(self) -> list[float]:
        end = self.cfg.duration_s
        pts = {0.0, end}
        for s in self.sched:
            if s is not None:
                pts.update(s.breakpoints(end))
        return sorted(pts)


@dataclass
class FluidResult:
    """The trajectories (one row per flow per sample) and the per-flow steady state (after the
    warm-up): throughput, share, RTT median, mean queue, drops."""

    config: FluidConfig
    series: pd.DataFrame
    summary: pd.DataFrame


def solve(cfg: FluidConfig) -> FluidResult:
    """Integrate the model over ``duration_s`` (scipy's RK45, restarted at every ProbeBW and
    ProbeRTT boundary so each piece has a smooth right-hand side) and sample it every
    ``sample_s``.

    The step is the error control's alone: a cap at half the base RTT made PFIFO take 80 times
    the steps it now takes at a hundredfold tighter tolerance. The implicit solvers
    (BDF, Radau, LSODA) cost more: CoDel's switches at its target, not stiffness, set the step
    under FQ-CoDel and CAKE (docs/models/fluid.md, "Solving")."""
    model = FluidModel(cfg)
    y = model.initial_state()
    t_eval = np.arange(cfg.sample_s, cfg.duration_s + 1e-12, cfg.sample_s)
    # PFIFO's smooth pieces reach a 1e-6 tolerance in a few thousand steps; CoDel's switch at
    # its target made a tenfold tightening (to 1e-5) cost FQ-CoDel eight times the steps.
    rtol = 1e-6 if cfg.aqm == "pfifo" else 1e-4
    times: list[np.ndarray] = []
    states: list[np.ndarray] = []
    cuts = model.breakpoints()
    for a, b in itertools.pairwise(cuts):
        if b - a < 1e-12:
            continue
        inside = t_eval[(t_eval > a) & (t_eval <= b)]
        sol = solve_ivp(model.rhs, (a, b), y, t_eval=inside if inside.size else None,
                        rtol=rtol, atol=rtol / 100)  # fmt: skip
        if not sol.success:
            raise RuntimeError(f"the fluid model did not integrate at t = {a:.3f} s: {sol.message}")
        if inside.size:
            times.append(sol.t)
            states.append(sol.y.T)
        y = sol.y[:, -1].copy()
        for i in range(model.n):  # a queue never goes negative
            y[i * PER_FLOW + Q] = max(y[i * PER_FLOW + Q], 0.0)
    t = np.concatenate(times)
    ys = np.vstack(states)
    return _result(cfg, model, t, ys)


def _result(cfg: FluidConfig, model: FluidModel, t: np.ndarray, ys: np.ndarray) -> FluidResult:
    mbps = 8 * cfg.payload_bytes / 1e6
    rows = []
    for k in range(t.size):
        r = model.rates(float(t[k]), ys[k].tolist())
        for i, f in enumerate(cfg.flows):
            o = i * PER_FLOW
            rows.append(
                (float(t[k]), f.name, f.cc, r.x[i] * mbps, r.s[i] * mbps, ys[k, o + Q],
                 r.tau[i] * 1e3, r.cwnd[i] * cfg.payload_bytes / 1024, r.loss[i],
                 ys[k, o + DROPS], ys[k, o + DELIVERED])
            )  # fmt: skip
    series = pd.DataFrame(
        rows,
        columns=["time_s", "flow", "cc", "rate_mbps", "throughput_mbps", "queue_pkts", "rtt_ms",
                 "cwnd_kb", "loss", "drops", "delivered"],
    )  # fmt: skip
    steady = series[series.time_s > cfg.warmup_s]
    span = cfg.duration_s - cfg.warmup_s
    out = []
    for f in cfg.flows:
        g = steady[steady.flow == f.name]
        first = series[(series.flow == f.name) & (series.time_s <= cfg.warmup_s)]
        d0 = float(first.drops.iloc[-1]) if len(first) else 0.0
        r0 = float(first.delivered.iloc[-1]) if len(first) else 0.0
        out.append(
            {
                "flow": f.name,
                "cc": f.cc,
                "throughput_mbps": (float(g.delivered.iloc[-1]) - r0) * mbps / span,
                "rtt_ms_p50": float(g.rtt_ms.median()),
                "queue_pkts": float(g.queue_pkts.mean()),
                "cwnd_kb_p50": float(g.cwnd_kb.median()),
                "drops": float(g.drops.iloc[-1]) - d0,
            }
        )
    summary = pd.DataFrame(out)
    summary["share"] = summary.throughput_mbps / summary.throughput_mbps.sum()
    return FluidResult(cfg, series, summary)
