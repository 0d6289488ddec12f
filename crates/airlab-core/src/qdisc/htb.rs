//! Hierarchical token bucket (Linux `sch_htb`) in its two-level form: leaf classes, each with
//! an assured `rate`, a `ceil`ing and a leaf qdisc that holds its queue, under an optional
//! parent class of `rate` from which they borrow. A packet goes to the first class that takes
//! it: by the `dscp` it carries and the host it goes to (`dst`, one or several), each unset
//! meaning any, as tc
//! filters on the DS field and the destination address would; a packet no class takes goes
//! out unshaped, ahead of the classes (Linux's direct queue of an htb whose `default` names
//! no class).
//!
//! Each class has two token buckets, kept as time like [`super::tbf`]'s: `rate` with `burst`
//! and `ceil` with `cburst`. At each dequeue, with `diff` the time since the class last sent
//! (at most 60 s), a class whose ceil bucket is below zero cannot send; one whose rate bucket
//! is at or above zero sends at its own rate ("level 0"); the others may borrow. Classes that
//! can send at their own rate go first, by `prio` (0 first) and within a priority by deficit
//! round robin with their `quantum`; only when none can, and the parent's bucket is at or
//! above zero, the borrowing classes go, the same way. A packet charges its class's ceil
//! bucket, its rate bucket when sent at level 0 (a borrower's only refills), and the parent's
//! buckets always (`htb_charge_class`). So backlogged classes get their rates, and the parent's
//! spare rate goes to the borrowers by priority and quantum, each up to its ceiling.
//!
//! As Linux, a class may send whenever its bucket is not negative, whatever the packet's
//! size (the bucket then goes below zero); the length counted is the IP length plus
//! `overhead` (14: the Ethernet header). Not modelled: deeper hierarchies, the hysteresis
//! option, per-class statistics beyond the qdisc's.

use super::cake::shaper::{adjusted_len, ByteTime};
use super::{Build, Component, Config, Qdisc, Verdicts};
use crate::net::{NodeId, Packet};
use crate::params::{self, Invalid, Kind, Param, Value};
use crate::sim::{Rng, Time, SEC};
use std::collections::VecDeque;

/// The parameters of one class.
pub static HTB_CLASS: params::Component<()> = params::Component {
    name: "htb class",
    doc: "a class of htb",
    params: &[
        Param { name: "rate", kind: Kind::Rate { min: 8_000 }, default: Value::Unset, doc: "assured rate (required)" },
        Param { name: "ceil", kind: Kind::Rate { min: 8_000 }, default: Value::Unset, doc: "ceiling; unset: `rate`" },
        Param {
            name: "burst",
            kind: Kind::Bytes { min: 64, max: 1 << 30 },
            default: Value::Unset,
            doc: "rate bucket; unset: 1 ms at `rate` + 1600 B (tc's default at HZ 1000)",
        },
        Param {
            name: "cburst",
            kind: Kind::Bytes { min: 64, max: 1 << 30 },
            default: Value::Unset,
            doc: "ceil bucket; unset: 1 ms at `ceil` + 1600 B",
        },
        Param {
            name: "prio",
            kind: Kind::Int { min: 0, max: 7, unit: "" },
            default: Value::Int(0),
            doc: "priority, 0 first",
        },
        Param {
            name: "quantum",
            kind: Kind::Bytes { min: 1, max: 1 << 20 },
            default: Value::Unset,
            doc: "DRR quantum; unset: rate in bytes/s / r2q, within 1000..200000 B",
        },
        Param {
            name: "dscp",
            kind: Kind::Int { min: 0, max: 63, unit: "" },
            default: Value::Unset,
            doc: "the DSCP the class takes (a flow's `dscp`); unset: any",
        },
        Param {
            name: "dst",
            kind: Kind::Hosts,
            default: Value::Unset,
            doc: "the destination host(s) the class takes; unset: any",
        },
        Param { name: "qdisc", kind: super::child_kind("pfifo"), default: Value::Unset, doc: "the leaf qdisc" },
    ],
    check: check_class,
    build: (),
};

