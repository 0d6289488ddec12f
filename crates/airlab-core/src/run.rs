//! One simulation run, from a resolved scenario to its summary and time series.

use crate::metrics::columns::{fct, ping};
use crate::metrics::invariants::{self, InternalError, Limits};
use crate::metrics::series::Table;
use crate::metrics::summary::summarize;
use crate::metrics::view::direction_name;
use crate::metrics::warnings::warnings;
use crate::scenario::wifi::tx_vector;
use crate::scenario::{build::build, Resolved};
use crate::sim::{secs, Time, MS, SEC};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::fmt;
use std::time::Instant;

pub struct RunOutput {
    /// `summary.json`, including engine statistics.
    pub summary: Value,
    pub flows: Table,
    pub queues: Table,
    pub links: Table,
    /// One row per sample and Wi-Fi link: airtime share, throughput, aggregation, losses.
    pub wifi: Table,
    /// One row per completed connection: columns conn, start_s, end_s, fct_s, bytes.
    pub fcts: Table,
    /// One row per ping reply: columns seq, rtt_ms.
    pub pings: Table,
    /// One row per batch and flow when `[metrics] batches` cut the run.
    pub batches: Table,
}

impl RunOutput {
    /// The summary without wall-clock figures: identical for identical scenario and seed.
    pub fn deterministic_summary(&self) -> Value {
        let mut s = self.summary.clone();
        if let Some(engine) = s.get_mut("engine").and_then(Value::as_object_mut) {
            for key in ["wall_s", "events_per_s", "sim_s_per_wall_s", "packets_per_wall_s"] {
                engine.remove(key);
            }
        }
        s
    }
}

