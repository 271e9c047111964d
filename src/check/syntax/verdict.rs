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
use super::preproc;
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
    if text.len() > MAX_BYTES || old.is_some_and(|o| o.len() > MAX_BYTES) {
        return Some(unchecked(grammar, Unchecked::TooLarge));
    }
    let run = Run {
        grammar,
        limit: (Instant::now() + BUDGET, cancelled),
    };
    if preproc::applies(grammar) {
        let joined = text.to_vec();
        let (m_old, m_new) = (old.and_then(preproc::masked), preproc::masked(&joined));
        if m_old.is_some() || m_new.is_some() {
            let parts = [m_new.as_deref().unwrap_or(&joined)];
            return run.judge(
                m_old.as_deref().or(old),
                &Pieces::new(&parts),
                Some(&joined),
            );
        }
    }
    run.judge(old, &text, None)
}

/// The parse errors of `text` as the guard reads the file `path` (a
/// preprocessed file's directives blanked, the errors a grammar makes of
/// valid text left out), whatever the file was before and whatever the
/// language: the benchmark's independent judge. `None`: no grammar, or no
/// error.
pub fn parse_errors(path: &str, text: &[u8]) -> Option<SyntaxReport> {
    let grammar = Grammar::of(path, text)?;
    let masked = preproc::applies(grammar)
        .then(|| preproc::masked(text))
        .flatten();
    let parsed = masked.as_deref().unwrap_or(text);
    let parts = [parsed];
    let limit = (Instant::now() + BUDGET, &(|| false) as &dyn Fn() -> bool);
    let tree = parse::parse(grammar, &Pieces::new(&parts), None, limit).ok()?;
    let found = errors::found(&tree, parsed, grammar);
    if found.is_empty() {
        return None;
    }
    Some(listed(grammar, &found, text))
}

/// The report of `found` (errors of `text`): the first [`LISTED`] shown,
/// the rest counted.
fn listed(grammar: Grammar, found: &[errors::Found], text: &[u8]) -> SyntaxReport {
    let language = grammar.language();
    SyntaxReport {
        language: grammar,
        errors: found
            .iter()
            .take(LISTED)
            .map(|f| errors::shown(f, text, &language))
            .collect(),
        more_errors: (found.len() > LISTED).then(|| found.len() - LISTED),
        unchecked: None,
    }
}

fn unchecked(grammar: Grammar, why: Unchecked) -> SyntaxReport {
    SyntaxReport {
        language: grammar,
        errors: Vec::new(),
        more_errors: None,
        unchecked: Some(why),
    }
}

/// One check: its grammar, deadline and cancellation.
struct Run<'c> {
    grammar: Grammar,
    limit: (Instant, &'c dyn Fn() -> bool),
}

