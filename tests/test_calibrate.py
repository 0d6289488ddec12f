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


def test_a_ratio_goal_reads_two_metrics_and_durations_run_in_whole_nanoseconds() -> None:
    g = cal.Goal("flow.a.goodput_mbps/flow.b.goodput_mbps", 1.44, 0.2)
    assert g.parts() == ["flow.a.goodput_mbps", "flow.b.goodput_mbps"]
    assert g.of({"flow.a.goodput_mbps": 6.0, "flow.b.goodput_mbps": 4.0}) == 1.5
    assert math.isnan(g.of({"flow.a.goodput_mbps": 6.0, "flow.b.goodput_mbps": 0.0}))
    assert cal.Unknown("d", 0.05, 20, "ms").text(0.0646973) == "64697ns"
    assert cal.Unknown("w", 16, 64, "B", integer=True).text(17.6) == "18B"
    # An integer unknown's samples are the whole numbers that ran.
    seen: list[float] = []

    def evaluate(points: list[dict[str, float]]) -> list[dict[str, float]]:
        seen.extend(p["n"] for p in points)
        return [{"m": p["n"]} for p in points]

    c = cal.search(evaluate, [cal.Unknown("n", 16, 2000, log=True, integer=True)],
                   [cal.Goal("m", 100, 10)], samples=8, rounds=2)  # fmt: skip
    assert all(x == round(x) for x in seen) and c.region["n"] is not None


def test_a_spec_file_sets_one_unknown_on_every_key_it_names(tmp_path: Path) -> None:
    # The bottleneck's delay, the same both ways, behind CUBIC's least RTT: 24.15 ms with 10 ms
    # each way (2 x (1 + 10 + 1) plus a packet's serialisation). Were the reverse direction left
    # at its 8 ms, the goal would put the forward delay near 12 ms instead.
    spec = tmp_path / "spec.toml"
    spec.write_text("""
scenario = "basics/dumbbell-cubic"
question = "the bottleneck's delay"
samples = 8
rounds = 2
[set]
duration = "2s"
[[unknown]]
key = "link.bottleneck.forward.delay"
also = ["link.bottleneck.reverse.delay"]
low = 2.0
high = 20.0
unit = "ms"
plausible = "a lab's wires"
[[goal]]
metric = "flow.cubic.rtt_ms.min"
value = 24.15
tol = 0.5
row = "a made-up row"
""")
    s = cal.load_spec(spec)
    assert s.unknowns[0].also == ("link.bottleneck.reverse.delay",) and s.samples == 8
    c = cal.calibrate_spec(s, tmp_path / "out")
    lo, hi = c.region["link.bottleneck.forward.delay"]
    # Holding samples have 2 d + 4.15 within 24.15 ± 0.5: d within 10 ± 0.25.
    assert 9.6 < lo <= hi < 10.4, c.region
    doc = json.loads((tmp_path / "out" / "calibration.json").read_text())
    assert doc["spec"]["rows"] == {"flow.cubic.rtt_ms.min": "a made-up row"}
    assert doc["spec"]["plausible"] == {"link.bottleneck.forward.delay": "a lab's wires"}
    assert (tmp_path / "out" / "calibration.png").stat().st_size > 0


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("scenario = 3", r"spec.toml: scenario must be a str, got 3"),
        ('scenario = "x"\nbudget = 1', r"spec.toml: unknown key\(s\) \['budget'\]"),
        (
            'scenario = "x"\n[[unknown]]\nkey = "a"\nlow = 1\nhigh = 2\n[[goal]]\nmetric = "m"\n'
            'value = 1\ntol = 1\nrow = "r"',
            r"spec.toml: unknown\[0\].plausible must be a str",
        ),
        (
            'scenario = "x"\n[[unknown]]\nkey = "a"\nlow = 2\nhigh = 1\nplausible = "p"\n',
            r"spec.toml: unknown 'a': expected low < high",
        ),
        (
            'scenario = "x"\n[[unknown]]\nkey = "a"\nlow = 1\nhigh = 2\nplausible = "p"\n',
            r"spec.toml: expected at least one \[\[unknown\]\] and one \[\[goal\]\]",
        ),
        ("scenario = ", r"spec.toml: not valid TOML"),
    ],
)
def test_a_bad_spec_names_the_file_and_the_key(tmp_path: Path, text: str, message: str) -> None:
    spec = tmp_path / "spec.toml"
    spec.write_text(text)
    with pytest.raises(ValueError, match=message):
        cal.load_spec(spec)


def test_every_paper_declares_a_calibration_that_loads() -> None:
    from airlab.calibrate import load_spec
    from airlab.reproduce import PAPERS, calibration_file

    for name in PAPERS:
        s = load_spec(calibration_file(name))
        assert s.question and all(s.plausible[u.key] for u in s.unknowns)
        assert all(s.rows[g.metric] for g in s.goals)
    with pytest.raises(ValueError, match="no calibration declared for paper 'nope'"):
        calibration_file("nope")


def test_each_recorded_paper_calibration_answers_its_current_declaration() -> None:
    # Editing a paper's calibration file without re-running it would leave its page showing an
    # answer to another question.
    from dataclasses import asdict

    from airlab.reproduce import PAPERS, calibration_file

    root = Path(__file__).resolve().parents[1]
    for name in PAPERS:
        s = cal.load_spec(calibration_file(name))
        doc = json.loads((root / "docs/reproductions" / name / "calibration.json").read_text())
        assert doc["spec"] == json.loads(json.dumps(s.as_dict())), name
        assert doc["unknowns"] == json.loads(json.dumps([asdict(u) for u in s.unknowns])), name
        assert doc["goals"] == [asdict(g) for g in s.goals], name
        assert doc["samples"] == s.samples * s.rounds, name


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--paper", "nope"], "no calibration declared for paper 'nope'"),
        (["basics/dumbbell-cubic", "--paper", "fairtt"], "or --spec/--paper alone"),
        (["basics/dumbbell-cubic"], "expected SCENARIO with at least one --unknown"),
    ],
)
def test_the_cli_says_which_declaration_it_expected(
    tmp_path: Path, args: list[str], message: str
) -> None:
    from click.testing import CliRunner

    from airlab.cli import cli

    r = CliRunner().invoke(cli, ["calibrate", *args, "--out", str(tmp_path / "o")])
    assert r.exit_code == 2 and message in r.output, r.output
