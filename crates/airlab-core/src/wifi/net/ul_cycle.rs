//! The uplink OFDMA trigger cycle of an AP: it polls its stations for their buffer status
//! (BSRP), grants RUs with a Basic Trigger (with random-access RUs for UORA), takes their HE TB
//! PPDUs and answers with a Multi-STA Block Ack; stations whose data was acknowledged switch to
//! the MU EDCA parameters.

use super::{Exchange, Frame, Part, PartOf, Pending, Stage, Tx, WifiEvent, WifiNet, GROUP};
use crate::counters::FlowStats;
use crate::sim::Time;
use crate::wifi::ofdma::sched::{Eligible, Served};
use crate::wifi::ofdma::{self, ul};
use crate::wifi::phy::{self, TxVector};

/// An AP's uplink OFDMA cycle: the trigger it is at.
pub(super) struct UlCycle {
    /// The stations the current trigger addresses.
    addressed: Vec<u32>,
    /// A BSRP (answered by buffer status reports) rather than a Basic Trigger (data).
    polling: bool,
    /// Random-access RUs in the trigger, and the stations that sent on them with their RU.
    ra_rus: usize,
    ra: Vec<(u32, u16)>,
}

impl UlCycle {
    /// Whether station `s` sent on an RA-RU another station picked too.
    fn collided(&self, s: u32) -> bool {
        self.ra
            .iter()
            .find(|&&(x, _)| x == s)
            .is_some_and(|&(_, ru)| self.ra.iter().filter(|&&(_, r)| r == ru).count() > 1)
    }
}

/// Counters of a BSS's uplink OFDMA cycles.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UlStats {
    /// Cycles the AP started (each with a BSRP or a Basic Trigger).
    pub cycles: u64,
    /// Their total duration, from the first trigger to the Multi-STA Block Ack or timeout.
    pub cycle_time: Time,
    pub bsrps: u64,
    pub basic_triggers: u64,
    /// Stations that sent data in HE TB PPDUs, summed over the Basic Triggers.
    pub tb_users: u64,
    /// Transmissions on random-access RUs, and those alone on their RU.
    pub ra_attempts: u64,
    pub ra_successes: u64,
}

impl UlStats {
    pub fn since(&self, earlier: &UlStats) -> UlStats {
        UlStats {
            cycles: self.cycles - earlier.cycles,
            cycle_time: self.cycle_time - earlier.cycle_time,
            bsrps: self.bsrps - earlier.bsrps,
            basic_triggers: self.basic_triggers - earlier.basic_triggers,
            tb_users: self.tb_users - earlier.tb_users,
            ra_attempts: self.ra_attempts - earlier.ra_attempts,
            ra_successes: self.ra_successes - earlier.ra_successes,
        }
    }
}

impl WifiNet {
    /// The AP's poll interval passed: it contends for a BSRP, and the next poll is due an
    /// interval later.
    pub(super) fn on_ul_poll(&mut self, dev: u32, now: Time) {
        let mu = self.mu.as_mut().expect("polls come from an uplink OFDMA AP");
        mu.poll_due = true;
        let interval = mu.settings.ul.and_then(|ul| ul.poll_interval).expect("polls have an interval");
        self.events.push((now + interval, WifiEvent::UlPoll { dev }));
        self.contend(dev, now);
    }

    /// The AP won the channel for the uplink: it polls its stations in turn for their buffer
    /// status, or, without BSRP, grants them RUs from what they last reported (but polls when
    /// its periodic poll is due).
    pub(super) fn start_ul_cycle(&mut self, now: Time) {
        let mu = self.mu.as_mut().expect("an uplink OFDMA AP");
        let ul = mu.settings.ul.expect("uplink OFDMA is on");
        // A due poll is a BSRP, or, with random access, a Basic Trigger with its RA-RUs.
        let bsrp = ul.bsrp || (mu.poll_due && ul.uora.is_none());
        mu.poll_due = false;
        let ap = mu.dev;
        self.ul_stats.cycles += 1;
        let d = &mut self.devs[ap as usize];
        d.exchange = Some(Exchange {
            parts: std::mem::take(&mut d.spare_parts),
            data_dur: 0,
            mu_bar: None,
            ru_tones: 0,
            responders: Vec::new(),
            ul: None,
            resp: Frame::TbBsr,
            resp_dur: 0,
            stage: Stage::AwaitResponse,
            started: now,
            tx_end: now,
            timeout_gen: 0,
        });
        let sent = self.send_trigger(bsrp, now, now);
        debug_assert!(sent, "an AP grants without polling only with reported data or RA-RUs");
    }

