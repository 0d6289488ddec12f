//! The device layer of a Wi-Fi interface: the frames the driver holds below the qdisc,
//! waiting for the MAC to win the channel.
//!
//! Three shapes. One driver FIFO shared by every destination (legacy drivers), or queues per
//! destination, served round robin or, with airtime fairness, by deficit round robin on the
//! airtime each station's transmissions used (Høiland-Jørgensen et al., "Ending the Anomaly",
//! ATC 2017). Both hold at most `size` packets in total: the qdisc above only gives up a
//! packet while there is room, so the standing queue stays in the qdisc where an AQM can act
//! on it. The third is Linux's mac80211 layer ([`super::mac80211`]), which takes every packet
//! and queues it in per-station FQ-CoDel TXQs of its own. The first two are declared here as
//! the device layers `fifo` and `per_station` a scenario names ([`super::device`]).

use super::mac80211::{Mac80211, AIRTIME_QUANTUM};
use super::{Build, Component, DeviceLayer};
use crate::net::{Packet, MAX_DEVICE_QUEUE};
use crate::params::{self, no_check, Param, Value};
use crate::qdisc::Verdicts;
use crate::sim::Time;
use crate::wifi::mpdu::Mpdu;
use std::collections::VecDeque;

pub static FIFO: Component = Component {
    name: "fifo",
    doc: "one driver FIFO for all destinations (legacy drivers), optionally dropping frames that waited too long",
    params: &[
        SIZE,
        Param {
            name: "lifetime",
            kind: params::Kind::Time { min: 1 },
            default: Value::Unset,
            doc: "drop a frame that waited longer (ns-3's WifiMacQueue MaxDelay, 500 ms there); unset: never",
        },
    ],
    check: no_check,
    build: Build(|c| DeviceLayer::Fifo { size: c.int("size") as u32, lifetime: c.opt_time("lifetime") }),
};

pub static PER_STATION: Component = Component {
    name: "per_station",
    doc: "a queue per destination, served round robin or by deficit round robin on airtime",
    params: &[
        SIZE,
        Param {
            name: "airtime_fairness",
            kind: params::Kind::Flag,
            default: Value::Flag(false),
            doc: "serve stations by deficit round robin on the airtime they used (\"Ending the Anomaly\")",
        },
    ],
    check: no_check,
    build: Build(|c| DeviceLayer::PerStation {
        size: c.int("size") as u32,
        airtime_fairness: c.flag("airtime_fairness"),
    }),
};

/// The bound the driver FIFO and the per-station queues share.
const SIZE: Param = Param {
    name: "size",
    kind: params::Kind::Int { min: 1, max: MAX_DEVICE_QUEUE as i64, unit: "packets" },
    default: Value::Int(128),
    doc: "frames held in all, every destination together; long queues belong in the qdisc above",
};

pub struct DeviceQueues {
    size: usize,
    /// How long a frame may wait in the FIFO, if bounded.
    lifetime: Option<Time>,
    len: usize,
    kind: Kind,
    /// The next sequence number per destination, given as a frame is queued here (for
    /// mac80211, as it enters the firmware).
    next_seq: Vec<u64>,
}

enum Kind {
    /// One ring; frames carry their destination (peer index).
    Fifo(VecDeque<(u16, Mpdu)>),
    PerStation {
        queues: Vec<VecDeque<Mpdu>>,
        /// Destinations with frames queued, in service order.
        active: VecDeque<u16>,
        /// Airtime deficit per destination (ns), when airtime fairness is on.
        deficit: Option<Vec<i64>>,
    },
    Mac80211(Box<Mac80211>),
}

impl DeviceQueues {
    /// The device layer of an interface with `peers` destinations; `perturbation` keys the
    /// flow hash of mac80211's TXQs.
    pub fn new(layer: &DeviceLayer, peers: usize, perturbation: u64) -> Self {
        let (size, kind) = match *layer {
            DeviceLayer::Fifo { size, .. } => (size as usize, Kind::Fifo(VecDeque::new())),
            DeviceLayer::PerStation { size, airtime_fairness } => (
                size as usize,
                Kind::PerStation {
                    queues: vec![VecDeque::new(); peers],
                    active: VecDeque::new(),
                    deficit: airtime_fairness.then(|| vec![0; peers]),
                },
            ),
            DeviceLayer::Mac80211(params) => {
                (usize::MAX, Kind::Mac80211(Box::new(Mac80211::new(params, peers, perturbation))))
            }
        };
        let lifetime = match *layer {
            DeviceLayer::Fifo { lifetime, .. } => lifetime,
            _ => None,
        };
        DeviceQueues { size, lifetime, len: 0, kind, next_seq: vec![0; peers] }
    }

