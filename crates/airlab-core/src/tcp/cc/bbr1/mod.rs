//! BBR version 1 (Cardwell et al., "BBR: Congestion-Based Congestion Control", ACM Queue 2016
//! and CACM 2017) as Linux mainline `net/ipv4/tcp_bbr.c`.
//!
//! BBR models the path by two numbers: the bottleneck bandwidth (a windowed max of
//! delivery-rate samples over 10 round trips) and the round-trip propagation time (a windowed
//! min of RTT samples over 10 s). It paces at `pacing_gain * bw` and caps the flight at
//! `cwnd_gain * bw * min_rtt` plus allowances, moving through four modes:
//! - Startup: gain 2/ln2 until the bandwidth estimate has grown less than 25 % in 3 rounds;
//! - Drain: pacing gain ln2/2 until the data in flight falls to one BDP;
//! - ProbeBW: pacing-gain cycle [5/4, 3/4, 1, 1, 1, 1, 1, 1], one phase per min_rtt, entered
//!   at a random phase other than 3/4, cwnd gain 2;
//! - ProbeRTT: when min_rtt was not refreshed for 10 s, cwnd 4 for max(200 ms, 1 round).
//!
//! Linux details kept: the fixed-point gains (`BBR_UNIT` = 256, so Startup is 739/256 and Drain
//! 88/256), the 1 % pacing margin, the pacing rate never lowered in Startup, the quantization
//! budget (3 TSO-sized bursts, rounded up to even, +2 in the 5/4 phase), the ACK-aggregation
//! allowance (`extra_acked`, max over 5-10 rounds), packet conservation in the first round of
//! Recovery, saving and restoring cwnd around loss episodes and ProbeRTT, and the long-term
//! bandwidth (policer) estimator, which can be switched off with `lt_bw = false`.
//!
//! Abstractions: bandwidth is f64 segments per second instead of Linux's 2^-24 segments per
//! microsecond, time is nanoseconds instead of microseconds and jiffies. airlab has no TSO, but
//! the quantization budget uses Linux's `bbr_tso_segs_goal` from the pacing rate so cwnd matches
//! Linux's. The socket does not expose its earliest departure time, so the data "in the network
//! at EDT" is the data in flight (plus the EDT burst when probing up). See `docs/models/bbr1.md`.

pub use super::bbr_shared::Mode;
use super::bbr_shared::{AckAggregation, ProbeRttHold};
use super::minmax::WindowedFilter;
use super::{AckSample, Build, CaState, CcEnv, CcState, CcVar, Component, Config, CongestionControl};
use crate::params::{no_check, Kind, Param, Range, Value};
use crate::sim::{Rng, Time, MS, SEC, US};

pub static BBR1: Component = Component {
    name: "bbr1",
    doc: "BBR version 1 (Linux tcp_bbr)",
    params: &[
        Param {
            name: "lt_bw",
            kind: Kind::Flag,
            default: Value::Flag(true),
            doc: "long-term bandwidth sampling: detect a token-bucket policer and pace at its rate",
        },
        Param {
            name: "probe_rtt_interval",
            kind: Kind::Real { range: Range { min: 0.0, min_open: true, max: 3600.0, max_open: false }, unit: "s" },
            default: Value::Real(10.0),
            doc: "min_rtt filter window: ProbeRTT runs when min_rtt is this old (Linux 10 s)",
        },
    ],
    check: no_check,
    build: Build(|c: &Config, env| Ok(Box::new(Bbr1::of(c, env)))),
};

