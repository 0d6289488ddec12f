//! An egress interface: one direction of a point-to-point link.
//!
//! ```text
//! enqueue -> qdisc layer --(pulled while the ring has room)--> device ring -> serializer -> wire
//! ```
//! The qdisc only gives up a packet when the device ring has room (back-pressure, like BQL and
//! `netif_stop_queue`), so the standing queue lives in the qdisc where the AQM can act on it.
//! The wire is a FIFO of packets in propagation: the delay is constant per direction, so
//! packets arrive in the order they were sent, and only the head's arrival needs an event.

use super::packet::Release;
use super::{NodeId, Packet};
use crate::counters::{counters, FlowStats, Quantiles};
use crate::qdisc::{Qdisc, Verdicts};
use crate::sim::{tx_time, Rng, Time};
use std::collections::VecDeque;

counters! {
    /// Cumulative counters of an interface's queueing layer and wire.
    pub struct IfaceCounters {
        pub enqueued: u64,
        pub dequeued: u64,
        pub dropped: u64,
        pub marked: u64,
        /// Drops and marks below the qdisc (a Wi-Fi interface's mac80211 TXQs), not counted
        /// in `dropped` and `marked`.
        pub device_dropped: u64,
        pub device_marked: u64,
        /// Packets lost on the wire (random loss).
        pub wire_lost: u64,
        /// Sum of the qdisc sojourn times of the dequeued packets, in nanoseconds.
        pub sojourn_ns: u128,
    }
}

/// What an interface measures about its queueing layer.
#[derive(Default)]
pub struct IfaceStats {
    pub total: IfaceCounters,
    /// Qdisc sojourn times in the measurement window.
    pub sojourn: Quantiles,
    /// The run is in its warm-up: `sojourn` takes no samples, which the start of the
    /// measurement window would discard unread (the counters count throughout).
    warming_up: bool,
}

impl IfaceStats {
    /// The run begins with a warm-up: the sojourn distribution waits for the measurement
    /// window.
    pub fn begin_warmup(&mut self) {
        self.warming_up = true;
    }

    /// The measurement window begins: the sojourn distribution starts empty and takes samples
    /// from now on.
    pub fn start_window(&mut self) {
        self.warming_up = false;
        self.sojourn.clear();
    }

    /// A packet was offered to the qdisc.
    pub fn on_enqueue(&mut self) {
        self.total.enqueued += 1;
    }

    /// A packet left the qdisc at `now`: count it and its sojourn.
    pub fn on_dequeue(&mut self, pkt: &Packet, now: Time) {
        let sojourn = now - pkt.enqueued_at;
        self.total.dequeued += 1;
        self.total.sojourn_ns += u128::from(sojourn);
        if !self.warming_up {
            self.sojourn.add(sojourn);
        }
    }

    /// Charge the drops and marks a qdisc reported to this interface and to their flows; a
    /// dropped packet still charged to its socket is released.
    pub fn settle(&mut self, verdicts: &mut Verdicts, flows: &mut [FlowStats], released: &mut Vec<Release>) {
        // An interface settles after every packet it moves and mostly has nothing to settle.
        if verdicts.is_empty() {
            return;
        }
        self.total.dropped += verdicts.dropped.len() as u64;
        self.total.marked += verdicts.marked.len() as u64;
        charge_flows(verdicts, flows, released);
    }

    /// As [`Self::settle`], for the drops and marks of the device layer below the qdisc.
    pub fn settle_device(&mut self, verdicts: &mut Verdicts, flows: &mut [FlowStats], released: &mut Vec<Release>) {
        if verdicts.is_empty() {
            return;
        }
        self.total.device_dropped += verdicts.dropped.len() as u64;
        self.total.device_marked += verdicts.marked.len() as u64;
        charge_flows(verdicts, flows, released);
    }
}

/// A flow loses each packet dropped (released from its socket) and learns of each mark.
fn charge_flows(verdicts: &mut Verdicts, flows: &mut [FlowStats], released: &mut Vec<Release>) {
    for pkt in verdicts.dropped.drain(..) {
        flows[pkt.flow as usize].total.queue_drops += 1;
        if let Some(r) = Release::of(&pkt, true) {
            released.push(r);
        }
    }
    for pkt in verdicts.marked.drain(..) {
        flows[pkt.flow as usize].total.marks += 1;
    }
}

