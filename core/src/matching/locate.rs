//! Locating and applying line-based hunks (Codex patches, unified diffs):
//! pure, in memory, no I/O.
//!
//! A hunk's old side (context and removed lines) is searched line by line,
//! from the end of the previous hunk of the same file, at increasing
//! tolerance levels: exact, then ignoring trailing whitespace, then ignoring
//! all surrounding whitespace, then also folding Unicode punctuation and
//! spaces (the `unicode_punctuation` level: the typographic punctuation of
//! [`crate::text::fold::PUNCTUATION`], the table diagnosis and
//! `match: ["unicode_punctuation"]` use too, folded to ASCII, and
//! [`crate::text::fold::UNICODE_SPACES`] to a plain space). The first level
//! that finds the old side decides: it must find it exactly once, or the
//! hunk is refused as ambiguous (never "first match wins"). `@@ context`
//! anchors are located the same way, one after another, before the body;
//! a body found several times after them is taken where exactly one of
//! its places starts inside the last anchor's block (the function or class
//! the `@@` line names, read from indentation: [`Keyed::block_end`]).
//!
//! Line numbers in a unified diff's `@@ -l,n` header are only a hint, used
//! in two cases: a hunk without old lines is placed by its line, and when
//! the first level that finds a hunk finds it in several places, the one
//! place that starts exactly at the hinted line is taken (none there: still
//! refused as ambiguous). A hunk found once elsewhere goes there whatever
//! its header says. The hinted line is the header's old line, shifted by the
//! distance at which the previous hunk of the same file was found from its
//! own header line (zero for a diff made from the file as it is). `git
//! apply` edits the text hunk by hunk and looks first at the hunk's new-side
//! line, which in an unchanged file is the same place. The Codex envelope
//! (no line numbers) keeps strict exactly-once locating.
//!
//! Lines are compared without their line breaks, so a patch written with LF
//! applies to a CRLF file. Context lines keep the file's bytes; added lines
//! take the file's line ending (in a file with mixed endings, the ending the
//! line had in the patch, but a removed line added again unchanged keeps
//! the file's: [`written_again`]).

use std::borrow::Cow;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};

use crate::diagnose::{self, Diagnosis};
use crate::error::ErrorCode;
use crate::likeness::{Budget, DEFAULT_BUDGET};
use crate::matching::tolerant;
use crate::matching::verify::{self, Change, Fold, Trim};
use crate::model::{Cancel, Hunk, HunkLine, HunkStyle, LineKind, Said, Unfitted, Unverified};
use crate::printer::{self, HeaderLine, HunkWhy};
use crate::result::files::LineEnding;
use crate::result::formats::{HunkLevel, HunkReport, LocatedBy};
use crate::text::fold;
use crate::text::lines::break_written;

/// Why a hunk could not be applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct HunkFailure {
    pub(crate) index: usize,
    pub(crate) patch_line: usize,
    pub(crate) code: ErrorCode,
    pub(crate) match_count: usize,
    /// 1-based lines where an ambiguous old side matches (first 50).
    pub(crate) match_lines: Vec<usize>,
    /// Why, as facts ([`HunkFailure::message`] words them).
    pub(crate) why: Box<HunkWhy>,
    /// Where the old side (or `@@` line) that was not found most likely
    /// is: the same `closest_match` a `patchFile` edit gets.
    pub(crate) diagnosis: Option<Box<Diagnosis>>,
}

impl HunkFailure {
    /// The failure in words, for the agent.
    pub(crate) fn message(&self) -> String {
        let summary = self.diagnosis.as_ref().and_then(|d| d.summary());
        printer::hunk_miss(
            (self.index, self.patch_line),
            &self.why,
            (self.match_count, &self.match_lines),
            summary.as_deref(),
        )
    }
}

/// The new text and a report per hunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Applied {
    pub(crate) text: Vec<u8>,
    pub(crate) hunks: Vec<HunkReport>,
}

/// A line of the file: `text[start..end]` is its content, `text[end..next]`
/// its line break (empty on a last line without one).
#[derive(Debug, Clone, Copy)]
struct Line {
    start: usize,
    end: usize,
    next: usize,
}

fn split(text: &[u8]) -> Vec<Line> {
    let mut out = Vec::new();
    let mut at = 0;
    for i in memchr::memchr_iter(b'\n', text) {
        let end = if i > at && text[i - 1] == b'\r' {
            i - 1
        } else {
            i
        };
        out.push(Line {
            start: at,
            end,
            next: i + 1,
        });
        at = i + 1;
    }
    if at < text.len() {
        out.push(Line {
            start: at,
            end: text.len(),
            next: text.len(),
        });
    }
    out
}

/// The comparison key of a line at a level.
fn key(line: &[u8], level: HunkLevel) -> Cow<'_, [u8]> {
    if level == HunkLevel::Exact {
        return Cow::Borrowed(line);
    }
    match (level, std::str::from_utf8(line)) {
        (HunkLevel::Exact, _) => Cow::Borrowed(line),
        (HunkLevel::TrailingWhitespace, Ok(s)) => Cow::Borrowed(s.trim_end().as_bytes()),
        (HunkLevel::SurroundingWhitespace, Ok(s)) => Cow::Borrowed(s.trim().as_bytes()),
        (HunkLevel::UnicodePunctuation, Ok(s)) => match fold::fold(s, true) {
            Cow::Borrowed(t) => Cow::Borrowed(t.trim().as_bytes()),
            Cow::Owned(t) => Cow::Owned(t.trim().as_bytes().to_vec()),
        },
        (HunkLevel::TrailingWhitespace, Err(_)) => Cow::Borrowed(line.trim_ascii_end()),
        (_, Err(_)) => Cow::Borrowed(line.trim_ascii()),
    }
}

/// The file's lines with their comparison keys, computed per level on demand.
struct Keyed<'a> {
    text: &'a [u8],
    lines: Vec<Line>,
    keys: [Option<Vec<Cow<'a, [u8]>>>; 4],
    /// Per level, when `indexed`: the lines of each key (by its hash, in
    /// file order), so that a hunk is looked for where its rarest line is,
    /// not by comparing it at every line after the cursor (10,000 hunks
    /// over a million lines: 10^10 comparisons).
    index: [Option<HashMap<u64, Vec<usize>>>; 4],
    indexed: bool,
}

/// Patches with more hunks than this look lines up in an index.
const INDEX_HUNKS: usize = 8;

fn key_hash(k: &[u8]) -> u64 {
    let mut h = std::hash::DefaultHasher::new();
    k.hash(&mut h);
    h.finish()
}

enum Found {
    One(usize, HunkLevel),
    Many(Vec<usize>, usize, HunkLevel),
    None,
}

/// The outcome of locating a hunk's old lines.
enum Placed {
    /// Found once at the deciding level.
    Once(usize, HunkLevel),
    /// Found several times; the header's line chose this one.
    ByLine(usize, HunkLevel),
    /// Found several times (hits, count, level); for a unified hunk, the
    /// header's line and the hinted 0-based line, where none starts.
    Ambiguous(Vec<usize>, usize, HunkLevel, Option<(usize, isize)>),
    Nowhere,
}

impl<'a> Keyed<'a> {
    fn keys(&mut self, level: HunkLevel) -> &[Cow<'a, [u8]>] {
        let i = level as usize;
        if self.keys[i].is_none() {
            let text = self.text;
            self.keys[i] = Some(
                self.lines
                    .iter()
                    .map(|l| key(&text[l.start..l.end], level))
                    .collect(),
            );
        }
        self.keys[i].as_deref().expect("just computed")
    }

    /// The index of `level` (built on first use).
    fn index(&mut self, level: HunkLevel) -> &HashMap<u64, Vec<usize>> {
        let i = level as usize;
        if self.index[i].is_none() {
            let mut map: HashMap<u64, Vec<usize>> = HashMap::new();
            for (p, k) in self.keys(level).iter().enumerate() {
                map.entry(key_hash(k)).or_default().push(p);
            }
            self.index[i] = Some(map);
        }
        self.index[i].as_ref().expect("just built")
    }

