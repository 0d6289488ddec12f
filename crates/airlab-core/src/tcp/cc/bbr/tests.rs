//! Unit tests on a synthetic ACK clock: one ACK per delivered packet at the path's bandwidth,
//! each carrying a rate sample over the last round trip.

use super::*;
use crate::sim::{secs, US};
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
        // The socket's smoothed RTT (RFC 6298, 1/8), as port A's min_rtt filter reads it.
        self.s.srtt = (7 * self.s.srtt + self.rtt) / 8;
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
    let lanigan = [("flavour", Choice("ns3-lanigan"))];
    assert_eq!(make("bbr2", &lanigan), Ok("bbr2"));
    assert_eq!(make("fairtt", &lanigan), Ok("fairtt"));
    assert_eq!(v2_constants(&config("bbr2", &lanigan)), &NS3_LANIGAN);
    assert_eq!(v2_constants(&config("fairtt", &lanigan)), &NS3_LANIGAN);
    assert_eq!(v2_constants(&config("bbr2", &[])), &V2ALPHA);
    assert!(config("bbr2", &[]).set("flavour", Choice("ns3")).is_err());
    let with_ecn = config("bbr2", &[("flavour", Choice("ns3-lanigan")), ("ecn", Flag(true))]);
    assert_eq!(with_ecn.check().map_err(|e| e.key), Err("ecn".to_string()), "the port's ECN is not modelled");
    assert!(config("bbr2", &[("ecn", Flag(true))]).check().is_ok());
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

/// Port A never sets the cwnd gain in ProbeBW: Drain's 2.89 holds in every phase until the
/// first ProbeRTT (10 s after the smoothed RTT last matched min_rtt, at 4 packets) sets 1, which
/// nothing raises again. cwnd is then floor(gain x BDP) + 3, with no allowance in UP.
#[test]
fn ns3_lanigan_keeps_the_high_cwnd_gain_until_probe_rtt_and_1_after_it() {
    let mut h = Harness::new(&NS3_LANIGAN);
    h.run_to_probe_bw();
    h.until(SEC, |h| h.cc.phase() == Phase::Up);
    let mut seen = Vec::new();
    h.until(SEC, |h| {
        // floor(2.89 x 40) + 3 in every phase, UP included.
        assert_eq!((h.cc.cwnd_gain(), h.s.cwnd), (2.89, 118), "{:?}", h.cc.phase());
        if !seen.contains(&h.cc.phase()) {
            seen.push(h.cc.phase());
        }
        seen.len() == 4
    });

    // From now on every RTT sample sees 10 ms of queue: the smoothed RTT rises above min_rtt.
    let last_match = h.s.now;
    h.rtt = 50 * MS;
    h.until(11 * SEC, |h| h.cc.mode() == Mode::ProbeRtt || h.cc.cwnd_gain() != 2.89);
    assert_eq!(h.s.now, last_match + 10 * SEC + MS, "ProbeRTT on the first ACK past 10 s");
    assert_eq!((h.s.cwnd, h.cc.cwnd_gain(), h.cc.pacing_gain()), (4, 1.0, 1.0));
    // min_rtt restarted from the smoothed RTT, about 50 ms. Port A's target inflight is not
    // capped by cwnd: still the BDP (of its bandwidth snapshots) plus 3.
    let bdp = BW * secs(h.cc.min_rtt().unwrap());
    assert!(bdp > 49.0, "min_rtt {:?}", h.cc.min_rtt());
    assert_eq!(h.cc.target_inflight(&h.s), (bdp + 1e-9).floor() as u32 + 3);
    // The queue is gone while the flight is down; the 200 ms and a round last past it.
    h.rtt = RTT;
    let entered = h.s.now;
    h.until(SEC, |h| {
        assert!(h.cc.mode() != Mode::ProbeRtt || h.s.cwnd == 4);
        h.cc.mode() != Mode::ProbeRtt
    });
    let held = h.s.now - entered;
    assert!((200 * MS..=205 * MS).contains(&held), "held {} ms", secs(held) * 1e3);
    assert_eq!(h.cc.min_rtt(), Some(RTT), "the smoothed RTT fell back to 40 ms in ProbeRTT");
    assert_eq!((h.cc.mode(), h.cc.phase(), h.s.cwnd), (Mode::ProbeBw, Phase::Cruise, 43));

    // The cwnd gain stays 1: cwnd is BDP + 3 = 43, which never reaches UP's exit at
    // 1.25 BDP + 3 = 53, so once in UP the flow stays there.
    h.until(SEC, |h| h.cc.phase() == Phase::Up);
    let end = h.s.now + 5 * SEC;
    h.until(6 * SEC, |h| {
        assert_eq!((h.cc.phase(), h.cc.cwnd_gain(), h.s.cwnd), (Phase::Up, 1.0, 43));
        h.s.now >= end
    });
}

