//! Stable error codes and the failure value every layer returns.
//!
//! Codes are part of the public contract: agents branch on them, so a code's
//! spelling never changes once released. New codes may be added. The list is
//! defined once here and exported to JavaScript (`PATCH_FILE_ERROR_CODES`), so
//! no other layer retypes it.

use serde::Serialize;

macro_rules! codes {
    ($($(#[$doc:meta])* $name:ident),+ $(,)?) => {
        /// A stable, machine-readable failure code.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
        #[allow(non_camel_case_types, clippy::upper_case_acronyms)]
        pub enum ErrorCode { $($(#[$doc])* $name),+ }

        impl ErrorCode {
            /// Every code, in declaration order.
            pub const ALL: &'static [ErrorCode] = &[$(ErrorCode::$name),+];

            /// The code as the string agents see.
            pub fn as_str(self) -> &'static str {
                match self { $(ErrorCode::$name => stringify!($name)),+ }
            }
        }
    };
}

codes! {
    /// The search block occurs nowhere in the file.
    SEARCH_BLOCK_NOT_FOUND,
    /// The search block occurs more than once and no count allows that.
    SEARCH_BLOCK_AMBIGUOUS,
    /// The request is malformed (missing, mistyped, conflicting or empty
    /// fields, or a string with a lone surrogate).
    INVALID_INPUT,
    /// The path resolves outside the workspace root.
    PATH_OUTSIDE_WORKSPACE,
    /// The path names a directory.
    TARGET_IS_DIRECTORY,
    /// The file looks binary (NUL byte in the first 8 KiB, no UTF-16 BOM).
    BINARY_FILE_REJECTED,
    /// The file could not be opened or read (e.g. it does not exist).
    FILE_READ_ERROR,
    /// The new content could not be written; the original is untouched.
    FILE_WRITE_ERROR,
    /// The edit cannot be written faithfully in the file's encoding: in a
    /// file that is not UTF-8 it would need a character the encoding lacks,
    /// split a character (a double-byte one, or a valid UTF-8 one inside a
    /// single-byte file) or write bytes that do not round-trip, or it needs
    /// more than byte-level ASCII; or `writeFile` would replace such a file
    /// without `encoding: "utf-8"`; or the file's UTF-16 is malformed.
    UNSUPPORTED_ENCODING,
    /// The number of occurrences differs from `expected_replacements`.
    REPLACEMENT_COUNT_MISMATCH,
    /// The file's bytes differ from what the caller (or a dry run) saw.
    FILE_CHANGED,
    /// The dry-run id is unknown, already used or expired.
    RUN_ID_NOT_FOUND,
    /// The file is larger than `maxFileBytes`.
    FILE_TOO_LARGE,
    /// Edit-format text (SEARCH/REPLACE blocks, patches, diffs) is malformed.
    PATCH_PARSE_ERROR,
    /// The result is too large to return (read or view a smaller range).
    RESULT_TOO_LARGE,
    /// Another call or process was writing the file for longer than the
    /// call may wait; nothing was written.
    FILE_LOCKED,
    /// The caller cancelled the call (an `AbortSignal`, MCP cancellation)
    /// or its `timeoutMs` ran out before anything was written.
    CANCELLED,
    /// The file has other hard links: writing it in place would change
    /// every name (perhaps outside the workspace), replacing it would split
    /// it from them; `options.hardLinks` chooses.
    HARD_LINKED_FILE,
    /// An unexpected internal fault (a bug); nothing was written.
    INTERNAL_ERROR,
    /// A plan that adapts the caller's text (a tolerant match, hunks, blocks
    /// following the file's line breaks) failed the check every such plan
    /// must pass before it is written: a byte outside the matched lines, a
    /// kept line not as the file has it, a line ending the file does not
    /// use, or new text that is not the caller's under the differences
    /// tolerated. Nothing was written.
    PLAN_CHECK_FAILED,
    /// The journal entry to undo is damaged (cut short, altered, or not a
    /// file the engine wrote): it is never acted on; nothing was written.
    JOURNAL_DAMAGED,
    /// A line of the new text is an elision marker (`// ... existing code
    /// ...`) that would delete lines of the file, and the lines it stands
    /// for are not certain; nothing was written. Send those lines, or keep
    /// an unchanged line on each side of the marker.
    ELIDED_CONTENT,
    /// An editLines anchor (`LINE#ID`) no longer names the line it named
    /// when read: the line changed, was removed, could now be at several
    /// places, or (checked without the read's snapshot) its ID does not
    /// match the line at that number. Nothing was written; the result
    /// shows the current anchored lines around it.
    ANCHOR_MISMATCH,
    /// With `syntax: "refuse"`: the new text of a file that parsed no
    /// longer parses where the edit wrote (`syntax.errors`: line, column,
    /// what is missing or unexpected, the line). Nothing was written.
    SYNTAX_ERROR_INTRODUCED,
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A failure with its code and a message written for an agent: what went
/// wrong and the shortest next step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    pub code: ErrorCode,
    pub message: String,
    pub match_count: Option<usize>,
}

impl Failure {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Failure {
            code,
            message: message.into(),
            match_count: None,
        }
    }

    pub fn with_count(mut self, n: usize) -> Self {
        self.match_count = Some(n);
        self
    }

    pub fn invalid(message: impl Into<String>) -> Self {
        Failure::new(ErrorCode::INVALID_INPUT, message)
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for Failure {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_spell_their_names() {
        assert_eq!(
            ErrorCode::SEARCH_BLOCK_NOT_FOUND.as_str(),
            "SEARCH_BLOCK_NOT_FOUND"
        );
        assert_eq!(ErrorCode::ALL.len(), 24);
        let mut seen = std::collections::HashSet::new();
        for c in ErrorCode::ALL {
            assert!(seen.insert(c.as_str()), "duplicate {c}");
            assert_eq!(serde_json::to_value(c).unwrap(), c.as_str());
        }
    }

    #[test]
    fn every_code_is_in_the_readme_table_and_the_typescript_union() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .unwrap();
        let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
        let dts = std::fs::read_to_string(root.join("types/header.d.ts")).unwrap();
        for c in ErrorCode::ALL {
            assert!(
                readme.contains(&format!("| `{c}` |")),
                "README's code table lacks {c}"
            );
            assert!(
                dts.contains(&format!("| '{c}'")),
                "types/header.d.ts lacks {c}"
            );
        }
    }
}
