//! When a receiver ACKs at once and how long it may delay an ACK: Linux's delayed-ACK engine
//! (`tcp_event_data_recv`, `tcp_incr_quickack`, `tcp_dec_quickack_mode`,
//! `tcp_send_delayed_ack`).
//!
//! - Quick-ACK mode: a credit of ACKs sent at once. The first data fills it, and so does data
//!   arriving after a silence longer than the receiver's own RTO (the sender "failed to restart
//!   its window", typically after a retransmission timeout), a retransmitted duplicate, or a
//!   segment that opens the window further. Each ACK sent spends one.
//! - The delayed-ACK timeout (`ato`) follows the inter-arrival time of data: 40 ms while data
//!   comes in faster than every 20 ms, growing towards twice the gap for slower data and
//!   doubling each time the timer has to fire, capped by the receiver's RTO; the timer armed
//!   from it is held to the receiver's smoothed RTT (at least 40 ms), 500 ms and
//!   `TCP_DELACK_MAX`. Leaving quick-ACK mode resets it to 40 ms.
//!
//! - SACK compression (Linux 4.18+, `__tcp_ack_snd_check`): while out-of-order data waits, the
//!   first three ACKs for each `rcv_nxt` go at once (the sender's duplicate-ACK threshold);
//!   later ones are held for min(1 ms, RTT/20) and sent as one, or at once after 44 held
//!   (`tcp_comp_sack_delay_ns`, `tcp_comp_sack_nr`), or before a SACK block other than the two
//!   most recent changes (the receiver's part, `receiver.rs`).
//!
//! ns-3 (`Stack::Ns3`, `TcpSocketBase::ReceivedData`) has none of the adaptive part: no quick-ACK
//! mode, and a fixed 200 ms timer (`DelAckTimeout`) armed by the first segment not yet ACKed and
//! not moved by the ones after it; every second segment (`DelAckCount` 2) is ACKed at once.
//!
//! The receiver's RTT and RTO come from its one measurement: the handshake (SYN-ACK to the
//! sender's first segment, Linux `tcp_synack_rtt_meas`); a receiver that sends no data gets no
//! other.

use super::jiffies::Jiffies;
use super::rto::{RtoMode, RttEstimator, DEFAULT_RTO_MIN};
use super::{Ctx, Stack, TcpConfig, Timer, TimerKind};
use crate::sim::{Time, MS};

/// Linux `TCP_MAX_QUICKACKS`.
pub const MAX_QUICKACKS: u32 = 16;
/// Linux `TCP_ATO_MIN` and `TCP_DELACK_MIN` (HZ / 25).
const ATO_MIN: Time = 40 * MS;
/// Linux `TCP_DELACK_MAX` (HZ / 5), the default of `icsk_delack_max`.
const DELACK_MAX: Time = 200 * MS;
/// The most `tcp_send_delayed_ack` allows a non-interactive socket (HZ / 2).
const ATO_MAX_BULK: Time = 500 * MS;
/// Linux `TCP_FASTRETRANS_THRESH`: ACKs of out-of-order data sent before compression starts.
const DUPACK_THRESH: u32 = 3;
/// Linux `tcp_comp_sack_nr`: the most ACKs one compressed ACK stands for.
const COMP_SACK_NR: u32 = 44;
/// Linux `tcp_comp_sack_delay_ns`: the longest an ACK is held.
const COMP_SACK_DELAY: Time = MS;
/// ns-3's `DelAckTimeout` default.
const NS3_DELACK_TIMEOUT: Time = 200 * MS;

/// Which of the ACK-timing mechanisms a receiver uses.
#[derive(Clone, Copy, Debug, Default)]
pub struct AckPolicy {
    /// Delay ACKs at all (`tcp.delayed_ack`); without, every segment is ACKed at once.
    pub delayed: bool,
    pub sack_compression: bool,
    /// The tick the delayed-ACK timer fires on (`jiffies.rs`).
    pub jiffies: Jiffies,
    /// Linux's adaptive engine or ns-3's fixed timer.
    pub stack: Stack,
}

impl AckPolicy {
    pub fn of(c: &TcpConfig) -> Self {
        AckPolicy { delayed: c.delayed_ack, sack_compression: c.sack_compression, jiffies: c.jiffies, stack: c.stack }
    }
}

