//! Property-based fuzzing of the scenario layer and the engine: the built-in scenarios,
//! shortened, with one to three keys replaced by hostile values (edges of integer types,
//! NaN, unitless or oversized quantities, wrong types, unknown keys) or removed. Every result
//! is either a clean error (`file: key.path: what was expected`) or a run that finishes with
//! a sane summary. A fixed seed makes CI run the same cases every time.

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
                assert_sane(&out.summary, name);
            }
            Ok(_) => {}
        }
    }
}
