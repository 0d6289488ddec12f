"""`airlab testbed run`, `check` and `cleanup`: the Linux testbed, which runs wired scenarios
on this machine's own kernel."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import click
from rich.table import Table

from airlab.cli.common import CliError, _console, _out_dir, _overrides, _run_and_save, _run_options

#: `airlab testbed run --strict`: the run was degraded (its results are written all the same).
EXIT_DEGRADED = 4


class DegradedRun(CliError):
    exit_code = EXIT_DEGRADED


@click.group()
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
