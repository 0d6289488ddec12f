"""What the reproductions share: their jobs' keep rule, seed means, Jain's index, and the
paper targets (``targets.json``).

A reproduction's runs go through :mod:`airlab.jobs`, the runner sweeps use too (resumable, on a
local pool or a Dask cluster); each record keeps the per-flow goodput series, the utilization
of the paper module's ``SERIES_LINKS`` and its ``SERIES``.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
from scipy import stats

from airlab import _io
from airlab.jobs import Job, Keep, SeriesSpec
from airlab.reproduce import explain
from airlab.reproduce.explain import Explanation
from airlab.schema import provenance
from airlab.stats import mean_ci

if TYPE_CHECKING:
    # paper_targets builds its rows with this module's constructors.
    from airlab.reproduce.paper_targets import PaperTargets

__all__ = ["Job", "Paper", "keep_for"]


class Paper(Protocol):
    """What a paper's reproduction module provides (``airlab reproduce NAME`` runs it): its
    title, its runs, the time series those keep, the paper's numbers, and the analysis and page
    of their records.
    The modules in :data:`airlab.reproduce.PAPERS` are checked against it by mypy."""

    @property
    def TITLE(self) -> str: ...

    @property
    def SERIES_LINKS(self) -> tuple[str, ...]:
        """The links whose utilization series its records keep."""

    @property
    def SERIES(self) -> SeriesSpec | None:
        """Further time series its records keep (None: none)."""

    @property
    def TARGETS(self) -> PaperTargets:
        """The paper's numbers and claims its analysis compares with
        (``airlab/reproduce/targets/<paper>.toml``)."""

    def jobs(self, quick: bool = False) -> list[Job]:
        """Every run of the reproduction (``quick``: the smoke-test subset)."""
        ...

    def analyze(
        self, records: Mapping[str, dict[str, Any]], out_dir: Path, quick: bool
    ) -> dict[str, Any]:
        """Tables, figures and ``targets.json`` from the runs' records."""
        ...

    def report(self, analysis: Mapping[str, Any], out_dir: Path, quick: bool) -> str:
        """The HTML page of an analysis."""
        ...


def keep_for(paper: Paper) -> Keep:
    """What a paper module's records keep: goodput series, its links' utilization and its
    further series."""
    return Keep(goodput=True, links=tuple(paper.SERIES_LINKS), series=paper.SERIES)


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


@dataclass(frozen=True)
class Plan:
    """Seeded runs of one length (paper 000's and 002's): ``duration_s`` each, their statistics
    after the first ``warmup_s``."""

    seeds: tuple[int, ...]
    duration_s: int
    warmup_s: int


def jain(values: Sequence[float]) -> float:
    """Jain's fairness index (sum x)^2 / (n sum x^2)."""
    x = np.asarray(values, dtype=float)
    sq = float((x * x).sum())
    return 1.0 if x.size == 0 or sq == 0 else float(x.sum() ** 2 / (x.size * sq))


# -- paper targets ----------------------------------------------------------------------------

#: What a target's status may be: a number is ``within`` or ``outside`` its tolerance; a
#: qualitative claim ``holds`` or ``fails``.
STATUSES = ("within", "outside", "holds", "fails")


#: Why a row cannot tell a faithful model from a wrong one. Such a row stays in the table and
#: in the full count, but not in the informative score.
UNINFORMATIVE = {
    "configuration": "echoes the configuration (a cap, a rate or a split the scenario sets)",
    "insensitive": "any model that keeps the bottleneck busy passes it",
    "follows": "holds or fails with another row",
    "calibration": "a calibration input: the setting was chosen to meet it",
    "derived": "a value derived from the model's own inputs, not a paper result",
    "duplicate": "the same measurement as another row",
}


@dataclass(frozen=True)
class Reading:
    """One way of reading something the paper leaves open (its topology, a path, a layer),
    declared in the paper's plan. Every reading runs; rows of the ``primary`` one are judged,
    the others reported beside them. ``added`` is the date the reading entered the plan."""

    ambiguity: str
    name: str
    choice: str
    primary: bool
    why: str
    added: str

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def check_readings(readings: Sequence[Reading]) -> None:
    """Names unique, one primary reading per ambiguity, a reason for every reading."""
    names = [r.name for r in readings]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise ValueError(f"readings declared twice: {twice}")
    for amb in dict.fromkeys(r.ambiguity for r in readings):
        primary = [r.name for r in readings if r.ambiguity == amb and r.primary]
        if len(primary) != 1:
            raise ValueError(f"ambiguity {amb!r}: expected one primary reading, got {primary}")
    for r in readings:
        if not r.why or not r.choice:
            raise ValueError(f"reading {r.name!r}: say what it takes the text to mean and why")


