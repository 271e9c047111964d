//! `editLines`: edits that name lines by the anchors of a read with
//! `anchors: true` (see `matching::anchors` for why an anchor is checked
//! against what that read showed, not only by its two-letter ID).

use serde_json::Value;

use super::entry::{answer, begin};
use crate::history::Journal;
use crate::input::request;
use crate::txn::lines::{self, LinesCall};

/// `editLines`: replace, delete or insert lines named by `LINE#ID` anchors,
/// all edits of a call together or none, through the one pipeline.
pub(super) fn edit_lines(entry: &'static str, input: &Value, options: Option<&Value>) -> Value {
    answer(options, || {
        let (opts, req, ws) = begin(entry, input, options, request::lines_request)?;
        let call = LinesCall {
            file_path: &req.file_path,
            edits: &req.edits,
            expected_sha256: req.expected_sha256.as_deref(),
            untagged: req.untagged,
        };
        lines::edit_lines(&ws, &call, &opts, &Journal::for_call(&opts), req.dry_run)
    })
}

#[cfg(test)]
mod tests {
    use std::fs;
    use std::path::{Path, PathBuf};

    use serde_json::{json, Value};

    use crate::api::{apply_dry_run, edit_lines, read_file, undo};

    fn ws() -> (tempfile::TempDir, PathBuf) {
        let t = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(t.path()).unwrap();
        (t, root)
    }

    fn opts(root: &Path) -> Value {
        json!({ "workspaceRoot": root, "durable": false })
    }

    /// The anchors of a read with anchors, by 1-based line.
    fn read(root: &Path, name: &str) -> Vec<String> {
        let r = read_file(
            &json!({"file_path": name, "anchors": true}),
            Some(&opts(root)),
        );
        assert_eq!(r["ok"], true, "{r}");
        r["content"]
            .as_str()
            .unwrap()
            .lines()
            .map(|l| l.split('|').next().unwrap().to_string())
            .collect()
    }

    /// The anchor of the first current line a refusal `r` shows that
    /// `pick` takes.
    fn shown_anchor(r: &Value, pick: impl Fn(&str) -> bool) -> String {
        let shown = r["anchors"][0]["lines"].as_str().unwrap();
        shown
            .lines()
            .find(|l| pick(l))
            .and_then(|l| l.split('|').next())
            .unwrap_or_else(|| panic!("{shown}"))
            .to_string()
    }

    /// The snapshots on disk keep the last reads of a path, whatever their
    /// contents: a read of a third content took the slot of the latest read
    /// when the two contents' sha256 ended alike (a slot chosen by the
    /// hash), and an edit from the latest read, made by another process,
    /// was judged against the older read left: `3#..` on the `}` of a new
    /// z() was written on the `}` of a() three lines below.
    #[test]
    fn the_latest_read_is_kept_on_disk_when_another_content_is_read_after_it() {
        use crate::codec::source::sha256_hex;
        let (_t, root) = ws();
        let c0 = "function a() {\n  return 1\n}\nfunction b() {\n  return 2\n}\n";
        fs::write(root.join("f.js"), c0).unwrap();
        read(&root, "f.js");
        let c1 = format!("function z() {{\n  return 0\n}}\n{c0}");
        fs::write(root.join("f.js"), &c1).unwrap();
        let latest = read(&root, "f.js");
        // A third content (a() changed), its lines 5 and 6 read after it,
        // whose sha256 ends as c1's does modulo the slots.
        let last = |t: &str| u32::from_str_radix(&sha256_hex([t.as_bytes()])[63..], 16).unwrap();
        let c2 = (0..)
            .map(|i| c1.replace("return 1", &format!("return {}", i + 7)))
            .find(|t| last(t) % 4 == last(&c1) % 4)
            .unwrap();
        fs::write(root.join("f.js"), &c2).unwrap();
        let r = read_file(
            &json!({"file_path": "f.js", "anchors": true, "offset": 4, "limit": 2}),
            Some(&opts(&root)),
        );
        assert!(r["content"].as_str().unwrap().starts_with("5#"), "{r}");
        // The file back as the latest read showed it; the edit made as by
        // another process (the reads on disk only).
        fs::write(root.join("f.js"), &c1).unwrap();
        crate::io::snapshots::forget_in_process(&root);
        let r = edit(
            &root,
            "f.js",
            json!([{"pos": latest[2], "lines": "} // z"}]),
        );
        assert_eq!(r["ok"], true, "{r}");
        assert_eq!(
            fs::read_to_string(root.join("f.js")).unwrap(),
            format!("function z() {{\n  return 0\n}} // z\n{c0}")
        );
    }

    /// `f.js`, two functions, read with anchors; then three lines written
    /// above them and the second one's body changed. The file, the read's
    /// anchors, the file as it is now.
    fn shifted_functions(root: &Path) -> (PathBuf, Vec<String>, &'static str) {
        let file = root.join("f.js");
        fs::write(
            &file,
            "function a() {\n  x();\n}\nfunction b() {\n  y();\n}\n",
        )
        .unwrap();
        let a = read(root, "f.js");
        let now = "// 1\n// 2\n// 3\nfunction a() {\n  x();\n}\nfunction b() {\n  z();\n}\n";
        fs::write(&file, now).unwrap();
        (file, a, now)
    }

    /// The retry a refusal asks for: `keep` sent with an edit of `stale`
    /// (refused), then again with that edit's anchor taken from the lines
    /// the refusal showed (the first that `pick` takes); the retry must be
    /// written, judged against kept reads. The refusal, for more checks.
    fn retry_keeping(
        root: &Path,
        name: &str,
        keep: &Value,
        (stale, pick): (&str, impl Fn(&str) -> bool),
        line: &str,
    ) -> Value {
        let refused = edit(root, name, json!([keep, {"pos": stale, "lines": line}]));
        assert_eq!(refused["code"], "ANCHOR_MISMATCH", "{refused}");
        let fresh = shown_anchor(&refused, pick);
        let r = edit(root, name, json!([keep, {"pos": fresh, "lines": line}]));
        assert_eq!(r["ok"], true, "{r}");
        assert_eq!(r["verified"], "snapshot", "{r}");
        refused
    }

    fn edit(root: &Path, name: &str, edits: Value) -> Value {
        edit_lines(
            &json!({"file_path": name, "edits": edits}),
            Some(&opts(root)),
        )
    }

    #[test]
    fn a_read_with_anchors_tags_every_line_and_a_plain_read_is_unchanged() {
        let (_t, root) = ws();
        fs::write(root.join("a.txt"), "one\n}\n}\n").unwrap();
        let r = read_file(
            &json!({"file_path": "a.txt", "anchors": true, "offset": 1}),
            Some(&opts(&root)),
        );
        let c = r["content"].as_str().unwrap();
        let rows: Vec<&str> = c.lines().collect();
        assert_eq!(rows.len(), 2, "{c}");
        assert!(rows[0].starts_with("2#") && rows[0].ends_with("|}"), "{c}");
        assert_eq!(rows[0][1..], rows[1][1..], "same content, same ID");
        let plain = read_file(&json!({"file_path": "a.txt"}), Some(&opts(&root)));
        assert_eq!(plain["content"], "one\n}\n}\n");
        // Read again (its keys now taken from the snapshot kept), whole or
        // in part, it shows the same tags.
        let whole = |input: Value| {
            let r = read_file(&input, Some(&opts(&root)));
            r["content"].as_str().unwrap().to_string()
        };
        let all = whole(json!({"file_path": "a.txt", "anchors": true}));
        assert_eq!(all.lines().count(), 3, "{all}");
        assert!(all.ends_with(c), "{all}");
        let middle = whole(json!({"file_path": "a.txt", "anchors": true, "offset": 1, "limit": 1}));
        assert_eq!(middle, rows[0].to_string() + "\n");
        assert_eq!(whole(json!({"file_path": "a.txt", "anchors": true})), all);
    }

