//! The sender's loss detection short of a timeout and its one retransmission timer, as Linux:
//! RACK (RFC 8985, `tcp_recovery.c`), tail loss probes (RFC 8985 section 7, `tcp_output.c`
//! `tcp_schedule_loss_probe` / `tcp_send_loss_probe`) and the RTO they share a timer with.

use super::TcpSender;
use crate::net::TcpSegment;
use crate::sim::{Time, MS, SEC};
use crate::tcp::cc::CaState;
use crate::tcp::scoreboard::DUP_THRESH;
use crate::tcp::{Ctx, LossDetection, TimerKind};

/// Linux `TCP_TIMEOUT_MIN`: the slack (2 jiffies) added to the reordering timer and to a probe
/// timeout with more than one segment out.
const TIMEOUT_MIN: Time = 2 * MS;
/// Linux `TCP_TIMEOUT_INIT`: the probe timeout before any RTT sample.
const TIMEOUT_INIT: Time = SEC;

/// What the retransmission timer is armed for (Linux `icsk_pending`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum XmitTimer {
    Rto,
    /// RACK's reordering timer: some segments become lost if nothing arrives first.
    Reorder,
    LossProbe,
}

impl TcpSender {
    fn rack(&self) -> bool {
        self.opts.recovery == LossDetection::RackTlp
    }

    /// Arm the retransmission timer (on the kernel's jiffies) for `kind`.
    pub(super) fn arm_xmit(&mut self, kind: XmitTimer, at: Time, ctx: &mut Ctx) {
        self.xmit_timer = kind;
        self.rto_timer.arm(at, TimerKind::Retransmit, ctx);
    }

    /// The retransmission timer fired: act on what it was armed for.
    pub(super) fn on_xmit_timer(&mut self, ctx: &mut Ctx) {
        match self.xmit_timer {
            XmitTimer::Rto => self.on_rto(ctx),
            XmitTimer::Reorder => self.on_reorder_timeout(ctx),
            XmitTimer::LossProbe => self.on_loss_probe(ctx),
        }
    }

    /// The ACK's first SACK block is a DSACK (RFC 2883) when it lies below the cumulative ACK
    /// or inside the second block: the receiver got that data twice.
    pub(super) fn dsack(seg: &TcpSegment) -> Option<(u64, u64)> {
        let mut blocks = seg.sack.iter();
        let (start, end) = blocks.next()?;
        let inside_next = blocks.next().is_some_and(|(s, e)| s <= start && end <= e);
        (start < seg.ack || inside_next).then_some((start, end))
    }

    /// RACK's loss detection after an ACK that delivered data (Linux `tcp_rack_mark_lost`):
    /// returns the segments newly marked lost; arms the reordering timer if some may become
    /// lost later. RFC 6675 mode counts SACKs instead.
    pub(super) fn detect_losses(&mut self, rack_advanced: bool, ctx: &mut Ctx) -> u32 {
        // Most ACKs leave RACK nothing to look at: its walk would stop at the oldest segment.
        if self.rack() && (!rack_advanced || self.sb.rack_stops_at_oldest(self.rack.xmit_ts, self.rack.end_seq)) {
            return 0;
        }
        let mut lost = std::mem::take(&mut self.lost_buf);
        let newly = if self.rack() {
            let (n, timeout) = self.rack_mark_lost(&mut lost);
            if let Some(t) = timeout {
                self.arm_xmit(XmitTimer::Reorder, ctx.now + t + TIMEOUT_MIN, ctx);
            }
            n
        } else {
            self.sb.mark_lost(&mut lost)
        };
        self.record_losses(&mut lost, ctx);
        self.lost_buf = lost;
        newly
    }

    fn rack_mark_lost(&mut self, lost: &mut Vec<crate::tcp::rate::TxSnapshot>) -> (u32, Option<Time>) {
        let in_recovery = matches!(self.st.ca_state, CaState::Recovery | CaState::Loss);
        let reo_wnd = self.rack.reo_wnd(in_recovery, self.sb.sacked_out, DUP_THRESH, self.rtt.min_rtt, self.rtt.srtt);
        let wait = self.rack.rtt + reo_wnd;
        self.sb.rack_mark_lost(self.rack.xmit_ts, self.rack.end_seq, wait, self.st.now, lost)
    }

