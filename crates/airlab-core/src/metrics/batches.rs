//! Batch means by delivered packets (paper 001's steady-state method): the run is cut into
//! consecutive batches of `packets` data packets delivered to receivers (all flows together,
//! each packet counted once, when it first brings its receiver new data) and ends when `count`
//! batches are complete. Each batch gives one row per flow; the means over the batches after
//! the first `discard`, with Student-t intervals, are computed from the rows (Python:
//! `airlab.stats.batch_means`), so the rule only needs to cut the run and count.
//!
//! The first batch begins when the summary's measurement window does, at the end of
//! `metrics.warmup`: packets delivered in the warm-up count toward no batch, so the run never
//! ends inside the warm-up (the summary would have no window to describe), and the batches
//! and the summary cover the same time.

use super::columns::batch;
use super::series::Table;
use crate::counters::{FlowCounters, FlowStats};
use crate::sim::{secs, Time, MS};

/// `[metrics] batches`: how the run is cut.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BatchRule {
    /// Data packets delivered per batch.
    pub packets: u64,
    /// Batches in the run: it ends when the last one is complete (or at `duration`).
    pub count: u32,
    /// Leading batches the means leave out (the warm-up).
    pub discard: u32,
}

/// A flow's state at the start of the current batch.
#[derive(Clone, Copy)]
struct AtStart {
    counters: FlowCounters,
    active: Time,
    completions: usize,
}

impl AtStart {
    fn of(f: &FlowStats, now: Time) -> Self {
        AtStart { counters: f.total, active: f.active_time(now), completions: f.completions.len() }
    }
}

/// The batches of a run in progress, and the rows of those complete.
pub struct Batches {
    pub rule: BatchRule,
    /// Per flow: whether its packets count toward the batches.
    counted: Vec<bool>,
    delivered: u64,
    /// When the current batch began; `None` until the first one does.
    start: Option<Time>,
    at_start: Vec<AtStart>,
    done: u32,
    pub table: Table,
}

impl Batches {
    /// Batches by `rule`, counting the packets of the flows `counted` marks.
    pub fn new(rule: BatchRule, counted: Vec<bool>) -> Self {
        Batches {
            rule,
            counted,
            delivered: 0,
            start: None,
            at_start: Vec::new(),
            done: 0,
            table: Table::with_columns(batch::ALL),
        }
    }

    /// The next batch starts now (the first one: when the measurement window begins).
    pub fn start(&mut self, flows: &[FlowStats], now: Time) {
        self.start = Some(now);
        self.at_start = flows.iter().map(|f| AtStart::of(f, now)).collect();
    }

    /// Batches complete so far.
    pub fn completed(&self) -> u32 {
        self.done
    }

    /// Flow `flow` had `n` more data packets delivered by `now`; true once the last batch is
    /// complete. Before the first batch begins, deliveries count toward none.
    pub fn on_delivered(&mut self, flow: usize, n: u64, flows: &[FlowStats], now: Time) -> bool {
        if !self.counted[flow] || self.start.is_none() {
            return false;
        }
        self.delivered += n;
        while self.done < self.rule.count && self.delivered >= u64::from(self.done + 1) * self.rule.packets {
            self.close(flows, now);
        }
        self.done == self.rule.count
    }

