"""Running a reproduction's jobs: one scenario run per job, on a process pool, resumable.

A job is a built-in scenario, a tuple of ``--set`` overrides and a seed. Each finished job is
written atomically to ``DIR/runs/<job_id>.json`` with what the analysis needs (the summary and the
per-flow and bottleneck time series, and any further series the paper module asks for); a rerun
skips jobs whose file exists for the same scenario text and the same compiled engine, so an
interrupted reproduction resumes where it stopped and a changed model reruns everything.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from scipy import stats

from airlab import _io
from airlab import sweep as _sweep
from airlab.stats import mean_ci

Params = tuple[tuple[str, str], ...]

#: Extra time series a paper module may ask for, by result table: ``{"flows": ("cwnd_pkts",),
#: "queues": ("backlog_pkts",), "wifi": ("mpdus_per_ppdu",)}``. Each column is stored per entity
#: (flow, queue, Wi-Fi link) in the record's ``series``: ``{table: {entity: {column: [...]}}}``.
SeriesSpec = Mapping[str, Sequence[str]]

#: The entity column of each result table a series can come from.
SERIES_KEYS = {"flows": "flow", "queues": "queue", "links": "link", "wifi": "link"}


@dataclass(frozen=True)
class Job:
    scenario: str
    params: Params
    seed: int
    #: Labels for the analysis (experiment coordinates); not sent to the engine.
    tags: tuple[tuple[str, Any], ...] = ()

    @property
    def id(self) -> str:
        key = json.dumps([self.scenario, sorted(self.params), self.seed])
        return (
            f"{Path(self.scenario).name}-s{self.seed}-{hashlib.sha1(key.encode()).hexdigest()[:12]}"
        )


@dataclass
class Outcome:
    records: dict[str, dict[str, Any]] = field(default_factory=dict)
    executed: int = 0
    skipped: int = 0
    failed: dict[str, str] = field(default_factory=dict)


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


def has_series(rec: Mapping[str, Any], spec: SeriesSpec | None) -> bool:
    """Whether a stored record holds every requested series column (for resuming)."""
    if not spec:
        return True
    stored = rec.get("series")
    if not isinstance(stored, dict):
        return False
    for table, columns in spec.items():
        entities = stored.get(table)
        if not isinstance(entities, dict):
            return False
        if any(c not in cols for cols in entities.values() for c in columns):
            return False
    return True


def execute(
    job: Job,
    runs_dir: str,
    digest: str,
    series_links: Sequence[str],
    series: SeriesSpec | None = None,
) -> dict[str, Any]:
    """Run one job and write its record atomically (runs in worker processes too)."""
    import airlab

    res = airlab.run(job.scenario, seed=job.seed, set=_sweep.as_overrides(job.params))
    flows = {name: g["goodput_mbps"].tolist() for name, g in res.flows.groupby("flow", sort=False)}
    times = res.flows.groupby("flow", sort=False)["time_s"].first()
    links = {
        name: g["utilization"].tolist()
        for name, g in res.links.groupby("link", sort=False)
        if name in series_links
    }
    record = {
        "run_id": job.id,
        "scenario": job.scenario,
        "run_digest": digest,
        "params": dict(job.params),
        "seed": job.seed,
        "tags": dict(job.tags),
        "interval_s": float(times.iloc[0]) if len(times) else math.nan,
        "goodput_mbps": flows,
        "utilization": links,
        "summary": res.summary,
    }
    if series:
        record["series"] = _series(res, series)
    # Runs cut into batches keep their batch rows, and their connections' completion times.
    if len(res.batches):
        record["batches"] = _columns(res.batches)
        record["fcts"] = _columns(res.fcts)
    _io.write_json(Path(runs_dir) / f"{job.id}.json", record)
    return record


def run_jobs(
    jobs: Sequence[Job],
    out_dir: Path,
    n_jobs: int = 1,
    reporter: _sweep.Reporter | None = None,
    series_links: Sequence[str] = (),
    series: SeriesSpec | None = None,
) -> Outcome:
    """Run every job not already finished in ``out_dir/runs``; return all records.

    ``series`` names further time series to keep (see :data:`SeriesSpec`); a finished run
    stored without one of them is run again. Every scenario is validated with its overrides
    before anything runs, so a bad job fails fast with a ``ScenarioError``.
    """
    import airlab

    reporter = reporter or _sweep.Reporter()
    unique = list({j.id: j for j in jobs}.values())
    for job in {(j.scenario, j.params): j for j in unique}.values():
        airlab.validate(job.scenario, set=_sweep.as_overrides(job.params))
    engine = _sweep.engine_digest()
    digests = {
        s: _sweep.run_digest(airlab.resolve(s).read_bytes(), engine)
        for s in {j.scenario for j in unique}
    }
    runs_dir = out_dir / "runs"
    runs_dir.mkdir(parents=True, exist_ok=True)
    _sweep.remove_stale_temps(runs_dir)
    on_disk = _sweep.read_runs(runs_dir)
    outcome = Outcome()
    todo = []
    for job in unique:
        rec = on_disk.get(job.id)
        if (
            rec is not None
            and rec.get("run_digest") == digests[job.scenario]
            and has_series(rec, series)
        ):
            rec["tags"] = dict(job.tags)
            outcome.records[job.id] = rec
        else:
            todo.append(job)
    outcome.skipped = len(unique) - len(todo)

    def done(job: Job, rec: dict[str, Any]) -> None:
        rec["tags"] = dict(job.tags)
        outcome.records[job.id] = rec
        outcome.executed += 1
        reporter.done(job.id, True)

    def fail(job: Job, err: BaseException) -> None:
        outcome.failed[job.id] = f"{type(err).__name__}: {err}"
        reporter.done(job.id, False, str(err))

    def submit(pool: Any, job: Job) -> Any:
        return pool.submit(
            execute, job, str(runs_dir), digests[job.scenario], tuple(series_links), series
        )

    reporter.start(len(unique), outcome.skipped)
    try:
        if n_jobs <= 1:
            for job in todo:
                try:
                    rec = execute(
                        job, str(runs_dir), digests[job.scenario], tuple(series_links), series
                    )
                except (KeyboardInterrupt, SystemExit):
                    raise
                except BaseException as e:  # pyo3 panics too
                    fail(job, e)
                else:
                    done(job, rec)
        else:
            _sweep.run_pool(todo, submit, n_jobs, done, fail, lambda: None)
    finally:
        reporter.stop()
        _sweep.remove_stale_temps(runs_dir)
    # In job order, whichever order they finished in, so what is built from them is too.
    outcome.records = {j.id: outcome.records[j.id] for j in unique if j.id in outcome.records}
    return outcome


def seed_means(df: Any, by: Sequence[str], metrics: Sequence[str]) -> Any:
    """One row per group of the DataFrame ``df`` by ``by``: the number of seeds, and the mean
    and 95 % CI half-width (``<metric>_ci``) of every metric over them (NaN ignored)."""
    import pandas as pd

    rows = []
    for key, g in df.groupby(list(by), sort=True, dropna=False):
        row = dict(zip(by, key if isinstance(key, tuple) else (key,), strict=True))
        row["seeds"] = len(g)
        for m in metrics:
            row[m], row[f"{m}_ci"] = mean_ci(pd.to_numeric(g[m], errors="coerce").tolist())
        rows.append(row)
    return pd.DataFrame(rows)


def jain(values: Sequence[float]) -> float:
    """Jain's fairness index (sum x)^2 / (n sum x^2)."""
    x = np.asarray(values, dtype=float)
    sq = float((x * x).sum())
    return 1.0 if x.size == 0 or sq == 0 else float(x.sum() ** 2 / (x.size * sq))


