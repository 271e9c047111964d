//! What refusing unknown input fields costs: one field with a name of
//! 1 M and 4 M characters, and 120,000 short unknown fields, sent to
//! `patchFile` (and the latter to the text editor), with each refusal's
//! message length. Before the bound: 8–12 s and 44 s (750 MB) for the long
//! names, 5–14 s for the many fields.
//!
//! `cargo run --release --example unknown_fields` (figures in docs/security.md;
//! `PFT_BENCH_REPS`: runs per case, 5 by default).

use std::time::{Duration, Instant};

use patch_file_core::api;
use serde_json::{json, Map, Value};

fn timed(what: &str, f: impl Fn() -> Value) {
    let reps: usize = std::env::var("PFT_BENCH_REPS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(5);
    let mut best = Duration::MAX;
    let mut len = 0;
    for _ in 0..reps {
        let t = Instant::now();
        let r = f();
        best = best.min(t.elapsed());
        assert_eq!(r["code"], "INVALID_INPUT", "{what}");
        len = r["message"].as_str().unwrap().len();
    }
    println!(
        "| {what} | {:.2} ms | {len} bytes |",
        best.as_secs_f64() * 1e3
    );
}

fn main() {
    let t = tempfile::tempdir().unwrap();
    let root = t.path().canonicalize().unwrap();
    std::fs::write(root.join("a.txt"), "one\n").unwrap();
    let o = json!({"workspaceRoot": root, "durable": false, "journal": false});
    let patch = |extra: Map<String, Value>| {
        let mut input = json!({"file_path": "a.txt", "search": "one", "replace": "two"});
        input.as_object_mut().unwrap().extend(extra);
        input
    };
    println!("| refused input | time (best of the runs) | message |");
    println!("|---|---|---|");
    for n in [1_000_000usize, 4_000_000] {
        let mut extra = Map::new();
        extra.insert("q".repeat(n), json!(1));
        let input = patch(extra);
        timed(
            &format!("patchFile, one field named with {n} characters"),
            || api::patch_file(&input, Some(&o)),
        );
    }
    let mut extra = Map::new();
    for i in 0..120_000 {
        extra.insert(format!("zq{i:06}"), json!(i));
    }
    let input = patch(extra.clone());
    timed("patchFile, 120,000 unknown fields", || {
        api::patch_file(&input, Some(&o))
    });
    let mut input = json!({"command": "view", "path": "a.txt"});
    input.as_object_mut().unwrap().extend(extra);
    timed("textEditor, 120,000 unknown fields", || {
        api::text_editor(&input, Some(&o))
    });
}
