"""Parameter sweeps: a grid of ``--set`` values times seeds, run by :mod:`airlab.jobs` on a
local process pool or a Dask cluster.

Layout of a sweep directory::

    DIR/runs/<run_id>.json   one file per finished run: params, seed, summary and the run's
                             latency and throughput samples (written atomically)
    DIR/sweep.parquet        one row per finished run (rebuilt atomically from runs/)

:class:`Sweep` is a finished (or partly finished) sweep in Python: one row per run, a tidy table
with one row per run and flow, and each run's samples for Flent-style plots.

A sweep is resumable: a run whose file exists for the same scenario text and engine is not
redone. Interrupting a sweep keeps every finished run; temporary files of unfinished writes
are ignored.
"""

from __future__ import annotations

import collections
import functools
import itertools
import math
import os
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from airlab import _checks, _io
from airlab.jobs import (
    Executor,
    Job,
    Keep,
    LocalPool,
    Outcome,
    Record,
    Reporter,
    run_jobs,
)
from airlab.results import ResultFileError, check_summary, read_json
from airlab.schema import provenance

# pandas (and the samples, which are pandas tables) are imported where a table is built:
# ``import airlab`` and a sweep's driver loop do not load them.
if TYPE_CHECKING:
    import pandas as pd

    from airlab.samples import Samples

__all__ = ["Reporter", "Sweep", "run_sweep"]

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
    cur: list[str] = []
    depth, quote = 0, ""
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


def parse_grid(items: Iterable[str]) -> list[tuple[str, Sequence[str]]]:
    """``["a=1,2", "b=x"]`` -> ``[("a", ["1", "2"]), ("b", ["x"])]``."""
    grid: list[tuple[str, list[str]]] = []
    for item in items:
        key, value = parse_set(item)
        values = split_values(value)
        if any(v == "" for v in values):
            raise ValueError(f"--set {item!r}: empty value in the list")
        grid.append((key, values))
    return check_grid(grid, "--set")


def check_grid(
    grid: Sequence[tuple[str, Sequence[str]]], name: str = "set"
) -> list[tuple[str, Sequence[str]]]:
    """``grid`` if each key comes once with at least one value and no value twice (a value
    given twice would be one run counted as two); ValueError naming ``name`` otherwise."""
    seen: set[str] = set()
    for key, values in grid:
        if not values:
            raise ValueError(f"{name} {key}: expected at least one value, got an empty list")
        twice = sorted(v for v, n in collections.Counter(values).items() if n > 1)
        if twice:
            raise ValueError(f"{name} {key}: {', '.join(map(str, twice))} given more than once")
        if key in seen:
            raise ValueError(f"{name} {key}: given more than once")
        seen.add(key)
    return list(grid)


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
        if not 0 <= seed <= _checks.MAX_SEED:
            raise ValueError(f"--set seed: expected integers from 0 to 2**64 - 1, got {v!r}")
        seeds.append(seed)
    return rest, seeds


def seed_list(seeds: int | Iterable[int], name: str = "seeds") -> list[int]:
    """The run seeds of a sweep: ``N`` for 1..N (1 <= N <= :data:`MAX_RUNS`), or a non-empty
    list of distinct seeds (integers from 0 to 2**64 - 1). TypeError or ValueError naming
    ``name`` otherwise, before any list is built (``10**9`` would not fit in memory)."""
    expected = (
        f"{name}: expected a number of seeds from 1 to {MAX_RUNS} (for seeds 1..N) or a "
        "non-empty list of seeds"
    )
    if _checks.is_int(seeds):
        if not 1 <= int(seeds) <= MAX_RUNS:
            raise ValueError(f"{expected}, got {seeds!r}")
        return list(range(1, int(seeds) + 1))
    if isinstance(seeds, (str, bytes, bool)) or not isinstance(seeds, Iterable):
        raise TypeError(f"{expected}, got {seeds!r}")
    # one more than allowed is enough to refuse a list that is too long
    listed = list(itertools.islice(seeds, MAX_RUNS + 1))
    if not listed or len(listed) > MAX_RUNS:
        count = "an empty list" if not listed else f"more than {MAX_RUNS}"
        raise ValueError(f"{expected}, got {count}")
    out = [_checks.seed(s, f"{name}: each seed") for s in listed]
    twice = sorted(s for s, n in collections.Counter(out).items() if n > 1)
    if twice:
        raise ValueError(f"{name}: {', '.join(map(str, twice))} given more than once")
    return out


def check_size(grid: Sequence[tuple[str, Sequence[str]]], seeds: int) -> int:
    """The number of runs; ValueError if it is more than :data:`MAX_RUNS`."""
    total = math.prod(len(v) for _, v in grid) * seeds
    if total > MAX_RUNS:
        raise ValueError(
            f"the sweep has {total} runs ({seeds} seeds per grid point), "
            f"more than the {MAX_RUNS} a sweep may have"
        )
    return total


