//! Queue disciplines: the qdisc layer of an egress interface (Linux's "traffic control").
//!
//! A qdisc implements [`Qdisc`]; the interface around it counts drops, marks and sojourn times,
//! so an algorithm only decides what to enqueue, what to hand out next and what to drop or mark.
//!
//! Adding an AQM is one file here, which declares its parameters and how to build it as a
//! [`Component`], plus its line in [`REGISTRY`] (and its `mod` line).

pub mod cake;
pub mod codel;
mod fifo;
mod fq_codel;
pub mod htb;
mod noqueue;
mod pfifo_head_drop;
pub mod tbf;
pub mod xlayer;

pub use cake::{Cake, CakeConfig};
pub use codel::{Codel, CodelParams};
pub use fifo::Fifo;
pub use fq_codel::{FqCodel, FqCodelConfig};

use crate::net::Packet;
use crate::params;
use crate::sim::{Rng, Time};

// Every queue discipline a scenario can name.
params::family!(
    Build,
    [
        &fifo::PFIFO,
        &fifo::BFIFO,
        &pfifo_head_drop::PFIFO_HEAD_DROP,
        &codel::CODEL,
        &fq_codel::FQ_CODEL,
        &noqueue::NOQUEUE,
        &cake::CAKE,
        &xlayer::XLAYER,
        &tbf::TBF,
        &htb::HTB
    ],
    "qdisc",
    "Qdisc"
);

/// How a qdisc is built from its checked configuration (`rng` is the interface's own stream,
/// for what Linux randomizes, e.g. the flow-hash perturbation), and how many queues it
/// allocates when built: its own and its nested qdiscs' (a flow queue is about 100 bytes, and
/// a scenario bounds their total before anything is built).
pub struct Build(pub fn(&Config, Rng) -> Box<dyn Qdisc>, pub fn(&Config) -> u64);

/// Packets a qdisc dropped and flows whose packets it ECN-marked during one call.
#[derive(Default)]
pub struct Verdicts {
    pub dropped: Vec<Packet>,
    pub marked: Vec<Packet>,
}

impl Verdicts {
    pub fn is_empty(&self) -> bool {
        self.dropped.is_empty() && self.marked.is_empty()
    }

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

    /// Called after the device took every packet it had room for: a qdisc that queues nothing
    /// (`noqueue`) drops what is left into `out`, as Linux drops a packet that a `noqueue`
    /// device cannot send at once. Queueing qdiscs keep their packets.
    fn spill(&mut self, _out: &mut Verdicts) {}
}

/// The kind of a parameter that holds a child qdisc: `default` with its defaults when unset.
pub const fn child_kind(default: &'static str) -> params::Kind {
    params::Kind::Qdisc { default, make: |name| Box::new(Config::named(name)) }
}

/// The child qdisc that parameter `name` of `config` holds.
pub fn child<'a, B>(config: &'a params::Config<B>, name: &str) -> &'a Config {
    config.nested(name)
}

/// Build the qdisc `config` describes (checked by its component's checks).
pub fn create(config: &Config, rng: Rng) -> Box<dyn Qdisc> {
    (config.component().build.0)(config, rng)
}

/// The queues the qdisc `config` describes allocates when built, nested qdiscs included.
pub fn queues(config: &Config) -> u64 {
    (config.component().build.1)(config)
}

/// The queue count of a qdisc that holds one queue.
pub fn one_queue(_: &Config) -> u64 {
    1
}

#[cfg(test)]
mod conservation;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::{Kind, Value};

    /// Every registered qdisc declares defaults its own ranges and checks accept, and builds
    /// from them into what it says it is: a qdisc that reads a parameter it does not declare,
    /// or under another type, panics here. One with required parameters (no default, such as
    /// a shaper's rate or htb's classes) is built with them set.
    #[test]
    fn every_qdisc_builds_from_its_defaults() {
        for config in params::checked_defaults(REGISTRY, with_required) {
            assert_eq!(create(&config, Rng::stream(1, "t")).kind(), config.name());
        }
    }

    /// `config` with the required parameters its check asks for set: a rate, or one class
    /// (itself with its required parameters).
    fn with_required<B>(mut config: params::Config<B>) -> params::Config<B> {
        while let Err(e) = config.check() {
            let param = config.component().params.iter().find(|p| p.name == e.key && p.default == Value::Unset);
            let value = match param.map(|p| p.kind) {
                Some(Kind::Rate { .. }) => Value::Rate(10_000_000),
                Some(Kind::Classes { of, .. }) => Value::Classes(vec![with_required(params::Config::defaults(of))]),
                _ => panic!("{}: {e:?} is not a required parameter", config.name()),
            };
            config = config.with(&e.key, value);
        }
        config
    }
}
