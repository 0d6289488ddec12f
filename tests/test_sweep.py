"""Sweeps: grid x seeds, one row per run, resumable, never corrupt."""

from __future__ import annotations

import json
import re
import shutil
import signal
import sys
import time
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import airlab
from airlab import _io, jobs, results
from airlab import sweep as sw
from airlab.jobs import job_id
from airlab.results import ResultFileError
from conftest import DUMBBELL, interruptible, set_at

GRID = ["--set", "duration=2s,3s"]


def _sweep(cli, out: str = "sw", *extra: str):
    return cli("sweep", DUMBBELL, *GRID, "--seeds", "2", "--jobs", "2", "--out", out, *extra)


def test_grid_times_seeds_gives_one_row_per_run(cli, tmp_path: Path) -> None:
    proc = _sweep(cli)
    assert proc.returncode == 0, proc.stderr
    df = pd.read_parquet(tmp_path / "sw" / "sweep.parquet")
    assert len(df) == 4
    assert sorted(zip(df["duration"], df["seed"], strict=True)) == [
        ("2s", 1),
        ("2s", 2),
        ("3s", 1),
        ("3s", 2),
    ]
    assert df["run_id"].is_unique
    assert "jain_index" in df.columns
    assert any(c.startswith("flow.") and c.endswith(".goodput_mbps") for c in df.columns)
    assert any(c.startswith("flow.") and c.endswith(".rtt_ms.p95") for c in df.columns)
    assert any(c.startswith("queue.") and c.endswith(".drops") for c in df.columns)
    assert any(c.startswith("link.") and c.endswith(".utilization") for c in df.columns)
    assert sorted(df["duration_s"]) == [2, 2, 3, 3]
    runs = sorted((tmp_path / "sw" / "runs").glob("*.json"))
    assert [p.stem for p in runs] == sorted(df["run_id"])
    rec = json.loads(runs[0].read_text())
    assert {"run_id", "params", "seed", "summary"} <= set(rec)


def test_resume_runs_only_missing_and_ignores_partial_files(cli, tmp_path: Path) -> None:
    assert _sweep(cli).returncode == 0
    runs = tmp_path / "sw" / "runs"
    files = sorted(runs.glob("*.json"))
    assert len(files) == 4
    victim, truncated = files[1], files[2]
    victim.unlink()
    # a crash of a non-atomic writer: a truncated record; and an unfinished temp file
    truncated.write_text(truncated.read_text()[:40])
    (runs / f".{files[0].name}.x1y2.tmp").write_text('{"run_id": "garb')
    before = {p.name: p.stat().st_mtime_ns for p in files if p not in (victim, truncated)}
    time.sleep(0.05)

    proc = _sweep(cli)
    assert proc.returncode == 0, proc.stderr
    done = sorted(line.split()[1] for line in proc.stdout.splitlines() if line.startswith("done "))
    assert done == sorted([victim.stem, truncated.stem])
    assert "2 skipped" in proc.stdout
    after = {p.name: p.stat().st_mtime_ns for p in runs.glob("*.json") if p.name in before}
    assert after == before, "finished runs were redone"
    df = pd.read_parquet(tmp_path / "sw" / "sweep.parquet")
    assert len(df) == 4 and df["run_id"].is_unique

    # nothing left to do: a third invocation runs nothing
    proc = _sweep(cli)
    assert "0 runs executed" in proc.stdout and "4 skipped" in proc.stdout


def test_bad_set_fails_fast_before_running(cli, tmp_path: Path) -> None:
    proc = cli("sweep", DUMBBELL, "--set", "duration=2s,never", "--seeds", "2", "--out", "bad")
    assert proc.returncode == 2
    assert proc.stderr.startswith("error:") and "duration" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not list((tmp_path / "bad").glob("runs/*.json"))


def test_ctrl_c_keeps_finished_runs(tmp_path: Path) -> None:
    args = [
        sys.executable,
        "-m",
        "airlab",
        "sweep",
        DUMBBELL,
        "--set",
        "duration=20s",
        "--seeds",
        "200",
        "--jobs",
        "2",
        "--out",
        "sw",
    ]
    proc = interruptible(args, tmp_path)
    assert proc.stdout is not None
    for line in proc.stdout:
        if line.startswith("done "):
            break
    else:
        pytest.fail(f"sweep produced no finished run: {proc.stderr.read() if proc.stderr else ''}")
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    finished = [p for p in (tmp_path / "sw" / "runs").glob("*.json")]
    assert 1 <= len(finished) < 200
    df = pd.read_parquet(tmp_path / "sw" / "sweep.parquet")
    assert sorted(df["run_id"]) == sorted(p.stem for p in finished)


