//! Component tables of a scenario (`qdisc = { kind = "fq_codel", ... }`, a flow's `cc`,
//! `cc_params` and `app`, a BSS's `ofdma_scheduler` and `ap_hook`, a Wi-Fi link's `rate_control`,
//! a Wi-Fi interface's `device`, a Wi-Fi channel's `propagation` and `error_model`), read
//! against the parameters each component declares in its own file
//! ([`crate::params`]): every key is checked for its type, unit and range and named exactly
//! in errors (`link[0].qdisc.target`), and the ones not given take their defaults. Also the
//! listing of a component's parameters (`airlab list --params NAME`) and how a resolved
//! component is written back.

use super::units::{Bytes, Duration, Rate};
use super::{join_key, KeyError};
use crate::params::{self, Component, Config, Family, Kind, Param, Value};
use crate::wifi::{device, error_model, hook, ofdma::sched, propagation, rate};
use crate::{app, qdisc, tcp::cc};
use serde::de::DeserializeOwned;
use serde::ser::{Serialize, SerializeMap, Serializer};
use std::borrow::Cow;
use std::collections::BTreeMap;
use toml::Value as Toml;

/// A component of family `B` written as its name (with its defaults) or as a table of its
/// `kind` and parameters.
pub(crate) fn name_or_table<B: Family>(written: &Toml, key: &str) -> Result<Config<B>, KeyError> {
    match written {
        Toml::String(name) => match params::find(B::REGISTRY, name) {
            Some(component) => Ok(Config::defaults(component)),
            None => Err(unknown_kind::<B>(name, key)),
        },
        Toml::Table(table) => kind_table(table, key),
        other => Err(KeyError::new(
            key,
            format!("expected a {}'s name or a table with its `kind` and parameters, got {other}", B::NAMES.0),
        )),
    }
}

/// The component of family `B` a table names by its `kind`, with the table's other keys as
/// its parameters.
pub(crate) fn kind_table<B: Family>(table: &toml::Table, key: &str) -> Result<Config<B>, KeyError> {
    let kind_key = join_key(key, "kind");
    let kind = match table.get("kind") {
        None => return Err(KeyError::new(kind_key, "missing required key")),
        Some(Toml::String(kind)) => kind,
        Some(other) => return Err(KeyError::new(kind_key, format!("expected a string naming the kind, got {other}"))),
    };
    let Some(component) = params::find(B::REGISTRY, kind) else {
        return Err(unknown_kind::<B>(kind, &kind_key));
    };
    read(component, table.iter().filter(|(name, _)| *name != "kind"), key)
}

fn unknown_kind<B: Family>(kind: &str, key: &str) -> KeyError {
    KeyError::new(key, format!("unknown {} kind `{kind}`, expected one of: {}", B::NAMES.0, names(B::REGISTRY)))
}

/// Congestion control `name` (written at `name_key`) with the parameters `table` (at
/// `params_key`).
pub(crate) fn cc(name: &str, name_key: &str, table: &toml::Table, params_key: &str) -> Result<cc::Config, KeyError> {
    let Some(component) = cc::Component::find(name) else {
        return Err(KeyError::new(
            name_key,
            format!("unknown congestion control \"{name}\", expected one of: {}", names(cc::REGISTRY)),
        ));
    };
    read(component, table.iter(), params_key)
}

fn names<B>(registry: &[&Component<B>]) -> String {
    registry.iter().map(|c| c.name).collect::<Vec<_>>().join(", ")
}

/// `component` with the parameters `given` (written at `key`), the others at their defaults.
fn read<'a, B>(
    component: &'static Component<B>,
    given: impl Iterator<Item = (&'a String, &'a Toml)>,
    key: &str,
) -> Result<Config<B>, KeyError> {
    let mut config = Config::defaults(component);
    for (name, written) in given {
        let at = join_key(key, name);
        let Some(param) = component.params.iter().find(|p| p.name == name) else {
            let known: Vec<&str> = component.params.iter().map(|p| p.name).collect();
            let known = if known.is_empty() { "(none)".to_string() } else { known.join(", ") };
            return Err(KeyError::new(at, format!("unknown key for {}, expected one of: {known}", component.name)));
        };
        let value = value(param, written, &at)?;
        config.set(name, value).expect("read values are admitted");
    }
    config.check().map_err(|e| KeyError::new(join_key(key, &e.key), e.message))?;
    Ok(config)
}

