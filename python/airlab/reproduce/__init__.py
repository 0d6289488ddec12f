"""Paper reproductions: ``airlab reproduce NAME`` runs every experiment of one seed paper,
draws its figures, and compares our numbers with the paper's in ``targets.json``.

Each paper is a module with ``TITLE``, ``jobs(quick)`` (the runs), and ``analyze(records,
out_dir, quick)`` (tables, figures, targets). :mod:`airlab.reproduce.runner` runs the jobs on a
process pool, resumably.
"""

from __future__ import annotations

from types import ModuleType

from airlab.reproduce import fairtt

PAPERS: dict[str, ModuleType] = {"fairtt": fairtt}


def paper(name: str) -> ModuleType:
    """The reproduction module called ``name``; ``KeyError`` naming the known ones if absent."""
    try:
        return PAPERS[name]
    except KeyError:
        raise KeyError(f"unknown paper {name!r}, expected one of: {', '.join(PAPERS)}") from None
