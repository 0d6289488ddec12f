"""Goodput against distance in an 802.11ax BSS: every HE-MCS fixed, and ideal rate control.

One station 1-60 m from its AP receives saturating UDP (1472-byte datagrams; 20 MHz, GI
0.8 us, one stream) over ns-3's default channel: 16.02 dBm, log-distance path loss with
exponent 3 and 46.68 dB at 1 m, noise figure 7 dB, preamble detection from -82 dBm. It prints
a Markdown table and draws ``range.png`` in the output folder. Run from the repository root:

    python docs/examples/range.py [OUT_DIR]

docs/models/wifi.md ("The channel and its errors") records its output, and
docs/models/range.png is its figure.
"""

from __future__ import annotations

import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

import airlab

DISTANCES = list(range(1, 61))
#: The rows of the printed table.
TABLE = [1, 5, 10, 15, 20, 25, 30, 35, 40, 45, 50, 55]
#: Fixed HE-MCS 0-11, then ideal rate control (None).
SETTINGS: list[int | None] = [*range(12), None]


def scenario(distance: float, mcs: int | None) -> str:
    rate = 'rate_control = "ideal"' if mcs is None else f"mcs = {mcs}"
    return f"""name = "range"
duration = "2s"
hosts = ["ap", "sta"]
[metrics]
warmup = "0.5s"
[[wifi]]
name = "bss"
standard = "ax"
ap = "ap"
stations = ["sta"]
width = 20
gi = "800ns"
distance_m = {distance}
{rate}
[[flow]]
name = "down"
from = "ap"
to = "sta"
app = {{ kind = "udp", rate = "200Mbit" }}
"""


def goodput(job: tuple[float, int | None]) -> float:
    result = airlab.run_text(scenario(*job), seed=1)
    return result.summary["flows"][0]["goodput_mbps"]


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("results/range")
    out.mkdir(parents=True, exist_ok=True)
    jobs = [(d, m) for m in SETTINGS for d in DISTANCES]
    with ProcessPoolExecutor() as pool:
        values = list(pool.map(goodput, jobs))
    curves = {
        m: values[i * len(DISTANCES) : (i + 1) * len(DISTANCES)] for i, m in enumerate(SETTINGS)
    }

    label = {m: "ideal" if m is None else f"MCS {m}" for m in SETTINGS}
    print("| distance (m) | " + " | ".join(label[m] for m in SETTINGS) + " |")
    print("|---" * (len(SETTINGS) + 1) + "|")
    for d in TABLE:
        i = DISTANCES.index(d)
        print(f"| {d} | " + " | ".join(f"{curves[m][i]:.1f}" for m in SETTINGS) + " |")

    fig, ax = plt.subplots(figsize=(7, 4.2))
    cmap = plt.get_cmap("viridis")
    for m in SETTINGS[:-1]:
        ax.plot(DISTANCES, curves[m], color=cmap(m / 11), lw=1.2, label=label[m])
    ax.plot(DISTANCES, curves[None], "k--", lw=2, label="ideal")
    ax.set_xlabel("distance (m)")
    ax.set_ylabel("UDP goodput (Mbit/s)")
    ax.set_title("802.11ax, 20 MHz, 1 stream: goodput against distance (NIST error model)")
    ax.grid(alpha=0.3)
    ax.legend(ncol=2, fontsize=7, loc="upper right")
    fig.tight_layout()
    fig.savefig(out / "range.png", dpi=150)
    print(f"figure: {out / 'range.png'}")


if __name__ == "__main__":
    main()
