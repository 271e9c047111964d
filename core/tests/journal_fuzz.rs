//! The journal reader under damage: random truncations, bit flips, lengths
//! (forged with a valid check, or not), garbage, FIFOs, symlinks and
//! directories in place of its files. Whatever is done to the journal,
//! `history`, `undo` (dry run and real), a new edit and `journalClear`
//! answer — no panic, no hang, no allocation larger than the largest file
//! involved — damaged entries are listed as damaged, and an undo of a
//! damaged entry writes nothing.
//!
//! A counting allocator records the largest single allocation of this test
//! binary. `PFT_FUZZ_SECONDS=n` runs cases for that long instead of the
//! default count.
#![cfg(target_os = "linux")]

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Mutex};
use std::time::{Duration, Instant};

use patch_file_core::api;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use serde_json::{json, Value};

/// The largest single allocation made while `WATCH` is on.
struct Counting;
static LARGEST: AtomicUsize = AtomicUsize::new(0);
static WATCH: AtomicBool = AtomicBool::new(false);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        if WATCH.load(Ordering::Relaxed) {
            LARGEST.fetch_max(l.size(), Ordering::Relaxed);
        }
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        if WATCH.load(Ordering::Relaxed) {
            LARGEST.fetch_max(n, Ordering::Relaxed);
        }
        unsafe { System.realloc(p, l, n) }
    }
}

#[global_allocator]
static A: Counting = Counting;

/// One case at a time: the allocator's watch is process-wide.
static SERIAL: Mutex<()> = Mutex::new(());

/// What is done to one file of the journal.
#[derive(Debug, Clone)]
enum Hurt {
    Truncate(u64),
    Flip(u64, u8),
    Append(Vec<u8>),
    /// A numeric field of the header set to a value, the check kept
    /// (`false`: stale, the line no longer checks out) or recomputed
    /// (`true`: a well-formed forgery).
    Field(usize, u64, bool),
    Fifo,
    Symlink(u8),
    Directory,
    Remove,
}

fn hurt() -> impl Strategy<Value = Hurt> {
    let big = prop_oneof![
        Just(0u64),
        Just(1),
        0u64..4096,
        Just(1 << 20),
        Just(1 << 40),
        Just(u64::MAX),
        Just(u64::MAX / 2 + 1)
    ];
    prop_oneof![
        (0u64..5000).prop_map(Hurt::Truncate),
        (0u64..5000, 0u8..8).prop_map(|(at, bit)| Hurt::Flip(at, bit)),
        proptest::collection::vec(any::<u8>(), 1..64).prop_map(Hurt::Append),
        (0usize..64, big, any::<bool>()).prop_map(|(i, v, fix)| Hurt::Field(i, v, fix)),
        Just(Hurt::Fifo),
        (0u8..3).prop_map(Hurt::Symlink),
        Just(Hurt::Directory),
        Just(Hurt::Remove),
    ]
}

fn sha(b: &[u8]) -> String {
    patch_file_core::testing::text::sha256_hex([b])
}

/// The `n`-th number of the JSON header `line` (without its check) set to
/// `v`; `None` when it has fewer numbers.
fn set_number(line: &str, n: usize, v: u64) -> Option<String> {
    let b = line.as_bytes();
    let mut seen = 0;
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'"' {
            // Skip a string.
            i += 1;
            while i < b.len() && b[i] != b'"' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            continue;
        }
        if b[i].is_ascii_digit() {
            let start = i;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            if seen == n {
                return Some(format!("{}{v}{}", &line[..start], &line[i..]));
            }
            seen += 1;
            continue;
        }
        i += 1;
    }
    None
}

/// The check of a header (as the journal writes it).
fn with_check(json: &str) -> String {
    format!(
        "{},\"check\":\"{}\"}}",
        &json[..json.len() - 1],
        sha(json.as_bytes())
    )
}

