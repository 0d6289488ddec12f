//! Unit tests of BBRv1 on a synthetic ACK clock: one ACK per delivered segment, each with a
//! delivery-rate sample of the rate the test chooses.

use super::*;
use crate::tcp::cc::Shared;
use crate::tcp::rate::RateSample;

const MSS: u32 = 1000;
const RTT: Time = 100 * MS;

/// A synthetic ACK clock driving one BBRv1 instance: every ACK delivers one segment and
/// carries a delivery-rate sample of the rate we choose.
struct Feed {
    cc: Bbr1,
    s: CcState,
    /// `delivered` just after the first ACK of the current round: the `prior_delivered` of
    /// the segments sent from then on.
    round_mark: u64,
    /// ACKs in the previous round (the initial window all went out before any delivery).
    prev_round_acks: u64,
}

impl Feed {
    fn new(seed: u64) -> Feed {
        Feed::with_params(seed, &crate::tcp::cc::Config::named("bbr1"))
    }

    fn with_params(seed: u64, params: &Config) -> Feed {
        let mut shared = Shared::default();
        let mut env = CcEnv { rng: Rng::stream(seed, "bbr1-test"), shared: &mut shared, conn: 0 };
        let mut cc = Bbr1::of(params, &mut env);
        let mut s = CcState::new(MSS, 10);
        s.srtt = RTT;
        s.min_rtt = RTT;
        cc.init(&mut s);
        Feed { cc, s, round_mark: 0, prev_round_acks: 1 }
    }

    /// One ACK `dt` after the previous one, for a segment sent when `delivered` was
    /// `prior_delivered`, with a delivery-rate sample of `bw` segments per second.
    fn ack(&mut self, dt: Time, bw: f64, rtt: Time, inflight: u32, prior_delivered: u64, lost: u32) {
        self.s.now += dt;
        self.s.delivered += 1;
        self.s.lost += u64::from(lost);
        self.s.packets_in_flight = inflight;
        let interval = (100.0 * SEC as f64 / bw).round() as Time;
        let rate = RateSample {
            delivered: 100,
            interval,
            delivery_rate: 100.0 * f64::from(MSS) * SEC as f64 / interval as f64,
            prior_delivered,
            tx_in_flight: inflight,
            rtt,
            ..Default::default()
        };
        let ack = AckSample { acked: 1, rtt: Some(rtt), newly_lost: lost, ece: false, rate, ..Default::default() };
        self.cc.on_ack(&mut self.s, &ack);
    }

    /// A round trip of `n` ACKs spread over `rtt`; its first ACK starts a BBR round.
    fn round(&mut self, n: u64, bw: f64, rtt: Time, inflight: u32) {
        let mark = self.round_mark;
        for j in 0..n {
            // Segments ACKed in this round were sent during the previous one.
            let prior = mark + j.min(self.prev_round_acks.saturating_sub(1));
            self.ack(rtt / n, bw, rtt, inflight, prior, 0);
            if j == 0 {
                self.round_mark = self.s.delivered;
            }
        }
        self.prev_round_acks = n;
    }

    /// An ACK within the current round (not starting a new one).
    fn ack_in_round(&mut self, dt: Time, bw: f64, rtt: Time, inflight: u32) {
        let prior = self.round_mark.saturating_sub(1);
        self.ack(dt, bw, rtt, inflight, prior, 0);
    }

    /// Startup with bw doubling, three flat rounds at 1000 segments/s, then Drain down to
    /// one BDP: ends in ProbeBW.
    fn fill_pipe(&mut self) {
        for bw in [250.0, 500.0, 1000.0, 1000.0, 1000.0, 1000.0] {
            self.round(10, bw, RTT, 300);
        }
        assert_eq!(self.cc.mode(), Mode::Drain);
        self.ack_in_round(10 * MS, 1000.0, RTT, 100);
        assert_eq!(self.cc.mode(), Mode::ProbeBw);
    }

    /// A fresh instance run through [`Feed::fill_pipe`] into ProbeBW.
    fn in_probe_bw(seed: u64) -> Feed {
        let mut feed = Feed::new(seed);
        feed.fill_pipe();
        feed
    }

    /// `n` ACKs within the round at the filled pipe's rate (1000 segments/s, 10 ms apart).
    fn acks_in_round(&mut self, n: usize, inflight: u32) {
        for _ in 0..n {
            self.ack_in_round(10 * MS, 1000.0, RTT, inflight);
        }
    }

