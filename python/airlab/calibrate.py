"""Calibration: where a scenario's unknown parameters must lie for chosen metrics to meet their
targets.

A paper often leaves a parameter unstated (a loss rate, a base RTT, a receive buffer, a PHY).
Calibration declares each such unknown with the range its platform makes plausible, samples the
box of unknowns with a Latin hypercube (scipy's ``qmc``), runs every sample on the job runner
(local pool or Dask, resumable like a sweep) and keeps the samples where every goal holds. Each
further round samples again inside the box those samples span, widened by one sample spacing.
It reports:

- the region: per unknown, the interval the holding samples span (``None`` when none holds),
  and whether it touches the declared range's edge (then the range may be too narrow, or the
  model needs a value the platform does not make plausible);
- the best sample: the smallest largest goal error, in tolerances;
- sensitivity: per goal and unknown, over the first round's samples (the whole declared box),
  Spearman's rank correlation and the metric's change across the declared range from a
  least-squares plane over all unknowns, in tolerances.

A calibrated value is a reading of its own: reported beside the declared one, never in its
place. ``airlab calibrate`` is the command line; :func:`calibrate` the Python entry point and
:func:`search` the search itself, over any function of the unknowns (how the tests recover a
known hidden parameter).
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from airlab import _io

_NUM = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
#: Duration units and their nanoseconds.
_NS_PER = {"ns": 1, "us": 1_000, "ms": 1_000_000, "s": 1_000_000_000}


@dataclass(frozen=True)
class Unknown:
    """A scenario key the paper leaves open, and the range its platform makes plausible."""

    key: str
    low: float
    high: float
    #: Appended to a value's text for ``--set`` ("Mbit", "ms"); empty for a plain number.
    unit: str = ""
    #: Sample the logarithm (for values spanning decades: loss rates, buffers).
    log: bool = False
    #: A whole number (a packet count): each sample is rounded before it runs.
    integer: bool = False
    #: Further keys that take the same value (one receive buffer on every flow).
    also: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not (math.isfinite(self.low) and math.isfinite(self.high) and self.low < self.high):
            raise ValueError(
                f"unknown {self.key!r}: expected low < high, got {self.low}..{self.high}"
            )
        if self.log and self.low <= 0:
            raise ValueError(f"unknown {self.key!r}: a log scale needs low > 0, got {self.low}")

    def text(self, x: float) -> str:
        if self.unit in _NS_PER:
            # Durations run in whole nanoseconds, as scenarios require.
            return f"{round(x * _NS_PER[self.unit])}ns"
        return f"{round(x)}{self.unit}" if self.integer else f"{x:.6g}{self.unit}"

    def set_keys(self) -> tuple[str, ...]:
        return (self.key, *self.also)

    def value(self, x: float) -> float:
        """The value a sample at ``x`` runs with."""
        return float(round(x)) if self.integer else x

    def _to(self, x: np.ndarray) -> np.ndarray:
        return np.log10(x) if self.log else x

    def _from(self, u: np.ndarray) -> np.ndarray:
        return np.power(10.0, u) if self.log else u


@dataclass(frozen=True)
class Goal:
    """A metric (a ``summary.json`` key, flattened as in sweeps: ``flow.f1.goodput_mbps``, or
    the ratio of two: ``flow.a.goodput_mbps/flow.b.goodput_mbps``, as papers report shares) and
    the value it should have, within ``tol`` (absolute)."""

    metric: str
    value: float
    tol: float

    def __post_init__(self) -> None:
        if not (math.isfinite(self.value) and self.tol > 0):
            raise ValueError(f"goal {self.metric!r}: expected a finite value and a tolerance > 0")

    def error(self, v: float) -> float:
        """How far ``v`` is from the value, in tolerances (NaN counts as infinitely far)."""
        return abs(v - self.value) / self.tol if math.isfinite(v) else math.inf

    def parts(self) -> list[str]:
        """The summary keys the metric reads."""
        return self.metric.split("/", 1)

    def of(self, metrics: Mapping[str, float]) -> float:
        """The metric's value in a run's (flattened) summary; NaN for a ratio over zero."""
        vals = [metrics[k] for k in self.parts()]
        if len(vals) == 1:
            return vals[0]
        return vals[0] / vals[1] if vals[1] else math.nan


def parse_unknown(text: str) -> Unknown:
    """``KEY=LOW..HIGH`` with an optional unit on both bounds and ``,log`` for a log scale:
    ``link.bottleneck.rate=5Mbit..20Mbit``, ``link.bottleneck.loss=1e-5..1e-2,log``."""
    m = re.fullmatch(
        rf"([^=\s]+)=({_NUM})([A-Za-z%]*)\.\.({_NUM})([A-Za-z%]*)(,log)?", text.strip()
    )
    if not m:
        raise ValueError(f"--unknown {text!r}: expected KEY=LOW..HIGH (a unit allowed, ',log' "
                         "for a log scale), e.g. link.bottleneck.rate=5Mbit..20Mbit")  # fmt: skip
    key, low, u1, high, u2, log = m.groups()
    if u1 and u2 and u1 != u2:
        raise ValueError(f"--unknown {text!r}: the bounds have different units ({u1}, {u2})")
    return Unknown(key, float(low), float(high), u1 or u2, bool(log))


def parse_goal(text: str) -> Goal:
    """``METRIC=VALUE±TOL`` (``+-`` works too), the tolerance absolute or in % of the value:
    ``flow.f1.goodput_mbps=9.5±0.2``, ``flow.f1.rtt_ms.p50=40+-10%``."""
    m = re.fullmatch(rf"([^=\s]+)=({_NUM})(?:±|\+-)({_NUM})(%?)", text.strip())
    if not m:
        raise ValueError(f"--goal {text!r}: expected METRIC=VALUE±TOL (or +-; TOL may end in %), "
                         "e.g. flow.f1.goodput_mbps=9.5±0.2")  # fmt: skip
    metric, value, tol, pct = m.groups()
    v = float(value)
    return Goal(metric, v, abs(v) * float(tol) / 100 if pct else float(tol))


@dataclass
class Calibration:
    """What a search found (see the module's docstring)."""

    unknowns: list[Unknown]
    goals: list[Goal]
    #: One row per sample: its round, each unknown's value, each goal's metric, ``holds``.
    samples: Any
    region: dict[str, tuple[float, float] | None]
    at_edge: list[str]
    best: dict[str, float]
    sensitivity: dict[str, dict[str, dict[str, float]]] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {
            "unknowns": [asdict(u) for u in self.unknowns],
            "goals": [asdict(g) for g in self.goals],
            "samples": len(self.samples),
            "holding": int(self.samples["holds"].sum()),
            "region": {k: list(v) if v else None for k, v in self.region.items()},
            "at_edge": self.at_edge,
            "best": self.best,
            "sensitivity": self.sensitivity,
        }

    def write(self, out_dir: Path, spec: Spec | None = None) -> None:
        """``calibration.json`` (the result, after the declaration it answers when there is
        one) and ``samples.parquet`` (every sample)."""
        from airlab.schema import provenance

        head = {"provenance": provenance(), **({"spec": spec.as_dict()} if spec else {})}
        _io.write_json(out_dir / "calibration.json", {**head, **self.as_dict()})
        _io.write_parquet(out_dir / "samples.parquet", self.samples, provenance())
        self.plot(out_dir / "calibration.png")

    def plot(self, path: Path) -> Path:
        """Every sample's goal metrics against each unknown (a row per goal, a column per
        unknown): the goal's band shaded, the samples where every goal holds filled."""
        from airlab.plotstyle import Figure, tight_layout

        nu, ng = len(self.unknowns), len(self.goals)
        fig = Figure(figsize=(4.2 * nu, 3.0 * ng))
        axes = fig.subplots(ng, nu, squeeze=False)
        holds = self.samples["holds"].to_numpy(dtype=bool)
        for i, g in enumerate(self.goals):
            y = self.samples[g.metric].to_numpy(dtype=float)
            for j, u in enumerate(self.unknowns):
                ax = axes[i, j]
                x = self.samples[u.key].to_numpy(dtype=float)
                ax.axhspan(g.value - g.tol, g.value + g.tol, color="tab:green", alpha=0.15,
                           label="goal ± tolerance")  # fmt: skip
                ax.scatter(x[~holds], y[~holds], s=14, facecolors="none", edgecolors="tab:gray",
                           label="sample")  # fmt: skip
                ax.scatter(x[holds], y[holds], s=16, color="tab:green", label="every goal holds")
                if u.log:
                    ax.set_xscale("log")
                ax.set_xlabel(f"{u.key}" + (f" ({u.unit})" if u.unit else ""), fontsize=8)
                ax.set_ylabel(g.metric, fontsize=8)
                ax.grid(alpha=0.3)
        axes[0, 0].legend(fontsize=7)
        tight_layout(fig)
        fig.savefig(path, dpi=110)
        return path


@dataclass(frozen=True)
class Spec:
    """A calibration declared in a file: the scenario, its fixed overrides, each unknown with
    where its plausible range comes from, each goal with the paper row it stands for, and the
    budget. A paper's own live in ``airlab/reproduce/calibrations/<paper>.toml``."""

    scenario: str
    unknowns: list[Unknown]
    goals: list[Goal]
    fixed: dict[str, str] = field(default_factory=dict)
    samples: int = 16
    rounds: int = 2
    seeds: int = 1
    #: What the paper leaves open and which of its numbers that moves.
    question: str = ""
    #: Per unknown key: where its range comes from (the paper's platform).
    plausible: dict[str, str] = field(default_factory=dict)
    #: Per goal metric: the paper's row (or number) it stands for.
    rows: dict[str, str] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        """The declaration but its unknowns and goals, which the calibration writes beside
        their results."""
        return {k: v for k, v in asdict(self).items() if k not in ("unknowns", "goals")}


def load_spec(path: str | Path) -> Spec:
    """Read a calibration file (see :class:`Spec`); a ``ValueError`` names the file, the key
    and what was expected."""
    import tomllib

    where = str(path)
    try:
        doc = tomllib.loads(Path(path).read_text())
    except OSError as e:
        raise ValueError(f"{where}: cannot read it ({e.strerror})") from None
    except tomllib.TOMLDecodeError as e:
        raise ValueError(f"{where}: not valid TOML ({e})") from None
    allowed = {"scenario", "question", "samples", "rounds", "seeds", "set", "unknown", "goal"}
    extra = sorted(set(doc) - allowed)
    if extra:
        raise ValueError(f"{where}: unknown key(s) {extra}, expected some of {sorted(allowed)}")

    def need(table: Mapping[str, Any], key: str, kind: type | tuple[type, ...], at: str) -> Any:
        v = table.get(key)
        if v is None or isinstance(v, bool) or not isinstance(v, kind):
            names = " or ".join(t.__name__ for t in (kind if isinstance(kind, tuple) else (kind,)))
            raise ValueError(f"{where}: {at}{key} must be a {names}, got {v!r}")
        return v

    scenario = need(doc, "scenario", str, "")
    budget = {k: need(doc, k, int, "") for k in ("samples", "rounds", "seeds") if k in doc}
    fixed = doc.get("set", {})
    if not isinstance(fixed, dict) or not all(isinstance(v, str) for v in fixed.values()):
        raise ValueError(f'{where}: [set] must be a table of KEY = "VALUE" strings')
    unknowns, goals, plausible, rows = [], [], {}, {}
    num = (int, float)
    for i, u in enumerate(doc.get("unknown", [])):
        at = f"unknown[{i}]."
        key, low, high = need(u, "key", str, at), need(u, "low", num, at), need(u, "high", num, at)
        plausible[key] = need(u, "plausible", str, at)
        try:
            also = u.get("also", [])
            if not isinstance(also, list) or not all(isinstance(k, str) for k in also):
                raise ValueError(f"{at}also must be a list of keys, got {also!r}")
            unknowns.append(Unknown(key, float(low), float(high), str(u.get("unit", "")),
                                    bool(u.get("log", False)), bool(u.get("integer", False)),
                                    tuple(also)))  # fmt: skip
        except ValueError as e:
            raise ValueError(f"{where}: {e}") from None
    for i, g in enumerate(doc.get("goal", [])):
        at = f"goal[{i}]."
        metric, value, tol = (
            need(g, "metric", str, at),
            need(g, "value", num, at),
            need(g, "tol", num, at),
        )
        rows[metric] = need(g, "row", str, at)
        try:
            goals.append(Goal(metric, float(value), float(tol)))
        except ValueError as e:
            raise ValueError(f"{where}: {e}") from None
    if not unknowns or not goals:
        raise ValueError(f"{where}: expected at least one [[unknown]] and one [[goal]]")
    return Spec(scenario, unknowns, goals, dict(fixed), question=doc.get("question", ""),
                plausible=plausible, rows=rows, **budget)  # fmt: skip


Evaluate = Callable[[list[dict[str, float]]], list[dict[str, float]]]


def search(
    evaluate: Evaluate,
    unknowns: Sequence[Unknown],
    goals: Sequence[Goal],
    samples: int = 16,
    rounds: int = 2,
    seed: int = 1,
) -> Calibration:
    """Search the declared box for the region where every goal holds. ``evaluate`` takes a
    round's points (``{key: value}``) and returns each point's metrics (``{metric: value}``)."""
    import pandas as pd
    from scipy import stats
    from scipy.stats import qmc

    if not unknowns or not goals:
        raise ValueError("calibration needs at least one unknown and one goal")
    if samples < 2 or rounds < 1:
        raise ValueError(f"expected samples >= 2 and rounds >= 1, got {samples} and {rounds}")
    declared = np.array([[u._to(np.array(u.low)), u._to(np.array(u.high))] for u in unknowns])
    box = declared.copy()
    rows: list[dict[str, Any]] = []
    for r in range(rounds):
        unit = qmc.LatinHypercube(d=len(unknowns), seed=seed + r).random(samples)
        scaled = qmc.scale(unit, box[:, 0], box[:, 1]) if np.all(box[:, 1] > box[:, 0]) else (
            np.tile(box[:, 0], (samples, 1)))  # fmt: skip
        points = [
            {u.key: u.value(float(u._from(np.array(x)))) for u, x in zip(unknowns, p, strict=True)}
            for p in scaled
        ]
        results = evaluate(points)
        for p, res in zip(points, results, strict=True):
            missing = [k for g in goals for k in g.parts() if k not in res]
            if missing:
                close = difflib.get_close_matches(missing[0], list(res), n=3)
                hint = f"; did you mean {' or '.join(map(repr, close))}?" if close else ""
                raise ValueError(
                    f"goal {missing[0]!r}: no such metric in the run's summary{hint} (the metrics "
                    "are summary.json's keys, flattened as in sweep.parquet)"
                )
            values = {g.metric: g.of(res) for g in goals}
            errs = [g.error(values[g.metric]) for g in goals]
            rows.append({"round": r + 1, **p, **values, "worst_error": max(errs),
                         "holds": max(errs) <= 1.0})  # fmt: skip
        frame = pd.DataFrame(rows)
        ok = frame[frame.holds]
        width = box[:, 1] - box[:, 0]
        this_round = frame[frame["round"] == r + 1]
        if len(ok):
            # Around every holding sample so far, with a margin that finds the region's edges:
            # half the box when the whole round held (the edges are further out), else a
            # quarter.
            spans = [u._to(ok[u.key].to_numpy()) for u in unknowns]
            inside = np.array([[x.min(), x.max()] for x in spans])
            margin = width / 2 if this_round.holds.all() else width / 4
        else:
            # Nothing holds yet: zoom on the nearest miss.
            b = frame.loc[frame.worst_error.idxmin()]
            at = np.array([u._to(np.array(b[u.key])) for u in unknowns])
            inside = np.stack([at, at], axis=1)
            margin = width / 4
        box = np.stack([np.maximum(inside[:, 0] - margin, declared[:, 0]),
                        np.minimum(inside[:, 1] + margin, declared[:, 1])], axis=1)  # fmt: skip
    frame = pd.DataFrame(rows)
    ok = frame[frame.holds]
    region: dict[str, tuple[float, float] | None] = {}
    at_edge = []
    for (low, high), u in zip(declared, unknowns, strict=True):
        if not len(ok):
            region[u.key] = None
            continue
        lo, hi = float(ok[u.key].min()), float(ok[u.key].max())
        region[u.key] = (lo, hi)
        # Within one first-round sample spacing of a declared bound.
        spacing = (high - low) / samples
        if u._to(np.array(lo)) - low <= spacing or high - u._to(np.array(hi)) <= spacing:
            at_edge.append(u.key)
    best_row = frame.loc[frame.worst_error.idxmin()]
    best = {k: float(best_row[k]) for k in [*(u.key for u in unknowns), *(g.metric for g in goals)]}
    best["worst_error"] = float(best_row.worst_error)
    # Sensitivity from the first round alone: a Latin hypercube over the whole declared box,
    # where the unknowns vary independently (later rounds follow the region, where they need
    # not). The change over the range is a least-squares plane's, each unknown's own share.
    first = frame[frame["round"] == 1]
    xs = np.stack([u._to(first[u.key].to_numpy(dtype=float)) for u in unknowns], axis=1)
    sens: dict[str, dict[str, dict[str, float]]] = {}
    for g in goals:
        y = first[g.metric].to_numpy(dtype=float)
        fine = np.isfinite(y)
        if fine.sum() <= len(unknowns) + 1 or np.ptp(y[fine]) == 0:
            sens[g.metric] = {u.key: {"spearman": math.nan, "span_in_tolerances": 0.0}
                              for u in unknowns}  # fmt: skip
            continue
        design = np.column_stack([np.ones(fine.sum()), xs[fine]])
        coef = np.linalg.lstsq(design, y[fine], rcond=None)[0][1:]
        sens[g.metric] = {
            u.key: {
                "spearman": float(stats.spearmanr(xs[fine, j], y[fine]).statistic),
                "span_in_tolerances": float(coef[j] * (declared[j, 1] - declared[j, 0]) / g.tol),
            }
            for j, u in enumerate(unknowns)
        }
    return Calibration(list(unknowns), list(goals), frame, region, at_edge, best, sens)


def calibrate(
    scenario: str,
    unknowns: Sequence[Unknown],
    goals: Sequence[Goal],
    out: str | Path,
    samples: int = 16,
    rounds: int = 2,
    seeds: int = 1,
    fixed: Mapping[str, str] | None = None,
    executor: Any = None,
    reporter: Any = None,
) -> Calibration:
    """Calibrate ``scenario``'s ``unknowns`` against ``goals`` (each sample the mean over
    ``seeds`` runs, with the overrides ``fixed`` beside the unknowns); the runs are kept in
    ``out/runs`` (a rerun resumes) and the result in ``out/calibration.json`` and
    ``out/samples.parquet``."""
    result = _search_runs(scenario, unknowns, goals, Path(out), samples, rounds, seeds, fixed,
                          executor, reporter)  # fmt: skip
    result.write(Path(out))
    return result


def calibrate_spec(
    spec: Spec, out: str | Path, executor: Any = None, reporter: Any = None
) -> Calibration:
    """:func:`calibrate` as ``spec`` declares it; ``calibration.json`` carries the declaration."""
    result = _search_runs(spec.scenario, spec.unknowns, spec.goals, Path(out), spec.samples,
                          spec.rounds, spec.seeds, spec.fixed, executor, reporter)  # fmt: skip
    result.write(Path(out), spec)
    return result


def _search_runs(
    scenario: str,
    unknowns: Sequence[Unknown],
    goals: Sequence[Goal],
    out_dir: Path,
    samples: int,
    rounds: int,
    seeds: int,
    fixed: Mapping[str, str] | None,
    executor: Any,
    reporter: Any,
) -> Calibration:
    """The search over ``scenario``'s runs, kept in ``out_dir/runs``; nothing else written."""
    from airlab import jobs as _jobs
    from airlab.sweep import flatten_summary

    base = tuple(sorted((fixed or {}).items()))
    keys = {k for u in unknowns for k in u.set_keys()} & {k for k, _ in base}
    if keys:
        raise ValueError(f"{sorted(keys)[0]!r} is both an unknown and a fixed override")

    def evaluate(points: list[dict[str, float]]) -> list[dict[str, float]]:
        todo = {}
        for i, p in enumerate(points):
            params = base + tuple((k, u.text(p[u.key])) for u in unknowns for k in u.set_keys())
            for s in range(1, seeds + 1):
                todo[(i, s)] = _jobs.Job(scenario, params, s)
        done = _jobs.run_jobs(list(todo.values()), out_dir, executor, reporter=reporter)
        if done.interrupted:
            raise KeyboardInterrupt
        if done.failed:
            job, err = next(iter(done.failed.items()))
            raise RuntimeError(f"run {job} failed: {err}")
        res = []
        for i in range(len(points)):
            flat = [flatten_summary(done.records[todo[(i, s)].id]["summary"])
                    for s in range(1, seeds + 1)]  # fmt: skip
            common = set.intersection(*(set(f) for f in flat))
            res.append({k: float(np.mean([f[k] for f in flat])) for k in common})
        return res

    return search(evaluate, unknowns, goals, samples, rounds)
