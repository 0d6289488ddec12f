//! `pfifo_head_drop` (Linux `sch_fifo.c`): a packet-limited FIFO that, when full, drops the
//! oldest packet to make room for the new one. The loss then reaches the sender a whole queue
//! earlier than with tail drop, since the dropped packet's successors are already queued
//! behind it, not yet to be sent.

use super::fifo::PACKET_LIMIT;
use super::{Build, Component, Config, Fifo, Qdisc, Verdicts};
use crate::net::Packet;
use crate::params::no_check;
use crate::sim::{Rng, Time};

pub static PFIFO_HEAD_DROP: Component = Component {
    name: "pfifo_head_drop",
    doc: "FIFO with a packet limit that drops its oldest packet when full (Linux pfifo_head_drop)",
    params: &[PACKET_LIMIT],
    check: no_check,
    build: Build(|c: &Config, _: Rng| Box::new(HeadDrop::new(c.int("limit") as usize)), super::one_queue),
};

/// A [`Fifo`] that makes room at its head.
pub struct HeadDrop {
    fifo: Fifo,
    limit: usize,
}

impl HeadDrop {
    pub fn new(limit: usize) -> Self {
        HeadDrop { fifo: Fifo::pfifo(limit as u32), limit }
    }
}

impl Qdisc for HeadDrop {
    fn kind(&self) -> &'static str {
        PFIFO_HEAD_DROP.name
    }

    fn enqueue(&mut self, pkt: Packet, now: Time, out: &mut Verdicts) {
        if self.fifo.len() >= self.limit {
            let oldest = self.fifo.dequeue(now, out).expect("a full queue has a head");
            out.dropped.push(oldest);
        }
        self.fifo.enqueue(pkt, now, out);
    }

    fn dequeue(&mut self, now: Time, out: &mut Verdicts) -> Option<Packet> {
        self.fifo.dequeue(now, out)
    }

    fn len(&self) -> usize {
        self.fifo.len()
    }

    fn bytes(&self) -> u64 {
        self.fifo.bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::{Ecn, TcpSegment};

    #[test]
    fn a_full_queue_drops_its_oldest_packet() {
        let mut q = HeadDrop::new(3);
        let mut v = Verdicts::default();
        for seq in 0..5u32 {
            let pkt = Packet::tcp_packet(0, 0, 0, 1, 1000 + seq, Ecn::NotEct, TcpSegment::default());
            q.enqueue(pkt, u64::from(seq), &mut v);
        }
        // The two oldest went, in order; the three newest wait, in order.
        let sizes = |pkts: &[Packet]| pkts.iter().map(|p| p.size).collect::<Vec<_>>();
        assert_eq!(sizes(&v.dropped), [1000, 1001]);
        assert_eq!((q.len(), q.bytes()), (3, 1002 + 1003 + 1004));
        let out: Vec<u32> = std::iter::from_fn(|| q.dequeue(9, &mut v)).map(|p| p.size).collect();
        assert_eq!(out, [1002, 1003, 1004]);
        assert_eq!(q.bytes(), 0);
    }
}
