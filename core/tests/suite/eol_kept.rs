//! An edit never leaves a file with line endings it did not have: a file
//! that uses CRLF throughout stays CRLF, an LF file stays LF, in every
//! encoding (UTF-8 with or without BOM, UTF-16, a legacy encoding), through
//! every entry point, where the caller's text gives no ending of its own.

use std::path::Path;

use encoding_rs::WINDOWS_1252;
use patch_file_core::api;
use serde_json::{json, Value};

fn opts(root: &Path) -> Value {
    json!({ "workspaceRoot": root, "durable": false, "journal": false })
}

fn show(b: &[u8]) -> String {
    String::from_utf8_lossy(b).escape_debug().to_string()
}

/// `text` in each encoding these tests write a file in (its name, the
/// bytes): UTF-8, UTF-8 with BOM, UTF-16LE with BOM, windows-1252 (the
/// text has an `é`, so the file is read as that).
fn encodings(text: &str) -> Vec<(&'static str, Vec<u8>)> {
    let mut utf16 = vec![0xFF, 0xFE];
    utf16.extend(text.encode_utf16().flat_map(u16::to_le_bytes));
    let (legacy, _, bad) = WINDOWS_1252.encode(text);
    assert!(!bad);
    vec![
        ("utf-8", text.as_bytes().to_vec()),
        (
            "utf-8 bom",
            [&b"\xEF\xBB\xBF"[..], text.as_bytes()].concat(),
        ),
        ("utf-16le", utf16),
        ("windows-1252", legacy.into_owned()),
    ]
}

/// `f.txt` holding `file`, after `call` (given the options) ran on it:
/// its answer and the file's bytes.
fn after(file: &[u8], call: impl Fn(&Value) -> Value) -> (Value, Vec<u8>) {
    let t = tempfile::tempdir().unwrap();
    std::fs::write(t.path().join("f.txt"), file).unwrap();
    let r = call(&opts(t.path()));
    (r, std::fs::read(t.path().join("f.txt")).unwrap())
}

/// The same call on `before` in every encoding gives `want` in it.
fn in_every_encoding(name: &str, before: &str, want: &str, call: impl Fn(&Value) -> Value) {
    for ((enc, file), (_, want)) in encodings(before).into_iter().zip(encodings(want)) {
        let (r, bytes) = after(&file, &call);
        assert_eq!(r["ok"], true, "{name} ({enc}): {r}");
        assert_eq!(show(&bytes), show(&want), "{name} ({enc})");
    }
}

fn codex(body: &str) -> String {
    format!("*** Begin Patch\n*** Update File: f.txt\n{body}*** End Patch\n")
}

/// A hunk whose old lines are only the file's last line, without a line
/// break, shows no line ending of its own (that line has none in the file
/// either): its added lines take the file's CRLF, in every form of patch.
#[test]
fn a_hunk_of_only_the_unterminated_last_line_takes_the_files_crlf() {
    let before = "caf\u{e9}\r\nb\r\nlast";
    let want = "caf\u{e9}\r\nb\r\nLAST\r\nmore\r\n";
    let patches = [
        ("codex", codex("@@\n-last\n+LAST\n+more\n")),
        ("codex, no @@", codex("-last\n+LAST\n+more\n")),
        (
            "codex, end of file",
            codex("@@\n-last\n+LAST\n+more\n*** End of File\n"),
        ),
        (
            "unified",
            "--- a/f.txt\n+++ b/f.txt\n@@ -3 +3,2 @@\n-last\n\\ No newline at end of file\n+LAST\n+more\n"
                .to_string(),
        ),
    ];
    for (name, patch) in patches {
        in_every_encoding(name, before, want, |o| {
            api::apply_patch(&json!(patch), Some(o))
        });
    }
    in_every_encoding("operation", before, want, |o| {
        let op =
            json!({"type": "update_file", "path": "f.txt", "diff": "@@\n-last\n+LAST\n+more\n"});
        api::apply_patch(&json!({ "operation": op }), Some(o))
    });
    // A unified diff that only gives the last line its line break.
    in_every_encoding(
        "unified, final break added",
        before,
        "caf\u{e9}\r\nb\r\nlast\r\n",
        |o| {
            let patch =
                "--- a/f.txt\n+++ b/f.txt\n@@ -3 +3 @@\n-last\n\\ No newline at end of file\n+last\n";
            api::apply_patch(&json!(patch), Some(o))
        },
    );
    // The same hunk with a context line said so already.
    in_every_encoding("with context", before, want, |o| {
        api::apply_patch(&json!(codex("@@\n b\n-last\n+LAST\n+more\n")), Some(o))
    });
}

