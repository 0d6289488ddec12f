//! The receiver's Block Ack reordering buffer (802.11-2020 10.25.6; Linux
//! `ieee80211_sta_manage_reorder_buf`): frames of an A-MPDU that arrive after a gap wait until
//! the gap is filled by a retransmission or the transmitter gives the missing frame up, so
//! that IP sees packets in order, as it would from a real Wi-Fi link.

use crate::net::Packet;
use std::collections::BTreeMap;

#[derive(Default)]
pub struct Reorder {
    /// The next sequence number to hand up.
    next: u64,
    /// Frames received beyond a gap; `None` marks a frame the transmitter gave up on.
    held: BTreeMap<u64, Option<Packet>>,
}

impl Reorder {
    /// A frame arrived: push the packets now in order onto `up`. Duplicates (a retry of a
    /// frame whose acknowledgement was lost) are discarded.
    pub fn receive(&mut self, seq: u64, pkt: Packet, up: &mut Vec<Packet>) {
        if seq < self.next || self.held.contains_key(&seq) {
            return;
        }
        // In-order arrival with nothing held, the common case, bypasses the map: packets are
        // large and moving them through B-tree nodes dominated the Wi-Fi hop's profile.
        if seq == self.next && self.held.is_empty() {
            up.push(pkt);
            self.next += 1;
            return;
        }
        self.held.insert(seq, Some(pkt));
        self.release(up);
    }

    /// The transmitter dropped frame `seq` after its last attempt (a Block Ack Request moves
    /// the window past it): stop waiting for it.
    pub fn skip(&mut self, seq: u64, up: &mut Vec<Packet>) {
        if seq < self.next || self.held.contains_key(&seq) {
            return;
        }
        self.held.insert(seq, None);
        self.release(up);
    }

    fn release(&mut self, up: &mut Vec<Packet>) {
        while let Some(entry) = self.held.remove(&self.next) {
            up.extend(entry);
            self.next += 1;
        }
    }

    /// Frames held back waiting for a gap to close.
    #[cfg(test)]
    pub fn held(&self) -> usize {
        self.held.values().filter(|e| e.is_some()).count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::Payload;

    fn pkt(seq: u64) -> Packet {
        Packet::datagram(seq, 100)
    }

    fn seqs(v: &[Packet]) -> Vec<u64> {
        v.iter()
            .map(|p| match p.payload {
                Payload::Udp { seq, .. } => seq,
                _ => unreachable!(),
            })
            .collect()
    }

    #[test]
    fn holds_frames_behind_a_gap_until_the_retry_fills_it() {
        let mut r = Reorder::default();
        let mut up = Vec::new();
        r.receive(0, pkt(0), &mut up);
        r.receive(2, pkt(2), &mut up);
        r.receive(3, pkt(3), &mut up);
        assert_eq!(seqs(&up), [0]);
        assert_eq!(r.held(), 2);
        r.receive(1, pkt(1), &mut up);
        assert_eq!(seqs(&up), [0, 1, 2, 3]);
        // A duplicate of a delivered frame is discarded.
        r.receive(2, pkt(2), &mut up);
        assert_eq!(up.len(), 4);
    }

    #[test]
    fn a_dropped_frame_releases_what_waits_behind_it() {
        let mut r = Reorder::default();
        let mut up = Vec::new();
        r.receive(1, pkt(1), &mut up);
        assert!(up.is_empty());
        r.skip(0, &mut up);
        assert_eq!(seqs(&up), [1]);
        // Skipping something already delivered changes nothing.
        r.skip(1, &mut up);
        r.receive(2, pkt(2), &mut up);
        assert_eq!(seqs(&up), [1, 2]);
    }
}