    #[test]
    fn each_op_lands_and_the_file_keeps_its_encoding_and_line_breaks() {
        let (_t, root) = ws();
        let utf16 = |s: &str| -> Vec<u8> {
            let mut v = vec![0xFF, 0xFE];
            v.extend(s.encode_utf16().flat_map(u16::to_le_bytes));
            v
        };
        let cases: Vec<(&str, Vec<u8>, Vec<u8>)> = vec![
            ("lf.txt", b"a\nb\nc\n".to_vec(), b"a\nB\nc\nd\n".to_vec()),
            (
                "crlf.txt",
                b"a\r\nb\r\nc\r\n".to_vec(),
                b"a\r\nB\r\nc\r\nd\r\n".to_vec(),
            ),
            (
                "bom.txt",
                b"\xEF\xBB\xBFa\nb\nc\n".to_vec(),
                b"\xEF\xBB\xBFa\nB\nc\nd\n".to_vec(),
            ),
            (
                "u16.txt",
                utf16("a\r\nb\r\nc\r\n"),
                utf16("a\r\nB\r\nc\r\nd\r\n"),
            ),
            (
                "l1.txt",
                b"caf\xE9\nb\nc\n".to_vec(),
                b"caf\xE9\nB\nc\nd\n".to_vec(),
            ),
        ];
        for (name, before, after) in cases {
            fs::write(root.join(name), &before).unwrap();
            let a = read(&root, name);
            let r = edit(
                &root,
                name,
                json!([
                    {"op": "replace", "pos": a[1], "lines": "B"},
                    {"op": "append", "pos": a[2], "lines": ["d"]}
                ]),
            );
            assert_eq!(r["ok"], true, "{name}: {r}");
            assert_eq!(r["verified"], "snapshot", "{r}");
            assert_eq!(fs::read(root.join(name)).unwrap(), after, "{name}");
        }
        // Ranges, deletion, the file's two ends.
        fs::write(root.join("r.txt"), "1\n2\n3\n4\n").unwrap();
        let a = read(&root, "r.txt");
        let r = edit(
            &root,
            "r.txt",
            json!([
                {"op": "replace", "pos": a[1], "end": a[2], "lines": null},
                {"op": "prepend", "lines": "0"},
                {"op": "append", "lines": ["5", "6"]}
            ]),
        );
        assert_eq!(r["ok"], true, "{r}");
        assert_eq!(
            fs::read_to_string(root.join("r.txt")).unwrap(),
            "0\n1\n4\n5\n6\n"
        );
        // Without `op` (or with null, as a strict model sends it), an edit
        // replaces; without `pos` as well, it is refused.
        let a = read(&root, "r.txt");
        let r = edit(
            &root,
            "r.txt",
            json!([
                {"pos": a[0], "lines": "zero"},
                {"op": null, "pos": a[2], "end": a[3], "lines": "four"}
            ]),
        );
        assert_eq!(r["ok"], true, "{r}");
        assert_eq!(
            fs::read_to_string(root.join("r.txt")).unwrap(),
            "zero\n1\nfour\n6\n"
        );
        let r = edit(&root, "r.txt", json!([{"lines": "x"}]));
        assert_eq!(r["code"], "INVALID_INPUT", "{r}");
        assert!(
            r["message"].as_str().unwrap().contains("needs `pos`"),
            "{r}"
        );
    }

    /// The anchors of a read of lines `offset..offset+limit` (0-based
    /// offset), by 1-based line.
    fn read_page(root: &Path, name: &str, offset: usize, limit: usize) -> Vec<(usize, String)> {
        let r = read_file(
            &json!({"file_path": name, "anchors": true, "offset": offset, "limit": limit}),
            Some(&opts(root)),
        );
        assert_eq!(r["ok"], true, "{r}");
        let tags = r["content"].as_str().unwrap().lines();
        let tags = tags.map(|l| l.split('|').next().unwrap().to_string());
        (offset + 1..).zip(tags).collect()
    }

    /// `v`'s lines, each ended by LF.
    fn text(v: &[String]) -> String {
        v.iter().map(|l| format!("{l}\n")).collect()
    }

    /// A range whose `pos` a read of the first page showed and whose `end`
    /// a read of the second showed, the file changed between them (lines
    /// put on top): no one read showed both, and the anchors were checked
    /// at their line numbers, where `pos`'s `}` stood five lines earlier:
    /// five more lines deleted.
    #[test]
    fn a_range_read_in_two_pages_of_two_contents_is_placed_by_both_reads() {
        let (_t, root) = ws();
        let v1: Vec<String> = (1..=30)
            .map(|i| {
                if i % 5 == 0 {
                    "}".into()
                } else {
                    format!("  s{i}()")
                }
            })
            .collect();
        fs::write(root.join("a.js"), text(&v1)).unwrap();
        let page1 = read_page(&root, "a.js", 0, 20);
        let top = ["// 1", "// 2", "// 3", "// 4", "// 5"];
        let r = edit(
            &root,
            "a.js",
            json!([{"op": "prepend", "pos": page1[0].1, "lines": top}]),
        );
        assert_eq!(r["ok"], true, "{r}");
        let page2 = read_page(&root, "a.js", 20, 20);
        // From the `}` page 1 showed as line 10 to `s21()`, now line 26.
        let (pos, end) = (&page1[9].1, &page2[5].1);
        let r = edit(
            &root,
            "a.js",
            json!([{"pos": pos, "end": end, "lines": "} // merged"}]),
        );
        assert_eq!(r["ok"], true, "{r}");
        assert_eq!(r["verified"], "snapshot", "{r}");
        assert_eq!(
            r["edits"],
            json!([{"line": 15, "removed": 12, "added": 1}]),
            "{r}"
        );
        let mut want: Vec<String> = top.iter().map(|s| s.to_string()).collect();
        want.extend(v1[..9].iter().cloned());
        want.push("} // merged".into());
        want.extend(v1[21..].iter().cloned());
        assert_eq!(fs::read_to_string(root.join("a.js")).unwrap(), text(&want));
    }

    /// The same, but a line inside the range changed after the first read
    /// and the second read did not show it: refused, nothing written.
    #[test]
    fn a_range_read_in_two_pages_with_an_unseen_change_between_is_refused() {
        let (_t, root) = ws();
        let v1: Vec<String> = (1..=30).map(|i| format!("  s{i}()")).collect();
        fs::write(root.join("a.js"), text(&v1)).unwrap();
        let page1 = read_page(&root, "a.js", 0, 10);
        let mut v2 = v1.clone();
        v2[14] = "  changed()".into();
        v2.insert(0, "// top".into());
        fs::write(root.join("a.js"), text(&v2)).unwrap();
        let page2 = read_page(&root, "a.js", 20, 10);
        let (pos, end) = (&page1[4].1, &page2[2].1);
        let r = edit(
            &root,
            "a.js",
            json!([{"pos": pos, "end": end, "lines": "x"}]),
        );
        assert_eq!(r["code"], "ANCHOR_MISMATCH", "{r}");
        assert_eq!(fs::read_to_string(root.join("a.js")).unwrap(), text(&v2));
        // Shown whole by the two reads, unchanged: placed.
        let page1 = read_page(&root, "a.js", 0, 20);
        let (pos, end) = (&page1[4].1, &page2[2].1);
        let r = edit(
            &root,
            "a.js",
            json!([{"pos": pos, "end": end, "lines": "x"}]),
        );
        assert_eq!(r["ok"], true, "{r}");
        assert_eq!(r["verified"], "snapshot", "{r}");
    }

    /// A file read with anchors, then 200 others (a session exploring a
    /// project), then changed behind the caller's back: the read is still
    /// kept, and the edit follows its line (past 64 reads it was dropped,
    /// and the `}` checked at its line number was another function's).
    #[test]
    fn a_read_is_kept_while_a_few_hundred_other_files_are_read() {
        let (_t, root) = ws();
        fs::write(root.join("main.js"), "function a() {\n  return 1\n}\n").unwrap();
        let a = read(&root, "main.js");
        for k in 0..200 {
            let name = format!("o{k}.js");
            fs::write(root.join(&name), format!("// {k}\n")).unwrap();
            read(&root, &name);
        }
        fs::write(
            root.join("main.js"),
            "function z() {\n  return 0\n}\nfunction a() {\n  return 1\n}\n",
        )
        .unwrap();
        let r = edit(
            &root,
            "main.js",
            json!([{"pos": a[2], "lines": "} // end of a"}]),
        );
        assert_eq!(r["ok"], true, "{r}");
        assert_eq!(r["verified"], "snapshot", "{r}");
        assert_eq!(
            fs::read_to_string(root.join("main.js")).unwrap(),
            "function z() {\n  return 0\n}\nfunction a() {\n  return 1\n} // end of a\n"
        );
    }

    /// The result's `edits` are in the caller's order (they were in the
    /// file's), and count the lines a marker was expanded into (they
    /// counted the marker, and the next edit's line was off by as many).
    #[test]
    fn each_edits_report_is_in_the_callers_order_and_counts_what_was_written() {
        let (_t, root) = ws();
        let text =
            "function f() {\n  const a = 1\n  const b = 2\n  const c = 3\n  return a + b + c\n}\n";
        fs::write(root.join("a.js"), text).unwrap();
        let a = read(&root, "a.js");
        let lazy = [
            "  const a = 1",
            "  // ... existing code ...",
            "  return a + b + c",
        ];
        let r = edit(
            &root,
            "a.js",
            json!([
                {"pos": a[5], "lines": "} // end"},
                {"pos": a[1], "end": a[4], "lines": lazy},
                {"op": "prepend", "lines": ["// a", "// b"]}
            ]),
        );
        assert_eq!(r["ok"], true, "{r}");
        assert_eq!(r["expanded"][0]["kept_lines"], json!([3, 4]), "{r}");
        let now = fs::read_to_string(root.join("a.js")).unwrap();
        assert_eq!(
            now,
            "// a\n// b\nfunction f() {\n  const a = 1\n  const b = 2\n  const c = 3\n  return a + b + c\n} // end\n"
        );
        assert_eq!(
            r["edits"],
            json!([
                {"line": 8, "removed": 1, "added": 1},
                {"line": 4, "removed": 4, "added": 4},
                {"line": 1, "removed": 0, "added": 2}
            ]),
            "{r}"
        );
    }

