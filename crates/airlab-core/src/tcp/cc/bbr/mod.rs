//! BBRv2 (Google's v2alpha) and BBRv3 (Google's Linux v3, or draft-ietf-ccwg-bbr-06's
//! constants): one model-based algorithm family with shared code and per-version constants.
//!
//! The model: a bandwidth estimate (max over the last two ProbeBW cycles, `bw_hi`), a min_rtt
//! estimate (10 s window, refreshed by ProbeRTT every 5 s), long-term bounds on inflight
//! learned from loss and ECN while probing (`inflight_hi`) and short-term bounds cut by
//! loss/ECN while not probing (`bw_lo`, `inflight_lo`). The state machine: Startup, Drain,
//! ProbeBW (DOWN, CRUISE, REFILL, UP) and ProbeRTT. Every ACK updates the model
//! ([`model`]), advances ProbeBW ([`probe_bw`]), then sets the pacing rate and cwnd
//! ([`control`]), in the order of Linux's `bbr_main`.
//!
//! Everything is counted in packets (segments) like Linux; bandwidth is in packets per second.
//! The window's BDP goes through a [`BdpModel`], the seam for variants such as FaiRTT.
//!
//! `bbr2` also models one ns-3 port of BBRv2 ([`NS3_LANIGAN`], `flavour = "ns3-lanigan"`):
//! its numbers are a constant set and its differences in logic are switches on
//! [`Implementation::Ns3Lanigan`], each named after the port's function.

pub mod bdp;
mod control;
mod model;
pub mod params;
mod probe_bw;
#[cfg(test)]
mod tests;

pub use bdp::{BdpModel, BdpObservation, PlainBdp};
pub use params::{
    Constants, Generation, Implementation, MaxBwFilter, MinRttSource, ProbeBwCwndGain, ProbeWait, NS3_LANIGAN, V2ALPHA,
    V3_IETF, V3_LINUX,
};

pub use super::bbr_shared::Mode;
use super::bbr_shared::{AckAggregation, ProbeRttHold};
use super::minmax::WindowedFilter;
use super::{AckSample, Build, CaState, CcEnv, CcState, CcVar, Component, Config, CongestionControl};
use crate::params::{no_check, Invalid, Kind, Param, Value};
use crate::sim::{Rng, Time, MS, SEC};

/// Whether BBRv2/v3 reacts to ECN marks (Linux `bbr_ecn_enable`, off by default).
pub const ECN: Param = Param {
    name: "ecn",
    kind: Kind::Flag,
    default: Value::Flag(false),
    doc: "respond to ECN marks (Linux bbr_ecn_enable, off by default)",
};

/// Which BBRv2 code `bbr2` (and FaiRTT on top of it) models.
pub const FLAVOUR: Param = Param {
    name: "flavour",
    kind: Kind::Choice(&["v2alpha", "ns3-lanigan"]),
    default: Value::Choice("v2alpha"),
    doc: "the BBRv2 code modelled: Google's v2alpha, or the 2020 ns-3 port of lanigan23/BBRv2-Eval-ns-3",
};

pub static BBR2: Component = Component {
    name: "bbr2",
    doc: "BBR version 2 with the v2alpha constants (Google's Linux branch), or an ns-3 port's",
    params: &[ECN, FLAVOUR],
    check: check_bbr2,
    build: Build(|c: &Config, env| Ok(Box::new(Bbr::new("bbr2", v2_constants(c), c.flag("ecn"), env)))),
};

/// The constant set a `flavour` parameter names.
pub fn v2_constants(c: &Config) -> &'static Constants {
    if c.choice("flavour") == "ns3-lanigan" {
        &NS3_LANIGAN
    } else {
        &V2ALPHA
    }
}

/// The ns-3 port's ECN response (its `EnableEcn` attribute) is not modelled.
fn check_bbr2(c: &Config) -> Result<(), Invalid> {
    if c.flag("ecn") && c.choice("flavour") == "ns3-lanigan" {
        return Err(Invalid::new(
            "ecn",
            "the ns3-lanigan flavour models the port without its ECN response; use ecn = false",
        ));
    }
    Ok(())
}

pub static BBR3: Component = Component {
    name: "bbr3",
    doc: "BBR version 3 (Google's Linux branch; or the IETF draft's constants)",
    params: &[
        Param {
            name: "constants",
            kind: Kind::Choice(&["linux", "ietf"]),
            default: Value::Choice("linux"),
            doc: "the constant set: the Linux branch's or draft-ietf-ccwg-bbr's",
        },
        ECN,
    ],
    check: no_check,
    build: Build(|c: &Config, env| Ok(Box::new(Bbr::new("bbr3", v3_constants(c), c.flag("ecn"), env)))),
};

