//! The discrete-event core: integer-nanosecond time, the event queue and seeded RNG streams.

mod queue;
mod rng;

pub use queue::EventQueue;
pub use rng::Rng;

/// Simulated time in nanoseconds since the start of the run.
pub type Time = u64;

pub const NS: Time = 1;
pub const US: Time = 1_000;
pub const MS: Time = 1_000_000;
pub const SEC: Time = 1_000_000_000;

/// Seconds as f64, for metrics and closed-form formulas.
pub fn secs(t: Time) -> f64 {
    t as f64 / SEC as f64
}

/// Time needed to serialize `bytes` at `rate_bps` bits per second, rounded up to a nanosecond.
pub fn tx_time(bytes: u64, rate_bps: u64) -> Time {
    (bytes * 8 * SEC).div_ceil(rate_bps)
}
