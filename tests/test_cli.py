"""The command line as a user meets it: outputs, errors, exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
from PIL import Image

import airlab
from airlab import plots
from conftest import DATA, DUMBBELL, SHORT, interruptible

OUTPUTS = [
    "summary.json",
    "scenario.json",
    "flows.parquet",
    "queues.parquet",
    "links.parquet",
    "fcts.parquet",
    "report.html",
    "plots/throughput.png",
    "plots/cwnd.png",
    "plots/rtt.png",
    "plots/queues.png",
    "plots/links.png",
]


def test_run_builtin_dumbbell_writes_every_output(cli, tmp_path: Path) -> None:
    proc = cli("run", DUMBBELL, "--set", SHORT, "--seed", "2", "--out", "out", check=True)
    out = tmp_path / "out"
    missing = [f for f in OUTPUTS if not (out / f).is_file() or (out / f).stat().st_size == 0]
    assert not missing, f"missing or empty outputs: {missing}"
    assert not list(out.rglob("*.tmp")), "temporary files left behind"

    s = json.loads((out / "summary.json").read_text())
    for key in ("scenario", "seed", "duration_s", "flows", "queues", "links", "jain_index"):
        assert key in s, key
    assert s["seed"] == 2
    assert s["duration_s"] == 5
    assert s["flows"], "no flows in summary"
    flow = s["flows"][0]
    for key in ("name", "src", "dst", "cc", "goodput_mbps", "rtt_ms", "jitter_ms", "retransmits"):
        assert key in flow, key
    assert set(flow["rtt_ms"]) >= {"min", "mean", "p50", "p95"}
    assert flow["goodput_mbps"] > 0
    for key in ("node", "kind", "drops", "marks", "sojourn_ms"):
        assert key in s["queues"][0], key
    assert {"name", "utilization"} <= set(s["links"][0])
    assert {"events", "wall_s", "events_per_s"} <= set(s["engine"])

    flows = pd.read_parquet(out / "flows.parquet")
    assert {"time_s", "flow", "goodput_mbps", "cwnd_pkts", "srtt_ms"} <= set(flows.columns)
    assert flows["time_s"].max() <= 5.0 + 1e-9
    assert set(flows["flow"]) == {f["name"] for f in s["flows"]}
    queues = pd.read_parquet(out / "queues.parquet")
    assert {"time_s", "queue", "backlog_pkts", "drops"} <= set(queues.columns)
    html = (out / "report.html").read_text()
    assert s["scenario"] in html and "data:image/png;base64," in html

    # the printed summary table names the flow and the engine speed
    assert flow["name"] in proc.stdout
    assert "events/s" in proc.stdout

    # its figures are the library's, pixel for pixel
    plots.plot_all(airlab.run(DUMBBELL, seed=2, set={"duration": "5s"}), tmp_path / "lib")
    for png in sorted((tmp_path / "lib").glob("*.png")):
        drawn = np.asarray(Image.open(out / "plots" / png.name))
        np.testing.assert_array_equal(drawn, np.asarray(Image.open(png)), err_msg=png.name)


def test_validate_ok(cli) -> None:
    proc = cli("validate", DUMBBELL, check=True)
    assert proc.stdout.startswith("OK")


def test_validate_counts_wifi_networks(cli) -> None:
    proc = cli("validate", str(DATA / "wifi-chain.toml"), check=True)
    assert "0 links, 1 Wi-Fi networks, 1 flows" in proc.stdout


def test_validate_prints_a_description_of_several_lines_on_one(cli, tmp_path: Path) -> None:
    (tmp_path / "s.toml").write_text(
        'name = "s"\ndescription = """first line\n  second\tline\n"""\nduration = "1s"\n'
        'hosts = ["a", "b"]\n[[link]]\nbetween = ["a", "b"]\nrate = "1Mbit"\ndelay = "1ms"\n'
    )
    proc = cli("validate", "s.toml", check=True)
    assert proc.stdout.count("\n") == 1 and proc.stdout.rstrip().endswith(
        ": first line second line"
    )


def test_a_bad_scheduler_address_is_an_error_naming_the_option(cli) -> None:
    proc = cli("sweep", DUMBBELL, "--set", "duration=1s", "--scheduler", "nosuch", "--out", "sw")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith("error: --scheduler nosuch: missing port number")
    assert "expected a scheduler address such as tcp://host:8786" in proc.stderr


def test_validate_bad_file_exits_2_with_key_path(cli) -> None:
    proc = cli("validate", str(DATA / "bad-duration.toml"))
    assert proc.returncode == 2, proc
    assert proc.stderr.startswith("error:"), proc.stderr
    assert "bad-duration.toml" in proc.stderr
    assert "duration" in proc.stderr.split("bad-duration.toml", 1)[1]
    assert "Traceback" not in proc.stderr + proc.stdout


def test_bad_override_and_missing_file_exit_2(cli) -> None:
    proc = cli("run", DUMBBELL, "--set", "no.such.key=1", "--no-plots")
    assert proc.returncode == 2
    assert proc.stderr.startswith("error:") and "no.such.key" in proc.stderr
    assert "Traceback" not in proc.stderr

    proc = cli("run", "does/not/exist.toml")
    assert proc.returncode == 2
    assert proc.stderr.startswith("error:") and "does/not/exist.toml" in proc.stderr

    proc = cli("run", DUMBBELL, "--set", "novalue")
    assert proc.returncode == 2 and proc.stderr.startswith("error:")

    proc = cli("run", DUMBBELL, "--seed", "abc")
    assert proc.returncode == 2 and proc.stderr.startswith("error:")
    assert "Traceback" not in proc.stderr


def test_list_shows_components_and_builtins(cli) -> None:
    out = cli("list", check=True).stdout
    for word in ("cubic", "reno", "pfifo", "airtime_fair", "ideal", "bulk", DUMBBELL):
        assert word in out, word


def test_list_params_prints_defaults_and_units(cli) -> None:
    out = cli("list", "--params", "fq_codel", check=True).stdout
    for text in ("fq_codel", "target", '"5ms"', "quantum", '"1514B"', "10240", "packets"):
        assert text in out, text
    out = cli("list", "--params", "bbr3", check=True).stdout
    assert "constants" in out and "linux, ietf" in out and 'cc = "bbr3"' in out
    out = cli("list", "--params", "proportional_fair", check=True).stdout
    assert "window" in out and "100" in out
    assert 'ofdma_scheduler = "proportional_fair" in an 802.11ax BSS' in out
    out = cli("list", "--params", "periodic", check=True).stdout
    assert "random_start" in out and "at least 1us" in out
    assert 'app = { kind = "periodic", ... } on a flow' in out
    proc = cli("list", "--params", "vegas")
    assert proc.returncode == 2
    assert "no component is called 'vegas'; expected one of: reno, cubic" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_bench_records_figures_with_the_machine(cli, tmp_path: Path) -> None:
    proc = cli("bench", DUMBBELL, "--repeat", "1", "--record", "--dir", "b", check=True)
    assert "events/s" in proc.stdout
    rec = json.loads((tmp_path / "b" / "results.json").read_text())
    assert len(rec) == 1
    machine, results = rec[0]["machine"], rec[0]["results"]
    assert machine["cores"] >= 1 and machine["cpu"] and machine["date"]
    assert results[0]["scenario"] == DUMBBELL
    assert results[0]["events_per_s"] > 0 and results[0]["sim_s_per_wall_s"] > 0
    assert DUMBBELL in (tmp_path / "b" / "RESULTS.md").read_text()


def test_ctrl_c_stops_a_long_run_promptly_without_output(tmp_path: Path) -> None:
    import signal
    import sys
    import time

    # The CLI, announcing when its libraries are loaded (a Ctrl-C before that is Python's own,
    # and on a busy machine loading takes seconds). About a minute of wall time if left alone.
    start = "import sys; from airlab.cli import main; print('ready', file=sys.stderr); main()"
    args = [sys.executable, "-c", start, "run", "basics/gigabit-50flows"]
    args += ["--set", "duration=1000s", "--out", "long"]
    proc = interruptible(args, tmp_path)
    assert proc.stderr is not None and proc.stderr.readline().strip() == "ready"
    time.sleep(2)
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert time.monotonic() - sent < 5, "the engine must notice Ctrl-C within a simulated second"
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    assert not (tmp_path / "long").exists()


def test_batches_end_the_run_and_print_their_means(cli, tmp_path: Path) -> None:
    batches = "metrics.batches={ packets = 1000, count = 5 }"
    proc = cli("run", DUMBBELL, "--set", batches, "--no-plots", "--out", "out", check=True)
    out = tmp_path / "out"
    s = json.loads((out / "summary.json").read_text())
    assert s["batches"] == {"packets": 1000, "count": 5, "discard": 1, "completed": 5}
    # 5000 packets of a 10 Mbit/s bottleneck: about 6 s of the scenario's 60.
    assert 5 < s["duration_s"] < 8
    b = pd.read_parquet(out / "batches.parquet")
    assert list(b["batch"]) == [0, 1, 2, 3, 4] and (b["packets"] == 1000).all()
    assert "Batch means (5 of 5 batches of 1000 packets, first 1 left out" in proc.stdout
    assert "±" in proc.stdout
