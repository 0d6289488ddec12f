//! The packet as it travels through queues and links. Sizes are IP lengths in bytes.

use super::ext::Extension;
use super::{ConnId, FlowId, NodeId};
use crate::sim::Time;

/// IPv4 + TCP header with the timestamp option, as Linux sends them: 20 + 20 + 12 bytes.
pub const TCP_HEADER: u32 = 52;
/// IPv4 + UDP header.
pub const UDP_HEADER: u32 = 28;
/// The largest UDP payload of an IPv4 packet: 65535 bytes less [`UDP_HEADER`].
pub const MAX_UDP_PAYLOAD: u64 = 65_507;
/// A SYN or SYN-ACK with Linux's usual options (MSS, SACK-permitted, timestamps, wscale).
pub const SYN_SIZE: u32 = 60;

/// ECN codepoint of the IP header (RFC 3168).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ecn {
    NotEct,
    Ect0,
    Ect1,
    Ce,
}

impl Ecn {
    pub fn is_ect(self) -> bool {
        !matches!(self, Ecn::NotEct)
    }
}

/// Up to three SACK blocks, as fit beside the timestamp option. Block 0 is the most recent.
///
/// Held out of line: a receiver sends blocks only while it holds out-of-order data (loss,
/// reordering), and three 64-bit pairs in line would make every packet 48 bytes larger, which
/// each move through a queue, a wire and the event loop pays for (see `Packet`'s size test).
/// An ACK without blocks carries no allocation.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SackBlocks(Option<Box<BlockList>>);

#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct BlockList {
    len: u8,
    blocks: [(u64, u64); 3],
}

impl SackBlocks {
    pub fn push(&mut self, start: u64, end: u64) {
        let list = self.0.get_or_insert_with(Box::default);
        if (list.len as usize) < list.blocks.len() {
            list.blocks[list.len as usize] = (start, end);
            list.len += 1;
        }
    }

    pub fn len(&self) -> usize {
        self.0.as_ref().map_or(0, |list| list.len as usize)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn iter(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        let blocks = self.0.as_ref().map_or(&[][..], |list| &list.blocks[..list.len as usize]);
        blocks.iter().copied()
    }
}

pub mod flags {
    pub const SYN: u8 = 1;
    pub const ACK: u8 = 2;
    /// ECN-Echo: the receiver saw CE.
    pub const ECE: u8 = 4;
    /// Congestion Window Reduced: the sender reacted to ECE.
    pub const CWR: u8 = 8;
    /// The sender's last byte: set on the segment that carries the last byte of a connection
    /// whose application has closed it (`TcpSender::close`), as Linux piggybacks the FIN on the
    /// last queued segment. FIN takes no sequence space here, and neither end acts on it: the
    /// sender is done when its last byte is acknowledged, FIN or not; components on the path
    /// read it (the `airtime_telemetry` AP hook, to see a connection end).
    pub const FIN: u8 = 16;
}

/// A TCP segment. Sequence numbers are 64-bit byte offsets from the first data byte, so they
/// never wrap; SYNs carry no sequence space.
#[derive(Clone, Debug, Default)]
pub struct TcpSegment {
    pub seq: u64,
    pub len: u32,
    pub ack: u64,
    pub flags: u8,
    pub sack: SackBlocks,
    /// Receive window advertised, in bytes (window scaling applied).
    pub wnd: u64,
    /// Timestamp option (RFC 7323): the sender's clock, and the echo of the peer's latest.
    pub tsval: Time,
    pub tsecr: Time,
    /// What a component on the path wrote for the far end to echo back ([`Extension`]).
    pub ext: Extension,
}

impl TcpSegment {
    pub fn has(&self, flag: u8) -> bool {
        self.flags & flag != 0
    }
}

#[derive(Clone, Debug)]
pub enum Payload {
    Tcp(TcpSegment),
    Udp { seq: u64, sent_at: Time },
    Ping { seq: u64, sent_at: Time, reply: bool },
}

#[derive(Clone, Debug)]
pub struct Packet {
    pub flow: FlowId,
    pub conn: ConnId,
    pub src: NodeId,
    pub dst: NodeId,
    /// IP length in bytes.
    pub size: u32,
    pub ecn: Ecn,
    /// Differentiated Services codepoint (the upper 6 bits of the IP TOS byte), for qdiscs that
    /// classify by it (CAKE's tins). Every sender leaves it at 0 (best effort) for now; a flow
    /// option could set it later.
    pub dscp: u8,
    /// When the packet entered its current qdisc; queues measure sojourn time from it.
    pub enqueued_at: Time,
    /// A TCP sender's data packet still on its sending host: charged to the socket's send
    /// budget (Linux `sk_wmem_alloc`) until the host transmits or drops it. The queue that lets
    /// it go reports a [`Release`]; arriving at the next node clears the flag.
    pub charged: bool,
    pub payload: Payload,
}

/// What became of a charged packet ([`Packet::charged`]) on its sending host: Linux frees the
/// skb at transmit completion or drop, returning its truesize to the socket (TCP Small Queues).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Release {
    pub conn: ConnId,
    pub seq: u64,
    /// IP length of the packet.
    pub size: u32,
    /// Dropped by a local queue rather than transmitted.
    pub dropped: bool,
}

