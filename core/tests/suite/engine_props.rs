//! Properties of the engine's entry points against real files in a temp
//! directory: for every supported encoding, a successful patch changes
//! exactly the replaced span (every byte before and after it, BOM included,
//! stays as it was), and a failed patch changes nothing at all.
//!
//! `PROPTEST_CASES=N` runs more cases than the default.

use std::path::Path;

use patch_file_core::api as engine;
use proptest::prelude::*;
use serde_json::{json, Value};

/// The encodings a text file can have on disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Enc {
    Utf8,
    Utf8Bom,
    Utf16Le,
    Utf16Be,
}

impl Enc {
    fn bom(self) -> &'static [u8] {
        match self {
            Enc::Utf8 => b"",
            Enc::Utf8Bom => b"\xEF\xBB\xBF",
            Enc::Utf16Le => b"\xFF\xFE",
            Enc::Utf16Be => b"\xFE\xFF",
        }
    }

    fn encode(self, s: &str) -> Vec<u8> {
        match self {
            Enc::Utf8 | Enc::Utf8Bom => s.as_bytes().to_vec(),
            Enc::Utf16Le => s.encode_utf16().flat_map(u16::to_le_bytes).collect(),
            Enc::Utf16Be => s.encode_utf16().flat_map(u16::to_be_bytes).collect(),
        }
    }
}

/// The character that marks the search block; never generated elsewhere,
/// so the block occurs exactly once.
const MARK: char = '§';

/// Text around the edit: any characters (CR, LF, CJK, emoji, U+FEFF…) but
/// the marker and NUL (which would make a BOM-less UTF-8 file binary).
fn text() -> impl Strategy<Value = String> {
    let ch = prop_oneof![
        4 => any::<char>(),
        2 => prop::sample::select(vec!['\r', '\n', ' ', '\t', 'a', 'é', '漢', '😀', '\u{FEFF}']),
    ]
    .prop_filter("no marker, no NUL", |c| *c != MARK && *c != '\0');
    prop::collection::vec(ch, 0..120).prop_map(|v| v.into_iter().collect())
}

fn patch(root: &Path, search: &str, replace: &str) -> Value {
    engine::patch_file(
        &json!({ "file_path": "f.txt", "search_block": search, "replace_block": replace }),
        Some(&json!({ "workspaceRoot": root })),
    )
}

fn leftovers(root: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != "f.txt")
        .collect();
    v.sort();
    v
}

