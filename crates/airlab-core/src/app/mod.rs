//! Applications: what a flow does with its transport. An app wakes at times it asks for and
//! answers with actions the engine carries out (open a TCP connection, send a datagram).
//!
//! Each app is one file here declaring its [`Component`]: its parameters as a scenario's
//! `app = { kind = ..., ... }` writes them, and in its [`Build`] whether it runs over TCP, what
//! it makes a run do (checked against the run's bounds before anything is built) and the
//! [`Traffic`] that runs it. A new app is that file, its `mod` line and its line in
//! [`REGISTRY`].

mod bulk;
mod periodic;
mod ping;
mod transfer;
mod udp;

use crate::net::{Ecn, FlowId, NodeId, Packet, Payload};
use crate::params;
use crate::sim::{Rng, Time};

/// What an app asks the engine to do.
#[derive(Debug)]
pub enum Action {
    /// Open a TCP connection and write this many bytes (u64::MAX: unlimited).
    Open { bytes: u64 },
    /// Stop writing on every open connection.
    StopWriting,
    /// Send a datagram.
    Send(Packet),
    /// Wake the app again at this time.
    WakeAt(Time),
}

/// How a registered app is made and what the scenario knows of it before the run.
pub struct Build {
    /// Whether it sends over TCP, and so takes a congestion control.
    pub tcp: bool,
    /// Checks that need the bit rate of the flow's first hop, known once routes are.
    pub check_route: fn(&Config, first_hop_bps: u64) -> Result<(), params::Invalid>,
    /// What one copy of the flow makes a run do on `path`.
    pub load: fn(&Config, path: &Path) -> Load,
    /// How errors about its load name it.
    pub pace: fn(&Config) -> Pace,
    /// The running app of one copy of the flow.
    pub start: fn(&Config, first_hop_bps: u64) -> Box<dyn Traffic>,
}

// Every app a flow's `app` can name.
params::family!(Build, [&bulk::BULK, &transfer::TRANSFER, &periodic::PERIODIC, &udp::UDP, &ping::PING], "app", "App");

/// Whether the app `config` describes runs over TCP.
pub fn uses_tcp(config: &Config) -> bool {
    config.component().build.tcp
}

/// The checks of `config` that need the rate of its flow's first hop.
pub fn check_route(config: &Config, first_hop_bps: u64) -> Result<(), params::Invalid> {
    (config.component().build.check_route)(config, first_hop_bps)
}

/// What one copy of a flow running `config` makes a run do on `path`.
pub fn load(config: &Config, path: &Path) -> Load {
    (config.component().build.load)(config, path)
}

/// How errors about the load of `config` name it.
pub fn pace(config: &Config) -> Pace {
    (config.component().build.pace)(config)
}

/// The running app `config` describes, for a flow whose first hop sends at `first_hop_bps`.
pub fn start(config: &Config, first_hop_bps: u64) -> Box<dyn Traffic> {
    (config.component().build.start)(config, first_hop_bps)
}

/// What an app's load depends on of one copy of its flow.
#[derive(Debug, Clone, Copy)]
pub struct Path {
    /// From its start to its stop.
    pub active: Time,
    /// Hops of the routed path to the receiver, and back.
    pub there: u64,
    pub back: u64,
    /// Bit rate of the first hop (0 without a route).
    pub first_hop_bps: u64,
    /// The flow's TCP segment size.
    pub mss: u32,
}

/// What apps make the engine do on their own schedule over a run (upper bounds: each app from
/// its start to its stop).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Load {
    /// Packets the apps send themselves (ping requests and replies, UDP datagrams, the SYN,
    /// SYN-ACK, data segments and one ACK each of a periodic connection), each counted once per
    /// hop it crosses.
    pub packets: u64,
    /// Pings sent: a row each in pings.parquet.
    pub pings: u64,
    /// Connections whose completion time is recorded: a row each in fcts.parquet.
    pub completions: u64,
    /// TCP connections opened.
    pub connections: u64,
}

impl Load {
    /// Rows of the event tables.
    pub fn rows(&self) -> u64 {
        self.pings.saturating_add(self.completions)
    }

    pub fn plus(self, other: Load) -> Load {
        Load {
            packets: self.packets.saturating_add(other.packets),
            pings: self.pings.saturating_add(other.pings),
            completions: self.completions.saturating_add(other.completions),
            connections: self.connections.saturating_add(other.connections),
        }
    }
}

