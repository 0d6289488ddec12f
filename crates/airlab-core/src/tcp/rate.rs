//! Delivery-rate estimation (draft-cheng-iccrg-delivery-rate-estimation, Linux `tcp_rate.c`).
//!
//! Each transmitted segment carries a snapshot of the connection's delivery counters. When a
//! segment is delivered, the rate over the interval since that snapshot is
//! delivered / max(send_elapsed, ack_elapsed); taking the larger interval keeps ACK compression
//! from inflating the estimate. Counts are in segments, as in Linux.

use crate::sim::{Time, SEC};

/// One delivery-rate sample, produced per ACK.
#[derive(Clone, Debug, Default)]
pub struct RateSample {
    /// Segments delivered over the sampling interval.
    pub delivered: u64,
    /// Sampling interval: max(send elapsed, ACK elapsed); 0 when the sample is invalid.
    pub interval: Time,
    /// Delivery rate in bytes per second (0 when the sample is invalid).
    pub delivery_rate: f64,
    /// The sample was taken while the sender was application-limited.
    pub is_app_limited: bool,
    /// `C.delivered` when the newest delivered segment was sent.
    pub prior_delivered: u64,
    /// Segments in flight just after the newest delivered segment was sent.
    pub tx_in_flight: u32,
    /// Segments marked lost between the newest delivered segment's send and now.
    pub lost: u64,
    /// Segments delivered by ECN-echoing ACKs over the same interval.
    pub delivered_ce: u64,
    /// RTT of the newest delivered segment (0 if none was delivered).
    pub rtt: Time,
}

impl RateSample {
    pub fn is_valid(&self) -> bool {
        self.interval > 0
    }
}

/// The delivery counters as they stood when a segment was (re)transmitted.
#[derive(Clone, Copy, Debug, Default)]
pub struct TxSnapshot {
    pub delivered: u64,
    pub delivered_ce: u64,
    pub delivered_time: Time,
    pub first_sent_time: Time,
    pub lost: u64,
    pub tx_in_flight: u32,
    pub app_limited: bool,
}

/// The connection-wide counters (`C.*` in the draft).
#[derive(Clone, Debug, Default)]
pub struct RateSampler {
    pub delivered: u64,
    /// Segments delivered by ACKs carrying an ECN echo.
    pub delivered_ce: u64,
    pub delivered_time: Time,
    first_sent_time: Time,
    /// Total segments marked lost.
    pub lost: u64,
    /// Nonzero while application-limited: the `delivered` count at which that ends.
    app_limited_until: u64,
    pending: Option<Pending>,
}

/// The newest delivered segment of the ACK being processed.
#[derive(Clone, Copy, Debug)]
struct Pending {
    snap: TxSnapshot,
    send_elapsed: Time,
    ack_elapsed: Time,
    rtt: Time,
}

impl RateSampler {
    /// Snapshot for a segment sent now; `packets_out` counts outstanding segments before it.
    pub fn on_send(&mut self, now: Time, packets_out: u32, in_flight_after: u32) -> TxSnapshot {
        if packets_out == 0 {
            // Restart the sampling interval after idle so it does not span the idle time.
            self.first_sent_time = now;
            self.delivered_time = now;
        }
        TxSnapshot {
            delivered: self.delivered,
            delivered_ce: self.delivered_ce,
            delivered_time: self.delivered_time,
            first_sent_time: self.first_sent_time,
            lost: self.lost,
            tx_in_flight: in_flight_after,
            app_limited: self.app_limited_until != 0,
        }
    }

    /// A segment sent at `sent_at` with snapshot `snap` was delivered (ACKed or SACKed) now,
    /// by an ACK with (`ce`) or without an ECN echo.
    pub fn on_delivered(&mut self, now: Time, sent_at: Time, snap: &TxSnapshot, ce: bool) {
        self.delivered += 1;
        self.delivered_ce += ce as u64;
        self.delivered_time = now;
        let newer = self.pending.is_none_or(|p| snap.delivered >= p.snap.delivered);
        if newer {
            self.pending = Some(Pending {
                snap: *snap,
                send_elapsed: sent_at.saturating_sub(snap.first_sent_time),
                ack_elapsed: now.saturating_sub(snap.delivered_time),
                rtt: now.saturating_sub(sent_at),
            });
            self.first_sent_time = sent_at;
        }
    }

