//! Slow-start exit detectors: Linux's classic HyStart (as in `tcp_cubic.c`) and HyStart++
//! (RFC 9406).
//!
//! Both work in rounds of one flight. Linux ends a round when `snd_una` passes the `snd_nxt`
//! recorded at the round's start; the congestion-control seam has no sequence numbers, so a
//! round here starts with `s.delivered + s.packets_in_flight` as its end mark and ends on the
//! first ACK that takes `s.delivered` past that mark, i.e. the ACK for the first segment sent
//! after the round started. This assumes `on_ack` sees `packets_in_flight` after the ACK has
//! been applied and before new segments go out, which is when Linux samples `snd_nxt`.
//!
//! airlab has no TSO/GSO: Linux's allowance for ACK compression from segmentation offload
//! (`hystart_ack_delay`) is taken for one-packet offload units. A flow counts as paced when its
//! socket paces (`s.paced`): every socket has a pacing rate, for TCP Small Queues, but only a
//! paced one spreads its flights.

use super::CcState;
use crate::sim::{Time, MS, SEC};

/// Which detector ends slow start.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum HystartMode {
    /// Plain slow start until loss.
    Off,
    /// Linux's HyStart: ACK-train and delay-increase detection.
    Classic,
    /// RFC 9406: delay increase, then conservative slow start before committing.
    PlusPlus,
}

impl HystartMode {
    /// The words a scenario names the modes by, in the order of [`HystartMode::ALL`].
    pub const WORDS: &'static [&'static str] = &["classic", "hystart++", "off"];
    const ALL: [HystartMode; 3] = [HystartMode::Classic, HystartMode::PlusPlus, HystartMode::Off];

    /// The mode called `word`, one of [`HystartMode::WORDS`].
    pub fn from_word(word: &str) -> Self {
        let i = Self::WORDS.iter().position(|w| *w == word);
        Self::ALL[i.unwrap_or_else(|| panic!("unknown hystart mode `{word}`"))]
    }
}

/// The delivered count that ends the round starting now (see the module docs).
fn round_end_mark(s: &CcState) -> u64 {
    s.delivered + u64::from(s.packets_in_flight)
}

/// Linux's delay threshold and RFC 9406's RttThresh: a delay increase of `min_rtt / 8`,
/// clamped to [4 ms, 16 ms], counts as queue build-up.
pub fn delay_threshold(min_rtt: Time) -> Time {
    (min_rtt / 8).clamp(4 * MS, 16 * MS)
}

/// Linux `hystart_ack_delay`: the ACK train may span this much more, for ACKs that a
/// segmentation-offload burst compresses: the time 4 offload units take at the pacing rate, at
/// most 1 ms. airlab sends one packet at a time, as a host with offload off (`gso_max_size`
/// one packet, as the testbed sets it).
fn ack_delay(s: &CcState) -> Time {
    const GSO_MAX_SIZE: u64 = 1500;
    if s.pacing_rate == 0 {
        return 0;
    }
    (4 * GSO_MAX_SIZE * SEC / s.pacing_rate).min(MS)
}

/// Linux classic HyStart.
#[derive(Clone, Debug)]
pub struct ClassicHystart {
    /// Slow start was ended; stays set until the next RTO (`reset`).
    found: bool,
    round_end: u64,
    round_start: Time,
    /// Arrival of the last ACK of the current ACK train.
    last_ack: Time,
    /// Minimum RTT over the round's samples.
    round_min_rtt: Time,
    samples: u32,
}

impl ClassicHystart {
    /// Detection starts only once cwnd reaches this many segments (`hystart_low_window`).
    pub const LOW_WINDOW: u32 = 16;
    /// ACKs closer than this belong to one train (`hystart_ack_delta_us`).
    pub const ACK_DELTA: Time = 2 * MS;
    /// RTT samples that form a round's minimum before the delay test applies.
    pub const MIN_SAMPLES: u32 = 8;

    pub fn new() -> Self {
        ClassicHystart { found: false, round_end: 0, round_start: 0, last_ack: 0, round_min_rtt: Time::MAX, samples: 0 }
    }

    /// True once slow start was ended by this detector.
    pub fn found(&self) -> bool {
        self.found
    }

    fn start_round(&mut self, s: &CcState) {
        self.round_end = round_end_mark(s);
        self.round_start = s.now;
        self.last_ack = s.now;
        self.round_min_rtt = Time::MAX;
        self.samples = 0;
    }

