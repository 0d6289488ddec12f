"""Explanations of missed rows: their file layout, its errors, and how they reach targets.json."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from airlab.reproduce import PAPERS, explain, runner
from airlab.reproduce.runner import point

ROOT = Path(__file__).resolve().parents[1]

ROW = {"experiment": "E3-1 (Fig. 3a)", "variant": "A", "metric": "throughput ratio, BBRv2"}


def _doc(**entry: object) -> dict:
    return {"explanation": [{"class": "untested", "text": "x", "rows": [ROW], **entry}]}


def test_an_explanation_covers_each_of_its_rows() -> None:
    other = {**ROW, "variant": "B"}
    doc = tomllib.loads(
        """
        [[explanation]]
        class = "demonstrated"
        text = '''v2alpha keeps the deep buffer full:
                  1e-3 loss brings the ratio to 1.26.'''
        rows = [
          { experiment = "E3-1 (Fig. 3a)", variant = "A", metric = "throughput ratio, BBRv2" },
          { experiment = "E3-1 (Fig. 3a)", variant = "B", metric = "throughput ratio, BBRv2" },
        ]
        """
    )
    ex = explain.parse(doc, "p.toml")
    key = tuple(ROW.values())
    assert set(ex) == {key, tuple(other.values())}
    assert ex[key].as_dict() == {
        "class": "demonstrated",
        "text": "v2alpha keeps the deep buffer full: 1e-3 loss brings the ratio to 1.26.",
    }


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ({"explain": []}, r"p\.toml: unknown key\(s\) \['explain'\]"),
        (_doc(**{"class": "likely"}), r"explanation 1: class 'likely', expected one of"),
        (_doc(text="  "), r"explanation 1: 'text' must be a non-empty string"),
        (_doc(rows=[]), r"explanation 1: 'rows' must be a non-empty array"),
        (_doc(rows=[{"experiment": "E1"}]), r"explanation 1, row 1: expected \{experiment"),
        (_doc(rows=[ROW, ROW]), r"explanation 1, row 2: .* is explained twice"),
        ({"explanation": [{"class": "none", "text": "x"}]}, r"expected the keys class, text"),
    ],
)
def test_a_bad_explanation_file_names_the_entry_and_the_key(doc: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        explain.parse(doc, "p.toml")


def test_each_row_of_targets_json_carries_its_explanation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ex = {tuple(ROW.values()): explain.Explanation("refuted", "not the send buffer: 6 MiB")}
    monkeypatch.setattr(explain, "load", lambda paper: ex)
    rows = [point(ROW["experiment"], ROW["metric"], 1.44, 3.0, ROW["variant"]),
            point("E3-7", "utilization %", 97.0, 97.5)]  # fmt: skip
    doc = json.loads(runner.write_targets(tmp_path, "fairtt", False, rows).read_text())
    assert doc["targets"][0]["explanation"] == {
        "class": "refuted", "text": "not the send buffer: 6 MiB"
    }  # fmt: skip
    assert doc["targets"][1]["explanation"] is None


def test_every_recorded_miss_is_explained_and_every_explanation_has_its_row() -> None:
    # An informative row a recorded full run misses says why (its class may be "none": not
    # yet looked into); an entry naming a row the run does not have is a stale explanation.
    for paper in PAPERS:
        doc = json.loads((ROOT / "docs" / "reproductions" / paper / "targets.json").read_text())
        assert doc["plan"] == "full", paper
        rows = {(t["experiment"], t["variant"], t["metric"]): t for t in doc["targets"]}
        unexplained = [
            k for k, t in rows.items()
            if t["informative"] and t["status"] in ("outside", "fails") and not t["explanation"]
        ]  # fmt: skip
        assert unexplained == [], paper
        ex = explain.load(paper)
        assert sorted(set(ex) - set(rows)) == [], paper
        # The recorded run carries the file's text: an edited explanation is re-recorded
        # (`airlab reproduce` on the kept runs only re-analyses them).
        stale = [
            k for k, t in rows.items() if t["explanation"] != (ex[k].as_dict() if k in ex else None)
        ]
        assert stale == [], paper
