//! No lost updates, no torn files, crash safety.
//!
//! - 16 writer threads, then 16 writer processes, each applying 100 distinct
//!   edits to one file: at the end every edit is present if and only if it
//!   was reported applied (0 silent losses, 0 phantom edits).
//! - Reader processes read the file thousands of times meanwhile: every read
//!   is a whole, well-formed version (0 torn reads).
//! - A child process patches a file in a loop and is killed with SIGKILL at
//!   random moments: after each kill the file is exactly one version, and
//!   temp files left by the kills are swept by a later call once stale.
//!
//! Child processes are this test binary run again with `PFT_CHILD` set (see
//! [`child_entry`]). Sizes: `PFT_CRASH_KILLS` (default 60; `PFT_LONG=1`:
//! 250), `PFT_WRITERS`/`PFT_EDITS` (default 16/100).
#![cfg(unix)]

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use patch_file_core::api as engine;
use serde_json::{json, Value};

fn env_num(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn long() -> bool {
    std::env::var("PFT_LONG").is_ok_and(|v| v == "1")
}

fn writers() -> usize {
    env_num("PFT_WRITERS", 16)
}

fn edits() -> usize {
    env_num("PFT_EDITS", 100)
}

fn slot(w: usize, e: usize) -> String {
    format!("w{w:02}e{e:03}=")
}

/// The shared file: one line per (writer, edit), all `todo`.
fn initial(writers: usize, edits: usize) -> String {
    let mut s = String::new();
    for w in 0..writers {
        for e in 0..edits {
            s.push_str(&slot(w, e));
            s.push_str("todo\n");
        }
    }
    s.push_str("END\n");
    s
}

/// Checks that `text` is one whole version of the shared file; returns how
/// many edits it holds.
fn parse_version(text: &str, writers: usize, edits: usize) -> Result<usize, String> {
    let mut done = 0;
    let mut lines = text.split_inclusive('\n');
    for w in 0..writers {
        for e in 0..edits {
            let want = slot(w, e);
            match lines.next() {
                Some(l) if l.starts_with(&want) => match &l[want.len()..] {
                    "todo\n" => {}
                    "DONE\n" => done += 1,
                    other => return Err(format!("bad value {other:?} at {want}")),
                },
                other => return Err(format!("expected {want}, got {other:?}")),
            }
        }
    }
    match (lines.next(), lines.next()) {
        (Some("END\n"), None) => Ok(done),
        other => Err(format!("bad end {other:?}")),
    }
}

/// One writer's 100 edits; retries an edit that met `FILE_CHANGED` (another
/// process won the race) up to 200 times. Returns (edit, applied, code,
/// retries).
fn write_edits(root: &Path, w: usize, edits: usize) -> Vec<(usize, bool, String, usize)> {
    let opts = json!({ "workspaceRoot": root });
    let mut out = Vec::new();
    for e in 0..edits {
        let s = slot(w, e);
        let input = json!({
            "file_path": "shared.txt",
            "search_block": format!("{s}todo"),
            "replace_block": format!("{s}DONE"),
        });
        let mut last = Value::Null;
        let mut retries = 0;
        for attempt in 0..200 {
            last = engine::patch_file(&input, Some(&opts));
            retries = attempt;
            if last["code"] != "FILE_CHANGED" {
                break;
            }
        }
        let ok = last["ok"] == true;
        out.push((
            e,
            ok,
            last["code"].as_str().unwrap_or("ok").to_string(),
            retries,
        ));
    }
    out
}

/// Checks the end state against what the writers reported.
fn check_no_lost_updates(root: &Path, reports: &[(usize, usize, bool, String)]) -> usize {
    let text = std::fs::read_to_string(root.join("shared.txt")).unwrap();
    let (nw, ne) = (writers(), edits());
    parse_version(&text, nw, ne).expect("final file is well formed");
    let mut silent_losses = Vec::new();
    let mut phantoms = Vec::new();
    let mut applied = 0;
    for (w, e, ok, code) in reports {
        let present = text.contains(&format!("{}DONE", slot(*w, *e)));
        if *ok {
            applied += 1;
        }
        if *ok && !present {
            silent_losses.push((w, e));
        }
        if !*ok && present {
            phantoms.push((w, e, code));
        }
    }
    assert_eq!(reports.len(), nw * ne, "every edit reported");
    assert!(silent_losses.is_empty(), "silent losses: {silent_losses:?}");
    assert!(
        phantoms.is_empty(),
        "applied but reported failed: {phantoms:?}"
    );
    applied
}

#[test]
fn sixteen_writer_threads_lose_nothing() {
    let t = tempfile::tempdir().unwrap();
    let root = t.path().to_path_buf();
    let (nw, ne) = (writers(), edits());
    std::fs::write(root.join("shared.txt"), initial(nw, ne)).unwrap();
    let handles: Vec<_> = (0..nw)
        .map(|w| {
            let r = root.clone();
            std::thread::spawn(move || write_edits(&r, w, ne))
        })
        .collect();
    let mut reports = Vec::new();
    for (w, h) in handles.into_iter().enumerate() {
        for (e, ok, code, _) in h.join().unwrap() {
            reports.push((w, e, ok, code));
        }
    }
    let applied = check_no_lost_updates(&root, &reports);
    // In one process the per-file lock serializes the calls: all succeed.
    assert_eq!(applied, nw * ne);
    eprintln!("threads: {nw} writers x {ne} edits: {applied} applied, 0 lost");
}

// ---------------------------------------------------------------------------
// Child processes.

fn spawn_child(role: &str, root: &Path, extra: &[(&str, String)]) -> Child {
    let mut c = Command::new(std::env::current_exe().unwrap());
    let name = crate::common::test_name(module_path!(), "child_entry");
    c.args(["--exact", &name, "--nocapture", "--test-threads=1"])
        .env("PFT_CHILD", role)
        .env("PFT_CHILD_ROOT", root)
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    for (k, v) in extra {
        c.env(k, v);
    }
    c.spawn().unwrap()
}

/// Lines the child printed that start with `@`.
fn child_lines(child: Child) -> Vec<String> {
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "child failed: {:?}", out.status);
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        // The harness prints `test child_entry ... ` before the first line.
        .filter_map(|l| l.split_once('@').map(|(_, r)| r.to_string()))
        .collect()
}

