//! Run a scenario file and print its summary: `cargo run --release --example run_scenario -- FILE [SEED]`.
//! Handy for profiling the engine without Python in the way.

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: run_scenario FILE [SEED]");
        std::process::exit(2);
    };
    let seed = args.next().map(|s| s.parse().expect("SEED must be an integer"));
    match airlab_core::scenario::load_file(std::path::Path::new(&path), &[]) {
        Ok(resolved) => match airlab_core::run(&resolved, seed) {
            Ok(out) => println!("{}", serde_json::to_string_pretty(&out.summary).expect("summary serializes")),
            // As the command line: an engine bug has its own exit status.
            Err(e) => {
                eprintln!("internal error: {e}");
                std::process::exit(3);
            }
        },
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    }
}
