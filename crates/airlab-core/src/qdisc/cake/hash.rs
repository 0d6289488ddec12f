//! Flow classification: which queue of a tin a packet joins, under the host-isolation mode,
//! with Linux's 8-way set-associative lookup. A queue is reserved for the full hash of its
//! flow (its tag): a colliding flow takes a free queue of the same 8-queue set instead, and
//! only shares a queue when all 8 are busy. Host slots for the per-host fairness of the dual
//! and triple modes are found the same way.

use super::tins::{Flow, FlowSet, Host, Tin, QUEUES};
use crate::net::Packet;

/// Queues per associative set (Linux `CAKE_SET_WAYS`).
const WAYS: usize = 8;

/// Linux's flow-mode bits.
const SRC_IP: u8 = 1;
const DST_IP: u8 = 2;
const FLOWS: u8 = 4;

/// What CAKE isolates flows by (tc keywords).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CakeIsolation {
    /// One queue for everything.
    Flowblind,
    Srchost,
    Dsthost,
    /// Source-destination host pairs.
    Hosts,
    /// 5-tuples, like fq_codel.
    Flows,
    /// Flows, and fairness between source hosts.
    DualSrchost,
    /// Flows, and fairness between destination hosts.
    DualDsthost,
    /// Flows, and fairness between source and between destination hosts.
    TripleIsolate,
}

impl CakeIsolation {
    /// The tc keywords, in the order of [`CakeIsolation::ALL`].
    pub const WORDS: &'static [&'static str] =
        &["flowblind", "srchost", "dsthost", "hosts", "flows", "dual-srchost", "dual-dsthost", "triple-isolate"];
    const ALL: [CakeIsolation; 8] = [
        CakeIsolation::Flowblind,
        CakeIsolation::Srchost,
        CakeIsolation::Dsthost,
        CakeIsolation::Hosts,
        CakeIsolation::Flows,
        CakeIsolation::DualSrchost,
        CakeIsolation::DualDsthost,
        CakeIsolation::TripleIsolate,
    ];

    /// The mode of tc keyword `word`, one of [`CakeIsolation::WORDS`].
    pub fn from_word(word: &str) -> Self {
        let i = Self::WORDS.iter().position(|w| *w == word);
        Self::ALL[i.unwrap_or_else(|| panic!("unknown CAKE isolation `{word}`"))]
    }

    fn bits(self) -> u8 {
        match self {
            CakeIsolation::Flowblind => 0,
            CakeIsolation::Srchost => SRC_IP,
            CakeIsolation::Dsthost => DST_IP,
            CakeIsolation::Hosts => SRC_IP | DST_IP,
            CakeIsolation::Flows => FLOWS,
            CakeIsolation::DualSrchost => FLOWS | SRC_IP,
            CakeIsolation::DualDsthost => FLOWS | DST_IP,
            CakeIsolation::TripleIsolate => FLOWS | SRC_IP | DST_IP,
        }
    }

    /// Flows are isolated and source hosts get fair shares (dual-srchost, triple-isolate).
    pub fn fair_srchost(self) -> bool {
        self.bits() & (FLOWS | SRC_IP) == FLOWS | SRC_IP
    }

    /// Flows are isolated and destination hosts get fair shares (dual-dsthost, triple-isolate).
    pub fn fair_dsthost(self) -> bool {
        self.bits() & (FLOWS | DST_IP) == FLOWS | DST_IP
    }
}

