//! What a run measures: per-flow counters and distributions, sampled time series, summaries.

mod quantiles;
pub mod series;
pub mod summary;

pub use quantiles::Quantiles;

use crate::sim::{Time, MS};

/// One finished connection of a `transfer` or `periodic` app.
#[derive(Clone, Debug)]
pub struct Completion {
    pub conn: u32,
    pub start: Time,
    pub end: Time,
    pub bytes: u64,
}

/// Everything measured about one flow (all connections of its app together).
#[derive(Debug)]
pub struct FlowStats {
    pub name: String,
    pub src: String,
    pub dst: String,
    pub cc: Option<String>,
    pub app: &'static str,
    pub start: Time,
    pub stop: Time,
    /// Application bytes delivered in order to the receiver.
    pub bytes_delivered: u64,
    /// RTT samples in milliseconds (TCP ACKs or ping replies).
    pub rtt_ms: Quantiles,
    last_rtt_ms: Option<f64>,
    jitter_sum_ms: f64,
    jitter_n: u64,
    pub retransmits: u64,
    /// Segments the sender marked lost.
    pub lost: u64,
    /// This flow's packets dropped by queues, marked by queues and lost on wires.
    pub queue_drops: u64,
    pub marks: u64,
    pub wire_lost: u64,
    pub completions: Vec<Completion>,
    /// UDP: datagrams sent and received, one-way delay in milliseconds.
    pub udp_sent: u64,
    pub udp_received: u64,
    /// One past the highest datagram sequence number received: datagrams below it that did
    /// not arrive are lost; later ones may still be in flight when the run ends.
    pub udp_highest_seq: u64,
    pub owd_ms: Quantiles,
}

impl FlowStats {
    pub fn new(name: String, src: String, dst: String, cc: Option<String>, app: &'static str) -> Self {
        FlowStats {
            name,
            src,
            dst,
            cc,
            app,
            start: 0,
            stop: 0,
            bytes_delivered: 0,
            rtt_ms: Quantiles::new(),
            last_rtt_ms: None,
            jitter_sum_ms: 0.0,
            jitter_n: 0,
            retransmits: 0,
            lost: 0,
            queue_drops: 0,
            marks: 0,
            wire_lost: 0,
            completions: Vec::new(),
            udp_sent: 0,
            udp_received: 0,
            udp_highest_seq: 0,
            owd_ms: Quantiles::new(),
        }
    }

    /// Record an RTT sample; jitter is the mean absolute difference of consecutive samples.
    pub fn add_rtt(&mut self, rtt: Time) {
        let ms = rtt as f64 / MS as f64;
        self.rtt_ms.add(ms);
        if let Some(last) = self.last_rtt_ms {
            self.jitter_sum_ms += (ms - last).abs();
            self.jitter_n += 1;
        }
        self.last_rtt_ms = Some(ms);
    }

    pub fn jitter_ms(&self) -> Option<f64> {
        (self.jitter_n > 0).then(|| self.jitter_sum_ms / self.jitter_n as f64)
    }
}
