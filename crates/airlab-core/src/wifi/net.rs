//! A Wi-Fi network: the members' interfaces (qdisc, device queues, EDCA), the channel they
//! share, and the frame exchanges that move packets between them.
//!
//! An exchange is what a node does when its backoff ends: pick the destination to serve, build
//! an A-MPDU from that destination's queue (or take one frame), optionally protect it with
//! RTS/CTS, send it, and wait for the ACK or Block Ack a SIFS later. An 802.11ax AP with
//! downlink OFDMA may instead send to several stations at once in one HE MU PPDU
//! ([`super::ofdma`]), then an MU-BAR trigger, which the stations answer together with Block
//! Acks in HE TB PPDUs: one transmission from several nodes. With uplink OFDMA the AP also
//! triggers its stations ([`super::ofdma::ul`]): a Buffer Status Report Poll, the stations'
//! reports in HE TB PPDUs, a Basic Trigger, their data in HE TB PPDUs, and a Multi-STA Block
//! Ack. Every frame, including the responses, is a transmission on the channel: nodes that
//! hear it turn busy, lock onto it if they were idle, and lose it if another transmission they
//! hear overlaps it. What is abstracted away is listed in `docs/models/wifi.md`.

use super::link::{LinkStats, Peer, Reception};
use super::mac80211;
use super::medium::Medium;
use super::ofdma::sched::{Eligible, MuScheduler, Served};
use super::ofdma::{self, ul, MuEdca, Obo, Ofdma, UlScheduler};
use super::phy::{self, TxVector};
use super::queues::{DeviceQueues, Mpdu};
use super::telemetry::AirtimeTable;
use crate::metrics::FlowStats;
use crate::net::iface::IfaceStats;
use crate::net::{NodeId, Packet, Release};
use crate::qdisc::{Qdisc, Verdicts};
use crate::sim::{Rng, Time};
use serde::Serialize;

/// Events of a Wi-Fi network, scheduled by the world and handed back to [`WifiNet::handle`].
#[derive(Clone, Copy, Debug)]
pub enum WifiEvent {
    /// A node's backoff countdown ends (if `gen` is still its current countdown).
    Access { dev: u32, gen: u32 },
    /// A transmission ends.
    TxEnd { tx: u32 },
    /// A SIFS after a reception: the node sends its response (CTS, ACK, Block Ack) or, after a
    /// CTS, its data.
    Respond { dev: u32 },
    /// The response an initiator waits for did not come.
    Timeout { dev: u32, gen: u32 },
    /// A shaping qdisc of a node's interface may hand out a packet again.
    QdiscWake { dev: u32 },
    /// Step `step` of the rate schedule of a node's link to peer `peer` begins.
    RateChange { dev: u32, peer: u16, step: u32 },
    /// An uplink OFDMA AP's periodic poll is due.
    UlPoll { dev: u32 },
}

/// Networks a scenario may have: the network index shares a byte with the event kind when an
/// event is packed.
pub const MAX_NETWORKS: usize = 32;

impl WifiEvent {
    /// The event and its network in 7 bytes (kind and network, device, argument), so that the
    /// world's event stays 8 bytes: the event heap is the hottest data of a run. Devices and
    /// schedule steps fit in 16 bits (checked when the network is built).
    pub fn pack(self, net: u16) -> (u8, u16, u32) {
        debug_assert!((net as usize) < MAX_NETWORKS);
        let (kind, dev, arg) = match self {
            WifiEvent::Access { dev, gen } => (0, dev, gen),
            WifiEvent::TxEnd { tx } => (1, 0, tx),
            WifiEvent::Respond { dev } => (2, dev, 0),
            WifiEvent::Timeout { dev, gen } => (3, dev, gen),
            WifiEvent::QdiscWake { dev } => (4, dev, 0),
            WifiEvent::RateChange { dev, peer, step } => (5, dev, u32::from(peer) << 16 | step),
            WifiEvent::UlPoll { dev } => (6, dev, 0),
        };
        ((kind << 5) | net as u8, dev as u16, arg)
    }

    /// The inverse of [`WifiEvent::pack`]: the network and the event.
    pub fn unpack(head: u8, dev: u16, arg: u32) -> (u16, WifiEvent) {
        let dev = u32::from(dev);
        let ev = match head >> 5 {
            0 => WifiEvent::Access { dev, gen: arg },
            1 => WifiEvent::TxEnd { tx: arg },
            2 => WifiEvent::Respond { dev },
            3 => WifiEvent::Timeout { dev, gen: arg },
            4 => WifiEvent::QdiscWake { dev },
            5 => WifiEvent::RateChange { dev, peer: (arg >> 16) as u16, step: arg & 0xffff },
            _ => WifiEvent::UlPoll { dev },
        };
        (u16::from(head & 0x1f), ev)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Frame {
    Rts,
    Cts,
    Data,
    Ack,
    BlockAck,
    /// An HE MU PPDU: data for several stations.
    MuData,
    /// The trigger asking the stations of an HE MU PPDU for their Block Acks.
    MuBar,
    /// The stations' Block Acks in HE TB PPDUs, sent together.
    TbBlockAck,
    /// A Buffer Status Report Poll trigger.
    Bsrp,
    /// The polled stations' buffer status reports (QoS Nulls) in HE TB PPDUs, sent together.
    TbBsr,
    /// A Basic Trigger granting RUs for uplink data.
    BasicTrigger,
    /// The granted stations' data in HE TB PPDUs, sent together.
    TbData,
    /// The AP's Multi-STA Block Ack to the stations of a TB data PPDU.
    MultiStaBa,
}

/// The receiver of a frame addressed to several stations.
const GROUP: u32 = u32::MAX;

/// A transmission on the air.
struct Tx {
    /// The sender; for HE TB PPDUs the first of the responders its receiver's exchange lists,
    /// which all send at once.
    src: u32,
    /// The receiver, or [`GROUP`].
    dst: u32,
    frame: Frame,
    /// End of the medium reservation its duration field announces (NAV for overhearers).
    nav_until: Time,
    /// Duration of the response it asks for (CTS after RTS, ACK/Block Ack after data).
    resp_dur: Time,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Stage {
    AwaitCts,
    AwaitResponse,
}

/// The frames of an exchange for one destination.
struct Part {
    peer: u16,
    mpdus: Vec<Mpdu>,
    /// What decides each MPDU's fate at the peer.
    reception: Reception,
    /// Per MPDU: received intact by the peer.
    received: Vec<bool>,
    /// The peer's ACK or Block Ack arrived.
    acked: bool,
    /// The queue size the frames report to an AP scheduling uplink OFDMA (QoS Control), in
    /// PSDU bytes; 0 otherwise.
    report: u32,
}

impl Part {
    fn new(peer: u16, mpdus: Vec<Mpdu>, reception: Reception) -> Self {
        let received = vec![false; mpdus.len()];
        Part { peer, mpdus, reception, received, acked: false, report: 0 }
    }
}

/// Which part of a node's frames a reception is about.
#[derive(Clone, Copy)]
enum PartOf {
    /// Part `k` of its exchange.
    Exchange(usize),
    /// Its HE TB response to a trigger.
    Tb,
}

/// An AP's uplink OFDMA cycle: the trigger it is at.
struct UlCycle {
    /// The stations the current trigger addresses.
    addressed: Vec<u32>,
    /// A BSRP (answered by buffer status reports) rather than a Basic Trigger (data).
    polling: bool,
    /// Random-access RUs in the trigger, and the stations that sent on them with their RU.
    ra_rus: usize,
    ra: Vec<(u32, u16)>,
}

impl UlCycle {
    /// Whether station `s` sent on an RA-RU another station picked too.
    fn collided(&self, s: u32) -> bool {
        self.ra
            .iter()
            .find(|&&(x, _)| x == s)
            .is_some_and(|&(_, ru)| self.ra.iter().filter(|&&(_, r)| r == ru).count() > 1)
    }
}

/// The frame exchange a node is in the middle of: one part, or one per station of an HE MU
/// PPDU.
struct Exchange {
    parts: Vec<Part>,
    data_dur: Time,
    /// The MU-BAR trigger's duration and each station's RU tones, for an HE MU PPDU.
    mu_bar: Option<Time>,
    ru_tones: u16,
    /// The stations answering the MU-BAR or an uplink trigger, which send their HE TB PPDUs
    /// together.
    responders: Vec<u32>,
    /// The uplink OFDMA cycle, when the AP runs one.
    ul: Option<UlCycle>,
    resp: Frame,
    resp_dur: Time,
    stage: Stage,
    started: Time,
    /// End of the last frame this node sent in the exchange.
    tx_end: Time,
    timeout_gen: u32,
}

/// A frame a node must send a SIFS after a reception.
struct Pending {
    to: u32,
    frame: Frame,
    dur: Time,
    nav_until: Time,
    resp_dur: Time,
}

/// The frames of an exchange about to start and the durations it needs.
struct Plan {
    /// One destination's frames, or one per station of an HE MU PPDU.
    parts: Vec<Part>,
    data_dur: Time,
    /// The MU-BAR trigger after an HE MU PPDU, and each station's RU tones.
    mu_bar: Option<Time>,
    ru_tones: u16,
    resp: Frame,
    resp_dur: Time,
    /// RTS and CTS durations when the exchange is protected.
    protection: Option<(Time, Time)>,
}

impl Plan {
    /// From the first frame to the end of the response.
    fn airtime(&self, sifs: Time) -> Time {
        let protect = self.protection.map_or(0, |(rts, cts)| rts + sifs + cts + sifs);
        let trigger = self.mu_bar.map_or(0, |bar| bar + sifs);
        protect + self.data_dur + sifs + trigger + self.resp_dur
    }
}

/// EDCA parameters of the access category every node uses.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Edca {
    pub cw_min: u32,
    pub cw_max: u32,
    pub aifsn: u32,
    /// Transmission attempts of a frame before it is dropped (dot11ShortRetryLimit).
    pub retry_limit: u32,
    /// TXOP limit; 0 means one frame exchange per channel access.
    pub txop: Time,
}

impl Edca {
    /// Best effort: the 802.11 default EDCA parameter set (ns-3's defaults).
    pub const BEST_EFFORT: Edca = Edca { cw_min: 15, cw_max: 1023, aifsn: 3, retry_limit: 7, txop: 0 };
}

/// A-MPDU aggregation limits of one node's transmissions.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Aggregation {
    pub enabled: bool,
    /// MPDUs per A-MPDU (the driver's limit; capped by the Block Ack window).
    pub max_mpdus: u32,
    /// A-MPDU length in bytes (delimiters and padding included).
    pub max_bytes: u32,
    /// PPDU duration.
    pub max_duration: Time,
}

/// One member's Wi-Fi interface.
pub struct WifiDev {
    pub node: NodeId,
    /// "net:node".
    pub name: String,
    pub qdisc: Box<dyn Qdisc>,
    pub stats: IfaceStats,
    pub queues: DeviceQueues,
    /// Drops and marks of the device layer (mac80211's TXQs), counted apart from the qdisc's.
    device_verdicts: Verdicts,
    aggregation: Aggregation,
    pub peers: Vec<Peer>,
    /// Destination node -> peer index (the next hop inside this network).
    route: Vec<Option<u16>>,
    /// Device index -> peer index.
    peer_of: Vec<Option<u16>>,
    cw: u32,
    exchange: Option<Exchange>,
    /// The emptied parts list of the last exchange, kept for the next one (an exchange per
    /// channel access is the hot path: this saves an allocation each).
    spare_parts: Vec<Part>,
    response: Option<Pending>,
    /// When the node won the channel for its current TXOP.
    txop_start: Time,
    /// A station's HE TB response to a trigger, until the AP acknowledges it.
    tb: Option<Part>,
    /// A station uses the MU EDCA parameters until then.
    mu_edca_until: Time,
    /// A station's OFDMA backoff for random-access RUs.
    obo: Obo,
    wake_at: Option<Time>,
    verdicts: Verdicts,
    rng: Rng,
    /// An AP's airtime table, when it writes airtime telemetry into its stations' packets.
    telemetry: Option<Box<AirtimeTable>>,
}

impl WifiDev {
    pub fn new(
        node: NodeId,
        name: String,
        qdisc: Box<dyn Qdisc>,
        queues: DeviceQueues,
        aggregation: Aggregation,
        peers: Vec<Peer>,
        rng: Rng,
    ) -> Self {
        WifiDev {
            node,
            name,
            qdisc,
            stats: IfaceStats::default(),
            queues,
            device_verdicts: Verdicts::default(),
            aggregation,
            peers,
            route: Vec::new(),
            peer_of: Vec::new(),
            cw: 0,
            exchange: None,
            spare_parts: Vec::new(),
            response: None,
            txop_start: 0,
            tb: None,
            mu_edca_until: 0,
            obo: Obo::default(),
            wake_at: None,
            verdicts: Verdicts::default(),
            rng,
            telemetry: None,
        }
    }

