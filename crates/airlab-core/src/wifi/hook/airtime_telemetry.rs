//! Airtime telemetry at an access point, carried in band to the senders (paper 004's AP: its
//! Sec. V, eqs. 1-6).
//!
//! The AP keeps a table of its end devices: a device joins when it opens a TCP connection (the
//! AP forwards its SYN) and leaves as `leave` says: after `idle` without a packet from it (the
//! default), when its last connection completes (the ACK of the segment that carries its FIN
//! passes the AP: paper 004's L248), or never. For every packet it receives from a device in
//! the table it charges the device
//! the packet's time on the air `t_p` (eq. 2: the PPDU of eq. 1, plus DIFS, SIFS and the MAC
//! ACK), and at the end of every timeslot `ts` it turns each device's sum into its airtime
//! ratio `ar = sum t_p / ts` (eq. 3) and its weighted average `w_ar = w_ar / 2 + ar / 2`
//! (eq. 5 as a recursion). The timeslot follows eq. 6: the largest `ertt + 2 e2a_l` over the
//! devices (each at its estimate from the last timeslot that measured it), where `ertt` is the
//! time from the AP forwarding a data segment to the ACK that covers it coming back, and
//! `e2a_l` the device-to-AP latency from the segment's timestamp.
//!
//! Into every packet from a device it writes [`Telemetry`]: the frame's PHY rate `dr`, the
//! timeslot, the device's setpoint `sp = share / dc` (eq. 4, or the device's own), its MAC
//! losses `loss_w`, and its `w_ar` in the first packet after each timeslot closes.

use super::{ApHook, ApTiming, Build, Component, Config};
use crate::net::packet::{flags, Payload};
use crate::net::{ConnId, Extension, NodeId, Packet, Telemetry};
use crate::params::{Invalid, Kind, Param, Range, Value};
use crate::sim::{Time, MS, SEC, US};
use crate::wifi::phy::{self as phy, TxVector};

/// A share of the timeslot: (0, 1].
const FRACTION: Range = Range { min: 0.0, min_open: true, max: 1.0, max_open: false };

pub static AIRTIME_TELEMETRY: Component = Component {
    name: "airtime_telemetry",
    doc: "paper 004's AP: an airtime table of its stations, written into every packet from them (eqs. 1-6)",
    params: &[
        Param {
            name: "airtime",
            kind: Kind::Choice(&["formula", "ppdu"]),
            default: Value::Choice("formula"),
            doc: "how a packet's airtime is priced: eq. 1 as printed (formula) or the PPDU as sent (ppdu)",
        },
        Param {
            name: "timeslot",
            kind: Kind::Time { min: US },
            default: Value::Unset,
            doc: "a fixed timeslot; unset, the AP computes it (eq. 6)",
        },
        Param {
            name: "timeslot_scale",
            kind: Kind::Real { range: Range::POSITIVE, unit: "" },
            default: Value::Unset,
            doc: "the computed timeslot times this (paper 004's x20 and /20 tests); unset: 1",
        },
        Param {
            name: "initial_timeslot",
            kind: Kind::Time { min: US },
            default: Value::Unset,
            doc: "the computed timeslot before the first measurement; unset: 100 ms",
        },
        Param {
            name: "share",
            kind: Kind::Real { range: FRACTION, unit: "" },
            default: Value::Real(0.8),
            doc: "the share of each timeslot the devices divide equally (eq. 4)",
        },
        Param {
            name: "setpoints",
            kind: Kind::PerHost { range: FRACTION },
            default: Value::PerHost(Vec::new()),
            doc: "stations with a setpoint of their own, a share of the timeslot: { ed1 = 0.45 }",
        },
        Param {
            name: "leave",
            kind: Kind::Choice(&["idle", "closed", "never"]),
            default: Value::Choice("idle"),
            doc: "when a device leaves the table: after `idle` without a packet (idle), when its last TCP connection completes (closed: paper 004's L248), or never",
        },
        Param {
            name: "idle",
            kind: Kind::Time { min: 1 },
            default: Value::Unset,
            doc: "with leave = \"idle\": a device leaves the table after this long without a packet; unset: 1 s",
        },
        Param {
            name: "header_bytes",
            kind: Kind::Int { min: 0, max: MAX_HEADER_BYTES, unit: "bytes" },
            default: Value::Int(0),
            doc: "bytes the telemetry adds to each packet that carries it",
        },
    ],
    check,
    build: Build(|c, timing| Box::new(AirtimeTable::new(TelemetryConfig::of(c), timing))),
};

