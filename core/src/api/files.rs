//! `readFile` and `writeFile`.

use serde_json::Value;

use super::entry::{answer, begin};
use crate::codec::source::Encoding;
use crate::error::{ErrorCode, Failure};
use crate::history::Journal;
use crate::input::request::{self, ReadRequest};
use crate::io::snapshots;
use crate::io::source::read_existing;
use crate::io::workspace::{Intent, Workspace};
use crate::matching::anchors;
use crate::model::Options;
use crate::printer;
use crate::result::files::ReadDone;

use crate::result::marks::{flag, True};
use crate::result::{Failed, Outcome};
use crate::text::embedded_utf8;
use crate::text::lines::{count_newlines, line_count};
use crate::txn::edits::{self, WholeFile};

/// `readFile`: a line range of a file plus what an edit needs to know.
pub(super) fn read_file(entry: &'static str, input: &Value, options: Option<&Value>) -> Value {
    answer(options, || {
        let (opts, req, ws) = begin(entry, input, options, request::read_request)?;
        read(&ws, &req, &opts)
    })
}

/// The range `req` asks for, read from the file as it is now.
fn read(ws: &Workspace, req: &ReadRequest, opts: &Options) -> Outcome<ReadDone> {
    let lexical = ws.lexical_abs(&req.file_path);
    let (res, src, torn) = ws
        .resolve(&req.file_path, Intent::Existing)
        .and_then(|res| {
            read_existing(&res, opts, &req.file_path).map(|(s, _, note)| (res, s, note))
        })
        .map_err(|f| Box::new(Failed::new(&f, Some(&lexical))))?;
    let file_path = res.abs_path.to_string_lossy().into_owned();
    let text = src.text();
    let start = line_offset(text, req.offset);
    let mut end = match req.limit {
        Some(n) => start + line_offset(&text[start..], n),
        None => text.len(),
    };
    // One answer carries at most MAX_READ_BYTES: whole lines up to it,
    // with `next_offset` to read on (a JS string cannot hold much more).
    let mut truncated = false;
    if end - start > MAX_READ_BYTES {
        match memchr::memrchr(b'\n', &text[start..start + MAX_READ_BYTES]) {
            Some(i) => {
                end = start + i + 1;
                truncated = true;
            }
            None => {
                let f = Failure::new(
                    ErrorCode::RESULT_TOO_LARGE,
                    printer::line_too_long(req.offset + 1, &req.file_path, MAX_READ_BYTES >> 20),
                );
                return Err(Box::new(Failed::new(&f, Some(&file_path))));
            }
        }
    }
    let sha256 = src.sha256();
    let shown = &text[start..end];
    // A read with anchors counts the lines in its own pass.
    let (content, replaced, returned, total_lines) = if req.anchors {
        let tagged = anchored(text, (&file_path, &sha256), req.offset, start..end);
        let (content, replaced) = match String::from_utf8(tagged.out) {
            Ok(s) => (s, 0),
            Err(e) => lossy(e.as_bytes(), shown),
        };
        (content, replaced, tagged.shown, tagged.total)
    } else {
        let (content, replaced) = match std::str::from_utf8(shown) {
            Ok(s) => (s.to_owned(), 0),
            Err(_) => lossy(shown, shown),
        };
        (content, replaced, line_count(shown), line_count(text))
    };
    let encoding_note = match src.encoding().lf() {
        Encoding::Bytes | Encoding::BytesBom => Some(printer::not_utf8(replaced)),
        Encoding::Legacy(enc) => Some(legacy_warning(enc, src.raw())),
        _ => None,
    };
    let cr_note = src.encoding().is_cr().then(printer::cr_breaks_note);
    // A read with anchors of a file this large is not kept (and those
    // before it are not used): its anchors are checked at line numbers.
    let max = snapshots::max_lines();
    let not_kept = (req.anchors && total_lines > max).then(|| printer::anchors_not_kept(max));
    let warning: Vec<String> = torn
        .into_iter()
        .chain(encoding_note)
        .chain(cr_note)
        .chain(not_kept)
        .collect();
    Ok(ReadDone {
        ok: True,
        file_path,
        content,
        faithful: replaced == 0,
        offset: req.offset,
        lines: returned,
        total_lines,
        next_offset: (end < text.len()).then_some(req.offset + returned),
        truncated: flag(truncated),
        message: truncated.then(|| printer::read_cut(returned, req.offset, MAX_READ_BYTES >> 20)),
        warning: (!warning.is_empty()).then(|| warning.join(". ")),
        sha256,
        encoding: src.encoding().name().to_string(),
        bom: !src.encoding().bom().is_empty(),
        line_ending: src.file_line_ending(),
        bytes: src.raw().len(),
    })
}

