//! Elision markers in new text: expanded when they have one reading,
//! refused otherwise. Pure: bytes in, a verdict out.
//!
//! ## Why
//!
//! The commonest way a model destroys code is the lazy elision: it writes
//! `// ... existing code ...` in its new text to mean "keep the lines that
//! were here". Written literally, those lines are gone. This module finds
//! such a marker (a line [`is_marker`] accepts that the old text does not
//! have) and decides, with no model and no similarity guess, whether the
//! old lines it stands for are certain.
//!
//! ## How
//!
//! A marker stands for lines of the text the caller replaces, no others:
//! for an edit, its own block (the old bytes between the pieces of the new
//! text borrowed from the file, widened to whole lines; see [`check`]),
//! whose edges are bounds as certain as the file's; for a whole-file write,
//! the whole old text. Old and new text are compared line by line, over the
//! region that changed (whole lines of common prefix and suffix left out,
//! [`CONTEXT`] of them kept on each side so that a tie reaching past the
//! change is seen). Then an exact alignment of the region: old lines are
//! kept (an equal new line), deleted (cost `del`), new lines inserted (cost
//! `ins`), and a marker line may stand for a run of one or more old lines
//! (cost 0) — only between two kept pairs (or an edge of the text): a marker
//! next to a new or changed line has no certain boundary (did the new line
//! replace the old one beside it, or join it?), so that reading is not one.
//! The alignment of least cost is the smallest edit outside the markers, as
//! a diff counts it ("keep the most lines" is not it: it re-inserts the
//! lines before the marker and keeps the old ones too).
//!
//! Forward and backward tables ([`Table`]) give, for every cell and every
//! way a step can end, the least cost of the text before and after it; a
//! choice for a marker is part of some optimal alignment exactly when the
//! two around it add up to the optimum. So a marker's reading is certain
//! when exactly one run of old lines is optimal for it and writing it
//! literally is not optimal: then every optimal alignment expands it the
//! same way (a proof, not a heuristic). Each bound must also pin the run:
//! walking away from the marker through kept lines, a line that occurs once
//! in the old text and once in the new one must come before any line that
//! is not kept (a `}`, a blank line or `#[doc(hidden)]` that occurs many
//! times could pair with another copy of itself; a blank line or a lone
//! comment leader never pins), and the text of a bound must not occur
//! inside the run (it could pair with that line instead, the lines between
//! deleted rather than kept). Each of these rules was added after the
//! lazy-edit benchmark (`tests/replay/lazy.rs`) found a wrong write
//! without it.
//!
//! A marker is written as sent (a new comment) only when that is its one
//! optimal reading and it removes nothing: some alignment of least cost
//! deletes no old line at all, and in one of those the marker sits
//! directly between two kept lines that are neighbours in the old text,
//! each pinned, or among new lines (both lines beside it new, or braces
//! and blank lines with new code past them, or the marker is the last line
//! of a block that is new code up to its header and the next line closes
//! it; no reading between kept lines at any cost; the kept lines around
//! the new ones pinned, looking past a `}` or blank line the new code also
//! holds); so is a marker line the old text already has, unless the new
//! text holds more copies of it (then each copy may be that old line,
//! kept, or a marker: two readings are refused). A public C#
//! history's commit adding a type with `// ... null, range checks etc ...`
//! after its method's `{` and `// ... some other properties etc ...` before
//! its class's `}` was refused before these readings. Anything else is
//! refused: a marker next to a change may have hidden the lines it
//! touches, their copies paired with new lines further on.

//! ## Cost
//!
//! [`prefilter`] looks for marker keywords in the new text's own pieces
//! (those not borrowed from the old text) and looks at the lines around
//! each hit; no marker line, no further work, so a 200 MiB edit without a
//! marker pays a scan of its replacement. The tables are `(n+1)*(m+1)`
//! cells over the changed region; past [`MAX_CELLS`] the region is only
//! diffed (Myers): its markers are written when the diff deletes no old
//! line, else refused as too large to align with certainty.

use std::collections::HashMap;

use super::marker::{in_prose, is_comment, trails_comment, Markers, FOREIGN_PHRASES, KEYWORDS};
use crate::result::files::LineEnding;
use crate::text::lines::{line_ending, line_start};

/// Places a walk from a marker through inserted lines tries on each side.
const WALK_CANDIDATES: usize = 8;
/// Lines of punctuation alone (`{`, `}`, blank) between a new comment and
/// the new code around it, at most, for it to count as inside new code.
const PUNCTUATION_BESIDE: usize = 2;
/// Lines above a `}` looked through for its block's header.
const HEADER_REACH: usize = 400;
/// Unchanged lines kept on each side of the changed region.
pub(crate) const CONTEXT: usize = 16;
/// Most table cells aligned exactly (each of six tables of `u32`: 48 MiB at
/// most).
pub(crate) const MAX_CELLS: usize = 2 << 20;

/// What one marker stood for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct KeptRun {
    /// The marker line, trimmed.
    pub(crate) marker: String,
    /// 1-based line of the marker in the new text as sent.
    pub(crate) line: usize,
    /// 1-based first and last line of the old text it keeps.
    pub(crate) from: usize,
    pub(crate) to: usize,
}

/// Why a marker was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Why {
    /// Several readings are equally good.
    Ambiguous,
    /// A new or changed line is beside the marker.
    NextToChange,
    /// A bound beside the marker occurs more than once, and no line unique
    /// in both texts is reached from it through kept lines.
    WeakBound,
    /// The text of a bound beside the marker occurs inside the run it
    /// would stand for.
    BoundInside,
    /// The changed region is too large to align exactly.
    TooLarge,
    /// Its one reading leaves the text as it was: a line beside it was
    /// new after all, the same as the old one it hid.
    NoChange,
    /// Its one reading keeps a line (unique in the old text) that the new
    /// text also writes elsewhere: that line would be written twice, and
    /// whether it was moved or copied is not certain.
    Copied,
    /// Its reading deletes the first (or last) lines of the text, beyond
    /// the unchanged lines between them and the marker: those lines may
    /// have been moved there from beside the marker's run (an import
    /// hoisted to the top, the rest elided), which would keep the deleted
    /// lines inside the run. Which was meant is not certain.
    Moved,
    /// Its call's edits were applied one after another (an edit's block
    /// overlaps what an earlier one changed, or touches it), so the lines
    /// it stands for are those of the text the earlier edits left, which
    /// the expansion against the file as read may not be.
    InTurn,
    /// Its one reading writes it as a line of the file, standing for no
    /// line, while another marker of the same text stands for lines.
    Stray,
    /// The kept lines on one side of it are reached over deleted lines:
    /// the line beside it may be a changed one (see `run_beside_deletion`).
    BesideDeletion,
    /// A new line is beside it, in a change that deletes no line: it may
    /// stand for lines past the edit that the new line was meant to follow.
    BesideNew,
    /// It stands between two kept lines that are neighbours in the old
    /// text (for no line where it is), while the change deletes lines
    /// elsewhere, which it may stand for: the refusal names those.
    Elsewhere,
}

/// A marker refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Refusal {
    pub(crate) marker: String,
    /// 1-based line of the marker in the new text as sent.
    pub(crate) line: usize,
    /// 1-based lines of the old text it would delete, with their text
    /// (without line breaks; at most [`SHOWN`] of them).
    pub(crate) deletes: Vec<(usize, String)>,
    /// How many old lines it would delete in all.
    pub(crate) deleted: usize,
    pub(crate) why: Why,
}

/// Optimal runs of one marker looked at, at most, when writing it as it
/// is is optimal too.
const MAX_RUNS: usize = 16;

/// Old lines a refusal shows at most.
pub(crate) const SHOWN: usize = 40;

/// The verdict on a new text.
#[derive(Debug)]
pub(crate) enum Verdict {
    /// Nothing to change: no marker, or every marker is written as sent.
    Kept,
    /// The markers expanded: the new text is `old[..start]`, `mid`,
    /// `old[end..]`.
    Expanded {
        start: usize,
        end: usize,
        mid: Vec<u8>,
        kept: Vec<KeptRun>,
    },
    /// A marker has no certain reading (the first such marker).
    Refused(Box<Refusal>),
}

/// The refusal, for `why`, of the marker that kept the run `k` of `old`
/// (the lines it would delete were it written as sent).
pub(crate) fn refusal_of(old: &[u8], k: &KeptRun, why: Why) -> Refusal {
    let deletes = split_lines(old)
        .into_iter()
        .enumerate()
        .skip(k.from - 1)
        .take((k.to + 1 - k.from).min(SHOWN))
        .map(|(i, l)| (i + 1, String::from_utf8_lossy(key(l)).into_owned()))
        .collect();
    Refusal {
        marker: k.marker.clone(),
        line: k.line,
        deletes,
        deleted: k.to + 1 - k.from,
        why,
    }
}

/// The refusal, for `why`, of the marker `marker` (a line's trimmed text)
/// sent within the line of `new` (pieces) that holds it first; no lines
/// are named (neither reading of the text found it).
pub(crate) fn refusal_at(new: &[&[u8]], marker: &str, why: Why) -> Refusal {
    let text = new.concat();
    let line = split_lines(&text)
        .iter()
        .position(|l| String::from_utf8_lossy(l).contains(marker))
        .map_or(1, |k| k + 1);
    Refusal {
        marker: marker.to_string(),
        line,
        deletes: Vec::new(),
        deleted: 0,
        why,
    }
}

/// Whether `p` lies inside `old` (a piece borrowed from the text read).
/// An empty piece does when it points before the end of `old`: where two
/// edits touch, it tells their blocks apart.
pub(crate) fn borrowed(old: &[u8], p: &[u8]) -> bool {
    let (o, q) = (old.as_ptr() as usize, p.as_ptr() as usize);
    q >= o
        && if p.is_empty() {
            q < o + old.len()
        } else {
            q + p.len() <= o + old.len()
        }
}

/// Whether the new text may hold a marker line: a keyword in a piece of its
/// own whose line (continued into the pieces beside it) is a marker.
pub(crate) fn prefilter(old: &[u8], new: &[&[u8]], markers: Markers) -> bool {
    use aho_corasick::AhoCorasick;
    use std::sync::OnceLock;
    static AC: OnceLock<AhoCorasick> = OnceLock::new();
    let ac = AC.get_or_init(|| {
        AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .build(KEYWORDS.iter().chain(FOREIGN_PHRASES))
            .expect("valid patterns")
    });
    for (k, p) in new.iter().enumerate().filter(|(_, p)| !borrowed(old, p)) {
        let mut after = 0;
        for m in ac.find_iter(*p) {
            if m.start() < after {
                continue;
            }
            let a = line_start(p, m.start());
            let b = memchr::memchr(b'\n', &p[m.end()..]).map_or(p.len(), |k| m.end() + k);
            after = b;
            if markers.is(&String::from_utf8_lossy(&whole_line(new, k, a, b))) {
                return true;
            }
        }
    }
    false
}

/// Bytes a line is followed into the pieces beside it, at most (a longer
/// line is no marker).
const LINE_REACH: usize = 256;

/// The line holding bytes `a..b` of piece `k` (which start or end a line
/// of the piece, or its edge): continued into the pieces before and after
/// it up to their line breaks, within [`LINE_REACH`].
fn whole_line(new: &[&[u8]], k: usize, a: usize, b: usize) -> Vec<u8> {
    let p = new[k];
    let mut line = p[a..b].to_vec();
    if a == 0 {
        for q in new[..k].iter().rev() {
            let from = memchr::memrchr(b'\n', q).map_or(0, |i| i + 1);
            let head = &q[from.max(q.len().saturating_sub(LINE_REACH))..];
            line.splice(0..0, head.iter().copied());
            if from > 0 || line.len() > LINE_REACH {
                break;
            }
        }
    }
    if b == p.len() {
        for q in &new[k + 1..] {
            let to = memchr::memchr(b'\n', q).unwrap_or(q.len());
            line.extend_from_slice(&q[..to.min(LINE_REACH)]);
            if to < q.len() || line.len() > LINE_REACH {
                break;
            }
        }
    }
    line
}

/// Lines of `text` with their line breaks.
fn split_lines(text: &[u8]) -> Vec<&[u8]> {
    text.split_inclusive(|&b| b == b'\n').collect()
}

/// A line without its line break.
fn key(l: &[u8]) -> &[u8] {
    let l = l.strip_suffix(b"\n").unwrap_or(l);
    l.strip_suffix(b"\r").unwrap_or(l)
}

/// A line without its line break and indentation (nor trailing blanks).
fn bare(l: &[u8]) -> &[u8] {
    key(l).trim_ascii()
}

/// Byte length of the common prefix of whole lines of `a` and `b`.
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let mut i = 0;
    while i + 4096 <= n && a[i..i + 4096] == b[i..i + 4096] {
        i += 4096;
    }
    while i < n && a[i] == b[i] {
        i += 1;
    }
    if i == a.len() && i == b.len() {
        return i;
    }
    line_start(a, i)
}

/// Byte length of the common suffix of whole lines of `a` and `b`.
fn common_suffix(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let mut i = 0;
    while i + 4096 <= n && a[a.len() - i - 4096..a.len() - i] == b[b.len() - i - 4096..b.len() - i]
    {
        i += 4096;
    }
    while i < n && a[a.len() - 1 - i] == b[b.len() - 1 - i] {
        i += 1;
    }
    // Whole lines only: the suffix starts a line in both texts.
    let (at, bt) = (a.len() - i, b.len() - i);
    if (at == 0 || a[at - 1] == b'\n') && (bt == 0 || b[bt - 1] == b'\n') {
        return i;
    }
    match memchr::memchr(b'\n', &a[at..]) {
        Some(k) => i - k - 1,
        None => 0,
    }
}

