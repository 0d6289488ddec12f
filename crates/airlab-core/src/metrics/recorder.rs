//! The metrics recorder: it samples the time series every `metrics.interval` and keeps the
//! snapshots of cumulative counters that turn them into per-interval values (since the
//! previous sample) and into the summary's measurement window (since the end of the warm-up).
//! The models only count; the recorder reads them.

use super::columns::{flow, link, queue, wifi, CC_PREFIX, QDISC_PREFIX};
use super::series::{Table, VarColumns};
use super::view::{direction_name, RunView};
use crate::counters::FlowCounters;
use crate::net::iface::{IfaceCounters, TxMeter};
use crate::sim::{secs, Time, MS};
use crate::wifi::link::LinkStats;
use crate::wifi::net::UlStats;

/// Every cumulative counter the series and the summary take differences of, at one instant.
#[derive(Clone, Debug, Default)]
pub struct Counters {
    /// When they were taken.
    pub at: Time,
    /// Per flow.
    pub flows: Vec<FlowCounters>,
    /// Per queue: the wired interfaces, then the Wi-Fi interfaces (the `queues` table's order).
    pub queues: Vec<IfaceCounters>,
    /// Per wired interface: what it has serialized.
    pub tx: Vec<TxMeter>,
    /// Per Wi-Fi link (by network, device and peer), the exchange in progress included.
    pub wifi_links: Vec<LinkStats>,
    /// Per Wi-Fi network: time with a transmission on the air.
    pub wifi_busy: Vec<Time>,
    /// Per Wi-Fi network: its uplink OFDMA cycles.
    pub wifi_ul: Vec<UlStats>,
}

impl Counters {
    /// The counters of `w` at `now` (the transmissions in progress counted so far).
    pub fn take(w: &impl RunView, now: Time) -> Self {
        let devs = || w.wifi().iter().flat_map(|net| &net.devs);
        Counters {
            at: now,
            flows: w.flows().iter().map(|f| f.total).collect(),
            queues: w.ifaces().iter().map(|i| i.stats.total).chain(devs().map(|d| d.stats.total)).collect(),
            tx: w.ifaces().iter().map(|i| i.meter(now)).collect(),
            wifi_links: devs().flat_map(|d| (0..d.peers.len()).map(move |k| d.link_stats(k, now))).collect(),
            wifi_busy: w.wifi().iter().map(|net| net.busy_at(now)).collect(),
            wifi_ul: w.wifi().iter().map(|net| net.ul_stats).collect(),
        }
    }
}

/// Made by [`Recorder::new`], which gives each table its columns (`Default` is only the
/// placeholder the world leaves while it lends the recorder a view of itself).
#[derive(Default)]
pub struct Recorder {
    pub interval: Time,
    pub warmup: Time,
    pub flows: Table,
    pub queues: Table,
    pub links: Table,
    pub wifi: Table,
    /// Per flow, the columns of its congestion control's variables; per queue, its qdisc's.
    cc_columns: Vec<VarColumns>,
    qdisc_columns: Vec<VarColumns>,
    /// The variables of the component being sampled (kept to reuse its allocation).
    vars: Vec<(&'static str, f64)>,
    /// The counters at the previous sample.
    last: Counters,
    /// The counters when the measurement window began (all zero without a warm-up).
    pub window: Counters,
}

impl Recorder {
    pub fn new(interval: Time, warmup: Time) -> Self {
        Recorder {
            interval,
            warmup,
            flows: Table::with_columns(flow::ALL),
            queues: Table::with_columns(queue::ALL),
            links: Table::with_columns(link::ALL),
            wifi: Table::with_columns(wifi::ALL),
            cc_columns: Vec::new(),
            qdisc_columns: Vec::new(),
            vars: Vec::new(),
            last: Counters::default(),
            window: Counters::default(),
        }
    }

    /// Take the first snapshot and reserve every table's rows for the run; call once the world
    /// is built, before it runs.
    pub fn start(&mut self, w: &impl RunView) {
        let samples = (w.duration() / self.interval) as usize;
        let wifi_devs: usize = w.wifi().iter().map(|n| n.devs.len()).sum();
        let wifi_links: usize = w.wifi().iter().flat_map(|n| &n.devs).map(|d| d.peers.len()).sum();
        self.flows.reserve(samples * w.app_senders().count());
        self.queues.reserve(samples * (w.ifaces().len() + wifi_devs));
        self.links.reserve(samples * w.ifaces().len());
        self.wifi.reserve(samples * wifi_links);
        self.cc_columns.resize_with(w.flows().len(), VarColumns::default);
        self.qdisc_columns.resize_with(w.ifaces().len() + wifi_devs, VarColumns::default);
        self.last = Counters::take(w, 0);
        self.window = self.last.clone();
    }

    /// Begin the summary's measurement window now: every counter is taken as its baseline.
    /// (The models empty their distributions at the same instant.)
    pub fn start_window(&mut self, w: &impl RunView) {
        self.window = Counters::take(w, w.now());
    }

