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

use std::collections::{HashMap, HashSet};

use similar::DiffOp;

use super::align::{align, char_ratio};
use super::budget::{window_cost, Budget};
use super::closest::region;
use super::keys::{FileLines, SLine};
use super::windows::Found;
use crate::text::lines::line_start;

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
    if n < 2 {
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

/// Lines a window may be short of the block's and still be filled up.
const FILL: usize = 2;

/// A window a line or two shorter than the block may have left out a line
/// the view changed at its start or end (a short line changed much: its
/// key no longer aligns, and a window without it scores better). The
/// windows as long as the block that cover it are tried; the one whose
/// text is most like the block character for character is the region, if
/// it is more like it than the window found.
pub(super) fn fill<'a>(
    text: &'a [u8],
    block: &str,
    n: usize,
    f: Found,
    lines: FileLines<'a>,
    budget: &Budget,
) -> (Found, FileLines<'a>) {
    if f.len >= n || n - f.len > FILL || budget.spend(window_cost(n) * (n - f.len + 1) as u64) {
        return (f, lines);
    }
    let missing = n - f.len;
    let wide = FileLines::around(
        text,
        lines.start(f.start),
        f.start,
        missing,
        f.len + missing,
    );
    let like = |g: Found| {
        let (a, b) = region(&wide, g, block.as_bytes());
        char_ratio(block, &String::from_utf8_lossy(&text[a..b]))
    };
    let mut best = (like(f), f);
    for start in f.start.saturating_sub(missing)..=f.start {
        let g = Found { start, len: n, ..f };
        if start < wide.lo() || start + n > wide.hi() {
            continue;
        }
        let sim = like(g);
        if sim > best.0 + 1e-9 {
            best = (sim, g);
        }
    }
    (best.1, wide)
}

/// A line's text without its line ending.
fn body(l: &[u8]) -> &[u8] {
    let l = l.strip_suffix(b"\n").unwrap_or(l);
    l.strip_suffix(b"\r").unwrap_or(l)
}

/// Block lines with some content that stand verbatim among `region`'s lines.
pub(super) fn verbatim_lines(search: &str, region: &[u8]) -> usize {
    let have: HashSet<&[u8]> = region.split_inclusive(|&b| b == b'\n').map(body).collect();
    search
        .as_bytes()
        .split_inclusive(|&b| b == b'\n')
        .map(body)
        .filter(|l| l.trim_ascii().len() >= 2 && have.contains(l))
        .collect::<HashSet<_>>()
        .len()
}

/// Distinct block lines looked for verbatim at most.
const VERBATIM_LINES: usize = 16;
/// Texts up to this size are searched for the place where a block's lines
/// stand verbatim (a pass per line; in larger texts the anchored search
/// alone finds the region).
const VERBATIM_BYTES: usize = 8 << 20;

/// Whether `text[p..p + len]` is a whole line (its line ending aside).
fn whole_line(text: &[u8], p: usize, len: usize) -> bool {
    let e = p + len;
    (p == 0 || text[p - 1] == b'\n')
        && (e == text.len()
            || text[e] == b'\n'
            || (text[e] == b'\r' && text.get(e + 1) == Some(&b'\n')))
}

/// The start of the line `up` lines above the one starting at `p` (or
/// `down` lines below it), clamped to the text.
fn lines_from(text: &[u8], mut p: usize, up: usize, down: usize) -> usize {
    for _ in 0..up {
        if p == 0 {
            break;
        }
        p = line_start(text, p - 1);
    }
    for _ in 0..down {
        match memchr::memchr(b'\n', &text[p.min(text.len())..]) {
            Some(k) => p += k + 1,
            None => return text.len(),
        }
    }
    p
}

