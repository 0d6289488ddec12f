//! `--set key.path=value` overrides, applied to the parsed TOML document before it is checked,
//! so that an override is held to exactly the same rules as the file itself.
//!
//! Paths are dotted; list elements are addressed by index (`flow.0.cc` or `flow[0].cc`) or by
//! name (`link.bottleneck.rate`, `wifi.bss.node.sta1.mcs`), where a link's default name is
//! "a-b", a flow's "flow<i>" and a Wi-Fi network's "wifi<i>".

use super::schema::{shapes_at, Shape};
use super::{KeyError, Step};
use toml::Value;

/// Applies the overrides in order; returns the key path each wrote (`link[1].qdisc.limit` for
/// `bottleneck.qdisc.limit`), to attribute errors to them.
pub(crate) fn apply(doc: &mut Value, overrides: &[(String, String)]) -> Result<Vec<String>, KeyError> {
    overrides.iter().map(|(key, value)| apply_one(doc, key, value)).collect()
}

/// True if an error at `key` is at, inside or above the value an override wrote at `path`.
pub(crate) fn touches(path: &str, key: &str) -> bool {
    let within = |outer: &str, inner: &str| {
        inner == outer || inner.strip_prefix(outer).is_some_and(|rest| rest.starts_with(['.', '[']))
    };
    !key.is_empty() && (within(key, path) || within(path, key))
}

fn apply_one(doc: &mut Value, key: &str, text: &str) -> Result<String, KeyError> {
    let fail = |message: String| KeyError::new(key, format!("--set: {message}"));
    let steps = expand_shorthand(doc, parse_path(key).map_err(fail)?).map_err(fail)?;
    let mut path = String::new();
    // The path as keys and indices (a list entry named by name is at an index), for the schema.
    let mut walked: Vec<Step> = Vec::new();
    let mut node = doc;
    for (i, step) in steps.iter().enumerate() {
        let last = i + 1 == steps.len();
        node = match (node, step) {
            (Value::Table(table), Step::Key(name)) => {
                let joined = super::join_key(&path, name);
                let parent = std::mem::replace(&mut path, joined);
                walked.push(Step::Key(name.clone()));
                if last {
                    table.insert(name.clone(), parse_value(text));
                    break;
                }
                if !table.contains_key(name) {
                    missing(table, &parent, &path, &walked, &steps[i + 1]).map_err(fail)?;
                }
                table.entry(name.clone()).or_insert_with(|| Value::Table(Default::default()))
            }
            (Value::Array(items), step) => {
                let index = element_index(&path, items, step).map_err(fail)?;
                path.push_str(&format!("[{index}]"));
                walked.push(Step::Index(index));
                if last {
                    items[index] = parse_value(text);
                    break;
                }
                &mut items[index]
            }
            (Value::Table(table), Step::Index(index)) => {
                return Err(fail(format!(
                    "`{path}` is a table ({}), not a list; cannot index it with {index}",
                    keys_of(table)
                )))
            }
            (other, _) => {
                return Err(fail(format!("`{path}` is a {}, not a table; cannot set keys inside it", other.type_str())))
            }
        };
    }
    Ok(path)
}

/// Checks that the key `path` (`name` in the table at `parent`), which the file does not
/// have, may be created as a table for the override to set keys inside: missing tables are
/// created, but a missing list has no entries to change (`next` indexes or names one).
fn missing(table: &toml::Table, parent: &str, path: &str, steps: &[Step], next: &Step) -> Result<(), String> {
    let is_list = shapes_at(steps).contains(&Shape::List);
    if !is_list && !matches!(next, Step::Index(_)) {
        return Ok(());
    }
    let Some(Step::Key(name)) = steps.last() else { return Ok(()) };
    let owner = if parent.is_empty() { "the scenario".to_string() } else { format!("`{parent}`") };
    let entry = match next {
        Step::Index(index) => format!("entry {index}"),
        Step::Key(entry) => format!("entry named \"{entry}\""),
    };
    let instead = if is_list {
        format!("; overrides change entries, they do not add them: set the whole list, as `--set {path}=[...]`")
    } else {
        String::new()
    };
    Err(format!("{owner} has no `{name}` (it has {}), so there is no {entry} to change{instead}", keys_of(table)))
}

/// The keys of a table, for a message: "keys a, b, c" or "no keys".
fn keys_of(table: &toml::Table) -> String {
    if table.is_empty() {
        return "no keys".to_string();
    }
    format!("keys {}", table.keys().map(String::as_str).collect::<Vec<_>>().join(", "))
}

/// Top-level keys of the scenario schema; any other first step may name a link, a flow or a
/// Wi-Fi network.
const TOP_LEVEL: &[&str] = &[
    "name",
    "description",
    "duration",
    "seed",
    "host_jitter",
    "hosts",
    "routers",
    "link",
    "wifi",
    "route",
    "flow",
    "metrics",
];

/// Lists whose entries a bare name may designate.
const NAMED_LISTS: [&str; 3] = ["link", "flow", "wifi"];

