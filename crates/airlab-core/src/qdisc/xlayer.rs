//! The cross-layer AQM of paper 001: flows are classified as mice or bulk by their size
//! relative to the mean flow size, each class has its own qdisc (FQ-CoDel by default), and a
//! two-class weighted round robin decides which class feeds the device queue below.
//!
//! The paper's text has two flaws (reproduction-targets.md, P1.1), so the intended behaviour is
//! the default and the literal one an option:
//! - Read literally, the mean is over *active* flows only; then b_f / mean ≤ K (the number of
//!   flows), so nothing is bulk while fewer than z flows are active. By default the mean also
//!   counts flows that ended within `history`, at their final size (`mean = "recent"`);
//!   `mean = "active"` is the literal rule.
//! - Algorithm 1 as printed never decrements its per-round counters, so the first class served
//!   is served until it empties and the other starves. By default every packet handed out
//!   decrements its class's counter and each round serves mice first (`wrr = "intended"`);
//!   `wrr = "literal"` runs the printed loop, one packet per pull.

use super::{Build, Component, Config, Qdisc, Verdicts};
use crate::net::{NodeId, Packet};
use crate::params::{Invalid, Kind, Param, Range, Value};
use crate::sim::{Rng, Time, MS, SEC};
use rustc_hash::FxHashMap;

pub static XLAYER: Component = Component {
    name: "xlayer",
    doc: "the cross-layer AQM of paper 001: mice and bulk classes, each with its own qdisc, \
          served by a two-class weighted round robin",
    params: &[
        Param {
            name: "z",
            kind: Kind::Real { range: Range::POSITIVE, unit: "" },
            default: Value::Real(4.0),
            doc: "a flow is bulk when its bytes / the mean flow bytes >= z (the paper uses 4)",
        },
        Param {
            name: "k",
            kind: Kind::Real { range: Range::POSITIVE, unit: "packets" },
            default: Value::Real(3.0),
            doc: "mice packets per round per active mice flow; bulk: one per flow (the paper uses 3)",
        },
        Param {
            name: "mean",
            kind: Kind::Choice(&["recent", "active"]),
            default: Value::Choice("recent"),
            doc: "flows the mean is over: active and ended within `history` (recent), or active only",
        },
        Param {
            name: "history",
            kind: Kind::Time { min: 0 },
            default: Value::Time(10 * SEC),
            doc: "how long an ended flow still counts towards the mean (reproduction-targets P1.1)",
        },
        Param {
            name: "active_timeout",
            kind: Kind::Time { min: 1 },
            default: Value::Time(2 * SEC),
            doc: "a flow idle this long has ended (airlab does not model FIN)",
        },
        Param {
            name: "wrr",
            kind: Kind::Choice(&["intended", "literal"]),
            default: Value::Choice("intended"),
            doc: "per-packet counters, mice first (intended), or Algorithm 1 as printed (literal)",
        },
        Param {
            name: "bulk",
            kind: super::child_kind("fq_codel"),
            default: Value::Unset,
            doc: "the bulk class's qdisc",
        },
        Param {
            name: "mice",
            kind: super::child_kind("fq_codel"),
            default: Value::Unset,
            doc: "the mice class's qdisc",
        },
    ],
    check: check_classes,
    build: Build(build, |c: &Config| super::queues(super::child(c, "bulk")) + super::queues(super::child(c, "mice"))),
};

fn check_classes(c: &Config) -> Result<(), Invalid> {
    for class in ["bulk", "mice"] {
        if super::child(c, class).name() == XLAYER.name {
            return Err(Invalid::new(format!("{class}.kind"), "a class of xlayer cannot be xlayer itself"));
        }
    }
    Ok(())
}