    /// Account the airtime of the packets this AP receives from its stations and write
    /// airtime telemetry into them (paper 004's AP).
    pub fn with_telemetry(mut self, table: AirtimeTable) -> Self {
        self.telemetry = Some(Box::new(table));
        self
    }

    /// Send packets for `dst` to peer `peer`.
    pub fn set_route(&mut self, dst: NodeId, peer: u16) {
        let i = dst as usize;
        if self.route.len() <= i {
            self.route.resize(i + 1, None);
        }
        self.route[i] = Some(peer);
    }

    /// The counters of the link to `peer` at `now`, the exchange in progress counted with the
    /// airtime it has held so far.
    pub fn link_stats(&self, peer: usize, now: Time) -> LinkStats {
        let mut stats = self.peers[peer].stats_at(now);
        if let Some(ex) = self.exchange.as_ref().filter(|ex| ex.parts.iter().any(|p| usize::from(p.peer) == peer)) {
            stats.airtime += now.saturating_sub(ex.started) / ex.parts.len() as Time;
        }
        stats
    }

    /// Frames held below the qdisc, including the exchange in progress and an HE TB response.
    pub fn device_backlog(&self) -> usize {
        let exchange = self.exchange.as_ref().map_or(0, |e| e.parts.iter().map(|p| p.mpdus.len()).sum());
        self.queues.len() + exchange + self.tb.as_ref().map_or(0, |p| p.mpdus.len())
    }

    /// Free to answer a trigger: not in an exchange of its own nor about to respond.
    fn can_answer_trigger(&self) -> bool {
        self.exchange.is_none() && self.response.is_none() && self.tb.is_none()
    }
}

/// The access point of a BSS using OFDMA.
struct MuAp {
    dev: u32,
    settings: Ofdma,
    ul: UlScheduler,
    /// Who shares each HE MU PPDU, and each Basic Trigger.
    dl_scheduler: Box<dyn MuScheduler>,
    ul_scheduler: Box<dyn MuScheduler>,
    /// The periodic poll came due and no BSRP has gone out since.
    poll_due: bool,
}

impl MuAp {
    /// Whether the AP has reason to trigger its stations: reported data, or a poll due.
    fn wants_uplink(&self) -> bool {
        self.ul.has_demand() || self.poll_due
    }
}

/// Counters of a BSS's uplink OFDMA cycles.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UlStats {
    /// Cycles the AP started (each with a BSRP or a Basic Trigger).
    pub cycles: u64,
    /// Their total duration, from the first trigger to the Multi-STA Block Ack or timeout.
    pub cycle_time: Time,
    pub bsrps: u64,
    pub basic_triggers: u64,
    /// Stations that sent data in HE TB PPDUs, summed over the Basic Triggers.
    pub tb_users: u64,
    /// Transmissions on random-access RUs, and those alone on their RU.
    pub ra_attempts: u64,
    pub ra_successes: u64,
}

impl UlStats {
    pub fn since(&self, earlier: &UlStats) -> UlStats {
        UlStats {
            cycles: self.cycles - earlier.cycles,
            cycle_time: self.cycle_time - earlier.cycle_time,
            bsrps: self.bsrps - earlier.bsrps,
            basic_triggers: self.basic_triggers - earlier.basic_triggers,
            tb_users: self.tb_users - earlier.tb_users,
            ra_attempts: self.ra_attempts - earlier.ra_attempts,
            ra_successes: self.ra_successes - earlier.ra_successes,
        }
    }
}

pub struct WifiNet {
    pub name: String,
    slot: Time,
    sifs: Time,
    aifs: Time,
    eifs: Time,
    edca: Edca,
    rts: bool,
    /// The AP, when the BSS uses OFDMA.
    mu: Option<MuAp>,
    /// Uplink OFDMA cycles so far.
    pub ul_stats: UlStats,
    pub devs: Vec<WifiDev>,
    medium: Vec<Medium>,
    /// Per node: the nodes that hear its transmissions.
    hears: Vec<Vec<u32>>,
    txs: Vec<Option<Tx>>,
    free_txs: Vec<u32>,
    err_rng: Rng,
    /// Time with at least one transmission on the air, and its bookkeeping.
    pub busy_time: Time,
    on_air: u32,
    busy_since: Time,
    /// Events to schedule and packets delivered to a member node, for the world to collect
    /// after each call.
    pub events: Vec<(Time, WifiEvent)>,
    pub delivered: Vec<(NodeId, Packet)>,
    /// Packets of member nodes' own sockets that left them (acknowledged, given up or dropped
    /// by a qdisc), for the world to collect after each call.
    pub released: Vec<Release>,
    up: Vec<Packet>,
    /// Scratch lists: who hears a transmission, and who received it intact.
    audience: Vec<u32>,
    intact: Vec<u32>,
}