/// The constant set a `bbr3` configuration names.
fn v3_constants(c: &Config) -> &'static Constants {
    if c.choice("constants") == "ietf" {
        &V3_IETF
    } else {
        &V3_LINUX
    }
}
use crate::tcp::rate::TxSnapshot;

/// "Unset" for the u32 bounds (Linux `~0U`).
const INF: u32 = u32::MAX;
/// "No RTT sample yet" (Linux `~0U` for min_rtt_us).
const NO_RTT: Time = Time::MAX;

/// ProbeBW sub-phases, numbered as exported in `bbr_phase`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Down = 0,
    Cruise = 1,
    Refill = 2,
    Up = 3,
}

/// How the incoming ACKs relate to bandwidth probing (Linux `bbr_ack_phase`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AckPhase {
    Init,
    Refilling,
    ProbeStarting,
    ProbeFeedback,
    ProbeStopping,
}

/// One ACK as BBR sees it: Linux's `rate_sample` plus the bandwidth sample.
#[derive(Clone, Copy, Debug, Default)]
struct Sample {
    /// Packets newly delivered by this ACK (`acked_sacked`).
    acked: u32,
    /// Packets newly marked lost by this ACK (`losses`).
    losses: u32,
    /// Rate-sample interval; 0 when the sample is invalid.
    interval: Time,
    /// Packets delivered over the interval.
    delivered: u64,
    prior_delivered: u64,
    tx_in_flight: u32,
    /// Packets marked lost since the newest delivered packet was sent.
    lost: u64,
    delivered_ce: u64,
    ece: bool,
    app_limited: bool,
    /// Packets in flight before this ACK.
    prior_in_flight: u32,
    rtt: Option<Time>,
    /// Bandwidth sample, packets per second (0 when invalid).
    bw: f64,
}

/// A BBRv2/v3 connection.
pub struct Bbr {
    name: &'static str,
    c: Constants,
    /// CE marks are L4S/DCTCP-style and may be used (Linux `bbr_ecn_enable` / `ecn_low`).
    ecn: bool,
    rng: Rng,
    bdp_model: Box<dyn BdpModel>,
    /// Sender MSS, for converting packets to bytes.
    mss: u32,

    mode: Mode,
    phase: Phase,
    pacing_gain: f64,
    cwnd_gain: f64,

    // Packet-timed rounds.
    next_rtt_delivered: u64,
    round_start: bool,
    round_count: u64,
    drain_start_round: u64,

    // Bandwidth model.
    /// The two-cycle max filter; with a round-windowed filter, snapshots of that filter.
    bw_hi: [f64; 2],
    /// BBRv1's windowed max over rounds (`MaxBwFilter::Rounds` only).
    bw_rounds: WindowedFilter,
    bw_lo: f64,
    bw_latest: f64,
    inflight_latest: u32,
    inflight_hi: u32,
    inflight_lo: u32,
    full_bw: f64,
    full_bw_cnt: u32,
    full_bw_now: bool,
    full_bw_reached: bool,

    // min_rtt and ProbeRTT.
    min_rtt: Time,
    min_rtt_stamp: Time,
    probe_rtt_min: Time,
    probe_rtt_min_stamp: Time,
    probe_rtt: ProbeRttHold,
    idle_restart: bool,
    /// Emulates Linux marking the socket app-limited in ProbeRTT: samples of packets sent
    /// while `delivered` was within this range are treated as app-limited.
    app_limited_range: Option<(u64, u64)>,

    // cwnd bookkeeping.
    init_cwnd: u32,
    prior_cwnd: u32,
    prev_ca_state: CaState,
    has_seen_rtt: bool,
    /// Draft recovery: conservation pending (set on entering Recovery) and its end marker.
    conservation_pending: bool,
    conservation_until: Option<u64>,

    // ACK aggregation (extra_acked).
    ack_aggregation: AckAggregation,

    // Loss and ECN signals.
    loss_round_delivered: u64,
    loss_round_start: bool,
    loss_in_round: bool,
    ecn_in_round: bool,
    loss_in_cycle: bool,
    ecn_in_cycle: bool,
    loss_events_in_round: u32,
    ecn_eligible: bool,
    ecn_alpha: f64,
    alpha_last_delivered: u64,
    alpha_last_delivered_ce: u64,
    startup_ecn_rounds: u32,