    /// The PHY of station `s`'s link to its AP `ap`.
    fn uplink_txv(&self, ap: u32, s: u32) -> TxVector {
        let d = &self.devs[s as usize];
        *d.peers[d.peer_of[ap as usize].expect("stations link to their AP") as usize].txv()
    }

    /// The AP sends the next trigger of its uplink cycle at `at` (now, or a SIFS after the
    /// buffer status reports): a BSRP to the stations in turn (`polling`), or a Basic Trigger
    /// to those that reported data, with the random-access RUs if any. False when it would
    /// address nobody.
    fn send_trigger(&mut self, polling: bool, at: Time, now: Time) -> bool {
        let mu = self.mu.as_ref().expect("an uplink OFDMA AP");
        let (ap, max) = (mu.dev, mu.settings.max_stations);
        let ra_rus = mu.settings.ul.and_then(|ul| ul.uora).map_or(0, |u| u.ra_rus);
        let peers = if polling {
            mu.ul.poll(max)
        } else {
            // The stations that reported data, in turn, go to the scheduler.
            let a = &self.devs[ap as usize];
            let eligible: Vec<Eligible> = mu
                .ul
                .candidates()
                .into_iter()
                .map(|peer| Eligible { peer, rate_bps: self.uplink_txv(ap, a.peers[peer as usize].dev).rate_bps() })
                .collect();
            self.mu.as_mut().expect("checked above").ul_scheduler.pick(&eligible, max)
        };
        if peers.is_empty() && (polling || ra_rus == 0) {
            return false;
        }
        let mu = self.mu.as_ref().expect("checked above");
        let a = &self.devs[ap as usize];
        let reference = self.uplink_txv(ap, a.peers[0].dev);
        let stations: Vec<u32> = peers.iter().map(|&p| a.peers[p as usize].dev).collect();
        let txvs: Vec<TxVector> = stations.iter().map(|&s| self.uplink_txv(ap, s)).collect();
        let plan = if polling {
            ul::plan_bsrp(reference.width_mhz, &txvs)
        } else {
            let users: Vec<(TxVector, u32)> = txvs.iter().zip(&peers).map(|(&t, &p)| (t, mu.ul.reported(p))).collect();
            ul::plan_basic(reference.width_mhz, &users, ra_rus, &reference, a.aggregation.max_duration)
        };
        let (count, scheduled) = (plan.alloc.count, plan.scheduled());
        // The trigger reserves the medium through the TB PPDUs and, for data, the Block Ack.
        let mut nav_until = at + plan.trigger_dur + self.sifs + plan.tb_dur;
        let (frame, resp) = if polling {
            self.ul_stats.bsrps += 1;
            (Frame::Bsrp, Frame::TbBsr)
        } else {
            nav_until += self.sifs + ul::multi_sta_block_ack_duration(count, &reference.with_ru(plan.alloc.tones));
            // Each scheduled station may send what it reported, as far as the TB PPDU holds.
            let mu = self.mu.as_mut().expect("checked above");
            let served: Vec<Served> = peers[..scheduled]
                .iter()
                .zip(&txvs)
                .map(|(&peer, txv)| {
                    let txv = txv.with_ru(plan.alloc.tones);
                    let psdu = mu.ul.reported(peer).min(txv.psdu_bytes_within(plan.tb_dur));
                    Served { peer, bits: 8 * u64::from(psdu), airtime: txv.data_duration(psdu) }
                })
                .collect();
            mu.ul_scheduler.served(&served);
            if scheduled > 0 {
                mu.ul.served(peers[scheduled - 1]);
            }
            (Frame::BasicTrigger, Frame::TbData)
        };
        let ex = self.devs[ap as usize].exchange.as_mut().expect("a trigger belongs to an uplink cycle");
        ex.data_dur = plan.trigger_dur;
        ex.ru_tones = plan.alloc.tones;
        ex.resp = resp;
        ex.resp_dur = plan.tb_dur;
        ex.responders.clear();
        let ra_rus = plan.ra_rus;
        ex.ul = Some(UlCycle { addressed: stations[..scheduled].to_vec(), polling, ra_rus, ra: Vec::new() });
        let pending = Pending { to: GROUP, frame, dur: plan.trigger_dur, nav_until, resp_dur: plan.tb_dur };
        if at == now {
            self.start_tx(ap, pending, now);
        } else {
            self.devs[ap as usize].response = Some(pending);
            self.events.push((at, WifiEvent::Respond { dev: ap }));
        }
        true
    }

