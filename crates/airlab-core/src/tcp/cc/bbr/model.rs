//! Model updates on each ACK: congestion signals (loss, ECN, the latest round's delivery),
//! the short-term lower bounds, ACK aggregation, Startup's exits, Drain, and min_rtt with
//! ProbeRTT (Linux `bbr_update_model` and what it calls).

use super::{AckPhase, Bbr, Generation, Implementation, MaxBwFilter, MinRttSource, Mode, Sample, INF};
use crate::tcp::cc::{CaState, CcState};

impl Bbr {
    pub(super) fn update_model(&mut self, s: &mut CcState, rs: &Sample) {
        self.update_congestion_signals(s, rs);
        self.update_ack_aggregation(s, rs);
        self.check_loss_too_high_in_startup(s, rs);
        self.check_full_bw_reached(rs);
        self.check_drain(s);
        self.update_cycle_phase(s, rs);
        self.update_min_rtt(s, rs);
    }

    /// Linux `bbr_update_latest_delivery_signals`: the best rate and volume delivered in the
    /// current loss round, and whether a new loss round starts on this ACK.
    pub(super) fn update_latest_delivery_signals(&mut self, s: &CcState, rs: &Sample) {
        self.loss_round_start = false;
        if rs.interval == 0 || rs.acked == 0 {
            return;
        }
        self.bw_latest = self.bw_latest.max(rs.bw);
        self.inflight_latest = self.inflight_latest.max(rs.delivered.min(u64::from(INF - 1)) as u32);
        // Port A's `UpdateCongestionSignals` starts a loss round only when the unsigned
        // difference `rs->m_priorDelivered - m_lossRoundDelivered` is 0; the latter starts at 0,
        // which no valid sample's prior_delivered is, so its loss rounds never start: no lower
        // bounds and no Startup loss exit.
        if rs.prior_delivered >= self.loss_round_delivered && self.c.implementation == Implementation::Linux {
            self.loss_round_delivered = s.delivered;
            self.loss_round_start = true;
        }
    }

    /// Linux `bbr_advance_latest_delivery_signals`: restart the per-round filters.
    pub(super) fn advance_latest_delivery_signals(&mut self, rs: &Sample) {
        if self.loss_round_start {
            self.bw_latest = rs.bw;
            self.inflight_latest = rs.delivered.min(u64::from(INF - 1)) as u32;
        }
    }

    /// Linux `bbr_update_congestion_signals`: feed the bandwidth filter and, once per round,
    /// adapt the lower bounds to the round's loss and ECN.
    fn update_congestion_signals(&mut self, s: &CcState, rs: &Sample) {
        if rs.interval == 0 || rs.acked == 0 {
            return;
        }
        if !rs.app_limited || rs.bw >= self.max_bw() {
            self.bw_hi[1] = match self.c.max_bw_filter {
                MaxBwFilter::ProbeCycles => self.bw_hi[1].max(rs.bw),
                // Port A's `UpdateBtlBw` feeds BBRv1's filter and `UpdateCongestionSignals`
                // copies its max into the current cycle's slot (`m_bwMax[1]`).
                MaxBwFilter::Rounds(rounds) => self.bw_rounds.update(u64::from(rounds), self.round_count, rs.bw),
            };
        }
        self.loss_in_round |= rs.losses > 0;
        if !self.loss_round_start {
            return;
        }
        self.adapt_lower_bounds(s);
        self.loss_in_round = false;
        self.ecn_in_round = false;
    }

    /// Linux `bbr_adapt_lower_bounds`: outside bandwidth probing, cut bw_lo and inflight_lo
    /// multiplicatively (by beta on loss, by alpha * ecn_factor on ECN), but never below what
    /// the last round delivered.
    fn adapt_lower_bounds(&mut self, s: &CcState) {
        if self.is_probing_bandwidth() {
            return;
        }
        let mut ecn_inflight_lo = INF;
        if self.ecn_in_round && self.ecn_eligible && self.c.ecn_factor > 0.0 {
            if self.inflight_lo == INF {
                self.inflight_lo = s.cwnd;
            }
            let cut = 1.0 - self.ecn_alpha * self.c.ecn_factor;
            ecn_inflight_lo = (f64::from(self.inflight_lo) * cut) as u32;
        }
        if self.loss_in_round {
            if self.bw_lo.is_infinite() {
                self.bw_lo = self.max_bw();
            }
            if self.inflight_lo == INF {
                self.inflight_lo = s.cwnd;
            }
            self.bw_lo = self.bw_latest.max(self.bw_lo * self.c.beta);
            self.inflight_lo = self.inflight_latest.max((f64::from(self.inflight_lo) * self.c.beta) as u32);
        }
        self.inflight_lo = self.inflight_lo.min(ecn_inflight_lo);
    }

