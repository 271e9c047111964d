//! Files in legacy encodings: Shift_JIS, GBK, Big5 and EUC-KR, whose
//! double-byte characters can end in an ASCII byte. An ASCII search never
//! matches half a character, a replacement never splits or merges one,
//! every byte outside the edit is kept, readFile decodes by the detected
//! encoding and names it, and an edit the encoding cannot hold, or a file
//! that does not round-trip, is refused with nothing written. In a file
//! read as windows-1252, bytes that are one valid UTF-8 character (a line
//! really in UTF-8) are replaced whole or left alone.

use std::fs;
use std::path::{Path, PathBuf};

use encoding_rs::{Encoding, BIG5, EUC_KR, GBK, SHIFT_JIS, WINDOWS_1252};
use patch_file_core::api;
use serde_json::{json, Value};

fn ws() -> (tempfile::TempDir, PathBuf) {
    let t = tempfile::tempdir().unwrap();
    let root = fs::canonicalize(t.path()).unwrap();
    (t, root)
}

fn opts(root: &Path) -> Value {
    json!({ "workspaceRoot": root, "durable": false })
}

fn enc(e: &'static Encoding, s: &str) -> Vec<u8> {
    let (b, _, bad) = e.encode(s);
    assert!(!bad, "{s} is not in {}", e.name());
    b.into_owned()
}

/// A CJK character whose encoding in `e` is two bytes ending in `trail`
/// (an ASCII byte).
fn char_ending_in(e: &'static Encoding, trail: u8) -> char {
    (0x4E00u32..0x9FFF)
        .chain(0x3040..0x30FF)
        .chain(0xAC00..0xD7A3)
        .filter_map(char::from_u32)
        .find(|c| {
            let s = c.to_string();
            let (b, _, bad) = e.encode(&s);
            !bad && b.len() == 2 && b[1] == trail
        })
        .unwrap_or_else(|| panic!("no character of {} ends in {trail:#x}", e.name()))
}

