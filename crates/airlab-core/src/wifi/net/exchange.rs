//! The frame exchange: once a node has the channel it plans what to send (an SU A-MPDU or
//! frame, or an HE MU PPDU from an OFDMA AP), sends it (behind RTS/CTS if asked), and each
//! transmission goes on the air and ends, locking, corrupting and freeing the receivers that
//! hear it; within a TXOP the next exchange follows a SIFS after the response.

use super::{Exchange, Frame, Part, Pending, Stage, Tx, WifiDev, WifiEvent, WifiNet, GROUP};
use crate::counters::FlowStats;
use crate::sim::Time;
use crate::wifi::ofdma;
use crate::wifi::phy;

/// The frames of an exchange about to start and the durations it needs.
struct Plan {
    /// One destination's frames, or one per station of an HE MU PPDU.
    parts: Vec<Part>,
    data_dur: Time,
    /// The MU-BAR trigger after an HE MU PPDU, and each station's RU tones.
    mu_bar: Option<Time>,
    ru_tones: u16,
    resp: Frame,
    resp_dur: Time,
    /// RTS and CTS durations when the exchange is protected.
    protection: Option<(Time, Time)>,
}

impl Plan {
    /// From the first frame to the end of the response.
    fn airtime(&self, sifs: Time) -> Time {
        let protect = self.protection.map_or(0, |(rts, cts)| rts + sifs + cts + sifs);
        let trigger = self.mu_bar.map_or(0, |bar| bar + sifs);
        protect + self.data_dur + sifs + trigger + self.resp_dur
    }
}

impl WifiNet {
    /// Start an exchange with the frames of the next destination, or, for an AP running
    /// uplink OFDMA whose turn it is, a trigger cycle.
    pub(super) fn start_exchange(&mut self, dev: u32, now: Time) {
        let has_frames = self.devs[dev as usize].queues.has_frames();
        if let Some(mu) = self.mu.as_mut().filter(|mu| mu.dev == dev && mu.settings.ul.is_some()) {
            // Uplink when stations have data (or a poll is due) and the downlink has nothing or
            // had the last turn.
            let uplink = mu.wants_uplink() && (!has_frames || !mu.ul.last_was_ul);
            mu.ul.last_was_ul = uplink;
            if uplink {
                return self.start_ul_cycle(now);
            }
        }
        let plan = self.plan_exchange(dev);
        self.begin_exchange(dev, plan, now, now);
    }

