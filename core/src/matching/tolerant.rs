//! Opt-in tolerant matching (`match: [...]`): find a search block that
//! differs from the file only in the tolerated kinds, still fail-closed.
//!
//! Exact matching always runs first (in [`crate::matching::exact`]); this module is
//! asked only when the block was not found byte for byte and the caller
//! opted in. Both the file and the block are normalized the same way —
//! line by line, so newlines stay one-to-one and a match maps back to
//! original bytes — and the normalized block must occur **exactly once**
//! (after the indentation check below), or nothing is written.
//!
//! | tolerance             | normalized away                                   |
//! |-----------------------|---------------------------------------------------|
//! | `line_endings`        | the `\r` of a CRLF line ending                    |
//! | `trailing_whitespace` | spaces and tabs at the end of each line           |
//! | `indentation`         | spaces and tabs at the start of each line, as long as the *relative* indentation of the block's lines agrees with the file's (a Python block cannot match lines nested differently) |
//! | `unicode_punctuation` | typographic punctuation → ASCII: curly quotes and primes, guillemets, dashes and minus signs, fullwidth forms, the ellipsis (the one table, [`crate::text::fold::PUNCTUATION`], that diagnosis and hunk locating use too) |
//!
//! Unicode spaces (no-break, thin, ideographic…) are not folded by any
//! tolerance: diagnosis names them `invisible_characters`, which no
//! tolerance forgives.
//!
//! The replacement is adapted to the region it replaces, line by line, and
//! every line it writes is either a line of the file, untouched, or the
//! caller's line re-indented as a whole (at most keeping tolerated file
//! bytes where the caller left them, below), never a splice of the two:
//!
//! - a line identical to a line of the block is taken from the file verbatim
//!   (so untouched lines keep the file's exact bytes);
//! - any other line is the caller's line, re-indented as a whole when the
//!   block's indentation differs from the file's: its leading whitespace is
//!   mapped from the block's depths to the file's, the rest is kept;
//! - where the caller changed part of a line whose file version differs from
//!   the block only in the other tolerated ways (a curly quote, trailing
//!   whitespace), those file bytes are kept at the positions the caller left
//!   alone, but only when the result still equals the caller's line under the
//!   tolerances and no punctuation the caller changed touches a kept mark
//!   the file writes otherwise (see [`merge_line`]); otherwise the caller's
//!   line is written as sent;
//! - line endings follow the region's.
//!
//! When the indentation of a caller's line cannot be mapped with certainty
//! (a block depth that stands for several file depths, or a step from such
//! a depth; a step that is not a whole number of the block's indentation
//! units; a depth left of the file's first column), nothing is written:
//! [`Reading::Uncertain`].
//!
//! A block whose first line has no indentation while the file's line has
//! some (an agent copies a block from where the text starts) is read two
//! ways: the first line's column 0 is the caller's depth for it, or it is
//! only where the copy started. The match compares the nesting from the
//! second line, so both readings find it. The replacement is placed by the
//! first reading only when the block's lines nest that way too (a caller's
//! line at that column 0 must then land where the first line and any other
//! block line at that column both are); else by the other lines alone, and
//! a caller's line at that column 0, other than the one that takes the
//! first line's place, must land at the first line's depth. Otherwise
//! nothing is written.

use crate::text::diff_ops::diff;
use memchr::memmem;
use similar::DiffTag;

use crate::likeness;
use crate::model::{MatchMode, Said, Tolerance, Unfitted, Unplaced};
use crate::result::diagnosis::Difference;
use crate::result::files::LineEnding;
use crate::text::fold::punct_ascii;
use crate::text::indent::{indent_pairs, lead, lines_of, same_shape, width, TAB_WIDTH};
use crate::text::lines::line_ending;
use crate::text::lines::line_start;

/// Most normalized occurrences examined before calling a block ambiguous.
const MAX_CANDIDATES: usize = 1000;
/// Occurrence lines kept for an ambiguous report.
const MAX_LINES: usize = 50;

/// The diagnosis kind a tolerance forgives.
fn kind_of(t: Tolerance) -> Difference {
    match t {
        Tolerance::LineEndings => Difference::LineEndings,
        Tolerance::TrailingWhitespace => Difference::TrailingWhitespace,
        Tolerance::Indentation => Difference::Indentation,
        Tolerance::UnicodePunctuation => Difference::UnicodePunctuation,
    }
}

/// The diagnosis kinds the tolerances of `m` forgive.
pub(crate) fn forgiven(m: MatchMode) -> Vec<Difference> {
    m.tolerances().into_iter().map(kind_of).collect()
}

/// A unique tolerant match and the adapted replacement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TolerantMatch {
    /// Byte range of the original text that is replaced.
    pub(crate) start: usize,
    pub(crate) end: usize,
    /// The replacement, adapted to the region's line endings and indentation.
    pub(crate) replacement: String,
    /// The tolerances the match needed.
    pub(crate) matched_with: Vec<Tolerance>,
}

/// A unique tolerant match whose replacement cannot be adapted with
/// certainty: refused, nothing is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Uncertain {
    /// Byte range of the original text the block matched.
    pub(crate) start: usize,
    pub(crate) end: usize,
    /// Why, naming the replacement line.
    pub(crate) why: Unfitted,
}

/// What tolerant matching found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Reading {
    /// No match even with the tolerances.
    None,
    /// Exactly one match.
    Unique(TolerantMatch),
    /// Exactly one match, but the replacement cannot be adapted to it with
    /// certainty.
    Uncertain(Uncertain),
    /// Several matches: byte offsets of the first few, and the count.
    Many(Vec<usize>, usize),
}

fn is_ws(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// Normalizes one line (`line` without its `\n`; `nl` whether a `\n`
/// follows) into `out`. With `map`, records for each output byte the source
/// byte range (relative to `base`) it came from.
fn norm_line(
    line: &[u8],
    nl: bool,
    m: MatchMode,
    out: &mut Vec<u8>,
    mut map: Option<&mut Vec<(usize, usize)>>,
    base: usize,
) {
    let mut body = line;
    let mut keep_cr = false;
    if nl && body.last() == Some(&b'\r') {
        body = &body[..body.len() - 1];
        keep_cr = !m.has(Tolerance::LineEndings);
    }
    let (mut lo, mut hi) = (0, body.len());
    if m.has(Tolerance::TrailingWhitespace) {
        while hi > lo && is_ws(body[hi - 1]) {
            hi -= 1;
        }
    }
    if m.has(Tolerance::Indentation) {
        while lo < hi && is_ws(body[lo]) {
            lo += 1;
        }
    }
    let mut push = |b: u8, s: usize, e: usize, map: &mut Option<&mut Vec<(usize, usize)>>| {
        out.push(b);
        if let Some(mp) = map.as_deref_mut() {
            mp.push((base + s, base + e));
        }
    };
    let mut i = lo;
    while i < hi {
        let b = body[i];
        if b < 0x80 || !m.has(Tolerance::UnicodePunctuation) {
            push(b, i, i + 1, &mut map);
            i += 1;
            continue;
        }
        let n = match b {
            0xC0..=0xDF => 2,
            0xE0..=0xEF => 3,
            0xF0..=0xF7 => 4,
            _ => 1,
        };
        let end = (i + n).min(hi);
        let mapped = std::str::from_utf8(&body[i..end])
            .ok()
            .and_then(|s| s.chars().next())
            .and_then(punct_ascii);
        match mapped {
            Some(a) => {
                for &x in a.as_bytes() {
                    push(x, i, end, &mut map);
                }
            }
            None => {
                for (k, &x) in body.iter().enumerate().take(end).skip(i) {
                    push(x, k, k + 1, &mut map);
                }
            }
        }
        i = end;
    }
    if keep_cr {
        // The CR of a line ending that is not tolerated stays, as a byte no
        // UTF-8 text has, so that a CR inside a line (left at its end once
        // trailing whitespace is dropped) never passes for it.
        push(0xFF, body.len(), body.len() + 1, &mut map);
    }
    if nl {
        // A tolerated CRLF folds to one `\n` that stands for both bytes, so
        // a match starting or ending at it takes the whole line ending,
        // never half of it.
        let from = if keep_cr { line.len() } else { body.len() };
        push(b'\n', from, line.len() + 1, &mut map);
    }
}

/// Normalizes a whole text.
fn normalize(text: &[u8], m: MatchMode) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    let mut pos = 0;
    loop {
        let nl = memchr::memchr(b'\n', &text[pos..]).map(|k| pos + k);
        let end = nl.unwrap_or(text.len());
        norm_line(&text[pos..end], nl.is_some(), m, &mut out, None, pos);
        match nl {
            Some(k) => pos = k + 1,
            None => break,
        }
    }
    out
}

/// Whether two texts are the same under the tolerances `ts` (the way a
/// tolerant match compares them).
pub(crate) fn same_under(a: &str, b: &str, ts: &[Tolerance]) -> bool {
    let m = MatchMode::with(ts);
    normalize(a.as_bytes(), m) == normalize(b.as_bytes(), m)
}

