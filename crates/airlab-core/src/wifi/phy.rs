//! 802.11 PHY: data rates and PPDU durations for non-HT OFDM, HT, VHT and HE.
