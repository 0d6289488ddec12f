//! The receiving side of a TCP connection: in-order delivery, SACK generation (RFC 2018) with
//! duplicate reports (DSACK, RFC 2883), Linux-like delayed ACKs and ECN echo.
//!
//! ACK policy, as Linux: an ACK at once while in quick-ACK mode (`delack.rs`: the first
//! segments, after a silence longer than the RTO, after a duplicate, and for every segment that
//! opens the advertised window further), otherwise an ACK for every second full segment or
//! after the delayed-ACK timer (`delack.rs`); immediate ACKs for data that fills a hole, for
//! duplicates and for segments shorter than the MSS; ACKs for out-of-order data at once or
//! compressed (`delack.rs`). As ns-3 (`Stack::Ns3`): every second segment of any size, or the
//! fixed delayed-ACK timer, and at once for data that leaves or fills a hole and duplicates.

use super::delack::{AckPolicy, DelayedAck};
use super::rcvbuf::RcvBuf;
use super::{Ctx, Stack, TimerKind};
use crate::counters::Completion;
use crate::net::packet::{flags, SYN_SIZE, TCP_HEADER};
use crate::net::{ConnId, Ecn, Extension, FlowId, NodeId, Packet, SackBlocks, TcpSegment};
use crate::sim::Time;

/// A range of out-of-order data held above rcv_nxt.
#[derive(Clone, Copy, Debug)]
struct OooRange {
    start: u64,
    end: u64,
    /// When this range last grew, for reporting the most recent blocks first.
    touched: u64,
}

pub struct TcpReceiver {
    pub conn: ConnId,
    pub flow: FlowId,
    pub node: NodeId,
    pub peer: NodeId,
    delayed_ack: bool,
    stack: Stack,
    /// The receive buffer and its autotuning; the application reads at once.
    pub buf: RcvBuf,
    pub rcv_nxt: u64,
    /// `rcv_nxt` when the last ACK left (Linux `rcv_wup`): a segment starting at or below it
    /// sets the timestamp to echo.
    rcv_wup: u64,
    /// The timestamp the ACKs echo (RFC 7323 TS.Recent, Linux `ts_recent`).
    ts_recent: Time,
    ooo: Vec<OooRange>,
    touches: u64,
    /// Full segments received since the last ACK.
    unacked: u32,
    ack: DelayedAck,
    /// When our SYN-ACK left, until the sender's first segment measures the handshake RTT.
    synack_sent: Option<Time>,
    /// CE seen and not yet acknowledged by a CWR from the sender.
    ece: bool,
    /// Data received twice, to report as the next ACK's first SACK block (DSACK).
    dsack: Option<(u64, u64)>,
    /// Airtime telemetry of the latest segments, echoed in the next ACK.
    ext: Extension,
    /// The application's message: its length and when its connection opened. Once every byte
    /// of it is in order, the connection's completion is recorded (its FCT ends here).
    message: Option<(u64, Time)>,
}

impl TcpReceiver {
    pub fn new(conn: ConnId, flow: FlowId, node: NodeId, peer: NodeId, policy: AckPolicy, buf: RcvBuf) -> Self {
        TcpReceiver {
            conn,
            flow,
            node,
            peer,
            delayed_ack: policy.delayed,
            stack: policy.stack,
            buf,
            rcv_nxt: 0,
            rcv_wup: 0,
            ts_recent: 0,
            ooo: Vec::new(),
            touches: 0,
            unacked: 0,
            ack: DelayedAck::new(policy),
            synack_sent: None,
            ece: false,
            dsack: None,
            ext: Extension::None,
            message: None,
        }
    }

    /// The application sends `bytes` over this connection, opened at `opened_at`: the
    /// receiver records the completion when it holds the last of them in order, as an
    /// application reading the socket (and the testbed's sink) sees it.
    pub fn expect_message(&mut self, bytes: u64, opened_at: Time) {
        self.message = Some((bytes, opened_at));
    }