/// The largest header the telemetry may add: the largest IPv6 extension header, where paper
/// 004 carries it ((255 + 1) x 8 octets, RFC 8200).
const MAX_HEADER_BYTES: i64 = 2_048;
/// The computed timeslot before the AP has measured a path.
const INITIAL_TIMESLOT: Time = 100 * MS;
/// How long a device without a packet stays in the table under `Leave::Idle` unless set.
const IDLE: Time = SEC;

fn check(c: &Config) -> Result<(), Invalid> {
    if c.opt_time("timeslot").is_some()
        && (c.get("timeslot_scale") != &Value::Unset || c.opt_time("initial_timeslot").is_some())
    {
        return Err(Invalid::new(
            "timeslot",
            "a fixed timeslot takes no `timeslot_scale` or `initial_timeslot` (they shape the computed one); remove one",
        ));
    }
    if c.opt_time("idle").is_some() && c.choice("leave") != "idle" {
        return Err(Invalid::new("idle", "is the timeout of leave = \"idle\" only; remove it or set leave = \"idle\""));
    }
    for key in ["timeslot", "initial_timeslot"] {
        if c.opt_time(key).is_some_and(|t| t > MAX_TIMESLOT) {
            return Err(Invalid::new(
                key,
                "must be at most 4294.967295s: packets carry the timeslot in 32 bits of microseconds",
            ));
        }
    }
    Ok(())
}

/// How the AP prices a packet's airtime.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AirtimeMeasure {
    /// Eq. 1 as the paper writes it: preamble plus service, tail and MPDU bits over the rate,
    /// unrounded to symbols.
    Formula,
    /// The PPDU as the PHY sends it (whole symbols).
    Ppdu,
}

/// When a device leaves the AP's table. Paper 004 removes a device's entry "after the
/// completion of a TCP connection" (L248); airlab's first table, before its TCP marked a
/// connection's end, let a device go after a time without packets, which stays the default.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Leave {
    /// After this long without a packet from it, at the close of a timeslot.
    Idle(Time),
    /// When its last open connection completes: the AP forwards the ACK that covers the
    /// connection's FIN segment (its last byte) back to it. A connection that never sends a
    /// FIN (a `bulk` flow's stop) never completes here, so its device stays.
    Closed,
    /// Never: a finished device keeps its entry, and its share of eq. 4.
    Never,
}

/// How long a timeslot lasts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Timeslot {
    /// Eq. 6 times `scale`, starting at `initial` until the first sample.
    Auto {
        scale: f64,
        initial: Time,
    },
    Fixed(Time),
}

/// An AP's telemetry settings, as the table runs them.
#[derive(Clone, Debug, PartialEq)]
pub struct TelemetryConfig {
    pub airtime: AirtimeMeasure,
    pub timeslot: Timeslot,
    /// The share of each timeslot the devices divide equally (eq. 4's 0.8).
    pub share: f64,
    /// Devices with a setpoint of their own instead of `share / dc`.
    pub setpoints: Vec<(NodeId, f64)>,
    /// When a device leaves the table.
    pub leave: Leave,
    /// Bytes the telemetry adds to each packet it is written into.
    pub header_bytes: u32,
}

impl TelemetryConfig {
    /// The settings `c` gives, its hosts bound.
    fn of(c: &Config) -> Self {
        let timeslot = match c.opt_time("timeslot") {
            Some(fixed) => Timeslot::Fixed(fixed),
            None => Timeslot::Auto {
                scale: if c.get("timeslot_scale") == &Value::Unset { 1.0 } else { c.real("timeslot_scale") },
                initial: c.opt_time("initial_timeslot").unwrap_or(INITIAL_TIMESLOT),
            },
        };
        TelemetryConfig {
            airtime: if c.choice("airtime") == "ppdu" { AirtimeMeasure::Ppdu } else { AirtimeMeasure::Formula },
            timeslot,
            share: c.real("share"),
            setpoints: c.per_node("setpoints").to_vec(),
            leave: match c.choice("leave") {
                "closed" => Leave::Closed,
                "never" => Leave::Never,
                _ => Leave::Idle(c.opt_time("idle").unwrap_or(IDLE)),
            },
            header_bytes: c.int("header_bytes") as u32,
        }
    }
}

/// The longest timeslot packets can carry: 32 bits of microseconds. A computed one is clamped
/// to it (and to at least 1 µs, so that slots close at most a million times a second).
pub const MAX_TIMESLOT: Time = u32::MAX as Time * US;

