"""The TCP validation grid: the simulator against the kernel over CUBIC, Reno and BBRv1, one
and two flows, base RTTs, buffer depths and link rates (docs/validation.md, "The TCP stack
against the kernel").

Topology: senders h1 (and h3) -- r1 == bottleneck == h2. The bottleneck qdisc (pfifo) sits on
the router r1, not on a sender, whose own qdisc TCP Small Queues would keep short. Access
links run at 1 Gbit/s with 0.5 ms delay; the bottleneck's delay makes up the base RTT, and it
has no driver ring (``device_queue = 0``), as the testbed's HTB class feeding the wire. The
pfifo limit is ``max(2, round(k * BDP / 1500 B))`` packets for a buffer of ``k`` BDP, with the
BDP of the bottleneck rate and the base RTT (20 ms for the two-flow RTT mix).

Cells (``CELLS``): one flow at RTT 2, 20, 80 ms; two flows of equal 20 ms RTT, the second
started 2 s later (``stagger``); two flows at 20 and 60 ms RTT started together (``mix``).
Each at buffers 0.25, 1, 4, 16 BDP and 10 and 100 Mbit/s, for cubic, reno and bbr1.

Usage::

    sudo python -m airlab.testbed.grid run --backend linux --out docs/validation/kernel-grid.csv
    python -m airlab.testbed.grid run --backend airlab --out results/airlab-grid.csv
    python -m airlab.testbed.grid table --linux A.csv --airlab B.csv --out table.md
    python -m airlab.testbed.grid ceiling --linux A.csv --airlab B15.csv   # see :func:`ceiling`

Per flow a row records goodput and sRTT p50 after the warm-up, the share of the cell's total
goodput, and the retransmissions over the whole run (slow start included).

A run appends one row per cell, seed and flow as it goes and skips the (cell, seed) pairs
already in the file, so an interrupted run resumes where it stopped.
"""

from __future__ import annotations

import argparse
import fnmatch
import tempfile
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol, TypeVar

import numpy as np
import pandas as pd

import airlab


class GridCell(Protocol):
    """A cell of either grid (:class:`Cell`, :class:`airlab.testbed.sharing.SharingCell`):
    its name, and its scenario file's text."""

    @property
    def name(self) -> str: ...

    def scenario(self) -> str: ...


T = TypeVar("T", bound=GridCell)
#: The rows of a finished run: ``rows_of(cell, backend, seed, result)``.
RowsOf = Callable[[Any, str, int, Any], list[dict[str, Any]]]

CCS = ["cubic", "reno", "bbr1"]
RATES_MBIT = [10, 100]
BUFFERS_BDP = [0.25, 1.0, 4.0, 16.0]
ACCESS_DELAY_MS = 0.5

#: Targets (docs/validation.md): relative goodput and RTT p50 error, two-flow share error
#: (relative, of the first flow's share), and the factor allowed on retransmissions, which
#: count as matching when both are below RETX_FLOOR.
GOODPUT_TOL = 0.05
RTT_TOL = 0.10
SHARE_TOL = 0.10
RETX_FACTOR = 2.0
RETX_FLOOR = 5


