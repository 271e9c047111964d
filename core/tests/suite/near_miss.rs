//! The near-miss corpus (`__test__/fixtures/near-miss/`): realistic failing
//! edits, each labelled with its true kind of difference and the lines it
//! was meant for. Measures how often diagnosis points at the intended
//! region and names the right kind, and how often tolerant matching applies
//! the intended edit, and asserts the goals (>= 90 % each, no wrong edit).

use std::path::PathBuf;

use crate::common;

use patch_file_core::api::patch_file;
use serde_json::{json, Value};

const TOLERABLE: [&str; 4] = [
    "line_endings",
    "trailing_whitespace",
    "indentation",
    "unicode_punctuation",
];

fn corpus() -> PathBuf {
    common::repo_root().join("__test__/fixtures/near-miss")
}

/// Byte range of 1-based lines `a..=b` (content only, no final newline).
fn line_span(text: &str, a: usize, b: usize) -> (usize, usize) {
    let starts: Vec<usize> = std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .collect();
    let s = starts[a - 1];
    let mut e = if b < starts.len() {
        starts[b] - 1
    } else {
        text.len()
    };
    if text[..e].ends_with('\r') {
        e -= 1;
    }
    (s, e)
}

/// 1-based first and last line that differ between two texts.
fn changed_lines(a: &str, b: &str) -> Option<(usize, usize)> {
    let la: Vec<&str> = a.split('\n').collect();
    let lb: Vec<&str> = b.split('\n').collect();
    let pre = la.iter().zip(&lb).take_while(|(x, y)| x == y).count();
    if pre == la.len() && pre == lb.len() {
        return None;
    }
    let suf = la
        .iter()
        .rev()
        .zip(lb.iter().rev())
        .take_while(|(x, y)| x == y)
        .count()
        .min(la.len().min(lb.len()) - pre);
    Some((pre + 1, la.len() - suf))
}

struct Tally {
    cases: usize,
    pointed: usize,
    tolerable: usize,
    applied: usize,
    wrong_place: usize,
    wrong_edit: usize,
    misses: Vec<String>,
}