fn apply(p: &Path, h: &Hurt, outside: &Path) {
    let replace = |p: &Path| {
        let _ = fs::remove_file(p);
        let _ = fs::remove_dir_all(p);
    };
    // Bytes are changed only in a regular file (this test must not hang
    // on a FIFO an earlier hurt put there either).
    let regular = fs::symlink_metadata(p).is_ok_and(|m| m.is_file());
    if !regular
        && matches!(
            h,
            Hurt::Truncate(_) | Hurt::Flip(..) | Hurt::Append(_) | Hurt::Field(..)
        )
    {
        return;
    }
    match h {
        Hurt::Truncate(n) => {
            if let Ok(f) = fs::OpenOptions::new().write(true).open(p) {
                let len = f.metadata().unwrap().len();
                let _ = f.set_len((*n).min(len));
            }
        }
        Hurt::Flip(at, bit) => {
            if let Ok(mut b) = fs::read(p) {
                if !b.is_empty() {
                    let i = (*at as usize) % b.len();
                    b[i] ^= 1 << bit;
                    let _ = write_keeping_inode(p, &b);
                }
            }
        }
        Hurt::Append(extra) => {
            if let Ok(mut b) = fs::read(p) {
                b.extend_from_slice(extra);
                let _ = write_keeping_inode(p, &b);
            }
        }
        Hurt::Field(n, v, fix) => {
            let Ok(b) = fs::read(p) else { return };
            let Some(nl) = b.iter().position(|&c| c == b'\n') else {
                return;
            };
            let Ok(line) = std::str::from_utf8(&b[..nl]) else {
                return;
            };
            let Some(at) = line.rfind(",\"check\":\"") else {
                return;
            };
            let json = format!("{}}}", &line[..at]);
            let Some(changed) = set_number(&json, *n, *v) else {
                return;
            };
            let new_line = if *fix {
                with_check(&changed)
            } else {
                format!("{}{}", &changed[..changed.len() - 1], &line[at..])
            };
            let mut out = new_line.into_bytes();
            out.extend_from_slice(&b[nl..]);
            let _ = write_keeping_inode(p, &out);
        }
        Hurt::Fifo => {
            replace(p);
            let _ = rustix::fs::mknodat(
                rustix::fs::CWD,
                p,
                rustix::fs::FileType::Fifo,
                rustix::fs::Mode::from_raw_mode(0o600),
                0,
            );
        }
        Hurt::Symlink(k) => {
            replace(p);
            let target: PathBuf = match k {
                0 => "/dev/zero".into(),
                1 => outside.to_path_buf(),
                _ => "/nonexistent/pft".into(),
            };
            let _ = std::os::unix::fs::symlink(target, p);
        }
        Hurt::Directory => {
            replace(p);
            let _ = fs::create_dir(p);
        }
        Hurt::Remove => replace(p),
    }
}

/// Rewrites `p`'s bytes through the same inode (a kept inode stays the
/// one recorded, only its content changes).
fn write_keeping_inode(p: &Path, b: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let mut f = fs::OpenOptions::new().write(true).truncate(true).open(p)?;
    f.write_all(b)
}

/// A workspace with a journal of several kinds of entries: small edits
/// (content in the entry), a big one (a kept inode), a batch, a delete and
/// a move.
struct Case {
    _t: tempfile::TempDir,
    root: PathBuf,
    jbase: PathBuf,
    outside: PathBuf,
}

impl Case {
    fn o(&self) -> Value {
        json!({"workspaceRoot": self.root, "durable": false, "journal": {"dir": self.jbase}})
    }
}

fn ok(v: &Value) {
    assert_eq!(v["ok"], true, "{v:#}");
}

