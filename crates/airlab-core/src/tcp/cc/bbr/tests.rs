//! Unit tests on a synthetic ACK clock: one ACK per delivered packet at the path's bandwidth,
//! each carrying a rate sample over the last round trip.

use super::*;
use crate::sim::secs;
use crate::tcp::rate::RateSample;
use std::cell::Cell;
use std::rc::Rc;

const MSS: u32 = 1000;
const RTT: Time = 40 * MS;
/// 1000 packets/s: 8 Mbit/s and a 40-packet BDP at 40 ms.
const BW: f64 = 1000.0;

struct Harness {
    cc: Bbr,
    s: CcState,
    /// Delivery rate of the path, packets per second.
    bw: f64,
    /// Delivery-rate samples report this fraction of `bw`.
    sample_scale: f64,
    /// RTT carried by each ACK.
    rtt: Time,
    /// Packets in flight; `None`: cwnd when probing, else the paced volume gain * BDP.
    flight: Option<u32>,
    /// Losses the rate samples report (Linux `rs->lost`).
    lost_in_sample: u64,
    /// The full-pipe baseline and the round in which it was last set.
    baseline: (f64, u64),
}

impl Harness {
    fn new(c: &Constants) -> Self {
        Self::with_model(c, Box::new(PlainBdp))
    }

    fn with_model(c: &Constants, model: Box<dyn BdpModel>) -> Self {
        let mut cc = CcEnv::scratch(|env| Bbr::with_bdp_model("test", c, false, env, model));
        let mut s = CcState::new(MSS, 10);
        s.srtt = RTT;
        s.min_rtt = RTT;
        cc.init(&mut s);
        Harness { cc, s, bw: BW, sample_scale: 1.0, rtt: RTT, flight: None, lost_in_sample: 0, baseline: (0.0, 0) }
    }

    fn per_rtt(&self) -> u64 {
        (self.bw * secs(RTT)).round().max(1.0) as u64
    }

    fn flight(&self) -> u32 {
        self.flight.unwrap_or_else(|| {
            if self.cc.pacing_gain > 1.0 {
                self.s.cwnd
            } else {
                let paced = (self.bw * secs(RTT) * self.cc.pacing_gain).ceil() as u32;
                self.s.cwnd.min(paced)
            }
        })
    }

    fn ack_with(&mut self, newly_lost: u32) {
        let per_rtt = self.per_rtt();
        self.s.now += (SEC as f64 / self.bw) as Time;
        self.s.delivered += 1;
        self.s.packets_in_flight = self.flight();
        let delivered = ((per_rtt as f64 * self.sample_scale).round() as u64).max(1);
        let rate = RateSample {
            delivered,
            interval: RTT,
            delivery_rate: delivered as f64 * f64::from(MSS) / secs(RTT),
            is_app_limited: false,
            prior_delivered: self.s.delivered.saturating_sub(per_rtt),
            tx_in_flight: self.s.packets_in_flight,
            lost: self.lost_in_sample,
            delivered_ce: 0,
            rtt: self.rtt,
        };
        let ack = AckSample { acked: 1, rtt: Some(self.rtt), newly_lost, ece: false, rate, ..Default::default() };
        self.cc.on_ack(&mut self.s, &ack);
        if self.cc.full_bw != self.baseline.0 {
            self.baseline = (self.cc.full_bw, self.cc.round_count);
        }
    }

    fn ack(&mut self) {
        self.ack_with(0);
    }

    fn round(&mut self) {
        for _ in 0..self.per_rtt() {
            self.ack();
        }
    }

    /// ACK until `done` holds; panics after `limit` of simulated time.
    fn until(&mut self, limit: Time, mut done: impl FnMut(&Self) -> bool) {
        let end = self.s.now + limit;
        while !done(self) {
            assert!(self.s.now < end, "condition not reached within {} s", secs(limit));
            self.ack();
        }
    }

    /// A packet sent with `tx_in_flight` in flight and `lost_before` losses counted since is
    /// marked lost now (the socket's `on_lost` call).
    fn lose(&mut self, tx_in_flight: u32, lost_before: u64) {
        self.s.lost = (self.s.lost + 1).max(lost_before + 1);
        let snap = TxSnapshot { tx_in_flight, lost: self.s.lost - lost_before - 1, ..Default::default() };
        self.cc.on_lost(&mut self.s, &snap);
    }

