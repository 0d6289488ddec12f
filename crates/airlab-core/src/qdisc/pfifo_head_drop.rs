//! `pfifo_head_drop` (Linux `sch_fifo.c`): a packet-limited FIFO that, when full, drops the
//! oldest packet to make room for the new one. The loss then reaches the sender a whole queue
//! earlier than with tail drop, since the dropped packet's successors are already queued
//! behind it, not yet to be sent.

use super::fifo::packet_limited;
use super::{Component, Config, Fifo};
use crate::sim::Rng;

pub static PFIFO_HEAD_DROP: Component = packet_limited(
    "pfifo_head_drop",
    "FIFO with a packet limit that drops its oldest packet when full (Linux pfifo_head_drop)",
    |c: &Config, _: Rng| Box::new(Fifo::pfifo_head_drop(c.int("limit") as u32)),
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::{Ecn, Packet, TcpSegment};
    use crate::qdisc::{Qdisc, Verdicts};

    #[test]
    fn a_full_queue_drops_its_oldest_packet() {
        let mut q = Fifo::pfifo_head_drop(3);
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