/// Port A probes one min_rtt after DOWN began (`IsTimeToProbe`), refills for one round, leaves
/// DOWN for CRUISE at inflight <= BDP + 3 (`IsTimeToCruise`), leaves UP once a min_rtt in the
/// flight reaches 1.25 BDP + 3 in bytes, i.e. its ceiling in packets, and bounds the rounds
/// between probes at 63 whatever the BDP.
#[test]
fn ns3_lanigan_probes_one_min_rtt_after_down_began() {
    let mut h = Harness::new(&NS3_LANIGAN);
    // Samples of 41 packets a round: BDP 41 packets, 1.25 BDP = 51.25.
    h.sample_scale = 41.0 / 40.0;
    h.run_to_probe_bw();
    h.until(SEC, |h| h.cc.phase() == Phase::Up);
    h.until(SEC, |h| h.cc.phase() == Phase::Down);
    let down = h.s.now;
    h.until(SEC, |h| h.cc.phase() == Phase::Refill);
    assert_eq!(h.s.now - down, RTT + MS, "the first ACK more than min_rtt after DOWN began");
    let refill = h.s.now;
    h.until(SEC, |h| h.cc.phase() == Phase::Up);
    assert_eq!(h.s.now - refill, RTT, "REFILL lasts one round");

    // 54 packets before the ACK stay under the ceiling of 51.25 + 3; 55 reach it.
    h.flight = Some(53);
    let end = h.s.now + 4 * RTT;
    h.until(SEC, |h| {
        assert_eq!(h.cc.phase(), Phase::Up);
        h.s.now >= end
    });
    h.flight = Some(54);
    h.ack();
    assert_eq!(h.cc.phase(), Phase::Down);

    // DOWN: 45 packets before the ACK are over BDP + 3 = 44, so DOWN runs to the probe.
    h.flight = Some(44);
    let down = h.s.now;
    h.until(SEC, |h| h.cc.phase() != Phase::Down);
    assert_eq!((h.cc.phase(), h.s.now - down), (Phase::Refill, RTT + MS));
    h.flight = None;
    h.until(SEC, |h| h.cc.phase() == Phase::Down);
    h.flight = Some(43);
    h.ack();
    assert_eq!(h.cc.phase(), Phase::Cruise, "44 packets before the ACK: BDP + 3");

    // The Reno-coexistence bound: 63 rounds for the port (its target inflight is in bytes),
    // min(63, target inflight in packets) for v2alpha.
    h.cc.rounds_since_probe = 62;
    assert!(!h.cc.is_reno_coexistence_probe_time(&h.s));
    h.cc.rounds_since_probe = 63;
    assert!(h.cc.is_reno_coexistence_probe_time(&h.s));
    let mut v2 = Harness::new(&V2ALPHA);
    v2.run_to_probe_bw();
    v2.cc.rounds_since_probe = 62;
    assert!(v2.cc.is_reno_coexistence_probe_time(&v2.s));
}

/// Port A paces and sizes cwnd from BBRv1's windowed max over 10 rounds (`UpdateBtlBw`), at
/// gain x bw with no margin (`SetPacingRate`); the current cycle's slot of the two-cycle
/// filter (`m_bwMax[1]`) copies it.
#[test]
fn ns3_lanigan_bandwidth_is_the_max_over_the_last_10_rounds() {
    let mut h = Harness::new(&NS3_LANIGAN);
    h.run_to_probe_bw();
    h.until(SEC, |h| h.cc.phase() == Phase::Cruise);
    assert_eq!(h.s.pacing_rate, 1_000_000, "1000 packets/s x 1000 B x gain 1");
    // From the next ACK on the samples halve: the last full sample is this round's.
    let last_full = h.cc.round_count;
    h.sample_scale = 0.5;
    h.until(SEC, |h| {
        // Emptied when a cycle's window advances (`AdvanceBwMaxFilter`), a copy otherwise.
        assert!(h.cc.bw_hi[1] == 0.0 || h.cc.bw_hi[1] == h.cc.max_bw());
        h.cc.max_bw() < BW
    });
    assert_eq!((h.cc.round_count - last_full, h.cc.max_bw()), (11, BW / 2.0));
    // v2alpha keeps the max of the probe cycles: still 1000 after the same rounds.
    let mut v2 = Harness::new(&V2ALPHA);
    v2.run_to_probe_bw();
    v2.sample_scale = 0.5;
    let start = v2.cc.round_count;
    v2.until(SEC, |h| h.cc.round_count - start == 11);
    assert_eq!(v2.cc.max_bw(), BW);
}

