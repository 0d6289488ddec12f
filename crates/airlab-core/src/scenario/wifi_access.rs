//! The MAC settings of a `[[wifi]]` table: A-MPDU aggregation, EDCA and its contention
//! windows, and the device layer below the qdisc when the table names none (a named one is a
//! component, [`crate::wifi::device`], checked against its declared parameters). Each check
//! names the key at fault.

use super::model::*;
use super::units::Duration;
use super::wifi::*;
use crate::wifi::device;
use crate::wifi::net::{Aggregation, Edca};

impl Standard {
    /// Aggregation of an interface that sets nothing: on, up to the Block Ack window and the
    /// longest A-MPDU, in PPDUs of at most 5.484 ms (off for 802.11a).
    pub fn default_aggregation(self) -> Aggregation {
        Aggregation {
            enabled: self != Standard::A,
            max_mpdus: self.block_ack_window(),
            max_bytes: self.max_ampdu_bytes(),
            max_duration: MAX_PPDU_DURATION,
        }
    }
}

pub(super) fn check_aggregation_keys(standard: Standard, agg: &WifiAggregation) -> Result<(), (&'static str, String)> {
    let std = standard.label();
    if standard == Standard::A {
        if agg.enabled == Some(true) {
            return Err((
                "enabled",
                "802.11a has no A-MPDU aggregation (it came with 802.11n); remove `enabled = true`".into(),
            ));
        }
        let limits = [
            ("max_mpdus", agg.max_mpdus.is_some()),
            ("max_bytes", agg.max_bytes.is_some()),
            ("max_duration", agg.max_duration.is_some()),
        ];
        if let Some((field, _)) = limits.into_iter().find(|(_, set)| *set) {
            return Err((field, format!("802.11a has no A-MPDU aggregation, so `{field}` does not apply")));
        }
        return Ok(());
    }
    if let Some(n) = agg.max_mpdus {
        let window = standard.block_ack_window();
        if !(1..=window).contains(&n) {
            return Err((
                "max_mpdus",
                format!("max_mpdus must be 1 to {window} for {std} (its Block Ack window), got {n}"),
            ));
        }
    }
    if let Some(n) = agg.max_bytes {
        let max = standard.max_ampdu_bytes();
        if !(1..=max).contains(&n) {
            return Err(("max_bytes", format!("max_bytes must be 1 to {max} for {std} (its longest A-MPDU), got {n}")));
        }
    }
    if let Some(d) = agg.max_duration {
        if d.0 == 0 || d.0 > MAX_PPDU_DURATION {
            return Err((
                "max_duration",
                format!(
                    "max_duration must be greater than 0 and at most 5.484ms (aPPDUMaxTime, the longest PPDU), got {d}"
                ),
            ));
        }
    }
    Ok(())
}

/// A contention window pair (the keys `names`, each 2^k - 1 from `least` to [`MAX_CW`],
/// ordered), missing values taken from `default`.
pub(super) fn resolve_cw(
    (cw_min, cw_max): (Option<u32>, Option<u32>),
    names: (&'static str, &'static str),
    default: (u32, u32),
    least: u32,
) -> Result<(u32, u32), (&'static str, String)> {
    for (field, cw) in [(names.0, cw_min), (names.1, cw_max)] {
        if let Some(cw) = cw {
            if !(least..=MAX_CW).contains(&cw) || !(cw + 1).is_power_of_two() {
                return Err((
                    field,
                    format!(
                        "{field} must be of the form 2^k - 1 between {least} and {MAX_CW} (such as 15, 31, 1023), got {cw}"
                    ),
                ));
            }
        }
    }
    let (min, max) = (cw_min.unwrap_or(default.0), cw_max.unwrap_or(default.1));
    if max < min {
        let (blame, note) = if cw_max.is_some() { (names.1, "") } else { (names.0, ", the default") };
        return Err((blame, format!("{} ({max}{note}) must be at least {} ({min})", names.1, names.0)));
    }
    Ok((min, max))
}

/// The keys of an EDCA contention window.
pub(super) const CW_KEYS: (&str, &str) = ("cw_min", "cw_max");

pub(super) fn resolve_edca(edca: &WifiEdca) -> Result<Edca, (&'static str, String)> {
    let d = Edca::BEST_EFFORT;
    let (cw_min, cw_max) = resolve_cw((edca.cw_min, edca.cw_max), CW_KEYS, (d.cw_min, d.cw_max), 1)?;
    let aifsn = edca.aifsn.unwrap_or(d.aifsn);
    if !(1..=MAX_AIFSN).contains(&aifsn) {
        return Err((
            "aifsn",
            format!(
                "aifsn must be 1 to {MAX_AIFSN} slots (best effort uses 3; 2 is the least for a station), got {aifsn}"
            ),
        ));
    }
    let retry_limit = edca.retry_limit.unwrap_or(d.retry_limit);
    if !(1..=MAX_RETRY_LIMIT).contains(&retry_limit) {
        return Err((
            "retry_limit",
            format!("retry_limit must be 1 to {MAX_RETRY_LIMIT} transmission attempts (default 7), got {retry_limit}"),
        ));
    }
    let txop = edca.txop.map_or(d.txop, |t| t.0);
    if txop > MAX_TXOP {
        return Err((
            "txop",
            format!("txop must be at most 8.16ms (255 x 32us; 0 for one exchange per access), got {}", Duration(txop)),
        ));
    }
    Ok(Edca { cw_min, cw_max, aifsn, retry_limit, txop })
}

/// The device layer of a network that does not name one: Linux's mac80211 layer for 802.11ax
/// (the APs of papers 000 and 001 run it), per-station queues otherwise.
pub(super) fn default_device(standard: Standard) -> device::Config {
    match standard {
        Standard::Ax => device::Config::named("mac80211"),
        _ => device::Config::named("per_station"),
    }
}
