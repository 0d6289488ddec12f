//! Queue disciplines: the qdisc layer of an egress interface (Linux's "traffic control").
//!
//! A qdisc implements [`Qdisc`]; the interface around it counts drops, marks and sojourn times,
//! so an algorithm only decides what to enqueue, what to hand out next and what to drop or mark.
//! Adding an AQM is one file here plus one line in [`create`].

mod cake;
pub mod codel;
mod fifo;
mod fq_codel;
pub mod xlayer;

pub use cake::Cake;
pub use codel::{Codel, CodelParams};
pub use fifo::Fifo;
pub use fq_codel::{FqCodel, FqCodelConfig};

use crate::net::Packet;
use crate::scenario::model::{QdiscSpec, XlayerMean, XlayerWrr};
use crate::sim::{Rng, Time};

/// Packets a qdisc dropped and flows whose packets it ECN-marked during one call.
#[derive(Default)]
pub struct Verdicts {
    pub dropped: Vec<Packet>,
    pub marked: Vec<Packet>,
}

impl Verdicts {
    pub fn clear(&mut self) {
        self.dropped.clear();
        self.marked.clear();
    }
}

pub trait Qdisc {
    /// Name as written in scenario files.
    fn kind(&self) -> &'static str;

    /// Accept `pkt` (its `enqueued_at` is set to now) or drop it or others into `out.dropped`.
    fn enqueue(&mut self, pkt: Packet, now: Time, out: &mut Verdicts);

    /// Hand out the next packet for the device, possibly dropping or marking on the way.
    /// A packet that an AQM marks is returned and also copied into `out.marked`.
    fn dequeue(&mut self, now: Time, out: &mut Verdicts) -> Option<Packet>;

    /// Packets queued.
    fn len(&self) -> usize;

    /// Bytes queued.
    fn bytes(&self) -> u64;

    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Variables for the queue time series (as `qdisc.<name>` columns), e.g. class counts.
    fn vars(&self, _out: &mut Vec<(&'static str, f64)>) {}

    /// For a qdisc that holds packets back (a shaper): after `dequeue` returned `None` with
    /// packets queued, the time at which it may hand one out. The interface retries then, like
    /// Linux's qdisc watchdog. Work-conserving qdiscs never hold back and keep the default.
    fn next_ready(&self) -> Option<Time> {
        None
    }
}

/// Every registered qdisc name, for listings.
pub const NAMES: &[&str] = &["pfifo", "bfifo", "codel", "fq_codel", "cake", "xlayer"];

/// Build the qdisc described by `spec` (already checked by [`QdiscSpec::check`]). `rng` is the
/// interface's own stream, for what Linux randomizes (e.g. the flow-hash perturbation).
pub fn create(spec: &QdiscSpec, mut rng: Rng) -> Box<dyn Qdisc> {
    match *spec {
        QdiscSpec::Pfifo { limit } => Box::new(Fifo::pfifo(limit)),
        QdiscSpec::Bfifo { limit } => Box::new(Fifo::bfifo(limit.0)),
        QdiscSpec::Cake(ref cake) => Box::new(Cake::new(cake, rng)),
        QdiscSpec::Codel { limit, target, interval, ecn, ce_threshold } => Box::new(Codel::new(
            limit,
            CodelParams { target: target.0, interval: interval.0, ecn, ce_threshold: ce_threshold.map(|d| d.0) },
        )),
        QdiscSpec::FqCodel { limit, flows, quantum, target, interval, memory_limit, ecn, ce_threshold, drop_batch } => {
            let config = FqCodelConfig {
                flows,
                // Checked to be at most 1 MiB.
                quantum: quantum.0 as u32,
                limit,
                memory_limit: memory_limit.0,
                drop_batch,
                codel: CodelParams {
                    target: target.0,
                    interval: interval.0,
                    ecn,
                    ce_threshold: ce_threshold.map(|d| d.0),
                },
            };
            Box::new(FqCodel::new(config, rng.next_u64()))
        }
        QdiscSpec::Xlayer { z, k, mean, history, active_timeout, wrr, ref bulk, ref mice } => {
            let params = xlayer::Params {
                z,
                k,
                mean: match mean {
                    XlayerMean::Recent => xlayer::MeanOver::Recent,
                    XlayerMean::Active => xlayer::MeanOver::Active,
                },
                history: history.0,
                active_timeout: active_timeout.0,
                wrr: match wrr {
                    XlayerWrr::Intended => xlayer::WrrMode::Intended,
                    XlayerWrr::Literal => xlayer::WrrMode::Literal,
                },
            };
            // Each class hashes with its own perturbation.
            let bulk = create(bulk, Rng::stream(rng.next_u64(), "bulk"));
            let mice = create(mice, Rng::stream(rng.next_u64(), "mice"));
            Box::new(xlayer::XLayer::new(params, bulk, mice))
        }
    }
}

#[cfg(test)]
mod conservation;
