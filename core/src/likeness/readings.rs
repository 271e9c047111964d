//! Finding the region a block that was not found was meant for, under each
//! reading of the block: as sent; with literal `\n` sequences unescaped (a
//! block escaped twice); without pasted line-number prefixes; and, for a
//! block that elides lines, from its parts around the elision (the region
//! then runs from the first part's place to the last part's, elided lines
//! included). The reading whose region matches best wins; a region found
//! as sent is widened over a stale view's changes ([`super::stale`]).

use super::anchors::Scanner;
use super::budget::Budget;
use super::elision::elided;
use super::search::{one, Located, Part, Reading};
use super::views::{split_elisions, strip_line_numbers, unescape_literal};

/// A block read as sent that matches at least this well keeps that
/// reading even when it has a marker line (the file holds the `...`).
const SENT_SCORE: f64 = 0.99;

/// Texts up to this size are searched for the block in its other line
/// endings: on larger ones the needle would add a pass's worth of memory
/// traffic to every failed edit, and the keyed search still finds the
/// region and names the line endings.
const OTHER_FORM_BYTES: usize = 8 << 20;

/// The block with its other line endings (LF for CRLF, CRLF for LF), when
/// it has line breaks, in a text up to [`OTHER_FORM_BYTES`] (CRLF only for
/// one that has a CR).
fn other_form(search: &str, text: &[u8]) -> Option<Vec<u8>> {
    if text.len() > OTHER_FORM_BYTES {
        None
    } else if search.contains("\r\n") {
        Some(search.replace("\r\n", "\n").into_bytes())
    } else if search.contains('\n') && memchr::memchr(b'\r', text).is_some() {
        Some(search.replace('\n', "\r\n").into_bytes())
    } else {
        None
    }
}

/// The block's one place when it differs from it only in its line endings
/// (LF sent for CRLF, or CRLF for LF): found byte for byte in the other
/// form (`start..end`, from 0-based line `line`), whatever its lines (a
/// block of closing braces, which no line of the scoring anchors,
/// included).
fn other_endings(search: &str, start: usize, end: usize, line: usize) -> Located {
    Located {
        start,
        end,
        line,
        score: 1.0,
        equally: Vec::new(),
        reading: Reading::AsSent,
        parts: vec![Part {
            text: search.to_string(),
            start,
            end,
            line,
        }],
    }
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
pub(crate) fn best(
    scanner: &mut Scanner<'_>,
    search: &str,
    budget: &Budget,
) -> (Option<Located>, bool) {
    // The block with its other line endings rides along with the first pass
    // of the search (after the riders already there); without a pass, it is
    // looked for on its own.
    let other = other_form(search, scanner.text);
    let rider = scanner.riders.len();
    if let Some(o) = &other {
        scanner.riders.push((o.clone(), 1));
    }
    let (sent, mut incomplete) = one(scanner, search, Reading::AsSent, budget);
    if let Some(o) = &other {
        let hits = match scanner.rider_hits.as_mut() {
            Some(h) if h.len() > rider => h.remove(rider),
            _ => {
                scanner.riders.truncate(rider);
                let mut it = memchr::memmem::find_iter(scanner.text, o);
                match (it.next(), it.next()) {
                    (Some(p), None) => Some(vec![(
                        p,
                        memchr::memchr_iter(b'\n', &scanner.text[..p]).count(),
                    )]),
                    (None, _) => Some(Vec::new()),
                    _ => None,
                }
            }
        };
        if let Some(&[(start, line)]) = hits.as_deref() {
            return (
                Some(other_endings(search, start, start + o.len(), line)),
                incomplete,
            );
        }
    }
    let sent_score = sent.as_ref().map_or(0.0, |s| s.score);
    let mut pick = sent;
    if let Some(u) = unescape_literal(search) {
        let (l, inc) = one(scanner, &u, Reading::Unescaped, budget);
        incomplete |= inc;
        keep_better(&mut pick, l);
    }
    let (l, inc) = numbered(scanner, search, budget);
    incomplete |= inc;
    keep_better(&mut pick, l);
    if sent_score < SENT_SCORE {
        if let Some(e) = split_elisions(search) {
            let (l, inc) = elided(scanner, &e.parts, &Reading::Elided(e.marker), budget);
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
