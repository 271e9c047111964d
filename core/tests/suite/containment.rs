//! Containment: a corpus of hostile paths, each sent through every entry
//! point (patch, write with directory creation, read, batch, dry run and
//! apply), with the `openat2` fast path on and off. Nothing outside the
//! workspace may be read, created or changed, and nothing may panic.
//!
//! The outside world is a sibling directory holding a sentinel file whose
//! bytes and modification time are checked after every call, and whose tree
//! (names, sizes, times) must stay identical; a few system files are
//! watched too.
#![cfg(unix)]

use crate::common;

use std::collections::BTreeMap;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use patch_file_core::api as engine;
use serde_json::{json, Value};

const SECRET: &str = "SENTINEL-SECRET do not touch\n";

struct World {
    _t: tempfile::TempDir,
    root: PathBuf,
    outside: PathBuf,
    canonical_root: PathBuf,
}

fn world() -> World {
    let t = tempfile::tempdir().unwrap();
    let base = std::fs::canonicalize(t.path()).unwrap();
    let root = base.join("ws");
    let outside = base.join("outside");
    std::fs::create_dir_all(root.join("sub/deep")).unwrap();
    std::fs::create_dir_all(outside.join("dir")).unwrap();
    std::fs::write(outside.join("sentinel.txt"), SECRET).unwrap();
    std::fs::write(outside.join("dir/sentinel.txt"), SECRET).unwrap();
    std::fs::write(root.join("a.txt"), "SENTINEL-SECRET inside\n").unwrap();
    std::fs::write(root.join("sub/b.txt"), "SENTINEL-SECRET inside b\n").unwrap();
    let o = outside.to_str().unwrap();
    let links: &[(&str, String)] = &[
        ("link_out_file", "../outside/sentinel.txt".into()),
        ("link_out_abs", format!("{o}/sentinel.txt")),
        ("link_out_dir", "../outside".into()),
        ("link_out_dir_abs", o.into()),
        ("chain1", "chain2".into()),
        ("chain2", "sub/chain3".into()),
        ("sub/chain3", "../../outside/sentinel.txt".into()),
        ("chain_dir1", "chain_dir2".into()),
        ("chain_dir2", "link_out_dir".into()),
        ("loop_a", "loop_b".into()),
        ("loop_b", "loop_a".into()),
        ("self_loop", "self_loop".into()),
        ("proc_self", format!("/proc/self/root{o}/sentinel.txt")),
        ("proc_cwd", "/proc/self/cwd".into()),
        ("proc_fd", "/proc/self/fd/0".into()),
        ("proc_root", "/proc/self/root".into()),
        ("link_root", "/".into()),
        ("link_etc", "/etc/passwd".into()),
        ("dev_null", "/dev/null".into()),
        ("dev_zero", "/dev/zero".into()),
        ("sub/up", "..".into()),
        ("sub/upup", "../..".into()),
        ("dotdot", "..".into()),
        ("dot", ".".into()),
        ("link_in", "a.txt".into()),
        ("link_in_sub", "sub".into()),
        ("sub/deep/back", "../../sub/deep/../../..".into()),
        ("dangling_out", "../outside/new-file.txt".into()),
        ("dangling_abs", format!("{o}/new-abs.txt")),
        ("dangling_dir_out", "../outside/newdir".into()),
        ("tmp_link", "/tmp".into()),
    ];
    for (name, target) in links {
        symlink(target, root.join(name)).unwrap();
    }
    // A FIFO, a socket and (where permitted) a device node inside.
    rustix::fs::mkfifoat(
        rustix::fs::CWD,
        root.join("fifo").as_path(),
        rustix::fs::Mode::from_raw_mode(0o666),
    )
    .unwrap();
    let _sock = std::os::unix::net::UnixListener::bind(root.join("sock")).unwrap();
    let _ = rustix::fs::mknodat(
        rustix::fs::CWD,
        root.join("chardev").as_path(),
        rustix::fs::FileType::CharacterDevice,
        rustix::fs::Mode::from_raw_mode(0o666),
        rustix::fs::makedev(1, 3),
    );
    std::mem::forget(_sock);
    let canonical_root = root.clone();
    World {
        _t: t,
        root,
        outside,
        canonical_root,
    }
}

fn watched_system_files() -> Vec<(PathBuf, Option<std::time::SystemTime>)> {
    ["/etc/passwd", "/etc/hosts", "/etc/shadow"]
        .iter()
        .map(|p| {
            (
                PathBuf::from(p),
                std::fs::metadata(p).and_then(|m| m.modified()).ok(),
            )
        })
        .collect()
}

