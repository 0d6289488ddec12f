"""docs/components.md: every registered component and its parameters, generated from the
declarations in the engine (``airlab list --params NAME`` prints the same, one at a time).

``python -m airlab.components_doc`` writes it; a test checks that it is current, so the page
cannot drift from the code.
"""

from __future__ import annotations

import sys
from pathlib import Path

from airlab import _io
from airlab.engine import FAMILIES, components, params
from airlab.reproduce.pages import table_cell

PAGE = Path("docs/components.md")


def render() -> str:
    """The page, as the registered components declare themselves."""
    out = [
        "# Components and their parameters",
        "",
        "Generated from the engine's declarations by `python -m airlab.components_doc`; do not",
        "edit by hand. `airlab list --params NAME` prints one component's table.",
        "",
    ]
    comps = components()
    for family, (what, written, place) in FAMILIES.items():
        out += [f"## {what[0].upper()}{what[1:]}", ""]
        for name in comps[family]:
            found = params(name)
            usage = f"`{written.format(name=name)}` {place}"
            out += [f"### `{name}`", "", f"{found['doc']}. In a scenario: {usage}.", ""]
            if not found["params"]:
                out += ["No parameters.", ""]
                continue
            out += ["| parameter | default | accepts | meaning |", "| --- | --- | --- | --- |"]
            for p in found["params"]:
                row = (f"`{p['name']}`", f"`{p['default']}`", p["accepts"], p["doc"])
                out.append("| " + " | ".join(table_cell(c) for c in row) + " |")
            out.append("")
    return "\n".join(out)


def stale(root: Path) -> bool:
    """Whether the page under ``root`` differs from what the code declares."""
    page = root / PAGE
    return not page.exists() or page.read_text() != render()


def main() -> None:
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(".")
    _io.write_text(root / PAGE, render())


if __name__ == "__main__":
    main()
