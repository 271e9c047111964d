//! The dependency rule written in `src/lib.rs` holds: every `crate::` path
//! in `src/` points to a module on a lower line of the layer block (or to
//! the module itself), so no layer uses one above it or beside it and there
//! are no circles.

use std::collections::{BTreeSet, HashMap};
use std::fs;
use std::path::{Path, PathBuf};

/// The layer block of lib.rs: module name -> rank (0 = bottom line).
fn layers(lib: &str) -> HashMap<String, usize> {
    let start = lib
        .find("Layers, top to bottom")
        .expect("lib.rs states the layers");
    let block = &lib[start..];
    let open = block.find("//! ```text\n").expect("a text block") + "//! ```text\n".len();
    let close = block[open..].find("//! ```").expect("the block ends") + open;
    let lines: Vec<Vec<String>> = block[open..close]
        .lines()
        .map(|l| {
            l.trim_start_matches("//!")
                .split_whitespace()
                .map(str::to_string)
                .collect()
        })
        .filter(|v: &Vec<String>| !v.is_empty())
        .collect();
    let n = lines.len();
    let mut rank = HashMap::new();
    for (i, names) in lines.into_iter().enumerate() {
        for m in names {
            assert!(
                rank.insert(m.clone(), n - 1 - i).is_none(),
                "{m} listed twice"
            );
        }
    }
    rank
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The top-level module a file of `src/` belongs to.
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap();
    let first = rel
        .components()
        .next()
        .unwrap()
        .as_os_str()
        .to_string_lossy();
    first.trim_end_matches(".rs").to_string()
}

/// The top-level modules a line names with `crate::`, including those of
/// a `use crate::{a, b::c}` group.
fn targets(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(i) = rest.find("crate::") {
        let after = &rest[i + "crate::".len()..];
        let before_ok = i == 0 || !rest[..i].ends_with(|c: char| c.is_alphanumeric() || c == '_');
        if before_ok {
            if let Some(group) = after.strip_prefix('{') {
                let end = group.find('}').unwrap_or(group.len());
                for item in group[..end].split(',') {
                    let name: String = item
                        .trim()
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect();
                    if !name.is_empty() && name != "self" {
                        out.push(name);
                    }
                }
            } else {
                let name: String = after
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if !name.is_empty() {
                    out.push(name);
                }
            }
        }
        rest = after;
    }
    out
}

/// Every edge that breaks the rule, as `file:line: from -> to`.
fn violations(src: &Path) -> (Vec<String>, BTreeSet<(String, String)>) {
    let lib = fs::read_to_string(src.join("lib.rs")).unwrap();
    let rank = layers(&lib);
    let mut files = Vec::new();
    rust_files(src, &mut files);
    files.sort();
    let mut bad = Vec::new();
    let mut edges = BTreeSet::new();
    for f in &files {
        let from = module_of(src, f);
        if from == "lib" {
            continue;
        }
        let from_rank = *rank
            .get(&from)
            .unwrap_or_else(|| panic!("module `{from}` is not in lib.rs's layer block"));
        let text = fs::read_to_string(f).unwrap();
        for (n, line) in text.lines().enumerate() {
            if line.trim_start().starts_with("//") {
                continue;
            }
            for to in targets(line) {
                if to == from {
                    continue;
                }
                let Some(&to_rank) = rank.get(&to) else {
                    bad.push(format!(
                        "{}:{}: `crate::{to}` is not a module in the layer block",
                        f.display(),
                        n + 1
                    ));
                    continue;
                };
                edges.insert((from.clone(), to.clone()));
                if to_rank >= from_rank {
                    bad.push(format!(
                        "{}:{}: {from} -> {to} ({})",
                        f.display(),
                        n + 1,
                        if to_rank == from_rank {
                            "same line: siblings may not use each other"
                        } else {
                            "upward"
                        }
                    ));
                }
            }
        }
    }
    (bad, edges)
}

#[test]
fn no_upward_or_circular_edges() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let (bad, edges) = violations(&src);
    assert!(
        bad.is_empty(),
        "the dependency rule of src/lib.rs is broken:\n{}",
        bad.join("\n")
    );
    // The pipeline really is layered: these edges exist (a sanity check
    // that the scan sees the code at all).
    for (a, b) in [
        ("api", "txn"),
        ("api", "history"),
        ("history", "txn"),
        ("history", "io"),
        ("txn", "io"),
        ("txn", "matching"),
        ("matching", "diagnose"),
    ] {
        assert!(
            edges.contains(&(a.to_string(), b.to_string())),
            "expected {a} -> {b} among {edges:?}"
        );
    }
    // The pipeline records nothing itself: the journal is above it.
    assert!(
        !edges.contains(&("txn".to_string(), "history".to_string())),
        "txn must not use history"
    );
}

#[test]
fn the_scan_catches_a_bad_edge() {
    // A throw-away tree with one upward and one sideways edge.
    let t = tempfile::tempdir().unwrap();
    let src = t.path();
    fs::write(
        src.join("lib.rs"),
        "//! Layers, top to bottom\n//!\n//! ```text\n//! api\n//! input txn\n//! text\n//! ```\n",
    )
    .unwrap();
    fs::create_dir(src.join("txn")).unwrap();
    fs::write(
        src.join("txn/mod.rs"),
        "use crate::text::x;\nuse crate::{input, text};\n",
    )
    .unwrap();
    fs::write(
        src.join("text.rs"),
        "// crate::api in a comment is fine\nfn f() { crate::api::g() }\n",
    )
    .unwrap();
    fs::write(src.join("api.rs"), "use crate::txn;\n").unwrap();
    let (bad, _) = violations(src);
    assert_eq!(bad.len(), 2, "{bad:?}");
    assert!(
        bad.iter().any(|b| b.contains("txn -> input (same line")),
        "{bad:?}"
    );
    assert!(
        bad.iter().any(|b| b.contains("text -> api (upward)")),
        "{bad:?}"
    );
}