/// Fixed-point unit of Linux's gains (`BBR_UNIT`).
const UNIT: u32 = 256;
/// Startup gain 2/ln2 (`bbr_high_gain` = 256 * 2885 / 1000 + 1).
const HIGH_GAIN: u32 = UNIT * 2885 / 1000 + 1;
/// Drain pacing gain ln2/2 (`bbr_drain_gain`).
const DRAIN_GAIN: u32 = UNIT * 1000 / 2885;
/// ProbeBW cwnd gain.
const CWND_GAIN: u32 = UNIT * 2;
/// ProbeBW pacing-gain cycle.
const CYCLE: [u32; 8] = [UNIT * 5 / 4, UNIT * 3 / 4, UNIT, UNIT, UNIT, UNIT, UNIT, UNIT];
/// The cycle is entered at one of the last 7 phases before advancing (`bbr_cycle_rand`).
const CYCLE_RAND: u64 = 7;
/// Rounds in the bandwidth max filter (`bbr_bw_rtts` = CYCLE_LEN + 2).
const BW_RTTS: u64 = CYCLE.len() as u64 + 2;
/// Minimum time in ProbeRTT (`bbr_probe_rtt_mode_ms`).
const PROBE_RTT_TIME: Time = 200 * MS;
/// Minimum cwnd and the ProbeRTT cwnd (`bbr_cwnd_min_target`).
const CWND_MIN: u32 = 4;
/// Pacing margin in percent (`bbr_pacing_margin_percent`).
const PACING_MARGIN_PERCENT: f64 = 1.0;
/// Full pipe: bw must grow by 5/4 within `FULL_BW_CNT` rounds.
const FULL_BW_THRESH: u32 = UNIT * 5 / 4;
const FULL_BW_CNT: u32 = 3;
/// Linux `TCP_INIT_CWND`.
const TCP_INIT_CWND: u32 = 10;
/// Below this pacing rate (bit/s) one segment per TSO burst, above it two (`bbr_min_tso_rate`).
const MIN_TSO_RATE: u64 = 1_200_000;
/// Linux `sk_pacing_shift`: a TSO burst holds about 1 ms (2^-10 s) of data.
const PACING_SHIFT: u32 = 10;
/// Linux `GSO_LEGACY_MAX_SIZE - 1 - MAX_TCP_HEADER` with the usual x86-64 `MAX_TCP_HEADER` of 320.
const GSO_MAX_BYTES: u64 = 65_536 - 1 - 320;
/// Rounds per half of the extra_acked max filter (`bbr_extra_acked_win_rtts`).
const EXTRA_ACKED_WIN_RTTS: u32 = 5;
/// extra_acked is capped at this much time at the estimated bandwidth (`bbr_extra_acked_max_us`).
const EXTRA_ACKED_MAX: Time = 100 * MS;
/// Long-term sampling: rounds per interval, at least 4 and at most 16 (`bbr_lt_intvl_min_rtts`).
const LT_INTVL_MIN_RTTS: u32 = 4;
/// A lossy interval loses at least 50/256 (about 20 %) of what it delivers (`bbr_lt_loss_thresh`).
const LT_LOSS_THRESH: u64 = 50;
/// Two intervals are consistent if their rates differ by at most 1/8 (`bbr_lt_bw_ratio`)...
const LT_BW_RATIO: u32 = UNIT / 8;
/// ... or by at most 4 kbit/s (`bbr_lt_bw_diff`, in bytes per second).
const LT_BW_DIFF: f64 = 4000.0 / 8.0;
/// Rounds to use the long-term rate once policing is detected (`bbr_lt_bw_max_rtts`).
const LT_BW_MAX_RTTS: u32 = 48;

/// Linux orders the CA states; BBR compares against Recovery.
fn rank(state: CaState) -> u8 {
    match state {
        CaState::Open => 0,
        CaState::Disorder => 1,
        CaState::Cwr => 2,
        CaState::Recovery => 3,
        CaState::Loss => 4,
    }
}

/// Gain in `UNIT`s as a factor.
fn gain_f(gain: u32) -> f64 {
    f64::from(gain) / f64::from(UNIT)
}

/// The parts of one ACK that BBR looks at (Linux `struct rate_sample`).
#[derive(Clone, Copy, Debug, Default)]
struct Sample {
    /// The delivery-rate sample is usable.
    valid: bool,
    /// Delivery rate in segments per second.
    bw: f64,
    delivered: u64,
    prior_delivered: u64,
    is_app_limited: bool,
    /// Segments newly delivered (Linux `acked_sacked`).
    acked: u32,
    /// Segments newly marked lost (Linux `rs->losses`).
    losses: u32,
    /// Segments in flight before this ACK was processed.
    prior_in_flight: u32,
    rtt: Option<Time>,
}