/// Enough text in the encoding for detection to be sure.
fn body(e: &'static Encoding) -> &'static str {
    if e == SHIFT_JIS {
        "これは日本語のテキストです。設定ファイルの説明をここに書きます。\n"
    } else if e == GBK {
        "这是一个中文文本文件。这里写的是配置文件的说明。\n"
    } else if e == BIG5 {
        "這是一個繁體中文的文字檔案。這裡寫的是設定檔的說明。\n"
    } else {
        "이것은 한국어 텍스트 파일입니다. 여기에 설정 파일의 설명을 씁니다.\n"
    }
}

fn expected_name(e: &'static Encoding) -> &'static str {
    match e.name() {
        "Shift_JIS" => "shift_jis",
        "GBK" => "gbk",
        "Big5" => "big5",
        _ => "euc-kr",
    }
}

const ALL: [&Encoding; 4] = [SHIFT_JIS, GBK, BIG5, EUC_KR];

/// Shift_JIS `ア` is `83 41`: "A" -> "B" made it `イ`. In every double-byte
/// encoding, an ASCII block never matches the second byte of a character.
#[test]
fn an_ascii_block_never_matches_half_a_character() {
    for e in ALL {
        let (_t, root) = ws();
        let c = char_ending_in(e, b'A');
        let text = format!("{}{c}{c}\n", body(e));
        let bytes = enc(e, &text);
        assert!(
            bytes.windows(1).any(|w| w == b"A"),
            "the file holds an `A` byte"
        );
        fs::write(root.join("f.txt"), &bytes).unwrap();
        let o = opts(&root);
        for dry in [true, false] {
            let r = api::patch_file(
                &json!({"file_path": "f.txt", "search_block": "A", "replace_block": "B", "dry_run": dry}),
                Some(&o),
            );
            assert_eq!(r["code"], "SEARCH_BLOCK_NOT_FOUND", "{}: {r}", e.name());
            assert_eq!(fs::read(root.join("f.txt")).unwrap(), bytes, "{}", e.name());
        }
        // A real `A` beside the character is found, and only it changes.
        let text = format!("{}{c}A{c}\n", body(e));
        let bytes = enc(e, &text);
        fs::write(root.join("f.txt"), &bytes).unwrap();
        let r = api::patch_file(
            &json!({"file_path": "f.txt", "search_block": "A", "replace_block": "B"}),
            Some(&o),
        );
        assert_eq!(r["ok"], true, "{}: {r}", e.name());
        assert_eq!(
            fs::read(root.join("f.txt")).unwrap(),
            enc(e, &format!("{}{c}B{c}\n", body(e))),
            "{}",
            e.name()
        );
    }
}

/// Shift_JIS `ソ` is `83 5C` (`5C` is a backslash): `\"` -> `"` deleted half
/// of it.
#[test]
fn a_backslash_inside_a_character_is_not_a_backslash() {
    let (_t, root) = ws();
    let text = format!("{}label = \"ソ\"\n", body(SHIFT_JIS));
    let bytes = enc(SHIFT_JIS, &text);
    assert!(bytes.windows(2).any(|w| w == b"\x5C\x22"));
    fs::write(root.join("f.txt"), &bytes).unwrap();
    let r = api::patch_file(
        &json!({"file_path": "f.txt", "search_block": "\\\"", "replace_block": "\""}),
        Some(&opts(&root)),
    );
    assert_eq!(r["code"], "SEARCH_BLOCK_NOT_FOUND", "{r}");
    assert_eq!(fs::read(root.join("f.txt")).unwrap(), bytes);
}

/// readFile decodes by the detected encoding and names it; an edit in the
/// decoded text (non-ASCII included) writes exactly the file's bytes
/// around it, and the whole file round-trips.
#[test]
fn read_and_edit_as_text_in_the_detected_encoding() {
    for e in ALL {
        let (_t, root) = ws();
        let c = char_ending_in(e, b'A');
        let text = format!("{}key = {c}\nvalue = 1\n", body(e));
        fs::write(root.join("f.txt"), enc(e, &text)).unwrap();
        let o = opts(&root);
        let r = api::read_file(&json!({"file_path": "f.txt"}), Some(&o));
        assert_eq!(r["encoding"], expected_name(e), "{r}");
        assert_eq!(r["content"], text.as_str());
        assert_eq!(r["faithful"], true);
        // Replace the character and the line after it.
        let r = api::patch_file(
            &json!({"file_path": "f.txt", "search_block": format!("{c}\nvalue = 1"),
                    "replace_block": format!("{c}{c}\nvalue = 2")}),
            Some(&o),
        );
        assert_eq!(r["ok"], true, "{}: {r}", e.name());
        let want = format!("{}key = {c}{c}\nvalue = 2\n", body(e));
        assert_eq!(
            fs::read(root.join("f.txt")).unwrap(),
            enc(e, &want),
            "{}",
            e.name()
        );
        assert_eq!(r["after_bytes"], enc(e, &want).len());
        // The dry run's diff is the decoded text.
        let r = api::patch_file(
            &json!({"file_path": "f.txt", "search_block": "value = 2", "replace_block": "value = 3", "dry_run": true}),
            Some(&o),
        );
        assert!(
            r["diff"].as_str().unwrap().contains(body(e).trim_end()),
            "{r}"
        );
        let a = api::apply_dry_run(&json!({"run_id": r["run_id"]}), Some(&o));
        assert_eq!(a["ok"], true, "{a}");
        assert_eq!(
            fs::read(root.join("f.txt")).unwrap(),
            enc(e, &want.replace("value = 2", "value = 3"))
        );
    }
}

/// The edit formats (SEARCH/REPLACE blocks, a Codex patch) keep the same
/// rules.
#[test]
fn edit_formats_write_legacy_files_exactly() {
    for e in ALL {
        let (_t, root) = ws();
        let c = char_ending_in(e, b'A');
        let text = format!("{}a = {c}\nb = 1\nc = 2\n", body(e));
        fs::write(root.join("f.txt"), enc(e, &text)).unwrap();
        let o = opts(&root);
        let blocks = "f.txt\n<<<<<<< SEARCH\nb = 1\n=======\nb = 10\n>>>>>>> REPLACE\n";
        let r = api::apply_edit_blocks(&json!({"text": blocks}), Some(&o));
        assert_eq!(r["ok"], true, "{}: {r}", e.name());
        let patch = "*** Begin Patch\n*** Update File: f.txt\n@@\n b = 10\n-c = 2\n+c = 20\n*** End Patch\n";
        let r = api::apply_patch(&json!({"patch": patch}), Some(&o));
        assert_eq!(r["ok"], true, "{}: {r}", e.name());
        let want = format!("{}a = {c}\nb = 10\nc = 20\n", body(e));
        assert_eq!(
            fs::read(root.join("f.txt")).unwrap(),
            enc(e, &want),
            "{}",
            e.name()
        );
        // An `A` block never matches inside the character here either.
        let blocks = "f.txt\n<<<<<<< SEARCH\nA\n=======\nB\n>>>>>>> REPLACE\n";
        let r = api::apply_edit_blocks(&json!({"text": blocks}), Some(&o));
        assert_eq!(r["ok"], false, "{}: {r}", e.name());
        assert_eq!(fs::read(root.join("f.txt")).unwrap(), enc(e, &want));
    }
}

/// A replacement the encoding has no bytes for, and a file that does not
/// round-trip exactly (Shift_JIS `ED 40` decodes to a character that
/// encodes as `FA 5C`), are refused by name; nothing is written.
#[test]
fn what_the_encoding_cannot_hold_is_refused() {
    let (_t, root) = ws();
    let o = opts(&root);
    let text = format!("{}price = 5\n", body(SHIFT_JIS));
    let bytes = enc(SHIFT_JIS, &text);
    fs::write(root.join("f.txt"), &bytes).unwrap();
    let r = api::patch_file(
        &json!({"file_path": "f.txt", "search_block": "price = 5", "replace_block": "price = 5€"}),
        Some(&o),
    );
    assert_eq!(r["code"], "UNSUPPORTED_ENCODING", "{r}");
    assert!(r["message"].as_str().unwrap().contains("shift_jis"), "{r}");
    assert_eq!(fs::read(root.join("f.txt")).unwrap(), bytes);

    let odd = [
        enc(SHIFT_JIS, body(SHIFT_JIS)),
        b"\xED\x40\nprice = 5\n".to_vec(),
    ]
    .concat();
    fs::write(root.join("g.txt"), &odd).unwrap();
    let r = api::read_file(&json!({"file_path": "g.txt"}), Some(&o));
    assert_eq!(r["encoding"], "shift_jis", "{r}");
    let r = api::patch_file(
        &json!({"file_path": "g.txt", "search_block": "price = 5", "replace_block": "price = 6"}),
        Some(&o),
    );
    assert_eq!(r["code"], "UNSUPPORTED_ENCODING", "{r}");
    assert!(r["message"].as_str().unwrap().contains("round-trip"), "{r}");
    assert_eq!(fs::read(root.join("g.txt")).unwrap(), odd);
}

/// writeFile over a legacy file refuses (a whole new text in a guessed
/// encoding could change every character) unless `encoding: "utf-8"`.
#[test]
fn write_file_over_a_legacy_file_needs_encoding_utf8() {
    let (_t, root) = ws();
    let o = opts(&root);
    let bytes = enc(GBK, body(GBK));
    fs::write(root.join("f.txt"), &bytes).unwrap();
    let r = api::write_file(&json!({"file_path": "f.txt", "content": "x\n"}), Some(&o));
    assert_eq!(r["code"], "UNSUPPORTED_ENCODING", "{r}");
    assert!(r["message"].as_str().unwrap().contains("gbk"), "{r}");
    assert_eq!(fs::read(root.join("f.txt")).unwrap(), bytes);
    let r = api::write_file(
        &json!({"file_path": "f.txt", "content": "x\n", "encoding": "utf-8"}),
        Some(&o),
    );
    assert_eq!(r["ok"], true, "{r}");
}

/// A windows-1252 file with two lines in UTF-8: `日` is `E6 97 A5`, shown
/// as `æ—¥` when the file is decoded as windows-1252, and `ü` is `C3 BC`,
/// shown as `Ã¼` (on a line with a `ÿ`, `FF`, which makes it invalid in
/// every double-byte encoding: only the UTF-8 rule judges edits there).
fn mixed_latin1_utf8() -> Vec<u8> {
    [
        b"# caf\xE9 cr\xE8me br\xFBl\xE9e, na\xEFve fa\xE7ade\n".as_slice(),
        b"price = \"\xE6\x97\xA5\"\n",
        b"name = \"Jos\xE9\"\n",
        b"city = \"Z\xC3\xBCrich\" # \xFF\n",
    ]
    .concat()
}

/// The bytes of `raw` with the first `from` replaced by `to`.
fn replaced(raw: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    let i = raw
        .windows(from.len())
        .position(|w| w == from)
        .expect("the bytes occur");
    [&raw[..i], to, &raw[i + from.len()..]].concat()
}

/// In a file read as windows-1252, a byte sequence that is valid UTF-8
/// (a line really in UTF-8) is never split: deleting `¥` or `æ—`, editing
/// one byte-character of it or inserting between them is refused with
/// nothing written; an edit that replaces the whole sequence, or touches
/// only the rest of the file, is written byte for byte.
#[test]
fn a_utf8_character_in_a_single_byte_file_is_never_split() {
    let (_t, root) = ws();
    let o = opts(&root);
    let raw = mixed_latin1_utf8();
    fs::write(root.join("f.txt"), &raw).unwrap();
    let r = api::read_file(&json!({"file_path": "f.txt"}), Some(&o));
    assert_eq!(r["encoding"], "windows-1252", "{r}");
    assert!(
        r["content"].as_str().unwrap().contains("price = \"æ—¥\"\n"),
        "{r}"
    );
    let w = r["warning"].as_str().unwrap();
    assert!(
        w.contains("line 2: `æ—¥` is the UTF-8 character `日`"),
        "{w}"
    );
    // A file all in UTF-8 is a UTF-8 file, its characters shown as they are.
    let utf8 = "# café crème brûlée\nprice = \"日\"\nname = \"José\"\n";
    fs::write(root.join("u.txt"), utf8).unwrap();
    let r = api::read_file(&json!({"file_path": "u.txt"}), Some(&o));
    assert_eq!(
        (&r["encoding"], &r["content"]),
        (&json!("utf-8"), &json!(utf8)),
        "{r}"
    );
    for (search, replace, line, ch) in [
        ("¥", "", 2, '日'),
        ("æ—", "", 2, '日'),
        ("—", "", 2, '日'),
        ("æ", "a", 2, '日'),
        ("¥\"", "\"", 2, '日'),
        ("æ—", "æX—", 2, '日'),
        ("—¥", "—X¥", 2, '日'),
        ("\"æ", "\"X", 2, '日'),
        ("¼", "", 4, 'ü'),
        ("Ã", "A", 4, 'ü'),
        ("¼", "u", 4, 'ü'),
    ] {
        for dry in [true, false] {
            let r = api::patch_file(
                &json!({"file_path": "f.txt", "search_block": search, "replace_block": replace, "dry_run": dry}),
                Some(&o),
            );
            assert_eq!(
                r["code"], "UNSUPPORTED_ENCODING",
                "{search:?} -> {replace:?}: {r}"
            );
            let m = r["message"].as_str().unwrap();
            assert!(
                m.contains("UTF-8") && m.contains(&format!("line {line}")) && m.contains(ch),
                "{m}"
            );
            assert_eq!(fs::read(root.join("f.txt")).unwrap(), raw, "{search:?}");
        }
    }
    // Edits that replace the whole sequence, or keep it, are written
    // exactly.
    for (search, replace, from, to) in [
        (
            "\"æ—¥\"",
            "\"yen\"",
            b"\"\xE6\x97\xA5\"".as_slice(),
            b"\"yen\"".as_slice(),
        ),
        ("æ—¥", "æœ¬", b"\xE6\x97\xA5", "本".as_bytes()),
        ("Ã¼", "Ã¶", b"\xC3\xBC", "ö".as_bytes()),
        // The kept `C3` and the new `B6` are one whole character, `ö`.
        ("¼", "¶", b"\xC3\xBC", "ö".as_bytes()),
        ("æ—¥", "¥", b"\xE6\x97\xA5", b"\xA5"),
        (
            "price = \"æ—¥\"",
            "price = 5",
            b"price = \"\xE6\x97\xA5\"",
            b"price = 5",
        ),
        ("price", "cost", b"price", b"cost"),
        ("price = \"", "price = \"¢", b"= \"\xE6", b"= \"\xA2\xE6"),
        ("José", "Josë", b"Jos\xE9", b"Jos\xEB"),
        ("crème", "creme", b"cr\xE8me", b"creme"),
    ] {
        fs::write(root.join("f.txt"), &raw).unwrap();
        let r = api::patch_file(
            &json!({"file_path": "f.txt", "search_block": search, "replace_block": replace}),
            Some(&o),
        );
        assert_eq!(r["ok"], true, "{search:?} -> {replace:?}: {r}");
        assert_eq!(
            fs::read(root.join("f.txt")).unwrap(),
            replaced(&raw, from, to),
            "{search:?} -> {replace:?}"
        );
    }
}

/// The edit formats keep the rule: a Codex patch or SEARCH/REPLACE block
/// that would leave part of the UTF-8 character is refused; one whose line
/// diff replaces it by another whole character (narrowed to the bytes
/// that differ: `Ã¼` -> `Ã¶` is `¼` -> `¶`) is written; writeFile is
/// unaffected.
#[test]
fn edit_formats_never_split_a_utf8_character_in_a_single_byte_file() {
    let (_t, root) = ws();
    let o = opts(&root);
    let raw = mixed_latin1_utf8();
    fs::write(root.join("f.txt"), &raw).unwrap();
    let patch = |line: &str| {
        format!("*** Begin Patch\n*** Update File: f.txt\n@@\n-price = \"æ—¥\"\n+{line}\n*** End Patch\n")
    };
    for bad in ["price = \"æ—\"", "price = \"¥\"", "price = \"æX—¥\""] {
        let r = api::apply_patch(&json!({"patch": patch(bad)}), Some(&o));
        assert_eq!(r["ok"], false, "{bad}: {r}");
        assert!(r.to_string().contains("UNSUPPORTED_ENCODING"), "{bad}: {r}");
        assert_eq!(fs::read(root.join("f.txt")).unwrap(), raw, "{bad}");
    }
    for blocks in [
        "f.txt\n<<<<<<< SEARCH\n¥\"\n=======\n\"\n>>>>>>> REPLACE\n",
        "f.txt\n<<<<<<< SEARCH\nprice = \"æ—\n=======\nprice = \"\n>>>>>>> REPLACE\n",
    ] {
        let r = api::apply_edit_blocks(&json!({"text": blocks}), Some(&o));
        assert_eq!(r["ok"], false, "{blocks}: {r}");
        assert!(
            r.to_string().contains("UNSUPPORTED_ENCODING"),
            "{blocks}: {r}"
        );
        assert_eq!(fs::read(root.join("f.txt")).unwrap(), raw);
    }
    let r = api::apply_patch(&json!({"patch": patch("price = \"æ—¥ (yen)\"")}), Some(&o));
    assert_eq!(r["ok"], true, "{r}");
    let now = replaced(&raw, b"\xE6\x97\xA5", "日 (yen)".as_bytes());
    let zurich = "*** Begin Patch\n*** Update File: f.txt\n@@\n-city = \"ZÃ¼rich\" # ÿ\n+city = \"ZÃ¶rich\" # ÿ\n*** End Patch\n";
    let r = api::apply_patch(&json!({"patch": zurich}), Some(&o));
    assert_eq!(r["ok"], true, "{r}");
    let now = replaced(&now, "ü".as_bytes(), "ö".as_bytes());
    assert_eq!(fs::read(root.join("f.txt")).unwrap(), now);
    let blocks =
        "f.txt\n<<<<<<< SEARCH\nname = \"José\"\n=======\nname = \"Zoë\"\n>>>>>>> REPLACE\n";
    let r = api::apply_edit_blocks(&json!({"text": blocks}), Some(&o));
    assert_eq!(r["ok"], true, "{r}");
    let now = replaced(&now, b"Jos\xE9", b"Zo\xEB");
    assert_eq!(fs::read(root.join("f.txt")).unwrap(), now);
    // writeFile: refused over the legacy file as before, converts with
    // `encoding: "utf-8"`.
    let r = api::write_file(&json!({"file_path": "f.txt", "content": "x\n"}), Some(&o));
    assert_eq!(r["code"], "UNSUPPORTED_ENCODING", "{r}");
    assert_eq!(fs::read(root.join("f.txt")).unwrap(), now);
    let r = api::write_file(
        &json!({"file_path": "f.txt", "content": "price = \"日\"\n", "encoding": "utf-8"}),
        Some(&o),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(
        fs::read(root.join("f.txt")).unwrap(),
        "price = \"日\"\n".as_bytes()
    );
}

mod props {
    //! Whatever the detector guesses for a short file, an edit is judged in
    //! the file's true encoding: when it is written, the file decoded in
    //! its true encoding is the old text with exactly the one occurrence of
    //! the block replaced; otherwise not a byte changed.
    use super::*;
    use proptest::prelude::*;

    fn tokens(e: &'static Encoding) -> Vec<String> {
        let mut t: Vec<String> = ["a", "A", "b", "\\", "\"", " ", "\n", "= ", "1", "x"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        t.push(char_ending_in(e, b'A').to_string());
        // EUC-KR has no character ending in a backslash.
        t.push(char_ending_in(e, if e == EUC_KR { b'Z' } else { b'\\' }).to_string());
        t.push(char_ending_in(e, b'a').to_string());
        t
    }

    fn check(
        e: &'static Encoding,
        picks: &[usize],
        from: usize,
        len: usize,
        ascii: bool,
        replace: &str,
    ) -> Result<(), TestCaseError> {
        let toks = tokens(e);
        let text: String = picks
            .iter()
            .map(|&i| toks[i % toks.len()].as_str())
            .collect();
        let raw = enc(e, &text);
        // The block: characters of the text, or bytes of the file that are
        // ASCII (possibly the second byte of a character).
        let search = if ascii {
            let bytes: Vec<u8> = raw
                .iter()
                .copied()
                .skip(from % raw.len().max(1))
                .take(len)
                .take_while(u8::is_ascii)
                .collect();
            String::from_utf8(bytes).unwrap()
        } else {
            text.chars()
                .skip(from % text.chars().count().max(1))
                .take(len)
                .collect()
        };
        if search.is_empty() {
            return Ok(());
        }
        let (_t, root) = ws();
        fs::write(root.join("f.txt"), &raw).unwrap();
        let r = api::patch_file(
            &json!({"file_path": "f.txt", "search_block": search, "replace_block": replace}),
            Some(&opts(&root)),
        );
        let now = fs::read(root.join("f.txt")).unwrap();
        if r["ok"] == true {
            prop_assert_eq!(
                text.matches(search.as_str()).count(),
                1,
                "{} {:?} in {:?}: {}",
                e.name(),
                search,
                text,
                r
            );
            let want = text.replacen(search.as_str(), replace, 1);
            let (got, bad) = e.decode_without_bom_handling(&now);
            prop_assert!(!bad);
            prop_assert_eq!(got.as_ref(), want.as_str(), "{} {:?}", e.name(), search);
        } else {
            prop_assert!(now == raw, "{}: a refused edit wrote: {}", e.name(), r);
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 64, failure_persistence: None, ..ProptestConfig::default() })]

        #[test]
        fn edits_are_exact_in_the_true_encoding(
            which in 0usize..4,
            picks in prop::collection::vec(0usize..13, 1..40),
            from in 0usize..200,
            len in 1usize..6,
            ascii in any::<bool>(),
            replace in "[a-z\\\\\"B]{0,3}",
        ) {
            check(ALL[which], &picks, from, len, ascii, &replace)?;
        }

        #[test]
        fn a_utf8_character_in_a_single_byte_file_is_kept_whole(
            picks in prop::collection::vec(0usize..10, 1..30),
            from in 0usize..200,
            len in 1usize..5,
            replace in prop::sample::select(vec!["", "x", "—", "¥", "œ", "ˆ", "æ", "é", "˜€"]),
        ) {
            check_mixed(&picks, from, len, replace)?;
        }
    }

    /// Every valid multi-byte UTF-8 character of `b`.
    fn utf8_chars(b: &[u8]) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let mut at = 0;
        for c in b.utf8_chunks() {
            for (i, ch) in c.valid().char_indices().filter(|(_, ch)| !ch.is_ascii()) {
                out.push((at + i, at + i + ch.len_utf8()));
            }
            at += c.valid().len() + c.invalid().len();
        }
        out
    }

    /// A windows-1252 file with UTF-8 characters among its Latin-1 bytes,
    /// one edit of its decoded text: when written, the file is the old
    /// bytes with the block's bytes replaced by the replacement in
    /// windows-1252, and every byte kept of a UTF-8 character the edit cut
    /// is part of a whole UTF-8 character; an edit that would keep part of
    /// one is refused with nothing written.
    fn check_mixed(
        picks: &[usize],
        from: usize,
        len: usize,
        replace: &str,
    ) -> Result<(), TestCaseError> {
        let toks: [&[u8]; 10] = [
            b"a",
            b" ",
            b"\n",
            b"\"",
            b"\xE9",
            b"\xFF",
            b"\x97",
            "日".as_bytes(),
            "ü".as_bytes(),
            "😀".as_bytes(),
        ];
        let head = b"# caf\xE9 cr\xE8me br\xFBl\xE9e, na\xEFve fa\xE7ade, \xE0 la carte\n";
        let raw: Vec<u8> = std::iter::once(head.as_slice())
            .chain(picks.iter().map(|&i| toks[i]))
            .collect::<Vec<_>>()
            .concat();
        let text = WINDOWS_1252
            .decode_without_bom_handling(&raw)
            .0
            .into_owned();
        let chars: Vec<char> = text.chars().collect();
        let at = head.len() + from % (chars.len() - head.len());
        let search: String = chars[at..(at + len).min(chars.len())].iter().collect();
        let (_t, root) = ws();
        let o = opts(&root);
        fs::write(root.join("f.txt"), &raw).unwrap();
        let r = api::read_file(&json!({"file_path": "f.txt"}), Some(&o));
        if r["encoding"] != "windows-1252" || text.matches(search.as_str()).count() != 1 {
            return Ok(());
        }
        let r = api::patch_file(
            &json!({"file_path": "f.txt", "search_block": search, "replace_block": replace}),
            Some(&o),
        );
        let now = fs::read(root.join("f.txt")).unwrap();
        // One byte per character: the block's bytes are [a, b).
        let a = text[..text.find(search.as_str()).unwrap()].chars().count();
        let b = a + search.chars().count();
        let with = enc(WINDOWS_1252, replace);
        let want = [&raw[..a], &with, &raw[b..]].concat();
        let new_chars = utf8_chars(&want);
        let whole = |s: usize, e: usize| new_chars.iter().any(|&(x, y)| x <= s && e <= y);
        let moved = |p: usize| p - b + a + with.len();
        let splits = utf8_chars(&raw).into_iter().any(|(s, e)| {
            (s < a && a < e && !whole(s, a)) || (s < b && b < e && !whole(moved(b), moved(e)))
        });
        // (An edit whose search ends with a line break, or inside the next
        // line's indentation, matched where that line has text, and whose
        // replacement does not end as the search does, is refused first:
        // that line would be joined to it, or lose its indentation.)
        let end = text.find(search.as_str()).unwrap() + search.len();
        let tail = &search[search.rfind('\n').map_or(search.len(), |k| k + 1)..];
        let cut = search.contains('\n')
            && !tail.is_empty()
            && tail.bytes().all(|b| b == b' ' || b == b'\t')
            && !replace.ends_with(&format!("\n{tail}"));
        let joins = (search.ends_with('\n') && !replace.ends_with('\n') || cut)
            && search
                .trim_end_matches([' ', '\t'])
                .bytes()
                .any(|b| !b.is_ascii_whitespace())
            && !replace.is_empty()
            && text[end..]
                .split('\n')
                .next()
                .is_some_and(|l| !l.trim_matches([' ', '\t', '\r']).is_empty());
        if r["ok"] == true {
            prop_assert!(!joins, "a joined line was written: {:?}", now);
            prop_assert!(
                !splits,
                "{:?} -> {:?} split a UTF-8 character: {:?}",
                search,
                replace,
                now
            );
            prop_assert_eq!(now, want, "{:?} -> {:?}", search, replace);
        } else {
            prop_assert!(now == raw, "a refused edit wrote: {}", r);
            if joins {
                prop_assert_eq!(&r["code"], "PLAN_CHECK_FAILED", "{}", r);
            } else if splits {
                prop_assert_eq!(&r["code"], "UNSUPPORTED_ENCODING", "{}", r);
            }
        }
        Ok(())
    }
}

/// A patch's Add File over an existing file:
/// it was written as UTF-8 with LF, whatever the file was (a windows-1252
/// file re-encoded, a CRLF file flipped to LF). It keeps the file's
/// encoding and line breaks now, as writeFile does; over a legacy or
/// byte-level file it is refused, nothing written.
#[test]
fn a_new_text_over_an_existing_file_keeps_its_encoding_and_line_breaks() {
    let (_t, root) = ws();
    let add =
        "*** Begin Patch\n*** Add File: f.txt\n+caf\u{e9} cr\u{e8}me\n+second\n*** End Patch\n";
    let utf16 = |s: &str| -> Vec<u8> {
        let mut v = vec![0xFF, 0xFE];
        v.extend(s.encode_utf16().flat_map(u16::to_le_bytes));
        v
    };
    let want = "caf\u{e9} cr\u{e8}me\r\nsecond\r\n";
    for (before, after) in [
        ("old\r\nx\r\n".as_bytes().to_vec(), want.as_bytes().to_vec()),
        (
            "\u{feff}old\r\n".as_bytes().to_vec(),
            format!("\u{feff}{want}").into_bytes(),
        ),
        (utf16("old\r\n"), utf16(want)),
        (
            b"old\n".to_vec(),
            "caf\u{e9} cr\u{e8}me\nsecond\n".as_bytes().to_vec(),
        ),
    ] {
        fs::write(root.join("f.txt"), &before).unwrap();
        let r = api::apply_patch(&json!({ "patch": add }), Some(&opts(&root)));
        assert_eq!(r["ok"], true, "{r}");
        assert_eq!(fs::read(root.join("f.txt")).unwrap(), after, "{before:?}");
    }
    for before in [
        enc(WINDOWS_1252, "caf\u{e9}\r\nold\r\n"),
        b"ok\nna\xC3\xAFve caf\xE9\n".to_vec(),
    ] {
        fs::write(root.join("f.txt"), &before).unwrap();
        let r = api::apply_patch(&json!({ "patch": add }), Some(&opts(&root)));
        assert_eq!(r["code"], "UNSUPPORTED_ENCODING", "{r}");
        assert!(
            r["message"]
                .as_str()
                .unwrap()
                .contains("delete it in one call"),
            "{r}"
        );
        assert_eq!(fs::read(root.join("f.txt")).unwrap(), before);
    }
}

/// An LF block on a byte-level (not UTF-8) CRLF file with the
/// `line_endings` tolerance asked for: the tolerances read text and do not
/// apply, but the refusal said none of them matched ("no match with the
/// tolerances of `match` either"), and the diagnosis that the block differs
/// only in line endings sent the caller back with the same tolerance.
#[test]
fn a_refusal_on_a_byte_level_file_says_the_tolerances_do_not_apply() {
    let (_t, root) = ws();
    let bytes = b"// Caf\xC3\xA9 \xE9\r\nint a = 1;\r\nint b = 2;\r\n";
    fs::write(root.join("f.c"), bytes).unwrap();
    let r = api::patch_file(
        &json!({"file_path": "f.c", "search": "int a = 1;\nint b = 2;\n", "replace": "int a = 3;\nint b = 2;\n", "match": ["line_endings"]}),
        Some(&opts(&root)),
    );
    assert_eq!(r["code"], "SEARCH_BLOCK_NOT_FOUND", "{r}");
    let m = r["message"].as_str().unwrap();
    assert!(m.contains("not valid UTF-8: send its exact bytes"), "{m}");
    assert!(!m.contains("either"), "{m}");
    assert_eq!(fs::read(root.join("f.c")).unwrap(), bytes);
}

/// A UTF-8 BOM before bytes that are not UTF-8 (a byte-level file): the BOM
/// stays first, as in any file that has one. Every entry point that adds a
/// line at the top wrote it before the BOM (the text-editor insert, an
/// editLines prepend) or refused a block on line 1 as splitting a character
/// (the BOM read as text); an anchored read showed the BOM inside line 1.
#[test]
fn a_byte_level_file_keeps_its_bom_first() {
    let (_t, root) = ws();
    let before = b"\xEF\xBB\xBFline1\nbad \xFF here\n";
    let after = b"\xEF\xBB\xBFtop\nline1\nbad \xFF here\n";
    let o = opts(&root);
    for name in ["insert", "prepend", "block", "diff"] {
        fs::write(root.join("f.txt"), before).unwrap();
        let r = match name {
            "insert" => api::text_editor(
                &json!({"command": "insert", "path": "f.txt", "insert_line": 0, "new_str": "top"}),
                Some(&o),
            ),
            "prepend" => api::edit_lines(
                &json!({"file_path": "f.txt", "edits": [{"op": "prepend", "lines": ["top"]}]}),
                Some(&o),
            ),
            "block" => api::patch_file(
                &json!({"file_path": "f.txt", "search": "line1\n", "replace": "top\nline1\n"}),
                Some(&o),
            ),
            _ => api::apply_patch(
                &json!({"patch": "--- a/f.txt\n+++ b/f.txt\n@@ -1 +1,2 @@\n+top\n line1\n"}),
                Some(&o),
            ),
        };
        assert_eq!(r["ok"], true, "{name}: {r}");
        assert_eq!(fs::read(root.join("f.txt")).unwrap(), after, "{name}");
    }
    fs::write(root.join("f.txt"), before).unwrap();
    let r = api::read_file(&json!({"file_path": "f.txt", "anchors": true}), Some(&o));
    assert!(r["content"].as_str().unwrap().contains("|line1\n"), "{r}");
    // A whole new text: refused without `encoding`, and converted with the
    // BOM kept when the caller asks for UTF-8.
    let r = api::write_file(&json!({"file_path": "f.txt", "content": "x\n"}), Some(&o));
    assert_eq!(r["code"], "UNSUPPORTED_ENCODING", "{r}");
    let r = api::write_file(
        &json!({"file_path": "f.txt", "content": "x\n", "encoding": "utf-8"}),
        Some(&o),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(fs::read(root.join("f.txt")).unwrap(), b"\xEF\xBB\xBFx\n");
    // The stray byte on line 1: an edit of ASCII lines elsewhere, or a line
    // put on top, is no seam beside it (the BOM was taken for one, and every
    // edit refused as splitting a character on line 1).
    let stray = b"\xEF\xBB\xBFa\xFF\r\nb\r\nc\r\n";
    fs::write(root.join("k.txt"), stray).unwrap();
    let r = api::patch_file(
        &json!({"file_path": "k.txt", "search": "c", "replace": "C"}),
        Some(&o),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(
        fs::read(root.join("k.txt")).unwrap(),
        b"\xEF\xBB\xBFa\xFF\r\nb\r\nC\r\n"
    );
    let r = api::text_editor(
        &json!({"command": "insert", "path": "k.txt", "insert_line": 0, "new_str": "top"}),
        Some(&o),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(
        fs::read(root.join("k.txt")).unwrap(),
        b"\xEF\xBB\xBFtop\r\na\xFF\r\nb\r\nC\r\n"
    );
}

/// A UTF-16LE file whose new text would start with U+0000: `FF FE 00 00`
/// is UTF-32LE's byte order mark, so the file would change encoding (and
/// read as binary here, its undo refused as a change). Refused, nothing
/// written, by an edit and by a whole-file write; a NUL later is written.
#[test]
fn a_utf16le_text_starting_with_nul_is_refused() {
    let (_t, root) = ws();
    let f = root.join("u.txt");
    let le = |s: &str| -> Vec<u8> {
        let mut out = vec![0xFF, 0xFE];
        for u in s.encode_utf16() {
            out.extend_from_slice(&u.to_le_bytes());
        }
        out
    };
    let before = le("a\n\0b\n");
    fs::write(&f, &before).unwrap();
    let r = api::patch_file(
        &json!({"file_path": "u.txt", "search_block": "a\n", "replace_block": ""}),
        Some(&opts(&root)),
    );
    assert_eq!(r["code"], "UNSUPPORTED_ENCODING", "{r}");
    assert!(r["message"].as_str().unwrap().contains("UTF-32"), "{r}");
    let w = api::write_file(
        &json!({"file_path": "u.txt", "content": "\0b\n"}),
        Some(&opts(&root)),
    );
    assert_eq!(w["code"], "UNSUPPORTED_ENCODING", "{w}");
    assert_eq!(fs::read(&f).unwrap(), before);
    let ok = api::patch_file(
        &json!({"file_path": "u.txt", "search_block": "a\n", "replace_block": "c\n"}),
        Some(&opts(&root)),
    );
    assert_eq!(ok["ok"], true, "{ok}");
    assert_eq!(fs::read(&f).unwrap(), le("c\n\0b\n"));
}

/// A patch of a windows-1252 file whose line diff `similar` numbered wrong
/// (a deletion placed where it is not, an insertion after it at another
/// old line): written with `ok: true` with its lines in another order, and
/// a dry run showed a hunk header that counted other lines. Now the text
/// written is the patch's, and so is the preview's header.
#[test]
fn a_legacy_file_takes_a_patch_in_its_order() {
    let (_t, root) = ws();
    let f = root.join("f.txt");
    fs::write(
        &f,
        enc(WINDOWS_1252, "caf\u{e9} na\u{ef}ve \u{fc}ber\n\na\nx\n"),
    )
    .unwrap();
    let patch = "--- a/f.txt\n+++ b/f.txt\n@@ -2,3 +2,4 @@\n \n-a\n x\n+\n+x\n";
    let dry = api::apply_patch(
        &json!({"patch": patch, "dry_run": true}),
        Some(&opts(&root)),
    );
    assert_eq!(dry["ok"], true, "{dry}");
    let diff = dry["diff"].as_str().unwrap();
    // Each hunk's header counts the lines it shows.
    let mut hunks = diff.split("\n@@ ").skip(1).peekable();
    assert!(hunks.peek().is_some(), "{diff}");
    for h in hunks {
        let (head, body) = h.split_once('\n').unwrap();
        let count = |side: char| -> usize {
            let field = head.split(' ').find(|f| f.starts_with(side)).unwrap();
            field.split(',').nth(1).map_or(1, |n| n.parse().unwrap())
        };
        let lines: Vec<&str> = body.lines().collect();
        let shown = |c: char| {
            lines
                .iter()
                .filter(|l| l.starts_with(c) || l.starts_with(' ') || l.is_empty())
                .count()
        };
        assert_eq!((shown('-'), shown('+')), (count('-'), count('+')), "{diff}");
    }
    let r = api::apply_patch(&json!({ "patch": patch }), Some(&opts(&root)));
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(
        fs::read(&f).unwrap(),
        enc(WINDOWS_1252, "caf\u{e9} na\u{ef}ve \u{fc}ber\n\nx\n\nx\n")
    );
}
