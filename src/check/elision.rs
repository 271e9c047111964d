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
//! The old and new text of one file are compared line by line, over the
//! region that changed (whole lines of common prefix and suffix left out,
//! [`CONTEXT`] of them kept on each side so that a tie reaching past the
//! change is seen). Then an exact alignment of the region: old lines are
//! kept (an equal new line), deleted (cost 1), new lines inserted (cost 1),
//! and a marker line may stand for a run of one or more old lines (cost
//! 0). The alignment of least cost is the smallest edit outside the
//! markers, as a diff counts it ("keep the most lines" is not it: it
//! re-inserts the lines before the marker and keeps the old ones too).
//!
//! Two dynamic programs give, for every cell, the least cost of the text
//! before it ([`Table::fwd`]) and after it ([`Table::bwd`]); a choice for a
//! marker is part of some optimal alignment exactly when the two around it
//! add up to the optimum. So a marker's reading is certain when exactly
//! one run of old lines is optimal for it and writing it literally is not
//! optimal: then every optimal alignment expands it the same way (a proof,
//! not a heuristic). Among alignments with the least number of lines
//! inserted plus deleted, the one inserting fewest counts (see [`Table`]).
//! On top of that, a marker must sit between unchanged lines: the new
//! lines beside it are equal to the old lines beside its run in an optimal
//! alignment (or it is at the start or end of the file). A marker next to a
//! new or changed line has no certain boundary (did the new line replace
//! the old one beside it, or join it?): refused. Each bound must pin the
//! run: walking away from the marker through kept lines, a line that
//! occurs once in the old text and once in the new one must come before
//! any line that is not kept (a `}`, a blank line or `#[doc(hidden)]` that
//! occurs many times could pair with another copy of itself), and the text
//! of a bound must not occur inside the run (it could pair with that line
//! instead, the lines between deleted rather than kept). Each of these
//! rules was added after the lazy-edit benchmark (`tests/replay/lazy.rs`)
//! found a wrong expansion without it.
//!
//! A marker that, in an optimal alignment, can be written as it is between
//! two kept lines that are neighbours in the old text (it removes nothing:
//! a new comment) is written as sent, unless a bounded run is as good; so
//! is a marker line the old text already has.
//!
//! ## Cost
//!
//! [`prefilter`] looks for marker keywords in the new text's own pieces
//! (those not borrowed from the old text) and looks at the lines around
//! each hit; no marker line, no further work, so a 200 MiB edit without a
//! marker pays a scan of its replacement. The tables are `(n+1)*(m+1)`
//! cells over the changed region; past [`MAX_CELLS`] the region is only
//! diffed (Myers): a marker whose hunk removes nothing is written, any
//! other is refused as too large to align with certainty.

use std::collections::HashMap;

use super::marker::{is_marker, KEYWORDS};

/// Unchanged lines kept on each side of the changed region.
pub(crate) const CONTEXT: usize = 16;
/// Most table cells aligned exactly (each of two tables).
pub(crate) const MAX_CELLS: usize = 4 << 20;

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

/// Whether `p` lies inside `old` (a piece borrowed from the text read).
fn borrowed(old: &[u8], p: &[u8]) -> bool {
    let (o, q) = (old.as_ptr() as usize, p.as_ptr() as usize);
    !p.is_empty() && q >= o && q + p.len() <= o + old.len()
}

