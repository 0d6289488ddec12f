//! Token bucket filter (Linux `sch_tbf`): a shaper. Packets wait in a child qdisc (a `bfifo`
//! by default, as `tc ... tbf limit L` builds one) and leave when the bucket holds tokens for
//! them. The bucket fills at `rate` up to `burst` bytes and starts full, so after an idle
//! period up to `burst` bytes leave at once and the long-run rate is `rate`.
//!
//! As Linux, tokens are kept as time (the time `rate` takes to send a byte count): a packet of
//! L bytes may leave when the credit, min(now − t_c, buffer) + tokens capped at buffer, covers
//! L's time; otherwise the qdisc sleeps until it does (the qdisc watchdog, here
//! [`Qdisc::next_ready`]). A packet longer than `burst` could never leave and is dropped on
//! arrival. The length counted is the IP length plus `overhead` (14: Linux counts the
//! Ethernet header of the frames it queues on Ethernet and Wi-Fi interfaces).
//!
//! The head packet is taken from the child before it may leave and held here (Linux
//! `qdisc_peek_dequeued`), so an AQM child decides on a packet when the shaper first looks at
//! it. Not modelled: the optional peak-rate bucket (`peakrate`, `mtu`) and the kernel's rate
//! table granularity.

use super::cake::shaper::{adjusted_len, ByteTime};
use super::{Build, Component, Config, Qdisc, Verdicts};
use crate::net::Packet;
use crate::params::{Invalid, Kind, Param, Value};
use crate::sim::{Rng, Time};

pub static TBF: Component = Component {
    name: "tbf",
    doc: "token bucket shaper (Linux tbf): `rate` with a bucket of `burst` bytes over a child qdisc",
    params: &[
        Param {
            name: "rate",
            kind: Kind::Rate { min: 8_000 },
            default: Value::Unset,
            doc: "the shaped rate (required)",
        },
        Param {
            name: "burst",
            kind: Kind::Bytes { min: 64, max: 1 << 30 },
            default: Value::Unset,
            doc: "bucket size; unset: the larger of 1514 B and 1 ms at `rate` (tc requires one)",
        },
        OVERHEAD,
        Param {
            name: "qdisc",
            kind: super::child_kind("bfifo"),
            default: Value::Unset,
            doc: "the child qdisc that holds the queue",
        },
    ],
    check,
    build: Build(build, |c: &Config| super::queues(super::child(c, "qdisc"))),
};

/// The bytes a shaper adds to each packet's IP length, as Linux counts on Ethernet-like
/// devices (shared with [`super::htb`]).
pub(super) const OVERHEAD: Param = Param {
    name: "overhead",
    kind: Kind::Int { min: -64, max: 256, unit: "bytes" },
    default: Value::Int(14),
    doc: "bytes added to each packet's IP length for the tokens (14: the Ethernet header)",
};

fn check(c: &Config) -> Result<(), Invalid> {
    if c.opt_rate("rate").is_none() {
        return Err(Invalid::new("rate", "tbf needs a `rate`, such as \"10Mbit\""));
    }
    if super::child(c, "qdisc").name() == "noqueue" {
        return Err(Invalid::new("qdisc.kind", "the shaper's packets wait in its child: noqueue holds none"));
    }
    Ok(())
}

fn build(c: &Config, rng: Rng) -> Box<dyn Qdisc> {
    let rate = c.opt_rate("rate").expect("checked");
    let burst = c.opt_bytes("burst").unwrap_or_else(|| default_burst(rate));
    let child = super::create(super::child(c, "qdisc"), rng);
    Box::new(Tbf::new(rate, burst as u32, c.int("overhead") as i32, child))
}

/// The burst when the scenario gives none: one full-size Ethernet frame, or 1 ms of `rate`
/// when that is more (tc's rule of thumb that the bucket hold at least a timer tick's worth).
pub fn default_burst(rate_bps: u64) -> u64 {
    (rate_bps / 8 / 1000).max(u64::from(super::cake::shaper::MTU))
}

/// A token bucket: `buffer` is the bucket's size as time at the rate, `tokens` the credit
/// left after the last packet, at `t_c`.
#[derive(Clone, Copy, Debug)]
pub struct Bucket {
    rate: ByteTime,
    buffer: i64,
    tokens: i64,
    t_c: Time,
}

impl Bucket {
    /// A full bucket of `burst` bytes at `rate_bps`.
    pub fn new(rate_bps: u64, burst: u32) -> Self {
        let rate = ByteTime::new(rate_bps);
        let buffer = rate.duration(burst) as i64;
        Bucket { rate, buffer, tokens: buffer, t_c: 0 }
    }

    /// The credit at `now` after sending `len` bytes: negative when they may not leave yet
    /// (by that much time).
    pub fn credit_after(&self, len: u32, now: Time) -> i64 {
        let elapsed = (now.saturating_sub(self.t_c) as i64).min(self.buffer);
        (elapsed + self.tokens).min(self.buffer) - self.rate.duration(len) as i64
    }

    /// `len` bytes left at `now`, leaving `credit` (from [`Self::credit_after`]).
    pub fn spend(&mut self, credit: i64, now: Time) {
        self.tokens = credit;
        self.t_c = now;
    }

    /// Whether a packet of `len` bytes fits the bucket at all.
    pub fn holds(&self, len: u32) -> bool {
        self.rate.duration(len) as i64 <= self.buffer
    }
}

pub struct Tbf {
    bucket: Bucket,
    overhead: i32,
    child: Box<dyn Qdisc>,
    /// The child's head packet, taken out to be measured against the bucket, and whether the
    /// child marked it (reported when it leaves, as the interface expects).
    head: Option<Packet>,
    head_marked: bool,
    /// The child's verdicts of one dequeue, sorted before they are passed on.
    scratch: Verdicts,
    /// When the head packet may leave, while it may not yet.
    ready_at: Option<Time>,
}