#[derive(Debug)]
pub struct DelayedAck {
    /// ACKs still to send at once (`icsk_ack.quick`).
    quick: u32,
    /// The delayed-ACK timeout (`icsk_ack.ato`); 0 until the first data.
    ato: Time,
    /// When in-order data last arrived (`icsk_ack.lrcvtime`).
    last_data: Time,
    timer: Timer,
    /// The handshake's RTT measurement and the RTO it sets.
    rtt: RttEstimator,
    /// SACK compression: the `rcv_nxt` the duplicate ACKs counted are for, how many went at
    /// once, how many are held now, and the timer that sends them.
    dupack_rcv_nxt: u64,
    dupacks: u32,
    compressed: u32,
    compress_timer: Timer,
    compression: bool,
    jiffies: Jiffies,
    /// ns-3's fixed timer instead of Linux's quick ACKs and adaptive timeout.
    fixed_timer: bool,
}

impl DelayedAck {
    pub fn new(policy: AckPolicy) -> Self {
        DelayedAck {
            quick: 0,
            ato: 0,
            last_data: 0,
            timer: Timer::default(),
            rtt: RttEstimator::new(DEFAULT_RTO_MIN, RtoMode::Linux),
            dupack_rcv_nxt: 0,
            dupacks: 0,
            compressed: 0,
            compress_timer: Timer::default(),
            compression: policy.sack_compression,
            jiffies: policy.jiffies,
            fixed_timer: policy.stack == Stack::Ns3,
        }
    }

    /// The handshake completed `rtt` after our SYN-ACK left.
    pub fn on_handshake_rtt(&mut self, rtt: Time) {
        self.rtt.sample(rtt);
    }

    /// In-order data arrived at `now`; `quick_limit` is how many quick ACKs the advertised
    /// window allows (`tcp_incr_quickack`: half the window in segments).
    pub fn on_data(&mut self, now: Time, quick_limit: u32) {
        if self.fixed_timer {
            self.ato = NS3_DELACK_TIMEOUT;
        } else if self.ato == 0 {
            self.add_quick(MAX_QUICKACKS, quick_limit);
            self.ato = ATO_MIN;
        } else {
            let gap = now - self.last_data;
            if gap <= ATO_MIN / 2 {
                self.ato = self.ato / 2 + ATO_MIN / 2;
            } else if gap < self.ato {
                self.ato = (self.ato / 2 + gap).min(self.rtt.rto());
            } else if gap > self.rtt.rto() {
                self.add_quick(MAX_QUICKACKS, quick_limit);
            }
        }
        self.last_data = now;
    }

    /// A retransmitted segment came in again (Linux `tcp_enter_quickack_mode`).
    pub fn on_duplicate(&mut self, quick_limit: u32) {
        if self.fixed_timer {
            return;
        }
        self.add_quick(MAX_QUICKACKS, quick_limit);
        self.ato = ATO_MIN;
    }

    /// A segment opened the window further (`tcp_grow_window`): one ACK at once.
    pub fn on_window_growth(&mut self) {
        if !self.fixed_timer {
            self.quick |= 1;
        }
    }

    /// Whether ACKs of out-of-order data are held for compression.
    pub fn holds_compressed(&self) -> bool {
        self.compressed > 0
    }

    pub fn in_quickack_mode(&self) -> bool {
        self.quick > 0
    }

    fn add_quick(&mut self, max: u32, quick_limit: u32) {
        let quick = if quick_limit == 0 { 2 } else { quick_limit }.min(max);
        self.quick = self.quick.max(quick);
    }

    /// An ACK of the latest data left (`tcp_event_ack_sent`).
    pub fn on_ack_sent(&mut self) {
        if self.quick > 0 {
            self.quick -= 1;
            if self.quick == 0 {
                self.ato = ATO_MIN;
            }
        }
        self.timer.cancel();
        self.compressed = 0;
        self.compress_timer.cancel();
    }

    /// Out-of-order data arrived with `rcv_nxt` where it was; `rcv_rtt` is the receiver's
    /// timestamp RTT estimate (0 if none). Returns true if the ACK goes now, false if it is
    /// held for SACK compression.
    pub fn out_of_order(&mut self, rcv_nxt: u64, rcv_rtt: Time, ctx: &mut Ctx) -> bool {
        if !self.compression || self.in_quickack_mode() || self.compressed >= COMP_SACK_NR {
            return true;
        }
        if self.dupack_rcv_nxt != rcv_nxt {
            self.dupack_rcv_nxt = rcv_nxt;
            self.dupacks = 0;
        }
        if self.dupacks < DUPACK_THRESH {
            self.dupacks += 1;
            return true;
        }
        self.compressed += 1;
        if !self.compress_timer.is_armed() {
            let rtt = match (rcv_rtt, self.rtt.has_sample()) {
                (0, true) => self.rtt.srtt,
                (r, true) => r.min(self.rtt.srtt),
                (r, false) => r,
            };
            let delay = COMP_SACK_DELAY.min(rtt / 20);
            self.compress_timer.arm(ctx.now + delay, TimerKind::SackCompress, ctx);
        }
        false
    }

