//! CoDel (RFC 8289) as Linux implements it in `include/net/codel_impl.h`, and the `codel`
//! qdisc of `net/sched/sch_codel.c`: one tail-drop FIFO controlled by one [`CodelState`].
//!
//! The state machine acts at dequeue on the head packet's sojourn time. It is written against
//! [`CodelQueue`], so `fq_codel` runs one [`CodelState`] per flow queue.
//!
//! Fidelity notes:
//! - The control law uses `f64` `sqrt`: `drop_next = t + interval / sqrt(count)` exactly as
//!   RFC 8289 states it. Linux keeps a 16-bit fixed-point `1/sqrt(count)` refined by one Newton
//!   step per `count` change (to avoid a division in the kernel fast path); it is within ~0.1 %
//!   once `count` has grown step by step, but coarse for the first drops after a re-entry with
//!   `count = delta`. The exact law is what the tests can check to the nanosecond, and the
//!   approximation's only purpose is kernel speed.
//! - Times are nanoseconds; Linux's `codel_time_t` counts 1.024 µs units.

use super::fifo::PACKET_LIMIT;
use super::{Build, Component, Config, Fifo, Qdisc, Verdicts};
use crate::net::{Ecn, Packet};
use crate::params::{Invalid, Kind, Param, Value};
use crate::sim::{Rng, Time, MS};

/// Linux `psched_mtu()` of an Ethernet device: 1500 + 14 bytes of header. CoDel never drops
/// while the backlog is at most this, so a single packet on a slow link is never dropped.
pub const MTU: u64 = 1514;

/// RFC 8289 and Linux defaults.
pub const DEFAULT_TARGET: Time = 5 * MS;
pub const DEFAULT_INTERVAL: Time = 100 * MS;

pub static CODEL: Component = Component {
    name: "codel",
    doc: "CoDel AQM on one FIFO (RFC 8289, Linux codel)",
    params: &[
        PACKET_LIMIT,
        TARGET,
        INTERVAL,
        Param {
            name: "ecn",
            kind: Kind::Flag,
            default: Value::Flag(false),
            doc: "mark ECN-capable packets instead of dropping them (off in Linux codel)",
        },
        CE_THRESHOLD,
    ],
    check: check_target,
    build: Build(
        |c: &Config, _: Rng| Box::new(Codel::new(c.int("limit") as u32, CodelParams::of(c))),
        super::one_queue,
    ),
};

/// The CoDel parameters `codel` and `fq_codel` share.
pub const TARGET: Param = Param {
    name: "target",
    kind: Kind::Time { min: 1 },
    default: Value::Time(DEFAULT_TARGET),
    doc: "acceptable standing queue delay (sojourn time)",
};
pub const INTERVAL: Param = Param {
    name: "interval",
    kind: Kind::Time { min: 1 },
    default: Value::Time(DEFAULT_INTERVAL),
    doc: "window the sojourn must stay above target before CoDel acts; about a worst-case RTT",
};
pub const CE_THRESHOLD: Param = Param {
    name: "ce_threshold",
    kind: Kind::Time { min: 0 },
    default: Value::Unset,
    doc: "CE-mark ECN-capable packets whose sojourn exceeds this (DCTCP-style); unset: off",
};

/// CoDel watches a window (`interval`) longer than the delay it aims at.
pub fn check_target(c: &Config) -> Result<(), Invalid> {
    if c.time("target") >= c.time("interval") {
        return Err(Invalid::new("target", "target must be less than interval"));
    }
    Ok(())
}

/// Re-entering the dropping state within this many intervals of the last drop schedule resumes
/// near the previous drop rate (Linux `codel_dequeue`).
const REENTRY_INTERVALS: i64 = 16;

#[derive(Clone, Copy, Debug)]
pub struct CodelParams {
    /// Acceptable standing queue delay.
    pub target: Time,
    /// Sliding window over which the sojourn must stay above `target` before CoDel acts; on
    /// the order of a worst-case RTT.
    pub interval: Time,
    /// Mark ECN-capable packets with CE instead of dropping them.
    pub ecn: bool,
    /// Mark (never drop) every ECN-capable packet whose sojourn exceeds this (DCTCP-style).
    pub ce_threshold: Option<Time>,
}

impl CodelParams {
    /// The CoDel parameters of a `codel` or `fq_codel` configuration.
    pub fn of(c: &Config) -> Self {
        CodelParams {
            target: c.time("target"),
            interval: c.time("interval"),
            ecn: c.flag("ecn"),
            ce_threshold: c.opt_time("ce_threshold"),
        }
    }
}

/// The queue CoDel controls: it pops the head, and reports the bytes still queued that the
/// MTU guard looks at (Linux passes the whole qdisc's backlog, also for `fq_codel`).
pub trait CodelQueue {
    fn pop(&mut self) -> Option<Packet>;
    fn backlog(&self) -> u64;
}

