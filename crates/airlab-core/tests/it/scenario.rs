//! Loading, checking and resolving scenario files, through the public API.

use airlab_core::params::Value;
use airlab_core::qdisc::{self, Config};
use airlab_core::scenario::{load_file, load_str, Resolved, ScenarioError};
use airlab_core::sim::{MS, SEC};
use std::path::Path;

use crate::builders::*;
use crate::common::{assert_error, assert_refused, load_with, replace_once, Edit};

fn pfifo_config(limit: i64) -> Config {
    qdisc::Config::named("pfifo").with("limit", Value::Int(limit))
}

/// h1 -- r1 == 10 Mbit/s, 8 ms, pfifo 50 == r2 -- h2 for 10 s: a bulk CUBIC flow from h1 and a
/// ping from h2.
fn dumbbell() -> String {
    let bottleneck = Link::bottleneck("10Mbit", "8ms").qdisc(pfifo(50));
    let scenario = Scenario::new("dumbbell", "10s").dumbbell(&["h1"], &["h2"], "100Mbit", bottleneck);
    scenario.flow(Flow::bulk("h1", "h2", "cubic")).flow(Flow::new("h2", "h1").app(PING)).to_string()
}

fn load(text: &str) -> Result<Resolved, ScenarioError> {
    load_str(text, "test.toml", &[])
}

/// The dumbbell with `from` replaced by `to` (which must occur exactly once).
#[track_caller]
fn dumbbell_with(from: &str, to: &str) -> String {
    replace_once(&dumbbell(), from, to)
}

