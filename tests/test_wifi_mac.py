"""The simulator's 802.11 MAC against closed forms: Bianchi's saturation throughput for n
contending stations (basic access and RTS/CTS), and the MAC efficiency of one station.

The timing is 802.11a at 5 GHz (slot 9 us, SIFS 16 us, AIFS[BE] = 16 + 3 x 9 = 43 us), every
station sending 1500-byte UDP packets (1538-byte MPDUs) to the AP. Durations are computed here
from the standard, independently of the engine's PHY code.
"""

from __future__ import annotations

import math

import pytest

import airlab
from airlab.model import bianchi

SLOT, SIFS = 9e-6, 16e-6
AIFS = SIFS + 3 * SLOT
IP_BYTES = 1500
MPDU_BYTES = IP_BYTES + 38  # QoS data header 26, FCS 4, LLC/SNAP 8


def ofdm_duration(psdu_bytes: int, rate_mbps: int) -> float:
    """802.11a PPDU: 20 us preamble + SIGNAL, then 4 us symbols of 16 + 8 L + 6 bits."""
    bits_per_symbol = rate_mbps * 4
    return 20e-6 + math.ceil((16 + 8 * psdu_bytes + 6) / bits_per_symbol) * 4e-6


def control_rate(rate_mbps: int) -> int:
    """The highest mandatory rate (6, 12, 24 Mbit/s) not above the data rate."""
    return max(r for r in (6, 12, 24) if r <= rate_mbps)


def cell(n: int, rate: str, rts: bool, seconds: int = 6) -> dict:
    stations = [f"s{i}" for i in range(n)]
    flows = "".join(
        f'[[flow]]\nname = "u{i}"\nfrom = "s{i}"\nto = "ap"\napp = {{ kind = "udp" }}\n'
        for i in range(n)
    )
    text = f"""
name = "cell"
duration = "{seconds}s"
hosts = ["ap", {", ".join(f'"{s}"' for s in stations)}]
[metrics]
warmup = "1s"
[[wifi]]
name = "bss"
standard = "a"
ap = "ap"
stations = [{", ".join(f'"{s}"' for s in stations)}]
rate = "{rate}"
rts = {"true" if rts else "false"}
{flows}"""
    return airlab.run_text(text, seed=1).summary


def total_throughput_bps(summary: dict) -> float:
    links = summary["wifi"][0]["links"]
    return sum(lk["throughput_mbps"] for lk in links) * 1e6


@pytest.mark.parametrize("access", ["basic", "rts"])
@pytest.mark.parametrize("n", [5, 10, 20, 50])
def test_saturation_throughput_matches_bianchi(n: int, access: str) -> None:
    rate = 54
    ack = ofdm_duration(14, control_rate(rate))
    ack_lowest = ofdm_duration(14, 6)
    data = ofdm_duration(MPDU_BYTES, rate)
    # A collision costs the longest PPDU plus EIFS (SIFS + ACK at 6 Mbit/s + AIFS), which
    # every station, the colliding ones included, defers before counting again.
    eifs = SIFS + ack_lowest + AIFS
    if access == "basic":
        t_s = data + SIFS + ack + AIFS
        t_c = data + eifs
    else:
        rts, cts = ofdm_duration(20, control_rate(rate)), ofdm_duration(14, control_rate(rate))
        t_s = rts + SIFS + cts + SIFS + data + SIFS + ack + AIFS
        t_c = rts + eifs
    model = bianchi.saturation_throughput(
        n, w=16, m=6, slot=SLOT, t_s=t_s, t_c=t_c, payload_bits=IP_BYTES * 8, retry_limit=7
    )
    sim = total_throughput_bps(cell(n, f"{rate}Mbit", access == "rts"))
    err = sim / model.throughput_bps - 1
    print(f"n={n} {access}: sim {sim / 1e6:.2f} Mbit/s, Bianchi {model.throughput_bps / 1e6:.2f}")
    assert abs(err) <= 0.02, f"{sim / 1e6:.3f} vs {model.throughput_bps / 1e6:.3f} Mbit/s"