/// The body of every child process; a no-op in a normal test run.
#[test]
fn child_entry() {
    let Ok(role) = std::env::var("PFT_CHILD") else {
        return;
    };
    let root = PathBuf::from(std::env::var("PFT_CHILD_ROOT").unwrap());
    let mut out = std::io::stdout().lock();
    match role.as_str() {
        "writer" => {
            let w: usize = std::env::var("PFT_WRITER").unwrap().parse().unwrap();
            for (e, ok, code, retries) in write_edits(&root, w, edits()) {
                writeln!(out, "@{w} {e} {ok} {code} {retries}").unwrap();
            }
        }
        "reader" => {
            let (nw, ne) = (writers(), edits());
            let stop = root.join("stop-readers");
            let (mut reads, mut torn, mut last) = (0usize, 0usize, 0usize);
            let mut regressions = 0usize;
            while !stop.exists() || reads < 1000 {
                let text = std::fs::read_to_string(root.join("shared.txt")).unwrap();
                reads += 1;
                match parse_version(&text, nw, ne) {
                    Ok(n) => {
                        if n < last {
                            regressions += 1;
                        }
                        last = n;
                    }
                    Err(_) => torn += 1,
                }
            }
            writeln!(out, "@{reads} {torn} {regressions}").unwrap();
        }
        "crasher" => {
            let opts = json!({ "workspaceRoot": root });
            let mut announced = false;
            loop {
                let text = std::fs::read_to_string(root.join("counter.txt")).unwrap();
                let n = parse_counter(&text).expect("well formed");
                let v = engine::patch_file(
                    &json!({
                        "file_path": "counter.txt",
                        "search_block": format!("counter={n:08}\n"),
                        "replace_block": format!("counter={:08}\n", n + 1),
                    }),
                    Some(&opts),
                );
                assert_eq!(v["ok"], true, "{v}");
                if !announced {
                    writeln!(out, "@ready").unwrap();
                    out.flush().unwrap();
                    announced = true;
                }
            }
        }
        other => panic!("unknown child role {other}"),
    }
}

