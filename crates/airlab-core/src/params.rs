//! Component parameters. Each queue discipline and congestion control declares its own
//! parameters beside its code (name, type, range, default, meaning), the way a Linux qdisc's
//! netlink policy sits in its `sch_*.c`. The scenario layer reads values from files against
//! these declarations and lists them (`airlab list --params NAME`); the component builds
//! itself from a checked [`Config`]. Nothing here knows about file formats or units of
//! writing.

use crate::sim::Time;
use std::any::Any;
use std::borrow::Cow;
use std::fmt;

/// What a parameter holds and which values it accepts.
#[derive(Debug, Clone, Copy)]
pub enum Kind {
    /// A whole number in `min..=max`; `unit` says what it counts ("packets"), for listings.
    Int {
        min: i64,
        max: i64,
        unit: &'static str,
    },
    /// A real number in `range`; `unit` for listings ("s" for seconds).
    Real {
        range: Range,
        unit: &'static str,
    },
    Flag,
    /// A span of simulated time of at least `min`.
    Time {
        min: Time,
    },
    /// A bit rate in bit/s of at least `min`.
    Rate {
        min: u64,
    },
    /// A size in bytes in `min..=max`.
    Bytes {
        min: u64,
        max: u64,
    },
    /// One of these words.
    Choice(&'static [&'static str]),
    /// Text that is not empty.
    Text,
    /// A nested queue discipline (the class of a classful qdisc); unset, it is `default` with
    /// that qdisc's own defaults, as `make` builds them. The qdisc family declares such a
    /// parameter (`qdisc::child_kind`); this module knows it only as a [`Nested`] component.
    Qdisc {
        default: &'static str,
        make: fn(&str) -> Box<dyn Nested>,
    },
    /// One or more hosts of the scenario, by name; bound to their node ids before the
    /// component is built ([`Config::bind_hosts`]).
    Hosts,
    /// A number in `range` for each of some hosts, by name (`{ ed1 = 0.45 }`); bound to
    /// node ids as [`Kind::Hosts`] is.
    PerHost {
        range: Range,
    },
    /// 1 to `max` classes of a classful qdisc, each a table of `of`'s parameters.
    Classes {
        of: &'static Component<()>,
        max: usize,
    },
}

/// An interval of real numbers, each end open or closed.
#[derive(Debug, Clone, Copy)]
pub struct Range {
    pub min: f64,
    pub min_open: bool,
    pub max: f64,
    pub max_open: bool,
}

impl Range {
    /// Greater than 0 and finite.
    pub const POSITIVE: Range = Range { min: 0.0, min_open: true, max: f64::INFINITY, max_open: true };
    /// Strictly between 0 and 1.
    pub const FRACTION: Range = Range { min: 0.0, min_open: true, max: 1.0, max_open: true };

    pub fn contains(&self, x: f64) -> bool {
        let above = if self.min_open { x > self.min } else { x >= self.min };
        let below = if self.max_open { x < self.max } else { x <= self.max };
        above && below && x.is_finite()
    }
}

impl fmt::Display for Range {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let lo = if self.min_open { '(' } else { '[' };
        let hi = if self.max_open { ')' } else { ']' };
        if self.max.is_infinite() {
            let op = if self.min_open { ">" } else { "≥" };
            return write!(f, "{op} {}", self.min);
        }
        write!(f, "{lo}{}, {}{hi}", self.min, self.max)
    }
}

