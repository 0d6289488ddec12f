//! A directed Wi-Fi link as its transmitter sees it: the PHY it uses now (fixed, or following
//! a rate schedule), the control-response rate, what decides its MPDU errors (a fixed
//! probability, and the radio channel with the network's error model when the scenario gives
//! one), the sequence numbers it hands out, the receiver-side reordering of the frames coming
//! the other way, and its counters.

use super::channel::Radio;
use super::error_model::ErrorModel;
use super::phy::{self, TxVector};
use super::reorder::Reorder;
use crate::counters::counters;
use crate::net::NodeId;
use crate::sim::Time;

/// A link's PHY over time: from each step's time on (from the start, or from the start of
/// each period), its TX vector and radio channel.
#[derive(Clone, Debug)]
pub struct RateSchedule {
    /// At least one step, times strictly increasing and below `period`.
    pub steps: Vec<(Time, TxVector, Option<Radio>)>,
    /// The steps repeat every period; `None`: once.
    pub period: Option<Time>,
}

counters! {
    /// Counters of one directed link, cumulative since the start of the run. Exchanges are
    /// counted when they end, so that every count of an interval describes the same exchanges.
    pub struct LinkStats {
        /// Channel time this link's exchanges held: from the first frame to the response, or
        /// to the response timeout when it failed (the reservation the frames announced).
        pub airtime: Time,
        /// The PHY rate integrated over time (bit/s x ns), up to the last rate change or sample.
        pub rate_time: u128,
        /// Data PPDUs sent (single MPDUs and A-MPDUs), and those not acknowledged.
        pub ppdus: u64,
        pub ppdus_failed: u64,
        /// Data (or RTS) PPDUs the receiver did not get intact because of another
        /// transmission: one that overlapped them, or the receiver's own.
        pub collisions: u64,
        /// MPDU transmissions (retries included), MPDUs acknowledged, and MPDUs given up after
        /// the retry limit.
        pub mpdus: u64,
        pub mpdus_acked: u64,
        pub mpdus_dropped: u64,
        /// IP bytes of acknowledged MPDUs.
        pub bytes_acked: u64,
        /// PPDUs of more than one MPDU, and the MPDUs in them.
        pub ampdus: u64,
        pub ampdu_mpdus: u64,
        /// PPDUs in which this link had one RU of an HE MU PPDU, and their RUs' tones and
        /// PHY rates (bit/s) summed over them.
        pub mu_ppdus: u64,
        pub mu_ru_tones: u64,
        pub mu_ru_rate: u64,
    }
}

/// A destination of a node's transmissions.
pub struct Peer {
    pub dev: u32,
    pub node: NodeId,
    /// The PHY of this link now, and the one it was built with (before any schedule step).
    pub(super) txv: TxVector,
    pub(super) base: TxVector,
    /// Rate of the control frames (RTS, CTS, ACK, Block Ack) on this link.
    pub(super) basic: TxVector,
    pub(super) schedule: Option<RateSchedule>,
    /// Since when `stats.rate_time` lacks the current rate.
    pub(super) rate_since: Time,
    pub(super) per: f64,
    /// The receiver's SNR and preamble detection now, and as built; `None`: no channel model
    /// (only `per`).
    pub(super) radio: Option<Radio>,
    base_radio: Option<Radio>,
    /// Reordering of the frames this peer sends to us.
    pub(super) rx: Reorder,
    pub stats: LinkStats,
}

impl Peer {
    pub fn new(dev: u32, node: NodeId, txv: TxVector, per: f64, radio: Option<Radio>) -> Self {
        let basic = txv.control_response_rate();
        Peer {
            dev,
            node,
            txv,
            base: txv,
            basic,
            schedule: None,
            rate_since: 0,
            per,
            radio,
            base_radio: radio,
            rx: Reorder::default(),
            stats: LinkStats::default(),
        }
    }

    /// The link changes its PHY over time as `schedule` says (from [`super::net::WifiNet::start`] on).
    pub fn with_schedule(mut self, schedule: RateSchedule) -> Self {
        assert!(!schedule.steps.is_empty(), "a rate schedule has steps");
        self.schedule = Some(schedule);
        self
    }

    /// The PHY the next exchange on this link uses.
    pub fn txv(&self) -> &TxVector {
        &self.txv
    }

    /// The PHY the link was built with, which applies before its schedule's first step.
    pub fn base_txv(&self) -> &TxVector {
        &self.base
    }

    /// The counters with `rate_time` brought up to `now`.
    pub fn stats_at(&self, now: Time) -> LinkStats {
        let elapsed = u128::from(now.saturating_sub(self.rate_since));
        LinkStats { rate_time: self.stats.rate_time + u128::from(self.txv.rate_bps()) * elapsed, ..self.stats }
    }

    /// Bring `stats.rate_time` up to `now` (before the rate changes).
    fn settle_rate(&mut self, now: Time) {
        self.stats.rate_time = self.stats_at(now).rate_time;
        self.rate_since = now;
    }

    /// The receiver's channel as the link was built (before its schedule's first step), if
    /// the scenario models one.
    pub fn base_radio(&self) -> Option<&Radio> {
        self.base_radio.as_ref()
    }

    pub(super) fn set_phy(&mut self, txv: TxVector, radio: Option<Radio>, now: Time) {
        self.settle_rate(now);
        self.txv = txv;
        self.basic = txv.control_response_rate();
        self.radio = radio;
    }

    /// How MPDUs sent now with `txv` (this link's vector, possibly on an RU; `trigger_based`
    /// for an HE TB PPDU) fare at the receiver.
    pub(super) fn reception(&self, txv: &TxVector, trigger_based: bool) -> Reception {
        let decoding = match self.radio {
            None => Decoding::NoChannel,
            Some(r) if !r.detected => Decoding::Undetected,
            Some(r) => Decoding::At { txv: *txv, snr_db: r.snr_db(txv, trigger_based) },
        };
        Reception { per: self.per, decoding }
    }
}

/// What decides whether each MPDU of one transmission arrives: the link's fixed error
/// probability and how the receiver decodes the PPDU. Taken when the frames are sent, so a
/// rate or channel change during the exchange does not touch them.
#[derive(Clone, Copy, Debug)]
pub(super) struct Reception {
    per: f64,
    decoding: Decoding,
}

#[derive(Clone, Copy, Debug)]
enum Decoding {
    /// The link has no channel model: only `per` loses MPDUs.
    NoChannel,
    /// The receiver does not detect the PPDU: every MPDU is lost.
    Undetected,
    /// The PPDU, sent with `txv`, reaches the receiver at `snr_db` per stream.
    At { txv: TxVector, snr_db: f64 },
}

impl Reception {
    /// The probability that an MPDU carrying an IP packet of `ip_bytes` is lost: it is lost to
    /// `per`, or, by the network's error model `errors`, to a bit error in any of its bits
    /// (split over the spatial streams).
    pub(super) fn mpdu_error(&self, ip_bytes: u32, errors: &dyn ErrorModel) -> f64 {
        match self.decoding {
            Decoding::NoChannel => self.per,
            Decoding::Undetected => 1.0,
            Decoding::At { txv, snr_db } => {
                let bits = (8 * u64::from(phy::mpdu_bytes(ip_bytes))).div_ceil(u64::from(txv.nss));
                let intact = errors.chunk_success(&txv, snr_db, bits);
                // A channel that corrupts nothing leaves `per` exactly (1 - (1 - per) can round
                // off its last bit).
                if intact == 1.0 {
                    self.per
                } else {
                    1.0 - (1.0 - self.per) * intact
                }
            }
        }
    }
}
