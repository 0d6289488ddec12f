//! `periodic`: a new connection every `period` carrying `size` bytes (MGEN-like).

use super::{no_route_check, Action, Build, Component, Config, Load, Pace, Path, Socket, Traffic};
use crate::params::{Invalid, Kind, Param, Value};
use crate::sim::{spell, Rng, Time, DURATION_UNITS, MIN_PERIOD, SIZE_UNITS};

pub static PERIODIC: Component = Component {
    name: "periodic",
    doc: "open a new connection every `period` carrying `size` bytes (MGEN-like)",
    params: &[
        Param {
            name: "size",
            kind: Kind::Bytes { min: 1, max: u64::MAX },
            default: Value::Unset,
            doc: "the bytes each connection sends (required)",
        },
        Param {
            name: "period",
            kind: Kind::Time { min: MIN_PERIOD },
            default: Value::Unset,
            doc: "time between connections (required); at least the shortest period of a repeating event",
        },
        Param {
            name: "random_start",
            kind: Kind::Time { min: 1 },
            default: Value::Unset,
            doc: "the first connection opens at a random offset in [0, random_start) after `start`; unset: at `start`",
        },
    ],
    check,
    build: Build { tcp: true, check_route: no_route_check, load, pace, start: |c, _| Box::new(Periodic::of(c)) },
};

fn check(c: &Config) -> Result<(), Invalid> {
    if c.opt_bytes("size").is_none() {
        return Err(Invalid::new("size", "a periodic app needs a `size`, such as \"100KB\""));
    }
    if c.opt_time("period").is_none() {
        return Err(Invalid::new("period", "a periodic app needs a `period`, such as \"1s\""));
    }
    Ok(())
}

/// Each connection sends its SYN, the SYN-ACK, its data segments and one ACK per segment over
/// the path, and adds a row of its completion time.
fn load(c: &Config, path: &Path) -> Load {
    let p = Periodic::of(c);
    let opened = path.active.div_ceil(p.period);
    let segments = p.size.div_ceil(u64::from(path.mss));
    let each = (1 + segments).saturating_mul(path.there + path.back);
    Load { packets: opened.saturating_mul(each), pings: 0, completions: opened, connections: opened }
}

fn pace(c: &Config) -> Pace {
    let p = Periodic::of(c);
    Pace {
        key: "app.period",
        what: format!("a {} connection every {}", spell(p.size, SIZE_UNITS), spell(p.period, DURATION_UNITS)),
        advice: "use a longer period, fewer copies or a shorter run",
    }
}

struct Periodic {
    size: u64,
    period: Time,
    /// 0: the first connection opens at the start.
    random_start: Time,
}

impl Periodic {
    fn of(c: &Config) -> Self {
        Periodic {
            size: c.bytes("size"),
            period: c.time("period"),
            random_start: c.opt_time("random_start").unwrap_or(0),
        }
    }
}

impl Traffic for Periodic {
    fn first_wake(&self, start: Time, rng: &mut Rng) -> Time {
        if self.random_start > 0 {
            start + rng.below(self.random_start)
        } else {
            start
        }
    }

    fn wake(&mut self, now: Time, _: bool, stop: Time, _: Socket, out: &mut Vec<Action>) {
        out.push(Action::Open { bytes: self.size });
        if now + self.period < stop {
            out.push(Action::WakeAt(now + self.period));
        }
    }
}