impl Release {
    /// The release of `pkt` if it is charged to a socket.
    pub fn of(pkt: &Packet, dropped: bool) -> Option<Release> {
        // The flag first: most packets (ACKs, packets past their first hop) are not charged.
        if !pkt.charged {
            return None;
        }
        let seq = pkt.tcp()?.seq;
        Some(Release { conn: pkt.conn, seq, size: pkt.size, dropped })
    }
}

impl Packet {
    /// Whether the packet carries application data (a TCP segment with payload, a datagram, a
    /// ping) rather than being a pure TCP ACK or control segment.
    pub fn carries_data(&self) -> bool {
        match &self.payload {
            Payload::Tcp(seg) => seg.len > 0,
            Payload::Udp { .. } | Payload::Ping { .. } => true,
        }
    }

    /// What a router can tell flows apart by, standing in for the 5-tuple (addresses,
    /// protocol, ports): the two hosts, the transport, and the connection (TCP) or flow (UDP,
    /// ping) as the port pair. The two directions of a connection are different flows.
    pub fn five_tuple(&self) -> (NodeId, NodeId, u8, u64) {
        let (proto, port) = match self.payload {
            Payload::Tcp(_) => (6, u64::from(self.conn)),
            Payload::Udp { .. } => (17, u64::from(self.flow)),
            Payload::Ping { .. } => (1, u64::from(self.flow)),
        };
        (self.src, self.dst, proto, port)
    }

    /// A TCP packet of connection `conn` from `src` to `dst`.
    pub fn tcp_packet(
        flow: FlowId,
        conn: ConnId,
        src: NodeId,
        dst: NodeId,
        size: u32,
        ecn: Ecn,
        seg: TcpSegment,
    ) -> Self {
        Packet { flow, conn, src, dst, size, ecn, dscp: 0, enqueued_at: 0, charged: false, payload: Payload::Tcp(seg) }
    }

    /// A test datagram: flow and connection 0, node 0 to node 1, sequence number `seq`.
    #[cfg(test)]
    pub(crate) fn datagram(seq: u64, size: u32) -> Self {
        let payload = Payload::Udp { seq, sent_at: 0 };
        Packet { payload, ..Packet::tcp_packet(0, 0, 0, 1, size, Ecn::NotEct, TcpSegment::default()) }
    }

    pub fn tcp(&self) -> Option<&TcpSegment> {
        match &self.payload {
            Payload::Tcp(seg) => Some(seg),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Queues, wires and the event loop move packets by value, once or more per hop. At 160
    /// bytes (SACK blocks in line) every move was a call to memcpy; at 112 the moves are
    /// inline, and memcpy's share of a gigabit run fell from 17.5 M instructions to 3.8 M
    /// (docs/design.md, "Per-packet cost"). A new field belongs out of line, as the SACK
    /// blocks are, unless most packets carry it.
    #[test]
    fn a_packet_fits_in_128_bytes() {
        let size = std::mem::size_of::<Packet>();
        assert!(size <= 128, "Packet is {size} bytes");
        assert_eq!(std::mem::size_of::<SackBlocks>(), std::mem::size_of::<usize>());
    }

    #[test]
    fn sack_blocks_allocate_when_pushed_and_keep_the_first_three() {
        let mut sack = SackBlocks::default();
        assert!(sack.is_empty() && sack.0.is_none());
        assert_eq!(sack.iter().count(), 0);
        for k in 1..=4 {
            sack.push(100 * k, 100 * k + 50);
        }
        assert_eq!(sack.len(), 3);
        assert_eq!(sack.iter().collect::<Vec<_>>(), vec![(100, 150), (200, 250), (300, 350)]);
    }
}
