//! CAKE, "Common Applications Kept Enhanced" (Linux `sch_cake.c`; Høiland-Jørgensen, Täht and
//! Morton, "Piece of CAKE", LANMAN 2018): a deficit-mode shaper over DiffServ tins, each tin a
//! set of flow queues hashed with host isolation and served by DRR++ (new flows first), each
//! queue managed by COBALT. See `docs/models/cake.md` for what is and is not modelled.

mod cobalt;
mod hash;
pub mod shaper;
mod tins;

pub use hash::CakeIsolation;
pub use tins::CakeTins;

use super::{Build, Component, Config, Qdisc, Verdicts};
use crate::net::{Ecn, Packet};
use crate::params::{no_check, Kind, Param, Value};
use crate::sim::{Rng, Time, MS, SEC};
use shaper::{adjusted_len, ByteTime, Schedule, MTU};
use tins::{FlowSet, List, Tin};

pub static CAKE: Component = Component {
    name: "cake",
    doc: "shaper, AQM and flow/host isolation over DiffServ tins (Linux sch_cake); tc's keywords",
    params: &[
        Param {
            name: "bandwidth",
            // 64 bytes/s: Linux's rate tables need at least that.
            kind: Kind::Rate { min: 8 * 64 },
            default: Value::Unset,
            doc: "shaper rate; unset: no shaping (tc `unlimited`)",
        },
        Param {
            name: "rtt",
            // The target is rtt / 20, at least 1 ns.
            kind: Kind::Time { min: 20 },
            default: Value::Time(100 * MS),
            doc: "expected round-trip time: the CoDel interval, with target = rtt / 20",
        },
        Param {
            name: "isolation",
            kind: Kind::Choice(CakeIsolation::WORDS),
            default: Value::Choice("triple-isolate"),
            doc: "what flows are isolated by; dual and triple modes share fairly between hosts too",
        },
        Param {
            name: "tins",
            kind: Kind::Choice(CakeTins::WORDS),
            default: Value::Choice("diffserv3"),
            doc: "DiffServ tin layout (diffserv8 and precedence are not modelled)",
        },
        Param {
            name: "overhead",
            kind: Kind::Int { min: -64, max: 256, unit: "bytes" },
            default: Value::Int(0),
            doc: "framing bytes per packet the shaper accounts for (may be negative)",
        },
        Param {
            name: "mpu",
            kind: Kind::Int { min: 0, max: 256, unit: "bytes" },
            default: Value::Int(0),
            doc: "minimum packet unit: shorter packets are accounted as this many bytes",
        },
        Param {
            name: "ecn",
            kind: Kind::Flag,
            default: Value::Flag(true),
            doc: "mark ECN-capable packets instead of dropping them (Linux CAKE always does)",
        },
        Param {
            name: "memory_limit",
            kind: Kind::Bytes { min: 1, max: u64::MAX },
            default: Value::Unset,
            doc: "buffer limit; unset: 4 x bandwidth x rtt, at least 4 MiB, when shaped",
        },
    ],
    check: no_check,
    build: Build(
        |c: &Config, rng: Rng| Box::new(Cake::new(&CakeConfig::of(c), rng)),
        |c: &Config| (tins::QUEUES * CakeTins::from_word(c.choice("tins")).count()) as u64,
    ),
};

/// CAKE's settings, as typed values (see [`CAKE`] for their meaning and defaults).
#[derive(Debug, Clone, PartialEq)]
pub struct CakeConfig {
    /// Bit/s; `None`: unshaped.
    pub bandwidth: Option<u64>,
    pub rtt: Time,
    pub isolation: CakeIsolation,
    pub tins: CakeTins,
    pub overhead: i32,
    pub mpu: u32,
    pub ecn: bool,
    pub memory_limit: Option<u64>,
}

impl CakeConfig {
    pub fn of(c: &Config) -> Self {
        CakeConfig {
            bandwidth: c.opt_rate("bandwidth"),
            rtt: c.time("rtt"),
            isolation: CakeIsolation::from_word(c.choice("isolation")),
            tins: CakeTins::from_word(c.choice("tins")),
            overhead: c.int("overhead") as i32,
            mpu: c.int("mpu") as u32,
            ecn: c.flag("ecn"),
            memory_limit: c.opt_bytes("memory_limit"),
        }
    }
}

impl Default for CakeConfig {
    fn default() -> Self {
        CakeConfig::of(&Config::defaults(&CAKE))
    }
}