/// Long-term ("policer") bandwidth estimation state.
#[derive(Clone, Debug, Default)]
struct LongTerm {
    is_sampling: bool,
    use_bw: bool,
    /// Segments per second; 0 when none.
    bw: f64,
    rtt_cnt: u32,
    last_stamp_ms: u64,
    last_delivered: u64,
    last_lost: u64,
}

pub struct Bbr1 {
    rng: Rng,
    /// Long-term bandwidth (policer) detection on.
    lt_enabled: bool,
    /// min_rtt filter window, also the ProbeRTT interval (`bbr_min_rtt_win_sec`).
    min_rtt_win: Time,
    mss: u32,

    mode: Mode,
    pacing_gain: u32,
    cwnd_gain: u32,
    /// Bottleneck bandwidth max filter, segments per second over `rtt_cnt` rounds.
    bw: WindowedFilter,
    rtt_cnt: u64,
    next_rtt_delivered: u64,
    round_start: bool,
    /// Time of the latest delivery (Linux `tp->delivered_mstamp`).
    delivered_mstamp: Time,

    min_rtt: Option<Time>,
    min_rtt_stamp: Time,
    probe_rtt: ProbeRttHold,
    idle_restart: bool,

    prior_cwnd: u32,
    prev_ca_state: CaState,
    packet_conservation: bool,
    has_seen_rtt: bool,

    full_bw_reached: bool,
    full_bw: f64,
    full_bw_cnt: u32,

    cycle_idx: usize,
    cycle_mstamp: Time,

    ack_aggregation: AckAggregation,

    lt: LongTerm,

    /// ProbeRTT marks the socket application-limited (Linux sets `tp->app_limited`), which the
    /// socket's sampler cannot be told; emulated here: segments sent while `delivered` was in
    /// `[from, to)` carry the mark, and the mark lifts once `delivered` passes `until`.
    app_limited_from: u64,
    app_limited_to: u64,
    app_limited_until: u64,
}

impl Bbr1 {
    pub fn new(lt_bw: bool, min_rtt_win: Time, rng: Rng) -> Self {
        Bbr1 {
            rng,
            lt_enabled: lt_bw,
            min_rtt_win,
            mss: 1448,
            mode: Mode::Startup,
            pacing_gain: HIGH_GAIN,
            cwnd_gain: HIGH_GAIN,
            bw: WindowedFilter::max(),
            rtt_cnt: 0,
            next_rtt_delivered: 0,
            round_start: false,
            delivered_mstamp: 0,
            min_rtt: None,
            min_rtt_stamp: 0,
            probe_rtt: ProbeRttHold::default(),
            idle_restart: false,
            prior_cwnd: 0,
            prev_ca_state: CaState::Open,
            packet_conservation: false,
            has_seen_rtt: false,
            full_bw_reached: false,
            full_bw: 0.0,
            full_bw_cnt: 0,
            cycle_idx: 0,
            cycle_mstamp: 0,
            ack_aggregation: AckAggregation::new(US),
            lt: LongTerm::default(),
            app_limited_from: 0,
            app_limited_to: 0,
            app_limited_until: 0,
        }
    }

    /// BBRv1 as `c` (a configuration of [`BBR1`]) sets it, with its own random stream.
    pub fn of(c: &Config, env: &mut CcEnv) -> Self {
        let window = (c.real("probe_rtt_interval") * SEC as f64).round() as Time;
        Bbr1::new(c.flag("lt_bw"), window, Rng::stream(env.rng.next_u64(), "bbr1"))
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }

    pub fn cycle_idx(&self) -> usize {
        self.cycle_idx
    }

    pub fn full_bw_reached(&self) -> bool {
        self.full_bw_reached
    }

    /// Windowed max bandwidth in segments per second.
    pub fn max_bw(&self) -> f64 {
        self.bw.get()
    }

    /// The bandwidth BBR uses: the long-term rate when policed, else the max filter.
    pub fn bw(&self) -> f64 {
        if self.lt.use_bw {
            self.lt.bw
        } else {
            self.max_bw()
        }
    }