/// What an interface has serialized up to an instant, the transmission in progress counted
/// pro rata, so that an interval is credited exactly with the busy time and bytes inside it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TxMeter {
    /// Time spent serializing.
    pub busy: Time,
    /// IP bytes serialized (link-layer overhead not included).
    pub bytes: f64,
}

impl TxMeter {
    pub fn since(&self, earlier: &Self) -> Self {
        TxMeter { busy: self.busy - earlier.busy, bytes: self.bytes - earlier.bytes }
    }
}

pub struct Iface {
    /// "link:from->to".
    pub name: String,
    pub link: String,
    pub from: NodeId,
    pub to: NodeId,
    pub rate_bps: u64,
    pub delay: Time,
    pub loss: f64,
    pub overhead: u32,
    pub qdisc: Box<dyn Qdisc>,
    ring: VecDeque<Packet>,
    ring_cap: usize,
    /// Bytes in the ring and the serializer, and the BQL-style limit on them.
    device_bytes: u64,
    device_bytes_limit: Option<u64>,
    in_tx: Option<Packet>,
    /// When the packet in serialization started and when it ends.
    tx_from: Time,
    tx_until: Time,
    /// Busy time and IP bytes of the transmissions completed so far.
    busy_done: Time,
    bytes_done: u64,
    /// Packets in propagation: when each arrives, and its place among events at that time
    /// (reserved when it entered the wire: [`crate::sim::EventQueue::reserve`]).
    wire: VecDeque<(Time, u64, Packet)>,
    /// Median of the far end's random receive latency for a pure ACK (see [`rx_latency`]); 0
    /// for none. Arrivals stay in order.
    rx_latency: Time,
    last_arrival: Time,
    /// The pending wake-up asked for by a shaping qdisc, if any.
    wake_at: Option<Time>,
    rng: Rng,
    verdicts: Verdicts,
    pub stats: IfaceStats,
    /// Packets of this node's own sockets that left it (sent or dropped) since the caller last
    /// drained this.
    pub released: Vec<Release>,
}

/// What the caller must schedule after an interface operation.
#[derive(Default, Debug, PartialEq, Eq)]
pub struct Next {
    /// The serializer started a packet that finishes at this time.
    pub tx_done: Option<Time>,
    /// A packet entered the wire and arrives at the far end at this time: reserve its place
    /// and give it to [`Iface::wire_place`].
    pub arrival: Option<Time>,
    /// The qdisc holds packets back until this time: call [`Iface::wake`] then.
    pub wake: Option<Time>,
}

/// Spread of a host's receive latency: the standard deviation of its logarithm. Measured on
/// the testbed (Linux 6.18, docs/models/tcp.md "Timing noise"), the one-way latency a packet
/// gathers besides the links' own delays is two delay-line hops (each late by 5 us at p50,
/// 45-95 us at p99) and the receiving stack (an ACK to the data it releases: log-normal, median
/// 4 us, this spread 0.54; data to the ACK it draws: 20 us, mostly the reader's wake-up, as
/// Linux sends the ACK once the reader took the data). Together: for a pure ACK median 16 us,
/// log-spread 0.40; for a data segment 31 us, 0.43.
const RX_LATENCY_SIGMA: f64 = 0.42;
/// How much longer a data segment's median latency is than a pure ACK's (31 us against 16 us
/// measured): the receiver's ACK waits for its reader to wake.
const DATA_LATENCY_FACTOR: f64 = 2.0;

/// One draw of the time between a packet reaching a host and TCP acting on it: log-normal with
/// the median `ack_median` for a pure ACK and twice that for a segment carrying data.
fn rx_latency(ack_median: Time, carries_data: bool, rng: &mut Rng) -> Time {
    let median = if carries_data { ack_median as f64 * DATA_LATENCY_FACTOR } else { ack_median as f64 };
    (median * (RX_LATENCY_SIGMA * rng.normal()).exp()).round() as Time
}