/// The value of `param` written as `written` at `key`, checked against its kind.
fn value(param: &Param, written: &Toml, key: &str) -> Result<Value, KeyError> {
    let wrong = |expected: String| KeyError::new(key, format!("expected {expected}, got {written}"));
    let out_of_range = |shown: String| KeyError::new(key, format!("must be {}, got {shown}", describe(&param.kind)));
    let value = match param.kind {
        Kind::Int { .. } => Value::Int(written.as_integer().ok_or_else(|| wrong(describe(&param.kind)))?),
        Kind::Real { .. } => match written {
            Toml::Float(x) => Value::Real(*x),
            Toml::Integer(n) => Value::Real(*n as f64),
            _ => return Err(wrong(describe(&param.kind))),
        },
        Kind::Flag => Value::Flag(written.as_bool().ok_or_else(|| wrong("true or false".into()))?),
        Kind::Time { .. } => Value::Time(quantity::<Duration>(written, key)?.0),
        Kind::Rate { .. } => Value::Rate(quantity::<Rate>(written, key)?.0),
        Kind::Bytes { .. } => Value::Bytes(quantity::<Bytes>(written, key)?.0),
        Kind::Choice(words) => {
            let word = written.as_str().and_then(|w| words.iter().find(|c| **c == w));
            Value::Choice(word.ok_or_else(|| wrong(describe(&param.kind)))?)
        }
        Kind::Text => {
            let text = written.as_str().ok_or_else(|| wrong("a string".into()))?;
            // Text names things (a registry's group) and is printed with them.
            super::limits::check_label(key, text)?;
            Value::Text(Cow::Owned(text.to_string()))
        }
        Kind::Hosts => {
            let one = |v: &Toml| v.as_str().map(str::to_string);
            let names = match written {
                Toml::Array(items) => items.iter().map(one).collect::<Option<Vec<_>>>(),
                single => one(single).map(|n| vec![n]),
            };
            Value::Hosts(names.ok_or_else(|| wrong(describe(&param.kind)))?)
        }
        Kind::PerHost { range } => {
            let Toml::Table(table) = written else { return Err(wrong(describe(&param.kind))) };
            let mut values = Vec::with_capacity(table.len());
            for (host, entry) in table {
                let x = entry.as_float().or_else(|| entry.as_integer().map(|n| n as f64));
                let Some(x) = x.filter(|x| range.contains(*x)) else {
                    let message = format!("must be a number {}, got {entry}", phrase(range));
                    return Err(KeyError::new(join_key(key, host), message));
                };
                values.push((host.clone(), x));
            }
            Value::PerHost(values)
        }
        Kind::Qdisc { .. } => match written {
            Toml::Table(table) => Value::Qdisc(Box::new(kind_table::<qdisc::Build>(table, key)?)),
            _ => return Err(wrong("a table with a `kind`, such as { kind = \"fq_codel\" }".into())),
        },
        Kind::Classes { of, .. } => {
            let Toml::Array(tables) = written else { return Err(wrong(describe(&param.kind))) };
            let mut classes = Vec::with_capacity(tables.len());
            for (i, table) in tables.iter().enumerate() {
                let at = format!("{key}[{i}]");
                let Toml::Table(table) = table else {
                    return Err(KeyError::new(at, format!("expected a table of {} keys, got {table}", of.name)));
                };
                classes.push(read(of, table.iter(), &at)?);
            }
            Value::Classes(classes)
        }
    };
    if !param.admits(&value) {
        return Err(out_of_range(match &value {
            Value::Text(t) if t.is_empty() => "an empty string".into(),
            other => written_form(other),
        }));
    }
    Ok(value)
}

/// A quantity with a unit, with the unit parser's own messages.
fn quantity<T: DeserializeOwned>(written: &Toml, key: &str) -> Result<T, KeyError> {
    T::deserialize(written.clone()).map_err(|e| KeyError::new(key, e.message().to_string()))
}