#[test]
fn dumbbell_resolves_with_defaults() {
    let r = load(&dumbbell()).unwrap();
    assert_eq!(r.directions.len(), 6);
    let bottleneck = &r.directions[2];
    assert_eq!(
        (bottleneck.link.as_str(), bottleneck.from.as_str(), bottleneck.to.as_str()),
        ("bottleneck", "r1", "r2")
    );
    assert_eq!(bottleneck.rate.0, 10_000_000);
    assert_eq!(bottleneck.delay.0, 8 * MS);
    assert_eq!(bottleneck.qdisc, pfifo_config(50));
    let reverse = &r.directions[3];
    assert_eq!((reverse.from.as_str(), reverse.to.as_str()), ("r2", "r1"));
    assert_eq!(reverse.qdisc, pfifo_config(50));
    let access = &r.directions[0];
    assert_eq!(access.link, "h1-r1");
    assert_eq!(access.qdisc, pfifo_config(1000));
    assert_eq!((access.loss, access.overhead, access.device_queue), (0.0, 0, 1));
    assert_eq!(r.direction("r2", "h2"), Some(4));

    let names: Vec<&str> = r.flows.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["flow0", "flow1"]);
    let bulk = &r.flows[0];
    assert_eq!(bulk.cc.as_ref().map(|c| c.name()), Some("cubic"));
    assert_eq!((bulk.start, bulk.stop), (0, 10_000 * MS));
    let tcp = bulk.tcp.config();
    assert_eq!((tcp.mss, tcp.initial_cwnd), (1448, 10));
    let ping = &r.flows[1].app;
    assert_eq!((ping.name(), ping.time("interval"), ping.bytes("size")), ("ping", 100 * MS, 64));
    assert_eq!(r.flows[1].cc, None);

    // The resolved scenario is written as JSON with canonical unit strings.
    let json = serde_json::to_string(&r).unwrap();
    assert!(json.contains(r#""rate":"10Mbit""#), "{json}");
    assert!(json.contains(r#"{"at":"h1","to":"h2","via":"r1"}"#), "{json}");
}

#[test]
fn dumbbell_routes_are_shortest_paths() {
    let r = load(&dumbbell()).unwrap();
    let hop = |at: &str, to: &str| r.next_hop.get(&(at.to_string(), to.to_string())).map(String::as_str);
    assert_eq!(hop("h1", "h2"), Some("r1"));
    assert_eq!(hop("r1", "h2"), Some("r2"));
    assert_eq!(hop("r2", "h2"), Some("h2"));
    assert_eq!(hop("h2", "h1"), Some("r2"));
    assert_eq!(hop("r2", "h1"), Some("r1"));
    assert_eq!(hop("r1", "h1"), Some("h1"));
    // Hosts do not forward, so no route to a host ever goes through another host.
    assert_eq!(r.next_hop.len(), 6);
}

/// 1 Mbit/s, 1 ms links between the nodes of each pair, in order.
fn links(pairs: &[(&str, &str)]) -> Vec<Link> {
    pairs.iter().map(|(a, b)| Link::new(a, b, "1Mbit", "1ms")).collect()
}

/// h1 - r1 - r2 - r3 - h2 (four hops), plus a longer detour r1 - r4 - r5 - r3 whose links are
/// declared first: fewest hops must win over link order.
fn chain() -> String {
    let detour = [("r1", "r4"), ("r4", "r5"), ("r5", "r3")];
    let direct = [("h1", "r1"), ("r1", "r2"), ("r2", "r3"), ("r3", "h2")];
    let scenario = Scenario::new("chain", "1s").hosts(&["h1", "h2"]).routers(&["r1", "r2", "r3", "r4", "r5"]);
    scenario.links(links(&detour)).links(links(&direct)).flow(Flow::bulk("h1", "h2", "reno")).to_string()
}

#[test]
fn chain_routes_take_fewest_hops() {
    let r = load(&chain()).unwrap();
    let path = |from: &str, to: &str| {
        let mut path = vec![from.to_string()];
        while path.last().unwrap() != to {
            let at = path.last().unwrap().clone();
            path.push(r.next_hop[&(at, to.to_string())].clone());
        }
        path.join(" ")
    };
    assert_eq!(path("h1", "h2"), "h1 r1 r2 r3 h2");
    assert_eq!(path("h2", "h1"), "h2 r3 r2 r1 h1");
    // From r4 the detour is the shorter way: 3 hops via r5 against 4 via r1.
    assert_eq!(path("r4", "h2"), "r4 r5 r3 h2");
}

#[test]
fn ties_are_broken_by_link_order() {
    // A square r1 - r2 - r4 and r1 - r3 - r4: both two hops; the link declared first wins.
    let square = |first: &str, second: &str| {
        let pairs = [("h1", "r1"), ("r1", first), ("r1", second), ("r2", "r4"), ("r3", "r4"), ("r4", "h2")];
        let scenario = Scenario::new("square", "1s").hosts(&["h1", "h2"]).routers(&["r1", "r2", "r3", "r4"]);
        scenario.links(links(&pairs)).to_string()
    };
    let key = ("r1".to_string(), "h2".to_string());
    assert_eq!(load(&square("r2", "r3")).unwrap().next_hop[&key], "r2");
    assert_eq!(load(&square("r3", "r2")).unwrap().next_hop[&key], "r3");
}

#[test]
fn explicit_routes_are_kept() {
    let text = chain() + "\n[[route]]\nat = \"r1\"\nto = \"h2\"\nvia = \"r4\"\n";
    let r = load(&text).unwrap();
    assert_eq!(r.next_hop[&("r1".to_string(), "h2".to_string())], "r4");
    assert_eq!(r.next_hop[&("r4".to_string(), "h2".to_string())], "r5");
}

#[test]
fn count_expands_flows() {
    let text = dumbbell_with("cc = \"cubic\"", "cc = \"cubic\"\nname = \"bulk\"\ncount = 3\nstart = \"1.5s\"");
    let r = load(&text).unwrap();
    let names: Vec<&str> = r.flows.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["bulk.1", "bulk.2", "bulk.3", "flow1"]);
    assert!(r.flows[..3].iter().all(|f| f.start == 1_500 * MS));
}

#[test]
fn per_direction_settings_layer_over_shared_ones() {
    let text = dumbbell_with(
        "qdisc = { kind = \"pfifo\", limit = 50 }",
        "qdisc = { kind = \"pfifo\", limit = 50 }\nloss = 0.01\nreverse = { rate = \"1Mbit\", qdisc = { kind = \"bfifo\", limit = \"30KB\" } }",
    );
    let r = load(&text).unwrap();
    assert_eq!((r.directions[2].rate.0, r.directions[2].loss), (10_000_000, 0.01));
    assert_eq!((r.directions[3].rate.0, r.directions[3].loss), (1_000_000, 0.01));
    assert_eq!(r.directions[3].delay.0, 8 * MS);
    assert_eq!(r.directions[3].qdisc, qdisc::Config::named("bfifo").with("limit", Value::Bytes(30_000)));
}

#[test]
fn cake_defaults_follow_linux() {
    let text = dumbbell_with("kind = \"pfifo\", limit = 50", "kind = \"cake\"");
    let r = load(&text).unwrap();
    let cake = qdisc::CakeConfig::of(&r.directions[2].qdisc);
    assert_eq!(cake, qdisc::CakeConfig::default());
    assert_eq!(cake.bandwidth, None);
    assert_eq!(cake.rtt, 100 * MS);
    assert!(cake.ecn);
    let text = dumbbell_with(
        "kind = \"pfifo\", limit = 50",
        "kind = \"cake\", bandwidth = \"8Mbit\", isolation = \"dual-srchost\", tins = \"besteffort\", overhead = -14",
    );
    let r = load(&text).unwrap();
    let cake = qdisc::CakeConfig::of(&r.directions[2].qdisc);
    assert_eq!((cake.bandwidth, cake.overhead), (Some(8_000_000), -14));
    assert_eq!(cake.isolation, qdisc::cake::CakeIsolation::DualSrchost);
}

// ---- malformed scenarios: each names the key and says what was expected (the tables of
// cases are in refused/scenario.toml) ----

/// The dumbbell with a case of refused/scenario.toml: `replace` as for [`dumbbell_with`], `edit`
/// appended, `set` given on load.
fn edited(edit: Edit) -> Option<String> {
    Some(match edit {
        Edit::Replace(from, to) => dumbbell_with(from, to),
        Edit::Snippet(extra) => dumbbell() + extra,
        Edit::Set(..) => dumbbell(),
    })
}

#[test]
fn malformed_links_and_nodes_are_refused_at_their_key() {
    assert_refused("scenario", "links_and_nodes", edited);
}

#[test]
fn malformed_qdiscs_are_refused_at_their_key() {
    assert_refused("scenario", "qdiscs", edited);
}

#[test]
fn malformed_flows_are_refused_at_their_key() {
    assert_refused("scenario", "flows", edited);
}

#[test]
fn unknown_keys_are_refused() {
    let text = format!("colour = \"blue\"\n{}", dumbbell());
    assert_error(load(&text), "colour", "unknown field `colour`, expected one of");
}

#[test]
fn routes_and_metrics_that_do_not_fit_are_refused() {
    assert_refused("scenario", "routes_and_metrics", edited);
}

#[test]
fn disconnected_hosts_have_no_path() {
    let text = dumbbell_with("hosts = [\"h1\", \"h2\"]", "hosts = [\"h1\", \"h2\", \"h3\"]")
        + "[[flow]]\nfrom = \"h1\"\nto = \"h3\"\napp = { kind = \"udp\" }\n";
    assert_error(load(&text), "flow[2]", "no path from \"h1\" to \"h3\"");
}

#[test]
fn toml_syntax_error_gives_line_and_column() {
    let text = "name = \"x\"\nduration = \"1s\"\nhosts = [\"h1\"\n";
    let err = load(text).unwrap_err();
    assert_eq!(err.key, "");
    assert!(err.message.contains("TOML syntax error at line 3"), "{err}");
    assert!(err.to_string().starts_with("test.toml: TOML syntax error at line 3, column"), "{err}");
}

#[test]
fn error_display_is_file_key_message() {
    let text = dumbbell_with("cc = \"cubic\"", "cc = \"vegas\"");
    let err = load(&text).unwrap_err();
    let names: Vec<&str> = airlab_core::tcp::cc::REGISTRY.iter().map(|c| c.name).collect();
    let names = names.join(", ");
    assert_eq!(
        err.to_string(),
        format!("test.toml: flow[0].cc: unknown congestion control \"vegas\", expected one of: {names}")
    );
}

// ---- --set overrides ----

#[test]
fn set_qdisc_limit_of_a_link_by_name() {
    let r = load_with(&dumbbell(), &[("link.bottleneck.qdisc.limit", "100")]).unwrap();
    assert_eq!(r.directions[2].qdisc, pfifo_config(100));
    let r = load_with(&dumbbell(), &[("link[1].qdisc.limit", "7")]).unwrap();
    assert_eq!(r.directions[3].qdisc, pfifo_config(7));
}

#[test]
fn set_by_bare_link_or_flow_name() {
    let r = load_with(&dumbbell(), &[("bottleneck.qdisc.limit", "20")]).unwrap();
    assert_eq!(r.directions[2].qdisc, pfifo_config(20));
    let r = load_with(&dumbbell(), &[("flow0.cc", "reno")]).unwrap();
    assert_eq!(r.flows[0].cc.as_ref().map(|c| c.name()), Some("reno"));
    let err = load_with(&dumbbell(), &[("nowhere.rate", "1Mbit")]).unwrap_err();
    assert!(err.message.contains("`nowhere` is neither a top-level key"), "{err}");
}

#[test]
fn set_link_by_default_name() {
    let r = load_with(&dumbbell(), &[("link.h1-r1.rate", "1Gbit"), ("link.r2-h2.delay", "2.5ms")]).unwrap();
    assert_eq!(r.directions[0].rate.0, 1_000_000_000);
    assert_eq!(r.directions[5].delay.0, 2_500_000);
}

#[test]
fn set_flow_cc_by_index() {
    let r = load_with(&dumbbell(), &[("flow.0.cc", "reno")]).unwrap();
    assert_eq!(r.flows[0].cc.as_ref().map(|c| c.name()), Some("reno"));
    let r = load_with(&dumbbell(), &[("flow[0].cc", "\"reno\""), ("flow[0].tcp.ecn", "true")]).unwrap();
    assert_eq!(r.flows[0].cc.as_ref().map(|c| c.name()), Some("reno"));
    assert!(r.flows[0].tcp.config().ecn);
}

#[test]
fn set_top_level_values() {
    let r = load_with(&dumbbell(), &[("duration", "30s"), ("seed", "7"), ("metrics.interval", "10ms")]).unwrap();
    assert_eq!(r.scenario.duration.0, 30_000 * MS);
    assert_eq!(r.scenario.seed, 7);
    assert_eq!(r.scenario.metrics.interval.0, 10 * MS);
    assert_eq!(r.flows[0].stop, 30_000 * MS);
}

#[test]
fn set_nonexistent_key_is_refused() {
    let err = load_with(&dumbbell(), &[("link.bottleneck.qdisc.limt", "5")]).unwrap_err();
    assert_eq!(err.key, "link[1].qdisc.limt");
    assert!(err.message.contains("unknown key for pfifo, expected one of: limit"), "{err}");
    assert!(err.message.contains("(from --set link.bottleneck.qdisc.limt=5)"), "{err}");

    let err = load_with(&dumbbell(), &[("flow.0.colour", "red")]).unwrap_err();
    assert_eq!(err.key, "flow[0].colour");
    assert!(err.message.contains("from --set flow.0.colour=red"), "{err}");
}

#[test]
fn set_with_bad_path_is_refused() {
    assert_refused("scenario", "bad_set_paths", edited);
}

#[test]
fn set_value_is_checked_like_the_file() {
    let err = load_with(&dumbbell(), &[("flow.0.cc", "vegas")]).unwrap_err();
    assert_eq!(err.key, "flow[0].cc");
    assert!(err.message.contains("unknown congestion control \"vegas\""), "{err}");
    let err = load_with(&dumbbell(), &[("link.bottleneck.rate", "10")]).unwrap_err();
    assert_eq!(err.key, "link[1].rate");
    assert!(err.message.contains("has no unit") && err.message.contains("from --set"), "{err}");
}

// ---- AQM qdiscs ----

#[test]
fn codel_and_fq_codel_take_linux_defaults() {
    let r = load(&dumbbell_with("kind = \"pfifo\", limit = 50", "kind = \"codel\"")).unwrap();
    let q = &r.directions[2].qdisc;
    assert_eq!((q.name(), q.int("limit"), q.time("target"), q.time("interval")), ("codel", 1000, 5 * MS, 100 * MS));
    assert_eq!((q.flag("ecn"), q.opt_time("ce_threshold")), (false, None));
    let r = load(&dumbbell_with("kind = \"pfifo\", limit = 50", "kind = \"fq_codel\"")).unwrap();
    let q = &r.directions[2].qdisc;
    assert_eq!(
        (q.int("limit"), q.int("flows"), q.bytes("quantum"), q.bytes("memory_limit")),
        (10240, 1024, 1514, 32 << 20)
    );
    assert_eq!(
        (q.time("target"), q.time("interval"), q.flag("ecn"), q.int("drop_batch")),
        (5 * MS, 100 * MS, true, 64)
    );
    assert_eq!(q.opt_time("ce_threshold"), None);
    // The resolved scenario writes the qdisc back in the file's units, without the unset
    // ce_threshold, and what it writes reads back to the same configuration.
    let json = serde_json::to_value(&r).unwrap();
    let written = &json["directions"][2]["qdisc"];
    assert_eq!(written["kind"], "fq_codel");
    assert_eq!(
        (&written["target"], &written["quantum"], &written["ecn"]),
        (&"5ms".into(), &"1514B".into(), &true.into())
    );
    assert!(written.get("ce_threshold").is_none(), "{written}");
    let table = toml::Value::try_from(written).unwrap();
    let again = dumbbell_with("kind = \"pfifo\", limit = 50", table.to_string().trim_matches(['{', '}', ' ']));
    assert_eq!(&load(&again).unwrap_or_else(|e| panic!("{e}\n{again}")).directions[2].qdisc, q);
}

#[test]
fn set_codel_parameters() {
    let sets = [
        ("bottleneck.qdisc.kind", "fq_codel"),
        ("link.bottleneck.qdisc.target", "2ms"),
        ("bottleneck.qdisc.ce_threshold", "1ms"),
        ("bottleneck.qdisc.quantum", "300B"),
    ];
    let r = load_with(&dumbbell(), &sets).unwrap();
    let q = &r.directions[2].qdisc;
    assert_eq!(
        (q.int("limit"), q.time("target"), q.opt_time("ce_threshold"), q.bytes("quantum")),
        (50, 2 * MS, Some(MS), 300)
    );
}

/// The dumbbell with a case's `edit` as the keys of its bottleneck's qdisc, in place of
/// `kind = "pfifo", limit = 50`.
fn bottleneck_qdisc(edit: Edit) -> Option<String> {
    edit.snippet().map(|keys| dumbbell_with("kind = \"pfifo\", limit = 50", keys))
}

#[test]
fn bad_codel_parameters_name_their_key() {
    assert_refused("scenario", "codel_parameters", bottleneck_qdisc);
    let err = load_with(&dumbbell(), &[("bottleneck.qdisc.kind", "codel"), ("bottleneck.qdisc.interval", "1ms")])
        .unwrap_err();
    assert_eq!(err.key, "link[1].qdisc.target");
    assert!(err.message.contains("less than interval"), "{err}");
}

#[test]
fn xlayer_defaults_and_errors() {
    let r = load(&dumbbell_with("kind = \"pfifo\", limit = 50", "kind = \"xlayer\"")).unwrap();
    let q = &r.directions[2].qdisc;
    assert_eq!((q.real("z"), q.real("k"), q.choice("mean"), q.choice("wrr")), (4.0, 3.0, "recent", "intended"));
    assert_eq!((q.time("history"), q.time("active_timeout")), (10 * SEC, 2 * SEC));
    assert_eq!(*qdisc::child(q, "bulk"), qdisc::Config::named("fq_codel"));
    assert_eq!(qdisc::child(q, "bulk"), qdisc::child(q, "mice"));

    assert_refused("scenario", "xlayer", bottleneck_qdisc);
    let x = dumbbell_with("kind = \"pfifo\", limit = 50", "kind = \"xlayer\", z = 4");
    let r = load_with(&x, &[("bottleneck.qdisc.wrr", "literal")]).unwrap();
    assert_eq!(r.directions[2].qdisc.choice("wrr"), "literal");
}

#[test]
fn cc_params_are_read_against_the_algorithm() {
    let cubic = |params: &str| dumbbell_with("cc = \"cubic\"", &format!("cc = \"cubic\"\ncc_params = {{ {params} }}"));
    let r = load(&cubic("beta = 0.5, hystart = \"hystart++\"")).unwrap();
    let cc = r.flows[0].cc.as_ref().unwrap();
    assert_eq!((cc.real("beta"), cc.choice("hystart"), cc.real("c")), (0.5, "hystart++", 0.4));
    // A whole number is a number.
    assert_eq!(load(&cubic("c = 1")).unwrap().flows[0].cc.as_ref().unwrap().real("c"), 1.0);
    assert_refused("scenario", "cc_params", edited);
    let err = load_with(&dumbbell(), &[("flow.0.cc", "bbr3"), ("flow.0.cc_params.constants", "draft")]).unwrap_err();
    assert_eq!(err.key, "flow[0].cc_params.constants");
    assert!(
        err.message.contains("linux, ietf") && err.message.contains("(from --set flow.0.cc_params.constants=draft)")
    );
}

#[test]
fn flows_whose_algorithms_conflict_over_shared_state_are_refused() {
    let fairtt = |window: &str| format!("cc = \"fairtt\"\ncc_params = {{ registry_window_s = {window} }}");
    let text = dumbbell_with("cc = \"cubic\"", &fairtt("1"));
    let text = text.replace("app = { kind = \"ping\" }", &format!("app = {{ kind = \"bulk\" }}\n{}", fairtt("2")));
    assert_error(load(&text), "flow[1].cc_params", "two registry windows");
    load(&text.replace("registry_window_s = 2", "registry_window_s = 1")).expect("one window per group");
}

#[test]
fn pfifo_head_drop_is_a_qdisc_like_any_other() {
    let r = load_with(&dumbbell(), &[("bottleneck.qdisc.kind", "pfifo_head_drop")]).unwrap();
    assert_eq!(r.directions[2].qdisc, qdisc::Config::named("pfifo_head_drop").with("limit", Value::Int(50)));
}

// ---- built-in scenarios ----

#[test]
fn builtin_scenarios_load() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/basics");
    let mut names = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "toml") {
            let r = load_file(&path, &[]).unwrap_or_else(|e| panic!("{e}"));
            names.push(r.scenario.name.clone());
            assert_eq!(r.directions.iter().filter(|d| d.link == "bottleneck").count(), 2, "{}", path.display());
        }
    }
    names.sort();
    assert_eq!(
        names,
        ["dumbbell-2cubic", "dumbbell-bbr3-vs-cubic", "dumbbell-cubic", "dumbbell-cubic-vs-reno", "gigabit-50flows"]
    );

    let gigabit = load_file(&dir.join("gigabit-50flows.toml"), &[]).unwrap();
    assert_eq!(gigabit.flows.len(), 50);
    assert_eq!(gigabit.flows[49].name, "cubic.50");
    // Base RTT: twice the sum of one-way delays along the path.
    let one_way: u64 = gigabit.directions.iter().step_by(2).map(|d| d.delay.0).sum();
    assert_eq!(2 * one_way, 20 * MS);
}

