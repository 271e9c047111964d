//! The successes of the text editor tool (`textEditor`): a view of a file or
//! of a directory, an edit (`create`, `str_replace`, `insert`) and an
//! `undo_edit`. Each names its `command`; a failure is a [`super::Failed`]
//! with `command` set.
//!
//! An edit answers with its one file's figures at the top level (the tool
//! touches one file per call), not in a `files` list as the edit formats do.

use schemars::JsonSchema;
use serde::Serialize;

use super::files::LineEnding;
use super::formats::{Format, FormatFile};
use super::history::UndoFile;
use super::marks::True;
use super::written::Preview;
use crate::model::names;

names! {
    /// A text editor command.
    pub enum Command {
        View = "view",
        Create = "create",
        StrReplace = "str_replace",
        Insert = "insert",
        UndoEdit = "undo_edit",
    }
}

names! {
    /// The commands that edit a file.
    pub enum EditCommand {
        Create = "create",
        StrReplace = "str_replace",
        Insert = "insert",
    }
}

names! {
    /// The command that shows a file or a directory.
    pub enum ViewCommand {
        View = "view",
    }
}

names! {
    /// The command that undoes the last edit of a file.
    pub enum UndoCommand {
        UndoEdit = "undo_edit",
    }
}

/// `view` of a file: its lines numbered as `cat -n` numbers them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct FileView {
    pub ok: True,
    pub kind: FileViewKind,
    pub file_path: String,
    /// The lines shown, each led by its number right-aligned to six places
    /// and a tab.
    pub content: String,
    /// 1-based first line shown.
    pub start_line: usize,
    /// 1-based last line shown.
    pub end_line: usize,
    pub total_lines: usize,
    pub sha256: String,
    pub encoding: &'static str,
    pub line_ending: LineEnding,
    /// `content` was cut to the whole lines that fit in `max_characters`
    /// (`end_line` the last of them; the first line alone cut short when
    /// not even it fits).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub truncated: Option<True>,
    pub command: ViewCommand,
}

/// `view` of a directory: its entries two levels deep, hidden ones skipped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct DirView {
    pub ok: True,
    pub kind: DirViewKind,
    pub file_path: String,
    /// Paths relative to the directory, sorted; a directory's ends in `/`.
    pub entries: Vec<String>,
    /// The entries, one a line.
    pub content: String,
    /// The listing stopped at its limit of entries.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub truncated: Option<True>,
    pub command: ViewCommand,
}

names! {
    /// What a `view` of a file shows: `kind` names it.
    pub enum FileViewKind {
        File = "file",
    }
}

names! {
    /// What a `view` of a directory shows: `kind` names it.
    pub enum DirViewKind {
        Directory = "directory",
    }
}

/// A `view`, told apart by `kind`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum Viewed {
    File(FileView),
    Directory(DirView),
}

/// `create`, `str_replace` or `insert`, written (or planned by a dry run).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct EditDone {
    pub ok: True,
    pub format: Format,
    /// The file's figures (with a dry run, its diff is the `diff` of
    /// `preview`).
    #[serde(flatten)]
    pub file: FormatFile,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[schemars(default)]
    pub warnings: Vec<String>,
    #[serde(flatten)]
    pub preview: Option<Preview>,
    /// The lines around the edit, numbered (4 before, 4 after), as the file
    /// reads after writing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snippet: Option<String>,
    pub command: EditCommand,
}

/// `undo_edit`: the file put back as it was before the last edit made
/// through this tool (or, with a dry run, what that would write).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct UndoEdit {
    pub ok: True,
    /// The transaction undone.
    pub undone: String,
    /// Whether it undid an undo.
    pub redo: bool,
    /// The file (with a dry run, its diff is the `diff` of `preview`).
    #[serde(flatten)]
    pub file: UndoFile,
    /// This undo's own transaction, when journaled.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[schemars(default)]
    pub warnings: Vec<String>,
    #[serde(flatten)]
    pub preview: Option<Preview>,
    /// The undone edit had created the file, so undoing it removed it.
    pub removed: bool,
    /// Edits of this file through this tool still to undo.
    pub undo_remaining: usize,
    pub command: UndoCommand,
}

/// A successful text editor call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum TextEditorDone {
    Viewed(Viewed),
    Edited(Box<EditDone>),
    Undone(Box<UndoEdit>),
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::result::marks::flag;

    #[test]
    fn a_view_names_its_kind_and_shows_truncated_only_when_set() {
        let v = Viewed::Directory(DirView {
            ok: True,
            kind: DirViewKind::Directory,
            file_path: "/w/d".into(),
            entries: vec!["a".into(), "b/".into()],
            content: "a\nb/\n".into(),
            truncated: flag(false),
            command: ViewCommand::View,
        });
        assert_eq!(
            serde_json::to_value(&v).unwrap(),
            json!({"kind": "directory", "ok": true, "file_path": "/w/d", "entries": ["a", "b/"],
                   "content": "a\nb/\n", "command": "view"})
        );
    }
}
