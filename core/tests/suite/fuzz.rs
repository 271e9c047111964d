//! Property-based fuzzing (proptest): cargo-fuzz needs a nightly compiler,
//! so these targets run on stable with many generated cases.
//!
//! - `differential_patch`: random files (UTF-8, UTF-8 with BOM, UTF-16 LE/BE,
//!   UTF-8 with a stray invalid byte, read at byte level), random blocks
//!   and counts, one to three edits,
//!   applied through real files by the engine (directly or by dry run +
//!   apply) and by a tiny reference written for obviousness; the outcome,
//!   the bytes on disk and the reported figures must agree.
//! - `request_parsers`: arbitrary JSON into every request normalizer and
//!   every entry point: no panic, only `INVALID_INPUT`-class failures from
//!   the parsers, never `INTERNAL_ERROR`, nothing written outside.
//! - `path_resolution`: random paths from a hostile alphabet against a
//!   workspace with links: never resolves outside, never panics.
//!
//! Budget: `PFT_FUZZ_SECONDS` runs each target for that long; otherwise
//! `PFT_FUZZ_CASES` cases each (default 200, the bounded CI pass).
#![cfg(unix)]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use patch_file_core::api as engine;
use patch_file_core::testing::request;
use patch_file_core::testing::text as source;
use patch_file_core::testing::workspace;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use serde_json::{json, Value};

/// Runs `strategy` against `test` for the configured budget; returns the
/// number of cases executed.
fn run<S: Strategy>(
    name: &str,
    strategy: S,
    test: impl Fn(S::Value) -> Result<(), TestCaseError>,
) -> u64
where
    S::Value: std::fmt::Debug,
{
    let seconds: u64 = std::env::var("PFT_FUZZ_SECONDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let cases: u32 = std::env::var("PFT_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let mut total = 0u64;
    let mut round = 0u64;
    loop {
        let mut runner = TestRunner::new(Config {
            cases,
            failure_persistence: None,
            // A fresh seed each round, so long runs keep exploring.
            rng_seed: proptest::test_runner::RngSeed::Fixed(0x5eed_0000 + round),
            ..Config::default()
        });
        if let Err(e) = runner.run(&strategy, &test) {
            panic!("{name}: {e}");
        }
        total += u64::from(cases);
        round += 1;
        if seconds == 0 || Instant::now() >= deadline {
            break;
        }
    }
    eprintln!("fuzz {name}: {total} cases, 0 failures");
    total
}

// ---------------------------------------------------------------------------
// Differential: the engine against a reference.

#[derive(Debug, Clone, Copy, PartialEq)]
enum Enc {
    Utf8,
    Utf8Bom,
    Utf16Le,
    Utf16Be,
    /// Not valid UTF-8 (contains a lone 0xFF byte).
    Bytes,
}

#[derive(Debug, Clone)]
enum Count {
    One,
    All,
    Exactly(usize),
}

#[derive(Debug, Clone)]
struct EditCase {
    search: String,
    replace: String,
    count: Count,
}

#[derive(Debug, Clone)]
struct Case {
    enc: Enc,
    text: Vec<u8>,
    edits: Vec<EditCase>,
    via_dry_run: bool,
}

const TOKENS: &[&str] = &[
    "a", "b", "ab", "ba", "\n", "\r\n", " ", "x", "é", "日本", "😀", "\t", "aa", "\r",
];

fn tokens(max: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(TOKENS), 0..max).prop_map(|v| v.concat())
}

fn count() -> impl Strategy<Value = Count> {
    prop_oneof![
        6 => Just(Count::One),
        2 => Just(Count::All),
        2 => (1usize..4).prop_map(Count::Exactly),
    ]
}

