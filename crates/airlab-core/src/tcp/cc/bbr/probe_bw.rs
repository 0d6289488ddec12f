//! The ProbeBW cycle (Linux `bbr_update_cycle_phase` and helpers): DOWN drains the queue left
//! by probing, CRUISE holds at the estimated bandwidth with headroom below inflight_hi until a
//! randomized 2-3 s wait (port A: one min_rtt after DOWN began) or the Reno-coexistence round
//! count ends, REFILL sends at the estimated bandwidth for one round, UP probes at 1.25x while
//! raising inflight_hi until loss, ECN, or (v2alpha) a 1.25 BDP queue, or (v3) a bandwidth
//! plateau ends it.

use super::{AckPhase, Bbr, Generation, Implementation, Mode, Phase, ProbeWait, Sample, INF};
use crate::tcp::cc::{CaState, CcState};

impl Bbr {
    /// Linux `bbr_update_cycle_phase`.
    pub(super) fn update_cycle_phase(&mut self, s: &CcState, rs: &Sample) {
        if !self.full_bw_reached {
            return;
        }
        // Port A's `UpdateCyclePhase` tests the mode before `AdaptUpperBounds`: its upper
        // bounds (and the end of a probe's feedback) are looked at in ProbeBW only.
        let adapts_upper_bounds = self.c.implementation == Implementation::Linux || self.mode == Mode::ProbeBw;
        if (adapts_upper_bounds && self.adapt_upper_bounds(s, rs)) || self.mode != Mode::ProbeBw {
            return;
        }
        let inflight = self.packets_in_net_at_edt(s, rs.prior_in_flight);
        let bw = self.max_bw();
        match self.phase {
            Phase::Cruise => {
                self.check_time_to_probe_bw(s);
            }
            Phase::Refill => {
                if self.round_start {
                    // Samples from now on reflect the refilled pipe and the probe.
                    self.bw_probe_samples = true;
                    self.start_bw_probe_up(s, rs);
                }
            }
            Phase::Up => {
                let mut done = false;
                if self.prev_probe_too_high && inflight >= self.inflight_hi {
                    // Back at the level that was too high last time: stop before it overflows.
                    self.stopped_risky_probe = true;
                    done = true;
                } else {
                    match self.c.generation {
                        Generation::V2Alpha => {
                            done = self.has_elapsed_in_phase(s, self.min_rtt)
                                && inflight >= self.inflight_to_reach(s, bw, self.c.bw_probe_pif_gain);
                        }
                        Generation::V3 => {
                            if s.is_cwnd_limited && s.cwnd >= self.inflight_hi {
                                // inflight_hi, not the path, limits growth: keep probing.
                                self.reset_full_bw();
                                self.full_bw = rs.bw;
                            } else if self.full_bw_now {
                                done = true; // bandwidth plateaued: the pipe is full
                            }
                        }
                    }
                }
                if done {
                    self.prev_probe_too_high = false;
                    self.start_bw_probe_down(s);
                }
            }
            Phase::Down => {
                if self.check_time_to_probe_bw(s) {
                    return;
                }
                if self.check_time_to_cruise(s, inflight, bw) {
                    self.start_bw_probe_cruise();
                }
            }
        }
    }