    /// A segment from the sender arrived with IP ECN field `ecn`.
    pub fn on_segment(&mut self, seg: &TcpSegment, ecn: Ecn, mss: u32, ctx: &mut Ctx) {
        self.ext = self.ext.merge(&seg.ext);
        if seg.has(flags::SYN) {
            let synack = TcpSegment {
                flags: flags::SYN | flags::ACK,
                wnd: self.buf.window(),
                tsval: ctx.now,
                tsecr: seg.tsval,
                ext: self.ext.echo(),
                ..Default::default()
            };
            ctx.out.push(self.packet(SYN_SIZE, synack));
            self.synack_sent = Some(ctx.now);
            return;
        }
        if let Some(sent) = self.synack_sent.take() {
            self.ack.on_handshake_rtt(ctx.now - sent);
        }
        if seg.has(flags::CWR) {
            self.ece = false;
        }
        if ecn == Ecn::Ce {
            self.ece = true;
        }
        // Linux `tcp_replace_ts_recent`: only a segment at or below the last ACK's point, so
        // the echo of a filled hole is the retransmission's timestamp.
        if seg.seq <= self.rcv_wup {
            self.ts_recent = self.ts_recent.max(seg.tsval);
        }
        let end = seg.seq + seg.len as u64;
        let owd = ctx.now.saturating_sub(seg.tsval);
        let mut ack_now = !self.delayed_ack;
        if seg.len == 0 || end <= self.rcv_nxt {
            // Duplicate: tell the sender where we are at once, and that it came twice.
            if seg.len > 0 {
                self.dsack = Some((seg.seq, end));
                ctx.flow.on_data_arrival(owd, false);
                self.ack.on_duplicate(self.quick_ack_limit(mss));
            }
            ack_now = true;
        } else if seg.seq <= self.rcv_nxt {
            ctx.flow.on_data_arrival(owd, true);
            if seg.len >= mss {
                self.buf.on_timestamp_echo(ctx.now, seg.tsecr);
            }
            let had_holes = !self.ooo.is_empty();
            self.deliver(end, ctx);
            self.buf.on_read(ctx.now, self.rcv_nxt);
            self.ack.on_data(ctx.now, self.quick_ack_limit(mss));
            if self.buf.on_segment(u64::from(seg.len)) {
                self.ack.on_window_growth();
            }
            ack_now |= had_holes;
            // ns-3 counts every segment towards its second (`DelAckCount`), whatever its size.
            if seg.len >= mss || self.stack == Stack::Ns3 {
                self.unacked += 1;
            } else {
                // Linux marks a short segment ICSK_ACK_PUSHED and ACKs once the reading
                // application drains it, which our always-reading receiver does at once.
                ack_now = true;
            }
            ack_now |= self.ack.in_quickack_mode() || self.unacked >= 2;
        } else {
            let seen = self.ooo.iter().any(|r| r.start <= seg.seq && end <= r.end);
            if seen {
                self.dsack = Some((seg.seq, end));
            }
            ctx.flow.on_data_arrival(owd, !seen);
            // Linux sends the ACKs it holds before a SACK block that is not among the two most
            // recent would change: the sender learns of every block (`tcp_sack_new_ofo_skb`).
            if self.ack.holds_compressed() && self.sack_rank(seg.seq, end) >= 2 {
                self.send_ack(ctx);
            }
            self.insert_ooo(seg.seq, end);
            if !self.delayed_ack || self.ack.out_of_order(self.rcv_nxt, self.buf.rtt(), ctx) {
                self.send_ack(ctx);
            }
            return;
        }
        if ack_now || self.ack.delay(ctx) {
            self.send_ack(ctx);
        }
    }

    pub fn on_timer(&mut self, kind: TimerKind, ctx: &mut Ctx) {
        if self.ack.fire(kind, ctx) {
            self.send_ack(ctx);
        }
    }

    /// How many quick ACKs the advertised window allows: half of it in segments (Linux
    /// `tcp_incr_quickack`).
    fn quick_ack_limit(&self, mss: u32) -> u32 {
        (self.buf.window() / (2 * u64::from(mss))).min(u64::from(u32::MAX)) as u32
    }

    /// Advance rcv_nxt to `end`, then over any out-of-order ranges that now connect.
    fn deliver(&mut self, end: u64, ctx: &mut Ctx) {
        let before = self.rcv_nxt;
        self.rcv_nxt = self.rcv_nxt.max(end);
        self.ooo.sort_unstable_by_key(|r| r.start);
        let mut merged = 0;
        for r in &self.ooo {
            if r.start <= self.rcv_nxt {
                self.rcv_nxt = self.rcv_nxt.max(r.end);
                merged += 1;
            } else {
                break;
            }
        }
        self.ooo.drain(..merged);
        ctx.flow.on_delivery(self.rcv_nxt - before, ctx.now);
        if let Some((bytes, start)) = self.message {
            if before < bytes && self.rcv_nxt >= bytes {
                ctx.flow.completions.push(Completion { conn: self.conn, start, end: ctx.now, bytes });
            }
        }
    }

    /// Where the block that `[start, end)` extends stands among the SACK blocks, most recently
    /// changed first; the number of blocks if it starts a new one.
    fn sack_rank(&self, start: u64, end: u64) -> usize {
        let extended = self.ooo.iter().filter(|r| r.start <= end && start <= r.end).map(|r| r.touched).max();
        match extended {
            Some(t) => self.ooo.iter().filter(|r| r.touched > t).count(),
            None => self.ooo.len(),
        }
    }