fn case() -> impl Strategy<Value = Case> {
    let enc = prop_oneof![
        Just(Enc::Utf8),
        Just(Enc::Utf8Bom),
        Just(Enc::Utf16Le),
        Just(Enc::Utf16Be),
        Just(Enc::Bytes),
    ];
    (enc, tokens(60), any::<prop::sample::Index>())
        .prop_flat_map(|(enc, text, cut)| {
            let mut text = text.into_bytes();
            if enc == Enc::Bytes {
                // Mostly UTF-8 (so read at byte level) with one invalid
                // byte between two characters, never first (0xFF 0xFE
                // would be a BOM).
                let s = String::from_utf8(text.clone()).unwrap();
                let cuts: Vec<usize> = s.char_indices().map(|(i, _)| i).chain([s.len()]).collect();
                let at = 3 + cuts[cut.index(cuts.len())];
                text.splice(0..0, "z\u{e9}".bytes());
                text.insert(at, 0xFF);
                // (Lone CR breaks in a text read in a legacy encoding are
                // breaks, in one read at byte level bytes: which one the
                // engine detects is not the reference's to guess. A CR
                // text keeps an LF; CR files have tests of their own.)
                if text.contains(&b'\r') && !text.contains(&b'\n') {
                    text.push(b'\n');
                }
            }
            let t = text.clone();
            // Search blocks: mostly slices of the text (so they match), some
            // random.
            let search = prop_oneof![
                3 => (any::<prop::sample::Index>(), 1usize..12).prop_map(move |(i, len)| {
                    let s = String::from_utf8_lossy(&t).into_owned();
                    let chars: Vec<char> = s.chars().collect();
                    if chars.is_empty() {
                        return "a".to_string();
                    }
                    let start = i.index(chars.len());
                    let end = (start + len).min(chars.len());
                    chars[start..end].iter().collect::<String>()
                }),
                1 => tokens(6).prop_map(|s| if s.is_empty() { "b".into() } else { s }),
            ];
            let edit = (search, tokens(8), count()).prop_map(|(search, replace, count)| EditCase {
                search,
                replace,
                count,
            });
            (
                Just(enc),
                Just(text),
                prop::collection::vec(edit, 1..4),
                any::<bool>(),
            )
        })
        .prop_map(|(enc, text, edits, via_dry_run)| Case {
            enc,
            text,
            edits,
            via_dry_run,
        })
}

/// Non-overlapping occurrences, left to right, the slow obvious way.
fn occurrences(hay: &[u8], needle: &[u8]) -> Vec<usize> {
    let mut out = Vec::new();
    let mut i = 0;
    while i + needle.len() <= hay.len() {
        if &hay[i..i + needle.len()] == needle {
            out.push(i);
            i += needle.len();
        } else {
            i += 1;
        }
    }
    out
}

fn encode(enc: Enc, text: &[u8]) -> Vec<u8> {
    match enc {
        Enc::Utf8 | Enc::Bytes => text.to_vec(),
        Enc::Utf8Bom => [b"\xEF\xBB\xBF".as_slice(), text].concat(),
        Enc::Utf16Le | Enc::Utf16Be => {
            let s = std::str::from_utf8(text).unwrap();
            let mut out = if enc == Enc::Utf16Le {
                vec![0xFF, 0xFE]
            } else {
                vec![0xFE, 0xFF]
            };
            for u in s.encode_utf16() {
                out.extend(if enc == Enc::Utf16Le {
                    u.to_le_bytes()
                } else {
                    u.to_be_bytes()
                });
            }
            out
        }
    }
}

