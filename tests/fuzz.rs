//! Property-based fuzzing (proptest): cargo-fuzz needs a nightly compiler,
//! so these targets run on stable with many generated cases.
//!
//! - `differential_patch`: random files (UTF-8, UTF-8 with BOM, UTF-16 LE/BE,
//!   invalid UTF-8 bytes), random blocks and counts, one to three edits,
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

use patch_file_tool::{engine, request, source, workspace};
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
                // An invalid byte, never first (0xFF 0xFE would be a BOM).
                let at = 1 + cut.index(text.len() + 1);
                text.insert(0, b'z');
                text.insert(at.min(text.len()), 0xFF);
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

/// What the reference says: the new text, or the codes a failure may carry.
fn reference(c: &Case) -> Result<(Vec<u8>, usize, usize), Vec<&'static str>> {
    let mut text = c.text.clone();
    let mut failed: Vec<&'static str> = Vec::new();
    let mut total = 0;
    let mut first_line = 0;
    for (k, e) in c.edits.iter().enumerate() {
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
        if k == 0 {
            first_line = 1 + text[..at[0]].iter().filter(|&&b| b == b'\n').count();
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
    if failed.is_empty() {
        Ok((encode(c.enc, &text), total, first_line))
    } else {
        Err(failed)
    }
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
    match reference(&c) {
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
    type Parse = fn(&Value) -> Result<(), patch_file_tool::error::Failure>;
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
