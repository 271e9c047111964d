//! Diagnosis runs for failed edits only: every entry point that writes new
//! text, landing edits found exactly and under each tolerance (the tolerant
//! guard asks `likeness`, never `diagnose`), runs no diagnosis; a failed edit
//! runs one. Diagnoses are counted on the calling thread, where each entry
//! point runs.

use std::fs;
use std::path::Path;

use serde_json::{json, Value};

use super::{
    apply_edit_blocks, apply_patch, batch_patch_files, edit_file, patch_file, text_editor,
    write_file,
};
use crate::diagnose::testutil::runs;

fn opts(root: &Path) -> Value {
    json!({ "workspaceRoot": root, "durable": false, "journal": false })
}

/// `r` landed, and no diagnosis has run on this thread.
fn landed(what: &str, r: Value) {
    assert_eq!(r["ok"], true, "{what}: {r}");
    assert_eq!(runs(), 0, "{what} ran a diagnosis: {r}");
}

const FILE: &str = "fn main() {\n    let name = \"world\";   \n    println!(\"hello {name}\");\n    if name.is_empty() {\n        return;\n    }\n}\n";

#[test]
fn no_diagnosis_runs_for_an_edit_that_lands() {
    let t = tempfile::tempdir().unwrap();
    let (root, o) = (t.path(), opts(t.path()));
    let reset = |name: &str, text: &str| fs::write(root.join(name), text).unwrap();
    assert_eq!(runs(), 0);
    reset("f.rs", FILE);
    landed(
        "exact",
        patch_file(
            &json!({"file_path": "f.rs", "search": "        return;", "replace": "        return;\n        // empty"}),
            Some(&o),
        ),
    );
    reset("f.rs", FILE);
    let tolerant = [
        (
            "line_endings",
            FILE.replace('\n', "\r\n"),
            "    if name.is_empty() {\n        return;\n",
        ),
        (
            "trailing_whitespace",
            FILE.to_string(),
            "    let name = \"world\";\n    println!",
        ),
        (
            "indentation",
            FILE.to_string(),
            "if name.is_empty() {\n    return;\n}",
        ),
        (
            "unicode_punctuation",
            FILE.to_string(),
            "    let name = \u{201c}world\u{201d};",
        ),
    ];
    for (tolerance, file, search) in tolerant {
        reset("f.rs", &file);
        let r = patch_file(
            &json!({"file_path": "f.rs", "search": search, "replace": format!("// x\n{search}"), "match": [tolerance]}),
            Some(&o),
        );
        assert_eq!(r["matched_with"][0], tolerance, "{r}");
        landed(tolerance, r);
    }
    // An exact one-line search whose new lines take the file's CRLF.
    reset("f.rs", &FILE.replace('\n', "\r\n"));
    landed(
        "re-ended",
        patch_file(
            &json!({"file_path": "f.rs", "search": "        return;", "replace": "        return;\n        // x", "match": ["line_endings"]}),
            Some(&o),
        ),
    );
}

#[test]
fn no_diagnosis_runs_for_an_edit_of_another_format_that_lands() {
    let t = tempfile::tempdir().unwrap();
    let (root, o) = (t.path(), opts(t.path()));
    let reset = |name: &str, text: &str| fs::write(root.join(name), text).unwrap();
    reset("f.rs", FILE);
    landed(
        "edits[]",
        patch_file(
            &json!({"file_path": "f.rs", "edits": [{"search": "fn main()", "replace": "fn run()"}, {"search": "return;", "replace": "return ();"}]}),
            Some(&o),
        ),
    );
    reset("f.rs", FILE);
    landed(
        "batch",
        batch_patch_files(
            &json!({"files": [{"file_path": "f.rs", "search": "fn main()", "replace": "fn run()"}]}),
            Some(&o),
        ),
    );
    reset("f.rs", FILE);
    landed(
        "blocks",
        apply_edit_blocks(
            &json!("f.rs\n<<<<<<< SEARCH\n        return;\n=======\n        return ();\n>>>>>>> REPLACE\n"),
            Some(&o),
        ),
    );
    reset("f.rs", FILE);
    landed(
        "codex, hunk found with its indentation forgiven",
        apply_patch(&json!("*** Begin Patch\n*** Update File: f.rs\n@@\n if name.is_empty() {\n-    return;\n+    return ();\n }\n*** End Patch\n"), Some(&o)),
    );
    reset("f.rs", FILE);
    landed(
        "unified diff",
        apply_patch(&json!("--- a/f.rs\n+++ b/f.rs\n@@ -4,3 +4,3 @@\n     if name.is_empty() {\n-        return;\n+        return ();\n     }\n"), Some(&o)),
    );
    reset("f.rs", FILE);
    landed(
        "text editor",
        text_editor(
            &json!({"command": "str_replace", "path": "f.rs", "old_str": "fn main()", "new_str": "fn run()"}),
            Some(&o),
        ),
    );
    reset("f.rs", FILE);
    landed(
        "editFile",
        edit_file(
            &json!({"path": "f.rs", "edits": [{"oldText": "fn main()", "newText": "fn run()"}]}),
            Some(&o),
        ),
    );
    landed(
        "writeFile",
        write_file(&json!({"file_path": "f.rs", "content": FILE}), Some(&o)),
    );
}

#[test]
fn a_failed_edit_runs_a_diagnosis() {
    let t = tempfile::tempdir().unwrap();
    let o = opts(t.path());
    fs::write(t.path().join("f.rs"), FILE).unwrap();
    // Not found, then ambiguous: the count sees each.
    let r = patch_file(
        &json!({"file_path": "f.rs", "search": "fn mian()", "replace": "x"}),
        Some(&o),
    );
    assert_eq!(r["code"], "SEARCH_BLOCK_NOT_FOUND", "{r}");
    assert_eq!(runs(), 1);
    let r = patch_file(
        &json!({"file_path": "f.rs", "search": "    ", "replace": "x"}),
        Some(&o),
    );
    assert_eq!(r["code"], "SEARCH_BLOCK_AMBIGUOUS", "{r}");
    assert_eq!(runs(), 2);
}
