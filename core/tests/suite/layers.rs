//! The dependency rule written in `src/lib.rs` holds: every `crate::` path
//! in `src/` points to a module on a lower line of the layer block (or to
//! the module itself), so no layer uses one above it or beside it and there
//! are no circles between layers; and within a layer no files use each
//! other round a circle, so each file can be read knowing only files below
//! it. Within `api`, no entry point calls another: each is called only by
//! the runner (`no_entry_point_calls_another`).

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::fs;
use std::path::{Path, PathBuf};

use crate::common::rust_files;

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
    let files = rust_files(src);
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

/// `text` with comments and the insides of string and char literals
/// blanked (newlines kept, so line numbers hold).
fn code_only(text: &str) -> String {
    let c: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let ident = |ch: char| ch.is_alphanumeric() || ch == '_';
    let blank = |out: &mut String, ch: char| out.push(if ch == '\n' { '\n' } else { ' ' });
    let mut i = 0;
    while i < c.len() {
        let next = c.get(i + 1).copied();
        if c[i] == '/' && next == Some('/') {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if c[i] == '/' && next == Some('*') {
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && c.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if c[i] == '*' && c.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    blank(&mut out, c[i]);
                    i += 1;
                }
            }
        } else if c[i] == 'r'
            && (i == 0 || !ident(c[i - 1]) || (c[i - 1] == 'b' && (i < 2 || !ident(c[i - 2]))))
            && matches!(next, Some('"' | '#'))
            && {
                let mut j = i + 1;
                while c.get(j) == Some(&'#') {
                    j += 1;
                }
                c.get(j) == Some(&'"')
            }
        {
            // A raw string: r"…", r#"…"#, br##"…"##.
            let mut j = i + 1;
            while c[j] == '#' {
                j += 1;
            }
            let hashes = j - i - 1;
            out.push('"');
            i = j + 1;
            while i < c.len() {
                if c[i] == '"' && (1..=hashes).all(|k| c.get(i + k) == Some(&'#')) {
                    i += 1 + hashes;
                    break;
                }
                blank(&mut out, c[i]);
                i += 1;
            }
            out.push('"');
        } else if c[i] == '"' {
            out.push('"');
            i += 1;
            while i < c.len() && c[i] != '"' {
                if c[i] == '\\' {
                    blank(&mut out, c[i]);
                    i += 1;
                }
                if i < c.len() {
                    blank(&mut out, c[i]);
                    i += 1;
                }
            }
            out.push('"');
            i += 1;
        } else if c[i] == '\'' && (next == Some('\\') || c.get(i + 2) == Some(&'\'')) {
            // A char literal ('x', '\n', '\u{..}'); a lifetime has no closing quote.
            out.push('\'');
            i += 1;
            if c[i] == '\\' {
                i += 2;
            } else {
                i += 1;
            }
            while i < c.len() && c[i] != '\'' {
                i += 1;
            }
            out.push('\'');
            i += 1;
        } else {
            out.push(c[i]);
            i += 1;
        }
    }
    out
}

/// Identifiers and punctuation of code, each with its line (1-based).
fn tokens(code: &str) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    for (n, line) in code.lines().enumerate() {
        let c: Vec<char> = line.chars().collect();
        let mut i = 0;
        while i < c.len() {
            if c[i].is_alphanumeric() || c[i] == '_' {
                let s = i;
                while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                    i += 1;
                }
                out.push((c[s..i].iter().collect(), n + 1));
            } else if c[i] == ':' && c.get(i + 1) == Some(&':') {
                out.push(("::".to_string(), n + 1));
                i += 2;
            } else if !c[i].is_whitespace() {
                out.push((c[i].to_string(), n + 1));
                i += 1;
            } else {
                i += 1;
            }
        }
    }
    out
}

fn is_ident(t: &str) -> bool {
    t.chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_')
}

