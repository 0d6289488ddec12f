"""Parameter sweeps: a grid of ``--set`` values times seeds, run on a local process pool.

Layout of a sweep directory::

    DIR/runs/<run_id>.json   one file per finished run: params, seed, summary (written atomically)
    DIR/sweep.parquet        one row per finished run (rebuilt atomically from runs/)

A sweep is resumable: a run whose file exists is not redone. Interrupting a sweep keeps every
finished run; temporary files of unfinished writes are ignored.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import os
import re
import signal
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import pandas as pd

from airlab import _io

Params = tuple[tuple[str, str], ...]
T = TypeVar("T")


@dataclass(frozen=True)
class RunSpec:
    """One point of the sweep: the overrides and the seed."""

    params: Params
    seed: int

    @property
    def run_id(self) -> str:
        return run_id(self.params, self.seed)


def run_id(params: Params, seed: int) -> str:
    """A stable, filesystem-safe id: a readable slug plus a hash of (params, seed)."""
    canon = json.dumps({"params": sorted(params), "seed": seed}, separators=(",", ":"))
    digest = hashlib.sha1(canon.encode()).hexdigest()[:10]
    slug = "_".join(f"{k.split('.')[-1]}-{v}" for k, v in sorted(params))
    slug = re.sub(r"[^A-Za-z0-9.+-]+", "_", slug).strip("_")[:60]
    return f"{slug + '_' if slug else ''}s{seed}-{digest}"


#: The most runs one sweep may have (grid points times seeds).
MAX_RUNS = 100_000


def parse_set(item: str) -> tuple[str, str]:
    """``"key=value"`` -> ``(key, value)``; raises ValueError on a malformed item."""
    try:
        item.encode("utf-8")
    except UnicodeEncodeError:
        shown = item.encode("utf-8", "backslashreplace").decode("utf-8")
        raise ValueError(f"--set {shown!r}: not valid UTF-8 text") from None
    key, sep, value = item.partition("=")
    key = key.strip()
    if not sep or not key:
        raise ValueError(f"--set {item!r}: expected key=value")
    return key, value.strip()


def split_values(text: str) -> list[str]:
    """Split ``v1,v2,...`` on the commas outside quotes, brackets and braces.

    ``'20,50'`` -> ``['20', '50']``; ``'{ kind = "bfifo", limit = "30KB" },{ kind = "pfifo" }'``
    -> two tables.
    """
    values: list[str] = []
    depth, quote, cur = 0, "", []
    for ch in text:
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        elif ch == "," and depth == 0:
            values.append("".join(cur).strip())
            cur = []
            continue
        cur.append(ch)
    values.append("".join(cur).strip())
    return values


def parse_grid(items: Iterable[str]) -> list[tuple[str, list[str]]]:
    """``["a=1,2", "b=x"]`` -> ``[("a", ["1", "2"]), ("b", ["x"])]``."""
    grid: list[tuple[str, list[str]]] = []
    seen: set[str] = set()
    for item in items:
        key, value = parse_set(item)
        values = split_values(value)
        if any(v == "" for v in values):
            raise ValueError(f"--set {item!r}: empty value in the list")
        twice = sorted({v for v in values if values.count(v) > 1})
        if twice:
            raise ValueError(f"--set {key}: {', '.join(twice)} given more than once")
        if key in seen:
            raise ValueError(f"--set {key}: given more than once")
        seen.add(key)
        grid.append((key, values))
    return grid


def take_seeds(
    grid: Sequence[tuple[str, Sequence[str]]],
) -> tuple[list[tuple[str, Sequence[str]]], list[int] | None]:
    """Split ``seed=v1,v2,...`` off a grid: the run seeds are a dimension of their own.

    Returns the other keys and the seeds (``None`` without a ``seed`` key); ValueError if a
    seed is not an integer from 0 to 2**64 - 1.
    """
    rest = [(k, v) for k, v in grid if k != "seed"]
    values = next((v for k, v in grid if k == "seed"), None)
    if values is None:
        return rest, None
    seeds = []
    for v in values:
        try:
            seed = int(v)
        except ValueError:
            seed = -1
        if not 0 <= seed < 2**64:
            raise ValueError(f"--set seed: expected integers from 0 to 2**64 - 1, got {v!r}")
        seeds.append(seed)
    return rest, seeds


def check_size(grid: Sequence[tuple[str, Sequence[str]]], seeds: int) -> int:
    """The number of runs; ValueError if it is more than :data:`MAX_RUNS`."""
    total = math.prod(len(v) for _, v in grid) * seeds
    if total > MAX_RUNS:
        raise ValueError(
            f"the sweep has {total} runs ({seeds} seeds per grid point), "
            f"more than the {MAX_RUNS} a sweep may have"
        )
    return total


def expand(grid: Sequence[tuple[str, Sequence[str]]], seeds: Sequence[int]) -> list[RunSpec]:
    """The cartesian product of the grid, times the seeds (seed varies fastest)."""
    keys = [k for k, _ in grid]
    specs = []
    for combo in itertools.product(*(vals for _, vals in grid)):
        params = tuple(zip(keys, combo, strict=True))
        specs.extend(RunSpec(params, s) for s in seeds)
    return specs


# -- results table -----------------------------------------------------------------------------


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _flatten_into(out: dict[str, float], prefix: str, obj: Any) -> None:
    if _is_number(obj):
        out[prefix] = float(obj) if isinstance(obj, float) else obj
    elif isinstance(obj, Mapping):
        for k, v in obj.items():
            _flatten_into(out, f"{prefix}.{k}" if prefix else str(k), v)


def flatten_summary(summary: Mapping[str, Any]) -> dict[str, float]:
    """Numeric summary metrics as flat columns.

    ``flow.<name>.goodput_mbps``, ``flow.<name>.rtt_ms.p95``, ``queue.<name>.drops``,
    ``link.<name>.utilization``, ``wifi.<net>.busy_share``, ``wifi.<net:from->to>.airtime_share``,
    ``jain_index``, ``duration_s``, ``engine.events_per_s``...
    """
    out: dict[str, float] = {}
    for key, value in summary.items():
        if key == "wifi":
            for net in value or []:
                _flatten_into(out, f"wifi.{net.get('name')}.busy_share", net.get("busy_share"))
                for lk in net.get("links", []):
                    fields = {k: v for k, v in lk.items() if k != "name"}
                    _flatten_into(out, f"wifi.{lk.get('name')}", fields)
        elif key in ("flows", "queues", "links"):
            kind = key[:-1]
            for item in value or []:
                name = item.get("name")
                fields = {k: v for k, v in item.items() if k != "name"}
                _flatten_into(out, f"{kind}.{name}", fields)
        elif key != "seed":
            _flatten_into(out, key, value)
    return out


def _maybe_number(v: str) -> int | float | str:
    try:
        return int(v)
    except ValueError:
        pass
    try:
        f = float(v)
    except ValueError:
        return v
    return f if math.isfinite(f) else v


def read_runs(runs_dir: Path) -> dict[str, dict[str, Any]]:
    """Finished runs by run_id. Temporary and unreadable files are ignored."""
    found: dict[str, dict[str, Any]] = {}
    if not runs_dir.is_dir():
        return found
    for p in sorted(runs_dir.glob("*.json")):
        if _io.is_temp(p) or p.name.startswith("."):
            continue
        try:
            rec = json.loads(p.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue  # not a finished run: it will be redone
        if isinstance(rec, dict) and rec.get("run_id") == p.stem and "summary" in rec:
            found[p.stem] = rec
    return found


def build_table(records: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """One row per run: run_id, the params (numbers where they parse), seed, metrics."""
    rows = []
    for rec in records:
        row: dict[str, Any] = {"run_id": rec["run_id"]}
        row.update(rec.get("params", {}))
        row["seed"] = rec["seed"]
        row.update(flatten_summary(rec["summary"]))
        _flatten_into(row, "batch", rec.get("batch_means", {}))
        rows.append(row)
    df = pd.DataFrame(rows)
    if df.empty:
        return pd.DataFrame({"run_id": pd.Series(dtype="string"), "seed": pd.Series(dtype="int64")})
    # parameter columns: numeric when every value parses as a number, else text
    param_cols = {k for rec in records for k in rec.get("params", {})}
    for col in ["run_id", *sorted(param_cols)]:
        conv = [_maybe_number(v) if isinstance(v, str) else v for v in df[col]]
        if col != "run_id" and all(_is_number(v) or v is None for v in conv):
            df[col] = pd.to_numeric(pd.Series(conv, index=df.index))
        else:
            df[col] = df[col].astype("string")
    return df.sort_values("run_id", kind="stable").reset_index(drop=True)


def write_table(out_dir: Path, records: Iterable[Mapping[str, Any]]) -> Path:
    path = out_dir / "sweep.parquet"
    df = build_table(list(records))
    _io.write_with(path, lambda p: df.to_parquet(p, index=False))
    return path


# -- execution ---------------------------------------------------------------------------------


def engine_digest() -> bytes:
    """A fingerprint of the compiled engine: a rebuilt engine invalidates finished runs."""
    from airlab import _core

    return hashlib.sha256(Path(_core.__file__).read_bytes()).digest()


def run_digest(scenario_bytes: bytes, engine: bytes | None = None) -> str:
    """What a finished run was computed from: the engine and the scenario file. A run is
    resumed only when both are unchanged."""
    return hashlib.sha256((engine or engine_digest()) + scenario_bytes).hexdigest()


def as_overrides(params: Iterable[tuple[str, str]]) -> list[tuple[str, Any]]:
    """``key=value`` text pairs as overrides the engine reads the way ``--set`` does."""
    import airlab

    return [(k, airlab.TomlText(v)) for k, v in params]


def remove_stale_temps(folder: Path) -> None:
    """Delete the temporary files of writes that never finished (a killed worker's)."""
    if folder.is_dir():
        for p in folder.iterdir():
            if _io.is_temp(p):
                p.unlink(missing_ok=True)


def execute_run(scenario: str, spec: RunSpec, runs_dir: str, digest: str) -> dict[str, Any]:
    """Run one point and write its record atomically; returns the record (also in workers)."""
    import airlab

    t0 = time.perf_counter()
    res = airlab.run(scenario, seed=spec.seed, set=as_overrides(spec.params))
    record = {
        "run_id": spec.run_id,
        "params": dict(spec.params),
        "seed": spec.seed,
        "run_digest": digest,
        "wall_s": time.perf_counter() - t0,
        "summary": res.summary,
    }
    if res.summary.get("batches") and len(res.batches):
        from airlab.stats import batch_summary

        record["batch_means"] = batch_summary(res.batches, int(res.summary["batches"]["discard"]))
    _io.write_json(Path(runs_dir) / f"{spec.run_id}.json", record)
    return record


def _exit_with_parent(parent: int) -> None:
    while True:
        time.sleep(0.5)
        if os.getppid() != parent:
            os._exit(1)


def worker_init() -> None:
    # Ctrl-C goes to the whole process group; only the parent handles it.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # A worker whose parent was killed outright would otherwise wait for work forever.
    threading.Thread(target=_exit_with_parent, args=(os.getppid(),), daemon=True).start()


@dataclass
class SweepOutcome:
    total: int
    skipped: int
    executed: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    interrupted: bool = False
    table: Path | None = None


class Reporter:
    """Progress callbacks; the CLI plugs a rich progress bar in here."""

    def start(self, total: int, skipped: int) -> None: ...
    def done(self, run_id: str, ok: bool, message: str = "") -> None: ...
    def stop(self) -> None: ...


def run_sweep(
    scenario: str | os.PathLike[str],
    grid: Sequence[tuple[str, Sequence[str]]],
    seeds: Sequence[int],
    out_dir: str | os.PathLike[str],
    jobs: int = 1,
    reporter: Reporter | None = None,
    table_every_s: float = 10.0,
) -> SweepOutcome:
    """Run (or resume) a sweep. Validates every parameter combination before running any.

    Raises ``ScenarioError`` if a combination is invalid. On KeyboardInterrupt the table is
    rebuilt from the finished runs and ``outcome.interrupted`` is set.
    """
    import airlab

    reporter = reporter or Reporter()
    path = airlab.resolve(scenario)
    check_size(grid, len(seeds))
    digest = run_digest(path.read_bytes())
    for combo in expand(grid, [0]):
        airlab.validate(path, set=as_overrides(combo.params))

    out = Path(out_dir)
    runs_dir = out / "runs"
    runs_dir.mkdir(parents=True, exist_ok=True)
    remove_stale_temps(runs_dir)
    specs = expand(grid, seeds)
    wanted = {s.run_id for s in specs}

    def on_disk() -> dict[str, dict[str, Any]]:
        return {
            k: r
            for k, r in read_runs(runs_dir).items()
            if k in wanted and r.get("run_digest") == digest
        }

    finished = on_disk()
    todo = [s for s in specs if s.run_id not in finished]
    outcome = SweepOutcome(total=len(specs), skipped=len(specs) - len(todo))

    def on_done(spec: RunSpec, rec: dict[str, Any]) -> None:
        finished[spec.run_id] = rec
        outcome.executed.append(spec.run_id)
        reporter.done(spec.run_id, True, f"{rec['wall_s']:.2f}s")

    def on_fail(spec: RunSpec, err: BaseException) -> None:
        outcome.failed[spec.run_id] = f"{type(err).__name__}: {err}"
        reporter.done(spec.run_id, False, str(err))

    last_table = time.monotonic()

    def maybe_table(force: bool = False) -> None:
        nonlocal last_table
        if force:
            # the files are the truth: a worker may have finished a run that this process
            # never heard of (interrupted while the result was in flight)
            finished.update(on_disk())
        if force or time.monotonic() - last_table >= table_every_s:
            outcome.table = write_table(out, finished.values())
            last_table = time.monotonic()

    reporter.start(outcome.total, outcome.skipped)
    try:
        if jobs <= 1:
            for spec in todo:
                try:
                    rec = execute_run(str(path), spec, str(runs_dir), digest)
                except (KeyboardInterrupt, SystemExit):
                    raise
                except BaseException as e:  # includes pyo3's PanicException
                    on_fail(spec, e)
                else:
                    on_done(spec, rec)
                maybe_table()
        else:
            run_pool(
                todo,
                lambda pool, spec: pool.submit(execute_run, str(path), spec, str(runs_dir), digest),
                jobs,
                on_done,
                on_fail,
                maybe_table,
            )
    except KeyboardInterrupt:
        outcome.interrupted = True
    finally:
        reporter.stop()
        remove_stale_temps(runs_dir)
        maybe_table(force=True)
    return outcome


def run_pool(
    todo: Sequence[T],
    submit: Callable[[ProcessPoolExecutor, T], Future[dict[str, Any]]],
    jobs: int,
    on_done: Callable[[T, dict[str, Any]], None],
    on_fail: Callable[[T, BaseException], None],
    tick: Callable[[], None],
) -> None:
    """Run ``todo`` on a pool of ``jobs`` worker processes; ``submit(pool, item)`` starts one.

    Ctrl-C terminates the workers at once; a worker that dies fails only the items in flight.
    """

    def new_pool() -> ProcessPoolExecutor:
        return ProcessPoolExecutor(max_workers=jobs, initializer=worker_init)

    pool = new_pool()
    pending: dict[Future[dict[str, Any]], T] = {}
    queue = list(reversed(todo))
    try:
        while queue or pending:
            # keep a bounded number of submissions in flight so Ctrl-C has little to cancel
            while queue and len(pending) < 2 * jobs:
                item = queue.pop()
                pending[submit(pool, item)] = item
            done, _ = wait(pending, timeout=1.0, return_when=FIRST_COMPLETED)
            broken = False
            for fut in done:
                item = pending.pop(fut)
                err = fut.exception()
                if err is None:
                    on_done(item, fut.result())
                else:
                    broken |= isinstance(err, BrokenProcessPool)
                    on_fail(item, err)
            if broken:
                # a worker died (crash, out of memory): the runs in flight are lost; they are
                # reported as failed (a rerun of the sweep redoes them) and the pool restarted
                for item in pending.values():
                    on_fail(item, BrokenProcessPool("worker process died"))
                pending.clear()
                pool.shutdown(wait=False, cancel_futures=True)
                pool = new_pool()
            tick()
        pool.shutdown(wait=True)
    except BaseException:
        # Interrupted: stop at once. Workers may be mid-run inside the engine; they are
        # terminated, and their unfinished atomic writes leave at most a temp file behind.
        procs = list(getattr(pool, "_processes", {}).values())
        pool.shutdown(wait=False, cancel_futures=True)
        for p in procs:
            if p.is_alive():
                p.terminate()
        for p in procs:
            p.join(timeout=5)
        raise