/// Whether the new text may hold a marker line: a keyword in a piece of its
/// own whose line (continued into the pieces beside it) is a marker.
pub(crate) fn prefilter(old: &[u8], new: &[&[u8]]) -> bool {
    use aho_corasick::AhoCorasick;
    use std::sync::OnceLock;
    static AC: OnceLock<AhoCorasick> = OnceLock::new();
    let ac = AC.get_or_init(|| {
        AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .build(KEYWORDS)
            .expect("valid patterns")
    });
    for (k, p) in new.iter().enumerate().filter(|(_, p)| !borrowed(old, p)) {
        let mut after = 0;
        for m in ac.find_iter(*p) {
            if m.start() < after {
                continue;
            }
            let a = memchr::memrchr(b'\n', &p[..m.start()]).map_or(0, |k| k + 1);
            let b = memchr::memchr(b'\n', &p[m.end()..]).map_or(p.len(), |k| m.end() + k);
            after = b;
            if is_marker(&String::from_utf8_lossy(&whole_line(new, k, a, b))) {
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
    memchr::memrchr(b'\n', &a[..i]).map_or(0, |k| k + 1)
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
pub(crate) fn check(old: &[u8], new: &[&[u8]]) -> Verdict {
    if !prefilter(old, new) {
        return Verdict::Kept;
    }
    let new: Vec<u8> = new.concat();
    check_texts(old, &new)
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

/// [`check`] of the whole new text `new` replacing `old`, as a [`Lazy`].
pub fn lazy_outcome(old: &[u8], new: &[u8]) -> Lazy {
    match check(old, &[new]) {
        Verdict::Kept => Lazy::Kept,
        Verdict::Refused(r) => Lazy::Refused(match r.why {
            Why::Ambiguous => "ambiguous",
            Why::NextToChange => "next to a change",
            Why::WeakBound => "weak bound",
            Why::BoundInside => "bound inside the run",
            Why::TooLarge => "too large",
        }),
        Verdict::Expanded {
            start, end, mid, ..
        } => Lazy::Expanded([&old[..start], &mid[..], &old[end..]].concat()),
    }
}

/// The verdict on the whole new text `new` replacing `old`.
pub(crate) fn check_texts(old: &[u8], new: &[u8]) -> Verdict {
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
        first_line,
        whole: old,
        whole_new: new,
    };
    match region.verdict() {
        Found::None => Verdict::Kept,
        Found::Refused(r) => Verdict::Refused(r),
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
    /// The region starts at the start of the file, ends at its end.
    at_start: bool,
    at_end: bool,
    /// 0-based line of the file where the region starts.
    first_line: usize,
    /// The whole old and new texts (a bound is pinned by a line that occurs
    /// once in each).
    whole: &'a [u8],
    whole_new: &'a [u8],
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
        let markers: Vec<bool> = self
            .new
            .iter()
            .enumerate()
            .map(|(j, l)| {
                j >= self.changed.0
                    && j < self.changed.1
                    && !old_keys.contains_key(key(l))
                    && is_marker(&String::from_utf8_lossy(key(l)))
            })
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
            return self.too_large(&markers);
        }
        let t = Table::new(&oi, &ni, &markers);
        self.decide(&t, &oi, &ni, &markers)
    }

    /// Every marker's reading, checked; the expanded region or the first
    /// refusal.
    fn decide(&self, t: &Table, oi: &[u32], ni: &[u32], markers: &[bool]) -> Found {
        let best = t.fwd(oi.len(), ni.len());
        let mut kept = Vec::new();
        let mut runs: Vec<Option<(usize, usize)>> = vec![None; ni.len()];
        for (j, _) in markers.iter().enumerate().filter(|(_, &m)| m) {
            let found = t.absorbing(j, best, MAX_RUNS);
            let literal = (0..=oi.len()).any(|i| t.fwd(i, j) + t.ins + t.bwd(i, j + 1) == best);
            let Some(&(s, e)) = found.first() else {
                continue; // written as sent: it removes nothing
            };
            if literal {
                // An edit of least cost has it remove nothing (a new
                // comment): written as sent, unless one of the runs that are
                // as good is bounded (then it may stand for lines as well as
                // not) or there are too many to tell: refused.
                let bounded = found.len() > MAX_RUNS
                    || found.iter().any(|&r| {
                        self.bounds(t, oi, ni, markers, (j, r.0, r.1), best)
                            .is_none()
                    });
                if bounded || !self.clean_insert(t, oi, ni, j, best) {
                    return Found::Refused(Box::new(self.refusal(j, (s, e), Why::Ambiguous)));
                }
                continue;
            }
            let why = if found.len() > 1 {
                Some(Why::Ambiguous)
            } else {
                self.bounds(t, oi, ni, markers, (j, s, e), best)
            };
            if let Some(why) = why {
                return Found::Refused(Box::new(self.refusal(j, (s, e), why)));
            }
            runs[j] = Some((s, e));
            kept.push(KeptRun {
                marker: String::from_utf8_lossy(key(self.new[j])).trim().to_string(),
                line: self.first_line + j + 1,
                from: self.first_line + s + 1,
                to: self.first_line + e,
            });
        }
        if kept.is_empty() {
            return Found::None;
        }
        let mut mid = Vec::new();
        for (j, l) in self.new.iter().enumerate() {
            match runs[j] {
                Some((s, e)) => self.old[s..e].iter().for_each(|o| mid.extend_from_slice(o)),
                None => mid.extend_from_slice(l),
            }
        }
        // A marker that was the last line without a line break, followed
        // by nothing, keeps the old lines' own breaks; a new line after an
        // expanded last old line without a break is not glued to it.
        Found::Expanded(mid, kept)
    }

    /// Whether marker `j` written as it is can sit, in an optimal
    /// alignment, between two kept lines that are neighbours in the old text
    /// (or at an edge of the file beside one): a new comment that removes
    /// nothing around it.
    fn clean_insert(&self, t: &Table, oi: &[u32], ni: &[u32], j: usize, best: u32) -> bool {
        let (n, m) = (oi.len(), ni.len());
        let kept = |i: usize, k: usize| oi[i] == ni[k] && ni[k] != u32::MAX;
        (0..=n).any(|i| {
            let before = match (i, j) {
                (0, 0) => self.at_start.then_some(0),
                (0, _) | (_, 0) => None,
                _ => kept(i - 1, j - 1).then(|| t.fwd(i - 1, j - 1)),
            };
            let after = match (i == n, j + 1 == m) {
                (true, true) => self.at_end.then_some(0),
                (true, _) | (_, true) => None,
                _ => kept(i, j + 1).then(|| t.bwd(i + 1, j + 2)),
            };
            matches!((before, after), (Some(a), Some(b)) if a + t.ins + b == best)
        })
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
        best: u32,
    ) -> Option<Why> {
        let before_ok = if j == 0 {
            self.at_start && s == 0
        } else {
            !markers[j - 1]
                && s > 0
                && ni[j - 1] == oi[s - 1]
                && ni[j - 1] != u32::MAX
                && t.fwd(s - 1, j - 1) + t.bwd(e, j + 1) == best
        };
        let after_ok = if j + 1 == ni.len() {
            self.at_end && e == oi.len()
        } else {
            !markers[j + 1]
                && e < oi.len()
                && ni[j + 1] == oi[e]
                && ni[j + 1] != u32::MAX
                && t.fwd(s, j) + t.bwd(e + 1, j + 2) == best
        };
        if !before_ok || !after_ok {
            return Some(Why::NextToChange);
        }
        let up = (j > 0).then(|| {
            self.bound(
                t,
                oi,
                ni,
                (s, j),
                best,
                |d| t.fwd(s - d, j - d) + t.bwd(e, j + 1),
                false,
            )
        });
        let down = (e < oi.len()).then(|| {
            self.bound(
                t,
                oi,
                ni,
                (e, j + 1),
                best,
                |d| t.fwd(s, j) + t.bwd(e + d, j + 1 + d),
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

    /// Whether the unchanged lines beside a marker fix where its run ends:
    /// walking away from it (`down`: old line `at` and new line `nj`
    /// onwards; else the lines before them) over lines kept in an optimal
    /// alignment (`cost(d)`: the cost through the `d`-th pair), a line that
    /// occurs once in the whole old text must come before any line that is
    /// not kept (and once in the new text: a line the new text adds again
    /// could be read as the old one kept); the edge of the file fixes it
    /// too. A bound that occurs more
    /// than once (`}`, a blank line, `#[doc(hidden)]`, `end`) could pair with
    /// another of its copies: only a unique line beyond it, reached through
    /// kept lines, pins it.
    #[allow(clippy::too_many_arguments)]
    fn bound(
        &self,
        _t: &Table,
        oi: &[u32],
        ni: &[u32],
        (at, nj): (usize, usize),
        best: u32,
        cost: impl Fn(usize) -> u32,
        down: bool,
    ) -> bool {
        let mut d = 1;
        loop {
            let (i, k) = if down {
                (at + d - 1, nj + d - 1)
            } else {
                match (at.checked_sub(d), nj.checked_sub(d)) {
                    (Some(i), Some(k)) => (i, k),
                    (None, None) => return self.at_start,
                    _ => return false,
                }
            };
            if down && (i >= oi.len() || k >= ni.len()) {
                return i >= oi.len() && k >= ni.len() && self.at_end;
            }
            if oi[i] != ni[k] || oi[i] == u32::MAX || (d > 1 && cost(d - 1) != best) {
                return false;
            }
            let l = key(self.old[i]);
            if !l.iter().all(u8::is_ascii_whitespace)
                && occurrences(self.whole, l) == 1
                && occurrences(self.whole_new, l) == 1
            {
                return true;
            }
            d += 1;
        }
    }

    /// The refusal of marker `j`, which would delete old lines `s..e`.
    fn refusal(&self, j: usize, (s, e): (usize, usize), why: Why) -> Refusal {
        Refusal {
            marker: String::from_utf8_lossy(key(self.new[j])).trim().to_string(),
            line: self.first_line + j + 1,
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

    /// A region too large to align exactly: its diff decides. A marker in
    /// a hunk that removes nothing is written as sent; any other is
    /// refused.
    fn too_large(&self, markers: &[bool]) -> Found {
        use similar::{capture_diff_slices, Algorithm, DiffOp};
        let o: Vec<&[u8]> = self.old.iter().map(|l| key(l)).collect();
        let n: Vec<&[u8]> = self.new.iter().map(|l| key(l)).collect();
        let ops = capture_diff_slices(Algorithm::Myers, &o, &n);
        for op in ops {
            if let DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } = op
            {
                if let Some(j) = (new_index..new_index + new_len).find(|&j| markers[j]) {
                    return Found::Refused(Box::new(self.refusal(
                        j,
                        (old_index, old_index + old_len),
                        Why::TooLarge,
                    )));
                }
            }
        }
        Found::None
    }
}

/// The two cost tables of one region (see the module docs).
///
/// A deleted line costs `del`, an inserted one `ins = del + 1`, with `del`
/// more than the new lines: the least cost is the least number of lines
/// inserted plus deleted, and among alignments with that number, the one
/// that inserts fewest. That breaks the ties where a marker would swallow
/// the unchanged lines shown before it and insert them again (a deletion
/// swapped for an insertion) in favour of the reading that keeps them.
struct Table {
    w: usize,
    f: Vec<u32>,
    b: Vec<u32>,
    ins: u32,
}

impl Table {
    fn new(o: &[u32], n: &[u32], markers: &[bool]) -> Table {
        let (h, w) = (o.len() + 1, n.len() + 1);
        let del = w as u32 + 1;
        let ins = del + 1;
        let mut f = vec![u32::MAX / 2; h * w];
        let mut b = vec![u32::MAX / 2; h * w];
        for j in 0..w {
            // Least F over the previous column's rows before this one.
            let mut run = u32::MAX / 2;
            for i in 0..h {
                let mut v = if i == 0 && j == 0 { 0 } else { u32::MAX / 2 };
                if i > 0 {
                    v = v.min(f[(i - 1) * w + j] + del);
                }
                if j > 0 {
                    v = v.min(f[i * w + j - 1] + ins);
                    if i > 0 && o[i - 1] == n[j - 1] && n[j - 1] != u32::MAX {
                        v = v.min(f[(i - 1) * w + j - 1]);
                    }
                    if markers[j - 1] {
                        if i > 0 {
                            run = run.min(f[(i - 1) * w + j - 1]);
                        }
                        v = v.min(run);
                    }
                }
                f[i * w + j] = v;
            }
        }
        for j in (0..w).rev() {
            let mut run = u32::MAX / 2;
            for i in (0..h).rev() {
                let mut v = if i == h - 1 && j == w - 1 {
                    0
                } else {
                    u32::MAX / 2
                };
                if i + 1 < h {
                    v = v.min(b[(i + 1) * w + j] + del);
                }
                if j + 1 < w {
                    v = v.min(b[i * w + j + 1] + ins);
                    if i + 1 < h && o[i] == n[j] && n[j] != u32::MAX {
                        v = v.min(b[(i + 1) * w + j + 1]);
                    }
                    if markers[j] {
                        if i + 1 < h {
                            run = run.min(b[(i + 1) * w + j + 1]);
                        }
                        v = v.min(run);
                    }
                }
                b[i * w + j] = v;
            }
        }
        Table { w, f, b, ins }
    }

    /// Least cost of aligning old lines `..i` with new lines `..j`.
    fn fwd(&self, i: usize, j: usize) -> u32 {
        self.f[i * self.w + j]
    }

    /// Least cost of aligning old lines `i..` with new lines `j..`.
    fn bwd(&self, i: usize, j: usize) -> u32 {
        self.b[i * self.w + j]
    }

    /// The runs `s..e` (one or more old lines) marker `j` stands for in
    /// some alignment of cost `best`: at most `cap + 1` of them.
    fn absorbing(&self, j: usize, best: u32, cap: usize) -> Vec<(usize, usize)> {
        let h = self.f.len() / self.w;
        let mut by_cost: HashMap<u32, Vec<usize>> = HashMap::new();
        let mut out = Vec::new();
        for e in 1..h {
            by_cost.entry(self.fwd(e - 1, j)).or_default().push(e - 1);
            let bv = self.bwd(e, j + 1);
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
        check(old.as_bytes(), &[new.as_bytes()])
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
        assert!(!prefilter(JS.as_bytes(), &[b"const w = 4;\n"]));
        // A keyword in code, in a replacement that starts mid-line: no
        // marker line, nothing looked at; a marker split across pieces is
        // seen whole.
        let o = JS.as_bytes();
        assert!(!prefilter(o, &[&o[..20], b"f(...args);", &o[20..]]));
        assert!(prefilter(
            o,
            &[&o[..17], b"  // ... existing", b" code ...\n", &o[17..]]
        ));
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
        #[allow(clippy::too_many_arguments)]
        fn go(
            i: usize,
            j: usize,
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
            if i < o.len() {
                go(i + 1, j, cost + del, readings, o, n, markers, w, out);
            }
            if j < n.len() {
                if markers[j] {
                    readings.push((j, None));
                }
                go(i, j + 1, cost + ins, readings, o, n, markers, w, out);
                if markers[j] {
                    readings.pop();
                }
            }
            if i < o.len() && j < n.len() && o[i] == n[j] && n[j] != u32::MAX {
                go(i + 1, j + 1, cost, readings, o, n, markers, w, out);
            }
            if j < n.len() && markers[j] {
                for e in i + 1..=o.len() {
                    readings.push((j, Some((i, e))));
                    go(e, j + 1, cost, readings, o, n, markers, w, out);
                    readings.pop();
                }
            }
        }
        let mut out = (u32::MAX, vec![BTreeSet::new(); n.len()]);
        go(
            0,
            0,
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
            let t = Table::new(&o, &n, &markers);
            let best = t.fwd(o.len(), n.len());
            let (nb, readings) = naive(&o, &n, &markers);
            prop_assert_eq!(best, nb);
            for j in (0..n.len()).filter(|&j| markers[j]) {
                let found = t.absorbing(j, best, 64);
                let runs: Vec<_> = readings[j].iter().flatten().copied().collect();
                prop_assert_eq!(found.len(), runs.len(), "marker {}", j);
                for f in &found {
                    prop_assert!(runs.contains(f));
                }
                let literal = (0..=o.len()).any(|i| t.fwd(i, j) + t.ins + t.bwd(i, j + 1) == best);
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
            if let Verdict::Expanded { start, end, mid, .. } = check(old_t.as_bytes(), &[new_t.as_bytes()]) {
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
            match check(old_t.as_bytes(), &[new_t.as_bytes()]) {
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
