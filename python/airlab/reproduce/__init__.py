"""Paper reproductions: ``airlab reproduce NAME`` runs every experiment of one seed paper,
draws its figures, and compares our numbers with the paper's in ``targets.json``.

Each paper is a module that is a :class:`~airlab.reproduce.runner.Paper`: ``TITLE``,
``jobs(quick)`` (the runs), ``SERIES_LINKS`` and ``SERIES`` (the time series its runs keep),
``TARGETS`` (the paper's numbers, from ``targets/<paper>.toml``: :mod:`.paper_targets`),
``analyze(records, out_dir, quick)`` (tables, figures, targets) and ``report(analysis,
out_dir, quick)`` (the HTML page).
:mod:`airlab.reproduce.runner` runs the jobs on a process pool, resumably.
"""

from __future__ import annotations

from pathlib import Path

from airlab.reproduce import bbr_wifi6, bufferbloat_11n, fairtt, fccc, xlayer_aqm
from airlab.reproduce.runner import Paper

PAPERS: dict[str, Paper] = {
    "fairtt": fairtt,
    "bufferbloat-11n": bufferbloat_11n,
    "bbr-wifi6": bbr_wifi6,
    "fccc": fccc,
    "xlayer-aqm": xlayer_aqm,
}


def paper(name: str) -> Paper:
    """The reproduction module called ``name``; ``KeyError`` naming the known ones if absent."""
    try:
        return PAPERS[name]
    except KeyError:
        raise KeyError(f"unknown paper {name!r}, expected one of: {', '.join(PAPERS)}") from None


#: Each paper's own calibration of what it leaves unstated (``airlab calibrate --paper NAME``).
CALIBRATIONS = Path(__file__).parent / "calibrations"


def calibration_file(name: str) -> Path:
    """The calibration file of paper ``name``; ``ValueError`` naming those there are."""
    path = CALIBRATIONS / f"{name}.toml"
    if not path.is_file():
        known = ", ".join(sorted(p.stem for p in CALIBRATIONS.glob("*.toml")))
        raise ValueError(f"no calibration declared for paper {name!r}, expected one of: {known}")
    return path