/// `struct codel_vars`: the per-queue state of the control loop.
#[derive(Clone, Debug, Default)]
pub struct CodelState {
    /// Drops (or marks) since entering the dropping state; sets the drop rate.
    pub(crate) count: u32,
    /// `count` when the dropping state was last entered.
    lastcount: u32,
    dropping: bool,
    /// When the next drop is due while dropping.
    drop_next: Time,
    /// When the sojourn will have been above target for a whole interval; `None` while below.
    first_above_time: Option<Time>,
    /// Sojourn of the last packet examined.
    ldelay: Time,
}

impl CodelState {
    /// Linux `codel_control_law`: the next drop, `interval / sqrt(count)` after `t`.
    fn control_law(&self, t: Time, p: &CodelParams) -> Time {
        t + (p.interval as f64 / f64::from(self.count).sqrt()).round() as Time
    }

    /// Linux `codel_should_drop`: has the sojourn been above target for at least an interval?
    /// Updates `ldelay` and `first_above_time` as a side effect.
    fn should_drop(&mut self, pkt: Option<&Packet>, backlog: u64, now: Time, p: &CodelParams) -> bool {
        let Some(pkt) = pkt else {
            self.first_above_time = None;
            return false;
        };
        self.ldelay = now - pkt.enqueued_at;
        if self.ldelay < p.target || backlog <= MTU {
            // Went below: it must stay above for a whole interval again before a drop.
            self.first_above_time = None;
            return false;
        }
        match self.first_above_time {
            None => {
                self.first_above_time = Some(now + p.interval);
                false
            }
            Some(t) => now > t,
        }
    }

    /// Linux `codel_dequeue`: the next packet to send, dropping (or CE-marking) on the way as
    /// the control law says. Dropped packets go to `out.dropped`, marked ones to `out.marked`.
    pub fn dequeue(
        &mut self,
        p: &CodelParams,
        queue: &mut impl CodelQueue,
        now: Time,
        out: &mut Verdicts,
    ) -> Option<Packet> {
        let Some(mut pkt) = queue.pop() else {
            self.dropping = false;
            return None;
        };
        let mut marked = false;
        let drop = self.should_drop(Some(&pkt), queue.backlog(), now, p);
        if self.dropping {
            if !drop {
                self.dropping = false;
            } else {
                // A large backlog can make the next drop due at once, hence the loop.
                while self.dropping && now >= self.drop_next {
                    self.count = self.count.saturating_add(1);
                    if p.ecn && pkt.ecn.is_ect() {
                        pkt.ecn = Ecn::Ce;
                        marked = true;
                        self.drop_next = self.control_law(self.drop_next, p);
                        break;
                    }
                    out.dropped.push(pkt);
                    let next = queue.pop();
                    if self.should_drop(next.as_ref(), queue.backlog(), now, p) {
                        self.drop_next = self.control_law(self.drop_next, p);
                    } else {
                        self.dropping = false;
                    }
                    match next {
                        Some(next) => pkt = next,
                        None => return None,
                    }
                }
            }
        } else if drop {
            if p.ecn && pkt.ecn.is_ect() {
                pkt.ecn = Ecn::Ce;
                marked = true;
            } else {
                out.dropped.push(pkt);
                let next = queue.pop();
                // Only for its side effects on ldelay and first_above_time, as in Linux.
                self.should_drop(next.as_ref(), queue.backlog(), now, p);
                self.enter_dropping(now, p);
                pkt = next?;
                return Some(self.ce_threshold(pkt, false, p, out));
            }
            self.enter_dropping(now, p);
        }
        Some(self.ce_threshold(pkt, marked, p, out))
    }

    /// Start dropping. If the previous dropping episode ended recently, resume at the drop rate
    /// it had reached (`count - lastcount` drops happened in it) instead of starting over.
    fn enter_dropping(&mut self, now: Time, p: &CodelParams) {
        self.dropping = true;
        let delta = self.count.wrapping_sub(self.lastcount);
        let since_drop_next = now as i64 - self.drop_next as i64;
        self.count = if delta > 1 && since_drop_next < REENTRY_INTERVALS * p.interval as i64 { delta } else { 1 };
        self.lastcount = self.count;
        self.drop_next = self.control_law(now, p);
    }

    /// Mark the outgoing packet CE if its sojourn exceeds `ce_threshold`; report a mark once.
    fn ce_threshold(&self, mut pkt: Packet, mut marked: bool, p: &CodelParams, out: &mut Verdicts) -> Packet {
        if p.ce_threshold.is_some_and(|threshold| self.ldelay > threshold) && pkt.ecn.is_ect() {
            pkt.ecn = Ecn::Ce;
            marked = true;
        }
        if marked {
            out.marked.push(pkt.clone());
        }
        pkt
    }
}

