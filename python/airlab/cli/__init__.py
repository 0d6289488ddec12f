"""The ``airlab`` command line: run, validate, list, sweep, bench.

The group and the entry point live here; the commands live in modules by what a user does
with them (``scenarios``, ``studies``, ``results``, ``linux``) and what they share in
``common``. Each command module imports ``common`` only; this module imports them all and
registers their commands on the group."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

import click

import airlab
from airlab.cli.common import (
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_USAGE,
    SET_HELP,
    CliError,
    print_batch_means,
    print_summary,
)
from airlab.cli.linux import (
    EXIT_DEGRADED,
    DegradedRun,
    testbed,
    testbed_check,
    testbed_cleanup,
    testbed_run,
)
from airlab.cli.results import compare, export, plot
from airlab.cli.scenarios import list_, run, schema, validate
from airlab.cli.studies import MODELS, bench, calibrate, model, reproduce, sweep

__all__ = [
    "EXIT_DEGRADED",
    "EXIT_INTERNAL",
    "EXIT_INTERRUPTED",
    "EXIT_USAGE",
    "MODELS",
    "SET_HELP",
    "CliError",
    "DegradedRun",
    "bench",
    "calibrate",
    "cli",
    "compare",
    "export",
    "list_",
    "main",
    "model",
    "plot",
    "print_batch_means",
    "print_summary",
    "reproduce",
    "run",
    "schema",
    "sweep",
    "testbed",
    "testbed_check",
    "testbed_cleanup",
    "testbed_run",
    "validate",
]


# -- commands --------------------------------------------------------------------------------------


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(airlab.__version__, prog_name="airlab")
def cli() -> None:
    """airlab: a laboratory for TCP congestion control and queue management."""


cli.add_command(run)
cli.add_command(validate)
cli.add_command(schema)
cli.add_command(list_)
cli.add_command(sweep)
cli.add_command(bench)
cli.add_command(reproduce)
cli.add_command(calibrate)
cli.add_command(model)
cli.add_command(plot)
cli.add_command(export)
cli.add_command(compare)
cli.add_command(testbed)


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
