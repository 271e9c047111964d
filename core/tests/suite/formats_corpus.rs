//! The edit-format corpus (`__test__/fixtures/patches/`, see its README):
//! every case's input tree, text or commands, and expected tree or failure
//! code (with the parse-error line, match lines and tolerance levels where
//! given), run through the engine's entry points. Every case is run and all
//! mismatches are reported together.

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use patch_file_core::api as editor;
use patch_file_core::api as file_ops;
use serde_json::{json, Value};

use common::Tree;

const FORMATS: [&str; 4] = ["apply_patch", "unified_diff", "edit_blocks", "text_editor"];
/// Cases each format must have.
const MIN_CASES: usize = 40;

fn corpus() -> PathBuf {
    common::repo_root().join("__test__/fixtures/patches")
}

fn copy_tree(from: &Path, to: &Path) {
    for (rel, bytes) in common::tree(from) {
        let f = to.join(rel);
        std::fs::create_dir_all(f.parent().unwrap()).unwrap();
        std::fs::write(f, bytes).unwrap();
    }
}

fn show(t: &Tree) -> String {
    t.iter()
        .map(|(k, v)| format!("  {k}: {:?}", String::from_utf8_lossy(v)))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Whether every key of `want` is in `got` with an equal value.
fn subset(want: &Value, got: &Value) -> Result<(), String> {
    let Value::Object(w) = want else {
        return Err("expect must be an object".into());
    };
    for (k, v) in w {
        if got.get(k) != Some(v) {
            return Err(format!(
                "`{k}`: expected {v}, got {}",
                got.get(k).unwrap_or(&Value::Null)
            ));
        }
    }
    Ok(())
}

/// Runs one case; `Err` describes the mismatch.
fn run_case(format: &str, dir: &Path) -> Result<(), String> {
    let t = tempfile::tempdir().unwrap();
    let ws = t.path().join("ws");
    std::fs::create_dir(&ws).unwrap();
    let input = dir.join("input");
    copy_tree(&input, &ws);
    let opts = json!({ "workspaceRoot": ws, "durable": false });
    let meta: Value = match std::fs::read_to_string(dir.join("expected.json")) {
        Ok(s) => serde_json::from_str(&s).map_err(|e| format!("expected.json: {e}"))?,
        Err(_) => json!({}),
    };
    let result = match format {
        "text_editor" => {
            let steps: Vec<Value> =
                serde_json::from_str(&std::fs::read_to_string(dir.join("commands.json")).unwrap())
                    .map_err(|e| format!("commands.json: {e}"))?;
            let mut last = json!({"ok": true});
            for (i, s) in steps.iter().enumerate() {
                if let Some(w) = s.get("write") {
                    std::fs::write(
                        ws.join(w["path"].as_str().unwrap()),
                        w["content"].as_str().unwrap(),
                    )
                    .unwrap();
                    continue;
                }
                last = editor::text_editor(&s["cmd"], Some(&opts));
                if let Some(e) = s.get("expect") {
                    subset(e, &last).map_err(|m| format!("step {i}: {m}\n  result: {last}"))?;
                }
            }
            last
        }
        _ => {
            let name = if format == "edit_blocks" {
                "blocks.txt"
            } else {
                "patch.txt"
            };
            let text = std::fs::read(dir.join(name)).unwrap();
            let text = String::from_utf8(text).map_err(|_| format!("{name} is not UTF-8"))?;
            let r = if format == "edit_blocks" {
                file_ops::apply_edit_blocks(&json!(text), Some(&opts))
            } else {
                file_ops::apply_patch(&json!(text), Some(&opts))
            };
            if let Some(code) = meta.get("code") {
                if r.get("code") != Some(code) {
                    return Err(format!("expected code {code}, got {r}"));
                }
            } else if r["ok"] != true {
                return Err(format!("expected success, got {r}"));
            } else if format == "unified_diff" && r["format"] != "unified_diff" {
                return Err(format!("read as {} instead of a unified diff", r["format"]));
            }
            for key in ["line", "match_lines"] {
                if let Some(v) = meta.get(key) {
                    if r.get(key) != Some(v) {
                        return Err(format!("expected {key} {v}, got {r}"));
                    }
                }
            }
            // Per hunk, in order: "levels" -> `level`, "located_by" -> `located_by`.
            for (key, field) in [("levels", "level"), ("located_by", "located_by")] {
                if let Some(want) = meta.get(key) {
                    let got: Vec<Value> = r["files"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .flat_map(|f| f["hunks"].as_array().cloned().unwrap_or_default())
                        .map(|h| h[field].clone())
                        .collect();
                    if &Value::Array(got.clone()) != want {
                        return Err(format!("expected {key} {want}, got {got:?}"));
                    }
                }
            }
            r
        }
    };
    let expected_dir = dir.join("expected");
    let want = if expected_dir.exists() {
        common::tree(&expected_dir)
    } else {
        common::tree(&input)
    };
    let got = common::tree(&ws);
    if got != want {
        return Err(format!(
            "tree differs\n got:\n{}\n want:\n{}\n result: {result}",
            show(&got),
            show(&want)
        ));
    }
    Ok(())
}

#[test]
fn corpus_cases_give_the_expected_tree_or_failure() {
    let mut failures = Vec::new();
    let mut counts = Vec::new();
    for format in FORMATS {
        let dir = corpus().join(format);
        let mut cases: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.unwrap().path())
            .filter(|p| p.is_dir())
            .collect();
        cases.sort();
        counts.push((format, cases.len()));
        for c in &cases {
            if let Err(m) = run_case(format, c) {
                failures.push(format!(
                    "{format}/{}: {m}",
                    c.file_name().unwrap().to_string_lossy()
                ));
            }
        }
    }
    for (format, n) in &counts {
        assert!(
            *n >= MIN_CASES,
            "{format} has {n} cases; the corpus needs at least {MIN_CASES}"
        );
    }
    assert!(
        failures.is_empty(),
        "{} case(s) failed:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

#[test]
fn corpus_covers_each_kind_of_case() {
    // Every format has malformed or refused inputs, and the patch formats
    // have a case for each tolerance level and an ambiguous hunk; unified
    // diffs have hunks located by content and by their header's line.
    let mut codes: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    let mut levels: Vec<String> = Vec::new();
    let mut located: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for format in FORMATS {
        for e in std::fs::read_dir(corpus().join(format)).unwrap() {
            let p = e.unwrap().path().join("expected.json");
            let Ok(s) = std::fs::read_to_string(p) else {
                continue;
            };
            let v: Value = serde_json::from_str(&s).unwrap();
            if let Some(c) = v["code"].as_str() {
                codes.entry(format).or_default().push(c.to_string());
            }
            for l in v["levels"].as_array().into_iter().flatten() {
                levels.push(l.as_str().unwrap().to_string());
            }
            for l in v["located_by"].as_array().into_iter().flatten() {
                located
                    .entry(format)
                    .or_default()
                    .push(l.as_str().unwrap().to_string());
            }
        }
    }
    for f in ["apply_patch", "unified_diff", "edit_blocks"] {
        for c in [
            "PATCH_PARSE_ERROR",
            "SEARCH_BLOCK_AMBIGUOUS",
            "SEARCH_BLOCK_NOT_FOUND",
        ] {
            assert!(codes[f].iter().any(|x| x == c), "{f} has no {c} case");
        }
    }
    for l in [
        "exact",
        "trailing_whitespace",
        "surrounding_whitespace",
        "unicode_punctuation",
    ] {
        assert!(levels.iter().any(|x| x == l), "no case needs level {l}");
    }
    // Unified diffs: a hunk placed by its header's line among equal places,
    // and one placed by its unique content despite its header.
    for by in ["line_number", "content"] {
        assert!(
            located["unified_diff"].iter().any(|x| x == by),
            "no unified_diff case is located by {by}"
        );
    }
}