@dataclass(frozen=True)
class Cell:
    cc: str
    kind: str  # "single", "stagger" or "mix"
    rtt_ms: float
    buffer_bdp: float
    rate_mbit: int
    #: Added to the second flow's access delay (both ways), to see how a share depends on the
    #: exact path delay (drop-tail phase effects).
    shift_ms: float = 0.0

    @property
    def name(self) -> str:
        base = f"{self.cc}/{self.kind}/rtt{self.rtt_ms:g}/buf{self.buffer_bdp:g}/{self.rate_mbit}M"
        return base + (f"/shift{self.shift_ms:+g}" if self.shift_ms else "")

    @property
    def limit(self) -> int:
        bdp = self.rate_mbit * 1e6 / 8 * self.rtt_ms / 1e3
        return max(2, round(self.buffer_bdp * bdp / 1500))

    @property
    def duration_s(self) -> int:
        return 20 if self.kind == "single" else 30

    def scenario(self) -> str:
        """The cell's scenario file."""
        bottleneck_ms = self.rtt_ms / 2 - ACCESS_DELAY_MS
        h3_delay = ACCESS_DELAY_MS + (20.0 if self.kind == "mix" else 0.0) + self.shift_ms
        warmup = 5 if self.kind == "single" else 10
        lines = [
            f'name = "grid-{self.cc}-{self.kind}"',
            f'duration = "{self.duration_s}s"',
            'hosts = ["h1", "h3", "h2"]',
            'routers = ["r1"]',
            "",
            "[metrics]",
            f'warmup = "{warmup}s"',
            "",
            "[[link]]",
            'between = ["h1", "r1"]',
            'rate = "1Gbit"',
            f'delay = "{ACCESS_DELAY_MS}ms"',
            "",
            "[[link]]",
            'between = ["h3", "r1"]',
            'rate = "1Gbit"',
            f'delay = "{h3_delay}ms"',
            "",
            "[[link]]",
            'name = "bottleneck"',
            'between = ["r1", "h2"]',
            f'rate = "{self.rate_mbit}Mbit"',
            f'delay = "{bottleneck_ms}ms"',
            # The testbed's HTB class hands packets straight to the wire: no driver ring.
            "device_queue = 0",
            f'qdisc = {{ kind = "pfifo", limit = {self.limit} }}',
        ]
        flows = [("f1", "h1", "0s")]
        if self.kind != "single":
            flows.append(("f2", "h3", "2s" if self.kind == "stagger" else "0s"))
        for name, src, start in flows:
            lines += [
                "",
                "[[flow]]",
                f'name = "{name}"',
                f'from = "{src}"',
                'to = "h2"',
                f'cc = "{self.cc}"',
                'app = { kind = "bulk" }',
                f'start = "{start}"',
            ]
        return "\n".join(lines) + "\n"


CELLS: list[Cell] = [
    Cell(cc, kind, rtt, buf, rate)
    for rate in RATES_MBIT
    for cc in CCS
    for kind, rtts in (("single", [2.0, 20.0, 80.0]), ("stagger", [20.0]), ("mix", [20.0]))
    for rtt in rtts
    for buf in BUFFERS_BDP
]

#: The acceptance cell of issue 12: two CUBIC flows at 20 and 60 ms over 10 Mbit/s, pfifo 50
#: (3 BDP of the 20 ms path).
ACCEPTANCE = Cell("cubic", "mix", 20.0, 3.0, 10)
#: The acceptance asks for a steady share over seeds and +-0.2 ms of path delay: the cell with
#: the long flow's one-way access delay moved by these (its RTT by twice as much).
ACCEPTANCE_SHIFTS_MS = [-0.2, -0.1, 0.0, 0.1, 0.2]


def acceptance(rows: pd.DataFrame) -> pd.DataFrame:
    """The long (60 ms) flow's share in the acceptance runs, per backend: mean, p10, p90 and
    the spread p90 - p10 over every seed and delay shift."""
    long = rows[rows["flow"] == "f2"]
    q = long.groupby("backend")["share"]
    out = pd.DataFrame({"runs": q.size(), "mean": q.mean(), "p10": q.quantile(0.1),
                        "p90": q.quantile(0.9)})  # fmt: skip
    out["spread"] = out["p90"] - out["p10"]
    return out


def verdict_columns(summary: dict[str, Any]) -> dict[str, Any]:
    """What the testbed found of a run's fidelity (docs/testbed.md), as columns of each of its
    rows: whether it was degraded, which checks failed and what those affect. A degraded
    kernel run counts only if what its failed checks affect leaves the grids' numbers alone
    (:func:`counts`); a simulator run is never degraded."""
    fidelity = summary.get("fidelity") or {}
    failed = [c for c in fidelity.get("checks", []) if not c["pass"]]
    return {
        "degraded": bool(fidelity.get("degraded")),
        "failed_checks": ";".join(sorted({c["name"] for c in failed})),
        "failed_affects": ";".join(sorted({key for c in failed for key in c["affects"]})),
    }


def counts(rows: pd.DataFrame) -> pd.Series:
    """Which rows count: those of runs not degraded, and degraded runs whose failed checks
    affect no flow (their ``affects`` name only queues and links: the qdisc sampler's coverage,
    say, which the eight-flow cells' nine namespaces miss, feeds only the queue and link
    series). A degraded row that does not record what its failures affect does not count.
    Rows without a verdict (the TCP grid's kernel runs before 2026-11-27, when its rows
    began to record one) count."""
    if "degraded" not in rows:
        return pd.Series(True, index=rows.index)
    affected = rows.get("failed_affects", pd.Series(pd.NA, index=rows.index))

    def flows_intact(keys: object) -> bool:
        if not isinstance(keys, str) or not keys:
            return False
        return not any(k == "*" or k.startswith("flows:") for k in keys.split(";"))

    return ~rows["degraded"].eq(True) | affected.map(flows_intact).astype(bool)


