//! CUBIC (RFC 9438) with Linux `tcp_cubic.c` behaviour wherever the two differ.
//!
//! After a loss the window follows `W_cubic(t) = C (t - K)^3 + W_max`, where `t` runs from the
//! epoch start (the first window-growth ACK after the reduction) and `K` is the time at which
//! the curve returns to `W_max`. Growth is applied through Linux's `cnt` (segments ACKed per
//! one-segment increase) and `tcp_cong_avoid_ai`.
//!
//! Linux choices kept where the RFC says otherwise:
//! - The target is `W_cubic` at `t + delay_min` (CUBIC's own minimum RTT), not `t + SRTT`.
//! - Multiplicative decrease uses cwnd, not the flight size, with Linux's integer
//!   `beta = round(beta * 1024) / 1024` (717/1024 for 0.7) and a floor of 2 segments.
//! - When the target is at or below cwnd, cwnd still creeps up by one segment per
//!   `100 * cwnd` ACKs instead of standing still.
//! - Growth is capped at one segment per 2 ACKs (1.5x per RTT) by `cnt >= 2`; the RFC's cap is
//!   the same 1.5x but expressed on the target.
//! - In the first epoch, with no W_max known, cwnd grows at least 5 % per RTT (`cnt <= 20`).
//! - The Reno-friendly estimate grows by one segment per `cwnd * beta_scale / 8` ACKs with
//!   Linux's integer `beta_scale = 8 (1 + beta) / (3 (1 - beta))` (15 for 717), i.e.
//!   alpha = 3 (1 - beta) / (1 + beta) throughout; the RFC's switch to alpha = 1 once the
//!   estimate passes the pre-loss window is not in Linux.
//! - `cnt` is recomputed only when cwnd changed or 1/32 s passed (Linux's `HZ / 32`).
//! - RTT samples in the first second of an epoch are ignored (they reflect the queue left
//!   by recovery) for both `delay_min` and HyStart.
//! - Slow start uses classic HyStart by default (HyStart++ is selectable).
//!
//! Abstractions: time is continuous nanoseconds instead of jiffies, and `K` and the cubic
//! term are computed in f64 with `C` as given (Linux's fixed point uses 410/1024 ≈ 0.4004).

use super::hystart::{HystartMode, SlowStartExit};
use super::{AckSample, Build, CaState, CcState, CcVar, Component, Config, CongestionControl};
use crate::params::{no_check, Kind, Param, Range, Value};
use crate::sim::{secs, Time, SEC};

pub static CUBIC: Component = Component {
    name: "cubic",
    doc: "CUBIC (RFC 9438, Linux tcp_cubic) with HyStart",
    params: &[
        Param {
            name: "beta",
            // Below 1/1024 the fixed-point beta is 0; at 1 the Reno-friendly rate divides by 0.
            kind: Kind::Real { range: Range { min: 0.001, min_open: false, max: 1.0, max_open: true }, unit: "" },
            default: Value::Real(0.7),
            doc: "multiplicative decrease: cwnd after a loss is beta x cwnd (Linux 717/1024)",
        },
        Param {
            name: "c",
            kind: Kind::Real { range: Range::POSITIVE, unit: "segments/s^3" },
            default: Value::Real(0.4),
            doc: "the cubic constant C",
        },
        Param {
            name: "fast_convergence",
            kind: Kind::Flag,
            default: Value::Flag(true),
            doc: "release bandwidth faster when W_max shrinks (Linux fast_convergence)",
        },
        Param {
            name: "tcp_friendliness",
            kind: Kind::Flag,
            default: Value::Flag(true),
            doc: "grow at least as fast as Reno would (Linux tcp_friendliness)",
        },
        Param {
            name: "hystart",
            kind: Kind::Choice(HystartMode::WORDS),
            default: Value::Choice("classic"),
            doc: "slow-start exit: Linux's HyStart (classic), RFC 9406 (hystart++) or none (off)",
        },
    ],
    check: no_check,
    build: Build(|c: &Config, _| Ok(Box::new(Cubic::of(c)))),
};

/// Fixed-point scale of Linux's `beta`.
const BETA_SCALE: u32 = 1024;

/// The cubic window `C (t - K)^3 + W_max`, in segments, at `t_secs` after the epoch start.
pub fn w_cubic(t_secs: f64, w_max: f64, k: f64, c: f64) -> f64 {
    c * (t_secs - k).powi(3) + w_max
}

