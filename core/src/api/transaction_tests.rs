//! Tests of the transaction guarantees through the engine's entry points
//! (multi-edit, counts, preconditions, dry runs, batches, read/write) and of
//! `commit::commit` under injected I/O faults. Faults are thread-local and
//! every entry point runs on the calling thread, so each test arms only its
//! own calls.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::{apply_dry_run, batch_patch_files, patch_file, read_file, write_file};
use crate::io::commit::{self, Original, WriteJob};
use crate::io::dir::{fault, Step, TEMP_MARK};
use crate::io::workspace::{Intent, Workspace};

fn ws() -> (tempfile::TempDir, PathBuf) {
    let t = tempfile::tempdir().unwrap();
    let root = fs::canonicalize(t.path()).unwrap();
    (t, root)
}

fn opts(root: &Path) -> Value {
    json!({ "workspaceRoot": root, "durable": false })
}

fn code(v: &Value) -> &str {
    v["code"].as_str().unwrap_or("<ok>")
}

/// Every temp file left anywhere under `dir`.
fn temps(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(temps(&p));
        } else if p.file_name().unwrap().to_string_lossy().contains(TEMP_MARK) {
            out.push(p);
        }
    }
    out
}

/// `n` files, alternating between the root and `sub/`, each with a unique
/// `value = old` line. Returns their relative paths and contents.
fn files(root: &Path, n: usize) -> Vec<(String, Vec<u8>)> {
    fs::create_dir_all(root.join("sub")).unwrap();
    (0..n)
        .map(|i| {
            let rel = if i % 2 == 0 {
                format!("f{i}.txt")
            } else {
                format!("sub/f{i}.txt")
            };
            let body = format!("file {i}\nvalue = old\nend {i}\n").into_bytes();
            fs::write(root.join(&rel), &body).unwrap();
            (rel, body)
        })
        .collect()
}

fn batch_input(fs_: &[(String, Vec<u8>)]) -> Value {
    json!({
        "files": fs_.iter().map(|(rel, _)| json!({
            "file_path": rel, "search_block": "value = old", "replace_block": "value = new",
        })).collect::<Vec<_>>()
    })
}

fn assert_originals(root: &Path, fs_: &[(String, Vec<u8>)]) {
    for (rel, body) in fs_ {
        assert_eq!(&fs::read(root.join(rel)).unwrap(), body, "{rel} changed");
    }
}

#[test]
fn batch_rename_fault_mid_way_restores_every_file() {
    let (_t, root) = ws();
    let n = 6;
    let fs_ = files(&root, n);
    let input = batch_input(&fs_);
    for k in 0..n {
        fault::arm(Step::Rename, k as u64);
        let r = batch_patch_files(&input, Some(&opts(&root)));
        fault::disarm();
        assert_eq!(r["ok"], false, "k={k}: {r}");
        assert_eq!(code(&r), "FILE_WRITE_ERROR", "k={k}: {r}");
        assert_originals(&root, &fs_);
        assert!(temps(&root).is_empty(), "k={k}: temp files left");
        // The files renamed before the fault (the first k) were restored,
        // and the result names each of them.
        let mut rolled: Vec<String> = r["rolled_back"]
            .as_array()
            .unwrap_or_else(|| panic!("no rolled_back in {r}"))
            .iter()
            .map(|v| v.as_str().unwrap().to_string())
            .collect();
        rolled.sort();
        let mut want: Vec<String> = fs_[..k]
            .iter()
            .map(|(rel, _)| root.join(rel).to_string_lossy().into_owned())
            .collect();
        want.sort();
        assert_eq!(rolled, want, "k={k}");
        if k > 0 {
            assert!(r["message"].as_str().unwrap().contains("restored"), "{r}");
        }
        assert_eq!(
            r["file_path"].as_str().unwrap(),
            root.join(&fs_[k].0).to_string_lossy(),
            "the failing file is named"
        );
    }
    // The same batch without a fault applies every file.
    let r = batch_patch_files(&input, Some(&opts(&root)));
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(r["replacements"], n);
    for (rel, body) in &fs_ {
        let want = String::from_utf8(body.clone())
            .unwrap()
            .replace("old", "new");
        assert_eq!(fs::read_to_string(root.join(rel)).unwrap(), want);
    }
}