    /// New lines copied from the read, tags and all, were written with
    /// their `LINE#ID|` tags into the file.
    #[test]
    fn lines_copied_with_their_tags_are_written_without_them() {
        let (_t, root) = ws();
        fs::write(root.join("f.py"), "def f():\n    x = 1\n\n    return x\n").unwrap();
        let r = read_file(
            &json!({"file_path": "f.py", "anchors": true}),
            Some(&opts(&root)),
        );
        let shown: Vec<String> = r["content"]
            .as_str()
            .unwrap()
            .lines()
            .map(String::from)
            .collect();
        let a: Vec<&str> = shown.iter().map(|l| l.split('|').next().unwrap()).collect();
        // Lines 2..4 sent back as read, one changed after its tag, the
        // blank line's tag kept too.
        let sent = [
            shown[1].replace("= 1", "= 2"),
            shown[2].clone(),
            shown[3].clone(),
        ];
        let r = edit(
            &root,
            "f.py",
            json!([{"pos": a[1], "end": a[3], "lines": sent}]),
        );
        assert_eq!(r["ok"], true, "{r}");
        assert_eq!(
            fs::read_to_string(root.join("f.py")).unwrap(),
            "def f():\n    x = 2\n\n    return x\n"
        );
        assert!(
            r["warnings"][0].as_str().unwrap().contains("LINE#ID|"),
            "{r}"
        );
        // Some lines tagged as the read tags them and some not: which is
        // meant cannot be told.
        let a = read(&root, "f.py");
        let mixed = json!([{"pos": a[1], "lines": [tag(2, "    x = 3"), "    y = 4"]}]);
        let r = edit(&root, "f.py", mixed);
        assert_eq!(r["code"], "INVALID_INPUT", "{r}");
        assert!(r["message"].as_str().unwrap().contains("edits[0]"), "{r}");
        assert_eq!(
            fs::read_to_string(root.join("f.py")).unwrap(),
            "def f():\n    x = 2\n\n    return x\n"
        );
        // Text that only looks like a tag (not the read's alphabet, no `|`)
        // is written as sent.
        let r = edit(
            &root,
            "f.py",
            json!([{"pos": a[1], "lines": ["2#XY|x", "    #ab|y"]}]),
        );
        assert_eq!(r["ok"], true, "{r}");
        assert!(r.get("warnings").is_none(), "{r}");
        assert!(fs::read_to_string(root.join("f.py"))
            .unwrap()
            .contains("2#XY|x\n    #ab|y\n"));
    }

    /// `text` tagged `LINE#ID|` as a read of it at 1-based `line` shows it.
    fn tag(line: usize, text: &str) -> String {
        use crate::matching::anchors::{id_of, line_key};
        let id = id_of(line_key(text.as_bytes()));
        format!("{line}#{}|{text}", String::from_utf8_lossy(&id))
    }

    /// `text` behind a tag of `LINE#ID|` shape whose ID is not its own.
    fn false_tag(line: usize, text: &str) -> String {
        let own = tag(line, text);
        let id = if own.contains("#aa|") { "ab" } else { "aa" };
        format!("{line}#{id}|{text}")
    }

    /// Lines that start like a read's tag but whose ID is not that of the
    /// rest of the line (an example of the format in a Markdown file) are
    /// text: they lost that start. A tag a read gave (its ID the rest's,
    /// or the edit's own anchor, a copied line edited after it) is taken
    /// off.
    #[test]
    fn a_line_that_only_looks_like_a_tag_is_written_as_sent() {
        let (_t, root) = ws();
        let file = root.join("notes.md");
        fs::write(&file, "# Notes\n\nend\n").unwrap();
        let a = read(&root, "notes.md");
        let example = [false_tag(41, ""), false_tag(42, "  function hello() {")];
        let lines = json!(["```text", example[0], example[1], "```"]);
        let r = edit(&root, "notes.md", json!([{"pos": a[1], "lines": lines}]));
        assert_eq!(r["ok"], true, "{r}");
        assert!(r.get("warnings").is_none(), "{r}");
        let want = format!(
            "# Notes\n```text\n{}\n{}\n```\nend\n",
            example[0], example[1]
        );
        assert_eq!(fs::read_to_string(&file).unwrap(), want);
        // Every line of that shape, none the read's: text too.
        let a = read(&root, "notes.md");
        let r = edit(
            &root,
            "notes.md",
            json!([{"pos": a[2], "end": a[3], "lines": example}]),
        );
        assert_eq!(r["ok"], true, "{r}");
        assert_eq!(fs::read_to_string(&file).unwrap(), want);
        // A line copied with its tag and edited after it, alone: its tag
        // is the edit's anchor, taken off.
        let a = read(&root, "notes.md");
        let copied = format!("{}|# Notes, edited", a[0]);
        let r = edit(&root, "notes.md", json!([{"pos": a[0], "lines": copied}]));
        assert_eq!(r["ok"], true, "{r}");
        assert!(
            r["warnings"][0].as_str().unwrap().contains("LINE#ID|"),
            "{r}"
        );
        let now = fs::read_to_string(&file).unwrap();
        assert!(now.starts_with("# Notes, edited\n```text\n"), "{now}");
    }

    #[test]
    fn stale_anchors_are_refused_and_shifted_ones_followed() {
        let (_t, root) = ws();
        fs::write(
            root.join("s.rs"),
            "fn a() {\n    x();\n}\nfn b() {\n    y();\n}\n",
        )
        .unwrap();
        let a = read(&root, "s.rs");
        // Changed behind the caller's back: two lines on top, y() edited.
        fs::write(
            root.join("s.rs"),
            "// 1\n// 2\nfn a() {\n    x();\n}\nfn b() {\n    z();\n}\n",
        )
        .unwrap();
        let r = edit(
            &root,
            "s.rs",
            json!([{"op": "replace", "pos": a[4], "lines": "    w();"}]),
        );
        assert_eq!(r["code"], "ANCHOR_MISMATCH", "{r}");
        assert_eq!(r["anchors"][0]["problem"], "changed");
        assert!(
            r["anchors"][0]["lines"]
                .as_str()
                .unwrap()
                .contains("|    z();"),
            "{r}"
        );
        // The `}` of a() moved down two lines: the edit follows it.
        let r = edit(
            &root,
            "s.rs",
            json!([{"op": "replace", "pos": a[2], "lines": "} // a"}]),
        );
        assert_eq!(r["ok"], true, "{r}");
        assert_eq!(r["rebased"], true, "{r}");
        assert_eq!(
            fs::read_to_string(root.join("s.rs")).unwrap(),
            "// 1\n// 2\nfn a() {\n    x();\n} // a\nfn b() {\n    z();\n}\n"
        );
        // Overlapping edits are refused.
        let a = read(&root, "s.rs");
        let r = edit(
            &root,
            "s.rs",
            json!([{"op": "replace", "pos": a[0], "end": a[2], "lines": "x"}, {"op": "append", "pos": a[1], "lines": "y"}]),
        );
        assert_eq!(r["code"], "INVALID_INPUT", "{r}");
    }

    /// Twenty three-line functions; the anchor of line 30 (the `}` of f9).
    fn functions(root: &Path) -> (PathBuf, Vec<String>, Vec<String>) {
        let body: Vec<String> = (0..20)
            .flat_map(|i| {
                [
                    format!("function f{i}() {{"),
                    format!("  return {i};"),
                    "}".into(),
                ]
            })
            .collect();
        let file = root.join("f.js");
        fs::write(&file, body.join("\n") + "\n").unwrap();
        let a = read(root, "f.js");
        (file, body, a)
    }

    /// Ends line 30 of the read `a` (the `}` of f9) with a comment, and
    /// checks that it landed on that `}`, now line 33 of `file`.
    fn end_f9(root: &Path, file: &Path, a: &[String]) {
        let r = edit(
            root,
            "f.js",
            json!([{"pos": a[29], "lines": "} // end of f9"}]),
        );
        assert_eq!(r["ok"], true, "{r}");
        let now = fs::read_to_string(file).unwrap();
        assert_eq!(now.lines().nth(32), Some("} // end of f9"), "{now}");
    }

    /// Reads of parts of the file show those lines only: two partial reads
    /// of the same content do not show the lines between them, nor does a
    /// refusal that showed the lines around two anchors.
    #[test]
    fn partial_reads_and_refusals_show_only_their_lines() {
        let (_t, root) = ws();
        let (file, body, a) = functions(&root);
        let on_top = |body: &[String]| {
            let mut v = vec![
                "function g() {".to_string(),
                "  return -1;".into(),
                "}".into(),
            ];
            v.extend(body.iter().cloned());
            v.join("\n") + "\n"
        };
        fs::write(&file, on_top(&body)).unwrap();
        for (offset, limit) in [(0, 3), (50, 3)] {
            let r = read_file(
                &json!({"file_path": "f.js", "anchors": true, "offset": offset, "limit": limit}),
                Some(&opts(&root)),
            );
            assert_eq!(r["ok"], true, "{r}");
        }
        end_f9(&root, &file, &a);
        // A refusal of two anchors far apart shows the lines around each.
        let (file, body, a) = functions(&root);
        let mut changed = body.clone();
        changed[4] = "  return 100;".into();
        changed[55] = "  return 1800;".into();
        fs::write(&file, on_top(&changed)).unwrap();
        let r = edit(
            &root,
            "f.js",
            json!([{"pos": a[4], "lines": "x"}, {"pos": a[55], "lines": "y"}]),
        );
        assert_eq!(r["code"], "ANCHOR_MISMATCH", "{r}");
        end_f9(&root, &file, &a);
    }

