//! The radio channel of a Wi-Fi network: the power a receiver gets over a distance (the
//! network's [propagation loss model](super::propagation)), the thermal noise over the
//! channel, the SNR that decides which MPDUs arrive (the network's
//! [error model](super::error_model)), whether the receiver detects the preamble at all (the
//! rate a link sends at for its SNR is [`super::rate`]'s). Every default is ns-3's (`WifiPhy`,
//! `ThresholdPreambleDetectionModel`, `LogDistancePropagationLossModel`), so a distance means
//! what it means in an ns-3 study.
//!
//! The channel is static: no fading, no shadowing, no interference but collisions (which the
//! MAC decides). Carrier sense stays the network's `hears` graph, whatever the distances.

use super::phy::TxVector;
use super::propagation::PropagationLoss;
use serde::Serialize;

/// Boltzmann's constant as ns-3 writes it (J/K), and the noise temperature (K).
const BOLTZMANN: f64 = 1.3803e-23;
const NOISE_TEMPERATURE: f64 = 290.0;

/// What the radios of a network's members are (ns-3's `WifiPhy` attributes): their transmit
/// power, their receivers' noise figure, and the preamble detection thresholds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Transceiver {
    pub tx_power_dbm: f64,
    pub noise_figure_db: f64,
    /// A receiver detects a preamble with at least this power and this SNR over 20 MHz.
    pub detection_rssi_dbm: f64,
    pub detection_snr_db: f64,
}

impl Transceiver {
    /// ns-3's defaults: 16.0206 dBm (40 mW), noise figure 7 dB, preamble detection at -82 dBm
    /// and 4 dB.
    pub const NS3: Transceiver =
        Transceiver { tx_power_dbm: 16.0206, noise_figure_db: 7.0, detection_rssi_dbm: -82.0, detection_snr_db: 4.0 };
}

/// A network's members' radios over the path between them.
pub struct Channel {
    pub transceiver: Transceiver,
    loss: Box<dyn PropagationLoss>,
}

impl Channel {
    pub fn new(transceiver: Transceiver, loss: Box<dyn PropagationLoss>) -> Self {
        Channel { transceiver, loss }
    }

    /// Received power at `distance_m`.
    pub fn rx_power_dbm(&self, distance_m: f64) -> f64 {
        self.loss.rx_power_dbm(self.transceiver.tx_power_dbm, distance_m)
    }

    /// Thermal noise over `bandwidth_mhz` at the receiver, its noise figure included
    /// (-93.97 dBm over 20 MHz).
    pub fn noise_dbm(&self, bandwidth_mhz: f64) -> f64 {
        10.0 * libm::log10(BOLTZMANN * NOISE_TEMPERATURE * bandwidth_mhz * 1e6)
            + 30.0
            + self.transceiver.noise_figure_db
    }

    /// The link a receiver at `distance_m` sees over a channel of `width_mhz`.
    pub fn at_distance(&self, distance_m: f64, width_mhz: u16) -> Radio {
        let rx = self.rx_power_dbm(distance_m);
        self.radio(rx, rx - self.noise_dbm(f64::from(width_mhz)), width_mhz)
    }

    /// The link whose receiver sees `snr_db` over a channel of `width_mhz` (its power is the
    /// noise floor plus that SNR).
    pub fn with_snr(&self, snr_db: f64, width_mhz: u16) -> Radio {
        self.radio(snr_db + self.noise_dbm(f64::from(width_mhz)), snr_db, width_mhz)
    }

    fn radio(&self, rx_power_dbm: f64, snr_db: f64, width_mhz: u16) -> Radio {
        // The preamble is measured over the primary 20 MHz, where the noise is lower.
        let preamble_snr = snr_db + 10.0 * libm::log10(f64::from(width_mhz) / 20.0);
        let t = &self.transceiver;
        let detected = rx_power_dbm >= t.detection_rssi_dbm && preamble_snr >= t.detection_snr_db;
        Radio { rx_power_dbm, snr_db, detected }
    }
}

/// What the receiver of a link gets: its power, the SNR over the link's channel width, and
/// whether it detects the PPDUs at all (if not, every frame on the link is lost).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Radio {
    pub rx_power_dbm: f64,
    pub snr_db: f64,
    pub detected: bool,
}

impl Radio {
    /// The SNR of a PPDU sent with `txv`: over the channel, or for an HE TB PPDU on an RU,
    /// with the station's whole power in the RU's band (ns-3 measures an RU's noise over its
    /// nominal width: 2 MHz for 26 tones up to 160 MHz for 2x996). A downlink HE MU PPDU
    /// spreads the AP's power over the channel, so each RU sees the channel's SNR.
    pub fn snr_db(&self, txv: &TxVector, trigger_based: bool) -> f64 {
        match txv.ru_tones.filter(|_| trigger_based) {
            Some(tones) => self.snr_db + 10.0 * libm::log10(f64::from(txv.width_mhz) / ru_bandwidth_mhz(tones)),
            None => self.snr_db,
        }
    }
}

/// The nominal bandwidth of an HE RU.
fn ru_bandwidth_mhz(tones: u16) -> f64 {
    match tones {
        26 => 2.0,
        52 => 4.0,
        106 => 8.0,
        242 => 20.0,
        484 => 40.0,
        996 => 80.0,
        _ => 160.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wifi::propagation;

    /// ns-3's radios over ns-3's path loss.
    fn ns3() -> Channel {
        Channel::new(Transceiver::NS3, propagation::create(&propagation::Config::named(propagation::DEFAULT)))
    }

    #[test]
    fn ns3_defaults_give_its_noise_floor_and_snr() {
        let p = ns3();
        // ns-3's wifi-spectrum-per-example prints a noise floor of -93.97 dBm at 20 MHz.
        assert!((p.noise_dbm(20.0) + 93.97).abs() < 0.005, "{}", p.noise_dbm(20.0));
        // 63.31 - 30 log10(d) dB at 20 MHz; -82 dBm, the detection floor, at 51.5 m.
        let at_10 = p.at_distance(10.0, 20);
        assert!((at_10.snr_db - 33.31).abs() < 0.01 && at_10.detected, "{at_10:?}");
        assert!(p.at_distance(51.0, 20).detected && !p.at_distance(52.0, 20).detected);
        // Four times the noise bandwidth: 6.02 dB less SNR; an 80 MHz preamble is measured over 20.
        let wide = p.at_distance(10.0, 80);
        assert!((at_10.snr_db - wide.snr_db - 6.0206).abs() < 1e-3, "{wide:?}");
        // Inside the reference distance the loss is the reference loss.
        assert_eq!(p.rx_power_dbm(0.5), p.rx_power_dbm(1.0));
        let given = p.with_snr(3.0, 20);
        assert!(!given.detected && (given.rx_power_dbm + 90.97).abs() < 0.01, "{given:?}");
    }

    #[test]
    fn a_tb_ppdu_concentrates_the_stations_power_on_its_ru() {
        let radio = ns3().at_distance(20.0, 20);
        let ru = TxVector::he(7, 1, 20, 800).with_ru(26);
        assert!((radio.snr_db(&ru, true) - radio.snr_db - 10.0).abs() < 1e-9);
        assert_eq!(radio.snr_db(&ru, false), radio.snr_db);
    }
}
