"""The recorded reproductions' pages are generated from their targets.json, and stay so."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from airlab.reproduce import explain, pages
from airlab.reproduce.runner import Reading, direction, point, write_targets

ROOT = Path(__file__).resolve().parents[1]


def test_every_recorded_page_is_its_targets_json_rendered() -> None:
    # A hand edit of a page, or a targets.json committed without its page, fails here:
    # `python -m airlab.reproduce.pages` renders them again.
    assert pages.stale(ROOT) == []


def test_a_page_scores_the_informative_rows_and_shows_why_rows_miss_or_cannot_fail(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    why = explain.Explanation("untested", "the queue sits at the relay, not the source")
    monkeypatch.setattr(explain, "load", lambda paper: {("E1", "", "RTT (ms)"): why})
    rows = [
        point("E1", "RTT (ms)", 100.0, 150.0),
        direction("E2", "A beats B", True, 3.0),
        point("E3", "A-MPDU size", 32.0, 32.0).not_informative(
            "configuration", "the cap is 32 MPDUs"
        ),
    ]
    doc = json.loads(write_targets(tmp_path, "fccc", False, rows).read_text())
    text = pages.paper_page("fccc", doc, ["fig1.png"])
    assert "**Score: 1 of 2 judged rows hit**, 2 of 3 with the 1 row that" in text
    assert "| judged | 0 | 1 | 1 | 0 |" in text and "| all | 1 | 1 | 1 | 0 |" in text
    assert "| E3 |  | A-MPDU size | 32 | 32 | ±20 % | within | no | no (configuration): the" in text
    assert "![fig1](fig1.png)" in text
    assert "| outside | yes | yes | untested (1) |" in text
    assert "1. **untested**: the queue sits at the relay, not the source" in text
    # A recorded calibration is a section of its own: the region, its plausible range, the goal.
    root = Path(__file__).resolve().parents[1]
    cal = json.loads((root / "docs/reproductions/fairtt/calibration.json").read_text())
    text = pages.paper_page("fccc", doc, [], cal)
    assert "## Calibration (a reading of its own, not judged)" in text
    lo, hi = cal["region"]["link.bottleneck.forward.loss"]
    assert "| `link.bottleneck.forward.loss` | 1e-07..0.01: From a wire" in text
    assert f"| {lo:.3g}..{hi:.3g} | " in text and "| 1.44 ± 0.288 |" in text


def test_the_summary_needs_its_markers(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "reproduce.md").write_text("# no block here\n")
    with pytest.raises(ValueError, match=r"reproduce\.md: expected one generated block"):
        pages.render(tmp_path)


def test_a_page_lists_the_declared_readings_and_judges_the_primary_one(tmp_path: Path) -> None:
    readings = [
        Reading("the flows' RTTs", "A", "access delays", True, "keeps the 10 ms", "2026-11-22"),
        Reading("the flows' RTTs", "B", "total RTTs", False, "literal", "2026-11-27"),
    ]
    rows = [point("E1", "ratio", 1.44, 1.5, "A"), point("E1", "ratio", 1.44, 3.0, "B")]
    rows[0].reading, rows[1].reading = ("A",), ("B",)
    doc = json.loads(write_targets(tmp_path, "fairtt", False, rows, readings).read_text())
    text = pages.paper_page("fairtt", doc, [])
    assert "**Score: 1 of 1 judged rows hit** (the primary readings), 1 of 2 informative" in text
    assert (
        "  - **A** (primary): access delays; keeps the 10 ms (in the plan since 2026-11-22)" in text
    )
    assert "  - **B**: total RTTs; literal (in the plan since 2026-11-27)" in text
    assert "| E1 | B | ratio | 1.44 | 3 | ±20 % | outside | no | yes |" in text
