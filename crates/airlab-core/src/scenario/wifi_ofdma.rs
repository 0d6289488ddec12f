//! 802.11ax multi-user settings of a BSS: `ofdma` and its scheduler, uplink OFDMA with
//! random access (`uora`) and the MU EDCA parameters of triggered stations (`mu_edca`).

use super::components;
use super::model::*;
use super::units::Duration;
use super::wifi::*;
use super::wifi_access::{resolve_cw, CW_KEYS};
use super::KeyError;
use crate::sim::{Time, US};
use crate::wifi::ofdma::{sched, MuEdca, Ofdma, UlOfdma, Uora};

/// The range of `ofdma_poll_interval`.
const MIN_POLL_INTERVAL: Time = 1_000 * US;
const MAX_POLL_INTERVAL: Time = 10_000_000 * US;

/// `ofdma` and its settings: OFDMA needs an 802.11ax BSS with an AP. `ofdma_stations` is
/// checked whenever given, and refused without any `ofdma` key (it would do nothing); the
/// uplink settings (`ofdma_bsrp`, `ofdma_poll_interval`, `mu_edca`) likewise need an `ofdma` key allowing the uplink.
/// With `ofdma = "off"` they stay unused, so that a sweep can turn OFDMA off.
pub(super) fn resolve_ofdma(key: &str, w: &Wifi) -> Result<Option<Ofdma>, KeyError> {
    let max_stations = w.ofdma_stations.map_or(Ofdma::DEFAULT_MAX_STATIONS, |n| n as usize);
    // With random access only, an AP may schedule nobody: every RU is an RA-RU.
    let least = if w.uora.is_some() && w.ofdma == Some(OfdmaMode::Ul) { 0 } else { 1 };
    if !(least..=Ofdma::MAX_STATIONS).contains(&max_stations) {
        let message = format!(
            "must be {least} to {} stations (the RUs of a channel; 0 only for uplink random access), not {max_stations}",
            Ofdma::MAX_STATIONS
        );
        return Err(KeyError::new(format!("{key}.ofdma_stations"), message));
    }
    let uora = sub_table(key, "uora", w.uora.as_ref(), resolve_uora)?;
    let mu_edca = sub_table(key, "mu_edca", w.mu_edca.as_ref(), resolve_mu_edca)?;
    let uplink_keys = [
        ("ofdma_bsrp", w.ofdma_bsrp.is_some()),
        ("ofdma_poll_interval", w.ofdma_poll_interval.is_some()),
        ("mu_edca", w.mu_edca.is_some()),
        ("uora", w.uora.is_some()),
    ];
    let poll_interval = w.ofdma_poll_interval.map(|d| d.0);
    if let Some(interval) = poll_interval.filter(|t| !(MIN_POLL_INTERVAL..=MAX_POLL_INTERVAL).contains(t)) {
        let message = format!("must be 1ms to 10s, got {}", Duration(interval));
        return Err(KeyError::new(format!("{key}.ofdma_poll_interval"), message));
    }
    let mode = match w.ofdma {
        None => {
            let given =
                [("ofdma_stations", w.ofdma_stations.is_some()), ("ofdma_scheduler", w.ofdma_scheduler.is_some())]
                    .into_iter()
                    .chain(uplink_keys);
            if let Some((name, _)) = given.into_iter().find(|&(_, set)| set) {
                let message = format!("`{name}` needs an `ofdma` key (\"dl\", \"ul\" or \"both\")");
                return Err(KeyError::new(format!("{key}.{name}"), message));
            }
            return Ok(None);
        }
        Some(OfdmaMode::Off) => return Ok(None),
        Some(mode) => mode,
    };
    if w.standard != Standard::Ax {
        let message = format!("OFDMA is 802.11ax's; this network is {}", w.standard.label());
        return Err(KeyError::new(format!("{key}.ofdma"), message));
    }
    if w.ap.is_none() {
        let message = "OFDMA is scheduled by an AP: give the network `ap` and `stations`";
        return Err(KeyError::new(format!("{key}.ofdma"), message));
    }
    let uplink = matches!(mode, OfdmaMode::Ul | OfdmaMode::Both);
    if !uplink {
        if let Some((name, _)) = uplink_keys.into_iter().find(|&(_, set)| set) {
            let message = format!("`{name}` sets up uplink OFDMA: it needs `ofdma = \"ul\"` or `\"both\"`");
            return Err(KeyError::new(format!("{key}.{name}"), message));
        }
    }
    let ul = uplink.then(|| UlOfdma { bsrp: w.ofdma_bsrp.unwrap_or(true), mu_edca, poll_interval, uora });
    let dl = matches!(mode, OfdmaMode::Dl | OfdmaMode::Both);
    let scheduler = match &w.ofdma_scheduler {
        Some(written) => components::name_or_table::<sched::Build>(written, &format!("{key}.ofdma_scheduler"))?,
        None => sched::Config::named(sched::DEFAULT),
    };
    Ok(Some(Ofdma { max_stations, dl, ul, scheduler }))
}

