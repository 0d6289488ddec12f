"""Argument checks shared by the command line and the Python API.

Each check returns the value it accepts or raises ``TypeError`` (the wrong kind of value) or
``ValueError`` (the right kind, out of bounds) with a message that starts with the argument's
name as the caller knows it (``--jobs`` on the command line, ``jobs`` in Python) and says what
was expected. They run before any work, so a bad argument never costs a simulation.
"""

from __future__ import annotations

import contextlib
import numbers
import os
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import TypeGuard

#: The largest run seed the engine takes (a u64).
MAX_SEED = 2**64 - 1

#: The deepest an override value may nest lists and dicts: the engine's TOML reader takes 80
#: levels of arrays and inline tables, and reads a deeper value as a plain string.
MAX_VALUE_DEPTH = 80

#: The most lists, dicts and entries an override value may hold in all: more could not be
#: written in a scenario (at most 1 MiB), and a value that shares its parts can stand for
#: exponentially many.
MAX_VALUE_ITEMS = 1 << 20

#: Local worker processes allowed per CPU. A run is single-threaded and CPU-bound, so workers
#: beyond the CPUs only add memory (each holds a run's series) and task switching; a few per
#: CPU leave room for machines whose CPU count understates what they run well.
JOBS_PER_CPU = 4


def is_int(value: object) -> TypeGuard[numbers.Integral]:
    """Python's and numpy's integers; not bool, which is an int but never meant as one here."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def seed(value: object, name: str = "seed") -> int:
    """A run seed: an integer from 0 to 2**64 - 1."""
    expected = f"{name}: expected an integer from 0 to 2**64 - 1, got {value!r}"
    if not is_int(value):
        raise TypeError(expected)
    if not 0 <= int(value) <= MAX_SEED:
        raise ValueError(expected)
    return int(value)


def max_jobs() -> int:
    """The most worker processes this machine may start: :data:`JOBS_PER_CPU` per CPU."""
    return JOBS_PER_CPU * (os.cpu_count() or 1)


def jobs(value: object, name: str = "jobs") -> int:
    """A number of worker processes on this machine, from 1 to :func:`max_jobs`."""
    limit = max_jobs()
    expected = (
        f"{name}: expected a number of worker processes from 1 to {limit} ({JOBS_PER_CPU} per "
        f"CPU, {os.cpu_count() or 1} CPUs here), got {value!r}"
    )
    if not is_int(value):
        raise TypeError(expected)
    if int(value) < 1:
        raise ValueError(expected)
    if int(value) > limit:
        raise ValueError(
            f"{expected}: each runs one simulation on one CPU at a time, so more would only "
            "add memory and task switching (for more workers, run on a cluster: docs/cluster.md)"
        )
    return int(value)


def pairs(value: object, name: str = "set") -> list[tuple[str, object]]:
    """Overrides given as a mapping ``{key: value}`` or an iterable of ``(key, value)`` pairs,
    as a list of pairs with string keys. ``None`` is no overrides."""
    expected = f"{name}: expected a mapping {{key: value}} or a list of (key, value) pairs"
    if value is None:
        return []
    if isinstance(value, str):
        key, sep, text = value.partition("=")
        hint = f" (write {name}={{{key.strip()!r}: {text.strip()!r}}})" if sep else ""
        raise TypeError(f"{expected}, got the string {value!r}{hint}")
    if isinstance(value, Mapping):
        items = list(value.items())
    elif isinstance(value, Iterable) and not isinstance(value, (bytes, bytearray)):
        items = []
        for item in value:
            # only tuples and lists: a 2-character string would unpack into a key and a value
            if not isinstance(item, (tuple, list)) or len(item) != 2:
                raise TypeError(f"{expected}, got the item {item!r}")
            items.append((item[0], item[1]))
    else:
        raise TypeError(f"{expected}, got {value!r}")
    for key, v in items:
        if not isinstance(key, str):
            raise TypeError(f"{name}: expected keys that are key paths (strings), got {key!r}")
        nested(v, f"{name} {key}")
    return items


def nested(value: object, name: str) -> None:
    """Checks that ``value`` (an override's) can be written as a scenario value: lists, tuples
    and mappings that do not contain themselves, nested at most :data:`MAX_VALUE_DEPTH` deep,
    with at most :data:`MAX_VALUE_ITEMS` entries in all. ``ValueError`` naming ``name`` otherwise
    (they would recurse without end, or past Python's recursion limit, when written)."""
    items = 0
    on_path: set[int] = set()
    # (container, its children still to visit, depth); a walk without recursion
    stack: list[tuple[object, Iterator[object], int]] = []

    def enter(v: object, depth: int) -> None:
        nonlocal items
        items += 1
        if items > MAX_VALUE_ITEMS:
            raise ValueError(
                f"{name}: the value has more than {MAX_VALUE_ITEMS:,} entries; expected a value a "
                "scenario (at most 1 MiB of text) can hold"
            )
        if isinstance(v, Mapping):
            children: Iterator[object] = iter(list(v.values()))
        elif isinstance(v, (list, tuple)):
            children = iter(list(v))
        else:
            return
        if id(v) in on_path:
            raise ValueError(
                f"{name}: the value contains itself (a {type(v).__name__} that refers to itself), "
                "which no scenario value can; expected nested lists and dicts that end"
            )
        if depth > MAX_VALUE_DEPTH:
            raise ValueError(
                f"{name}: the value nests lists and dicts more than {MAX_VALUE_DEPTH} deep; "
                f"expected at most {MAX_VALUE_DEPTH} levels (the deepest the engine's TOML reader "
                "takes)"
            )
        on_path.add(id(v))
        stack.append((v, children, depth))

    enter(value, 1)
    while stack:
        container, children, depth = stack[-1]
        child = next(children, _END)
        if child is _END:
            stack.pop()
            on_path.discard(id(container))
        else:
            enter(child, depth + 1)


_END = object()


def _show(path: str | os.PathLike[str]) -> str:
    """A path as text for a message, whatever bytes it holds."""
    return os.fsdecode(path).encode("utf-8", "backslashreplace").decode("utf-8")


def _unwritable_dir(d: Path) -> str | None:
    """Why results cannot be written into directory ``d``, or None if they can.

    Missing directories are created to find out and removed again (only those, and only while
    empty), so a run that then fails leaves nothing behind and nothing that was there is
    touched. Creating is the only sure test: root passes every permission check, and /proc
    or a read-only mount refuse what ``os.access`` allows.
    """
    made: list[Path] = []
    try:
        missing = []
        existing = d
        while not existing.exists():
            missing.append(existing)
            existing = existing.parent
        if not existing.is_dir():
            return f"{_show(existing)} is a file, not a directory"
        for folder in reversed(missing):
            try:
                folder.mkdir()
            except OSError as e:
                return f"cannot create {_show(folder)} ({e.strerror or e})"
            made.append(folder)
        try:
            fd, probe = tempfile.mkstemp(dir=d, prefix=".airlab-probe.", suffix=".tmp")
        except OSError as e:
            return f"cannot write in {_show(d)} ({e.strerror or e})"
        os.close(fd)
        os.unlink(probe)
        return None
    except OSError as e:  # e.g. a name too long for the file system
        return e.strerror or str(e)
    finally:
        for folder in reversed(made):
            # if something was written there meanwhile, rmdir fails and it stays
            with contextlib.suppress(OSError):
                folder.rmdir()


def output_dir(path: str | os.PathLike[str], name: str = "out") -> Path:
    """A directory results can be written to: not empty (``Path("")`` is the current
    directory, never what was meant), not a file, creatable and writable."""
    text = os.fspath(path)
    if not text:
        raise ValueError(f"{name}: expected a directory path, got an empty string")
    d = Path(text)
    problem = _unwritable_dir(d)
    if problem is not None:
        raise ValueError(
            f"{name} {_show(text)}: {problem}; expected a directory that can be created and "
            "written to"
        )
    return d


def output_file(path: str | os.PathLike[str], name: str = "out") -> Path:
    """A file that can be written: a path that is not empty and not a directory, in a
    directory that can be created and written to."""
    text = os.fspath(path)
    if not text:
        raise ValueError(f"{name}: expected a file path, got an empty string")
    f = Path(text)
    shown = _show(text)
    try:
        is_dir = f.is_dir()
    except OSError as e:
        raise ValueError(f"{name} {shown}: {e.strerror or e}") from None
    if is_dir or text.endswith(os.sep):
        raise ValueError(f"{name} {shown}: {shown} is a directory; expected a file path")
    problem = _unwritable_dir(f.parent)
    if problem is not None:
        raise ValueError(f"{name} {shown}: {problem}; expected a file in a writable directory")
    return f
