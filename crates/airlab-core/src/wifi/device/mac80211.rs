//! The Linux mac80211 queueing layer below a Wi-Fi interface's qdisc, as on an OpenWrt AP with
//! a firmware-offloaded driver (mt76, ath10k/ath11k):
//!
//! ```text
//! qdisc (usually noqueue or fq_codel)
//!   -> per-station TXQ: FQ-CoDel (4096 flows, quantum 300 B, CoDel 20 ms / 100 ms, ECN)
//!   -> airtime-fair scheduler (DRR on the airtime each station used)
//!   -> Airtime Queue Limit: per-station in-flight airtime below 5 ms (12 ms while the
//!      interface has less than 24 ms in flight)
//!   -> firmware queue per station -> the MAC's exchanges
//! ```
//!
//! mac80211 never stops the qdisc above for these queues: every packet goes straight into its
//! station's TXQ, where overflow drops from the fattest flow and CoDel drops (or marks) at
//! dequeue. The driver pulls from the TXQs while AQL lets it, so the firmware holds only a few
//! milliseconds of airtime per station and the standing queue stays where CoDel sees it.
//!
//! Sources: `net/mac80211/tx.c` (`ieee80211_txq_setup_flows`: CoDel 20 ms / 100 ms with ECN),
//! `include/net/fq_impl.h` (`fq_init`: 8192 packets, 16 MiB, quantum 300), `net/mac80211/sta_info.c`
//! and `cfg80211.h` (AQL limits 5000/12000 µs, threshold 24000 µs; airtime weight 256),
//! `net/mac80211/airtime.c` (`ieee80211_calc_expected_tx_airtime`). What this abstracts
//! away is in docs/models/wifi.md, "The mac80211 layer".

use super::{Build, Component, Config, DeviceLayer};
use crate::net::Packet;
use crate::params::{Invalid, Kind, Param, Value};
use crate::qdisc::{CodelParams, FqCodel, FqCodelConfig, Qdisc, Verdicts};
use crate::sim::{spell, Time, DURATION_UNITS, MS, US};
use crate::wifi::mpdu::Mpdu;
use crate::wifi::phy::{Format, TxVector};
use std::collections::VecDeque;

/// The smallest `quantum` of the TXQs' deficit round robin: a packet of L bytes waits
/// L / quantum rounds, each a pass of the scheduler; Linux raises fq_codel's quantum to 256.
const MIN_QUANTUM: u64 = 256;

/// Linux's defaults, as the parameters' defaults below give them.
const L: Mac80211Params = Mac80211Params::LINUX;

