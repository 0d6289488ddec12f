"""A flow's goodput is averaged over its own window (start or warm-up's end to its stop, or to
its last delivery when data sent before the stop arrives after it), and the summary warns about
runs that are sound but easy to misread (issue 32)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import airlab
from conftest import data_text

# A 10 Mbit/s bottleneck with 1 ms access links either side: 20 ms base RTT; one CUBIC bulk
# flow "f" for 1 s.
DUMBBELL = data_text("dumbbell")


def flow(summary: dict[str, Any]) -> dict[str, Any]:
    f = summary["flows"][0]
    # goodput is bytes over the window the summary states
    assert abs(f["goodput_mbps"] - f["bytes_delivered"] * 8 / f["window_s"] / 1e6) < 1e-9
    return f


def test_a_transfer_stopped_at_once_is_averaged_to_its_last_delivery() -> None:
    # Before: 100 kB over the 100 ns to the stop, 8,000,000 Mbit/s.
    res = airlab.run_text(DUMBBELL, set={"flow.0.app": {"kind": "transfer", "size": "100kB"},
                                         "flow.0.stop": "100ns"})  # fmt: skip
    f = flow(res.summary)
    assert f["bytes_delivered"] == 100_000
    # slow start over a 20 ms RTT needs several round trips for 100 kB
    assert 0.06 < f["window_s"] < 0.2
    assert 4.0 < f["goodput_mbps"] < 10.0
    assert res.summary["warnings"] == []


def test_a_bulk_flow_stopping_just_after_the_warm_up_stays_under_the_bottleneck() -> None:
    # Before: 35.9 Mbit/s on the 10 Mbit/s link (bytes queued before the stop over 1 ms).
    res = airlab.run_text(DUMBBELL, set={"metrics.warmup": "0.5s", "flow.0.stop": "0.501s"})
    f = flow(res.summary)
    assert f["window_s"] > 0.02  # the queue of 50 packets drains after the stop
    assert f["goodput_mbps"] <= 10.0


def test_batches_complete_just_after_the_warm_up_give_a_warning() -> None:
    batches = {"packets": 1, "count": 2, "discard": 0}
    res = airlab.run_text(DUMBBELL, set={"metrics.warmup": "0.5s", "metrics.batches": batches})
    s = res.summary
    assert s["duration_s"] - s["warmup_s"] < 0.005
    [warning] = s["warnings"]
    assert warning.startswith("the measurement window is only ")
    assert "when its batches were complete" in warning


def test_a_run_of_pings_has_no_fairness_index_and_a_silent_flow_is_named() -> None:
    pings = DUMBBELL.replace('cc = "cubic"\n', "")
    res = airlab.run_text(pings, set={"flow.0.app": {"kind": "ping", "interval": "10ms"}})
    assert res.summary["jain_index"] is None
    assert res.summary["warnings"] == []
    # A bulk flow that starts 1 us before the end delivers nothing in its window.
    res = airlab.run_text(DUMBBELL, set={"flow.0.start": "0.999999s"})
    assert res.summary["warnings"] == [
        'flow "f" delivered no data in its 0.000001 s of the measurement window'
    ]


def test_the_command_line_prints_the_warnings(tmp_path: Path) -> None:
    scenario = tmp_path / "late.toml"
    scenario.write_text(
        DUMBBELL.replace('app = { kind = "bulk" }', 'app = { kind = "bulk" }\nstart = "0.999999s"')
    )
    command = ["run", str(scenario), "--out", str(tmp_path / "out"), "--no-plots"]
    out = subprocess.run(
        [sys.executable, "-m", "airlab", *command], capture_output=True, text=True, check=True
    )
    assert 'warning: flow "f" delivered no data' in " ".join(out.stdout.split())
    assert airlab.Result.load(tmp_path / "out").warnings == [
        'flow "f" delivered no data in its 0.000001 s of the measurement window'
    ]