/// Linux's packet limit (`sch->limit`), which caps the memory limit at this many MTUs.
const PACKET_LIMIT: u64 = 10240;
/// Floor of the memory limit derived from the bandwidth (Linux: 4 MiB).
const MIN_MEMORY: u64 = 4 << 20;

pub struct Cake {
    tins: Vec<Tin>,
    dscp_map: &'static [u8; 64],
    isolation: CakeIsolation,
    /// The global shaper, when a bandwidth is set.
    shaper: Option<Schedule>,
    overhead: i32,
    mpu: u32,
    ecn: bool,
    buffer_limit: u64,
    /// Bytes held, against `buffer_limit` (IP lengths; Linux counts allocated memory).
    buffer_used: u64,
    packets: usize,
    bytes: u64,
    /// Tin served last, for the unshaped DRR between tins.
    cur_tin: usize,
    /// Flow-hash key drawn from the interface's random stream.
    perturbation: u64,
    rng: Rng,
}

/// Linux `quantum_div`: 65535 / host load, so that `quantum * div >> 16` is quantum / load.
fn quantum_div(load: u16) -> u32 {
    65535 / u32::from(load.max(1))
}

/// How many bulk flows share the flow's busiest host (1 without host fairness): its quantum is
/// divided by this, so that each host, not each flow, gets an equal share.
fn host_load(tin: &Tin, idx: usize, mode: CakeIsolation) -> u16 {
    let flow = &tin.flows[idx];
    let mut load = 1;
    if mode.fair_srchost() {
        load = load.max(tin.hosts[flow.srchost as usize].srchost_bulk_flows);
    }
    if mode.fair_dsthost() {
        load = load.max(tin.hosts[flow.dsthost as usize].dsthost_bulk_flows);
    }
    load
}

/// A flow joins (`up`) or leaves the bulk rotation: its hosts' loads follow.
fn count_bulk(tin: &mut Tin, idx: usize, mode: CakeIsolation, up: bool) {
    let (s, d) = (tin.flows[idx].srchost as usize, tin.flows[idx].dsthost as usize);
    let step = |n: &mut u16| if up { *n += 1 } else { *n -= 1 };
    if mode.fair_srchost() {
        step(&mut tin.hosts[s].srchost_bulk_flows);
    }
    if mode.fair_dsthost() {
        step(&mut tin.hosts[d].dsthost_bulk_flows);
    }
}

impl Cake {
    pub fn new(spec: &CakeConfig, mut rng: Rng) -> Self {
        let bandwidth = spec.bandwidth;
        // tc's `rtt` sets the interval and a target of rtt / 20 (5 ms for the default 100 ms).
        let rtt = spec.rtt;
        let (tins, dscp_map) = spec.tins.build(bandwidth, (rtt / 20).max(1), rtt);
        let memory = spec.memory_limit;
        let derived = match (memory, bandwidth) {
            (Some(m), _) => m,
            (None, Some(bps)) => ((4 * (bps / 8) as u128 * rtt as u128 / SEC as u128) as u64).max(MIN_MEMORY),
            (None, None) => u64::MAX,
        };
        Cake {
            tins,
            dscp_map,
            isolation: spec.isolation,
            shaper: bandwidth.map(|bps| Schedule::new(ByteTime::new(bps))),
            overhead: spec.overhead,
            mpu: spec.mpu,
            ecn: spec.ecn,
            buffer_limit: derived.min((PACKET_LIMIT * MTU as u64).max(memory.unwrap_or(0))),
            buffer_used: 0,
            packets: 0,
            bytes: 0,
            cur_tin: 0,
            perturbation: rng.next_u64(),
            rng,
        }
    }

    /// Buffer overflow: drop the head packet of the longest queue of any tin (Linux
    /// `cake_drop`), and tell that flow's BLUE it overflowed.
    fn drop_fattest(&mut self, now: Time, out: &mut Verdicts) {
        let mut fattest: Option<(u64, usize, usize)> = None;
        for (t, tin) in self.tins.iter().enumerate() {
            for &idx in tin.new_flows.iter().chain(&tin.old_flows) {
                let backlog = tin.flows[idx as usize].backlog;
                if fattest.is_none_or(|(b, _, _)| backlog > b) {
                    fattest = Some((backlog, t, idx as usize));
                }
            }
        }
        let (_, t, idx) = fattest.expect("over the memory limit with no packets queued");
        let tin = &mut self.tins[t];
        let flow = &mut tin.flows[idx];
        let pkt = flow.queue.pop_front().expect("the fattest flow has packets");
        flow.cobalt.queue_full(&tin.params, now);
        let size = u64::from(pkt.size);
        flow.backlog -= size;
        tin.backlog -= size;
        self.forget(size);
        out.dropped.push(pkt);
    }

