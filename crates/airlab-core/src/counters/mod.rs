//! What the models count while a run goes on: per flow, its cumulative counters (bytes
//! delivered, retransmissions, drops), its distributions (RTT, one-way delay) and its finished
//! connections and ping replies; the `counters!` declaration that interfaces and Wi-Fi links
//! use for theirs. The models only increment; [`crate::metrics`] turns the counts into what a
//! run reports (series, summary), reading them through its view of the run.

mod quantiles;

pub use quantiles::Quantiles;

use crate::sim::{Time, MS};

/// One finished connection of a `transfer` or `periodic` app: `start` when its SYN left,
/// `end` when the receiver held its last byte in order (what the reading application, and the
/// testbed's sink, see; the sender learns it one ACK later).
#[derive(Clone, Debug)]
pub struct Completion {
    pub conn: u32,
    pub start: Time,
    pub end: Time,
    pub bytes: u64,
}

/// A ping reply: the request's sequence number, when the reply arrived and the round trip.
#[derive(Clone, Copy, Debug)]
pub struct PingReply {
    pub seq: u64,
    pub at: Time,
    pub rtt: Time,
}

/// Declares a struct of cumulative counters and `since`, what accumulated after an earlier
/// snapshot of the same counters (how a summary leaves the warm-up out).
macro_rules! counters {
    ($(#[$meta:meta])* pub struct $name:ident { $($(#[$fmeta:meta])* pub $field:ident: $ty:ty,)* }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
        pub struct $name { $($(#[$fmeta])* pub $field: $ty,)* }

        impl $name {
            /// The counts accumulated since `earlier`, a snapshot of the same counters.
            pub fn since(&self, earlier: &Self) -> Self {
                Self { $($field: self.$field - earlier.$field,)* }
            }
        }
    };
}
pub(crate) use counters;

counters! {
    /// Cumulative counters of one flow.
    pub struct FlowCounters {
        /// Application bytes delivered in order to the receiver.
        pub bytes_delivered: u64,
        /// Data packets that brought the receiver new data (TCP segments, UDP datagrams).
        pub packets_delivered: u64,
        /// One-way delays of the data packets that reached the receiver (from the sender's
        /// transport handing them down), their sum and number.
        pub owd_sum: u64,
        pub owd_samples: u64,
        /// TCP data segments sent, retransmissions included (Linux `tcpi_data_segs_out`),
        /// and the retransmissions among them.
        pub data_segs_out: u64,
        pub retransmits: u64,
        /// Segments the sender marked lost.
        pub lost: u64,
        /// This flow's packets dropped by queues, marked by queues and lost on wires.
        pub queue_drops: u64,
        pub marks: u64,
        pub wire_lost: u64,
        /// Segments the sender's own qdisc refused (NET_XMIT_DROP): counted in `queue_drops`,
        /// but not lost to TCP, which sends them again later.
        pub local_drops: u64,
        /// Cwnd reductions taken back (DSACK or F-RTO undo), and the timeouts among them that
        /// F-RTO found spurious.
        pub undos: u64,
        pub spurious_rtos: u64,
        /// UDP: datagrams sent and received.
        pub udp_sent: u64,
        pub udp_received: u64,
        /// One past the highest datagram sequence number received: datagrams below it that
        /// did not arrive are lost; later ones may still be in flight when the run ends.
        pub udp_highest_seq: u64,
    }
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
    pub total: FlowCounters,
    /// When the flow's receiver last got new data: data sent before `stop` still arrives
    /// after it, so the flow's active period runs to whichever is later.
    pub last_delivery: Time,
    /// RTT samples (TCP ACKs or ping replies) in the measurement window.
    pub rtt: Quantiles,
    last_rtt: Option<Time>,
    /// Sum of |difference| of consecutive RTT samples, and their number.
    jitter_sum: u128,
    jitter_n: u64,
    pub completions: Vec<Completion>,
    /// Every reply of a ping flow, over the whole run.
    pub pings: Vec<PingReply>,
    /// One-way delays of data packets (TCP segments, UDP datagrams) in the measurement window.
    pub owd: Quantiles,
    /// The run is in its warm-up: the distributions (RTT, jitter, one-way delay) take no
    /// samples, which the start of the measurement window would discard unread. The
    /// cumulative counters count throughout.
    warming_up: bool,
    /// Connections open (SYN sent, last byte not yet acknowledged), since when, and the
    /// time with at least one open before that: the flow's active transfer periods.
    open_conns: u32,
    active_since: Time,
    active_before: Time,
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
            total: FlowCounters::default(),
            last_delivery: 0,
            rtt: Quantiles::new(),
            last_rtt: None,
            jitter_sum: 0,
            jitter_n: 0,
            completions: Vec::new(),
            pings: Vec::new(),
            owd: Quantiles::new(),
            warming_up: false,
            open_conns: 0,
            active_since: 0,
            active_before: 0,
        }
    }

    /// A data packet reached the receiver `owd` after its sender's transport sent it;
    /// `new_data` if it brought data the receiver did not have.
    pub fn on_data_arrival(&mut self, owd: Time, new_data: bool) {
        if !self.warming_up {
            self.owd.add(owd);
        }
        self.total.owd_sum += owd;
        self.total.owd_samples += 1;
        self.total.packets_delivered += u64::from(new_data);
    }

    /// `bytes` of new data reached the flow's receiver at `now`.
    pub fn on_delivery(&mut self, bytes: u64, now: Time) {
        self.total.bytes_delivered += bytes;
        if bytes > 0 {
            self.last_delivery = now;
        }
    }

    /// One of the flow's connections opened (its SYN left).
    pub fn conn_opened(&mut self, now: Time) {
        if self.open_conns == 0 {
            self.active_since = now;
        }
        self.open_conns += 1;
    }

    /// One of the flow's connections completed (its last byte was acknowledged).
    pub fn conn_closed(&mut self, now: Time) {
        self.open_conns = self.open_conns.saturating_sub(1);
        if self.open_conns == 0 {
            self.active_before += now - self.active_since;
        }
    }

    /// Time up to `now` during which the flow had an open connection.
    pub fn active_time(&self, now: Time) -> Time {
        self.active_before + if self.open_conns > 0 { now - self.active_since } else { 0 }
    }

    /// The run begins with a warm-up: the distributions wait for the measurement window.
    pub fn begin_warmup(&mut self) {
        self.warming_up = true;
    }

    /// The measurement window begins: the distributions (and the jitter) start empty and
    /// take samples from now on.
    pub fn start_window(&mut self) {
        self.warming_up = false;
        self.rtt.clear();
        self.owd.clear();
        self.last_rtt = None;
        self.jitter_sum = 0;
        self.jitter_n = 0;
    }

    /// Record an RTT sample; jitter is the mean absolute difference of consecutive samples.
    pub fn add_rtt(&mut self, rtt: Time) {
        if self.warming_up {
            return;
        }
        self.rtt.add(rtt);
        if let Some(last) = self.last_rtt {
            self.jitter_sum += u128::from(rtt.abs_diff(last));
            self.jitter_n += 1;
        }
        self.last_rtt = Some(rtt);
    }

    pub fn jitter_ms(&self) -> Option<f64> {
        (self.jitter_n > 0).then(|| self.jitter_sum as f64 / self.jitter_n as f64 / MS as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// During a warm-up the distributions take nothing (the window would discard it), while
    /// the counters that batches and series read count every packet.
    #[test]
    fn distributions_sample_only_inside_the_measurement_window() {
        let mut f = FlowStats::new("f".into(), "a".into(), "b".into(), None, "bulk");
        f.begin_warmup();
        f.on_data_arrival(5 * MS, true);
        f.add_rtt(10 * MS);
        f.add_rtt(12 * MS);
        assert_eq!((f.owd.count(), f.rtt.count(), f.jitter_ms()), (0, 0, None));
        assert_eq!((f.total.owd_sum, f.total.owd_samples, f.total.packets_delivered), (5 * MS, 1, 1));
        f.start_window();
        f.on_data_arrival(7 * MS, true);
        f.add_rtt(20 * MS);
        f.add_rtt(23 * MS);
        assert_eq!((f.owd.count(), f.owd.min(), f.rtt.count()), (1, Some(7 * MS), 2));
        assert_eq!(f.jitter_ms(), Some(3.0));
        assert_eq!((f.total.owd_sum, f.total.owd_samples), (12 * MS, 2));
    }

    /// Without a warm-up the window is the whole run: samples count from the start.
    #[test]
    fn without_a_warmup_distributions_sample_from_the_start() {
        let mut f = FlowStats::new("f".into(), "a".into(), "b".into(), None, "bulk");
        f.on_data_arrival(5 * MS, false);
        f.add_rtt(10 * MS);
        assert_eq!((f.owd.count(), f.rtt.count(), f.total.packets_delivered), (1, 1, 0));
    }
}
