"""JSON Schemas: every built-in scenario and every output validates; each schema can fail."""

from __future__ import annotations

import copy
import json
import tomllib
from pathlib import Path

import jsonschema
import pyarrow.parquet as pq
import pytest

import airlab
from airlab import schema
from conftest import DUMBBELL


def _validator(name: str) -> jsonschema.Draft202012Validator:
    doc = schema.schema(name)
    jsonschema.Draft202012Validator.check_schema(doc)
    return jsonschema.Draft202012Validator(doc)


def _errors(name: str, doc: object) -> list[str]:
    return [e.message for e in _validator(name).iter_errors(doc)]


def test_every_builtin_scenario_validates_against_the_scenario_schema() -> None:
    names = airlab.list_builtin()
    assert len(names) > 40
    for name in names:
        doc = tomllib.loads(airlab.resolve(name).read_text(encoding="utf-8"))
        assert _errors("scenario", doc) == [], name


def test_the_scenario_schema_refuses_what_the_engine_refuses() -> None:
    good = tomllib.loads(airlab.resolve(DUMBBELL).read_text(encoding="utf-8"))
    assert _errors("scenario", good) == []
    # Each of these is an error `airlab validate` reports too.
    for path, value in [
        (("duration",), "20"),  # no unit
        (("link", 1, "rate"), "10 mbit"),  # an unknown unit
        (("link", 1, "qdisc"), {"kind": "red"}),  # an unregistered qdisc
        (("link", 1, "qdisc"), {"kind": "fq_codel", "targt": "5ms"}),  # a misspelt parameter
        (("link", 1, "qdisc"), {"kind": "fq_codel", "flows": 0}),  # below the declared range
        (("flow", 0, "cc"), "vegas"),
        (("flow", 0, "app"), {"kind": "bulk", "size": "1MB"}),
        (("colour",), "blue"),
    ]:
        bad = copy.deepcopy(good)
        node = bad
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
        assert _errors("scenario", bad), path


def test_the_scenario_schema_checks_wifi_device_layers_as_the_engine_does() -> None:
    good = tomllib.loads(airlab.resolve("wifi/ax-cell-10").read_text(encoding="utf-8"))
    for device in [{"kind": "mac80211", "flows": 1024}, {"kind": "fifo", "lifetime": "500ms"}]:
        good["wifi"][0]["device"] = device
        assert _errors("scenario", good) == [], device
    for device in [
        {"kind": "drr"},  # an unregistered device layer
        {"size": 128},  # no kind
        {"kind": "fifo", "airtime_fairness": True},  # another layer's key
        {"kind": "per_station", "size": 0},  # below the declared range
        {"kind": "mac80211", "flows": 65537},  # above it
    ]:
        bad = copy.deepcopy(good)
        bad["wifi"][0]["device"] = device
        assert _errors("scenario", bad), device


def test_the_scenario_schema_knows_the_channels_models() -> None:
    doc = tomllib.loads(airlab.resolve("wifi6/range").read_text(encoding="utf-8"))
    wifi = doc["wifi"][0]
    wifi["channel"] = {
        "tx_power_dbm": 20,
        "propagation": {"kind": "log_distance", "exponent": 3.5},
        "error_model": "nist",
    }
    assert _errors("scenario", doc) == []
    wifi["channel"] = {"propagation": "log_distance", "error_model": {"kind": "nist"}}
    assert _errors("scenario", doc) == []
    for channel in (
        {"propagation": {"kind": "log_distance", "exponent": 0.5}},  # below the declared range
        {"propagation": {"exponent": 3}},  # no kind
        {"error_model": "yans"},  # an unregistered model
        {"path_loss_exponent": 3},  # a key `propagation` took over
    ):
        wifi["channel"] = channel
        assert _errors("scenario", doc), channel


def _summary_is_valid(summary: dict) -> None:
    assert _errors("summary", summary) == []