    /// Linux `bbr_adapt_upper_bounds`: react to probe feedback. Returns true if it decided a
    /// phase change.
    fn adapt_upper_bounds(&mut self, s: &CcState, rs: &Sample) -> bool {
        if self.ack_phase == AckPhase::ProbeStarting && self.round_start {
            self.ack_phase = AckPhase::ProbeFeedback;
        }
        if self.ack_phase == AckPhase::ProbeStopping && self.round_start {
            // The last ACKs for packets sent while probing have arrived.
            self.bw_probe_samples = false;
            self.ack_phase = AckPhase::Init;
            if self.mode == Mode::ProbeBw && !rs.app_limited {
                self.advance_bw_hi_filter();
            }
            if self.mode == Mode::ProbeBw && self.stopped_risky_probe && !self.prev_probe_too_high {
                // Reached the old inflight_hi without trouble: probe again, beyond it.
                self.start_bw_probe_refill(s, 0);
                return true;
            }
        }
        if self.sample_too_high(rs) {
            if self.bw_probe_samples {
                self.handle_inflight_too_high(s, rs.app_limited, rs.tx_in_flight);
            }
        } else {
            if self.inflight_hi == INF {
                return false;
            }
            // Robustness to random loss: any level seen to be safe raises inflight_hi.
            if rs.tx_in_flight > self.inflight_hi {
                self.inflight_hi = rs.tx_in_flight;
            }
            if self.mode == Mode::ProbeBw && self.phase == Phase::Up {
                self.probe_inflight_hi_upward(s, rs);
            }
        }
        false
    }

    /// Linux `bbr_handle_inflight_too_high`: once per probe, set inflight_hi to the inflight
    /// at which loss (or ECN) went too high, but no lower than beta times the target inflight,
    /// and stop probing.
    pub(super) fn handle_inflight_too_high(&mut self, s: &CcState, app_limited: bool, tx_in_flight: u32) {
        self.prev_probe_too_high = true;
        self.bw_probe_samples = false;
        if !app_limited {
            let floor = (f64::from(self.target_inflight(s)) * self.c.beta) as u32;
            self.inflight_hi = tx_in_flight.max(floor);
        }
        if self.mode == Mode::ProbeBw && self.phase == Phase::Up {
            self.start_bw_probe_down(s);
        }
    }

    /// Linux `bbr_probe_inflight_hi_upward`: while cwnd-limited at inflight_hi in UP, add one
    /// packet per `bw_probe_up_cnt` ACKed; the slope doubles every round.
    /// Port A's `ProbeInflightHighUpward` first tests `m_initialCWnd < m_inflightHi`, the
    /// initial window in segments against inflight_hi in bytes, which always holds and
    /// returns: its inflight_hi never grows in UP.
    fn probe_inflight_hi_upward(&mut self, s: &CcState, rs: &Sample) {
        if self.c.implementation == Implementation::Ns3Lanigan {
            return;
        }
        if !s.is_cwnd_limited || s.cwnd < self.inflight_hi {
            if self.c.generation == Generation::V2Alpha {
                self.bw_probe_up_acks = 0; // no credit for unused inflight_hi
            }
            return;
        }
        self.bw_probe_up_acks += rs.acked;
        if self.bw_probe_up_acks >= self.bw_probe_up_cnt {
            let delta = self.bw_probe_up_acks / self.bw_probe_up_cnt;
            self.bw_probe_up_acks -= delta * self.bw_probe_up_cnt;
            self.inflight_hi = self.inflight_hi.saturating_add(delta);
        }
        if self.round_start {
            self.raise_inflight_hi_slope(s);
        }
    }

    /// Linux `bbr_raise_inflight_hi_slope`: 1, 2, 4, ... packets of growth per round.
    fn raise_inflight_hi_slope(&mut self, s: &CcState) {
        let growth_this_round = 1u32 << self.bw_probe_up_rounds;
        self.bw_probe_up_rounds = (self.bw_probe_up_rounds + 1).min(30);
        self.bw_probe_up_cnt = (s.cwnd / growth_this_round).max(1);
    }

    fn advance_bw_hi_filter(&mut self) {
        if self.bw_hi[1] == 0.0 {
            return; // no samples in this cycle: keep the old one
        }
        self.bw_hi[0] = self.bw_hi[1];
        self.bw_hi[1] = 0.0;
    }

    fn has_elapsed_in_phase(&self, s: &CcState, interval: u64) -> bool {
        s.now > self.cycle_start.saturating_add(interval)
    }