    /// Close the current batch: one row per flow over what it delivered since the batch began.
    fn close(&mut self, flows: &[FlowStats], now: Time) {
        let start = self.start.expect("only a batch that began is closed");
        let span = secs(now - start);
        for (f, at) in flows.iter().zip(&self.at_start) {
            let n = f.total.since(&at.counters);
            let active = secs(f.active_time(now) - at.active);
            let fcts: Vec<f64> = f.completions[at.completions..].iter().map(|c| secs(c.end - c.start)).collect();
            let mbps = |over: f64| if over > 0.0 { n.bytes_delivered as f64 * 8.0 / over / 1e6 } else { f64::NAN };
            self.table.push_row(secs(now), &f.name);
            self.table.set(batch::id::BATCH, f64::from(self.done));
            self.table.set(batch::id::START, secs(start));
            self.table.set(batch::id::PACKETS, n.packets_delivered as f64);
            self.table.set(batch::id::BYTES, n.bytes_delivered as f64);
            self.table.set(batch::id::GOODPUT, mbps(span));
            self.table.set(batch::id::ACTIVE, active);
            self.table.set(batch::id::ACTIVE_GOODPUT, mbps(active));
            let owd = n.owd_sum as f64 / n.owd_samples as f64 / MS as f64;
            self.table.set(batch::id::OWD, if n.owd_samples > 0 { owd } else { f64::NAN });
            self.table.set(batch::id::FCTS, fcts.len() as f64);
            let mean = fcts.iter().sum::<f64>() / fcts.len() as f64;
            self.table.set(batch::id::FCT, if fcts.is_empty() { f64::NAN } else { mean });
        }
        self.done += 1;
        self.start(flows, now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::SEC;

    fn flow(name: &str) -> FlowStats {
        FlowStats::new(name.into(), "a".into(), "b".into(), Some("cubic".into()), "periodic")
    }

    #[test]
    fn deliveries_before_the_first_batch_begins_count_toward_none() {
        let mut b = Batches::new(BatchRule { packets: 2, count: 1, discard: 0 }, vec![true]);
        let flows = vec![flow("bulk")];
        // In the warm-up: enough packets for the whole run, but no batch has begun.
        assert!(!b.on_delivered(0, 5, &flows, SEC));
        assert_eq!(b.completed(), 0);
        b.start(&flows, 2 * SEC);
        assert!(!b.on_delivered(0, 1, &flows, 3 * SEC));
        assert!(b.on_delivered(0, 1, &flows, 4 * SEC));
        assert_eq!(b.table.values_of("bulk", batch::START), [2.0]);
    }

    #[test]
    fn batches_close_on_packet_counts_and_measure_active_periods() {
        let rule = BatchRule { packets: 10, count: 2, discard: 1 };
        let mut b = Batches::new(rule, vec![true, true]);
        let mut flows = vec![flow("mice"), flow("bulk")];
        b.start(&flows, 0);
        flows[1].conn_opened(0);
        // The mice flow is active from 1 s to 1.5 s and delivers 4 packets of 1000 bytes,
        // each 20 ms after it was sent; the bulk flow 6 packets.
        flows[0].conn_opened(SEC);
        for _ in 0..4 {
            flows[0].on_data_arrival(20 * MS, true);
            flows[0].total.bytes_delivered += 1000;
        }
        flows[0].conn_closed(SEC + SEC / 2);
        for _ in 0..5 {
            flows[1].on_data_arrival(10 * MS, true);
        }
        assert!(!b.on_delivered(0, 9, &flows, 2 * SEC));
        assert_eq!(b.completed(), 0);
        flows[1].on_data_arrival(10 * MS, true);
        // A duplicate arrival counts for the delay, not as a delivered packet.
        flows[1].on_data_arrival(30 * MS, false);
        assert!(!b.on_delivered(1, 1, &flows, 2 * SEC));
        assert_eq!(b.completed(), 1);
        let t = &b.table;
        assert_eq!(t.values_of("mice", batch::ACTIVE), [0.5]);
        assert_eq!(t.values_of("mice", batch::ACTIVE_GOODPUT), [4000.0 * 8.0 / 0.5 / 1e6]);
        assert_eq!(t.values_of("mice", batch::GOODPUT), [4000.0 * 8.0 / 2.0 / 1e6]);
        assert_eq!(t.values_of("mice", batch::OWD), [20.0]);
        assert_eq!(t.values_of("bulk", batch::PACKETS), [6.0]);
        assert!((t.values_of("bulk", batch::OWD)[0] - 90.0 / 7.0).abs() < 1e-12);
        assert_eq!(t.values_of("bulk", batch::ACTIVE), [2.0]);
        // The second batch: the bulk flow's connection is still open; 25 packets close it and
        // the run, however many more arrive.
        assert!(b.on_delivered(1, 25, &flows, 3 * SEC));
        assert_eq!(b.completed(), 2);
        assert_eq!(b.table.rows(), 4);
        assert_eq!(b.table.values_of("bulk", batch::ACTIVE), [2.0, 1.0]);
        assert!(b.table.values_of("mice", batch::OWD)[1].is_nan());
    }
}