/// Whether line `new` (trimmed) rewrites line `old`: they share a start
/// of half the shorter one at least, four bytes at least (`const settings
/// = read();` over `const settings = load();`).
fn rewrites(old: &str, new: &str) -> bool {
    let shared = old
        .bytes()
        .zip(new.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    shared >= 4 && 2 * shared >= old.len().min(new.len())
}

/// Whether a line is blank once comment leaders are taken away (`//`,
/// `#`, ` * `, `--`, `<!-- -->`, ...): no pin, as generic as an empty line.
fn blank(l: &[u8]) -> bool {
    l.iter()
        .all(|c| c.is_ascii_whitespace() || b"/#*-;%<>!".contains(c))
}

/// Whether a line holds a letter or digit: a line of code or prose, not a
/// brace or blank line that pairs with any of its copies.
fn worded(l: &[u8]) -> bool {
    l.iter().any(u8::is_ascii_alphanumeric)
}

/// Whether a line of punctuation alone closes a block (`}`, `});`).
fn closes_block(l: &[u8]) -> bool {
    let t = l.trim_ascii();
    !worded(t) && t.first().is_some_and(|c| b"})]".contains(c))
}

/// Whether `b` is a brace, a bracket or a separator (`{`, `)`, `;`, `,`).
fn punctuation(b: &u8) -> bool {
    b"{}()[];,".contains(b)
}

/// How many lines of `text` are `line` (without line breaks), counted to 2.
fn occurrences(text: &[u8], line: &[u8]) -> usize {
    let mut n = 0;
    for at in memchr::memmem::find_iter(text, line) {
        let starts = at == 0 || text[at - 1] == b'\n';
        let rest = &text[at + line.len()..];
        let ends = rest.is_empty() || rest.starts_with(b"\n") || rest.starts_with(b"\r\n");
        if starts && ends {
            n += 1;
            if n > 1 {
                break;
            }
        }
    }
    n
}

/// The verdict on `new` (pieces, in order) replacing `old`.
///
/// Pieces borrowed from `old` tell where the caller's own text goes: each
/// run of pieces of its own replaces the old bytes between the borrowed
/// pieces around it (an edit's search block), and a marker there stands
/// for lines of that block only, its edges bounds as certain as the file's
/// (the lines outside it are not touched). A new text with no borrowed
/// piece (a whole-file write) is aligned with the whole old text.
pub(crate) fn check(old: &[u8], new: &[&[u8]], m: Markers) -> Verdict {
    if !prefilter(old, new, m) {
        return Verdict::Kept;
    }
    match spans(old, new) {
        Some(spans) => check_spans(old, new, &spans, m),
        None => {
            let new: Vec<u8> = new.concat();
            check_texts(old, &new, (0, 0), m)
        }
    }
}

/// Old bytes `old.0..old.1` replaced by pieces `pieces.0..pieces.1` (which
/// may include pieces borrowed from the old text, once spans are merged).
#[derive(Debug, Clone, Copy)]
struct Span {
    old: (usize, usize),
    pieces: (usize, usize),
}

/// The spans the pieces replace, in order, or `None` when no piece is
/// borrowed from `old` or the borrowed pieces go backwards.
fn spans(old: &[u8], new: &[&[u8]]) -> Option<Vec<Span>> {
    let base = old.as_ptr() as usize;
    let mut out = Vec::new();
    let mut at = 0;
    let mut own: Option<usize> = None;
    let mut any = false;
    for (k, p) in new.iter().enumerate() {
        if borrowed(old, p) {
            any = true;
            let s = p.as_ptr() as usize - base;
            if s < at {
                return None;
            }
            if s > at || own.is_some() {
                out.push(Span {
                    old: (at, s),
                    pieces: (own.unwrap_or(k), k),
                });
            }
            own = None;
            at = s + p.len();
        } else if !p.is_empty() && own.is_none() {
            own = Some(k);
        }
    }
    if !any {
        return None;
    }
    if at < old.len() || own.is_some() {
        out.push(Span {
            old: (at, old.len()),
            pieces: (own.unwrap_or(new.len()), new.len()),
        });
    }
    Some(out)
}

/// The verdict on spans of `old` replaced by pieces of `new`: each span,
/// widened to whole lines (spans that then share a line merged), checked
/// as a text of its own.
fn check_spans(old: &[u8], new: &[&[u8]], spans: &[Span], m: Markers) -> Verdict {
    // Widened to whole lines and merged.
    let mut wide: Vec<(usize, usize, Span)> = Vec::new();
    for s in spans {
        let a = line_start(old, s.old.0);
        // The new side ends a line too: its last piece of its own ends with
        // a break (else the borrowed bytes after it finish its last line:
        // a SEARCH/REPLACE block's texts lose their last break, so a
        // replacement ending in a marker over a search ending in a blank
        // line takes that line's break, and that line is in the span).
        let new_ends = new[s.pieces.0..s.pieces.1]
            .iter()
            .rev()
            .find(|p| !p.is_empty())
            .is_none_or(|p| p.ends_with(b"\n"));
        let b = if s.old.1 > s.old.0 && old[s.old.1 - 1] == b'\n' && new_ends {
            s.old.1
        } else {
            memchr::memchr(b'\n', &old[s.old.1..]).map_or(old.len(), |k| s.old.1 + k + 1)
        };
        match wide.last_mut() {
            // Spans that share a line are checked as one.
            Some(w) if a < w.1 => {
                w.1 = w.1.max(b);
                w.2.old.1 = s.old.1;
                w.2.pieces.1 = s.pieces.1;
            }
            _ => wide.push((a, b, *s)),
        }
    }
    let mut out: Vec<u8> = Vec::new();
    let mut kept = Vec::new();
    let (mut old_line, mut new_line, mut seen) = (0usize, 0usize, 0usize);
    let mut blocks: Vec<(usize, usize, Vec<u8>)> = Vec::with_capacity(wide.len());
    for &(a, b, s) in &wide {
        let added = memchr::memchr_iter(b'\n', &old[seen..a]).count();
        old_line += added;
        new_line += added;
        let block: Vec<u8> = [
            &old[a..s.old.0],
            &new[s.pieces.0..s.pieces.1].concat()[..],
            &old[s.old.1..b],
        ]
        .concat();
        match check_texts(&old[a..b], &block, (old_line, new_line), m) {
            Verdict::Kept => blocks.push((a, b, block)),
            Verdict::Refused(r) => return Verdict::Refused(r),
            Verdict::Expanded {
                start,
                end,
                mid,
                kept: k,
            } => {
                kept.extend(k);
                let o = &old[a..b];
                blocks.push((a, b, [&o[..start], &mid[..], &o[end..]].concat()));
            }
        }
        let (ol, nl) = (
            memchr::memchr_iter(b'\n', &old[a..b]).count(),
            memchr::memchr_iter(b'\n', &blocks.last().expect("pushed").2).count(),
        );
        old_line += ol;
        new_line += nl;
        seen = b;
    }
    // Every expansion keeps a run: none kept, nothing expanded.
    if kept.is_empty() {
        return Verdict::Kept;
    }
    let (start, end) = (blocks[0].0, blocks[blocks.len() - 1].1);
    let mut at = start;
    for (a, b, bytes) in &blocks {
        out.extend_from_slice(&old[at..*a]);
        out.extend_from_slice(bytes);
        at = *b;
    }
    Verdict::Expanded {
        start,
        end,
        mid: out,
        kept,
    }
}

/// What the check makes of a whole new text, as the lazy-edit benchmark
/// scores it (see `tests/replay/lazy.rs`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lazy {
    /// Written as sent.
    Kept,
    /// Written expanded: this text.
    Expanded(Vec<u8>),
    /// Refused: nothing written (why, in short).
    Refused(&'static str),
}

/// The check of the new text `new` (pieces, some of them borrowed from
/// `old` as an edit's are) replacing `old`, as a [`Lazy`].
pub fn lazy_outcome(path: &str, old: &[u8], new: &[&[u8]]) -> Lazy {
    match check(old, new, Markers::of(path)) {
        Verdict::Kept => Lazy::Kept,
        Verdict::Refused(r) => Lazy::Refused(match r.why {
            Why::Ambiguous => "ambiguous",
            Why::NextToChange => "next to a change",
            Why::WeakBound => "weak bound",
            Why::BoundInside => "bound inside the run",
            Why::TooLarge => "too large",
            Why::NoChange => "no change",
            Why::Copied => "moved or copied",
            Why::Moved => "moved to an end",
            Why::InTurn => "edits applied in turn",
            Why::Stray => "written beside expanded",
            Why::BesideDeletion => "kept lines beside a deletion",
            Why::Elsewhere => "deletes elsewhere",
            Why::BesideNew => "beside a new line, nothing deleted",
        }),
        Verdict::Expanded {
            start, end, mid, ..
        } => Lazy::Expanded([&old[..start], &mid[..], &old[end..]].concat()),
    }
}

/// The verdict on the whole new text `new` replacing `old` (a file, or an
/// edit's block: its edges are certain bounds), whose first lines are the
/// 0-based lines `lines` of the old and new file.
pub(crate) fn check_texts(old: &[u8], new: &[u8], lines: (usize, usize), m: Markers) -> Verdict {
    let pre = common_prefix(old, new);
    let suf = common_suffix(&old[pre..], &new[pre..]);
    // Context lines before and after the changed region.
    let before = split_lines(&old[..pre]);
    let after = split_lines(&old[old.len() - suf..]);
    let cb = before.len().min(CONTEXT);
    let ca = after.len().min(CONTEXT);
    let start = pre
        - before[before.len() - cb..]
            .iter()
            .map(|l| l.len())
            .sum::<usize>();
    let ctx_after: usize = after[..ca].iter().map(|l| l.len()).sum();
    let (oe, ne) = (old.len() - suf + ctx_after, new.len() - suf + ctx_after);
    let o = split_lines(&old[start..oe]);
    let n = split_lines(&new[start..ne]);
    let first_line = before.len() - cb;
    let region = Region {
        old: &o,
        new: &n,
        changed: (cb, n.len() - ca),
        at_start: first_line == 0,
        at_end: suf == ctx_after,
        first_line: lines.0 + first_line,
        first_new_line: lines.1 + first_line,
        whole: old,
        whole_new: new,
        markers: m,
        diff: std::cell::OnceCell::new(),
    };
    match region.verdict() {
        Found::None => Verdict::Kept,
        Found::Refused(r) => Verdict::Refused(r),
        // Expanded to the old text itself: the edit would change nothing,
        // which is not what its sender meant (a line beside the marker was
        // new after all, the same as the old one the marker hid).
        Found::Expanded(mid, kept) => Verdict::Expanded {
            start,
            end: oe,
            mid,
            kept,
        },
    }
}

/// The lines compared, with where the changed new lines are.
struct Region<'a> {
    old: &'a [&'a [u8]],
    new: &'a [&'a [u8]],
    /// New lines `changed.0..changed.1` are the changed ones (the rest is
    /// context).
    changed: (usize, usize),
    /// The region starts at the start of the text, ends at its end.
    at_start: bool,
    at_end: bool,
    /// 0-based line of the old and of the new file where the region starts.
    first_line: usize,
    first_new_line: usize,
    /// The whole old and new texts (a bound is pinned by a line that occurs
    /// once in each).
    whole: &'a [u8],
    whole_new: &'a [u8],
    /// How the file's marker lines are told.
    markers: Markers,
    /// [`Region::line_diff`], made once, and whether its budget ran out.
    diff: std::cell::OnceCell<(Vec<similar::DiffOp>, bool)>,
}

/// What a region's markers do.
enum Found {
    None,
    Expanded(Vec<u8>, Vec<KeptRun>),
    Refused(Box<Refusal>),
}