    /// The lines where `want` may start at or after `from` (and at most at
    /// `last`), in order: those of its rarest line, shifted. `None`: no
    /// index (every line is a candidate).
    fn candidates(
        &mut self,
        want: &[Cow<'_, [u8]>],
        from: usize,
        last: usize,
        level: HunkLevel,
    ) -> Option<Vec<usize>> {
        if !self.indexed || want.is_empty() {
            return None;
        }
        let index = self.index(level);
        let empty = Vec::new();
        let (j, list) = want
            .iter()
            .enumerate()
            .map(|(j, w)| (j, index.get(&key_hash(w)).unwrap_or(&empty)))
            .min_by_key(|(_, l)| l.len())
            .expect("a non-empty needle");
        let start = list.partition_point(|&q| q < from + j);
        Some(
            list[start..]
                .iter()
                .map(|&q| q - j)
                .take_while(|&p| p <= last)
                .collect(),
        )
    }

    /// The end (exclusive) of the block that line `at` (a hunk's `@@`
    /// line, the function or class the hunk is in) opens, read from
    /// indentation as a reader does: the lines after it indented deeper,
    /// blank lines and lines starting with `#` (a C# `#if`, a comment), a
    /// `{` alone at its depth (a brace on its own line), and
    /// a closing line at its depth (`}`, `)`, `]`, `end`, `</…>`), which is
    /// the block's last. A Codex patch's `@@` line names the function or
    /// class its lines belong to; when they match several places after it,
    /// the one inside this block is the one it names.
    fn block_end(&self, at: usize) -> usize {
        let indent = crate::text::indent::lead_len;
        let line = |i: usize| &self.text[self.lines[i].start..self.lines[i].end];
        let Some(head) = (at < self.lines.len()).then(|| indent(line(at))) else {
            return at;
        };
        for i in at + 1..self.lines.len() {
            let l = line(i);
            let body = l.trim_ascii();
            // Directives (`#if` at the start of a line) and `#` comments
            // stand anywhere in a block.
            if body.is_empty() || indent(l) > head || body == b"{" || body.starts_with(b"#") {
                continue;
            }
            let closes = matches!(body.first(), Some(b'}' | b')' | b']'))
                || body == b"end"
                || body.starts_with(b"end ")
                || body.starts_with(b"</");
            return if closes { i + 1 } else { i };
        }
        self.lines.len()
    }

    /// Finds `needle` (patch lines) at or after line `from`; with `at_eof`,
    /// only where it ends at the last line.
    fn find(&mut self, needle: &[&str], from: usize, at_eof: bool) -> Found {
        let n = self.lines.len();
        let m = needle.len();
        if m > n.saturating_sub(from) {
            return Found::None;
        }
        for &level in HunkLevel::ALL {
            let want: Vec<Cow<'_, [u8]>> =
                needle.iter().map(|s| key(s.as_bytes(), level)).collect();
            let first = if at_eof { n - m } else { from };
            let candidates = if at_eof {
                None
            } else {
                self.candidates(&want, first, n - m, level)
            };
            let keys = self.keys(level);
            let mut hits = Vec::new();
            let mut count = 0;
            let mut hit = |p: usize| {
                count += 1;
                if hits.len() < crate::matching::exact::MAX_REPORTED_MATCHES {
                    hits.push(p);
                }
            };
            match candidates {
                Some(c) => c
                    .into_iter()
                    .filter(|&p| keys[p..p + m].iter().zip(&want).all(|(a, b)| a == b))
                    .for_each(&mut hit),
                // Every line a candidate: each place found once, in one pass
                // (a place at a time cost lines times the needle's for
                // repeated lines, `}` after `}`: 7.7 s for 32,000).
                None if m == 0 => (first..=n).for_each(&mut hit),
                None => places(&keys[first..], &want).for_each(|p| hit(first + p)),
            }
            match count {
                0 => continue,
                1 => return Found::One(hits[0], level),
                _ => return Found::Many(hits, count, level),
            }
        }
        Found::None
    }

    /// Whether `needle` matches at line `p` at `level` (with `at_eof`, only
    /// where it ends at the last line).
    fn matches_at(&mut self, needle: &[&str], p: usize, level: HunkLevel, at_eof: bool) -> bool {
        let n = self.lines.len();
        let m = needle.len();
        if p + m > n || (at_eof && p + m != n) {
            return false;
        }
        let keys = self.keys(level);
        keys[p..p + m]
            .iter()
            .zip(needle)
            .all(|(a, b)| *a == key(b.as_bytes(), level))
    }
}

/// Every place where `want` occurs in `hay`, overlapping ones too, in
/// order: Knuth–Morris–Pratt over lines, linear in both lengths however
/// their lines repeat.
fn places<'h, T: PartialEq>(hay: &'h [T], want: &'h [T]) -> impl Iterator<Item = usize> + 'h {
    // fail[k]: the longest proper prefix of want[..=k] that is also its
    // suffix.
    let mut fail = vec![0usize; want.len()];
    let mut k = 0;
    for i in 1..want.len() {
        while k > 0 && want[i] != want[k] {
            k = fail[k - 1];
        }
        if want[i] == want[k] {
            k += 1;
        }
        fail[i] = k;
    }
    let mut k = 0;
    hay.iter().enumerate().filter_map(move |(i, h)| {
        if want.is_empty() {
            return None;
        }
        while k > 0 && *h != want[k] {
            k = fail[k - 1];
        }
        if *h == want[k] {
            k += 1;
        }
        (k == want.len()).then(|| {
            k = fail[k - 1];
            i + 1 - want.len()
        })
    })
}

/// The line break added lines get in a file with `style`.
fn eol_for(style: LineEnding, line: &HunkLine) -> &'static [u8] {
    match style {
        LineEnding::Crlf => b"\r\n",
        // (A file of lone CRs is matched with LF breaks.)
        LineEnding::Lf | LineEnding::Cr => b"\n",
        LineEnding::Mixed | LineEnding::None => {
            if line.cr {
                b"\r\n"
            } else {
                b"\n"
            }
        }
    }
}

/// Applies `hunks`, in order, to `text`. `bytes_mode`: the file is not
/// valid UTF-8, so added lines must be ASCII. On failure, every failing hunk
/// is reported (later hunks are tried from where the last good one ended).
#[cfg(test)]
pub(crate) fn apply(
    text: &[u8],
    hunks: &[Hunk],
    bytes_mode: bool,
) -> Result<Applied, Vec<HunkFailure>> {
    apply_until(text, hunks, bytes_mode, &Cancel::default())
}

/// [`apply`] until `cancel` stops the call (checked before each hunk: a
/// hunk's place costs up to the file's lines, thousands of hunks as many
/// times).
pub(crate) fn apply_until(
    text: &[u8],
    hunks: &[Hunk],
    bytes_mode: bool,
    cancel: &Cancel,
) -> Result<Applied, Vec<HunkFailure>> {
    apply_indexed(text, hunks, bytes_mode, (hunks.len() > INDEX_HUNKS, cancel))
}

/// [`apply_until`], looking lines up in an index (`indexed`) or at every
/// line.
fn apply_indexed(
    text: &[u8],
    hunks: &[Hunk],
    bytes_mode: bool,
    (indexed, cancel): (bool, &Cancel),
) -> Result<Applied, Vec<HunkFailure>> {
    let style = crate::text::lines::line_ending(text);
    let mut k = Keyed {
        text,
        lines: split(text),
        keys: [None, None, None, None],
        index: [None, None, None, None],
        indexed,
    };
    let n = k.lines.len();
    let mut cursor = 0usize;
    // Failing hunks are diagnosed within one budget.
    let budget = Budget::new(DEFAULT_BUDGET);
    // (hunk, first old line, old len, the level its old lines needed)
    let mut placed: Vec<(usize, usize, usize, HunkLevel)> = Vec::new();
    // The lines placed hunks remove: no later hunk's place.
    let mut removed: Vec<usize> = Vec::new();
    let mut reports = Vec::new();
    let mut failures = Vec::new();
    // Unified diffs: how far the previous hunk of the file was found from the
    // line its header named; the next header's line is shifted as much.
    let mut drift: isize = 0;

    for (hi, h) in hunks.iter().enumerate() {
        if let Some(s) = cancel.stopped() {
            return Err(vec![stopped(hi, h, s)]);
        }
        if let Some(f) = bytes_mode.then(|| non_ascii_addition(hi, h)).flatten() {
            failures.push(f);
            continue;
        }
        let (pos, level) = match place_anchors(&mut k, hi, h, cursor, &budget) {
            Ok(placed) => placed,
            Err(f) => {
                failures.push(f);
                continue;
            }
        };
        let old: Vec<&str> = h.old_lines().map(|l| l.text.as_str()).collect();
        // The 0-based line the header points at: the first old line, or for
        // a hunk without old lines the line the first added line takes
        // (`@@ -5,0` adds after line 5); shifted for unified diffs only.
        let shift = if h.style == HunkStyle::Unified {
            drift
        } else {
            0
        };
        let hint = header_line(h, old.is_empty(), shift);
        if old.is_empty() {
            let (at, by) = match addition_place(hi, h, pos, (hint, shift), (n, cursor)) {
                Ok(place) => place,
                Err(f) => {
                    failures.push(f);
                    continue;
                }
            };
            placed.push((hi, at, 0, HunkLevel::Exact));
            reports.push(report(hi, h, at, level, by));
            // An append at the end of the file says nothing about where the
            // next hunk is: later hunks are still searched from here.
            if by != LocatedBy::EndOfFile {
                cursor = at;
            }
            continue;
        }
        // The body may start with the `@@` line itself (models often repeat
        // it as the first context line); in the usual case (it does not)
        // this adds no candidate.
        let from = if h.anchors.is_empty() { pos } else { pos - 1 };
        let block = (!h.anchors.is_empty()).then(|| (from, k.block_end(from)));
        let found = place_old(&mut k, &old, (from, block), hint, h, &removed);
        if let Placed::Once(p, l) = found {
            let at = (p, old.len(), l);
            if let Some(f) = rival_refusal(&k, (hi, h), at, (hint, block), (style, &budget)) {
                failures.push(f);
                continue;
            }
        }
        match found {
            Placed::Once(p, l) | Placed::ByLine(p, l) => {
                placed.push((hi, p, old.len(), l));
                removed.extend(removed_lines(h, p));
                let by = if matches!(found, Placed::ByLine(..)) {
                    LocatedBy::LineNumber
                } else {
                    LocatedBy::Content
                };
                reports.push(report(hi, h, p, level.max(l), by));
                cursor = p + old.len();
                if let (HunkStyle::Unified, Some(s)) = (h.style, h.old_start) {
                    drift = p as isize - s.saturating_sub(1) as isize;
                }
            }
            Placed::Ambiguous(ps, count, l, unified) => {
                failures.push(ambiguous(hi, h, (ps, count, l), unified, shift));
            }
            Placed::Nowhere => {
                failures.push(nowhere(text, hi, h, &old, pos, style, &budget));
            }
        }
    }
    if !failures.is_empty() {
        return Err(failures);
    }
    // Appends at the end of the file may come before hunks placed above
    // them; the text is written top to bottom (a stable sort keeps hunks at
    // one place, such as several appends, in patch order).
    placed.sort_by_key(|&(_, p, _, _)| p);
    let text = build(text, &k.lines, hunks, &placed, style).map_err(|f| vec![f])?;
    Ok(Applied {
        text,
        hunks: reports,
    })
}

/// The failure of a call stopped before hunk `hi`.
fn stopped(hi: usize, h: &Hunk, s: crate::model::Stopped) -> HunkFailure {
    failure(
        hi,
        h,
        ErrorCode::CANCELLED,
        (0, Vec::new()),
        HunkWhy::Stopped(s),
    )
}

/// At byte level (a file that is not valid UTF-8) only ASCII lines can be
/// added: the failure of a hunk that adds another.
fn non_ascii_addition(hi: usize, h: &Hunk) -> Option<HunkFailure> {
    let adds_non_ascii = h
        .lines
        .iter()
        .any(|l| l.kind == LineKind::Add && !l.text.is_ascii());
    adds_non_ascii.then(|| {
        failure(
            hi,
            h,
            ErrorCode::UNSUPPORTED_ENCODING,
            (0, Vec::new()),
            HunkWhy::NotAscii,
        )
    })
}

/// The header's line and the 0-based line it points at: the first old
/// line, or for a hunk without old lines the line the first added line
/// takes (`@@ -5,0` adds after line 5), shifted by `shift`.
fn header_line(h: &Hunk, no_old_lines: bool, shift: isize) -> Option<(usize, isize)> {
    h.old_start.map(|s| {
        let base = if no_old_lines { s } else { s.saturating_sub(1) };
        (s, base as isize + shift)
    })
}

/// The report of hunk `hi` placed at 0-based line `at`.
fn report(hi: usize, h: &Hunk, at: usize, level: HunkLevel, by: LocatedBy) -> HunkReport {
    HunkReport {
        index: hi,
        line_number: at + 1,
        level,
        located_by: by,
        patch_line: h.line,
    }
}

/// Where a hunk that only adds lines goes: after its `@@` lines, else at
/// its header's line (`hint`, shifted by `shift`), else at the end of the
/// file; a header's line past the end (`lines.0` lines) or before the last
/// hunk placed (`lines.1`) fails.
fn addition_place(
    hi: usize,
    h: &Hunk,
    pos: usize,
    (hint, shift): (Option<(usize, isize)>, isize),
    (n, cursor): (usize, usize),
) -> Result<(usize, LocatedBy), HunkFailure> {
    if !h.anchors.is_empty() {
        return Ok((pos, LocatedBy::Content));
    }
    let Some((s, q)) = hint else {
        return Ok((n, LocatedBy::EndOfFile));
    };
    if q < 0 || q > n as isize || (q as usize) < cursor {
        let past = (q > n as isize).then_some(n);
        let after = HeaderLine {
            said: s,
            line: q - 1,
            shift,
        };
        return Err(failure(
            hi,
            h,
            ErrorCode::SEARCH_BLOCK_NOT_FOUND,
            (0, Vec::new()),
            HunkWhy::AdditionMisplaced { after, past },
        ));
    }
    Ok((q as usize, LocatedBy::LineNumber))
}

