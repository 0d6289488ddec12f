//! The cross-layer AQM (paper 001) end to end: two bulk CUBIC uploads and four sources of
//! periodic 200 kB transfers share a 10 Mbit/s uplink; the mice stop at 20 s.

use crate::builders::*;
use crate::common::*;

fn run(qdisc: &str) -> airlab_core::RunOutput {
    let mice = ["m1", "m2", "m3", "m4"];
    let access = ["bulk"].iter().chain(&mice).map(|host| Link::new(host, "r1", "100Mbit", "1ms"));
    let uplink = Link::new("r1", "server", "10Mbit", "9ms").name("uplink").qdisc(qdisc);
    let periodic = r#"{ kind = "periodic", size = "200kB", period = "1.5s", random_start = "1s" }"#;
    let transfers = mice.iter().enumerate().map(|(i, host)| {
        Flow::new(host, "server").name(&format!("mice{}", i + 1)).cc("cubic").start("2s").stop("20s").app(periodic)
    });
    let scenario = Scenario::new("xlayer-test", "30s").hosts(&["bulk", "m1", "m2", "m3", "m4", "server"]);
    let scenario = scenario.routers(&["r1"]).interval("500ms").links(access).link(uplink);
    let uploads = Flow::bulk("bulk", "server", "cubic").name("bulk").count(2);
    run_toml(&scenario.flow(uploads).flows(transfers).to_string(), Some(1))
}

fn mean_fct(out: &airlab_core::RunOutput) -> f64 {
    let fct = out.fcts.column("fct_s").expect("fct_s");
    assert!(fct.len() >= 40, "{} transfers", fct.len());
    fct.iter().sum::<f64>() / fct.len() as f64
}

/// Sum over the bulk flows of the mean goodput in (from, to] seconds.
fn bulk_goodput(out: &airlab_core::RunOutput, from: f64, to: f64) -> f64 {
    let f = &out.flows;
    let g = f.column("goodput_mbps").unwrap();
    let rows: Vec<_> = f
        .entities()
        .enumerate()
        .filter(|&(i, e)| e.starts_with("bulk") && f.time_s[i] > from && f.time_s[i] <= to)
        .map(|(i, _)| i)
        .collect();
    let bins = rows.len() as f64 / 2.0;
    rows.iter().map(|&i| g[i]).sum::<f64>() / bins
}

/// xlayer's time-series variable `name` on the uplink (0.5 s samples).
fn qdisc_var(out: &airlab_core::RunOutput, name: &str) -> Vec<f64> {
    let q = &out.queues;
    let col = q.column(&format!("qdisc.{name}")).unwrap_or_else(|| panic!("no qdisc.{name}"));
    q.entities().zip(col).filter(|(e, _)| *e == "uplink:r1->server").map(|(_, v)| *v).collect()
}

#[test]
fn xlayer_shortens_mice_transfers_and_gives_the_link_back_to_bulk() {
    let xlayer = run(r#"{ kind = "xlayer" }"#);
    let fq = run(r#"{ kind = "fq_codel" }"#);
    let (fct_x, fct_fq) = (mean_fct(&xlayer), mean_fct(&fq));
    let (bulk_x, bulk_fq) = (bulk_goodput(&xlayer, 5.0, 20.0), bulk_goodput(&fq, 5.0, 20.0));
    let late = bulk_goodput(&xlayer, 22.0, 30.0);
    eprintln!("mean FCT xlayer {fct_x:.3} s, fq_codel {fct_fq:.3} s; bulk while mice {bulk_x:.2} vs {bulk_fq:.2} Mbit/s; bulk after {late:.2}");
    assert!(fct_x < 0.8 * fct_fq, "xlayer {fct_x} vs fq_codel {fct_fq}");
    // Bulk gives way while mice are active, and takes the whole link back after them
    // (payload capacity 10 x 1448/1500 = 9.65 Mbit/s).
    assert!(bulk_x < bulk_fq);
    assert!(late > 0.95 * 9.65, "bulk after the mice: {late} Mbit/s");

    // Only the two uploads were ever bulk: every mice transfer stayed mice all its life.
    let made_bulk = qdisc_var(&xlayer, "xlayer_flows_made_bulk");
    assert_eq!(made_bulk.last(), Some(&2.0));
    let mice_flows = qdisc_var(&xlayer, "xlayer_mice_flows");
    assert!(mice_flows.iter().any(|&n| n >= 2.0), "mice were seen: {mice_flows:?}");
}

#[test]
fn the_literal_mean_lets_bulk_flows_flap_back_to_mice() {
    // Mean over active flows only: an upload is bulk only while enough mice transfers are
    // active (or ended less than active_timeout ago: FIN is not modelled) to pull the mean
    // down, so the uploads flap between classes; the intended mean keeps them bulk.
    let bulk_share = |out: &airlab_core::RunOutput| {
        let n = qdisc_var(out, "xlayer_bulk_flows");
        let during: Vec<f64> = n[10..40].to_vec(); // 5-20 s, 0.5 s samples
        during.iter().filter(|&&b| b == 2.0).count() as f64 / during.len() as f64
    };
    let intended = run(r#"{ kind = "xlayer" }"#);
    let literal = run(r#"{ kind = "xlayer", mean = "active" }"#);
    let (si, sl) = (bulk_share(&intended), bulk_share(&literal));
    let (fi, fl) = (mean_fct(&intended), mean_fct(&literal));
    eprintln!("both uploads bulk: intended {si:.2}, literal {sl:.2} of the time; mean FCT {fi:.3} vs {fl:.3} s");
    assert!(si >= 0.95 && sl <= 0.6, "intended {si}, literal {sl}");
    assert!(fl > fi);
}
