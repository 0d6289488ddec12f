//! Helpers shared by the integration tests.

use airlab_core::scenario::load_str;
use airlab_core::RunOutput;
use serde_json::Value;

pub fn run_toml(text: &str, seed: Option<u64>) -> RunOutput {
    let resolved = load_str(text, "test.toml", &[]).unwrap_or_else(|e| panic!("{e}"));
    airlab_core::run(&resolved, seed)
}

pub fn builtin(name: &str) -> String {
    let path = format!("{}/../../scenarios/{name}.toml", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

pub fn run_builtin(name: &str, overrides: &[(&str, &str)], seed: Option<u64>) -> RunOutput {
    let text = builtin(name);
    let overrides: Vec<(String, String)> = overrides.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    let resolved = load_str(&text, name, &overrides).unwrap_or_else(|e| panic!("{e}"));
    airlab_core::run(&resolved, seed)
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