/// The hostile corpus; `o` is the absolute outside directory, `r` the root.
fn corpus(o: &str, r: &str) -> Vec<String> {
    let mut v: Vec<String> = Vec::new();
    let mut add = |s: &str| v.push(s.to_string());
    // Traversal in every spelling.
    for p in [
        "../outside/sentinel.txt",
        "../outside/dir/sentinel.txt",
        "..//outside//sentinel.txt",
        "./../outside/sentinel.txt",
        ".././outside/./sentinel.txt",
        "sub/../../outside/sentinel.txt",
        "sub/./../../outside/sentinel.txt",
        "sub/deep/../../../outside/sentinel.txt",
        "a.txt/../../outside/sentinel.txt",
        "nonexistent/../../outside/sentinel.txt",
        "../ws/../outside/sentinel.txt",
        "../ws/a.txt",
        "..",
        "../",
        "../..",
        "../../..",
        "...",
        "..../outside/sentinel.txt",
        ". ./outside/sentinel.txt",
        ".. /outside/sentinel.txt",
        " ../outside/sentinel.txt",
        "../outside/new-file.txt",
        "../outside/newdir/new.txt",
        "../newdir-beside/x.txt",
        "sub/../../newdir-beside/x.txt",
        "~/.bashrc",
        "~root/.profile",
        "$HOME/x",
        "${HOME}/x",
        "`id`",
        "$(id)",
        "*",
        "?",
        "[a]",
    ] {
        add(p);
    }
    for n in 1..=24 {
        add(&format!("{}outside/sentinel.txt", "../".repeat(n)));
        add(&format!("{}tmp/pft-escape-{n}.txt", "../".repeat(n)));
    }
    // Absolute paths.
    for p in [
        format!("{o}/sentinel.txt"),
        format!("{o}/dir/sentinel.txt"),
        format!("{o}/new-abs.txt"),
        format!("{o}//sentinel.txt"),
        format!("{o}/./sentinel.txt"),
        format!("{r}/../outside/sentinel.txt"),
        format!("{r}/sub/../../outside/sentinel.txt"),
        format!("{r}/../ws/../outside/sentinel.txt"),
        format!("{r}/./../outside/sentinel.txt"),
        format!("{r}/link_out_file"),
        format!("{r}/link_out_dir/sentinel.txt"),
        format!("{r}//../outside/sentinel.txt"),
        format!("{r}/.."),
        format!("/proc/self/root{o}/sentinel.txt"),
        format!("/proc/self/cwd/{o}/sentinel.txt"),
        format!("/proc/{}/root{o}/sentinel.txt", std::process::id()),
        format!("/proc/thread-self/root{o}/sentinel.txt"),
        format!("/dev/fd/../../{o}/sentinel.txt"),
        format!("//{o}/sentinel.txt"),
        format!("///{o}/sentinel.txt"),
    ] {
        add(&p);
    }
    for p in [
        "/etc/passwd",
        "/etc/hosts",
        "/etc/shadow",
        "/",
        "//",
        "/tmp",
        "/tmp/pft-escape-abs.txt",
        "/dev/null",
        "/dev/zero",
        "/dev/random",
        "/dev/stdin",
        "/dev/stdout",
        "/dev/tty",
        "/proc/self/environ",
        "/proc/self/mem",
        "/proc/self/fd/0",
        "/proc/self/cwd",
        "/sys/kernel/notes",
        "/root/.bashrc",
    ] {
        add(p);
    }
    // Symlinks: file, parent, chain, loop, to /proc/self, to devices.
    for p in [
        "link_out_file",
        "link_out_abs",
        "link_out_dir/sentinel.txt",
        "link_out_dir/dir/sentinel.txt",
        "link_out_dir/new-via-link.txt",
        "link_out_dir_abs/sentinel.txt",
        "link_out_dir_abs/new-via-abs-link.txt",
        "link_out_dir/../outside/sentinel.txt",
        "link_in_sub/../../outside/sentinel.txt",
        "chain1",
        "chain_dir1/sentinel.txt",
        "chain_dir1/new.txt",
        "loop_a",
        "loop_b/x",
        "self_loop",
        "self_loop/x",
        "proc_self",
        "proc_cwd/x",
        "proc_fd",
        "proc_root/etc/passwd",
        "link_root/etc/passwd",
        "link_root/tmp/pft-escape-link.txt",
        "link_etc",
        "dev_null",
        "dev_zero",
        "sub/up/../outside/sentinel.txt",
        "sub/upup/outside/sentinel.txt",
        "sub/upup/outside/new.txt",
        "dotdot/outside/sentinel.txt",
        "dotdot/outside/new.txt",
        "dot/../outside/sentinel.txt",
        "dot",
        "sub/deep/back/outside/sentinel.txt",
        "dangling_out",
        "dangling_abs",
        "dangling_dir_out/x.txt",
        "tmp_link/pft-escape-tmp.txt",
        "fifo",
        "sock",
        "chardev",
        "sub/../fifo",
    ] {
        add(p);
    }
    // NUL bytes, control characters.
    for p in [
        "a.txt\0",
        "\0",
        "\0../outside/sentinel.txt",
        "../\0/outside/sentinel.txt",
        "a.txt\0../../outside/sentinel.txt",
        "sub/\0b.txt",
        "a.txt\n../outside/sentinel.txt",
        "\n",
        "a.txt\r",
        "\t../outside/sentinel.txt",
        "\u{1b}[2J",
        "\u{7f}",
    ] {
        add(p);
    }
    // Overlong.
    add(&"a".repeat(5000));
    add(&"a".repeat(4097));
    add(&"b".repeat(300));
    add(&format!("sub/{}", "c".repeat(256)));
    add(&"x/".repeat(3000));
    add(&"../".repeat(1400));
    add(&format!("{}outside/sentinel.txt", "sub/../".repeat(600)));
    add(&format!("{}../outside/sentinel.txt", "./".repeat(1000)));
    add(&"d/".repeat(300));
    add(&format!("{}f.txt", "d/".repeat(300)));
    // Backslashes and Windows forms.
    for p in [
        "..\\outside\\sentinel.txt",
        "..\\..\\..\\etc\\passwd",
        "sub\\..\\..\\outside\\sentinel.txt",
        "..\\/outside/sentinel.txt",
        "\\..\\outside",
        "\\\\server\\share\\x",
        "\\\\?\\C:\\Windows\\win.ini",
        "\\\\.\\PhysicalDrive0",
        "\\??\\C:\\x",
        "C:\\Windows\\System32\\drivers\\etc\\hosts",
        "C:/Windows/win.ini",
        "c:..\\outside",
        "C:",
        "a.txt:stream",
        "a.txt::$DATA",
        "CON",
        "NUL",
        "nul.txt",
        "COM1",
        "LPT1.log",
        "AUX",
        "sub/PRN",
        "a.txt.",
        "a.txt ",
        "A.TXT",
        "A~1.TXT",
    ] {
        add(p);
    }
    // Percent-encoding and other encodings of dots and slashes.
    for p in [
        "%2e%2e/outside/sentinel.txt",
        "%2e%2e%2foutside%2fsentinel.txt",
        "..%2foutside%2fsentinel.txt",
        "%2E%2E/outside/sentinel.txt",
        "%252e%252e/outside/sentinel.txt",
        "..%252foutside",
        "..%c0%afoutside",
        "%c0%ae%c0%ae/outside",
        "..%5coutside",
        "%2e%2e%5coutside",
        "..%00/outside",
        "%00",
        "&#46;&#46;/outside",
        "..&#x2f;outside",
        "\\u002e\\u002e/outside",
        "..;/outside/sentinel.txt",
        "file:///etc/passwd",
        "file://../outside/sentinel.txt",
        "http://example.invalid/../../x",
    ] {
        add(p);
    }
    // Unicode look-alikes of dots and slashes, and other confusables.
    for p in [
        "\u{2025}/outside/sentinel.txt",
        "\u{FF0E}\u{FF0E}/outside/sentinel.txt",
        "\u{2024}\u{2024}/outside/sentinel.txt",
        "\u{FE52}\u{FE52}/outside",
        "..\u{2215}outside\u{2215}sentinel.txt",
        "..\u{2044}outside",
        "..\u{FF0F}outside",
        "..\u{29F8}outside",
        "..\u{FF3C}outside",
        ".\u{200B}./outside/sentinel.txt",
        "..\u{200D}/outside/sentinel.txt",
        "\u{FEFF}../outside/sentinel.txt",
        "..\u{0338}/outside",
        ".\u{0307}./outside",
        "\u{202E}txt.lenitnes/../../outside",
        "\u{0430}.txt",
        "a\u{0301}.txt",
        "\u{00E1}.txt",
        "\u{1D400}.txt",
        "\u{10FFFF}",
        "\u{FFFD}../outside",
        "\u{2026}/outside",
        "\u{3002}\u{3002}/outside",
        "\u{0660}\u{0660}/outside",
    ] {
        add(p);
    }
    v
}

