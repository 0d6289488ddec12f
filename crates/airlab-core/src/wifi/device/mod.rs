//! Device layers as a component family: the frames a Wi-Fi interface's driver holds below its
//! qdisc, as a scenario's `device = { kind = ..., ... }` names them. Each layer declares its
//! parameters beside its model (the driver FIFO and the per-station queues in [`queues`],
//! Linux's mac80211 layer in [`mac80211`]) and builds the [`DeviceLayer`] the MAC runs.
//!
//! A new device layer is its model with a [`Component`], its shape in [`DeviceLayer`] and
//! its line in [`REGISTRY`].

pub mod mac80211;
pub mod queues;

use crate::params;
use crate::sim::Time;
use mac80211::Mac80211Params;

/// The shape of the device layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeviceLayer {
    /// One driver FIFO of `size` packets for all destinations (legacy drivers); with a
    /// `lifetime`, a frame that waited longer is dropped (ns-3's WifiMacQueue MaxDelay).
    Fifo { size: u32, lifetime: Option<Time> },
    /// Queues, one per destination, `size` packets in all, served round robin or, with
    /// `airtime_fairness`, by deficit round robin on airtime.
    PerStation { size: u32, airtime_fairness: bool },
    /// Linux's mac80211 layer: per-station FQ-CoDel TXQs, airtime fairness and AQL.
    Mac80211(Mac80211Params),
}

/// How a registered device layer is made from its checked parameters: the shape
/// [`queues::DeviceQueues`] builds an interface's queues from.
pub struct Build(pub fn(&Config) -> DeviceLayer);

// Every device layer `device` can name.
params::family!(Build, [&queues::FIFO, &queues::PER_STATION, &mac80211::MAC80211], "device layer", "DeviceLayer");

/// The device layer `config` describes.
pub fn layer(config: &Config) -> DeviceLayer {
    (config.component().build.0)(config)
}

#[cfg(test)]
mod tests {
    use super::*;
    use queues::DeviceQueues;

    #[test]
    fn every_device_layer_builds_from_its_defaults() {
        for config in params::checked_defaults(REGISTRY, |c| c) {
            let queues = DeviceQueues::new(&layer(&config), 2, 0);
            assert!(queues.is_empty() && !queues.is_full(), "{}", config.name());
        }
    }

    #[test]
    fn the_defaults_are_the_layers_scenarios_had_before_they_were_components() {
        assert_eq!(layer(&Config::named("fifo")), DeviceLayer::Fifo { size: 128, lifetime: None });
        assert_eq!(
            layer(&Config::named("per_station")),
            DeviceLayer::PerStation { size: 128, airtime_fairness: false }
        );
        assert_eq!(layer(&Config::named("mac80211")), DeviceLayer::Mac80211(Mac80211Params::LINUX));
    }
}
