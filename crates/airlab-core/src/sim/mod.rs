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

/// The units durations and rates are written in (scenario files, messages), largest first.
pub const DURATION_UNITS: &[(&str, u64)] = &[("s", SEC), ("ms", MS), ("us", US), ("ns", NS)];
pub const RATE_UNITS: &[(&str, u64)] = &[("Gbit", 1_000_000_000), ("Mbit", 1_000_000), ("kbit", 1_000), ("bit", 1)];
pub const SIZE_UNITS: &[(&str, u64)] = &[
    ("GiB", 1 << 30),
    ("GB", 1_000_000_000),
    ("MiB", 1 << 20),
    ("MB", 1_000_000),
    ("KiB", 1 << 10),
    ("KB", 1_000),
    ("B", 1),
];

/// The shortest period of an event that repeats on its own (ping, periodic connections, UDP
/// datagrams, rate-schedule steps, an AP's telemetry timeslots): at most a million per
/// simulated second and source. A bound of scenarios (`scenario::limits`) that the apps
/// declare in their parameters.
pub const MIN_PERIOD: Time = US;

/// `value` in the unit of `units` that divides it exactly with the smallest quotient, the
/// shortest exact spelling ("5500kbit", "1us"); 0 in the last (base) unit.
pub fn spell(value: u64, units: &[(&str, u64)]) -> String {
    if value == 0 {
        return format!("0{}", units[units.len() - 1].0);
    }
    let (unit, scale) = units
        .iter()
        .filter(|(_, scale)| value.is_multiple_of(*scale))
        .min_by_key(|(_, scale)| value / scale)
        .expect("the base unit divides everything");
    format!("{}{unit}", value / scale)
}

/// Seconds as f64, for metrics and closed-form formulas.
pub fn secs(t: Time) -> f64 {
    t as f64 / SEC as f64
}

/// Time needed to serialize `bytes` at `rate_bps` bits per second, rounded up to a nanosecond.
pub fn tx_time(bytes: u64, rate_bps: u64) -> Time {
    (bytes * 8 * SEC).div_ceil(rate_bps)
}
