"""`airlab plot`, `export` and `compare`: what to do with results once they are written."""

from __future__ import annotations

from pathlib import Path

import click
from rich.markup import escape
from rich.table import Table

from airlab.cli.common import CliError, _console, _out_dir, _out_file


@click.command()
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


@click.command()
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


@click.command()
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
