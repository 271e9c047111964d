//! The failures of file operations, as the edit formats plan them (a
//! patch's files and hunks, a text of SEARCH/REPLACE blocks, the text
//! editor's commands): what the pipeline (`crate::txn`) found, in words.

use super::quote::plural;
use crate::error::ErrorCode;

/// ` (line N)` for an operation from line `line` of the caller's text, or
/// nothing for one that has no line (given as structure).
fn at_line(line: usize) -> String {
    if line > 0 {
        format!(" (line {line})")
    } else {
        String::new()
    }
}

/// A move of `from` onto `to`, another name (hard link) of the same file.
pub(crate) fn move_onto_own_link(from: &str, to: &str) -> String {
    format!(
        "`{to}` is another name (a hard link) of the file `{from}` names, so moving one onto the other would leave a \
         single name without moving anything; nothing was written. Delete the name you no longer want instead"
    )
}

/// One operation writes the file `file` (from line `file_line`) where
/// another needs a directory for `under` (from `under_line`).
pub(crate) fn file_over_directory(
    (file, file_line): (&str, usize),
    (under, under_line): (&str, usize),
) -> String {
    format!(
        "`{file}`{} is written as a file, and `{under}`{} needs it to be a directory; a path cannot be both. \
         Nothing was written",
        at_line(file_line),
        at_line(under_line),
    )
}

/// Two operations (`a` from line `a_line`, `b` from `b_line`) name one
/// file, `file`.
pub(crate) fn same_file_twice(
    a: &str,
    a_line: usize,
    b: &str,
    b_line: usize,
    file: &str,
) -> String {
    format!(
        "`{a}`{} and `{b}`{} name the same file `{file}`; put every change to one file in one operation; \
         nothing was written",
        at_line(a_line),
        at_line(b_line),
    )
}

/// A delete or a move names `path`, a symbolic link to `real`.
pub(crate) fn through_link(path: &str, real: &str) -> String {
    format!(
        "`{path}` is reached through a symbolic link (the file is `{real}`); name the file by its real path to \
         delete or move it"
    )
}

/// A move of `path` onto `to`, a symbolic link to `real`.
pub(crate) fn move_onto_link(path: &str, to: &str, real: &str) -> String {
    format!(
        "`{path}` would move onto `{to}`, a symbolic link to `{real}`: the move would write over `{real}` and \
         keep the link; nothing was written. Move it to another path, or remove the link first"
    )
}

/// The new text of `path` (`len` bytes) could not be allocated.
pub(crate) fn too_large_to_allocate(path: &str, len: usize) -> String {
    format!(
        "the new text of `{path}` would be {len} bytes, and that much memory could not be allocated; nothing \
         was written"
    )
}

/// A diff deletes `path`, which holds more than the lines it deletes.
pub(crate) fn holds_more_than_deleted(path: &str) -> String {
    format!("`{path}` holds more than the lines the diff deletes, so it was not deleted; reread it and regenerate the diff")
}

/// A diff renames `path` to `to`, which exists.
pub(crate) fn rename_onto_existing(path: &str, to: &str) -> String {
    format!(
        "the diff renames `{path}` to `{to}`, which already exists; a rename never replaces a file"
    )
}

/// An operation that only creates files names `path`, which exists.
pub(crate) fn exists_create_only(path: &str) -> String {
    format!(
        "`{path}` already exists, and this operation only creates new files; edit it with the exact text to \
         replace instead"
    )
}

/// `insert_line` `after` is past the end of a file of `total` lines.
pub(crate) fn insert_past_end(after: usize, total: usize) -> String {
    format!(
        "`insert_line` {after} is past the end of the file, which has {total} line{}; use 0 to {total}",
        plural(total)
    )
}

/// The inserted text failed the last check (`reason`, from
/// `matching::verify`).
pub(crate) fn insert_failed_check(reason: &str) -> String {
    format!(
        "the inserted text failed the check made before writing ({reason}); nothing was written"
    )
}

