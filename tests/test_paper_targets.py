"""The papers' numbers as data: the targets files' layout and errors, the rows built from them,
and that every entry is the number the recorded full run reports."""

from __future__ import annotations

import json
import math
import tomllib
from pathlib import Path
from typing import Any

import pytest

from airlab.reproduce import PAPERS, paper_targets, runner
from airlab.reproduce.paper_targets import RULES, parse

ROOT = Path(__file__).resolve().parents[1]
TARGETS = ROOT / "python" / "airlab" / "reproduce" / "targets"

POINT = {"experiment": "E3-1 (Fig. 3a)", "metric": "ratio", "rule": "point", "value": 1.44}


def _doc(*entries: dict[str, Any]) -> dict[str, Any]:
    return {"target": list(entries)}


def test_each_rule_builds_the_row_the_runner_constructor_builds() -> None:
    doc = tomllib.loads(
        """
        [[target]]
        experiment = "E"
        metric = "ratio"
        rule = "point"
        value = 1.44
        note = "Fig. 3a's bar"

        [[target]]
        experiment = "E"
        metric = "jain"
        rule = "absolute"
        value = 0.95
        tolerance = 0.05

        [[target]]
        experiment = "E"
        metric = "1/4-hop"
        rule = "factor"
        value = 150
        tolerance = 2

        [[target]]
        experiment = "E"
        metric = "cwnd"
        rule = "range"
        lo = 6.0
        hi = 8.0

        [[target]]
        experiment = "E"
        metric = "swing"
        rule = "threshold"
        lo = 4.0
        hi = inf

        [[target]]
        experiment = "E"
        metric = "FaiRTT lowers the ratio"
        rule = "direction"
        """
    )
    t = parse(doc, "p.toml")
    pairs = [
        (t.point("E", "ratio", 1.7, "A"), runner.point("E", "ratio", 1.44, 1.7, "A",
                                                        note="Fig. 3a's bar")),
        (t.point("E", "jain", 0.89), runner.point("E", "jain", 0.95, 0.89, absolute=0.05)),
        (t.point("E", "1/4-hop", 299.0), runner.point("E", "1/4-hop", 150.0, 299.0, factor=2)),
        (t.span("E", "cwnd", 5.0), runner.span("E", "cwnd", 6.0, 8.0, 5.0)),
        (t.span("E", "swing", 3.9), runner.span("E", "swing", 4.0, math.inf, 3.9,
                                                read_off_plot=False)),
        (t.direction("E", "FaiRTT lowers the ratio", False, -0.1, note="this run's remark"),
         runner.direction("E", "FaiRTT lowers the ratio", False, -0.1, note="this run's remark")),
    ]  # fmt: skip
    for ours, old in pairs:
        assert ours.as_dict() == old.as_dict()
    # A number written as an integer is the same float: the row says 150.0, as before.
    assert pairs[2][0].paper == 150.0 and isinstance(pairs[2][0].paper, float)
    assert [p[0].tolerance for p in pairs] == ["±20 %", "±0.05", "factor 2", "range ±20 %",
                                               "range", "direction"]  # fmt: skip
    # The entry's note and what the run adds are both kept.
    assert t.point("E", "ratio", 1.5, note="seed 3 stalled").note == "Fig. 3a's bar; seed 3 stalled"
    assert t.entry("E", "cwnd").bounds == (6.0, 8.0)
    assert t.entry("E", "ratio").bounds == (1.44, 1.44)


def test_an_entry_with_a_variant_answers_that_variants_row_only() -> None:
    t = parse(_doc({**POINT, "variant": "A"}, {**POINT, "variant": "B", "value": 2.0}), "p.toml")
    assert t.point(POINT["experiment"], "ratio", 1.0, "B").paper == 2.0
    with pytest.raises(LookupError, match=r"p\.toml: .*variant 'C' \(its variants: 'A', 'B'\)"):
        t.point(POINT["experiment"], "ratio", 1.0, "C")


def test_a_row_of_another_reading_takes_the_entry_of_its_variant() -> None:
    # The reading follows the entry's variant after a comma; the longest prefix with an entry
    # wins, and a prefix that is not at a comma does not count.
    t = parse(_doc({**POINT, "variant": "300, A-MPDU"}, {**POINT, "variant": "300", "value": 2.0}),
              "p.toml")  # fmt: skip
    assert t.entry(POINT["experiment"], POINT["metric"], "300, A-MPDU, PER 5 %").value == 1.44
    assert t.entry(POINT["experiment"], POINT["metric"], "300, PER 5 %").value == 2.0
    with pytest.raises(LookupError, match="variant '3000'"):
        t.entry(POINT["experiment"], POINT["metric"], "3000")