    /// Delay the ACK owed (`tcp_send_delayed_ack`). Returns true if it must go now instead:
    /// an armed timer is within a quarter of the timeout of firing.
    pub fn delay(&mut self, ctx: &mut Ctx) -> bool {
        if self.fixed_timer {
            // ns-3 arms the timer once, for the first segment it holds an ACK for.
            if !self.timer.is_armed() {
                let at = self.jiffies.expiry(ctx.now, ctx.now + self.ato);
                self.timer.arm(at, TimerKind::DelayedAck, ctx);
            }
            return false;
        }
        let mut ato = self.ato;
        if ato > ATO_MIN {
            let mut max_ato = ATO_MAX_BULK;
            if self.rtt.has_sample() {
                max_ato = max_ato.min(self.rtt.srtt.max(ATO_MIN));
            }
            ato = ato.min(max_ato);
        }
        ato = ato.min(DELACK_MAX);
        let armed = self.timer.deadline();
        if armed.is_some_and(|armed| armed <= ctx.now + ato / 4) {
            return true;
        }
        // The kernel arms the timer in jiffies; an armed one keeps its tick.
        let mut at = self.jiffies.expiry(ctx.now, ctx.now + ato);
        if let Some(armed) = armed {
            at = at.min(armed);
        }
        self.timer.arm(at, TimerKind::DelayedAck, ctx);
        false
    }