/// Whether a byte-level edit at `[p, p + len)` of `text` has a seam next
/// to a non-ASCII byte on the line holding the invalid byte: the engine
/// may refuse it (`UNSUPPORTED_ENCODING`), since nothing there tells where
/// characters begin.
fn risky_seam(text: &[u8], p: usize, len: usize) -> bool {
    let line = |at: usize| {
        let s = text[..at]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        let e = text[at..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(text.len(), |i| at + i);
        text[s..e].contains(&0xFF)
    };
    let near = |at: usize| {
        at.checked_sub(1).is_some_and(|i| text[i] >= 0x80)
            || text.get(at).is_some_and(|&b| b >= 0x80)
    };
    (line(p) && near(p)) || (line(p + len) && near(p + len))
}

/// What the reference says: the new text, or the codes a failure may
/// carry; and whether a byte-level edit has a risky seam (then it may also
/// be refused with `UNSUPPORTED_ENCODING`).
type Reference = Result<(Vec<u8>, usize, usize), Vec<&'static str>>;

fn reference_with(c: &Case) -> (Reference, bool) {
    let mut risky = false;
    // A text of lone CR breaks (a CR and no LF) is read with LF breaks and
    // written with CRs; a caller's CR or CRLF is a break there too.
    let cr = c.enc != Enc::Bytes && c.text.contains(&b'\r') && !c.text.contains(&b'\n');
    let lf = |t: &str| t.replace("\r\n", "\n").replace('\r', "\n");
    let (mut text, edits) = if cr {
        let text = c
            .text
            .iter()
            .map(|&b| if b == b'\r' { b'\n' } else { b })
            .collect();
        let edits = c.edits.iter().map(|e| EditCase {
            search: lf(&e.search),
            replace: lf(&e.replace),
            ..e.clone()
        });
        (text, edits.collect())
    } else {
        (c.text.clone(), c.edits.clone())
    };
    let mut failed: Vec<&'static str> = Vec::new();
    let mut total = 0;
    let mut first_line = 0;
    for (k, e) in edits.iter().enumerate() {
        if c.enc == Enc::Bytes && (!e.search.is_ascii() || !e.replace.is_ascii()) {
            failed.push("UNSUPPORTED_ENCODING");
            continue;
        }
        let at = occurrences(&text, e.search.as_bytes());
        let take = match (&e.count, at.len()) {
            (_, 0) => {
                failed.push("SEARCH_BLOCK_NOT_FOUND");
                if matches!(e.count, Count::Exactly(_)) {
                    failed.push("REPLACEMENT_COUNT_MISMATCH");
                }
                continue;
            }
            (Count::One, 1) => 1,
            (Count::One, _) => {
                failed.push("SEARCH_BLOCK_AMBIGUOUS");
                continue;
            }
            (Count::All, n) => n,
            (Count::Exactly(n), m) if *n == m => m,
            (Count::Exactly(_), _) => {
                failed.push("REPLACEMENT_COUNT_MISMATCH");
                continue;
            }
        };
        // A search that starts with a line break, with a replacement that
        // does not start with an LF, where that break is the LF of a CRLF
        // (a lone CR would be left), or ends a line of only spaces or tabs
        // while the replacement starts with one of them (the two would make
        // one line): refused.
        let (s, first) = (e.search.as_bytes(), e.replace.as_bytes().first());
        let damages = (s.starts_with(b"\n") || s.starts_with(b"\r\n"))
            && first != Some(&b'\n')
            && at[..take].iter().any(|&p| {
                let start = text[..p]
                    .iter()
                    .rposition(|&b| b == b'\n')
                    .map_or(0, |i| i + 1);
                let lone_cr = s[0] == b'\n' && p > start && text[p - 1] == b'\r';
                let blanks = p > start
                    && text[start..p].iter().all(|&b| b == b' ' || b == b'\t')
                    && matches!(first, Some(b' ' | b'\t'));
                lone_cr || blanks
            });
        // An edit matched once whose search is lines with text ending with
        // a line break, and whose replacement, not empty, does not end with
        // one, where the line after its place has text other than spaces
        // and tabs (that line would be joined to the replacement's last):
        // refused.
        let r = e.replace.as_bytes();
        let joins = matches!(e.count, Count::One | Count::Exactly(1))
            && s.ends_with(b"\n")
            && s.iter().any(|b| !b.is_ascii_whitespace())
            && !r.is_empty()
            && !r.ends_with(b"\n")
            && text[at[0] + s.len()..]
                .iter()
                .take_while(|&&b| b != b'\n')
                .any(|&b| !matches!(b, b' ' | b'\t' | b'\r'));
        // An edit matched once whose search has text and ends inside a
        // line's indentation (spaces or tabs after its last line break),
        // and whose replacement, not empty, does not end with a line break
        // and the same, where that line has text after the search: refused
        // (the line would lose its indentation).
        let nl = s.iter().rposition(|&b| b == b'\n');
        let reindents = matches!(e.count, Count::One | Count::Exactly(1))
            && nl.is_some_and(|nl| {
                let tail = &s[nl + 1..];
                let kept = r.len() > tail.len()
                    && r.ends_with(tail)
                    && r[r.len() - tail.len() - 1] == b'\n';
                !tail.is_empty()
                    && tail.iter().all(|&b| b == b' ' || b == b'\t')
                    && s[..nl].iter().any(|b| !b.is_ascii_whitespace())
                    && !r.is_empty()
                    && !kept
            })
            && text[at[0] + s.len()..]
                .iter()
                .take_while(|&&b| b != b'\n')
                .any(|&b| !matches!(b, b' ' | b'\t' | b'\r'));
        // An edit whose search has text other than line breaks and ends
        // with a CR found as the CR of a CRLF, in a file that uses CRLF
        // throughout, and whose replacement does not end with a CR (a lone
        // LF would be left): refused.
        let crlf_throughout = {
            let breaks: Vec<usize> = (0..text.len()).filter(|&i| text[i] == b'\n').collect();
            !breaks.is_empty() && breaks.iter().all(|&i| i > 0 && text[i - 1] == b'\r')
        };
        let splits_end = s.ends_with(b"\r")
            && s.iter().any(|&b| b != b'\r' && b != b'\n')
            && !r.ends_with(b"\r")
            && crlf_throughout
            && at[..take]
                .iter()
                .any(|&p| text.get(p + s.len()) == Some(&b'\n'));
        if damages || joins || reindents || splits_end {
            failed.push("PLAN_CHECK_FAILED");
            continue;
        }
        if k == 0 {
            first_line = 1 + text[..at[0]].iter().filter(|&&b| b == b'\n').count();
        }
        if c.enc == Enc::Bytes {
            risky |= at[..take]
                .iter()
                .any(|&p| risky_seam(&text, p, e.search.len()));
        }
        let mut out = Vec::new();
        let mut prev = 0;
        for &p in &at[..take] {
            out.extend_from_slice(&text[prev..p]);
            out.extend_from_slice(e.replace.as_bytes());
            prev = p + e.search.len();
        }
        out.extend_from_slice(&text[prev..]);
        text = out;
        total += take;
    }
    if cr {
        text.iter_mut()
            .filter(|b| **b == b'\n')
            .for_each(|b| *b = b'\r');
    }
    let r = if failed.is_empty() {
        Ok((encode(c.enc, &text), total, first_line))
    } else {
        Err(failed)
    };
    (r, risky)
}

fn edit_json(e: &EditCase) -> Value {
    let mut v = json!({"search_block": e.search, "replace_block": e.replace});
    match e.count {
        Count::One => {}
        Count::All => v["replace_all"] = json!(true),
        Count::Exactly(n) => v["expected_replacements"] = json!(n),
    }
    v
}

fn differential(root: &Path, c: Case) -> Result<(), TestCaseError> {
    let file = root.join("f.txt");
    let original = encode(c.enc, &c.text);
    std::fs::write(&file, &original).unwrap();
    let mut input = if c.edits.len() == 1 {
        let mut v = edit_json(&c.edits[0]);
        v["file_path"] = json!("f.txt");
        v
    } else {
        json!({"file_path": "f.txt", "edits": c.edits.iter().map(edit_json).collect::<Vec<_>>()})
    };
    let opts = json!({"workspaceRoot": root, "durable": false});
    let got = if c.via_dry_run {
        input["dry_run"] = json!(true);
        let d = engine::patch_file(&input, Some(&opts));
        prop_assert_eq!(
            std::fs::read(&file).unwrap(),
            original.clone(),
            "a dry run wrote"
        );
        match d["run_id"].as_str() {
            Some(id) => engine::apply_dry_run(&json!({ "run_id": id }), Some(&opts)),
            None => d,
        }
    } else {
        engine::patch_file(&input, Some(&opts))
    };
    let on_disk = std::fs::read(&file).unwrap();
    OUTCOMES.with(|o| {
        *o.borrow_mut()
            .entry(got["code"].as_str().unwrap_or("ok").to_string())
            .or_default() += 1
    });
    let (want, risky) = reference_with(&c);
    if risky && got["code"] == "UNSUPPORTED_ENCODING" {
        prop_assert_eq!(&on_disk, &original, "a refused edit changed the file");
        return Ok(());
    }
    match want {
        Ok((want, replacements, line)) => {
            prop_assert_eq!(
                &got["ok"],
                &json!(true),
                "engine failed where the reference did not: {}",
                got
            );
            prop_assert_eq!(&on_disk, &want, "bytes differ from the reference");
            prop_assert_eq!(
                got["sha256"].as_str().unwrap(),
                source::sha256_hex([want.as_slice()])
            );
            if !c.via_dry_run {
                prop_assert_eq!(got["replacements"].as_u64().unwrap() as usize, replacements);
                prop_assert_eq!(got["after_bytes"].as_u64().unwrap() as usize, want.len());
                prop_assert_eq!(got["line_number"].as_u64().unwrap() as usize, line);
            }
        }
        Err(codes) => {
            prop_assert_eq!(
                &got["ok"],
                &json!(false),
                "engine succeeded where the reference failed: {}",
                got
            );
            let code = got["code"].as_str().unwrap();
            prop_assert!(
                codes.contains(&code),
                "code {} not in {:?}: {}",
                code,
                codes,
                got
            );
            prop_assert_eq!(&on_disk, &original, "a failed edit changed the file");
        }
    }
    Ok(())
}

thread_local! {
    static OUTCOMES: std::cell::RefCell<std::collections::BTreeMap<String, usize>> =
        Default::default();
}

#[test]
fn differential_patch() {
    let t = tempfile::tempdir().unwrap();
    let root = t.path().to_path_buf();
    run("differential_patch", case(), |c| differential(&root, c));
    OUTCOMES.with(|o| {
        eprintln!(
            "fuzz differential_patch outcomes (incl. shrinking): {:?}",
            o.borrow()
        )
    });
}

// ---------------------------------------------------------------------------
// Request parsers.

const KEYS: &[&str] = &[
    "file_path",
    "filePath",
    "path",
    "search_block",
    "searchBlock",
    "old_string",
    "replace_block",
    "replaceBlock",
    "new_string",
    "edits",
    "files",
    "expected_replacements",
    "expectedReplacements",
    "replace_all",
    "replaceAll",
    "dry_run",
    "dryRun",
    "run_id",
    "runId",
    "content",
    "offset",
    "limit",
    "expected_sha256",
    "create_dirs",
    "match",
    "__proto__",
    "constructor",
    "",
    "x",
];

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<f64>()
            .prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        Just(json!(u64::MAX)),
        Just(json!(-1)),
        Just(json!(0)),
        prop::sample::select(vec![
            "",
            "a.txt",
            "../x",
            "/etc/passwd",
            "f.txt",
            "a",
            "\0",
            "exact",
            "whitespace",
            "A".repeat(70).leak(),
        ])
        .prop_map(|s| json!(s)),
        ".{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::vec((prop::sample::select(KEYS), inner), 0..7).prop_map(|kv| {
                Value::Object(kv.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
            }),
        ]
    })
}

