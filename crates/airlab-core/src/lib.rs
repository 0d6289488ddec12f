//! airlab-core: a deterministic packet-level simulator for TCP congestion control and queue
//! management. See `docs/design.md` for the map of the code.

pub mod scenario;
pub mod sim;
pub mod tcp;