/// How each call may end: ok only for a file inside the root.
fn check_result(what: &str, path: &str, v: &Value, world: &World) -> Result<(), String> {
    let s = v.to_string();
    if s.contains("SENTINEL-SECRET do not touch") {
        return Err(format!("{what} `{path:?}` leaked outside content: {s}"));
    }
    if v["code"] == "INTERNAL_ERROR" {
        return Err(format!("{what} `{path:?}` panicked: {s}"));
    }
    let mut paths: Vec<&str> = Vec::new();
    if v["ok"] == true {
        if let Some(p) = v["file_path"].as_str() {
            paths.push(p);
        }
        if let Some(files) = v["files"].as_array() {
            paths.extend(files.iter().filter_map(|f| f["file_path"].as_str()));
        }
        for p in paths {
            if !Path::new(p).starts_with(&world.canonical_root) {
                return Err(format!("{what} `{path:?}` succeeded outside the root: {s}"));
            }
        }
    }
    Ok(())
}

/// Turns the `openat2` fast path on or off (test builds only).
fn set_fast(fast: bool) {
    #[cfg(feature = "fault-injection")]
    patch_file_core::testing::dir::set_openat2(fast);
    #[cfg(not(feature = "fault-injection"))]
    assert!(fast, "the walk-only mode needs the fault-injection feature");
}

