//! Error rate models: the probability that the bits of a PPDU arrive intact at the receiver's
//! SNR (ns-3's `ErrorRateModel`). A network's channel names one (`error_model`); the MAC asks
//! it for every MPDU it sends over a link with a radio channel, and a rate control that picks
//! from the SNR asks it what SNR a rate needs.
//!
//! A new error model is one file here with its [`ErrorModel`] and its [`Component`]
//! (parameters declared as a qdisc's are), plus its line in [`REGISTRY`] and its `mod` line.

mod memo;
mod nist;

use super::phy::TxVector;
use crate::params;

pub trait ErrorModel {
    /// The probability that `bits` bits of one spatial stream, sent with `txv`, all arrive
    /// intact at an SNR of `snr_db` per stream (ns-3's `GetChunkSuccessRate`); exactly 1 when
    /// the channel corrupts none.
    fn chunk_success(&self, txv: &TxVector, snr_db: f64, bits: u64) -> f64;

    /// The SNR (dB) above which a decoded bit sent with `txv` errs with probability below
    /// `ber`: what ns-3's ideal rate manager compares a link's SNR with.
    fn snr_threshold_db(&self, txv: &TxVector, ber: f64) -> f64;
}

/// How a registered error model is made from its checked parameters.
pub struct Build(pub fn(&Config) -> Box<dyn ErrorModel>);

// Every error model `error_model` can name.
params::family!(Build, [&nist::NIST], "error model", "ErrorModel");

/// The error model of a channel whose table names none.
pub const DEFAULT: &str = "nist";

/// The error model `config` describes, its answers remembered ([`memo`]).
pub fn create(config: &Config) -> Box<dyn ErrorModel> {
    Box::new(memo::Memo::new(create_uncached(config)))
}

/// The error model `config` describes, answering every question anew.
fn create_uncached(config: &Config) -> Box<dyn ErrorModel> {
    (config.component().build.0)(config)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_error_model_builds_from_its_defaults() {
        let txv = TxVector::he(7, 1, 20, 800);
        for config in params::checked_defaults(REGISTRY, |c| c) {
            // Any model loses more of a long frame than of a short one near the threshold,
            // nothing far above it and everything far below it.
            let model = create(&config);
            let threshold = model.snr_threshold_db(&txv, 1e-6);
            let near = threshold - 2.0;
            assert!(
                model.chunk_success(&txv, near, 800) > model.chunk_success(&txv, near, 12_000),
                "{}",
                config.name()
            );
            assert_eq!(model.chunk_success(&txv, threshold + 40.0, 12_000), 1.0, "{}", config.name());
            assert!(model.chunk_success(&txv, threshold - 40.0, 12_000) < 1e-9, "{}", config.name());
        }
    }
}