    pub(super) fn reset_lower_bounds(&mut self) {
        self.bw_lo = f64::INFINITY;
        self.inflight_lo = INF;
    }

    /// Linux `bbr_reset_congestion_signals`, after bandwidth probing.
    pub(super) fn reset_congestion_signals(&mut self) {
        self.loss_in_round = false;
        self.ecn_in_round = false;
        self.loss_in_cycle = false;
        self.ecn_in_cycle = false;
        self.bw_latest = 0.0;
        self.inflight_latest = 0;
    }

    /// Linux `bbr_note_loss`: a packet was marked lost; the loss round runs a full round trip
    /// from the first loss.
    pub(super) fn note_loss(&mut self, s: &CcState) {
        if !self.loss_in_round {
            self.loss_round_delivered = s.delivered;
        }
        self.loss_in_round = true;
        self.loss_in_cycle = true;
    }

    /// Linux `bbr_is_inflight_too_high`: loss above `loss_thresh` of the flight, or a CE
    /// ratio above `ecn_thresh`.
    pub(super) fn is_inflight_too_high(&self, lost: u64, tx_in_flight: u32, delivered_ce: u64, delivered: u64) -> bool {
        if lost > 0 && tx_in_flight > 0 && lost as f64 > f64::from(tx_in_flight) * self.c.loss_thresh {
            return true;
        }
        if delivered_ce > 0 && delivered > 0 && self.ecn_eligible && self.c.ecn_thresh > 0.0 {
            let thresh = delivered as f64 * self.c.ecn_thresh;
            let high = match self.c.generation {
                Generation::V2Alpha => delivered_ce as f64 >= thresh,
                Generation::V3 => delivered_ce as f64 > thresh,
            };
            return high;
        }
        false
    }

    pub(super) fn sample_too_high(&self, rs: &Sample) -> bool {
        self.is_inflight_too_high(rs.lost, rs.tx_in_flight, rs.delivered_ce, rs.delivered)
    }

    /// Linux `bbr_inflight_hi_from_lost_skb`: the inflight at which the loss rate crossed the
    /// threshold, solving (lost_prev + x) / (inflight_prev + x) = loss_thresh for the prefix x
    /// of this (one-packet) loss.
    pub(super) fn inflight_hi_from_lost_packet(&self, lost: u64, tx_in_flight: u32) -> u32 {
        let Some(inflight_prev) = tx_in_flight.checked_sub(1) else { return INF };
        let Some(lost_prev) = lost.checked_sub(1) else { return INF };
        let thresh = self.c.loss_thresh;
        let budget = (f64::from(inflight_prev) * thresh).ceil() as u64;
        let prefix = if lost_prev >= budget { 0 } else { ((budget - lost_prev) as f64 / (1.0 - thresh)) as u32 };
        inflight_prev.saturating_add(prefix)
    }

    /// Linux `bbr_update_ecn_alpha`, once per round: EWMA of the CE ratio; Startup exits after
    /// `full_ecn_cnt` rounds above `ecn_thresh`.
    pub(super) fn update_ecn_alpha(&mut self, s: &CcState) {
        if !self.ecn_eligible
            && self.ecn
            && self.c.ecn_factor > 0.0
            && (self.min_rtt <= self.c.ecn_max_rtt || self.c.ecn_max_rtt == 0)
        {
            self.ecn_eligible = true;
        }
        if !self.ecn_eligible {
            return;
        }
        let delivered = s.delivered - self.alpha_last_delivered;
        let delivered_ce = s.delivered_ce - self.alpha_last_delivered_ce;
        if delivered == 0 {
            return;
        }
        let ce_ratio = delivered_ce as f64 / delivered as f64;
        let g = self.c.ecn_alpha_gain;
        self.ecn_alpha = ((1.0 - g) * self.ecn_alpha + g * ce_ratio).min(1.0);
        self.alpha_last_delivered = s.delivered;
        self.alpha_last_delivered_ce = s.delivered_ce;

        if self.full_bw_reached || self.c.full_ecn_cnt == 0 || self.c.ecn_thresh <= 0.0 {
            return;
        }
        if ce_ratio >= self.c.ecn_thresh {
            self.startup_ecn_rounds += 1;
        } else {
            self.startup_ecn_rounds = 0;
        }
        if self.startup_ecn_rounds >= self.c.full_ecn_cnt {
            self.handle_queue_too_high_in_startup(s);
        }
    }

