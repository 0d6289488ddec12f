//! What BBRv1 ([`super::bbr1`], Linux mainline `tcp_bbr.c`) and BBRv2/v3 ([`super::bbr`],
//! Google's `tcp_bbr2.c` and v3 `tcp_bbr.c`) run as the same kernel code: the four modes, the
//! ACK-aggregation (`extra_acked`) estimator and the ProbeRTT hold. What each version does
//! differently stays with it, at the call: the guards and window lengths of the estimator, the
//! cwnd the hold waits for, and what ends ProbeRTT.

use super::CcState;
use crate::sim::{Time, SEC};

/// BBR's modes, numbered as exported in `bbr_state`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Startup = 0,
    Drain = 1,
    ProbeBw = 2,
    ProbeRtt = 3,
}

/// Linux `bbr_ack_epoch_acked_reset_thresh`.
const ACK_EPOCH_ACKED_RESET: u32 = 1 << 20;

/// Linux's ACK-aggregation estimate: how far ACKs ran ahead of the estimated bandwidth within
/// an ACK epoch, max-filtered over two windows of rounds (`extra_acked[2]`).
#[derive(Clone, Debug)]
pub(super) struct AckAggregation {
    /// The epoch's clock counts whole `tick`s (v1: microseconds, as Linux; v2/v3: nanoseconds).
    tick: Time,
    /// Start of the ACK epoch (Linux `ack_epoch_mstamp`).
    pub(super) epoch_start: Time,
    epoch_acked: u32,
    extra_acked: [u32; 2],
    win_rtts: u32,
    win_idx: usize,
}

impl AckAggregation {
    pub(super) fn new(tick: Time) -> Self {
        AckAggregation { tick, epoch_start: 0, epoch_acked: 0, extra_acked: [0; 2], win_rtts: 0, win_idx: 0 }
    }

    /// Forgets everything; the epoch starts at `now`.
    pub(super) fn reset(&mut self, now: Time) {
        *self = AckAggregation { epoch_start: now, ..AckAggregation::new(self.tick) };
    }

    /// A new epoch from `now` (Linux on `CA_EVENT_TX_START`).
    pub(super) fn restart_epoch(&mut self, now: Time) {
        self.epoch_start = now;
        self.epoch_acked = 0;
    }

    /// The filtered estimate, packets.
    pub(super) fn max(&self) -> u32 {
        self.extra_acked[0].max(self.extra_acked[1])
    }

    /// Linux `bbr_update_ack_aggregation` past its guards, for `acked` packets ACKed at `now`
    /// at the estimated `bw` (packets per second): a new filter window every `win_rtts` rounds,
    /// a new epoch when the ACKs fell behind `bw` or too many were ACKed, and the excess (at
    /// most `cwnd`) into the current window.
    pub(super) fn update(&mut self, round_start: bool, win_rtts: u32, now: Time, bw: f64, acked: u32, cwnd: u32) {
        if round_start {
            self.win_rtts = (self.win_rtts + 1).min(0x1f);
            if self.win_rtts >= win_rtts {
                self.win_rtts = 0;
                self.win_idx ^= 1;
                self.extra_acked[self.win_idx] = 0;
            }
        }
        let epoch = now.saturating_sub(self.epoch_start) / self.tick;
        let mut expected = (bw * epoch as f64 / (SEC / self.tick) as f64) as u32;
        if self.epoch_acked <= expected || self.epoch_acked + acked >= ACK_EPOCH_ACKED_RESET {
            self.epoch_acked = 0;
            self.epoch_start = now;
            expected = 0;
        }
        self.epoch_acked = (self.epoch_acked + acked).min(ACK_EPOCH_ACKED_RESET - 1);
        let extra = (self.epoch_acked - expected).min(cwnd);
        let slot = &mut self.extra_acked[self.win_idx];
        *slot = (*slot).max(extra);
    }
}

/// Linux's ProbeRTT hold: once the flight is down to the ProbeRTT cwnd, hold it for the
/// ProbeRTT time and at least one packet-timed round.
#[derive(Clone, Debug, Default)]
pub(super) struct ProbeRttHold {
    /// When the hold may end (Linux `probe_rtt_done_stamp`); None until the flight is down.
    pub(super) done_stamp: Option<Time>,
    round_done: bool,
}

impl ProbeRttHold {
    /// Entering ProbeRTT: the hold starts once the flight is down.
    pub(super) fn enter(&mut self) {
        self.done_stamp = None;
    }

    /// An ACK in ProbeRTT: with the flight at most `cwnd`, the hold of `duration` starts, and
    /// with it a round (`next_rtt_delivered` moves to what is delivered). True once the hold
    /// has seen a round start: the caller checks whether it is over.
    pub(super) fn on_ack(
        &mut self,
        s: &CcState,
        cwnd: u32,
        duration: Time,
        round_start: bool,
        next_rtt_delivered: &mut u64,
    ) -> bool {
        if self.done_stamp.is_none() && s.packets_in_flight <= cwnd {
            self.done_stamp = Some(s.now + duration);
            self.round_done = false;
            *next_rtt_delivered = s.delivered;
        } else if self.done_stamp.is_some() {
            if round_start {
                self.round_done = true;
            }
            return self.round_done;
        }
        false
    }

    /// The hold has run its time (the test of Linux `bbr_check_probe_rtt_done`).
    pub(super) fn is_over(&self, now: Time) -> bool {
        self.done_stamp.is_some_and(|done| now > done)
    }
}
