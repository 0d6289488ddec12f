//! Same scenario and seed give bit-identical results; different seeds differ where the
//! scenario has randomness.

use crate::common::*;
use airlab_core::metrics::series::Table;
use airlab_core::RunOutput;

fn tables_equal(a: &Table, b: &Table) -> bool {
    a.time_s == b.time_s
        && a.entity == b.entity
        && a.names == b.names
        && a.columns().count() == b.columns().count()
        && a.columns().zip(b.columns()).all(|((ka, va), (kb, vb))| {
            ka == kb && va.len() == vb.len() && va.iter().zip(vb).all(|(x, y)| x.to_bits() == y.to_bits())
        })
}

/// The series `name` ("flows", "queues", "links" or "wifi") of a run.
fn series<'a>(out: &'a RunOutput, name: &str) -> &'a Table {
    match name {
        "flows" => &out.flows,
        "queues" => &out.queues,
        "links" => &out.links,
        "wifi" => &out.wifi,
        _ => panic!("no series {name}"),
    }
}

/// Runs the built-in scenario `name` twice with `overrides` and `seed`, checks that the two
/// summaries and the two of each series in `tables` are bit-identical, and returns the first.
#[track_caller]
fn twice(name: &str, overrides: &[(&str, &str)], seed: u64, tables: &[&str]) -> RunOutput {
    let a = run_builtin(name, overrides, Some(seed));
    let b = run_builtin(name, overrides, Some(seed));
    assert_eq!(a.deterministic_summary(), b.deterministic_summary(), "{name} {overrides:?}");
    for table in tables {
        assert!(tables_equal(series(&a, table), series(&b, table)), "{name} {overrides:?}: {table}");
    }
    a
}

#[test]
fn same_seed_gives_identical_summary_and_series() {
    let overrides = [("duration", "10s"), ("link.bottleneck.loss", "0.001")];
    let a = twice("basics/dumbbell-cubic-vs-reno", &overrides, 7, &["flows", "queues", "links"]);
    assert!(a.flows.rows() > 0);
}

/// BBR draws its ProbeBW start phase and probe waits from per-connection random streams, and
/// FaiRTT's flows share a registry: both must stay bit-identical for a seed.
#[test]
fn bbr_family_and_fairtt_are_deterministic() {
    for cc in ["bbr1", "bbr2", "bbr3", "fairtt"] {
        let overrides = [("duration", "10s"), ("flow.elephant.cc", cc), ("flow.mice.cc", cc)];
        let a = twice("fairtt/variant-a", &overrides, 3, &["flows"]);
        let c = run_builtin("fairtt/variant-a", &overrides, Some(4));
        assert_ne!(a.deterministic_summary()["flows"], c.deterministic_summary()["flows"], "{cc}");
    }
}

/// Wi-Fi contention draws backoffs per node and MPDU errors per network: a seed fixes every
/// draw, including the per-link Wi-Fi series.
#[test]
fn wifi_contention_is_bit_identical_for_a_seed() {
    let overrides = [("duration", "4s"), ("metrics.warmup", "1s"), ("wifi.cell.per", "0.05")];
    let a = twice("wifi/ax-cell-10", &overrides, 5, &["flows", "queues", "wifi"]);
    assert!(a.wifi.rows() > 0);
    let c = run_builtin("wifi/ax-cell-10", &overrides, Some(6));
    assert_ne!(a.deterministic_summary()["wifi"], c.deterministic_summary()["wifi"]);
}

#[test]
fn different_seeds_differ_when_loss_is_random() {
    let overrides = [("duration", "10s"), ("link.bottleneck.loss", "0.001")];
    let a = run_builtin("basics/dumbbell-cubic-vs-reno", &overrides, Some(1));
    let b = run_builtin("basics/dumbbell-cubic-vs-reno", &overrides, Some(2));
    assert_ne!(a.deterministic_summary()["flows"], b.deterministic_summary()["flows"]);
}

#[test]
fn seed_is_recorded_and_defaults_to_the_scenario_seed() {
    let a = run_builtin("basics/dumbbell-cubic", &[("duration", "1s")], None);
    assert_eq!(a.summary["seed"], 1);
    let b = run_builtin("basics/dumbbell-cubic", &[("duration", "1s")], Some(42));
    assert_eq!(b.summary["seed"], 42);
}

/// OFDMA (DL MU PPDUs, trigger cycles, random access) and the channel error model draw from
/// the same seeded streams: a seed fixes every draw.
#[test]
fn ofdma_and_channel_errors_are_bit_identical_for_a_seed() {
    let overrides = [
        ("duration", "3s"),
        ("metrics.warmup", "1s"),
        ("wifi.cell.uora", "{ ra_rus = 1 }"),
        ("wifi.cell.snr_db", "24"),
    ];
    let a = twice("wifi6/ul-ofdma", &overrides, 3, &["wifi", "flows"]);
    let s = a.deterministic_summary();
    let links = s["wifi"][0]["links"].as_array().unwrap();
    // At 24 dB HE-MCS 7 loses MPDUs: the draws are exercised.
    assert!(links.iter().any(|l| l["mpdus_acked"] != l["mpdus"]), "{links:?}");
    let c = run_builtin("wifi6/ul-ofdma", &overrides, Some(4));
    assert_ne!(s["wifi"], c.deterministic_summary()["wifi"]);
    let range = [("duration", "3s"), ("metrics.warmup", "1s")];
    twice("wifi6/range", &range, 2, &["wifi"]);
}