/// Time in seconds for the cubic curve to climb from `cwnd` back to `w_max`:
/// `K = cbrt((W_max - cwnd) / C)`, zero when cwnd is already at or above W_max.
pub fn cubic_k(w_max: f64, cwnd: f64, c: f64) -> f64 {
    if cwnd >= w_max {
        0.0
    } else {
        ((w_max - cwnd) / c).cbrt()
    }
}

/// Tunables, fixed for the connection.
#[derive(Clone, Debug)]
struct Params {
    /// Multiplicative decrease factor in 1/1024 (Linux `beta`).
    beta: u32,
    /// Cubic scaling constant C in segments / s^3.
    c: f64,
    fast_convergence: bool,
    tcp_friendliness: bool,
    /// ACKs per Reno-estimate increase, in cwnd/8 units (Linux `beta_scale`).
    beta_scale: u32,
}

/// What CUBIC learned about the path; all of it is forgotten on an RTO.
#[derive(Clone, Debug, Default)]
struct Curve {
    /// Segments to ACK per one-segment cwnd increase.
    cnt: u32,
    /// Window before the last reduction (Linux `last_max_cwnd`); 0 until the first loss.
    w_max: u32,
    /// cwnd and time when `cnt` was last computed.
    last_cwnd: u32,
    last_time: Time,
    /// Start of the current growth epoch; `None` after a reduction until growth resumes.
    epoch_start: Option<Time>,
    /// Plateau of the current curve (`W_max`, or cwnd at epoch start if above it).
    origin: u32,
    /// Seconds from epoch start to the plateau.
    k: f64,
    /// Minimum RTT seen by CUBIC (Linux `delay_min`), 0 before the first sample.
    delay_min: Time,
    /// ACKed segments not yet turned into growth of the Reno estimate.
    ack_cnt: u32,
    /// Reno-friendly window estimate (Linux `tcp_cwnd`).
    reno_cwnd: u32,
}

impl Curve {
    /// Recompute `cnt` for the current cwnd (Linux `bictcp_update`).
    fn update(&mut self, p: &Params, now: Time, cwnd: u32, acked: u32) {
        self.ack_cnt += acked;
        if self.last_cwnd == cwnd && now - self.last_time <= SEC / 32 {
            return;
        }
        self.last_cwnd = cwnd;
        self.last_time = now;

        let epoch_start = match self.epoch_start {
            Some(start) => start,
            None => self.start_epoch(p, now, cwnd, acked),
        };

        // Aim one minimum RTT ahead: the window set now takes effect an RTT later.
        let t = secs(now - epoch_start + self.delay_min);
        let offset = (t - self.k).abs();
        let delta = (p.c * offset.powi(3)) as u32;
        let target = if t < self.k { self.origin.saturating_sub(delta) } else { self.origin.saturating_add(delta) };
        self.cnt = if target > cwnd { cwnd / (target - cwnd) } else { 100 * cwnd };
        // Without a W_max the plateau is a guess; keep probing at 5 % per RTT or more.
        if self.w_max == 0 {
            self.cnt = self.cnt.min(20);
        }

        if p.tcp_friendliness {
            self.reno_friendly_cap(p, cwnd);
        }
        self.cnt = self.cnt.max(2);
    }

    fn start_epoch(&mut self, p: &Params, now: Time, cwnd: u32, acked: u32) -> Time {
        self.epoch_start = Some(now);
        self.ack_cnt = acked;
        self.reno_cwnd = cwnd;
        if self.w_max <= cwnd {
            self.k = 0.0;
            self.origin = cwnd;
        } else {
            self.k = cubic_k(f64::from(self.w_max), f64::from(cwnd), p.c);
            self.origin = self.w_max;
        }
        now
    }

    /// Grow the Reno estimate with the ACKs since the epoch start and, where Reno would be
    /// ahead, speed CUBIC up to close the gap within one RTT.
    fn reno_friendly_cap(&mut self, p: &Params, cwnd: u32) {
        let acks_per_segment = ((u64::from(cwnd) * u64::from(p.beta_scale)) >> 3).max(1);
        let acks_per_segment = u32::try_from(acks_per_segment).unwrap_or(u32::MAX);
        self.reno_cwnd += self.ack_cnt / acks_per_segment;
        self.ack_cnt %= acks_per_segment;
        if self.reno_cwnd > cwnd {
            let reno_cnt = cwnd / (self.reno_cwnd - cwnd);
            self.cnt = self.cnt.min(reno_cnt);
        }
    }
}

