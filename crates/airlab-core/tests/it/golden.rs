//! Every built-in scenario's summary and time series, reduced to one digest per scenario, against
//! the digests recorded in `tests/golden.json`. A change meant to leave results alone (a
//! refactor) must keep them bit for bit; a change meant to move them records them again with
//! `AIRLAB_BLESS=1 cargo test -p airlab-core --release golden` and says in its commit why they
//! moved. Digests hold for one platform (x86_64 Linux): `ln`, `powf` and `cbrt` come from its
//! libm.

use crate::common::builtin;
use airlab_core::metrics::series::Table;
use airlab_core::scenario::load_str;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// FNV-1a, 64 bits: a stable digest of bytes (std's hashers may change between releases).
struct Fnv(u64);

impl Fnv {
    fn new() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }

    fn bytes(&mut self, data: &[u8]) {
        for &b in data {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }

    fn floats(&mut self, values: &[f64]) {
        for v in values {
            self.bytes(&v.to_bits().to_le_bytes());
        }
    }

    fn table(&mut self, t: &Table) {
        self.floats(&t.time_s);
        for id in &t.entity {
            self.bytes(&id.to_le_bytes());
        }
        for name in &t.names {
            self.bytes(name.as_bytes());
        }
        for (name, column) in t.columns() {
            self.bytes(name.as_bytes());
            self.floats(column);
        }
    }
}

fn scenarios() -> Vec<String> {
    fn walk(dir: &Path, root: &Path, out: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, root, out);
            } else if path.extension().is_some_and(|e| e == "toml") {
                let name = path.strip_prefix(root).unwrap().with_extension("");
                out.push(name.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    let root = PathBuf::from(format!("{}/../../scenarios", env!("CARGO_MANIFEST_DIR")));
    let mut out = Vec::new();
    walk(&root, &root, &mut out);
    out.sort();
    out
}

/// The digest of one built-in scenario's full run with its own seed.
fn digest(name: &str) -> String {
    let resolved = load_str(&builtin(name), name, &[]).unwrap_or_else(|e| panic!("{e}"));
    let out = crate::common::run(&resolved, None);
    let mut h = Fnv::new();
    h.bytes(out.deterministic_summary().to_string().as_bytes());
    for t in [&out.flows, &out.queues, &out.links, &out.wifi, &out.fcts, &out.pings, &out.batches] {
        h.table(t);
    }
    format!("{:016x}", h.0)
}

#[test]
fn every_builtin_scenario_gives_its_recorded_results() {
    let names = scenarios();
    // Two threads: the longest runs take a few seconds each.
    let (even, odd): (Vec<_>, Vec<_>) = names.iter().enumerate().partition(|(i, _)| i % 2 == 0);
    let got: BTreeMap<String, String> = std::thread::scope(|s| {
        let halves = [even, odd]
            .map(|half| s.spawn(move || half.into_iter().map(|(_, n)| (n.clone(), digest(n))).collect::<Vec<_>>()));
        halves.into_iter().flat_map(|h| h.join().unwrap()).collect()
    });
    let path = format!("{}/tests/golden.json", env!("CARGO_MANIFEST_DIR"));
    if std::env::var_os("AIRLAB_BLESS").is_some() {
        std::fs::write(&path, serde_json::to_string_pretty(&got).unwrap() + "\n").unwrap();
        return;
    }
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}; record it with AIRLAB_BLESS=1"));
    let want: BTreeMap<String, String> = serde_json::from_str(&text).unwrap();
    let moved: Vec<_> = got.iter().filter(|(n, d)| want.get(*n) != Some(*d)).map(|(n, _)| n.as_str()).collect();
    let gone: Vec<_> = want.keys().filter(|n| !got.contains_key(*n)).collect();
    assert!(
        moved.is_empty() && gone.is_empty(),
        "results moved for {moved:?}, no scenario for {gone:?}; if that is intended, record them \
         with AIRLAB_BLESS=1 and say why in the commit"
    );
}