fn build() -> Case {
    let t = tempfile::tempdir().unwrap();
    let top = t.path().canonicalize().unwrap();
    let root = top.join("ws");
    fs::create_dir(&root).unwrap();
    let outside = top.join("outside.txt");
    fs::write(&outside, "outside the journal\n").unwrap();
    let c = Case {
        _t: t,
        root,
        jbase: top.join("journal"),
        outside,
    };
    let o = c.o();
    fs::write(c.root.join("a.txt"), "alpha\nbeta\n").unwrap();
    fs::write(c.root.join("b.txt"), "one\ntwo\n").unwrap();
    let big: String = (0..20_000).map(|i| format!("line {i}\n")).collect();
    fs::write(c.root.join("big.txt"), big).unwrap();
    ok(&api::patch_file(
        &json!({"file_path": "a.txt", "search": "beta", "replace": "BETA"}),
        Some(&o),
    ));
    ok(&api::patch_file(
        &json!({"file_path": "big.txt", "search": "line 19999\n", "replace": "last\n"}),
        Some(&o),
    ));
    ok(&api::batch_patch_files(
        &json!({"files": [
            {"file_path": "a.txt", "search": "alpha", "replace": "ALPHA"},
            {"file_path": "b.txt", "search": "two", "replace": "TWO"}
        ]}),
        Some(&o),
    ));
    ok(&api::apply_patch(
        &json!("*** Begin Patch\n*** Delete File: b.txt\n*** Update File: a.txt\n*** Move to: moved/a.txt\n@@\n-ALPHA\n+alpha\n*** End Patch\n"),
        Some(&o),
    ));
    c
}

/// The files of the case's workspace journal.
fn journal_files(c: &Case) -> (PathBuf, Vec<PathBuf>) {
    let h = api::history(&json!({}), Some(&c.o()));
    let j = PathBuf::from(h["journal"].as_str().unwrap());
    let mut v: Vec<PathBuf> = fs::read_dir(&j)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    v.sort();
    (j, v)
}

/// The largest file below `dir` (links not followed).
fn largest(dir: &Path) -> u64 {
    let mut m = 0;
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        let Ok(rd) = fs::read_dir(&d) else { continue };
        for e in rd.flatten() {
            let Ok(md) = fs::symlink_metadata(e.path()) else {
                continue;
            };
            if md.is_dir() {
                todo.push(e.path());
            } else if md.is_file() {
                m = m.max(md.len());
            }
        }
    }
    m
}

/// Runs `f` on its own thread; panics when it has not answered in time.
fn answers<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(120))
        .unwrap_or_else(|_| panic!("{what} did not answer: it hangs"))
}

/// A listed transaction's id.
fn id_of(t: &Value) -> Option<u64> {
    t["id"].as_str()?.parse().ok()
}

/// An undo refused because the entry is damaged — or because the journal
/// itself cannot be used (its lock or marker hurt too).
fn refused_as_damaged(v: &Value) -> bool {
    v["code"] == "JOURNAL_DAMAGED"
        || (v["code"] == "FILE_READ_ERROR"
            && v["message"]
                .as_str()
                .is_some_and(|m| m.contains("the journal")))
}

fn no_internal_error(v: &Value, what: &str) {
    assert_ne!(v["code"], "INTERNAL_ERROR", "{what}: {v:#}");
}

/// A journal file as it was: its kind (`None`: missing), inode, bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Seen {
    file: bool,
    ino: u64,
    bytes: Vec<u8>,
}

fn seen(p: &Path) -> Option<Seen> {
    use std::os::unix::fs::MetadataExt;
    let m = fs::symlink_metadata(p).ok()?;
    Some(Seen {
        file: m.is_file(),
        ino: m.ino(),
        bytes: if m.is_file() {
            fs::read(p).unwrap_or_default()
        } else {
            Vec::new()
        },
    })
}

/// What a use of the hurt journal must show for entry `id`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Must {
    /// Listed with `damaged: true`.
    Listed,
    /// Refused by undo as damaged (the listing cannot see it).
    Refused,
}

/// The header line of entry bytes (up to its newline).
fn header_of(b: &[u8]) -> &[u8] {
    &b[..b.iter().position(|&c| c == b'\n').unwrap_or(b.len())]
}

