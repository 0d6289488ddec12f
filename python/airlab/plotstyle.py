"""What every figure of airlab shares, the base of the render layer: the figure it draws on
(off-screen, outside pyplot), the rcParams of every plot and how a user's name becomes
matplotlib text. :mod:`airlab.plots` (one run) and :mod:`airlab.flentplots` (many results) both
draw with it, so neither imports the other for it."""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, Any

import matplotlib.figure
from matplotlib.backends.backend_agg import FigureCanvasAgg

if TYPE_CHECKING:
    from matplotlib.typing import RcKeyType


class Figure(matplotlib.figure.Figure):
    """A figure outside pyplot. pyplot keeps every figure it made in a global registry until it
    is closed (a leak when it is not, shared state when two threads draw) and costs a third of
    a second to import; none of it is needed to draw into a file. The figure draws on an Agg
    canvas (off-screen: the command line and cluster workers have no display), whatever
    backend pyplot uses, and a notebook shows it as a PNG (the inline backend's display hook
    would, but is installed only once pyplot is imported)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        FigureCanvasAgg(self)

    def _repr_png_(self) -> bytes:
        """IPython's display of the figure: a PNG cropped to what is drawn, as the inline
        backend shows a pyplot figure."""
        buf = io.BytesIO()
        self.savefig(buf, format="png", bbox_inches="tight")
        return buf.getvalue()


#: Options of a run's PNGs: zlib's fastest level. A 1120 x 608 figure then encodes in half the
#: time (22 instead of 42 ms) into a file a quarter larger (57 instead of 44 kB), the same
#: pixels. The reproductions' figures, kept in the repository, keep the default level.
PNG: dict[str, Any] = {"compress_level": 1}


def tight_layout(fig: matplotlib.figure.Figure) -> None:
    """``fig.tight_layout()`` without what it leaves behind: a placeholder layout engine, for
    which ``savefig`` first draws the whole figure once without output (to lay it out) and
    then again into the file. The layout is done, so the figure keeps no engine."""
    fig.tight_layout()
    fig.set_layout_engine(None)


def subplots(nrows: int = 1, ncols: int = 1, *, figsize: tuple[float, float], **kw: Any) -> Any:
    """``(figure, axes)`` as ``pyplot.subplots`` returns them, on a :class:`Figure`: the axes
    are one ``Axes`` or an array of them (``squeeze`` and ``sharex`` etc. as there)."""
    fig = Figure(figsize=figsize)
    return fig, fig.subplots(nrows, ncols, **kw)


#: rcParams of every plot; the values' types differ by key (matplotlib's rc_context takes Any).
STYLE: dict[RcKeyType, Any] = {
    "font.size": 10,
    "axes.titlesize": 11,
    "axes.labelsize": 10,
    "legend.fontsize": 8,
    "axes.grid": True,
    "grid.alpha": 0.35,
    "grid.linestyle": ":",
    "axes.spines.top": False,
    "axes.spines.right": False,
    "lines.linewidth": 1.4,
}


def _text(name: object) -> str:
    """A user's name as matplotlib text: ``$`` would start mathtext (and ``$x^{$`` fail to
    parse), so it is escaped."""
    return str(name).replace("$", r"\$")