#[test]
fn missing_file_is_reported() {
    let err = load_file(Path::new("/nonexistent/x.toml"), &[]).unwrap_err();
    assert_eq!(err.file, "/nonexistent/x.toml");
    assert!(err.message.contains("cannot read the scenario file"), "{err}");
}

/// Values the engine's integers cannot hold, or that would make a run unbounded, are refused
/// at validation with the bound they break (they used to wrap: an overhead of 2^32 - 1 bytes
/// acted as -1, a delay of 2^64 - 1 ns as 0, a huge rto_min as a short one).
#[test]
fn quantities_beyond_their_documented_range_are_refused() {
    assert_refused("scenario", "beyond_documented_range", edited);
    // The bounds themselves are accepted.
    let edge = [("duration", "604800s"), ("metrics.interval", "1s"), ("link.bottleneck.overhead", "256")];
    load_with(&dumbbell(), &edge).expect("the largest duration and overhead load");
    load_with(&dumbbell(), &[("flow.0.tcp.rto_min", "120s"), ("flow.0.tcp.rwnd", "1073725440B")])
        .expect("Linux's limits");
    load_with(&dumbbell(), &[("flow.0.tcp.timer_hz", "0")]).expect("exact timers");
}

#[test]
fn a_udp_flow_sends_at_most_a_million_datagrams_per_second() {
    let udp = |app: &str| dumbbell().replace("app = { kind = \"ping\" }", &format!("app = {app}"));
    // 1 Gbit/s of 125-byte IP packets (97 bytes of payload) is 1.0e6 per second: the bound.
    load(&udp("{ kind = \"udp\", rate = \"1Gbit\", packet_size = \"97B\" }")).expect("at the bound");
    load(&udp("{ kind = \"udp\", rate = \"1Gbit\", packet_size = \"96B\" }")).unwrap_err();
    load(&udp("{ kind = \"udp\", rate = \"1Gbit\", packet_size = \"1472B\" }")).expect("85,000 datagrams per second");
    assert_error(
        load(&udp("{ kind = \"udp\", rate = \"10Gbit\", packet_size = \"100B\" }")),
        "flow[1].app.rate",
        "more than the 1000000 a flow may send",
    );
    // Without a rate, a UDP flow saturates its first hop: a 1000 Gbit/s access link.
    let fast = udp("{ kind = \"udp\" }").replacen("rate = \"100Mbit\"", "rate = \"1000Gbit\"", 2);
    assert_error(load(&fast), "flow[1].app.packet_size", "saturating the first hop at 1000Gbit");
}

