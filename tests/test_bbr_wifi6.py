"""Paper 000's testbed as scenarios (scenarios/bbr-wifi6/): BBRv3 against CUBIC through an
802.11ax AP that shapes each direction to 10 Mbit/s with an htb class per subnet over the leaf
qdisc under test. The reproduction of the paper's experiments is issue 14's; these check the
setup: both directions shaped, and the paper's RTT ordering PFIFO > FQ-CoDel > CAKE."""

from __future__ import annotations

import pytest

import airlab

SHORT = {"duration": "20s", "metrics.warmup": "5s"}
#: 10 Mbit/s of 1514-byte frames carry 1448 bytes of TCP payload each.
SHAPED_GOODPUT = 10 * 1448 / 1514


def run(pattern: str, leaf: str) -> dict:
    return airlab.run(f"bbr-wifi6/{pattern}-{leaf}", seed=1, set=SHORT).summary


@pytest.mark.parametrize("pattern", ["uplink", "downlink", "bidir"])
def test_each_direction_is_shaped_to_10_mbits(pattern: str) -> None:
    s = run(pattern, "pfifo")
    ap = next(q for q in s["queues"] if q["name"] == "cell:ap")
    assert ap["kind"] == "htb"
    by_direction: dict[str, float] = {}
    for f in s["flows"]:
        direction = "up" if f["dst"] == "rs" else "down"
        by_direction[direction] = by_direction.get(direction, 0.0) + f["goodput_mbps"]
    # One direction alone fills its class. Both at once get about 9.2 of the 9.56 Mbit/s: each
    # class also carries the other direction's ACKs (about 0.21 Mbit/s of frames) and 5x more
    # retransmissions than alone (0.16 Mbit/s); with them the class is full (9.92-9.95 of 10
    # Mbit/s at seed 1). A faster PHY (HE-MCS 11) leaves this unchanged: it is not the channel.
    least = 0.97 if pattern != "bidir" else 0.93
    for direction, goodput in by_direction.items():
        assert least * SHAPED_GOODPUT < goodput < 1.005 * SHAPED_GOODPUT, (direction, goodput)
    expected = {"uplink": {"up"}, "downlink": {"down"}, "bidir": {"up", "down"}}[pattern]
    assert set(by_direction) == expected


@pytest.mark.parametrize("pattern", ["uplink", "downlink"])
def test_rtt_orders_pfifo_above_fq_codel_above_cake(pattern: str) -> None:
    def srtt_p50(leaf: str) -> float:
        return max(f["srtt_ms"]["p50"] for f in run(pattern, leaf)["flows"])

    pfifo, fq_codel, cake = srtt_p50("pfifo"), srtt_p50("fq_codel"), srtt_p50("cake")
    assert pfifo > 2 * fq_codel > 2 * cake, (pfifo, fq_codel, cake)