/// Eq. 2: a packet of `ip_bytes` sent at `txv`, its MAC ACK, SIFS and DIFS (`difs`, `sifs`).
pub fn time_per_packet(measure: AirtimeMeasure, txv: &TxVector, ip_bytes: u32, difs: Time, sifs: Time) -> Time {
    let ppdu = match measure {
        AirtimeMeasure::Formula => phy::formula_airtime(txv.preamble_duration(), ip_bytes, txv.rate_bps()),
        AirtimeMeasure::Ppdu => txv.ppdu_duration(phy::mpdu_bytes(ip_bytes)),
    };
    ppdu + difs + sifs + phy::ack_duration(&txv.control_response_rate())
}

#[derive(Debug)]
struct Device {
    node: NodeId,
    /// Airtime charged in the current timeslot.
    airtime: Time,
    w_ar: f64,
    /// A new `w_ar` waits for the next packet.
    fresh: bool,
    last_seen: Time,
    /// Its open connections (tracked for `Leave::Closed` only, the one rule that needs them).
    conns: Vec<ConnId>,
    /// Latest device-to-AP latency.
    e2a: Time,
    /// Largest `ertt + 2 e2a` seen in the current timeslot, and the device's latest
    /// estimate (that of the last timeslot with a sample).
    path_in_slot: Time,
    path: Time,
}

/// A data segment forwarded for a connection, waiting for the ACK that covers it (one per
/// connection at a time, as a timestamp-less RTT sampler does).
#[derive(Debug)]
struct Probe {
    conn: ConnId,
    device: NodeId,
    end: u64,
    sent: Time,
}

/// A connection's FIN segment forwarded, waiting for the ACK that covers it: the connection's
/// completion.
#[derive(Debug)]
struct Fin {
    conn: ConnId,
    device: NodeId,
    end: u64,
}

/// The AP's airtime consumption table.
#[derive(Debug)]
pub struct AirtimeTable {
    cfg: TelemetryConfig,
    devices: Vec<Device>,
    probes: Vec<Probe>,
    fins: Vec<Fin>,
    slot_start: Time,
    slot: Time,
    difs: Time,
    sifs: Time,
}

impl AirtimeTable {
    pub fn new(cfg: TelemetryConfig, timing: ApTiming) -> Self {
        let ApTiming { difs, sifs } = timing;
        let slot = match cfg.timeslot {
            Timeslot::Auto { initial, .. } => initial,
            Timeslot::Fixed(t) => t,
        };
        AirtimeTable { cfg, devices: Vec::new(), probes: Vec::new(), fins: Vec::new(), slot_start: 0, slot, difs, sifs }
    }

    /// The timeslot now.
    pub fn timeslot(&self) -> Time {
        self.slot
    }

    /// Devices in the table (eq. 4's `dc`).
    pub fn device_count(&self) -> usize {
        self.devices.len()
    }

    /// A device's weighted airtime ratio, if it is in the table.
    pub fn w_ar(&self, node: NodeId) -> Option<f64> {
        self.devices.iter().find(|d| d.node == node).map(|d| d.w_ar)
    }

    fn setpoint(&self, node: NodeId) -> f64 {
        match self.cfg.setpoints.iter().find(|(n, _)| *n == node) {
            Some(&(_, sp)) => sp,
            None => self.cfg.share / self.devices.len().max(1) as f64,
        }
    }

    /// Close every timeslot that ended by `now` (eqs. 3, 5 and 6).
    fn advance(&mut self, now: Time) {
        while now >= self.slot_start + self.slot {
            let slot = self.slot;
            for d in &mut self.devices {
                let ar = d.airtime as f64 / slot as f64;
                d.w_ar = 0.5 * d.w_ar + 0.5 * ar;
                d.fresh = true;
                d.airtime = 0;
                if d.path_in_slot > 0 {
                    d.path = std::mem::take(&mut d.path_in_slot);
                }
            }
            self.slot_start += slot;
            if let Leave::Idle(idle) = self.cfg.leave {
                let end = self.slot_start;
                self.devices.retain(|d| end.saturating_sub(d.last_seen) < idle);
            }
            // Eq. 6 over the devices in the table, each at its latest estimate.
            let longest = self.devices.iter().map(|d| d.path).max().unwrap_or(0);
            if let Timeslot::Auto { scale, .. } = self.cfg.timeslot {
                if longest > 0 {
                    self.slot = ((longest as f64 * scale).round() as Time).clamp(US, MAX_TIMESLOT);
                }
            }
            if self.devices.is_empty() && now >= self.slot_start + self.slot {
                // Nothing to account: skip the empty slots at once.
                let behind = (now - self.slot_start) / self.slot;
                self.slot_start += behind * self.slot;
            }
        }
    }
}

