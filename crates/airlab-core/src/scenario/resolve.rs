//! Semantic checks and resolution: from a scenario that parsed to the explicit form the
//! simulator runs. Each check names the key path it is about and what was expected.

use super::app_load::{app_loads, check_app_load, check_event_rows};
use super::components;
use super::limits::*;
use super::model::*;
use super::nodes::Nodes;
use super::resolve_wifi::resolve_wifi;
use super::resolved::*;
use super::routing::{self};
use super::units::{Bytes, Duration};
use super::KeyError;
use crate::app;
use crate::tcp::cc;
use crate::wifi::device;
use crate::wifi::device::DeviceLayer;
use std::collections::BTreeMap;

/// RFC 879's minimum and the largest MSS that fits an IPv4 packet.
const MSS_RANGE: std::ops::RangeInclusive<u32> = 536..=65_495;

pub(crate) fn resolve(scenario: Scenario) -> Result<Resolved, KeyError> {
    let s = &scenario;
    if s.duration.0 == 0 {
        return Err(KeyError::new("duration", "must be greater than 0, such as \"60s\""));
    }
    check_name("name", &s.name, "scenario")?;
    let nodes = Nodes::check(s)?;
    let directions = resolve_links(s, &nodes)?;
    let link_names: Vec<&str> = directions.iter().step_by(2).map(|d| d.link.as_str()).collect();
    let wifi = resolve_wifi(s, &nodes, &link_names)?;
    check_routes(s, &nodes)?;
    let flows = resolve_flows(s, &nodes)?;
    check_metrics(s, &flows)?;
    check_host_jitter(s)?;
    let next_hop = routing::next_hops(s);
    routing::check_paths(s, &next_hop)?;
    let resolved = Resolved { directions, next_hop, flows, wifi, scenario };
    check_app_routes(&resolved)?;
    let loads = app_loads(&resolved);
    check_series_size(&resolved, &loads)?;
    check_app_load(&resolved, &loads)?;
    check_queues(&resolved)?;
    Ok(resolved)
}

fn resolve_links(s: &Scenario, nodes: &Nodes) -> Result<Vec<ResolvedDirection>, KeyError> {
    let mut names: BTreeMap<String, usize> = BTreeMap::new();
    let mut pairs: BTreeMap<[&str; 2], usize> = BTreeMap::new();
    if s.links.len() > MAX_LINKS {
        return Err(KeyError::new(
            "link",
            format!("{} links are more than the {MAX_LINKS} a scenario may have", s.links.len()),
        ));
    }
    let mut directions = Vec::with_capacity(2 * s.links.len());
    for (i, link) in s.links.iter().enumerate() {
        let key = format!("link[{i}]");
        let [a, b] = &link.between;
        for (j, end) in link.between.iter().enumerate() {
            nodes.known(format!("{key}.between[{j}]"), end)?;
        }
        if a == b {
            return Err(KeyError::new(format!("{key}.between"), format!("a link cannot connect \"{a}\" to itself")));
        }
        let pair = if a < b { [a.as_str(), b.as_str()] } else { [b.as_str(), a.as_str()] };
        if let Some(first) = pairs.insert(pair, i) {
            return Err(KeyError::new(
                format!("{key}.between"),
                format!("\"{a}\" and \"{b}\" are already connected by link[{first}]"),
            ));
        }
        // A default name joins two checked node names.
        if let Some(name) = &link.name {
            check_name(format!("{key}.name"), name, "link")?;
        }
        let name = link.name.clone().unwrap_or_else(|| format!("{a}-{b}"));
        if let Some(first) = names.insert(name.clone(), i) {
            return Err(KeyError::new(
                format!("{key}.name"),
                format!("duplicate link name \"{name}\" (also link[{first}])"),
            ));
        }
        // Each table is checked where it is written, even where both directions override it.
        check_direction_keys(&key, &link.both, nodes)?;
        for (side, table) in [("forward", &link.forward), ("reverse", &link.reverse)] {
            if let Some(table) = table {
                check_direction_keys(&format!("{key}.{side}"), table, nodes)?;
            }
        }
        directions.push(resolve_direction(&key, link, &name, "forward", [a, b])?);
        directions.push(resolve_direction(&key, link, &name, "reverse", [b, a])?);
    }
    Ok(directions)
}