/// `bottleneck.qdisc.limit` is short for `link.bottleneck.qdisc.limit` when a link (or a
/// flow, or a Wi-Fi network) has that name.
fn expand_shorthand(doc: &Value, mut steps: Vec<Step>) -> Result<Vec<Step>, String> {
    let Some(Step::Key(first)) = steps.first() else { return Ok(steps) };
    if TOP_LEVEL.contains(&first.as_str()) {
        return Ok(steps);
    }
    let named = |list: &str| -> bool {
        doc.get(list).and_then(Value::as_array).is_some_and(|items| {
            items.iter().enumerate().any(|(i, item)| element_name(list, i, item).as_deref() == Some(first.as_str()))
        })
    };
    let owners: Vec<&str> = NAMED_LISTS.into_iter().filter(|list| named(list)).collect();
    match owners.as_slice() {
        [list] => {
            steps.insert(0, Step::Key(list.to_string()));
            Ok(steps)
        }
        [] => Err(format!(
            "`{first}` is neither a top-level key ({}) nor the name of a link, flow or Wi-Fi network",
            TOP_LEVEL.join(", ")
        )),
        lists => Err(format!(
            "`{first}` names entries of several lists ({}); write {}",
            lists.join(", "),
            lists.iter().map(|list| format!("`{list}.{first}`")).collect::<Vec<_>>().join(" or ")
        )),
    }
}

/// Splits `flow[0].cc` / `flow.0.cc` / `link.bottleneck.rate` into steps.
pub(crate) fn parse_path(key: &str) -> Result<Vec<Step>, String> {
    let mut steps = Vec::new();
    for part in key.split('.') {
        let (name, mut rest) = part.split_at(part.find('[').unwrap_or(part.len()));
        if name.is_empty() && (rest.is_empty() || steps.is_empty()) {
            return Err(format!("empty key in path `{key}`"));
        }
        if !name.is_empty() {
            steps.push(match name.parse() {
                Ok(index) => Step::Index(index),
                Err(_) => Step::Key(name.to_string()),
            });
        }
        while let Some(open) = rest.strip_prefix('[') {
            let (index, after) = open.split_once(']').ok_or(format!("unclosed `[` in `{key}`"))?;
            let index = index.parse().map_err(|_| format!("`[{index}]` in `{key}` is not a list index"))?;
            steps.push(Step::Index(index));
            rest = after;
        }
        if !rest.is_empty() {
            return Err(format!("unexpected `{rest}` in `{key}`"));
        }
    }
    Ok(steps)
}

/// The element of list `list_key` that `step` designates: by index or by name.
fn element_index(list_key: &str, items: &[Value], step: &Step) -> Result<usize, String> {
    let count = match items.len() {
        0 => "no entries".to_string(),
        1 => "1 entry".to_string(),
        n => format!("{n} entries"),
    };
    match step {
        Step::Index(index) if *index < items.len() => Ok(*index),
        Step::Index(index) => Err(format!("index {index} is out of range: `{list_key}` has {count}")),
        Step::Key(name) => {
            let named = |(i, item): (usize, &Value)| element_name(list_key, i, item).as_deref() == Some(name.as_str());
            if let Some(index) = items.iter().enumerate().position(named) {
                return Ok(index);
            }
            let names: Vec<String> =
                items.iter().enumerate().filter_map(|(i, item)| element_name(list_key, i, item)).collect();
            if items.is_empty() {
                return Err(format!("`{list_key}` has no entries, so none is named \"{name}\""));
            }
            if names.is_empty() {
                return Err(format!(
                    "`{list_key}` is a list of {count} without names ({}); address an entry by its index, \
                     0 to {}, such as `{list_key}.0`",
                    shown(items),
                    items.len() - 1
                ));
            }
            Err(format!("no entry of `{list_key}` is named \"{name}\", expected one of: {}", names.join(", ")))
        }
    }
}

/// A list's entries as TOML, for a message; long lists are cut short.
fn shown(items: &[Value]) -> String {
    const MOST: usize = 8;
    let mut parts: Vec<String> = items.iter().take(MOST).map(|v| v.to_string()).collect();
    if items.len() > MOST {
        parts.push(format!("... {} more", items.len() - MOST));
    }
    parts.join(", ")
}

/// The name of a list element: its `name` key, else the default the schema gives it.
fn element_name(list_key: &str, index: usize, item: &Value) -> Option<String> {
    if let Some(name) = item.get("name").and_then(Value::as_str) {
        return Some(name.to_string());
    }
    match list_key {
        "link" => {
            let ends = item.get("between")?.as_array()?;
            match ends.as_slice() {
                [a, b] => Some(format!("{}-{}", a.as_str()?, b.as_str()?)),
                _ => None,
            }
        }
        "flow" => Some(format!("flow{index}")),
        "wifi" => Some(format!("wifi{index}")),
        _ => None,
    }
}

/// The override's value: a TOML value if it parses as one (`20`, `true`, `"x"`, `[1, 2]`),
/// else the text itself as a string, so `10Mbit` and `cubic` need no quotes.
fn parse_value(text: &str) -> Value {
    format!("v = {text}")
        .parse::<toml::Table>()
        .ok()
        .filter(|table| table.len() == 1)
        .and_then(|mut table| table.remove("v"))
        .unwrap_or_else(|| Value::String(text.to_string()))
}
