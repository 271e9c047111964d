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

use tree_sitter::{Language, Node, Tree};

use super::grammar::Grammar;
use crate::result::syntax::{SyntaxError, SyntaxProblem};
use crate::text::lines::line_start;

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
    /// Byte offset where it ends.
    end: usize,
    /// 0-based row and byte column.
    row: usize,
    col: usize,
    /// The missing token, or the start of the unplaced text.
    token: String,
    /// The parse state to ask for what was expected there, and the kind
    /// (symbol) of the first token it took (the unexpected one).
    state: Option<(u16, u16)>,
    /// What was expected there, when no parse state says it.
    named: &'static [&'static str],
}

impl Found {
    /// An error a reader other than the grammar found in `text` at byte
    /// `at` (strict JSON).
    pub(crate) fn at(
        text: &[u8],
        at: usize,
        problem: SyntaxProblem,
        token: String,
        named: &'static [&'static str],
    ) -> Found {
        let at = at.min(text.len());
        let line_start = memchr::memrchr(b'\n', &text[..at]).map_or(0, |k| k + 1);
        Found {
            problem,
            start: at,
            end: at + token.len(),
            row: memchr::memchr_iter(b'\n', &text[..at]).count(),
            col: at - line_start,
            token: clip(&token, TOKEN_CHARS),
            state: None,
            named,
        }
    }
}

/// The errors of a text, as far as they were collected.
#[derive(Debug)]
pub(crate) struct Collected {
    pub(crate) list: Vec<Found>,
    /// Every error starting before this byte offset is listed; past it a
    /// cap ([`COLLECTED`] nodes, the indentation scan's lines) may have
    /// left some out (`usize::MAX`: none was reached).
    pub(crate) horizon: usize,
}

/// The errors of `tree` (parsed from `text` by `grammar`), in order:
/// every `ERROR` node, the outer ones and those nested in them, every
/// `MISSING` node, and the text after the root when the parse stopped
/// short of the end; but those the grammar makes of valid text (see
/// [`valid_anyway`]).
pub(crate) fn found(tree: &Tree, text: &[u8], grammar: Grammar) -> Collected {
    let mut out = nodes(tree, text);
    let mut horizon = usize::MAX;
    if out.len() < COLLECTED {
        out.extend(unparsed_tail(tree, text));
    } else if let Some(last) = out.last() {
        horizon = last.start;
    }
    let lines = indentation(grammar, text);
    if lines.len() >= super::indent::MOST {
        horizon = horizon.min(lines.last().map_or(0, |f| f.start));
    }
    if !lines.is_empty() {
        out.extend(lines);
        out.sort_by_key(|f| f.start);
    }
    // An error the grammar makes of valid text goes with the errors
    // nested in it.
    let valid: Vec<(usize, usize)> = out
        .iter()
        .filter(|f| valid_anyway(grammar, f, text))
        .map(|f| (f.start, f.end))
        .collect();
    out.retain(|f| {
        !valid
            .iter()
            .any(|&(a, b)| a <= f.start && f.start < b.max(a + 1))
    });
    Collected { list: out, horizon }
}

/// The lines Python refuses for their indentation, which its grammar reads
/// without an error ([`indent`](super::indent)); none in other languages.
pub(crate) fn indentation(grammar: Grammar, text: &[u8]) -> Vec<Found> {
    if grammar != Grammar::Python {
        return Vec::new();
    }
    super::indent::errors(text)
        .into_iter()
        .map(|e| {
            let line = line_at(text, e.start);
            let rest = &text[e.start..(e.start - e.col + line.len()).max(e.start)];
            Found {
                problem: SyntaxProblem::Unexpected,
                start: e.start,
                end: e.start + rest.len(),
                row: e.row,
                col: e.col,
                token: clip(String::from_utf8_lossy(rest).trim(), TOKEN_CHARS),
                state: None,
                named: &[],
            }
        })
        .collect()
}

