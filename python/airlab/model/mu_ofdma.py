"""Paper 000's MU-OFDMA trigger-frame cycle model (its Sec. 3.1, eqs. 1-8).

One uplink OFDMA cycle is a BSRP trigger, the buffer status reports, a Basic Trigger, the
stations' HE TB PPDU and a Multi-STA Block Ack, each a SIFS apart (eq. 1)::

    t_s = d_tfr + d_bsr + d_tf + d_ppdu + d_mb + 4 d_sifs

In it ``Theta_T = s_A + r_A`` stations send (scheduled plus random access), each up to
``P_agg`` packets (eq. 3) of ``s_p`` payload bits, so the cell carries (eq. 2)::

    Theta = p_agg Theta_T s_p / t_s,   p_agg = min(n_p, P_agg)
    P_agg = min(P_max, floor(T_r (t_d - T_phy) / (s_t + s_h + s_p)))

Stations that contend (EDCA, or UORA on random-access RUs) attempt with the Bianchi-style
probability of eq. 4 and collide per eq. 5; eq. 6 adds PHY errors and eq. 8 scales the cycle's
throughput by a station's attempt and success probabilities.

The paper prints no parameter values. :data:`P0_DEFAULTS` holds the defaults proposed in
``reproduction-targets.md`` P0.4; :func:`he_cycle` instead derives every duration of eq. 1 from
the 802.11ax frame formats for a given cell, as airlab's simulator sends them, so that the
model and the simulator can be compared cycle for cycle. Times are in seconds, sizes in bits,
rates in bit/s. The module depends only on the standard library and scipy.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from scipy.optimize import brentq

__all__ = [
    "P0_DEFAULTS",
    "TfCycle",
    "aggregate_throughput",
    "attempt_probability",
    "cycle_duration",
    "equal_ru",
    "expected_slot",
    "failure_probability",
    "he_cycle",
    "max_aggregation",
    "ra_collision_probability",
    "ra_fixed_point",
    "ra_service_rate",
]

SIFS = 16e-6
US = 1e-6


@dataclass(frozen=True)
class TfCycle:
    """The durations of eq. 1 and the aggregation inputs of eq. 3 for one cell."""

    d_tfr: float  # BSRP trigger
    d_bsr: float  # buffer status reports (HE TB PPDU)
    d_tf: float  # Basic Trigger
    d_ppdu: float  # the HE TB data PPDU
    d_mb: float  # Multi-STA Block Ack
    t_d: float  # time the stations may fill (the TB PPDU)
    t_phy: float  # its PHY overhead (the HE TB preamble)
    rate_bps: float  # T_r: a station's PHY rate on its RU
    stations: int  # s_A: stations scheduled per cycle
    sifs: float = SIFS


# reproduction-targets.md P0.4: the proposed defaults (RU-106, HE-MCS 7, 1 SS, GI 0.8 us).
P0_DEFAULTS = TfCycle(
    d_tfr=100 * US,
    d_bsr=64 * US,
    d_tf=100 * US,
    d_ppdu=2.5e-3,
    d_mb=100 * US,
    t_d=2.5e-3,
    t_phy=48 * US,
    rate_bps=37.5e6,
    stations=2,
)


def cycle_duration(c: TfCycle) -> float:
    """Eq. 1: the TF-cycle duration ``t_s``."""
    return c.d_tfr + c.d_bsr + c.d_tf + c.d_ppdu + c.d_mb + 4 * c.sifs


def max_aggregation(c: TfCycle, s_p: float, s_t: float, s_h: float, p_max: int = 64) -> int:
    """Eq. 3: the most packets of ``s_p`` payload bits (``s_t`` transport and ``s_h`` network
    header bits each) a station fits in ``t_d - T_phy`` at its RU rate, at most ``p_max``."""
    return min(p_max, math.floor(c.rate_bps * (c.t_d - c.t_phy) / (s_t + s_h + s_p)))


def aggregate_throughput(c: TfCycle, s_p: float, p_agg: int, random_access: float = 0.0) -> float:
    """Eq. 2: the cell's throughput, ``p_agg`` packets of ``s_p`` bits from each of the
    ``Theta_T = s_A + r_A`` stations that send per cycle."""
    return p_agg * (c.stations + random_access) * s_p / cycle_duration(c)


def attempt_probability(gamma: float, cw_min: int, max_stage: int, fixed_stages: int = 0) -> float:
    """Eq. 4: a station's attempt probability when its attempts fail with probability
    ``gamma``, with ``B_k = (2^k W_0 + 1) / 2`` slots at stage ``k`` (``W_0 = cw_min + 1``)
    for the ``mbo = max_stage`` doubling stages and then ``fbo = fixed_stages`` stages at the
    largest window (UORA's OCWmax), ``mbo + fbo + 1`` attempts in all."""
    w0 = cw_min + 1
    stages = max_stage + fixed_stages + 1
    slots = sum((2 ** min(k, max_stage) * w0 + 1) / 2 * gamma**k for k in range(stages))
    attempts = sum(gamma**k for k in range(stages))
    return attempts / slots


def ra_collision_probability(beta: float, ra_rus: float, ra_stations: int) -> float:
    """Eq. 5: the probability that one of the other ``n_ra - 1`` random-access stations picks
    the same of the ``r_A`` RA-RUs."""
    return 1 - (1 - beta / ra_rus) ** (ra_stations - 1)


def ra_fixed_point(
    stations: int,
    ra_rus: int,
    ocw_min: int = 7,
    max_stage: int = 2,
    fixed_stages: int = 4,
    per_ru: bool = True,
    p_phy: float = 0.0,
) -> tuple[float, float]:
    """Eqs. 4-6 solved together for ``stations`` saturated random-access stations on
    ``ra_rus`` RA-RUs per trigger; returns (beta, gamma), beta per station per trigger and
    gamma the collision probability of eq. 5.

    The paper uses beta of eq. 4 both as an attempt probability per backoff slot (eq. 4 counts
    slots) and per trigger (eq. 5 divides it among the RA-RUs). Under UORA a trigger takes
    ``ra_rus`` off the OFDMA backoff, so a trigger is ``ra_rus`` slots: with ``per_ru`` (the
    default) beta per trigger is ``min(1, ra_rus * tau)``, tau from eq. 4; without it, eq. 4's
    value is used as the per-trigger probability, the literal reading. The backoff window
    doubles after every failed attempt, collision or PHY error (``p_phy``, per attempt), so
    eq. 4 is driven by eq. 6's failure probability; the paper writes gamma there, which is the
    same when ``p_phy`` is 0. The defaults are UORA's OCW 7-31 (two doublings) and four more
    stages at 31: seven attempts, the retry limit."""

    def beta_of(gamma: float) -> float:
        tau = attempt_probability(
            failure_probability(gamma, p_phy), ocw_min, max_stage, fixed_stages
        )
        return min(1.0, ra_rus * tau) if per_ru else tau

    gamma = brentq(lambda g: g - ra_collision_probability(beta_of(g), ra_rus, stations), 0.0, 1.0)
    return beta_of(gamma), gamma


def ra_service_rate(beta: float, gamma: float, p_phy: float) -> float:
    """Eq. 8's factor: a random-access station's successful transmissions per trigger,
    beta (1 - f) with f from eq. 6. Eq. 8 multiplies it by the cell's throughput Theta of eq. 2;
    since Theta counts all ``r_A`` RA-RUs of a cycle and a station sends on at most one, a
    station's throughput is this times Theta / r_A."""
    return beta * (1 - failure_probability(gamma, p_phy))


def failure_probability(gamma: float, p_phy: float) -> float:
    """Eq. 6: an attempt fails by collision or PHY error."""
    return 1 - (1 - gamma) * (1 - p_phy)


SLOT = 9e-6


def expected_slot(
    c: TfCycle,
    p_idle: float,
    gamma: float = 0.0,
    p_phy: float = 0.0,
    sigma: float = SLOT,
) -> float:
    """Eq. 7: the expected duration of a contention slot, ``P_0 sigma + P_s T_s + P_f T_c``,
    with ``T_s = t_s + DIFS`` (a whole TF cycle), ``T_c = t_s - d_mb + DIFS`` (a cycle that
    gets no Block Ack), ``DIFS = SIFS + 2 sigma`` and ``p_idle`` the probability ``P_0`` that
    nobody transmits (eq. 7's ``(1 - beta_ap) prod (1 - beta_j)^n_j``). The paper's printed
    ``P_s`` is not a probability; this takes P0.4's ``P_s = (1 - P_0)(1 - gamma)(1 - p_phy)``.
    With the AP as the only contender, ``p_idle = 1 - beta_ap`` and a cycle starts every
    ``E[X] / beta_ap`` on average."""
    difs = c.sifs + 2 * sigma
    t_s = cycle_duration(c)
    p_s = (1 - p_idle) * (1 - gamma) * (1 - p_phy)
    p_f = 1 - p_idle - p_s
    return p_idle * sigma + p_s * (t_s + difs) + p_f * (t_s - c.d_mb + difs)


# -- The cell's durations from the 802.11ax frame formats --------------------------------------

_NON_HT_BITS_PER_SYMBOL = {6: 24, 12: 48, 24: 96}
# Data subcarriers per RU size (802.11ax-2021 Table 27-13 and following).
_RU_DATA_SUBCARRIERS = {26: 24, 52: 48, 106: 102, 242: 234, 484: 468, 996: 980}
_RU_COUNT = {
    20: {26: 9, 52: 4, 106: 2, 242: 1},
    40: {26: 18, 52: 8, 106: 4, 242: 2, 484: 1},
    80: {26: 37, 52: 16, 106: 8, 242: 4, 484: 2, 996: 1},
}
# HE-MCS 0-11: (coded bits per subcarrier, code rate).
_HE_MCS = [
    (1, 1 / 2), (2, 1 / 2), (2, 3 / 4), (4, 1 / 2), (4, 3 / 4), (6, 2 / 3),
    (6, 3 / 4), (6, 5 / 6), (8, 3 / 4), (8, 5 / 6), (10, 3 / 4), (10, 5 / 6),
]  # fmt: skip


def _non_ht(rate_mbps: int, psdu_bytes: int) -> float:
    """A non-HT (duplicate) PPDU: 20 us preamble, 4 us symbols of 16 + 8 L + 6 tail bits."""
    return 20 * US + 4 * US * math.ceil((22 + 8 * psdu_bytes) / _NON_HT_BITS_PER_SYMBOL[rate_mbps])


def equal_ru(width_mhz: int, stations: int) -> tuple[int, int]:
    """ns-3's equal split for ``stations``: (tones, count), the largest count not above it."""
    for tones, count in sorted(_RU_COUNT[width_mhz].items()):
        if count <= stations:
            return tones, count
    raise ValueError(f"no RU size for {stations} stations at {width_mhz} MHz")


def _ru_bits_per_symbol(tones: int, mcs: int) -> float:
    bits, rate = _HE_MCS[mcs]
    return _RU_DATA_SUBCARRIERS[tones] * bits * rate


def he_cycle(
    stations: int, width_mhz: int, mcs: int, gi_ns: int = 800, t_d: float = 5484e-6
) -> TfCycle:
    """The durations of eq. 1 for ``stations`` saturated stations on equal RUs of a
    ``width_mhz`` channel at HE-MCS ``mcs``, 1 spatial stream, granted TB PPDUs of at most
    ``t_d`` (aPPDUMaxTime by default; the PPDU is the whole data symbols that fit after its
    48 us preamble): triggers at 6 Mbit/s (28 + 5 or 6 bytes per user), QoS Null reports (34
    bytes) in HE TB PPDUs, and the Multi-STA Block Ack (22 + 36 bytes per user) at the control
    response rate (24 Mbit/s from HE-MCS 3)."""
    tones, count = equal_ru(width_mhz, stations)
    symbol = (12.8 + gi_ns / 1000) * US
    per_symbol = _ru_bits_per_symbol(tones, mcs)
    t_phy = 48 * US
    d_bsr = t_phy + math.ceil((16 + 8 * 34 + 6) / per_symbol) * symbol
    response_rate = 24 if mcs >= 3 else (12 if mcs >= 1 else 6)
    return TfCycle(
        d_tfr=_non_ht(6, 28 + 5 * count),
        d_bsr=d_bsr,
        d_tf=_non_ht(6, 28 + 6 * count),
        d_ppdu=t_phy + math.floor(round((t_d - t_phy) / symbol, 9)) * symbol,
        d_mb=_non_ht(response_rate, 22 + 36 * count),
        t_d=t_d,
        t_phy=t_phy,
        rate_bps=per_symbol / symbol,
        stations=count,
    )
