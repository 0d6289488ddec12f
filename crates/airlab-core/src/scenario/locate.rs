//! Pinpoints errors inside tables that serde buffers before deserializing them: a link's shared
//! settings (`#[serde(flatten)]`) and the internally tagged `qdisc`, `app` and Wi-Fi `device`
//! tables. Inside those, `serde_path_to_error` only sees the enclosing table (`link[0]`), so we
//! re-check that table field by field against the schema's types to name the offending key
//! (`link[0].qdisc.limit`).

use super::model::{CakeIsolation, CakeTins, QdiscSpec, XlayerMean, XlayerWrr};
use super::overrides::{parse_path, Step};
use super::units::{Bytes, Duration, Rate};
use super::{join_key, KeyError};
use serde::de::DeserializeOwned;
use toml::Value;

/// Tables that serde buffers.
#[derive(Clone, Copy)]
enum Buffered {
    /// A link's shared settings or its `forward`/`reverse` table (`LinkDirection`).
    LinkSettings,
    Qdisc,
    App,
    /// The device layer of a Wi-Fi interface (`DeviceSpec`).
    Device,
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
        "qdisc" => Some(Buffered::Qdisc),
        "app" if parent.starts_with("flow[") => Some(Buffered::App),
        "device" if parent.starts_with("wifi[") => Some(Buffered::Device),
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
        (Buffered::LinkSettings, _, "qdisc") => check::<QdiscSpec>,
        (Buffered::Qdisc, Some("pfifo"), "limit") => check::<u32>,
        (Buffered::Qdisc, Some("bfifo"), "limit") => check::<Bytes>,
        (Buffered::Qdisc, Some("codel" | "fq_codel"), "limit") => check::<u32>,
        (Buffered::Qdisc, Some("codel" | "fq_codel"), "target" | "interval") => check::<Duration>,
        (Buffered::Qdisc, Some("codel" | "fq_codel"), "ce_threshold") => check::<Duration>,
        (Buffered::Qdisc, Some("codel" | "fq_codel"), "ecn") => check::<bool>,
        (Buffered::Qdisc, Some("fq_codel"), "flows" | "drop_batch") => check::<u32>,
        (Buffered::Qdisc, Some("fq_codel"), "quantum" | "memory_limit") => check::<Bytes>,
        (Buffered::Qdisc, Some("xlayer"), "z" | "k") => check::<f64>,
        (Buffered::Qdisc, Some("xlayer"), "history" | "active_timeout") => check::<Duration>,
        (Buffered::Qdisc, Some("xlayer"), "mean") => check::<XlayerMean>,
        (Buffered::Qdisc, Some("xlayer"), "wrr") => check::<XlayerWrr>,
        (Buffered::Qdisc, Some("xlayer"), "bulk" | "mice") => check::<QdiscSpec>,
        (Buffered::Qdisc, Some("cake"), "bandwidth") => check::<Rate>,
        (Buffered::Qdisc, Some("cake"), "rtt") => check::<Duration>,
        (Buffered::Qdisc, Some("cake"), "isolation") => check::<CakeIsolation>,
        (Buffered::Qdisc, Some("cake"), "tins") => check::<CakeTins>,
        (Buffered::Qdisc, Some("cake"), "overhead") => check::<i32>,
        (Buffered::Qdisc, Some("cake"), "mpu") => check::<u32>,
        (Buffered::Qdisc, Some("cake"), "ecn") => check::<bool>,
        (Buffered::Qdisc, Some("cake"), "memory_limit") => check::<Bytes>,
        (Buffered::App, Some("transfer" | "periodic" | "ping"), "size") => check::<Bytes>,
        (Buffered::App, Some("udp"), "packet_size") => check::<Bytes>,
        (Buffered::App, Some("udp"), "rate") => check::<Rate>,
        (Buffered::App, Some("periodic"), "period" | "random_start") => check::<Duration>,
        (Buffered::App, Some("ping"), "interval") => check::<Duration>,
        (Buffered::Device, Some("fifo" | "per_station"), "size") => check::<u32>,
        (Buffered::Device, Some("per_station"), "airtime_fairness") => check::<bool>,
        _ => return None,
    })
}

fn lookup<'a>(doc: &'a Value, key: &str) -> Option<&'a Value> {
    parse_path(key).ok()?.iter().try_fold(doc, |node, step| match step {
        Step::Key(name) => node.get(name.as_str()),
        Step::Index(index) => node.get(*index),
    })
}