/// Maps normalized match ranges (ascending) to original byte ranges, or
/// `None` for a range whose ends split a folded character.
fn map_back(
    text: &[u8],
    norm: &[u8],
    ranges: &[(usize, usize)],
    m: MatchMode,
) -> Vec<Option<(usize, usize)>> {
    // Each boundary: (normalized position, is_end, range index).
    let mut points: Vec<(usize, bool, usize)> = Vec::with_capacity(ranges.len() * 2);
    for (k, &(s, e)) in ranges.iter().enumerate() {
        points.push((s, false, k));
        points.push((e - 1, true, k));
    }
    points.sort_unstable();
    let mut out: Vec<(Option<usize>, Option<usize>)> = vec![(None, None); ranges.len()];
    let (mut orig, mut nstart) = (0usize, 0usize);
    let mut map = Vec::new();
    let mut scratch = Vec::new();
    let mut pi = 0;
    while pi < points.len() {
        let nend = memchr::memchr(b'\n', &norm[nstart..]).map_or(norm.len(), |k| nstart + k + 1);
        let oend_nl = memchr::memchr(b'\n', &text[orig..]).map(|k| orig + k);
        let oend = oend_nl.unwrap_or(text.len());
        if points[pi].0 < nend {
            map.clear();
            scratch.clear();
            norm_line(
                &text[orig..oend],
                oend_nl.is_some(),
                m,
                &mut scratch,
                Some(&mut map),
                orig,
            );
            while pi < points.len() && points[pi].0 < nend {
                let (p, is_end, k) = points[pi];
                let i = p - nstart;
                let (s, e) = map[i];
                if is_end {
                    let whole = i + 1 >= map.len() || map[i + 1] != (s, e);
                    out[k].1 = whole.then_some(e);
                } else {
                    let whole = i == 0 || map[i - 1] != (s, e);
                    out[k].0 = whole.then_some(s);
                }
                pi += 1;
            }
        }
        match oend_nl {
            Some(k) => orig = k + 1,
            None => break,
        }
        nstart = nend;
    }
    out.into_iter().map(|(s, e)| Some((s?, e?))).collect()
}

fn at_line_start(text: &[u8], pos: usize) -> bool {
    pos == 0 || text[pos - 1] == b'\n'
}

/// The smallest step between distinct depths, if any.
fn unit(widths: impl Iterator<Item = usize>) -> Option<usize> {
    let mut w: Vec<usize> = widths.collect();
    w.sort_unstable();
    w.dedup();
    w.windows(2).map(|p| p[1] - p[0]).min()
}

/// Re-bases the indentation `ind` of a caller's line from the block's
/// indentation to the file's, as a whole, or says why that mapping is not
/// certain. `pairs` are the (block, file) indentations of the block lines
/// that say how the caller's depths map to the file's; `file` the file's
/// indentations of the region's lines (its style: tabs or spaces, its step,
/// its spelling of a depth).
fn rebase(
    ind: &str,
    pairs: &[(&str, &str)],
    file: &[&str],
    (s_hint, f_hint): (Option<usize>, Option<usize>),
) -> Result<String, Unplaced> {
    // A depth the block itself uses: the file's indentation of those lines.
    let mut same: Vec<&str> = pairs
        .iter()
        .filter(|(s, _)| *s == ind)
        .map(|(_, f)| *f)
        .collect();
    same.sort_unstable();
    same.dedup();
    match same.as_slice() {
        [f] => return Ok(f.to_string()),
        [] => {}
        several => return Err(Unplaced::LikeSeveral(several.len())),
    }
    let tabs = file.iter().any(|f| f.contains('\t'));
    // Where the lines show one depth, the step is the one the caller's
    // texts (`s_hint`) and the whole file (`f_hint`) take most.
    let s_unit = unit(pairs.iter().map(|(s, _)| width(s)))
        .or(s_hint)
        .unwrap_or(if pairs.iter().any(|(s, _)| s.contains('\t')) {
            TAB_WIDTH
        } else {
            4
        });
    let f_unit = unit(file.iter().map(|f| width(f)))
        .or(f_hint)
        .unwrap_or(if tabs { TAB_WIDTH } else { s_unit });
    let w = width(ind);
    let anchor = pairs
        .iter()
        .filter(|(s, _)| width(s) <= w)
        .max_by_key(|(s, _)| width(s))
        .or_else(|| pairs.iter().min_by_key(|(s, _)| width(s)));
    let Some((s, f)) = anchor else {
        return Ok(ind.to_string());
    };
    // The step is taken from a block depth: if the file indents the block's
    // lines of that depth in several ways, the step has no certain base.
    let mut bases: Vec<usize> = pairs
        .iter()
        .filter(|(s2, _)| width(s2) == width(s))
        .map(|(_, f)| width(f))
        .collect();
    bases.sort_unstable();
    bases.dedup();
    if bases.len() > 1 {
        return Err(Unplaced::RelativeToSeveral(bases.len()));
    }
    // The step from the anchor, in the block's columns, scaled to the file's
    // steps; a part of a step has no certain counterpart when they differ.
    let cols = w as isize - width(s) as isize;
    if s_unit != f_unit && cols % s_unit as isize != 0 {
        return Err(Unplaced::PartOfStep {
            cols: cols.unsigned_abs(),
            block_step: s_unit,
            file_step: f_unit,
        });
    }
    let new_w = width(f) as isize + cols * f_unit as isize / s_unit as isize;
    if new_w < 0 {
        return Err(Unplaced::LeftOfFile);
    }
    let new_w = new_w as usize;
    // The file's own spelling of that depth, when a line of the region has it.
    if let Some(f) = file.iter().find(|f| width(f) == new_w) {
        return Ok(f.to_string());
    }
    Ok(if tabs {
        // data: an indentation of tabs, then spaces
        format!(
            "{}{}",
            "\t".repeat(new_w / TAB_WIDTH),
            " ".repeat(new_w % TAB_WIDTH)
        )
    } else {
        " ".repeat(new_w)
    })
}

/// A candidate for a modified line's text (indentation excluded): the parts
/// the caller kept from block line `s` are taken from the file's line `f`
/// (which differs from `s` only in tolerated ways), the parts the caller
/// changed come from `r`. `None` when `r` is mostly new text. The caller
/// ([`modified_text`]) uses it only when it equals `r` under the
/// tolerances: where the boundary of a change is unclear, the file's bytes
/// can land on the wrong side of it.
fn merge_line(s: &str, r: &str, f: &str) -> Option<String> {
    let sc: Vec<char> = s.chars().collect();
    let rc: Vec<char> = r.chars().collect();
    let fc: Vec<char> = f.chars().collect();
    let sr = diff(&sc, &rc, None);
    if similar::get_diff_ratio(&sr, sc.len(), rc.len()) < 0.5 {
        return None;
    }
    // m[k]: the position in `f` of position `k` in `s` (before any
    // file-only characters there).
    let mut m = vec![usize::MAX; sc.len() + 1];
    // Characters of `s` the file writes otherwise (a folded mark, its dots).
    let mut folded = vec![false; sc.len()];
    let mut set = |k: usize, v: usize| {
        if m[k] == usize::MAX {
            m[k] = v;
        }
    };
    for op in diff(&sc, &fc, None) {
        let (tag, a, b) = op.as_tag_tuple();
        match tag {
            DiffTag::Equal => {
                for (n, k) in a.enumerate() {
                    set(k, b.start + n);
                }
            }
            DiffTag::Delete => {
                for k in a {
                    set(k, b.start);
                    folded[k] = true;
                }
            }
            DiffTag::Insert => set(a.start, b.start),
            DiffTag::Replace => {
                set(a.start, b.start);
                for k in a.start + 1..a.end {
                    set(k, b.end);
                }
                folded[a].iter_mut().for_each(|x| *x = true);
            }
        }
    }
    set(sc.len(), fc.len());
    // A change whose punctuation touches a kept character the file writes
    // otherwise (a `-` added beside the file's `–`: `-force` made `--force`,
    // a quote doubled, a dot added to an ellipsis) leaves it uncertain which
    // mark the caller changed; keeping the file's would write a line that is
    // neither the file's nor the caller's (`–-force`).
    let differs = |k: usize| folded.get(k).copied().unwrap_or(false);
    let mark =
        |c: Option<&char>| c.is_some_and(|c| c.is_ascii_punctuation() || punct_ascii(*c).is_some());
    for op in &sr {
        let (tag, a, c) = op.as_tag_tuple();
        if tag == DiffTag::Equal {
            continue;
        }
        let first = mark(rc[c.clone()].first()) || mark(sc[a.clone()].first());
        let last = mark(rc[c.clone()].last()) || mark(sc[a.clone()].last());
        if (first && a.start > 0 && differs(a.start - 1)) || (last && differs(a.end)) {
            return None;
        }
    }
    let mut out = String::with_capacity(f.len() + r.len());
    for op in &sr {
        let (tag, a, c) = op.as_tag_tuple();
        match tag {
            DiffTag::Equal => {
                // A kept line end keeps the file's end (e.g. its trailing
                // whitespace); elsewhere file-only characters at a boundary
                // go with what follows.
                let end = if a.end == sc.len() {
                    fc.len()
                } else {
                    m[a.end]
                };
                out.extend(&fc[m[a.start]..end.max(m[a.start])])
            }
            DiffTag::Insert | DiffTag::Replace => out.extend(&rc[c]),
            DiffTag::Delete => {}
        }
    }
    Some(out)
}

/// Normalizes a line's text (no line break) under `m`.
fn norm_text(s: &str, m: MatchMode) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    norm_line(s.as_bytes(), false, m, &mut out, None, 0);
    out
}

/// The text after the indentation of a caller's line `r` that modifies
/// block line `s`, whose file version is `f` (all three without their
/// indentation): `r`, or `r` keeping the file's bytes where the caller kept
/// `s` and the file differs from it in tolerated ways, when that still
/// equals `r` under the tolerances.
fn modified_text(s: &str, r: &str, f: &str, m: MatchMode) -> String {
    if s == f {
        return r.to_string();
    }
    match merge_line(s, r, f) {
        Some(merged) if norm_text(&merged, m) == norm_text(r, m) => merged,
        _ => r.to_string(),
    }
}

