//! The edit journal: every write transaction is recorded outside the
//! workspace, listed by `history` and undone exactly by `undo`.
#![cfg(unix)]

mod common;

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use patch_file_core::api;
use serde_json::{json, Value};

/// The per-user state directory of this test binary (process-wide).
fn state() -> &'static Path {
    static S: OnceLock<PathBuf> = OnceLock::new();
    S.get_or_init(|| {
        let d = std::env::var_os("PFT_TEST_STATE")
            .map(PathBuf::from)
            .unwrap_or_else(|| tempfile::tempdir().unwrap().keep());
        std::env::set_var("PATCH_FILE_STATE_DIR", &d);
        std::env::remove_var("PATCH_FILE_JOURNAL");
        d
    })
}

fn ws() -> (tempfile::TempDir, PathBuf) {
    state();
    let t = tempfile::tempdir().unwrap();
    let root = t.path().canonicalize().unwrap();
    (t, root)
}

fn o(root: &Path) -> Value {
    json!({"workspaceRoot": root, "durable": false})
}

fn ok(v: &Value) -> &Value {
    assert_eq!(v["ok"], true, "{v:#}");
    v
}

fn patch(root: &Path, file: &str, search: &str, replace: &str) -> Value {
    api::patch_file(
        &json!({"file_path": file, "search": search, "replace": replace}),
        Some(&o(root)),
    )
}

fn history(root: &Path) -> Value {
    ok(&api::history(&json!({}), Some(&o(root)))).clone()
}

fn undo(root: &Path, input: Value) -> Value {
    api::undo(&input, Some(&o(root)))
}

fn mode(p: &Path) -> u32 {
    fs::metadata(p).unwrap().permissions().mode() & 0o7777
}

#[test]
fn undo_of_a_single_edit_restores_bytes_and_mode() {
    let (_t, root) = ws();
    let f = root.join("a.txt");
    fs::write(&f, "one\ntwo\nthree\n").unwrap();
    fs::set_permissions(&f, fs::Permissions::from_mode(0o751)).unwrap();
    ok(&patch(&root, "a.txt", "two", "TWO\nand more"));
    let h = history(&root);
    let t = &h["transactions"][0];
    assert_eq!(t["entry_point"], "patchFile");
    assert_eq!(t["undoable"], true);
    assert_eq!(t["files"][0]["file_path"], "a.txt");
    assert_eq!(t["files"][0]["kind"], "modified");
    assert_eq!(t["files"][0]["added"], 2);
    assert_eq!(t["files"][0]["removed"], 1);
    let u = undo(&root, json!({}));
    ok(&u);
    assert_eq!(u["undone"], t["id"]);
    assert_eq!(fs::read(&f).unwrap(), b"one\ntwo\nthree\n");
    assert_eq!(mode(&f), 0o751);
    // The undo is itself a transaction, and the original is now undone.
    let h = history(&root);
    assert_eq!(h["transactions"][0]["entry_point"], "undo");
    assert_eq!(h["transactions"][0]["undoes"], t["id"]);
    assert_eq!(h["transactions"][1]["undoable"], false);
    assert_eq!(h["transactions"][1]["undone_by"], u["id"]);
}

#[test]
fn undo_of_a_batch_is_all_or_nothing_and_names_the_changed_file() {
    let (_t, root) = ws();
    fs::write(root.join("a.txt"), "alpha\n").unwrap();
    fs::write(root.join("b.txt"), "beta\n").unwrap();
    ok(&api::batch_patch_files(
        &json!({"files": [
            {"file_path": "a.txt", "search": "alpha", "replace": "ALPHA"},
            {"file_path": "b.txt", "search": "beta", "replace": "BETA"}
        ]}),
        Some(&o(&root)),
    ));
    fs::write(root.join("b.txt"), "someone else\n").unwrap();
    let before = common::tree(&root);
    let u = undo(&root, json!({}));
    assert_eq!(u["ok"], false, "{u:#}");
    assert_eq!(u["code"], "FILE_CHANGED");
    let changed = u["files_changed"].as_array().unwrap();
    assert_eq!(changed.len(), 1);
    assert!(changed[0].as_str().unwrap().ends_with("b.txt"), "{u:#}");
    assert!(u["message"].as_str().unwrap().contains("b.txt"));
    assert_eq!(common::tree(&root), before, "nothing written");
    // Put b back as the batch left it: the undo now restores both.
    fs::write(root.join("b.txt"), "BETA\n").unwrap();
    ok(&undo(&root, json!({})));
    assert_eq!(fs::read(root.join("a.txt")).unwrap(), b"alpha\n");
    assert_eq!(fs::read(root.join("b.txt")).unwrap(), b"beta\n");
}