    fn enter_recovery(&mut self) {
        self.s.ssthresh = self.cc.ssthresh(&self.s);
        self.s.ca_state = CaState::Recovery;
        self.cc.on_state(&mut self.s, CaState::Recovery);
    }

    /// Flat bandwidth until Startup ends and Drain hands over to ProbeBW.
    fn run_to_probe_bw(&mut self) {
        self.until(5 * SEC, |h| h.cc.mode() == Mode::ProbeBw);
    }
}

#[test]
fn startup_exits_after_three_rounds_without_25_percent_growth() {
    for c in [&V2ALPHA, &V3_LINUX, &V3_IETF] {
        let mut h = Harness::new(c);
        assert_eq!(h.cc.pacing_gain(), c.startup_pacing_gain);
        // Bandwidth growing by 30 % a round keeps Startup going.
        for _ in 0..8 {
            h.bw *= 1.3;
            h.round();
            assert_eq!(h.cc.mode(), Mode::Startup, "{}", c.name);
        }
        // Growth under 25 % does not count (20 % once, then flat): the pipe is full after three
        // rounds without enough growth over the last baseline.
        // v2alpha sets the baseline at round starts, v3 on any sample; either way the pipe is
        // full at the third round start after the baseline was last raised.
        h.bw *= 1.2;
        let grown = h.baseline;
        h.until(SEC, |h| h.cc.full_bw_reached());
        assert_eq!(h.baseline, grown, "{}: a 20 % step does not raise the baseline", c.name);
        assert_eq!(h.cc.round_count - h.baseline.1, 3, "{}", c.name);
        assert_ne!(h.cc.mode(), Mode::Startup, "{}", c.name);
    }
}

/// Startup with bandwidth doubling every round, then one Recovery round in which the first
/// `events` ACKs each mark a packet lost; `flight` sets the loss rate. True if Startup ended.
fn startup_loss_exit(c: &Constants, events: u32, flight: Option<u32>) -> bool {
    let mut h = Harness::new(c);
    for _ in 0..4 {
        h.round();
        h.bw *= 2.0;
    }
    h.flight = flight;
    h.enter_recovery();
    h.lost_in_sample = u64::from(events);
    let tx_in_flight = h.flight();
    for i in 0..h.per_rtt() {
        if i < u64::from(events) {
            h.lose(tx_in_flight, 0);
            h.ack_with(1);
        } else {
            h.ack();
        }
    }
    h.round();
    h.cc.full_bw_reached()
}

#[test]
fn startup_exits_on_loss_above_two_percent_with_enough_lost_ranges() {
    // v2alpha needs 8 lossy ACKs in the round, v3 (both sets) 6.
    for (c, needed) in [(&V2ALPHA, 8), (&V3_LINUX, 6), (&V3_IETF, 6)] {
        // 6-8 losses in a 100-packet flight: 6-8 % loss.
        assert!(!startup_loss_exit(c, needed - 1, Some(100)), "{}: {} events", c.name, needed - 1);
        assert!(startup_loss_exit(c, needed, Some(100)), "{}: {needed} events", c.name);
        // The same number of losses in a 1000-packet flight is under 2 %: keep going.
        assert!(!startup_loss_exit(c, 12, Some(1000)), "{}: low loss rate", c.name);
    }
    // On exit inflight_hi is set from the estimated BDP.
    let mut h = Harness::new(&V3_LINUX);
    h.round();
    h.enter_recovery();
    h.lost_in_sample = 10;
    let tx = h.flight();
    for _ in 0..8 {
        h.lose(tx, 0);
        h.ack_with(1);
    }
    h.round();
    assert!(h.cc.full_bw_reached());
    assert!(h.cc.inflight_hi().is_some());
}

