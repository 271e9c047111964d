//! Finding the region a block that was not found was meant for, under each
//! reading of the block: as sent; with literal `\n` sequences unescaped (a
//! block escaped twice); without pasted line-number prefixes; and, for a
//! block that elides lines, from its parts around the elision (the region
//! then runs from the first part's place to the last part's, elided lines
//! included). The reading whose region matches best wins; a region found
//! as sent is widened over a stale view's changes ([`super::stale`]).

use memchr::memchr_iter;

use super::anchors::Scanner;
use super::closest::{closest, closest_by_scan, region, Found, GaveUp};
use super::keys::{block_lines, SLine};
use super::views::{split_elisions, strip_line_numbers};
use super::{stale, Budget};

/// An elided part is looked for this far (bytes) after the part before it.
const MAX_GAP: usize = 256 << 10;
/// Each part of an elided block must match at least this well.
const PART_SCORE: f64 = 0.8;
/// A block read as sent that matches at least this well keeps that
/// reading even when it has a marker line (the file may hold `...`).
const SENT_SCORE: f64 = 0.9;

/// How the block was read to find its region.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Reading {
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
pub(super) struct Part {
    pub text: String,
    pub start: usize,
    pub end: usize,
    /// 0-based line where the part's region starts.
    pub line: usize,
}

/// The region found for a block.
#[derive(Debug, Clone)]
pub(super) struct Located {
    pub start: usize,
    pub end: usize,
    /// 0-based first line.
    pub line: usize,
    pub score: f64,
    /// 0-based start lines of other regions as close.
    pub equally: Vec<usize>,
    pub reading: Reading,
    pub parts: Vec<Part>,
}