/// A parameter's value. `Unset` is the value of an optional parameter nobody gave (its `doc`
/// says what that means, e.g. "no shaping").
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Unset,
    Int(i64),
    Real(f64),
    Flag(bool),
    Time(Time),
    /// Bit/s.
    Rate(u64),
    Bytes(u64),
    Choice(&'static str),
    Text(Cow<'static, str>),
    Qdisc(Box<dyn Nested>),
    Classes(Vec<Config<()>>),
    /// Host names, and the node ids they become when bound ([`Kind::Hosts`]).
    Hosts(Vec<String>),
    Nodes(Vec<u32>),
    /// A number per host, by name and, once bound, by node id ([`Kind::PerHost`]).
    PerHost(Vec<(String, f64)>),
    PerNode(Vec<(u32, f64)>),
}

/// One parameter of a component.
#[derive(Debug)]
pub struct Param {
    pub name: &'static str,
    pub kind: Kind,
    /// The value when a scenario does not give one; for [`Kind::Qdisc`], ignored (the kind
    /// names the default).
    pub default: Value,
    /// What it means, one line, for listings and docs.
    pub doc: &'static str,
}

impl Param {
    /// Whether `value` is of this parameter's type and within its range. `Unset` is admitted
    /// only where it is the default.
    pub fn admits(&self, value: &Value) -> bool {
        match (self.kind, value) {
            (_, Value::Unset) => self.default == Value::Unset,
            (Kind::Int { min, max, .. }, Value::Int(v)) => (min..=max).contains(v),
            (Kind::Real { range, .. }, Value::Real(v)) => range.contains(*v),
            (Kind::Flag, Value::Flag(_)) => true,
            (Kind::Time { min }, Value::Time(t)) => *t >= min,
            (Kind::Rate { min }, Value::Rate(r)) => *r >= min,
            (Kind::Bytes { min, max }, Value::Bytes(b)) => (min..=max).contains(b),
            (Kind::Choice(words), Value::Choice(w)) => words.contains(w),
            (Kind::Text, Value::Text(t)) => !t.is_empty(),
            (Kind::Qdisc { .. }, Value::Qdisc(_)) => true,
            (Kind::Classes { max, .. }, Value::Classes(c)) => (1..=max).contains(&c.len()),
            (Kind::Hosts, Value::Hosts(h)) => !h.is_empty() && h.iter().all(|n| !n.is_empty()),
            (Kind::Hosts, Value::Nodes(n)) => !n.is_empty(),
            (Kind::PerHost { range }, Value::PerHost(h)) => {
                h.iter().all(|(name, x)| !name.is_empty() && range.contains(*x))
            }
            (Kind::PerHost { range }, Value::PerNode(n)) => n.iter().all(|(_, x)| range.contains(*x)),
            _ => false,
        }
    }
}

/// A value that a component refuses: the parameter's key (below the component's table, e.g.
/// `target` or `bulk.kind`) and what was expected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invalid {
    pub key: String,
    pub message: String,
}

impl Invalid {
    pub fn new(key: impl Into<String>, message: impl Into<String>) -> Self {
        Invalid { key: key.into(), message: message.into() }
    }
}

/// A registered component: its parameters, the checks that span several of them, and how to
/// build it (`B`, a function type of the component's family).
pub struct Component<B: 'static> {
    /// Name as written in scenario files.
    pub name: &'static str,
    /// What it is, one line, for listings.
    pub doc: &'static str,
    pub params: &'static [Param],
    /// Checks across parameters (each parameter's own range is checked from `params`).
    pub check: fn(&Config<B>) -> Result<(), Invalid>,
    pub build: B,
}

impl<B> fmt::Debug for Component<B> {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{}", self.name)
    }
}

/// No checks beyond each parameter's own range.
pub fn no_check<B>(_: &Config<B>) -> Result<(), Invalid> {
    Ok(())
}

/// A component with a value for each of its parameters, in the order of `params`.
pub struct Config<B: 'static> {
    of: &'static Component<B>,
    values: Vec<Value>,
}

impl<B> Config<B> {
    /// `of` with every parameter at its default.
    pub fn defaults(of: &'static Component<B>) -> Self {
        let values = of
            .params
            .iter()
            .map(|p| match p.kind {
                Kind::Qdisc { default, make } => Value::Qdisc(make(default)),
                _ => p.default.clone(),
            })
            .collect();
        Config { of, values }
    }

