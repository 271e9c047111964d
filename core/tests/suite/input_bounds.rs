//! What a caller sends is never echoed back without bound, nor compared at
//! a cost that grows with it: an unknown field with a name of megabytes,
//! or a hundred thousand unknown fields, is refused (`INVALID_INPUT`) with
//! a message of a few hundred bytes, at a cost bounded per field (the
//! nearest known name is looked for only among names of about its length,
//! with a banded edit distance: `input::fields` counts the cells in its unit
//! tests); so is every value a message quotes (an enum value, a
//! transaction id, a command, a path).
//!
//! Each call runs on a thread that must answer within a minute (before,
//! a 4 M-character name took 44 s and 750 MB in a release build), so a
//! regression fails here instead of hanging the run. Timings are in
//! `examples/unknown_fields.rs`.

use std::sync::mpsc;
use std::time::Duration;

use patch_file_core::api;
use serde_json::{json, Map, Value};

/// The most a refusal's message may take, in bytes.
const MESSAGE_BYTES: usize = 2048;

fn answers(what: &str, f: impl FnOnce() -> Value + Send + 'static) -> Value {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(60))
        .unwrap_or_else(|_| panic!("{what} did not answer within a minute"))
}

fn opts(root: &std::path::Path) -> Value {
    json!({"workspaceRoot": root, "durable": false, "journal": false})
}

/// `r` is an `INVALID_INPUT` whose message is short; returns the message.
fn refused_briefly(what: &str, r: &Value) -> String {
    assert_eq!(r["code"], "INVALID_INPUT", "{what}: {}", brief(r));
    let m = r["message"].as_str().unwrap().to_string();
    assert!(
        m.len() <= MESSAGE_BYTES,
        "{what}: a message of {} bytes: {}…",
        m.len(),
        m.chars().take(300).collect::<String>()
    );
    m
}

fn brief(r: &Value) -> String {
    r.to_string().chars().take(300).collect()
}

fn ws() -> (tempfile::TempDir, std::path::PathBuf) {
    let t = tempfile::tempdir().unwrap();
    let root = t.path().canonicalize().unwrap();
    std::fs::write(root.join("a.txt"), "one\n").unwrap();
    (t, root)
}

fn patch_with(extra: Map<String, Value>) -> Value {
    let mut input = json!({"file_path": "a.txt", "search": "one", "replace": "two"});
    input.as_object_mut().unwrap().extend(extra);
    input
}

#[test]
fn a_four_million_character_field_name_is_refused_briefly() {
    let (_t, root) = ws();
    let name = "q".repeat(4_000_000);
    let mut extra = Map::new();
    extra.insert(name, json!(1));
    let input = patch_with(extra);
    let o = opts(&root);
    let r = answers("patchFile", move || api::patch_file(&input, Some(&o)));
    let m = refused_briefly("patchFile", &r);
    assert!(m.contains("qqqq"), "the name is shown, cut: {m}");
    assert!(m.contains("4000000 characters"), "{m}");
    assert_eq!(std::fs::read(root.join("a.txt")).unwrap(), b"one\n");
    // A long name that differs from a known one by a slip is still named
    // (and one that is a known name plus millions of characters is not).
    let mut near = Map::new();
    near.insert("serach".into(), json!("one"));
    near.insert(format!("replace{}", "e".repeat(4_000_000)), json!(1));
    let input = json!({"file_path": "a.txt", "replace": "two"});
    let mut input = input.as_object().unwrap().clone();
    input.extend(near);
    let input = Value::Object(input);
    let o = opts(&root);
    let r = answers("patchFile", move || api::patch_file(&input, Some(&o)));
    let m = refused_briefly("patchFile", &r);
    assert!(m.contains("`serach` (did you mean `search`?)"), "{m}");
}