impl Tbf {
    pub fn new(rate_bps: u64, burst: u32, overhead: i32, child: Box<dyn Qdisc>) -> Self {
        let bucket = Bucket::new(rate_bps, burst);
        Tbf { bucket, overhead, child, head: None, head_marked: false, scratch: Verdicts::default(), ready_at: None }
    }

    fn len_of(&self, pkt: &Packet) -> u32 {
        adjusted_len(pkt.size, self.overhead, 0)
    }
}

impl Qdisc for Tbf {
    fn kind(&self) -> &'static str {
        "tbf"
    }

    fn enqueue(&mut self, mut pkt: Packet, now: Time, out: &mut Verdicts) {
        if !self.bucket.holds(self.len_of(&pkt)) {
            pkt.enqueued_at = now;
            out.dropped.push(pkt);
            return;
        }
        self.child.enqueue(pkt, now, out);
    }

    fn dequeue(&mut self, now: Time, out: &mut Verdicts) -> Option<Packet> {
        if self.head.is_none() {
            self.head = self.child.dequeue(now, &mut self.scratch);
            out.dropped.append(&mut self.scratch.dropped);
            self.head_marked = !self.scratch.marked.is_empty();
            self.scratch.marked.clear();
        }
        let len = self.len_of(self.head.as_ref()?);
        let credit = self.bucket.credit_after(len, now);
        if credit < 0 {
            self.ready_at = Some(now + credit.unsigned_abs());
            return None;
        }
        self.bucket.spend(credit, now);
        self.ready_at = None;
        let pkt = self.head.take()?;
        if std::mem::take(&mut self.head_marked) {
            out.marked.push(pkt.clone());
        }
        Some(pkt)
    }

    fn len(&self) -> usize {
        self.child.len() + usize::from(self.head.is_some())
    }

    fn bytes(&self) -> u64 {
        self.child.bytes() + self.head.as_ref().map_or(0, |p| u64::from(p.size))
    }

    fn next_ready(&self) -> Option<Time> {
        self.ready_at
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::sim::{MS, US};

    fn tbf(rate_bps: u64, burst: u32) -> Tbf {
        Tbf::new(rate_bps, burst, 14, crate::qdisc::create(&crate::qdisc::Config::named("bfifo"), Rng::stream(1, "t")))
    }

    /// Dequeue everything as a device that always has room would, waking when told: the
    /// departure times.
    fn departures(q: &mut Tbf, n: usize) -> Vec<Time> {
        let (mut now, mut out, mut times) = (0, Verdicts::default(), Vec::new());
        while times.len() < n {
            match q.dequeue(now, &mut out) {
                Some(_) => times.push(now),
                None => now = q.next_ready().expect("a shaper with packets wakes up"),
            }
        }
        times
    }

    #[test]
    fn a_full_bucket_lets_burst_bytes_through_then_paces_at_the_rate() {
        // 10 Mbit/s, 1500-byte packets counted as 1514 bytes (1211.2 us each), a bucket of
        // three of them: three leave at once, then one every 1211.2 us.
        let mut q = tbf(10_000_000, 3 * 1514);
        let mut out = Verdicts::default();
        for _ in 0..6 {
            q.enqueue(Packet::datagram(0, 1500), 0, &mut out);
        }
        let t = departures(&mut q, 6);
        let per = 1_211_200;
        assert_eq!(t, vec![0, 0, 0, per, 2 * per, 3 * per]);
        assert!(out.dropped.is_empty());
    }

    #[test]
    fn idle_time_refills_the_bucket_up_to_burst_only() {
        let mut q = tbf(8_000_000, 2 * 1014);
        let mut out = Verdicts::default();
        // 1000-byte packets take 1014 us of tokens at 8 Mbit/s.
        q.enqueue(Packet::datagram(0, 1000), 0, &mut out);
        q.enqueue(Packet::datagram(0, 1000), 0, &mut out);
        assert!(q.dequeue(0, &mut out).is_some() && q.dequeue(0, &mut out).is_some());
        // Half a packet's time later, half a packet of credit: not enough.
        q.enqueue(Packet::datagram(0, 1000), 507 * US, &mut out);
        assert!(q.dequeue(507 * US, &mut out).is_none());
        assert_eq!(q.next_ready(), Some(1014 * US));
        assert!(q.dequeue(1014 * US, &mut out).is_some());
        // A long idle period fills the bucket to two packets, not more.
        for _ in 0..3 {
            q.enqueue(Packet::datagram(0, 1000), 100 * MS, &mut out);
        }
        assert!(q.dequeue(100 * MS, &mut out).is_some() && q.dequeue(100 * MS, &mut out).is_some());
        assert!(q.dequeue(100 * MS, &mut out).is_none());
        assert_eq!(q.len(), 1);
    }

    #[test]
    fn a_packet_longer_than_the_bucket_is_dropped() {
        let mut q = tbf(10_000_000, 1000);
        let mut out = Verdicts::default();
        q.enqueue(Packet::datagram(0, 1500), 0, &mut out);
        assert_eq!((out.dropped.len(), q.len()), (1, 0));
        q.enqueue(Packet::datagram(0, 900), 0, &mut out);
        assert_eq!(q.len(), 1);
    }

    #[test]
    fn the_default_burst_is_a_frame_or_a_millisecond() {
        assert_eq!(default_burst(10_000_000), 1514);
        assert_eq!(default_burst(1_000_000_000), 125_000);
    }
}
