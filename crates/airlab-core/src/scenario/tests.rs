//! Errors of scenario files and overrides, and the bounds on what a run may cost, through
//! [`super::load_str`].

use super::limits::{MAX_APP_PACKETS, MAX_CONNECTIONS, MAX_SCENARIO_BYTES, MAX_SERIES_ROWS};
use super::{load_str, Resolved, ScenarioError};

/// tests/data/dumbbell.toml, which the Python tests load too: h1 -- r1 == r2 -- h2 (three
/// hops) for 1 s, with one CUBIC bulk flow "f" from h1 to h2.
const DUMBBELL: &str = include_str!("../../../../tests/data/dumbbell.toml");

/// tests/data/direct.toml: two hosts on one 1000 Gbit/s link (one hop each way) for 1 s, and
/// a flow from h1 to h2, its last table, still without its app.
const DIRECT: &str = include_str!("../../../../tests/data/direct.toml");

/// `text` with `from` (which must occur exactly once) replaced by `to`.
#[track_caller]
fn replace_once(text: &str, from: &str, to: &str) -> String {
    assert_eq!(text.matches(from).count(), 1, "{from:?} must occur once");
    text.replace(from, to)
}

/// The dumbbell with its flow's lines `flow` (`app`, `cc`, ...) in place of its CUBIC bulk ones.
fn dumbbell(flow: &str) -> String {
    replace_once(DUMBBELL, BULK, flow)
}

/// The two hosts on one link for `duration`, with the flow from h1 to h2 whose lines are `flow`.
fn direct(duration: &str, flow: &str) -> String {
    let text = replace_once(DIRECT, "duration = \"1s\"", &format!("duration = \"{duration}\""));
    format!("{text}{flow}\n")
}

const BULK: &str = "cc = \"cubic\"\napp = { kind = \"bulk\" }";

fn load(text: &str) -> Result<Resolved, ScenarioError> {
    load_str(text, "test.toml", &[])
}

fn load_set(text: &str, sets: &[(&str, &str)]) -> Result<Resolved, ScenarioError> {
    let sets: Vec<(String, String)> = sets.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    load_str(text, "test.toml", &sets)
}

/// The error of a scenario that must not load, checked to be at `key` and to contain every
/// fragment of `message`.
#[track_caller]
fn refused(result: Result<Resolved, ScenarioError>, key: &str, message: &[&str]) -> ScenarioError {
    let e = match result {
        Ok(_) => panic!("loaded, expected an error at {key}"),
        Err(e) => e,
    };
    assert_eq!(e.key, key, "{e}");
    for fragment in message {
        assert!(e.message.contains(fragment), "missing {fragment:?} in: {e}");
    }
    e
}

// A. What a run may cost.

#[test]
fn ten_thousand_pings_at_a_microsecond_are_refused() {
    // /tmp/redteam/pingmany.toml: 10^10 pings in 1 s validated, then ran for minutes.
    let text = direct("1s", "app = { kind = \"ping\", interval = \"1us\" }\ncount = 10000");
    refused(load(&text), "flow[0].app.interval", &["10000 copies", "pings.parquet", "more than the 20000000"]);
}

#[test]
fn ping_replies_count_toward_the_row_bound() {
    // 30 million pings, one row each, over one hop each way: within the packet bound.
    let text = direct("30s", "app = { kind = \"ping\", interval = \"1us\" }");
    let e = refused(load(&text), "flow[0].app.interval", &["sends 30000000 pings", "pings.parquet"]);
    assert!(e.message.contains(&format!("more than the {MAX_SERIES_ROWS}")), "{e}");
    // Within the bound, the same flow loads.
    load(&direct("19s", "app = { kind = \"ping\", interval = \"1us\" }")).unwrap();
}

#[test]
fn ping_packets_count_every_hop_they_cross() {
    // 18 million pings are rows enough, but cross 3 hops each way: 108 million packet-hops.
    let mut text = dumbbell("app = { kind = \"ping\", interval = \"1us\" }");
    text = text.replace("duration = \"1s\"", "duration = \"18s\"");
    let e = refused(load(&text), "flow[0].app.interval", &["a ping every 1us and its reply: 1.080e8 packets"]);
    assert!(e.message.contains(&format!("more than the {MAX_APP_PACKETS} a run may carry")), "{e}");
    // One hop each way: 36 million packet-hops.
    load(&direct("18s", "app = { kind = \"ping\", interval = \"1us\" }")).unwrap();
}

#[test]
fn many_udp_flows_at_the_per_flow_bound_are_refused_together() {
    // /tmp/redteam/udpmany.toml: each flow under a million datagrams per second, 10^10 in all.
    let text = direct("1s", "app = { kind = \"udp\", rate = \"11Gbit\", packet_size = \"1372B\" }\ncount = 10000");
    refused(load(&text), "flow[0].app.rate", &["10000 copies", "more than the 100000000"]);
}

