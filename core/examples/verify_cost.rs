//! What the pre-rename check costs: re-opening the target, locking it,
//! `fstat`, re-reading it and comparing its bytes with what was read, next
//! to a whole `patchFile` call, for files of 1 KiB to 64 MiB.
//!
//! `cargo run --release --example verify_cost` (figures in docs/security.md).

use std::ffi::OsStr;
use std::io::Read;
use std::time::{Duration, Instant};

use patch_file_core::api as engine;
use patch_file_core::testing::dir::Dir;
use serde_json::json;

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let t = tempfile::tempdir().unwrap();
    let root = t.path();
    let dir = Dir::open_root(root).unwrap();
    println!("| file size | patchFile (durable) | patchFile (durable: false) | check: open+flock+fstat+re-read+compare | share of durable call |");
    println!("|---|---|---|---|---|");
    for kib in [1usize, 10, 100, 1024, 10 * 1024, 64 * 1024] {
        let line = "let value = compute(input) + 42; // some code\n";
        let mut text = String::from("MARK-A\n");
        while text.len() < kib * 1024 {
            text.push_str(line);
        }
        std::fs::write(root.join("f.txt"), &text).unwrap();
        let runs = if kib >= 10 * 1024 { 10 } else { 40 };
        let patch = |durable: bool| {
            let mut times = Vec::new();
            for i in 0..runs {
                let (a, b) = if i % 2 == 0 {
                    ("MARK-A", "MARK-B")
                } else {
                    ("MARK-B", "MARK-A")
                };
                let s = Instant::now();
                let v = engine::patch_file(
                    &json!({"file_path": "f.txt", "search_block": a, "replace_block": b}),
                    Some(&json!({"workspaceRoot": root, "durable": durable})),
                );
                times.push(s.elapsed());
                assert_eq!(v["ok"], true, "{v}");
            }
            median(times)
        };
        let durable = patch(true);
        let fast = patch(false);
        let original = std::fs::read(root.join("f.txt")).unwrap();
        let mut checks = Vec::new();
        for _ in 0..runs {
            let s = Instant::now();
            let (mut f, _) = dir.open_current(OsStr::new("f.txt")).unwrap().unwrap();
            assert!(Dir::lock_exclusive(&f, Duration::from_secs(1)).unwrap());
            let _meta = Dir::meta_of_file(&f).unwrap();
            let mut buf = vec![0u8; 64 * 1024];
            let mut at = 0;
            loop {
                let n = f.read(&mut buf).unwrap();
                if n == 0 {
                    break;
                }
                assert_eq!(&buf[..n], &original[at..at + n]);
                at += n;
            }
            assert_eq!(at, original.len());
            checks.push(s.elapsed());
        }
        let check = median(checks);
        println!(
            "| {} | {:.3} ms | {:.3} ms | {:.3} ms | {:.1} % |",
            if kib >= 1024 {
                format!("{} MiB", kib / 1024)
            } else {
                format!("{kib} KiB")
            },
            durable.as_secs_f64() * 1e3,
            fast.as_secs_f64() * 1e3,
            check.as_secs_f64() * 1e3,
            100.0 * check.as_secs_f64() / durable.as_secs_f64()
        );
    }
}