/// What the hurts did, per entry id (`None`: nothing required).
fn expectations(
    j: &Path,
    before: &[(PathBuf, Option<Seen>)],
    forged: &[PathBuf],
) -> Vec<(u64, Must)> {
    let mut out = Vec::new();
    for (p, was) in before {
        let Some(was) = was else { continue };
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        let Some(id) = name.split('-').next().and_then(|s| s.parse::<u64>().ok()) else {
            continue;
        };
        let entry_path = |id: u64| {
            before
                .iter()
                .find(|(q, _)| {
                    let n = q.file_name().unwrap().to_string_lossy();
                    n.ends_with(".entry") && n.starts_with(&format!("{id:010}-"))
                })
                .map(|(q, _)| q.clone())
        };
        let Some(ep) = entry_path(id) else { continue };
        // An entry removed or forged whole is not required to be anything.
        if forged.contains(&ep) || seen(&ep).is_none() {
            continue;
        }
        let now = seen(p);
        if now.as_ref() == Some(was) {
            continue;
        }
        let must = match now {
            None => Must::Listed,
            Some(n) if !n.file => Must::Listed,
            Some(n) if name.ends_with(".entry") => {
                if n.bytes.len() != was.bytes.len() || header_of(&n.bytes) != header_of(&was.bytes)
                {
                    Must::Listed
                } else {
                    Must::Refused
                }
            }
            Some(n) => {
                if n.bytes.len() != was.bytes.len() || n.ino != was.ino {
                    Must::Listed
                } else {
                    Must::Refused
                }
            }
        };
        let _ = j;
        out.push((id, must));
    }
    out
}

/// One case: hurt some journal files, then use the journal every way.
fn run_case(hurts: &[(usize, Hurt)]) -> Result<(), TestCaseError> {
    let _one = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let c = build();
    let (j, files) = journal_files(&c);
    let before: Vec<(PathBuf, Option<Seen>)> = files.iter().map(|p| (p.clone(), seen(p))).collect();
    let mut forged = Vec::new();
    for (which, h) in hurts {
        let p = &files[which % files.len()];
        if matches!(h, Hurt::Field(_, _, true)) {
            forged.push(p.clone());
        }
        apply(p, h, &c.outside);
    }
    let must = expectations(&j, &before, &forged);
    let bound = largest(&j).max(largest(&c.root)).max(1 << 20) as usize + (4 << 20);
    let tree = common::tree(&c.root);
    LARGEST.store(0, Ordering::Relaxed);
    WATCH.store(true, Ordering::Relaxed);
    let o = c.o();
    let h = answers("history", move || {
        api::history(&json!({"limit": 1000}), Some(&o))
    });
    no_internal_error(&h, "history");
    let listed: Vec<Value> = h["transactions"].as_array().cloned().unwrap_or_default();
    // Every id listed: undo it as a dry run; a damaged one for real too.
    for t in &listed {
        let id = t["id"].clone();
        let o = c.o();
        let d = answers("undo dry run", move || {
            api::undo(&json!({"id": id, "dry_run": true}), Some(&o))
        });
        no_internal_error(&d, "undo dry run");
        if t["damaged"] == true {
            prop_assert!(refused_as_damaged(&d), "{:#}", d);
            let id = t["id"].clone();
            let o = c.o();
            let u = answers("undo", move || api::undo(&json!({"id": id}), Some(&o)));
            prop_assert!(refused_as_damaged(&u), "{:#}", u);
            prop_assert_eq!(&common::tree(&c.root), &tree, "a damaged entry wrote");
        }
        if let Some((_, m)) = must.iter().find(|(i, _)| id_of(t) == Some(*i)) {
            match m {
                Must::Listed => prop_assert_eq!(&t["damaged"], true, "{:#}", t),
                Must::Refused => prop_assert!(refused_as_damaged(&d), "{:#}", d),
            }
        }
    }
    if h["ok"] == true {
        for (id, _) in &must {
            prop_assert!(
                listed.iter().any(|t| id_of(t) == Some(*id)),
                "entry {} not listed: {:#}",
                id,
                h
            );
        }
    }
    let o = c.o();
    let u = answers("undo", move || api::undo(&json!({}), Some(&o)));
    no_internal_error(&u, "undo");
    let o = c.o();
    let e = answers("an edit", move || {
        fs::write(
            PathBuf::from(o["workspaceRoot"].as_str().unwrap()).join("n.txt"),
            "n\n",
        )
        .unwrap();
        api::patch_file(
            &json!({"file_path": "n.txt", "search": "n", "replace": "m"}),
            Some(&o),
        )
    });
    ok(&e);
    let o = c.o();
    let h2 = answers("history", move || api::history(&json!({}), Some(&o)));
    no_internal_error(&h2, "history");
    let o = c.o();
    let cl = answers("journalClear", move || {
        api::journal_clear(&json!({}), Some(&o))
    });
    no_internal_error(&cl, "journalClear");
    WATCH.store(false, Ordering::Relaxed);
    let biggest = LARGEST.load(Ordering::Relaxed);
    prop_assert!(
        biggest <= bound,
        "an allocation of {} bytes, over the largest file involved ({} with slack)",
        biggest,
        bound
    );
    let _ = fs::set_permissions(&j, fs::Permissions::from_mode(0o700));
    Ok(())
}