    /// Linux `bbr_update_ack_aggregation`: how far ACKs ran ahead of the bandwidth estimate,
    /// max-filtered over two windows of `extra_acked_win_rtts` rounds (one round in Startup).
    fn update_ack_aggregation(&mut self, s: &CcState, rs: &Sample) {
        if self.c.extra_acked_gain <= 0.0 || rs.acked == 0 || rs.interval == 0 {
            return;
        }
        let win_rtts = if self.full_bw_reached { self.c.extra_acked_win_rtts } else { 1 };
        self.ack_aggregation.update(self.round_start, win_rtts, s.now, self.bw(), rs.acked, s.cwnd);
    }

    /// Linux `bbr_handle_queue_too_high_in_startup`: the pipe is full, and inflight_hi starts
    /// at the BDP (v3: or at what the last round delivered, if more).
    fn handle_queue_too_high_in_startup(&mut self, s: &CcState) {
        self.full_bw_reached = true;
        let bdp = self.inflight(s, self.max_bw(), 1.0);
        self.inflight_hi = match self.c.generation {
            Generation::V2Alpha => bdp,
            Generation::V3 => bdp.max(self.inflight_latest),
        };
    }

    /// Linux `bbr_check_loss_too_high_in_startup`: at the end of a round in Recovery, leave
    /// Startup if enough ACKs reported losses and the loss rate is above `loss_thresh`.
    fn check_loss_too_high_in_startup(&mut self, s: &CcState, rs: &Sample) {
        if self.full_bw_reached {
            return;
        }
        if rs.losses > 0 && self.loss_events_in_round < 15 {
            self.loss_events_in_round += 1;
        }
        if self.c.full_loss_cnt > 0
            && self.loss_round_start
            && s.ca_state == CaState::Recovery
            && self.loss_events_in_round >= self.c.full_loss_cnt
            && self.sample_too_high(rs)
        {
            self.handle_queue_too_high_in_startup(s);
            return;
        }
        if self.loss_round_start {
            self.loss_events_in_round = 0;
        }
    }

    pub(super) fn reset_full_bw(&mut self) {
        self.full_bw = 0.0;
        self.full_bw_cnt = 0;
        self.full_bw_now = false;
    }

    /// The full-pipe test: `full_bw_cnt` rounds without `full_bw_thresh` growth. v2alpha
    /// tests the max filter at round starts in Startup only; v3 tests every sample, in every
    /// state, so ProbeBW UP can also stop on a plateau (`full_bw_now`).
    fn check_full_bw_reached(&mut self, rs: &Sample) {
        match self.c.generation {
            Generation::V2Alpha => {
                if self.full_bw_reached || !self.round_start || rs.app_limited {
                    return;
                }
                let max_bw = self.max_bw();
                if max_bw >= self.full_bw * self.c.full_bw_thresh {
                    self.full_bw = max_bw;
                    self.full_bw_cnt = 0;
                    return;
                }
                self.full_bw_cnt += 1;
                self.full_bw_reached = self.full_bw_cnt >= self.c.full_bw_cnt;
            }
            Generation::V3 => {
                if self.full_bw_now || rs.app_limited {
                    return;
                }
                if rs.bw >= self.full_bw * self.c.full_bw_thresh {
                    self.reset_full_bw();
                    self.full_bw = rs.bw;
                    return;
                }
                if !self.round_start {
                    return;
                }
                self.full_bw_cnt += 1;
                self.full_bw_now = self.full_bw_cnt >= self.c.full_bw_cnt;
                self.full_bw_reached |= self.full_bw_now;
            }
        }
    }

