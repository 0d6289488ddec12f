"""airlab: a laboratory for TCP congestion control and queue management.

>>> import airlab
>>> res = airlab.run("basics/dumbbell-cubic", seed=3, set={"duration": "10s"})
>>> res.summary["jain_index"], res.flows.head()
>>> res.save("results/db")
>>> sw = airlab.Sweep.run("aqm/bufferbloat-fq_codel", seeds=3, out="results/sweep",
...                       set={"link.bottleneck.qdisc.kind": ["pfifo", "cake"]})
>>> sw.flows  # one row per run and flow
"""

from __future__ import annotations

import json
import math
import numbers
import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from airlab import _core
from airlab.locate import list_builtin, resolve
from airlab.results import Result
from airlab.sweep import Sweep

ScenarioError = _core.ScenarioError
__version__: str = _core.version()

Overrides = Mapping[str, object] | Iterable[tuple[str, object]] | None

__all__ = [
    "Result",
    "ScenarioError",
    "Sweep",
    "TomlText",
    "__version__",
    "components",
    "list_builtin",
    "params",
    "resolve",
    "run",
    "run_text",
    "validate",
]


class TomlText(str):
    """An override value given as the text of a TOML value, as ``--set key=value`` takes it:
    the engine reads it as TOML if it is TOML (``"20"`` is a number, ``"{ kind = \"pfifo\" }"``
    a table) and as a plain string otherwise. The command line, sweeps and reproductions pass
    their ``key=value`` text this way; a plain ``str`` in ``set=`` is always a string.
    """


def _toml_value(value: object, key: str) -> str:
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        x = float(value)
        if not math.isfinite(x):
            raise ValueError(f"set {key}: {x} is not a number a scenario can hold")
        return repr(x)
    if isinstance(value, str):
        return json.dumps(value)  # a TOML basic string
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v, key) for v in value) + "]"
    if isinstance(value, Mapping):
        return "{ " + ", ".join(f"{k} = {_toml_value(v, key)}" for k, v in value.items()) + " }"
    raise TypeError(f"set {key}: cannot write a {type(value).__name__} as a scenario value")


def format_value(value: object, key: str = "") -> str:
    """How a Python value is written in a ``key=value`` override.

    :class:`TomlText` passes through unchanged; every other value is written as TOML: strings
    as strings (``"10Mbit"``, ``"123"``), ``True`` -> ``true``, numpy numbers as numbers,
    ``{"kind": "pfifo", "limit": 20}`` -> ``{ kind = "pfifo", limit = 20 }``.
    """
    if isinstance(value, TomlText):
        return str(value)
    return _toml_value(value, key)


def _engine_text(text: str, what: str) -> str:
    """``text`` if the engine can take it (UTF-8), else a ValueError naming ``what``."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        shown = text.encode("utf-8", "backslashreplace").decode("utf-8")
        raise ValueError(f"{what} {shown!r} is not valid UTF-8 text") from None
    return text


def overrides_list(overrides: Overrides) -> list[tuple[str, str]]:
    """Normalise overrides to the ``[(key, value_string), ...]`` the engine takes."""
    if overrides is None:
        return []
    items = overrides.items() if isinstance(overrides, Mapping) else overrides
    out = []
    for k, v in items:
        key = _engine_text(str(k), "set: the key")
        out.append((key, _engine_text(format_value(v, key), f"set {key}: the value")))
    return out


MAX_SEED = 2**64 - 1


def _seed(seed: int | None) -> int | None:
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise TypeError(f"seed: expected an integer from 0 to 2**64 - 1, got {seed!r}")
    if not 0 <= int(seed) <= MAX_SEED:
        raise ValueError(f"seed: expected an integer from 0 to 2**64 - 1, got {seed}")
    return int(seed)


def _load(scenario: str | os.PathLike[str]) -> tuple[str, str]:
    path = resolve(scenario)
    name = os.fsdecode(path).encode("utf-8", "backslashreplace").decode("utf-8")
    return _read_scenario_text(path, name), name


def _read_scenario_text(path: Path, name: str) -> str:
    """The text of a scenario file; ``ScenarioError`` naming the file if it is not UTF-8."""
    data = path.read_bytes()
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise ScenarioError(f"{name}: the file is UTF-16 text; save it as UTF-8")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise ScenarioError(
            f"{name}: the file is not UTF-8 text (byte 0x{data[e.start]:02x} on line {line}); "
            "save it as UTF-8"
        ) from None


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
    raw = _core.run(text, file, overrides_list(set), _seed(seed), progress)
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
    raw = _core.run(text, name, overrides_list(set), _seed(seed), progress)
    return Result.from_core(raw, source=None)


def validate(scenario: str | Path, set: Overrides = None) -> dict[str, Any]:
    """Check a scenario without running it; return the resolved scenario as a dict."""
    text, file = _load(scenario)
    return json.loads(_core.validate(text, file, overrides_list(set)))


def components() -> dict[str, list[str]]:
    """The registered congestion controls, queue disciplines and apps."""
    return {k: list(v) for k, v in _core.components().items()}


def params(name: str) -> dict[str, Any]:
    """The parameters of a queue discipline or congestion control, as its own file declares
    them: ``{"name", "family" ("qdisc" or "cc"), "doc", "params": [{"name", "accepts",
    "default", "doc"}]}``. Defaults are written as a scenario file writes them ("5ms").
    Raises ``KeyError`` naming the registered components for an unknown name.
    """
    found = _core.params(name)
    if found is None:
        comps = _core.components()
        known = ", ".join([*comps["qdisc"], *comps["cc"]])
        raise KeyError(
            f"no qdisc or congestion control is called {name!r}; expected one of: {known}"
        )
    family, doc, rows = found
    keys = ("name", "accepts", "default", "doc")
    params = [dict(zip(keys, row, strict=True)) for row in rows]
    return {"name": name, "family": family, "doc": doc, "params": params}
