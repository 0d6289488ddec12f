//! The bottleneck-level registry FaiRTT assumes.
//!
//! FaiRTT (paper 003) scales each flow's BDP by the ratio of the smallest RTT among the flows
//! sharing the bottleneck to the flow's own latest RTT, and compares the flow's RTT with a
//! threshold built from the other flows' RTT estimates and their number. The paper never says
//! how a sender would learn these; airlab models the cross-flow view explicitly as a registry
//! shared by the FaiRTT connections of one group (by default every FaiRTT connection in the
//! scenario). It is an oracle: a real sender has no such information.

use crate::sim::Time;
use crate::tcp::cc::minmax::WindowedFilter;
use std::collections::BTreeMap;

#[derive(Clone, Debug)]
struct Entry {
    last_seen: Time,
    rtprop: Time,
    rtt_est: f64,
    /// The smallest RTT sample of this flow within the window.
    recent_min_rtt: WindowedFilter,
}

/// What the connections of one FaiRTT group report about themselves.
#[derive(Debug)]
pub struct Registry {
    /// A flow counts as active while it reported within this window (W_reg).
    window: Time,
    flows: BTreeMap<u32, Entry>,
}

impl Registry {
    pub fn new(window: Time) -> Self {
        Registry { window, flows: BTreeMap::new() }
    }

    /// The activity window this registry was made with.
    pub fn window(&self) -> Time {
        self.window
    }

    /// Connection `conn` reports, at `now`, its RTT sample, RTprop (min RTT) and RTT
    /// estimate (ns).
    pub fn report(&mut self, conn: u32, now: Time, rtt: Time, rtprop: Time, rtt_est: f64) {
        let window = self.window;
        let e = self.flows.entry(conn).or_insert_with(|| Entry {
            last_seen: now,
            rtprop,
            rtt_est,
            recent_min_rtt: WindowedFilter::min(),
        });
        e.last_seen = now;
        e.rtprop = rtprop;
        e.rtt_est = rtt_est;
        e.recent_min_rtt.update(window, now, rtt as f64);
    }

    fn active(&self, now: Time) -> impl Iterator<Item = &Entry> + '_ {
        let window = self.window;
        self.flows.values().filter(move |e| now.saturating_sub(e.last_seen) <= window)
    }

    /// N_t: the number of flows that reported within the window.
    pub fn flow_count(&self, now: Time) -> usize {
        self.active(now).count()
    }

    /// minRTT_t: the smallest RTprop among the active flows.
    pub fn min_rtprop(&self, now: Time) -> Option<Time> {
        self.active(now).map(|e| e.rtprop).filter(|&r| r > 0).min()
    }

    /// The smallest RTT sample any active flow saw within the window (queueing included).
    pub fn min_recent_rtt(&self, now: Time) -> Option<f64> {
        self.active(now).map(|e| e.recent_min_rtt.get()).filter(|&r| r > 0.0).reduce(f64::min)
    }

    /// The mean RTT estimate of the active flows.
    pub fn mean_rtt_est(&self, now: Time) -> Option<f64> {
        let (sum, n) = self.active(now).fold((0.0, 0usize), |(s, n), e| (s + e.rtt_est, n + 1));
        (n > 0).then(|| sum / n as f64)
    }

    /// The mean RTprop of the active flows.
    pub fn mean_rtprop(&self, now: Time) -> Option<f64> {
        let (sum, n) = self.active(now).fold((0.0, 0usize), |(s, n), e| (s + e.rtprop as f64, n + 1));
        (n > 0).then(|| sum / n as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::{MS, SEC};

    #[test]
    fn active_flows_define_count_minimum_and_means() {
        let mut r = Registry::new(SEC);
        r.report(1, 0, 60 * MS, 50 * MS, 60e6);
        r.report(2, 100 * MS, 45 * MS, 30 * MS, 40e6);
        r.report(2, 200 * MS, 40 * MS, 30 * MS, 40e6);
        assert_eq!(r.flow_count(500 * MS), 2);
        assert_eq!(r.min_rtprop(500 * MS), Some(30 * MS));
        assert_eq!(r.mean_rtt_est(500 * MS), Some(50e6));
        assert_eq!(r.mean_rtprop(500 * MS), Some(40e6));
        assert_eq!(r.min_recent_rtt(500 * MS), Some(40e6));
        // Flow 1 stops reporting: after the window it no longer counts. Flow 2's 40 ms sample
        // has left the window; its newest, 50 ms, is the minimum.
        r.report(2, 1500 * MS, 50 * MS, 30 * MS, 40e6);
        assert_eq!(r.min_recent_rtt(1500 * MS), Some(50e6));
        assert_eq!(r.flow_count(1500 * MS), 1);
        assert_eq!(r.mean_rtt_est(1500 * MS), Some(40e6));
        assert_eq!(Registry::new(SEC).min_rtprop(0), None);
    }
}