#[test]
fn probe_rtt_after_five_seconds_holds_half_the_bdp_for_200_ms() {
    for c in [&V2ALPHA, &V3_LINUX] {
        let mut h = Harness::new(c);
        // Every sample after the handshake sees 10 ms of queue: min_rtt (40 ms) is never
        // matched again, so ProbeRTT is due 5 s after the handshake.
        h.rtt = 50 * MS;
        h.run_to_probe_bw();
        h.until(6 * SEC, |h| h.cc.mode() == Mode::ProbeRtt);
        let entered = h.s.now;
        assert!(entered > 5 * SEC && entered < 5 * SEC + 10 * MS, "{}: entered at {}", c.name, secs(entered));
        let prior = h.cc.prior_cwnd;
        // BDP/2 = 1000 packets/s x 40 ms / 2.
        h.ack();
        assert_eq!(h.s.cwnd, 20, "{}", c.name);
        h.until(SEC, |h| {
            assert!(h.cc.mode() != Mode::ProbeRtt || h.s.cwnd <= 20);
            h.cc.mode() != Mode::ProbeRtt
        });
        let held = h.s.now - entered;
        assert!((200 * MS..200 * MS + 3 * RTT).contains(&held), "{}: held {} ms", c.name, held / MS);
        assert_eq!(h.cc.mode(), Mode::ProbeBw, "{}", c.name);
        assert!(h.s.cwnd >= prior.min(h.cc.inflight_with_headroom()), "{}: cwnd restored", c.name);
        assert_eq!(h.cc.min_rtt(), Some(RTT), "{}: the 10 s min_rtt still holds", c.name);
    }
}

#[test]
fn probe_bw_cycles_down_cruise_refill_up_with_each_sets_gains() {
    for c in [&V2ALPHA, &V3_LINUX, &V3_IETF] {
        let mut h = Harness::new(c);
        h.run_to_probe_bw();
        // Drain's last ACK may already pass DOWN; start at the first DOWN after a probe.
        h.until(10 * SEC, |h| h.cc.phase() == Phase::Up);
        h.until(10 * SEC, |h| h.cc.phase() == Phase::Down);
        let mut seen = vec![(h.cc.phase(), h.cc.pacing_gain(), h.cc.cwnd_gain())];
        h.until(10 * SEC, |h| {
            let last = *seen.last().unwrap();
            let now = (h.cc.phase(), h.cc.pacing_gain(), h.cc.cwnd_gain());
            if now.0 != last.0 {
                seen.push(now);
            }
            seen.len() == 5
        });
        let phases: Vec<Phase> = seen.iter().map(|p| p.0).collect();
        assert_eq!(phases, [Phase::Down, Phase::Cruise, Phase::Refill, Phase::Up, Phase::Down], "{}", c.name);
        let gains: Vec<f64> = seen.iter().map(|p| p.1).collect();
        assert_eq!(gains, [c.pacing_gain_down, 1.0, 1.0, 1.25, c.pacing_gain_down], "{}", c.name);
        let up_cwnd_gain = if c.generation == Generation::V3 { 2.25 } else { 2.0 };
        assert_eq!(seen[3].2, up_cwnd_gain, "{}", c.name);
        assert_eq!(seen[1].2, 2.0, "{}", c.name);
    }
    assert_eq!((V2ALPHA.pacing_gain_down, V3_LINUX.pacing_gain_down, V3_IETF.pacing_gain_down), (0.75, 0.91, 0.90));
}

