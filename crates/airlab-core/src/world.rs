//! The simulated world: nodes, interfaces, connections and apps, and the event loop that
//! moves packets between them.

use crate::app::{Action, App};
use crate::metrics::series::Table;
use crate::metrics::FlowStats;
use crate::net::iface::Next;
use crate::net::{ConnId, Iface, IfaceId, NodeId, Packet, Payload};
use crate::scenario::model::TcpOptions;
use crate::sim::{secs, EventQueue, Rng, Time};
use crate::tcp::cc::{CcEnv, CcParams, Shared};
use crate::tcp::{cc, Ctx, TcpReceiver, TcpSender, TimerKind};
use crate::wifi::net::{WifiEvent, WifiNet};

#[derive(Clone, Copy, Debug)]
pub enum Event {
    /// An interface finished serializing its current packet.
    TxDone(IfaceId),
    /// The packet at the head of an interface's wire reaches the far node.
    Arrive(IfaceId),
    /// A socket timer (sender or receiver side, by kind).
    Timer(ConnId, TimerKind),
    AppWake(u32),
    /// A shaping qdisc of an interface may hand out a packet again.
    QdiscWake(IfaceId),
    /// The warm-up ends: the summary's measurement window begins.
    Warmup,
    /// An event of a Wi-Fi network, packed by [`WifiEvent::pack`].
    Wifi(u8, u16, u32),
    Sample,
}

/// Where a node sends packets for a destination: out of a wired interface, or through its
/// Wi-Fi device in a network (which knows the next hop).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    Wire(IfaceId),
    Wifi { net: u16, dev: u32 },
}

pub struct Node {
    pub name: String,
    pub is_host: bool,
    /// Egress towards each destination node (indexed by NodeId).
    pub routes: Vec<Option<Route>>,
}

/// TCP settings an app uses for every connection it opens.
pub struct TcpProfile {
    pub cc: String,
    pub cc_params: CcParams,
    pub opts: TcpOptions,
}

pub struct Conn {
    pub sender: TcpSender,
    pub receiver: TcpReceiver,
}

pub struct World {
    pub events: EventQueue<Event>,
    pub nodes: Vec<Node>,
    pub ifaces: Vec<Iface>,
    pub wifi: Vec<WifiNet>,
    pub conns: Vec<Conn>,
    pub apps: Vec<App>,
    /// Per app (same index): TCP profile for TCP apps.
    pub profiles: Vec<Option<TcpProfile>>,
    /// Connections opened by each app, in order.
    pub app_conns: Vec<Vec<ConnId>>,
    pub flows: Vec<FlowStats>,
    /// The run seed, for per-connection random streams.
    pub seed: u64,
    /// State congestion controls share across connections.
    pub cc_shared: Shared,
    pub duration: Time,
    pub interval: Time,
    pub warmup: Time,
    pub flow_series: Table,
    pub queue_series: Table,
    pub link_series: Table,
    /// Per Wi-Fi link: airtime, throughput, aggregation.
    pub wifi_series: Table,
    pub packets_forwarded: u64,
    /// Per flow: bytes delivered at the previous sample.
    delivered_at_sample: Vec<u64>,
    out: Vec<Packet>,
    timers: Vec<(Time, TimerKind)>,
    actions: Vec<Action>,
}

impl World {
    pub fn new(seed: u64, duration: Time, interval: Time, warmup: Time) -> Self {
        World {
            events: EventQueue::new(),
            nodes: Vec::new(),
            ifaces: Vec::new(),
            wifi: Vec::new(),
            conns: Vec::new(),
            apps: Vec::new(),
            profiles: Vec::new(),
            app_conns: Vec::new(),
            flows: Vec::new(),
            seed,
            cc_shared: Shared::default(),
            duration,
            interval,
            warmup,
            flow_series: Table::default(),
            queue_series: Table::default(),
            link_series: Table::default(),
            wifi_series: Table::default(),
            packets_forwarded: 0,
            delivered_at_sample: Vec::new(),
            out: Vec::new(),
            timers: Vec::new(),
            actions: Vec::new(),
        }
    }