/// The dry run shows, and `applyDryRun` writes, the file's CRLF.
#[test]
fn a_dry_run_of_such_a_hunk_shows_and_writes_the_files_crlf() {
    let (r, bytes) = after(b"a\r\nb\r\nlast", |o| {
        let d = api::apply_patch(
            &json!({"patch": codex("@@\n-last\n+LAST\n+more\n"), "dry_run": true}),
            Some(o),
        );
        assert_eq!(d["ok"], true, "{d}");
        let diff = d["diff"].as_str().unwrap();
        assert!(diff.contains("+LAST\r\n+more\r\n"), "{diff:?}");
        api::apply_dry_run(&json!({"run_id": d["run_id"]}), Some(o))
    });
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(show(&bytes), show(b"a\r\nb\r\nLAST\r\nmore\r\n"));
}

/// The mirror: an LF file without a final line break, patched with a hunk
/// sent with CRLF line breaks, stays LF.
#[test]
fn a_crlf_patch_of_the_unterminated_last_line_of_an_lf_file_writes_lf() {
    in_every_encoding("codex", "caf\u{e9}\nb\nc", "caf\u{e9}\nb\nC1\nC2\n", |o| {
        let patch = "*** Begin Patch\r\n*** Update File: f.txt\r\n@@\r\n-c\r\n+C1\r\n+C2\r\n*** End Patch\r\n";
        api::apply_patch(&json!(patch), Some(o))
    });
    in_every_encoding(
        "unified",
        "caf\u{e9}\nb\nc",
        "caf\u{e9}\nb\nC1\nC2\n",
        |o| {
            let patch = "--- a/f.txt\r\n+++ b/f.txt\r\n@@ -3 +3,2 @@\r\n-c\r\n\\ No newline at end of file\r\n+C1\r\n+C2\r\n";
            api::apply_patch(&json!(patch), Some(o))
        },
    );
}

/// A CRLF file whose last line ends with a lone CR (a CRLF cut short): a
/// hunk of that line alone, sent without its CR, writes CRLF; a `git diff`
/// of the file's bytes, which shows the CR, keeps it as `git apply` does.
#[test]
fn a_last_line_ending_with_a_lone_cr_takes_the_files_crlf() {
    in_every_encoding(
        "codex",
        "caf\u{e9}\r\nb\r\nlast\r",
        "caf\u{e9}\r\nb\r\nLAST\r\n",
        |o| api::apply_patch(&json!(codex("@@\n-last\n+LAST\n")), Some(o)),
    );
    let (r, bytes) = after(b"a\r\nb\r\nlast\r", |o| {
        let patch = "--- a/f.txt\n+++ b/f.txt\n@@ -3 +3 @@\n-last\r\n\\ No newline at end of file\n+LAST\r\n\\ No newline at end of file\n";
        api::apply_patch(&json!(patch), Some(o))
    });
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(show(&bytes), show(b"a\r\nb\r\nLAST\r"));
}

/// A file with both endings has no one ending to give: such a hunk's
/// added lines keep the patch's, as before.
#[test]
fn a_mixed_file_keeps_the_patchs_endings_for_such_a_hunk() {
    for (patch, want) in [
        (
            codex("@@\n-last\n+LAST\n+more\n"),
            &b"a\r\nb\nLAST\nmore\n"[..],
        ),
        (
            codex("@@\n-last\r\n+LAST\r\n+more\r\n"),
            b"a\r\nb\nLAST\r\nmore\r\n",
        ),
    ] {
        let (r, bytes) = after(b"a\r\nb\nlast", |o| {
            api::apply_patch(&json!(patch), Some(o))
        });
        assert_eq!(r["ok"], true, "{r}");
        assert_eq!(show(&bytes), show(want));
    }
}

/// One edit of `f.txt` (search, replacement) through each entry point that
/// reads a caller's LF breaks as the file's: `editFile`, `patchFile` with
/// `match: ["line_endings"]` or that as `defaultMatch` (the MCP server's),
/// and the text editor's `str_replace`. Each with its name.
#[allow(clippy::type_complexity)]
fn line_break_readers(
    search: &str,
    replace: &str,
) -> Vec<(&'static str, Box<dyn Fn(&Value) -> Value>)> {
    let (s, r) = (search.to_string(), replace.to_string());
    let (s2, r2, s3, r3, s4, r4) = (
        s.clone(),
        r.clone(),
        s.clone(),
        r.clone(),
        s.clone(),
        r.clone(),
    );
    vec![
        (
            "editFile",
            Box::new(move |o: &Value| {
                api::edit_file(
                    &json!({"path": "f.txt", "edits": [{"oldText": s, "newText": r}]}),
                    Some(o),
                )
            }),
        ),
        (
            "patchFile match",
            Box::new(move |o: &Value| {
                api::patch_file(
                    &json!({"file_path": "f.txt", "search_block": s2, "replace_block": r2,
                            "match": ["line_endings"]}),
                    Some(o),
                )
            }),
        ),
        (
            "patchFile defaultMatch",
            Box::new(move |o: &Value| {
                let mut o = o.clone();
                o["defaultMatch"] = json!(["line_endings"]);
                api::patch_file(
                    &json!({"file_path": "f.txt", "search_block": s3, "replace_block": r3}),
                    Some(&o),
                )
            }),
        ),
        (
            "str_replace",
            Box::new(move |o: &Value| {
                api::text_editor(
                    &json!({"command": "str_replace", "path": "f.txt", "old_str": s4, "new_str": r4}),
                    Some(o),
                )
            }),
        ),
    ]
}