/// Checks the settings of one table of a link (its shared keys at `at` = `link[i]`, or a
/// `forward`/`reverse` table) on their own.
fn check_direction_keys(at: &str, d: &LinkDirection, nodes: &Nodes) -> Result<(), KeyError> {
    let key = |field: &str| format!("{at}.{field}");
    if d.rate.is_some_and(|r| r.0 == 0) {
        return Err(KeyError::new(key("rate"), "rate must be greater than 0, such as \"10Mbit\""));
    }
    if let Some(loss) = d.loss.filter(|l| !(0.0..1.0).contains(l)) {
        return Err(KeyError::new(
            key("loss"),
            format!("loss must be a probability in [0, 1), such as 0.01; got {loss}"),
        ));
    }
    if let Some(device_queue) = d.device_queue.filter(|&q| q > MAX_DEVICE_QUEUE) {
        return Err(KeyError::new(
            key("device_queue"),
            format!(
                "device_queue of {device_queue} packets is unrealistic, expected at most \
                 {MAX_DEVICE_QUEUE} (put long queues in `qdisc`)"
            ),
        ));
    }
    if d.device_queue_bytes.is_some_and(|b| b.0 == 0) {
        return Err(KeyError::new(
            key("device_queue_bytes"),
            "device_queue_bytes must be greater than 0, such as \"3kB\"",
        ));
    }
    if let Some(overhead) = d.overhead.filter(|&o| o > MAX_OVERHEAD) {
        return Err(KeyError::new(
            key("overhead"),
            format!("overhead must be 0 to {MAX_OVERHEAD} bytes of framing per packet, got {overhead}"),
        ));
    }
    if let Some(table) = &d.qdisc {
        let qdisc = components::kind_table::<crate::qdisc::Build>(table, &key("qdisc"))?;
        nodes.check_host_refs(&qdisc, &key("qdisc"))?;
    }
    Ok(())
}

/// One direction's settings: its `forward`/`reverse` table layered over the link's shared ones.
struct Layers<'a> {
    key: &'a str,
    side: &'a str,
    own: Option<&'a LinkDirection>,
    shared: &'a LinkDirection,
}

impl Layers<'_> {
    /// The setting and the key it was written at, so that errors point there.
    fn get<T>(&self, field: &str, get: fn(&LinkDirection) -> Option<T>) -> Option<(T, String)> {
        let (key, side) = (self.key, self.side);
        match self.own.and_then(get) {
            Some(value) => Some((value, format!("{key}.{side}.{field}"))),
            None => get(self.shared).map(|value| (value, format!("{key}.{field}"))),
        }
    }
}

fn resolve_direction(
    key: &str,
    link: &Link,
    name: &str,
    side: &str,
    [from, to]: [&String; 2],
) -> Result<ResolvedDirection, KeyError> {
    let own = if side == "forward" { &link.forward } else { &link.reverse };
    let layers = Layers { key, side, own: own.as_ref(), shared: &link.both };
    let required = |field: &str| {
        KeyError::new(
            format!("{key}.{field}"),
            format!(
                "missing {field} for the {side} direction ({from} -> {to}); \
                 set `{field}` on the link or in its `{side}` table"
            ),
        )
    };
    // Every value was checked in the table it is written in (`check_direction_keys`).
    let (rate, _) = layers.get("rate", |d| d.rate).ok_or_else(|| required("rate"))?;
    let (delay, _) = layers.get("delay", |d| d.delay).ok_or_else(|| required("delay"))?;
    let loss = layers.get("loss", |d| d.loss).map_or(0.0, |(l, _)| l);
    let device_queue = layers.get("device_queue", |d| d.device_queue).map_or(1, |(q, _)| q);
    let device_queue_bytes = layers.get("device_queue_bytes", |d| d.device_queue_bytes).map(|(b, _)| b);
    let overhead = layers.get("overhead", |d| d.overhead).map_or(0, |(o, _)| o);
    let qdisc = match layers.get("qdisc", |d| d.qdisc.clone()) {
        Some((table, key)) => components::kind_table::<crate::qdisc::Build>(&table, &key)?,
        None => crate::qdisc::Config::named(DEFAULT_QDISC),
    };
    Ok(ResolvedDirection {
        link: name.to_string(),
        from: from.clone(),
        to: to.clone(),
        rate,
        delay,
        loss,
        overhead,
        qdisc,
        device_queue,
        device_queue_bytes,
    })
}

