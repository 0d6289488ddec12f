//! The JSON Schema of the component tables of a scenario (`qdisc = { kind = ... }`, a flow's
//! `cc`, `cc_params` and `app`, a BSS's `ofdma_scheduler` and `ap_hook`, a link's `rate_control`,
//! a Wi-Fi interface's `device`, a channel's `propagation` and `error_model`), made from the
//! parameters each component declares in its own file; the scenario's serde types name them in
//! their schemars attributes.

use super::components::written_form;
use super::units::{Bytes, Duration, Rate};
use crate::params::{Component, Config, Family, Kind, Param, Range};
use crate::{qdisc, tcp::cc};
use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde_json::{json, Map, Value};
use std::borrow::Cow;
use std::marker::PhantomData;

/// A component written as a table of its `kind` and parameters (`qdisc = { kind = ... }`:
/// [`KindTable<qdisc::Build>`]).
pub struct KindTable<B>(PhantomData<B>);

impl<B: Family> JsonSchema for KindTable<B> {
    fn schema_name() -> Cow<'static, str> {
        B::NAMES.1.into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": format!("Which {}: `kind` and its parameters (`airlab list --params KIND`).", B::NAMES.0),
            "type": "object",
            "required": ["kind"],
            "oneOf": kind_tables(B::REGISTRY, generator),
        })
    }
}

/// A component written by its name or as a table of its `kind` and parameters: a BSS's
/// `ofdma_scheduler` ([`NameOrTable<sched::Build>`]) or a link's `rate_control`.
pub struct NameOrTable<B>(PhantomData<B>);

impl<B: Family> JsonSchema for NameOrTable<B> {
    fn schema_name() -> Cow<'static, str> {
        B::NAMES.1.into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let names: Vec<&str> = B::REGISTRY.iter().map(|c| c.name).collect();
        json_schema!({
            "description": format!("Which {}: its name, or `kind` and its parameters (`airlab list --params KIND`).", B::NAMES.0),
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
        Kind::Real { range, .. } => real_schema(range),
        Kind::Flag => json!({ "type": "boolean" }),
        Kind::Time { .. } => generator.subschema_for::<Duration>().to_value(),
        Kind::Rate { .. } => generator.subschema_for::<Rate>().to_value(),
        Kind::Bytes { .. } => generator.subschema_for::<Bytes>().to_value(),
        Kind::Choice(words) => json!({ "enum": words }),
        Kind::Text => json!({ "type": "string", "minLength": 1 }),
        Kind::Qdisc { .. } => generator.subschema_for::<KindTable<qdisc::Build>>().to_value(),
        Kind::Hosts => json!({
            "anyOf": [
                { "type": "string", "minLength": 1 },
                { "type": "array", "items": { "type": "string", "minLength": 1 }, "minItems": 1 },
            ]
        }),
        Kind::PerHost { range } => json!({
            "type": "object",
            "additionalProperties": real_schema(range),
        }),
        Kind::Classes { of, max } => json!({
            "type": "array",
            "items": component_table(of, generator),
            "minItems": 1,
            "maxItems": max,
        }),
    }
}

fn real_schema(range: Range) -> Value {
    let mut s = json!({ "type": "number" });
    let lower = if range.min_open { "exclusiveMinimum" } else { "minimum" };
    s[lower] = json!(range.min);
    if range.max.is_finite() {
        let upper = if range.max_open { "exclusiveMaximum" } else { "maximum" };
        s[upper] = json!(range.max);
    }
    s
}
