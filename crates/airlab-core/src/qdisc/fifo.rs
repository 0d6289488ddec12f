//! The FIFOs of Linux `sch_fifo.c`: tail-drop `pfifo` (packet limit) and `bfifo` (byte limit),
//! and `pfifo_head_drop` (its component is in [`super::pfifo_head_drop`]).

use super::{Build, Component, Config, Qdisc, Verdicts};
use crate::net::Packet;
use crate::params::{no_check, Kind, Param, Value};
use crate::sim::{Rng, Time};
use std::collections::VecDeque;

/// The packet limit of the FIFO-like qdiscs (`pfifo`, `pfifo_head_drop`, `codel`).
pub const PACKET_LIMIT: Param = Param {
    name: "limit",
    kind: Kind::Int { min: 1, max: u32::MAX as i64, unit: "packets" },
    default: Value::Int(1000),
    doc: "packets queued at most (Linux default: 1000, a device's txqueuelen)",
};

/// A FIFO-like qdisc whose one parameter is [`PACKET_LIMIT`], with one queue.
pub(super) const fn packet_limited(
    name: &'static str,
    doc: &'static str,
    build: fn(&Config, Rng) -> Box<dyn Qdisc>,
) -> Component {
    Component { name, doc, params: &[PACKET_LIMIT], check: no_check, build: Build(build, super::one_queue) }
}

pub static PFIFO: Component =
    packet_limited("pfifo", "tail-drop FIFO with a packet limit (Linux pfifo)", |c: &Config, _: Rng| {
        Box::new(Fifo::pfifo(c.int("limit") as u32))
    });

pub static BFIFO: Component = Component {
    name: "bfifo",
    doc: "tail-drop FIFO with a byte limit (Linux bfifo)",
    params: &[Param {
        name: "limit",
        kind: Kind::Bytes { min: 1, max: u64::MAX },
        default: Value::Bytes(1000 * 1514),
        doc: "bytes queued at most (Linux: txqueuelen x MTU with its Ethernet header)",
    }],
    check: no_check,
    build: Build(|c: &Config, _: Rng| Box::new(Fifo::bfifo(c.bytes("limit"))), super::one_queue),
};

/// What bounds a FIFO.
#[derive(Clone, Copy, Debug)]
enum Limit {
    Packets(u32),
    Bytes(u64),
    /// A packet limit kept by dropping the oldest packet.
    HeadDrop(u32),
}

/// A FIFO that tail-drops an arriving packet that would exceed its limit, or with
/// [`Fifo::pfifo_head_drop`] drops its oldest packet to make room.
pub struct Fifo {
    queue: VecDeque<Packet>,
    bytes: u64,
    limit: Limit,
}

impl Fifo {
    /// Linux `pfifo`: at most `limit` packets.
    pub fn pfifo(limit: u32) -> Self {
        Fifo { queue: VecDeque::new(), bytes: 0, limit: Limit::Packets(limit) }
    }

    /// Linux `bfifo`: at most `limit` bytes of packets.
    pub fn bfifo(limit: u64) -> Self {
        Fifo { queue: VecDeque::new(), bytes: 0, limit: Limit::Bytes(limit) }
    }

    /// Linux `pfifo_head_drop`: at most `limit` packets; a full queue drops its oldest.
    pub fn pfifo_head_drop(limit: u32) -> Self {
        Fifo { queue: VecDeque::new(), bytes: 0, limit: Limit::HeadDrop(limit) }
    }

    /// Takes the head packet out.
    pub(super) fn pop_head(&mut self) -> Option<Packet> {
        let pkt = self.queue.pop_front()?;
        self.bytes -= pkt.size as u64;
        Some(pkt)
    }
}

impl Qdisc for Fifo {
    fn kind(&self) -> &'static str {
        match self.limit {
            Limit::Packets(_) => "pfifo",
            Limit::Bytes(_) => "bfifo",
            Limit::HeadDrop(_) => "pfifo_head_drop",
        }
    }

    fn enqueue(&mut self, mut pkt: Packet, now: Time, out: &mut Verdicts) {
        if let Limit::HeadDrop(n) = self.limit {
            if self.queue.len() >= n as usize {
                let oldest = self.pop_head().expect("a full queue has a head");
                out.dropped.push(oldest);
            }
        }
        let fits = match self.limit {
            Limit::Packets(n) | Limit::HeadDrop(n) => self.queue.len() < n as usize,
            Limit::Bytes(n) => self.bytes + pkt.size as u64 <= n,
        };
        if fits {
            pkt.enqueued_at = now;
            self.bytes += pkt.size as u64;
            self.queue.push_back(pkt);
        } else {
            out.dropped.push(pkt);
        }
    }

    fn dequeue(&mut self, _now: Time, _out: &mut Verdicts) -> Option<Packet> {
        self.pop_head()
    }

    fn len(&self) -> usize {
        self.queue.len()
    }

    fn bytes(&self) -> u64 {
        self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pkt(size: u32) -> Packet {
        Packet::datagram(0, size)
    }

    #[test]
    fn pfifo_tail_drops_beyond_limit_and_keeps_order() {
        let mut q = Fifo::pfifo(3);
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
        let mut q = Fifo::bfifo(3000);
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