impl Region<'_> {
    fn verdict(&self) -> Found {
        let old_keys: HashMap<&[u8], u32> = {
            let mut m = HashMap::new();
            for l in self.old {
                let id = m.len() as u32;
                m.entry(key(l)).or_insert(id);
            }
            m
        };
        // A marker line the old text has is a marker too where the new text
        // holds more copies of it than the old (`# ...` kept in one
        // function and written again over another's body); the alignment
        // then pairs a copy with the old line or lets it stand for a run.
        // So is such a line just outside the change (the text before and
        // after it the same as the old), which may stand for the lines the
        // change deletes beside it: `# ...` left in a file, sent again
        // below a changed header with the lines above it elided.
        let beside = |j: usize, l: &[u8]| {
            (j + 1 == self.changed.0 || j == self.changed.1) && old_keys.contains_key(key(l))
        };
        let like: Vec<bool> = self
            .new
            .iter()
            .enumerate()
            .map(|(j, l)| {
                ((j >= self.changed.0 && j < self.changed.1) || beside(j, l))
                    && self.markers.is(&String::from_utf8_lossy(key(l)))
            })
            .collect();
        let mut copies: HashMap<&[u8], (usize, usize)> = self
            .new
            .iter()
            .zip(&like)
            .filter(|(l, &m)| m && old_keys.contains_key(key(l)))
            .map(|(l, _)| (key(l), (0, 0)))
            .collect();
        if !copies.is_empty() {
            for l in self.old {
                copies.entry(key(l)).and_modify(|c| c.0 += 1);
            }
            for l in self.new {
                copies.entry(key(l)).and_modify(|c| c.1 += 1);
            }
        }
        // A copy of a marker line the old text has, no more copies than it
        // has: the old line kept, unless a reading of least cost has it
        // stand for old lines around it (a leftover `// ... existing code
        // ...` sent again over a body it elides): then it is refused.
        let stale: Vec<bool> = self
            .new
            .iter()
            .enumerate()
            .map(|(j, l)| like[j] && copies.get(key(l)).is_some_and(|&(o, n)| n <= o))
            .collect();
        let markers: Vec<bool> = (0..self.new.len())
            .map(|j| like[j] && !self.prose(j, &old_keys))
            .collect();
        if !markers.contains(&true) {
            return Found::None;
        }
        let ids = |ls: &[&[u8]]| -> Vec<u32> {
            ls.iter()
                .map(|l| old_keys.get(key(l)).copied().unwrap_or(u32::MAX))
                .collect()
        };
        let (oi, ni) = (ids(self.old), ids(self.new));
        let cells = (oi.len() + 1).saturating_mul(ni.len() + 1);
        let top = (oi.len() + ni.len() + 2).saturating_mul(ni.len() + 2);
        if cells > MAX_CELLS || top >= (u32::MAX / 4) as usize {
            // (Too large to align: a marker line the old text has is read
            // as that line, as it was before the check read copies.)
            let live: Vec<bool> = markers.iter().zip(&stale).map(|(&m, &s)| m && !s).collect();
            if !live.contains(&true) {
                return Found::None;
            }
            return self.too_large(&live);
        }
        let t = Table::new(&oi, &ni, &markers, (self.at_start, self.at_end), true);
        self.decide(&t, (&oi, &ni), &markers, &stale)
    }

    /// Whether new line `j` is dots in a comment's prose ([`in_prose`]):
    /// its neighbours are comment lines the old text does not have (dots
    /// between two kept comment lines may stand for the code between them).
    fn prose(&self, j: usize, old_keys: &HashMap<&[u8], u32>) -> bool {
        let text = |k: usize| String::from_utf8_lossy(key(self.new[k])).into_owned();
        let new = |k: usize| !old_keys.contains_key(key(self.new[k]));
        j > 0
            && j + 1 < self.new.len()
            && new(j - 1)
            && new(j + 1)
            && in_prose(&text(j - 1), &text(j), &text(j + 1))
            && !self.code_gone_beside(j)
    }

    /// Whether the change that holds new line `j` (its diff hunk: the old
    /// and new lines between the unchanged lines around it) deletes lines
    /// of code and writes none: dots between new comment lines there may
    /// stand for that code (`// Load settings from disk.`, `// ...`,
    /// `// Start the HTTP server.` over the old comments and the code
    /// between them). A hunk that writes code too rewrote it, unless none
    /// of the code it writes rewrites a line the old comments framed.
    fn code_gone_beside(&self, j: usize) -> bool {
        use similar::DiffOp;
        let ops = self.line_diff();
        let changed = |op: &DiffOp| !matches!(op, DiffOp::Equal { .. });
        let Some(at) = ops
            .iter()
            .position(|op| changed(op) && op.new_range().contains(&j))
        else {
            return false;
        };
        let lo = ops[..at]
            .iter()
            .rposition(|op| !changed(op))
            .map_or(0, |k| k + 1);
        let hi = ops[at..]
            .iter()
            .position(|op| !changed(op))
            .map_or(ops.len(), |k| at + k);
        let text = |l: &[u8]| String::from_utf8_lossy(key(l)).trim().to_string();
        let code = |l: &[u8]| {
            let t = text(l);
            !t.is_empty() && !is_comment(&t)
        };
        let hunk = &ops[lo..hi];
        let olds: Vec<usize> = hunk.iter().flat_map(DiffOp::old_range).collect();
        let news: Vec<usize> = hunk
            .iter()
            .flat_map(DiffOp::new_range)
            .filter(|&k| code(self.new[k]))
            .collect();
        if !olds.iter().any(|&i| code(self.old[i])) {
            return false;
        }
        if news.is_empty() {
            return true;
        }
        // The code the old comments framed (above the last of them) is
        // gone when no new line of code rewrites a line of it: the code the
        // hunk writes changed lines below them.
        let Some(&last) = olds.iter().rev().find(|&&i| is_comment(&text(self.old[i]))) else {
            // No old comment: new comments over code (`// Setup`, `// ...`,
            // `// Start listening` over the setup and the call below it);
            // gone when a line of that code is rewritten by no new one.
            return olds.iter().any(|&i| {
                let o = text(self.old[i]);
                code(self.old[i]) && !news.iter().any(|&k| rewrites(&o, &text(self.new[k])))
            });
        };
        let framed: Vec<String> = olds
            .iter()
            .filter(|&&i| i < last && code(self.old[i]))
            .map(|&i| text(self.old[i]))
            .collect();
        !framed.is_empty()
            && !news
                .iter()
                .any(|&k| framed.iter().any(|o| rewrites(o, &text(self.new[k]))))
    }

    /// Every marker's reading, checked; the expanded region or the first
    /// refusal.
    fn decide(
        &self,
        t: &Table,
        (oi, ni): (&[u32], &[u32]),
        markers: &[bool],
        stale: &[bool],
    ) -> Found {
        let best = t.best;
        let mut kept = Vec::new();
        let mut runs: Vec<Option<(usize, usize)>> = vec![None; ni.len()];
        let mut written = None;
        let mut no_deletion: Option<Table> = None;
        for (j, _) in markers.iter().enumerate().filter(|(_, &m)| m) {
            let found = t.absorbing(j, best, MAX_RUNS);
            // A marker the old text has may be that old line, kept.
            let keeps = ni[j] != u32::MAX
                && (0..oi.len()).any(|i| oi[i] == ni[j] && t.fa(i, j) + t.bk(i + 1, j + 1) == best);
            // (A copy no reading of least cost keeps in its old place is a
            // new marker: the change took the old one away, as a stub's
            // `// ...` replaced by its body, and wrote this one elsewhere.)
            if stale[j] {
                if let Some(run) = self.around_own_copy(j, &found) {
                    return Found::Refused(Box::new(self.refusal(j, run, Why::Ambiguous)));
                }
                if keeps {
                    continue;
                }
            }
            let literal: Vec<usize> = (0..=oi.len())
                .filter(|&i| t.f(i, j) + t.ins + t.bf(i, j + 1) == best)
                .collect();
            if keeps {
                if found.is_empty() && literal.is_empty() {
                    continue;
                }
                let (s, e) = match found.first() {
                    Some(&run) => run,
                    None => self.deleted_beside(t, oi, j, literal[0]),
                };
                return Found::Refused(Box::new(self.refusal(j, (s, e), Why::Ambiguous)));
            }
            if !literal.is_empty() {
                // An edit of least cost has it written as it is. Written as
                // sent only when that is its one reading (no run between
                // kept lines is as good) and it removes nothing: an edit of
                // least cost deletes no old line at all, and in one of them
                // the marker is a clean insertion (see `clean_insert`).
                let quiet = found.is_empty() && {
                    // Among the alignments that delete no old line (made
                    // once: for each marker, a cube of the lines).
                    let kept = no_deletion.get_or_insert_with(|| {
                        Table::new(oi, ni, markers, (self.at_start, self.at_end), false)
                    });
                    let rows: Vec<usize> = (0..=oi.len())
                        .filter(|&i| kept.f(i, j) + kept.ins + kept.bf(i, j + 1) == kept.best)
                        .collect();
                    kept.best == best
                        && (self.clean_insert(kept, oi, ni, markers, j, &rows)
                            || self.ends_new_comment(ni, j))
                };
                if !quiet {
                    return Found::Refused(Box::new(self.unquiet(
                        t,
                        (oi, ni),
                        j,
                        (&found, &literal),
                    )));
                }
                written.get_or_insert(j);
                continue;
            }
            let Some(&(s, e)) = found.first() else {
                // No reading at all cannot be: writing it as it is always
                // is one; refuse rather than guess.
                return Found::Refused(Box::new(self.refusal(j, (0, 0), Why::NextToChange)));
            };
            let why = if found.len() > 1 {
                Some(Why::Ambiguous)
            } else {
                self.bounds(t, oi, ni, markers, (j, s, e))
            };
            if let Some(why) = why {
                return Found::Refused(Box::new(self.refusal(j, (s, e), why)));
            }
            runs[j] = Some((s, e));
            kept.push(KeptRun {
                marker: String::from_utf8_lossy(key(self.new[j])).trim().to_string(),
                line: self.first_new_line + j + 1,
                from: self.first_line + s + 1,
                to: self.first_line + e,
            });
        }
        if kept.is_empty() {
            return Found::None;
        }
        if let Some(r) = self.runs_refused(t, (oi, ni), &runs, written) {
            return Found::Refused(Box::new(r));
        }
        let mid = self.expansion(&runs);
        // Expanded to the old text itself: the edit would change nothing,
        // which is not what its sender meant (a line beside the marker was
        // new after all, the same as the old one the marker hid).
        if self.old.iter().flat_map(|l| l.iter()).eq(mid.iter()) {
            let (j, run) = runs
                .iter()
                .enumerate()
                .find_map(|(j, r)| r.map(|r| (j, r)))
                .expect("a marker was expanded");
            return Found::Refused(Box::new(self.refusal(j, run, Why::NoChange)));
        }
        Found::Expanded(mid, kept)
    }

    /// Whether marker `j`, dots alone, ends a new comment ([`trails_comment`]:
    /// an example that trails off, `#   ...` under `#   client.send(b"hi")`).
    /// In an edit that deletes no line, it stands for no line of the file.
    fn ends_new_comment(&self, ni: &[u32], j: usize) -> bool {
        let text = |k: usize| String::from_utf8_lossy(key(self.new[k])).into_owned();
        j > 0 && ni[j - 1] == u32::MAX && trails_comment(&text(j - 1), &text(j))
    }

    /// For marker `j`, a copy of a marker line the old text has: the run of
    /// least cost that has it stand for its own old copy and other old
    /// lines (a body it was left inside of, gone; the lines a change beside
    /// it deletes), if any: it may be that line kept, or a marker for more.
    /// (A run of its own copy alone is that line kept.) Read as the
    /// old line, a change beside a marker comment of real code (`// ...
    /// some other properties etc ...` kept in a class for years) deletes on
    /// one side, and is written as sent.
    fn around_own_copy(&self, j: usize, found: &[(usize, usize)]) -> Option<(usize, usize)> {
        found
            .iter()
            .copied()
            .find(|&(s, e)| e - s > 1 && (s..e).any(|c| key(self.old[c]) == key(self.new[j])))
    }

    /// The first marker whose run keeps a line (one with a letter or digit)
    /// that the expansion also writes as a new line: diffed against the old
    /// region, the expanded text inserts a line equal to one a run keeps, so
    /// that line is written twice. A model that moves a line up and writes
    /// a marker for the rest (`load()` moved above `init()`, `// ...
    /// existing code ...` after it) reads so, also when another copy of it
    /// elsewhere is deleted or kept; so does one that copies it. Neither is
    /// certain.
    // (A line the old text has once, indentation aside, is compared
    // without it: moved out of a block or into one, it is the same line,
    // re-indented; `return x;` at two depths is two lines.)
    fn copied(&self, runs: &[Option<(usize, usize)>]) -> Option<(usize, (usize, usize))> {
        use similar::DiffOp;
        let mut once: HashMap<&[u8], bool> = HashMap::new();
        for o in self.old {
            once.entry(bare(o))
                .and_modify(|u| *u = false)
                .or_insert(true);
        }
        // A line's identity: its bare text when the old text has that once,
        // else its text with its indentation.
        fn identity<'x>(once: &HashMap<&[u8], bool>, l: &'x [u8]) -> (bool, &'x [u8]) {
            let b = bare(l);
            if once.get(b) == Some(&true) {
                (true, b)
            } else {
                (false, key(l))
            }
        }
        let id = |l| identity(&once, l);
        let kept: std::collections::HashSet<(bool, &[u8])> = runs
            .iter()
            .flatten()
            .flat_map(|&(s, e)| self.old[s..e].iter().map(|o| id(o)))
            .filter(|k| worded(k.1))
            .collect();
        // The expansion's lines, by identity, and the new lines outside
        // runs among them that a run also keeps (no such line, nothing to
        // diff).
        let mut lines: Vec<(bool, &[u8])> = Vec::new();
        let mut twice = false;
        for (l, r) in self.new.iter().zip(runs) {
            match r {
                Some((s, e)) => lines.extend(self.old[*s..*e].iter().map(|o| id(o))),
                None => {
                    twice |= kept.contains(&id(l));
                    lines.push(id(l));
                }
            }
        }
        if !twice {
            return None;
        }
        let old: Vec<(bool, &[u8])> = self.old.iter().map(|l| id(l)).collect();
        // The kept lines the expansion also inserts.
        let inserted: std::collections::HashSet<(bool, &[u8])> =
            crate::text::diff_ops::diff(&old, &lines, None)
                .iter()
                .filter(|op| matches!(op, DiffOp::Insert { .. } | DiffOp::Replace { .. }))
                .flat_map(|op| op.new_range())
                .map(|k| lines[k])
                .filter(|l| kept.contains(l))
                .collect();
        // The marker whose run keeps one of them.
        runs.iter().enumerate().find_map(|(j, r)| {
            let (s, e) = (*r)?;
            self.old[s..e]
                .iter()
                .any(|o| inserted.contains(&id(o)))
                .then_some((j, (s, e)))
        })
    }

    /// The first or last marker, and the old lines its reading deletes at
    /// the start (or end) of the text, before (after) every old line the new
    /// text keeps, when more of them have a letter or digit than the new
    /// lines that stand there (fewer are read as replaced: `pass` then
    /// `return 0`). `import z` then a marker, over `import a`, `import b`,
    /// `import z`, the rest: read as `a` and `b` deleted, or as `import z`
    /// hoisted to the top and the marker keeping `a` and `b` with the rest;
    /// a new line above it (`import re`) or a marker then a changed last
    /// function (`c()` after it deleted) read the same. The second reading is no run between kept lines, but
    /// it is as likely a meaning, so neither is certain. Deletions between
    /// kept lines are not asked about: a line kept on their far side shows
    /// where the caller's text resumes. The lines the new text keeps there
    /// are found by matching its lines, nearest the marker first, with the
    /// old lines in order.
    fn moved_to_an_end(&self, runs: &[Option<(usize, usize)>]) -> Option<(usize, (usize, usize))> {
        // Code lines among `ls`; a blank line or a brace is no kept line
        // either (it pairs with any copy).
        let substantive = |ls: &[&[u8]]| ls.iter().filter(|l| worded(l)).count();
        let first = runs.iter().position(Option::is_some)?;
        let last = runs.iter().rposition(Option::is_some)?;
        if let Some((s, _)) = runs[first] {
            // The first old line kept before the run (else the run's start),
            // and how many new lines come before it.
            let (mut top, mut above) = (s, first);
            for (k, n) in self.new[..first]
                .iter()
                .enumerate()
                .rev()
                .filter(|(_, n)| worded(n))
            {
                if let Some(x) = (0..top).rev().find(|&x| key(self.old[x]) == key(n)) {
                    (top, above) = (x, k);
                }
            }
            if substantive(&self.old[..top]) > substantive(&self.new[..above]) {
                return Some((first, (0, top)));
            }
        }
        if let Some((_, e)) = runs[last] {
            // Past the last old line kept after the run (else the run's
            // end), and how many new lines come after it.
            let (mut end, mut below) = (e, self.new.len() - last - 1);
            for (k, n) in self
                .new
                .iter()
                .enumerate()
                .skip(last + 1)
                .filter(|(_, n)| worded(n))
            {
                if let Some(x) = (end..self.old.len()).find(|&x| key(self.old[x]) == key(n)) {
                    (end, below) = (x + 1, self.new.len() - k - 1);
                }
            }
            if substantive(&self.old[end..]) > substantive(&self.new[self.new.len() - below..]) {
                return Some((last, (end, self.old.len())));
            }
        }
        None
    }

    /// Whether marker `j`, written as it is at old row `i` (one of `rows`)
    /// in an optimal alignment, removes nothing: either it sits between two
    /// kept lines that are neighbours in the old text, each pinned (see
    /// [`Region::bound`]), a new comment between unchanged lines; or no
    /// reading lets it stand for a run between kept lines at any cost, the
    /// lines beside it are new, and the lines inserted around it delete no
    /// old line (a comment inside new code).
    fn clean_insert(
        &self,
        t: &Table,
        oi: &[u32],
        ni: &[u32],
        markers: &[bool],
        j: usize,
        rows: &[usize],
    ) -> bool {
        let (n, m) = (oi.len(), ni.len());
        let kept = |i: usize, k: usize| oi[i] == ni[k] && ni[k] != u32::MAX;
        let between = |i: usize| {
            let before = match (i, j) {
                (0, 0) => self.at_start.then_some(0),
                (0, _) | (_, 0) => None,
                _ => kept(i - 1, j - 1).then(|| t.fa(i - 1, j - 1)),
            };
            let after = match (i == n, j + 1 == m) {
                (true, true) => self.at_end.then_some(0),
                (true, _) | (_, true) => None,
                _ => kept(i, j + 1).then(|| t.bk(i + 1, j + 2)),
            };
            let Some((x, y)) = before.zip(after) else {
                return false;
            };
            x + t.ins + y == t.best
                && (j == 0
                    || self.bound(
                        oi,
                        ni,
                        (i, j),
                        |d| t.fa(i - d, j - d) + t.ins + t.bf(i, j + 1) == t.best,
                        false,
                    ))
                && (j + 1 == m
                    || self.bound(
                        oi,
                        ni,
                        (i, j + 1),
                        |d| t.f(i, j) + t.ins + t.bk(i + d, j + 1 + d) == t.best,
                        true,
                    ))
        };
        if rows.iter().any(|&i| between(i)) {
            return true;
        }
        // Inside new code: both lines beside it are new (no line of the
        // old text: a marker next to an old line shown again touches a
        // change, and the lines it stood for could have been paired with
        // copies further on); or punctuation alone (`{`, `}`, a blank
        // line: at most two) with a new line past it, as the `{` opening a
        // new method's body.
        let new_side = |from: usize, down: bool| {
            let mut k = from;
            for _ in 0..=PUNCTUATION_BESIDE {
                if markers[k] {
                    return false;
                }
                if ni[k] == u32::MAX {
                    return true;
                }
                let l = key(self.new[k]);
                if !l.iter().all(|b| punctuation(b) || b.is_ascii_whitespace()) {
                    return false;
                }
                if down && k + 1 < m {
                    k += 1;
                } else if !down && k > 0 {
                    k -= 1;
                } else {
                    return false;
                }
            }
            false
        };
        // At an edge of the text (the first or last line of an edit's
        // block, past which the file's unchanged lines go on, or of the
        // file) it is not inside new code: it can as well stand for the
        // lines from that edge, with the new lines after it ending in
        // copies of them (a test appended after another, the other's tail
        // elided), the reading its sender meant.
        if j == 0
            || j + 1 == m
            || (j > 0 && !new_side(j - 1, false))
            || (j + 1 < m && !new_side(j + 1, true) && !self.ends_new_block(ni, markers, j))
            || t.any_run(j)
        {
            return false;
        }
        // New lines a..b around it inserted at row i, between kept pairs
        // (or the text's edges), each pinned: it deletes nothing.
        rows.iter().any(|&i| self.inserted_between(t, oi, ni, j, i))
    }

    /// Whether, in an alignment of least cost, marker `j` is among new
    /// lines `a..b` inserted at old row `i` whose kept neighbours (or the
    /// text's edges) are pinned. Past a neighbour that could be kept but is
    /// not pinned (a `}` or a blank line the inserted block also holds),
    /// the walk goes on: the block may end at a later copy.
    fn inserted_between(&self, t: &Table, oi: &[u32], ni: &[u32], j: usize, i: usize) -> bool {
        let (n, m) = (oi.len(), ni.len());
        let kept = |i: usize, k: usize| oi[i] == ni[k] && ni[k] != u32::MAX;
        // Where the inserted lines may start (`ups`) and end (`downs`).
        let mut ups = Vec::new();
        let mut a = j;
        while ups.len() < WALK_CANDIDATES && t.f(i, a) + (j - a) as u32 * t.ins == t.f(i, j) {
            if (a == 0 && i == 0 && self.at_start) || (a > 0 && t.k(i, a) == t.f(i, a)) {
                ups.push(a);
            }
            // Another marker among them is inserted too (its own reading is
            // checked in its turn).
            if a == 0 {
                break;
            }
            a -= 1;
        }
        let mut downs = Vec::new();
        let mut b = j + 1;
        while downs.len() < WALK_CANDIDATES
            && t.bf(i, b) + (b - j - 1) as u32 * t.ins == t.bf(i, j + 1)
        {
            if (b == m && i == n && self.at_end)
                || (b < m && i < n && kept(i, b) && t.bk(i + 1, b + 1) == t.bf(i, b))
            {
                downs.push(b);
            }
            if b == m {
                break;
            }
            b += 1;
        }
        // The kept lines around those new lines pinned: one of them could
        // otherwise be a copy of a line the marker stood for.
        ups.iter().any(|&a| {
            downs.iter().any(|&b| {
                let span = (b - a) as u32 * t.ins;
                let pinned_up = a == 0
                    || self.bound(
                        oi,
                        ni,
                        (i, a),
                        |d| t.fa(i - d, a - d) + span + t.bf(i, b) == t.best,
                        false,
                    );
                pinned_up
                    && (b == m
                        || self.bound(
                            oi,
                            ni,
                            (i, b),
                            |d| t.f(i, a) + span + t.bk(i + d, b + d) == t.best,
                            true,
                        ))
            })
        })
    }

    /// Whether marker `j` is the last line of a block that is new code
    /// throughout: the next line closes it (`}`, `)`, `]`, shallower than
    /// the marker), the line above is no deeper than the marker (the marker
    /// is a member of the block, not of a block the lines above close), and
    /// every line above, up to and with the block's header (the first line
    /// as shallow as the closer, braces alone passed), is new or braces
    /// alone: a new type's last member, as `// ... some other properties
    /// ...` before the `}` of a new class. Directive lines (`#endif`) are
    /// passed over.
    fn ends_new_block(&self, ni: &[u32], markers: &[bool], j: usize) -> bool {
        let indent = |k: usize| crate::text::indent::lead_len(key(self.new[k]));
        let braces = |k: usize| {
            let l = key(self.new[k]).trim_ascii();
            !l.is_empty() && l.iter().all(punctuation)
        };
        let skipped = |k: usize| {
            let l = key(self.new[k]).trim_ascii();
            l.is_empty() || l.starts_with(b"#") || markers[k]
        };
        let depth = indent(j);
        let Some(close) = (j + 1 < self.new.len()).then(|| indent(j + 1)) else {
            return false;
        };
        if close >= depth
            || !matches!(
                key(self.new[j + 1]).trim_ascii().first(),
                Some(b'}' | b')' | b']')
            )
        {
            return false;
        }
        let mut above = (0..j).rev().filter(|&k| !skipped(k)).peekable();
        if above.peek().is_none_or(|&k| indent(k) > depth) {
            return false;
        }
        for k in above {
            if indent(k) <= close && !braces(k) {
                // The header.
                return indent(k) == close && ni[k] == u32::MAX;
            }
            if ni[k] != u32::MAX && !braces(k) {
                return false;
            }
        }
        false
    }

    /// The old lines deleted right around marker `j` written as it is at
    /// old row `i` in an optimal alignment (what the marker may stand for).
    fn deleted_beside(&self, t: &Table, oi: &[u32], j: usize, i: usize) -> (usize, usize) {
        let mut s = i;
        while s > 0 && t.f(s - 1, j) + t.del == t.f(s, j) {
            s -= 1;
        }
        let mut e = i;
        while e < oi.len() && t.bf(e + 1, j + 1) + t.del == t.bf(e, j + 1) {
            e += 1;
        }
        (s, e)
    }

    /// Why marker `j` standing for old lines `s..e` has no certain bound,
    /// or `None` when both bounds are certain.
    fn bounds(
        &self,
        t: &Table,
        oi: &[u32],
        ni: &[u32],
        markers: &[bool],
        (j, s, e): (usize, usize, usize),
    ) -> Option<Why> {
        let best = t.best;
        let before_ok = if j == 0 {
            self.at_start && s == 0
        } else {
            !markers[j - 1] && s > 0 && ni[j - 1] == oi[s - 1] && ni[j - 1] != u32::MAX
        };
        let after_ok = if j + 1 == ni.len() {
            self.at_end && e == oi.len()
        } else {
            !markers[j + 1] && e < oi.len() && ni[j + 1] == oi[e] && ni[j + 1] != u32::MAX
        };
        if !before_ok || !after_ok {
            return Some(Why::NextToChange);
        }
        let up = (j > 0).then(|| {
            self.bound(
                oi,
                ni,
                (s, j),
                |d| t.fa(s - d, j - d) + t.bh(e, j + 1) == best,
                false,
            )
        });
        let down = (e < oi.len()).then(|| {
            self.bound(
                oi,
                ni,
                (e, j + 1),
                |d| t.k(s, j) + t.bk(e + d, j + 1 + d) == best,
                true,
            )
        });
        if up == Some(false) || down == Some(false) {
            return Some(Why::WeakBound);
        }
        // A bound whose text occurs inside the run could pair with that
        // line instead, the lines between deleted rather than kept (a
        // deletion beside an elision looks the same): no certain end.
        let inside = |id: u32| oi[s..e].contains(&id);
        if (j > 0 && inside(oi[s - 1])) || (e < oi.len() && inside(oi[e])) {
            return Some(Why::BoundInside);
        }
        None
    }

    /// The refusal of a text whose markers each have one reading, `runs`
    /// (and `written`, the first written as sent), read together: a stray
    /// marker, a moved or copied line, lines moved to an end, a run at an
    /// edge beside a deletion.
    fn runs_refused(
        &self,
        t: &Table,
        (oi, ni): (&[u32], &[u32]),
        runs: &[Option<(usize, usize)>],
        written: Option<usize>,
    ) -> Option<Refusal> {
        // A marker written as a line of the file, standing for none, in a
        // text whose other markers stand for lines: a lazy text's markers
        // all stand for something; read so, one moved block was left where
        // it was and the marker beside it written as a comment.
        if let Some(j) = written {
            return Some(self.refusal(j, (0, 0), Why::Stray));
        }
        if let Some((j, run)) = self.copied(runs) {
            return Some(self.refusal(j, run, Why::Copied));
        }
        if let Some((j, deleted)) = self.moved_to_an_end(runs) {
            return Some(self.refusal(j, deleted, Why::Moved));
        }
        runs.iter().enumerate().find_map(|(j, run)| {
            let (s, e) = (*run)?;
            self.run_beside_deletion(t, (oi, ni), runs, (j, s, e))
                .then(|| self.refusal(j, (s, e), Why::BesideDeletion))
        })
    }

    /// Whether the kept lines on one side of marker `j` (run `s..e`) are
    /// reached, in the reading, over old lines deleted just beyond them:
    /// `if key is None:`, `return None`, `# ... existing code ...` over
    /// `if key is None:`, `raise KeyError(key)`, two lines, `return None`,
    /// the rest. Read so, `return None` is the later old line kept and the
    /// lines before it deleted; a model that changed `raise` to `return
    /// None` and elided the rest wrote the same text, a marker beside a
    /// changed line. Which was meant is not certain. Only when more lines
    /// are deleted than are kept beside the marker: else that other
    /// reading writes the kept lines twice in a row (`import a`, `import
    /// z`, a marker over `import a`, `import b`, `import z`, the rest is
    /// `import b` deleted); with new lines in their place (`start()`,
    /// `init()`, `finish()`, a marker over `start()`, three lines,
    /// `finish()`, the rest), more deleted than written too. A brace alone
    /// counts as a kept line here (`}` then `return app;` under a marker
    /// read as the old `}` kept and two calls after it deleted), and the
    /// deleted lines are counted along the reading (a `}`, a blank line or a
    /// code fence among them, or first, counts; one that is not blank must
    /// be among them). A marker
    /// whose run reaches an edge of the text was the first seen; kept
    /// lines after the marker (a blank line, the next statement) left the
    /// same two readings, and it was written.
    fn run_beside_deletion(
        &self,
        t: &Table,
        (oi, ni): (&[u32], &[u32]),
        runs: &[Option<(usize, usize)>],
        (j, s, e): (usize, usize, usize),
    ) -> bool {
        // Another marker past the kept lines bounds them.
        let free = |past: Option<usize>| past.is_none_or(|k| runs[k].is_none());
        (j > 0 && self.deleted_above(t, (oi, ni), free, (j, s, e)))
            || (j + 1 < ni.len() && self.deleted_below(t, (oi, ni), free, (j, s, e)))
    }

    /// [`Region::run_beside_deletion`] above marker `j`.
    fn deleted_above(
        &self,
        t: &Table,
        (oi, ni): (&[u32], &[u32]),
        free: impl Fn(Option<usize>) -> bool,
        (j, s, e): (usize, usize, usize),
    ) -> bool {
        let kept = |i: usize, k: usize| oi[i] == ni[k] && oi[i] != u32::MAX;
        // Up from the bound over kept pairs, to the first that is not.
        let mut d = 1;
        while d <= j
            && d <= s
            && kept(s - d, j - d)
            && t.fa(s - d, j - d) + t.bh(e, j + 1) == t.best
        {
            d += 1;
        }
        let (Some(i), k) = (s.checked_sub(d), j.checked_sub(d)) else {
            return false;
        };
        if !free(k) {
            return false;
        }
        // Back over the change beyond them, in a reading of least cost:
        // `g` old lines deleted (some not blank), `h` new lines written.
        let (mut x, mut y) = (i + 1, k.map_or(0, |k| k + 1));
        let (mut g, mut h, mut solid) = (0, 0, false);
        loop {
            let v = t.fa(x, y);
            if x > 0 && t.fa(x - 1, y) + t.del == v {
                solid |= !blank(self.old[x - 1]);
                (x, g) = (x - 1, g + 1);
            } else if y > 0 && t.fa(x, y - 1) + t.ins == v {
                (y, h) = (y - 1, h + 1);
            } else {
                break;
            }
        }
        solid && g > d - 1 && g > h
    }

    /// [`Region::run_beside_deletion`] below marker `j`.
    fn deleted_below(
        &self,
        t: &Table,
        (oi, ni): (&[u32], &[u32]),
        free: impl Fn(Option<usize>) -> bool,
        (j, s, e): (usize, usize, usize),
    ) -> bool {
        let kept = |i: usize, k: usize| oi[i] == ni[k] && oi[i] != u32::MAX;
        let mut d = 0;
        while e + d < oi.len()
            && j + 1 + d < ni.len()
            && kept(e + d, j + 1 + d)
            && t.k(s, j) + t.bk(e + d + 1, j + 2 + d) == t.best
        {
            d += 1;
        }
        let (i, k) = (e + d, j + 1 + d);
        if i >= oi.len() || !free((k < ni.len()).then_some(k)) {
            return false;
        }
        // On over the change beyond them, as above.
        let (mut x, mut y, mut v) = (i, k, t.bk(i, k));
        let (mut g, mut h, mut solid) = (0, 0, false);
        loop {
            if x < oi.len() && v == t.del + t.bf(x + 1, y) {
                solid |= !blank(self.old[x]);
                (x, g) = (x + 1, g + 1);
            } else if y < ni.len() && v == t.ins + t.bf(x, y + 1) {
                (y, h) = (y + 1, h + 1);
            } else {
                break;
            }
            v = t.bf(x, y);
        }
        solid && g > d && g > h
    }

    /// Whether the unchanged lines beside a marker fix where its run ends:
    /// walking away from it (`down`: old line `at` and new line `nj`
    /// onwards; else the lines before them) over lines kept in an optimal
    /// alignment (`optimal(d)`: the `d` pairs walked are all kept in one),
    /// a line that occurs once in the whole old text must come before any
    /// line that is not kept (and once in the new text: a line the new
    /// text adds again could be read as the old one kept); the edge of the
    /// text fixes it too. A bound that occurs more than once (`}`, a blank
    /// line, `#[doc(hidden)]`, `end`) could pair with another of its
    /// copies: only a unique line beyond it, reached through kept lines,
    /// pins it.
    fn bound(
        &self,
        oi: &[u32],
        ni: &[u32],
        (at, nj): (usize, usize),
        optimal: impl Fn(usize) -> bool,
        down: bool,
    ) -> bool {
        // A unique line of punctuation alone that closes a block (a `}`),
        // walking up into that block, pins only with the line beyond it
        // kept too, or with its block's header an old line, or no old line
        // of the block it closes gone: a `}` whose whole block is new pairs
        // the new block with the old one, the old one's lines deleted,
        // though the new one may have been added above the elided old one
        // (a check added before the code the marker stands for). (Walking
        // down into a block through a `{` alone, the same rule cost a C#
        // history's Allman braces 7 points of its bounded markers, for no
        // wrong write seen.)
        let mut into_block = false;
        let mut d = 1;
        loop {
            let (i, k) = if down {
                (at + d - 1, nj + d - 1)
            } else {
                match (at.checked_sub(d), nj.checked_sub(d)) {
                    (Some(i), Some(k)) => (i, k),
                    (None, None) => return self.at_start || into_block,
                    _ => return false,
                }
            };
            if down && (i >= oi.len() || k >= ni.len()) {
                return i >= oi.len() && k >= ni.len() && (self.at_end || into_block);
            }
            if oi[i] != ni[k] || oi[i] == u32::MAX || !optimal(d) {
                return false;
            }
            if into_block {
                return true;
            }
            let l = key(self.old[i]);
            if !blank(l) && occurrences(self.whole, l) == 1 && occurrences(self.whole_new, l) == 1 {
                if down || !closes_block(l) || self.opener_kept(k) || !self.gone_above(i) {
                    return true;
                }
                into_block = true;
            }
            d += 1;
        }
    }

    /// Whether the old line above old line `i` is gone from the new text
    /// (deleted or changed): the block that line `i` closes lost lines.
    fn gone_above(&self, i: usize) -> bool {
        i > 0 && occurrences(self.whole_new, key(self.old[i - 1])) == 0
    }

    /// Whether the header of the block that new line `k` closes (the line
    /// above it indented no deeper, looked for among [`HEADER_REACH`] lines
    /// of the region) is a line of the old text: the block was edited, not
    /// written anew. Past the region's start (kept lines) or the reach, it
    /// is taken as kept.
    fn opener_kept(&self, k: usize) -> bool {
        let depth = crate::text::indent::lead_len;
        let own = depth(self.new[k]);
        let above = &self.new[k.saturating_sub(HEADER_REACH)..k];
        match above
            .iter()
            .rev()
            .find(|l| !bare(l).is_empty() && depth(l) <= own)
        {
            Some(h) => occurrences(self.whole, key(h)) > 0,
            None => true,
        }
    }

    /// The refusal of marker `j` whose readings of least cost (its runs
    /// `found`, the rows `literal` where it is written as a line) do not
    /// leave it a comment that removes nothing.
    fn unquiet(
        &self,
        t: &Table,
        (oi, ni): (&[u32], &[u32]),
        j: usize,
        (found, literal): (&[(usize, usize)], &[usize]),
    ) -> Refusal {
        if let Some(&run) = found.first() {
            return self.refusal(j, run, Why::Ambiguous);
        }
        let (s, e) = self.deleted_beside(t, oi, j, literal[0]);
        if s == e && self.between_neighbours(oi, ni, j, literal) {
            return self.deleted_elsewhere(j);
        }
        if s == e && self.first_unkept().is_none() {
            return self.refusal(j, (s, e), Why::BesideNew);
        }
        self.refusal(j, (s, e), Why::NextToChange)
    }

    /// The new lines with each marker that has a run (`runs`) written as
    /// the old lines it keeps.
    fn expansion(&self, runs: &[Option<(usize, usize)>]) -> Vec<u8> {
        let mut mid = Vec::new();
        let to = self.converted_break();
        for (j, l) in self.new.iter().enumerate() {
            match runs[j] {
                Some((s, e)) => self.old[s..e].iter().for_each(|o| match to {
                    Some(to) if o.ends_with(b"\n") => {
                        mid.extend_from_slice(key(o));
                        mid.extend_from_slice(to);
                    }
                    _ => mid.extend_from_slice(o),
                }),
                None => mid.extend_from_slice(l),
            }
        }
        mid
    }

    /// The line break the kept lines are written with when the new text
    /// converts the old one's (LF throughout over CRLF throughout, or the
    /// other way: a whole-file write with the endings as sent, a search
    /// holding every break of the file): the new text's. `None`: each kept
    /// line keeps its own (a file of mixed endings keeps its bytes).
    fn converted_break(&self) -> Option<&'static [u8]> {
        match (line_ending(self.whole), line_ending(self.whole_new)) {
            (LineEnding::Crlf, LineEnding::Lf) => Some(b"\n"),
            (LineEnding::Lf, LineEnding::Crlf) => Some(b"\r\n"),
            _ => None,
        }
    }

    /// Whether marker `j`, written as a line at one of the rows `literal`,
    /// has two kept lines beside it that are neighbours in the old text (an
    /// edge of the text counts as kept).
    fn between_neighbours(&self, oi: &[u32], ni: &[u32], j: usize, literal: &[usize]) -> bool {
        literal.iter().any(|&i| {
            let above = if j == 0 {
                i == 0 && self.at_start
            } else {
                i > 0 && ni[j - 1] == oi[i - 1] && oi[i - 1] != u32::MAX
            };
            let below = if j + 1 == ni.len() {
                i == oi.len() && self.at_end
            } else {
                i < oi.len() && ni[j + 1] == oi[i] && oi[i] != u32::MAX
            };
            above && below
        })
    }

    /// The refusal of marker `j`, standing for no line where it is, in a
    /// change that deletes old lines elsewhere (those of the line diff).
    fn deleted_elsewhere(&self, j: usize) -> Refusal {
        let gone = || {
            self.line_diff().iter().filter_map(|op| match *op {
                similar::DiffOp::Delete {
                    old_index, old_len, ..
                }
                | similar::DiffOp::Replace {
                    old_index, old_len, ..
                } => Some(old_index..old_index + old_len),
                _ => None,
            })
        };
        Refusal {
            deletes: gone()
                .flatten()
                .take(SHOWN)
                .map(|i| {
                    (
                        self.first_line + i + 1,
                        String::from_utf8_lossy(key(self.old[i])).into_owned(),
                    )
                })
                .collect(),
            deleted: gone().map(|r| r.len()).sum(),
            ..self.refusal(j, (0, 0), Why::Elsewhere)
        }
    }

    /// The refusal of marker `j`, which would delete old lines `s..e`.
    fn refusal(&self, j: usize, (s, e): (usize, usize), why: Why) -> Refusal {
        Refusal {
            marker: String::from_utf8_lossy(key(self.new[j])).trim().to_string(),
            line: self.first_new_line + j + 1,
            deletes: (s..e)
                .take(SHOWN)
                .map(|i| {
                    (
                        self.first_line + i + 1,
                        String::from_utf8_lossy(key(self.old[i])).into_owned(),
                    )
                })
                .collect(),
            deleted: e - s,
            why,
        }
    }

    /// The line diff (Myers) of the region's old and new lines, by key,
    /// within [`DIFF_BUDGET`]: past it the diff is still one (every old
    /// line kept or deleted, in order), not the least (Myers costs the
    /// lines times the differences: 48,000 lines with 12,000 markers took
    /// 13 s).
    fn line_diff(&self) -> &[similar::DiffOp] {
        &self.diff_made().0
    }

    /// Whether [`Region::line_diff`] was cut short by its budget (then it is
    /// a diff, not the least one).
    fn diff_cut_short(&self) -> bool {
        self.diff_made().1
    }

    fn diff_made(&self) -> &(Vec<similar::DiffOp>, bool) {
        self.diff.get_or_init(|| {
            let old: Vec<&[u8]> = self.old.iter().map(|l| key(l)).collect();
            let new: Vec<&[u8]> = self.new.iter().map(|l| key(l)).collect();
            let started = std::time::Instant::now();
            let ops = crate::text::diff_ops::diff(&old, &new, Some(started + DIFF_BUDGET));
            (ops, started.elapsed() >= DIFF_BUDGET)
        })
    }

    /// The first old line of the region that does not stand, in order,
    /// among its new lines, each taken as early as it can be (one pass);
    /// `None`: every one does, and the least diff deletes none.
    fn first_unkept(&self) -> Option<usize> {
        let mut new = self.new.iter().map(|l| key(l));
        self.old.iter().position(|o| !new.any(|n| n == key(o)))
    }

    /// When every old line stands in order among the new ones: the first
    /// marker that does not sit directly between two old neighbours so
    /// placed (each taken as early as it can be), and the old line right
    /// after those placed before it. Elsewhere the lines it stands for may
    /// stand again further on: `// ...` over an entry's last fields in a
    /// list that grew by hundreds of entries holding the same fields was
    /// written as sent, the fields gone.
    fn loose_marker(&self, markers: &[bool]) -> Option<(usize, usize)> {
        // Where each old line stands among the new ones.
        let mut at = Vec::with_capacity(self.old.len());
        let mut k = 0;
        for o in self.old {
            while k < self.new.len() && key(self.new[k]) != key(o) {
                k += 1;
            }
            at.push(k);
            k += 1;
        }
        markers
            .iter()
            .enumerate()
            .filter(|&(_, &m)| m)
            .find_map(|(j, _)| {
                let before = at.partition_point(|&p| p < j);
                let between = before > 0
                    && before < at.len()
                    && at[before - 1] + 1 == j
                    && at[before] == j + 1;
                (!between).then_some((j, before.min(self.old.len().saturating_sub(1))))
            })
    }

    /// A region too large to align exactly: its diff decides. Its markers
    /// are written as sent when the diff deletes no old line anywhere in
    /// it and each sits directly between two old neighbours (a new comment
    /// between unchanged lines: see [`Region::loose_marker`]); otherwise the first
    /// marker is refused, with the deleted run nearest it. A hunk's
    /// deletions are not enough to look at: a marker inserted past a kept
    /// blank line may stand for rows deleted before it.
    fn too_large(&self, markers: &[bool]) -> Found {
        let Some(unkept) = self.first_unkept() else {
            return match self.loose_marker(markers) {
                Some((j, i)) => {
                    Found::Refused(Box::new(self.refusal(j, (i, i + 1), Why::TooLarge)))
                }
                None => Found::None,
            };
        };
        if self.diff_cut_short() {
            // A diff cut short is no least one: its runs say little. The
            // old text stops being kept in order at `unkept`: every reading
            // deletes a line up to it, shown as the line to send.
            let Some(j) = markers.iter().position(|&m| m) else {
                return Found::None;
            };
            let run = (unkept, unkept + 1);
            return Found::Refused(Box::new(self.refusal(j, run, Why::TooLarge)));
        }
        // Each deleted run (a deletion, or the old side of a replacement):
        // old lines, and where the new text stands there.
        let deleted: Vec<((usize, usize), usize)> = self
            .line_diff()
            .iter()
            .map(|op| (op.old_range(), op.new_range().start))
            .filter(|(old, _)| !old.is_empty())
            .map(|(old, at)| ((old.start, old.end), at))
            .collect();
        let Some(j) = markers.iter().position(|&m| m) else {
            return Found::None;
        };
        match deleted.iter().min_by_key(|(_, at)| at.abs_diff(j)) {
            Some(&(run, _)) => Found::Refused(Box::new(self.refusal(j, run, Why::TooLarge))),
            None => Found::None,
        }
    }
}

