//! The compact view of a result (`options.results: "compact"`): each fact
//! once, in the fewest tokens a model reads back.
//!
//! A model pays for every byte of a tool's answer, and a success is read far
//! more often than any other answer. The full result (the JS API's default)
//! is for programs: sizes before and after, both hashes, absolute paths, how
//! the file was written. A model needs less: where the edit landed and the
//! hash its next call's `expected_sha256` takes. The compact view is the full
//! result with these changes, applied to the result and to every object
//! nested in it (the files of a batch, its edits):
//!
//! - `file_path` and `move_to` relative to the workspace root (the root
//!   itself is `.`), as the model named them;
//! - dropped: `sha256_before`, `before_chars`, `after_chars`, `before_bytes`,
//!   `after_bytes`; `replacements` when it is 1 (exact-once, the default);
//!   an `edits` list of one beside the `line_number` that says the same;
//!   `write_strategy` when it is `rename` (the default way; `in_place` and
//!   its reason stay, they tell the caller something); an empty
//!   `matched_with` (the edit matched exactly, as an edit does unless told);
//! - a `closest_match` nested in a failure's parts (the failing file of a
//!   patch, its failing hunk) dropped when it is the one the failure itself
//!   gives;
//! - `path` (a file as the patch named it) dropped where it says what the
//!   relative `file_path` beside it says;
//! - each file's `diff` dropped when the result's own `diff` is theirs put
//!   together (a dry run of a patch, of an undo);
//! - `files` dropped when it is one file saying only what the result itself
//!   says (a dry run applied);
//! - `workspace_root` and `journal` (the history's absolute root, which
//!   every relative path already refers to, and where the journal is kept
//!   outside the workspace) dropped; `files_changed` relative, as
//!   `file_path` is;
//! - everything else kept, so a failure still carries every fact a retry
//!   needs (code, message, closest match, its lines and kinds).
//!
//! The view is made at this edge, once per call, from the result the layers
//! below built; it never changes what was written or decided.

use std::path::Path;

use serde_json::{Map, Value};

/// Fields a compact result never carries.
const DROPPED: [&str; 5] = [
    "sha256_before",
    "before_chars",
    "after_chars",
    "before_bytes",
    "after_bytes",
];

/// Every field the compact view may leave out of a result (or of an object
/// in it) that the full result always has: the contract lists them, so the
/// schemas of compact results do not require them.
pub(super) const MAY_DROP: [&str; 14] = [
    DROPPED[0],
    DROPPED[1],
    DROPPED[2],
    DROPPED[3],
    DROPPED[4],
    "replacements",
    "edits",
    "write_strategy",
    "closest_match",
    "path",
    "diff",
    "files",
    "workspace_root",
    "journal",
];

/// Fields holding a path, made relative to the workspace root.
const PATHS: [&str; 2] = ["file_path", "move_to"];

/// Fields holding a list of paths, each made relative to the workspace root.
const PATH_LISTS: [&str; 1] = ["files_changed"];

/// Top-level fields a compact result never carries: the workspace root every
/// path is relative to, and where the journal is kept (outside the workspace).
const DROPPED_AT_TOP: [&str; 2] = ["workspace_root", "journal"];

/// The compact view of `result`, for a workspace whose root is `root`
/// (as the caller gave it; its real path is tried too).
pub(super) fn compact(mut result: Value, root: &Path) -> Value {
    let real = std::fs::canonicalize(root).ok();
    let roots: Vec<&str> = [Some(root), real.as_deref()]
        .into_iter()
        .flatten()
        .filter_map(Path::to_str)
        .map(|r| r.trim_end_matches('/'))
        .collect();
    shrink(&mut result, &roots);
    if let Value::Object(m) = &mut result {
        for key in DROPPED_AT_TOP {
            m.remove(key);
        }
        drop_file_diffs(m);
        drop_repeated_file(m);
    }
    if let Some(top) = result.get("closest_match").cloned() {
        if let Value::Object(m) = &mut result {
            for (key, child) in m.iter_mut() {
                if key != "closest_match" {
                    drop_repeated(child, &top);
                }
            }
        }
    }
    result
}