/// What a grammar takes for an error in valid text. tree-sitter-html
/// (0.23) does not read a bare `>` as text, while HTML does (only `<` and
/// `&` are special in text: tree-sitter-html pull request 141): text it
/// could not place that starts with `>` (`a -> b`, `&lt;p>` in a `<pre>`)
/// is not an error. The replay of real HTML found every such error in
/// valid files.
///
/// tree-sitter-css reads a value's tokens by its own grammar of values,
/// while CSS takes any tokens inside a function's parentheses: IE's
/// `expression(…)` holds JavaScript (`expression(a ? b : c)`, in
/// normalize.css's history), which is no error of the stylesheet.
fn valid_anyway(grammar: Grammar, f: &Found, text: &[u8]) -> bool {
    match grammar {
        Grammar::Html => f.problem == SyntaxProblem::Unexpected && f.token.starts_with('>'),
        Grammar::Css => memchr::memmem::find(line_at(text, f.start), b"expression(").is_some(),
        _ => false,
    }
}

/// The `ERROR` and `MISSING` nodes of `tree`, in order. An `ERROR` node
/// is listed, and so are the errors nested in it: recovery wraps the
/// tokens it skipped in an error of their own, and the context it
/// abandoned (which can reach back to the start of the enclosing function
/// or of the file) in an outer one; where the parser met the damage is
/// sometimes the one, sometimes the other.
fn nodes(tree: &Tree, text: &[u8]) -> Vec<Found> {
    let mut out = Vec::new();
    let mut c = tree.walk();
    loop {
        let n = c.node();
        let descend = if n.is_error() {
            out.push(unplaced(n, text));
            has_nested_error(n)
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

/// Whether the `ERROR` node `n` holds errors of its own.
fn has_nested_error(n: Node<'_>) -> bool {
    let mut c = n.walk();
    c.goto_first_child()
        && loop {
            let m = c.node();
            if m.is_error() || m.is_missing() || m.has_error() {
                break true;
            }
            if !c.goto_next_sibling() {
                break false;
            }
        }
}

/// The text after the root node, when the parser gave up before the end
/// (the YAML grammar does, at the first error it cannot recover from):
/// an error at its first visible byte.
fn unparsed_tail(tree: &Tree, text: &[u8]) -> Option<Found> {
    let end = tree.root_node().end_byte().min(text.len());
    let skip = text[end..].iter().position(|b| !b.is_ascii_whitespace())?;
    let start = end + skip;
    let head = &text[..start];
    let row = memchr::memchr_iter(b'\n', head).count();
    let col = start - memchr::memrchr(b'\n', head).map_or(0, |i| i + 1);
    let first = line_at(text, start);
    let first = &first[(col).min(first.len())..];
    Some(Found {
        problem: SyntaxProblem::Unexpected,
        start,
        end: text.len(),
        row,
        col,
        token: clip(String::from_utf8_lossy(first).trim(), TOKEN_CHARS),
        state: None,
        named: &[],
    })
}

fn missing(n: Node<'_>) -> Found {
    let p = n.start_position();
    Found {
        problem: SyntaxProblem::Missing,
        start: n.start_byte(),
        end: n.end_byte(),
        row: p.row,
        col: p.column,
        token: n.kind().to_string(),
        state: None,
        named: &[],
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
        end: n.end_byte(),
        row: p.row,
        col: p.column,
        token,
        state: Some((leaf.parse_state(), leaf.kind_id())),
        named: &[],
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
    let start = line_start(text, at);
    let end = memchr::memchr(b'\n', &text[at..]).map_or(text.len(), |i| at + i);
    let line = &text[start..end];
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// The one span an edit changed: `start..old_end` of the old text became
/// `start..new_end` of the new.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Span {
    pub(crate) start: usize,
    pub(crate) old_end: usize,
    pub(crate) new_end: usize,
}

impl Span {
    /// Whether offset `at` of the new text is before (`Less`), inside
    /// (`Equal`) or after (`Greater`) the change.
    fn side_new(self, at: usize) -> std::cmp::Ordering {
        side(at, self.start, self.new_end)
    }

    /// The same for offset `at` of the old text.
    fn side_old(self, at: usize) -> std::cmp::Ordering {
        side(at, self.start, self.old_end)
    }

    /// Where offset `at` of the new text was in the old text, when it is
    /// outside the change.
    fn old_offset(self, at: usize) -> Option<usize> {
        if at < self.start {
            Some(at)
        } else if at >= self.new_end {
            Some(at - self.new_end + self.old_end)
        } else {
            None
        }
    }
}

/// Whether a new error and an old one are the same, in one pass.
type Same<'a> = dyn Fn(&Found, &Found) -> bool + 'a;

fn side(at: usize, start: usize, end: usize) -> std::cmp::Ordering {
    if at < start {
        std::cmp::Ordering::Less
    } else if at < end || (at == start && start == end) {
        std::cmp::Ordering::Equal
    } else {
        std::cmp::Ordering::Greater
    }
}

/// The errors of `new` that `old` does not have (`old`: `None` for a new
/// file, which has none). Each old error pairs with one new error at most,
/// tried in three passes, most certain first: the same problem and token
/// at the same place (outside the changed span, where offsets map one to
/// one); then on a line of the same text; then on the same side of the
/// change (recovery can move an old error, never multiply it; but an
/// error before or inside the change cannot be one that was after it: a
/// grammar that stops at its first error, as YAML's does, hides every old
/// error after a new one); last, text left unplaced from the same start
/// over the whole change in both (its token may be the changed line). An
/// error left unpaired outside the change where the old text's errors
/// were not all collected (past its horizon) is not counted: the old text
/// may well have had it.
pub(crate) fn introduced(
    new: Vec<Found>,
    new_text: &[u8],
    old: Option<(&Collected, &[u8])>,
    span: Span,
) -> Vec<Found> {
    let Some((old, old_text)) = old.filter(|(o, _)| !o.list.is_empty()) else {
        return new;
    };
    let horizon = old.horizon;
    let old = old.list.as_slice();
    let mut free = vec![true; old.len()];
    let mut left: Vec<Found> = new;
    let same_token: &Same<'_> = &|n, o| o.token == n.token;
    let passes: [(&Same<'_>, &Same<'_>); 4] = [
        (
            &|n, o| span.old_offset(n.start) == Some(o.start),
            same_token,
        ),
        (
            &|n, o| {
                line_at(new_text, n.start).trim_ascii() == line_at(old_text, o.start).trim_ascii()
            },
            same_token,
        ),
        (
            &|n, o| span.side_new(n.start) == span.side_old(o.start),
            same_token,
        ),
        // Text left unplaced from the same start over the whole change,
        // before and after: its first line (the token) may be the line
        // the edit changed (a YAML document the grammar cannot read).
        (
            &|n, o| n.start == o.start && n.start <= span.start,
            &|n, o| {
                n.end >= span.new_end
                    && o.end >= span.old_end
                    && n.problem == SyntaxProblem::Unexpected
            },
        ),
    ];
    for (same, alike) in passes {
        left.retain(|n| {
            let hit = old
                .iter()
                .enumerate()
                .position(|(i, o)| free[i] && o.problem == n.problem && alike(n, o) && same(n, o));
            match hit {
                Some(i) => {
                    free[i] = false;
                    false
                }
                None => true,
            }
        });
    }
    left.retain(|n| match span.side_new(n.start) {
        std::cmp::Ordering::Equal => true,
        _ => span.old_offset(n.start).is_some_and(|o| o < horizon),
    });
    left
}

/// Orders `found` nearest the bytes `start..end` first (the span an edit
/// changed, in the new text), keeping the order of those as near: the
/// error the edit caused comes before the outer error that reaches back
/// to the enclosing function, and before the errors cascading after it.
pub(crate) fn nearest_first(found: &mut [Found], start: usize, end: usize) {
    found.sort_by_key(|f| start.saturating_sub(f.start) + f.start.saturating_sub(end));
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
        expected: f
            .state
            .and_then(|(s, leaf)| expected(language, s, (leaf, &f.token)))
            .or_else(|| {
                (!f.named.is_empty()).then(|| f.named.iter().map(|n| n.to_string()).collect())
            }),
        text: clip(&line, LINE_CHARS),
    }
}

/// The visible symbols the grammar accepts in parse state `state`, when
/// they are few enough to help; not the unexpected token itself (`own`: its
/// kind and its text), which that state took before what went wrong after
/// it (`b:)` in a Python parameter list: the `:` is no error, the `)` is).
fn expected(language: &Language, state: u16, own: (u16, &str)) -> Option<Vec<String>> {
    let it = language.lookahead_iterator(state)?;
    let mut names: Vec<String> = Vec::new();
    for sym in it {
        if !language.node_kind_is_visible(sym) {
            continue;
        }
        let Some(name) = language.node_kind_for_id(sym) else {
            continue;
        };
        // Comments are acceptable almost anywhere: they say nothing.
        let comment = name.contains("comment") || name == "//" || name == "/*";
        if comment
            || name == "ERROR"
            || name.is_empty()
            || sym == own.0
            || name == own.1
            || names.iter().any(|n| n == name)
        {
            continue;
        }
        names.push(name.to_string());
        if names.len() > EXPECTED {
            return None;
        }
    }
    (!names.is_empty()).then_some(names)
}

#[cfg(test)]
mod tests {
    use super::super::verdict::check;

    fn errors(path: &str, old: &str, new: &str) -> Vec<(usize, String)> {
        check(path, Some(old.as_bytes()), &[new.as_bytes()])
            .map(|r| r.errors.into_iter().map(|e| (e.line, e.token)).collect())
            .unwrap_or_default()
    }

    #[test]
    fn what_was_expected_does_not_list_the_unexpected_token() {
        let cases = [
            (
                "a.py",
                "def f(a, b):\n    return a\n",
                "def f(a, b:):\n    return a\n",
            ),
            (
                "a.js",
                "export {\n  a,\n  b,\n}\n",
                "export {\n  a=,\n  b,\n}\n",
            ),
            (
                "a.html",
                "<div><p>hi</p></div>\n",
                "<div><<p>hi</p></div>\n",
            ),
        ];
        for (path, old, new) in cases {
            let r = check(path, Some(old.as_bytes()), &[new.as_bytes()]).expect("an error");
            let e = &r.errors[0];
            let listed = e.expected.clone().unwrap_or_default();
            assert!(
                !listed.contains(&e.token),
                "{path}: `{}` expected {listed:?}",
                e.token
            );
        }
    }

    #[test]
    fn an_old_error_on_the_line_the_edit_changes_is_not_the_edits() {
        // The file lacks its closing brace (a MISSING `}` at the end of line
        // 2); the edit changes line 2 itself: the line's text differs, the
        // error is the same one.
        let old = "function a() {\n  return 1;\n";
        let new = "function a() {\n  return 2;\n";
        assert_eq!(errors("a.js", old, new), vec![]);
    }

    #[test]
    fn an_old_error_moved_by_lines_inserted_above_is_not_the_edits() {
        let old = "x = 1\ny = (2\n";
        let new = "w = 0\nv = 0\nx = 1\ny = (2\n";
        assert_eq!(errors("a.py", old, new), vec![]);
    }

    #[test]
    fn a_second_error_of_the_same_kind_is_the_edits() {
        let old = "fn a() {\n    let x = (1;\n}\n\nfn b() {\n    let y = 2;\n}\n";
        let new = "fn a() {\n    let x = (1;\n}\n\nfn b() {\n    let y = (2;\n}\n";
        let found = errors("a.rs", old, new);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].0, 6, "{found:?}");
    }

    #[test]
    fn a_new_file_is_judged_against_an_empty_one() {
        let r = check("new.json", None, &[b"{\"a\": 1,,}\n"]).expect("reported");
        assert!(!r.errors.is_empty());
        assert_eq!(r.errors[0].line, 1);
    }
}