def _rows(cell: Cell, backend: str, seed: int, result: Any) -> list[dict[str, Any]]:
    summary = result.summary
    queue: dict[str, Any] = next(
        (q for q in summary["queues"] if q["name"] == "bottleneck:r1->h2"), {}
    )
    flows = summary["flows"]
    series = result.flows
    # Retransmissions over the whole run, slow start included (the cumulative series' last
    # value), the same for both backends.
    retransmits = series.groupby("flow")["retransmits"].max()
    total = sum(f["goodput_mbps"] for f in flows) or float("nan")
    return [
        {
            "cell": cell.name,
            "cc": cell.cc,
            "kind": cell.kind,
            "rtt_ms": cell.rtt_ms,
            "buffer_bdp": cell.buffer_bdp,
            "rate_mbit": cell.rate_mbit,
            "shift_ms": cell.shift_ms,
            "limit_pkts": cell.limit,
            "backend": backend,
            "seed": seed,
            "flow": f["name"],
            "goodput_mbps": f["goodput_mbps"],
            "share": f["goodput_mbps"] / total,
            "srtt_p50_ms": (f.get("srtt_ms") or {}).get("p50"),
            "retransmits": retransmits.get(f["name"]),
            "bottleneck_drops": queue.get("drops"),
            **verdict_columns(summary),
        }
        for f in flows
    ]


def run_cells(
    cells: Sequence[GridCell],
    backend: str,
    out: Path,
    seeds: int,
    duration: str | None,
    extra: dict[str, str] | None = None,
    rows_of: RowsOf | None = None,
    jobs: int = 1,
) -> None:
    """Run every cell and seed not already in ``out``, appending rows as they come; ``extra``
    are scenario overrides (``--set``) applied to every cell. A cell has a ``name`` and a
    ``scenario()``; ``rows_of(cell, backend, seed, result)`` gives its rows (this grid's by
    default). The simulator runs ``jobs`` cells at once; the kernel one at a time, since its
    runs need a quiet machine."""
    if backend == "linux" and jobs != 1:
        raise ValueError(f"--jobs: the kernel backend runs one cell at a time, got {jobs}")
    other = next((c for c in cells if not isinstance(c, Cell)), None)
    if rows_of is None and other is not None:
        raise TypeError(f"rows_of: expected the rows of cell {other.name!r} (not this grid's)")
    # this grid's rows by default: every cell is a Cell then
    rows_for: RowsOf = rows_of if rows_of is not None else _rows
    done: set[tuple[str, int]] = set()
    if out.exists():
        prior = pd.read_csv(out)
        done = set(zip(prior["cell"], prior["seed"], strict=True))
    out.parent.mkdir(parents=True, exist_ok=True)
    todo = [(c, s) for c in cells for s in range(1, seeds + 1) if (c.name, s) not in done]
    sets = {**({"duration": duration} if duration else {}), **(extra or {})} or None

    def one(tmp: str, index: int, cell: Any, seed: int) -> Any:
        path = Path(tmp) / f"{index}.toml"
        path.write_text(cell.scenario())
        if backend == "linux":
            from airlab import testbed

            return testbed.run(path, set=sets, seed=seed)
        return airlab.run(path, set=sets, seed=seed)

    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(jobs) as pool:
        # The simulator releases the GIL while it runs, so threads run cells in parallel.
        futures = {pool.submit(one, tmp, i, c, s): (c, s) for i, (c, s) in enumerate(todo)}
        for k, future in enumerate(as_completed(futures), 1):
            cell, seed = futures[future]
            result = future.result()
            rows = pd.DataFrame(rows_for(cell, backend, seed, result))
            rows.to_csv(out, mode="a", header=not out.exists(), index=False)
            # Python warns of a degraded kernel run once per place; every one is said here.
            fid = result.summary.get("fidelity") or {}
            note = f" (degraded: {'; '.join(fid['reasons'])})" if fid.get("degraded") else ""
            print(f"[{k}/{len(todo)}] {cell.name} seed {seed}: done{note}", flush=True)