    pub fn now(&self) -> Time {
        self.events.now()
    }

    /// Schedule the apps, the Wi-Fi rate schedules, the end of the warm-up and the first
    /// sample; call once before [`World::advance`].
    pub fn start(&mut self) {
        self.delivered_at_sample = vec![0; self.flows.len()];
        let samples = (self.duration / self.interval) as usize;
        let wifi_devs: usize = self.wifi.iter().map(|n| n.devs.len()).sum();
        let wifi_links: usize = self.wifi.iter().flat_map(|n| &n.devs).map(|d| d.peers.len()).sum();
        self.flow_series.reserve(samples * self.apps.len());
        self.queue_series.reserve(samples * (self.ifaces.len() + wifi_devs));
        self.link_series.reserve(samples * self.ifaces.len());
        self.wifi_series.reserve(samples * wifi_links);
        // Rate schedules first, so a step at 0 s precedes any traffic.
        for net in 0..self.wifi.len() {
            self.wifi[net].start(0);
            self.collect_wifi(net as u16);
        }
        for i in 0..self.apps.len() {
            let at = self.apps[i].first_wake();
            self.events.schedule(at, Event::AppWake(i as u32));
        }
        if self.warmup > 0 {
            self.events.schedule(self.warmup, Event::Warmup);
        }
        self.events.schedule(self.interval, Event::Sample);
    }

    /// Process every event up to `until` (capped at the scenario duration). Running in
    /// chunks lets a caller show progress or stop early; the result does not depend on how
    /// the run is chunked.
    pub fn advance(&mut self, until: Time) {
        let until = until.min(self.duration);
        while let Some(t) = self.events.peek_time() {
            if t > until {
                break;
            }
            let (_, ev) = self.events.pop().expect("peeked");
            self.dispatch(ev);
        }
    }

    /// Close the time series once the run is over.
    pub fn finish(&mut self) {
        self.flow_series.finish();
        self.queue_series.finish();
        self.link_series.finish();
        self.wifi_series.finish();
    }

    fn dispatch(&mut self, ev: Event) {
        match ev {
            Event::TxDone(i) => {
                let now = self.now();
                let next = self.ifaces[i as usize].tx_done(now, &mut self.flows);
                self.schedule_iface(i, next);
            }
            Event::Arrive(i) => {
                let iface = &mut self.ifaces[i as usize];
                let pkt = iface.arrive();
                let node = iface.to;
                self.arrive_at(node, pkt);
            }
            Event::Wifi(head, dev, arg) => {
                let (net, ev) = WifiEvent::unpack(head, dev, arg);
                let now = self.now();
                self.wifi[net as usize].handle(ev, now, &mut self.flows);
                self.collect_wifi(net);
            }
            Event::Timer(c, kind) => {
                let now = self.now();
                let conn = &mut self.conns[c as usize];
                let flow = &mut self.flows[conn.sender.flow as usize];
                let mut ctx = Ctx { now, out: &mut self.out, timers: &mut self.timers, flow };
                match kind {
                    TimerKind::DelayedAck => conn.receiver.on_timer(kind, &mut ctx),
                    _ => conn.sender.on_timer(kind, &mut ctx),
                }
                self.flush(c);
            }
            Event::AppWake(a) => self.wake_app(a as usize),
            Event::QdiscWake(i) => {
                let now = self.now();
                let next = self.ifaces[i as usize].wake(now, &mut self.flows);
                self.schedule_iface(i, next);
            }
            Event::Warmup => self.start_window(),
            Event::Sample => {
                self.sample();
                let next = self.now() + self.interval;
                if next <= self.duration {
                    self.events.schedule(next, Event::Sample);
                }
            }
        }
    }

    fn schedule_iface(&mut self, i: IfaceId, next: Next) {
        if let Some(t) = next.tx_done {
            self.events.schedule(t, Event::TxDone(i));
        }
        if let Some(t) = next.arrival {
            self.events.schedule(t, Event::Arrive(i));
        }
        if let Some(t) = next.wake {
            self.events.schedule(t, Event::QdiscWake(i));
        }
    }