pub static HTB: Component = Component {
    name: "htb",
    doc: "hierarchical token bucket (Linux htb): classes with assured rates and ceilings that \
          borrow from a parent rate, picked by DSCP",
    params: &[
        Param {
            name: "rate",
            kind: Kind::Rate { min: 8_000 },
            default: Value::Unset,
            doc: "the parent class's rate (and ceiling), which the classes borrow from; unset: none",
        },
        Param {
            name: "burst",
            kind: Kind::Bytes { min: 64, max: 1 << 30 },
            default: Value::Unset,
            doc: "the parent's bucket; unset: 1 ms at `rate` + 1600 B",
        },
        Param {
            name: "r2q",
            kind: Kind::Int { min: 1, max: 1_000_000, unit: "" },
            default: Value::Int(10),
            doc: "a class's default quantum is its rate in bytes/s divided by this",
        },
        super::tbf::OVERHEAD,
        Param {
            name: "classes",
            kind: Kind::Classes { of: &HTB_CLASS, max: MAX_CLASSES },
            default: Value::Unset,
            doc: "the leaf classes (required), in the order packets are matched",
        },
    ],
    check,
    build: Build(build, queues),
};

const MAX_CLASSES: usize = 64;
/// Linux's `mbuffer`: idle time beyond this earns nothing more.
const MBUFFER: i64 = 60 * SEC as i64;
/// The direct queue's length (Linux: the device's txqueuelen).
const DIRECT_QLEN: usize = 1000;
/// Linux warns outside these quanta and clamps the computed ones to them.
const QUANTUM_RANGE: (u64, u64) = (1000, 200_000);

fn check_class(c: &params::Config<()>) -> Result<(), Invalid> {
    let Some(rate) = c.opt_rate("rate") else {
        return Err(Invalid::new("rate", "an htb class needs a `rate`, such as \"5Mbit\""));
    };
    if c.opt_rate("ceil").is_some_and(|ceil| ceil < rate) {
        return Err(Invalid::new("ceil", "ceil must be at least the class's rate"));
    }
    if super::child(c, "qdisc").name() == "noqueue" {
        return Err(Invalid::new("qdisc.kind", "a class's packets wait in its leaf: noqueue holds none"));
    }
    Ok(())
}

fn check(c: &Config) -> Result<(), Invalid> {
    let Value::Classes(classes) = c.get("classes") else {
        return Err(Invalid::new("classes", "htb needs `classes`, such as [{ rate = \"10Mbit\" }]"));
    };
    if c.opt_rate("rate").is_none() {
        if let Some(i) =
            classes.iter().position(|k| k.opt_rate("ceil").is_some_and(|ceil| Some(ceil) > k.opt_rate("rate")))
        {
            return Err(Invalid::new(
                format!("classes[{i}].ceil"),
                "a ceil above the rate needs a parent to borrow from: give the htb a `rate`",
            ));
        }
    }
    Ok(())
}

/// tc's default bucket at HZ 1000: what `rate` sends in a tick, plus an MTU of 1600 bytes.
fn default_burst(rate_bps: u64) -> u64 {
    rate_bps / 8 / 1000 + 1600
}

/// The classes' leaf qdiscs' queues and the direct queue.
fn queues(c: &Config) -> u64 {
    1 + c.classes("classes").iter().map(|k| super::queues(super::child(k, "qdisc"))).sum::<u64>()
}

fn build(c: &Config, mut rng: Rng) -> Box<dyn Qdisc> {
    let r2q = c.int("r2q") as u64;
    let classes = c
        .classes("classes")
        .iter()
        .map(|k| {
            let rate = k.opt_rate("rate").expect("checked");
            let ceil = k.opt_rate("ceil").unwrap_or(rate);
            let quantum =
                k.opt_bytes("quantum").unwrap_or_else(|| (rate / 8 / r2q).clamp(QUANTUM_RANGE.0, QUANTUM_RANGE.1));
            Class {
                rate: Buckets::new(
                    (rate, k.opt_bytes("burst").unwrap_or_else(|| default_burst(rate))),
                    (ceil, k.opt_bytes("cburst").unwrap_or_else(|| default_burst(ceil))),
                ),
                prio: k.int("prio") as usize,
                quantum: quantum as i64,
                dscp: k.opt_int("dscp").map(|d| d as u8),
                dst: k.opt_nodes("dst").map(<[NodeId]>::to_vec),
                leaf: super::create(super::child(k, "qdisc"), Rng::stream(rng.next_u64(), "class")),
                deficit: [0; 2],
            }
        })
        .collect();
    let parent = c.opt_rate("rate").map(|rate| {
        let burst = c.opt_bytes("burst").unwrap_or_else(|| default_burst(rate));
        Buckets::new((rate, burst), (rate, burst))
    });
    Box::new(Htb::new(parent, classes, c.int("overhead") as i32))
}