pub static MAC80211: Component = Component {
    name: "mac80211",
    doc: "Linux's mac80211 layer: per-station FQ-CoDel TXQs, airtime fairness and Airtime Queue Limits",
    params: &[
        Param {
            name: "target",
            kind: Kind::Time { min: 1 },
            default: Value::Time(L.target),
            doc: "CoDel's acceptable sojourn in each TXQ flow (mac80211 sets 20 ms)",
        },
        Param {
            name: "interval",
            kind: Kind::Time { min: 1 },
            default: Value::Time(L.interval),
            doc: "CoDel's window in each TXQ flow",
        },
        Param {
            name: "ecn",
            kind: Kind::Flag,
            default: Value::Flag(L.ecn),
            doc: "CoDel marks ECN-capable packets instead of dropping them",
        },
        Param {
            name: "flows",
            // fq_codel's bound, which mac80211's TXQs share.
            kind: Kind::Int { min: 1, max: 65536, unit: "queues" },
            default: Value::Int(L.flows as i64),
            doc: "flow queues (hash buckets) per station TXQ",
        },
        Param {
            name: "quantum",
            kind: Kind::Bytes { min: MIN_QUANTUM, max: 1 << 20 },
            default: Value::Bytes(L.quantum as u64),
            doc: "bytes a flow sends per deficit-round-robin round in a TXQ; a packet waits a round per quantum of its bytes",
        },
        Param {
            name: "limit",
            kind: Kind::Int { min: 1, max: u32::MAX as i64, unit: "packets" },
            default: Value::Int(L.limit as i64),
            doc: "packets a TXQ holds before it drops from its fattest flow",
        },
        Param {
            name: "memory_limit",
            kind: Kind::Bytes { min: 1, max: u64::MAX },
            default: Value::Bytes(L.memory_limit),
            doc: "bytes a TXQ holds before it drops from its fattest flow",
        },
        Param {
            name: "aql_low",
            kind: Kind::Time { min: 1 },
            default: Value::Time(L.aql_low),
            doc: "estimated airtime a station may have in the firmware (AQL)",
        },
        Param {
            name: "aql_high",
            kind: Kind::Time { min: 1 },
            default: Value::Time(L.aql_high),
            doc: "estimated airtime a station may have in the firmware while the interface has less than aql_threshold",
        },
        Param {
            name: "aql_threshold",
            kind: Kind::Time { min: 0 },
            default: Value::Time(L.aql_threshold),
            doc: "estimated airtime of the whole interface below which stations get aql_high",
        },
        Param {
            name: "airtime_fairness",
            kind: Kind::Flag,
            default: Value::Flag(L.airtime_fairness),
            doc: "serve stations by deficit round robin on the airtime they used; otherwise round robin",
        },
    ],
    check: check_orders,
    build: Build(|c| DeviceLayer::Mac80211(Mac80211Params::of(c))),
};

/// CoDel watches a window longer than the delay it aims at, and AQL's limit while the
/// interface is lightly loaded is the looser one.
fn check_orders(c: &Config) -> Result<(), Invalid> {
    let time = |name| spell(c.time(name), DURATION_UNITS);
    if c.time("target") >= c.time("interval") {
        let message = format!("target must be less than interval ({}), got {}", time("interval"), time("target"));
        return Err(Invalid::new("target", message));
    }
    if c.time("aql_low") > c.time("aql_high") {
        let message = format!("aql_low must be at most aql_high ({}), got {}", time("aql_high"), time("aql_low"));
        return Err(Invalid::new("aql_low", message));
    }
    Ok(())
}

/// The parameters of the mac80211 layer, Linux's defaults in [`Mac80211Params::LINUX`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mac80211Params {
    /// CoDel's target and interval in each TXQ flow, and whether it marks ECN-capable packets.
    pub target: Time,
    pub interval: Time,
    pub ecn: bool,
    /// Flow queues (hash buckets) per station TXQ.
    pub flows: u32,
    /// Bytes a flow may send per DRR round inside a TXQ.
    pub quantum: u32,
    /// Packets and bytes a TXQ holds before it drops from its fattest flow.
    pub limit: u32,
    pub memory_limit: u64,
    /// Airtime Queue Limits: a station may have `aql_low` of estimated airtime in the
    /// firmware, or `aql_high` while the interface in all has less than `aql_threshold`.
    pub aql_low: Time,
    pub aql_high: Time,
    pub aql_threshold: Time,
    /// Serve stations by deficit round robin on the airtime they used (mac80211's airtime
    /// fairness, on by default); otherwise round robin.
    pub airtime_fairness: bool,
}

impl Mac80211Params {
    /// Linux's defaults (6.x).
    pub const LINUX: Mac80211Params = Mac80211Params {
        target: 20 * MS,
        interval: 100 * MS,
        ecn: true,
        flows: 4096,
        quantum: 300,
        limit: 8192,
        memory_limit: 16 << 20,
        aql_low: 5000 * US,
        aql_high: 12_000 * US,
        aql_threshold: 24_000 * US,
        airtime_fairness: true,
    };