/// A search that starts inside a line, its replacement adding a line: the
/// new line takes the file's CRLF (`foo qux\r\nbar baz`), as `str_replace`
/// and SEARCH/REPLACE blocks write it, in every encoding; `editFile` wrote
/// a bare LF into the CRLF file.
#[test]
fn a_line_added_by_a_search_inside_a_line_takes_the_files_crlf() {
    let before = "caf\u{e9} bar baz\r\nnext line\r\n";
    let want = "caf\u{e9} qux\r\nbar baz\r\nnext line\r\n";
    for (name, call) in line_break_readers("bar", "qux\nbar") {
        in_every_encoding(name, before, want, &call);
        let (r, _) = after(before.as_bytes(), &call);
        if name != "str_replace" {
            assert_eq!(r["matched_with"], json!(["line_endings"]), "{name}: {r}");
        }
    }
    // The mirror: CRLF sent into an LF file is written LF.
    for (name, call) in line_break_readers("bar", "qux\r\nbar") {
        in_every_encoding(
            name,
            "caf\u{e9} bar baz\nnext line\n",
            "caf\u{e9} qux\nbar baz\nnext line\n",
            &call,
        );
    }
    // Other shapes of a search inside a line.
    for (file, search, replace, want) in [
        (
            "a(); b();\r\nc();\r\n",
            "b();",
            "x();\nb();\ny();",
            "a(); x();\r\nb();\r\ny();\r\nc();\r\n",
        ),
        (
            "let v = [1, 2];\r\nend\r\n",
            "2]",
            "2,\n  3]",
            "let v = [1, 2,\r\n  3];\r\nend\r\n",
        ),
        (
            "one two\r\nthree\r\n",
            "two\r\nthree",
            "two\nthree\nfour",
            "one two\r\nthree\r\nfour\r\n",
        ),
    ] {
        for (name, call) in line_break_readers(search, replace) {
            let (r, bytes) = after(file.as_bytes(), &call);
            assert_eq!(r["ok"], true, "{name} {search:?}: {r}");
            assert_eq!(show(&bytes), show(want.as_bytes()), "{name} {search:?}");
        }
    }
}

/// An edit replacing several places (`replace_all`, `expected_replacements`)
/// under `line_endings`: CRLF sent into an LF file is written LF at each,
/// as LF into a CRLF file is written CRLF.
#[test]
fn several_places_take_the_files_lf_too() {
    for count in [
        json!({"replace_all": true}),
        json!({"expected_replacements": 2}),
    ] {
        for (file, replace, want) in [
            (
                "a();\nz();\na();\n",
                "a();\r\nb();",
                "a();\nb();\nz();\na();\nb();\n",
            ),
            (
                "a();\r\nz();\r\na();\r\n",
                "a();\nb();",
                "a();\r\nb();\r\nz();\r\na();\r\nb();\r\n",
            ),
        ] {
            let mut input = json!({"file_path": "f.txt", "search_block": "a();",
                                   "replace_block": replace, "match": ["line_endings"]});
            input
                .as_object_mut()
                .unwrap()
                .extend(count.as_object().unwrap().clone());
            let (r, bytes) = after(file.as_bytes(), |o| api::patch_file(&input, Some(o)));
            assert_eq!(r["ok"], true, "{count}: {r}");
            assert_eq!(show(&bytes), show(want.as_bytes()), "{count}");
        }
    }
}

/// Plain `patchFile`, without tolerances, stays byte-exact: the
/// replacement is written as sent.
#[test]
fn plain_patch_file_still_writes_a_search_inside_a_line_as_sent() {
    let (r, bytes) = after(b"foo bar baz\r\nnext line\r\n", |o| {
        api::patch_file(
            &json!({"file_path": "f.txt", "search_block": "bar", "replace_block": "qux\nbar"}),
            Some(o),
        )
    });
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(show(&bytes), show(b"foo qux\nbar baz\r\nnext line\r\n"));
}

mod search_inside_a_line {
    //! Through `editFile`, a search that starts at a word inside a line of
    //! a file that uses CRLF throughout (LF throughout), whatever lines the
    //! replacement adds or repeats from the search, leaves the file with
    //! that one ending, or is refused with nothing written.
    use super::*;
    use proptest::prelude::*;

