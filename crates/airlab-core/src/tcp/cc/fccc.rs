//! FCCC (paper 004): a PI controller on the airtime the sender's device uses, as the access
//! point measures it and sends it back in band (the `airtime_telemetry` AP hook of a `[[wifi]]`
//! BSS, [`crate::wifi::hook::airtime_telemetry`]).
//!
//! Each new weighted airtime ratio `w_ar` from the AP updates the window (Algorithm 1's
//! `on_ack`, eqs. 8-10): with `error = sp - w_ar`,
//!
//! ```text
//! e_p = sp error,   e_i = clamp(e_i + ki sp error dt, -1, 1)
//! corr = clamp((e_p + e_i) ts / t_p, -sp, sp),   cwnd = corr cwnd_prev / w_ar + cwnd_prev
//! ```
//!
//! bounded by `cwnd_up = floor(1 + sp ts / t_p)` (eq. 11), where `t_p` is eq. 2 for a
//! full-sized packet at the device's PHY rate `dr`. A congestion loss multiplies the window by
//! `beta` (0.9); a loss the AP reports as wireless (`loss_w` grew) leaves it. Without telemetry
//! the window stays at `cwnd_init`.
//!
//! The paper's gaps, as reproduction-targets P4.3 proposes: the window never goes below
//! `cwnd_min` (it floors only after a loss; a negative window is otherwise possible), it
//! changes only on a new `w_ar` (once per timeslot; `update = "every_ack"` recomputes it on
//! every ACK with the latest), the bound follows the latest `ts`, `sp` and `dr` on every ACK,
//! and `dt` is in seconds.

use super::{AckSample, Build, CaState, CcState, CcVar, Component, Config, CongestionControl};
use crate::net::Telemetry;
use crate::params::{no_check, Kind, Param, Range, Value};
use crate::sim::{Time, SEC};
use crate::wifi::phy::{ack_duration, formula_airtime, MacTiming, TxVector};

pub static FCCC: Component = Component {
    name: "fccc",
    doc: "FCCC (paper 004): PI control of the device's airtime from the AP's in-band telemetry",
    params: &[
        Param {
            name: "cwnd_init",
            kind: Kind::Int { min: 1, max: 1_000_000, unit: "packets" },
            default: Value::Int(10),
            doc: "the window before any feedback, and after a loss at the least",
        },
        Param {
            name: "cwnd_min",
            kind: Kind::Int { min: 1, max: 1_000_000, unit: "packets" },
            default: Value::Int(10),
            doc: "the floor of every update (the paper floors only after a loss; 10 keeps its \
                  'at least cwnd_init', 1 lets the window fall to one packet)",
        },
        Param {
            name: "beta",
            kind: Kind::Real { range: Range::FRACTION, unit: "" },
            default: Value::Real(0.9),
            doc: "the window after a congestion loss, as a fraction of the window before",
        },
        Param {
            name: "ki",
            kind: Kind::Real { range: Range::POSITIVE, unit: "" },
            default: Value::Real(0.1),
            doc: "the integral gain over the setpoint (K_i = ki sp; K_p = sp)",
        },
        Param {
            name: "update",
            kind: Kind::Choice(&["new_w_ar", "every_ack"]),
            default: Value::Choice("new_w_ar"),
            doc: "recompute the window on each new w_ar (once per timeslot), or on every ACK \
                  with the latest w_ar",
        },
        Param {
            name: "setpoint",
            kind: Kind::Real { range: Range { min: 0.0, min_open: false, max: 1.0, max_open: false }, unit: "" },
            default: Value::Real(0.0),
            doc: "this device's setpoint instead of the AP's sp (0: the AP's)",
        },
    ],
    check: no_check,
    build: Build(|c: &Config, _| Ok(Box::new(Fccc::new(Params::of(c))))),
};

/// FCCC's parameters as typed values (see [`FCCC`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Params {
    pub cwnd_init: f64,
    pub cwnd_min: f64,
    pub beta: f64,
    pub ki: f64,
    pub every_ack: bool,
    pub setpoint: Option<f64>,
}

impl Params {
    pub fn of(c: &Config) -> Self {
        Params {
            cwnd_init: c.int("cwnd_init") as f64,
            cwnd_min: c.int("cwnd_min") as f64,
            beta: c.real("beta"),
            ki: c.real("ki"),
            every_ack: c.choice("update") == "every_ack",
            setpoint: Some(c.real("setpoint")).filter(|&sp| sp > 0.0),
        }
    }
}