/// The lines of a text without their line endings (a CR before an LF is
/// part of the ending), and each line's ending (`None` for a last line
/// without one).
fn split_ends(t: &str) -> (Vec<String>, Vec<Option<&'static str>>) {
    let raw = lines_of(t);
    let n = raw.len();
    raw.iter()
        .enumerate()
        .map(|(i, l)| {
            if i + 1 == n && !t.ends_with('\n') {
                (l.to_string(), None)
            } else if let Some(c) = l.strip_suffix('\r') {
                (c.to_string(), Some("\r\n"))
            } else {
                (l.to_string(), Some("\n"))
            }
        })
        .unzip()
}

/// The lines joined, each with its ending: `own`, or for a line without
/// one the ending of the nearest line before it that has one (or after
/// it), `default` when there is none; the last line gets one only when
/// `final_break`.
fn join_with_endings(
    out: &[String],
    own: &[Option<&'static str>],
    default: &'static str,
    final_break: bool,
) -> String {
    let mut s = String::with_capacity(out.iter().map(|l| l.len() + 2).sum());
    for (j, line) in out.iter().enumerate() {
        s.push_str(line);
        if j + 1 == out.len() && !final_break {
            break;
        }
        let nl = own[j]
            .or_else(|| own[..j].iter().rev().flatten().next().copied())
            .or_else(|| own[j + 1..].iter().flatten().next().copied())
            .unwrap_or(default);
        s.push_str(nl);
    }
    s
}

/// For each replacement line: the block line it repeats, and the block
/// line it modifies. Within a run of changed lines, each new line is paired
/// with the old line it is most like (keeping their order), so a line
/// changed among lines removed is paired with the line it changes.
///
/// The diff is bounded by [`ROLES_BUDGET`] (Myers costs the lines times the
/// differences: 20,000 lines all changed took 9 s); a diff cut short is no
/// least one, and roles read from it would not be certain: `Err`.
#[allow(clippy::type_complexity)]
fn line_roles(
    s_lines: &[String],
    p_lines: &[String],
) -> Result<(Vec<Option<usize>>, Vec<Option<usize>>), Unfitted> {
    let mut same: Vec<Option<usize>> = vec![None; p_lines.len()];
    let mut edited: Vec<Option<usize>> = vec![None; p_lines.len()];
    let started = std::time::Instant::now();
    let ops = diff(s_lines, p_lines, Some(started + ROLES_BUDGET));
    if started.elapsed() >= ROLES_BUDGET {
        return Err(Unfitted::TooLarge {
            lines: s_lines.len() + p_lines.len(),
        });
    }
    for op in ops {
        let (tag, r1, r2) = op.as_tag_tuple();
        match tag {
            DiffTag::Equal => {
                for (i, j) in r1.zip(r2) {
                    same[j] = Some(i);
                }
            }
            DiffTag::Replace => {
                for (i, j) in pair_changed(&s_lines[r1.clone()], &p_lines[r2.clone()]) {
                    edited[r2.start + j] = Some(r1.start + i);
                }
            }
            _ => {}
        }
    }
    Ok((same, edited))
}

/// Longest the line diff pairing a replacement's lines with the block's
/// may take.
const ROLES_BUDGET: std::time::Duration = std::time::Duration::from_millis(500);

/// An order-keeping pairing of old and new changed lines that makes the
/// paired lines most alike in total (a small dynamic program; long runs
/// are paired in order).
fn pair_changed(old: &[String], new: &[String]) -> Vec<(usize, usize)> {
    let (n, m) = (old.len(), new.len());
    if n == m || n * m > 2500 {
        return (0..n.min(m)).map(|k| (k, k)).collect();
    }
    let sim = |a: &str, b: &str| -> f64 {
        let (x, y): (Vec<char>, Vec<char>) =
            (a.trim().chars().collect(), b.trim().chars().collect());
        let ops = diff(&x, &y, None);
        f64::from(similar::get_diff_ratio(&ops, x.len(), y.len()))
    };
    // best[i][j]: the best total pairing old[i..] with new[j..].
    let mut best = vec![vec![0.0f64; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            let pair = sim(&old[i], &new[j]) + best[i + 1][j + 1];
            best[i][j] = pair.max(best[i + 1][j]).max(best[i][j + 1]);
        }
    }
    let (mut i, mut j, mut out) = (0, 0, Vec::new());
    while i < n && j < m {
        if best[i][j] == best[i + 1][j] {
            i += 1;
        } else if best[i][j] == best[i][j + 1] {
            j += 1;
        } else {
            out.push((i, j));
            i += 1;
            j += 1;
        }
    }
    out
}

/// How the caller's indentation maps to the file's in a matched region.
struct Indents<'a> {
    /// (block, file) indentations of the lines that start a file line.
    pairs: Vec<(&'a str, &'a str)>,
    /// The file's indentations of those lines.
    file: Vec<&'a str>,
    /// The caller's lines are re-indented (`indentation` is tolerated and
    /// the block's indentation differs from the file's).
    reindent: bool,
    /// The block's first line was sent without the indentation the file
    /// gives it: `first`.
    stripped: bool,
    first: &'a str,
    /// The pairs of the block's other lines, when the first line's column 0
    /// is not the caller's depth for it (see below).
    others: Option<Vec<(&'a str, &'a str)>>,
    /// The block's lines nest as the file's do (a tolerant match asks it;
    /// a patch hunk, placed by its lines' text alone, may not).
    shaped: bool,
    /// The step of the caller's texts and of the whole file, for lines
    /// that show one depth ([`usual_step`]).
    hints: (Option<usize>, Option<usize>),
}

impl<'a> Indents<'a> {
    fn new(search: &'a str, region: &'a str, starts_line: bool, m: MatchMode) -> Self {
        let pairs = indent_pairs(search, region, starts_line);
        let reindent = m.has(Tolerance::Indentation) && pairs.iter().any(|(s, f)| s != f);
        let file = pairs.iter().map(|(_, f)| *f).collect();
        // The block's first line sent without the indentation the file
        // gives it (the match was widened to the start of that line): its
        // column 0 is that line's depth only if the block's lines nest that
        // way, as they were not required to (the nesting is compared from
        // the second line). When they do not, the other lines alone say how
        // the caller's depths map.
        let first = lines_of(region).first().map_or("", |r| lead(r));
        let stripped = reindent
            && starts_line
            && !first.is_empty()
            && lines_of(search)
                .first()
                .is_some_and(|s| !s.trim().is_empty() && lead(s).is_empty());
        let shaped = same_shape(&pairs);
        let others = (stripped && !shaped).then(|| indent_pairs(search, region, false));
        Indents {
            shaped,
            hints: (None, None),
            pairs,
            file,
            reindent,
            stripped,
            first,
            others,
        }
    }

    /// The file's indentation for a caller's line indented `ind`, or why
    /// it has no certain one.
    fn place(&self, ind: &str) -> Result<String, Unplaced> {
        let Some(others) = &self.others else {
            // Where the block nests otherwise than the file (one line
            // steps in where the other stays level), no depth is certain.
            if !self.shaped {
                return Err(Unplaced::NestedOtherwise);
            }
            return rebase(ind, &self.pairs, &self.file, self.hints);
        };
        let f = rebase(ind, others, &self.file, self.hints)?;
        // The first line's column 0 may still be where the caller meant
        // this line: certain only where both put it.
        if ind.is_empty() && f != self.first {
            return Err(Unplaced::LikeStrippedFirst);
        }
        Ok(f)
    }

    /// The steps of the caller's texts and of the whole file, where the
    /// lines are re-indented and those here or the block's show one depth
    /// (the whole file is scanned only then).
    fn learn_steps(&mut self, text: &[u8], texts: (&str, &str)) {
        if self.reindent && self.steps_shown() != (true, true) {
            self.hints = step_hints(text, texts);
        }
    }

    /// Whether the block's lines (its other lines too, where its first was
    /// sent without its indentation) and the file's show a step each:
    /// [`rebase`] then needs no hint.
    fn steps_shown(&self) -> (bool, bool) {
        let block = |ps: &[(&str, &str)]| unit(ps.iter().map(|p| width(p.0))).is_some();
        (
            block(&self.pairs) && self.others.as_deref().is_none_or(block),
            unit(self.file.iter().map(|f| width(f))).is_some(),
        )
    }
}

/// `Some(true)` when every indented line of `text` is indented with tabs
/// (spaces after them align: a Makefile recipe's continuation, a
/// kernel-style call's arguments), `Some(false)` with spaces alone; `None`
/// for both, or none.
fn pure_style(text: &str) -> Option<bool> {
    let mut seen = None;
    for l in lines_of(text) {
        let ind = lead(l);
        if ind.is_empty() || l.trim().is_empty() {
            continue;
        }
        let tabs = match style(ind) {
            (true, _) if ind.trim_start_matches('\t').bytes().all(|b| b == b' ') => true,
            (false, true) => false,
            _ => return None,
        };
        if seen.is_some_and(|s| s != tabs) {
            return None;
        }
        seen = Some(tabs);
    }
    seen
}

/// The step between the depths of consecutive lines that occurs most
/// (blank lines aside; ties to the smaller): a file's indentation unit,
/// which the lines of one depth a block shows cannot tell (`None`: no
/// line steps in).
fn usual_step<'a>(lines: impl Iterator<Item = &'a str>) -> Option<usize> {
    let mut count: std::collections::BTreeMap<usize, usize> = Default::default();
    let mut last: Option<usize> = None;
    for l in lines.filter(|l| !l.trim().is_empty()) {
        let w = width(lead(l));
        if let Some(p) = last.filter(|&p| w > p) {
            *count.entry(w - p).or_default() += 1;
        }
        last = Some(w);
    }
    count
        .into_iter()
        .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0)))
        .map(|(step, _)| step)
}

/// The steps the caller's texts and the whole file take most
/// ([`usual_step`]).
fn step_hints(text: &[u8], (search, replace): (&str, &str)) -> (Option<usize>, Option<usize>) {
    let caller = lines_of(search).into_iter().chain(lines_of(replace));
    let file = text
        .split(|&b| b == b'\n')
        .map(|l| std::str::from_utf8(l).unwrap_or(""));
    (usual_step(caller), usual_step(file))
}

