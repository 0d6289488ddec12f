//! One simulation run, from a resolved scenario to its summary and time series.

use crate::metrics::columns::{fct, ping};
use crate::metrics::series::Table;
use crate::metrics::summary::summarize;
use crate::scenario::{build::build, Resolved};
use crate::sim::{secs, Time, MS, SEC};
use serde_json::{json, Value};
use std::collections::HashMap;
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

/// Run `resolved` with `seed` (the scenario's own seed if `None`).
pub fn run(resolved: &Resolved, seed: Option<u64>) -> RunOutput {
    run_with_progress(resolved, seed, |_| true).expect("a run that is never cancelled completes")
}

/// Simulated time between two calls of the progress callback.
const PROGRESS_STEP: Time = SEC;

/// Run with a callback that sees the fraction of simulated time done, at least every
/// simulated second; when it returns false the run stops and `None` is returned.
pub fn run_with_progress(
    resolved: &Resolved,
    seed: Option<u64>,
    mut progress: impl FnMut(f64) -> bool,
) -> Option<RunOutput> {
    let seed = seed.unwrap_or(resolved.scenario.seed);
    let mut world = build(resolved, seed);
    let wall = Instant::now();
    world.start();
    let mut t = 0;
    while t < world.duration {
        t = (t + PROGRESS_STEP).min(world.duration);
        world.advance(t);
        if !progress(t as f64 / world.duration as f64) {
            return None;
        }
    }
    world.recorder.finish();
    let wall_s = wall.elapsed().as_secs_f64().max(1e-9);
    let events = world.events.processed();
    let mut summary = summarize(&world, &resolved.scenario.name, seed);
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
    let mut fcts = Table::default();
    for f in &world.flows {
        for c in &f.completions {
            fcts.push_row(secs(c.start), &f.name);
            fcts.set(fct::CONN, index[&c.conn] as f64);
            fcts.set(fct::END, secs(c.end));
            fcts.set(fct::FCT, secs(c.end - c.start));
            fcts.set(fct::BYTES, c.bytes as f64);
        }
    }
    fcts.finish();
    let mut pings = Table::default();
    for f in &world.flows {
        for p in &f.pings {
            pings.push_row(secs(p.at), &f.name);
            pings.set(ping::SEQ, p.seq as f64);
            pings.set(ping::RTT, p.rtt as f64 / MS as f64);
        }
    }
    pings.finish();
    Some(RunOutput {
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