    pub fn component(&self) -> &'static Component<B> {
        self.of
    }

    pub fn name(&self) -> &'static str {
        self.of.name
    }

    /// The parameters with their values, in declaration order.
    pub fn iter(&self) -> impl Iterator<Item = (&'static Param, &Value)> {
        self.of.params.iter().zip(&self.values)
    }

    /// Set parameter `name`, refusing a value of the wrong type or out of range.
    pub fn set(&mut self, name: &str, value: Value) -> Result<(), Invalid> {
        let Some(i) = self.of.params.iter().position(|p| p.name == name) else {
            return Err(Invalid::new(name, format!("{} has no parameter `{name}`", self.of.name)));
        };
        if !self.of.params[i].admits(&value) {
            return Err(Invalid::new(name, format!("{value:?} is not a valid `{name}` for {}", self.of.name)));
        }
        self.values[i] = value;
        Ok(())
    }

    /// [`Config::set`] for building configurations in code; panics on a refused value.
    pub fn with(mut self, name: &str, value: Value) -> Self {
        self.set(name, value).unwrap_or_else(|e| panic!("{}", e.message));
        self
    }

    /// The component's checks across parameters.
    pub fn check(&self) -> Result<(), Invalid> {
        (self.of.check)(self)
    }

    /// The host names its parameters and its nested components' name, with their keys below
    /// the component's table (`classes[1].dst`), for the scenario to check.
    pub fn host_refs(&self) -> Vec<(String, String)> {
        let mut refs = Vec::new();
        for (p, v) in self.iter() {
            match (p.kind, v) {
                (_, Value::Hosts(names)) => refs.extend(names.iter().map(|n| (p.name.to_string(), n.clone()))),
                (_, Value::PerHost(values)) => {
                    refs.extend(values.iter().map(|(n, _)| (format!("{}.{n}", p.name), n.clone())))
                }
                (_, Value::Qdisc(q)) => {
                    refs.extend(q.host_refs().into_iter().map(|(k, n)| (format!("{}.{k}", p.name), n)))
                }
                (_, Value::Classes(cs)) => {
                    for (i, c) in cs.iter().enumerate() {
                        refs.extend(c.host_refs().into_iter().map(|(k, n)| (format!("{}[{i}].{k}", p.name), n)));
                    }
                }
                _ => {}
            }
        }
        refs
    }

    /// Every host name, here and in nested components, replaced by its node id.
    pub fn bind_hosts(&mut self, id: &dyn Fn(&str) -> u32) {
        for v in &mut self.values {
            match v {
                Value::Hosts(names) => *v = Value::Nodes(names.iter().map(|n| id(n)).collect()),
                Value::PerHost(values) => *v = Value::PerNode(values.iter().map(|(n, x)| (id(n), *x)).collect()),
                Value::Qdisc(q) => q.bind_hosts(id),
                Value::Classes(cs) => cs.iter_mut().for_each(|c| c.bind_hosts(id)),
                _ => {}
            }
        }
    }

    /// The value of `name`. The accessors below panic on a name or type the component does
    /// not declare: that is a bug in the component, which its tests of the defaults catch.
    pub fn get(&self, name: &str) -> &Value {
        match self.of.params.iter().position(|p| p.name == name) {
            Some(i) => &self.values[i],
            None => panic!("{} declares no parameter `{name}`", self.of.name),
        }
    }

    fn mistyped(&self, name: &str, want: &str) -> ! {
        panic!("{} parameter `{name}` is {:?}, not {want}", self.of.name, self.get(name))
    }

    /// The value of an optional parameter through `get`, `None` when unset.
    fn opt<T>(&self, name: &str, want: &str, get: fn(&Value) -> Option<T>) -> Option<T> {
        match self.get(name) {
            Value::Unset => None,
            v => Some(get(v).unwrap_or_else(|| self.mistyped(name, want))),
        }
    }

    /// The value of a parameter that always has one.
    fn one<T>(&self, name: &str, want: &str, get: fn(&Value) -> Option<T>) -> T {
        self.opt(name, want, get).unwrap_or_else(|| self.mistyped(name, want))
    }

    pub fn int(&self, name: &str) -> i64 {
        self.one(name, "a whole number", |v| if let Value::Int(x) = v { Some(*x) } else { None })
    }

    pub fn opt_int(&self, name: &str) -> Option<i64> {
        self.opt(name, "a whole number", |v| if let Value::Int(x) = v { Some(*x) } else { None })
    }

    pub fn real(&self, name: &str) -> f64 {
        self.one(name, "a real number", |v| if let Value::Real(x) = v { Some(*x) } else { None })
    }

    pub fn flag(&self, name: &str) -> bool {
        self.one(name, "a flag", |v| if let Value::Flag(x) = v { Some(*x) } else { None })
    }

    pub fn time(&self, name: &str) -> Time {
        self.one(name, "a time", |v| if let Value::Time(x) = v { Some(*x) } else { None })
    }

    pub fn opt_time(&self, name: &str) -> Option<Time> {
        self.opt(name, "a time", |v| if let Value::Time(x) = v { Some(*x) } else { None })
    }

    pub fn opt_rate(&self, name: &str) -> Option<u64> {
        self.opt(name, "a rate", |v| if let Value::Rate(x) = v { Some(*x) } else { None })
    }

    pub fn bytes(&self, name: &str) -> u64 {
        self.one(name, "a size", |v| if let Value::Bytes(x) = v { Some(*x) } else { None })
    }

    pub fn opt_bytes(&self, name: &str) -> Option<u64> {
        self.opt(name, "a size", |v| if let Value::Bytes(x) = v { Some(*x) } else { None })
    }

    pub fn choice(&self, name: &str) -> &'static str {
        self.one(name, "a choice", |v| if let Value::Choice(x) = v { Some(*x) } else { None })
    }

    pub fn text(&self, name: &str) -> &str {
        match self.get(name) {
            Value::Text(t) => t,
            _ => self.mistyped(name, "text"),
        }
    }

    /// A hosts parameter's node ids; the configuration must have been bound.
    pub fn opt_nodes(&self, name: &str) -> Option<&[u32]> {
        match self.get(name) {
            Value::Unset => None,
            Value::Nodes(n) => Some(n),
            _ => self.mistyped(name, "bound hosts (see `bind_hosts`)"),
        }
    }

    /// A per-host parameter's numbers by node id; the configuration must have been bound.
    pub fn per_node(&self, name: &str) -> &[(u32, f64)] {
        match self.get(name) {
            Value::PerNode(n) => n,
            _ => self.mistyped(name, "bound numbers per host (see `bind_hosts`)"),
        }
    }

    pub fn classes(&self, name: &str) -> &[Config<()>] {
        match self.get(name) {
            Value::Classes(c) => c,
            _ => self.mistyped(name, "classes"),
        }
    }

    /// A nested component of type `T` (the family that declared the parameter knows which).
    pub fn nested<T: 'static>(&self, name: &str) -> &T {
        match self.get(name) {
            Value::Qdisc(q) => q.as_any().downcast_ref().unwrap_or_else(|| self.mistyped(name, "a nested component")),
            _ => self.mistyped(name, "a nested component"),
        }
    }
}