#[test]
fn undo_of_create_delete_and_move() {
    let (_t, root) = ws();
    fs::write(root.join("gone.txt"), "bye\n").unwrap();
    fs::set_permissions(root.join("gone.txt"), fs::Permissions::from_mode(0o640)).unwrap();
    fs::write(root.join("old.sh"), "echo a\n").unwrap();
    fs::set_permissions(root.join("old.sh"), fs::Permissions::from_mode(0o755)).unwrap();
    let before = common::tree(&root);
    let p = "*** Begin Patch\n*** Add File: new/dir/made.txt\n+hello\n*** Delete File: gone.txt\n\
             *** Update File: old.sh\n*** Move to: bin/new.sh\n@@\n-echo a\n+echo b\n*** End Patch\n";
    ok(&api::apply_patch(&json!(p), Some(&o(&root))));
    assert!(!root.join("gone.txt").exists());
    let h = history(&root);
    let files = h["transactions"][0]["files"].as_array().unwrap().clone();
    assert_eq!(h["transactions"][0]["entry_point"], "applyPatch");
    let kinds: Vec<(String, String)> = files
        .iter()
        .map(|f| {
            (
                f["file_path"].as_str().unwrap().to_string(),
                f["kind"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert!(
        kinds.contains(&("new/dir/made.txt".into(), "created".into())),
        "{kinds:?}"
    );
    assert!(
        kinds.contains(&("gone.txt".into(), "deleted".into())),
        "{kinds:?}"
    );
    assert!(
        kinds.contains(&("bin/new.sh".into(), "moved".into())),
        "{kinds:?}"
    );
    ok(&undo(&root, json!({})));
    let mut after = common::tree(&root);
    assert_eq!(after.remove("new/dir/made.txt"), None);
    assert_eq!(after, before);
    assert_eq!(mode(&root.join("gone.txt")), 0o640);
    assert_eq!(mode(&root.join("old.sh")), 0o755);
    // Redo: undoing the undo puts the patch's result back.
    let h = history(&root);
    let undo_id = h["transactions"][0]["id"].as_str().unwrap().to_string();
    let r = undo(&root, json!({"id": undo_id}));
    ok(&r);
    assert_eq!(r["redo"], true);
    assert_eq!(fs::read(root.join("new/dir/made.txt")).unwrap(), b"hello\n");
    assert_eq!(fs::read(root.join("bin/new.sh")).unwrap(), b"echo b\n");
    assert_eq!(mode(&root.join("bin/new.sh")), 0o755);
    assert!(!root.join("gone.txt").exists() && !root.join("old.sh").exists());
}

#[test]
fn utf16_and_crlf_files_come_back_byte_for_byte() {
    let (_t, root) = ws();
    let mut u16 = vec![0xFF, 0xFE];
    for c in "first line\r\nsecond line\r\n".encode_utf16() {
        u16.extend_from_slice(&c.to_le_bytes());
    }
    fs::write(root.join("w.txt"), &u16).unwrap();
    let crlf = b"a\r\nb\r\nc\r\n".to_vec();
    fs::write(root.join("c.txt"), &crlf).unwrap();
    ok(&patch(&root, "w.txt", "second", "2nd"));
    ok(&patch(&root, "c.txt", "b", "B\r\nB2"));
    assert_ne!(fs::read(root.join("w.txt")).unwrap(), u16);
    assert_ne!(fs::read(root.join("c.txt")).unwrap(), crlf);
    ok(&undo(&root, json!({})));
    assert_eq!(fs::read(root.join("c.txt")).unwrap(), crlf);
    // Repeated undos walk back (an undo is not itself the default target).
    ok(&undo(&root, json!({})));
    assert_eq!(fs::read(root.join("w.txt")).unwrap(), u16);
    let u = undo(&root, json!({}));
    assert_eq!(u["ok"], false);
    assert_eq!(u["code"], "INVALID_INPUT", "{u:#}");
}

/// An undo that restores a version without a final line break says
/// nothing of it: the warning is for new text a caller sent (the edit it
/// undoes said so when it took the break away).
#[test]
fn an_undo_restoring_a_file_without_its_final_break_does_not_warn() {
    let (_t, root) = ws();
    fs::write(root.join("a.txt"), "one\ntwo").unwrap();
    ok(&patch(&root, "a.txt", "two", "two\n"));
    let dry = ok(&undo(&root, json!({"dry_run": true}))).clone();
    assert!(dry.get("warnings").is_none(), "an undo restores: {dry}");
    // Applied by its run_id, it restores too.
    let applied = api::apply_dry_run(&json!({"run_id": dry["run_id"]}), Some(&o(&root)));
    assert!(ok(&applied).get("warnings").is_none(), "{applied}");
    assert_eq!(fs::read_to_string(root.join("a.txt")).unwrap(), "one\ntwo");
    ok(&patch(&root, "a.txt", "two", "two\n"));
    let r = ok(&undo(&root, json!({}))).clone();
    assert!(r.get("warnings").is_none(), "{r}");
    assert_eq!(fs::read_to_string(root.join("a.txt")).unwrap(), "one\ntwo");
}

#[test]
fn undo_dry_run_shows_the_diff_and_writes_nothing() {
    let (_t, root) = ws();
    fs::write(root.join("a.txt"), "x\n").unwrap();
    ok(&patch(&root, "a.txt", "x", "y"));
    let d = undo(&root, json!({"dry_run": true}));
    ok(&d);
    assert_eq!(d["dry_run"], true);
    assert!(d["diff"].as_str().unwrap().contains("-y\n+x\n"), "{d:#}");
    assert!(d["run_id"].is_string());
    assert_eq!(fs::read(root.join("a.txt")).unwrap(), b"y\n");
    ok(&api::apply_dry_run(
        &json!({"run_id": d["run_id"]}),
        Some(&o(&root)),
    ));
    assert_eq!(fs::read(root.join("a.txt")).unwrap(), b"x\n");
}

#[test]
fn every_writing_entry_point_is_journaled() {
    let (_t, root) = ws();
    ok(&api::write_file(
        &json!({"file_path": "w.txt", "content": "1\n"}),
        Some(&o(&root)),
    ));
    ok(&api::apply_edit_blocks(
        &json!("w.txt\n<<<<<<< SEARCH\n1\n=======\n2\n>>>>>>> REPLACE\n"),
        Some(&o(&root)),
    ));
    ok(&api::text_editor(
        &json!({"command": "str_replace", "path": "w.txt", "old_str": "2", "new_str": "3"}),
        Some(&o(&root)),
    ));
    ok(&api::edit_file(
        &json!({"path": "w.txt", "edits": [{"oldText": "3", "newText": "4"}]}),
        Some(&o(&root)),
    ));
    let h = history(&root);
    let names: Vec<&str> = h["transactions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["entry_point"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["editFile", "textEditor", "applyEditBlocks", "writeFile"]
    );
    for _ in 0..4 {
        ok(&undo(&root, json!({})));
    }
    assert!(!root.join("w.txt").exists());
}

#[test]
fn journal_false_records_nothing_and_history_filters_by_file() {
    let (_t, root) = ws();
    fs::write(root.join("a.txt"), "a\n").unwrap();
    fs::write(root.join("b.txt"), "b\n").unwrap();
    let off = json!({"workspaceRoot": root, "durable": false, "journal": false});
    ok(&api::patch_file(
        &json!({"file_path": "a.txt", "search": "a", "replace": "A"}),
        Some(&off),
    ));
    assert_eq!(history(&root)["transactions"], json!([]));
    ok(&patch(&root, "b.txt", "b", "B"));
    ok(&patch(&root, "a.txt", "A", "AA"));
    let h = ok(&api::history(
        &json!({"file_path": "b.txt"}),
        Some(&o(&root)),
    ))
    .clone();
    assert_eq!(h["transactions"].as_array().unwrap().len(), 1);
    // An absolute path inside the root names the same file; a path outside
    // it, or not a path, is refused as every other call refuses it (they
    // listed nothing, `ok`).
    let abs = root.join("b.txt");
    let h = ok(&api::history(&json!({"file_path": abs}), Some(&o(&root)))).clone();
    assert_eq!(h["transactions"].as_array().unwrap().len(), 1);
    for (p, code) in [
        ("../x", "PATH_OUTSIDE_WORKSPACE"),
        ("/etc/passwd", "PATH_OUTSIDE_WORKSPACE"),
        ("e.txt\u{0}", "INVALID_INPUT"),
    ] {
        let r = api::history(&json!({"file_path": p}), Some(&o(&root)));
        assert_eq!(r["code"], code, "{p:?}: {r}");
    }
    let h = ok(&api::history(&json!({"limit": 1}), Some(&o(&root)))).clone();
    assert_eq!(h["transactions"][0]["files"][0]["file_path"], "a.txt");
    // The journal lives in the state directory, never in the workspace.
    let j = PathBuf::from(h["journal"].as_str().unwrap());
    assert!(j.starts_with(state()), "{j:?}");
    assert!(!j.starts_with(&root));
    assert_eq!(common::tree(&root).len(), 2);
}

#[test]
fn journal_files_are_0600_and_dirs_0700() {
    let (_t, root) = ws();
    fs::write(root.join("a.txt"), "a\n").unwrap();
    ok(&patch(&root, "a.txt", "a", "b"));
    let j = PathBuf::from(history(&root)["journal"].as_str().unwrap());
    assert_eq!(mode(&j), 0o700);
    assert_eq!(mode(j.parent().unwrap()), 0o700);
    let mut n = 0;
    for e in fs::read_dir(&j).unwrap() {
        let p = e.unwrap().path();
        assert_eq!(mode(&p), 0o600, "{p:?}");
        n += 1;
    }
    assert!(n >= 3);
}

#[test]
fn eviction_at_the_count_and_byte_caps() {
    let (_t, root) = ws();
    let jd = tempfile::tempdir().unwrap();
    let capped = |extra: Value| {
        let mut j = json!({"dir": jd.path()});
        for (k, v) in extra.as_object().unwrap() {
            j[k] = v.clone();
        }
        json!({"workspaceRoot": root, "durable": false, "journal": j})
    };
    fs::write(root.join("a.txt"), "0\n").unwrap();
    for i in 0..6 {
        ok(&api::patch_file(
            &json!({"file_path": "a.txt", "search": format!("{i}\n"), "replace": format!("{}\n", i + 1)}),
            Some(&capped(json!({"maxEntries": 3}))),
        ));
    }
    let h = ok(&api::history(&json!({}), Some(&capped(json!({}))))).clone();
    let ids: Vec<&str> = h["transactions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["6", "5", "4"]);
    // Bytes: a 1000-byte cap keeps only what fits (the newest always stays).
    fs::write(root.join("big.txt"), format!("{}\nm0\n", "x".repeat(600))).unwrap();
    for i in 0..3 {
        ok(&api::patch_file(
            &json!({"file_path": "big.txt", "search": format!("m{i}"), "replace": format!("m{}", i + 1)}),
            Some(&capped(json!({"maxBytes": 1500, "maxEntries": 100}))),
        ));
    }
    let h = ok(&api::history(&json!({}), Some(&capped(json!({}))))).clone();
    let n = h["transactions"].as_array().unwrap().len();
    assert!(n <= 2, "{n} entries kept under a 1500-byte cap");
    // A file over maxFileBytes is listed but not undoable.
    ok(&api::patch_file(
        &json!({"file_path": "big.txt", "search": "m3", "replace": "m4"}),
        Some(&capped(json!({"maxFileBytes": 100}))),
    ));
    let h = ok(&api::history(
        &json!({"limit": 1}),
        Some(&capped(json!({}))),
    ))
    .clone();
    assert_eq!(h["transactions"][0]["undoable"], false);
    assert!(h["transactions"][0]["why_not_undoable"]
        .as_str()
        .unwrap()
        .contains("big.txt"));
}

/// Undo without an id takes the newest undoable transaction; a newer one
/// whose content was not kept (a file over `maxFileBytes`) is passed over,
/// and the answer says so: it undid an older edit in silence while the
/// newest one stayed.
#[test]
fn undo_says_when_it_passes_over_a_newer_transaction_it_cannot_undo() {
    let (_t, root) = ws();
    let jd = tempfile::tempdir().unwrap();
    let with = |max: u64| {
        json!({"workspaceRoot": root, "durable": false,
               "journal": {"dir": jd.path(), "maxFileBytes": max}})
    };
    fs::write(root.join("small.txt"), "a\n").unwrap();
    fs::write(root.join("big.txt"), format!("{}\nm\n", "x".repeat(300))).unwrap();
    ok(&api::patch_file(
        &json!({"file_path": "small.txt", "search": "a", "replace": "b"}),
        Some(&with(1 << 20)),
    ));
    ok(&api::patch_file(
        &json!({"file_path": "big.txt", "search": "m", "replace": "n"}),
        Some(&with(100)),
    ));
    let r = ok(&api::undo(&json!({}), Some(&with(1 << 20)))).clone();
    assert_eq!(r["undone"], "1", "{r}");
    let w = r["warnings"].to_string();
    assert!(
        w.contains("transaction 2 is newer but not undoable")
            && w.contains("transaction 1 was undone instead"),
        "{r}"
    );
    assert_eq!(fs::read_to_string(root.join("small.txt")).unwrap(), "a\n");
    // Nothing passed over, nothing said.
    ok(&api::patch_file(
        &json!({"file_path": "small.txt", "search": "a", "replace": "c"}),
        Some(&with(1 << 20)),
    ));
    let r = ok(&api::undo(&json!({}), Some(&with(1 << 20)))).clone();
    assert!(!r["warnings"].to_string().contains("newer"), "{r}");
}

#[test]
fn threads_writing_one_journal_lose_no_record() {
    let (_t, root) = ws();
    let (threads, each) = (4, 10);
    for t in 0..threads {
        fs::write(root.join(format!("t{t}.txt")), "0\n").unwrap();
    }
    let hs: Vec<_> = (0..threads)
        .map(|t| {
            let root = root.clone();
            std::thread::spawn(move || {
                for i in 0..each {
                    ok(&patch(
                        &root,
                        &format!("t{t}.txt"),
                        &format!("{i}\n"),
                        &format!("{}\n", i + 1),
                    ));
                }
            })
        })
        .collect();
    for h in hs {
        h.join().unwrap();
    }
    let h = ok(&api::history(&json!({"limit": 1000}), Some(&o(&root)))).clone();
    let mut ids: Vec<u64> = h["transactions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_str().unwrap().parse().unwrap())
        .collect();
    ids.sort();
    assert_eq!(ids, (1..=(threads * each) as u64).collect::<Vec<_>>());
}

/// Child role: patch `PFT_JOURNAL_CHILD`'s file `PFT_JOURNAL_FILE` 20 times.
#[test]
fn child_writer() {
    let (Some(root), Some(file)) = (
        std::env::var_os("PFT_JOURNAL_CHILD"),
        std::env::var("PFT_JOURNAL_FILE").ok(),
    ) else {
        return;
    };
    state();
    let root = PathBuf::from(root);
    for i in 0..20 {
        ok(&patch(
            &root,
            &file,
            &format!("{i}\n"),
            &format!("{}\n", i + 1),
        ));
    }
}

#[test]
fn processes_share_a_journal_and_undo_after_the_writer_exited() {
    let (_t, root) = ws();
    let kids: Vec<_> = (0..2)
        .map(|k| {
            fs::write(root.join(format!("p{k}.txt")), "0\n").unwrap();
            Command::new(std::env::current_exe().unwrap())
                .args(["--exact", "child_writer", "--nocapture", "--test-threads=1"])
                .env("PFT_TEST_STATE", state())
                .env("PFT_JOURNAL_CHILD", &root)
                .env("PFT_JOURNAL_FILE", format!("p{k}.txt"))
                .spawn()
                .unwrap()
        })
        .collect();
    for mut k in kids {
        assert!(k.wait().unwrap().success());
    }
    let h = ok(&api::history(&json!({"limit": 1000}), Some(&o(&root)))).clone();
    let all = h["transactions"].as_array().unwrap();
    assert_eq!(all.len(), 40, "no lost or torn records");
    // This process undoes what the exited children wrote.
    for _ in 0..40 {
        ok(&undo(&root, json!({})));
    }
    assert_eq!(fs::read(root.join("p0.txt")).unwrap(), b"0\n");
    assert_eq!(fs::read(root.join("p1.txt")).unwrap(), b"0\n");
}

#[test]
fn journal_clear_removes_every_entry() {
    let (_t, root) = ws();
    fs::write(root.join("a.txt"), "a\n").unwrap();
    ok(&patch(&root, "a.txt", "a", "b"));
    let c = ok(&api::journal_clear(&json!({}), Some(&o(&root)))).clone();
    assert_eq!(c["removed"], 1);
    assert_eq!(history(&root)["transactions"], json!([]));
    assert_eq!(undo(&root, json!({}))["code"], "INVALID_INPUT");
}

/// Child role: patch `c.txt` of `PFT_CRASH_CHILD` from n to n + 1 until
/// killed.
#[test]
fn child_crasher() {
    let Some(root) = std::env::var_os("PFT_CRASH_CHILD") else {
        return;
    };
    state();
    let root = PathBuf::from(root);
    loop {
        let cur = fs::read_to_string(root.join("c.txt")).unwrap();
        let n: u64 = cur.trim().parse().unwrap();
        let _ = patch(&root, "c.txt", &cur, &format!("{}\n", n + 1));
    }
}

fn sha(b: &[u8]) -> String {
    patch_file_core::testing::text::sha256_hex([b])
}

/// The headers of every whole entry of the journal at `dir`, oldest
/// first, and how many entries were cut short (by a kill while writing).
fn headers(dir: &Path) -> (Vec<Value>, usize) {
    let mut v: Vec<(u64, Value)> = Vec::new();
    let mut cut = 0;
    for e in fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        if let Some(id) = name.strip_suffix(".entry") {
            let bytes = fs::read(&p).unwrap();
            let (id, size) = id.split_once('-').unwrap();
            let whole = bytes.iter().position(|&b| b == b'\n').and_then(|end| {
                let h: Value = serde_json::from_slice(&bytes[..end]).ok()?;
                let len = end as u64 + 1 + h["body_bytes"].as_u64()?;
                (len == bytes.len() as u64 && len == size.parse::<u64>().unwrap()).then_some(h)
            });
            match whole {
                Some(h) => v.push((id.parse().unwrap(), h)),
                None => cut += 1,
            }
        }
    }
    v.sort_by_key(|x| x.0);
    (v.into_iter().map(|x| x.1).collect(), cut)
}

#[test]
fn sigkill_at_random_moments_leaves_journal_and_files_agreeing() {
    let (_t, root) = ws();
    fs::write(root.join("c.txt"), "0\n").unwrap();
    let mut seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64;
    let mut lost_lines = 0;
    for round in 0..12 {
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "child_crasher",
                "--nocapture",
                "--test-threads=1",
            ])
            .env("PFT_TEST_STATE", state())
            .env("PFT_CRASH_CHILD", &root)
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap();
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        std::thread::sleep(std::time::Duration::from_millis(30 + (seed >> 33) % 150));
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        // A reader that finds an unlocked in-place copy repairs the file first.
        let _ = api::read_file(&json!({"file_path": "c.txt"}), Some(&o(&root)));
        let now = fs::read(root.join("c.txt")).unwrap();
        let n: u64 = String::from_utf8_lossy(&now).trim().parse().unwrap();
        let j = PathBuf::from(history(&root)["journal"].as_str().unwrap());
        let (hs, cut) = headers(&j);
        // At most one entry per kill is cut short, and it is listed as
        // damaged (never acted on).
        assert!(
            cut <= round + 1,
            "{cut} entries cut short in {} kills",
            round + 1
        );
        let listed = ok(&api::history(&json!({"limit": 100_000}), Some(&o(&root))))["transactions"]
            .as_array()
            .unwrap()
            .clone();
        let damaged = listed.iter().filter(|t| t["damaged"] == true).count();
        assert_eq!(listed.len() - damaged, hs.len());
        assert_eq!(damaged, cut);
        // Every entry is one step n -> n + 1, and consecutive entries chain
        // (each one's "before" is the previous "after"), but for the history
        // lines lost to a kill between a commit and its record.
        let count_of: std::collections::HashMap<String, u64> = (0..=n + 1)
            .map(|k| (sha(format!("{k}\n").as_bytes()), k))
            .collect();
        let step = |h: &Value| {
            let f = &h["files"][0];
            let b = count_of[f["sha256_before"].as_str().unwrap()];
            let a = count_of[f["sha256_after"].as_str().unwrap()];
            assert_eq!(a, b + 1, "{h}");
            (b, a)
        };
        let mut gaps = 0;
        for w in hs.windows(2) {
            let ((_, a0), (b1, _)) = (step(&w[0]), step(&w[1]));
            assert!(b1 == a0 || b1 == a0 + 1, "{a0} then {b1}");
            gaps += usize::from(b1 != a0);
        }
        assert!(gaps <= lost_lines, "{gaps} gaps, {lost_lines} lost lines");
        // The newest entry's "after" is on disk, or the file is one commit
        // ahead (killed between its commit and its record: only that line lost).
        if let Some(last) = hs.last() {
            let after = last["files"][0]["sha256_after"].as_str().unwrap();
            if after != sha(&now) {
                assert!(n > 0, "{n}");
                assert_eq!(
                    after,
                    sha(format!("{}\n", n - 1).as_bytes()),
                    "entry ahead of the file"
                );
                lost_lines += 1;
                // Undo acts on nothing it should not: FILE_CHANGED.
                assert_eq!(
                    undo(&root, json!({"dry_run": true}))["code"],
                    "FILE_CHANGED"
                );
                // Resynchronize the chain for the next round.
                ok(&patch(
                    &root,
                    "c.txt",
                    &format!("{n}\n"),
                    &format!("{}\n", n + 1),
                ));
            }
        }
    }
    // At the end the newest transaction undoes exactly.
    let before = fs::read(root.join("c.txt")).unwrap();
    let n: u64 = String::from_utf8_lossy(&before).trim().parse().unwrap();
    if n > 0 {
        ok(&undo(&root, json!({})));
        assert_eq!(
            fs::read(root.join("c.txt")).unwrap(),
            format!("{}\n", n - 1).into_bytes()
        );
    }
    eprintln!("12 SIGKILLs, final counter {n}, {lost_lines} history line(s) lost between commit and record");
    let (_, cut) = headers(&PathBuf::from(history(&root)["journal"].as_str().unwrap()));
    eprintln!("{cut} entr(y/ies) cut short by a kill while being written (never listed)");
}

/// Child role: one text-editor edit of `PFT_TE_CHILD`'s `t.txt`.
#[test]
fn child_text_editor() {
    let Some(root) = std::env::var_os("PFT_TE_CHILD") else {
        return;
    };
    state();
    let root = PathBuf::from(root);
    ok(&api::text_editor(
        &json!({"command": "str_replace", "path": "t.txt", "old_str": "old", "new_str": "new"}),
        Some(&o(&root)),
    ));
}

#[test]
fn text_editor_undo_edit_uses_the_journal_across_processes() {
    let (_t, root) = ws();
    fs::write(root.join("t.txt"), "old\n").unwrap();
    let st = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "child_text_editor",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("PFT_TEST_STATE", state())
        .env("PFT_TE_CHILD", &root)
        .status()
        .unwrap();
    assert!(st.success());
    assert_eq!(fs::read(root.join("t.txt")).unwrap(), b"new\n");
    // The writing process has exited: this one undoes its edit.
    let u = api::text_editor(
        &json!({"command": "undo_edit", "path": "t.txt"}),
        Some(&o(&root)),
    );
    ok(&u);
    assert_eq!(u["command"], "undo_edit");
    assert_eq!(u["undo_remaining"], 0);
    assert_eq!(u["removed"], false);
    assert_eq!(fs::read(root.join("t.txt")).unwrap(), b"old\n");
    let h = history(&root);
    assert_eq!(h["transactions"][0]["entry_point"], "textEditor");
    assert_eq!(h["transactions"][0]["undoes"], h["transactions"][1]["id"]);
    let again = api::text_editor(
        &json!({"command": "undo_edit", "path": "t.txt"}),
        Some(&o(&root)),
    );
    assert_eq!(again["code"], "INVALID_INPUT", "{again}");
    // There is one undo: with the journal off nothing is recorded, and
    // undo_edit says so (and how to turn it on) without touching the file,
    // in a dry run too.
    let off = json!({"workspaceRoot": root, "durable": false, "journal": false});
    ok(&api::text_editor(
        &json!({"command": "str_replace", "path": "t.txt", "old_str": "old", "new_str": "x"}),
        Some(&off),
    ));
    for cmd in [
        json!({"command": "undo_edit", "path": "t.txt"}),
        json!({"command": "undo_edit", "path": "t.txt", "dry_run": true}),
    ] {
        let u = api::text_editor(&cmd, Some(&off));
        assert_eq!(u["ok"], false, "{u}");
        assert_eq!(u["code"], "INVALID_INPUT", "{u}");
        assert_eq!(u["command"], "undo_edit");
        let m = u["message"].as_str().unwrap();
        assert!(
            m.contains("journal, which is off") && m.contains("options.journal"),
            "{m}"
        );
        assert!(m.contains("PATCH_FILE_JOURNAL"), "{m}");
        assert_eq!(fs::read(root.join("t.txt")).unwrap(), b"x\n");
    }
    // Nothing of the unjournaled edit is undone later with the journal on:
    // the journal's last text-editor edit of the file is the undone one.
    let again = api::text_editor(
        &json!({"command": "undo_edit", "path": "t.txt"}),
        Some(&o(&root)),
    );
    assert_eq!(again["code"], "INVALID_INPUT", "{again}");
    assert_eq!(fs::read(root.join("t.txt")).unwrap(), b"x\n");
}

#[test]
fn a_damaged_entry_is_never_acted_on() {
    let (_t, root) = ws();
    fs::write(root.join("a.txt"), "first\n").unwrap();
    ok(&patch(&root, "a.txt", "first", "second"));
    ok(&patch(&root, "a.txt", "second", "third"));
    let j = PathBuf::from(history(&root)["journal"].as_str().unwrap());
    let mut entries: Vec<PathBuf> = fs::read_dir(&j)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "entry"))
        .collect();
    entries.sort();
    // Same length, other bytes (as a power loss may leave unwritten data):
    // the saved content no longer has its sha256.
    let newest = &entries[1];
    let mut bytes = fs::read(newest).unwrap();
    let n = bytes.len();
    bytes[n - 2] ^= 0x20;
    fs::write(newest, &bytes).unwrap();
    let u = undo(&root, json!({}));
    assert_eq!(u["code"], "JOURNAL_DAMAGED", "{u:#}");
    assert!(u["message"].as_str().unwrap().contains("damaged"));
    assert_eq!(fs::read(root.join("a.txt")).unwrap(), b"third\n");
    // Cut short: listed as damaged, never acted on.
    fs::write(newest, &bytes[..n - 3]).unwrap();
    let h = history(&root);
    let ts = h["transactions"].as_array().unwrap();
    assert_eq!(ts.len(), 2, "{h:#}");
    assert_eq!(ts[0]["damaged"], true);
    assert_eq!(ts[0]["damage"], "wrong_length");
    assert_eq!(ts[0]["undoable"], false);
    assert_eq!(ts[1]["undoable"], true);
    // The default undo passes over it; the older one no longer applies.
    assert_eq!(undo(&root, json!({}))["code"], "FILE_CHANGED");
    assert_eq!(fs::read(root.join("a.txt")).unwrap(), b"third\n");
}

/// Child role: append the lines `p<PFT_ORDER_TAG>-<j>` (j = 0 .. 30) to
/// `o.txt` of `PFT_ORDER_CHILD`, each as one `patchFile` before its last
/// line `END`, retrying an edit another process's commit overtook.
#[test]
fn child_order_appender() {
    let (Some(root), Ok(tag)) = (
        std::env::var_os("PFT_ORDER_CHILD"),
        std::env::var("PFT_ORDER_TAG"),
    ) else {
        return;
    };
    state();
    let root = PathBuf::from(root);
    for j in 0..ORDER_EDITS {
        loop {
            let r = patch(&root, "o.txt", "END\n", &format!("p{tag}-{j}\nEND\n"));
            if r["ok"] == true {
                break;
            }
            assert!(
                r["code"] == "FILE_CHANGED" || r["code"] == "FILE_LOCKED",
                "{r:#}"
            );
        }
    }
}

const ORDER_PROCESSES: usize = 6;
const ORDER_EDITS: usize = 30;

#[test]
fn the_journal_lists_commits_of_concurrent_processes_in_commit_order() {
    let (_t, root) = ws();
    let start = b"start\nEND\n".to_vec();
    fs::write(root.join("o.txt"), &start).unwrap();
    let kids: Vec<_> = (0..ORDER_PROCESSES)
        .map(|i| {
            Command::new(std::env::current_exe().unwrap())
                .args([
                    "--exact",
                    "child_order_appender",
                    "--nocapture",
                    "--test-threads=1",
                ])
                .env("PFT_TEST_STATE", state())
                .env("PFT_ORDER_CHILD", &root)
                .env("PFT_ORDER_TAG", i.to_string())
                .spawn()
                .unwrap()
        })
        .collect();
    for mut k in kids {
        assert!(k.wait().unwrap().success());
    }
    let total = ORDER_PROCESSES * ORDER_EDITS;
    // The file's lines are the true commit order.
    let last = fs::read_to_string(root.join("o.txt")).unwrap();
    let lines: Vec<&str> = last.lines().collect();
    assert_eq!(lines.len(), total + 2, "every edit landed once");
    let added = &lines[1..=total];
    // The content after the first k commits.
    let after = |k: usize| {
        let mut s = String::from("start\n");
        for l in &added[..k] {
            s.push_str(l);
            s.push('\n');
        }
        s.push_str("END\n");
        s
    };
    // By id, entry k took the file from commit k - 1 to commit k: its
    // "before" is the previous entry's "after".
    let j = PathBuf::from(history(&root)["journal"].as_str().unwrap());
    let (hs, cut) = headers(&j);
    assert_eq!((hs.len(), cut), (total, 0));
    let out_of_order: Vec<String> = hs
        .iter()
        .enumerate()
        .filter_map(|(k, h)| {
            let f = &h["files"][0];
            let want = (sha(after(k).as_bytes()), sha(after(k + 1).as_bytes()));
            let got = (
                f["sha256_before"].as_str().unwrap().to_string(),
                f["sha256_after"].as_str().unwrap().to_string(),
            );
            (got != want).then(|| format!("entry {} (#{k} by id)", h["id"]))
        })
        .collect();
    let breaks = hs
        .windows(2)
        .filter(|w| w[0]["files"][0]["sha256_after"] != w[1]["files"][0]["sha256_before"])
        .count();
    assert!(
        out_of_order.is_empty(),
        "{} of {total} entries not at their commit's place, {breaks} breaks of the before/after chain; \
         first: {:?}",
        out_of_order.len(),
        &out_of_order[..out_of_order.len().min(5)]
    );
    // history's newest is the last commit.
    let listed = ok(&api::history(&json!({"limit": 1000}), Some(&o(&root))))["transactions"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(listed.len(), total);
    assert_eq!(listed[0]["id"], hs[total - 1]["id"]);
    // Repeated undo walks back every commit, newest first, to the start.
    for k in (0..total).rev() {
        let u = undo(&root, json!({}));
        assert_eq!(u["ok"], true, "undo back to commit {k}: {u:#}");
        assert_eq!(fs::read_to_string(root.join("o.txt")).unwrap(), after(k));
    }
    assert_eq!(fs::read(root.join("o.txt")).unwrap(), start);
}

#[test]
fn undo_without_id_after_an_outside_change_names_the_way_forward() {
    let (_t, root) = ws();
    fs::write(root.join("a.txt"), "alpha\n").unwrap();
    fs::write(root.join("b.txt"), "beta\n").unwrap();
    ok(&patch(&root, "b.txt", "beta", "BETA"));
    ok(&patch(&root, "a.txt", "alpha", "ALPHA"));
    fs::write(root.join("a.txt"), "someone else\n").unwrap();
    let u = undo(&root, json!({}));
    assert_eq!(u["code"], "FILE_CHANGED", "{u:#}");
    assert_eq!(u["id"], "2");
    let m = u["message"].as_str().unwrap();
    assert!(m.contains("Undo without id stops at transaction 2"), "{m}");
    assert!(m.contains("the next one: \"1\""), "{m}");
    assert!(!m.contains("Undo the later transactions first"), "{m}");
    assert!(
        m.contains("(a.txt)") && !m.contains(root.to_str().unwrap()),
        "{m}"
    );
    // Never an older transaction over the newer outside change: the same answer again.
    assert_eq!(undo(&root, json!({}))["code"], "FILE_CHANGED");
    // By id, with no later transaction: not told to undo later ones.
    let u = undo(&root, json!({"id": "2"}));
    assert_eq!(u["code"], "FILE_CHANGED", "{u:#}");
    let m = u["message"].as_str().unwrap();
    assert!(!m.contains("Undo the later transactions first"), "{m}");
    assert!(
        m.contains("a change made outside this tool is undone by hand"),
        "{m}"
    );
    assert_eq!(fs::read(root.join("a.txt")).unwrap(), b"someone else\n");
    // The way it names goes on.
    ok(&undo(&root, json!({"id": "1"})));
    assert_eq!(fs::read(root.join("b.txt")).unwrap(), b"beta\n");
    assert_eq!(fs::read(root.join("a.txt")).unwrap(), b"someone else\n");
    // With nothing older left, it says so.
    let u = undo(&root, json!({}));
    let m = u["message"].as_str().unwrap();
    assert!(m.contains("there is no older transaction to undo"), "{m}");
}

#[test]
fn nothing_to_undo_names_the_undo_that_redoes() {
    let (_t, root) = ws();
    fs::write(root.join("a.txt"), "alpha\n").unwrap();
    ok(&patch(&root, "a.txt", "alpha", "ALPHA"));
    let u = ok(&undo(&root, json!({}))).clone();
    assert_eq!(u["id"], "2");
    let again = undo(&root, json!({}));
    assert_eq!(again["code"], "INVALID_INPUT");
    let m = again["message"].as_str().unwrap();
    assert!(
        m.contains("every transaction in this workspace's journal is undone"),
        "{m}"
    );
    assert!(m.contains("undo with id \"2\""), "{m}");
    ok(&undo(&root, json!({"id": "2"})));
    assert_eq!(fs::read(root.join("a.txt")).unwrap(), b"ALPHA\n");
}

#[test]
fn history_of_a_file_shows_a_transaction_blocked_by_an_outside_change() {
    let (_t, root) = ws();
    fs::write(root.join("a.txt"), "alpha\n").unwrap();
    ok(&patch(&root, "a.txt", "alpha", "ALPHA"));
    let of_file = |root: &Path| {
        ok(&api::history(
            &json!({"file_path": "a.txt"}),
            Some(&o(root)),
        ))
        .clone()
    };
    assert_eq!(of_file(&root)["transactions"][0]["undoable"], true);
    fs::write(root.join("a.txt"), "someone else\n").unwrap();
    let h = of_file(&root);
    let t = &h["transactions"][0];
    assert_eq!(t["undoable"], false, "{h:#}");
    assert!(
        t["why_not_undoable"]
            .as_str()
            .unwrap()
            .contains("FILE_CHANGED"),
        "{h:#}"
    );
    // Put back as the transaction left it: undoable again, and undone.
    fs::write(root.join("a.txt"), "ALPHA\n").unwrap();
    assert_eq!(of_file(&root)["transactions"][0]["undoable"], true);
    ok(&undo(&root, json!({})));
    assert_eq!(fs::read(root.join("a.txt")).unwrap(), b"alpha\n");
}

/// An entry being written (under its final name, by the holder of the
/// journal's lock) was listed as damaged (`wrong_length`) by a history
/// read meanwhile: it is left out while the lock is held, and damaged only
/// when nobody is writing it.
#[test]
fn an_entry_being_written_is_not_listed_as_damaged() {
    let (_t, root) = ws();
    fs::write(root.join("a.txt"), "one\n").unwrap();
    ok(&patch(&root, "a.txt", "one", "two"));
    ok(&patch(&root, "a.txt", "two", "three"));
    let h = history(&root);
    let dir = PathBuf::from(h["journal"].as_str().unwrap());
    // Entry 2 as a writer leaves it halfway: its first bytes under its name.
    let name = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .find(|n| n.starts_with("0000000002-") && n.ends_with(".entry"))
        .unwrap();
    let whole = fs::read(dir.join(&name)).unwrap();
    fs::write(dir.join(&name), &whole[..whole.len() / 2]).unwrap();
    let lock = fs::File::options()
        .read(true)
        .write(true)
        .open(dir.join("lock"))
        .unwrap();
    lock.lock().unwrap();
    let listed = history(&root);
    assert_eq!(
        listed["transactions"].as_array().unwrap().len(),
        1,
        "{listed}"
    );
    assert_eq!(listed["transactions"][0]["id"], "1", "{listed}");
    // Done: listed whole.
    fs::write(dir.join(&name), &whole).unwrap();
    let listed = history(&root);
    assert_eq!(
        listed["transactions"].as_array().unwrap().len(),
        2,
        "{listed}"
    );
    assert!(
        listed["transactions"][0].get("damaged").is_none(),
        "{listed}"
    );
    // Cut short with nobody writing: damaged.
    lock.unlock().unwrap();
    fs::write(dir.join(&name), &whole[..whole.len() / 2]).unwrap();
    let listed = history(&root);
    assert_eq!(listed["transactions"][0]["damaged"], true, "{listed}");
}

/// Another process holding the journal's lock: a write waited 10 s for
/// it whatever `lockWaitMs` said (with the edited file locked all along),
/// and undo then answered `FILE_READ_ERROR` ("check the path"). The wait
/// is the call's now, and undo and clear answer `FILE_LOCKED` (retry).
#[test]
fn a_held_journal_lock_is_waited_for_as_the_call_says_and_answered_file_locked() {
    let (_t, root) = ws();
    fs::write(root.join("a.txt"), "one\n").unwrap();
    ok(&patch(&root, "a.txt", "one", "two"));
    let dir = PathBuf::from(history(&root)["journal"].as_str().unwrap());
    let lock = fs::File::options()
        .read(true)
        .write(true)
        .open(dir.join("lock"))
        .unwrap();
    lock.lock().unwrap();
    let quick = json!({"workspaceRoot": root, "durable": false, "lockWaitMs": 100});
    let t0 = std::time::Instant::now();
    let r = api::patch_file(
        &json!({"file_path": "a.txt", "search": "two", "replace": "three"}),
        Some(&quick),
    );
    ok(&r);
    assert!(
        r["warnings"][0].as_str().unwrap().contains("not journaled"),
        "{r}"
    );
    let u = api::undo(&json!({}), Some(&quick));
    assert_eq!(u["code"], "FILE_LOCKED", "{u}");
    let c = api::journal_clear(&json!({}), Some(&quick));
    assert_eq!(c["code"], "FILE_LOCKED", "{c}");
    assert!(
        t0.elapsed() < std::time::Duration::from_secs(5),
        "{:?}",
        t0.elapsed()
    );
    assert_eq!(fs::read_to_string(root.join("a.txt")).unwrap(), "three\n");
    // Free again: journaled, and undone.
    lock.unlock().unwrap();
    ok(&patch(&root, "a.txt", "three", "four"));
    assert_eq!(history(&root)["transactions"].as_array().unwrap().len(), 2);
    ok(&undo(&root, json!({})));
    assert_eq!(fs::read_to_string(root.join("a.txt")).unwrap(), "three\n");
}

/// An undo without an id passes over a damaged newer transaction (it
/// cannot be undone) to the newest whole one: it did so without a word.
#[test]
fn an_undo_past_a_damaged_newer_transaction_says_so() {
    let (_t, root) = ws();
    fs::write(root.join("a.txt"), "a0\n").unwrap();
    fs::write(root.join("b.txt"), "b0\n").unwrap();
    ok(&patch(&root, "a.txt", "a0", "a1"));
    ok(&patch(&root, "b.txt", "b0", "b1"));
    let dir = PathBuf::from(history(&root)["journal"].as_str().unwrap());
    let name = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("0000000002-")
        })
        .unwrap();
    let whole = fs::read(&name).unwrap();
    fs::write(&name, &whole[..whole.len() - 3]).unwrap();
    let u = ok(&undo(&root, json!({}))).clone();
    assert_eq!(u["undone"], "1", "{u}");
    assert!(
        u["warnings"][0]
            .as_str()
            .unwrap()
            .contains("transaction 2 is newer but damaged"),
        "{u}"
    );
    assert_eq!(fs::read_to_string(root.join("a.txt")).unwrap(), "a0\n");
    assert_eq!(fs::read_to_string(root.join("b.txt")).unwrap(), "b1\n");
}
