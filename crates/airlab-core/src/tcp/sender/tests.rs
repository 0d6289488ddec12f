//! The sender's loss detection against RFC 8985's rules, driven ACK by ACK: the reordering
//! window and its timer, the duplicate-ACK threshold, a lost retransmission and the tail loss
//! probe's timeout.

use super::*;
use crate::counters::FlowStats;
use crate::net::SackBlocks;
use crate::sim::MS;
use crate::tcp::jiffies::Jiffies;
use crate::tcp::{cc, LossDetection};

const MSS: u64 = 1448;
/// The receive window every ACK advertises: never the limit here.
const WINDOW: u64 = 1 << 30;
/// Path RTT: the SYN-ACK sets sRTT and min_rtt to it.
const RTT: Time = 100 * MS;

/// Linux's defaults with timers that fire at their exact deadlines (`jiffies.rs` has the
/// kernel's ticks, which `the_probe_fires_on_a_kernel_tick` checks here).
fn exact_timers() -> TcpConfig {
    TcpConfig { jiffies: Jiffies::default(), ..TcpConfig::default() }
}

/// A RACK-TLP sender with its ACKs, timers and output; nothing else in the world.
struct Harness {
    snd: TcpSender,
    flow: FlowStats,
    out: Vec<Packet>,
    timers: Vec<(Time, TimerKind)>,
    now: Time,
    /// The timestamp the ACKs echo (0: none, as without the option).
    tsecr: Time,
}

impl Harness {
    /// Connected at `RTT` with `segments` of data to send (cwnd 10), timers exact.
    fn new(segments: u64) -> Self {
        Self::with_config(segments, exact_timers())
    }

    /// The same with `opts` (RACK-TLP, no TCP Small Queues).
    fn with_config(segments: u64, opts: TcpConfig) -> Self {
        let opts = TcpConfig { small_queues: false, recovery: LossDetection::RackTlp, ..opts };
        let cc = cc::CcEnv::scratch(|env| cc::create(&cc::Config::named("reno"), env)).unwrap();
        let flow = FlowStats::new("f".into(), "a".into(), "b".into(), None, "bulk");
        let mut h =
            Harness { snd: TcpSender::new(0, 0, 0, 1, opts, cc), flow, out: vec![], timers: vec![], now: 0, tsecr: 0 };
        h.with(|snd, ctx| {
            snd.open(ctx);
            snd.write(segments * MSS, ctx);
        });
        h.out.clear();
        h.now = RTT;
        let synack = TcpSegment { flags: flags::SYN | flags::ACK, wnd: WINDOW, ..Default::default() };
        h.with(|snd, ctx| snd.on_segment(&synack, ctx));
        h
    }

    fn with(&mut self, f: impl FnOnce(&mut TcpSender, &mut Ctx)) {
        let mut ctx = Ctx { now: self.now, out: &mut self.out, timers: &mut self.timers, flow: &mut self.flow };
        f(&mut self.snd, &mut ctx);
    }

    /// The segments (1-based numbers) sent since the last call.
    fn sent(&mut self) -> Vec<u64> {
        self.out.drain(..).map(|p| p.tcp().unwrap().seq / MSS + 1).collect()
    }

    /// An ACK at `at` for segments below `cum` (1-based: everything before segment `cum`) with
    /// SACK blocks over segments `first..=last`.
    fn ack(&mut self, at: Time, cum: u64, sacked: &[(u64, u64)]) {
        self.run_timers(at);
        self.now = at;
        self.ack_now(cum, sacked);
    }

    /// The same, at the current time and without running timers.
    fn ack_now(&mut self, cum: u64, sacked: &[(u64, u64)]) {
        let mut sack = SackBlocks::default();
        for &(first, last) in sacked {
            sack.push((first - 1) * MSS, last * MSS);
        }
        let seg = TcpSegment {
            ack: (cum - 1) * MSS,
            flags: flags::ACK,
            sack,
            wnd: WINDOW,
            tsecr: self.tsecr,
            ..Default::default()
        };
        self.with(|snd, ctx| snd.on_segment(&seg, ctx));
    }