    fn target_cwnd(&self) -> u32 {
        let c = &self.cc;
        c.quantization_budget(&self.s, c.bdp(c.bw(), c.cwnd_gain) + c.ack_aggregation_cwnd())
    }
}

#[test]
fn startup_exits_after_exactly_three_rounds_without_25_percent_growth() {
    let mut feed = Feed::new(1);
    // Each entry: this round's bandwidth and whether the pipe counts as full after it.
    let rounds = [
        (100.0, false),
        (200.0, false),
        (400.0, false),
        (800.0, false),
        (900.0, false),  // +12.5 %: 1 round without growth
        (950.0, false),  // 2
        (1000.0, false), // 1.25 x 800: growth, the count restarts from 1000
        (1100.0, false), // 1
        (1200.0, false), // 2
        (1240.0, true),  // 3: the pipe is full
    ];
    for (i, (bw, full)) in rounds.into_iter().enumerate() {
        feed.round(10, bw, RTT, 1000);
        assert_eq!(feed.cc.full_bw_reached(), full, "round {i} at {bw}");
        let want = if full { Mode::Drain } else { Mode::Startup };
        assert_eq!(feed.cc.mode(), want, "round {i} at {bw}");
        assert!((feed.cc.max_bw() - bw).abs() < 1e-3, "{} vs {bw}", feed.cc.max_bw());
    }
    assert_eq!(feed.s.ssthresh, 124 + 3 * 3 + 1, "ssthresh = BDP + 3 TSO bursts of 3, even");
}

#[test]
fn app_limited_rounds_do_not_count_towards_a_full_pipe() {
    let mut feed = Feed::new(1);
    for bw in [100.0, 200.0, 400.0] {
        feed.round(10, bw, RTT, 1000);
    }
    for _ in 0..5 {
        let mark = feed.round_mark;
        feed.s.now += 10 * MS;
        feed.s.delivered += 1;
        let rate = RateSample {
            delivered: 10,
            interval: RTT,
            prior_delivered: mark,
            is_app_limited: true,
            rtt: RTT,
            ..Default::default()
        };
        feed.cc.on_ack(&mut feed.s, &AckSample { acked: 1, rtt: Some(RTT), rate, ..Default::default() });
        feed.round_mark = feed.s.delivered;
    }
    assert_eq!(feed.cc.mode(), Mode::Startup);
    assert_eq!(feed.cc.max_bw(), 400.0, "app-limited samples below the max are not taken");
}

#[test]
fn drain_exits_when_inflight_falls_to_one_bdp() {
    let mut feed = Feed::new(1);
    for bw in [250.0, 500.0, 1000.0, 1000.0, 1000.0, 1000.0] {
        feed.round(10, bw, RTT, 300);
    }
    assert_eq!(feed.cc.mode(), Mode::Drain);
    assert!((feed.cc.pacing_gain() - 88.0 / 256.0).abs() < 1e-12);
    // BDP = 1000 segments/s x 100 ms = 100, plus 3 bursts of 2 segments at the drain rate
    // (0.34 x 1 MB/s is below 64 kB per 1 ms burst, and above 1.2 Mbit/s): 106.
    for inflight in (107..=200).rev() {
        feed.ack_in_round(MS, 1000.0, RTT, inflight);
        assert_eq!(feed.cc.mode(), Mode::Drain, "inflight {inflight}");
    }
    feed.ack_in_round(MS, 1000.0, RTT, 106);
    assert_eq!(feed.cc.mode(), Mode::ProbeBw);
    assert_ne!(feed.cc.cycle_idx(), 1, "never enters the cycle at the 3/4 phase");
}

#[test]
fn probe_bw_starts_at_a_random_phase_other_than_three_quarters() {
    let mut seen = [0u32; 8];
    for seed in 0..300 {
        let feed = Feed::in_probe_bw(seed);
        seen[feed.cc.cycle_idx()] += 1;
    }
    assert_eq!(seen[1], 0, "{seen:?}");
    // Seven equally likely start phases: 0 and 2..=7, about 43 each.
    for (i, &n) in seen.iter().enumerate().filter(|(i, _)| *i != 1) {
        assert!((20..70).contains(&n), "phase {i}: {n} of 300 ({seen:?})");
    }
}