def test_run_id_is_stable_and_distinct() -> None:
    a = job_id("a.toml", (("x.limit", "20"), ("duration", "5s")), 1)
    assert a == job_id("a.toml", (("x.limit", "20"), ("duration", "5s")), 1)
    assert a == job_id("a.toml", (("duration", "5s"), ("x.limit", "20")), 1)  # order-independent
    assert a != job_id("a.toml", (("x.limit", "20"), ("duration", "5s")), 2)
    assert a != job_id("a.toml", (("x.limit", "21"), ("duration", "5s")), 1)
    assert a != job_id("b.toml", (("x.limit", "20"), ("duration", "5s")), 1)
    assert "/" not in job_id("a.toml", (("rate", "1/2"),), 1)


def test_grid_parsing_and_expansion() -> None:
    grid = sw.parse_grid(["a=1,2,3", "b=x"])
    assert grid == [("a", ["1", "2", "3"]), ("b", ["x"])]
    specs = sw.expand(grid, [1, 2])
    assert len(specs) == 6
    assert len({s.id for s in specs}) == 6
    q = 'q={ kind = "bfifo", limit = "30KB" },{ kind = "pfifo" }'
    assert sw.parse_grid([q])[0][1] == ['{ kind = "bfifo", limit = "30KB" }', '{ kind = "pfifo" }']
    assert sw.parse_grid(['n="a,b",c'])[0][1] == ['"a,b"', "c"]
    for bad in (["a"], ["=1"], ["a=1,,2"], ["a=1", "a=2"]):
        with pytest.raises(ValueError):
            sw.parse_grid(bad)


def test_flatten_summary() -> None:
    summary = {
        "scenario": "x",
        "seed": 1,
        "duration_s": 5.0,
        "jain_index": 0.99,
        "flows": [
            {
                "name": "f",
                "cc": "cubic",
                "goodput_mbps": 9.5,
                "rtt_ms": {"p95": 30.0},
                "fct_s": None,
            }
        ],
        "queues": [{"name": "q", "node": "r1", "drops": 3, "sojourn_ms": {"mean": 1.0}}],
        "links": [{"name": "l", "utilization": 0.98}],
        "engine": {"events": 10},
    }
    flat = sw.flatten_summary(summary)
    assert flat == {
        "duration_s": 5.0,
        "jain_index": 0.99,
        "flow.f.goodput_mbps": 9.5,
        "flow.f.rtt_ms.p95": 30.0,
        "queue.q.drops": 3,
        "queue.q.sojourn_ms.mean": 1.0,
        "link.l.utilization": 0.98,
        "engine.events": 10,
    }


def test_atomic_write_leaves_old_file_on_failure(tmp_path: Path) -> None:
    dest = tmp_path / "x.json"
    _io.write_json(dest, {"v": 1})
    with pytest.raises(RuntimeError), _io.atomic_path(dest) as tmp:
        tmp.write_text("half")
        raise RuntimeError("crash")
    assert json.loads(dest.read_text()) == {"v": 1}
    assert [p.name for p in tmp_path.iterdir()] == ["x.json"]


def test_set_seed_lists_the_seeds_of_a_sweep(cli, tmp_path: Path) -> None:
    # `run --set seed=` sets the run seed; in a sweep the listed seeds are the seed dimension
    # (it used to run every point with seed 1 and say nothing).
    proc = cli("sweep", DUMBBELL, "--set", "duration=2s", "--set", "seed=5,6", "--out", "sw")
    assert proc.returncode == 0, proc.stderr
    df = pd.read_parquet(tmp_path / "sw" / "sweep.parquet")
    assert sorted(df["seed"]) == [5, 6]
    runs = [json.loads(p.read_text()) for p in (tmp_path / "sw" / "runs").glob("*.json")]
    assert sorted(r["summary"]["seed"] for r in runs) == [5, 6]


def test_a_rebuilt_engine_reruns_finished_runs(tmp_path: Path, monkeypatch) -> None:
    grid = [("duration", ["1s"])]
    first = sw.run_sweep(DUMBBELL, grid, [1], tmp_path)
    assert len(first.executed) == 1
    assert sw.run_sweep(DUMBBELL, grid, [1], tmp_path).skipped == 1
    # the same scenario with another engine binary: its results are not reused
    monkeypatch.setattr(jobs, "engine_digest", lambda: b"another build")
    again = sw.run_sweep(DUMBBELL, grid, [1], tmp_path)
    assert (len(again.executed), again.skipped) == (1, 0)


def test_a_sweep_of_batch_ended_runs_keeps_their_batch_means(cli, tmp_path: Path) -> None:
    batches = "metrics.batches={ packets = 500, count = 4 }"
    grid = ["--set", "link.bottleneck.qdisc.limit=20,100", "--set", batches]
    proc = cli("sweep", DUMBBELL, *grid, "--seeds", "1", "--jobs", "1", "--out", "sw")
    assert proc.returncode == 0, proc.stderr
    df = pd.read_parquet(tmp_path / "sw" / "sweep.parquet").set_index("link.bottleneck.qdisc.limit")
    # Three batches kept of four; the flow's mean one-way delay grows with the queue it fills.
    assert (df["batch.cubic.goodput_mbps.batches"] == 3).all()
    assert (df["batch.cubic.goodput_mbps.ci"] > 0).all()
    owd = df["batch.cubic.owd_ms.mean"]
    assert owd[100] > owd[20] + 50
    assert (df["batches.completed"] == 4).all()


