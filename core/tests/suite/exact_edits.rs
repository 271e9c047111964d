//! "Edits: exactly what was asked, or a refusal": one test per item of the
//! issue, through the public entry points against real files.
//!
//! - tolerant `match` never writes a line that splices the file's line and
//!   the caller's (the reported `indentation` case);
//! - `match` applies the same with `expected_replacements: 1` as without,
//!   and counts above 1 refuse clearly instead of ignoring `match`;
//! - a SEARCH/REPLACE block's path is never a prose line, `...` or a line
//!   across blank lines;
//! - a Codex chunk that only appends at the end of the file does not move
//!   the search position of the chunks after it.

use std::path::{Path, PathBuf};

use patch_file_core::api;
use patch_file_core::model::{Changes, FileAction};
use patch_file_core::testing::formats::edit_block;
use serde_json::{json, Value};

fn setup(files: &[(&str, &str)]) -> (tempfile::TempDir, PathBuf) {
    let bytes: Vec<(&str, &[u8])> = files.iter().map(|(p, s)| (*p, s.as_bytes())).collect();
    crate::common::workspace(&bytes)
}

fn opts(root: &Path) -> Value {
    json!({ "workspaceRoot": root, "durable": false })
}

fn read(root: &Path, p: &str) -> String {
    std::fs::read_to_string(root.join(p)).unwrap()
}

// ---- tolerant matching never splices a file line and a caller line ----