@pytest.mark.parametrize("rate", [6, 12, 24, 54])
def test_one_station_reaches_the_analytic_mac_efficiency(rate: int) -> None:
    want = bianchi.single_station_throughput(
        IP_BYTES * 8,
        t_ppdu=ofdm_duration(MPDU_BYTES, rate),
        t_ack=ofdm_duration(14, control_rate(rate)),
        sifs=SIFS,
        difs=AIFS,
        slot=SLOT,
        cw_min=15,
    )
    got = total_throughput_bps(cell(1, f"{rate}Mbit", rts=False, seconds=4))
    assert abs(got / want - 1) <= 0.02, f"{rate} Mbit/s: {got / 1e6:.3f} vs {want / 1e6:.3f}"


def test_mac80211_layer_bounds_latency_under_load_through_the_python_api() -> None:
    """The built-in ax AP runs Linux's mac80211 layer: a ping beside a CUBIC download stays
    within the wire's 4 ms + AQL's 12 ms + one PPDU and channel access (< 24 ms); the same AP as
    a FIFO (``per_station`` device, pfifo 1000) queues it behind CUBIC's hundreds of ms, and the
    drops move from the TXQs (``device_drops``) to the qdisc."""
    path = "wifi6/latency-under-load"
    short = {"duration": "10s", "metrics.warmup": "3s"}
    mac = airlab.run(path, seed=1, set=short).summary
    fifo_set = {
        **short,
        "wifi.bss.device": {"kind": "per_station", "size": 128},
        "wifi.bss.qdisc": {"kind": "pfifo", "limit": 1000},
    }
    fifo = airlab.run(path, seed=1, set=fifo_set).summary

    def ping_p50(s: dict) -> float:
        return next(f for f in s["flows"] if f["name"] == "ping")["rtt_ms"]["p50"]

    def ap(s: dict) -> dict:
        return next(q for q in s["queues"] if q["name"] == "bss:ap")

    assert ping_p50(mac) < 24.0
    assert ping_p50(fifo) > 10 * ping_p50(mac)
    assert ap(mac)["kind"] == "noqueue" and ap(mac)["drops"] == 0
    assert ap(fifo)["device_drops"] == 0


def test_downlink_ofdma_through_the_python_api() -> None:
    """The built-in DL OFDMA cell: with ``ofdma = "dl"`` the AP serves its eight stations (40
    MHz) in HE MU PPDUs, on 52-tone RUs when all eight have frames and on 106- or 242-tone RUs
    when fewer do (a mean near 86 tones); ``cell.ofdma = "off"`` serves them one at a time over
    the whole channel, which for long TCP downloads carries more (fewer data subcarriers and
    an MU-BAR per PPDU under OFDMA)."""
    path = "wifi6/dl-ofdma"
    short = {"duration": "8s", "metrics.warmup": "3s"}
    mu = airlab.run(path, seed=1, set=short).summary
    su = airlab.run(path, seed=1, set={**short, "cell.ofdma": "off"}).summary

    def ap_links(s: dict) -> list[dict]:
        return [link for link in s["wifi"][0]["links"] if link["from"] == "ap"]

    def total(s: dict) -> float:
        return sum(f["goodput_mbps"] for f in s["flows"])

    for link in ap_links(mu):
        assert link["mu_ppdus"] >= 0.99 * link["ppdus"] > 0
        assert 52.0 < link["mu_ru_tones"] < 242.0
    assert all(link["mu_ppdus"] == 0 for link in ap_links(su))
    assert 0.6 < total(mu) / total(su) < 0.85