#[test]
fn batch_temp_write_fault_writes_nothing() {
    let (_t, root) = ws();
    let n = 4;
    let fs_ = files(&root, n);
    let input = batch_input(&fs_);
    for step in [Step::TempCreate, Step::Write, Step::Chmod] {
        for k in 0..n {
            fault::arm(step, k as u64);
            let r = batch_patch_files(&input, Some(&opts(&root)));
            fault::disarm();
            assert_eq!(code(&r), "FILE_WRITE_ERROR", "{step:?} k={k}: {r}");
            assert_eq!(r["rolled_back"], json!([]), "{step:?} k={k}: {r}");
            assert_originals(&root, &fs_);
            assert!(temps(&root).is_empty(), "{step:?} k={k}: temp files left");
        }
    }
}

#[test]
fn commit_temp_write_failure_removes_every_temp_and_keeps_originals() {
    let (_t, root) = ws();
    let n = 5;
    let fs_ = files(&root, n);
    let w = Workspace::open(&root).unwrap();
    let resolved: Vec<_> = fs_
        .iter()
        .map(|(rel, _)| w.resolve(rel, Intent::Existing).unwrap())
        .collect();
    let new: Vec<Vec<u8>> = (0..n).map(|i| format!("new {i}\n").into_bytes()).collect();
    let jobs: Vec<WriteJob<'_>> = resolved
        .iter()
        .zip(&fs_)
        .zip(&new)
        .map(|((res, (rel, body)), new)| WriteJob {
            dir: &res.dir,
            name: &res.name,
            display: rel,
            content: vec![&new[..2], &new[2..]],
            original: Some(Original {
                meta: res.meta.unwrap(),
                bytes: body,
            }),
            split_links: false,
        })
        .collect();
    for step in [Step::TempCreate, Step::Write, Step::Chmod, Step::Fsync] {
        for k in 0..n {
            fault::arm(step, k as u64);
            let r = commit::commit(&jobs, true);
            fault::disarm();
            let e = match r {
                Ok(_) => panic!("{step:?} k={k}: commit succeeded despite the fault"),
                Err(e) => e,
            };
            assert_eq!(e.index, k, "{step:?}: the failing job is reported");
            assert_eq!(e.failure.code.as_str(), "FILE_WRITE_ERROR");
            assert!(e.rolled_back.is_empty() && e.rollback_failed.is_empty());
            assert_originals(&root, &fs_);
            assert!(temps(&root).is_empty(), "{step:?} k={k}: temp files left");
        }
    }
    // Unfaulted, the same jobs land.
    assert!(commit::commit(&jobs, true).is_ok());
    for ((rel, _), new) in fs_.iter().zip(&new) {
        assert_eq!(&fs::read(root.join(rel)).unwrap(), new);
    }
    assert!(temps(&root).is_empty());
}

#[test]
fn multi_edit_all_or_nothing_reports_every_failure_by_index() {
    let (_t, root) = ws();
    let text = "a1\nb2\nc3\nd4\ne5\n";
    fs::write(root.join("m.txt"), text).unwrap();
    let edit = |s: &str, r: &str| json!({"search_block": s, "replace_block": r});
    // The middle edit of five fails.
    let r = patch_file(
        &json!({"file_path": "m.txt", "edits": [
            edit("a1", "A1"), edit("b2", "B2"), edit("zz", "Z"), edit("d4", "D4"), edit("e5", "E5"),
        ]}),
        Some(&opts(&root)),
    );
    assert_eq!(code(&r), "SEARCH_BLOCK_NOT_FOUND", "{r}");
    assert_eq!(r["failed_edits"].as_array().unwrap().len(), 1);
    assert_eq!(r["failed_edits"][0]["index"], 2);
    assert_eq!(r["failed_edits"][0]["match_count"], 0);
    assert_eq!(fs::read_to_string(root.join("m.txt")).unwrap(), text);
    // Only the first edit of several fails: still listed.
    let r = patch_file(
        &json!({"file_path": "m.txt", "edits": [edit("zz", ""), edit("a1", "A1")]}),
        Some(&opts(&root)),
    );
    assert_eq!(r["failed_edits"][0]["index"], 0, "{r}");
    // Two failures of different kinds, both reported.
    fs::write(root.join("m.txt"), "x x\ny\n").unwrap();
    let r = patch_file(
        &json!({"file_path": "m.txt", "edits": [
            edit("x", "1"), edit("y", "Y"),
            {"search": "x", "replace": "", "expected_replacements": 3},
        ]}),
        Some(&opts(&root)),
    );
    let failed = r["failed_edits"].as_array().unwrap();
    assert_eq!(failed.len(), 2, "{r}");
    assert_eq!(
        (
            failed[0]["index"].clone(),
            failed[0]["code"].clone(),
            failed[0]["match_count"].clone()
        ),
        (json!(0), json!("SEARCH_BLOCK_AMBIGUOUS"), json!(2))
    );
    assert_eq!(
        (
            failed[1]["index"].clone(),
            failed[1]["code"].clone(),
            failed[1]["match_count"].clone()
        ),
        (json!(2), json!("REPLACEMENT_COUNT_MISMATCH"), json!(2))
    );
    assert_eq!(fs::read_to_string(root.join("m.txt")).unwrap(), "x x\ny\n");
}