/// The failure of file `path`'s hunks: the first one's `message`, and how
/// many failed (`n`).
pub(crate) fn hunks_failed(path: &str, message: &str, n: usize) -> String {
    let mut out = format!("`{path}`: {message}");
    if n > 1 {
        out.push_str(&format!(" ({n} hunks of this file failed; see `hunks`)"));
    }
    out
}

/// One failed block of file `path`, as its result and message name it.
pub(crate) struct BlockMiss<'a> {
    /// Its 0-based index and line in the caller's text, or `None` for a
    /// command's text (named by its parameter).
    pub(crate) at: Option<(usize, usize)>,
    /// The parameter that carried a command's search text.
    pub(crate) said_search: &'a str,
    pub(crate) code: ErrorCode,
    pub(crate) match_count: usize,
    pub(crate) match_lines: &'a [usize],
    /// The diagnosis's summary of a block not found, if any.
    pub(crate) summary: Option<String>,
    /// The failure's own message, for any other code.
    pub(crate) message: &'a str,
}

/// What failed in one block of file `path`.
pub(crate) fn block_failed(path: &str, b: &BlockMiss<'_>) -> String {
    // A block of a text is named by its number and line, and its text as
    // its SEARCH text; a command's by the parameter that carried it.
    let (which, text) = match b.at {
        Some((index, line)) => (
            format!("block {} (line {line}): ", index + 1),
            "its SEARCH text",
        ),
        None => (String::new(), b.said_search),
    };
    let what = match b.code {
        ErrorCode::SEARCH_BLOCK_NOT_FOUND => match &b.summary {
            Some(sum) => format!("{text} was not found; {sum}"),
            None => format!(
                "{text} was not found; reread the file and copy the exact current text (whitespace, indentation \
                 and line breaks must match)"
            ),
        },
        ErrorCode::SEARCH_BLOCK_AMBIGUOUS => format!(
            "{text} occurs {} times (lines {}); include neighbouring lines to make it unique",
            b.match_count,
            b.match_lines.iter().take(10).map(|l| l.to_string()).collect::<Vec<_>>().join(", ")
        ),
        _ => b.message.to_string(),
    };
    format!("`{path}`: {which}{what}")
}

/// What follows the first failed block's message when `n` blocks of the
/// file failed (`checked_all`: fewer than the most reported, so every
/// block was checked).
pub(crate) fn blocks_failed(n: usize, checked_all: bool) -> String {
    if !checked_all {
        format!(
            " (at least {n} blocks of this file failed, listed in `blocks`; the blocks after the last of them were \
             not checked)"
        )
    } else if n > 1 {
        format!(" ({n} blocks of this file failed; see `blocks`)")
    } else {
        String::new()
    }
}

/// The call's failure when `failed` of its `ops` file operations failed,
/// the first with `first` (its message).
pub(crate) fn operations_failed(ops: usize, failed: usize, first: &str) -> String {
    let first_alone = first.trim_end_matches("; nothing was written");
    if ops == 1 {
        format!("{first_alone}; nothing was written")
    } else if failed == 1 {
        format!("{first_alone}; nothing was written (all {ops} file operations apply together or not at all)")
    } else {
        format!("{failed} of {ops} file operations failed, so nothing was written (all-or-nothing). First: {first}")
    }
}

/// An insert of text that is not ASCII into a file that is not valid UTF-8
/// (edited at byte level).
pub(crate) fn insert_not_ascii() -> String {
    "the file is not valid UTF-8, so only ASCII text can be inserted at byte level".to_string()
}

/// A block's replacement not found in its file as read back after the
/// write.
pub(crate) fn replacement_not_read_back() -> String {
    "the edit was written, but a replacement is not present in the file as read back (a later block \
     changed it, or another process wrote the file meanwhile); see `files[].blocks[].verified`"
        .to_string()
}
