"""Running a scenario on the engine (the core of the Python package): reading a scenario file,
writing override values as the engine reads them, and :func:`run`, :func:`run_text`,
:func:`validate`, :func:`components` and :func:`params`. ``airlab`` re-exports each; modules
of the package import them from here, not from the package top."""

from __future__ import annotations

import json
import math
import numbers
import os
import re
import sys
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from airlab import _checks, _core
from airlab.locate import resolve
from airlab.results import Result

ScenarioError = _core.ScenarioError
InternalError = _core.InternalError


class ScenarioFileError(ScenarioError, OSError):
    """A scenario file that cannot be found or read, named in the message. A
    :class:`ScenarioError`, so one ``except`` catches every unusable scenario, and an
    ``OSError`` (as a missing scenario's ``FileNotFoundError`` was before)."""


ScenarioFileError.__module__ = "airlab"

Overrides = Mapping[str, object] | Iterable[tuple[str, object]] | None


class TomlText(str):
    """An override value as the text ``--set key=value`` takes. Every ``str`` override is read
    that way now, so this is a plain ``str``; it stays for code written when a ``str`` was
    always a TOML string."""


TomlText.__module__ = "airlab"


#: TOML's short escapes in a basic string; other control characters are written as \uXXXX.
_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "\b": "\\b",
    "\t": "\\t",
    "\n": "\\n",
    "\f": "\\f",
    "\r": "\\r",
}
_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


def _toml_string(text: str, key: str) -> str:
    """``text`` as a TOML basic string (JSON's escapes are not all TOML's: DEL must be escaped
    and surrogates cannot be)."""
    _engine_text(text, f"set {key}: the string")
    escaped = (
        _ESCAPES.get(c) or (f"\\u{ord(c):04x}" if c < " " or c == "\x7f" else c) for c in text
    )
    return '"' + "".join(escaped) + '"'


def _is_bool(value: object) -> bool:
    """A Python or numpy bool. A numpy value exists only once numpy is imported, so numpy
    is looked up, not imported (``import airlab`` does not load it)."""
    np = sys.modules.get("numpy")
    return isinstance(value, bool) or (np is not None and isinstance(value, np.bool_))


def _toml_value(value: object, key: str) -> str:
    if _is_bool(value):
        return "true" if value else "false"
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        x = float(value)
        if not math.isfinite(x):
            raise ValueError(f"set {key}: {x} is not a number a scenario can hold")
        return repr(x)
    if isinstance(value, str):
        return _toml_string(value, key)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v, key) for v in value) + "]"
    if isinstance(value, Mapping):
        fields = []
        for k, v in value.items():
            name = str(k) if _BARE_KEY.fullmatch(str(k)) else _toml_string(str(k), key)
            fields.append(f"{name} = {_toml_value(v, key)}")
        return "{ " + ", ".join(fields) + " }"
    raise TypeError(f"set {key}: cannot write a {type(value).__name__} as a scenario value")


def format_value(value: object, key: str = "") -> str:
    """The text the engine reads for an override value: the one rule of every entry point
    (``run``, ``run_text``, ``validate``, ``Sweep.run``, the command line's ``--set``, sweeps
    and reproductions).

    A ``str`` is the text ``--set key=value`` takes: a TOML value if it reads as one (``"20"``
    is the integer 20, ``'{ kind = "pfifo" }'`` a table, ``'"123"'`` the string 123), else the
    string itself (``"10Mbit"``, ``"cubic"``). Any other value is written as TOML: ``True`` ->
    ``true``, numbers (numpy's too) as numbers, lists and dicts as arrays and tables, inside
    which a ``str`` is always a string: ``{"kind": "bfifo", "limit": "30KB"}`` ->
    ``{ kind = "bfifo", limit = "30KB" }``.
    """
    if isinstance(value, str):
        return _engine_text(value, f"set {key}: the value")
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
    """Overrides (a mapping or ``(key, value)`` pairs) as the ``[(key, text), ...]`` the engine
    takes, each value written by :func:`format_value`; ``TypeError`` for any other shape."""
    out = []
    for k, v in _checks.pairs(overrides, "set"):
        key = _engine_text(k, "set: the key")
        out.append((key, format_value(v, key)))
    return out


def _seed(seed: int | None) -> int | None:
    return None if seed is None else _checks.seed(seed)


#: The largest scenario file read. The largest built-in one is a few kB; a file this size is
#: not a scenario, and reading it whole would cost its size in memory before any check.
MAX_SCENARIO_BYTES = 1 << 20


