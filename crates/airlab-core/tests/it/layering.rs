//! The engine does not depend on the scenario file format: no module outside `scenario/` (and
//! `run.rs`, which joins the two) names the scenario layer. The scenario layer translates file
//! contents into engine types; the other direction would let a file-format change ripple into
//! the models.

use std::path::{Path, PathBuf};

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn engine_modules_do_not_import_the_scenario_layer() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let glue = [src.join("run.rs"), src.join("lib.rs")];
    let engine: Vec<&PathBuf> =
        files.iter().filter(|f| !f.starts_with(src.join("scenario")) && !glue.contains(f)).collect();
    assert!(engine.iter().any(|f| f.ends_with("qdisc/fq_codel.rs")), "the walk found the engine");
    let mut offenders = Vec::new();
    for file in engine {
        let text = std::fs::read_to_string(file).unwrap();
        for (n, line) in text.lines().enumerate() {
            // Code only: comments may point readers at the scenario layer.
            let code = line.split("//").next().unwrap_or("");
            if code.contains("scenario::") {
                offenders.push(format!("{}:{}: {}", file.display(), n + 1, line.trim()));
            }
        }
    }
    assert!(offenders.is_empty(), "engine code names the scenario layer:\n{}", offenders.join("\n"));
}