    /// The retry a refusal asks for: the edit that was not refused keeps its
    /// old anchor, the refused one takes the anchor the refusal showed; each
    /// is judged against the read it comes from.
    #[test]
    fn a_retry_mixing_old_and_refusal_anchors_judges_each_against_its_read() {
        let (_t, root) = ws();
        let (file, body, a) = functions(&root);
        let mut v2 = vec![
            "function g() {".to_string(),
            "  return -1;".into(),
            "}".into(),
        ];
        v2.extend(body.iter().map(|l| {
            if l == "  return 18;" {
                "  return 180;".into()
            } else {
                l.clone()
            }
        }));
        fs::write(&file, v2.join("\n") + "\n").unwrap();
        let keep = json!({"pos": a[29], "lines": "} // end of f9"});
        let pick = |l: &str| l.ends_with("|  return 180;");
        retry_keeping(&root, "f.js", &keep, (&a[55], pick), "  return 1818;");
        let now: Vec<String> = fs::read_to_string(&file)
            .unwrap()
            .lines()
            .map(String::from)
            .collect();
        assert_eq!(now[32], "} // end of f9", "{now:?}");
        assert_eq!(now[58], "  return 1818;", "{now:?}");
    }

    /// The retry of a refusal where the edit that was not refused names a
    /// `}` whose number, in the file as it is now, is another `}` with the
    /// same ID, inside the lines the refusal shows: the refusal does not
    /// show that line, so the retry still judges the kept edit against the
    /// read it came from, and it lands on the `}` that read showed.
    #[test]
    fn a_refusal_does_not_show_a_line_that_would_claim_a_kept_edits_anchor() {
        let (_t, root) = ws();
        let (file, a, _) = shifted_functions(&root);
        let keep = json!({"pos": a[5], "lines": "} // end of b"});
        let pick = |l: &str| l.ends_with("|  z();");
        let refused = retry_keeping(&root, "f.js", &keep, (&a[4], pick), "  w();");
        let shown = refused["anchors"][0]["lines"].as_str().unwrap();
        assert!(!shown.contains(&format!("{}|", a[5])), "{shown}");
        assert_eq!(
            fs::read_to_string(&file).unwrap(),
            "// 1\n// 2\n// 3\nfunction a() {\n  x();\n}\nfunction b() {\n  w();\n} // end of b\n"
        );
    }

    /// A file unchanged since the read: an anchor inside a run of a
    /// thousand equal lines is that line (no diff could say which of them
    /// it is, and none is needed).
    #[test]
    fn an_anchor_in_a_long_run_of_equal_lines_of_an_unchanged_file_lands() {
        let (_t, root) = ws();
        let file = root.join("r.txt");
        let text = format!("first\n{}last\n", "\n".repeat(1000));
        fs::write(&file, &text).unwrap();
        let a = read(&root, "r.txt");
        let r = edit(&root, "r.txt", json!([{"pos": a[499], "lines": "CHANGED"}]));
        assert_eq!(r["ok"], true, "{r}");
        assert_eq!(r["verified"], "snapshot", "{r}");
        let now: Vec<String> = fs::read_to_string(&file)
            .unwrap()
            .lines()
            .map(String::from)
            .collect();
        assert_eq!(now[499], "CHANGED");
        assert_eq!(now.len(), 1002);
    }

    /// A block longer than the window the relocation looks at, copied or
    /// repeated: a copy of a 40-line function inserted above it (here by
    /// the caller's own earlier edit), or one of six equal 40-line records
    /// removed. Which copy the anchored line is cannot be told from a
    /// window inside the block: refused (`several`), never placed.
    #[test]
    fn a_line_in_a_long_block_copied_or_removed_is_not_guessed() {
        let (_t, root) = ws();
        let file = root.join("h.js");
        let mut f = vec!["function handler(req) {".to_string()];
        f.extend((0..38).map(|i| format!("  const v{i} = req.get(\"k{i}\");")));
        f.push("}".into());
        let text = ["import a from \"a\"".to_string(), String::new()]
            .into_iter()
            .chain(f.iter().cloned())
            .chain([String::new(), "export default handler".into()])
            .collect::<Vec<_>>()
            .join("\n")
            + "\n";
        fs::write(&file, &text).unwrap();
        let a = read(&root, "h.js");
        let mut copy = f.clone();
        copy.push(String::new());
        let r = edit(
            &root,
            "h.js",
            json!([{"op": "prepend", "pos": a[2], "lines": copy}]),
        );
        assert_eq!(r["ok"], true, "{r}");
        let before = fs::read_to_string(&file).unwrap();
        // Refused, and refused again when sent again as it was (the
        // refusal's lines do not show a line that bears that anchor).
        for _ in 0..2 {
            let r = edit(
                &root,
                "h.js",
                json!([{"pos": a[4], "lines": "  const v1 = 0;"}]),
            );
            assert_eq!(r["code"], "ANCHOR_MISMATCH", "{r}");
            assert_eq!(r["anchors"][0]["problem"], "several", "{r}");
            assert_eq!(fs::read_to_string(&file).unwrap(), before);
        }
        // An 80-line function copied above itself with a note between the
        // copies, and a 550-line one copied right above itself.
        for (len, note) in [(78, Some("// TODO: adapt the copy above")), (548, None)] {
            let file = root.join("big.js");
            let mut f = vec!["function handler(req) {".to_string()];
            f.extend((0..len).map(|i| format!("  const v{i} = req.get(\"k{i}\");")));
            f.push("}".into());
            let text = format!(
                "import a from \"a\"\n\n{}\n\nexport default handler\n",
                f.join("\n")
            );
            fs::write(&file, &text).unwrap();
            let a = read(&root, "big.js");
            let copy = [
                text[..text.find("function").unwrap()].to_string(),
                f.join("\n"),
                note.map_or(String::new(), |n| format!("\n{n}")),
            ]
            .concat();
            let now = text.replacen("import a from \"a\"\n\n", &format!("{copy}\n"), 1);
            fs::write(&file, &now).unwrap();
            let r = edit(
                &root,
                "big.js",
                json!([{"pos": a[42], "lines": "  const v39 = 0;"}]),
            );
            assert_eq!(r["code"], "ANCHOR_MISMATCH", "{len}: {r}");
            assert_eq!(fs::read_to_string(&file).unwrap(), now);
        }
        // A 360-line block copied 300 lines below itself: the lines between
        // tell the copies apart, and the edit lands in the one read.
        let file = root.join("far.txt");
        let part =
            |name: &str, n: usize| (0..n).map(|i| format!("{name} {i}\n")).collect::<String>();
        let (head, block, mid, tail) = (
            part("head", 20),
            part("block", 360),
            part("mid", 300),
            part("tail", 20),
        );
        fs::write(&file, [&head[..], &block, &mid, &tail].concat()).unwrap();
        let a = read(&root, "far.txt");
        fs::write(&file, [&head[..], &block, &mid, &block, &tail].concat()).unwrap();
        let r = edit(
            &root,
            "far.txt",
            json!([{"pos": a[120], "lines": "EDITED"}]),
        );
        assert_eq!(r["ok"], true, "{r}");
        assert_eq!(
            fs::read_to_string(&file).unwrap().lines().nth(120),
            Some("EDITED")
        );
        // Six equal records of 40 lines; the first one removed after the read.
        let file = root.join("r.yaml");
        let record: String = (0..40).map(|i| format!("  field{i}: x\n")).collect();
        let records =
            |n: usize| -> String { std::iter::repeat_n(format!("- item:\n{record}"), n).collect() };
        fs::write(&file, format!("items:\n{}end: true\n", records(6))).unwrap();
        let a = read(&root, "r.yaml");
        let now = format!("items:\n{}end: true\n", records(5));
        fs::write(&file, &now).unwrap();
        // field19 of the fourth record read, sent twice.
        for _ in 0..2 {
            let pos = &a[1 + 3 * 41 + 20];
            let r = edit(
                &root,
                "r.yaml",
                json!([{"pos": pos, "lines": "  field19: y"}]),
            );
            assert_eq!(r["code"], "ANCHOR_MISMATCH", "{r}");
            assert_eq!(fs::read_to_string(&file).unwrap(), now);
        }
        // Shifted by a line above the list, the records unchanged: placed.
        let shifted = format!("# list\n{now}");
        fs::write(&file, &shifted).unwrap();
        let a = read(&root, "r.yaml");
        fs::write(&file, format!("# the list\n# of items\n{now}")).unwrap();
        let r = edit(
            &root,
            "r.yaml",
            json!([{"pos": a[2 + 3 * 41 + 20], "lines": "  field19: y"}]),
        );
        assert_eq!(r["ok"], true, "{r}");
        let lines: Vec<String> = fs::read_to_string(&file)
            .unwrap()
            .lines()
            .map(String::from)
            .collect();
        assert_eq!(lines[3 + 3 * 41 + 20], "  field19: y");
    }

