//! The constant sets of the BBR family. Values are written as the real numbers the sources
//! intend; Linux stores gains in 1/256 units (e.g. 2.885 becomes 739/256 = 2.887, 1/2.885
//! becomes 88/256 = 0.344, 2 % becomes 5/256 = 1.95 %), a rounding airlab does not copy.
//!
//! Sources: `V2ALPHA` from Google's `tcp_bbr2.c` (v2alpha branch), `V3_LINUX` from Google's
//! BBRv3 `tcp_bbr.c`, `V3_IETF` from draft-ietf-ccwg-bbr-06 (section 2 parameters, the
//! Startup and Drain sections and the ProbeBW gain table), `NS3_LANIGAN` from the ns-3 BBRv2
//! port in lanigan23/BBRv2-Eval-ns-3 (`tcp-bbr.{cc,h}`, 2020; docs/models/bbr.md).

use crate::sim::{Time, MS, SEC};

/// Which generation's logic to run where v2alpha and v3 differ in more than a constant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Generation {
    /// v2alpha: full-pipe test on the max filter at round starts; ProbeBW UP ends on
    /// inflight >= 1.25 BDP after one min_rtt.
    V2Alpha,
    /// v3: full-pipe test on each bandwidth sample, reused in ProbeBW UP to stop probing once
    /// bandwidth plateaus; ECN reprobing; Startup's loss exit keeps the last round's inflight.
    V3,
}

/// Whose code the logic follows where two codebases of one generation differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Implementation {
    /// Google's Linux code (`tcp_bbr2.c`, v3 `tcp_bbr.c`); the IETF set runs it too.
    Linux,
    /// Port A: the ns-3 BBRv2 of lanigan23/BBRv2-Eval-ns-3, a v2 ProbeBW state machine inside
    /// Vivek Jain's ns-3 BBRv1. Its differences in logic are switches named after the port's
    /// functions (see docs/models/bbr.md, "The ns-3 port").
    Ns3Lanigan,
}

/// The cwnd gain in ProbeBW.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ProbeBwCwndGain {
    /// Set with each phase (Linux `bbr_update_gains`): `up` in UP, `outside_up` otherwise.
    PerPhase { outside_up: f64, up: f64 },
    /// Never set in ProbeBW: the gain that Drain (the high gain) or ProbeRTT (1) left stays.
    /// Port A's `EnterProbeBW` sets no cwnd gain for BBRv2 and its `SetCycleIndex` changes the
    /// pacing gain only.
    Kept,
}

/// When CRUISE (or DOWN) ends and a bandwidth probe starts, besides the Reno-coexistence bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProbeWait {
    /// Linux `bbr2_pick_probe_wait`: `base` plus a uniform draw in [0, `rand`) after DOWN began.
    WallClock { base: Time, rand: Time },
    /// Port A's `IsTimeToProbe`: one min_rtt after DOWN began.
    MinRtt,
}

/// The bandwidth filter that pacing and cwnd use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MaxBwFilter {
    /// v2/v3: the max delivery rate of the current and the previous ProbeBW cycle (`bw_hi`).
    ProbeCycles,
    /// BBRv1's windowed max over this many rounds (port A's `m_maxBwFilter`, `UpdateBtlBw`).
    /// The two-cycle filter then holds snapshots of it and serves the target inflight only.
    Rounds(u32),
}

/// The RTT that the min_rtt filter takes on each ACK.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MinRttSource {
    /// The ACK's RTT sample (Linux `rs->rtt_us`).
    Sample,
    /// The socket's smoothed RTT: port A's `UpdateRTprop` reads `tcb->m_lastRtt`, which that
    /// ns-3 tree sets to the RTT estimator's estimate (`EstimateRtt`: `m_rtt->GetEstimate ()`).
    Smoothed,
}