impl WifiNet {
    /// A network over `devs`, where `hears[i]` lists the devices that hear device `i`;
    /// `ofdma` is the AP's device and its OFDMA settings.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        name: String,
        timing: phy::MacTiming,
        edca: Edca,
        rts: bool,
        ofdma: Option<(u32, Ofdma)>,
        mut devs: Vec<WifiDev>,
        hears: Vec<Vec<u32>>,
        err_rng: Rng,
    ) -> Self {
        let aifs = timing.aifs(edca.aifsn as u8);
        // EDCA defers EIFS − DIFS + AIFS after a corrupted frame (802.11-2020 10.23.2.4).
        let eifs = timing.eifs(&TxVector::non_ht(6)) - timing.difs() + aifs;
        let n = devs.len();
        let mu = ofdma.map(|(dev, settings)| {
            let peers = devs[dev as usize].peers.len();
            MuAp {
                dev,
                settings,
                ul: UlScheduler::new(peers),
                dl_scheduler: settings.scheduler.create(peers),
                ul_scheduler: settings.scheduler.create(peers),
                poll_due: false,
            }
        });
        let uora = mu.as_ref().and_then(|mu| mu.settings.ul?.uora);
        for d in devs.iter_mut() {
            d.cw = edca.cw_min;
            if let Some(uora) = uora {
                d.obo.after_attempt(true, &uora, &mut d.rng);
            }
            d.peer_of = vec![None; n];
            for (k, p) in d.peers.iter().enumerate() {
                d.peer_of[p.dev as usize] = Some(k as u16);
            }
        }
        WifiNet {
            name,
            slot: timing.slot,
            sifs: timing.sifs,
            aifs,
            eifs,
            edca,
            rts,
            mu,
            ul_stats: UlStats::default(),
            devs,
            medium: (0..n).map(|_| Medium { ifs: (aifs, eifs), ..Medium::default() }).collect(),
            hears,
            txs: Vec::new(),
            free_txs: Vec::new(),
            err_rng,
            busy_time: 0,
            on_air: 0,
            busy_since: 0,
            events: Vec::new(),
            delivered: Vec::new(),
            released: Vec::new(),
            up: Vec::new(),
            audience: Vec::new(),
            intact: Vec::new(),
        }
    }

    /// Whether the BSS's AP triggers uplink OFDMA.
    pub fn runs_ul_ofdma(&self) -> bool {
        self.mu.as_ref().is_some_and(|mu| mu.settings.ul.is_some())
    }

    /// Time with at least one transmission on the air, up to `now`.
    pub fn busy_at(&self, now: Time) -> Time {
        self.busy_time + if self.on_air > 0 { now - self.busy_since } else { 0 }
    }

    /// Schedule the first step of every link's rate schedule and the first uplink poll,
    /// counted from `now`; call once before the run.
    pub fn start(&mut self, now: Time) {
        if let Some(mu) = &self.mu {
            if let Some(interval) = mu.settings.ul.and_then(|ul| ul.poll_interval) {
                self.events.push((now + interval, WifiEvent::UlPoll { dev: mu.dev }));
            }
        }
        for (dev, d) in self.devs.iter_mut().enumerate() {
            for (peer, p) in d.peers.iter_mut().enumerate() {
                p.rate_since = now;
                if let Some(schedule) = &p.schedule {
                    let ev = WifiEvent::RateChange { dev: dev as u32, peer: peer as u16, step: 0 };
                    self.events.push((now + schedule.steps[0].0, ev));
                }
            }
        }
    }

    /// Offer a packet to device `dev`'s qdisc.
    pub fn enqueue(&mut self, dev: u32, pkt: Packet, now: Time, flows: &mut [FlowStats]) {
        let d = &mut self.devs[dev as usize];
        if let Some(table) = d.telemetry.as_mut() {
            table.on_downlink(&pkt, now);
        }
        d.stats.on_enqueue();
        d.qdisc.enqueue(pkt, now, &mut d.verdicts);
        d.stats.settle(&mut d.verdicts, flows, &mut self.released);
        self.pump(dev, now, flows);
    }

    pub fn handle(&mut self, ev: WifiEvent, now: Time, flows: &mut [FlowStats]) {
        match ev {
            WifiEvent::Access { dev, gen } => self.on_access(dev, gen, now),
            WifiEvent::TxEnd { tx } => self.on_tx_end(tx, now, flows),
            WifiEvent::Respond { dev } => {
                if let Some(r) = self.devs[dev as usize].response.take() {
                    self.start_tx(dev, r, now);
                }
            }
            WifiEvent::Timeout { dev, gen } => {
                if self.devs[dev as usize].exchange.as_ref().is_some_and(|e| e.timeout_gen == gen) {
                    self.complete(dev, now, flows);
                }
            }
            WifiEvent::QdiscWake { dev } => {
                if self.devs[dev as usize].wake_at == Some(now) {
                    self.devs[dev as usize].wake_at = None;
                    self.pump(dev, now, flows);
                }
            }
            WifiEvent::RateChange { dev, peer, step } => self.on_rate_change(dev, peer, step as usize, now),
            WifiEvent::UlPoll { dev } => self.on_ul_poll(dev, now),
        }
    }

    /// The AP's poll interval passed: it contends for a BSRP, and the next poll is due an
    /// interval later.
    fn on_ul_poll(&mut self, dev: u32, now: Time) {
        let mu = self.mu.as_mut().expect("polls come from an uplink OFDMA AP");
        mu.poll_due = true;
        let interval = mu.settings.ul.and_then(|ul| ul.poll_interval).expect("polls have an interval");
        self.events.push((now + interval, WifiEvent::UlPoll { dev }));
        self.contend(dev, now);
    }

    /// A link takes the PHY of a schedule step: the exchange in progress keeps the rates it
    /// started with (its durations are fixed), the next one uses the new PHY. Then the next
    /// step is scheduled, wrapping around to the first after the period.
    fn on_rate_change(&mut self, dev: u32, peer: u16, step: usize, now: Time) {
        let p = &mut self.devs[dev as usize].peers[peer as usize];
        let schedule = p.schedule.as_ref().expect("rate changes come from a schedule");
        let (at, txv, radio) = schedule.steps[step];
        // The start of this run through the steps.
        let origin = now - at;
        let next = match (schedule.steps.get(step + 1), schedule.period) {
            (Some(&(next_at, ..)), _) => Some((step + 1, origin + next_at)),
            (None, Some(period)) => Some((0, origin + period + schedule.steps[0].0)),
            (None, None) => None,
        };
        p.set_phy(txv, radio, now);
        if let Some((step, at)) = next {
            self.events.push((at, WifiEvent::RateChange { dev, peer, step: step as u32 }));
        }
    }

    /// Move packets from the qdisc into the device queues while they have room, then make
    /// sure the node contends if it has frames.
    fn pump(&mut self, dev: u32, now: Time, flows: &mut [FlowStats]) {
        let d = &mut self.devs[dev as usize];
        d.queues.expire(now, &mut d.device_verdicts);
        while !d.queues.is_full() {
            let Some(pkt) = d.qdisc.dequeue(now, &mut d.verdicts) else {
                if !d.qdisc.is_empty() {
                    if let Some(at) = d.qdisc.next_ready() {
                        let at = at.max(now + 1);
                        if d.wake_at.is_none_or(|pending| pending > at) {
                            d.wake_at = Some(at);
                            self.events.push((at, WifiEvent::QdiscWake { dev }));
                        }
                    }
                }
                break;
            };
            d.stats.on_dequeue(&pkt, now);
            let peer = d.route.get(pkt.dst as usize).copied().flatten().expect("routes are checked at build time");
            d.queues.push(peer, pkt, now, &mut d.device_verdicts);
        }
        d.qdisc.spill(&mut d.verdicts);
        let peers = &d.peers;
        d.queues.fill(now, &mut d.device_verdicts, |peer, bytes| {
            mac80211::expected_airtime(&peers[peer as usize].txv, bytes)
        });
        d.stats.settle(&mut d.verdicts, flows, &mut self.released);
        d.stats.settle_device(&mut d.device_verdicts, flows, &mut self.released);
        self.contend(dev, now);
    }

    /// Whether a node has something to do with the channel: frames to send, or, for an AP
    /// running uplink OFDMA, stations that reported queued data.
    fn wants_channel(&self, dev: u32) -> bool {
        self.devs[dev as usize].queues.has_frames() || self.ul_ap(dev).is_some_and(MuAp::wants_uplink)
    }

    /// The OFDMA AP's state when `dev` is an AP running uplink OFDMA.
    fn ul_ap(&self, dev: u32) -> Option<&MuAp> {
        self.mu.as_ref().filter(|mu| mu.dev == dev && mu.settings.ul.is_some())
    }

    /// A node that now wants the channel and is not contending yet starts: after AIFS if the
    /// medium is idle, otherwise after a backoff too (802.11-2020 10.23.2.2).
    fn contend(&mut self, dev: u32, now: Time) {
        let wants = self.wants_channel(dev);
        let d = &mut self.devs[dev as usize];
        let m = &mut self.medium[dev as usize];
        if !m.pending && d.exchange.is_none() && wants {
            m.pending = true;
            m.slots = if m.is_idle(now) { 0 } else { d.rng.below(u64::from(d.cw) + 1) as u32 };
            self.schedule_access(dev, now);
        }
    }

    /// The MU EDCA parameters a station contends with at `now`, if its timer runs.
    fn mu_edca_of(&self, dev: u32, now: Time) -> Option<MuEdca> {
        let mu_edca = self.mu.as_ref()?.settings.ul?.mu_edca?;
        (now < self.devs[dev as usize].mu_edca_until).then_some(mu_edca)
    }

    /// The contention window bounds of a node at `now`: its EDCA ones, or the MU EDCA ones.
    fn cw_bounds(&self, dev: u32, now: Time) -> (u32, u32) {
        self.mu_edca_of(dev, now).map_or((self.edca.cw_min, self.edca.cw_max), |m| (m.cw_min, m.cw_max))
    }

    /// Start (or resume) the countdown of a node that wants the channel and senses it idle,
    /// with the inter-frame spaces of its parameter set (MU EDCA's while its timer runs).
    fn schedule_access(&mut self, dev: u32, now: Time) {
        let (ifs, off_until) = match self.mu_edca_of(dev, now) {
            Some(mu) if mu.disables_edca() => ((self.aifs, self.eifs), self.devs[dev as usize].mu_edca_until),
            Some(mu) => {
                let aifs = self.sifs + Time::from(mu.aifsn) * self.slot;
                ((aifs, self.eifs - self.aifs + aifs), 0)
            }
            None => ((self.aifs, self.eifs), 0),
        };
        let m = &mut self.medium[dev as usize];
        let physically_idle = m.busy == 0 && !m.transmitting;
        if !m.pending || m.access_at.is_some() || !physically_idle || self.devs[dev as usize].exchange.is_some() {
            return;
        }
        (m.ifs, m.edca_off_until) = (ifs, off_until);
        let at = m.access_time(now, self.slot);
        m.access_gen = m.access_gen.wrapping_add(1);
        m.access_at = Some(at);
        self.events.push((at, WifiEvent::Access { dev, gen: m.access_gen }));
    }

    fn on_access(&mut self, dev: u32, gen: u32, now: Time) {
        let m = &mut self.medium[dev as usize];
        if m.access_gen != gen || m.access_at != Some(now) {
            return;
        }
        m.access_at = None;
        m.slots = 0;
        m.pending = false;
        if !self.wants_channel(dev) {
            return; // The post-transmission backoff ran out with nothing to send.
        }
        self.devs[dev as usize].txop_start = now;
        self.start_exchange(dev, now);
    }

    /// Start an exchange with the frames of the next destination, or, for an AP running
    /// uplink OFDMA whose turn it is, a trigger cycle.
    fn start_exchange(&mut self, dev: u32, now: Time) {
        let has_frames = self.devs[dev as usize].queues.has_frames();
        if let Some(mu) = self.mu.as_mut().filter(|mu| mu.dev == dev && mu.settings.ul.is_some()) {
            // Uplink when stations have data (or a poll is due) and the downlink has nothing or
            // had the last turn.
            let uplink = mu.wants_uplink() && (!has_frames || !mu.ul.last_was_ul);
            mu.ul.last_was_ul = uplink;
            if uplink {
                return self.start_ul_cycle(now);
            }
        }
        let plan = self.plan_exchange(dev);
        self.begin_exchange(dev, plan, now, now);
    }

    /// Take the frames of the next exchange from the device queues: an HE MU PPDU when the
    /// node is an OFDMA AP with frames for several stations, otherwise the next destination's
    /// frames, greedily as paper 002's scheduler (what is queued now, up to the aggregation
    /// limits); and work out the durations of the exchange.
    fn plan_exchange(&mut self, dev: u32) -> Plan {
        if let Some(ap) = self.mu.as_mut().filter(|mu| mu.dev == dev && mu.settings.dl) {
            let d = &mut self.devs[dev as usize];
            let scheduler = ap.dl_scheduler.as_mut();
            if let Some(mu) = ofdma::dl::plan_dl_mu(&mut d.queues, &d.peers, d.aggregation, ap.settings, scheduler) {
                let mut parts = std::mem::take(&mut d.spare_parts);
                let tones = mu.alloc.tones;
                parts.extend(mu.users.into_iter().map(|(peer, mpdus)| {
                    let p = &d.peers[peer as usize];
                    Part::new(peer, mpdus, p.reception(&p.txv.with_ru(tones), false))
                }));
                return Plan {
                    parts,
                    data_dur: mu.data_dur,
                    mu_bar: Some(mu.bar_dur),
                    ru_tones: mu.alloc.tones,
                    resp: Frame::TbBlockAck,
                    resp_dur: mu.tb_dur,
                    // MU-RTS is not modelled: an HE MU PPDU goes unprotected, as ns-3's default.
                    protection: None,
                };
            }
        }
        let d = &mut self.devs[dev as usize];
        let peer = d.queues.next_peer().expect("a node with frames has a destination to serve");
        let p = &d.peers[peer as usize];
        let (txv, basic, agg) = (p.txv, p.basic, d.aggregation);
        let max = if agg.enabled { agg.max_mpdus as usize } else { 1 };
        let mut psdu = 0u32;
        let mpdus = d.queues.take(peer, max, |taken, next| {
            let sub = phy::ampdu_subframe_bytes(phy::mpdu_bytes(next.pkt.size));
            if taken.is_empty() {
                psdu = sub;
                return true;
            }
            let more = psdu + sub;
            let fits = more <= agg.max_bytes && txv.ppdu_duration(more) <= agg.max_duration;
            if fits {
                psdu = more;
            }
            fits
        });
        if mpdus.len() == 1 {
            psdu = phy::mpdu_bytes(mpdus[0].pkt.size);
        }
        let ba_window = txv.format.block_ack_window().unwrap_or(64);
        let (resp, resp_dur) = if mpdus.len() > 1 {
            (Frame::BlockAck, phy::block_ack_duration(&basic, ba_window))
        } else {
            (Frame::Ack, phy::ack_duration(&basic))
        };
        let protection = if self.rts { Some((phy::rts_duration(&basic), phy::cts_duration(&basic))) } else { None };
        let data_dur = txv.ppdu_duration(psdu);
        let mut part = Part::new(peer, mpdus, d.peers[peer as usize].reception(&txv, false));
        let to_ul_ap =
            self.mu.as_ref().is_some_and(|mu| mu.settings.ul.is_some() && mu.dev == d.peers[peer as usize].dev);
        if to_ul_ap {
            part.report = ofdma::queue_size_report(d.queues.queued_psdu_bytes(peer, ofdma::MAX_QUEUE_REPORT).into());
        }
        let mut parts = std::mem::take(&mut d.spare_parts);
        parts.push(part);
        Plan { parts, data_dur, mu_bar: None, ru_tones: 0, resp, resp_dur, protection }
    }

    /// Make `plan` the node's exchange and send its first frame at `at` (now, or a SIFS after
    /// the previous exchange of a TXOP).
    fn begin_exchange(&mut self, dev: u32, mut plan: Plan, at: Time, now: Time) {
        let d = &mut self.devs[dev as usize];
        let (sifs, data_dur, resp_dur) = (self.sifs, plan.data_dur, plan.resp_dur);
        let trigger = plan.mu_bar.map_or(0, |bar| bar + sifs);
        for m in plan.parts.iter_mut().flat_map(|part| part.mpdus.iter_mut()) {
            m.attempts += 1;
        }
        let parts = plan.parts;
        let (to, frame) = match plan.mu_bar {
            Some(_) => (GROUP, Frame::MuData),
            None => (d.peers[parts[0].peer as usize].dev, Frame::Data),
        };
        d.exchange = Some(Exchange {
            parts,
            data_dur,
            mu_bar: plan.mu_bar,
            ru_tones: plan.ru_tones,
            responders: Vec::new(),
            ul: None,
            resp: plan.resp,
            resp_dur,
            stage: if plan.protection.is_some() { Stage::AwaitCts } else { Stage::AwaitResponse },
            started: at,
            tx_end: at,
            timeout_gen: 0,
        });
        let first = match plan.protection {
            Some((rts, cts)) => {
                let nav_until = at + rts + sifs + cts + sifs + data_dur + sifs + resp_dur;
                Pending { to, frame: Frame::Rts, dur: rts, nav_until, resp_dur: cts }
            }
            None => {
                let nav_until = at + data_dur + sifs + trigger + resp_dur;
                Pending { to, frame, dur: data_dur, nav_until, resp_dur }
            }
        };
        if at == now {
            self.start_tx(dev, first, now);
        } else {
            self.devs[dev as usize].response = Some(first);
            self.events.push((at, WifiEvent::Respond { dev }));
        }
    }

    /// The nodes sending a `frame` to `dst` alongside its sender: the other responders of an
    /// HE TB PPDU (the first is the sender), none otherwise.
    fn co_senders(devs: &[WifiDev], frame: Frame, dst: u32) -> &[u32] {
        match (frame, devs.get(dst as usize).and_then(|d| d.exchange.as_ref())) {
            (Frame::TbBlockAck | Frame::TbBsr | Frame::TbData, Some(ex)) => &ex.responders[1..],
            _ => &[],
        }
    }

    /// Who hears a transmission of `src` and `also` (the other HE TB responders): `src`'s
    /// hearers, or the union of theirs less the senders, built in `scratch`.
    fn audience<'a>(hears: &'a [Vec<u32>], scratch: &'a mut Vec<u32>, src: u32, also: &[u32]) -> &'a [u32] {
        if also.is_empty() {
            return &hears[src as usize];
        }
        scratch.clear();
        for &s in std::iter::once(&src).chain(also) {
            scratch.extend_from_slice(&hears[s as usize]);
        }
        scratch.sort_unstable();
        scratch.dedup();
        scratch.retain(|y| *y != src && !also.contains(y));
        scratch
    }

    fn start_tx(&mut self, src: u32, frame: Pending, now: Time) {
        let Pending { to: dst, frame, dur, nav_until, resp_dur } = frame;
        let also = Self::co_senders(&self.devs, frame, dst);
        let id = self.free_txs.pop().unwrap_or_else(|| {
            self.txs.push(None);
            (self.txs.len() - 1) as u32
        });
        if self.on_air == 0 {
            self.busy_since = now;
        }
        self.on_air += 1;
        let slot = self.slot;
        for &s in std::iter::once(&src).chain(also) {
            let m = &mut self.medium[s as usize];
            // A responder may have been counting down: it stops, as for any busy medium.
            if m.access_at.is_some_and(|at| at != now) {
                m.freeze(now, slot);
            } else if m.access_at.is_some() {
                m.access_at = None;
                m.access_gen = m.access_gen.wrapping_add(1);
            }
            m.transmitting = true;
            m.rx = None;
        }
        for &y in Self::audience(&self.hears, &mut self.audience, src, also) {
            let my = &mut self.medium[y as usize];
            let was_idle = my.busy == 0 && !my.transmitting;
            my.busy += 1;
            if my.transmitting {
                continue;
            }
            if was_idle {
                my.freeze(now, slot);
                my.rx = Some((id, true));
            } else if let Some((_, intact)) = my.rx.as_mut() {
                *intact = false;
            }
        }
        self.txs[id as usize] = Some(Tx { src, dst, frame, nav_until, resp_dur });
        self.events.push((now + dur, WifiEvent::TxEnd { tx: id }));
    }

    fn on_tx_end(&mut self, id: u32, now: Time, flows: &mut [FlowStats]) {
        let tx = self.txs[id as usize].take().expect("a transmission ends once");
        self.free_txs.push(id);
        self.on_air -= 1;
        if self.on_air == 0 {
            self.busy_time += now - self.busy_since;
        }
        // Idle periods start now for whoever no longer senses anything, before the frame's
        // consequences (a completed exchange) schedule any countdown from them.
        // Only HE TB Block Acks have several senders; they are rare enough to copy.
        let also = Self::co_senders(&self.devs, tx.frame, tx.dst).to_vec();
        for &s in std::iter::once(&tx.src).chain(&also) {
            let ms = &mut self.medium[s as usize];
            ms.transmitting = false;
            if ms.busy == 0 {
                ms.idle_since = now;
            }
        }
        self.intact.clear();
        for &y in Self::audience(&self.hears, &mut self.audience, tx.src, &also) {
            let my = &mut self.medium[y as usize];
            my.busy -= 1;
            if my.busy == 0 && !my.transmitting {
                my.idle_since = now;
            }
            let Some((rx, intact)) = my.rx else { continue };
            if rx != id {
                continue;
            }
            my.rx = None;
            my.eifs = !intact;
            if intact {
                self.intact.push(y);
            }
            // Overhearers honour the duration field; so do the stations a group frame
            // addresses, which answer it regardless (a trigger needs no idle medium).
            if intact && y != tx.dst {
                my.nav_until = my.nav_until.max(tx.nav_until);
            }
        }
        let got = self.intact.contains(&tx.dst);
        match tx.frame {
            Frame::Data | Frame::Rts | Frame::MuData => {
                // A frame its receiver did not get intact collided: with a frame the receiver
                // was locked onto or that overlapped it, or with the receiver's own transmission.
                let d = &mut self.devs[tx.src as usize];
                let ex = d.exchange.as_mut().expect("an initiator is in an exchange");
                ex.tx_end = now;
                for part in &ex.parts {
                    let p = &mut d.peers[part.peer as usize];
                    if !self.intact.contains(&p.dev) {
                        p.stats.collisions += 1;
                    }
                }
            }
            Frame::MuBar | Frame::Bsrp | Frame::BasicTrigger => {
                self.devs[tx.src as usize].exchange.as_mut().expect("a trigger's exchange").tx_end = now;
            }
            Frame::TbData if !got => {
                // The AP lost the stations' data to another transmission.
                for &s in std::iter::once(&tx.src).chain(&also) {
                    let d = &mut self.devs[s as usize];
                    let peer = d.tb.as_ref().expect("a TB responder has its response").peer;
                    d.peers[peer as usize].stats.collisions += 1;
                }
            }
            _ => {}
        }
        match tx.frame {
            Frame::Data | Frame::Rts | Frame::MuBar | Frame::Bsrp | Frame::BasicTrigger => {
                // The initiator waits a SIFS and the response; one nanosecond more lets a
                // response that ends exactly then be taken first.
                let ex = self.devs[tx.src as usize].exchange.as_mut().expect("an initiator is in an exchange");
                ex.timeout_gen = ex.timeout_gen.wrapping_add(1);
                let gen = ex.timeout_gen;
                self.events.push((now + self.sifs + tx.resp_dur + 1, WifiEvent::Timeout { dev: tx.src, gen }));
            }
            Frame::MuData => {
                // The AP asks for the Block Acks a SIFS after its HE MU PPDU.
                let ex = self.devs[tx.src as usize].exchange.as_ref().expect("an AP's MU exchange");
                let bar = ex.mu_bar.expect("an HE MU PPDU has its trigger");
                let (sifs, resp_dur) = (self.sifs, ex.resp_dur);
                let pending = Pending {
                    to: GROUP,
                    frame: Frame::MuBar,
                    dur: bar,
                    nav_until: now + sifs + bar + sifs + resp_dur,
                    resp_dur,
                };
                self.respond(tx.src, pending, now);
            }
            _ => {}
        }
        match tx.frame {
            Frame::MuData => self.receive_mu_data(&tx, now),
            Frame::MuBar => self.answer_trigger(&tx, now),
            Frame::Bsrp | Frame::BasicTrigger => self.answer_ul_trigger(&tx, now, flows),
            Frame::MultiStaBa => self.end_ul_cycle(tx.src, now, flows),
            _ if got => self.receive(&tx, now, flows),
            _ => {}
        }
        // Whoever now senses an idle medium starts counting again.
        for &s in std::iter::once(&tx.src).chain(&also) {
            self.schedule_access(s, now);
        }
        let hearers = Self::audience(&self.hears, &mut self.audience, tx.src, &also).len();
        for k in 0..hearers {
            let y = if also.is_empty() { self.hears[tx.src as usize][k] } else { self.audience[k] };
            self.schedule_access(y, now);
        }
    }

    /// `tx.dst` received `tx` intact.
    fn receive(&mut self, tx: &Tx, now: Time, flows: &mut [FlowStats]) {
        let (src, dst) = (tx.src, tx.dst);
        match tx.frame {
            Frame::Rts => {
                let cts = tx.resp_dur;
                let ex = self.devs[src as usize].exchange.as_ref().expect("RTS belongs to an exchange");
                let resp_dur = ex.data_dur;
                let pending = Pending { to: src, frame: Frame::Cts, dur: cts, nav_until: tx.nav_until, resp_dur };
                self.respond(dst, pending, now);
            }
            Frame::Cts => {
                let sifs = self.sifs;
                let ex = self.devs[dst as usize].exchange.as_mut().expect("CTS answers an exchange");
                if ex.stage != Stage::AwaitCts {
                    return;
                }
                ex.stage = Stage::AwaitResponse;
                ex.timeout_gen = ex.timeout_gen.wrapping_add(1);
                let nav_until = now + sifs + ex.data_dur + sifs + ex.resp_dur;
                let (dur, resp_dur) = (ex.data_dur, ex.resp_dur);
                let pending = Pending { to: src, frame: Frame::Data, dur, nav_until, resp_dur };
                self.respond(dst, pending, now);
            }
            Frame::Data => self.receive_data(src, dst, tx, now),
            Frame::TbBsr | Frame::TbData => self.receive_tb(tx, now, flows),
            Frame::Ack | Frame::BlockAck | Frame::TbBlockAck => {
                let d = &mut self.devs[dst as usize];
                let ex = d.exchange.as_mut().expect("a response answers an exchange");
                if ex.stage != Stage::AwaitResponse {
                    return;
                }
                ex.timeout_gen = ex.timeout_gen.wrapping_add(1);
                // Every sender of the response acknowledges its part (the one part of SU).
                for part in ex.parts.iter_mut() {
                    let station = d.peers[part.peer as usize].dev;
                    part.acked = station == src || ex.responders.contains(&station);
                }
                self.complete(dst, now, flows);
            }
            Frame::MuData | Frame::MuBar | Frame::Bsrp | Frame::BasicTrigger | Frame::MultiStaBa => {
                unreachable!("group frames are handled where they end")
            }
        }
    }

    /// The MPDUs of `src`'s `which` part are each received or not (per-MPDU error
    /// probability); the intact ones go up in order (through the receiver's airtime table if
    /// it keeps one). Whether any was received.
    fn receive_part(&mut self, src: u32, which: PartOf, now: Time) -> bool {
        fn part(d: &mut WifiDev, which: PartOf) -> &mut Part {
            match which {
                PartOf::Exchange(k) => &mut d.exchange.as_mut().expect("data belongs to an exchange").parts[k],
                PartOf::Tb => d.tb.as_mut().expect("a TB responder has its response"),
            }
        }
        let s = &mut self.devs[src as usize];
        let peer = part(s, which).peer;
        let dst = s.peers[peer as usize].dev;
        let [s, r] = self.devs.get_disjoint_mut([src as usize, dst as usize]).expect("a node does not send to itself");
        let part = part(s, which);
        let back = r.peer_of[src as usize].expect("links are symmetric") as usize;
        let mut any = false;
        for (i, m) in part.mpdus.iter().enumerate() {
            if self.err_rng.chance(part.reception.mpdu_error(m.pkt.size)) {
                continue;
            }
            part.received[i] = true;
            any = true;
            r.peers[back].rx.receive(m.seq, m.pkt, &mut self.up);
        }
        if let Some(table) = r.telemetry.as_mut() {
            // The link's rate and MAC losses (an HE TB PPDU's RU rate is not what the table
            // charges: it prices every packet at the station's SU rate).
            let link = &s.peers[peer as usize];
            for pkt in &mut self.up {
                table.on_uplink(s.node, pkt, &link.txv, link.stats.mpdus_dropped, now);
            }
        }
        let node = r.node;
        self.delivered.extend(self.up.drain(..).map(|p| (node, p)));
        any
    }

    /// An SU data PPDU reached its receiver: it answers with an ACK or Block Ack if it got
    /// any MPDU.
    fn receive_data(&mut self, src: u32, dst: u32, tx: &Tx, now: Time) {
        if self.receive_part(src, PartOf::Exchange(0), now) {
            // Its QoS Control field tells an uplink OFDMA AP the sender's queue size.
            if self.ul_ap(dst).is_some() {
                let report =
                    self.devs[src as usize].exchange.as_ref().expect("data belongs to an exchange").parts[0].report;
                self.report_queue(dst, src, report, now);
            }
            let frame = self.devs[src as usize].exchange.as_ref().expect("data belongs to an exchange").resp;
            let nav_until = now + self.sifs + tx.resp_dur;
            self.respond(dst, Pending { to: src, frame, dur: tx.resp_dur, nav_until, resp_dur: 0 }, now);
        }
    }

    /// An HE MU PPDU ended: each addressed station that received it intact takes its part.
    fn receive_mu_data(&mut self, tx: &Tx, now: Time) {
        let d = &self.devs[tx.src as usize];
        let parts = &d.exchange.as_ref().expect("an AP's MU exchange").parts;
        let received: Vec<usize> =
            (0..parts.len()).filter(|&k| self.intact.contains(&d.peers[parts[k].peer as usize].dev)).collect();
        for k in received {
            self.receive_part(tx.src, PartOf::Exchange(k), now);
        }
    }

    /// An MU-BAR ended: the addressed stations that received it answer a SIFS later, all at
    /// once, with their Block Acks in HE TB PPDUs (one transmission from several nodes). A
    /// station that got none of its MPDUs answers too: its Block Ack says so.
    fn answer_trigger(&mut self, tx: &Tx, now: Time) {
        let d = &self.devs[tx.src as usize];
        let ex = d.exchange.as_ref().expect("a trigger belongs to an MU exchange");
        let responders: Vec<u32> =
            ex.parts.iter().map(|p| d.peers[p.peer as usize].dev).filter(|dev| self.intact.contains(dev)).collect();
        let Some(&first) = responders.first() else { return };
        let dur = ex.resp_dur;
        let nav_until = now + self.sifs + dur;
        self.devs[tx.src as usize].exchange.as_mut().expect("checked above").responders = responders;
        self.respond(first, Pending { to: tx.src, frame: Frame::TbBlockAck, dur, nav_until, resp_dur: 0 }, now);
    }

    fn respond(&mut self, dev: u32, pending: Pending, now: Time) {
        self.devs[dev as usize].response = Some(pending);
        self.events.push((now + self.sifs, WifiEvent::Respond { dev }));
    }

    /// The exchange ended with its response or a timeout: settle every MPDU of every part
    /// (acknowledged if its part was and the receiver got it), adjust the contention window
    /// and start the post-transmission backoff.
    fn complete(&mut self, dev: u32, now: Time, flows: &mut [FlowStats]) {
        if self.devs[dev as usize].exchange.as_ref().is_some_and(|ex| ex.ul.is_some()) {
            return self.finish_ul_cycle(dev, false, now, flows);
        }
        let ex = self.devs[dev as usize].exchange.take().expect("completing an exchange in progress");
        let success = ex.parts.iter().any(|p| p.acked);
        // Airtime fairness charges what the node sent, as mac80211 does from the driver's
        // tx status; the link's airtime counts the channel time the exchange held. Stations
        // sharing an HE MU PPDU on equal RUs share both equally.
        let n = ex.parts.len() as Time;
        let sent = (if success { now } else { ex.tx_end } - ex.started) / n;
        let held = (now - ex.started) / n;
        let ru = ex.mu_bar.map(|_| ex.ru_tones);
        let mut retry_any = false;
        let mut parts = ex.parts;
        for part in parts.drain(..) {
            retry_any |= self.settle_part(dev, part, (held, sent), ru, flows);
        }
        self.devs[dev as usize].spare_parts = parts;
        self.after_exchange(dev, success, retry_any, now, flows);
    }

    /// Settle the MPDUs `dev` sent in `part`: acknowledged if the part was and its receiver got
    /// them, given up after the retry limit (the receiver then stops waiting for them), or
    /// queued again. The link is charged `airtime` = (channel time held, time sent); `ru` is
    /// the RU size when the part went in a multi-user PPDU. Whether some MPDU waits for a retry.
    fn settle_part(
        &mut self,
        dev: u32,
        part: Part,
        airtime: (Time, Time),
        ru: Option<u16>,
        flows: &mut [FlowStats],
    ) -> bool {
        let count = part.mpdus.len() as u64;
        if count == 0 {
            return false; // A buffer status report or padding: no data to settle.
        }
        let d = &mut self.devs[dev as usize];
        let peer = part.peer;
        let p = &mut d.peers[peer as usize];
        p.stats.airtime += airtime.0;
        p.stats.ppdus += 1;
        p.stats.mpdus += count;
        if count > 1 {
            p.stats.ampdus += 1;
            p.stats.ampdu_mpdus += count;
        }
        if let Some(tones) = ru {
            p.stats.mu_ppdus += 1;
            p.stats.mu_ru_tones += u64::from(tones);
            p.stats.mu_ru_rate += p.txv.with_ru(tones).rate_bps();
        }
        if !part.acked {
            p.stats.ppdus_failed += 1;
        }
        let mut retry = Vec::new();
        let mut dropped = Vec::new();
        let mut aql_released = 0;
        for (m, ok) in part.mpdus.into_iter().zip(part.received) {
            let acked = part.acked && ok;
            // mac80211 frees an skb at its tx status: acknowledged, or out of retries.
            let given_up = !acked && m.attempts >= self.edca.retry_limit;
            if acked || given_up {
                self.released.extend(Release::of(&m.pkt, given_up));
                aql_released += m.aql;
            }
            if acked {
                p.stats.mpdus_acked += 1;
                p.stats.bytes_acked += u64::from(m.pkt.size);
            } else if given_up {
                p.stats.mpdus_dropped += 1;
                flows[m.pkt.flow as usize].total.wire_lost += 1;
                dropped.push(m.seq);
            } else {
                retry.push(m);
            }
        }
        let to = p.dev;
        let retry_any = !retry.is_empty();
        d.queues.complete(peer, airtime.1, aql_released);
        d.queues.requeue(peer, retry.into_iter());
        // The receiver stops waiting for what was given up (a Block Ack Request).
        if !dropped.is_empty() {
            let r = &mut self.devs[to as usize];
            let back = r.peer_of[dev as usize].expect("links are symmetric") as usize;
            for seq in dropped {
                r.peers[back].rx.skip(seq, &mut self.up);
            }
            let node = r.node;
            self.delivered.extend(self.up.drain(..).map(|p| (node, p)));
        }
        retry_any
    }

    /// After an exchange (or an uplink cycle) the initiator's contention window resets or
    /// doubles; it continues its TXOP or starts the post-transmission backoff.
    fn after_exchange(&mut self, dev: u32, success: bool, retry_any: bool, now: Time, flows: &mut [FlowStats]) {
        let (cw_min, cw_max) = self.cw_bounds(dev, now);
        let d = &mut self.devs[dev as usize];
        // The window doubles after a failure, unless the failure ended the frames' last
        // attempt: then, as after a success, the next frame starts from CWmin.
        d.cw = if success || !retry_any { cw_min } else { (2 * d.cw + 1).min(cw_max) };
        if success && self.edca.txop > 0 && self.continue_txop(dev, now) {
            self.pump(dev, now, flows);
            return;
        }
        let d = &mut self.devs[dev as usize];
        let slots = d.rng.below(u64::from(d.cw) + 1) as u32;
        let m = &mut self.medium[dev as usize];
        if !success {
            // A failed initiator defers as the nodes that saw the corrupted frame do (EIFS),
            // so every party to a collision starts counting at the same time.
            m.eifs = true;
        }
        m.slots = slots;
        m.pending = true;
        self.schedule_access(dev, now);
        self.pump(dev, now, flows);
    }

    /// The AP won the channel for the uplink: it polls its stations in turn for their buffer
    /// status, or, without BSRP, grants them RUs from what they last reported (but polls when
    /// its periodic poll is due).
    fn start_ul_cycle(&mut self, now: Time) {
        let mu = self.mu.as_mut().expect("an uplink OFDMA AP");
        let ul = mu.settings.ul.expect("uplink OFDMA is on");
        // A due poll is a BSRP, or, with random access, a Basic Trigger with its RA-RUs.
        let bsrp = ul.bsrp || (mu.poll_due && ul.uora.is_none());
        mu.poll_due = false;
        let ap = mu.dev;
        self.ul_stats.cycles += 1;
        let d = &mut self.devs[ap as usize];
        d.exchange = Some(Exchange {
            parts: std::mem::take(&mut d.spare_parts),
            data_dur: 0,
            mu_bar: None,
            ru_tones: 0,
            responders: Vec::new(),
            ul: None,
            resp: Frame::TbBsr,
            resp_dur: 0,
            stage: Stage::AwaitResponse,
            started: now,
            tx_end: now,
            timeout_gen: 0,
        });
        let sent = self.send_trigger(bsrp, now, now);
        debug_assert!(sent, "an AP grants without polling only with reported data or RA-RUs");
    }

    /// The PHY of station `s`'s link to its AP `ap`.
    fn uplink_txv(&self, ap: u32, s: u32) -> TxVector {
        let d = &self.devs[s as usize];
        *d.peers[d.peer_of[ap as usize].expect("stations link to their AP") as usize].txv()
    }

    /// The AP sends the next trigger of its uplink cycle at `at` (now, or a SIFS after the
    /// buffer status reports): a BSRP to the stations in turn (`polling`), or a Basic Trigger
    /// to those that reported data, with the random-access RUs if any. False when it would
    /// address nobody.
    fn send_trigger(&mut self, polling: bool, at: Time, now: Time) -> bool {
        let mu = self.mu.as_ref().expect("an uplink OFDMA AP");
        let (ap, max) = (mu.dev, mu.settings.max_stations);
        let ra_rus = mu.settings.ul.and_then(|ul| ul.uora).map_or(0, |u| u.ra_rus);
        let peers = if polling {
            mu.ul.poll(max)
        } else {
            // The stations that reported data, in turn, go to the scheduler.
            let a = &self.devs[ap as usize];
            let eligible: Vec<Eligible> = mu
                .ul
                .candidates()
                .into_iter()
                .map(|peer| Eligible { peer, rate_bps: self.uplink_txv(ap, a.peers[peer as usize].dev).rate_bps() })
                .collect();
            self.mu.as_mut().expect("checked above").ul_scheduler.pick(&eligible, max)
        };
        if peers.is_empty() && (polling || ra_rus == 0) {
            return false;
        }
        let mu = self.mu.as_ref().expect("checked above");
        let a = &self.devs[ap as usize];
        let reference = self.uplink_txv(ap, a.peers[0].dev);
        let stations: Vec<u32> = peers.iter().map(|&p| a.peers[p as usize].dev).collect();
        let txvs: Vec<TxVector> = stations.iter().map(|&s| self.uplink_txv(ap, s)).collect();
        let plan = if polling {
            ul::plan_bsrp(reference.width_mhz, &txvs)
        } else {
            let users: Vec<(TxVector, u32)> = txvs.iter().zip(&peers).map(|(&t, &p)| (t, mu.ul.reported(p))).collect();
            ul::plan_basic(reference.width_mhz, &users, ra_rus, &reference, a.aggregation.max_duration)
        };
        let (count, scheduled) = (plan.alloc.count, plan.scheduled());
        // The trigger reserves the medium through the TB PPDUs and, for data, the Block Ack.
        let mut nav_until = at + plan.trigger_dur + self.sifs + plan.tb_dur;
        let (frame, resp) = if polling {
            self.ul_stats.bsrps += 1;
            (Frame::Bsrp, Frame::TbBsr)
        } else {
            nav_until += self.sifs + ul::multi_sta_block_ack_duration(count, &reference.with_ru(plan.alloc.tones));
            // Each scheduled station may send what it reported, as far as the TB PPDU holds.
            let mu = self.mu.as_mut().expect("checked above");
            let served: Vec<Served> = peers[..scheduled]
                .iter()
                .zip(&txvs)
                .map(|(&peer, txv)| {
                    let txv = txv.with_ru(plan.alloc.tones);
                    let psdu = mu.ul.reported(peer).min(txv.psdu_bytes_within(plan.tb_dur));
                    Served { peer, bits: 8 * u64::from(psdu), airtime: txv.data_duration(psdu) }
                })
                .collect();
            mu.ul_scheduler.served(&served);
            if scheduled > 0 {
                mu.ul.served(peers[scheduled - 1]);
            }
            (Frame::BasicTrigger, Frame::TbData)
        };
        let ex = self.devs[ap as usize].exchange.as_mut().expect("a trigger belongs to an uplink cycle");
        ex.data_dur = plan.trigger_dur;
        ex.ru_tones = plan.alloc.tones;
        ex.resp = resp;
        ex.resp_dur = plan.tb_dur;
        ex.responders.clear();
        let ra_rus = plan.ra_rus;
        ex.ul = Some(UlCycle { addressed: stations[..scheduled].to_vec(), polling, ra_rus, ra: Vec::new() });
        let pending = Pending { to: GROUP, frame, dur: plan.trigger_dur, nav_until, resp_dur: plan.tb_dur };
        if at == now {
            self.start_tx(ap, pending, now);
        } else {
            self.devs[ap as usize].response = Some(pending);
            self.events.push((at, WifiEvent::Respond { dev: ap }));
        }
        true
    }

    /// A trigger ended: the addressed stations that received it and are free answer a SIFS
    /// later, all at once, in HE TB PPDUs on their RUs: a buffer status report (QoS Null) to a
    /// BSRP, their data to a Basic Trigger, each with its queue size. A station with nothing
    /// that fits still answers, with padding. Nobody answering leaves the AP to time out.
    fn answer_ul_trigger(&mut self, tx: &Tx, now: Time, flows: &mut [FlowStats]) {
        let ap = tx.src;
        let ex = self.devs[ap as usize].exchange.as_ref().expect("a trigger belongs to an uplink cycle");
        let cycle = ex.ul.as_ref().expect("a trigger belongs to an uplink cycle");
        let (polling, tones, tb_dur, resp) = (cycle.polling, ex.ru_tones, ex.resp_dur, ex.resp);
        let heard = |s: u32| self.intact.contains(&s) && self.devs[s as usize].can_answer_trigger();
        let mut responders: Vec<u32> = cycle.addressed.iter().copied().filter(|&s| heard(s)).collect();
        // The other stations with data for the AP run their OFDMA backoff on the RA-RUs.
        let contenders: Vec<(u32, u16)> = self.devs[ap as usize]
            .peers
            .iter()
            .map(|p| p.dev)
            .filter(|&s| cycle.ra_rus > 0 && !cycle.addressed.contains(&s) && heard(s))
            .filter_map(|s| {
                let d = &self.devs[s as usize];
                let peer = d.peer_of[ap as usize].expect("stations link to their AP");
                (d.queues.queued_psdu_bytes(peer, 1) > 0).then_some((s, peer))
            })
            .collect();
        let ra_rus = cycle.ra_rus;
        let mut ra = Vec::new();
        for (s, _) in contenders {
            let d = &mut self.devs[s as usize];
            if let Some(ru) = d.obo.on_trigger(ra_rus, &mut d.rng) {
                ra.push((s, ru));
                responders.push(s);
            }
        }
        if !polling {
            // Counted as the trigger ends, with the stations it got data from, so that both
            // fall in the same measurement window.
            self.ul_stats.basic_triggers += 1;
            self.ul_stats.ra_attempts += ra.len() as u64;
        }
        let ex = self.devs[ap as usize].exchange.as_mut().expect("checked above");
        ex.ul.as_mut().expect("checked above").ra = ra;
        let Some(&first) = responders.first() else { return };
        for &s in &responders {
            let part = self.tb_response(ap, s, polling, tones, tb_dur);
            self.ul_stats.tb_users += u64::from(!part.mpdus.is_empty());
            self.devs[s as usize].tb = Some(part);
        }
        let mut nav_until = now + self.sifs + tb_dur;
        if !polling {
            let first_txv = self.uplink_txv(ap, first).with_ru(tones);
            nav_until += self.sifs + ul::multi_sta_block_ack_duration(responders.len(), &first_txv);
        }
        self.devs[ap as usize].exchange.as_mut().expect("checked above").responders = responders.clone();
        self.respond(first, Pending { to: ap, frame: resp, dur: tb_dur, nav_until, resp_dur: 0 }, now);
        // mac80211 refills the firmware queues the responses took from.
        for s in responders {
            self.pump(s, now, flows);
        }
    }

    /// Station `s`'s HE TB response on a `tones`-tone RU to a trigger asking for `tb_dur`: no
    /// frames to a BSRP; to a Basic Trigger, the A-MPDU of its oldest frames for the AP that
    /// fits the PPDU's data field. Either way it carries the queue size left.
    fn tb_response(&mut self, ap: u32, s: u32, polling: bool, tones: u16, tb_dur: Time) -> Part {
        let d = &mut self.devs[s as usize];
        let peer = d.peer_of[ap as usize].expect("stations link to their AP");
        let txv = d.peers[peer as usize].txv().with_ru(tones);
        let mut mpdus = Vec::new();
        if !polling {
            let agg = d.aggregation;
            let window = phy::Format::He.block_ack_window().expect("HE has Block Ack") as usize;
            let max = if agg.enabled { (agg.max_mpdus as usize).min(window) } else { 1 };
            let data_limit = tb_dur.saturating_sub(txv.preamble_duration());
            let mut psdu = 0u32;
            mpdus = d.queues.take(peer, max, |_, next| {
                let more = phy::ampdu_append(psdu, phy::mpdu_bytes(next.pkt.size));
                let fits = more <= agg.max_bytes && txv.data_duration(more) <= data_limit;
                if fits {
                    psdu = more;
                }
                fits
            });
            for m in &mut mpdus {
                m.attempts += 1;
            }
        }
        let mut part = Part::new(peer, mpdus, d.peers[peer as usize].reception(&txv, true));
        part.report = ofdma::queue_size_report(d.queues.queued_psdu_bytes(peer, ofdma::MAX_QUEUE_REPORT).into());
        part
    }

    /// The AP received the stations' HE TB PPDUs: it takes each station's data and queue size
    /// (nothing from stations that collided on a random-access RU). After buffer status
    /// reports it grants RUs with a Basic Trigger a SIFS later (or ends the cycle if nobody has
    /// data); after data it sends the Multi-STA Block Ack, or, having decoded nothing, ends
    /// the cycle as failed.
    fn receive_tb(&mut self, tx: &Tx, now: Time, flows: &mut [FlowStats]) {
        let ap = tx.dst;
        let ex = self.devs[ap as usize].exchange.as_mut().expect("HE TB PPDUs answer an uplink cycle");
        ex.timeout_gen = ex.timeout_gen.wrapping_add(1);
        let (responders, tones) = (ex.responders.clone(), ex.ru_tones);
        let cycle = ex.ul.as_ref().expect("HE TB PPDUs answer an uplink cycle");
        let decoded: Vec<u32> = responders.iter().copied().filter(|&s| !cycle.collided(s)).collect();
        self.ul_stats.ra_successes += cycle.ra.iter().filter(|&&(s, _)| !cycle.collided(s)).count() as u64;
        let polling = tx.frame == Frame::TbBsr;
        for &s in &responders {
            let d = &mut self.devs[s as usize];
            if !decoded.contains(&s) {
                let peer = d.tb.as_ref().expect("a TB responder has its response").peer;
                d.peers[peer as usize].stats.collisions += 1;
                continue;
            }
            if polling {
                let report = d.tb.take().expect("a TB responder has its response").report;
                self.report_queue(ap, s, report, now);
            } else {
                self.receive_part(s, PartOf::Tb, now);
                let report = self.devs[s as usize].tb.as_ref().expect("a TB responder has its response").report;
                self.report_queue(ap, s, report, now);
            }
        }
        if polling {
            if !self.send_trigger(false, now + self.sifs, now) {
                self.finish_ul_cycle(ap, true, now, flows);
            }
            return;
        }
        let Some(&first) = decoded.first() else {
            return self.finish_ul_cycle(ap, false, now, flows);
        };
        let first = self.uplink_txv(ap, first).with_ru(tones);
        let dur = ul::multi_sta_block_ack_duration(decoded.len(), &first);
        let nav_until = now + self.sifs + dur;
        self.respond(ap, Pending { to: GROUP, frame: Frame::MultiStaBa, dur, nav_until, resp_dur: 0 }, now);
    }

    /// Station `s` reported `report` bytes queued to AP `ap`, which contends to trigger it.
    fn report_queue(&mut self, ap: u32, s: u32, report: u32, now: Time) {
        let peer = self.devs[ap as usize].peer_of[s as usize].expect("stations link to their AP");
        self.mu.as_mut().expect("an uplink OFDMA AP").ul.report(peer, report);
        self.contend(ap, now);
    }

    /// The Multi-STA Block Ack ended: each station that received it learns which of its MPDUs
    /// arrived; the cycle is over.
    fn end_ul_cycle(&mut self, ap: u32, now: Time, flows: &mut [FlowStats]) {
        let ex = self.devs[ap as usize].exchange.as_ref().expect("a Multi-STA Block Ack ends an uplink cycle");
        let cycle = ex.ul.as_ref().expect("a Multi-STA Block Ack ends an uplink cycle");
        let acked: Vec<(u32, bool)> =
            ex.responders.iter().map(|&s| (s, self.intact.contains(&s) && !cycle.collided(s))).collect();
        for (s, acked) in acked {
            if let Some(part) = self.devs[s as usize].tb.as_mut() {
                part.acked = acked;
            }
        }
        self.finish_ul_cycle(ap, true, now, flows);
    }

    /// The AP's uplink cycle is over (`success`) or timed out: every station settles the data it
    /// sent (acknowledged or not) and is charged an equal share of the cycle's airtime; a
    /// station whose data was acknowledged switches to the MU EDCA parameters.
    fn finish_ul_cycle(&mut self, ap: u32, success: bool, now: Time, flows: &mut [FlowStats]) {
        let ex = self.devs[ap as usize].exchange.take().expect("an uplink cycle in progress");
        self.ul_stats.cycle_time += now - ex.started;
        let senders =
            ex.responders.iter().filter(|&&s| self.devs[s as usize].tb.as_ref().is_some_and(|p| !p.mpdus.is_empty()));
        let share = (now - ex.started) / (senders.count() as Time).max(1);
        let uora = self.mu.as_ref().and_then(|mu| mu.settings.ul?.uora);
        let cycle = ex.ul.as_ref().expect("an uplink cycle in progress");
        for &s in &ex.responders {
            let Some(part) = self.devs[s as usize].tb.take() else { continue };
            let acked = part.acked && part.received.iter().any(|&r| r);
            self.settle_part(s, part, (share, share), Some(ex.ru_tones), flows);
            if acked {
                self.start_mu_edca(s, now);
            }
            // A random-access sender's window resets on success and doubles otherwise.
            if let Some(uora) = uora.filter(|_| cycle.ra.iter().any(|&(x, _)| x == s)) {
                let d = &mut self.devs[s as usize];
                d.obo.after_attempt(acked, &uora, &mut d.rng);
            }
            self.pump(s, now, flows);
        }
        self.devs[ap as usize].spare_parts = ex.parts;
        self.after_exchange(ap, success, !success, now, flows);
    }

    /// Station `s` had uplink data acknowledged after a Basic Trigger: it contends with the MU
    /// EDCA parameters, if the AP advertises any, until their timer runs out (restarted by
    /// every such acknowledgement). A countdown in progress goes on with them.
    fn start_mu_edca(&mut self, s: u32, now: Time) {
        let Some(mu_edca) = self.mu.as_ref().and_then(|mu| mu.settings.ul?.mu_edca) else { return };
        let d = &mut self.devs[s as usize];
        d.mu_edca_until = now + mu_edca.timer;
        d.cw = mu_edca.cw_min;
        let m = &mut self.medium[s as usize];
        if m.access_at.is_some() {
            m.freeze(now, self.slot);
            self.schedule_access(s, now);
        }
    }

    /// Within a TXOP the node keeps the channel: its next exchange follows a SIFS after the
    /// response if it ends within the TXOP limit counted from the channel access (802.11-2020
    /// 10.23.2.8); otherwise its frames go back to the queue and the TXOP ends.
    fn continue_txop(&mut self, dev: u32, now: Time) -> bool {
        if !self.devs[dev as usize].queues.has_frames() {
            return false;
        }
        let plan = self.plan_exchange(dev);
        let at = now + self.sifs;
        let d = &mut self.devs[dev as usize];
        if at + plan.airtime(self.sifs) - d.txop_start > self.edca.txop {
            for part in plan.parts {
                d.queues.requeue(part.peer, part.mpdus.into_iter());
            }
            return false;
        }
        self.begin_exchange(dev, plan, at, now);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::FlowStats;
    use crate::net::{Ecn, Payload};
    use crate::sim::{EventQueue, US};
    use crate::wifi::link::RateSchedule;
    use crate::wifi::queues::DeviceLayer;

    /// Node 0 sends to node 1 over 802.11a at 24 Mbit/s, switching to 6 Mbit/s at `switch_at`.
    fn pair(switch_at: Time) -> WifiNet {
        let dev = |node: NodeId, to: u32, peer: Peer| {
            let qdisc = crate::qdisc::create(
                &crate::qdisc::defaults("pfifo").with("limit", crate::params::Value::Int(10)),
                Rng::stream(1, "q"),
            );
            let queues = DeviceQueues::new(&DeviceLayer::PerStation { size: 10, airtime_fairness: false }, 1, 0);
            let mut d = WifiDev::new(
                node,
                format!("n{node}"),
                qdisc,
                queues,
                // 802.11a does not aggregate: one MPDU of at most 4095 bytes per PPDU.
                Aggregation { enabled: false, max_mpdus: 1, max_bytes: 4095, max_duration: 5_484 * US },
                vec![peer],
                Rng::stream(1, &format!("backoff{node}")),
            );
            d.set_route(to, 0);
            d
        };
        let schedule = RateSchedule { steps: vec![(switch_at, TxVector::non_ht(6), None)], period: None };
        let a = dev(0, 1, Peer::new(1, 1, TxVector::non_ht(24), 0.0, None).with_schedule(schedule));
        let b = dev(1, 0, Peer::new(0, 0, TxVector::non_ht(24), 0.0, None));
        let timing = phy::MacTiming::ofdm_5ghz();
        let hears = vec![vec![1], vec![0]];
        WifiNet::new("w".into(), timing, Edca::BEST_EFFORT, false, None, vec![a, b], hears, Rng::stream(1, "err"))
    }

    fn packet(seq: u64) -> Packet {
        let payload = Payload::Udp { seq, sent_at: 0 };
        Packet {
            flow: 0,
            conn: 0,
            src: 0,
            dst: 1,
            size: 1500,
            ecn: Ecn::NotEct,
            dscp: 0,
            enqueued_at: 0,
            charged: false,
            payload,
        }
    }

    /// Runs the network's events until none are left.
    fn run(net: &mut WifiNet, flows: &mut [FlowStats]) {
        let mut queue = EventQueue::new();
        loop {
            for (at, ev) in net.events.drain(..) {
                queue.schedule(at, ev);
            }
            let Some((now, ev)) = queue.pop() else { break };
            net.handle(ev, now, flows);
        }
    }

    #[test]
    fn every_event_kind_survives_packing() {
        let events = [
            WifiEvent::Access { dev: 3, gen: 70_000 },
            WifiEvent::TxEnd { tx: 1 << 20 },
            WifiEvent::Respond { dev: 9 },
            WifiEvent::Timeout { dev: 2, gen: 5 },
            WifiEvent::QdiscWake { dev: 65_535 },
            WifiEvent::RateChange { dev: 1, peer: 7, step: 300 },
            WifiEvent::UlPoll { dev: 4 },
        ];
        for ev in events {
            let (head, dev, arg) = ev.pack(31);
            let (net, back) = WifiEvent::unpack(head, dev, arg);
            assert_eq!((net, format!("{back:?}")), (31, format!("{ev:?}")));
        }
    }

    #[test]
    fn a_rate_change_applies_from_the_next_exchange() {
        let mut flows = vec![FlowStats::new("f".into(), "a".into(), "b".into(), None, "udp")];
        // The first exchange starts after AIFS (43 us) and sends for 536 us: the switch at
        // 100 us falls inside it.
        let mut net = pair(100 * US);
        net.start(0);
        for seq in 0..2 {
            net.enqueue(0, packet(seq), 0, &mut flows);
        }
        run(&mut net, &mut flows);
        let exchange = |mbit: u16| {
            let txv = TxVector::non_ht(mbit);
            txv.ppdu_duration(phy::mpdu_bytes(1500)) + 16 * US + phy::ack_duration(&txv.control_response_rate())
        };
        // 24 Mbit/s: 536 + 16 + 28 us; then 6 Mbit/s: 2076 + 16 + 44 us.
        assert_eq!((exchange(24), exchange(6)), (580 * US, 2136 * US));
        let p = &net.devs[0].peers[0];
        assert_eq!(p.stats.mpdus_acked, 2);
        assert_eq!(p.stats.airtime, exchange(24) + exchange(6));
        assert_eq!(p.txv().rate_bps(), 6_000_000);
        assert_eq!(p.base_txv().rate_bps(), 24_000_000);
    }
}