    fn line() -> impl Strategy<Value = String> {
        prop::sample::select(vec![
            "a(); b();",
            "b();",
            "x = a b",
            "a b",
            "}",
            "",
            "  c d",
        ])
        .prop_map(str::to_string)
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 200, failure_persistence: None, ..ProptestConfig::default() })]
        #[test]
        fn an_edit_file_edit_keeps_the_files_one_ending(
            lines in prop::collection::vec(line(), 1..6),
            from in 0usize..6,
            word in 0usize..3,
            more in 0usize..2,
            new in prop::collection::vec(line(), 0..4),
            crlf in any::<bool>(),
            repeat in any::<bool>(),
        ) {
            let (eol, other) = if crlf { ("\r\n", "\n") } else { ("\n", "\r\n") };
            let file = lines.iter().map(|l| format!("{l}{eol}")).collect::<String>();
            let from = from % lines.len();
            // The search: line `from` from its `word`-th word on, and up to
            // `more` whole lines after it, joined as the caller types them.
            let first = &lines[from];
            let cut = first.match_indices(' ').nth(word).map_or(0, |(k, _)| k + 1);
            let mut taken = vec![first[cut..].to_string()];
            taken.extend(lines.iter().skip(from + 1).take(more).cloned());
            let search = taken.join(other);
            if search.trim().is_empty() || file.matches(search.as_str()).count() != 1 {
                return Ok(());
            }
            // The replacement, in the other ending: new lines, and the
            // search's first line again when `repeat` (a line kept on a line
            // of its own).
            let mut replace = new.clone();
            if repeat {
                replace.push(taken[0].clone());
            }
            let replace = replace.join(other);
            let (r, bytes) = after(file.as_bytes(), |o| {
                api::edit_file(
                    &json!({"path": "f.txt", "edits": [{"oldText": search, "newText": replace}]}),
                    Some(o),
                )
            });
            let text = String::from_utf8(bytes).unwrap();
            if r["ok"] == true {
                let rest = if crlf { text.replace("\r\n", "") } else { text.clone() };
                prop_assert!(
                    !rest.contains(if crlf { '\n' } else { '\r' }),
                    "{file:?} {search:?} {replace:?} -> {text:?}"
                );
            } else {
                prop_assert_eq!(&text, &file, "{}", r);
            }
        }
    }
}

/// The anchors of `f.txt`'s lines, as a read with anchors shows them.
fn anchors(o: &Value) -> Vec<String> {
    let r = api::read_file(&json!({"file_path": "f.txt", "anchors": true}), Some(o));
    r["content"]
        .as_str()
        .unwrap()
        .lines()
        .filter_map(|l| l.split_once('|').map(|(a, _)| a.to_string()))
        .collect()
}

/// editLines with a line that ends with a CR no LF follows (`"a\r"`): a
/// lone CR, refused with INVALID_INPUT as one inside a line is, nothing
/// written. The CR was dropped in silence: a line ending CR CR LF lost a
/// byte, `x\r` sent to an LF file was written `x`. A CRLF ending the text
/// is still that line's break.
#[test]
fn edit_lines_refuses_a_line_ending_with_a_lone_cr() {
    for (file, lines) in [
        (&b"a\r\r\nb\r\n"[..], json!(["a\r"])),
        (b"a\nb\n", json!(["x\r"])),
        (b"a\nb\n", json!(["x", "y\r"])),
        (b"a\nb\n", json!("x\r")),
        (b"a\nb\n", json!("x\ny\r")),
    ] {
        let (r, bytes) = after(file, |o| {
            let a = anchors(o);
            api::edit_lines(
                &json!({"file_path": "f.txt", "edits": [{"pos": a[0], "lines": lines}]}),
                Some(o),
            )
        });
        assert_eq!(r["code"], "INVALID_INPUT", "{lines}: {r}");
        let message = r["message"].as_str().unwrap();
        assert!(message.contains("ends with a CR"), "{r}");
        assert!(message.contains("drop that CR"), "{r}");
        assert_eq!(show(&bytes), show(file), "{lines}");
    }
    for lines in [json!(["x\r\n"]), json!("x\r\n"), json!("x\r\ny\r\n")] {
        let (r, bytes) = after(b"a\r\nb\r\n", |o| {
            let a = anchors(o);
            api::edit_lines(
                &json!({"file_path": "f.txt", "edits": [{"pos": a[0], "lines": lines}]}),
                Some(o),
            )
        });
        assert_eq!(r["ok"], true, "{lines}: {r}");
        let want = if lines == json!("x\r\ny\r\n") {
            &b"x\r\ny\r\nb\r\n"[..]
        } else {
            b"x\r\nb\r\n"
        };
        assert_eq!(show(&bytes), show(want), "{lines}");
    }
}
