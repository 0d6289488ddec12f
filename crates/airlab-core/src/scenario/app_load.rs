//! What a scenario's apps make a run do on their own schedule: the packets pings, UDP and
//! periodic connections send (per hop they cross), the rows they add to pings.parquet and
//! fcts.parquet, the connections they open; and the bounds on them ([`MAX_APP_PACKETS`],
//! [`MAX_CONNECTIONS`], [`MAX_SERIES_ROWS`]), which keep every valid scenario's run to minutes.

use super::limits::*;
use super::model::*;
use super::resolved::Resolved;
use super::routing::NextHop;
use super::KeyError;
use crate::sim::Time;
use std::collections::BTreeMap;

/// What the apps of one `[[flow]]` entry, all its copies, make the engine do on their own
/// schedule over the run (upper bounds: each app from its start to its stop).
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct AppLoad {
    /// Packets the apps send themselves (ping requests and replies, UDP datagrams, the SYN,
    /// SYN-ACK, data segments and one ACK each of a periodic connection), each counted once per
    /// hop it crosses.
    packets: u64,
    /// Rows of the event tables: one per ping in pings.parquet, one per connection in
    /// fcts.parquet.
    rows: u64,
    /// TCP connections opened.
    connections: u64,
}

/// The load of each `[[flow]]` entry, in file order.
pub(super) fn app_loads(r: &Resolved) -> Vec<AppLoad> {
    let mut hops = Hops { next_hop: &r.next_hop, memo: BTreeMap::new() };
    let mut copies = r.flows.iter();
    let mut loads = Vec::with_capacity(r.scenario.flows.len());
    for flow in &r.scenario.flows {
        let mut load = AppLoad::default();
        for f in copies.by_ref().take(flow.count as usize) {
            let active = f.stop - f.start;
            let (there, back) = (hops.count(&f.from, &f.to), hops.count(&f.to, &f.from));
            // (packets, rows, connections) of this copy
            let (packets, rows, connections) = match &flow.app {
                App::Bulk {} => (0, 0, 1),
                App::Transfer { .. } => (0, 1, 1),
                App::Ping { interval, .. } => {
                    let pings = active.div_ceil(interval.0);
                    (pings.saturating_mul(there + back), pings, 0)
                }
                App::Udp { rate, packet_size } => {
                    let bps = rate.map_or_else(|| r.first_hop_rate(&f.from, &f.to), |r| r.0);
                    let bytes = packet_size.0 + u64::from(crate::net::packet::UDP_HEADER);
                    // As the app spaces them (app/mod.rs); a flow without a route sends nothing.
                    let gap = if bps == 0 { Time::MAX } else { crate::sim::tx_time(bytes, bps).max(1) };
                    (active.div_ceil(gap).saturating_mul(there), 0, 0)
                }
                App::Periodic { size, period, .. } => {
                    let opened = active.div_ceil(period.0);
                    let segments = size.0.div_ceil(u64::from(f.tcp.config().mss));
                    let each = (1 + segments).saturating_mul(there + back);
                    (opened.saturating_mul(each), opened, opened)
                }
            };
            load.packets = load.packets.saturating_add(packets);
            load.rows = load.rows.saturating_add(rows);
            load.connections = load.connections.saturating_add(connections);
        }
        loads.push(load);
    }
    loads
}

/// Hops on the routed path between two hosts, remembered per node and destination so that a
/// thousand flows over a long path walk it once.
struct Hops<'a> {
    next_hop: &'a NextHop,
    memo: BTreeMap<(&'a str, &'a str), u64>,
}

impl<'a> Hops<'a> {
    fn count(&mut self, from: &'a str, to: &'a str) -> u64 {
        let mut path: Vec<&'a str> = Vec::new();
        let mut node = from;
        // Paths were checked (no loops, every hop routed); the bound only guards that.
        let base = loop {
            if node == to {
                break 0;
            }
            if let Some(&known) = self.memo.get(&(node, to)) {
                break known;
            }
            if path.len() > self.next_hop.len() {
                break 0;
            }
            path.push(node);
            match self.next_hop.get(&(node.to_string(), to.to_string())) {
                Some(via) => node = via.as_str(),
                None => break 0,
            }
        };
        for (k, n) in path.iter().rev().enumerate() {
            self.memo.insert((n, to), base + k as u64 + 1);
        }
        self.memo.get(&(from, to)).copied().unwrap_or(base)
    }
}

