//! The success of `readFile` (`writeFile`'s is [`super::edits::WriteDone`]).

use schemars::JsonSchema;
use serde::Serialize;

use super::marks::True;
use crate::model::names;

names! {
    /// The line endings of a file: all `\n`, all `\r\n`, both, no line
    /// break at all, or all a lone `\r` (classic Mac OS: read with `\n`,
    /// written back with `\r`).
    pub enum LineEnding {
        Lf = "lf",
        Crlf = "crlf",
        Mixed = "mixed",
        None = "none",
        Cr = "cr",
    }
}

/// A successful readFile: a range of whole lines and what an edit of the
/// file needs to know.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct ReadDone {
    pub ok: True,
    pub file_path: String,
    /// The lines, decoded; in a file that is not valid UTF-8 each invalid
    /// byte sequence shows as U+FFFD.
    pub content: String,
    /// `true` when `content` is exactly the file's text for these lines;
    /// `false` when it shows U+FFFD for bytes that are not UTF-8 (writing it
    /// back would replace them; writeFile refuses that file).
    pub faithful: bool,
    /// 0-based line the range starts at.
    pub offset: usize,
    /// Lines returned.
    pub lines: usize,
    pub total_lines: usize,
    /// Where to read on, when lines follow the range.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_offset: Option<usize>,
    /// The answer stopped at 128 MiB of whole lines; read on from
    /// next_offset.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub truncated: Option<True>,
    /// With `truncated`: what was returned and how to read on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Present for a file that is not UTF-8 (a legacy encoding, or
    /// `binary-safe-bytes`): what `content` shows and how the file is edited
    /// without losing bytes; and for a file torn by an interrupted in-place
    /// write, which is shown as its content before that write (the next
    /// write restores it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
    /// sha256 (hex) of the whole file's bytes on disk.
    pub sha256: String,
    /// `utf-8`, `utf-16le`, `utf-16be`, a detected legacy encoding by its
    /// WHATWG name in lower case (`shift_jis`, `windows-1252`, …; `content`
    /// is decoded by it), or `binary-safe-bytes` (read at byte level).
    pub encoding: String,
    /// Whether the file starts with a byte order mark.
    pub bom: bool,
    pub line_ending: LineEnding,
    /// Size of the whole file on disk.
    pub bytes: usize,
}
