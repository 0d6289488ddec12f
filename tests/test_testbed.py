"""The Linux testbed: its wire and its plan without privileges; a real run, a killed run and
the cleanup when the machine allows (root, TUN, htb and pfifo), skipped with the reason
otherwise.

Kernel runs share the machine with whatever else runs on it. Every run measures its own
fidelity, and the tests use that signal (:func:`kernel_run`): a degraded run is retried once
and, degraded again, the test is skipped with the run's reasons; it never passes on a degraded
run's numbers, and machine load never makes it fail."""

from __future__ import annotations

import contextlib
import importlib
import json
import math
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import warnings
from pathlib import Path

import pytest

import airlab
from airlab import _core, schema
from airlab.testbed import fidelity, kernel, plan

run_module = importlib.import_module("airlab.testbed.run")

DUMBBELL = "basics/dumbbell-cubic"


# -- the wire ------------------------------------------------------------------------------------


def _wire(delay_ns: int, rate_bps: int, loss: float, packets: list[bytes], gap_s: float):
    """Send ``packets`` through one wire over UNIX datagram sockets, ``gap_s`` apart; returns
    what arrived, with how long each took, and the wire's statistics."""
    send, wire_in = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
    wire_out, recv = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
    stop_r, stop_w = os.pipe()
    stats: list = []
    wires = [(wire_in.fileno(), wire_out.fileno(), delay_ns, rate_bps, loss, 7)]
    wire = threading.Thread(target=lambda: stats.extend(_core.delay_line(wires, stop_r)))
    wire.start()
    sent_at: dict[bytes, int] = {}
    got: list[tuple[bytes, int]] = []

    def receive() -> None:
        recv.settimeout(0.5)
        while True:
            try:
                pkt = recv.recv(65536)
            except TimeoutError:
                return
            got.append((pkt, time.monotonic_ns() - sent_at[pkt[:4]]))

    receiver = threading.Thread(target=receive)
    receiver.start()
    try:
        for pkt in packets:
            sent_at[pkt[:4]] = time.monotonic_ns()
            send.send(pkt)
            time.sleep(gap_s)
        receiver.join()
    finally:
        os.write(stop_w, b"x")
        wire.join()
        for s in (send, wire_in, wire_out, recv):
            s.close()
        os.close(stop_r)
        os.close(stop_w)
    return got, stats[0]


def test_wire_adds_serialization_and_delay_in_order() -> None:
    # 1000-byte datagrams at 8 Mbit/s take 1 ms to serialize; plus 4 ms of propagation.
    packets = [i.to_bytes(4, "big") + b"x" * 996 for i in range(60)]
    got, stats = _wire(4_000_000, 8_000_000, 0.0, packets, 0.002)
    assert [p for p, _ in got] == packets
    took_ms = sorted(ns / 1e6 for _, ns in got)
    # Never early; late by the machine's scheduling only (the median by far less than 1 ms).
    assert took_ms[0] >= 5.0
    assert took_ms[len(took_ms) // 2] < 6.0, took_ms
    assert stats["packets"] == 60 and stats["bytes"] == 60_000 and stats["dropped"] == 0
    assert stats["late_p50_us"] < 500


def test_wire_drops_with_its_loss_probability() -> None:
    packets = [i.to_bytes(4, "big") for i in range(2000)]
    got, stats = _wire(0, 0, 0.1, packets, 0.0001)
    # Binomial(2000, 0.1): mean 200, sd 13.4.
    assert 140 <= stats["dropped"] <= 260, stats
    assert len(got) == 2000 - stats["dropped"]
    seqs = [int.from_bytes(p, "big") for p, _ in got]
    assert seqs == sorted(seqs)


def test_the_wire_gets_a_cpu_of_its_own_when_there_are_two() -> None:
    wire, traffic = kernel.cpu_split()
    cpus = os.sched_getaffinity(0)
    if len(cpus) < 2:
        assert wire is None and traffic == cpus
    else:
        assert wire in cpus and wire not in traffic and traffic | {wire} == cpus


# -- the plan ------------------------------------------------------------------------------------


def test_plan_of_the_dumbbell() -> None:
    p = plan.make_plan(airlab.validate(DUMBBELL), "123-ab")
    assert p.nodes == ["h1", "h2", "r1", "r2"]
    assert len(set(p.addresses.values())) == 4
    assert p.namespace("r1") == "airlab123-ab-2"
    bottleneck = next(d for d in p.directions if d.name == "bottleneck:r1->r2")
    assert (bottleneck.rate_bps, bottleneck.delay_ns) == (10_000_000, 8_000_000)
    assert bottleneck.device == "al1"
    assert bottleneck.qdisc == {"kind": "pfifo", "limit": 50}
    # Both directions of a link use the link's device name, one in each namespace.
    reverse = next(d for d in p.directions if d.name == "bottleneck:r2->r1")
    assert reverse.device == bottleneck.device and reverse.src == "r2"
    # h1 reaches h2 through its access link; r1 through the bottleneck.
    routes = {(r.node, r.dst): r.device for r in p.routes}
    assert routes[("h1", "h2")] == "al0" and routes[("r1", "h2")] == "al1"
    (flow,) = p.flows
    assert (flow.kernel_cc, flow.app, flow.port) == ("cubic", "bulk", 5001)
    assert flow.stop_ns == 60 * 10**9
    assert plan.required_qdiscs(p) == {"pfifo"} and plan.required_ccs(p) == {"cubic"}
    bfifo = plan.make_plan(airlab.validate(DUMBBELL, set={"bottleneck.qdisc": airlab.TomlText(
        '{ kind = "bfifo", limit = "30KB" }')}), "1-a")  # fmt: skip
    d = next(d for d in bfifo.directions if d.name == "bottleneck:r1->r2")
    assert kernel.kernel_qdisc_params(d) == ("bfifo", {"limit": 30_000})


def bottleneck_direction(qdisc: str) -> plan.Direction:
    resolved = airlab.validate(DUMBBELL, set={"bottleneck.qdisc": airlab.TomlText(qdisc)})
    p = plan.make_plan(resolved, "1-a")
    return next(d for d in p.directions if d.name == "bottleneck:r1->r2")


def test_a_tbf_becomes_the_kernels_tbf_over_its_own_bfifo() -> None:
    d = bottleneck_direction('{ kind = "tbf", rate = "10Mbit", burst = "15KB", overhead = 0 }')
    want = {"rate": "10000000bit", "burst": 15_000, "limit": 1_514_000}
    assert kernel.kernel_qdisc_params(d) == ("tbf", want)
    # The kernel counts what the TUN device carries (IP packets), and builds its own bfifo.
    with pytest.raises(kernel.TestbedError, match="set the tbf's overhead = 0"):
        kernel.kernel_qdisc_params(bottleneck_direction('{ kind = "tbf", rate = "10Mbit" }'))
    over_pfifo = '{ kind = "tbf", rate = "10Mbit", overhead = 0, qdisc = { kind = "pfifo" } }'
    with pytest.raises(kernel.TestbedError, match="over its own bfifo only, not over pfifo"):
        kernel.kernel_qdisc_params(bottleneck_direction(over_pfifo))


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (lambda f: f["cc"].update(kind="bbr2"), "bbr2, which has no Linux counterpart"),
        (lambda f: f["tcp"].update(mss=1000), "mss = 1000"),
        (lambda f: f["tcp"].update(profile="linux-3.3"), "tcp.profile = 'linux-3.3'"),
        (lambda f: f["tcp"].update(small_queues=False), "tcp.small_queues = False"),
    ],
    ids=["cc", "mss", "profile", "small_queues"],
)
def test_plan_refuses_what_the_testbed_cannot_run(change, words: str) -> None:
    resolved = airlab.validate(DUMBBELL)
    change(resolved["flows"][0])
    with pytest.raises(plan.PlanError, match=words):
        plan.make_plan(resolved, "1-a")


