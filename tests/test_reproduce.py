"""The reproduction machinery: statistics, target rows, resumable job runs."""

from __future__ import annotations

import json
import math
from pathlib import Path

import jsonschema
import numpy as np
import pandas as pd
import pytest

from airlab import jobs as jb
from airlab.reproduce import runner
from airlab.reproduce.explain import CLASSES
from airlab.reproduce.runner import Job, direction, jain, mean_ci, point
from airlab.schema import schema
from conftest import DUMBBELL


def test_mean_ci_is_the_student_t_interval() -> None:
    mean, half = mean_ci([1, 2, 3, 4, 5])
    # t(0.975, 4) = 2.7764; s = sqrt(2.5); n = 5
    assert mean == 3
    assert math.isclose(half, 2.7764451 * math.sqrt(2.5) / math.sqrt(5), rel_tol=1e-6)
    assert math.isnan(mean_ci([7.0])[1])


def test_jain_two_flow_identity() -> None:
    r = 1.44
    assert math.isclose(jain([r, 1.0]), (1 + r) ** 2 / (2 * (1 + r * r)))


def test_point_tolerances_and_direction_rows() -> None:
    assert point("E", "ratio", 1.44, 1.70).status == "within"  # +18 %
    assert point("E", "ratio", 1.44, 1.75).status == "outside"  # +21.5 %
    assert point("E", "jain", 0.95, 0.91, absolute=0.05).status == "within"
    assert point("E", "jain", 0.95, 0.89, absolute=0.05).status == "outside"
    # a large ratio is compared on a log scale: within a factor 2 either way
    assert point("E", "1/4-hop", 150.0, 76.0, factor=2).status == "within"
    assert point("E", "1/4-hop", 150.0, 299.0, factor=2).status == "within"
    assert point("E", "1/4-hop", 150.0, 74.0, factor=2).status == "outside"
    # claims hold or fail: a filter on the status finds every failing one
    row = direction("E", "FaiRTT lowers the ratio", False, -0.1).as_dict()
    assert row["status"] == "fails" and row["airlab"] == -0.1
    assert direction("E", "c", True, 0.3).status == "holds"
    assert set(row) >= {"experiment", "metric", "paper", "airlab", "tolerance", "status"}


def test_a_ratio_over_seeds_is_the_ratio_of_means() -> None:
    # A 2:1 split one way in one seed and the other way in the next: the flows share evenly
    # on average. The mean of per-seed ratios says 1.25.
    r, half = runner.ratio_of_means([6.0, 3.0], [3.0, 6.0])
    assert r == 1.0 and half > 1.0
    r, half = runner.ratio_of_means([6.0, 6.2, 5.8], [3.0, 3.1, 2.9])
    assert math.isclose(r, 2.0) and half < 1e-9


def test_targets_say_their_plan_and_count_each_measurement_once(tmp_path: Path) -> None:
    rows = [point("E1", "m", 1.0, 1.1), direction("E2", "c", False, -1.0)]
    runner.write_targets(tmp_path, "p", True, rows)
    doc = json.loads((tmp_path / "targets.json").read_text())
    assert doc["plan"] == "quick" and "smoke run" in doc["note"]
    assert doc["counts"] == {"within": 1, "outside": 0, "holds": 0, "fails": 1}
    assert [t["status"] for t in doc["targets"]] == ["within", "fails"]
    with pytest.raises(ValueError, match="more than once"):
        runner.write_targets(tmp_path, "p", False, [*rows, point("E1", "m", 2.0, 2.0)])


def test_rows_that_cannot_fail_count_apart(tmp_path: Path) -> None:
    # A configured cap echoed back is within whatever the model does: it stays in the table
    # and the full count, not in the informative score.
    cap = point("E2-4", "1-hop A-MPDU size", 32.0, 32.0).not_informative(
        "configuration", "the scenario caps an A-MPDU at 32 MPDUs"
    )
    rows = [point("E1", "m", 1.0, 1.1), direction("E2", "c", False, -1.0), cap]
    doc = json.loads(runner.write_targets(tmp_path, "p", False, rows).read_text())
    assert doc["counts"] == {"within": 2, "outside": 0, "holds": 0, "fails": 1}
    assert doc["informative_counts"] == {"within": 1, "outside": 0, "holds": 0, "fails": 1}
    assert doc["score"].startswith("1 of 2 judged rows hit; 1 more row cannot fail")
    assert "all rows: 2 of 3" in doc["score"] and doc["readings"] == []
    assert doc["judged_counts"] == doc["informative_counts"]
    assert doc["targets"][2]["not_informative"] == {
        "reason": "configuration", "why": "the scenario caps an A-MPDU at 32 MPDUs"
    }  # fmt: skip
    assert doc["targets"][0]["informative"] and doc["targets"][0]["not_informative"] is None
    with pytest.raises(ValueError, match="expected one of"):
        point("E1", "m", 1.0, 1.0).not_informative("boring", "it is")
    with pytest.raises(ValueError, match="say why"):
        point("E1", "m", 1.0, 1.0).not_informative("duplicate", "")


