"""The ``airlab`` command line: run, validate, list, sweep, bench."""

from __future__ import annotations

import dataclasses
import json
import os
import sys
import tomllib
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

import airlab
from airlab import _checks, _io
from airlab import jobs as _jobs
from airlab import schema as _schema
from airlab import sweep as _sweep
from airlab.report import fmt, get

EXIT_USAGE = 2
EXIT_INTERNAL = 3
EXIT_INTERRUPTED = 130
SET_HELP = "Override a scenario key, e.g. --set duration=10s (repeatable)."


class CliError(click.ClickException):
    """A user-facing error: printed as ``error: <message>``, exit status 2."""

    exit_code = EXIT_USAGE


def _overrides(items: Sequence[str]) -> list[tuple[str, str]]:
    """``--set key=value`` items as (key, text) pairs; the API reads each text as ``--set``."""
    try:
        return [_sweep.parse_set(i) for i in items]
    except ValueError as e:
        raise CliError(str(e)) from None


# Every command checks where it writes first thing, so a bad path costs no simulation. The
# option's default, if any, is chosen with `is None`: `--out ''` is an error, not the default.


def _out_dir(out: str | Path, option: str = "--out") -> Path:
    """The output directory ``out``: a creatable, writable directory (``_checks.output_dir``)."""
    try:
        return _checks.output_dir(out, option)
    except ValueError as e:
        raise CliError(str(e)) from None


def _out_file(out: str, option: str = "--out") -> Path:
    """The output file ``out``: not a directory, in a writable directory."""
    try:
        return _checks.output_file(out, option)
    except ValueError as e:
        raise CliError(str(e)) from None


def _console() -> Console:
    console = Console(highlight=False)
    if not console.is_terminal and "COLUMNS" not in os.environ:
        console = Console(highlight=False, width=120)  # logs and pipes: don't squeeze tables
    return console


# -- summary tables ------------------------------------------------------------------------------


def _num_table(title: str, cols: list[tuple[str, str]], rows: list[dict[str, Any]]) -> Table:
    t = Table(title=title, title_justify="left", title_style="bold")
    for i, (label, _) in enumerate(cols):
        t.add_column(label, justify="left" if i == 0 else "right")
    for r in rows:
        t.add_row(*(fmt(get(r, key)) for _, key in cols))
    return t


def print_summary(console: Console, s: dict[str, Any], max_rows: int = 20) -> None:
    """Per-flow goodput/RTT/retransmits, queue drops, link utilization, Jain, engine speed."""
    flows = s.get("flows", [])
    console.print(
        _num_table(
            f"Flows ({len(flows)})",
            [
                ("flow", "name"),
                ("cc", "cc"),
                ("goodput Mbit/s", "goodput_mbps"),
                ("RTT p50 ms", "rtt_ms.p50"),
                ("RTT p95 ms", "rtt_ms.p95"),
                ("sRTT p50 ms", "srtt_ms.p50"),
                ("retransmits", "retransmits"),
                ("FCT mean s", "fct_s.mean"),
            ],
            flows[:max_rows],
        )
    )
    if len(flows) > max_rows:
        console.print(f"  … and {len(flows) - max_rows} more flows (see summary.json)")
    queues = [q for q in s.get("queues", []) if q.get("enqueued") or q.get("drops")]
    queues.sort(key=lambda q: -((q.get("drops") or 0) + (q.get("device_drops") or 0)))
    console.print(
        _num_table(
            "Queues (with traffic)",
            [
                ("queue", "name"),
                ("kind", "kind"),
                ("drops", "drops"),
                ("marks", "marks"),
                ("device drops", "device_drops"),
                ("sojourn mean ms", "sojourn_ms.mean"),
                ("sojourn p95 ms", "sojourn_ms.p95"),
            ],
            queues[:max_rows],
        )
    )
    links = sorted(s.get("links", []), key=lambda lk: -(lk.get("utilization") or 0))
    links = [lk for lk in links if lk.get("utilization")]
    console.print(
        _num_table(
            "Links (busiest first)",
            [
                ("link", "name"),
                ("rate Mbit/s", "rate_mbps"),
                ("utilization", "utilization"),
                ("throughput Mbit/s", "throughput_mbps"),
            ],
            links[: min(max_rows, 8)],
        )
    )
    for net in s.get("wifi") or []:
        used = [lk for lk in net.get("links", []) if lk.get("ppdus")]
        used.sort(key=lambda lk: -(lk.get("airtime_share") or 0))
        console.print(
            _num_table(
                f"Wi-Fi {net.get('name')} (channel busy {fmt(net.get('busy_share'))})",
                [
                    ("link", "name"),
                    ("PHY Mbit/s", "phy_rate_mbps"),
                    ("airtime", "airtime_share"),
                    ("throughput Mbit/s", "throughput_mbps"),
                    ("MPDUs/PPDU", "mpdus_per_ppdu"),
                    ("failed PPDUs", "failed_ppdus"),
                ],
                used[: min(max_rows, 8)],
            )
        )
    if s.get("backend") == "linux":
        linux = s.get("linux") or {}
        console.print(
            f"Jain's fairness index: [bold]{fmt(s.get('jain_index'))}[/]   "
            f"backend: Linux {linux.get('kernel', '?')} (testbed)"
        )
        return
    e = s.get("engine") or {}
    console.print(
        f"Jain's fairness index: [bold]{fmt(s.get('jain_index'))}[/]   "
        f"engine: {fmt(e.get('events'))} events in {fmt(e.get('wall_s'))} s = "
        f"[bold]{fmt((e.get('events_per_s') or 0) / 1e6)} M events/s[/], "
        f"{fmt(e.get('sim_s_per_wall_s'))} sim s per wall s"
    )
    for warning in s.get("warnings") or []:
        console.print(f"[yellow]warning:[/] {escape(str(warning))}")


