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