fn build(c: &Config, mut rng: Rng) -> Box<dyn Qdisc> {
    let params = Params {
        z: c.real("z"),
        k: c.real("k"),
        mean: if c.choice("mean") == "active" { MeanOver::Active } else { MeanOver::Recent },
        history: c.time("history"),
        active_timeout: c.time("active_timeout"),
        wrr: if c.choice("wrr") == "literal" { WrrMode::Literal } else { WrrMode::Intended },
    };
    // Each class hashes with its own perturbation.
    let bulk = super::create(super::child(c, "bulk"), Rng::stream(rng.next_u64(), "bulk"));
    let mice = super::create(super::child(c, "mice"), Rng::stream(rng.next_u64(), "mice"));
    Box::new(XLayer::new(params, bulk, mice))
}

type FlowKey = (NodeId, NodeId, u8, u64);

const BULK: usize = 0;
const MICE: usize = 1;

/// Which flows the mean flow size is taken over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MeanOver {
    /// Active flows and flows that ended within the history window (the intended rule).
    Recent,
    /// Active flows only (the paper's literal rule).
    Active,
}

/// Which round robin runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WrrMode {
    /// Per-packet counters, mice first in every round.
    Intended,
    /// Algorithm 1 as printed: counters never decremented, the starting class alternating.
    Literal,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Params {
    /// A flow is bulk when its bytes / mean flow bytes ≥ z.
    pub z: f64,
    /// Mice packets per round per active mice flow.
    pub k: f64,
    pub mean: MeanOver,
    /// How long an ended flow still counts towards the mean.
    pub history: Time,
    /// A flow that sent nothing for this long has ended (airlab does not model FIN).
    pub active_timeout: Time,
    pub wrr: WrrMode,
}

struct FlowEntry {
    bytes: u64,
    last_seen: Time,
    bulk: bool,
    /// Whether the flow was ever classified bulk.
    was_bulk: bool,
    /// Packets of this flow queued in each class.
    queued: [u32; 2],
}

/// Flow sizes and classes, seen at the qdisc's input.
struct Classifier {
    /// Looked up several times per packet: Fx hashing, not SipHash (nothing here iterates in
    /// an order that matters: sweeps and counts are sums).
    flows: FxHashMap<FlowKey, FlowEntry>,
    /// Bytes and count of the flows the mean is over, as of the last sweep plus arrivals since.
    sum_bytes: u64,
    counted: u64,
    last_sweep: Option<Time>,
    /// Flows ever classified bulk (a flow forgotten and seen again counts again).
    made_bulk: u64,
    /// Flows with packets queued in each class (the WRR's n1, n2), kept as packets come and go.
    backlogged: [usize; 2],
}

/// How often ended flows are found and the mean's population is recounted.
const SWEEP_EVERY: Time = 10 * MS;

impl Classifier {
    fn new() -> Self {
        Classifier {
            flows: FxHashMap::default(),
            sum_bytes: 0,
            counted: 0,
            last_sweep: None,
            made_bulk: 0,
            backlogged: [0, 0],
        }
    }

    fn counts(p: &Params, now: Time, e: &FlowEntry) -> bool {
        let idle = now.saturating_sub(e.last_seen);
        match p.mean {
            MeanOver::Active => idle <= p.active_timeout,
            MeanOver::Recent => idle <= p.active_timeout + p.history,
        }
    }

    /// Forget flows that no longer count and recount the mean's population.
    fn sweep(&mut self, p: &Params, now: Time) {
        let forget_after = p.active_timeout + p.history;
        self.flows.retain(|_, e| now.saturating_sub(e.last_seen) <= forget_after || e.queued != [0, 0]);
        let (mut sum, mut n) = (0, 0);
        for e in self.flows.values().filter(|e| Self::counts(p, now, e)) {
            sum += e.bytes;
            n += 1;
        }
        self.sum_bytes = sum;
        self.counted = n;
        self.last_sweep = Some(now);
    }

