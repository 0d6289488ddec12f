"""Flent data files: an airlab run exported as ``.flent.gz`` opens with Flent's own loader and
plots with Flent's own plotter, holds exactly the run's samples, and reads back (also into
``airlab compare``)."""

from __future__ import annotations

import datetime as dt
import gzip
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from flent import resultset

import airlab
from airlab import flent

BUFFERBLOAT = "aqm/bufferbloat-fq_codel"
SHORT = {"duration": "8s", "metrics.warmup": "2s"}
START = dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.UTC)


@pytest.fixture(scope="module")
def bufferbloat() -> airlab.Result:
    return airlab.run(BUFFERBLOAT, set=SHORT)


def test_an_export_opens_with_flents_loader_and_holds_the_runs_samples(
    bufferbloat: airlab.Result, tmp_path: Path
) -> None:
    path = flent.export(bufferbloat, tmp_path / "bb.flent.gz", time=START)
    got = resultset.load(str(path))
    assert got.meta("NAME") == "tcp_1up"  # one TCP upload with ping: Flent's test of that name
    assert set(got.series_names) == {"TCP upload", "Ping (ms) ICMP"}
    assert got.meta("STEP_SIZE") == pytest.approx(0.1) and got.meta("TOTAL_LENGTH") == 8.0
    assert got.t0 == START.timestamp()
    # Ping: each reply, at its time after the start, as Flent's ping runner records them.
    pings = bufferbloat.pings
    raw = list(got.raw_series("Ping (ms) ICMP"))
    assert len(raw) == len(pings) > 60
    assert np.allclose([t for t, _ in raw], pings["time_s"], atol=1e-6)
    assert [v for _, v in raw] == pings["rtt_ms"].tolist()
    # TCP: goodput per interval on Flent's common axis, the smoothed RTT as Flent's tcp_rtt.
    bulk = bufferbloat.flows[bufferbloat.flows["flow"] == "bulk"]
    on_axis = dict(zip(np.round(got.x_values, 6), got.series("TCP upload"), strict=True))
    assert [on_axis[round(t, 6)] for t in bulk["time_s"]] == bulk["goodput_mbps"].tolist()
    rtt = [v for _, v in got.raw_series("TCP upload", raw_key="tcp_rtt")]
    assert rtt == bulk["srtt_ms"].dropna().tolist()
    # Per-series metadata over the measurement window, as Flent's runners give it.
    meta = got.meta("SERIES_META")
    window = pings[pings["time_s"] > 2.0]["rtt_ms"]
    assert meta["Ping (ms) ICMP"]["MEAN_VALUE"] == pytest.approx(window.mean())
    assert meta["TCP upload"]["UNITS"] == "Mbits/s" and meta["TCP upload"]["AIRLAB_FLOW"] == "bulk"


