//! Helpers shared by the integration tests.

use airlab_core::scenario::{load_str, Resolved, ScenarioError};
use airlab_core::RunOutput;
use serde_json::Value;

pub fn run_toml(text: &str, seed: Option<u64>) -> RunOutput {
    let resolved = load_str(text, "test.toml", &[]).unwrap_or_else(|e| panic!("{e}"));
    run(&resolved, seed)
}

/// Runs `resolved`, failing the test if its summary breaks a physical invariant.
pub fn run(resolved: &Resolved, seed: Option<u64>) -> RunOutput {
    airlab_core::run(resolved, seed).unwrap_or_else(|e| panic!("{e}"))
}

pub fn builtin(name: &str) -> String {
    let path = format!("{}/../../scenarios/{name}.toml", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

pub fn run_builtin(name: &str, overrides: &[(&str, &str)], seed: Option<u64>) -> RunOutput {
    let text = builtin(name);
    let resolved = load_str(&text, name, &owned(overrides)).unwrap_or_else(|e| panic!("{e}"));
    run(&resolved, seed)
}

/// `--set` overrides as `load_str` takes them.
fn owned(sets: &[(&str, &str)]) -> Vec<(String, String)> {
    sets.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

/// Loads `text` as test.toml, with `--set` overrides.
pub fn load_with(text: &str, sets: &[(&str, &str)]) -> Result<Resolved, ScenarioError> {
    load_str(text, "test.toml", &owned(sets))
}

/// Asserts that loading test.toml fails at `key` with a message containing `fragment`.
#[track_caller]
pub fn assert_error(result: Result<Resolved, ScenarioError>, key: &str, fragment: &str) {
    let err = result.expect_err("the scenario should be refused");
    assert_eq!(err.file, "test.toml");
    assert_eq!(err.key, key, "wrong key in: {err}");
    assert!(err.message.contains(fragment), "expected {fragment:?} in: {err}");
}

/// Asserts, for each `(edit, key, fragment)` of `cases`, that loading `text(edit)` as test.toml
/// fails at `key` with a message containing `fragment`.
#[track_caller]
pub fn assert_errors<E: Copy>(text: impl Fn(E) -> String, cases: &[(E, &str, &str)]) {
    for &(edit, key, fragment) in cases {
        assert_error(load_with(&text(edit), &[]), key, fragment);
    }
}

/// `text` with `from` (which must occur exactly once) replaced by `to`.
#[track_caller]
pub fn replace_once(text: &str, from: &str, to: &str) -> String {
    assert_eq!(text.matches(from).count(), 1, "{from:?} must occur once");
    text.replace(from, to)
}

pub fn flow<'a>(s: &'a Value, name: &str) -> &'a Value {
    s["flows"].as_array().unwrap().iter().find(|f| f["name"] == name).unwrap_or_else(|| panic!("no flow {name}"))
}

pub fn link<'a>(s: &'a Value, name: &str) -> &'a Value {
    s["links"].as_array().unwrap().iter().find(|l| l["name"] == name).unwrap_or_else(|| panic!("no link {name}"))
}

pub fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

/// The goodput of all flows of summary `s`, in Mbit/s.
pub fn goodput_sum(s: &Value) -> f64 {
    s["flows"].as_array().unwrap().iter().map(|flow| f(&flow["goodput_mbps"])).sum()
}

/// tests/data/ax-cell.toml, which the Python tests load too: an 802.11ax BSS of one station,
/// the AP sending it UDP.
const AX_CELL: &str = include_str!("../../../../tests/data/ax-cell.toml");

/// The 802.11ax cell of one station with the network keys `keys` (TOML lines): a small
/// scenario to check keys on.
pub fn one_station_ax(keys: &str) -> String {
    replace_once(AX_CELL, "stations = [\"sta\"]\n", &format!("stations = [\"sta\"]\n{keys}\n"))
}