def test_rows_of_a_reading_that_is_not_primary_are_reported_not_judged(tmp_path: Path) -> None:
    def reading(name: str, primary: bool) -> runner.Reading:
        return runner.Reading(
            "topology", name, f"reading {name}", primary, "the text", "2026-11-22"
        )

    readings = [reading("A", True), reading("B", False)]
    rows = []
    for name, ours in (("A", 1.1), ("B", 3.0)):
        t = point("E1", "ratio", 1.0, ours, name)
        t.reading = (name,)
        rows.append(t)
    rows.append(point("E2", "utilization", 97.0, 98.0))  # no reading: judged
    doc = json.loads(runner.write_targets(tmp_path, "p", False, rows, readings).read_text())
    assert [t["judged"] for t in doc["targets"]] == [True, False, True]
    assert doc["judged_counts"] == {"within": 2, "outside": 0, "holds": 0, "fails": 0}
    assert doc["score"].startswith("2 of 2 judged rows hit (the primary readings; with the "
                                   "other readings 2 of 3 informative rows)")  # fmt: skip
    assert doc["readings"][0] == dict(
        ambiguity="topology", name="A", choice="reading A", primary=True, why="the text",
        added="2026-11-22",
    )  # fmt: skip
    rows[1].reading = ("C",)
    with pytest.raises(ValueError, match="undeclared reading 'C'"):
        runner.write_targets(tmp_path, "p", False, rows, readings)
    rows[1].reading = ("A", "B")
    with pytest.raises(ValueError, match="two readings of one ambiguity"):
        runner.write_targets(tmp_path, "p", False, rows, readings)
    with pytest.raises(ValueError, match="expected one primary reading"):
        runner.write_targets(tmp_path, "p", False, rows, [reading("A", True), reading("B", True)])


def test_the_schema_knows_every_reason_a_row_cannot_fail_and_every_explanation_class() -> None:
    props = schema("targets")["properties"]["targets"]["items"]["properties"]
    reasons = props["not_informative"]["oneOf"][1]["properties"]["reason"]["enum"]
    assert reasons == list(runner.UNINFORMATIVE)
    assert props["explanation"]["oneOf"][1]["properties"]["class"]["enum"] == list(CLASSES)


def test_job_ids_ignore_override_order() -> None:
    a = Job(DUMBBELL, (("duration", "2s"), ("seed", "1")), 1)
    b = Job(DUMBBELL, (("seed", "1"), ("duration", "2s")), 1)
    assert a.id == b.id != Job(DUMBBELL, a.params, 2).id


def test_run_jobs_resumes_and_keeps_series(tmp_path: Path) -> None:
    jobs = [Job(DUMBBELL, (("duration", "2s"),), s, (("seed_tag", s),)) for s in (1, 2)]
    links = ("bottleneck:r1->r2",)
    first = jb.run_jobs(jobs, tmp_path, keep=jb.Keep(goodput=True, links=links))
    assert (len(first.executed), first.skipped) == (2, 0)
    rec = next(iter(first.records.values()))
    assert len(rec["goodput_mbps"]["cubic"]) == 20  # 2 s of 100 ms samples
    assert len(rec["utilization"]["bottleneck:r1->r2"]) == 20
    assert rec["tags"]["seed_tag"] in (1, 2)
    again = jb.run_jobs(jobs, tmp_path, keep=jb.Keep(goodput=True, links=links))
    assert (len(again.executed), again.skipped) == (0, 2)
    (tmp_path / "runs" / f"{jobs[0].id}.json").unlink()
    third = jb.run_jobs(jobs, tmp_path, keep=jb.Keep(goodput=True, links=links))
    assert (len(third.executed), third.skipped) == (1, 1)
    # records come in job order however the runs finished, so runs.parquet is stable
    assert list(third.records) == [j.id for j in jobs] == list(first.records)
    assert not [p for p in (tmp_path / "runs").iterdir() if p.name.startswith(".")]
    assert third.records[jobs[0].id]["summary"] == first.records[jobs[0].id]["summary"] | {
        "engine": third.records[jobs[0].id]["summary"]["engine"]
    }


def _targets(out: Path, every_entry: bool = True) -> list[dict]:
    """The rows of a quick run's targets.json, each checked against its own tolerance;
    ``every_entry``: the tiny plan has every row, so each entry of the paper's targets file is
    one of them."""
    from airlab.reproduce import PAPERS

    doc = json.loads((out / "targets.json").read_text())
    jsonschema.validate(doc, schema("targets"))
    assert doc["plan"] == "quick" and "smoke run" in doc["note"]
    rows = doc["targets"]
    assert sum(doc["counts"].values()) == len(rows)
    keys = [(r["experiment"], r["variant"], r["metric"]) for r in rows]
    assert len(set(keys)) == len(keys), "a measurement compared twice"
    if every_entry:
        unreported = PAPERS[doc["paper"]].TARGETS.unreported(keys)
        assert [e.describe() for e in unreported] == [], "declared numbers no row reports"
    for r in rows:
        assert set(r) == {"experiment", "variant", "metric", "paper", "airlab", "tolerance",
                          "status", "note", "informative", "not_informative",
                          "explanation", "reading", "judged"}  # fmt: skip
        assert r["informative"] == (r["not_informative"] is None), r
        assert r["status"] in ("within", "outside", "holds", "fails"), r
        if r["status"] in ("holds", "fails"):
            continue
        tol, paper, ours = r["tolerance"], r["paper"], r["airlab"]
        if tol.startswith("range"):  # "a to b", "<= b" (from 0) or ">= a"
            if paper.startswith("<="):
                lo, hi = 0.0, float(paper[2:])
            elif paper.startswith(">="):
                lo, hi = float(paper[2:]), math.inf
            else:
                lo, hi = (float(x) for x in paper.split(" to "))
            widen = 0.2 if tol == "range ±20 %" else 0.0  # read off a plot, or a threshold
            ok = lo - widen * abs(lo) <= ours <= (hi + widen * hi if math.isfinite(hi) else hi)
        elif tol.startswith("factor"):
            k = float(tol.split()[1])
            ok = paper / k <= ours <= paper * k
        else:
            allowed = 0.2 * abs(paper) if tol == "±20 %" else float(tol.lstrip("±"))
            ok = abs(ours - paper) <= allowed
        assert ok == (r["status"] == "within"), r
    return rows


