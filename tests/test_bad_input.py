"""Bad input at the command line and the API: a one-line ``error: ...`` and exit status 2,
never a traceback, and nothing run that cannot be written."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import airlab
from conftest import DUMBBELL, SHORT, refused


def test_a_scenario_file_that_is_not_utf8_is_named(cli, tmp_path: Path) -> None:
    text = airlab.resolve(DUMBBELL).read_text()
    (tmp_path / "windows.toml").write_bytes(text.encode("utf-16"))
    refused(cli("validate", "windows.toml"), "windows.toml: the file is UTF-16 text")
    stray = text.replace('name = "dumbbell-cubic"', 'name = "caf\u00e9"').encode("latin-1")
    (tmp_path / "latin1.toml").write_bytes(stray)
    refused(cli("run", "latin1.toml", "--set", SHORT), "latin1.toml: the file is not UTF-8 text")
    # a UTF-8 byte order mark is fine
    (tmp_path / "bom.toml").write_bytes(b"\xef\xbb\xbf" + text.encode())
    assert cli("validate", "bom.toml").returncode == 0


@pytest.mark.parametrize("seed", ["-1", str(2**64), "1e3"])
def test_seeds_outside_the_engines_range_arerefused(cli, seed: str) -> None:
    refused(cli("run", DUMBBELL, "--set", SHORT, "--seed", seed), "--seed")


def test_the_api_checks_the_seed() -> None:
    with pytest.raises(ValueError, match="seed: expected an integer from 0 to 2"):
        airlab.run(DUMBBELL, seed=-1, set={"duration": "1s"})
    with pytest.raises(TypeError, match="seed"):
        airlab.run(DUMBBELL, seed=1.5, set={"duration": "1s"})  # type: ignore[arg-type]


@pytest.mark.parametrize("seeds", [str(10**20), str(10**9)])
def test_sweeps_too_large_to_hold_arerefused(cli, seeds: str) -> None:
    refused(cli("sweep", DUMBBELL, "--seeds", seeds, "--out", "sw"), "--seeds")


def test_an_output_path_inside_a_file_fails_before_the_run(cli, tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    start = time.monotonic()
    proc = cli("run", "basics/gigabit-50flows", "--out", "notes.txt/run")
    refused(proc, "--out notes.txt/run: notes.txt is a file, not a directory")
    assert time.monotonic() - start < 10, "refused before simulating"


def test_an_output_directory_that_cannot_be_made_is_named(cli) -> None:
    if not Path("/proc/self").is_dir():
        pytest.skip("needs /proc (Linux)")
    # /proc refuses new directories even to root; the message must say where and why.
    refused(cli("run", DUMBBELL, "--set", "duration=1s", "--out", "/proc/airlab/run"), "/proc")


def test_a_scenario_name_longer_than_a_file_name_is_not_found(cli) -> None:
    refused(cli("validate", "x" * 300), "no such scenario file or built-in scenario")


def test_a_set_that_is_not_utf8_isrefused(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "airlab", "validate", DUMBBELL, "--set", b"name=caf\xe9"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    refused(proc, "not valid UTF-8")


def test_names_that_look_like_mathtext_are_plotted_as_text(tmp_path: Path) -> None:
    text = airlab.resolve(DUMBBELL).read_text().replace('name = "cubic"', 'name = "$x^{$"')
    res = airlab.run_text(text, set={"duration": "2s"})
    assert res.flow_names == ["$x^{$"]
    out = res.save(tmp_path / "r")
    assert (out / "plots" / "throughput.png").stat().st_size > 0
    assert (out / "report.html").is_file()


def test_list_survives_unreadable_scenarios_and_keeps_the_built_ins(cli, tmp_path: Path) -> None:
    extra = tmp_path / "mine"
    extra.mkdir()
    (extra / "deep.toml").write_text("a = " + "[" * 100_000 + "]" * 100_000 + "\n")
    (extra / "own.toml").write_text('name = "own"\ndescription = "my own"\n')
    env = dict(os.environ, AIRLAB_SCENARIOS=str(extra), COLUMNS="200")
    proc = subprocess.run(
        [sys.executable, "-m", "airlab", "list"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    for name in ("deep", "own", "my own", DUMBBELL, "wifi/ax-cell-10"):
        assert name in proc.stdout, name


def test_duplicate_sweep_values_and_seeds_twice_arerefused(cli) -> None:
    refused(cli("sweep", DUMBBELL, "--set", "duration=2s,2s", "--out", "sw"), "2s given more")
    proc = cli("sweep", DUMBBELL, "--set", "seed=5,6", "--seeds", "2", "--out", "sw")
    refused(proc, "either as --seeds N or as --set seed")
    refused(cli("sweep", DUMBBELL, "--set", "seed=-1", "--out", "sw"), "--set seed")


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="reads /proc (Linux)")
def test_sweep_workers_exit_when_the_sweep_is_killed(tmp_path: Path) -> None:
    args = [sys.executable, "-m", "airlab", "sweep", "basics/gigabit-50flows", "--set"]
    args += ["duration=100s,101s", "--jobs", "2", "--out", "sw"]
    proc = subprocess.Popen(args, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    def children() -> list[int]:
        found = []
        for d in Path("/proc").iterdir():
            try:
                stat = (d / "stat").read_text()
            except OSError:
                continue
            if d.name.isdigit() and int(stat.rsplit(")", 1)[1].split()[1]) == proc.pid:
                found.append(int(d.name))
        return found

    deadline = time.monotonic() + 30
    while len(children()) < 2 and time.monotonic() < deadline:
        time.sleep(0.2)
    workers = children()
    assert len(workers) >= 2, "the sweep started its workers"
    time.sleep(1)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    deadline = time.monotonic() + 10
    alive = workers
    while alive and time.monotonic() < deadline:
        time.sleep(0.2)
        alive = [w for w in workers if Path(f"/proc/{w}").exists() and _not_zombie(w)]
    assert not alive, f"workers {alive} outlived the sweep"


def _not_zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


# -- output paths: checked before any work -------------------------------------------------------

#: Each command that writes where an option says, with otherwise valid arguments and that option
#: last. "r" is an empty folder the test makes: the output check comes before reading inputs.
WRITERS = {
    "run": ["run", DUMBBELL, "--set", SHORT, "--out"],
    "testbed run": ["testbed", "run", DUMBBELL, "--set", SHORT, "--out"],
    "sweep": ["sweep", DUMBBELL, "--set", SHORT, "--out"],
    "reproduce": ["reproduce", "fairtt", "--quick", "--out"],
    "model": ["model", "bbr-wifi6", "--out"],
    "plot": ["plot", "r", "--out"],
    "export": ["export", "r", "--out"],
    "compare": ["compare", "r", "r", "--out"],
    "schema": ["schema", "scenario", "--out"],
    "bench": ["bench", DUMBBELL, "--repeat", "1", "--record", "--dir"],
    "calibrate": [
        "calibrate",
        DUMBBELL,
        "--unknown",
        "link.bottleneck.rate=4Mbit..8Mbit",
        "--goal",
        "flow.cubic.goodput_mbps=5±1",
        "--out",
    ],
}


def test_every_command_that_writes_is_checked_below() -> None:
    """A new command with an output option must join WRITERS (and call the CLI's check)."""
    import click

    from airlab.cli import cli as group

    found = set()

    def walk(command: click.Command, path: list[str]) -> None:
        if isinstance(command, click.Group):
            for name, sub in command.commands.items():
                walk(sub, [*path, name])
        elif any(
            isinstance(p, click.Option) and isinstance(p.type, click.Path) for p in command.params
        ):
            found.add(" ".join(path))

    walk(group, [])
    assert found == set(WRITERS)


@pytest.mark.parametrize("command", sorted(WRITERS))
def test_an_empty_output_path_is_refused_before_any_work(cli, tmp_path: Path, command) -> None:
    # Path("") is ".": `run --out ''` used to write into results/<name>, `sweep --out ''` into
    # the current directory.
    (tmp_path / "r").mkdir()
    args = WRITERS[command]
    refused(cli(*args, ""), f"{args[-1]}: expected a", "got an empty string")
    assert [p.name for p in tmp_path.iterdir()] == ["r"], "nothing written"


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs /proc (Linux)")
@pytest.mark.parametrize("out", ["/proc/airlab/run", "/proc/self"])
def test_an_unwritable_output_directory_is_refused_before_the_run(cli, out: str) -> None:
    # /proc takes no new directories and no files, even from root: the run used to simulate
    # first and fail when saving.
    proc = cli("run", DUMBBELL, "--set", "duration=1s", "--out", out)
    refused(proc, f"--out {out}: ", "expected a directory that can be created and written to")
    assert "Flows (" not in proc.stdout, "refused before simulating"


def test_the_output_check_leaves_no_trace(tmp_path: Path) -> None:
    from airlab import _checks

    assert _checks.output_dir(tmp_path / "a" / "b", "out") == tmp_path / "a" / "b"
    assert _checks.output_file(tmp_path / "c" / "run.flent.gz") == tmp_path / "c" / "run.flent.gz"
    assert list(tmp_path.iterdir()) == [], "directories made to test are removed"
    with pytest.raises(ValueError, match=r"is a directory; expected a file path"):
        _checks.output_file(tmp_path)
    (tmp_path / "kept").mkdir()
    (tmp_path / "kept" / "old.json").write_text("{}")
    _checks.output_dir(tmp_path / "kept", "out")
    assert [p.name for p in (tmp_path / "kept").iterdir()] == ["old.json"]


# -- worker processes ---------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["sweep", "reproduce"])
def test_jobs_beyond_a_few_per_cpu_are_refused_before_any_work(cli, tmp_path, command) -> None:
    args = ["sweep", DUMBBELL, "--set", SHORT] if command == "sweep" else ["reproduce", "fairtt"]
    proc = cli(*args, "--jobs", "100000", "--out", "out")
    refused(proc, "--jobs: expected a number of worker processes from 1 to", "per CPU")
    assert not (tmp_path / "out").exists()


def test_the_api_bounds_worker_processes(tmp_path: Path) -> None:
    from airlab import jobs

    with pytest.raises(ValueError, match=r"^jobs: expected a number of worker processes"):
        jobs.LocalPool(100_000)
    with pytest.raises(ValueError, match=r"^--jobs: expected"), jobs.executor(100_000):
        pass
    for bad in (0, -1):
        with pytest.raises(ValueError, match=r"^jobs: expected"):
            airlab.Sweep.run(DUMBBELL, {"duration": "1s"}, tmp_path / "sw", jobs=bad)
    with pytest.raises(TypeError, match=r"^jobs: expected"):
        airlab.Sweep.run(DUMBBELL, {"duration": "1s"}, tmp_path / "sw", jobs=2.5)  # type: ignore[arg-type]
    assert not (tmp_path / "sw").exists()


# -- the Python API's arguments ------------------------------------------------------------------


@pytest.mark.parametrize(
    "seeds", [0, -3, [], 10**9, [1, 1], [-1], [2**64], 1.5, True, "3", [2.0], range(10**9)]
)
def test_sweep_seeds_say_what_was_expected(tmp_path: Path, seeds) -> None:
    with pytest.raises((TypeError, ValueError), match=r"^seeds: "):
        airlab.Sweep.run(DUMBBELL, {"duration": "1s"}, tmp_path / "sw", seeds=seeds)
    assert not (tmp_path / "sw").exists(), "refused before anything ran"


@pytest.mark.parametrize(
    "grid",
    [
        "duration=1s",
        [("duration", "1s", "2s")],
        {"duration": []},
        {"duration": ["1s", "1s"]},
        {"duration": "1s", "seed": [1, 2]},  # the seeds are `seeds=`, not a swept key
        {5: "1s"},
    ],
)
def test_a_sweep_grid_says_what_was_expected(tmp_path: Path, grid) -> None:
    with pytest.raises((TypeError, ValueError), match=r"^set"):
        airlab.Sweep.run(DUMBBELL, grid, tmp_path / "sw")
    assert not (tmp_path / "sw").exists()


@pytest.mark.parametrize(
    "overrides",
    ["duration=2s", b"duration=2s", ["duration=2s"], [("duration",)], [("a", 1, 2)], {1: "2s"}, 5],
)
def test_run_overrides_must_be_key_value_pairs(overrides) -> None:
    with pytest.raises(TypeError, match=r"^set: "):
        airlab.validate(DUMBBELL, set=overrides)


def test_an_override_string_names_the_mapping_to_write() -> None:
    with pytest.raises(TypeError, match=r"write set=\{'duration': '2s'\}"):
        airlab.run(DUMBBELL, set="duration=2s")  # type: ignore[arg-type]


# -- scenario files that cannot be found or read -------------------------------------------------


def test_a_missing_scenario_is_a_scenario_error_everywhere(tmp_path: Path) -> None:
    calls = {
        "validate": lambda: airlab.validate("missing.toml"),
        "run": lambda: airlab.run("missing.toml"),
        "Sweep.run": lambda: airlab.Sweep.run("missing.toml", {}, tmp_path / "sw"),
    }
    for name, call in calls.items():
        with pytest.raises(airlab.ScenarioError, match=r"^missing\.toml: no such scenario") as e:
            call()
        assert isinstance(e.value, OSError), name  # still caught as before by `except OSError`
    assert not (tmp_path / "sw").exists()


@pytest.mark.skipif(not Path("/proc/self/mem").is_file(), reason="needs /proc (Linux)")
def test_an_unreadable_scenario_is_named(cli) -> None:
    # /proc/self/mem is a file no one can read from the start: a stand-in for a file without
    # read permission that root can read anyway.
    with pytest.raises(airlab.ScenarioError, match=r"^/proc/self/mem: cannot read the scenario"):
        airlab.validate("/proc/self/mem")
    refused(cli("validate", "/proc/self/mem"), "/proc/self/mem: cannot read the scenario file")


def test_a_scenario_file_beyond_the_size_bound_is_refused_unread(tmp_path: Path, cli) -> None:
    big = tmp_path / "big.toml"
    with big.open("wb") as f:  # sparse: its size, not its bytes, must be what is refused
        f.truncate(airlab.MAX_SCENARIO_BYTES + 1)
    with pytest.raises(
        airlab.ScenarioFileError, match=r"big\.toml: the scenario file has 1,048,577"
    ):
        airlab.validate(big)
    refused(cli("validate", str(big)), "expected a scenario of at most 1,048,576")


def test_saving_a_result_names_a_bad_directory(tmp_path: Path) -> None:
    res = airlab.run(DUMBBELL, set={"duration": "1s"})
    with pytest.raises(ValueError, match=r"^out_dir: expected a directory path"):
        res.save("")
    (tmp_path / "file").write_text("")
    with pytest.raises(ValueError, match="is a file, not a directory"):
        res.save(tmp_path / "file" / "run")


@pytest.mark.parametrize(
    ("file", "content", "problem"),
    [
        ("summary.json", "", "not JSON"),
        ("summary.json", "[]", "expected a JSON object, got list"),
        ("summary.json", "null", "expected a JSON object, got NoneType"),
        ("summary.json", '{"flows": "abc"}', "flows: expected a list, got str"),
        ("summary.json", '{"flows": ["abc", 5]}', "flows[0]: expected an object with a name"),
        ("summary.json", "[" * 100_000 + "]" * 100_000, "nested deeper"),
        ("summary.json", b"\xff\xfe{}", "not UTF-8 text"),
        ("scenario.json", "[1]", "expected a JSON object, the scenario"),
        ("flows.parquet", "not parquet", "not a Parquet table"),
        ("flows.parquet", "queues.parquet", "expected the columns time_s, flow"),
    ],
)
def test_a_broken_result_directory_is_named_by_every_reader(
    cli, tmp_path: Path, file: str, content: str | bytes, problem: str
) -> None:
    res = tmp_path / "res"
    airlab.run(DUMBBELL, set={"duration": "1s"}).save(res, plots=False, report=False)
    target = res / file
    if content == "queues.parquet":  # another table in its place
        target.write_bytes((res / "queues.parquet").read_bytes())
    elif isinstance(content, bytes):
        target.write_bytes(content)
    else:
        target.write_text(content)
    with pytest.raises(ValueError, match=f"{re.escape(file)}: .*{re.escape(problem)}"):
        airlab.Result.load(res)
    for command in (("compare", str(res), str(res)), ("plot", str(res), "--out", "p"),
                    ("export", str(res), "--out", "x.flent.gz")):  # fmt: skip
        refused(cli(*command), f"{file}: ", problem)