# -- commands --------------------------------------------------------------------------------------


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(airlab.__version__, prog_name="airlab")
def cli() -> None:
    """airlab: a laboratory for TCP congestion control and queue management."""


def _run_options(default_out: str) -> Callable[[Any], Any]:
    """The arguments `airlab run` and `airlab testbed run` share."""

    def add(command: Any) -> Any:
        for option in reversed([
            click.argument("scenario"),
            click.option("--seed", type=click.IntRange(0, airlab.MAX_SEED), default=None,
                         help="Run seed, 0 to 2^64 - 1 (overrides the scenario's)."),
            click.option("--set", "sets", multiple=True, metavar="KEY=VALUE", help=SET_HELP),
            click.option("--out", type=click.Path(file_okay=False), default=None,
                         help=f"Output directory [default: {default_out}]."),
            click.option("--no-plots", is_flag=True, help="Skip the PNG plots (faster)."),
        ]):  # fmt: skip
            command = option(command)
        return command

    return add


@cli.command()
@_run_options("results/<scenario>")
def run(
    scenario: str, seed: int | None, sets: tuple[str, ...], out: str | None, no_plots: bool
) -> None:
    """Run SCENARIO (a TOML file or a built-in name) and write its results."""
    overrides = _overrides(sets)
    stem = Path(str(scenario)).stem
    out_dir = _out_dir(Path("results") / stem if out is None else out)
    _run_and_save(
        f"simulating {stem}",
        lambda progress: airlab.run(scenario, seed=seed, set=overrides, progress=progress),
        out_dir,
        plots=not no_plots,
    )


def print_batch_means(console: Console, res: Any) -> None:
    """With ``[metrics] batches``: per flow, the batch means after the discarded batches with
    their 95 % intervals."""
    info = res.summary.get("batches")
    if not info or res.batches.empty:
        return
    from airlab.stats import batch_means

    discard = int(info["discard"])
    columns = [
        ("goodput over active periods Mbit/s", "active_goodput_mbps"),
        ("one-way delay ms", "owd_ms"),
        ("FCT s", "fct_s"),
    ]
    means = {key: batch_means(res.batches, key, discard) for _, key in columns}
    rows = []
    for flow in means["owd_ms"].index:
        row: dict[str, Any] = {"flow": flow}
        for _, key in columns:
            m = means[key].loc[flow] if flow in means[key].index else None
            row[key] = ""
            if m is not None and m["batches"] > 0:
                row[key] = f"{fmt(m['mean'])} ± {fmt(m['ci'])}"
        rows.append(row)
    title = (
        f"Batch means ({info['completed']} of {info['count']} batches of {info['packets']} "
        f"packets, first {discard} left out; 95 % CI)"
    )
    console.print(_num_table(title, [("flow", "flow"), *columns], rows))


def _run_and_save(label: str, run: Any, out_dir: Path, plots: bool) -> None:
    """Run ``run(progress)`` under a progress bar, print its summary and save its files."""
    console = _console()
    with Progress(
        SpinnerColumn(),
        TextColumn(label),
        BarColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    ) as bar:
        task = bar.add_task("run", total=1.0)
        res = run(lambda done: bar.update(task, completed=done))
    print_summary(console, res.summary)
    print_batch_means(console, res)
    res.save(out_dir, plots=plots, report=True)
    console.print(f"results written to [bold]{out_dir}[/] (report.html, summary.json, *.parquet)")


def _describe(resolved: dict[str, Any]) -> str:
    """One line about a resolved scenario: name, duration, sizes, description."""
    # the engine returns {"scenario": <the file after overrides>, "flows": [expanded], ...}
    scenario = resolved.get("scenario")
    base: dict[str, Any] = scenario if isinstance(scenario, dict) else resolved

    def count(obj: dict[str, Any], *keys: str) -> int:
        for k in keys:
            if isinstance(obj.get(k), list):
                return len(obj[k])
        return 0

    if isinstance(resolved.get("flows"), list):
        n_flows = len(resolved["flows"])
    else:
        n_flows = sum(int(f.get("count", 1)) for f in base.get("flow", []) if isinstance(f, dict))
    parts = [str(base.get("name", "?"))]
    if base.get("duration") is not None:
        parts.append(f"duration {base['duration']}")
    n_wifi = count(base, "wifi")
    wifi = f"{n_wifi} Wi-Fi networks, " if n_wifi else ""
    parts.append(
        f"{count(base, 'hosts')} hosts, {count(base, 'routers')} routers, "
        f"{count(base, 'link', 'links')} links, {wifi}{n_flows} flows"
    )
    text = ", ".join(parts)
    # one line, however many the description has
    desc = " ".join(str(base.get("description") or "").split())
    return f"{text}: {desc}" if desc else text


@cli.command()
@click.argument("scenario")
@click.option("--set", "sets", multiple=True, metavar="KEY=VALUE", help=SET_HELP)
def validate(scenario: str, sets: tuple[str, ...]) -> None:
    """Check SCENARIO without running it."""
    resolved = airlab.validate(scenario, set=_overrides(sets))
    click.echo(f"OK {scenario}: {_describe(resolved)}")


