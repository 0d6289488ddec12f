//! The explicit form a checked scenario resolves to: every link direction, route, flow copy and
//! Wi-Fi network spelled out, as `airlab resolve` prints it and the builder reads it.

use super::model::*;
use super::routing::{self, NextHop};
use super::wifi::ResolvedWifi;
use crate::sim::Time;
use crate::tcp::cc;
use serde::Serialize;

/// A checked scenario with everything made explicit.
#[derive(Debug, Clone, Serialize)]
pub struct Resolved {
    /// The scenario as loaded, after `--set` overrides.
    pub scenario: Scenario,
    /// Link `i`'s forward direction (between[0] -> between[1]) is at `2i`, its reverse at `2i + 1`.
    pub directions: Vec<ResolvedDirection>,
    /// (node, destination host) -> neighbour to forward to.
    #[serde(serialize_with = "routing::serialize_next_hop")]
    pub next_hop: NextHop,
    /// Flows with `count` copies expanded.
    pub flows: Vec<ResolvedFlow>,
    /// Wi-Fi networks, in file order.
    pub wifi: Vec<ResolvedWifi>,
}

impl Resolved {
    /// Index in `directions` of the direction from `from` to its neighbour `to`.
    pub fn direction(&self, from: &str, to: &str) -> Option<usize> {
        self.directions.iter().position(|d| d.from == from && d.to == to)
    }

    /// Rate of the first hop a flow's packets take from `from` to `to` (the PHY rate of a
    /// Wi-Fi hop); 0 without a route.
    pub fn first_hop_rate(&self, from: &str, to: &str) -> u64 {
        let Some(via) = self.next_hop.get(&(from.to_string(), to.to_string())) else { return 0 };
        if let Some(d) = self.direction(from, via) {
            return self.directions[d].rate.0;
        }
        self.wifi
            .iter()
            .flat_map(|w| w.links.iter().map(move |l| (w.standard, l)))
            .find(|(_, l)| l.from == from && &l.to == via)
            .map_or(0, |(standard, l)| super::wifi::tx_vector(standard, &l.phy).rate_bps())
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct ResolvedFlow {
    pub name: String,
    pub from: String,
    pub to: String,
    /// Congestion control and its parameters; `None` for udp and ping.
    pub cc: Option<cc::Config>,
    /// The app and its parameters.
    pub app: crate::app::Config,
    pub start: Time,
    pub stop: Time,
    pub tcp: TcpOptions,
    /// DSCP of the packets the sender side sends.
    pub dscp: u8,
}

/// The qdisc of an interface a scenario says nothing about. Linux's default on a single-queue
/// device, `pfifo_fast`, is a FIFO of txqueuelen (1000) packets for traffic without TOS bits.
pub(super) const DEFAULT_QDISC: &str = "pfifo";

/// Whether the packets of the flow `flow` count toward a batch rule's `name`: the flow itself,
/// or a copy `<name>.<k>` of a flow with `count`.
pub fn counts_toward(name: &str, flow: &str) -> bool {
    flow == name || flow.strip_prefix(name).and_then(|k| k.strip_prefix('.')).is_some_and(|k| k.parse::<u32>().is_ok())
}