/// The paths of the use tree (or plain path) starting at `toks[i]`, each as
/// its segments, and the index after it.
fn use_tree(
    toks: &[(String, usize)],
    mut i: usize,
    prefix: &[String],
) -> (Vec<Vec<String>>, usize) {
    let mut segs = prefix.to_vec();
    loop {
        let Some((t, _)) = toks.get(i) else {
            return (vec![segs], i);
        };
        if t == "{" {
            let mut out = Vec::new();
            i += 1;
            while i < toks.len() && toks[i].0 != "}" {
                if toks[i].0 == "," {
                    i += 1;
                    continue;
                }
                let (mut paths, next) = use_tree(toks, i, &segs);
                out.append(&mut paths);
                // Skip `as alias` and anything up to the next item.
                i = next;
                while i < toks.len() && toks[i].0 != "," && toks[i].0 != "}" {
                    i += 1;
                }
            }
            return (out, i + 1);
        }
        if t == "*" || !is_ident(t) {
            return (vec![segs], i + usize::from(t == "*"));
        }
        if t != "self" || segs.is_empty() {
            segs.push(t.clone());
        }
        i += 1;
        if toks.get(i).map(|t| t.0.as_str()) != Some("::") {
            return (vec![segs], i);
        }
        i += 1;
    }
}

/// The path of a file of `src/` from `src/`, `/`-separated.
fn rel_path(src: &Path, f: &Path) -> String {
    f.strip_prefix(src)
        .unwrap()
        .to_string_lossy()
        .replace('\\', "/")
}

/// Each file of `files` (of `src/`) by the module path it defines.
fn by_module(src: &Path, files: &[PathBuf]) -> HashMap<Vec<String>, String> {
    files
        .iter()
        .map(|f| (module_path(src, f), rel_path(src, f)))
        .collect()
}

/// One file's module path: `src/a/b.rs` -> [a, b], `src/a/mod.rs` -> [a],
/// `src/lib.rs` -> [].
fn module_path(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let mut out: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if matches!(out.last().map(String::as_str), Some("mod" | "lib" | "main")) {
        out.pop();
    }
    out
}

/// A use of another file: `from` names `to` on `line`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Use {
    from: String,
    to: String,
    line: usize,
}

/// Every use of one file of `src/` by another: `crate::`, `super::` and
/// `self::` paths, and a module's bare paths into its own child modules
/// (`child::f()`, `use child::X`), resolved to the file that defines the
/// longest module prefix of the path. Inline modules (`mod tests { … }`)
/// belong to their file; a file's uses of itself are left out.
fn file_uses(src: &Path) -> Vec<Use> {
    let files = rust_files(src);
    let rel = |f: &Path| rel_path(src, f);
    let by_module = by_module(src, &files);
    let mut out = Vec::new();
    let mut test_only = test_only_files(src);
    for f in &files {
        let me = module_path(src, f);
        let name = rel(f);
        let children: BTreeSet<String> = by_module
            .keys()
            .filter(|m| m.len() == me.len() + 1 && m.starts_with(&me))
            .map(|m| m[me.len()].clone())
            .collect();
        if test_only.contains(&name) {
            continue;
        }
        let toks = without_tests(
            &tokens(&code_only(&fs::read_to_string(f).unwrap())),
            &me,
            &mut test_only,
            &by_module,
        );
        // Inline modules open here: (name, brace depth inside it).
        let mut inline: Vec<(String, usize)> = Vec::new();
        let mut depth = 0usize;
        let mut i = 0;
        while i < toks.len() {
            let t = toks[i].0.as_str();
            match t {
                "{" => {
                    depth += 1;
                    if i >= 2 && toks[i - 2].0 == "mod" && is_ident(&toks[i - 1].0) {
                        inline.push((toks[i - 1].0.clone(), depth));
                    }
                    i += 1;
                    continue;
                }
                "}" => {
                    if inline.last().is_some_and(|(_, d)| *d == depth) {
                        inline.pop();
                    }
                    depth = depth.saturating_sub(1);
                    i += 1;
                    continue;
                }
                _ => {}
            }
            let starts = matches!(t, "crate" | "super" | "self") || children.contains(t);
            let after_path = i > 0 && matches!(toks[i - 1].0.as_str(), "::" | "." | "mod");
            if !starts || after_path || toks.get(i + 1).map(|t| t.0.as_str()) != Some("::") {
                i += 1;
                continue;
            }
            let line = toks[i].1;
            let (paths, next) = use_tree(&toks, i, &[]);
            let here: Vec<String> = me
                .iter()
                .cloned()
                .chain(inline.iter().map(|(n, _)| n.clone()))
                .collect();
            for p in paths {
                let mut segs = p.into_iter().peekable();
                let mut abs: Vec<String> = match segs.peek().map(String::as_str) {
                    Some("crate") => {
                        segs.next();
                        Vec::new()
                    }
                    Some("self") => {
                        segs.next();
                        here.clone()
                    }
                    Some("super") => {
                        let mut base = here.clone();
                        while segs.peek().map(String::as_str) == Some("super") {
                            segs.next();
                            base.pop();
                        }
                        base
                    }
                    _ => me.clone(),
                };
                abs.extend(segs);
                let target = (0..=abs.len())
                    .rev()
                    .find_map(|n| by_module.get(&abs[..n]))
                    .expect("lib.rs is the module of []");
                if *target != name {
                    out.push(Use {
                        from: name.clone(),
                        to: target.clone(),
                        line,
                    });
                }
            }
            i = next.max(i + 1);
        }
    }
    out
}

