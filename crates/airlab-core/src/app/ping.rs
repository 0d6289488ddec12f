//! `ping`: small echo requests at an interval; the RTT of each reply is recorded.

use super::{no_route_check, Action, Build, Component, Config, Load, Pace, Path, Socket, Traffic};
use crate::net::packet::MAX_UDP_PAYLOAD;
use crate::net::Payload;
use crate::params::{no_check, Kind, Param, Value};
use crate::sim::{spell, Time, DURATION_UNITS, MIN_PERIOD, MS};

pub static PING: Component = Component {
    name: "ping",
    doc: "ping-like latency probe: an echo request every `interval`; each reply's RTT is recorded",
    params: &[
        Param {
            name: "interval",
            kind: Kind::Time { min: MIN_PERIOD },
            default: Value::Time(100 * MS),
            doc: "time between requests; at least the shortest period of a repeating event",
        },
        Param {
            name: "size",
            kind: Kind::Bytes { min: 1, max: MAX_UDP_PAYLOAD },
            default: Value::Bytes(64),
            doc: "the IP length of a request and of its reply",
        },
    ],
    check: no_check,
    build: Build { tcp: false, check_route: no_route_check, load, pace, start: |c, _| Box::new(Ping::of(c)) },
};

/// Each request and its reply over the path there and back, and a row per ping.
fn load(c: &Config, path: &Path) -> Load {
    let pings = path.active.div_ceil(Ping::of(c).interval);
    Load { packets: pings.saturating_mul(path.there + path.back), pings, ..Load::default() }
}

fn pace(c: &Config) -> Pace {
    Pace {
        key: "app.interval",
        what: format!("a ping every {} and its reply", spell(Ping::of(c).interval, DURATION_UNITS)),
        advice: "use a longer interval, fewer copies or a shorter run",
    }
}

struct Ping {
    interval: Time,
    size: u32,
    /// The sequence number of its next request.
    seq: u64,
}

impl Ping {
    fn of(c: &Config) -> Self {
        let size = u32::try_from(c.bytes("size")).expect("a ping fits an IPv4 packet");
        Ping { interval: c.time("interval"), size, seq: 0 }
    }
}

impl Traffic for Ping {
    fn wake(&mut self, now: Time, _: bool, _: Time, socket: Socket, out: &mut Vec<Action>) {
        out.push(Action::Send(socket.packet(self.size, Payload::Ping { seq: self.seq, sent_at: now, reply: false })));
        self.seq += 1;
        out.push(Action::WakeAt(now + self.interval));
    }
}
