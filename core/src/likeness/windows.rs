//! Scoring windows of file lines against the block: the score of one
//! window, the best window around a candidate start (shifted, or a couple of
//! lines longer or shorter), and the pick among the best windows. Both ways
//! of finding candidates, anchor votes ([`super::anchors`]) and the full
//! scan ([`super::closest`]), score them here.

use std::collections::HashMap;

use similar::DiffTag;

use super::align::align;
use super::keys::{line_sim, FileLines, SLine};

/// Below this score no region is offered as `closest_match`.
pub(super) const MIN_SIMILARITY: f64 = 0.5;
/// Best-voted block starts that are scored precisely.
pub(crate) const CANDIDATES: usize = 12;

/// The best region found: `len` lines from line `start` (0-based).
#[derive(Debug, Clone, Copy)]
pub(super) struct Found {
    pub(super) start: usize,
    pub(super) len: usize,
    pub(super) score: f64,
}

pub(crate) struct GaveUp;

/// Cached keys of file lines, by line number.
#[derive(Default)]
pub(super) struct FKeys {
    cache: HashMap<usize, SLine>,
}

impl FKeys {
    pub(super) fn get(&mut self, j: usize, lines: &FileLines<'_>) -> &SLine {
        self.cache
            .entry(j)
            .or_insert_with(|| SLine::new(lines.line(j)))
    }
}

/// Score of a window of file lines against the block: weighted share of
/// lines aligned with an equal key, partial credit for changed lines.
fn window_score(s: &[SLine], f: &[&SLine]) -> f64 {
    let a: Vec<u64> = s.iter().map(|l| l.hash).collect();
    let b: Vec<u64> = f.iter().map(|l| l.hash).collect();
    let total: f64 = s.iter().map(|l| l.w).sum::<f64>() + f.iter().map(|l| l.w).sum::<f64>();
    let mut got = 0.0;
    for op in align(&a, &b) {
        let (tag, r1, r2) = op.as_tag_tuple();
        match tag {
            DiffTag::Equal => {
                got += r1.clone().map(|i| s[i].w).sum::<f64>() + r2.map(|j| f[j].w).sum::<f64>()
            }
            DiffTag::Replace => {
                for (i, j) in r1.zip(r2) {
                    got += line_sim(&s[i].key, &f[j].key) * (s[i].w + f[j].w);
                }
            }
            _ => {}
        }
    }
    if total == 0.0 {
        0.0
    } else {
        got / total
    }
}

/// The best window for a block that would start at line `start`: the
/// window itself, or one shifted by up to two lines, or up to two lines
/// longer or shorter (lines added or removed since). Only lines `lines`
/// holds are considered. Costs at most [`super::budget::window_cost`] units of work.
pub(super) fn best_window(
    s: &[SLine],
    start: isize,
    lines: &FileLines<'_>,
    keys: &mut FKeys,
) -> Option<Found> {
    let n = s.len() as isize;
    let shifts: &[isize] = if n <= 200 { &[0, -1, 1, -2, 2] } else { &[0] };
    let mut best: Option<Found> = None;
    for &ds in shifts {
        for &dl in shifts {
            let (st, len) = (start + ds, n + dl);
            if st < lines.lo() as isize || len < 1 || st + len > lines.hi() as isize {
                continue;
            }
            let (st, len) = (st as usize, len as usize);
            for j in st..st + len {
                keys.get(j, lines);
            }
            let f: Vec<&SLine> = (st..st + len).map(|j| &keys.cache[&j]).collect();
            let score = window_score(s, &f);
            if best.is_none_or(|b| score > b.score + 1e-9) {
                best = Some(Found {
                    start: st,
                    len,
                    score,
                });
            }
        }
    }
    best
}

/// The best of the windows found (the first one among equals) if it scores
/// at least [`MIN_SIMILARITY`], with its index and the start lines of the
/// other regions exactly as close (the block does not tell them apart).
pub(super) fn pick(bests: &[Found]) -> Option<(usize, Vec<usize>)> {
    let (at, best) = bests
        .iter()
        .copied()
        .enumerate()
        .reduce(|a, b| if b.1.score > a.1.score + 1e-9 { b } else { a })
        .filter(|(_, b)| b.score >= MIN_SIMILARITY)?;
    let mut equally: Vec<usize> = bests
        .iter()
        .filter(|b| {
            (b.score - best.score).abs() <= 1e-9
                && (b.start + b.len <= best.start || b.start >= best.start + best.len)
        })
        .map(|b| b.start)
        .collect();
    equally.sort_unstable();
    equally.dedup();
    Some((at, equally))
}

/// The region most like the block, if any scores at least [`MIN_SIMILARITY`].
pub(super) type Closest<'a> = (Found, Vec<usize>, FileLines<'a>);
