"""Calibration recovers a hidden parameter, says how each goal depends on each unknown, and
runs scenarios on the job runner."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from airlab import calibrate as cal


def test_a_hidden_parameter_is_recovered_from_synthetic_targets() -> None:
    # A "model" whose goodput is rate * (1 - loss) ** 50 and whose RTT does not depend on the
    # rate: targets made with the hidden rate 12 and loss 0.002 (goodput 10.86, RTT 20.4).
    hidden_rate, hidden_loss = 12.0, 0.002

    def model(rate: float, loss: float) -> dict[str, float]:
        return {"goodput": rate * (1 - loss) ** 50, "rtt": 20.0 + 200 * loss}

    target = model(hidden_rate, hidden_loss)
    calls: list[int] = []

    def evaluate(points: list[dict[str, float]]) -> list[dict[str, float]]:
        calls.append(len(points))
        return [model(p["rate"], p["loss"]) for p in points]

    unknowns = [cal.Unknown("rate", 5, 20), cal.Unknown("loss", 1e-4, 1e-2, log=True)]
    goals = [cal.Goal("goodput", target["goodput"], 0.2), cal.Goal("rtt", target["rtt"], 0.05)]
    c = cal.search(evaluate, unknowns, goals, samples=32, rounds=6, seed=4)
    assert calls == [32] * 6
    lo, hi = c.region["rate"]
    assert lo <= hidden_rate <= hi and hi - lo < 1.0  # the declared range is 15 wide
    lo, hi = c.region["loss"]
    assert lo <= hidden_loss <= hi and hi / lo < 1.4  # the declared range spans a factor 100
    assert c.at_edge == [] and c.best["worst_error"] <= 1.0
    # The RTT depends on the loss alone, the goodput on both.
    assert abs(c.sensitivity["rtt"]["loss"]["spearman"]) > 0.9
    assert abs(c.sensitivity["rtt"]["rate"]["span_in_tolerances"]) < 1.0
    assert c.sensitivity["goodput"]["rate"]["spearman"] > 0.5
    again = cal.search(evaluate, unknowns, goals, samples=32, rounds=6, seed=4)
    assert again.region == c.region  # same seed, same samples


def test_no_holding_sample_gives_no_region_and_the_nearest_miss() -> None:
    c = cal.search(lambda ps: [{"m": p["x"]} for p in ps], [cal.Unknown("x", 0, 1)],
                   [cal.Goal("m", 5.0, 0.1)], samples=8, rounds=2)  # fmt: skip
    assert c.region == {"x": None} and c.best["x"] > 0.75


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("link.bottleneck.rate=5Mbit..20Mbit", cal.Unknown("link.bottleneck.rate", 5, 20, "Mbit")),
        ("link.b.loss=1e-5..1e-2,log", cal.Unknown("link.b.loss", 1e-5, 1e-2, "", True)),
        ("x=2..3ms", cal.Unknown("x", 2, 3, "ms")),
    ],
)
def test_unknowns_parse(text: str, expected: cal.Unknown) -> None:
    assert cal.parse_unknown(text) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("rate=5..", "expected KEY=LOW..HIGH"),
        ("rate=20..5", "expected low < high"),
        ("rate=5Mbit..20ms", "different units"),
        ("loss=0..1,log", "a log scale needs low > 0"),
    ],
)
def test_a_bad_unknown_says_what_was_expected(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        cal.parse_unknown(text)


def test_goals_parse_absolute_and_relative_tolerances() -> None:
    assert cal.parse_goal("flow.f1.goodput_mbps=9.5±0.2") == cal.Goal(
        "flow.f1.goodput_mbps", 9.5, 0.2
    )
    g = cal.parse_goal("flow.f1.rtt_ms.p50=40+-10%")
    assert g.metric == "flow.f1.rtt_ms.p50" and math.isclose(g.tol, 4.0)
    with pytest.raises(ValueError, match=r"expected METRIC=VALUE±TOL"):
        cal.parse_goal("flow.f1.goodput_mbps=9.5")


def test_the_cli_finds_the_bottleneck_rate_behind_a_goodput(tmp_path: Path) -> None:
    # One CUBIC flow over the dumbbell: its goodput follows the bottleneck's rate (about 95 %
    # of it), so a goodput of 7.6 Mbit/s puts the rate near 8 Mbit/s.
    from click.testing import CliRunner

    from airlab.cli import cli

    out = tmp_path / "cal"
    r = CliRunner().invoke(cli, [
        "calibrate", "basics/dumbbell-cubic", "--set", "duration=3s", "--set",
        "metrics.warmup=1s", "--unknown", "link.bottleneck.rate=4Mbit..16Mbit",
        "--goal", "flow.cubic.goodput_mbps=7.6±0.3", "--samples", "6", "--rounds", "2",
        "--jobs", "1", "--out", str(out),
    ])  # fmt: skip
    assert r.exit_code == 0, r.output
    doc = json.loads((out / "calibration.json").read_text())
    lo, hi = doc["region"]["link.bottleneck.rate"]
    assert 6.5 < lo <= hi < 9.5, doc
    assert doc["samples"] == 12 and doc["holding"] >= 1
    assert doc["sensitivity"]["flow.cubic.goodput_mbps"]["link.bottleneck.rate"]["spearman"] > 0.9
    assert "link.bottleneck.rate" in r.output and "region" in r.output


def test_a_goal_on_a_metric_the_summary_lacks_names_the_nearest(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"goal 'flow.cubc.goodput_mbps': .* did you mean "
                       r"'flow.cubic.goodput_mbps'"):  # fmt: skip
        rate = cal.parse_unknown("link.bottleneck.rate=4Mbit..8Mbit")
        goal = cal.parse_goal("flow.cubc.goodput_mbps=7±1")
        cal.calibrate("basics/dumbbell-cubic", [rate], [goal], tmp_path, samples=2, rounds=1,
                      fixed={"duration": "1s"})  # fmt: skip
