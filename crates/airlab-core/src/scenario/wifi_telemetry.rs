//! A BSS's `airtime_telemetry`: the AP's airtime table, its timeslot and the stations'
//! setpoints.

use super::limits::{MAX_TELEMETRY_HEADER, MAX_TIMESLOT, MIN_PERIOD};
use super::model::*;
use super::units::Duration;
use super::wifi::*;
use super::KeyError;
use crate::sim::Time;
use crate::wifi::telemetry::Timeslot;

/// `airtime_telemetry`: a BSS's AP accounts its stations; shares and setpoints are fractions
/// of the timeslot, setpoints name stations of the BSS.
pub(super) fn resolve_telemetry(key: &str, w: &Wifi, t: &WifiTelemetry) -> Result<ResolvedTelemetry, KeyError> {
    let at = |field: &str| format!("{key}.airtime_telemetry{field}");
    if w.ap.is_none() {
        return Err(KeyError::new(at(""), "needs a BSS: only an AP keeps an airtime table; set `ap`"));
    }
    let fraction = |field: &str, x: f64| {
        if x > 0.0 && x <= 1.0 {
            Ok(x)
        } else {
            Err(KeyError::new(at(field), format!("must be a fraction of the timeslot in (0, 1], not {x}")))
        }
    };
    // The AP closes a timeslot at most once per `MIN_PERIOD` (the computed one is clamped the
    // same way), and packets carry it in 32 bits of microseconds.
    let slot_length = |field: &str, ts: Time| {
        if (MIN_PERIOD..=MAX_TIMESLOT).contains(&ts) {
            return Ok(ts);
        }
        Err(KeyError::new(
            at(field),
            format!(
                "must be {} to {} (a timeslot closes at most once per {}, and packets carry it in 32 bits of \
                 microseconds), got {}",
                Duration(MIN_PERIOD),
                Duration(MAX_TIMESLOT),
                Duration(MIN_PERIOD),
                Duration(ts)
            ),
        ))
    };
    let timeslot = match (t.timeslot, t.timeslot_scale, t.initial_timeslot) {
        (Some(Duration(ts)), None, None) => Timeslot::Fixed(slot_length(".timeslot", ts)?),
        (Some(_), _, _) => {
            return Err(KeyError::new(
                at(".timeslot"),
                "a fixed timeslot takes no `timeslot_scale` or `initial_timeslot` (they shape the computed one); remove one",
            ))
        }
        (None, scale, initial) => {
            let scale = scale.unwrap_or(1.0);
            if !(scale.is_finite() && scale > 0.0) {
                return Err(KeyError::new(at(".timeslot_scale"), format!("must be a number > 0, not {scale}")));
            }
            let initial = initial.map_or(ResolvedTelemetry::DEFAULT_INITIAL_TIMESLOT, |d| d.0);
            Timeslot::Auto { scale, initial: slot_length(".initial_timeslot", initial)? }
        }
    };
    let share = fraction(".share", t.share.unwrap_or(ResolvedTelemetry::DEFAULT_SHARE))?;
    let stations = w.stations.as_deref().unwrap_or_default();
    let mut setpoints = Vec::new();
    for (host, &sp) in t.setpoints.iter().flatten() {
        if !stations.contains(host) {
            return Err(KeyError::new(
                at(&format!(".setpoints.{host}")),
                format!("\"{host}\" is not a station of this BSS (stations: {})", stations.join(", ")),
            ));
        }
        setpoints.push((host.clone(), fraction(&format!(".setpoints.{host}"), sp)?));
    }
    let idle = t.idle.map_or(ResolvedTelemetry::DEFAULT_IDLE, |d| d.0);
    if idle == 0 {
        return Err(KeyError::new(at(".idle"), "must be longer than 0"));
    }
    let header_bytes = t.header_bytes.unwrap_or(0);
    if header_bytes > MAX_TELEMETRY_HEADER {
        return Err(KeyError::new(
            at(".header_bytes"),
            format!(
                "must be at most {MAX_TELEMETRY_HEADER} bytes (the largest IPv6 extension header, RFC 8200), \
                 got {header_bytes}"
            ),
        ));
    }
    Ok(ResolvedTelemetry { airtime: t.airtime.unwrap_or_default(), timeslot, share, setpoints, idle, header_bytes })
}