#[derive(Clone, Debug)]
pub struct Cubic {
    p: Params,
    curve: Curve,
    slow_start_exit: SlowStartExit,
}

impl Cubic {
    /// `beta` is the multiplicative decrease (0.7), `c` the cubic constant (0.4).
    pub fn new(beta: f64, c: f64, fast_convergence: bool, tcp_friendliness: bool, hystart: HystartMode) -> Self {
        let beta = (beta * f64::from(BETA_SCALE)).round() as u32;
        Cubic {
            p: Params {
                beta,
                c,
                fast_convergence,
                tcp_friendliness,
                beta_scale: 8 * (BETA_SCALE + beta) / 3 / (BETA_SCALE - beta),
            },
            curve: Curve::default(),
            slow_start_exit: SlowStartExit::new(hystart),
        }
    }

    /// CUBIC as `c` (a configuration of [`CUBIC`]) sets it.
    pub fn of(c: &Config) -> Self {
        let hystart = HystartMode::from_word(c.choice("hystart"));
        Cubic::new(c.real("beta"), c.real("c"), c.flag("fast_convergence"), c.flag("tcp_friendliness"), hystart)
    }

    /// Window before the last reduction, in segments.
    pub fn w_max(&self) -> u32 {
        self.curve.w_max
    }

    /// Seconds from the epoch start until the curve reaches its plateau.
    pub fn k(&self) -> f64 {
        self.curve.k
    }

    /// Start of the current epoch, if one is running.
    pub fn epoch_start(&self) -> Option<Time> {
        self.curve.epoch_start
    }
}

