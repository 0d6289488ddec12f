"""The simulator against the machine's kernel on the wired reference scenarios: each scenario
runs on the testbed and in the simulator with seeds 1..N, and the per-flow goodput, smoothed
RTT, retransmits and the bottleneck queue are tabulated side by side with their spread.

``sudo python -m airlab.testbed.validation --out results/testbed-validation`` writes
``runs.csv`` (one row per run and flow) and ``table.md`` (means and standard deviations),
the table docs/validation.md records.
"""

from __future__ import annotations

import argparse
import platform
from pathlib import Path
from typing import Any

import pandas as pd

import airlab
from airlab import _io, testbed

#: (label, scenario, overrides)
CASES: list[tuple[str, str, dict[str, Any]]] = [
    ("CUBIC", "basics/dumbbell-cubic", {}),
    ("BBRv1", "basics/dumbbell-cubic", {"flow.0.cc": "bbr1", "flow.0.name": "bbr1"}),
    ("2 CUBIC", "basics/dumbbell-2cubic", {}),
]

BOTTLENECK = "bottleneck:r1->r2"


def _rows(label: str, backend: str, seed: int, summary: dict[str, Any]) -> list[dict[str, Any]]:
    queue: dict[str, Any] = next((q for q in summary["queues"] if q["name"] == BOTTLENECK), {})
    backlog = queue.get("backlog_pkts") or {}
    return [
        {
            "case": label,
            "backend": backend,
            "seed": seed,
            "flow": f["name"],
            "goodput_mbps": f["goodput_mbps"],
            "srtt_p50_ms": (f.get("srtt_ms") or {}).get("p50"),
            "retransmits": f["retransmits"],
            "backlog_mean_pkts": backlog.get("mean"),
            "bottleneck_drops": queue.get("drops"),
        }
        for f in summary["flows"]
    ]


def run_matrix(seeds: int, sets: dict[str, Any]) -> pd.DataFrame:
    rows = []
    for label, scenario, overrides in CASES:
        merged = {**overrides, **sets}
        for seed in range(1, seeds + 1):
            real = testbed.run(scenario, set=merged, seed=seed)
            rows += _rows(label, "linux", seed, real.summary)
            sim = airlab.run(scenario, set=merged, seed=seed)
            rows += _rows(label, "airlab", seed, sim.summary)
            # Python warns of a degraded kernel run once per place; every one is said here.
            fid = real.summary["fidelity"]
            note = f" (degraded: {'; '.join(fid['reasons'])})" if fid["degraded"] else ""
            print(f"{label} seed {seed}: done{note}", flush=True)
    return pd.DataFrame(rows)


def _mean_sd(stats: tuple[float, float] | None) -> str:
    """``mean ± sd``, or a dash for a backend without the flow's runs."""
    return "—" if stats is None else f"{stats[0]:.3g} ± {stats[1]:.2g}"


def table(runs: pd.DataFrame) -> str:
    """Markdown: per case and flow, mean ± sd of each metric for Linux and airlab, and the
    relative difference of the means."""
    metrics = [
        "goodput_mbps",
        "srtt_p50_ms",
        "retransmits",
        "backlog_mean_pkts",
        "bottleneck_drops",
    ]
    lines = [
        "| case | flow | metric | Linux mean ± sd | airlab mean ± sd | airlab vs Linux |",
        "|---|---|---|---|---|---|",
    ]
    for (case, flow), g in runs.groupby(["case", "flow"], sort=False):
        for m in metrics:
            stats: dict[str, tuple[float, float]] = {}
            for backend, h in g.groupby("backend"):
                x = h[m].astype(float)
                stats[backend] = (x.mean(), x.std(ddof=1) if len(x) > 1 else float("nan"))
            lx, ax = stats.get("linux"), stats.get("airlab")
            rel = f"{(ax[0] / lx[0] - 1) * 100:+.1f} %" if lx and ax and lx[0] else "—"
            lines.append(f"| {case} | {flow} | {m} | {_mean_sd(lx)} | {_mean_sd(ax)} | {rel} |")
    return "\n".join(lines) + "\n"


#: A single link between two hosts, for the wire's accuracy at a given rate.
WIRE_SCENARIO = """
name = "wire-{rate}"
duration = "{duration}"
hosts = ["a", "b"]

[[link]]
between = ["a", "b"]
rate = "{rate}"
delay = "5ms"
qdisc = {{ kind = "pfifo", limit = 1000 }}

[[flow]]
from = "a"
to = "b"
cc = "cubic"
app = {{ kind = "bulk" }}
"""


def wire_accuracy(rates: list[str], duration: str, tmp: Path) -> str:
    """Markdown: how late the wire delivered packets while one CUBIC flow saturates a single
    link at each rate (both directions: data and ACKs), and the goodput reached."""
    lines = [
        "| link rate | direction | packets/s | late p50 µs | p99 µs | max µs | goodput Mbit/s |",
        "|---|---|---|---|---|---|---|",
    ]
    for rate in rates:
        path = tmp / f"wire-{rate}.toml"
        path.write_text(WIRE_SCENARIO.format(rate=rate, duration=duration))
        res = testbed.run(path)
        goodput = res.summary["flows"][0]["goodput_mbps"]
        for link in res.summary["links"]:
            late = link["wire_late_us"]
            pps = (
                res.summary["queues"][0 if link["from"] == "a" else 1]["dequeued"] or 0
            ) / res.summary["duration_s"]
            lines.append(
                f"| {rate} | {link['from']} → {link['to']} | {pps:.0f} | {late['p50']:.3g} "
                f"| {late['p99']:.3g} | {late['max']:.3g} | {goodput:.4g} |"
            )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="airlab.testbed.validation")
    ap.add_argument("--out", required=True)
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--duration", default=None, help="override every scenario's duration")
    ap.add_argument("--wire", action="store_true", help="measure the wire's accuracy instead")
    args = ap.parse_args(argv)
    if args.wire:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        text = wire_accuracy(["10Mbit", "100Mbit", "300Mbit"], args.duration or "10s", out)
        _io.write_text(out / "wire.md", text)
        print(text)
        return
    sets = {"duration": args.duration} if args.duration else {}
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    runs = run_matrix(args.seeds, sets)
    _io.write_with(out / "runs.csv", lambda p: runs.to_csv(p, index=False))
    header = (
        f"Machine: {platform.node()}, Linux {platform.release()}, "
        f"{len(CASES)} cases x {args.seeds} seeds\n\n"
    )
    _io.write_text(out / "table.md", header + table(runs))
    print(header + table(runs))


if __name__ == "__main__":
    main()