    pub fn min_rtt(&self) -> Option<Time> {
        self.min_rtt
    }

    pub fn pacing_gain(&self) -> f64 {
        gain_f(self.pacing_gain)
    }

    pub fn cwnd_gain(&self) -> f64 {
        gain_f(self.cwnd_gain)
    }

    /// True while the long-term (policed) rate is in use.
    pub fn lt_use_bw(&self) -> bool {
        self.lt.use_bw
    }

    /// Linux `bbr_rate_bytes_per_sec`: bytes per second for `bw` at `gain`, less the margin.
    fn rate_bytes_per_sec(&self, bw: f64, gain: u32) -> f64 {
        bw * f64::from(self.mss) * gain_f(gain) * (100.0 - PACING_MARGIN_PERCENT) / 100.0
    }

    fn init_pacing_rate_from_rtt(&mut self, s: &mut CcState) {
        let rtt = if s.srtt > 0 {
            self.has_seen_rtt = true;
            s.srtt
        } else {
            MS
        };
        let bw = f64::from(s.cwnd) * SEC as f64 / rtt as f64;
        s.pacing_rate = self.rate_bytes_per_sec(bw, HIGH_GAIN) as u64;
    }

    fn set_pacing_rate(&mut self, s: &mut CcState, bw: f64, gain: u32) {
        let rate = self.rate_bytes_per_sec(bw, gain) as u64;
        if !self.has_seen_rtt && s.srtt > 0 {
            self.init_pacing_rate_from_rtt(s);
        }
        if self.full_bw_reached || rate > s.pacing_rate {
            s.pacing_rate = rate;
        }
    }

    /// Linux `bbr_tso_segs_goal`: segments per TSO burst at the current pacing rate.
    fn tso_segs_goal(&self, s: &CcState) -> u32 {
        let min_segs = if s.pacing_rate < MIN_TSO_RATE / 8 { 1 } else { 2 };
        let bytes = (s.pacing_rate >> PACING_SHIFT).min(GSO_MAX_BYTES);
        let segs = (bytes / u64::from(s.mss.max(1))) as u32;
        segs.max(min_segs).min(0x7f)
    }

    fn save_cwnd(&mut self, s: &CcState) {
        if rank(self.prev_ca_state) < rank(CaState::Recovery) && self.mode != Mode::ProbeRtt {
            self.prior_cwnd = s.cwnd;
        } else {
            self.prior_cwnd = self.prior_cwnd.max(s.cwnd);
        }
    }

    /// `gain * bw * min_rtt` rounded up, in segments (Linux `bbr_bdp`).
    fn bdp(&self, bw: f64, gain: u32) -> u32 {
        let Some(min_rtt) = self.min_rtt else { return TCP_INIT_CWND };
        let w = bw * min_rtt as f64 / SEC as f64 * gain_f(gain);
        // Round up, without letting float noise in the last bit add a segment.
        (w - 1e-9).ceil().max(0.0) as u32
    }

    fn quantization_budget(&self, s: &CcState, cwnd: u32) -> u32 {
        let mut cwnd = cwnd + 3 * self.tso_segs_goal(s);
        cwnd = (cwnd + 1) & !1;
        if self.mode == Mode::ProbeBw && self.cycle_idx == 0 {
            cwnd += 2;
        }
        cwnd
    }

    fn inflight(&self, s: &CcState, bw: f64, gain: u32) -> u32 {
        self.quantization_budget(s, self.bdp(bw, gain))
    }

    /// Linux `bbr_packets_in_net_at_edt`: the flight when the next paced packet leaves (what
    /// the bottleneck delivers until then is no longer in the network), with that packet's
    /// burst counted while inflight is to grow.
    fn packets_in_net_at_edt(&self, s: &CcState, inflight_now: u32) -> u32 {
        let at_edt = if self.pacing_gain > UNIT { inflight_now + self.tso_segs_goal(s) } else { inflight_now };
        at_edt.saturating_sub(s.delivered_before_departure(self.bw()))
    }