#[test]
fn sixteen_writer_processes_lose_nothing_and_readers_never_see_a_torn_file() {
    let t = tempfile::tempdir().unwrap();
    let root = t.path().to_path_buf();
    let (nw, ne) = (writers(), edits());
    std::fs::write(root.join("shared.txt"), initial(nw, ne)).unwrap();
    let readers: Vec<Child> = (0..2).map(|_| spawn_child("reader", &root, &[])).collect();
    let start = Instant::now();
    let children: Vec<Child> = (0..nw)
        .map(|w| spawn_child("writer", &root, &[("PFT_WRITER", w.to_string())]))
        .collect();
    let mut reports = Vec::new();
    let mut changed = 0usize;
    for c in children {
        for l in child_lines(c) {
            let f: Vec<&str> = l.split(' ').collect();
            changed += f[4].parse::<usize>().unwrap();
            reports.push((
                f[0].parse().unwrap(),
                f[1].parse().unwrap(),
                f[2] == "true",
                f[3].to_string(),
            ));
        }
    }
    let took = start.elapsed();
    std::fs::write(root.join("stop-readers"), "").unwrap();
    let (mut reads, mut torn, mut regressions) = (0usize, 0usize, 0usize);
    for r in readers {
        let l = child_lines(r);
        let f: Vec<usize> = l[0].split(' ').map(|x| x.parse().unwrap()).collect();
        reads += f[0];
        torn += f[1];
        regressions += f[2];
    }
    let applied = check_no_lost_updates(&root, &reports);
    let failed: BTreeMap<&str, usize> =
        reports
            .iter()
            .filter(|r| !r.2)
            .fold(BTreeMap::new(), |mut m, r| {
                *m.entry(r.3.as_str()).or_default() += 1;
                m
            });
    assert_eq!(torn, 0, "torn reads");
    assert_eq!(regressions, 0, "a reader saw edits disappear");
    assert!(reads >= 2000, "readers read only {reads} times");
    eprintln!(
        "processes: {nw} writers x {ne} edits in {took:?}: {applied} applied, {} reported failed {failed:?}, 0 lost \
         ({changed} attempts lost a race, got FILE_CHANGED and were retried); readers: {reads} reads, 0 torn",
        reports.len() - applied
    );
}

// ---------------------------------------------------------------------------
// Crash safety.

const BODY_LINES: usize = 4000;

fn counter_file(n: u64) -> String {
    let mut s = format!("counter={n:08}\n");
    for i in 0..BODY_LINES {
        s.push_str(&format!("body line {i:05} stays exactly as it is\n"));
    }
    s
}

/// The counter of a whole version, or `None` if `text` is not one.
fn parse_counter(text: &str) -> Option<u64> {
    let n: u64 = text.get(8..16)?.parse().ok()?;
    (text == counter_file(n)).then_some(n)
}

fn temp_files(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| patch_file_core::testing::dir::is_temp_name(p.file_name().unwrap()))
        .collect()
}