    /// Fire the socket's timers due up to `until`, in order.
    fn run_timers(&mut self, until: Time) {
        while self.fire_next(until).is_some() {}
    }

    /// Fire timers due up to `until` until one sends something; returns when it fired.
    fn fire_next(&mut self, until: Time) -> Option<Time> {
        loop {
            self.timers.sort_by_key(|&(t, _)| std::cmp::Reverse(t));
            let &(t, kind) = self.timers.last().filter(|&&(t, _)| t <= until)?;
            self.timers.pop();
            self.now = t;
            let before = self.out.len();
            self.with(|snd, ctx| snd.on_timer(kind, ctx));
            if self.out.len() > before {
                return Some(t);
            }
        }
    }
}

/// RFC 8985 section 6.2 step 4: with one SACK and no reordering seen, the hole waits
/// RACK.rtt + min_rtt/4 from its send, and the reordering timer (plus Linux's 2 ms slack)
/// marks it lost then.
#[test]
fn one_sack_waits_a_quarter_rtt_then_the_reordering_timer_repairs() {
    let mut h = Harness::new(10);
    assert_eq!(h.sent(), (1..=10).collect::<Vec<_>>(), "the initial window at {RTT}");
    // Segment 3 arrives, 2 does not: the ACK at 200 ms acks 1 and SACKs 3.
    h.ack(2 * RTT, 2, &[(3, 3)]);
    assert!(h.sent().is_empty(), "not lost yet: sent 100 ms ago, RACK.rtt + reo_wnd = 125 ms");
    assert_eq!(h.snd.st.ca_state, CaState::Disorder);
    // Sent at 100 ms, lost at 100 + 125 ms; the timer fires 2 ms later.
    assert_eq!(h.fire_next(10 * RTT), Some(RTT + RTT + RTT / 4 + 2 * MS));
    assert_eq!(h.snd.st.ca_state, CaState::Recovery);
    assert_eq!(h.sent()[0], 2, "the hole is retransmitted first");
}

/// With DupThresh (3) segments SACKed and no reordering seen, the window is zero: the hole is
/// lost at once (Linux keeps RFC 6675's rule inside RACK).
#[test]
fn three_sacks_mark_the_hole_lost_at_once() {
    let mut h = Harness::new(10);
    h.sent();
    h.ack(2 * RTT, 2, &[(3, 5)]);
    assert_eq!(h.snd.st.ca_state, CaState::Recovery);
    assert_eq!(h.sent().first(), Some(&2));
}

/// A retransmission that is lost too is found by RACK once a segment sent after it is
/// delivered and RACK.rtt has passed (RFC 8985 section 3.2's lost-retransmission case): no RTO.
#[test]
fn a_lost_retransmission_is_retransmitted_again_without_a_timeout() {
    let mut h = Harness::new(40);
    h.sent();
    h.ack(2 * RTT, 2, &[(3, 5)]);
    assert_eq!(h.sent(), vec![2], "fast retransmit at 200 ms; PRR sends nothing more yet");
    // 10 ms later more SACKs arrive and PRR releases new data, sent after the retransmission.
    h.ack(2 * RTT + 10 * MS, 2, &[(3, 8)]);
    let new = h.sent();
    assert!(!new.is_empty() && new.iter().all(|&n| n > 10), "new data after the retransmission: {new:?}");
    // Those are delivered an RTT later, the retransmission is not: it was sent before them
    // and RACK.rtt (100 ms) has passed since, so it is lost again.
    let (lo, hi) = (new[0], *new.last().unwrap());
    h.ack(3 * RTT + 10 * MS, 2, &[(lo, hi), (3, 10)]);
    assert_eq!(h.sent().first(), Some(&2), "retransmitted again at 310 ms");
    assert_eq!(h.flow.total.retransmits, 2);
    assert_eq!(h.snd.st.ca_state, CaState::Recovery, "still the same recovery, no timeout");
}