/// Every circle of the file graph, one per strongly connected group of
/// files, as `a.rs:12 -> b.rs:40 -> a.rs` (each file with the line where
/// it uses the next).
fn file_circles(uses: &[Use]) -> Vec<String> {
    let mut next: BTreeMap<&str, BTreeMap<&str, usize>> = BTreeMap::new();
    for u in uses {
        let e = next
            .entry(&u.from)
            .or_default()
            .entry(&u.to)
            .or_insert(u.line);
        *e = (*e).min(u.line);
        next.entry(&u.to).or_default();
    }
    // Which files reach which: a file is in a circle with every file it
    // reaches that reaches it back.
    let reach = |from: &str| -> BTreeSet<&str> {
        let mut seen = BTreeSet::new();
        let mut todo = vec![from];
        while let Some(f) = todo.pop() {
            for &g in next[f].keys() {
                if seen.insert(g) {
                    todo.push(g);
                }
            }
        }
        seen
    };
    let reaches: BTreeMap<&str, BTreeSet<&str>> = next.keys().map(|&f| (f, reach(f))).collect();
    let mut done = BTreeSet::new();
    let mut out = Vec::new();
    for &f in next.keys() {
        if done.contains(f) || !reaches[f].contains(f) {
            continue;
        }
        let group: BTreeSet<&str> = reaches[f]
            .iter()
            .copied()
            .filter(|g| reaches[g].contains(f))
            .collect();
        done.extend(group.iter().copied());
        // The shortest circle through `f`, by breadth-first search.
        let mut back: BTreeMap<&str, &str> = BTreeMap::new();
        let mut queue = VecDeque::from([f]);
        'search: while let Some(a) = queue.pop_front() {
            for &b in next[a].keys() {
                if b == f {
                    back.insert(f, a);
                    break 'search;
                }
                if group.contains(b) && !back.contains_key(b) {
                    back.insert(b, a);
                    queue.push_back(b);
                }
            }
        }
        let mut path = vec![f];
        let mut at = back[f];
        while at != f {
            path.push(at);
            at = back[at];
        }
        path.push(f);
        path.reverse();
        let steps: Vec<String> = path
            .windows(2)
            .map(|w| format!("{}:{}", w[0], next[w[0]][w[1]]))
            .collect();
        out.push(format!(
            "{} -> {} (files in this circle: {})",
            steps.join(" -> "),
            f,
            group.into_iter().collect::<Vec<_>>().join(", ")
        ));
    }
    out
}

/// The files of `src` (paths from it, `/`-separated) that only test builds
/// compile: those declared `#[cfg(test)] mod x;`. Every file is read first
/// (parents come first in the sorted list: `a.rs` < `a/x.rs`, but
/// `a/mod.rs` sorts after `a/b.rs`).
pub(super) fn test_only_files(src: &Path) -> BTreeSet<String> {
    let files = rust_files(src);
    let by_module = by_module(src, &files);
    let mut test_only = BTreeSet::new();
    for f in &files {
        let me = module_path(src, f);
        let toks = tokens(&code_only(&fs::read_to_string(f).unwrap()));
        without_tests(&toks, &me, &mut test_only, &by_module);
    }
    test_only
}

