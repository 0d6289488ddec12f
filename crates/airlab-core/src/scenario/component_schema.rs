//! The JSON Schema of the component tables of a scenario (`qdisc = { kind = ... }`, a flow's
//! `cc` and `cc_params`, a BSS's `ofdma_scheduler`, a link's `rate_control`), made from the
//! parameters each component declares in its own file; the scenario's serde types name them in
//! their schemars attributes.

use super::components::written_form;
use super::units::{Bytes, Duration, Rate};
use crate::params::{Component, Config, Kind, Param};
use crate::wifi::{ofdma::sched, rate};
use crate::{qdisc, tcp::cc};
use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde_json::{json, Map, Value};
use std::borrow::Cow;
use std::marker::PhantomData;

/// A `qdisc` table: `kind` and that queue discipline's own parameters.
pub struct QdiscTable;

impl JsonSchema for QdiscTable {
    fn schema_name() -> Cow<'static, str> {
        "Qdisc".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "A queue discipline: `kind` and its parameters (`airlab list --params KIND`).",
            "type": "object",
            "required": ["kind"],
            "oneOf": kind_tables(qdisc::REGISTRY, generator),
        })
    }
}

/// A component written by its name or as a table of its `kind` and parameters: a BSS's
/// `ofdma_scheduler` ([`NameOrTable<sched::Build>`]) or a link's `rate_control`.
pub struct NameOrTable<B>(PhantomData<B>);

/// A family written as a [`NameOrTable`]: its registry and how the schema names it.
pub trait Family: Sized + 'static {
    const REGISTRY: &'static [&'static Component<Self>];
    /// The schema's name for its definition, and the family in a sentence.
    const NAMES: (&'static str, &'static str);
}

impl Family for sched::Build {
    const REGISTRY: &'static [&'static Component<Self>] = sched::REGISTRY;
    const NAMES: (&'static str, &'static str) = ("OfdmaScheduler", "An OFDMA scheduler");
}

impl Family for rate::Build {
    const REGISTRY: &'static [&'static Component<Self>] = rate::REGISTRY;
    const NAMES: (&'static str, &'static str) = ("RateControl", "A rate control");
}

impl<B: Family> JsonSchema for NameOrTable<B> {
    fn schema_name() -> Cow<'static, str> {
        B::NAMES.0.into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let names: Vec<&str> = B::REGISTRY.iter().map(|c| c.name).collect();
        json_schema!({
            "description": format!("{}: its name, or `kind` and its parameters (`airlab list --params KIND`).", B::NAMES.1),
            "anyOf": [
                { "enum": names },
                { "type": "object", "required": ["kind"], "oneOf": kind_tables(B::REGISTRY, generator) },
            ],
        })
    }
}

/// One table per registered component with its `kind` (its name) required.
fn kind_tables<B>(registry: &[&'static Component<B>], generator: &mut SchemaGenerator) -> Vec<Value> {
    let mut kinds = titled_tables(registry, generator);
    for (table, c) in kinds.iter_mut().zip(registry) {
        table["properties"]["kind"] = json!({ "const": c.name });
        table["required"] = json!(["kind"]);
    }
    kinds
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
