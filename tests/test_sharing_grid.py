"""The sharing grid (issue 33): its cells are the ones the issue asks for, each a valid
scenario; a cell's flows see the base RTTs it names; the comparison holds every flow's share to
5 points."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

import airlab
from airlab.testbed import sharing
from airlab.testbed.grid import ceiling, counts, run_cells


def test_the_grid_spans_what_decides_sharing() -> None:
    cells = sharing.CELLS
    assert len(cells) >= 60
    assert len({c.name for c in cells}) == len(cells)
    rtts = {f.rtt_ms for c in cells for f in c.flows}
    assert min(rtts) == 5 and max(rtts) == 100
    assert {c.rate_mbit for c in cells} == {10, 50, 100}
    assert {c.qdisc for c in cells} == {"pfifo", "bfifo", "tbf"}
    assert min(c.buffer_bdp for c in cells) == 0.5 and max(c.buffer_bdp for c in cells) == 4
    mixes = {tuple(sorted({f.cc for f in c.flows})) for c in cells}
    pairs = {("cubic", "reno"), ("bbr1", "cubic"), ("bbr1", "reno"), ("bbr1", "cubic", "reno")}
    assert pairs <= mixes
    assert max(len(c.flows) for c in cells) == 8
    assert any(f.start_s for c in cells for f in c.flows)
    assert {f.size for c in cells for f in c.flows if f.size} == {10_000, 100_000, 1_000_000}


def test_every_cell_is_a_valid_scenario(tmp_path: Path) -> None:
    for cell in sharing.CELLS:
        path = tmp_path / "cell.toml"
        path.write_text(cell.scenario())
        resolved = airlab.validate(path)
        assert len(resolved["flows"]) == len(cell.flows), cell.name


def test_a_cell_runs_and_its_flows_see_their_base_rtts(tmp_path: Path) -> None:
    cell = sharing.SharingCell(
        "rtt", tuple(sharing.Flow("cubic", rtt) for rtt in (5, 10, 40, 100)), 50, 1.0,
        duration_s=4, warmup_s=1,
    )  # fmt: skip
    out = tmp_path / "rows.csv"
    run_cells([cell], "airlab", out, seeds=1, duration=None, rows_of=sharing.rows)
    rows = pd.read_csv(out)
    assert list(rows["rtt_ms"]) == [5, 10, 40, 100]
    assert rows["share"].sum() == pytest.approx(1.0)
    res = airlab.run_text(cell.scenario(), set={"metrics.warmup": "0s"})
    # no sample is below the base RTT, none of the smallest above it by more than the buffer
    # (1 BDP of the 5 ms path: 5 ms) and a packet's serialization: the longer flows start into
    # the queue the shorter ones filled
    drain_ms = cell.buffer_bytes * 8 / (cell.rate_mbit * 1e6) * 1e3
    assert drain_ms == pytest.approx(5.0, rel=0.01)
    for f, rtt in zip(res.summary["flows"], (5, 10, 40, 100), strict=True):
        assert rtt <= f["rtt_ms"]["min"] < rtt + drain_ms + 0.5, f["name"]
    # the comparison: the same rows are within every target; one flow's share 6 points off
    # is not
    same = sharing.compare(rows, rows)
    assert same["all_ok"].all()
    # a degraded kernel run does not count, unless what its failed checks affect leaves every
    # flow alone (the qdisc sampler's coverage affects only the queue and link series)
    assert not rows["degraded"].any() and rows["failed_affects"].isna().all()
    reversed_shares = rows["share"][::-1].values
    queues = "links:r1->h2;queues:r1->h2"
    for affected, counted in [("*", False), (f"flows:f1;{queues}", False), (pd.NA, False),
                              ("", False), (queues, True)]:  # fmt: skip
        run2 = rows.assign(seed=2, share=reversed_shares, degraded=True, failed_affects=affected)
        ok = bool(sharing.compare(pd.concat([rows, run2]), rows)["all_ok"].all())
        assert ok is not counted, affected
    moved = rows.copy()
    moved.loc[0, "share"] += 0.06
    moved.loc[1, "share"] -= 0.06
    cmp = sharing.compare(rows, moved)
    assert not cmp["share_ok"].any()
    assert cmp["share_worst_points"].iloc[0] == pytest.approx(0.06)


def test_identical_flows_are_compared_by_the_rank_of_their_share() -> None:
    cell = next(c for c in sharing.CELLS if c.name == "many/4xbbr1-20ms/pfifo1/50M")
    assert cell.exchangeable
    assert not next(c for c in sharing.CELLS if c.group == "stagger").exchangeable

    def runs(splits: list[list[float]]) -> pd.DataFrame:
        return pd.DataFrame(
            {"cell": cell.name, "group": cell.group, "seed": seed, "flow": f"f{k}",
             "goodput_mbps": 50 * share, "share": share, "srtt_p50_ms": 40.0,
             "fct_mean_s": float("nan")}
            for seed, split in enumerate(splits, 1) for k, share in enumerate(split, 1)
        )  # fmt: skip

    # The kernel's winner changes from run to run: by name every flow's median is near 1/4,
    # but each run splits 0.45 / 0.3 / 0.15 / 0.1.
    unequal = [0.45, 0.3, 0.15, 0.1]
    kernel = runs([unequal, unequal[::-1], unequal[1:] + unequal[:1]])
    assert sharing.compare(kernel, runs([unequal] * 3))["all_ok"].all()
    even = sharing.compare(kernel, runs([[0.25] * 4] * 3))
    assert not even["share_ok"].any()
    assert even["share_worst_points"].iloc[0] == pytest.approx(0.2)


def _two_flow_rows(cell: str, f1_shares: list[float]) -> pd.DataFrame:
    rows = []
    for seed, share in enumerate(f1_shares, 1):
        for flow, s in (("f1", share), ("f2", 1 - share)):
            rows.append({"cell": cell, "group": "rtt", "seed": seed, "flow": flow,
                         "goodput_mbps": 10 * s, "share": s, "srtt_p50_ms": 30.0,
                         "fct_mean_s": float("nan")})  # fmt: skip
    return pd.DataFrame(rows)


def test_the_ceiling_is_what_a_model_scores_against_its_own_runs() -> None:
    """A cell whose runs agree is always within target against itself; one whose runs split
    between two outcomes is within only when three drawn runs and nine others share a median
    mode, which a perfect model cannot arrange."""
    steady = _two_flow_rows("steady", [0.5] * 24)
    bimodal = _two_flow_rows("bimodal", [0.3, 0.7] * 12)
    runs = pd.Series({"steady": 3, "bimodal": 3})
    c = ceiling(sharing.compare, runs, pd.concat([steady, bimodal]), model_seeds=9, splits=60)
    assert c.per_cell["steady"] == 1.0
    assert 0.2 < c.per_cell["bimodal"] < 0.8
    assert min(c.scores) >= 0.5 and sum(c.scores) / len(c.scores) < 0.9
    assert "bimodal" in c.summary() and "steady" not in c.summary()
    with pytest.raises(ValueError, match="cell steady: 24 simulator seeds cannot hold 16"):
        ceiling(sharing.compare, pd.Series({"steady": 16}), steady, model_seeds=9)


def test_kernel_rows_without_a_verdict_count_and_degraded_ones_do_not() -> None:
    """The TCP grid's early kernel rows carry no verdict (an empty column in the CSV): they
    count; a degraded run counts only if its failures leave every flow alone."""
    rows = pd.DataFrame({
        "degraded": [float("nan"), False, True, True],
        "failed_affects": [float("nan"), "", "*", "queues:bottleneck:r1->h2"],
    })  # fmt: skip
    assert counts(rows).tolist() == [True, True, False, True]
    assert counts(rows.drop(columns=["degraded", "failed_affects"])).all()