/// Where the attribute at `toks[i]` ends when it is a `#[cfg(...)]` that
/// holds only in tests: `test`, or `all(...)` with `test` among its terms
/// (`#[cfg(all(test, unix))]`; `any(test, ...)` holds outside tests too).
fn cfg_test_at(toks: &[(String, usize)], i: usize) -> Option<usize> {
    let is = |k: usize, t: &str| toks.get(k).is_some_and(|x| x.0 == t);
    if !(is(i, "#") && is(i + 1, "[") && is(i + 2, "cfg") && is(i + 3, "(")) {
        return None;
    }
    // The predicate: tokens up to the `)` that closes `cfg(`.
    let mut depth = 0usize;
    let mut k = i + 4;
    let start = k;
    while k < toks.len() {
        match toks[k].0.as_str() {
            "(" => depth += 1,
            ")" if depth == 0 => break,
            ")" => depth -= 1,
            _ => {}
        }
        k += 1;
    }
    if !is(k + 1, "]") {
        return None;
    }
    let pred: Vec<&str> = toks[start..k].iter().map(|t| t.0.as_str()).collect();
    let only_tests = match pred.as_slice() {
        ["test"] => true,
        ["all", "(", terms @ .., ")"] => {
            let mut depth = 0usize;
            let mut term = Vec::new();
            let mut found = false;
            for &t in terms.iter().chain(std::iter::once(&",")) {
                match t {
                    "(" => depth += 1,
                    ")" => depth -= 1,
                    "," if depth == 0 => {
                        found |= term == ["test"];
                        term.clear();
                        continue;
                    }
                    _ => {}
                }
                term.push(t);
            }
            found
        }
        _ => false,
    };
    only_tests.then_some(k + 2)
}

/// Whether `line` is one such attribute and nothing else, as the
/// line-based rules of `structure.rs` read it.
pub(super) fn cfg_test_line(line: &str) -> bool {
    if !line.trim_start().starts_with("#[cfg(") {
        return false;
    }
    let toks = tokens(line);
    cfg_test_at(&toks, 0) == Some(toks.len())
}

#[test]
fn cfg_test_is_told_in_tokens() {
    let at = |s: &str| cfg_test_at(&tokens(s), 0).is_some();
    assert!(at("#[cfg(test)] mod t;"));
    assert!(at("#[cfg(all(test, unix))] mod t;"));
    assert!(at("#[cfg(all(unix, test))] mod t;"));
    assert!(at("#[cfg(all(any(unix, windows), test))] mod t;"));
    assert!(!at("#[cfg(any(test, feature = \"x\"))] mod t;"));
    assert!(!at("#[cfg(unix)] mod t;"));
    assert!(!at("#[cfg(all(unix, not(test)))] mod t;"));
    // The attribute ends where the item starts.
    let toks = tokens("#[cfg(all(test, unix))] mod t;");
    assert_eq!(toks[cfg_test_at(&toks, 0).unwrap()].0, "mod");
}

/// `toks` without the items under `#[cfg(test)]` (test modules, test-only
/// functions); the files such an item declares (`#[cfg(test)] mod x;`) are
/// added to `test_only`.
fn without_tests(
    toks: &[(String, usize)],
    me: &[String],
    test_only: &mut BTreeSet<String>,
    by_module: &HashMap<Vec<String>, String>,
) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        let Some(after) = cfg_test_at(toks, i) else {
            out.push(toks[i].clone());
            i += 1;
            continue;
        };
        i = after;
        // The item: up to its `;` or through its braces.
        let mut depth = 0usize;
        let start = i;
        while i < toks.len() {
            match toks[i].0.as_str() {
                "{" | "(" | "[" => depth += 1,
                // The end of the block the item stands in (a variant or
                // a match arm last in its braces): it is not the item's.
                "}" | ")" | "]" if depth == 0 => break,
                ")" | "]" => depth -= 1,
                "}" => {
                    depth -= 1;
                    if depth == 0 {
                        i += 1;
                        break;
                    }
                }
                // A field, variant or match arm ends at its comma.
                "," if depth == 0 => {
                    i += 1;
                    break;
                }
                ";" if depth == 0 => {
                    if let Some(k) = (start..i).find(|&k| toks[k].0 == "mod") {
                        let mut m = me.to_vec();
                        m.push(toks[k + 1].0.clone());
                        if let Some(file) = by_module.get(&m) {
                            test_only.insert(file.clone());
                        }
                    }
                    i += 1;
                    break;
                }
                _ => {}
            }
            i += 1;
        }
    }
    out
}

