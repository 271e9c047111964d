//! The success of `editLines` and what its refusals name.

use schemars::JsonSchema;
use serde::Serialize;

use super::marks::True;
use super::written::{KeptElision, Preview, Strategy};
use crate::model::names;

names! {
    /// How an edit's anchors were checked: `snapshot`, against what a read
    /// with anchors showed, each anchored line followed to where it is
    /// now; `line_numbers`, no such read is kept (expired, or made
    /// elsewhere), so each ID was checked at its line number only, nothing
    /// relocated.
    pub enum Verified {
        Snapshot = "snapshot",
        LineNumbers = "line_numbers",
    }
}

names! {
    /// Why an anchor was refused: the line `changed` (or was removed) since
    /// the read; it could be at `several` places now; its ID does not
    /// match the line at that number (`mismatch`, checked without a
    /// snapshot); the line is `beyond_end` of the file.
    pub enum AnchorProblem {
        Changed = "changed",
        Several = "several",
        Mismatch = "mismatch",
        BeyondEnd = "beyond_end",
    }
}

/// One edit of a successful editLines.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct LineEditReport {
    /// 1-based line of the file as written where the edit's new lines
    /// start (or where removed lines were).
    pub line: usize,
    /// Lines removed.
    pub removed: usize,
    /// Lines written (an elision marker counted as the lines it kept).
    pub added: usize,
}

/// A successful editLines (written, or planned by a dry run).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct LinesDone {
    pub ok: True,
    pub file_path: String,
    pub verified: Verified,
    /// Anchored lines were found at other line numbers (the file changed
    /// elsewhere since the read) and the edits followed them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rebased: Option<True>,
    /// With `verified: line_numbers`: what that means for the edit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// One report an edit, in the order of the call's edits.
    pub edits: Vec<LineEditReport>,
    /// Size on disk (BOM included), before and after.
    #[serde(skip_serializing_if = "super::view::omitted")]
    #[schemars(extend("x-compact" = true))]
    pub before_bytes: usize,
    #[serde(skip_serializing_if = "super::view::omitted")]
    #[schemars(extend("x-compact" = true))]
    pub after_bytes: usize,
    /// sha256 (hex) of the bytes on disk before.
    #[serde(skip_serializing_if = "super::view::omitted")]
    #[schemars(extend("x-compact" = true))]
    pub sha256_before: String,
    /// sha256 (hex) of the bytes on disk after.
    pub sha256: String,
    /// Elision markers in the new lines, written as the lines they stand
    /// for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expanded: Option<Vec<KeptElision>>,
    /// The parse errors this edit introduced, or why the file was not
    /// checked (files in a checked language only; absent when clean).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub syntax: Option<super::syntax::SyntaxReport>,
    #[serde(flatten)]
    pub strategy: Strategy,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[schemars(default)]
    pub warnings: Vec<String>,
    #[serde(flatten)]
    pub preview: Option<Preview>,
}

/// An anchor editLines refused (ANCHOR_MISMATCH).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct AnchorRefused {
    /// 0-based index of the edit.
    pub edit: usize,
    /// The anchor as given (`LINE#ID`).
    pub anchor: String,
    pub problem: AnchorProblem,
    /// The file's current lines around where the anchor pointed, tagged
    /// `LINE#ID|`, ready for the retry.
    pub lines: String,
}