    /// Take the frames of the next exchange from the device queues: an HE MU PPDU when the
    /// node is an OFDMA AP with frames for several stations, otherwise the next destination's
    /// frames, greedily as paper 002's scheduler (what is queued now, up to the aggregation
    /// limits); and work out the durations of the exchange.
    fn plan_exchange(&mut self, dev: u32) -> Plan {
        if let Some(ap) = self.mu.as_mut().filter(|mu| mu.dev == dev && mu.settings.dl) {
            let d = &mut self.devs[dev as usize];
            let scheduler = ap.dl_scheduler.as_mut();
            if let Some(mu) = ofdma::dl::plan_dl_mu(&mut d.queues, &d.peers, d.aggregation, &ap.settings, scheduler) {
                let mut parts = std::mem::take(&mut d.spare_parts);
                let tones = mu.alloc.tones;
                parts.extend(mu.users.into_iter().map(|(peer, mpdus)| {
                    let p = &d.peers[peer as usize];
                    Part::new(peer, mpdus, p.reception(&p.txv.with_ru(tones), false))
                }));
                return Plan {
                    parts,
                    data_dur: mu.data_dur,
                    mu_bar: Some(mu.bar_dur),
                    ru_tones: mu.alloc.tones,
                    resp: Frame::TbBlockAck,
                    resp_dur: mu.tb_dur,
                    // MU-RTS is not modelled: an HE MU PPDU goes unprotected, as ns-3's default.
                    protection: None,
                };
            }
        }
        let d = &mut self.devs[dev as usize];
        let peer = d.queues.next_peer().expect("a node with frames has a destination to serve");
        let p = &d.peers[peer as usize];
        let (txv, basic, agg) = (p.txv, p.basic, d.aggregation);
        let max = if agg.enabled { agg.max_mpdus as usize } else { 1 };
        let mut psdu = 0u32;
        // The largest A-MPDU the limits allow: a PPDU's duration grows with its PSDU, so the
        // longest one within `max_duration` is a byte bound, worked out once per exchange.
        let max_psdu = agg.max_bytes.min(txv.psdu_bytes_within(agg.max_duration));
        let mpdus = d.queues.take(peer, max, |taken, next| {
            let sub = phy::ampdu_subframe_bytes(phy::mpdu_bytes(next.pkt.size));
            if taken.is_empty() {
                psdu = sub;
                return true;
            }
            let more = psdu + sub;
            let fits = more <= max_psdu;
            if fits {
                psdu = more;
            }
            fits
        });
        if mpdus.len() == 1 {
            psdu = phy::mpdu_bytes(mpdus[0].pkt.size);
        }
        let ba_window = txv.format.block_ack_window().unwrap_or(64);
        let (resp, resp_dur) = if mpdus.len() > 1 {
            (Frame::BlockAck, phy::block_ack_duration(&basic, ba_window))
        } else {
            (Frame::Ack, phy::ack_duration(&basic))
        };
        let protection = if self.rts { Some((phy::rts_duration(&basic), phy::cts_duration(&basic))) } else { None };
        let data_dur = txv.ppdu_duration(psdu);
        let mut part = Part::new(peer, mpdus, d.peers[peer as usize].reception(&txv, false));
        let to_ul_ap =
            self.mu.as_ref().is_some_and(|mu| mu.settings.ul.is_some() && mu.dev == d.peers[peer as usize].dev);
        if to_ul_ap {
            part.report = ofdma::queue_size_report(d.queues.queued_psdu_bytes(peer, ofdma::MAX_QUEUE_REPORT).into());
        }
        let mut parts = std::mem::take(&mut d.spare_parts);
        parts.push(part);
        Plan { parts, data_dur, mu_bar: None, ru_tones: 0, resp, resp_dur, protection }
    }

    /// Make `plan` the node's exchange and send its first frame at `at` (now, or a SIFS after
    /// the previous exchange of a TXOP).
    fn begin_exchange(&mut self, dev: u32, mut plan: Plan, at: Time, now: Time) {
        let d = &mut self.devs[dev as usize];
        let (sifs, data_dur, resp_dur) = (self.sifs, plan.data_dur, plan.resp_dur);
        let trigger = plan.mu_bar.map_or(0, |bar| bar + sifs);
        for m in plan.parts.iter_mut().flat_map(|part| part.mpdus.iter_mut()) {
            m.attempts += 1;
        }
        let parts = plan.parts;
        let (to, frame) = match plan.mu_bar {
            Some(_) => (GROUP, Frame::MuData),
            None => (d.peers[parts[0].peer as usize].dev, Frame::Data),
        };
        d.exchange = Some(Exchange {
            parts,
            data_dur,
            mu_bar: plan.mu_bar,
            ru_tones: plan.ru_tones,
            responders: Vec::new(),
            ul: None,
            resp: plan.resp,
            resp_dur,
            stage: if plan.protection.is_some() { Stage::AwaitCts } else { Stage::AwaitResponse },
            started: at,
            tx_end: at,
            timeout_gen: 0,
        });
        let first = match plan.protection {
            Some((rts, cts)) => {
                let nav_until = at + rts + sifs + cts + sifs + data_dur + sifs + resp_dur;
                Pending { to, frame: Frame::Rts, dur: rts, nav_until, resp_dur: cts }
            }
            None => {
                let nav_until = at + data_dur + sifs + trigger + resp_dur;
                Pending { to, frame, dur: data_dur, nav_until, resp_dur }
            }
        };
        if at == now {
            self.start_tx(dev, first, now);
        } else {
            self.devs[dev as usize].response = Some(first);
            self.events.push((at, WifiEvent::Respond { dev }));
        }
    }