/// A keyed 32-bit hash of a few words (SplitMix64 finalizer rounds); `key` is the per-qdisc
/// random perturbation, so that which flows collide differs between runs with different seeds.
fn keyed_hash(key: u64, words: &[u64]) -> u32 {
    let mut h = key;
    for &w in words {
        h = (h ^ w).wrapping_add(0x9e37_79b9_7f4a_7c15);
        h = (h ^ (h >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        h = (h ^ (h >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        h ^= h >> 31;
    }
    (h >> 32) as u32
}

/// The queue index of `pkt` in `tin` (Linux `cake_hash`), reserving it and the flow's host
/// slots as needed.
pub fn classify(tin: &mut Tin, pkt: &Packet, mode: CakeIsolation, key: u64) -> usize {
    let bits = mode.bits();
    if bits == 0 {
        return 0;
    }
    let (src, dst, proto, port) = pkt.five_tuple();
    // Source and destination host hashes are kept apart (as Linux zeroes the other address).
    let srchost_hash = keyed_hash(key, &[1, u64::from(src)]);
    let dsthost_hash = keyed_hash(key, &[2, u64::from(dst)]);
    let mut flow_hash = 0;
    if bits & FLOWS != 0 {
        flow_hash = keyed_hash(key, &[3, u64::from(src), u64::from(dst), u64::from(proto), port]);
    } else {
        if bits & SRC_IP != 0 {
            flow_hash ^= srchost_hash;
        }
        if bits & DST_IP != 0 {
            flow_hash ^= dsthost_hash;
        }
    }

    let reduced = flow_hash as usize % QUEUES;
    if tin.tags[reduced] == flow_hash && tin.flows[reduced].set != FlowSet::None {
        return reduced;
    }
    let inner = reduced % WAYS;
    let outer = reduced - inner;
    let ways = || (0..WAYS).map(move |i| outer + (inner + i) % WAYS);
    // A queue of the set already reserved for this flow; else a free one; else, a collision:
    // share the flow's own queue, whose previous owner's host counts move to this flow.
    let (idx, allocate) = if let Some(k) = ways().find(|&k| tin.tags[k] == flow_hash) {
        (k, tin.flows[k].set == FlowSet::None)
    } else if let Some(k) = ways().find(|&k| tin.flows[k].set == FlowSet::None) {
        (k, true)
    } else {
        // (Host counts only exist in the modes that keep them.)
        if tin.flows[reduced].set == FlowSet::Bulk {
            let (s, d) = (tin.flows[reduced].srchost as usize, tin.flows[reduced].dsthost as usize);
            if mode.fair_srchost() {
                tin.hosts[s].srchost_bulk_flows -= 1;
            }
            if mode.fair_dsthost() {
                tin.hosts[d].dsthost_bulk_flows -= 1;
            }
        }
        (reduced, true)
    };
    tin.tags[idx] = flow_hash;
    if allocate && mode.fair_srchost() {
        reserve_host(tin, idx, srchost_hash, &SRCHOST);
    }
    if allocate && mode.fair_dsthost() {
        reserve_host(tin, idx, dsthost_hash, &DSTHOST);
    }
    idx
}

/// One side of the per-host fairness: a host slot's tag and bulk-flow count, and a flow's
/// host slot.
struct HostSide {
    tag: fn(&mut Host) -> &mut u32,
    bulk_flows: fn(&mut Host) -> &mut u16,
    slot: fn(&mut Flow) -> &mut u16,
}

const SRCHOST: HostSide =
    HostSide { tag: |h| &mut h.srchost_tag, bulk_flows: |h| &mut h.srchost_bulk_flows, slot: |f| &mut f.srchost };
const DSTHOST: HostSide =
    HostSide { tag: |h| &mut h.dsthost_tag, bulk_flows: |h| &mut h.dsthost_bulk_flows, slot: |f| &mut f.dsthost };

/// Gives the flow of queue `idx` the host slot of `hash` on `side`, tagging the slot and
/// counting the flow there if it is bulk.
fn reserve_host(tin: &mut Tin, idx: usize, hash: u32, side: &HostSide) {
    let slot = host_slot(tin, hash, side);
    *(side.tag)(&mut tin.hosts[slot]) = hash;
    if tin.flows[idx].set == FlowSet::Bulk {
        *(side.bulk_flows)(&mut tin.hosts[slot]) += 1;
    }
    *(side.slot)(&mut tin.flows[idx]) = slot as u16;
}

/// The host slot for `hash` on `side`: the one tagged with it, else one without bulk flows,
/// else (a host collision) the hash's own slot.
fn host_slot(tin: &mut Tin, hash: u32, side: &HostSide) -> usize {
    let reduced = hash as usize % QUEUES;
    let inner = reduced % WAYS;
    let outer = reduced - inner;
    let ways = || (0..WAYS).map(move |i| outer + (inner + i) % WAYS);
    ways()
        .find(|&k| *(side.tag)(&mut tin.hosts[k]) == hash)
        .or_else(|| ways().find(|&k| *(side.bulk_flows)(&mut tin.hosts[k]) == 0))
        .unwrap_or(reduced)
}