    /// Account an arriving packet and (re)classify its flow; returns the flow's class.
    fn arrive(&mut self, p: &Params, now: Time, key: FlowKey, size: u32) -> usize {
        if self.last_sweep.is_none_or(|t| now >= t + SWEEP_EVERY) {
            self.sweep(p, now);
        }
        let e = self.flows.entry(key).or_insert_with(|| FlowEntry {
            bytes: 0,
            last_seen: now,
            bulk: false,
            was_bulk: false,
            queued: [0, 0],
        });
        // A new flow, or one that had stopped counting, joins the mean's population (exact
        // again at the next sweep).
        if e.bytes == 0 || !Self::counts(p, now, e) {
            self.counted += 1;
            self.sum_bytes += e.bytes;
        }
        e.bytes += u64::from(size);
        e.last_seen = now;
        self.sum_bytes += u64::from(size);
        let mean = self.sum_bytes as f64 / self.counted.max(1) as f64;
        e.bulk = e.bytes as f64 >= p.z * mean;
        if e.bulk && !e.was_bulk {
            e.was_bulk = true;
            self.made_bulk += 1;
        }
        if e.bulk {
            BULK
        } else {
            MICE
        }
    }

    fn entry(&mut self, key: &FlowKey) -> &mut FlowEntry {
        self.flows.get_mut(key).expect("a queued packet's flow is in the table")
    }

    /// A packet of the flow `key` joined `class`.
    fn queue(&mut self, key: &FlowKey, class: usize) {
        let e = self.entry(key);
        e.queued[class] += 1;
        if e.queued[class] == 1 {
            self.backlogged[class] += 1;
        }
    }

    /// A packet of the flow `key` left `class` (sent or dropped).
    fn unqueue(&mut self, key: &FlowKey, class: usize) {
        let e = self.entry(key);
        e.queued[class] -= 1;
        if e.queued[class] == 0 {
            self.backlogged[class] -= 1;
        }
    }

    /// Flows with packets queued in `class`.
    fn active_in(&self, class: usize) -> usize {
        self.backlogged[class]
    }
}

/// The two-class weighted round robin between the bulk and mice qdiscs.
struct Wrr {
    /// Packets each class may still send this round.
    rem: [u32; 2],
    /// The class being served. It starts at mice like the paper's `turn = 0`, so the literal
    /// loop's first refill (`turn = 1 - turn`) turns to bulk.
    turn: usize,
}

/// The cross-layer AQM: a classifier, a bulk and a mice qdisc, and the WRR between them.
pub struct XLayer {
    p: Params,
    classes: [Box<dyn Qdisc>; 2],
    classifier: Classifier,
    wrr: Wrr,
}

impl XLayer {
    /// `bulk` and `mice` are the two class qdiscs (FQ-CoDel in the paper).
    pub fn new(p: Params, bulk: Box<dyn Qdisc>, mice: Box<dyn Qdisc>) -> Self {
        XLayer { p, classes: [bulk, mice], classifier: Classifier::new(), wrr: Wrr { rem: [0, 0], turn: MICE } }
    }

    /// Whether the flow of `pkt` is currently classified bulk.
    pub fn is_bulk(&self, pkt: &Packet) -> bool {
        self.classifier.flows.get(&pkt.five_tuple()).is_some_and(|e| e.bulk)
    }

    /// Put `pkt` in `class` whatever its size: for testing the round robin alone.
    #[cfg(test)]
    fn enqueue_in(&mut self, class: usize, pkt: Packet, now: Time, out: &mut Verdicts) {
        let key = pkt.five_tuple();
        self.classifier.arrive(&self.p, now, key, pkt.size);
        self.classifier.queue(&key, class);
        self.classes[class].enqueue(pkt, now, out);
    }

    /// Packets the class qdiscs dropped leave the per-flow queue counts.
    fn forget_dropped(&mut self, class: usize, out: &Verdicts, from: usize) {
        for pkt in &out.dropped[from..] {
            self.classifier.unqueue(&pkt.five_tuple(), class);
        }
    }

    /// Start a round: each class's allowance from its backlog and active flows (eqs. 2, 3).
    fn refill(&mut self) {
        let n_bulk = self.classifier.active_in(BULK) as f64;
        let n_mice = self.classifier.active_in(MICE) as f64;
        let backlog = |c: usize| self.classes[c].len() as f64;
        self.wrr.rem[BULK] = backlog(BULK).min(n_bulk) as u32;
        self.wrr.rem[MICE] = backlog(MICE).min((self.p.k * n_mice).ceil()) as u32;
    }