#[test]
fn a_hundred_and_twenty_thousand_unknown_fields_are_refused_briefly() {
    let (_t, root) = ws();
    let mut extra = Map::new();
    for i in 0..120_000 {
        extra.insert(format!("zq{i:06}"), json!(i));
    }
    let input = patch_with(extra);
    let o = opts(&root);
    let r = answers("patchFile", move || api::patch_file(&input, Some(&o)));
    let m = refused_briefly("patchFile", &r);
    assert!(m.contains("`zq000000`"), "the first are named: {m}");
    assert!(m.contains("119992 more"), "the rest are counted: {m}");
    // The same through the options object and the text editor, which read
    // their fields the same way.
    let mut o = opts(&root);
    for i in 0..120_000 {
        o[format!("zq{i:06}")] = json!(true);
    }
    let r = answers("options", move || {
        api::patch_file(
            &json!({"file_path": "a.txt", "search": "one", "replace": "two"}),
            Some(&o),
        )
    });
    refused_briefly("options", &r);
    let mut input = json!({"command": "view", "path": "a.txt"});
    for i in 0..120_000 {
        input[format!("zq{i:06}")] = json!(1);
    }
    input[format!("x{}", "y".repeat(4_000_000))] = json!(1);
    let o = opts(&root);
    let r = answers("textEditor", move || api::text_editor(&input, Some(&o)));
    let m = refused_briefly("textEditor", &r);
    assert!(m.contains("more"), "{m}");
}

#[test]
fn values_quoted_in_refusals_are_cut() {
    let (_t, root) = ws();
    let big = "v".repeat(1_000_000);
    let o = opts(&root);
    let with = |k: &str| {
        let mut o = o.clone();
        o[k] = json!(big);
        o
    };
    let ok_input = json!({"file_path": "a.txt", "search": "one", "replace": "two"});
    let mut cases: Vec<(&str, Value)> = vec![
        (
            "hardLinks",
            api::patch_file(&ok_input, Some(&with("hardLinks"))),
        ),
        (
            "results",
            api::patch_file(&ok_input, Some(&with("results"))),
        ),
        (
            "match",
            api::patch_file(
                &json!({"file_path": "a.txt", "search": "one", "replace": "two", "match": big}),
                Some(&o),
            ),
        ),
        (
            "match list",
            api::patch_file(
                &json!({"file_path": "a.txt", "search": "one", "replace": "two", "match": [big]}),
                Some(&o),
            ),
        ),
        ("undo id", {
            // A journal with one entry, so that the id is read.
            let j = root.join(".journal");
            let mut o = o.clone();
            o["journal"] = json!({"dir": j});
            assert_eq!(api::patch_file(&ok_input, Some(&o))["ok"], true);
            api::undo(&json!({"id": big}), Some(&o))
        }),
        (
            "textEditor command",
            api::text_editor(&json!({"command": big, "path": "a.txt"}), Some(&o)),
        ),
        (
            "run_id",
            api::apply_dry_run(&json!({ "run_id": big }), Some(&o)),
        ),
        (
            "editFile field",
            api::edit_file(
                &json!({"path": "a.txt", "edits": [], big.clone(): 1}),
                Some(&o),
            ),
        ),
    ];
    // A path is quoted by every refusal that names the file.
    let long_path = format!("{}/x.txt", "d".repeat(1_000_000));
    cases.push((
        "path (patchFile)",
        api::patch_file(
            &json!({"file_path": long_path, "search": "one", "replace": "two"}),
            Some(&o),
        ),
    ));
    cases.push((
        "path (readFile)",
        api::read_file(&json!({"file_path": long_path}), Some(&o)),
    ));
    let long: Vec<String> = cases
        .drain(..)
        .filter_map(|(what, r)| {
            assert_eq!(r["ok"], false, "{what}");
            let m = r["message"].as_str().unwrap();
            eprintln!("{what}: {}", m.chars().take(200).collect::<String>());
            // The whole answer, not only its message (a path came back whole in `file_path`).
            let all = r.to_string().len();
            (all > 2 * MESSAGE_BYTES).then(|| format!("{what}: {} bytes", all))
        })
        .collect();
    assert!(
        long.is_empty(),
        "answers over {} bytes: {long:?}",
        2 * MESSAGE_BYTES
    );
}

/// A count past 2^53 (`1e20`, which the schemas allow) reads as "past
/// anything": a read's `limit` to the end, its `offset` past it. Both were
/// refused as not a whole number.
#[test]
fn a_huge_count_is_past_anything() {
    let (_t, root) = ws();
    std::fs::write(root.join("a.txt"), "one\ntwo\n").unwrap();
    let r = api::read_file(
        &json!({"file_path": "a.txt", "limit": 1e20}),
        Some(&opts(&root)),
    );
    assert_eq!(r["content"], "one\ntwo\n", "{r}");
    let r = api::read_file(
        &json!({"file_path": "a.txt", "offset": 1e20}),
        Some(&opts(&root)),
    );
    assert_eq!(r["ok"], true, "past the end reads nothing: {r}");
}