/// How errors about an app's load name what it does and what would lower it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pace {
    /// The key of the flow (below `flow[i]`) that sets how often it sends or connects:
    /// `app.interval`, or `count` for an app that connects once.
    pub key: &'static str,
    /// Its packets in words ("a ping every 10ms and its reply").
    pub what: String,
    /// What would lower its load.
    pub advice: &'static str,
}

/// The running part of one app, made by its [`Build`]: what it does each time it wakes.
pub trait Traffic: Send {
    /// When it first wants to run, from its `start`; `rng` is the app's own stream.
    fn first_wake(&self, start: Time, _rng: &mut Rng) -> Time {
        start
    }

    /// Woken at `now`, before its `stop` (`first` the first time): what it asks of the engine,
    /// its packets from `socket`.
    fn wake(&mut self, now: Time, first: bool, stop: Time, socket: Socket, out: &mut Vec<Action>);

    /// Woken at or after its stop, having run.
    fn stopped(&self, _out: &mut Vec<Action>) {}
}

/// What the packets an app sends itself carry: its flow, ends and DSCP.
#[derive(Debug, Clone, Copy)]
pub struct Socket {
    pub flow: FlowId,
    pub src: NodeId,
    pub dst: NodeId,
    pub dscp: u8,
}

impl Socket {
    /// A packet of `size` bytes (its IP length) carrying `payload`.
    pub fn packet(self, size: u32, payload: Payload) -> Packet {
        Packet {
            flow: self.flow,
            conn: u32::MAX,
            src: self.src,
            dst: self.dst,
            size,
            ecn: Ecn::NotEct,
            dscp: self.dscp,
            enqueued_at: 0,
            charged: false,
            payload,
        }
    }
}

/// One copy of a flow's app, running from `start` to `stop`.
pub struct App {
    pub flow: FlowId,
    pub src: NodeId,
    pub dst: NodeId,
    pub start: Time,
    pub stop: Time,
    /// DSCP of the packets the flow's sender side sends (its sockets' IP_TOS).
    pub dscp: u8,
    traffic: Box<dyn Traffic>,
    rng: Rng,
    started: bool,
}

impl App {
    pub fn new(
        flow: FlowId,
        src: NodeId,
        dst: NodeId,
        traffic: Box<dyn Traffic>,
        start: Time,
        stop: Time,
        rng: Rng,
    ) -> Self {
        App { flow, src, dst, start, stop, dscp: 0, traffic, rng, started: false }
    }

    /// The flow's packets carry `dscp`.
    pub fn with_dscp(self, dscp: u8) -> Self {
        App { dscp, ..self }
    }

    /// When the app first wants to run.
    pub fn first_wake(&mut self) -> Time {
        self.traffic.first_wake(self.start, &mut self.rng)
    }

    pub fn wake(&mut self, now: Time, out: &mut Vec<Action>) {
        if now >= self.stop {
            if self.started {
                self.traffic.stopped(out);
            }
            return;
        }
        let first = !self.started;
        self.started = true;
        let socket = Socket { flow: self.flow, src: self.src, dst: self.dst, dscp: self.dscp };
        self.traffic.wake(now, first, self.stop, socket, out);
    }
}