    /// Process one RTT sample. `min_rtt` is the connection's minimum RTT including this sample
    /// (CUBIC's `delay_min`). On detection, ends slow start with `ssthresh = cwnd`.
    pub fn on_rtt(&mut self, s: &mut CcState, rtt: Time, min_rtt: Time) {
        if self.found || !s.in_slow_start() {
            return;
        }
        // Rounds are kept from the first ACK on; only the tests wait for the low window (as
        // Linux since 5.7: a round that began below it still starts at its first ACK).
        if s.delivered > self.round_end {
            self.start_round(s);
        }
        if s.cwnd < Self::LOW_WINDOW {
            return;
        }

        // ACK train: closely spaced ACKs spanning half a minimum RTT mean the flight already
        // fills the pipe. Paced flights spread ACKs out, so they get the whole min RTT.
        if s.now - self.last_ack <= Self::ACK_DELTA {
            self.last_ack = s.now;
            let span = min_rtt + ack_delay(s);
            let span = if s.paced { span } else { span / 2 };
            if s.now - self.round_start > span {
                self.exit(s);
            }
        }

        // Delay increase: the round's minimum RTT rose above the path's minimum by more than
        // the threshold, so a queue is building.
        self.round_min_rtt = self.round_min_rtt.min(rtt);
        if self.samples < Self::MIN_SAMPLES {
            self.samples += 1;
        } else if self.round_min_rtt > min_rtt + delay_threshold(min_rtt) {
            self.exit(s);
        }
    }

    fn exit(&mut self, s: &mut CcState) {
        self.found = true;
        s.ssthresh = s.cwnd;
    }
}

impl Default for ClassicHystart {
    fn default() -> Self {
        Self::new()
    }
}

/// Where HyStart++ is in its slow start.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Phase {
    SlowStart,
    /// Conservative slow start, entered at `baseline_min_rtt`; `rounds` ended so far.
    Css {
        baseline_min_rtt: Time,
        rounds: u32,
    },
    /// Not in use: after CSS handed over to congestion avoidance, or after an RTO, when the
    /// RFC recommends standard slow start (the ssthresh found earlier bounds it).
    Done,
}

/// HyStart++ (RFC 9406).
#[derive(Clone, Debug)]
pub struct HystartPlusPlus {
    phase: Phase,
    round_end: u64,
    last_round_min_rtt: Time,
    current_round_min_rtt: Time,
    rtt_samples: u32,
    /// ACKed segments not yet turned into CSS window growth.
    css_acked: u32,
}

impl HystartPlusPlus {
    pub const N_RTT_SAMPLE: u32 = 8;
    pub const CSS_GROWTH_DIVISOR: u32 = 4;
    pub const CSS_ROUNDS: u32 = 5;
    /// Per-ACK growth limit in segments for unpaced flows (paced flows have none).
    pub const L_UNPACED: u32 = 8;

    pub fn new() -> Self {
        HystartPlusPlus {
            phase: Phase::SlowStart,
            round_end: 0,
            last_round_min_rtt: Time::MAX,
            current_round_min_rtt: Time::MAX,
            rtt_samples: 0,
            css_acked: 0,
        }
    }

    /// True while in conservative slow start.
    pub fn in_css(&self) -> bool {
        matches!(self.phase, Phase::Css { .. })
    }

    /// Process one RTT sample; may enter or leave CSS, or end slow start (`ssthresh = cwnd`).
    pub fn on_rtt(&mut self, s: &mut CcState, rtt: Time) {
        if self.phase == Phase::Done || !s.in_slow_start() {
            return;
        }
        if s.delivered > self.round_end {
            self.round_end = round_end_mark(s);
            self.last_round_min_rtt = self.current_round_min_rtt;
            self.current_round_min_rtt = Time::MAX;
            self.rtt_samples = 0;
            if let Phase::Css { baseline_min_rtt, rounds } = self.phase {
                // A partial first round counts towards the limit, as the RFC says.
                if rounds + 1 >= Self::CSS_ROUNDS {
                    s.ssthresh = s.cwnd;
                    self.phase = Phase::Done;
                    return;
                }
                self.phase = Phase::Css { baseline_min_rtt, rounds: rounds + 1 };
            }
        }

        self.current_round_min_rtt = self.current_round_min_rtt.min(rtt);
        self.rtt_samples += 1;
        if self.rtt_samples < Self::N_RTT_SAMPLE {
            return;
        }
        match self.phase {
            Phase::SlowStart if self.last_round_min_rtt != Time::MAX => {
                let thresh = delay_threshold(self.last_round_min_rtt);
                if self.current_round_min_rtt >= self.last_round_min_rtt + thresh {
                    self.phase = Phase::Css { baseline_min_rtt: self.current_round_min_rtt, rounds: 0 };
                    self.css_acked = 0;
                }
            }
            // The RTT fell back below where CSS started: the increase was jitter, not a queue.
            Phase::Css { baseline_min_rtt, .. } if self.current_round_min_rtt < baseline_min_rtt => {
                self.phase = Phase::SlowStart;
            }
            _ => {}
        }
    }