/// Whether an indentation is made of tabs, of spaces, or of both.
fn style(ind: &str) -> (bool, bool) {
    (ind.contains('\t'), ind.contains(' '))
}

/// A replacement that keeps a block line's text but indents it in another
/// style (tabs to spaces, or back) converts the block's indentation: its
/// new lines are then in the style the caller means, which re-indenting
/// them in the file's style would undo, and which one is meant cannot be
/// known once the block's indentation is tolerated. `Err` says why.
fn restyled(s_lines: &[String], p_lines: &[String]) -> Result<(), Unfitted> {
    // The first indented search line of each text, by indentation style
    // (one pass: a scan of the search per replacement line cost their
    // product, seconds for blocks of 10,000 lines).
    let mut first: std::collections::HashMap<&str, [Option<usize>; 4]> = Default::default();
    let slot = |ind: &str| {
        let (t, s) = style(ind);
        usize::from(t) * 2 + usize::from(s)
    };
    for (i, s) in s_lines.iter().enumerate() {
        let s_ind = lead(s);
        if !s_ind.is_empty() {
            first.entry(s.trim_start()).or_default()[slot(s_ind)].get_or_insert(i);
        }
    }
    for (j, p) in p_lines.iter().enumerate() {
        let (p_ind, text) = (lead(p), p.trim_start());
        if p_ind.is_empty() || text.is_empty() {
            continue;
        }
        let own = slot(p_ind);
        let other = first
            .get(text)
            .and_then(|at| (0..4).filter(|&k| k != own).filter_map(|k| at[k]).min());
        if let Some(i) = other {
            return Err(Unfitted::Restyled {
                j,
                line: p.clone(),
                i,
                styles: (style_name(p_ind), style_name(lead(&s_lines[i]))),
            });
        }
    }
    Ok(())
}

fn style_name(ind: &str) -> &'static str {
    match style(ind) {
        (true, false) => "tabs",
        (false, true) => "spaces",
        _ => "tabs and spaces",
    }
}

/// The line break of a replacement line that has none of its own: the
/// region's (or the file's) where line endings are tolerated, else LF.
fn default_break(text: &[u8], region: &str, le: bool) -> &'static str {
    if !le {
        "\n"
    } else if region.contains("\r\n") {
        "\r\n"
    } else if region.contains('\n') {
        "\n"
    } else if line_ending(text) == LineEnding::Crlf {
        "\r\n"
    } else {
        "\n"
    }
}

/// The replacement adapted to the region it replaces (see the module
/// docs), or why it cannot be adapted with certainty.
fn adapt(
    text: &[u8],
    start: usize,
    region: &str,
    search: &str,
    replace: &str,
    m: MatchMode,
) -> Result<String, Unfitted> {
    let le = m.has(Tolerance::LineEndings);
    let default_nl = default_break(text, region, le);
    // Lines without their endings (compared by content); each line's
    // ending.
    let (s_lines, s_ends) = split_ends(search);
    let (r_lines, r_ends) = split_ends(region);
    // Where the block's lines end as the region's do (a block with line
    // breaks), its line endings needed no tolerance: the caller's own
    // endings are the file's, and a line whose ending the caller changed
    // (CRLF to LF) keeps the new one, when that leaves the file with one
    // kind: a file that uses one kind throughout, a line break of it kept
    // outside the region, takes no line break of the other kind (a search
    // copied from a read of a CRLF file has CRLF, the replacement typed
    // after it LF).
    let le = le
        && (s_ends != r_ends
            || s_ends.iter().all(Option::is_none)
            || would_mix(text, (start, start + region.len()), replace));
    let (p_lines, p_ends) = split_ends(replace);
    let starts_line = at_line_start(text, start);
    // The file's text on the region's first line before the match.
    let line_start = line_start(text, start);
    let before = std::str::from_utf8(&text[line_start..start]).unwrap_or("");
    let mut indents = Indents::new(search, region, starts_line, m);
    indents.learn_steps(text, (search, replace));
    let reindent = indents.reindent;
    if reindent {
        restyled(&s_lines, &p_lines)?;
    }
    let mut out: Vec<String> = Vec::with_capacity(p_lines.len());
    let mut from: Vec<Option<usize>> = Vec::with_capacity(p_lines.len());
    let (same, edited) = line_roles(&s_lines, &p_lines)?;
    for (j, line) in p_lines.iter().enumerate() {
        // A line the caller kept is the file's line, whole: moved off the
        // region's partial first line, with the text before the match on
        // that line; moved onto it, without that text (which must then
        // start the file's line, or the line cannot be kept as it is).
        if let Some(i) = same[j].filter(|&i| i < r_lines.len()) {
            let kept = match (starts_line, i == 0, j == 0) {
                (false, true, false) => {
                    // data: the file's first line, with the text before the match
                    Some(format!("{before}{}", r_lines[0]))
                }
                (false, false, true) => r_lines[i].strip_prefix(before).map(str::to_string),
                _ => Some(r_lines[i].clone()),
            };
            // Moved, it must still be the caller's line under the
            // tolerances (the text before the match is not always
            // whitespace the caller may leave out).
            let moved = !starts_line && (i == 0) != (j == 0);
            let kept = kept.filter(|k| !moved || norm_text(k, m) == norm_text(line, m));
            let Some(kept) = kept else {
                return Err(Unfitted::RepeatsInside {
                    j,
                    line: line.clone(),
                    i,
                });
            };
            out.push(kept);
            from.push(Some(i));
            continue;
        }
        let ind = lead(line);
        let rest = &line[ind.len()..];
        let at_start = j > 0 || starts_line;
        // A modified line that keeps the indentation of the block line it
        // modifies takes that file line's indentation (of a first line sent
        // without its indentation, only the line that takes its place: the
        // column 0 of any other line may stand for another depth). An empty
        // line keeps nothing: it has no indentation to keep.
        let kept = edited[j]
            .filter(|_| !line.is_empty())
            .filter(|&i| i > 0 || (starts_line && !(indents.stripped && j > 0)))
            .and_then(|i| Some((s_lines.get(i)?, r_lines.get(i)?)))
            .filter(|(s, f)| lead(s) == ind && !f.trim().is_empty())
            .map(|(_, f)| lead(f).to_string());
        let new_ind = match kept {
            Some(f_ind) if reindent && at_start => f_ind,
            // (A line of whitespace alone is re-indented too: the caller's
            // whitespace there is in the caller's style, not the file's.)
            _ if reindent && at_start && !(rest.trim().is_empty() && ind.is_empty()) => {
                indents.place(ind).map_err(|why| Unfitted::Unplaced {
                    j,
                    line: line.clone(),
                    why,
                })?
            }
            _ => ind.to_string(),
        };
        let rest = match edited[j].and_then(|i| Some((s_lines.get(i)?, r_lines.get(i)?))) {
            Some((s, f)) => modified_text(&s[lead(s).len()..], rest, &f[lead(f).len()..], m),
            None => rest.to_string(),
        };
        out.push(new_ind + &rest);
        from.push(edited[j].filter(|&i| i < r_lines.len()));
    }
    // Line endings are the region's where they are tolerated (each line
    // the ending of the region line it comes from), else the caller's.
    let own: Vec<Option<&'static str>> = if le {
        from.iter().map(|i| i.and_then(|i| r_ends[i])).collect()
    } else {
        p_ends
    };
    Ok(join_with_endings(
        &out,
        &own,
        default_nl,
        replace.ends_with('\n'),
    ))
}

/// The new lines of a patch hunk whose old lines were found at `start`
/// only with their leading whitespace forgiven (`region`: the file's text
/// of those lines), re-indented as a replacement of a tolerant match is
/// (see the module docs): `old` and `new` are the hunk's two sides. `None`
/// unless the hunk's lines are indented in one style (tabs, or spaces) and
/// the file's there in the other: the new lines are then written as sent.
/// A Go file indented with tabs patched with spaces: the added lines take
/// the file's depth and style, or nothing is written.
pub(crate) fn reindented_hunk(
    text: &[u8],
    start: usize,
    region: &str,
    (old, new): (&str, &str),
    punctuation: bool,
) -> Result<Option<Vec<String>>, Unfitted> {
    let mut ts = vec![
        Tolerance::LineEndings,
        Tolerance::TrailingWhitespace,
        Tolerance::Indentation,
    ];
    if punctuation {
        ts.push(Tolerance::UnicodePunctuation);
    }
    let m = MatchMode::with(&ts);
    // Only a change of style is re-indented: a patch whose lines are
    // indented at another depth of the same style may be the file's depth
    // with the context lines mistyped (added lines are written as sent).
    let (o, r) = (pure_style(old), pure_style(region));
    let indents = Indents::new(old, region, true, m);
    if o.is_none() || r.is_none() || o == r || !indents.reindent {
        return Ok(None);
    }
    // With one depth on either side and no step in the patch's lines or the
    // file to learn from, the step is not known: a new line at another depth
    // than the old lines' has no certain one (not guessed).
    let pairs = &indents.pairs;
    let steps = |w: fn(&(&str, &str)) -> usize| unit(pairs.iter().map(w)).is_some();
    let (s_shown, f_shown) = (steps(|p| width(p.0)), steps(|p| width(p.1)));
    let unknown = !(s_shown && f_shown) && {
        let (caller, file) = step_hints(text, (old, new));
        (!s_shown && caller.is_none()) || (!f_shown && file.is_none())
    };
    if unknown {
        let shown: std::collections::HashSet<&str> = pairs.iter().map(|p| p.0).collect();
        let deeper = lines_of(new)
            .into_iter()
            .enumerate()
            .find(|(_, l)| !l.trim().is_empty() && !shown.contains(lead(l)));
        if let Some((j, line)) = deeper {
            return Err(Unfitted::Unplaced {
                j,
                line: line.trim_end_matches('\r').to_string(),
                why: Unplaced::NoStep,
            });
        }
    }
    // Only the indentation is the file's: the rest of each line is sent.
    let adapted = adapt(text, start, region, old, new, m)?;
    let (a, n) = (split_ends(&adapted).0, split_ends(new).0);
    if a.len() != n.len() {
        return Ok(None);
    }
    Ok(Some(
        a.iter()
            .zip(&n)
            .map(|(a, n)| [lead(a), &n[lead(n).len()..]].concat())
            .collect(),
    ))
}

