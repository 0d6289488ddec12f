"""A short, self-contained HTML report of one run (tables plus embedded plots)."""

from __future__ import annotations

import base64
import html
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from airlab.results import Result

CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2em auto;
       max-width: 1100px; color: #222; padding: 0 1em; }
h1 { font-size: 1.5em; margin-bottom: 0.2em; } h2 { font-size: 1.15em; margin-top: 1.6em; }
.meta { color: #666; margin-top: 0; }
table { border-collapse: collapse; margin: 0.5em 0; font-size: 0.9em; }
th, td { border-bottom: 1px solid #ddd; padding: 0.25em 0.7em; text-align: right; }
th { background: #f4f4f4; } td:first-child, th:first-child { text-align: left; }
img { max-width: 100%; border: 1px solid #eee; margin: 0.4em 0; }
code { background: #f4f4f4; padding: 0 0.2em; }
"""


def fmt(v: Any, digits: int = 3) -> str:
    """Numbers with a sensible number of significant digits; None as a dash."""
    if v is None:
        return "-"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, int):
        return f"{v:,}"
    if isinstance(v, float):
        a = abs(v)
        if v != v:  # NaN
            return "-"
        if a >= 1000:
            return f"{v:,.0f}"
        if a >= 100:
            return f"{v:.1f}".removesuffix(".0")
        if a >= 1e-3 or a == 0:
            return f"{v:.{digits if a >= 1 else digits + 1}f}".rstrip("0").rstrip(".")
        return f"{v:.{digits}g}"
    return str(v)


def get(d: Mapping[str, Any] | None, path: str) -> Any:
    """``get(flow, "rtt_ms.p95")``: nested lookup that tolerates missing/None levels."""
    cur: Any = d
    for part in path.split("."):
        if not isinstance(cur, Mapping):
            return None
        cur = cur.get(part)
    return cur


def _table(rows: Sequence[Mapping[str, Any]], cols: Sequence[tuple[str, str]]) -> str:
    if not rows:
        return "<p><em>none</em></p>"
    head = "".join(f"<th>{html.escape(label)}</th>" for label, _ in cols)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(fmt(get(r, key)))}</td>" for _, key in cols) + "</tr>"
        for r in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


FLOW_COLS = [
    ("flow", "name"),
    ("src → dst", "_path"),
    ("cc", "cc"),
    ("app", "app"),
    ("goodput (Mbit/s)", "goodput_mbps"),
    ("median", "goodput_stats_mbps.median"),
    ("RTT min (ms)", "rtt_ms.min"),
    ("RTT p50", "rtt_ms.p50"),
    ("RTT p95", "rtt_ms.p95"),
    ("RTT p99", "rtt_ms.p99"),
    ("jitter (ms)", "jitter_ms"),
    ("retransmits", "retransmits"),
    ("FCT mean (s)", "fct_s.mean"),
    ("FCT p95 (s)", "fct_s.p95"),
]
QUEUE_COLS = [
    ("queue", "name"),
    ("node", "node"),
    ("kind", "kind"),
    ("enqueued", "enqueued"),
    ("drops", "drops"),
    ("marks", "marks"),
    ("device drops", "device_drops"),
    ("device marks", "device_marks"),
    ("sojourn mean (ms)", "sojourn_ms.mean"),
    ("sojourn p95", "sojourn_ms.p95"),
    ("sojourn p99", "sojourn_ms.p99"),
    ("backlog mean (pkts)", "backlog_pkts.mean"),
    ("backlog max", "backlog_pkts.max"),
]
LINK_COLS = [
    ("link", "name"),
    ("from", "from"),
    ("to", "to"),
    ("rate (Mbit/s)", "rate_mbps"),
    ("utilization", "utilization"),
    ("throughput (Mbit/s)", "throughput_mbps"),
]
WIFI_COLS = [
    ("link", "name"),
    ("PHY (Mbit/s)", "phy_rate_mbps"),
    ("airtime", "airtime_share"),
    ("throughput (Mbit/s)", "throughput_mbps"),
    ("MPDUs / PPDU", "mpdus_per_ppdu"),
    ("PPDUs", "ppdus"),
    ("failed", "failed_ppdus"),
    ("collisions", "collisions"),
    ("MPDU drops", "mpdu_drops"),
]
ENGINE_COLS = [
    ("events", "events"),
    ("wall (s)", "wall_s"),
    ("events/s", "events_per_s"),
    ("sim s / wall s", "sim_s_per_wall_s"),
    ("packets forwarded", "packets_forwarded"),
    ("packets / wall s", "packets_per_wall_s"),
]

PLOT_TITLES = {
    "throughput": "Goodput",
    "cwnd": "Congestion window",
    "rtt": "Round-trip time",
    "queues": "Queues",
    "links": "Link utilization",
    "wifi": "Wi-Fi airtime and aggregation",
}


def _flow_rows(summary: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The summary's flows with their ``src → dst`` path, for :data:`FLOW_COLS`."""
    return [dict(f, _path=f"{f.get('src')} → {f.get('dst')}") for f in summary.get("flows", [])]


def _img(path: Path) -> str:
    data = base64.b64encode(path.read_bytes()).decode("ascii")
    return f'<img alt="{html.escape(path.stem)}" src="data:image/png;base64,{data}">'


def render(res: Result, images: Mapping[str, Path] | None = None) -> str:
    """The report as one HTML string; plots are embedded as data URIs."""
    s = res.summary
    flows = _flow_rows(s)
    # only queues that saw traffic, to keep big topologies readable
    queues = [q for q in s.get("queues", []) if (q.get("enqueued") or q.get("drops"))]
    links = [lk for lk in s.get("links", []) if lk.get("utilization")]
    title = html.escape(str(s.get("scenario", "airlab run")))
    base = res.scenario.get("scenario", res.scenario)
    desc = html.escape(str(base.get("description", "") or "") if isinstance(base, dict) else "")
    parts = [
        "<!doctype html><html><head><meta charset='utf-8'>",
        f"<title>airlab — {title}</title><style>{CSS}</style></head><body>",
        f"<h1>{title}</h1>",
        f"<p class='meta'>seed {fmt(s.get('seed'))} · {fmt(s.get('duration_s'))} s simulated"
        f" · Jain's fairness index {fmt(s.get('jain_index'))}</p>",
    ]
    if desc:
        parts.append(f"<p>{desc}</p>")
    parts += ["<h2>Flows</h2>", _table(flows, FLOW_COLS)]
    parts += [
        f"<h2>Queues</h2><p class='meta'>{len(queues)} of {len(s.get('queues', []))}"
        " queues carried traffic</p>",
        _table(queues, QUEUE_COLS),
    ]
    parts += [
        f"<h2>Links</h2><p class='meta'>{len(links)} of {len(s.get('links', []))}"
        " link directions carried traffic</p>",
        _table(links, LINK_COLS),
    ]
    for net in s.get("wifi") or []:
        used = [lk for lk in net.get("links", []) if lk.get("ppdus")]
        parts += [
            f"<h2>Wi-Fi network {html.escape(str(net.get('name')))}</h2><p class='meta'>channel "
            f"busy {fmt(net.get('busy_share'))} of the run; {len(used)} of "
            f"{len(net.get('links', []))} links carried frames</p>",
            _table(used, WIFI_COLS),
        ]
    for key, path in (images or {}).items():
        parts.append(f"<h2>{html.escape(PLOT_TITLES.get(key, key))}</h2>{_img(path)}")
    parts += ["<h2>Engine</h2>", _table([s.get("engine") or {}], ENGINE_COLS)]
    scen = html.escape(json.dumps(res.scenario, indent=2))
    parts.append(f"<details><summary>Resolved scenario</summary><pre>{scen}</pre></details>")
    parts.append("</body></html>\n")
    return "\n".join(parts)


def fragment(res: Result) -> str:
    """The run as a notebook cell shows it: a headline, the flows and the goodput plot."""
    import tempfile

    from airlab.plots import plot_throughput

    s = res.summary
    flows = _flow_rows(s)
    parts = [
        f"<p><strong>{html.escape(str(s.get('scenario', 'airlab run')))}</strong>"
        f" · seed {fmt(s.get('seed'))} · {fmt(s.get('duration_s'))} s simulated"
        f" · Jain's index {fmt(s.get('jain_index'))}</p>",
        _table(flows, FLOW_COLS),
    ]
    with tempfile.TemporaryDirectory() as d:
        plot = plot_throughput(res, Path(d) / "throughput.png")
        if plot is not None:
            parts.append(_img(plot))
    return "\n".join(parts)