def test_without_root_the_testbed_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    from airlab import testbed

    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    with pytest.raises(testbed.TestbedError, match="run it as root"):
        testbed.run(DUMBBELL, set={"duration": "1s"})
    assert testbed.check()["root"] is False


def test_a_flow_asking_for_another_tick_rate_than_the_kernels_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    run = importlib.import_module("airlab.testbed.run")  # the module, not testbed.run
    monkeypatch.setattr(kernel, "require_root", lambda: None)
    monkeypatch.setattr(kernel, "available_ccs", lambda: ["cubic", "reno", "bbr"])
    monkeypatch.setattr(kernel, "probe_qdiscs", lambda kinds: dict.fromkeys(kinds, True))
    monkeypatch.setattr(run.os.path, "exists", lambda path: True)
    monkeypatch.setattr(kernel, "config_hz", lambda: 250)
    resolved = airlab.validate(DUMBBELL)
    run.check_plan(plan.make_plan(resolved, "1-a"))  # the default, 250, is this kernel's
    resolved["flows"][0]["tcp"]["timer_hz"] = 1000
    with pytest.raises(kernel.TestbedError, match=r"tcp.timer_hz = 1000; this kernel's timers"):
        run.check_plan(plan.make_plan(resolved, "1-a"))


def test_plan_refuses_wifi() -> None:
    with pytest.raises(plan.PlanError, match="wired scenarios only"):
        plan.make_plan(airlab.validate("wifi/ax-cell-10"), "1-a")


# -- on the real kernel --------------------------------------------------------------------------


def _testbed_unavailable() -> str | None:
    if sys.platform != "linux":
        return "the testbed needs Linux"
    if os.geteuid() != 0:
        return "the testbed needs root"
    if not Path("/dev/net/tun").exists():
        return "no /dev/net/tun"
    try:
        found = kernel.probe_qdiscs(["htb", "pfifo"])
    except Exception as e:
        return f"cannot create a network namespace: {e}"
    if not all(found.values()):
        return f"the kernel lacks {[q for q, ok in found.items() if not ok]}"
    if "cubic" not in kernel.available_ccs():
        return "the kernel lacks cubic"
    return None


needs_testbed = pytest.mark.skipif(
    (reason := _testbed_unavailable()) is not None, reason=reason or ""
)

#: Runs of a test scenario, the first included, before a degraded one skips the test.
ATTEMPTS = 2


def kernel_run(scenario, attempts: int = ATTEMPTS, **kwargs):
    """``testbed.run(scenario, **kwargs)``, retried while the run is degraded (its numbers are
    not the kernel's alone: a loaded machine); if every attempt is, the test is skipped with
    the last run's reasons."""
    from airlab import testbed

    for _ in range(attempts):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", testbed.DegradedRunWarning)
            res = testbed.run(scenario, **kwargs)
        fid = res.summary["fidelity"]
        if not fid["degraded"]:
            return res
    pytest.skip(f"{attempts} degraded runs (machine load): {'; '.join(fid['reasons'])}")