/// Eq. 2 at the sender for an IP packet of `ip_bytes` at `dr` bit/s, priced as the AP prices
/// an 802.11a frame (eq. 1 as printed, DIFS, SIFS) with its ACK at the fastest basic rate (6,
/// 12 or 24 Mbit/s) not above `dr`.
pub fn time_per_packet(ip_bytes: u32, dr: u64) -> Time {
    let basic_mbps = [24, 12, 6].into_iter().find(|&r| u64::from(r) * 1_000_000 <= dr).unwrap_or(6);
    let basic = TxVector::non_ht(basic_mbps);
    let timing = MacTiming::ofdm_5ghz();
    formula_airtime(basic.preamble_duration(), ip_bytes, dr) + timing.difs() + timing.sifs + ack_duration(&basic)
}

pub struct Fccc {
    p: Params,
    cwnd: f64,
    cwnd_prev: f64,
    e_i: f64,
    time_prev: Time,
    /// The latest telemetry and the `w_ar` it last carried.
    int: Option<Telemetry>,
    w_ar: Option<f64>,
    /// The latest `w_ar` received, for the time series.
    last_w_ar: f64,
    cwnd_up: f64,
    /// The AP's wireless-loss count when the last loss episode began.
    loss_w_seen: u16,
}

impl Fccc {
    pub fn new(p: Params) -> Self {
        let cwnd = p.cwnd_init;
        Fccc {
            p,
            cwnd,
            cwnd_prev: cwnd,
            e_i: 0.0,
            time_prev: 0,
            int: None,
            w_ar: None,
            last_w_ar: f64::NAN,
            cwnd_up: f64::INFINITY,
            loss_w_seen: 0,
        }
    }

    fn setpoint(&self, int: &Telemetry) -> f64 {
        self.p.setpoint.unwrap_or_else(|| int.sp())
    }

    /// Algorithm 1's `on_ack` for one `w_ar` (eqs. 8-10), bounded by eq. 11 and `cwnd_min`.
    fn control(&mut self, now: Time, sp: f64, w_ar: f64, ts: f64, t_p: f64) {
        let error = sp - w_ar;
        let dt = now.saturating_sub(self.time_prev) as f64 / SEC as f64;
        let e_p = sp * error;
        self.e_i = (self.e_i + self.p.ki * sp * error * dt).clamp(-1.0, 1.0);
        let corr = ((e_p + self.e_i) * ts / t_p).clamp(-sp, sp);
        let cwnd = corr * self.cwnd_prev / w_ar + self.cwnd_prev;
        self.cwnd = cwnd.min(self.cwnd_up).max(self.p.cwnd_min);
        self.cwnd_prev = self.cwnd;
        self.time_prev = now;
    }

    fn apply(&self, s: &mut CcState) {
        s.cwnd = (self.cwnd.floor() as u32).clamp(1, s.cwnd_clamp);
    }
}

impl CongestionControl for Fccc {
    fn name(&self) -> &'static str {
        "fccc"
    }

    fn init(&mut self, s: &mut CcState) {
        self.time_prev = s.now;
        self.apply(s);
    }

    fn on_ack(&mut self, s: &mut CcState, ack: &AckSample) {
        if let Some(&int) = ack.ext.airtime() {
            self.int = Some(int);
            if let Some(w_ar) = int.w_ar() {
                self.last_w_ar = w_ar;
                self.w_ar = Some(w_ar).filter(|&w| w > 0.0);
                if self.w_ar.is_some() && !self.p.every_ack {
                    self.update(s.now, s.mss);
                }
            }
        }
        if self.p.every_ack && self.w_ar.is_some() {
            self.update(s.now, s.mss);
        } else if let Some(int) = self.int {
            // Between updates the bound still follows the latest ts, sp and dr (Fig. 14).
            self.cwnd_up = self.bound(&int, s.mss);
            self.cwnd = self.cwnd.min(self.cwnd_up).max(self.p.cwnd_min);
        }
        self.apply(s);
    }

    fn cong_avoid(&mut self, _s: &mut CcState, _acked: u32) {}

    fn ssthresh(&mut self, s: &CcState) -> u32 {
        s.cwnd
    }

    /// A loss episode: a congestion loss scales the window by beta; a wireless one (the AP's
    /// `loss_w` grew since the last episode) leaves it (Algorithm 1's `on_loss`).
    fn on_state(&mut self, s: &mut CcState, new: CaState) {
        if !matches!(new, CaState::Recovery | CaState::Loss) {
            return;
        }
        let loss_w = self.int.map_or(0, |int| int.loss_w);
        let wireless = loss_w != self.loss_w_seen;
        self.loss_w_seen = loss_w;
        if !wireless {
            self.cwnd_prev *= self.p.beta;
        }
        self.cwnd = self.cwnd_prev.max(self.p.cwnd_init);
        self.apply(s);
    }

    fn owns_cwnd(&self) -> bool {
        true
    }

    fn vars(&self, out: &mut Vec<CcVar>) {
        let int = self.int.unwrap_or_default();
        out.push(("fccc_w_ar", self.last_w_ar));
        out.push(("fccc_sp", if int.is_present() { self.setpoint(&int) } else { f64::NAN }));
        out.push(("fccc_ts_ms", if int.is_present() { int.ts() as f64 / 1e6 } else { f64::NAN }));
        out.push(("fccc_dr_mbps", int.dr_bps() as f64 / 1e6));
        out.push(("fccc_cwnd_up", self.cwnd_up));
        out.push(("fccc_e_i", self.e_i));
    }
}

