//! Edit formats: parsers that turn the text an agent emits into one
//! [`OpPlan`](crate::model::OpPlan), the same plan whatever the format.
//! Parsers do no I/O and know nothing about files; [`crate::txn::ops`]
//! applies a plan with the same guarantees as every other write (sandbox,
//! encodings, exact-once, one atomic multi-file commit, dry run).
//!
//! - [`edit_block`]: SEARCH/REPLACE blocks (aider, desktop-commander).
//! - [`apply_patch`]: the Codex `*** Begin Patch` envelope, and the entry that
//!   also accepts a unified diff.
//! - [`unified_diff`]: `git diff` / `diff -u` output.
//! - [`text_editor`]: the `str_replace_based_edit_tool` command object.
//!
//! Malformed input becomes a [`ParseError`]: `PATCH_PARSE_ERROR` with the
//! 1-based line of the problem and what was expected there.

pub(crate) mod apply_patch;
pub(crate) mod edit_block;
pub(crate) mod text_editor;
pub(crate) mod unified_diff;

use crate::error::{ErrorCode, Failure};

/// Malformed edit-format text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// 1-based line of the problem.
    pub line: usize,
    /// What was expected there.
    pub(crate) expected: String,
    /// The full message for the agent.
    pub message: String,
}

impl ParseError {
    /// `expected` at `line`, where `found` was seen.
    pub(crate) fn new(line: usize, expected: impl Into<String>, found: &str) -> ParseError {
        let expected = expected.into();
        let shown: String = found.chars().take(80).collect();
        let found = if found.is_empty() {
            "an empty line".to_string()
        } else if shown.len() < found.len() {
            format!("`{shown}…`")
        } else {
            format!("`{shown}`")
        };
        ParseError {
            line,
            message: format!(
                "line {line}: expected {expected}, found {found}; nothing was written"
            ),
            expected,
        }
    }

    /// A problem that is not about one unexpected line.
    pub(crate) fn other(
        line: usize,
        expected: impl Into<String>,
        message: impl Into<String>,
    ) -> ParseError {
        ParseError {
            line,
            expected: expected.into(),
            message: format!("line {line}: {}; nothing was written", message.into()),
        }
    }

    pub fn failure(&self) -> Failure {
        Failure::new(ErrorCode::PATCH_PARSE_ERROR, self.message.clone())
    }
}

/// One line of a text: 1-based number, content without its line break, and
/// whether it ended with CRLF.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TextLine<'a> {
    pub(crate) no: usize,
    pub(crate) text: &'a str,
    pub(crate) cr: bool,
}

/// Splits a text into lines (a final line break does not start another line).
pub(crate) fn text_lines(text: &str) -> Vec<TextLine<'_>> {
    let mut out = Vec::new();
    let mut rest = text;
    let mut no = 0;
    while !rest.is_empty() {
        no += 1;
        let (line, next) = match rest.find('\n') {
            Some(i) => (&rest[..i], &rest[i + 1..]),
            None => (rest, ""),
        };
        let (line, cr) = match line.strip_suffix('\r') {
            Some(l) => (l, true),
            None => (line, false),
        };
        out.push(TextLine { no, text: line, cr });
        rest = next;
    }
    out
}

/// Text of lines joined with `\n` (each line's own CR kept when it had one).
pub(crate) fn join_lines(lines: &[TextLine<'_>], trailing_newline: bool) -> String {
    let mut s = String::new();
    for (i, l) in lines.iter().enumerate() {
        s.push_str(l.text);
        if i + 1 < lines.len() || trailing_newline {
            if l.cr {
                s.push('\r');
            }
            s.push('\n');
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_lines() {
        let l = text_lines("a\r\nb\n\nc");
        assert_eq!(
            l.iter().map(|l| (l.no, l.text, l.cr)).collect::<Vec<_>>(),
            vec![
                (1, "a", true),
                (2, "b", false),
                (3, "", false),
                (4, "c", false)
            ]
        );
        assert!(text_lines("").is_empty());
        assert_eq!(text_lines("x\n").len(), 1);
    }

    use proptest::prelude::*;

    /// Text made of the pieces the parsers react to.
    fn pieces() -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            Just("*** Begin Patch\n"),
            Just("*** End Patch\n"),
            Just("*** Add File: a\n"),
            Just("*** Delete File: b\n"),
            Just("*** Update File: c\n"),
            Just("*** Move to: d/e\n"),
            Just("*** End of File\n"),
            Just("@@\n"),
            Just("@@ def f():\n"),
            Just("@@ -1,2 +1,3 @@\n"),
            Just("@@ -0,0 +1 @@\n"),
            Just("--- a/x\n"),
            Just("+++ b/x\n"),
            Just("--- /dev/null\n"),
            Just("diff --git a/x b/y\n"),
            Just("rename from x\n"),
            Just("\\ No newline at end of file\n"),
            Just("--- \"a/\\303\\251\\777\"\n"),
            Just(" ctx\n"),
            Just("-old\n"),
            Just("+new\n"),
            Just("\n"),
            Just("\r\n"),
            Just("<<<<<<< SEARCH\n"),
            Just("=======\n"),
            Just(">>>>>>> REPLACE\n"),
            Just("```\n"),
            Just("path.txt\n"),
            Just("é ☕"),
        ];
        proptest::collection::vec(piece, 0..40).prop_map(|v| v.concat())
    }

    proptest! {
        #![proptest_config(crate::text::test_seeds::config(1000))]
        // Parsers never panic; an error names a line inside the text (or just after it).
        #[test]
        fn parsers_never_panic(text in pieces()) {
            let last = text_lines(&text).len() + 1;
            for r in [apply_patch::parse(&text), edit_block::parse(&text), unified_diff::parse(&text)] {
                match r {
                    Ok(p) => prop_assert!(!p.ops.is_empty()),
                    Err(e) => prop_assert!(e.line >= 1 && e.line <= last, "line {} of {}", e.line, last),
                }
            }
        }
    }

    #[test]
    fn parse_error_message_names_line_and_expectation() {
        let e = ParseError::new(3, "`=======`", ">>>>>>> REPLACE");
        assert_eq!(e.line, 3);
        assert!(e
            .message
            .starts_with("line 3: expected `=======`, found `>>>>>>> REPLACE`"));
        assert_eq!(e.failure().code, ErrorCode::PATCH_PARSE_ERROR);
    }
}