    /// A packet reached `node` over a link: take it in or forward it.
    fn arrive_at(&mut self, node: NodeId, pkt: Packet) {
        if pkt.dst == node {
            self.deliver_local(node, pkt);
        } else {
            self.packets_forwarded += 1;
            self.send_from(node, pkt);
        }
    }

    /// Route a packet out of `node` towards its destination.
    fn send_from(&mut self, node: NodeId, pkt: Packet) {
        let Some(route) = self.nodes[node as usize].routes[pkt.dst as usize] else {
            // Validation guarantees routes for every flow; a missing one is an engine bug.
            panic!("no route at {} to {}", self.nodes[node as usize].name, self.nodes[pkt.dst as usize].name);
        };
        let now = self.now();
        match route {
            Route::Wire(i) => {
                let next = self.ifaces[i as usize].enqueue(pkt, now, &mut self.flows);
                self.schedule_iface(i, next);
            }
            Route::Wifi { net, dev } => {
                self.wifi[net as usize].enqueue(dev, pkt, now, &mut self.flows);
                self.collect_wifi(net);
            }
        }
    }

    /// Schedule what a Wi-Fi network asked for and pass on the packets it delivered.
    fn collect_wifi(&mut self, net: u16) {
        let w = &mut self.wifi[net as usize];
        for (at, ev) in w.events.drain(..) {
            let (head, dev, arg) = ev.pack(net);
            self.events.schedule(at, Event::Wifi(head, dev, arg));
        }
        let mut delivered = std::mem::take(&mut w.delivered);
        for (node, pkt) in delivered.drain(..) {
            self.arrive_at(node, pkt);
        }
        // Keep the buffer's allocation unless forwarding refilled it meanwhile.
        let w = &mut self.wifi[net as usize];
        if w.delivered.is_empty() {
            w.delivered = delivered;
        }
    }

    /// Hand the packets and timer requests a socket produced to the network and the clock.
    fn flush(&mut self, conn: ConnId) {
        let now = self.now();
        for (at, kind) in self.timers.drain(..) {
            self.events.schedule(at.max(now), Event::Timer(conn, kind));
        }
        let mut out = std::mem::take(&mut self.out);
        for pkt in out.drain(..) {
            self.send_from(pkt.src, pkt);
        }
        self.out = out;
    }

    fn deliver_local(&mut self, node: NodeId, pkt: Packet) {
        let now = self.now();
        match pkt.payload {
            Payload::Tcp(seg) => {
                let c = pkt.conn;
                let conn = &mut self.conns[c as usize];
                let flow = &mut self.flows[conn.sender.flow as usize];
                let mut ctx = Ctx { now, out: &mut self.out, timers: &mut self.timers, flow };
                if node == conn.receiver.node {
                    let mss = conn.sender.st.mss;
                    conn.receiver.on_segment(&seg, pkt.ecn, mss, &mut ctx);
                } else {
                    conn.sender.on_segment(&seg, &mut ctx);
                }
                self.flush(c);
            }
            Payload::Udp { seq, sent_at } => {
                let flow = &mut self.flows[pkt.flow as usize];
                let n = &mut flow.total;
                n.udp_received += 1;
                n.udp_highest_seq = n.udp_highest_seq.max(seq + 1);
                n.bytes_delivered += u64::from(pkt.size - crate::net::packet::UDP_HEADER);
                flow.owd.add(now - sent_at);
            }
            Payload::Ping { seq, sent_at, reply } => {
                if reply {
                    self.flows[pkt.flow as usize].add_rtt(now - sent_at);
                } else {
                    let echo = Packet {
                        src: pkt.dst,
                        dst: pkt.src,
                        payload: Payload::Ping { seq, sent_at, reply: true },
                        ..pkt
                    };
                    self.send_from(node, echo);
                }
            }
        }
    }

