//! Property-based fuzzing of the scenario layer and the engine: the built-in scenarios,
//! shortened, with one to three keys replaced by hostile values (edges of integer types,
//! NaN, unitless or oversized quantities, wrong types, unknown keys) or removed; and generated
//! topologies with one structural defect each (duplicate names, routing loops, unreachable or
//! identical ends, oversized or unprintable names, batches that would end in the warm-up, a
//! too short timeslot), plus topologies at and beyond the node bound. Every result is either a
//! clean error (`file: key.path: what was expected`, at the key of the defect) or a run that
//! finishes with a sane summary. A fixed seed makes CI run the same cases every time.

use airlab_core::scenario::limits::{MAX_NAME_CHARS, MAX_NODES};
use airlab_core::scenario::load_str;
use proptest::prelude::*;
use proptest::sample::Index;
use serde_json::Value as Json;
use std::sync::OnceLock;
use std::time::{Duration, Instant};
use toml::Value;

/// Every built-in scenario, shortened to 2 s with a 0.5 s warm-up (flows' times pulled in),
/// as TOML documents; read once.
fn builtins() -> &'static [(String, toml::Table)] {
    static DOCS: OnceLock<Vec<(String, toml::Table)>> = OnceLock::new();
    DOCS.get_or_init(read_builtins)
}

