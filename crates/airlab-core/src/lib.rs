//! airlab-core: a deterministic packet-level simulator for TCP congestion control and queue
//! management. See `docs/design.md` for the map of the code.

pub mod app;
pub mod counters;
pub mod metrics;
pub mod net;
pub mod params;
pub mod qdisc;
pub mod run;
pub mod scenario;
pub mod sim;
pub mod tcp;
pub mod wifi;
pub mod world;

pub use metrics::invariants::InternalError;
pub use run::{run, run_with_progress, RunError, RunOutput};