#[test]
fn loss_above_two_percent_in_up_sets_inflight_hi_and_the_next_round_cuts_by_beta() {
    for c in [&V2ALPHA, &V3_LINUX] {
        let mut h = Harness::new(c);
        h.run_to_probe_bw();
        h.until(10 * SEC, |h| h.cc.phase() == Phase::Up);
        h.round();
        assert_eq!(h.cc.phase(), Phase::Up);
        // One loss in a 60-packet flight is under 2 %: nothing happens.
        h.lose(60, 0);
        assert_eq!((h.cc.phase(), h.cc.inflight_hi()), (Phase::Up, None), "{}", c.name);
        // A loss with 2 earlier losses in a flight of 50: loss passed 2 % before this packet,
        // so inflight_hi is the flight before it.
        h.lose(50, 2);
        assert_eq!(h.cc.inflight_hi(), Some(49), "{}", c.name);
        assert_eq!(h.cc.phase(), Phase::Down, "{}: probing stops", c.name);

        // Losses while not probing: at the end of the loss round bw_lo and inflight_lo drop
        // to beta = 0.7 of max_bw and cwnd, not below what the round delivered (half).
        h.sample_scale = 0.5;
        h.lose(45, 0);
        let max_bw = h.cc.max_bw();
        let mut cwnd_before = h.s.cwnd;
        h.until(SEC, |h| {
            if h.cc.inflight_lo().is_none() {
                cwnd_before = h.s.cwnd;
            }
            h.cc.inflight_lo().is_some()
        });
        assert_eq!(h.cc.inflight_lo(), Some((f64::from(cwnd_before) * 0.7) as u32), "{}", c.name);
        assert!((h.cc.bw() - 0.7 * max_bw).abs() < 1e-6, "{}: bw {} vs max {max_bw}", c.name, h.cc.bw());
        assert!(h.s.cwnd <= h.cc.inflight_lo().unwrap(), "{}", c.name);
    }
}

#[test]
fn inflight_hi_from_a_lost_packet_finds_where_loss_crossed_the_threshold() {
    let h = Harness::new(&V3_LINUX);
    // First loss in a 40-packet flight: the budget of 39 x 2 % rounds up to one packet, of
    // which this packet is the 1 / 0.98 -> 1st: inflight_hi = 39 + 1.
    assert_eq!(h.cc.inflight_hi_from_lost_packet(1, 40), 40);
    // Two earlier losses in a 100-packet flight had already used the budget of 2.
    assert_eq!(h.cc.inflight_hi_from_lost_packet(3, 100), 99);
    // 1 earlier loss in a 200-packet flight: budget 4, 3 to go -> prefix 3 / 0.98 = 3.
    assert_eq!(h.cc.inflight_hi_from_lost_packet(2, 200), 202);
}

#[test]
fn v3_constant_sets_drain_at_their_gains_and_ietf_leaves_drain_after_three_rounds() {
    let mut gains = Vec::new();
    for c in [&V3_LINUX, &V3_IETF] {
        let mut h = Harness::new(c);
        h.until(2 * SEC, |h| h.cc.mode() == Mode::Drain);
        gains.push(h.cc.pacing_gain());
        // The queue does not drain: inflight stays at three BDPs.
        h.flight = Some(120);
        let start = h.cc.round_count;
        h.until(2 * SEC, |h| h.cc.mode() != Mode::Drain || h.cc.round_count - start >= 10);
        let rounds = h.cc.round_count - start;
        if c.drain_max_rounds.is_some() {
            assert_eq!((h.cc.mode(), rounds), (Mode::ProbeBw, 3), "{}", c.name);
        } else {
            assert_eq!(h.cc.mode(), Mode::Drain, "{}: stays until inflight <= BDP", c.name);
        }
    }
    assert!((gains[0] - 0.347).abs() < 0.001 && gains[1] == 0.5, "{gains:?}");
}

#[test]
fn ietf_set_conserves_packets_in_the_first_recovery_round_and_linux_sets_do_not() {
    for (c, conserves) in [(&V3_IETF, true), (&V3_LINUX, false), (&V2ALPHA, false)] {
        let mut h = Harness::new(c);
        h.run_to_probe_bw();
        h.round();
        let before = h.s.cwnd;
        h.flight = Some(30);
        h.enter_recovery();
        h.ack();
        if conserves {
            assert_eq!(h.s.cwnd, 31, "{}: in flight + 1", c.name);
        } else {
            assert!(h.s.cwnd >= before.min(h.cc.inflight_with_headroom()), "{}", c.name);
        }
        // Leaving Recovery restores the cwnd from before it (draft); Linux never cut it.
        h.s.ca_state = CaState::Open;
        h.cc.on_state(&mut h.s, CaState::Open);
        assert!(h.s.cwnd >= before, "{}", c.name);
    }
}

