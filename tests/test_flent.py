"""Flent data files: an airlab run exported as ``.flent.gz`` opens with Flent's own loader and
plots with Flent's own plotter, holds exactly the run's samples, and reads back (also into
``airlab compare``)."""

from __future__ import annotations

import datetime as dt
import gzip
import importlib.metadata
import json
import pickle
import runpy
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
from flent import resultset

import airlab
from airlab import flent
from conftest import data_text

BUFFERBLOAT = "aqm/bufferbloat-fq_codel"
SHORT = {"duration": "8s", "metrics.warmup": "2s"}
START = dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.UTC)


@pytest.fixture(scope="module")
def bufferbloat() -> airlab.Result:
    return airlab.run(BUFFERBLOAT, set=SHORT)


def test_an_export_opens_with_flents_loader_and_holds_the_runs_samples(
    bufferbloat: airlab.Result, tmp_path: Path
) -> None:
    path = flent.export(bufferbloat, tmp_path / "bb.flent.gz", time=START)
    got = resultset.load(str(path))
    assert got.meta("NAME") == "tcp_1up"  # one TCP upload with ping: Flent's test of that name
    assert set(got.series_names) == {"TCP upload", "Ping (ms) ICMP"}
    assert got.meta("STEP_SIZE") == pytest.approx(0.1) and got.meta("TOTAL_LENGTH") == 8.0
    assert got.t0 == START.timestamp()
    # Ping: each reply, at its time after the start, as Flent's ping runner records them.
    pings = bufferbloat.pings
    raw = list(got.raw_series("Ping (ms) ICMP"))
    assert len(raw) == len(pings) > 60
    assert np.allclose([t for t, _ in raw], pings["time_s"], atol=1e-6)
    assert [v for _, v in raw] == pings["rtt_ms"].tolist()
    # TCP: goodput per interval on Flent's common axis, the smoothed RTT as Flent's tcp_rtt.
    bulk = bufferbloat.flows[bufferbloat.flows["flow"] == "bulk"]
    on_axis = dict(zip(np.round(got.x_values, 6), got.series("TCP upload"), strict=True))
    assert [on_axis[round(t, 6)] for t in bulk["time_s"]] == bulk["goodput_mbps"].tolist()
    rtt = [v for _, v in got.raw_series("TCP upload", raw_key="tcp_rtt")]
    assert rtt == bulk["srtt_ms"].dropna().tolist()
    # Per-series metadata over the measurement window, as Flent's runners give it.
    meta = got.meta("SERIES_META")
    window = pings[pings["time_s"] > 2.0]["rtt_ms"]
    assert meta["Ping (ms) ICMP"]["MEAN_VALUE"] == pytest.approx(window.mean())
    assert meta["TCP upload"]["UNITS"] == "Mbits/s" and meta["TCP upload"]["AIRLAB_FLOW"] == "bulk"


