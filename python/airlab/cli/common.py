"""What the ``airlab`` commands share: errors and exit statuses, ``--set`` parsing, output
paths, the console, summary tables, progress reporting and the executor options.

The command modules import from here, never from ``airlab.cli`` itself (whose ``__init__``
imports them to register their commands)."""

from __future__ import annotations

import os
import sys
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
from airlab import _checks
from airlab import jobs as _jobs
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


# -- running one scenario (`airlab run`, `airlab testbed run`) -----------------------------------


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


# -- many runs (`airlab sweep`, `reproduce`, `calibrate`) ----------------------------------------


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