#[test]
fn probe_bw_cycles_through_the_eight_phases_one_min_rtt_each() {
    let mut feed = Feed::in_probe_bw(7);
    let start = feed.cc.cycle_idx();
    let mut idx = start;
    let mut since = feed.s.now;
    let mut phases = vec![start];
    // ACKs every 10 ms; inflight high enough to reach 5/4 BDP and to keep the 3/4 phase
    // from ending early, so every phase lasts just over one min_rtt: 110 ms.
    while phases.len() < 17 {
        feed.ack_in_round(10 * MS, 1000.0, RTT, 200);
        let now_idx = feed.cc.cycle_idx();
        if now_idx != idx {
            assert_eq!(now_idx, (idx + 1) % 8, "phases advance in order");
            assert_eq!(feed.s.now - since, 110 * MS, "phase {idx} lasted one min_rtt");
            idx = now_idx;
            since = feed.s.now;
            phases.push(idx);
        }
        let want = [1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0][idx];
        assert_eq!(feed.cc.pacing_gain(), want);
        assert_eq!(feed.cc.cwnd_gain(), 2.0);
    }
    assert_eq!(phases.len(), 17);
}

#[test]
fn gain_phases_end_on_inflight_and_loss() {
    let mut feed = Feed::in_probe_bw(7);
    // Run to the start of the 5/4 phase.
    while feed.cc.cycle_idx() != 0 {
        feed.ack_in_round(10 * MS, 1000.0, RTT, 100);
    }
    // 5/4 BDP = 125, +6 budget, even, +2 in this phase = 134; the EDT burst adds 2 to
    // inflight. Below that the phase outlasts min_rtt.
    for _ in 0..30 {
        feed.ack_in_round(10 * MS, 1000.0, RTT, 120);
        assert_eq!(feed.cc.cycle_idx(), 0);
    }
    // prior_in_flight = 130 + 1 ACKed; + 2 (EDT burst) = 133 < 134.
    feed.ack_in_round(10 * MS, 1000.0, RTT, 130);
    assert_eq!(feed.cc.cycle_idx(), 0);
    feed.ack_in_round(10 * MS, 1000.0, RTT, 131);
    assert_eq!(feed.cc.cycle_idx(), 1, "inflight reached 5/4 BDP");
    // The 3/4 phase ends as soon as inflight is down to one BDP + budget (106).
    feed.ack_in_round(10 * MS, 1000.0, RTT, 120);
    assert_eq!(feed.cc.cycle_idx(), 1);
    feed.ack_in_round(10 * MS, 1000.0, RTT, 105);
    assert_eq!(feed.cc.cycle_idx(), 2, "inflight (105 + 1 ACKed) fell to one BDP");
    // A loss ends the 5/4 phase after min_rtt even below its inflight target.
    while feed.cc.cycle_idx() != 0 {
        feed.ack_in_round(10 * MS, 1000.0, RTT, 100);
    }
    feed.acks_in_round(10, 100);
    assert_eq!(feed.cc.cycle_idx(), 0);
    let prior = feed.round_mark - 1;
    feed.ack(10 * MS, 1000.0, RTT, 100, prior, 1);
    assert_eq!(feed.cc.cycle_idx(), 1, "loss after a full min_rtt");
}

#[test]
fn pacing_rate_is_gain_times_bw_less_one_percent() {
    let mut feed = Feed::in_probe_bw(7);
    // Inflight 140 lets the 5/4 phase end after one min_rtt (its target is 134).
    for _ in 0..100 {
        feed.ack_in_round(10 * MS, 1000.0, RTT, 140);
        let want = [1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0][feed.cc.cycle_idx()] * 1000.0 * 1000.0 * 0.99;
        assert!((feed.s.pacing_rate as f64 - want).abs() <= 1.0, "{} vs {want}", feed.s.pacing_rate);
    }
    // Cruise: exactly bw x 0.99.
    while feed.cc.cycle_idx() < 2 {
        feed.ack_in_round(10 * MS, 1000.0, RTT, 140);
    }
    assert_eq!(feed.s.pacing_rate, 990_000);
}

#[test]
fn startup_pacing_starts_from_cwnd_over_srtt_and_never_falls() {
    let feed = Feed::new(1);
    // 10 segments per 100 ms x 2.885 x 0.99.
    let want = 10.0 * 1000.0 / 0.1 * 739.0 / 256.0 * 0.99;
    assert!((feed.s.pacing_rate as f64 - want).abs() <= 1.0, "{}", feed.s.pacing_rate);
    let mut feed = Feed::new(1);
    feed.round(10, 500.0, RTT, 50);
    let high = feed.s.pacing_rate;
    feed.round(10, 200.0, RTT, 50);
    assert_eq!(feed.s.pacing_rate, high, "a lower estimate does not slow Startup");
}