impl Run<'_> {
    /// Nothing to say when the call was cancelled, else `unchecked: timeout`.
    fn out_of_time(&self) -> Option<SyntaxReport> {
        (!(self.limit.1)()).then(|| unchecked(self.grammar, Unchecked::Timeout))
    }

    /// The errors `text` (as parsed: a preprocessed file's masked text)
    /// has and `old` (as parsed) has not; `shown`: the new text as written,
    /// when the parsed one differs, for the lines results show.
    fn judge(
        &self,
        old: Option<&[u8]>,
        text: &Pieces<'_>,
        shown: Option<&[u8]>,
    ) -> Option<SyntaxReport> {
        let (grammar, limit) = (self.grammar, self.limit);
        let old_tree = old.and_then(|o| parse::kept(grammar, o).map(|t| (o, t)));
        // The changed span, found once: for the incremental parse, and for
        // pairing errors when there are any.
        let mut edit = old_tree.as_ref().map(|(o, _)| parse::edit_between(o, text));
        let base = old_tree.as_ref().zip(edit.as_ref()).map(|((_, t), e)| {
            let mut t = t.clone();
            t.edit(e);
            t
        });
        let Ok(mut tree) = parse::parse(grammar, text, base.as_ref(), limit) else {
            return self.out_of_time();
        };
        let new_bytes = text.to_vec();
        if !tree.root_node().has_error() {
            parse::keep(grammar, new_bytes, tree);
            return None;
        }
        if base.is_some() {
            // Error recovery depends on the tree a parse starts from: parsed
            // from the old tree, a broken text can show other errors than
            // parsed afresh, and the old text's errors (kept trees with
            // errors are always fresh parses, as this one) would not match.
            let Ok(fresh) = parse::parse(grammar, text, None, limit) else {
                return self.out_of_time();
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
                    return self.out_of_time();
                };
                let f = errors::found(&t, o, grammar);
                // A refused edit leaves this text in place: its retry parses
                // incrementally.
                parse::keep(grammar, o.to_vec(), t);
                Some((f, o))
            }
        };
        // A file its grammar could not read before the edit, or a new one,
        // in a language where the edit's errors cannot then be told from
        // the grammar's own (see `Grammar::judges_broken_files`).
        let broken_before = old_found.as_ref().is_some_and(|(f, _)| !f.is_empty());
        if (broken_before && !grammar.judges_broken_files())
            || (old.is_none() && !grammar.judges_new_files())
        {
            return None;
        }
        let span = match old {
            Some(o) => {
                let e = edit.take().unwrap_or_else(|| parse::edit_between(o, text));
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
        Some(listed(grammar, &introduced, shown.unwrap_or(&new_bytes)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn preprocessor_branches_are_read_one_configuration_at_a_time() {
        // A public C# project's edit: `#if` between a class header and its
        // base list; a C function with a body per branch.
        let old: &[u8] = b"using System;\nnamespace N\n{\n    public partial class GridReader\n    {\n    }\n}\n";
        let new: &[u8] = b"using System;\nnamespace N\n{\n    public partial class GridReader\n#if ASYNC\n        : IDisposable\n#endif\n    {\n    }\n}\n";
        assert_eq!(check("G.cs", Some(old), &[new]), None);
        let c: &[u8] = b"int f(int a)\n#if X\n{ return a; }\n#else\n{ return -a; }\n#endif\n";
        assert_eq!(
            check("f.c", Some(b"int f(int a) { return a; }\n"), &[c]),
            None
        );
        // A break in the branch read is still reported, at its own line.
        let broken: &[u8] =
            b"int f(int a)\n#if X\n{ return a;\n#else\n{ return -a; }\n#endif\nint g;\n";
        let r = check("f.c", Some(c), &[broken]).expect("reported");
        assert!(r.errors.iter().all(|e| e.line != 4 && e.line != 6), "{r:?}");
    }

    #[test]
    fn a_c_file_its_grammar_could_not_read_is_not_judged() {
        // Macros the grammar cannot expand: the file had errors before.
        let old: &[u8] = b"FMT_BEGIN int f() FMT_NOEXCEPT { return 1; }\n";
        let new: &[u8] = b"FMT_BEGIN int f() FMT_NOEXCEPT { return 1; }\nFMT_BEGIN int g() FMT_NOEXCEPT { return 2; }\n";
        assert_eq!(check("f.h", Some(old), &[new]), None);
    }

    #[test]
    fn an_ie_expression_in_css_is_no_error_of_the_stylesheet() {
        let old: &[u8] = b"abbr { border-bottom: 1px dotted; }\n";
        let new: &[u8] = b"abbr { border-bottom: 1px dotted; }\nabbr { _zoom: expression(this.title ? 'a' : 'b'); }\n";
        assert_eq!(check("n.css", Some(old), &[new]), None);
        let broken: &[u8] = b"abbr { border-bottom: 1px dotted; }\nabbr { color: red; \n";
        assert!(check("n.css", Some(old), &[broken]).is_some());
    }

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