/// `content` shown with each run of bytes that are not UTF-8 as U+FFFD
/// (only a byte-level file holds such bytes), and how many runs there are
/// in `shown`, the lines of the file it shows.
fn lossy(content: &[u8], shown: &[u8]) -> (String, usize) {
    let replaced = shown
        .utf8_chunks()
        .filter(|c| !c.invalid().is_empty())
        .count();
    (String::from_utf8_lossy(content).into_owned(), replaced)
}

/// The lines of `text` that start in `range` (line `offset` starts it)
/// tagged `LINE#ID|`, with their count and the text's; what the read
/// showed is kept as a snapshot of the whole file for editLines. The same
/// content read again takes its keys from the snapshot kept of it instead
/// of hashing every line again (a snapshot of the same bytes, taken in this
/// process: its keys are one a line).
fn anchored(
    text: &[u8],
    file: (&str, &str),
    offset: usize,
    range: std::ops::Range<usize>,
) -> anchors::Tagged {
    let (file_path, sha256) = file;
    let known = snapshots::recent(file_path, sha256);
    let mut tagged = anchors::read_tagged(text, offset, range, known.as_ref().map(|s| &s.keys[..]));
    let read = snapshots::Read {
        path: file_path,
        sha256,
        shown: &[(offset as u64, (offset + tagged.shown) as u64)],
    };
    let keys = known.is_none().then(|| std::mem::take(&mut tagged.keys));
    snapshots::keep(&read, keys);
    tagged
}

/// What `readFile` says about a file in a legacy encoding `enc` (`raw`,
/// its bytes): how it is edited, and for a single-byte file that holds
/// valid UTF-8 characters, where and how content shows them.
fn legacy_warning(enc: &'static encoding_rs::Encoding, raw: &[u8]) -> String {
    let found = enc
        .is_single_byte()
        .then(|| embedded_utf8::find(raw))
        .flatten();
    let seen = found.map(|((s, e), n)| {
        (
            n,
            count_newlines(&raw[..s]) + 1,
            enc.decode_without_bom_handling(&raw[s..e]).0,
            String::from_utf8_lossy(&raw[s..e]),
        )
    });
    printer::legacy(
        Encoding::Legacy(enc).name(),
        seen.as_ref()
            .map(|(n, line, shown, utf8)| printer::EmbeddedUtf8 {
                n: *n,
                line: *line,
                shown,
                utf8,
            }),
    )
}

/// Byte offset where line `n` (0-based) starts, or the end.
fn line_offset(text: &[u8], n: usize) -> usize {
    if n == 0 {
        return 0;
    }
    memchr::memchr_iter(b'\n', text)
        .nth(n - 1)
        .map(|i| i + 1)
        .unwrap_or(text.len())
}

/// Most bytes of text one readFile answer carries.
pub(crate) const MAX_READ_BYTES: usize = 128 << 20;

