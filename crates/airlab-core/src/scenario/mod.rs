//! Scenario files: load a TOML scenario, apply `--set` overrides, check it and resolve it into
//! the fully explicit form the simulator runs (every link direction, route and flow copy).
//!
//! Every error names the file, the key path (`flow[1].cc`, `link[0].qdisc.limit`) and what was
//! expected, because a scenario typo is the most common reason a run fails.

mod app_load;
pub mod build;
mod component_schema;
mod components;
pub mod limits;
mod locate;
pub mod model;
mod nodes;
mod overrides;
mod resolve;
mod resolve_wifi;
mod resolved;
mod routing;
pub mod schema;
pub mod units;
pub mod wifi;
mod wifi_access;
mod wifi_ofdma;
mod wifi_phy_keys;

pub use components::{describe_component, FamilyEntry, ParamInfo, FAMILIES};
pub use model::*;
pub use resolved::{Resolved, ResolvedFlow};
pub use schema::scenario_schema;
pub use units::{parse_bytes, parse_duration, parse_rate, Bytes, Duration, Rate};
pub use wifi::{check_phy, MAX_PPDU_DURATION};

use std::fmt;
use std::path::Path;

/// A scenario that cannot be loaded: where (file and key path) and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScenarioError {
    pub file: String,
    /// Key path such as `flow[1].cc`; empty for TOML syntax errors (the message then gives the
    /// line and column).
    pub key: String,
    pub message: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        if self.key.is_empty() {
            write!(f, "{}: {}", self.file, self.message)
        } else {
            write!(f, "{}: {}: {}", self.file, self.key, self.message)
        }
    }
}

impl std::error::Error for ScenarioError {}

/// An error before the file name is attached: the key path and the message.
pub(crate) struct KeyError {
    pub key: String,
    pub message: String,
}

impl KeyError {
    pub fn new(key: impl Into<String>, message: impl Into<String>) -> Self {
        KeyError { key: key.into(), message: message.into() }
    }
}

/// Loads a scenario from `text`; `file` names it in error messages. `overrides` are
/// `(key.path, value)` pairs from `--set key.path=value`, applied before anything is checked.
/// An error that the overrides cause (the file alone does not give it) names them.
pub fn load_str(text: &str, file: &str, overrides: &[(String, String)]) -> Result<Resolved, ScenarioError> {
    let at_file = |e: KeyError| ScenarioError { file: file.to_string(), key: e.key, message: e.message };
    if text.len() as u64 > limits::MAX_SCENARIO_BYTES {
        return Err(at_file(too_large(text.len() as u64)));
    }
    match load_doc(text, overrides) {
        Ok(resolved) => Ok(resolved),
        Err(Failure::Override(e)) => Err(at_file(e)),
        Err(Failure::Check(e)) => Err(at_file(attribute(text, overrides, e))),
    }
}

/// Reads and loads the scenario file at `path`.
pub fn load_file(path: &Path, overrides: &[(String, String)]) -> Result<Resolved, ScenarioError> {
    let file = path.display().to_string();
    let unreadable = |e: std::io::Error| ScenarioError {
        file: file.clone(),
        key: String::new(),
        message: format!("cannot read the scenario file: {e}"),
    };
    // The size is checked before the file is read, so a huge file costs nothing.
    let size = std::fs::metadata(path).map_err(unreadable)?.len();
    if size > limits::MAX_SCENARIO_BYTES {
        return Err(ScenarioError { file, key: String::new(), message: too_large(size).message });
    }
    let text = std::fs::read_to_string(path).map_err(unreadable)?;
    load_str(&text, &file, overrides)
}

fn too_large(bytes: u64) -> KeyError {
    KeyError::new(
        "",
        format!(
            "the scenario has {bytes} bytes; expected at most {} (1 MiB; the largest built-in scenario has \
             a few kB, and a large network is written with `count`, not repeated)",
            limits::MAX_SCENARIO_BYTES
        ),
    )
}

/// Why a scenario did not load: one of its overrides could not be applied (the message says
/// `--set`), or the scenario with its overrides is invalid.
enum Failure {
    Override(KeyError),
    Check(KeyError),
}