    fn ack_aggregation_cwnd(&self) -> u32 {
        if !self.full_bw_reached {
            return 0;
        }
        let max_aggr = (self.bw() * EXTRA_ACKED_MAX as f64 / SEC as f64) as u32;
        self.ack_aggregation.max().min(max_aggr)
    }

    fn advance_cycle_phase(&mut self) {
        self.cycle_idx = (self.cycle_idx + 1) % CYCLE.len();
        self.cycle_mstamp = self.delivered_mstamp;
    }

    fn reset_probe_bw_mode(&mut self) {
        self.mode = Mode::ProbeBw;
        self.cycle_idx = CYCLE.len() - 1 - self.rng.below(CYCLE_RAND) as usize;
        self.advance_cycle_phase();
    }

    fn reset_mode(&mut self) {
        if self.full_bw_reached {
            self.reset_probe_bw_mode();
        } else {
            self.mode = Mode::Startup;
        }
    }

    fn reset_lt_interval(&mut self, s: &CcState) {
        self.lt.last_stamp_ms = self.delivered_mstamp / MS;
        self.lt.last_delivered = s.delivered;
        self.lt.last_lost = s.lost;
        self.lt.rtt_cnt = 0;
    }

    fn reset_lt(&mut self, s: &CcState) {
        self.lt.bw = 0.0;
        self.lt.use_bw = false;
        self.lt.is_sampling = false;
        self.reset_lt_interval(s);
    }

    fn lt_interval_done(&mut self, s: &CcState, bw: f64) {
        if self.lt.bw > 0.0 {
            let diff = (bw - self.lt.bw).abs();
            if diff * f64::from(UNIT) <= f64::from(LT_BW_RATIO) * self.lt.bw
                || self.rate_bytes_per_sec(diff, UNIT) <= LT_BW_DIFF
            {
                // Two consistent lossy intervals: take it that a policer sets the rate.
                self.lt.bw = (bw + self.lt.bw) / 2.0;
                self.lt.use_bw = true;
                self.pacing_gain = UNIT;
                self.lt.rtt_cnt = 0;
                return;
            }
        }
        self.lt.bw = bw;
        self.reset_lt_interval(s);
    }

    /// Linux `bbr_lt_bw_sampling`: find two consecutive lossy intervals of similar throughput.
    fn lt_bw_sampling(&mut self, s: &CcState, losses: u32, is_app_limited: bool) {
        if !self.lt_enabled {
            return;
        }
        if self.lt.use_bw {
            if self.mode == Mode::ProbeBw && self.round_start {
                self.lt.rtt_cnt += 1;
                if self.lt.rtt_cnt >= LT_BW_MAX_RTTS {
                    self.reset_lt(s);
                    self.reset_probe_bw_mode();
                }
            }
            return;
        }
        // Start sampling at the first loss, once a policer would have used up its tokens.
        if !self.lt.is_sampling {
            if losses == 0 {
                return;
            }
            self.reset_lt_interval(s);
            self.lt.is_sampling = true;
        }
        if is_app_limited {
            self.reset_lt(s);
            return;
        }
        if self.round_start {
            self.lt.rtt_cnt += 1;
        }
        if self.lt.rtt_cnt < LT_INTVL_MIN_RTTS {
            return;
        }
        if self.lt.rtt_cnt > 4 * LT_INTVL_MIN_RTTS {
            self.reset_lt(s);
            return;
        }
        // End the interval at a loss, when the policer's tokens are surely exhausted.
        if losses == 0 {
            return;
        }
        let lost = s.lost - self.lt.last_lost;
        let delivered = s.delivered - self.lt.last_delivered;
        if delivered == 0 || (lost << 8) < LT_LOSS_THRESH * delivered {
            return;
        }
        let t_ms = (self.delivered_mstamp / MS).saturating_sub(self.lt.last_stamp_ms);
        if t_ms < 1 {
            return;
        }
        let bw = delivered as f64 * 1000.0 / t_ms as f64;
        self.lt_interval_done(s, bw);
    }

