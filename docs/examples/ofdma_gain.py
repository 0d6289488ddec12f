"""Downlink OFDMA against single-user service in one 802.11ax BSS, for 2 to 32 stations.

The AP sends UDP to every station (20 MHz, HE-MCS 7, GI 0.8 us), once saturating the channel
and once at a light per-station load, with ``ofdma = "off"`` and ``"dl"``; it prints the
goodput and the one-way delay of each. Run from the repository root:

    python docs/examples/ofdma_gain.py

docs/models/wifi.md ("Downlink OFDMA") records its output.
"""

from __future__ import annotations

import json
import tempfile
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import airlab

STATIONS = [2, 4, 8, 16, 32]
#: (UDP payload bytes, Mbit/s per station or None to saturate with 150 Mbit/s in all).
LOADS: list[tuple[int, float | None]] = [(1472, None), (200, None), (200, 1.0), (1472, 2.0)]


def scenario(n: int, mode: str, payload: int, rate: float) -> str:
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
    for s in stations:
        app = f'{{ kind = "udp", rate = "{rate:.3f}Mbit", packet_size = "{payload}B" }}'
        text += f'[[flow]]\nname = "to_{s}"\nfrom = "ap"\nto = "{s}"\napp = {app}\n'
    return text


def run(job: tuple[int, str, int, float | None]) -> dict[str, float]:
    n, mode, payload, rate = job
    per_station = rate if rate is not None else 150.0 / n
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "cell.toml"
        path.write_text(scenario(n, mode, payload, per_station))
        s = airlab.run(path, seed=1).summary
    owd = sorted(f["udp"]["owd_ms"]["p95"] for f in s["flows"])
    return {
        "goodput": sum(f["goodput_mbps"] for f in s["flows"]),
        "owd_p95_max": owd[-1],
    }


def main() -> None:
    jobs = [(n, m, p, r) for p, r in LOADS for n in STATIONS for m in ("off", "dl")]
    with ProcessPoolExecutor(2) as pool:
        results = dict(zip(jobs, pool.map(run, jobs), strict=True))
    print(
        "| load | stations | single-user Mbit/s | DL OFDMA Mbit/s | gain "
        "| single-user OWD p95 ms | DL OFDMA OWD p95 ms |"
    )
    print("|---|---|---|---|---|---|---|")
    for payload, rate in LOADS:
        load = f"{payload} B, " + ("saturated" if rate is None else f"{rate:g} Mbit/s per station")
        for n in STATIONS:
            su, mu = results[(n, "off", payload, rate)], results[(n, "dl", payload, rate)]
            gain = 100 * (mu["goodput"] / su["goodput"] - 1)
            print(
                f"| {load} | {n} | {su['goodput']:.2f} | {mu['goodput']:.2f} | {gain:+.1f} % "
                f"| {su['owd_p95_max']:.2f} | {mu['owd_p95_max']:.2f} |"
            )


if __name__ == "__main__":
    main()
