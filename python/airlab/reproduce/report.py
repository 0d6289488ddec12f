"""The HTML report of a paper reproduction: our numbers beside the paper's, and the figures."""

from __future__ import annotations

import html
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from airlab.jobs import Job
from airlab.reproduce.runner import UNINFORMATIVE, Plan, Target, score

STATUS_COLOR = {"within": "#1a7f37", "holds": "#1a7f37", "outside": "#cf222e", "fails": "#cf222e"}


def _num(v: Any) -> str:
    if isinstance(v, float):
        if math.isnan(v):
            return "-"
        return f"{v:.3g}" if abs(v) < 100 else f"{v:.1f}"
    return html.escape(str(v))


def targets_table(targets: Sequence[Target], show_variant: bool = False) -> str:
    """The paper's numbers beside ours; ``show_variant`` adds the variant column (for a table
    that mixes variants)."""
    rows = []
    for t in targets:
        color = STATUS_COLOR.get(t.status, "black")
        variant = (
            f"<td style='text-align:left'>{html.escape(t.variant)}</td>" if show_variant else ""
        )
        rows.append(
            "<tr>"
            f"<td>{html.escape(t.experiment)}</td><td>{html.escape(t.metric)}</td>{variant}"
            f"<td>{_num(t.paper)}</td><td>{_num(t.airlab)}</td><td>{html.escape(t.tolerance)}</td>"
            f"<td style='color:{color}'>{html.escape(t.status)}"
            f"{': ' + html.escape(t.note) if t.note else ''}</td>{_informative(t)}</tr>"
        )
    head = "<tr><th>experiment</th><th>metric</th>" + ("<th>variant</th>" if show_variant else "")
    head += "<th>paper</th><th>airlab</th><th>tolerance</th><th>status</th>"
    return f"<table>{head}<th>informative</th></tr>{''.join(rows)}</table>"


def _informative(t: Target) -> str:
    if t.informative:
        return "<td>yes</td>"
    reason = html.escape(UNINFORMATIVE[t.uninformative])
    return f"<td style='text-align:left'>no: <span title='{reason}'>{t.uninformative}</span>, " \
        f"{html.escape(t.why)}</td>"  # fmt: skip


def score_note(analysis: Mapping[str, Any]) -> str:
    """The reproduction's score over the targets of every section of ``analysis``."""
    targets = [t for s in analysis["sections"] for t in s["targets"]]
    readings = analysis.get("readings", ())
    text = f"<p><b>Score:</b> {html.escape(score(targets, readings))}.</p>"
    if readings:
        items = "".join(
            f"<li><b>{html.escape(r.name)}</b>{' (primary, judged)' if r.primary else ''} "
            f"for {html.escape(r.ambiguity)}: {html.escape(r.choice)}; "
            f"{html.escape(r.why)} (in the plan since {r.added})</li>"
            for r in readings
        )
        text += f"<p>Readings declared in the plan:</p><ul>{items}</ul>"
    return text


def frame_table(df: pd.DataFrame, columns: Sequence[tuple[str, str]], spread: str = "_ci") -> str:
    """An HTML table of ``columns`` (name, header); a column ``<name><spread>`` is shown as
    ``± value`` (95 % CI half-widths by default, ``_sd`` for standard deviations)."""
    head = "".join(f"<th>{html.escape(label)}</th>" for _, label in columns)
    body = []
    for _, row in df.iterrows():
        cells = []
        for col, _ in columns:
            v = row.get(col, math.nan)
            ci = row.get(f"{col}{spread}")
            text = _num(v)
            if ci is not None and isinstance(ci, float) and not math.isnan(ci):
                text += f" ± {_num(ci)}"
            cells.append(f"<td>{text}</td>")
        body.append(f"<tr>{''.join(cells)}</tr>")
    return f"<table><tr>{head}</tr>{''.join(body)}</table>"


CSS = """
body { font-family: system-ui, sans-serif; max-width: 1100px; margin: 2em auto; color: #1f2328; }
table { border-collapse: collapse; margin: 1em 0; font-size: 0.9em; }
th, td { border: 1px solid #d0d7de; padding: 0.3em 0.6em; text-align: right; }
th { background: #f6f8fa; } td:first-child, td:nth-child(2) { text-align: left; }
img { max-width: 100%; margin: 0.5em 0; }
"""


def plan_note(quick: bool, analysis: Mapping[str, Any]) -> str:
    """What the page is (a smoke run, ``--quick``, or the reproduction itself), then its score
    and declared readings."""
    return _plan(quick) + score_note(analysis)


def intro(
    quick: bool, analysis: Mapping[str, Any], template: str, jobs: Sequence[Job], **fields: Any
) -> str:
    """The plan note, then the paper's ``template`` with ``runs`` (how many distinct runs
    ``jobs`` make) and ``fields`` filled in."""
    return plan_note(quick, analysis) + template.format(runs=len({j.id for j in jobs}), **fields)


def timed_intro(
    quick: bool, analysis: Mapping[str, Any], template: str, jobs: Sequence[Job], p: Plan
) -> str:
    """:func:`intro` of a plan of seeded runs of one length: ``seeds`` (how many),
    ``duration`` and ``warmup`` (seconds) from ``p``."""
    return intro(
        quick,
        analysis,
        template,
        jobs,
        seeds=len(p.seeds),
        duration=p.duration_s,
        warmup=p.warmup_s,
    )


def _plan(quick: bool) -> str:
    if quick:
        return (
            "<p style='color:#cf222e'><b>Smoke run (--quick).</b> Fewer seeds and shorter runs: "
            "it shows that every experiment runs. Its numbers and statuses are not the "
            "reproduction's; run without --quick for those.</p>"
        )
    return "<p><b>Full plan.</b> These are the reproduction's numbers.</p>"


def page(title: str, intro: str, sections: Sequence[tuple[str, str]]) -> str:
    body = "".join(f"<h2>{html.escape(h)}</h2>{content}" for h, content in sections)
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
        f"<style>{CSS}</style></head><body><h1>{html.escape(title)}</h1>{intro}{body}</body></html>"
    )


def target_sections(
    sections: Sequence[Mapping[str, Any]], base: Path, show_variant: bool = True
) -> list[tuple[str, str]]:
    """Per section of an analysis: its title, and its targets' table with its figures below."""
    return [
        (
            s["title"],
            targets_table(s["targets"], show_variant=show_variant) + images(s["figures"], base),
        )
        for s in sections
    ]


def means_tables(agg: Mapping[str, pd.DataFrame]) -> str:
    """Each table of ``agg`` under its name: the means over seeds, without their CI columns."""
    out = ""
    for name, frame in agg.items():
        cols = [(c, c) for c in frame.columns if not c.endswith("_ci")]
        out += f"<h3>{name}</h3>" + frame_table(frame, cols)
    return out


def images(figs: Mapping[str, Path], base: Path) -> str:
    return "".join(
        f"<img src='{html.escape(str(p.relative_to(base)))}' alt='{html.escape(k)}'>"
        for k, p in sorted(figs.items())
    )