    fn insert_ooo(&mut self, start: u64, end: u64) {
        self.touches += 1;
        let mut new = OooRange { start, end, touched: self.touches };
        // Absorb every range that overlaps or touches the new one.
        self.ooo.retain(|r| {
            if r.end < new.start || r.start > new.end {
                true
            } else {
                new.start = new.start.min(r.start);
                new.end = new.end.max(r.end);
                false
            }
        });
        self.ooo.push(new);
    }

    fn send_ack(&mut self, ctx: &mut Ctx) {
        self.unacked = 0;
        self.ack.on_ack_sent();
        let mut sack = SackBlocks::default();
        if let Some((start, end)) = self.dsack.take() {
            sack.push(start, end);
        }
        let mut recent: Vec<&OooRange> = self.ooo.iter().collect();
        recent.sort_unstable_by_key(|r| std::cmp::Reverse(r.touched));
        for r in recent {
            sack.push(r.start, r.end);
        }
        let mut fl = flags::ACK;
        if self.ece {
            fl |= flags::ECE;
        }
        // Each SACK block takes 8 bytes of options, plus 2 for kind and length, padded to 4.
        let options = if !sack.is_empty() { (8 * sack.len() as u32 + 2).div_ceil(4) * 4 } else { 0 };
        let wnd = self.buf.window();
        let ext = self.ext.echo();
        self.rcv_wup = self.rcv_nxt;
        let tsecr = self.ts_recent;
        let seg =
            TcpSegment { ack: self.rcv_nxt, flags: fl, sack, wnd, tsval: ctx.now, tsecr, ext, ..Default::default() };
        ctx.out.push(self.packet(TCP_HEADER + options, seg));
    }