    /// Pick the class to serve next, or `None` when this round robin serves nothing now.
    fn pick(&mut self) -> Option<usize> {
        let empty = |s: &Self, c: usize| s.classes[c].is_empty();
        match self.p.wrr {
            WrrMode::Intended => {
                if self.wrr.rem == [0, 0] {
                    self.refill();
                    self.wrr.turn = MICE;
                }
                for _ in 0..2 {
                    let c = self.wrr.turn;
                    if self.wrr.rem[c] > 0 && !empty(self, c) {
                        return Some(c);
                    }
                    self.wrr.rem[c] = 0;
                    self.wrr.turn = 1 - c;
                }
                // Both allowances spent: a new round.
                self.refill();
                self.wrr.turn = MICE;
                [MICE, BULK].into_iter().find(|&c| self.wrr.rem[c] > 0)
            }
            WrrMode::Literal => {
                let total = self.classes[BULK].len() + self.classes[MICE].len();
                if self.wrr.rem == [0, 0] || total == 0 {
                    self.refill();
                    self.wrr.turn = 1 - self.wrr.turn;
                }
                // Lines 12-15: serve the turn's class; an empty class loses its allowance but
                // the turn does not change until both allowances are zero.
                let c = self.wrr.turn;
                if empty(self, BULK) {
                    self.wrr.rem[BULK] = 0;
                }
                if empty(self, MICE) {
                    self.wrr.rem[MICE] = 0;
                }
                (!empty(self, c)).then_some(c)
            }
        }
    }
}

