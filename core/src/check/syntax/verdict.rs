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
use super::parse::{self, OutOfTime, Pieces};
use super::{depth, json, preproc, reading};
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
    if depth::too_deep(grammar, new) || old.is_some_and(|o| depth::too_deep(grammar, &[o])) {
        return Some(unchecked(grammar, Unchecked::TooDeep));
    }
    if grammar == Grammar::Json {
        if let Some(said) = strict_json(old, &text) {
            return said;
        }
    }
    let run = Run {
        grammar,
        limit: (Instant::now() + BUDGET, cancelled),
        keep: true,
    };
    if !preproc::applies(grammar) {
        let report = run.judge(old, &text, None)?;
        if report.unchecked.is_some() {
            return Some(report);
        }
        return (!run.cleared(old, &text.to_vec())).then_some(report);
    }
    let joined = text.to_vec();
    let (m_old, m_new) = (old.and_then(preproc::masked), preproc::masked(&joined));
    let (old_read, new_read) = (
        m_old.as_deref().or(old),
        m_new.as_deref().unwrap_or(&joined),
    );
    let parts = [new_read];
    let shown = m_new.is_some().then_some(&joined[..]);
    let report = run.judge(old_read, &Pieces::new(&parts), shown)?;
    if report.unchecked.is_some() {
        return Some(report);
    }
    (!run.cleared(old_read, new_read)).then_some(report)
}

