"""The Python API: Result contents, determinism, seeds, saving."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import airlab
from airlab.results import Result, check_summary
from conftest import DATA, DUMBBELL, data_text

SHORT = {"duration": "5s"}


def _without_engine(summary: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in summary.items() if k != "engine"}


def test_run_returns_dataframes() -> None:
    res = airlab.run(DUMBBELL, seed=1, set=SHORT)
    assert isinstance(res.flows, pd.DataFrame) and not res.flows.empty
    assert isinstance(res.queues, pd.DataFrame) and not res.queues.empty
    assert isinstance(res.links, pd.DataFrame) and not res.links.empty
    assert isinstance(res.fcts, pd.DataFrame)
    assert res.summary["duration_s"] == 5
    assert res.scenario  # resolved scenario as a dict
    u = res.links["utilization"].dropna()
    assert ((u >= 0) & (u <= 1 + 1e-9)).all()


def test_same_seed_is_bit_identical() -> None:
    a = airlab.run(DUMBBELL, seed=7, set=SHORT)
    b = airlab.run(DUMBBELL, seed=7, set=SHORT)
    assert _without_engine(a.summary) == _without_engine(b.summary)
    pd.testing.assert_frame_equal(a.flows, b.flows, check_exact=True)
    pd.testing.assert_frame_equal(a.queues, b.queues, check_exact=True)


def test_different_seeds_differ_when_randomness_is_configured() -> None:
    lossy = {"duration": "5s", "link.bottleneck.loss": 0.01}  # 1 % random loss on the wire
    a = airlab.run(DUMBBELL, seed=1, set=lossy)
    b = airlab.run(DUMBBELL, seed=2, set=lossy)
    assert a.summary["flows"][0]["retransmits"] > 0, "1 % loss should cause retransmissions"
    assert _without_engine(a.summary) != _without_engine(b.summary)
    assert not a.flows.equals(b.flows)
    # and the same seed still reproduces
    again = airlab.run(DUMBBELL, seed=1, set=lossy)
    assert _without_engine(again.summary) == _without_engine(a.summary)


def test_validate_and_errors() -> None:
    resolved = airlab.validate(DUMBBELL)
    assert isinstance(resolved, dict)
    with pytest.raises(airlab.ScenarioError) as e:
        airlab.validate(DATA / "bad-duration.toml")
    assert isinstance(e.value, ValueError)
    assert "duration" in str(e.value)
    with pytest.raises(airlab.ScenarioError, match="no/such/scenario: no such scenario") as e:
        airlab.run("no/such/scenario")
    assert isinstance(e.value, OSError)


def test_validate_wifi_network() -> None:
    n2 = {"wifi.mesh.node": [{"name": "n2", "mcs": 7}]}
    resolved = airlab.validate(DATA / "wifi-chain.toml", set=n2)
    (mesh,) = resolved["wifi"]
    assert [n["name"] for n in mesh["nodes"]] == ["n0", "n1", "n2", "n3", "n4"]
    phy = {(link["from"], link["to"]): link["phy"] for link in mesh["links"]}
    assert phy[("n0", "n1")] == {"rate_bps": 0, "mcs": 15, "nss": 2, "width_mhz": 40, "gi_ns": 400}
    assert phy[("n2", "n3")]["mcs"] == 7  # n2's own transmissions
    hops = {(r["at"], r["to"]): r["via"] for r in resolved["next_hop"]}
    assert hops[("n0", "n4")] == "n1" and hops[("n2", "n4")] == "n3"
    with pytest.raises(airlab.ScenarioError, match=r"wifi\[0\]\.width: width must be 20 or 40"):
        airlab.validate(DATA / "wifi-chain.toml", set={"wifi[0].width": 80})


def test_components_lists_builtin_algorithms() -> None:
    comps = airlab.components()
    assert {"cubic", "reno"} <= set(comps["cc"])
    assert "pfifo" in comps["qdisc"]


def test_params_lists_what_each_component_declares() -> None:
    fq = airlab.params("fq_codel")
    assert fq["family"] == "qdisc" and "RFC 8290" in fq["doc"]
    by_name = {p["name"]: p for p in fq["params"]}
    assert by_name["target"]["default"] == '"5ms"'
    assert by_name["flows"]["default"] == "1024"
    assert "from 1 to 65536" in by_name["flows"]["accepts"]
    assert by_name["ce_threshold"]["default"] == "unset"
    cubic = airlab.params("cubic")
    assert cubic["family"] == "cc"
    assert [p["name"] for p in cubic["params"]][:2] == ["beta", "c"]
    assert airlab.params("reno")["params"] == []
    # Every registered component has an entry.
    comps = airlab.components()
    for family in ("qdisc", "cc", "ofdma_scheduler", "rate_control", "app", "device", "ap_hook",
                   "propagation", "error_model"):  # fmt: skip
        for name in comps[family]:
            assert airlab.params(name)["name"] == name
    ideal = airlab.params("ideal")
    assert ideal["family"] == "rate_control"
    assert [(p["name"], p["default"]) for p in ideal["params"]] == [("ber", "0.000001")]
    # The channel's models default to ns-3's numbers.
    log_distance = airlab.params("log_distance")
    assert log_distance["family"] == "propagation"
    assert [(p["name"], p["default"]) for p in log_distance["params"]] == [
        ("exponent", "3"),
        ("reference_loss_db", "46.6777"),
        ("reference_distance_m", "1"),
    ]
    assert airlab.params("nist")["family"] == "error_model"
    pf = airlab.params("proportional_fair")
    assert pf["family"] == "ofdma_scheduler"
    assert [(p["name"], p["default"]) for p in pf["params"]] == [("window", "100")]
    # Apps, with the defaults the scenario format has always had.
    assert comps["app"] == ["bulk", "transfer", "periodic", "udp", "ping"]

    def defaults(name: str) -> list[tuple[str, str]]:
        return [(p["name"], p["default"]) for p in airlab.params(name)["params"]]

    assert airlab.params("udp")["family"] == "app"
    assert defaults("udp") == [("rate", "unset"), ("packet_size", '"1472B"')]
    assert defaults("ping") == [("interval", '"100ms"'), ("size", '"64B"')]
    assert airlab.params("bulk")["params"] == []
    with pytest.raises(KeyError, match="expected one of: reno, cubic"):
        airlab.params("red")


def test_save_and_load_round_trip(tmp_path: Path) -> None:
    res = airlab.run(DUMBBELL, seed=3, set=SHORT)
    res.save(tmp_path / "r", plots=False, report=False)
    assert not (tmp_path / "r" / "plots").exists()
    back = Result.load(tmp_path / "r")
    assert back.summary == res.summary
    pd.testing.assert_frame_equal(back.flows, res.flows, check_exact=True)
    # NaN survives the Parquet round trip (e.g. ssthresh before the first loss)
    assert back.flows["ssthresh_pkts"].isna().sum() == res.flows["ssthresh_pkts"].isna().sum()


def test_override_values_are_formatted_for_the_engine() -> None:
    # A str is the text of a value as `--set key=value` takes it; other values are written
    # as TOML, numpy's numbers as numbers.
    assert airlab.overrides_list({"a": True, "b": 20, "c": "5s", "d": 0.5, "e": "20"}) == [
        ("a", "true"),
        ("b", "20"),
        ("c", "5s"),
        ("d", "0.5"),
        ("e", "20"),
    ]
    assert airlab.overrides_list([("n", np.int64(20)), ("x", np.float64(0.25))]) == [
        ("n", "20"),
        ("x", "0.25"),
    ]
    assert airlab.overrides_list({"b": np.bool_(False)}) == [("b", "false")]
    assert airlab.format_value(airlab.TomlText("20")) == "20"  # the same as a str
    with pytest.raises(ValueError, match="nan is not a number"):
        airlab.overrides_list({"link.bottleneck.loss": float("nan")})
    # inside lists and tables a str is a string, escaped as TOML needs, and keys are quoted
    # unless bare
    q = airlab.format_value({"kind": "bfifo", "limit": "30KB"})
    assert q == '{ kind = "bfifo", limit = "30KB" }'
    assert airlab.format_value([1, "x"]) == '[1, "x"]'
    assert airlab.format_value(['a"b\\c\x7f\n\u00e9']) == '["a\\"b\\\\c\\u007f\\n\u00e9"]'
    assert airlab.format_value({"a b": 1, "c.d": 2}) == '{ "a b" = 1, "c.d" = 2 }'
    with pytest.raises(ValueError, match="not valid UTF-8"):
        airlab.format_value(["\ud800"])
    # a table given as a Python dict reaches the engine as a TOML table
    res = airlab.validate(
        DUMBBELL, set={"link.bottleneck.qdisc": {"kind": "bfifo", "limit": "30KB"}}
    )
    assert "bfifo" in json.dumps(res)


def test_every_entry_point_reads_a_string_override_as_set_text(cli, tmp_path: Path) -> None:
    """One rule: `--set key=TEXT`, `set={key: TEXT}` in run, run_text, validate and Sweep.run,
    and a sweep's text values all give the engine the same TEXT (it used to be a TOML string in
    airlab.run and TOML text everywhere else)."""
    qdisc = '{ kind = "bfifo", limit = "30KB" }'
    sets = {"duration": "1s", "link.bottleneck.qdisc": qdisc}

    def kind(summary: dict[str, Any]) -> str:
        return next(q["kind"] for q in summary["queues"] if "bottleneck" in q["name"])

    resolved = airlab.validate(DUMBBELL, set=sets)
    assert resolved["scenario"]["link"][1]["qdisc"] == {"kind": "bfifo", "limit": "30KB"}
    assert kind(airlab.run(DUMBBELL, set=sets).summary) == "bfifo"
    text = airlab.resolve(DUMBBELL).read_text()
    assert kind(airlab.run_text(text, set=list(sets.items())).summary) == "bfifo"
    sw = airlab.Sweep.run(DUMBBELL, {**sets, "link.bottleneck.qdisc": [qdisc]}, tmp_path / "sw")
    assert kind(sw.records[0]["summary"]) == "bfifo"
    args = [a for k, v in sets.items() for a in ("--set", f"{k}={v}")]
    proc = cli("run", DUMBBELL, "--no-plots", "--out", "r", *args)
    assert proc.returncode == 0, proc.stderr
    assert kind(json.loads((tmp_path / "r" / "summary.json").read_text())) == "bfifo"
    # "20" is the number 20, as on the command line ...
    limit = airlab.validate(DUMBBELL, set={"link.bottleneck.qdisc.limit": "20"})
    assert limit["scenario"]["link"][1]["qdisc"]["limit"] == 20
    # ... so a name that reads as a number is refused where a string is expected, and
    # quotes make it a string, as `--set 'flow.cubic.name="123"'` does
    with pytest.raises(airlab.ScenarioError, match=r"flow\[0\]\.name: invalid type: integer"):
        airlab.validate(DUMBBELL, set={"flow.cubic.name": "123"})
    res = airlab.validate(DUMBBELL, set={"flow.cubic.name": '"123"', "flow.0.count": np.int32(2)})
    assert [f["name"] for f in res["flows"]][:2] == ["123.1", "123.2"]


def test_progress_reports_fractions_and_can_stop_a_run() -> None:
    seen: list[float] = []
    airlab.run(DUMBBELL, seed=1, set=SHORT, progress=seen.append)
    assert seen == sorted(seen) and seen[-1] == 1.0
    assert len(seen) == 5  # one call per simulated second of a 5 s run

    class Stop(Exception):
        pass

    def stop_at_40_percent(done: float) -> None:
        if done >= 0.4:
            raise Stop

    with pytest.raises(Stop):
        airlab.run(DUMBBELL, seed=1, set=SHORT, progress=stop_at_40_percent)


@pytest.mark.parametrize("name", airlab.list_builtin())
def test_every_builtin_scenario_runs(name: str) -> None:
    """Each shipped scenario validates and runs shortened to 4 s; every flow moves data.

    The shortened run drops the warmup, pulls any later flow stop in to the new end and any
    random start offset of a periodic source within it, so the check covers the scenario as
    written rather than failing on its own time bounds.
    """
    short = {"duration": "4s", "metrics.warmup": "0s"}
    for i, flow in enumerate(airlab.validate(name)["scenario"]["flow"]):
        if flow["stop"] is not None:
            short[f"flow[{i}].stop"] = "4s"
        if flow["app"].get("random_start"):
            short[f"flow[{i}].app.random_start"] = "1s"
    res = airlab.run(name, seed=1, set=short)
    check_summary(res.summary, Path(name))  # what Result.load takes: every number in bounds
    for flow in res.summary["flows"]:
        if flow["app"] == "ping":
            # A probe carries no payload: it must have measured RTTs instead.
            assert flow["rtt_ms"]["p50"] > 0, (name, flow["name"])
        else:
            assert flow["goodput_mbps"] > 0, (name, flow["name"])


#: The Wi-Fi cell for 3 s with 1 s of warm-up, A-MPDUs of at most 16 MPDUs.
CELL_3S = {"duration": "3s", "metrics.warmup": "1s", "wifi.w.aggregation": {"max_mpdus": 16}}


def test_wifi_results_reach_python_and_survive_save(tmp_path: Path) -> None:
    """A run given as text: the Wi-Fi summary, the wifi table, sweep columns, save and load."""
    from airlab.sweep import flatten_summary

    res = airlab.run_text(data_text("wifi-cell"), seed=2, set=CELL_3S)
    net = res.summary["wifi"][0]
    data = next(lk for lk in net["links"] if lk["name"] == "w:ap->sta")
    # HT MCS 7 (65 Mbit/s): A-MPDUs of up to 16 MPDUs carry TCP at tens of Mbit/s.
    assert 1.0 < data["mpdus_per_ppdu"] <= 16.0
    assert 20.0 < data["throughput_mbps"] < 65.0
    assert set(res.wifi["link"]) == {"w:ap->sta", "w:sta->ap"}
    assert res.wifi["airtime_share"].between(0.0, 1.0).all()
    assert (res.wifi["phy_rate_mbps"] - 65.0).abs().max() < 1e-9  # HT MCS 7, 20 MHz, long GI
    assert "w:ap" in set(res.queues["queue"])
    flat = flatten_summary(res.summary)
    assert flat["wifi.w:ap->sta.throughput_mbps"] == data["throughput_mbps"]
    assert 0.0 < flat["wifi.w.busy_share"] <= 1.0
    res.save(tmp_path / "r", plots=False)
    back = airlab.Result.load(tmp_path / "r")
    assert len(back.wifi) == len(res.wifi)


def test_run_text_names_the_text_in_errors() -> None:
    with pytest.raises(airlab.ScenarioError, match=r"<mine>: wifi\[0\]\.mcs"):
        airlab.run_text(data_text("wifi-cell").replace("mcs = 7", "mcs = 40"), name="<mine>")


def test_time_series_hold_no_object_per_row() -> None:
    # A long run's series come from the engine as numpy columns with the entity as a
    # categorical: a few bytes per cell, not a Python string per row.
    res = airlab.run("basics/gigabit-50flows", set={"duration": "2s", "metrics.interval": "10ms"})
    for df in (res.flows, res.queues, res.links):
        per_row = df.memory_usage(deep=True).sum() / len(df)
        assert per_row <= 8 * (len(df.columns) - 1) + 4 + 1, (df.columns, per_row)
        assert isinstance(df.iloc[:, 1].dtype, pd.CategoricalDtype)
    assert len(res.flows) == 50 * 200


_PEAK = """
import resource, sys, airlab
short = {"duration": sys.argv[1], "metrics.interval": "1ms"}
res = airlab.run("basics/gigabit-50flows", set=short)
res.save(sys.argv[2])
rows = len(res.flows) + len(res.queues) + len(res.links)
print(rows, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def test_peak_memory_grows_with_the_series_not_more(tmp_path: Path) -> None:
    # Run and save (Parquet, plots, report) at two lengths: the extra peak memory per extra
    # row is the row's own float64 cells and a little slack, with no copy of the tables held.
    import subprocess
    import sys

    def peak(duration: str) -> tuple[int, int]:
        out = subprocess.run(
            [sys.executable, "-c", _PEAK, duration, str(tmp_path / duration)],
            capture_output=True,
            text=True,
            check=True,
            timeout=300,
        ).stdout.split()
        return int(out[0]), int(out[1]) * 1024

    rows_a, bytes_a = peak("4s")
    rows_b, bytes_b = peak("16s")
    widest = 8 * 22  # time, entity and 20 value columns of the flows table
    per_row = (bytes_b - bytes_a) / (rows_b - rows_a)
    assert per_row < 1.5 * widest, f"{per_row:.0f} bytes of peak memory per row"


def test_the_engine_stub_declares_exactly_what_the_engine_exports() -> None:
    """python/airlab/_core.pyi types the compiled module: it must name each of its exports."""
    import ast
    import importlib.resources

    from airlab import _core

    stub = importlib.resources.files("airlab").joinpath("_core.pyi").read_text()
    declared = {
        node.name
        for node in ast.parse(stub).body
        if isinstance(node, ast.FunctionDef | ast.ClassDef)
    }
    exported = {n for n in dir(_core) if not n.startswith("_")}
    assert declared == exported
    assert importlib.resources.files("airlab").joinpath("py.typed").is_file()


def test_a_result_shows_itself_in_a_notebook() -> None:
    from airlab.report import fmt

    res = airlab.run(DUMBBELL, set={"duration": "2s"})
    page = res._repr_html_()
    goodput = res.summary["flows"][0]["goodput_mbps"]
    assert "<table>" in page and ">cubic<" in page
    assert f">{fmt(goodput)}<" in page
    assert page.count("data:image/png;base64,") == 1


@pytest.mark.parametrize(
    ("argument", "value", "expected"),
    [
        ("executor", "dask", r"None \(a local pool of `jobs` processes\), airlab.jobs.LocalPool"),
        ("executor", 4, r"None .*airlab.jobs.DaskExecutor\(client\)"),
        ("reporter", "x", "None or an airlab.sweep.Reporter"),
    ],
)
def test_sweep_run_names_an_executor_or_reporter_that_is_not_one(
    tmp_path: Path, argument: str, value: object, expected: str
) -> None:
    with pytest.raises(TypeError, match=rf"^{argument}: expected {expected}.*got {value!r}"):
        airlab.Sweep.run(DUMBBELL, set={"duration": "1s"}, out=tmp_path / "sw", **{argument: value})
    assert not (tmp_path / "sw").exists(), "checked after something was written"