fn check_routes(s: &Scenario, nodes: &Nodes) -> Result<(), KeyError> {
    let adjacent = routing::neighbours(s);
    let mut seen: BTreeMap<(&str, &str), usize> = BTreeMap::new();
    for (j, route) in s.routes.iter().enumerate() {
        let key = format!("route[{j}]");
        nodes.known(format!("{key}.at"), &route.at)?;
        nodes.host(format!("{key}.to"), &route.to)?;
        nodes.known(format!("{key}.via"), &route.via)?;
        if route.at == route.to {
            return Err(KeyError::new(format!("{key}.to"), format!("\"{}\" needs no route to itself", route.at)));
        }
        let neighbours = adjacent.get(route.at.as_str()).map_or(&[][..], Vec::as_slice);
        if !neighbours.contains(&route.via.as_str()) {
            return Err(KeyError::new(
                format!("{key}.via"),
                format!(
                    "\"{}\" is not a neighbour of \"{}\", expected one of: {}",
                    route.via,
                    route.at,
                    neighbours.join(", ")
                ),
            ));
        }
        if nodes.is_host(&route.via) && route.via != route.to {
            return Err(KeyError::new(
                format!("{key}.via"),
                format!(
                    "\"{}\" is a host and does not forward; expected a router or \"{}\" itself",
                    route.via, route.to
                ),
            ));
        }
        if let Some(first) = seen.insert((&route.at, &route.to), j) {
            return Err(KeyError::new(
                key,
                format!("duplicate route at \"{}\" to \"{}\" (also route[{first}])", route.at, route.to),
            ));
        }
    }
    Ok(())
}

fn resolve_flows(s: &Scenario, nodes: &Nodes) -> Result<Vec<ResolvedFlow>, KeyError> {
    let mut flows = Vec::new();
    let mut names: BTreeMap<String, usize> = BTreeMap::new();
    let mut copies: u64 = 0;
    // State the flows' algorithms share (FaiRTT's bottleneck registry), to find flows whose
    // parameters conflict over it before the run.
    let mut shared = cc::Shared::default();
    for (i, flow) in s.flows.iter().enumerate() {
        let key = format!("flow[{i}]");
        copies += u64::from(flow.count);
        if copies > MAX_FLOWS {
            return Err(KeyError::new(
                format!("{key}.count"),
                format!(
                    "count = {} brings the scenario to {copies} flows, more than the {MAX_FLOWS} it may have",
                    flow.count
                ),
            ));
        }
        if flow.from.hosts().is_empty() {
            return Err(KeyError::new(format!("{key}.from"), "a list of senders must name at least one host"));
        }
        for host in flow.from.hosts() {
            nodes.host(format!("{key}.from"), host)?;
            if *host == flow.to {
                return Err(KeyError::new(
                    format!("{key}.to"),
                    format!("a flow must go to another host, but from = to = \"{host}\""),
                ));
            }
        }
        nodes.host(format!("{key}.to"), &flow.to)?;
        let app = components::kind_table::<app::Build>(&flow.app, &format!("{key}.app"))?;
        let cc = resolve_cc(&key, flow, &app)?;
        if let Some(config) = &cc {
            let mut env = cc::CcEnv { rng: crate::sim::Rng::stream(0, "check"), shared: &mut shared, conn: i as u32 };
            cc::create(config, &mut env).map_err(|e| KeyError::new(format!("{key}.cc_params"), e))?;
        }
        check_tcp(&key, &flow.tcp)?;
        if flow.dscp > MAX_DSCP {
            let message = format!("dscp must be 0 to {MAX_DSCP} (the 6 bits of the DS field), got {}", flow.dscp);
            return Err(KeyError::new(format!("{key}.dscp"), message));
        }
        let start = flow.start.unwrap_or_default();
        let stop = flow.stop.unwrap_or(s.duration);
        if stop > s.duration {
            return Err(KeyError::new(
                format!("{key}.stop"),
                format!("stop = {stop} is after the end of the scenario (duration = {})", s.duration),
            ));
        }
        if start >= stop {
            return Err(KeyError::new(format!("{key}.start"), format!("start = {start} must be before stop = {stop}")));
        }
        if flow.count == 0 {
            return Err(KeyError::new(format!("{key}.count"), "count must be at least 1"));
        }
        if let Some(name) = &flow.name {
            check_name(format!("{key}.name"), name, "flow")?;
        }
        let base = flow.name.clone().unwrap_or_else(|| format!("flow{i}"));
        for k in 1..=flow.count {
            let name = if flow.count == 1 { base.clone() } else { format!("{base}.{k}") };
            if let Some(first) = names.insert(name.clone(), i) {
                return Err(KeyError::new(
                    format!("{key}.name"),
                    format!("duplicate flow name \"{name}\" (also from flow[{first}])"),
                ));
            }
            flows.push(ResolvedFlow {
                name,
                from: flow.from.of_copy(k as usize - 1).to_string(),
                to: flow.to.clone(),
                cc: cc.clone(),
                app: app.clone(),
                start: start.0,
                stop: stop.0,
                tcp: flow.tcp.filled(),
                dscp: flow.dscp,
            });
        }
    }
    Ok(flows)
}