def within(a: float, b: float, tol: float) -> bool:
    """``a`` within relative ``tol`` of the reference ``b`` (equal, if ``b`` is 0)."""
    return abs(a / b - 1) <= tol if b else a == b


def compare(linux: pd.DataFrame, sim: pd.DataFrame) -> pd.DataFrame:
    """One row per cell: kernel and airlab means (over seeds) and whether each target holds.
    Kernel runs that do not count (:func:`counts`) are left out."""
    linux = linux[counts(linux)]
    key = ["cell", "cc", "kind", "rtt_ms", "buffer_bdp", "rate_mbit", "flow"]
    metrics = ["goodput_mbps", "share", "srtt_p50_ms", "retransmits"]
    both = pd.merge(
        linux.groupby(key)[metrics].mean(),
        sim.groupby(key)[metrics].mean(),
        left_index=True,
        right_index=True,
        suffixes=("_linux", "_airlab"),
    )
    # The kernel's run-to-run range of the first flow's share, over its seeds.
    first = linux[linux["flow"] == "f1"].groupby("cell")["share"]
    share_lo, share_hi = first.min(), first.max()
    rows = []
    for cell, g in both.reset_index().groupby("cell", sort=False):
        total_l = g["goodput_mbps_linux"].sum()
        total_a = g["goodput_mbps_airlab"].sum()
        retx_l = g["retransmits_linux"].sum()
        retx_a = g["retransmits_airlab"].sum()
        first = g.iloc[0]
        rtt_ok = all(
            within(a, lx, RTT_TOL)
            for a, lx in zip(g["srtt_p50_ms_airlab"], g["srtt_p50_ms_linux"], strict=True)
        )
        share_ok = len(g) < 2 or within(first["share_airlab"], first["share_linux"], SHARE_TOL)
        retx_ok = max(retx_l, retx_a) < RETX_FLOOR or (
            min(retx_l, retx_a) > 0 and max(retx_l, retx_a) / min(retx_l, retx_a) <= RETX_FACTOR
        )
        row = {
            "cell": cell,
            "goodput_linux": total_l,
            "goodput_airlab": total_a,
            "goodput_ok": within(total_a, total_l, GOODPUT_TOL),
            "rtt_linux": g["srtt_p50_ms_linux"].mean(),
            "rtt_airlab": g["srtt_p50_ms_airlab"].mean(),
            "rtt_ok": rtt_ok,
            "share_linux": first["share_linux"] if len(g) > 1 else float("nan"),
            "share_airlab": first["share_airlab"] if len(g) > 1 else float("nan"),
            "share_ok": share_ok,
            "share_linux_min": share_lo.get(cell, float("nan")) if len(g) > 1 else float("nan"),
            "share_linux_max": share_hi.get(cell, float("nan")) if len(g) > 1 else float("nan"),
            "retx_linux": retx_l,
            "retx_airlab": retx_a,
            "retx_ok": retx_ok,
        }
        row["all_ok"] = row["goodput_ok"] and rtt_ok and share_ok and retx_ok
        rows.append(row)
    return pd.DataFrame(rows)


@dataclass(frozen=True)
class Ceiling:
    """What a model whose runs are distributed as ``sim``'s would score against references of
    as few runs as the kernel's (:func:`ceiling`)."""

    #: The share of cells within every target, one value per random split of the seeds.
    scores: list[float]
    #: Per cell, the share of splits in which it was within every target.
    per_cell: pd.Series

    def summary(self, below: float = 0.9) -> str:
        s = pd.Series(self.scores)
        lines = [
            f"a model whose runs vary as these do scores {s.mean():.1%} "
            f"(p10 {s.quantile(0.1):.1%}, p90 {s.quantile(0.9):.1%}; {len(s)} splits, "
            f"{len(self.per_cell)} cells)",
            f"cells within every target in fewer than {below:.0%} of the splits:",
        ]
        weak = self.per_cell[self.per_cell < below].sort_values()
        lines += [f"  {share:4.0%}  {cell}" for cell, share in weak.items()] or ["  none"]
        return "\n".join(lines)