/// Linux `tcp_xmit_retransmit_queue`: retransmitting the oldest segment restarts the RTO even
/// when new data leaves with it. Before it, the ACK that started the recovery replaced the
/// pending probe with an RTO counted from the oldest segment's send (`tcp_rearm_rto`); left
/// there, a retransmission queued behind a deep buffer would time out before it is back.
#[test]
fn retransmitting_the_oldest_segment_restarts_the_rto_even_with_new_data() {
    let mut h = Harness::new(40);
    assert_eq!(h.sent(), (1..=10).collect::<Vec<_>>(), "sent at {RTT}");
    // Segment 1 is ACKed with 3-10 SACKed: segment 2 is lost, and PRR lets new data follow
    // its retransmission.
    h.ack(2 * RTT, 2, &[(3, 10)]);
    assert_eq!(h.sent(), vec![2, 11, 12, 13, 14], "the retransmission first, then new data");
    let rto = h.snd.rtt.rto();
    let counted_from_the_original = RTT + rto;
    assert_eq!(h.fire_next(20 * RTT), Some(2 * RTT + rto), "not at {counted_from_the_original}");
    assert_eq!(h.sent().first(), Some(&2));
    assert_eq!(h.snd.st.ca_state, CaState::Loss);
}

/// RFC 8985 section 7.2 as Linux: with more than one segment out, PTO = 2 sRTT + 2 ms after
/// the last transmission; the probe retransmits the highest segment when no new data is left.
#[test]
fn the_tail_loss_probe_fires_after_two_srtt() {
    let mut h = Harness::new(10);
    h.sent();
    assert_eq!(h.fire_next(10 * RTT), Some(RTT + 2 * RTT + 2 * MS));
    assert_eq!(h.sent(), vec![10], "the highest segment probes the tail");
    assert_eq!(h.snd.st.ca_state, CaState::Open, "a probe is not a recovery");
}

/// With one segment out the PTO adds rto_min (200 ms) for the receiver's delayed ACK, and
/// after an ACK it is never later than the RTO: here 2 x 100 + 200 ms > RTO = 300 ms.
#[test]
fn a_lone_segment_is_probed_no_later_than_the_rto() {
    let mut h = Harness::new(10);
    h.sent();
    h.ack(2 * RTT, 10, &[]);
    let pto = 2 * h.snd.rtt.srtt + crate::tcp::rto::DEFAULT_RTO_MIN;
    let rto = h.snd.rtt.rto();
    assert_eq!((pto, rto), (400 * MS, 300 * MS));
    assert_eq!(h.fire_next(20 * RTT), Some(2 * RTT + rto));
    assert_eq!(h.sent(), vec![10]);
}

/// RFC 5682 (SACK-enhanced F-RTO, as Linux): a timeout fires while the window was only
/// delayed; the first ACK after it covers a segment that was never retransmitted, so the
/// timeout was spurious: cwnd and ssthresh come back, nothing is marked lost, and the sender
/// goes on with new data instead of resending the window (go-back-N).
#[test]
fn frto_undoes_a_spurious_timeout() {
    let run = |frto: bool| {
        let mut h = Harness::with_config(40, TcpConfig { frto, ..exact_timers() });
        h.sent();
        // Nothing comes back: the probe (new segment 11) at 302 ms, the RTO at 602 ms.
        assert_eq!(h.fire_next(10 * RTT), Some(302 * MS));
        assert_eq!(h.sent(), vec![11]);
        assert_eq!(h.fire_next(10 * RTT), Some(602 * MS));
        assert_eq!(h.sent(), vec![1], "the timeout resends the first segment");
        assert_eq!(h.snd.st.ca_state, CaState::Loss);
        // The delayed ACK of the originals of segments 1 and 2 arrives.
        h.now = 650 * MS;
        h.ack_now(3, &[]);
        (h.snd.st.ca_state, h.snd.st.cwnd, h.snd.sb.lost_out, h.sent(), h.flow.total.spurious_rtos)
    };
    let (state, cwnd, lost, sent, spurious) = run(true);
    assert_eq!((state, lost, spurious), (CaState::Open, 0, 1));
    assert!(cwnd >= 10, "cwnd restored: {cwnd}");
    assert!(sent.iter().all(|&n| n > 11), "new data only, no go-back-N: {sent:?}");
    let (state, _, lost, sent, spurious) = run(false);
    assert_eq!((state, spurious), (CaState::Loss, 0));
    assert!(lost > 0);
    assert_eq!(sent, vec![3, 4, 5], "without F-RTO the window is resent: cwnd 1 + 2 ACKed");
}

