//! The scenario's node names: each declared once, looked up by every key that names one.

use super::limits::*;
use super::model::Scenario;
use super::KeyError;
use std::collections::{BTreeMap, BTreeSet};

/// The declared hosts and routers, with sets to look names up in (a scenario may name a
/// thousand nodes thousands of times).
pub(super) struct Nodes<'a> {
    hosts: &'a [String],
    routers: &'a [String],
    all: BTreeSet<&'a str>,
    host_set: BTreeSet<&'a str>,
}

impl<'a> Nodes<'a> {
    pub(super) fn check(s: &'a Scenario) -> Result<Self, KeyError> {
        if s.hosts.len() + s.routers.len() > MAX_NODES {
            return Err(KeyError::new(
                if s.routers.is_empty() { "hosts" } else { "routers" },
                format!(
                    "{} hosts and {} routers are more than the {MAX_NODES} nodes a scenario may have",
                    s.hosts.len(),
                    s.routers.len()
                ),
            ));
        }
        let mut seen: BTreeMap<&str, String> = BTreeMap::new();
        let declared = s.hosts.iter().enumerate().map(|(i, n)| (format!("hosts[{i}]"), n));
        let declared = declared.chain(s.routers.iter().enumerate().map(|(i, n)| (format!("routers[{i}]"), n)));
        for (key, name) in declared {
            check_name(key.clone(), name, "node")?;
            if let Some(first) = seen.get(name.as_str()) {
                return Err(KeyError::new(key, format!("duplicate node name \"{name}\" (also {first})")));
            }
            seen.insert(name, key);
        }
        let all = seen.keys().copied().collect();
        let host_set = s.hosts.iter().map(String::as_str).collect();
        Ok(Nodes { hosts: &s.hosts, routers: &s.routers, all, host_set })
    }

    pub(super) fn is_host(&self, name: &str) -> bool {
        self.host_set.contains(name)
    }

    /// Checks that `name` is a declared node.
    pub(super) fn known(&self, key: String, name: &str) -> Result<(), KeyError> {
        if self.all.contains(name) {
            return Ok(());
        }
        let declared = self.hosts.iter().chain(self.routers);
        let expected = declared.map(String::as_str).collect::<Vec<_>>().join(", ");
        Err(KeyError::new(key, format!("unknown node \"{name}\", expected one of: {expected}")))
    }

    /// Checks that `name` is a declared host (flows and routes lead to hosts).
    /// The hosts a component's parameters name (an htb class's `dst`) exist.
    pub(super) fn check_host_refs(&self, config: &crate::qdisc::Config, key: &str) -> Result<(), KeyError> {
        config.host_refs().into_iter().try_for_each(|(sub, name)| self.host(format!("{key}.{sub}"), &name))
    }

    pub(super) fn host(&self, key: String, name: &str) -> Result<(), KeyError> {
        self.known(key.clone(), name)?;
        if self.is_host(name) {
            return Ok(());
        }
        Err(KeyError::new(key, format!("\"{name}\" is a router, expected a host: {}", self.hosts.join(", "))))
    }
}