    fn wake_app(&mut self, a: usize) {
        let now = self.now();
        let mut actions = std::mem::take(&mut self.actions);
        self.apps[a].wake(now, &mut actions);
        for action in actions.drain(..) {
            match action {
                Action::Open { bytes } => self.open_conn(a, bytes),
                Action::StopWriting => {
                    for &c in &self.app_conns[a] {
                        self.conns[c as usize].sender.stop();
                    }
                }
                Action::Send(pkt) => {
                    if matches!(pkt.payload, Payload::Udp { .. }) {
                        self.flows[pkt.flow as usize].total.udp_sent += 1;
                    }
                    self.send_from(pkt.src, pkt);
                }
                Action::WakeAt(t) => self.events.schedule(t, Event::AppWake(a as u32)),
            }
        }
        self.actions = actions;
    }

    fn open_conn(&mut self, a: usize, bytes: u64) {
        let app = &self.apps[a];
        let profile = self.profiles[a].as_ref().expect("TCP app without a TCP profile");
        let c = self.conns.len() as ConnId;
        let name = &self.flows[app.flow as usize].name;
        let k = self.app_conns[a].len();
        let mut env =
            CcEnv { rng: Rng::stream(self.seed, &format!("cc:{name}:{k}")), shared: &mut self.cc_shared, conn: c };
        let cc =
            cc::create(&profile.cc, &profile.cc_params, &mut env).expect("congestion control checked at build time");
        let sender = TcpSender::new(c, app.flow, app.src, app.dst, profile.opts.clone(), cc);
        let receiver = TcpReceiver::new(c, app.flow, app.dst, app.src, profile.opts.delayed_ack, profile.opts.rwnd.0);
        let mut sender = sender;
        sender.set_peer_window(receiver.rwnd);
        self.conns.push(Conn { sender, receiver });
        self.app_conns[a].push(c);
        let now = self.now();
        let conn = &mut self.conns[c as usize];
        let flow = &mut self.flows[app.flow as usize];
        let mut ctx = Ctx { now, out: &mut self.out, timers: &mut self.timers, flow };
        conn.sender.open(&mut ctx);
        conn.sender.write(bytes, &mut ctx);
        self.flush(c);
    }

    /// Begin the summary's measurement window now: every counter is taken as its baseline
    /// and every distribution starts empty.
    fn start_window(&mut self) {
        let now = self.now();
        for flow in self.flows.iter_mut() {
            flow.start_window(now);
        }
        for iface in self.ifaces.iter_mut() {
            iface.stats.start_window();
            iface.tx_at_window = iface.meter(now);
        }
        for net in self.wifi.iter_mut() {
            net.busy_at_window = net.busy_at(now);
            for d in net.devs.iter_mut() {
                d.stats.start_window();
                for k in 0..d.peers.len() {
                    let stats = d.link_stats(k, now);
                    d.peers[k].at_window = stats;
                }
            }
        }
    }

    /// Record one row per flow, queue and link direction.
    fn sample(&mut self) {
        let now = self.now();
        let t = secs(now);
        let dt = secs(self.interval);
        for (a, app) in self.apps.iter().enumerate() {
            let f = app.flow as usize;
            let flow = &self.flows[f];
            let s = &mut self.flow_series;
            s.push_row(t, &flow.name);
            let delivered = flow.total.bytes_delivered;
            s.set("goodput_mbps", (delivered - self.delivered_at_sample[f]) as f64 * 8.0 / dt / 1e6);
            self.delivered_at_sample[f] = delivered;
            s.set("retransmits", flow.total.retransmits as f64);
            s.set("lost", flow.total.lost as f64);
            // The newest connection speaks for the flow (periodic apps open many).
            let Some(&c) = self.app_conns[a].last() else { continue };
            let snd = &self.conns[c as usize].sender;
            let mss = snd.st.mss as f64;
            s.set("cwnd_pkts", snd.st.cwnd as f64);
            s.set("ssthresh_pkts", if snd.st.ssthresh >= u32::MAX / 2 { f64::NAN } else { snd.st.ssthresh as f64 });
            let ms = |x: Time| if x == 0 { f64::NAN } else { x as f64 / 1e6 };
            s.set("srtt_ms", ms(snd.rtt.srtt));
            s.set("rttvar_ms", ms(snd.rtt.rttvar));
            s.set("min_rtt_ms", ms(snd.rtt.min_rtt));
            s.set("inflight_bytes", snd.in_flight() as f64 * mss);
            s.set("pacing_rate_mbps", snd.st.pacing_rate as f64 * 8.0 / 1e6);
            s.set("delivery_rate_mbps", snd.last_rate.delivery_rate * 8.0 / 1e6);
            let mut vars = Vec::new();
            snd.cc.vars(&mut vars);
            for (name, v) in vars {
                s.set(&format!("cc.{name}"), v);
            }
        }
        for iface in self.ifaces.iter_mut() {
            let device = (iface.device_backlog(), Some(iface.device_bytes()));
            sample_queue(&mut self.queue_series, t, &iface.name, iface.qdisc.as_ref(), device, &mut iface.stats);
            let meter = iface.meter(now);
            let tx = meter.since(&iface.tx_at_sample);
            iface.tx_at_sample = meter;
            let l = &mut self.link_series;
            l.push_row(t, &iface.name);
            l.set("utilization", tx.busy as f64 / self.interval as f64);
            l.set("throughput_mbps", tx.bytes * 8.0 / dt / 1e6);
        }
        self.sample_wifi(now, t, dt);
    }

