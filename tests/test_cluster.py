"""Sweeps on a Dask cluster: the same rows as the local pool, and a lost worker loses nothing."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import distributed
import pandas as pd
import pytest

from airlab import jobs
from airlab import sweep as sw
from conftest import DUMBBELL

# 2 durations x 4 queue limits x 5 seeds = 40 runs of a second or two of simulated time.
GRID = [("duration", ["1s", "2s"]), ("link.bottleneck.qdisc.limit", ["5", "10", "20", "50"])]
SEEDS = [1, 2, 3, 4, 5]


def _model_columns(df: pd.DataFrame) -> pd.DataFrame:
    """The table without what measures the machine rather than the model (engine speed)."""
    keep = [c for c in df.columns if not c.startswith("engine.")]
    return df[keep].sort_values("run_id").reset_index(drop=True)


class _KillOneWorker(jobs.Reporter):
    """Kills one worker process of ``cluster`` outright once ``after`` runs have finished."""

    def __init__(self, cluster: distributed.LocalCluster, after: int) -> None:
        self.cluster, self.after, self.finished, self.killed = cluster, after, 0, None

    def done(self, run_id: str, ok: bool, message: str = "") -> None:
        self.finished += 1
        if self.finished == self.after and self.killed is None:
            nanny = next(iter(self.cluster.workers.values()))
            self.killed = nanny.process.pid
            os.kill(self.killed, signal.SIGKILL)


def test_a_sweep_on_a_local_dask_cluster_equals_the_local_pool(tmp_path: Path) -> None:
    local = sw.run_sweep(DUMBBELL, GRID, SEEDS, tmp_path / "pool", jobs=2)
    assert len(local.executed) == 40 and not local.failed

    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        killer = _KillOneWorker(cluster, after=8)
        dask = sw.run_sweep(
            DUMBBELL,
            GRID,
            SEEDS,
            tmp_path / "dask",
            reporter=killer,
            executor=jobs.DaskExecutor(client),
        )
        assert killer.killed is not None, "no worker was killed"
        # The scheduler hands the lost worker's runs to the other one; any that failed there
        # are done by a rerun, which runs nothing twice.
        again = sw.run_sweep(
            DUMBBELL, GRID, SEEDS, tmp_path / "dask", executor=jobs.DaskExecutor(client)
        )
    assert len(dask.executed) + len(dask.failed) == 40
    assert sorted(again.executed) == sorted(dask.failed)
    assert again.skipped == len(dask.executed) and not again.failed

    pool = pd.read_parquet(tmp_path / "pool" / "sweep.parquet")
    on_dask = pd.read_parquet(tmp_path / "dask" / "sweep.parquet")
    assert on_dask["run_id"].is_unique and len(on_dask) == 40
    pd.testing.assert_frame_equal(_model_columns(pool), _model_columns(on_dask))
    # The runs differ between seeds (host timing noise) and queue limits: equal tables are not
    # a degenerate case.
    assert pool["flow.cubic.owd_ms.mean"].nunique() == 40
    assert pool["flow.cubic.goodput_mbps"].nunique() > 4


def test_cluster_options_are_checked(tmp_path: Path) -> None:
    with (
        pytest.raises(ValueError, match="either --scheduler or --cluster"),
        jobs.executor(2, "tcp://localhost:1", "local"),
    ):
        pass
    with (
        pytest.raises(ValueError, match="expected one of local, slurm, pbs"),
        jobs.executor(2, None, "kubernetes"),
    ):
        pass


def test_an_unreachable_scheduler_is_a_clear_error(cli, tmp_path: Path) -> None:
    proc = cli(
        "sweep", DUMBBELL, "--set", "duration=1s", "--out", "sw", "--scheduler", "tcp://127.0.0.1:9"
    )
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith("error: --scheduler tcp://127.0.0.1:9: cannot reach it")
    assert "Traceback" not in proc.stderr


def test_jobs_with_a_scheduler_is_refused_not_ignored(cli, tmp_path: Path) -> None:
    for command in (("sweep", DUMBBELL, "--set", "duration=1s"), ("reproduce", "fairtt")):
        proc = cli(*command, "--out", "o", "--jobs", "3", "--scheduler", "tcp://127.0.0.1:9")
        assert proc.returncode == 2, proc.stderr
        assert proc.stderr.startswith("error: --jobs: not with --scheduler"), proc.stderr


def test_cluster_local_from_the_cli(cli, tmp_path: Path) -> None:
    """`--cluster local` drives the same runner: the sweep's rows, and a local rerun skips all."""
    args = ("sweep", DUMBBELL, "--set", "duration=1s,2s", "--out", "sw", "--jobs", "2")
    proc = cli(*args, "--cluster", "local")
    assert proc.returncode == 0, proc.stderr
    assert "running on the Dask cluster" in proc.stdout
    assert len(pd.read_parquet(tmp_path / "sw" / "sweep.parquet")) == 2
    proc = cli(*args)
    assert "0 runs executed, 2 skipped" in proc.stdout


def test_a_batch_cluster_needs_its_submit_command(cli, tmp_path: Path, monkeypatch) -> None:
    # Configured (cores, memory) but on a machine without SLURM: a clear error, not a hang.
    monkeypatch.setenv("DASK_JOBQUEUE__SLURM__CORES", "1")
    monkeypatch.setenv("DASK_JOBQUEUE__SLURM__MEMORY", "1GB")
    proc = cli("sweep", DUMBBELL, "--set", "duration=1s", "--out", "sw", "--cluster", "slurm")
    assert proc.returncode == 2, proc.stderr
    assert "--cluster slurm: sbatch is not on PATH" in proc.stderr
    assert not list((tmp_path / "sw").glob("runs/*.json"))
