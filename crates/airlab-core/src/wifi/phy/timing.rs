//! The PHY-dependent MAC timing: slot, SIFS and the inter-frame spaces built from them.

use super::{TxVector, ACK_BYTES};
use crate::sim::{Time, US};

/// Slot and SIFS of a band (aSlotTime, aSIFSTime), and the signal extension its OFDM PPDUs end
/// with. EDCA waits AIFS = SIFS + AIFSN × slot, then counts backoff slots.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MacTiming {
    pub slot: Time,
    pub sifs: Time,
    /// Idle time after every OFDM-based PPDU (ERP-OFDM, HT, HE) in the 2.4 GHz band, which
    /// gives the convolutional decoder the 16 µs a 5 GHz receiver gets from SIFS; 0 at 5 GHz.
    pub signal_extension: Time,
}

impl MacTiming {
    /// OFDM at 5 GHz in 20 MHz channels (802.11-2020 Table 17-21): 9 µs slot, 16 µs SIFS.
    pub const fn ofdm_5ghz() -> Self {
        MacTiming { slot: 9 * US, sifs: 16 * US, signal_extension: 0 }
    }

    /// ERP-OFDM and HT at 2.4 GHz with the short slot (every station in the BSS is ERP): 9 µs
    /// slot, 10 µs SIFS and a 6 µs signal extension. With 802.11b stations present the slot is
    /// 20 µs (the long slot), which this constructor does not model.
    pub const fn erp_2_4ghz() -> Self {
        MacTiming { slot: 9 * US, sifs: 10 * US, signal_extension: 6 * US }
    }

    /// DIFS = SIFS + 2 slots: 34 µs at 5 GHz.
    pub const fn difs(&self) -> Time {
        self.aifs(2)
    }

    /// An access category's AIFS = SIFS + AIFSN × slot: BE (AIFSN 3) 43 µs, BK (7) 79 µs, VI and
    /// VO (2) 34 µs at 5 GHz.
    pub const fn aifs(&self, aifsn: u8) -> Time {
        self.sifs + aifsn as Time * self.slot
    }

    /// EIFS = SIFS + ACK airtime at `lowest_basic` (6 Mbit/s unless the BSS's basic rate set
    /// says otherwise) + DIFS: 94 µs at 5 GHz. The deferral after a frame received in error;
    /// an EDCA function waits EIFS − DIFS + its own AIFS instead.
    pub fn eifs(&self, lowest_basic: &TxVector) -> Time {
        self.sifs + self.airtime(lowest_basic, ACK_BYTES) + self.difs()
    }

    /// How long a PPDU of `psdu_bytes` holds the medium in this band: its
    /// [`TxVector::ppdu_duration`] plus the signal extension.
    pub fn airtime(&self, tx: &TxVector, psdu_bytes: u32) -> Time {
        tx.ppdu_duration(psdu_bytes) + self.signal_extension
    }
}