    // ProbeBW cycle.
    cycle_start: Time,
    ack_phase: AckPhase,
    bw_probe_samples: bool,
    prev_probe_too_high: bool,
    stopped_risky_probe: bool,
    rounds_since_probe: u32,
    probe_wait: Time,
    bw_probe_up_rounds: u32,
    bw_probe_up_cnt: u32,
    bw_probe_up_acks: u32,
}

impl Bbr {
    /// BBR with constant set `c` and BBR's own BDP model.
    pub fn new(name: &'static str, c: &Constants, ecn: bool, env: &mut CcEnv) -> Self {
        Self::with_bdp_model(name, c, ecn, env, Box::new(PlainBdp))
    }

    /// BBR whose windows come from `bdp_model` (the FaiRTT seam). `name` is what the
    /// connection reports (e.g. "fairtt").
    pub fn with_bdp_model(
        name: &'static str,
        c: &Constants,
        ecn: bool,
        env: &mut CcEnv,
        bdp_model: Box<dyn BdpModel>,
    ) -> Self {
        // This connection's stream, re-seeded from the environment's so `env.rng` stays usable.
        let rng = Rng::stream(env.rng.next_u64(), "bbr");
        Bbr {
            name,
            c: c.clone(),
            ecn,
            rng,
            bdp_model,
            mss: 1448,
            mode: Mode::Startup,
            phase: Phase::Down,
            pacing_gain: c.startup_pacing_gain,
            cwnd_gain: c.startup_cwnd_gain,
            next_rtt_delivered: 0,
            round_start: false,
            round_count: 0,
            drain_start_round: 0,
            bw_hi: [0.0; 2],
            bw_rounds: WindowedFilter::max(),
            bw_lo: f64::INFINITY,
            bw_latest: 0.0,
            inflight_latest: 0,
            inflight_hi: INF,
            inflight_lo: INF,
            full_bw: 0.0,
            full_bw_cnt: 0,
            full_bw_now: false,
            full_bw_reached: false,
            min_rtt: NO_RTT,
            min_rtt_stamp: 0,
            probe_rtt_min: NO_RTT,
            probe_rtt_min_stamp: 0,
            probe_rtt: ProbeRttHold::default(),
            idle_restart: false,
            app_limited_range: None,
            init_cwnd: 10,
            prior_cwnd: 0,
            prev_ca_state: CaState::Open,
            has_seen_rtt: false,
            conservation_pending: false,
            conservation_until: None,
            ack_aggregation: AckAggregation::new(1),
            loss_round_delivered: 1,
            loss_round_start: false,
            loss_in_round: false,
            ecn_in_round: false,
            loss_in_cycle: false,
            ecn_in_cycle: false,
            loss_events_in_round: 0,
            ecn_eligible: false,
            ecn_alpha: 1.0,
            alpha_last_delivered: 0,
            alpha_last_delivered_ce: 0,
            startup_ecn_rounds: 0,
            cycle_start: 0,
            ack_phase: AckPhase::Init,
            bw_probe_samples: false,
            prev_probe_too_high: false,
            stopped_risky_probe: false,
            rounds_since_probe: 0,
            probe_wait: 0,
            bw_probe_up_rounds: 0,
            bw_probe_up_cnt: INF,
            bw_probe_up_acks: 0,
        }
    }

