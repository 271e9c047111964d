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
mod lines;
mod parse_error;
pub(crate) mod text_editor;
pub(crate) mod unified_diff;

pub(crate) use lines::{join_lines, text_lines, TextLine};
pub use parse_error::ParseError;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;

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
