//! FQ-CoDel (RFC 8290) as Linux `net/sched/sch_fq_codel.c`: packets are hashed into `flows`
//! queues, each under its own [`CodelState`], served by deficit round robin with priority for
//! new (sparse) flows.
//!
//! Fidelity notes:
//! - Flow hash: Linux takes `skb_get_hash()`, a jhash of the 5-tuple salted with a random key,
//!   scaled onto the buckets by `reciprocal_scale`. Here the 5-tuple stand-in of
//!   [`Packet::five_tuple`] is mixed with a perturbation drawn from the interface's random
//!   stream by a SplitMix64-style finalizer (written here, stable across Rust versions), then
//!   scaled the same way: collisions are as random as Linux's and identical for a given seed.
//! - Memory accounting: Linux charges each packet's `skb->truesize` (buffer allocation,
//!   typically 2-4 KB per full-size packet); here a packet costs its IP length, so the 32 MB
//!   default holds more packets than in Linux. It only matters when `memory_limit` binds
//!   before `limit`.
//! - Sizes are IP lengths; Linux's `qdisc_pkt_len` adds the 14-byte Ethernet header. The
//!   1514-byte default quantum is thus slightly more than one full-size packet here.

use super::codel::{self, CodelParams, CodelQueue, CodelState, CE_THRESHOLD, INTERVAL, TARGET};
use super::{Build, Component, Config, Qdisc, Verdicts};
use crate::net::Packet;
use crate::params::{Kind, Param, Value};
use crate::sim::{Rng, Time};
use std::collections::VecDeque;

pub static FQ_CODEL: Component = Component {
    name: "fq_codel",
    doc: "flow queueing with CoDel per flow (RFC 8290, Linux fq_codel)",
    params: &[
        Param {
            name: "limit",
            kind: Kind::Int { min: 1, max: u32::MAX as i64, unit: "packets" },
            default: Value::Int(10240),
            doc: "packets in all flow queues; beyond, the fattest flow loses packets",
        },
        Param {
            name: "flows",
            kind: Kind::Int { min: 1, max: 65536, unit: "queues" },
            default: Value::Int(1024),
            doc: "hash buckets, each a flow queue (Linux refuses more than 65536)",
        },
        Param {
            name: "quantum",
            // Linux raises a smaller quantum to 256 bytes and refuses one above 1 MiB.
            kind: Kind::Bytes { min: 256, max: 1 << 20 },
            default: Value::Bytes(codel::MTU),
            doc: "bytes per flow per deficit-round-robin round (Linux: the device MTU with its header)",
        },
        TARGET,
        INTERVAL,
        Param {
            name: "memory_limit",
            kind: Kind::Bytes { min: 1, max: u64::MAX },
            default: Value::Bytes(32 << 20),
            doc: "bytes in all flow queues (Linux's 32 MB, counted in IP lengths here)",
        },
        Param {
            name: "ecn",
            kind: Kind::Flag,
            default: Value::Flag(true),
            doc: "mark ECN-capable packets instead of dropping them (on in Linux fq_codel)",
        },
        CE_THRESHOLD,
        Param {
            name: "drop_batch",
            kind: Kind::Int { min: 1, max: u32::MAX as i64, unit: "packets" },
            default: Value::Int(64),
            doc: "packets dropped at most from the fattest flow per overflow",
        },
    ],
    check: codel::check_target,
    build: Build(
        |c: &Config, mut rng: Rng| Box::new(FqCodel::new(FqCodelConfig::of(c), rng.next_u64())),
        |c: &Config| c.int("flows") as u64,
    ),
};

/// The configuration of an `fq_codel` instance.
#[derive(Clone, Copy, Debug)]
pub struct FqCodelConfig {
    /// Hash buckets, each a flow queue.
    pub flows: u32,
    /// Bytes a flow may send per DRR round.
    pub quantum: u32,
    /// Packets queued in all flows before overflow drops.
    pub limit: u32,
    /// Bytes queued in all flows before overflow drops.
    pub memory_limit: u64,
    /// At most this many packets dropped per overflow.
    pub drop_batch: u32,
    pub codel: CodelParams,
}

impl FqCodelConfig {
    pub fn of(c: &Config) -> Self {
        FqCodelConfig {
            flows: c.int("flows") as u32,
            // At most 1 MiB.
            quantum: c.bytes("quantum") as u32,
            limit: c.int("limit") as u32,
            memory_limit: c.bytes("memory_limit"),
            drop_batch: c.int("drop_batch") as u32,
            codel: CodelParams::of(c),
        }
    }
}

#[derive(Default)]
struct FlowQueue {
    queue: VecDeque<Packet>,
    /// Bytes queued in this flow (Linux `q->backlogs[idx]`).
    backlog: u64,
    /// Bytes the flow may still send in the current round.
    deficit: i64,
    codel: CodelState,
    /// On `new_flows` or `old_flows` (Linux: `flowchain` not empty).
    listed: bool,
}

