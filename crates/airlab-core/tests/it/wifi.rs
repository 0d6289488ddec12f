//! The Wi-Fi MAC end to end: the performance anomaly and airtime fairness, A-MPDU
//! aggregation against no aggregation, per-MPDU errors recovered by retransmission, hidden
//! terminals with and without RTS/CTS, and determinism under contention randomness.
//! (Bianchi's model and the single-station efficiency are checked in `tests/test_wifi_mac.py`,
//! where the analytical models live.)

use crate::common::*;
use serde_json::Value;

fn wifi_link<'a>(s: &'a Value, name: &str) -> &'a Value {
    s["wifi"][0]["links"].as_array().unwrap().iter().find(|l| l["name"] == name).unwrap_or_else(|| panic!("no {name}"))
}

/// An 802.11a BSS with a fast (54 Mbit/s) and a slow (6 Mbit/s) station, each saturating with
/// UDP in direction `dir` ("up": stations -> AP; "down": AP -> stations).
fn anomaly(dir: &str, device: &str) -> Value {
    let flow = |i: usize, sta: &str| {
        let (from, to) = if dir == "up" { (sta, "ap") } else { ("ap", sta) };
        format!("[[flow]]\nname = \"f{i}\"\nfrom = \"{from}\"\nto = \"{to}\"\napp = {{ kind = \"udp\", rate = \"60Mbit\" }}\n")
    };
    let text = format!(
        r#"
name = "anomaly"
duration = "6s"
hosts = ["ap", "fast", "slow"]
[metrics]
warmup = "1s"
[[wifi]]
name = "bss"
standard = "a"
ap = "ap"
stations = ["fast", "slow"]
rate = "54Mbit"
device = {device}
[[wifi.node]]
name = "slow"
rate = "6Mbit"
{}{}"#,
        flow(0, "fast"),
        flow(1, "slow")
    );
    run_toml(&text, None).summary
}

