//! Reception and Block Ack: a receiver takes the MPDUs that survive the channel and answers a
//! SIFS later (CTS, ACK, Block Ack, HE TB Block Acks to an MU-BAR); when the response arrives
//! or times out the initiator settles every MPDU (acknowledged, retried or given up), and its
//! contention window resets or doubles for the next access.

use super::{Frame, Part, PartOf, Pending, Stage, Tx, WifiDev, WifiEvent, WifiNet};
use crate::counters::FlowStats;
use crate::net::Release;
use crate::sim::Time;

impl WifiNet {
    /// `tx.dst` received `tx` intact.
    pub(super) fn receive(&mut self, tx: &Tx, now: Time, flows: &mut [FlowStats]) {
        let (src, dst) = (tx.src, tx.dst);
        match tx.frame {
            Frame::Rts => {
                let cts = tx.resp_dur;
                let ex = self.devs[src as usize].exchange.as_ref().expect("RTS belongs to an exchange");
                let resp_dur = ex.data_dur;
                let pending = Pending { to: src, frame: Frame::Cts, dur: cts, nav_until: tx.nav_until, resp_dur };
                self.respond(dst, pending, now);
            }
            Frame::Cts => {
                let sifs = self.sifs;
                let ex = self.devs[dst as usize].exchange.as_mut().expect("CTS answers an exchange");
                if ex.stage != Stage::AwaitCts {
                    return;
                }
                ex.stage = Stage::AwaitResponse;
                ex.timeout_gen = ex.timeout_gen.wrapping_add(1);
                let nav_until = now + sifs + ex.data_dur + sifs + ex.resp_dur;
                let (dur, resp_dur) = (ex.data_dur, ex.resp_dur);
                let pending = Pending { to: src, frame: Frame::Data, dur, nav_until, resp_dur };
                self.respond(dst, pending, now);
            }
            Frame::Data => self.receive_data(src, dst, tx, now),
            Frame::TbBsr | Frame::TbData => self.receive_tb(tx, now, flows),
            Frame::Ack | Frame::BlockAck | Frame::TbBlockAck => {
                let d = &mut self.devs[dst as usize];
                let ex = d.exchange.as_mut().expect("a response answers an exchange");
                if ex.stage != Stage::AwaitResponse {
                    return;
                }
                ex.timeout_gen = ex.timeout_gen.wrapping_add(1);
                // Every sender of the response acknowledges its part (the one part of SU).
                for part in ex.parts.iter_mut() {
                    let station = d.peers[part.peer as usize].dev;
                    part.acked = station == src || ex.responders.contains(&station);
                }
                self.complete(dst, now, flows);
            }
            Frame::MuData | Frame::MuBar | Frame::Bsrp | Frame::BasicTrigger | Frame::MultiStaBa => {
                unreachable!("group frames are handled where they end")
            }
        }
    }

    /// The MPDUs of `src`'s `which` part are each received or not (per-MPDU error
    /// probability); the intact ones go up in order (through the receiver's airtime table if
    /// it keeps one). Whether any was received.
    pub(super) fn receive_part(&mut self, src: u32, which: PartOf, now: Time) -> bool {
        fn part(d: &mut WifiDev, which: PartOf) -> &mut Part {
            match which {
                PartOf::Exchange(k) => &mut d.exchange.as_mut().expect("data belongs to an exchange").parts[k],
                PartOf::Tb => d.tb.as_mut().expect("a TB responder has its response"),
            }
        }
        let s = &mut self.devs[src as usize];
        let peer = part(s, which).peer;
        let dst = s.peers[peer as usize].dev;
        let [s, r] = self.devs.get_disjoint_mut([src as usize, dst as usize]).expect("a node does not send to itself");
        let part = part(s, which);
        let back = r.peer_of[src as usize].expect("links are symmetric") as usize;
        let mut any = false;
        // The MPDUs of a PPDU mostly carry packets of one size, which fare alike: the error
        // model is asked once per run of equal sizes, not once per MPDU (it is the costly part).
        let mut last: Option<(u32, f64)> = None;
        for (i, m) in part.mpdus.iter().enumerate() {
            let error = match last {
                Some((size, error)) if size == m.pkt.size => error,
                _ => part.reception.mpdu_error(m.pkt.size, self.errors.as_ref()),
            };
            last = Some((m.pkt.size, error));
            if self.err_rng.chance(error) {
                continue;
            }
            part.received[i] = true;
            any = true;
            // The initiator keeps its frame until the Block Ack settles it (it may send it again).
            r.peers[back].rx.receive(m.seq, m.pkt.clone(), &mut self.up);
        }
        if let Some(hook) = r.hook.as_mut() {
            // The link's SU rate and MAC losses (an HE TB PPDU's RU rate is not what a hook is
            // shown: paper 004's AP prices every packet at the station's SU rate).
            let link = &s.peers[peer as usize];
            for pkt in &mut self.up {
                hook.on_uplink(s.node, pkt, &link.txv, link.stats.mpdus_dropped, now);
            }
        }
        let node = r.node;
        self.delivered.extend(self.up.drain(..).map(|p| (node, p)));
        any
    }