    fn packet(&self, size: u32, seg: TcpSegment) -> Packet {
        Packet::tcp_packet(self.flow, self.conn, self.node, self.peer, size, Ecn::NotEct, seg)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::counters::FlowStats;
    use crate::sim::MS;
    use crate::tcp::{RMEM_LINUX_6, WINDOW_RATIO_LINUX_6};

    const MSS: u32 = 1448;

    /// A receiver with a fixed 1 MiB window (which never grows, so only quick-ACK mode and the
    /// timer decide), past the SYN, with what it sends and the timers it asks for.
    struct Rig {
        rcv: TcpReceiver,
        flow: FlowStats,
        out: Vec<Packet>,
        timers: Vec<(Time, TimerKind)>,
    }

    impl Rig {
        fn new(config: &crate::tcp::TcpConfig) -> Self {
            let buf = RcvBuf::new(RMEM_LINUX_6, WINDOW_RATIO_LINUX_6, Some(1 << 20), MSS);
            let rcv = TcpReceiver::new(0, 0, 1, 0, AckPolicy::of(config), buf);
            let flow = FlowStats::new("f".into(), "a".into(), "b".into(), None, "bulk");
            let mut rig = Rig { rcv, flow, out: Vec::new(), timers: Vec::new() };
            rig.segment(&TcpSegment { flags: flags::SYN, ..Default::default() }, 0);
            rig.out.clear();
            rig
        }

        fn segment(&mut self, seg: &TcpSegment, now: Time) {
            let ctx = &mut Ctx { now, out: &mut self.out, timers: &mut self.timers, flow: &mut self.flow };
            self.rcv.on_segment(seg, Ecn::NotEct, MSS, ctx);
        }

        fn delayed_ack_timer(&mut self, now: Time) {
            let ctx = &mut Ctx { now, out: &mut self.out, timers: &mut self.timers, flow: &mut self.flow };
            self.rcv.on_timer(TimerKind::DelayedAck, ctx);
        }
    }

    #[test]
    fn a_lone_segment_waits_for_the_timer_unless_it_ends_a_silence_longer_than_the_rto() {
        // The timer fires at its exact deadline here.
        let mut r = Rig::new(&crate::tcp::TcpConfig { jiffies: Default::default(), ..Default::default() });
        let data = |seq: u64, now: Time| TcpSegment { seq, len: MSS, tsval: now, ..Default::default() };

        // The handshake takes 20 ms (RTO 220 ms); then 16 quick ACKs, one per segment.
        let (mut now, mut seq) = (20 * MS, 0);
        for _ in 0..16 {
            r.segment(&data(seq, now), now);
            seq += u64::from(MSS);
            now += MS;
        }
        assert_eq!(r.out.len(), 16);
        r.out.clear();

        // The next lone segment waits for the 40 ms timer.
        r.segment(&data(seq, now), now);
        assert!(r.out.is_empty());
        assert_eq!(r.timers.last(), Some(&(now + 40 * MS, TimerKind::DelayedAck)));
        r.delayed_ack_timer(now + 40 * MS);
        assert_eq!(r.out.len(), 1);
        r.out.clear();

        // 200 ms of silence is within the RTO: still delayed. 221 ms more is not: at once.
        seq += u64::from(MSS);
        now += 200 * MS;
        r.segment(&data(seq, now), now);
        assert!(r.out.is_empty());
        r.delayed_ack_timer(now + 40 * MS);
        r.out.clear();
        seq += u64::from(MSS);
        now += 221 * MS;
        r.segment(&data(seq, now), now);
        assert_eq!(r.out.len(), 1, "the silence refilled quick-ACK mode");
    }

    /// RFC 7323 section 4.3 as Linux (`tcp_replace_ts_recent`): an ACK echoes the timestamp of
    /// the oldest segment it acknowledges for the first time, and a filled hole's echo is the
    /// retransmission's, so the sender's fallback RTT measures the retransmission.
    #[test]
    fn the_echo_is_the_oldest_newly_acknowledged_segments_timestamp() {
        let mut r = Rig::new(&crate::tcp::TcpConfig::default());
        // Segment `n` sent at `tsval` arrives 10 ms later: the timestamps its ACKs echo.
        let echoes = |r: &mut Rig, n: u64, tsval: Time| {
            r.out.clear();
            let seg = TcpSegment { seq: n * u64::from(MSS), len: MSS, tsval, ..Default::default() };
            r.segment(&seg, tsval + 10 * MS);
            r.out.iter().map(|p| p.tcp().unwrap().tsecr).collect::<Vec<_>>()
        };
        // Quick-ACK mode: every segment is ACKed at once. Segment 1 is lost; 2 and 3 arrive
        // out of order and their duplicate ACKs still echo segment 0's 20 ms.
        assert_eq!(echoes(&mut r, 0, 20 * MS), vec![20 * MS]);
        assert_eq!(echoes(&mut r, 2, 22 * MS), vec![20 * MS]);
        assert_eq!(echoes(&mut r, 3, 23 * MS), vec![20 * MS]);
        // The retransmission of 1, sent at 60 ms, fills the hole: its timestamp is echoed.
        assert_eq!(echoes(&mut r, 1, 60 * MS), vec![60 * MS]);
        // Spend the quick ACKs; then two in-order segments share one ACK, which echoes the
        // first of them.
        let mut n = 4;
        while r.rcv.ack.in_quickack_mode() {
            echoes(&mut r, n, (60 + n) * MS);
            n += 1;
        }
        assert!(echoes(&mut r, n, 200 * MS).is_empty(), "delayed");
        assert_eq!(echoes(&mut r, n + 1, 201 * MS), vec![200 * MS]);
    }

    /// ns-3's receiver: no quick ACKs for the first segments, every second segment ACKed
    /// whatever its size (a short one included), a lone one after 200 ms, and at once for data
    /// that leaves a hole or fills one.
    #[test]
    fn ns3_acks_every_second_segment_or_after_200_ms() {
        let ns3 = crate::tcp::TcpConfig {
            jiffies: Default::default(),
            stack: Stack::Ns3,
            sack_compression: false,
            ..Default::default()
        };
        let mut r = Rig::new(&ns3);
        let data = |seq: u64, len: u32, now: Time| TcpSegment { seq, len, tsval: now, ..Default::default() };
        let full = u64::from(MSS);
        r.segment(&data(0, MSS, 20 * MS), 20 * MS);
        assert!(r.out.is_empty(), "no quick ACK for the first data");
        assert_eq!(r.timers.last(), Some(&(220 * MS, TimerKind::DelayedAck)));
        r.segment(&data(full, 100, 21 * MS), 21 * MS);
        assert_eq!(r.out.len(), 1, "the second segment, though short");
        r.out.clear();
        r.segment(&data(full + 100, MSS, 30 * MS), 30 * MS);
        r.delayed_ack_timer(230 * MS);
        assert_eq!(r.out.len(), 1, "a lone segment waits 200 ms");
        r.out.clear();
        // Segment at 3 full sizes + 100 is lost: the next leaves a hole, the retransmission fills it.
        r.segment(&data(3 * full + 100, MSS, 300 * MS), 300 * MS);
        assert_eq!(r.out.len(), 1, "out of order: at once");
        r.segment(&data(2 * full + 100, MSS, 310 * MS), 310 * MS);
        assert_eq!(r.out.len(), 2, "a filled hole: at once");
    }
}