/// One constant set. Gains are multipliers of the bandwidth or of the BDP.
#[derive(Clone, Debug, PartialEq)]
pub struct Constants {
    /// Name of the set as written in scenarios (`constants = "..."`).
    pub name: &'static str,
    pub generation: Generation,
    pub implementation: Implementation,
    pub startup_pacing_gain: f64,
    pub startup_cwnd_gain: f64,
    pub drain_pacing_gain: f64,
    /// Leave Drain after this many rounds even if inflight is still above the BDP (draft-05+).
    pub drain_max_rounds: Option<u32>,
    pub probe_bw_cwnd_gain: ProbeBwCwndGain,
    pub pacing_gain_down: f64,
    pub pacing_gain_cruise: f64,
    pub pacing_gain_refill: f64,
    pub pacing_gain_up: f64,
    /// v2alpha only: UP ends once inflight reaches this multiple of the BDP.
    pub bw_probe_pif_gain: f64,
    /// cwnd in ProbeRTT as a multiple of the BDP.
    pub probe_rtt_cwnd_gain: f64,
    /// ProbeRTT is due when no RTT sample matched the recent minimum for this long.
    pub probe_rtt_interval: Time,
    pub probe_rtt_duration: Time,
    pub min_rtt_window: Time,
    /// Bandwidth growth that counts as "still growing" in Startup (and v3 UP).
    pub full_bw_thresh: f64,
    /// Rounds without such growth after which the pipe is full.
    pub full_bw_cnt: u32,
    /// Lossy ACKs in a Recovery round (with loss above `loss_thresh`) that end Startup.
    pub full_loss_cnt: u32,
    /// Rounds with a CE ratio above `ecn_thresh` that end Startup.
    pub full_ecn_cnt: u32,
    pub loss_thresh: f64,
    /// Fraction of bw_lo / inflight_lo kept on a round with loss (Linux cuts by `bbr_beta` =
    /// 30 %, i.e. keeps 0.7).
    pub beta: f64,
    /// Fraction of inflight_hi left unused when cruising.
    pub inflight_headroom: f64,
    /// The headroom is at least this many packets (Linux 1; port A's `InflightWithHeadroom` 0).
    pub inflight_headroom_min: u32,
    pub ecn_alpha_gain: f64,
    pub ecn_factor: f64,
    pub ecn_thresh: f64,
    /// Use ECN only when min_rtt is at most this (Linux `bbr_ecn_max_rtt_us`).
    pub ecn_max_rtt: Time,
    /// After a cycle with ECN but no loss, reprobe starting at this fraction of inflight_hi.
    pub ecn_reprobe_gain: f64,
    /// Reno-coexistence bound on rounds between bandwidth probes.
    pub bw_probe_max_rounds: u32,
    /// The round count starts at a uniform draw in [0, this).
    pub bw_probe_rand_rounds: u32,
    pub probe_wait: ProbeWait,
    pub max_bw_filter: MaxBwFilter,
    pub min_rtt_source: MinRttSource,
    pub extra_acked_gain: f64,
    /// Rounds per half of the two-slot extra_acked max filter.
    pub extra_acked_win_rtts: u32,
    /// extra_acked is capped at bw times this.
    pub extra_acked_max: Time,
    pub pacing_margin: f64,
    pub min_cwnd: u32,
    /// Draft recovery: packet conservation for the first round of Fast Recovery and cwnd
    /// restored on leaving it (Linux v2alpha and v3 do neither; both restore after an RTO).
    pub draft_recovery: bool,
}

/// Google's v2alpha (`tcp_bbr2.c`).
pub const V2ALPHA: Constants = Constants {
    name: "v2alpha",
    generation: Generation::V2Alpha,
    implementation: Implementation::Linux,
    startup_pacing_gain: 2.885,
    startup_cwnd_gain: 2.885,
    drain_pacing_gain: 1.0 / 2.885,
    drain_max_rounds: None,
    probe_bw_cwnd_gain: ProbeBwCwndGain::PerPhase { outside_up: 2.0, up: 2.0 },
    pacing_gain_down: 0.75,
    pacing_gain_cruise: 1.0,
    pacing_gain_refill: 1.0,
    pacing_gain_up: 1.25,
    bw_probe_pif_gain: 1.25,
    probe_rtt_cwnd_gain: 0.5,
    probe_rtt_interval: 5 * SEC,
    probe_rtt_duration: 200 * MS,
    min_rtt_window: 10 * SEC,
    full_bw_thresh: 1.25,
    full_bw_cnt: 3,
    full_loss_cnt: 8,
    full_ecn_cnt: 2,
    loss_thresh: 0.02,
    beta: 0.7,
    inflight_headroom: 0.15,
    inflight_headroom_min: 1,
    ecn_alpha_gain: 1.0 / 16.0,
    ecn_factor: 1.0 / 3.0,
    ecn_thresh: 0.5,
    ecn_max_rtt: 5 * MS,
    ecn_reprobe_gain: 0.0,
    bw_probe_max_rounds: 63,
    bw_probe_rand_rounds: 2,
    probe_wait: ProbeWait::WallClock { base: 2 * SEC, rand: SEC },
    max_bw_filter: MaxBwFilter::ProbeCycles,
    min_rtt_source: MinRttSource::Sample,
    extra_acked_gain: 1.0,
    extra_acked_win_rtts: 5,
    extra_acked_max: 100 * MS,
    pacing_margin: 0.01,
    min_cwnd: 4,
    draft_recovery: false,
};