fn requests(root: &Path, v: Value) -> Result<(), TestCaseError> {
    type Parse = fn(&Value) -> Result<(), patch_file_core::error::Failure>;
    let parsers: [(&str, Parse); 5] = [
        ("patch", |v| request::patch_request(v).map(|_| ())),
        ("batch", |v| request::batch_request(v).map(|_| ())),
        ("read", |v| request::read_request(v).map(|_| ())),
        ("write", |v| request::write_request(v).map(|_| ())),
        ("apply", |v| request::apply_request(v).map(|_| ())),
    ];
    for (name, p) in parsers {
        if let Err(f) = p(&v) {
            prop_assert_eq!(f.code.as_str(), "INVALID_INPUT", "{} parser: {}", name, f);
        }
    }
    if let Err(f) = request::options(Some(&v), || Ok(PathBuf::from("/nonexistent-cwd"))) {
        prop_assert_eq!(f.code.as_str(), "INVALID_INPUT");
    }
    // Every entry point, on a fixed workspace: never an internal error, and
    // everything it wrote is inside.
    let opts = json!({"workspaceRoot": root, "durable": false});
    for (name, r) in [
        ("patchFile", engine::patch_file(&v, Some(&opts))),
        (
            "batchPatchFiles",
            engine::batch_patch_files(&v, Some(&opts)),
        ),
        ("readFile", engine::read_file(&v, Some(&opts))),
        ("writeFile", engine::write_file(&v, Some(&opts))),
        ("applyDryRun", engine::apply_dry_run(&v, Some(&opts))),
    ] {
        prop_assert_ne!(&r["code"], "INTERNAL_ERROR", "{}: {}", name, r);
        prop_assert!(r["ok"].is_boolean(), "{}: {}", name, r);
        if let Some(p) = r["file_path"].as_str() {
            if r["ok"] == true {
                prop_assert!(Path::new(p).starts_with(root), "{}: {}", name, r);
            }
        }
    }
    Ok(())
}