    /// The same, the edits in two calls: the refusal of the first shows no
    /// line that the read showed at the same number with the same ID while
    /// that line is elsewhere now, so the second call's anchor is still
    /// judged against the read it came from.
    #[test]
    fn a_refusal_does_not_claim_an_anchor_a_later_call_takes_from_the_read() {
        let (_t, root) = ws();
        let (file, a, now) = shifted_functions(&root);
        let r = edit(&root, "f.js", json!([{"pos": a[4], "lines": "  w();"}]));
        assert_eq!(r["code"], "ANCHOR_MISMATCH", "{r}");
        let r = edit(
            &root,
            "f.js",
            json!([{"pos": a[5], "lines": "} // end of b"}]),
        );
        assert_eq!(r["ok"], true, "{r}");
        assert_eq!(
            fs::read_to_string(&file).unwrap(),
            now.replace("z();\n}", "z();\n} // end of b")
        );
    }

    /// A changed line's edit listed before a moved line's: only the changed
    /// one is refused (a line found nowhere is no reason to take every
    /// other anchor of the call as gone).
    #[test]
    fn a_changed_line_listed_first_does_not_refuse_the_moved_ones() {
        let (_t, root) = ws();
        let file = root.join("v.js");
        fs::write(
            &file,
            "const a = 1;\nconst b = 2;\nconst c = 3;\nconst d = 4;\nconst e = 5;\n",
        )
        .unwrap();
        let a = read(&root, "v.js");
        fs::write(
            &file,
            "// header\n// more\n// more\nconst a = 1;\nconst b = 2;\nconst c = 3;\nconst d = 4;\nconst e = 50;\n",
        )
        .unwrap();
        let r = edit(
            &root,
            "v.js",
            json!([{"pos": a[4], "lines": "const e = 6;"}, {"pos": a[1], "lines": "const b = 20;"}]),
        );
        assert_eq!(r["code"], "ANCHOR_MISMATCH", "{r}");
        let refused = r["anchors"].as_array().unwrap();
        assert_eq!(refused.len(), 1, "{r}");
        assert_eq!(refused[0]["anchor"], a[4], "{r}");
    }

    /// A line read, then shown changed by a newer read, then a line with the
    /// same text written again: the anchor of the first read names a line
    /// that is gone, whatever the first read and the file agree on.
    #[test]
    fn a_line_a_newer_read_showed_changed_is_refused() {
        let (_t, root) = ws();
        let file = root.join("t.txt");
        fs::write(&file, "}\na\nb\n").unwrap();
        let a = read(&root, "t.txt");
        fs::write(&file, "X\na\nb\n").unwrap();
        read(&root, "t.txt");
        fs::write(&file, "X\n}\na\nb\n").unwrap();
        let r = edit(
            &root,
            "t.txt",
            json!([{"pos": a[0], "lines": "} // closing"}]),
        );
        assert_eq!(r["code"], "ANCHOR_MISMATCH", "{r}");
        assert_eq!(r["anchors"][0]["problem"], "changed", "{r}");
        assert_eq!(fs::read_to_string(&file).unwrap(), "X\n}\na\nb\n");
    }

    /// A list of equal records: after one was removed, the 30th record's
    /// line could be any record's, however far the list runs beyond the
    /// window the relocation looks at first. Refused, never placed.
    #[test]
    fn a_line_in_a_long_run_of_equal_records_is_refused_after_one_was_removed() {
        let (_t, root) = ws();
        let file = root.join("list.yml");
        for records in [40, 100, 400] {
            let one = "- name: item\n  qty: 1\n  tags: []\n";
            let text = format!("items:\n{}", one.repeat(records));
            fs::write(&file, &text).unwrap();
            let a = read(&root, "list.yml");
            fs::write(&file, text.replacen(one, "", 1)).unwrap();
            let qty = 1 + 29 * 3 + 1;
            let r = edit(
                &root,
                "list.yml",
                json!([{"pos": a[qty], "lines": "  qty: 2"}]),
            );
            assert_eq!(r["code"], "ANCHOR_MISMATCH", "{records}: {r}");
            assert_eq!(r["anchors"][0]["problem"], "several", "{records}: {r}");
        }
        // Lines added above the list (outside it): the record is where it
        // was, shifted.
        let one = "- name: item\n  qty: 1\n  tags: []\n";
        let text = format!("items:\n{}", one.repeat(100));
        fs::write(&file, &text).unwrap();
        let a = read(&root, "list.yml");
        fs::write(&file, format!("# list\n# of items\n{text}")).unwrap();
        let qty = 1 + 29 * 3 + 1;
        let r = edit(
            &root,
            "list.yml",
            json!([{"pos": a[qty], "lines": "  qty: 2"}]),
        );
        assert_eq!(r["ok"], true, "{r}");
        let lines: Vec<String> = fs::read_to_string(&file)
            .unwrap()
            .lines()
            .map(String::from)
            .collect();
        assert_eq!(lines[qty + 2], "  qty: 2");
        assert_eq!(lines.iter().filter(|l| *l == "  qty: 2").count(), 1);
    }

    /// A file rewritten all over since the read (re-indented): the
    /// anchored line is nowhere, so it is refused without a diff; one whose
    /// line is still there but everything else changed is diffed within the
    /// call's time budget.
    #[test]
    fn a_file_rewritten_all_over_is_refused_without_a_long_diff() {
        let (_t, root) = ws();
        let file = root.join("big.txt");
        let text: String = (0..20_000).map(|i| format!("line {i}\n")).collect();
        fs::write(&file, &text).unwrap();
        let a = read(&root, "big.txt");
        let indented: String = text.lines().map(|l| format!("    {l}\n")).collect();
        fs::write(&file, &indented).unwrap();
        let r = edit(&root, "big.txt", json!([{"pos": a[0], "lines": "first"}]));
        assert_eq!(r["code"], "ANCHOR_MISMATCH", "{r}");
        assert_eq!(r["anchors"][0]["problem"], "changed", "{r}");
        // The first line kept, every other line changed: the diff would
        // take seconds; a 50 ms budget stops it, nothing written.
        let mixed: String = text
            .lines()
            .enumerate()
            .map(|(i, l)| {
                if i == 0 {
                    format!("{l}\n")
                } else {
                    format!("    {l}\n")
                }
            })
            .collect();
        fs::write(&file, &mixed).unwrap();
        let r = edit_lines(
            &json!({"file_path": "big.txt", "edits": [{"pos": a[0], "lines": "first"}]}),
            Some(&json!({ "workspaceRoot": root, "durable": false, "timeoutMs": 50 })),
        );
        assert_eq!(r["code"], "CANCELLED", "{r}");
        assert_eq!(fs::read_to_string(&file).unwrap(), mixed);
    }

    /// Thousands of anchors in long runs of equal lines, the file shifted
    /// since the read: each one's check looks along its run, and the call's
    /// `timeoutMs` bounds them all, not only the diff (before, 12 s of
    /// checks ran past a 1 s budget).
    #[test]
    fn many_anchors_in_long_runs_stop_at_the_calls_time_budget() {
        let (_t, root) = ws();
        let file = root.join("runs.csv");
        let mut text = String::new();
        for s in 0..10 {
            text.push_str(&format!("section {s}\n"));
            text.push_str(&"0,0\n".repeat(950));
        }
        fs::write(&file, &text).unwrap();
        let a = read(&root, "runs.csv");
        let shifted = format!("header\n{text}");
        fs::write(&file, &shifted).unwrap();
        let edits: Vec<Value> = (0..10)
            .flat_map(|s| (1..951).step_by(2).map(move |i| s * 951 + i))
            .map(|l| json!({"pos": a[l], "lines": "1,1"}))
            .collect();
        let t = std::time::Instant::now();
        let r = edit_lines(
            &json!({"file_path": "runs.csv", "edits": edits}),
            Some(&json!({ "workspaceRoot": root, "durable": false, "timeoutMs": 100 })),
        );
        assert_eq!(r["code"], "CANCELLED", "{r}");
        // Far beyond the budget, far below the checks' own time.
        assert!(
            t.elapsed() < std::time::Duration::from_secs(20),
            "{:?}",
            t.elapsed()
        );
        assert_eq!(fs::read_to_string(&file).unwrap(), shifted);
    }

    /// A windows-1252 file that is not valid Shift_JIS or GBK (an accented
    /// letter before a space or a line break) takes accented lines: the
    /// double-byte seam check applies to encodings the file could be in.
    #[test]
    fn an_accented_line_goes_into_a_windows_1252_file() {
        let (_t, root) = ws();
        let file = root.join("fr.txt");
        let latin1 = |s: &str| -> Vec<u8> { s.chars().map(|c| c as u32 as u8).collect() };
        let before = "Le caf\u{e9} est tr\u{e8}s bon.\nJ'ai mang\u{e9} une cr\u{ea}pe \u{e0} la gare.\nx\n\u{c7}a va tr\u{e8}s bien, merci.\n";
        fs::write(&file, latin1(before)).unwrap();
        let a = read(&root, "fr.txt");
        let r = edit(
            &root,
            "fr.txt",
            json!([{"pos": a[2], "lines": "D\u{e9}j\u{e0} vu."}]),
        );
        assert_eq!(r["ok"], true, "{r}");
        assert_eq!(
            fs::read(&file).unwrap(),
            latin1(&before.replace("\nx\n", "\nD\u{e9}j\u{e0} vu.\n"))
        );
    }

