//! Failures: a call that wrote nothing answers `ok: false`, a stable
//! `code`, a `message` for an agent and the details that help a retry.
//! One struct serves every entry point; the fields an entry point does not
//! use stay absent.

use std::borrow::Cow;

use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::Serialize;

use super::diagnosis::Diagnosed;
use super::formats::Format;
use super::marks::{False, True};
use super::text_editor::Command;
use crate::error::{ErrorCode, Failure};

/// The longest `file_path` a failure sends back: twice the longest path
/// the engine takes (`io::workspace::MAX_PATH_BYTES`). A path refused for
/// its length is the caller's own, and would cost it that length again.
pub(crate) const SHOWN_PATH_BYTES: usize = 8192;

impl JsonSchema for ErrorCode {
    fn schema_name() -> Cow<'static, str> {
        "ErrorCode".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let names: Vec<&str> = ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
        json_schema!({ "type": "string", "enum": names })
    }
}

/// A failed call: nothing was written.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Failed {
    pub ok: False,
    pub code: ErrorCode,
    /// What went wrong and the shortest next step, written for an agent.
    pub message: String,
    /// The file concerned.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file_path: Option<String>,
    /// How many times the search block occurs (0: not found, more than 1:
    /// ambiguous).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub match_count: Option<usize>,
    /// 1-based start lines of the matches (SEARCH_BLOCK_AMBIGUOUS).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[schemars(default)]
    pub match_lines: Vec<usize>,
    #[serde(flatten)]
    pub diagnosis: Diagnosed,
    /// Every failing edit of a multi-edit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failed_edits: Option<Vec<EditFailure>>,
    /// Current sha256 of the file (FILE_CHANGED).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    /// A failed commit: files already replaced that were put back.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rolled_back: Option<Vec<String>>,
    /// A failed commit: files that could not be put back.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rollback_failed: Option<Vec<String>>,
    /// batchPatchFiles: each file's outcome by index, when files failed to
    /// plan.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub files: Option<Vec<BatchOutcome>>,
    /// Edit formats: the format of the text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub format: Option<Format>,
    /// PATCH_PARSE_ERROR: 1-based line of the problem in the text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// PATCH_PARSE_ERROR: what was expected there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected: Option<String>,
    /// Edit formats: every failing file operation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failures: Option<Vec<OpFailure>>,
    /// Text editor: the command that failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command: Option<Command>,
    /// ELIDED_CONTENT: the marker refused and the lines it would delete.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub elision: Option<Elision>,
    /// SYNTAX_ERROR_INTRODUCED: the parse errors the edit would introduce.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub syntax: Option<super::syntax::SyntaxReport>,
    /// undo FILE_CHANGED: the files that changed since the transaction.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub files_changed: Option<Vec<String>>,
    /// undo FILE_CHANGED: the transaction that could not be undone.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// editLines ANCHOR_MISMATCH: each anchor refused, with the current
    /// lines around it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub anchors: Option<Vec<super::lines::AnchorRefused>>,
}

/// ELIDED_CONTENT: an elision marker of the new text and the current
/// lines it would delete.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Elision {
    /// The marker line, trimmed.
    pub marker: String,
    /// 1-based line of the marker in the new text as sent.
    pub line: usize,
    /// The current lines it would delete (the first 40), numbered.
    pub deletes: Vec<ElidedLine>,
    /// How many current lines it would delete in all.
    pub deleted: usize,
}

/// One current line an elision marker would delete.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct ElidedLine {
    /// 1-based line in the current file.
    pub line: usize,
    pub text: String,
}

impl Failed {
    /// The result of `f`, about `file_path` when given.
    pub fn new(f: &Failure, file_path: Option<&str>) -> Self {
        Failed {
            ok: False,
            code: f.code,
            message: f.message.clone(),
            file_path: file_path
                .filter(|p| p.len() <= SHOWN_PATH_BYTES)
                .map(str::to_string),
            match_count: f.match_count,
            match_lines: Vec::new(),
            diagnosis: Diagnosed::default(),
            failed_edits: None,
            sha256: None,
            rolled_back: None,
            rollback_failed: None,
            files: None,
            format: None,
            line: None,
            expected: None,
            failures: None,
            command: None,
            elision: None,
            syntax: None,
            files_changed: None,
            id: None,
            anchors: None,
        }
    }
}

impl From<Failure> for Failed {
    fn from(f: Failure) -> Self {
        let mut out = Failed::new(&f, None);
        out.message = f.message;
        out
    }
}

impl From<&Failure> for Failed {
    fn from(f: &Failure) -> Self {
        Failed::new(f, None)
    }
}

/// One failing edit of a multi-edit, by index.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct EditFailure {
    /// 0-based index of the edit.
    pub index: usize,
    pub code: ErrorCode,
    /// How many times its search block occurs.
    pub match_count: usize,
    pub message: String,
    /// 1-based start lines of the matches.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[schemars(default)]
    pub match_lines: Vec<usize>,
    #[serde(flatten)]
    pub diagnosis: Diagnosed,
}

/// One failing file operation of an edit-format call, led by its first
/// failing hunk or block.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct OpFailure {
    /// 0-based index of the operation.
    pub index: usize,
    /// The path as written in the text.
    #[serde(skip_serializing_if = "super::view::cleared")]
    #[schemars(extend("x-compact" = true))]
    pub path: String,
    /// 1-based line of the operation in the text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file_path: Option<String>,
    pub code: ErrorCode,
    /// (Left out of a compact view where the failure above says it.)
    #[serde(skip_serializing_if = "super::view::cleared")]
    #[schemars(extend("x-compact" = true))]
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub match_count: Option<usize>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[schemars(default)]
    pub match_lines: Vec<usize>,
    #[serde(flatten)]
    pub diagnosis: Diagnosed,
    /// Every failing hunk of this file (patches).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hunks: Option<Vec<StepFailure>>,
    /// Every failing SEARCH/REPLACE block of this file (edit blocks, text
    /// editor).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blocks: Option<Vec<StepFailure>>,
}

/// A failing hunk (with `patch_line`) or SEARCH/REPLACE block (with `line`).
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct StepFailure {
    /// 0-based index of the hunk or block within its file.
    pub index: usize,
    /// A hunk: its 1-based line in the patch text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub patch_line: Option<usize>,
    /// A block: its 1-based line in the text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    pub code: ErrorCode,
    pub match_count: usize,
    /// (Left out of a compact view where its file's failure says it.)
    #[serde(skip_serializing_if = "super::view::cleared")]
    #[schemars(extend("x-compact" = true))]
    pub message: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[schemars(default)]
    pub match_lines: Vec<usize>,
    #[serde(flatten)]
    pub diagnosis: Diagnosed,
}

/// One file's outcome in a failed batch: its own failure, or a file that
/// planned but was not written because another failed.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum BatchOutcome {
    Failed {
        /// 0-based index of the file in the batch.
        index: usize,
        #[serde(flatten)]
        failure: Box<Failed>,
    },
    Planned {
        ok: True,
        index: usize,
        file_path: String,
        message: String,
    },
}
