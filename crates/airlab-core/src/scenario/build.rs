//! The builder: turns a resolved scenario into a [`World`] ready to run.

use super::resolved::counts_toward;
use super::wifi::ResolvedWifi;
use super::Resolved;
use crate::app::{self, App};
use crate::counters::FlowStats;
use crate::metrics::batches::{BatchRule, Batches};
use crate::metrics::view::direction_name;
use crate::net::{Iface, IfaceId, NodeId};
use crate::sim::Rng;
use crate::wifi::device;
use crate::wifi::device::queues::DeviceQueues;
use crate::wifi::error_model;
use crate::wifi::hook::{self, ApTiming};
use crate::wifi::link::{Peer, RateSchedule};
use crate::wifi::net::{WifiDev, WifiNet};
use crate::wifi::phy::MacTiming;
use crate::world::{Node, Route, TcpProfile, World};
use crate::{params, qdisc};
use std::collections::HashMap;

pub fn build(r: &Resolved, seed: u64) -> World {
    let s = &r.scenario;
    let mut world = World::new(seed, s.duration.0, s.metrics.interval.0, s.metrics.warmup.0);
    world.batches = s.metrics.batches.as_ref().map(|b| {
        let counted = r.flows.iter().map(|f| b.flows.is_empty() || b.flows.iter().any(|n| counts_toward(n, &f.name)));
        Batches::new(BatchRule { packets: b.packets, count: b.count, discard: b.discard }, counted.collect())
    });
    let mut ids: HashMap<&str, NodeId> = HashMap::new();
    for (name, is_host) in s.hosts.iter().map(|h| (h, true)).chain(s.routers.iter().map(|r| (r, false))) {
        ids.insert(name.as_str(), world.nodes.len() as NodeId);
        world.nodes.push(Node { name: name.clone(), is_host, routes: Vec::new() });
    }
    let n = world.nodes.len();
    for d in &r.directions {
        let name = direction_name(&d.link, &d.from, &d.to);
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
            qdisc::create(&bound(&d.qdisc, &ids), qdisc_rng),
            d.device_queue,
            d.device_queue_bytes.map(|b| b.0),
            rng,
        ));
        if s.hosts.contains(&d.to) {
            world.ifaces.last_mut().expect("just pushed").set_rx_latency(s.host_jitter.0);
        }
    }
    for w in &r.wifi {
        world.wifi.push(wifi_net(w, &ids, seed));
    }
    for node in world.nodes.iter_mut() {
        node.routes = vec![None; n];
    }
    // Each hop's interface by its ends, looked up once per route (up to a million of them).
    let wired: HashMap<(&str, &str), usize> =
        r.directions.iter().enumerate().map(|(i, d)| ((d.from.as_str(), d.to.as_str()), i)).collect();
    let wireless = wifi_hops(r);
    for ((at, to), via) in &r.next_hop {
        let hop = (at.as_str(), via.as_str());
        let route = match wired.get(&hop) {
            Some(&i) => Route::Wire(i as IfaceId),
            None => {
                let &(net, dev, peer) = wireless.get(&hop).expect("routing only uses links and Wi-Fi peers");
                world.wifi[net].devs[dev].set_route(ids[to.as_str()], peer);
                Route::Wifi { net: net as u16, dev: dev as u32 }
            }
        };
        world.nodes[ids[at.as_str()] as usize].routes[ids[to.as_str()] as usize] = Some(route);
    }
    // Where the kernel's ticks fall: one draw per run, shared by every host (`tcp/jiffies.rs`).
    let jiffy_phase = Rng::stream(seed, "jiffies").next_u64();
    for (i, f) in r.flows.iter().enumerate() {
        let (src, dst) = (ids[f.from.as_str()], ids[f.to.as_str()]);
        let traffic = app::start(&f.app, r.first_hop_rate(&f.from, &f.to));
        let mut stats = FlowStats::new(
            f.name.clone(),
            f.from.clone(),
            f.to.clone(),
            f.cc.as_ref().map(|c| c.name().to_string()),
            f.app.name(),
        );
        stats.start = f.start;
        stats.stop = f.stop;
        world.flows.push(stats);
        let profile = f.cc.as_ref().map(|cc| {
            let mut opts = f.tcp.config();
            opts.jiffies = opts.jiffies.with_phase(jiffy_phase);
            TcpProfile { cc: cc.clone(), opts }
        });
        let rng = Rng::stream(seed, &format!("app:{}", f.name));
        world.apps.push(App::new(i as u32, src, dst, traffic, f.start, f.stop, rng).with_dscp(f.dscp));
        world.profiles.push(profile);
        world.app_conns.push(Vec::new());
    }
    world
}

