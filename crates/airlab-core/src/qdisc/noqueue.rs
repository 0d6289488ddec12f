//! `noqueue`: no qdisc at all. A packet goes straight to the device; if the device has no room
//! for it, it is dropped (Linux `noqueue_qdisc_ops`, and `__dev_queue_xmit` for a device
//! without a queue). OpenWrt puts it on Wi-Fi interfaces whose mac80211 layer does its own
//! queueing: mac80211 never refuses a packet, so nothing is lost there.

use super::{Build, Component, Config, Qdisc, Verdicts};
use crate::net::Packet;
use crate::params::no_check;
use crate::sim::{Rng, Time};

pub static NOQUEUE: Component = Component {
    name: "noqueue",
    doc: "no queue: packets go straight to the device, dropped if it has no room (Linux noqueue)",
    params: &[],
    check: no_check,
    build: Build(|_: &Config, _: Rng| Box::new(NoQueue::default()), super::one_queue),
};

/// Holds a packet only while the interface hands it to the device.
#[derive(Default)]
pub struct NoQueue {
    held: Option<Packet>,
}

impl Qdisc for NoQueue {
    fn kind(&self) -> &'static str {
        "noqueue"
    }

    fn enqueue(&mut self, mut pkt: Packet, now: Time, out: &mut Verdicts) {
        pkt.enqueued_at = now;
        // The interface pulls after every enqueue, so a packet still held here is one the
        // device refused.
        if let Some(old) = self.held.replace(pkt) {
            out.dropped.push(old);
        }
    }

    fn dequeue(&mut self, _now: Time, _out: &mut Verdicts) -> Option<Packet> {
        self.held.take()
    }

    fn len(&self) -> usize {
        usize::from(self.held.is_some())
    }

    fn bytes(&self) -> u64 {
        self.held.as_ref().map_or(0, |p| u64::from(p.size))
    }

    fn spill(&mut self, out: &mut Verdicts) {
        out.dropped.extend(self.held.take());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::{Ecn, TcpSegment};

    #[test]
    fn a_packet_the_device_does_not_take_is_dropped() {
        let mut q = NoQueue::default();
        let mut out = Verdicts::default();
        let pkt = Packet::tcp_packet(0, 0, 0, 1, 1500, Ecn::NotEct, TcpSegment::default());
        q.enqueue(pkt.clone(), 0, &mut out);
        assert_eq!(q.dequeue(0, &mut out).map(|p| p.size), Some(1500));
        q.spill(&mut out);
        assert!(out.dropped.is_empty());
        q.enqueue(pkt, 0, &mut out);
        q.spill(&mut out);
        assert_eq!((out.dropped.len(), q.len()), (1, 0));
    }
}
