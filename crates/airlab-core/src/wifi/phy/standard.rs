//! The 802.11 amendments a Wi-Fi network may run ([`Standard`]) and what each allows of a
//! link's PHY ([`PhySpec`]): its rates or MCS, channel widths, guard intervals and spatial
//! streams ([`check_phy`]), its aggregation limits, and the bounds of the EDCA fields.
//!
//! Each standard's PHY is a [`Format`] ([`Standard::format`]): 802.11a non-HT OFDM, 802.11n HT,
//! 802.11ac VHT, 802.11ax HE; the limits both describe are kept once, in [`Format`].

use super::Format;
use crate::sim::{spell, Time, DURATION_UNITS, RATE_UNITS, US};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The 802.11 amendment a network runs: it picks the PHY format, the timing and the
/// aggregation limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Standard {
    /// 802.11a: non-HT OFDM, 6-54 Mbit/s, no aggregation.
    A,
    /// 802.11n: HT, MCS 0-31.
    N,
    /// 802.11ac: VHT.
    Ac,
    /// 802.11ax: HE.
    Ax,
}

/// The PHY settings of one directed link, as written (checked against the standard).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PhySpec {
    /// Non-HT rate in bit/s (802.11a only; 0 otherwise).
    pub rate_bps: u64,
    pub mcs: u8,
    pub nss: u8,
    pub width_mhz: u16,
    pub gi_ns: u16,
}

/// Non-HT (802.11a) rates in Mbit/s.
pub const A_RATES_MBIT: [u64; 8] = [6, 9, 12, 18, 24, 36, 48, 54];
/// aPPDUMaxTime: the longest HT-mixed, VHT or HE PPDU (the PHY model's [`super::PPDU_MAX_TIME`]).
pub const MAX_PPDU_DURATION: Time = super::PPDU_MAX_TIME;
/// The largest contention window the 4-bit ECWmin/ECWmax fields express (2^15 - 1).
pub const MAX_CW: u32 = 32_767;
/// The largest AIFSN (a 4-bit field).
pub const MAX_AIFSN: u32 = 15;
/// dot11ShortRetryLimit is 1 to 255.
pub const MAX_RETRY_LIMIT: u32 = 255;
/// The TXOP limit field counts units of 32 us in 8 bits.
pub const MAX_TXOP: Time = 255 * 32 * US;

impl Standard {
    /// The PPDU format of the standard's own PHY clause.
    pub fn format(self) -> Format {
        match self {
            Standard::A => Format::NonHt,
            Standard::N => Format::Ht,
            Standard::Ac => Format::Vht,
            Standard::Ax => Format::He,
        }
    }

    /// "802.11n", for messages.
    pub fn label(self) -> &'static str {
        match self {
            Standard::A => "802.11a",
            Standard::N => "802.11n",
            Standard::Ac => "802.11ac",
            Standard::Ax => "802.11ax",
        }
    }

    /// MPDUs a Block Ack agreement covers: the most one A-MPDU may carry (1 for 802.11a,
    /// which does not aggregate).
    pub fn block_ack_window(self) -> u32 {
        self.format().block_ack_window().map_or(1, u32::from)
    }

    /// The longest A-MPDU in bytes (for 802.11a, the longest PSDU: aPSDUMaxLength, 4095).
    pub fn max_ampdu_bytes(self) -> u32 {
        let format = self.format();
        format.max_ampdu_bytes().unwrap_or_else(|| format.max_psdu_bytes())
    }

    /// The PHY of a link that sets nothing: 54 Mbit/s for 802.11a, else MCS 7, one spatial
    /// stream, 20 MHz, 800 ns guard interval.
    pub fn default_phy(self) -> PhySpec {
        let rate_bps = if self == Standard::A { 54_000_000 } else { 0 };
        let mcs = if self == Standard::A { 0 } else { 7 };
        PhySpec { rate_bps, mcs, nss: 1, width_mhz: 20, gi_ns: 800 }
    }

    /// The fastest PHY of one stream at 20 MHz: what ideal rate control may pick from when
    /// no `mcs` or `rate` caps it.
    pub fn fastest_phy(self) -> PhySpec {
        let d = self.default_phy();
        match self {
            Standard::A => PhySpec { rate_bps: 54_000_000, ..d },
            Standard::N => PhySpec { mcs: 7, ..d },
            Standard::Ac | Standard::Ax => PhySpec { mcs: self.max_mcs(), ..d },
        }
    }

    fn widths(self) -> &'static [u16] {
        match self {
            Standard::A => &[20],
            Standard::N => &[20, 40],
            Standard::Ac | Standard::Ax => &[20, 40, 80, 160],
        }
    }

    fn guard_intervals_ns(self) -> &'static [u64] {
        match self {
            Standard::A => &[800],
            Standard::N | Standard::Ac => &[800, 400],
            Standard::Ax => &[800, 1600, 3200],
        }
    }

    fn max_mcs(self) -> u8 {
        match self {
            Standard::A => 0,
            Standard::N => 31,
            Standard::Ac => 9,
            Standard::Ax => 11,
        }
    }
}