fn read_builtins() -> Vec<(String, toml::Table)> {
    let root = format!("{}/../../scenarios", env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    for dir in std::fs::read_dir(&root).unwrap() {
        for file in std::fs::read_dir(dir.unwrap().path()).unwrap() {
            let path = file.unwrap().path();
            let mut doc: toml::Table = std::fs::read_to_string(&path).unwrap().parse().unwrap();
            doc.insert("duration".into(), Value::String("2s".into()));
            let metrics = doc.entry("metrics").or_insert_with(|| Value::Table(Default::default()));
            metrics.as_table_mut().unwrap().insert("warmup".into(), Value::String("500ms".into()));
            for flow in doc.get_mut("flow").and_then(Value::as_array_mut).into_iter().flatten() {
                let flow = flow.as_table_mut().unwrap();
                flow.remove("stop");
                flow.insert("start".into(), Value::String("0s".into()));
            }
            let name = path.display().to_string();
            load_str(&toml::to_string(&doc).unwrap(), &name, &[]).unwrap_or_else(|e| panic!("shortened: {e}"));
            out.push((name, doc));
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// Values that break naive code: integer and float edges, quantities without units, with
/// unknown units or beyond their bounds, text that is not what any key wants.
fn hostile_value() -> impl Strategy<Value = Value> {
    let ints = prop::sample::select(vec![
        0i64,
        1,
        -1,
        255,
        256,
        65_535,
        65_536,
        i64::from(i32::MAX),
        i64::from(u32::MAX),
        i64::from(u32::MAX) + 1,
        i64::MAX,
        i64::MIN,
    ])
    .prop_map(Value::Integer);
    let floats = prop::sample::select(vec![0.0, -0.5, 0.5, 0.999_999, 1.0, 1e300, f64::NAN, f64::INFINITY])
        .prop_map(Value::Float);
    let quantity = (
        prop::sample::select(vec!["0", "1", "7", "1.5", "0.000001", "18446744073709551615", "604801", "99999999999"]),
        prop::sample::select(vec!["ns", "us", "ms", "s", "bit", "Mbit", "Gbit", "B", "KiB", "GiB", "mbit", "y", ""]),
    )
        .prop_map(|(n, unit)| Value::String(format!("{n}{unit}")));
    let text = prop::sample::select(vec![
        "",
        "x",
        "-5ms",
        "1.2.3s",
        "$x^{$",
        "caf\u{e9}",
        "pfifo",
        "cubic",
        "bulk",
        "h1",
        "n",
    ])
    .prop_map(|s| Value::String(s.to_string()));
    let other = prop::sample::select(vec![
        Value::Boolean(true),
        Value::Boolean(false),
        Value::Array(vec![]),
        Value::Table(Default::default()),
        Value::String("y".repeat(300)),
    ]);
    prop_oneof![1 => ints, 1 => floats, 3 => quantity, 1 => text, 1 => other]
}

#[derive(Clone, Debug)]
enum Mutation {
    /// Any value at any key.
    Replace(Index, Value),
    /// A value of the same kind at a scalar: another number with the same unit, another
    /// integer or probability, the other boolean. These mostly load, so they reach the engine.
    Tweak(Index, Index),
    Remove(Index),
    Unknown(Index),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        2 => (any::<Index>(), hostile_value()).prop_map(|(at, v)| Mutation::Replace(at, v)),
        5 => (any::<Index>(), any::<Index>()).prop_map(|(at, pick)| Mutation::Tweak(at, pick)),
        1 => any::<Index>().prop_map(Mutation::Remove),
        1 => any::<Index>().prop_map(Mutation::Unknown),
    ]
}

/// A value of the same kind as `v`, chosen by `pick`.
fn tweak(v: &Value, pick: &Index) -> Value {
    match v {
        Value::String(s) => {
            let split = s.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(s.len());
            if split == 0 {
                return v.clone();
            }
            let numbers = ["0", "1", "3", "0.5", "1000", "65535", "1000000", "604800", "0.001"];
            Value::String(format!("{}{}", pick.get(&numbers), &s[split..]))
        }
        Value::Integer(_) => Value::Integer(*pick.get(&[0, 1, 2, 3, 64, 1000, 65_535, 65_536, i64::from(u32::MAX)])),
        Value::Float(_) => Value::Float(*pick.get(&[0.0, 0.001, 0.5, 0.999, 1.0, 4.0, 100.0])),
        Value::Boolean(b) => Value::Boolean(!b),
        other => other.clone(),
    }
}

/// Paths to every value of a document (table keys and array indices), parents first.
fn paths(v: &Value, prefix: &mut Vec<Step>, out: &mut Vec<Vec<Step>>) {
    match v {
        Value::Table(t) => {
            for (k, child) in t {
                prefix.push(Step::Key(k.clone()));
                out.push(prefix.clone());
                paths(child, prefix, out);
                prefix.pop();
            }
        }
        Value::Array(a) => {
            for (i, child) in a.iter().enumerate() {
                prefix.push(Step::At(i));
                out.push(prefix.clone());
                paths(child, prefix, out);
                prefix.pop();
            }
        }
        _ => {}
    }
}

#[derive(Clone, Debug)]
enum Step {
    Key(String),
    At(usize),
}

/// The value at `path`.
fn get<'a>(doc: &'a Value, path: &[Step]) -> &'a Value {
    path.iter().fold(doc, |v, step| match step {
        Step::Key(k) => &v[k.as_str()],
        Step::At(i) => &v[*i],
    })
}

/// The container holding the last step of `path`, and that step.
fn parent<'a>(doc: &'a mut Value, path: &'a [Step]) -> (&'a mut Value, &'a Step) {
    let (last, init) = path.split_last().expect("a path has a step");
    let mut v = doc;
    for step in init {
        v = match step {
            Step::Key(k) => v.get_mut(k.as_str()).unwrap(),
            Step::At(i) => v.get_mut(*i).unwrap(),
        };
    }
    (v, last)
}

