"""Paper 000's fluid model (eqs. 9-24) and its setting on the testbed (``airlab model``):
closed forms it must meet on simple links, and the AQMs' sharing rules."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from airlab.model import bbr_wifi6, fluid
from airlab.model.fluid import FluidConfig, FluidFlow

PKT_BITS = 8 * 1514


def test_max_min_shares_split_by_weight_and_return_what_a_light_flow_leaves() -> None:
    assert fluid.max_min_shares(10.0, [math.inf, math.inf], [1, 1]) == [5.0, 5.0]
    # A flow that wants 2 keeps 2; the other two split the remaining 8 by weight 1:3.
    assert fluid.max_min_shares(10.0, [2.0, math.inf, math.inf], [1, 1, 3]) == [2.0, 2.0, 6.0]
    assert fluid.max_min_shares(10.0, [1.0, 2.0], [1, 1]) == [1.0, 2.0]
    # CAKE's triple-isolate: a host's two flows share one host's weight.
    flows = [FluidFlow("a", "cubic", 0.01, "h1"), FluidFlow("b", "cubic", 0.01, "h1"),
             FluidFlow("c", "cubic", 0.01, "h2")]  # fmt: skip
    assert fluid.cake_weights(flows) == [0.5, 0.5, 1.0]


def test_bbr_alone_on_a_fixed_rate_link_keeps_one_bdp_in_flight() -> None:
    """BBRv3 alone through a 10 Mbit/s drop-tail link with a 20 ms base RTT: it fills the link
    with no standing queue, its inflight the BDP (eqs. 9-14 in CRUISE: w_lo -> w_bar = BtlBw x
    tau_min)."""
    cfg = FluidConfig((FluidFlow("bbr", "bbr3", 0.020),), aqm="pfifo", fifo_limit=1000,
                      duration_s=12, warmup_s=6)  # fmt: skip
    res = fluid.solve(cfg)
    s = res.summary.iloc[0]
    capacity_mbps = cfg.capacity_pps * 1448 * 8 / 1e6
    # Full rate but for ProbeRTT: half a BDP for 200 ms every 5 s.
    assert s.throughput_mbps == pytest.approx(capacity_mbps * (1 - 0.5 * 0.2 / 5), rel=0.005)
    bdp_pkts = cfg.capacity_pps * 0.020
    cruise = res.series[(res.series.time_s > 6) & (res.series.rtt_ms < 20.5)]
    inflight = cruise.throughput_mbps * 1e6 / (1448 * 8) * cruise.rtt_ms / 1e3
    assert inflight.median() == pytest.approx(bdp_pkts, rel=0.02)
    assert s.rtt_ms_p50 == pytest.approx(20.0, abs=0.5)
    assert s.drops == 0


def test_drop_tail_fills_and_two_equal_cubics_share_it_equally() -> None:
    cfg = FluidConfig((FluidFlow("a", "cubic", 0.02), FluidFlow("b", "cubic", 0.02)),
                      aqm="pfifo", duration_s=20, warmup_s=5)  # fmt: skip
    res = fluid.solve(cfg)
    s = res.summary.set_index("flow")
    assert s.share["a"] == pytest.approx(0.5, abs=0.01)
    # Drop-tail: the queue stays near its 50 packets, so the RTT is about 20 ms + 50 packets.
    queueing_ms = 50 * PKT_BITS / 10e6 * 1e3
    assert s.rtt_ms_p50["a"] == pytest.approx(20 + queueing_ms, rel=0.1)
    assert s.queue_pkts.sum() == pytest.approx(50, rel=0.1)


@pytest.mark.parametrize("aqm", ["fq_codel", "cake"])
def test_flow_queueing_shares_equally_whatever_the_rtts_and_codel_holds_the_target(
    aqm: str,
) -> None:
    """Two CUBIC flows of 10 and 60 ms: a FIFO would favour the short one; FQ-CoDel and CAKE
    (one flow per host) give each half (eq. 20, 22), and CoDel keeps each flow's sojourn near
    its 5 ms target (eq. 21)."""
    flows = (FluidFlow("short", "cubic", 0.010, "h1"), FluidFlow("long", "cubic", 0.060, "h2"))
    res = fluid.solve(FluidConfig(flows, aqm=aqm, duration_s=20, warmup_s=8))  # type: ignore[arg-type]
    s = res.summary.set_index("flow")
    assert s.share["short"] == pytest.approx(0.5, abs=0.01)
    for name, tau in (("short", 10.0), ("long", 60.0)):
        sojourn = s.rtt_ms_p50[name] - tau
        assert 2.0 < sojourn < 10.0, (name, sojourn)
    assert (s.drops > 0).all()


def test_the_model_is_deterministic() -> None:
    setting = bbr_wifi6.Setting(aqm="cake", duration_s=3, warmup_s=1)
    a, b = bbr_wifi6.solve(setting), bbr_wifi6.solve(setting)
    assert a.series.equals(b.series)


def test_the_testbed_setting_binds_at_the_shaper_and_cubic_dominates_pfifo() -> None:
    """At HE-MCS 7 the MU-OFDMA cell (eqs. 1-3) carries about 64 Mbit/s, so the 10 Mbit/s
    shaper binds; the model then gives the paper's PFIFO prediction: CUBIC fills the shared
    buffer and BBRv3 starves (its cwnd bound uses the propagation RTT)."""
    assert bbr_wifi6.wifi_capacity_bps(7) / 1e6 == pytest.approx(63.78, abs=0.01)
    assert bbr_wifi6.wifi_capacity_bps(0) < 20e6
    res = bbr_wifi6.solve(bbr_wifi6.Setting(aqm="pfifo", duration_s=12, warmup_s=4))
    assert res.config.capacity_bps == 10e6
    s = res.summary.set_index("cc")
    assert s.share["cubic"] > 0.8
    assert s.throughput_mbps.sum() == pytest.approx(10e6 / PKT_BITS * 1448 * 8 / 1e6, rel=0.01)


def test_settings_are_checked_by_key() -> None:
    assert bbr_wifi6.Setting.parse({"aqm": "cake", "mcs": "3"}).mcs == 3
    for items, message in (
        ({"aqm": "red"}, "aqm: 'red'"),
        ({"mcs": "seven"}, "mcs: 'seven' is not a int"),
        ({"mcs": "12"}, "HE-MCS 0 to 11"),
        ({"tau": "1"}, "unknown key 'tau'"),
        ({"warmup_s": "30"}, "warmup_s"),
        ({"bbr_reading": "x"}, "bbr_reading"),
        # bounds tied to cost and to the solver (a hang, NaN in summary.json, tracebacks before)
        ({"tau_min_ms": "0.001"}, "tau_min_ms: 0.001, expected 0.1 to 1000"),
        ({"shaper_mbps": "1e-300"}, "shaper_mbps: 1e-300, expected 0.1 to"),
        ({"duration_s": "inf"}, "duration_s: inf, expected 1.0 to 3600"),
        ({"duration_s": "0.001", "warmup_s": "0"}, "duration_s: 0.001"),
        ({"duration_s": "nan"}, "duration_s: nan"),
        ({"duration_s": "3000", "tau_min_ms": "0.1"}, "30,000,000 times tau_min_ms"),
    ):
        with pytest.raises(ValueError, match=message):
            bbr_wifi6.Setting.parse(items)


def test_airlab_model_cli_writes_series_summary_and_figure(tmp_path: Path) -> None:
    from airlab import cli

    with pytest.raises(SystemExit) as done:
        cli.main(["model", "bbr-wifi6", "--set", "aqm=fq_codel", "--set", "duration_s=3",
                  "--set", "warmup_s=1", "--out", str(tmp_path)])  # fmt: skip
    assert done.value.code in (0, None)
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["setting"]["aqm"] == "fq_codel" and summary["bottleneck_mbps"] == 10.0
    assert {f["flow"] for f in summary["flows"]} == {"bbr3", "cubic"}
    assert (tmp_path / "series.parquet").stat().st_size > 0
    assert (tmp_path / "model.png").stat().st_size > 0
    # its provenance, in the summary and the series, and the model schema
    import jsonschema
    import pyarrow.parquet as pq

    from airlab import schema

    assert summary["provenance"]["seed"] is None and summary["provenance"]["scenario_sha256"]
    meta = pq.read_schema(tmp_path / "series.parquet").metadata[b"airlab"]
    assert json.loads(meta) == summary["provenance"]
    jsonschema.Draft202012Validator(schema.schema("model")).validate(summary)
    summary["flows"][0]["cc"] = "reno"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft202012Validator(schema.schema("model")).validate(summary)
    with pytest.raises(SystemExit) as bad:
        cli.main(["model", "bbr-wifi6", "--set", "aqm=red", "--out", str(tmp_path)])
    assert bad.value.code == 2


def test_the_solver_steps_as_its_error_control_asks_not_twice_per_rtt(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """PFIFO's pieces between BBR's phase boundaries are smooth, so RK45 crosses 10 s of the
    testbed's 1 ms path in about 2,300 evaluations of the right-hand side; a step capped at
    half the base RTT took 120,000 (docs/models/fluid.md, "Solving")."""
    calls = 0
    rhs = fluid.FluidModel.rhs

    def counted(self: fluid.FluidModel, t: float, y: np.ndarray) -> np.ndarray:
        nonlocal calls
        calls += 1
        return rhs(self, t, y)

    monkeypatch.setattr(fluid.FluidModel, "rhs", counted)
    res = bbr_wifi6.solve(bbr_wifi6.Setting(aqm="pfifo", duration_s=10, warmup_s=5))
    assert calls < 5_000
    # the BBRv3 share of the capped solver and of a 1e-7 tolerance
    assert res.summary.set_index("cc").share["bbr3"] == pytest.approx(0.084416, abs=1e-4)
