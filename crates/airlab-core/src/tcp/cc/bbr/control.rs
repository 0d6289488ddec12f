//! Control: the pacing rate and cwnd that follow from the model (Linux `bbr_set_pacing_rate`,
//! `bbr_set_cwnd`, `bbr_bound_cwnd_for_inflight_model` and their helpers).

use super::{Bbr, Implementation, Mode, Phase, ProbeBwCwndGain, Sample, INF, NO_RTT};
use crate::sim::{Time, MS, SEC, US};
use crate::tcp::cc::CcState;

/// Linux `GSO_MAX_SIZE` (legacy 64 KB) and an approximation of `MAX_TCP_HEADER`.
const GSO_MAX_SIZE: u64 = 65536;
const MAX_TCP_HEADER: u64 = 320;
/// Linux `sk_pacing_shift` default: about 1 ms of data per TSO burst.
const PACING_SHIFT: u32 = 10;
/// v2alpha: below this pacing rate (bytes/s, 1.2 Mbit/s) bursts are single segments.
const MIN_TSO_RATE: u64 = 1_200_000 / 8;
/// Port A's `InFlight` adds `3 * m_sendQuantum`, and its `SetSendQuantum` fixes the quantum at
/// one segment (ns-3 has no TSO).
const NS3_SEND_QUANTA: u32 = 3;

/// A window of `packets` (real) rounded up to whole packets, tolerating float noise on exact
/// products.
fn round_up(packets: f64) -> u32 {
    (packets - 1e-9).ceil().clamp(0.0, f64::from(INF - 1)) as u32
}

/// A window of `packets` (real) rounded down to whole packets, tolerating float noise.
fn round_down(packets: f64) -> u32 {
    (packets + 1e-9).floor().clamp(0.0, f64::from(INF - 1)) as u32
}

impl Bbr {
    /// gain * BDP in packets from the BDP model, before rounding; `None` before any RTT sample.
    fn gain_bdp(&self, bw: f64, gain: f64) -> Option<f64> {
        (self.min_rtt != NO_RTT).then(|| self.bdp_model.bdp(bw, self.min_rtt, gain))
    }

    /// Linux `bbr_bdp`: ceil(gain * BDP) in packets; the initial cwnd before any RTT sample.
    /// Port A's windows are bytes and its socket sends whole segments only (`SendPendingData`),
    /// so gain * BDP lets out the whole packets below it: its floor.
    pub(super) fn bdp(&self, bw: f64, gain: f64) -> u32 {
        let Some(bdp) = self.gain_bdp(bw, gain) else { return self.init_cwnd };
        match self.c.implementation {
            Implementation::Linux => round_up(bdp),
            Implementation::Ns3Lanigan => round_down(bdp),
        }
    }

    /// Linux `bbr_tso_segs_goal`: the burst size Linux would budget for, from the pacing rate
    /// and min_rtt. airlab has no TSO; the budget is kept so cwnd matches Linux.
    pub(super) fn tso_segs_goal(&self, s: &CcState) -> u32 {
        let mut bytes = s.pacing_rate >> PACING_SHIFT;
        if self.min_rtt != NO_RTT {
            // 64 KB halved for every 512 us of min_rtt.
            let r = (self.min_rtt / US) >> 9;
            if r < 64 {
                bytes += GSO_MAX_SIZE >> r;
            }
        }
        bytes = bytes.min(GSO_MAX_SIZE - 1 - MAX_TCP_HEADER);
        let min_segs = match self.c.generation {
            super::Generation::V2Alpha if s.pacing_rate < MIN_TSO_RATE => 1,
            _ => 2, // v3: sysctl tcp_min_tso_segs
        };
        ((bytes / u64::from(s.mss.max(1))) as u32).max(min_segs)
    }

    /// Linux `bbr_quantization_budget`. Port A's `InFlight` adds 3 one-segment send quanta
    /// instead: no floor, no extra packets in UP.
    pub(super) fn quantization_budget(&self, s: &CcState, cwnd: u32) -> u32 {
        if self.c.implementation == Implementation::Ns3Lanigan {
            return cwnd.saturating_add(NS3_SEND_QUANTA);
        }
        let mut cwnd = cwnd.max(3 * self.tso_segs_goal(s)).max(self.c.min_cwnd);
        if self.mode == Mode::ProbeBw && self.phase == Phase::Up {
            cwnd = cwnd.saturating_add(2); // get above the BDP even when it is small
        }
        cwnd
    }