    pub fn constants(&self) -> &Constants {
        &self.c
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// The ProbeBW sub-phase (meaningful in ProbeBW only).
    pub fn phase(&self) -> Phase {
        self.phase
    }

    pub fn pacing_gain(&self) -> f64 {
        self.pacing_gain
    }

    pub fn cwnd_gain(&self) -> f64 {
        self.cwnd_gain
    }

    /// inflight_hi in packets, `None` while unset.
    pub fn inflight_hi(&self) -> Option<u32> {
        (self.inflight_hi != INF).then_some(self.inflight_hi)
    }

    /// inflight_lo in packets, `None` while unset.
    pub fn inflight_lo(&self) -> Option<u32> {
        (self.inflight_lo != INF).then_some(self.inflight_lo)
    }

    /// min_rtt estimate, `None` before the first sample.
    pub fn min_rtt(&self) -> Option<Time> {
        (self.min_rtt != NO_RTT).then_some(self.min_rtt)
    }

    /// Max-filtered bandwidth, packets per second: bw_hi, or the windowed max over rounds.
    pub fn max_bw(&self) -> f64 {
        match self.c.max_bw_filter {
            MaxBwFilter::ProbeCycles => self.cycle_max_bw(),
            MaxBwFilter::Rounds(_) => self.bw_rounds.get(),
        }
    }

    /// The max over the current and the previous ProbeBW cycle (bw_hi), packets per second.
    fn cycle_max_bw(&self) -> f64 {
        self.bw_hi[0].max(self.bw_hi[1])
    }

    /// Bandwidth BBR uses: min(max_bw, bw_lo), packets per second.
    pub fn bw(&self) -> f64 {
        self.max_bw().min(self.bw_lo)
    }

    pub fn full_bw_reached(&self) -> bool {
        self.full_bw_reached
    }

    pub fn bdp_model(&self) -> &dyn BdpModel {
        self.bdp_model.as_ref()
    }

    fn is_probing_bandwidth(&self) -> bool {
        self.mode == Mode::Startup || (self.mode == Mode::ProbeBw && matches!(self.phase, Phase::Refill | Phase::Up))
    }

    /// Linux `bbr_save_cwnd`: remember the last good cwnd before a reduction or ProbeRTT.
    fn save_cwnd(&mut self, s: &CcState) {
        let reducing = matches!(self.prev_ca_state, CaState::Recovery | CaState::Loss);
        self.prior_cwnd = if !reducing && self.mode != Mode::ProbeRtt { s.cwnd } else { self.prior_cwnd.max(s.cwnd) };
    }

    fn sample(&self, s: &CcState, ack: &AckSample) -> Sample {
        let rs = &ack.rate;
        let in_probe_rtt_range =
            self.app_limited_range.is_some_and(|(from, to)| (from..=to).contains(&rs.prior_delivered));
        let bw = if rs.interval > 0 { rs.delivered as f64 * SEC as f64 / rs.interval as f64 } else { 0.0 };
        Sample {
            acked: ack.acked,
            losses: ack.newly_lost,
            interval: rs.interval,
            delivered: rs.delivered,
            prior_delivered: rs.prior_delivered,
            tx_in_flight: rs.tx_in_flight,
            lost: rs.lost,
            delivered_ce: rs.delivered_ce,
            ece: ack.ece,
            app_limited: rs.is_app_limited || in_probe_rtt_range,
            // Packets that left the flight on this ACK: delivered or newly marked lost.
            prior_in_flight: s.packets_in_flight + ack.acked + ack.newly_lost,
            rtt: ack.rtt,
            bw,
        }
    }

    /// Linux `bbr_update_round_start`.
    fn update_round_start(&mut self, s: &CcState, rs: &Sample) {
        self.round_start = false;
        if rs.interval > 0 && rs.prior_delivered >= self.next_rtt_delivered {
            self.next_rtt_delivered = s.delivered;
            self.round_start = true;
            self.round_count += 1;
        }
    }
}

impl CongestionControl for Bbr {
    fn name(&self) -> &'static str {
        self.name
    }

    fn init(&mut self, s: &mut CcState) {
        self.mss = s.mss;
        self.init_cwnd = s.cwnd.min(127);
        self.prior_cwnd = 0;
        s.ssthresh = u32::MAX;
        self.next_rtt_delivered = s.delivered;
        self.prev_ca_state = CaState::Open;
        let min_rtt = if s.min_rtt > 0 { s.min_rtt } else { NO_RTT };
        self.probe_rtt_min = min_rtt;
        self.probe_rtt_min_stamp = s.now;
        self.min_rtt = min_rtt;
        self.min_rtt_stamp = s.now;
        self.init_pacing_rate_from_rtt(s);
        self.ack_aggregation.epoch_start = s.now;
        // Start sampling ECN and loss rounds after the first full flight is ACKed.
        self.loss_round_delivered = s.delivered + 1;
        self.ecn_alpha = 1.0;
        self.update_gains();
    }