/// The cost tables of one region (see the module docs): an alignment keeps
/// an old line (an equal new line, cost 0), deletes it (`del`), inserts a
/// new line (`ins`), or lets a marker stand for a run of one or more old
/// lines (cost 0) — only between two kept pairs (or an edge of the text):
/// a marker beside a new or changed line has no certain boundary, so that
/// reading is not one. Forward tables hold the least cost of the text
/// before a cell, by how its last step ended; backward ones the least cost
/// of the text after it, by what may come next.
///
/// A deleted line costs `del`, an inserted one `ins = del + 1`, with `del`
/// more than the new lines: the least cost is the least number of lines
/// inserted plus deleted, and among alignments with that number, the one
/// that inserts fewest.
struct Table {
    w: usize,
    /// Forward, the last step not a marker's run (or the start).
    f: Vec<u32>,
    /// Forward, the last step a kept pair (or the start of the text).
    k: Vec<u32>,
    /// Forward, the last step a marker's run.
    h: Vec<u32>,
    /// Backward, after a step that is not a kept pair: no run may start.
    bf: Vec<u32>,
    /// Backward, after a kept pair: a run may start.
    bk: Vec<u32>,
    /// Backward, after a run: a kept pair must come (or the end).
    bh: Vec<u32>,
    del: u32,
    ins: u32,
    best: u32,
}