/// The congestion control of a TCP flow, with its parameters; none for a UDP flow.
fn resolve_cc(key: &str, flow: &Flow, app: &app::Config) -> Result<Option<cc::Config>, KeyError> {
    let (kind, is_tcp) = (app.name(), app::uses_tcp(app));
    let (name_key, params_key) = (format!("{key}.cc"), format!("{key}.cc_params"));
    match (&flow.cc, is_tcp) {
        (None, true) => {
            let expected: Vec<&str> = cc::REGISTRY.iter().map(|c| c.name).collect();
            Err(KeyError::new(
                name_key,
                format!("missing congestion control for a {kind} flow, expected one of: {}", expected.join(", ")),
            ))
        }
        (Some(name), true) => components::cc(name, &name_key, &flow.cc_params, &params_key).map(Some),
        (Some(_), false) => Err(KeyError::new(
            name_key,
            format!("a {kind} flow does not use TCP, so it takes no congestion control; remove `cc`"),
        )),
        (None, false) if !flow.cc_params.is_empty() => Err(KeyError::new(
            params_key,
            format!("a {kind} flow does not use TCP, so it takes no congestion control parameters"),
        )),
        (None, false) => Ok(None),
    }
}

/// The checks of each `[[flow]]`'s app that need the rate of its first hop (a UDP flow's
/// datagrams per second), from its first copy's sender.
fn check_app_routes(r: &Resolved) -> Result<(), KeyError> {
    let mut first = 0;
    for (i, flow) in r.scenario.flows.iter().enumerate() {
        let f = &r.flows[first];
        first += flow.count as usize;
        let bps = r.first_hop_rate(&f.from, &f.to);
        app::check_route(&f.app, bps).map_err(|e| KeyError::new(format!("flow[{i}].app.{}", e.key), e.message))?;
    }
    Ok(())
}

