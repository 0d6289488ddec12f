//! Rate control: which MCS (or 802.11a rate) a link sends at, given what its radio channel
//! allows. The channel is static, so a rate control decides once per link, and again at each
//! step of the link's `schedule`, from the SNR there; the MAC then sends at that rate.
//!
//! A new rate control is one file here with its [`RateControl`] and its [`Component`]
//! (parameters declared as a qdisc's are), plus its line in [`REGISTRY`] and its `mod` line.

mod fixed;
mod ideal;

use super::error_model::ErrorModel;
use super::phy::TxVector;
use crate::params;

pub trait RateControl {
    /// Whether it picks from the link's SNR. A link under it needs one (`distance_m` or
    /// `snr_db`), and its `mcs` (or `rate`) is the fastest it may pick: unset, the standard's
    /// fastest. One that does not adapt sends at the `mcs` given.
    fn adapts(&self) -> bool;

    /// Of `candidates` (the link's valid rates up to its cap, slowest first), the one to send
    /// at with the receiver at `snr_db`, where the network's `errors` decide which frames
    /// arrive; asked only when it [adapts](RateControl::adapts).
    fn pick(&self, candidates: &[TxVector], snr_db: f64, errors: &dyn ErrorModel) -> TxVector;
}

/// How a registered rate control is made from its checked parameters.
pub struct Build(pub fn(&Config) -> Box<dyn RateControl>);

// Every rate control `rate_control` can name.
params::family!(Build, [&fixed::FIXED, &ideal::IDEAL], "rate control", "RateControl");

/// The rate control of a link whose tables name none.
pub const DEFAULT: &str = "fixed";

/// The rate control `config` describes.
pub fn create(config: &Config) -> Box<dyn RateControl> {
    (config.component().build.0)(config)
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::wifi::error_model;

    /// HE-MCS 0-11 at 20 MHz, one stream, slowest first, and the NIST error model: what the
    /// rate controls' tests pick from.
    pub(super) fn he_20mhz() -> (Vec<TxVector>, Box<dyn ErrorModel>) {
        let he = (0..12).map(|mcs| TxVector::he(mcs, 1, 20, 800)).collect();
        (he, error_model::create(&error_model::Config::named("nist")))
    }

    #[test]
    fn every_rate_control_builds_from_its_defaults() {
        let (he, nist) = he_20mhz();
        for config in params::checked_defaults(REGISTRY, |c| c) {
            // Any rate control sends at the cap on a clear channel.
            let built = create(&config);
            assert!(!built.adapts() || built.pick(&he, 60.0, nist.as_ref()) == he[11], "{}", config.name());
        }
    }
}