@pytest.mark.parametrize("plot", ["totals", "ping_cdf", "totals_with_tcp_rtt"])
def test_flents_own_plotter_draws_an_export(
    bufferbloat: airlab.Result, tmp_path: Path, plot: str
) -> None:
    path = flent.export(bufferbloat, tmp_path / "bb.flent.gz", time=START)
    out = tmp_path / f"{plot}.png"
    cmd = [sys.executable, "-m", "flent", "-i", str(path), "-p", plot, "-o", str(out)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert out.stat().st_size > 10_000


def test_several_tcp_flows_become_flents_tcp_nup_with_its_aggregates(tmp_path: Path) -> None:
    res = airlab.run("basics/dumbbell-2cubic", set={"duration": "4s"})
    path = flent.export(res, tmp_path / "two.flent.gz", time=START)
    got = resultset.load(str(path))
    assert got.meta("NAME") == "tcp_nup" and got.meta("TEST_PARAMETERS") == {"upload_streams": 2}
    one, two = got.series("TCP upload::1"), got.series("TCP upload::2")
    total = got.series("TCP upload sum")
    for a, b, s in zip(one, two, total, strict=True):
        assert s is None or s == pytest.approx(a + b)
    fair = [v for v in got.series("TCP upload fairness") if v is not None]
    assert fair and all(0.5 <= v <= 1.0 + 1e-12 for v in fair)
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "flent",
            "-i",
            str(path),
            "-p",
            "upload",
            "-o",
            str(tmp_path / "u.png"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_an_export_reads_back_with_the_runs_flows_and_numbers(
    bufferbloat: airlab.Result, tmp_path: Path
) -> None:
    path = flent.export(bufferbloat, tmp_path / "bb.flent.gz", time=START)
    back = flent.load(path)
    assert back.summary["backend"] == "flent" and back.summary["flent"]["test"] == "tcp_1up"
    flows = {f["name"]: f for f in back.summary["flows"]}
    mine = {f["name"]: f for f in bufferbloat.summary["flows"]}
    assert flows["bulk"]["goodput_mbps"] == pytest.approx(mine["bulk"]["goodput_mbps"], rel=1e-9)
    assert flows["bulk"]["cc"] == "cubic"
    # The summary's RTT percentiles come from an HdrHistogram (within 0.4 %); Flent's are exact.
    for key in ("min", "max", "mean"):
        assert flows["probe"]["rtt_ms"][key] == pytest.approx(mine["probe"]["rtt_ms"][key])
    assert flows["probe"]["rtt_ms"]["p50"] == pytest.approx(
        mine["probe"]["rtt_ms"]["p50"], rel=4e-3
    )
    assert np.allclose(back.pings["time_s"], bufferbloat.pings["time_s"], atol=1e-6)
    assert back.pings["seq"].tolist() == bufferbloat.pings["seq"].tolist()


def test_compare_takes_a_flent_file_beside_a_result_directory(
    bufferbloat: airlab.Result, tmp_path: Path, cli
) -> None:
    bufferbloat.save(tmp_path / "run", plots=False, report=False)
    exported = cli("export", str(tmp_path / "run"), "--out", str(tmp_path / "run.flent.gz"))
    assert exported.returncode == 0, exported.stderr
    proc = cli("compare", str(tmp_path / "run"), str(tmp_path / "run.flent.gz"), check=True)
    # goodput of the bulk flow: equal in both, a relative difference of zero
    line = next(ln for ln in proc.stdout.splitlines() if "bulk" in ln and "goodput" in ln)
    assert "+0.0 %" in line and "flent:run.flent.gz" in proc.stdout


def test_an_export_needs_a_flent_name_and_a_tcp_or_ping_flow(
    bufferbloat: airlab.Result, tmp_path: Path
) -> None:
    with pytest.raises(ValueError, match=r"bb\.json: a Flent data file's name ends in"):
        flent.export(bufferbloat, tmp_path / "bb.json")
    udp_only = {
        "duration": "2s",
        "link.0.rate": "10Mbit",
        "link.0.delay": "5ms",
        "flow.0.app": {"kind": "udp", "rate": "1Mbit"},
    }
    with pytest.raises(ValueError, match="needs a TCP or ping flow"):
        flent.export(airlab.run_text(data_text("direct"), set=udp_only), tmp_path / "udp.flent.gz")


def test_an_export_names_a_result_or_time_of_the_wrong_type(
    bufferbloat: airlab.Result, tmp_path: Path
) -> None:
    with pytest.raises(TypeError, match=r"^result: expected an airlab\.Result, got None"):
        flent.export(None, tmp_path / "x.flent.gz")  # type: ignore[arg-type]
    for start in ("yesterday", float("nan"), 1.7e9):
        with pytest.raises(TypeError, match=r"^time: expected a datetime\.datetime .* or None"):
            flent.export(bufferbloat, tmp_path / "x.flent.gz", time=start)  # type: ignore[arg-type]
    assert not list(tmp_path.iterdir())


def test_an_export_refuses_a_result_directory_without_its_samples(
    bufferbloat: airlab.Result, tmp_path: Path, cli
) -> None:
    run = tmp_path / "run"
    bufferbloat.save(run, plots=False, report=False)
    (run / "flows.parquet").unlink()
    with pytest.raises(ValueError, match=r"run: expected samples of the flows bulk in its flows"):
        flent.export(airlab.Result.load(run), tmp_path / "x.flent.gz")
    proc = cli("export", str(run), "--out", str(tmp_path / "x.flent.gz"))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith(f"error: {run}: expected samples of the flows bulk")
    assert not (tmp_path / "x.flent.gz").exists(), "an empty Flent file was written"


# -- malformed files: a clear error, never a traceback ----------------------------------------

CORPUS = Path(__file__).parent / "data" / "flent-malformed"
#: Each file of the corpus (written by its generate.py, which says what is wrong with each) and
#: the key path its error names, with a piece of what it says was expected or found.
MALFORMED = {
    # the bytes
    "empty.flent.gz": ("(file)", "got an empty file"),
    "empty-gzip.flent.gz": ("(file)", "got an empty file"),
    "not-gzip.flent.gz": ("(file)", "expected gzip-compressed data (Not a gzipped file"),
    "truncated-gzip.flent.gz": ("(file)", "ended before the end-of-stream marker"),
    "corrupt-deflate.flent.gz": ("(file)", "expected gzip-compressed data (Error -3"),
    "bad-crc.flent.gz": ("(file)", "CRC check failed"),
    "gzip-bomb.flent.gz": ("(file)", "expected at most 64 MiB once decompressed"),
    "bzip2-bomb.flent.bz2": ("(file)", "expected at most 64 MiB once decompressed"),
    "json-values-bomb.flent.gz": ("(file)", "expected at most 4,194,304 JSON values"),
    "truncated-bzip2.flent.bz2": ("(file)", "expected bzip2-compressed data (Compressed file"),
    "not-json.flent.gz": ("(file)", "expected JSON (Expecting value at line 1 column 1)"),
    "not-json-plain.flent": ("(file)", "expected JSON (Expecting property name"),
    "non-utf8.flent.gz": ("(file)", "expected UTF-8 text, got byte 0xe9"),
    "deep-nesting.flent.gz": ("(file)", "nested at most a few hundred levels deep"),
    "integer-5000-digits.flent.gz": ("(file)", "got an integer of more than 4300 digits"),
    # the top level
    "top-level-array.flent.gz": ("(top level)", "got an array of 3 items"),
    "top-level-null.flent.gz": ("(top level)", "got null"),
    "no-version.flent.gz": ("version", "got nothing (no such key); re-save it with Flent"),
    "version-2.flent.gz": ("version", "expected 4, the Flent file format airlab reads, got 2;"),
    "version-5.flent.gz": ("version", "got 5"),
    "version-string.flent.gz": ("version", 'got the string "4"'),
    "no-metadata.flent.gz": ("metadata", "expected an object, got nothing (no such key)"),
    "no-x_values.flent.gz": ("x_values", "got nothing (no such key)"),
    "no-results.flent.gz": ("results", "got nothing (no such key)"),
    "no-raw_values.flent.gz": ("raw_values", "got nothing (no such key)"),
    "metadata-array.flent.gz": ("metadata", "expected an object, got an array"),
    "x_values-string.flent.gz": ("x_values", "expected an array of numbers, got the string"),
    "results-array.flent.gz": ("results", "got an array of 1 item"),
    "raw_values-array.flent.gz": ("raw_values", "got an array of 0 items"),
    # x_values and results
    "x_values-nan.flent.gz": ("x_values[1]", "got NaN"),
    "x_values-huge-integer.flent.gz": ("x_values[3]", "got an integer of 401 digits"),
    "results-series-object.flent.gz": ('results["TCP upload"]', "got an object"),
    "results-too-short.flent.gz": ('results["TCP upload"]', "4 numbers or nulls, one per x_val"),
    "results-too-long.flent.gz": ('results["Ping (ms) ICMP"]', "got an array of 5 items"),
    "results-value-string.flent.gz": ('results["TCP upload"][1]', 'got the string "9.5"'),
    "results-value-infinity.flent.gz": ('results["Ping (ms) ICMP"][2]', "got Infinity"),
    # raw values
    "raw-series-object.flent.gz": ('raw_values["TCP upload"]', "an array of objects, got an o"),
    "raw-sample-number.flent.gz": ('raw_values["Ping (ms) ICMP"][1]', "got 45.5"),
    "raw-t-string.flent.gz": ('raw_values["TCP upload"][0].t', "got the string"),
    "raw-t-1e999.flent.gz": ('raw_values["Ping (ms) ICMP"][0].t', "got Infinity"),
    "raw-val-nan.flent.gz": ('raw_values["TCP upload"][0].val', "from -1e+15 to 1e+15, got NaN"),
    "raw-val-minus-infinity.flent.gz": ('raw_values["Ping (ms) ICMP"][1].val', "got -Infinity"),
    "raw-val-huge-integer.flent.gz": ('raw_values["TCP upload"][0].val', "of 401 digits"),
    "raw-val-object.flent.gz": ('raw_values["TCP upload"][0].val', "got an object"),
    "raw-val-null.flent.gz": ('raw_values["Ping (ms) ICMP"][0].val', "got null"),
    "raw-val-true.flent.gz": ('raw_values["TCP upload"][0].val', "got true"),
    "raw-tcp_rtt-string.flent.gz": ('raw_values["TCP upload"][0].tcp_rtt', "or null, got the"),
    "raw-tcp_cwnd-list.flent.gz": ('raw_values["TCP upload"][0].tcp_cwnd', "got an array"),
    "raw-seq-null.flent.gz": ('raw_values["Ping (ms) ICMP"][1].seq', "got null"),
    "too-many-series.flent.gz": ("raw_values", "expected at most 10000 series, got 10001"),
    # a name is cut short and escaped (no terminal escape sequence reaches the message)
    "raw-long-series-name.flent.gz": ('raw_values["TCP upload ' + "x" * 29 + '..."]', "got 3"),
    "raw-escape-series-name.flent.gz": ('raw_values["TCP upload \\u001b[31mred"][0]', "got 1"),
    # metadata
    "series_meta-array.flent.gz": ("metadata.SERIES_META", "got an array of 2 items"),
    "series_meta-entry-string.flent.gz": ('metadata.SERIES_META["TCP upload"]', "the string"),
    "series_meta-units-number.flent.gz": (
        'metadata.SERIES_META["Ping (ms) ICMP"].UNITS',
        "expected a string or null, got 1000",
    ),
    "series_meta-flow-list.flent.gz": ('metadata.SERIES_META["TCP upload"].AIRLAB_FLOW', "array"),
    "series_meta-flow-twice.flent.gz": (
        'metadata.SERIES_META["Ping (ms) ICMP"].AIRLAB_FLOW',
        "a flow name no other series has",
    ),
    "series_meta-cc-object.flent.gz": ('metadata.SERIES_META["TCP upload"].CONG_CONTROL', "obj"),
    "name-number.flent.gz": ("metadata.NAME", "expected a string or null, got 42"),
    "title-array.flent.gz": ("metadata.TITLE", "got an array of 2 items"),
    "t0-number.flent.gz": ("metadata.T0", "expected a string or null, got 1767323045.0"),
    "t0-not-a-time.flent.gz": ("metadata.T0", "an ISO 8601 time such as 2026-01-02T03:04:05.0"),
    "no-start-time.flent.gz": ("metadata.T0", "the test's start (T0 or TIME)"),
    "time-bad-without-t0.flent.gz": ("metadata.TIME", 'got the string "2026-13-45T99:00:00"'),
    "total_length-string.flent.gz": ("metadata.TOTAL_LENGTH", "from 0 to 1e+15 or null"),
    "total_length-negative.flent.gz": ("metadata.TOTAL_LENGTH", "got -1.0"),
    "total_length-huge-integer.flent.gz": ("metadata.TOTAL_LENGTH", "of 310 digits"),
    "airlab-string.flent.gz": ("metadata.AIRLAB", "expected an object or null, got the string"),
    "airlab-warmup-nan.flent.gz": ("metadata.AIRLAB.warmup_s", "got NaN"),
    "airlab-provenance-nested.flent.gz": ("metadata.AIRLAB.provenance.seed", "got an array"),
}


@pytest.fixture(scope="module")
def good_flent(bufferbloat: airlab.Result, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("good") / "good.flent.gz"
    return flent.export(bufferbloat, out, time=START)


def test_the_corpus_holds_the_files_the_tests_expect_and_each_is_small() -> None:
    files = {p.name for p in CORPUS.iterdir() if flent.is_flent(p)}
    assert files == set(MALFORMED)
    assert all((CORPUS / name).stat().st_size < 100_000 for name in files)  # the bombs too


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_a_malformed_file_is_refused_naming_the_file_the_key_and_what_was_expected(
    name: str,
) -> None:
    key, what = MALFORMED[name]
    path = CORPUS / name
    with pytest.raises(flent.FlentError) as caught:
        flent.load(path)
    e = caught.value
    assert isinstance(e, ValueError) and (e.path, e.key) == (str(path), key)
    assert str(e) == f"{path}: {key}: {e.expected}" and e.expected.startswith("expected ")
    assert what in e.expected
    # one short line of plain text, whatever the file holds
    assert len(e.key) < 80 and len(e.expected) < 200
    assert (e.key + e.expected).isascii() and (e.key + e.expected).isprintable()
    assert str(pickle.loads(pickle.dumps(e))) == str(e)


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_compare_and_plot_exit_2_with_one_error_line_for_a_malformed_file(
    name: str, good_flent: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from airlab import cli

    key, _ = MALFORMED[name]
    bad = CORPUS / name
    for argv in (
        ["compare", str(good_flent), str(bad), "--out", str(tmp_path / "c")],
        ["plot", str(bad), "--out", str(tmp_path / "p")],
    ):
        with pytest.raises(SystemExit) as done:
            cli.main(argv)
        err = capsys.readouterr().err
        assert done.value.code == 2, err
        assert err.startswith(f"error: {bad}: {key}: expected ") and err.count("\n") == 1, err
    assert not (tmp_path / "c").exists() and not (tmp_path / "p").exists()


def test_from_a_shell_a_malformed_file_is_an_error_line_and_exit_2(cli) -> None:
    for name in ("gzip-bomb.flent.gz", "raw-val-huge-integer.flent.gz"):
        bad = CORPUS / name
        for args in (("compare", str(bad), str(bad)), ("plot", str(bad), "--out", "p")):
            proc = cli(*args)
            assert proc.returncode == 2, proc.stderr
            assert proc.stderr.startswith(f"error: {bad}: {MALFORMED[name][0]}: expected ")
            assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr


def test_a_gzip_bomb_is_refused_at_the_bound_quickly_and_in_bounded_memory(
    tmp_path: Path,
) -> None:
    # 1 GiB of whitespace in 1 MB: a gzip member per MiB
    bomb = tmp_path / "bomb.flent.gz"
    bomb.write_bytes(gzip.compress(b" " * 2**20, mtime=0) * 1024)
    assert bomb.stat().st_size < 1.1e6
    tracemalloc.start()
    try:
        start = time.perf_counter()
        with pytest.raises(flent.FlentError, match="expected at most 64 MiB once decompressed"):
            flent.load(bomb)
        elapsed = time.perf_counter() - start
        bomb_peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.reset_peak()
        # 4 million empty arrays in 12 MB would take 270 MB parsed: refused before parsing
        with pytest.raises(flent.FlentError, match="JSON values"):
            flent.load(CORPUS / "json-values-bomb.flent.gz")
        values_peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # read up to the bound and no further (it took minutes and over 1 GB before)
    assert bomb_peak < 1.25 * flent.MAX_BYTES
    assert elapsed < 20  # about 0.2 s; generous for a loaded machine
    assert values_peak < 30 * 2**20


def test_max_bytes_is_the_most_a_file_may_decompress_to(good_flent: Path) -> None:
    size = len(gzip.decompress(good_flent.read_bytes()))
    assert flent.load(good_flent, max_bytes=size).summary == flent.load(good_flent).summary
    with pytest.raises(flent.FlentError, match=f"at most {(size - 1) / 2**20:g} MiB"):
        flent.load(good_flent, max_bytes=size - 1)


def test_numbers_at_the_bound_compare_and_draw(
    good_flent: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from airlab import cli

    doc = runpy.run_path(str(CORPUS / "generate.py"))["BASE"]
    big = flent.MAX_MAGNITUDE
    for sample in doc["raw_values"]["TCP upload"]:
        sample.update(val=big, tcp_rtt=big, tcp_cwnd=-big)
    doc["raw_values"]["TCP upload"][0]["t"] = -big
    doc["raw_values"]["Ping (ms) ICMP"][1].update(t=big, val=-big)
    path = tmp_path / "edge.flent.gz"
    path.write_bytes(gzip.compress(json.dumps(doc).encode()))
    assert flent.load(path).summary["flows"][0]["goodput_mbps"] == big
    for argv in (
        ["compare", str(good_flent), str(path), "--out", str(tmp_path / "c")],
        ["plot", str(path), str(good_flent), "--format", "png", "--out", str(tmp_path / "p")],
    ):
        with pytest.raises(SystemExit) as done:
            cli.main(argv)
        assert done.value.code in (0, None), capsys.readouterr().err


def _flents_own(name: str) -> Path:
    """One of the data files Flent's package ships for its own tests (real runs)."""
    found = [f for f in importlib.metadata.files("flent") or [] if f.name == name]
    assert found, f"flent's package has no {name}"
    return Path(str(found[0].locate()))


@pytest.mark.parametrize(
    "name", ["test-rrul_be-socket_stats.flent.gz", "test-tcp_nup.flent.gz", "test-rrul.flent.gz"]
)
def test_flents_own_files_read_as_flents_loader_reads_them(name: str, tmp_path: Path) -> None:
    # most are of older format versions: saved again by Flent, in the version airlab reads
    path = tmp_path / name
    resultset.load(str(_flents_own(name))).dump_file(str(path))
    got, flents = flent.load(path), resultset.load(str(path))
    assert got.summary["flows"]
    for f in got.summary["flows"]:
        ping = f["app"] == "ping"
        table = got.pings if ping else got.flows
        rows = table[table["flow"] == f["name"]]
        want = list(flents.raw_series(f["flent_series"]))
        assert rows["rtt_ms" if ping else "goodput_mbps"].tolist() == [v for _, v in want]
        assert np.allclose(rows["time_s"], [t for t, _ in want], atol=1e-6)
