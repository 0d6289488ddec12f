"""Flent-style plots of latency under load, over one or many results: the latency CDF, box
plots, the latency-vs-throughput ellipsis plot and time series, each with one entry per dataset.

A dataset is a labelled set of samples (:mod:`airlab.samples`): one run (a result directory, a
:class:`~airlab.results.Result` or a Flent file) or one grid point of a sweep (all its seeds'
runs pooled). ``airlab plot`` draws them; in Python::

    from airlab import flentplots
    sets = flentplots.datasets(["results/sweep"])          # one per grid point
    flentplots.render("ellipsis", sets, "results/plots", formats=("png", "pdf"))
    flentplots.figure("cdf", sets)                          # a matplotlib Figure, for notebooks
"""

from __future__ import annotations

import functools
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import matplotlib
import numpy as np
import pandas as pd
from matplotlib.patches import Ellipse

from airlab import _io, samples
from airlab.plotstyle import PNG, STYLE, Figure, _text, tight_layout

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.typing import RcKeyType

KINDS = ("cdf", "box", "ellipsis", "timeseries")
FORMATS = ("png", "svg", "pdf")
DPI = 160
#: Above this many datasets the legend is left out (the lines stay).
MAX_LEGEND = 16
#: Vector files keep their text as text (an SVG's is searchable and editable) and a PDF embeds
#: TrueType fonts (Type 3 fonts are refused by IEEE and ACM submission checks).
VECTOR_TEXT: dict[RcKeyType, Any] = {"svg.fonttype": "none", "pdf.fonttype": 42}


@dataclass
class Dataset:
    label: str
    samples: samples.Samples


def _of_path(path: Path) -> list[Dataset]:
    from airlab import flent
    from airlab.sweep import Sweep

    if flent.is_flent(path) or (path / "summary.json").is_file():
        label = path.name.removesuffix(".gz")
        return [Dataset(label, samples.of_result(flent.load_result(path)))]
    if (path / "runs").is_dir():
        return of_sweep(Sweep.load(path))
    raise FileNotFoundError(
        f"{path}: not a result directory (summary.json), a sweep directory (runs/) or a Flent "
        f"file (*.flent.gz)"
    )


def of_sweep(sweep: Any) -> list[Dataset]:
    """One dataset per grid point of a :class:`~airlab.sweep.Sweep`, its runs pooled."""
    runs = sweep.runs
    out = []
    groups = runs.groupby(sweep.params, sort=True, dropna=False) if sweep.params else [((), runs)]
    for _, rows in groups:
        point = rows.iloc[0].to_dict()
        ids = rows["run_id"].astype(str).tolist()
        parts = [sweep.samples(rid) for rid in ids]
        out.append(Dataset(sweep.label_of(point), samples.concat(parts, ids)))
    return out


def datasets(
    inputs: Sequence[Any], labels: Sequence[str] | None = None, flows: Sequence[str] = ()
) -> list[Dataset]:
    """The datasets of ``inputs``: paths (result or sweep directories, Flent files),
    :class:`~airlab.results.Result` and :class:`~airlab.sweep.Sweep` objects. ``labels``
    replace the datasets' own, one per dataset; ``flows`` keeps only those flows' samples."""
    from airlab.results import Result
    from airlab.sweep import Sweep

    out: list[Dataset] = []
    for item in inputs:
        if isinstance(item, Result):
            name = Path(item.source).name if item.source else str(item.summary.get("scenario"))
            out.append(Dataset(name, samples.of_result(item)))
        elif isinstance(item, Sweep):
            out += of_sweep(item)
        else:
            out += _of_path(Path(item))
    if labels is not None:
        if len(labels) != len(out):
            raise ValueError(f"{len(labels)} labels for {len(out)} datasets")
        for d, lb in zip(out, labels, strict=True):
            d.label = lb
    if flows:
        for d in out:
            s = d.samples
            keep_l, keep_t = s.latency["flow"].isin(flows), s.throughput["flow"].isin(flows)
            d.samples = samples.Samples(s.latency[keep_l], s.throughput[keep_t], s.interval_s)
        if all(d.samples.latency.empty and d.samples.throughput.empty for d in out):
            raise ValueError(f"no samples of flow {', '.join(flows)} in any input")
    return out