    fn update_bw(&mut self, s: &CcState, rs: &Sample) {
        self.round_start = false;
        if !rs.valid {
            return;
        }
        if rs.prior_delivered >= self.next_rtt_delivered {
            self.next_rtt_delivered = s.delivered;
            self.rtt_cnt += 1;
            self.round_start = true;
            self.packet_conservation = false;
        }
        self.lt_bw_sampling(s, rs.losses, rs.is_app_limited);
        // App-limited samples say more about the application than the path, unless higher.
        if !rs.is_app_limited || rs.bw >= self.max_bw() {
            self.bw.update(BW_RTTS, self.rtt_cnt, rs.bw);
        }
    }

    /// Linux `bbr_update_ack_aggregation`: how far deliveries ran ahead of the estimated rate,
    /// max-filtered over two windows of [`EXTRA_ACKED_WIN_RTTS`] rounds, on Linux's clock of
    /// the latest delivery in whole microseconds.
    fn update_ack_aggregation(&mut self, s: &CcState, rs: &Sample) {
        if rs.acked == 0 || !rs.valid {
            return;
        }
        let now = self.delivered_mstamp;
        self.ack_aggregation.update(self.round_start, EXTRA_ACKED_WIN_RTTS, now, self.bw(), rs.acked, s.cwnd);
    }

    fn is_next_cycle_phase(&self, s: &CcState, rs: &Sample) -> bool {
        let elapsed = self.delivered_mstamp.saturating_sub(self.cycle_mstamp);
        let is_full_length = self.min_rtt.is_some_and(|m| elapsed > m);
        if self.pacing_gain == UNIT {
            return is_full_length;
        }
        let inflight = self.packets_in_net_at_edt(s, rs.prior_in_flight);
        let bw = self.max_bw();
        if self.pacing_gain > UNIT {
            // Probe until inflight reaches gain * BDP, unless losses say it will not fit.
            is_full_length && (rs.losses > 0 || inflight >= self.inflight(s, bw, self.pacing_gain))
        } else {
            // Drain the probe's queue, but stop once inflight is down to one BDP.
            is_full_length || inflight <= self.inflight(s, bw, UNIT)
        }
    }

    fn check_full_bw_reached(&mut self, rs: &Sample) {
        if self.full_bw_reached || !self.round_start || rs.is_app_limited {
            return;
        }
        let thresh = self.full_bw * gain_f(FULL_BW_THRESH);
        if self.max_bw() >= thresh {
            self.full_bw = self.max_bw();
            self.full_bw_cnt = 0;
            return;
        }
        self.full_bw_cnt += 1;
        self.full_bw_reached = self.full_bw_cnt >= FULL_BW_CNT;
    }