/// Longest the line diff of a region too large to align may take.
const DIFF_BUDGET: std::time::Duration = std::time::Duration::from_millis(500);

const INF: u32 = u32::MAX / 4;

impl Table {
    /// The tables of old lines `o` and new lines `n` (ids; `u32::MAX` a
    /// line the old text lacks), `markers` the new lines that are markers,
    /// `edges` whether the region starts and ends at the text's edges;
    /// `deletes`: whether old lines may be deleted (without, every old line
    /// is kept or stood for).
    fn new(
        o: &[u32],
        n: &[u32],
        markers: &[bool],
        (at_start, at_end): (bool, bool),
        deletes: bool,
    ) -> Table {
        let (h, w) = (o.len() + 1, n.len() + 1);
        let ins = w as u32 + 2;
        let del = if deletes { ins - 1 } else { INF };
        let same = |i: usize, j: usize| o[i] == n[j] && n[j] != u32::MAX;
        let mut f = vec![INF; h * w];
        let mut k = vec![INF; h * w];
        let mut hh = vec![INF; h * w];
        for j in 0..w {
            let mut run = INF;
            for i in 0..h {
                let c = i * w + j;
                if i == 0 && j == 0 {
                    f[c] = 0;
                    k[c] = if at_start { 0 } else { INF };
                    continue;
                }
                let mut v = INF;
                if i > 0 {
                    v = v.min(f[c - w] + del);
                }
                if j > 0 {
                    v = v.min(f[c - 1] + ins);
                }
                if i > 0 && j > 0 && same(i - 1, j - 1) {
                    let kv = f[c - w - 1].min(hh[c - w - 1]);
                    k[c] = kv;
                    v = v.min(kv);
                }
                f[c] = v.min(INF);
                if j > 0 && markers[j - 1] {
                    if i > 0 {
                        run = run.min(k[c - w - 1]);
                    }
                    hh[c] = run;
                }
            }
        }
        let mut bf = vec![INF; h * w];
        let mut bk = vec![INF; h * w];
        let mut bh = vec![INF; h * w];
        for j in (0..w).rev() {
            let mut run = INF;
            for i in (0..h).rev() {
                let c = i * w + j;
                if i + 1 == h && j + 1 == w {
                    bf[c] = 0;
                    bk[c] = 0;
                    bh[c] = if at_end { 0 } else { INF };
                    continue;
                }
                let keep = if i + 1 < h && j + 1 < w && same(i, j) {
                    bk[c + w + 1]
                } else {
                    INF
                };
                let mut v = keep;
                if i + 1 < h {
                    v = v.min(bf[c + w] + del);
                }
                if j + 1 < w {
                    v = v.min(bf[c + 1] + ins);
                }
                let v = v.min(INF);
                bf[c] = v;
                bh[c] = keep;
                let mut kv = v;
                if j + 1 < w && markers[j] {
                    if i + 1 < h {
                        run = run.min(bh[c + w + 1]);
                    }
                    kv = kv.min(run);
                }
                bk[c] = kv;
            }
        }
        let end = (h - 1) * w + w - 1;
        let best = f[end].min(if at_end { hh[end] } else { INF });
        Table {
            w,
            f,
            k,
            h: hh,
            bf,
            bk,
            bh,
            del,
            ins,
            best,
        }
    }