    /// The layer a `mac80211` device table describes (its ranges checked, so each fits).
    fn of(c: &Config) -> Self {
        Mac80211Params {
            target: c.time("target"),
            interval: c.time("interval"),
            ecn: c.flag("ecn"),
            flows: c.int("flows") as u32,
            quantum: c.bytes("quantum") as u32,
            limit: c.int("limit") as u32,
            memory_limit: c.bytes("memory_limit"),
            aql_low: c.time("aql_low"),
            aql_high: c.time("aql_high"),
            aql_threshold: c.time("aql_threshold"),
            airtime_fairness: c.flag("airtime_fairness"),
        }
    }

    fn txq_config(&self) -> FqCodelConfig {
        FqCodelConfig {
            flows: self.flows,
            quantum: self.quantum,
            limit: self.limit,
            memory_limit: self.memory_limit,
            // fq_impl drops one packet from the fattest flow per packet over the limit.
            drop_batch: 1,
            codel: CodelParams { target: self.target, interval: self.interval, ecn: self.ecn, ce_threshold: None },
        }
    }
}

/// Airtime a station may use per round of the fairness scheduler (Linux
/// `IEEE80211_DEFAULT_AIRTIME_WEIGHT`, 256 µs).
pub const AIRTIME_QUANTUM: i64 = 256 * US as i64;

/// mac80211's estimate of the airtime a packet of `ip_bytes` will take at `txv`, which AQL
/// counts while the packet is in the firmware (`ieee80211_calc_expected_tx_airtime`): the time
/// of its bytes (with a 38-byte Ethernet-size header) at the rate, plus the PPDU overhead
/// shared over an aggregate whose assumed size grows with the rate; at least 4 µs.
pub fn expected_airtime(txv: &TxVector, ip_bytes: u32) -> Time {
    let per_kib = 1024 * 8 * crate::sim::SEC / txv.rate_bps().max(1);
    let agg_shift = if txv.format == Format::NonHt {
        0
    } else if per_kib > 400 * US {
        1
    } else if per_kib > 250 * US {
        2
    } else if per_kib > 150 * US {
        3
    } else if per_kib > 70 * US {
        4
    } else if txv.format != Format::He || per_kib > 20 * US {
        5
    } else {
        6
    };
    let bytes = u64::from(ip_bytes) + 38;
    (per_kib * bytes / 1024 + (txv.preamble_duration() >> agg_shift)).max(4 * US)
}

/// One interface's mac80211 layer: a TXQ per station, the scheduler, AQL and the firmware
/// queues the MAC sends from.
pub struct Mac80211 {
    params: Mac80211Params,
    txqs: Vec<FqCodel>,
    /// Stations with packets in their TXQ, in the scheduler's order.
    txq_active: VecDeque<u16>,
    /// Airtime deficit per station (ns).
    deficit: Vec<i64>,
    /// Frames handed to the firmware, per station, and the stations that have some, in the
    /// order the firmware serves them (round robin per exchange).
    firmware: Vec<VecDeque<Mpdu>>,
    fw_active: VecDeque<u16>,
    /// Estimated airtime in the firmware, per station and in all (AQL).
    pending: Vec<Time>,
    pending_total: Time,
    txq_len: usize,
    fw_len: usize,
}

impl Mac80211 {
    /// `perturbation` keys the TXQs' flow hash.
    pub fn new(params: Mac80211Params, peers: usize, perturbation: u64) -> Self {
        Mac80211 {
            params,
            txqs: (0..peers).map(|i| FqCodel::new(params.txq_config(), perturbation ^ i as u64)).collect(),
            txq_active: VecDeque::new(),
            deficit: vec![0; peers],
            firmware: vec![VecDeque::new(); peers],
            fw_active: VecDeque::new(),
            pending: vec![0; peers],
            pending_total: 0,
            txq_len: 0,
            fw_len: 0,
        }
    }