@pytest.mark.parametrize(
    ("name", "duration"),
    [
        (DUMBBELL, "2s"),  # wired, TCP
        ("aqm/bufferbloat-cake", "6s"),  # ping and UDP flows, a warm-up
        ("wifi6/ul-ofdma", "6s"),  # Wi-Fi with a channel model and uplink OFDMA
    ],
)
def test_summaries_validate_against_the_summary_schema(name: str, duration: str) -> None:
    res = airlab.run(name, set={"duration": duration})
    _summary_is_valid(res.summary)
    # The schema is strict: a key it does not know is an error.
    extra = copy.deepcopy(res.summary)
    extra["flows"][0]["goodput_bps"] = 1.0
    assert _errors("summary", extra)


def test_a_udp_flow_validates() -> None:
    text = airlab.resolve(DUMBBELL).read_text(encoding="utf-8")
    text += '[[flow]]\nname = "cbr"\nfrom = "h1"\nto = "h2"\n'
    text += 'app = { kind = "udp", rate = "2Mbit" }\n'
    res = airlab.run_text(text, set={"duration": "2s"})
    cbr = next(f for f in res.summary["flows"] if f["name"] == "cbr")
    assert cbr["udp"]["received"] > 0
    _summary_is_valid(res.summary)


def test_a_batch_ended_run_validates(tmp_path: Path) -> None:
    batches = {"packets": 300, "count": 3}
    res = airlab.run(DUMBBELL, set={"duration": "5s", "metrics.batches": batches})
    assert res.summary["batches"]["completed"] == 3
    _summary_is_valid(res.summary)


def test_every_output_carries_its_provenance(tmp_path: Path) -> None:
    a = airlab.run(DUMBBELL, seed=4, set={"duration": "1s"})
    b = airlab.run(DUMBBELL, seed=5, set={"duration": "1s"})
    c = airlab.run(DUMBBELL, seed=4, set={"duration": "2s"})
    prov = a.summary["provenance"]
    assert prov["schema_version"] == schema.SCHEMA_VERSION
    assert prov["airlab_version"] == airlab.__version__ and prov["seed"] == 4
    # The digest is the resolved scenario's: the seed is not in it, an override is.
    assert prov["scenario_sha256"] == b.summary["provenance"]["scenario_sha256"]
    assert prov["scenario_sha256"] != c.summary["provenance"]["scenario_sha256"]
    assert prov["scenario_sha256"] == schema.scenario_digest(a.scenario)
    a.save(tmp_path, plots=False, report=False)
    saved = json.loads((tmp_path / "summary.json").read_text())
    assert saved["provenance"] == prov
    meta = pq.read_schema(tmp_path / "flows.parquet").metadata
    assert json.loads(meta[b"airlab"]) == prov


def test_targets_json_validates(tmp_path: Path) -> None:
    from airlab.reproduce.runner import direction, point, write_targets

    rows = [point("E1", "m", 2.0, 2.1), direction("E2", "c", False, -0.5)]
    doc = json.loads(write_targets(tmp_path, "p", False, rows).read_text())
    assert _errors("targets", doc) == []
    doc["targets"][0]["status"] = "close"
    assert _errors("targets", doc)


def test_schema_command_prints_each_schema(cli, tmp_path: Path) -> None:
    for name in schema.NAMES:
        proc = cli("schema", name, check=True)
        assert json.loads(proc.stdout)["$schema"].startswith("https://json-schema.org/")
    proc = cli("schema", "scenario", "--out", "scenario.schema.json", check=True)
    assert json.loads((tmp_path / "scenario.schema.json").read_text()) == schema.schema("scenario")
    assert cli("schema", "report").returncode == 2


def test_the_recorded_reproductions_validate() -> None:
    docs = Path(__file__).parent.parent / "docs" / "reproductions"
    recorded = sorted(docs.glob("*/targets.json"))
    assert len(recorded) == 5
    for path in recorded:
        doc = json.loads(path.read_text())
        assert _errors("targets", doc) == [], path
        assert doc["plan"] == "full", path