def ceiling(
    compare: Callable[[pd.DataFrame, pd.DataFrame], pd.DataFrame],
    reference_runs: pd.Series,
    sim: pd.DataFrame,
    model_seeds: int,
    splits: int = 40,
    seed: int = 1,
) -> Ceiling:
    """The score a perfect model could expect against a reference of few runs: the simulator
    against itself. Per cell and split, ``reference_runs[cell]`` of ``sim``'s seeds, drawn at
    random, stand in for the kernel and ``model_seeds`` others for the model; ``compare`` then
    scores them as it scores airlab against the kernel. A median over three runs of a cell
    whose outcome varies from run to run misses its own distribution's median by more than
    the target, so even a model with exactly the kernel's behaviour misses such a cell in some
    splits. Where the kernel varies more than airlab (cells where it is bimodal and airlab is
    not) the true ceiling is lower still."""
    rng = np.random.default_rng(seed)
    scores: list[float] = []
    passed: dict[str, list[bool]] = {}
    groups = list(sim.groupby("cell"))
    for _ in range(splits):
        ref, model = [], []
        for cell, rows in groups:
            seeds = rng.permutation(rows["seed"].unique())
            k = int(reference_runs.get(cell, 0))
            if not k or k + model_seeds > len(seeds):
                raise ValueError(
                    f"cell {cell}: {len(seeds)} simulator seeds cannot hold {k} reference "
                    f"runs and {model_seeds} model seeds apart (run more seeds)"
                )
            ref.append(rows[rows["seed"].isin(seeds[:k])])
            model.append(rows[rows["seed"].isin(seeds[k : k + model_seeds])])
        cmp = compare(pd.concat(ref), pd.concat(model))
        scores.append(float(cmp["all_ok"].mean()))
        for cell, ok in zip(cmp["cell"], cmp["all_ok"], strict=True):
            passed.setdefault(cell, []).append(bool(ok))
    return Ceiling(scores, pd.Series({c: sum(v) / len(v) for c, v in passed.items()}))


def table(cmp: pd.DataFrame) -> str:
    """Markdown of :func:`compare`, a mark per target, and the share of cells within all."""
    mark = {True: "✓", False: "✗"}
    lines = [
        "| cell | goodput Linux / airlab | RTT p50 ms Linux / airlab | "
        "flow 1 share Linux (seed range) / airlab | retransmits | within |",
        "|---|---|---|---|---|---|",
    ]
    for _, r in cmp.iterrows():
        share = "—"
        if r["share_linux"] == r["share_linux"]:
            lo, hi = r.get("share_linux_min"), r.get("share_linux_max")
            spread = f" ({lo:.2f}-{hi:.2f})" if lo == lo and hi == hi and hi > lo else ""
            share = (
                f"{r['share_linux']:.2f}{spread} / {r['share_airlab']:.2f} {mark[r['share_ok']]}"
            )
        lines.append(
            f"| {r['cell']} | {r['goodput_linux']:.2f} / {r['goodput_airlab']:.2f} "
            f"{mark[r['goodput_ok']]} | {r['rtt_linux']:.1f} / {r['rtt_airlab']:.1f} "
            f"{mark[r['rtt_ok']]} | {share} | {r['retx_linux']:.0f} / {r['retx_airlab']:.0f} "
            f"{mark[r['retx_ok']]} | {mark[r['all_ok']]} |"
        )
    n, ok = len(cmp), int(cmp["all_ok"].sum())
    lines.append("")
    lines.append(f"{ok} of {n} cells ({100 * ok / max(n, 1):.0f} %) within every target.")
    return "\n".join(lines) + "\n"


def matching(cells: list[T], pattern: str | None) -> list[T]:
    """The cells whose name matches the glob ``pattern`` (all of them without one)."""
    return [c for c in cells if pattern is None or fnmatch.fnmatch(c.name, pattern)]


def select(pattern: str | None) -> list[Cell]:
    return matching(CELLS, pattern)


def add_run_parser(sub: Any, seeds: int, example: str) -> argparse.ArgumentParser:
    """The ``run`` subcommand of a grid's command line: backend, output, seeds, cell filter."""
    r = sub.add_parser("run")
    r.add_argument("--backend", choices=["linux", "airlab"], required=True)
    r.add_argument("--out", required=True)
    r.add_argument("--seeds", type=int, default=seeds)
    r.add_argument("--only", help=f"glob over cell names, e.g. '{example}'")
    r.add_argument("--duration", help="override every cell's duration (smoke runs)")
    r.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="scenario override for every cell, e.g. host_jitter=20us")  # fmt: skip
    r.add_argument("--jobs", type=int, default=1,
                   help="simulator cells at once (the kernel runs one at a time)")  # fmt: skip
    return r


