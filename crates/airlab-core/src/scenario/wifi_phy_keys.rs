//! The PHY keys of a `[[wifi]]` table as written (`rate`, `mcs`, `width`, `gi`, `nss`, `per`,
//! `distance_m`, `snr_db`), the `schedule` of a member that changes them over time, and the
//! `channel` table that turns a distance or an SNR into a radio (with its `propagation` and
//! `error_model` components). Each check names the key at fault; the PHY of a link as a whole
//! is checked by [`check_phy`].

use super::limits::MIN_PERIOD;
use super::model::*;
use super::units::Duration;
use super::wifi::*;
use super::{components, KeyError};
use crate::wifi::channel::Transceiver;
use crate::wifi::phy::standard::{check_gi, check_mcs, check_nss, check_rate, check_width};
use crate::wifi::{error_model, propagation};

/// Steps of a schedule: a bound that lets a Wi-Fi event fit the engine's 8-byte event
/// (`wifi::net::WifiEvent::pack`).
const MAX_STEPS: usize = u16::MAX as usize;

/// Checks the PHY keys written in one table: each applies to the standard and is in range.
pub(super) fn check_phy_keys(standard: Standard, keys: &WifiPhyKeys) -> Result<(), (&'static str, String)> {
    let std = standard.label();
    if let Some(rate) = keys.rate {
        if standard != Standard::A {
            return Err(("rate", format!("`rate` is the non-HT rate of 802.11a; {std} sets `mcs` instead")));
        }
        check_rate(standard, rate.0).map_err(|m| ("rate", m))?;
    }
    if let Some(mcs) = keys.mcs {
        if standard == Standard::A {
            let rates = A_RATES_MBIT.map(|r| r.to_string()).join(", ");
            return Err(("mcs", format!("802.11a has no MCS; set `rate` to one of {rates} Mbit/s")));
        }
        check_mcs(standard, mcs).map_err(|m| ("mcs", m))?;
    }
    if let Some(width) = keys.width {
        check_width(standard, width).map_err(|m| ("width", m))?;
    }
    if let Some(gi) = keys.gi {
        check_gi(standard, gi.0).map_err(|m| ("gi", m))?;
    }
    if let Some(nss) = keys.nss {
        match standard {
            Standard::A => return Err(("nss", "802.11a sends one spatial stream; remove `nss`".into())),
            Standard::N => {
                return Err((
                    "nss",
                    "802.11n MCS imply the spatial streams (nss = mcs / 8 + 1: MCS 0-7 one stream, \
                     8-15 two, ...); remove `nss` and choose the MCS"
                        .into(),
                ))
            }
            Standard::Ac | Standard::Ax => check_nss(standard, nss).map_err(|m| ("nss", m))?,
        }
    }
    if let Some(per) = keys.per {
        if !(0.0..1.0).contains(&per) {
            return Err(("per", format!("per must be a probability in [0, 1), such as 0.01; got {per}")));
        }
    }
    if let Some(d) = keys.distance_m {
        if !(d > 0.0 && d <= MAX_DISTANCE_M) {
            return Err((
                "distance_m",
                format!("distance_m must be above 0 and at most {MAX_DISTANCE_M} metres, got {d}"),
            ));
        }
        if keys.snr_db.is_some() {
            return Err(("snr_db", "set distance_m or snr_db, not both: the SNR follows from the distance".into()));
        }
    }
    if let Some(snr) = keys.snr_db {
        if !(MIN_SNR_DB..=MAX_SNR_DB).contains(&snr) {
            return Err(("snr_db", format!("snr_db must be {MIN_SNR_DB} to {MAX_SNR_DB} dB, got {snr}")));
        }
    }
    Ok(())
}

/// The range of `distance_m` and `snr_db`.
const MAX_DISTANCE_M: f64 = 100_000.0;
const MIN_SNR_DB: f64 = -50.0;
const MAX_SNR_DB: f64 = 100.0;