/// Files an escape would create outside every watched tree: the `/tmp`
/// targets of the traversal and link cases, and `x` in the current directory
/// (`proc_cwd/x` goes through `/proc/self/cwd`).
fn escape_targets() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = (1..=24)
        .map(|n| PathBuf::from(format!("/tmp/pft-escape-{n}.txt")))
        .collect();
    for p in [
        "/tmp/pft-escape-abs.txt",
        "/tmp/pft-escape-link.txt",
        "/tmp/pft-escape-tmp.txt",
    ] {
        v.push(PathBuf::from(p));
    }
    v.push(std::env::current_dir().unwrap().join("x"));
    v
}

fn run_corpus(fast: bool) -> (usize, usize, BTreeMap<String, usize>) {
    set_fast(fast);
    // A file left by an earlier failing run must not fail this one, and must
    // not hide an escape of this one either: remove ours, note the others.
    let preexisting: Vec<PathBuf> = escape_targets()
        .into_iter()
        .filter(|p| {
            if p.starts_with("/tmp") {
                let _ = std::fs::remove_file(p);
            }
            p.exists()
        })
        .collect();
    let w = world();
    let before = common::watch(&w.outside);
    let system = watched_system_files();
    let o = w.outside.to_str().unwrap().to_string();
    let r = w.root.to_str().unwrap().to_string();
    let paths = corpus(&o, &r);
    let opts = json!({ "workspaceRoot": w.root });
    let mut calls = 0usize;
    let mut codes: BTreeMap<String, usize> = BTreeMap::new();
    let mut errors = Vec::new();
    for p in &paths {
        let results: Vec<(&str, Value)> = vec![
            (
                "patchFile",
                engine::patch_file(
                    &json!({"file_path": p, "search_block": "SENTINEL-SECRET", "replace_block": "PWNED"}),
                    Some(&opts),
                ),
            ),
            (
                "writeFile",
                engine::write_file(
                    &json!({"file_path": p, "content": "PWNED\n", "create_dirs": true}),
                    Some(&opts),
                ),
            ),
            (
                "readFile",
                engine::read_file(&json!({"file_path": p}), Some(&opts)),
            ),
            (
                "batchPatchFiles",
                engine::batch_patch_files(
                    &json!({"files": [
                        {"file_path": "sub/b.txt", "search_block": "inside b", "replace_block": "inside b"},
                        {"file_path": p, "search_block": "SENTINEL-SECRET", "replace_block": "PWNED"},
                    ]}),
                    Some(&opts),
                ),
            ),
            ("dryRun+apply", {
                let d = engine::write_file(
                    &json!({"file_path": p, "content": "PWNED-DRY\n", "dry_run": true}),
                    Some(&opts),
                );
                match d["run_id"].as_str() {
                    Some(id) => engine::apply_dry_run(&json!({ "run_id": id }), Some(&opts)),
                    None => d,
                }
            }),
        ];
        for (what, v) in results {
            calls += 1;
            let c = v["code"].as_str().unwrap_or("ok").to_string();
            *codes.entry(c).or_default() += 1;
            if let Err(e) = check_result(what, p, &v, &w) {
                errors.push(e);
            }
            // After every single call: the outside is exactly as it was.
            let now = common::watch(&w.outside);
            if now != before {
                errors.push(format!(
                    "{what} `{p:?}` changed the outside: {:?}",
                    now.keys().collect::<Vec<_>>()
                ));
                break;
            }
        }
        // Put the inside files back so every path meets the same world.
        std::fs::write(w.root.join("a.txt"), "SENTINEL-SECRET inside\n").unwrap();
        std::fs::write(w.root.join("sub/b.txt"), "SENTINEL-SECRET inside b\n").unwrap();
    }
    assert_eq!(common::watch(&w.outside), before);
    assert_eq!(watched_system_files(), system);
    for p in escape_targets() {
        assert!(
            !p.exists() || preexisting.contains(&p),
            "escaped to {}",
            p.display()
        );
    }
    let base = w.root.parent().unwrap();
    let siblings: Vec<_> = std::fs::read_dir(base)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        siblings.len(),
        2,
        "new entries beside the root: {siblings:?}"
    );
    assert!(
        errors.is_empty(),
        "{} escapes or panics:\n{}",
        errors.len(),
        errors.join("\n")
    );
    set_fast(true);
    (paths.len(), calls, codes)
}