/// What a class may do now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// Send at its own rate.
    CanSend,
    /// Send only by borrowing from the parent.
    MayBorrow,
    CantSend,
}

/// A class's two buckets (rate and ceil), tokens as time.
struct Buckets {
    rate: ByteTime,
    ceil: ByteTime,
    buffer: i64,
    cbuffer: i64,
    tokens: i64,
    ctokens: i64,
    t_c: Time,
}

impl Buckets {
    /// Full buckets of `(rate bit/s, burst bytes)` and `(ceil, cburst)`.
    fn new((rate, burst): (u64, u64), (ceil, cburst): (u64, u64)) -> Self {
        let (rate, ceil) = (ByteTime::new(rate), ByteTime::new(ceil));
        let buffer = rate.duration(burst as u32) as i64;
        let cbuffer = ceil.duration(cburst as u32) as i64;
        Buckets { rate, ceil, buffer, cbuffer, tokens: buffer, ctokens: cbuffer, t_c: 0 }
    }

    fn diff(&self, now: Time) -> i64 {
        (now.saturating_sub(self.t_c) as i64).min(MBUFFER)
    }

    fn mode(&self, now: Time) -> Mode {
        let diff = self.diff(now);
        if (self.ctokens + diff).min(self.cbuffer) < 0 {
            Mode::CantSend
        } else if (self.tokens + diff).min(self.buffer) >= 0 {
            Mode::CanSend
        } else {
            Mode::MayBorrow
        }
    }

    /// `len` bytes left at `now`; `own`: sent at the class's own rate, else borrowed (the rate
    /// bucket only refills).
    fn charge(&mut self, len: u32, now: Time, own: bool) {
        let diff = self.diff(now);
        let spend = |tokens: i64, cap: i64, cost: Time| ((tokens + diff).min(cap) - cost as i64).max(1 - MBUFFER);
        self.tokens = if own { spend(self.tokens, self.buffer, self.rate.duration(len)) } else { self.tokens + diff };
        self.ctokens = spend(self.ctokens, self.cbuffer, self.ceil.duration(len));
        self.t_c = now;
    }

    /// When the rate bucket, and the ceil bucket, are back at zero.
    fn refilled(&self) -> (Time, Time) {
        let at = |tokens: i64| (self.t_c as i64 - tokens).max(0) as Time;
        (at(self.tokens), at(self.ctokens))
    }
}

impl Class {
    fn takes(&self, pkt: &Packet) -> bool {
        self.dscp.is_none_or(|d| d == pkt.dscp) && self.dst.as_ref().is_none_or(|n| n.contains(&pkt.dst))
    }
}

struct Class {
    rate: Buckets,
    prio: usize,
    quantum: i64,
    /// What the class takes: packets with this DSCP, to this host (`None`: any).
    dscp: Option<u8>,
    dst: Option<Vec<NodeId>>,
    leaf: Box<dyn Qdisc>,
    /// DRR deficit when served at its own rate (level 0) and when borrowing (level 1).
    deficit: [i64; 2],
}

pub struct Htb {
    parent: Option<Buckets>,
    classes: Vec<Class>,
    overhead: i32,
    direct: VecDeque<Packet>,
    direct_bytes: u64,
    /// Per level and priority: the class the round robin is at.
    turn: [[usize; 8]; 2],
    ready_at: Option<Time>,
}

impl Htb {
    fn new(parent: Option<Buckets>, classes: Vec<Class>, overhead: i32) -> Self {
        Htb { parent, classes, overhead, direct: VecDeque::new(), direct_bytes: 0, turn: [[0; 8]; 2], ready_at: None }
    }

    /// The classes with packets that may send at `level` now, by priority: at their own rate
    /// (level 0), or borrowing while the parent has tokens (level 1).
    fn eligible(&self, level: usize, now: Time) -> Option<(usize, Vec<usize>)> {
        if level == 1 && self.parent.as_ref().is_none_or(|p| p.mode(now) != Mode::CanSend) {
            return None;
        }
        let want = if level == 0 { Mode::CanSend } else { Mode::MayBorrow };
        (0..8).find_map(|prio| {
            let ids: Vec<usize> = (0..self.classes.len())
                .filter(|&i| {
                    let k = &self.classes[i];
                    k.prio == prio && !k.leaf.is_empty() && k.rate.mode(now) == want
                })
                .collect();
            (!ids.is_empty()).then_some((prio, ids))
        })
    }

