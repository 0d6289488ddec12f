//! What measurement reads of a run: a read-only view of the models' counters and state. The
//! recorder and the summary see a run only through it, so measuring cannot change the run and
//! the metrics do not depend on how the world wires its models together.

use crate::counters::FlowStats;
use crate::net::{Iface, NodeId};
use crate::sim::Time;
use crate::tcp::TcpSender;
use crate::wifi::net::WifiNet;

pub trait RunView {
    fn now(&self) -> Time;
    /// The run's length.
    fn duration(&self) -> Time;
    fn flows(&self) -> &[FlowStats];
    /// Per app, in order: the index of its flow and the sender of its newest connection (none
    /// for UDP and ping, or before it opened one). The newest connection speaks for the flow
    /// (periodic apps open many).
    fn app_senders(&self) -> impl Iterator<Item = (usize, Option<&TcpSender>)>;
    /// The wired interfaces, each one direction of a link.
    fn ifaces(&self) -> &[Iface];
    fn wifi(&self) -> &[WifiNet];
    fn node_name(&self, node: NodeId) -> &str;
}

/// The name of a Wi-Fi link or a wired link's direction in the series and the summary:
/// `<network or link>:<from>-><to>`.
pub fn direction_name(link: &str, from: &str, to: &str) -> String {
    format!("{link}:{from}->{to}")
}
