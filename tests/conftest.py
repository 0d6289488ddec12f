"""Shared helpers. These tests drive the real engine (airlab._core): no skipping if it is absent."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

DATA = Path(__file__).parent / "data"
DUMBBELL = "basics/dumbbell-cubic"
SHORT = "duration=5s"  # keeps every run short


def data_text(name: str) -> str:
    """The text of the scenario ``tests/data/NAME.toml``: ``dumbbell`` (the 1 s, 10 Mbit/s
    dumbbell the engine's scenario checks use too), ``direct`` (two hosts on one link, a flow
    still without its app), ``wifi-cell`` (a server wired to an 802.11n cell), ``ax-cell`` (an
    802.11ax BSS of one station, as the engine's integration tests check keys on)."""
    return (DATA / f"{name}.toml").read_text()


def refused(proc: subprocess.CompletedProcess[str], *fragments: str) -> None:
    """``proc`` (the command line) refused its input as bad: exit status 2 and a one-line
    ``error: ...`` holding every fragment, never a traceback."""
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.stderr.startswith("error: "), proc.stderr
    for fragment in fragments:
        assert fragment in proc.stderr, (fragment, proc.stderr)


def set_at(path: str, value: Any) -> Callable[[Any], None]:
    """An edit of a JSON document (a summary, a run record) setting the value at ``path``
    (``flows.0.goodput_mbps``: keys, and indexes into lists) to ``value``."""

    def edit(doc: Any) -> None:
        *parents, last = path.split(".")
        node: Any = doc
        for part in parents:
            node = node[int(part)] if part.isdigit() else node[part]
        node[last] = value

    return edit


def _terminal_sigint() -> None:
    """SIGINT at its default action, as a terminal delivers Ctrl-C. A test runner started as a
    background job without job control (``cmd &`` in a script) ignores SIGINT, and its
    children inherit that, so Python would never raise KeyboardInterrupt in them."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)


def interruptible(args: list[str], cwd: Path) -> subprocess.Popen[str]:
    """Start ``args`` in ``cwd`` as a shell would for a user who may press Ctrl-C: unbuffered
    output on pipes, SIGINT at its default action."""
    return subprocess.Popen(
        args,
        cwd=cwd,
        env=dict(os.environ, PYTHONUNBUFFERED="1"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_terminal_sigint,
    )


@pytest.fixture
def cli(tmp_path: Path):
    """Run ``python -m airlab ARGS`` in a fresh directory, as a user would from a shell."""

    def run(*args: str, timeout: float = 120, check: bool = False):
        env = dict(os.environ, PYTHONUNBUFFERED="1", COLUMNS="160")
        proc = subprocess.run(
            [sys.executable, "-m", "airlab", *args],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=timeout,
            env=env,
        )
        if check and proc.returncode != 0:
            raise AssertionError(
                f"airlab {' '.join(args)} exited {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
            )
        return proc

    return run
