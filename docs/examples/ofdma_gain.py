"""OFDMA against single-user service in one 802.11ax BSS, for 2 to 32 stations.

Downlink (the default): the AP sends UDP to every station (20 MHz, HE-MCS 7, GI 0.8 us), once
saturating the channel and once at a light per-station load, with ``ofdma = "off"`` and
``"dl"``. Uplink (``ul``): every station sends UDP to the AP, with ``ofdma = "off"`` and
``"ul"`` (the AP advertising OpenWrt's MU EDCA set). It prints the goodput and the one-way
delay of each. Run from the repository root:

    python docs/examples/ofdma_gain.py [dl|ul]

docs/models/wifi.md ("Downlink OFDMA", "Uplink OFDMA") records its output.
"""

from __future__ import annotations

import json
import sys
import tempfile
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import airlab

DIRECTION = sys.argv[1] if len(sys.argv) > 1 else "dl"
STATIONS = [2, 4, 8, 16, 32]
#: (UDP payload bytes, Mbit/s per station or None to saturate with 150 Mbit/s in all).
LOADS: list[tuple[int, float | None]] = [(1472, None), (200, None), (200, 1.0), (1472, 2.0)]


def scenario(n: int, mode: str, payload: int, rate: float) -> str:
    """The cell with OFDMA ``mode``: "off", "dl" (the AP sends) or "ul" (the stations send)."""
    stations = [f"s{i}" for i in range(1, n + 1)]
    text = f"""name = "ofdma-gain"
duration = "5s"
hosts = {json.dumps(["ap", *stations])}
[metrics]
warmup = "1s"
[[wifi]]
name = "bss"
standard = "ax"
ap = "ap"
stations = {json.dumps(stations)}
width = 20
mcs = 7
gi = "800ns"
ofdma = "{mode}"
ofdma_stations = {n}
"""
    uplink = mode == "ul" or DIRECTION == "ul"
    if mode == "ul":
        text += "mu_edca = {}\n"
    for s in stations:
        app = f'{{ kind = "udp", rate = "{rate:.3f}Mbit", packet_size = "{payload}B" }}'
        src, dst = (s, "ap") if uplink else ("ap", s)
        text += f'[[flow]]\nname = "{src}_{dst}"\nfrom = "{src}"\nto = "{dst}"\napp = {app}\n'
    return text


def run(job: tuple[int, str, int, float | None]) -> dict[str, float]:
    n, mode, payload, rate = job
    per_station = rate if rate is not None else 150.0 / n
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "cell.toml"
        path.write_text(scenario(n, mode, payload, per_station))
        s = airlab.run(path, seed=1).summary
    # A flow that delivered nothing in the window (starved by contention) has no delays.
    owd = [f["udp"]["owd_ms"]["p95"] for f in s["flows"] if f["udp"]["owd_ms"] is not None]
    return {
        "goodput": sum(f["goodput_mbps"] for f in s["flows"]),
        "owd_p95_max": max(owd),
        "starved": len(s["flows"]) - len(owd),
    }


def starved(result: dict[str, float]) -> str:
    """A note of the flows that delivered nothing, whose delays the column leaves out."""
    return f" ({result['starved']:.0f} starved)" if result["starved"] else ""


def main() -> None:
    jobs = [(n, m, p, r) for p, r in LOADS for n in STATIONS for m in ("off", DIRECTION)]
    with ProcessPoolExecutor(2) as pool:
        results = dict(zip(jobs, pool.map(run, jobs), strict=True))
    print(
        f"| load | stations | single-user Mbit/s | {DIRECTION.upper()} OFDMA Mbit/s | gain "
        f"| single-user OWD p95 ms | {DIRECTION.upper()} OFDMA OWD p95 ms |"
    )
    print("|---|---|---|---|---|---|---|")
    for payload, rate in LOADS:
        load = f"{payload} B, " + ("saturated" if rate is None else f"{rate:g} Mbit/s per station")
        for n in STATIONS:
            su, mu = results[(n, "off", payload, rate)], results[(n, DIRECTION, payload, rate)]
            gain = 100 * (mu["goodput"] / su["goodput"] - 1)
            print(
                f"| {load} | {n} | {su['goodput']:.2f} | {mu['goodput']:.2f} | {gain:+.1f} % "
                f"| {su['owd_p95_max']:.2f}{starved(su)} | {mu['owd_p95_max']:.2f}{starved(mu)} |"
            )


if __name__ == "__main__":
    main()
