"""Finding scenario files: a path on disk, or the name of a built-in scenario.

Built-in scenarios live in the repository's ``scenarios/`` folder. A wheel carries a copy
inside the package (``airlab/scenarios``: in the source tree a symlink to ``../../scenarios``,
which maturin's ``include`` follows); an editable install or a source checkout finds the folder
next to ``python/``. ``AIRLAB_SCENARIOS`` adds a folder searched first.
"""

from __future__ import annotations

import os
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


def resolve(scenario: str | os.PathLike[str]) -> Path:
    """Turn a path or a built-in name into the path of a scenario file.

    Raises ``FileNotFoundError`` with a message naming what was looked for.
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
    raise FileNotFoundError(
        f"{shown}: no such scenario file or built-in scenario (see `airlab list`)"
    )
