"""Bianchi's 802.11 DCF saturation model and the single-station MAC efficiency.

Reference values: /work/shared/reference-facts.md section 6.6 (Bianchi 2000, Table I FHSS
parameters; normalized saturation throughput and collision probability).

The module is loaded from its file so these tests need neither the compiled engine nor an
install of this tree.
"""

from __future__ import annotations

import importlib.util
import itertools
import math
import sys
from pathlib import Path
from types import ModuleType

import pytest

_PATH = Path(__file__).resolve().parents[1] / "python" / "airlab" / "model" / "bianchi.py"


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("_airlab_model_bianchi", _PATH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


bianchi = _load()

NS = (5, 10, 20, 50)

# (W, m, access) -> normalized throughput for n = 5, 10, 20, 50 (reference-facts 6.6).
THROUGHPUT = {
    (32, 3, "basic"): (0.810, 0.753, 0.679, 0.553),
    (32, 3, "rts"): (0.834, 0.837, 0.836, 0.827),
    (32, 5, "basic"): (0.810, 0.758, 0.698, 0.611),
    (32, 5, "rts"): (0.834, 0.837, 0.836, 0.832),
    (128, 3, "basic"): (0.825, 0.826, 0.798, 0.725),
    (128, 3, "rts"): (0.798, 0.822, 0.833, 0.836),
}
P_W32_M5 = (0.178, 0.290, 0.399, 0.532)


@pytest.mark.parametrize("key", list(THROUGHPUT), ids=lambda k: f"W{k[0]}-m{k[1]}-{k[2]}")
def test_normalized_throughput_matches_reference(key: tuple[int, int, str]) -> None:
    w, m, access = key
    times = bianchi.fhss_times(access)
    got = [bianchi.saturation_throughput(n, w, m, **times.kwargs()).normalized for n in NS]
    for n, value, want in zip(NS, got, THROUGHPUT[key], strict=True):
        assert value == pytest.approx(want, abs=0.002), f"n={n}: {got}"


def test_collision_probability_matches_reference() -> None:
    got = [bianchi.solve(n, 32, 5)[1] for n in NS]
    for value, want in zip(got, P_W32_M5, strict=True):
        assert value == pytest.approx(want, abs=0.002), got


def test_fhss_times_follow_bianchi() -> None:
    basic = bianchi.fhss_times("basic")
    # H = 400 us, E[P] = 8184 us, ACK = 240 us, delta = 1 us.
    assert basic.t_s == pytest.approx(400e-6 + 8184e-6 + 28e-6 + 1e-6 + 240e-6 + 128e-6 + 1e-6)
    assert basic.t_s == pytest.approx(8982e-6)
    assert basic.t_c == pytest.approx(8713e-6)
    assert basic.slot == pytest.approx(50e-6)
    assert basic.payload_bits == 8184
    assert basic.payload_time == pytest.approx(8184e-6)
    rts = bianchi.fhss_times("rts")
    # RTS 288 us, CTS 240 us.
    assert rts.t_s == pytest.approx(288e-6 + 29e-6 + 240e-6 + 29e-6 + 8982e-6)
    assert rts.t_c == pytest.approx(288e-6 + 128e-6 + 1e-6)
    with pytest.raises(ValueError, match="access"):
        bianchi.fhss_times("cts")


def test_absolute_throughput_is_normalized_times_rate() -> None:
    res = bianchi.saturation_throughput(10, 32, 3, **bianchi.fhss_times("basic").kwargs())
    assert res.throughput_bps == pytest.approx(res.normalized * 1e6)
    no_time = bianchi.saturation_throughput(
        10, 32, 3, slot=50e-6, t_s=8982e-6, t_c=8713e-6, payload_bits=8184
    )
    assert no_time.normalized is None
    assert no_time.throughput_bps == pytest.approx(res.throughput_bps)


@pytest.mark.parametrize("w,m", [(32, 3), (32, 5), (128, 3), (16, 6), (1, 0), (2, 0)])
@pytest.mark.parametrize("n", [2, 3, 7, 50, 500])
def test_fixed_point_holds(n: int, w: int, m: int) -> None:
    tau, p = bianchi.solve(n, w, m)
    assert 0.0 < tau <= 1.0 and 0.0 <= p <= 1.0
    assert p == pytest.approx(1.0 - (1.0 - tau) ** (n - 1), abs=1e-12)
    assert tau == pytest.approx(bianchi.tau_of_p(p, w, m), abs=1e-15)


@pytest.mark.parametrize("w,m", [(32, 3), (32, 5), (128, 3), (16, 0)])
def test_one_station_never_collides(w: int, m: int) -> None:
    tau, p = bianchi.solve(1, w, m)
    assert p == 0.0
    assert tau == pytest.approx(2.0 / (w + 1))


def test_tau_is_bianchi_eq7() -> None:
    for w, m in [(32, 3), (32, 5), (128, 3)]:
        for p in (0.0, 0.1, 0.3, 0.49, 0.51, 0.7, 0.99):
            eq7 = 2 * (1 - 2 * p) / ((1 - 2 * p) * (w + 1) + p * w * (1 - (2 * p) ** m))
            assert bianchi.tau_of_p(p, w, m) == pytest.approx(eq7, rel=1e-12)
        # removable singularity at p = 1/2: the limit, W+1 + (W/2) m
        assert bianchi.tau_of_p(0.5, w, m) == pytest.approx(2 / (w + 1 + w * m / 2))


def test_throughput_falls_with_n_for_basic_access() -> None:
    times = bianchi.fhss_times("basic")
    values = [
        bianchi.saturation_throughput(n, 32, 3, **times.kwargs()).normalized for n in range(1, 101)
    ]
    # A lone station idles through its whole backoff (15.5 slots): a second one fills some of
    # those slots (0.839 -> 0.847); from n = 2 on, collisions win and S falls.
    assert values[1] > values[0]
    assert all(b < a for a, b in itertools.pairwise(values[1:]))
    probabilities = [bianchi.solve(n, 32, 3)[1] for n in range(1, 101)]
    assert all(b > a for a, b in itertools.pairwise(probabilities))


def test_collision_time_can_be_supplied() -> None:
    kwargs = {
        "payload_bits": 12000,
        "payload_time": 222e-6,
        "header_time": 30e-6,
        "ack_time": 28e-6,
        "sifs": 16e-6,
        "difs": 34e-6,
        "slot": 9e-6,
    }
    formula = bianchi.dcf_times(**kwargs)
    assert formula.t_c == pytest.approx(30e-6 + 222e-6 + 34e-6)
    eifs = bianchi.dcf_times(**kwargs, t_c=252e-6 + 16e-6 + 28e-6 + 34e-6)
    assert eifs.t_c == pytest.approx(330e-6)
    assert eifs.t_s == pytest.approx(formula.t_s)
    a = bianchi.saturation_throughput(20, 16, 6, **formula.kwargs())
    b = bianchi.saturation_throughput(20, 16, 6, **eifs.kwargs())
    assert (a.tau, a.p) == (b.tau, b.p)
    assert b.throughput_bps < a.throughput_bps
    rts = bianchi.dcf_times(**kwargs, rts_time=52e-6, cts_time=44e-6, t_c=1e-4)
    assert rts.t_c == 1e-4
    # The exchange adds RTS + CTS + 2 (SIFS + delta) to a success.
    assert rts.t_s == pytest.approx(formula.t_s + 52e-6 + 44e-6 + 2 * 16e-6)
    with pytest.raises(ValueError, match="give both or neither"):
        bianchi.dcf_times(**kwargs, rts_time=52e-6)
    with pytest.raises(ValueError, match="collision_payload_time is for basic access"):
        bianchi.dcf_times(**kwargs, rts_time=52e-6, cts_time=44e-6, collision_payload_time=3e-4)


def test_single_station_80211a_54mbps_by_hand() -> None:
    # 802.11a OFDM at 54 Mbit/s: 216 data bits per 4 us symbol, 20 us preamble + SIGNAL;
    # 16 SERVICE bits + 8 bits per octet + 6 tail bits. 1500 B payload in a 1538 B MPDU.
    ppdu = 20e-6 + math.ceil((16 + 8 * 1538 + 6) / 216) * 4e-6
    assert ppdu == pytest.approx(252e-6)  # 58 symbols
    ack = 20e-6 + math.ceil((16 + 8 * 14 + 6) / 96) * 4e-6  # 24 Mbit/s, 96 bits/symbol
    assert ack == pytest.approx(28e-6)
    got = bianchi.single_station_throughput(
        payload_bits=8 * 1500, t_ppdu=ppdu, t_ack=ack, sifs=16e-6, difs=34e-6, slot=9e-6, cw_min=15
    )
    # 34 + 7.5 * 9 + 252 + 16 + 28 = 397.5 us per 12000 payload bits
    assert got == pytest.approx(12000 / 397.5e-6, rel=1e-12)
    assert got == pytest.approx(30.19e6, rel=1e-3)


def test_single_station_is_bianchi_with_one_station() -> None:
    ppdu, ack, sifs, difs, slot = 252e-6, 28e-6, 16e-6, 34e-6, 9e-6
    single = bianchi.single_station_throughput(12000, ppdu, ack, sifs, difs, slot, 15)
    times = bianchi.dcf_times(
        payload_bits=12000,
        payload_time=ppdu,
        header_time=0.0,
        ack_time=ack,
        sifs=sifs,
        difs=difs,
        slot=slot,
    )
    res = bianchi.saturation_throughput(1, 16, 6, **times.kwargs())
    assert res.throughput_bps == pytest.approx(single, rel=1e-12)
    assert res.p_s == pytest.approx(1.0, abs=1e-12)


def test_finite_retry_variant() -> None:
    # one attempt per frame: never backs off beyond stage 0
    tau, p = bianchi.solve(10, 32, 3, retry_limit=1)
    assert tau == pytest.approx(2 / 33)
    assert p == pytest.approx(1 - (1 - 2 / 33) ** 9)
    # a retry limit far beyond where frames get through is Bianchi's unlimited chain
    assert bianchi.solve(20, 32, 3, retry_limit=400) == pytest.approx(bianchi.solve(20, 32, 3))
    # the renewal form with unlimited stages, summed far enough, is eq. 7
    for p in (0.1, 0.4, 0.6):
        assert bianchi.tau_of_p(p, 32, 5, retry_limit=2000) == pytest.approx(
            bianchi.tau_of_p(p, 32, 5), rel=1e-9
        )
    # dropping frames after 2 attempts keeps stations more aggressive than retrying forever
    assert bianchi.solve(20, 32, 3, retry_limit=2)[0] > bianchi.solve(20, 32, 3)[0]


@pytest.mark.parametrize(
    "call",
    [
        lambda: bianchi.solve(0, 32, 3),
        lambda: bianchi.solve(5, 0, 3),
        lambda: bianchi.solve(5, 32, -1),
        lambda: bianchi.solve(5, 32.0, 3),
        lambda: bianchi.solve(5, 32, 3, retry_limit=0),
        lambda: bianchi.tau_of_p(1.5, 32, 3),
        lambda: bianchi.saturation_throughput(5, 32, 3, 0.0, 1e-3, 1e-3, 8000),
        lambda: bianchi.single_station_throughput(8000, -1.0, 28e-6, 16e-6, 34e-6, 9e-6, 15),
    ],
)
def test_bad_arguments_are_rejected(call) -> None:
    with pytest.raises(ValueError):
        call()
