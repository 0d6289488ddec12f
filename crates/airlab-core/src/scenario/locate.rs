//! Pinpoints errors inside a table that serde buffers before deserializing it: a link's shared
//! settings (`#[serde(flatten)]`). Inside it, `serde_path_to_error` only sees the enclosing
//! table (`link[0]`), so we re-check that table field by field against the schema's types to
//! name the offending key (`link[0].delay`). (Component tables, such as `qdisc`, `app` and a
//! Wi-Fi `device`, are read against their component's declared parameters in resolution, which
//! names keys itself.)

use super::overrides::parse_path;
use super::units::{Bytes, Duration, Rate};
use super::Step;
use super::{join_key, KeyError};
use serde::de::DeserializeOwned;
use toml::Value;

type Check = fn(Value) -> Result<(), String>;

fn check<T: DeserializeOwned>(value: Value) -> Result<(), String> {
    T::deserialize(value).map(drop).map_err(|e| e.message().to_string())
}

/// Narrows an error reported at `key` down to the field that caused it, when `key` is a
/// buffered table; otherwise returns it as is.
pub(crate) fn refine(doc: &Value, key: String, message: String) -> KeyError {
    let (true, Some(Value::Table(table))) = (buffered(&key), lookup(doc, &key)) else {
        return KeyError::new(key, message);
    };
    for (field, value) in table {
        let Some(check) = field_check(field) else {
            continue;
        };
        if let Err(inner) = check(value.clone()) {
            return refine(doc, join_key(&key, field), inner);
        }
    }
    // No field fails alone: the table as a whole is wrong (an unknown key).
    if let Some(field) = message.strip_prefix("unknown field `").and_then(|m| m.split('`').next()) {
        return KeyError::new(join_key(&key, field), message);
    }
    KeyError::new(key, message)
}

/// Whether `key` designates a link's settings (`link[0]`, `link[0].forward`).
fn buffered(key: &str) -> bool {
    let (parent, last) = key.rsplit_once('.').unwrap_or(("", key));
    match last {
        "forward" | "reverse" => parent.starts_with("link["),
        _ => parent.is_empty() && last.starts_with("link["),
    }
}

/// The type each field of a link's settings must have.
fn field_check(field: &str) -> Option<Check> {
    Some(match field {
        "rate" => check::<Rate>,
        "delay" => check::<Duration>,
        "loss" => check::<f64>,
        "overhead" | "device_queue" => check::<u32>,
        "device_queue_bytes" => check::<Bytes>,
        "qdisc" => check::<toml::Table>,
        _ => return None,
    })
}

fn lookup<'a>(doc: &'a Value, key: &str) -> Option<&'a Value> {
    parse_path(key).ok()?.iter().try_fold(doc, |node, step| match step {
        Step::Key(name) => node.get(name.as_str()),
        Step::Index(index) => node.get(*index),
    })
}
