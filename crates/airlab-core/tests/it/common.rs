//! Helpers shared by the integration tests.

use airlab_core::scenario::{load_str, Resolved, ScenarioError};
use airlab_core::RunOutput;
use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;

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
    if let Err(why) = refusal(result, key, fragment) {
        panic!("{why}");
    }
}

/// Why `result` is not test.toml refused at `key` with a message containing `fragment`, if it
/// is not.
fn refusal(result: Result<Resolved, ScenarioError>, key: &str, fragment: &str) -> Result<(), String> {
    let err = match result {
        Ok(_) => return Err("the scenario should be refused, but it loads".into()),
        Err(err) => err,
    };
    if err.file != "test.toml" {
        return Err(format!("the error names the file {:?}, not test.toml: {err}", err.file));
    }
    if err.key != key {
        return Err(format!("the error names the key {:?}, not {key:?}: {err}", err.key));
    }
    if !err.message.contains(fragment) {
        return Err(format!("expected {fragment:?} in: {err}"));
    }
    Ok(())
}

/// What a case of a table in tests/it/refused/ does to its test's base scenario.
#[derive(Debug, Clone, Copy)]
pub enum Edit<'a> {
    /// `edit = '...'`: a snippet, which the test puts into its base scenario.
    Snippet(&'a str),
    /// `replace = [from, to]`: `from`, which occurs once in the base scenario, becomes `to`.
    Replace(&'a str, &'a str),
    /// `set = [key, value]`: `--set key=value`, given when the base scenario is loaded.
    Set(&'a str, &'a str),
}

// `None` for an edit of another kind, which `assert_refused` reports as one the test does not
// make, naming the case.
impl<'a> Edit<'a> {
    pub fn snippet(self) -> Option<&'a str> {
        match self {
            Edit::Snippet(text) => Some(text),
            _ => None,
        }
    }

    pub fn replace(self) -> Option<(&'a str, &'a str)> {
        match self {
            Edit::Replace(from, to) => Some((from, to)),
            _ => None,
        }
    }
}

/// A case as tests/it/refused/<module>.toml writes it: one of `edit`, `replace` and `set`, and
/// the `key` and a fragment of the `message` of the error. An unknown field is a typo in the
/// file, which would otherwise leave the case without its edit or its expectation.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Refused {
    edit: Option<String>,
    replace: Option<[String; 2]>,
    set: Option<[String; 2]>,
    key: String,
    message: String,
}

impl Refused {
    fn edit(&self) -> Result<Edit<'_>, String> {
        match (&self.edit, &self.replace, &self.set) {
            (Some(text), None, None) => Ok(Edit::Snippet(text)),
            (None, Some([from, to]), None) => Ok(Edit::Replace(from, to)),
            (None, None, Some([key, value])) => Ok(Edit::Set(key, value)),
            _ => Err("a case needs exactly one of `edit`, `replace` and `set`".into()),
        }
    }

    /// Whether loading `scenario(edit)`, with the `--set` of a `set` edit, is refused as
    /// expected.
    fn check(&self, scenario: &impl Fn(Edit) -> Option<String>) -> Result<(), String> {
        let edit = self.edit()?;
        let text = scenario(edit).ok_or_else(|| format!("{edit:?} is not an edit this test makes"))?;
        let sets = match edit {
            Edit::Set(key, value) => vec![(key, value)],
            _ => Vec::new(),
        };
        refusal(load_with(&text, &sets), &self.key, &self.message)
    }
}

/// Asserts, for each case of the array of tables `table` of tests/it/refused/`module`.toml,
/// that loading `scenario(edit)` as test.toml (with the `--set` of a `set` edit) fails at the
/// case's `key` with a message containing its `message`. `scenario` returns `None` for an edit
/// it does not make. A missing or empty table fails, as does every failing case, all listed.
#[track_caller]
pub fn assert_refused(module: &str, table: &str, scenario: impl Fn(Edit) -> Option<String>) {
    let path = format!("{}/tests/it/refused/{module}.toml", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut tables: BTreeMap<String, Vec<Refused>> = toml::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
    let cases = tables.remove(table).unwrap_or_default();
    assert!(!cases.is_empty(), "{path} has no [[{table}]] cases");
    let failures: Vec<String> = cases
        .iter()
        .enumerate()
        .filter_map(|(i, case)| {
            let why = case.check(&scenario).err()?;
            Some(format!("[[{table}]] case {} (key {:?}): {why}", i + 1, case.key))
        })
        .collect();
    assert!(failures.is_empty(), "{path}:\n{}", failures.join("\n"));
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
