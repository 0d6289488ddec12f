"""The default renderers of a run (render layer): its figures (:mod:`airlab.plots`), its HTML
report and its notebook view (:mod:`airlab.report`), as the :class:`airlab.results.Renderers`
that ``airlab`` installs for :meth:`Result.save <airlab.results.Result.save>` and a notebook's
view of a result. The core (:mod:`airlab.results`) is handed these and imports no renderer.

Each imports its module when first called: ``import airlab`` does not load matplotlib."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from airlab.results import Renderers, Result


def plot_all(res: Result, folder: Path) -> dict[str, Path]:
    """:func:`airlab.plots.plot_all`."""
    from airlab import plots

    return plots.plot_all(res, folder)


def clear_plots(folder: Path) -> None:
    """Remove the figures :func:`plot_all` may have drawn into ``folder``."""
    from airlab import plots

    plots.remove_unwritten(folder, plots.PLOT_FILES, ())


def render_report(res: Result, images: Mapping[str, Path]) -> str:
    """:func:`airlab.report.render`."""
    from airlab import report

    return report.render(res, images)


def fragment(res: Result) -> str:
    """:func:`airlab.report.fragment`."""
    from airlab import report

    return report.fragment(res)


DEFAULT = Renderers(plots=plot_all, clear_plots=clear_plots, report=render_report, html=fragment)