/// The fewest tolerances of `m` under which the region matches the block
/// and the adapted replacement is the caller's (`matched_with`): the
/// differences this match really forgave, on either side. Those the block
/// and the region differ in come first (as diagnosis names them).
fn needed(
    search: &str,
    region: &str,
    replace: &str,
    adapted: &str,
    m: MatchMode,
) -> Vec<Tolerance> {
    let all = m.tolerances();
    let kinds: Vec<Difference> = likeness::classify(search, region, 1, Said::CANONICAL.search)
        .into_iter()
        .map(|d| d.kind)
        .collect();
    let mut subsets: Vec<Vec<Tolerance>> = (1u32..1 << all.len())
        .map(|bits| {
            all.iter()
                .enumerate()
                .filter(|(k, _)| bits & (1 << k) != 0)
                .map(|(_, t)| *t)
                .collect()
        })
        .collect();
    let named = |ts: &Vec<Tolerance>| ts.iter().filter(|t| !kinds.contains(&kind_of(**t))).count();
    subsets.sort_by_key(|ts| (ts.len(), named(ts)));
    subsets
        .into_iter()
        .find(|ts| {
            let sub = MatchMode::with(ts);
            normalize(region.as_bytes(), sub) == normalize(search.as_bytes(), sub)
                && normalize(adapted.as_bytes(), sub) == normalize(replace.as_bytes(), sub)
        })
        .unwrap_or(all)
}

/// The region of `text` a normalized match at `s..e` names, widened by the
/// whitespace the normalization dropped at its ends, or `None` when the
/// block cannot name it (it starts mid-line with indentation of its own, or
/// its lines do not nest as the file's do).
fn fit_region(
    text: &[u8],
    s: usize,
    e: usize,
    search: &str,
    m: MatchMode,
) -> Option<(usize, usize)> {
    let (mut s, mut e) = (s, e);
    let sbytes = search.as_bytes();
    let first_ws = sbytes.first().is_some_and(|&b| is_ws(b));
    let last_line_ws = !search.ends_with('\n') && sbytes.last().is_some_and(|&b| is_ws(b));
    // Where the block's lines are compared for their nesting: from its
    // first line when it has indentation of its own, else from the second
    // (the first starts where the file's indentation ends).
    let mut shape_from = s;
    // Whitespace the normalization dropped at the block's ends belongs to
    // the region when the block had some there; and the indentation of the
    // line the block starts on does when nothing else precedes the block on
    // that line (the block names the whole line, and its indentation is
    // what the tolerance forgives).
    let line = line_start(text, s);
    let at_indent = text[line..s].iter().all(|&b| is_ws(b));
    // A block that starts with a line break names a blank line (or the
    // end of the line before its own): not the end of a line with text, met
    // only because a tolerance forgave the line break or the whitespace
    // between (a line added there since the block was read).
    if (search.starts_with('\n') || search.starts_with("\r\n")) && !at_indent {
        return None;
    }
    if m.has(Tolerance::Indentation) {
        // A block that starts with indentation names a whole line: it does
        // not match the end of a line that has other text first.
        if first_ws && !at_indent {
            return None;
        }
        if at_indent {
            s = line;
        }
        if first_ws {
            shape_from = s;
        }
    }
    // (Whitespace the indentation tolerance drops, too, when the block's
    // last line is only whitespace.)
    let ws_line = search
        .rsplit('\n')
        .next()
        .is_some_and(|l| l.bytes().all(is_ws));
    if last_line_ws
        && (m.has(Tolerance::TrailingWhitespace) || (ws_line && m.has(Tolerance::Indentation)))
    {
        while e < text.len() && is_ws(text[e]) {
            e += 1;
        }
    }
    // A block whose last line stops where the file's line has only trailing
    // whitespace left ends at the end of that line: the whitespace belongs
    // to the line the block names, not to whatever the replacement puts
    // after it.
    if m.has(Tolerance::TrailingWhitespace) && !search.ends_with('\n') {
        let rest = &text[e..memchr::memchr(b'\n', &text[e..]).map_or(text.len(), |k| e + k)];
        let rest = rest.strip_suffix(b"\r").unwrap_or(rest);
        if !rest.is_empty() && rest.iter().all(|&b| is_ws(b)) {
            e += rest.len();
        }
    }
    if m.has(Tolerance::Indentation) {
        let region = std::str::from_utf8(&text[shape_from..e]).ok()?;
        if !same_shape(&indent_pairs(
            search,
            region,
            at_line_start(text, shape_from),
        )) {
            return None;
        }
    }
    Some((s, e))
}

/// Finds `search` in `text` (valid UTF-8) under the tolerances of `m`.
/// Call only after an exact search found nothing.
pub(crate) fn find(text: &[u8], search: &str, replace: &str, m: MatchMode) -> Reading {
    if m.is_exact() {
        return Reading::None;
    }
    let nsearch = normalize(search.as_bytes(), m);
    if nsearch.iter().all(|b| b.is_ascii_whitespace()) {
        return Reading::None;
    }
    let norm = normalize(text, m);
    let mut ranges = Vec::new();
    let mut total = 0usize;
    // A match may not start between the CR and the LF of a line ending
    // that is not tolerated (the block's first line empty): that would
    // split the line ending.
    for p in memmem::find_iter(&norm, &nsearch).filter(|&p| p == 0 || norm[p - 1] != 0xFF) {
        total += 1;
        if ranges.len() < MAX_CANDIDATES {
            ranges.push((p, p + nsearch.len()));
        }
    }
    if total == 0 {
        return Reading::None;
    }
    let good: Vec<(usize, usize)> = map_back(text, &norm, &ranges, m)
        .into_iter()
        .flatten()
        .filter_map(|(s, e)| fit_region(text, s, e, search, m))
        .collect();
    let extra = total - ranges.len();
    match (good.len(), extra) {
        (0, 0) => Reading::None,
        (1, 0) => {
            let (s, e) = good[0];
            let region = String::from_utf8_lossy(&text[s..e]).into_owned();
            let replacement = match adapt(text, s, &region, search, replace, m) {
                Ok(r) => r,
                Err(why) => {
                    return Reading::Uncertain(Uncertain {
                        start: s,
                        end: e,
                        why,
                    })
                }
            };
            let matched_with = needed(search, &region, replace, &replacement, m);
            Reading::Unique(TolerantMatch {
                start: s,
                end: e,
                replacement,
                matched_with,
            })
        }
        (n, extra) => Reading::Many(
            good.iter().take(MAX_LINES).map(|r| r.0).collect(),
            n + extra,
        ),
    }
}

/// Whether `replace`, written over `text[from..to]`, would leave the text
/// with both kinds of line break: the text uses one kind throughout, keeps
/// one outside the range (or the CR of one), and `replace` has one of the
/// other kind.
fn would_mix(text: &[u8], range: (usize, usize), replace: &str) -> bool {
    keeps_a_break(text, range) && breaks_other_than(replace, line_ending(text))
}

/// Whether `text` keeps a line break outside `from..to`: one before or
/// after it, or the CR of a CRLF whose LF the range starts with.
fn keeps_a_break(text: &[u8], (from, to): (usize, usize)) -> bool {
    memchr::memchr(b'\n', &text[..from]).is_some()
        || text[..from].ends_with(b"\r")
        || memchr::memchr(b'\n', &text[to.min(text.len())..]).is_some()
}

/// `replace` with each LF that no CR precedes made CRLF (`after_cr`: the
/// text before it ends with a CR).
fn crlf_breaks(replace: &str, after_cr: bool) -> String {
    let mut out = String::with_capacity(replace.len() + replace.len() / 16);
    let mut prev = if after_cr { '\r' } else { '\0' };
    for c in replace.chars() {
        if c == '\n' && prev != '\r' {
            out.push('\r');
        }
        out.push(c);
        prev = c;
    }
    out
}

/// [`reended`] for an edit that replaces `found` occurrences (`replace_all`,
/// `expected_replacements`) found as sent with the file's CRLF (or found
/// as sent and holding no line break): the
/// replacement with its LF breaks made CRLF, when the file uses CRLF
/// throughout, keeps a line break outside the occurrences, and the search
/// neither starts with an LF nor ends with a CR (no occurrence starts or
/// ends inside a CRLF). In a file that uses LF throughout, the same for a
/// search without a CR: the replacement's CRLF breaks made LF. `None`:
/// written as sent.
pub(crate) fn reended_each(
    text: &[u8],
    (search, replace): (&str, &str),
    found: usize,
    m: MatchMode,
) -> Option<String> {
    if !may_reend(replace, m) {
        return None;
    }
    let per = || memchr::memchr_iter(b'\n', search.as_bytes()).count();
    let keeps_a_break = || {
        memchr::memchr_iter(b'\n', text)
            .nth(found.saturating_mul(per()))
            .is_some()
    };
    // A search with the file's CRLF, or with no line break or CR at all
    // (`a();` replaced by `a();\nb();` everywhere).
    let crlf = (search.contains("\r\n") || !search.contains(['\n', '\r']))
        && !search.starts_with('\n')
        && !search.ends_with('\r')
        && breaks_other_than(replace, LineEnding::Crlf);
    let lf = !search.contains('\r') && breaks_other_than(replace, LineEnding::Lf);
    if !crlf && !lf {
        return None;
    }
    match line_ending(text) {
        LineEnding::Crlf if crlf && keeps_a_break() => Some(crlf_breaks(replace, false)),
        LineEnding::Lf if lf && keeps_a_break() => Some(replace.replace("\r\n", "\n")),
        _ => None,
    }
}

