"""`airlab sweep`, `bench`, `reproduce`, `calibrate` and `model`: studies of many runs (and
the analytical models)."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path
from typing import Any

import click
from rich.table import Table

from airlab import _checks, _io
from airlab import jobs as _jobs
from airlab import schema as _schema
from airlab import sweep as _sweep
from airlab.cli.common import (
    EXIT_INTERRUPTED,
    CliError,
    _cluster_options,
    _console,
    _executor,
    _exit_on_failed_runs,
    _out_dir,
    _RichReporter,
)
from airlab.report import fmt


@click.command()
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


@click.command()
@click.argument("names", nargs=-1)
@click.option("--repeat", type=click.IntRange(min=1), default=3, show_default=True,
              help="Runs per scenario; the fastest is reported.")  # fmt: skip
@click.option(
    "--against",
    metavar="REF",
    default=None,
    help="Compare this working tree's engine CPU time with commit REF's (built once under "
    "target/bench-ref/), interleaved round by round; reports ratios.",
)
@click.option("--rounds", type=click.IntRange(min=1), default=7, show_default=True,
              help="With --against: rounds of both builds on every scenario; the median ratio "
              "is reported.")  # fmt: skip
@click.option("--record", is_flag=True, help="Write bench/results.json and bench/RESULTS.md.")
@click.option(
    "--dir",
    "bench_dir",
    type=click.Path(file_okay=False),
    default="bench",
    show_default=True,
    help="Where --record writes.",
)
def bench(
    names: tuple[str, ...],
    repeat: int,
    against: str | None,
    rounds: int,
    record: bool,
    bench_dir: str,
) -> None:
    """Measure engine speed on named scenarios [default: the built-in speed scenarios].

    With --against REF: CPU-time ratios of this build over REF's, the two measured interleaved
    in one run (the way to claim a speed-up or find a regression on a shared machine).
    """
    from airlab import bench as _bench

    if record:
        _out_dir(bench_dir, "--dir")
    console = _console()
    names_list = list(names) or _bench.DEFAULT_SCENARIOS
    if against is not None:
        _bench_against(console, against, names_list, rounds, bench_dir if record else None)
        return
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


def _bench_against(
    console: Any, ref: str, names: list[str], rounds: int, record_dir: str | None
) -> None:
    from airlab import bench as _bench
    from airlab import bench_against as ba

    def say(msg: str) -> None:
        console.print(f"[dim]{msg}[/]")

    try:
        repo = ba.checkout()
        reference = ba.reference_build(ref, repo, say)
        ours = ba.this_build(repo, say)
    except ba.BenchError as e:
        raise CliError(str(e)) from None
    console.print(
        f"[bold]{ours.label}[/] against [bold]{reference.label}[/]: {len(names)} scenarios, "
        f"{rounds} rounds, interleaved"
    )
    with console.status("") as status:

        def progress(done: int, total: int) -> None:
            status.update(f"round {done} of {total} done")

        comparison = ba.compare(ours, reference, names, rounds, on_round=progress)
    t = Table(
        title=f"CPU time of {ours.label} / {reference.label} (median of {rounds} rounds)",
        title_justify="left",
        title_style="bold",
    )
    for col in ("scenario", "ratio", "min-max", "CPU s", "CPU s ref", "events / ref", "note"):
        t.add_column(col, justify="left" if col in ("scenario", "note") else "right")
    for s in comparison.as_dict()["scenarios"]:
        if "missing" in s:
            t.add_row(s["scenario"], "", "", "", "", "", s["missing"])
            continue
        t.add_row(
            s["scenario"],
            f"{s['ratio']:.3f}",
            f"{s['ratio_min']:.2f}-{s['ratio_max']:.2f}",
            f"{s['cpu_s']:.3f}",
            f"{s['cpu_s_reference']:.3f}",
            f"{s['events'] / s['events_reference']:.3f}",
            "" if s["same_scenario_file"] else "scenario file differs",
        )
    console.print(t)
    console.print(
        f"the rest of the machine used {comparison.others_cores:.2f} cores (median), steal "
        f"{comparison.steal:.1%}"
    )
    if comparison.degraded:
        console.print(f"[bold yellow]degraded:[/] {comparison.degraded}; not a measurement")
    if record_dir is not None:
        d = _bench.record_comparison(comparison, record_dir)
        console.print(f"recorded in {d / 'results.json'} and {d / 'RESULTS.md'}")


@click.command()
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


@click.command()
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


@click.command()
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