    /// Drop the frames that waited longer than the FIFO's lifetime, into `out`. ns-3 drops
    /// them as it comes across them; here, whenever the driver refills the device layer
    /// (after every arrival and every transmission), so a frame may outlive its lifetime by
    /// the exchange in progress.
    pub fn expire(&mut self, now: Time, out: &mut Verdicts) {
        let (Some(lifetime), Kind::Fifo(ring)) = (self.lifetime, &mut self.kind) else { return };
        // Retries go back to the front, so the oldest frame need not be first: look at all.
        let before = ring.len();
        ring.retain(|(_, m)| {
            let keep = now.saturating_sub(m.queued_at) <= lifetime;
            if !keep {
                out.dropped.push(m.pkt.clone());
            }
            keep
        });
        self.len -= before - ring.len();
    }

    /// Packets held below the qdisc (for mac80211, in its TXQs and the firmware).
    pub fn len(&self) -> usize {
        match &self.kind {
            Kind::Mac80211(m) => m.len(),
            _ => self.len,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the MAC has frames to send.
    pub fn has_frames(&self) -> bool {
        match &self.kind {
            Kind::Mac80211(m) => m.has_frames(),
            _ => self.len > 0,
        }
    }

    /// Whether the qdisc must hold on to its packets (never, for mac80211).
    pub fn is_full(&self) -> bool {
        self.len >= self.size
    }

    /// Queue a packet for destination `peer`. Only the mac80211 layer may drop (or mark) on
    /// the way, into `out`.
    pub fn push(&mut self, peer: u16, pkt: Packet, now: Time, out: &mut Verdicts) {
        let mut frame = |pkt: Packet| {
            let seq = self.next_seq[peer as usize];
            self.next_seq[peer as usize] += 1;
            Mpdu { pkt, seq, attempts: 0, aql: 0, queued_at: now }
        };
        match &mut self.kind {
            Kind::Fifo(ring) => ring.push_back((peer, frame(pkt))),
            Kind::PerStation { queues, active, .. } => {
                let q = &mut queues[peer as usize];
                if q.is_empty() {
                    active.push_back(peer);
                }
                q.push_back(frame(pkt));
            }
            Kind::Mac80211(m) => return m.push(peer, pkt, now, out),
        }
        self.len += 1;
    }

    /// Let the driver move frames from mac80211's TXQs to the firmware (no-op for the other
    /// layers); `airtime(peer, bytes)` is AQL's estimate for a packet.
    pub fn fill(&mut self, now: Time, out: &mut Verdicts, airtime: impl Fn(u16, u32) -> Time) {
        if let Kind::Mac80211(m) = &mut self.kind {
            m.fill(now, &mut self.next_seq, out, airtime);
        }
    }

    /// Put frames that failed back at the head of their queue, in their original order, for
    /// retransmission (a retry may exceed `size`: the frames were already admitted).
    pub fn requeue(&mut self, peer: u16, mpdus: impl DoubleEndedIterator<Item = Mpdu>) {
        if let Kind::Mac80211(m) = &mut self.kind {
            return m.requeue(peer, mpdus);
        }
        for mpdu in mpdus.rev() {
            self.len += 1;
            match &mut self.kind {
                Kind::Fifo(ring) => ring.push_front((peer, mpdu)),
                Kind::PerStation { queues, active, .. } => {
                    let q = &mut queues[peer as usize];
                    if q.is_empty() && !active.contains(&peer) {
                        // A retry goes first: it holds up the receiver's reordering.
                        active.push_front(peer);
                    }
                    q.push_front(mpdu);
                }
                Kind::Mac80211(_) => unreachable!("handled above"),
            }
        }
    }

    /// The destination served next: the head frame's (FIFO), the next station in the round
    /// robin, or the next station whose airtime deficit is not negative.
    pub fn next_peer(&mut self) -> Option<u16> {
        match &mut self.kind {
            Kind::Fifo(ring) => ring.front().map(|&(peer, _)| peer),
            Kind::PerStation { active, deficit: None, .. } => active.front().copied(),
            Kind::PerStation { active, deficit: Some(deficit), .. } => {
                // Every pass that finds no station in credit tops each up by one quantum, so
                // this ends after as many passes as the largest debt needs.
                loop {
                    let &peer = active.front()?;
                    if deficit[peer as usize] >= 0 {
                        return Some(peer);
                    }
                    deficit[peer as usize] += AIRTIME_QUANTUM;
                    active.rotate_left(1);
                }
            }
            Kind::Mac80211(m) => m.next_peer(),
        }
    }

    /// The distinct destinations with frames, in the order they would be served: the stations
    /// a multi-user PPDU can carry (the ring's order of first appearance for the FIFO).
    pub fn mu_candidates(&self) -> Vec<u16> {
        match &self.kind {
            Kind::Fifo(ring) => {
                let mut peers: Vec<u16> = Vec::new();
                for &(peer, _) in ring {
                    if !peers.contains(&peer) {
                        peers.push(peer);
                    }
                }
                peers
            }
            Kind::PerStation { active, .. } => active.iter().copied().collect(),
            Kind::Mac80211(m) => m.mu_candidates(),
        }
    }

    /// The A-MPDU length the frames queued for `peer` would fill, counted up to `cap` bytes:
    /// what a station reports as its queue size to an AP that schedules uplink OFDMA (the
    /// frames the MAC can send: for mac80211, those in the firmware).
    pub fn queued_psdu_bytes(&self, peer: u16, cap: u32) -> u32 {
        let mut frames: Box<dyn Iterator<Item = &Mpdu>> = match &self.kind {
            Kind::Fifo(ring) => Box::new(ring.iter().filter(|(p, _)| *p == peer).map(|(_, m)| m)),
            Kind::PerStation { queues, .. } => Box::new(queues[peer as usize].iter()),
            Kind::Mac80211(m) => Box::new(m.firmware_frames(peer)),
        };
        let mut psdu = 0;
        while psdu < cap {
            let Some(m) = frames.next() else { break };
            psdu = crate::wifi::phy::ampdu_append(psdu, crate::wifi::phy::mpdu_bytes(m.pkt.size));
        }
        psdu
    }

    /// Take up to `max` frames for `peer`, oldest first, while `fits` accepts each next one
    /// given those already taken. The FIFO takes the peer's frames from anywhere in the ring,
    /// as a driver's per-TID aggregation queues would.
    pub fn take(&mut self, peer: u16, max: usize, mut fits: impl FnMut(&[Mpdu], &Mpdu) -> bool) -> Vec<Mpdu> {
        let mut out: Vec<Mpdu> = Vec::new();
        match &mut self.kind {
            Kind::Mac80211(m) => return m.take(peer, max, fits),
            Kind::Fifo(ring) => {
                let mut i = 0;
                while i < ring.len() && out.len() < max {
                    if ring[i].0 != peer {
                        i += 1;
                        continue;
                    }
                    if !fits(&out, &ring[i].1) {
                        break;
                    }
                    out.push(ring.remove(i).expect("index in range").1);
                }
            }
            Kind::PerStation { queues, active, deficit } => {
                let q = &mut queues[peer as usize];
                while out.len() < max {
                    match q.front() {
                        Some(next) if fits(&out, next) => out.push(q.pop_front().expect("front exists")),
                        _ => break,
                    }
                }
                // Round robin moves on after every transmission opportunity; the airtime
                // scheduler keeps serving a station while it is in credit.
                if deficit.is_none() || q.is_empty() {
                    active.retain(|&p| p != peer);
                    if !q.is_empty() {
                        active.push_back(peer);
                    }
                }
            }
        }
        self.len -= out.len();
        out
    }

    /// The tx status of an exchange with `peer`: charge it the `airtime` it used (airtime
    /// fairness), and release the AQL estimates of its frames done with (`released`).
    pub fn complete(&mut self, peer: u16, airtime: Time, released: Time) {
        match &mut self.kind {
            Kind::PerStation { deficit: Some(deficit), .. } => deficit[peer as usize] -= airtime as i64,
            Kind::Mac80211(m) => m.complete(peer, airtime, released),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::sim::US;

    fn pkt(seq: u64) -> Packet {
        Packet::datagram(seq, 1500)
    }

    fn push(q: &mut DeviceQueues, peer: u16, seq: u64) {
        q.push(peer, pkt(seq), 0, &mut Verdicts::default());
    }

    fn seqs(v: &[Mpdu]) -> Vec<u64> {
        v.iter().map(|m| m.seq).collect()
    }

    #[test]
    fn a_fifo_with_a_lifetime_drops_the_frames_that_waited_longer() {
        use crate::sim::MS;
        let layer = DeviceLayer::Fifo { size: 8, lifetime: Some(500 * MS) };
        let mut q = DeviceQueues::new(&layer, 2, 0);
        let mut out = Verdicts::default();
        for (i, at) in [0, 100, 200].into_iter().enumerate() {
            let mut p = pkt(1000);
            p.size = 1000 + i as u32;
            q.push(i as u16 % 2, p, at * MS, &mut out);
        }
        q.expire(500 * MS, &mut out);
        assert_eq!(q.len(), 3, "none older than 500 ms yet");
        q.expire(650 * MS, &mut out);
        assert_eq!(q.len(), 1);
        assert_eq!(out.dropped.iter().map(|p| p.size).collect::<Vec<_>>(), [1000, 1001]);
        // Without a lifetime nothing expires.
        let mut keep = DeviceQueues::new(&DeviceLayer::Fifo { size: 8, lifetime: None }, 2, 0);
        keep.push(0, pkt(1000), 0, &mut out);
        keep.expire(3600 * 1000 * MS, &mut out);
        assert_eq!(keep.len(), 1);
    }

    #[test]
    fn fifo_aggregates_one_destination_from_anywhere_in_the_ring() {
        let mut q = DeviceQueues::new(&DeviceLayer::Fifo { size: 4, lifetime: None }, 2, 0);
        for (peer, seq) in [(0, 0), (1, 100), (0, 1), (0, 2)] {
            push(&mut q, peer, seq);
        }
        assert!(q.is_full());
        assert_eq!(q.next_peer(), Some(0));
        let got = q.take(0, 8, |_, _| true);
        assert_eq!(seqs(&got), [0, 1, 2]);
        assert_eq!((q.len(), q.next_peer()), (1, Some(1)));
        // Failed frames go back in front, in order.
        q.requeue(0, got[1..].iter().cloned());
        assert_eq!(q.next_peer(), Some(0));
        assert_eq!(seqs(&q.take(0, 1, |_, _| true)), [1]);
    }

    #[test]
    fn take_stops_at_the_first_frame_that_does_not_fit() {
        let mut q = DeviceQueues::new(&DeviceLayer::PerStation { size: 10, airtime_fairness: false }, 1, 0);
        for seq in 0..5 {
            push(&mut q, 0, seq);
        }
        let got = q.take(0, 10, |taken, _| taken.len() < 3);
        assert_eq!(seqs(&got), [0, 1, 2]);
        assert_eq!(q.len(), 2);
    }

    #[test]
    fn round_robin_alternates_between_stations() {
        let mut q = DeviceQueues::new(&DeviceLayer::PerStation { size: 10, airtime_fairness: false }, 2, 0);
        for seq in 0..3 {
            push(&mut q, 0, seq);
            push(&mut q, 1, 100 + seq);
        }
        let mut order = Vec::new();
        while let Some(peer) = q.next_peer() {
            order.push(peer);
            q.take(peer, 1, |_, _| true);
        }
        assert_eq!(order, [0, 1, 0, 1, 0, 1]);
    }

    #[test]
    fn airtime_fairness_gives_a_slow_station_fewer_turns_of_equal_airtime() {
        // Station 1's frames take 4x the airtime of station 0's: over a long backlog each
        // gets the same airtime, so station 0 sends 4 frames for each of station 1's.
        let mut q = DeviceQueues::new(&DeviceLayer::PerStation { size: 1000, airtime_fairness: true }, 2, 0);
        for seq in 0..400 {
            push(&mut q, 0, seq);
            push(&mut q, 1, seq);
        }
        let airtime = [100 * US, 400 * US];
        let mut used = [0u64; 2];
        let mut frames = [0u32; 2];
        for _ in 0..250 {
            let peer = q.next_peer().unwrap();
            q.take(peer, 1, |_, _| true);
            q.complete(peer, airtime[peer as usize], 0);
            used[peer as usize] += airtime[peer as usize];
            frames[peer as usize] += 1;
        }
        let share = used[0] as f64 / (used[0] + used[1]) as f64;
        assert!((share - 0.5).abs() < 0.02, "airtime share {share}, frames {frames:?}");
        assert!((frames[0] as f64 / frames[1] as f64 - 4.0).abs() < 0.3, "frames {frames:?}");
    }
}