#[test]
fn too_many_nodes_links_and_flows_are_refused_before_anything_is_expanded() {
    let hosts: Vec<String> = (0..1025).map(|i| format!("\"h{i}\"")).collect();
    let text = format!("name = \"big\"\nduration = \"1s\"\nhosts = [{}]\n", hosts.join(", "));
    assert_error(load(&text), "hosts", "1025 hosts and 0 routers are more than the 1024 nodes");
    let flows = dumbbell().replace("app = { kind = \"bulk\" }", "app = { kind = \"bulk\" }\ncount = 6000");
    let text = flows.replace("app = { kind = \"ping\" }", "app = { kind = \"ping\" }\ncount = 5000");
    assert_error(load(&text), "flow[1].count", "brings the scenario to 11000 flows");
}

/// A TCP profile sets the whole group of defaults; a key given beside it wins; the resolved
/// scenario writes every value out.
#[test]
fn a_tcp_profile_sets_linux_defaults_and_keys_override_it() {
    use airlab_core::tcp::LossDetection;
    let linux6 = load_with(&dumbbell(), &[]).unwrap().flows[0].tcp.config();
    assert_eq!(linux6.recovery, LossDetection::RackTlp);
    assert!(linux6.small_queues && linux6.frto && linux6.sack_compression);
    assert_eq!((linux6.rmem[2], linux6.wmem[2]), (32 << 20, 4 << 20));
    let old = load_with(&dumbbell(), &[("flow.0.tcp.profile", "linux-3.3")]).unwrap();
    let tcp = old.flows[0].tcp.config();
    assert_eq!(tcp.recovery, LossDetection::Rfc6675);
    assert!(!tcp.small_queues && !tcp.sack_compression && tcp.frto);
    assert_eq!(tcp.rmem, [4096, 87380, 6 << 20]);
    assert_eq!(old.flows[0].tcp.recovery, Some(airlab_core::scenario::model::LossDetection::Rfc6675));
    let mixed = load_with(&dumbbell(), &[("flow.0.tcp.profile", "linux-3.3"), ("flow.0.tcp.recovery", "rack-tlp")]);
    assert_eq!(mixed.unwrap().flows[0].tcp.config().recovery, LossDetection::RackTlp);
    // ns-3's TcpSocketBase attribute defaults (releases 3.36-3.41).
    let ns3 = load_with(&dumbbell(), &[("flow.0.tcp.profile", "ns-3")]).unwrap().flows[0].tcp.config();
    assert_eq!((ns3.mss, ns3.initial_cwnd, ns3.rwnd), (536, 10, Some(131072)));
    assert_eq!((ns3.rto_min, ns3.rto_mode), (airlab_core::sim::SEC, airlab_core::tcp::rto::RtoMode::Rfc6298));
    assert_eq!((ns3.recovery, ns3.jiffies.hz(), ns3.stack), (LossDetection::Rfc6675, 0, airlab_core::tcp::Stack::Ns3));
    assert!(ns3.delayed_ack && !ns3.sack_compression && !ns3.frto && !ns3.small_queues);
    assert_refused("scenario", "tcp_profile", edited);
}