def _cmdline(proc: Path) -> str:
    try:
        return (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def _ours() -> list[str]:
    from pyroute2 import netns

    return [n for n in netns.listnetns() if n.startswith(f"{plan.PREFIX}{os.getpid()}-")]


def _schema_errors(summary: dict) -> list[str]:
    """What the summary schema finds wrong with a summary, as summary.json holds it."""
    import jsonschema

    validator = jsonschema.Draft202012Validator(schema.schema("summary"))
    written = json.loads(json.dumps(summary))
    return [f"{list(e.path)}: {e.message}" for e in validator.iter_errors(written)]


@pytest.fixture(scope="module")
def dumbbell_runs():
    """A 4 s dumbbell (1 s of warm-up) on the kernel and in the simulator, for the tests that
    set the two side by side."""
    sets = {"duration": "4s", "metrics.warmup": "1s"}
    return kernel_run(DUMBBELL, set=sets), airlab.run(DUMBBELL, set=sets)


@needs_testbed
def test_a_dumbbell_on_the_kernel_matches_the_schema_and_the_capacity(dumbbell_runs) -> None:
    real, sim = dumbbell_runs
    assert real.summary["backend"] == "linux" and real.summary["linux"]["kernel"]
    assert real.summary["linux"]["offloads"] is False
    assert _schema_errors(real.summary) == []
    assert all(link["wire_realtime"] is not None for link in real.summary["links"])
    for table in ("flows", "queues", "links"):
        assert set(sim.summary[table][0]) <= set(real.summary[table][0]), table
    assert list(real.flows.columns)[:13] == list(sim.flows.columns)[:13]
    flow = real.summary["flows"][0]
    # A backlogged CUBIC flow fills 10 Mbit/s: 1448 bytes of payload in each 1500-byte packet.
    capacity = 10 * 1448 / 1500
    assert 0.9 * capacity <= flow["goodput_mbps"] <= 1.01 * capacity, flow
    # The wire kept to its delay: Linux's min_rtt, taken from the handshake (small packets,
    # tens of microseconds to serialize), is the 20 ms of propagation and little more.
    min_rtt = real.flows["min_rtt_ms"].min()
    assert min_rtt >= 20, min_rtt
    if min_rtt > 21:
        # One sample, the handshake's, sets it; the virtual machine's stalls (about 1 ms, about
        # once a second: models/tcp.md) can fall on it without degrading the run's p99. If
        # the wire itself recorded being that late, the measurement was disturbed; if not,
        # the delay line added time it did not account for.
        worst_ms = max(link["wire_late_us"]["max"] or 0.0 for link in real.summary["links"]) / 1e3
        assert min_rtt - 21 <= worst_ms, (min_rtt, worst_ms)
        pytest.skip(
            f"the handshake met a stall: min_rtt {min_rtt:.3f} ms, the wire up to "
            f"{worst_ms:.3f} ms late"
        )
    bottleneck = next(q for q in real.summary["queues"] if q["name"] == "bottleneck:r1->r2")
    assert bottleneck["backlog_pkts"]["max"] <= 50
    # tcpi_data_segs_out counts as the simulator's data_segs_out: the link's packets in the
    # window (20 s runs: 12506 on the kernel, 12509 simulated).
    want = sim.summary["flows"][0]
    assert flow["data_segs_out"] == pytest.approx(want["data_segs_out"], rel=0.02)
    assert flow["retransmit_rate"] == flow["retransmits"] / flow["data_segs_out"]
    assert flow["srtt_jitter_ms"] is not None and flow["srtt_jitter_ms"] > 0
    assert not _ours(), "the run left namespaces behind"
    # Every kind of fidelity check ran, the backlogged bottleneck's at its rate.
    checks = {(c["name"], c["subject"]): c for c in real.summary["fidelity"]["checks"]}
    assert {name for name, _ in checks} == {
        "samples.goodput", "samples.tcp_info", "samples.queues", "wire.late_p99",
        "link.backlogged_utilization", "cpu.agent_wait", "cpu.available",
    }  # fmt: skip
    busy = checks[("link.backlogged_utilization", "link bottleneck:r1->r2")]
    assert busy["value"] == pytest.approx(1.0, abs=0.03)


@needs_testbed
def test_a_bbr_flow_on_the_kernel_reports_its_state_in_the_simulators_columns(
    tmp_path: Path,
) -> None:
    # Linux BBR's INET_DIAG_BBRINFO, as `ss -ti` shows it: its bandwidth estimate is the
    # link's payload rate, its min_rtt the path's 20 ms, and after Startup (gains 2.89) it
    # cycles ProbeBW's pacing gains with cwnd_gain 2, as airlab's bbr1 does. A VM hiccup that
    # bunches ACKs can lift one bandwidth sample past the link's rate (seen once in a loaded CI
    # run), so, as for the shallow buffer below, one run of up to three must show all of it.
    from airlab.testbed.grid import Cell

    path = tmp_path / "cell.toml"
    path.write_text(Cell("bbr1", "single", 20.0, 1.0, 10).scenario())
    sets = {"duration": "4s", "metrics.warmup": "1s"}
    sim = airlab.run(path, set=sets).flows
    columns = ["cc.bbr_bw_mbps", "cc.bbr_min_rtt_ms", "cc.bbr_pacing_gain", "cc.bbr_cwnd_gain"]
    capacity = 10 * 1448 / 1500
    seen = []
    for _ in range(3):
        real = kernel_run(path, set=sets).flows
        assert set(columns) <= set(real.columns) & set(sim.columns)
        assert real["cc.bbr_pacing_gain"].iloc[0] == pytest.approx(2.89, abs=0.01)
        # The last interval may end after the socket closed (NaN).
        late = real[real["time_s"] > 1.0].dropna(subset=columns)
        assert len(late) >= 25
        bw = late["cc.bbr_bw_mbps"]
        seen.append((bw.min(), bw.max()))
        if (
            bw.between(0.95 * capacity, 1.05 * capacity).all()
            and late["cc.bbr_min_rtt_ms"].between(20.0, 21.0).all()
            and set(late["cc.bbr_pacing_gain"].round(2)) <= {0.75, 1.0, 1.25}
            and (late["cc.bbr_cwnd_gain"] == 2.0).all()
        ):
            return
    raise AssertionError(f"no run of three kept BBR's state in bounds; bw (min, max): {seen}")


@needs_testbed
def test_a_shallow_buffer_at_100_mbits_keeps_the_link_busy(tmp_path: Path) -> None:
    # One CUBIC flow, 20 ms, 100 Mbit/s, a quarter-BDP pfifo (42 packets): after a loss CUBIC
    # keeps 0.7 of a window of 1.25 BDP, so the link stays nearly full (airlab: 94.9 Mbit/s;
    # the kernel 94.0-94.9 over runs). Whatever keeps the receiving process from reading
    # shows as stretch ACKs and sender bursts that overflow this queue: a wire that spun for
    # 100 ms at a time (30-49 Mbit/s), a sampler that took the receiver's CPU for a few ms
    # every interval (78-93). Both hit every run. A quiet VM still has rare hiccups that hit
    # one run (10 runs on 2026-11-25: 82.4-94.6 Mbit/s, two below 91), so the test asks for
    # one run of up to three at the rate a busy link keeps.
    from airlab.testbed.grid import Cell

    cell = Cell("cubic", "single", 20.0, 0.25, 100)
    path = tmp_path / "cell.toml"
    path.write_text(cell.scenario())
    goodputs = []
    for _ in range(3):
        real = kernel_run(path, set={"duration": "8s", "metrics.warmup": "3s"})
        assert real.summary["linux"]["wire_cpu"] == kernel.cpu_split()[0]
        goodputs.append(real.summary["flows"][0]["goodput_mbps"])
        if goodputs[-1] >= 91:
            break
    assert max(goodputs) >= 91, goodputs


@needs_testbed
def test_a_transfer_completes_in_the_simulators_time() -> None:
    sets = {"duration": "3s", "flow.0.app": airlab.TomlText('{ kind = "transfer", size = "1MB" }')}
    real = kernel_run(DUMBBELL, set=sets)
    sim = airlab.run(DUMBBELL, set=sets)
    fct, want = real.summary["flows"][0]["fct_s"], sim.summary["flows"][0]["fct_s"]
    assert set(fct) == set(want) and fct["count"] == 1
    # Handshake, slow start from 10 segments and 1 MB at 10 Mbit/s: 0.88 s in the simulator.
    assert fct["mean"] == pytest.approx(want["mean"], rel=0.1)
    assert list(real.fcts["bytes"]) == [1_000_000]


@needs_testbed
def test_periodic_connections_each_complete() -> None:
    app = airlab.TomlText(
        '{ kind = "periodic", size = "200kB", period = "1s", random_start = "0.5s" }'
    )
    sets = {"duration": "5s", "metrics.warmup": "1s", "flow.0.app": app}
    real = kernel_run(DUMBBELL, set=sets)
    # One connection a second from a random start below 0.5 s: 5 in 5 s, 4 after the warm-up.
    assert len(real.fcts) == 5 and real.summary["flows"][0]["fct_s"]["count"] == 4
    starts = real.fcts["start_s"].to_numpy()
    assert starts[0] < 0.5 + 0.05 and all(abs(d - 1) < 0.05 for d in starts[1:] - starts[:-1])
    # 200 kB at 10 Mbit/s take 0.16 s to serialize, after a 20 ms handshake and a few
    # slow-start rounds of 20 ms.
    assert ((real.fcts["fct_s"] >= 0.18) & (real.fcts["fct_s"] <= 0.4)).all(), real.fcts
    # The kernel counts per connection: the flow's cumulative counters are not measured (a
    # connection's counts minus another's at the warm-up were reported before).
    flow = real.summary["flows"][0]
    assert flow["data_segs_out"] is flow["retransmits"] is flow["retransmit_rate"] is None
    assert real.flows["retransmits"].isna().all() and real.flows["cwnd_pkts"].notna().any()


@needs_testbed
def test_ping_next_to_a_bulk_flow_sees_the_standing_queue() -> None:
    sets = {"duration": "6s", "metrics.warmup": "2s"}
    real = kernel_run("aqm/bufferbloat-pfifo", set=sets)
    probe = next(f for f in real.summary["flows"] if f["app"] == "ping")
    # 40 ms of propagation and a queue that the CUBIC flow keeps hundreds of packets deep
    # (1000-packet pfifo at 10 Mbit/s: up to 1.2 s). Requests of the last RTT are still in
    # flight at the end: at 100 ms intervals, at most 13 go unanswered.
    assert probe["unanswered"] <= 13 and probe["rtt_ms"]["min"] >= 40
    assert 100 <= probe["rtt_ms"]["p50"] <= 1300, probe["rtt_ms"]
    assert probe["jitter_ms"] is not None and not _ours()
    assert _schema_errors(real.summary) == []
    # pings.parquet: every reply, at its arrival; those sent after the warm-up are the summary's
    pings = real.pings
    assert pings["time_s"].is_monotonic_increasing and pings["seq"].is_unique
    sent = pings["time_s"] - pings["rtt_ms"] / 1e3
    assert pings[sent > 2.0]["rtt_ms"].min() == pytest.approx(probe["rtt_ms"]["min"])
    assert pings[sent > 2.0]["rtt_ms"].max() == pytest.approx(probe["rtt_ms"]["max"])


@needs_testbed
def test_udp_next_to_a_bulk_flow_matches_the_simulator() -> None:
    udp = airlab.TomlText('{ kind = "udp", rate = "2Mbit" }')
    sets = {"duration": "6s", "metrics.warmup": "2s", "flow.1.app": udp}
    real = kernel_run("aqm/bufferbloat-pfifo", set=sets)
    sim = airlab.run("aqm/bufferbloat-pfifo", set=sets)
    got, want = real.summary["flows"][1], sim.summary["flows"][1]
    # 2 Mbit/s of 1500-byte IP packets: the same datagrams in the window, all of them
    # delivered (the pfifo holds 1000 packets), at the same goodput.
    assert got["udp"]["sent"] == want["udp"]["sent"]
    assert got["udp"]["loss_rate"] == 0.0
    assert got["goodput_mbps"] == pytest.approx(want["goodput_mbps"], rel=0.03)
    # One-way: 20 ms of propagation, then the queue the CUBIC flow builds.
    assert 20 <= got["udp"]["owd_ms"]["min"] <= got["udp"]["owd_ms"]["p50"]
    assert _schema_errors(real.summary) == []


def shaped(qdisc: str, senders: dict[str, str]) -> str:
    """Senders (name: TOML of the flow's `dscp`, `cc` and `app` keys) to their own receivers
    over 1 Gbit/s access links and a 100 Mbit/s bottleneck running ``qdisc`` (TOML) from r1
    to r2; 8 s with 2 s of warm-up."""
    text = """name = "shaped"
duration = "8s"
hosts = {hosts}
routers = ["r1", "r2"]
[metrics]
warmup = "2s"
[[link]]
name = "bottleneck"
between = ["r1", "r2"]
rate = "100Mbit"
delay = "5ms"
forward = {{ qdisc = {qdisc} }}
"""
    hosts = [h for s in senders for h in (s, f"{s}_rx")]
    text = text.format(hosts=json.dumps(hosts), qdisc=qdisc)
    for s, keys in senders.items():
        for a, b in ((s, "r1"), ("r2", f"{s}_rx")):
            text += f'[[link]]\nbetween = ["{a}", "{b}"]\nrate = "1Gbit"\ndelay = "1ms"\n'
        text += f'[[flow]]\nname = "{s}"\nfrom = "{s}"\nto = "{s}_rx"\n{keys}\n'
    return text


TBF_UDP = shaped(
    '{ kind = "tbf", rate = "10Mbit", burst = "15KB", overhead = 0 }',
    {"s": 'app = { kind = "udp", rate = "20Mbit" }'},
)

HTB_TCP = shaped(
    '{ kind = "htb", rate = "10Mbit", overhead = 0, classes = ['
    '{ rate = "3Mbit", ceil = "10Mbit", dscp = 1, qdisc = { kind = "pfifo", limit = 50 } }, '
    '{ rate = "7Mbit", ceil = "10Mbit", dscp = 2, qdisc = { kind = "pfifo", limit = 50 } }] }',
    {
        "a": 'dscp = 1\ncc = "cubic"\napp = { kind = "bulk" }',
        "b": 'dscp = 2\ncc = "cubic"\napp = { kind = "bulk" }',
    },
)


@needs_testbed
def test_a_tbf_shapes_as_the_kernels_does(tmp_path: Path) -> None:
    """20 Mbit/s of UDP into a 10 Mbit/s tbf (IP bytes: overhead 0, as the kernel counts on
    the testbed's TUN devices) on a 100 Mbit/s link: the kernel and the simulator deliver the
    same goodput, 10 x 1472 / 1500 Mbit/s, within 0.5 %."""
    path = tmp_path / "tbf.toml"
    path.write_text(TBF_UDP)
    real = kernel_run(path).summary["flows"][0]["goodput_mbps"]
    sim = airlab.run(path).summary["flows"][0]["goodput_mbps"]
    assert sim == pytest.approx(10 * 1472 / 1500, rel=0.001)
    assert real == pytest.approx(sim, rel=0.005)


def test_an_htb_becomes_the_kernels_htb_with_dscp_filters() -> None:
    resolved = airlab.validate(DUMBBELL)
    resolved["flows"][0]["dscp"] = 8
    assert plan.make_plan(resolved, "1-a").flows[0].dscp == 8
    d = bottleneck_direction(
        '{ kind = "htb", rate = "10Mbit", classes = [{ rate = "3Mbit", ceil = "10Mbit", '
        'dscp = 1 }, { rate = "1Mbit", qdisc = { kind = "fq_codel" } }] }'
    )
    with pytest.raises(kernel.TestbedError, match="class 1's leaf is fq_codel"):
        kernel.kernel_qdisc_params(d)
    d = bottleneck_direction('{ kind = "htb", classes = [{ rate = "8Mbit", dst = "h2" }] }')
    with pytest.raises(kernel.TestbedError, match="by destination"):
        kernel.kernel_qdisc_params(d)
    d = bottleneck_direction('{ kind = "htb", classes = [{ rate = "8Mbit", dscp = 46 }] }')
    kind, spec = kernel.kernel_qdisc_params(d)
    assert (kind, spec["rate"], spec["overhead"]) == ("htb", None, 14)
    (c,) = spec["classes"]
    # tc's defaults: a bucket of 1 ms at the rate + 1600 bytes, the leaf a 1000-packet pfifo.
    assert (c["rate"], c["ceil"], c["burst"], c["dscp"]) == (8_000_000, 8_000_000, 2600, 46)
    assert c["leaf"] == {"kind": "pfifo", "limit": 1000}


@needs_testbed
def test_an_htb_shares_as_the_kernels_does(tmp_path: Path) -> None:
    """Two CUBIC flows marked DSCP 1 and 2 in htb classes of 3 and 7 Mbit/s that borrow up to
    10 under a 10 Mbit/s parent (IP bytes: overhead 0): the kernel's htb and the simulator's
    give each flow the same goodput (2.896 and 6.757 Mbit/s on Linux 6.18 and in the
    simulator), tested within 2 %."""
    path = tmp_path / "htb.toml"
    path.write_text(HTB_TCP)
    real = kernel_run(path).summary["flows"]
    sim = airlab.run(path).summary["flows"]
    for got, want in zip(real, sim, strict=True):
        assert got["goodput_mbps"] == pytest.approx(want["goodput_mbps"], rel=0.02), (got, want)
    assert sim[0]["goodput_mbps"] / (sim[0]["goodput_mbps"] + sim[1]["goodput_mbps"]) == (
        pytest.approx(0.3, abs=0.02)
    )


def _start_run(tmp_path: Path) -> tuple[subprocess.Popen, str]:
    """A 30 s testbed run in a child process, once all four of its namespaces exist (a
    namespace is created by a helper process, which could finish after a kill)."""
    from pyroute2 import netns

    proc = subprocess.Popen(
        [sys.executable, "-m", "airlab", "testbed", "run", DUMBBELL, "--set", "duration=30s",
         "--out", str(tmp_path / "out"), "--no-plots"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    prefix = f"{plan.PREFIX}{proc.pid}-"
    deadline = time.monotonic() + 30
    while sum(n.startswith(prefix) for n in netns.listnetns()) < 4:
        if time.monotonic() > deadline:
            proc.kill()
            pytest.fail("the run never created its namespaces")
        time.sleep(0.1)
    time.sleep(2)  # traffic is flowing
    return proc, prefix


@needs_testbed
def test_ctrl_c_stops_a_run_and_removes_everything(tmp_path: Path) -> None:
    from pyroute2 import netns

    proc, prefix = _start_run(tmp_path)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130 and "interrupted" in err, err
    assert not [n for n in netns.listnetns() if n.startswith(prefix)]
    assert not [p for p in Path("/proc").glob("[0-9]*") if prefix in _cmdline(p)]


@needs_testbed
def test_a_killed_run_is_cleaned_up(tmp_path: Path) -> None:
    from pyroute2 import netns

    from airlab import testbed

    before = set(netns.listnetns())
    proc, prefix = _start_run(tmp_path)
    scratch = list(Path(tempfile.gettempdir()).glob(f"airlab-testbed-{proc.pid}-*"))
    assert len(scratch) == 1, "the run's agents write their records there"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    left = [n for n in netns.listnetns() if n.startswith(prefix)]
    assert left, "SIGKILL leaves the namespaces (nothing ran to remove them)"
    time.sleep(0.5)  # the agents die with their parent
    agents = [p for p in Path("/proc").glob("[0-9]*") if prefix in _cmdline(p)]
    assert not agents, "agents outlived the controller"
    assert scratch[0].exists(), "SIGKILL leaves the scratch directory"
    testbed.cleanup()
    # Gone, whoever removed them (any testbed run also removes what dead ones left).
    assert not set(left) & set(netns.listnetns())
    assert not {n for n in netns.listnetns() if n.startswith(prefix)} - before
    assert not scratch[0].exists()


@needs_testbed
def test_bbr1_takes_from_cubic_in_a_deep_fifo_what_the_kernels_bbr_takes() -> None:
    """Paper 000's PFIFO core without the Wi-Fi: BBRv1 against CUBIC through a 10 Mbit/s
    bottleneck with a 50-packet drop-tail buffer (about 15 BDP at the 4 ms base RTT). CUBIC
    keeps the buffer full, BBR's min_rtt filter sees half of it, and BBR takes about 60 % of
    the link: Linux's tcp_bbr and airlab's BBRv1 within 4 points of each other (paper 000's
    Fig. 5a: BBRv1 "consistently dominates"). One kernel run varies by a few points (0.593-0.633
    over five on a quiet machine, 0.569 once under a loaded CI run), so the mean of three
    kernel runs is compared with airlab's mean over ten seeds (cheap, and three of them stray:
    seeds 1-3 give 0.576 where seeds 1-20 give 0.597, 0.54-0.63), and every run must dominate.
    Six kernel runs cannot tell whether Linux has such a tail, so a single run is held to the
    paper's claim (above half), not to the kernel's five-run range."""
    sets = {"flow.bbr3.cc": "bbr1", "duration": "20s", "metrics.warmup": "5s",
            "link.bottleneck.delay": "1ms"}  # fmt: skip
    sets.update({f"link.{i}.delay": "0.5ms" for i in range(4)})

    def share(run) -> float:
        flows = {f["name"]: f["goodput_mbps"] for f in run.summary["flows"]}
        return flows["bbr3"] / (flows["bbr3"] + flows["cubic"])

    scenario = "basics/dumbbell-bbr3-vs-cubic"
    real = [share(kernel_run(scenario, seed=s, set=sets)) for s in (1, 2, 3)]
    sim = [share(airlab.run(scenario, seed=s, set=sets)) for s in range(1, 11)]
    assert min(real) > 0.5 and min(sim) > 0.5, (real, sim)
    assert abs(sum(real) / len(real) - sum(sim) / len(sim)) < 0.04, (real, sim)


# -- limits, start-up and cleanup ----------------------------------------------------------------


def _many(tmp_path: Path, flows: int, hosts: int) -> dict:
    """The dumbbell with ``hosts`` extra hosts on r1 and ``flows`` bulk flows h1 -> h2,
    resolved."""
    text = airlab.resolve(DUMBBELL).read_text(encoding="utf-8")
    extra = [f"x{i}" for i in range(hosts)]
    text = text.replace('hosts = ["h1", "h2"]', f"hosts = {json.dumps(['h1', 'h2', *extra])}")
    for h in extra:
        text += f'\n[[link]]\nbetween = ["{h}", "r1"]\nrate = "1Gbit"\ndelay = "1ms"\n'
    for i in range(flows - 1):
        text += f'\n[[flow]]\nname = "f{i}"\nfrom = "h1"\nto = "h2"\ncc = "cubic"\n'
        text += 'app = { kind = "bulk" }\n'
    path = tmp_path / f"many-{flows}-{hosts}.toml"
    path.write_text(text)
    return airlab.validate(path)


def test_the_plan_caps_flows_and_nodes_naming_the_key_and_the_bound(tmp_path: Path) -> None:
    assert 'hosts = ["h1", "h2"]' in airlab.resolve(DUMBBELL).read_text(encoding="utf-8")
    plan.make_plan(_many(tmp_path, plan.MAX_FLOWS, plan.MAX_NODES - 4), "1-a")  # at both bounds
    flows = rf"flow: {plan.MAX_FLOWS + 1} flows, more than the testbed's {plan.MAX_FLOWS} "
    with pytest.raises(plan.PlanError, match=flows):
        plan.make_plan(_many(tmp_path, plan.MAX_FLOWS + 1, 0), "1-a")
    nodes = rf"hosts \+ routers: {plan.MAX_NODES + 1} nodes, more than the testbed's "
    with pytest.raises(plan.PlanError, match=nodes + str(plan.MAX_NODES)):
        plan.make_plan(_many(tmp_path, 1, plan.MAX_NODES - 3), "1-a")


def _fake_agent(code: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip


def test_start_up_waits_for_a_busy_agent_and_names_a_stuck_or_dead_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # An agent that computes (as one on a loaded machine waits for a CPU) is waited for however
    # long it takes, here 1.5 s against a "stuck" limit of 0.5 s; one that sleeps that long
    # without becoming ready is stuck; one that exits is named with its stderr.
    monkeypatch.setattr(run_module, "_STUCK_S", 0.5)
    monkeypatch.setattr(run_module, "_REPORT_S", 0.3)
    said: list[str] = []
    busy = _fake_agent("import time\nt = time.time()\nwhile time.time() - t < 1.5: pass\n"
                       "print('ready', flush=True)")  # fmt: skip
    run_module._await_ready([("the busy agent", busy)], said.append)
    busy.kill()
    assert said and "0 of 1 agents ready; waiting for the busy agent" in said[0]
    asleep = _fake_agent("import time\ntime.sleep(30)")
    with pytest.raises(kernel.TestbedError, match=r"the sleepy agent has slept 0\.5 s without"):
        run_module._await_ready([("the sleepy agent", asleep)], None)
    assert asleep.poll() is not None, "a stuck agent is killed"
    dead = _fake_agent("import sys\nsys.exit('no such namespace')")
    with pytest.raises(kernel.TestbedError,
                       match="the dead agent exited with status 1 before it was ready: no such "
                             "namespace"):  # fmt: skip
        run_module._await_ready([("the dead agent", dead)], None)
    mute = _fake_agent("import os\nos._exit(3)")
    with pytest.raises(kernel.TestbedError, match=r"status 3 .*: it wrote nothing to stderr"):
        run_module._await_ready([("the mute agent", mute)], None)


@needs_testbed
def test_an_agent_that_dies_at_start_is_named_with_its_stderr(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from airlab import testbed
    from airlab.testbed import agent

    # Every receiver fails before it is ready; the senders are the real ones.
    broken = tmp_path / "agent.py"
    broken.write_text(
        "import os, sys\n"
        "if sys.argv[1] == 'sink':\n    sys.exit('cannot bind: address in use')\n"
        f"os.execv(sys.executable, [sys.executable, {agent.__file__!r}, *sys.argv[1:]])\n"
    )
    monkeypatch.setattr(agent, "__file__", str(broken))
    named = (
        r"the receiver of flow 'cubic' \(on h2, namespace airlab\d+-[0-9a-f]+-1\) exited "
        r"with status 1 before it was ready: cannot bind"
    )
    with pytest.raises(testbed.TestbedError, match=named):
        testbed.run(DUMBBELL, set={"duration": "1s"})
    assert not _ours()
    assert not list(Path(tempfile.gettempdir()).glob(f"airlab-testbed-{os.getpid()}-*"))


@needs_testbed
def test_a_bfifo_builds_and_limits_its_backlog_in_bytes() -> None:
    # 15 kB hold ten 1500-byte packets: a CUBIC flow keeps the queue at its byte limit, and
    # drops once it is full (pyroute2 alone sent bfifo to the root, where the shaper's htb is:
    # "File exists").
    qdisc = airlab.TomlText('{ kind = "bfifo", limit = "15kB" }')
    sets = {"duration": "3s", "metrics.warmup": "1s", "bottleneck.qdisc": qdisc}
    real = kernel_run(DUMBBELL, set=sets)
    q = real.queues[real.queues["queue"] == "bottleneck:r1->r2"]
    assert 12_000 <= q["backlog_bytes"].max() <= 15_000, q["backlog_bytes"].max()
    assert q["backlog_pkts"].max() <= 10
    assert next(x for x in real.summary["queues"] if x["name"] == "bottleneck:r1->r2")["drops"]


@needs_testbed
def test_a_tun_devices_drops_below_the_qdisc_are_counted() -> None:
    # A TUN device whose reader is away holds tx_queue_len packets in its ring and drops the
    # rest, below the qdisc (whose counters see them as sent): what a starved wire does.
    from pyroute2 import netns

    ns = f"{plan.PREFIX}{os.getpid()}-tundrops"
    netns.create(ns)
    fd = None
    try:
        with kernel.inside(ns):
            kernel.set_sysctl("net/ipv6/conf/default/disable_ipv6", "1")
        fd = kernel.open_tun(ns, "t0")
        with kernel.netlink(ns) as ip:
            idx = ip.link_lookup(ifname="t0")[0]
            ip.link("set", index=idx, txqlen=8, state="up")
            ip.addr("add", index=idx, address="10.99.0.1", prefixlen=24)
            assert kernel.device_tx_dropped(ip, idx) == 0
            with kernel.inside(ns):
                s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            with s:
                for _ in range(50):
                    s.sendto(b"x" * 100, ("10.99.0.2", 9))
            dropped = kernel.device_tx_dropped(ip, idx)
        os.set_blocking(fd, False)
        queued = 0
        with contextlib.suppress(BlockingIOError):
            while os.read(fd, 2048):
                queued += 1
        assert (queued, dropped) == (8, 42)
    finally:
        if fd is not None:
            os.close(fd)
        netns.remove(ns)


# -- fidelity ------------------------------------------------------------------------------------


def test_a_fidelity_block_validates_and_a_testbed_summary_needs_one() -> None:
    sim = airlab.run(DUMBBELL, set={"duration": "1s"}).summary
    linux = {**sim, "backend": "linux", "linux": {"kernel": "6", "sysctls": {},
                                                  "offloads": False, "wire_cpu": 1}}  # fmt: skip
    assert any("'fidelity' is a required property" in e for e in _schema_errors(linux))
    check = {"name": "cpu.available", "subject": "run", "value": 0.5, "bound": 0.9, "op": ">=",
             "pass": False, "affects": ["*"], "detail": "others took 50%"}  # fmt: skip
    linux["fidelity"] = {"degraded": True, "reasons": ["cpu.available (run): ..."],
                         "checks": [check, {**check, "value": None, "pass": True}]}  # fmt: skip
    assert _schema_errors(linux) == []
    linux["fidelity"]["checks"][0]["name"] = "cpu.mood"
    assert _schema_errors(linux)


def test_a_late_sample_is_left_out_and_counted() -> None:
    # Boundary 300 ms read 60 ms late: past half of the 100 ms interval, it belongs to none.
    p = plan.make_plan(airlab.validate(DUMBBELL, set={"duration": "1s"}), "1-a")
    rows = [{"t": t, "taken": t + (60_000_000 if t == 300_000_000 else 1_000), "queue": d.name,
             "backlog_pkts": 1, "backlog_bytes": 1500, "bytes": t // 1000, "packets": 0,
             "drops": 0} for t in fidelity.window(p) for d in p.directions]  # fmt: skip
    assert len(run_module._on_time(p, rows)) == len(rows) - len(p.directions)
    records = {"sinks": {"cubic": {"samples": [(t, 0, 0) for t in fidelity.window(p)],
                                   "last_byte_ns": p.duration_ns}},
               "senders": {"cubic": {"started_ns": 0}}}  # fmt: skip
    samples = {"flows": [], "queues": rows}
    checks = {c["name"]: c for c in fidelity._sample_checks(p, records, samples)}
    assert checks["samples.queues"]["value"] == pytest.approx(0.9)
    assert not checks["samples.queues"]["pass"] and checks["samples.goodput"]["pass"]
    # No tcp_info sample at all while the connection was open (the sampler starved).
    assert checks["samples.tcp_info"]["value"] == 0.0
    assert checks["samples.tcp_info"]["detail"] == "0 of 9 tcp_info samples (sRTT, cwnd) on time"


def _hogs(cpus: set[int]) -> list[subprocess.Popen]:
    """A busy process pinned to each of ``cpus``, as other work on the machine would be."""
    return [subprocess.Popen(["taskset", "-c", str(c), sys.executable, "-c", "while 1: pass"])
            for c in sorted(cpus)]  # fmt: skip


@needs_testbed
def test_a_run_starved_of_its_cpus_is_degraded_warns_and_fails_when_strict(
    cli, tmp_path: Path
) -> None:
    # Two busy processes on each traffic CPU: the run's receiver and sender get a third of it.
    _, traffic = kernel.cpu_split()
    hogs = _hogs(traffic) + _hogs(traffic)
    try:
        proc = cli("testbed", "run", DUMBBELL, "--set", "duration=3s", "--out", "starved",
                   "--no-plots", "--strict")  # fmt: skip
    finally:
        for h in hogs:
            h.kill()
            h.wait()
    assert proc.returncode == 4, proc.stderr
    assert "warning: degraded run" in proc.stderr and "cpu.available" in proc.stderr
    assert "the run was degraded (--strict)" in proc.stderr
    summary = json.loads((tmp_path / "starved" / "summary.json").read_text())
    assert _schema_errors(summary) == []
    fid = summary["fidelity"]
    failed = [c["name"] for c in fid["checks"] if not c["pass"]]  # one per check and subject
    assert fid["degraded"] and "cpu.available" in failed and len(fid["reasons"]) == len(failed)
    available = next(c for c in fid["checks"] if c["name"] == "cpu.available")
    assert available["value"] < 0.7, available
    # compare puts the caveat beside every number of the degraded run.
    cli("run", DUMBBELL, "--set", "duration=3s", "--out", "sim", "--no-plots", check=True)
    out = cli("compare", "sim", "starved", "--out", "cmp", "--no-plots", check=True).stdout
    assert "⚠1: linux:starved is a degraded testbed run: " in out
    rows = [line.split(" | ") for line in (tmp_path / "cmp" / "compare.md").read_text().split(
        "\n") if line.startswith("| ") and "---" not in line][1:]  # fmt: skip
    kernel_values = [row[4] for row in rows if row[4] != "-"]
    assert kernel_values and all("⚠" in v for v in kernel_values), rows


@needs_testbed
def test_a_run_on_a_quiet_machine_passes_every_fidelity_check() -> None:
    # The converse: when the machine left the run its CPUs, nothing else may be flagged. Quiet
    # means others and the hypervisor took less CPU time than half an interval (50 ms) in all:
    # even all of it on the sampler's CPU at once cannot make a sample late. (At "at most 3 %"
    # they could: 3 % of 2 CPUs over 3 s is 180 ms, and CI once saw 27 of 29 samples on time.)
    # On a busier machine the test cannot say.
    from airlab import testbed

    # The virtual machine's own stalls (about 1 ms, about once a second: models/tcp.md) do not
    # show in that accounting, and now and then they land on the wire (a fresh-clone run once
    # saw 1 % of a 3 s run's ACKs 1.6 ms late on an otherwise quiet machine). A fault of the
    # testbed flags every quiet run, a stall one of them: so one clean quiet run of up to three
    # passes, two flagged quiet runs fail, and one flagged quiet run with no other skips.
    quiet = 1 - 0.05 / (len(os.sched_getaffinity(0)) * 3.0)
    seen, flagged = [], []
    for _ in range(ATTEMPTS + 1):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", testbed.DegradedRunWarning)
            fid = testbed.run(DUMBBELL, set={"duration": "3s"}).summary["fidelity"]
        available = next(c for c in fid["checks"] if c["name"] == "cpu.available")
        if available["value"] < quiet:
            seen.append(available["detail"])
        elif not fid["degraded"]:
            return
        else:
            flagged.append(fid["reasons"])
    assert len(flagged) < 2, flagged
    pytest.skip(f"no quiet run passed: flagged {flagged}; not quiet (at most {1 - quiet:.2%}): "
                f"{'; '.join(seen)}")  # fmt: skip


def _cumulative(res, table: str, key: str, column: str, window_s: float) -> dict[str, float]:
    """Per entity: ``column`` never decreases (asserted), and its rise after ``window_s``."""
    out = {}
    for name, g in getattr(res, table).groupby(key, observed=True):
        g = g.dropna(subset=[column]).sort_values("time_s")
        assert g[column].is_monotonic_increasing, (table, name, column)
        before = g[g["time_s"] <= window_s][column]
        out[str(name)] = g[column].iloc[-1] - (before.iloc[-1] if len(before) else 0.0)
    return out


@needs_testbed
def test_every_column_means_what_the_simulators_does(dumbbell_runs) -> None:
    """The engine's column docs (`_core.columns()`) are the definition: a column documented as
    cumulative is a running count from the run's start in both backends, whose rise over the
    window is the summary's count; a per-interval rate averages to the summary's rate. The
    queue's drops were per interval on the testbed."""
    real, sim = dumbbell_runs
    docs = _core.columns()
    for table in ("flows", "queues", "links"):
        time_key, key, columns = docs[table]
        cumulative = [c for c, _, text in columns if text.startswith("cumulative")]
        documented = {time_key, key, *(c for c, _, _ in columns)}
        assert documented <= set(getattr(sim, table).columns) & set(getattr(real, table).columns)
        for res in (sim, real):
            frame = getattr(res, table)
            assert len(frame) > 0, (res.summary.get("backend"), table)
            for column in cumulative:
                if frame[column].notna().any():
                    _cumulative(res, table, key, column, 1.0)
    for res in (sim, real):
        drops = _cumulative(res, "queues", "queue", "drops", 1.0)
        for q in res.summary["queues"]:
            assert drops[q["name"]] == q["drops"], (res.summary.get("backend"), q["name"])
        retransmits = _cumulative(res, "flows", "flow", "retransmits", 1.0)
        assert retransmits["cubic"] == res.summary["flows"][0]["retransmits"]
        window = res.flows[res.flows["time_s"] > 1.0]
        assert window["goodput_mbps"].mean() == pytest.approx(
            res.summary["flows"][0]["goodput_mbps"], rel=0.02
        )
        links = res.links[res.links["time_s"] > 1.0].groupby("link", observed=True)
        for link in res.summary["links"]:
            mean = links["throughput_mbps"].mean()[link["name"]]
            assert mean == pytest.approx(link["throughput_mbps"], rel=0.05, abs=0.01), link
            assert not math.isnan(links["utilization"].mean()[link["name"]])
    assert sum(q["drops"] for q in real.summary["queues"]) > 0, "nothing to compare"
