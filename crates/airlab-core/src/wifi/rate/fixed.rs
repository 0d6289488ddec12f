//! Fixed rate: the link sends at the `mcs` (or 802.11a `rate`) its tables give, whatever its
//! SNR (ns-3's `ConstantRateWifiManager`).

use super::{Build, Component, RateControl};
use crate::params::no_check;
use crate::wifi::error_model::ErrorModel;
use crate::wifi::phy::TxVector;

pub static FIXED: Component = Component {
    name: "fixed",
    doc: "the mcs (or rate) the scenario gives, whatever the SNR",
    params: &[],
    check: no_check,
    build: Build(|_| Box::new(Fixed)),
};

struct Fixed;

impl RateControl for Fixed {
    fn adapts(&self) -> bool {
        false
    }

    fn pick(&self, candidates: &[TxVector], _: f64, _: &dyn ErrorModel) -> TxVector {
        *candidates.last().expect("the cap is a candidate")
    }
}
