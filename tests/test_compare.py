"""`airlab compare`: any results side by side, matched by entity name."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
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


def test_compare_refuses_labels_given_as_one_string() -> None:
    a = airlab.run(DUMBBELL, seed=1, set=SHORT)
    with pytest.raises(TypeError, match=r"^labels: .*the string 'a,b' \(write labels=\['a', 'b'\]"):
        compare(a, a, labels="a,b")  # type: ignore[arg-type]


def test_cells_names_a_row_the_table_does_not_have() -> None:
    a = airlab.run(DUMBBELL, seed=1, set=SHORT)
    cmp = compare(a, a, labels=["x", "y"])
    n = len(cmp.table)
    assert cmp.cells(-1) == cmp.cells(n - 1)
    for k in (n, -n - 1, 10**9):
        rows = rf"from 0 to {n - 1} \(or -{n} to -1 from the end\); got {k}"
        with pytest.raises(ValueError, match=rf"^k: expected a row number of the table, {rows}"):
            cmp.cells(k)
    with pytest.raises(TypeError, match=r"^k: expected a row number, an integer, got 'a'"):
        cmp.cells("a")  # type: ignore[arg-type]


def test_save_refuses_an_empty_path_and_keeps_no_plot_of_an_earlier_comparison(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    a = airlab.run(DUMBBELL, seed=1, set=SHORT)
    cmp = compare(a, a, labels=["x", "y"])
    monkeypatch.chdir(tmp_path)  # where "" used to write
    with pytest.raises(ValueError, match=r"^out_dir: expected a directory path, got an empty"):
        cmp.save("")
    assert not list(tmp_path.iterdir())
    d = cmp.save(tmp_path / "cmp")
    assert (d / "compare_goodput_mbps.png").exists() and (d / "compare_backlog.png").exists()
    (d / "mine.png").write_bytes(b"a user's file")
    cmp.save(d, plots=False)
    assert sorted(p.name for p in d.iterdir()) == ["compare.csv", "compare.md", "mine.png"]


def test_cli_compare_prints_and_writes(cli, tmp_path: Path) -> None:
    for seed in ("1", "2"):
        cli("run", DUMBBELL, "--seed", seed, "--set", "duration=2s", "--out", f"r{seed}",
            "--no-plots", check=True)  # fmt: skip
    out = cli("compare", "r1", "r2", "--out", "cmp", "--no-plots", check=True).stdout
    assert "goodput Mbit/s" in out and "airlab:r2 vs airlab:r1" in out
    assert (tmp_path / "cmp" / "compare.md").exists()
    proc = cli("compare", "r1")
    assert proc.returncode == 2 and "at least two" in proc.stderr


def _degraded(res, checks: list[dict]):
    """``res`` as a degraded testbed run that failed ``checks`` would be."""
    import copy

    from airlab.results import Result

    summary = copy.deepcopy(res.summary)
    summary["backend"] = "linux"
    summary["fidelity"] = {"degraded": True, "reasons": [c["detail"] for c in checks],
                           "checks": [{"subject": "run", "value": 0.5, "bound": 0.9, "op": ">=",
                                       "pass": False, **c} for c in checks]}  # fmt: skip
    return Result(summary=summary, scenario=res.scenario, source=None, flows=res.flows,
                  queues=res.queues, links=res.links, wifi=res.wifi, fcts=res.fcts,
                  pings=res.pings, batches=res.batches)  # fmt: skip


def test_compare_marks_every_number_a_degraded_runs_failed_check_affects(tmp_path: Path) -> None:
    sim = airlab.run(DUMBBELL, seed=1, set=SHORT)
    srtt = {"name": "samples.tcp_info", "subject": "flow cubic1", "detail": "2 of 30 samples",
            "affects": ["flows:cubic1:srtt_ms"]}  # fmt: skip
    link = {"name": "link.backlogged_utilization", "subject": "link bottleneck:r1->r2",
            "detail": "66 % of its rate", "affects": ["links:bottleneck:r1->r2",
                                                      "queues:bottleneck:r1->r2"]}  # fmt: skip
    real = _degraded(sim, [srtt, link])
    cmp = compare(sim, real, labels=["sim", "kernel"])
    t = cmp.table
    flagged = t[t["caveat"] != ""]
    # sRTT of cubic1 (p50 and p95), the bottleneck queue's numbers and its link's utilization;
    # nothing of cubic2, no goodput.
    assert set(zip(flagged["name"], flagged["metric"], strict=True)) == {
        ("cubic1", "sRTT p50 ms"), ("cubic1", "sRTT p95 ms"),
        ("bottleneck:r1->r2", "drops"), ("bottleneck:r1->r2", "backlog mean pkts"),
        ("bottleneck:r1->r2", "backlog max pkts"), ("bottleneck:r1->r2", "sojourn p50 ms"),
        ("bottleneck:r1->r2", "utilization"),
    }  # fmt: skip
    assert set(flagged["caveat"]) == {"kernel: samples.tcp_info (flow cubic1)",
                                      "kernel: link.backlogged_utilization (link "
                                      "bottleneck:r1->r2)"}  # fmt: skip
    row = int(t.index[(t["name"] == "cubic1") & (t["metric"] == "sRTT p50 ms")][0])
    cells = cmp.cells(row)
    assert "⚠" not in cells[3] and cells[4].endswith(" ⚠1") and cells[5].endswith(" ⚠1")
    goodput = int(t.index[(t["name"] == "cubic1") & (t["metric"] == "goodput Mbit/s")][0])
    assert "⚠" not in "".join(cmp.cells(goodput))
    assert cmp.notes() == [
        "⚠1: kernel is a degraded testbed run: samples.tcp_info (flow cubic1): 2 of 30 samples",
        "⚠2: kernel is a degraded testbed run: link.backlogged_utilization (link "
        "bottleneck:r1->r2): 66 % of its rate",
    ]
    md = cmp.markdown()
    assert "| flows | cubic1 | sRTT p50 ms |" in md and md.rstrip().endswith("66 % of its rate")
    # The other way round, the degraded run first: the difference still carries the caveat.
    back = compare(real, sim, labels=["kernel", "sim"])
    k = int(back.table.index[(back.table["name"] == "cubic1")
                             & (back.table["metric"] == "sRTT p50 ms")][0])  # fmt: skip
    assert back.cells(k)[3].endswith(" ⚠1") and back.cells(k)[5].endswith(" ⚠1")
    # A check affecting the whole run marks every number of that run.
    everything = compare(sim, _degraded(sim, [{"name": "cpu.available", "detail": "busy",
                                               "affects": ["*"]}]))  # fmt: skip
    shown = everything.table[everything.table.columns[4]].notna()
    assert (everything.table[shown]["caveat"] != "").all()
    out = cmp.save(tmp_path / "cmp", plots=False)
    assert "caveat" in (out / "compare.csv").read_text().splitlines()[0]


def test_compare_refuses_a_label_that_names_a_column() -> None:
    a = airlab.run(DUMBBELL, seed=1, set=SHORT)
    with pytest.raises(ValueError, match="caveat: a column of the table, not a label"):
        compare(a, a, labels=["x", "caveat"])


def test_compare_matches_thousands_of_flows_in_linear_time() -> None:
    import copy
    import time

    res = airlab.run("basics/dumbbell-cubic", set={"duration": "1s"})
    many = copy.copy(res)
    flow = res.summary["flows"][0]
    many.summary = dict(res.summary, flows=[dict(flow, name=f"f{k}") for k in range(5000)])
    other = copy.copy(many)
    other.summary = dict(many.summary, flows=list(reversed(many.summary["flows"])))
    t0 = time.process_time()
    cmp = compare(many, other, labels=["a", "b"])
    # Matched by name whatever the order: every flow's numbers equal, no difference anywhere.
    flows = cmp.table[cmp.table["table"] == "flows"]
    assert flows["name"].nunique() == 5000
    assert (flows["b vs a"].dropna() == 0).all()
    # A quadratic match took about 6 s of CPU for 2,000 flows; linear is well under a second.
    assert time.process_time() - t0 < 3.0


def test_a_long_series_of_a_dataframe_is_thinned_as_a_runs_columns_are() -> None:
    # the comparison's plots thin DataFrame rows, a run's figures arrays of its columns
    from airlab import plots

    n = 3 * plots.MAX_POINTS + 7
    rows = {"time_s": np.arange(n) / 10, "srtt_ms": np.where(np.arange(n) % 5, 1.0, np.nan)}
    from_arrays = plots._thin(rows, "srtt_ms")
    from_frame = plots._thin(pd.DataFrame(rows), "srtt_ms")
    assert len(from_arrays[0]) == n // 4 <= plots.MAX_POINTS
    for mine, theirs in zip(from_frame, from_arrays, strict=True):
        np.testing.assert_array_equal(mine, theirs)
    assert not np.isnan(from_arrays[1]).any()  # NaN samples left out of each mean