/// Whether [`reended`] may adapt an edit's replacement under `m`: line
/// endings tolerated and a replacement with line breaks. The search's
/// breaks do not matter: a search copied from a read of a CRLF file has
/// CRLF, and the replacement typed after it LF (its new lines would leave
/// the file with both kinds).
pub(crate) fn may_reend(replace: &str, m: MatchMode) -> bool {
    m.has(Tolerance::LineEndings) && replace.contains('\n')
}

/// Whether `replace` has a line break of the other kind than `eol`, the
/// ending a file uses throughout (never for a file with both kinds or
/// none): an edit whose new lines [`reended`] may give the file's ending.
pub(crate) fn breaks_other_than(replace: &str, eol: LineEnding) -> bool {
    let crlf = match eol {
        LineEnding::Crlf => true,
        LineEnding::Lf => false,
        _ => return false,
    };
    let r = replace.as_bytes();
    memchr::memchr_iter(b'\n', r).any(|k| (k > 0 && r[k - 1] == b'\r') != crlf)
}

/// Whether a line break of `replace` is not of the kind that ends the line
/// holding `start` in `text` (the first break from `start` on, else the
/// last one before it), and the text uses that kind throughout. The line is
/// looked at first: the whole text only when the two differ.
fn lands_on_other_breaks(text: &[u8], start: usize, replace: &str) -> bool {
    let Some(at) = memchr::memchr(b'\n', &text[start..])
        .map(|k| start + k)
        .or_else(|| memchr::memrchr(b'\n', &text[..start]))
    else {
        return false;
    };
    let eol = if at > 0 && text[at - 1] == b'\r' {
        LineEnding::Crlf
    } else {
        LineEnding::Lf
    };
    breaks_other_than(replace, eol) && line_ending(text) == eol
}

/// The tolerant reading of an edit found once as sent (at `start`), where
/// `m` tolerates line endings and the replacement has breaks of the other
/// kind than the file, which uses one kind throughout (a search sent with
/// the file's CRLF, found as sent, has its replacement's LF breaks made
/// CRLF, nothing else): a model sends LF, and LF lines
/// added to a CRLF file (or CRLF to an LF one) as sent would leave it with
/// both. The edit is then matched as under `m` when the exact search finds
/// nothing ([`find`]: its new lines take the region's ending, or the
/// file's; a line kept from the search is the file's; and so on), and
/// reported so. Where that reading is not one certain place holding the
/// exact one (a search that starts mid-line kept on a line of its own,
/// `bar` → `qux\nbar` in `foo bar baz`), the exact place is certain all
/// the same: the replacement is written there with its line breaks made
/// the file's ([`plainly_reended`]), as a SEARCH/REPLACE block or
/// `str_replace` writes it. `None`, and written as sent as without
/// `line_endings`: the tolerant reading writes what the exact one would
/// (a whole-file conversion).
pub(crate) fn reended(
    text: &[u8],
    start: usize,
    search: &str,
    replace: &str,
    m: MatchMode,
) -> Option<TolerantMatch> {
    if !may_reend(replace, m) || !lands_on_other_breaks(text, start, replace) {
        return None;
    }
    // Found exactly: only its line breaks are read tolerantly. Another
    // tolerance (`indentation`) would read the exact text again and could
    // adapt more than the breaks (a one-line search at column 0 read as the
    // line's depth: its new line indented a level deeper).
    let m = MatchMode::with(&[Tolerance::LineEndings]);
    let end = start + search.len();
    if search.contains("\r\n") && !search.ends_with('\r') {
        // Found once as sent with the file's CRLF (copied from a read): the
        // place is certain, and only the replacement's LF breaks need to be
        // the file's; unless the search holds every line break of the file
        // (the whole file converted is left with one kind). The file uses
        // one kind throughout, the replacement has the other: checked above.
        if !keeps_a_break(text, (start, end)) {
            return None;
        }
        // An LF first in the replacement after the file's CR (a search that
        // starts with the LF of a CRLF) is that CRLF's.
        let after_cr = start.checked_sub(1).is_some_and(|k| text[k] == b'\r');
        let replacement = crlf_breaks(replace, after_cr);
        return Some(TolerantMatch {
            start,
            end,
            replacement,
            matched_with: vec![Tolerance::LineEndings],
        });
    }
    let found = if m.tolerances() == [Tolerance::LineEndings] && !search.contains(['\n', '\r']) {
        // What `find` reads, without normalizing the text: under
        // `line_endings` alone a search without a line break or CR occurs
        // in the normalized text where it occurs in the text (a CR dropped
        // is followed by an LF), once, and its region is its occurrence.
        match adapt(text, start, search, search, replace, m) {
            Ok(replacement) => Reading::Unique(TolerantMatch {
                start,
                end,
                matched_with: needed(search, search, replace, &replacement, m),
                replacement,
            }),
            Err(_) => Reading::None,
        }
    } else {
        // A search that starts with the line break ending a line with text
        // (the LF of a CRLF, or the whole CRLF) starts at that line's
        // start, its text before the break in front of both texts (no
        // tolerant match starts at the end of a line that has text).
        let cr = match start.checked_sub(1) {
            Some(cr) if search.starts_with('\n') && text[cr] == b'\r' => Some(cr),
            _ if search.starts_with("\r\n") => Some(start),
            _ => None,
        };
        match cr {
            Some(cr) => {
                let from = line_start(text, cr);
                match std::str::from_utf8(&text[from..cr]) {
                    Ok(before) => {
                        let (search, replace) =
                            ([before, search].concat(), [before, replace].concat());
                        find(text, &search, &replace, m)
                    }
                    Err(_) => Reading::None,
                }
            }
            None => find(text, search, replace, m),
        }
    };
    // The one tolerant place must hold the exact one.
    let t = match found {
        Reading::Unique(t) if t.start <= start && end <= t.end => t,
        _ => return plainly_reended(text, (start, end), search, replace),
    };
    // What the exact reading writes over the tolerant one's region.
    let as_sent = [&text[t.start..start], replace.as_bytes(), &text[end..t.end]].concat();
    (t.replacement.as_bytes() != as_sent).then_some(t)
}