#[test]
fn copies_of_a_flow_take_their_senders_from_a_list_in_turn() {
    let text = crate::common::builtin("basics/dumbbell-cubic")
        .replace("hosts = [\"h1\", \"h2\"]", "hosts = [\"h1\", \"h2\", \"h3\"]")
        + "\n[[link]]\nbetween = [\"h3\", \"r1\"]\nrate = \"100Mbit\"\ndelay = \"1ms\"\n";
    let text = text.replace("from = \"h1\"", "from = [\"h1\", \"h3\"]\ncount = 3");
    let r = load_with(&text, &[]).expect("valid");
    let senders: Vec<(&str, &str)> = r.flows.iter().map(|f| (f.name.as_str(), f.from.as_str())).collect();
    assert_eq!(senders, [("cubic.1", "h1"), ("cubic.2", "h3"), ("cubic.3", "h1")]);
    // `count` picks how many of the devices send.
    let one = load_with(&text, &[("flow.cubic.count", "1")]).expect("valid");
    assert_eq!(one.flows.len(), 1);
    assert_refused("scenario", "flow_senders", |edit| edit.replace().map(|(from, to)| replace_once(&text, from, to)));
}

/// A link's own settings are checked even where both directions override them: a shadowed
/// `qdisc = { kind = "nosuch", limit = "banana" }` used to load unread.
#[test]
fn a_links_shared_settings_are_checked_where_both_directions_override_them() {
    let fq = r#"{ kind = "fq_codel" }"#;
    let both = [("link.bottleneck.forward.qdisc", fq), ("link.bottleneck.reverse.qdisc", fq)];
    let with = |key: &'static str, value: &'static str| {
        let mut sets = both.to_vec();
        sets.push((key, value));
        load_with(&dumbbell(), &sets)
    };
    let bogus = r#"{ kind = "nosuch", limit = "banana" }"#;
    assert_error(with("link.bottleneck.qdisc", bogus), "link[1].qdisc.kind", "unknown qdisc kind `nosuch`");
    let banana = r#"{ kind = "pfifo", limit = "banana" }"#;
    assert_error(with("link.bottleneck.qdisc", banana), "link[1].qdisc.limit", "whole number");
    let r = with("link.bottleneck.qdisc", r#"{ kind = "pfifo", limit = 7 }"#).expect("a valid shadowed qdisc");
    assert_eq!((r.directions[2].qdisc.name(), r.directions[3].qdisc.name()), ("fq_codel", "fq_codel"));
    // Every other shared key too.
    let sides = [("link.bottleneck.forward.loss", "0.1"), ("link.bottleneck.reverse.loss", "0.1")];
    let sets = [sides[0], sides[1], ("link.bottleneck.loss", "5.0")];
    assert_error(load_with(&dumbbell(), &sets), "link[1].loss", "probability");
}

/// A bulk app takes no keys: one given (a size meant for a transfer) is a typo, refused as every
/// other app refuses its unknown keys, not a silently different run.
#[test]
fn a_bulk_app_refuses_keys_it_does_not_take() {
    let sets = [("flow.0.app", r#"{ kind = "bulk", size = "1MB" }"#)];
    assert_error(load_with(&dumbbell(), &sets), "flow[0].app.size", "unknown key for bulk, expected one of: (none)");
    load_with(&dumbbell(), &[("flow.0.app", r#"{ kind = "bulk" }"#)]).expect("a bulk app");
}

/// Each app's keys are read against the parameters it declares: out of range, of the wrong
/// type or missing, the error names the key below the flow's `app`.
#[test]
fn app_keys_are_checked_against_their_declarations() {
    assert_refused("scenario", "app_keys", edited);
    // The bounds themselves load, and the resolved flow writes its app with every value.
    let udp = r#"{ kind = "udp", rate = "1Mbit", packet_size = "65507B" }"#;
    let edge = load_with(&dumbbell(), &[("flow.1.app", udp)]).expect("the largest datagram");
    let written = serde_json::to_value(&edge).unwrap()["flows"][1]["app"].clone();
    assert_eq!(written, serde_json::json!({ "kind": "udp", "rate": "1Mbit", "packet_size": "65507B" }));
    let ping = serde_json::to_value(load(&dumbbell()).unwrap()).unwrap()["flows"][1]["app"].clone();
    assert_eq!(ping, serde_json::json!({ "kind": "ping", "interval": "100ms", "size": "64B" }), "the defaults");
}

/// Names are labels in every table, plot and message: at most 64 characters, none of them a
/// control character (a 100,000-character flow name kept a run's plots busy for minutes).
#[test]
fn names_are_at_most_64_printable_characters() {
    let (fits, long) = ("n".repeat(64), "n".repeat(65));
    let too_long = "65 characters long, more than the 64 a name may have";
    load_with(&dumbbell(), &[("flow.0.name", &fits)]).expect("64 characters");
    assert_refused("scenario", "names", edited);
    let fairtt = [("flow.0.cc", "fairtt"), ("flow.0.cc_params.group", long.as_str())];
    assert_error(load_with(&dumbbell(), &fairtt), "flow[0].cc_params.group", too_long);
    let nodes = Scenario::new("n", "1s").hosts(&[&long, "b"]).link(Link::new(&long, "b", "1Mbit", "1ms"));
    assert_error(load(&nodes.to_string()), "hosts[0]", "node name is 65 characters long");
    let wifi = crate::common::one_station_ax(&format!("name = \"{long}\""));
    assert_error(load(&wifi), "wifi[0].name", too_long);
}

/// Repeating events have a shortest period and allocations a largest size, each named in the
/// error (docs/scenario.md#limits).
#[test]
fn timeslots_quanta_batches_and_links_are_bounded() {
    use crate::common::one_station_ax;
    let telemetry = |keys: &str| one_station_ax(&format!("ap_hook = {{ kind = \"airtime_telemetry\", {keys} }}"));
    assert_refused("scenario", "telemetry", |edit| edit.snippet().map(telemetry));
    load(&telemetry(r#"timeslot = "1us""#)).expect("a microsecond");
    load(&telemetry("header_bytes = 2048")).expect("the largest IPv6 extension header");
    let quantum = |q: &str| load(&one_station_ax(&format!("device = {{ kind = \"mac80211\", quantum = \"{q}\" }}")));
    assert_error(quantum("255B"), "wifi[0].device.quantum", "a size of at least 256B and at most 1MiB");
    quantum("256B").expect("fq_codel's least quantum");
    // Two flows: 9 million batches fill 18 million rows beside the series' 1,400.
    let batches = |count: &str| load_with(&dumbbell(), &[("metrics.batches", count)]);
    batches("{ packets = 1, count = 9000000 }").expect("within the rows");
    assert_error(batches("{ packets = 1, count = 10000000 }"), "metrics.batches.count", "more than the 20000000");
    // A mesh of 91 nodes makes 4095 pairs of its members links; 92 nodes make 4186.
    let mesh = |n: usize| {
        let nodes: Vec<String> = (0..n).map(|i| format!("n{i}")).collect();
        let nodes: Vec<&str> = nodes.iter().map(String::as_str).collect();
        Scenario::new("mesh", "1s").hosts(&nodes).wifi(Wifi::mesh("n", &nodes)).to_string()
    };
    load(&mesh(91)).expect("4095 links");
    assert_error(load(&mesh(92)), "wifi[0].nodes", "4186 pairs of members exchange frames");
    // An htb of 64 fq_codel classes of 65536 flows allocates 4,194,305 queues per direction:
    // four directions are one queue too many.
    let class = r#"{ rate = "1Mbit", qdisc = { kind = "fq_codel", flows = 65536 } }"#;
    let htb = format!("{{ kind = \"htb\", classes = [{}] }}", vec![class; 64].join(", "));
    let on = |links: &[&'static str]| {
        let keys: Vec<String> = links.iter().map(|l| format!("link.{l}.qdisc")).collect();
        let sets: Vec<(&str, &str)> = keys.iter().map(|k| (k.as_str(), htb.as_str())).collect();
        load_with(&dumbbell(), &sets)
    };
    on(&["h1-r1"]).expect("8,388,610 queues");
    assert_error(on(&["h1-r1", "bottleneck"]), "link[1].qdisc", "allocate 16777220 queues");
}
