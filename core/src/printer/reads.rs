//! What reading a file tells the agent (`readFile`, the text editor's
//! `view`), and the text editor's own refusals: a line too long to read,
//! a read cut short, a file not in UTF-8, a view range past the end or
//! given for a directory, an undo_edit with nothing to undo.

use super::quote::plural;

/// Line `line` (1-based) of `path` alone is over one read's `mib` MiB.
pub(crate) fn line_too_long(line: usize, path: &str, mib: usize) -> String {
    format!(
        "line {line} of `{path}` alone is longer than {mib} MiB, more than one read returns; it cannot be read \
         with readFile (edit it with patchFile, which needs only the text to replace)"
    )
}

/// A read cut after `returned` lines from `offset` (one read's `mib` MiB).
pub(crate) fn read_cut(returned: usize, offset: usize, mib: usize) -> String {
    format!(
        "only the first {returned} lines from offset {offset} were returned ({mib} MiB per read); read on from \
         next_offset"
    )
}

/// A read with anchors of a file over `max` lines, which is not kept.
pub(crate) fn anchors_not_kept(max: usize) -> String {
    format!(
        "the file has more than {max} lines, too large for its reads with anchors to be kept: an edit's anchors \
         are checked at their line numbers only (nothing is relocated), and the reads of it kept before are no \
         longer used. Edit right after reading, and pass this read's sha256 as expected_sha256"
    )
}

/// A file whose lines end with a lone CR, shown with LF.
pub(crate) fn cr_breaks_note() -> String {
    "the file's lines end with a lone CR (classic Mac OS): content shows them with LF, and every edit writes \
     its line breaks as CR"
        .to_string()
}

/// A file that is not valid UTF-8 nor in a detected encoding, whose
/// returned range shows U+FFFD in `replaced` places.
pub(crate) fn not_utf8(replaced: usize) -> String {
    let shown = if replaced == 0 {
        "the lines returned are all UTF-8, so this content is exact, but other lines hold bytes that are not".to_string()
    } else {
        format!(
            "content is NOT the file's bytes: {replaced} place{} where the bytes are not UTF-8 show{} U+FFFD instead",
            plural(replaced),
            if replaced == 1 { "s" } else { "" }
        )
    };
    format!(
        "This file is not valid UTF-8, nor in an encoding that could be detected (e.g. UTF-8 with stray bytes; encoding binary-safe-bytes): {shown}. Writing text back with writeFile would replace those bytes, so writeFile refuses this file (UNSUPPORTED_ENCODING) unless you pass encoding: \"utf-8\" to convert it knowingly. To edit it byte-exactly, use patchFile with ASCII search/replace blocks: every other byte is kept as it is."
    )
}

/// UTF-8 found in a single-byte legacy file: `n` sequences, the first on
/// line `line`, shown as `shown` and meaning `utf8`.
pub(crate) struct EmbeddedUtf8<'a> {
    pub(crate) n: usize,
    pub(crate) line: usize,
    pub(crate) shown: &'a str,
    pub(crate) utf8: &'a str,
}

/// A file decoded as the legacy encoding `name` (a guess), with the UTF-8
/// it holds, if any.
pub(crate) fn legacy(name: &str, embedded: Option<EmbeddedUtf8<'_>>) -> String {
    let mut w = format!(
        "This file is not UTF-8: it was decoded as {name}, detected from its bytes (a guess). patchFile edits it as \
         text and writes back only the characters it replaces (every other byte is kept exactly), refusing an edit \
         that could split a character or that the encoding cannot hold (UNSUPPORTED_ENCODING); writeFile refuses \
         this file unless you pass encoding: \"utf-8\" to convert it knowingly."
    );
    if let Some(EmbeddedUtf8 {
        n,
        line,
        shown,
        utf8,
    }) = embedded
    {
        w.push_str(&format!(
            " It also holds {n} byte sequence{} that {} valid UTF-8, first on line {line}: `{shown}` is the UTF-8 \
             character `{utf8}`, probably pasted in UTF-8. content shows them as {name} (search for `{shown}`, not \
             `{utf8}`), and an edit must replace such a sequence whole or leave it alone: one that would keep part \
             of it is refused (UNSUPPORTED_ENCODING).",
            plural(n),
            if n == 1 { "is" } else { "are" },
        ));
    }
    w
}

/// `path` cannot be opened (`error`).
pub(crate) fn cannot_open(path: &str, error: &str) -> String {
    format!("cannot open `{path}`: {error}")
}

/// `path` (`size` bytes) is over `options.maxFileBytes` (`max`).
pub(crate) fn over_max_file_bytes(path: &str, size: u64, max: u64) -> String {
    format!("`{path}` is {size} bytes, over the limit of {max} bytes (options.maxFileBytes)")
}

/// A `view_range` from line `start` of a file of `total` lines.
pub(crate) fn view_past_end(start: usize, total: usize) -> String {
    format!("`view_range` starts at line {start}, but the file has {total} lines")
}

/// undo_edit on `path` with the journal off.
pub(crate) fn undo_edit_journal_off(path: &str) -> String {
    format!(
        "cannot undo the last edit of `{path}`: undo_edit restores edits from the edit journal, which is off \
         (options.journal: false, or PATCH_FILE_JOURNAL=off), so no edit was recorded; turn it on (leave \
         options.journal out or set it to true, and unset PATCH_FILE_JOURNAL) for later edits to be undoable. \
         Nothing was changed"
    )
}

/// undo_edit on `path` with no edit of it to undo.
pub(crate) fn undo_edit_nothing(path: &str) -> String {
    format!(
        "there is no edit of `{path}` to undo: undo_edit restores edits made with create, str_replace or insert \
         through this tool (kept in the edit journal; see the history and undo tools for other edits)"
    )
}

/// An internal error (a panic) in `what`.
pub(crate) fn internal_error(what: &str) -> String {
    format!("internal error ({what}); nothing was written")
}

/// A `view_range` given with a path that names a directory.
pub(crate) fn view_range_on_directory() -> String {
    "`view_range` applies to files; this path is a directory".to_string()
}