# -- paper targets ----------------------------------------------------------------------------

#: What a target's status may be: a number is ``within`` or ``outside`` its tolerance; a
#: qualitative claim ``holds`` or ``fails``.
STATUSES = ("within", "outside", "holds", "fails")


@dataclass
class Target:
    """One number (or claim) of the paper beside ours."""

    experiment: str
    metric: str
    paper: float | str
    airlab: float | None
    tolerance: str
    status: str
    variant: str = ""
    note: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {
            "experiment": self.experiment,
            "variant": self.variant,
            "metric": self.metric,
            "paper": self.paper,
            "airlab": self.airlab,
            "tolerance": self.tolerance,
            "status": self.status,
            "note": self.note,
        }


def point(
    experiment: str,
    metric: str,
    paper: float,
    ours: float,
    variant: str = "",
    absolute: float = 0.0,
    factor: float = 0.0,
    note: str = "",
) -> Target:
    """A point number: within ±20 % relative; or ±``absolute`` when given (e.g. 0.05 for
    Jain); or, for a large ratio, within a ``factor`` either way (a log-scale tolerance: a
    ratio of 150 and one of 75 are as far apart as 2 and 1)."""
    if factor:
        ok = paper / factor <= ours <= paper * factor
        tol = f"factor {factor:g}"
    elif absolute:
        ok = abs(ours - paper) <= absolute
        tol = f"±{absolute:g}"
    else:
        ok = abs(ours - paper) <= 0.2 * abs(paper)
        tol = "±20 %"
    status = "within" if ok and not math.isnan(ours) else "outside"
    return Target(experiment, metric, paper, float(ours), tol, status, variant, note)