    /// A trigger ended: the addressed stations that received it and are free answer a SIFS
    /// later, all at once, in HE TB PPDUs on their RUs: a buffer status report (QoS Null) to a
    /// BSRP, their data to a Basic Trigger, each with its queue size. A station with nothing
    /// that fits still answers, with padding. Nobody answering leaves the AP to time out.
    pub(super) fn answer_ul_trigger(&mut self, tx: &Tx, now: Time, flows: &mut [FlowStats]) {
        let ap = tx.src;
        let ex = self.devs[ap as usize].exchange.as_ref().expect("a trigger belongs to an uplink cycle");
        let cycle = ex.ul.as_ref().expect("a trigger belongs to an uplink cycle");
        let (polling, tones, tb_dur, resp) = (cycle.polling, ex.ru_tones, ex.resp_dur, ex.resp);
        let heard = |s: u32| self.intact.contains(&s) && self.devs[s as usize].can_answer_trigger();
        let mut responders: Vec<u32> = cycle.addressed.iter().copied().filter(|&s| heard(s)).collect();
        // The other stations with data for the AP run their OFDMA backoff on the RA-RUs.
        let contenders: Vec<(u32, u16)> = self.devs[ap as usize]
            .peers
            .iter()
            .map(|p| p.dev)
            .filter(|&s| cycle.ra_rus > 0 && !cycle.addressed.contains(&s) && heard(s))
            .filter_map(|s| {
                let d = &self.devs[s as usize];
                let peer = d.peer_of[ap as usize].expect("stations link to their AP");
                (d.queues.queued_psdu_bytes(peer, 1) > 0).then_some((s, peer))
            })
            .collect();
        let ra_rus = cycle.ra_rus;
        let mut ra = Vec::new();
        for (s, _) in contenders {
            let d = &mut self.devs[s as usize];
            if let Some(ru) = d.obo.on_trigger(ra_rus, &mut d.rng) {
                ra.push((s, ru));
                responders.push(s);
            }
        }
        if !polling {
            // Counted as the trigger ends, with the stations it got data from, so that both
            // fall in the same measurement window.
            self.ul_stats.basic_triggers += 1;
            self.ul_stats.ra_attempts += ra.len() as u64;
        }
        let ex = self.devs[ap as usize].exchange.as_mut().expect("checked above");
        ex.ul.as_mut().expect("checked above").ra = ra;
        let Some(&first) = responders.first() else { return };
        for &s in &responders {
            let part = self.tb_response(ap, s, polling, tones, tb_dur);
            self.ul_stats.tb_users += u64::from(!part.mpdus.is_empty());
            self.devs[s as usize].tb = Some(part);
        }
        let mut nav_until = now + self.sifs + tb_dur;
        if !polling {
            let first_txv = self.uplink_txv(ap, first).with_ru(tones);
            nav_until += self.sifs + ul::multi_sta_block_ack_duration(responders.len(), &first_txv);
        }
        self.devs[ap as usize].exchange.as_mut().expect("checked above").responders = responders.clone();
        self.respond(first, Pending { to: ap, frame: resp, dur: tb_dur, nav_until, resp_dur: 0 }, now);
        // mac80211 refills the firmware queues the responses took from.
        for s in responders {
            self.pump(s, now, flows);
        }
    }

