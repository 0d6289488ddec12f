"""Flent-style plots from a sweep (`airlab plot`), the samples behind them, and the `Sweep`
object's tidy tables."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import airlab
from airlab import flentplots, samples
from airlab.sweep import Sweep

BUFFERBLOAT = "aqm/bufferbloat-fq_codel"
GRID = {
    "link.bottleneck.qdisc.kind": ["pfifo", "fq_codel"],
    "duration": "6s",
    "metrics.warmup": "1s",
}


@pytest.fixture(scope="module")
def sweep(tmp_path_factory: pytest.TempPathFactory) -> Sweep:
    out = tmp_path_factory.mktemp("sweep")
    return Sweep.run(BUFFERBLOAT, set=GRID, seeds=2, out=out, jobs=2)


def test_a_sweep_has_a_tidy_table_with_a_row_per_run_and_flow(sweep: Sweep) -> None:
    assert len(sweep.records) == 4 and sweep.params == list(GRID)
    flows = sweep.flows
    assert len(flows) == 4 * 2 and set(flows["flow"]) == {"bulk", "probe"}
    assert {
        "run_id",
        "link.bottleneck.qdisc.kind",
        "seed",
        "app",
        "cc",
        "goodput_mbps",
        "rtt_ms.p95",
    } <= set(flows.columns)
    for rec in sweep.records:
        got = flows[(flows["run_id"] == rec["run_id"]) & (flows["flow"] == "bulk")].iloc[0]
        want = next(f for f in rec["summary"]["flows"] if f["name"] == "bulk")
        assert got["goodput_mbps"] == want["goodput_mbps"]
        assert got["link.bottleneck.qdisc.kind"] == rec["params"]["link.bottleneck.qdisc.kind"]
    points = sweep.points()
    assert points["label"].tolist() == ["kind=fq_codel", "kind=pfifo"]
    assert points["runs"].tolist() == [2, 2]


def test_a_sweep_keeps_each_runs_samples_as_the_run_itself_has_them(sweep: Sweep) -> None:
    rec = sweep.records[0]
    kept = sweep.samples(rec["run_id"])
    res = airlab.run(
        BUFFERBLOAT, seed=rec["seed"], set={k: airlab.TomlText(v) for k, v in rec["params"].items()}
    )
    fresh = samples.of_result(res)
    pd.testing.assert_frame_equal(kept.latency, fresh.latency)
    pd.testing.assert_frame_equal(kept.throughput, fresh.throughput)
    # the window only: nothing of the 1 s warm-up; every ping reply after it
    assert kept.latency["time_s"].min() > 1.0
    assert len(kept.latency) == int((res.pings["time_s"] > 1.0).sum())
    assert kept.interval_s == pytest.approx(0.1)


def test_paired_samples_bin_latency_into_the_throughput_intervals() -> None:
    thr = pd.DataFrame(
        {
            "flow": ["a", "b", "a", "b"],
            "time_s": [0.1, 0.1, 0.2, 0.2],
            "goodput_mbps": [1.0, 2.0, 3.0, 4.0],
        }
    )
    lat = pd.DataFrame(
        {
            "flow": "p",
            "time_s": [0.05, 0.09, 0.15, 0.31],
            "rtt_ms": [10.0, 20.0, 30.0, 40.0],
            "source": "ping",
        }
    )
    got = samples.paired(samples.Samples(lat, thr, 0.1))
    # (0, 0.1]: mean RTT 15 with 3 Mbit/s in all; (0.1, 0.2]: 30 with 7; 0.31 has no interval
    assert got[["time_s", "goodput_mbps", "rtt_ms"]].to_numpy().tolist() == [
        [0.1, 3.0, 15.0],
        [0.2, 7.0, 30.0],
    ]


def test_the_ellipse_is_the_covariance_of_the_pairs() -> None:
    rng = np.random.default_rng(1)
    # latency sd 4, goodput sd 1, correlation 0: axes 2 x 4 and 2 x 1 along the axes
    x, y = rng.normal(50, 4, 200_000), rng.normal(9, 1, 200_000)
    cx, cy, w, h, angle = flentplots.ellipse_of(pd.DataFrame({"rtt_ms": x, "goodput_mbps": y}))
    assert (cx, cy) == pytest.approx((50, 9), abs=0.05)
    assert (w, h) == pytest.approx((8, 2), rel=0.01)
    assert angle % 180 == pytest.approx(0, abs=1) or angle % 180 == pytest.approx(180, abs=1)
    # goodput = latency / 2: a degenerate ellipse along the line, at atan(1/2)
    cx, cy, w, h, angle = flentplots.ellipse_of(pd.DataFrame({"rtt_ms": x, "goodput_mbps": x / 2}))
    assert w == pytest.approx(2 * np.sqrt(16 + 4), rel=0.01) and h == pytest.approx(0, abs=1e-6)
    assert np.tan(np.radians(angle)) == pytest.approx(0.5, rel=1e-6)


def test_the_plots_show_the_queues_difference(sweep: Sweep) -> None:
    sets = flentplots.datasets([sweep])
    assert [d.label for d in sets] == ["kind=fq_codel", "kind=pfifo"]
    # one dataset per grid point, its two seeds' samples pooled
    assert all(d.samples.latency["run"].nunique() == 2 for d in sets)
    fq, fifo = (d.samples.latency["rtt_ms"].median() for d in sets)
    # 40 ms of propagation; fq_codel keeps the probe out of the bulk queue, pfifo's fills
    assert 40 <= fq <= 46 and fifo > 150
    pairs = [samples.paired(d.samples) for d in sets]
    assert all(len(p) > 80 for p in pairs)
    assert flentplots.ellipse_of(pairs[1])[0] > 3 * flentplots.ellipse_of(pairs[0])[0]


@pytest.mark.parametrize("kind", flentplots.KINDS)
def test_each_kind_renders_from_a_sweep_as_png_svg_and_pdf(
    sweep: Sweep, tmp_path: Path, kind: str
) -> None:
    paths = flentplots.render(
        kind, flentplots.datasets([sweep.out_dir]), tmp_path, formats=("png", "svg", "pdf")
    )
    assert [p.name for p in paths] == [f"{kind}.png", f"{kind}.svg", f"{kind}.pdf"]
    assert paths[0].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert paths[2].read_bytes()[:5] == b"%PDF-"
    svg = ET.parse(paths[1]).getroot()
    assert svg.tag.endswith("svg")
    # the datasets' labels are in the figure (as text in a legend, tick or annotation)
    text = paths[1].read_text()
    assert "fq_codel" in text and "pfifo" in text


def test_plot_cli_over_a_result_and_a_flent_file(tmp_path: Path, cli) -> None:
    res = airlab.run(BUFFERBLOAT, set={"duration": "6s", "metrics.warmup": "1s"})
    res.save(tmp_path / "run", plots=False, report=False)
    from airlab import flent

    flent.export(res, tmp_path / "run.flent.gz")
    proc = cli(
        "plot",
        str(tmp_path / "run"),
        str(tmp_path / "run.flent.gz"),
        "--kind",
        "cdf",
        "--labels",
        "sim,flent",
        "--format",
        "svg",
        "--out",
        str(tmp_path / "p"),
        check=True,
    )
    assert "2 datasets" in proc.stdout
    text = (tmp_path / "p" / "cdf.svg").read_text()
    assert "sim" in text and "flent" in text
    bad = cli("plot", str(tmp_path / "run"), "--labels", "a,b", "--out", str(tmp_path / "q"))
    assert bad.returncode != 0 and "2 labels for 1 datasets" in bad.stderr
    empty = tmp_path / "empty"
    empty.mkdir()
    bad = cli("plot", str(empty), "--out", str(tmp_path / "q"))
    assert bad.returncode != 0 and "not a result directory (summary.json), a sweep" in bad.stderr
    bad = cli("plot", str(tmp_path / "run"), "--flow", "nosuch", "--out", str(tmp_path / "q"))
    assert bad.returncode != 0 and "no samples of flow nosuch" in bad.stderr


def test_without_a_ping_flow_latency_is_the_tcp_smoothed_rtt() -> None:
    res = airlab.run("basics/dumbbell-2cubic", set={"duration": "3s"})
    got = samples.of_result(res)
    assert set(got.latency["source"]) == {"srtt"} and set(got.latency["flow"]) == {
        "cubic1",
        "cubic2",
    }
    assert got.latency["rtt_ms"].tolist() == res.flows["srtt_ms"].dropna().tolist()