/// Where a hunk's old lines are, from line `from`: when they match several
/// places, the one that starts inside the block of the hunk's last `@@`
/// line (`block`: its lines, see [`Keyed::block_end`]) if only one does,
/// else a unified header's line (`hint`) chooses the one that starts
/// exactly there, if there is one.
fn place_old(
    k: &mut Keyed<'_>,
    old: &[&str],
    (from, block): (usize, Option<(usize, usize)>),
    hint: Option<(usize, isize)>,
    h: &Hunk,
    removed: &[usize],
) -> Placed {
    let found = k.find(old, from, h.at_eof);
    if let (Found::Many(ps, count, l), Some((start, end))) = (&found, block) {
        // Every place is known to lie inside or after the block: all were
        // listed, or the last listed is past the block already.
        let known = ps.len() == *count || ps.last().is_some_and(|&p| p >= end);
        let mut inside = ps.iter().filter(|&&p| p >= start && p < end);
        if let (true, Some(&p), None) = (known, inside.next(), inside.next()) {
            return Placed::Once(p, *l);
        }
    }
    match (found, hint) {
        (Found::Many(ps, count, l), Some((s, q))) if h.style == HunkStyle::Unified => {
            if q >= from as isize && k.matches_at(old, q as usize, l, h.at_eof) {
                Placed::ByLine(q as usize, l)
            } else {
                Placed::Ambiguous(ps, count, l, Some((s, q)))
            }
        }
        (Found::Many(ps, count, l), _) => Placed::Ambiguous(ps, count, l, None),
        (Found::One(p, l), _) if told((p, old.len()), hint, block) => Placed::Once(p, l),
        (Found::One(p, l), _) => match misordered(k, old, (from, l), h.at_eof, removed) {
            Some(q) => Placed::Ambiguous(vec![q, p], 2, l, None),
            None => Placed::Once(p, l),
        },
        (Found::None, _) => Placed::Nowhere,
    }
}

/// A unified header's line (said, 0-based shifted) and the block of an
/// `@@` line (its first and past-the-end lines), when a hunk has them.
type Told = (Option<(usize, isize)>, Option<(usize, usize)>);

/// The file's lines hunk `h`, placed at line `p`, removes.
fn removed_lines(h: &Hunk, p: usize) -> impl Iterator<Item = usize> + '_ {
    h.old_lines()
        .enumerate()
        .filter(|(_, x)| x.kind == LineKind::Remove)
        .map(move |(j, _)| p + j)
}

/// Whether something besides the hunk's lines tells that the place found
/// (`p`, `len` lines) is the one meant: a unified header's line at it, or
/// the block of its `@@` line holding it. (An `@@` line whose block does
/// not hold the place found tells nothing about it.)
fn told(
    (p, len): (usize, usize),
    hint: Option<(usize, isize)>,
    block: Option<(usize, usize)>,
) -> bool {
    hint.is_some_and(|(_, q)| q == p as isize) || block.is_some_and(|(s, e)| p >= s && p + len <= e)
}

/// The refusal of hunk `hi` found once at line `p` (`l`) when another
/// place is much like it ([`rival_place`]); only where nothing else tells
/// the place ([`told`]).
fn rival_refusal(
    k: &Keyed<'_>,
    (hi, h): (usize, &Hunk),
    (p, len, l): (usize, usize, HunkLevel),
    (hint, block): Told,
    (style, budget): (LineEnding, &Budget),
) -> Option<HunkFailure> {
    if told((p, len), hint, block) {
        return None;
    }
    let q = rival_place(k, h, (p, len, l), style, budget)?;
    Some(failure(
        hi,
        h,
        ErrorCode::SEARCH_BLOCK_AMBIGUOUS,
        (2, vec![p + 1, q + 1]),
        HunkWhy::Rival { level: l },
    ))
}

/// Another place of the file much like a hunk found once only with its
/// indentation changed (`l`, at line `p`): one holding more of its lines
/// verbatim, or at the hunk's own indentation (a stale view whose own place
/// changed, and a twin elsewhere that fits but for formatting), as a
/// tolerant `patchFile` match is refused for. Its 0-based line, if so.
fn rival_place(
    k: &Keyed<'_>,
    h: &Hunk,
    (p, len, l): (usize, usize, HunkLevel),
    style: LineEnding,
    budget: &Budget,
) -> Option<usize> {
    // Indentation changed to fit: a twin at another depth is the hunk's
    // rival (a whitespace-only or punctuation fit at the same depth is
    // certain enough with the hunk's context).
    if l < HunkLevel::SurroundingWhitespace || len == 0 {
        return None;
    }
    let (search, replace) = sides(h, style, (false, false));
    let span = (k.lines[p].start, k.lines[p + len - 1].next);
    // (Indentation was tolerated: a place at the hunk's own depth counts.)
    let r = crate::likeness::rival(k.text, &search, &replace, span, true, budget)?;
    Some(r.line_number.saturating_sub(1))
}

/// A hunk found once after the previous hunk's place only at a tolerant
/// level `l`, whose lines stand more exactly before it (`from`): hunks out
/// of order, whose one place is not certain (the text before is the one it
/// was made from as likely as the one after; `git apply` and `patch` refuse
/// such a diff). The place before, if so.
///
/// Lines an earlier hunk removes (`removed`) are not a place: that hunk
/// replaces them.
fn misordered(
    k: &mut Keyed<'_>,
    old: &[&str],
    (from, l): (usize, HunkLevel),
    at_eof: bool,
    removed: &[usize],
) -> Option<usize> {
    if from == 0 || l == HunkLevel::Exact || at_eof {
        return None;
    }
    let free = |q: usize| q < from && !removed.iter().any(|&r| r >= q && r < q + old.len());
    match k.find(old, 0, false) {
        Found::One(q, e) if e < l && free(q) => Some(q),
        Found::Many(ps, _, e) if e < l => ps.into_iter().find(|&q| free(q)),
        _ => None,
    }
}

/// A hunk's failure with no diagnosis (`count` places found, at `lines`).
fn failure(
    hi: usize,
    h: &Hunk,
    code: ErrorCode,
    (count, lines): (usize, Vec<usize>),
    why: HunkWhy,
) -> HunkFailure {
    HunkFailure {
        index: hi,
        patch_line: h.line,
        code,
        match_count: count,
        match_lines: lines,
        why: Box::new(why),
        diagnosis: None,
    }
}

/// The hunk's `@@` lines, each found once in turn from `cursor`: the line
/// after the last one and the loosest level any needed; or the failure of
/// the first that is ambiguous or missing.
fn place_anchors(
    k: &mut Keyed<'_>,
    hi: usize,
    h: &Hunk,
    cursor: usize,
    budget: &Budget,
) -> Result<(usize, HunkLevel), HunkFailure> {
    let mut pos = cursor;
    let mut level = HunkLevel::Exact;
    for a in &h.anchors {
        match k.find(&[a.as_str()], pos, false) {
            Found::One(p, l) => {
                pos = p + 1;
                level = level.max(l);
            }
            Found::Many(ps, count, l) => {
                let lines: Vec<usize> = ps.iter().map(|p| p + 1).collect();
                return Err(failure(
                    hi,
                    h,
                    ErrorCode::SEARCH_BLOCK_AMBIGUOUS,
                    (count, lines),
                    HunkWhy::AnchorAmbiguous {
                        anchor: a.clone(),
                        from: pos,
                        level: l,
                    },
                ));
            }
            Found::None => {
                let d = diagnose::not_found(k.text, a, "", "", Said::HUNK, budget, &[]);
                return Err(HunkFailure {
                    diagnosis: Some(Box::new(d)),
                    ..failure(
                        hi,
                        h,
                        ErrorCode::SEARCH_BLOCK_NOT_FOUND,
                        (0, Vec::new()),
                        HunkWhy::AnchorNotFound {
                            anchor: a.clone(),
                            from: pos,
                        },
                    )
                });
            }
        }
    }
    Ok((pos, level))
}

/// The failure of a hunk whose old lines match several places (`found`:
/// their 0-based lines, how many, the level), none of which a unified
/// header's line (`unified`, shifted by `shift`) chooses.
fn ambiguous(
    hi: usize,
    h: &Hunk,
    (ps, count, l): (Vec<usize>, usize, HunkLevel),
    unified: Option<(usize, isize)>,
    shift: isize,
) -> HunkFailure {
    let lines: Vec<usize> = ps.iter().map(|p| p + 1).collect();
    let header = unified.map(|(said, line)| HeaderLine { said, line, shift });
    failure(
        hi,
        h,
        ErrorCode::SEARCH_BLOCK_AMBIGUOUS,
        (count, lines),
        HunkWhy::Ambiguous {
            level: l,
            header,
            hint: h.old_start,
        },
    )
}

/// The failure of a hunk whose old lines are nowhere after line `pos`,
/// with the diagnosis of the hunk as a search block.
fn nowhere(
    text: &[u8],
    hi: usize,
    h: &Hunk,
    old: &[&str],
    pos: usize,
    style: LineEnding,
    budget: &Budget,
) -> HunkFailure {
    let (search, replace) = sides(
        h,
        style,
        (
            explicit_endings(h, text, None, style),
            text.ends_with(b"\r"),
        ),
    );
    let d = diagnose::not_found(text, &search, &replace, "", Said::HUNK, budget, &[]);
    HunkFailure {
        diagnosis: Some(Box::new(d)),
        ..failure(
            hi,
            h,
            ErrorCode::SEARCH_BLOCK_NOT_FOUND,
            (0, Vec::new()),
            HunkWhy::NotFound {
                first: old[0].to_string(),
                count: old.len(),
                after: pos,
                at_eof: h.at_eof,
                hint: h.old_start,
            },
        )
    }
}

/// The failure of hunk `hi` whose lines failed the check made before
/// writing.
fn check_failed(hunks: &[Hunk], hi: usize, why: Unverified) -> HunkFailure {
    failure(
        hi,
        &hunks[hi],
        ErrorCode::PLAN_CHECK_FAILED,
        (1, Vec::new()),
        HunkWhy::Unverified(why),
    )
}

