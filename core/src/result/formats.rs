//! The successes of the edit-format calls (`applyEditBlocks`,
//! `applyPatch`, `editFile`, the text editor's edits).

use schemars::JsonSchema;
use serde::Serialize;

use super::marks::True;
use super::written::{Diff, KeptElision, Preview, Strategy};
use crate::model::names;

pub use crate::model::Format;

impl serde::Serialize for Format {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl JsonSchema for Format {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Format".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let names: Vec<&str> = Format::ALL.iter().map(|f| f.name()).collect();
        schemars::json_schema!({ "type": "string", "enum": names })
    }
}
names! {
    /// What a file operation did.
    pub enum Action {
        Add = "add",
        Update = "update",
        Delete = "delete",
        Move = "move",
    }
}

names! {
    /// How loosely a hunk's lines had to be compared to be found.
    pub enum HunkLevel {
        Exact = "exact",
        TrailingWhitespace = "trailing_whitespace",
        SurroundingWhitespace = "surrounding_whitespace",
        UnicodePunctuation = "unicode_punctuation",
    }
}

names! {
    /// What placed a hunk: `content` (its old lines occur once),
    /// `line_number` (a unified header's line), `end_of_file` (a Codex hunk
    /// that only adds lines, without an `@@` line).
    pub enum LocatedBy {
        Content = "content",
        LineNumber = "line_number",
        EndOfFile = "end_of_file",
    }
}

/// One hunk that applied.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct HunkReport {
    /// 0-based index of the hunk within its file.
    pub index: usize,
    /// 1-based line of the original file where the hunk applied.
    pub line_number: usize,
    pub level: HunkLevel,
    pub located_by: LocatedBy,
    /// 1-based line of the hunk in the patch text.
    pub patch_line: usize,
}

/// One SEARCH/REPLACE block that applied.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct BlockReport {
    pub index: usize,
    /// 1-based line of the block in the text (0 for text-editor commands).
    pub line: usize,
    /// 1-based line where the block matched.
    pub line_number: usize,
    /// applyEditBlocks: the replacement is present in the file as read back
    /// after writing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verified: Option<bool>,
}

/// One file operation of a successful edit-format call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct FormatFile {
    /// The path as written in the text.
    #[serde(skip_serializing_if = "super::view::cleared")]
    #[schemars(extend("x-compact" = true))]
    pub path: String,
    /// The file (the source, for a move).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file_path: Option<String>,
    pub action: Action,
    /// The destination of a move.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub move_to: Option<String>,
    /// add: whether the file did not exist before.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub created: Option<bool>,
    #[serde(skip_serializing_if = "super::view::absent_or_omitted")]
    pub before_bytes: Option<usize>,
    #[serde(skip_serializing_if = "super::view::absent_or_omitted")]
    pub sha256_before: Option<String>,
    #[serde(skip_serializing_if = "super::view::absent_or_omitted")]
    pub after_bytes: Option<usize>,
    /// sha256 of the new bytes; null when the file is removed.
    pub sha256: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hunks: Option<Vec<HunkReport>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blocks: Option<Vec<BlockReport>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line_number: Option<usize>,
    /// applyEditBlocks: the file read back is the bytes written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read_back_matches: Option<bool>,
    /// Elision markers in the new text, written as the lines they stand
    /// for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expanded: Option<Vec<KeptElision>>,
    /// The parse errors this edit introduced, or why the file was not
    /// checked (files in a checked language only; absent when clean).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub syntax: Option<super::syntax::SyntaxReport>,
    #[serde(flatten)]
    pub strategy: Strategy,
    #[serde(flatten)]
    pub diff: Option<Diff>,
}

/// A successful edit-format call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct FormatDone {
    pub ok: True,
    pub format: Format,
    pub files: Vec<FormatFile>,
    /// Total hunks applied (patches).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hunks: Option<usize>,
    /// applyEditBlocks: every replacement was found in the file as read
    /// back.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verified: Option<bool>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[schemars(default)]
    pub warnings: Vec<String>,
    /// Written, but a replacement is not in the file as read back (or, on a
    /// dry run, why the run was not kept).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    #[serde(flatten)]
    pub preview: Option<Preview>,
}