#[test]
fn request_parsers() {
    let t = tempfile::tempdir().unwrap();
    let base = std::fs::canonicalize(t.path()).unwrap();
    let root = base.join("ws");
    std::fs::create_dir(&root).unwrap();
    std::fs::write(root.join("f.txt"), "exact text\nwhitespace  \n").unwrap();
    std::fs::write(base.join("outside.txt"), "outside\n").unwrap();
    run("request_parsers", json_value(), |v| requests(&root, v));
    assert_eq!(
        std::fs::read(base.join("outside.txt")).unwrap(),
        b"outside\n"
    );
    assert_eq!(std::fs::read_dir(&base).unwrap().count(), 2);
}

// ---------------------------------------------------------------------------
// Path resolution.

const PARTS: &[&str] = &[
    ".", "..", "/", "//", "a", "sub", "f.txt", "up", "out", "loop", "in", "\\", ":", "\0", "~",
    "%2e%2e", "\u{2025}", "\u{FF0E}", "\u{2215}", "CON", " ", "\n", "ok.txt", "new",
];

fn path() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(PARTS), 1..14).prop_map(|v| v.concat())
}

#[test]
fn path_resolution() {
    use std::os::unix::fs::symlink;
    let t = tempfile::tempdir().unwrap();
    let base = std::fs::canonicalize(t.path()).unwrap();
    let root = base.join("ws");
    std::fs::create_dir_all(root.join("sub/a")).unwrap();
    std::fs::write(root.join("f.txt"), "f").unwrap();
    std::fs::write(root.join("sub/ok.txt"), "ok").unwrap();
    symlink("..", root.join("sub/up")).unwrap();
    symlink("../..", root.join("sub/a/up")).unwrap();
    symlink(&base, root.join("out")).unwrap();
    symlink("loop", root.join("loop")).unwrap();
    symlink("sub", root.join("in")).unwrap();
    let ws = workspace::Workspace::open(&root).unwrap();
    let walk = workspace::Workspace::open(&root).unwrap().walk_only();
    run("path_resolution", path(), |p| {
        for w in [&ws, &walk] {
            for intent in [
                workspace::Intent::Existing,
                workspace::Intent::Plan { create_dirs: true },
            ] {
                if let Ok(r) = w.resolve(&p, intent) {
                    prop_assert!(r.abs_path.starts_with(&root), "{:?} -> {:?}", p, r.abs_path);
                    prop_assert!(
                        Path::new(&r.rel_path)
                            .components()
                            .all(|c| matches!(c, std::path::Component::Normal(_))),
                        "{:?} -> {:?}",
                        p,
                        r.rel_path
                    );
                }
            }
        }
        // Both resolvers agree on every path.
        let a = ws.resolve(&p, workspace::Intent::Existing);
        let b = walk.resolve(&p, workspace::Intent::Existing);
        match (&a, &b) {
            (Ok(x), Ok(y)) => prop_assert_eq!(&x.rel_path, &y.rel_path),
            (Err(x), Err(y)) => prop_assert_eq!(x.code, y.code, "{:?}", p),
            _ => prop_assert!(
                false,
                "{:?}: fast {:?} vs walk {:?}",
                p,
                a.is_ok(),
                b.is_ok()
            ),
        }
        Ok(())
    });
}

