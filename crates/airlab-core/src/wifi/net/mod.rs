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
//!
//! The network is split by phase, as ns-3 splits its MAC into small units (`ChannelAccessManager`
//! and `Txop`, `FrameExchangeManager`, `BlockAckManager`, `MultiUserScheduler`, `MpduAggregator`):
//! each phase ends by scheduling an event or calling into the next, so each reads on its own.
//! This module holds the events, the network and its devices, and the state the phases share
//! (frames, transmissions, exchanges, pending responses). `access.rs` is the way to the channel:
//! packets from the qdisc into the device queues, EDCA contention and backoff, MU EDCA
//! parameters. `exchange.rs` is what a node does once it has the channel: plan an SU or HE MU
//! exchange, put each frame on the air and end it, continue its TXOP. `receive.rs` is the other
//! side and the aftermath: MPDU reception, the responses (CTS, ACK, Block Ack), settling each
//! MPDU when the exchange completes, and the contention window after it. `ul_cycle.rs` is the
//! AP's uplink OFDMA trigger cycle, from the BSRP to the Multi-STA Block Ack. The A-MPDU limits
//! live beside this module, in [`super::aggregation`], which the downlink OFDMA planner shares.

mod access;
mod exchange;
mod receive;
#[cfg(test)]
mod tests;
mod ul_cycle;

pub use super::aggregation::Aggregation;
pub use access::Edca;
pub use ul_cycle::UlStats;

use super::device::queues::DeviceQueues;
use super::error_model::ErrorModel;
use super::hook::ApHook;
use super::link::{LinkStats, Peer, Reception};
use super::medium::Medium;
use super::mpdu::Mpdu;
use super::ofdma::sched::{self, MuScheduler};
use super::ofdma::{Obo, Ofdma, UlScheduler};
use super::phy::{self, TxVector};
use crate::counters::FlowStats;
use crate::net::iface::IfaceStats;
use crate::net::{NodeId, Packet, Release};
use crate::qdisc::{Qdisc, Verdicts};
use crate::sim::{Rng, Time};

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
    ul: Option<ul_cycle::UlCycle>,
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
    /// An AP's hook on the packets it forwards (paper 004's airtime telemetry).
    hook: Option<Box<dyn ApHook>>,
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
            hook: None,
        }
    }

    /// An AP that shows every packet it forwards to `hook` (see [`ApHook`]).
    pub fn with_hook(mut self, hook: Box<dyn ApHook>) -> Self {
        self.hook = Some(hook);
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
    /// The network's error model, and the draws that decide each MPDU by it.
    errors: Box<dyn ErrorModel>,
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
    /// `ofdma` is the AP's device and its OFDMA settings; `errors` decides which MPDUs of the
    /// links with a radio channel arrive.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        name: String,
        timing: phy::MacTiming,
        edca: Edca,
        rts: bool,
        ofdma: Option<(u32, Ofdma)>,
        mut devs: Vec<WifiDev>,
        hears: Vec<Vec<u32>>,
        errors: Box<dyn ErrorModel>,
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
                ul: UlScheduler::new(peers),
                dl_scheduler: sched::create(&settings.scheduler, peers),
                ul_scheduler: sched::create(&settings.scheduler, peers),
                settings,
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
            errors,
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
        if let Some(hook) = d.hook.as_mut() {
            hook.on_downlink(&pkt, now);
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
}
