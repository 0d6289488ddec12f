//! The JSON Schema of a scenario file, generated from what the engine reads: the serde types of
//! [`super::model`] (through schemars, which follows their serde attributes) and, for the
//! component tables (`qdisc = { kind = ... }`, a flow's `cc` and `cc_params`), the parameters
//! each queue discipline and congestion control declares in its own file. So the schema cannot
//! drift from the parser. It checks the shape (keys, types, units, ranges of component
//! parameters); what spans several keys (a flow's hosts exist, a rate fits the standard) is
//! still checked only by `airlab validate`.

use super::components::written_form;
use super::model::Scenario;
use super::units::{Bytes, Duration, Rate};
use crate::params::{Component, Config, Kind, Param};
use crate::{qdisc, tcp::cc};
use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde_json::{json, Map, Value};
use std::borrow::Cow;

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

/// A `qdisc` table: `kind` and that queue discipline's own parameters.
pub struct QdiscTable;

impl JsonSchema for QdiscTable {
    fn schema_name() -> Cow<'static, str> {
        "Qdisc".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let mut kinds = titled_tables(qdisc::REGISTRY, generator);
        for (table, c) in kinds.iter_mut().zip(qdisc::REGISTRY) {
            table["properties"]["kind"] = json!({ "const": c.name });
            table["required"] = json!(["kind"]);
        }
        json_schema!({
            "description": "A queue discipline: `kind` and its parameters (`airlab list --params KIND`).",
            "type": "object",
            "required": ["kind"],
            "oneOf": kinds,
        })
    }
}

/// A flow's `cc_params`: the parameters of one congestion control.
pub struct CcParams;

impl JsonSchema for CcParams {
    fn schema_name() -> Cow<'static, str> {
        "CcParams".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let tables = titled_tables(cc::REGISTRY, generator);
        json_schema!({
            "description": "Parameters of the flow's congestion control (`airlab list --params CC`).",
            "anyOf": tables,
        })
    }
}

/// A flow's `cc`: one of the registered congestion controls.
pub struct CcName;

impl JsonSchema for CcName {
    fn schema_name() -> Cow<'static, str> {
        "CongestionControl".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let names: Vec<&str> = cc::REGISTRY.iter().map(|c| c.name).collect();
        json_schema!({ "description": "A congestion control.", "enum": names })
    }
}

/// One table per registered component, titled with its name.
fn titled_tables<B>(registry: &[&'static Component<B>], generator: &mut SchemaGenerator) -> Vec<Value> {
    registry
        .iter()
        .map(|c| {
            let mut table = component_table(c, generator);
            table["title"] = json!(c.name);
            table
        })
        .collect()
}

/// A table of `component`'s parameters, nothing else.
fn component_table<B>(component: &'static Component<B>, generator: &mut SchemaGenerator) -> Value {
    let defaults = Config::defaults(component);
    let mut properties = Map::new();
    for (param, default) in defaults.iter() {
        let mut schema = param_schema(param, generator);
        schema["description"] = json!(format!("{} Default: {}.", param.doc, written_form(default)));
        properties.insert(param.name.to_string(), schema);
    }
    json!({
        "description": component.doc,
        "type": "object",
        "properties": properties,
        "additionalProperties": false,
    })
}

fn param_schema(param: &Param, generator: &mut SchemaGenerator) -> Value {
    match param.kind {
        Kind::Int { min, max, .. } => json!({ "type": "integer", "minimum": min, "maximum": max }),
        Kind::Real { range, .. } => {
            let mut s = json!({ "type": "number" });
            let lower = if range.min_open { "exclusiveMinimum" } else { "minimum" };
            s[lower] = json!(range.min);
            if range.max.is_finite() {
                let upper = if range.max_open { "exclusiveMaximum" } else { "maximum" };
                s[upper] = json!(range.max);
            }
            s
        }
        Kind::Flag => json!({ "type": "boolean" }),
        Kind::Time { .. } => generator.subschema_for::<Duration>().to_value(),
        Kind::Rate { .. } => generator.subschema_for::<Rate>().to_value(),
        Kind::Bytes { .. } => generator.subschema_for::<Bytes>().to_value(),
        Kind::Choice(words) => json!({ "enum": words }),
        Kind::Text => json!({ "type": "string", "minLength": 1 }),
        Kind::Qdisc { .. } => generator.subschema_for::<QdiscTable>().to_value(),
        Kind::Hosts => json!({
            "anyOf": [
                { "type": "string", "minLength": 1 },
                { "type": "array", "items": { "type": "string", "minLength": 1 }, "minItems": 1 },
            ]
        }),
        Kind::Classes { of, max } => json!({
            "type": "array",
            "items": component_table(of, generator),
            "minItems": 1,
            "maxItems": max,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