# -- the plots --------------------------------------------------------------------------------


def _latency_label(sets: Sequence[Dataset]) -> str:
    sources = {s for d in sets for s in d.samples.latency["source"].unique()}
    if sources == {"srtt"}:
        return "TCP smoothed RTT (ms)"
    return "ping RTT (ms)" if sources == {"ping"} else "RTT (ms)"


def _legend(ax: Axes, n: int) -> None:
    if 0 < n <= MAX_LEGEND:
        ax.legend(frameon=False, loc="best", ncol=2 if n > 8 else 1)


def cdf(sets: Sequence[Dataset], fig: Figure) -> None:
    """The latency CDF: a line per dataset (per flow when there is one dataset)."""
    ax = fig.add_subplot()
    lines = 0
    for d in sets:
        lat = d.samples.latency
        groups = lat.groupby("flow", sort=False) if len(sets) == 1 else [(d.label, lat)]
        for name, rows in groups:
            x = np.sort(rows["rtt_ms"].to_numpy(float))
            if len(x):
                ax.step(x, np.arange(1, len(x) + 1) / len(x), where="post", label=_text(name))
                lines += 1
    ax.set_xlabel(_latency_label(sets))
    ax.set_ylabel("cumulative probability")
    ax.set_ylim(0, 1.0)
    ax.set_title("Latency CDF", loc="left")
    _legend(ax, lines)


def box(sets: Sequence[Dataset], fig: Figure) -> None:
    """Box plots of total throughput per interval and of latency, a box per dataset: the
    quartiles, whiskers at the 5th and 95th percentiles, the mean as a dot."""
    ax_t, ax_l = fig.subplots(1, 2)
    names = [_text(d.label) for d in sets]
    totals = [samples.total_throughput(d.samples)["goodput_mbps"].to_numpy(float) for d in sets]
    lat = [d.samples.latency["rtt_ms"].to_numpy(float) for d in sets]
    style = {
        "whis": (5, 95),
        "showfliers": False,
        "showmeans": True,
        "meanprops": {"marker": "o", "markersize": 4},
    }
    for ax, data, label in (
        (ax_t, totals, "total goodput (Mbit/s)"),
        (ax_l, lat, _latency_label(sets)),
    ):
        shown = [(n, v) for n, v in zip(names, data, strict=True) if len(v)]
        if shown:
            ax.boxplot([v for _, v in shown], **style)
            tilt = len(shown) > 3 or max(len(n) for n, _ in shown) > 12
            ax.set_xticks(
                range(1, len(shown) + 1),
                [n for n, _ in shown],
                rotation=30 if tilt else 0,
                ha="right" if tilt else "center",
            )
        ax.set_ylabel(label)
    ax_t.set_title("Throughput", loc="left")
    ax_l.set_title("Latency", loc="left")


def ellipse_of(pairs: pd.DataFrame) -> tuple[float, float, float, float, float]:
    """Centre, axes (full lengths, one standard deviation each side) and angle (degrees) of
    the covariance ellipse of the (rtt_ms, goodput_mbps) pairs."""
    xy = pairs[["rtt_ms", "goodput_mbps"]].to_numpy(float)
    mean = xy.mean(axis=0)
    if len(xy) < 2:
        return float(mean[0]), float(mean[1]), 0.0, 0.0, 0.0
    vals, vecs = np.linalg.eigh(np.cov(xy, rowvar=False))
    vals = np.clip(vals, 0.0, None)
    angle = float(np.degrees(np.arctan2(vecs[1, 1], vecs[0, 1])))
    return float(mean[0]), float(mean[1]), 2 * np.sqrt(vals[1]), 2 * np.sqrt(vals[0]), angle


