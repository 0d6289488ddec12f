//! The simulated world: nodes, interfaces, connections and apps, and the event loop that
//! moves packets between them.

use crate::app::{Action, App};
use crate::counters::{FlowStats, PingReply};
use crate::metrics::batches::Batches;
use crate::metrics::recorder::Recorder;
use crate::metrics::view::RunView;
use crate::net::iface::{IfaceStats, Next};
use crate::net::{ConnId, Iface, IfaceId, NodeId, Packet, Payload, Release};
use crate::sim::{EventQueue, Rng, Time};
use crate::tcp::cc::{CcEnv, Shared};
use crate::tcp::delack::AckPolicy;
use crate::tcp::rcvbuf::RcvBuf;
use crate::tcp::sender::{PACING_SHIFT_WIFI, PACING_SHIFT_WIRED};
use crate::tcp::{cc, Ctx, TcpConfig, TcpReceiver, TcpSender, TimerKind};
use crate::wifi::net::{WifiEvent, WifiNet};

#[derive(Clone, Copy, Debug)]
pub enum Event {
    /// An interface finished serializing its current packet.
    TxDone(IfaceId),
    /// The packet at the head of an interface's wire reaches the far node (one event per wire
    /// at a time: the next head's is scheduled when this one arrives).
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
    pub cc: cc::Config,
    pub opts: TcpConfig,
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
    /// The time series and the summary's measurement window.
    pub recorder: Recorder,
    /// Batches by delivered packets, when `[metrics] batches` asks for them; the last one
    /// complete ends the run.
    pub batches: Option<Batches>,
    pub packets_forwarded: u64,
    out: Vec<Packet>,
    timers: Vec<(Time, TimerKind)>,
    actions: Vec<Action>,
    /// Packets of local sockets that left their hosts, for their senders to hear of.
    released: Vec<Release>,
    /// The sockets `settle_releases` resumes, kept to reuse its allocation.
    woken: Vec<ConnId>,
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
            recorder: Recorder::new(interval, warmup),
            batches: None,
            packets_forwarded: 0,
            out: Vec::new(),
            timers: Vec::new(),
            actions: Vec::new(),
            released: Vec::new(),
            woken: Vec::new(),
        }
    }

    pub fn now(&self) -> Time {
        self.events.now()
    }

    /// Schedule the apps, the Wi-Fi rate schedules, the end of the warm-up and the first
    /// sample; call once before [`World::advance`].
    pub fn start(&mut self) {
        self.with_recorder(|rec, w| rec.start(w));
        // Without a warm-up the measurement window, and with it the first batch, begins now.
        if self.recorder.warmup == 0 {
            self.start_batches();
        } else {
            self.begin_warmup();
        }
        // Rate schedules first, so a step at 0 s precedes any traffic.
        for net in 0..self.wifi.len() {
            self.wifi[net].start(0);
            self.collect_wifi(net as u16);
        }
        for i in 0..self.apps.len() {
            let at = self.apps[i].first_wake();
            self.events.schedule(at, Event::AppWake(i as u32));
        }
        if self.recorder.warmup > 0 {
            self.events.schedule(self.recorder.warmup, Event::Warmup);
        }
        self.events.schedule(self.recorder.interval, Event::Sample);
    }

    /// Process every event up to `until` (capped at the scenario duration). Running in
    /// chunks lets a caller show progress or stop early; the result does not depend on how
    /// the run is chunked.
    pub fn advance(&mut self, until: Time) {
        while let Some(t) = self.events.peek_time() {
            // The duration shrinks when the last batch completes.
            if t > until.min(self.duration) {
                break;
            }
            let (_, ev) = self.events.pop().expect("peeked");
            self.dispatch(ev);
            self.settle_releases();
        }
    }

    /// The first batch begins with the measurement window (see [`crate::metrics::batches`]).
    fn start_batches(&mut self) {
        let now = self.now();
        if let Some(b) = &mut self.batches {
            b.start(&self.flows, now);
        }
    }

    /// Lend the recorder a read-only view of the world.
    fn with_recorder(&mut self, f: impl FnOnce(&mut Recorder, &World)) {
        let mut rec = std::mem::take(&mut self.recorder);
        f(&mut rec, self);
        self.recorder = rec;
    }

    /// The run begins with a warm-up: the distributions take no samples until the
    /// measurement window, which would discard them unread.
    fn begin_warmup(&mut self) {
        for f in self.flows.iter_mut() {
            f.begin_warmup();
        }
        for st in self.queue_stats() {
            st.begin_warmup();
        }
    }

    /// The measurement window begins: every distribution starts empty and takes samples from
    /// now on (the recorder takes the counters' baseline at the same instant).
    fn start_window_distributions(&mut self) {
        for f in self.flows.iter_mut() {
            f.start_window();
        }
        for st in self.queue_stats() {
            st.start_window();
        }
    }

    /// The queueing layers' statistics: the wired interfaces' and the Wi-Fi devices'.
    fn queue_stats(&mut self) -> impl Iterator<Item = &mut IfaceStats> {
        let devs = self.wifi.iter_mut().flat_map(|n| &mut n.devs);
        self.ifaces.iter_mut().map(|i| &mut i.stats).chain(devs.map(|d| &mut d.stats))
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
                let (pkt, next) = iface.arrive();
                let node = iface.to;
                if let Some((at, seq)) = next {
                    self.events.schedule_reserved(at, seq, Event::Arrive(i));
                }
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
                    TimerKind::DelayedAck | TimerKind::SackCompress => conn.receiver.on_timer(kind, &mut ctx),
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
            Event::Warmup => {
                self.with_recorder(|rec, w| rec.start_window(w));
                self.start_window_distributions();
                self.start_batches();
            }
            Event::Sample => {
                self.with_recorder(|rec, w| rec.sample(w));
                let next = self.now() + self.recorder.interval;
                if next <= self.duration {
                    self.events.schedule(next, Event::Sample);
                }
            }
        }
    }

    /// Tell senders that their packets left their hosts, which may let them send more (and
    /// release more).
    /// Like Linux's TSQ tasklet, each socket sends once for all of its packets that left.
    fn settle_releases(&mut self) {
        if self.released.is_empty() {
            return;
        }
        let mut woken = std::mem::take(&mut self.woken);
        while !self.released.is_empty() {
            for r in self.released.drain(..) {
                self.conns[r.conn as usize].sender.release(r.size);
                if !woken.contains(&r.conn) {
                    woken.push(r.conn);
                }
            }
            for c in woken.drain(..) {
                let now = self.now();
                let conn = &mut self.conns[c as usize];
                let flow = &mut self.flows[conn.sender.flow as usize];
                let mut ctx = Ctx { now, out: &mut self.out, timers: &mut self.timers, flow };
                conn.sender.resume_after_release(&mut ctx);
                self.flush(c);
            }
        }
        self.woken = woken;
    }

    fn schedule_iface(&mut self, i: IfaceId, next: Next) {
        let released = &mut self.ifaces[i as usize].released;
        if !released.is_empty() {
            self.released.append(released);
        }
        if let Some(t) = next.tx_done {
            self.events.schedule(t, Event::TxDone(i));
        }
        if let Some(t) = next.arrival {
            let seq = self.events.reserve();
            if self.ifaces[i as usize].wire_place(seq) {
                self.events.schedule_reserved(t, seq, Event::Arrive(i));
            }
        }
        if let Some(t) = next.wake {
            self.events.schedule(t, Event::QdiscWake(i));
        }
    }

    /// A packet reached `node` over a link: take it in or forward it.
    fn arrive_at(&mut self, node: NodeId, mut pkt: Packet) {
        pkt.charged = false;
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
        if !w.released.is_empty() {
            self.released.append(&mut w.released);
        }
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
        let sender = &self.conns[conn as usize].sender;
        // The sender's socket marks its packets with the flow's DSCP (IP_TOS); the receiver's
        // ACKs go unmarked.
        let (sender_node, dscp) = (sender.node, self.apps[sender.flow as usize].dscp);
        for pkt in out.iter_mut().filter(|p| p.src == sender_node) {
            pkt.dscp = dscp;
        }
        self.send_socket_output(conn, out.drain(..));
        self.out = out;
    }

    /// Send what socket `conn` produced, in order, from the hosts the packets name.
    fn send_socket_output(&mut self, conn: ConnId, mut pending: impl Iterator<Item = Packet>) {
        let now = self.now();
        while let Some(pkt) = pending.next() {
            // Only a packet charged to the socket can be refused back to it: keep a copy of it
            // (a data segment, which carries no out-of-line SACK blocks) for that case.
            let refusal = Release::of(&pkt, true).map(|r| (r, pkt.clone()));
            let seen = self.released.len();
            self.send_from(pkt.src, pkt);
            let Some((refused, pkt)) = refusal else { continue };
            // The sender's own qdisc refused this very packet (NET_XMIT_DROP): the socket
            // takes it and everything after it back, unsent.
            if let Some(at) = self.released[seen..].iter().position(|r| *r == refused) {
                self.released.remove(seen + at);
                let unsent: Vec<Packet> = std::iter::once(pkt).chain(pending).collect();
                let conn = &mut self.conns[conn as usize];
                let flow = &mut self.flows[conn.sender.flow as usize];
                let mut ctx = Ctx { now, out: &mut self.out, timers: &mut self.timers, flow };
                conn.sender.on_local_refusal(&unsent, &mut ctx);
                return;
            }
        }
    }

    fn deliver_local(&mut self, node: NodeId, pkt: Packet) {
        if self.batches.is_none() {
            return self.receive(node, pkt);
        }
        let flow = match pkt.payload {
            Payload::Tcp(_) => self.conns[pkt.conn as usize].sender.flow,
            _ => pkt.flow,
        } as usize;
        let before = self.flows[flow].total.packets_delivered;
        self.receive(node, pkt);
        let delivered = self.flows[flow].total.packets_delivered - before;
        if let Some(b) = self.batches.as_mut().filter(|_| delivered > 0) {
            let now = self.events.now();
            if b.on_delivered(flow, delivered, &self.flows, now) {
                self.duration = now;
            }
        }
    }

    fn receive(&mut self, node: NodeId, pkt: Packet) {
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
                flow.on_delivery(u64::from(pkt.size - crate::net::packet::UDP_HEADER), now);
                flow.on_data_arrival(now - sent_at, true);
            }
            Payload::Ping { seq, sent_at, reply } => {
                if reply {
                    let flow = &mut self.flows[pkt.flow as usize];
                    flow.add_rtt(now - sent_at);
                    flow.pings.push(PingReply { seq, at: now, rtt: now - sent_at });
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
        let cc = cc::create(&profile.cc, &mut env).expect("congestion control checked at build time");
        let sender = TcpSender::new(c, app.flow, app.src, app.dst, profile.opts.clone(), cc);
        let o = &profile.opts;
        let buf = RcvBuf::new(o.rmem, o.window_ratio, o.rwnd, o.mss);
        let mut receiver = TcpReceiver::new(c, app.flow, app.dst, app.src, AckPolicy::of(o), buf);
        if bytes != u64::MAX {
            receiver.expect_message(bytes, self.now());
        }
        let mut sender = sender;
        if let Some(Route::Wifi { .. }) = self.nodes[app.src as usize].routes[app.dst as usize] {
            sender.set_pacing_shift(PACING_SHIFT_WIFI);
        } else {
            sender.set_pacing_shift(PACING_SHIFT_WIRED);
        }
        self.conns.push(Conn { sender, receiver });
        self.app_conns[a].push(c);
        let now = self.now();
        let conn = &mut self.conns[c as usize];
        let flow = &mut self.flows[app.flow as usize];
        flow.conn_opened(now);
        let mut ctx = Ctx { now, out: &mut self.out, timers: &mut self.timers, flow };
        conn.sender.open(&mut ctx);
        conn.sender.write(bytes, &mut ctx);
        // An app that opens a connection for a message of known size closes it after that
        // message (`bulk`'s unlimited one only stops). Nothing is sent before the handshake
        // completes, so the message's last segment is still to go.
        if bytes != u64::MAX {
            conn.sender.close();
        }
        self.flush(c);
    }
}

impl RunView for World {
    fn now(&self) -> Time {
        World::now(self)
    }

    fn duration(&self) -> Time {
        self.duration
    }

    fn flows(&self) -> &[FlowStats] {
        &self.flows
    }

    fn app_senders(&self) -> impl Iterator<Item = (usize, Option<&TcpSender>)> {
        let newest = |conns: &Vec<ConnId>| conns.last().map(|&c| &self.conns[c as usize].sender);
        self.apps.iter().zip(&self.app_conns).map(move |(app, conns)| (app.flow as usize, newest(conns)))
    }

    fn ifaces(&self) -> &[Iface] {
        &self.ifaces
    }

    fn wifi(&self) -> &[WifiNet] {
        &self.wifi
    }

    fn node_name(&self, node: NodeId) -> &str {
        &self.nodes[node as usize].name
    }
}
