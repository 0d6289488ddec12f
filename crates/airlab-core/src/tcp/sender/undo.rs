//! Undoing a cwnd reduction that turns out to be spurious, as Linux `tcp_input.c`: DSACKs
//! showing every retransmission of an episode arrived twice (`tcp_try_undo_dsack`), and F-RTO
//! (RFC 5682, SACK-enhanced, Linux `tcp_process_loss`) after a timeout whose segments were not
//! lost, only delayed. Timestamp-based detection (Eifel, `tcp_packet_delayed`) is not modelled.

use super::TcpSender;
use crate::tcp::cc::CaState;
use crate::tcp::{Ctx, Stack};

/// What an episode saved to be undone (Linux `undo_marker`, `undo_retrans`, `prior_ssthresh`).
#[derive(Clone, Debug, Default)]
pub(super) struct Undo {
    /// snd_una when the episode began; None: nothing to undo.
    marker: Option<u64>,
    /// Retransmissions of the episode not yet shown spurious by a DSACK; -1 before the first.
    retrans: i32,
    prior_ssthresh: u32,
    /// F-RTO is judging the current timeout.
    pub frto: bool,
    /// F-RTO step 2b: send new data rather than retransmit on this ACK.
    pub frto_new_data: bool,
}

/// What one ACK showed, for the undo checks.
pub(super) struct AckFacts {
    pub una_advanced: bool,
    /// A segment never retransmitted was ACKed or SACKed (Linux `FLAG_ORIG_SACK_ACKED`).
    pub original_delivered: bool,
    /// New data was SACKed (`FLAG_DATA_SACKED`).
    pub data_sacked: bool,
}

impl TcpSender {
    /// Linux `tcp_current_ssthresh`: the threshold to come back to if this episode is undone.
    fn current_ssthresh(&self) -> u32 {
        if matches!(self.st.ca_state, CaState::Recovery | CaState::Cwr) {
            self.st.ssthresh
        } else {
            self.st.ssthresh.max((self.st.cwnd >> 1) + (self.st.cwnd >> 2))
        }
    }

    /// A recovery or timeout begins (Linux `tcp_init_undo` with `prior_ssthresh`); call before
    /// ssthresh is reduced. A CWR episode (ECN, local drop) is never undone, nor is any episode
    /// by ns-3, which has no undo.
    pub(super) fn save_for_undo(&mut self, state: CaState) {
        if state == CaState::Cwr || self.opts.stack == Stack::Ns3 {
            self.undo.marker = None;
            return;
        }
        self.undo.prior_ssthresh = self.current_ssthresh();
        self.prior_cwnd = self.st.cwnd;
        self.undo.marker = Some(self.snd_una);
        self.undo.retrans = if self.sb.retrans_out > 0 { self.sb.retrans_out as i32 } else { -1 };
    }

    /// A retransmission was sent in an undoable episode.
    pub(super) fn count_retransmission_for_undo(&mut self) {
        if self.undo.marker.is_some() {
            self.undo.retrans = self.undo.retrans.max(0) + 1;
        }
    }

    /// A DSACK for `[start, end)`: a retransmission of this episode below the ACK arrived
    /// twice (Linux `tcp_check_dsack`).
    pub(super) fn on_dsack_for_undo(&mut self, (start, end): (u64, u64), prior_una: u64) {
        if let Some(marker) = self.undo.marker {
            if self.undo.retrans > 0 && end <= prior_una && end > marker {
                let segments = (end - start).div_ceil(u64::from(self.opts.mss)) as i32;
                self.undo.retrans = (self.undo.retrans - segments).max(0);
            }
        }
    }

    /// Linux `tcp_may_undo` without timestamps: every retransmission was DSACKed.
    fn may_undo(&self) -> bool {
        self.undo.marker.is_some() && self.undo.retrans == 0
    }

    /// Linux `tcp_undo_cwnd_reduction`: restore cwnd and ssthresh; after a timeout also take
    /// back the loss marks.
    fn undo_cwnd_reduction(&mut self, unmark_loss: bool, ctx: &mut Ctx) {
        if unmark_loss {
            self.sb.unmark_lost();
        }
        if self.undo.prior_ssthresh > 0 && !self.cc.owns_cwnd() {
            self.st.cwnd = self.st.cwnd.max(self.prior_cwnd);
            self.st.ssthresh = self.st.ssthresh.max(self.undo.prior_ssthresh);
        }
        self.undo.marker = None;
        ctx.flow.total.undos += 1;
    }

    /// Linux `tcp_try_undo_dsack`, in Open, Disorder or Recovery: all retransmissions were
    /// spurious, so the reduction is taken back; a recovery with nothing lost ends.
    pub(super) fn try_undo_dsack(&mut self, ctx: &mut Ctx) {
        if !matches!(self.st.ca_state, CaState::Open | CaState::Disorder | CaState::Recovery) || !self.may_undo() {
            return;
        }
        self.undo_cwnd_reduction(false, ctx);
        if self.st.ca_state == CaState::Recovery && self.sb.lost_out == 0 {
            let next = if self.sb.sacked_out > 0 { CaState::Disorder } else { CaState::Open };
            self.set_state(next);
        }
    }

    /// Linux `tcp_process_loss` in the Loss state: undo when the retransmissions proved
    /// spurious or, with F-RTO, when data never retransmitted is delivered after the timeout
    /// (step 3b); on the first ACK that advances, send new data instead of retransmitting
    /// (step 2b); a SACK or duplicate ACK after that shows the loss was real (step 3a).
    /// Returns true if the timeout was undone.
    pub(super) fn process_loss(&mut self, ack: &AckFacts, ctx: &mut Ctx) -> bool {
        let recovered = self.snd_una >= self.recovery_point;
        if ack.una_advanced && self.may_undo() {
            self.undo_loss(ctx);
            return true;
        }
        if self.undo.frto {
            if ack.original_delivered && self.undo.marker.is_some() {
                self.undo_loss(ctx);
                ctx.flow.total.spurious_rtos += 1;
                return true;
            }
            if self.snd_nxt > self.recovery_point {
                if ack.data_sacked || !ack.una_advanced {
                    self.undo.frto = false;
                }
            } else if ack.una_advanced && !recovered {
                self.recovery_point = self.snd_nxt;
                if self.snd_nxt < self.app_end && self.fits_peer_window() {
                    self.undo.frto_new_data = true;
                } else {
                    self.undo.frto = false;
                }
            }
        }
        false
    }

    /// Linux `tcp_try_undo_loss`: the timeout was spurious; back to Open with the old window.
    fn undo_loss(&mut self, ctx: &mut Ctx) {
        self.undo_cwnd_reduction(true, ctx);
        self.rtt.reset_backoff();
        self.undo.frto = false;
        self.set_state(CaState::Open);
    }

    /// At the end of a recovery or timeout episode (Linux `tcp_try_undo_recovery`); returns
    /// whether the reduction was undone.
    pub(super) fn try_undo_at_episode_end(&mut self, ctx: &mut Ctx) -> bool {
        let undo = self.may_undo();
        if undo {
            self.undo_cwnd_reduction(self.st.ca_state == CaState::Loss, ctx);
        }
        undo
    }
}
