//! Queue disciplines: the qdisc layer of an egress interface (Linux's "traffic control").
//!
//! A qdisc implements [`Qdisc`]; the interface around it counts drops, marks and sojourn times,
//! so an algorithm only decides what to enqueue, what to hand out next and what to drop or mark.
//! Adding an AQM is one file here plus one line in [`create`].

mod cake;
mod fifo;

pub use cake::Cake;
pub use fifo::Fifo;

use crate::net::Packet;
use crate::scenario::model::QdiscSpec;
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

    /// For a qdisc that holds packets back (a shaper): after `dequeue` returned `None` with
    /// packets queued, the time at which it may hand one out. The interface retries then, like
    /// Linux's qdisc watchdog. Work-conserving qdiscs never hold back and keep the default.
    fn next_ready(&self) -> Option<Time> {
        None
    }
}

/// Every registered qdisc name, for listings.
pub const NAMES: &[&str] = &["pfifo", "bfifo", "cake"];

/// Build the qdisc described by `spec` (already checked by [`QdiscSpec::check`]). `rng` is the
/// interface's own stream, for what Linux randomizes (e.g. the flow-hash perturbation).
pub fn create(spec: &QdiscSpec, rng: Rng) -> Box<dyn Qdisc> {
    match spec {
        QdiscSpec::Pfifo { limit } => Box::new(Fifo::pfifo(*limit)),
        QdiscSpec::Bfifo { limit } => Box::new(Fifo::bfifo(limit.0)),
        QdiscSpec::Cake(cake) => Box::new(Cake::new(cake, rng)),
    }
}

#[cfg(test)]
mod conservation;