/// `writeFile`: atomic create-or-replace of a whole file.
pub(super) fn write_file(entry: &'static str, input: &Value, options: Option<&Value>) -> Value {
    answer(options, || {
        let (opts, req, ws) = begin(entry, input, options, request::write_request)?;
        let whole = WholeFile {
            file_path: &req.file_path,
            content: &req.content,
            expected_sha256: req.expected_sha256.as_deref(),
            create_dirs: req.create_dirs,
            encoding: req.encoding,
            line_endings_as_sent: req.line_endings_as_sent,
        };
        edits::write_whole(&ws, &whole, &opts, &Journal::for_call(&opts), req.dry_run)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::{read_file, write_file};
    use serde_json::json;
    use std::path::Path;

    fn opts(root: &Path) -> Value {
        json!({ "workspaceRoot": root, "durable": false })
    }

    fn ws() -> (tempfile::TempDir, std::path::PathBuf) {
        let t = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(t.path()).unwrap();
        (t, root)
    }

    #[test]
    fn read_decodes_a_legacy_file_and_names_its_encoding() {
        let (_t, root) = ws();
        std::fs::write(root.join("l1.txt"), b"ok\ncaf\xE9 \xE9\xFF\n").unwrap();
        let r = read_file(&json!({"file_path": "l1.txt"}), Some(&opts(&root)));
        assert_eq!(r["encoding"], "windows-1252", "{r}");
        assert_eq!(r["content"], "ok\ncaf\u{e9} \u{e9}\u{ff}\n");
        assert_eq!(r["faithful"], true);
        assert_eq!(r["bytes"], 11);
        let w = r["warning"].as_str().unwrap();
        assert!(w.contains("decoded as windows-1252"), "{w}");
    }

    #[test]
    fn read_says_when_content_is_not_the_files_bytes() {
        let (_t, root) = ws();
        // Mostly UTF-8 with stray bytes: read at byte level.
        std::fs::write(
            root.join("l1.txt"),
            b"ok\nna\xC3\xAFve r\xC3\xA9sum\xC3\xA9 caf\xE9 \xE9\xFF\n",
        )
        .unwrap();
        std::fs::write(root.join("u8.txt"), "caf\u{e9} \u{FFFD}\n").unwrap();
        let read = |v: Value| read_file(&v, Some(&opts(&root)));

        let r = read(json!({"file_path": "l1.txt"}));
        assert_eq!(r["encoding"], "binary-safe-bytes");
        assert_eq!(
            r["content"],
            "ok\nna\u{ef}ve r\u{e9}sum\u{e9} caf\u{FFFD} \u{FFFD}\u{FFFD}\n"
        );
        assert_eq!(r["faithful"], false);
        let w = r["warning"].as_str().unwrap();
        assert!(w.contains("NOT the file's bytes: 3 places"), "{w}");
        assert!(
            w.contains("encoding: \"utf-8\"") && w.contains("patchFile"),
            "{w}"
        );

        // A range of UTF-8 lines is exact; the file is still byte-level.
        let r = read(json!({"file_path": "l1.txt", "limit": 1}));
        assert_eq!(
            (r["content"].as_str(), &r["faithful"]),
            (Some("ok\n"), &json!(true))
        );
        assert!(r["warning"]
            .as_str()
            .unwrap()
            .contains("this content is exact"));

        // A real U+FFFD in a UTF-8 file is the file's text.
        let r = read(json!({"file_path": "u8.txt"}));
        assert_eq!(r["faithful"], true);
        assert!(r.get("warning").is_none(), "{r}");
    }

    #[test]
    fn write_over_a_byte_level_file_needs_encoding_utf8() {
        let (_t, root) = ws();
        let latin1 = b"caf\xE9\n";
        std::fs::write(root.join("l1.txt"), latin1).unwrap();
        let write = |v: Value| write_file(&v, Some(&opts(&root)));
        let on_disk = || std::fs::read(root.join("l1.txt")).unwrap();

        let back = read_file(&json!({"file_path": "l1.txt"}), Some(&opts(&root)));
        for v in [
            json!({"file_path": "l1.txt", "content": back["content"]}),
            json!({"file_path": "l1.txt", "content": "cafe\n", "dry_run": true}),
            json!({"file_path": "l1.txt", "content": "cafe\n", "expected_sha256": back["sha256"]}),
        ] {
            let r = write(v);
            assert_eq!(r["code"], "UNSUPPORTED_ENCODING", "{r}");
            assert_eq!(
                r["file_path"],
                root.join("l1.txt").to_string_lossy().as_ref()
            );
            assert_eq!(on_disk(), latin1);
        }
        // A stale expected_sha256 is still FILE_CHANGED first.
        let r = write(
            json!({"file_path": "l1.txt", "content": "x", "expected_sha256": "0".repeat(64)}),
        );
        assert_eq!(r["code"], "FILE_CHANGED", "{r}");

        let r =
            write(json!({"file_path": "l1.txt", "content": "caf\u{e9}\n", "encoding": "utf-8"}));
        assert_eq!(r["ok"], true, "{r}");
        assert_eq!(r["encoding"], "utf-8");
        assert_eq!(on_disk(), "caf\u{e9}\n".as_bytes());
    }

    /// A write asked to change the file's encoding: its dry-run diff (of
    /// the text) was empty though every byte outside ASCII changes; the
    /// result says so, dry run and write alike.
    #[test]
    fn a_write_in_another_encoding_says_so() {
        let (_t, root) = ws();
        let write = |v: Value| write_file(&v, Some(&opts(&root)));
        let latin = b"caf\xE9 cr\xE8me\r\n";
        std::fs::write(root.join("w.txt"), latin).unwrap();
        let same = "caf\u{e9} cr\u{e8}me\r\n";
        let dry = write(
            json!({"file_path": "w.txt", "content": same, "encoding": "utf-8", "dry_run": true}),
        );
        assert_eq!(dry["ok"], true, "{dry}");
        assert_eq!(dry["diff"], "", "{dry}");
        let w = dry["warnings"][0].as_str().unwrap();
        assert!(w.contains("written in utf-8, not windows-1252"), "{w}");
        assert_eq!(std::fs::read(root.join("w.txt")).unwrap(), latin);
        let r = write(json!({"file_path": "w.txt", "content": same, "encoding": "utf-8"}));
        assert!(
            r["warnings"][0]
                .as_str()
                .unwrap()
                .contains("not windows-1252"),
            "{r}"
        );
        assert_eq!(std::fs::read(root.join("w.txt")).unwrap(), same.as_bytes());
        // Written in the encoding it is in: nothing to say.
        let r = write(json!({"file_path": "w.txt", "content": "x\n", "encoding": "utf-8"}));
        assert!(r.get("warnings").is_none(), "{r}");
    }

    #[test]
    fn write_encoding_utf8_keeps_a_bom_and_converts_utf16() {
        let (_t, root) = ws();
        let write = |v: Value| write_file(&v, Some(&opts(&root)));
        std::fs::write(root.join("bom.txt"), "\u{FEFF}old\n").unwrap();
        let mut u16 = vec![0xFF, 0xFE];
        u16.extend("old\n".encode_utf16().flat_map(u16::to_le_bytes));
        std::fs::write(root.join("u16.txt"), &u16).unwrap();

        let r = write(json!({"file_path": "bom.txt", "content": "new\n", "encoding": "utf-8"}));
        assert_eq!(r["ok"], true, "{r}");
        assert_eq!(
            std::fs::read(root.join("bom.txt")).unwrap(),
            "\u{FEFF}new\n".as_bytes()
        );

        // Without `encoding` a UTF-16 file stays UTF-16; with it, it becomes UTF-8.
        let r = write(json!({"file_path": "u16.txt", "content": "old\n"}));
        assert_eq!(r["encoding"], "utf-16le", "{r}");
        assert_eq!(std::fs::read(root.join("u16.txt")).unwrap(), u16);
        let r = write(json!({"file_path": "u16.txt", "content": "new\n", "encoding": "utf-8"}));
        assert_eq!(r["encoding"], "utf-8", "{r}");
        assert_eq!(std::fs::read(root.join("u16.txt")).unwrap(), b"new\n");

        let r = write(json!({"file_path": "n.txt", "content": "n\n", "encoding": "utf-8"}));
        assert_eq!(
            (r["ok"].clone(), r["created"].clone()),
            (json!(true), json!(true)),
            "{r}"
        );
    }

    /// A whole-file write keeps an existing file's line breaks (all LF or
    /// all CRLF), in every encoding; mixed files and mixed text, new files
    /// and `line_endings: "as_sent"` are written as sent.
    #[test]
    fn a_whole_file_write_keeps_the_line_endings_of_the_file() {
        let (_t, root) = ws();
        let o = opts(&root);
        let w = |name: &str, content: &str, extra: Value| {
            let mut input = json!({"file_path": name, "content": content});
            input
                .as_object_mut()
                .unwrap()
                .extend(extra.as_object().unwrap().clone());
            let r = write_file(&input, Some(&o));
            assert_eq!(r["ok"], true, "{r}");
            std::fs::read(root.join(name)).unwrap()
        };
        std::fs::write(root.join("crlf.txt"), b"a\r\nb\r\n").unwrap();
        assert_eq!(w("crlf.txt", "x\ny\nz\n", json!({})), b"x\r\ny\r\nz\r\n");
        std::fs::write(root.join("lf.txt"), b"a\nb\n").unwrap();
        assert_eq!(w("lf.txt", "x\r\ny\r\n", json!({})), b"x\ny\n");
        // UTF-8 with a BOM, and UTF-16LE, CRLF.
        std::fs::write(root.join("bom.txt"), b"\xEF\xBB\xBFa\r\n").unwrap();
        assert_eq!(w("bom.txt", "x\ny\n", json!({})), b"\xEF\xBB\xBFx\r\ny\r\n");
        let utf16 = |s: &str| -> Vec<u8> {
            let mut v = vec![0xFF, 0xFE];
            v.extend(s.encode_utf16().flat_map(u16::to_le_bytes));
            v
        };
        std::fs::write(root.join("u16.txt"), utf16("a\r\nb\r\n")).unwrap();
        assert_eq!(w("u16.txt", "x\ny\n", json!({})), utf16("x\r\ny\r\n"));
        // Mixed file, mixed text, a new file, and as_sent: as sent.
        std::fs::write(root.join("mixed.txt"), b"a\r\nb\n").unwrap();
        assert_eq!(w("mixed.txt", "x\ny\n", json!({})), b"x\ny\n");
        std::fs::write(root.join("crlf2.txt"), b"a\r\nb\r\n").unwrap();
        assert_eq!(w("crlf2.txt", "x\r\ny\n", json!({})), b"x\r\ny\n");
        assert_eq!(w("new.txt", "x\ny\n", json!({})), b"x\ny\n");
        std::fs::write(root.join("crlf3.txt"), b"a\r\nb\r\n").unwrap();
        assert_eq!(
            w("crlf3.txt", "x\ny\n", json!({"line_endings": "as_sent"})),
            b"x\ny\n"
        );
        let bad = write_file(
            &json!({"file_path": "crlf3.txt", "content": "x", "line_endings": "lf"}),
            Some(&o),
        );
        assert_eq!(bad["code"], "INVALID_INPUT", "{bad}");
    }
}
