//! The JSON Schema of a scenario file, generated from what the engine reads: the serde types of
//! [`super::model`] (through schemars, which follows their serde attributes) and, for the
//! component tables (`qdisc = { kind = ... }`, a flow's `cc` and `cc_params`), the parameters
//! each queue discipline and congestion control declares in its own file. So the schema cannot
//! drift from the parser. It checks the shape (keys, types, units, ranges of component
//! parameters); what spans several keys (a flow's hosts exist, a rate fits the standard) is
//! still checked only by `airlab validate`.

use super::model::Scenario;
use super::Step;
use serde_json::{json, Value};
use std::collections::BTreeSet;

/// The schema's dialect, as schemars writes it.
pub const DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

/// The JSON Schema (draft 2020-12) of a scenario file, as JSON.
pub fn scenario_schema() -> Value {
    let mut schema = schemars::schema_for!(Scenario);
    schema.insert("title".into(), json!("airlab scenario"));
    schema.insert(
        "description".into(),
        json!("An airlab scenario file (TOML): the network, its queues and links, Wi-Fi networks and the flows. See docs/scenario.md."),
    );
    schema.to_value()
}

/// What the scenario schema lets a key hold, to explain errors about a value of the wrong
/// shape: a table, a list, or a plain value (string, number, boolean).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Shape {
    Table,
    List,
    Plain,
}

/// The scenario schema, made once: errors and overrides consult it.
fn schema() -> &'static Value {
    static SCHEMA: std::sync::OnceLock<Value> = std::sync::OnceLock::new();
    SCHEMA.get_or_init(scenario_schema)
}

/// The shapes the scenario schema allows at the key path `steps` (keys and list indices from
/// the top of the file); empty where the schema does not know the path (an unknown key). A
/// table whose kind decides its keys (a qdisc, an app) allows what any of its kinds allows.
pub(crate) fn shapes_at(steps: &[Step]) -> BTreeSet<Shape> {
    let defs = &schema()["$defs"];
    let mut nodes: Vec<&Value> = vec![schema()];
    for step in steps {
        let alternatives: Vec<&Value> = nodes.iter().flat_map(|n| alternatives(n, defs)).collect();
        nodes = match step {
            Step::Key(name) => alternatives.iter().filter_map(|v| field(v, name)).collect(),
            Step::Index(i) => alternatives.iter().filter_map(|v| entry(v, *i)).collect(),
        };
    }
    nodes.iter().flat_map(|n| alternatives(n, defs)).flat_map(shapes_of).collect()
}

/// The schema of key `name` of a table schema `v`.
fn field<'a>(v: &'a Value, name: &str) -> Option<&'a Value> {
    let declared = v.get("properties").and_then(|p| p.get(name));
    declared.or_else(|| v.get("additionalProperties").filter(|a| a.is_object()))
}

/// The schema of entry `i` of a list schema `v`.
fn entry(v: &Value, i: usize) -> Option<&Value> {
    v.get("prefixItems").and_then(|p| p.get(i)).or_else(|| v.get("items")).filter(|v| v.is_object())
}

/// Refuses a list where the schema takes only a table. serde reads a table from a list of its
/// keys' values in declaration order, so `metrics = ["1s"]` would silently set the interval
/// and `tcp = [1, 2]` fail with a message about its first key.
pub(crate) fn check_tables(doc: &toml::Value) -> Result<(), super::KeyError> {
    check_tables_at(doc, vec![schema()], "")
}

fn check_tables_at(value: &toml::Value, nodes: Vec<&Value>, key: &str) -> Result<(), super::KeyError> {
    let defs = &schema()["$defs"];
    let alternatives: Vec<&Value> = nodes.iter().flat_map(|n| alternatives(n, defs)).collect();
    match value {
        toml::Value::Array(items) => {
            let shapes: BTreeSet<Shape> = alternatives.iter().flat_map(|n| shapes_of(n)).collect();
            if shapes.contains(&Shape::Table) && !shapes.contains(&Shape::List) {
                let written = value.to_string();
                let shown = if written.chars().count() > 40 { String::new() } else { format!(" `{written}`") };
                return Err(super::KeyError::new(key, format!("invalid type: array{shown}, expected a table")));
            }
            for (i, item) in items.iter().enumerate() {
                let children = alternatives.iter().filter_map(|v| entry(v, i)).collect();
                check_tables_at(item, children, &format!("{key}[{i}]"))?;
            }
        }
        toml::Value::Table(table) => {
            for (name, item) in table {
                let children = alternatives.iter().filter_map(|v| field(v, name)).collect();
                check_tables_at(item, children, &super::join_key(key, name))?;
            }
        }
        _ => {}
    }
    Ok(())
}

/// `node` with its `$ref` followed and its `anyOf`/`oneOf` alternatives listed (the node itself
/// first: a qdisc table has its type beside the alternatives of its kinds).
fn alternatives<'a>(node: &'a Value, defs: &'a Value) -> Vec<&'a Value> {
    let mut out = Vec::new();
    let mut pending = vec![node];
    // Definitions refer to each other only through properties, so this ends; the bound keeps
    // it so if one ever did not.
    while let Some(n) = pending.pop().filter(|_| out.len() < 256) {
        if let Some(name) = n.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix("#/$defs/")) {
            pending.push(&defs[name]);
        }
        for key in ["anyOf", "oneOf", "allOf"] {
            pending.extend(n.get(key).and_then(Value::as_array).into_iter().flatten());
        }
        out.push(n);
    }
    out
}

/// The shapes one schema node gives by its `type` (a unit has a string pattern, a table
/// `properties`).
fn shapes_of(node: &Value) -> Vec<Shape> {
    let types: Vec<&str> = match node.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ if node.get("properties").is_some() => vec!["object"],
        _ if node.get("enum").is_some() || node.get("const").is_some() => vec!["string"],
        _ => vec![],
    };
    types
        .into_iter()
        .filter_map(|t| match t {
            "object" => Some(Shape::Table),
            "array" => Some(Shape::List),
            "null" => None,
            _ => Some(Shape::Plain),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc;

    #[test]
    fn the_schema_names_every_component_and_its_parameters() {
        let schema = scenario_schema();
        assert_eq!(schema["$schema"], DIALECT);
        let defs = &schema["$defs"];
        let kinds: Vec<&str> =
            defs["Qdisc"]["oneOf"].as_array().unwrap().iter().map(|k| k["title"].as_str().unwrap()).collect();
        assert_eq!(kinds, qdisc::REGISTRY.iter().map(|c| c.name).collect::<Vec<_>>());
        let fq_codel = defs["Qdisc"]["oneOf"].as_array().unwrap().iter().find(|k| k["title"] == "fq_codel").unwrap();
        assert_eq!(fq_codel["properties"]["target"]["$ref"], "#/$defs/Duration");
        assert_eq!(fq_codel["additionalProperties"], false);
        // A flow: its required keys and the registered congestion controls.
        let flow = &defs["Flow"];
        assert_eq!(flow["required"], json!(["from", "to", "app"]));
        let ccs = defs["CongestionControl"]["enum"].as_array().unwrap();
        assert!(ccs.contains(&json!("bbr3")) && ccs.contains(&json!("cubic")));
        // Quantities need their unit.
        let pattern = defs["Duration"]["pattern"].as_str().unwrap();
        assert!(pattern.contains("ms") && pattern.ends_with("$"));
    }
}