def test_uplink_ofdma_through_the_python_api() -> None:
    """The built-in UL OFDMA cell: three CUBIC uploads that the AP triggers two at a time (two
    106-tone RUs at 20 MHz), sharing evenly; ``cell.ofdma = "off"`` sends them by EDCA alone,
    with no trigger cycles and a deeper queue. A bad MU EDCA key names itself."""
    path = "wifi6/ul-ofdma"
    short = {"duration": "6s", "metrics.warmup": "2s"}
    mu = airlab.run(path, seed=1, set=short).summary
    su = airlab.run(path, seed=1, set={**short, "cell.ofdma": "off"}).summary
    ul = mu["wifi"][0]["ul_ofdma"]
    assert ul["users_per_trigger"] == 2.0 and ul["cycles"] > 500
    for link in (lk for lk in mu["wifi"][0]["links"] if lk["to"] == "ap"):
        assert link["mu_ppdus"] > 0.9 * link["ppdus"] and link["mu_ru_tones"] == 106.0
    assert "ul_ofdma" not in su["wifi"][0]
    assert mu["jain_index"] > 0.99

    def rtt_p50(s: dict) -> float:
        return max(f["rtt_ms"]["p50"] for f in s["flows"])

    assert rtt_p50(mu) < rtt_p50(su)
    with pytest.raises(airlab.ScenarioError, match=r"wifi\[0\]\.mu_edca\.aifsn: aifsn must be 0"):
        airlab.run(path, seed=1, set={**short, "cell.mu_edca": {"aifsn": 1}})


def test_range_cell_through_the_python_api_and_the_cli(cli) -> None:
    """The built-in range cell: ideal rate control gives each station the fastest HE-MCS its
    distance allows, the summary reports each link's SNR, and the near stations get more
    goodput for the same airtime (mac80211's airtime fairness). Moving the far station beyond
    the -82 dBm detection floor (51.5 m) starves it. A bad distance names its key from the CLI."""
    path = "wifi6/range"
    short = {"duration": "5s", "metrics.warmup": "1s"}
    resolved = airlab.validate(path)
    mcs = {lk["to"]: lk["phy"]["mcs"] for lk in resolved["wifi"][0]["links"] if lk["from"] == "ap"}
    assert mcs == {"sta_3m": 11, "sta_12m": 9, "sta_25m": 4, "sta_40m": 3}
    s = airlab.run(path, seed=1, set=short).summary
    down = {lk["to"]: lk for lk in s["wifi"][0]["links"] if lk["from"] == "ap"}
    # 63.31 - 30 log10(d) dB over 20 MHz.
    assert down["sta_12m"]["snr_db"] == pytest.approx(63.31 - 30 * math.log10(12), abs=0.01)
    goodput = {f["name"]: f["goodput_mbps"] for f in s["flows"]}
    order = ["to_sta_3m", "to_sta_12m", "to_sta_25m", "to_sta_40m"]
    assert [goodput[n] for n in order] == sorted(goodput.values(), reverse=True)
    shares = [down[n]["airtime_share"] for n in down]
    assert max(shares) - min(shares) < 0.05
    gone = airlab.run(path, seed=1, set={**short, "cell.node[3].distance_m": 60}).summary
    assert next(f for f in gone["flows"] if f["name"] == "to_sta_40m")["goodput_mbps"] == 0.0
    bad = cli("run", path, "--set", "cell.node[1].distance_m=0")
    assert bad.returncode == 2
    assert "wifi[0].node[1].distance_m: distance_m must be above 0" in bad.stderr


def test_ofdma_scheduler_through_the_python_api() -> None:
    """``ofdma_scheduler`` reaches the engine: with four of the eight TCP downloads per HE MU
    PPDU every scheduler serves every station, each in its own order (the counts differ), and
    an unknown scheduler is named. Their behaviour is checked in tests/it/mu_scheduler.rs."""
    path = "wifi6/dl-ofdma"
    short = {"duration": "4s", "metrics.warmup": "1s", "cell.ofdma_stations": 4}

    def ppdus(scheduler: str) -> list[int]:
        s = airlab.run(path, seed=1, set={**short, "cell.ofdma_scheduler": scheduler}).summary
        return [lk["mu_ppdus"] for lk in s["wifi"][0]["links"] if lk["from"] == "ap"]

    counts = {k: ppdus(k) for k in ("round_robin", "proportional_fair", "airtime_fair")}
    assert all(len(c) == 8 and min(c) > 0 for c in counts.values()), counts
    assert counts["round_robin"] != counts["proportional_fair"] != counts["airtime_fair"]
    with pytest.raises(airlab.ScenarioError, match=r"wifi\[0\]\.ofdma_scheduler"):
        airlab.run(path, seed=1, set={**short, "cell.ofdma_scheduler": "max_rate"})
