//! What a successful match plans, whichever planner made it: the new
//! content as spans over the original text (kept ranges and replacement
//! texts, never a copy), and what each edit did. Applying edits in turn
//! ([`crate::matching::exact`]) and planning them in one pass
//! ([`crate::matching::many`]) both produce these, so one can stand in for
//! the other. Both find alike where an edit would join a line of only
//! whitespace to its replacement ([`blanks_before`]), which is refused.

use crate::model::Edit;

/// How many occurrences of one edit are planned as spans over a text of
/// `len` bytes. Each planned occurrence costs about 250 bytes on its way to
/// the disk (its position, range, two spans, two pieces and the slice lists
/// of the encoder and the commit), so this keeps that under 7 % of the text
/// (and at most about 1 MiB for small texts); an edit with more occurrences
/// is written into one new buffer instead (`splice_all` in
/// [`crate::matching::exact`]).
pub(crate) fn span_limit(len: usize) -> usize {
    (len / 4096).max(4096)
}

/// One part of the planned content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Span {
    /// `base[start..end]`.
    Keep(usize, usize),
    /// The replacement text of edit `i`.
    Insert(usize),
}

/// The outcome of one successful edit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Landing {
    /// 1-based line where the first replaced occurrence starts, in the text
    /// the edit was applied to.
    pub(crate) line_number: usize,
    pub(crate) replacements: usize,
    /// Byte offset of the first occurrence in that text.
    pub(crate) offset: usize,
}

/// A plan of edits over the caller's text: spans over the original text.
#[derive(Debug)]
pub(crate) struct Plan {
    pub(crate) spans: Vec<Span>,
    pub(crate) reports: Vec<Landing>,
    pub(crate) utf16_delta: isize,
}

/// Whether `edit` could join a line of only whitespace to its replacement:
/// its search text starts with a line break and its replacement with a
/// space or a tab. Only such an edit is looked at ([`blanks_before`]).
pub(crate) fn may_join_whitespace(edit: &Edit) -> bool {
    let s = edit.search.as_bytes();
    (s.starts_with(b"\n") || s.starts_with(b"\r\n"))
        && matches!(edit.replace.as_bytes().first(), Some(b' ' | b'\t'))
}

/// Where the line holding byte `p` of `text` starts, and whether the bytes
/// from there to `p` are spaces and tabs, one at least: an occurrence at
/// `p` of an edit that [`may_join_whitespace`] would join that line to
/// its replacement. The look goes back to the line break before `p`.
pub(crate) fn blanks_before(text: &[u8], p: usize) -> (usize, bool) {
    let start = memchr::memrchr(b'\n', &text[..p]).map_or(0, |i| i + 1);
    let indent = &text[start..p];
    let blanks = !indent.is_empty() && indent.iter().all(|&b| b == b' ' || b == b'\t');
    (start, blanks)
}