    /// A string is one line at least: `""` or `"\n"` blanks the line; only
    /// `null` or `[]` deletes it.
    #[test]
    fn an_empty_string_is_an_empty_line_and_null_deletes() {
        let (_t, root) = ws();
        let file = root.join("e.txt");
        for (lines, after) in [
            (json!(""), "a\n\nc\n"),
            (json!("\n"), "a\n\nc\n"),
            (json!([""]), "a\n\nc\n"),
            (json!("x\n\n"), "a\nx\n\nc\n"),
            (json!(null), "a\nc\n"),
            (json!([]), "a\nc\n"),
        ] {
            fs::write(&file, "a\nsecret = 1\nc\n").unwrap();
            let a = read(&root, "e.txt");
            let r = edit(&root, "e.txt", json!([{"pos": a[1], "lines": lines}]));
            assert_eq!(r["ok"], true, "{lines}: {r}");
            assert_eq!(fs::read_to_string(&file).unwrap(), after, "{lines}");
        }
        // No `lines` at all (a call cut short) deleted the line; refused now.
        fs::write(&file, "a\nsecret = 1\nc\n").unwrap();
        let a = read(&root, "e.txt");
        let r = edit(&root, "e.txt", json!([{"pos": a[1]}]));
        assert_eq!(r["code"], "INVALID_INPUT", "{r}");
        assert!(
            r["message"]
                .as_str()
                .unwrap()
                .contains("`lines` is required"),
            "{r}"
        );
        assert_eq!(fs::read_to_string(&file).unwrap(), "a\nsecret = 1\nc\n");
    }

    /// Anchors are judged against the newest read that showed them: a read
    /// again of a file that changed back, or the lines a refusal showed,
    /// is the caller's view, not an older read whose `}` at the same
    /// number has the same ID; a read of other lines is not.
    #[test]
    fn the_newest_read_that_showed_an_anchor_is_the_one_it_is_judged_against() {
        let (_t, root) = ws();
        let v0 = "function a() {\n  x();\n}\nfunction b() {\n  y();\n}\n";
        let v1 = format!("function c() {{\n  z();\n}}\n{v0}");
        let file = root.join("m.js");
        let now = || fs::read_to_string(&file).unwrap();
        // Read, changed and read, changed back (a revert) and read again.
        fs::write(&file, v0).unwrap();
        read(&root, "m.js");
        fs::write(&file, &v1).unwrap();
        read(&root, "m.js");
        fs::write(&file, v0).unwrap();
        let a = read(&root, "m.js");
        let r = edit(&root, "m.js", json!([{"pos": a[5], "lines": "} // b"}]));
        assert_eq!(r["ok"], true, "{r}");
        assert_eq!(now(), v0.replace("  y();\n}\n", "  y();\n} // b\n"));
        // Read, then a function added on top and b() changed: refused with
        // the current lines, but not line 6, now the `}` of a(): the read
        // showed the `}` of b() there with the same ID, and a later call
        // naming it from that read would find it claimed by the refusal. A
        // read again gives its anchor; the edit lands where it says.
        fs::write(&file, v0).unwrap();
        read(&root, "m.js");
        fs::write(&file, v1.replace("y();", "Y();")).unwrap();
        let r = edit(&root, "m.js", json!([{"pos": a[4], "lines": "  w();"}]));
        assert_eq!(r["code"], "ANCHOR_MISMATCH", "{r}");
        let shown = r["anchors"][0]["lines"].as_str().unwrap();
        assert!(!shown.lines().any(|l| l.starts_with("6#")), "{shown}");
        let six = &read(&root, "m.js")[5];
        let r = edit(
            &root,
            "m.js",
            json!([{"op": "append", "pos": six, "lines": ["function d() {", "}"]}]),
        );
        assert_eq!(r["ok"], true, "{r}");
        assert!(
            now().contains("  x();\n}\nfunction d() {\n}\nfunction b() {"),
            "{}",
            now()
        );
        // A read of the tail only did not show the `}` of b(): an anchor of
        // the whole read before it is judged against that read.
        fs::write(&file, v0).unwrap();
        let a = read(&root, "m.js");
        let c = ["function c() {", "  z();", "}"];
        let r = edit(
            &root,
            "m.js",
            json!([{"op": "prepend", "pos": a[3], "lines": c}]),
        );
        assert_eq!(r["ok"], true, "{r}");
        // Line 6 is now the `}` of c(), with the ID of the anchor; the tail
        // read starts at line 7.
        let tail = read_file(
            &json!({"file_path": "m.js", "anchors": true, "offset": 6}),
            Some(&opts(&root)),
        );
        assert_eq!(tail["ok"], true, "{tail}");
        let r = edit(&root, "m.js", json!([{"pos": a[5], "lines": "} // b"}]));
        assert_eq!(r["ok"], true, "{r}");
        assert!(now().ends_with("  y();\n} // b\n"), "{}", now());
    }

    /// Two lines with the same ID: after the file shifted, the line at the
    /// anchored number has the anchor's ID but other content. With the
    /// read's snapshot the edit lands on the line read; without one the ID
    /// check alone is fooled, and the result says it was checked that way.
    /// The anchored line changed (or went) and a line with its text
    /// stands elsewhere, which the diff keeps as the anchored line: refused
    /// when the line's neighbours stayed behind, written where the line
    /// shifted when they came with it.
    #[test]
    fn a_copy_of_a_changed_line_elsewhere_does_not_take_its_anchor() {
        let (_t, root) = ws();
        let file = root.join("w.txt");
        let (far_read, far_now) = far_tie();
        let cases: [(&str, &str, usize, &str); 3] = [
            // Edited in place; a new function ending the same way below.
            (
                "function sum(xs) {\n  let total = 0\n  for (const x of xs) total += x\n  return total\n}\n",
                "function sum(xs) {\n  let total = 0\n  for (const x of xs) total += x\n  return total | 0\n}\n\nfunction count(xs) {\n  let total = 0\n  for (const x of xs) total += 1\n  return total\n}\n",
                3,
                "  return Math.round(total)",
            ),
            // A loop removed and its body dedented: an inner `}` now has the
            // loop's `}`'s depth.
            (
                "fn f(xs: &[X]) {\n    for x in xs {\n        if x.ok() {\n            use_it(x);\n        }\n        log(x);\n    }\n}\n",
                "fn f(x: &X) {\n    if x.ok() {\n        use_it(x);\n    }\n    log(x);\n}\n",
                6,
                "    } // loop",
            ),
            // Changed in place, and the same text added 35 lines below.
            (&far_read, &far_now, 40, "EDITED"),
        ];
        for (read_text, now, line, new) in cases {
            fs::write(&file, read_text).unwrap();
            let a = read(&root, "w.txt");
            fs::write(&file, now).unwrap();
            let r = edit(&root, "w.txt", json!([{"pos": a[line], "lines": new}]));
            assert_eq!(r["code"], "ANCHOR_MISMATCH", "{r}");
            assert_eq!(r["anchors"][0]["problem"], "changed", "{r}");
            assert_eq!(fs::read_to_string(&file).unwrap(), now);
        }
        // Shifted with its neighbours: written where it went.
        let read_text = "function sum(xs) {\n  let total = 0\n  return total\n}\n";
        fs::write(&file, read_text).unwrap();
        let a = read(&root, "w.txt");
        fs::write(
            &file,
            format!("// head\n{read_text}\nfunction count(xs) {{\n  return total\n}};\n"),
        )
        .unwrap();
        let r = edit(
            &root,
            "w.txt",
            json!([{"pos": a[2], "lines": "  return total + 1"}]),
        );
        assert_eq!(r["ok"], true, "{r}");
        assert!(fs::read_to_string(&file)
            .unwrap()
            .starts_with("// head\nfunction sum(xs) {\n  let total = 0\n  return total + 1\n"));
    }