impl Qdisc for XLayer {
    fn kind(&self) -> &'static str {
        "xlayer"
    }

    fn enqueue(&mut self, pkt: Packet, now: Time, out: &mut Verdicts) {
        let key = pkt.five_tuple();
        let class = self.classifier.arrive(&self.p, now, key, pkt.size);
        self.classifier.queue(&key, class);
        let before = out.dropped.len();
        self.classes[class].enqueue(pkt, now, out);
        self.forget_dropped(class, out, before);
    }

    fn dequeue(&mut self, now: Time, out: &mut Verdicts) -> Option<Packet> {
        // A class may drop its whole backlog on the way out (CoDel); then try again.
        for _ in 0..4 {
            let class = self.pick()?;
            let before = out.dropped.len();
            let got = self.classes[class].dequeue(now, out);
            self.forget_dropped(class, out, before);
            match got {
                Some(pkt) => {
                    self.classifier.unqueue(&pkt.five_tuple(), class);
                    if self.p.wrr == WrrMode::Intended {
                        self.wrr.rem[class] = self.wrr.rem[class].saturating_sub(1);
                    }
                    return Some(pkt);
                }
                None => self.wrr.rem[class] = 0,
            }
        }
        None
    }

    fn len(&self) -> usize {
        self.classes[BULK].len() + self.classes[MICE].len()
    }

    /// A class that shapes (e.g. CAKE with a bandwidth) may hold packets back.
    fn next_ready(&self) -> Option<Time> {
        self.classes.iter().filter_map(|c| c.next_ready()).min()
    }

    /// Flows per class that sent within `active_timeout` of the last sweep, flows ever made
    /// bulk, and each class's backlog.
    fn vars(&self, out: &mut Vec<(&'static str, f64)>) {
        let (mut bulk, mut mice) = (0u32, 0u32);
        let now = self.classifier.last_sweep.unwrap_or(0);
        for e in self.classifier.flows.values() {
            if now.saturating_sub(e.last_seen) <= self.p.active_timeout {
                if e.bulk {
                    bulk += 1;
                } else {
                    mice += 1;
                }
            }
        }
        out.push(("xlayer_bulk_flows", f64::from(bulk)));
        out.push(("xlayer_mice_flows", f64::from(mice)));
        out.push(("xlayer_flows_made_bulk", self.classifier.made_bulk as f64));
        out.push(("xlayer_bulk_pkts", self.classes[BULK].len() as f64));
        out.push(("xlayer_mice_pkts", self.classes[MICE].len() as f64));
    }

    fn bytes(&self) -> u64 {
        self.classes[BULK].bytes() + self.classes[MICE].bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::{Ecn, TcpSegment};
    use crate::qdisc::Fifo;
    use crate::sim::SEC;

    fn params() -> Params {
        Params {
            z: 4.0,
            k: 3.0,
            mean: MeanOver::Recent,
            history: 10 * SEC,
            active_timeout: 2 * SEC,
            wrr: WrrMode::Intended,
        }
    }

    fn xlayer(p: Params) -> XLayer {
        XLayer::new(p, Box::new(Fifo::pfifo(100_000)), Box::new(Fifo::pfifo(100_000)))
    }

    /// A 1500-byte packet of connection `conn` from host `src`.
    fn pkt(src: u32, conn: u32) -> Packet {
        Packet::tcp_packet(conn, conn, src, 99, 1500, Ecn::NotEct, TcpSegment::default())
    }

    #[test]
    fn literal_mean_marks_nothing_bulk_with_few_flows() {
        // Two flows, one 50 times the other: b_f / mean ≤ 2 < z, so both stay mice.
        let mut q = xlayer(Params { mean: MeanOver::Active, ..params() });
        let mut v = Verdicts::default();
        for i in 0..50u64 {
            q.enqueue(pkt(1, 1), i * MS, &mut v);
        }
        q.enqueue(pkt(2, 2), 50 * MS, &mut v);
        assert!(!q.is_bulk(&pkt(1, 1)) && !q.is_bulk(&pkt(2, 2)));
    }

    #[test]
    fn ended_flows_make_a_large_flow_bulk() {
        // Ten 10-packet transfers end (they stop sending), then one flow keeps sending.
        let mut v = Verdicts::default();
        let run = |mean: MeanOver, v: &mut Verdicts| {
            let mut q = xlayer(Params { mean, ..params() });
            for conn in 0..10 {
                for i in 0..10u64 {
                    q.enqueue(pkt(1, conn), (u64::from(conn) * 10 + i) * MS, v);
                }
            }
            // 3 s later the transfers have ended (2 s timeout); the new flow's 50th packet
            // makes it 50 / mean.
            let mut bulk_from = None;
            for i in 0..200u64 {
                let t = 3 * SEC + i * MS;
                q.enqueue(pkt(2, 100), t, v);
                if bulk_from.is_none() && q.is_bulk(&pkt(2, 100)) {
                    bulk_from = Some(i + 1);
                }
            }
            bulk_from
        };
        // Mean over the 11 flows: (100 + n) / 11 packets; bulk when n ≥ 4 (100 + n) / 11,
        // i.e. from the 58th packet.
        assert_eq!(run(MeanOver::Recent, &mut v), Some(58));
        // Literal: the ended transfers do not count, the lone flow is its own mean: n/n = 1.
        assert_eq!(run(MeanOver::Active, &mut v), None);
    }

    #[test]
    fn a_flow_below_z_times_the_mean_stays_mice() {
        let mut q = xlayer(params());
        let mut v = Verdicts::default();
        // Eight flows of equal size, sent round-robin: each is always at about the mean.
        for i in 0..800u64 {
            let conn = (i % 8) as u32;
            q.enqueue(pkt(1, conn), i * MS, &mut v);
            assert!(!q.is_bulk(&pkt(1, conn)), "flow {conn} classified bulk at packet {i}");
        }
    }

    /// Backlog `n_bulk` bulk and `n_mice` mice flows deeply, then count packets per class and
    /// per flow over `pulls` dequeues.
    fn shares(p: Params, n_bulk: u32, n_mice: u32, pulls: usize) -> (Vec<u64>, Vec<u64>) {
        let mut q = xlayer(p);
        let mut v = Verdicts::default();
        for i in 0..2000 {
            for f in 0..n_bulk {
                q.enqueue_in(BULK, pkt(1, f), i, &mut v);
            }
            for f in 0..n_mice {
                q.enqueue_in(MICE, pkt(2, 100 + f), i, &mut v);
            }
        }
        let mut bulk = vec![0; n_bulk as usize];
        let mut mice = vec![0; n_mice as usize];
        for _ in 0..pulls {
            let Some(p) = q.dequeue(SEC, &mut v) else { break };
            if p.src == 1 {
                bulk[p.conn as usize] += 1;
            } else {
                mice[(p.conn - 100) as usize] += 1;
            }
        }
        (bulk, mice)
    }

    #[test]
    fn wrr_gives_each_class_its_weight() {
        // n1 = 2 bulk, n2 = 3 mice, K = 3: per round 2 bulk and 9 mice packets, so bulk gets
        // r n1 / (n1 + K n2) = 2/11 of the link and mice 9/11 (the paper's guarantee, eq. 2-3).
        let (bulk, mice) = shares(params(), 2, 3, 1100);
        assert_eq!(bulk.iter().sum::<u64>(), 200);
        assert_eq!(mice.iter().sum::<u64>(), 900);
        // Non-integer K rounds up: K = 2.5, one mice flow gives 3 mice packets per bulk one.
        let (bulk, mice) = shares(Params { k: 2.5, ..params() }, 1, 1, 400);
        assert_eq!((bulk[0], mice[0]), (100, 300));
    }

    #[test]
    fn every_flow_gets_the_papers_guaranteed_share() {
        // With FQ-CoDel in both classes (the paper's setup), each of n1 bulk flows gets at
        // least r / (n1 + K n2) and each of n2 mice flows at least K r / (n1 + K n2).
        let fq = || crate::qdisc::create(&crate::qdisc::Config::named("fq_codel"), crate::sim::Rng::stream(1, "t"));
        let mut q = XLayer::new(params(), fq(), fq());
        let mut v = Verdicts::default();
        let (n1, n2) = (2u32, 3u32);
        for i in 0..300 {
            for f in 0..n1 {
                q.enqueue_in(BULK, pkt(1, f), i, &mut v);
            }
            for f in 0..n2 {
                q.enqueue_in(MICE, pkt(2, 100 + f), i, &mut v);
            }
        }
        let mut got = std::collections::HashMap::new();
        let pulls = 550;
        for _ in 0..pulls {
            // Dequeue at once: the packets' sojourn stays below CoDel's target, no drops.
            let p = q.dequeue(300, &mut v).expect("backlogged");
            *got.entry((p.src, p.conn)).or_insert(0u32) += 1;
        }
        assert!(v.dropped.is_empty());
        let share = |n: u32| f64::from(n) / pulls as f64;
        let denom = f64::from(n1) + 3.0 * f64::from(n2);
        for f in 0..n1 {
            assert!(share(got[&(1, f)]) >= 1.0 / denom - 1e-9, "bulk {f}: {got:?}");
        }
        for f in 0..n2 {
            assert!(share(got[&(2, 100 + f)]) >= 3.0 / denom - 1e-9, "mice {f}: {got:?}");
        }
    }

    #[test]
    fn each_round_serves_mice_first() {
        let mut q = xlayer(params());
        let mut v = Verdicts::default();
        q.enqueue_in(BULK, pkt(1, 1), 0, &mut v);
        q.enqueue_in(MICE, pkt(2, 2), 1, &mut v);
        assert_eq!(q.dequeue(2, &mut v).unwrap().src, 2);
        assert_eq!(q.dequeue(2, &mut v).unwrap().src, 1);
        assert!(q.dequeue(2, &mut v).is_none());
    }

    #[test]
    fn literal_wrr_starves_the_class_it_did_not_start_with() {
        // Algorithm 1 as printed: the first refill turns to bulk, no counter ever decreases,
        // so bulk is served until it empties, and then nothing: mice wait with a backlog.
        let (bulk, mice) = shares(Params { wrr: WrrMode::Literal, ..params() }, 1, 1, 3000);
        assert_eq!((bulk[0], mice[0]), (2000, 0));
    }
}
