//! What a scenario's apps make a run do on their own schedule: the packets pings, UDP and
//! periodic connections send (per hop they cross), the rows they add to pings.parquet and
//! fcts.parquet, the connections they open, as each app estimates its own ([`app::Load`]);
//! and the bounds on them ([`MAX_APP_PACKETS`], [`MAX_CONNECTIONS`], [`MAX_SERIES_ROWS`]),
//! which keep every valid scenario's run to minutes.

use super::limits::*;
use super::model::*;
use super::resolved::Resolved;
use super::routing::NextHop;
use super::KeyError;
use crate::app::{self, Load};
use std::collections::BTreeMap;

/// The load of each `[[flow]]` entry, all its copies together, in file order.
pub(super) fn app_loads(r: &Resolved) -> Vec<Load> {
    let mut hops = Hops { next_hop: &r.next_hop, memo: BTreeMap::new() };
    let mut copies = r.flows.iter();
    let mut loads = Vec::with_capacity(r.scenario.flows.len());
    for flow in &r.scenario.flows {
        let mut load = Load::default();
        for f in copies.by_ref().take(flow.count as usize) {
            let path = app::Path {
                active: f.stop - f.start,
                there: hops.count(&f.from, &f.to),
                back: hops.count(&f.to, &f.from),
                first_hop_bps: r.first_hop_rate(&f.from, &f.to),
                mss: f.tcp.config().mss,
            };
            load = load.plus(app::load(&f.app, &path));
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
pub(super) fn check_app_load(r: &Resolved, loads: &[Load]) -> Result<(), KeyError> {
    check_total(
        r,
        loads,
        |l| l.connections,
        MAX_CONNECTIONS,
        |i, flow, pace, most, connections| {
            format!(
                "{} opens {most} TCP connections, and the flows together {connections}, more than the \
             {MAX_CONNECTIONS} a run may open (each is held to the end of the run, about 2 KB); {}",
                copies(i, flow),
                pace.advice
            )
        },
    )?;
    check_total(
        r,
        loads,
        |l| l.packets,
        MAX_APP_PACKETS,
        |i, flow, pace, most, packets| {
            format!(
                "{} sends {}: {:.3e} packets over the run, each counted once per hop it crosses; the apps \
             together send {packets:.3e}, more than the {MAX_APP_PACKETS} a run may carry (two to three \
             events per packet and hop: a run at the bound takes one to one and a half minutes); {}",
                copies(i, flow),
                pace.what,
                most as f64,
                pace.advice
            )
        },
    )
}

/// The flows' `load` together is at most `max`; beyond, the error is at the flow with the most,
/// worded by `message(index, flow, its app's pace, its load, the total)`.
fn check_total(
    r: &Resolved,
    loads: &[Load],
    load: fn(&Load) -> u64,
    max: u64,
    message: impl Fn(usize, &Flow, &app::Pace, u64, u64) -> String,
) -> Result<(), KeyError> {
    let total = loads.iter().fold(0u64, |sum, l| sum.saturating_add(load(l)));
    if total <= max {
        return Ok(());
    }
    let (i, most) = loads.iter().enumerate().max_by_key(|(_, l)| load(l)).expect("from flows");
    let pace = pace(r, i);
    Err(KeyError::new(format!("flow[{i}].{}", pace.key), message(i, &r.scenario.flows[i], &pace, load(most), total)))
}

/// How errors about the load of `[[flow]]` entry `i` name its app (that of its first copy:
/// its copies share it).
fn pace(r: &Resolved, i: usize) -> app::Pace {
    let first: usize = r.scenario.flows[..i].iter().map(|f| f.count as usize).sum();
    app::pace(&r.flows[first].app)
}

/// "flow[3]" or "flow[3] with its 100 copies", as the subject of a message.
fn copies(i: usize, flow: &Flow) -> String {
    match flow.count {
        1 => format!("flow[{i}]"),
        n => format!("flow[{i}] with its {n} copies"),
    }
}

/// The event tables hold one row per ping sent and one per connection whose completion time is
/// recorded; with the other tables' `tables` rows, at most [`MAX_SERIES_ROWS`].
pub(super) fn check_event_rows(r: &Resolved, loads: &[Load], tables: u64) -> Result<(), KeyError> {
    let s = &r.scenario;
    let event_rows = loads.iter().fold(0u64, |sum, l| sum.saturating_add(l.rows()));
    if tables.saturating_add(event_rows) > MAX_SERIES_ROWS {
        let (i, most) = loads.iter().enumerate().max_by_key(|(_, l)| l.rows()).expect("rows come from flows");
        let pace = pace(r, i);
        let (sends, what, table) =
            if most.pings > 0 { ("sends", "pings", "pings.parquet") } else { ("opens", "connections", "fcts.parquet") };
        return Err(KeyError::new(
            format!("flow[{i}].{}", pace.key),
            format!(
                "{} {sends} {} {what}, one row each in {table}: with the {} rows of the other flows and tables, {} \
                 rows, more than the {MAX_SERIES_ROWS} the tables may hold; {}",
                copies(i, &s.flows[i]),
                most.rows(),
                tables.saturating_add(event_rows) - most.rows(),
                tables.saturating_add(event_rows),
                pace.advice
            ),
        ));
    }
    Ok(())
}