    fn check_drain(&mut self, s: &mut CcState) {
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.mode = Mode::Drain;
            s.ssthresh = self.inflight(s, self.max_bw(), UNIT);
        }
        if self.mode == Mode::Drain
            && self.packets_in_net_at_edt(s, s.packets_in_flight) <= self.inflight(s, self.max_bw(), UNIT)
        {
            self.reset_probe_bw_mode();
        }
    }

    fn check_probe_rtt_done(&mut self, s: &mut CcState) {
        if !self.probe_rtt.is_over(s.now) {
            return;
        }
        // Wait a full window before the next ProbeRTT.
        self.min_rtt_stamp = s.now;
        s.cwnd = s.cwnd.max(self.prior_cwnd);
        self.reset_mode();
    }

    fn update_min_rtt(&mut self, s: &mut CcState, rs: &Sample) {
        let filter_expired = s.now > self.min_rtt_stamp + self.min_rtt_win;
        if let Some(rtt) = rs.rtt {
            if self.min_rtt.is_none_or(|m| rtt < m) || filter_expired {
                self.min_rtt = Some(rtt);
                self.min_rtt_stamp = s.now;
            }
        }
        if filter_expired && !self.idle_restart && self.mode != Mode::ProbeRtt {
            self.mode = Mode::ProbeRtt;
            self.save_cwnd(s);
            self.probe_rtt.enter();
        }
        if self.mode == Mode::ProbeRtt {
            // Ignore the low delivery rates of this mode: mark what is sent now app-limited.
            if self.app_limited_until == 0 && self.app_limited_to != u64::MAX {
                self.app_limited_from = s.delivered;
                self.app_limited_to = u64::MAX;
            }
            self.app_limited_until = (s.delivered + u64::from(s.packets_in_flight)).max(1);
            // Hold the minimum flight for max(200 ms, 1 round).
            if self.probe_rtt.on_ack(s, CWND_MIN, PROBE_RTT_TIME, self.round_start, &mut self.next_rtt_delivered) {
                self.check_probe_rtt_done(s);
            }
        }
        if rs.delivered > 0 {
            self.idle_restart = false;
        }
    }

    fn update_gains(&mut self) {
        (self.pacing_gain, self.cwnd_gain) = match self.mode {
            Mode::Startup => (HIGH_GAIN, HIGH_GAIN),
            Mode::Drain => (DRAIN_GAIN, HIGH_GAIN),
            Mode::ProbeBw => (if self.lt.use_bw { UNIT } else { CYCLE[self.cycle_idx] }, CWND_GAIN),
            Mode::ProbeRtt => (UNIT, UNIT),
        };
    }

    /// Linux `bbr_set_cwnd_to_recover_or_restore`; returns the cwnd and whether packet
    /// conservation decides it.
    fn recover_or_restore(&mut self, s: &CcState, rs: &Sample) -> (u32, bool) {
        let (prev, state) = (self.prev_ca_state, s.ca_state);
        let mut cwnd = s.cwnd;
        if rs.losses > 0 {
            cwnd = cwnd.saturating_sub(rs.losses).max(1);
        }
        if state == CaState::Recovery && prev != CaState::Recovery {
            // First round of Recovery: send one segment per segment delivered.
            self.packet_conservation = true;
            self.next_rtt_delivered = s.delivered;
            cwnd = s.packets_in_flight + rs.acked;
        } else if rank(prev) >= rank(CaState::Recovery) && rank(state) < rank(CaState::Recovery) {
            cwnd = cwnd.max(self.prior_cwnd);
            self.packet_conservation = false;
        }
        self.prev_ca_state = state;
        if self.packet_conservation {
            return (cwnd.max(s.packets_in_flight + rs.acked), true);
        }
        (cwnd, false)
    }

    fn set_cwnd(&mut self, s: &mut CcState, rs: &Sample, bw: f64, gain: u32) {
        let mut cwnd = s.cwnd;
        if rs.acked > 0 {
            let (c, conserving) = self.recover_or_restore(s, rs);
            cwnd = c;
            if !conserving {
                let target = self.bdp(bw, gain) + self.ack_aggregation_cwnd();
                let target = self.quantization_budget(s, target);
                if self.full_bw_reached {
                    cwnd = (cwnd + rs.acked).min(target);
                } else if cwnd < target || s.delivered < u64::from(TCP_INIT_CWND) {
                    cwnd += rs.acked;
                }
                cwnd = cwnd.max(CWND_MIN);
            }
        }
        s.cwnd = cwnd.min(s.cwnd_clamp);
        if self.mode == Mode::ProbeRtt {
            s.cwnd = s.cwnd.min(CWND_MIN);
        }
    }

    /// This ACK's view for BBR, applying the ProbeRTT app-limited marking.
    fn sample(&mut self, s: &CcState, ack: &AckSample) -> Sample {
        let r = &ack.rate;
        if self.app_limited_until != 0 && s.delivered > self.app_limited_until {
            self.app_limited_until = 0;
            if self.app_limited_to == u64::MAX {
                self.app_limited_to = s.delivered;
            }
        }
        let marked = r.prior_delivered >= self.app_limited_from && r.prior_delivered < self.app_limited_to;
        let valid = r.is_valid();
        Sample {
            valid,
            bw: if valid { r.delivered as f64 * SEC as f64 / r.interval as f64 } else { 0.0 },
            delivered: r.delivered,
            prior_delivered: r.prior_delivered,
            is_app_limited: r.is_app_limited || marked,
            acked: ack.acked,
            losses: ack.newly_lost,
            prior_in_flight: s.packets_in_flight + ack.acked + ack.newly_lost,
            rtt: ack.rtt,
        }
    }
}