#[test]
fn rto_keeps_the_pre_timeout_window_as_inflight_lo_and_restores_it_on_exit() {
    let mut h = Harness::new(&V3_LINUX);
    h.run_to_probe_bw();
    h.until(10 * SEC, |h| h.cc.phase() == Phase::Cruise);
    let before = h.s.cwnd;
    h.s.ssthresh = h.cc.ssthresh(&h.s);
    h.s.cwnd = 1;
    h.s.ca_state = CaState::Loss;
    h.cc.on_state(&mut h.s, CaState::Loss);
    assert_eq!(h.cc.inflight_lo(), Some(before));
    h.s.ca_state = CaState::Open;
    h.cc.on_state(&mut h.s, CaState::Open);
    assert_eq!(h.s.cwnd, before);
}

/// A model that doubles BBR's BDP and records what it saw.
struct DoubleBdp(Rc<Cell<(u32, Option<Time>)>>);

impl BdpModel for DoubleBdp {
    fn on_ack(&mut self, obs: &BdpObservation) {
        let (n, _) = self.0.get();
        self.0.set((n + 1, obs.rtt));
    }

    fn bdp(&self, bw: f64, min_rtt: Time, gain: f64) -> f64 {
        2.0 * bw * secs(min_rtt) * gain
    }
}

#[test]
fn the_bdp_model_sets_the_windows() {
    let seen = Rc::new(Cell::new((0, None)));
    let mut h = Harness::with_model(&V3_LINUX, Box::new(DoubleBdp(seen.clone())));
    h.rtt = 50 * MS;
    h.run_to_probe_bw();
    let (acks, rtt) = seen.get();
    assert!(acks > 100 && rtt == Some(50 * MS), "{acks} {rtt:?}");
    // ProbeRTT's BDP/2 is now the model's: 2 x 40 packets / 2.
    h.until(6 * SEC, |h| h.cc.mode() == Mode::ProbeRtt);
    h.ack();
    assert_eq!(h.s.cwnd, 40);
    assert_eq!(h.cc.bdp(BW, 1.0), 80);
}

#[test]
fn parameters_build_their_variant() {
    use crate::params::Value::{Choice, Flag};
    use crate::tcp::cc::{config, create};
    let make = |name: &str, set: &[(&str, crate::params::Value)]| {
        CcEnv::scratch(|env| create(&config(name, set), env).map(|c| c.name()))
    };
    assert_eq!(make("bbr2", &[]), Ok("bbr2"));
    assert_eq!(make("bbr3", &[("constants", Choice("ietf")), ("ecn", Flag(true))]), Ok("bbr3"));
    assert!(config("bbr3", &[]).set("constants", Choice("draft")).is_err());
    assert!(config("bbr2", &[]).set("constants", Choice("linux")).is_err());
    assert_eq!(v3_constants(&config("bbr3", &[("constants", Choice("ietf"))])), &V3_IETF);
    assert_eq!(v3_constants(&config("bbr3", &[])), &V3_LINUX);
    let cc = CcEnv::scratch(|env| create(&config("bbr3", &[]), env)).unwrap();
    assert!(cc.owns_cwnd() && cc.needs_pacing());
}

#[test]
fn vars_export_the_state_machine() {
    let mut h = Harness::new(&V2ALPHA);
    let var = |h: &Harness, name: &str| {
        let mut v = Vec::new();
        h.cc.vars(&mut v);
        v.iter().find(|(n, _)| *n == name).unwrap().1
    };
    assert_eq!(var(&h, "bbr_state"), 0.0);
    assert!(var(&h, "bbr_phase").is_nan() && var(&h, "bbr_inflight_hi").is_nan());
    h.run_to_probe_bw();
    assert_eq!(var(&h, "bbr_state"), 2.0);
    // Inflight was already below the BDP when Drain ended: straight through DOWN to CRUISE.
    assert_eq!(var(&h, "bbr_phase"), 1.0);
    assert!((var(&h, "bbr_bw_mbps") - 8.0).abs() < 0.01, "{}", var(&h, "bbr_bw_mbps"));
    assert_eq!(var(&h, "bbr_min_rtt_ms"), 40.0);
    assert_eq!(var(&h, "bbr_pacing_gain"), 1.0);
    h.until(10 * SEC, |h| h.cc.phase() == Phase::Up);
    assert_eq!((var(&h, "bbr_phase"), var(&h, "bbr_pacing_gain")), (3.0, 1.25));
}