#[test]
fn hostile_corpus_never_escapes() {
    // One test runs both modes in turn, since the switch is process-wide.
    let modes: &[bool] = if cfg!(feature = "fault-injection") {
        &[true, false]
    } else {
        &[true]
    };
    for &fast in modes {
        let (n, calls, codes) = run_corpus(fast);
        assert!(n >= 200, "corpus has only {n} paths");
        eprintln!(
            "containment (openat2 {}): {n} hostile paths, {calls} calls, 0 escapes, 0 panics; outcomes {codes:?}",
            if fast { "on" } else { "off" }
        );
    }
}

/// The inside cases of the same world still work (the corpus is not passing
/// merely because everything is refused).
#[test]
fn inside_links_still_work() {
    let w = world();
    let opts = json!({ "workspaceRoot": w.root });
    for p in [
        "link_in",
        "link_in_sub/b.txt",
        "sub/up/a.txt",
        "sub/deep/../b.txt",
        "dot/a.txt",
    ] {
        let v = engine::read_file(&json!({"file_path": p}), Some(&opts));
        assert_eq!(v["ok"], true, "{p}: {v}");
        assert!(Path::new(v["file_path"].as_str().unwrap()).starts_with(&w.root));
    }
    let abs = format!("{}/sub/b.txt", w.root.display());
    let v = engine::patch_file(
        &json!({"file_path": abs, "search_block": "inside b", "replace_block": "edited"}),
        Some(&opts),
    );
    assert_eq!(v["ok"], true, "{v}");
    for (p, code) in [
        ("fifo", "INVALID_INPUT"),
        ("sock", "INVALID_INPUT"),
        ("link_out_file", "PATH_OUTSIDE_WORKSPACE"),
        ("proc_self", "PATH_OUTSIDE_WORKSPACE"),
        ("dev_null", "PATH_OUTSIDE_WORKSPACE"),
        ("../outside/sentinel.txt", "PATH_OUTSIDE_WORKSPACE"),
        ("a.txt\0", "INVALID_INPUT"),
        ("..\\outside\\sentinel.txt", "INVALID_INPUT"),
        ("loop_a", "FILE_READ_ERROR"),
    ] {
        let v = engine::read_file(&json!({"file_path": p}), Some(&opts));
        assert_eq!(v["code"], code, "{p}: {v}");
    }
    if w.root.join("chardev").exists() {
        let v = engine::read_file(&json!({"file_path": "chardev"}), Some(&opts));
        assert_eq!(v["code"], "INVALID_INPUT", "{v}");
    }
}

