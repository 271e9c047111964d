//! The mistakes agents make, through the public entry points against real
//! files: a tolerant call writes exactly the intended bytes or nothing,
//! `already_applied` is claimed only when the edit is there, the closest
//! match is the exact current text of the region (also for line-number
//! prefixes, elided middles and stale views), every format answers a failed
//! hunk with the same `closest_match` as a `patchFile` edit, and a unified
//! diff whose first removed line carries the file's BOM applies as
//! `git apply` applies it.

use std::path::Path;

use patch_file_core::api;
use serde_json::{json, Value};

use crate::common::{quick as opts, workspace as setup};

fn read(root: &Path, p: &str) -> Vec<u8> {
    std::fs::read(root.join(p)).unwrap()
}

const ALL: [&str; 4] = [
    "line_endings",
    "trailing_whitespace",
    "indentation",
    "unicode_punctuation",
];

/// `patchFile` of one edit of `f.txt` (holding `text`) with `match`; the
/// result and the bytes after.
fn tolerant(text: &str, search: &str, replace: &str, tolerances: &[&str]) -> (Value, String) {
    let (_t, root) = setup(&[("f.txt", text.as_bytes())]);
    let r = api::patch_file(
        &json!({"file_path": "f.txt", "search": search, "replace": replace, "match": tolerances}),
        Some(&opts(&root)),
    );
    (r, String::from_utf8(read(&root, "f.txt")).unwrap())
}

// ---- tolerant calls write the intended bytes or nothing ----

#[test]
fn a_crlf_block_starting_with_an_empty_line_keeps_whole_line_endings() {
    let (r, after) = tolerant("a;\r\n\r\nb\r\nc\r\n", "\nb\n", "\nB\n", &["line_endings"]);
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(after, "a;\r\n\r\nB\r\nc\r\n");
    assert!(!after.contains("\r\r"), "{after:?}");
}

