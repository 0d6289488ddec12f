"""One job runner for sweeps and reproductions, on a local process pool or a Dask cluster.

A job is a scenario (a TOML path or a built-in name), a tuple of ``--set`` overrides (the text
of each value, read as ``--set`` reads it) and a seed. :func:`run_jobs` validates every job
before running any, skips each job whose record ``DIR/runs/<job id>.json`` was computed from
the same scenario text by the same compiled engine, runs the rest on an executor and writes
each record atomically as it arrives.

Workers never touch the output directory: they receive the scenario's text and return the
record, so a cluster needs no shared file system with the client, and a killed worker or
client loses only the runs in flight (a rerun does exactly the missing ones). A record computed
by a worker with another engine build is refused, since its numbers would come from another
model.

Executors: :class:`LocalPool` (the zero-setup default: ``processes`` worker processes, or the
calling process for one) and :class:`DaskExecutor` (any ``distributed.Client``);
:func:`executor` makes either from the command line's ``--jobs``, ``--scheduler`` and
``--cluster``.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import os
import re
import shutil
import signal
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from airlab import _checks, _io
from airlab import engine as _engine
from airlab.results import ResultFileError, read_json

Params = tuple[tuple[str, str], ...]
Record = dict[str, Any]

#: Extra time series a record may keep, by result table: ``{"flows": ("cwnd_pkts",),
#: "queues": ("backlog_pkts",), "wifi": ("mpdus_per_ppdu",)}``. Each column is stored per entity
#: (flow, queue, Wi-Fi link) in the record's ``series``: ``{table: {entity: {column: [...]}}}``.
SeriesSpec = Mapping[str, Sequence[str]]

#: The entity column of each result table a series can come from.
SERIES_KEYS = {"flows": "flow", "queues": "queue", "links": "link", "wifi": "link"}


@dataclass(frozen=True)
class Job:
    """One run: a scenario, its overrides and a seed."""

    scenario: str
    params: Params
    seed: int
    #: Labels for the analysis (experiment coordinates); not sent to the engine.
    tags: tuple[tuple[str, Any], ...] = ()

    @property
    def id(self) -> str:
        return job_id(self.scenario, self.params, self.seed)


def job_id(scenario: str, params: Params, seed: int) -> str:
    """A stable, filesystem-safe id: the scenario's name, a readable slug of the overrides,
    the seed and a hash of all three (the overrides' order does not matter)."""
    canon = json.dumps([Path(scenario).name, sorted(params), seed], separators=(",", ":"))
    digest = hashlib.sha1(canon.encode()).hexdigest()[:12]
    slug = "_".join(f"{k.split('.')[-1]}-{v}" for k, v in sorted(params))
    slug = re.sub(r"[^A-Za-z0-9.+-]+", "_", f"{Path(scenario).stem}_{slug}").strip("_")[:72]
    return f"{slug}_s{seed}-{digest}"


@dataclass(frozen=True)
class Keep:
    """What a record keeps beside the run's summary (and, for batch-ended runs, its batch
    rows, batch means and connection completion times, which every record keeps)."""

    #: Each flow's goodput series.
    goodput: bool = False
    #: The utilization series of these links.
    links: tuple[str, ...] = ()
    #: Further time series (see :data:`SeriesSpec`).
    series: SeriesSpec | None = None
    #: The latency and throughput samples of the measurement window (:mod:`airlab.samples`).
    samples: bool = False


# -- what runs on a worker --------------------------------------------------------------------


@functools.cache
def engine_digest() -> bytes:
    """A fingerprint of the compiled engine: a rebuilt engine invalidates finished runs."""
    from airlab import _core

    return hashlib.sha256(Path(_core.__file__).read_bytes()).digest()


def run_digest(scenario_bytes: bytes, engine: bytes) -> str:
    """What a finished run was computed from: the engine and the scenario file. A run is
    resumed only when both are unchanged."""
    return hashlib.sha256(engine + scenario_bytes).hexdigest()


def _series(res: Any, spec: SeriesSpec) -> dict[str, dict[str, dict[str, list[float]]]]:
    """The requested columns of the result's tables, per entity."""
    out: dict[str, dict[str, dict[str, list[float]]]] = {}
    for table, columns in spec.items():
        if table not in SERIES_KEYS:
            raise ValueError(f"unknown series table {table!r}, expected one of {list(SERIES_KEYS)}")
        df = getattr(res, table)
        out[table] = {}
        if df is None or len(df) == 0:
            continue
        # A congestion control's own variables ("cc.*") exist only for the flows that run it:
        # they are NaN for the others; any other missing column is a mistake.
        missing = [c for c in columns if c not in df.columns and not c.startswith("cc.")]
        if missing:
            raise KeyError(f"no column {', '.join(missing)} in the {table} series")
        for name, g in df.groupby(SERIES_KEYS[table], sort=False):
            out[table][str(name)] = {
                c: g[c].tolist() if c in g.columns else [math.nan] * len(g) for c in columns
            }
    return out


def _columns(df: Any) -> dict[str, list[Any]]:
    """A table as lists per column (entity names as strings), for a JSON record."""
    return {c: [str(v) for v in df[c]] if c == "flow" else df[c].tolist() for c in df.columns}


def execute(job: Job, text: str, name: str, keep: Keep) -> Record:
    """Run one job from its scenario text and return its record (runs on workers)."""
    t0 = time.perf_counter()
    res = _engine.run_text(text, seed=job.seed, set=job.params, name=name)
    record: Record = {
        "run_id": job.id,
        "scenario": job.scenario,
        "params": dict(job.params),
        "seed": job.seed,
        "engine": engine_digest().hex(),
        "wall_s": time.perf_counter() - t0,
        "summary": res.summary,
    }
    if keep.goodput:
        flows = res.flows.groupby("flow", sort=False)
        record["goodput_mbps"] = {n: g["goodput_mbps"].tolist() for n, g in flows}
        times = flows["time_s"].first()
        record["interval_s"] = float(times.iloc[0]) if len(times) else math.nan
    if keep.links:
        record["utilization"] = {
            n: g["utilization"].tolist()
            for n, g in res.links.groupby("link", sort=False)
            if n in keep.links
        }
    if keep.series:
        record["series"] = _series(res, keep.series)
    if keep.samples:
        from airlab import samples

        record["samples"] = samples.to_record(samples.of_result(res))
    # Runs cut into batches keep their batch rows, the means over them and their
    # connections' completion times.
    if res.summary.get("batches") and len(res.batches):
        from airlab.stats import batch_summary

        record["batch_means"] = batch_summary(res.batches, int(res.summary["batches"]["discard"]))
        record["batches"] = _columns(res.batches)
        record["fcts"] = _columns(res.fcts)
    return record


# -- executors --------------------------------------------------------------------------------

Task = tuple[Callable[..., Record], tuple[Any, ...]]
#: What an executor calls as each task finishes: with its record, or with its error.
OnDone = Callable[[Job, Record], None]
OnFail = Callable[[Job, BaseException], None]


class Executor(Protocol):
    """Runs tasks and reports each one's record or error as it finishes."""

    def run(
        self,
        tasks: Sequence[tuple[Job, Task]],
        on_done: OnDone,
        on_fail: OnFail,
    ) -> None: ...

    def describe(self) -> str: ...


def _exit_with_parent(parent: int) -> None:
    while True:
        time.sleep(0.5)
        if os.getppid() != parent:
            os._exit(1)


def _worker_init() -> None:
    # Ctrl-C goes to the whole process group; only the parent handles it.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # A worker whose parent was killed outright would otherwise wait for work forever.
    threading.Thread(target=_exit_with_parent, args=(os.getppid(),), daemon=True).start()


@dataclass
class LocalPool:
    """``processes`` worker processes on this machine (at most ``_checks.JOBS_PER_CPU`` per
    CPU, and never more than there are tasks); one runs in the calling process."""

    processes: int = 1

    def __post_init__(self) -> None:
        self.processes = _checks.jobs(self.processes, "jobs")

    def describe(self) -> str:
        return f"{self.processes} process{'es' if self.processes > 1 else ''}"

    def run(
        self,
        tasks: Sequence[tuple[Job, Task]],
        on_done: OnDone,
        on_fail: OnFail,
    ) -> None:
        if self.processes <= 1:
            for job, (fn, args) in tasks:
                try:
                    rec = fn(*args)
                except (KeyboardInterrupt, SystemExit):
                    raise
                except BaseException as e:  # pyo3's PanicException too
                    on_fail(job, e)
                else:
                    on_done(job, rec)
            return
        self._pool(tasks, on_done, on_fail)

    def _pool(
        self,
        tasks: Sequence[tuple[Job, Task]],
        on_done: OnDone,
        on_fail: OnFail,
    ) -> None:
        """Ctrl-C terminates the workers at once; a worker that dies fails only the runs in
        flight, and the pool is restarted."""

        if not tasks:
            return
        # With fork, a pool starts all its workers at the first task: no more than can be busy.
        workers = min(self.processes, len(tasks))

        def new_pool() -> ProcessPoolExecutor:
            return ProcessPoolExecutor(max_workers=workers, initializer=_worker_init)

        pool = new_pool()
        pending: dict[Future[Record], Job] = {}
        queue = list(reversed(tasks))
        try:
            while queue or pending:
                # a bounded number of submissions in flight, so Ctrl-C has little to cancel
                while queue and len(pending) < 2 * workers:
                    job, (fn, args) = queue.pop()
                    pending[pool.submit(fn, *args)] = job
                done, _ = wait(pending, timeout=1.0, return_when=FIRST_COMPLETED)
                broken = False
                for fut in done:
                    job = pending.pop(fut)
                    err = fut.exception()
                    if err is None:
                        on_done(job, fut.result())
                    else:
                        broken |= isinstance(err, BrokenProcessPool)
                        on_fail(job, err)
                if broken:
                    for job in pending.values():
                        on_fail(job, BrokenProcessPool("worker process died"))
                    pending.clear()
                    pool.shutdown(wait=False, cancel_futures=True)
                    pool = new_pool()
            pool.shutdown(wait=True)
        except BaseException:
            # Interrupted: workers may be mid-run inside the engine; terminate them.
            procs = list(getattr(pool, "_processes", {}).values())
            # The call queue's feeder thread may be blocked writing a task into the pipe of a
            # worker terminated below; joined at exit, it would hang the process after Ctrl-C.
            call_queue = getattr(pool, "_call_queue", None)
            if call_queue is not None:
                call_queue.cancel_join_thread()
            pool.shutdown(wait=False, cancel_futures=True)
            for p in procs:
                if p.is_alive():
                    p.terminate()
            for p in procs:
                p.join(timeout=5)
            raise


@dataclass
class DaskExecutor:
    """Runs every task on a Dask cluster through ``client``. The scheduler moves the tasks of
    a lost worker to the others (up to its ``allowed-failures``); a task that fails there is
    reported failed, and a rerun redoes it."""

    client: Any

    def describe(self) -> str:
        workers = len(self.client.scheduler_info().get("workers", {}))
        return f"the Dask cluster at {self.client.scheduler.address} ({workers} workers now)"

    def run(
        self,
        tasks: Sequence[tuple[Job, Task]],
        on_done: OnDone,
        on_fail: OnFail,
    ) -> None:
        from distributed import as_completed

        # A fresh key per submission: a job rerun after a failure must not find the failed
        # task's key on the scheduler.
        token = os.urandom(4).hex()
        futures = {
            self.client.submit(fn, *args, key=f"airlab-{job.id}-{token}", pure=False): job
            for job, (fn, args) in tasks
        }
        try:
            for fut in as_completed(list(futures)):
                job = futures[fut]
                if fut.status == "finished":
                    on_done(job, fut.result())
                else:
                    on_fail(job, fut.exception() or RuntimeError(f"task {fut.status}"))
                fut.release()
        except BaseException:
            self.client.cancel(list(futures))
            raise


#: The clusters ``--cluster`` can start: a local one, or batch jobs through dask-jobqueue.
CLUSTERS = ("local", "slurm", "pbs")


def _needs_distributed() -> None:
    try:
        import distributed  # noqa: F401
    except ImportError:
        raise RuntimeError(
            "running on Dask needs the `distributed` package: pip install 'airlab[cluster]'"
        ) from None


@contextmanager
def executor(
    jobs: int, scheduler: str | None = None, cluster: str | None = None, runs: int | None = None
) -> Iterator[Executor]:
    """The executor the command line asks for, closed on exit.

    - neither: a local process pool of ``jobs`` processes;
    - ``scheduler``: the Dask cluster whose scheduler is at that address (``tcp://host:8786``);
    - ``cluster="local"``: a Dask cluster of ``jobs`` single-threaded worker processes here;
    - ``cluster="slurm"`` or ``"pbs"``: ``jobs`` workers started as batch jobs by
      dask-jobqueue, configured by Dask's ``jobqueue`` settings (``~/.config/dask/jobqueue.yaml``:
      queue, cores, memory, walltime, the environment to activate).

    Processes on this machine (the pool, ``cluster="local"``) are at most
    ``_checks.JOBS_PER_CPU`` per CPU; a cluster starts no more workers than ``runs``, when given.

    Raises ``ValueError`` for contradicting options or too many local processes and
    ``RuntimeError`` when a cluster cannot be started or reached.
    """
    if scheduler and cluster:
        raise ValueError("give either --scheduler or --cluster, not both")
    if cluster is not None and cluster not in CLUSTERS:
        raise ValueError(f"--cluster {cluster!r}: expected one of {', '.join(CLUSTERS)}")
    if not scheduler and cluster in (None, "local"):
        jobs = _checks.jobs(jobs, "--jobs")
    if runs is not None:
        jobs = max(1, min(jobs, runs))  # a worker without a run would only wait
    if not scheduler and not cluster:
        yield LocalPool(jobs)
        return
    _needs_distributed()
    from distributed import Client, LocalCluster

    if scheduler:
        try:
            client = Client(scheduler, timeout="20s")
        except OSError as e:
            raise RuntimeError(f"--scheduler {scheduler}: cannot reach it ({e})") from None
        except (ValueError, TypeError) as e:  # distributed's parsing: no port, unknown protocol
            raise ValueError(
                f"--scheduler {scheduler}: {e}; expected a scheduler address such as "
                "tcp://host:8786"
            ) from None
        with client:
            yield DaskExecutor(client)
        return
    if cluster is None:  # not reached: without --scheduler, no --cluster is the local pool
        raise AssertionError("executor: neither --scheduler nor --cluster")
    if cluster == "local":
        made: Any = LocalCluster(
            n_workers=jobs, threads_per_worker=1, processes=True, dashboard_address=None
        )
    else:
        try:
            import dask_jobqueue
        except ImportError:
            raise RuntimeError(
                f"--cluster {cluster} needs dask-jobqueue: pip install 'airlab[cluster]'"
            ) from None
        kind, submit = {
            "slurm": (dask_jobqueue.SLURMCluster, "sbatch"),
            "pbs": (dask_jobqueue.PBSCluster, "qsub"),
        }[cluster]
        if shutil.which(submit) is None:
            # dask-jobqueue would only log the failed submissions and wait for workers forever
            raise RuntimeError(
                f"--cluster {cluster}: {submit} is not on PATH; run from a machine that "
                f"submits {cluster.upper()} jobs (a login node)"
            )
        try:
            made = kind()
        except ValueError as e:  # e.g. no cores or memory configured
            raise RuntimeError(
                f"--cluster {cluster}: {e} (set them in Dask's jobqueue configuration, "
                "docs/cluster.md)"
            ) from None
        made.scale(jobs)
    with made, Client(made) as client:
        yield DaskExecutor(client)


# -- the runner --------------------------------------------------------------------------------


class Reporter:
    """Progress callbacks; the CLI plugs a rich progress bar in here."""

    def start(self, total: int, skipped: int) -> None: ...
    def done(self, run_id: str, ok: bool, message: str = "") -> None: ...
    def stop(self) -> None: ...


@dataclass
class Outcome:
    #: Every finished record (resumed and new), in the order of the jobs given.
    records: dict[str, Record] = field(default_factory=dict)
    total: int = 0
    skipped: int = 0
    executed: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    interrupted: bool = False


def read_runs(runs_dir: Path) -> dict[str, Record]:
    """Finished runs by id. Temporary and unreadable files are ignored."""
    found: dict[str, Record] = {}
    if not runs_dir.is_dir():
        return found
    for p in sorted(runs_dir.glob("*.json")):
        if _io.is_temp(p) or p.name.startswith("."):
            continue
        try:
            rec = read_json(p)  # bounded, as every reader of a run record
        except ResultFileError:
            continue  # not a finished run: it will be redone
        if isinstance(rec, dict) and rec.get("run_id") == p.stem and "summary" in rec:
            found[p.stem] = rec
    return found


def remove_stale_temps(folder: Path) -> None:
    """Delete the temporary files of writes that never finished."""
    if folder.is_dir():
        for p in folder.iterdir():
            if _io.is_temp(p):
                p.unlink(missing_ok=True)


def has_series(rec: Mapping[str, Any], keep: Keep) -> bool:
    """Whether a stored record holds everything ``keep`` asks for (for resuming)."""
    if keep.goodput and "goodput_mbps" not in rec:
        return False
    if any(link not in rec.get("utilization", {}) for link in keep.links):
        return False
    if keep.samples and "samples" not in rec:
        return False
    if not keep.series:
        return True
    stored = rec.get("series")
    if not isinstance(stored, dict):
        return False
    for table, columns in keep.series.items():
        entities = stored.get(table)
        if not isinstance(entities, dict):
            return False
        if any(c not in cols for cols in entities.values() for c in columns):
            return False
    return True


def run_jobs(
    jobs: Sequence[Job],
    out_dir: str | os.PathLike[str],
    executor: Executor | None = None,
    keep: Keep = Keep(),
    reporter: Reporter | None = None,
    on_record: Callable[[Outcome], None] | None = None,
) -> Outcome:
    """Run every job not already finished in ``out_dir/runs``; return all records.

    Every job is validated with its overrides first, so a bad one fails fast with a
    ``ScenarioError`` before anything runs. A stored record is resumed when its scenario text
    and engine are unchanged and it keeps what ``keep`` asks for. ``on_record`` is called
    after each record is written (a sweep rebuilds its table there). On Ctrl-C the finished
    records are kept and ``outcome.interrupted`` is set.
    """
    reporter = reporter or Reporter()
    executor = executor or LocalPool()
    unique = list({j.id: j for j in jobs}.values())
    for job in {(j.scenario, j.params): j for j in unique}.values():
        _engine.validate(job.scenario, set=job.params)
    engine = engine_digest()
    # Each scenario's text and file name, read as a run reads them (engine._load).
    texts = {s: _engine._load(s) for s in {j.scenario for j in unique}}
    digests = {s: run_digest(text.encode(), engine) for s, (text, _) in texts.items()}

    out = Path(out_dir)
    runs_dir = out / "runs"
    runs_dir.mkdir(parents=True, exist_ok=True)
    remove_stale_temps(runs_dir)
    on_disk = read_runs(runs_dir)
    outcome = Outcome(total=len(unique))
    todo = []
    for job in unique:
        rec = on_disk.get(job.id)
        if (
            rec is not None
            and rec.get("run_digest") == digests[job.scenario]
            and has_series(rec, keep)
        ):
            rec["tags"] = dict(job.tags)
            outcome.records[job.id] = rec
        else:
            todo.append(job)
    outcome.skipped = len(unique) - len(todo)

    def done(job: Job, rec: Record) -> None:
        if rec.get("engine") != engine.hex():
            fail(job, RuntimeError("the worker runs another airlab build than this client"))
            return
        rec["run_digest"] = digests[job.scenario]
        rec["tags"] = dict(job.tags)
        _io.write_json(runs_dir / f"{job.id}.json", rec)
        outcome.records[job.id] = rec
        outcome.executed.append(job.id)
        reporter.done(job.id, True, f"{rec['wall_s']:.2f}s")
        if on_record:
            on_record(outcome)

    def fail(job: Job, err: BaseException) -> None:
        outcome.failed[job.id] = f"{type(err).__name__}: {err}"
        reporter.done(job.id, False, str(err))

    def task(job: Job) -> Task:
        text, name = texts[job.scenario]
        return execute, (job, text, name, keep)

    reporter.start(outcome.total, outcome.skipped)
    try:
        executor.run([(j, task(j)) for j in todo], done, fail)
    except KeyboardInterrupt:
        outcome.interrupted = True
        # A run whose record was written just as Ctrl-C came is finished too.
        by_id = {j.id: j for j in unique}
        for run_id, rec in read_runs(runs_dir).items():
            finished = by_id.get(run_id)
            if finished is None or run_id in outcome.records:
                continue
            if rec.get("run_digest") == digests[finished.scenario]:
                rec["tags"] = dict(finished.tags)
                outcome.records[run_id] = rec
    finally:
        reporter.stop()
        remove_stale_temps(runs_dir)
    # In job order, whichever order they finished in, so what is built from them is too.
    outcome.records = {j.id: outcome.records[j.id] for j in unique if j.id in outcome.records}
    return outcome
