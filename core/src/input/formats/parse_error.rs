//! [`ParseError`]: malformed edit-format text, as `PATCH_PARSE_ERROR` with
//! the 1-based line of the problem and what was expected there.

use crate::error::{ErrorCode, Failure};
use crate::printer;

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
        ParseError {
            line,
            message: printer::parse_unexpected(line, &expected, found),
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
            message: printer::parse_other(line, &message.into()),
        }
    }

    pub fn failure(&self) -> Failure {
        Failure::new(ErrorCode::PATCH_PARSE_ERROR, self.message.clone())
    }
}