fn apply(doc: &mut Value, m: &Mutation) {
    let mut all = Vec::new();
    paths(doc, &mut Vec::new(), &mut all);
    if all.is_empty() {
        return;
    }
    match m {
        Mutation::Replace(at, value) => {
            let path = at.get(&all).clone();
            let (container, step) = parent(doc, &path);
            match (container, step) {
                (Value::Table(t), Step::Key(k)) => {
                    t.insert(k.clone(), value.clone());
                }
                (Value::Array(a), Step::At(i)) => a[*i] = value.clone(),
                _ => unreachable!("paths follow the document"),
            }
        }
        Mutation::Tweak(at, pick) => {
            let path = at.get(&all).clone();
            let (container, step) = parent(doc, &path);
            match (container, step) {
                (Value::Table(t), Step::Key(k)) => {
                    let new = tweak(&t[k], pick);
                    t.insert(k.clone(), new);
                }
                (Value::Array(a), Step::At(i)) => a[*i] = tweak(&a[*i], pick),
                _ => unreachable!("paths follow the document"),
            }
        }
        Mutation::Remove(at) => {
            let path = at.get(&all).clone();
            let (container, step) = parent(doc, &path);
            match (container, step) {
                (Value::Table(t), Step::Key(k)) => {
                    t.remove(k);
                }
                (Value::Array(a), Step::At(i)) => {
                    a.remove(*i);
                }
                _ => unreachable!("paths follow the document"),
            }
        }
        Mutation::Unknown(at) => {
            // Tables under a key (not array elements) get a misspelt key.
            let tables: Vec<_> =
                all.iter().filter(|p| matches!(p.last(), Some(Step::Key(_))) && get(doc, p).is_table()).collect();
            if !tables.is_empty() {
                let path = at.get(&tables).to_vec();
                let (container, step) = parent(doc, &path);
                if let (Value::Table(t), Step::Key(k)) = (container, step) {
                    t[k].as_table_mut().unwrap().insert("speling".into(), Value::Integer(1));
                }
            }
        }
    }
}

/// Every number in the summary is finite and non-negative (but levels in dB), shares and utilizations are at
/// most 1, and nothing is acknowledged that was not sent.
fn assert_sane(s: &Json, name: &str) {
    fn walk(v: &Json, at: &str, name: &str) {
        match v {
            Json::Number(n) => {
                let x = n.as_f64().unwrap();
                let key = at.rsplit('.').next().unwrap();
                // Levels in decibels are signed.
                let signed = matches!(key, "snr_db" | "rx_power_dbm");
                assert!(x.is_finite() && (signed || x >= 0.0), "{name}: {at} = {x}");
                if matches!(key, "utilization" | "airtime_share" | "busy_share" | "loss_rate" | "jain_index") {
                    assert!(x <= 1.0 + 1e-9, "{name}: {at} = {x} above 1");
                }
            }
            Json::Array(a) => a.iter().enumerate().for_each(|(i, x)| walk(x, &format!("{at}[{i}]"), name)),
            Json::Object(o) => o.iter().for_each(|(k, x)| walk(x, &format!("{at}.{k}"), name)),
            _ => {}
        }
    }
    walk(s, "summary", name);
    for net in s["wifi"].as_array().unwrap() {
        for l in net["links"].as_array().unwrap() {
            let n = |k: &str| l[k].as_u64().unwrap();
            assert!(n("mpdus_acked") <= n("mpdus"), "{name}: {l}");
            assert!(n("failed_ppdus") <= n("ppdus") && n("ampdus") <= n("ppdus"), "{name}: {l}");
        }
    }
}

/// Runs cheap enough for a test: bounded simulated time, series rows and offered load.
fn cheap(r: &airlab_core::scenario::Resolved) -> bool {
    let s = &r.scenario;
    let secs = s.duration.0 as f64 / 1e9;
    let wired: f64 = r.directions.iter().map(|d| d.rate.0 as f64).sum();
    let flows = r.flows.len();
    let rows = (s.duration.0 / s.metrics.interval.0) as usize * (flows + 2 * r.directions.len() + 64);
    secs <= 2.0 && wired * secs <= 1e11 && rows <= 400_000 && flows <= 100
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 400,
        rng_seed: proptest::test_runner::RngSeed::Fixed(0xf022),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn mutated_builtins_fail_cleanly_or_run_sanely(
        which in any::<Index>(),
        mutations in prop::collection::vec(mutation(), 1..4),
    ) {
        let scenarios = builtins();
        let (name, doc) = which.get(scenarios);
        let mut doc = Value::Table(doc.clone());
        for m in &mutations {
            apply(&mut doc, m);
        }
        let text = toml::to_string(&doc).unwrap();
        match load_str(&text, name, &[]) {
            Err(e) => {
                prop_assert_eq!(&e.file, name);
                prop_assert!(!e.key.is_empty(), "an error without a key path: {}", e);
                prop_assert!(!e.message.trim().is_empty());
                for internal in ["expected struct", "internally tagged", "variant identifier", "expected u32", "expected u8"] {
                    prop_assert!(!e.message.contains(internal), "serde's words in: {}", e);
                }
                prop_assert_eq!(e.to_string(), format!("{}: {}: {}", e.file, e.key, e.message));
            }
            Ok(resolved) if cheap(&resolved) => {
                let started = Instant::now();
                let out = airlab_core::run(&resolved, None);
                prop_assert!(started.elapsed() < Duration::from_secs(60), "{} took {:?}", name, started.elapsed());
                let out = out.map_err(|e| TestCaseError::fail(format!("{name}: {e}")))?;
                assert_sane(&out.summary, name);
            }
            Ok(_) => {}
        }
    }
}