    /// Packets in the TXQs and in the firmware.
    pub fn len(&self) -> usize {
        self.txq_len + self.fw_len
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Frames the MAC can send now.
    pub fn has_frames(&self) -> bool {
        self.fw_len > 0
    }

    /// Estimated airtime in the firmware for `peer` (AQL's count).
    pub fn pending_airtime(&self, peer: u16) -> Time {
        self.pending[peer as usize]
    }

    /// A packet for station `peer` enters its TXQ (which may drop from its fattest flow).
    pub fn push(&mut self, peer: u16, pkt: Packet, now: Time, out: &mut Verdicts) {
        let txq = &mut self.txqs[peer as usize];
        let was_empty = txq.is_empty();
        let before = txq.len();
        txq.enqueue(pkt, now, out);
        self.txq_len = self.txq_len + txq.len() - before;
        if was_empty && !txq.is_empty() {
            self.txq_active.push_back(peer);
        }
    }

    /// Linux `ieee80211_txq_airtime_check`.
    fn aql_allows(&self, peer: u16) -> bool {
        let p = &self.params;
        let pending = self.pending[peer as usize];
        pending < p.aql_low || (self.pending_total < p.aql_threshold && pending < p.aql_high)
    }

    /// The driver pulls from the TXQs into the firmware while AQL lets it: the scheduler picks
    /// the next station in credit among those AQL allows and takes its packets (through
    /// CoDel) until AQL stops it, each frame taking its station's next sequence number from
    /// `next_seq`. `airtime(peer, bytes)` is the estimate charged per packet.
    pub fn fill(&mut self, now: Time, next_seq: &mut [u64], out: &mut Verdicts, airtime: impl Fn(u16, u32) -> Time) {
        while let Some(peer) = self.next_txq() {
            let before = self.txqs[peer as usize].len();
            while self.aql_allows(peer) {
                let txq = &mut self.txqs[peer as usize];
                let Some(pkt) = txq.dequeue(now, out) else { break };
                let est = airtime(peer, pkt.size);
                let seq = next_seq[peer as usize];
                next_seq[peer as usize] += 1;
                self.pending[peer as usize] += est;
                self.pending_total += est;
                let fw = &mut self.firmware[peer as usize];
                if fw.is_empty() {
                    self.fw_active.push_back(peer);
                }
                fw.push_back(Mpdu { pkt, seq, attempts: 0, aql: est, queued_at: now });
                self.fw_len += 1;
            }
            // Moved to the firmware or dropped by CoDel.
            self.txq_len -= before - self.txqs[peer as usize].len();
            if self.txqs[peer as usize].is_empty() {
                self.txq_active.retain(|&p| p != peer);
            } else {
                // Blocked by AQL: the next station's turn.
                self.txq_active.rotate_left(1);
            }
        }
    }

    /// The next station to pull from, as `ieee80211_next_txq`: the first active one that is in
    /// credit (with airtime fairness) and that AQL allows. A station in debt gets a quantum
    /// and goes to the back, as does one AQL holds back; none is returned once no active
    /// station is allowed by AQL.
    fn next_txq(&mut self) -> Option<u16> {
        if !self.txq_active.iter().any(|&p| self.aql_allows(p)) {
            return None;
        }
        loop {
            let &peer = self.txq_active.front()?;
            let in_debt = self.params.airtime_fairness && self.deficit[peer as usize] < 0;
            if in_debt {
                self.deficit[peer as usize] += AIRTIME_QUANTUM;
            }
            if in_debt || !self.aql_allows(peer) {
                self.txq_active.rotate_left(1);
            } else {
                return Some(peer);
            }
        }
    }

    /// The station whose frames the MAC sends next.
    pub fn next_peer(&self) -> Option<u16> {
        self.fw_active.front().copied()
    }

    /// The stations with frames in the firmware, in the order it serves them.
    pub fn mu_candidates(&self) -> Vec<u16> {
        self.fw_active.iter().copied().collect()
    }

    /// `peer`'s frames in the firmware, oldest first.
    pub fn firmware_frames(&self, peer: u16) -> impl Iterator<Item = &Mpdu> {
        self.firmware[peer as usize].iter()
    }

    /// Up to `max` of `peer`'s frames from the firmware queue while `fits` accepts them; the
    /// firmware then turns to the next station.
    pub fn take(&mut self, peer: u16, max: usize, mut fits: impl FnMut(&[Mpdu], &Mpdu) -> bool) -> Vec<Mpdu> {
        let fw = &mut self.firmware[peer as usize];
        let mut out = Vec::new();
        while out.len() < max {
            match fw.front() {
                Some(next) if fits(&out, next) => out.push(fw.pop_front().expect("front exists")),
                _ => break,
            }
        }
        self.fw_len -= out.len();
        self.fw_active.retain(|&p| p != peer);
        if !fw.is_empty() {
            self.fw_active.push_back(peer);
        }
        out
    }

    /// Frames to send again go back to the head of their firmware queue, the station first
    /// (a retry holds up the receiver's reordering).
    pub fn requeue(&mut self, peer: u16, mpdus: impl DoubleEndedIterator<Item = Mpdu>) {
        let fw = &mut self.firmware[peer as usize];
        let before = fw.len();
        for m in mpdus.rev() {
            fw.push_front(m);
        }
        if fw.len() > before {
            self.fw_len += fw.len() - before;
            self.fw_active.retain(|&p| p != peer);
            self.fw_active.push_front(peer);
        }
    }

    /// The tx status of an exchange with `peer` that used `airtime`: charge the scheduler and
    /// release `released`, the AQL estimates of the frames done with (acknowledged or given up).
    pub fn complete(&mut self, peer: u16, airtime: Time, released: Time) {
        if self.params.airtime_fairness {
            self.deficit[peer as usize] -= airtime as i64;
        }
        self.pending[peer as usize] -= released;
        self.pending_total -= released;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::{Ecn, TcpSegment};

    fn pkt(conn: u32) -> Packet {
        Packet::tcp_packet(conn, conn, 0, 1, 1500, Ecn::NotEct, TcpSegment::default())
    }

    /// A MAC of `peers` stations (no perturbation), the verdicts of its calls, and the next
    /// sequence number of each station (room for three).
    fn mac(params: Mac80211Params, peers: usize) -> (Mac80211, Verdicts, [u64; 3]) {
        (Mac80211::new(params, peers, 0), Verdicts::default(), [0u64; 3])
    }

    /// The firmware sends up to `max` of `peer`'s frames in `airtime` and reports them done;
    /// returns how many it sent.
    fn send(m: &mut Mac80211, peer: u16, max: usize, airtime: Time) -> usize {
        let sent = m.take(peer, max, |_, _| true);
        m.complete(peer, airtime, sent.iter().map(|f| f.aql).sum());
        sent.len()
    }

    #[test]
    fn expected_airtime_follows_linux_estimate() {
        // HT MCS 7, 20 MHz, long GI: 65 Mbit/s, 126 µs per KiB, so Linux assumes aggregates of
        // 2^4 and adds 1/16 of the 36 µs preamble: 1538 B x 8 / 65 Mbit/s + 2.25 µs = 191.5 µs.
        let ht7 = TxVector::ht(7, 20, false);
        assert!(expected_airtime(&ht7, 1500).abs_diff(191_540) < 100, "{}", expected_airtime(&ht7, 1500));
        // 802.11a at 6 Mbit/s is never aggregated: 1538 B x 8 / 6 Mbit/s + 20 µs = 2070.7 µs.
        let a6 = TxVector::non_ht(6);
        assert!(expected_airtime(&a6, 1500).abs_diff(2_070_700) < 100, "{}", expected_airtime(&a6, 1500));
        // A tiny frame at a fast HE rate costs at least 4 µs.
        assert_eq!(expected_airtime(&TxVector::he(11, 2, 80, 800), 40), 4 * US);
    }

    #[test]
    fn aql_gives_the_first_stations_the_high_limit_and_the_rest_the_low_one() {
        // Three backlogged stations, 1 ms per packet: the first two fill to the 12 ms limit,
        // which brings the interface to its 24 ms threshold, so the third gets 5 ms.
        let (mut m, mut out, mut seq) = mac(Mac80211Params::LINUX, 3);
        for peer in 0..3 {
            for conn in 0..100 {
                m.push(peer, pkt(conn), 0, &mut out);
            }
        }
        m.fill(0, &mut seq, &mut out, |_, _| MS);
        let pending: Vec<Time> = (0..3).map(|p| m.pending_airtime(p) / MS).collect();
        assert_eq!(pending, [12, 12, 5]);
        assert_eq!(m.len(), 300);
        // Completing station 2's frames frees its share; the refill takes it back to 5 ms.
        assert_eq!(send(&mut m, 2, 64, 5 * MS), 5);
        assert_eq!(m.pending_airtime(2), 0);
        m.fill(MS, &mut seq, &mut out, |_, _| MS);
        assert_eq!(m.pending_airtime(2), 5 * MS);
        assert!(out.dropped.is_empty());
    }

    #[test]
    fn codel_in_the_txq_drops_after_the_sojourn_stays_above_target_for_an_interval() {
        // One station, a standing queue from t = 0, the firmware drained one packet per ms:
        // the sojourn passes 20 ms at t = 20 ms, so CoDel's first drop comes at the first
        // dequeue after 120 ms.
        let (mut m, mut out, mut seq) = mac(Mac80211Params::LINUX, 1);
        for _ in 0..400 {
            m.push(0, pkt(7), 0, &mut out);
        }
        let mut first_drop = None;
        for t in 0..200 {
            let now = t * MS;
            m.fill(now, &mut seq, &mut out, |_, _| MS);
            if first_drop.is_none() && !out.dropped.is_empty() {
                first_drop = Some(now);
            }
            send(&mut m, 0, 1, MS);
        }
        let first = first_drop.expect("CoDel drops");
        assert!((120 * MS..=122 * MS).contains(&first), "first drop at {} ms", first / MS);
    }

    #[test]
    fn the_firmware_serves_stations_in_turn_and_only_retries_jump_the_queue() {
        let (mut m, mut out, mut seq) = mac(Mac80211Params::LINUX, 2);
        for conn in 0..4 {
            m.push(0, pkt(conn), 0, &mut out);
            m.push(1, pkt(conn), 0, &mut out);
        }
        m.fill(0, &mut seq, &mut out, |_, _| 100 * US);
        let mut order = Vec::new();
        for _ in 0..4 {
            let peer = m.next_peer().unwrap();
            let sent = m.take(peer, 1, |_, _| true);
            // A completed exchange with nothing to retry leaves the turn to the other station.
            m.requeue(peer, std::iter::empty());
            m.complete(peer, 100 * US, sent.iter().map(|f| f.aql).sum());
            order.push(peer);
        }
        assert_eq!(order, [0, 1, 0, 1]);
        // A failed frame goes back first, its station ahead of the other.
        let sent = m.take(0, 1, |_, _| true);
        m.requeue(0, sent.into_iter());
        assert_eq!(m.next_peer(), Some(0));
    }

    #[test]
    fn airtime_fairness_refills_the_station_in_credit_first() {
        // Both stations backlogged and allowed by AQL; station 0 used 1 ms of airtime, so the
        // scheduler skips it until station 1 has been served.
        let params = Mac80211Params { aql_low: MS, aql_high: MS, ..Mac80211Params::LINUX };
        let (mut m, mut out, mut seq) = mac(params, 2);
        for conn in 0..10 {
            m.push(0, pkt(conn), 0, &mut out);
            m.push(1, pkt(conn), 0, &mut out);
        }
        m.complete(0, MS, 0);
        m.fill(0, &mut seq, &mut out, |_, _| MS);
        assert_eq!((m.pending_airtime(0), m.pending_airtime(1)), (MS, MS));
        // Station 1 was filled first: it went to the firmware's round robin first.
        assert_eq!(m.next_peer(), Some(1));
    }
}