/// What the whole qdisc holds.
#[derive(Default)]
struct Totals {
    packets: usize,
    bytes: u64,
    /// Linux `memory_usage`; equal to `bytes` here (see the module notes).
    memory: u64,
}

impl Totals {
    fn remove(&mut self, pkt: &Packet) {
        self.packets -= 1;
        self.bytes -= u64::from(pkt.size);
        self.memory -= u64::from(pkt.size);
    }
}

/// The head of one flow queue as its CoDel sees it. The MTU guard looks at the backlog of the
/// whole qdisc, as Linux passes `sch->qstats.backlog`.
struct FlowHead<'a> {
    queue: &'a mut VecDeque<Packet>,
    backlog: &'a mut u64,
    totals: &'a mut Totals,
}

impl CodelQueue for FlowHead<'_> {
    fn pop(&mut self) -> Option<Packet> {
        let pkt = self.queue.pop_front()?;
        *self.backlog -= u64::from(pkt.size);
        self.totals.remove(&pkt);
        Some(pkt)
    }

    fn backlog(&self) -> u64 {
        self.totals.bytes
    }
}

pub struct FqCodel {
    config: FqCodelConfig,
    perturbation: u64,
    flows: Vec<FlowQueue>,
    /// Flows that became active recently and have not used up their first quantum: served
    /// first, so sparse flows (pings, DNS, ACKs) skip the queues of bulk flows.
    new_flows: VecDeque<usize>,
    old_flows: VecDeque<usize>,
    totals: Totals,
}

/// SplitMix64's finalizer: every input bit affects every output bit.
fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

impl FqCodel {
    /// `perturbation` keys the flow hash, as Linux's random hash seed.
    pub fn new(config: FqCodelConfig, perturbation: u64) -> Self {
        FqCodel {
            config,
            perturbation,
            flows: (0..config.flows).map(|_| FlowQueue::default()).collect(),
            new_flows: VecDeque::new(),
            old_flows: VecDeque::new(),
            totals: Totals::default(),
        }
    }

    /// The bucket of `pkt`'s flow.
    fn bucket(&self, pkt: &Packet) -> usize {
        let (src, dst, proto, port) = pkt.five_tuple();
        let hash = [u64::from(src), u64::from(dst), u64::from(proto), port]
            .into_iter()
            .fold(self.perturbation, |h, word| mix(h ^ word));
        // Linux `reciprocal_scale` of a 32-bit hash: its high bits pick the bucket.
        (((hash >> 32) * u64::from(self.config.flows)) >> 32) as usize
    }

    /// Linux `fq_codel_drop`: the qdisc is full, so drop from the head of the flow with the
    /// largest backlog until half of that backlog or `drop_batch` packets are gone, and tell
    /// its CoDel to drop harder (`count` grows by the packets dropped).
    fn drop_from_fattest(&mut self, out: &mut Verdicts) {
        // The first of equally fat flows, as Linux's strict `>` scan.
        let (fattest, backlog) =
            self.flows
                .iter()
                .enumerate()
                .fold((0, 0), |best, (i, f)| if f.backlog > best.1 { (i, f.backlog) } else { best });
        let threshold = backlog / 2;
        let flow = &mut self.flows[fattest];
        let (mut dropped, mut bytes) = (0u32, 0u64);
        while let Some(pkt) = flow.queue.pop_front() {
            flow.backlog -= u64::from(pkt.size);
            self.totals.remove(&pkt);
            bytes += u64::from(pkt.size);
            dropped += 1;
            out.dropped.push(pkt);
            if dropped >= self.config.drop_batch || bytes >= threshold {
                break;
            }
        }
        flow.codel.count = flow.codel.count.saturating_add(dropped);
    }
}

