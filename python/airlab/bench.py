"""The benchmark command: run named scenarios and report the engine's speed.

Not a test: the figures depend on the machine. ``airlab bench --record`` keeps them in
``bench/results.json`` (every recording, newest last) and ``bench/RESULTS.md``.
"""

from __future__ import annotations

import datetime as _dt
import os
import platform
import statistics
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from airlab import _io

if TYPE_CHECKING:
    from airlab import bench_against

DEFAULT_SCENARIOS = [
    "basics/dumbbell-cubic",
    "basics/dumbbell-bbr3-vs-cubic",
    "fairtt/variant-a",
    "aqm/bufferbloat-fq_codel",
    "aqm/cake-hosts",
    "aqm/xlayer-uplink",
    "wifi/ax-cell-10",
    "wifi/hop-300-ampdu",
    "wifi6/dl-ofdma",
    "wifi6/ul-ofdma",
    "wifi6/range",
    "bbr-wifi6/bidir-cake",
    "fccc/three-devices",
    "xlayer-aqm/ehealth",
    "bufferbloat-11n/parking-lot",
    "basics/gigabit-50flows",
]


def bench_one(name: str, repeat: int = 3) -> dict[str, Any]:
    """Run a scenario ``repeat`` times; report the fastest run (least disturbed by the OS)."""
    import airlab

    engines = []
    for _ in range(max(1, repeat)):
        res = airlab.run(name)
        engines.append(res.summary["engine"])
    best = min(engines, key=lambda e: e["wall_s"])
    return {
        "scenario": name,
        "duration_s": res.summary.get("duration_s"),
        "repeat": len(engines),
        "events": best["events"],
        "wall_s": best["wall_s"],
        "wall_s_median": statistics.median(e["wall_s"] for e in engines),
        "events_per_s": best["events_per_s"],
        "sim_s_per_wall_s": best["sim_s_per_wall_s"],
        "packets_forwarded": best["packets_forwarded"],
        "packets_per_wall_s": best["packets_per_wall_s"],
    }


def run_bench(
    names: Sequence[str],
    repeat: int = 3,
    on_result: Callable[[dict[str, Any]], None] | None = None,
) -> list[dict[str, Any]]:
    results = []
    for name in names:
        r = bench_one(name, repeat)
        results.append(r)
        if on_result:
            on_result(r)
    return results


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine_info() -> dict[str, Any]:
    import airlab
    from airlab.bench_against import commit_label

    commit = commit_label(Path.cwd())
    return {
        "cpu": _cpu_model(),
        "cores": os.cpu_count(),
        "os": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
        "airlab": airlab.__version__,
        "date": _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "commit": commit,
        # other work on the machine slows the figures down: keep the load next to them
        "load_avg_1m": round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None,
    }


def _md_table(results: Sequence[dict[str, Any]]) -> list[str]:
    lines = [
        "| scenario | sim s | events | wall s | events/s | sim s / wall s | packets / wall s |",
        "|---|--:|--:|--:|--:|--:|--:|",
    ]
    for r in results:
        lines.append(
            f"| {r['scenario']} | {r['duration_s']:g} | {r['events']:,} | {r['wall_s']:.3f} "
            f"| {r['events_per_s'] / 1e6:.2f} M | {r['sim_s_per_wall_s']:.1f} "
            f"| {r['packets_per_wall_s'] / 1e6:.2f} M |"
        )
    return lines


def _md_comparison(c: dict[str, Any]) -> list[str]:
    lines = [
        "| scenario | CPU ratio (median) | min-max | CPU s | CPU s ref | events / ref |",
        "|---|--:|--:|--:|--:|--:|",
    ]
    for s in c["scenarios"]:
        if "missing" in s:
            lines.append(f"| {s['scenario']} | | | | | {s['missing']} |")
            continue
        changed = "" if s["same_scenario_file"] else " (scenario file differs)"
        lines.append(
            f"| {s['scenario']} | {s['ratio']:.3f} | {s['ratio_min']:.2f}-{s['ratio_max']:.2f} "
            f"| {s['cpu_s']:.3f} | {s['cpu_s_reference']:.3f} "
            f"| {s['events'] / s['events_reference']:.3f}{changed} |"
        )
    return lines


def _header(m: dict[str, Any]) -> str:
    return (
        f"{m['cpu']}, {m['cores']} cores, {m['os']}, Python {m['python']}, airlab {m['airlab']}, "
        f"load average {m.get('load_avg_1m')}"
    )


def render_markdown(recordings: Sequence[dict[str, Any]]) -> str:
    out = [
        "# Benchmark results",
        "",
        "Regenerated from `results.json`; do not edit by hand. Newest first.",
        "",
        "A speed claim is a ratio: `airlab bench --against REF --record` runs this build and "
        "commit REF's on every scenario, interleaved round by round, and records each "
        "scenario's median ratio of CPU time (below 1: this build is faster). Absolute figures "
        "(`airlab bench --record`) move with the machine's load by tens of percent; compare them "
        "only within one recording.",
        "",
    ]
    comparisons = [r for r in recordings if "against" in r]
    absolute = [r for r in recordings if "against" not in r]
    if comparisons:
        out += ["## Ratios against a reference build", ""]
    for rec in reversed(comparisons):
        m, c = rec["machine"], rec["against"]
        out += [
            f"### {m['date']} — {c['ours']} against {c['reference']}",
            "",
            f"{_header(m)}; {c['rounds']} rounds; the rest of the machine used "
            f"{c['others_cores']:.2f} cores (median), steal {c['steal']:.1%}"
            + (f"; **degraded: {c['degraded']}**" if c["degraded"] else ""),
            "",
            *_md_comparison(c),
            "",
        ]
    if absolute:
        out += ["## Absolute figures (release build; fastest of `repeat` runs)", ""]
    for rec in reversed(absolute):
        m = rec["machine"]
        repeat = rec["results"][0]["repeat"] if rec["results"] else 0
        out += [
            f"### {m['date']} — commit {m.get('commit') or 'unknown'}",
            "",
            f"{_header(m)}, repeat {repeat}",
            "",
            *_md_table(rec["results"]),
            "",
        ]
    return "\n".join(out)


def _append(recording: dict[str, Any], bench_dir: str | os.PathLike[str]) -> Path:
    import json

    d = Path(bench_dir)
    path = d / "results.json"
    recordings: list[dict[str, Any]] = []
    if path.exists():
        try:
            recordings = json.loads(path.read_text())
        except ValueError:
            recordings = []
    recordings.append(recording)
    _io.write_json(path, recordings)
    _io.write_text(d / "RESULTS.md", render_markdown(recordings))
    return d


def record(results: list[dict[str, Any]], bench_dir: str | os.PathLike[str] = "bench") -> Path:
    """Append a recording of absolute figures to bench/results.json and regenerate
    bench/RESULTS.md."""
    return _append({"machine": machine_info(), "results": results}, bench_dir)


def record_comparison(
    comparison: bench_against.Comparison, bench_dir: str | os.PathLike[str] = "bench"
) -> Path:
    """Append a comparison (``bench --against``) to bench/results.json and regenerate
    bench/RESULTS.md."""
    return _append({"machine": machine_info(), "against": comparison.as_dict()}, bench_dir)