/// What a parameter of `kind` accepts, as a phrase ("a whole number from 1 to 65536").
pub fn describe(kind: &Kind) -> String {
    match *kind {
        Kind::Int { min, max, unit } => {
            let unit = if unit.is_empty() { String::new() } else { format!(" ({unit})") };
            format!("a whole number from {min} to {max}{unit}")
        }
        Kind::Real { range, unit } => {
            let unit = if unit.is_empty() { String::new() } else { format!(" ({unit})") };
            format!("a number {}{unit}", phrase(range))
        }
        Kind::Flag => "true or false".into(),
        Kind::Time { min } => at_least("a duration", Duration(min).to_string(), min > 0),
        Kind::Rate { min } => at_least("a rate", Rate(min).to_string(), min > 0),
        Kind::Bytes { min, max } => {
            let size = at_least("a size", Bytes(min).to_string(), min > 0);
            if max < u64::MAX {
                format!("{size} and at most {}", Bytes(max))
            } else {
                size
            }
        }
        Kind::Choice(words) => format!("one of: {}", words.join(", ")),
        Kind::Text => "a non-empty string".into(),
        Kind::Hosts => "a host's name or a list of them".into(),
        Kind::PerHost { range } => format!("a table of host names to numbers {}", phrase(range)),
        Kind::Qdisc { .. } => "a qdisc table, such as { kind = \"fq_codel\" }".into(),
        Kind::Classes { of, max } => {
            let keys: Vec<&str> = of.params.iter().map(|p| p.name).collect();
            format!("a list of 1 to {max} class tables, each with the keys {}", keys.join(", "))
        }
    }
}

fn at_least(what: &str, min: String, bounded: bool) -> String {
    if bounded {
        format!("{what} of at least {min}")
    } else {
        what.to_string()
    }
}

fn phrase(range: params::Range) -> String {
    if range.max.is_infinite() {
        let above = if range.min_open { "greater than" } else { "at least" };
        return format!("{above} {}", range.min);
    }
    format!("in {range}")
}

/// A value as a scenario file writes it ("5ms", "10Mbit", true, "recent").
pub fn written_form(value: &Value) -> String {
    match value {
        Value::Unset => "unset".into(),
        Value::Int(v) => v.to_string(),
        Value::Real(v) => v.to_string(),
        Value::Flag(v) => v.to_string(),
        Value::Time(t) => format!("\"{}\"", Duration(*t)),
        Value::Rate(r) => format!("\"{}\"", Rate(*r)),
        Value::Bytes(b) => format!("\"{}\"", Bytes(*b)),
        Value::Choice(w) => format!("\"{w}\""),
        Value::Text(t) => format!("{t:?}"),
        Value::Qdisc(q) => format!("{{ kind = \"{}\" }}", q.name()),
        Value::Classes(c) => format!("[{} class tables]", c.len()),
        Value::Hosts(h) => format!("{h:?}"),
        Value::Nodes(n) => format!("{n:?}"),
        Value::PerHost(h) if h.is_empty() => "{}".into(),
        Value::PerHost(h) => {
            let pairs: Vec<String> = h.iter().map(|(n, x)| format!("{n} = {x}")).collect();
            format!("{{ {} }}", pairs.join(", "))
        }
        Value::PerNode(n) => format!("{n:?}"),
    }
}

/// One parameter of a component, as `airlab list --params` shows it.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ParamInfo {
    pub name: &'static str,
    /// What it accepts, with its unit and range.
    pub accepts: String,
    /// The default as written in a scenario file, or "unset".
    pub default: String,
    pub doc: &'static str,
}

/// A family of components as listings show it: its key ("qdisc"), what its members are
/// ("queue disciplines"), how a scenario writes the member called `{name}` and where, its
/// members' names, and the parameters of a member.
#[derive(Clone, Copy)]
pub struct FamilyEntry {
    pub key: &'static str,
    pub title: &'static str,
    pub written: &'static str,
    pub place: &'static str,
    pub names: fn() -> Vec<&'static str>,
    describe: fn(&str) -> Option<Described>,
}