/// The region of `text` most like `block` read as `reading`, and whether
/// the budget ran out.
fn one(
    scanner: &mut Scanner<'_>,
    block: &str,
    reading: Reading,
    budget: &Budget,
) -> (Option<Located>, bool) {
    let (found, incomplete) = closest(scanner, block.as_bytes(), budget);
    let Some((mut f, equally, mut lines)) = found else {
        return (None, incomplete);
    };
    // A block read as sent may be a stale view: widened over its changes.
    // The parts of an elided block are read as parts, never widened.
    if reading == Reading::AsSent {
        let s: Vec<SLine> = block_lines(block.as_bytes())
            .0
            .iter()
            .map(|l| SLine::new(l))
            .collect();
        if let Some((wider, wide)) = stale::span(scanner.text, &s, f, &lines) {
            f = wider;
            lines = wide;
        }
    }
    let (start, end) = region(&lines, f, block.as_bytes());
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

/// The best region for `block` (a part of an elided block) within
/// `text[from..to]`, with absolute offsets; `line` is the 0-based line of
/// `from`.
fn within(
    text: &[u8],
    from: usize,
    to: usize,
    line: usize,
    block: &str,
    budget: &Budget,
) -> Result<Option<(Found, Part)>, GaveUp> {
    let s: Vec<SLine> = block_lines(block.as_bytes())
        .0
        .iter()
        .map(|l| SLine::new(l))
        .collect();
    let Some((f, _, lines)) = closest_by_scan(&text[from..to], &s, budget)? else {
        return Ok(None);
    };
    let (a, b) = region(&lines, f, block.as_bytes());
    let part = Part {
        text: block.to_string(),
        start: from + a,
        end: from + b,
        line: line + f.start,
    };
    Ok(Some((
        Found {
            start: line + f.start,
            ..f
        },
        part,
    )))
}

/// 0-based line of byte `at`, given that byte `from` starts line `line`.
fn line_at(text: &[u8], from: usize, line: usize, at: usize) -> usize {
    if at >= from {
        line + memchr_iter(b'\n', &text[from..at]).count()
    } else {
        line - memchr_iter(b'\n', &text[at..from]).count()
    }
}

/// Start of the line holding byte `at`.
fn line_start(text: &[u8], at: usize) -> usize {
    memchr::memrchr(b'\n', &text[..at]).map_or(0, |k| k + 1)
}

/// The region of an elided block: its first part found anywhere, each
/// later part after the one before (within [`MAX_GAP`]), every part matching
/// at least [`PART_SCORE`]. When the first part is found too far from the
/// last, the last is found anywhere and the first just before it.
fn elided(
    scanner: &mut Scanner<'_>,
    parts: &[String],
    marker: &str,
    budget: &Budget,
) -> (Option<Located>, bool) {
    let text = scanner.text;
    let (head, incomplete) = one(
        scanner,
        &parts[0],
        Reading::Elided(marker.to_string()),
        budget,
    );
    let Some(head) = head.filter(|h| h.score >= PART_SCORE) else {
        return (None, incomplete);
    };
    let mut found = vec![head.parts[0].clone()];
    let mut score = head.score;
    for part in &parts[1..] {
        let prev = found.last().expect("a part");
        let (from, line) = (prev.end, line_at(text, prev.start, prev.line, prev.end));
        let from_line = line_start(text, from).max(prev.start);
        let line = line_at(text, from, line, from_line);
        let to = (from_line + MAX_GAP).min(text.len());
        match within(text, from_line, to, line, part, budget) {
            Ok(Some((f, p))) if f.score >= PART_SCORE && p.start >= prev.end => {
                score = score.min(f.score);
                found.push(p);
            }
            Ok(_) => return (None, incomplete),
            Err(GaveUp) => return (None, true),
        }
    }
    let (first, last) = (&found[0], &found[found.len() - 1]);
    let located = Located {
        start: first.start,
        end: last.end,
        line: first.line,
        score,
        equally: Vec::new(),
        reading: Reading::Elided(marker.to_string()),
        parts: found,
    };
    (Some(located), incomplete)
}

/// Keeps `l` when it matches better than the pick so far.
fn keep_better(pick: &mut Option<Located>, l: Option<Located>) {
    if let Some(l) = l {
        if pick.as_ref().is_none_or(|p| l.score > p.score + 1e-9) {
            *pick = Some(l);
        }
    }
}

/// The block without its line-number prefixes, if it has them: for `:` and
/// `|`, read with and without the space after them, the reading the file
/// has exactly winning.
fn numbered(scanner: &mut Scanner<'_>, search: &str, budget: &Budget) -> (Option<Located>, bool) {
    let Some(n) = strip_line_numbers(search) else {
        return (None, false);
    };
    let (mut best, mut incomplete): (Option<Located>, bool) = (None, false);
    for text in std::iter::once(&n.text).chain(n.alt.as_ref()) {
        let (l, inc) = one(scanner, text, Reading::Numbered(n.sample.clone()), budget);
        incomplete |= inc;
        let exact = |l: &Located| scanner.text.get(l.start..l.end) == Some(text.as_bytes());
        match (l, &best) {
            (Some(l), None) => best = Some(l),
            (Some(l), Some(prev)) if exact(&l) && !exact(prev) => best = Some(l),
            _ => {}
        }
    }
    // The prefixes removed explain the block at least as well as sent.
    let best = best.map(|mut l| {
        l.score += 1e-6;
        l
    });
    (best, incomplete)
}

/// The region most like `search` under every reading of it, and whether
/// the budget ran out before the search was done.
pub(super) fn best(
    scanner: &mut Scanner<'_>,
    search: &str,
    budget: &Budget,
) -> (Option<Located>, bool) {
    let (sent, mut incomplete) = one(scanner, search, Reading::AsSent, budget);
    let sent_score = sent.as_ref().map_or(0.0, |s| s.score);
    let mut pick = sent;
    if let Some(u) = super::report::unescape_literal(search) {
        let (l, inc) = one(scanner, &u, Reading::Unescaped, budget);
        incomplete |= inc;
        keep_better(&mut pick, l);
    }
    let (l, inc) = numbered(scanner, search, budget);
    incomplete |= inc;
    keep_better(&mut pick, l);
    if sent_score < SENT_SCORE {
        if let Some(e) = split_elisions(search) {
            let (l, inc) = elided(scanner, &e.parts, &e.marker, budget);
            incomplete |= inc;
            // Every part found: the elision explains the block better than
            // any window of its length.
            if l.is_some() {
                pick = l;
            }
        }
    }
    (pick, incomplete)
}