    /// Another writer swapped two functions without changing a line: the
    /// longest common subsequence is the blank and `}` lines alone, and it
    /// kept the first function's `}` as the second's. Such a line, found
    /// more than once and tied by nothing unique, is refused, not placed.
    /// One shifted with its neighbours is still placed.
    #[test]
    fn a_brace_of_a_swapped_function_is_not_placed_in_the_other() {
        let (_t, root) = ws();
        let file = root.join("s.rs");
        let f0 = "fn f0() {\n\n    s86();\n}\n\n";
        let f1 = "fn f1() {\n    s87();\n\n}\n\n";
        for (op, line) in [("prepend", 3), ("append", 3), ("replace", 3), ("append", 1)] {
            fs::write(&file, format!("{f0}{f1}")).unwrap();
            let a = read(&root, "s.rs");
            fs::write(&file, format!("{f1}{f0}")).unwrap();
            let r = edit(
                &root,
                "s.rs",
                json!([{"op": op, "pos": a[line], "lines": "    f0_tail();"}]),
            );
            assert_eq!(r["code"], "ANCHOR_MISMATCH", "{op} {line}: {r}");
            assert_eq!(r["anchors"][0]["problem"], "several", "{r}");
            assert_eq!(fs::read_to_string(&file).unwrap(), format!("{f1}{f0}"));
        }
        // Swapped past a function between them, ending unlike each other:
        // the next function's header pinned the other's `}`.
        let (a0, m, b0, z) = (
            "a() {\n  let x = 0;\n}\n\n",
            "m() {\n  call44();\n}\n\n",
            "b() {\n  i++;\n}\n\n",
            "z() {\n  end();\n}\n",
        );
        fs::write(&file, format!("{a0}{m}{b0}{z}")).unwrap();
        let a = read(&root, "s.rs");
        fs::write(&file, format!("{b0}{m}{a0}{z}")).unwrap();
        let r = edit(&root, "s.rs", json!([{"pos": a[10], "lines": "} // b"}]));
        assert_eq!(r["code"], "ANCHOR_MISMATCH", "{r}");
        assert_eq!(
            fs::read_to_string(&file).unwrap(),
            format!("{b0}{m}{a0}{z}")
        );
        // The same with a line of the moved function repeated in the last
        // one (its `x++` is not found once).
        let (a0, z) = ("a() {\n  x++;\n}\n\n", "z() {\n  x++;\n}\n");
        let (m, b0) = ("m() {\n  mid();\n}\n\n", "b() {\n  y();\n}\n\n");
        fs::write(&file, format!("{a0}{m}{b0}{z}")).unwrap();
        let a = read(&root, "s.rs");
        fs::write(&file, format!("{b0}{m}{a0}{z}")).unwrap();
        let r = edit(&root, "s.rs", json!([{"pos": a[2], "lines": "} // a"}]));
        assert_eq!(r["code"], "ANCHOR_MISMATCH", "{r}");
        assert_eq!(
            fs::read_to_string(&file).unwrap(),
            format!("{b0}{m}{a0}{z}")
        );
        // Shifted by a line added above, with its neighbours: placed.
        fs::write(&file, format!("{f0}{f1}")).unwrap();
        let a = read(&root, "s.rs");
        fs::write(&file, format!("// head\n{f0}{f1}")).unwrap();
        let r = edit(
            &root,
            "s.rs",
            json!([{"op": "prepend", "pos": a[3], "lines": "    f0_tail();"}]),
        );
        assert_eq!(r["ok"], true, "{r}");
        assert_eq!(
            fs::read_to_string(&file).unwrap(),
            format!("// head\nfn f0() {{\n\n    s86();\n    f0_tail();\n}}\n\n{f1}")
        );
    }

    /// A line another writer inserted right above or below an anchored
    /// line, a `}` too: the edit lands on the anchored line, where it went.
    #[test]
    fn a_line_inserted_beside_an_anchored_line_does_not_refuse_it() {
        let (_t, root) = ws();
        let file = root.join("i.js");
        let v1 = "const a = 1;\nconst b = 2;\nconst target = 3;\nconst c = 4;\nconst d = 5;\nfunction f() {\n  g();\n}\n\nfunction k() {\n  m();\n}\n";
        for (now, line, want) in [
            (
                v1.replace("const target", "const NEW = 9;\nconst target"),
                2,
                "const target = 30;",
            ),
            (
                v1.replace("const c", "const NEW = 9;\nconst c"),
                2,
                "const target = 30;",
            ),
            (v1.replace("  g();\n", "  g();\n  h();\n"), 7, "} // f"),
        ] {
            fs::write(&file, v1).unwrap();
            let a = read(&root, "i.js");
            fs::write(&file, &now).unwrap();
            let r = edit(&root, "i.js", json!([{"pos": a[line], "lines": want}]));
            assert_eq!(r["ok"], true, "{r}");
            let old = v1.lines().nth(line).unwrap();
            assert_eq!(
                fs::read_to_string(&file).unwrap(),
                now.replacen(old, want, 1)
            );
        }
    }

    /// Two unique lines swapped by another writer: each anchor refused is
    /// shown around the line where its text now stands, so the retry's
    /// anchors name it (shown around where its neighbours went, the other
    /// line was offered, and the retry would have overwritten it).
    #[test]
    fn a_refused_line_whose_text_stands_once_is_shown_where_it_is() {
        let (_t, root) = ws();
        let file = root.join("x.js");
        let v1 = "function a() {\n  const x = 1;\n  const y = 2;\n  const z = 3;\n  return x + y + z;\n}\n";
        let v2 = "function a() {\n  const z = 3;\n  const y = 2;\n  const x = 1;\n  return x + y + z;\n}\n";
        for (line, text, now) in [(1, "  const x = 1;", 4), (3, "  const z = 3;", 2)] {
            fs::write(&file, v1).unwrap();
            let a = read(&root, "x.js");
            fs::write(&file, v2).unwrap();
            let r = edit(
                &root,
                "x.js",
                json!([{"pos": a[line], "lines": "  // edited"}]),
            );
            assert_eq!(r["code"], "ANCHOR_MISMATCH", "{r}");
            let shown = r["anchors"][0]["lines"].as_str().unwrap();
            assert!(shown.contains(&format!("{now}#")), "{shown}");
            let tagged = shown
                .lines()
                .find(|l| l.starts_with(&format!("{now}#")))
                .unwrap();
            assert!(tagged.ends_with(text), "{shown}");
            assert_eq!(fs::read_to_string(&file).unwrap(), v2);
        }
    }

    /// The end of both files does not pin a line: a function moved to the
    /// end ends the file as the one that ended it before (`}` and blank
    /// lines), and the other's `}` would be taken for its own.
    #[test]
    fn a_brace_at_the_end_of_both_files_is_not_pinned_by_the_end() {
        let (_t, root) = ws();
        let file = root.join("e.rs");
        let f0 = "fn f0() {\n\n}\n\n\n";
        let f1 = "fn f1() {\n\n\n    s38();\n}\n\n\n";
        fs::write(&file, format!("{f0}{f1}")).unwrap();
        let a = read(&root, "e.rs");
        fs::write(&file, format!("{f1}{f0}")).unwrap();
        for line in [9, 10, 11] {
            let r = edit(&root, "e.rs", json!([{"pos": a[line], "lines": "XX"}]));
            assert_eq!(r["code"], "ANCHOR_MISMATCH", "{line}: {r}");
        }
        assert_eq!(fs::read_to_string(&file).unwrap(), format!("{f1}{f0}"));
    }

    /// 40 lines, `X`, one more line; and the same with `X` changed and,
    /// 33 lines below, `X` again.
    fn far_tie() -> (String, String) {
        let p: String = (0..40).map(|k| format!("p{k}\n")).collect();
        let r: String = (0..33).map(|k| format!("r{k}\n")).collect();
        (format!("{p}X\nq0\n"), format!("{p}X changed\nq0\n{r}X\n"))
    }

    #[test]
    fn a_hash_collision_inside_the_window_does_not_misplace_an_edit_with_a_snapshot() {
        use crate::matching::anchors::{id_of, line_key};
        let (_t, root) = ws();
        let target = "let v = 1;";
        let want = id_of(line_key(target.as_bytes()));
        let twin = (0..10_000)
            .map(|n| format!("let w = {n};"))
            .find(|l| id_of(line_key(l.as_bytes())) == want && l != target)
            .unwrap();
        let before = format!("{target}\n{twin}\nend\n");
        for with_snapshot in [true, false] {
            let name = format!("c{with_snapshot}.txt");
            fs::write(root.join(&name), &before).unwrap();
            // Without a snapshot: the anchors as a read elsewhere (or long
            // ago) showed them.
            let a = if with_snapshot {
                read(&root, &name)
            } else {
                let id = String::from_utf8(id_of(line_key(twin.as_bytes())).to_vec()).unwrap();
                vec![String::new(), format!("2#{id}")]
            };
            // A line inserted on top: the anchor `2#ID` read for `twin`
            // now names `target` by number, which has the same ID.
            fs::write(root.join(&name), format!("top\n{before}")).unwrap();
            let r = edit(
                &root,
                &name,
                json!([{"op": "replace", "pos": a[1], "lines": "TWIN"}]),
            );
            assert_eq!(r["ok"], true, "{r}");
            let got = fs::read_to_string(root.join(&name)).unwrap();
            if with_snapshot {
                assert_eq!(r["verified"], "snapshot");
                assert_eq!(got, format!("top\n{target}\nTWIN\nend\n"));
            } else {
                assert_eq!(r["verified"], "line_numbers");
                assert!(r["note"].as_str().unwrap().contains("line number"), "{r}");
                assert_eq!(
                    got,
                    format!("top\nTWIN\n{twin}\nend\n"),
                    "the documented weakness"
                );
            }
        }
    }