/// The time series, the batches table and the tables of events (ping replies, connections)
/// hold at most [`MAX_SERIES_ROWS`] rows together: one per sample and entity, one per batch and
/// flow, and those of [`check_event_rows`].
fn check_series_size(r: &Resolved, loads: &[app::Load]) -> Result<(), KeyError> {
    let s = &r.scenario;
    let samples = s.duration.0 / s.metrics.interval.0;
    let wifi: usize = r.wifi.iter().map(|w| w.nodes.len() + w.links.len()).sum();
    let entities = (r.flows.len() + 2 * r.directions.len() + wifi) as u64;
    let rows = samples.saturating_mul(entities);
    if rows > MAX_SERIES_ROWS {
        return Err(KeyError::new(
            "metrics.interval",
            format!(
                "interval = {} over duration = {} gives {samples} samples of {entities} flows, queues and links: \
                 {rows} rows, more than the {MAX_SERIES_ROWS} the time series may hold; sample less often",
                s.metrics.interval, s.duration
            ),
        ));
    }
    let mut batch_rows = 0;
    if let Some(b) = &s.metrics.batches {
        batch_rows = u64::from(b.count) * r.flows.len() as u64;
        if rows + batch_rows > MAX_SERIES_ROWS {
            return Err(KeyError::new(
                "metrics.batches.count",
                format!(
                    "count = {} batches of {} flows are {batch_rows} rows, which with the time series' {rows} \
                     are more than the {MAX_SERIES_ROWS} the tables may hold",
                    b.count,
                    r.flows.len()
                ),
            ));
        }
    }
    check_event_rows(r, loads, rows + batch_rows)
}

/// The queues every interface allocates when built stay within [`MAX_QUEUES`] together: each
/// qdisc's (nested ones included) and, under mac80211, a TXQ of `flows` queues per peer.
fn check_queues(r: &Resolved) -> Result<(), KeyError> {
    let mut total = 0u64;
    let mut add = |queues: u64, key: String| {
        total = total.saturating_add(queues);
        if total <= MAX_QUEUES {
            return Ok(());
        }
        Err(KeyError::new(
            key,
            format!(
                "the interfaces up to here allocate {total} queues (about 100 bytes each), more than the \
                 {MAX_QUEUES} a scenario may allocate; give their qdiscs fewer `flows`, classes or tins"
            ),
        ))
    };
    // Each count is blamed on the table its qdisc or device was written in.
    for (k, d) in r.directions.iter().enumerate() {
        let link = &r.scenario.links[k / 2];
        let own = if k % 2 == 0 { &link.forward } else { &link.reverse };
        let side = if k % 2 == 0 { "forward." } else { "reverse." };
        let at = if own.as_ref().is_some_and(|t| t.qdisc.is_some()) { side } else { "" };
        add(crate::qdisc::queues(&d.qdisc), format!("link[{}].{at}qdisc", k / 2))?;
    }
    for (i, w) in r.wifi.iter().enumerate() {
        let tables = &r.scenario.wifi[i].node;
        for m in &w.nodes {
            let own = tables.iter().position(|t| t.name == m.name);
            let at = |set: fn(&WifiNode) -> bool, field: &str| match own.filter(|&j| set(&tables[j])) {
                Some(j) => format!("wifi[{i}].node[{j}].{field}"),
                None => format!("wifi[{i}].{field}"),
            };
            add(crate::qdisc::queues(&m.qdisc), at(|t| t.qdisc.is_some(), "qdisc"))?;
            if let DeviceLayer::Mac80211(p) = device::layer(&m.device) {
                let peers = w.links.iter().filter(|l| l.from == m.name).count() as u64;
                add(u64::from(p.flows) * peers, at(|t| t.device.is_some(), "device.flows"))?;
            }
        }
    }
    Ok(())
}