/// Steady ProbeBW at 1000 segments/s, RTT samples of 120 ms (a standing queue) so the
/// 100 ms min_rtt is never refreshed. Returns the feed on the ACK that entered ProbeRTT.
fn until_probe_rtt(seed: u64) -> (Feed, u32) {
    let mut feed = Feed::in_probe_bw(seed);
    let mut cwnd = feed.s.cwnd;
    loop {
        let before = feed.s.now;
        feed.round(12, 1000.0, 120 * MS, 100);
        if feed.cc.mode() == Mode::ProbeRtt {
            // min_rtt was set at time 0 (the handshake): it expires after 10 s.
            assert!(feed.s.now > 10 * SEC && before <= 10 * SEC + 10 * MS, "{}", feed.s.now);
            return (feed, cwnd);
        }
        cwnd = feed.s.cwnd;
        assert!(feed.s.now < 11 * SEC);
    }
}

#[test]
fn probe_rtt_holds_four_segments_for_200_ms_and_a_round() {
    let (mut feed, _) = until_probe_rtt(3);
    let saved = feed.cc.prior_cwnd;
    assert!(saved > 100, "cwnd before ProbeRTT saved: {saved}");
    assert_eq!(feed.s.cwnd, 4);
    assert_eq!(feed.cc.pacing_gain(), 1.0);
    // The flight drains; the 200 ms clock starts once it is down to 4 segments.
    for inflight in [60, 30, 10, 5] {
        feed.ack_in_round(10 * MS, 1000.0, 100 * MS, inflight);
        assert_eq!(feed.s.cwnd, 4);
        assert!(feed.cc.probe_rtt.done_stamp.is_none());
    }
    feed.ack_in_round(10 * MS, 1000.0, 100 * MS, 4);
    let t0 = feed.s.now;
    assert_eq!(feed.cc.probe_rtt.done_stamp, Some(t0 + 200 * MS));
    // A round ends 50 ms later, but 200 ms must pass too.
    let mark = feed.s.delivered;
    feed.ack(50 * MS, 1000.0, 100 * MS, 4, mark, 0);
    feed.round_mark = feed.s.delivered;
    while feed.s.now < t0 + 200 * MS {
        feed.ack_in_round(10 * MS, 1000.0, 100 * MS, 4);
        assert_eq!(feed.cc.mode(), Mode::ProbeRtt, "{} ms", (feed.s.now - t0) / MS);
        assert_eq!(feed.s.cwnd, 4);
    }
    feed.ack_in_round(10 * MS, 1000.0, 100 * MS, 4);
    assert_eq!(feed.cc.mode(), Mode::ProbeBw);
    assert_eq!(feed.cc.min_rtt(), Some(100 * MS));
    // cwnd restored to the saved one (capped by the target like every ACK's growth).
    assert_eq!(feed.s.cwnd, (saved + 1).min(feed.target_cwnd()));
    assert!(feed.s.cwnd >= saved - 2, "{} vs {saved}", feed.s.cwnd);
}

#[test]
fn probe_rtt_lasts_at_least_one_round_after_200_ms() {
    let (mut feed, _) = until_probe_rtt(4);
    feed.ack_in_round(10 * MS, 1000.0, 100 * MS, 4);
    let t0 = feed.s.now;
    // 300 ms with no round completing (the path's RTT grew): still probing.
    let sent_before_t0 = feed.s.delivered - 1;
    while feed.s.now < t0 + 300 * MS {
        feed.ack(10 * MS, 1000.0, 300 * MS, 4, sent_before_t0, 0);
        assert_eq!(feed.cc.mode(), Mode::ProbeRtt);
    }
    let mark = feed.s.delivered;
    feed.ack(10 * MS, 1000.0, 300 * MS, 4, mark, 0);
    assert_eq!(feed.cc.mode(), Mode::ProbeBw, "the round is done and 200 ms have passed");
    assert!(feed.s.cwnd > 4);
}

#[test]
fn probe_rtt_samples_are_treated_as_app_limited() {
    let (mut feed, _) = until_probe_rtt(5);
    let marked_from = feed.s.delivered;
    let max_bw = feed.cc.max_bw();
    // A segment sent during ProbeRTT delivers at a low rate; it must not enter the filter
    // as a new round's only sample, even once the old maximum ages out.
    feed.ack(10 * MS, 40.0, 100 * MS, 4, marked_from, 0);
    let sample = feed.cc.sample(
        &feed.s,
        &AckSample { rate: RateSample { prior_delivered: marked_from, ..Default::default() }, ..Default::default() },
    );
    assert!(sample.is_app_limited);
    assert_eq!(feed.cc.max_bw(), max_bw);
}

