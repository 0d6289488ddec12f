"""The recorded reproductions' pages are generated from their targets.json, and stay so."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from airlab.reproduce import explain, pages
from airlab.reproduce.runner import direction, point, write_targets

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
    text = pages.paper_page("fccc", doc, ["fig1.png"], notes=True)
    assert "**Score: 1 of 2 informative rows hit**, 2 of 3 with the 1 row that" in text
    assert "| informative | 0 | 1 | 1 | 0 |" in text and "| all | 1 | 1 | 1 | 0 |" in text
    assert "| E3 |  | A-MPDU size | 32 | 32 | ±20 % | within | no (configuration): the cap" in text
    assert "![fig1](fig1.png)" in text and "[notes.md](notes.md)" in text
    assert "| outside | yes | untested (1) |" in text
    assert "1. **untested**: the queue sits at the relay, not the source" in text


def test_the_summary_needs_its_markers(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "reproduce.md").write_text("# no block here\n")
    with pytest.raises(ValueError, match=r"reproduce\.md: expected one generated block"):
        pages.render(tmp_path)