    /// Linux `bbr_inflight`: the BDP with the quantization budget.
    pub(super) fn inflight(&self, s: &CcState, bw: f64, gain: f64) -> u32 {
        self.quantization_budget(s, self.bdp(bw, gain))
    }

    /// The inflight at which a phase that waits for inflight to rise has reached `gain` * BDP
    /// (ProbeBW UP's exit): `bbr_inflight`. Port A compares bytes (`m_priorInFlight >=
    /// InFlight (tcb, m_pacingGain)`), which whole packets reach at the ceiling of gain * BDP,
    /// plus its send quanta.
    pub(super) fn inflight_to_reach(&self, s: &CcState, bw: f64, gain: f64) -> u32 {
        match (self.c.implementation, self.gain_bdp(bw, gain)) {
            (Implementation::Ns3Lanigan, Some(bdp)) => self.quantization_budget(s, round_up(bdp)),
            _ => self.inflight(s, bw, gain),
        }
    }

    /// Linux `bbr_target_inflight`: the BDP, unless congestion already cut cwnd below it.
    /// Port A's `TargetInflight` takes the bandwidth from the two-cycle snapshots of its
    /// windowed filter (`m_bwMax`) and does not cap by cwnd.
    pub(super) fn target_inflight(&self, s: &CcState) -> u32 {
        match self.c.implementation {
            Implementation::Linux => self.inflight(s, self.bw(), 1.0).min(s.cwnd),
            Implementation::Ns3Lanigan => self.inflight(s, self.cycle_max_bw().min(self.bw_lo), 1.0),
        }
    }

    /// Linux `bbr_packets_in_net_at_edt`: the flight when the next paced packet leaves (what
    /// the bottleneck delivers until then is no longer in the network), with that packet's
    /// burst counted while inflight is to grow. ns-3 has no departure times: port A tests the
    /// flight as it stands (`m_bytesInFlight`, `m_priorInFlight`).
    pub(super) fn packets_in_net_at_edt(&self, s: &CcState, inflight_now: u32) -> u32 {
        if self.c.implementation == Implementation::Ns3Lanigan {
            return inflight_now;
        }
        let at_edt = if self.pacing_gain > 1.0 { inflight_now + self.tso_segs_goal(s) } else { inflight_now };
        at_edt.saturating_sub(s.delivered_before_departure(self.bw()))
    }

    /// Linux `bbr_inflight_with_headroom`: inflight_hi less 15 % (at least a packet), at least
    /// the minimum cwnd.
    pub(super) fn inflight_with_headroom(&self) -> u32 {
        if self.inflight_hi == INF {
            return INF;
        }
        let headroom = (f64::from(self.inflight_hi) * self.c.inflight_headroom) as u32;
        let headroom = headroom.max(self.c.inflight_headroom_min);
        self.inflight_hi.saturating_sub(headroom).max(self.c.min_cwnd)
    }

    pub(super) fn probe_rtt_cwnd(&self) -> u32 {
        self.bdp(self.bw(), self.c.probe_rtt_cwnd_gain).max(self.c.min_cwnd)
    }

    pub(super) fn update_gains(&mut self) {
        let c = &self.c;
        (self.pacing_gain, self.cwnd_gain) = match self.mode {
            Mode::Startup => (c.startup_pacing_gain, c.startup_cwnd_gain),
            Mode::Drain => (c.drain_pacing_gain, c.startup_cwnd_gain),
            Mode::ProbeBw => {
                let pacing_gain = match self.phase {
                    Phase::Down => c.pacing_gain_down,
                    Phase::Cruise => c.pacing_gain_cruise,
                    Phase::Refill => c.pacing_gain_refill,
                    Phase::Up => c.pacing_gain_up,
                };
                let cwnd_gain = match c.probe_bw_cwnd_gain {
                    ProbeBwCwndGain::PerPhase { up, .. } if self.phase == Phase::Up => up,
                    ProbeBwCwndGain::PerPhase { outside_up, .. } => outside_up,
                    ProbeBwCwndGain::Kept => self.cwnd_gain,
                };
                (pacing_gain, cwnd_gain)
            }
            Mode::ProbeRtt => (1.0, 1.0),
        };
    }

    fn bw_to_pacing_rate(&self, bw: f64, gain: f64) -> u64 {
        ((bw * f64::from(self.mss) * gain * (1.0 - self.c.pacing_margin)) as u64).max(1)
    }

