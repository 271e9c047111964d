//! The successes of the search/replace calls (`patchFile`,
//! `batchPatchFiles`), of `writeFile` and of `applyDryRun`.

use schemars::JsonSchema;
use serde::Serialize;

use super::diagnosis::Tolerance;
use super::marks::True;
use super::written::{Diff, KeptElision, Preview, Strategy};

/// One edit of a successful patchFile.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct EditReport {
    /// 1-based line where the edit's (first) match starts.
    pub line_number: usize,
    #[serde(skip_serializing_if = "super::view::one")]
    #[schemars(extend("x-compact" = true))]
    pub replacements: usize,
    /// With a `match` list: the tolerances this edit needed ([] when it
    /// matched exactly).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub matched_with: Option<Vec<Tolerance>>,
    /// The exact original text a tolerant match replaced.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub original_text: Option<String>,
}

/// A successful patchFile (written, or planned by a dry run).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct PatchDone {
    pub ok: True,
    /// The edited file.
    pub file_path: String,
    /// Total occurrences replaced.
    #[serde(skip_serializing_if = "super::view::one")]
    #[schemars(extend("x-compact" = true))]
    pub replacements: usize,
    /// 1-based line where the (first edit's) match starts.
    pub line_number: usize,
    /// Length of the decoded text as a JS string (UTF-16 code units, BOM
    /// excluded), before and after.
    #[serde(skip_serializing_if = "super::view::omitted")]
    #[schemars(extend("x-compact" = true))]
    pub before_chars: usize,
    #[serde(skip_serializing_if = "super::view::omitted")]
    #[schemars(extend("x-compact" = true))]
    pub after_chars: usize,
    /// Size on disk (BOM included), before and after.
    #[serde(skip_serializing_if = "super::view::omitted")]
    #[schemars(extend("x-compact" = true))]
    pub before_bytes: usize,
    #[serde(skip_serializing_if = "super::view::omitted")]
    #[schemars(extend("x-compact" = true))]
    pub after_bytes: usize,
    #[serde(skip_serializing_if = "super::view::single")]
    #[schemars(extend("x-compact" = true))]
    pub edits: Vec<EditReport>,
    /// With a `match` list: every tolerance the edits needed ([] when all
    /// matched exactly).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub matched_with: Option<Vec<Tolerance>>,
    /// A single edit matched with tolerances: the exact original text it
    /// replaced.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub original_text: Option<String>,
    /// sha256 (hex) of the bytes on disk before.
    #[serde(skip_serializing_if = "super::view::omitted")]
    #[schemars(extend("x-compact" = true))]
    pub sha256_before: String,
    /// sha256 (hex) of the bytes on disk after.
    pub sha256: String,
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
    /// What the caller should know (durability not confirmed, a torn file
    /// read as its content before an interrupted write).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[schemars(default)]
    pub warnings: Vec<String>,
    #[serde(flatten)]
    pub preview: Option<Preview>,
}

/// One file of a successful batch; on a dry run, with its own diff.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct BatchFile {
    #[serde(flatten)]
    pub figures: PatchDone,
    #[serde(flatten)]
    pub diff: Option<Diff>,
}

/// A successful batchPatchFiles.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct BatchDone {
    pub ok: True,
    /// Total occurrences replaced in every file.
    #[serde(skip_serializing_if = "super::view::one")]
    #[schemars(extend("x-compact" = true))]
    pub replacements: usize,
    pub files: Vec<BatchFile>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[schemars(default)]
    pub warnings: Vec<String>,
    #[serde(flatten)]
    pub preview: Option<Preview>,
}

/// A successful writeFile.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct WriteDone {
    pub ok: True,
    pub file_path: String,
    /// Whether the file did not exist before.
    pub created: bool,
    #[serde(skip_serializing_if = "super::view::omitted")]
    #[schemars(extend("x-compact" = true))]
    pub after_bytes: usize,
    #[serde(skip_serializing_if = "super::view::absent_or_omitted")]
    pub after_chars: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub encoding: Option<String>,
    /// null when the file is created.
    #[serde(skip_serializing_if = "super::view::omitted")]
    #[schemars(extend("x-compact" = true))]
    pub sha256_before: Option<String>,
    pub sha256: String,
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
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[schemars(default)]
    pub warnings: Vec<String>,
    #[serde(flatten)]
    pub preview: Option<Preview>,
}

/// One file an applied dry run wrote or removed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct AppliedFile {
    pub file_path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub created: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deleted: Option<True>,
    #[serde(skip_serializing_if = "super::view::absent_or_omitted")]
    pub after_bytes: Option<usize>,
    /// null for a file the run created.
    #[serde(skip_serializing_if = "super::view::omitted")]
    #[schemars(extend("x-compact" = true))]
    pub sha256_before: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    #[serde(flatten)]
    pub strategy: Strategy,
}

/// The one file of a run that wrote a single file, repeated at the top.
/// Only ever flattened, optional, into [`AppliedRun`], whose schema has
/// its fields optional already: the fields the compact view leaves out
/// carry no `x-compact` mark here (it would make them required).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct AppliedOne {
    pub file_path: String,
    pub created: bool,
    #[serde(skip_serializing_if = "super::view::omitted")]
    pub after_bytes: usize,
    #[serde(skip_serializing_if = "super::view::omitted")]
    pub sha256_before: Option<String>,
    pub sha256: String,
}

/// A successful applyDryRun.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct AppliedRun {
    pub ok: True,
    /// The run applied.
    pub run_id: String,
    #[serde(flatten)]
    pub one: Option<AppliedOne>,
    #[serde(skip_serializing_if = "super::view::cleared")]
    #[schemars(extend("x-compact" = true))]
    pub files: Vec<AppliedFile>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[schemars(default)]
    pub warnings: Vec<String>,
}