/// The place outside `exclude` where the most distinct block lines stand
/// verbatim (whole lines, line endings aside) at the offsets the block
/// gives them: (byte range, its first line, how many). A `memmem` pass per
/// distinct line with content (the first [`VERBATIM_LINES`]), paid from the
/// budget, in texts up to [`VERBATIM_BYTES`].
pub(super) fn verbatim_place(
    text: &[u8],
    search: &str,
    exclude: (usize, usize),
    budget: &Budget,
) -> Option<((usize, usize), usize, usize)> {
    let block: Vec<&[u8]> = search
        .as_bytes()
        .split_inclusive(|&b| b == b'\n')
        .map(body)
        .collect();
    let mut index: HashMap<&[u8], Vec<usize>> = HashMap::new();
    for (i, l) in block.iter().enumerate() {
        if l.trim_ascii().len() >= 2 && (index.len() < VERBATIM_LINES || index.contains_key(l)) {
            index.entry(l).or_default().push(i);
        }
    }
    if text.len() > VERBATIM_BYTES
        || budget.spend((index.len() as u64 + 1) * (text.len() as u64 / 1024 + 1))
    {
        return None;
    }
    // Every whole-line occurrence outside `exclude`: (offset, line index
    // in the block).
    let mut hits: Vec<(usize, usize)> = Vec::new();
    for (l, is) in &index {
        for p in memchr::memmem::find_iter(text, l) {
            if whole_line(text, p, l.len()) && (p + l.len() <= exclude.0 || p >= exclude.1) {
                hits.extend(is.iter().map(|&i| (p, i)));
            }
        }
    }
    hits.sort_unstable();
    let mut votes: HashMap<isize, (HashSet<usize>, usize, usize)> = HashMap::new();
    let (mut line, mut at) = (0usize, 0usize);
    for &(p, i) in &hits {
        line += memchr::memchr_iter(b'\n', &text[at..p]).count();
        at = p;
        let v = votes
            .entry(line as isize - i as isize)
            .or_insert_with(|| (HashSet::new(), p, i));
        v.0.insert(i);
    }
    // A place's lines may have moved apart since the read (a line inserted
    // among them): the votes of the diagonals up to INSERTED lines further
    // down count for the first, the lines they name counted once.
    let (&first, got) = votes
        .keys()
        .map(|k| {
            let got: HashSet<usize> = (0..=INSERTED)
                .filter_map(|d| votes.get(&(k + d)))
                .flat_map(|v| v.0.iter().copied())
                .collect();
            (k, got.len())
        })
        .max_by_key(|&(k, n)| (n, std::cmp::Reverse(*k)))?;
    let (_, p, i) = votes[&first];
    let last = (0..=INSERTED)
        .rev()
        .find_map(|d| votes.get(&(first + d)))
        .expect("the first diagonal votes");
    let a = lines_from(text, p, i, 0);
    let b = lines_from(text, last.1, 0, block.len() - last.2);
    (first >= 0 && (b <= exclude.0 || a >= exclude.1)).then_some(((a, b), first as usize, got))
}

/// Lines a stale view's place may have had inserted among the block's
/// since it was read, for its lines to still count as one place.
const INSERTED: isize = 2;

/// Whether `votes` verbatim lines elsewhere outnumber the `own` of the
/// region found as evidence of the block's place: more than it has, at
/// least two, and most of the block's `content` lines (a single common line
/// standing verbatim proves nothing).
pub(super) fn outnumbers(votes: usize, own: usize, content: usize) -> bool {
    votes > own && votes >= 2 && votes * 2 > content
}

/// The block's own place when it is not the region found: where more of
/// the block's lines stand verbatim than in `found` (a window of `lines`),
/// most of those with content ([`outnumbers`]). A stale view's place keeps most of
/// the lines it was copied with, while a twin elsewhere may match every
/// line but for formatting; the agent needs its own place's text.
pub(super) fn own_place<'a>(
    text: &'a [u8],
    block: &str,
    found: Option<(Found, &FileLines<'a>)>,
    budget: &Budget,
) -> Option<(Found, FileLines<'a>)> {
    let n = block.split_inclusive('\n').count();
    let content = block
        .split_inclusive('\n')
        .filter(|l| l.trim().len() >= 2)
        .count();
    let exclude = found.map_or((0, 0), |(f, lines)| {
        (lines.start(f.start), lines.end(f.start + f.len - 1))
    });
    let own = verbatim_lines(block, &text[exclude.0..exclude.1]);
    let ((a, _), first, votes) = verbatim_place(text, block, exclude, budget)?;
    if !outnumbers(votes, own, content) {
        return None;
    }
    let score = found
        .map_or(0.0, |(f, _)| f.score)
        .max(votes as f64 / content.max(1) as f64);
    let lines = FileLines::around(text, a, first, 2, n + 2);
    let len = n.min(lines.hi() - first);
    Some((
        Found {
            start: first,
            len,
            score,
        },
        lines,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::likeness::keys::block_lines;

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