    /// An SU data PPDU reached its receiver: it answers with an ACK or Block Ack if it got
    /// any MPDU.
    fn receive_data(&mut self, src: u32, dst: u32, tx: &Tx, now: Time) {
        if self.receive_part(src, PartOf::Exchange(0), now) {
            // Its QoS Control field tells an uplink OFDMA AP the sender's queue size.
            if self.ul_ap(dst).is_some() {
                let report =
                    self.devs[src as usize].exchange.as_ref().expect("data belongs to an exchange").parts[0].report;
                self.report_queue(dst, src, report, now);
            }
            let frame = self.devs[src as usize].exchange.as_ref().expect("data belongs to an exchange").resp;
            let nav_until = now + self.sifs + tx.resp_dur;
            self.respond(dst, Pending { to: src, frame, dur: tx.resp_dur, nav_until, resp_dur: 0 }, now);
        }
    }

    /// An HE MU PPDU ended: each addressed station that received it intact takes its part.
    pub(super) fn receive_mu_data(&mut self, tx: &Tx, now: Time) {
        let d = &self.devs[tx.src as usize];
        let parts = &d.exchange.as_ref().expect("an AP's MU exchange").parts;
        let received: Vec<usize> =
            (0..parts.len()).filter(|&k| self.intact.contains(&d.peers[parts[k].peer as usize].dev)).collect();
        for k in received {
            self.receive_part(tx.src, PartOf::Exchange(k), now);
        }
    }

    /// An MU-BAR ended: the addressed stations that received it answer a SIFS later, all at
    /// once, with their Block Acks in HE TB PPDUs (one transmission from several nodes). A
    /// station that got none of its MPDUs answers too: its Block Ack says so.
    pub(super) fn answer_trigger(&mut self, tx: &Tx, now: Time) {
        let d = &self.devs[tx.src as usize];
        let ex = d.exchange.as_ref().expect("a trigger belongs to an MU exchange");
        let responders: Vec<u32> =
            ex.parts.iter().map(|p| d.peers[p.peer as usize].dev).filter(|dev| self.intact.contains(dev)).collect();
        let Some(&first) = responders.first() else { return };
        let dur = ex.resp_dur;
        let nav_until = now + self.sifs + dur;
        self.devs[tx.src as usize].exchange.as_mut().expect("checked above").responders = responders;
        self.respond(first, Pending { to: tx.src, frame: Frame::TbBlockAck, dur, nav_until, resp_dur: 0 }, now);
    }

    pub(super) fn respond(&mut self, dev: u32, pending: Pending, now: Time) {
        self.devs[dev as usize].response = Some(pending);
        self.events.push((now + self.sifs, WifiEvent::Respond { dev }));
    }

    /// The exchange ended with its response or a timeout: settle every MPDU of every part
    /// (acknowledged if its part was and the receiver got it), adjust the contention window
    /// and start the post-transmission backoff.
    pub(super) fn complete(&mut self, dev: u32, now: Time, flows: &mut [FlowStats]) {
        if self.devs[dev as usize].exchange.as_ref().is_some_and(|ex| ex.ul.is_some()) {
            return self.finish_ul_cycle(dev, false, now, flows);
        }
        let ex = self.devs[dev as usize].exchange.take().expect("completing an exchange in progress");
        let success = ex.parts.iter().any(|p| p.acked);
        // Airtime fairness charges what the node sent, as mac80211 does from the driver's
        // tx status; the link's airtime counts the channel time the exchange held. Stations
        // sharing an HE MU PPDU on equal RUs share both equally.
        let n = ex.parts.len() as Time;
        let sent = (if success { now } else { ex.tx_end } - ex.started) / n;
        let held = (now - ex.started) / n;
        let ru = ex.mu_bar.map(|_| ex.ru_tones);
        let mut retry_any = false;
        let mut parts = ex.parts;
        for part in parts.drain(..) {
            retry_any |= self.settle_part(dev, part, (held, sent), ru, flows);
        }
        self.devs[dev as usize].spare_parts = parts;
        self.after_exchange(dev, success, retry_any, now, flows);
    }