/// Why a run handed out no results.
#[derive(Debug, Clone, PartialEq)]
pub enum RunError {
    /// The progress callback asked the run to stop.
    Cancelled,
    /// The summary broke physical invariants: an engine bug (see [`invariants`]).
    Internal(InternalError),
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            RunError::Cancelled => write!(f, "the run was stopped"),
            RunError::Internal(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for RunError {}

/// Run `resolved` with `seed` (the scenario's own seed if `None`).
pub fn run(resolved: &Resolved, seed: Option<u64>) -> Result<RunOutput, InternalError> {
    run_with_progress(resolved, seed, |_| true).map_err(|e| match e {
        RunError::Internal(e) => e,
        RunError::Cancelled => unreachable!("a run whose progress callback always continues is never cancelled"),
    })
}

/// Simulated time between two calls of the progress callback.
const PROGRESS_STEP: Time = SEC;

/// Run with a callback that sees the fraction of simulated time done, at least every
/// simulated second; when it returns false the run stops with [`RunError::Cancelled`]. The
/// summary is checked against the physical invariants before it is handed out.
pub fn run_with_progress(
    resolved: &Resolved,
    seed: Option<u64>,
    mut progress: impl FnMut(f64) -> bool,
) -> Result<RunOutput, RunError> {
    let seed = seed.unwrap_or(resolved.scenario.seed);
    let mut world = build(resolved, seed);
    let wall = Instant::now();
    world.start();
    let mut t = 0;
    while t < world.duration {
        t = (t + PROGRESS_STEP).min(world.duration);
        world.advance(t);
        if !progress(t as f64 / world.duration as f64) {
            return Err(RunError::Cancelled);
        }
    }
    world.recorder.finish();
    let wall_s = wall.elapsed().as_secs_f64().max(1e-9);
    let events = world.events.processed();
    let mut summary = summarize(&world, &world.recorder, &resolved.scenario.name, seed);
    invariants::check(&summary, &limits(resolved)).map_err(RunError::Internal)?;
    let cut_by_batches = world.batches.as_ref().is_some_and(|b| b.completed() == b.rule.count);
    summary["warnings"] = json!(warnings(&summary, cut_by_batches));
    if let Some(b) = &world.batches {
        let r = b.rule;
        summary["batches"] = json!({
            "packets": r.packets, "count": r.count, "discard": r.discard, "completed": b.completed(),
        });
    }
    let sim_s = secs(world.duration);
    summary["engine"] = json!({
        "events": events,
        "wall_s": wall_s,
        "events_per_s": events as f64 / wall_s,
        "sim_s_per_wall_s": sim_s / wall_s,
        "packets_forwarded": world.packets_forwarded,
        "packets_per_wall_s": world.packets_forwarded as f64 / wall_s,
    });
    // A connection's index within its flow (its app's k-th), as the testbed numbers them.
    let index: HashMap<u32, usize> =
        world.app_conns.iter().flat_map(|conns| conns.iter().enumerate().map(|(k, &c)| (c, k))).collect();
    let mut fcts = Table::with_columns(fct::ALL);
    for f in &world.flows {
        for c in &f.completions {
            fcts.push_row(secs(c.start), &f.name);
            fcts.set(fct::id::CONN, index[&c.conn] as f64);
            fcts.set(fct::id::END, secs(c.end));
            fcts.set(fct::id::FCT, secs(c.end - c.start));
            fcts.set(fct::id::BYTES, c.bytes as f64);
        }
    }
    fcts.finish();
    let mut pings = Table::with_columns(ping::ALL);
    for f in &world.flows {
        for p in &f.pings {
            pings.push_row(secs(p.at), &f.name);
            pings.set(ping::id::SEQ, p.seq as f64);
            pings.set(ping::id::RTT, p.rtt as f64 / MS as f64);
        }
    }
    pings.finish();
    Ok(RunOutput {
        summary,
        flows: std::mem::take(&mut world.recorder.flows),
        queues: std::mem::take(&mut world.recorder.queues),
        links: std::mem::take(&mut world.recorder.links),
        wifi: std::mem::take(&mut world.recorder.wifi),
        fcts,
        pings,
        batches: world.batches.take().map(|b| b.table).unwrap_or_default(),
    })
}

/// What the scenario allows the entities of its summary at most: each wired link direction its
/// rate, each Wi-Fi link its fastest PHY rate (over every step of a rate schedule), each flow
/// the slowest hop of its path.
fn limits(r: &Resolved) -> Limits {
    let mut limits = Limits::default();
    let mut hops: HashMap<(&str, &str), f64> = HashMap::new();
    for d in &r.directions {
        limits.link(direction_name(&d.link, &d.from, &d.to), d.rate.0 as f64);
        hops.insert((&d.from, &d.to), d.rate.0 as f64);
    }
    for w in &r.wifi {
        for l in &w.links {
            let steps = l.schedule.iter().flat_map(|s| &s.steps).map(|step| &step.phy);
            let fastest = std::iter::once(&l.phy)
                .chain(steps)
                .map(|phy| tx_vector(w.standard, phy).rate_bps() as f64)
                .fold(0.0, f64::max);
            limits.wifi_link(direction_name(&w.name, &l.from, &l.to), fastest);
            hops.insert((&l.from, &l.to), fastest);
        }
    }
    let mut paths: HashMap<(&str, &str), f64> = HashMap::new();
    for f in &r.flows {
        let bottleneck = *paths.entry((&f.from, &f.to)).or_insert_with(|| slowest_hop(r, &hops, &f.from, &f.to));
        limits.flow(f.name.clone(), f.start, f.stop, bottleneck);
    }
    limits
}

/// The rate of the slowest hop from `from` to `to` along the routes. Resolution checked that
/// they reach `to` without a loop, so the walk ends within as many hops as there are routes.
fn slowest_hop(r: &Resolved, hops: &HashMap<(&str, &str), f64>, from: &str, to: &str) -> f64 {
    let mut slowest = f64::INFINITY;
    let mut at = from;
    for _ in 0..r.next_hop.len() {
        let Some(via) = r.next_hop.get(&(at.to_string(), to.to_string())).filter(|_| at != to) else { break };
        slowest = slowest.min(hops.get(&(at, via.as_str())).copied().unwrap_or(f64::INFINITY));
        at = via;
    }
    slowest
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::load_str;
    use serde_json::json;

    /// tests/data/dumbbell.toml, h1 - r1 == 10 Mbit/s == r2 - h2 (100 Mbit/s access), for 10 s
    /// with h2 a router: the AP of an 802.11a BSS whose station steps from 24 to 54 Mbit/s, and
    /// flows across the bottleneck and through the AP.
    const DUMBBELL: &str = include_str!("../../../tests/data/dumbbell.toml");
    /// The 802.11a BSS of h2 and its station.
    const BSS: &str = r#"[{ name = "bss", standard = "a", ap = "h2", stations = ["sta"], rate = "24Mbit",
                            node = [{ name = "sta", schedule = { steps = [{ at = "5s", rate = "54Mbit" }] } }] }]"#;
    /// A CUBIC download to the station from 1 s, and a 1 Mbit/s UDP upload from it.
    const FLOWS: &str = r#"[{ name = "down", from = "h1", to = "sta", cc = "cubic", app = { kind = "bulk" }, start = "1s" },
                            { name = "up", from = "sta", to = "h1", app = { kind = "udp", rate = "1Mbit" } }]"#;
    const LIMITS: [(&str, &str); 5] = [
        ("duration", "10s"),
        ("hosts", r#"["h1", "sta"]"#),
        ("routers", r#"["r1", "r2", "h2"]"#),
        ("wifi", BSS),
        ("flow", FLOWS),
    ];

    /// The scenario of the limits with the overrides `sets` besides.
    fn scenario(sets: &[(&str, &str)]) -> Resolved {
        let sets: Vec<(String, String)> =
            LIMITS.iter().chain(sets).map(|(k, v)| (k.to_string(), v.to_string())).collect();
        load_str(DUMBBELL, "limits.toml", &sets).expect("valid")
    }

    /// Whether a 10 s summary of `r` with `flow` at `goodput` Mbit/s and the station's
    /// downlink at `wifi` Mbit/s keeps within the limits of `r`.
    fn within(r: &Resolved, flow: &str, goodput: f64, wifi: f64) -> bool {
        let zero = json!(0);
        let start = r.flows.iter().find(|f| f.name == flow).map_or(0.0, |f| secs(f.start));
        let summary = json!({
            "duration_s": 10.0, "warmup_s": 0.0, "jain_index": 1.0,
            "flows": [{ "name": flow, "goodput_mbps": goodput, "window_s": 10.0 - start, "retransmits": zero, "data_segs_out": zero,
                        "local_drops": zero, "queue_drops": zero, "spurious_rtos": zero, "undos": zero }],
            "wifi": [{ "name": "bss", "busy_share": 0.5, "links": [{
                "name": "bss:h2->sta", "airtime_share": 0.5, "throughput_mbps": wifi, "ppdus": zero,
                "failed_ppdus": zero, "ampdus": zero, "mu_ppdus": zero, "mpdus": zero, "mpdus_acked": zero,
                "mpdu_drops": zero }] }],
        });
        invariants::check(&summary, &limits(r)).is_ok()
    }

    #[test]
    fn limits_follow_rates_schedules_and_paths() {
        let r = scenario(&[]);
        // Both flows cross the 10 Mbit/s bottleneck (the one starting at 1 s over its 9 s).
        for flow in ["down", "up"] {
            assert!(within(&r, flow, 10.0, 1.0) && !within(&r, flow, 10.1, 1.0), "{flow}");
        }
        // The station's link runs at 24 Mbit/s, and at 54 from its schedule's step on.
        assert!(within(&r, "up", 1.0, 54.0) && !within(&r, "up", 1.0, 54.1));
        // With a faster bottleneck the Wi-Fi hop is the slowest of both paths.
        let fast = scenario(&[("link.bottleneck.rate", "1Gbit")]);
        for flow in ["down", "up"] {
            assert!(within(&fast, flow, 54.0, 1.0) && !within(&fast, flow, 54.1, 1.0), "{flow}");
        }
    }
}