/// A hard link inside the workspace to a file outside: by default the edit
/// is refused (`HARD_LINKED_FILE`, both names untouched); asked to split,
/// it replaces the name inside (a new file), so the outside file keeps its
/// bytes. Only `hardLinks: "keep"`, the caller's explicit word, writes the
/// shared inode.
#[test]
fn hard_link_to_outside_file_is_never_written_through() {
    let w = world();
    let before = common::watch(&w.outside);
    std::fs::hard_link(w.outside.join("sentinel.txt"), w.root.join("hl.txt")).unwrap();
    let inside_before = std::fs::read(w.root.join("hl.txt")).unwrap();
    let refused = engine::patch_file(
        &json!({"file_path": "hl.txt", "search_block": "SENTINEL-SECRET", "replace_block": "PWNED"}),
        Some(&json!({ "workspaceRoot": w.root })),
    );
    assert_eq!(refused["code"], "HARD_LINKED_FILE", "{refused}");
    assert_eq!(std::fs::read(w.root.join("hl.txt")).unwrap(), inside_before);
    let now = common::watch(&w.outside);
    assert_eq!(now, before);
    let opts = json!({ "workspaceRoot": w.root, "hardLinks": "split" });
    let v = engine::patch_file(
        &json!({"file_path": "hl.txt", "search_block": "SENTINEL-SECRET", "replace_block": "PWNED"}),
        Some(&opts),
    );
    assert_eq!(v["ok"], true, "{v}");
    let v = engine::write_file(
        &json!({"file_path": "hl.txt", "content": "PWNED\n"}),
        Some(&opts),
    );
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(
        std::fs::read_to_string(w.root.join("hl.txt")).unwrap(),
        "PWNED\n"
    );
    // The outside file: same bytes and time; only its link count went back.
    let now = common::watch(&w.outside);
    assert_eq!(now, before);
}

/// `options.cwd`: relative paths start in that directory of the workspace
/// (a command-line tool run in a project's subdirectory), every path still
/// confined to the root, and the directory itself must lie inside it.
#[test]
fn relative_paths_start_at_the_cwd_option_and_stay_inside_the_root() {
    let w = world();
    let opts = |cwd: &str| json!({"workspaceRoot": w.root, "cwd": cwd, "durable": false, "journal": false});
    let patch = |cwd: &str, path: &str| {
        engine::patch_file(
            &json!({"file_path": path, "search_block": "SENTINEL-SECRET", "replace_block": "EDITED"}),
            Some(&opts(cwd)),
        )
    };
    // From sub/ (relative to the root, or absolute), b.txt is sub/b.txt.
    let r = patch("sub", "b.txt");
    assert_eq!(r["ok"], true, "{r}");
    assert!(std::fs::read_to_string(w.root.join("sub/b.txt"))
        .unwrap()
        .starts_with("EDITED"));
    let r = patch(w.root.join("sub/deep").to_str().unwrap(), "../../a.txt");
    assert_eq!(r["ok"], true, "{r}");
    assert!(std::fs::read_to_string(w.root.join("a.txt"))
        .unwrap()
        .starts_with("EDITED"));
    // Above the root from there: outside.
    let r = patch("sub", "../../outside/sentinel.txt");
    assert_eq!(r["code"], "PATH_OUTSIDE_WORKSPACE", "{r}");
    // A cwd outside the root, or naming no directory: refused.
    for cwd in ["..", "../outside", "sub/upup", w.outside.to_str().unwrap()] {
        let r = patch(cwd, "sentinel.txt");
        assert_eq!(r["code"], "PATH_OUTSIDE_WORKSPACE", "{cwd}: {r}");
    }
    for cwd in ["nope", "a.txt", ""] {
        let r = patch(cwd, "b.txt");
        assert_eq!(r["code"], "INVALID_INPUT", "{cwd}: {r}");
    }
    assert_eq!(
        std::fs::read_to_string(w.outside.join("sentinel.txt")).unwrap(),
        SECRET
    );
    assert!(!w.canonical_root.join("b.txt").exists());
    // A missing file is named where the caller's path points, from the cwd
    // (it was named from the root, sending the caller to the wrong file).
    for read in [false, true] {
        let r = if read {
            engine::read_file(&json!({"file_path": "none.txt"}), Some(&opts("sub")))
        } else {
            patch("sub", "none.txt")
        };
        assert_eq!(r["code"], "FILE_READ_ERROR", "{r}");
        let named = Path::new(r["file_path"].as_str().unwrap());
        assert_eq!(named, w.canonical_root.join("sub/none.txt"), "{r}");
        assert!(
            r["message"].as_str().unwrap().contains("relative to `sub`"),
            "{r}"
        );
    }
    let r = engine::read_file(&json!({"file_path": "none.txt"}), Some(&opts(".")));
    assert!(
        r["message"]
            .as_str()
            .unwrap()
            .contains("relative to the workspace root"),
        "{r}"
    );
}