    /// Settle the MPDUs `dev` sent in `part`: acknowledged if the part was and its receiver got
    /// them, given up after the retry limit (the receiver then stops waiting for them), or
    /// queued again. The link is charged `airtime` = (channel time held, time sent); `ru` is
    /// the RU size when the part went in a multi-user PPDU. Whether some MPDU waits for a retry.
    pub(super) fn settle_part(
        &mut self,
        dev: u32,
        part: Part,
        airtime: (Time, Time),
        ru: Option<u16>,
        flows: &mut [FlowStats],
    ) -> bool {
        let count = part.mpdus.len() as u64;
        if count == 0 {
            return false; // A buffer status report or padding: no data to settle.
        }
        let d = &mut self.devs[dev as usize];
        let peer = part.peer;
        let p = &mut d.peers[peer as usize];
        p.stats.airtime += airtime.0;
        p.stats.ppdus += 1;
        p.stats.mpdus += count;
        if count > 1 {
            p.stats.ampdus += 1;
            p.stats.ampdu_mpdus += count;
        }
        if let Some(tones) = ru {
            p.stats.mu_ppdus += 1;
            p.stats.mu_ru_tones += u64::from(tones);
            p.stats.mu_ru_rate += p.txv.with_ru(tones).rate_bps();
        }
        if !part.acked {
            p.stats.ppdus_failed += 1;
        }
        let mut retry = Vec::new();
        let mut dropped = Vec::new();
        let mut aql_released = 0;
        for (m, ok) in part.mpdus.into_iter().zip(part.received) {
            let acked = part.acked && ok;
            // mac80211 frees an skb at its tx status: acknowledged, or out of retries.
            let given_up = !acked && m.attempts >= self.edca.retry_limit;
            if acked || given_up {
                self.released.extend(Release::of(&m.pkt, given_up));
                aql_released += m.aql;
            }
            if acked {
                p.stats.mpdus_acked += 1;
                p.stats.bytes_acked += u64::from(m.pkt.size);
            } else if given_up {
                p.stats.mpdus_dropped += 1;
                flows[m.pkt.flow as usize].total.wire_lost += 1;
                dropped.push(m.seq);
            } else {
                retry.push(m);
            }
        }
        let to = p.dev;
        let retry_any = !retry.is_empty();
        d.queues.complete(peer, airtime.1, aql_released);
        d.queues.requeue(peer, retry.into_iter());
        // The receiver stops waiting for what was given up (a Block Ack Request).
        if !dropped.is_empty() {
            let r = &mut self.devs[to as usize];
            let back = r.peer_of[dev as usize].expect("links are symmetric") as usize;
            for seq in dropped {
                r.peers[back].rx.skip(seq, &mut self.up);
            }
            let node = r.node;
            self.delivered.extend(self.up.drain(..).map(|p| (node, p)));
        }
        retry_any
    }

    /// After an exchange (or an uplink cycle) the initiator's contention window resets or
    /// doubles; it continues its TXOP or starts the post-transmission backoff.
    pub(super) fn after_exchange(
        &mut self,
        dev: u32,
        success: bool,
        retry_any: bool,
        now: Time,
        flows: &mut [FlowStats],
    ) {
        let (cw_min, cw_max) = self.cw_bounds(dev, now);
        let d = &mut self.devs[dev as usize];
        // The window doubles after a failure, unless the failure ended the frames' last
        // attempt: then, as after a success, the next frame starts from CWmin.
        d.cw = if success || !retry_any { cw_min } else { (2 * d.cw + 1).min(cw_max) };
        if success && self.edca.txop > 0 && self.continue_txop(dev, now) {
            self.pump(dev, now, flows);
            return;
        }
        let d = &mut self.devs[dev as usize];
        let slots = d.rng.below(u64::from(d.cw) + 1) as u32;
        let m = &mut self.medium[dev as usize];
        if !success {
            // A failed initiator defers as the nodes that saw the corrupted frame do (EIFS),
            // so every party to a collision starts counting at the same time.
            m.eifs = true;
        }
        m.slots = slots;
        m.pending = true;
        self.schedule_access(dev, now);
        self.pump(dev, now, flows);
    }
}
