//! The region for one reading of a block that was not found: the closest
//! region ([`super::closest`]), for a block read as sent first its own place
//! or the region widened over a stale view's changes ([`super::stale`]), and
//! among regions as close the one most like the block character for
//! character. What a region found is, and how the block was read to find it.

use super::align::char_ratio;
use super::anchors::Scanner;
use super::budget::Budget;
use super::closest::{closest, region};
use super::keys::{block_lines, FileLines, SLine};
use super::stale;
use super::windows::Found;

/// How the block was read to find its region.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Reading {
    AsSent,
    /// Literal `\n` sequences turned into line breaks.
    Unescaped,
    /// Line-number prefixes removed; the first prefix as pasted.
    Numbered(String),
    /// Parts around elided lines; the first marker.
    Elided(String),
}

/// One part of the block (the whole block, but for an elision) and the
/// region found for it.
#[derive(Debug, Clone)]
pub(crate) struct Part {
    pub(crate) text: String,
    pub(crate) start: usize,
    pub(crate) end: usize,
    /// 0-based line where the part's region starts.
    pub(crate) line: usize,
}

/// The region found for a block.
#[derive(Debug, Clone)]
pub(crate) struct Located {
    pub(crate) start: usize,
    pub(crate) end: usize,
    /// 0-based first line.
    pub(crate) line: usize,
    pub(crate) score: f64,
    /// 0-based start lines of other regions as close.
    pub(crate) equally: Vec<usize>,
    pub(crate) reading: Reading,
    pub(crate) parts: Vec<Part>,
}

/// The region of `text` most like `block` read as `reading`, and whether
/// the budget ran out.
pub(super) fn one(
    scanner: &mut Scanner<'_>,
    block: &str,
    reading: Reading,
    budget: &Budget,
) -> (Option<Located>, bool) {
    let text = scanner.text;
    let (found, incomplete) = closest(scanner, block.as_bytes(), budget);
    let s: Vec<SLine> = block_lines(block.as_bytes())
        .0
        .iter()
        .map(|l| SLine::new(l))
        .collect();
    // A block read as sent may be a stale view: a place where more of its
    // lines stand verbatim is its own place; and the region found is
    // widened over the view's changes.
    let found = if reading == Reading::AsSent {
        let own = stale::own_place(text, block, found.as_ref().map(|(f, _, l)| (*f, l)), budget);
        let (mut f, equally, mut lines) = match (own, found) {
            (Some((f, lines)), _) => (f, Vec::new(), lines),
            (None, Some(x)) => x,
            (None, None) => return (None, incomplete),
        };
        if let Some((wider, wide)) = stale::span(text, &s, f, &lines) {
            f = wider;
            lines = wide;
        }
        (f, lines) = stale::fill(text, block, s.len(), f, lines, budget);
        Some((f, equally, lines))
    } else {
        found
    };
    let Some((f, equally, lines)) = found else {
        return (None, incomplete);
    };
    let (f, equally, (start, end)) = likest(text, block, f, equally, &lines);
    let part = Part {
        text: block.to_string(),
        start,
        end,
        line: f.start,
    };
    let located = Located {
        start,
        end,
        line: f.start,
        score: f.score,
        equally,
        reading,
        parts: vec![part],
    };
    (Some(located), incomplete)
}

/// Byte offset where 0-based line `line` of `text` starts.
fn line_offset(text: &[u8], line: usize) -> usize {
    if line == 0 {
        0
    } else {
        memchr::memchr_iter(b'\n', text)
            .nth(line - 1)
            .map_or(text.len(), |k| k + 1)
    }
}

/// Among regions that score the same (the best, `f` of `lines`, and those
/// starting at `equally`), the one whose text is most like the block
/// character for character (a twin indented like the block, say); the
/// others stay equally close.
fn likest(
    text: &[u8],
    block: &str,
    f: Found,
    equally: Vec<usize>,
    lines: &FileLines<'_>,
) -> (Found, Vec<usize>, (usize, usize)) {
    let first = region(lines, f, block.as_bytes());
    if equally.is_empty() || equally.len() > 16 {
        return (f, equally, first);
    }
    let like = |(a, b): (usize, usize)| char_ratio(block, &String::from_utf8_lossy(&text[a..b]));
    let mut best = (like(first), f, first);
    for &x in &equally {
        let at = line_offset(text, x);
        let around = FileLines::around(text, at, x, 0, f.len + 1);
        if x + f.len > around.hi() {
            continue;
        }
        let g = Found { start: x, ..f };
        let r = region(&around, g, block.as_bytes());
        let sim = like(r);
        if sim > best.0 + 1e-9 {
            best = (sim, g, r);
        }
    }
    let (_, g, r) = best;
    let mut others: Vec<usize> = equally.into_iter().filter(|&x| x != g.start).collect();
    if g.start != f.start {
        others.push(f.start);
        others.sort_unstable();
    }
    (g, others, r)
}