/// A component configured inside another's parameters (the child qdisc of a classful qdisc),
/// seen only through what every [`Config`] does, so that this module names no family.
pub trait Nested: fmt::Debug + Send + Sync {
    fn name(&self) -> &'static str;
    fn host_refs(&self) -> Vec<(String, String)>;
    fn bind_hosts(&mut self, id: &dyn Fn(&str) -> u32);
    fn as_any(&self) -> &dyn Any;
    fn boxed(&self) -> Box<dyn Nested>;
    /// Equal to `other`: of the same family, the same component and equal values.
    fn equals(&self, other: &dyn Nested) -> bool;
}

impl<B: Sync> Nested for Config<B> {
    fn name(&self) -> &'static str {
        self.of.name
    }

    fn host_refs(&self) -> Vec<(String, String)> {
        Config::host_refs(self)
    }

    fn bind_hosts(&mut self, id: &dyn Fn(&str) -> u32) {
        Config::bind_hosts(self, id)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn boxed(&self) -> Box<dyn Nested> {
        Box::new(self.clone())
    }

    fn equals(&self, other: &dyn Nested) -> bool {
        other.as_any().downcast_ref::<Self>().is_some_and(|o| o == self)
    }
}

impl Clone for Box<dyn Nested> {
    fn clone(&self) -> Self {
        self.boxed()
    }
}

impl PartialEq for dyn Nested {
    fn eq(&self, other: &Self) -> bool {
        self.equals(other)
    }
}

impl<B> Clone for Config<B> {
    fn clone(&self) -> Self {
        Config { of: self.of, values: self.values.clone() }
    }
}

impl<B> PartialEq for Config<B> {
    fn eq(&self, other: &Self) -> bool {
        self.of.name == other.of.name && self.values == other.values
    }
}

impl<B> fmt::Debug for Config<B> {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let mut s = f.debug_struct(self.of.name);
        for (p, v) in self.iter() {
            s.field(p.name, v);
        }
        s.finish()
    }
}