/// Port A's min_rtt filter takes the socket's smoothed RTT (`tcb->m_lastRtt`), v2alpha's the
/// ACK's sample: one 30 ms sample after 40 ms moves SRTT to 38.75 ms.
#[test]
fn ns3_lanigan_min_rtt_follows_the_smoothed_rtt() {
    for (c, min_rtt) in [(&NS3_LANIGAN, 38_750 * US), (&V2ALPHA, 30 * MS)] {
        let mut h = Harness::new(c);
        h.run_to_probe_bw();
        h.rtt = 30 * MS;
        h.ack();
        assert_eq!(h.cc.min_rtt(), Some(min_rtt), "{}", c.name);
    }
}

/// Losses in port A act through inflight_hi only: its loss rounds never start (no Startup
/// loss exit, no inflight_lo or bw_lo), a lost packet is seen on the ACKs (no per-packet hook),
/// and a loss while probing sets inflight_hi to max(flight, BDP + 3) with no cut (its beta is
/// 0), no headroom, and no upward probing after.
#[test]
fn ns3_lanigan_losses_act_through_inflight_hi_only() {
    assert!(startup_loss_exit(&V2ALPHA, 8, Some(100)));
    assert!(!startup_loss_exit(&NS3_LANIGAN, 15, Some(100)));

    let mut h = Harness::new(&NS3_LANIGAN);
    h.run_to_probe_bw();
    h.until(SEC, |h| h.cc.phase() == Phase::Cruise);
    for _ in 0..5 {
        h.lose(40, 0);
        h.ack_with(1);
    }
    h.until(SEC, |h| h.cc.phase() == Phase::Up);
    assert_eq!((h.cc.inflight_lo(), h.cc.bw()), (None, BW), "no lower bounds after lossy rounds");

    h.round();
    h.flight = Some(30);
    h.lose(30, 2);
    assert_eq!((h.cc.phase(), h.cc.inflight_hi()), (Phase::Up, None), "no per-packet loss hook");
    h.lost_in_sample = 1;
    h.ack();
    // max(30 in flight, target inflight 40 + 3); UP ends, and DOWN at once finds the flight
    // below BDP + 3.
    assert_eq!((h.cc.phase(), h.cc.inflight_hi()), (Phase::Cruise, Some(43)));
    assert_eq!(h.cc.inflight_with_headroom(), 43, "no headroom");
    h.lost_in_sample = 0;
    h.flight = None;
    let (end, mut probes) = (h.s.now + 2 * SEC, 0);
    h.until(3 * SEC, |h| {
        assert_eq!(h.cc.inflight_hi(), Some(43));
        assert!(h.s.cwnd <= 43);
        if h.cc.phase() == Phase::Up && h.cc.cycle_start == h.s.now {
            probes += 1;
        }
        h.s.now >= end
    });
    // The next probe stops where the last was too high (a risky probe) and probes again at
    // once; that one finds no loss and stays in UP, cwnd-limited at inflight_hi = 43, below
    // UP's exit at 1.25 BDP + 3, with inflight_hi never raised.
    assert_eq!((probes, h.cc.phase(), h.s.cwnd), (2, Phase::Up, 43));
}

/// Port A's windows also come from the BDP model (the FaiRTT seam): twice the BDP gives
/// floor(2.89 x 80) + 3 in ProbeBW, 4 packets in ProbeRTT, 80 + 3 after it.
#[test]
fn ns3_lanigan_windows_come_from_the_bdp_model() {
    let seen = Rc::new(Cell::new((0, None)));
    let mut h = Harness::with_model(&NS3_LANIGAN, Box::new(DoubleBdp(seen)));
    h.run_to_probe_bw();
    h.until(SEC, |h| h.cc.phase() == Phase::Up);
    h.round();
    assert_eq!(h.s.cwnd, 234);
    h.rtt = 50 * MS;
    h.until(11 * SEC, |h| h.cc.mode() == Mode::ProbeRtt);
    h.rtt = RTT;
    assert_eq!(h.s.cwnd, 4);
    h.until(SEC, |h| h.cc.mode() == Mode::ProbeBw);
    assert_eq!(h.s.cwnd, 83);
}