#[test]
fn damaged_journals_never_crash_hang_or_overallocate() {
    let seconds: Option<u64> = std::env::var("PFT_FUZZ_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok());
    let cases = if seconds.is_some() { 1_000_000 } else { 48 };
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    });
    let start = Instant::now();
    let strategy = proptest::collection::vec((0usize..64, hurt()), 1..4);
    let n = AtomicUsize::new(0);
    let r = runner.run(&strategy, |hurts| {
        if seconds.is_some_and(|s| start.elapsed() > Duration::from_secs(s)) {
            return Ok(());
        }
        n.fetch_add(1, Ordering::Relaxed);
        run_case(&hurts)
    });
    eprintln!(
        "{} damaged journals in {:.1} s",
        n.load(Ordering::Relaxed),
        start.elapsed().as_secs_f64()
    );
    r.unwrap();
}

/// The damage the listing must see: each kind of hurt to an entry's
/// header or type, one at a time, on every entry.
#[test]
fn every_entry_hurt_in_its_header_or_type_is_listed_damaged() {
    let _one = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    for h in [
        Hurt::Truncate(10),
        Hurt::Flip(3, 1),
        Hurt::Append(b"x".to_vec()),
        Hurt::Field(2, 1 << 40, false),
        Hurt::Fifo,
        Hurt::Symlink(0),
        Hurt::Symlink(1),
        Hurt::Directory,
    ] {
        let c = build();
        let (_, files) = journal_files(&c);
        let entries: Vec<&PathBuf> = files
            .iter()
            .filter(|p| p.to_string_lossy().ends_with(".entry"))
            .collect();
        for p in &entries {
            apply(p, &h, &c.outside);
        }
        let o = c.o();
        let v = answers("history", move || {
            api::history(&json!({"limit": 1000}), Some(&o))
        });
        let ts = v["transactions"].as_array().unwrap();
        assert_eq!(ts.len(), entries.len(), "{h:?}: {v:#}");
        for t in ts {
            assert_eq!(t["damaged"], true, "{h:?}: {t:#}");
            assert_eq!(t["undoable"], false);
        }
        let before = common::tree(&c.root);
        let o = c.o();
        let u = answers("undo", move || api::undo(&json!({}), Some(&o)));
        assert_eq!(u["code"], "INVALID_INPUT", "{h:?}: {u:#}");
        assert_eq!(common::tree(&c.root), before);
    }
}