#[test]
fn explicit_count_of_one_is_a_count() {
    let (_t, root) = ws();
    fs::write(root.join("c.txt"), "k\nk\n").unwrap();
    let r = patch_file(
        &json!({"file_path": "c.txt", "search_block": "k", "replace_block": "v", "expected_replacements": 1}),
        Some(&opts(&root)),
    );
    assert_eq!(code(&r), "REPLACEMENT_COUNT_MISMATCH", "{r}");
    assert_eq!(r["match_count"], 2);
    assert_eq!(r["match_lines"], json!([1, 2]));
    let r = patch_file(
        &json!({"file_path": "c.txt", "search_block": "k\nk", "replace_block": "v", "expected_replacements": 1}),
        Some(&opts(&root)),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(fs::read_to_string(root.join("c.txt")).unwrap(), "v\n");
}

#[test]
fn concurrent_single_edits_of_one_file_all_land() {
    let (_t, root) = ws();
    let n = 32;
    let text: String = (0..n).map(|i| format!("block {i}: old\n")).collect();
    fs::write(root.join("c.txt"), &text).unwrap();
    let o = opts(&root);
    std::thread::scope(|s| {
        for i in 0..n {
            let o = &o;
            s.spawn(move || {
                let r = patch_file(
                    &json!({"file_path": "c.txt", "search_block": format!("block {i}: old\n"),
                            "replace_block": format!("block {i}: new\n")}),
                    Some(o),
                );
                assert_eq!(r["ok"], true, "{r}");
            });
        }
    });
    let want: String = (0..n).map(|i| format!("block {i}: new\n")).collect();
    assert_eq!(fs::read_to_string(root.join("c.txt")).unwrap(), want);
}

#[test]
fn batch_refuses_the_same_file_twice_by_any_name() {
    let (_t, root) = ws();
    fs::write(root.join("a.txt"), "x\n").unwrap();
    let pair = |p: &str| json!({"file_path": p, "search_block": "x", "replace_block": "y"});
    let names: Vec<&str> = {
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink("a.txt", root.join("sym.txt")).unwrap();
            fs::hard_link(root.join("a.txt"), root.join("hard.txt")).unwrap();
            vec!["a.txt", "./a.txt", "sym.txt", "hard.txt"]
        }
        #[cfg(not(unix))]
        {
            vec!["a.txt", "./a.txt"]
        }
    };
    for other in &names[1..] {
        let r = batch_patch_files(
            &json!({"files": [pair("a.txt"), pair(other)]}),
            Some(&opts(&root)),
        );
        assert_eq!(code(&r), "INVALID_INPUT", "{other}: {r}");
        assert!(r["message"]
            .as_str()
            .unwrap()
            .contains("files[0] and files[1]"));
    }
    assert_eq!(fs::read_to_string(root.join("a.txt")).unwrap(), "x\n");
}

#[test]
fn dry_run_diff_includes_the_bom_and_apply_writes_the_preview() {
    let (_t, root) = ws();
    let bytes = b"\xEF\xBB\xBFfirst\nsecond\n";
    fs::write(root.join("bom.txt"), bytes).unwrap();
    let r = patch_file(
        &json!({"file_path": "bom.txt", "search_block": "first", "replace_block": "1st", "dry_run": true}),
        Some(&opts(&root)),
    );
    assert_eq!(r["ok"], true, "{r}");
    let d = r["diff"].as_str().unwrap();
    assert!(
        d.contains("-\u{FEFF}first\n+\u{FEFF}1st\n"),
        "the BOM is part of line 1: {d:?}"
    );
    assert_eq!(fs::read(root.join("bom.txt")).unwrap(), bytes);
    let a = apply_dry_run(&json!({"run_id": r["run_id"]}), Some(&opts(&root)));
    assert_eq!(a["ok"], true, "{a}");
    assert_eq!(
        fs::read(root.join("bom.txt")).unwrap(),
        b"\xEF\xBB\xBF1st\nsecond\n"
    );
    assert_eq!(a["sha256"], r["sha256"]);
    assert_eq!(a["sha256_before"], r["sha256_before"]);
}

