"""Finding scenario files: a path on disk, or the name of a built-in scenario.

Built-in scenarios live in the repository's ``scenarios/`` folder. A wheel carries a copy
inside the package (``airlab/scenarios``: in the source tree a symlink to ``../../scenarios``,
which maturin's ``include`` follows); an editable install or a source checkout finds the folder
next to ``python/``. ``AIRLAB_SCENARIOS`` adds a folder searched first.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

_PKG_DIR = Path(__file__).resolve().parent


def scenario_dirs() -> list[Path]:
    """Folders searched for built-in scenarios, first match wins."""
    dirs: list[Path] = []
    env = os.environ.get("AIRLAB_SCENARIOS")
    if env:
        dirs.append(Path(env))
    dirs.append(_PKG_DIR / "scenarios")  # shipped inside the wheel
    dirs.append(_PKG_DIR.parent.parent / "scenarios")  # source checkout / editable install
    return [d for d in dirs if d.is_dir()]


def list_builtin() -> list[str]:
    """Names of the built-in scenarios, like ``basics/dumbbell-cubic``, from every folder
    searched (``AIRLAB_SCENARIOS`` adds to the shipped ones)."""
    names = {
        p.relative_to(root).with_suffix("").as_posix()
        for root in scenario_dirs()
        for p in root.rglob("*.toml")
    }
    return sorted(names)


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except OSError:  # e.g. a name too long for the filesystem
        return False


def _not_a_file(path: Path) -> str | None:
    """Why ``path``, which is not a regular file, cannot be a scenario, if it exists (a
    directory, a device, a named pipe, a symbolic link that leads nowhere); None if there is
    nothing at ``path``."""
    try:
        if not os.path.lexists(path):
            return None
        mode = path.stat().st_mode
    except OSError as e:  # a loop of symbolic links, a name too long, no permission
        return f"cannot be read ({e.strerror or e})"
    if stat.S_ISDIR(mode):
        return f"is a directory, not a scenario file{_tomls_in(path)}"
    kinds = [
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISFIFO, "a named pipe (FIFO)"),
        (stat.S_ISSOCK, "a socket"),
    ]
    kind = next((k for test, k in kinds if test(mode)), "not a regular file")
    return f"is {kind}, not a regular file"


def _tomls_in(folder: Path) -> str:
    """A note naming a few TOML files in ``folder`` (among its first thousand entries), such
    as ``" (it holds TOML files such as a.toml, b.toml)"``, or ``""`` without any."""
    found: list[str] = []
    try:
        with os.scandir(folder) as entries:
            for i, entry in enumerate(entries):
                if i >= 1000 or len(found) == 3:
                    break
                if entry.name.endswith(".toml"):
                    found.append(entry.name)
    except OSError:
        return ""
    if not found:
        return ""
    shown = ", ".join(sorted(found)).encode("utf-8", "backslashreplace").decode("utf-8")
    return f" (it holds TOML files such as {shown})"


def resolve(scenario: str | os.PathLike[str]) -> Path:
    """Turn a path or a built-in name into the path of a scenario file.

    Raises ``FileNotFoundError`` with a message naming what was looked for, and saying what
    is there when the path is not a regular file (a directory, ``/dev/null``, a FIFO).
    """
    path = Path(scenario)
    if _is_file(path):
        return path
    name = str(scenario)
    for root in scenario_dirs():
        for cand in (root / name, root / f"{name}.toml"):
            if _is_file(cand):
                return cand.resolve()  # through the package's symlink to the real file
        # "scenarios/basics/x.toml" given from outside the checkout
        parts = Path(name).parts
        if parts and parts[0] == "scenarios":
            cand = root.joinpath(*parts[1:])
            if _is_file(cand):
                return cand.resolve()
    shown = name.encode("utf-8", "backslashreplace").decode("utf-8")
    if len(shown) > 200:
        shown = shown[:200] + "..."
    problem = _not_a_file(path)
    if problem is not None:
        raise FileNotFoundError(
            f"{shown}: {problem}; expected a scenario file or the name of a built-in scenario "
            "(see `airlab list`)"
        )
    raise FileNotFoundError(
        f"{shown}: no such scenario file or built-in scenario (see `airlab list`)"
    )
