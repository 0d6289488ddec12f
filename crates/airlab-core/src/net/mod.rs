//! Packets, interfaces (qdisc + device queue + wire) and static routing.

pub mod ext;
pub mod iface;
pub mod packet;

pub use ext::{Extension, Telemetry};
pub use iface::Iface;
pub use packet::{Ecn, Packet, Payload, Release, SackBlocks, TcpSegment};

/// Packets a device ring (a wired interface's, or a Wi-Fi interface's driver queues) holds at
/// most: beyond this the "device" is really a second, hidden qdisc.
pub const MAX_DEVICE_QUEUE: u32 = 100_000;

/// Index of a node (host or router) in the world.
pub type NodeId = u32;
/// Index of an egress interface (one direction of a link).
pub type IfaceId = u32;
/// Index of a flow as declared in the scenario (after `count` expansion).
pub type FlowId = u32;
/// Index of a TCP connection.
pub type ConnId = u32;