/// Google's BBRv3 (`tcp_bbr.c` on the v3 branch); the default of `bbr3`. Written as what v3
/// changed from v2alpha: its logic, Startup's gains, a shallower ProbeBW DOWN, a larger cwnd
/// gain in UP, Startup's loss exit after 6 loss events, and ECN reprobing.
pub const V3_LINUX: Constants = Constants {
    name: "linux",
    generation: Generation::V3,
    startup_pacing_gain: 2.77,
    startup_cwnd_gain: 2.0,
    probe_bw_cwnd_gain: ProbeBwCwndGain::PerPhase { outside_up: 2.0, up: 2.25 },
    pacing_gain_down: 0.91,
    full_loss_cnt: 6,
    ecn_reprobe_gain: 0.5,
    ..V2ALPHA
};

/// draft-ietf-ccwg-bbr-06: v3's logic with the draft's constants, Drain's 3-round exit and
/// the draft's recovery handling.
pub const V3_IETF: Constants = Constants {
    name: "ietf",
    startup_pacing_gain: 2.77,
    drain_pacing_gain: 0.5,
    drain_max_rounds: Some(3),
    pacing_gain_down: 0.90,
    extra_acked_win_rtts: 10,
    draft_recovery: true,
    ..V3_LINUX
};

/// Port A (lanigan23/BBRv2-Eval-ns-3, `BBRVariant = BBR_V2`, ECN and "experimental" off), as
/// its code has it: the high gain 2.89 (`HighGain`); ProbeBW keeps the cwnd gain; pacing at
/// gain x bw without a margin (`SetPacingRate`); BBRv1's 10-round bandwidth filter; one 10 s
/// min_rtt filter over the smoothed RTT that also schedules ProbeRTT, at 4 packets
/// (`m_minPipeCwnd`); a probe one min_rtt after DOWN began; no ACK-aggregation allowance.
/// The loss and ECN constants are written as integer divisions in `tcp-bbr.h` (`3/10`,
/// `2/100`, `15/100`, `1/3`, `1/2`, `1/16`) and so are 0: the loss threshold and headroom are
/// 0, and the cut by beta is 0 (airlab's `beta` is the fraction kept: 1). The rest is
/// v2alpha's: the ProbeBW pacing gains, the UP exit at 1.25 BDP, the full-pipe test, Startup's
/// 8 loss events (which never count: the port's loss rounds never start), 63 rounds, 2 random
/// rounds, the 200 ms ProbeRTT.
pub const NS3_LANIGAN: Constants = Constants {
    name: "ns3-lanigan",
    implementation: Implementation::Ns3Lanigan,
    startup_pacing_gain: 2.89,
    startup_cwnd_gain: 2.89,
    drain_pacing_gain: 1.0 / 2.89,
    probe_bw_cwnd_gain: ProbeBwCwndGain::Kept,
    probe_rtt_cwnd_gain: 0.0,
    probe_rtt_interval: 10 * SEC,
    min_rtt_window: 10 * SEC,
    loss_thresh: 0.0,
    beta: 1.0,
    inflight_headroom: 0.0,
    inflight_headroom_min: 0,
    ecn_alpha_gain: 0.0,
    ecn_factor: 0.0,
    ecn_thresh: 0.0,
    probe_wait: ProbeWait::MinRtt,
    max_bw_filter: MaxBwFilter::Rounds(10),
    min_rtt_source: MinRttSource::Smoothed,
    extra_acked_gain: 0.0,
    pacing_margin: 0.0,
    ..V2ALPHA
};