@cli.command()
@click.argument("name", type=click.Choice(_schema.NAMES))
@click.option(
    "--out", type=click.Path(dir_okay=False), default=None, help="Write it to a file instead."
)
def schema(name: str, out: str | None) -> None:
    """Print the JSON Schema of a scenario file, a run's summary.json, a reproduction's
    targets.json or `airlab model`'s summary.json."""
    if out is not None:
        _out_file(out)
    text = json.dumps(_schema.schema(name), indent=2) + "\n"
    if out is None:
        click.echo(text, nl=False)
    else:
        _io.write_text(out, text)
        click.echo(f"{name} schema written to {out}", err=True)


def _scenario_description(name: str) -> str:
    try:
        data = tomllib.loads(airlab.resolve(name).read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return "(unreadable: see `airlab validate`)"
    return str(data.get("description", "")).strip().split("\n")[0]


@cli.command("list")
@click.option(
    "--params",
    "component",
    metavar="NAME",
    help="Show the parameters of one qdisc or congestion control, with defaults and units.",
)
def list_(component: str | None) -> None:
    """List congestion controls, queue disciplines, apps and built-in scenarios."""
    console = _console()
    if component is not None:
        _print_params(console, component)
        return
    comps = airlab.components()
    t = Table(title="Components", title_justify="left", title_style="bold")
    t.add_column("kind")
    t.add_column("available")
    labels = {"cc": "congestion controls", "qdisc": "queue disciplines", "app": "apps"}
    for key, values in comps.items():
        t.add_row(labels.get(key, key), ", ".join(values))
    console.print(t)
    t = Table(title="Built-in scenarios", title_justify="left", title_style="bold")
    t.add_column("name")
    t.add_column("description")
    for name in airlab.list_builtin():
        t.add_row(name, _scenario_description(name))
    console.print(t)
    from airlab.reproduce import PAPERS

    t = Table(title="Paper reproductions (airlab reproduce NAME)", title_justify="left",
              title_style="bold")  # fmt: skip
    t.add_column("name")
    t.add_column("paper")
    for name, mod in PAPERS.items():
        t.add_row(name, mod.TITLE)
    console.print(t)


def _print_params(console: Console, name: str) -> None:
    try:
        found = airlab.params(name)
    except KeyError as e:
        raise click.UsageError(str(e.args[0])) from None
    if found["family"] == "qdisc":
        where = f'qdisc = {{ kind = "{name}", ... }}'
    else:
        where = f'cc = "{name}", cc_params = {{ ... }}'
    t = Table(title=f"{name}: {found['doc']}", caption=f"In a scenario: {where}",
              title_justify="left", title_style="bold")  # fmt: skip
    t.add_column("parameter")
    t.add_column("default")
    t.add_column("accepts")
    t.add_column("meaning")
    for p in found["params"]:
        t.add_row(p["name"], p["default"], p["accepts"], p["doc"])
    if not found["params"]:
        t.add_row("(none)", "", "", "")
    console.print(t)


class _RichReporter(_jobs.Reporter):
    def __init__(self, console: Console, label: str = "sweep", each: bool = True) -> None:
        self.console = console
        self.each = each
        self.progress = Progress(
            SpinnerColumn(),
            TextColumn(f"[bold]{label}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("eta"),
            TimeRemainingColumn(),
            console=console,
        )
        self.task: TaskID | None = None

    def start(self, total: int, skipped: int) -> None:
        if skipped:
            self.console.print(f"{skipped} of {total} runs already finished: skipped")
        self.progress.start()
        self.task = self.progress.add_task("sweep", total=total, completed=skipped)

    def done(self, run_id: str, ok: bool, message: str = "") -> None:
        if ok:
            if self.each:
                self.progress.console.print(f"done {run_id} ({message})")
        else:
            self.progress.console.print(f"[red]failed[/] {run_id}: {message}")
        if self.task is not None:
            self.progress.advance(self.task)

    def stop(self) -> None:
        self.progress.stop()


def _cluster_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """--scheduler and --cluster: run on Dask instead of the local process pool."""
    f = click.option(
        "--cluster",
        type=click.Choice(_jobs.CLUSTERS),
        default=None,
        help="Start a Dask cluster of --jobs workers: here (local) or as batch jobs "
        "(slurm, pbs; docs/cluster.md).",
    )(f)
    return click.option(
        "--scheduler",
        metavar="ADDRESS",
        default=None,
        help="Run on the existing Dask cluster whose scheduler is at ADDRESS (tcp://host:8786).",
    )(f)


@contextmanager
def _executor(
    jobs: int | None, scheduler: str | None, cluster: str | None, runs: int
) -> Iterator[_jobs.Executor]:
    """The executor of --jobs (default: one per CPU), --scheduler or --cluster."""
    if scheduler and jobs is not None:
        # the cluster's workers run the jobs: a --jobs here would be silently ignored
        raise CliError("--jobs: not with --scheduler, whose cluster decides how many run at once")
    jobs = jobs or os.cpu_count() or 1
    # Only the executor's start-up is a usage error; what its runs raise passes through.
    stack = ExitStack()
    try:
        ex = stack.enter_context(_jobs.executor(jobs, scheduler, cluster, runs))
    except (ValueError, RuntimeError) as e:
        raise CliError(str(e)) from None
    with stack:
        yield ex


def _exit_on_failed_runs(failed: Mapping[str, str], what: str) -> None:
    """Report failed runs and exit: 3 if any was an engine bug (``InternalError``), else 1."""
    if not failed:
        return
    internal = False
    for run_id, message in failed.items():
        internal |= message.startswith("InternalError:")
        kind = "internal error" if message.startswith("InternalError:") else "error"
        click.echo(f"{kind}: {what} {run_id}: {message}", err=True)
    if internal:
        click.echo(
            "An internal error is a bug in airlab, not in the scenario; please report it with "
            "the scenario and the command.",
            err=True,
        )
        sys.exit(EXIT_INTERNAL)
    click.echo(f"{len(failed)} runs failed; run the same command again to retry them", err=True)
    sys.exit(1)


@cli.command()
@click.argument("scenario")
@click.option(
    "--set",
    "sets",
    multiple=True,
    metavar="KEY=V1,V2,...",
    help="A swept key and its comma-separated values (repeatable).",
)
@click.option(
    "--seeds",
    type=click.IntRange(1, _sweep.MAX_RUNS),
    default=None,
    help="Run every grid point with seeds 1..N [default: 1]; or list them: --set seed=5,6.",
)
@click.option(
    "--jobs",
    "-j",
    type=click.IntRange(min=1),
    default=None,
    help=f"Parallel runs [default: number of CPUs; at most {_checks.JOBS_PER_CPU} per CPU, "
    "except as batch jobs with --cluster].",
)
@click.option(
    "--out", type=click.Path(file_okay=False), required=True, help="Sweep directory (resumable)."
)
@_cluster_options
def sweep(
    scenario: str,
    sets: tuple[str, ...],
    seeds: int | None,
    jobs: int | None,
    out: str,
    scheduler: str | None,
    cluster: str | None,
) -> None:
    """Run SCENARIO over a grid of --set values and seeds; one row per run in sweep.parquet."""
    console = _console()
    try:
        grid, listed = _sweep.take_seeds(_sweep.parse_grid(sets))
        if listed is not None and seeds is not None:
            raise ValueError("give the seeds either as --seeds N or as --set seed=..., not both")
        run_seeds = listed if listed is not None else list(range(1, (seeds or 1) + 1))
        runs = _sweep.check_size(grid, len(run_seeds))
        todo = _sweep.expand(grid, run_seeds, scenario)
        _sweep.check_out_dir(_out_dir(out), scenario, todo, "--out")
    except ValueError as e:
        raise CliError(str(e)) from None
    with _executor(jobs, scheduler, cluster, runs) as ex:
        console.print(f"running on {ex.describe()}")
        outcome = _sweep.run_sweep(
            scenario, grid, run_seeds, out, reporter=_RichReporter(console), executor=ex
        )
    finished = outcome.skipped + len(outcome.executed)
    console.print(
        f"{len(outcome.executed)} runs executed, {outcome.skipped} skipped, "
        f"{len(outcome.failed)} failed; {finished}/{outcome.total} in {outcome.table}"
    )
    if outcome.interrupted:
        click.echo(f"interrupted: {finished} finished runs kept in {out}", err=True)
        sys.exit(EXIT_INTERRUPTED)
    _exit_on_failed_runs(outcome.failed, "run")


@cli.command()
@click.argument("names", nargs=-1)
@click.option(
    "--repeat",
    type=click.IntRange(min=1),
    default=3,
    show_default=True,
    help="Runs per scenario; the fastest is reported.",
)
@click.option("--record", is_flag=True, help="Write bench/results.json and bench/RESULTS.md.")
@click.option(
    "--dir",
    "bench_dir",
    type=click.Path(file_okay=False),
    default="bench",
    show_default=True,
    help="Where --record writes.",
)
def bench(names: tuple[str, ...], repeat: int, record: bool, bench_dir: str) -> None:
    """Measure engine speed on named scenarios [default: the built-in speed scenarios]."""
    from airlab import bench as _bench

    if record:
        _out_dir(bench_dir, "--dir")
    console = _console()
    names_list = list(names) or _bench.DEFAULT_SCENARIOS
    t = Table(title=f"Benchmark (fastest of {repeat})", title_justify="left", title_style="bold")
    for col in (
        "scenario",
        "sim s",
        "events",
        "wall s",
        "M events/s",
        "sim s / wall s",
        "M packets / wall s",
    ):
        t.add_column(col, justify="left" if col == "scenario" else "right")

    def show(r: dict[str, Any]) -> None:
        console.print(f"{r['scenario']}: {r['events_per_s'] / 1e6:.2f} M events/s")
        t.add_row(
            r["scenario"],
            fmt(r["duration_s"]),
            fmt(r["events"]),
            fmt(r["wall_s"]),
            fmt(r["events_per_s"] / 1e6),
            fmt(r["sim_s_per_wall_s"]),
            fmt(r["packets_per_wall_s"] / 1e6),
        )

    results = _bench.run_bench(names_list, repeat, on_result=show)
    console.print(t)
    if record:
        d = _bench.record(results, bench_dir)
        console.print(f"recorded in {d / 'results.json'} and {d / 'RESULTS.md'}")


@cli.command()
@click.argument("paper")
@click.option("--quick", is_flag=True, help="Fewer seeds, shorter runs, fewer sweep points.")
@click.option(
    "--jobs",
    type=click.IntRange(min=1),
    default=None,
    help=f"Worker processes (or Dask workers with --cluster) [default: number of CPUs]; at most "
    f"{_checks.JOBS_PER_CPU} per CPU, except as batch jobs with --cluster.",
)
@click.option(
    "--out", type=click.Path(file_okay=False), default=None,
    help="Output directory [default: results/reproduce-<paper>, with --quick "
    "results/reproduce-<paper>-quick].",
)  # fmt: skip
@_cluster_options
def reproduce(
    paper: str,
    quick: bool,
    jobs: int | None,
    out: str | None,
    scheduler: str | None,
    cluster: str | None,
) -> None:
    """Run every experiment of a seed PAPER (e.g. fairtt), draw its figures, compare numbers.

    Writes DIR/report.html, DIR/targets.json (paper vs airlab per number), DIR/figures/ and
    DIR/runs/ (one file per finished run: rerunning resumes).
    """
    from airlab import reproduce as _repro
    from airlab.reproduce import runner

    try:
        mod = _repro.paper(paper)
    except KeyError as e:
        raise CliError(str(e.args[0])) from None
    console = _console()
    default = Path("results") / f"reproduce-{paper}{'-quick' if quick else ''}"
    out_dir = _out_dir(default if out is None else out)
    todo = mod.jobs(quick)
    with _executor(jobs, scheduler, cluster, len(todo)) as ex:
        console.print(f"[bold]{mod.TITLE}[/]: {len(todo)} runs on {ex.describe()} -> {out_dir}")
        outcome = _jobs.run_jobs(
            todo,
            out_dir,
            ex,
            runner.keep_for(mod),
            _RichReporter(console, "reproduce", each=False),
        )
    if outcome.interrupted:
        click.echo(f"interrupted: {len(outcome.records)} finished runs kept in {out_dir}", err=True)
        sys.exit(EXIT_INTERRUPTED)
    _exit_on_failed_runs(outcome.failed, "run")
    analysis = mod.analyze(outcome.records, out_dir, quick)
    _io.write_text(out_dir / "report.html", mod.report(analysis, out_dir, quick))
    t = Table(title="Paper vs airlab", title_justify="left", title_style="bold")
    for col in ("variant", "experiment", "metric", "paper", "airlab", "status", "informative"):
        t.add_column(col)
    rows = [tg for s in analysis["sections"] for tg in s["targets"]]
    for tg in rows:
        t.add_row(
            tg.variant, tg.experiment, tg.metric, fmt(tg.paper), fmt(tg.airlab), tg.status,
            "yes" if tg.informative else f"no: {tg.uninformative}",
        )  # fmt: skip
    console.print(t)
    console.print(f"[bold]score[/]: {runner.score(rows, analysis.get('readings', ()))}")
    console.print(
        f"report: [bold]{out_dir / 'report.html'}[/], targets: {out_dir / 'targets.json'}"
    )


@cli.command()
@click.argument("scenario", required=False)
@click.option("--unknown", "unknowns", multiple=True, metavar="KEY=LOW..HIGH",
              help="A key the paper leaves open and its plausible range, e.g. "
              "link.bottleneck.loss=1e-5..1e-2,log (repeatable).")  # fmt: skip
@click.option("--goal", "goals", multiple=True, metavar="METRIC=VALUE±TOL",
              help="A summary metric (or the ratio of two, A/B) and the value it should have, "
              "e.g. flow.f1.goodput_mbps=9.5±0.2 or ...=40+-10% (repeatable).")  # fmt: skip
@click.option("--spec", type=click.Path(dir_okay=False), default=None,
              help="A calibration declared in a TOML file (scenario, [set], [[unknown]], "
              "[[goal]], budget) instead of the arguments.")  # fmt: skip
@click.option("--paper", default=None, metavar="NAME",
              help="A reproduced paper's own calibration "
              "(airlab/reproduce/calibrations/<paper>.toml).")  # fmt: skip
@click.option("--set", "sets", multiple=True, metavar="KEY=VALUE",
              help="A fixed override beside the unknowns (repeatable).")  # fmt: skip
@click.option("--samples", type=click.IntRange(2, 4096), default=16, show_default=True,
              help="Samples per round (a Latin hypercube over the box).")  # fmt: skip
@click.option("--rounds", type=click.IntRange(1, 16), default=2, show_default=True,
              help="Rounds; each samples inside the box the holding samples span.")  # fmt: skip
@click.option("--seeds", type=click.IntRange(1, 100), default=1, show_default=True,
              help="Runs per sample (seeds 1..N); a sample's metric is their mean.")  # fmt: skip
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None,
              help="Parallel runs [default: number of CPUs].")  # fmt: skip
@click.option("--out", type=click.Path(file_okay=False), required=True,
              help="Output directory (resumable).")  # fmt: skip
@_cluster_options
def calibrate(
    scenario: str | None,
    unknowns: tuple[str, ...],
    goals: tuple[str, ...],
    spec: str | None,
    paper: str | None,
    sets: tuple[str, ...],
    samples: int,
    rounds: int,
    seeds: int,
    jobs: int | None,
    out: str,
    scheduler: str | None,
    cluster: str | None,
) -> None:
    """Find where SCENARIO's unknown keys must lie for the goals to hold.

    Samples the box of --unknown ranges, runs every sample (on the local pool or a Dask
    cluster), and reports per unknown the interval where every --goal holds, whether it touches
    the range's edge, the best sample and each goal's sensitivity to each unknown. Writes
    DIR/calibration.json, DIR/samples.parquet and DIR/runs/ (a rerun resumes). With --spec or
    --paper, the declaration (and its budget) comes from the file instead.
    """
    from airlab import calibrate as _cal
    from airlab.reproduce import calibration_file

    console = _console()
    try:
        if (spec or paper) and (scenario or unknowns or goals or sets):
            raise ValueError("give SCENARIO with --unknown/--goal/--set, or --spec/--paper alone")
        if spec and paper:
            raise ValueError("give --spec or --paper, not both")
        if spec or paper:
            decl = _cal.load_spec(spec or calibration_file(str(paper)))
        elif not (scenario and unknowns and goals):
            raise ValueError("expected SCENARIO with at least one --unknown and one --goal "
                             "(or --spec FILE, or --paper NAME)")  # fmt: skip
        else:
            decl = _cal.Spec(
                scenario,
                [_cal.parse_unknown(u) for u in unknowns],
                [_cal.parse_goal(g) for g in goals],
                dict(_sweep.parse_set(x) for x in sets),
                samples,
                rounds,
                seeds,
            )
        out_dir = _out_dir(out)
    except ValueError as e:
        raise CliError(str(e)) from None
    runs = decl.samples * decl.rounds * decl.seeds
    with _executor(jobs, scheduler, cluster, decl.samples * decl.seeds) as ex:
        console.print(f"[bold]calibrate[/] {decl.scenario}: {decl.rounds} rounds of "
                      f"{decl.samples} samples x {decl.seeds} seeds ({runs} runs) on "
                      f"{ex.describe()} -> {out_dir}")  # fmt: skip
        try:
            c = _cal.calibrate_spec(decl, out_dir, ex,
                                    _RichReporter(console, "calibrate", each=False))  # fmt: skip
        except (ValueError, RuntimeError) as e:
            raise CliError(str(e)) from None
        except KeyboardInterrupt:
            click.echo(f"interrupted: finished runs kept in {out_dir}", err=True)
            sys.exit(EXIT_INTERRUPTED)
    t = Table(title="Calibration", title_justify="left", title_style="bold")
    for col in ("unknown", "declared", "region", "best", "at the edge"):
        t.add_column(col)
    for u in c.unknowns:
        reg = c.region[u.key]
        t.add_row(u.key, f"{u.text(u.low)}..{u.text(u.high)}",
                  f"{u.text(reg[0])}..{u.text(reg[1])}" if reg else "none holds",
                  u.text(c.best[u.key]), "yes" if u.key in c.at_edge else "")  # fmt: skip
    console.print(t)
    s = Table(title="Sensitivity (Spearman; change over the range, in tolerances)",
              title_justify="left", title_style="bold")  # fmt: skip
    s.add_column("goal")
    for u in c.unknowns:
        s.add_column(u.key)
    for g in c.goals:
        cells = [c.sensitivity[g.metric][u.key] for u in c.unknowns]
        text = [f"{fmt(x['spearman'])}; {fmt(x['span_in_tolerances'])}" for x in cells]
        s.add_row(f"{g.metric} = {fmt(g.value)} ± {fmt(g.tol)}", *text)
    console.print(s)
    console.print(f"{int(c.samples['holds'].sum())} of {len(c.samples)} samples hold every goal; "
                  f"results: {out_dir / 'calibration.json'}")  # fmt: skip


#: Analytical models ``airlab model`` solves, each a module with ``Setting`` and ``solve``.
MODELS = ("bbr-wifi6",)


@cli.command()
@click.argument("name", type=click.Choice(MODELS))
@click.option("--set", "sets", multiple=True, metavar="KEY=VALUE",
              help="A setting of the model, e.g. --set aqm=fq_codel (repeatable).")  # fmt: skip
@click.option(
    "--out", type=click.Path(file_okay=False), default=None,
    help="Output directory [default: results/model-<name>].",
)  # fmt: skip
def model(name: str, sets: tuple[str, ...], out: str | None) -> None:
    """Solve the analytical model NAME (bbr-wifi6: paper 000's MU-OFDMA service rate and
    BBRv3/CUBIC fluid model under pfifo, fq_codel or cake) and write its trajectories.

    Writes DIR/series.parquet (per flow, every 10 ms: rate, throughput, queue, RTT, cwnd, loss),
    DIR/summary.json (the setting, the bottleneck and each flow's steady state) and
    DIR/model.png. Keys: aqm, pattern (uplink, downlink), mcs, shaper_mbps, tau_min_ms,
    duration_s, warmup_s, bbr_reading (cwnd_limited, printed), min_rtt (propagation, filtered).
    """
    from airlab import plots
    from airlab.model import bbr_wifi6

    items = {}
    for item in sets:
        key, eq, value = item.partition("=")
        if not eq or not key:
            raise CliError(f"--set {item!r}: expected KEY=VALUE")
        items[key.strip()] = value.strip()
    try:
        setting = bbr_wifi6.Setting.parse(items)
    except ValueError as e:
        raise CliError(f"--set: {e}") from None
    out_dir = _out_dir(Path("results") / f"model-{name}" if out is None else out)
    console = _console()
    console.print(f"[bold]{name}[/]: {setting}")
    res = bbr_wifi6.solve(setting)
    out_dir.mkdir(parents=True, exist_ok=True)
    # no seed (the model is deterministic); the digest is the setting's, in place of a scenario's
    made = _schema.provenance(None, _schema.scenario_digest(dataclasses.asdict(setting)))
    _io.write_parquet(out_dir / "series.parquet", res.series, made)
    _io.write_json(
        out_dir / "summary.json",
        {
            "provenance": made,
            "model": name,
            "setting": dataclasses.asdict(setting),
            "bottleneck_mbps": res.config.capacity_bps / 1e6,
            "wifi_capacity_mbps": bbr_wifi6.wifi_capacity_bps(setting.mcs) / 1e6,
            "flows": res.summary.to_dict(orient="records"),
        },
    )
    plots.plot_fluid(res, out_dir / "model.png")
    t = Table(title="Steady state (after the warm-up)", title_justify="left", title_style="bold")
    cols = ("flow", "throughput_mbps", "share", "rtt_ms_p50", "queue_pkts", "cwnd_kb_p50", "drops")
    for col in cols:
        t.add_column(col)
    for row in res.summary.to_dict(orient="records"):
        t.add_row(*(fmt(row[c]) for c in cols))
    console.print(t)
    console.print(f"written: {out_dir}/series.parquet, summary.json, model.png")


@cli.command()
@click.argument("inputs", nargs=-1, required=True, type=click.Path(exists=True))
@click.option(
    "--kind",
    "kinds",
    multiple=True,
    type=click.Choice(["cdf", "box", "ellipsis", "timeseries"]),
    help="Plot kind (repeatable) [default: all four].",
)
@click.option(
    "--out", type=click.Path(file_okay=False), required=True, help="Folder for the plots."
)
@click.option(
    "--format",
    "formats",
    multiple=True,
    type=click.Choice(["png", "svg", "pdf"]),
    help="Image format (repeatable) [default: png and pdf].",
)
@click.option("--labels", default=None, help="Comma-separated labels, one per dataset.")
@click.option("--flow", "flows", multiple=True, help="Only these flows' samples (repeatable).")
def plot(
    inputs: tuple[str, ...],
    kinds: tuple[str, ...],
    out: str,
    formats: tuple[str, ...],
    labels: str | None,
    flows: tuple[str, ...],
) -> None:
    """Flent-style plots of latency under load over result directories, sweep directories
    (a dataset per grid point) and Flent files: latency CDF, box plots, the ellipsis plot
    (latency against throughput) and time series."""
    from airlab import flentplots
    from airlab.flent import FlentError

    out_dir = _out_dir(out)
    try:
        sets = flentplots.datasets(inputs, labels.split(",") if labels else None, flows)
        written = []
        for kind in kinds or flentplots.KINDS:
            written += flentplots.render(kind, sets, out_dir, formats or ("png", "pdf"))
    except (ValueError, FileNotFoundError, FlentError) as e:
        raise CliError(str(e)) from None
    _console().print(f"{len(sets)} datasets; written: " + ", ".join(p.name for p in written))


@cli.command()
@click.argument("result", type=click.Path(exists=True, file_okay=False))
@click.option(
    "--out", type=click.Path(dir_okay=False), required=True, help="The file, e.g. run.flent.gz."
)
def export(result: str, out: str) -> None:
    """Write a result directory as a Flent data file (.flent.gz) that Flent's GUI and plots
    open (flent -i FILE -p totals -o totals.png)."""
    from airlab import flent
    from airlab.results import Result

    _out_file(out)
    if not (Path(result) / "summary.json").is_file():
        raise CliError(f"{result}: not a result directory (no summary.json)")
    try:
        path = flent.export(Result.load(result), out)
    except ValueError as e:
        raise CliError(str(e)) from None
    _console().print(f"written: {path} (open it with: flent -i {path} -p totals)")


@cli.command()
@click.argument("results", nargs=-1, required=True, type=click.Path(exists=True))
@click.option("--labels", default=None, help="Comma-separated labels, one per result.")
@click.option(
    "--out", type=click.Path(file_okay=False), default=None, help="Write compare.md/csv and plots."
)
@click.option("--no-plots", is_flag=True, help="Skip the PNG plots.")
def compare(results: tuple[str, ...], labels: str | None, out: str | None, no_plots: bool) -> None:
    """Set two or more results side by side (result directories or Flent files): each summary
    metric per flow, queue and link with its relative difference from the first, and overlaid
    time series."""
    from airlab import compare as _compare

    if len(results) < 2:
        raise click.UsageError("compare needs at least two result directories")
    out_dir = None if out is None else _out_dir(out)
    names = labels.split(",") if labels else None
    try:
        cmp = _compare.compare(*results, labels=names)
    except ValueError as e:
        raise CliError(str(e)) from None
    console = _console()
    t = Table(title="Comparison", title_justify="left", title_style="bold")
    for col in ["table", "name", "metric", *cmp.labels, *cmp.relative_columns]:
        t.add_column(col, justify="left" if col in ("table", "name", "metric") else "right")
    for k in range(len(cmp.table)):
        t.add_row(*cmp.cells(k))
    console.print(t)
    for line in cmp.notes():  # what the ⚠ beside a degraded testbed run's numbers means
        console.print(f"[yellow]{escape(line)}[/]", soft_wrap=True)
    if out_dir is not None:
        cmp.save(out_dir, plots=not no_plots)
        console.print(f"written to [bold]{out_dir}[/] (compare.md, compare.csv, plots)")


# -- the Linux testbed -----------------------------------------------------------------------------


#: `airlab testbed run --strict`: the run was degraded (its results are written all the same).
EXIT_DEGRADED = 4


class DegradedRun(CliError):
    exit_code = EXIT_DEGRADED


@cli.group()
def testbed() -> None:
    """Run wired scenarios on this machine's own kernel (needs root)."""


@testbed.command("run")
@_run_options("results/<scenario>-linux")
@click.option(
    "--offloads", is_flag=True, help="Keep segmentation offload (GSO) on: qdisc limits then "
    "count GSO super-packets, not packets."
)  # fmt: skip
@click.option(
    "--strict", is_flag=True, help="Make a degraded run (one that failed a fidelity check: "
    "its numbers are not the kernel's alone) an error: results are written, exit status 4."
)  # fmt: skip
def testbed_run(
    scenario: str,
    seed: int | None,
    sets: tuple[str, ...],
    out: str | None,
    no_plots: bool,
    offloads: bool,
    strict: bool,
) -> None:
    """Run SCENARIO on the kernel: namespaces, shapers, the scenario's qdiscs and real sockets.
    Writes the same files as `airlab run`, with `backend: "linux"` in summary.json and what
    the run measured of its own fidelity; a degraded run warns (with --strict: exit 4)."""
    import warnings

    from airlab import testbed as tb

    overrides = _overrides(sets)
    stem = Path(str(scenario)).stem
    out_dir = _out_dir(Path("results") / f"{stem}-linux" if out is None else out)
    done: list[Any] = []

    def run(progress: Any) -> Any:
        with warnings.catch_warnings():  # said below, as the command's own warning
            warnings.simplefilter("ignore", tb.DegradedRunWarning)
            res = tb.run(
                scenario, seed=seed, set=overrides, progress=progress, offloads=offloads,
                status=lambda text: click.echo(text, err=True),
            )  # fmt: skip
        done.append(res)
        return res

    try:
        _run_and_save(f"running {stem} on Linux", run, out_dir, plots=not no_plots)
    except (tb.TestbedError, tb.PlanError) as e:
        raise CliError(str(e)) from None
    fid = done[0].summary["fidelity"]
    if fid["degraded"]:
        click.secho(
            "warning: degraded run: these numbers are not the kernel's alone "
            "(summary.json: fidelity; docs/testbed.md):", fg="yellow", err=True,
        )  # fmt: skip
        for reason in fid["reasons"]:
            click.secho(f"  - {reason}", fg="yellow", err=True)
        if strict:
            raise DegradedRun(f"the run was degraded (--strict); its results are in {out_dir}")


@testbed.command("check")
def testbed_check() -> None:
    """What this kernel offers the testbed: privileges, CCs, qdiscs, TUN, TCP sysctls."""
    from airlab import testbed as tb

    console = _console()
    found = tb.check()
    t = Table(title=f"Linux {found['kernel']}", title_justify="left", title_style="bold")
    t.add_column("what")
    t.add_column("available")
    yes = lambda ok: "[green]yes[/]" if ok else "[red]no[/]"  # noqa: E731
    t.add_row("root (namespaces, qdiscs)", yes(found["root"]))
    t.add_row("TUN devices (the testbed's wire)", yes(found["tun"]))
    for cc, ok in found["congestion_controls"].items():
        t.add_row(f"congestion control {cc}", yes(ok))
    if found["qdiscs"] is None:
        t.add_row("qdiscs", "unknown: probing needs root")
    else:
        for q, ok in found["qdiscs"].items():
            t.add_row(f"qdisc {q}", yes(ok))
    for name, value in found["sysctls"].items():
        t.add_row(name, str(value))
    console.print(t)


@testbed.command("cleanup")
@click.option("--all", "everything", is_flag=True, help="Also what live runs made.")
def testbed_cleanup(everything: bool) -> None:
    """Remove what testbed runs that were killed left behind: their network namespaces (with
    their devices, qdiscs and routes) and their scratch directories."""
    from airlab import testbed as tb

    try:
        removed = tb.cleanup(everything=everything)
    except tb.TestbedError as e:
        raise CliError(str(e)) from None
    dirs = [r for r in removed if os.sep in r]
    names = ": " + ", ".join(removed) if removed else ""
    what = "scratch directory" if len(dirs) == 1 else "scratch directories"
    click.echo(f"removed {len(removed) - len(dirs)} namespace(s) and {len(dirs)} {what}{names}")


# -- entry point -----------------------------------------------------------------------------------


def _os_error(e: OSError) -> str:
    """``path: reason`` for an OSError, or the message it was raised with."""
    if e.strerror and e.filename is not None:
        return f"{os.fsdecode(e.filename)}: {e.strerror}"
    return str(e.args[0]) if len(e.args) == 1 else str(e)


def main(argv: Sequence[str] | None = None) -> None:
    """Console-script entry point: user errors exit 2 as ``error: ...``, an engine bug (a
    summary that breaks a physical invariant) exits 3 as ``internal error: ...``, Ctrl-C exits
    130."""
    try:
        code = cli.main(
            args=list(argv) if argv is not None else None, prog_name="airlab", standalone_mode=False
        )
    except (KeyboardInterrupt, click.Abort):
        click.echo("interrupted", err=True)
        sys.exit(EXIT_INTERRUPTED)
    except airlab.ScenarioError as e:
        click.echo(f"error: {e}", err=True)
        sys.exit(EXIT_USAGE)
    except airlab.InternalError as e:
        click.echo(
            f"internal error: {e}\nThis is a bug in airlab, not in your scenario; please report it "
            "with the scenario file and the command.",
            err=True,
        )
        sys.exit(EXIT_INTERNAL)
    except OSError as e:
        click.echo(f"error: {_os_error(e)}", err=True)
        sys.exit(EXIT_USAGE)
    except click.UsageError as e:
        msg = e.format_message()
        if e.ctx is not None:
            msg += f"\n(see `{e.ctx.command_path} --help`)"
        click.echo(f"error: {msg}", err=True)
        sys.exit(EXIT_USAGE)
    except click.ClickException as e:
        click.echo(f"error: {e.format_message()}", err=True)
        sys.exit(e.exit_code)
    sys.exit(code if isinstance(code, int) else 0)
