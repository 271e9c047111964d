//! `unicode_punctuation` means the same in every entry point. For each
//! typographic character, a file holding one form (ASCII or Unicode) is
//! edited with text using the other form:
//!
//! * `patchFile` with `match: ["unicode_punctuation"]` applies it (tolerant
//!   matching), reporting `matched_with: ["unicode_punctuation"]`;
//! * `applyPatch` with a Codex hunk applies it at the `unicode_punctuation`
//!   level (hunk locating), to the same bytes;
//! * `patchFile` without `match` fails, and its diagnosis names the
//!   difference `unicode_punctuation` and offers that tolerance.
//!
//! The characters are those listed here and every entry of the shared
//! table (`text::fold::PUNCTUATION`), so a character added to the table or
//! forgotten by one entry point fails here. Unicode spaces are folded by hunk
//! locating only; `unicode_spaces_are_a_whitespace_fold_of_hunk_locating`
//! pins where they stand.

use std::path::Path;

use patch_file_core::api::{self as engine, self as ops};
use patch_file_core::testing::text::{PUNCTUATION, UNICODE_SPACES};
use serde_json::{json, Value};

/// The characters the entry points must agree on, with their ASCII form.
const LISTED: &[(char, &str)] = &[
    ('\u{2018}', "'"),   // ‘
    ('\u{2019}', "'"),   // ’
    ('\u{201A}', "'"),   // ‚
    ('\u{201B}', "'"),   // ‛
    ('\u{2032}', "'"),   // ′
    ('\u{2035}', "'"),   // ‵
    ('\u{FF07}', "'"),   // ＇
    ('\u{201C}', "\""),  // “
    ('\u{201D}', "\""),  // ”
    ('\u{201E}', "\""),  // „
    ('\u{201F}', "\""),  // ‟
    ('\u{2033}', "\""),  // ″
    ('\u{2036}', "\""),  // ‶
    ('\u{00AB}', "\""),  // «
    ('\u{00BB}', "\""),  // »
    ('\u{FF02}', "\""),  // ＂
    ('\u{2010}', "-"),   // ‐
    ('\u{2011}', "-"),   // ‑
    ('\u{2012}', "-"),   // ‒
    ('\u{2013}', "-"),   // –
    ('\u{2014}', "-"),   // —
    ('\u{2015}', "-"),   // ―
    ('\u{2212}', "-"),   // −
    ('\u{FE58}', "-"),   // ﹘
    ('\u{FE63}', "-"),   // ﹣
    ('\u{FF0D}', "-"),   // －
    ('\u{2026}', "..."), // …
];

/// Unicode spaces that must be listed in the shared table.
const LISTED_SPACES: &[char] = &['\u{00A0}', '\u{2009}', '\u{3000}', '\u{202F}'];