    /// Slow-start growth for `acked` segments; returns the segments left over for congestion
    /// avoidance (only when cwnd reached ssthresh).
    pub fn slow_start(&mut self, s: &mut CcState, acked: u32) -> u32 {
        if self.phase == Phase::Done {
            return s.slow_start(acked);
        }
        let limit = if s.paced { u32::MAX } else { Self::L_UNPACED };
        let acked = acked.min(limit);
        if !self.in_css() {
            return s.slow_start(acked);
        }
        // CSS grows by a quarter of the ACKed segments, carrying the remainder across ACKs.
        self.css_acked += acked;
        let growth = self.css_acked / Self::CSS_GROWTH_DIVISOR;
        self.css_acked %= Self::CSS_GROWTH_DIVISOR;
        s.cwnd = s.cwnd.saturating_add(growth).min(s.ssthresh).min(s.cwnd_clamp);
        0
    }

    /// After an RTO: the RFC recommends HyStart++ for the initial slow start only.
    pub fn on_rto(&mut self) {
        self.phase = Phase::Done;
    }
}

impl Default for HystartPlusPlus {
    fn default() -> Self {
        Self::new()
    }
}

/// The slow-start exit a CUBIC flow uses, with one entry point per hook.
#[derive(Clone, Debug)]
pub enum SlowStartExit {
    Off,
    Classic(ClassicHystart),
    PlusPlus(HystartPlusPlus),
}

impl SlowStartExit {
    pub fn new(mode: HystartMode) -> Self {
        match mode {
            HystartMode::Off => SlowStartExit::Off,
            HystartMode::Classic => SlowStartExit::Classic(ClassicHystart::new()),
            HystartMode::PlusPlus => SlowStartExit::PlusPlus(HystartPlusPlus::new()),
        }
    }

    /// Feed an RTT sample; `min_rtt` is the minimum RTT including it.
    pub fn on_rtt(&mut self, s: &mut CcState, rtt: Time, min_rtt: Time) {
        match self {
            SlowStartExit::Off => {}
            SlowStartExit::Classic(h) => h.on_rtt(s, rtt, min_rtt),
            SlowStartExit::PlusPlus(h) => h.on_rtt(s, rtt),
        }
    }

    /// Slow-start growth; returns the ACKed segments left for congestion avoidance.
    pub fn slow_start(&mut self, s: &mut CcState, acked: u32) -> u32 {
        match self {
            SlowStartExit::PlusPlus(h) => h.slow_start(s, acked),
            _ => s.slow_start(acked),
        }
    }