/// Strict JSON's verdict on a `.json` file (see [`json`]): nothing to say
/// when the new text is strict JSON, its first error when it is not and
/// the old text was (or the file is new); `None` when the old text was no
/// strict JSON either, and the grammar judges.
fn strict_json(old: Option<&[u8]>, new: &Pieces<'_>) -> Option<Option<SyntaxReport>> {
    let Some(e) = json::first_error(new) else {
        return Some(None);
    };
    if old.is_some_and(|o| json::first_error(&Pieces::new(&[o])).is_some()) {
        return None;
    }
    let text = new.to_vec();
    let found = errors::Found::at(&text, e.at, e.problem, e.token, e.expected);
    Some(Some(listed(Grammar::Json, &[found], &text)))
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
    let found = errors::found(&tree, parsed, grammar).list;
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

/// One check: its grammar, deadline and cancellation, and whether the
/// trees it parses are kept for the next edit (not those of a second
/// reading, which no edit's text is).
#[derive(Clone, Copy)]
struct Run<'c> {
    grammar: Grammar,
    limit: (Instant, &'c dyn Fn() -> bool),
    keep: bool,
}

/// What one reading of an edit found.
enum Reading {
    /// No error the edit introduced.
    Clean,
    /// The file is not judged: its grammar could not read it before the
    /// edit, or it is new, in a language where that says nothing.
    NotJudged,
    /// Errors the edit introduced, nearest the change first, in `text`.
    Introduced {
        found: Vec<errors::Found>,
        text: Vec<u8>,
    },
}

impl Run<'_> {
    /// Nothing to say when the call was cancelled, else `unchecked: timeout`.
    fn out_of_time(&self) -> Option<SyntaxReport> {
        (!(self.limit.1)()).then(|| unchecked(self.grammar, Unchecked::Timeout))
    }

    /// The report of the errors `text` (as parsed: a preprocessed file's
    /// masked text) has and `old` (as parsed) has not; `shown`: the new
    /// text as written, when the parsed one differs, for the lines results
    /// show.
    fn judge(
        &self,
        old: Option<&[u8]>,
        text: &Pieces<'_>,
        shown: Option<&[u8]>,
    ) -> Option<SyntaxReport> {
        match self.read(old, text) {
            Err(OutOfTime) => self.out_of_time(),
            Ok(Reading::Clean | Reading::NotJudged) => None,
            Ok(Reading::Introduced { found, text }) => {
                Some(listed(self.grammar, &found, shown.unwrap_or(&text)))
            }
        }
    }

    /// Whether the errors found in `new` (as parsed) are cleared by a
    /// second reading of `old` and `new` (see [`reading`]): an error no
    /// second reading clears is reported.
    fn cleared(&self, old: Option<&[u8]>, new: &[u8]) -> bool {
        let Some(new_second) = reading::second(self.grammar, new) else {
            return false;
        };
        let old_second = old.and_then(|o| reading::second(self.grammar, o));
        let parts = [&new_second[..]];
        let second = Run {
            keep: false,
            ..*self
        };
        matches!(
            second.read(old_second.as_deref().or(old), &Pieces::new(&parts)),
            Ok(Reading::Clean)
        )
    }

    /// Keeps `tree` of `text` for the next edit, when this run keeps trees.
    fn keep(&self, text: Vec<u8>, tree: tree_sitter::Tree) {
        if self.keep {
            parse::keep(self.grammar, text, tree);
        }
    }

    /// What the edit of `old` into `text` (both as parsed) introduced.
    fn read(&self, old: Option<&[u8]>, text: &Pieces<'_>) -> Result<Reading, OutOfTime> {
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
        let mut tree = parse::parse(grammar, text, base.as_ref(), limit)?;
        let new_bytes = text.to_vec();
        if !tree.root_node().has_error() && errors::indentation(grammar, &new_bytes).is_empty() {
            self.keep(new_bytes, tree);
            return Ok(Reading::Clean);
        }
        if base.is_some() {
            // Error recovery depends on the tree a parse starts from: parsed
            // from the old tree, a broken text can show other errors than
            // parsed afresh, and the old text's errors (kept trees with
            // errors are always fresh parses, as this one) would not match.
            tree = parse::parse(grammar, text, None, limit)?;
        }
        let found = errors::found(&tree, &new_bytes, grammar).list;
        if found.is_empty() {
            self.keep(new_bytes, tree);
            return Ok(Reading::Clean);
        }
        // Kept, or dropped here (too large to keep) before the old text's
        // parse: one large tree in memory at a time.
        self.keep(new_bytes.clone(), tree);
        let old_found = match (old, old_tree) {
            (None, _) => None,
            (Some(o), Some((_, t))) => Some((errors::found(&t, o, grammar), o)),
            (Some(o), None) => {
                let parts = [o];
                let t = parse::parse(grammar, &Pieces::new(&parts), None, limit)?;
                let f = errors::found(&t, o, grammar);
                // A refused edit leaves this text in place: its retry parses
                // incrementally.
                self.keep(o.to_vec(), t);
                Some((f, o))
            }
        };
        // A file its grammar could not read before the edit, or a new one,
        // in a language where the edit's errors cannot then be told from
        // the grammar's own (see `Grammar::judges_broken_files`).
        let broken_before = old_found.as_ref().is_some_and(|(f, _)| !f.list.is_empty());
        if (broken_before && !grammar.judges_broken_files())
            || (old.is_none() && !grammar.judges_new_files())
        {
            return Ok(Reading::NotJudged);
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
        let old_found = old_found.as_ref().map(|(f, o)| (f, *o));
        let mut introduced = errors::introduced(found, &new_bytes, old_found, span);
        if introduced.is_empty() {
            return Ok(Reading::Clean);
        }
        if old.is_some() {
            errors::nearest_first(&mut introduced, span.start, span.new_end);
        }
        Ok(Reading::Introduced {
            found: introduced,
            text: new_bytes,
        })
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
    fn macros_the_grammar_cannot_read_are_not_the_edits_errors() {
        // The three edits of fmt's history the C++ grammar read as broken.
        let old: &[u8] =
            b"#include <fmt/format.h>\n\nTEST(std_test, a) {\n  EXPECT_EQ(f(), 1);\n}\n";
        let pragma: &[u8] = b"#include <fmt/format.h>\n\nTEST(std_test, a) {\n  EXPECT_EQ(f(), 1);\n}\n\nFMT_PRAGMA_CLANG(diagnostic ignored \"-Wbit-int-extension\")\n\nTEST(std_test, bitint) {\n  using fmt::detail::bitint;\n  EXPECT_EQ(fmt::format(\"{}\", bitint<8>(1)), \"1\");\n}\n";
        let try_catch: &[u8] = b"int f(char* b, int n) {\n  FMT_TRY {\n    auto r = fmt::format_to_n(b, n, \"{}\", 1);\n    return static_cast<int>(r.size);\n  }\n  FMT_CATCH(...) {}\n  return -1;\n}\n";
        let decorated: &[u8] = b"typedef struct { int type; } fmt_arg;\n\nint FMT_CAPI fmt_vformat(char* buffer, unsigned size,\n                         const fmt_arg* args);\n";
        for (path, new) in [("s.cc", pragma), ("c.cc", try_catch), ("c.h", decorated)] {
            let first = parse_errors(path, new);
            assert!(first.is_some(), "the grammar alone reads {path} as broken");
            assert_eq!(check(path, Some(old), &[new]), None, "{path}");
        }
        // A real error beside such macros is still reported.
        let broken: &[u8] = b"int f(char* b, int n) {\n  FMT_TRY {\n    auto r = fmt::format_to_n(b, n, \"{}\", 1);\n    return static_cast<int>(r.size;\n  }\n  FMT_CATCH(...) {}\n  return -1;\n}\n";
        let clean: &[u8] = b"int f(char* b, int n) {\n  return -1;\n}\n";
        assert!(check("c.cc", Some(clean), &[broken]).is_some());
        let constant_old: &[u8] = b"int a[MAX_SIZE];\n";
        let constant: &[u8] = b"int a[MAX_SIZE;\nint FMT_API g(void);\n";
        assert!(check("a.c", Some(constant_old), &[constant]).is_some());
        let unclosed: &[u8] = b"int f(char* b, int n) {\n  FMT_TRY {\n    return 1;\n  FMT_CATCH(...) {}\n  return -1;\n}\n";
        assert!(check("c.cc", Some(clean), &[unclosed]).is_some());
    }

    #[test]
    fn a_csharp_14_extension_block_is_no_error() {
        // RestSharp's edit (2ae0b6a): extension blocks, newer than the grammar.
        let old: &[u8] = b"namespace R;\n\npublic static class ThrowExtension {\n    public static Response ThrowIfError(this Response r) => r;\n}\n";
        let new: &[u8] = b"namespace R;\n\npublic static class ThrowExtension {\n    extension(Response response) {\n        public Response ThrowIfError() {\n            var e = response.GetException();\n            return e != null ? throw e : response;\n        }\n    }\n\n    extension<T>(Response<T> response) {\n        public Response<T> ThrowIfError() => response;\n    }\n}\n";
        assert!(
            parse_errors("T.cs", new).is_some(),
            "the grammar alone reads it as broken"
        );
        assert_eq!(check("T.cs", Some(old), &[new]), None);
        // A break inside such a block is still reported.
        let broken: &[u8] = b"namespace R;\n\npublic static class ThrowExtension {\n    extension(Response response) {\n        public Response ThrowIfError() {\n            var e = response.GetException(;\n            return e;\n        }\n    }\n}\n";
        assert!(check("T.cs", Some(old), &[broken]).is_some());
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

    #[test]
    fn a_json_file_is_read_as_strict_json_first() {
        let old: &[u8] = b"{\n  \"name\": \"a\",\n  \"n\": 1\n}\n";
        // What JSON.stringify writes is valid, whatever the grammar reads.
        let exp: &[u8] = b"{\n  \"name\": \"a\",\n  \"n\": 1e+21\n}\n";
        assert_eq!(check("package.json", Some(old), &[exp]), None);
        assert_eq!(check("new.json", None, &[exp]), None);
        // What no JSON reader takes is the edit's error: a comment, a second
        // value, a tab in a string.
        let commented: &[u8] = b"{\n  // pinned\n  \"name\": \"a\",\n  \"n\": 1\n}\n";
        let r = check("package.json", Some(old), &[commented]).expect("reported");
        let e = &r.errors[0];
        assert_eq!((e.line, e.column, e.token.as_str()), (2, 3, "/"), "{r:?}");
        assert_eq!(
            e.expected,
            Some(vec!["string".to_string(), "}".to_string()])
        );
        assert_eq!(e.text, "  // pinned");
        let two: &[u8] = b"{\n  \"name\": \"a\",\n  \"n\": 1\n}\n{}\n";
        assert_eq!(
            check("package.json", Some(old), &[two])
                .expect("reported")
                .errors[0]
                .line,
            5
        );
        let tab: &[u8] = b"{\n  \"name\": \"a\tb\",\n  \"n\": 1\n}\n";
        assert_eq!(
            check("package.json", Some(old), &[tab])
                .expect("reported")
                .errors[0]
                .token,
            "\t"
        );
        // Split in pieces anywhere, the same.
        let (a, b) = commented.split_at(7);
        assert_eq!(check("package.json", Some(old), &[a, b]), Some(r));
        // A .json file that held a comment already is judged by the grammar,
        // as before: a valid edit says nothing, a break is reported.
        let edited: &[u8] = b"{\n  // pinned\n  \"name\": \"b\",\n  \"n\": 1\n}\n";
        assert_eq!(check("package.json", Some(commented), &[edited]), None);
        let broken: &[u8] = b"{\n  // pinned\n  \"name\": \"b\"\n  \"n\": 1\n}\n";
        assert!(check("package.json", Some(commented), &[broken]).is_some());
        // JSONC names are not checked at all.
        assert_eq!(check("tsconfig.json", Some(old), &[commented]), None);
    }
}
