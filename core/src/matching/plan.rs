//! What a successful match plans, whichever planner made it: the new
//! content as spans over the original text (kept ranges and replacement
//! texts, never a copy), and what each edit did. Applying edits in turn
//! ([`crate::matching::exact`]) and planning them in one pass
//! ([`crate::matching::many`]) both produce these, so one can stand in for
//! the other. Both find alike where an edit would damage the line its
//! search text's first line break ends ([`seam_at`]), or join the line
//! after it to its replacement or change its indentation ([`joins_at`]),
//! which is refused.

use crate::model::{Count, Edit};
use crate::text::lines::line_start;

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

/// What an edit whose search text starts with a line break, and whose
/// replacement does not, would do to the line that break ends, written as
/// sent: the break goes, and the rest of that line meets the replacement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Seam {
    /// The break is the LF of a CRLF: its CR would be left alone.
    LoneCr,
    /// The line holds only spaces and tabs, and the replacement starts
    /// with one: the two indentations would make one line.
    Blanks,
}

/// Whether `edit` could damage the line its search text's first line
/// break ends ([`seam_at`]): that text starts with a line break, and its
/// replacement does not start with an LF. Only such an edit is looked at.
pub(crate) fn may_damage_seam(edit: &Edit) -> bool {
    let s = edit.search.as_bytes();
    (s.starts_with(b"\n") || s.starts_with(b"\r\n"))
        && edit.replace.as_bytes().first() != Some(&b'\n')
}

/// The first of `ends` (where `edit` was found to end in `text`) between
/// the CR and the LF of a line break, when the replacement does not end
/// with a CR and the file uses CRLF throughout: written, that line's CRLF
/// would become a lone LF among CRLF lines. (A search of line breaks alone
/// is about the breaks themselves; in an LF or mixed file, taking a CR off
/// is how a stray one is removed.) The file is scanned for its kind of
/// line break once, and only when a place splits one.
pub(crate) fn splits_crlf_end(
    text: &[u8],
    mut ends: impl Iterator<Item = usize>,
    edit: &Edit,
) -> Option<usize> {
    let may = edit.search.ends_with('\r')
        && !edit.replace.ends_with('\r')
        && edit.search.bytes().any(|b| b != b'\r' && b != b'\n');
    if !may {
        return None;
    }
    let end = ends.find(|&end| text.get(end) == Some(&b'\n'))?;
    (crate::text::lines::line_ending(text) == crate::result::files::LineEnding::Crlf).then_some(end)
}

/// Whether `edit` could join the line after its occurrence to its
/// replacement's last line ([`joins_at`]): it is matched once, its search
/// text is lines with text ending with a line break, and its replacement,
/// not empty, does not end with one. (A search of line breaks alone, or an
/// edit of many places, is about the breaks themselves.)
pub(crate) fn may_join(edit: &Edit) -> bool {
    matches!(edit.count, Count::One | Count::Exactly(1))
        && edit.search.ends_with('\n')
        && edit.search.bytes().any(|b| !b.is_ascii_whitespace())
        && !edit.replace.is_empty()
        && !edit.replace.ends_with('\n')
}

/// Whether `edit` could change the indentation of the line its occurrence
/// ends in ([`joins_at`]): it is matched once, its search text has text and
/// ends inside a line's indentation (spaces or tabs after its last line
/// break), and its replacement, not empty, does not end with a line break
/// and the same spaces. (A model that copied up to the next line's first
/// characters: written, that line would lose or change its indentation, or
/// be joined to the replacement's last line.)
pub(crate) fn may_reindent(edit: &Edit) -> bool {
    let s = edit.search.as_bytes();
    let Some(nl) = memchr::memrchr(b'\n', s) else {
        return false;
    };
    let tail = &s[nl + 1..];
    let r = edit.replace.as_bytes();
    let kept = r.len() > tail.len() && r.ends_with(tail) && r[r.len() - tail.len() - 1] == b'\n';
    matches!(edit.count, Count::One | Count::Exactly(1))
        && !tail.is_empty()
        && tail.iter().all(|&b| b == b' ' || b == b'\t')
        && s[..nl].iter().any(|b| !b.is_ascii_whitespace())
        && !r.is_empty()
        && !kept
}

/// Whether the line of `text` that goes on at `end`, where an occurrence of
/// an edit that [`may_join`] or [`may_reindent`] ends, has text other than
/// spaces and tabs: it would be joined to the replacement's last line, or
/// lose its indentation. (A blank line is not damaged: it only takes that
/// line's place.)
pub(crate) fn joins_at(text: &[u8], end: usize) -> bool {
    let line = &text[end..memchr::memchr(b'\n', &text[end..]).map_or(text.len(), |k| end + k)];
    line.iter().any(|&b| !matches!(b, b' ' | b'\t' | b'\r'))
}

/// For an occurrence at `p` of `text` of an edit that [`may_damage_seam`]:
/// where the line holding `p` starts, and the damage the edit would do to
/// it, if any. The look goes back to the line break before `p`.
pub(crate) fn seam_at(text: &[u8], p: usize, edit: &Edit) -> (usize, Option<Seam>) {
    let start = line_start(text, p);
    if edit.search.starts_with('\n') && p > start && text[p - 1] == b'\r' {
        return (start, Some(Seam::LoneCr));
    }
    let indent = &text[start..p];
    let blanks = !indent.is_empty()
        && indent.iter().all(|&b| b == b' ' || b == b'\t')
        && matches!(edit.replace.as_bytes().first(), Some(b' ' | b'\t'));
    (start, blanks.then_some(Seam::Blanks))
}
