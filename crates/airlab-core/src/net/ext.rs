//! The typed extension slot of a TCP segment: what a component on the path writes into a
//! segment for the far end to echo back in its ACKs, as an INT header or a TCP option carries
//! it in a real network. TCP carries the slot without looking inside; the component that
//! writes it and the congestion control that reads it agree on its variant.

use crate::sim::Time;

/// One segment's extension.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Extension {
    #[default]
    None,
    /// Paper 004's airtime telemetry: the `airtime_telemetry` AP hook writes it into its
    /// stations' segments (`crate::wifi::hook::airtime_telemetry`), `fccc` reads the echo.
    Airtime(Telemetry),
}

impl Extension {
    /// What a receiver holds once `newer` arrived over what it held.
    pub fn merge(&self, newer: &Extension) -> Extension {
        match (self, newer) {
            (_, Extension::None) => *self,
            (Extension::Airtime(held), Extension::Airtime(new)) => Extension::Airtime(held.merge(new)),
            (_, newer) => *newer,
        }
    }

    /// What the receiver's next ACK echoes; what is echoed once is taken out of the held slot.
    pub fn echo(&mut self) -> Extension {
        let echoed = *self;
        if let Extension::Airtime(t) = self {
            t.w_ar = Telemetry::NO_W_AR;
        }
        echoed
    }

    /// The airtime telemetry it carries, if any.
    pub fn airtime(&self) -> Option<&Telemetry> {
        match self {
            Extension::Airtime(t) if t.is_present() => Some(t),
            _ => None,
        }
    }
}

/// Airtime telemetry an access point writes into a packet in band (paper 004's INT fields), in
/// the fixed-point units an INT header carries; the receiver echoes the latest in its ACKs.
/// All zero (the default): no telemetry.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Telemetry {
    /// PHY rate of the device's frame that carried the packet to the AP, kbit/s (`dr`).
    pub dr_kbps: u32,
    /// The AP's timeslot, µs (`ts`).
    pub ts_us: u32,
    /// The device's setpoint, in 1/10000 of the timeslot (`sp`).
    pub sp: u16,
    /// The device's weighted airtime ratio over past timeslots, in 1/10000 (`w_ar`); sent once
    /// per timeslot, [`Telemetry::NO_W_AR`] in the other packets.
    pub w_ar: u16,
    /// Frames from the device the MAC gave up after its retry limit, a wrapping count
    /// (`loss_w`).
    pub loss_w: u16,
}

impl Telemetry {
    pub const NO_W_AR: u16 = u16::MAX;
    /// One unit of `sp` and `w_ar`.
    pub const RATIO_UNIT: f64 = 1e-4;

    pub fn is_present(&self) -> bool {
        self.dr_kbps > 0
    }

    pub fn dr_bps(&self) -> u64 {
        u64::from(self.dr_kbps) * 1000
    }

    pub fn ts(&self) -> Time {
        Time::from(self.ts_us) * crate::sim::US
    }

    pub fn sp(&self) -> f64 {
        f64::from(self.sp) * Self::RATIO_UNIT
    }

    pub fn w_ar(&self) -> Option<f64> {
        (self.is_present() && self.w_ar != Self::NO_W_AR).then(|| f64::from(self.w_ar) * Self::RATIO_UNIT)
    }

    /// The latest fields of `newer` over these, keeping a `w_ar` that `newer` lacks (a
    /// receiver echoes each `w_ar` once, even when a delayed ACK covers later packets).
    pub fn merge(&self, newer: &Telemetry) -> Telemetry {
        if !newer.is_present() {
            return *self;
        }
        let w_ar = if newer.w_ar == Self::NO_W_AR && self.is_present() { self.w_ar } else { newer.w_ar };
        Telemetry { w_ar, ..*newer }
    }

    /// A ratio in the fixed-point unit, saturating below [`Telemetry::NO_W_AR`].
    pub fn ratio(x: f64) -> u16 {
        (x / Self::RATIO_UNIT).round().clamp(0.0, f64::from(Self::NO_W_AR - 1)) as u16
    }
}
