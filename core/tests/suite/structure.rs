//! Rules of the code that a reader relies on, each checked here over both
//! crates, the engine (`core/src/`) and the addon (`src/`):
//!
//! - size: no function (tests aside) runs over [`MAX_LINES`]
//!   lines, from its signature to its closing brace;
//! - a module root (`mod.rs`, a `lib.rs`) only declares
//!   ([`module_roots_only_declare`]);
//! - no JSON is built below `api/` ([`no_json_is_built_below_the_api`]);
//! - sentences for agents are worded in the printer (`core/src/printer/`):
//!   no production `format!` elsewhere, but one a `// data:` comment
//!   declares data ([`no_words_are_formatted_outside_the_printer`]), and
//!   no failure built from a string literal
//!   ([`no_failure_is_worded_with_a_literal_outside_the_printer`]);
//! - each name of the vocabulary (`core/src/result/`, `model.rs`,
//!   `error.rs`) names one type: no layer defines a twin of it
//!   ([`every_published_name_names_one_type`]).
//!
//! (That no entry point calls another is in `tests/suite/layers.rs`, beside the
//! path resolution it needs.)
//!
//! The size rule: no function (tests aside) runs over
//! [`MAX_LINES`] lines, from its signature to its closing brace.
//! A function that long mixes topics (searching, messages for agents, the
//! driver loop) and is the first place bugs hide in review.
//!
//! [`LONGER`] names functions allowed over the limit for a while, each
//! with its length: a listed function may only shrink, and one brought
//! under the limit must leave the list. Every production function is
//! measured: items under `#[cfg(test)]` are skipped one by one, not the
//! rest of the file after the first of them.

use std::fs;

use crate::common::{self, rust_files};

const MAX_LINES: usize = 120;

/// (file, function, its length today): still to be split.
const LONGER: &[(&str, &str, usize)] = &[];

/// Every Rust file of both crates, the engine's (`core/src/`) and the
/// addon's (`src/`), in path order: its path from the repository's root
/// (`/`-separated) and its text.
fn src_files() -> Vec<(String, String)> {
    let root = common::repo_root();
    let mut files = rust_files(&root.join("core/src"));
    files.extend(rust_files(&root.join("src")));
    files
        .iter()
        .map(|f| {
            let rel = f
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            (rel, fs::read_to_string(f).unwrap())
        })
        .collect()
}

/// [`src_files`] but the engine's test-only files, as the dependency rule
/// finds them (`#[cfg(test)] mod x;`; the addon has none).
fn production_files() -> Vec<(String, String)> {
    let tests_only: Vec<String> =
        super::layers::test_only_files(&common::repo_root().join("core/src"))
            .into_iter()
            .map(|f| format!("core/src/{f}"))
            .collect();
    assert!(
        tests_only
            .iter()
            .any(|f| f == "core/src/check/syntax/cases.rs"),
        "{tests_only:?}"
    );
    src_files()
        .into_iter()
        .filter(|(rel, _)| !tests_only.contains(rel))
        .collect()
}

/// The name of the function a line declares, if it does (`fn name`, with
/// any visibility, `const`, `unsafe` or `async` before it).
fn declared(line: &str) -> Option<&str> {
    let mut rest = line.trim_start();
    loop {
        let word = rest.split_whitespace().next()?;
        if word == "fn" {
            let after = rest["fn".len()..].trim_start();
            let end = after
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(after.len());
            return (end > 0).then(|| &after[..end]);
        }
        if word.starts_with("pub") || ["const", "unsafe", "async", "extern"].contains(&word) {
            rest = rest[word.len()..].trim_start();
        } else {
            return None;
        }
    }
}

/// The index of the line after the item that starts at or after line `i`
/// (its attributes first): past the closing brace at the item's indentation
/// for an item with a body, past its `;` otherwise.
fn after_item(lines: &[&str], mut i: usize) -> usize {
    while i < lines.len() && lines[i].trim_start().starts_with("#[") {
        i += 1;
    }
    let Some(first) = lines.get(i) else {
        return i;
    };
    let indent = first.len() - first.trim_start().len();
    let mut j = i;
    while j < lines.len() {
        let t = lines[j].trim_end();
        if t.ends_with(';') && !t.contains('{') {
            return j + 1;
        }
        if t.ends_with('{') {
            break;
        }
        if t.contains('{') && t.ends_with('}') {
            return j + 1;
        }
        j += 1;
    }
    let close = format!("{}}}", " ".repeat(indent));
    let mut k = j + 1;
    while k < lines.len() && !lines[k].trim_end().starts_with(&close) {
        k += 1;
    }
    k + 1
}

