//! The region of a block that elides lines (`...`, `// ... existing code
//! ...`): from the place of its first part to the place of its last, the
//! elided lines included.
//!
//! The part most likely to be found once is looked for first, anywhere
//! (the longest one, by its content); every other part is then looked for
//! next to the one beside it: a part after it in the text that follows
//! (the nearest place, within [`MAX_GAP`] bytes), a part before it in the
//! text that precedes. A short part (a closing brace and a blank line) is
//! found by its exact text when it is there, else by the same scoring as
//! any block; every part must match at least [`PART_SCORE`].

use memchr::memmem;

use super::anchors::Scanner;
use super::budget::Budget;
use super::closest::{closest_by_scan, region};
use super::keys::{block_lines, SLine};
use super::search::{one, Located, Part, Reading};
use super::windows::GaveUp;
use crate::text::lines::line_start;

/// A part is looked for this far (bytes) from the part beside it.
const MAX_GAP: usize = 256 << 10;
/// Each part of an elided block must match at least this well.
const PART_SCORE: f64 = 0.8;

/// 0-based line of byte `at`, given that byte `from` starts line `line`.
fn line_at(text: &[u8], from: usize, line: usize, at: usize) -> usize {
    if at >= from {
        line + memchr::memchr_iter(b'\n', &text[from..at]).count()
    } else {
        line - memchr::memchr_iter(b'\n', &text[at..from]).count()
    }
}

/// The place of `part` within `text[from..to]` (`from` starts line
/// `line`), nearest to `to` when `backwards`, else nearest to `from`: its
/// exact text, or the region most like it.
fn near(
    text: &[u8],
    (from, to): (usize, usize),
    line: usize,
    part: &str,
    backwards: bool,
    budget: &Budget,
) -> Result<Option<(f64, Part)>, GaveUp> {
    let hay = &text[from..to];
    let exact = if backwards {
        memmem::rfind(hay, part.as_bytes())
    } else {
        memmem::find(hay, part.as_bytes())
    };
    if let Some(k) = exact {
        let p = Part {
            text: part.to_string(),
            start: from + k,
            end: from + k + part.len(),
            line: line_at(text, from, line, from + k),
        };
        return Ok(Some((1.0, p)));
    }
    let s: Vec<SLine> = block_lines(part.as_bytes())
        .0
        .iter()
        .map(|l| SLine::new(l))
        .collect();
    let Some((f, _, lines)) = closest_by_scan(hay, &s, budget)? else {
        return Ok(None);
    };
    let (a, b) = region(&lines, f, part.as_bytes());
    let p = Part {
        text: part.to_string(),
        start: from + a,
        end: from + b,
        line: line + f.start,
    };
    Ok(Some((f.score, p)))
}

/// The parts of an elided block found around `anchor` (part `k`), each next
/// to the one beside it, and the lowest score among them; `Err` when the
/// budget ran out, `Ok(None)` when a part is missing.
fn around(
    text: &[u8],
    parts: &[String],
    k: usize,
    anchor: (f64, Part),
    budget: &Budget,
) -> Result<Option<(f64, Vec<Part>)>, GaveUp> {
    let (mut score, first) = anchor;
    let mut found: Vec<Part> = vec![first];
    // Later parts, each after the one before it.
    for part in &parts[k + 1..] {
        let prev = found.last().expect("a part");
        let from = prev.end;
        let line = line_at(text, prev.start, prev.line, from);
        let to = (from + MAX_GAP).min(text.len());
        match near(text, (from, to), line, part, false, budget)? {
            Some((s, p)) if s >= PART_SCORE => {
                score = score.min(s);
                found.push(p);
            }
            _ => return Ok(None),
        }
    }
    // Earlier parts, each before the one after it.
    for part in parts[..k].iter().rev() {
        let next = &found[0];
        let to = next.start;
        let from = line_start(text, to.saturating_sub(MAX_GAP));
        let line = line_at(text, next.start, next.line, from);
        match near(text, (from, to), line, part, true, budget)? {
            Some((s, p)) if s >= PART_SCORE => {
                score = score.min(s);
                found.insert(0, p);
            }
            _ => return Ok(None),
        }
    }
    Ok(Some((score, found)))
}

/// Exact places of an anchor part tried at most.
const MAX_ANCHORS: usize = 8;

/// The region of an elided block made of `parts` (see the module docs),
/// and whether the budget ran out. When the anchor part stands verbatim in
/// several places, each is tried, and the region whose parts match best
/// (then the shortest) wins.
pub(super) fn elided(
    scanner: &mut Scanner<'_>,
    parts: &[String],
    reading: &Reading,
    budget: &Budget,
) -> (Option<Located>, bool) {
    let text = scanner.text;
    let weight = |p: &String| p.lines().map(|l| l.trim().len()).sum::<usize>();
    let Some(k) = (0..parts.len()).max_by_key(|&k| (weight(&parts[k]), std::cmp::Reverse(k)))
    else {
        return (None, false);
    };
    let exact: Vec<usize> = memmem::find_iter(text, parts[k].as_bytes())
        .take(MAX_ANCHORS)
        .collect();
    let mut anchors: Vec<(f64, Part)> = exact
        .iter()
        .map(|&at| {
            let line = memchr::memchr_iter(b'\n', &text[..at]).count();
            let part = Part {
                text: parts[k].clone(),
                start: at,
                end: at + parts[k].len(),
                line,
            };
            (1.0, part)
        })
        .collect();
    let mut incomplete = false;
    if anchors.is_empty() {
        let (anchor, inc) = one(scanner, &parts[k], reading.clone(), budget);
        incomplete = inc;
        match anchor.filter(|a| a.score >= PART_SCORE) {
            Some(a) => anchors.push((a.score, a.parts[0].clone())),
            None => return (None, incomplete),
        }
    }
    let mut best: Option<(f64, Vec<Part>)> = None;
    for anchor in anchors {
        match around(text, parts, k, anchor, budget) {
            Ok(Some((score, found))) => {
                let span = |f: &Vec<Part>| f[f.len() - 1].end - f[0].start;
                let better = best.as_ref().is_none_or(|(s, f)| {
                    score > *s + 1e-9 || (score >= *s - 1e-9 && span(&found) < span(f))
                });
                if better {
                    best = Some((score, found));
                }
            }
            Ok(None) => {}
            Err(GaveUp) => return (None, true),
        }
    }
    let Some((score, found)) = best else {
        return (None, incomplete);
    };
    let (first, last) = (&found[0], &found[found.len() - 1]);
    let located = Located {
        start: first.start,
        end: last.end,
        line: first.line,
        score,
        equally: Vec::new(),
        reading: reading.clone(),
        parts: found,
    };
    (Some(located), incomplete)
}