    /// After an RTO: Linux re-arms classic HyStart; HyStart++ steps aside.
    pub fn on_rto(&mut self) {
        match self {
            SlowStartExit::Off => {}
            SlowStartExit::Classic(h) => *h = ClassicHystart::new(),
            SlowStartExit::PlusPlus(h) => h.on_rto(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::US;

    const MIN_RTT: Time = 100 * MS;

    /// A slow-starting flow with a full window in flight, as seen right after an ACK took one
    /// segment out of the flight: a round is `cwnd` ACKs.
    fn flow(cwnd: u32) -> CcState {
        let mut s = CcState::new(1448, cwnd);
        s.packets_in_flight = cwnd - 1;
        s.now = crate::sim::SEC;
        s
    }

    /// One ACK for one segment, `gap` after the previous one, carrying an RTT sample.
    fn ack(s: &mut CcState, gap: Time) {
        s.now += gap;
        s.delivered += 1;
    }

    /// Feed `n` ACKs `gap` apart with equal RTT samples `rtt` (the path's being `min_rtt`) to
    /// classic HyStart.
    fn classic_acks(h: &mut ClassicHystart, s: &mut CcState, n: u32, gap: Time, rtt: Time, min_rtt: Time) {
        for _ in 0..n {
            ack(s, gap);
            h.on_rtt(s, rtt, min_rtt);
        }
    }

    /// Feed a full round (one ACK per segment in flight) of equal RTT samples to classic HyStart.
    fn classic_round(h: &mut ClassicHystart, s: &mut CcState, rtt: Time) {
        let n = s.cwnd;
        classic_acks(h, s, n, 5 * MS, rtt, MIN_RTT);
    }

    #[test]
    fn threshold_is_an_eighth_of_min_rtt_clamped_to_4_16_ms() {
        assert_eq!(delay_threshold(10 * MS), 4 * MS);
        assert_eq!(delay_threshold(100 * MS), 12_500_000);
        assert_eq!(delay_threshold(400 * MS), 16 * MS);
    }

    #[test]
    fn classic_delay_increase_after_eight_samples_exits_slow_start() {
        for (rtt, exits) in [(MIN_RTT + 13 * MS, true), (MIN_RTT + 12 * MS, false)] {
            let mut h = ClassicHystart::new();
            let mut s = flow(20);
            // ACKs 5 ms apart never form a train, so only the delay test can fire.
            classic_round(&mut h, &mut s, MIN_RTT);
            classic_acks(&mut h, &mut s, ClassicHystart::MIN_SAMPLES, 5 * MS, rtt, MIN_RTT);
            assert_eq!(s.ssthresh, u32::MAX, "8 samples only form the round's minimum");
            classic_acks(&mut h, &mut s, 1, 5 * MS, rtt, MIN_RTT);
            assert_eq!(h.found(), exits, "rtt {rtt}");
            assert_eq!(s.ssthresh, if exits { 20 } else { u32::MAX });
        }
    }

    #[test]
    fn classic_round_minimum_ignores_a_single_late_sample() {
        let mut h = ClassicHystart::new();
        let mut s = flow(20);
        classic_round(&mut h, &mut s, MIN_RTT);
        // One fast sample in the round keeps its minimum at the path's minimum.
        classic_acks(&mut h, &mut s, 1, 5 * MS, MIN_RTT, MIN_RTT);
        classic_acks(&mut h, &mut s, 19, 5 * MS, MIN_RTT + 30 * MS, MIN_RTT);
        assert!(!h.found());
    }

    #[test]
    fn classic_is_inactive_below_the_low_window() {
        let mut h = ClassicHystart::new();
        let mut s = flow(ClassicHystart::LOW_WINDOW - 1);
        classic_round(&mut h, &mut s, MIN_RTT);
        classic_round(&mut h, &mut s, MIN_RTT + 50 * MS);
        assert!(!h.found());
        assert_eq!(s.ssthresh, u32::MAX);
    }

    /// The ACK-train tests' path: 40 ms, every RTT sample at the minimum.
    const TRAIN_MIN_RTT: Time = 40 * MS;

    /// `n` ACKs `gap` apart on the ACK-train tests' path.
    fn train_acks(h: &mut ClassicHystart, s: &mut CcState, n: u32, gap: Time) {
        classic_acks(h, s, n, gap, TRAIN_MIN_RTT, TRAIN_MIN_RTT);
    }

    #[test]
    fn classic_ack_train_spanning_half_min_rtt_exits() {
        let mut h = ClassicHystart::new();
        let mut s = flow(100);
        // The round starts at the first ACK; 1 ms spacing keeps the train going for 20 more.
        train_acks(&mut h, &mut s, 1 + 20, MS);
        assert!(!h.found(), "a train of exactly min_rtt / 2 is not enough");
        train_acks(&mut h, &mut s, 1, MS);
        assert!(h.found());
        assert_eq!(s.ssthresh, 100);
    }

    #[test]
    fn classic_ack_train_breaks_on_a_gap() {
        let mut h = ClassicHystart::new();
        let mut s = flow(100);
        train_acks(&mut h, &mut s, 1, MS);
        train_acks(&mut h, &mut s, 1, 3 * MS);
        train_acks(&mut h, &mut s, 40, MS);
        assert!(!h.found());
    }

    /// The kernel's slow start at 10 Mbit/s, 20 ms (docs/validation.md): ten ACKs, one per
    /// segment 1.2 ms apart, a gap, then a second round of per-segment ACKs. The second round
    /// starts at its first ACK although the window reached the low window only in the first,
    /// so its ACK train spans half the minimum RTT after nine more ACKs.
    #[test]
    fn classic_rounds_start_below_the_low_window() {
        let mut h = ClassicHystart::new();
        let mut s = flow(10);
        let min_rtt = 20 * MS;
        let one_ack = |h: &mut ClassicHystart, s: &mut CcState, gap: Time| {
            ack(s, gap);
            h.on_rtt(s, min_rtt, min_rtt);
            // Slow start: the ACKed segment and one more go out.
            s.cwnd += 1;
            s.packets_in_flight += 1;
        };
        one_ack(&mut h, &mut s, MS);
        for _ in 0..9 {
            one_ack(&mut h, &mut s, 1200 * US);
        }
        one_ack(&mut h, &mut s, 12 * MS);
        for _ in 0..8 {
            one_ack(&mut h, &mut s, 1200 * US);
        }
        assert!(!h.found(), "9.6 ms of train");
        one_ack(&mut h, &mut s, 1200 * US);
        assert!(h.found(), "10.8 ms of train, more than min_rtt / 2");
        assert_eq!(s.ssthresh, 29, "ten segments and nineteen ACKed");
    }

    /// Feed `n` ACKs with equal RTT samples to HyStart++.
    fn plus_acks(h: &mut HystartPlusPlus, s: &mut CcState, n: u32, rtt: Time) {
        for _ in 0..n {
            ack(s, 5 * MS);
            h.on_rtt(s, rtt);
        }
    }

    /// HyStart++ after one round at the path's minimum RTT, with the next round just started.
    fn plus_after_base_round() -> (HystartPlusPlus, CcState) {
        let mut h = HystartPlusPlus::new();
        let mut s = flow(20);
        plus_acks(&mut h, &mut s, 20, MIN_RTT);
        (h, s)
    }

    #[test]
    fn plus_plus_enters_css_on_rtt_increase_and_returns_when_it_falls() {
        let (mut h, mut s) = plus_after_base_round();
        let rtt = MIN_RTT + 13 * MS; // above 100 ms + 12.5 ms
        plus_acks(&mut h, &mut s, HystartPlusPlus::N_RTT_SAMPLE - 1, rtt);
        assert!(!h.in_css());
        plus_acks(&mut h, &mut s, 1, rtt);
        assert!(h.in_css());
        assert_eq!(s.ssthresh, u32::MAX, "CSS is still slow start");

        // CSS grows by a quarter of the ACKed segments.
        let cwnd = s.cwnd;
        assert_eq!(h.slow_start(&mut s, 3), 0);
        assert_eq!(s.cwnd, cwnd);
        h.slow_start(&mut s, 1);
        assert_eq!(s.cwnd, cwnd + 1);

        // Next round: the minimum drops below the CSS baseline, so the exit was spurious.
        plus_acks(&mut h, &mut s, 12, rtt);
        plus_acks(&mut h, &mut s, HystartPlusPlus::N_RTT_SAMPLE, MIN_RTT + 5 * MS);
        assert!(!h.in_css());
        let cwnd = s.cwnd;
        h.slow_start(&mut s, 2);
        assert_eq!(s.cwnd, cwnd + 2);
    }

    #[test]
    fn plus_plus_ignores_an_increase_below_the_threshold() {
        let (mut h, mut s) = plus_after_base_round();
        plus_acks(&mut h, &mut s, 20, MIN_RTT + 12 * MS);
        assert!(!h.in_css());
    }

    #[test]
    fn plus_plus_ends_slow_start_after_css_rounds() {
        let (mut h, mut s) = plus_after_base_round();
        let rtt = MIN_RTT + 20 * MS;
        plus_acks(&mut h, &mut s, 20, rtt);
        assert!(h.in_css());
        // The partial round that entered CSS was the first; four more complete the five.
        for _ in 0..HystartPlusPlus::CSS_ROUNDS - 1 {
            plus_acks(&mut h, &mut s, 20, rtt);
            assert_eq!(s.ssthresh, u32::MAX);
        }
        plus_acks(&mut h, &mut s, 1, rtt);
        assert_eq!(s.ssthresh, s.cwnd);
        assert!(!h.in_css());
    }

    #[test]
    fn plus_plus_limits_growth_per_ack_unless_paced() {
        let mut h = HystartPlusPlus::new();
        let mut s = flow(20);
        h.slow_start(&mut s, 20);
        assert_eq!(s.cwnd, 28);
        s.paced = true;
        h.slow_start(&mut s, 20);
        assert_eq!(s.cwnd, 48);
    }

    #[test]
    fn plus_plus_is_for_the_initial_slow_start_only() {
        let mut exit = SlowStartExit::new(HystartMode::PlusPlus);
        exit.on_rto();
        let mut s = flow(20);
        for _ in 0..20 {
            ack(&mut s, 5 * MS);
            exit.on_rtt(&mut s, MIN_RTT, MIN_RTT);
        }
        for _ in 0..20 {
            ack(&mut s, 5 * MS);
            exit.on_rtt(&mut s, MIN_RTT + 50 * MS, MIN_RTT);
        }
        assert_eq!(s.ssthresh, u32::MAX);
        assert_eq!(exit.slow_start(&mut s, 20), 0);
        assert_eq!(s.cwnd, 40, "standard slow start, no per-ACK limit");
    }
}
