"""`airlab compare`: any results side by side, matched by entity name."""

from __future__ import annotations

from pathlib import Path

import pytest

import airlab
from airlab.compare import compare

DUMBBELL = "basics/dumbbell-2cubic"
SHORT = {"duration": "3s"}


def test_compare_tabulates_each_metric_and_its_relative_difference(tmp_path: Path) -> None:
    a = airlab.run(DUMBBELL, seed=1, set=SHORT)
    b = airlab.run(DUMBBELL, seed=2, set=SHORT)
    a.save(tmp_path / "a", plots=False, report=False)
    cmp = compare(tmp_path / "a", b, labels=["one", "two"])
    t = cmp.table
    row = t[(t["name"] == "cubic1") & (t["metric"] == "goodput Mbit/s")].iloc[0]
    ga = next(f for f in a.summary["flows"] if f["name"] == "cubic1")["goodput_mbps"]
    gb = next(f for f in b.summary["flows"] if f["name"] == "cubic1")["goodput_mbps"]
    assert (row["one"], row["two"]) == pytest.approx((ga, gb))
    assert row["two vs one"] == pytest.approx(gb / ga - 1)
    # Distributions are compared by the named statistic; queues that held nothing are left out.
    srtt = t[(t["name"] == "cubic2") & (t["metric"] == "sRTT p50 ms")].iloc[0]
    assert srtt["one"] == pytest.approx(a.summary["flows"][1]["srtt_ms"]["p50"])
    queues = set(t[t["table"] == "queues"]["name"])
    assert "bottleneck:r1->r2" in queues and "h1-r1:h1->r1" not in queues
    md = cmp.markdown()
    assert "| flows | cubic1 | goodput Mbit/s |" in md and "two vs one" in md
    out = cmp.save(tmp_path / "cmp")
    assert (out / "compare.csv").exists() and (out / "compare_goodput_mbps.png").exists()
    assert (out / "compare_backlog.png").exists()


def test_compare_of_a_result_with_itself_is_zero_everywhere() -> None:
    a = airlab.run(DUMBBELL, seed=1, set=SHORT)
    cmp = compare(a, a, labels=["x", "y"])
    rel = cmp.table["y vs x"].dropna()
    assert len(rel) > 5 and (rel == 0).all()
    # Metrics neither result has (a bulk flow's FCT) are left out, not shown empty.
    assert "FCT s" not in set(cmp.table["metric"])


def test_compare_refuses_a_single_result_and_bad_labels() -> None:
    a = airlab.run(DUMBBELL, seed=1, set=SHORT)
    with pytest.raises(ValueError, match="at least two"):
        compare(a)
    with pytest.raises(ValueError, match="distinct labels"):
        compare(a, a, labels=["same", "same"])


def test_cli_compare_prints_and_writes(cli, tmp_path: Path) -> None:
    for seed in ("1", "2"):
        cli("run", DUMBBELL, "--seed", seed, "--set", "duration=2s", "--out", f"r{seed}",
            "--no-plots", check=True)  # fmt: skip
    out = cli("compare", "r1", "r2", "--out", "cmp", "--no-plots", check=True).stdout
    assert "goodput Mbit/s" in out and "airlab:r2 vs airlab:r1" in out
    assert (tmp_path / "cmp" / "compare.md").exists()
    proc = cli("compare", "r1")
    assert proc.returncode == 2 and "at least two" in proc.stderr