def test_a_lookup_the_file_cannot_answer_names_the_file_and_the_key() -> None:
    t = parse(_doc(POINT), "airlab/reproduce/targets/fairtt.toml")
    unknown = r"fairtt\.toml: no target for experiment 'E3-1 \(Fig\. 3a\)', metric 'ratios' "
    with pytest.raises(LookupError, match=unknown + r"\(its metrics: 'ratio'\)"):
        t.point("E3-1 (Fig. 3a)", "ratios", 1.0)
    with pytest.raises(LookupError, match=r"no entry has experiment 'E9'"):
        t.point("E9", "ratio", 1.0)
    # The analysis asks for the kind of row the file declares.
    kind = r"fairtt\.toml: experiment .* rule 'point', but the analysis compares a span here "
    with pytest.raises(ValueError, match=kind + r"\(rule 'range' or 'threshold'\)"):
        t.span("E3-1 (Fig. 3a)", "ratio", 1.0)
    with pytest.raises(ValueError, match=r"compares a direction here"):
        t.direction("E3-1 (Fig. 3a)", "ratio", True, 1.0)


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ({"targets": []}, r"p\.toml: unknown key\(s\) \['targets'\], expected \[\[target\]\]"),
        ({}, r"p\.toml: expected \[\[target\]\] entries"),
        (_doc({**POINT, "valeu": 1.0}), r"p\.toml: target 1: unknown key\(s\) \['valeu'\]"),
        (_doc({k: v for k, v in POINT.items() if k != "value"}),
         r"target 1 \('E3-1 \(Fig\. 3a\)', 'ratio'\): rule 'point' needs value; missing"),
        (_doc({**POINT, "rule": "points"}),
         r"target 1 .*: rule 'points', expected one of: point \(within ±20 % of value\); abs"),
        (_doc({**POINT, "tolerance": 0.1}), r"rule 'point' takes value, not \['tolerance'\]"),
        (_doc({**POINT, "rule": "direction"}), r"rule 'direction' takes no numbers, not"),
        (_doc({**POINT, "rule": "absolute", "tolerance": 0}), r"'tolerance' must be positive"),
        (_doc({**POINT, "rule": "factor", "tolerance": 0.5}), r"factor tolerance must exceed 1"),
        (_doc({**POINT, "value": "1.44"}), r"'value' must be a number, got '1\.44'"),
        (_doc({**POINT, "value": math.inf}), r"'value' must be a finite number"),
        (_doc({**POINT, "rule": "range", "lo": 6.0, "hi": 8.0}),
         r"rule 'range' takes lo, hi, not \['value'\]"),
        (_doc({"experiment": "E", "metric": "m", "rule": "range", "lo": 8.0, "hi": 6.0}),
         r"target 1 \('E', 'm'\): expected lo < hi"),
        (_doc({**POINT, "metric": " "}), r"target 1: 'metric' must be a non-empty string"),
        (_doc({**POINT, "variant": 3}), r"'variant' must be a string, got 3"),
        (_doc(POINT, POINT), r"target 2 .*: declared twice \(as target 1\)"),
        (_doc(POINT, {**POINT, "variant": "A"}),
         r"target 2 .*: declared both for every variant and per variant \(see target 1\)"),
        ({"target": ["x"]}, r"target 1: expected a table"),
    ],
)  # fmt: skip
def test_a_bad_targets_file_names_the_entry_and_the_key(doc: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse(doc, "p.toml")


def test_a_paper_without_a_targets_file_is_refused() -> None:
    with pytest.raises(ValueError, match=r"targets/nopaper\.toml: no such file"):
        paper_targets.load("nopaper")


def test_every_paper_declares_its_numbers_in_its_own_file() -> None:
    assert sorted(p.stem for p in TARGETS.glob("*.toml")) == sorted(PAPERS)
    for name, mod in PAPERS.items():
        assert mod.TARGETS is paper_targets.load(name)
        assert mod.TARGETS.source == f"airlab/reproduce/targets/{name}.toml"


def _paper_side(e: paper_targets.Entry) -> tuple[Any, str]:
    """What a row built from ``e`` says in its ``paper`` and ``tolerance`` columns."""
    row = {
        "point": lambda: runner.point("", "", e.value, 0.0),
        "absolute": lambda: runner.point("", "", e.value, 0.0, absolute=e.tolerance),
        "factor": lambda: runner.point("", "", e.value, 1.0, factor=e.tolerance),
        "range": lambda: runner.span("", "", e.lo, e.hi, 0.0),
        "threshold": lambda: runner.span("", "", e.lo, e.hi, 0.0, read_off_plot=False),
        "direction": lambda: runner.direction("", "", True, 0.0),
    }[e.rule]()
    return row.paper, row.tolerance


@pytest.mark.parametrize("paper", sorted(PAPERS))
def test_every_entry_is_a_row_of_the_recorded_full_run(paper: str) -> None:
    # A number the file declares and no row reports is a silent drop; a recorded row whose
    # paper side is not the file's is a stale record or a mistyped entry (rerunning
    # `airlab reproduce` on the kept runs re-records it).
    doc = json.loads((ROOT / "docs" / "reproductions" / paper / "targets.json").read_text())
    assert doc["plan"] == "full", paper
    rows = doc["targets"]
    targets = PAPERS[paper].TARGETS
    unreported = targets.unreported((r["experiment"], r["variant"], r["metric"]) for r in rows)
    assert [e.describe() for e in unreported] == [], paper
    for r in rows:
        e = targets.entry(r["experiment"], r["metric"], r["variant"])
        assert (r["paper"], r["tolerance"]) == _paper_side(e), r
        # The entry's note is where the number comes from; a run may add its own after it.
        assert r["note"].startswith(e.note), r


def test_unreported_names_an_entry_no_row_reports() -> None:
    t = parse(_doc(POINT, {**POINT, "metric": "jain", "variant": "A"},
                   {**POINT, "metric": "jain", "variant": "B"}), "p.toml")  # fmt: skip
    e = POINT["experiment"]
    rows = [(e, "A", "ratio"), (e, "A", "jain")]
    assert [(x.metric, x.variant) for x in t.unreported(rows)] == [("jain", "B")]
    assert [x.metric for x in t.unreported([])] == ["ratio", "jain", "jain"]


def test_the_rules_are_documented() -> None:
    text = (ROOT / "docs" / "reproduce.md").read_text()
    for rule in RULES:
        assert f"`{rule}`" in text, rule