    /// A timer's engine event: true if an ACK is due. A delayed ACK that had to wait for the
    /// timer doubles the timeout, up to the RTO ("delayed ACK missed"); a compression timer
    /// sends the ACKs held, if no other ACK has.
    pub fn fire(&mut self, kind: TimerKind, ctx: &mut Ctx) -> bool {
        match kind {
            TimerKind::DelayedAck => {
                let due = self.timer.fire(kind, ctx);
                if due && !self.fixed_timer {
                    self.ato = (2 * self.ato).min(self.rtt.rto());
                }
                due
            }
            TimerKind::SackCompress => self.compress_timer.fire(kind, ctx) && self.compressed > 0,
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RTT: Time = 20 * MS;

    fn policy(stack: Stack) -> AckPolicy {
        AckPolicy { delayed: true, sack_compression: stack == Stack::Linux, jiffies: Jiffies::default(), stack }
    }

    fn engine() -> DelayedAck {
        let mut d = DelayedAck::new(policy(Stack::Linux));
        d.on_handshake_rtt(RTT);
        d
    }

    #[test]
    fn first_data_gives_sixteen_quick_acks_then_ato_min() {
        let mut d = engine();
        d.on_data(0, 100);
        for _ in 0..MAX_QUICKACKS {
            assert!(d.in_quickack_mode());
            d.on_ack_sent();
        }
        assert!(!d.in_quickack_mode());
        assert_eq!(d.ato, ATO_MIN);
    }

    #[test]
    fn quick_acks_are_bounded_by_half_the_window() {
        let mut d = engine();
        d.on_data(0, 3);
        assert_eq!(d.quick, 3);
        let mut d = engine();
        d.on_data(0, 0);
        assert_eq!(d.quick, 2);
    }

    #[test]
    fn ato_tracks_twice_a_slow_inter_arrival_and_the_rto_caps_it() {
        let mut d = engine();
        d.on_data(0, 16);
        // Gaps of 30 ms: ato <- ato / 2 + 30 ms converges to 60 ms.
        let mut now = 0;
        for _ in 0..20 {
            now += 30 * MS;
            d.on_data(now, 16);
        }
        assert!((d.ato as i64 - 60 * MS as i64).abs() < MS as i64, "{}", d.ato);
        // The handshake RTO (RTT + max(2 RTT, 200 ms) = 220 ms) caps it.
        let mut d = engine();
        d.on_data(0, 16);
        d.ato = 200 * MS;
        d.on_data(190 * MS, 16);
        assert_eq!(d.ato, 220 * MS);
    }

    #[test]
    fn a_silence_longer_than_the_rto_refills_quick_acks() {
        let mut d = engine();
        d.on_data(0, 16);
        for _ in 0..MAX_QUICKACKS {
            d.on_ack_sent();
        }
        d.on_data(200 * MS, 16);
        assert!(!d.in_quickack_mode(), "200 ms is within the 220 ms RTO");
        d.on_data(421 * MS, 16);
        assert_eq!(d.quick, MAX_QUICKACKS);
    }

    #[test]
    fn the_timer_is_held_to_the_receivers_srtt_and_fires_early_when_nearly_due() {
        let mut out = Vec::new();
        let mut timers = Vec::new();
        let mut flow = crate::counters::FlowStats::new("f".into(), "a".into(), "b".into(), None, "bulk");
        let mut d = DelayedAck::new(policy(Stack::Linux));
        d.on_handshake_rtt(100 * MS);
        d.on_data(0, 16);
        d.quick = 0;
        d.ato = 150 * MS;
        let mut ctx = Ctx { now: 0, out: &mut out, timers: &mut timers, flow: &mut flow };
        assert!(!d.delay(&mut ctx));
        assert_eq!(d.timer.deadline(), Some(100 * MS), "min(ato, max(srtt, 40 ms))");
        ctx.now = 70 * MS;
        assert!(!d.delay(&mut ctx), "30 ms left is more than a quarter of the timeout");
        assert_eq!(d.timer.deadline(), Some(100 * MS), "an earlier deadline stays");
        ctx.now = 80 * MS;
        assert!(d.delay(&mut ctx), "20 ms left is within a quarter of the timeout");
    }

    #[test]
    fn acks_of_out_of_order_data_are_compressed_after_three() {
        let mut out = Vec::new();
        let mut timers = Vec::new();
        let mut flow = crate::counters::FlowStats::new("f".into(), "a".into(), "b".into(), None, "bulk");
        let mut d = engine();
        d.on_data(0, 16);
        d.quick = 0;
        let mut ctx = Ctx { now: 0, out: &mut out, timers: &mut timers, flow: &mut flow };
        for _ in 0..3 {
            assert!(d.out_of_order(1000, 0, &mut ctx), "the duplicate-ACK threshold goes at once");
        }
        assert!(!d.out_of_order(1000, 0, &mut ctx));
        // Held for min(1 ms, RTT / 20) = 1 ms at a 20 ms handshake RTT; 12 ms of timestamp RTT
        // would make it 0.6 ms, but the timer is already armed.
        assert_eq!(d.compress_timer.deadline(), Some(MS));
        assert!(!d.out_of_order(1000, 12 * MS, &mut ctx));
        ctx.now = MS;
        assert!(d.fire(TimerKind::SackCompress, &mut ctx));
        d.on_ack_sent();
        // A new rcv_nxt starts the count again; 44 held go at once.
        assert!(d.out_of_order(5000, 12 * MS, &mut ctx));
        for _ in 0..2 {
            d.out_of_order(5000, 12 * MS, &mut ctx);
        }
        for _ in 0..COMP_SACK_NR {
            assert!(!d.out_of_order(5000, 12 * MS, &mut ctx));
        }
        assert_eq!(d.compress_timer.deadline(), Some(MS + 600 * crate::sim::US));
        assert!(d.out_of_order(5000, 12 * MS, &mut ctx));
        // An ACK sent for another reason leaves nothing for the timer to send.
        d.on_ack_sent();
        ctx.now = 2 * MS;
        assert!(!d.fire(TimerKind::SackCompress, &mut ctx));
    }

    /// ns-3: no quick ACKs, not even for the first data or a duplicate; the 200 ms timer is
    /// armed by the first segment held and not moved by later ones, and a firing does not
    /// lengthen it.
    #[test]
    fn ns3_holds_every_ack_on_one_fixed_200_ms_timer() {
        let mut out = Vec::new();
        let mut timers = Vec::new();
        let mut flow = crate::counters::FlowStats::new("f".into(), "a".into(), "b".into(), None, "bulk");
        let mut d = DelayedAck::new(policy(Stack::Ns3));
        d.on_handshake_rtt(RTT);
        d.on_data(0, 100);
        d.on_duplicate(100);
        d.on_window_growth();
        assert!(!d.in_quickack_mode());
        let mut ctx = Ctx { now: 0, out: &mut out, timers: &mut timers, flow: &mut flow };
        assert!(!d.delay(&mut ctx));
        assert_eq!(d.timer.deadline(), Some(200 * MS));
        ctx.now = 150 * MS;
        d.on_data(ctx.now, 100);
        assert!(!d.delay(&mut ctx), "a nearly due timer does not send the ACK early");
        assert_eq!(d.timer.deadline(), Some(200 * MS), "later segments do not move it");
        ctx.now = 200 * MS;
        assert!(d.fire(TimerKind::DelayedAck, &mut ctx));
        assert_eq!(d.ato, 200 * MS, "no doubling after the timer had to fire");
        d.on_ack_sent();
        ctx.now = 300 * MS;
        d.on_data(ctx.now, 100);
        assert!(!d.delay(&mut ctx));
        assert_eq!(d.timer.deadline(), Some(500 * MS));
    }
}
