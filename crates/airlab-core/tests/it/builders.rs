//! Scenario files for the tests, written by builders: a test names what is special about its
//! scenario and the builders write the rest the same way everywhere.
//!
//! Values are TOML text (`"10Mbit"` with its quotes, `{ kind = "bulk" }`); the methods named
//! after a string key (`rate`, `delay`, `cc`, `start`, ...) add the quotes themselves. Every
//! table is written one `key = value` per line, in the order the keys were set, so a test may
//! still edit the text with `str::replace` (the scenario checks do, to break one key at a time).

use std::fmt::{self, Display, Formatter};

/// `{ kind = "bulk" }`: a TCP sender that always has data.
pub const BULK: &str = r#"{ kind = "bulk" }"#;

/// `{ kind = "ping" }` with its default interval and size.
pub const PING: &str = r#"{ kind = "ping" }"#;

/// Paper 004's rate schedule: 24 Mbit/s for a second, then 6 Mbit/s for a second, and again.
pub const ALTERNATING_24_6: &str =
    r#"{ period = "2s", steps = [{ at = "0s", rate = "24Mbit" }, { at = "1s", rate = "6Mbit" }] }"#;

/// A pfifo qdisc of `limit` packets.
pub fn pfifo(limit: u32) -> String {
    format!(r#"{{ kind = "pfifo", limit = {limit} }}"#)
}

/// A UDP sender at `rate` (IP bits per second).
pub fn udp(rate: &str) -> String {
    format!(r#"{{ kind = "udp", rate = "{rate}" }}"#)
}

fn quoted(text: &str) -> String {
    format!("\"{text}\"")
}

fn names(names: &[&str]) -> String {
    let items: Vec<String> = names.iter().map(|n| quoted(n)).collect();
    format!("[{}]", items.join(", "))
}

/// One table's keys with their values as TOML text, `name` first.
#[derive(Default)]
struct Table {
    name: Option<String>,
    keys: Vec<(String, String)>,
}

impl Table {
    fn named(name: &str) -> Self {
        Self { name: Some(name.to_string()), keys: Vec::new() }
    }

    fn set(&mut self, key: &str, value: impl Display) {
        self.keys.push((key.to_string(), value.to_string()));
    }

    /// The table under `header` (`[metrics]`, `[[link]]`), after a blank line.
    fn write(&self, f: &mut Formatter, header: &str) -> fmt::Result {
        writeln!(f, "\n{header}")?;
        self.write_keys(f)
    }

    fn write_keys(&self, f: &mut Formatter) -> fmt::Result {
        if let Some(name) = &self.name {
            writeln!(f, "name = {}", quoted(name))?;
        }
        self.keys.iter().try_for_each(|(key, value)| writeln!(f, "{key} = {value}"))
    }
}

/// A scenario file: its header, `[metrics]`, then its links, Wi-Fi networks and flows in the
/// order they were added (the order gives them their indexes, `link[1]`, `flow[0]`).
pub struct Scenario {
    head: Table,
    metrics: Table,
    links: Vec<Link>,
    wifi: Vec<Wifi>,
    flows: Vec<Flow>,
}

impl Scenario {
    pub fn new(name: &str, duration: &str) -> Self {
        let mut head = Table::named(name);
        head.set("duration", quoted(duration));
        Self { head, metrics: Table::default(), links: Vec::new(), wifi: Vec::new(), flows: Vec::new() }
    }

    pub fn hosts(mut self, hosts: &[&str]) -> Self {
        self.head.set("hosts", names(hosts));
        self
    }

    pub fn routers(mut self, routers: &[&str]) -> Self {
        self.head.set("routers", names(routers));
        self
    }

    /// `senders` -- r1 == `bottleneck` == r2 -- `receivers`, over 1 ms access links at
    /// `access_rate`: the hosts, the routers, then the links in that order from left to right.
    pub fn dumbbell(self, senders: &[&str], receivers: &[&str], access_rate: &str, bottleneck: Link) -> Self {
        let access = |from: &str, to: &str| Link::new(from, to, access_rate, "1ms");
        let hosts = [senders, receivers].concat();
        self.hosts(&hosts)
            .routers(&["r1", "r2"])
            .links(senders.iter().map(|s| access(s, "r1")))
            .link(bottleneck)
            .links(receivers.iter().map(|r| access("r2", r)))
    }

    /// Per-packet host receive jitter; closed-form checks turn it off with "0s".
    pub fn host_jitter(mut self, jitter: &str) -> Self {
        self.head.set("host_jitter", quoted(jitter));
        self
    }

    pub fn warmup(mut self, warmup: &str) -> Self {
        self.metrics.set("warmup", quoted(warmup));
        self
    }

    pub fn interval(mut self, interval: &str) -> Self {
        self.metrics.set("interval", quoted(interval));
        self
    }

    /// Any other key of `[metrics]`, its value TOML text.
    pub fn metric(mut self, key: &str, value: impl Display) -> Self {
        self.metrics.set(key, value);
        self
    }

    pub fn links(mut self, links: impl IntoIterator<Item = Link>) -> Self {
        self.links.extend(links);
        self
    }

    pub fn link(self, link: Link) -> Self {
        self.links([link])
    }

    pub fn wifi(mut self, wifi: Wifi) -> Self {
        self.wifi.push(wifi);
        self
    }

    pub fn flow(self, flow: Flow) -> Self {
        self.flows([flow])
    }

    pub fn flows(mut self, flows: impl IntoIterator<Item = Flow>) -> Self {
        self.flows.extend(flows);
        self
    }
}

impl Display for Scenario {
    fn fmt(&self, f: &mut Formatter) -> fmt::Result {
        self.head.write_keys(f)?;
        if !self.metrics.keys.is_empty() {
            self.metrics.write(f, "[metrics]")?;
        }
        self.links.iter().try_for_each(|link| link.0.write(f, "[[link]]"))?;
        self.wifi.iter().try_for_each(|wifi| wifi.fmt(f))?;
        self.flows.iter().try_for_each(|flow| flow.0.write(f, "[[flow]]"))
    }
}

/// A `[[link]]` between two nodes.
pub struct Link(Table);

impl Link {
    pub fn new(a: &str, b: &str, rate: &str, delay: &str) -> Self {
        let mut table = Table::default();
        table.set("between", names(&[a, b]));
        table.set("rate", quoted(rate));
        table.set("delay", quoted(delay));
        Self(table)
    }

    /// The link named "bottleneck" between the routers r1 and r2.
    pub fn bottleneck(rate: &str, delay: &str) -> Self {
        Self::new("r1", "r2", rate, delay).name("bottleneck")
    }

    pub fn name(mut self, name: &str) -> Self {
        self.0.name = Some(name.to_string());
        self
    }

    /// The qdisc of both directions.
    pub fn qdisc(self, qdisc: impl Display) -> Self {
        self.key("qdisc", qdisc)
    }

    /// The qdisc of the forward direction (from the first node of `between`) only.
    pub fn forward_qdisc(self, qdisc: impl Display) -> Self {
        self.key("forward", format!("{{ qdisc = {qdisc} }}"))
    }

    pub fn key(mut self, key: &str, value: impl Display) -> Self {
        self.0.set(key, value);
        self
    }

    /// More keys, as (key, TOML value) pairs.
    pub fn keys(self, keys: &[(&str, &str)]) -> Self {
        keys.iter().fold(self, |link, (key, value)| link.key(key, value))
    }
}

/// A `[[flow]]`.
pub struct Flow(Table);

impl Flow {
    pub fn new(from: &str, to: &str) -> Self {
        let mut table = Table::default();
        table.set("from", quoted(from));
        table.set("to", quoted(to));
        Self(table)
    }

    /// A bulk TCP flow under congestion control `cc`.
    pub fn bulk(from: &str, to: &str, cc: &str) -> Self {
        Self::new(from, to).cc(cc).app(BULK)
    }

    pub fn name(mut self, name: &str) -> Self {
        self.0.name = Some(name.to_string());
        self
    }

    pub fn cc(self, cc: &str) -> Self {
        self.key("cc", quoted(cc))
    }

    pub fn cc_params(self, params: impl Display) -> Self {
        self.key("cc_params", params)
    }

    pub fn app(self, app: impl Display) -> Self {
        self.key("app", app)
    }

    pub fn tcp(self, options: impl Display) -> Self {
        self.key("tcp", options)
    }

    pub fn start(self, start: &str) -> Self {
        self.key("start", quoted(start))
    }

    pub fn stop(self, stop: &str) -> Self {
        self.key("stop", quoted(stop))
    }

    pub fn count(self, count: u32) -> Self {
        self.key("count", count)
    }

    pub fn dscp(self, dscp: u8) -> Self {
        self.key("dscp", dscp)
    }

    fn key(mut self, key: &str, value: impl Display) -> Self {
        self.0.set(key, value);
        self
    }
}

/// A `[[wifi]]` network with its `[[wifi.node]]` tables.
pub struct Wifi {
    network: Table,
    nodes: Vec<Table>,
}

impl Wifi {
    /// An infrastructure BSS.
    pub fn bss(standard: &str, ap: &str, stations: &[&str]) -> Self {
        let mut network = Table::default();
        network.set("standard", quoted(standard));
        network.set("ap", quoted(ap));
        network.set("stations", names(stations));
        Self { network, nodes: Vec::new() }
    }

    /// An ad hoc or mesh network.
    pub fn mesh(standard: &str, nodes: &[&str]) -> Self {
        let mut network = Table::default();
        network.set("standard", quoted(standard));
        network.set("nodes", names(nodes));
        Self { network, nodes: Vec::new() }
    }

    pub fn name(mut self, name: &str) -> Self {
        self.network.name = Some(name.to_string());
        self
    }

    /// The non-HT rate of 802.11a.
    pub fn rate(self, rate: &str) -> Self {
        self.key("rate", quoted(rate))
    }

    pub fn key(mut self, key: &str, value: impl Display) -> Self {
        self.network.set(key, value);
        self
    }

    /// The settings of member `name`, as (key, TOML value) pairs.
    pub fn node(mut self, name: &str, keys: &[(&str, &str)]) -> Self {
        let mut node = Table::named(name);
        keys.iter().for_each(|(key, value)| node.set(key, value));
        self.nodes.push(node);
        self
    }
}

impl Display for Wifi {
    fn fmt(&self, f: &mut Formatter) -> fmt::Result {
        self.network.write(f, "[[wifi]]")?;
        self.nodes.iter().try_for_each(|node| node.write(f, "[[wifi.node]]"))
    }
}