/// The sub-table `name` of the network at `key`, if given, through `resolve`; its errors name
/// their key below it.
fn sub_table<T, R>(
    key: &str,
    name: &str,
    table: Option<&T>,
    resolve: fn(&T) -> Result<R, (&'static str, String)>,
) -> Result<Option<R>, KeyError> {
    table.map(resolve).transpose().map_err(|(field, message)| KeyError::new(format!("{key}.{name}.{field}"), message))
}

/// The `uora` table: 1 to 74 RA-RUs (at most the RUs of a channel) and an OFDMA contention
/// window (OCW, 2^k - 1 up to 127: the UORA Parameter Set's 3-bit exponents).
fn resolve_uora(t: &WifiUora) -> Result<Uora, (&'static str, String)> {
    let ra_rus = t.ra_rus.map_or(1, |n| n as usize);
    if !(1..=Ofdma::MAX_STATIONS).contains(&ra_rus) {
        return Err(("ra_rus", format!("ra_rus must be 1 to {} RUs, got {ra_rus}", Ofdma::MAX_STATIONS)));
    }
    let (ocw_min, ocw_max) = resolve_cw((t.ocw_min, t.ocw_max), ("ocw_min", "ocw_max"), Uora::DEFAULT_OCW, 0)?;
    if ocw_max > MAX_OCW {
        return Err(("ocw_max", format!("ocw_max must be at most {MAX_OCW} (2^7 - 1), got {ocw_max}")));
    }
    Ok(Uora { ra_rus, ocw_min, ocw_max })
}

/// The largest OFDMA contention window a UORA Parameter Set can announce.
const MAX_OCW: u32 = 127;

/// The `mu_edca` table: AIFSN 0 (EDCA off while the timer runs) or 2 to 15, contention
/// windows as for EDCA (0 allowed), and a timer of 1 to 255 units of 8 TU (8.192 ms).
fn resolve_mu_edca(t: &WifiMuEdca) -> Result<MuEdca, (&'static str, String)> {
    let d = MuEdca::OPENWRT_BEST_EFFORT;
    let (cw_min, cw_max) = resolve_cw((t.cw_min, t.cw_max), CW_KEYS, (d.cw_min, d.cw_max), 0)?;
    let aifsn = t.aifsn.unwrap_or(d.aifsn);
    if aifsn == 1 || aifsn > MAX_AIFSN {
        let message = format!("aifsn must be 0 (EDCA disabled while the timer runs) or 2 to {MAX_AIFSN}, got {aifsn}");
        return Err(("aifsn", message));
    }
    let timer = t.timer.map_or(d.timer, |t| t.0);
    let unit = MuEdca::TIMER_UNIT;
    if timer == 0 || !timer.is_multiple_of(unit) || timer > 255 * unit {
        let message =
            format!("timer must be 1 to 255 units of 8.192ms (8 TU), up to 2088.96ms, got {}", Duration(timer));
        return Err(("timer", message));
    }
    Ok(MuEdca { aifsn, cw_min, cw_max, timer })
}