#[test]
fn untouched_lines_of_a_mixed_file_keep_their_line_endings() {
    // Line 2 ends with LF, line 3 with CRLF: the caller changes only line 3.
    let (r, after) = tolerant("a\r\nb\nc\r\nd\n", "b\nc\n", "b\nC\n", &["line_endings"]);
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(after, "a\r\nb\nC\r\nd\n");
    // A new line takes the ending of the line it follows in the region.
    let (r, after) = tolerant(
        "a\r\nb\nc\r\nd\n",
        "b\nc\n",
        "b\nb2\nc\n",
        &["line_endings"],
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(after, "a\r\nb\nb2\nc\r\nd\n");
}

#[test]
fn a_tolerant_call_never_rewrites_an_edit_that_is_already_there() {
    // The edit `p<Pong>;` -> `p<PongExt>;` landed on line 3; line 1 holds
    // the old text with another line ending. Resending the edit with every
    // tolerance must not write it again on line 1.
    let text = "p<Pong>;\n q\r\n p<PongExt>;\r\n";
    let (r, after) = tolerant(text, "p<Pong>;\r\n", "p<PongExt>;\r\n", &ALL);
    assert_eq!(r["ok"], false, "{r}");
    assert_eq!(after, text);
    assert!(
        r["message"].as_str().unwrap().contains("line 3"),
        "the message names where replace_block already stands: {r}"
    );
    // And the exact call does not claim a place the tolerant one would write.
    let (_t, root) = setup(&[("f.txt", text.as_bytes())]);
    let exact = api::patch_file(
        &json!({"file_path": "f.txt", "search": "p<Pong>;\r\n", "replace": "p<PongExt>;\r\n"}),
        Some(&opts(&root)),
    );
    assert_eq!(exact["ok"], false);
    if exact["already_applied"] == true {
        assert_eq!(exact["applied_at"]["line_number"], 3, "{exact}");
    }
}

#[test]
fn trailing_whitespace_tolerance_keeps_the_file_bytes_of_kept_lines_only() {
    // The block lost the trailing spaces of both lines; the caller changes
    // the second. The first is written as the file has it, the second as
    // the caller wrote it with the file's trailing spaces kept at its end.
    let (r, after) = tolerant(
        "x = 1;  \ny = 2;\t\nz\n",
        "x = 1;\ny = 2;\n",
        "x = 1;\ny = 3;\n",
        &["trailing_whitespace"],
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(after, "x = 1;  \ny = 3;\t\nz\n");
}

// ---- already_applied only when the edit is there ----

fn exact(text: &str, search: &str, replace: &str) -> Value {
    let (_t, root) = setup(&[("f.txt", text.as_bytes())]);
    api::patch_file(
        &json!({"file_path": "f.txt", "search": search, "replace": replace}),
        Some(&opts(&root)),
    )
}

#[test]
fn a_replacement_present_elsewhere_is_not_already_applied() {
    // The block is stale (the file says `retries = 5`); the replacement
    // happens to be a line of another function.
    let text = "fn a() {\n    let retries = 5;\n    run(retries);\n}\n\nfn b() {\n    let retries = 3;\n    go();\n}\n";
    let r = exact(
        text,
        "    let retries = 2;\n    run(retries);\n",
        "    let retries = 3;\n",
    );
    assert_eq!(r["ok"], false);
    assert_ne!(r["already_applied"], true, "{r}");
    assert_eq!(r["closest_match"]["line_number"], 2, "{r}");
}

#[test]
fn a_stale_line_whose_replacement_stands_at_a_twin_is_not_already_applied() {
    // A public project's stale view: the block's line had `_v2` added
    // since it was read; the replacement (`; ;` for `;`) stands at a twin
    // ten lines up, no more like the block than the stale line is.
    let text = "class M {\n    IEnumerable<dynamic> A() {\n        while (rdr.Read()) {\n            yield return rdr.RecordToExpando(); ;\n        }\n    }\n    IEnumerable<dynamic> B() {\n        while (rdr.Read()) {\n            yield return rdr.RecordToExpando();_v2\n        }\n    }\n}\n";
    let r = exact(
        text,
        "            yield return rdr.RecordToExpando();\n",
        "            yield return rdr.RecordToExpando(); ;\n",
    );
    assert_eq!(r["ok"], false);
    assert_ne!(r["already_applied"], true, "{r}");
}

#[test]
fn a_block_read_as_its_own_replacement_is_not_already_applied() {
    // The edit adds a space to the blank line after `var p` (3 spaces to
    // 4); sent with line-number prefixes (`4: ` before the 3 spaces), the
    // block read without `4:` is the replacement itself, which stands
    // elsewhere (found on the replay of a public project's history).
    let text = "void A()\n{\n    var p = data.First();\n   \n}\nvoid B()\n{\n    var p = data.First();\n    \n    use(p);\n}\n";
    let r = exact(
        text,
        "3:     var p = data.First();\n4:    \n",
        "    var p = data.First();\n    \n",
    );
    assert_eq!(r["ok"], false);
    assert_ne!(r["already_applied"], true, "{r}");
}

#[test]
fn a_block_standing_as_read_is_not_already_applied() {
    // A commit converts line 13's ending to CRLF in a mixed file where the
    // same line stands with CRLF in another class; sent with line-number
    // prefixes, the block read without them stands at line 2 as it was
    // (found on the replay of a public project's history).
    let text = "class A {\n    public static byte[] GetBytes(this string input) => Encoding.UTF8.GetBytes(input);\n}\r\nclass B {\r\n    public static byte[] GetBytes(this string input) => Encoding.UTF8.GetBytes(input);\r\n}\r\n";
    for search in [
        "     2\t    public static byte[] GetBytes(this string input) => Encoding.UTF8.GetBytes(input);\n",
        "     2→    public static byte[] GetBytes(this string input) => Encoding.UTF8.GetBytes(input);\n",
    ] {
        let r = exact(
            text,
            search,
            "    public static byte[] GetBytes(this string input) => Encoding.UTF8.GetBytes(input);\r\n",
        );
        assert_eq!(r["ok"], false);
        assert_ne!(r["already_applied"], true, "{r}");
    }
}

#[test]
fn a_re_indentation_found_inside_the_lines_it_moves_is_not_already_applied() {
    // A commit moving a line from 8 to 4 spaces, its block sent with LF to
    // a CRLF file: the replacement stands inside the line's own 8 spaces
    // (found on the replay of a public project's history).
    let text = "static class S\r\n{\r\n        public static byte[] GetBytes(this string input) => Encoding.UTF8.GetBytes(input);\r\n}\r\n";
    let r = exact(
        text,
        "        public static byte[] GetBytes(this string input) => Encoding.UTF8.GetBytes(input);\n",
        "    public static byte[] GetBytes(this string input) => Encoding.UTF8.GetBytes(input);\n",
    );
    assert_eq!(r["ok"], false);
    assert_ne!(r["already_applied"], true, "{r}");
}

#[test]
fn a_deletion_whose_remaining_text_is_part_of_the_region_is_not_already_applied() {
    // Deleting the two lines after `start();`: the block is stale in its
    // second line, so nothing was deleted; the replacement (the context line
    // alone) is the region's own first line.
    let text = "fn main() {\n    start();\n    step_one(1);\n    step_two(2);\n}\n";
    let r = exact(
        text,
        "    start();\n    step_one(1);\n    step_two(3);\n",
        "    start();\n",
    );
    assert_eq!(r["ok"], false);
    assert_ne!(r["already_applied"], true, "{r}");
    assert_eq!(r["closest_match"]["line_number"], 2, "{r}");
}

#[test]
fn an_edit_sent_again_after_it_landed_is_already_applied() {
    let before = "fn main() {\n    start();\n    step_one(1);\n    step_two(2);\n}\n";
    let (_t, root) = setup(&[("f.rs", before.as_bytes())]);
    let edit = json!({"file_path": "f.rs", "search": "    step_one(1);\n    step_two(2);\n",
                      "replace": "    step_one(1);\n    step_two(20);\n"});
    assert_eq!(api::patch_file(&edit, Some(&opts(&root)))["ok"], true);
    let again = api::patch_file(&edit, Some(&opts(&root)));
    assert_eq!(again["ok"], false);
    assert_eq!(again["already_applied"], true, "{again}");
    assert_eq!(
        again["applied_at"],
        json!({"line_number": 3, "end_line": 4})
    );
    // A deletion with context on both sides, sent again.
    let del = json!({"file_path": "f.rs", "search": "    start();\n    step_one(1);\n    step_two(20);\n",
                     "replace": "    start();\n    step_two(20);\n"});
    assert_eq!(api::patch_file(&del, Some(&opts(&root)))["ok"], true);
    let del = json!({"file_path": "f.rs", "search": "    start();\n    step_one(1);\n    step_two(20);\n}\n",
                     "replace": "    start();\n    step_two(20);\n}\n"});
    let again = api::patch_file(&del, Some(&opts(&root)));
    assert_eq!(again["already_applied"], true, "{again}");
}

// ---- the closest match is the exact current text ----

const SRC: &str = "use std::io;\n\nfn main() {\n    let name = \"world\";\n    println!(\"hello {name}\");\n    if name.is_empty() {\n        return;\n    }\n    let total = compute(1, 2);\n    println!(\"{total}\");\n}\n\nfn compute(a: i32, b: i32) -> i32 {\n    a + b\n}\n";

fn kinds(r: &Value) -> Vec<String> {
    r["closest_match"]["differences"]
        .as_array()
        .map(|a| a.iter().map(|k| k.as_str().unwrap().to_string()).collect())
        .unwrap_or_default()
}

#[test]
fn pasted_line_number_prefixes_are_a_kind_of_their_own() {
    for (prefixed, what) in [
        (
            "     6→    if name.is_empty() {\n     7→        return;\n     8→    }\n",
            "arrow",
        ),
        (
            "     6\t    if name.is_empty() {\n     7\t        return;\n     8\t    }\n",
            "cat -n",
        ),
        (
            "6:     if name.is_empty() {\n7:         return;\n8:     }\n",
            "colon",
        ),
    ] {
        let r = exact(SRC, prefixed, "x\n");
        assert_eq!(r["ok"], false);
        assert_eq!(kinds(&r), vec!["line_numbers"], "{what}: {r}");
        let c = &r["closest_match"];
        assert_eq!(
            (c["line_number"].as_u64(), c["end_line"].as_u64()),
            (Some(6), Some(8)),
            "{what}"
        );
        assert_eq!(
            c["text"], "    if name.is_empty() {\n        return;\n    }\n",
            "{what}"
        );
        let m = r["message"].as_str().unwrap();
        assert!(m.contains("line-number prefixes"), "{what}: {m}");
    }
}

#[test]
fn an_elided_middle_is_a_kind_of_its_own_and_returns_the_whole_region() {
    for marker in ["    ...", "    // ... existing code ...", "…"] {
        let search = format!(
            "fn main() {{\n    let name = \"world\";\n{marker}\n    println!(\"{{total}}\");\n}}\n"
        );
        let r = exact(SRC, &search, "x\n");
        assert_eq!(r["ok"], false);
        assert_eq!(kinds(&r), vec!["elision"], "{marker}: {r}");
        let c = &r["closest_match"];
        assert_eq!(
            (c["line_number"].as_u64(), c["end_line"].as_u64()),
            (Some(3), Some(11)),
            "{marker}"
        );
        assert_eq!(
            c["text"],
            &SRC[SRC.find("fn main").unwrap()..SRC.find("\n\nfn compute").unwrap() + 1]
        );
        assert!(r["message"].as_str().unwrap().contains("elide"), "{r}");
    }
}

#[test]
fn a_stale_view_is_anchored_by_its_unchanged_lines() {
    // Since the block was read, four lines were added inside it and one of
    // its lines changed: the region is the whole current span.
    let text = "fn main() {\n    let a = 1;\n    // added 1\n    // added 2\n    // added 3\n    // added 4\n    let b = 2;\n    let c = 30;\n    finish(a, b, c);\n}\n";
    let r = exact(
        text,
        "fn main() {\n    let a = 1;\n    let b = 2;\n    let c = 3;\n    finish(a, b, c);\n}\n",
        "x\n",
    );
    let c = &r["closest_match"];
    assert_eq!(
        (c["line_number"].as_u64(), c["end_line"].as_u64()),
        (Some(1), Some(10)),
        "{r}"
    );
    assert_eq!(c["text"], text);
}

// ---- every format answers a failed hunk with the same closest_match ----

#[test]
fn every_format_answers_with_the_closest_match_of_patch_file() {
    let (_t, root) = setup(&[("f.rs", SRC.as_bytes())]);
    let o = opts(&root);
    // A stale view: the file says `compute(1, 2)`.
    let edit = api::patch_file(
        &json!({"file_path": "f.rs", "search": "    let total = compute(1, 3);\n    println!(\"{total}\");\n",
                "replace": "    let total = compute(1, 4);\n    println!(\"{total}\");\n"}),
        Some(&o),
    );
    let want = edit["closest_match"].clone();
    assert!(want.is_object(), "{edit}");
    // A SEARCH/REPLACE block's text ends without the last line break, as
    // does the same edit's: its region too.
    let unterminated = api::patch_file(
        &json!({"file_path": "f.rs", "search": "    let total = compute(1, 3);\n    println!(\"{total}\");",
                "replace": "    let total = compute(1, 4);\n    println!(\"{total}\");"}),
        Some(&o),
    )["closest_match"]
        .clone();
    let codex = "*** Begin Patch\n*** Update File: f.rs\n@@\n-    let total = compute(1, 3);\n+    let total = compute(1, 4);\n     println!(\"{total}\");\n*** End Patch\n";
    let diff = "--- a/f.rs\n+++ b/f.rs\n@@ -9,2 +9,2 @@\n-    let total = compute(1, 3);\n+    let total = compute(1, 4);\n     println!(\"{total}\");\n";
    let blocks = "f.rs\n<<<<<<< SEARCH\n    let total = compute(1, 3);\n    println!(\"{total}\");\n=======\n    let total = compute(1, 4);\n    println!(\"{total}\");\n>>>>>>> REPLACE\n";
    for (name, r) in [
        ("codex", api::apply_patch(&json!(codex), Some(&o))),
        ("unified", api::apply_patch(&json!(diff), Some(&o))),
        ("blocks", api::apply_edit_blocks(&json!(blocks), Some(&o))),
        (
            "text editor",
            api::text_editor(
                &json!({"command": "str_replace", "path": "f.rs",
                        "old_str": "    let total = compute(1, 3);\n    println!(\"{total}\");\n",
                        "new_str": "x\n"}),
                Some(&o),
            ),
        ),
    ] {
        assert_eq!(r["ok"], false, "{name}");
        assert_eq!(r["code"], "SEARCH_BLOCK_NOT_FOUND", "{name}: {r}");
        let want = if name == "blocks" {
            &unterminated
        } else {
            &want
        };
        for k in ["line_number", "end_line", "text", "differences"] {
            assert_eq!(r["closest_match"][k], want[k], "{name}: {k}: {r}");
        }
        let hunk = r["failures"][0]["hunks"][0]
            .as_object()
            .or(r["failures"][0]["blocks"][0].as_object());
        if let Some(h) = hunk {
            assert_eq!(h["closest_match"]["text"], want["text"], "{name}: per hunk");
        }
    }
    assert_eq!(read(&root, "f.rs"), SRC.as_bytes());
}

// ---- a unified diff whose first removed line carries the BOM ----

#[test]
fn a_diff_whose_first_removed_line_carries_the_bom_applies() {
    // A whole-file CRLF -> LF commit of a file with a UTF-8 BOM, as `git
    // diff` shows it: the BOM is part of line 1 on both sides.
    let before = "\u{FEFF}first\r\nsecond\r\n";
    let (_t, root) = setup(&[("f.txt", before.as_bytes())]);
    let diff = "--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n-\u{FEFF}first\r\n-second\r\n+\u{FEFF}first\n+second\n";
    let r = api::apply_patch(&json!(diff), Some(&opts(&root)));
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(read(&root, "f.txt"), "\u{FEFF}first\nsecond\n".as_bytes());
    // The BOM removed by the diff: the file loses it.
    let (_t, root) = setup(&[("g.txt", "\u{FEFF}one\ntwo\n".as_bytes())]);
    let diff = "--- a/g.txt\n+++ b/g.txt\n@@ -1,2 +1,2 @@\n-\u{FEFF}one\n+one\n two\n";
    let r = api::apply_patch(&json!(diff), Some(&opts(&root)));
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(read(&root, "g.txt"), b"one\ntwo\n");
    // A diff that does not show the BOM still applies and keeps it.
    let diff = "--- a/g.txt\n+++ b/g.txt\n@@ -1,2 +1,2 @@\n-one\n+uno\n two\n";
    let (_t, root) = setup(&[("g.txt", "\u{FEFF}one\ntwo\n".as_bytes())]);
    let r = api::apply_patch(&json!(diff), Some(&opts(&root)));
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(read(&root, "g.txt"), "\u{FEFF}uno\ntwo\n".as_bytes());
}

#[test]
fn a_block_of_punctuation_alone_is_not_placed_at_another_indentation() {
    // A stale view: the agent read `      },` on line 6, which has changed
    // since. Under `indentation` the block's text, `},`, stands once in the
    // file, at another depth (line 8): nothing there says it is the place
    // meant, so nothing is written.
    let text = "{\n  \"p\": {\n    \"a\": {\n      \"t\": {\n        \"k\": 1\n      },_v2\n      \"u\": 2\n    },\n    \"z\": 3\n  }\n}\n";
    let (r, after) = tolerant(text, "      },\n", "      },\n      \"w\": 0,\n", &ALL);
    assert_eq!(r["ok"], false, "{r}");
    assert_eq!(after, text);
    assert_eq!(r["code"], "SEARCH_BLOCK_NOT_FOUND", "{r}");
    let msg = r["message"].as_str().unwrap();
    assert!(msg.contains("too little text"), "{msg}");
    assert!(msg.contains("nothing was applied"), "{msg}");
}

#[test]
fn a_stale_view_does_not_land_on_a_twin_whose_bare_line_has_trailing_whitespace() {
    // The step of job `a` was read with its `name:` line, deleted since;
    // job `b` has the same step, its `-` line ending in two spaces. Under
    // `trailing_whitespace` the block matches `b` alone, but the line the
    // edit changes also stands, verbatim, at `a`, in a region much like
    // the block: either may be meant.
    let text = "jobs:\n  a:\n    steps:\n      -\n        uses: actions/setup@v1.8.2\n        with:\n          v: 6\n  b:\n    steps:\n      -  \n        name: Setup\n        uses: actions/setup@v1.8.2\n        with:\n          v: 6\n";
    let search = "      -\n        name: Setup\n        uses: actions/setup@v1.8.2\n";
    let replace = "      -\n        name: Setup\n        uses: actions/setup@v1.9.0\n";
    let (r, after) = tolerant(text, search, replace, &ALL);
    assert_eq!(r["ok"], false, "{r}");
    assert_eq!(after, text);
}

#[test]
fn a_stale_line_does_not_land_on_a_twin_that_lacks_its_trailing_whitespace() {
    // The agent read line 10 as `... values ` (a trailing space); since,
    // text was added after that space. Line 6 is the same comment without
    // the space, and matches the block under `trailing_whitespace` alone;
    // but the block's exact text, its trailing space included, still
    // starts line 10: that is where it was copied from (found on the replay
    // of a public project's history).
    let text = "/// <summary>\n/// Sums a sequence of <see cref=\"Int32\" /> values.\n/// </summary>\nint Sum(IEnumerable<int> s);\n/// <summary>\n/// Sums a sequence of <see cref=\"Int32\" /> values\n/// taken from each element.\n/// </summary>\nint Sum<T>(IEnumerable<T> s, Func<T, int> f);\n/// Sums a sequence of <see cref=\"Int32\" /> values that may be null\n/// taken from each element.\n";
    let search = "/// Sums a sequence of <see cref=\"Int32\" /> values \n";
    let replace = "/// Sums a sequence of nullable <see cref=\"Int32\" /> values\n";
    for tolerances in [&ALL[..], &["trailing_whitespace"][..]] {
        let (r, after) = tolerant(text, search, replace, tolerances);
        assert_eq!(r["ok"], false, "{r}");
        assert_eq!(after, text);
        assert_eq!(r["code"], "SEARCH_BLOCK_AMBIGUOUS", "{r}");
    }
    // Without that line, the twin is the one place the block can mean.
    let cut = text
        .find("/// Sums a sequence of <see cref=\"Int32\" /> values that")
        .unwrap();
    let (r, after) = tolerant(&text[..cut], search, replace, &ALL);
    assert_eq!(r["ok"], true, "{r}");
    assert!(after.contains("nullable"), "{after}");
}

#[test]
fn a_block_whose_place_differs_in_one_line_ending_is_not_already_applied() {
    // Two places held `#endif` and `}` in tabs; the first was converted to
    // spaces (the replacement). The second, whose last line ends in CRLF in
    // this mixed file, is where the block (sent with LF) is meant: its
    // place is still there, differing in a line ending only.
    let text = "class H\n{\n\tstatic H Current\n\t{\n\t\tget\n\t\t{\n#if NET\n\t\t\treturn a;\n#endif\n        }\n\n\tstatic H()\n\t{\n#if NET\n\t\tb = 1;\n#else\n\t\tb = 2;\n#endif\n\t\t}\r\n\n\tpublic H()\n\t{\n\t}\n}\n";
    let r = exact(text, "#endif\n\t\t}\n", "#endif\n        }\n");
    assert_eq!(r["ok"], false, "{r}");
    assert_ne!(r["already_applied"], true, "{r}");
}

#[test]
fn an_edit_removing_the_byte_order_mark_is_not_already_applied() {
    // The commit drops the file's BOM. The text the engine matches has no
    // BOM, so the replacement (the first line without it) stands where the
    // block would be: the BOM is still in the file.
    let text = "\u{feff}<?xml version=\"1.0\" encoding=\"utf-8\"?>\r\n<Project>\r\n</Project>\r\n";
    let replace = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n";
    for search in [
        "\u{feff}<?xml version=\"1.0\" encoding=\"utf-8\"?>\n",
        "     1\t\u{feff}<?xml version=\"1.0\" encoding=\"utf-8\"?>\n",
    ] {
        let r = exact(text, search, replace);
        assert_eq!(r["ok"], false, "{r}");
        assert_ne!(r["already_applied"], true, "{r}");
    }
}

#[test]
fn blank_lines_after_a_fence_standing_with_other_line_endings_are_not_already_applied() {
    // A CRLF Markdown file; the block (sent with LF) is a fence and three
    // blank lines, which stand at lines 13-16 with CRLF; the replacement
    // (a heading inserted after two of them) stands at lines 5-9, another
    // section's.
    let text = "# API\r\n\r\n```csharp\r\nint A { get; }\r\n```\r\n\r\n\r\n### Property `Body`\r\n\r\nThe body.\r\n\r\n```csharp\r\nint B { get; }\r\n```\r\n\r\n\r\n\r\nEnd.\r\n";
    let r = exact(text, "```\n\n\n\n", "```\n\n\n### Property `Body`\n\n");
    assert_eq!(r["ok"], false, "{r}");
    assert_ne!(r["already_applied"], true, "{r}");
}

#[test]
fn a_line_whose_place_has_curled_quotes_is_not_already_applied() {
    // The block (straight quotes) stands at lines 7-8 with its quotes
    // curled; its replacement (the line re-indented) stands at lines 2-3,
    // in another test.
    let text = "void A()\n{\n            string json = \"{'name':'James'}\";\n}\nvoid B()\n{\n      string json = \u{201c}{\u{2019}name\u{2019}:\u{2019}James\u{2019}}\u{201d};\n}\n";
    let r = exact(
        text,
        "{\n      string json = \"{'name':'James'}\";\n",
        "{\n            string json = \"{'name':'James'}\";\n",
    );
    assert_eq!(r["ok"], false, "{r}");
    assert_ne!(r["already_applied"], true, "{r}");
}

#[test]
fn a_replacement_in_another_function_is_not_proof_while_a_closer_place_stands() {
    // The edit binds the result of `store::save(...)` in `b()` (line 7);
    // since the block was read, that line changed (a suffix added). `a()`
    // already holds the replacement, a line the block is as much part of
    // under the diagnosis's keys, but less like it character for character
    // than line 7: the block's own place is still there, the edit has not
    // landed (found on the replay of this repository's history).
    let text = "fn a() {\n    let saved = store::save(std::slice::from_ref(&item), cfg.sync)\n        .map_err(|e| fail(e, &path))?;\n}\n\nfn b() {\n    store::save(std::slice::from_ref(&item), cfg.sync)_v2\n        .map_err(|e| fail(e, &path))?;\n}\n";
    let r = exact(
        text,
        "    store::save(std::slice::from_ref(&item), cfg.sync)\n",
        "    let saved = store::save(std::slice::from_ref(&item), cfg.sync)\n",
    );
    assert_eq!(r["ok"], false, "{r}");
    assert_ne!(r["already_applied"], true, "{r}");
    assert_eq!(r["closest_match"]["line_number"], 7, "{r}");
}

#[test]
fn a_copy_of_the_replacement_is_no_proof_while_the_blocks_place_stands_changed() {
    // The edit extends a condition; the same extended line stands in
    // another test (line 2). The block's own place (line 7) changed since
    // it was read. The region found for the block is the copy, which holds
    // the block's text, but with the copy set aside the block's place is
    // still there, 98 % like it (patterns of a public project's history).
    let text = "void A()\n#if !MOBILE || LEGACY1_3 || MODERN2_0 || NET6_0_OR_GREATER\n{\n}\n#endif\nvoid B()\n#if !MOBILE || LEGACY1_3 || MODERN2_1\n{\n}\n#endif\n";
    let r = exact(
        text,
        "#if !MOBILE || LEGACY1_3 || MODERN2_0\n",
        "#if !MOBILE || LEGACY1_3 || MODERN2_0 || NET6_0_OR_GREATER\n",
    );
    assert_eq!(r["ok"], false, "{r}");
    assert_ne!(r["already_applied"], true, "{r}");
    // A change of whitespace alone (with CRLF written) in a mixed file: the
    // copy has the block's keys, the block's place (an LF line) changed one
    // digit since, which leaves it as like the block as the copy is.
    let text = "void A()\r\n{\r\n    grid = new[,,] { { 1, 1 }, { 1, 2 }, { 2, 1 }, { 2, 2 } };\r\n}\r\nvoid B()\r\n{\r\n    grid = new[, ,] { { 1, 1 }, { 1, 2 }, { 2, 1 }, { 2, 3 } };\n}\r\n";
    let r = exact(
        text,
        "    grid = new[, ,] { { 1, 1 }, { 1, 2 }, { 2, 1 }, { 2, 2 } };\n",
        "    grid = new[,,] { { 1, 1 }, { 1, 2 }, { 2, 1 }, { 2, 2 } };\r\n",
    );
    assert_eq!(r["ok"], false, "{r}");
    assert_ne!(r["already_applied"], true, "{r}");
    // Without the changed place, the copy is the edit, landed.
    let cut = text.find("void B()").unwrap();
    let r = exact(
        &text[..cut],
        "    grid = new[, ,] { { 1, 1 }, { 1, 2 }, { 2, 1 }, { 2, 2 } };\n",
        "    grid = new[,,] { { 1, 1 }, { 1, 2 }, { 2, 1 }, { 2, 2 } };\r\n",
    );
    assert_eq!(r["already_applied"], true, "{r}");
}

#[test]
fn a_block_with_next_to_no_text_is_not_already_applied_by_a_long_replacement() {
    // `    ]` (changed since it was read, line 6) is found nowhere by the
    // diagnosis: that says nothing of its place being gone, and the
    // replacement standing at lines 2-3 proves nothing.
    let text =
        "[\n    ],\n    \"DateCol\": \"2000-12-29T00:00:00Z\"\n  },\n  {\n    ]_v2\n  }\n]\n";
    let r = exact(
        text,
        "    ]\n",
        "    ],\n    \"DateCol\": \"2000-12-29T00:00:00Z\"\n",
    );
    assert_eq!(r["ok"], false, "{r}");
    assert_ne!(r["already_applied"], true, "{r}");
}

#[test]
fn a_deleted_line_that_was_extended_since_is_not_already_applied() {
    // The edit deletes `  });` after the assertion (a commit of a public
    // project's history); the line has since had text added to it. The
    // replacement (the context lines alone) stands, and so does the block
    // up to the end of its last line: the line is still there.
    let text = "void T()\n{\n    a.Each(x =>\n    {\n        Assert.AreEqual(5, a.Count());\n    }\n    });_v2\r\n}\n";
    let r = exact(
        text,
        "        Assert.AreEqual(5, a.Count());\n    }\n    });\r\n",
        "        Assert.AreEqual(5, a.Count());\n    }\n",
    );
    assert_eq!(r["ok"], false, "{r}");
    assert_ne!(r["already_applied"], true, "{r}");
}

/// A `str_replace` deleting whole lines with their own line break
/// (`old_str` `foo();\n`, `new_str` empty) deletes those lines only: the
/// blank line after them was taken too, as a SEARCH/REPLACE block's text
/// (which ends without its last line's break) takes the break after it.
/// That block, and an `old_str` without its break (`foo();`), delete the
/// same line, break and all.
#[test]
fn an_empty_replacement_of_lines_with_their_break_keeps_the_blank_line_after() {
    for (eol, name) in [("\n", "lf"), ("\r\n", "crlf")] {
        let text = ["a", "foo();", "", "function g() {}", ""].join(eol);
        let want = ["a", "", "function g() {}", ""].join(eol);
        let search = format!("foo();{eol}");
        type Call = fn(&Path, &str) -> Value;
        let calls: [(&str, Call); 2] = [
            ("str_replace", |root, search| {
                api::text_editor(
                    &json!({"command": "str_replace", "path": "f.js", "old_str": search, "new_str": ""}),
                    Some(&opts(root)),
                )
            }),
            ("blocks", |root, search| {
                api::apply_edit_blocks(
                    &json!({"text": format!("f.js\n<<<<<<< SEARCH\n{search}=======\n>>>>>>> REPLACE\n")}),
                    Some(&opts(root)),
                )
            }),
        ];
        for (what, call) in calls {
            let (_t, root) = setup(&[("f.js", text.as_bytes())]);
            let r = call(&root, &search);
            assert_eq!(r["ok"], true, "{what} {name}: {r}");
            assert_eq!(
                String::from_utf8(read(&root, "f.js")).unwrap(),
                want,
                "{what} {name}"
            );
        }
        // Without its break, the whole line goes, break and all.
        let (_t, root) = setup(&[("f.js", text.as_bytes())]);
        let r = api::text_editor(
            &json!({"command": "str_replace", "path": "f.js", "old_str": "foo();", "new_str": ""}),
            Some(&opts(&root)),
        );
        assert_eq!(r["ok"], true, "{r}");
        assert_eq!(
            String::from_utf8(read(&root, "f.js")).unwrap(),
            want,
            "{name}"
        );
    }
}