#[test]
fn no_upward_or_circular_edges() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let (bad, edges) = violations(&src);
    assert!(
        bad.is_empty(),
        "the dependency rule of core/src/lib.rs is broken:\n{}",
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
    // The integration tests' door into the crate stands on the top line:
    // nothing in src/ may use it.
    assert!(
        edges.iter().all(|(_, to)| to != "testing"),
        "src/ uses the testing module: {edges:?}"
    );
    assert!(
        edges.contains(&("testing".to_string(), "io".to_string())),
        "expected testing -> io among {edges:?}"
    );
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

#[test]
fn no_file_circles() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let uses = file_uses(&src);
    let circles = file_circles(&uses);
    assert!(
        circles.is_empty(),
        "files of src/ use each other round a circle (move what they share to \
         the file it belongs in, or to a small module of its own):\n{}",
        circles.join("\n")
    );
    // The scan sees every kind of path: `crate::`, `super::`, a module's
    // calls into its children and its re-exports of them.
    for (a, b) in [
        ("txn/edits.rs", "matching/exact.rs"),
        ("txn/edits.rs", "txn/mod.rs"),
        ("txn/mod.rs", "txn/pipeline.rs"),
        ("history/mod.rs", "history/undo.rs"),
        ("matching/exact.rs", "matching/many.rs"),
    ] {
        assert!(
            uses.iter().any(|u| u.from == a && u.to == b),
            "expected {a} -> {b} among the uses of files"
        );
    }
}

#[test]
fn the_file_scan_catches_a_circle() {
    let t = tempfile::tempdir().unwrap();
    let src = t.path();
    let write = |p: &str, text: &str| {
        let p = src.join(p);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, text).unwrap();
    };
    write("lib.rs", "mod a;\nmod b;\n");
    // A module's call into its child, which uses the module's constant.
    write(
        "a/mod.rs",
        "mod x;\nmod y;\n#[cfg(test)]\nmod t;\npub const K: u8 = 1;\n\
         pub fn f() -> u8 { x::g() }\n\
         #[cfg(test)]\nmod tests {\n    use super::y::*;\n    fn h() { super::y::e() }\n}\n",
    );
    write("a/x.rs", "use super::K;\npub fn g() -> u8 { K }\n");
    // Paths in comments and literals are not uses; a multi-line group is.
    write(
        "a/y.rs",
        "// crate::b::c in a comment\n\
         const S: &str = \"crate::b::c\";\n\
         const R: &str = r#\"super::x \" \"#;\n\
         const C: char = '{';\n\
         fn l<'a>(s: &'a str) -> &'a str { s }\n\
         use crate::{\n    b::{self, c::D},\n};\n\
         pub fn e() {}\n",
    );
    write("b/mod.rs", "pub mod c;\n");
    write(
        "b/c.rs",
        "pub struct D;\npub fn d() { crate::a::y::e() }\n\
         #[cfg(test)]\nfn only_tests() { super::super::a::x::g(); }\n\
         enum R {\n    A,\n    #[cfg(test)]\n    B\n}\n\
         fn r(x: R) -> u8 {\n    match x {\n        R::A => 0,\n        #[cfg(test)]\n        R::B => h(1, 2)\n    }\n}\n\
         pub fn z() -> u8 { crate::a::x::g() }\n",
    );
    // A test-only file is no part of the graph.
    write("a/t.rs", "use super::f;\n");
    let uses = file_uses(src);
    let pairs: BTreeSet<(&str, &str)> = uses
        .iter()
        .map(|u| (u.from.as_str(), u.to.as_str()))
        .collect();
    assert_eq!(
        pairs,
        BTreeSet::from([
            ("a/mod.rs", "a/x.rs"),
            ("a/x.rs", "a/mod.rs"),
            ("a/y.rs", "b/mod.rs"),
            ("a/y.rs", "b/c.rs"),
            ("b/c.rs", "a/x.rs"),
            ("b/c.rs", "a/y.rs"),
        ])
    );
    let circles = file_circles(&uses);
    assert_eq!(circles.len(), 2, "{circles:?}");
    assert!(
        circles[0].starts_with("a/mod.rs:6 -> a/x.rs:1 -> a/mod.rs"),
        "{circles:?}"
    );
    assert!(
        circles[1].starts_with("a/y.rs:6 -> b/c.rs:2 -> a/y.rs"),
        "{circles:?}"
    );
}

