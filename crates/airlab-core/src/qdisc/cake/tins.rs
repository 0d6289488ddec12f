//! Tins: CAKE's DiffServ priority classes. Each tin has its own flow queues, DRR lists,
//! COBALT constants and, when shaped, a threshold rate: below it a tin has priority over lower
//! ones, above it the tin competes only with its (smaller) DRR weight.

use super::cobalt::{Cobalt, CobaltParams};
use super::shaper::{ByteTime, Schedule, MTU};
use crate::net::Packet;
use crate::sim::Time;
use std::collections::VecDeque;

/// Flow queues per tin (Linux `CAKE_QUEUES`).
pub const QUEUES: usize = 1024;

/// Which rotation a flow queue is in (Linux `CAKE_SET_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum FlowSet {
    /// Idle, in no list.
    #[default]
    None,
    /// New (sparse) flow: served before the bulk rotation while it has deficit.
    Sparse,
    /// Ran out of deficit while empty: in the bulk rotation, still counted as sparse.
    SparseWait,
    /// Bulk flow in the old-flows rotation; counts towards its hosts' loads.
    Bulk,
    /// Empty, kept in the decaying list until its COBALT state is at rest.
    Decaying,
}

/// One flow queue.
#[derive(Clone, Debug)]
pub struct Flow {
    pub queue: VecDeque<Packet>,
    pub backlog: u64,
    pub deficit: i32,
    pub cobalt: Cobalt,
    pub set: FlowSet,
    /// Host-table slots of the flow's source and destination (dual and triple modes).
    pub srchost: u16,
    pub dsthost: u16,
}

/// Bulk flows per host, the basis of per-host fairness.
#[derive(Clone, Copy, Debug, Default)]
pub struct Host {
    pub srchost_tag: u32,
    pub dsthost_tag: u32,
    pub srchost_bulk_flows: u16,
    pub dsthost_bulk_flows: u16,
}

/// The DRR lists of a tin, by flow index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum List {
    New,
    Old,
    Decaying,
}

pub struct Tin {
    pub flows: Vec<Flow>,
    /// The full flow hash each queue is reserved for (set-associative lookup).
    pub tags: Vec<u32>,
    pub hosts: Vec<Host>,
    pub new_flows: VecDeque<u16>,
    pub old_flows: VecDeque<u16>,
    pub decaying_flows: VecDeque<u16>,
    pub sparse_flows: u32,
    pub bulk_flows: u32,
    pub decaying_count: u32,
    pub backlog: u64,
    /// Bytes a flow may send per DRR round (before host scaling).
    pub flow_quantum: u32,
    /// DRR weight between tins when unshaped.
    pub tin_quantum: i32,
    pub tin_deficit: i32,
    pub params: CobaltParams,
    /// Threshold-rate schedule, when shaped.
    pub schedule: Option<Schedule>,
}

impl Tin {
    /// A tin with threshold rate `rate_bps` (None: unshaped), `tin_quantum` DRR weight, and
    /// CoDel `target`/`rtt` (Linux `cake_set_rate`).
    fn new(rate_bps: Option<u64>, tin_quantum: i32, target: Time, rtt: Time) -> Self {
        let rate = rate_bps.map(ByteTime::new);
        let mtu_time = rate.map_or(0, |r| r.duration(MTU));
        // At low rates one MTU takes long to send: the target must allow a packet or so.
        let tin_target = (mtu_time * 3 / 2).max(target);
        let interval = (rtt + tin_target - target).max(2 * tin_target);
        let flow_quantum = rate.map_or(MTU, |r| (r.bytes_per_sec >> 12).clamp(300, MTU as u64) as u32);
        let flow = Flow {
            queue: VecDeque::new(),
            backlog: 0,
            deficit: 0,
            cobalt: Cobalt::new(),
            set: FlowSet::None,
            srchost: 0,
            dsthost: 0,
        };
        Tin {
            flows: vec![flow; QUEUES],
            tags: vec![0; QUEUES],
            hosts: vec![Host::default(); QUEUES],
            new_flows: VecDeque::new(),
            old_flows: VecDeque::new(),
            decaying_flows: VecDeque::new(),
            sparse_flows: 0,
            bulk_flows: 0,
            decaying_count: 0,
            backlog: 0,
            flow_quantum,
            tin_quantum,
            tin_deficit: 0,
            params: CobaltParams { target: tin_target, interval, mtu_time },
            schedule: rate.map(Schedule::new),
        }
    }

    /// Flows with packets to send (or sparse ones waiting in the bulk rotation).
    pub fn active(&self) -> u32 {
        self.sparse_flows + self.bulk_flows
    }

    pub fn list(&mut self, list: List) -> &mut VecDeque<u16> {
        match list {
            List::New => &mut self.new_flows,
            List::Old => &mut self.old_flows,
            List::Decaying => &mut self.decaying_flows,
        }
    }
}

