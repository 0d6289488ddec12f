//! Pinpoints errors inside tables that serde buffers before deserializing them: a link's shared
//! settings (`#[serde(flatten)]`) and the internally tagged `app` table. Inside those,
//! `serde_path_to_error` only sees the enclosing table (`link[0]`), so we re-check that table
//! field by field against the schema's types to name the offending key (`flow[0].app.size`).
//! (Component tables, such as `qdisc` and a Wi-Fi `device`, are read against their
//! component's declared parameters in resolution, which names keys itself.)

use super::overrides::parse_path;
use super::units::{Bytes, Duration, Rate};
use super::Step;
use super::{join_key, KeyError};
use serde::de::DeserializeOwned;
use toml::Value;

/// Tables that serde buffers.
#[derive(Clone, Copy)]
enum Buffered {
    /// A link's shared settings or its `forward`/`reverse` table (`LinkDirection`).
    LinkSettings,
    App,
}

type Check = fn(Value) -> Result<(), String>;

fn check<T: DeserializeOwned>(value: Value) -> Result<(), String> {
    T::deserialize(value).map(drop).map_err(|e| e.message().to_string())
}

/// Narrows an error reported at `key` down to the field that caused it, when `key` is a
/// buffered table; otherwise returns it as is.
pub(crate) fn refine(doc: &Value, key: String, message: String) -> KeyError {
    let (Some(kind), Some(Value::Table(table))) = (buffered(&key), lookup(doc, &key)) else {
        return KeyError::new(key, message);
    };
    let tag = table.get("kind").and_then(Value::as_str);
    for (field, value) in table {
        let Some(check) = field_check(kind, tag, field) else {
            continue;
        };
        if let Err(inner) = check(value.clone()) {
            return refine(doc, join_key(&key, field), inner);
        }
    }
    // No field fails alone: the table as a whole is wrong (unknown key, unknown or missing kind).
    if let Some(field) = message.strip_prefix("unknown field `").and_then(|m| m.split('`').next()) {
        return KeyError::new(join_key(&key, field), message);
    }
    if message.starts_with("unknown variant") {
        return KeyError::new(join_key(&key, "kind"), message);
    }
    KeyError::new(key, message)
}

/// Which buffered table, if any, `key` designates.
fn buffered(key: &str) -> Option<Buffered> {
    let (parent, last) = key.rsplit_once('.').unwrap_or(("", key));
    match last {
        "app" if parent.starts_with("flow[") => Some(Buffered::App),
        "forward" | "reverse" if parent.starts_with("link[") => Some(Buffered::LinkSettings),
        _ if parent.is_empty() && last.starts_with("link[") => Some(Buffered::LinkSettings),
        _ => None,
    }
}

/// The type each field of a buffered table must have (`tag` is the table's `kind`).
fn field_check(table: Buffered, tag: Option<&str>, field: &str) -> Option<Check> {
    Some(match (table, tag, field) {
        (Buffered::LinkSettings, _, "rate") => check::<Rate>,
        (Buffered::LinkSettings, _, "delay") => check::<Duration>,
        (Buffered::LinkSettings, _, "loss") => check::<f64>,
        (Buffered::LinkSettings, _, "overhead" | "device_queue") => check::<u32>,
        (Buffered::LinkSettings, _, "device_queue_bytes") => check::<Bytes>,
        (Buffered::LinkSettings, _, "qdisc") => check::<toml::Table>,
        (Buffered::App, Some("transfer" | "periodic" | "ping"), "size") => check::<Bytes>,
        (Buffered::App, Some("udp"), "packet_size") => check::<Bytes>,
        (Buffered::App, Some("udp"), "rate") => check::<Rate>,
        (Buffered::App, Some("periodic"), "period" | "random_start") => check::<Duration>,
        (Buffered::App, Some("ping"), "interval") => check::<Duration>,
        _ => return None,
    })
}

fn lookup<'a>(doc: &'a Value, key: &str) -> Option<&'a Value> {
    parse_path(key).ok()?.iter().try_fold(doc, |node, step| match step {
        Step::Key(name) => node.get(name.as_str()),
        Step::Index(index) => node.get(*index),
    })
}