#[test]
fn indentation_tolerance_reindents_a_changed_line_as_a_whole() {
    let (_t, root) = setup(&[("f.py", "a\n    foo()\n    bar()\nb\n")]);
    let r = api::patch_file(
        &json!({"file_path": "f.py", "search": "foo()\nbar()", "replace": "await foo()\nawait bar()",
                "match": ["indentation"]}),
        Some(&opts(&root)),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(
        read(&root, "f.py"),
        "a\n    await foo()\n    await bar()\nb\n"
    );
}

#[test]
fn indentation_tolerance_reindents_when_the_block_starts_at_the_line() {
    let (_t, root) = setup(&[("f.py", "a\n    foo()\n    bar()\nb\n")]);
    let r = api::patch_file(
        &json!({"file_path": "f.py", "search": "  foo()\n  bar()", "replace": "  await foo()\n  x = bar()",
                "match": ["indentation"]}),
        Some(&opts(&root)),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(
        read(&root, "f.py"),
        "a\n    await foo()\n    x = bar()\nb\n"
    );
}

// ---- `match` with `expected_replacements` ----

const CRLF: &str = "a = 1\r\nb = 2\r\nc = 3\r\n";

fn crlf_edit(extra: Value) -> Value {
    let mut e = json!({"file_path": "f.txt", "search": "a = 1\nb = 2\n", "replace": "a = 1\nb = 20\n",
                       "match": ["line_endings"]});
    for (k, v) in extra.as_object().unwrap() {
        e[k] = v.clone();
    }
    e
}

#[test]
fn match_applies_the_same_with_expected_replacements_1() {
    let (_t, implicit) = setup(&[("f.txt", CRLF)]);
    let a = api::patch_file(&crlf_edit(json!({})), Some(&opts(&implicit)));
    assert_eq!(a["ok"], true, "{a}");
    let (_t2, explicit) = setup(&[("f.txt", CRLF)]);
    let b = api::patch_file(
        &crlf_edit(json!({"expected_replacements": 1})),
        Some(&opts(&explicit)),
    );
    assert_eq!(b["ok"], true, "{b}");
    assert_eq!(read(&explicit, "f.txt"), "a = 1\r\nb = 20\r\nc = 3\r\n");
    assert_eq!(read(&explicit, "f.txt"), read(&implicit, "f.txt"));
    for k in ["matched_with", "original_text", "replacements"] {
        assert_eq!(a[k], b[k], "{k}");
    }
    assert_eq!(b["matched_with"], json!(["line_endings"]));
}

#[test]
fn match_with_a_count_above_1_refuses_clearly() {
    // Two places that match only with the tolerance: not applied, and the
    // message says why (never a silent exact-only count).
    let text = "a = 1\r\nb = 2\r\nx\r\na = 1\r\nb = 2\r\n";
    let (_t, root) = setup(&[("f.txt", text)]);
    let r = api::patch_file(
        &crlf_edit(json!({"expected_replacements": 2})),
        Some(&opts(&root)),
    );
    assert_eq!(r["ok"], false, "{r}");
    let msg = r["message"].as_str().unwrap();
    assert!(msg.contains("`match`"), "{msg}");
    assert!(
        msg.contains("2 times") && msg.contains("lines 1, 4"),
        "{msg}"
    );
    assert!(!msg.contains("(lines )"), "{msg}");
    assert_eq!(read(&root, "f.txt"), text);
    // Same with replace_all.
    let r = api::patch_file(&crlf_edit(json!({"replace_all": true})), Some(&opts(&root)));
    assert_eq!(r["ok"], false, "{r}");
    assert!(r["message"].as_str().unwrap().contains("`match`"), "{r}");
    assert_eq!(read(&root, "f.txt"), text);
    // An exact count that is met needs no tolerance and applies.
    let exact = "q\nq\n";
    let (_t, root) = setup(&[("g.txt", exact)]);
    let r = api::patch_file(
        &json!({"file_path": "g.txt", "search": "q", "replace": "Q", "expected_replacements": 2,
                "match": ["line_endings"]}),
        Some(&opts(&root)),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(read(&root, "g.txt"), "Q\nQ\n");
}

#[test]
fn count_mismatch_messages_never_print_an_empty_line_list() {
    let (_t, root) = setup(&[("f.txt", "a\r\nb\r\n")]);
    for count in [1, 2] {
        let r = api::patch_file(
            &json!({"file_path": "f.txt", "search": "zz", "replace": "y", "expected_replacements": count,
                    "match": ["line_endings"]}),
            Some(&opts(&root)),
        );
        assert_eq!(r["ok"], false, "{r}");
        assert!(!r["message"].as_str().unwrap().contains("(lines )"), "{r}");
    }
}

// ---- SEARCH/REPLACE: the path line ----

fn paths(t: &str) -> Vec<(String, usize)> {
    let p = edit_block::parse(t).unwrap();
    p.ops
        .iter()
        .map(|o| {
            let n = match &o.action {
                FileAction::Write {
                    changes: Changes::Blocks(b),
                    ..
                } => b.len(),
                _ => 0,
            };
            (o.path.clone(), n)
        })
        .collect()
}

const BLOCK_X: &str = "<<<<<<< SEARCH\nx\n=======\nX\n>>>>>>> REPLACE\n";
const BLOCK_Y: &str = "<<<<<<< SEARCH\ny\n=======\nY\n>>>>>>> REPLACE\n";

#[test]
fn edit_block_prose_and_ellipsis_lines_are_never_paths() {
    for between in [
        "\nThen update the second line:\n\n",
        "\nThen update the second line:\n",
        "Then update the second line.\n",
        "...\n",
        "\n...\n",
        "…\n",
        "\n",
        "Next, `y` becomes `Y`\n```\n",
        "I will also change the next line in the same file\n",
    ] {
        let t = format!("a.txt\n{BLOCK_X}{between}{BLOCK_Y}");
        assert_eq!(
            paths(&t),
            vec![("a.txt".to_string(), 2)],
            "{between:?} must not be a path"
        );
    }
    // A path separated from its block by a blank line is no path either.
    let t = format!("a.txt\n{BLOCK_X}b.txt\n\n{BLOCK_Y}");
    assert_eq!(paths(&t), vec![("a.txt".to_string(), 2)]);
    // Paths still work: plain, decorated, before a fence, as its first line.
    let t = format!(
        "a.txt\n{BLOCK_X}\nSome prose.\n\n**b.txt**\n{BLOCK_Y}c d/e f.txt\n```\n{BLOCK_X}```\n```python\nsrc/g.py:\n{BLOCK_Y}```\n"
    );
    assert_eq!(
        paths(&t),
        vec![
            ("a.txt".to_string(), 1),
            ("b.txt".to_string(), 1),
            ("c d/e f.txt".to_string(), 1),
            ("src/g.py".to_string(), 1)
        ]
    );
}

#[test]
fn edit_block_first_block_without_a_path_names_its_line() {
    for (t, line) in [
        (format!("Here is the change:\n{BLOCK_X}"), 2),
        (format!("a.txt\n\n{BLOCK_X}"), 3),
        (format!("a.txt\n\n```\n{BLOCK_X}```\n"), 4),
        (format!("...\n{BLOCK_X}"), 2),
    ] {
        let e = edit_block::parse(&t).unwrap_err();
        assert_eq!(e.line, line, "{t:?}: {}", e.message);
        assert!(e.message.contains(&format!("line {line}")), "{}", e.message);
    }
}

#[test]
fn edit_block_prose_never_edits_a_file_named_like_it() {
    let prose = "Then update the second line";
    let (_t, root) = setup(&[("a.txt", "x\ny\n"), (prose, "y\n")]);
    let text = format!("a.txt\n{BLOCK_X}\n{prose}:\n\n{BLOCK_Y}");
    let r = api::apply_edit_blocks(&json!(text), Some(&opts(&root)));
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(read(&root, "a.txt"), "X\nY\n");
    assert_eq!(read(&root, prose), "y\n");
    // Directly before the block: still prose, still the previous file.
    let (_t, root) = setup(&[("a.txt", "x\ny\n"), (prose, "y\n")]);
    let text = format!("a.txt\n{BLOCK_X}{prose}:\n{BLOCK_Y}");
    let r = api::apply_edit_blocks(&json!(text), Some(&opts(&root)));
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(read(&root, "a.txt"), "X\nY\n");
    assert_eq!(read(&root, prose), "y\n");
    // `...` between blocks: no FILE_READ_ERROR.
    let (_t, root) = setup(&[("a.txt", "x\ny\n")]);
    let text = format!("a.txt\n{BLOCK_X}...\n{BLOCK_Y}");
    let r = api::apply_edit_blocks(&json!(text), Some(&opts(&root)));
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(read(&root, "a.txt"), "X\nY\n");
    // A first block with no path: PATCH_PARSE_ERROR, nothing written.
    let (_t, root) = setup(&[("a.txt", "x\ny\n"), (prose, "x\n")]);
    let text = format!("{prose}:\n{BLOCK_X}");
    let r = api::apply_edit_blocks(&json!(text), Some(&opts(&root)));
    assert_eq!(r["code"], "PATCH_PARSE_ERROR", "{r}");
    assert_eq!(r["line"], 2, "{r}");
    assert_eq!(read(&root, prose), "x\n");
}

// ---- Codex: a pure addition at the end of the file ----

fn codex(root: &Path, body: &str) -> Value {
    let patch = format!("*** Begin Patch\n*** Update File: f.txt\n{body}*** End Patch\n");
    api::apply_patch(&json!(patch), Some(&opts(root)))
}

#[test]
fn codex_append_chunk_does_not_move_the_search_position() {
    let (_t, root) = setup(&[("f.txt", "a\nb\n")]);
    let r = codex(&root, "@@\n+z\n@@\n-a\n+A\n");
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(read(&root, "f.txt"), "A\nb\nz\n");
    // Two appending chunks, in order, around a change.
    let (_t, root) = setup(&[("f.txt", "a\nb\n")]);
    let r = codex(&root, "@@\n+z\n@@\n-a\n+A\n@@\n+w\n@@\n-b\n+B\n");
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(read(&root, "f.txt"), "A\nB\nz\nw\n");
}

/// A not-found edit sent with `match` is not told to resend with the
/// tolerances it was sent with: the retry would fail the same way.
#[test]
fn a_not_found_edit_is_not_told_to_resend_the_match_it_was_sent_with() {
    let (_t, root) = setup(&[("a.txt", "a\r\nfoo\r\nb\r\n")]);
    let edit = |m: Value| {
        api::patch_file(
            &json!({"file_path": "a.txt", "search_block": "\nfoo\n", "replace_block": "\nbar\n", "match": m}),
            Some(&opts(&root)),
        )
    };
    let r = edit(json!(["line_endings"]));
    assert_eq!(r["code"], "SEARCH_BLOCK_NOT_FOUND", "{r}");
    let m = r["message"].as_str().unwrap();
    assert!(!m.contains("resend the same edit with match"), "{m}");
    assert!(m.contains("closest_match.text"), "{m}");
    // Sent exact, the same edit is told which tolerance would find it.
    let r = edit(json!("exact"));
    assert_eq!(r["code"], "SEARCH_BLOCK_NOT_FOUND", "{r}");
    assert_eq!(read(&root, "a.txt"), "a\r\nfoo\r\nb\r\n");
}

/// A path that ends with a separator names a directory: creating it is
/// refused as bad input (`INVALID_INPUT`), not as a file that cannot be
/// read, whether it exists or not.
#[test]
fn a_new_path_ending_with_a_separator_is_invalid_input() {
    let (_t, root) = setup(&[("a.txt", "a\n")]);
    for p in ["new/", "sub/new.txt/", "a.txt/"] {
        let r = api::write_file(&json!({"file_path": p, "content": "x"}), Some(&opts(&root)));
        assert_eq!(r["code"], "INVALID_INPUT", "{p}: {r}");
        assert!(
            r["message"].as_str().unwrap().contains("names a directory"),
            "{p}: {r}"
        );
    }
    assert!(!root.join("new").exists() && !root.join("sub").exists());
}