/// The lines of a file outside `#[cfg(test)]` items, with their 1-based
/// numbers: each test-only item (a test module, a helper, a `use`) is
/// skipped by itself, and the production code after it is read.
fn production_lines(text: &str) -> Vec<(usize, &str)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if test_only(lines[i]) {
            i = after_item(&lines, i + 1);
            continue;
        }
        out.push((i + 1, lines[i]));
        i += 1;
    }
    out
}

/// Whether `line` is a `#[cfg(...)]` that holds only in tests, as the
/// dependency rule tells it (`#[cfg(test)]`, `#[cfg(all(test, unix))]`).
fn test_only(line: &str) -> bool {
    super::layers::cfg_test_line(line)
}

#[test]
fn test_only_cfgs_are_told_from_the_others() {
    assert!(test_only("#[cfg(test)]"));
    assert!(test_only("    #[cfg(all(test, unix))]"));
    assert!(test_only("#[cfg(all(unix, test))]"));
    assert!(test_only("#[cfg(all(any(unix, windows), test))]"));
    assert!(!test_only(
        "#[cfg(any(test, feature = \"fault-injection\"))]"
    ));
    assert!(!test_only("#[cfg(unix)]"));
    assert!(!test_only("#[cfg(all(unix, not(test)))]"));
    assert!(!test_only("#[cfg_attr(test, derive(Debug))]"));
}

#[test]
fn production_lines_skip_test_items_one_by_one() {
    let text = "use a;\n#[cfg(test)]\nuse b;\nfn p() {\n    json!(1);\n}\n#[cfg(test)]\nfn helper() {\n    json!(2);\n}\n\
                #[cfg(test)]\nmod tests {\n    fn t() {\n        json!(3);\n    }\n}\nimpl S {\n    #[cfg(test)]\n    fn only_tests() {\n        json!(4);\n    }\n    fn q() {\n        json!(5);\n    }\n}\n";
    let kept: Vec<(usize, &str)> = production_lines(text)
        .into_iter()
        .filter(|(_, l)| l.contains("json!"))
        .collect();
    assert_eq!(kept, [(5, "    json!(1);"), (23, "        json!(5);")]);
}

/// Every function of a file, with its length in lines (to the closing brace
/// at the signature's indentation). Items under `#[cfg(test)]` — a test
/// module, a test-only helper — are skipped one by one, precisely: the
/// production code after them is measured too.
fn functions(text: &str) -> Vec<(String, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let l = lines[i];
        if test_only(l) {
            i = after_item(&lines, i + 1);
            continue;
        }
        let Some(name) = declared(l) else {
            i += 1;
            continue;
        };
        let indent = l.len() - l.trim_start().len();
        // The signature ends at the line that opens the body (or at a `;`
        // for a declaration without one).
        let mut j = i;
        while j < lines.len()
            && !lines[j].trim_end().ends_with('{')
            && !lines[j].trim_end().ends_with(';')
        {
            if lines[j].contains('{') && lines[j].trim_end().ends_with('}') {
                break; // a body on the signature's last line
            }
            j += 1;
        }
        if j < lines.len() && lines[j].contains('{') && lines[j].trim_end().ends_with('}') {
            out.push((name.to_string(), j - i + 1));
            i = j + 1;
            continue;
        }
        if j == lines.len() || lines[j].trim_end().ends_with(';') {
            i = j + 1;
            continue;
        }
        let close = format!("{}}}", " ".repeat(indent));
        let mut k = j + 1;
        while k < lines.len() && lines[k].trim_end() != close {
            k += 1;
        }
        out.push((name.to_string(), k - i + 1));
        i = k + 1;
    }
    out
}

