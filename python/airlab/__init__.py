"""airlab: a laboratory for TCP congestion control and queue management.

>>> import airlab
>>> res = airlab.run("basics/dumbbell-cubic", seed=3, set={"duration": "10s"})
>>> res.summary["jain_index"], res.flows.head()
>>> res.save("results/db")
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from airlab import _core
from airlab.locate import list_builtin, resolve
from airlab.results import Result

ScenarioError = _core.ScenarioError
__version__: str = _core.version()

Overrides = Mapping[str, object] | Iterable[tuple[str, object]] | None

__all__ = [
    "Result",
    "ScenarioError",
    "__version__",
    "components",
    "list_builtin",
    "resolve",
    "run",
    "run_text",
    "validate",
]


def _toml_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)  # a TOML basic string
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, Mapping):
        return "{ " + ", ".join(f"{k} = {_toml_value(v)}" for k, v in value.items()) + " }"
    raise TypeError(f"cannot write {type(value).__name__} as a scenario value")


def format_value(value: object) -> str:
    """How a Python value is written in a ``key=value`` override.

    The engine reads the text as a TOML value if it is one, else as a plain string, so strings
    pass through unchanged (``"10Mbit"``) and other values are written as TOML: ``True`` ->
    ``true``, ``{"kind": "pfifo", "limit": 20}`` -> ``{ kind = "pfifo", limit = 20 }``.
    """
    if isinstance(value, str):
        return value
    return _toml_value(value)


def overrides_list(overrides: Overrides) -> list[tuple[str, str]]:
    """Normalise overrides to the ``[(key, value_string), ...]`` the engine takes."""
    if overrides is None:
        return []
    items = overrides.items() if isinstance(overrides, Mapping) else overrides
    return [(str(k), format_value(v)) for k, v in items]


def _load(scenario: str | os.PathLike[str]) -> tuple[str, str]:
    path = resolve(scenario)
    return path.read_text(encoding="utf-8"), str(path)


def run(
    scenario: str | Path,
    seed: int | None = None,
    set: Overrides = None,
    progress: Callable[[float], object] | None = None,
) -> Result:
    """Run a scenario (a TOML path or a built-in name like ``basics/dumbbell-cubic``).

    ``seed`` overrides the scenario's seed; ``set`` overrides keys, e.g.
    ``{"duration": "5s", "link.bottleneck.qdisc.limit": 20}``. ``progress``, if given, is
    called with the fraction of simulated time done, about every simulated second; an
    exception it raises stops the run. Ctrl-C interrupts a run promptly. Raises
    ``ScenarioError`` for an invalid scenario and ``FileNotFoundError`` if the scenario cannot
    be found.
    """
    text, file = _load(scenario)
    raw = _core.run(text, file, overrides_list(set), seed, progress)
    return Result.from_core(raw, source=file)


def run_text(
    text: str,
    seed: int | None = None,
    set: Overrides = None,
    progress: Callable[[float], object] | None = None,
    name: str = "<scenario text>",
) -> Result:
    """Run a scenario given as TOML text, e.g. one built in a notebook or a test.

    ``name`` stands for the file in error messages; the other arguments are as for :func:`run`.
    """
    raw = _core.run(text, name, overrides_list(set), seed, progress)
    return Result.from_core(raw, source=None)


def validate(scenario: str | Path, set: Overrides = None) -> dict[str, Any]:
    """Check a scenario without running it; return the resolved scenario as a dict."""
    text, file = _load(scenario)
    return json.loads(_core.validate(text, file, overrides_list(set)))


def components() -> dict[str, list[str]]:
    """The registered congestion controls, queue disciplines and apps."""
    return {k: list(v) for k, v in _core.components().items()}