impl CongestionControl for Cubic {
    fn name(&self) -> &'static str {
        "cubic"
    }

    fn on_ack(&mut self, s: &mut CcState, ack: &AckSample) {
        let Some(rtt) = ack.rtt else { return };
        let c = &mut self.curve;
        if c.epoch_start.is_some_and(|start| s.now - start < SEC) {
            return;
        }
        let rtt = rtt.max(1);
        if c.delay_min == 0 || rtt < c.delay_min {
            c.delay_min = rtt;
        }
        self.slow_start_exit.on_rtt(s, rtt, c.delay_min);
    }

    fn cong_avoid(&mut self, s: &mut CcState, acked: u32) {
        if !s.is_cwnd_limited {
            return;
        }
        let mut acked = acked;
        if s.in_slow_start() {
            acked = self.slow_start_exit.slow_start(s, acked);
            if acked == 0 {
                return;
            }
        }
        self.curve.update(&self.p, s.now, s.cwnd, acked);
        s.cong_avoid_ai(self.curve.cnt, acked);
    }

    fn ssthresh(&mut self, s: &CcState) -> u32 {
        let cwnd = u64::from(s.cwnd);
        let beta = u64::from(self.p.beta);
        let scale = u64::from(BETA_SCALE);
        self.curve.epoch_start = None;
        // Fast convergence: a flow losing below its previous peak releases bandwidth to
        // newcomers by aiming lower than where it lost.
        self.curve.w_max = if s.cwnd < self.curve.w_max && self.p.fast_convergence {
            (cwnd * (scale + beta) / (2 * scale)) as u32
        } else {
            s.cwnd
        };
        ((cwnd * beta / scale) as u32).max(2)
    }

    fn on_state(&mut self, _s: &mut CcState, new: CaState) {
        // An RTO says nothing survives of the path estimate: forget the curve and min RTT.
        if new == CaState::Loss {
            self.curve = Curve::default();
            self.slow_start_exit.on_rto();
        }
    }

    fn on_tx_restart(&mut self, s: &mut CcState, idle: Time) {
        // Idle time is not growth time: shift the epoch so the curve resumes where it paused.
        if let Some(start) = self.curve.epoch_start {
            self.curve.epoch_start = Some((start + idle).min(s.now));
        }
    }

    fn vars(&self, out: &mut Vec<CcVar>) {
        let c = &self.curve;
        out.push(("cubic_wmax", f64::from(c.w_max)));
        out.push(("cubic_k", c.k));
        // Epoch start time in seconds, NaN between a reduction and the next growth.
        out.push(("cubic_epoch_s", c.epoch_start.map_or(f64::NAN, secs)));
        out.push(("cubic_origin", f64::from(c.origin)));
        out.push(("cubic_cnt", f64::from(c.cnt)));
        out.push(("cubic_reno_cwnd", f64::from(c.reno_cwnd)));
        out.push(("cubic_delay_min_s", secs(c.delay_min)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::MS;

    const RTT: Time = 100 * MS;

    fn with(name: &str, value: Value) -> Cubic {
        Cubic::of(&super::super::Config::named("cubic").with(name, value))
    }

    /// A cwnd-limited flow that has seen `rtt` and just lost at cwnd `w`, after the socket
    /// applied the reduction (cwnd = ssthresh) and returned to Open.
    fn after_loss(cc: &mut Cubic, w: u32, rtt: Time) -> CcState {
        let mut s = CcState::new(1448, w);
        s.now = 10 * SEC;
        cc.on_ack(&mut s, &AckSample { acked: 1, rtt: Some(rtt), ..Default::default() });
        reduce(cc, &mut s);
        s
    }

    fn reduce(cc: &mut Cubic, s: &mut CcState) {
        let ssthresh = cc.ssthresh(s);
        s.ssthresh = ssthresh;
        s.cwnd = ssthresh;
        s.cwnd_cnt = 0;
    }

    /// Synthetic ACK clock: every round trip the whole window is ACKed, one ACK per segment,
    /// evenly spread over the RTT. Runs whole rounds until `s.now` reaches `until`.
    fn run_until(cc: &mut Cubic, s: &mut CcState, rtt: Time, until: Time) {
        while s.now < until {
            let round_start = s.now;
            let n = u64::from(s.cwnd);
            for i in 1..=n {
                s.now = round_start + rtt * i / n;
                s.delivered += 1;
                cc.on_ack(s, &AckSample { acked: 1, rtt: Some(rtt), ..Default::default() });
                cc.cong_avoid(s, 1);
            }
        }
    }

    fn run_for(cc: &mut Cubic, s: &mut CcState, rtt: Time, duration: Time) {
        let until = s.now + duration;
        run_until(cc, s, rtt, until);
    }

    #[test]
    fn w_cubic_is_the_closed_form() {
        let (c, w_max) = (0.4, 100.0);
        let k = cubic_k(w_max, 70.0, c);
        assert!((k - 4.2172).abs() < 1e-3, "K = {k}");
        assert!((w_cubic(0.0, w_max, k, c) - 70.0).abs() < 1e-9);
        assert!((w_cubic(k, w_max, k, c) - 100.0).abs() < 1e-9);
        for t in [0.5, 1.0, 3.0, 6.0, 10.0] {
            let expected = c * (t - k) * (t - k) * (t - k) + w_max;
            assert!((w_cubic(t, w_max, k, c) - expected).abs() < 1e-9);
        }
        // At or above W_max there is nothing to climb back to.
        assert_eq!(cubic_k(100.0, 120.0, c), 0.0);
    }

    #[test]
    fn loss_sets_w_max_and_beta_reduction() {
        let mut cc = Cubic::of(&super::super::Config::named("cubic"));
        let s = after_loss(&mut cc, 100, RTT);
        assert_eq!(cc.w_max(), 100);
        assert_eq!(s.cwnd, 70); // 100 * 717 / 1024
        assert_eq!(cc.epoch_start(), None);
    }

    #[test]
    fn window_follows_the_cubic_curve_after_loss() {
        let mut cc = Cubic::of(&super::super::Config::named("cubic"));
        let mut s = after_loss(&mut cc, 100, RTT);
        let epoch = s.now;
        run_until(&mut cc, &mut s, RTT, epoch + 1);
        assert_eq!(cc.epoch_start(), Some(epoch + RTT / 70));
        let epoch = cc.epoch_start().unwrap();
        let k = cc.k();
        assert!((k - cubic_k(100.0, 70.0, 0.4)).abs() < 1e-9);

        let mut cwnd_at = Vec::new();
        for t in 1..=9 {
            run_until(&mut cc, &mut s, RTT, epoch + t * SEC);
            let t_secs = secs(s.now - epoch);
            // The target leads by one RTT and the window catches up over that RTT.
            let model = w_cubic(t_secs + secs(RTT), 100.0, k, 0.4);
            assert!((f64::from(s.cwnd) - model).abs() <= 2.5, "t={t_secs:.2}s cwnd={} model={model:.1}", s.cwnd);
            cwnd_at.push(f64::from(s.cwnd));
        }
        // Plateau near K: within a couple of segments of W_max between 3.5 s and 5 s.
        assert!((cwnd_at[3] - 100.0).abs() <= 2.0, "cwnd at 4 s = {}", cwnd_at[3]);
        // Concave before K (shrinking gains per second), convex after (growing gains).
        let gain: Vec<f64> = cwnd_at.windows(2).map(|w| w[1] - w[0]).collect();
        assert!(gain[0] > gain[1] && gain[1] > gain[2], "gains {gain:?}");
        assert!(gain[4] < gain[5] && gain[5] < gain[6] && gain[6] < gain[7], "gains {gain:?}");
    }

    #[test]
    fn fast_convergence_lowers_w_max_on_a_loss_below_the_previous_peak() {
        for (fast, expected_w_max) in [(true, 76), (false, 90)] {
            let mut cc = Cubic::new(0.7, 0.4, fast, true, HystartMode::Off);
            let mut s = after_loss(&mut cc, 100, RTT);
            run_for(&mut cc, &mut s, RTT, 2 * SEC);
            s.cwnd = 90;
            reduce(&mut cc, &mut s);
            // 90 * (1 + 0.7) / 2 = 76.5, in Linux's integer arithmetic 76.
            assert_eq!(cc.w_max(), expected_w_max);
            assert_eq!(s.cwnd, 63); // 90 * 717 / 1024
        }
    }

    #[test]
    fn reno_friendly_region_grows_at_least_like_aimd() {
        // Short RTT: Reno's 0.53 segment per RTT outpaces the cubic curve, which needs
        // K = 4.2 s to climb back to W_max whatever the RTT.
        let rtt = 10 * MS;
        let cwnd_after = |friendly: bool| {
            let mut cc = Cubic::new(0.7, 0.4, true, friendly, HystartMode::Off);
            let mut s = after_loss(&mut cc, 100, rtt);
            run_for(&mut cc, &mut s, rtt, 1);
            let epoch = cc.epoch_start().unwrap();
            run_until(&mut cc, &mut s, rtt, epoch + 2 * SEC);
            (f64::from(s.cwnd), secs(s.now - epoch) / secs(rtt), cc.k())
        };
        let (friendly, rounds, k) = cwnd_after(true);
        let (cubic_only, _, _) = cwnd_after(false);
        // Linux's Reno estimate: +1 segment per cwnd * 15 / 8 ACKed, i.e. 8/15 per round.
        // At least RFC 9438's alpha = 0.529 per round (Linux: 8/15 = 0.533), less a little
        // because cwnd trails the estimate by its last round's growth.
        let per_round = (friendly - 70.0) / rounds;
        assert!((0.5..0.56).contains(&per_round), "{per_round:.3} segments per round");
        let curve = w_cubic(2.0 + secs(rtt), 100.0, k, 0.4);
        assert!((cubic_only - curve).abs() <= 2.5, "cwnd {cubic_only} vs W_cubic {curve:.1}");
        assert!(friendly > cubic_only + 50.0);
    }

    #[test]
    fn first_epoch_without_w_max_grows_at_least_five_percent_per_rtt() {
        let mut cc = Cubic::new(0.7, 0.4, true, true, HystartMode::Off);
        let mut s = CcState::new(1448, 100);
        s.ssthresh = 100;
        s.now = SEC;
        run_until(&mut cc, &mut s, RTT, SEC + RTT);
        // The curve from the current window is still flat; only the cnt <= 20 floor acts.
        assert_eq!(s.cwnd, 105);
    }

    #[test]
    fn growth_is_capped_at_one_segment_per_two_acks() {
        let mut cc = Cubic::new(0.7, 0.4, true, true, HystartMode::Off);
        let mut s = after_loss(&mut cc, 100, RTT);
        run_for(&mut cc, &mut s, RTT, SEC);
        // Application-limited for 12 s: cwnd holds while the curve runs far ahead of it.
        s.is_cwnd_limited = false;
        run_for(&mut cc, &mut s, RTT, 12 * SEC);
        s.is_cwnd_limited = true;
        let before = s.cwnd;
        run_for(&mut cc, &mut s, RTT, RTT);
        // One segment per two ACKs, plus at most one from the ACK count carried over.
        let grown = s.cwnd - before;
        assert!((before / 2..=before / 2 + 1).contains(&grown), "{before} grew by {grown}");
    }

    #[test]
    fn idle_time_shifts_the_epoch() {
        let mut cc = Cubic::of(&super::super::Config::named("cubic"));
        let mut s = after_loss(&mut cc, 100, RTT);
        run_for(&mut cc, &mut s, RTT, 1);
        let epoch = cc.epoch_start().unwrap();
        s.now += 3 * SEC;
        cc.on_tx_restart(&mut s, 2 * SEC);
        assert_eq!(cc.epoch_start(), Some(epoch + 2 * SEC));
        // An idle period longer than the epoch restarts the curve now, never in the future.
        cc.on_tx_restart(&mut s, 10 * SEC);
        assert_eq!(cc.epoch_start(), Some(s.now));
    }

    #[test]
    fn rto_forgets_the_curve_and_min_rtt() {
        let mut cc = Cubic::of(&super::super::Config::named("cubic"));
        let mut s = after_loss(&mut cc, 100, RTT);
        run_for(&mut cc, &mut s, RTT, SEC);
        cc.on_state(&mut s, CaState::Loss);
        let mut vars = Vec::new();
        cc.vars(&mut vars);
        let var = |name| vars.iter().find(|(n, _)| *n == name).unwrap().1;
        assert_eq!(var("cubic_wmax"), 0.0);
        assert_eq!(var("cubic_delay_min_s"), 0.0);
        assert!(var("cubic_epoch_s").is_nan());
    }

    #[test]
    fn parameters_are_declared_with_their_ranges() {
        let mut cc = with("beta", Value::Real(0.5));
        assert_eq!(cc.ssthresh(&CcState::new(1448, 100)), 50);
        let mut config = super::super::Config::named("cubic");
        for (name, bad) in [
            ("beta", Value::Real(1.0)),
            ("beta", Value::Real(0.0)),
            ("hystart", Value::Choice("fast")),
            ("c", Value::Real(-1.0)),
            ("fast_convergence", Value::Int(1)),
            ("bta", Value::Real(0.5)),
        ] {
            assert!(config.set(name, bad.clone()).is_err(), "{name} = {bad:?}");
        }
        assert!(config.set("hystart", Value::Choice("hystart++")).is_ok());
    }

    /// Slow start from 10 segments where the RTT rises from 200 ms to 230 ms once cwnd
    /// reaches 32 (a queue forms). ACKs are 200 ms / cwnd apart, too sparse for an ACK train.
    /// Returns ssthresh after 2 s.
    fn slow_start_into_a_queue(hystart: &'static str) -> (u32, CcState) {
        let mut cc = with("hystart", Value::Choice(hystart));
        let mut s = CcState::new(1448, 10);
        s.now = SEC;
        while s.now < 3 * SEC {
            let round_start = s.now;
            let rtt = if s.cwnd < 32 { 200 * MS } else { 230 * MS };
            let n = u64::from(s.cwnd);
            for i in 1..=n {
                s.now = round_start + 200 * MS * i / n;
                s.delivered += 1;
                // A full window stays outstanding: the ACKed segment left the flight.
                s.packets_in_flight = s.cwnd - 1;
                cc.on_ack(&mut s, &AckSample { acked: 1, rtt: Some(rtt), ..Default::default() });
                cc.cong_avoid(&mut s, 1);
            }
        }
        (s.ssthresh, s)
    }

    #[test]
    fn classic_hystart_ends_slow_start_when_the_queue_builds() {
        let (ssthresh, s) = slow_start_into_a_queue("classic");
        // The rise shows in the first HyStart round that starts after it (rounds follow the
        // flight, not this loop), 8 samples in; plain slow start would be past 5000 by now.
        assert!((40..=80).contains(&ssthresh), "ssthresh {ssthresh}");
        // Afterwards only congestion avoidance (first epoch: about 5 % per RTT) over the
        // remaining rounds, not a doubling per round.
        assert!(s.cwnd >= ssthresh && s.cwnd < ssthresh * 3 / 2, "cwnd {} ssthresh {ssthresh}", s.cwnd);
        let (ssthresh, _) = slow_start_into_a_queue("off");
        assert_eq!(ssthresh, u32::MAX);
    }

    #[test]
    fn hystart_plus_plus_slows_down_then_ends_slow_start() {
        let (ssthresh, s) = slow_start_into_a_queue("hystart++");
        // CSS at a quarter of the slow-start rate for 5 rounds, then congestion avoidance.
        assert!((40..160).contains(&ssthresh), "ssthresh {ssthresh}");
        assert!(s.cwnd < ssthresh * 3 / 2, "cwnd {} ssthresh {ssthresh}", s.cwnd);
    }
}