    /// The nodes sending a `frame` to `dst` alongside its sender: the other responders of an
    /// HE TB PPDU (the first is the sender), none otherwise.
    fn co_senders(devs: &[WifiDev], frame: Frame, dst: u32) -> &[u32] {
        match (frame, devs.get(dst as usize).and_then(|d| d.exchange.as_ref())) {
            (Frame::TbBlockAck | Frame::TbBsr | Frame::TbData, Some(ex)) => &ex.responders[1..],
            _ => &[],
        }
    }

    /// Who hears a transmission of `src` and `also` (the other HE TB responders): `src`'s
    /// hearers, or the union of theirs less the senders, built in `scratch`.
    fn audience<'a>(hears: &'a [Vec<u32>], scratch: &'a mut Vec<u32>, src: u32, also: &[u32]) -> &'a [u32] {
        if also.is_empty() {
            return &hears[src as usize];
        }
        scratch.clear();
        for &s in std::iter::once(&src).chain(also) {
            scratch.extend_from_slice(&hears[s as usize]);
        }
        scratch.sort_unstable();
        scratch.dedup();
        scratch.retain(|y| *y != src && !also.contains(y));
        scratch
    }

    pub(super) fn start_tx(&mut self, src: u32, frame: Pending, now: Time) {
        let Pending { to: dst, frame, dur, nav_until, resp_dur } = frame;
        let also = Self::co_senders(&self.devs, frame, dst);
        let id = self.free_txs.pop().unwrap_or_else(|| {
            self.txs.push(None);
            (self.txs.len() - 1) as u32
        });
        if self.on_air == 0 {
            self.busy_since = now;
        }
        self.on_air += 1;
        let slot = self.slot;
        for &s in std::iter::once(&src).chain(also) {
            let m = &mut self.medium[s as usize];
            // A responder may have been counting down: it stops, as for any busy medium.
            if m.access_at.is_some_and(|at| at != now) {
                m.freeze(now, slot);
            } else if m.access_at.is_some() {
                m.access_at = None;
                m.access_gen = m.access_gen.wrapping_add(1);
            }
            m.transmitting = true;
            m.rx = None;
        }
        for &y in Self::audience(&self.hears, &mut self.audience, src, also) {
            let my = &mut self.medium[y as usize];
            let was_idle = my.busy == 0 && !my.transmitting;
            my.busy += 1;
            if my.transmitting {
                continue;
            }
            if was_idle {
                my.freeze(now, slot);
                my.rx = Some((id, true));
            } else if let Some((_, intact)) = my.rx.as_mut() {
                *intact = false;
            }
        }
        self.txs[id as usize] = Some(Tx { src, dst, frame, nav_until, resp_dur });
        self.events.push((now + dur, WifiEvent::TxEnd { tx: id }));
    }

