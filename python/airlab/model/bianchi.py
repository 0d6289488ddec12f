"""Bianchi's saturation model of the IEEE 802.11 DCF, and single-station MAC efficiency.

Reference: G. Bianchi, "Performance analysis of the IEEE 802.11 distributed coordination
function", IEEE JSAC 18(3), 2000. ``n`` saturated stations share an ideal channel; each one
backs off with a window that starts at ``W`` (= CWmin + 1) and doubles on every collision up to
``2**m * W`` (= CWmax + 1). The collision probability ``p`` seen by a transmission is taken as
constant and independent of the backoff stage, which gives the fixed point (Bianchi eqs. 7, 9)::

    tau = 2 (1 - 2p) / ((1 - 2p)(W + 1) + p W (1 - (2p)^m))
    p   = 1 - (1 - tau)^(n - 1)

and the saturation throughput (eq. 13)::

    P_tr = 1 - (1 - tau)^n
    P_s  = n tau (1 - tau)^(n - 1) / P_tr
    S    = P_s P_tr E[P] / ((1 - P_tr) sigma + P_tr P_s T_s + P_tr (1 - P_s) T_c)

Bianchi's chain has no retry limit: a frame is retried until it gets through, the last stage
repeating forever. ``retry_limit`` selects the finite-retry variant (Wu et al., INFOCOM 2002;
Chatzimisios et al. 2002), in which a frame is dropped after ``retry_limit`` attempts and the
station starts the next frame at stage 0.

Times are in seconds, bits are bits, rates in bit/s. The caller supplies ``T_s`` and ``T_c``;
:func:`dcf_times` builds them from component durations as Bianchi does (basic access or
RTS/CTS), and :func:`fhss_times` gives his Table I parameter set.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

from scipy.optimize import brentq

__all__ = [
    "FHSS_ACK_BITS",
    "FHSS_CTS_BITS",
    "FHSS_DIFS",
    "FHSS_MAC_HEADER_BITS",
    "FHSS_PAYLOAD_BITS",
    "FHSS_PHY_HEADER_BITS",
    "FHSS_PROPAGATION",
    "FHSS_RATE_BPS",
    "FHSS_RTS_BITS",
    "FHSS_SIFS",
    "FHSS_SLOT",
    "BianchiResult",
    "DcfTimes",
    "dcf_times",
    "fhss_times",
    "saturation_throughput",
    "single_station_throughput",
    "solve",
    "tau_of_p",
]

# Bianchi (2000), Table I: the FHSS PHY parameter set used for the paper's figures.
FHSS_PAYLOAD_BITS = 8184
FHSS_MAC_HEADER_BITS = 272
FHSS_PHY_HEADER_BITS = 128
FHSS_ACK_BITS = 112  # plus the PHY header
FHSS_RTS_BITS = 160  # plus the PHY header
FHSS_CTS_BITS = 112  # plus the PHY header
FHSS_RATE_BPS = 1e6
FHSS_PROPAGATION = 1e-6
FHSS_SLOT = 50e-6
FHSS_SIFS = 28e-6
FHSS_DIFS = 128e-6


def _check_int(name: str, value: int, lowest: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < lowest:
        raise ValueError(f"{name} must be an integer >= {lowest}, got {value!r}")


def _check_time(name: str, value: float, *, positive: bool = False) -> None:
    if not value >= 0 or (positive and value == 0):
        kind = "> 0" if positive else ">= 0"
        raise ValueError(f"{name} must be {kind}, got {value!r}")


def tau_of_p(p: float, w: int, m: int, retry_limit: int | None = None) -> float:
    """The per-slot transmission probability of a station whose attempts collide with
    probability ``p``.

    Without ``retry_limit`` this is Bianchi's eq. 7, written as
    ``2 / (W + 1 + p W sum_{k<m} (2p)^k)``, which is the same expression with the ``1 - 2p``
    factor divided out, so it stays finite at ``p = 1/2``.

    With ``retry_limit = R`` (at most ``R`` transmission attempts per frame, the 802.11 meaning
    of dot11ShortRetryLimit), stage ``i < R`` is reached with probability ``p**i`` and takes on
    average ``(W_i + 1) / 2`` slots (uniform backoff over ``0 .. W_i - 1`` plus the transmission
    slot), ``W_i = 2**min(i, m) * W``; tau is the mean number of attempts per frame over the
    mean number of slots per frame.

    Args:
        p: conditional collision probability, in [0, 1].
        w: minimum contention window W = CWmin + 1 (>= 1).
        m: number of window doublings, CWmax + 1 = 2**m * W (>= 0).
        retry_limit: maximum attempts per frame, or None for Bianchi's unlimited retries.
    """
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"p must be in [0, 1], got {p!r}")
    _check_int("w", w, 1)
    _check_int("m", m, 0)
    if retry_limit is None:
        geometric = sum((2.0 * p) ** k for k in range(m))
        return 2.0 / (w + 1.0 + p * w * geometric)
    _check_int("retry_limit", retry_limit, 1)
    attempts = 0.0
    slots = 0.0
    for stage in range(retry_limit):
        reach = p**stage
        attempts += reach
        slots += reach * (2 ** min(stage, m) * w + 1.0) / 2.0
    return attempts / slots


def solve(n: int, w: int, m: int, retry_limit: int | None = None) -> tuple[float, float]:
    """Solve Bianchi's fixed point for ``n`` saturated stations; returns ``(tau, p)``.

    ``p - (1 - (1 - tau(p))^(n-1))`` is increasing in ``p`` (tau falls as p rises), negative at
    ``p = 0`` for ``n >= 2`` and non-negative at ``p = 1``, so the root is unique and bracketed;
    it is found with Brent's method on ``p`` in [0, 1]. ``n = 1`` gives ``p = 0`` and
    ``tau = 2 / (W + 1)``.

    Args:
        n: number of stations (>= 1).
        w: minimum contention window W = CWmin + 1.
        m: number of window doublings (CWmax + 1 = 2**m * W).
        retry_limit: see :func:`tau_of_p`.
    """
    _check_int("n", n, 1)

    def gap(p: float) -> float:
        return p - (1.0 - (1.0 - tau_of_p(p, w, m, retry_limit)) ** (n - 1))

    low, high = gap(0.0), gap(1.0)
    if low >= 0.0:
        p = 0.0
    elif high <= 0.0:
        p = 1.0
    else:
        p = float(brentq(gap, 0.0, 1.0, xtol=1e-15, maxiter=200))
    return tau_of_p(p, w, m, retry_limit), p


@dataclass(frozen=True)
class BianchiResult:
    """The solved model for one (n, W, m) and one set of times.

    Attributes:
        tau: probability that a station transmits in a random slot.
        p: conditional collision probability of a transmission.
        p_tr: probability that at least one station transmits in a slot.
        p_s: probability that a transmission is successful, given one occurs.
        mean_slot: mean duration of a (virtual) slot, seconds: the denominator of eq. 13.
        throughput_bps: payload bits delivered per second, all stations together.
        normalized: fraction of channel time carrying payload (Bianchi's S), or None when no
            payload time was given.
    """

    n: int
    w: int
    m: int
    tau: float
    p: float
    p_tr: float
    p_s: float
    mean_slot: float
    throughput_bps: float
    normalized: float | None


def saturation_throughput(
    n: int,
    w: int,
    m: int,
    slot: float,
    t_s: float,
    t_c: float,
    payload_bits: float,
    payload_time: float | None = None,
    retry_limit: int | None = None,
) -> BianchiResult:
    """Bianchi's saturation throughput (eq. 13) for ``n`` stations.

    Args:
        n, w, m: stations, minimum window W = CWmin + 1, doublings (CWmax + 1 = 2**m W).
        slot: empty slot duration sigma, seconds.
        t_s: time the channel is busy for a successful transmission, seconds.
        t_c: time the channel is busy for a collision, seconds.
        payload_bits: payload per successful frame, E[P] in bits.
        payload_time: airtime of that payload, seconds; if given, ``normalized`` is
            ``throughput_bps * payload_time / payload_bits`` (Bianchi's S).
        retry_limit: see :func:`tau_of_p`.
    """
    _check_time("slot", slot, positive=True)
    _check_time("t_s", t_s, positive=True)
    _check_time("t_c", t_c)
    _check_time("payload_bits", payload_bits)
    if payload_time is not None:
        _check_time("payload_time", payload_time)
    tau, p = solve(n, w, m, retry_limit)
    p_tr = 1.0 - (1.0 - tau) ** n
    success = n * tau * (1.0 - tau) ** (n - 1)  # P_tr * P_s
    p_s = success / p_tr
    mean_slot = (1.0 - p_tr) * slot + success * t_s + (p_tr - success) * t_c
    throughput = success * payload_bits / mean_slot
    normalized = None if payload_time is None else success * payload_time / mean_slot
    return BianchiResult(
        n=n,
        w=w,
        m=m,
        tau=tau,
        p=p,
        p_tr=p_tr,
        p_s=p_s,
        mean_slot=mean_slot,
        throughput_bps=throughput,
        normalized=normalized,
    )


@dataclass(frozen=True)
class DcfTimes:
    """The time parameters of :func:`saturation_throughput` (seconds, bits)."""

    slot: float
    t_s: float
    t_c: float
    payload_bits: float
    payload_time: float | None = None

    def kwargs(self) -> dict[str, Any]:
        """Keyword arguments for :func:`saturation_throughput`: the fields, by name."""
        return asdict(self)


def dcf_times(
    *,
    payload_bits: float,
    payload_time: float,
    header_time: float,
    ack_time: float,
    sifs: float,
    difs: float,
    slot: float,
    delta: float = 0.0,
    rts_time: float | None = None,
    cts_time: float | None = None,
    collision_payload_time: float | None = None,
    t_c: float | None = None,
) -> DcfTimes:
    """T_s and T_c as Bianchi builds them, for basic access::

        T_s = H + E[P] + SIFS + delta + ACK + DIFS + delta
        T_c = H + E[P*] + DIFS + delta

    and, given ``rts_time`` and ``cts_time``, with the RTS/CTS exchange (a collision then
    costs only the RTS)::

        T_s = RTS + SIFS + delta + CTS + SIFS + delta + H + E[P] + SIFS + delta + ACK
              + DIFS + delta
        T_c = RTS + DIFS + delta

    Args:
        payload_bits: E[P] in bits.
        payload_time: E[P] as airtime.
        header_time: H, PHY + MAC header airtime.
        ack_time: ACK airtime, including its PHY header.
        sifs, difs, slot: interframe spaces and the slot time.
        delta: propagation delay.
        rts_time, cts_time: RTS and CTS airtime, including their PHY headers; both or neither.
        collision_payload_time: basic access only: E[P*], the mean airtime of the longest
            payload in a collision; defaults to ``payload_time`` (fixed payloads).
        t_c: use this collision time instead of the formula (e.g. PPDU + EIFS).
    """
    t_s = header_time + payload_time + sifs + delta + ack_time + difs + delta
    if (rts_time is None) != (cts_time is None):
        raise ValueError("rts_time and cts_time go together: give both or neither")
    if rts_time is not None and cts_time is not None:
        if collision_payload_time is not None:
            raise ValueError(
                "collision_payload_time is for basic access: with RTS/CTS a collision costs the RTS"
            )
        t_s += rts_time + sifs + delta + cts_time + sifs + delta
        if t_c is None:
            t_c = rts_time + difs + delta
    elif t_c is None:
        longest = payload_time if collision_payload_time is None else collision_payload_time
        t_c = header_time + longest + difs + delta
    return DcfTimes(slot, t_s, t_c, payload_bits, payload_time)


def fhss_times(access: Literal["basic", "rts"] = "basic") -> DcfTimes:
    """Bianchi's Table I (FHSS, 1 Mbit/s) parameter set for basic or RTS/CTS access.

    Payload 8184 bit, MAC header 272 bit, PHY header 128 bit, ACK 112 bit, RTS 160 bit and CTS
    112 bit (each plus the PHY header), propagation delay 1 us, slot 50 us, SIFS 28 us,
    DIFS 128 us. With these T_s = 8982 us, T_c = 8713 us (basic); T_s = 9568 us, T_c = 417 us
    (RTS/CTS).
    """
    rate = FHSS_RATE_BPS
    common: dict[str, Any] = {
        "payload_bits": FHSS_PAYLOAD_BITS,
        "payload_time": FHSS_PAYLOAD_BITS / rate,
        "header_time": (FHSS_MAC_HEADER_BITS + FHSS_PHY_HEADER_BITS) / rate,
        "ack_time": (FHSS_ACK_BITS + FHSS_PHY_HEADER_BITS) / rate,
        "sifs": FHSS_SIFS,
        "difs": FHSS_DIFS,
        "slot": FHSS_SLOT,
        "delta": FHSS_PROPAGATION,
    }
    if access == "basic":
        return dcf_times(**common)
    if access == "rts":
        return dcf_times(
            **common,
            rts_time=(FHSS_RTS_BITS + FHSS_PHY_HEADER_BITS) / rate,
            cts_time=(FHSS_CTS_BITS + FHSS_PHY_HEADER_BITS) / rate,
        )
    raise ValueError(f"access must be 'basic' or 'rts', got {access!r}")


def single_station_throughput(
    payload_bits: float,
    t_ppdu: float,
    t_ack: float,
    sifs: float,
    difs: float,
    slot: float,
    cw_min: int,
) -> float:
    """Payload throughput (bit/s) of one saturated station with no contention.

    Each frame costs DIFS, the mean backoff, the data PPDU, SIFS and the ACK::

        payload_bits / (DIFS + (CWmin / 2) slot + PPDU + SIFS + ACK)

    The backoff counter is drawn uniformly from 0 .. CWmin, so its mean is CWmin / 2 slots. No
    frame is lost, so the window never grows. This equals :func:`saturation_throughput` with
    ``n = 1``, ``W = CWmin + 1`` and zero propagation delay.

    Args:
        payload_bits: payload per frame (what is counted as throughput).
        t_ppdu: airtime of the whole data PPDU (preamble, headers, payload, FCS).
        t_ack: airtime of the ACK PPDU.
        sifs, difs, slot: interframe spaces and slot time, seconds.
        cw_min: CWmin (e.g. 15 for 802.11a/n OFDM).
    """
    _check_int("cw_min", cw_min, 0)
    for name, value in (
        ("payload_bits", payload_bits),
        ("t_ppdu", t_ppdu),
        ("t_ack", t_ack),
        ("sifs", sifs),
        ("difs", difs),
        ("slot", slot),
    ):
        _check_time(name, value)
    cycle = difs + cw_min / 2.0 * slot + t_ppdu + sifs + t_ack
    if cycle <= 0.0:
        raise ValueError("the per-frame time must be positive")
    return payload_bits / cycle
