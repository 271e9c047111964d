//! The results of the journal's calls: `history`, `undo`, clearing.

use schemars::JsonSchema;
use serde::Serialize;

use super::marks::True;
use super::written::{Diff, Preview};
use crate::model::names;

names! {
    /// What a journaled transaction did to a file.
    pub enum FileKind {
        Modified = "modified",
        Created = "created",
        Deleted = "deleted",
        Moved = "moved",
    }
}

names! {
    /// Why a journal entry is damaged: `not_a_file` (a link, FIFO or
    /// directory named like an entry), `foreign_owner`, `unreadable`,
    /// `bad_header` (cut short, damaged or edited), `wrong_length`,
    /// `bad_fields`, `kept_inode` (its kept previous content is missing or
    /// was replaced), `bad_content` (found by undo).
    pub enum Damage {
        NotAFile = "not_a_file",
        ForeignOwner = "foreign_owner",
        Unreadable = "unreadable",
        BadHeader = "bad_header",
        WrongLength = "wrong_length",
        BadFields = "bad_fields",
        KeptInode = "kept_inode",
        BadContent = "bad_content",
    }
}

impl PartialEq<&str> for Damage {
    /// Whether the damage is the one named `other`.
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

names! {
    /// What undo did to a file.
    pub enum UndoAction {
        Restored = "restored",
        Removed = "removed",
        Recreated = "recreated",
    }
}

/// One file of a journaled transaction.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct HistoryFile {
    /// Relative to the workspace root.
    pub file_path: String,
    pub kind: FileKind,
    /// moved: the previous path.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    /// Lines added.
    pub added: u64,
    /// Lines removed.
    pub removed: u64,
}

/// One journaled write transaction.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Transaction {
    pub id: String,
    /// UTC, RFC 3339.
    pub time: String,
    pub entry_point: String,
    pub files: Vec<HistoryFile>,
    pub undoable: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why_not_undoable: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub undone_by: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub undoes: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub redo: Option<bool>,
}

/// A journal entry that does not read back whole: listed, never acted on
/// (undo answers JOURNAL_DAMAGED).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct DamagedEntry {
    pub id: String,
    /// Always empty.
    pub files: [u8; 0],
    pub undoable: bool,
    pub damaged: True,
    pub damage: Damage,
    pub why_not_undoable: String,
}

/// An entry of `history`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum Listed {
    Whole(Transaction),
    Damaged(DamagedEntry),
}

/// A successful `history`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct HistoryDone {
    pub ok: True,
    #[serde(skip_serializing_if = "super::view::omitted")]
    #[schemars(extend("x-compact" = true))]
    pub workspace_root: String,
    /// The workspace's journal directory.
    #[serde(skip_serializing_if = "super::view::omitted")]
    #[schemars(extend("x-compact" = true))]
    pub journal: String,
    pub enabled: bool,
    /// Newest first.
    pub transactions: Vec<Listed>,
}

/// One file undo put back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct UndoFile {
    pub file_path: String,
    pub action: UndoAction,
    /// sha256 of the bytes put back; null when the file is removed.
    pub sha256: Option<String>,
    #[serde(flatten)]
    pub diff: Option<Diff>,
}

/// A successful undo (done, or planned by a dry run).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Undone {
    pub ok: True,
    /// The transaction undone.
    pub undone: String,
    /// Whether it undid an undo.
    pub redo: bool,
    pub files: Vec<UndoFile>,
    /// This undo's own transaction (undo it to redo), when journaled.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[schemars(default)]
    pub warnings: Vec<String>,
    #[serde(flatten)]
    pub preview: Option<Preview>,
}

/// The journal cleared.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Cleared {
    pub ok: True,
    /// Entries removed.
    pub removed: u64,
    #[serde(skip_serializing_if = "super::view::omitted")]
    #[schemars(extend("x-compact" = true))]
    pub journal: String,
}