#[test]
fn the_packet_bound_is_summed_over_flows_and_allows_a_run_at_it() {
    // 1400-byte datagrams at 11.2 Gbit/s are one per microsecond: 10^6 per flow over 1 s.
    let udp = "app = { kind = \"udp\", rate = \"11200Mbit\", packet_size = \"1372B\" }";
    let at_bound = direct("1s", &format!("{udp}\ncount = 100"));
    assert_eq!(100 * 1_000_000, MAX_APP_PACKETS);
    load(&at_bound).unwrap();
    // Two entries of 50 and 51 copies: neither alone is over the bound.
    let split = format!(
        "{}\n[[flow]]\nfrom = \"h1\"\nto = \"h2\"\n{udp}\ncount = 51\n",
        direct("1s", &format!("{udp}\ncount = 50"))
    );
    refused(load(&split), "flow[1].app.rate", &["flow[1] with its 51 copies", "together send 1.010e8"]);
}

#[test]
fn periodic_connections_are_bounded() {
    let text = direct("2s", "cc = \"reno\"\napp = { kind = \"periodic\", size = \"1448B\", period = \"1us\" }");
    let e = refused(load(&text), "flow[0].app.period", &["opens 2000000 TCP connections"]);
    assert!(e.message.contains(&format!("more than the {MAX_CONNECTIONS}")), "{e}");
    load(&direct("1s", "cc = \"reno\"\napp = { kind = \"periodic\", size = \"1448B\", period = \"1us\" }")).unwrap();
}

#[test]
fn scenario_text_over_a_mebibyte_is_refused_before_it_is_read() {
    let mut text = dumbbell(BULK);
    let pad = MAX_SCENARIO_BYTES as usize + 1 - text.len();
    text.push_str(&"#".repeat(pad));
    let e = refused(load(&text), "", &["the scenario has 1048577 bytes", "expected at most 1048576"]);
    assert_eq!(e.file, "test.toml");
    text.pop();
    load(&text).unwrap();
}

// B. Messages.

#[test]
fn tcp_buffers_of_the_wrong_shape_are_named_as_buffer_triples() {
    // /tmp/redteam/wmem2.toml said "expected a pair of node names".
    let text = dumbbell(&format!("{BULK}\ntcp = {{ wmem = [\"4KB\", \"16KB\"] }}"));
    let e = refused(load(&text), "flow[0].tcp.wmem", &["expected [min, default, max] buffer sizes", "got 2 entries"]);
    assert!(!e.message.contains("node names"), "{e}");
    let text = dumbbell(&format!("{BULK}\ntcp = {{ rmem = \"4MB\" }}"));
    refused(load(&text), "flow[0].tcp.rmem", &["invalid type: string \"4MB\"", "[min, default, max] buffer sizes"]);
    // Pairs of nodes keep their words.
    let text = dumbbell(BULK).replace("between = [\"h1\", \"r1\"]", "between = [\"h1\"]");
    refused(load(&text), "link[0].between", &["expected a pair of node names", "got 1 entry"]);
}

#[test]
fn a_table_given_as_a_list_is_named_as_such() {
    // /tmp/redteam/tcplist.toml said "invalid type: a string, expected a string".
    let text = dumbbell(&format!("{BULK}\ntcp = [1, 2]"));
    refused(load(&text), "flow[0].tcp", &["invalid type: array `[1, 2]`, expected a table"]);
    // serde took an empty list for a table of defaults, and a list for its keys in order.
    let text = dumbbell(&format!("{BULK}\ntcp = []"));
    refused(load(&text), "flow[0].tcp", &["invalid type: array `[]`, expected a table"]);
    let text = dumbbell(BULK).replace("name = \"dumbbell\"", "name = \"dumbbell\"\nmetrics = [\"1s\"]");
    refused(load(&text), "metrics", &["invalid type: array `[\"1s\"]`, expected a table"]);
}

#[test]
fn a_sender_of_the_wrong_shape_says_what_from_takes() {
    // /tmp/redteam/from5.toml and fromnest.toml: "data did not match any variant of untagged enum".
    let text = dumbbell(BULK).replace("from = \"h1\"", "from = 5");
    let e = refused(load(&text), "flow[0].from", &["expected a host name or a list of host names, such as \"h1\""]);
    assert!(!e.message.contains("untagged"), "{e}");
    let text = dumbbell(BULK).replace("from = \"h1\"", "from = [[\"h1\"]]");
    refused(load(&text), "flow[0].from[0]", &["invalid type: sequence, expected a host name"]);
    let text = dumbbell(BULK).replace("from = \"h1\"", "from = [\"h1\"]");
    assert_eq!(load(&text).unwrap().flows[0].from, "h1");
}

