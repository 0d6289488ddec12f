//! Propagation loss models: the power a receiver gets at a distance from a transmitter (ns-3's
//! `PropagationLossModel`). A network's channel names one (`propagation`); the transmit power,
//! noise and detection thresholds are the radios' ([`super::channel::Transceiver`]), not the
//! path's.
//!
//! A new propagation loss model is one file here with its [`PropagationLoss`] and its
//! [`Component`] (parameters declared as a qdisc's are), plus its line in [`REGISTRY`] and its
//! `mod` line.

mod log_distance;

use crate::params;

pub trait PropagationLoss {
    /// The power (dBm) received `distance_m` from a transmitter sending at `tx_power_dbm`
    /// (ns-3's `CalcRxPower`: the model subtracts its loss in its own order of operations, so
    /// that a model ported from ns-3 gives its numbers to the last bit).
    fn rx_power_dbm(&self, tx_power_dbm: f64, distance_m: f64) -> f64;
}

/// How a registered propagation loss model is made from its checked parameters.
pub struct Build(pub fn(&Config) -> Box<dyn PropagationLoss>);

// Every propagation loss model `propagation` can name.
params::family!(Build, [&log_distance::LOG_DISTANCE], "propagation loss model", "Propagation");

/// The propagation loss model of a channel whose table names none.
pub const DEFAULT: &str = "log_distance";

/// The propagation loss model `config` describes.
pub fn create(config: &Config) -> Box<dyn PropagationLoss> {
    (config.component().build.0)(config)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_propagation_model_builds_from_its_defaults() {
        for config in params::checked_defaults(REGISTRY, |c| c) {
            // Any model loses power with distance, and more the farther.
            let model = create(&config);
            let powers: Vec<f64> = [1.0, 10.0, 100.0].iter().map(|&d| model.rx_power_dbm(20.0, d)).collect();
            assert!(powers[0] < 20.0 && powers.windows(2).all(|w| w[1] < w[0]), "{}: {powers:?}", config.name());
        }
    }
}
