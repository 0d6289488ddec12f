"""Bad input at the command line and the API: a one-line ``error: ...`` and exit status 2,
never a traceback, and nothing run that cannot be written."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import airlab
from conftest import DUMBBELL, SHORT


def _refused(proc: subprocess.CompletedProcess, *fragments: str) -> None:
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.stderr.startswith("error: "), proc.stderr
    for fragment in fragments:
        assert fragment in proc.stderr, (fragment, proc.stderr)


def test_a_scenario_file_that_is_not_utf8_is_named(cli, tmp_path: Path) -> None:
    text = airlab.resolve(DUMBBELL).read_text()
    (tmp_path / "windows.toml").write_bytes(text.encode("utf-16"))
    _refused(cli("validate", "windows.toml"), "windows.toml: the file is UTF-16 text")
    stray = text.replace('name = "dumbbell-cubic"', 'name = "caf\u00e9"').encode("latin-1")
    (tmp_path / "latin1.toml").write_bytes(stray)
    _refused(cli("run", "latin1.toml", "--set", SHORT), "latin1.toml: the file is not UTF-8 text")
    # a UTF-8 byte order mark is fine
    (tmp_path / "bom.toml").write_bytes(b"\xef\xbb\xbf" + text.encode())
    assert cli("validate", "bom.toml").returncode == 0


@pytest.mark.parametrize("seed", ["-1", str(2**64), "1e3"])
def test_seeds_outside_the_engines_range_are_refused(cli, seed: str) -> None:
    _refused(cli("run", DUMBBELL, "--set", SHORT, "--seed", seed), "--seed")


def test_the_api_checks_the_seed() -> None:
    with pytest.raises(ValueError, match="seed: expected an integer from 0 to 2"):
        airlab.run(DUMBBELL, seed=-1, set={"duration": "1s"})
    with pytest.raises(TypeError, match="seed"):
        airlab.run(DUMBBELL, seed=1.5, set={"duration": "1s"})  # type: ignore[arg-type]


@pytest.mark.parametrize("seeds", [str(10**20), str(10**9)])
def test_sweeps_too_large_to_hold_are_refused(cli, seeds: str) -> None:
    _refused(cli("sweep", DUMBBELL, "--seeds", seeds, "--out", "sw"), "--seeds")


def test_an_output_path_inside_a_file_fails_before_the_run(cli, tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    start = time.monotonic()
    proc = cli("run", "basics/gigabit-50flows", "--out", "notes.txt/run")
    _refused(proc, "--out notes.txt/run: notes.txt is a file, not a directory")
    assert time.monotonic() - start < 10, "refused before simulating"


def test_an_output_directory_that_cannot_be_made_is_named(cli) -> None:
    if not Path("/proc/self").is_dir():
        pytest.skip("needs /proc (Linux)")
    # /proc refuses new directories even to root; the message must say where and why.
    _refused(cli("run", DUMBBELL, "--set", "duration=1s", "--out", "/proc/airlab/run"), "/proc")


def test_a_scenario_name_longer_than_a_file_name_is_not_found(cli) -> None:
    _refused(cli("validate", "x" * 300), "no such scenario file or built-in scenario")


def test_a_set_that_is_not_utf8_is_refused(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "airlab", "validate", DUMBBELL, "--set", b"name=caf\xe9"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    _refused(proc, "not valid UTF-8")


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


def test_duplicate_sweep_values_and_seeds_twice_are_refused(cli) -> None:
    _refused(cli("sweep", DUMBBELL, "--set", "duration=2s,2s", "--out", "sw"), "2s given more")
    proc = cli("sweep", DUMBBELL, "--set", "seed=5,6", "--seeds", "2", "--out", "sw")
    _refused(proc, "either as --seeds N or as --set seed")
    _refused(cli("sweep", DUMBBELL, "--set", "seed=-1", "--out", "sw"), "--set seed")


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