/// Whether a placed hunk's lines say their own line endings: a hunk
/// whose old lines end exactly as the file's lines at its place end (CRLF
/// where the file has CRLF, LF where it has LF: `git diff` of a file with
/// any mix of endings, a Codex patch made from the file's bytes) shows the
/// bytes of every line, so its added lines keep theirs, as `git apply`
/// keeps them (a CRLF -> LF conversion is applied as such, a CRLF line
/// added to an LF file stays CRLF). Endings the file does not have at that
/// place came with the patch's text (a diff sent with CRLF line breaks, or
/// retyped with LF), and then added lines take the file's ending. `at`: the
/// file's lines the hunk's old lines are, when it is placed.
///
/// Only a line that ends in the file says something: old lines that are
/// all the file's last line without a line break (`-last` on `a\r\nb\r\nlast`)
/// end "as the file's" whatever the patch sent, so they show no ending,
/// and in a file of one ending (`style`) the added lines take it. (The
/// last line of a CRLF file ending with a lone CR, a CRLF cut short, shows
/// it when the patch's line has its CR, as `git diff` shows such a line.)
/// In a file with both endings, or none, such a hunk keeps the patch's
/// endings.
fn explicit_endings(h: &Hunk, text: &[u8], at: Option<&[Line]>, style: LineEnding) -> bool {
    if h.old_lines().next().is_none() {
        return false;
    }
    match at {
        Some(lines) => {
            let mut shown = false;
            for (l, ln) in h.old_lines().zip(lines) {
                // The ending of the file's line: CRLF or not, none at all.
                let crlf = if ln.next > ln.end {
                    Some(ln.next > ln.end + 1)
                } else if style == LineEnding::Crlf && text[..ln.end].ends_with(b"\r") {
                    Some(true)
                } else {
                    None
                };
                match crlf {
                    Some(crlf) if crlf == l.cr => shown = true,
                    Some(_) => return false,
                    None => {}
                }
            }
            shown || !matches!(style, LineEnding::Crlf | LineEnding::Lf)
        }
        None => h.old_lines().any(|l| l.cr) && style != LineEnding::Lf,
    }
}

/// The line break an added line gets.
/// A line marked `\ No newline at end of file` keeps its CR where the
/// hunk shows every line's ending and the file's last line ends with a
/// lone CR (`cr_end`: `git diff` of such a file shows it; `git apply`
/// keeps it). A CR there in a diff sent with CRLF breaks is the transport's.
fn added_eol(
    style: LineEnding,
    h: &Hunk,
    l: &HunkLine,
    (explicit, cr_end): (bool, bool),
) -> &'static [u8] {
    if h.style == HunkStyle::Unified && l.no_eol {
        if explicit && cr_end && l.cr {
            b"\r"
        } else {
            b""
        }
    } else if explicit {
        if l.cr {
            b"\r\n"
        } else {
            b"\n"
        }
    } else {
        eol_for(style, l)
    }
}

/// A hunk's old and new sides as texts, each line with the ending the
/// patch gives it (the file's, for a patch that does not say), for
/// diagnosis and for the check of the plan.
fn sides(h: &Hunk, style: LineEnding, (explicit, cr_end): (bool, bool)) -> (String, String) {
    let (mut old, mut new) = (String::new(), String::new());
    for l in &h.lines {
        let eol = if h.style == HunkStyle::Unified && l.no_eol {
            if explicit && cr_end && l.cr {
                "\r"
            } else {
                ""
            }
        } else if l.cr && explicit {
            "\r\n"
        } else if explicit {
            "\n"
        } else {
            std::str::from_utf8(eol_for(style, l)).unwrap_or("\n")
        };
        for (side, keep) in [
            (&mut old, l.kind != LineKind::Add),
            (&mut new, l.kind != LineKind::Remove),
        ] {
            if keep {
                side.push_str(&l.text);
                side.push_str(eol);
            }
        }
    }
    (old, new)
}

/// What hunks tolerate between their lines and the file's at `level`:
/// line breaks are not compared (unless the patch says its own), and each
/// level forgives what its comparison key drops.
fn fold_at(level: HunkLevel, explicit: bool) -> Fold {
    let ws = |l: HunkLevel| {
        if level >= l {
            Trim::Whitespace
        } else {
            Trim::No
        }
    };
    Fold {
        line_endings: !explicit,
        final_break: true,
        trailing: ws(HunkLevel::TrailingWhitespace),
        leading: ws(HunkLevel::SurroundingWhitespace),
        punctuation: level >= HunkLevel::UnicodePunctuation,
        unicode_spaces: level >= HunkLevel::UnicodePunctuation,
    }
}

/// The bytes a placed hunk writes: the file's bytes for context lines,
/// added lines with their line break; a line without a break (the file's
/// last) gets the file's before anything follows it.
fn hunk_bytes(
    text: &[u8],
    lines: &[Line],
    (h, p, reindented): (&Hunk, usize, Option<&[String]>),
    style: LineEnding,
    lead_break: bool,
    explicit: bool,
) -> Vec<u8> {
    let file_eol: &[u8] = if style == LineEnding::Crlf {
        b"\r\n"
    } else {
        b"\n"
    };
    let mut out: Vec<u8> = Vec::new();
    if lead_break {
        out.extend_from_slice(&file_eol[break_written(text, file_eol)..]);
    }
    let ensure_eol = |out: &mut Vec<u8>| {
        if !out.is_empty() && out.last() != Some(&b'\n') {
            out.extend_from_slice(file_eol);
        }
    };
    let mut k = p;
    // The new side's line `j`.
    let mut j = 0;
    let again = match style {
        LineEnding::Mixed | LineEnding::None if !explicit => written_again(h, p),
        _ => Vec::new(),
    };
    for l in &h.lines {
        match l.kind {
            LineKind::Context => {
                ensure_eol(&mut out);
                let ln = lines[k];
                out.extend_from_slice(&text[ln.start..ln.next]);
                k += 1;
                j += 1;
            }
            LineKind::Remove => k += 1,
            LineKind::Add => {
                ensure_eol(&mut out);
                let line = reindented.and_then(|r| r.get(j)).unwrap_or(&l.text);
                out.extend_from_slice(line.as_bytes());
                let eol = match again.get(j).copied().flatten() {
                    Some(f) if !l.no_eol => &text[lines[f].end..lines[f].next],
                    _ => added_eol(style, h, l, (explicit, text.ends_with(b"\r"))),
                };
                out.extend_from_slice(eol);
                j += 1;
            }
        }
    }
    out
}

/// For each line of a hunk's new side, the file's line (an index of the
/// file's lines; the hunk's old side placed at `p`) that it writes again
/// unchanged: an added line whose text a removed line had, aligned with it
/// as the check of the plan aligns them (a line diff of the two sides). In
/// a file of mixed endings such a line keeps the file's ending, which the
/// check holds a line the caller did not change to; the patch's own ending
/// (typed LF over a CRLF line) was refused there (`PLAN_CHECK_FAILED`).
fn written_again(h: &Hunk, p: usize) -> Vec<Option<usize>> {
    let old: Vec<&HunkLine> = h.lines.iter().filter(|l| l.kind != LineKind::Add).collect();
    let new: Vec<&HunkLine> = h
        .lines
        .iter()
        .filter(|l| l.kind != LineKind::Remove)
        .collect();
    let (ob, nb): (Vec<&str>, Vec<&str>) = (
        old.iter().map(|l| l.text.as_str()).collect(),
        new.iter().map(|l| l.text.as_str()).collect(),
    );
    let mut out = vec![None; new.len()];
    for op in crate::text::diff_ops::diff(&ob, &nb, None) {
        if let similar::DiffOp::Equal {
            old_index,
            new_index,
            len,
        } = op
        {
            for d in 0..len {
                let (i, j) = (old_index + d, new_index + d);
                if old[i].kind == LineKind::Remove && new[j].kind == LineKind::Add {
                    out[j] = Some(p + i);
                }
            }
        }
    }
    out
}

/// Writes the new text: original bytes between hunks, each placed hunk's
/// bytes ([`hunk_bytes`]), every hunk checked by [`verify::verify`] against
/// the patch's own lines first.
fn build(
    text: &[u8],
    lines: &[Line],
    hunks: &[Hunk],
    placed: &[(usize, usize, usize, HunkLevel)],
    style: LineEnding,
) -> Result<Vec<u8>, HunkFailure> {
    let offset = |i: usize| lines.get(i).map(|l| l.start).unwrap_or(text.len());
    /// A placed hunk's change, owning what [`Change`] borrows.
    struct Part {
        start: usize,
        end: usize,
        new: Vec<u8>,
        search: String,
        replace: String,
        fold: Fold,
        adds_break: bool,
    }
    let mut parts: Vec<Part> = Vec::with_capacity(placed.len());
    // The last byte of the new text so far (`None`: empty).
    let mut last: Option<u8> = None;
    let mut at = 0;
    for &(hi, p, len, level) in placed {
        let h = &hunks[hi];
        let start = offset(p);
        if start > at {
            last = Some(text[start - 1]);
        }
        // Lines appended after a last line without a break give it one.
        let adds_break =
            start == text.len() && last.is_some_and(|b| b != b'\n') && !h.lines.is_empty();
        let explicit = explicit_endings(h, text, lines.get(p..p + len), style);
        let end = offset(p + len);
        let (search, replace) = sides(h, style, (explicit, text.ends_with(b"\r")));
        let reindented =
            reindented(text, (start, end), h, level, (&search, &replace)).map_err(|why| {
                let code = ErrorCode::SEARCH_BLOCK_NOT_FOUND;
                failure(hi, h, code, (1, Vec::new()), HunkWhy::Unfitted(why))
            })?;
        let new = hunk_bytes(
            text,
            lines,
            (h, p, reindented.as_deref()),
            style,
            adds_break,
            explicit,
        );
        at = end;
        if let Some(&b) = new.last() {
            last = Some(b);
        }
        parts.push(Part {
            start,
            end: at,
            new,
            search,
            replace,
            fold: fold_at(level, explicit),
            adds_break,
        });
    }
    let changes: Vec<Change<'_>> = parts
        .iter()
        .map(|p| Change {
            start: p.start,
            end: p.end,
            new: &p.new,
            search: &p.search,
            replace: &p.replace,
            fold: p.fold,
            takes_break: false,
            adds_break: p.adds_break,
        })
        .collect();
    verify::verify(text, &changes).map_err(|r| check_failed(hunks, placed[r.change].0, r.why))?;
    Ok(verify::compose(text, &changes))
}

/// The new lines of hunk `h`, placed at `level` over `text[start..end]`,
/// re-indented to the file's depth and style where its lines were found
/// with their indentation forgiven ([`tolerant::reindented_hunk`]); `None`:
/// written as the patch has them.
fn reindented(
    text: &[u8],
    (start, end): (usize, usize),
    h: &Hunk,
    level: HunkLevel,
    sides: (&str, &str),
) -> Result<Option<Vec<String>>, Unfitted> {
    if level < HunkLevel::SurroundingWhitespace || !h.lines.iter().any(|l| l.kind == LineKind::Add)
    {
        return Ok(None);
    }
    let Ok(region) = std::str::from_utf8(&text[start..end]) else {
        return Ok(None);
    };
    let punctuation = level >= HunkLevel::UnicodePunctuation;
    tolerant::reindented_hunk(text, start, region, sides, punctuation)
}

