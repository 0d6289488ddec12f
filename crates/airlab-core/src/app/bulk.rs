//! `bulk`: one connection with unlimited data from start to stop (iperf3-like).

use super::{no_route_check, Action, Build, Component, Config, Load, Pace, Path, Socket, Traffic};
use crate::params::no_check;
use crate::sim::Time;

pub static BULK: Component = Component {
    name: "bulk",
    doc: "iperf3-like: send as much as TCP allows from start to stop",
    params: &[],
    check: no_check,
    build: Build { tcp: true, check_route: no_route_check, load, pace, start: |_, _| Box::new(Bulk) },
};

/// One connection; its packets are TCP's, bounded by the run's length, not counted here.
fn load(_: &Config, _: &Path) -> Load {
    Load { connections: 1, ..Load::default() }
}

fn pace(_: &Config) -> Pace {
    Pace { key: "count", what: "TCP".into(), advice: "use fewer copies" }
}

struct Bulk;

impl Traffic for Bulk {
    fn wake(&mut self, _: Time, first: bool, stop: Time, _: Socket, out: &mut Vec<Action>) {
        if first {
            out.push(Action::Open { bytes: u64::MAX });
            out.push(Action::WakeAt(stop));
        }
    }

    fn stopped(&self, out: &mut Vec<Action>) {
        out.push(Action::StopWriting);
    }
}