    /// Record one row per flow, queue, link direction and Wi-Fi link.
    pub fn sample(&mut self, w: &impl RunView) {
        let now = w.now();
        let c = Counters::take(w, now);
        let (t, dt) = (secs(now), secs(self.interval));
        for (f, sender) in w.app_senders() {
            let (n, last) = (&c.flows[f], &self.last.flows[f]);
            let s = &mut self.flows;
            s.push_row(t, &w.flows()[f].name);
            s.set(flow::id::GOODPUT, (n.bytes_delivered - last.bytes_delivered) as f64 * 8.0 / dt / 1e6);
            s.set(flow::id::RETRANSMITS, n.retransmits as f64);
            s.set(flow::id::LOST, n.lost as f64);
            let Some(snd) = sender else { continue };
            let mss = snd.st.mss as f64;
            s.set(flow::id::CWND, snd.st.cwnd as f64);
            let ssthresh = if snd.st.ssthresh >= u32::MAX / 2 { f64::NAN } else { snd.st.ssthresh as f64 };
            s.set(flow::id::SSTHRESH, ssthresh);
            let ms = |x: Time| if x == 0 { f64::NAN } else { x as f64 / 1e6 };
            s.set(flow::id::SRTT, ms(snd.rtt.srtt));
            s.set(flow::id::RTTVAR, ms(snd.rtt.rttvar));
            s.set(flow::id::MIN_RTT, ms(snd.rtt.min_rtt));
            s.set(flow::id::INFLIGHT, snd.in_flight() as f64 * mss);
            s.set(flow::id::PACING_RATE, snd.st.pacing_rate as f64 * 8.0 / 1e6);
            s.set(flow::id::DELIVERY_RATE, snd.last_rate.delivery_rate * 8.0 / 1e6);
            self.vars.clear();
            snd.cc.vars(&mut self.vars);
            self.cc_columns[f].set(s, CC_PREFIX, &self.vars);
        }
        let mut q = 0;
        for (i, iface) in w.ifaces().iter().enumerate() {
            let device = (iface.device_backlog(), Some(iface.device_bytes()));
            self.queue_row(t, &iface.name, iface.qdisc.as_ref(), device, &c, q);
            q += 1;
            let tx = c.tx[i].since(&self.last.tx[i]);
            let l = &mut self.links;
            l.push_row(t, &iface.name);
            l.set(link::id::UTILIZATION, tx.busy as f64 / self.interval as f64);
            l.set(link::id::THROUGHPUT, tx.bytes * 8.0 / dt / 1e6);
        }
        let interval = self.interval as f64;
        let mut k = 0;
        for net in w.wifi() {
            for d in &net.devs {
                self.queue_row(t, &d.name, d.qdisc.as_ref(), (d.device_backlog(), None), &c, q);
                q += 1;
                for p in &d.peers {
                    let n = c.wifi_links[k].since(&self.last.wifi_links[k]);
                    k += 1;
                    let name = direction_name(&net.name, w.node_name(d.node), w.node_name(p.node));
                    let s = &mut self.wifi;
                    s.push_row(t, &name);
                    s.set(wifi::id::AIRTIME_SHARE, n.airtime as f64 / interval);
                    s.set(wifi::id::THROUGHPUT, n.bytes_acked as f64 * 8.0 / dt / 1e6);
                    let mean = |x: u64| if n.ppdus > 0 { x as f64 / n.ppdus as f64 } else { f64::NAN };
                    s.set(wifi::id::MPDUS_PER_PPDU, mean(n.mpdus));
                    s.set(wifi::id::PPDUS, n.ppdus as f64);
                    s.set(wifi::id::FAILED_PPDUS, n.ppdus_failed as f64);
                    s.set(wifi::id::COLLISIONS, n.collisions as f64);
                    s.set(wifi::id::MPDU_DROPS, n.mpdus_dropped as f64);
                    // Mean over the interval, so a rate change inside it shows as a mix.
                    s.set(wifi::id::PHY_RATE, n.rate_time as f64 / interval / 1e6);
                    let per_mu = |x: u64| if n.mu_ppdus > 0 { x as f64 / n.mu_ppdus as f64 } else { f64::NAN };
                    s.set(wifi::id::MU_PPDUS, n.mu_ppdus as f64);
                    s.set(wifi::id::MU_RU_TONES, per_mu(n.mu_ru_tones));
                    s.set(wifi::id::MU_RU_RATE, per_mu(n.mu_ru_rate) / 1e6);
                }
            }
        }
        self.last = c;
    }

    /// One queue row: the qdisc's backlog and variables, what the device below holds (packets
    /// and, for wired devices, bytes), the mean sojourn since the previous row, and the
    /// cumulative drops and marks.
    fn queue_row(
        &mut self,
        t: f64,
        name: &str,
        qdisc: &dyn crate::qdisc::Qdisc,
        (device_pkts, device_bytes): (usize, Option<u64>),
        c: &Counters,
        q: usize,
    ) {
        let (n, last) = (&c.queues[q], &self.last.queues[q]);
        let s = &mut self.queues;
        s.push_row(t, name);
        s.set(queue::id::BACKLOG_PKTS, qdisc.len() as f64);
        s.set(queue::id::BACKLOG_BYTES, qdisc.bytes() as f64);
        s.set(queue::id::DEVICE_PKTS, device_pkts as f64);
        if let Some(bytes) = device_bytes {
            s.set(queue::id::DEVICE_BYTES, bytes as f64);
        }
        self.vars.clear();
        qdisc.vars(&mut self.vars);
        self.qdisc_columns[q].set(s, QDISC_PREFIX, &self.vars);
        let dequeued = n.dequeued - last.dequeued;
        let sojourn =
            if dequeued > 0 { (n.sojourn_ns - last.sojourn_ns) as f64 / dequeued as f64 / MS as f64 } else { f64::NAN };
        s.set(queue::id::SOJOURN, sojourn);
        s.set(queue::id::DROPS, n.dropped as f64);
        s.set(queue::id::MARKS, n.marked as f64);
        s.set(queue::id::DEVICE_DROPS, n.device_dropped as f64);
        s.set(queue::id::DEVICE_MARKS, n.device_marked as f64);
    }

    /// Close the tables once the run is over (every column as long as the table).
    pub fn finish(&mut self) {
        for t in [&mut self.flows, &mut self.queues, &mut self.links, &mut self.wifi] {
            t.finish();
        }
    }
}
