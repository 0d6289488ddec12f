use super::*;
use crate::counters::FlowStats;
use crate::sim::{EventQueue, US};
use crate::wifi::device::DeviceLayer;
use crate::wifi::link::RateSchedule;

/// Node 0 sends to node 1 over 802.11a at 24 Mbit/s, switching to 6 Mbit/s at `switch_at`.
fn pair(switch_at: Time) -> WifiNet {
    let dev = |node: NodeId, to: u32, peer: Peer| {
        let qdisc = crate::qdisc::create(
            &crate::qdisc::Config::named("pfifo").with("limit", crate::params::Value::Int(10)),
            Rng::stream(1, "q"),
        );
        let queues = DeviceQueues::new(&DeviceLayer::PerStation { size: 10, airtime_fairness: false }, 1, 0);
        let mut d = WifiDev::new(
            node,
            format!("n{node}"),
            qdisc,
            queues,
            // 802.11a does not aggregate: one MPDU of at most 4095 bytes per PPDU.
            Aggregation { enabled: false, max_mpdus: 1, max_bytes: 4095, max_duration: 5_484 * US },
            vec![peer],
            Rng::stream(1, &format!("backoff{node}")),
        );
        d.set_route(to, 0);
        d
    };
    let schedule = RateSchedule { steps: vec![(switch_at, TxVector::non_ht(6), None)], period: None };
    let a = dev(0, 1, Peer::new(1, 1, TxVector::non_ht(24), 0.0, None).with_schedule(schedule));
    let b = dev(1, 0, Peer::new(0, 0, TxVector::non_ht(24), 0.0, None));
    let timing = phy::MacTiming::ofdm_5ghz();
    let hears = vec![vec![1], vec![0]];
    let errors = crate::wifi::error_model::create(&crate::wifi::error_model::Config::named("nist"));
    WifiNet::new("w".into(), timing, Edca::BEST_EFFORT, false, None, vec![a, b], hears, errors, Rng::stream(1, "err"))
}

fn packet(seq: u64) -> Packet {
    Packet::datagram(seq, 1500)
}

/// Runs the network's events until none are left.
fn run(net: &mut WifiNet, flows: &mut [FlowStats]) {
    let mut queue = EventQueue::new();
    loop {
        for (at, ev) in net.events.drain(..) {
            queue.schedule(at, ev);
        }
        let Some((now, ev)) = queue.pop() else { break };
        net.handle(ev, now, flows);
    }
}

#[test]
fn every_event_kind_survives_packing() {
    let events = [
        WifiEvent::Access { dev: 3, gen: 70_000 },
        WifiEvent::TxEnd { tx: 1 << 20 },
        WifiEvent::Respond { dev: 9 },
        WifiEvent::Timeout { dev: 2, gen: 5 },
        WifiEvent::QdiscWake { dev: 65_535 },
        WifiEvent::RateChange { dev: 1, peer: 7, step: 300 },
        WifiEvent::UlPoll { dev: 4 },
    ];
    for ev in events {
        let (head, dev, arg) = ev.pack(31);
        let (net, back) = WifiEvent::unpack(head, dev, arg);
        assert_eq!((net, format!("{back:?}")), (31, format!("{ev:?}")));
    }
}

#[test]
fn a_rate_change_applies_from_the_next_exchange() {
    let mut flows = vec![FlowStats::new("f".into(), "a".into(), "b".into(), None, "udp")];
    // The first exchange starts after AIFS (43 us) and sends for 536 us: the switch at
    // 100 us falls inside it.
    let mut net = pair(100 * US);
    net.start(0);
    for seq in 0..2 {
        net.enqueue(0, packet(seq), 0, &mut flows);
    }
    run(&mut net, &mut flows);
    let exchange = |mbit: u16| {
        let txv = TxVector::non_ht(mbit);
        txv.ppdu_duration(phy::mpdu_bytes(1500)) + 16 * US + phy::ack_duration(&txv.control_response_rate())
    };
    // 24 Mbit/s: 536 + 16 + 28 us; then 6 Mbit/s: 2076 + 16 + 44 us.
    assert_eq!((exchange(24), exchange(6)), (580 * US, 2136 * US));
    let p = &net.devs[0].peers[0];
    assert_eq!(p.stats.mpdus_acked, 2);
    assert_eq!(p.stats.airtime, exchange(24) + exchange(6));
    assert_eq!(p.txv().rate_bps(), 6_000_000);
    assert_eq!(p.base_txv().rate_bps(), 24_000_000);
}
