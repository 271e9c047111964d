//! Containment under races: while edits run, another thread swaps, as fast as
//! it can, (1) a parent directory for a symlink to an outside directory,
//! (2) a deeper parent the same way, and (3) the target file for a symlink to
//! an outside file. Nothing outside the workspace may ever be created or
//! changed.
//!
//! `PFT_RACE_ITERATIONS` sets the number of edit attempts (default 2,000;
//! `PFT_LONG=1` makes it 10,000).
#![cfg(unix)]

use crate::common;

use std::collections::BTreeMap;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use patch_file_core::api as engine;
use serde_json::json;

const SECRET: &str = "outside: must never change\n";

fn iterations() -> usize {
    if let Some(n) = std::env::var("PFT_RACE_ITERATIONS")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        return n;
    }
    if std::env::var("PFT_LONG").is_ok_and(|v| v == "1") {
        10_000
    } else {
        2_000
    }
}

/// Busy-waits about `us` microseconds (a sleep would be far too coarse).
fn spin(us: u64) {
    let t = std::time::Instant::now();
    while t.elapsed().as_micros() < us as u128 {
        std::hint::spin_loop();
    }
}

/// Swaps each `path` (a directory or file) in turn for a symlink to its
/// target and back, until `stop`, holding each state for a random few
/// microseconds so that edits meet both states and every moment in between;
/// counts the swaps. One thread for all, so that with the editing thread it
/// fits two cores without being descheduled in one state for a whole slice.
fn swapper(pairs: Vec<(PathBuf, PathBuf)>, stop: Arc<AtomicBool>, swaps: Arc<AtomicU64>) {
    let mut rnd = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        rnd ^= rnd << 13;
        rnd ^= rnd >> 7;
        rnd ^= rnd << 17;
        rnd % 30
    };
    for k in 0usize.. {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let (path, target) = &pairs[k % pairs.len()];
        let aside = path.with_extension("aside");
        if std::fs::rename(path, &aside).is_err() {
            continue;
        }
        let linked = symlink(target, path).is_ok();
        spin(next());
        if linked {
            let _ = std::fs::remove_file(path);
        }
        // A `create_dirs` write may have made a fresh directory here while
        // the name was free (inside the workspace, as it should): set it
        // aside too.
        let mut extra = 0;
        while let Err(e) = std::fs::rename(&aside, path) {
            extra += 1;
            assert!(extra < 1000, "cannot restore {}: {e}", path.display());
            let _ = std::fs::rename(path, path.with_extension(format!("made{extra}")));
        }
        swaps.fetch_add(1, Ordering::Relaxed);
        spin(next());
    }
}

fn race(fast: bool) {
    #[cfg(feature = "fault-injection")]
    patch_file_core::testing::dir::set_openat2(fast);
    #[cfg(not(feature = "fault-injection"))]
    if !fast {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let base = std::fs::canonicalize(t.path()).unwrap();
    let root = base.join("ws");
    let outside = base.join("outside");
    for d in [
        root.join("d"),
        root.join("p/q"),
        root.join("f"),
        outside.join("q"),
    ] {
        std::fs::create_dir_all(d).unwrap();
    }
    // Same names outside, so a redirected write would land on them.
    for f in [
        "target.txt",
        "q/target.txt",
        "new.txt",
        "q/new.txt",
        "file.txt",
    ] {
        std::fs::write(outside.join(f), SECRET).unwrap();
    }
    std::fs::write(root.join("d/target.txt"), "state A\n").unwrap();
    std::fs::write(root.join("p/q/target.txt"), "state A\n").unwrap();
    std::fs::write(root.join("f/file.txt"), "state A\n").unwrap();
    let before = common::watch(&outside);

    let stop = Arc::new(AtomicBool::new(false));
    let swaps = Arc::new(AtomicU64::new(0));
    let pairs = vec![
        (root.join("d"), outside.clone()),
        (root.join("p/q"), outside.join("q")),
        (root.join("f/file.txt"), outside.join("file.txt")),
    ];
    let swapping = {
        let (s, n) = (stop.clone(), swaps.clone());
        std::thread::spawn(move || swapper(pairs, s, n))
    };
    let opts = json!({ "workspaceRoot": root });
    let n = iterations();
    let mut outcomes: BTreeMap<String, usize> = BTreeMap::new();
    for i in 0..n {
        let (file, kind) = match i % 5 {
            0 => ("d/target.txt", 0),
            1 => ("p/q/target.txt", 0),
            2 => ("f/file.txt", 0),
            3 => ("d/new.txt", 1),
            _ => ("p/q/new.txt", 1),
        };
        let v = if kind == 0 {
            let (a, b) = if i % 2 == 0 {
                ("state A", "state B")
            } else {
                ("state B", "state A")
            };
            engine::patch_file(
                &json!({"file_path": file, "search_block": a, "replace_block": b}),
                Some(&opts),
            )
        } else {
            engine::write_file(
                &json!({"file_path": file, "content": format!("written {i}\n"), "create_dirs": true}),
                Some(&opts),
            )
        };
        assert_ne!(v["code"], "INTERNAL_ERROR", "{v}");
        if v["ok"] == true {
            let p = v["file_path"].as_str().unwrap();
            assert!(Path::new(p).starts_with(&root), "{v}");
        }
        *outcomes
            .entry(v["code"].as_str().unwrap_or("ok").to_string())
            .or_default() += 1;
        // Cheap check every time, full one every 100 iterations.
        let sentinel = std::fs::read(outside.join("target.txt")).unwrap();
        assert_eq!(sentinel, SECRET.as_bytes(), "iteration {i}");
        if i % 100 == 0 {
            assert_eq!(common::watch(&outside), before, "iteration {i}");
        }
    }
    stop.store(true, Ordering::Relaxed);
    swapping.join().unwrap();
    assert_eq!(
        common::watch(&outside),
        before,
        "something outside was created or changed"
    );
    let beside: Vec<_> = std::fs::read_dir(&base).unwrap().collect();
    assert_eq!(beside.len(), 2, "new entries beside the workspace");
    eprintln!(
        "race (openat2 {}): {n} edits during {} swaps; outside unchanged; outcomes {outcomes:?}",
        if fast { "on" } else { "off" },
        swaps.load(Ordering::Relaxed)
    );
    #[cfg(feature = "fault-injection")]
    patch_file_core::testing::dir::set_openat2(true);
}

#[test]
fn swapping_parents_and_targets_for_outside_links_never_escapes() {
    race(true);
    race(false);
}