/// A tail-drop FIFO as CoDel sees it: its head and its bytes.
impl CodelQueue for Fifo {
    fn pop(&mut self) -> Option<Packet> {
        self.pop_head()
    }

    fn backlog(&self) -> u64 {
        self.bytes()
    }
}

/// Linux `sch_codel`: a FIFO of at most `limit` packets (tail drop beyond) under CoDel.
pub struct Codel {
    fifo: Fifo,
    params: CodelParams,
    state: CodelState,
}

impl Codel {
    pub fn new(limit: u32, params: CodelParams) -> Self {
        Codel { fifo: Fifo::pfifo(limit), params, state: CodelState::default() }
    }
}

impl Qdisc for Codel {
    fn kind(&self) -> &'static str {
        "codel"
    }

    fn enqueue(&mut self, pkt: Packet, now: Time, out: &mut Verdicts) {
        self.fifo.enqueue(pkt, now, out);
    }

    fn dequeue(&mut self, now: Time, out: &mut Verdicts) -> Option<Packet> {
        self.state.dequeue(&self.params, &mut self.fifo, now, out)
    }

    fn len(&self) -> usize {
        self.fifo.len()
    }

    fn bytes(&self) -> u64 {
        self.fifo.bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::sim::US;

    fn pkt(size: u32, ecn: Ecn) -> Packet {
        Packet { ecn, ..Packet::datagram(0, size) }
    }

    fn params(ecn: bool) -> CodelParams {
        CodelParams { target: DEFAULT_TARGET, interval: DEFAULT_INTERVAL, ecn, ce_threshold: None }
    }

    /// An endless queue whose head has always waited `sojourn`, holding `backlog` bytes. Time
    /// starts at 0, so it is driven only from `now >= sojourn`: a head cannot have been
    /// enqueued before the run began.
    struct Standing {
        now: Time,
        sojourn: Time,
        backlog: u64,
        ecn: Ecn,
    }

    impl CodelQueue for Standing {
        fn pop(&mut self) -> Option<Packet> {
            Some(Packet { enqueued_at: self.now - self.sojourn, ..pkt(1500, self.ecn) })
        }
        fn backlog(&self) -> u64 {
            self.backlog
        }
    }

    /// Dequeue every microsecond from `from` to `to`; the times at which packets were dropped.
    fn drive(s: &mut CodelState, q: &mut Standing, p: &CodelParams, from: Time, to: Time) -> Vec<Time> {
        let mut drops = Vec::new();
        let mut out = Verdicts::default();
        let mut now = from;
        while now < to {
            q.now = now;
            out.clear();
            assert!(s.dequeue(p, q, now, &mut out).is_some());
            drops.extend(out.dropped.iter().map(|_| now));
            now += US;
        }
        drops
    }

    /// The sojourn of an overloaded queue's head, well above target; also the earliest time
    /// the tests drive such a queue from.
    const OVERLOAD: Time = 20 * MS;

    fn overloaded(ecn: Ecn) -> Standing {
        Standing { now: OVERLOAD, sojourn: OVERLOAD, backlog: 100 * 1500, ecn }
    }

    #[test]
    fn drops_follow_the_control_law() {
        let p = params(false);
        let (mut s, mut q) = (CodelState::default(), overloaded(Ecn::NotEct));
        let drops = drive(&mut s, &mut q, &p, OVERLOAD, 1500 * MS);
        // First drop one interval after the sojourn first exceeded target (strictly after).
        assert_eq!(drops[0], OVERLOAD + DEFAULT_INTERVAL + US);
        assert!(drops.len() > 20, "{} drops", drops.len());
        for (k, gap) in drops.windows(2).map(|w| w[1] - w[0]).enumerate() {
            let count = (k + 1) as f64;
            let law = DEFAULT_INTERVAL as f64 / count.sqrt();
            assert!((gap as f64 - law).abs() <= US as f64, "gap {k}: {gap} ns, law {law} ns");
        }
        assert_eq!(s.count as usize, drops.len());
    }

    #[test]
    fn no_drop_below_target_or_within_one_mtu() {
        let p = params(false);
        let mut s = CodelState::default();
        let mut below = Standing { sojourn: DEFAULT_TARGET - US, ..overloaded(Ecn::NotEct) };
        assert!(drive(&mut s, &mut below, &p, OVERLOAD, 1000 * MS).is_empty());
        let mut one_mtu = Standing { backlog: MTU, ..overloaded(Ecn::NotEct) };
        assert!(drive(&mut s, &mut one_mtu, &p, 1000 * MS, 2000 * MS).is_empty());
        // One byte more and CoDel acts.
        let mut over = Standing { backlog: MTU + 1, ..overloaded(Ecn::NotEct) };
        assert!(!drive(&mut s, &mut over, &p, 2000 * MS, 2200 * MS).is_empty());
    }

    #[test]
    fn reentry_resumes_at_the_last_drop_rate() {
        let p = params(false);
        let (mut s, mut q) = (CodelState::default(), overloaded(Ecn::NotEct));
        let first = drive(&mut s, &mut q, &p, OVERLOAD, 800 * MS);
        let reached = s.count;
        assert_eq!(reached as usize, first.len());
        // A short dip below target ends the dropping state.
        q.sojourn = MS;
        drive(&mut s, &mut q, &p, 800 * MS, 810 * MS);
        assert!(!s.dropping);
        q.sojourn = OVERLOAD;
        let again = drive(&mut s, &mut q, &p, 810 * MS, 1000 * MS);
        // Back above for an interval: the first drop re-enters with count = count - lastcount
        // (lastcount was 1 for the first episode), then the law continues from there.
        assert_eq!(again[0], 910 * MS + US);
        let gap = (again[1] - again[0]) as f64;
        let law = DEFAULT_INTERVAL as f64 / f64::from(reached - 1).sqrt();
        assert!((gap - law).abs() <= US as f64, "{gap} vs {law}");

        // Long after the last drop schedule, re-entry starts over at count = 1.
        let more = drive(&mut s, &mut q, &p, 1000 * MS, 1200 * MS);
        assert!(again.len() + more.len() > 2, "the second episode raised count again");
        q.sojourn = MS;
        drive(&mut s, &mut q, &p, 1200 * MS, 1210 * MS);
        q.sojourn = OVERLOAD;
        let late = drive(&mut s, &mut q, &p, 5000 * MS, 5300 * MS);
        assert_eq!(late[1] - late[0], DEFAULT_INTERVAL);
    }

    #[test]
    fn ecn_marks_ect_packets_and_drops_others() {
        let p = params(true);
        let (mut s, mut q) = (CodelState::default(), overloaded(Ecn::Ect0));
        let mut out = Verdicts::default();
        let mut marks = Vec::new();
        let mut now = OVERLOAD;
        while now < 500 * MS {
            q.now = now;
            out.clear();
            let pkt = s.dequeue(&p, &mut q, now, &mut out).unwrap();
            assert!(out.dropped.is_empty());
            if let Some(m) = out.marked.first() {
                assert_eq!((pkt.ecn, m.ecn, out.marked.len()), (Ecn::Ce, Ecn::Ce, 1));
                marks.push(now);
            } else {
                assert_eq!(pkt.ecn, Ecn::Ect0);
            }
            now += US;
        }
        // Marks follow the same schedule as drops would.
        assert_eq!(marks[0], OVERLOAD + DEFAULT_INTERVAL + US);
        assert_eq!(marks[1] - marks[0], DEFAULT_INTERVAL);
        let law = DEFAULT_INTERVAL as f64 / 2f64.sqrt();
        assert!(((marks[2] - marks[1]) as f64 - law).abs() <= US as f64);
        // The same queue of non-ECT packets is dropped from instead.
        q.ecn = Ecn::NotEct;
        let drops = drive(&mut s, &mut q, &p, 500 * MS, 1000 * MS);
        assert!(!drops.is_empty());
    }

    #[test]
    fn ce_threshold_marks_without_dropping() {
        let p = CodelParams { ce_threshold: Some(MS), ..params(false) };
        let mut s = CodelState::default();
        let mut q = Standing { sojourn: 2 * MS, ..overloaded(Ecn::Ect1) };
        let mut out = Verdicts::default();
        q.now = 10 * MS;
        assert_eq!(s.dequeue(&p, &mut q, 10 * MS, &mut out).unwrap().ecn, Ecn::Ce);
        assert_eq!((out.marked.len(), out.dropped.len()), (1, 0));
        q.sojourn = MS;
        out.clear();
        assert_eq!(s.dequeue(&p, &mut q, 10 * MS, &mut out).unwrap().ecn, Ecn::Ect1);
        assert!(out.marked.is_empty());
    }

    #[test]
    fn codel_qdisc_tail_drops_at_limit_and_drains() {
        let mut q = Codel::new(3, params(false));
        let mut out = Verdicts::default();
        for _ in 0..5 {
            q.enqueue(pkt(1000, Ecn::NotEct), 0, &mut out);
        }
        assert_eq!((q.len(), q.bytes(), out.dropped.len()), (3, 3000, 2));
        out.clear();
        // Sojourn far above target, but the state machine needs an interval before dropping.
        while q.dequeue(50 * MS, &mut out).is_some() {}
        assert!(out.dropped.is_empty());
        assert_eq!((q.len(), q.bytes()), (0, 0));
    }
}
