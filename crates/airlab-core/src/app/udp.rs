//! `udp`: constant-bit-rate datagrams; their loss and one-way delay are recorded.

use super::{Action, Build, Component, Config, Load, Pace, Path, Socket, Traffic};
use crate::net::packet::{MAX_UDP_PAYLOAD, UDP_HEADER};
use crate::net::Payload;
use crate::params::{no_check, Invalid, Kind, Param, Value};
use crate::sim::{spell, tx_time, Time, DURATION_UNITS, MIN_PERIOD, RATE_UNITS, SEC, SIZE_UNITS};

pub static UDP: Component = Component {
    name: "udp",
    doc: "constant-bit-rate UDP; loss and one-way delay are recorded",
    params: &[
        Param {
            name: "rate",
            kind: Kind::Rate { min: 1 },
            default: Value::Unset,
            doc: "the rate it sends at; unset: it saturates the sender's first hop",
        },
        Param {
            name: "packet_size",
            kind: Kind::Bytes { min: 1, max: MAX_UDP_PAYLOAD },
            default: Value::Bytes(1472),
            doc: "the UDP payload of each datagram, at most what fits one IPv4 packet",
        },
    ],
    check: no_check,
    build: Build {
        tcp: false,
        check_route,
        load,
        pace,
        start: |c, first_hop_bps| Box::new(Udp::of(c).sending(first_hop_bps)),
    },
};

/// A flow sends at most one datagram per [`MIN_PERIOD`], at its `rate` or, without one, at the
/// rate of its first hop.
fn check_route(c: &Config, first_hop_bps: u64) -> Result<(), Invalid> {
    let u = Udp::of(c);
    let bps = u.rate.unwrap_or(first_hop_bps);
    let per_second = bps as f64 / (8 * u.ip_bytes()) as f64;
    let most = (SEC / MIN_PERIOD) as f64;
    if per_second <= most {
        return Ok(());
    }
    let (key, what) = match u.rate {
        Some(r) => ("rate", format!("rate = {}", spell(r, RATE_UNITS))),
        None => ("packet_size", format!("saturating the first hop at {}", spell(bps, RATE_UNITS))),
    };
    Err(Invalid::new(
        key,
        format!(
            "{what} with {}-byte datagrams sends {per_second:.3e} per second, more than the {most:.0} a flow may send \
             (one per {}); use larger datagrams or a lower rate",
            u.packet_size,
            spell(MIN_PERIOD, DURATION_UNITS)
        ),
    ))
}

/// Its datagrams over the path to the receiver, spaced as it sends them.
fn load(c: &Config, path: &Path) -> Load {
    let u = Udp::of(c);
    let bps = u.rate.unwrap_or(path.first_hop_bps);
    // A flow without a route sends nothing.
    let gap = if bps == 0 { Time::MAX } else { gap(u.ip_bytes(), bps) };
    Load { packets: path.active.div_ceil(gap).saturating_mul(path.there), ..Load::default() }
}

fn pace(c: &Config) -> Pace {
    let u = Udp::of(c);
    let (key, what) = match u.rate {
        Some(rate) => {
            ("app.rate", format!("{} datagrams at {}", spell(u.packet_size, SIZE_UNITS), spell(rate, RATE_UNITS)))
        }
        None => ("app.packet_size", format!("{} datagrams saturating the first hop", spell(u.packet_size, SIZE_UNITS))),
    };
    Pace { key, what, advice: "use a lower rate, larger datagrams, fewer copies or a shorter run" }
}

/// Time between datagrams of `ip_bytes` at `bps`: at least a nanosecond, the engine's tick.
fn gap(ip_bytes: u64, bps: u64) -> Time {
    tx_time(ip_bytes, bps).max(1)
}

/// A `udp` app's parameters.
struct Udp {
    rate: Option<u64>,
    /// The payload of a datagram.
    packet_size: u64,
}

impl Udp {
    fn of(c: &Config) -> Self {
        Udp { rate: c.opt_rate("rate"), packet_size: c.bytes("packet_size") }
    }

    /// The IP length of a datagram.
    fn ip_bytes(&self) -> u64 {
        self.packet_size + u64::from(UDP_HEADER)
    }

    fn sending(&self, first_hop_bps: u64) -> Sending {
        let ip_bytes = u32::try_from(self.ip_bytes()).expect("a datagram fits an IPv4 packet");
        Sending { rate_bps: self.rate.unwrap_or(first_hop_bps), ip_bytes, seq: 0 }
    }
}

/// A running `udp` app.
struct Sending {
    rate_bps: u64,
    ip_bytes: u32,
    /// The sequence number of its next datagram.
    seq: u64,
}

impl Traffic for Sending {
    fn wake(&mut self, now: Time, _: bool, _: Time, socket: Socket, out: &mut Vec<Action>) {
        out.push(Action::Send(socket.packet(self.ip_bytes, Payload::Udp { seq: self.seq, sent_at: now })));
        self.seq += 1;
        out.push(Action::WakeAt(now + gap(u64::from(self.ip_bytes), self.rate_bps)));
    }
}
