//! Tail-drop FIFOs: `pfifo` (packet limit) and `bfifo` (byte limit), as Linux `sch_fifo.c`.

use super::{Qdisc, Verdicts};
use crate::net::Packet;
use crate::sim::Time;
use std::collections::VecDeque;

/// A FIFO that tail-drops when admitting a packet would exceed a packet or byte limit.
struct Fifo {
    queue: VecDeque<Packet>,
    bytes: u64,
}

impl Fifo {
    fn new() -> Self {
        Fifo { queue: VecDeque::new(), bytes: 0 }
    }

    fn admit(&mut self, mut pkt: Packet, now: Time, fits: bool, out: &mut Verdicts) {
        if fits {
            pkt.enqueued_at = now;
            self.bytes += pkt.size as u64;
            self.queue.push_back(pkt);
        } else {
            out.dropped.push(pkt);
        }
    }

    fn pop(&mut self) -> Option<Packet> {
        let pkt = self.queue.pop_front()?;
        self.bytes -= pkt.size as u64;
        Some(pkt)
    }
}

/// Linux `pfifo`: at most `limit` packets.
pub struct Pfifo {
    fifo: Fifo,
    limit: u32,
}

impl Pfifo {
    pub fn new(limit: u32) -> Self {
        Pfifo { fifo: Fifo::new(), limit }
    }
}

impl Qdisc for Pfifo {
    fn kind(&self) -> &'static str {
        "pfifo"
    }
    fn enqueue(&mut self, pkt: Packet, now: Time, out: &mut Verdicts) {
        let fits = self.fifo.queue.len() < self.limit as usize;
        self.fifo.admit(pkt, now, fits, out);
    }
    fn dequeue(&mut self, _now: Time, _out: &mut Verdicts) -> Option<Packet> {
        self.fifo.pop()
    }
    fn len(&self) -> usize {
        self.fifo.queue.len()
    }
    fn bytes(&self) -> u64 {
        self.fifo.bytes
    }
}

/// Linux `bfifo`: at most `limit` bytes of packets.
pub struct Bfifo {
    fifo: Fifo,
    limit: u64,
}

impl Bfifo {
    pub fn new(limit: u64) -> Self {
        Bfifo { fifo: Fifo::new(), limit }
    }
}

impl Qdisc for Bfifo {
    fn kind(&self) -> &'static str {
        "bfifo"
    }
    fn enqueue(&mut self, pkt: Packet, now: Time, out: &mut Verdicts) {
        let fits = self.fifo.bytes + pkt.size as u64 <= self.limit;
        self.fifo.admit(pkt, now, fits, out);
    }
    fn dequeue(&mut self, _now: Time, _out: &mut Verdicts) -> Option<Packet> {
        self.fifo.pop()
    }
    fn len(&self) -> usize {
        self.fifo.queue.len()
    }
    fn bytes(&self) -> u64 {
        self.fifo.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::{Ecn, Payload};

    fn pkt(size: u32) -> Packet {
        Packet {
            flow: 0,
            conn: 0,
            src: 0,
            dst: 1,
            size,
            ecn: Ecn::NotEct,
            enqueued_at: 0,
            payload: Payload::Udp { seq: 0, sent_at: 0 },
        }
    }

    #[test]
    fn pfifo_tail_drops_beyond_limit_and_keeps_order() {
        let mut q = Pfifo::new(3);
        let mut v = Verdicts::default();
        for i in 0..5 {
            q.enqueue(pkt(100 + i), 10, &mut v);
        }
        assert_eq!(q.len(), 3);
        assert_eq!(v.dropped.iter().map(|p| p.size).collect::<Vec<_>>(), vec![103, 104]);
        assert_eq!(q.bytes(), 100 + 101 + 102);
        assert_eq!(q.dequeue(20, &mut v).unwrap().size, 100);
        assert_eq!(q.bytes(), 203);
    }

    #[test]
    fn bfifo_counts_bytes() {
        let mut q = Bfifo::new(3000);
        let mut v = Verdicts::default();
        q.enqueue(pkt(1500), 0, &mut v);
        q.enqueue(pkt(1500), 0, &mut v);
        q.enqueue(pkt(40), 0, &mut v);
        assert_eq!(q.len(), 2);
        assert_eq!(v.dropped.len(), 1);
        q.dequeue(0, &mut v);
        q.enqueue(pkt(40), 0, &mut v);
        assert_eq!(q.len(), 2);
        assert_eq!(q.bytes(), 1540);
    }
}
