//! The parse errors of a tree, and which of them an edit introduced.
//!
//! tree-sitter never fails a parse: it recovers, leaving `ERROR` nodes
//! (text it could not place) and zero-width `MISSING` nodes (a token it
//! assumed). Both are collected, without walking the subtrees that hold
//! none. An error of the new tree is the edit's unless the old tree had
//! the same one: same problem, same token, on a line of the same text
//! (each old error pairs with one new error at most). Lines move when an
//! edit above them adds or removes lines; their text does not, so a file
//! that was already broken elsewhere stays editable and its old errors are
//! never reported as the edit's.

use std::collections::HashMap;

use tree_sitter::{Language, Node, Tree};

use super::grammar::Grammar;
use crate::result::syntax::{SyntaxError, SyntaxProblem};

/// Errors listed in a report at most.
pub(crate) const LISTED: usize = 5;
/// Errors collected from a tree at most (a file can be one big error).
const COLLECTED: usize = 200;
/// Characters of a line shown.
const LINE_CHARS: usize = 200;
/// Characters of an unplaced token shown.
const TOKEN_CHARS: usize = 40;
/// Most symbols listed as expected.
const EXPECTED: usize = 6;

/// One error or missing node.
#[derive(Debug, Clone)]
pub(crate) struct Found {
    problem: SyntaxProblem,
    /// Byte offset where it starts.
    start: usize,
    /// 0-based row and byte column.
    row: usize,
    col: usize,
    /// The missing token, or the start of the unplaced text.
    token: String,
    /// The parse state to ask for what was expected there.
    state: Option<u16>,
}

/// The errors of `tree` (parsed from `text` by `grammar`), in order, but
/// those the grammar makes of valid text (see [`valid_anyway`]).
pub(crate) fn found(tree: &Tree, text: &[u8], grammar: Grammar) -> Vec<Found> {
    let mut out = all_found(tree, text);
    out.retain(|f| !valid_anyway(grammar, f));
    out
}

/// What a grammar takes for an error in valid text. tree-sitter-html
/// (0.23) does not read a bare `>` as text, while HTML does (only `<` and
/// `&` are special in text: tree-sitter-html pull request 141): text it
/// could not place that starts with `>` (`a -> b`, `&lt;p>` in a `<pre>`)
/// is not an error. The replay of real HTML found every such error in
/// valid files.
fn valid_anyway(grammar: Grammar, f: &Found) -> bool {
    grammar == Grammar::Html && f.problem == SyntaxProblem::Unexpected && f.token.starts_with('>')
}

fn all_found(tree: &Tree, text: &[u8]) -> Vec<Found> {
    let mut out = Vec::new();
    let mut c = tree.walk();
    loop {
        let n = c.node();
        let descend = if n.is_error() {
            out.push(unplaced(n, text));
            false
        } else if n.is_missing() {
            out.push(missing(n));
            false
        } else {
            n.has_error()
        };
        if out.len() == COLLECTED {
            return out;
        }
        if descend && c.goto_first_child() {
            continue;
        }
        loop {
            if c.goto_next_sibling() {
                break;
            }
            if !c.goto_parent() {
                return out;
            }
        }
    }
}

fn missing(n: Node<'_>) -> Found {
    let p = n.start_position();
    Found {
        problem: SyntaxProblem::Missing,
        start: n.start_byte(),
        row: p.row,
        col: p.column,
        token: n.kind().to_string(),
        state: None,
    }
}

fn unplaced(n: Node<'_>, text: &[u8]) -> Found {
    let p = n.start_position();
    let end = n.end_byte().min(text.len());
    let body = &text[n.start_byte().min(end)..end];
    let first = body.split(|&b| b == b'\n').next().unwrap_or(&[]);
    let token = clip(String::from_utf8_lossy(first).trim(), TOKEN_CHARS);
    let mut leaf = n;
    while let Some(child) = leaf.child(0) {
        leaf = child;
    }
    Found {
        problem: SyntaxProblem::Unexpected,
        start: n.start_byte(),
        row: p.row,
        col: p.column,
        token,
        state: Some(leaf.parse_state()),
    }
}

/// `s` cut at `max` characters.
fn clip(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => s[..i].to_string(),
        None => s.to_string(),
    }
}

/// The line of `text` holding byte `at`, without its line ending.
fn line_at(text: &[u8], at: usize) -> &[u8] {
    let at = at.min(text.len());
    let start = memchr::memrchr(b'\n', &text[..at]).map_or(0, |i| i + 1);
    let end = memchr::memchr(b'\n', &text[at..]).map_or(text.len(), |i| at + i);
    let line = &text[start..end];
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// What identifies an error across an edit: its problem, its token and
/// the text of its line.
fn signature(f: &Found, text: &[u8]) -> (SyntaxProblem, String, Vec<u8>) {
    (
        f.problem,
        f.token.clone(),
        line_at(text, f.start).trim_ascii().to_vec(),
    )
}

/// The errors of `new` that `old` does not have (`old`: `None` for a new
/// file, which has none).
pub(crate) fn introduced(
    new: Vec<Found>,
    new_text: &[u8],
    old: Option<(&[Found], &[u8])>,
) -> Vec<Found> {
    let Some((old, old_text)) = old.filter(|(o, _)| !o.is_empty()) else {
        return new;
    };
    let mut had: HashMap<_, usize> = HashMap::new();
    for f in old {
        *had.entry(signature(f, old_text)).or_default() += 1;
    }
    let mut out = Vec::new();
    for f in new {
        match had.get_mut(&signature(&f, new_text)) {
            Some(n) if *n > 0 => *n -= 1,
            _ => out.push(f),
        }
    }
    out
}

/// `f` as a result shows it.
pub(crate) fn shown(f: &Found, text: &[u8], language: &Language) -> SyntaxError {
    let line = String::from_utf8_lossy(line_at(text, f.start));
    let line_start = f.start - f.col.min(f.start);
    let before = &text[line_start..f.start.min(text.len())];
    SyntaxError {
        line: f.row + 1,
        column: String::from_utf8_lossy(before).chars().count() + 1,
        problem: f.problem,
        token: f.token.clone(),
        expected: f.state.and_then(|s| expected(language, s)),
        text: clip(&line, LINE_CHARS),
    }
}

/// The visible symbols the grammar accepts in parse state `state`, when
/// they are few enough to help.
fn expected(language: &Language, state: u16) -> Option<Vec<String>> {
    let it = language.lookahead_iterator(state)?;
    let mut names: Vec<String> = Vec::new();
    for sym in it {
        if !language.node_kind_is_visible(sym) {
            continue;
        }
        let Some(name) = language.node_kind_for_id(sym) else {
            continue;
        };
        if name == "ERROR" || name.is_empty() || names.iter().any(|n| n == name) {
            continue;
        }
        names.push(name.to_string());
        if names.len() > EXPECTED {
            return None;
        }
    }
    (!names.is_empty()).then_some(names)
}
