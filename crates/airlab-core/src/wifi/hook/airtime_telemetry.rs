//! Airtime telemetry at an access point, carried in band to the senders (paper 004's AP: its
//! Sec. V, eqs. 1-6).
//!
//! The AP keeps a table of its end devices: a device joins when it opens a TCP connection (the
//! AP forwards its SYN) and leaves after `idle` without a packet from it (airlab models no FIN
//! exchange). For every packet it receives from a device in the table it charges the device
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
use crate::net::packet::Payload;
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
            name: "idle",
            kind: Kind::Time { min: 1 },
            default: Value::Time(SEC),
            doc: "a device leaves the table after this long without a packet",
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

fn check(c: &Config) -> Result<(), Invalid> {
    if c.opt_time("timeslot").is_some()
        && (c.get("timeslot_scale") != &Value::Unset || c.opt_time("initial_timeslot").is_some())
    {
        return Err(Invalid::new(
            "timeslot",
            "a fixed timeslot takes no `timeslot_scale` or `initial_timeslot` (they shape the computed one); remove one",
        ));
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
    /// A device leaves the table after this long without a packet.
    pub idle: Time,
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
            idle: c.time("idle"),
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

/// The AP's airtime consumption table.
#[derive(Debug)]
pub struct AirtimeTable {
    cfg: TelemetryConfig,
    devices: Vec<Device>,
    probes: Vec<Probe>,
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
        AirtimeTable { cfg, devices: Vec::new(), probes: Vec::new(), slot_start: 0, slot, difs, sifs }
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
            let idle = self.cfg.idle;
            let end = self.slot_start;
            self.devices.retain(|d| end.saturating_sub(d.last_seen) < idle);
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
        let i = match known {
            Some(i) => i,
            None if seg.has(crate::net::packet::flags::SYN) => {
                self.devices.push(Device {
                    node: device,
                    airtime: 0,
                    w_ar: 0.0,
                    fresh: false,
                    last_seen: now,
                    e2a: 0,
                    path_in_slot: 0,
                    path: 0,
                });
                self.devices.len() - 1
            }
            None => return,
        };
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
    /// `ertt`, and with its device's latest `e2a_l` a sample of eq. 6.
    fn on_downlink(&mut self, pkt: &Packet, now: Time) {
        let Some(seg) = pkt.tcp() else { return };
        let Some(k) = self.probes.iter().position(|p| p.conn == pkt.conn && seg.ack >= p.end) else { return };
        let probe = self.probes.swap_remove(k);
        if let Some(d) = self.devices.iter_mut().find(|d| d.node == probe.device) {
            d.path_in_slot = d.path_in_slot.max(now - probe.sent + 2 * d.e2a);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::flags;
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
            idle: 10 * SEC,
            header_bytes: 0,
        }
    }

    #[test]
    fn the_component_reads_as_the_paper_defaults() {
        let mut c = crate::params::checked_defaults(super::super::REGISTRY, |c| c).next().expect("registered");
        c.bind_hosts(&|_| 0);
        let defaults = TelemetryConfig {
            timeslot: Timeslot::Auto { scale: 1.0, initial: 100 * MS },
            idle: SEC,
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
        let cfg = TelemetryConfig { idle: 300 * MS, ..config(Timeslot::Auto { scale: 1.0, initial: 100 * MS }) };
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