/// Linux `tcp_try_undo_dsack`: a fast retransmission caused by reordering is DSACKed by the
/// receiver (it got the segment twice): the reduction is undone.
#[test]
fn a_dsacked_fast_retransmission_is_undone() {
    let mut h = Harness::new(40);
    h.sent();
    h.ack(2 * RTT, 2, &[(3, 5)]);
    assert_eq!(h.sent(), vec![2]);
    assert_eq!(h.snd.st.ssthresh, 5);
    // Segment 2 was only late: the original arrives, then the retransmission (a DSACK).
    h.ack(2 * RTT + MS, 6, &[]);
    h.ack(3 * RTT, 6, &[(2, 2)]);
    assert_eq!(h.flow.total.undos, 1);
    assert_eq!((h.snd.st.ssthresh, h.snd.st.ca_state), (u32::MAX, CaState::Open));
    assert!(h.snd.st.cwnd >= 10, "cwnd restored: {}", h.snd.st.cwnd);
}

/// Linux `tcp_clean_rtx_queue` and `tcp_ack_update_rtt`: an ACK that cumulatively covers a
/// retransmission gives no RTT from its original transmissions either (Karn); with timestamps
/// the echo gives one, in whole milliseconds, to sRTT and min_rtt alike.
#[test]
fn an_ack_of_a_retransmission_takes_the_timestamp_echos_rtt_in_milliseconds() {
    for (tsecr, min_rtt, srtt) in [(2 * RTT, 37 * MS, RTT - RTT / 8 + 37 * MS / 8), (0, RTT, RTT)] {
        let mut h = Harness::new(10);
        h.sent();
        h.ack(2 * RTT, 2, &[(3, 5)]);
        assert_eq!(h.sent(), vec![2], "retransmitted at 200 ms");
        // 37.6 ms later everything is ACKed: 2 (retransmitted), 3-5 (SACKed before) and 6-10,
        // whose 137.6 ms Karn's rule voids with the retransmission's. The echo of the
        // retransmission's 200 ms gives 237 - 200 ms.
        h.tsecr = tsecr;
        h.ack(2 * RTT + 37_600_000, 11, &[]);
        assert_eq!((h.snd.rtt.min_rtt, h.snd.rtt.srtt), (min_rtt, srtt), "echo {tsecr}");
    }
}

/// The probe timer runs on the kernel's ticks: with HZ = 250 the 202 ms PTO of the test above
/// is 51 jiffies counted from the jiffy the ACK came in, and fires on the tick after them.
#[test]
fn the_probe_fires_on_a_kernel_tick() {
    let opts = TcpConfig { jiffies: Jiffies::new(250).with_phase(MS), ..TcpConfig::default() };
    let mut h = Harness::with_config(10, opts);
    h.sent();
    h.ack(2 * RTT, 5, &[]);
    // The ACK at 200 ms falls in the jiffy that began at 197 ms: 51 jiffies on, the probe
    // fires on the tick at 197 + 52 * 4 = 405 ms, 3 ms after its exact 402 ms.
    assert_eq!(h.fire_next(10 * RTT), Some(405 * MS));
}