fn check_encoding(
    enc: Enc,
    prefix: &str,
    inner: &str,
    suffix: &str,
    replace: &str,
) -> Result<(), TestCaseError> {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let search = format!("{MARK}{inner}{MARK}");
    let file = root.join("f.txt");
    let original = [
        enc.bom(),
        &enc.encode(prefix),
        &enc.encode(&search),
        &enc.encode(suffix),
    ]
    .concat();
    std::fs::write(&file, &original).unwrap();

    // A block that is not there: nothing changes.
    let miss = patch(root, &format!("{search}{MARK}"), "x");
    prop_assert_eq!(&miss["code"], "SEARCH_BLOCK_NOT_FOUND", "{}", miss);
    prop_assert!(
        std::fs::read(&file).unwrap() == original,
        "a failed patch changed bytes"
    );
    prop_assert!(leftovers(root).is_empty());

    // The block there once: only its span changes. (A file whose lines end
    // with a lone CR, no LF anywhere, in any of these encodings, keeps
    // them: every line break of the replacement is written a CR, and lines
    // are counted so.)
    let r = patch(root, &search, replace);
    prop_assert_eq!(&r["ok"], true, "{}", r);
    let text = format!("{prefix}{search}{suffix}");
    let cr = text.contains('\r') && !text.contains('\n');
    let written = match cr {
        true => replace.replace("\r\n", "\r").replace('\n', "\r"),
        false => replace.to_string(),
    };
    let replace = written.as_str();
    let expected = [
        enc.bom(),
        &enc.encode(prefix),
        &enc.encode(replace),
        &enc.encode(suffix),
    ]
    .concat();
    let got = std::fs::read(&file).unwrap();
    let head = enc.bom().len() + enc.encode(prefix).len();
    let tail = enc.encode(suffix).len();
    prop_assert!(
        got[..head] == original[..head],
        "bytes before the span changed"
    );
    prop_assert!(
        got[got.len() - tail..] == original[original.len() - tail..],
        "bytes after the span changed"
    );
    prop_assert!(
        got == expected,
        "content is not prefix + replacement + suffix"
    );
    prop_assert_eq!(r["before_bytes"].as_u64(), Some(original.len() as u64));
    prop_assert_eq!(r["after_bytes"].as_u64(), Some(expected.len() as u64));
    let line = 1 + prefix.matches(if cr { '\r' } else { '\n' }).count() as u64;
    prop_assert_eq!(r["line_number"].as_u64(), Some(line));
    prop_assert!(leftovers(root).is_empty());

    // Twice now (the replacement doubled, where it was unique): ambiguous,
    // and nothing changes. Skipped when the text itself starts with U+FEFF,
    // which a BOM-less UTF-8 reader takes for a BOM.
    let now = format!("{prefix}{replace}{suffix}");
    if !replace.is_empty() && now.matches(replace).count() == 1 && !now.starts_with('\u{FEFF}') {
        let twice = patch(root, replace, &format!("{replace}{replace}"));
        prop_assert_eq!(&twice["ok"], true, "{}", twice);
        let before = std::fs::read(&file).unwrap();
        let amb = patch(root, replace, "");
        let n = amb["match_count"].as_u64().unwrap_or(0);
        prop_assert_eq!(&amb["code"], "SEARCH_BLOCK_AMBIGUOUS", "{}", amb);
        prop_assert!(n >= 2);
        prop_assert!(
            std::fs::read(&file).unwrap() == before,
            "an ambiguous patch changed bytes"
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 48,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn utf8_bytes_outside_the_span_never_change(p in text(), i in text(), s in text(), r in text()) {
        check_encoding(Enc::Utf8, &p, &i, &s, &r)?;
    }

    #[test]
    fn utf8_bom_bytes_outside_the_span_never_change(p in text(), i in text(), s in text(), r in text()) {
        check_encoding(Enc::Utf8Bom, &p, &i, &s, &r)?;
    }

    #[test]
    fn utf16le_bytes_outside_the_span_never_change(p in text(), i in text(), s in text(), r in text()) {
        check_encoding(Enc::Utf16Le, &p, &i, &s, &r)?;
    }

    #[test]
    fn utf16be_bytes_outside_the_span_never_change(p in text(), i in text(), s in text(), r in text()) {
        check_encoding(Enc::Utf16Be, &p, &i, &s, &r)?;
    }

    /// Files that are not valid UTF-8 (random bytes: read in whatever
    /// legacy encoding they decode in, or at byte level): an edit either
    /// replaces exactly its span, every other byte (however invalid)
    /// staying, or is refused with nothing written.
    #[test]
    fn invalid_utf8_bytes_outside_the_span_never_change(
        prefix in prop::collection::vec(1u8..=255, 0..200),
        suffix in prop::collection::vec(1u8..=255, 0..200),
        inner in "[ -~]{0,20}",
        replace in "[ -~\r\n\t]{0,40}",
    ) {
        // Never a BOM at the start, always invalid UTF-8 somewhere; the
        // marker bytes (`\x01`) are kept out of the surrounding bytes.
        let clean = |v: Vec<u8>| v.into_iter().filter(|b| *b != 1).collect::<Vec<u8>>();
        let prefix = [b"x\xFF".as_slice(), &clean(prefix)].concat();
        let suffix = clean(suffix);
        let search = format!("\x01{inner}\x01");
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f.txt");
        let original = [prefix.as_slice(), search.as_bytes(), &suffix].concat();
        std::fs::write(&file, &original).unwrap();
        // Read in a legacy encoding with lone CR breaks (a CR, no LF), the
        // replacement's breaks are written as the file's: CRs.
        let before = engine::read_file(&json!({"file_path": "f.txt"}),
            Some(&json!({"workspaceRoot": dir.path()})));
        let replace_written = if before["line_ending"] == "cr" {
            replace.replace("\r\n", "\r").replace('\n', "\r")
        } else {
            replace.clone()
        };
        let r = patch(dir.path(), &search, &replace);
        let got = std::fs::read(&file).unwrap();
        if r["ok"] == true {
            prop_assert!(got == [prefix.as_slice(), replace_written.as_bytes(), &suffix].concat());
        } else {
            prop_assert_eq!(&r["code"], "UNSUPPORTED_ENCODING", "{}", r);
            prop_assert!(got == original);
        }
        // A non-ASCII block: refused at byte level; in a legacy encoding
        // written in it (or refused), nothing else changing.
        let read = engine::read_file(&json!({"file_path": "f.txt"}),
            Some(&json!({"workspaceRoot": dir.path()})));
        let f = patch(dir.path(), "x", "\u{e9}");
        let now = std::fs::read(&file).unwrap();
        if read["encoding"] == "binary-safe-bytes" || f["ok"] != true {
            prop_assert!(f["ok"] != true, "{}", f);
            prop_assert!(now == got);
        } else {
            let e = encoding_rs::Encoding::for_label(read["encoding"].as_str().unwrap().as_bytes()).unwrap();
            let at = got.iter().position(|&b| b == b'x').unwrap();
            let want = [&got[..at], &e.encode("\u{e9}").0, &got[at + 1..]].concat();
            prop_assert!(now == want, "{}", read["encoding"]);
        }
        prop_assert!(leftovers(dir.path()).is_empty());
    }
}

#[test]
fn a_panic_inside_an_entry_point_becomes_internal_error() {
    let v = engine::guarded(|| panic!("boom"));
    assert_eq!(v["ok"], false);
    assert_eq!(v["code"], "INTERNAL_ERROR");
    assert!(v["message"].as_str().unwrap().contains("boom"));
}