/// A family of components (queue disciplines, congestion controls, ...): the type its members
/// build with, the registry of every member a scenario can name, and how errors and the JSON
/// schema name one member (`("qdisc", "Qdisc")`). Each family implements it beside its
/// registry; `scenario` lists them, with how listings present them, in [`FAMILIES`].
///
/// [`FAMILIES`]: crate::scenario::FAMILIES
pub trait Family: Sized + 'static {
    const REGISTRY: &'static [&'static Component<Self>];
    /// One member in errors ("unknown qdisc kind `x`"), and the schema's name for the family.
    const NAMES: (&'static str, &'static str);
}

/// Declares a family in its module: the `Component` and `Config` of its `Build` type, the
/// `REGISTRY` of its members (the registration line a new member adds itself to) and its
/// [`Family`] impl with the names errors and the schema use.
macro_rules! family {
    ($build:ident, [$($member:expr),* $(,)?], $one:literal, $schema:literal) => {
        /// A registered member of the family: its parameters and how to build it.
        pub type Component = $crate::params::Component<$build>;
        /// A member with a value for each of its parameters.
        pub type Config = $crate::params::Config<$build>;
        /// Every member a scenario can name.
        pub static REGISTRY: &[&Component] = &[$($member),*];
        impl $crate::params::Family for $build {
            const REGISTRY: &'static [&'static Component] = REGISTRY;
            const NAMES: (&'static str, &'static str) = ($one, $schema);
        }
    };
}
pub(crate) use family;

impl<B: Family> Component<B> {
    /// The registered component of its family called `name`.
    pub fn find(name: &str) -> Option<&'static Self> {
        find(B::REGISTRY, name)
    }
}

impl<B: Family> Config<B> {
    /// Registered component `name` with its defaults; panics on an unregistered name (callers
    /// name components in code).
    pub fn named(name: &str) -> Self {
        let component = Component::find(name);
        Config::defaults(component.unwrap_or_else(|| panic!("no {} `{name}` is registered", B::NAMES.0)))
    }
}

/// The component called `name` among `registry`.
pub fn find<B>(registry: &'static [&'static Component<B>], name: &str) -> Option<&'static Component<B>> {
    registry.iter().copied().find(|c| c.name == name)
}

/// Every component of `registry` at its defaults, each default checked against its own
/// parameter's range, then made whole by `complete` (a value for each required parameter)
/// and passed through the component's own checks; a registry's tests then build them.
#[cfg(test)]
pub(crate) fn checked_defaults<B>(
    registry: &'static [&'static Component<B>],
    complete: fn(Config<B>) -> Config<B>,
) -> impl Iterator<Item = Config<B>> {
    registry.iter().map(move |component| {
        let config = Config::defaults(component);
        for (param, value) in config.iter() {
            assert!(param.admits(value), "{}.{} default {value:?}", component.name, param.name);
        }
        let config = complete(config);
        assert_eq!(config.check(), Ok(()), "{}", component.name);
        config
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    static TEST: Component<()> = Component {
        name: "test",
        doc: "a component to test configurations with",
        params: &[
            Param {
                name: "limit",
                kind: Kind::Int { min: 1, max: 10, unit: "packets" },
                default: Value::Int(5),
                doc: "",
            },
            Param { name: "threshold", kind: Kind::Time { min: 0 }, default: Value::Unset, doc: "" },
        ],
        check: no_check,
        build: (),
    };

    #[test]
    fn ranges_admit_their_bounds_as_declared() {
        let half_open = Range { min: 0.001, min_open: false, max: 1.0, max_open: true };
        assert!(half_open.contains(0.001) && !half_open.contains(1.0) && half_open.contains(0.999));
        assert!(!Range::POSITIVE.contains(0.0) && Range::POSITIVE.contains(1e300));
        assert!(!Range::POSITIVE.contains(f64::INFINITY) && !Range::POSITIVE.contains(f64::NAN));
        assert_eq!(half_open.to_string(), "[0.001, 1)");
        assert_eq!(Range::POSITIVE.to_string(), "> 0");
        let mut c = Config::defaults(&TEST);
        assert!(c.set("limit", Value::Int(0)).is_err());
        assert!(c.set("limit", Value::Int(10)).is_ok());
        assert!(c.set("threshold", Value::Unset).is_ok(), "an optional parameter may be unset");
        assert!(c.set("limit", Value::Unset).is_err(), "a parameter with a default may not");
        assert!(c.set("rate", Value::Int(1)).is_err(), "an undeclared parameter is refused");
    }
}