    /// A packet of `size` bytes left the queues.
    fn forget(&mut self, size: u64) {
        self.packets -= 1;
        self.bytes -= size;
        self.buffer_used -= size;
    }

    /// The tin to serve next, or None if no tin has packets.
    fn choose_tin(&mut self, now: Time) -> Option<usize> {
        if self.shaper.is_none() {
            // Unshaped: DRR between tins by their quanta.
            let (mut wrapped, mut empty) = (false, true);
            loop {
                let tin = &mut self.tins[self.cur_tin];
                if tin.tin_deficit >= 0 && tin.active() > 0 {
                    return Some(self.cur_tin);
                }
                if tin.tin_deficit <= 0 {
                    tin.tin_deficit += tin.tin_quantum;
                }
                empty &= tin.active() == 0;
                self.cur_tin += 1;
                if self.cur_tin == self.tins.len() {
                    self.cur_tin = 0;
                    if wrapped && empty {
                        return None;
                    }
                    wrapped = true;
                }
            }
        }
        // Shaped: the highest tin within its threshold rate, else the one due soonest.
        let mut best: Option<(usize, i64)> = None;
        for (k, tin) in self.tins.iter().enumerate() {
            if tin.active() > 0 {
                let due = tin.schedule.map_or(0, |s| s.time_next_packet) as i64 - now as i64;
                if due <= 0 || best.is_none_or(|(_, b)| due <= b) {
                    best = Some((k, due));
                }
            }
        }
        let (t, _) = best?;
        self.cur_tin = t;
        Some(t)
    }

    /// Serve tin `t` by DRR++: a packet, or None when the flow picked turned out empty (the
    /// caller starts over). Only the first pick of a dequeue looks at decaying flows first.
    fn serve_tin(&mut self, t: usize, now: Time, first_pick: &mut bool, out: &mut Verdicts) -> Option<Packet> {
        let mode = self.isolation;
        loop {
            let tin = &mut self.tins[t];
            let list = if *first_pick && !tin.decaying_flows.is_empty() {
                List::Decaying
            } else if !tin.new_flows.is_empty() {
                List::New
            } else if !tin.old_flows.is_empty() {
                List::Old
            } else if !tin.decaying_flows.is_empty() {
                List::Decaying
            } else {
                return None;
            };
            *first_pick = false;
            let idx = *tin.list(list).front().expect("non-empty list") as usize;

            if tin.flows[idx].deficit <= 0 {
                // Out of deficit: a new flow with packets becomes bulk; either way it gets a
                // (host-scaled, dithered) quantum and goes to the back of the old flows.
                if tin.flows[idx].set == FlowSet::Sparse {
                    if tin.flows[idx].queue.is_empty() {
                        tin.flows[idx].set = FlowSet::SparseWait;
                    } else {
                        tin.sparse_flows -= 1;
                        tin.bulk_flows += 1;
                        count_bulk(tin, idx, mode, true);
                        tin.flows[idx].set = FlowSet::Bulk;
                    }
                }
                let load = host_load(tin, idx, mode);
                let dither = (self.rng.next_u64() as u32) >> 16;
                let quantum = (tin.flow_quantum * quantum_div(load) + dither) >> 16;
                tin.flows[idx].deficit += quantum as i32;
                tin.list(list).pop_front();
                tin.old_flows.push_back(idx as u16);
                continue;
            }

            loop {
                let flow = &mut tin.flows[idx];
                let Some(mut pkt) = flow.queue.pop_front() else {
                    self.retire_empty(t, idx, list, now);
                    return None;
                };
                let size = u64::from(pkt.size);
                flow.backlog -= size;
                tin.backlog -= size;
                self.packets -= 1;
                self.bytes -= size;
                self.buffer_used -= size;
                let ect = self.ecn && pkt.ecn.is_ect();
                let signal = flow.cobalt.should_drop(&tin.params, now, now - pkt.enqueued_at, ect, &mut self.rng);
                if signal.mark {
                    pkt.ecn = Ecn::Ce;
                }
                // The last packet of a flow is never dropped: it carries the signal, if any.
                if !signal.drop || flow.queue.is_empty() {
                    if signal.mark {
                        out.marked.push(pkt.clone());
                    }
                    let len = adjusted_len(pkt.size, self.overhead, self.mpu);
                    flow.deficit -= len as i32;
                    tin.tin_deficit -= len as i32;
                    if let Some(s) = &mut tin.schedule {
                        s.advance_tin(len, now);
                    }
                    if let Some(s) = &mut self.shaper {
                        s.advance(len);
                    }
                    return Some(pkt);
                }
                out.dropped.push(pkt);
            }
        }
    }

