"""`airlab run`, `validate`, `schema` and `list`: run one scenario, check it, describe the
formats and list what there is."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.markup import escape
from rich.table import Table

import airlab
from airlab import _io
from airlab import schema as _schema
from airlab.cli.common import (
    SET_HELP,
    _console,
    _out_dir,
    _out_file,
    _overrides,
    _run_and_save,
    _run_options,
)
from airlab.engine import FAMILIES


@click.command()
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


@click.command()
@click.argument("scenario")
@click.option("--set", "sets", multiple=True, metavar="KEY=VALUE", help=SET_HELP)
def validate(scenario: str, sets: tuple[str, ...]) -> None:
    """Check SCENARIO without running it."""
    resolved = airlab.validate(scenario, set=_overrides(sets))
    click.echo(f"OK {scenario}: {_describe(resolved)}")


@click.command()
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


@click.command("list")
@click.option(
    "--params",
    "component",
    metavar="NAME",
    help="Show the parameters of one component (qdisc, congestion control, OFDMA scheduler, "
    "rate control, app), with defaults and units.",
)
def list_(component: str | None) -> None:
    """List the components (congestion controls, queue disciplines, OFDMA schedulers, rate
    controls, apps) and the built-in scenarios."""
    console = _console()
    if component is not None:
        _print_params(console, component)
        return
    comps = airlab.components()
    t = Table(title="Components", title_justify="left", title_style="bold")
    t.add_column("kind")
    t.add_column("available")
    for family, (what, _, _) in FAMILIES.items():
        t.add_row(what, ", ".join(comps[family]))
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
    _, written, place = FAMILIES[found["family"]]
    where = escape(f"{written.format(name=name)} {place}")
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
