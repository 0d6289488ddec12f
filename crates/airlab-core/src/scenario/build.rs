//! The builder: turns a resolved scenario into a [`World`] ready to run.

use super::model::App as AppSpec;
use super::Resolved;
use crate::app::{App, AppKind};
use crate::metrics::FlowStats;
use crate::net::{Iface, IfaceId, NodeId};
use crate::qdisc;
use crate::sim::{Rng, Time};
use crate::world::{Node, TcpProfile, World};
use std::collections::HashMap;

pub fn build(r: &Resolved, seed: u64) -> World {
    let s = &r.scenario;
    let mut world = World::new(seed, s.duration.0, s.metrics.interval.0, s.metrics.warmup.0);
    let mut ids: HashMap<&str, NodeId> = HashMap::new();
    for (name, is_host) in s.hosts.iter().map(|h| (h, true)).chain(s.routers.iter().map(|r| (r, false))) {
        ids.insert(name.as_str(), world.nodes.len() as NodeId);
        world.nodes.push(Node { name: name.clone(), is_host, routes: Vec::new() });
    }
    let n = world.nodes.len();
    for d in &r.directions {
        let name = format!("{}:{}->{}", d.link, d.from, d.to);
        let rng = Rng::stream(seed, &format!("wire:{name}"));
        let qdisc_rng = Rng::stream(seed, &format!("qdisc:{name}"));
        world.ifaces.push(Iface::new(
            name,
            d.link.clone(),
            ids[d.from.as_str()],
            ids[d.to.as_str()],
            d.rate.0,
            d.delay.0,
            d.loss,
            d.overhead,
            qdisc::create(&d.qdisc, qdisc_rng),
            d.device_queue,
            d.device_queue_bytes.map(|b| b.0),
            rng,
        ));
    }
    let iface_between = |from: &str, to: &str| -> Option<IfaceId> { r.direction(from, to).map(|i| i as IfaceId) };
    for node in world.nodes.iter_mut() {
        node.routes = vec![None; n];
    }
    for ((at, to), via) in &r.next_hop {
        let iface = iface_between(at, via);
        world.nodes[ids[at.as_str()] as usize].routes[ids[to.as_str()] as usize] = iface;
    }
    for (i, f) in r.flows.iter().enumerate() {
        let (src, dst) = (ids[f.from.as_str()], ids[f.to.as_str()]);
        let kind = app_kind(&f.app, first_hop_rate(r, &f.from, &f.to));
        let mut stats = FlowStats::new(f.name.clone(), f.from.clone(), f.to.clone(), f.cc.clone(), kind.label());
        stats.start = f.start;
        stats.stop = f.stop;
        world.flows.push(stats);
        let profile =
            f.cc.as_ref().map(|cc| TcpProfile { cc: cc.clone(), cc_params: f.cc_params.clone(), opts: f.tcp.clone() });
        let rng = Rng::stream(seed, &format!("app:{}", f.name));
        world.apps.push(App::new(i as u32, src, dst, kind, f.start, f.stop, rng));
        world.profiles.push(profile);
        world.app_conns.push(Vec::new());
    }
    world
}

/// Rate of the first link a flow's packets take, for UDP apps that saturate it.
fn first_hop_rate(r: &Resolved, from: &str, to: &str) -> u64 {
    r.next_hop
        .get(&(from.to_string(), to.to_string()))
        .and_then(|via| r.direction(from, via))
        .map_or(0, |d| r.directions[d].rate.0)
}

fn app_kind(app: &AppSpec, first_hop_bps: u64) -> AppKind {
    let t = |d: &super::units::Duration| -> Time { d.0 };
    match app {
        AppSpec::Bulk => AppKind::Bulk,
        AppSpec::Transfer { size } => AppKind::Transfer { size: size.0 },
        AppSpec::Periodic { size, period, random_start } => {
            AppKind::Periodic { size: size.0, period: t(period), random_start: random_start.as_ref().map_or(0, t) }
        }
        AppSpec::Udp { rate, packet_size } => AppKind::Udp {
            rate_bps: rate.as_ref().map_or(first_hop_bps, |r| r.0),
            packet_size: packet_size.0 as u32 + crate::net::packet::UDP_HEADER,
        },
        AppSpec::Ping { interval, size } => AppKind::Ping { interval: t(interval), size: size.0 as u32 },
    }
}