/// Linux `tcp_update_skb_after_send`: the first ten segments leave unpaced (as with the
/// original sch_fq); from the tenth on, each sets the next one's earliest departure one
/// payload's time at the pacing rate later, less up to half of that when the sender comes
/// late for its slot.
#[test]
fn pacing_spares_the_initial_window_and_gives_a_late_sender_half_a_gap_back() {
    let mut h = Harness::with_config(30, TcpConfig { pacing: true, ..exact_timers() });
    assert_eq!(h.sent(), (1..=10).collect::<Vec<_>>(), "the initial window leaves at once");
    // 200 % of cwnd / sRTT in slow start: 10 segments per 50 ms, 5 ms after the tenth.
    assert_eq!(h.snd.st.next_departure, RTT + 5 * MS);
    // The first ACK comes 95 ms after that slot; cwnd 11 lets two go. Segment 11 leaves at
    // once and 12 half a gap later, the gap now 50 ms / 11.
    h.ack(2 * RTT, 2, &[]);
    assert_eq!(h.sent(), vec![11]);
    assert_eq!(h.snd.st.pacing_rate, 2 * 11 * MSS * 10);
    let gap = MSS * SEC / h.snd.st.pacing_rate;
    let slot = 2 * RTT + gap - gap / 2;
    assert_eq!(h.fire_next(3 * RTT), Some(slot));
    assert_eq!(h.sent(), vec![12]);
    // Sent on time, segment 12 keeps the whole gap.
    assert_eq!(h.snd.st.next_departure, slot + gap);
}

/// ns-3 (`Stack::Ns3`) measures every RTT from the timestamp echo in whole milliseconds, and
/// only on an ACK for new data; it never undoes a reduction a DSACK shows was spurious.
#[test]
fn ns3_measures_rtt_from_the_echo_in_milliseconds_and_undoes_nothing() {
    let ns3 = || TcpConfig { stack: crate::tcp::Stack::Ns3, ..exact_timers() };
    let mut h = Harness::with_config(10, ns3());
    h.sent();
    // The first flight left at 100 ms; its ACK 37.6 ms later echoes that: 37 ms, not 37.6.
    h.tsecr = RTT;
    h.ack(RTT + 37_600_000, 3, &[]);
    assert_eq!(h.snd.rtt.min_rtt, 37 * MS);
    // Without the echo there is no sample at all.
    let mut h = Harness::with_config(10, ns3());
    h.sent();
    h.ack(RTT + 37_600_000, 3, &[]);
    assert_eq!(h.snd.rtt.min_rtt, RTT, "the handshake's sample only");
    // The DSACKed retransmission of `a_dsacked_fast_retransmission_is_undone`, under ns-3.
    let mut h = Harness::with_config(40, ns3());
    h.sent();
    h.ack(2 * RTT, 2, &[(3, 5)]);
    assert_eq!(h.sent(), vec![2]);
    h.ack(2 * RTT + MS, 6, &[]);
    h.ack(3 * RTT, 6, &[(2, 2)]);
    assert_eq!((h.flow.total.undos, h.snd.st.ssthresh), (0, 5));
}

/// The segment with the last byte of a closed connection carries FIN, first sent and
/// retransmitted, and no other segment does; a connection the application did not close
/// (bulk's stop) sends none.
#[test]
fn the_last_segment_of_a_closed_connection_carries_fin() {
    fn fins(h: &mut Harness) -> Vec<(u64, bool)> {
        h.out.drain(..).map(|p| p.tcp().map(|s| (s.seq / MSS + 1, s.has(flags::FIN))).unwrap()).collect()
    }
    for close in [true, false] {
        let mut h = Harness::new(12);
        assert!(fins(&mut h).iter().all(|&(_, fin)| !fin), "the initial window, sent before the close");
        if close {
            h.snd.close();
        }
        h.ack(2 * RTT, 3, &[]);
        assert_eq!(fins(&mut h), vec![(11, false), (12, close)]);
        // Everything but segment 12 is acknowledged; the tail loss probe resends it.
        h.ack(2 * RTT + MS, 12, &[]);
        assert!(h.fire_next(10 * RTT).is_some());
        assert_eq!(fins(&mut h), vec![(12, close)]);
    }
}