    /// Station `s`'s HE TB response on a `tones`-tone RU to a trigger asking for `tb_dur`: no
    /// frames to a BSRP; to a Basic Trigger, the A-MPDU of its oldest frames for the AP that
    /// fits the PPDU's data field. Either way it carries the queue size left.
    fn tb_response(&mut self, ap: u32, s: u32, polling: bool, tones: u16, tb_dur: Time) -> Part {
        let d = &mut self.devs[s as usize];
        let peer = d.peer_of[ap as usize].expect("stations link to their AP");
        let txv = d.peers[peer as usize].txv().with_ru(tones);
        let mut mpdus = Vec::new();
        if !polling {
            let agg = d.aggregation;
            let window = phy::Format::He.block_ack_window().expect("HE has Block Ack") as usize;
            let max = if agg.enabled { (agg.max_mpdus as usize).min(window) } else { 1 };
            let data_limit = tb_dur.saturating_sub(txv.preamble_duration());
            let mut psdu = 0u32;
            mpdus = d.queues.take(peer, max, |_, next| {
                let more = phy::ampdu_append(psdu, phy::mpdu_bytes(next.pkt.size));
                let fits = more <= agg.max_bytes && txv.data_duration(more) <= data_limit;
                if fits {
                    psdu = more;
                }
                fits
            });
            for m in &mut mpdus {
                m.attempts += 1;
            }
        }
        let mut part = Part::new(peer, mpdus, d.peers[peer as usize].reception(&txv, true));
        part.report = ofdma::queue_size_report(d.queues.queued_psdu_bytes(peer, ofdma::MAX_QUEUE_REPORT).into());
        part
    }

    /// The AP received the stations' HE TB PPDUs: it takes each station's data and queue size
    /// (nothing from stations that collided on a random-access RU). After buffer status
    /// reports it grants RUs with a Basic Trigger a SIFS later (or ends the cycle if nobody has
    /// data); after data it sends the Multi-STA Block Ack, or, having decoded nothing, ends
    /// the cycle as failed.
    pub(super) fn receive_tb(&mut self, tx: &Tx, now: Time, flows: &mut [FlowStats]) {
        let ap = tx.dst;
        let ex = self.devs[ap as usize].exchange.as_mut().expect("HE TB PPDUs answer an uplink cycle");
        ex.timeout_gen = ex.timeout_gen.wrapping_add(1);
        let (responders, tones) = (ex.responders.clone(), ex.ru_tones);
        let cycle = ex.ul.as_ref().expect("HE TB PPDUs answer an uplink cycle");
        let decoded: Vec<u32> = responders.iter().copied().filter(|&s| !cycle.collided(s)).collect();
        self.ul_stats.ra_successes += cycle.ra.iter().filter(|&&(s, _)| !cycle.collided(s)).count() as u64;
        let polling = tx.frame == Frame::TbBsr;
        for &s in &responders {
            let d = &mut self.devs[s as usize];
            if !decoded.contains(&s) {
                let peer = d.tb.as_ref().expect("a TB responder has its response").peer;
                d.peers[peer as usize].stats.collisions += 1;
                continue;
            }
            if polling {
                let report = d.tb.take().expect("a TB responder has its response").report;
                self.report_queue(ap, s, report, now);
            } else {
                self.receive_part(s, PartOf::Tb, now);
                let report = self.devs[s as usize].tb.as_ref().expect("a TB responder has its response").report;
                self.report_queue(ap, s, report, now);
            }
        }
        if polling {
            if !self.send_trigger(false, now + self.sifs, now) {
                self.finish_ul_cycle(ap, true, now, flows);
            }
            return;
        }
        let Some(&first) = decoded.first() else {
            return self.finish_ul_cycle(ap, false, now, flows);
        };
        let first = self.uplink_txv(ap, first).with_ru(tones);
        let dur = ul::multi_sta_block_ack_duration(decoded.len(), &first);
        let nav_until = now + self.sifs + dur;
        self.respond(ap, Pending { to: GROUP, frame: Frame::MultiStaBa, dur, nav_until, resp_dur: 0 }, now);
    }