    /// Serve one packet from the classes eligible at `level`, in deficit round robin order.
    fn serve(&mut self, level: usize, now: Time, out: &mut Verdicts) -> Option<Packet> {
        let (prio, ids) = self.eligible(level, now)?;
        let turn = self.turn[level][prio];
        let start = ids.iter().position(|&i| i >= turn).unwrap_or(0);
        for &i in ids[start..].iter().chain(&ids[..start]) {
            let Some(pkt) = self.classes[i].leaf.dequeue(now, out) else { continue };
            let len = adjusted_len(pkt.size, self.overhead, 0);
            let k = &mut self.classes[i];
            k.rate.charge(len, now, level == 0);
            if let Some(parent) = &mut self.parent {
                parent.charge(len, now, true);
            }
            k.deficit[level] -= i64::from(len);
            self.turn[level][prio] = if k.deficit[level] < 0 {
                k.deficit[level] += k.quantum;
                i + 1
            } else {
                i
            };
            return Some(pkt);
        }
        None
    }

    /// The earliest time some class with packets may send, at its own rate or by borrowing.
    fn next_send(&self) -> Option<Time> {
        let parent = self.parent.as_ref().map(|p| p.refilled().0);
        self.classes
            .iter()
            .filter(|k| !k.leaf.is_empty())
            .map(|k| {
                let (tokens, ctokens) = k.rate.refilled();
                let own = tokens.max(ctokens);
                let borrow = parent.map_or(own, |p| p.max(ctokens));
                own.min(borrow)
            })
            .min()
    }
}