/// The entry points, as (file of `src/api/`, function): what `api::run`
/// (`src/api/runner.rs`) runs for each `api::EntryPoint`, read from its
/// table's rows `EntryPoint::Name => file::function, …` (or
/// `super::file::function`). The binding calls
/// nothing else (it runs each exported function's `EntryPoint` through
/// `run`), so these are the functions JavaScript calls.
fn entry_points(src: &Path) -> Vec<(String, String)> {
    let toks = tokens(&code_only(
        &fs::read_to_string(src.join("api/runner.rs")).unwrap(),
    ));
    let mut out = Vec::new();
    for w in toks.windows(10) {
        let t: Vec<&str> = w.iter().map(|x| x.0.as_str()).collect();
        // `file::function`, or `super::file::function`.
        let path = if t[5..7] == ["super", "::"] {
            &t[7..]
        } else {
            &t[5..8]
        };
        if t[..2] == ["EntryPoint", "::"]
            && is_ident(t[2])
            && t[3..5] == ["=", ">"]
            && is_ident(path[0])
            && path[0] != "super"
            && path[1] == "::"
            && is_ident(path[2])
        {
            out.push((path[0].to_string(), path[2].to_string()));
        }
    }
    out
}

/// A path's module segments from the crate root, for a path that starts
/// with `crate::`, `self::` or `super::` (`None` for any other: in
/// `src/api/`, a path into another crate, a local item, or a module
/// imported by a `use`, which is itself such a path).
fn absolute(p: &[String], me: &[String]) -> Option<Vec<String>> {
    let (mut abs, rest) = match p.first()?.as_str() {
        "crate" => (Vec::new(), &p[1..]),
        "self" => (me.to_vec(), &p[1..]),
        "super" => {
            let n = p.iter().take_while(|s| *s == "super").count();
            (me[..me.len().saturating_sub(n)].to_vec(), &p[n..])
        }
        _ => return None,
    };
    abs.extend(rest.iter().cloned());
    Some(abs)
}

/// Every place in `src/api/` (test code aside) where an entry point could
/// reach another, as `file:line: …`; only `runner.rs` (the door) and
/// `mod.rs` (the re-exports) are not read. A file of `src/api/` uses no
/// file that defines an entry point but itself ([`entry_points`]), nor the
/// runner, nor an entry point through `mod.rs`'s re-exports (paths resolved
/// as `tests/suite/layers.rs` resolves them: `crate::`, `super::`, `self::`, use
/// trees); and within a file, an entry point's name appears only in its
/// own `fn`, not after `::` or `.` (another item) nor before `::`, `:` or
/// `!` (a path, a field, a macro) — a local name that shadows an entry
/// point counts as naming it (rename it).
fn entry_point_uses(src: &Path) -> Vec<String> {
    let entries = entry_points(src);
    let files = rust_files(src);
    let rel = |f: &Path| rel_path(src, f);
    let by_module = by_module(src, &files);
    let toks_of = |f: &Path| tokens(&code_only(&fs::read_to_string(f).unwrap()));
    let mut test_only: BTreeSet<String> = BTreeSet::new();
    for f in &files {
        without_tests(
            &toks_of(f),
            &module_path(src, f),
            &mut test_only,
            &by_module,
        );
    }
    let entry_file = |name: &str| entries.iter().any(|(m, _)| format!("api/{m}.rs") == name);
    let mut out = Vec::new();
    for f in &files {
        let me = module_path(src, f);
        let name = rel(f);
        if me.first().map(String::as_str) != Some("api")
            || matches!(name.as_str(), "api/runner.rs" | "api/mod.rs")
            || test_only.contains(&name)
        {
            continue;
        }
        let toks = without_tests(&toks_of(f), &me, &mut test_only, &by_module);
        let own: Vec<&str> = entries
            .iter()
            .filter(|(m, _)| format!("api/{m}.rs") == name)
            .map(|(_, e)| e.as_str())
            .collect();
        let mut i = 0;
        while i < toks.len() {
            let (t, line) = (toks[i].0.as_str(), toks[i].1);
            let prev = i.checked_sub(1).map_or("", |k| toks[k].0.as_str());
            let next = toks.get(i + 1).map_or("", |x| x.0.as_str());
            if !is_ident(t) || matches!(prev, "::" | ".") {
                i += 1;
                continue;
            }
            if next == "::" {
                let (paths, after) = use_tree(&toks, i, &[]);
                for abs in paths.iter().filter_map(|p| absolute(p, &me)) {
                    let Some(target) = (0..=abs.len()).rev().find_map(|n| by_module.get(&abs[..n]))
                    else {
                        continue; // outside the tree read (no lib.rs in a test's tree)
                    };
                    let last = abs.last().map_or("", String::as_str);
                    if *target != name && entry_file(target) {
                        out.push(format!(
                            "{name}:{line}: uses {target}, a file of entry points"
                        ));
                    } else if target == "api/runner.rs" {
                        out.push(format!("{name}:{line}: uses {target}, the runner"));
                    } else if target == "api/mod.rs"
                        && abs.len() == 2
                        && (last == "run" || entries.iter().any(|(_, e)| e == last))
                    {
                        out.push(format!(
                            "{name}:{line}: names the entry point {last} (re-exported)"
                        ));
                    }
                }
                i = after.max(i + 1);
                continue;
            }
            if own.contains(&t) && prev != "fn" && !matches!(next, ":" | "!") {
                out.push(format!("{name}:{line}: names the entry point {t}"));
            }
            i += 1;
        }
    }
    out
}