    /// Station `s` reported `report` bytes queued to AP `ap`, which contends to trigger it.
    pub(super) fn report_queue(&mut self, ap: u32, s: u32, report: u32, now: Time) {
        let peer = self.devs[ap as usize].peer_of[s as usize].expect("stations link to their AP");
        self.mu.as_mut().expect("an uplink OFDMA AP").ul.report(peer, report);
        self.contend(ap, now);
    }

    /// The Multi-STA Block Ack ended: each station that received it learns which of its MPDUs
    /// arrived; the cycle is over.
    pub(super) fn end_ul_cycle(&mut self, ap: u32, now: Time, flows: &mut [FlowStats]) {
        let ex = self.devs[ap as usize].exchange.as_ref().expect("a Multi-STA Block Ack ends an uplink cycle");
        let cycle = ex.ul.as_ref().expect("a Multi-STA Block Ack ends an uplink cycle");
        let acked: Vec<(u32, bool)> =
            ex.responders.iter().map(|&s| (s, self.intact.contains(&s) && !cycle.collided(s))).collect();
        for (s, acked) in acked {
            if let Some(part) = self.devs[s as usize].tb.as_mut() {
                part.acked = acked;
            }
        }
        self.finish_ul_cycle(ap, true, now, flows);
    }

    /// The AP's uplink cycle is over (`success`) or timed out: every station settles the data it
    /// sent (acknowledged or not) and is charged an equal share of the cycle's airtime; a
    /// station whose data was acknowledged switches to the MU EDCA parameters.
    pub(super) fn finish_ul_cycle(&mut self, ap: u32, success: bool, now: Time, flows: &mut [FlowStats]) {
        let ex = self.devs[ap as usize].exchange.take().expect("an uplink cycle in progress");
        self.ul_stats.cycle_time += now - ex.started;
        let senders =
            ex.responders.iter().filter(|&&s| self.devs[s as usize].tb.as_ref().is_some_and(|p| !p.mpdus.is_empty()));
        let share = (now - ex.started) / (senders.count() as Time).max(1);
        let uora = self.mu.as_ref().and_then(|mu| mu.settings.ul?.uora);
        let cycle = ex.ul.as_ref().expect("an uplink cycle in progress");
        for &s in &ex.responders {
            let Some(part) = self.devs[s as usize].tb.take() else { continue };
            let acked = part.acked && part.received.iter().any(|&r| r);
            self.settle_part(s, part, (share, share), Some(ex.ru_tones), flows);
            if acked {
                self.start_mu_edca(s, now);
            }
            // A random-access sender's window resets on success and doubles otherwise.
            if let Some(uora) = uora.filter(|_| cycle.ra.iter().any(|&(x, _)| x == s)) {
                let d = &mut self.devs[s as usize];
                d.obo.after_attempt(acked, &uora, &mut d.rng);
            }
            self.pump(s, now, flows);
        }
        self.devs[ap as usize].spare_parts = ex.parts;
        self.after_exchange(ap, success, !success, now, flows);
    }

    /// Station `s` had uplink data acknowledged after a Basic Trigger: it contends with the MU
    /// EDCA parameters, if the AP advertises any, until their timer runs out (restarted by
    /// every such acknowledgement). A countdown in progress goes on with them.
    fn start_mu_edca(&mut self, s: u32, now: Time) {
        let Some(mu_edca) = self.mu.as_ref().and_then(|mu| mu.settings.ul?.mu_edca) else { return };
        let d = &mut self.devs[s as usize];
        d.mu_edca_until = now + mu_edca.timer;
        d.cw = mu_edca.cw_min;
        let m = &mut self.medium[s as usize];
        if m.access_at.is_some() {
            m.freeze(now, self.slot);
            self.schedule_access(s, now);
        }
    }
}