    /// Least cost of old lines `..i` with new lines `..j`, the last step
    /// not a marker's run.
    fn f(&self, i: usize, j: usize) -> u32 {
        self.f[i * self.w + j]
    }

    /// The same, the last step a kept pair (a run may follow).
    fn k(&self, i: usize, j: usize) -> u32 {
        self.k[i * self.w + j]
    }

    /// The same, whatever the last step (a kept pair may follow).
    fn fa(&self, i: usize, j: usize) -> u32 {
        self.f(i, j).min(self.h[i * self.w + j])
    }

    /// Least cost of old lines `i..` with new lines `j..` after a step that
    /// is not a kept pair.
    fn bf(&self, i: usize, j: usize) -> u32 {
        self.bf[i * self.w + j]
    }

    /// The same after a kept pair.
    fn bk(&self, i: usize, j: usize) -> u32 {
        self.bk[i * self.w + j]
    }

    /// The same after a marker's run.
    fn bh(&self, i: usize, j: usize) -> u32 {
        self.bh[i * self.w + j]
    }

    /// Whether marker `j` can stand for some run between kept pairs, at
    /// any cost.
    fn any_run(&self, j: usize) -> bool {
        let h = self.f.len() / self.w;
        let mut start = false;
        (1..h).any(|e| {
            start |= self.k(e - 1, j) < INF;
            start && self.bh(e, j + 1) < INF
        })
    }