fn load_doc(text: &str, overrides: &[(String, String)]) -> Result<Resolved, Failure> {
    let mut doc = parse_toml(text).map_err(Failure::Check)?;
    overrides::apply(&mut doc, overrides).map_err(Failure::Override)?;
    schema::check_tables(&doc).map_err(Failure::Check)?;
    let scenario = deserialize(doc).map_err(Failure::Check)?;
    resolve::resolve(scenario).map_err(Failure::Check)
}

/// The most overrides searched one by one for those that cause an error; with more, the error
/// names them all.
const MAX_SEARCHED_OVERRIDES: usize = 8;

/// `e` with the overrides that cause it named, `(from --set key=value)`, unless the file
/// without them gives the same error: those that wrote the key it is about (or a table above
/// or inside it); else those without which it goes away or changes, or all of them if it takes
/// several together. It loads the file again, once per override at most, only when loading
/// failed.
fn attribute(text: &str, overrides: &[(String, String)], mut e: KeyError) -> KeyError {
    let gives_e = |subset: &[(String, String)]| matches!(load_doc(text, subset), Err(Failure::Check(f)) if f.key == e.key && f.message == e.message);
    if overrides.is_empty() || gives_e(&[]) {
        return e;
    }
    // The overrides applied to the file before (they all applied).
    let paths =
        parse_toml(text).ok().and_then(|mut doc| overrides::apply(&mut doc, overrides).ok()).unwrap_or_default();
    let mut culprits: Vec<&(String, String)> =
        overrides.iter().zip(&paths).filter(|(_, path)| overrides::touches(path, &e.key)).map(|(o, _)| o).collect();
    if culprits.is_empty() && overrides.len() > 1 && overrides.len() <= MAX_SEARCHED_OVERRIDES {
        for j in 0..overrides.len() {
            let others: Vec<(String, String)> =
                overrides.iter().enumerate().filter(|&(k, _)| k != j).map(|(_, o)| o.clone()).collect();
            if !gives_e(&others) {
                culprits.push(&overrides[j]);
            }
        }
    }
    if culprits.is_empty() {
        culprits = overrides.iter().collect();
    }
    let sets: Vec<String> = culprits.iter().map(|(key, value)| format!("--set {key}={value}")).collect();
    e.message = format!("{} (from {})", e.message, sets.join(", "));
    e
}

fn parse_toml(text: &str) -> Result<toml::Value, KeyError> {
    match text.parse::<toml::Table>() {
        Ok(table) => Ok(toml::Value::Table(table)),
        Err(e) => {
            let position = match e.span() {
                Some(span) => {
                    let (line, column) = line_column(text, span.start);
                    format!(" at line {line}, column {column}")
                }
                None => String::new(),
            };
            Err(KeyError::new("", format!("TOML syntax error{position}: {}", e.message().trim())))
        }
    }
}

/// 1-based line and column (in characters) of byte `offset` in `text`.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    (line, column)
}

