//! Applications: what a flow does with its transport. An app wakes at times it asks for and
//! answers with actions the engine carries out (open a TCP connection, send a datagram).
//!
//! - `bulk`: one connection with unlimited data from start to stop (iperf3-like).
//! - `transfer`: one connection carrying `size` bytes; completion time recorded.
//! - `periodic`: a new connection every `period` carrying `size` bytes (MGEN-like).
//! - `udp`: constant bit rate datagrams; loss and one-way delay recorded.
//! - `ping`: small echo requests at an interval; the RTT of each reply is recorded.

use crate::net::packet::UDP_HEADER;
use crate::net::{Ecn, FlowId, NodeId, Packet, Payload};
use crate::sim::{tx_time, Rng, Time};

#[derive(Clone, Debug)]
pub enum AppKind {
    Bulk,
    Transfer { size: u64 },
    Periodic { size: u64, period: Time, random_start: Time },
    Udp { rate_bps: u64, packet_size: u32 },
    Ping { interval: Time, size: u32 },
}

impl AppKind {
    pub fn label(&self) -> &'static str {
        match self {
            AppKind::Bulk => "bulk",
            AppKind::Transfer { .. } => "transfer",
            AppKind::Periodic { .. } => "periodic",
            AppKind::Udp { .. } => "udp",
            AppKind::Ping { .. } => "ping",
        }
    }

    pub fn uses_tcp(&self) -> bool {
        matches!(self, AppKind::Bulk | AppKind::Transfer { .. } | AppKind::Periodic { .. })
    }
}

/// What an app asks the engine to do.
#[derive(Debug)]
pub enum Action {
    /// Open a TCP connection and write this many bytes (u64::MAX: unlimited).
    Open { bytes: u64 },
    /// Stop writing on every open connection.
    StopWriting,
    /// Send a datagram.
    Send(Packet),
    /// Wake the app again at this time.
    WakeAt(Time),
}

pub struct App {
    pub flow: FlowId,
    pub src: NodeId,
    pub dst: NodeId,
    pub kind: AppKind,
    pub start: Time,
    pub stop: Time,
    /// DSCP of the packets the flow's sender side sends (its sockets' IP_TOS).
    pub dscp: u8,
    rng: Rng,
    started: bool,
    seq: u64,
}

impl App {
    pub fn new(flow: FlowId, src: NodeId, dst: NodeId, kind: AppKind, start: Time, stop: Time, rng: Rng) -> Self {
        App { flow, src, dst, kind, start, stop, dscp: 0, rng, started: false, seq: 0 }
    }

    /// The flow's packets carry `dscp`.
    pub fn with_dscp(self, dscp: u8) -> Self {
        App { dscp, ..self }
    }

    /// When the app first wants to run: its start, plus a random offset for `periodic`.
    pub fn first_wake(&mut self) -> Time {
        match self.kind {
            AppKind::Periodic { random_start, .. } if random_start > 0 => self.start + self.rng.below(random_start),
            _ => self.start,
        }
    }

    pub fn wake(&mut self, now: Time, out: &mut Vec<Action>) {
        if now >= self.stop {
            if self.started && matches!(self.kind, AppKind::Bulk) {
                out.push(Action::StopWriting);
            }
            return;
        }
        let first = !self.started;
        self.started = true;
        match self.kind {
            AppKind::Bulk => {
                if first {
                    out.push(Action::Open { bytes: u64::MAX });
                    out.push(Action::WakeAt(self.stop));
                }
            }
            AppKind::Transfer { size } => {
                if first {
                    out.push(Action::Open { bytes: size });
                }
            }
            AppKind::Periodic { size, period, .. } => {
                out.push(Action::Open { bytes: size });
                if now + period < self.stop {
                    out.push(Action::WakeAt(now + period));
                }
            }
            AppKind::Udp { rate_bps, packet_size } => {
                out.push(Action::Send(self.datagram(now, packet_size)));
                let gap = tx_time(packet_size as u64, rate_bps).max(1);
                out.push(Action::WakeAt(now + gap));
            }
            AppKind::Ping { interval, size } => {
                let seq = self.next_seq();
                let pkt = self.packet(size, Payload::Ping { seq, sent_at: now, reply: false });
                out.push(Action::Send(pkt));
                out.push(Action::WakeAt(now + interval));
            }
        }
    }

    fn next_seq(&mut self) -> u64 {
        self.seq += 1;
        self.seq - 1
    }

    fn datagram(&mut self, now: Time, size: u32) -> Packet {
        let seq = self.next_seq();
        self.packet(size.max(UDP_HEADER), Payload::Udp { seq, sent_at: now })
    }

    fn packet(&self, size: u32, payload: Payload) -> Packet {
        Packet {
            flow: self.flow,
            conn: u32::MAX,
            src: self.src,
            dst: self.dst,
            size,
            ecn: Ecn::NotEct,
            dscp: self.dscp,
            enqueued_at: 0,
            charged: false,
            payload,
        }
    }
}