impl CongestionControl for Bbr1 {
    fn name(&self) -> &'static str {
        "bbr1"
    }

    fn init(&mut self, s: &mut CcState) {
        self.mss = s.mss;
        self.prior_cwnd = 0;
        s.ssthresh = u32::MAX;
        self.rtt_cnt = 0;
        self.next_rtt_delivered = s.delivered;
        self.prev_ca_state = CaState::Open;
        self.packet_conservation = false;
        self.probe_rtt = ProbeRttHold::default();
        self.min_rtt = (s.min_rtt > 0).then_some(s.min_rtt);
        self.min_rtt_stamp = s.now;
        self.bw = WindowedFilter::max();
        self.has_seen_rtt = false;
        self.init_pacing_rate_from_rtt(s);
        self.round_start = false;
        self.idle_restart = false;
        self.full_bw_reached = false;
        self.full_bw = 0.0;
        self.full_bw_cnt = 0;
        self.cycle_mstamp = 0;
        self.cycle_idx = 0;
        self.delivered_mstamp = s.now;
        self.reset_lt(s);
        self.mode = Mode::Startup;
        self.update_gains();
        self.ack_aggregation.reset(s.now);
    }

    fn on_ack(&mut self, s: &mut CcState, ack: &AckSample) {
        if ack.acked > 0 {
            self.delivered_mstamp = s.now;
        }
        let rs = self.sample(s, ack);
        self.update_bw(s, &rs);
        self.update_ack_aggregation(s, &rs);
        if self.mode == Mode::ProbeBw && self.is_next_cycle_phase(s, &rs) {
            self.advance_cycle_phase();
        }
        self.check_full_bw_reached(&rs);
        self.check_drain(s);
        self.update_min_rtt(s, &rs);
        self.update_gains();

        let bw = self.bw();
        self.set_pacing_rate(s, bw, self.pacing_gain);
        self.set_cwnd(s, &rs, bw, self.cwnd_gain);
    }

    fn cong_avoid(&mut self, _s: &mut CcState, _acked: u32) {}

    /// Linux `bbr_ssthresh`: remember the cwnd to restore after the episode; ssthresh unchanged.
    fn ssthresh(&mut self, s: &CcState) -> u32 {
        self.save_cwnd(s);
        s.ssthresh
    }

    fn on_state(&mut self, s: &mut CcState, new: CaState) {
        if new == CaState::Loss {
            self.prev_ca_state = CaState::Loss;
            self.full_bw = 0.0;
            // Treat the timeout like the end of a round.
            self.round_start = true;
            self.lt_bw_sampling(s, 1, false);
        }
    }

    /// Linux `CA_EVENT_TX_START`. The socket calls this only after it ran out of data with
    /// nothing in flight, i.e. when Linux's `tp->app_limited` is set.
    fn on_tx_restart(&mut self, s: &mut CcState, _idle: Time) {
        self.idle_restart = true;
        self.ack_aggregation.restart_epoch(s.now);
        match self.mode {
            // Restarting app-limited from idle: pace at the estimated rate, no faster.
            Mode::ProbeBw => self.set_pacing_rate(s, self.bw(), UNIT),
            Mode::ProbeRtt => self.check_probe_rtt_done(s),
            _ => {}
        }
    }

    fn owns_cwnd(&self) -> bool {
        true
    }

    fn needs_pacing(&self) -> bool {
        true
    }

    fn vars(&self, out: &mut Vec<CcVar>) {
        out.push(("bbr_state", f64::from(self.mode as u8)));
        out.push(("bbr_cycle_idx", self.cycle_idx as f64));
        out.push(("bbr_bw_mbps", self.bw() * f64::from(self.mss) * 8.0 / 1e6));
        out.push(("bbr_min_rtt_ms", self.min_rtt.map_or(f64::NAN, |m| m as f64 / MS as f64)));
        out.push(("bbr_pacing_gain", self.pacing_gain()));
        out.push(("bbr_cwnd_gain", self.cwnd_gain()));
        out.push(("bbr_full_bw_reached", f64::from(u8::from(self.full_bw_reached))));
    }
}

#[cfg(test)]
mod tests;