#[test]
fn a_slow_station_drags_a_fast_one_down_to_its_throughput() {
    // Heusse et al. 2003: DCF gives each saturated station the same chance to send a frame,
    // so both get about the same throughput, close to what the slow one alone would get x2.
    let s = anomaly("up", r#"{ kind = "fifo", size = 100 }"#);
    let fast = f(&wifi_link(&s, "bss:fast->ap")["throughput_mbps"]);
    let slow = f(&wifi_link(&s, "bss:slow->ap")["throughput_mbps"]);
    eprintln!("anomaly, uplink: fast {fast:.2} Mbit/s, slow {slow:.2} Mbit/s");
    assert!((fast / slow - 1.0).abs() < 0.1, "fast {fast} slow {slow}");
    // Each frame exchange at 54 Mbit/s takes ~0.3 ms against ~2.2 ms at 6: both sit near
    // 1500 B x 8 / (0.3 + 2.2 + backoff) ms.
    assert!(fast < 6.0, "the fast station is held near the slow one's rate: {fast}");
}

/// The AP sends one TCP CUBIC flow to each station, from per-station queues large enough to
/// hold both standing queues (so the qdisc stays empty, as with mac80211's intermediate
/// queues), served round robin or airtime-fair.
fn downlink_tcp(airtime_fairness: bool) -> Value {
    let text = format!(
        r#"
name = "downlink"
duration = "15s"
hosts = ["ap", "fast", "slow"]
[metrics]
warmup = "5s"
[[wifi]]
name = "bss"
standard = "a"
ap = "ap"
stations = ["fast", "slow"]
rate = "54Mbit"
device = {{ kind = "per_station", size = 1000, airtime_fairness = {airtime_fairness} }}
[[wifi.node]]
name = "slow"
rate = "6Mbit"
[[flow]]
name = "to_fast"
from = "ap"
to = "fast"
cc = "cubic"
app = {{ kind = "bulk" }}
[[flow]]
name = "to_slow"
from = "ap"
to = "slow"
cc = "cubic"
app = {{ kind = "bulk" }}
"#
    );
    run_toml(&text, None).summary
}

#[test]
fn airtime_fairness_gives_both_stations_equal_airtime_on_the_downlink() {
    let (rr, atf) = (downlink_tcp(false), downlink_tcp(true));
    let share = |s: &Value, sta: &str| f(&wifi_link(s, &format!("bss:ap->{sta}"))["airtime_share"]);
    let goodput = |s: &Value, sta: &str| f(&flow(s, &format!("to_{sta}"))["goodput_mbps"]);
    eprintln!(
        "downlink TCP, round robin: airtime {:.3}/{:.3}, {:.2}/{:.2} Mbit/s; airtime fair: {:.3}/{:.3}, {:.2}/{:.2} Mbit/s",
        share(&rr, "fast"),
        share(&rr, "slow"),
        goodput(&rr, "fast"),
        goodput(&rr, "slow"),
        share(&atf, "fast"),
        share(&atf, "slow"),
        goodput(&atf, "fast"),
        goodput(&atf, "slow")
    );
    // Round robin by frames: the anomaly, equal throughput, the slow station takes most of
    // the airtime.
    assert!((goodput(&rr, "fast") / goodput(&rr, "slow") - 1.0).abs() < 0.1);
    assert!(share(&rr, "slow") > 3.0 * share(&rr, "fast"));
    // Airtime fairness: equal airtime, so the fast station gets several times the throughput.
    let (a, b) = (share(&atf, "fast"), share(&atf, "slow"));
    assert!((a / b - 1.0).abs() < 0.05, "airtime {a} vs {b}");
    assert!(goodput(&atf, "fast") > 4.0 * goodput(&atf, "slow"));
}

/// One TCP CUBIC flow over one 802.11n hop at `mcs`/`width` with short GI, with or without
/// A-MPDU: (goodput Mbit/s, mean RTT ms, mean MPDUs per PPDU of the data direction).
fn one_hop_tcp(mcs: u32, width: u32, aggregation: bool) -> (f64, f64, f64) {
    let text = format!(
        r#"
name = "hop"
duration = "8s"
hosts = ["a", "b"]
[metrics]
warmup = "3s"
[[wifi]]
name = "chain"
standard = "n"
nodes = ["a", "b"]
mcs = {mcs}
width = {width}
gi = "400ns"
aggregation = {{ enabled = {aggregation}, max_mpdus = 32, max_duration = "4ms" }}
qdisc = {{ kind = "pfifo", limit = 1000 }}
[[flow]]
name = "tcp"
from = "a"
to = "b"
cc = "cubic"
app = {{ kind = "bulk" }}
"#
    );
    let s = run_toml(&text, None).summary;
    let fl = flow(&s, "tcp");
    let data = wifi_link(&s, "chain:a->b");
    (f(&fl["goodput_mbps"]), f(&fl["rtt_ms"]["mean"]), f(&data["mpdus_per_ppdu"]))
}

#[test]
fn aggregation_multiplies_one_hop_tcp_throughput_at_high_rates() {
    for (mcs, width) in [(15, 20), (15, 40)] {
        let (off, rtt_off, _) = one_hop_tcp(mcs, width, false);
        let (on, rtt_on, mpdus) = one_hop_tcp(mcs, width, true);
        eprintln!(
            "HT MCS{mcs} {width} MHz SGI: no A-MPDU {off:.1} Mbit/s RTT {rtt_off:.0} ms; A-MPDU {on:.1} Mbit/s \
             RTT {rtt_on:.0} ms, {mpdus:.1} MPDUs per PPDU"
        );
        assert!(on > 2.5 * off, "{on} vs {off}");
        assert!(rtt_on < rtt_off);
        assert!(mpdus > 20.0, "aggregates near the 32-MPDU limit: {mpdus}");
    }
}

#[test]
fn mpdu_errors_are_repaired_by_retransmission_without_tcp_seeing_loss() {
    // 10 % MPDU error rate, retry limit 7: a frame is lost for good with probability 1e-7,
    // so TCP sees in-order delivery (the reorder buffer holds frames behind a failed one).
    let text = r#"
name = "lossy"
duration = "5s"
hosts = ["a", "b"]
[[wifi]]
name = "w"
standard = "n"
nodes = ["a", "b"]
mcs = 7
per = 0.1
[[flow]]
name = "tcp"
from = "a"
to = "b"
cc = "cubic"
app = { kind = "bulk" }
"#;
    let s = run_toml(text, None).summary;
    let data = wifi_link(&s, "w:a->b");
    let fl = flow(&s, "tcp");
    let retried = f(&data["mpdus"]) - f(&data["mpdus_acked"]);
    eprintln!(
        "PER 0.1: {} MPDUs, {} acked, retransmits at TCP {}",
        data["mpdus"], data["mpdus_acked"], fl["retransmits"]
    );
    assert!(retried / f(&data["mpdus"]) > 0.05, "about 10 % of MPDU transmissions fail");
    assert_eq!(f(&data["mpdu_drops"]), 0.0);
    assert_eq!(f(&fl["retransmits"]), 0.0, "TCP never retransmits");
}

/// Two stations that cannot hear each other send to an AP between them.
fn hidden(rts: bool) -> Value {
    let text = format!(
        r#"
name = "hidden"
duration = "5s"
hosts = ["ap", "s1", "s2"]
[metrics]
warmup = "1s"
[[wifi]]
name = "bss"
standard = "a"
ap = "ap"
stations = ["s1", "s2"]
rate = "24Mbit"
rts = {rts}
hears = [["ap", "s1"], ["ap", "s2"]]
[[flow]]
name = "u1"
from = "s1"
to = "ap"
app = {{ kind = "udp", rate = "20Mbit" }}
[[flow]]
name = "u2"
from = "s2"
to = "ap"
app = {{ kind = "udp", rate = "20Mbit" }}
"#
    );
    run_toml(&text, None).summary
}

#[test]
fn hidden_terminals_collide_and_rts_cts_protects_them() {
    let (plain, rts) = (hidden(false), hidden(true));
    let sum = |s: &Value, key: &str| f(&wifi_link(s, "bss:s1->ap")[key]) + f(&wifi_link(s, "bss:s2->ap")[key]);
    let failed = |s: &Value| sum(s, "failed_ppdus") / sum(s, "ppdus");
    eprintln!(
        "hidden terminals: basic {:.2} Mbit/s, {:.0} % of data PPDUs unacknowledged; RTS/CTS {:.2} Mbit/s, {:.0} %",
        sum(&plain, "throughput_mbps"),
        100.0 * failed(&plain),
        sum(&rts, "throughput_mbps"),
        100.0 * failed(&rts)
    );
    // Without carrier sense between them, the two stations' 0.5 ms frames overlap often; the
    // AP's CTS silences the other station for the whole exchange.
    assert!(failed(&plain) > 0.3, "{}", failed(&plain));
    assert!(failed(&rts) < 0.5 * failed(&plain));
    assert!(sum(&rts, "throughput_mbps") > 1.4 * sum(&plain, "throughput_mbps"));
}

#[test]
fn contention_is_deterministic_for_a_seed_and_varies_across_seeds() {
    let text = builtin_text_cell();
    let a = run_toml(&text, Some(3)).deterministic_summary();
    let b = run_toml(&text, Some(3)).deterministic_summary();
    let c = run_toml(&text, Some(4)).deterministic_summary();
    assert_eq!(a, b);
    assert_ne!(a["wifi"], c["wifi"]);
}

fn builtin_text_cell() -> String {
    let stations: Vec<String> = (0..6).map(|i| format!("\"s{i}\"")).collect();
    let flows: String = (0..6)
        .map(|i| format!("[[flow]]\nname = \"u{i}\"\nfrom = \"s{i}\"\nto = \"ap\"\napp = {{ kind = \"udp\", rate = \"20Mbit\" }}\n"))
        .collect();
    format!(
        "name = \"cell\"\nduration = \"2s\"\nhosts = [\"ap\", {0}]\n[[wifi]]\nname = \"bss\"\nstandard = \"ax\"\nap = \"ap\"\nstations = [{0}]\n{flows}",
        stations.join(", ")
    )
}

/// One saturated 802.11a station at 54 Mbit/s (1500-byte UDP) with a TXOP limit: UDP
/// throughput (Mbit/s) at the AP.
fn txop_throughput(txop: &str) -> f64 {
    let text = format!(
        r#"
name = "txop"
duration = "4s"
hosts = ["ap", "sta"]
[metrics]
warmup = "1s"
[[wifi]]
name = "bss"
standard = "a"
ap = "ap"
stations = ["sta"]
rate = "54Mbit"
edca = {{ txop = "{txop}" }}
[[flow]]
name = "u"
from = "sta"
to = "ap"
app = {{ kind = "udp", rate = "60Mbit" }}
"#
    );
    f(&wifi_link(&run_toml(&text, None).summary, "bss:sta->ap")["throughput_mbps"])
}

#[test]
fn a_txop_sends_as_many_exchanges_as_fit_after_one_channel_access() {
    // 802.11a 54 Mbit/s, 1538-byte MPDU: PPDU 20 + 58 x 4 = 252 us, ACK at 24 Mbit/s 28 us,
    // SIFS 16, AIFS 43, slot 9, CWmin 15. One exchange is 252 + 16 + 28 = 296 us; within a TXOP
    // each further one adds a SIFS: k exchanges fit in 2.528 ms while 296 + 312 (k - 1) <= 2528,
    // so k = 8. Per access: AIFS + 7.5 slots (mean backoff) + 8 x 296 + 7 x 16 us.
    let (slot, aifs, exchange, sifs) = (9.0, 43.0, 296.0, 16.0);
    let per_access = |k: f64| aifs + 7.5 * slot + k * exchange + (k - 1.0) * sifs;
    let want_one = 12_000.0 / per_access(1.0);
    let want_txop = 8.0 * 12_000.0 / per_access(8.0);
    let (one, txop) = (txop_throughput("0ms"), txop_throughput("2.528ms"));
    eprintln!("TXOP: none {one:.2} Mbit/s (model {want_one:.2}), 2.528 ms {txop:.2} (model {want_txop:.2})");
    assert!((one / want_one - 1.0).abs() < 0.02, "{one} vs {want_one}");
    assert!((txop / want_txop - 1.0).abs() < 0.02, "{txop} vs {want_txop}");
}