    /// A file read with anchors, then grown over the lines a snapshot
    /// holds and read again (the new read not kept): the fresh anchor was
    /// judged against the older read, which showed a `}` with the same
    /// number and ID, and moved through the diff onto the `}` that read's
    /// line became, 1,000 lines below. The real limit, a file of a million
    /// lines.
    #[test]
    fn a_read_of_a_file_over_the_limit_leaves_no_older_read_to_judge_its_anchors() {
        let (_t, root) = ws();
        let file = root.join("big.js");
        let body: String = (0..1_048_000)
            .map(|i| {
                if i % 2 == 0 {
                    "}\n".to_string()
                } else {
                    format!("    x{i}();\n")
                }
            })
            .collect();
        fs::write(&file, &body).unwrap();
        read_page(&root, "big.js", 500_000, 6);
        let top: String = (0..1_000).map(|k| format!("// new {k}\n")).collect();
        fs::write(&file, format!("{top}{body}")).unwrap();
        let r = read_file(
            &json!({"file_path": "big.js", "anchors": true, "offset": 500_000, "limit": 6}),
            Some(&opts(&root)),
        );
        assert!(
            r["warning"]
                .as_str()
                .unwrap()
                .contains("more than 1048576 lines"),
            "{}",
            r["warning"]
        );
        let fresh = r["content"].as_str().unwrap().lines().next().unwrap();
        assert!(
            fresh.starts_with("500001#") && fresh.ends_with("|}"),
            "{fresh}"
        );
        let pos = fresh.split('|').next().unwrap();
        let r = edit(&root, "big.js", json!([{"pos": pos, "lines": "} // here"}]));
        assert_eq!(r["ok"], true, "{r}");
        assert_eq!(r["verified"], "line_numbers", "{r}");
        assert!(
            r["note"].as_str().unwrap().contains("more than 1048576"),
            "{r}"
        );
        let now = fs::read_to_string(&file).unwrap();
        assert_eq!(now.lines().nth(500_000), Some("} // here"));
        assert_eq!(now.lines().filter(|l| l.contains("here")).count(), 1);
    }

    /// [`crate::io::snapshots::max_lines`] lowered to `n` on this thread
    /// while it lives.
    struct Limit;

    impl Limit {
        fn lower(n: usize) -> Limit {
            crate::io::snapshots::limit::set(Some(n));
            Limit
        }
    }

    impl Drop for Limit {
        fn drop(&mut self) {
            crate::io::snapshots::limit::set(None);
        }
    }

    /// `n` lines alternating `}` and a unique call (`}` first).
    fn braces(n: usize) -> String {
        (0..n)
            .map(|i| match i % 2 {
                0 => "}\n".to_string(),
                _ => format!("    x{i}();\n"),
            })
            .collect()
    }

    /// The same with the limit lowered (60 lines): the fresh anchor lands
    /// where the fresh read showed it, in this process and in another one
    /// (the mark and the older read's removal on disk).
    #[test]
    fn a_read_over_the_limit_marks_the_older_reads_of_its_file() {
        let _limit = Limit::lower(60);
        let (_t, root) = ws();
        let file = root.join("big.js");
        for other_process in [false, true] {
            let body = braces(56);
            fs::write(&file, &body).unwrap();
            read_page(&root, "big.js", 20, 6);
            let top: String = (0..10).map(|k| format!("// new {k}\n")).collect();
            fs::write(&file, format!("{top}{body}")).unwrap();
            let r = read_file(
                &json!({"file_path": "big.js", "anchors": true, "offset": 20, "limit": 6}),
                Some(&opts(&root)),
            );
            let warning = r["warning"].as_str().unwrap_or_default();
            assert!(warning.contains("more than 60 lines"), "{r}");
            let fresh = r["content"].as_str().unwrap().lines().next().unwrap();
            assert!(fresh.starts_with("21#") && fresh.ends_with("|}"), "{fresh}");
            if other_process {
                crate::io::snapshots::forget_in_process(&root);
            }
            let pos = fresh.split('|').next().unwrap();
            let r = edit(&root, "big.js", json!([{"pos": pos, "lines": "} // here"}]));
            assert_eq!(r["ok"], true, "{r}");
            assert_eq!(r["verified"], "line_numbers", "{r}");
            assert!(r["note"].as_str().unwrap().contains("more than 60"), "{r}");
            let now = fs::read_to_string(&file).unwrap();
            assert_eq!(now.lines().nth(20), Some("} // here"), "{other_process}");
        }
    }

    /// A file of unique lines grown over the limit and read again: the
    /// fresh anchor was judged against the older read, where that line was
    /// another one, and refused `changed` for good (the refusal's lines, a
    /// read of the file as it is, were not kept either).
    #[test]
    fn a_fresh_anchor_of_a_file_over_the_limit_lands_where_the_read_showed_it() {
        let _limit = Limit::lower(60);
        let (_t, root) = ws();
        let file = root.join("u.txt");
        let body: String = (0..50).map(|i| format!("line {i}\n")).collect();
        fs::write(&file, &body).unwrap();
        read_page(&root, "u.txt", 30, 5);
        let top: String = (0..20).map(|k| format!("new {k}\n")).collect();
        fs::write(&file, format!("{top}{body}")).unwrap();
        let fresh = read_page(&root, "u.txt", 30, 5);
        assert_eq!(fresh[0].0, 31);
        for _ in 0..2 {
            let r = edit(
                &root,
                "u.txt",
                json!([{"op": "append", "pos": fresh[0].1, "lines": "after"}]),
            );
            assert_eq!(r["ok"], true, "{r}");
            assert_eq!(r["verified"], "line_numbers", "{r}");
        }
        let now = fs::read_to_string(&file).unwrap();
        let lines: Vec<&str> = now.lines().collect();
        assert_eq!(lines[30..33], ["line 10", "after", "after"]);
    }

    /// A file read in 40 pages, unchanged: the first page's lines were
    /// forgotten after 32 reads of the content (its ranges were kept for
    /// the last 32 reads), and its `}` checked at its line number once
    /// lines were put on top: written on another `}` two lines above.
    #[test]
    fn a_page_read_before_many_others_of_one_content_is_still_judged_by_its_read() {
        let (_t, root) = ws();
        let file = root.join("p.js");
        let body = braces(400);
        fs::write(&file, &body).unwrap();
        let pages: Vec<Vec<(usize, String)>> = (0..40)
            .map(|p| read_page(&root, "p.js", p * 10, 10))
            .collect();
        fs::write(&file, format!("// 1\n// 2\n{body}")).unwrap();
        let r = edit(
            &root,
            "p.js",
            json!([{"pos": pages[0][2].1, "lines": "} // third"}]),
        );
        assert_eq!(r["ok"], true, "{r}");
        assert_eq!(r["verified"], "snapshot", "{r}");
        let now = fs::read_to_string(&file).unwrap();
        assert_eq!(now.lines().nth(4), Some("} // third"), "{r}");
        // Another process, the reads on disk only.
        fs::write(&file, format!("// 0\n{now}")).unwrap();
        crate::io::snapshots::forget_in_process(&root);
        let r = edit(
            &root,
            "p.js",
            json!([{"pos": pages[1][0].1, "lines": "} // eleventh"}]),
        );
        assert_eq!(r["verified"], "snapshot", "{r}");
        let now = fs::read_to_string(&file).unwrap();
        assert_eq!(now.lines().nth(13), Some("} // eleventh"), "{r}");
    }

    /// An anchor into a file that is empty (emptied after the read, or
    /// read while empty) was refused as a line that changed, with a word
    /// to read again, which shows no line to anchor on: the refusal says
    /// the file is empty and to send the edit without `pos`.
    #[test]
    fn an_anchor_into_an_empty_file_is_refused_as_such() {
        let (_t, root) = ws();
        let file = root.join("e.txt");
        fs::write(&file, "a\nb\n").unwrap();
        let a = read(&root, "e.txt");
        fs::write(&file, "").unwrap();
        for (pos, op) in [(a[0].as_str(), "replace"), ("1#aa", "append")] {
            let r = edit(
                &root,
                "e.txt",
                json!([{"op": op, "pos": pos, "lines": "x"}]),
            );
            assert_eq!(r["code"], "ANCHOR_MISMATCH", "{r}");
            let message = r["message"].as_str().unwrap();
            assert!(
                message.contains("is empty") && message.contains("without `pos`"),
                "{r}"
            );
            assert_eq!(r["anchors"][0]["anchor"], pos, "{r}");
            assert!(read(&root, "e.txt").is_empty());
        }
        let r = edit(&root, "e.txt", json!([{"op": "append", "lines": "x"}]));
        assert_eq!(r["ok"], true, "{r}");
        assert_eq!(fs::read_to_string(&file).unwrap(), "x\n");
    }

    #[test]
    fn a_dry_run_applies_by_run_id_and_the_journal_undoes_it() {
        let (_t, root) = ws();
        let o = json!({ "workspaceRoot": root, "durable": false, "journal": true });
        fs::write(root.join("d.txt"), "a\nb\n").unwrap();
        let a = read(&root, "d.txt");
        let r = edit_lines(
            &json!({"file_path": "d.txt", "dry_run": true, "edits": [{"op": "replace", "pos": a[0], "lines": "A"}]}),
            Some(&o),
        );
        assert_eq!(r["dry_run"], true, "{r}");
        assert_eq!(fs::read_to_string(root.join("d.txt")).unwrap(), "a\nb\n");
        let done = apply_dry_run(&json!({"run_id": r["run_id"]}), Some(&o));
        assert_eq!(done["ok"], true, "{done}");
        assert_eq!(fs::read_to_string(root.join("d.txt")).unwrap(), "A\nb\n");
        let u = undo(&json!({}), Some(&o));
        assert_eq!(u["ok"], true, "{u}");
        assert_eq!(fs::read_to_string(root.join("d.txt")).unwrap(), "a\nb\n");
        // expected_sha256 is checked first.
        let r = edit_lines(
            &json!({"file_path": "d.txt", "expected_sha256": "0".repeat(64), "edits": [{"op": "append", "lines": "x"}]}),
            Some(&o),
        );
        assert_eq!(r["code"], "FILE_CHANGED", "{r}");
    }
}