// ---------------------------------------------------------------------------
// Edit-format parsers and their entry points.

/// Lines that make up the grammars of every format, mixed at random, so
/// that the parsers meet both well-formed and broken structure.
const FORMAT_LINES: &[&str] = &[
    "<<<<<<< SEARCH",
    "<<<<<<<<< SEARCH",
    "=======",
    ">>>>>>> REPLACE",
    "```",
    "```rust",
    "f.txt",
    "sub/g.txt",
    "../outside.txt",
    "/etc/passwd",
    "link_out",
    "*** Begin Patch",
    "*** End Patch",
    "*** Update File: f.txt",
    "*** Update File: ../outside.txt",
    "*** Add File: new.txt",
    "*** Add File: ../escape.txt",
    "*** Delete File: f.txt",
    "*** Delete File: ../outside.txt",
    "*** Move to: moved.txt",
    "*** Move to: ../escape.txt",
    "*** End of File",
    "@@",
    "@@ fn main",
    "@@ -1,2 +1,2 @@",
    "@@ -1 +1 @@",
    "@@ -0,0 +1,3 @@",
    "@@ -99999999999999999999,1 +1 @@",
    "--- a/f.txt",
    "+++ b/f.txt",
    "--- /dev/null",
    "+++ /dev/null",
    "+++ b/../outside.txt",
    "diff --git a/f.txt b/f.txt",
    "rename from f.txt",
    "rename to ../escape.txt",
    "\\ No newline at end of file",
    " alpha",
    "-alpha",
    "+ALPHA",
    " beta",
    "-beta",
    "+BETA",
    "alpha",
    "beta",
    "",
    " ",
    "+",
    "-",
    "\t",
    "é日本😀",
    "cat <<'EOF'",
    "EOF",
    "apply_patch <<\"EOF\"",
];

const PATHS: &[&str] = &[
    "f.txt",
    "sub/g.txt",
    "new.txt",
    "sub/new/n.txt",
    "../outside.txt",
    "../escape.txt",
    "link_out",
    "/etc/passwd",
    "sub",
    "f.txt\0",
];
const BODY: &[&str] = &[
    "alpha",
    "beta",
    "ALPHA",
    "BETA",
    "",
    "gamma",
    " alpha",
    "é日本😀",
];

fn lines_of(set: &'static [&'static str], max: usize) -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec(prop::sample::select(set).prop_map(str::to_string), 0..max)
}

/// SEARCH/REPLACE blocks, mostly well formed.
fn edit_blocks() -> impl Strategy<Value = Vec<String>> {
    let block = (
        prop::sample::select(PATHS),
        any::<bool>(),
        lines_of(BODY, 3),
        lines_of(BODY, 3),
    )
        .prop_map(|(path, fence, search, replace)| {
            let mut v = vec![path.to_string()];
            if fence {
                v.push("```".into());
            }
            v.push("<<<<<<< SEARCH".into());
            v.extend(search);
            v.push("=======".into());
            v.extend(replace);
            v.push(">>>>>>> REPLACE".into());
            if fence {
                v.push("```".into());
            }
            v
        });
    prop::collection::vec(block, 1..4).prop_map(|b| b.concat())
}

