//! Downlink OFDMA at an access point: which stations share the next HE MU PPDU, the resource
//! units they get, the A-MPDU each carries, and the durations of the MU-BAR trigger and the
//! trigger-based Block Acks that acknowledge it. The exchange itself (sending, the
//! acknowledgements on the air, retries) is in [`crate::wifi::net`].
//!
//! The stations with frames, in the device layer's service order, go to the BSS's scheduler
//! ([`super::sched`]; by default ns-3's round robin: the first `max_stations`), and those it
//! picks each get an equal RU ([`RuAllocation::equal`]). With one station to serve the AP
//! sends an SU PPDU.

use super::sched::{Eligible, MuScheduler, Served};
use super::Ofdma;
use crate::sim::Time;
use crate::wifi::aggregation::Aggregation;
use crate::wifi::device::queues::DeviceQueues;
use crate::wifi::link::Peer;
use crate::wifi::mpdu::Mpdu;
use crate::wifi::phy::mu::{self, RuAllocation};
use crate::wifi::phy::{self, TxVector};

/// A DL MU PPDU about to be sent: each station's frames, and the durations of the exchange.
pub struct DlMuPlan {
    /// (peer, frames) per station, in the scheduler's order.
    pub users: Vec<(u16, Vec<Mpdu>)>,
    pub alloc: RuAllocation,
    /// The HE MU PPDU.
    pub data_dur: Time,
    /// The MU-BAR trigger the AP sends a SIFS after it.
    pub bar_dur: Time,
    /// The stations' Block Acks in HE TB PPDUs, sent together a SIFS after the trigger.
    pub tb_dur: Time,
}

/// Plan the AP's next DL MU PPDU from the frames queued in `queues` for `peers`, with the
/// stations `scheduler` picks; `None` when fewer than two stations have frames (the AP then
/// sends an SU PPDU).
pub fn plan_dl_mu(
    queues: &mut DeviceQueues,
    peers: &[Peer],
    agg: Aggregation,
    ofdma: &Ofdma,
    scheduler: &mut dyn MuScheduler,
) -> Option<DlMuPlan> {
    let eligible: Vec<Eligible> = queues
        .mu_candidates()
        .into_iter()
        .map(|peer| Eligible { peer, rate_bps: peers[peer as usize].txv().rate_bps() })
        .collect();
    if eligible.len() < 2 {
        return None;
    }
    let candidates = scheduler.pick(&eligible, ofdma.max_stations);
    let width = peers[candidates[0] as usize].txv().width_mhz;
    let alloc = RuAllocation::equal(width, candidates.len());
    let served = &candidates[..alloc.count];
    let vectors: Vec<TxVector> = served.iter().map(|&p| peers[p as usize].txv().with_ru(alloc.tones)).collect();
    // Every user's data field must end within the PPDU limit after the common preamble.
    let data_limit = agg.max_duration.saturating_sub(mu::he_mu_preamble(&alloc, &vectors));
    let window = phy::Format::He.block_ack_window().expect("HE has Block Ack") as usize;
    let max = if agg.enabled { (agg.max_mpdus as usize).min(window) } else { 1 };
    let mut users = Vec::with_capacity(served.len());
    let mut psdus = Vec::with_capacity(served.len());
    for (&peer, &txv) in served.iter().zip(&vectors) {
        // The A-MPDU's length as it grows; a lone MPDU of an HE MU PPDU is an A-MPDU too (an
        // S-MPDU, with its delimiter).
        let mut psdu = 0u32;
        let mpdus = queues.take(peer, max, |taken, next| {
            let more = phy::ampdu_append(psdu, phy::mpdu_bytes(next.pkt.size));
            let fits = taken.is_empty() || (more <= agg.max_bytes && txv.data_duration(more) <= data_limit);
            if fits {
                psdu = more;
            }
            fits
        });
        psdus.push((txv, psdu));
        users.push((peer, mpdus));
    }
    let charged: Vec<Served> = users
        .iter()
        .zip(&psdus)
        .map(|(&(peer, _), &(txv, psdu))| Served { peer, bits: 8 * u64::from(psdu), airtime: txv.data_duration(psdu) })
        .collect();
    scheduler.served(&charged);
    let data_dur = mu::he_mu_ppdu_duration(&alloc, &psdus);
    let bar_dur = TxVector::non_ht(6).ppdu_duration(mu::frames::mu_bar_bytes(users.len()));
    let tb_dur = vectors.iter().map(|txv| tb_block_ack_duration(txv, window as u16)).max().unwrap_or(0);
    Some(DlMuPlan { users, alloc, data_dur, bar_dur, tb_dur })
}

/// A station's Block Ack in an HE TB PPDU on its RU: at the DL MCS but at most 5, with a
/// guard interval of at least 1.6 µs (ns-3 `WifiDefaultAckManager`, `MaxBlockAckMcs`).
fn tb_block_ack_duration(dl: &TxVector, window: u16) -> Time {
    let gi = dl.gi_ns.max(1600);
    let txv = TxVector::he(dl.mcs.min(5), dl.nss, dl.width_mhz, gi).with_ru(dl.ru_tones.expect("an RU vector"));
    txv.ppdu_duration(phy::block_ack_bytes(window))
}
