"""An engine bug, a summary that breaks a physical invariant, is an error of its own: the
engine raises ``airlab.InternalError`` instead of handing out the numbers, and the command
line exits 3 asking for a report (a scenario's errors exit 2)."""

from __future__ import annotations

from pathlib import Path

import pytest

import airlab
from airlab import _core, cli, engine


def test_internal_error_is_the_engines_runtime_error() -> None:
    assert airlab.InternalError is _core.InternalError
    assert issubclass(airlab.InternalError, RuntimeError)
    assert not issubclass(airlab.InternalError, airlab.ScenarioError)


def test_an_internal_error_exits_3_and_asks_for_a_report(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    broken = 'link "bottleneck:r1->r2" utilization = 11574512, expected from 0 to 1'

    def run(*args: object, **kwargs: object) -> None:
        raise airlab.InternalError(f"the run's summary breaks 1 physical invariant: {broken}")

    monkeypatch.setattr(airlab, "run", run)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exit_:
        cli.main(["run", "basics/dumbbell-cubic", "--out", "out"])
    assert exit_.value.code == 3
    err = capsys.readouterr().err
    assert err.startswith("internal error: the run's summary breaks 1 physical invariant: ")
    assert broken in err and "please report it" in err
    assert not (tmp_path / "out" / "summary.json").exists()


def test_a_sweep_with_an_internal_error_exits_3_and_keeps_its_other_runs(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    real = engine.run_text  # a sweep's worker runs its scenario with airlab.engine.run_text

    def run_text(text: str, seed: int | None = None, **kwargs: object) -> object:
        if seed == 2:
            raise airlab.InternalError("the run's summary breaks 1 physical invariant: x")
        return real(text, seed=seed, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(engine, "run_text", run_text)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exit_:
        cli.main(["sweep", "basics/dumbbell-cubic", "--set", "duration=1s", "--seeds", "2",
                  "--jobs", "1", "--out", "sw"])  # fmt: skip
    assert exit_.value.code == 3
    err = capsys.readouterr().err
    assert "internal error: run " in err and "InternalError: the run's summary breaks" in err
    assert "please report it" in err
    assert len(list((tmp_path / "sw" / "runs").glob("*.json"))) == 1