    /// A flow picked for service is empty: let COBALT decay, then keep the flow in the
    /// decaying list until its state is at rest, or take it out of the rotation.
    fn retire_empty(&mut self, t: usize, idx: usize, list: List, now: Time) {
        let mode = self.isolation;
        let tin = &mut self.tins[t];
        tin.flows[idx].cobalt.queue_empty(&tin.params, now);
        tin.list(list).pop_front();
        let set = tin.flows[idx].set;
        match set {
            FlowSet::Bulk => {
                tin.bulk_flows -= 1;
                count_bulk(tin, idx, mode, false);
            }
            FlowSet::Sparse | FlowSet::SparseWait => tin.sparse_flows -= 1,
            FlowSet::Decaying | FlowSet::None => tin.decaying_count -= u32::from(set == FlowSet::Decaying),
        }
        if tin.flows[idx].cobalt.is_active(now) {
            tin.decaying_flows.push_back(idx as u16);
            tin.decaying_count += 1;
            tin.flows[idx].set = FlowSet::Decaying;
        } else {
            tin.flows[idx].set = FlowSet::None;
        }
    }
}

impl Qdisc for Cake {
    fn kind(&self) -> &'static str {
        "cake"
    }

    fn enqueue(&mut self, mut pkt: Packet, now: Time, out: &mut Verdicts) {
        let mode = self.isolation;
        let t = usize::from(self.dscp_map[usize::from(pkt.dscp & 63)]);
        let tin = &mut self.tins[t];
        let idx = hash::classify(tin, &pkt, mode, self.perturbation);
        // An idle tin or qdisc restarts its schedule now instead of bursting to catch up.
        if tin.backlog == 0 {
            if let Some(s) = &mut tin.schedule {
                s.restart(now);
            }
            if self.packets == 0 {
                if let Some(s) = &mut self.shaper {
                    s.restart(now);
                }
            }
        }
        pkt.enqueued_at = now;
        let size = u64::from(pkt.size);
        let flow = &mut tin.flows[idx];
        flow.queue.push_back(pkt);
        flow.backlog += size;
        tin.backlog += size;
        self.packets += 1;
        self.bytes += size;
        self.buffer_used += size;

        match tin.flows[idx].set {
            FlowSet::None | FlowSet::Decaying => {
                if tin.flows[idx].set == FlowSet::Decaying {
                    tin.decaying_count -= 1;
                    tin.decaying_flows.retain(|&k| k as usize != idx);
                }
                tin.new_flows.push_back(idx as u16);
                tin.flows[idx].set = FlowSet::Sparse;
                tin.sparse_flows += 1;
                let load = host_load(tin, idx, mode);
                tin.flows[idx].deficit = ((tin.flow_quantum * quantum_div(load)) >> 16) as i32;
            }
            FlowSet::SparseWait => {
                // Empty but already in the bulk rotation: now it is a bulk flow.
                tin.flows[idx].set = FlowSet::Bulk;
                tin.sparse_flows -= 1;
                tin.bulk_flows += 1;
                count_bulk(tin, idx, mode, true);
            }
            FlowSet::Sparse | FlowSet::Bulk => {}
        }

        while self.buffer_used > self.buffer_limit {
            self.drop_fattest(now, out);
        }
    }

    fn dequeue(&mut self, now: Time, out: &mut Verdicts) -> Option<Packet> {
        let mut first_pick = true;
        loop {
            if self.packets == 0 || self.next_ready().is_some_and(|t| t > now) {
                return None;
            }
            let t = self.choose_tin(now)?;
            if let Some(pkt) = self.serve_tin(t, now, &mut first_pick, out) {
                return Some(pkt);
            }
        }
    }

    fn len(&self) -> usize {
        self.packets
    }

    fn bytes(&self) -> u64 {
        self.bytes
    }

    fn next_ready(&self) -> Option<Time> {
        self.shaper.map(|s| s.time_next_packet)
    }
}

#[cfg(test)]
mod tests;