/// No checks beyond the parameters' own: the route does not bound the app.
fn no_route_check(_: &Config, _: u64) -> Result<(), params::Invalid> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::Value;
    use crate::sim::{MS, SEC};

    /// Each app at its defaults, with the keys a scenario must give.
    fn required(config: Config) -> Config {
        match config.name() {
            "transfer" => config.with("size", Value::Bytes(1_000_000)),
            "periodic" => config.with("size", Value::Bytes(100_000)).with("period", Value::Time(SEC)),
            _ => config,
        }
    }

    fn run(config: &Config, until: Time) -> Vec<(Time, Action)> {
        let mut app = App::new(0, 0, 1, start(config, 10_000_000), 0, until, Rng::stream(1, "app:test"));
        let mut at = vec![app.first_wake()];
        let mut done = Vec::new();
        while let Some(now) = at.pop() {
            let mut out = Vec::new();
            app.wake(now, &mut out);
            for action in out {
                if let Action::WakeAt(t) = action {
                    at.push(t);
                }
                done.push((now, action));
            }
        }
        done
    }

    #[test]
    fn every_app_runs_from_its_defaults() {
        for config in params::checked_defaults(REGISTRY, required) {
            let actions = run(&config, SEC);
            // Each does something at its start, over TCP or with its own packets as it declares.
            let (now, first) = actions.first().unwrap_or_else(|| panic!("{} did nothing", config.name()));
            assert_eq!(*now, 0, "{}", config.name());
            assert_eq!(matches!(first, Action::Open { .. }), uses_tcp(&config), "{}", config.name());
            assert!(actions.iter().all(|(t, _)| *t < SEC || config.name() == "bulk"), "{}", config.name());
        }
    }

    #[test]
    fn the_defaults_are_the_scenario_formats() {
        let defaults = Config::named;
        let ping = defaults("ping");
        assert_eq!((ping.time("interval"), ping.bytes("size")), (100 * MS, 64));
        let udp = defaults("udp");
        assert_eq!((udp.opt_rate("rate"), udp.bytes("packet_size")), (None, 1472));
        assert_eq!(defaults("periodic").opt_time("random_start"), None);
        assert_eq!(defaults("transfer").get("size"), &Value::Unset, "required");
        assert!(defaults("bulk").iter().next().is_none(), "bulk takes no keys");
        let tcp: Vec<&str> = REGISTRY.iter().filter(|c| c.build.tcp).map(|c| c.name).collect();
        assert_eq!(tcp, ["bulk", "transfer", "periodic"]);
    }

    #[test]
    fn a_bulk_app_stops_writing_at_its_stop() {
        let actions = run(&Config::defaults(&bulk::BULK), SEC);
        assert!(matches!(
            actions.as_slice(),
            [(0, Action::Open { bytes: u64::MAX }), (0, Action::WakeAt(SEC)), (SEC, Action::StopWriting)]
        ));
    }

    /// The packets a copy sends itself: numbered from 0, spaced by its interval or by its
    /// datagrams' time at its rate.
    fn sent(config: &Config) -> Vec<(Time, u32, u64)> {
        run(config, SEC)
            .into_iter()
            .filter_map(|(now, a)| match a {
                Action::Send(Packet {
                    size, payload: Payload::Udp { seq, .. } | Payload::Ping { seq, .. }, ..
                }) => Some((now, size, seq)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn pings_and_datagrams_go_out_at_their_pace() {
        let pings = sent(&Config::defaults(&ping::PING));
        assert_eq!(pings.len(), 10);
        assert_eq!(pings[3], (300 * MS, 64, 3));
        // 1472 bytes and their 28 of headers at the 10 Mbit/s first hop: one every 1.2 ms.
        let datagrams = sent(&Config::defaults(&udp::UDP));
        assert_eq!(datagrams.len(), 834);
        assert_eq!(datagrams[2], (2_400_000, 1500, 2));
        let slower = Config::defaults(&udp::UDP).with("rate", Value::Rate(1_000_000));
        assert_eq!(sent(&slower)[1], (12 * MS, 1500, 1), "its own rate, not the first hop's");
    }

    #[test]
    fn each_app_estimates_what_it_sends() {
        let path = Path { active: SEC, there: 2, back: 3, first_hop_bps: 10_000_000, mss: 1448 };
        let load_of = |c: Config| load(&required(c), &path);
        let ping = load_of(Config::defaults(&ping::PING));
        assert_eq!(ping, Load { packets: 10 * 5, pings: 10, ..Load::default() });
        let udp = load_of(Config::defaults(&udp::UDP));
        assert_eq!(udp, Load { packets: 834 * 2, ..Load::default() }, "as many as it sends, over the hops there");
        // 100 kB is 70 segments: with the SYN, 71 packets each way per connection, one per second.
        let periodic = load_of(Config::defaults(&periodic::PERIODIC));
        assert_eq!(periodic, Load { packets: 71 * 5, pings: 0, completions: 1, connections: 1 });
        assert_eq!(load_of(Config::defaults(&bulk::BULK)).connections, 1);
        let udp = Config::defaults(&udp::UDP).with("rate", Value::Rate(1_000_000));
        assert_eq!(pace(&udp).what, "1472B datagrams at 1Mbit");
    }

    #[test]
    fn a_periodic_app_may_start_at_a_random_offset() {
        let spread = required(Config::defaults(&periodic::PERIODIC)).with("random_start", Value::Time(SEC));
        let mut rng = Rng::stream(1, "app:test");
        let first = start(&spread, 0).first_wake(5 * SEC, &mut rng);
        assert!((5 * SEC..6 * SEC).contains(&first) && first != 5 * SEC, "{first}");
        let at_start = required(Config::defaults(&periodic::PERIODIC));
        assert_eq!(start(&at_start, 0).first_wake(5 * SEC, &mut rng), 5 * SEC);
    }
}