/// `config` with the hosts it names as node ids.
fn bound<B>(config: &params::Config<B>, ids: &HashMap<&str, NodeId>) -> params::Config<B> {
    let mut config = config.clone();
    config.bind_hosts(&|name| ids[name]);
    config
}

/// The network a resolved `[[wifi]]` describes: one device per member with a peer per link
/// it transmits on, and who hears whom.
fn wifi_net(w: &ResolvedWifi, ids: &HashMap<&str, NodeId>, seed: u64) -> WifiNet {
    let index: HashMap<&str, u32> = w.nodes.iter().enumerate().map(|(i, m)| (m.name.as_str(), i as u32)).collect();
    let devs = w
        .nodes
        .iter()
        .map(|m| {
            let peers: Vec<Peer> = w
                .links
                .iter()
                .filter(|l| l.from == m.name)
                .map(|l| {
                    let peer = Peer::new(
                        index[l.to.as_str()],
                        ids[l.to.as_str()],
                        super::wifi::tx_vector(w.standard, &l.phy),
                        l.per,
                        l.radio,
                    );
                    match &l.schedule {
                        None => peer,
                        Some(s) => peer.with_schedule(RateSchedule {
                            steps: s
                                .steps
                                .iter()
                                .map(|step| (step.at, super::wifi::tx_vector(w.standard, &step.phy), step.radio))
                                .collect(),
                            period: s.period,
                        }),
                    }
                })
                .collect();
            let name = format!("{}:{}", w.name, m.name);
            let qdisc = qdisc::create(&bound(&m.qdisc, ids), Rng::stream(seed, &format!("qdisc:{name}")));
            let perturbation = Rng::stream(seed, &format!("txq:{name}")).next_u64();
            let queues = DeviceQueues::new(&device::layer(&m.device), peers.len(), perturbation);
            let rng = Rng::stream(seed, &format!("backoff:{name}"));
            let dev = WifiDev::new(ids[m.name.as_str()], name, qdisc, queues, m.aggregation, peers, rng);
            match &w.ap_hook {
                Some(hook) if w.ap.as_deref() == Some(m.name.as_str()) => {
                    let timing = MacTiming::ofdm_5ghz();
                    let timing = ApTiming { difs: timing.difs(), sifs: timing.sifs };
                    dev.with_hook(hook::create(&bound(hook, ids), timing))
                }
                _ => dev,
            }
        })
        .collect();
    let n = w.nodes.len() as u32;
    let hears: Vec<Vec<u32>> = match &w.hears {
        None => (0..n).map(|i| (0..n).filter(|&j| j != i).collect()).collect(),
        Some(pairs) => {
            let mut hears = vec![Vec::new(); n as usize];
            for [a, b] in pairs {
                let (a, b) = (index[a.as_str()], index[b.as_str()]);
                hears[a as usize].push(b);
                hears[b as usize].push(a);
            }
            hears
        }
    };
    let timing = MacTiming::ofdm_5ghz();
    let ofdma = w.ofdma.clone().map(|o| (index[w.ap.as_deref().expect("OFDMA is checked to have an AP")], o));
    WifiNet::new(
        w.name.clone(),
        timing,
        w.edca,
        w.rts,
        ofdma,
        devs,
        hears,
        error_model::create(&w.channel.error_model),
        Rng::stream(seed, &format!("mpdu-errors:{}", w.name)),
    )
}

/// For each Wi-Fi hop `(at, via)`: the network, the device of `at` and its peer index for
/// `via` (its links in order, as [`wifi_net`] gives the device its peers).
fn wifi_hops(r: &Resolved) -> HashMap<(&str, &str), (usize, usize, u16)> {
    let mut hops = HashMap::new();
    for (net, w) in r.wifi.iter().enumerate() {
        let devs: HashMap<&str, usize> = w.nodes.iter().enumerate().map(|(i, m)| (m.name.as_str(), i)).collect();
        let mut peers: HashMap<&str, u16> = HashMap::new();
        for l in &w.links {
            let peer = peers.entry(l.from.as_str()).or_insert(0);
            hops.insert((l.from.as_str(), l.to.as_str()), (net, devs[l.from.as_str()], *peer));
            *peer += 1;
        }
    }
    hops
}
