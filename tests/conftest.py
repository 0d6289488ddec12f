"""Shared helpers. These tests drive the real engine (airlab._core): no skipping if it is absent."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"
DUMBBELL = "basics/dumbbell-cubic"
SHORT = "duration=5s"  # keeps every run short


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