#[test]
fn near_miss_corpus() {
    let dir = corpus();
    let manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("manifest.json")).unwrap()).unwrap();
    let cases = manifest["cases"].as_array().unwrap();
    assert!(cases.len() >= 60, "corpus has {} cases", cases.len());
    let mut t = Tally {
        cases: 0,
        pointed: 0,
        tolerable: 0,
        applied: 0,
        wrong_place: 0,
        wrong_edit: 0,
        misses: Vec::new(),
    };
    let ws = tempfile::tempdir().unwrap();
    let opts = json!({"workspaceRoot": ws.path().to_str().unwrap(), "durable": false});
    for c in cases {
        let id = c["id"].as_str().unwrap();
        let file = c["file"].as_str().unwrap();
        let kind = c["kind"].as_str().unwrap();
        let (a, b) = (
            c["lines"][0].as_u64().unwrap() as usize,
            c["lines"][1].as_u64().unwrap() as usize,
        );
        let original = std::fs::read(dir.join("files").join(file)).unwrap();
        let target = ws.path().join(file);
        std::fs::write(&target, &original).unwrap();
        let edit = json!({
            "file_path": file,
            "search_block": c["search_block"],
            "replace_block": c["replace_block"],
        });

        // Exact (default) mode: a failure that writes nothing.
        let r = patch_file(&edit, Some(&opts));
        assert_eq!(r["code"], "SEARCH_BLOCK_NOT_FOUND", "{id}: {r}");
        assert_eq!(
            std::fs::read(&target).unwrap(),
            original,
            "{id}: file changed"
        );
        t.cases += 1;
        let hit = if kind == "already_applied" {
            r["already_applied"] == true
                && r["applied_at"] == json!({"line_number": a, "end_line": b})
        } else {
            let cm = &r["closest_match"];
            let diffs: Vec<&str> = cm["differences"]
                .as_array()
                .map(|d| d.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            cm["line_number"] == a
                && cm["end_line"] == b
                && diffs.contains(&kind)
                && (kind == "content" || !diffs.contains(&"content"))
        };
        if hit {
            t.pointed += 1;
        } else {
            t.misses.push(format!(
                "diagnosis {id} ({kind}, lines {a}-{b}): closest_match {} already_applied {}",
                r["closest_match"], r["already_applied"]
            ));
        }
        // The message names the kind in plain words.
        if hit && kind != "already_applied" {
            let words = kind.replace('_', " ");
            let msg = r["message"].as_str().unwrap();
            let named = match kind {
                "unicode_punctuation" => msg.contains("typographic punctuation"),
                "escaping" => msg.contains("escaping"),
                "case" => msg.contains("letter case"),
                "content" => msg.contains("content"),
                _ => msg.contains(&words),
            };
            assert!(named, "{id}: message does not name {kind}: {msg}");
        }

        // Tolerant mode.
        let mut tolerant = edit.clone();
        tolerant["match"] = json!(TOLERABLE);
        let r = patch_file(&tolerant, Some(&opts));
        let after = std::fs::read(&target).unwrap();
        let (orig_s, after_s) = (
            String::from_utf8(original.clone()).unwrap(),
            String::from_utf8(after.clone()).unwrap(),
        );
        let wrote = after != original;
        assert_eq!(wrote, r["ok"] == true, "{id}: ok and file disagree: {r}");
        if TOLERABLE.contains(&kind) {
            t.tolerable += 1;
            let (s, e) = line_span(&orig_s, a, b);
            let expected = format!(
                "{}{}{}",
                &orig_s[..s],
                c["expected"].as_str().unwrap(),
                &orig_s[e..]
            );
            if after_s == expected {
                t.applied += 1;
                let replaced = r["original_text"].as_str().unwrap_or_default();
                assert!(
                    !replaced.is_empty() && orig_s.contains(replaced),
                    "{id}: original_text {replaced:?}"
                );
                assert!(
                    r["matched_with"].as_array().unwrap().contains(&json!(kind)),
                    "{id}: matched_with {}",
                    r["matched_with"]
                );
            } else if wrote {
                t.wrong_edit += 1;
                t.misses.push(format!(
                    "tolerant {id}: wrote an unexpected result\n--- expected\n{expected}\n--- got\n{after_s}"
                ));
            } else {
                t.misses.push(format!(
                    "tolerant {id} ({kind}): not applied: {}",
                    r["message"]
                ));
            }
        } else if wrote {
            t.wrong_edit += 1;
            t.misses.push(format!(
                "tolerant {id} ({kind}): applied although its kind is not tolerated"
            ));
        }
        if let Some((x, y)) = changed_lines(&orig_s, &after_s) {
            // An edit may add lines, so only its start must be inside.
            if x < a || (x > b && y > b) {
                t.wrong_place += 1;
                t.misses.push(format!(
                    "tolerant {id}: changed lines {x}-{y}, intended {a}-{b}"
                ));
            }
        }
    }
    let pct = |n: usize, d: usize| 100.0 * n as f64 / d.max(1) as f64;
    println!(
        "near-miss corpus: {} cases; closest_match/already_applied right: {}/{} ({:.1} %); \
         tolerant mode applied the intended edit: {}/{} ({:.1} %); wrong edits: {}; wrong-place edits: {}",
        t.cases,
        t.pointed,
        t.cases,
        pct(t.pointed, t.cases),
        t.applied,
        t.tolerable,
        pct(t.applied, t.tolerable),
        t.wrong_edit,
        t.wrong_place
    );
    for m in &t.misses {
        println!("  miss: {m}");
    }
    assert!(pct(t.pointed, t.cases) >= 90.0, "diagnosis below 90 %");
    assert!(pct(t.applied, t.tolerable) >= 90.0, "tolerant below 90 %");
    assert_eq!(t.wrong_edit, 0, "tolerant mode wrote a wrong edit");
    assert_eq!(t.wrong_place, 0, "tolerant mode edited the wrong place");
}