def expand(
    grid: Sequence[tuple[str, Sequence[str]]], seeds: Sequence[int], scenario: str = ""
) -> list[Job]:
    """The cartesian product of the grid, times the seeds (seed varies fastest)."""
    keys = [k for k, _ in grid]
    jobs: list[Job] = []
    for combo in itertools.product(*(vals for _, vals in grid)):
        params = tuple(zip(keys, combo, strict=True))
        jobs.extend(Job(scenario, params, s) for s in seeds)
    return jobs


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
        elif key not in ("seed", "provenance"):
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


def build_table(records: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """One row per run: run_id, the params (numbers where they parse), seed, metrics."""
    import pandas as pd

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
    _io.write_parquet(path, build_table(list(records)), provenance())
    return path


# -- the runs of a sweep directory -----------------------------------------------------------


def _record_files(runs_dir: Path) -> list[Path]:
    """The run records in ``runs_dir``, in run id order (temporary files left out)."""
    if not runs_dir.is_dir():
        return []
    return sorted(
        p for p in runs_dir.glob("*.json") if not (_io.is_temp(p) or p.name.startswith("."))
    )


def _scenario_of(scenario: str | os.PathLike[str]) -> str:
    """The scenario a run record names, as a run id knows it (its file or built-in name)."""
    return Path(scenario).name


def _record(path: Path) -> Record:
    """A run record, checked for what :class:`Sweep` reads of it; ResultFileError naming the
    file, the key and what was expected otherwise."""
    rec = read_json(path)
    if not isinstance(rec, dict):
        kind = type(rec).__name__
        raise ResultFileError(path, f"expected a JSON object, a run record, got {kind}")
    if rec.get("run_id") != path.stem:
        raise ResultFileError(
            path, f"run_id: expected the file's name {path.stem!r}, got {rec.get('run_id')!r:.60}"
        )
    if not isinstance(rec.get("scenario", ""), str):
        raise ResultFileError(path, "scenario: expected the scenario's file or built-in name")
    params = rec.get("params", {})
    if not isinstance(params, dict) or not all(isinstance(v, str) for v in params.values()):
        raise ResultFileError(path, "params: expected an object of keys and their --set text")
    seed = rec.get("seed")
    if not (_checks.is_int(seed) and 0 <= int(seed) <= _checks.MAX_SEED):
        raise ResultFileError(
            path, f"seed: expected an integer from 0 to 2**64 - 1, got {seed!r:.60}"
        )
    check_summary(rec.get("summary"), path, "summary")
    return rec


def _one_scenario(records: Sequence[Record], runs_dir: Path) -> None:
    """Refuse the runs of several scenarios in one sweep directory (a reused ``out``): the
    sweep's scenario is that of most runs; ResultFileError naming the first run of another."""
    by_scenario = collections.Counter(
        _scenario_of(r["scenario"]) for r in records if r.get("scenario")
    )
    if len(by_scenario) < 2:
        return
    ours, count = by_scenario.most_common(1)[0]
    other = next(r for r in records if r.get("scenario") and _scenario_of(r["scenario"]) != ours)
    raise ResultFileError(
        runs_dir / f"{other['run_id']}.json",
        f"a run of {_scenario_of(other['scenario'])}, where {count} runs of this sweep "
        f"directory are of {ours}; expected the runs of one scenario (the directory was "
        "reused for another sweep: move one scenario's runs to a directory of their own)",
    )


def check_out_dir(
    out_dir: Path,
    scenario: str | os.PathLike[str],
    jobs: Sequence[Job],
    name: str = "out",
) -> None:
    """Refuse to run a sweep of ``scenario`` into a directory holding another scenario's runs
    (a reused output directory): ValueError naming ``name``, the other scenario and its file.
    Files of the sweep's own ``jobs`` are this scenario's (a run id hashes its scenario) and
    are not read; unreadable ones are left to the run, which redoes them."""
    ours = {j.id for j in jobs}
    for p in _record_files(out_dir / "runs"):
        if p.stem in ours:
            continue
        try:
            rec = read_json(p)
        except ResultFileError:
            continue
        theirs = rec.get("scenario") if isinstance(rec, dict) else None
        if isinstance(theirs, str) and theirs and _scenario_of(theirs) != _scenario_of(scenario):
            raise ValueError(
                f"{name} {out_dir}: holds runs of another scenario, {_scenario_of(theirs)} "
                f"({p}); expected a new directory or one of {_scenario_of(scenario)}'s sweep, "
                "so that the sweep's runs stay apart from those of another"
            )


# -- execution ---------------------------------------------------------------------------------

#: What ``executor=`` and ``reporter=`` take besides None: the methods each must have.
_EXECUTOR = (
    ("run", "describe"),
    "None (a local pool of `jobs` processes), airlab.jobs.LocalPool(processes) or "
    "airlab.jobs.DaskExecutor(client)",
)
_REPORTER = (("start", "done", "stop"), "None or an airlab.sweep.Reporter")


def _check_object(value: object, name: str, spec: tuple[tuple[str, ...], str]) -> None:
    """TypeError naming ``name`` and what it takes unless ``value`` is None or has the
    methods of ``spec``."""
    methods, expected = spec
    if value is not None and not all(callable(getattr(value, m, None)) for m in methods):
        raise TypeError(f"{name}: expected {expected}, got {value!r:.60}")


@dataclass
class SweepOutcome:
    total: int
    skipped: int
    executed: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    interrupted: bool = False
    table: Path | None = None


def run_sweep(
    scenario: str | os.PathLike[str],
    grid: Sequence[tuple[str, Sequence[str]]],
    seeds: int | Iterable[int],
    out_dir: str | os.PathLike[str],
    jobs: int = 1,
    reporter: Reporter | None = None,
    table_every_s: float = 10.0,
    executor: Executor | None = None,
) -> SweepOutcome:
    """Run (or resume) a sweep on ``executor`` (default: a local pool of ``jobs``
    processes): ``grid`` is ``[(key, [value text, ...]), ...]``, each text read as ``--set``
    reads it, and ``seeds`` is ``N`` for 1..N or a list (see :func:`seed_list`).

    The arguments are checked first (``TypeError`` or ``ValueError`` naming ``set``, ``seeds``,
    ``jobs``, ``executor``, ``reporter`` or ``out``, which may not hold another scenario's
    runs), then every parameter combination is validated before any runs: ``ScenarioError``
    if one is invalid. On KeyboardInterrupt the table is rebuilt from the finished runs and
    ``outcome.interrupted`` is set.
    """
    _check_object(executor, "executor", _EXECUTOR)
    _check_object(reporter, "reporter", _REPORTER)
    run_seeds = seed_list(seeds)
    check_grid(grid, "set")
    if any(key == "seed" for key, _ in grid):
        # as an override it would be replaced by each run's own seed: every point the same runs
        raise ValueError(
            "set seed: the run seeds are not a swept key; give them as seeds=[...] "
            "(on the command line: --set seed=5,6)"
        )
    check_size(grid, len(run_seeds))
    out = _checks.output_dir(out_dir, "out")
    pool = executor or LocalPool(jobs)
    name = os.fspath(scenario)
    todo = expand(grid, run_seeds, name)
    check_out_dir(out, name, todo)
    last_table = time.monotonic()

    def every_record(progress: Outcome) -> None:
        nonlocal last_table
        if time.monotonic() - last_table >= table_every_s:
            write_table(out, progress.records.values())
            last_table = time.monotonic()

    done = run_jobs(
        todo,
        out,
        pool,
        keep=Keep(samples=True),
        reporter=reporter,
        on_record=every_record,
    )
    table = write_table(out, done.records.values())
    return SweepOutcome(
        total=done.total,
        skipped=done.skipped,
        executed=done.executed,
        failed=done.failed,
        interrupted=done.interrupted,
        table=table,
    )


# -- a sweep in Python ---------------------------------------------------------------------------


@dataclass
class Sweep:
    """A sweep directory's finished runs.

    ``runs`` has one row per run (as ``sweep.parquet``), ``flows`` one row per run and flow
    (params, seed, the flow's name, app, cc and every number of its summary: ``goodput_mbps``,
    ``rtt_ms.p95``, ``srtt_ms.p50``, ``retransmits``...), and :meth:`samples` a run's latency and
    throughput samples.
    """

    out_dir: Path
    #: The run records, in run id order.
    records: list[Record]

    @classmethod
    def load(cls, out_dir: str | os.PathLike[str]) -> Sweep:
        """The finished runs in a sweep directory; ``FileNotFoundError`` if it has none, and
        :class:`~airlab.results.ResultFileError` (a ``ValueError``) naming the file, the key
        and what was expected for a run record that is not one (checked as ``Result.load``
        checks a summary) or the runs of another scenario than the others'."""
        d = Path(out_dir)
        files = _record_files(d / "runs")
        if not files:
            raise FileNotFoundError(f"{d}: no finished sweep runs (no runs/*.json)")
        records = [_record(p) for p in files]
        _one_scenario(records, d / "runs")
        return cls(d, records)

    @classmethod
    def run(
        cls,
        scenario: str | os.PathLike[str],
        set: Mapping[str, object] | Iterable[tuple[str, object]],
        out: str | os.PathLike[str],
        seeds: int | Iterable[int] = 1,
        jobs: int | None = None,
        executor: Executor | None = None,
        reporter: Reporter | None = None,
    ) -> Sweep:
        """Run (or resume) a sweep of ``scenario`` over the grid ``set`` (``{key: [values]}`` or
        ``(key, [values])`` pairs; a value that is not a list or tuple is a one-point axis) with
        ``seeds`` (``N`` for 1..N, or a list) into ``out``, on ``jobs`` local processes (default:
        one per CPU; at most ``_checks.JOBS_PER_CPU`` per CPU) or ``executor``, and return it.
        Values follow :func:`airlab.format_value`, as in :func:`airlab.run`.

        Raises ``TypeError`` or ``ValueError`` naming the argument (``set``, ``seeds``, ``jobs``,
        ``executor``, ``reporter``, ``out``: one that holds another scenario's runs too) before
        anything runs, ``ScenarioError`` for an invalid combination or a scenario that cannot
        be read, and ``RuntimeError`` naming the runs that failed."""
        from airlab.engine import format_value

        grid = []
        for key, values in _checks.pairs(set, "set"):
            many = values if isinstance(values, (list, tuple)) else [values]
            grid.append((key, [format_value(v, key) for v in many]))
        done = run_sweep(
            scenario,
            grid,
            seeds,
            out,
            jobs=(os.cpu_count() or 1) if jobs is None else jobs,
            reporter=reporter,
            executor=executor,
        )
        if done.interrupted:
            raise KeyboardInterrupt
        if done.failed:
            raise RuntimeError(
                "; ".join(f"run {rid}: {msg}" for rid, msg in sorted(done.failed.items()))
            )
        return cls.load(out)

    def __repr__(self) -> str:
        return f"<Sweep {str(self.out_dir)!r}: {len(self.records)} runs over {self.params}>"

    def _repr_html_(self) -> str:
        import html

        head = f"<p><b>Sweep</b> <code>{html.escape(str(self.out_dir))}</code>: "
        head += f"{len(self.records)} runs over {html.escape(', '.join(self.params) or '-')}</p>"
        return head + self.points().to_html(index=False)

    @property
    def params(self) -> list[str]:
        """The swept keys, in the order the sweep gave them."""
        keys: list[str] = []
        for rec in self.records:
            keys += [k for k in rec.get("params", {}) if k not in keys]
        return keys

    @functools.cached_property
    def runs(self) -> pd.DataFrame:
        """One row per run: run_id, params, seed and every summary number (as sweep.parquet)."""
        return build_table(self.records)

    @property
    def flows(self) -> pd.DataFrame:
        """One row per run and flow: run_id, params, seed, flow, app, cc, and the flow's
        summary numbers (nested ones as ``rtt_ms.p95``)."""
        import pandas as pd

        runs = self.runs.set_index("run_id")
        rows = []
        for rec in self.records:
            point = runs.loc[rec["run_id"], [*self.params, "seed"]].to_dict()
            for f in rec["summary"].get("flows", []):
                row: dict[str, Any] = {
                    "run_id": rec["run_id"],
                    **point,
                    "flow": f.get("name"),
                    "app": f.get("app"),
                    "cc": f.get("cc"),
                }
                _flatten_into(row, "", {k: v for k, v in f.items() if k != "name"})
                rows.append(row)
        return pd.DataFrame(rows)

    def points(self) -> pd.DataFrame:
        """The grid points: their params, a label and how many runs (seeds) each has."""
        import pandas as pd

        runs = self.runs
        if not self.params:
            return pd.DataFrame({"label": ["all runs"], "runs": [len(runs)]})
        table = runs.groupby(self.params, sort=True, dropna=False).size().reset_index(name="runs")
        table.insert(0, "label", [self.label_of(r) for r in table.to_dict("records")])
        return table

    def label_of(self, params: Mapping[str, Any]) -> str:
        """A grid point's label: ``key=value`` (the key's last name part) of each swept key that
        takes more than one value in the sweep (of every swept key if none does)."""
        runs = self.runs
        varied = [k for k in self.params if runs[k].nunique(dropna=False) > 1] or self.params
        return ", ".join(f"{k.split('.')[-1]}={params[k]}" for k in varied) or "all runs"

    def samples(self, run_id: str) -> Samples:
        """A run's latency and throughput samples; ``KeyError`` for an unknown run, and
        ``ValueError`` for a run recorded before sweeps kept samples."""
        rec = next((r for r in self.records if r["run_id"] == run_id), None)
        if rec is None:
            raise KeyError(f"{self.out_dir}: no run {run_id!r}")
        if "samples" not in rec:
            raise ValueError(
                f"{self.out_dir}: run {run_id} has no samples (recorded by an older airlab); "
                "run the sweep again to add them"
            )
        from airlab.samples import from_record

        return from_record(rec["samples"])
