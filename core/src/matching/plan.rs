//! What a successful match plans, whichever planner made it: the new
//! content as spans over the original text (kept ranges and replacement
//! texts, never a copy), and what each edit did. Applying edits in turn
//! ([`crate::matching::exact`]) and planning them in one pass
//! ([`crate::matching::many`]) both produce these, so one can stand in for
//! the other.

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
