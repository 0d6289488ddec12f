"""What every figure of airlab shares, the base of the render layer: the matplotlib backend
(off-screen unless a notebook shows the figures), the rcParams of every plot and how a user's
name becomes matplotlib text. :mod:`airlab.plots` (one run) and :mod:`airlab.flentplots`
(many results) both draw with it, so neither imports the other for it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import matplotlib

# Figures go to files: draw off-screen (the command line and cluster workers have no display),
# unless a notebook's inline backend is in use, which shows them in the page.
if "inline" not in matplotlib.get_backend():
    matplotlib.use("Agg")

if TYPE_CHECKING:
    from matplotlib.typing import RcKeyType

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