/// Removes each file's `diff` when the result's own `diff` is all of them
/// put together, in order.
fn drop_file_diffs(m: &mut Map<String, Value>) {
    let Some(Value::String(whole)) = m.get("diff") else {
        return;
    };
    let Some(Value::Array(files)) = m.get("files") else {
        return;
    };
    let mut joined = String::new();
    for f in files {
        match f.get("diff") {
            Some(Value::String(d)) => joined.push_str(d),
            _ => return,
        }
    }
    if joined != *whole {
        return;
    }
    if let Some(Value::Array(files)) = m.get_mut("files") {
        for f in files.iter_mut().filter_map(Value::as_object_mut) {
            f.remove("diff");
        }
    }
}

/// Removes `files` when it is one file every field of which the result
/// itself gives with the same value.
fn drop_repeated_file(m: &mut Map<String, Value>) {
    let repeated = match m.get("files").and_then(Value::as_array).map(Vec::as_slice) {
        Some([Value::Object(f)]) => !f.is_empty() && f.iter().all(|(k, v)| m.get(k) == Some(v)),
        _ => false,
    };
    if repeated {
        m.remove("files");
    }
}

/// Removes every `closest_match` equal to `top` from `v` and below.
fn drop_repeated(v: &mut Value, top: &Value) {
    match v {
        Value::Object(m) => {
            if m.get("closest_match") == Some(top) {
                m.remove("closest_match");
            }
            for (_, child) in m.iter_mut() {
                drop_repeated(child, top);
            }
        }
        Value::Array(items) => {
            for item in items {
                drop_repeated(item, top);
            }
        }
        _ => {}
    }
}

/// Applies the compact rules to `v` and everything nested in it.
fn shrink(v: &mut Value, roots: &[&str]) {
    match v {
        Value::Object(m) => {
            shrink_object(m, roots);
            for (_, child) in m.iter_mut() {
                shrink(child, roots);
            }
        }
        Value::Array(items) => {
            for item in items {
                shrink(item, roots);
            }
        }
        _ => {}
    }
}

fn shrink_object(m: &mut Map<String, Value>, roots: &[&str]) {
    for key in DROPPED {
        m.remove(key);
    }
    if m.get("replacements").and_then(Value::as_u64) == Some(1) {
        m.remove("replacements");
    }
    if m.contains_key("line_number")
        && m.get("edits").and_then(Value::as_array).map(Vec::len) == Some(1)
    {
        m.remove("edits");
    }
    if m.get("matched_with")
        .and_then(Value::as_array)
        .is_some_and(Vec::is_empty)
    {
        m.remove("matched_with");
    }
    if m.get("write_strategy").and_then(Value::as_str) == Some("rename") {
        m.remove("write_strategy");
    }
    for key in PATHS {
        if let Some(Value::String(p)) = m.get_mut(key) {
            if let Some(rel) = relative(p, roots) {
                *p = rel;
            }
        }
    }
    for key in PATH_LISTS {
        if let Some(Value::Array(items)) = m.get_mut(key) {
            for item in items {
                if let Value::String(p) = item {
                    if let Some(rel) = relative(p, roots) {
                        *p = rel;
                    }
                }
            }
        }
    }
    if m.contains_key("file_path") && m.get("path") == m.get("file_path") {
        m.remove("path");
    }
}