#[test]
fn write_file_dry_run_and_failed_precondition_create_no_directory() {
    let (_t, root) = ws();
    let r = write_file(
        &json!({"file_path": "new/deep/c.txt", "content": "hi\n", "dry_run": true}),
        Some(&opts(&root)),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(r["created"], true);
    assert_eq!(
        r["diff"],
        "--- /dev/null\n+++ b/new/deep/c.txt\n@@ -0,0 +1 @@\n+hi\n"
    );
    assert!(!root.join("new").exists(), "a dry run created a directory");
    let r2 = write_file(
        &json!({"file_path": "other/c.txt", "content": "x", "expected_sha256": "0".repeat(64)}),
        Some(&opts(&root)),
    );
    assert_eq!(code(&r2), "FILE_CHANGED", "{r2}");
    assert!(!root.join("other").exists());
    // Applying the dry run creates the directories and the file.
    let a = apply_dry_run(&json!({"run_id": r["run_id"]}), Some(&opts(&root)));
    assert_eq!(a["ok"], true, "{a}");
    assert_eq!(a["created"], true);
    assert_eq!(
        fs::read_to_string(root.join("new/deep/c.txt")).unwrap(),
        "hi\n"
    );
    // A dry run of a create is void once the file exists.
    let r = write_file(
        &json!({"file_path": "late.txt", "content": "a", "dry_run": true}),
        Some(&opts(&root)),
    );
    fs::write(root.join("late.txt"), "someone else").unwrap();
    let a = apply_dry_run(&json!({"run_id": r["run_id"]}), Some(&opts(&root)));
    assert_eq!(code(&a), "FILE_CHANGED", "{a}");
    assert_eq!(
        fs::read_to_string(root.join("late.txt")).unwrap(),
        "someone else"
    );
}

#[test]
fn read_file_ranges_and_line_endings() {
    let (_t, root) = ws();
    fs::write(root.join("r.txt"), "l0\nl1\nl2\nl3").unwrap();
    let read = |v: Value| read_file(&v, Some(&opts(&root)));
    let r = read(json!({"file_path": "r.txt", "offset": 1, "limit": 2}));
    assert_eq!(r["content"], "l1\nl2\n");
    assert_eq!(
        (r["total_lines"].clone(), r["next_offset"].clone()),
        (json!(4), json!(3))
    );
    let r = read(json!({"file_path": "r.txt", "offset": 3}));
    assert_eq!(r["content"], "l3");
    assert!(r.get("next_offset").is_none(), "{r}");
    let r = read(json!({"file_path": "r.txt", "offset": 9}));
    assert_eq!(
        (r["content"].clone(), r["lines"].clone()),
        (json!(""), json!(0))
    );
    for (body, le) in [
        (&b"a\nb\n"[..], "lf"),
        (b"a\r\nb\r\n", "crlf"),
        (b"a\r\nb\n", "mixed"),
        (b"ab", "none"),
    ] {
        fs::write(root.join("e.txt"), body).unwrap();
        let r = read(json!({"file_path": "e.txt"}));
        assert_eq!(r["line_ending"], le, "{body:?}");
    }
}

#[test]
fn batch_rollback_that_cannot_restore_says_which_file() {
    let (_t, root) = ws();
    let n = 4;
    let fs_ = files(&root, n);
    // Files 0 and 1 are replaced, file 2's rename fails; putting file 1
    // back (the first restored) fails too.
    fault::arm(Step::Rename, 2);
    fault::arm(Step::Restore, 0);
    let r = batch_patch_files(&batch_input(&fs_), Some(&opts(&root)));
    fault::disarm();
    assert_eq!(code(&r), "FILE_WRITE_ERROR", "{r}");
    let abs = |i: usize| root.join(&fs_[i].0).to_string_lossy().into_owned();
    assert_eq!(r["rollback_failed"], json!([abs(1)]), "{r}");
    assert_eq!(r["rolled_back"], json!([abs(0)]), "{r}");
    assert!(r["message"]
        .as_str()
        .unwrap()
        .contains("could not be restored"));
    assert_eq!(fs::read(root.join(&fs_[0].0)).unwrap(), fs_[0].1);
    for (rel, body) in &fs_[2..] {
        assert_eq!(&fs::read(root.join(rel)).unwrap(), body);
    }
    assert!(temps(&root).is_empty());
}