/// The `channel` table at `at` (`wifi[0].channel`): ns-3's defaults for the missing keys, every
/// value in a physical range, and its propagation loss and error models (log-distance with
/// ns-3's numbers and NIST unless it names others).
pub(super) fn resolve_channel(t: &WifiChannel, at: &str) -> Result<ResolvedChannel, KeyError> {
    let d = Transceiver::NS3;
    let checked = |name: &str, value: Option<f64>, default: f64, range: (f64, f64), unit: &str| {
        let v = value.unwrap_or(default);
        if v.is_finite() && (range.0..=range.1).contains(&v) {
            Ok(v)
        } else {
            Err(KeyError::new(
                format!("{at}.{name}"),
                format!("{name} must be {} to {} {unit}, got {v}", range.0, range.1),
            ))
        }
    };
    let transceiver = Transceiver {
        tx_power_dbm: checked("tx_power_dbm", t.tx_power_dbm, d.tx_power_dbm, (-50.0, 50.0), "dBm")?,
        noise_figure_db: checked("noise_figure_db", t.noise_figure_db, d.noise_figure_db, (0.0, 30.0), "dB")?,
        detection_rssi_dbm: checked(
            "detection_rssi_dbm",
            t.detection_rssi_dbm,
            d.detection_rssi_dbm,
            (-200.0, 0.0),
            "dBm",
        )?,
        detection_snr_db: checked("detection_snr_db", t.detection_snr_db, d.detection_snr_db, (-50.0, 100.0), "dB")?,
    };
    let propagation = match &t.propagation {
        Some(written) => components::name_or_table::<propagation::Build>(written, &format!("{at}.propagation"))?,
        None => propagation::Config::named(propagation::DEFAULT),
    };
    let error_model = match &t.error_model {
        Some(written) => components::name_or_table::<error_model::Build>(written, &format!("{at}.error_model"))?,
        None => error_model::Config::named(error_model::DEFAULT),
    };
    Ok(ResolvedChannel { transceiver, propagation, error_model })
}

/// The log-distance keys `channel` had before path loss became a propagation loss model, and
/// the parameter of `log_distance` each became.
const MOVED_TO_PROPAGATION: [(&str, &str); 3] = [
    ("path_loss_exponent", "exponent"),
    ("reference_loss_db", "reference_loss_db"),
    ("reference_distance_m", "reference_distance_m"),
];

/// Where an unknown key at `key` went, if it is one a `channel` table once had: a file written
/// for the old format then says what to write instead.
pub(super) fn moved_channel_key(key: &str) -> Option<String> {
    let (table, field) = key.rsplit_once('.')?;
    if !(table.starts_with("wifi[") && table.ends_with(".channel")) {
        return None;
    }
    let (_, param) = MOVED_TO_PROPAGATION.iter().find(|(old, _)| *old == field)?;
    Some(format!(
        "`{field}` is now `{param}` of the channel's propagation loss model: write \
         `propagation = {{ kind = \"log_distance\", {param} = ... }}` in `channel`"
    ))
}

/// Checks a member's `schedule` at `at` (`wifi[0].node[1].schedule`): at least one step, each
/// `at` after the previous one and within the period, and each step's PHY keys.
pub(super) fn check_schedule(standard: Standard, at: &str, schedule: &WifiSchedule) -> Result<(), KeyError> {
    if let Some(period) = schedule.period {
        // A repeating schedule changes the rate once per step and period.
        let steps = schedule.steps.len().max(1) as u64;
        if period.0 < steps.saturating_mul(MIN_PERIOD) {
            return Err(KeyError::new(
                format!("{at}.period"),
                format!(
                    "the period must be at least {} ({} per step: steps repeat at most once per \
                     microsecond), got {period}; leave it out for a schedule that runs once",
                    Duration(steps * MIN_PERIOD),
                    Duration(MIN_PERIOD)
                ),
            ));
        }
    }
    if schedule.steps.is_empty() {
        return Err(KeyError::new(
            format!("{at}.steps"),
            "a schedule needs at least one step, such as [{ at = \"1s\", rate = \"6Mbit\" }]",
        ));
    }
    if schedule.steps.len() > MAX_STEPS {
        return Err(KeyError::new(format!("{at}.steps"), format!("a schedule has at most {MAX_STEPS} steps")));
    }
    for (k, step) in schedule.steps.iter().enumerate() {
        let step_at = format!("{at}.steps[{k}]");
        if k > 0 && step.at.0 <= schedule.steps[k - 1].at.0 {
            return Err(KeyError::new(
                format!("{step_at}.at"),
                format!(
                    "steps must be in strictly increasing order of `at`: got \"{}\" after \"{}\" (steps[{}])",
                    step.at,
                    schedule.steps[k - 1].at,
                    k - 1
                ),
            ));
        }
        if let Some(period) = schedule.period.filter(|p| step.at.0 >= p.0) {
            return Err(KeyError::new(
                format!("{step_at}.at"),
                format!("`at` must be less than the period (\"{period}\"), got \"{}\"", step.at),
            ));
        }
        check_phy_keys(standard, &step.phy_keys())
            .map_err(|(field, message)| KeyError::new(format!("{step_at}.{field}"), message))?;
    }
    Ok(())
}
