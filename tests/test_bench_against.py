"""`airlab bench --against`: interleaving, bookkeeping, the reference tree and the record.

The builds here are stand-in executables that log who ran and print a summary, so the
orchestration is checked exactly without compiling a reference (which takes minutes)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from airlab import bench, bench_against

ENGINE = """#!{python}
import json, os, sys
scenario = sys.argv[1]
with open({log!r}, "a") as f:
    f.write({label!r} + " " + os.path.basename(scenario) + "\\n")
if "broken" in scenario and {label!r} == "ref":
    sys.exit("error: the reference cannot read it")
sum(range(20000))
print(json.dumps({{"engine": {{"events": {events}}}}}))
"""


def fake_build(
    tmp_path: Path, label: str, events: int, scenarios: dict[str, str]
) -> bench_against.Build:
    root = tmp_path / label
    (root / "scenarios" / "basics").mkdir(parents=True)
    for name, text in scenarios.items():
        (root / "scenarios" / f"{name}.toml").write_text(text)
    binary = root / "engine"
    log = str(tmp_path / "log")
    binary.write_text(ENGINE.format(python=sys.executable, log=log, label=label, events=events))
    binary.chmod(0o755)
    return bench_against.Build(label, binary, root / "scenarios")


def test_rounds_alternate_which_build_runs_first(tmp_path: Path) -> None:
    same = {"basics/a": "x", "basics/b": "y"}
    ours = fake_build(tmp_path, "ours", 100, same)
    ref = fake_build(tmp_path, "ref", 80, {"basics/a": "x", "basics/b": "changed"})
    rounds: list[tuple[int, int]] = []
    c = bench_against.compare(
        ours, ref, ["basics/a", "basics/b"], 3, lambda d, t: rounds.append((d, t)), min_cpu_s=0
    )
    order = (tmp_path / "log").read_text().split("\n")[:-1]
    assert order == [
        "ours a.toml", "ref a.toml", "ref b.toml", "ours b.toml",  # round 1
        "ref a.toml", "ours a.toml", "ours b.toml", "ref b.toml",  # round 2
        "ours a.toml", "ref a.toml", "ref b.toml", "ours b.toml",  # round 3
    ]  # fmt: skip
    assert rounds == [(1, 3), (2, 3), (3, 3)]
    a, b = (s.as_dict() for s in c.scenarios)
    assert a["rounds"] == 3 and a["events"] == 100 and a["events_reference"] == 80
    assert a["same_scenario_file"] and not b["same_scenario_file"]
    ratios = sorted(
        x.cpu_s / y.cpu_s
        for x, y in zip(c.scenarios[0].ours, c.scenarios[0].reference, strict=True)
    )
    assert a["ratio"] == ratios[1] and a["ratio_min"] == ratios[0] and a["ratio_max"] == ratios[2]
    assert all(x.cpu_s > 0 and x.wall_s > 0 for x in c.readings())
    assert c.as_dict()["rounds"] == 3


def test_a_scenario_missing_or_failing_on_one_side_is_reported_not_fatal(tmp_path: Path) -> None:
    ours = fake_build(
        tmp_path, "ours", 5, {"basics/a": "x", "basics/new": "n", "basics/broken": "b"}
    )
    ref = fake_build(tmp_path, "ref", 5, {"basics/a": "x", "basics/broken": "b"})
    names = ["basics/a", "basics/new", "basics/broken"]
    c = bench_against.compare(ours, ref, names, rounds=2, min_cpu_s=0)
    a, new, broken = (s.as_dict() for s in c.scenarios)
    assert a["rounds"] == 2
    assert new == {"scenario": "basics/new", "missing": "not a scenario of ref"}
    assert (
        broken["missing"].startswith("ref on ")
        and "the reference cannot read it" in broken["missing"]
    )
    # the broken scenario is not run again after its first failure
    assert (tmp_path / "log").read_text().count("broken.toml") <= 2


def test_a_loaded_machine_is_flagged() -> None:
    quiet = bench_against.Reading(cpu_s=1.0, wall_s=1.0, events=1, others_cores=0.05, steal=0.0)
    busy = bench_against.Reading(cpu_s=1.0, wall_s=1.0, events=1, others_cores=0.9, steal=0.1)
    s = bench_against.ScenarioComparison(
        "x", ours=[quiet, busy, busy], reference=[quiet, busy, busy]
    )
    c = bench_against.Comparison("ours", "ref", 3, [s])
    assert "0.90 cores" in c.degraded and "stole 10.0%" in c.degraded
    s.ours, s.reference = [quiet] * 3, [quiet] * 3
    assert c.degraded == ""


def test_the_reference_is_the_commit_as_committed(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()

    def git(*args: str) -> str:
        env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t",
                   GIT_COMMITTER_EMAIL="t@t")  # fmt: skip
        return subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True,
                              text=True).stdout.strip()  # fmt: skip

    git("init", "-q")
    (repo / "Cargo.toml").write_text("first")
    git("add", ".")
    git("commit", "-qm", "one")
    first = git("rev-parse", "HEAD")
    (repo / "Cargo.toml").write_text("second")
    git("commit", "-qam", "two")
    (repo / "Cargo.toml").write_text("uncommitted")
    commit, src = bench_against.extract("HEAD~1", repo, say=lambda _: None)
    assert commit == first
    assert src == repo / "target" / "bench-ref" / first[:12] / "src"
    assert (src / "Cargo.toml").read_text() == "first"
    (src / "Cargo.toml").write_text("kept")  # extracted once, then reused
    assert bench_against.extract(first[:8], repo, say=lambda _: None)[1] == src
    assert (src / "Cargo.toml").read_text() == "kept"
    with pytest.raises(bench_against.BenchError, match="'nope': not a commit of the checkout"):
        bench_against.extract("nope", repo, say=lambda _: None)


def test_comparisons_are_recorded_as_ratios(tmp_path: Path) -> None:
    same = {"basics/a": "x"}
    ours = fake_build(tmp_path, "ours", 10, same)
    c = bench_against.compare(
        ours, fake_build(tmp_path, "ref", 10, same), ["basics/a", "gone"], rounds=1, min_cpu_s=0
    )
    bench.record_comparison(c, tmp_path / "b")
    figures = {"duration_s": 1, "repeat": 1, "events": 10, "wall_s": 0.5, "events_per_s": 20}
    figures |= {"sim_s_per_wall_s": 2, "packets_per_wall_s": 4}
    bench.record([{"scenario": "basics/a", **figures}], tmp_path / "b")
    rec = json.loads((tmp_path / "b" / "results.json").read_text())
    assert rec[0]["against"]["ours"] == "ours" and rec[0]["against"]["reference"] == "ref"
    assert rec[0]["against"]["scenarios"][0]["rounds"] == 1
    md = (tmp_path / "b" / "RESULTS.md").read_text()
    ratios, absolute = (
        md.index("## Ratios against a reference build"),
        md.index("## Absolute figures"),
    )
    assert ratios < absolute
    assert "### " in md[ratios:absolute] and "ours against ref" in md[ratios:absolute]
    assert "| gone | | | | | not a scenario of ours |" in md


def test_cli_names_a_reference_that_is_not_a_commit() -> None:
    # From the repository's root, where a developer runs it (the tests' checkout).
    root = Path(__file__).resolve().parent.parent
    args = [
        sys.executable,
        "-m",
        "airlab",
        "bench",
        "--against",
        "no-such-ref-anywhere",
        "basics/a",
    ]
    proc = subprocess.run(args, cwd=root, capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0
    assert "'no-such-ref-anywhere': not a commit of the checkout" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_outside_a_checkout_it_says_what_it_needs(tmp_path: Path) -> None:
    with pytest.raises(bench_against.BenchError, match="needs a git checkout of airlab"):
        bench_against.checkout([tmp_path])
    root = Path(__file__).resolve().parent.parent
    assert bench_against.checkout([tmp_path, root / "tests"]) == root


def test_a_scenario_given_by_path_is_the_same_file_for_both_builds(tmp_path: Path) -> None:
    ours = fake_build(tmp_path, "ours", 1, {"basics/a": "x"})
    ref = fake_build(tmp_path, "ref", 1, {})
    own = tmp_path / "scale.toml"
    own.write_text("y")
    assert ours.scenario(str(own)) == ref.scenario(str(own)) == own.resolve()
    assert ref.scenario("basics/a") is None and ours.scenario("basics/a") is not None


def test_a_short_scenario_is_repeated_and_timed_per_run(tmp_path: Path) -> None:
    ours = fake_build(tmp_path, "ours", 7, {"basics/a": "x"})
    scenario = ours.scenario("basics/a")
    assert scenario is not None
    r = bench_against.measure(ours, scenario, min_cpu_s=0.1)
    runs = (tmp_path / "log").read_text().count("ours a.toml")
    assert 1 < runs <= bench_against.MAX_RUNS
    # the time of one run, not of them all: each run is a Python start-up (>= 5 ms)
    assert 0.1 / runs <= r.cpu_s * 1.5 and r.cpu_s < 0.1 and r.events == 7