impl Iface {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        name: String,
        link: String,
        from: NodeId,
        to: NodeId,
        rate_bps: u64,
        delay: Time,
        loss: f64,
        overhead: u32,
        qdisc: Box<dyn Qdisc>,
        ring_cap: u32,
        device_bytes_limit: Option<u64>,
        rng: Rng,
    ) -> Self {
        Iface {
            name,
            link,
            from,
            to,
            rate_bps,
            delay,
            loss,
            overhead,
            qdisc,
            ring: VecDeque::new(),
            ring_cap: ring_cap as usize,
            device_bytes: 0,
            device_bytes_limit,
            in_tx: None,
            tx_from: 0,
            tx_until: 0,
            busy_done: 0,
            bytes_done: 0,
            wire: VecDeque::new(),
            rx_latency: 0,
            last_arrival: 0,
            wake_at: None,
            rng,
            verdicts: Verdicts::default(),
            stats: IfaceStats::default(),
            released: Vec::new(),
        }
    }

    /// The far end is a host whose stack takes a random time to act on each arrival: of this
    /// median for a pure ACK, twice it for a data segment.
    pub fn set_rx_latency(&mut self, median: Time) {
        self.rx_latency = median;
    }

    /// Offer a packet to the qdisc; drops and marks are charged to their flows.
    pub fn enqueue(&mut self, pkt: Packet, now: Time, flows: &mut [FlowStats]) -> Next {
        self.stats.on_enqueue();
        self.qdisc.enqueue(pkt, now, &mut self.verdicts);
        self.account(flows);
        self.pump(now, flows)
    }

    /// A wake-up the qdisc asked for is due: pull from it again. Superseded wake-ups (the
    /// interface asked for an earlier one since) do nothing.
    pub fn wake(&mut self, now: Time, flows: &mut [FlowStats]) -> Next {
        if self.wake_at != Some(now) {
            return Next::default();
        }
        self.wake_at = None;
        self.pump(now, flows)
    }

    /// The packet being serialized is done: put it on the wire and start the next one.
    pub fn tx_done(&mut self, now: Time, flows: &mut [FlowStats]) -> Next {
        let pkt = self.in_tx.take().expect("tx_done without a packet in serialization");
        self.device_bytes -= u64::from(pkt.size);
        self.busy_done += self.tx_until - self.tx_from;
        self.bytes_done += u64::from(pkt.size);
        // Transmit completion frees the skb (a wired NIC's tx-completion interrupt).
        if let Some(r) = Release::of(&pkt, false) {
            self.released.push(r);
        }
        let arrival = if self.rng.chance(self.loss) {
            self.stats.total.wire_lost += 1;
            flows[pkt.flow as usize].total.wire_lost += 1;
            None
        } else {
            let latency =
                if self.rx_latency > 0 { rx_latency(self.rx_latency, pkt.carries_data(), &mut self.rng) } else { 0 };
            let at = (now + self.delay + latency).max(self.last_arrival);
            self.last_arrival = at;
            self.wire.push_back((at, 0, pkt));
            Some(at)
        };
        Next { arrival, ..self.pump(now, flows) }
    }

    /// The place among equal times of the packet [`Iface::tx_done`] just put on the wire;
    /// whether it is the wire's head, whose arrival the caller schedules (the others follow
    /// from [`Iface::arrive`]).
    pub fn wire_place(&mut self, seq: u64) -> bool {
        let last = self.wire.back_mut().expect("a packet just entered the wire");
        last.1 = seq;
        self.wire.len() == 1
    }

    /// The packet at the head of the wire reaches the far end; the next head's arrival and
    /// place, if another packet is on the wire.
    pub fn arrive(&mut self) -> (Packet, Option<(Time, u64)>) {
        let (_, _, pkt) = self.wire.pop_front().expect("arrival with an empty wire");
        (pkt, self.wire.front().map(|&(at, seq, _)| (at, seq)))
    }

    /// Move packets from the qdisc into the device ring and start serializing if idle.
    /// Returns the completion time of a newly started transmission, and when to pull again if
    /// the qdisc holds packets back.
    fn pump(&mut self, now: Time, flows: &mut [FlowStats]) -> Next {
        let mut started = None;
        let mut wake = None;
        loop {
            if self.in_tx.is_none() {
                if let Some(pkt) = self.ring.pop_front() {
                    let t = tx_time(u64::from(pkt.size) + u64::from(self.overhead), self.rate_bps);
                    (self.tx_from, self.tx_until) = (now, now + t);
                    self.in_tx = Some(pkt);
                    started = Some(now + t);
                    continue;
                }
            }
            if self.device_full() {
                break;
            }
            match self.qdisc.dequeue(now, &mut self.verdicts) {
                Some(pkt) => {
                    self.stats.on_dequeue(&pkt, now);
                    self.device_bytes += u64::from(pkt.size);
                    self.ring.push_back(pkt);
                }
                None => {
                    wake = self.wake_needed(now);
                    break;
                }
            }
            self.account(flows);
        }
        self.qdisc.spill(&mut self.verdicts);
        self.account(flows);
        Next { tx_done: started, arrival: None, wake }
    }

    /// After the qdisc handed out nothing: the wake-up to schedule, unless an earlier one is
    /// already pending (one event per shaper deadline, not one per pull).
    fn wake_needed(&mut self, now: Time) -> Option<Time> {
        if self.qdisc.is_empty() {
            return None;
        }
        let at = self.qdisc.next_ready()?.max(now + 1);
        if self.wake_at.is_some_and(|pending| pending <= at) {
            return None;
        }
        self.wake_at = Some(at);
        Some(at)
    }

    fn account(&mut self, flows: &mut [FlowStats]) {
        self.stats.settle(&mut self.verdicts, flows, &mut self.released);
    }

    /// Whether the device takes no more packets from the qdisc: the ring is at its packet
    /// capacity (while the serializer is busy), or the device holds its byte limit. Like BQL,
    /// the byte limit admits a packet while the device holds less than the limit, so an empty
    /// device always takes one packet.
    fn device_full(&self) -> bool {
        let ring_full = self.ring.len() >= self.ring_cap && self.in_tx.is_some();
        let bytes_full = self.device_bytes_limit.is_some_and(|limit| self.device_bytes >= limit);
        ring_full || bytes_full
    }

    /// What the interface has serialized up to `now`, the packet in serialization pro rata.
    pub fn meter(&self, now: Time) -> TxMeter {
        let mut m = TxMeter { busy: self.busy_done, bytes: self.bytes_done as f64 };
        if let Some(pkt) = &self.in_tx {
            let done = now.clamp(self.tx_from, self.tx_until) - self.tx_from;
            m.busy += done;
            m.bytes += f64::from(pkt.size) * done as f64 / (self.tx_until - self.tx_from).max(1) as f64;
        }
        m
    }

    /// Bytes held below the qdisc (device ring and serializer).
    pub fn device_bytes(&self) -> u64 {
        self.device_bytes
    }

    /// Packets held below the qdisc (device ring and serializer).
    pub fn device_backlog(&self) -> usize {
        self.ring.len() + self.in_tx.is_some() as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::MS;

    /// During a warm-up the sojourn distribution takes nothing (the window would discard it),
    /// while the counters the series read count every packet.
    #[test]
    fn sojourns_are_sampled_only_inside_the_measurement_window() {
        let mut stats = IfaceStats::default();
        let mut pkt = Packet::datagram(0, 1500);
        stats.begin_warmup();
        stats.on_dequeue(&pkt, 2 * MS);
        assert_eq!((stats.sojourn.count(), stats.total.dequeued, stats.total.sojourn_ns), (0, 1, 2_000_000));
        stats.start_window();
        pkt.enqueued_at = 10 * MS;
        stats.on_dequeue(&pkt, 13 * MS);
        assert_eq!((stats.sojourn.count(), stats.sojourn.max()), (1, Some(3 * MS)));
        assert_eq!((stats.total.dequeued, stats.total.sojourn_ns), (2, 5_000_000));
    }

    /// The draws have the measured medians (16 us for an ACK, 31-32 us for data) and spread
    /// (p90 / p50 = e^(1.2816 x 0.42) = 1.71).
    #[test]
    fn rx_latency_has_the_measured_medians_and_spread() {
        let mut rng = Rng::stream(1, "rx");
        for (carries_data, median) in [(false, 16_000.0), (true, 32_000.0)] {
            let mut x: Vec<Time> = (0..100_000).map(|_| rx_latency(16_000, carries_data, &mut rng)).collect();
            x.sort_unstable();
            let q = |p: f64| x[(p * x.len() as f64) as usize] as f64;
            assert!((q(0.5) / median - 1.0).abs() < 0.02, "median {} for {median}", q(0.5));
            assert!((q(0.9) / q(0.5) - 1.71).abs() < 0.04, "p90/p50 {}", q(0.9) / q(0.5));
            assert!((q(0.5) / q(0.1) - 1.71).abs() < 0.04, "p50/p10 {}", q(0.5) / q(0.1));
        }
    }
}