impl Qdisc for FqCodel {
    fn kind(&self) -> &'static str {
        "fq_codel"
    }

    fn enqueue(&mut self, mut pkt: Packet, now: Time, out: &mut Verdicts) {
        let i = self.bucket(&pkt);
        pkt.enqueued_at = now;
        let size = u64::from(pkt.size);
        let flow = &mut self.flows[i];
        flow.queue.push_back(pkt);
        flow.backlog += size;
        self.totals.packets += 1;
        self.totals.bytes += size;
        self.totals.memory += size;
        if !flow.listed {
            flow.listed = true;
            flow.deficit = i64::from(self.config.quantum);
            self.new_flows.push_back(i);
        }
        if self.totals.packets > self.config.limit as usize || self.totals.memory > self.config.memory_limit {
            self.drop_from_fattest(out);
        }
    }

    fn dequeue(&mut self, now: Time, out: &mut Verdicts) -> Option<Packet> {
        loop {
            let (from_new, i) = match self.new_flows.front() {
                Some(&i) => (true, i),
                None => (false, *self.old_flows.front()?),
            };
            let list = if from_new { &mut self.new_flows } else { &mut self.old_flows };
            let flow = &mut self.flows[i];
            if flow.deficit <= 0 {
                // Round used up: refill and go to the back of the round robin.
                flow.deficit += i64::from(self.config.quantum);
                list.pop_front();
                self.old_flows.push_back(i);
                continue;
            }
            let mut head = FlowHead { queue: &mut flow.queue, backlog: &mut flow.backlog, totals: &mut self.totals };
            match flow.codel.dequeue(&self.config.codel, &mut head, now, out) {
                Some(pkt) => {
                    flow.deficit -= i64::from(pkt.size);
                    return Some(pkt);
                }
                None => {
                    list.pop_front();
                    // An emptied new flow takes one pass through old_flows before it may count
                    // as new again, so a flow cannot starve the others by emptying its queue
                    // each round (RFC 8290 §4.2).
                    if from_new && !self.old_flows.is_empty() {
                        self.old_flows.push_back(i);
                    } else {
                        flow.listed = false;
                    }
                }
            }
        }
    }

    fn len(&self) -> usize {
        self.totals.packets
    }

    fn bytes(&self) -> u64 {
        self.totals.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::{Ecn, TcpSegment};
    use crate::qdisc::codel::{DEFAULT_INTERVAL, DEFAULT_TARGET};
    use crate::sim::MS;

    fn config() -> FqCodelConfig {
        FqCodelConfig {
            flows: 1024,
            quantum: 1514,
            limit: 10240,
            memory_limit: 32 << 20,
            drop_batch: 64,
            codel: CodelParams { target: DEFAULT_TARGET, interval: DEFAULT_INTERVAL, ecn: true, ce_threshold: None },
        }
    }

    /// A packet of connection `conn`; its sequence number tells packets apart.
    fn pkt(conn: u32, size: u32, seq: u64) -> Packet {
        let seg = TcpSegment { seq, ..Default::default() };
        Packet::tcp_packet(conn, conn, 0, 1, size, Ecn::NotEct, seg)
    }

    /// `n` connections that hash to different buckets.
    fn distinct_conns(q: &FqCodel, n: usize) -> Vec<u32> {
        let mut conns: Vec<u32> = Vec::new();
        for c in 0.. {
            if conns.iter().all(|&o| q.bucket(&pkt(o, 100, 0)) != q.bucket(&pkt(c, 100, 0))) {
                conns.push(c);
            }
            if conns.len() == n {
                break;
            }
        }
        conns
    }

    /// An `fq_codel` of `cfg`, `n` connections of it that hash to different buckets, and
    /// the verdicts of its calls.
    fn with_distinct_conns(cfg: FqCodelConfig, n: usize) -> (FqCodel, Vec<u32>, Verdicts) {
        let q = FqCodel::new(cfg, 7);
        let c = distinct_conns(&q, n);
        (q, c, Verdicts::default())
    }

    #[test]
    fn drr_shares_bytes_equally_between_packet_sizes() {
        let (mut q, c, mut out) = with_distinct_conns(config(), 2);
        for k in 0..300 {
            q.enqueue(pkt(c[0], 1500, k), 0, &mut out);
            for j in 0..3 {
                q.enqueue(pkt(c[1], 500, 3 * k + j), 0, &mut out);
            }
        }
        let mut sent = [0i64; 2];
        // Sojourn zero: CoDel stays out of the way; only DRR decides.
        for _ in 0..600 {
            let p = q.dequeue(0, &mut out).unwrap();
            sent[usize::from(p.conn == c[1])] += i64::from(p.size);
            assert!((sent[0] - sent[1]).abs() <= 1514 + 1500, "{sent:?}");
        }
        assert!(out.dropped.is_empty() && out.marked.is_empty());
        assert!(sent[0] > 100_000 && sent[1] > 100_000);
    }

    #[test]
    fn a_sparse_flow_goes_before_backlogged_ones() {
        let (mut q, c, mut out) = with_distinct_conns(config(), 3);
        for k in 0..50 {
            q.enqueue(pkt(c[0], 1500, k), 0, &mut out);
            q.enqueue(pkt(c[1], 1500, k), 0, &mut out);
        }
        for round in 0..5 {
            // The bulk flows are on old_flows by now, and the sparse flow's bucket was emptied
            // and left the lists (one pass through old_flows); a lone packet of it arrives.
            for _ in 0..8 {
                q.dequeue(0, &mut out).unwrap();
            }
            q.enqueue(pkt(c[2], 100, round), 0, &mut out);
            let next = q.dequeue(0, &mut out).unwrap();
            assert_eq!((next.conn, next.size), (c[2], 100), "round {round}");
        }
    }

    #[test]
    fn an_emptied_new_flow_takes_a_turn_in_old_flows() {
        let (mut q, c, mut out) = with_distinct_conns(FqCodelConfig { quantum: 5000, ..config() }, 2);
        let (bulk, sparse) = (c[0], c[1]);
        for k in 0..20 {
            q.enqueue(pkt(bulk, 1000, k), 0, &mut out);
        }
        let mut next = || q.dequeue(0, &mut out).unwrap().conn;
        // Five packets as a new flow, then the bulk flow is on old_flows with 4000 bytes left.
        let order: Vec<u32> = (0..6).map(|_| next()).collect();
        assert_eq!(order, vec![bulk; 6]);
        q.enqueue(pkt(sparse, 100, 0), 0, &mut out);
        assert_eq!(q.dequeue(0, &mut out).unwrap().conn, sparse);
        // The sparse flow is found empty and goes behind the bulk flow in old_flows; when it
        // sends again at once it is no longer new, so it waits for the bulk flow's turn to end
        // (RFC 8290 §4.2: otherwise a flow could starve the others by emptying every round).
        assert_eq!(q.dequeue(0, &mut out).unwrap().conn, bulk);
        q.enqueue(pkt(sparse, 100, 1), 0, &mut out);
        let order: Vec<u32> = (0..4).map(|_| q.dequeue(0, &mut out).unwrap().conn).collect();
        assert_eq!(order, vec![bulk, bulk, bulk, sparse]);
    }

    #[test]
    fn overflow_drops_half_the_fattest_flow_from_its_head() {
        let (mut q, c, mut out) = with_distinct_conns(FqCodelConfig { limit: 10, ..config() }, 2);
        for k in 0..8 {
            q.enqueue(pkt(c[0], 1000, k), 0, &mut out);
        }
        for k in 0..3 {
            q.enqueue(pkt(c[1], 1000, k), 0, &mut out);
        }
        // The 11th packet overflows: half of the fat flow's 8000 bytes go, oldest first.
        let seqs: Vec<u64> = out.dropped.iter().map(|p| p.tcp().unwrap().seq).collect();
        assert_eq!(seqs, vec![0, 1, 2, 3]);
        assert!(out.dropped.iter().all(|p| p.conn == c[0]));
        assert_eq!((q.len(), q.bytes()), (7, 7000));
        assert_eq!(q.flows[q.bucket(&pkt(c[0], 1, 0))].codel.count, 4);

        // drop_batch caps one overflow's drops.
        let mut q = FqCodel::new(FqCodelConfig { limit: 10, drop_batch: 2, ..config() }, 7);
        out.clear();
        for k in 0..11 {
            q.enqueue(pkt(c[0], 1000, k), 0, &mut out);
        }
        assert_eq!(out.dropped.len(), 2);
    }

    #[test]
    fn memory_limit_is_respected() {
        let (mut q, c, mut out) = with_distinct_conns(FqCodelConfig { memory_limit: 20_000, ..config() }, 4);
        for k in 0..200 {
            q.enqueue(pkt(c[k % 4], 1500, k as u64), 0, &mut out);
            assert!(q.bytes() <= 20_000, "{} bytes queued", q.bytes());
        }
        assert!(!out.dropped.is_empty());
    }

    #[test]
    fn codel_acts_per_flow() {
        let (mut q, c, mut out) = with_distinct_conns(config(), 2);
        // A standing queue in one flow only, drained slower than it fills.
        let mut now = 0;
        let mut seq = 0;
        while now < 2000 * MS {
            for _ in 0..3 {
                q.enqueue(pkt(c[0], 1500, seq), now, &mut out);
                seq += 1;
            }
            if now % (20 * MS) == 0 {
                q.enqueue(pkt(c[1], 100, seq), now, &mut out);
            }
            q.dequeue(now, &mut out);
            q.dequeue(now, &mut out);
            now += MS;
        }
        assert!(!out.dropped.is_empty());
        assert!(out.dropped.iter().all(|p| p.conn == c[0]), "only the standing queue is dropped from");
    }

    #[test]
    fn hash_is_keyed_by_the_perturbation() {
        let (a, b) = (FqCodel::new(config(), 1), FqCodel::new(config(), 2));
        let buckets = |q: &FqCodel| (0..64).map(|c| q.bucket(&pkt(c, 100, 0))).collect::<Vec<_>>();
        assert_eq!(buckets(&a), buckets(&FqCodel::new(config(), 1)));
        assert_ne!(buckets(&a), buckets(&b));
        let mut spread = buckets(&a);
        spread.sort_unstable();
        spread.dedup();
        assert!(spread.len() > 58, "64 flows in {} of 1024 buckets", spread.len());
    }
}
