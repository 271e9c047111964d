//! Line numbers: how many line breaks a slice holds, the 1-based line of
//! byte offsets, where a line starts, and which line breaks a text uses.
//! Every layer that reports a line (matching, diagnosis, the legacy-encoding
//! checks, diffs, reads, the elision check) counts them here, one way.
//!
//! Pure: of the rest of the crate only the result's `LineEnding` is used.
use crate::result::files::LineEnding;

/// Number of `\n` in `bytes`. memchr's vectorized search (run-time CPU
/// dispatch) beats a counting loop at source-code line lengths: 23 ms
/// instead of 62 ms over a 200 MiB file with 32-byte lines.
pub(crate) fn count_newlines(bytes: &[u8]) -> usize {
    memchr::memchr_iter(b'\n', bytes).count()
}

/// UTF-8 text pieces with every line break a CR: LF and CRLF alike (the
/// text was read with LF breaks; a caller's CRLF is one break too). A CRLF
/// across two pieces (a caller's CR at the end of its text, the file's
/// break after it) is two breaks.
pub(crate) fn cr_text(pieces: &[&[u8]]) -> Vec<u8> {
    let mut out = Vec::with_capacity(pieces.iter().map(|p| p.len()).sum());
    for p in pieces {
        let mut cr = false;
        for &b in *p {
            match b {
                b'\n' if cr => {}
                b'\n' => out.push(b'\r'),
                _ => out.push(b),
            }
            cr = b == b'\r';
        }
    }
    out
}

/// Every `from` byte of `bytes` made a `to` (a text read with LF breaks
/// and one of lone CRs: one byte for one, offsets unchanged).
pub(crate) fn swap_breaks(bytes: &mut [u8], from: u8, to: u8) {
    bytes
        .iter_mut()
        .filter(|b| **b == from)
        .for_each(|b| *b = to);
}

/// Where the line holding byte `at` of `text` starts: just after the line
/// break before `at`, or 0.
pub(crate) fn line_start(text: &[u8], at: usize) -> usize {
    memchr::memrchr(b'\n', &text[..at]).map_or(0, |k| k + 1)
}

/// How many lines `text` has: its line breaks, and a last line without
/// one (a final line break ends the last line; it does not start one).
pub(crate) fn line_count(text: &[u8]) -> usize {
    count_newlines(text) + usize::from(!text.is_empty() && !text.ends_with(b"\n"))
}

/// How much of the line break `eol` is already written at the end of
/// `text`, where a break is added after its last line: 1 when `text` ends
/// with a lone CR and `eol` is CRLF (only the LF completes that line;
/// the whole break again would write `\r\r\n`), else 0. Every entry point
/// that appends after a last line without a line break adds
/// `&eol[break_written(text, eol)..]`.
pub(crate) fn break_written(text: &[u8], eol: &[u8]) -> usize {
    usize::from(eol == b"\r\n" && text.ends_with(b"\r"))
}

/// The 1-based first and last line of the bytes `start..end` of `text`
/// (an empty range: the line it stands on).
pub(crate) fn span_lines(text: &[u8], start: usize, end: usize) -> (usize, usize) {
    let last = end.saturating_sub(1).max(start);
    let lines = line_numbers(text, &[start, last]);
    (lines[0], lines[1])
}

/// 1-based line numbers of byte offsets (ascending), counting newlines once.
pub(crate) fn line_numbers(text: &[u8], offsets: &[usize]) -> Vec<usize> {
    let mut out = Vec::with_capacity(offsets.len());
    let (mut line, mut at) = (1usize, 0usize);
    for &o in offsets {
        line += count_newlines(&text[at..o]);
        at = o;
        out.push(line);
    }
    out
}

/// The line-ending style of `text`.
pub(crate) fn line_ending(text: &[u8]) -> LineEnding {
    let mut lf = false;
    let mut crlf = false;
    for i in memchr::memchr_iter(b'\n', text) {
        if i > 0 && text[i - 1] == b'\r' {
            crlf = true;
        } else {
            lf = true;
        }
        if lf && crlf {
            return LineEnding::Mixed;
        }
    }
    match (lf, crlf) {
        (true, false) => LineEnding::Lf,
        (false, true) => LineEnding::Crlf,
        _ => LineEnding::None,
    }
}