def add_table_parser(sub: Any) -> argparse.ArgumentParser:
    """The ``table`` subcommand: the kernel's rows against the simulator's."""
    t = sub.add_parser("table")
    t.add_argument("--linux", required=True)
    t.add_argument("--airlab", required=True)
    return t


def run_from_args(
    args: argparse.Namespace, cells: Sequence[GridCell], rows_of: RowsOf | None = None
) -> None:
    """The ``run`` subcommand of either grid: :func:`run_cells` of ``cells`` on the chosen
    backend with the command line's seeds, duration, ``--set`` overrides and jobs."""
    extra = dict(kv.split("=", 1) for kv in args.set)
    run_cells(cells, args.backend, Path(args.out), args.seeds, args.duration, extra, rows_of,
              jobs=args.jobs)  # fmt: skip


def add_ceiling_parser(sub: Any, model_seeds: int) -> argparse.ArgumentParser:
    """The ``ceiling`` subcommand: what a perfect model would score (:func:`ceiling`)."""
    c = sub.add_parser(
        "ceiling",
        help="the score a model with the kernel's own run-to-run variation could expect "
        "against the kernel's few runs",
    )
    c.add_argument("--linux", required=True, help="kernel rows: how many runs each cell has")
    c.add_argument(
        "--airlab",
        required=True,
        help="simulator rows with at least the kernel's runs + --model-seeds seeds per cell",
    )
    c.add_argument(
        "--model-seeds",
        type=int,
        default=model_seeds,
        help=f"seeds on the model's side (the recorded comparison has {model_seeds})",
    )
    c.add_argument("--splits", type=int, default=40)
    return c


def print_ceiling(args: argparse.Namespace, compare: Callable[..., pd.DataFrame]) -> None:
    """The ``ceiling`` subcommand of either grid: the kernel's counted runs per cell, the
    simulator's rows of those cells, and :func:`ceiling`'s summary."""
    linux = pd.read_csv(args.linux)
    runs = linux[counts(linux)].groupby("cell")["seed"].nunique()
    sim = pd.read_csv(args.airlab)
    sim = sim[sim["cell"].isin(runs.index)]
    print(ceiling(compare, runs, sim, args.model_seeds, args.splits).summary())


def parse_with_ceiling(
    ap: argparse.ArgumentParser,
    sub: Any,
    argv: list[str] | None,
    model_seeds: int,
    compare: Callable[..., pd.DataFrame],
) -> argparse.Namespace | None:
    """A grid's command line with the ``ceiling`` subcommand added last: parses ``argv`` and
    runs a ``ceiling`` itself (``None``); any other subcommand's arguments are returned."""
    add_ceiling_parser(sub, model_seeds)
    args = ap.parse_args(argv)
    if args.cmd == "ceiling":
        print_ceiling(args, compare)
        return None
    return args


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="airlab.testbed.grid")
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = add_run_parser(sub, seeds=1, example="cubic/single/*/10M")
    r.add_argument("--acceptance", action="store_true",
                   help="run only the 20-vs-60 ms cell, at each delay shift")  # fmt: skip
    add_table_parser(sub).add_argument("--out")
    a = sub.add_parser("acceptance", help="the long flow's share over seeds and delay shifts")
    a.add_argument("files", nargs="+", help="acceptance CSVs of either backend")
    args = parse_with_ceiling(ap, sub, argv, 6, compare)
    if args is None:
        return
    if args.cmd == "run":
        cells = (
            [replace(ACCEPTANCE, shift_ms=d) for d in ACCEPTANCE_SHIFTS_MS]
            if args.acceptance
            else select(args.only)
        )
        run_from_args(args, cells)
        return
    if args.cmd == "acceptance":
        print(acceptance(pd.concat(pd.read_csv(f) for f in args.files)).to_string())
        return
    text = table(compare(pd.read_csv(args.linux), pd.read_csv(args.airlab)))
    if args.out:
        Path(args.out).write_text(text)
    print(text)


if __name__ == "__main__":
    main()
