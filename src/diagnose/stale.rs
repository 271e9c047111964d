//! Stale views: a block copied before the file changed. Lines were added
//! inside it since, or removed, or edited, so the region it was copied from
//! is no longer a window of the block's length: the best-scoring window of
//! about that length (what [`super::closest`] finds) then covers only part
//! of it, and its text is not what the agent needs to retry.
//!
//! The lines the change left alone still say where the region is. The
//! block's lines are aligned with the file's lines around the window found
//! (keys compared, a bounded number of lines either side), and the region
//! becomes the span from the first to the last block line found unchanged,
//! widened over the block's changed lines at either end where the
//! alignment pairs them with file lines. The wider span is taken only when
//! its unchanged lines are more than the window's and they still make up a
//! good share of it, so a formatting near miss (every line found) keeps its
//! window, and a few common lines far away never stretch the region.

use similar::DiffOp;

use super::align::align;
use super::closest::Found;
use super::keys::{FileLines, SLine};

/// Lines looked at either side of the window found, besides the block's
/// own length.
const REACH: usize = 24;

/// Block lines with at least this many key bytes anchor a region (blank
/// lines and lone braces match almost anywhere).
const ANCHOR_KEY: usize = 2;

/// Pairs (block line, window line) the alignment found equal, for block
/// lines long enough to anchor.
fn anchors(ops: &[DiffOp], s: &[SLine]) -> Vec<(usize, usize)> {
    ops.iter()
        .filter_map(|o| match *o {
            DiffOp::Equal {
                old_index,
                new_index,
                len,
            } => Some((0..len).map(move |k| (old_index + k, new_index + k))),
            _ => None,
        })
        .flatten()
        .filter(|&(i, _)| s[i].key.len() >= ANCHOR_KEY)
        .collect()
}

/// Window lines the alignment pairs (equal or changed) with block lines
/// before `i0` (at the head) or after `i1` (at the tail): the outermost
/// such line.
fn widen(ops: &[DiffOp], i0: usize, i1: usize) -> (Option<usize>, Option<usize>) {
    let (mut head, mut tail) = (None, None);
    for o in ops {
        if matches!(o, DiffOp::Replace { .. } | DiffOp::Equal { .. }) {
            let (old, new) = (o.old_range(), o.new_range());
            if old.start < i0 && !new.is_empty() {
                head = Some(head.map_or(new.start, |h: usize| h.min(new.start)));
            }
            if old.end > i1 + 1 && !new.is_empty() {
                tail = Some(tail.map_or(new.end - 1, |t: usize| t.max(new.end - 1)));
            }
        }
    }
    (head, tail)
}

/// The region the block's unchanged lines span around `found` (lines of
/// `lines`, a window of `text`), with the lines it covers, when it explains
/// more of the block than `found` does.
pub(super) fn span<'a>(
    text: &'a [u8],
    s: &[SLine],
    found: Found,
    lines: &FileLines<'a>,
) -> Option<(Found, FileLines<'a>)> {
    let n = s.len();
    if n < 3 {
        return None;
    }
    let reach = n + REACH;
    let wide = FileLines::around(
        text,
        lines.start(found.start),
        found.start,
        reach,
        found.len + reach,
    );
    let keys: Vec<SLine> = (wide.lo()..wide.hi())
        .map(|j| SLine::new(wide.line(j)))
        .collect();
    let (sh, fh): (Vec<u64>, Vec<u64>) = (
        s.iter().map(|l| l.hash).collect(),
        keys.iter().map(|l| l.hash).collect(),
    );
    let ops = align(&sh, &fh);
    let pairs = anchors(&ops, s);
    let (&(i0, j0), &(i1, j1)) = (pairs.first()?, pairs.last()?);
    let (head, tail) = widen(&ops, i0, i1);
    let first = head.filter(|&h| h < j0 && j0 - h <= i0 + 2).unwrap_or(j0);
    let last = tail
        .filter(|&t| t > j1 && t - j1 <= n - 1 - i1 + 2)
        .unwrap_or(j1);
    let len = last + 1 - first;
    // The window's own unchanged lines, counted the same way.
    let lo = found.start - wide.lo();
    let own = align(&sh, &fh[lo..lo + found.len]);
    let in_window = anchors(&own, s).len();
    if pairs.len() <= in_window || pairs.len() * 5 < len * 2 || len > 2 * n + REACH {
        return None;
    }
    let start = wide.lo() + first;
    Some((
        Found {
            start,
            len,
            score: found.score,
        },
        wide,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnose::keys::block_lines;

    fn sl(t: &str) -> Vec<SLine> {
        block_lines(t.as_bytes())
            .0
            .iter()
            .map(|l| SLine::new(l))
            .collect()
    }

    #[test]
    fn lines_added_inside_a_block_widen_its_region() {
        let text = "x\nfn main() {\n    let a = 1;\n    // 1\n    // 2\n    // 3\n    // 4\n    let b = 2;\n    let c = 30;\n    finish(a, b, c);\n}\ny\n";
        let s = sl("fn main() {\n    let a = 1;\n    let b = 2;\n    let c = 3;\n    finish(a, b, c);\n}\n");
        let all = FileLines::around(text.as_bytes(), 0, 0, 0, 12);
        // The window a search of the block's length would find: lines 8-12.
        let found = Found {
            start: 7,
            len: 5,
            score: 0.7,
        };
        let (f, _) = span(text.as_bytes(), &s, found, &all).expect("wider");
        assert_eq!((f.start, f.len), (1, 10));
        // A formatting near miss keeps its window.
        let s = sl("y\n");
        assert!(span(
            text.as_bytes(),
            &s,
            Found {
                start: 11,
                len: 1,
                score: 1.0
            },
            &all
        )
        .is_none());
    }
}