impl ApHook for AirtimeTable {
    /// Charges the packet's airtime to its device and writes the telemetry into it.
    fn on_uplink(&mut self, device: NodeId, pkt: &mut Packet, txv: &TxVector, mac_losses: u64, now: Time) {
        self.advance(now);
        let Payload::Tcp(seg) = &mut pkt.payload else { return };
        let known = self.devices.iter().position(|d| d.node == device);
        let syn = seg.has(flags::SYN);
        let i = match known {
            Some(i) => i,
            None if syn => {
                self.devices.push(Device {
                    node: device,
                    airtime: 0,
                    w_ar: 0.0,
                    fresh: false,
                    last_seen: now,
                    conns: Vec::new(),
                    e2a: 0,
                    path_in_slot: 0,
                    path: 0,
                });
                self.devices.len() - 1
            }
            None => return,
        };
        if self.cfg.leave == Leave::Closed {
            let conns = &mut self.devices[i].conns;
            if syn && !conns.contains(&pkt.conn) {
                conns.push(pkt.conn);
            }
            if seg.has(flags::FIN) && !self.fins.iter().any(|f| f.conn == pkt.conn) {
                self.fins.push(Fin { conn: pkt.conn, device, end: seg.seq + u64::from(seg.len) });
            }
        }
        let t_p = time_per_packet(self.cfg.airtime, txv, pkt.size, self.difs, self.sifs);
        let sp = self.setpoint(device);
        let d = &mut self.devices[i];
        d.last_seen = now;
        d.airtime += t_p;
        if seg.tsval > 0 {
            d.e2a = now.saturating_sub(seg.tsval);
        }
        if seg.len > 0 && !self.probes.iter().any(|p| p.conn == pkt.conn) {
            self.probes.push(Probe { conn: pkt.conn, device, end: seg.seq + u64::from(seg.len), sent: now });
        }
        let w_ar = if std::mem::take(&mut d.fresh) { Telemetry::ratio(d.w_ar) } else { Telemetry::NO_W_AR };
        if seg.ext.airtime().is_none() {
            pkt.size += self.cfg.header_bytes;
        }
        seg.ext = Extension::Airtime(Telemetry {
            dr_kbps: (txv.rate_bps() / 1000) as u32,
            ts_us: (self.slot / US).min(u64::from(u32::MAX)) as u32,
            sp: Telemetry::ratio(sp),
            w_ar,
            loss_w: mac_losses as u16,
        });
    }