    /// Linux `bbr_init_pacing_rate_from_rtt`: startup gain times cwnd over SRTT (1 ms nominal
    /// RTT before any sample).
    pub(super) fn init_pacing_rate_from_rtt(&mut self, s: &mut CcState) {
        let rtt: Time = if s.srtt > 0 {
            self.has_seen_rtt = true;
            s.srtt
        } else {
            MS
        };
        let bw = f64::from(s.cwnd) * SEC as f64 / rtt as f64;
        s.pacing_rate = self.bw_to_pacing_rate(bw, self.c.startup_pacing_gain);
    }

    /// Linux `bbr_set_pacing_rate`: never slow down before the pipe is known to be full.
    pub(super) fn set_pacing_rate(&mut self, s: &mut CcState, bw: f64, gain: f64) {
        let rate = self.bw_to_pacing_rate(bw, gain);
        if !self.has_seen_rtt && s.srtt > 0 {
            self.init_pacing_rate_from_rtt(s);
        }
        if self.full_bw_reached || rate > s.pacing_rate {
            s.pacing_rate = rate;
        }
    }

    /// Linux `bbr_ack_aggregation_cwnd`.
    fn ack_aggregation_cwnd(&self) -> u32 {
        let max_aggr = self.bw() * self.c.extra_acked_max as f64 / SEC as f64;
        let aggr = self.c.extra_acked_gain * f64::from(self.ack_aggregation.max());
        aggr.min(max_aggr) as u32
    }

    /// Linux `bbr_set_cwnd`: grow toward the target by the ACKed packets (slow-start-like
    /// before the pipe is full), snap down to it afterwards; ProbeRTT caps at BDP/2. With the
    /// draft's recovery rules, the first round of Fast Recovery uses packet conservation.
    pub(super) fn set_cwnd(&mut self, s: &mut CcState, rs: &Sample, bw: f64, gain: f64) {
        let mut cwnd = s.cwnd;
        let conserving = self.c.draft_recovery && self.modulate_cwnd_for_recovery(s, rs, &mut cwnd);
        if rs.acked > 0 && !conserving {
            let target = self.bdp(bw, gain).saturating_add(self.ack_aggregation_cwnd());
            let target = self.quantization_budget(s, target);
            if self.full_bw_reached {
                cwnd = cwnd.saturating_add(rs.acked).min(target);
            } else if cwnd < target || cwnd < 2 * self.init_cwnd {
                cwnd = cwnd.saturating_add(rs.acked);
            }
            cwnd = cwnd.max(self.c.min_cwnd);
        }
        s.cwnd = cwnd.min(s.cwnd_clamp);
        if self.mode == Mode::ProbeRtt {
            s.cwnd = s.cwnd.min(self.probe_rtt_cwnd());
        }
    }

    /// draft-ietf-ccwg-bbr `BBRModulateCwndForRecovery`: take newly lost packets out of cwnd
    /// and, for the first round of Fast Recovery, send one packet per packet delivered.
    /// Returns true while conserving.
    fn modulate_cwnd_for_recovery(&mut self, s: &CcState, rs: &Sample, cwnd: &mut u32) -> bool {
        if std::mem::take(&mut self.conservation_pending) {
            // prior_cwnd was saved by `ssthresh` when Recovery began.
            *cwnd = s.packets_in_flight + rs.acked.max(1);
            self.conservation_until = Some(s.delivered);
            return true;
        }
        if rs.losses > 0 {
            *cwnd = cwnd.saturating_sub(rs.losses).max(1);
        }
        match self.conservation_until {
            Some(end) if rs.interval > 0 && rs.prior_delivered >= end => {
                self.conservation_until = None;
                false
            }
            Some(_) => {
                *cwnd = (*cwnd).max(s.packets_in_flight + rs.acked);
                true
            }
            None => false,
        }
    }

    /// Linux `bbr_bound_cwnd_for_inflight_model`: inflight_hi while probing, inflight_hi less
    /// headroom when cruising or in ProbeRTT, and inflight_lo always.
    pub(super) fn bound_cwnd_for_inflight_model(&self, s: &mut CcState) {
        let mut cap = INF;
        if self.mode == Mode::ProbeBw && self.phase != Phase::Cruise {
            cap = self.inflight_hi;
        } else if self.mode == Mode::ProbeRtt || self.mode == Mode::ProbeBw {
            cap = self.inflight_with_headroom();
        }
        cap = cap.min(self.inflight_lo).max(self.c.min_cwnd);
        s.cwnd = s.cwnd.min(cap);
    }
}