#[test]
fn the_function_finder_measures_what_it_names() {
    let text = "pub(crate) fn a(\n    x: u8,\n) -> u8 {\n    x\n}\n\nimpl T {\n    pub unsafe fn b() {}\n    fn c() {\n        1;\n    }\n}\nfn d();\n#[cfg(test)]\nfn e() {\n}\n";
    assert_eq!(
        functions(text),
        vec![("a".into(), 5), ("b".into(), 1), ("c".into(), 3)]
    );
    // A test module, a test-only helper and a test-only `use` are skipped;
    // the production functions after them are measured.
    let text = "#[cfg(test)]\nuse x::y;\nfn p() {\n}\n#[cfg(test)]\n#[allow(dead_code)]\nfn helper() {\n    1;\n}\n#[cfg(test)]\nmod tests {\n    fn t() {\n    }\n}\nimpl S {\n    #[cfg(test)]\n    fn only_tests(&self) {\n    }\n    fn q(&self) {\n        2;\n    }\n}\n";
    assert_eq!(functions(text), vec![("p".into(), 2), ("q".into(), 3)]);
}

#[test]
fn no_function_in_src_is_over_the_limit() {
    let mut problems = Vec::new();
    let mut seen = Vec::new();
    for (rel, text) in src_files() {
        for (name, len) in functions(&text) {
            let listed = LONGER.iter().find(|(p, n, _)| *p == rel && *n == name);
            match listed {
                Some(&(_, _, was)) => {
                    seen.push((rel.clone(), name.clone()));
                    if len > was {
                        problems.push(format!("{rel}: `{name}` grew from {was} to {len} lines"));
                    } else if len <= MAX_LINES {
                        problems.push(format!(
                            "{rel}: `{name}` is {len} lines now: remove it from LONGER"
                        ));
                    }
                }
                None if len > MAX_LINES => problems.push(format!(
                    "{rel}: `{name}` is {len} lines (at most {MAX_LINES}): split it by topic"
                )),
                None => {}
            }
        }
    }
    for (p, n, _) in LONGER {
        if !seen.iter().any(|(sp, sn)| sp == p && sn == n) {
            problems.push(format!(
                "{p}: `{n}` is listed in LONGER but no longer exists"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Results are typed values below `api/` (`src/result/`); JSON is made only
/// at the edge (`api/`, and the addon in `src/`), so no file below them builds a JSON
/// value with `json!` (test code aside).
#[test]
fn no_json_is_built_below_the_api() {
    let mut found = Vec::new();
    for (rel, text) in src_files() {
        // The engine's interface, and the addon (`src/`), which converts.
        if rel.starts_with("core/src/api/") || !rel.starts_with("core/") {
            continue;
        }
        for (n, line) in production_lines(&text) {
            if line.contains("json!(") && !line.trim_start().starts_with("//") {
                found.push(format!("{rel}:{n}: {}", line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "JSON built below api/:\n{}",
        found.join("\n")
    );
}

/// Module roots (a `mod.rs`) that still define items, each to be moved into
/// a child of its own. A listed file must still define something: one that
/// only declares must leave the list.
const STILL_DEFINING: &[&str] = &[];

/// A module root's line without its visibility (`pub`, `pub(crate)`,
/// `pub(super)`, `pub(in …)`).
fn without_visibility(line: &str) -> &str {
    let rest = line.trim();
    let Some(after) = rest.strip_prefix("pub") else {
        return rest;
    };
    if let Some(scope) = after.strip_prefix('(') {
        return scope.split_once(')').map_or("", |(_, r)| r).trim_start();
    }
    if after.starts_with(char::is_whitespace) {
        return after.trim_start();
    }
    rest
}

/// Whether an item only declares: `mod name;` (a child in a file of its
/// own), a `use` (re-exports included) or `extern crate`.
fn only_declares(item: &str) -> bool {
    let item = without_visibility(item);
    (item.starts_with("mod ") && item.ends_with(';'))
        || item.starts_with("use ")
        || item.starts_with("extern crate ")
}

/// The index of the line after the item that starts at line `i`, in
/// rustfmt's layout: that line when it ends the item (with `;`, or `}` as in
/// `fn f() {}`), else the next line at column 0 that closes it (`}`, `};`,
/// `);`).
fn item_end(lines: &[&str], i: usize) -> usize {
    if lines[i].trim_end().ends_with([';', '}']) {
        return i + 1;
    }
    let mut k = i + 1;
    while k < lines.len() {
        let l = lines[k].trim_end();
        if l.starts_with('}') || (!l.starts_with(char::is_whitespace) && l.ends_with(';')) {
            return k + 1;
        }
        k += 1;
    }
    k
}

/// What a module root defines besides declarations, as `line: text`
/// (1-based): every item but `mod name;`, `use` and `extern crate` — a
/// function, struct, enum, union, trait, impl, const, static, type alias,
/// macro, inline module with a body — outside `#[cfg(test)]`. The files
/// are rustfmt-formatted (`cargo fmt --check` is part of the suite), so
/// every item starts at column 0 and what is indented, or opens with a
/// closing bracket, continues the item or attribute above it. An item under
/// `#[cfg(test)]` (a test module, a test-only helper) is skipped, the
/// items after it read.
fn definitions(text: &str) -> Vec<String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut test_only = false;
    let mut i = 0;
    while i < lines.len() {
        let l = lines[i].trim_end();
        if l.is_empty()
            || l.starts_with(char::is_whitespace)
            || l.starts_with("//")
            || l.starts_with(['}', ')', ']'])
        {
            i += 1;
            continue;
        }
        if l.starts_with("/*") {
            while i < lines.len() && !lines[i].contains("*/") {
                i += 1;
            }
            i += 1;
            continue;
        }
        if l.starts_with('#') {
            // An attribute (its continuation lines are indented or close it).
            test_only |= self::test_only(l);
            i += 1;
            continue;
        }
        if !test_only && !only_declares(l) {
            out.push(format!("{}: {l}", i + 1));
        }
        test_only = false;
        i = item_end(&lines, i);
    }
    out
}

#[test]
fn the_definition_finder_sees_every_kind_of_item() {
    // Only declarations: a module doc, attributes, children, re-exports
    // (one line and several), a test module and a test-only helper.
    let declares = "//! The map.\n\n#![warn(unreachable_pub)]\n\npub mod a;\npub(crate) mod b;\n#[cfg(not(test))]\n\
                    #[allow(unreachable_pub)]\nmod binding;\n#[cfg(test)]\nmod testutil;\n\npub use a::{x, y};\n\
                    pub(crate) use self::b::{\n    long_name,\n    other,\n};\nuse crate::c::D;\nextern crate alloc;\n\
                    // fn in a comment\n/* struct S;\n   fn f() {} */\n#[cfg(test)]\nfn helper() {\n    1;\n}\n\
                    #[cfg(test)]\nmod tests {\n    fn t() {}\n}\n";
    assert_eq!(definitions(declares), Vec::<String>::new());
    // Every kind of definition, each with its visibility or qualifiers,
    // found after declarations and after a test module.
    let defines = "pub mod a;\nfn f() {}\npub(crate) const K: u8 = 1;\n#[cfg(test)]\nmod tests {\n}\n\
                   pub struct S {\n    x: u8,\n}\npub(super) enum E {\n    A,\n}\nimpl S {\n    fn g(&self) {}\n}\n\
                   #[derive(Debug)]\npub(in crate::a) struct T(\n    u8,\n);\nstatic N: u8 = 0;\ntype A = u8;\n\
                   trait Tr {}\nunsafe impl Send for S {}\npub const fn c() -> u8 {\n    0\n}\nmacro_rules! m {\n    () => {};\n}\n\
                   mod inline {\n    pub fn h() {}\n}\n#[napi(\n    ts_args_type = \"x: string\"\n)]\npub fn exported(\n    x: String,\n) -> u8 {\n    0\n}\n\
                   union U {\n    a: u8,\n}\nconst _: () = assert!(true);\n";
    let found: Vec<String> = definitions(defines)
        .iter()
        .map(|d| {
            d.split_once(": ")
                .unwrap()
                .1
                .split_whitespace()
                .take(2)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    assert_eq!(
        found,
        [
            "fn f()",
            "pub(crate) const",
            "pub struct",
            "pub(super) enum",
            "impl S",
            "pub(in crate::a)",
            "static N:",
            "type A",
            "trait Tr",
            "unsafe impl",
            "pub const",
            "macro_rules! m",
            "mod inline",
            "pub fn",
            "union U",
            "const _:",
        ]
    );
}

/// A module root only declares (docs/architecture.md): each `src/**/mod.rs`
/// and `src/lib.rs` (the crate's root: its map and its dependency rule)
/// holds its module doc, `mod` declarations, `use`s and re-exports; what its
/// children share lives in a child of its own, named by concern.
#[test]
fn module_roots_only_declare() {
    let root = common::repo_root();
    let mut problems = Vec::new();
    let mut roots = 0;
    for (rel, text) in src_files() {
        if !(rel.ends_with("/mod.rs") || rel.ends_with("src/lib.rs")) {
            continue;
        }
        roots += 1;
        let found = definitions(&text);
        match (STILL_DEFINING.contains(&rel.as_str()), found.is_empty()) {
            (false, false) => problems.push(format!(
                "{rel} defines items (a module root only declares: move them to a child module):\n  {}",
                found.join("\n  ")
            )),
            (true, true) => problems.push(format!(
                "{rel} only declares now: remove it from STILL_DEFINING"
            )),
            _ => {}
        }
    }
    for p in STILL_DEFINING {
        if !root.join(p).exists() {
            problems.push(format!(
                "{p} is listed in STILL_DEFINING but no longer exists"
            ));
        }
    }
    assert!(roots >= 10, "only {roots} module roots found");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The types a Rust file declares (`struct`, `enum`, `union`, `type`, at
/// any indentation and visibility, those a `names!` block declares
/// included), with their 1-based line.
fn type_names(text: &str) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    for (i, l) in text.lines().enumerate() {
        let mut rest = l.trim_start();
        if rest.starts_with("//") {
            continue;
        }
        if let Some(r) = rest.strip_prefix("pub") {
            rest = match r.strip_prefix('(') {
                Some(r) => r.split_once(')').map_or("", |(_, r)| r),
                None => r,
            }
            .trim_start();
        }
        let Some((kw, r)) = rest.split_once(' ') else {
            continue;
        };
        if !matches!(kw, "struct" | "enum" | "union" | "type") {
            continue;
        }
        let name: String = r
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if name.starts_with(|c: char| c.is_ascii_uppercase()) {
            out.push((name, i + 1));
        }
    }
    out
}

#[test]
fn the_type_finder_sees_every_kind_of_declaration() {
    let text = "pub struct A {\n}\n    pub(crate) enum B { X }\nstruct C;\n\
                pub type D = u8;\n// struct E\nfn f() -> impl Strategy<Value = u8> {}\n\
                names! {\n    pub enum G {\n        X = \"x\",\n    }\n}\nunion H { a: u8 }\n";
    let names: Vec<String> = type_names(text).into_iter().map(|(n, _)| n).collect();
    assert_eq!(names, ["A", "B", "C", "D", "G", "H"]);
}

/// The vocabulary every layer speaks is defined once: a type name declared
/// in `src/result/`, `src/model.rs` or `src/error.rs` (the published
/// contract and the shared model) is declared nowhere else in `src/`, nor
/// twice among them. A layer that needs its own record of a fact gives it
/// a name of its own; one that needs the published value uses it.
#[test]
fn every_published_name_names_one_type() {
    let mut vocabulary: std::collections::HashMap<String, String> = Default::default();
    let mut others = Vec::new();
    let mut problems = Vec::new();
    for (rel, text) in src_files() {
        let shared = rel.starts_with("core/src/result/")
            || rel == "core/src/model.rs"
            || rel == "core/src/error.rs";
        for (name, line) in type_names(&text) {
            let at = format!("{rel}:{line}");
            if shared {
                if let Some(first) = vocabulary.insert(name.clone(), at.clone()) {
                    problems.push(format!("{name}: {first} and {at}"));
                }
            } else {
                others.push((name, at));
            }
        }
    }
    assert!(
        vocabulary.len() > 80,
        "only {} names found",
        vocabulary.len()
    );
    for (name, at) in others {
        if let Some(first) = vocabulary.get(&name) {
            problems.push(format!("{name}: {first} (the vocabulary) and {at}"));
        }
    }
    assert!(
        problems.is_empty(),
        "type names defined twice (one vocabulary: use the published type, or name the layer's own record differently):\n  {}",
        problems.join("\n  ")
    );
}

/// The comment that declares the `format!` on the next line data, not
/// words: a name, a diff line, a label (`// data: the temp file's name`).
const DATA: &str = "// data:";

/// `format!(` calls in the production lines of `text` that build words:
/// those right under a [`DATA`] comment build data and are not counted.
/// A [`DATA`] comment over a line without `format!(` is an error (`Err`
/// with its line number), so that no marker outlives its call.
fn wordings(text: &str) -> Result<usize, usize> {
    let lines = production_lines(text);
    let mut n = 0;
    for (k, (no, l)) in lines.iter().enumerate() {
        let t = l.trim_start();
        if t.starts_with(DATA) {
            match lines.get(k + 1) {
                Some((_, next)) if next.contains("format!(") => continue,
                _ => return Err(*no),
            }
        }
        if t.starts_with("//") {
            continue;
        }
        let data = k > 0 && lines[k - 1].1.trim_start().starts_with(DATA);
        if !data {
            n += l.matches("format!(").count();
        }
    }
    Ok(n)
}

#[test]
fn no_words_are_formatted_outside_the_printer() {
    let mut problems = Vec::new();
    let mut printed = 0;
    for (rel, text) in &production_files() {
        let n = match wordings(text) {
            Ok(n) => n,
            Err(line) => {
                problems.push(format!(
                    "{rel}:{line}: a `{DATA}` comment must sit right above a line with format!"
                ));
                continue;
            }
        };
        if rel.starts_with("core/src/printer/") {
            printed += n;
            continue;
        }
        if n > 0 {
            problems.push(format!(
                "{rel} words {n} text(s) with format!: word them in core/src/printer/, or mark a format! \
                 that builds data (a name, a diff line) with a `{DATA}` comment on the line above"
            ));
        }
    }
    assert!(printed > 0, "the printer words nothing");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Lines (1-based) of `text`'s production code that build a `Failure`
/// from a string literal of words (`Failure::invalid("...")`,
/// `Failure::new(ErrorCode::X, "...")`, the literal on the same or the
/// next lines): its words belong in the printer too. `""` is no words.
fn literal_failures(text: &str) -> Vec<usize> {
    let lines = production_lines(text);
    let mut out = Vec::new();
    for (k, (no, l)) in lines.iter().enumerate() {
        if l.trim_start().starts_with("//") {
            continue;
        }
        let rest = if let Some((_, r)) = l.split_once("Failure::invalid(") {
            r.to_string()
        } else if let Some((_, r)) = l.split_once("Failure::new(") {
            // The code, then the message.
            let joined: String = std::iter::once(r)
                .chain(lines[k + 1..].iter().take(2).map(|(_, n)| *n))
                .collect::<Vec<_>>()
                .join(" ");
            match joined.split_once(',') {
                Some((_, m)) => m.to_string(),
                None => continue,
            }
        } else {
            continue;
        };
        let rest = if rest.trim().is_empty() {
            lines.get(k + 1).map_or("", |(_, n)| *n).to_string()
        } else {
            rest
        };
        let rest = rest.trim_start();
        if rest.starts_with('"') && !rest.starts_with("\"\"") {
            out.push(*no);
        }
    }
    out
}

#[test]
fn no_failure_is_worded_with_a_literal_outside_the_printer() {
    let mut problems = Vec::new();
    for (rel, text) in &production_files() {
        if rel.starts_with("core/src/printer/") {
            continue;
        }
        for line in literal_failures(text) {
            problems.push(format!(
                "{rel}:{line}: a failure worded with a string literal: word it in core/src/printer/"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn literal_failures_are_found_in_each_shape() {
    let text = "fn a() {\n    Failure::invalid(\"x is empty\");\n    Failure::invalid(\n        \"y\",\n    );\n    \
                Failure::new(ErrorCode::A, \"z\");\n    Failure::new(\n        ErrorCode::B,\n        \"w\",\n    );\n    \
                Failure::invalid(printer::p());\n    Failure::invalid(\"\");\n    Failure::new(ErrorCode::C, words(1));\n}\n";
    assert_eq!(literal_failures(text), vec![2, 3, 6, 7]);
}

#[test]
fn wordings_count_production_calls_only() {
    let text =
        "fn a() -> String {\n    format!(\"{} {}\", format!(\"x\"), 1)\n}\n// format!(\"no\")\n\
                #[cfg(test)]\nmod tests {\n    fn t() {\n        format!(\"t\");\n    }\n}\n";
    assert_eq!(wordings(text), Ok(2));
}

#[test]
fn a_data_comment_exempts_the_format_under_it_and_no_other() {
    let text =
        "fn a() -> String {\n    // data: a file name\n    let n = format!(\"{}.tmp\", 1);\n    \
                format!(\"{n} is not here\")\n}\n";
    assert_eq!(wordings(text), Ok(1));
    // A marker over a line that formats nothing is refused.
    let text = "fn a() {\n    // data: gone\n    let n = 1;\n}\n";
    assert_eq!(wordings(text), Err(2));
}
