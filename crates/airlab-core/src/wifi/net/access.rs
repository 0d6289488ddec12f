//! Channel access: a node's packets come down from its qdisc into the device queues, and a
//! node with something to send contends for the channel with EDCA (AIFS and backoff, frozen
//! while the medium is busy), or with the MU EDCA parameters after uplink OFDMA.

use super::{MuAp, WifiEvent, WifiNet};
use crate::counters::FlowStats;
use crate::sim::Time;
use crate::wifi::device::mac80211;
use crate::wifi::ofdma::MuEdca;
use serde::Serialize;

/// EDCA parameters of the access category every node uses.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Edca {
    pub cw_min: u32,
    pub cw_max: u32,
    pub aifsn: u32,
    /// Transmission attempts of a frame before it is dropped (dot11ShortRetryLimit).
    pub retry_limit: u32,
    /// TXOP limit; 0 means one frame exchange per channel access.
    pub txop: Time,
}

impl Edca {
    /// Best effort: the 802.11 default EDCA parameter set (ns-3's defaults).
    pub const BEST_EFFORT: Edca = Edca { cw_min: 15, cw_max: 1023, aifsn: 3, retry_limit: 7, txop: 0 };
}

impl WifiNet {
    /// Move packets from the qdisc into the device queues while they have room, then make
    /// sure the node contends if it has frames.
    pub(super) fn pump(&mut self, dev: u32, now: Time, flows: &mut [FlowStats]) {
        let d = &mut self.devs[dev as usize];
        d.queues.expire(now, &mut d.device_verdicts);
        while !d.queues.is_full() {
            let Some(pkt) = d.qdisc.dequeue(now, &mut d.verdicts) else {
                if !d.qdisc.is_empty() {
                    if let Some(at) = d.qdisc.next_ready() {
                        let at = at.max(now + 1);
                        if d.wake_at.is_none_or(|pending| pending > at) {
                            d.wake_at = Some(at);
                            self.events.push((at, WifiEvent::QdiscWake { dev }));
                        }
                    }
                }
                break;
            };
            d.stats.on_dequeue(&pkt, now);
            let peer = d.route.get(pkt.dst as usize).copied().flatten().expect("routes are checked at build time");
            d.queues.push(peer, pkt, now, &mut d.device_verdicts);
        }
        d.qdisc.spill(&mut d.verdicts);
        let peers = &d.peers;
        d.queues.fill(now, &mut d.device_verdicts, |peer, bytes| {
            mac80211::expected_airtime(&peers[peer as usize].txv, bytes)
        });
        d.stats.settle(&mut d.verdicts, flows, &mut self.released);
        d.stats.settle_device(&mut d.device_verdicts, flows, &mut self.released);
        self.contend(dev, now);
    }

    /// Whether a node has something to do with the channel: frames to send, or, for an AP
    /// running uplink OFDMA, stations that reported queued data.
    fn wants_channel(&self, dev: u32) -> bool {
        self.devs[dev as usize].queues.has_frames() || self.ul_ap(dev).is_some_and(MuAp::wants_uplink)
    }

    /// The OFDMA AP's state when `dev` is an AP running uplink OFDMA.
    pub(super) fn ul_ap(&self, dev: u32) -> Option<&MuAp> {
        self.mu.as_ref().filter(|mu| mu.dev == dev && mu.settings.ul.is_some())
    }

    /// A node that now wants the channel and is not contending yet starts: after AIFS if the
    /// medium is idle, otherwise after a backoff too (802.11-2020 10.23.2.2).
    pub(super) fn contend(&mut self, dev: u32, now: Time) {
        let wants = self.wants_channel(dev);
        let d = &mut self.devs[dev as usize];
        let m = &mut self.medium[dev as usize];
        if !m.pending && d.exchange.is_none() && wants {
            m.pending = true;
            m.slots = if m.is_idle(now) { 0 } else { d.rng.below(u64::from(d.cw) + 1) as u32 };
            self.schedule_access(dev, now);
        }
    }

    /// The MU EDCA parameters a station contends with at `now`, if its timer runs.
    fn mu_edca_of(&self, dev: u32, now: Time) -> Option<MuEdca> {
        let mu_edca = self.mu.as_ref()?.settings.ul?.mu_edca?;
        (now < self.devs[dev as usize].mu_edca_until).then_some(mu_edca)
    }

    /// The contention window bounds of a node at `now`: its EDCA ones, or the MU EDCA ones.
    pub(super) fn cw_bounds(&self, dev: u32, now: Time) -> (u32, u32) {
        self.mu_edca_of(dev, now).map_or((self.edca.cw_min, self.edca.cw_max), |m| (m.cw_min, m.cw_max))
    }

    /// Start (or resume) the countdown of a node that wants the channel and senses it idle,
    /// with the inter-frame spaces of its parameter set (MU EDCA's while its timer runs).
    pub(super) fn schedule_access(&mut self, dev: u32, now: Time) {
        let (ifs, off_until) = match self.mu_edca_of(dev, now) {
            Some(mu) if mu.disables_edca() => ((self.aifs, self.eifs), self.devs[dev as usize].mu_edca_until),
            Some(mu) => {
                let aifs = self.sifs + Time::from(mu.aifsn) * self.slot;
                ((aifs, self.eifs - self.aifs + aifs), 0)
            }
            None => ((self.aifs, self.eifs), 0),
        };
        let m = &mut self.medium[dev as usize];
        let physically_idle = m.busy == 0 && !m.transmitting;
        if !m.pending || m.access_at.is_some() || !physically_idle || self.devs[dev as usize].exchange.is_some() {
            return;
        }
        (m.ifs, m.edca_off_until) = (ifs, off_until);
        let at = m.access_time(now, self.slot);
        m.access_gen = m.access_gen.wrapping_add(1);
        m.access_at = Some(at);
        self.events.push((at, WifiEvent::Access { dev, gen: m.access_gen }));
    }

    pub(super) fn on_access(&mut self, dev: u32, gen: u32, now: Time) {
        let m = &mut self.medium[dev as usize];
        if m.access_gen != gen || m.access_at != Some(now) {
            return;
        }
        m.access_at = None;
        m.slots = 0;
        m.pending = false;
        if !self.wants_channel(dev) {
            return; // The post-transmission backoff ran out with nothing to send.
        }
        self.devs[dev as usize].txop_start = now;
        self.start_exchange(dev, now);
    }
}