    /// An ACK the AP is about to send that covers a probed segment gives that connection's
    /// `ertt`, and with its device's latest `e2a_l` a sample of eq. 6. One that covers a FIN
    /// completes its connection; with `Leave::Closed` a device whose last connection completed
    /// leaves the table.
    fn on_downlink(&mut self, pkt: &Packet, now: Time) {
        let Some(seg) = pkt.tcp() else { return };
        if let Some(k) = self.probes.iter().position(|p| p.conn == pkt.conn && seg.ack >= p.end) {
            let probe = self.probes.swap_remove(k);
            if let Some(d) = self.devices.iter_mut().find(|d| d.node == probe.device) {
                d.path_in_slot = d.path_in_slot.max(now - probe.sent + 2 * d.e2a);
            }
        }
        if let Some(k) = self.fins.iter().position(|f| f.conn == pkt.conn && seg.ack >= f.end) {
            let fin = self.fins.swap_remove(k);
            if let Some(i) = self.devices.iter().position(|d| d.node == fin.device) {
                self.devices[i].conns.retain(|&c| c != fin.conn);
                if self.devices[i].conns.is_empty() {
                    self.devices.remove(i);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::{Ecn, TcpSegment};
    use crate::sim::MS;
    use crate::sim::SEC;
    use crate::wifi::phy::MacTiming;

    const DIFS: Time = 34 * US;
    const SIFS: Time = 16 * US;

    fn config(timeslot: Timeslot) -> TelemetryConfig {
        TelemetryConfig {
            airtime: AirtimeMeasure::Formula,
            timeslot,
            share: 0.8,
            setpoints: Vec::new(),
            leave: Leave::Idle(10 * SEC),
            header_bytes: 0,
        }
    }

    #[test]
    fn the_component_reads_as_the_paper_defaults() {
        let mut c = crate::params::checked_defaults(super::super::REGISTRY, |c| c).next().expect("registered");
        c.bind_hosts(&|_| 0);
        let defaults = TelemetryConfig {
            timeslot: Timeslot::Auto { scale: 1.0, initial: 100 * MS },
            leave: Leave::Idle(SEC),
            ..config(Timeslot::Fixed(0))
        };
        assert_eq!(TelemetryConfig::of(&c), defaults);
        let c = Config::defaults(&AIRTIME_TELEMETRY)
            .with("timeslot", Value::Time(960 * MS))
            .with("airtime", Value::Choice("ppdu"))
            .with("setpoints", Value::PerHost(vec![("ed1".into(), 0.45)]));
        assert_eq!(c.check(), Ok(()));
        let mut bound = c.clone();
        bound.bind_hosts(&|name| if name == "ed1" { 7 } else { 0 });
        let t = TelemetryConfig::of(&bound);
        assert_eq!(
            (t.timeslot, t.airtime, t.setpoints),
            (Timeslot::Fixed(960 * MS), AirtimeMeasure::Ppdu, vec![(7, 0.45)])
        );
        // A fixed timeslot with a knob of the computed one is refused, naming the timeslot.
        let both = c.with("initial_timeslot", Value::Time(50 * MS));
        assert_eq!(both.check().map_err(|e| e.key), Err("timeslot".to_string()));
    }

    fn data(device: u32, seq: u64, flags: u8, tsval: Time) -> Packet {
        let len = if flags & flags::SYN != 0 { 0 } else { 1448 };
        let seg = TcpSegment { seq, len, flags, tsval, ..Default::default() };
        Packet::tcp_packet(0, device, device, 99, 1500, Ecn::NotEct, seg)
    }

    #[test]
    fn time_per_packet_is_eq_2_for_802_11a() {
        // Paper 004 with 1500-byte IP packets, reproduction-targets P4.4: 611.6, 1129 and
        // 2168 us at 24, 12 and 6 Mbit/s (T_PHY 20 us, ACK 28/32/44 us, DIFS 34, SIFS 16).
        let timing = MacTiming::ofdm_5ghz();
        assert_eq!(timing.difs(), DIFS);
        let us = |rate: u16| {
            time_per_packet(AirtimeMeasure::Formula, &TxVector::non_ht(rate), 1500, DIFS, SIFS) as f64 / 1e3
        };
        assert!((us(24) - 611.58).abs() < 0.01, "{}", us(24));
        assert!((us(12) - 1129.17).abs() < 0.01, "{}", us(12));
        assert!((us(6) - 2168.33).abs() < 0.01, "{}", us(6));
        // The PPDU as sent rounds up to whole 4 us symbols: 516 + 20 + 78 at 24 Mbit/s.
        let ppdu = time_per_packet(AirtimeMeasure::Ppdu, &TxVector::non_ht(24), 1500, DIFS, SIFS);
        assert_eq!(ppdu, (20 + 4 * 129 + 34 + 16 + 28) * US);
    }

    #[test]
    fn a_device_joins_on_syn_and_gets_its_airtime_ratio_and_weighted_average() {
        let mut t = AirtimeTable::new(config(Timeslot::Fixed(100 * MS)), ApTiming { difs: DIFS, sifs: SIFS });
        let txv = TxVector::non_ht(6);
        // Not in the table yet: no telemetry, no charge.
        let mut p = data(1, 0, flags::ACK, 0);
        t.on_uplink(1, &mut p, &txv, 0, MS);
        assert!(p.tcp().unwrap().ext.airtime().is_none());
        let mut syn = data(1, 0, flags::SYN, 0);
        syn.size = 60;
        t.on_uplink(1, &mut syn, &txv, 0, 2 * MS);
        assert_eq!(t.device_count(), 1);
        let int = *syn.tcp().unwrap().ext.airtime().unwrap();
        assert_eq!((int.dr_kbps, int.ts_us, int.sp, int.w_ar), (6000, 100_000, 8000, Telemetry::NO_W_AR));
        // 20 packets of 2168.33 us in the first 100 ms slot (plus the SYN).
        let t_p = time_per_packet(AirtimeMeasure::Formula, &txv, 1500, DIFS, SIFS);
        let syn_t = time_per_packet(AirtimeMeasure::Formula, &txv, 60, DIFS, SIFS);
        for k in 0..20 {
            t.on_uplink(1, &mut data(1, k * 1448, flags::ACK, 0), &txv, 0, 10 * MS + k * MS);
        }
        // The slot closes: ar_1 = 20 t_p / ts, w_ar_1 = ar_1 / 2 (eq. 5's start-up weight).
        let mut next = data(1, 20 * 1448, flags::ACK, 0);
        t.on_uplink(1, &mut next, &txv, 0, 100 * MS);
        let ar1 = (20 * t_p + syn_t) as f64 / (100 * MS) as f64;
        let got = next.tcp().unwrap().ext.airtime().unwrap().w_ar().unwrap();
        assert!((got - ar1 / 2.0).abs() < 1e-4, "{got} vs {}", ar1 / 2.0);
        // Only the first packet after a slot closes carries w_ar.
        let mut after = data(1, 21 * 1448, flags::ACK, 0);
        t.on_uplink(1, &mut after, &txv, 0, 101 * MS);
        assert_eq!(after.tcp().unwrap().ext.airtime().unwrap().w_ar, Telemetry::NO_W_AR);
        // An empty second slot halves it again: w_ar_2 = ar_1 / 4 + ar_2 / 2, ar_2 = 2 t_p / ts.
        let mut third = data(1, 22 * 1448, flags::ACK, 0);
        t.on_uplink(1, &mut third, &txv, 0, 200 * MS);
        let ar2 = (2 * t_p) as f64 / (100 * MS) as f64;
        let got = third.tcp().unwrap().ext.airtime().unwrap().w_ar().unwrap();
        assert!((got - (ar1 / 4.0 + ar2 / 2.0)).abs() < 1e-4);
    }

    #[test]
    fn leave_reads_as_declared_and_only_idle_takes_a_timeout() {
        let read = |c: &Config| {
            let mut c = c.clone();
            c.bind_hosts(&|_| 0);
            TelemetryConfig::of(&c).leave
        };
        let base = Config::defaults(&AIRTIME_TELEMETRY);
        assert_eq!(read(&base.clone().with("idle", Value::Time(300 * MS))), Leave::Idle(300 * MS));
        assert_eq!(read(&base.clone().with("leave", Value::Choice("closed"))), Leave::Closed);
        assert_eq!(read(&base.clone().with("leave", Value::Choice("never"))), Leave::Never);
        // A timeout beside a `leave` that has none is refused, naming it.
        let both = base.with("leave", Value::Choice("never")).with("idle", Value::Time(SEC));
        assert_eq!(both.check().map_err(|e| e.key), Err("idle".to_string()));
    }

    /// A TCP packet of `device`'s connection `conn`: a SYN, or a full segment at `seq`.
    fn segment(device: u32, conn: u32, seq: u64, flags: u8) -> Packet {
        let len = if flags & flags::SYN != 0 { 0 } else { 1448 };
        let seg = TcpSegment { seq, len, flags, ..Default::default() };
        Packet::tcp_packet(0, conn, device, 99, 1500, Ecn::NotEct, seg)
    }

    /// The ACK the AP forwards back to `device` for its connection `conn`, up to `ack`.
    fn ack(device: u32, conn: u32, ack: u64) -> Packet {
        let seg = TcpSegment { ack, flags: flags::ACK, ..Default::default() };
        Packet::tcp_packet(0, conn, 99, device, 52, Ecn::NotEct, seg)
    }

    /// What device 2 sees, and what the table holds of device 1, at one moment.
    #[derive(Debug, PartialEq)]
    struct Seen {
        devices: usize,
        /// Device 1's weighted airtime ratio, if it has an entry.
        w_ar_1: Option<f64>,
        /// The setpoint written into device 2's packet, in 1/10000.
        sp_2: u16,
    }

    /// Devices 1 and 2 (24 Mbit/s, 100 ms timeslots) each open a connection at 1 ms and send a
    /// segment every 5 ms. Device 1's transfer ends: its last segment (at 50 ms) carries FIN and
    /// the AP forwards the ACK covering it at 60 ms; it sends nothing more. Device 2 sends on
    /// for 1.5 s. Returns what is seen at 55 ms (before the ACK), 70 ms (after it) and 1.5 s,
    /// and every `w_ar` device 2 was sent.
    fn transfer_ends(leave: Leave) -> ([Seen; 3], Vec<u16>) {
        let cfg = TelemetryConfig { leave, ..config(Timeslot::Fixed(100 * MS)) };
        let mut t = AirtimeTable::new(cfg, ApTiming { difs: DIFS, sifs: SIFS });
        let txv = TxVector::non_ht(24);
        for dev in [1, 2] {
            t.on_uplink(dev, &mut segment(dev, dev, 0, flags::SYN), &txv, 0, MS);
        }
        let mut w_ar_2 = Vec::new();
        let mut seen = Vec::new();
        for k in 2..=300u64 {
            let now = k * 5 * MS;
            if now <= 50 * MS {
                let fl = if now == 50 * MS { flags::ACK | flags::FIN } else { flags::ACK };
                t.on_uplink(1, &mut segment(1, 1, k * 1448, fl), &txv, 0, now);
            }
            if now == 60 * MS {
                t.on_downlink(&ack(1, 1, 11 * 1448), now);
            }
            let mut p = segment(2, 2, k * 1448, flags::ACK);
            t.on_uplink(2, &mut p, &txv, 0, now);
            let int = *p.tcp().unwrap().ext.airtime().unwrap();
            if int.w_ar != Telemetry::NO_W_AR {
                w_ar_2.push(int.w_ar);
            }
            if [55 * MS, 70 * MS, 1500 * MS].contains(&now) {
                seen.push(Seen { devices: t.device_count(), w_ar_1: t.w_ar(1), sp_2: int.sp });
            }
        }
        (seen.try_into().unwrap(), w_ar_2)
    }

    #[test]
    fn a_finished_device_leaves_the_table_as_leave_says() {
        let (idle, w_idle) = transfer_ends(Leave::Idle(300 * MS));
        let (closed, w_closed) = transfer_ends(Leave::Closed);
        let (never, w_never) = transfer_ends(Leave::Never);
        // Before the FIN's ACK every reading has both devices, and device 2 half the share.
        for s in [&idle[0], &closed[0], &never[0]] {
            assert_eq!((s.devices, s.sp_2), (2, 4000), "{s:?}");
            assert!(s.w_ar_1.is_some());
        }
        // closed: device 1 leaves with the ACK of its FIN, and device 2 gets the whole share.
        assert_eq!(closed[1], Seen { devices: 1, w_ar_1: None, sp_2: 8000 });
        assert_eq!(closed[2], Seen { devices: 1, w_ar_1: None, sp_2: 8000 });
        // idle: it stays until a timeslot closes 300 ms after its last packet, then leaves.
        assert_eq!((idle[1].devices, idle[1].sp_2), (2, 4000));
        assert_eq!(idle[2], Seen { devices: 1, w_ar_1: None, sp_2: 8000 });
        // never: it keeps its entry and its share; its w_ar (about 0.03 after the first
        // timeslot: ten packets of 611.6 us) halves in each of the 14 empty ones after it.
        assert_eq!((never[2].devices, never[2].sp_2), (2, 4000));
        let w_ar_1 = never[2].w_ar_1.expect("kept");
        assert!(w_ar_1 > 1e-6 && w_ar_1 < 1e-5, "{w_ar_1}");
        // Device 2's own w_ar, once per timeslot, is its airtime alone (eqs. 3 and 5), whoever
        // else is in the table: what moves with `leave` is its setpoint (eq. 4).
        assert_eq!(w_idle.len(), 15);
        assert!(w_idle == w_closed && w_closed == w_never);
    }

    /// With `closed`, a device leaves when its last connection completes, not its first; a
    /// connection that sent no FIN keeps it.
    #[test]
    fn a_device_leaves_when_its_last_connection_completes() {
        let cfg = TelemetryConfig { leave: Leave::Closed, ..config(Timeslot::Fixed(100 * MS)) };
        let mut t = AirtimeTable::new(cfg, ApTiming { difs: DIFS, sifs: SIFS });
        let txv = TxVector::non_ht(24);
        for conn in [1, 3] {
            t.on_uplink(1, &mut segment(1, conn, 0, flags::SYN), &txv, 0, MS);
        }
        t.on_uplink(1, &mut segment(1, 1, 0, flags::ACK | flags::FIN), &txv, 0, 2 * MS);
        // An ACK short of the FIN's end completes nothing; the one covering it, connection 1.
        t.on_downlink(&ack(1, 1, 1000), 3 * MS);
        t.on_downlink(&ack(1, 1, 1448), 4 * MS);
        assert_eq!(t.device_count(), 1, "connection 3 is open");
        t.on_uplink(1, &mut segment(1, 3, 0, flags::ACK), &txv, 0, 5 * MS);
        t.on_downlink(&ack(1, 3, 1448), 6 * MS);
        assert_eq!(t.device_count(), 1, "connection 3 sent no FIN");
        t.on_uplink(1, &mut segment(1, 3, 1448, flags::ACK | flags::FIN), &txv, 0, 7 * MS);
        t.on_downlink(&ack(1, 3, 2 * 1448), 8 * MS);
        assert_eq!(t.device_count(), 0);
        // Its next packet without a SYN is not charged; a new connection brings it back.
        let mut late = segment(1, 3, 1448, flags::ACK | flags::FIN);
        t.on_uplink(1, &mut late, &txv, 0, 9 * MS);
        assert!(late.tcp().unwrap().ext.airtime().is_none());
        t.on_uplink(1, &mut segment(1, 5, 0, flags::SYN), &txv, 0, 10 * MS);
        assert_eq!((t.device_count(), t.w_ar(1)), (1, Some(0.0)));
    }

    #[test]
    fn the_setpoint_divides_the_share_among_devices_unless_a_device_has_its_own() {
        let mut cfg = config(Timeslot::Fixed(100 * MS));
        cfg.setpoints = vec![(3, 0.45)];
        let mut t = AirtimeTable::new(cfg, ApTiming { difs: DIFS, sifs: SIFS });
        let txv = TxVector::non_ht(24);
        for dev in [1, 2, 3] {
            t.on_uplink(dev, &mut data(dev, 0, flags::SYN, 0), &txv, 0, MS);
        }
        let sp = |t: &mut AirtimeTable, dev| {
            let mut p = data(dev, 0, flags::ACK, 0);
            t.on_uplink(dev, &mut p, &txv, 0, 2 * MS);
            p.tcp().unwrap().ext.airtime().unwrap().sp()
        };
        assert!((sp(&mut t, 1) - 0.8 / 3.0).abs() < 1e-4);
        assert!((sp(&mut t, 3) - 0.45).abs() < 1e-9);
    }

    #[test]
    fn the_timeslot_follows_eq_6_and_idle_devices_leave() {
        let cfg = TelemetryConfig {
            leave: Leave::Idle(300 * MS),
            ..config(Timeslot::Auto { scale: 1.0, initial: 100 * MS })
        };
        let mut t = AirtimeTable::new(cfg, ApTiming { difs: DIFS, sifs: SIFS });
        let txv = TxVector::non_ht(24);
        t.on_uplink(1, &mut data(1, 0, flags::SYN, 0), &txv, 0, MS);
        // A segment sent at 9 ms reaches the AP at 10 ms (e2a 1 ms); its ACK is back at 30 ms
        // (ertt 20 ms): eq. 6 gives 20 + 2 x 1 = 22 ms for the next slot.
        t.on_uplink(1, &mut data(1, 0, flags::ACK, 9 * MS), &txv, 0, 10 * MS);
        let ack = Packet::tcp_packet(
            0,
            1,
            99,
            1,
            52,
            Ecn::NotEct,
            TcpSegment { ack: 1448, flags: flags::ACK, ..Default::default() },
        );
        t.on_downlink(&ack, 30 * MS);
        assert_eq!(t.timeslot(), 100 * MS);
        let mut p = data(1, 1448, flags::ACK, 99 * MS);
        t.on_uplink(1, &mut p, &txv, 0, 100 * MS);
        assert_eq!(t.timeslot(), 22 * MS);
        assert_eq!(p.tcp().unwrap().ext.airtime().unwrap().ts_us, 22_000);
        // Quiet for 300 ms: the device leaves, and a packet without a SYN does not bring it back.
        let mut late = data(1, 2896, flags::ACK, 0);
        t.on_uplink(1, &mut late, &txv, 0, 500 * MS);
        assert_eq!(t.device_count(), 0);
        assert!(late.tcp().unwrap().ext.airtime().is_none());
    }

    /// A computed timeslot stays within what packets carry (32 bits of microseconds): scaled
    /// without a bound it overflowed the next slot's end.
    #[test]
    fn a_computed_timeslot_is_clamped_to_what_packets_carry() {
        let cfg = config(Timeslot::Auto { scale: 1e300, initial: 100 * MS });
        let mut t = AirtimeTable::new(cfg, ApTiming { difs: DIFS, sifs: SIFS });
        let txv = TxVector::non_ht(24);
        t.on_uplink(1, &mut data(1, 0, flags::SYN, 0), &txv, 0, MS);
        t.on_uplink(1, &mut data(1, 0, flags::ACK, 9 * MS), &txv, 0, 10 * MS);
        let ack = TcpSegment { ack: 1448, flags: flags::ACK, ..Default::default() };
        t.on_downlink(&Packet::tcp_packet(0, 1, 99, 1, 52, Ecn::NotEct, ack), 30 * MS);
        t.on_uplink(1, &mut data(1, 1448, flags::ACK, 99 * MS), &txv, 0, 100 * MS);
        assert_eq!(t.timeslot(), MAX_TIMESLOT);
        let mut later = data(1, 2896, flags::ACK, 0);
        t.on_uplink(1, &mut later, &txv, 0, 200 * MS);
        assert_eq!(later.tcp().unwrap().ext.airtime().unwrap().ts_us, u32::MAX);
    }

    #[test]
    fn header_bytes_are_added_once() {
        let cfg = TelemetryConfig { header_bytes: 24, ..config(Timeslot::Fixed(100 * MS)) };
        let mut t = AirtimeTable::new(cfg, ApTiming { difs: DIFS, sifs: SIFS });
        let txv = TxVector::non_ht(24);
        let mut syn = data(1, 0, flags::SYN, 0);
        t.on_uplink(1, &mut syn, &txv, 0, MS);
        assert_eq!(syn.size, 1524);
        t.on_uplink(1, &mut syn, &txv, 0, 2 * MS);
        assert_eq!(syn.size, 1524);
    }
}