    /// Linux `bbr_is_reno_coexistence_probe_time`: a Reno flow with our BDP would probe about
    /// every BDP rounds; probe at least that often, capped at 63 rounds. Port A's
    /// `IsTimeToProbeRenoCoexistence` takes the minimum with `TargetInflight ()`, in bytes, so
    /// its bound is always the cap.
    pub(super) fn is_reno_coexistence_probe_time(&self, s: &CcState) -> bool {
        let rounds = match self.c.implementation {
            Implementation::Linux => self.c.bw_probe_max_rounds.min(self.target_inflight(s)),
            Implementation::Ns3Lanigan => self.c.bw_probe_max_rounds,
        };
        self.rounds_since_probe >= rounds
    }

    /// Linux `bbr_check_time_to_probe_bw`.
    fn check_time_to_probe_bw(&mut self, s: &CcState) -> bool {
        if self.c.ecn_reprobe_gain > 0.0
            && self.ecn_eligible
            && self.ecn_in_cycle
            && !self.loss_in_cycle
            && s.ca_state == CaState::Open
        {
            // ECN without loss has cleared: reprobe fast, starting at a fraction of inflight_hi.
            let volume = (f64::from(self.inflight_hi) * self.c.ecn_reprobe_gain) as u64;
            self.start_bw_probe_refill(s, volume.max(1).ilog2());
            return true;
        }
        let wait = match self.c.probe_wait {
            ProbeWait::WallClock { .. } => self.probe_wait,
            ProbeWait::MinRtt => self.min_rtt,
        };
        if self.has_elapsed_in_phase(s, wait) || self.is_reno_coexistence_probe_time(s) {
            self.start_bw_probe_refill(s, 0);
            return true;
        }
        false
    }

    /// Linux `bbr_check_time_to_cruise`: inflight has left headroom and is at most the BDP.
    fn check_time_to_cruise(&self, s: &CcState, inflight: u32, bw: f64) -> bool {
        inflight <= self.inflight_with_headroom() && inflight <= self.inflight(s, bw, 1.0)
    }

    /// Linux `bbr_pick_probe_wait`: random 0-1 extra rounds and a 2-3 s wall-clock wait (port
    /// A's `EnterProbeDown` draws the rounds only).
    fn pick_probe_wait(&mut self) {
        self.rounds_since_probe = self.rng.below(u64::from(self.c.bw_probe_rand_rounds.max(1))) as u32;
        if let ProbeWait::WallClock { base, rand } = self.c.probe_wait {
            self.probe_wait = base + self.rng.below(rand.max(1));
        }
    }

    fn start_bw_probe_refill(&mut self, s: &CcState, bw_probe_up_rounds: u32) {
        self.reset_lower_bounds();
        self.bw_probe_up_rounds = bw_probe_up_rounds;
        self.bw_probe_up_acks = 0;
        self.stopped_risky_probe = false;
        self.ack_phase = AckPhase::Refilling;
        self.next_rtt_delivered = s.delivered;
        self.phase = Phase::Refill;
    }

    fn start_bw_probe_up(&mut self, s: &CcState, rs: &Sample) {
        self.ack_phase = AckPhase::ProbeStarting;
        self.next_rtt_delivered = s.delivered;
        self.cycle_start = s.now;
        if self.c.generation == Generation::V3 {
            self.reset_full_bw();
            self.full_bw = rs.bw;
        }
        self.phase = Phase::Up;
        self.raise_inflight_hi_slope(s);
    }

    /// Linux `bbr_start_bw_probe_down`: a new cycle; pick when to probe next.
    pub(super) fn start_bw_probe_down(&mut self, s: &CcState) {
        self.reset_congestion_signals();
        self.bw_probe_up_cnt = INF;
        self.pick_probe_wait();
        self.cycle_start = s.now;
        self.ack_phase = AckPhase::ProbeStopping;
        self.next_rtt_delivered = s.delivered;
        self.phase = Phase::Down;
    }

    pub(super) fn start_bw_probe_cruise(&mut self) {
        if self.inflight_lo != INF {
            self.inflight_lo = self.inflight_lo.min(self.inflight_hi);
        }
        self.phase = Phase::Cruise;
    }
}