/// Hunks for a file that starts with a UTF-8 BOM (`empty`: nothing else),
/// which the text matched does not include: a diff of the file's bytes
/// (`git diff`) shows the BOM at the start of line 1, on the old side and,
/// unless the change removes it, on the new side. The BOM is taken off those lines, and that hunk
/// must then apply at line 1. The answer says whether the file keeps its
/// BOM, and which hunk carried it.
pub(crate) fn without_bom(hunks: &[Hunk], empty: bool) -> (Cow<'_, [Hunk]>, bool, Option<usize>) {
    let Some(at) = hunks.iter().position(|h| {
        h.old_lines()
            .next()
            .is_some_and(|l| l.text.starts_with('\u{FEFF}'))
    }) else {
        return (Cow::Borrowed(hunks), true, None);
    };
    let mut out = hunks.to_vec();
    let h = &mut out[at];
    let first_old = h.lines.iter().position(|l| l.kind != LineKind::Add);
    let first_new = h.lines.iter().position(|l| l.kind != LineKind::Remove);
    // Kept when the new side's first line has it, or when the line that
    // carries it is context (a line added above it leaves it in place:
    // git would write the mark at the start of line 2; the file keeps it
    // at its start).
    let keep = first_new
        .into_iter()
        .chain(first_old.filter(|&i| h.lines[i].kind == LineKind::Context))
        .any(|i| h.lines[i].text.starts_with('\u{FEFF}'));
    for i in [first_old, first_new].into_iter().flatten() {
        if let Some(t) = h.lines[i].text.strip_prefix('\u{FEFF}') {
            h.lines[i].text = t.to_string();
        }
    }
    // A side that was the mark alone (`-<BOM>` or `+<BOM>` and "\ No
    // newline at end of file"), the only line of its side, is an empty
    // text: no line at all once the mark is off. Git shows a file holding
    // only its mark so. The old side is read so only when the file's text
    // is `empty`: else the line stays, and is not found.
    let only = |kind: LineKind| {
        let mut side = h.lines.iter().enumerate().filter(|(_, l)| l.kind == kind);
        match (side.next(), side.next()) {
            (Some((i, l)), None) if l.text.is_empty() && l.no_eol => Some(i),
            _ => None,
        }
    };
    let gone_old = only(LineKind::Remove).filter(|_| empty);
    let gone_new = only(LineKind::Add);
    let no_context = !h.lines.iter().any(|l| l.kind == LineKind::Context);
    if no_context && (gone_old.is_some() || gone_new.is_some()) {
        if gone_old.is_some() {
            // Its added lines go where the empty text was: at the top.
            h.old_start = h.old_start.map(|_| 0);
        }
        // The later line first, so the other keeps its index.
        let mut gone: Vec<usize> = [gone_old, gone_new].into_iter().flatten().collect();
        gone.sort_unstable_by(|a, b| b.cmp(a));
        for i in gone {
            h.lines.remove(i);
        }
    }
    (Cow::Owned(out), keep, Some(at))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::HunkStyle;

    fn hl(kind: LineKind, t: &str) -> HunkLine {
        HunkLine {
            kind,
            text: t.into(),
            cr: false,
            no_eol: false,
        }
    }

    /// A Codex hunk from `" ctx"`, `"-old"`, `"+new"` strings.
    fn hunk(spec: &[&str]) -> Hunk {
        Hunk {
            anchors: Vec::new(),
            lines: spec
                .iter()
                .map(|s| {
                    let (k, t) = s.split_at(1);
                    hl(
                        match k {
                            " " => LineKind::Context,
                            "-" => LineKind::Remove,
                            _ => LineKind::Add,
                        },
                        t,
                    )
                })
                .collect(),
            at_eof: false,
            old_start: None,
            line: 1,
            style: HunkStyle::Codex,
        }
    }

    fn run(text: &str, hunks: &[Hunk]) -> Result<(String, Vec<HunkLevel>), Vec<HunkFailure>> {
        let a = apply(text.as_bytes(), hunks, false)?;
        Ok((
            String::from_utf8(a.text).unwrap(),
            a.hunks.iter().map(|h| h.level).collect(),
        ))
    }

    #[test]
    fn a_call_out_of_time_stops_between_hunks() {
        // Thousands of hunks over a long file cost hunks times its lines:
        // the call's time budget (and a cancellation) stops them.
        let text = "}\n".repeat(1000);
        let hunks: Vec<Hunk> = (0..100).map(|_| hunk(&[" }", "+x"])).collect();
        let spent = crate::model::Cancel::new(None, Some(0));
        std::thread::sleep(std::time::Duration::from_millis(2));
        let f = apply_until(text.as_bytes(), &hunks, false, &spent).unwrap_err();
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].code, ErrorCode::CANCELLED);
        assert!(f[0].message().contains("timeoutMs"), "{}", f[0].message());
    }

    #[test]
    fn exact_replace_keeps_context_bytes_and_reports_line() {
        let a = apply(b"a\nb\nc\n", &[hunk(&[" a", "-b", "+B"])], false).unwrap();
        assert_eq!(a.text, b"a\nB\nc\n");
        assert_eq!(a.hunks[0].line_number, 1);
        assert_eq!(a.hunks[0].level, HunkLevel::Exact);
    }

    #[test]
    fn each_tolerance_level_is_reported() {
        assert_eq!(
            run("x  \ny\n", &[hunk(&[" x", "-y", "+z"])]).unwrap(),
            ("x  \nz\n".into(), vec![HunkLevel::TrailingWhitespace])
        );
        assert_eq!(
            run("    x\ny\n", &[hunk(&[" x", "-y", "+z"])]).unwrap(),
            ("    x\nz\n".into(), vec![HunkLevel::SurroundingWhitespace])
        );
        assert_eq!(
            run(
                "say “hi” — now\nq\n",
                &[hunk(&[" say \"hi\" - now", "-q", "+r"])]
            )
            .unwrap(),
            (
                "say “hi” — now\nr\n".into(),
                vec![HunkLevel::UnicodePunctuation]
            )
        );
        assert_eq!(
            run("a\u{a0}b\n", &[hunk(&["-a b", "+c"])]).unwrap().1,
            vec![HunkLevel::UnicodePunctuation]
        );
    }

    #[test]
    fn unicode_punctuation_level_folds_the_shared_table() {
        // Guillemets, reversed primes, fullwidth quotes and the ellipsis
        // fold here as they do in diagnosis and tolerant matching.
        assert_eq!(
            run(
                "say «hi» ‵x‶ ＇y＂ wait…\nq\n",
                &[hunk(&[" say \"hi\" 'x\" 'y\" wait...", "-q", "+r"])]
            )
            .unwrap(),
            (
                "say «hi» ‵x‶ ＇y＂ wait…\nr\n".into(),
                vec![HunkLevel::UnicodePunctuation]
            )
        );
        // And every character of the table, both ways.
        for (c, a) in crate::text::fold::PUNCTUATION {
            let file = format!("x{c}y\nq\n");
            let (out, lv) = run(&file, &[hunk(&[&format!(" x{a}y"), "-q", "+r"])]).unwrap();
            assert_eq!(
                (out, lv),
                (format!("x{c}y\nr\n"), vec![HunkLevel::UnicodePunctuation])
            );
            let file = format!("x{a}y\nq\n");
            let (out, _) = run(&file, &[hunk(&[&format!(" x{c}y"), "-q", "+r"])]).unwrap();
            assert_eq!(out, format!("x{a}y\nr\n"));
        }
    }

    #[test]
    fn first_level_that_finds_decides_uniqueness() {
        // Exact finds one (line 3); the trailing-space variant on line 1 is not considered.
        let (out, lv) = run("k \nz\nk\n", &[hunk(&["-k", "+K"])]).unwrap();
        assert_eq!((out.as_str(), lv), ("k \nz\nK\n", vec![HunkLevel::Exact]));
        // Two at the first level that finds anything: refused.
        let f = run("k \nz\nk  \n", &[hunk(&["-k", "+K"])]).unwrap_err();
        assert_eq!(f[0].code, ErrorCode::SEARCH_BLOCK_AMBIGUOUS);
        assert_eq!(f[0].match_lines, vec![1, 3]);
    }

    #[test]
    fn crlf_file_gets_crlf_added_lines() {
        let (out, _) = run("a\r\nb\r\n", &[hunk(&[" a", "-b", "+c", "+d"])]).unwrap();
        assert_eq!(out, "a\r\nc\r\nd\r\n");
    }

    #[test]
    fn anchors_and_pure_additions() {
        let mut h = hunk(&["+    added"]);
        h.anchors = vec!["def f():".into()];
        let (out, lv) = run("def g():\n    pass\n  def f():\n    pass\n", &[h]).unwrap();
        assert_eq!(out, "def g():\n    pass\n  def f():\n    added\n    pass\n");
        assert_eq!(lv, vec![HunkLevel::SurroundingWhitespace]);
        // The body may repeat the `@@` line as its first context line.
        let mut r = hunk(&[" def f():", "-    pass", "+    return 1"]);
        r.anchors = vec!["def f():".into()];
        let (out, _) = run("def g():\n    pass\ndef f():\n    pass\n", &[r]).unwrap();
        assert_eq!(out, "def g():\n    pass\ndef f():\n    return 1\n");
        // Codex pure addition without anchor appends, adding the missing final newline first.
        let (out, _) = run("x", &[hunk(&["+y"])]).unwrap();
        assert_eq!(out, "x\ny\n");
        // Unified pure addition is placed by its line number.
        let mut u = hunk(&["+new"]);
        u.style = HunkStyle::Unified;
        u.old_start = Some(1);
        assert_eq!(run("a\nb\n", &[u.clone()]).unwrap().0, "a\nnew\nb\n");
        u.old_start = Some(5);
        assert_eq!(
            run("a\nb\n", &[u]).unwrap_err()[0].code,
            ErrorCode::SEARCH_BLOCK_NOT_FOUND
        );
    }

    #[test]
    fn an_anchor_narrows_to_its_block() {
        // The same lines in two methods: the `@@` line names the method,
        // and the lines are once in its block (braces on their own line,
        // as C# writes them).
        let file = "class A\n{\n    public int Get()\n    {\n        var x = 1;\n        return x;\n    }\n\n    public int GetAll()\n    {\n        var x = 1;\n        return x;\n    }\n}\n";
        let mut second = hunk(&[
            "         var x = 1;",
            "-        return x;",
            "+        return x + 1;",
        ]);
        second.anchors = vec!["public int GetAll()".into()];
        let (out, _) = run(file, &[second]).unwrap();
        assert_eq!(
            out,
            file.replacen("return x;\n    }\n}", "return x + 1;\n    }\n}", 1)
        );
        let mut first = hunk(&[
            "         var x = 1;",
            "-        return x;",
            "+        return 0;",
        ]);
        first.anchors = vec!["public int Get()".into()];
        let (out, _) = run(file, &[first]).unwrap();
        assert_eq!(out, file.replacen("return x;", "return 0;", 1));
        // Python: a block ends at the next line as shallow as its header.
        let py = "def f():\n    x = 1\n    return x\n\ndef g():\n    x = 1\n    return x\n";
        let mut h = hunk(&["     x = 1", "-    return x", "+    return -x"]);
        h.anchors = vec!["def f():".into()];
        assert_eq!(
            run(py, &[h]).unwrap().0,
            py.replacen("return x", "return -x", 1)
        );
        // A directive at the start of a line does not end the block.
        let directives = "    void A()\n    {\n#if NET\n        Go();\n#endif\n        x = 1;\n    }\n    void B()\n    {\n#if NET\n        Go();\n#endif\n        x = 1;\n    }\n";
        let mut h = hunk(&[
            "-#if NET",
            "+#if NET6",
            "         Go();",
            " #endif",
            "         x = 1;",
        ]);
        h.anchors = vec!["void B()".into()];
        assert_eq!(
            run(directives, &[h]).unwrap().0,
            directives.replacen("#if NET\n", "#if NET6\n", 2).replacen(
                "#if NET6\n",
                "#if NET\n",
                1
            )
        );
        // Twice in the block itself, or an anchor whose block holds both
        // places: still ambiguous, nothing chosen.
        let twice = "def f():\n    x = 1\n    x = 1\n";
        let mut h = hunk(&["-    x = 1", "+    x = 2"]);
        h.anchors = vec!["def f():".into()];
        assert_eq!(
            run(twice, &[h]).unwrap_err()[0].code,
            ErrorCode::SEARCH_BLOCK_AMBIGUOUS
        );
        let mut h = hunk(&[
            "         var x = 1;",
            "-        return x;",
            "+        return 2;",
        ]);
        h.anchors = vec!["class A".into()];
        assert_eq!(
            run(file, &[h]).unwrap_err()[0].code,
            ErrorCode::SEARCH_BLOCK_AMBIGUOUS
        );
    }

    #[test]
    fn end_of_file_anchor_and_no_newline_markers() {
        let mut h = hunk(&["-x", "+y"]);
        h.at_eof = true;
        assert_eq!(run("x\nm\nx\n", &[h]).unwrap().0, "x\nm\ny\n");
        let mut u = hunk(&[" a", "-b", "+b"]);
        u.style = HunkStyle::Unified;
        u.lines[1].no_eol = true;
        u.at_eof = true;
        assert_eq!(run("a\nb", &[u.clone()]).unwrap().0, "a\nb\n");
        u.lines[1].no_eol = false;
        u.lines[2].no_eol = true;
        assert_eq!(run("a\nb\n", &[u]).unwrap().0, "a\nb");
        // A last line ending with a lone CR, as `git diff` shows it (the CR
        // before the marker): kept on the new line, as `git apply` keeps it.
        let mut c = hunk(&[" b", "-c", "+x"]);
        c.style = HunkStyle::Unified;
        c.at_eof = true;
        for l in &mut c.lines {
            l.cr = true;
        }
        c.lines[1].no_eol = true;
        c.lines[2].no_eol = true;
        assert_eq!(
            run("a\r\nb\r\nc\r", &[c.clone()]).unwrap().0,
            "a\r\nb\r\nx\r"
        );
        let mut bare = hunk(&["-a\rb\rc", "+a\rX\rc"]);
        bare.style = HunkStyle::Unified;
        bare.at_eof = true;
        for l in &mut bare.lines {
            l.cr = true;
            l.no_eol = true;
        }
        assert_eq!(run("a\rb\rc\r", &[bare]).unwrap().0, "a\rX\rc\r");
        // Without the CR on the file's last line (the patch sent with CRLF
        // breaks over an LF file), none is added.
        assert_eq!(run("a\nb\nc", &[c.clone()]).unwrap().0, "a\nb\nx");
        // Nor in a CRLF file whose last line has no break at all (a diff
        // sent with CRLF breaks shows a CR on every line).
        assert_eq!(run("a\r\nb\r\nc", &[c]).unwrap().0, "a\r\nb\r\nx");
    }

    /// Hunks out of order: the second's lines stand exactly before the
    /// first hunk's place and only under a tolerance after it. Refused as
    /// ambiguous (it was written at the tolerant place after), as `git
    /// apply` and `patch` refuse such a diff; in order, it applies.
    #[test]
    fn a_hunk_found_exactly_before_the_previous_one_and_tolerantly_after_is_refused() {
        let text = "a\nx = 1\nc\ny\nz\na \nx = 1\n";
        let f = run(
            text,
            &[hunk(&[" c", "-y", "+Y"]), hunk(&[" a", "-x = 1", "+x = 2"])],
        )
        .unwrap_err();
        assert_eq!(f[0].code, ErrorCode::SEARCH_BLOCK_AMBIGUOUS, "{f:?}");
        assert_eq!(f[0].match_lines, vec![1, 6], "{f:?}");
        let (out, _) = run(
            text,
            &[hunk(&[" a", "-x = 1", "+x = 2"]), hunk(&[" c", "-y", "+Y"])],
        )
        .unwrap();
        assert_eq!(out, "a\nx = 2\nc\nY\nz\na \nx = 1\n");
        // A line an earlier hunk replaces is not a place before: two hunks
        // changing the same line text, the second's only left place after.
        let toml = "version = \"1.0\"\nname = \"a\"\n\n[dep]\nversion = \"1.0\" \n";
        let two = || hunk(&["-version = \"1.0\"", "+version = \"1.1\""]);
        let (out, _) = run(toml, &[two(), two()]).unwrap();
        assert_eq!(
            out,
            "version = \"1.1\"\nname = \"a\"\n\n[dep]\nversion = \"1.1\"\n"
        );
    }

    /// `load()`'s `timeout` changed since a hunk was made from it; a twin in
    /// `Saver.save()`, deeper, still has the hunk's lines.
    const STALE_TWIN: &str = "def load():\n    retries = 3\n    timeout = 10\n    return retries\n\nclass Saver:\n    def save(self):\n        retries = 3\n        timeout = 5\n        return retries\n";

    /// The hunk made from `load()` as it was (`timeout = 5`).
    fn stale_hunk() -> Hunk {
        hunk(&[
            "     retries = 3",
            "-    timeout = 5",
            "+    timeout = 50",
            "     return retries",
        ])
    }

    /// A stale view: the hunk's own place changed (`timeout = 10`), and a
    /// twin in another function fits it but for indentation. Refused as
    /// ambiguous, as a tolerant `patchFile` match is (it was written into
    /// the twin at the patch's depth, breaking the Python).
    #[test]
    fn a_twin_at_another_depth_found_only_under_a_tolerance_is_refused() {
        let text = STALE_TWIN;
        let f = run(text, &[stale_hunk()]).unwrap_err();
        assert_eq!(f[0].code, ErrorCode::SEARCH_BLOCK_AMBIGUOUS, "{f:?}");
        assert_eq!(f[0].match_lines, vec![8, 2], "{f:?}");
        assert!(matches!(*f[0].why, HunkWhy::Rival { .. }), "{f:?}");
        // At its own indentation it applies.
        let (out, _) = run(
            text,
            &[hunk(&[
                "         retries = 3",
                "-        timeout = 5",
                "+        timeout = 50",
                "         return retries",
            ])],
        )
        .unwrap();
        assert!(out.contains("        timeout = 50\n"), "{out}");
        // Fitted but for trailing whitespace, at the same depth, a twin
        // elsewhere does not make it uncertain: the hunk's context tells.
        let twins = "class A:\n    def run(self):\n        self.setup() \n        self.cleanup_temp_files()\n        self.done()\n\nclass B:\n    def run(self):\n        self.prepare()\n        self.cleanup_temp_files()\n        self.done()\n";
        let (out, _) = run(
            twins,
            &[hunk(&[
                "         self.setup()",
                "-        self.cleanup_temp_files()",
                "         self.done()",
            ])],
        )
        .unwrap();
        assert!(
            out.starts_with(
                "class A:\n    def run(self):\n        self.setup() \n        self.done()\n"
            ),
            "{out}"
        );
    }

    proptest::proptest! {
        /// The one-pass search finds exactly the places a naive scan does,
        /// overlapping ones too.
        #[test]
        fn places_are_the_naive_ones(
            hay in proptest::collection::vec(0u8..3, 0..40),
            want in proptest::collection::vec(0u8..3, 1..6),
        ) {
            let naive: Vec<usize> = (0..=hay.len().saturating_sub(want.len()))
                .filter(|&p| hay.len() >= want.len() && hay[p..p + want.len()] == want[..])
                .collect();
            proptest::prop_assert_eq!(super::places(&hay, &want).collect::<Vec<_>>(), naive);
        }
    }

    /// Tabs with spaces after them for alignment (a Makefile recipe's
    /// continuation, a kernel-style call's arguments) are a tab region: a
    /// line added with spaces takes the tab (`    strip app` was written as
    /// sent, and make stopped at a missing separator).
    #[test]
    fn a_tab_region_with_aligned_continuations_takes_tabs() {
        let mk = "app: main.o\n\t$(CC) -o app \\\n\t    main.o util.o\n\nclean:\n\trm -f app\n";
        let (out, _) = run(
            mk,
            &[hunk(&[
                " app: main.o",
                "     $(CC) -o app \\",
                "         main.o util.o",
                "+    strip app",
            ])],
        )
        .unwrap();
        assert_eq!(
            out,
            "app: main.o\n\t$(CC) -o app \\\n\t    main.o util.o\n\tstrip app\n\nclean:\n\trm -f app\n"
        );
        let c = "int f(void)\n{\n\tint r = g(aaaa,\n\t          bbbb);\n\treturn r;\n}\n";
        let (out, _) = run(
            c,
            &[hunk(&[
                "     int r = g(aaaa,",
                "               bbbb);",
                "+    if (r < 0)",
                "+        return r;",
                "     return r;",
            ])],
        )
        .unwrap();
        assert_eq!(
            out,
            "int f(void)\n{\n\tint r = g(aaaa,\n\t          bbbb);\n\tif (r < 0)\n\t\treturn r;\n\treturn r;\n}\n"
        );
    }

    /// A hunk placed with its lines' indentation forgiven, indented in
    /// another style than the file (a Go file indented with tabs, a patch
    /// typed with spaces), writes its added lines in the file's style and
    /// depth, as a tolerant `patchFile` match re-indents a replacement;
    /// where a new line's depth has no certain counterpart, nothing is
    /// written. In the same style, added lines are written as sent (the
    /// context lines may be what was mistyped).
    #[test]
    fn added_lines_take_the_files_indentation_style_when_it_was_forgiven() {
        let go = "func a() {\n\tx := 1\n\tif x {\n\t\ty()\n\t}\n}\n";
        let (out, levels) = run(
            go,
            &[hunk(&[
                "     if x {",
                "         y()",
                "+        z()",
                "     }",
            ])],
        )
        .unwrap();
        assert_eq!(levels, vec![HunkLevel::SurroundingWhitespace]);
        assert_eq!(
            out,
            "func a() {\n\tx := 1\n\tif x {\n\t\ty()\n\t\tz()\n\t}\n}\n"
        );
        // A modified line and a new block one level in.
        let (out, _) = run(
            go,
            &[hunk(&[
                "     if x {",
                "-        y()",
                "+        if ok {",
                "+            y(1)",
                "+        }",
                "     }",
            ])],
        )
        .unwrap();
        assert_eq!(
            out,
            "func a() {\n\tx := 1\n\tif x {\n\t\tif ok {\n\t\t\ty(1)\n\t\t}\n\t}\n}\n"
        );
        // Spaces in the file, tabs in the patch.
        let py = "class C:\n    def f(self):\n        if a:\n            b()\n        return 1\n";
        let (out, _) = run(py, &[hunk(&[" \t\tif a:", " \t\t\tb()", "+\t\t\tc()"])]).unwrap();
        assert!(
            out.contains("\n            b()\n            c()\n"),
            "{out}"
        );
        // The same style at another depth: as sent.
        let (out, _) = run(
            py,
            &[hunk(&["     if a:", "         b()", "+            c()"])],
        )
        .unwrap();
        assert!(out.contains("\n            c()\n"), "{out}");
        // One depth shown: the step is learnt from the patch's own lines
        // and from the file (a patch in two-space steps, a file of tabs).
        let (out, _) = run(go, &[hunk(&["   if x {", "+    z()"])]).unwrap();
        assert!(out.contains("\tif x {\n\t\tz()\n"), "{out}");
        let (out, _) = run(go, &[hunk(&["   if x {", "+  w()"])]).unwrap();
        assert!(out.contains("\tif x {\n\tw()\n"), "{out}");
        // A file that never steps in has no step to learn: not guessed.
        let f = run("  a\n  b\n", &[hunk(&[" \ta", "+\t\tc"])]).unwrap_err();
        assert!(matches!(*f[0].why, HunkWhy::Unfitted(_)), "{f:?}");
        // Lines the patch nests otherwise than the file: no certain depth.
        let f = run(go, &[hunk(&["     if x {", "     y()", "+        z()"])]).unwrap_err();
        assert_eq!(f[0].code, ErrorCode::SEARCH_BLOCK_NOT_FOUND, "{f:?}");
        assert!(matches!(*f[0].why, HunkWhy::Unfitted(_)), "{f:?}");
    }

    /// What tells a hunk's place besides its lines: an `@@` line whose
    /// block holds the place found, or a header's line at it. An `@@` line
    /// whose block does not hold it tells nothing (the twin in another
    /// function is refused); lines a later hunk shares with an earlier
    /// hunk's context are still a place before it (out of order: refused);
    /// a hunk inside its `@@` line's block applies there although its lines
    /// stand exactly in another function.
    #[test]
    fn an_at_line_tells_a_place_only_inside_its_block() {
        let mut h = stale_hunk();
        h.anchors = vec!["def load():".into()];
        let f = run(STALE_TWIN, &[h]).unwrap_err();
        assert_eq!(f[0].code, ErrorCode::SEARCH_BLOCK_AMBIGUOUS, "{f:?}");

        let text = "def a():\n    x = 1\n    y = 2\n    z = 3\n    w = 4\n\ndef b():\n    x = 1 \n    y = 2\n";
        let f = run(
            text,
            &[
                hunk(&["     y = 2", "-    z = 3", "+    z = 30", "     w = 4"]),
                hunk(&["-    x = 1", "+    x = 10", "     y = 2"]),
            ],
        )
        .unwrap_err();
        assert_eq!(f[0].code, ErrorCode::SEARCH_BLOCK_AMBIGUOUS, "{f:?}");

        let text = "def a():\n    if x:\n        return None\n\ndef c():\n    if x: \n        return None\n";
        let mut h = hunk(&[
            "     if x:",
            "-        return None",
            "+        return False",
        ]);
        h.anchors = vec!["def c():".into()];
        let (out, _) = run(text, &[h]).unwrap();
        assert!(
            out.ends_with("def c():\n    if x: \n        return False\n"),
            "{out}"
        );
    }

    #[test]
    fn hunks_apply_in_order_and_all_failures_are_reported() {
        let text = "f\n1\nf\n2\n";
        let (out, _) = run(
            text,
            &[hunk(&[" f", "-1", "+one"]), hunk(&[" f", "-2", "+two"])],
        )
        .unwrap();
        assert_eq!(out, "f\none\nf\ntwo\n");
        let f = run(
            text,
            &[
                hunk(&["-zz", "+q"]),
                hunk(&["-f", "+F"]),
                hunk(&["-2", "+3"]),
            ],
        )
        .unwrap_err();
        assert_eq!(
            f.iter().map(|f| (f.index, f.code)).collect::<Vec<_>>(),
            vec![
                (0, ErrorCode::SEARCH_BLOCK_NOT_FOUND),
                (1, ErrorCode::SEARCH_BLOCK_AMBIGUOUS)
            ]
        );
    }

    use proptest::prelude::*;

    proptest! {
        #![proptest_config(crate::text::test_seeds::config(1000))]
        // A hunk cut from the file itself (a window of lines, some removed,
        // some added) applies where the window is when the window occurs
        // once, giving the obvious splice; it is refused when it occurs
        // more often. Compared with a reference built on `Vec<&str>`.
        #[test]
        fn hunk_from_the_file_matches_a_reference(
            lines in proptest::collection::vec("[abc]{0,2}", 1..25),
            start in 0usize..25, len in 1usize..5,
            remove in proptest::collection::vec(any::<bool>(), 5),
            add in proptest::collection::vec("[xyz]{1,2}", 0..3),
            crlf in any::<bool>(),
        ) {
            let n = lines.len();
            let start = start % n;
            let len = len.min(n - start);
            let window = &lines[start..start + len];
            let eol = if crlf { "\r\n" } else { "\n" };
            let text: String = lines.iter().map(|l| format!("{l}{eol}")).collect();
            let mut h = Vec::new();
            let mut expected: Vec<String> = lines[..start].to_vec();
            for (k, l) in window.iter().enumerate() {
                if remove[k] {
                    h.push(hl(LineKind::Remove, l));
                } else {
                    h.push(hl(LineKind::Context, l));
                    expected.push(l.clone());
                }
            }
            for a in &add {
                h.push(hl(LineKind::Add, a));
                expected.push(a.clone());
            }
            expected.extend(lines[start + len..].iter().cloned());
            let hunk = Hunk { anchors: Vec::new(), lines: h, at_eof: false, old_start: None, line: 1, style: HunkStyle::Codex };
            let occurrences = (0..=n - len).filter(|&p| lines[p..p + len] == *window).count();
            match apply(text.as_bytes(), &[hunk], false) {
                Ok(a) => {
                    prop_assert_eq!(occurrences, 1);
                    let want: String = expected.iter().map(|l| format!("{l}{eol}")).collect();
                    prop_assert_eq!(String::from_utf8(a.text).unwrap(), want);
                    prop_assert_eq!(a.hunks[0].line_number, start + 1);
                    prop_assert_eq!(a.hunks[0].level, HunkLevel::Exact);
                }
                Err(f) => {
                    prop_assert!(occurrences > 1);
                    prop_assert_eq!(f[0].code, ErrorCode::SEARCH_BLOCK_AMBIGUOUS);
                    prop_assert_eq!(f[0].match_count, occurrences);
                }
            }
        }
    }

    proptest! {
        #![proptest_config(crate::text::test_seeds::config(2000))]
        /// Many hunks over files of few distinct lines (so that windows
        /// repeat, overlap and differ only by whitespace or quotes), with
        /// anchors, unified headers and end-of-file hunks: looking lines up
        /// in the index finds what comparing at every line finds (the same
        /// text, places, levels, failures and counts).
        #[test]
        fn the_line_index_finds_what_every_line_finds(
            lines in proptest::collection::vec(prop::sample::select(vec!["a", "b", " a", "a ", "b\t", "‘c’", "'c'", "", "d"]), 1..40),
            specs in proptest::collection::vec((0usize..40, 1usize..4, any::<bool>(), 0u8..4, 0usize..40), 1..12),
            crlf in any::<bool>(),
        ) {
            let n = lines.len();
            let eol = if crlf { "\r\n" } else { "\n" };
            let text: String = lines.iter().map(|l| format!("{l}{eol}")).collect();
            let hunks: Vec<Hunk> = specs
                .iter()
                .map(|&(start, len, remove, style, anchor)| {
                    let start = start % n;
                    let len = len.min(n - start);
                    let mut h: Vec<HunkLine> = lines[start..start + len]
                        .iter()
                        .enumerate()
                        .map(|(k, l)| hl(if remove && k == 0 { LineKind::Remove } else { LineKind::Context }, l.trim()))
                        .collect();
                    h.push(hl(LineKind::Add, "new"));
                    Hunk {
                        anchors: if style == 1 { vec![lines[anchor % n].to_string()] } else { Vec::new() },
                        lines: h,
                        at_eof: style == 2,
                        old_start: (style == 3).then_some(start + 1),
                        line: 1,
                        style: if style == 3 { HunkStyle::Unified } else { HunkStyle::Codex },
                    }
                })
                .collect();
            let a = apply_indexed(text.as_bytes(), &hunks, false, (true, &Cancel::default()));
            let b = apply_indexed(text.as_bytes(), &hunks, false, (false, &Cancel::default()));
            prop_assert_eq!(a, b);
        }
    }

    #[test]
    fn patches_with_many_hunks_use_the_index() {
        let text: String = (0..1000).map(|i| format!("line {i}\n")).collect();
        let hunks: Vec<Hunk> = (0..20)
            .map(|k| {
                let l = format!("line {}", k * 50);
                hunk(&[&format!("-{l}"), &format!("+L{k}")])
            })
            .collect();
        let a = apply(text.as_bytes(), &hunks, false).unwrap();
        assert_eq!(
            a,
            apply_indexed(text.as_bytes(), &hunks, false, (false, &Cancel::default())).unwrap()
        );
        assert!(String::from_utf8(a.text)
            .unwrap()
            .starts_with("L0\nline 1\n"));
    }

    /// A unified hunk from `" ctx"`, `"-old"`, `"+new"` strings and its
    /// header's old line.
    fn uhunk(spec: &[&str], old_start: usize) -> Hunk {
        let mut h = hunk(spec);
        h.style = HunkStyle::Unified;
        h.old_start = Some(old_start);
        h
    }

    fn placed(a: &Applied) -> Vec<(usize, HunkLevel, LocatedBy)> {
        a.hunks
            .iter()
            .map(|h| (h.line_number, h.level, h.located_by))
            .collect()
    }

    #[test]
    fn unified_header_line_chooses_among_equal_places() {
        // `git diff -U0` deleting the second of two `}` lines.
        let text = b"if a {\n}\nif b {\n}\nend\n";
        let a = apply(text, &[uhunk(&["-}"], 4)], false).unwrap();
        assert_eq!(a.text, b"if a {\n}\nif b {\nend\n");
        assert_eq!(
            placed(&a),
            vec![(4, HunkLevel::Exact, LocatedBy::LineNumber)]
        );
        let a = apply(text, &[uhunk(&["-}"], 2)], false).unwrap();
        assert_eq!(a.text, b"if a {\nif b {\n}\nend\n");
        assert_eq!(
            placed(&a),
            vec![(2, HunkLevel::Exact, LocatedBy::LineNumber)]
        );
        // The same hunk without a header line (Codex) stays exactly-once.
        let f = apply(text, &[hunk(&["-}"])], false).unwrap_err();
        assert_eq!(f[0].code, ErrorCode::SEARCH_BLOCK_AMBIGUOUS);
        // So does a Codex hunk that carries a unified `@@ -l,n` line.
        let mut c = hunk(&["-}"]);
        c.old_start = Some(4);
        let f = apply(text, &[c], false).unwrap_err();
        assert_eq!(f[0].code, ErrorCode::SEARCH_BLOCK_AMBIGUOUS);
        assert_eq!(f[0].match_lines, vec![2, 4]);
    }

    #[test]
    fn no_place_at_the_header_line_is_still_ambiguous() {
        let text = b"if a {\n}\nif b {\n}\nend\n";
        for line in [1, 3, 5, 9] {
            let f = apply(text, &[uhunk(&["-}"], line)], false).unwrap_err();
            assert_eq!(f[0].code, ErrorCode::SEARCH_BLOCK_AMBIGUOUS, "line {line}");
            assert_eq!(
                (f[0].match_count, f[0].match_lines.clone()),
                (2, vec![2, 4])
            );
            assert!(
                f[0].message()
                    .contains(&format!("none of them starts at the header's line {line}")),
                "{}",
                f[0].message()
            );
        }
        // The header's line must hold the whole old side, not just its start.
        let text = b"x\ny\nx\nz\nx\ny\n";
        let f = apply(text, &[uhunk(&[" x", "-y"], 3)], false).unwrap_err();
        assert_eq!(f[0].match_lines, vec![1, 5]);
        // Nor may it point before the end of the previous hunk.
        let text = b"x\ny\nz\nx\ny\nx\ny\n";
        let f = apply(
            text,
            &[uhunk(&["-z", "+Z"], 3), uhunk(&[" x", "-y"], 1)],
            false,
        )
        .unwrap_err();
        assert_eq!(
            (f[0].index, f[0].code),
            (1, ErrorCode::SEARCH_BLOCK_AMBIGUOUS)
        );
        assert_eq!(f[0].match_lines, vec![4, 6]);
    }

    #[test]
    fn a_unique_place_wins_over_the_header_line() {
        // Exact finds one place (line 3); the header names line 1, which
        // only matches ignoring trailing whitespace.
        let a = apply(b"k \nz\nk\n", &[uhunk(&["-k", "+K"], 1)], false).unwrap();
        assert_eq!(a.text, b"k \nz\nK\n");
        assert_eq!(placed(&a), vec![(3, HunkLevel::Exact, LocatedBy::Content)]);
        // Far off, as hand-written headers are.
        let a = apply(b"a\nb\n", &[uhunk(&["-b", "+c"], 90)], false).unwrap();
        assert_eq!(placed(&a), vec![(2, HunkLevel::Exact, LocatedBy::Content)]);
    }

    #[test]
    fn the_header_line_chooses_at_the_deciding_level() {
        // Exact finds nothing; ignoring trailing whitespace finds lines 1
        // and 3; the header names line 3.
        let a = apply(b"k \nz\nk  \n", &[uhunk(&["-k", "+K"], 3)], false).unwrap();
        assert_eq!(a.text, b"k \nz\nK\n");
        assert_eq!(
            placed(&a),
            vec![(3, HunkLevel::TrailingWhitespace, LocatedBy::LineNumber)]
        );
    }

    #[test]
    fn header_lines_follow_the_shift_of_the_previous_hunk() {
        // The diff was made before two lines were added at the top: hunk 1
        // is found once, two lines below its header; hunk 2's `}` occurs
        // twice after it, and its header line shifted by two picks the
        // second (unshifted, line 4 would pick the first); the pure
        // insertion of hunk 3 (after old line 5) is shifted as much.
        let text = b"new1\nnew2\nhead\n}\nmid\n}\ntail\n";
        let hunks = [
            uhunk(&["-head", "+HEAD"], 1),
            uhunk(&["-}"], 4),
            uhunk(&["+added"], 5),
        ];
        let a = apply(text, &hunks, false).unwrap();
        assert_eq!(a.text, b"new1\nnew2\nHEAD\n}\nmid\ntail\nadded\n");
        assert_eq!(
            placed(&a),
            vec![
                (3, HunkLevel::Exact, LocatedBy::Content),
                (6, HunkLevel::Exact, LocatedBy::LineNumber),
                (8, HunkLevel::Exact, LocatedBy::LineNumber),
            ]
        );
        // Without the lines at the top, the same hunks land on the header lines.
        let a = apply(b"head\n}\nmid\n}\ntail\n", &hunks, false).unwrap();
        assert_eq!(a.text, b"HEAD\n}\nmid\ntail\nadded\n");
        // A shifted pure insertion beyond the end is refused, naming both lines.
        let f = apply(
            text,
            &[uhunk(&["-head", "+HEAD"], 1), uhunk(&["+x"], 6)],
            false,
        )
        .unwrap_err();
        assert_eq!(f[0].code, ErrorCode::SEARCH_BLOCK_NOT_FOUND);
        assert!(
            f[0].message()
                .contains("line 6 (line 8 after the +2 line shift"),
            "{}",
            f[0].message()
        );
    }

    #[test]
    fn located_by_for_codex_hunks() {
        let a = apply(
            b"a\nb\n",
            &[hunk(&[" a", "-b", "+c"]), hunk(&["+d"])],
            false,
        )
        .unwrap();
        assert_eq!(
            a.hunks.iter().map(|h| h.located_by).collect::<Vec<_>>(),
            vec![LocatedBy::Content, LocatedBy::EndOfFile]
        );
        let mut h = hunk(&["+x"]);
        h.anchors = vec!["a".into()];
        let a = apply(b"a\nb\n", &[h], false).unwrap();
        assert_eq!(a.hunks[0].located_by, LocatedBy::Content);
    }

    #[test]
    fn appending_at_the_end_does_not_move_the_search_position() {
        let a = apply(
            b"a\nb\n",
            &[
                hunk(&["+z"]),
                hunk(&["-a", "+A"]),
                hunk(&["+w"]),
                hunk(&["-b", "+B"]),
            ],
            false,
        )
        .unwrap();
        assert_eq!(a.text, b"A\nB\nz\nw\n");
        assert_eq!(
            a.hunks.iter().map(|h| h.line_number).collect::<Vec<_>>(),
            vec![3, 1, 3, 2]
        );
        // The file's last line has no line break: the appended lines follow
        // a replaced last line.
        let a = apply(b"a\nb", &[hunk(&["+z"]), hunk(&["-b", "+B"])], false).unwrap();
        assert_eq!(a.text, b"a\nB\nz\n");
    }

    proptest! {
        #![proptest_config(crate::text::test_seeds::config(1000))]
        // A unified hunk cut from the file, whose header names either the
        // window's own line or any other line: when the window occurs once
        // it applies there whatever the header says; when it occurs more
        // often it applies at the header's line if the window also occurs
        // there, and is refused otherwise.
        #[test]
        fn unified_hunk_from_the_file_uses_its_header_line_only_to_choose(
            lines in proptest::collection::vec("[ab]{0,1}", 1..20),
            start in 0usize..20, len in 1usize..4,
            remove in proptest::collection::vec(any::<bool>(), 4),
            add in proptest::collection::vec("[xyz]{1,2}", 0..3),
            true_line in any::<bool>(), other in 0usize..22,
        ) {
            let n = lines.len();
            let start = start % n;
            let len = len.min(n - start);
            let window = &lines[start..start + len];
            let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
            let mut body = Vec::new();
            let mut new_side: Vec<String> = Vec::new();
            for (k, l) in window.iter().enumerate() {
                if remove[k] {
                    body.push(hl(LineKind::Remove, l));
                } else {
                    body.push(hl(LineKind::Context, l));
                    new_side.push(l.clone());
                }
            }
            for a in &add {
                body.push(hl(LineKind::Add, a));
                new_side.push(a.clone());
            }
            let header = if true_line { start + 1 } else { other + 1 };
            let hunk = Hunk { anchors: Vec::new(), lines: body, at_eof: false, old_start: Some(header), line: 1, style: HunkStyle::Unified };
            let at = |p: usize| p + len <= n && lines[p..p + len] == *window;
            let occurrences = (0..=n - len).filter(|&p| at(p)).count();
            let splice = |p: usize| -> String {
                lines[..p].iter().chain(&new_side).chain(&lines[p + len..]).map(|l| format!("{l}\n")).collect()
            };
            let r = apply(text.as_bytes(), &[hunk], false);
            if occurrences == 1 {
                let a = r.unwrap();
                prop_assert_eq!(String::from_utf8(a.text.clone()).unwrap(), splice(start));
                prop_assert_eq!(placed(&a), vec![(start + 1, HunkLevel::Exact, LocatedBy::Content)]);
            } else if at(header - 1) {
                let a = r.unwrap();
                prop_assert_eq!(String::from_utf8(a.text.clone()).unwrap(), splice(header - 1));
                prop_assert_eq!(placed(&a), vec![(header, HunkLevel::Exact, LocatedBy::LineNumber)]);
            } else {
                prop_assert!(!true_line);
                let f = r.unwrap_err();
                prop_assert_eq!(f[0].code, ErrorCode::SEARCH_BLOCK_AMBIGUOUS);
                prop_assert_eq!(f[0].match_count, occurrences);
            }
        }
    }

    #[test]
    fn bytes_mode_refuses_non_ascii_additions() {
        let f = apply(b"caf\xe9\nx\n", &[hunk(&["-x", "+\u{e9}"])], true).unwrap_err();
        assert_eq!(f[0].code, ErrorCode::UNSUPPORTED_ENCODING);
        let a = apply(
            b"caf\xe9\nx\n",
            &[hunk(&[" caf\u{fffd}", "-x", "+y"])],
            true,
        );
        assert!(
            a.is_err(),
            "a replacement character never matches the invalid byte"
        );
        let a = apply(b"caf\xe9\nx\n", &[hunk(&["-x", "+y"])], true).unwrap();
        assert_eq!(a.text, b"caf\xe9\ny\n");
    }
}