fn check_tcp(key: &str, options: &TcpOptions) -> Result<(), KeyError> {
    let tcp = options.config();
    if !MSS_RANGE.contains(&tcp.mss) {
        return Err(KeyError::new(
            format!("{key}.tcp.mss"),
            format!("mss = {} is out of range, expected {} to {} bytes", tcp.mss, MSS_RANGE.start(), MSS_RANGE.end()),
        ));
    }
    if tcp.initial_cwnd == 0 {
        return Err(KeyError::new(format!("{key}.tcp.initial_cwnd"), "initial_cwnd must be at least 1 segment"));
    }
    if tcp.initial_cwnd > MAX_INITIAL_CWND {
        return Err(KeyError::new(
            format!("{key}.tcp.initial_cwnd"),
            format!("initial_cwnd must be at most {MAX_INITIAL_CWND} segments, got {}", tcp.initial_cwnd),
        ));
    }
    if tcp.rwnd.is_some_and(|w| w > MAX_RWND) {
        return Err(KeyError::new(
            format!("{key}.tcp.rwnd"),
            format!(
                "rwnd = {} is larger than TCP's largest window, {} (65535 << 14, RFC 7323)",
                Bytes(tcp.rwnd.unwrap_or_default()),
                Bytes(MAX_RWND)
            ),
        ));
    }
    if tcp.rto_min > MAX_RTO_MIN {
        return Err(KeyError::new(
            format!("{key}.tcp.rto_min"),
            format!("rto_min = {} is longer than Linux's longest timeout, TCP_RTO_MAX = 120s", Duration(tcp.rto_min)),
        ));
    }
    if let Some(rwnd) = tcp.rwnd.filter(|&w| w < u64::from(tcp.mss)) {
        return Err(KeyError::new(
            format!("{key}.tcp.rwnd"),
            format!("rwnd = {} is smaller than one segment (mss = {})", Bytes(rwnd), tcp.mss),
        ));
    }
    for (name, [min, default, max]) in [("rmem", tcp.rmem), ("wmem", tcp.wmem)] {
        if !(min <= default && default <= max) || max < 2 * u64::from(tcp.mss) {
            return Err(KeyError::new(
                format!("{key}.tcp.{name}"),
                format!(
                    "{name} = [{}, {}, {}] must be [min, default, max] in increasing order, the max at least two segments",
                    Bytes(min),
                    Bytes(default),
                    Bytes(max)
                ),
            ));
        }
    }
    if tcp.rto_min == 0 {
        return Err(KeyError::new(format!("{key}.tcp.rto_min"), "rto_min must be greater than 0, such as \"200ms\""));
    }
    if let Some(hz) = options.timer_hz.filter(|hz| !crate::tcp::HZ_CHOICES.contains(hz)) {
        return Err(KeyError::new(
            format!("{key}.tcp.timer_hz"),
            format!("timer_hz = {hz} is not a rate Linux can be built with: 100, 250, 300 or 1000 (0: exact timers)"),
        ));
    }
    Ok(())
}

fn check_host_jitter(s: &Scenario) -> Result<(), KeyError> {
    if s.host_jitter.0 > super::model::MAX_HOST_JITTER {
        return Err(KeyError::new(
            "host_jitter",
            format!("host_jitter = {} is longer than {}", s.host_jitter, Duration(super::model::MAX_HOST_JITTER)),
        ));
    }
    Ok(())
}

fn check_metrics(s: &Scenario, flows: &[ResolvedFlow]) -> Result<(), KeyError> {
    let m = &s.metrics;
    if m.interval.0 < MIN_PERIOD || m.interval >= s.duration {
        return Err(KeyError::new(
            "metrics.interval",
            format!(
                "interval = {} must be at least {} and shorter than the duration ({})",
                m.interval,
                Duration(MIN_PERIOD),
                s.duration
            ),
        ));
    }
    if m.warmup >= s.duration {
        return Err(KeyError::new(
            "metrics.warmup",
            format!("warmup = {} must be shorter than the duration ({})", m.warmup, s.duration),
        ));
    }
    if let Some(b) = &m.batches {
        if b.packets == 0 {
            return Err(KeyError::new("metrics.batches.packets", "must be at least 1"));
        }
        if b.count == 0 || b.discard >= b.count {
            return Err(KeyError::new(
                "metrics.batches.count",
                format!("count = {} must be at least 1 and more than discard = {}", b.count, b.discard),
            ));
        }
        if let Some(name) = b.flows.iter().find(|n| !flows.iter().any(|f| counts_toward(n, &f.name))) {
            return Err(KeyError::new(
                "metrics.batches.flows",
                format!("no flow is named \"{name}\" (or is a copy \"{name}.<k>\" of it)"),
            ));
        }
    }
    Ok(())
}