@pytest.mark.parametrize("plot", ["totals", "ping_cdf", "totals_with_tcp_rtt"])
def test_flents_own_plotter_draws_an_export(
    bufferbloat: airlab.Result, tmp_path: Path, plot: str
) -> None:
    path = flent.export(bufferbloat, tmp_path / "bb.flent.gz", time=START)
    out = tmp_path / f"{plot}.png"
    cmd = [sys.executable, "-m", "flent", "-i", str(path), "-p", plot, "-o", str(out)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert out.stat().st_size > 10_000


def test_several_tcp_flows_become_flents_tcp_nup_with_its_aggregates(tmp_path: Path) -> None:
    res = airlab.run("basics/dumbbell-2cubic", set={"duration": "4s"})
    path = flent.export(res, tmp_path / "two.flent.gz", time=START)
    got = resultset.load(str(path))
    assert got.meta("NAME") == "tcp_nup" and got.meta("TEST_PARAMETERS") == {"upload_streams": 2}
    one, two = got.series("TCP upload::1"), got.series("TCP upload::2")
    total = got.series("TCP upload sum")
    for a, b, s in zip(one, two, total, strict=True):
        assert s is None or s == pytest.approx(a + b)
    fair = [v for v in got.series("TCP upload fairness") if v is not None]
    assert fair and all(0.5 <= v <= 1.0 + 1e-12 for v in fair)
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "flent",
            "-i",
            str(path),
            "-p",
            "upload",
            "-o",
            str(tmp_path / "u.png"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_an_export_reads_back_with_the_runs_flows_and_numbers(
    bufferbloat: airlab.Result, tmp_path: Path
) -> None:
    path = flent.export(bufferbloat, tmp_path / "bb.flent.gz", time=START)
    back = flent.load(path)
    assert back.summary["backend"] == "flent" and back.summary["flent"]["test"] == "tcp_1up"
    flows = {f["name"]: f for f in back.summary["flows"]}
    mine = {f["name"]: f for f in bufferbloat.summary["flows"]}
    assert flows["bulk"]["goodput_mbps"] == pytest.approx(mine["bulk"]["goodput_mbps"], rel=1e-9)
    assert flows["bulk"]["cc"] == "cubic"
    # The summary's RTT percentiles come from an HdrHistogram (within 0.4 %); Flent's are exact.
    for key in ("min", "max", "mean"):
        assert flows["probe"]["rtt_ms"][key] == pytest.approx(mine["probe"]["rtt_ms"][key])
    assert flows["probe"]["rtt_ms"]["p50"] == pytest.approx(
        mine["probe"]["rtt_ms"]["p50"], rel=4e-3
    )
    assert np.allclose(back.pings["time_s"], bufferbloat.pings["time_s"], atol=1e-6)
    assert back.pings["seq"].tolist() == bufferbloat.pings["seq"].tolist()


def test_compare_takes_a_flent_file_beside_a_result_directory(
    bufferbloat: airlab.Result, tmp_path: Path, cli
) -> None:
    bufferbloat.save(tmp_path / "run", plots=False, report=False)
    exported = cli("export", str(tmp_path / "run"), "--out", str(tmp_path / "run.flent.gz"))
    assert exported.returncode == 0, exported.stderr
    proc = cli("compare", str(tmp_path / "run"), str(tmp_path / "run.flent.gz"), check=True)
    # goodput of the bulk flow: equal in both, a relative difference of zero
    line = next(ln for ln in proc.stdout.splitlines() if "bulk" in ln and "goodput" in ln)
    assert "+0.0 %" in line and "flent:run.flent.gz" in proc.stdout


def _write(path: Path, obj: object) -> Path:
    path.write_bytes(gzip.compress(json.dumps(obj).encode()))
    return path


def test_bad_flent_files_are_named_with_what_is_wrong(tmp_path: Path) -> None:
    (tmp_path / "junk.flent.gz").write_bytes(b"not gzip")
    with pytest.raises(flent.FlentError, match=r"junk\.flent\.gz: not a readable Flent data file"):
        flent.load(tmp_path / "junk.flent.gz")
    old = _write(tmp_path / "old.flent.gz", {"metadata": {}, "version": 2})
    with pytest.raises(flent.FlentError, match=r"old\.flent\.gz: Flent file format version 2"):
        flent.load(old)
    partial = _write(tmp_path / "part.flent.gz", {"metadata": {}, "version": 4, "x_values": []})
    with pytest.raises(flent.FlentError, match=r"part\.flent\.gz: key `results` missing"):
        flent.load(partial)


def test_an_export_needs_a_flent_name_and_a_tcp_or_ping_flow(
    bufferbloat: airlab.Result, tmp_path: Path
) -> None:
    with pytest.raises(ValueError, match=r"bb\.json: a Flent data file's name ends in"):
        flent.export(bufferbloat, tmp_path / "bb.json")
    text = """
name = "udp-only"
duration = "2s"
hosts = ["a", "b"]
[[link]]
between = ["a", "b"]
rate = "10Mbit"
delay = "5ms"
[[flow]]
from = "a"
to = "b"
app = { kind = "udp", rate = "1Mbit" }
"""
    with pytest.raises(ValueError, match="needs a TCP or ping flow"):
        flent.export(airlab.run_text(text), tmp_path / "udp.flent.gz")
