//! Edit formats through the whole engine: multi-file patches that add,
//! delete, move and update files commit all or nothing (also when a rename
//! fails half-way: deleted and moved files come back), dry runs keep
//! removals and moves for `applyDryRun`, encodings and modes survive, and
//! the text editor's undo restores exactly what it saved.
//!
//! Fault injection needs the `fault-injection` feature (`cargo test
//! --all-features`).
#![cfg(unix)]

use crate::common;

use std::path::Path;

use patch_file_core::api as editor;
use patch_file_core::api::{self as engine, self as file_ops};
use serde_json::{json, Value};

use common::Tree;

use common::workspace as setup;

fn opts(root: &Path) -> Value {
    json!({ "workspaceRoot": root })
}

fn tree(files: &[(&str, &[u8])]) -> Tree {
    files
        .iter()
        .map(|(p, b)| (p.to_string(), b.to_vec()))
        .collect()
}

const FILES: &[(&str, &[u8])] = &[
    ("keep.txt", b"keep\n"),
    (
        "src/app.py",
        b"def main():\n    print('hi')\n    return 1\n",
    ),
    ("old/name.txt", b"from\nold\n"),
    ("gone.txt", b"obsolete\n"),
];

const PATCH: &str = "*** Begin Patch\n\
*** Add File: docs/new/readme.md\n+# New\n\
*** Delete File: gone.txt\n\
*** Update File: src/app.py\n@@ def main():\n     print('hi')\n-    return 1\n+    return 0\n\
*** Update File: old/name.txt\n*** Move to: renamed/dir/name.txt\n@@\n from\n-old\n+new\n\
*** End Patch\n";

fn expected_after() -> Tree {
    tree(&[
        ("keep.txt", b"keep\n"),
        (
            "src/app.py",
            b"def main():\n    print('hi')\n    return 0\n",
        ),
        ("renamed/dir/name.txt", b"from\nnew\n"),
        ("docs/new/readme.md", b"# New\n"),
    ])
}