fn deserialize(doc: toml::Value) -> Result<Scenario, KeyError> {
    let error = match serde_path_to_error::deserialize::<_, Scenario>(doc.clone()) {
        Ok(scenario) => return Ok(scenario),
        Err(e) => e,
    };
    let path = key_path(error.path());
    let message = error.inner().message().to_string();
    let mut found = locate::refine(&doc, path, message);
    // serde reports a missing field at its parent; name the missing key itself.
    if let Some(field) = found.message.strip_prefix("missing field `").and_then(|m| m.strip_suffix('`')) {
        found = KeyError::new(join_key(&found.key, field), "missing required key");
    }
    if found.message.starts_with("unknown field") {
        if let Some(moved) = wifi_phy_keys::moved_channel_key(&found.key) {
            found.message = moved;
        }
    }
    // serde calls the `kind` tag of `qdisc`, `app` and `device` tables, and a Wi-Fi
    // `standard`, a "variant"; use the schema's word.
    if let Some(rest) = found.message.strip_prefix("unknown variant") {
        if let Some(table) = found.key.strip_suffix(".kind").and_then(|t| t.rsplit('.').next()) {
            found.message = format!("unknown {table} kind{rest}");
        } else if found.key.ends_with(".standard") {
            found.message = format!("unknown Wi-Fi standard{rest}");
        }
    }
    // The fixed-size arrays of the schema: pairs of node names (`between`, `peers` and `hears`
    // entries) and TCP's buffer triples.
    let length = found.message.strip_prefix("invalid length ").and_then(|m| m.split(',').next());
    if let Some(length) = length.filter(|_| found.message.contains("array")) {
        let entries = if length == "1" { "entry" } else { "entries" };
        if let Some(expected) = fixed_array(&found.key) {
            found.message = format!("expected {expected}, got {length} {entries}");
        }
    } else if let Some(expected) = fixed_array(&found.key).filter(|_| found.message.starts_with("invalid type")) {
        // "invalid type: string "4MB", expected an array of length 3"
        let got = found.message.split(", expected").next().unwrap_or_default();
        found.message = format!("{got}, expected {expected}");
    }
    found.message = plain_words(&found.message);
    Err(found)
}

/// What the fixed-size array at `key` holds, in the scenario's words; None if `key` is not one.
fn fixed_array(key: &str) -> Option<&'static str> {
    let (_, last) = key.rsplit_once('.').unwrap_or(("", key));
    let entry_of =
        |list: &str| last.strip_prefix(list).is_some_and(|rest| rest.starts_with('[') && rest.ends_with(']'));
    if last == "between" || entry_of("peers") || entry_of("hears") {
        Some("a pair of node names such as [\"a\", \"b\"]")
    } else if key.ends_with(".tcp.rmem") || key.ends_with(".tcp.wmem") {
        Some("[min, default, max] buffer sizes such as [\"4KiB\", \"16KiB\", \"4MiB\"]")
    } else {
        None
    }
}

/// serde's names for what it expected, in the scenario's words.
fn plain_words(message: &str) -> String {
    let mut m = message.to_string();
    for (rust, words) in [
        ("expected u8", "expected a whole number from 0 to 255"),
        ("expected u16", "expected a whole number from 0 to 65535"),
        ("expected u32", "expected a whole number from 0 to 4294967295"),
        ("expected u64", "expected a whole number from 0 to 18446744073709551615"),
        ("expected i32", "expected a whole number from -2147483648 to 2147483647"),
        ("expected f64", "expected a number"),
        ("expected variant identifier", "expected a string naming the kind"),
        ("expected string only", "expected a string"),
        ("unit variant", "a string"),
        ("expected a map", "expected a table"),
    ] {
        if let Some(at) = m.find(rust) {
            let end = at + rust.len();
            // Whole words only: "expected u8" is not a prefix of "expected u80".
            if !m[end..].starts_with(|c: char| c.is_ascii_alphanumeric()) {
                m.replace_range(at..end, words);
            }
        }
    }
    if let Some(at) = m.find("expected internally tagged enum ") {
        m.replace_range(at.., "expected a table with a `kind`, such as { kind = \"bulk\" }");
    } else if let Some(at) = m.find("expected struct ") {
        m.replace_range(at.., "expected a table");
    }
    m
}

/// Formats a serde path as `flow[1].app.size` (the root is the empty string).
fn key_path(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let mut key = String::new();
    for segment in path.iter() {
        match segment {
            Segment::Seq { index } => key.push_str(&format!("[{index}]")),
            Segment::Map { key: name } => key = join_key(&key, name),
            Segment::Enum { .. } | Segment::Unknown => {}
        }
    }
    key
}

/// One step of a key path from the top of a scenario file: a table's key or a list's index.
#[derive(Clone)]
pub(crate) enum Step {
    Key(String),
    Index(usize),
}

pub(crate) fn join_key(parent: &str, field: &str) -> String {
    if parent.is_empty() {
        field.to_string()
    } else {
        format!("{parent}.{field}")
    }
}

#[cfg(test)]
mod tests;