/// No entry point calls another (`api/entry.rs` states the rule): each is
/// called only by the runner, so each answers once (one panic guard, one
/// compact view) and the journal records the entry point the caller
/// called. What two entry points share is a lower layer (`txn`, `input`)
/// or `api/entry.rs`.
#[test]
fn no_entry_point_calls_another() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let entries = entry_points(&src);
    // The scan reads the runner: every EntryPoint is one of its rows.
    assert_eq!(
        entries.len(),
        patch_file_core::api::EntryPoint::ALL.len(),
        "the rows of api::run read: {entries:?}"
    );
    assert!(entries.contains(&("patch".to_string(), "patch_file".to_string())));
    let found = entry_point_uses(&src);
    assert!(
        found.is_empty(),
        "an entry point can reach another (share a lower layer or api/entry.rs instead):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_entry_point_scan_catches_a_call() {
    // A throw-away tree: three entry points in two files, and files that
    // reach them every way a call can be written.
    let t = tempfile::tempdir().unwrap();
    let src = t.path();
    let write = |p: &str, s: &str| {
        let p = src.join(p);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, s).unwrap();
    };
    write(
        "api/runner.rs",
        "pub fn run(e: EntryPoint) -> u8 {\n    let f = match e {\n        EntryPoint::A => super::one::a,\n        \
         EntryPoint::B => super::two::b,\n        EntryPoint::C => super::two::c,\n    };\n    f()\n}\n",
    );
    write(
        "api/mod.rs",
        "mod entry;\nmod one;\nmod runner;\nmod three;\nmod two;\npub use one::a;\npub use runner::run;\npub use two::{b, c};\n",
    );
    write("api/entry.rs", "pub(super) fn begin() -> u8 {\n    1\n}\n");
    // Paths that are not uses of an entry point: the shared module, another
    // crate's item of the same name, a method, a field, text in comments
    // and literals, test code.
    write(
        "api/one.rs",
        "use super::entry::begin;\n// a() in a comment\npub fn a() -> u8 {\n    let s = \"a()\";\n    \
         begin() + crate::other::a() + x.a() + X { a: 1 }.a + s.len() as u8\n}\n\
         #[cfg(test)]\nmod tests {\n    fn t() {\n        super::super::two::b();\n    }\n}\n",
    );
    write(
        "api/two.rs",
        "use super::one::a;\nuse super::{one as first, runner};\npub fn b() -> u8 {\n    a() + super::a() + \
         crate::api::run() + helper()\n}\nfn helper() -> u8 {\n    c()\n}\npub fn c() -> u8 {\n    first::a()\n}\n",
    );
    write(
        "api/three.rs",
        "use crate::api::two::*;\npub fn d() -> u8 {\n    b()\n}\n",
    );
    let found = entry_point_uses(src);
    assert_eq!(
        found,
        [
            "api/three.rs:1: uses api/two.rs, a file of entry points",
            "api/two.rs:1: uses api/one.rs, a file of entry points",
            "api/two.rs:2: uses api/one.rs, a file of entry points",
            "api/two.rs:2: uses api/runner.rs, the runner",
            "api/two.rs:4: names the entry point a (re-exported)",
            "api/two.rs:4: names the entry point run (re-exported)",
            "api/two.rs:7: names the entry point c",
        ],
        "{found:#?}"
    );
}
