//! Files in legacy encodings: Shift_JIS, GBK, Big5 and EUC-KR, whose
//! double-byte characters can end in an ASCII byte. An ASCII search never
//! matches half a character, a replacement never splits or merges one,
//! every byte outside the edit is kept, readFile decodes by the detected
//! encoding and names it, and an edit the encoding cannot hold, or a file
//! that does not round-trip, is refused with nothing written.

use std::fs;
use std::path::{Path, PathBuf};

use encoding_rs::{Encoding, BIG5, EUC_KR, GBK, SHIFT_JIS};
use patch_file_tool::api;
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
    }
}