/// What a component is, and its parameters.
type Described = (&'static str, Vec<ParamInfo>);

const fn entry<B: Family>(
    key: &'static str,
    title: &'static str,
    written: &'static str,
    place: &'static str,
) -> FamilyEntry {
    FamilyEntry { key, title, written, place, names: names_of::<B>, describe: describe_in::<B> }
}

/// Every family of registered components, in listing order (a flow's, then a link's and an
/// interface's, then a Wi-Fi network's); a new family is one line here.
#[rustfmt::skip]
pub static FAMILIES: &[FamilyEntry] = &[
    entry::<cc::Build>("cc", "congestion controls", "cc = \"{name}\", cc_params = {{ ... }}", "on a flow"),
    entry::<app::Build>("app", "apps", "app = {{ kind = \"{name}\", ... }}", "on a flow"),
    entry::<qdisc::Build>("qdisc", "queue disciplines", "qdisc = {{ kind = \"{name}\", ... }}", "on a link or Wi-Fi node"),
    entry::<device::Build>("device", "Wi-Fi device layers", "device = {{ kind = \"{name}\", ... }}", "in [[wifi]] or a node"),
    entry::<rate::Build>("rate_control", "Wi-Fi rate controls", "rate_control = \"{name}\"", "in [[wifi]] or a node"),
    entry::<sched::Build>("ofdma_scheduler", "OFDMA schedulers", "ofdma_scheduler = \"{name}\"", "in an 802.11ax BSS"),
    entry::<hook::Build>("ap_hook", "AP hooks", "ap_hook = {{ kind = \"{name}\", ... }}", "in an infrastructure [[wifi]] BSS"),
    entry::<propagation::Build>("propagation", "propagation loss models", "propagation = {{ kind = \"{name}\", ... }}", "in a [[wifi]] channel"),
    entry::<error_model::Build>("error_model", "Wi-Fi error rate models", "error_model = \"{name}\"", "in a [[wifi]] channel"),
];

fn names_of<B: Family>() -> Vec<&'static str> {
    B::REGISTRY.iter().map(|c| c.name).collect()
}

fn describe_in<B: Family>(name: &str) -> Option<Described> {
    let c = params::find(B::REGISTRY, name)?;
    let defaults = Config::defaults(c);
    let params = defaults
        .iter()
        .map(|(p, v)| ParamInfo { name: p.name, accepts: describe(&p.kind), default: written_form(v), doc: p.doc })
        .collect();
    Some((c.doc, params))
}

/// A registered component called `name`: its family's key ("qdisc"), what it is, and its
/// parameters.
pub fn describe_component(name: &str) -> Option<(&'static str, &'static str, Vec<ParamInfo>)> {
    FAMILIES.iter().find_map(|f| (f.describe)(name).map(|(doc, params)| (f.key, doc, params)))
}

/// Writes a resolved component as a table: `kind` and every parameter that has a value, in
/// the scenario's units.
pub(crate) struct Written<'a, B: 'static>(pub &'a Config<B>);

impl<B> Serialize for Written<'_, B> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        map.serialize_entry("kind", self.0.name())?;
        write_params(&mut map, self.0)?;
        map.end()
    }
}

/// Writes a resolved class of a classful qdisc: its parameters, without a `kind`.
struct WrittenClass<'a>(&'a Config<()>);

impl Serialize for WrittenClass<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        write_params(&mut map, self.0)?;
        map.end()
    }
}

fn write_params<M: SerializeMap, B>(map: &mut M, config: &Config<B>) -> Result<(), M::Error> {
    for (param, value) in config.iter() {
        match value {
            Value::Unset => {}
            Value::Int(v) => map.serialize_entry(param.name, v)?,
            Value::Real(v) => map.serialize_entry(param.name, v)?,
            Value::Flag(v) => map.serialize_entry(param.name, v)?,
            Value::Time(t) => map.serialize_entry(param.name, &Duration(*t))?,
            Value::Rate(r) => map.serialize_entry(param.name, &Rate(*r))?,
            Value::Bytes(b) => map.serialize_entry(param.name, &Bytes(*b))?,
            Value::Choice(w) => map.serialize_entry(param.name, w)?,
            Value::Text(t) => map.serialize_entry(param.name, t)?,
            Value::Qdisc(_) => map.serialize_entry(param.name, &Written(qdisc::child(config, param.name)))?,
            Value::Classes(c) => {
                let classes: Vec<WrittenClass> = c.iter().map(WrittenClass).collect();
                map.serialize_entry(param.name, &classes)?
            }
            Value::Hosts(h) => map.serialize_entry(param.name, h)?,
            Value::Nodes(n) => map.serialize_entry(param.name, n)?,
            Value::PerHost(h) => map.serialize_entry(param.name, &h.iter().cloned().collect::<BTreeMap<_, _>>())?,
            Value::PerNode(n) => map.serialize_entry(param.name, n)?,
        }
    }
    Ok(())
}

/// A resolved component of any family (a qdisc, a device layer, a channel's models, ...),
/// written as its table: `kind` and its parameters in the scenario's units.
impl<B: Family> Serialize for Config<B> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        Written(self).serialize(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_across_families() {
        let mut names: Vec<&str> = FAMILIES.iter().flat_map(|f| (f.names)()).collect();
        let count = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), count, "`airlab list --params NAME` needs one component per name");
    }
}
