//! TCP: the sender and receiver sockets, loss recovery, RTO, delivery-rate sampling and the
//! congestion-control seam.

pub mod cc;
pub mod rate;
