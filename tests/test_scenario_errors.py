"""Scenario errors raised on the Python side of the engine, and the engine's bounds as the API
and the command line meet them: every refusal names what it is about and what was expected."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import airlab
from airlab import _checks
from conftest import DUMBBELL, refused


def test_a_directory_is_not_a_scenario_file(cli, tmp_path: Path) -> None:
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "a.toml").write_text("")
    with pytest.raises(airlab.ScenarioFileError, match=r"is a directory, not a scenario file") as e:
        airlab.validate(tmp_path / "runs")
    assert "such as a.toml" in str(e.value)
    assert "no such scenario" not in str(e.value)
    refused(cli("validate", "runs"), "runs: is a directory, not a scenario file")


def test_a_device_or_a_pipe_is_not_a_scenario_file(cli, tmp_path: Path) -> None:
    if not Path("/dev/null").exists():
        pytest.skip("needs /dev/null")
    device = r"^/dev/null: is a character device, not a regular file"
    with pytest.raises(airlab.ScenarioFileError, match=device):
        airlab.validate("/dev/null")
    refused(cli("validate", "/dev/null"), "/dev/null: is a character device")
    # A named pipe would block a reader forever; it is refused without being opened.
    os.mkfifo(tmp_path / "pipe.toml")
    with pytest.raises(airlab.ScenarioFileError, match=r"is a named pipe \(FIFO\)"):
        airlab.validate(tmp_path / "pipe.toml")


def test_a_symbolic_link_loop_says_why_it_cannot_be_read(tmp_path: Path) -> None:
    (tmp_path / "a.toml").symlink_to(tmp_path / "b.toml")
    (tmp_path / "b.toml").symlink_to(tmp_path / "a.toml")
    with pytest.raises(airlab.ScenarioFileError, match=r"a\.toml: cannot be read \("):
        airlab.validate(tmp_path / "a.toml")


def test_text_over_a_mebibyte_is_refused_as_a_file_is() -> None:
    text = airlab.resolve(DUMBBELL).read_text()
    big = text + "#" * (airlab.MAX_SCENARIO_BYTES + 1 - len(text.encode()))
    size = r"^<scenario text>: the scenario has 1048577 bytes"
    with pytest.raises(airlab.ScenarioError, match=size):
        airlab.run_text(big)
    with pytest.raises(airlab.ScenarioError, match="expected at most 1048576"):
        airlab.run_text(big, name="notebook")


def test_an_override_value_that_contains_itself_isrefused() -> None:
    d: dict[str, object] = {}
    d["a"] = d
    with pytest.raises(ValueError, match=r"^set flow\.0\.app: the value contains itself"):
        airlab.validate(DUMBBELL, set={"flow.0.app": d})
    loop: list[object] = [1]
    loop.append([loop])
    with pytest.raises(ValueError, match="contains itself"):
        airlab.run(DUMBBELL, set=[("flow.0.tcp.rmem", loop)])
    # A part shared without a cycle is fine.
    part = ["1KB", "2KB", "4KB"]
    resolved = airlab.validate(DUMBBELL, set={"flow.0.tcp": {"rmem": part, "wmem": part}})
    tcp = resolved["flows"][0]["tcp"]
    assert tcp["rmem"] == tcp["wmem"] == ["1KB", "2KB", "4KB"]


def test_override_values_nest_as_deep_as_the_engine_reads() -> None:
    def nest(levels: int) -> object:
        v: object = "x"
        for k in range(levels):
            v = [v] if k % 2 else {"a": v}
        return v

    with pytest.raises(ValueError, match=f"more than {_checks.MAX_VALUE_DEPTH} deep"):
        airlab.validate(DUMBBELL, set={"flow.0.app": nest(_checks.MAX_VALUE_DEPTH + 1)})
    with pytest.raises(ValueError, match="more than 80 deep"):
        airlab.validate(DUMBBELL, set={"flow.0.app": nest(5000)})  # was RecursionError
    # At the bound the engine reads the value as a table (not as a string) and checks it.
    with pytest.raises(airlab.ScenarioError, match=r"flow\[0\]\.app"):
        airlab.validate(DUMBBELL, set={"flow.0.app": nest(_checks.MAX_VALUE_DEPTH)})


def test_an_override_value_sharing_its_parts_cannot_stand_for_too_many() -> None:
    v: object = [1]
    for _ in range(40):
        v = [v, v]  # 2**40 entries written out
    with pytest.raises(ValueError, match="more than 1,048,576 entries"):
        airlab.validate(DUMBBELL, set={"flow.0.app": v})


def test_set_takes_the_seeds_that_seed_takes(cli) -> None:
    top = str(airlab.MAX_SEED)
    assert airlab.validate(DUMBBELL, set={"seed": airlab.MAX_SEED})["scenario"]["seed"] == 2**64 - 1
    assert cli("validate", DUMBBELL, "--set", f"seed={top}").returncode == 0
    assert cli("run", DUMBBELL, "--seed", top, "--set", "duration=0.5s").returncode == 0
    expected = "expected a whole number from 0 to 18446744073709551615"
    proc = cli("validate", DUMBBELL, "--set", f"seed={2**64}")
    refused(proc, expected, f"(from --set seed={2**64})")


def test_many_fast_pings_are_refused_before_they_run(cli, tmp_path: Path) -> None:
    # 10,000 ping flows at 1 us each passed the per-flow bound and ran for minutes.
    (tmp_path / "pings.toml").write_text(
        'name = "pings"\nduration = "1s"\nhosts = ["h1", "h2"]\n'
        '[[link]]\nbetween = ["h1", "h2"]\nrate = "1000Gbit"\ndelay = "1ms"\n'
        '[[flow]]\nfrom = "h1"\nto = "h2"\ncount = 10000\n'
        'app = { kind = "ping", interval = "1us" }\n'
    )
    refused(cli("run", "pings.toml", "--out", "out"), "flow[0].app.interval", "pings.parquet")
    assert not (tmp_path / "out").exists()
    # 100 UDP flows of 833,000 datagrams a second write no rows, but carry 1.7e8 packets in 2 s.
    udp = 'flow.0.app={ kind = "udp", rate = "10Gbit" }'
    sets = ["--set", udp, "--set", "flow.0.count=100", "--set", "duration=2s"]
    proc = cli("validate", "pings.toml", *sets)
    refused(proc, "flow[0].app.rate", "more than the 100000000 a run may carry", "(from --set")