    /// Linux `bbr_check_drain`: Startup -> Drain once the pipe is full; Drain -> ProbeBW once
    /// inflight is at most the BDP (or, with the draft's rule, after `drain_max_rounds`).
    fn check_drain(&mut self, s: &mut CcState) {
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.mode = Mode::Drain;
            self.drain_start_round = self.round_count;
            // For monitoring only, as in Linux: ssthresh shows that Startup ended.
            s.ssthresh = self.inflight(s, self.max_bw(), 1.0);
            self.reset_congestion_signals();
        }
        if self.mode != Mode::Drain {
            return;
        }
        let drained = self.packets_in_net_at_edt(s, s.packets_in_flight) <= self.inflight(s, self.max_bw(), 1.0);
        let timed_out =
            self.c.drain_max_rounds.is_some_and(|n| self.round_count - self.drain_start_round >= u64::from(n));
        if drained || timed_out {
            self.mode = Mode::ProbeBw;
            self.start_bw_probe_down(s);
        }
    }

    /// Linux `bbr_update_min_rtt`: a 5 s min filter schedules ProbeRTT and feeds the 10 s
    /// min_rtt; ProbeRTT holds cwnd at BDP/2 for 200 ms and a round, then resumes. With equal
    /// windows the two filters act as one (port A's `UpdateRTprop` and `CheckProbeRTT`).
    fn update_min_rtt(&mut self, s: &mut CcState, rs: &Sample) {
        let probe_rtt_expired = s.now > self.probe_rtt_min_stamp.saturating_add(self.c.probe_rtt_interval);
        let rtt = match self.c.min_rtt_source {
            MinRttSource::Sample => rs.rtt,
            MinRttSource::Smoothed => (s.srtt > 0).then_some(s.srtt),
        };
        if let Some(rtt) = rtt {
            let lower = match self.c.generation {
                Generation::V2Alpha => rtt <= self.probe_rtt_min,
                Generation::V3 => rtt < self.probe_rtt_min,
            };
            if lower || probe_rtt_expired {
                self.probe_rtt_min = rtt;
                self.probe_rtt_min_stamp = s.now;
            }
        }
        let min_rtt_expired = s.now > self.min_rtt_stamp.saturating_add(self.c.min_rtt_window);
        if self.probe_rtt_min <= self.min_rtt || min_rtt_expired {
            self.min_rtt = self.probe_rtt_min;
            self.min_rtt_stamp = self.probe_rtt_min_stamp;
        }

        if self.c.probe_rtt_duration > 0 && probe_rtt_expired && !self.idle_restart && self.mode != Mode::ProbeRtt {
            self.mode = Mode::ProbeRtt;
            self.save_cwnd(s);
            self.probe_rtt.enter();
            self.ack_phase = AckPhase::ProbeStopping;
            self.next_rtt_delivered = s.delivered;
        }

        if self.mode == Mode::ProbeRtt {
            // Samples sent now are low-rate by design: mark them app-limited.
            let until = (s.delivered + u64::from(s.packets_in_flight)).max(1);
            let from = self
                .app_limited_range
                .map_or(s.delivered, |(from, to)| if to >= s.delivered { from } else { s.delivered });
            self.app_limited_range = Some((from, until));
            let (cwnd, duration) = (self.probe_rtt_cwnd(), self.c.probe_rtt_duration);
            if self.probe_rtt.on_ack(s, cwnd, duration, self.round_start, &mut self.next_rtt_delivered) {
                self.check_probe_rtt_done(s);
            }
        }
        if rs.delivered > 0 {
            self.idle_restart = false;
        }
    }

    /// Linux `bbr_check_probe_rtt_done`.
    pub(super) fn check_probe_rtt_done(&mut self, s: &mut CcState) {
        if !self.probe_rtt.is_over(s.now) {
            return;
        }
        self.probe_rtt_min_stamp = s.now; // schedule the next ProbeRTT
        s.cwnd = s.cwnd.max(self.prior_cwnd);
        self.exit_probe_rtt(s);
    }

    /// Linux `bbr_exit_probe_rtt`: back to ProbeBW (cruising, the next probe randomized) or,
    /// if the pipe was never filled, to Startup.
    fn exit_probe_rtt(&mut self, s: &CcState) {
        self.reset_lower_bounds();
        if self.full_bw_reached {
            self.mode = Mode::ProbeBw;
            self.start_bw_probe_down(s);
            self.start_bw_probe_cruise();
        } else {
            self.mode = Mode::Startup;
        }
    }
}
