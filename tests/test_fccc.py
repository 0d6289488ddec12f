"""Paper 004's FCCC and its AP airtime telemetry from Python: the scenario runs, the echoed
telemetry is in the flow series, and a bad telemetry key names itself."""

from __future__ import annotations

import pytest

import airlab

SCENARIO = "fccc/three-devices"
SHORT = {"duration": "6s", "metrics.warmup": "2s"}


def test_fccc_reads_the_aps_telemetry_per_device() -> None:
    res = airlab.run(SCENARIO, seed=1, set=SHORT)
    flows = res.flows[res.flows.time_s > 2]
    last = flows.groupby("flow").last()
    # Each receiver echoes the PHY rate its sender's frames reached the AP at, and the AP's
    # setpoint 0.8 / 3 (eq. 4).
    assert last["cc.fccc_dr_mbps"].to_dict() == {"ed1": 24.0, "ed2": 12.0, "ed3": 6.0}
    assert last["cc.fccc_sp"].round(4).tolist() == [0.2667] * 3
    # Eq. 11's bound with the echoed timeslot and eq. 2's t_p at each rate (us, 1500-byte
    # packets): 611.58 at 24, 1129.17 at 12 and 2168.33 at 6 Mbit/s.
    t_p = {"ed1": 611.58e-3, "ed2": 1129.17e-3, "ed3": 2168.33e-3}
    for name, g in flows.groupby("flow"):
        want = (1 + g["cc.fccc_sp"] * g["cc.fccc_ts_ms"] / t_p[name]).apply(int)
        assert ((g["cc.fccc_cwnd_up"] - want).abs() <= 1).all(), name


def test_a_device_setpoint_must_name_a_station() -> None:
    with pytest.raises(airlab.ScenarioError, match=r"ap_hook\.setpoints\.ed9"):
        airlab.run(SCENARIO, set={**SHORT, "wifi.senders.ap_hook.setpoints.ed9": "0.2"})


def test_the_tables_idle_timeout_belongs_to_leave_idle() -> None:
    # `leave = "never"` or `"closed"` removes no device for silence: a timeout beside it is
    # refused, naming the key.
    bad = {**SHORT, "wifi.senders.ap_hook.leave": "never", "wifi.senders.ap_hook.idle": "2s"}
    with pytest.raises(airlab.ScenarioError, match=r"ap_hook\.idle"):
        airlab.run(SCENARIO, set=bad)
