//! Ideal rate control (ns-3's `IdealWifiManager` on a static channel): the fastest rate whose
//! decoded bit error at the link's SNR, under the network's error model, is below a threshold
//! (`BerThreshold`, 1e-6 in ns-3), the slowest when none is. It knows the receiver's SNR
//! exactly, as ns-3's does.

use super::{Build, Component, RateControl};
use crate::params::{no_check, Kind, Param, Range, Value};
use crate::wifi::error_model::ErrorModel;
use crate::wifi::phy::TxVector;

pub static IDEAL: Component = Component {
    name: "ideal",
    doc: "the fastest rate whose bit error at the link's SNR is below a threshold (ns-3's IdealWifiManager)",
    params: &[Param {
        name: "ber",
        kind: Kind::Real { range: Range { min: 0.0, min_open: true, max: 0.5, max_open: true }, unit: "" },
        default: Value::Real(1e-6),
        doc: "the decoded bit error a rate must stay below (ns-3's BerThreshold)",
    }],
    check: no_check,
    build: Build(|c| Box::new(Ideal { ber: c.real("ber") })),
};

struct Ideal {
    ber: f64,
}

impl RateControl for Ideal {
    fn adapts(&self) -> bool {
        true
    }

    fn pick(&self, candidates: &[TxVector], snr_db: f64, errors: &dyn ErrorModel) -> TxVector {
        let slowest = candidates.iter().min_by_key(|t| t.rate_bps()).expect("some candidate rate");
        candidates
            .iter()
            .filter(|t| errors.snr_threshold_db(t, self.ber) < snr_db)
            .max_by_key(|t| t.rate_bps())
            .unwrap_or(slowest)
            .to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn takes_the_fastest_mcs_clear_of_the_threshold() {
        let (he, nist) = super::super::tests::he_20mhz();
        let pick = |rc: &Ideal, snr: f64| rc.pick(&he, snr, nist.as_ref()).mcs;
        let ns3 = Ideal { ber: 1e-6 };
        // Thresholds at 1e-6: MCS 7 24.46 dB, MCS 8 29.20 dB.
        assert_eq!(pick(&ns3, 29.0), 7);
        assert_eq!(pick(&ns3, 29.3), 8);
        assert_eq!(pick(&ns3, 50.0), 11);
        assert_eq!(pick(&ns3, -3.0), 0);
        // A looser threshold lowers every rate's SNR bar (at 1e-3: MCS 9 28.04 dB, MCS 10
        // 32.57 dB), so 29 dB carries MCS 9.
        let loose = Ideal { ber: 1e-3 };
        assert_eq!(pick(&loose, 29.0), 9);
        assert_eq!(pick(&loose, 32.0), 9);
        assert_eq!(pick(&loose, 32.6), 10);
    }
}