impl Qdisc for Htb {
    fn kind(&self) -> &'static str {
        "htb"
    }

    fn enqueue(&mut self, mut pkt: Packet, now: Time, out: &mut Verdicts) {
        match self.classes.iter_mut().find(|k| k.takes(&pkt)) {
            Some(k) => k.leaf.enqueue(pkt, now, out),
            None if self.direct.len() < DIRECT_QLEN => {
                pkt.enqueued_at = now;
                self.direct_bytes += u64::from(pkt.size);
                self.direct.push_back(pkt);
            }
            None => {
                pkt.enqueued_at = now;
                out.dropped.push(pkt);
            }
        }
    }

    fn dequeue(&mut self, now: Time, out: &mut Verdicts) -> Option<Packet> {
        if let Some(pkt) = self.direct.pop_front() {
            self.direct_bytes -= u64::from(pkt.size);
            return Some(pkt);
        }
        let pkt = self.serve(0, now, out).or_else(|| self.serve(1, now, out));
        self.ready_at = if pkt.is_none() { self.next_send().map(|t| t.max(now + 1)) } else { None };
        pkt
    }

    fn len(&self) -> usize {
        self.direct.len() + self.classes.iter().map(|k| k.leaf.len()).sum::<usize>()
    }

    fn bytes(&self) -> u64 {
        self.direct_bytes + self.classes.iter().map(|k| k.leaf.bytes()).sum::<u64>()
    }

    fn next_ready(&self) -> Option<Time> {
        self.ready_at
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::sim::MS;

    /// A 1500-byte packet as the buckets count it.
    const FRAME: u32 = 1514;

    fn class(rate: u64, ceil: u64, prio: usize, dscp: Option<u8>) -> Class {
        let leaf = crate::qdisc::create(&crate::qdisc::Config::named("pfifo"), Rng::stream(1, "t"));
        let rates = Buckets::new((rate, u64::from(FRAME)), (ceil, u64::from(FRAME)));
        Class { rate: rates, prio, quantum: 1514, dscp, dst: None, leaf, deficit: [0; 2] }
    }

    fn marked(dscp: u8) -> Packet {
        Packet { dscp, ..Packet::datagram(0, 1500) }
    }

    /// Keep every class backlogged with 1500-byte packets and drain for `secs` as a device
    /// with room would: the bytes each class sent (counted as 1514).
    fn drain(q: &mut Htb, dscps: &[u8], secs: u64) -> Vec<u64> {
        let (mut now, mut out, mut sent) = (0, Verdicts::default(), vec![0u64; q.classes.len()]);
        while now < secs * SEC {
            for &d in dscps {
                let i = q.classes.iter().position(|k| k.dscp.is_none_or(|x| x == d)).unwrap();
                while q.classes[i].leaf.len() < 5 {
                    q.enqueue(marked(d), now, &mut out);
                }
            }
            match q.dequeue(now, &mut out) {
                Some(p) => {
                    let i = q.classes.iter().position(|k| k.dscp.is_none_or(|x| x == p.dscp)).unwrap();
                    sent[i] += u64::from(FRAME);
                }
                None => now = q.next_ready().expect("backlogged classes wake up"),
            }
        }
        sent
    }

    fn mbits(bytes: u64, secs: u64) -> f64 {
        bytes as f64 * 8.0 / secs as f64 / 1e6
    }

    #[test]
    fn backlogged_classes_get_their_rates_and_share_the_parents_spare_by_quantum() {
        // Parent 10 Mbit/s; classes of 2 and 3 Mbit/s with ceilings at 10: each gets its rate
        // and the spare 5 Mbit/s splits by equal quanta, 4.5 and 5.5 in all.
        let parent = Buckets::new((10_000_000, 1514), (10_000_000, 1514));
        let classes = vec![class(2_000_000, 10_000_000, 0, Some(1)), class(3_000_000, 10_000_000, 0, Some(2))];
        let mut q = Htb::new(Some(parent), classes, 14);
        let sent = drain(&mut q, &[1, 2], 20);
        let (a, b) = (mbits(sent[0], 20), mbits(sent[1], 20));
        assert!((a + b - 10.0).abs() < 0.02, "{a} + {b}");
        assert!((a - 4.5).abs() < 0.1 && (b - 5.5).abs() < 0.1, "{a} {b}");
    }

    #[test]
    fn a_class_borrows_up_to_its_ceiling_and_priority_takes_the_spare_first() {
        let parent = || Buckets::new((10_000_000, 1514), (10_000_000, 1514));
        // Alone, a 1 Mbit/s class with a 4 Mbit/s ceiling sends at its ceiling.
        let mut q = Htb::new(Some(parent()), vec![class(1_000_000, 4_000_000, 0, None)], 14);
        let sent = drain(&mut q, &[0], 20);
        assert!((mbits(sent[0], 20) - 4.0).abs() < 0.02, "{}", mbits(sent[0], 20));
        // Prio 0 takes all the spare it can (up to its ceiling of 8): 8 and 2.
        let classes = vec![class(1_000_000, 8_000_000, 1, Some(1)), class(1_000_000, 8_000_000, 0, Some(2))];
        let mut q = Htb::new(Some(parent()), classes, 14);
        let sent = drain(&mut q, &[1, 2], 20);
        let (low, high) = (mbits(sent[0], 20), mbits(sent[1], 20));
        assert!((high - 8.0).abs() < 0.05 && (low - 2.0).abs() < 0.05, "{high} {low}");
    }

    #[test]
    fn without_a_parent_a_class_keeps_to_its_rate_and_unmatched_packets_go_direct() {
        let mut q = Htb::new(None, vec![class(5_000_000, 5_000_000, 0, Some(1))], 14);
        let sent = drain(&mut q, &[1], 10);
        assert!((mbits(sent[0], 10) - 5.0).abs() < 0.02, "{}", mbits(sent[0], 10));
        // A packet no class takes leaves at once, before the shaped ones.
        let mut out = Verdicts::default();
        q.enqueue(marked(7), 10 * SEC, &mut out);
        assert_eq!(q.dequeue(10 * SEC, &mut out).map(|p| p.dscp), Some(7));
    }

    #[test]
    fn a_full_bucket_sends_a_burst_then_the_rate() {
        // 10 Mbit/s with a bucket of three frames: three leave at once after an idle period,
        // the fourth when the bucket is back at zero (a class may go below zero by a packet).
        let leaf = crate::qdisc::create(&crate::qdisc::Config::named("pfifo"), Rng::stream(1, "t"));
        let rates = Buckets::new((10_000_000, 3 * 1514), (10_000_000, 3 * 1514));
        let k = Class { rate: rates, prio: 0, quantum: 1514, dscp: None, dst: None, leaf, deficit: [0; 2] };
        let mut q = Htb::new(None, vec![k], 14);
        let mut out = Verdicts::default();
        for _ in 0..6 {
            q.enqueue(Packet::datagram(0, 1500), 100 * MS, &mut out);
        }
        let mut times = Vec::new();
        let mut now = 100 * MS;
        while times.len() < 6 {
            match q.dequeue(now, &mut out) {
                Some(_) => times.push(now - 100 * MS),
                None => now = q.next_ready().unwrap(),
            }
        }
        // Buckets full (3 frames of credit): sends at 0, 0, 0 leave the bucket at 0, so a
        // fourth goes at once too and takes it to -1 frame; then one per frame time.
        let per = 1_211_200;
        assert_eq!(times, vec![0, 0, 0, 0, per, 2 * per]);
    }
}