def span(
    experiment: str,
    metric: str,
    lo: float,
    hi: float,
    ours: float,
    variant: str = "",
    note: str = "",
    read_off_plot: bool = True,
) -> Target:
    """A range the paper states ("6-8 Mbit/s", "below 2", "at least 4"); an open side is
    ``-inf`` or ``inf``. Read off a plot, it holds when ``ours`` lies in it widened by 20 % of
    each bound outward, ``[0.8 lo, 1.2 hi]`` for positive bounds (the acceptance rule of
    reproduction-targets.md X.1); a threshold of an acceptance rule (``read_off_plot=False``)
    holds exactly."""
    if math.isinf(hi):
        paper = f">= {lo:g}"
    elif lo == 0 or math.isinf(lo):
        paper = f"<= {hi:g}"
    else:
        paper = f"{lo:g} to {hi:g}"
    widen = 0.2 if read_off_plot else 0.0
    low = lo - widen * abs(lo) if math.isfinite(lo) else lo
    high = hi + widen * abs(hi) if math.isfinite(hi) else hi
    ok = low <= ours <= high
    return Target(experiment, metric, paper, float(ours), "range ±20 %" if widen else "range",
                  "within" if ok else "outside", variant, note)  # fmt: skip


def direction(
    experiment: str, claim: str, holds: bool, margin: float, variant: str = "", note: str = ""
) -> Target:
    """A qualitative claim of the paper: it ``holds`` or ``fails``; ``margin`` is how far our
    numbers are on the claim's side (positive when it holds), in the units the claim names."""
    status = "holds" if holds else "fails"
    return Target(experiment, claim, "holds", float(margin), "direction", status, variant, note)


def ratio_of_means(num: Sequence[float], den: Sequence[float]) -> tuple[float, float]:
    """The ratio of two means over seeds, with the half-width of its 95 % interval by the
    delta method (NaN for one seed). The mean of per-seed ratios would read a 2:1 split one
    way and 1:2 the other as 1.25; this reads it as 1, and the spread shows in the interval."""
    x = np.asarray(num, dtype=float)
    y = np.asarray(den, dtype=float)
    r = float(x.mean() / y.mean()) if y.mean() > 0 else math.inf
    if x.size < 2 or not math.isfinite(r):
        return r, math.nan
    n = x.size
    vx, vy = x.var(ddof=1), y.var(ddof=1)
    cov = float(np.cov(x, y, ddof=1)[0, 1])
    rel = vx / x.mean() ** 2 + vy / y.mean() ** 2 - 2 * cov / (x.mean() * y.mean())
    se = abs(r) * math.sqrt(max(rel, 0.0) / n)
    return r, float(stats.t.ppf(0.975, n - 1) * se)


SMOKE_NOTE = (
    "a --quick plan is a smoke run (fewer seeds, shorter runs): it checks that every "
    "experiment runs; its statuses are not the reproduction's"
)


def write_targets(out_dir: Path, paper: str, quick: bool, targets: Sequence[Target]) -> Path:
    """``targets.json``: which plan produced it, the count per status, and every target."""
    for t in targets:
        if t.status not in STATUSES:
            raise ValueError(f"target {t.experiment} {t.metric!r}: status {t.status!r}")
    keys = [(t.experiment, t.variant, t.metric) for t in targets]
    twice = {k for k in keys if keys.count(k) > 1}
    if twice:
        raise ValueError(f"targets given more than once: {sorted(twice)}")
    path = out_dir / "targets.json"
    doc = {
        "paper": paper,
        "plan": "quick" if quick else "full",
        "note": SMOKE_NOTE if quick else "the full plan: the reproduction's result",
        "counts": {s: sum(t.status == s for t in targets) for s in STATUSES},
        "targets": [t.as_dict() for t in targets],
    }
    _io.write_json(path, doc)
    return path


def write_runs_table(out_dir: Path, runs: Any) -> Path:
    """``runs.parquet``: one row per run (a DataFrame), written atomically."""
    path = out_dir / "runs.parquet"
    _io.write_with(path, lambda p: runs.to_parquet(p, index=False))
    return path


def records_by(records: Mapping[str, dict[str, Any]], **tags: Any) -> list[dict[str, Any]]:
    """Records whose tags match every given tag."""
    return [r for r in records.values() if all(r["tags"].get(k) == v for k, v in tags.items())]


def row_where(frame: Any, **where: Any) -> Any:
    """The one row of the DataFrame ``frame`` whose columns equal ``where``.

    Raises ``LookupError`` when no row or several rows match: a reproduction that reads a
    number from an aggregate must read exactly one.
    """
    sel = frame
    for key, value in where.items():
        sel = sel[sel[key] == value]
    if len(sel) != 1:
        raise LookupError(f"expected one row for {where}, found {len(sel)}")
    return sel.iloc[0]