impl Fccc {
    /// Eq. 11 with the latest telemetry.
    fn bound(&self, int: &Telemetry, mss: u32) -> f64 {
        let t_p = time_per_packet(mss + crate::net::packet::TCP_HEADER, int.dr_bps().max(1)) as f64;
        (1.0 + self.setpoint(int) * int.ts() as f64 / t_p).floor()
    }

    fn update(&mut self, now: Time, mss: u32) {
        let (Some(int), Some(w_ar)) = (self.int, self.w_ar) else { return };
        let t_p = time_per_packet(mss + crate::net::packet::TCP_HEADER, int.dr_bps().max(1)) as f64;
        self.cwnd_up = self.bound(&int, mss);
        self.control(now, self.setpoint(&int), w_ar, int.ts() as f64, t_p);
        if !self.p.every_ack {
            self.w_ar = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::{MS, US};

    fn params() -> Params {
        Params::of(&super::super::Config::named("fccc"))
    }

    fn state(now: Time) -> CcState {
        let mut s = CcState::new(1448, 10);
        s.now = now;
        s
    }

    /// FCCC with the default parameters, initialized on a flow at time 0.
    fn started() -> (Fccc, CcState) {
        let mut f = Fccc::new(params());
        let mut s = state(0);
        f.init(&mut s);
        (f, s)
    }

    /// `n` ACKs of `ack`, the k-th (from 1) at `k * every`.
    fn acks_every(f: &mut Fccc, s: &mut CcState, n: u64, every: Time, ack: &AckSample) {
        for k in 1..=n {
            s.now = k * every;
            f.on_ack(s, ack);
        }
    }

    fn telemetry(dr_mbps: u32, ts: Time, sp: f64, w_ar: Option<f64>, loss_w: u16) -> AckSample {
        let int = Telemetry {
            dr_kbps: dr_mbps * 1000,
            ts_us: (ts / US) as u32,
            sp: Telemetry::ratio(sp),
            w_ar: w_ar.map_or(Telemetry::NO_W_AR, Telemetry::ratio),
            loss_w,
        };
        AckSample { acked: 1, ext: crate::net::Extension::Airtime(int), ..Default::default() }
    }

    #[test]
    fn time_per_packet_matches_the_paper_at_the_802_11a_rates() {
        // 1448-byte segments with 52 bytes of headers: 1500-byte IP packets.
        let us = |mbps: u64| time_per_packet(1500, mbps * 1_000_000) as f64 / 1e3;
        assert!((us(24) - 611.58).abs() < 0.01);
        assert!((us(12) - 1129.17).abs() < 0.01);
        assert!((us(6) - 2168.33).abs() < 0.01);
    }

    #[test]
    fn one_update_is_eq_10_with_its_clamps() {
        let (mut f, mut s) = started();
        // Under-use: sp 0.4, w_ar 0.1, ts 1 s at 24 Mbit/s. e_p = 0.12, e_i = 0.1 x 0.4 x 0.3
        // x 1 s = 0.012; (e_p + e_i) ts / t_p = 215.8 clamps to sp = 0.4, so cwnd = 0.4 x 10 /
        // 0.1 + 10 = 50, under cwnd_up = floor(1 + 0.4 x 1 s / 611.58 us) = 655.
        s.now = SEC;
        f.on_ack(&mut s, &telemetry(24, SEC, 0.4, Some(0.1), 0));
        assert_eq!(s.cwnd, 50);
        assert!((f.e_i - 0.012).abs() < 1e-9);
        assert_eq!(f.cwnd_up, 655.0);
        // ACKs without a new w_ar keep it.
        f.on_ack(&mut s, &telemetry(24, SEC, 0.4, None, 0));
        assert_eq!(s.cwnd, 50);
        // Over-use: w_ar 0.8 gives corr = -0.4 (clamped): cwnd = -0.4 x 50 / 0.8 + 50 = 25.
        s.now = 2 * SEC;
        f.on_ack(&mut s, &telemetry(24, SEC, 0.4, Some(0.8), 0));
        assert_eq!(s.cwnd, 25);
    }

    #[test]
    fn the_integral_is_clamped_and_the_window_floored_and_bounded() {
        let (mut f, mut s) = started();
        // A long over-use: e_i runs to -1 and stays there; cwnd never drops below cwnd_min.
        acks_every(&mut f, &mut s, 50, 10 * SEC, &telemetry(24, SEC, 0.4, Some(1.0), 0));
        assert_eq!(f.e_i, -1.0);
        assert_eq!(s.cwnd, 10);
        // With cwnd_min = 1 it falls to one packet.
        let mut low = Fccc::new(Params { cwnd_min: 1.0, ..params() });
        let mut s = state(0);
        acks_every(&mut low, &mut s, 20, SEC, &telemetry(24, SEC, 0.4, Some(1.0), 0));
        assert_eq!(s.cwnd, 1);
        // A long under-use at 6 Mbit/s and ts 100 ms: cwnd_up = floor(1 + 0.4 x 0.1 / 2168 us) = 19.
        let mut f = Fccc::new(params());
        let mut s = state(0);
        acks_every(&mut f, &mut s, 20, 100 * MS, &telemetry(6, 100 * MS, 0.4, Some(0.01), 0));
        assert_eq!(s.cwnd, 19);
    }

    #[test]
    fn the_bound_follows_a_rate_change_at_once() {
        let mut f = Fccc::new(params());
        let mut s = state(0);
        acks_every(&mut f, &mut s, 30, SEC, &telemetry(24, SEC, 0.8, Some(0.05), 0));
        let fast = s.cwnd;
        assert_eq!(fast, (1.0 + 0.8 * 1e6 / 611.58f64).floor() as u32);
        // The rate drops to 6 Mbit/s: the next ACK, without a new w_ar, bounds cwnd by eq. 11
        // at the new t_p (cwnd_up ratio 2168 / 612 = 3.5).
        f.on_ack(&mut s, &telemetry(6, SEC, 0.8, None, 0));
        assert_eq!(s.cwnd, (1.0 + 0.8 * 1e6 / 2168.33f64).floor() as u32);
    }

    #[test]
    fn congestion_losses_cut_by_beta_and_wireless_losses_do_not() {
        let mut f = Fccc::new(params());
        let mut s = state(0);
        s.now = SEC;
        f.on_ack(&mut s, &telemetry(24, SEC, 0.4, Some(0.1), 0));
        assert_eq!(s.cwnd, 50);
        f.on_state(&mut s, CaState::Recovery);
        assert_eq!(s.cwnd, 45);
        // The AP reports a lost frame: no cut.
        f.on_ack(&mut s, &telemetry(24, SEC, 0.4, None, 1));
        f.on_state(&mut s, CaState::Recovery);
        assert_eq!(s.cwnd, 45);
        // Never below cwnd_init after a loss.
        let mut small = Fccc::new(params());
        let mut s = state(0);
        small.on_state(&mut s, CaState::Recovery);
        assert_eq!(s.cwnd, 10);
    }

    #[test]
    fn without_telemetry_the_window_holds() {
        let (mut f, mut s) = started();
        for _ in 0..100 {
            f.on_ack(&mut s, &AckSample { acked: 1, ..Default::default() });
        }
        assert_eq!(s.cwnd, 10);
    }

    #[test]
    fn a_setpoint_of_its_own_overrides_the_aps() {
        let mut f = Fccc::new(Params { setpoint: Some(0.15), ..params() });
        let mut s = state(0);
        s.now = SEC;
        f.on_ack(&mut s, &telemetry(24, SEC, 0.4, Some(0.1), 0));
        // corr = clamp(..., -0.15, 0.15) = 0.15: cwnd = 0.15 x 10 / 0.1 + 10 = 25.
        assert_eq!(s.cwnd, 25);
    }
}