#[test]
fn sigkill_at_random_moments_leaves_old_or_new_and_stale_temps_are_swept() {
    let kills = env_num("PFT_CRASH_KILLS", if long() { 250 } else { 60 });
    let t = tempfile::tempdir().unwrap();
    let root = t.path().to_path_buf();
    std::fs::write(root.join("counter.txt"), counter_file(0)).unwrap();
    let mut rnd = 0x2545_F491_4F6C_DD1Du64;
    let mut last = 0u64;
    let mut with_temp = 0usize;
    let mut temps_before = 0usize;
    for k in 0..kills {
        let mut child = spawn_child("crasher", &root, &[]);
        // Wait until it is patching, then kill it a random moment later.
        let mut out = BufReader::new(child.stdout.as_mut().unwrap());
        let mut line = String::new();
        while !line.contains("@ready") {
            line.clear();
            assert!(out.read_line(&mut line).unwrap() > 0, "the child ended");
        }
        rnd ^= rnd << 13;
        rnd ^= rnd >> 7;
        rnd ^= rnd << 17;
        std::thread::sleep(Duration::from_micros(rnd % 20_000));
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        let text = std::fs::read_to_string(root.join("counter.txt")).unwrap();
        let n = parse_counter(&text)
            .unwrap_or_else(|| panic!("kill {k}: the file is not one whole version"));
        assert!(n >= last, "kill {k}: went back from {last} to {n}");
        last = n;
        let temps = temp_files(&root).len();
        if temps > temps_before {
            with_temp += 1;
        }
        temps_before = temps;
    }
    let left = temp_files(&root);
    eprintln!(
        "crash: {kills} SIGKILLs, {last} edits committed, file whole after every kill; \
         {with_temp} kills left a temp file ({} in the directory)",
        left.len()
    );
    // A young temp file (a writer may still be busy with it) is kept; one
    // older than the safe age is swept by the next call in that directory.
    // Both made as the engine makes them (a hand-made name is a user's
    // file, which no sweep removes).
    let dir = patch_file_core::testing::dir::Dir::open_root(&root).unwrap();
    let made = |_| {
        let (mut f, n) = patch_file_core::testing::temps::create(
            &dir,
            std::ffi::OsStr::new("counter.txt"),
            0o600,
        )
        .unwrap();
        std::io::Write::write_all(&mut f, b"partial").unwrap();
        root.join(n)
    };
    let (young, old) = (made(0), made(1));
    let long_ago = std::time::SystemTime::now()
        - patch_file_core::testing::temps::STALE_TEMP_AGE
        - Duration::from_secs(60);
    for p in left.iter().chain([&old]) {
        std::fs::File::options()
            .write(true)
            .open(p)
            .unwrap()
            .set_modified(long_ago)
            .unwrap();
    }
    let v = engine::patch_file(
        &json!({
            "file_path": "counter.txt",
            "search_block": format!("counter={last:08}\n"),
            "replace_block": format!("counter={:08}\n", last + 1),
        }),
        Some(&json!({ "workspaceRoot": root })),
    );
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(temp_files(&root), vec![young.clone()]);
    let names: BTreeSet<_> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
}

/// A temp file whose writer was killed a moment before the next write in
/// its directory: too young to sweep then (its writer may not have locked
/// it yet), and the directory was marked swept for a quarter hour, so a
/// long-lived process (an MCP server) kept a partial file of hundreds of
/// MB. The next write after the grace sweeps it.
#[test]
fn a_temp_too_young_to_sweep_is_swept_by_a_later_write_of_the_same_process() {
    let t = tempfile::tempdir().unwrap();
    let root = t.path().canonicalize().unwrap();
    std::fs::write(root.join("a.txt"), "a0\n").unwrap();
    let dir = patch_file_core::testing::dir::Dir::open_root(&root).unwrap();
    let (mut f, n) =
        patch_file_core::testing::temps::create(&dir, std::ffi::OsStr::new("big.txt"), 0o600)
            .unwrap();
    f.write_all(b"partial").unwrap();
    drop(f);
    let temp = root.join(n);
    let edit = |from: &str, to: &str| {
        let v = engine::patch_file(
            &json!({"file_path": "a.txt", "search_block": from, "replace_block": to}),
            Some(&json!({ "workspaceRoot": root, "durable": false })),
        );
        assert_eq!(v["ok"], true, "{v}");
    };
    edit("a0", "a1");
    assert_eq!(temp_files(&root), vec![temp.clone()], "young: kept");
    // Past the grace (its writer gone for seconds), long before the age
    // at which any temp is swept.
    std::fs::File::options()
        .write(true)
        .open(&temp)
        .unwrap()
        .set_modified(std::time::SystemTime::now() - Duration::from_secs(30))
        .unwrap();
    edit("a1", "a2");
    assert!(temp_files(&root).is_empty(), "{:?}", temp_files(&root));
}