    /// One queue row per Wi-Fi interface and one row per Wi-Fi link.
    fn sample_wifi(&mut self, now: Time, t: f64, dt: f64) {
        let interval = self.interval as f64;
        for net in self.wifi.iter_mut() {
            for d in net.devs.iter_mut() {
                let device = (d.device_backlog(), None);
                sample_queue(&mut self.queue_series, t, &d.name, d.qdisc.as_ref(), device, &mut d.stats);
                for k in 0..d.peers.len() {
                    let stats = d.link_stats(k, now);
                    let p = &mut d.peers[k];
                    let n = stats.since(&p.at_sample);
                    p.at_sample = stats;
                    let name = format!(
                        "{}:{}->{}",
                        net.name, self.nodes[d.node as usize].name, self.nodes[p.node as usize].name
                    );
                    let s = &mut self.wifi_series;
                    s.push_row(t, &name);
                    s.set("airtime_share", n.airtime as f64 / interval);
                    s.set("throughput_mbps", n.bytes_acked as f64 * 8.0 / dt / 1e6);
                    let mean = |x: u64| if n.ppdus > 0 { x as f64 / n.ppdus as f64 } else { f64::NAN };
                    s.set("mpdus_per_ppdu", mean(n.mpdus));
                    s.set("ppdus", n.ppdus as f64);
                    s.set("failed_ppdus", n.ppdus_failed as f64);
                    s.set("collisions", n.collisions as f64);
                    s.set("mpdu_drops", n.mpdus_dropped as f64);
                    // Mean over the interval, so a rate change inside it shows as a mix.
                    s.set("phy_rate_mbps", n.rate_time as f64 / interval / 1e6);
                }
            }
        }
    }
}

/// One queue row: the qdisc's backlog and variables, what the device below holds (packets and,
/// for wired devices, bytes), the mean sojourn since the previous row, and the cumulative drops
/// and marks.
fn sample_queue(
    q: &mut Table,
    t: f64,
    name: &str,
    qdisc: &dyn crate::qdisc::Qdisc,
    (device_pkts, device_bytes): (usize, Option<u64>),
    st: &mut crate::net::iface::IfaceStats,
) {
    q.push_row(t, name);
    q.set("backlog_pkts", qdisc.len() as f64);
    q.set("backlog_bytes", qdisc.bytes() as f64);
    q.set("device_pkts", device_pkts as f64);
    if let Some(bytes) = device_bytes {
        q.set("device_bytes", bytes as f64);
    }
    let mut vars = Vec::new();
    qdisc.vars(&mut vars);
    for (var, v) in vars {
        q.set(&format!("qdisc.{var}"), v);
    }
    let sojourn = if st.interval_dequeued > 0 {
        st.interval_sojourn as f64 / st.interval_dequeued as f64 / crate::sim::MS as f64
    } else {
        f64::NAN
    };
    q.set("sojourn_ms", sojourn);
    st.interval_sojourn = 0;
    st.interval_dequeued = 0;
    q.set("drops", st.total.dropped as f64);
    q.set("marks", st.total.marked as f64);
}
