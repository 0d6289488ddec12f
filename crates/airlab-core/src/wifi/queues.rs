//! The device layer of a Wi-Fi interface: the frames the driver holds below the qdisc,
//! waiting for the MAC to win the channel.
//!
//! Two shapes, as in Linux: one driver FIFO shared by every destination (legacy drivers), or
//! mac80211-style queues per destination, served round robin or, with airtime fairness, by
//! deficit round robin on the airtime each station's transmissions used (Høiland-Jørgensen et
//! al., "Ending the Anomaly", ATC 2017; Linux `ieee80211_txq_may_transmit`). Either way the
//! device holds at most `size` packets in total: the qdisc above only gives up a packet while
//! there is room, so the standing queue stays in the qdisc where an AQM can act on it.

use crate::net::Packet;
use crate::sim::{Time, US};
use serde::Serialize;
use std::collections::VecDeque;

/// The shape of the device layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum DeviceLayer {
    /// One driver FIFO of `size` packets for all destinations (legacy drivers).
    Fifo { size: u32 },
    /// mac80211-style queues, one per destination, `size` packets in all, served round robin
    /// or, with `airtime_fairness`, by deficit round robin on airtime.
    PerStation { size: u32, airtime_fairness: bool },
}

/// Airtime a station may use per round of the fairness scheduler (Linux
/// `IEEE80211_DEFAULT_AIRTIME_WEIGHT`, 256 µs).
const AIRTIME_QUANTUM: i64 = 256 * US as i64;

/// One MAC frame carrying one IP packet, with its link-level sequence number and the
/// transmission attempts it has had.
#[derive(Clone, Copy, Debug)]
pub struct Mpdu {
    pub pkt: Packet,
    /// Sequence number on its link (per transmitter and receiver), from 0.
    pub seq: u64,
    pub attempts: u32,
}

pub struct DeviceQueues {
    size: usize,
    len: usize,
    kind: Kind,
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
}

impl DeviceQueues {
    pub fn new(layer: &DeviceLayer, peers: usize) -> Self {
        match *layer {
            DeviceLayer::Fifo { size } => {
                DeviceQueues { size: size as usize, len: 0, kind: Kind::Fifo(VecDeque::new()) }
            }
            DeviceLayer::PerStation { size, airtime_fairness } => DeviceQueues {
                size: size as usize,
                len: 0,
                kind: Kind::PerStation {
                    queues: vec![VecDeque::new(); peers],
                    active: VecDeque::new(),
                    deficit: airtime_fairness.then(|| vec![0; peers]),
                },
            },
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether the qdisc must hold on to its packets.
    pub fn is_full(&self) -> bool {
        self.len >= self.size
    }

    /// Queue a new frame for destination `peer`.
    pub fn push(&mut self, peer: u16, mpdu: Mpdu) {
        self.len += 1;
        match &mut self.kind {
            Kind::Fifo(ring) => ring.push_back((peer, mpdu)),
            Kind::PerStation { queues, active, .. } => {
                let q = &mut queues[peer as usize];
                if q.is_empty() {
                    active.push_back(peer);
                }
                q.push_back(mpdu);
            }
        }
    }

    /// Put frames that failed back at the head of their queue, in their original order, for
    /// retransmission (a retry may exceed `size`: the frames were already admitted).
    pub fn requeue(&mut self, peer: u16, mpdus: impl DoubleEndedIterator<Item = Mpdu>) {
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
        }
    }

    /// Take up to `max` frames for `peer`, oldest first, while `fits` accepts each next one
    /// given those already taken. The FIFO takes the peer's frames from anywhere in the ring,
    /// as a driver's per-TID aggregation queues would.
    pub fn take(&mut self, peer: u16, max: usize, mut fits: impl FnMut(&[Mpdu], &Mpdu) -> bool) -> Vec<Mpdu> {
        let mut out: Vec<Mpdu> = Vec::new();
        match &mut self.kind {
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

    /// Charge `peer` for the airtime of a transmission (airtime fairness only).
    pub fn charge(&mut self, peer: u16, airtime: Time) {
        if let Kind::PerStation { deficit: Some(deficit), .. } = &mut self.kind {
            deficit[peer as usize] -= airtime as i64;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::{Ecn, Payload};

    fn mpdu(seq: u64) -> Mpdu {
        let pkt = crate::net::Packet {
            flow: 0,
            conn: 0,
            src: 0,
            dst: 1,
            size: 1500,
            ecn: Ecn::NotEct,
            dscp: 0,
            enqueued_at: 0,
            charged: false,
            payload: Payload::Udp { seq, sent_at: 0 },
        };
        Mpdu { pkt, seq, attempts: 0 }
    }

    fn seqs(v: &[Mpdu]) -> Vec<u64> {
        v.iter().map(|m| m.seq).collect()
    }

    #[test]
    fn fifo_aggregates_one_destination_from_anywhere_in_the_ring() {
        let mut q = DeviceQueues::new(&DeviceLayer::Fifo { size: 4 }, 2);
        for (peer, seq) in [(0, 0), (1, 100), (0, 1), (0, 2)] {
            q.push(peer, mpdu(seq));
        }
        assert!(q.is_full());
        assert_eq!(q.next_peer(), Some(0));
        let got = q.take(0, 8, |_, _| true);
        assert_eq!(seqs(&got), [0, 1, 2]);
        assert_eq!((q.len(), q.next_peer()), (1, Some(1)));
        // Failed frames go back in front, in order.
        q.requeue(0, got[1..].iter().copied());
        assert_eq!(q.next_peer(), Some(0));
        assert_eq!(seqs(&q.take(0, 1, |_, _| true)), [1]);
    }

    #[test]
    fn take_stops_at_the_first_frame_that_does_not_fit() {
        let mut q = DeviceQueues::new(&DeviceLayer::PerStation { size: 10, airtime_fairness: false }, 1);
        for seq in 0..5 {
            q.push(0, mpdu(seq));
        }
        let got = q.take(0, 10, |taken, _| taken.len() < 3);
        assert_eq!(seqs(&got), [0, 1, 2]);
        assert_eq!(q.len(), 2);
    }

    #[test]
    fn round_robin_alternates_between_stations() {
        let mut q = DeviceQueues::new(&DeviceLayer::PerStation { size: 10, airtime_fairness: false }, 2);
        for seq in 0..3 {
            q.push(0, mpdu(seq));
            q.push(1, mpdu(100 + seq));
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
        let mut q = DeviceQueues::new(&DeviceLayer::PerStation { size: 1000, airtime_fairness: true }, 2);
        for seq in 0..400 {
            q.push(0, mpdu(seq));
            q.push(1, mpdu(seq));
        }
        let airtime = [100 * US, 400 * US];
        let mut used = [0u64; 2];
        let mut frames = [0u32; 2];
        for _ in 0..250 {
            let peer = q.next_peer().unwrap();
            q.take(peer, 1, |_, _| true);
            q.charge(peer, airtime[peer as usize]);
            used[peer as usize] += airtime[peer as usize];
            frames[peer as usize] += 1;
        }
        let share = used[0] as f64 / (used[0] + used[1]) as f64;
        assert!((share - 0.5).abs() < 0.02, "airtime share {share}, frames {frames:?}");
        assert!((frames[0] as f64 / frames[1] as f64 - 4.0).abs() < 0.3, "frames {frames:?}");
    }
}