@dataclass
class Target:
    """One number (or claim) of the paper beside ours.

    ``uninformative`` is empty for a row that can fail on its own; otherwise a key of
    :data:`UNINFORMATIVE`, with ``why`` saying what makes this row so."""

    experiment: str
    metric: str
    paper: float | str
    airlab: float | None
    tolerance: str
    status: str
    variant: str = ""
    note: str = ""
    uninformative: str = ""
    why: str = ""
    explanation: Explanation | None = None
    #: The declared readings the row depends on, one per ambiguity (none: empty).
    reading: tuple[str, ...] = ()

    @property
    def informative(self) -> bool:
        return not self.uninformative

    @property
    def hit(self) -> bool:
        return self.status in ("within", "holds")

    def not_informative(self, reason: str, why: str) -> Target:
        """This row, marked as one that cannot fail on its own (``reason`` a key of
        :data:`UNINFORMATIVE`, ``why`` the row's own case)."""
        if reason not in UNINFORMATIVE:
            raise ValueError(
                f"target {self.experiment} {self.metric!r}: reason {reason!r}, "
                f"expected one of: {', '.join(UNINFORMATIVE)}"
            )
        if not why:
            raise ValueError(f"target {self.experiment} {self.metric!r}: say why it cannot fail")
        self.uninformative, self.why = reason, why
        return self

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
            "informative": self.informative,
            "not_informative": (
                {"reason": self.uninformative, "why": self.why} if self.uninformative else None
            ),
            "explanation": self.explanation.as_dict() if self.explanation else None,
            "reading": list(self.reading),
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


def status_counts(targets: Sequence[Target]) -> dict[str, int]:
    return {s: sum(t.status == s for t in targets) for s in STATUSES}


def judged(targets: Sequence[Target], readings: Sequence[Reading] = ()) -> list[Target]:
    """The rows the reproduction is judged on: informative, and of primary readings only."""
    primary = {r.name for r in readings if r.primary}
    return [t for t in targets if t.informative and set(t.reading) <= primary]


def score(targets: Sequence[Target], readings: Sequence[Reading] = ()) -> str:
    """The reproduction's score: hits (within, holds) among the judged rows, then among the
    informative rows of every reading, and among all rows."""
    inf = [t for t in targets if t.informative]
    judge = judged(targets, readings)
    head = f"{sum(t.hit for t in judge)} of {len(judge)} judged rows hit"
    if len(judge) < len(inf):
        head += (
            f" (the primary readings; with the other readings {sum(t.hit for t in inf)} of "
            f"{len(inf)} informative rows)"
        )
    n = len(targets) - len(inf)
    return (
        f"{head}; {n} more {'row cannot' if n == 1 else 'rows cannot'} fail on their own; "
        f"all rows: {sum(t.hit for t in targets)} of {len(targets)}"
    )


def write_targets(
    out_dir: Path,
    paper: str,
    quick: bool,
    targets: Sequence[Target],
    readings: Sequence[Reading] = (),
) -> Path:
    """``targets.json``: which plan produced it, its declared readings, the count per status
    (over all rows, the informative ones and the judged ones), the score, and every target."""
    check_readings(readings)
    names = {r.name for r in readings}
    for t in targets:
        if t.status not in STATUSES:
            raise ValueError(f"target {t.experiment} {t.metric!r}: status {t.status!r}")
        unknown = [n for n in t.reading if n not in names]
        if unknown:
            raise ValueError(
                f"target {t.experiment} {t.metric!r}: undeclared reading {unknown[0]!r}"
            )
        of = [next(r.ambiguity for r in readings if r.name == n) for n in t.reading]
        if len(set(of)) != len(of):
            raise ValueError(f"target {t.experiment} {t.metric!r}: two readings of one ambiguity")
    keys = [(t.experiment, t.variant, t.metric) for t in targets]
    twice = {k for k in keys if keys.count(k) > 1}
    if twice:
        raise ValueError(f"targets given more than once: {sorted(twice)}")
    explanations = explain.load(paper)
    for t, key in zip(targets, keys, strict=True):
        t.explanation = explanations.get(key)
    stray = sorted(set(explanations) - set(keys))
    if stray and not quick:
        # A smoke plan lacks sweep points; a full one must have every explained row. The run
        # is kept either way; the test suite fails on a recorded run with a stray entry.
        print(f"warning: airlab/reproduce/explanations/{paper}.toml explains rows this run "
              f"does not have: {stray}", file=sys.stderr)  # fmt: skip
    judge = {id(t) for t in judged(targets, readings)}
    path = out_dir / "targets.json"
    doc = {
        "provenance": provenance(),
        "paper": paper,
        "plan": "quick" if quick else "full",
        "note": SMOKE_NOTE if quick else "the full plan: the reproduction's result",
        "readings": [r.as_dict() for r in readings],
        "counts": status_counts(targets),
        "informative_counts": status_counts([t for t in targets if t.informative]),
        "judged_counts": status_counts(judged(targets, readings)),
        "score": score(targets, readings),
        "targets": [{**t.as_dict(), "judged": id(t) in judge} for t in targets],
    }
    _io.write_json(path, doc)
    return path


def write_runs_table(out_dir: Path, runs: Any) -> Path:
    """``runs.parquet``: one row per run (a DataFrame), written atomically."""
    path = out_dir / "runs.parquet"
    _io.write_parquet(path, runs, provenance())
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