/// Checks a directed link's PHY against its standard: every value in range, and a valid
/// combination. On error, the PHY key to blame (`rate`, `mcs`, `width`, `gi`, `nss`) and what
/// was expected. Combinations are blamed on `mcs`, the key most often changed.
pub fn check_phy(standard: Standard, phy: &PhySpec) -> Result<(), (&'static str, String)> {
    let std = standard.label();
    if standard == Standard::A {
        check_rate(standard, phy.rate_bps).map_err(|m| ("rate", m))?;
        if phy.mcs != 0 {
            return Err(("mcs", format!("{std} has no MCS (it is 0 in the resolved PHY), got {}", phy.mcs)));
        }
    } else {
        if phy.rate_bps != 0 {
            return Err(("rate", format!("{std} sets `mcs`, not a non-HT rate (0 in the resolved PHY)")));
        }
        check_mcs(standard, phy.mcs).map_err(|m| ("mcs", m))?;
    }
    check_width(standard, phy.width_mhz).map_err(|m| ("width", m))?;
    check_gi(standard, u64::from(phy.gi_ns)).map_err(|m| ("gi", m))?;
    match standard {
        Standard::A if phy.nss != 1 => {
            return Err(("nss", format!("{std} sends one spatial stream, got nss = {}", phy.nss)))
        }
        Standard::N if phy.nss != phy.mcs / 8 + 1 => {
            return Err((
                "nss",
                format!(
                    "HT MCS {} has {} spatial stream(s) (nss = mcs / 8 + 1), got nss = {}",
                    phy.mcs,
                    phy.mcs / 8 + 1,
                    phy.nss
                ),
            ))
        }
        Standard::Ac | Standard::Ax => check_nss(standard, phy.nss).map_err(|m| ("nss", m))?,
        _ => {}
    }
    if standard == Standard::Ac {
        check_vht_combination(phy).map_err(|m| ("mcs", m))?;
    }
    Ok(())
}

/// 802.11ac leaves out the MCS, width and stream combinations whose bits do not divide evenly
/// among OFDM symbols and encoders (IEEE 802.11-2016, 21.5).
fn check_vht_combination(phy: &PhySpec) -> Result<(), String> {
    let (mcs, width, nss) = (phy.mcs, phy.width_mhz, phy.nss);
    let valid = match (mcs, width) {
        (9, 20) => nss == 3 || nss == 6,
        (6, 80) => nss != 3 && nss != 7,
        (9, 80) => nss != 6,
        (9, 160) => nss != 3,
        _ => true,
    };
    if valid {
        return Ok(());
    }
    let hint = if (mcs, width) == (9, 20) { " (at 20 MHz, MCS 9 needs nss = 3 or 6)" } else { "" };
    Err(format!(
        "VHT MCS {mcs} is not defined at {width} MHz with {nss} spatial stream(s){hint}; \
         choose another MCS, width or nss"
    ))
}

pub(crate) fn check_rate(standard: Standard, bps: u64) -> Result<(), String> {
    if bps.is_multiple_of(1_000_000) && A_RATES_MBIT.contains(&(bps / 1_000_000)) {
        return Ok(());
    }
    let rates = A_RATES_MBIT.map(|r| r.to_string()).join(", ");
    Err(format!("{} rates are {rates} Mbit/s, got {}", standard.label(), spell(bps, RATE_UNITS)))
}

pub(crate) fn check_mcs(standard: Standard, mcs: u8) -> Result<(), String> {
    let max = standard.max_mcs();
    if mcs <= max {
        return Ok(());
    }
    let streams = if standard == Standard::N { " (0-7: 1 spatial stream, 8-15: 2, 16-23: 3, 24-31: 4)" } else { "" };
    Err(format!("mcs must be 0 to {max} for {}{streams}, got {mcs}", standard.label()))
}

pub(crate) fn check_width(standard: Standard, width: u16) -> Result<(), String> {
    let widths = standard.widths();
    if widths.contains(&width) {
        return Ok(());
    }
    let list = widths.iter().map(u16::to_string).collect::<Vec<_>>().join(" or ");
    Err(format!("width must be {list} (MHz) for {}, got {width}", standard.label()))
}

pub(crate) fn check_gi(standard: Standard, gi_ns: u64) -> Result<(), String> {
    let gis = standard.guard_intervals_ns();
    if gis.contains(&gi_ns) {
        return Ok(());
    }
    let list = gis.iter().map(|g| format!("\"{g}ns\"")).collect::<Vec<_>>().join(" or ");
    Err(format!("gi must be {list} for {}, got \"{}\"", standard.label(), spell(gi_ns, DURATION_UNITS)))
}

pub(crate) fn check_nss(standard: Standard, nss: u8) -> Result<(), String> {
    if (1..=8).contains(&nss) {
        return Ok(());
    }
    Err(format!("nss must be 1 to 8 spatial streams for {}, got {nss}", standard.label()))
}