/// The apps together send at most [`MAX_APP_PACKETS`] packets (times hops) and open at most
/// [`MAX_CONNECTIONS`] connections in a run.
pub(super) fn check_app_load(r: &Resolved, loads: &[AppLoad]) -> Result<(), KeyError> {
    check_total(
        r,
        loads,
        |l| l.connections,
        MAX_CONNECTIONS,
        |i, flow, most, connections| {
            format!(
                "{} opens {most} TCP connections, and the flows together {connections}, more than the \
             {MAX_CONNECTIONS} a run may open (each is held to the end of the run, about 2 KB); {}",
                copies(i, flow),
                advice(&flow.app)
            )
        },
    )?;
    check_total(
        r,
        loads,
        |l| l.packets,
        MAX_APP_PACKETS,
        |i, flow, most, packets| {
            format!(
                "{} sends {}: {:.3e} packets over the run, each counted once per hop it crosses; the apps \
             together send {packets:.3e}, more than the {MAX_APP_PACKETS} a run may carry (two to three \
             events per packet and hop: a run at the bound takes one to one and a half minutes); {}",
                copies(i, flow),
                describe_app(&flow.app),
                most as f64,
                advice(&flow.app)
            )
        },
    )
}

/// The flows' `load` together is at most `max`; beyond, the error is at the flow with the most,
/// worded by `message(index, flow, its load, the total)`.
fn check_total(
    r: &Resolved,
    loads: &[AppLoad],
    load: fn(&AppLoad) -> u64,
    max: u64,
    message: impl Fn(usize, &Flow, u64, u64) -> String,
) -> Result<(), KeyError> {
    let total = loads.iter().fold(0u64, |sum, l| sum.saturating_add(load(l)));
    if total <= max {
        return Ok(());
    }
    let (i, most) = loads.iter().enumerate().max_by_key(|(_, l)| load(l)).expect("from flows");
    let flow = &r.scenario.flows[i];
    Err(KeyError::new(format!("flow[{i}].{}", rate_key(&flow.app)), message(i, flow, load(most), total)))
}

/// The key that sets how often a flow's app sends or connects, for errors about its load.
fn rate_key(app: &App) -> &'static str {
    match app {
        App::Ping { .. } => "app.interval",
        App::Udp { rate: Some(_), .. } => "app.rate",
        App::Udp { rate: None, .. } => "app.packet_size",
        App::Periodic { .. } => "app.period",
        App::Bulk {} | App::Transfer { .. } => "count",
    }
}

/// "flow[3]" or "flow[3] with its 100 copies", as the subject of a message.
fn copies(i: usize, flow: &Flow) -> String {
    match flow.count {
        1 => format!("flow[{i}]"),
        n => format!("flow[{i}] with its {n} copies"),
    }
}

/// The app's packets in words, for a message.
fn describe_app(app: &App) -> String {
    match app {
        App::Ping { interval, .. } => format!("a ping every {interval} and its reply"),
        App::Udp { rate: Some(rate), packet_size } => format!("{packet_size} datagrams at {rate}"),
        App::Udp { rate: None, packet_size } => format!("{packet_size} datagrams saturating the first hop"),
        App::Periodic { size, period, .. } => format!("a {size} connection every {period}"),
        App::Bulk {} | App::Transfer { .. } => "TCP".to_string(),
    }
}

/// What would lower a flow's load.
fn advice(app: &App) -> &'static str {
    match app {
        App::Ping { .. } => "use a longer interval, fewer copies or a shorter run",
        App::Udp { .. } => "use a lower rate, larger datagrams, fewer copies or a shorter run",
        App::Periodic { .. } => "use a longer period, fewer copies or a shorter run",
        App::Bulk {} | App::Transfer { .. } => "use fewer copies",
    }
}

/// The event tables hold one row per ping sent and one per connection opened; with the other
/// tables' `tables` rows, at most [`MAX_SERIES_ROWS`].
pub(super) fn check_event_rows(r: &Resolved, loads: &[AppLoad], tables: u64) -> Result<(), KeyError> {
    let s = &r.scenario;
    let event_rows = loads.iter().fold(0u64, |sum, l| sum.saturating_add(l.rows));
    if tables.saturating_add(event_rows) > MAX_SERIES_ROWS {
        let (i, most) = loads.iter().enumerate().max_by_key(|(_, l)| l.rows).expect("rows come from flows");
        let flow = &s.flows[i];
        let ping = matches!(flow.app, App::Ping { .. });
        return Err(KeyError::new(
            format!("flow[{i}].{}", rate_key(&flow.app)),
            format!(
                "{} {} {} {}, one row each in {}: with the {} rows of the other flows and tables, {} rows, \
                 more than the {MAX_SERIES_ROWS} the tables may hold; {}",
                copies(i, flow),
                if ping { "sends" } else { "opens" },
                most.rows,
                if ping { "pings" } else { "connections" },
                if ping { "pings.parquet" } else { "fcts.parquet" },
                tables.saturating_add(event_rows) - most.rows,
                tables.saturating_add(event_rows),
                advice(&flow.app)
            ),
        ));
    }
    Ok(())
}