/// One structural defect of a generated topology, and the key its error names (none: the
/// scenario is valid).
#[derive(Clone, Copy, Debug)]
enum Defect {
    None,
    DuplicateNode,
    DuplicateLinkName,
    DuplicateFlowName,
    NetworkNamedLikeALink,
    FlowToItself,
    RoutingLoop,
    Unreachable,
    LongName,
    ControlCharacter,
    TinyTimeslot,
    BatchesWithinTheWarmUp,
}

/// A chain of `routers` routers, each with `per_router` hosts (`h<r>_<k>`), 10 Mbit/s links,
/// and flows between the hosts `ends` pick (distinct ones), with `defect` written in.
#[derive(Clone, Debug)]
struct Topology {
    routers: usize,
    per_router: usize,
    ends: Vec<(Index, Index)>,
    defect: Defect,
    at: Index,
}

fn topology() -> impl Strategy<Value = Topology> {
    let defects = prop::sample::select(vec![
        Defect::None,
        Defect::DuplicateNode,
        Defect::DuplicateLinkName,
        Defect::DuplicateFlowName,
        Defect::NetworkNamedLikeALink,
        Defect::FlowToItself,
        Defect::RoutingLoop,
        Defect::Unreachable,
        Defect::LongName,
        Defect::ControlCharacter,
        Defect::TinyTimeslot,
        Defect::BatchesWithinTheWarmUp,
    ]);
    let ends = prop::collection::vec((any::<Index>(), any::<Index>()), 1..4);
    (2..6usize, 1..6usize, ends, defects, any::<Index>()).prop_map(|(routers, per_router, ends, defect, at)| Topology {
        routers,
        per_router,
        ends,
        defect,
        at,
    })
}