def test_a_pool_starts_no_more_workers_than_runs(tmp_path: Path, monkeypatch) -> None:
    # With fork, a pool starts every worker at once: --jobs 8 for one run forked 8 processes.
    started = []
    real = jobs.ProcessPoolExecutor

    def counting(max_workers: int, **kwargs):
        started.append(max_workers)
        return real(max_workers=max_workers, **kwargs)

    monkeypatch.setattr(jobs, "ProcessPoolExecutor", counting)
    done = sw.run_sweep(DUMBBELL, [("duration", ["1s"])], [1], tmp_path, jobs=2)
    assert (len(done.executed), started) == (1, [1])


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished sweep directory of two runs (seeds 1 and 2)."""
    d = tmp_path_factory.mktemp("sweep") / "sw"
    airlab.Sweep.run(DUMBBELL, set={"duration": "1s"}, seeds=2, out=d, jobs=1)
    return d


@pytest.mark.parametrize(
    ("edit", "problem"),
    [
        ("{", "not JSON"),
        ("[]", "expected a JSON object, a run record, got list"),
        (set_at("run_id", "other"), "run_id: expected the file's name"),
        (
            set_at("seed", "abc"),
            r"seed: expected an integer from 0 to 2\*\*64 - 1, got 'abc'",
        ),
        (set_at("params", "x"), "params: expected an object of keys and their --set text"),
        (set_at("summary", None), "summary: expected a JSON object, got NoneType"),
        (
            set_at("summary.flows.0.goodput_mbps", -1),
            'summary: flow "cubic": goodput_mbps: expected a finite number of at least 0',
        ),
        (
            set_at("summary.links.0.utilization", 3),
            r'summary: link "[^"]+": utilization: expected a number from 0 to 1',
        ),
    ],
)
def test_load_names_a_broken_run_record_instead_of_dropping_it(
    finished: Path, tmp_path: Path, edit: Any, problem: str
) -> None:
    d = tmp_path / "sw"
    shutil.copytree(finished, d)
    victim = sorted((d / "runs").glob("*.json"))[1]
    if isinstance(edit, str):
        victim.write_text(edit)
    else:
        rec = json.loads(victim.read_text())
        edit(rec)
        victim.write_text(json.dumps(rec))
    with pytest.raises(ResultFileError, match=f"^{re.escape(str(victim))}: {problem}"):
        airlab.Sweep.load(d)


def test_every_reader_of_run_records_bounds_their_size(
    finished: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(results, "MAX_JSON_BYTES", 1000)
    with pytest.raises(
        ResultFileError, match=r"runs/.*\.json: [\d,]+ bytes; expected at most 1,000"
    ):
        airlab.Sweep.load(finished)
    # resuming takes a record it cannot read for one to redo
    assert jobs.read_runs(finished / "runs") == {}


def test_a_sweep_directory_holds_the_runs_of_one_scenario(
    cli, finished: Path, tmp_path: Path
) -> None:
    other = tmp_path / "other.toml"
    other.write_text(airlab.resolve(DUMBBELL).read_text())
    d = tmp_path / "sw"
    shutil.copytree(finished, d)
    # a reused directory: refused before anything runs, in Python and on the command line
    theirs = r"holds runs of another scenario, dumbbell-cubic \(.*runs/dumbbell-cubic_"
    with pytest.raises(ValueError, match=rf"^out {re.escape(str(d))}: {theirs}"):
        airlab.Sweep.run(other, set={"duration": "1s"}, out=d, jobs=1)
    proc = cli("sweep", str(other), "--set", "duration=1s", "--out", str(d))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith(f"error: --out {d}: holds runs of another scenario")
    assert sorted(p.name for p in (d / "runs").iterdir()) == sorted(
        p.name for p in (finished / "runs").iterdir()
    )
    # the same scenario resumes there as before
    assert len(airlab.Sweep.run(DUMBBELL, set={"duration": "1s"}, seeds=2, out=d).records) == 2
    # a directory that has them anyway (written by hand or an older airlab) does not load
    sweep = airlab.Sweep.run(other, set={"duration": "1s"}, out=tmp_path / "b", jobs=1)
    run = sweep.out_dir / "runs" / f"{sweep.records[0]['run_id']}.json"
    foreign = Path(shutil.copy(run, d / "runs"))
    mixed = r"a run of other\.toml, where 2 runs of this sweep directory are of dumbbell-cubic"
    with pytest.raises(ResultFileError, match=rf"^{re.escape(str(foreign))}: {mixed}"):
        airlab.Sweep.load(d)