/// The listed characters and every entry of the shared table.
fn cases() -> Vec<(char, &'static str)> {
    let mut all: Vec<(char, &'static str)> = LISTED.to_vec();
    for &(c, a) in PUNCTUATION {
        if !all.iter().any(|x| x.0 == c) {
            all.push((c, a));
        }
    }
    all
}

fn opts(root: &Path) -> Value {
    json!({ "workspaceRoot": root, "durable": false })
}

const FILE: &str = "f.txt";

/// A workspace holding `FILE` with `text`.
fn workspace(text: &str) -> tempfile::TempDir {
    let t = tempfile::tempdir().unwrap();
    std::fs::write(t.path().join(FILE), text).unwrap();
    t
}

fn read(t: &tempfile::TempDir) -> String {
    std::fs::read_to_string(t.path().join(FILE)).unwrap()
}

/// `before` with `search` replaced by `replace` through `patchFile`
/// (`tolerances` as `match`, or exact), and the result.
fn patch_file(before: &str, search: &str, replace: &str, tolerances: &[&str]) -> (Value, String) {
    let t = workspace(before);
    let mut edit = json!({"file_path": FILE, "search_block": search, "replace_block": replace});
    if !tolerances.is_empty() {
        edit["match"] = json!(tolerances);
    }
    let r = engine::patch_file(&edit, Some(&opts(t.path())));
    (r.clone(), read(&t))
}

/// `before` edited by a Codex patch with one hunk of `lines`, and the result.
fn apply_patch(before: &str, lines: &[String]) -> (Value, String) {
    let t = workspace(before);
    let patch = format!(
        "*** Begin Patch\n*** Update File: {FILE}\n@@\n{}\n*** End Patch\n",
        lines.join("\n")
    );
    let r = ops::apply_patch(&json!({ "patch": patch }), Some(&opts(t.path())));
    (r.clone(), read(&t))
}

/// A file whose second line holds `x{form}y`.
fn text_with(form: &str) -> String {
    format!("intro line\nsay x{form}y here\nold line\nlast line\n")
}

/// One entry point's view of `c` against `a`: the file holds `file_form`,
/// the edit uses `edit_form`.
fn check_both_ways(c: char, a: &str) {
    let u = c.to_string();
    let name = format!("U+{:04X} {c} ({a})", c as u32);
    for (file_form, edit_form) in [(a, u.as_str()), (u.as_str(), a)] {
        let before = text_with(file_form);
        let ctx = format!("say x{edit_form}y here");
        let file_ctx = format!("say x{file_form}y here");

        // The character on a kept line: the file keeps its form.
        let expected = before.replace("old line", "new line");
        let search = format!("{ctx}\nold line\n");
        let replace = format!("{ctx}\nnew line\n");
        let (r, after) = patch_file(&before, &search, &replace, &["unicode_punctuation"]);
        assert_eq!(r["ok"], true, "{name}: patchFile with match: {r}");
        assert_eq!(r["matched_with"], json!(["unicode_punctuation"]), "{name}");
        assert_eq!(after, expected, "{name}: patchFile with match");
        assert_eq!(
            r["original_text"],
            format!("{file_ctx}\nold line\n"),
            "{name}"
        );

        let (r, after_patch) = apply_patch(
            &before,
            &[format!(" {ctx}"), "-old line".into(), "+new line".into()],
        );
        assert_eq!(r["ok"], true, "{name}: applyPatch: {r}");
        let hunk = &r["files"][0]["hunks"][0];
        assert_eq!(hunk["level"], "unicode_punctuation", "{name}: {r}");
        assert_eq!(hunk["line_number"], 2, "{name}: {r}");
        assert_eq!(
            after_patch, after,
            "{name}: applyPatch and patchFile differ"
        );

        // The character on a removed line.
        let expected = before.replace(&format!("{file_ctx}\n"), "changed\n");
        let (r, after) = patch_file(
            &before,
            &format!("{ctx}\n"),
            "changed\n",
            &["unicode_punctuation"],
        );
        assert_eq!(r["ok"], true, "{name}: patchFile, removed line: {r}");
        assert_eq!(after, expected, "{name}: patchFile, removed line");
        let (r, after_patch) = apply_patch(&before, &[format!("-{ctx}"), "+changed".into()]);
        assert_eq!(r["ok"], true, "{name}: applyPatch, removed line: {r}");
        assert_eq!(
            r["files"][0]["hunks"][0]["level"], "unicode_punctuation",
            "{name}"
        );
        assert_eq!(after_patch, expected, "{name}: applyPatch, removed line");

        // Exact: refused, and the diagnosis names the kind and offers the
        // tolerance that would match.
        let (r, after) = patch_file(&before, &search, &replace, &[]);
        assert_eq!(r["code"], "SEARCH_BLOCK_NOT_FOUND", "{name}: exact: {r}");
        assert_eq!(after, before, "{name}: a failed edit wrote");
        let cm = &r["closest_match"];
        assert_eq!(
            cm["differences"],
            json!(["unicode_punctuation"]),
            "{name}: {r}"
        );
        assert_eq!(
            (&cm["line_number"], &cm["end_line"]),
            (&json!(2), &json!(3)),
            "{name}"
        );
        assert_eq!(cm["text"], format!("{file_ctx}\nold line\n"), "{name}");
        let message = r["message"].as_str().unwrap();
        assert!(
            message.contains("match: [\"unicode_punctuation\"]"),
            "{name}: {message}"
        );
    }
}

#[test]
fn listed_characters_are_the_shared_table() {
    for &(c, a) in LISTED {
        assert!(
            PUNCTUATION.contains(&(c, a)),
            "U+{:04X} {c} is not folded to {a:?} by text::fold::PUNCTUATION",
            c as u32
        );
    }
    for c in LISTED_SPACES {
        assert!(UNICODE_SPACES.contains(c), "U+{:04X}", *c as u32);
    }
}

#[test]
fn unicode_punctuation_means_the_same_in_every_entry_point() {
    let cases = cases();
    assert!(cases.len() >= LISTED.len());
    for (c, a) in cases {
        check_both_ways(c, a);
    }
}

/// The ellipsis is three ASCII characters: a tolerant match must take it
/// whole, and the other entry points agree on where lines start and end.
#[test]
fn ellipsis_folds_whole() {
    let before = "wait… then go\n";
    let (r, _) = patch_file(before, "..", "x", &["unicode_punctuation"]);
    assert_eq!(r["code"], "SEARCH_BLOCK_NOT_FOUND", "{r}");
    let (r, after) = patch_file(
        before,
        "wait... then",
        "stop, then",
        &["unicode_punctuation"],
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(r["original_text"], "wait… then");
    assert_eq!(after, "stop, then go\n");
}

/// Unicode spaces (no-break, thin, ideographic…) are not punctuation: hunk
/// locating folds them at its `unicode_punctuation` level, which also
/// ignores the whitespace around lines; diagnosis names them
/// `invisible_characters`; and `match: ["unicode_punctuation"]` does not
/// forgive them (the near-miss corpus pins that: tolerant mode must not
/// apply its `invisible_characters` cases, several of which are no-break
/// spaces).
#[test]
fn unicode_spaces_are_a_whitespace_fold_of_hunk_locating() {
    for &c in UNICODE_SPACES {
        let name = format!("U+{:04X}", c as u32);
        for (file_form, edit_form) in [
            (" ".to_string(), c.to_string()),
            (c.to_string(), " ".into()),
        ] {
            let before = text_with(&file_form);
            let ctx = format!("say x{edit_form}y here");

            let (r, after) = apply_patch(
                &before,
                &[format!(" {ctx}"), "-old line".into(), "+new line".into()],
            );
            assert_eq!(r["ok"], true, "{name}: applyPatch: {r}");
            assert_eq!(r["files"][0]["hunks"][0]["level"], "unicode_punctuation");
            assert_eq!(after, before.replace("old line", "new line"), "{name}");

            let search = format!("{ctx}\nold line\n");
            let replace = format!("{ctx}\nnew line\n");
            let (r, after) = patch_file(&before, &search, &replace, &[]);
            assert_eq!(r["code"], "SEARCH_BLOCK_NOT_FOUND", "{name}: {r}");
            assert_eq!(after, before);
            let cm = &r["closest_match"];
            assert_eq!(
                cm["differences"],
                json!(["invisible_characters"]),
                "{name}: {r}"
            );
            assert!(
                cm["details"][0].as_str().unwrap().contains(&name),
                "{name}: {r}"
            );

            let (r, after) = patch_file(&before, &search, &replace, &["unicode_punctuation"]);
            assert_eq!(r["code"], "SEARCH_BLOCK_NOT_FOUND", "{name}: {r}");
            assert_eq!(after, before);
        }
    }
}