def _load(scenario: str | os.PathLike[str]) -> tuple[str, str]:
    """The text of a scenario (a path or a built-in name) and the name errors give it;
    :class:`ScenarioFileError` naming it if it cannot be found or read."""
    try:
        path = resolve(scenario)
    except FileNotFoundError as e:
        raise ScenarioFileError(str(e)) from None
    name = os.fsdecode(path).encode("utf-8", "backslashreplace").decode("utf-8")
    try:
        size = path.stat().st_size
        if size > MAX_SCENARIO_BYTES:
            raise ScenarioFileError(
                f"{name}: the scenario file has {size:,} bytes; expected a scenario of at most "
                f"{MAX_SCENARIO_BYTES:,} (a large network is written with `count`, not repeated)"
            )
        data = path.read_bytes()
    except OSError as e:
        raise ScenarioFileError(
            f"{name}: cannot read the scenario file ({e.strerror or e})"
        ) from None
    return _scenario_text(data, name), name


def _scenario_text(data: bytes, name: str) -> str:
    """The text of a scenario file; ``ScenarioError`` naming the file if it is not UTF-8."""
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
    scenario: str | os.PathLike[str],
    seed: int | None = None,
    set: Overrides = None,
    progress: Callable[[float], object] | None = None,
) -> Result:
    """Run a scenario (a TOML path or a built-in name like ``basics/dumbbell-cubic``).

    ``seed`` overrides the scenario's seed (an integer from 0 to 2**64 - 1); ``set`` overrides
    keys, as a mapping or ``(key, value)`` pairs, e.g. ``{"duration": "5s",
    "link.bottleneck.qdisc.limit": 20}``: a ``str`` value is read as ``--set key=value`` reads
    it, other values are written as TOML (see :func:`format_value`). ``progress``, if given,
    is called with the fraction of simulated time done, about every simulated second; an
    exception it raises stops the run. Ctrl-C interrupts a run promptly.

    Raises ``ScenarioError`` for an invalid scenario, :class:`ScenarioFileError` (a
    ``ScenarioError`` and an ``OSError``) if it cannot be found or read, and ``TypeError`` or
    ``ValueError`` naming the argument for a malformed ``seed`` or ``set``.
    """
    overrides, run_seed = overrides_list(set), _seed(seed)
    text, file = _load(scenario)
    raw = _core.run(text, file, overrides, run_seed, progress)
    return Result.from_core(raw, source=file)


def run_text(
    text: str,
    seed: int | None = None,
    set: Overrides = None,
    progress: Callable[[float], object] | None = None,
    name: str = "<scenario text>",
) -> Result:
    """Run a scenario given as TOML text, e.g. one built in a notebook or a test.

    ``name`` stands for the file in error messages; the other arguments and the errors are as
    for :func:`run`.
    """
    raw = _core.run(text, name, overrides_list(set), _seed(seed), progress)
    return Result.from_core(raw, source=None)


def validate(scenario: str | os.PathLike[str], set: Overrides = None) -> dict[str, Any]:
    """Check a scenario without running it; return the resolved scenario as a dict. ``set``
    and the errors are as for :func:`run`."""
    overrides = overrides_list(set)
    text, file = _load(scenario)
    return json.loads(_core.validate(text, file, overrides))


#: The component families that declare parameters, in listing order, as the engine registers
#: them: the key of :func:`components` -> (what they are, how a scenario writes one called
#: ``{name}``, where).
FAMILIES: dict[str, tuple[str, str, str]] = {
    key: (title, written, place) for key, title, written, place in _core.families()
}


def components() -> dict[str, list[str]]:
    """The registered congestion controls, queue disciplines, OFDMA schedulers, rate controls
    and apps."""
    return {k: list(v) for k, v in _core.components().items()}


def params(name: str) -> dict[str, Any]:
    """The parameters of a registered component (a family of :data:`FAMILIES`), as its own
    file declares them: ``{"name", "family" (a key of :data:`FAMILIES`),
    "doc", "params": [{"name", "accepts", "default", "doc"}]}``. Defaults are written as a
    scenario file writes them ("5ms").
    Raises ``KeyError`` naming the registered components for an unknown name.
    """
    found = _core.params(name)
    if found is None:
        comps = _core.components()
        known = ", ".join(known for family in FAMILIES for known in comps[family])
        raise KeyError(f"no component is called {name!r}; expected one of: {known}")
    family, doc, rows = found
    keys = ("name", "accepts", "default", "doc")
    params = [dict(zip(keys, row, strict=True)) for row in rows]
    return {"name": name, "family": family, "doc": doc, "params": params}