#[test]
fn recovery_conserves_packets_then_restores_the_saved_cwnd() {
    let mut feed = Feed::in_probe_bw(9);
    feed.acks_in_round(200, 150);
    let cwnd = feed.s.cwnd;
    assert!(cwnd > 200, "cwnd at its target of 2 BDP + budget: {cwnd}");
    // The socket enters Recovery: ssthresh() saves cwnd and leaves ssthresh alone.
    let ssthresh = feed.s.ssthresh;
    assert_eq!(feed.cc.ssthresh(&feed.s), ssthresh);
    feed.s.ca_state = CaState::Recovery;
    feed.cc.on_state(&mut feed.s, CaState::Recovery);
    let prior = feed.round_mark - 1;
    feed.ack(10 * MS, 1000.0, RTT, 90, prior, 3);
    assert_eq!(feed.s.cwnd, 91, "first round of Recovery: inflight + acked");
    feed.ack(10 * MS, 1000.0, RTT, 89, prior, 2);
    assert_eq!(feed.s.cwnd, 90, "(91 - 2 lost).max(89 + 1)");
    // A round later, growth resumes at one segment per segment ACKed, up to the target.
    let mark = feed.s.delivered;
    feed.ack(10 * MS, 1000.0, RTT, 89, mark, 0);
    assert_eq!(feed.s.cwnd, 91);
    // Recovery ends: back to the cwnd saved when it began.
    feed.s.ca_state = CaState::Open;
    feed.cc.on_state(&mut feed.s, CaState::Open);
    feed.ack(10 * MS, 1000.0, RTT, 89, mark, 0);
    assert_eq!(feed.s.cwnd, (cwnd + 1).min(feed.target_cwnd()));
}

#[test]
fn policer_detection_uses_the_long_term_rate_for_48_rounds() {
    let mut feed = Feed::in_probe_bw(11);
    // A token-bucket policer: bursts measure 1000 segments/s, but in the long run 10
    // segments are delivered per 100 ms round and 3 in 10 are dropped.
    let mut rounds = 0;
    while !feed.cc.lt_use_bw() {
        let mark = feed.round_mark;
        for j in 0..10u64 {
            feed.ack(10 * MS, 1000.0, RTT, 100, mark + j, u32::from(j % 4 == 0));
            if j == 0 {
                feed.round_mark = feed.s.delivered;
            }
        }
        rounds += 1;
        assert!(rounds <= 8, "two lossy 4-round intervals of equal rate are enough");
    }
    assert!((feed.cc.bw() - 100.0).abs() < 1e-6, "{}", feed.cc.bw());
    assert!(feed.cc.max_bw() > 999.0);
    assert_eq!(feed.cc.pacing_gain(), 1.0);
    feed.round(10, 1000.0, RTT, 100);
    assert!((feed.s.pacing_rate as f64 - 99_000.0).abs() <= 1.0, "{}", feed.s.pacing_rate);
    // 48 rounds of ProbeBW later the long-term rate is dropped and gain cycling resumes.
    for _ in 0..46 {
        feed.round(10, 1000.0, RTT, 100);
        assert!(feed.cc.lt_use_bw());
    }
    feed.round(10, 1000.0, RTT, 100);
    assert!(!feed.cc.lt_use_bw());
    assert!(feed.cc.bw() > 999.0);

    // Switched off, the same losses change nothing.
    let params = crate::tcp::cc::Config::named("bbr1").with("lt_bw", Value::Flag(false));
    let mut feed = Feed::with_params(11, &params);
    feed.fill_pipe();
    for _ in 0..20 {
        let mark = feed.round_mark;
        for j in 0..10u64 {
            feed.ack(10 * MS, 1000.0, RTT, 100, mark + j, u32::from(j % 4 == 0));
            if j == 0 {
                feed.round_mark = feed.s.delivered;
            }
        }
        assert!(!feed.cc.lt_use_bw());
    }
}

#[test]
fn params_are_checked() {
    let mut c = crate::tcp::cc::Config::named("bbr1");
    assert!(c.set("lt_bw", Value::Flag(false)).is_ok() && c.set("probe_rtt_interval", Value::Real(5.0)).is_ok());
    assert!(c.set("lt_bw", Value::Int(1)).is_err());
    assert!(c.set("probe_rtt_interval", Value::Real(0.0)).is_err());
    assert!(c.set("high_gain", Value::Real(3.0)).is_err());
}
