//! Log-distance path loss (ns-3's `LogDistancePropagationLossModel`): L0 + 10 n log10(d / d0)
//! beyond the reference distance d0, L0 within it. ns-3's defaults: exponent 3 with 46.6777 dB
//! at 1 m (Friis at 5.15 GHz).

use super::{Build, Component, PropagationLoss};
use crate::params::{no_check, Kind, Param, Range, Value};

pub static LOG_DISTANCE: Component = Component {
    name: "log_distance",
    doc: "L0 + 10 n log10(d / d0) beyond the reference distance d0, L0 within it (ns-3's LogDistancePropagationLossModel)",
    params: &[
        Param {
            name: "exponent",
            kind: Kind::Real { range: Range { min: 1.0, min_open: false, max: 8.0, max_open: false }, unit: "" },
            default: Value::Real(3.0),
            doc: "n, how fast the loss grows with distance (2 is free space; 3 is ns-3's default)",
        },
        Param {
            name: "reference_loss_db",
            kind: Kind::Real { range: Range { min: 0.0, min_open: false, max: 200.0, max_open: false }, unit: "dB" },
            default: Value::Real(46.6777),
            doc: "L0, the loss at the reference distance (ns-3's: Friis at 1 m and 5.15 GHz)",
        },
        Param {
            name: "reference_distance_m",
            kind: Kind::Real { range: Range { min: 0.001, min_open: false, max: 1000.0, max_open: false }, unit: "m" },
            default: Value::Real(1.0),
            doc: "d0; nearer receivers get L0",
        },
    ],
    check: no_check,
    build: Build(|c| {
        Box::new(LogDistance {
            exponent: c.real("exponent"),
            reference_loss_db: c.real("reference_loss_db"),
            reference_distance_m: c.real("reference_distance_m"),
        })
    }),
};

struct LogDistance {
    exponent: f64,
    reference_loss_db: f64,
    reference_distance_m: f64,
}

impl PropagationLoss for LogDistance {
    fn rx_power_dbm(&self, tx_power_dbm: f64, distance_m: f64) -> f64 {
        let beyond = (distance_m / self.reference_distance_m).max(1.0);
        tx_power_dbm - self.reference_loss_db - 10.0 * self.exponent * libm::log10(beyond)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wifi::propagation::{create, Config};

    #[test]
    fn defaults_are_ns3s_and_each_parameter_counts() {
        let ns3 = create(&Config::named("log_distance"));
        // 30 dB per decade beyond 46.6777 dB at 1 m, and L0 alone within 1 m.
        assert_eq!(ns3.rx_power_dbm(16.0206, 1.0), 16.0206 - 46.6777);
        assert!((ns3.rx_power_dbm(16.0206, 10.0) - (16.0206 - 46.6777 - 30.0)).abs() < 1e-12);
        assert_eq!(ns3.rx_power_dbm(0.0, 0.5), ns3.rx_power_dbm(0.0, 1.0));
        let set = |name, v| create(&Config::named("log_distance").with(name, Value::Real(v)));
        assert!((set("exponent", 2.0).rx_power_dbm(0.0, 10.0) - (-46.6777 - 20.0)).abs() < 1e-12);
        assert!((set("reference_loss_db", 40.0).rx_power_dbm(0.0, 10.0) - (-40.0 - 30.0)).abs() < 1e-12);
        assert!((set("reference_distance_m", 10.0).rx_power_dbm(0.0, 100.0) - (-46.6777 - 30.0)).abs() < 1e-12);
    }
}
