//! `transfer`: one connection carrying `size` bytes; its completion time is recorded.

use super::{no_route_check, Action, Build, Component, Config, Load, Pace, Path, Socket, Traffic};
use crate::params::{Invalid, Kind, Param, Value};
use crate::sim::Time;

pub static TRANSFER: Component = Component {
    name: "transfer",
    doc: "send `size` bytes, then close; the flow completion time (SYN sent to the receiver's last byte) is recorded",
    params: &[Param {
        name: "size",
        kind: Kind::Bytes { min: 1, max: u64::MAX },
        default: Value::Unset,
        doc: "the bytes to send (required)",
    }],
    check,
    build: Build {
        tcp: true,
        check_route: no_route_check,
        load,
        pace,
        start: |c, _| Box::new(Transfer { size: c.bytes("size") }),
    },
};

fn check(c: &Config) -> Result<(), Invalid> {
    match c.opt_bytes("size") {
        Some(_) => Ok(()),
        None => Err(Invalid::new("size", "a transfer needs a `size`, such as \"1MB\"")),
    }
}

/// One connection, one row of its completion time; its packets are TCP's, as a bulk flow's.
fn load(_: &Config, _: &Path) -> Load {
    Load { completions: 1, connections: 1, ..Load::default() }
}

fn pace(_: &Config) -> Pace {
    Pace { key: "count", what: "TCP".into(), advice: "use fewer copies" }
}

struct Transfer {
    size: u64,
}

impl Traffic for Transfer {
    fn wake(&mut self, _: Time, first: bool, _: Time, _: Socket, out: &mut Vec<Action>) {
        if first {
            out.push(Action::Open { bytes: self.size });
        }
    }
}