/// `path` relative to the first of `roots` it lies in (`.` for a root
/// itself); `None` for a path outside them all.
fn relative(path: &str, roots: &[&str]) -> Option<String> {
    roots.iter().find_map(|root| {
        let rest = path.strip_prefix(root)?;
        // The root `/` was trimmed to "": every absolute path is in it.
        let rest = if rest.is_empty() || root.is_empty() {
            rest
        } else {
            rest.strip_prefix('/')?
        };
        let rest = rest.trim_start_matches('/');
        Some(if rest.is_empty() { "." } else { rest }.to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn full_success(root: &str) -> Value {
        json!({
            "ok": true, "file_path": format!("{root}/src/a.ts"), "replacements": 1, "line_number": 7,
            "before_chars": 10, "after_chars": 11, "before_bytes": 10, "after_bytes": 11,
            "edits": [{"line_number": 7, "replacements": 1}],
            "sha256_before": "a".repeat(64), "sha256": "b".repeat(64), "write_strategy": "rename",
            "matched_with": [],
        })
    }

    #[test]
    fn a_success_keeps_where_it_landed_and_the_new_hash() {
        let v = compact(
            full_success("/nonexistent/ws"),
            Path::new("/nonexistent/ws"),
        );
        assert_eq!(
            v,
            json!({"ok": true, "file_path": "src/a.ts", "line_number": 7, "sha256": "b".repeat(64)})
        );
    }

    #[test]
    fn facts_that_say_something_stay() {
        let mut r = full_success("/nonexistent/ws");
        r["replacements"] = json!(3);
        r["edits"] =
            json!([{"line_number": 7, "replacements": 2}, {"line_number": 9, "replacements": 1}]);
        r["write_strategy"] = json!("in_place");
        r["matched_with"] = json!(["line_endings"]);
        r["write_strategy_reason"] = json!("the file has ACLs");
        let v = compact(r, Path::new("/nonexistent/ws/"));
        assert_eq!(v["replacements"], 3);
        assert_eq!(
            v["edits"],
            json!([{"line_number": 7, "replacements": 2}, {"line_number": 9}])
        );
        assert_eq!(v["write_strategy"], "in_place");
        assert_eq!(v["matched_with"], json!(["line_endings"]));
        assert_eq!(v["write_strategy_reason"], "the file has ACLs");
    }

    #[test]
    fn a_failure_keeps_its_diagnosis_and_nested_paths_are_relative() {
        let closest =
            json!({"text": "/nonexistent/ws/x", "start_line": 3, "kinds": ["whitespace"]});
        let r = json!({
            "ok": false, "code": "SEARCH_BLOCK_NOT_FOUND", "message": "m",
            "file_path": "/nonexistent/ws/a.ts", "match_count": 0, "closest_match": closest,
            "files": [{"file_path": "/nonexistent/ws", "move_to": "/nonexistent/ws/d/b.ts"},
                      {"file_path": "/nonexistent/wsx/c.ts"}, {"file_path": "/elsewhere/c.ts"}],
        });
        let v = compact(r, Path::new("/nonexistent/ws"));
        assert_eq!(v["file_path"], "a.ts");
        assert_eq!(v["closest_match"], closest, "text is never rewritten");
        assert_eq!(v["files"][0]["file_path"], ".");
        assert_eq!(v["files"][0]["move_to"], "d/b.ts");
        assert_eq!(
            v["files"][1]["file_path"], "/nonexistent/wsx/c.ts",
            "a sibling is not inside"
        );
        assert_eq!(v["files"][2]["file_path"], "/elsewhere/c.ts");
    }

    #[test]
    fn a_closest_match_is_given_once() {
        let cm = json!({"line_number": 1, "end_line": 2, "text": "def f():\n"});
        let other = json!({"line_number": 9, "end_line": 9, "text": "x\n"});
        let r = json!({
            "ok": false, "code": "SEARCH_BLOCK_NOT_FOUND", "closest_match": cm,
            "failures": [
                {"index": 0, "closest_match": cm, "hunks": [{"index": 0, "closest_match": cm}, {"index": 1, "closest_match": other}]},
            ],
        });
        let v = compact(r, Path::new("/nonexistent/ws"));
        assert_eq!(v["closest_match"], cm);
        assert!(v["failures"][0].get("closest_match").is_none());
        assert!(v["failures"][0]["hunks"][0].get("closest_match").is_none());
        assert_eq!(v["failures"][0]["hunks"][1]["closest_match"], other);
    }

    #[test]
    fn the_real_root_is_tried_when_the_given_one_is_a_link() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real");
        std::fs::create_dir(&real).unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let real = std::fs::canonicalize(&real).unwrap();
        let r = json!({"ok": true, "file_path": real.join("a.txt").to_str().unwrap()});
        assert_eq!(compact(r, &link)["file_path"], "a.txt");
    }

    #[test]
    fn a_patch_file_named_as_it_resolved_is_named_once() {
        let r = json!({"ok": true, "files": [
            {"path": "a.txt", "file_path": "/nonexistent/ws/a.txt", "action": "update"},
            {"path": "./b.txt", "file_path": "/nonexistent/ws/b.txt", "action": "update"},
        ]});
        let v = compact(r, Path::new("/nonexistent/ws"));
        assert_eq!(
            v["files"],
            json!([{"file_path": "a.txt", "action": "update"},
                   {"path": "./b.txt", "file_path": "b.txt", "action": "update"}])
        );
    }

    #[test]
    fn a_dry_run_gives_its_diff_once() {
        let r = json!({"ok": true, "dry_run": true, "diff": "d1d2", "files": [
            {"file_path": "/nonexistent/ws/a", "diff": "d1"}, {"file_path": "/nonexistent/ws/b", "diff": "d2"}]});
        let v = compact(r, Path::new("/nonexistent/ws"));
        assert_eq!(v["diff"], "d1d2");
        assert_eq!(v["files"], json!([{"file_path": "a"}, {"file_path": "b"}]));
        let r = json!({"ok": true, "diff": "d1", "files": [
            {"file_path": "a", "diff": "d1"}, {"file_path": "b", "diff_omitted": "too big"}]});
        let v = compact(r, Path::new("/nonexistent/ws"));
        assert_eq!(v["files"][0]["diff"], "d1", "not the whole diff: kept");
    }

    #[test]
    fn one_file_repeating_the_result_is_dropped() {
        let sha = "b".repeat(64);
        let r = json!({"ok": true, "run_id": "dr_x", "file_path": "/nonexistent/ws/a", "created": false, "sha256": sha,
                       "files": [{"file_path": "/nonexistent/ws/a", "created": false, "sha256": sha}]});
        let v = compact(r, Path::new("/nonexistent/ws"));
        assert_eq!(
            v,
            json!({"ok": true, "run_id": "dr_x", "file_path": "a", "created": false, "sha256": sha})
        );
        let r = json!({"ok": true, "file_path": "/nonexistent/ws/a",
                       "files": [{"file_path": "/nonexistent/ws/a"}, {"file_path": "/nonexistent/ws/b"}]});
        assert_eq!(
            compact(r, Path::new("/nonexistent/ws"))["files"]
                .as_array()
                .map(Vec::len),
            Some(2)
        );
    }

    #[test]
    fn history_and_undo_name_files_relative_to_the_root_only() {
        let r = json!({"ok": true, "workspace_root": "/nonexistent/ws", "journal": "/state/journal/x",
                       "enabled": true, "transactions": []});
        assert_eq!(
            compact(r, Path::new("/nonexistent/ws")),
            json!({"ok": true, "enabled": true, "transactions": []})
        );
        let r = json!({"ok": false, "code": "FILE_CHANGED", "message": "m", "file_path": "/nonexistent/ws/a",
                       "files_changed": ["/nonexistent/ws/a", "/nonexistent/ws/d/b"]});
        let v = compact(r, Path::new("/nonexistent/ws"));
        assert_eq!(v["files_changed"], json!(["a", "d/b"]));
    }

    #[test]
    fn the_filesystem_root_as_workspace() {
        let r = json!({"ok": true, "file_path": "/etc/hosts"});
        assert_eq!(compact(r, Path::new("/"))["file_path"], "etc/hosts");
    }
}
