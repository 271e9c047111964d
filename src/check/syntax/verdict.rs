//! The syntax check of one file's new text against its old text.
//!
//! The new text is parsed first (incrementally when the tree of the old
//! text is kept from an earlier edit); a tree without errors ends the
//! check, so a clean edit costs one parse. A tree with errors is parsed
//! again afresh, since error recovery depends on the tree a parse starts
//! from, and errors are compared between fresh parses only. Only when the new tree has
//! errors is the old text parsed (or its kept tree used) to tell which
//! errors the edit introduced. Files over [`MAX_BYTES`] and parses past
//! [`BUDGET`] are not checked, and the report says so.

use std::time::{Duration, Instant};

use super::errors::{self, Span, LISTED};
use super::grammar::Grammar;
use super::parse::{self, Pieces};
use crate::result::syntax::{SyntaxReport, Unchecked};

/// Files larger than this (old or new text) are not checked.
pub const MAX_BYTES: usize = 4 << 20;
/// Wall time the parses of one file may take.
pub const BUDGET: Duration = Duration::from_millis(1000);

/// The syntax check of the file `path` (as the caller wrote it) whose
/// text `old` (`None`: a new file) becomes `new`: `None` when there is
/// nothing to say (no grammar, no error introduced).
pub fn check(path: &str, old: Option<&[u8]>, new: &[&[u8]]) -> Option<SyntaxReport> {
    check_until(path, old, new, &|| false)
}

/// [`check`], stopped once `cancelled` says the call was given up: then it
/// says nothing (the call answers `CANCELLED` before anything is written).
pub(crate) fn check_until(
    path: &str,
    old: Option<&[u8]>,
    new: &[&[u8]],
    cancelled: &dyn Fn() -> bool,
) -> Option<SyntaxReport> {
    let text = Pieces::new(new);
    let head = old.unwrap_or_else(|| text.from(0));
    let grammar = Grammar::of(path, head)?;
    let unchecked = |why| {
        Some(SyntaxReport {
            language: grammar,
            errors: Vec::new(),
            more_errors: None,
            unchecked: Some(why),
        })
    };
    if text.len() > MAX_BYTES || old.is_some_and(|o| o.len() > MAX_BYTES) {
        return unchecked(Unchecked::TooLarge);
    }
    let limit = (Instant::now() + BUDGET, cancelled);
    let out_of_time = || {
        (!cancelled())
            .then(|| unchecked(Unchecked::Timeout))
            .flatten()
    };
    let old_tree = old.and_then(|o| parse::kept(grammar, o).map(|t| (o, t)));
    let base = old_tree.as_ref().map(|(o, t)| {
        let mut t = t.clone();
        t.edit(&parse::edit_between(o, &text));
        t
    });
    let Ok(mut tree) = parse::parse(grammar, &text, base.as_ref(), limit) else {
        return out_of_time();
    };
    let new_bytes = text.to_vec();
    if !tree.root_node().has_error() {
        parse::keep(grammar, new_bytes, tree);
        return None;
    }
    if base.is_some() {
        // Error recovery depends on the tree a parse starts from: parsed
        // from the old tree, a broken text can show other errors than
        // parsed afresh, and the old text's errors (kept trees with errors
        // are always fresh parses, as this one) would not match its own.
        let Ok(fresh) = parse::parse(grammar, &text, None, limit) else {
            return out_of_time();
        };
        tree = fresh;
    }
    let found = errors::found(&tree, &new_bytes, grammar);
    if found.is_empty() {
        parse::keep(grammar, new_bytes, tree);
        return None;
    }
    // Kept, or dropped here (too large to keep) before the old text's
    // parse: one large tree in memory at a time.
    parse::keep(grammar, new_bytes.clone(), tree);
    let old_found = match (old, old_tree) {
        (None, _) => None,
        (Some(o), Some((_, t))) => Some((errors::found(&t, o, grammar), o)),
        (Some(o), None) => {
            let parts = [o];
            let Ok(t) = parse::parse(grammar, &Pieces::new(&parts), None, limit) else {
                return out_of_time();
            };
            let f = errors::found(&t, o, grammar);
            // A refused edit leaves this text in place: its retry parses
            // incrementally.
            parse::keep(grammar, o.to_vec(), t);
            Some((f, o))
        }
    };
    let span = match old {
        Some(o) => {
            let e = parse::edit_between(o, &text);
            Span {
                start: e.start_byte,
                old_end: e.old_end_byte,
                new_end: e.new_end_byte,
            }
        }
        None => Span {
            start: 0,
            old_end: 0,
            new_end: new_bytes.len(),
        },
    };
    let old_found = old_found.as_ref().map(|(f, o)| (f.as_slice(), *o));
    let mut introduced = errors::introduced(found, &new_bytes, old_found, span);
    if introduced.is_empty() {
        return None;
    }
    if old.is_some() {
        errors::nearest_first(&mut introduced, span.start, span.new_end);
    }
    let language = grammar.language();
    Some(SyntaxReport {
        language: grammar,
        errors: introduced
            .iter()
            .take(LISTED)
            .map(|f| errors::shown(f, &new_bytes, &language))
            .collect(),
        more_errors: (introduced.len() > LISTED).then(|| introduced.len() - LISTED),
        unchecked: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bare_greater_than_in_html_text_is_text() {
        let old: &[u8] = b"<pre><code>x</code></pre>\n<p>a</p>\n";
        let new: &[u8] = b"<pre><code>&lt;html>\n</code></pre>\n<p>a -> b</p>\n";
        assert_eq!(check("a.html", Some(old), &[new]), None);
        assert_eq!(check("a.html", None, &[new]), None);
        let broken: &[u8] = b"<pre><code>x</code></pre>\n<p class=\"a>a</p>\n<p>b</p>\n";
        let r = check("a.html", Some(old), &[broken]).expect("a broken quote is reported");
        assert!(!r.errors.is_empty());
    }
}