def test_fairtt_reproduction_end_to_end(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`airlab reproduce fairtt --quick` on a tiny plan: every artefact, every paper number."""
    from airlab import cli
    from airlab.reproduce import fairtt

    tiny = fairtt.Plan(seeds=(1, 2), duration_s=15, buffers_bdp=(2, 10), rtts_ms=(5, 15))
    monkeypatch.setattr(fairtt, "QUICK", tiny)
    jobs = fairtt.jobs(quick=True)
    # Per platform, reading of the topology and seed: 4 alternative FaiRTT readings, and per
    # algorithm the buffer and RTT sweeps, which share their main point (10 BDP, 15 ms); on the
    # primary platform, 3 more error rates per algorithm at the main point.
    assert len({j.id for j in jobs}) == 3 * 2 * 2 * (4 + 2 * 3) + 2 * 2 * 2 * 3
    with pytest.raises(SystemExit) as done:
        cli.main(["reproduce", "fairtt", "--quick", "--out", str(tmp_path)])
    assert done.value.code in (0, None)

    rows = _targets(tmp_path)
    platforms = ("ns-3", "ns-3 Lanigan port", "Linux")
    assert {r["variant"] for r in rows} == {f"{v}, {p}" for v in "AB" for p in platforms}
    paper = {(r["variant"], r["metric"]): r["paper"] for r in rows}
    assert paper["A, ns-3", "throughput ratio, BBRv2"] == 1.44
    assert paper["B, Linux", "throughput ratio, FaiRTT"] == 1.05
    assert paper["A, ns-3 Lanigan port", "utilization %, FaiRTT"] == 98.78
    judged = {r["variant"] for r in rows if r["judged"]}
    assert judged == {"A, ns-3"}

    runs = pd.read_parquet(tmp_path / "runs.parquet")
    assert len(runs) == len({j.id for j in jobs})
    assert ((runs.jain_mean > 0.5) & (runs.jain_mean <= 1.0)).all()
    # Both flows together keep a 10 Mbit/s Drop-Tail bottleneck busy in every run.
    assert (runs.utilization_pct > 90).all(), runs.utilization_pct.min()
    assert (abs(runs.ratio - runs.thr_elephant / runs.thr_mice) < 1e-12).all()
    report = (tmp_path / "report.html").read_text()
    assert "matches the paper's throughput ratio best under" in report
    assert "Sensitivity to the reconstruction" in report
    assert report.count("Sensitivity to the bottleneck's packet error rate") == 2
    figures = sorted(p.name for p in (tmp_path / "figures").iterdir())
    assert len(figures) >= 6 * 5, figures


def test_run_jobs_keeps_requested_series(tmp_path: Path) -> None:
    """A paper module's SERIES are stored per entity; a run stored without them is redone."""
    jobs = [Job(DUMBBELL, (("duration", "2s"),), 1)]
    plain = jb.run_jobs(jobs, tmp_path)
    assert "series" not in plain.records[jobs[0].id]
    series = {"flows": ("cwnd_pkts", "srtt_ms"), "queues": ("backlog_pkts",)}
    again = jb.run_jobs(jobs, tmp_path, keep=jb.Keep(series=series))
    assert (len(again.executed), again.skipped) == (1, 0)
    rec = again.records[jobs[0].id]
    assert len(rec["series"]["flows"]["cubic"]["cwnd_pkts"]) == 20
    assert len(rec["series"]["queues"]["bottleneck:r1->r2"]["backlog_pkts"]) == 20
    assert jb.run_jobs(jobs, tmp_path, keep=jb.Keep(series=series)).skipped == 1
    # Asking for fewer series than were stored needs no rerun either.
    assert jb.run_jobs(jobs, tmp_path, keep=jb.Keep(series={"flows": ("cwnd_pkts",)})).skipped == 1


def test_bufferbloat_11n_reproduction_end_to_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`airlab reproduce bufferbloat-11n --quick` on a tiny plan: artefacts and paper numbers."""
    from airlab import cli
    from airlab.reproduce import PAPERS, bufferbloat_11n

    assert PAPERS["bufferbloat-11n"] is bufferbloat_11n
    tiny = bufferbloat_11n.Plan(seeds=(1,), duration_s=3, warmup_s=1)
    monkeypatch.setattr(bufferbloat_11n, "QUICK", tiny)
    jobs = bufferbloat_11n.jobs(quick=True)
    # Chains: 3 rates x 4 hops without A-MPDU, 2 rates x 4 hops with it, 2 rates x 2 partial;
    # the parking lot at 3 rates without and 2 with A-MPDU; at each of 4 PHY error rates.
    assert len({j.id for j in jobs}) == 4 * (12 + 8 + 4 + 3 + 2)
    lossy = [j for j in jobs if dict(j.tags)["per"] > 0]
    assert all(("wifi.chain.per", f"{dict(j.tags)['per']:g}") in j.params for j in lossy)
    partial = [j for j in jobs if dict(j.tags)["ampdu"] == "partial" and dict(j.tags)["hops"] == 4]
    assert {k for k, v in partial[0].params if v == "false"} == {
        "wifi.chain.node.n2.aggregation.enabled",
        "wifi.chain.node.n3.aggregation.enabled",
    }
    slow = [dict(j.tags) for j in jobs if ("wifi.chain.mcs", "0") in j.params]
    assert slow and all(t["ampdu"] == "none" for t in slow)  # never aggregate at 6.5 Mbit/s
    with pytest.raises(SystemExit) as done:
        cli.main(["reproduce", "bufferbloat-11n", "--quick", "--out", str(tmp_path)])
    assert done.value.code in (0, None)

    rows = _targets(tmp_path)
    assert any(r["tolerance"] == "factor 2" for r in rows)  # the 33x and 150x ratios
    experiments = {r["experiment"].split()[0] for r in rows}
    assert experiments == {f"E2-{i}" for i in range(1, 10)}
    paper = {(r["variant"], r["metric"]): r["paper"] for r in rows}
    assert paper["300 Mbit/s, no A-MPDU", "1-hop RTT (ms)"] == 286
    assert paper["6.5 Mbit/s, no A-MPDU", "Jain's index over the 4 flows"] == 0.86
    assert paper["300 Mbit/s, A-MPDU", "1-hop / 4-hop throughput"] == 150
    # The radio-loss sensitivity reports every row again per error rate, none of them judged.
    judged = {r["variant"] for r in rows if r["judged"]}
    assert judged and not any("PER" in v for v in judged)
    assert paper["300 Mbit/s, A-MPDU, PER 20 %", "1-hop / 4-hop throughput"] == 150

    runs = pd.read_parquet(tmp_path / "runs.parquet")
    assert len(runs) == len(jobs)
    chain = runs[(runs.topology == "chain") & (runs.per == 0)]
    assert (chain.thr > 0).all()
    # A lossy channel costs goodput: 20 % of MPDUs lost slows every 1-hop chain.
    one_hop = runs[(runs.topology == "chain") & (runs.hops == 1)].groupby(["rate", "ampdu", "per"])
    thr = one_hop.thr.mean().unstack("per")
    assert (thr[0.2] < thr[0.0]).all(), thr
    # Without A-MPDU every data PPDU carries one MPDU; with it the source aggregates.
    assert (chain[chain.ampdu == "none"].size_n0 == 1).all()
    assert (chain[(chain.ampdu == "full") & (chain.hops == 1)].size_n0 > 1).all()
    report = (tmp_path / "report.html").read_text()
    assert "single collision domain" in report.lower()
    judged_rows = sum(r["judged"] for r in rows)
    assert f"of {judged_rows} judged rows hit" in report and "PER 20 %" in report
    figures = sorted(p.name for p in (tmp_path / "figures").iterdir())
    for key in ("fig1ab", "fig1cd", "fig1e", "fig1f", "fig2", "fig3", "fig4", "fig5", "fig6ab",
                "fig6cd"):  # fmt: skip
        assert any(f.startswith(key) and f.endswith(".png") for f in figures), (key, figures)

    again = jb.run_jobs(jobs, tmp_path, keep=runner.keep_for(bufferbloat_11n))
    assert (len(again.executed), again.skipped) == (0, len(jobs))


def test_span_rows_read_the_papers_ranges() -> None:
    # X.1: a range read off a plot holds within [0.8 low, 1.2 high].
    row = runner.span("E", "CUBIC Mbit/s", 6.0, 8.0, 9.5)
    assert (row.status, row.paper, row.tolerance) == ("within", "6 to 8", "range ±20 %")
    assert runner.span("E", "CUBIC Mbit/s", 6.0, 8.0, 9.7).status == "outside"
    assert runner.span("E", "CUBIC Mbit/s", 6.0, 8.0, 4.7).status == "outside"
    assert runner.span("E", "delivery", 0.0, 2.0, 2.5).paper == "<= 2"
    assert runner.span("E", "delivery", 0.0, 2.0, 2.5).status == "outside"
    assert runner.span("E", "swing", 4.0, math.inf, 3.1).status == "outside"
    assert runner.span("E", "swing", 4.0, math.inf, 3.3).paper == ">= 4"
    # Negative bounds widen outward too.
    assert runner.span("E", "correlation", -1.0, -0.3, -0.25).status == "within"
    # An acceptance rule's threshold is exact.
    rule = runner.span("E", "share", 0.6, 1.0, 0.59, read_off_plot=False)
    assert (rule.status, rule.tolerance) == ("outside", "range")
    assert runner.span("E", "swing", 4.0, math.inf, 5.0, read_off_plot=False).status == "within"


def _wifi6_record() -> dict:
    """A hand-made paper-000 run: 3 s at 100 ms, 1 s warm-up; the two flows' goodputs move in
    anti-phase each second (8/2 then 2/8 Mbit/s)."""
    up = [8.0] * 10 + [2.0] * 10 + [8.0] * 10
    flows = {
        "bbr3": {"cwnd_pkts": [10.0] * 30, "srtt_ms": [20.0, 30.0] * 15,
                 "pacing_rate_mbps": [6.0] * 30, "delivery_rate_mbps": [3.0] * 30},
        "cubic": {"cwnd_pkts": [20.0] * 30, "srtt_ms": [25.0] * 30,
                  "pacing_rate_mbps": [5.0] * 30, "delivery_rate_mbps": [5.0] * 30},
    }  # fmt: skip
    summary = [
        {"name": n, "cc": cc, "src": "bbr" if n == "bbr3" else "cubic", "goodput_mbps": g,
         "srtt_jitter_ms": j, "retransmits": 3, "retransmit_rate": 0.01,
         "rtt_ms": {"min": 19.0}}
        for n, cc, g, j in (("bbr3", "bbr3", 6.0, 10.0), ("cubic", "cubic", 4.0, 0.0))
    ]  # fmt: skip
    return {
        "seed": 1,
        "interval_s": 0.1,
        "tags": {"mcs": 7, "pattern": "uplink", "aqm": "pfifo", "bbr": "bbr3"},
        "goodput_mbps": {"bbr3": up, "cubic": [10.0 - x for x in up]},
        "series": {"flows": flows},
        "summary": {"flows": summary},
    }


def test_paper_000_metrics_read_the_series_as_iperf3_and_ss_do() -> None:
    from airlab.reproduce import bbr_wifi6 as p0

    rec = _wifi6_record()
    assert list(p0.one_second_bins(rec, rec["goodput_mbps"]["bbr3"])) == [8.0, 2.0, 8.0]
    rows = {r["flow"]: r for r in p0.flow_metrics(rec, warmup_s=1.0)}
    bbr = rows["bbr3"]
    # cwnd in KB as iperf3 prints it: 10 x 1448 B / 1024.
    assert bbr["cwnd_kb"] == pytest.approx(14.140625)
    # After the 1 s warm-up: 20 samples alternating 20/30 ms.
    assert bbr["rtt"] == 25.0 and bbr["rtt_iqr"] == 10.0
    assert bbr["delivery_over_pacing"] == 0.5
    assert (bbr["bin_min"], bbr["bin_max"], bbr["bins_over_7_5"]) == (2.0, 8.0, 0.5)
    assert (bbr["role"], bbr["way"], rows["cubic"]["role"]) == ("bbr", "up", "cubic")
    (pair,) = p0.pair_metrics(rec, warmup_s=1.0)
    assert pair["bbr_share"] == 0.6 and pair["total"] == 10.0
    assert pair["correlation"] == pytest.approx(-1.0)
    assert pair["swing_bbr"] == pair["swing_cubic"] == 6.0


def test_bbr_wifi6_reproduction_end_to_end(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`airlab reproduce bbr-wifi6 --quick` on a tiny plan: every experiment of P0.5 as rows,
    the figures, the PHY sensitivity table."""
    from airlab import cli
    from airlab.reproduce import PAPERS, bbr_wifi6

    assert PAPERS["bbr-wifi6"] is bbr_wifi6
    monkeypatch.setattr(bbr_wifi6, "QUICK", bbr_wifi6.Plan(seeds=(1,), duration_s=8, warmup_s=2))
    jobs = bbr_wifi6.jobs(quick=True)
    # 3 patterns x 3 AQMs, BBRv1/v2 x 2 patterns, 4 slower MCS x (3 uplink AQMs + bidir CAKE),
    # 3 wired base RTTs x 3 AQMs.
    assert len({j.id for j in jobs}) == 9 + 4 + 4 * 4 + 3 * 3
    with pytest.raises(SystemExit) as done:
        cli.main(["reproduce", "bbr-wifi6", "--quick", "--out", str(tmp_path)])
    assert done.value.code in (0, None)

    rows = _targets(tmp_path)
    assert {r["experiment"].split()[0] for r in rows} == {f"E0-{i}" for i in range(1, 8)}
    paper = {(r["variant"], r["metric"]): r["paper"] for r in rows}
    assert paper["CAKE", "retransmissions BBRv3 / CUBIC"] == 3.15
    assert paper["PFIFO", "CUBIC throughput (Mbit/s)"] == "6 to 8"
    assert paper["uplink", "BBRv3/CUBIC 1 s throughput correlation"] == "-1 to -0.3"
    runs = pd.read_parquet(tmp_path / "runs.parquet")
    main = runs[(runs.mcs == 7) & (runs.wire_ms == 0)]
    # Each direction is shaped to 10 Mbit/s: the two flows of a pattern never carry more.
    per_way = main.groupby(["pattern", "aqm", "bbr", "way"]).thr.sum()
    assert (per_way < 10.0).all() and (per_way > 8.0).all(), per_way
    # PFIFO's 50 packets (60 ms at 10 Mbit/s) against CAKE's 5 ms target.
    ul = main[(main.pattern == "uplink") & (main.bbr == "bbr3")].groupby("aqm").rtt.mean()
    assert ul["pfifo"] > 40 > 20 > ul["cake"], ul
    report = (tmp_path / "report.html").read_text()
    assert "Sensitivity to the PHY" in report and "point and range rows within" in report
    assert "The cross-layer model against the simulator" in report
    assert "Sensitivity to the base RTT" in report
    # A longer wire to the receiver raises the base RTT, and with it CAKE's RTT.
    wired = runs[(runs.pattern == "uplink") & (runs.aqm == "cake") & (runs.bbr == "bbr3")
                 & (runs.mcs == 7)].groupby("wire_ms")  # fmt: skip
    base, cake_rtt = wired.rtt_min.min(), wired.rtt.mean()
    assert base[4.5] > base[0.5] + 6 and base[0] < 3, base
    assert cake_rtt[4.5] > cake_rtt[0] + 5, cake_rtt
    # The fluid model beside the simulator: both directions x 3 AQMs x 2 min_rtt readings;
    # flow queueing splits the shaped rate equally in the model as in the simulator.
    versus = pd.read_csv(tmp_path / "model_vs_sim.csv")
    assert len(versus) == 2 * 3 * 2
    fq = versus[versus.aqm != "pfifo"]
    assert ((fq.model_bbr_share - 0.5).abs() < 0.01).all()
    assert ((fq.sim_bbr_share - 0.5).abs() < 0.1).all()
    figures = {p.name for p in (tmp_path / "figures").iterdir()}
    for key in ("fig5", "fig6", "fig7", "fig8", "fig9", "fig10", "fig11a", "fig11b", "phy",
                "model_vs_sim", "base_rtt"):  # fmt: skip
        assert any(f.startswith(key) and f.endswith(".png") for f in figures), (key, figures)


def test_fccc_reproduction_end_to_end(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`airlab reproduce fccc --quick` on a tiny plan: every experiment of P4.5 as rows under
    both floors, the figures, and the airtime metrics as the paper defines them."""
    from airlab import cli
    from airlab.reproduce import PAPERS, fccc

    assert PAPERS["fccc"] is fccc
    tiny = fccc.Plan(seeds=(1,), bulk_s=8, transfer_cap_s=90, switch_s=4)
    monkeypatch.setattr(fccc, "QUICK", tiny)
    jobs = fccc.jobs(quick=True)
    # Per path, per floor: 3 timeslot scales; the transfers under the primary buffer and
    # membership, the two other memberships and the 16 MB window; the bulk runs; the rate
    # switch; the priorities under both buffers. Per path CUBIC's transfers once per buffer
    # and its bulk runs once.
    assert len({j.id for j in jobs}) == 2 * (2 * (3 + 4 + 1 + 1 + 2) + 3)
    with pytest.raises(SystemExit) as done:
        cli.main(["reproduce", "fccc", "--quick", "--out", str(tmp_path)])
    assert done.value.code in (0, None)
    doc = json.loads((tmp_path / "targets.json").read_text())
    rows = doc["targets"]
    assert {r["experiment"].split()[0] for r in rows} == {f"E4-{i}" for i in range(1, 6)}
    # The primary buffer and membership keep the variants' names; each other reading adds its
    # own, on E4-2's rows (and, the 16 MB window, on E4-5's).
    readings = ("", ", leave idle 1 s", ", leave never", ", rwnd 16 MB")
    assert {r["variant"] for r in rows} == {
        f"{path}, cwnd_min {floor}{reading}"
        for path in ("direct", "slow loop")
        for floor in (10, 1)
        for reading in readings
    }
    by_variant = {v: {r["experiment"].split()[0] for r in rows if r["variant"] == v} for v in
                  {r["variant"] for r in rows}}  # fmt: skip
    assert by_variant["direct, cwnd_min 10, leave never"] == {"E4-2"}
    assert by_variant["direct, cwnd_min 10, rwnd 16 MB"] == {"E4-2", "E4-5"}
    declared = {r["name"]: r for r in doc["readings"]}
    assert {n for n in declared if declared[n]["primary"]} >= {"autotuned rmem", "leave closed"}
    assert {"rwnd 16 MB", "leave idle 1 s", "leave never"} <= set(declared)
    # Only rows of primary readings are judged: every other reading's rows are reported.
    judged = [r for r in rows if r["judged"]]
    assert judged and all({"autotuned rmem", "leave closed"} <= set(r["reading"]) for r in judged)
    assert all(not r["judged"] for r in rows if {"rwnd 16 MB", "leave never"} & set(r["reading"]))
    paper = {(r["variant"], r["metric"]): r["paper"] for r in rows}
    assert paper["direct, cwnd_min 1", "ED1 throughput change vs CUBIC (%)"] == 58
    assert paper["slow loop, cwnd_min 10", "FCCC: largest airtime difference |D_ij| (%)"] == "<= 18"
    runs = pd.read_parquet(tmp_path / "runs.parquet")
    # The slowed wire stretches the AP's timeslot toward the paper's second.
    e41 = runs[(runs.experiment == "E4-1") & (runs.scale == 1.0)].groupby("path").ts_ed1.mean()
    assert e41["slow loop"] > 10 * e41["direct"], e41
    runs = runs[runs.path == "direct"]
    cubic = runs[(runs.experiment == "E4-3") & (runs.cc == "cubic")].iloc[0]
    # The anomaly: CUBIC's 6 Mbit/s sender holds far more air than its 24 Mbit/s one ...
    assert fccc.difference(cubic.air_ed1, cubic.air_ed3) < -100
    # ... and FCCC with the floor at one packet shares it.
    shared = runs[(runs.experiment == "E4-3") & (runs.cc == "fccc") & (runs.floor == 1)].iloc[0]
    assert abs(fccc.difference(shared.air_ed1, shared.air_ed3)) < 25
    transfers = runs[runs.experiment == "E4-2"]
    assert (transfers.fct_ed1 > 0).all() and (transfers.thr_ed1 > 0).all()
    # The readings reach the engine: CUBIC's transfers differ with the 16 MB window, and
    # ED3's with each membership (FCCC with the one-packet floor, whose ED1 finishes first).
    cubic = transfers[transfers.cc == "cubic"].set_index("buffer").fct_ed1
    assert cubic["rwnd 16 MB"] != cubic["autotuned rmem"]
    fccc1 = transfers[(transfers.cc == "fccc") & (transfers.floor == 1)]
    assert fccc1.set_index("leave").fct_ed3.groupby(level=0).first().nunique() == 3
    figures = {p.name for p in (tmp_path / "figures").iterdir()}
    for key in ("fig5", "fig7", "fig8", "fig9_10", "fig11", "fig12", "fig14", "fig15_16"):
        assert any(f.startswith(key) for f in figures), (key, figures)


def test_airtime_difference_is_relative_to_the_faster_device() -> None:
    from airlab.reproduce.fccc import difference

    # reproduction-targets P4.5 E4-3: D_13 = 100 (A_1 - A_3) / A_1.
    assert difference(0.2, 0.5) == pytest.approx(-150.0)
    assert difference(0.3, 0.3) == 0.0


def _switch_record(missing: int | None = None) -> dict:
    """A rate-switch run on 0.1 s samples: the rate alternates every second (6 Mbit/s from odd
    seconds); the sender is idle 0.3 s after each switch and sees the new rate 0.5 s after its
    first frame, unless the echo of period ``missing`` never arrives."""
    times = (np.arange(80) + 1) * 0.1
    period = np.floor(times - 0.8 + 1e-9).astype(int)
    if missing is not None:
        period = np.where(period == missing, missing - 1, period)
    dr = np.where(period % 2 == 1, 6.0, 24.0)
    frames = ((times - np.floor(times - 1e-9)) > 0.3 + 1e-9).astype(float)
    flows = {
        "cc.fccc_dr_mbps": dr.tolist(),
        "cc.fccc_cwnd_up": np.where(dr == 24, 1309.0, 369.0).tolist(),
        "cc.fccc_ts_ms": [1000.0] * 80,
        "srtt_ms": [400.0] * 80,
    }
    wifi = {"senders:ed1->ap1": {"ppdus": frames.tolist()}}
    return {"interval_s": 0.1, "series": {"flows": {"ed1": flows}, "wifi": wifi}}


def test_rate_switch_lag_counts_from_the_first_frame_and_each_switch() -> None:
    from airlab.reproduce.metrics_fccc import switch_metrics

    m = switch_metrics(_switch_record())
    assert m["cwnd_up_fast"] / m["cwnd_up_slow"] == pytest.approx(1309 / 369)
    assert m["echo_lag_in_timeslots"] == pytest.approx(0.5)
    assert m["lag_in_timeslots"] == pytest.approx(0.8)
    assert m["lag_in_rtts"] == pytest.approx(2.0)
    assert m["idle_after_switch_s"] == pytest.approx(0.3)
    assert m["switches_missed"] == 0
    # A period whose rate never reaches the sender: that switch is missed, and the next one
    # to the rate the sender already holds is not credited with an instant echo.
    missed = switch_metrics(_switch_record(missing=3))
    assert missed["switches_missed"] == 2


def test_xlayer_aqm_reproduction_end_to_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`airlab reproduce xlayer-aqm --quick` on a tiny plan: batch-ended steady runs in the
    three settings, the transient rounds, the K and reading runs, every experiment as rows."""
    from airlab import cli
    from airlab.reproduce import PAPERS, xlayer_aqm

    assert PAPERS["xlayer-aqm"] is xlayer_aqm
    monkeypatch.setattr(
        xlayer_aqm, "QUICK", xlayer_aqm.Plan(seeds=(1,), sources=(2,), replicates=1)
    )
    monkeypatch.setattr(xlayer_aqm, "KS", (3.0,))
    monkeypatch.setattr(xlayer_aqm, "TABLE_SOURCES", {"smart home": 2, "eHealth, device FIFO": 2})
    jobs = xlayer_aqm.jobs(quick=True)
    # 4 settings x 2 AQMs; 2 readings in 2 settings; 2 transient settings x 2 AQMs.
    assert len({j.id for j in jobs}) == 8 + 4 + 4
    # The shaper reading: the AQM inside a 50 Mbit/s tbf on a gigabit port.
    shaped = [j for j in jobs if dict(j.tags)["setting"] == "smart home, shaper"]
    assert all(dict(j.params)["link.uplink.rate"] == "1Gbit" for j in shaped)
    assert all('kind = "tbf", rate = "50Mbit"' in dict(j.params)["link.uplink.forward.qdisc"]
               for j in shaped)  # fmt: skip
    with pytest.raises(SystemExit) as done:
        cli.main(["reproduce", "xlayer-aqm", "--quick", "--out", str(tmp_path)])
    assert done.value.code in (0, None)
    # The tiny plan runs one K of Tables 1/2: the other K's rows are absent.
    rows = _targets(tmp_path, every_entry=False)
    experiments = {r["experiment"].split()[0] for r in rows}
    assert {f"E1-{i}" for i in (1, 2, 3, 4, 5, 7, 8, 9, 10, 11)} <= experiments
    # Each testbed row is reported under every reading of its layer; the primary ones judged.
    doc = json.loads((tmp_path / "targets.json").read_text())
    primary = {r["name"] for r in doc["readings"] if r["primary"]}
    assert primary == {"device FIFO", "50 Mbit/s link", "mean recent", "WRR intended",
                       "goodput per source"}  # fmt: skip
    fig6 = {r["variant"]: r for r in rows if r["experiment"] == "E1-3 (Fig. 6)"
            and r["metric"] == "largest mice goodput gain (%)"}  # fmt: skip
    assert fig6["eHealth, device FIFO"]["judged"] and not fig6["eHealth, mac80211"]["judged"]
    fig8 = [r for r in rows if r["experiment"] == "E1-5 (Fig. 8)"]
    assert {r["variant"] for r in fig8} == {"smart home", "smart home, shaper"}
    assert all(r["judged"] == (r["variant"] == "smart home") for r in fig8 if r["informative"])
    runs = pd.read_parquet(tmp_path / "runs.parquet")
    steady = runs[runs.experiment == "steady"]
    # Eleven batches, the first left out; the first source's runs last many transfers.
    assert (steady.batches == 10).all()
    assert (steady.mice_goodput > 0).all() and (steady.mice_fct > 0).all()
    # Over mac80211 the qdisc above holds nothing: both AQMs give the same run.
    mac = steady[steady.setting == "eHealth, mac80211"].set_index("aqm")
    assert mac.loc["xlayer", "mice_goodput"] == mac.loc["fq_codel", "mice_goodput"]
    fifo = steady[steady.setting == "eHealth, device FIFO"].set_index("aqm")
    assert fifo.loc["xlayer", "bulk_goodput"] != fifo.loc["fq_codel", "bulk_goodput"]
    rounds = runs[runs.experiment == "transient"]
    assert set(rounds["round"]) == {1, 2, 3, 4, 5}
    figures = {p.name for p in (tmp_path / "figures").iterdir()}
    for key in ("steady_smart_home", "steady_eHealth_mac80211", "transient_eHealth", "k_tables"):
        assert any(f.startswith(key) for f in figures), (key, figures)


def test_transfer_rounds_are_each_sources_kth_connection() -> None:
    from airlab.reproduce.metrics_xlayer import transient_rows

    rec = {
        "tags": {"setting": "eHealth, mac80211"},
        "interval_s": 1.0,
        "goodput_mbps": {"video-down-1": [4.0, 6.0, 8.0, 10.0], "video-down-2": [2.0] * 4},
        "fcts": {
            "flow": ["mice.1", "mice.2", "mice.1", "mice.2"],
            "conn": [0, 0, 1, 1],
            "start_s": [0.2, 0.5, 1.7, 2.0],
            "end_s": [1.2, 2.5, 2.2, 3.0],
            "fct_s": [1.0, 2.0, 0.5, 1.0],
        },
    }
    r1, r2 = transient_rows(rec)
    assert (r1["round"], r1["mice_fct"], r1["transfers"]) == (1, 1.5, 2)
    assert r1["mice_goodput"] == pytest.approx((8.0 + 4.0) / 2)
    # Round 1 spans 0.2-2.5 s: the samples ending at 1 s and 2 s of both downloads.
    assert r1["bulk_goodput"] == pytest.approx((4.0 + 6.0 + 2.0 + 2.0) / 4)
    # Round 2 spans 1.7-3.0 s: the samples ending at 2 s and 3 s.
    assert r2["bulk_goodput"] == pytest.approx((6.0 + 8.0 + 2.0 + 2.0) / 4)


def test_fairtt_marks_busy_link_rows_and_has_fig4b_jain_maxima() -> None:
    """Paper 003: the rows any busy bottleneck passes are marked `insensitive` in both readings;
    every other row stays informative; Fig. 4b's per-RTT Jain maxima are rows of their own."""
    from airlab.reproduce import fairtt

    p = fairtt.Plan(seeds=(1,), duration_s=1, buffers_bdp=(2, 10, 100), rtts_ms=(5, 10, 30))
    # Numbers only need to be distinct per algorithm: the test reads which row takes which.
    jain_rtt = {"bbr2": {5: 0.96, 10: 0.98, 30: 0.9}, "fairtt": {5: 0.995, 10: 0.99, 30: 0.97}}
    busy = {"ratio": 1.3, "jain_mean": 0.95, "jain_min": 0.9, "utilization_pct": 99.0}
    queue = pd.DataFrame(
        [
            {"cc": cc, "buffer_bdp": b, "total_mbps": 9.5, **busy}
            for cc in fairtt.CCS
            for b in p.buffers_bdp
        ]
    )
    rtt = pd.DataFrame(
        [
            {"cc": cc, "rtt_ms": r, "ratio": 1.0 + r / 100, "jain_mean": jain_rtt[cc][r]}
            for cc in fairtt.CCS
            for r in p.rtts_ms
        ]
    )
    for variant in ("A", "B"):
        rows = {t.metric: t for t in fairtt.targets(queue, rtt, variant, p)}
        marked = {m: t.uninformative for m, t in rows.items() if not t.informative}
        assert marked == {
            "total throughput change FaiRTT vs BBRv2 (%)": "insensitive",
            "utilization %, FaiRTT": "insensitive",
            "FaiRTT does not lower utilization by more than 1 point": "insensitive",
        }
        assert all(rows[m].why for m in marked)
        assert rows["utilization %, BBRv2"].informative  # its band ends below 100 %
        for cc, paper in (("bbr2", 0.97), ("fairtt", 0.99)):
            row = rows[f"max Jain over RTTs, {fairtt.LABEL[cc]}"]
            assert (row.experiment, row.paper, row.tolerance) == ("E3-6 (Fig. 4b)", paper, "±0.05")
            assert row.airlab == max(jain_rtt[cc].values()) and row.informative