    /// The runs `s..e` (one or more old lines, between kept pairs) marker
    /// `j` stands for in some alignment of cost `best`: at most `cap + 1`
    /// of them.
    fn absorbing(&self, j: usize, best: u32, cap: usize) -> Vec<(usize, usize)> {
        let h = self.f.len() / self.w;
        let mut by_cost: HashMap<u32, Vec<usize>> = HashMap::new();
        let mut out = Vec::new();
        for e in 1..h {
            let kv = self.k(e - 1, j);
            if kv < INF {
                by_cost.entry(kv).or_default().push(e - 1);
            }
            let bv = self.bh(e, j + 1);
            if bv > best {
                continue;
            }
            for &s in by_cost.get(&(best - bv)).into_iter().flatten() {
                out.push((s, e));
                if out.len() > cap {
                    return out;
                }
            }
        }
        out
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    fn run(old: &str, new: &str) -> Verdict {
        check(old.as_bytes(), &[new.as_bytes()], Markers::default())
    }

    fn expanded(old: &str, new: &str) -> (String, Vec<KeptRun>) {
        match run(old, new) {
            Verdict::Expanded {
                start,
                end,
                mid,
                kept,
            } => {
                let o = old.as_bytes();
                let t = [&o[..start], &mid[..], &o[end..]].concat();
                (String::from_utf8(t).unwrap(), kept)
            }
            v => panic!("not expanded: {v:?}"),
        }
    }

    fn refused(old: &str, new: &str) -> Refusal {
        match run(old, new) {
            Verdict::Refused(r) => *r,
            v => panic!("not refused: {v:?}"),
        }
    }

    #[test]
    fn a_line_moved_above_a_marker_is_not_kept_twice() {
        // `load_config()` and `connect_db()` moved above `init_logging()`,
        // the rest elided: read with `init_logging()` as the kept bound,
        // the marker keeps the two moved lines too (written twice), or the
        // model copied them. Not certain: refused.
        let old = "def setup():\n    init_logging()\n    load_config()\n    connect_db()\n    start_server()\n    wait_forever()\n";
        let new = "def setup():\n    load_config()\n    connect_db()\n    init_logging()\n    # ... existing code ...\n";
        let r = refused(old, new);
        assert_eq!(r.why, Why::Copied);
        assert_eq!(r.line, 5);
        // A copy of the moved line elsewhere in the file, beyond the
        // region, does not make the new copy a kept one.
        let record = "class Record:\n    def save(self):\n        self.validate()\n        self.db.add(self)\n\n    def delete(self):\n        log(\"delete\")\n        self.check_perms()\n        self.validate()\n        self.db.delete(self)\n";
        let lazy = "class Record:\n    def save(self):\n        self.validate()\n        self.db.add(self)\n\n    def delete(self):\n        self.validate()\n        log(\"delete\")\n        # ... existing code ...\n        self.db.delete(self)\n";
        assert_eq!(refused(record, lazy).why, Why::Copied);
        // The same with the other copy deleted: still written twice.
        let lazy = lazy.replacen(
            "        self.validate()\n        self.db.add",
            "        self.db.add",
            1,
        );
        assert_eq!(refused(record, &lazy).why, Why::Copied);
        // Without the move, the same marker keeps the lines after the kept
        // one, and nothing is written twice.
        let new = "def setup():\n    init_logging()\n    setup_tracing()\n    load_config()\n    # ... existing code ...\n";
        let (text, _) = expanded(old, new);
        assert_eq!(
            text,
            "def setup():\n    init_logging()\n    setup_tracing()\n    load_config()\n    connect_db()\n    start_server()\n    wait_forever()\n"
        );
    }

    #[test]
    fn a_line_moved_to_an_end_with_the_rest_elided_is_not_read_as_deleting_beyond_it() {
        // `import z` hoisted to the top, the rest elided: read as the two
        // imports above it deleted, or as `import z` moved and the marker
        // keeping them. Not certain: refused, naming the two lines.
        let old =
            "import a\nimport b\nimport z\n\ndef f():\n    return 1\n\ndef g():\n    return 2\n";
        let r = refused(old, "import z\n# ... existing code ...\n");
        assert_eq!(r.why, Why::Moved);
        assert_eq!(r.line, 2);
        assert_eq!(
            r.deletes,
            vec![(1, "import a".to_string()), (2, "import b".to_string())]
        );
        // Moved down to the end, the same.
        let old = "x = 1\ny = 2\nz = 3\nprint(x)\nprint(y)\n";
        let r = refused(old, "# ... existing code ...\ny = 2\n");
        assert_eq!(r.why, Why::Moved);
        assert_eq!(
            r.deletes.iter().map(|d| d.0).collect::<Vec<_>>(),
            vec![3, 4, 5]
        );
        // A new line above the hoisted one, or kept lines apart: the lines
        // above the first kept one are still deleted beyond it.
        let old = "#!/usr/bin/env python3\n# Copyright 2020 Foo\nimport os\nimport sys\nimport json\n\ndef main():\n    print(os.getcwd())\n";
        for new in [
            "import re\nimport json\n# ... existing code ...\n",
            "import os\nimport json\n# ... existing code ...\n",
        ] {
            assert_eq!(refused(old, new).why, Why::Moved, "{new}");
        }
        // A marker, then the last function but one, changed: the functions
        // after it are deleted beyond it.
        let old = "function a() {\n  return 1;\n}\nfunction b() {\n  return 2;\n}\nfunction c() {\n  return 3;\n}\nmodule.exports = { a, b, c };\n";
        let r = refused(
            old,
            "// ... existing code ...\nfunction b() {\n  return 22;\n}\n",
        );
        assert_eq!(r.why, Why::Moved);
        assert_eq!(r.deletes.first().map(|d| d.0), Some(5));
        // Inside a class: its `}` pins nothing, and c() goes beyond b().
        let old = "class A {\n  void a() {\n    one();\n  }\n  void b() {\n    two();\n  }\n  void c() {\n    three();\n  }\n}\n";
        let new =
            "class A {\n  // ... existing code ...\n  void b() {\n    twoChanged();\n  }\n}\n";
        assert_eq!(refused(old, new).why, Why::Moved);
        // A new header over the old one and a blank line: the blank line
        // pins nothing, and the imports deleted below it are beyond it.
        let old = "# Copyright 2020 Foo\n# Licensed under MIT\n\nimport os\nimport sys\nimport json\n\ndef main():\n    print(os.getcwd())\n";
        let new = "# Copyright 2024 Bar\n# SPDX-License-Identifier: Apache-2.0\n\nimport json\n# ... existing code ...\n";
        assert_eq!(refused(old, new).why, Why::Moved);
        // With an unchanged line on the far side of the deleted ones, where
        // the text resumes is shown: the deletion stands (read as `import
        // b` changed to `import z`, the file would hold `import z` twice in
        // a row). Not where more lines are deleted than kept: the text is
        // `raise KeyError(key)` changed to `return None` as well as the
        // later `return None` kept and the lines between deleted.
        let old = "import a\nimport b\nimport z\n\ndef f():\n    return 1\n";
        let (text, _) = expanded(old, "import a\nimport z\n# ... existing code ...\n");
        assert_eq!(text, "import a\nimport z\n\ndef f():\n    return 1\n");
        let old = "def get(self, key):\n    if key is None:\n        raise KeyError(key)\n    row = self.find(key)\n    if row is None:\n        return None\n    return row.value\n";
        let r = refused(
            old,
            "def get(self, key):\n    if key is None:\n        return None\n    # ... existing code ...\n",
        );
        assert_eq!(r.why, Why::BesideDeletion);
        // Changed, not deleted, beyond the kept line: the run stands.
        let (text, _) = expanded(
            "a = 1\nb = 2\nc = 3\nd = 4\n",
            "a = 10\nb = 2\n# ... existing code ...\n",
        );
        assert_eq!(text, "a = 10\nb = 2\nc = 3\nd = 4\n");
        // Blank lines beyond it are no code lost.
        let (text, _) = expanded(
            "\n\nimport z\nrun()\n",
            "import z\n# ... existing code ...\n",
        );
        assert_eq!(text, "import z\nrun()\n");
        // The same in an edit's block.
        let block = "import a\nimport b\nimport z\nrun()\n";
        let v = edit(
            &format!("{block}more()\n"),
            block,
            "import z\n# ... existing code ...\n",
        );
        assert!(matches!(v, Verdict::Refused(r) if r.why == Why::Moved));
    }

    #[test]
    fn a_region_too_large_to_align_refuses_a_marker_where_old_lines_go() {
        // Past MAX_CELLS the diff decides. Rows deleted, a kept blank line,
        // then the marker inserted: the marker stands for the rows.
        let rows: Vec<String> = (1..=2400)
            .map(|i| format!("INSERT INTO t VALUES ({i});\n"))
            .collect();
        let old = format!("-- v1\nBEGIN;\n{}\nCOMMIT;\n", rows.concat());
        let new = format!(
            "-- v2\nBEGIN;\n{}\n-- ... existing rows ...\nCOMMIT;\n",
            rows[..1000].concat()
        );
        const { assert!((2400 + 1) * (1000 + 1) > MAX_CELLS) };
        let r = refused(&old, &new);
        assert_eq!(r.why, Why::TooLarge);
        assert_eq!(r.deleted, 1400);
        assert_eq!(r.deletes[0].0, 1003);
        // A marker-like comment among kept lines only, nothing deleted:
        // written as sent.
        let new = format!(
            "-- v1\nBEGIN;\n{}\n-- ... more rows below ...\n{}\nCOMMIT;\n",
            rows[..1200].concat(),
            rows[1200..].concat()
        );
        assert!(matches!(
            run(&old, &new.replacen("\n\n", "\n", 1)),
            Verdict::Kept
        ));
        // A list that grew by entries holding the same fields as the one a
        // marker elides: every old line stands again further on, but the
        // marker is no comment between two old neighbours. Refused (it was
        // written as sent, the fields gone).
        let entry = |i: String| {
            format!("  {{\n    \"name\": \"pkg-{i}\",\n    \"dev\": true,\n    \"license\": \"MIT\"\n  }},\n")
        };
        let old: String = (0..1200).map(|i| entry(i.to_string())).collect::<String>() + "  {}\n";
        let lazy = entry("0".into()).replace(
            "    \"dev\": true,\n    \"license\": \"MIT\"\n",
            "    // ...\n",
        );
        let added: String = (0..1200).map(|i| entry(format!("new{i}"))).collect();
        let rest: String = (1..1200).map(|i| entry(i.to_string())).collect();
        // An entry added at the end too: the region spans the whole list.
        let new = format!("{lazy}{added}{rest}{}  {{}}\n", entry("zz".into()));
        const { assert!((1200 * 5 + 1) * (2400 * 5 + 1) > MAX_CELLS) };
        let r = refused(&old, &new);
        assert_eq!(r.why, Why::TooLarge);
        assert_eq!(r.deletes[0].1, "    \"dev\": true,");
    }

    #[test]
    fn a_leftover_marker_sent_again_over_the_body_it_elides_is_refused() {
        // The file holds a marker line (an earlier lazy edit written as
        // sent); the new text has it once, the code around it gone: it may
        // be the old line kept, or stand for the body. Refused.
        let old = "fn setup() {\n    let cfg = load();\n    // ... existing code ...\n    init(&cfg);\n    start(&cfg);\n}\n\nfn teardown() {\n    stop();\n}\n";
        let new = "fn setup() {\n    // ... existing code ...\n}\n\nfn teardown() {\n    stop();\n    flush();\n}\n";
        let r = refused(old, new);
        assert_eq!(r.why, Why::Ambiguous, "{r:?}");
        // Kept where it was, with a change elsewhere: written as sent.
        let new = old.replace("    stop();\n", "    stop();\n    flush();\n");
        assert!(
            matches!(run(old, &new), Verdict::Kept),
            "{:?}",
            run(old, &new)
        );
        // A change beside it, nothing around it deleted: the old line.
        let new = old.replace("    init(&cfg);\n", "    init(&cfg);\n    ready();\n");
        assert!(
            matches!(run(old, &new), Verdict::Kept),
            "{:?}",
            run(old, &new)
        );
        // And with a line beside it changed, its neighbours kept.
        let new = old.replace("init(&cfg)", "init(&cfg, true)");
        assert!(
            matches!(run(old, &new), Verdict::Kept),
            "{:?}",
            run(old, &new)
        );
    }

    #[test]
    fn a_line_moved_out_of_a_block_with_the_rest_elided_is_not_kept_twice() {
        // `connect` hoisted out of `try`, the try body elided: the run
        // keeps the inner `connect` too; re-indented, it is the same line.
        let old = "async function main() {\n  const cfg = await readConfig();\n  try {\n    const db = await connect(cfg);\n    await migrate(db);\n    await seed(db);\n  } catch (e) {\n    report(e);\n  }\n}\n";
        let new = "async function main() {\n  const cfg = await readConfig();\n  const db = await connect(cfg);\n  try {\n    // ... existing code ...\n  } catch (e) {\n    report(e);\n  }\n}\n";
        assert_eq!(refused(old, new).why, Why::Copied);
        // Into a block, in Python.
        let old = "def handle(req):\n    user = auth(req)\n    check_quota(user)\n    audit(user)\n    if req.write:\n        commit(req)\n    return ok()\n";
        let new = "def handle(req):\n    user = auth(req)\n    # ... existing code ...\n    if req.write:\n        check_quota(user)\n        commit(req)\n    return ok()\n";
        assert_eq!(refused(old, new).why, Why::Copied);
    }

    #[test]
    fn a_stub_marker_replaced_by_its_body_and_written_over_another_is_a_marker() {
        // `// ...` was a stub's body; the change fills the stub and writes
        // `// ...` over another body: as many copies as before, but the old
        // one is gone, this one stands for the body (expanded here).
        let old = "function parse(s) {\n  // ...\n}\n\nfunction render(b, opts) {\n  const p = prep(b);\n  const l = layout(p);\n  return paint(b);\n}\n";
        let new = "function parse(s) {\n  return JSON.parse(s);\n}\n\nfunction render(b, opts) {\n  // ...\n  return paint(b, opts);\n}\n";
        match run(old, new) {
            Verdict::Refused(_) => {}
            v => {
                let got = text_of(old, v);
                assert!(
                    got.contains("layout(p)") && !got.contains("// ..."),
                    "{got}"
                );
            }
        }
    }

    #[test]
    fn dots_between_new_comments_where_code_went_are_a_marker() {
        // The two comments reworded, the code between them gone, `// ...`
        // between the new comments: not prose, it may stand for the code.
        let old = "// Load settings.\nconst settings = load();\nvalidate(settings);\n// Start the server.\nserve(settings);\n";
        let new =
            "// Load settings from disk.\n// ...\n// Start the HTTP server.\nserve(settings);\n";
        assert!(matches!(run(old, new), Verdict::Refused(_)));
        // Code written below the comments, none of it rewriting the code
        // they framed (`serve` changed, `load` and `validate` gone): a
        // marker too.
        let new = "// Load settings from disk.\n// ...\n// Start the HTTP server.\nserve(settings, 8080);\n";
        assert!(matches!(run(old, new), Verdict::Refused(_)));
        // The same comments over code rewritten: prose, written as sent.
        let new = "// Load settings from disk.\n// ...\n// Start the HTTP server.\nconst settings = read();\nserve(settings);\n";
        assert!(matches!(run(old, new), Verdict::Kept));
        // No comment before: new comments over code, the last line
        // rewritten, the others gone: a marker.
        let old = "const cfg = loadConfig();\nconst db = connect(cfg);\napp.listen(3000);\n";
        let new = "// Setup\n// ...\n// Start listening\napp.listen(cfg.port);\n";
        assert!(matches!(run(old, new), Verdict::Refused(_)));
        // Every line of it rewritten: prose.
        let new = "// Setup\n// ...\n// Start listening\nconst cfg = loadConfig(1);\nconst db = connect(cfg, 2);\napp.listen(cfg.port);\n";
        assert!(matches!(run(old, new), Verdict::Kept));
    }

    const JS: &str =
        "function a() {\n  const x = 1;\n  const y = 2;\n  const z = 3;\n  return x + y + z;\n}\n";

    #[test]
    fn a_marker_between_unchanged_lines_keeps_them() {
        let new = "function a() {\n  const x = 1;\n  // ... existing code ...\n  return x + y + z;\n}\nexport { a };\n";
        let (t, kept) = expanded(JS, new);
        assert_eq!(t, format!("{JS}export {{ a }};\n"));
        assert_eq!(kept.len(), 1);
        assert_eq!((kept[0].line, kept[0].from, kept[0].to), (3, 3, 4));
        // A changed line beside the marker: did it replace the line
        // before, or join it? Refused.
        let new =
            "function a() {\n  const x = 10;\n  // ... existing code ...\n  return x + y + z;\n}\n";
        assert_eq!(refused(JS, new).why, Why::NextToChange);
        assert_eq!(kept[0].marker, "// ... existing code ...");
    }

    #[test]
    fn a_marker_beside_a_changed_line_is_refused() {
        // The issue's example: the line after the marker changed.
        let new = "function a() {\n  // ... existing code ...\n  return x + y + z + 1;\n}\n";
        let r = refused(JS, new);
        assert_eq!(r.why, Why::NextToChange);
        assert_eq!(r.line, 2);
        assert_eq!(r.deleted, 4);
        assert_eq!(r.deletes[0], (2, "  const x = 1;".to_string()));
    }

    #[test]
    fn a_new_comment_that_removes_nothing_is_written() {
        let new = JS.replace("  return", "  // ... more checks to come ...\n  return");
        assert!(matches!(run(JS, &new), Verdict::Kept));
        // A marker the old text already had is not an elision.
        let old = "a\n// ... existing code ...\nb\n";
        assert!(matches!(
            run(old, "a\n// ... existing code ...\nc\n"),
            Verdict::Kept
        ));
        // No keyword at all: nothing looked at.
        assert!(!prefilter(
            JS.as_bytes(),
            &[b"const w = 4;\n"],
            Markers::default()
        ));
        // A keyword in code, in a replacement that starts mid-line: no
        // marker line, nothing looked at; a marker split across pieces is
        // seen whole.
        let o = JS.as_bytes();
        assert!(!prefilter(
            o,
            &[&o[..20], b"f(...args);", &o[20..]],
            Markers::default()
        ));
        assert!(prefilter(
            o,
            &[&o[..17], b"  // ... existing", b" code ...\n", &o[17..]],
            Markers::default()
        ));
    }

    #[test]
    fn a_new_comment_in_new_code_after_a_brace_is_written() {
        // A new type added between two old ones, its new method's body
        // opening with a comment of dots (a public C# history's commit).
        let old = "    public class Invoice\n    {\n        public string Number { get; set; }\n    }\n\n    public void TestInvoice()\n    {\n        Check();\n    }\n";
        let added = "    public class Handler : TypeHandler<Rating>\n    {\n        public override void SetValue(IDbDataParameter p, Rating value)\n        {\n            // ... null, range checks etc ...\n            p.DbType = DbType.Int32;\n            p.Value = value.Value;\n        }\n    }\n    public class Rating\n    {\n        public int Value { get; set; }\n        // ... some other properties etc ...\n    }\n\n";
        let new = old.replacen(
            "    public void TestInvoice",
            &format!("{added}    public void TestInvoice"),
            1,
        );
        assert!(
            matches!(run(old, &new), Verdict::Kept),
            "{:?}",
            run(old, &new)
        );
        // The same comment where it would hide old lines is still refused.
        let lazy = old.replace(
            "        Check();\n",
            "        // ... null, range checks etc ...\n        Validate();\n",
        );
        assert!(matches!(run(old, &lazy), Verdict::Refused(_)));
        // A marker after a new method, shallower than it, before the `}` of
        // the namespace: it stands for the class's own `}` (a public
        // history's lazy edit, written with the marker before this rule
        // looked at depth).
        let ns =
            "namespace N\n{\n  public class T\n  {\n    public void A()\n    {\n    }\n  }\n}\n";
        let lazy = "namespace N\n{\n  public class T\n  {\n    public void A()\n    {\n    }\n\n    public void B()\n    {\n      Go();\n    }\n  // ... existing code ...\n}\n";
        assert!(
            matches!(run(ns, lazy), Verdict::Refused(_)),
            "{:?}",
            run(ns, lazy)
        );
        let lazy = lazy.replace("    }\n  // ...", "    }\n#endif\n  // ...");
        assert!(matches!(run(ns, &lazy), Verdict::Refused(_)));
    }

    #[test]
    fn markers_at_the_start_and_end_and_two_in_one_block() {
        let old = "import a\nimport b\n\ndef f():\n    x = 1\n    y = 2\n    return x\n\ndef g():\n    pass\n";
        let (t, _) = expanded(old, "# ... existing imports ...\nimport b\n\ndef f():\n    x = 1\n    y = 3\n    return x\n\ndef g():\n    pass\n");
        assert_eq!(t, old.replace("y = 2", "y = 3"));
        // A blank line is a bound through the unchanged line beyond it.
        let (t, _) = expanded(old, "# ... existing imports ...\n\ndef f():\n    x = 1\n    y = 3\n    return x\n\ndef g():\n    pass\n");
        assert_eq!(t, old.replace("y = 2", "y = 3"));
        // A `}` that occurs more than once is a bound through the unique
        // line beyond it, reached through kept lines ...
        let c = "a {\n  b\n}\n\nc {\n  d\n}\n\ne {\n  f\n}\n";
        let (t, _) = expanded(c, "a {\n  b\n}\n\n// ...\n\ne {\n  g\n}\n");
        assert_eq!(t, c.replace("  f", "  g"));
        // ... and no bound when a changed line comes first.
        let c = "q();\nx {\n}\n\nc {\n  d\n}\n\nx {\n}\n";
        let r = refused(c, "q2();\nx {\n}\n\n// ...\n\nx {\n}\n");
        assert_eq!(r.why, Why::WeakBound);
        let (t, _) = expanded(
            old,
            "import a\nimport b\n\ndef h():\n    x = 1\n    # ... rest unchanged\n",
        );
        assert_eq!(t, old.replace("def f", "def h"));
        let r = refused(
            old,
            "import a\nimport b\n\ndef f():\n    x = 5\n    # ... rest unchanged\n",
        );
        assert_eq!(r.why, Why::NextToChange);
        let (t, kept) = expanded(
            old,
            "# ...\nimport b\n\ndef f():\n    x = 1\n    y = 2\n    # ... existing code ...\ndef g():\n    return 0\n",
        );
        assert_eq!(t, old.replace("pass", "return 0"));
        assert_eq!(kept.len(), 2);
    }

    #[test]
    fn crlf_lines_keep_their_endings() {
        let old = JS.replace('\n', "\r\n");
        let new = "function a() {\r\n  const x = 1;\r\n  // ... existing code ...\r\n  return x + y + z + 1;\r\n}\r\n";
        assert_eq!(refused(&old, new).why, Why::NextToChange);
        let new = "function b() {\r\n  const x = 1;\r\n  // ... existing code ...\r\n  return x + y + z;\r\n}\r\n";
        let (t, _) = expanded(&old, new);
        assert_eq!(t, old.replace("function a", "function b"));
    }

    #[test]
    fn a_repeated_punctuation_bound_is_no_bound() {
        let old = "if a {\n  one();\n}\nif b {\n  two();\n}\nend();\n";
        // The marker's upper bound is `}`, which occurs twice.
        let r = refused(old, "if a {\n  one();\n}\n// ...\nend();\nmore();\n");
        assert!(matches!(r.why, Why::WeakBound | Why::BoundInside), "{r:?}");
    }

    #[test]
    fn a_closing_brace_of_a_rewritten_block_does_not_pin_a_marker() {
        // A new check added above the marker, its `}` the only one in the
        // block: paired with the old check's `}`, the old check would be
        // read as rewritten and deleted. Two readings (rewritten, or added
        // with the old one elided): refused.
        let old = "function f(x) {\n  if (x > 1) {\n    return 1;\n  }\n  foo();\n  bar();\n  return 0;\n}\n";
        let block = "  if (x > 1) {\n    return 1;\n  }\n  foo();\n  bar();\n  return 0;\n";
        let lazy = "  if (x < 0) {\n    return -1;\n  }\n  // ... existing code ...\n  return 0;\n";
        assert!(
            matches!(edit(old, block, lazy), Verdict::Refused(ref r) if r.why == Why::WeakBound),
            "{:?}",
            edit(old, block, lazy)
        );
    }

    #[test]
    fn a_marker_between_neighbours_in_a_change_deleting_elsewhere_names_those_lines() {
        // Its neighbours are kept and adjacent in the old text: it stands
        // for nothing where it is, while `c` is deleted further on, which
        // it may have meant. The refusal names the lines deleted.
        let old = "fn a() {\n    one();\n}\nfn b() {\n    two();\n}\nfn c() {\n    three();\n}\n";
        let new = "fn a() {\n    one();\n}\n// ... existing code ...\nfn b() {\n    two();\n}\n";
        let r = refused(old, new);
        assert_eq!(r.why, Why::Elsewhere);
        assert_eq!(r.line, 4);
        assert_eq!(r.deleted, 3);
        // (Lines 6-8 or 7-9: a diff may delete either `}`.)
        let texts: Vec<&str> = r.deletes.iter().map(|(_, t)| t.as_str()).collect();
        assert!(
            texts == ["fn c() {", "    three();", "}"]
                || texts == ["}", "fn c() {", "    three();"],
            "{r:?}"
        );
    }

    #[test]
    fn kept_lines_reached_over_a_deletion_are_no_certain_bound_anywhere() {
        // `return None` read as the later old line kept (three lines before
        // it deleted) or as `raise` changed with the rest elided: refused,
        // whatever follows the marker (only a run to the end was before).
        let body = "def get(key):\n    if key is None:\n        raise KeyError(key)\n        log(key)\n        count += 1\n        return None\n        cleanup()\n";
        let lazy = "def get(key):\n    if key is None:\n        return None\n        # ... existing code ...\n";
        for tail in ["", "\n", "    return value\n"] {
            let r = refused(&format!("{body}{tail}"), &format!("{lazy}{tail}"));
            assert_eq!(r.why, Why::BesideDeletion, "{tail:?}");
        }
        // A brace alone as the kept line, above and below the marker.
        let r = refused(
            "a = 1;\nb = 2;\n}\nc = 3;\nd = 4;\ne = 5;\n",
            "// ... existing code ...\n}\ne = 5;\n",
        );
        assert_eq!(r.why, Why::BesideDeletion);
        let r = refused(
            "e = 5;\nd = 4;\nc = 3;\n}\nb = 2;\na = 1;\n",
            "e = 5;\n}\n// ... existing code ...\n",
        );
        assert_eq!(r.why, Why::BesideDeletion);
        // New lines in place of the deleted ones, fewer than deleted.
        let r = refused(
            "start();\nalpha();\nbeta();\ngamma();\nfinish();\nrest();\n",
            "start();\ninit();\nfinish();\n// ... existing code ...\n",
        );
        assert_eq!(r.why, Why::BesideDeletion);
        // As many written as deleted (a line changed) beyond the kept line:
        // the run stands.
        let (text, _) = expanded(
            "a();\nb();\nc();\nd();\ne();\n",
            "a();\nB();\nc();\n// ... existing code ...\ne();\n",
        );
        assert_eq!(text, "a();\nB();\nc();\nd();\ne();\n");
    }

    #[test]
    fn kept_lines_take_the_line_breaks_of_a_text_that_converts_them() {
        // A whole text sent with LF over a file that uses CRLF throughout
        // (a conversion: writeFile with the endings as sent): the kept
        // lines are written with LF too, not left CRLF among LF lines.
        let old = "fn f() {\r\n  one();\r\n  two();\r\n  three();\r\n}\r\n";
        let (text, _) = expanded(
            old,
            "fn f() {\n  one();\n  // ... existing code ...\n  three();\n  four();\n}\n",
        );
        assert_eq!(
            text,
            "fn f() {\n  one();\n  two();\n  three();\n  four();\n}\n"
        );
        // And the other way.
        let old = old.replace("\r\n", "\n");
        let (text, _) = expanded(
            &old,
            "fn f() {\r\n  one();\r\n  // ... existing code ...\r\n  three();\r\n}\r\n",
        );
        assert_eq!(
            text,
            "fn f() {\r\n  one();\r\n  two();\r\n  three();\r\n}\r\n"
        );
        // A file of mixed endings keeps the bytes of its kept lines.
        let old = "fn f() {\r\n  one();\n  two();\r\n  three();\n}\n";
        let (text, _) = expanded(
            old,
            "fn f() {\n  one();\n  // ... existing code ...\n  three();\n  four();\n}\n",
        );
        assert_eq!(
            text,
            "fn f() {\n  one();\n  two();\r\n  three();\n  four();\n}\n"
        );
    }

    #[test]
    fn a_marker_beside_a_new_line_in_an_edit_deleting_nothing_says_so() {
        // `two();`, a marker, `five();` over `two();`: nothing deleted, but
        // the marker may stand for the lines past the edit that `five();`
        // was meant to follow. Refused, not as a deletion.
        let old = "function f() {\n  one();\n  two();\n  three();\n}\n";
        match edit(
            old,
            "  two();\n",
            "  two();\n  // ... existing code ...\n  five();\n",
        ) {
            Verdict::Refused(r) => {
                assert_eq!(r.why, Why::BesideNew);
                assert_eq!(r.deleted, 0);
            }
            v => panic!("{v:?}"),
        }
    }

    #[test]
    fn a_deletion_beyond_kept_lines_is_counted_whatever_its_first_line() {
        // The first line deleted beyond the kept one a brace or a blank
        // (the guard looked at it alone), the deleted lines counted back
        // to a nearer copy of a blank line (cut short), a fence deleted:
        // each refused as the same text with a line of code there is.
        for (old, new) in [
            (
                "a();\nb();\nc();\n}\nif (x) {\nd();\n",
                "// ...\nc();\nd();\n",
            ),
            (
                "a();\nb();\nc();\n\nif (x) {\nd();\n",
                "// ...\nc();\nd();\n",
            ),
            (
                "d();\nlog();\n}\nc();\na();\nb();\n",
                "d();\nc();\n// ...\n",
            ),
            (
                "start();\n\none();\n\ntwo();\nc();\nx();\ny();\n",
                "start();\n\nc();\n// ...\n",
            ),
            (
                "x();\ny();\nc();\ntwo();\n\none();\n\nend();\n",
                "// ...\nc();\n\nend();\n",
            ),
            (
                "## Install\n\n```\nnpm install foo\n```\n\n## Usage\n",
                "## Install\nnpm install foo\n<!-- ... existing content ... -->\n",
            ),
        ] {
            let r = refused(old, new);
            assert_eq!(r.why, Why::BesideDeletion, "{old:?}");
        }
    }

    /// The verdict on an edit of `old` that replaces its first occurrence
    /// of `block` by `by`, as the pipeline sees it (the rest borrowed).
    fn edit(old: &str, block: &str, by: &str) -> Verdict {
        let a = old.find(block).expect("block in old");
        let o = old.as_bytes();
        check(
            o,
            &[&o[..a], by.as_bytes(), &o[a + block.len()..]],
            Markers::default(),
        )
    }

    fn text_of(old: &str, v: Verdict) -> String {
        match v {
            Verdict::Expanded {
                start, end, mid, ..
            } => {
                let o = old.as_bytes();
                String::from_utf8([&o[..start], &mid[..], &o[end..]].concat()).unwrap()
            }
            v => panic!("not expanded: {v:?}"),
        }
    }

    #[test]
    fn an_edit_marker_stands_for_lines_of_its_own_block() {
        // `}` occurs twice in the file but once in the block: the block's
        // lines are all the marker can stand for, so the bound is certain.
        let old = "fn a() {\n    one();\n    two();\n}\nx();\n\nfn b() {\n    four();\n}\n";
        let block = "fn a() {\n    one();\n    two();\n}\nx();\n";
        let lazy = "fn a() {\n    // ... existing code ...\n}\ny();\n";
        let t = text_of(old, edit(old, block, lazy));
        assert_eq!(t, old.replace("x();", "y();"));
        // The same text written whole: `}` is no certain bound in the file.
        let whole = old.replace(block, lazy);
        assert!(matches!(run(old, &whole), Verdict::Refused(r) if r.why == Why::WeakBound));
        // A marker next to the change is refused in a block too.
        let lazy = "fn a() {\n    one();\n    // ... existing code ...\ny();\n";
        match edit(old, block, lazy) {
            Verdict::Refused(r) => {
                assert_eq!(r.why, Why::NextToChange);
                assert_eq!(r.line, 3);
            }
            v => panic!("{v:?}"),
        }
        // Two edits in one text: each block is checked, the expansion
        // keeps the other edit's replacement.
        let o = old.as_bytes();
        let a = old.find(block).unwrap();
        let c = old.find("    four();").unwrap();
        let lazy = "fn a() {\n    // ... existing code ...\n}\ny();\n";
        let v = check(
            o,
            &[
                &o[..a],
                lazy.as_bytes(),
                &o[a + block.len()..c],
                b"    five();\n",
                &o[c + 12..],
            ],
            Markers::default(),
        );
        assert_eq!(
            text_of(old, v),
            old.replace("x();", "y();").replace("four", "five")
        );
    }

    #[test]
    fn a_line_beside_the_marker_may_be_the_new_twin_of_one_it_hid() {
        // Read as standing for `b`, `c`: the edit changes nothing; the new
        // blank line was the change, the old one behind the marker.
        let old = "fn f() {\n    a();\n    b();\n\n    c();\n}\n";
        let v = run(
            old,
            "fn f() {\n    a();\n    // ... existing code ...\n\n    c();\n}\n",
        );
        assert!(matches!(v, Verdict::Refused(r) if r.why == Why::NoChange));
        // A lone comment leader next to new lines pins nothing.
        let old = "// one\n// two\n//\n// three\nfn x() {}\n";
        let block = "// one\n// two\n//\n// three\n";
        let v = edit(
            old,
            block,
            "// one\n// ... existing comment ...\n//\n// four\n",
        );
        assert!(matches!(v, Verdict::Refused(_)), "{v:?}");
    }

    #[test]
    fn common_prefix_and_suffix_are_whole_lines() {
        assert_eq!(common_prefix(b"a\nbc\n", b"a\nbd\n"), 2);
        assert_eq!(common_prefix(b"a\nb", b"a\nb\nc"), 2);
        assert_eq!(common_suffix(b"x\nab\n", b"y\nzb\n"), 0);
        assert_eq!(common_suffix(b"x\nb\n", b"y\nb\n"), 2);
        assert_eq!(common_suffix(b"b\n", b"y\nb\n"), 2);
    }
}

#[cfg(test)]
mod props {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    /// A marker's reading in one alignment: the old run it stands for, or
    /// `None` (written as it is).
    type Reading = Option<(usize, usize)>;