    pub fn on_lost(&mut self, segments: u64) {
        self.lost += segments;
    }

    /// The sender ran out of data with room in cwnd: samples until the data in flight now is
    /// delivered are application-limited.
    pub fn mark_app_limited(&mut self, in_flight: u32) {
        self.app_limited_until = (self.delivered + in_flight as u64).max(1);
    }

    /// Build this ACK's rate sample; invalid when nothing was delivered or the interval is
    /// shorter than min_rtt (an ACK-compressed burst).
    pub fn generate(&mut self, min_rtt: Time, mss: u32) -> RateSample {
        if self.app_limited_until != 0 && self.delivered > self.app_limited_until {
            self.app_limited_until = 0;
        }
        let Some(p) = self.pending.take() else {
            return RateSample::default();
        };
        let delivered = self.delivered - p.snap.delivered;
        let interval = p.send_elapsed.max(p.ack_elapsed);
        let mut rs = RateSample {
            delivered,
            interval: 0,
            delivery_rate: 0.0,
            is_app_limited: p.snap.app_limited,
            prior_delivered: p.snap.delivered,
            tx_in_flight: p.snap.tx_in_flight,
            lost: self.lost - p.snap.lost,
            delivered_ce: self.delivered_ce - p.snap.delivered_ce,
            rtt: p.rtt,
        };
        if interval > 0 && interval >= min_rtt {
            rs.interval = interval;
            rs.delivery_rate = delivered as f64 * mss as f64 * SEC as f64 / interval as f64;
        }
        rs
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::MS;

    #[test]
    fn steady_ack_clock_measures_the_bottleneck_rate() {
        // One segment sent every 1 ms, each delivered 20 ms later: 1 segment per ms.
        let mut r = RateSampler::default();
        let mss = 1000;
        let mut snaps = Vec::new();
        for i in 0..100u64 {
            let out = snaps.len() as u32;
            snaps.push((i * MS, r.on_send(i * MS, out, out + 1)));
            if i >= 20 {
                let (sent_at, snap) = snaps.remove(0);
                r.on_delivered(i * MS, sent_at, &snap, false);
                let rs = r.generate(20 * MS, mss);
                if i >= 60 {
                    let rate = rs.delivery_rate;
                    assert!((rate - 1_000_000.0).abs() < 1.0, "rate {rate} at {i}");
                }
            }
        }
    }

    #[test]
    fn compressed_acks_do_not_inflate_the_rate() {
        // Ten segments sent over 10 ms, all ACKed at once at 30 ms: the send interval bounds it.
        let mut r = RateSampler::default();
        let snaps: Vec<_> = (0..10u64).map(|i| (i * MS, r.on_send(i * MS, i as u32, i as u32 + 1))).collect();
        for (sent_at, snap) in &snaps {
            r.on_delivered(30 * MS, *sent_at, snap, false);
        }
        let rs = r.generate(MS, 1000);
        // delivered 10 over max(send 9 ms, ack 30 ms) = 30 ms.
        assert_eq!(rs.delivered, 10);
        assert_eq!(rs.interval, 30 * MS);
        assert!((rs.delivery_rate - 10.0 * 1000.0 / 0.030).abs() < 1e-6);
    }

    #[test]
    fn app_limited_marks_samples_until_the_flight_is_delivered() {
        let mut r = RateSampler::default();
        r.mark_app_limited(2);
        let s0 = r.on_send(0, 0, 1);
        let s1 = r.on_send(0, 1, 2);
        assert!(s0.app_limited && s1.app_limited);
        r.on_delivered(10 * MS, 0, &s0, false);
        assert!(r.generate(0, 1000).is_app_limited);
        r.on_delivered(11 * MS, 0, &s1, false);
        r.generate(0, 1000);
        // Sent before the app-limited flight was fully delivered: still marked.
        let s2 = r.on_send(12 * MS, 0, 1);
        r.on_delivered(20 * MS, 12 * MS, &s2, false);
        assert!(r.generate(0, 1000).is_app_limited);
        let s3 = r.on_send(21 * MS, 0, 1);
        r.on_delivered(30 * MS, 21 * MS, &s3, false);
        assert!(!r.generate(0, 1000).is_app_limited);
    }
}