    /// RACK's reordering timer (Linux `tcp_rack_reo_timeout`): mark what is now old enough,
    /// start a recovery if that found losses, and retransmit.
    fn on_reorder_timeout(&mut self, ctx: &mut Ctx) {
        let mut lost = std::mem::take(&mut self.lost_buf);
        let (newly, _) = self.rack_mark_lost(&mut lost);
        self.record_losses(&mut lost, ctx);
        self.lost_buf = lost;
        if newly > 0 {
            if self.st.ca_state != CaState::Recovery {
                self.begin_reduction(CaState::Recovery);
                if !self.cc.owns_cwnd() {
                    self.prr(1, newly, false);
                }
            }
            self.try_send(ctx);
        }
        if self.xmit_timer != XmitTimer::Rto || !self.rto_timer.is_armed() {
            self.rearm_rto(ctx);
        }
    }

    /// Linux `tcp_rearm_rto`: the RTO counts from now, or, when it replaces a probe or
    /// reordering timer, from when the oldest outstanding segment was sent.
    pub(super) fn rearm_rto(&mut self, ctx: &mut Ctx) {
        if self.sb.is_empty() {
            self.rto_timer.cancel();
            self.xmit_timer = XmitTimer::Rto;
            return;
        }
        let rto = self.rtt.rto();
        let at = if self.xmit_timer != XmitTimer::Rto && self.rto_timer.is_armed() {
            (self.sb.oldest_sent_at() + rto).max(ctx.now + 1)
        } else {
            ctx.now + rto
        };
        self.arm_xmit(XmitTimer::Rto, at, ctx);
    }

    /// Linux `tcp_set_xmit_timer`, after an ACK advanced snd_una: a tail loss probe if one
    /// may be scheduled, else the RTO.
    pub(super) fn set_xmit_timer(&mut self, ctx: &mut Ctx) {
        if !self.schedule_loss_probe(true, ctx) {
            self.rearm_rto(ctx);
        }
    }

    /// RFC 8985 section 7.2 as Linux `tcp_schedule_loss_probe`: in Open or CWR state with data
    /// out, probe after PTO = 2 sRTT (+ rto_min if one segment is out, for the delayed ACK;
    /// + 2 ms otherwise), or at the RTO if that comes first.
    pub(super) fn schedule_loss_probe(&mut self, advancing_rto: bool, ctx: &mut Ctx) -> bool {
        if !self.rack() || self.sb.is_empty() || !matches!(self.st.ca_state, CaState::Open | CaState::Cwr) {
            return false;
        }
        let mut pto = if self.rtt.has_sample() {
            2 * self.rtt.srtt + if self.sb.packets_out() == 1 { self.opts.rto_min } else { TIMEOUT_MIN }
        } else {
            TIMEOUT_INIT
        };
        let rto = self.rtt.rto();
        let until_rto =
            if advancing_rto { rto as i64 } else { (self.sb.oldest_sent_at() + rto) as i64 - ctx.now as i64 };
        if until_rto > 0 {
            pto = pto.min(until_rto as Time);
        }
        self.arm_xmit(XmitTimer::LossProbe, ctx.now + pto, ctx);
        true
    }

    /// The probe timer fired (Linux `tcp_send_loss_probe`): send one new segment if the
    /// window allows, else retransmit the highest one, regardless of cwnd; one probe per tail.
    fn on_loss_probe(&mut self, ctx: &mut Ctx) {
        if self.tlp_high_seq.is_none() {
            let probe = if self.snd_nxt < self.app_end && self.fits_peer_window() {
                self.send_new(ctx);
                Some(false)
            } else if let Some(idx) = self.sb.last_index() {
                self.retransmit(idx, false, ctx);
                Some(true)
            } else {
                None
            };
            if let Some(retransmission) = probe {
                self.tlp_retrans = retransmission;
                self.tlp_high_seq = Some(self.snd_nxt);
                // The RTO counts from the probe.
                self.xmit_timer = XmitTimer::Rto;
                self.rto_timer.cancel();
            }
        }
        self.rearm_rto(ctx);
    }

    /// RFC 8985 section 7.4 as Linux `tcp_process_tlp_ack`: once the ACK reaches the probe,
    /// a DSACK of it or a plain duplicate ACK means nothing was lost; an ACK beyond it after a
    /// retransmitted probe means the probe repaired a loss, which costs one cwnd reduction.
    pub(super) fn process_tlp_ack(&mut self, seg: &TcpSegment, dsack: Option<(u64, u64)>, una_advanced: bool) {
        let Some(high) = self.tlp_high_seq else { return };
        if seg.ack < high {
            return;
        }
        if !self.tlp_retrans || dsack.is_some_and(|(_, end)| end == high) {
            self.tlp_high_seq = None;
        } else if seg.ack > high {
            self.begin_reduction(CaState::Cwr);
            if !self.cc.owns_cwnd() {
                self.st.cwnd = self.st.ssthresh;
            }
            self.set_state(CaState::Open);
        } else if !una_advanced && seg.sack.is_empty() {
            self.tlp_high_seq = None;
        }
    }
}