/// An edit found once as sent at `start..end` in a text that ends its
/// lines one way throughout (`reended` checked it), its replacement with
/// breaks of the other kind: the replacement with every line break made
/// the file's (each LF that no CR precedes made CRLF in a CRLF file, each
/// CRLF made LF in an LF file), nothing else changed. `None` (written as
/// sent): a search that ends with the CR of a CRLF (the LF after it would
/// be left alone), or one that holds every line break of the file (the
/// whole file converted keeps one kind).
fn plainly_reended(
    text: &[u8],
    (start, end): (usize, usize),
    search: &str,
    replace: &str,
) -> Option<TolerantMatch> {
    if search.ends_with('\r') || !keeps_a_break(text, (start, end)) {
        return None;
    }
    let replacement = match line_ending(text) {
        LineEnding::Crlf => {
            let after_cr = start.checked_sub(1).is_some_and(|k| text[k] == b'\r');
            crlf_breaks(replace, after_cr)
        }
        LineEnding::Lf => replace.replace("\r\n", "\n"),
        _ => return None,
    };
    (replacement != replace).then(|| TolerantMatch {
        start,
        end,
        replacement,
        matched_with: vec![Tolerance::LineEndings],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The words of an uncertain reading, in the engine's own spellings.
    fn words(u: &Uncertain) -> String {
        crate::printer::unfitted(&u.why, Said::CANONICAL)
    }
    use serde_json::json;

    use Tolerance::*;

    fn apply(
        text: &str,
        search: &str,
        replace: &str,
        ts: &[Tolerance],
    ) -> Result<(String, Vec<Tolerance>, String), Reading> {
        match find(text.as_bytes(), search, replace, MatchMode::with(ts)) {
            Reading::Unique(m) => Ok((
                format!("{}{}{}", &text[..m.start], m.replacement, &text[m.end..]),
                m.matched_with,
                text[m.start..m.end].to_string(),
            )),
            o => Err(o),
        }
    }

    const PY: &str = "def load(path):\r\n    with open(path) as f:\r\n        data = f.read()\r\n    return data\r\n";

    use proptest::prelude::*;

    fn texty() -> impl Strategy<Value = String> {
        proptest::collection::vec(
            prop_oneof![
                Just("a"),
                Just("b c"),
                Just(" "),
                Just("\t"),
                Just("\n"),
                Just("\r\n"),
                Just("“"),
                Just("\""),
                Just("—"),
                Just("-"),
                Just("…"),
                Just("."),
                Just("x\n  y"),
            ],
            0..40,
        )
        .prop_map(|v| v.concat())
    }

    fn any_mode() -> impl Strategy<Value = MatchMode> {
        (1u8..16).prop_map(|bits| {
            MatchMode::with(
                &Tolerance::ALL
                    .iter()
                    .copied()
                    .filter(|t| bits & (1 << (*t as u8)) != 0)
                    .collect::<Vec<_>>(),
            )
        })
    }

    proptest! {
        #![proptest_config(crate::text::test_seeds::config(600))]
        // A unique tolerant match covers a region that normalizes exactly
        // like the block, with whole characters at both ends; the rest of
        // the file is untouched by construction.
        #[test]
        fn unique_match_is_the_block_under_the_tolerances(
            text in texty(), a in 0usize..40, len in 1usize..12, m in any_mode(), noise in 0u8..4
        ) {
            let chars: Vec<char> = text.chars().collect();
            prop_assume!(!chars.is_empty());
            let a = a.min(chars.len() - 1);
            let piece: String = chars[a..(a + len).min(chars.len())].iter().collect();
            // The block as an agent might have sent it.
            let search = match noise {
                0 => piece.replace("\r\n", "\n"),
                1 => piece.replace('“', "\"").replace('—', "-"),
                2 => piece.replace('\t', "    "),
                _ => piece.replace('\n', "  \n"),
            };
            // Reading exactly: the plan never asks tolerant matching.
            if text.contains(&search) {
                return Ok(());
            }
            if let Reading::Unique(t) = find(text.as_bytes(), &search, "R", m) {
                prop_assert!(t.start <= t.end && t.end <= text.len());
                prop_assert!(text.is_char_boundary(t.start) && text.is_char_boundary(t.end));
                let region = &text[t.start..t.end];
                prop_assert_eq!(normalize(region.as_bytes(), m), normalize(search.as_bytes(), m), "{:?}", region);
                prop_assert!(!t.matched_with.is_empty());
                prop_assert!(t.matched_with.iter().all(|x| m.has(*x)));
            }
        }
    }

    /// A replacement an agent might send for `search`: one line changed,
    /// added or removed, or everything replaced.
    fn edited(search: &str, how: u8, at: usize) -> String {
        let mut lines: Vec<String> = search.split_inclusive('\n').map(str::to_string).collect();
        if lines.is_empty() {
            return "R".into();
        }
        let k = at % lines.len();
        match how {
            0 => {
                let l = &mut lines[k];
                let cut = l.trim_end_matches(['\n', '\r']).len();
                l.insert(cut, 'Z');
            }
            1 => lines.insert(k + 1, "new\n".into()),
            2 => {
                lines.remove(k);
            }
            _ => return "R\n".into(),
        }
        lines.concat()
    }

    proptest! {
        #![proptest_config(crate::text::test_seeds::config(1500))]
        // Every plan the tolerant planner makes passes the verifier, which
        // judges it from the caller's texts alone; and a plan whose written
        // bytes are corrupted (a byte of a line the caller kept, a CR
        // added to a line ending) is refused.
        #[test]
        fn tolerant_plans_pass_the_verifier(
            text in texty(), a in 0usize..40, len in 1usize..12, m in any_mode(), noise in 0u8..4,
            how in 0u8..4, at in 0usize..8, flip in 0usize..64,
        ) {
            use crate::matching::verify::{verify, Change, Fold};
            let chars: Vec<char> = text.chars().collect();
            if chars.is_empty() {
                return Ok(());
            }
            let a = a.min(chars.len() - 1);
            let piece: String = chars[a..(a + len).min(chars.len())].iter().collect();
            let search = match noise {
                0 => piece.replace("\r\n", "\n"),
                1 => piece.replace('“', "\"").replace('—', "-"),
                2 => piece.replace('\t', "    "),
                _ => piece.replace('\n', "  \n"),
            };
            if text.contains(&search) {
                return Ok(());
            }
            let replace = edited(&search, how, at);
            if let Reading::Unique(t) = find(text.as_bytes(), &search, &replace, m) {
                let change = Change {
                    start: t.start,
                    end: t.end,
                    new: t.replacement.as_bytes(),
                    search: &search,
                    replace: &replace,
                    fold: Fold::tolerances(&t.matched_with),
                    takes_break: false,
                    adds_break: false,
                };
                prop_assert_eq!(verify(text.as_bytes(), &[change]), Ok(()), "{:?} {:?} -> {:?}", search, replace, t);
                // A line the caller kept, changed by one byte: refused.
                let kept: Vec<&str> = replace
                    .split_inclusive('\n')
                    .filter(|l| search.split_inclusive('\n').any(|s| s == *l) && l.trim().len() > 1)
                    .collect();
                if !kept.is_empty() && t.replacement.starts_with(|c: char| c.is_ascii_alphanumeric()) {
                    let mut bad = t.replacement.clone().into_bytes();
                    let i = flip % bad.len().max(1);
                    if bad[i].is_ascii_alphanumeric() && replace.lines().next() == search.lines().next() {
                        bad[i] = if bad[i] == b'Q' { b'W' } else { b'Q' };
                        let c = Change { new: &bad, ..change };
                        prop_assert!(verify(text.as_bytes(), &[c]).is_err(), "{:?}", String::from_utf8_lossy(&bad));
                    }
                }
                // A CR added before an LF of a file without CRLF: refused.
                if !text.contains('\r') && t.replacement.contains('\n') {
                    let bad = t.replacement.replacen('\n', "\r\n", 1);
                    let c = Change { new: bad.as_bytes(), ..change };
                    prop_assert!(verify(text.as_bytes(), &[c]).is_err());
                }
            }
        }
    }

    #[test]
    fn parse_mode() {
        assert!(MatchMode::from_json(&json!("exact")).unwrap().is_exact());
        let m = MatchMode::from_json(&json!(["indentation", "line_endings"])).unwrap();
        assert_eq!(m.tolerances(), vec![LineEndings, Indentation]);
        assert!(MatchMode::from_json(&json!([])).unwrap().is_exact());
        assert!(
            crate::printer::bad_match(&MatchMode::from_json(&json!(["case"])).unwrap_err())
                .contains("unknown tolerance")
        );
        assert!(MatchMode::from_json(&json!("fuzzy")).is_err());
        assert!(MatchMode::from_json(&json!(3)).is_err());
    }

    #[test]
    fn line_endings_adapt_replacement() {
        let (out, with, orig) = apply(
            PY,
            "    with open(path) as f:\n        data = f.read()\n",
            "    with open(path, encoding=\"utf-8\") as f:\n        data = f.read()\n",
            &[LineEndings],
        )
        .unwrap();
        assert_eq!(with, vec![LineEndings]);
        assert_eq!(
            orig,
            "    with open(path) as f:\r\n        data = f.read()\r\n"
        );
        assert_eq!(
            out,
            "def load(path):\r\n    with open(path, encoding=\"utf-8\") as f:\r\n        data = f.read()\r\n    return data\r\n"
        );
        // Without the tolerance: no match.
        assert_eq!(
            apply(PY, "    with open(path) as f:\n", "x", &[Indentation]).unwrap_err(),
            Reading::None
        );
    }

    #[test]
    fn indentation_rebased() {
        let text = "fn main() {\n\tif ok {\n\t\trun();\n\t}\n}\n";
        let (out, with, orig) = apply(
            text,
            "    if ok {\n        run();\n    }",
            "    if ok {\n        run();\n        log();\n    }",
            &[Indentation],
        )
        .unwrap();
        assert_eq!(with, vec![Indentation]);
        assert_eq!(orig, "\tif ok {\n\t\trun();\n\t}");
        assert_eq!(
            out,
            "fn main() {\n\tif ok {\n\t\trun();\n\t\tlog();\n\t}\n}\n"
        );
        // Depth: the block was sent without indentation.
        let (out, _, _) = apply(
            text,
            "if ok {\n    run();\n}",
            "if ok {\n    run();\n} else {\n    stop();\n}",
            &[Indentation],
        )
        .unwrap();
        assert_eq!(
            out,
            "fn main() {\n\tif ok {\n\t\trun();\n\t} else {\n\t\tstop();\n\t}\n}\n"
        );
    }

    /// A block of one depth, a line added one step in: the step is the one
    /// the caller's texts take (two spaces here) and the file's (a tab, a
    /// two-space Python file), not a guess of four columns (`\t  z()`,
    /// six spaces in a two-space file).
    #[test]
    fn the_step_of_a_block_of_one_depth_is_learnt() {
        let go = "func a() {\n\tx := 1\n\tif x {\n\t\ty()\n\t}\n}\n";
        let (out, _, _) = apply(go, "  if x {\n", "  if x {\n    z()\n", &[Indentation]).unwrap();
        assert!(out.contains("\tif x {\n\t\tz()\n\t\ty()\n"), "{out}");
        let py = "def f():\n  if a:\n    b()\n  return 1\n";
        let (out, _, _) = apply(py, "\tif a:\n", "\tif a:\n\t\tx()\n", &[Indentation]).unwrap();
        assert!(out.contains("  if a:\n    x()\n    b()\n"), "{out}");
    }

    #[test]
    fn modified_lines_keep_the_file_bytes_around_the_change() {
        let text = "> the “quick” target skips slow tests\n";
        let (out, ..) = apply(
            text,
            "> the \"quick\" target skips slow tests",
            "> the \"quick\" target skips slow and flaky tests",
            &[UnicodePunctuation],
        )
        .unwrap();
        assert_eq!(out, "> the “quick” target skips slow and flaky tests\n");
        let text = "\tif (n > 0)\n\t\treturn n;\n";
        let (out, ..) = apply(
            text,
            "    if (n > 0)\n        return n;",
            "    if (n > 1)\n        return n;",
            &[Indentation],
        )
        .unwrap();
        assert_eq!(out, "\tif (n > 1)\n\t\treturn n;\n");
        assert_eq!(merge_line("ab", "xy", "ab"), None);
        assert_eq!(merge_line("a = 1", "a = 2", "a = 1  ").unwrap(), "a = 2");
        assert_eq!(
            merge_line("a = 1;", "a = 2;", "a = 1;  ").unwrap(),
            "a = 2;  "
        );
    }

    #[test]
    fn a_change_of_punctuation_writes_the_callers_line_as_sent() {
        // The file's typographic mark beside the caller's changed mark would
        // make a line that is neither the file's nor the caller's.
        for (file, search, replace, want) in [
            (
                "Run `git push \u{2013}force` now.",
                "Run `git push -force` now.",
                "Run `git push --force` now.",
                "Run `git push --force` now.",
            ),
            ("say it\u{2019}s", "say it's", "say it''s", "say it''s"),
            (
                "\u{201C}hi\u{201D} there",
                "\"hi\" there",
                "\"\\\"hi\\\"\" there",
                "\"\\\"hi\\\"\" there",
            ),
            (
                // The caller left `1-5` alone: its dash stays the file's.
                "pages 1\u{2013}5",
                "pages 1-5",
                "pages 1-5-9",
                "pages 1\u{2013}5-9",
            ),
            ("wait\u{2026}", "wait...", "wait....", "wait...."),
        ] {
            let (out, ..) =
                apply(&format!("{file}\n"), search, replace, &[UnicodePunctuation]).unwrap();
            assert_eq!(out, format!("{want}\n"), "{file:?}");
        }
        // A change of words keeps the file's marks around it.
        let (out, ..) = apply(
            "He said \u{201C}hi\u{201D} to me\n",
            "He said \"hi\" to me",
            "He said \"hi\" to you",
            &[UnicodePunctuation],
        )
        .unwrap();
        assert_eq!(out, "He said \u{201C}hi\u{201D} to you\n");
    }

    #[test]
    fn changed_lines_are_the_callers_lines_reindented_as_a_whole() {
        // The issue's case: the block starts inside the first line, and the
        // second line's file indentation must not end up inside the text.
        let text = "a\n    foo()\n    bar()\nb\n";
        let (out, ..) = apply(
            text,
            "foo()\nbar()",
            "await foo()\nawait bar()",
            &[Indentation],
        )
        .unwrap();
        assert_eq!(out, "a\n    await foo()\n    await bar()\nb\n");
        // Lines moved across the region's partial first line are re-indented
        // (not copied with or without the first line's missing indentation).
        let (out, ..) = apply(text, "foo()\nbar()", "bar()\nfoo()", &[Indentation]).unwrap();
        assert_eq!(out, "a\n    bar()\n    foo()\nb\n");
        let (out, ..) = apply(text, "foo()\nbar()", "x()\nfoo()\nbar()", &[Indentation]).unwrap();
        assert_eq!(out, "a\n    x()\n    foo()\n    bar()\nb\n");
        // With other tolerances too: trailing whitespace of the file is kept
        // only where the caller kept the line's end.
        let text = "\tv = 1  \n\tw = 2\n";
        let (out, ..) = apply(
            text,
            "v = 1\nw = 2",
            "v = 1 # one\nw = 3",
            &[Indentation, TrailingWhitespace],
        )
        .unwrap();
        assert_eq!(out, "\tv = 1 # one\n\tw = 3\n");
    }

    #[test]
    fn uncertain_indentation_is_refused() {
        let uncertain = |text: &str, search: &str, replace: &str| match find(
            text.as_bytes(),
            search,
            replace,
            MatchMode::with(&[Indentation]),
        ) {
            Reading::Uncertain(u) => words(&u),
            o => panic!("{o:?}"),
        };
        // Block steps of 4 columns, file steps of 2: a 2-column step has no
        // certain counterpart.
        let why = uncertain(
            "if x:\n  a()\n  b()\n",
            "if x:\n    a()\n    b()\n",
            "if x:\n    a()\n      c()\n    b()\n",
        );
        assert!(why.starts_with("line 3 of replace_block (`c()`)"), "{why}");
        assert!(why.contains("not a whole number"), "{why}");
        // A block depth the file indents in two ways.
        let why = uncertain(
            "x\n  y\nz\n    w\n",
            "x\n    y\nz\n    w\n",
            "x\n    y\n    v\nz\n    w\n",
        );
        assert!(why.contains("2 different ways"), "{why}");
        // ...but a modified line keeps the indentation of its own file line.
        let (out, ..) = apply(
            "x\n  y\nz\n    w\n",
            "x\n    y\nz\n    w\n",
            "x\n    y2\nz\n    w2\n",
            &[Indentation],
        )
        .unwrap();
        assert_eq!(out, "x\n  y2\nz\n    w2\n");
        // Left of the file's first column.
        let why = uncertain(
            "a()\n    b()\n",
            "    a()\n        b()\n",
            "    a()\n        b()\nc()\n",
        );
        assert!(why.contains("left of the file's first column"), "{why}");
    }

    #[test]
    fn a_first_line_sent_without_its_indentation_is_no_certain_depth() {
        let ts = [TrailingWhitespace, Indentation, UnicodePunctuation];
        let find_with = |text: &str, search: &str, replace: &str| {
            find(text.as_bytes(), search, replace, MatchMode::with(&ts))
        };
        // The block starts after the tab of `\tfoo() v4`, so its column 0
        // stands both for that line's tab and for `v5`, which the file does
        // not indent: a new line at column 0 has no certain depth, whichever
        // block line it is taken to change.
        let text = "v3\n\tfoo() v4\nv5\n";
        let search = "foo() v4\nv5 ";
        match find_with(text, search, "\t\tz4 = 0\nn0()\nv5 ") {
            Reading::Uncertain(u) => {
                assert!(
                    words(&u).starts_with("line 2 of replace_block (`n0()`)"),
                    "{}",
                    words(&u)
                );
                assert_eq!(&text[u.start..u.end], "\tfoo() v4\nv5");
            }
            o => panic!("{o:?}"),
        }
        match find_with(text, search, "foo() v4\nv5 \nn1()") {
            Reading::Uncertain(u) => assert!(
                words(&u).starts_with("line 3 of replace_block (`n1()`)"),
                "{}",
                words(&u)
            ),
            o => panic!("{o:?}"),
        }
        // The line that takes the first line's place keeps its indentation
        // (as when the block is found byte for byte), and a line the block's
        // other lines place with certainty is written.
        let (out, ..) = apply(text, search, "await foo() v4\nv5 ", &ts).unwrap();
        assert_eq!(out, "v3\n\tawait foo() v4\nv5\n");
        let (out, ..) = apply(text, search, "foo() v4\n\tn1()\nv5 ", &ts).unwrap();
        assert_eq!(out, "v3\n\tfoo() v4\n\tn1()\nv5\n");
        // Also when the block's column 0 stands for one file depth only
        // through the first line: the caller's new line is left of `bar()`,
        // the first line's tab would put it right of it.
        match find_with("\tfoo()\nbar()\n", "foo()\n bar()", "foo()\n bar()\nbaz()") {
            Reading::Uncertain(u) => assert!(
                words(&u).starts_with("line 3 of replace_block (`baz()`)"),
                "{}",
                words(&u)
            ),
            o => panic!("{o:?}"),
        }
    }

    #[test]
    fn a_step_from_a_depth_the_file_indents_in_two_ways_is_refused() {
        // `    ` stands for `  ` (y) and for `    ` (w): a line one step
        // deeper has no certain file depth.
        match find(
            b"x\n  y\nz\n    w\n",
            "x\n    y\nz\n    w\n",
            "x\n    y\nz\n    w\n        v\n",
            MatchMode::with(&[Indentation]),
        ) {
            Reading::Uncertain(u) => {
                assert!(
                    words(&u).starts_with("line 5 of replace_block (`v`)"),
                    "{}",
                    words(&u)
                );
                assert!(words(&u).contains("2 different ways"), "{}", words(&u));
            }
            o => panic!("{o:?}"),
        }
    }

    #[test]
    fn indentation_shape_must_agree() {
        let text = "if x:\n    a()\n    b()\n";
        // Same lines, different nesting: refused.
        assert_eq!(
            apply(text, "if x:\n    a()\nb()", "z", &[Indentation]).unwrap_err(),
            Reading::None
        );
    }

    #[test]
    fn trailing_whitespace_and_unicode() {
        let text = "title: “Intro”  \nbody: text\n";
        let (out, with, _) = apply(
            text,
            "title: \"Intro\"\nbody: text",
            "title: \"Intro\"\nbody: more text",
            &[TrailingWhitespace, UnicodePunctuation],
        )
        .unwrap();
        assert_eq!(with, vec![TrailingWhitespace, UnicodePunctuation]);
        // The unchanged line keeps the file's exact bytes.
        assert_eq!(out, "title: “Intro”  \nbody: more text\n");
    }

    #[test]
    fn must_be_unique() {
        let text = "a = 1  \nb = 2\na = 1\n";
        match apply(text, "a = 1\nb", "x", &[TrailingWhitespace]) {
            Ok((out, ..)) => assert_eq!(out, "x = 2\na = 1\n"),
            Err(o) => panic!("{o:?}"),
        }
        match apply(text, "a = 1 \n", "x", &[TrailingWhitespace]).unwrap_err() {
            Reading::Many(lines, n) => assert_eq!((lines.len(), n), (2, 2)),
            o => panic!("{o:?}"),
        }
    }

    #[test]
    fn partial_line_match_keeps_surroundings() {
        let text = "const msg = “hello”; // greet\n";
        let (out, _, orig) = apply(
            text,
            "msg = \"hello\"",
            "msg = \"hi\"",
            &[UnicodePunctuation],
        )
        .unwrap();
        assert_eq!(orig, "msg = “hello”");
        assert_eq!(out, "const msg = “hi”; // greet\n");
    }

    #[test]
    fn folded_character_is_not_split() {
        // "..." folded from "…" must match whole, not its middle.
        let text = "wait…\n";
        assert_eq!(
            apply(text, "..", "x", &[UnicodePunctuation]).unwrap_err(),
            Reading::None
        );
        let (out, ..) = apply(text, "wait...", "done", &[UnicodePunctuation]).unwrap();
        assert_eq!(out, "done\n");
    }
}