#[test]
fn seeds_take_the_full_u64_range_from_set_and_the_file() {
    let top = u64::MAX.to_string();
    let r = load_set(&dumbbell(BULK), &[("seed", &top)]).unwrap();
    assert_eq!(r.scenario.seed, u64::MAX);
    let r = load(&dumbbell(BULK).replace("name = \"dumbbell\"", &format!("name = \"dumbbell\"\nseed = \"{top}\"")))
        .unwrap();
    assert_eq!(r.scenario.seed, u64::MAX);
    assert_eq!(load_set(&dumbbell(BULK), &[("seed", "7")]).unwrap().scenario.seed, 7);
    let expected = "expected a whole number from 0 to 18446744073709551615";
    for bad in ["18446744073709551616", "-1", "abc", "1.5", "\"+5\""] {
        let e = refused(load_set(&dumbbell(BULK), &[("seed", bad)]), "seed", &[expected]);
        assert!(e.message.contains(&format!("(from --set seed={bad})")), "{e}");
    }
}

#[test]
fn dscp_out_of_range_names_its_six_bits() {
    for bad in ["64", "300", "-1"] {
        let text = dumbbell(&format!("{BULK}\ndscp = {bad}"));
        let e = refused(load(&text), "flow[0].dscp", &["from 0 to 63 (the 6 bits of the DS field)"]);
        assert!(!e.message.contains("255"), "{e}");
    }
    let text = dumbbell(&format!("{BULK}\ndscp = 63"));
    assert_eq!(load(&text).unwrap().flows[0].dscp, 63);
}

#[test]
fn set_into_a_list_the_file_does_not_have_says_what_is_there() {
    let text = dumbbell(BULK);
    // A pfifo has no classes: it was "`link[1].qdisc.classes` is a table, not a list".
    let e = refused(
        load_set(&text, &[("link.bottleneck.qdisc.classes[0].rate", "5Mbit")]),
        "link.bottleneck.qdisc.classes[0].rate",
        &["`link[1].qdisc` has no `classes` (it has keys kind, limit)", "no entry 0 to change", "set the whole list"],
    );
    assert!(!e.message.contains("is a table, not a list"), "{e}");
    refused(load_set(&text, &[("route.0.at", "r1")]), "route.0.at", &["the scenario has no `route`", "no entry 0"]);
    refused(
        load_set(&text, &[("wifi.x.mcs", "3")]),
        "wifi.x.mcs",
        &["the scenario has no `wifi`", "no entry named \"x\""],
    );
    // A key the schema does not know is not a list either.
    let e = refused(
        load_set(&text, &[("flow.0.nosuch.0", "1")]),
        "flow.0.nosuch.0",
        &["`flow[0]` has no `nosuch` (it has keys app, cc, from, name, to)", "no entry 0 to change"],
    );
    assert!(!e.message.contains("whole list"), "{e}");
    // Lists of plain values have no names.
    refused(
        load_set(&text, &[("hosts.h1", "h9")]),
        "hosts.h1",
        &["`hosts` is a list of 2 entries without names (\"h1\", \"h2\")", "0 to 1, such as `hosts.0`"],
    );
    // An entry is found by name even after one without a name (it went to link[0] here, the
    // first of the named ones, and mended it).
    let odd = text.replace("between = [\"h1\", \"r1\"]", "between = \"h1\"");
    refused(
        load_set(&odd, &[("link.bottleneck.between", "[\"h1\", \"r1\"]")]),
        "link[0].between",
        &["invalid type: string \"h1\""],
    );
    // Missing tables are still created.
    load_set(&text, &[("metrics.interval", "10ms"), ("link.bottleneck.forward.rate", "5Mbit")]).unwrap();
}

#[test]
fn errors_an_override_causes_name_it() {
    let text = dumbbell(BULK);
    // The error is at a key the override did not write.
    refused(
        load_set(&text, &[("hosts.0", "h9")]),
        "link[0].between[0]",
        &["unknown node \"h1\"", "(from --set hosts.0=h9)"],
    );
    let e = refused(
        load_set(&text, &[("duration", "2s"), ("flow.0.app.kind", "udp")]),
        "flow[0].cc",
        &["does not use TCP", "(from --set flow.0.app.kind=udp)"],
    );
    assert!(!e.message.contains("duration=2s"), "only the override that causes it: {e}");
    // An error of the file itself is not blamed on an override.
    let broken = text.replace("cc = \"cubic\"", "cc = \"vegas\"");
    let e = refused(load_set(&broken, &[("duration", "2s")]), "flow[0].cc", &["unknown congestion control"]);
    assert!(!e.message.contains("--set"), "{e}");
}