impl Topology {
    /// The scenario's text and, for a defect that makes it invalid, the key its error names.
    fn write(&self) -> (String, Option<String>) {
        let mut hosts: Vec<String> =
            (0..self.routers).flat_map(|r| (0..self.per_router).map(move |k| format!("h{r}_{k}"))).collect();
        let routers: Vec<String> = (0..self.routers).map(|r| format!("r{r}")).collect();
        // (between, name) of every link: the chain first, then each host's access link.
        let mut links: Vec<([String; 2], String)> =
            (1..self.routers).map(|r| ([routers[r - 1].clone(), routers[r].clone()], format!("r{r}"))).collect();
        links.extend(
            hosts.iter().enumerate().map(|(i, h)| ([h.clone(), routers[i / self.per_router].clone()], h.clone())),
        );
        let mut flows: Vec<(String, String, String)> = Vec::new();
        for (n, (a, b)) in self.ends.iter().enumerate() {
            let from = a.index(hosts.len());
            // Another host: the receiver index skips the sender's.
            let to = (from + 1 + b.index(hosts.len() - 1)) % hosts.len();
            flows.push((format!("f{n}"), hosts[from].clone(), hosts[to].clone()));
        }
        let (mut routes, mut wifi, mut metrics) = (Vec::new(), String::new(), String::new());
        let pick = |n: usize| self.at.index(n);
        let key = match self.defect {
            Defect::None => None,
            Defect::DuplicateNode => {
                let k = pick(hosts.len());
                hosts.push(hosts[k].clone());
                Some(format!("hosts[{}]", hosts.len() - 1))
            }
            Defect::DuplicateLinkName => {
                let j = 1 + pick(links.len() - 1);
                links[j].1 = links[0].1.clone();
                Some(format!("link[{j}].name"))
            }
            Defect::DuplicateFlowName => {
                let (first, _, _) = flows[0].clone();
                let (_, from, to) = flows[pick(flows.len())].clone();
                flows.push((first, from, to));
                Some(format!("flow[{}].name", flows.len() - 1))
            }
            Defect::NetworkNamedLikeALink => {
                let name = &links[pick(links.len())].1;
                wifi = format!("[[wifi]]\nname = \"{name}\"\nstandard = \"a\"\nap = \"r0\"\nstations = [\"sta\"]\n");
                hosts.push("sta".into());
                Some("wifi[0].name".into())
            }
            Defect::FlowToItself => {
                let n = pick(flows.len());
                flows[n].2 = flows[n].1.clone();
                Some(format!("flow[{n}].to"))
            }
            Defect::RoutingLoop => {
                // r1 sends traffic for its own first host back to r0, which sends it to r1.
                let target = "h1_0".to_string();
                routes.push(format!("[[route]]\nat = \"r1\"\nto = \"{target}\"\nvia = \"r0\"\n"));
                flows.push(("loop".into(), "h0_0".into(), target));
                Some("route[0]".into())
            }
            Defect::Unreachable => {
                hosts.push("island".into());
                flows.push(("lost".into(), hosts[pick(hosts.len() - 1)].clone(), "island".into()));
                Some(format!("flow[{}]", flows.len() - 1))
            }
            Defect::LongName => {
                let n = pick(flows.len());
                flows[n].0 = "f".repeat(MAX_NAME_CHARS + 1 + pick(100_000));
                Some(format!("flow[{n}].name"))
            }
            Defect::ControlCharacter => {
                let k = pick(hosts.len());
                let renamed = format!("{}\\u001b[31m", hosts[k]);
                let old = std::mem::replace(&mut hosts[k], renamed.clone());
                for (between, _) in &mut links {
                    between.iter_mut().filter(|e| **e == old).for_each(|e| *e = renamed.clone());
                }
                for (_, from, to) in &mut flows {
                    for end in [from, to] {
                        if *end == old {
                            *end = renamed.clone();
                        }
                    }
                }
                Some(format!("hosts[{k}]"))
            }
            Defect::TinyTimeslot => {
                let ts = ["1ns", "999ns", "0s"][pick(3)];
                wifi = format!(
                    "[[wifi]]\nstandard = \"a\"\nap = \"r0\"\nstations = [\"sta\"]\nap_hook = {{ kind = \"airtime_telemetry\", timeslot = \"{ts}\" }}\n"
                );
                hosts.push("sta".into());
                Some("wifi[0].ap_hook.timeslot".into())
            }
            Defect::BatchesWithinTheWarmUp => {
                // A few packets make every batch, long before the warm-up ends.
                metrics = "[metrics]\nwarmup = \"600ms\"\nbatches = { packets = 5, count = 2, discard = 0 }\n".into();
                None
            }
        };
        let quote = |names: &[String]| names.iter().map(|n| format!("\"{n}\"")).collect::<Vec<_>>().join(", ");
        let mut text = format!(
            "name = \"topology\"\nduration = \"1s\"\nhosts = [{}]\nrouters = [{}]\n{metrics}{wifi}",
            quote(&hosts),
            quote(&routers)
        );
        for ([a, b], name) in &links {
            text += &format!(
                "[[link]]\nname = \"{name}\"\nbetween = [\"{a}\", \"{b}\"]\nrate = \"10Mbit\"\ndelay = \"1ms\"\n"
            );
        }
        for route in &routes {
            text += route;
        }
        for (name, from, to) in &flows {
            text += &format!("[[flow]]\nname = \"{name}\"\nfrom = \"{from}\"\nto = \"{to}\"\ncc = \"cubic\"\napp = {{ kind = \"bulk\" }}\n");
        }
        (text, key)
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 96,
        rng_seed: proptest::test_runner::RngSeed::Fixed(0x5747),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn structural_defects_are_named_at_their_key(t in topology()) {
        let (text, key) = t.write();
        match (load_str(&text, "topology.toml", &[]), key) {
            (Err(e), Some(key)) => {
                prop_assert_eq!(&e.key, &key, "{:?}: {}", t.defect, e);
                // A long name is not repeated back in full.
                prop_assert!(e.message.len() < 1000, "{:?}: {} characters", t.defect, e.message.len());
            }
            (Err(e), None) => prop_assert!(false, "{:?}: a valid topology was refused: {}", t.defect, e),
            (Ok(_), Some(key)) => prop_assert!(false, "{:?}: not refused at {}", t.defect, key),
            (Ok(resolved), None) => {
                let out = airlab_core::run(&resolved, None).map_err(|e| TestCaseError::fail(e.to_string()))?;
                assert_sane(&out.summary, "topology");
                if let Defect::BatchesWithinTheWarmUp = t.defect {
                    // The batches began with the window, so the run outlived the warm-up.
                    prop_assert!(out.summary["duration_s"].as_f64().unwrap() > 0.6, "{}", out.summary["duration_s"]);
                    prop_assert!(out.batches.column("start_s").unwrap().iter().all(|&s| s >= 0.6));
                }
            }
        }
    }
}

/// Thousands of hosts: one node more than the bound is refused before anything is expanded, and
/// a tree of exactly as many nodes (a thousand hosts under a few routers) loads and runs.
#[test]
fn thousands_of_hosts_load_at_the_node_bound_and_are_refused_beyond_it() {
    let tree = |nodes: usize| {
        let routers = 24;
        let hosts: Vec<String> = (0..nodes - routers).map(|i| format!("h{i}")).collect();
        let quote = |names: Vec<String>| names.iter().map(|n| format!("\"{n}\"")).collect::<Vec<_>>().join(", ");
        let mut text = format!(
            "name = \"tree\"\nduration = \"200ms\"\nhosts = [{}]\nrouters = [{}]\n",
            quote(hosts.clone()),
            quote((0..routers).map(|r| format!("r{r}")).collect())
        );
        for r in 1..routers {
            text += &format!("[[link]]\nbetween = [\"r0\", \"r{r}\"]\nrate = \"1Gbit\"\ndelay = \"1ms\"\n");
        }
        for (i, h) in hosts.iter().enumerate() {
            text +=
                &format!("[[link]]\nbetween = [\"{h}\", \"r{}\"]\nrate = \"100Mbit\"\ndelay = \"1ms\"\n", i % routers);
        }
        let last = &hosts[hosts.len() - 1];
        text + &format!("[[flow]]\nfrom = \"h0\"\nto = \"{last}\"\ncc = \"cubic\"\napp = {{ kind = \"bulk\" }}\n")
    };
    for beyond in [MAX_NODES + 1, 4 * MAX_NODES] {
        let e = load_str(&tree(beyond), "tree.toml", &[]).unwrap_err();
        assert_eq!(e.key, "routers", "{e}");
        assert!(e.message.contains(&format!("more than the {MAX_NODES} nodes")), "{e}");
    }
    let started = Instant::now();
    let resolved = load_str(&tree(MAX_NODES), "tree.toml", &[]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(resolved.next_hop.len(), MAX_NODES * (MAX_NODES - 24) - (MAX_NODES - 24));
    let out = airlab_core::run(&resolved, None).unwrap_or_else(|e| panic!("{e}"));
    assert_sane(&out.summary, "tree");
    assert!(started.elapsed() < Duration::from_secs(20), "{:?}", started.elapsed());
}
