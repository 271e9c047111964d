//! What every success that writes (or plans to) shares: how each file was
//! written, the dry-run preview and the warnings of a commit.

use schemars::JsonSchema;
use serde::Serialize;

use super::marks::True;
use crate::model::names;

names! {
    /// How a file was written: `rename` (a new inode renamed over the name,
    /// given the original's metadata) or `in_place` (the original inode
    /// rewritten behind a verified copy, when a rename would lose something).
    pub enum WriteStrategy {
        Rename = "rename",
        InPlace = "in_place",
    }
}

/// How a file was written (every successful write reports it; a dry run
/// does not).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Strategy {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub write_strategy: Option<WriteStrategy>,
    /// With `in_place`: why a rename would have lost something.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub write_strategy_reason: Option<String>,
}

impl Strategy {
    /// `write_strategy` (and its reason, in place).
    pub fn of(s: WriteStrategy, reason: Option<&str>) -> Self {
        Strategy {
            write_strategy: Some(s),
            write_strategy_reason: reason.map(str::to_string),
        }
    }
}

/// An elision marker of the new text (`// ... existing code ...`) that
/// was expanded: written as the current lines it stands for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct KeptElision {
    /// The marker line, trimmed.
    pub marker: String,
    /// 1-based line of the marker in the new text as sent.
    pub line: usize,
    /// 1-based first and last line of the current file it kept.
    pub kept_lines: [usize; 2],
}

/// A dry run's diff, or why it is missing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Diff {
    /// Unified diff of the change (`a/` `b/` paths relative to the root).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
    /// Why the diff is missing (old and new content too large to show).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff_omitted: Option<String>,
}

/// What a dry run adds to a success: nothing was written; `run_id` applies
/// exactly this preview.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Preview {
    pub dry_run: True,
    #[serde(flatten)]
    pub diff: Diff,
    /// Pass it to applyDryRun to write exactly this preview; null when the
    /// planned change was too large to keep (see `message`).
    #[schemars(extend("x-null" = true))]
    pub run_id: Option<String>,
    /// Seconds the run_id stays applicable (0 when not kept).
    pub expires_in: u64,
    /// Why the run was not kept, and how to apply it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}