    fn on_ack(&mut self, s: &mut CcState, ack: &AckSample) {
        let rs = self.sample(s, ack);
        self.update_round_start(s, &rs);
        if self.round_start {
            self.rounds_since_probe = (self.rounds_since_probe + 1).min(255);
            self.update_ecn_alpha(s);
        }
        self.ecn_in_round |= self.ecn_eligible && rs.ece;
        self.update_latest_delivery_signals(s, &rs);

        self.update_model(s, &rs);
        self.bdp_model.on_ack(&BdpObservation {
            now: s.now,
            bw: self.bw(),
            max_bw: self.max_bw(),
            min_rtt: self.min_rtt(),
            rtt: rs.rtt,
            cwnd_gain: self.cwnd_gain,
        });

        self.update_gains();
        let bw = self.bw();
        self.set_pacing_rate(s, bw, self.pacing_gain);
        self.set_cwnd(s, &rs, bw, self.cwnd_gain);
        self.bound_cwnd_for_inflight_model(s);

        self.advance_latest_delivery_signals(&rs);
        self.prev_ca_state = s.ca_state;
        self.loss_in_cycle |= rs.lost > 0;
        self.ecn_in_cycle |= rs.delivered_ce > 0;
    }

    fn cong_avoid(&mut self, _s: &mut CcState, _acked: u32) {}

    /// Linux `bbr2_ssthresh`: remember cwnd for the end of the episode; ssthresh unchanged.
    fn ssthresh(&mut self, s: &CcState) -> u32 {
        self.save_cwnd(s);
        s.ssthresh
    }

    fn on_lost(&mut self, s: &mut CcState, seg: &TxSnapshot) {
        self.note_loss(s);
        if !self.bw_probe_samples {
            return; // not sent while probing for bandwidth
        }
        if self.c.implementation == Implementation::Ns3Lanigan {
            // ns-3's congestion ops get no per-packet loss call: port A sees losses on ACKs only
            // (`AdaptUpperBounds`).
            return;
        }
        // What the flight looked like up to this packet: did loss pass the threshold there?
        let lost = s.lost.saturating_sub(seg.lost);
        if self.is_inflight_too_high(lost, seg.tx_in_flight, 0, 0) {
            let tx_in_flight = self.inflight_hi_from_lost_packet(lost, seg.tx_in_flight);
            self.handle_inflight_too_high(s, seg.app_limited, tx_in_flight);
        }
    }

    fn on_state(&mut self, s: &mut CcState, new: CaState) {
        if new == CaState::Loss {
            // Linux `bbr_set_state` on an RTO.
            self.prev_ca_state = CaState::Loss;
            self.reset_full_bw();
            if !self.is_probing_bandwidth() && self.inflight_lo == INF {
                // The lower bounds need the cwnd from before the RTO.
                self.inflight_lo = s.cwnd.max(self.prior_cwnd);
            }
            self.conservation_until = None;
            return;
        }
        if self.prev_ca_state == CaState::Loss {
            s.cwnd = s.cwnd.max(self.prior_cwnd);
        }
        if self.c.draft_recovery {
            if new == CaState::Recovery {
                self.conservation_pending = true;
            } else if self.prev_ca_state == CaState::Recovery && new == CaState::Open {
                self.conservation_until = None;
                s.cwnd = s.cwnd.max(self.prior_cwnd);
            }
        }
    }

    fn on_tx_restart(&mut self, s: &mut CcState, _idle: Time) {
        // Linux CA_EVENT_TX_START while app-limited.
        self.idle_restart = true;
        self.ack_aggregation.restart_epoch(s.now);
        match self.mode {
            Mode::ProbeBw => self.set_pacing_rate(s, self.bw(), 1.0),
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
        let mbps = |bw: f64, mss: f64| bw * mss * 8.0 / 1e6;
        let pkts = |v: u32| if v == INF { f64::NAN } else { f64::from(v) };
        let mss = f64::from(self.mss);
        out.push(("bbr_state", self.mode as u8 as f64));
        out.push(("bbr_phase", if self.mode == Mode::ProbeBw { self.phase as u8 as f64 } else { f64::NAN }));
        out.push(("bbr_bw_mbps", mbps(self.bw(), mss)));
        out.push(("bbr_min_rtt_ms", self.min_rtt().map_or(f64::NAN, |t| t as f64 / MS as f64)));
        out.push(("bbr_pacing_gain", self.pacing_gain));
        out.push(("bbr_cwnd_gain", self.cwnd_gain));
        out.push(("bbr_inflight_hi", pkts(self.inflight_hi)));
        out.push(("bbr_inflight_lo", pkts(self.inflight_lo)));
        out.push(("bbr_bw_lo_mbps", if self.bw_lo.is_finite() { mbps(self.bw_lo, mss) } else { f64::NAN }));
        self.bdp_model.vars(out);
    }
}