    /// Naive reference: every alignment of `o` and `n`, enumerated; the
    /// least cost (the table's weights) and, per marker, the readings
    /// found among the alignments of that cost.
    fn naive(o: &[u32], n: &[u32], markers: &[bool]) -> (u32, Vec<BTreeSet<Reading>>) {
        let del = n.len() as u32 + 2;
        let ins = del + 1;
        let mut best = u32::MAX;
        let mut found: Vec<BTreeSet<Reading>> = vec![BTreeSet::new(); n.len()];
        /// `prev`: how the last step ended (0 the start, 1 a kept pair,
        /// 2 a deletion or insertion, 3 a marker's run): a run only after a
        /// kept pair or the start, and only a kept pair (or the end) after
        /// a run.
        #[allow(clippy::too_many_arguments)]
        fn go(
            (i, j, prev): (usize, usize, u8),
            cost: u32,
            readings: &mut Vec<(usize, Reading)>,
            o: &[u32],
            n: &[u32],
            markers: &[bool],
            w: (u32, u32),
            out: &mut (u32, Vec<BTreeSet<Reading>>),
        ) {
            let (del, ins) = w;
            if cost > out.0 {
                return;
            }
            if i == o.len() && j == n.len() {
                if cost < out.0 {
                    out.0 = cost;
                    out.1.iter_mut().for_each(BTreeSet::clear);
                }
                for &(k, r) in readings.iter() {
                    out.1[k].insert(r);
                }
                return;
            }
            if i < o.len() && j < n.len() && o[i] == n[j] && n[j] != u32::MAX {
                go((i + 1, j + 1, 1), cost, readings, o, n, markers, w, out);
            }
            if prev == 3 {
                return;
            }
            if i < o.len() {
                go((i + 1, j, 2), cost + del, readings, o, n, markers, w, out);
            }
            if j < n.len() {
                if markers[j] {
                    readings.push((j, None));
                }
                go((i, j + 1, 2), cost + ins, readings, o, n, markers, w, out);
                if markers[j] {
                    readings.pop();
                }
            }
            if j < n.len() && markers[j] && prev < 2 {
                for e in i + 1..=o.len() {
                    readings.push((j, Some((i, e))));
                    go((e, j + 1, 3), cost, readings, o, n, markers, w, out);
                    readings.pop();
                }
            }
        }
        let mut out = (u32::MAX, vec![BTreeSet::new(); n.len()]);
        go(
            (0, 0, 0),
            0,
            &mut Vec::new(),
            o,
            n,
            markers,
            (del, ins),
            &mut out,
        );
        best = best.min(out.0);
        found = out.1.into_iter().zip(found).map(|(a, _)| a).collect();
        (best, found)
    }

    const LINES: &[&str] = &["a", "b", "c", "}", "", "fn x() {"];
    const MARK: &str = "// ... existing code ...";

    fn text(ls: &[String]) -> String {
        ls.iter().map(|l| format!("{l}\n")).collect()
    }

    proptest! {
        #![proptest_config(crate::text::test_seeds::config(600))]

        /// The tables agree with the naive reference on the least cost and,
        /// for every marker, on whether one run, several runs or being
        /// written as it is are optimal.
        #[test]
        fn tables_agree_with_the_naive_reference(
            old in proptest::collection::vec(0..LINES.len(), 0..6),
            new in proptest::collection::vec(0..LINES.len() + 1, 0..5),
        ) {
            let o: Vec<u32> = old.iter().map(|&k| k as u32).collect();
            let n: Vec<u32> = new
                .iter()
                .map(|&k| if k == LINES.len() || !old.contains(&k) { u32::MAX } else { k as u32 })
                .collect();
            let markers: Vec<bool> = new.iter().map(|&k| k == LINES.len()).collect();
            let t = Table::new(&o, &n, &markers, (true, true), true);
            let best = t.best;
            let (nb, readings) = naive(&o, &n, &markers);
            prop_assert_eq!(best, nb);
            for j in (0..n.len()).filter(|&j| markers[j]) {
                let found = t.absorbing(j, best, 64);
                let runs: Vec<_> = readings[j].iter().flatten().copied().collect();
                prop_assert_eq!(found.len(), runs.len(), "marker {}", j);
                for f in &found {
                    prop_assert!(runs.contains(f));
                }
                let literal = (0..=o.len()).any(|i| t.f(i, j) + t.ins + t.bf(i, j + 1) == best);
                prop_assert_eq!(literal, readings[j].contains(&None));
            }
        }

        /// An expansion never writes a line that was in neither the old
        /// text nor the new one (a marker that removes nothing is a line of
        /// the new text, written as sent).
        #[test]
        fn an_expansion_writes_only_old_or_new_lines(
            old in proptest::collection::vec(0..LINES.len(), 1..14),
            edits in proptest::collection::vec((0..14usize, 0..4usize, 0..3usize, "[a-c]{1,2}"), 1..4),
        ) {
            let o: Vec<String> = old.iter().map(|&k| LINES[k].to_string()).collect();
            let mut n = o.clone();
            for (at, len, kind, s) in edits {
                let at = at.min(n.len());
                let end = (at + len).min(n.len());
                match kind {
                    0 => { n.splice(at..end, [MARK.to_string()]); }
                    1 => { n.splice(at..end, [format!("new {s}")]); }
                    _ => { n.insert(at, s.to_string()); }
                }
            }
            let (old_t, new_t) = (text(&o), text(&n));
            if let Verdict::Expanded { start, end, mid, .. } = check(old_t.as_bytes(), &[new_t.as_bytes()], Markers::default()) {
                let b = old_t.as_bytes();
                let out = String::from_utf8([&b[..start], &mid[..], &b[end..]].concat()).unwrap();
                for l in out.lines() {
                    prop_assert!(o.iter().any(|x| x == l) || n.iter().any(|x| x == l), "{l:?} in {out:?}");
                }
            }
        }

        /// New text that differs from the old only by runs of lines
        /// replaced with markers is expanded back to the old text exactly,
        /// or refused: never written with a marker, never otherwise.
        #[test]
        fn pure_elisions_expand_to_the_old_text_or_are_refused(
            old in proptest::collection::vec(0..LINES.len(), 1..16),
            cuts in proptest::collection::vec((0..16usize, 1..5usize), 1..3),
        ) {
            let o: Vec<String> = old.iter().map(|&k| LINES[k].to_string()).collect();
            let mut n = o.clone();
            let mut cuts = cuts;
            cuts.sort_unstable();
            for (at, len) in cuts.into_iter().rev() {
                if at < n.len() && n[at] != MARK {
                    let end = (at + len).min(n.len());
                    if n[at..end].iter().any(|l| l == MARK) { continue; }
                    n.splice(at..end, [MARK.to_string()]);
                }
            }
            prop_assume!(n != o);
            let (old_t, new_t) = (text(&o), text(&n));
            match check(old_t.as_bytes(), &[new_t.as_bytes()], Markers::default()) {
                Verdict::Expanded { start, end, mid, .. } => {
                    let b = old_t.as_bytes();
                    prop_assert_eq!([&b[..start], &mid[..], &b[end..]].concat(), b.to_vec());
                }
                Verdict::Refused(_) => {}
                Verdict::Kept => prop_assert!(false, "a marker written as it is: {new_t:?}"),
            }
        }
    }
}