/// Codex `*** Begin Patch` envelopes, mostly well formed.
fn codex_patch() -> impl Strategy<Value = Vec<String>> {
    let hunk_line = prop_oneof![
        prop::sample::select(BODY).prop_map(|l| format!(" {l}")),
        prop::sample::select(BODY).prop_map(|l| format!("-{l}")),
        prop::sample::select(BODY).prop_map(|l| format!("+{l}")),
    ];
    let op = (
        0..4u8,
        prop::sample::select(PATHS),
        prop::sample::select(PATHS),
        prop::collection::vec(hunk_line, 0..6),
        any::<bool>(),
    )
        .prop_map(|(kind, path, to, hunk, ctx)| {
            let mut v = Vec::new();
            match kind {
                0 => {
                    v.push(format!("*** Add File: {path}"));
                    v.extend(hunk.iter().map(|l| format!("+{}", &l[1..])));
                }
                1 => v.push(format!("*** Delete File: {path}")),
                _ => {
                    v.push(format!("*** Update File: {path}"));
                    if kind == 3 {
                        v.push(format!("*** Move to: {to}"));
                    }
                    v.push(if ctx { "@@ alpha".into() } else { "@@".into() });
                    v.extend(hunk);
                }
            }
            v
        });
    prop::collection::vec(op, 1..4).prop_map(|ops| {
        let mut v = vec!["*** Begin Patch".to_string()];
        v.extend(ops.concat());
        v.push("*** End Patch".into());
        v
    })
}

/// Unified diffs, mostly well formed.
fn unified() -> impl Strategy<Value = Vec<String>> {
    let file = (
        prop::sample::select(PATHS),
        prop::sample::select(PATHS),
        0u32..4,
        0u32..4,
        lines_of(
            &[
                " alpha",
                " beta",
                "-alpha",
                "-beta",
                "+ALPHA",
                "+BETA",
                "\\ No newline at end of file",
            ],
            5,
        ),
    )
        .prop_map(|(a, b, start, n, body)| {
            let old = if a == "new.txt" {
                "/dev/null".to_string()
            } else {
                format!("a/{a}")
            };
            let new = if b == "f.txt\0" {
                "/dev/null".to_string()
            } else {
                format!("b/{b}")
            };
            let mut v = vec![
                format!("--- {old}"),
                format!("+++ {new}"),
                format!("@@ -{start},{n} +{start},{n} @@"),
            ];
            v.extend(body);
            v
        });
    prop::collection::vec(file, 1..3).prop_map(|f| f.concat())
}

/// Some damage: a line dropped, duplicated or replaced by a grammar line.
fn damaged(lines: Vec<String>, what: u8, at: prop::sample::Index, with: &str) -> Vec<String> {
    let mut lines = lines;
    if lines.is_empty() {
        return lines;
    }
    let i = at.index(lines.len());
    match what {
        0 => {
            lines.remove(i);
        }
        1 => {
            let l = lines[i].clone();
            lines.insert(i, l);
        }
        2 => lines[i] = with.to_string(),
        _ => {}
    }
    lines
}

fn format_text() -> impl Strategy<Value = String> {
    let structured = prop_oneof![edit_blocks(), codex_patch(), unified()];
    let soup = prop::collection::vec(
        prop::sample::select(FORMAT_LINES).prop_map(str::to_string),
        0..40,
    );
    (
        prop_oneof![4 => structured, 1 => soup],
        0u8..8,
        any::<prop::sample::Index>(),
        prop::sample::select(FORMAT_LINES),
        prop::sample::select(vec!["\n", "\r\n"]),
        any::<bool>(),
    )
        .prop_map(|(lines, what, at, with, nl, trailing)| {
            let mut s = damaged(lines, what, at, with).join(nl);
            if trailing {
                s.push_str(nl);
            }
            s
        })
}

struct FormatWorld {
    _t: tempfile::TempDir,
    base: PathBuf,
    root: PathBuf,
}

fn format_world() -> FormatWorld {
    let t = tempfile::tempdir().unwrap();
    let base = std::fs::canonicalize(t.path()).unwrap();
    let root = base.join("ws");
    std::fs::create_dir_all(root.join("sub")).unwrap();
    std::fs::write(base.join("outside.txt"), "alpha\nbeta\n").unwrap();
    std::os::unix::fs::symlink(base.join("outside.txt"), root.join("link_out")).unwrap();
    FormatWorld { _t: t, base, root }
}

fn reset_inside(root: &Path) {
    std::fs::write(root.join("f.txt"), "alpha\nbeta\n").unwrap();
    std::fs::write(root.join("sub/g.txt"), "alpha\nbeta\n").unwrap();
}

fn outside_intact(w: &FormatWorld) -> Result<(), TestCaseError> {
    prop_assert_eq!(
        std::fs::read(w.base.join("outside.txt")).unwrap(),
        b"alpha\nbeta\n".to_vec()
    );
    let names: Vec<_> = std::fs::read_dir(&w.base)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    prop_assert_eq!(names.len(), 2, "{:?}", names);
    Ok(())
}