#[test]
fn multi_file_patch_adds_deletes_moves_and_updates() {
    let (_t, root) = setup(FILES);
    let r = file_ops::apply_patch(&json!(PATCH), Some(&opts(&root)));
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(common::tree(&root), expected_after());
    let actions: Vec<&str> = r["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["action"].as_str().unwrap())
        .collect();
    assert_eq!(actions, ["add", "delete", "update", "move"]);
    assert_eq!(r["files"][2]["hunks"][0]["level"], "exact");
    assert_eq!(r["files"][2]["hunks"][0]["line_number"], 2);
    assert!(r["files"][3]["move_to"]
        .as_str()
        .unwrap()
        .ends_with("renamed/dir/name.txt"));
}

#[test]
fn a_failing_operation_leaves_every_file_and_directory_untouched() {
    let (_t, root) = setup(FILES);
    let before = common::tree(&root);
    let bad = PATCH.replace(
        "*** End Patch\n",
        "*** Update File: keep.txt\n@@\n-missing line\n+x\n*** End Patch\n",
    );
    let r = file_ops::apply_patch(&json!(bad), Some(&opts(&root)));
    assert_eq!(r["ok"], false);
    assert_eq!(r["code"], "SEARCH_BLOCK_NOT_FOUND", "{r}");
    assert_eq!(r["failures"].as_array().unwrap().len(), 1);
    assert_eq!(r["failures"][0]["path"], "keep.txt");
    assert_eq!(common::tree(&root), before);
    assert!(
        !root.join("docs").exists(),
        "no parent directory is created when planning fails"
    );
    assert!(!root.join("renamed").exists());
}

#[cfg(feature = "fault-injection")]
#[test]
fn a_rename_failing_at_any_point_restores_every_file_including_deleted_and_moved() {
    use patch_file_core::testing::dir::{fault, Step};
    let mut failed_at = Vec::new();
    for n in 0..16 {
        let (_t, root) = setup(FILES);
        let before = common::tree(&root);
        fault::arm(Step::Rename, n);
        let r = file_ops::apply_patch(&json!(PATCH), Some(&opts(&root)));
        fault::disarm();
        if r["ok"] == true {
            assert_eq!(common::tree(&root), expected_after(), "n={n}");
            assert!(
                n >= 4,
                "the commit has 3 writes and 2 removals, all renamed: {n}"
            );
            break;
        }
        failed_at.push(n);
        assert_eq!(r["code"], "FILE_WRITE_ERROR", "n={n}: {r}");
        assert_eq!(r["rollback_failed"], json!([]), "n={n}: {r}");
        // Empty directories created for new files may remain; every file is as before.
        assert_eq!(common::tree(&root), before, "n={n}: {r}");
    }
    assert_eq!(
        failed_at,
        [0, 1, 2, 3, 4],
        "every rename of the commit was made to fail once"
    );
}

#[cfg(feature = "fault-injection")]
#[test]
fn write_and_fsync_faults_leave_every_file_and_no_temp() {
    use patch_file_core::testing::dir::{fault, Step};
    for step in [Step::TempCreate, Step::Write, Step::Fsync, Step::Chmod] {
        for n in 0..3 {
            let (_t, root) = setup(FILES);
            let before = common::tree(&root);
            fault::arm(step, n);
            let r = file_ops::apply_patch(&json!(PATCH), Some(&opts(&root)));
            fault::disarm();
            if r["ok"] == true {
                continue;
            }
            assert_eq!(r["code"], "FILE_WRITE_ERROR", "{step:?} {n}: {r}");
            let after = common::tree(&root);
            assert_eq!(
                after,
                before,
                "{step:?} {n}: temp files or changes left: {:?}",
                after.keys()
            );
        }
    }
}

#[test]
fn dry_run_keeps_moves_and_deletes_for_apply_dry_run() {
    let (_t, root) = setup(FILES);
    let before = common::tree(&root);
    let r = file_ops::apply_patch(
        &json!({"patch": PATCH, "dry_run": true}),
        Some(&opts(&root)),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(r["dry_run"], true);
    assert_eq!(common::tree(&root), before, "a dry run writes nothing");
    assert!(
        !root.join("docs").exists(),
        "a dry run creates no directory"
    );
    let d = r["diff"].as_str().unwrap();
    assert!(d.contains("--- /dev/null\n+++ b/docs/new/readme.md"), "{d}");
    assert!(d.contains("--- a/gone.txt\n+++ /dev/null"), "{d}");
    assert!(d.contains("rename from old/name.txt\nrename to renamed/dir/name.txt\n--- a/old/name.txt\n+++ b/renamed/dir/name.txt"), "{d}");
    let id = r["run_id"].as_str().unwrap().to_string();
    let a = engine::apply_dry_run(&json!({ "run_id": id }), Some(&opts(&root)));
    assert_eq!(a["ok"], true, "{a}");
    assert_eq!(common::tree(&root), expected_after());
    let again = engine::apply_dry_run(&json!({ "run_id": id }), Some(&opts(&root)));
    assert_eq!(again["code"], "RUN_ID_NOT_FOUND");
}

/// `git apply` of `diff` in `root`: its exit status, or why git could not
/// run.
fn git_apply(root: &Path, diff: &str) -> std::io::Result<std::process::ExitStatus> {
    std::process::Command::new("git")
        .args(["apply", "--unsafe-paths", "-"])
        .current_dir(root)
        .stdin(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            use std::io::Write;
            c.stdin.take().unwrap().write_all(diff.as_bytes())?;
            c.wait()
        })
}

#[test]
fn dry_run_diff_applies_with_git_apply() {
    let (_t, root) = setup(FILES);
    let r = file_ops::apply_patch(
        &json!({"patch": PATCH}),
        Some(&json!({"workspaceRoot": root, "dryRun": true})),
    );
    let d = r["diff"].as_str().unwrap().to_string();
    match git_apply(&root, &d) {
        Ok(s) if s.success() => assert_eq!(common::tree(&root), expected_after()),
        Ok(s) => panic!("git apply failed ({s}) on:\n{d}"),
        Err(e) => eprintln!("git not available ({e}); skipped"),
    }
}

/// A move onto an existing file shows that file's removal in the preview,
/// before the rename, so that what is thrown away is seen (and `git apply`
/// applies the preview: a rename onto a path it deletes first).
#[test]
fn a_move_onto_an_existing_file_shows_its_removal() {
    let says_replaced = |r: &Value| {
        let w = r["warnings"][0].as_str().unwrap_or_default();
        assert!(w.contains("`q.txt` existed and was replaced"), "{r}");
    };
    let (_t, root) = setup(&[("p.txt", b"p1\np2\n"), ("q.txt", b"IMPORTANT q\n")]);
    let patch = "*** Begin Patch\n*** Update File: p.txt\n*** Move to: q.txt\n@@\n-p1\n+P1\n*** End Patch\n";
    let r = file_ops::apply_patch(
        &json!({ "patch": patch, "dry_run": true }),
        Some(&opts(&root)),
    );
    assert_eq!(r["ok"], true, "{r}");
    says_replaced(&r);
    let d = r["diff"].as_str().unwrap().to_string();
    let gone = d.find("--- a/q.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-IMPORTANT q\n");
    let rename = d.find("rename from p.txt\nrename to q.txt\n");
    assert!(gone.is_some() && gone < rename, "{d}");
    match git_apply(&root, &d) {
        Ok(s) if s.success() => {
            assert!(!root.join("p.txt").exists());
            assert_eq!(std::fs::read(root.join("q.txt")).unwrap(), b"P1\np2\n");
        }
        Ok(s) => panic!("git apply failed ({s}) on:\n{d}"),
        Err(e) => eprintln!("git not available ({e}); skipped"),
    }
    // Applied, history lists a move (not a modified `q.txt` alone), under
    // either path; undo brings both files back.
    let (_t, root) = setup(&[("p.txt", b"p1\np2\n"), ("q.txt", b"IMPORTANT q\n")]);
    let r = file_ops::apply_patch(&json!({ "patch": patch }), Some(&opts(&root)));
    assert_eq!(r["ok"], true, "{r}");
    says_replaced(&r);
    for path in ["p.txt", "q.txt"] {
        let h = engine::history(&json!({ "file_path": path }), Some(&opts(&root)));
        let f = &h["transactions"][0]["files"];
        assert_eq!(f.as_array().map(Vec::len), Some(1), "{h}");
        assert_eq!(f[0]["kind"], "moved", "{h}");
        assert_eq!(f[0]["from"], "p.txt", "{h}");
    }
    let u = engine::undo(&json!({}), Some(&opts(&root)));
    assert_eq!(u["ok"], true, "{u}");
    assert_eq!(std::fs::read(root.join("p.txt")).unwrap(), b"p1\np2\n");
    assert_eq!(std::fs::read(root.join("q.txt")).unwrap(), b"IMPORTANT q\n");
}

#[test]
fn apply_dry_run_refuses_when_a_deleted_or_moved_file_changed() {
    let (_t, root) = setup(FILES);
    let r = file_ops::apply_patch(
        &json!(PATCH),
        Some(&json!({"workspaceRoot": root, "dryRun": true})),
    );
    std::fs::write(root.join("gone.txt"), "changed\n").unwrap();
    let before = common::tree(&root);
    let a = engine::apply_dry_run(&json!({ "run_id": r["run_id"] }), Some(&opts(&root)));
    assert_eq!(a["code"], "FILE_CHANGED", "{a}");
    assert_eq!(common::tree(&root), before);
    // Gone since the preview: changed too (it was a read error).
    let (_t, root) = setup(FILES);
    let r = file_ops::apply_patch(
        &json!(PATCH),
        Some(&json!({"workspaceRoot": root, "dryRun": true})),
    );
    std::fs::remove_file(root.join("gone.txt")).unwrap();
    let before = common::tree(&root);
    let a = engine::apply_dry_run(&json!({ "run_id": r["run_id"] }), Some(&opts(&root)));
    assert_eq!(a["code"], "FILE_CHANGED", "{a}");
    assert_eq!(common::tree(&root), before);
}

#[test]
fn moved_file_keeps_its_mode_and_encoding() {
    use std::os::unix::fs::PermissionsExt;
    let mut utf16: Vec<u8> = vec![0xFF, 0xFE];
    for u in "one\r\ntwo\r\n".encode_utf16() {
        utf16.extend_from_slice(&u.to_le_bytes());
    }
    let (_t, root) = setup(&[("bin/run.sh", b"#!/bin/sh\necho a\n"), ("w.txt", &utf16)]);
    std::fs::set_permissions(
        root.join("bin/run.sh"),
        std::fs::Permissions::from_mode(0o751),
    )
    .unwrap();
    let p = "*** Begin Patch\n*** Update File: bin/run.sh\n*** Move to: tools/run.sh\n@@\n-echo a\n+echo b\n\
             *** Update File: w.txt\n*** Move to: moved/w.txt\n@@\n one\n-two\n+TWO\n+three\n*** End Patch\n";
    let r = file_ops::apply_patch(&json!(p), Some(&opts(&root)));
    assert_eq!(r["ok"], true, "{r}");
    let m = std::fs::metadata(root.join("tools/run.sh"))
        .unwrap()
        .permissions()
        .mode()
        & 0o777;
    assert_eq!(m, 0o751);
    let mut want: Vec<u8> = vec![0xFF, 0xFE];
    for u in "one\r\nTWO\r\nthree\r\n".encode_utf16() {
        want.extend_from_slice(&u.to_le_bytes());
    }
    assert_eq!(std::fs::read(root.join("moved/w.txt")).unwrap(), want);
    assert!(!root.join("w.txt").exists() && !root.join("bin/run.sh").exists());
}

#[test]
fn same_file_twice_is_refused() {
    let (_t, root) = setup(&[("a.txt", b"x\n")]);
    let p = "*** Begin Patch\n*** Update File: a.txt\n@@\n-x\n+y\n*** Delete File: ./a.txt\n*** End Patch\n";
    let r = file_ops::apply_patch(&json!(p), Some(&opts(&root)));
    assert_eq!(r["code"], "INVALID_INPUT", "{r}");
    assert!(r["message"]
        .as_str()
        .unwrap()
        .contains("name the same file"));
    assert_eq!(std::fs::read(root.join("a.txt")).unwrap(), b"x\n");
}

#[test]
fn edit_blocks_verify_each_replacement_after_writing() {
    let (_t, root) = setup(&[("a.txt", b"one\ntwo\nthree\n")]);
    let t = "a.txt\n<<<<<<< SEARCH\none\n=======\nONE\n>>>>>>> REPLACE\n<<<<<<< SEARCH\nthree\n=======\nTHREE\n>>>>>>> REPLACE\n";
    let r = file_ops::apply_edit_blocks(&json!(t), Some(&opts(&root)));
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(r["verified"], true);
    assert_eq!(r["files"][0]["blocks"][1]["verified"], true);
    assert_eq!(r["files"][0]["blocks"][1]["line_number"], 3);
    assert_eq!(r["files"][0]["read_back_matches"], true);
    // A later block that rewrites an earlier replacement: written, but not verified.
    let t = "a.txt\n<<<<<<< SEARCH\nONE\n=======\nuno\n>>>>>>> REPLACE\n<<<<<<< SEARCH\nuno\n=======\neins\n>>>>>>> REPLACE\n";
    let r = file_ops::apply_edit_blocks(&json!(t), Some(&opts(&root)));
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(r["verified"], false);
    assert_eq!(r["files"][0]["blocks"][0]["verified"], false);
    assert_eq!(r["files"][0]["blocks"][1]["verified"], true);
    assert_eq!(
        std::fs::read(root.join("a.txt")).unwrap(),
        b"eins\ntwo\nTHREE\n"
    );
}

#[test]
fn text_editor_undo_restores_each_edit_then_refuses_after_an_outside_change() {
    let (_t, root) = setup(&[("f.txt", b"a\nb\nc\n")]);
    let o = opts(&root);
    let ed = |c: Value| editor::text_editor(&c, Some(&o));
    assert_eq!(
        ed(json!({"command": "str_replace", "path": "f.txt", "old_str": "b", "new_str": "B"}))
            ["ok"],
        true
    );
    let r =
        ed(json!({"command": "insert", "path": "f.txt", "insert_line": 0, "insert_text": "top"}));
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(
        std::fs::read(root.join("f.txt")).unwrap(),
        b"top\na\nB\nc\n"
    );
    let u = ed(json!({"command": "undo_edit", "path": "f.txt"}));
    assert_eq!(u["ok"], true, "{u}");
    assert_eq!(u["undo_remaining"], 1);
    assert_eq!(std::fs::read(root.join("f.txt")).unwrap(), b"a\nB\nc\n");
    assert_eq!(
        ed(json!({"command": "undo_edit", "path": "f.txt"}))["ok"],
        true
    );
    assert_eq!(std::fs::read(root.join("f.txt")).unwrap(), b"a\nb\nc\n");
    assert_eq!(
        ed(json!({"command": "undo_edit", "path": "f.txt"}))["code"],
        "INVALID_INPUT"
    );

    // create, then undo removes the file.
    assert_eq!(
        ed(json!({"command": "create", "path": "n/new.txt", "file_text": "hi\n"}))["ok"],
        true
    );
    let u = ed(json!({"command": "undo_edit", "path": "n/new.txt"}));
    assert_eq!(
        (u["ok"].clone(), u["removed"].clone()),
        (json!(true), json!(true)),
        "{u}"
    );
    assert!(!root.join("n/new.txt").exists());

    // An outside change makes undo refuse.
    assert_eq!(
        ed(json!({"command": "str_replace", "path": "f.txt", "old_str": "c", "new_str": "C"}))
            ["ok"],
        true
    );
    std::fs::write(root.join("f.txt"), "someone else\n").unwrap();
    let u = ed(json!({"command": "undo_edit", "path": "f.txt"}));
    assert_eq!(u["code"], "FILE_CHANGED", "{u}");
    assert_eq!(
        std::fs::read(root.join("f.txt")).unwrap(),
        b"someone else\n"
    );
}

/// `edit_file` texts follow the file's line breaks, as every edit format's
/// caller texts do: in a CRLF file an LF `newText` line is written CRLF, and
/// an LF `oldText` of several lines is found. (They were written as sent:
/// an LF line among CRLF ones; the multi-line one refused.)
#[test]
fn edit_file_texts_take_the_files_line_breaks() {
    let (_t, root) = setup(&[("a.py", b"def f():\r\n    x = 1\r\n    return x\r\n")]);
    let r = patch_file_core::api::edit_file(
        &json!({"path": "a.py", "edits": [{"oldText": "x = 1", "newText": "x = 1\n    y = 2"}]}),
        Some(&opts(&root)),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(
        std::fs::read(root.join("a.py")).unwrap(),
        b"def f():\r\n    x = 1\r\n    y = 2\r\n    return x\r\n"
    );
    let r = patch_file_core::api::edit_file(
        &json!({"path": "a.py", "edits": [{"oldText": "    y = 2\n    return x\n", "newText": "    return x + y\n"}]}),
        Some(&opts(&root)),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(
        std::fs::read(root.join("a.py")).unwrap(),
        b"def f():\r\n    x = 1\r\n    return x + y\r\n"
    );
}

#[test]
fn edit_file_takes_the_filesystem_server_shape_exact_once() {
    let (_t, root) = setup(&[("a.txt", b"x = 1\nx = 1\ny = 2\n")]);
    let r = patch_file_core::api::edit_file(
        &json!({"path": "a.txt", "edits": [{"oldText": "y = 2", "newText": "y = 3"}]}),
        Some(&opts(&root)),
    );
    assert_eq!(r["ok"], true, "{r}");
    let r = patch_file_core::api::edit_file(
        &json!({"path": "a.txt", "edits": [{"oldText": "y = 3", "newText": "y = 4"}, {"oldText": "x = 1", "newText": "x = 2"}]}),
        Some(&opts(&root)),
    );
    assert_eq!(
        r["code"], "SEARCH_BLOCK_AMBIGUOUS",
        "exact-once, unlike the first-match original: {r}"
    );
    assert_eq!(
        std::fs::read(root.join("a.txt")).unwrap(),
        b"x = 1\nx = 1\ny = 3\n",
        "all or nothing"
    );
    let r = patch_file_core::api::edit_file(
        &json!({"path": "a.txt", "edits": [{"oldText": "y = 3", "newText": "y = 4"}], "dryRun": true}),
        Some(&opts(&root)),
    );
    assert_eq!(r["dry_run"], true, "{r}");
    assert!(r["diff"].as_str().unwrap().contains("-y = 3\n+y = 4\n"));
}

#[test]
fn deleting_or_moving_through_a_symlink_is_refused() {
    let (_t, root) = setup(&[("real.txt", b"real\n")]);
    std::os::unix::fs::symlink("real.txt", root.join("link.txt")).unwrap();
    std::fs::write(root.join("src.txt"), b"src\n").unwrap();
    // A move onto the link would write over the file it names (a file the
    // patch does not name) and keep the link: refused too, nothing written.
    for p in [
        "*** Begin Patch\n*** Delete File: link.txt\n*** End Patch\n",
        "*** Begin Patch\n*** Update File: link.txt\n*** Move to: moved.txt\n*** End Patch\n",
        "*** Begin Patch\n*** Update File: src.txt\n*** Move to: link.txt\n@@\n-src\n+x\n*** End Patch\n",
    ] {
        let r = file_ops::apply_patch(&json!(p), Some(&opts(&root)));
        assert_eq!(r["code"], "INVALID_INPUT", "{r}");
        assert!(
            r["message"].as_str().unwrap().contains("symbolic link"),
            "{r}"
        );
        assert_eq!(std::fs::read(root.join("real.txt")).unwrap(), b"real\n");
        assert_eq!(std::fs::read(root.join("src.txt")).unwrap(), b"src\n");
        assert!(std::fs::symlink_metadata(root.join("link.txt"))
            .unwrap()
            .file_type()
            .is_symlink());
    }
    // Editing through the link edits the target and keeps the link.
    let p = "*** Begin Patch\n*** Update File: link.txt\n@@\n-real\n+edited\n*** End Patch\n";
    let r = file_ops::apply_patch(&json!(p), Some(&opts(&root)));
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(std::fs::read(root.join("real.txt")).unwrap(), b"edited\n");
    assert!(std::fs::symlink_metadata(root.join("link.txt"))
        .unwrap()
        .file_type()
        .is_symlink());
}

/// A moved file is a new inode under its new name: a source with another
/// hard link (perhaps outside the workspace) would be split from it, the
/// other name keeping the old text, as an in-place edit is refused for
/// (`HARD_LINKED_FILE`). Moved only under `hardLinks: "split"`; a git
/// rename and a move without hunks too.
#[test]
fn moving_a_hard_linked_file_is_refused_unless_split() {
    let (_t, root) = setup(&[("x.txt", b"one\n")]);
    std::fs::hard_link(root.join("x.txt"), root.join("other.txt")).unwrap();
    let patches = [
        "*** Begin Patch\n*** Update File: x.txt\n*** Move to: y.txt\n@@\n-one\n+ONE\n*** End Patch\n",
        "*** Begin Patch\n*** Update File: x.txt\n*** Move to: y.txt\n*** End Patch\n",
        "diff --git a/x.txt b/y.txt\nsimilarity index 100%\nrename from x.txt\nrename to y.txt\n",
    ];
    for p in patches {
        for links in [json!({}), json!({"hardLinks": "keep"})] {
            let mut o = opts(&root);
            o.as_object_mut()
                .unwrap()
                .extend(links.as_object().unwrap().clone());
            let r = file_ops::apply_patch(&json!(p), Some(&o));
            assert_eq!(r["code"], "HARD_LINKED_FILE", "{p} {r}");
            assert!(r["message"].as_str().unwrap().contains("\"split\""), "{r}");
            assert_eq!(std::fs::read(root.join("x.txt")).unwrap(), b"one\n");
            assert!(!root.join("y.txt").exists());
            assert_eq!(
                std::os::unix::fs::MetadataExt::nlink(
                    &std::fs::metadata(root.join("other.txt")).unwrap()
                ),
                2
            );
        }
    }
    let mut o = opts(&root);
    o["hardLinks"] = json!("split");
    let r = file_ops::apply_patch(&json!(patches[0]), Some(&o));
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(std::fs::read(root.join("y.txt")).unwrap(), b"ONE\n");
    assert_eq!(std::fs::read(root.join("other.txt")).unwrap(), b"one\n");
    assert!(!root.join("x.txt").exists());
}

/// A move onto another name (hard link) of the same file, under any
/// `hardLinks`: refused, nothing written (with "split" it answered ok and
/// moved nothing: both names kept, one of them edited). A move onto the
/// same name, however spelled, is an update as before.
#[test]
fn a_move_onto_the_files_own_other_name_is_refused() {
    let (_t, root) = setup(&[("a.txt", b"one\n")]);
    std::fs::hard_link(root.join("a.txt"), root.join("b.txt")).unwrap();
    for links in ["refuse", "split", "keep"] {
        let mut o = opts(&root);
        o["hardLinks"] = json!(links);
        let p = "*** Begin Patch\n*** Update File: a.txt\n*** Move to: b.txt\n@@\n-one\n+ONE\n*** End Patch\n";
        let r = file_ops::apply_patch(&json!(p), Some(&o));
        assert_eq!(r["code"], "INVALID_INPUT", "{links}: {r}");
        assert!(
            r["message"].as_str().unwrap().contains("another name"),
            "{r}"
        );
        assert_eq!(std::fs::read(root.join("a.txt")).unwrap(), b"one\n");
        assert_eq!(std::fs::read(root.join("b.txt")).unwrap(), b"one\n");
    }
    let (_t, root) = setup(&[("c.txt", b"one\n")]);
    for to in ["c.txt", "./c.txt"] {
        let p = format!("*** Begin Patch\n*** Update File: c.txt\n*** Move to: {to}\n@@\n-one\n+one\n+two\n*** End Patch\n");
        let r = file_ops::apply_patch(&json!(p), Some(&opts(&root)));
        assert_eq!(r["ok"], true, "{to}: {r}");
        std::fs::write(root.join("c.txt"), b"one\n").unwrap();
    }
}

/// A path written as a file that another operation of the call needs as a
/// directory: refused before anything is made, dry run included (its
/// `run_id` could never apply), in either order and in either format.
#[test]
fn a_file_and_a_file_under_it_in_one_call_are_refused() {
    let (_t, root) = setup(&[("a.txt", b"a\n")]);
    let patches = [
        "*** Begin Patch\n*** Add File: p\n+x\n*** Add File: p/q\n+y\n*** End Patch\n",
        "*** Begin Patch\n*** Add File: p/q/r\n+y\n*** Add File: p\n+x\n*** End Patch\n",
        "*** Begin Patch\n*** Update File: a.txt\n*** Move to: p\n*** Add File: p/q\n+y\n*** End Patch\n",
        "diff --git a/x b/x\nnew file mode 100644\n--- /dev/null\n+++ b/x\n@@ -0,0 +1 @@\n+x\n\
         diff --git a/x/y b/x/y\nnew file mode 100644\n--- /dev/null\n+++ b/x/y\n@@ -0,0 +1 @@\n+y\n",
    ];
    for p in patches {
        for dry in [false, true] {
            let r = file_ops::apply_patch(&json!({"patch": p, "dry_run": dry}), Some(&opts(&root)));
            assert_eq!(r["code"], "INVALID_INPUT", "{p} {r}");
            assert!(
                r["message"].as_str().unwrap().contains("cannot be both"),
                "{r}"
            );
            let mut names: Vec<String> = std::fs::read_dir(&root)
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|n| !n.starts_with('.'))
                .collect();
            names.sort();
            assert_eq!(names, ["a.txt"], "{p}");
            assert_eq!(std::fs::read(root.join("a.txt")).unwrap(), b"a\n");
        }
    }
    // Siblings whose names share a prefix are not a conflict.
    let p = "*** Begin Patch\n*** Add File: p\n+x\n*** Add File: p-q/r\n+y\n*** Add File: pq\n+z\n*** End Patch\n";
    let r = file_ops::apply_patch(&json!(p), Some(&opts(&root)));
    assert_eq!(r["ok"], true, "{r}");
}

/// Many blocks over a file of a few MiB are planned in one pass and written
/// from slices of the file; a dry run of them keeps the same bytes, which
/// applyDryRun writes, for plain UTF-8, CRLF and BOM files alike.
#[test]
fn edit_blocks_planned_in_one_pass_write_and_dry_run_the_same_bytes() {
    let lines: Vec<String> = (0..120_000).map(|i| format!("let v{i} = {i};")).collect();
    for (name, eol, bom) in [
        ("plain.rs", "\n", ""),
        ("crlf.rs", "\r\n", ""),
        ("bom.rs", "\n", "\u{FEFF}"),
    ] {
        let text = format!("{bom}{}{eol}", lines.join(eol));
        // Blocks change, delete (with the line break) and join lines.
        let mut doc = format!("{name}\n");
        let mut want = text.clone();
        for k in [10, 5_000, 40_000, 90_000, 119_999] {
            let (s, r) = if k % 2 == 0 {
                (lines[k].clone(), String::new())
            } else {
                (lines[k].clone(), format!("let w{k} = 0;"))
            };
            doc.push_str(&format!("<<<<<<< SEARCH\n{s}\n=======\n"));
            if !r.is_empty() {
                doc.push_str(&format!("{r}\n"));
            }
            doc.push_str(">>>>>>> REPLACE\n");
            want = if r.is_empty() {
                want.replacen(&format!("{s}{eol}"), "", 1)
            } else {
                want.replacen(&s, &r, 1)
            };
        }
        let (_t, root) = setup(&[(name, text.as_bytes())]);
        let dry = file_ops::apply_edit_blocks(
            &json!(doc),
            Some(&json!({"workspaceRoot": root, "dryRun": true})),
        );
        assert_eq!(dry["ok"], true, "{dry}");
        // (Compared without printing megabytes on failure.)
        assert!(
            std::fs::read(root.join(name)).unwrap() == text.as_bytes(),
            "{name}: dry run wrote"
        );
        let id = dry["run_id"].as_str().unwrap().to_string();
        let a = file_ops::apply_dry_run(&json!({ "run_id": id }), Some(&opts(&root)));
        assert_eq!(a["ok"], true, "{a}");
        assert!(
            std::fs::read(root.join(name)).unwrap() == want.as_bytes(),
            "{name}: applyDryRun bytes"
        );
        // Directly: the same bytes, sha256 and verification.
        std::fs::write(root.join(name), &text).unwrap();
        let r = file_ops::apply_edit_blocks(&json!(doc), Some(&opts(&root)));
        assert_eq!(r["ok"], true, "{r}");
        assert_eq!(r["verified"], true, "{r}");
        assert_eq!(r["files"][0]["read_back_matches"], true, "{r}");
        let got = std::fs::read(root.join(name)).unwrap();
        assert!(got == want.as_bytes(), "{name}: written bytes");
        assert_eq!(r["files"][0]["after_bytes"], got.len(), "{r}");
        assert_eq!(r["files"][0]["sha256"], dry["files"][0]["sha256"], "{r}");
    }
}

/// `applyPatch({ operation })`: one operation of OpenAI's apply_patch tool
/// as structure. It touches exactly its path (and move), whatever its diff
/// says; a `*** ` header in the diff is refused, nothing written.
#[test]
fn an_operation_given_as_structure_touches_only_its_path() {
    let (_t, root) = setup(&[
        ("a.txt", b"one\n*** Delete File: victim.txt\ntwo\n"),
        ("victim.txt", b"keep\n"),
        ("v.txt", b"keep too\n"),
    ]);
    let o = opts(&root);
    let op = |v: Value| file_ops::apply_patch(&json!({ "operation": v }), Some(&o));
    let r = op(
        json!({"type": "update_file", "path": "a.txt", "diff": "@@\n one\n *** Delete File: victim.txt\n-two\n+2\n"}),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(
        std::fs::read(root.join("a.txt")).unwrap(),
        b"one\n*** Delete File: victim.txt\n2\n"
    );
    let r = op(
        json!({"type": "update_file", "path": "a.txt", "diff": "@@\n-2\n+3\n*** Delete File: victim.txt\n"}),
    );
    assert_eq!(r["code"], "PATCH_PARSE_ERROR", "{r}");
    assert!(
        r["message"].as_str().unwrap().starts_with("diff line 4:"),
        "{r}"
    );
    let r = op(json!({"type": "delete_file", "path": "v.txt\u{85}"}));
    assert_eq!(r["ok"], false, "{r}");
    let r = op(
        json!({"type": "update_file", "path": "a.txt", "move_to": "b/a.txt", "diff": "@@\n-2\n+3\n"}),
    );
    assert_eq!(r["ok"], true, "{r}");
    let r = op(json!({"type": "create_file", "path": "n.txt", "diff": "+x\n", "extra": 1}));
    assert_eq!(r["code"], "INVALID_INPUT", "{r}");
    assert_eq!(
        tree(&[
            ("b/a.txt", b"one\n*** Delete File: victim.txt\n3\n"),
            ("victim.txt", b"keep\n"),
            ("v.txt", b"keep too\n"),
        ]),
        common::tree(&root)
    );
}

/// A file holding only a byte order mark: its text is empty, and a diff of
/// its bytes (`git diff`) shows the mark as line 1 without a line break.
/// Filling it, emptying a file down to its mark, and deleting it apply as
/// `git apply` does (found in two public histories).
#[test]
fn diffs_of_a_file_holding_only_a_byte_order_mark_apply_as_git_does() {
    let bom = "\u{FEFF}";
    let (_t, root) = setup(&[
        ("fill.txt", bom.as_bytes()),
        ("gone.cs", bom.as_bytes()),
        ("empty.txt", format!("{bom}a\nb\n").as_bytes()),
    ]);
    let patch = format!(
        "--- a/fill.txt\n+++ b/fill.txt\n@@ -1 +1,2 @@\n-{bom}\n\\ No newline at end of file\n+{bom}#nullable enable\n+x\n\
         --- a/gone.cs\n+++ /dev/null\n@@ -1 +0,0 @@\n-{bom}\n\\ No newline at end of file\n\
         --- a/empty.txt\n+++ b/empty.txt\n@@ -1,2 +1 @@\n-{bom}a\n-b\n+{bom}\n\\ No newline at end of file\n"
    );
    let r = file_ops::apply_patch(&json!(patch), Some(&opts(&root)));
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(
        std::fs::read(root.join("fill.txt")).unwrap(),
        format!("{bom}#nullable enable\nx\n").as_bytes()
    );
    assert!(!root.join("gone.cs").exists());
    assert_eq!(
        std::fs::read(root.join("empty.txt")).unwrap(),
        bom.as_bytes()
    );
    // The mark alone is still line 1: a file with text is not "only a mark".
    let (_t, root) = setup(&[("x.txt", format!("{bom}a\n").as_bytes())]);
    let stale = format!(
        "--- a/x.txt\n+++ b/x.txt\n@@ -1 +1 @@\n-{bom}\n\\ No newline at end of file\n+{bom}b\n"
    );
    let r = file_ops::apply_patch(&json!(stale), Some(&opts(&root)));
    assert_eq!(r["ok"], false, "{r}");
    assert_eq!(
        std::fs::read(root.join("x.txt")).unwrap(),
        format!("{bom}a\n").as_bytes()
    );
}

/// A hunk that adds a line above line 1 and shows line 1, the byte order
/// mark at its start, as context: the file lost its mark (the new side's
/// first line, the added one, has none). No line of the hunk removes it:
/// the file keeps it at its start, in both formats. One that replaces
/// line 1 by a line without it still removes it.
#[test]
fn a_line_added_above_a_first_line_kept_as_context_keeps_the_byte_order_mark() {
    let bom = "\u{FEFF}";
    let text = format!("{bom}using System;\nclass A {{}}\n");
    let diff = format!(
        "--- a/a.cs\n+++ b/a.cs\n@@ -1,2 +1,3 @@\n+// header\n {bom}using System;\n class A {{}}\n"
    );
    let codex = format!(
        "*** Begin Patch\n*** Update File: a.cs\n@@\n+// header\n {bom}using System;\n class A {{}}\n*** End Patch\n"
    );
    for p in [diff, codex] {
        let (_t, root) = setup(&[("a.cs", text.as_bytes())]);
        let r = file_ops::apply_patch(&json!(p), Some(&opts(&root)));
        assert_eq!(r["ok"], true, "{r}");
        assert_eq!(
            std::fs::read_to_string(root.join("a.cs")).unwrap(),
            format!("{bom}// header\nusing System;\nclass A {{}}\n"),
            "{p}"
        );
    }
    let (_t, root) = setup(&[("a.cs", text.as_bytes())]);
    let drop = format!("--- a/a.cs\n+++ b/a.cs\n@@ -1,2 +1,2 @@\n-{bom}using System;\n+using System;\n class A {{}}\n");
    let r = file_ops::apply_patch(&json!(drop), Some(&opts(&root)));
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(
        std::fs::read_to_string(root.join("a.cs")).unwrap(),
        "using System;\nclass A {}\n"
    );
}

/// A SEARCH/REPLACE block that creates a file, sent with CRLF lines: its
/// last line was ended with LF, a file of mixed line breaks.
#[test]
fn a_block_that_creates_a_file_ends_it_with_its_own_line_break() {
    let (_t, root) = setup(&[]);
    for (name, eol) in [("crlf.txt", "\r\n"), ("lf.txt", "\n")] {
        let t = format!(
            "{name}{eol}<<<<<<< SEARCH{eol}======={eol}line one{eol}line two{eol}>>>>>>> REPLACE{eol}"
        );
        let r = file_ops::apply_edit_blocks(&json!(t), Some(&opts(&root)));
        assert_eq!(r["ok"], true, "{r}");
        assert_eq!(
            std::fs::read_to_string(root.join(name)).unwrap(),
            format!("line one{eol}line two{eol}")
        );
    }
}