/// DSCP -> tin tables of Linux `sch_cake.c`. Tin 0 is Best Effort in both.
const DIFFSERV3: [u8; 64] = {
    let mut t = [0; 64];
    t[1] = 1; // LE
    t[8] = 1; // CS1
    t[4] = 2; // TOS4 (min delay)
    t[44] = 2; // VA
    t[46] = 2; // EF
    t[48] = 2; // CS6
    t[56] = 2; // CS7
    t
};

const DIFFSERV4: [u8; 64] = {
    let mut t = [0; 64];
    t[1] = 1; // LE
    t[8] = 1; // CS1
              // Video: TOS4, CS2, AF2x, CS3, AF3x, AF4x.
    let video = [4, 16, 18, 20, 22, 24, 26, 28, 30, 34, 36, 38];
    let mut k = 0;
    while k < video.len() {
        t[video[k]] = 2;
        k += 1;
    }
    // Voice: CS4, VA, EF, CS5, CS6, CS7.
    let voice = [32, 40, 44, 46, 48, 56];
    k = 0;
    while k < voice.len() {
        t[voice[k]] = 3;
        k += 1;
    }
    t
};

/// CAKE's DiffServ tin layouts (tc keywords).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CakeTins {
    Besteffort,
    Diffserv3,
    Diffserv4,
}

impl CakeTins {
    pub const WORDS: &'static [&'static str] = &["besteffort", "diffserv3", "diffserv4"];

    /// The layout of tc keyword `word`, one of [`CakeTins::WORDS`].
    pub fn from_word(word: &str) -> Self {
        match word {
            "besteffort" => CakeTins::Besteffort,
            "diffserv3" => CakeTins::Diffserv3,
            "diffserv4" => CakeTins::Diffserv4,
            _ => panic!("unknown CAKE tin layout `{word}`"),
        }
    }

    /// (rate shift, DRR quantum) per tin, and the DSCP -> tin map: Linux `cake_config_*`.
    fn layout(self) -> (&'static [(u32, i32)], &'static [u8; 64]) {
        match self {
            CakeTins::Besteffort => (&[(0, 65535)], &[0; 64]),
            CakeTins::Diffserv3 => (&[(0, 1024), (4, 1024 >> 4), (2, 1024 >> 2)], &DIFFSERV3),
            CakeTins::Diffserv4 => (&[(0, 1024), (4, 1024 >> 4), (1, 1024 >> 1), (2, 1024 >> 2)], &DIFFSERV4),
        }
    }

    /// How many tins this mode has.
    pub fn count(self) -> usize {
        self.layout().0.len()
    }

    /// The tins of this mode for `bandwidth` (None: unshaped), and the DSCP -> tin map.
    pub fn build(self, bandwidth: Option<u64>, target: Time, rtt: Time) -> (Vec<Tin>, &'static [u8; 64]) {
        let (shape, map) = self.layout();
        let tins = shape
            .iter()
            .map(|&(shift, quantum)| Tin::new(bandwidth.map(|b| b >> shift), quantum, target, rtt))
            .collect();
        (tins, map)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::{MS, US};

    #[test]
    fn diffserv3_thresholds_and_codepoints() {
        let (tins, map) = CakeTins::Diffserv3.build(Some(16_000_000), 5 * MS, 100 * MS);
        assert_eq!(tins.len(), 3);
        let rates: Vec<u64> = tins.iter().map(|t| t.schedule.unwrap().rate.bytes_per_sec).collect();
        assert_eq!(rates, vec![2_000_000, 125_000, 500_000]);
        assert_eq!((map[0], map[8], map[46], map[10]), (0, 1, 2, 0));
        // 1 Mbit/s Bulk tin: an MTU takes 12.1 ms, so target 18.2 ms and interval 113.2 ms.
        assert_eq!(tins[1].params.mtu_time, 12_112 * US);
        assert_eq!(tins[1].params.target, 18_168 * US);
        assert_eq!(tins[1].params.interval, 113_168 * US);
        assert_eq!((tins[0].params.target, tins[0].params.interval), (5 * MS, 100 * MS));
        // Quantum: rate >> 12 bytes, within [300, 1514].
        assert_eq!((tins[0].flow_quantum, tins[1].flow_quantum), (488, 300));
    }

    #[test]
    fn unshaped_tins_have_full_quantum_and_plain_codel_constants() {
        let (tins, map) = CakeTins::Diffserv4.build(None, 5 * MS, 100 * MS);
        assert_eq!(tins.iter().map(|t| t.tin_quantum).collect::<Vec<_>>(), vec![1024, 64, 512, 256]);
        assert!(tins.iter().all(|t| t.flow_quantum == 1514 && t.schedule.is_none() && t.params.target == 5 * MS));
        assert_eq!((map[46], map[34], map[8], map[0]), (3, 2, 1, 0));
    }
}