    pub(super) fn on_tx_end(&mut self, id: u32, now: Time, flows: &mut [FlowStats]) {
        let tx = self.txs[id as usize].take().expect("a transmission ends once");
        self.free_txs.push(id);
        self.on_air -= 1;
        if self.on_air == 0 {
            self.busy_time += now - self.busy_since;
        }
        // Idle periods start now for whoever no longer senses anything, before the frame's
        // consequences (a completed exchange) schedule any countdown from them.
        // Only HE TB Block Acks have several senders; they are rare enough to copy.
        let also = Self::co_senders(&self.devs, tx.frame, tx.dst).to_vec();
        for &s in std::iter::once(&tx.src).chain(&also) {
            let ms = &mut self.medium[s as usize];
            ms.transmitting = false;
            if ms.busy == 0 {
                ms.idle_since = now;
            }
        }
        self.intact.clear();
        for &y in Self::audience(&self.hears, &mut self.audience, tx.src, &also) {
            let my = &mut self.medium[y as usize];
            my.busy -= 1;
            if my.busy == 0 && !my.transmitting {
                my.idle_since = now;
            }
            let Some((rx, intact)) = my.rx else { continue };
            if rx != id {
                continue;
            }
            my.rx = None;
            my.eifs = !intact;
            if intact {
                self.intact.push(y);
            }
            // Overhearers honour the duration field; so do the stations a group frame
            // addresses, which answer it regardless (a trigger needs no idle medium).
            if intact && y != tx.dst {
                my.nav_until = my.nav_until.max(tx.nav_until);
            }
        }
        let got = self.intact.contains(&tx.dst);
        match tx.frame {
            Frame::Data | Frame::Rts | Frame::MuData => {
                // A frame its receiver did not get intact collided: with a frame the receiver
                // was locked onto or that overlapped it, or with the receiver's own transmission.
                let d = &mut self.devs[tx.src as usize];
                let ex = d.exchange.as_mut().expect("an initiator is in an exchange");
                ex.tx_end = now;
                for part in &ex.parts {
                    let p = &mut d.peers[part.peer as usize];
                    if !self.intact.contains(&p.dev) {
                        p.stats.collisions += 1;
                    }
                }
            }
            Frame::MuBar | Frame::Bsrp | Frame::BasicTrigger => {
                self.devs[tx.src as usize].exchange.as_mut().expect("a trigger's exchange").tx_end = now;
            }
            Frame::TbData if !got => {
                // The AP lost the stations' data to another transmission.
                for &s in std::iter::once(&tx.src).chain(&also) {
                    let d = &mut self.devs[s as usize];
                    let peer = d.tb.as_ref().expect("a TB responder has its response").peer;
                    d.peers[peer as usize].stats.collisions += 1;
                }
            }
            _ => {}
        }
        match tx.frame {
            Frame::Data | Frame::Rts | Frame::MuBar | Frame::Bsrp | Frame::BasicTrigger => {
                // The initiator waits a SIFS and the response; one nanosecond more lets a
                // response that ends exactly then be taken first.
                let ex = self.devs[tx.src as usize].exchange.as_mut().expect("an initiator is in an exchange");
                ex.timeout_gen = ex.timeout_gen.wrapping_add(1);
                let gen = ex.timeout_gen;
                self.events.push((now + self.sifs + tx.resp_dur + 1, WifiEvent::Timeout { dev: tx.src, gen }));
            }
            Frame::MuData => {
                // The AP asks for the Block Acks a SIFS after its HE MU PPDU.
                let ex = self.devs[tx.src as usize].exchange.as_ref().expect("an AP's MU exchange");
                let bar = ex.mu_bar.expect("an HE MU PPDU has its trigger");
                let (sifs, resp_dur) = (self.sifs, ex.resp_dur);
                let pending = Pending {
                    to: GROUP,
                    frame: Frame::MuBar,
                    dur: bar,
                    nav_until: now + sifs + bar + sifs + resp_dur,
                    resp_dur,
                };
                self.respond(tx.src, pending, now);
            }
            _ => {}
        }
        match tx.frame {
            Frame::MuData => self.receive_mu_data(&tx, now),
            Frame::MuBar => self.answer_trigger(&tx, now),
            Frame::Bsrp | Frame::BasicTrigger => self.answer_ul_trigger(&tx, now, flows),
            Frame::MultiStaBa => self.end_ul_cycle(tx.src, now, flows),
            _ if got => self.receive(&tx, now, flows),
            _ => {}
        }
        // Whoever now senses an idle medium starts counting again.
        for &s in std::iter::once(&tx.src).chain(&also) {
            self.schedule_access(s, now);
        }
        let hearers = Self::audience(&self.hears, &mut self.audience, tx.src, &also).len();
        for k in 0..hearers {
            let y = if also.is_empty() { self.hears[tx.src as usize][k] } else { self.audience[k] };
            self.schedule_access(y, now);
        }
    }

    /// Within a TXOP the node keeps the channel: its next exchange follows a SIFS after the
    /// response if it ends within the TXOP limit counted from the channel access (802.11-2020
    /// 10.23.2.8); otherwise its frames go back to the queue and the TXOP ends.
    pub(super) fn continue_txop(&mut self, dev: u32, now: Time) -> bool {
        if !self.devs[dev as usize].queues.has_frames() {
            return false;
        }
        let plan = self.plan_exchange(dev);
        let at = now + self.sifs;
        let d = &mut self.devs[dev as usize];
        if at + plan.airtime(self.sifs) - d.txop_start > self.edca.txop {
            for part in plan.parts {
                d.queues.requeue(part.peer, part.mpdus.into_iter());
            }
            return false;
        }
        self.begin_exchange(dev, plan, at, now);
        true
    }
}