def ellipsis(sets: Sequence[Dataset], fig: Figure) -> None:
    """Latency against throughput, a point per dataset at its means and an ellipse of one
    standard deviation of the (latency, total goodput) pairs of its sampling intervals. The
    latency axis is reversed, as Flent draws it: better is up and to the right."""
    ax = fig.add_subplot()
    colors = matplotlib.rcParams["axes.prop_cycle"].by_key()["color"]
    drawn = 0
    for i, d in enumerate(sets):
        pairs = samples.paired(d.samples)
        if pairs.empty:
            continue
        x, y, w, h, angle = ellipse_of(pairs)
        c = colors[i % len(colors)]
        ax.add_patch(Ellipse((x, y), w, h, angle=angle, facecolor=c, alpha=0.25, edgecolor=c))
        ax.plot([x], [y], "o", color=c, label=_text(d.label))
        drawn += 1
    _legend(ax, drawn)
    ax.autoscale_view()
    ax.invert_xaxis()
    ax.set_xlabel(_latency_label(sets) + " — lower is better →")
    ax.set_ylabel("total goodput (Mbit/s)")
    ax.set_title("Latency vs throughput (mean, 1 sd ellipse)", loc="left")


def timeseries(sets: Sequence[Dataset], fig: Figure) -> None:
    """Total goodput and latency over time, a line per dataset (the mean over its runs in
    each sampling interval)."""
    ax_t, ax_l = fig.subplots(2, 1, sharex=True)
    for d in sets:
        total = samples.total_throughput(d.samples).groupby("time_s")["goodput_mbps"].mean()
        ax_t.plot(total.index, total.to_numpy(float), label=_text(d.label))
        lat = samples.paired(d.samples).groupby("time_s")["rtt_ms"].mean()
        ax_l.plot(lat.index, lat.to_numpy(float), label=_text(d.label))
    ax_t.set_ylabel("total goodput (Mbit/s)")
    ax_l.set_ylabel(_latency_label(sets))
    ax_l.set_xlabel("time (s)")
    ax_t.set_title("Throughput and latency over time", loc="left")
    _legend(ax_t, len(sets))


DRAW = {"cdf": cdf, "box": box, "ellipsis": ellipsis, "timeseries": timeseries}
SIZES = {"cdf": (6.4, 4.2), "box": (9.0, 4.2), "ellipsis": (6.4, 4.8), "timeseries": (7.5, 5.2)}


def figure(kind: str, sets: Sequence[Dataset]) -> Figure:
    """One kind of plot of ``sets`` as a matplotlib figure (a notebook shows it)."""
    if kind not in DRAW:
        raise ValueError(f"no plot kind {kind!r}; expected one of: {', '.join(KINDS)}")
    if not sets:
        raise ValueError("nothing to plot: no datasets")
    with matplotlib.rc_context(STYLE):
        fig = Figure(figsize=SIZES[kind])
        DRAW[kind](sets, fig)
        tight_layout(fig)
    return fig


def render(
    kind: str,
    sets: Sequence[Dataset],
    out_dir: str | os.PathLike[str],
    formats: Sequence[str] = ("png",),
) -> list[Path]:
    """Draw one kind of plot of ``sets`` into ``out_dir/<kind>.<format>`` for each format
    (png, svg, pdf); each file is written atomically. Returns the paths."""
    bad = [f for f in formats if f not in FORMATS]
    if bad:
        raise ValueError(f"no image format {', '.join(bad)}; expected: {', '.join(FORMATS)}")
    fig = figure(kind, sets)
    paths = []
    with matplotlib.rc_context(STYLE | VECTOR_TEXT):
        for fmt in formats:
            path = Path(out_dir) / f"{kind}.{fmt}"
            # no creation date in vector files, so that equal plots are equal files
            meta = {"png": {}, "svg": {"Date": None}, "pdf": {"CreationDate": None}}[fmt]
            # Pillow writes only the PNG; the vector formats take no pil_kwargs
            how: dict[str, Any] = {"dpi": DPI, "format": fmt, "metadata": meta}
            if fmt == "png":
                how["pil_kwargs"] = PNG
            _io.write_with(path, functools.partial(fig.savefig, **how))
            paths.append(path)
    return paths