fn entry_ok(name: &str, r: &Value, root: &Path) -> Result<(), TestCaseError> {
    OUTCOMES.with(|o| {
        *o.borrow_mut()
            .entry(format!("{name}:{}", r["code"].as_str().unwrap_or("ok")))
            .or_default() += 1
    });
    prop_assert_ne!(&r["code"], "INTERNAL_ERROR", "{}: {}", name, r);
    prop_assert!(r["ok"].is_boolean(), "{}: {}", name, r);
    if r["ok"] == true {
        let mut paths: Vec<&str> = r["file_path"].as_str().into_iter().collect();
        if let Some(files) = r["files"].as_array() {
            paths.extend(files.iter().filter_map(|f| f["file_path"].as_str()));
        }
        for p in paths {
            prop_assert!(Path::new(p).starts_with(root), "{}: {}", name, r);
        }
    }
    Ok(())
}

#[test]
fn format_parsers() {
    use patch_file_core::testing::formats::{apply_patch, edit_block, unified_diff};
    let w = format_world();
    let opts = json!({"workspaceRoot": w.root, "durable": false});
    run("format_parsers", format_text(), |text| {
        let lines = text.split('\n').count();
        for (name, parsed) in [
            ("edit_block", edit_block::parse(&text)),
            ("apply_patch", apply_patch::parse(&text)),
            ("unified_diff", unified_diff::parse(&text)),
        ] {
            if let Err(e) = parsed {
                prop_assert_eq!(e.failure().code.as_str(), "PATCH_PARSE_ERROR");
                prop_assert!(
                    e.line <= lines + 1,
                    "{}: line {} of {}",
                    name,
                    e.line,
                    lines
                );
            }
        }
        reset_inside(&w.root);
        for (name, r) in [
            (
                "applyEditBlocks",
                patch_file_core::api::apply_edit_blocks(&json!({ "text": text }), Some(&opts)),
            ),
            (
                "applyPatch",
                patch_file_core::api::apply_patch(&json!({ "patch": text }), Some(&opts)),
            ),
        ] {
            entry_ok(name, &r, &w.root)?;
            outside_intact(&w)?;
        }
        Ok(())
    });
    OUTCOMES.with(|o| eprintln!("fuzz format_parsers outcomes: {:?}", o.borrow()));
}

const EDITOR_KEYS: &[&str] = &[
    "command",
    "path",
    "file_text",
    "old_str",
    "new_str",
    "insert_line",
    "insert_text",
    "view_range",
    "dry_run",
];

fn editor_command() -> impl Strategy<Value = Value> {
    let well_formed = (
        prop::sample::select(vec!["view", "create", "str_replace", "insert", "undo_edit"]),
        prop::sample::select(PATHS),
        prop::sample::select(BODY),
        prop::sample::select(BODY),
        0i64..4,
    )
        .prop_map(|(c, path, a, b, n)| match c {
            "view" => json!({"command": c, "path": path, "view_range": [1, n]}),
            "create" => json!({"command": c, "path": path, "file_text": format!("{a}\n{b}\n")}),
            "str_replace" => json!({"command": c, "path": path, "old_str": a, "new_str": b}),
            "insert" => json!({"command": c, "path": path, "insert_line": n, "insert_text": a}),
            _ => json!({"command": c, "path": path}),
        });
    prop_oneof![3 => well_formed, 1 => editor_soup()]
}

fn editor_soup() -> impl Strategy<Value = Value> {
    let value = prop_oneof![
        prop::sample::select(vec![
            "view",
            "create",
            "str_replace",
            "insert",
            "undo_edit",
            "f.txt",
            "sub/g.txt",
            "../outside.txt",
            "link_out",
            "/etc/passwd",
            "alpha",
            "beta",
            "",
            "sub",
            "new.txt",
        ])
        .prop_map(|s| json!(s)),
        (-3i64..5).prop_map(|n| json!(n)),
        prop::collection::vec(-3i64..5, 0..3).prop_map(|v| json!(v)),
        any::<bool>().prop_map(|b| json!(b)),
        Just(Value::Null),
    ];
    prop::collection::vec((prop::sample::select(EDITOR_KEYS), value), 0..6)
        .prop_map(|kv| Value::Object(kv.into_iter().map(|(k, v)| (k.to_string(), v)).collect()))
}

#[test]
fn text_editor_commands() {
    let w = format_world();
    let opts = json!({"workspaceRoot": w.root, "durable": false});
    run("text_editor_commands", editor_command(), |cmd| {
        reset_inside(&w.root);
        if let Err(f) = patch_file_core::testing::formats::text_editor::parse(&cmd) {
            prop_assert_eq!(f.code.as_str(), "INVALID_INPUT", "{}", f);
        }
        let r = patch_file_core::api::text_editor(&cmd, Some(&opts));
        entry_ok("textEditor", &r, &w.root)?;
        outside_intact(&w)
    });
    OUTCOMES.with(|o| eprintln!("fuzz text_editor_commands outcomes: {:?}", o.borrow()));
}
