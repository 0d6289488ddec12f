"""Result directories read back: a summary.json holding what no run can (a negative goodput or
count, a share above 1, a seed that is not one) is refused naming the file, the entity and the
key; a directory saved over keeps no plot of the earlier run; a result read back draws the
run's figures, and a table changed after reading is saved as changed."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from PIL import Image

import airlab
from airlab import plots
from airlab.results import Result, ResultFileError
from conftest import DUMBBELL, data_text, set_at

WIFI = data_text("wifi-cell")


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A result directory with every entity list: flows, queues, links, Wi-Fi networks."""
    d = tmp_path_factory.mktemp("res") / "wifi"
    airlab.run_text(WIFI, seed=1).save(d, plots=False, report=False)
    return d


def _edited(saved: Path, tmp_path: Path, edit: Any) -> Path:
    """A copy of ``saved`` whose summary.json ``edit(summary)`` changed."""
    d = tmp_path / "edited"
    shutil.copytree(saved, d)
    summary = json.loads((d / "summary.json").read_text())
    edit(summary)
    (d / "summary.json").write_text(json.dumps(summary, allow_nan=True))
    return d


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        ("flows.0.goodput_mbps", -5, 'flow "down": goodput_mbps: expected a finite number of at'),
        ("flows.0.goodput_mbps", float("nan"), 'flow "down": goodput_mbps: .* got nan'),
        ("flows.0.goodput_mbps", float("inf"), 'flow "down": goodput_mbps: .* got inf'),
        ("flows.0.goodput_mbps", "fast", "flow \"down\": goodput_mbps: .* got 'fast'"),
        ("flows.0.retransmits", -1, 'flow "down": retransmits: expected an integer of at least 0'),
        ("flows.0.bytes_delivered", 1.5, 'flow "down": bytes_delivered: expected an integer'),
        ("flows.0.goodput_stats_mbps.p95", -1.0, 'flow "down": goodput_stats_mbps.p95: expected'),
        ("flows.0.retransmit_rate", 1.5, 'flow "down": retransmit_rate: expected a number from'),
        ("queues.0.drops", -3, r'queue "[^"]+": drops: expected an integer of at least 0'),
        ("queues.0.drops", True, r'queue "[^"]+": drops: expected an integer .* got True'),
        ("links.0.utilization", 1.5, r'link "[^"]+": utilization: expected a number from 0 to 1'),
        ("links.0.throughput_mbps", -1, r'link "[^"]+": throughput_mbps: expected a finite'),
        ("wifi.0.busy_share", 1.01, 'Wi-Fi network "w": busy_share: expected a number from 0'),
        ("wifi.0.links.0.airtime_share", 2, r'Wi-Fi link "w:[^"]+": airtime_share: expected a'),
        ("wifi.0.links.0.mpdus", -1, r'Wi-Fi link "w:[^"]+": mpdus: expected an integer of at'),
        ("jain_index", 1.2, "jain_index: expected a number from 0 to 1"),
        ("duration_s", -1, "duration_s: expected a finite number of at least 0"),
    ],
)
def test_load_refuses_numbers_no_run_can_have(
    saved: Path, tmp_path: Path, path: str, value: Any, message: str
) -> None:
    d = _edited(saved, tmp_path, set_at(path, value))
    with pytest.raises(ResultFileError, match=re.escape(str(d / "summary.json")) + ": " + message):
        Result.load(d)


@pytest.mark.parametrize("seed", ["abc", -1, 2**64, 1.5, True, [1]])
def test_load_refuses_a_seed_that_is_not_a_run_seed(saved: Path, tmp_path: Path, seed: Any) -> None:
    d = _edited(saved, tmp_path, set_at("seed", seed))
    with pytest.raises(
        ResultFileError, match=r"summary\.json: seed: expected an integer from 0 to 2\*\*64 - 1"
    ):
        Result.load(d)


def test_load_takes_what_runs_write_at_their_bounds(saved: Path, tmp_path: Path) -> None:
    """Null where a backend measures nothing, a share of 1 up to the rounding of its sums, a
    seed of 2**64 - 1, and a testbed link's utilization read a little above 1 (bytes between
    samples over the window)."""

    def edit(summary: dict[str, Any]) -> None:
        summary["seed"] = 2**64 - 1
        summary["flows"][0]["lost"] = None
        summary["wifi"][0]["busy_share"] = 1
        summary["wifi"][0]["links"][0]["airtime_share"] = 1 + 1e-12
        summary["backend"] = "linux"
        summary["links"][0]["utilization"] = 1.02

    back = Result.load(_edited(saved, tmp_path, edit))
    assert back.summary["seed"] == 2**64 - 1
    assert back.summary["links"][0]["utilization"] == 1.02
    Result.load(saved)  # and a run as written


def test_a_huge_integer_literal_is_refused_naming_the_file(saved: Path, tmp_path: Path) -> None:
    d = tmp_path / "edited"
    shutil.copytree(saved, d)
    text = (d / "summary.json").read_text()
    (d / "summary.json").write_text(text.replace('"seed": 1', '"seed": -' + "9" * 5000, 1))
    with pytest.raises(ResultFileError, match=r"summary\.json: an integer of more than \d+ digit"):
        Result.load(d)


def test_saving_over_a_result_removes_the_plots_only_the_earlier_run_had(tmp_path: Path) -> None:
    d = tmp_path / "out"
    wifi = airlab.run_text(WIFI, seed=1)
    wifi.save(d, report=False)
    assert (d / "plots" / "wifi.png").exists()
    (d / "plots" / "mine.png").write_bytes(b"a user's file")
    wired = airlab.run(DUMBBELL, set={"duration": "1s"})
    written = wired.save(d, report=False)
    assert not (d / "plots" / "wifi.png").exists(), "a Wi-Fi plot of the earlier run is left"
    assert (d / "plots" / "throughput.png").exists()
    # without plots, none of an earlier run's are left; a file airlab did not name stays
    wired.save(written, plots=False, report=False)
    assert sorted(p.name for p in (d / "plots").iterdir()) == ["mine.png"]
    assert set(plots.PLOT_FILES) >= {"throughput.png", "wifi.png"}


def _pixels(folder: Path) -> dict[str, np.ndarray]:
    return {p.name: np.asarray(Image.open(p)) for p in sorted(folder.glob("*.png"))}


def test_a_result_read_back_draws_the_figures_of_the_run(tmp_path: Path) -> None:
    # a run draws from the engine's columns, a result read back from its DataFrames
    res = airlab.run_text(WIFI, seed=1, set={"duration": "3s"})
    res.save(tmp_path / "run", report=False)
    back = Result.load(tmp_path / "run")
    plots.plot_all(back, tmp_path / "back")
    drawn, redrawn = _pixels(tmp_path / "run" / "plots"), _pixels(tmp_path / "back")
    assert list(drawn) == list(redrawn) and "wifi.png" in drawn
    for name, pixels in drawn.items():
        np.testing.assert_array_equal(redrawn[name], pixels, err_msg=name)


def test_a_table_read_and_changed_is_saved_as_changed(tmp_path: Path) -> None:
    res = airlab.run(DUMBBELL, set={"duration": "1s"})
    res.flows["goodput_mbps"] = 1.5  # the DataFrame, once built, is the table
    res.save(tmp_path / "r", plots=False, report=False)
    back = Result.load(tmp_path / "r")
    assert (back.flows["goodput_mbps"] == 1.5).all()
    pd.testing.assert_frame_equal(back.queues, res.queues, check_exact=True)
