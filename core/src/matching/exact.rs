//! Matching and edit planning: pure, in memory, no I/O.
//!
//! Given a text (UTF-8 bytes, or raw bytes for byte-level files) and a list
//! of edits, find each edit's occurrences with `memchr::memmem` (strictly
//! byte-exact, non-overlapping, left to right) and describe the new content
//! as a list of spans: ranges of a base buffer to keep, and replacement texts
//! to insert. The base is the caller's buffer for a single edit, so the
//! output is written from slices without ever building the new file in
//! memory; only a multi-edit materializes the intermediate texts it must
//! search in.
//!
//! Memory is bounded by the text, not by the number of matches: an edit
//! with more occurrences than [`span_limit`] (`replace_all` of one byte over
//! a big file) is not planned as a span per match but written into one new
//! buffer of the exact final size, counted up front, so the plan holds the
//! old text plus the new one. That buffer is reserved with `try_reserve`: if
//! the memory cannot be had, the edit fails with `FILE_TOO_LARGE` instead of
//! aborting the process. Many edits over a big text are planned in one pass
//! by [`crate::matching::many`] when they are independent of each other (the
//! same result, byte for byte and field for field, as applying them in turn).
//!
//! Every edit is checked even after one fails (a failed edit is skipped and
//! the next one runs against the text as it stands), so a caller learns about
//! all failing edits in one round trip. Any failure means no plan.

use std::borrow::Cow;

use memchr::memmem;

use crate::check::{marker_in, Made, Markers};
use crate::codec::source::utf16_len;
use crate::diagnose::{self, Diagnosis};
use crate::error::ErrorCode;
use crate::likeness::{Budget, DEFAULT_BUDGET};
use crate::matching::guard;
use crate::matching::many;
use crate::matching::plan::{
    joins_at, may_damage_seam, may_join, may_reindent, seam_at, span_limit, splits_crlf_end,
    Landing, Plan, Seam, Span,
};
use crate::matching::tolerant::{self, Reading, TolerantMatch};
use crate::model::{
    Cancel, Count, Edit, EditWhy, MatchMode, Said, Stopped, Tolerance, TolerantNote,
};
use crate::printer;
use crate::result::files::LineEnding;
use crate::text::lines::line_ending;
use crate::text::lines::{line_numbers, span_lines};

/// How many match positions are kept for reports (e.g. ambiguous line lists).
pub(crate) const MAX_REPORTED_MATCHES: usize = 50;

/// Failing edits (or blocks) reported per call. Each failure costs a search
/// of the text; after this many the call has failed anyway (nothing is
/// written), so later edits are not checked and the first failure says so.
pub(crate) const MAX_REPORTED_FAILURES: usize = 100;

/// Notes on the first of `failures` that the `unchecked` edits (or
/// blocks: `what`) after the last one were not checked.
pub(crate) fn note_unchecked(failures: &mut [EditMiss], unchecked: usize, what: &'static str) {
    if unchecked == 0 {
        return;
    }
    if let Some(first) = failures.first_mut() {
        first.unchecked = Some((what, unchecked));
    }
}

/// What the text is, for the checks matching needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TextKind {
    /// Valid UTF-8.
    Utf8,
    /// Not valid UTF-8: only ASCII search and replacement texts are allowed,
    /// so every other byte is preserved and no invalid sequence is split.
    Bytes,
}

/// Why one edit failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct EditMiss {
    pub(crate) index: usize,
    pub(crate) code: ErrorCode,
    pub(crate) match_count: usize,
    /// 1-based start lines of the first matches (ambiguous case).
    pub(crate) match_lines: Vec<usize>,
    /// Why, as facts ([`EditMiss::message`] words them).
    pub(crate) why: EditWhy,
    /// Whether it is one edit of several (its message names it then).
    pub(crate) multi: bool,
    /// The caller's spellings of the edit's fields.
    pub(crate) said: Said,
    /// On the first failure of a call that stopped checking: what was not
    /// checked after the last failure (`edit` or `block`) and how many.
    pub(crate) unchecked: Option<(&'static str, usize)>,
    /// What diagnosis learned (not-found and ambiguous blocks).
    pub(crate) diagnosis: Option<Box<Diagnosis>>,
}

impl EditMiss {
    /// A failure of edit `index` for `why`, no place found, not diagnosed.
    pub(crate) fn new(index: usize, code: ErrorCode, why: EditWhy) -> EditMiss {
        EditMiss {
            index,
            code,
            match_count: 0,
            match_lines: Vec::new(),
            why,
            multi: false,
            said: Said::CANONICAL,
            unchecked: None,
            diagnosis: None,
        }
    }

    /// The failure in words, for the agent.
    pub(crate) fn message(&self) -> String {
        let d = self.diagnosis.as_deref();
        let diagnosed = match &self.why {
            EditWhy::NotFound { .. } => d.and_then(|d| d.message.as_deref()),
            EditWhy::Withheld { applied: true, .. } => d
                .filter(|d| d.already_applied.is_some())
                .map(|d| d.message.as_deref().unwrap_or_default()),
            _ => None,
        };
        let pre = if self.multi {
            printer::edit_prefix(self.index)
        } else {
            String::new()
        };
        printer::edit_miss(
            (&pre, self.said),
            &self.why,
            (self.match_count, &self.match_lines),
            diagnosed,
            self.unchecked
                .map(|(what, n)| (MAX_REPORTED_FAILURES, what, n)),
        )
    }
}

/// How an edit that needed match tolerances was applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Tolerated {
    /// The tolerances the match needed.
    pub(crate) matched_with: Vec<Tolerance>,
    /// The exact original text that was replaced (decoded).
    pub(crate) original_text: String,
}

/// How [`match_edits`] matches and what it does on failure.
#[derive(Debug, Clone)]
pub(crate) struct MatchOptions {
    /// Exact matching (default) or the tolerances of `match`.
    pub(crate) mode: MatchMode,
    /// Diagnose failed edits (near misses, unique-context hints).
    pub(crate) diagnose: bool,
    /// Units of work all diagnoses of one call may spend together (see
    /// [`Budget`]).
    pub(crate) budget: u64,
    /// The caller's cancellation and time budget, checked between edits
    /// applied in turn.
    pub(crate) cancel: Cancel,
}

impl Default for MatchOptions {
    fn default() -> Self {
        MatchOptions {
            mode: MatchMode::EXACT,
            diagnose: true,
            budget: DEFAULT_BUDGET,
            cancel: Cancel::default(),
        }
    }
}

/// A successful plan: the new content as spans over `base`.
#[derive(Debug, Clone)]
pub(crate) struct Matched<'a> {
    base: Cow<'a, [u8]>,
    spans: Vec<Span>,
    pub(crate) edits: Vec<Landing>,
    /// Change in UTF-16 length (JS string length) of the text.
    pub(crate) utf16_delta: isize,
    /// Per edit: the replacement adapted by a tolerant match.
    adapted: Vec<Option<String>>,
    /// Per edit: how a tolerant match was made (`None`: exact).
    pub(crate) tolerated: Vec<Option<Tolerated>>,
    /// Whether the call allowed tolerances (`match` was not exact).
    pub(crate) tolerant_mode: bool,
}

impl<'a> Matched<'a> {
    /// A one-pass plan of exact matches over `text` ([`many`]).
    #[cfg(test)]
    pub(crate) fn from_plan(text: &'a [u8], p: Plan, tolerant_mode: bool) -> Matched<'a> {
        let n = p.reports.len();
        Matched {
            base: Cow::Borrowed(text),
            spans: p.spans,
            edits: p.reports,
            utf16_delta: p.utf16_delta,
            adapted: vec![None; n],
            tolerated: vec![None; n],
            tolerant_mode,
        }
    }

    /// This plan as spans over the caller's text, when it is one: exact
    /// matches over the text as given (no edit was applied before the last
    /// one, none adapted by a tolerance).
    pub(crate) fn into_plan(self) -> Result<Plan, Box<Self>> {
        if !self.over_caller() {
            return Err(Box::new(self));
        }
        Ok(Plan {
            spans: self.spans,
            reports: self.edits,
            utf16_delta: self.utf16_delta,
        })
    }

    /// The text the earlier edits left, when an edit was applied before
    /// the last one was matched (the plan's spans are over it).
    pub(crate) fn in_turn(&self) -> Option<&[u8]> {
        match &self.base {
            Cow::Owned(b) => Some(b),
            Cow::Borrowed(_) => None,
        }
    }

    /// Whether [`Matched::into_plan`] gives a plan.
    pub(crate) fn over_caller(&self) -> bool {
        matches!(self.base, Cow::Borrowed(_)) && self.adapted.iter().all(Option::is_none)
    }

    /// The new text as ordered slices (base ranges and replacement texts).
    pub(crate) fn pieces<'s>(&'s self, edits: &'s [Edit]) -> Vec<&'s [u8]> {
        self.spans
            .iter()
            .filter_map(|s| {
                let p: &[u8] = match *s {
                    Span::Keep(a, b) => &self.base[a..b],
                    Span::Insert(i) => self.adapted[i]
                        .as_deref()
                        .unwrap_or(&edits[i].replace)
                        .as_bytes(),
                };
                (!p.is_empty()).then_some(p)
            })
            .collect()
    }

    /// Total replacements over all edits.
    pub(crate) fn replacements(&self) -> usize {
        self.edits.iter().map(|e| e.replacements).sum()
    }
}

/// The new text `pieces` of `edits` over `text` as the checks on new text
/// read it, and how it was made (`in_turn`: the edits were applied one
/// after another, with the text before the last one when it is kept).
/// Edits of one call that may hold a marker are read as stretches of
/// `text`, each replaced, when they are that ([`at_once`], the same bytes):
/// each edit's block its own span, also where two touch (the plan's pieces
/// would join their blocks). Other edits applied in turn are read as made
/// in turn; everything else as it is.
pub(crate) fn for_checks<'p>(
    text: &'p [u8],
    edits: &'p [Edit],
    pieces: &[&'p [u8]],
    in_turn: Option<Option<&'p [u8]>>,
    markers: Markers,
) -> (Vec<&'p [u8]>, Made<'p>) {
    let marker = match edits.len() {
        0 | 1 => None,
        _ => marker_in(edits.iter().map(|e| e.replace.as_bytes()), markers),
    };
    let Some(marker) = marker else {
        return (pieces.to_vec(), Made::AtOnce);
    };
    if let Some(p) = at_once(text, edits).filter(|p| same_bytes(p, pieces)) {
        return (p, Made::AtOnce);
    }
    match in_turn {
        Some(base) => (
            pieces.to_vec(),
            Made::InTurn {
                base,
                marker: Some(marker),
            },
        ),
        None => (pieces.to_vec(), Made::AtOnce),
    }
}

/// The new text of `edits` over `text` as pieces of `text` and of the
/// replacements, when each could have been applied to `text` as given:
/// every search occurs in it exactly once, the places apart. Edits applied
/// one after another (the planner's choice) then wrote this text too, when
/// [`same_bytes`] says so; each edit's block is then a stretch of `text`
/// itself, which the checks on new text read edit by edit.
fn at_once<'a>(text: &'a [u8], edits: &'a [Edit]) -> Option<Vec<&'a [u8]>> {
    let mut at = Vec::with_capacity(edits.len());
    for (k, e) in edits.iter().enumerate() {
        let (found, n) = find_all(text, e.search.as_bytes(), 1);
        match (found.first(), n, e.search.is_empty()) {
            (Some(&p), 1, false) => at.push((p, p + e.search.len(), k)),
            _ => return None,
        }
    }
    at.sort_unstable();
    if !at.windows(2).all(|w| w[0].1 <= w[1].0) {
        return None;
    }
    // The stretch between two edits stays when empty: it tells their
    // blocks apart (an empty slice of `text`, where they touch).
    let mut pieces = Vec::with_capacity(2 * at.len() + 1);
    let mut from = 0;
    for (s, e, k) in at {
        if s > from || (from > 0 && s < text.len()) {
            pieces.push(&text[from..s]);
        }
        pieces.push(edits[k].replace.as_bytes());
        from = e;
    }
    if from < text.len() {
        pieces.push(&text[from..]);
    }
    Some(pieces)
}

/// Whether two lists of pieces make the same bytes.
fn same_bytes(a: &[&[u8]], b: &[&[u8]]) -> bool {
    let len = |x: &[&[u8]]| x.iter().map(|p| p.len()).sum::<usize>();
    if len(a) != len(b) {
        return false;
    }
    let (mut x, mut y) = (a.iter().copied(), b.iter().copied());
    let (mut p, mut q): (&[u8], &[u8]) = (&[], &[]);
    loop {
        while p.is_empty() {
            match x.next() {
                Some(n) => p = n,
                None => return true,
            }
        }
        while q.is_empty() {
            match y.next() {
                Some(n) => q = n,
                None => return false,
            }
        }
        let n = p.len().min(q.len());
        if p[..n] != q[..n] {
            return false;
        }
        (p, q) = (&p[n..], &q[n..]);
    }
}

/// Finds up to `keep` positions of `needle` in `hay`, and the total count of
/// non-overlapping occurrences.
pub(crate) fn find_all(hay: &[u8], needle: &[u8], keep: usize) -> (Vec<usize>, usize) {
    let mut iter = memmem::find_iter(hay, needle);
    let positions: Vec<usize> = iter.by_ref().take(keep).collect();
    let mut n = positions.len();
    if n == keep {
        n += match needle {
            // The rest of a one-byte search counted, not found one by one.
            &[byte] => {
                memchr::memchr_iter(byte, &hay[positions.last().map_or(0, |p| p + 1)..]).count()
            }
            _ => iter.count(),
        };
    }
    (positions, n)
}

/// For an edit that must replace several occurrences (`expected_replacements`
/// above 1, `replace_all`) in a call with `match` tolerances: what the
/// tolerances would find (they do not apply to such an edit).
fn tolerances_not_applied(text: &[u8], edit: &Edit, mode: MatchMode) -> TolerantNote {
    let (n, lines) = match tolerant::find(text, &edit.search, &edit.replace, mode) {
        Reading::None => (0, Vec::new()),
        Reading::Unique(tolerant::TolerantMatch { start, .. })
        | Reading::Uncertain(tolerant::Uncertain { start, .. }) => {
            (1, line_numbers(text, &[start]))
        }
        Reading::Many(offsets, n) => (n, line_numbers(text, &offsets)),
    };
    TolerantNote::WouldFind { n, lines }
}

fn label(index: usize, multi: bool) -> String {
    if multi {
        printer::edit_prefix(index)
    } else {
        String::new()
    }
}

/// Plans `edits` over `text` with exact matching and diagnosis of
/// failures. On failure, returns every failing edit.
#[cfg(test)]
pub(crate) fn match_exact<'a>(
    text: &'a [u8],
    edits: &[Edit],
    kind: TextKind,
) -> Result<Matched<'a>, Vec<EditMiss>> {
    match_edits(text, edits, kind, &MatchOptions::default())
}

/// Plans `edits` over `text` as `opts` say. Exact matching always comes
/// first; an edit that must match once and was not found exactly is then
/// matched under the tolerances of `opts.mode`, if any (still exactly once,
/// or it fails). Diagnosis runs only for failed edits.
///
/// Edits apply in turn, each to the text the previous ones left. Many edits
/// over a big text are first tried in one pass (`many::plan`), which
/// gives the same plan whenever it answers; when it does not (an edit
/// fails, or the edits interact), they are applied in turn.
pub(crate) fn match_edits<'a>(
    text: &'a [u8],
    edits: &[Edit],
    kind: TextKind,
    opts: &MatchOptions,
) -> Result<Matched<'a>, Vec<EditMiss>> {
    // The first run tried is all the edits: planned in one pass when
    // independent (the spans of that plan over `text`).
    in_turn_with(text, edits, kind, opts, Runs::WhenWorthIt)
}

/// [`match_edits`] without the one-pass planner: every edit searched in the
/// text as the previous ones left it.
#[cfg(test)]
pub(crate) fn match_in_turn<'a>(
    text: &'a [u8],
    edits: &[Edit],
    kind: TextKind,
    opts: &MatchOptions,
) -> Result<Matched<'a>, Vec<EditMiss>> {
    in_turn_with(text, edits, kind, opts, Runs::Never)
}

/// Whether edits applied in turn plan runs of them in one pass
/// ([`many::plan_prefix`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Runs {
    /// Never (tests: the reference they are held to).
    #[cfg(test)]
    Never,
    /// When the remaining work is big enough ([`many::worth_it`]).
    WhenWorthIt,
    /// Always (tests, on small texts).
    #[cfg(test)]
    Always,
}

impl Runs {
    /// Whether to look for a run of `edits` remaining edits over `len` bytes.
    fn now(self, len: usize, edits: usize) -> bool {
        match self {
            #[cfg(test)]
            Runs::Never => false,
            Runs::WhenWorthIt => many::worth_it(len, edits),
            #[cfg(test)]
            Runs::Always => edits >= 2,
        }
    }
}

/// Runs of edits (or blocks) planned in one pass while they are applied in
/// turn: where to look for the next one, and which edits a run found
/// covered. A look that finds none makes the next one wait twice as long
/// (in edits applied one by one), so looking never costs more than a small
/// factor over applying in turn.
pub(crate) struct RunFinder {
    runs: Runs,
    covered_to: usize,
    next_try: usize,
    wait: usize,
}

impl RunFinder {
    pub(crate) fn new(runs: Runs) -> Self {
        RunFinder {
            runs,
            covered_to: 0,
            next_try: 0,
            wait: 1,
        }
    }

    /// Whether edit `i` was applied by a run already found.
    pub(crate) fn covered(&self, i: usize) -> bool {
        i < self.covered_to
    }

    /// Forgets a run found at edit `i` that the caller did not take: the
    /// edits from `i` on are applied one by one.
    pub(crate) fn forget(&mut self, i: usize) {
        self.covered_to = self.covered_to.min(i);
    }

    /// A run of `edits[i..]` over `text` (how many edits, and their plan)
    /// when it is time to look and one is planned. `take_break`: per edit,
    /// as [`many::plan_blocks`] (empty for `edits`).
    pub(crate) fn find(
        &mut self,
        text: &[u8],
        edits: &[Edit],
        i: usize,
        take_break: &[bool],
        kind: TextKind,
        cancel: &Cancel,
    ) -> Option<(usize, Plan)> {
        if kind != TextKind::Utf8
            || i < self.next_try
            || !self.runs.now(text.len(), edits.len() - i)
        {
            return None;
        }
        let takes = take_break.get(i..).unwrap_or_default();
        match many::plan_prefix(text, &edits[i..], takes, cancel) {
            Some((m, plan)) => {
                self.wait = 1;
                self.covered_to = i + m;
                Some((m, plan))
            }
            None => {
                self.next_try = i + self.wait;
                self.wait = self.wait.saturating_mul(2);
                None
            }
        }
    }
}

/// A cancellation (or spent time budget) noticed before edit or block
/// `index`: the call's answer, not what was found so far.
pub(crate) fn cancelled(index: usize, s: Stopped) -> EditMiss {
    EditMiss::new(index, ErrorCode::CANCELLED, EditWhy::Stopped(s))
}

/// A failure of edit `index` (labelled `pre` in messages: `edits[i]: `, or
/// nothing when it is the only edit; `said`: its caller's spellings) for
/// `why`, no place found, not diagnosed.
fn miss(index: usize, (pre, said): (&str, Said), code: ErrorCode, why: EditWhy) -> EditMiss {
    EditMiss {
        multi: !pre.is_empty(),
        said,
        ..EditMiss::new(index, code, why)
    }
}

/// Applying in turn, with runs of edits that neither fail nor interact
/// planned in one pass as `runs` says ([`RunFinder`]).
pub(crate) fn in_turn_with<'a>(
    text: &'a [u8],
    edits: &[Edit],
    kind: TextKind,
    opts: &MatchOptions,
    runs: Runs,
) -> Result<Matched<'a>, Vec<EditMiss>> {
    in_turn_sharing(text, edits, kind, opts, runs, &Budget::new(opts.budget))
}

/// [`match_edits`] diagnosing failures within `budget`, which the caller
/// shares between calls (blocks matched one by one spend one budget).
pub(crate) fn match_edits_sharing<'a>(
    text: &'a [u8],
    edits: &[Edit],
    kind: TextKind,
    opts: &MatchOptions,
    budget: &Budget,
) -> Result<Matched<'a>, Vec<EditMiss>> {
    in_turn_sharing(text, edits, kind, opts, Runs::WhenWorthIt, budget)
}

/// [`in_turn_with`], diagnoses spending `budget`: the driver loop. Each
/// edit is taken by a run planned in one pass ([`InTurn::take_run`]) or
/// searched alone ([`InTurn::one_edit`]); a failed edit is kept and the
/// next one runs against the text as it stands, so all failures are
/// reported together.
fn in_turn_sharing<'a>(
    text: &'a [u8],
    edits: &[Edit],
    kind: TextKind,
    opts: &MatchOptions,
    runs: Runs,
    budget: &Budget,
) -> Result<Matched<'a>, Vec<EditMiss>> {
    let call = Call {
        edits,
        kind,
        opts,
        budget,
    };
    let multi = edits.len() > 1;
    let mut runs = RunFinder::new(runs);
    let mut plan = InTurn::new(text, edits.len());
    let alone = matched_alone(text, edits, opts.mode);

    for (i, edit) in edits.iter().enumerate() {
        if runs.covered(i) {
            continue;
        }
        if plan.failures.len() >= MAX_REPORTED_FAILURES {
            note_unchecked(&mut plan.failures, edits.len() - i, "edit");
            break;
        }
        let pre = label(i, multi);
        if let Some(s) = opts.cancel.stopped() {
            return Err(vec![cancelled(i, s)]);
        }
        let until = alone.get(alone.partition_point(|&k| k < i)).copied();
        let upto = &edits[..until.unwrap_or(edits.len())];
        if let Some((m, run)) = runs.find(&plan.base, upto, i, &[], kind, &opts.cancel) {
            plan.take_run(&call, i, m, &run, &pre)?;
            continue;
        }
        plan.one_edit(&call, i, edit, &pre)?;
    }
    plan.finish(opts)
}

/// The edits whose line breaks may be made the file's
/// ([`tolerant::reended`]), which are matched alone: runs planned in one
/// pass stop before them (that planner writes replacements as sent). None
/// where no edit can be (one edit: no runs), or none will be: the file
/// ends its lines one way, no replacement brings the other, and the edits
/// cannot together turn every break of the file into the other kind
/// ([`breaks_kept`]), so the file never ends its lines the other way
/// throughout and each edit's new lines already end as the file's.
fn matched_alone(text: &[u8], edits: &[Edit], mode: MatchMode) -> Vec<usize> {
    let may = |e: &Edit| tolerant::may_reend(&e.replace, mode);
    if edits.len() < many::MIN_EDITS || !edits.iter().any(may) {
        return Vec::new();
    }
    let eol = line_ending(text);
    if matches!(eol, LineEnding::Crlf | LineEnding::Lf)
        && !edits
            .iter()
            .any(|e| tolerant::breaks_other_than(&e.replace, eol))
        && breaks_kept(text, edits, eol)
    {
        return Vec::new();
    }
    (0..edits.len()).filter(|&k| may(&edits[k])).collect()
}

/// Whether a file ending all its lines with `eol` keeps at least one such
/// break whatever the edits applied in turn do, none of whose replacements
/// has a break of the other kind. Replacing one occurrence removes at most
/// the breaks whose LF it covers, and turns at most one more into the other
/// kind: the break right after it, whose CR it takes away (a CRLF file, a
/// search ending in CR) or brings (an LF file, a replacement ending in CR,
/// or an empty one landing after a CR); a break of the replacement first
/// in it may turn too, but it came with the replacement. The file's breaks
/// must outnumber what every edit can take this way; an edit replacing
/// every occurrence may take nothing per occurrence, or is counted as
/// taking all.
fn breaks_kept(text: &[u8], edits: &[Edit], eol: LineEnding) -> bool {
    let has_cr =
        memchr::memchr(b'\r', text).is_some() || edits.iter().any(|e| e.replace.contains('\r'));
    let mut taken = 0usize;
    for e in edits {
        let edge = match eol {
            LineEnding::Crlf => e.search.ends_with('\r'),
            _ => e.replace.ends_with('\r') || (e.replace.is_empty() && has_cr),
        };
        let each = memchr::memchr_iter(b'\n', e.search.as_bytes()).count() + usize::from(edge);
        taken = taken.saturating_add(match e.count {
            Count::One => each,
            Count::Exactly(n) => each.saturating_mul(n),
            Count::All if each == 0 => 0,
            Count::All => return false,
        });
    }
    // More breaks than that: stops counting once there are.
    memchr::memchr_iter(b'\n', text).nth(taken).is_some()
}

/// What every edit of one call applied in turn is matched with.
struct Call<'c> {
    edits: &'c [Edit],
    kind: TextKind,
    opts: &'c MatchOptions,
    budget: &'c Budget,
}

/// The plan of edits applied in turn, as it grows: the text the next edit
/// searches in (`base`), what the edits so far planned, and every failure.
struct InTurn<'a> {
    base: Cow<'a, [u8]>,
    spans: Vec<Span>,
    reports: Vec<Landing>,
    utf16_delta: isize,
    adapted: Vec<Option<String>>,
    tolerated: Vec<Option<Tolerated>>,
    failures: Vec<EditMiss>,
}

/// One edit's exact search in the text as it stands.
struct Search<'e> {
    edit: &'e Edit,
    index: usize,
    /// The edit's label in messages (`edits[i]: ` in a multi-edit).
    pre: &'e str,
    /// The positions kept (see [`InTurn::one_edit`]).
    positions: Vec<usize>,
    /// Every non-overlapping occurrence, counted.
    found: usize,
    /// Whether the edit must match once (its count implicit or 1).
    once: bool,
}

impl<'a> InTurn<'a> {
    fn new(text: &'a [u8], edits: usize) -> Self {
        InTurn {
            base: Cow::Borrowed(text),
            spans: Vec::new(),
            reports: Vec::with_capacity(edits),
            utf16_delta: 0,
            adapted: vec![None; edits],
            tolerated: Vec::with_capacity(edits),
            failures: Vec::new(),
        }
    }

    /// Takes the run of `m` edits from edit `i` that `run` planned in one
    /// pass over the text as it stands. `Err`: every failure, when the text
    /// after the run could not be allocated (the call ends there).
    fn take_run(
        &mut self,
        call: &Call<'_>,
        i: usize,
        m: usize,
        run: &Plan,
        pre: &str,
    ) -> Result<(), Vec<EditMiss>> {
        self.reports.extend_from_slice(&run.reports);
        self.utf16_delta += run.utf16_delta;
        self.tolerated.extend(std::iter::repeat_n(None, m));
        if i + m == call.edits.len() {
            // The run ends the edits: its spans are the plan (over the
            // text as it stands), unless an edit failed and nothing will
            // be written.
            if self.failures.is_empty() {
                self.spans = run
                    .spans
                    .iter()
                    .map(|s| match *s {
                        Span::Insert(k) => Span::Insert(i + k),
                        keep => keep,
                    })
                    .collect();
            }
            return Ok(());
        }
        match many::materialize(&self.base, run, &call.edits[i..]) {
            Ok(next) => {
                self.base = Cow::Owned(next);
                Ok(())
            }
            Err(size) => {
                self.failures.push(out_of_memory(i, pre, Some(size), m));
                Err(std::mem::take(&mut self.failures))
            }
        }
    }

    /// Edit `i` searched alone in the text as it stands: exactly, then,
    /// when it must match once and was not found, under the tolerances of
    /// `match`. Its failure is kept, or its replacement planned
    /// ([`InTurn::plan_edit`]). `Err`: as [`InTurn::take_run`].
    fn one_edit(
        &mut self,
        call: &Call<'_>,
        i: usize,
        edit: &Edit,
        pre: &str,
    ) -> Result<(), Vec<EditMiss>> {
        let (kind, opts) = (call.kind, call.opts);
        if kind == TextKind::Bytes && (!edit.search.is_ascii() || !edit.replace.is_ascii()) {
            self.failures.push(not_ascii(i, pre));
            return Ok(());
        }
        // Positions kept: enough for reports, and every occurrence of an
        // edit of several up to the span limit (past it the occurrences are
        // found again while the new text is written).
        let keep = match edit.count {
            Count::One => MAX_REPORTED_MATCHES,
            Count::Exactly(_) | Count::All => span_limit(self.base.len()).max(MAX_REPORTED_MATCHES),
        };
        let (positions, found) = find_all(&self.base, edit.search.as_bytes(), keep);
        let once = matches!(edit.count, Count::One | Count::Exactly(1));
        let mut tolerant_match = None;
        if found == 0 && once && !opts.mode.is_exact() && kind == TextKind::Utf8 {
            match tolerant_match_of(&self.base, edit, i, pre, opts, call.budget) {
                Ok(m) => tolerant_match = m,
                Err(f) => {
                    self.failures.push(*f);
                    return Ok(());
                }
            }
        }
        let search = Search {
            edit,
            index: i,
            pre,
            positions,
            found,
            once,
        };
        // Occurrences found: a tolerant match is the one occurrence of an
        // edit that must match once, whether its count was implicit or
        // `expected_replacements: 1`.
        let hits = if tolerant_match.is_some() { 1 } else { found };
        if let Some(f) = count_failure(&self.base, &search, hits, call) {
            self.failures.push(f);
            return Ok(());
        }
        let damaged = match &tolerant_match {
            None => damaged_seam(&self.base, edit, &search.positions),
            Some(m) => joined_after(&self.base, edit, m.end),
        };
        if let Some(why) = damaged {
            self.failures.push(EditMiss {
                match_count: hits,
                ..miss(i, (pre, edit.said), ErrorCode::PLAN_CHECK_FAILED, why)
            });
            return Ok(());
        }
        // Found once as sent: its new line breaks may still need to be the
        // file's (`line_endings`).
        let tolerant_match = tolerant_match.or_else(|| {
            let p = search
                .positions
                .first()
                .filter(|_| once && hits == 1 && kind == TextKind::Utf8)?;
            tolerant::reended(&self.base, *p, &edit.search, &edit.replace, opts.mode)
        });
        self.plan_edit(call, &search, hits, tolerant_match)
    }

    /// Plans the replacement of an edit whose search found what its count
    /// asks for: its report, and the text the next edit searches in (or,
    /// for the last edit of a plan that will be written, spans over the
    /// text it was applied to). `Err`: as [`InTurn::take_run`].
    fn plan_edit(
        &mut self,
        call: &Call<'_>,
        search: &Search<'_>,
        hits: usize,
        tolerant_match: Option<TolerantMatch>,
    ) -> Result<(), Vec<EditMiss>> {
        let (edit, i, found, positions) =
            (search.edit, search.index, search.found, &search.positions);
        let needle = edit.search.as_bytes();
        // The text inserted, and the byte ranges replaced when they are all
        // listed (not past the span limit).
        // Several occurrences found as sent with the file's CRLF: the
        // replacement's LF breaks may need to be the file's too.
        let each = match (&tolerant_match, hits > 1, call.kind) {
            (None, true, TextKind::Utf8) => tolerant::reended_each(
                &self.base,
                (&edit.search, &edit.replace),
                found,
                call.opts.mode,
            ),
            _ => None,
        };
        let with: Cow<'_, [u8]> = match (&tolerant_match, &each) {
            (Some(m), _) => Cow::Owned(m.replacement.clone().into_bytes()),
            (None, Some(r)) => Cow::Owned(r.clone().into_bytes()),
            (None, None) => Cow::Borrowed(edit.replace.as_bytes()),
        };
        let ranges: Option<Vec<(usize, usize)>> = match &tolerant_match {
            Some(m) => Some(vec![(m.start, m.end)]),
            None if found <= positions.len() => {
                Some(positions.iter().map(|&p| (p, p + needle.len())).collect())
            }
            None => None,
        };
        let first = match &tolerant_match {
            Some(m) => m.start,
            None => positions[0],
        };
        let line_number = line_numbers(&self.base, &[first])[0];
        self.reports.push(Landing {
            line_number,
            replacements: hits,
            offset: first,
        });
        self.utf16_delta += match &tolerant_match {
            Some(m) => utf16_len(&with) as isize - utf16_len(&self.base[m.start..m.end]) as isize,
            None => found as isize * (utf16_len(&with) as isize - utf16_len(needle) as isize),
        };
        self.tolerated
            .push(tolerant_match.as_ref().map(|m| Tolerated {
                matched_with: m.matched_with.clone(),
                original_text: String::from_utf8_lossy(&self.base[m.start..m.end]).into_owned(),
            }));

        // The last edit of a plan that will be written becomes spans over
        // the text it was applied to; every other edit (and, when failures
        // were found, every later one, so all failures are reported) leaves
        // the text the next edit searches in.
        let last = self.failures.is_empty() && i == call.edits.len().saturating_sub(1);
        if let (true, Some(ranges)) = (last, &ranges) {
            self.spans = spans_for(ranges, self.base.len(), i);
            if let Some(r) = tolerant_match.map(|m| m.replacement).or(each) {
                self.adapted[i] = Some(r);
            }
            return Ok(());
        }
        let next = match &ranges {
            Some(ranges) => splice(&self.base, ranges, &with),
            None => splice_all(&self.base, needle, &with, found),
        };
        match next {
            Ok(next) => self.base = Cow::Owned(next),
            Err(size) => {
                self.failures.push(out_of_memory(i, search.pre, size, hits));
                return Err(std::mem::take(&mut self.failures));
            }
        }
        if last {
            self.spans = vec![Span::Keep(0, self.base.len())];
        }
        Ok(())
    }

    /// The plan, or every failure.
    fn finish(self, opts: &MatchOptions) -> Result<Matched<'a>, Vec<EditMiss>> {
        if !self.failures.is_empty() {
            return Err(self.failures);
        }
        Ok(Matched {
            base: self.base,
            spans: self.spans,
            edits: self.reports,
            utf16_delta: self.utf16_delta,
            adapted: self.adapted,
            tolerated: self.tolerated,
            tolerant_mode: !opts.mode.is_exact(),
        })
    }
}

/// The failure of an edit that is not ASCII in a file that is not valid
/// UTF-8.
fn not_ascii(index: usize, pre: &str) -> EditMiss {
    miss(
        index,
        (pre, Said::CANONICAL),
        ErrorCode::UNSUPPORTED_ENCODING,
        EditWhy::NotAscii,
    )
}

/// The failure of a search whose occurrences (`hits`) do not fit its
/// edit's count: not found, ambiguous, or not the count expected.
fn count_failure(
    base: &[u8],
    search: &Search<'_>,
    hits: usize,
    call: &Call<'_>,
) -> Option<EditMiss> {
    match search.edit.count {
        _ if hits == 0 => Some(not_found(base, search, call)),
        Count::One if hits > 1 => Some(ambiguous(base, search, call)),
        Count::Exactly(n) if hits != n => Some(count_mismatch(base, search, n, call)),
        _ => None,
    }
}

/// Why `edit`, found at `positions` of `text`, must not be written as
/// sent, if it must not: its search text starts with a line break and its
/// replacement does not, and at one of its places ([`seam_at`]) that
/// break is the LF of a CRLF (its CR would be left alone: a line break no
/// edit means), or ends a line of only spaces or tabs while the
/// replacement starts with one (that line's whitespace and the
/// replacement's indentation would make one line, indented twice). Sent
/// with the break first, the replacement keeps the line; sent from the
/// start of a line, the search takes it. Or its search text ends with a
/// line break and its replacement, not empty, does not, and at one of its
/// places the line after it has text ([`joins_at`]): that line would be
/// joined to the replacement's last (a model that left the last break out).
/// The first such place (1-based line) is named.
///
/// Each look goes back from a place to the line break before it (or on to
/// the next one), and the places start (end) with a line break, so the
/// looks cover the text once.
fn damaged_seam(text: &[u8], edit: &Edit, positions: &[usize]) -> Option<EditWhy> {
    let len = edit.search.len();
    if let Some(why) = positions
        .iter()
        .find_map(|&p| joined_after(text, edit, p + len))
    {
        return Some(why);
    }
    if let Some(end) = splits_crlf_end(text, positions.iter().map(|&p| p + len), edit) {
        let line = line_numbers(text, &[end])[0];
        return Some(EditWhy::SplitsCrlfEnd { line });
    }
    if !may_damage_seam(edit) {
        return None;
    }
    positions.iter().find_map(|&p| {
        let seam = seam_at(text, p, edit).1?;
        let line = line_numbers(text, &[p])[0];
        Some(match seam {
            Seam::LoneCr => EditWhy::SplitsCrlf { line },
            Seam::Blanks => EditWhy::JoinsWhitespace { line },
        })
    })
}

/// Why `edit`, whose occurrence (exact or tolerant) ends at `end` of
/// `text`, must not be written: the line after it would be joined to its
/// replacement's last line ([`may_join`], [`joins_at`]), or the line it
/// ends in would change its indentation ([`may_reindent`]).
fn joined_after(text: &[u8], edit: &Edit, end: usize) -> Option<EditWhy> {
    let join = may_join(edit);
    if !(join || may_reindent(edit)) || !joins_at(text, end) {
        return None;
    }
    let line = line_numbers(text, &[end])[0];
    Some(if join {
        EditWhy::JoinsNextLine { line }
    } else {
        EditWhy::ReindentsLine { line }
    })
}

/// When `match` was given but cannot apply to this edit's count, what it
/// would find (nothing to say otherwise).
fn untolerated(base: &[u8], search: &Search<'_>, call: &Call<'_>) -> TolerantNote {
    if search.once || call.opts.mode.is_exact() || call.kind != TextKind::Utf8 {
        TolerantNote::Nothing
    } else {
        tolerances_not_applied(base, search.edit, call.opts.mode)
    }
}

/// `SEARCH_BLOCK_NOT_FOUND`, diagnosed when asked.
fn not_found(base: &[u8], search: &Search<'_>, call: &Call<'_>) -> EditMiss {
    let (edit, pre, opts) = (search.edit, search.pre, call.opts);
    let diagnosis = opts.diagnose.then(|| {
        Box::new(diagnose::not_found(
            base,
            &edit.search,
            &edit.replace,
            pre,
            edit.said,
            call.budget,
            &tolerant::forgiven(opts.mode),
        ))
    });
    let tolerant = if opts.mode.is_exact() {
        TolerantNote::Nothing
    } else if call.kind != TextKind::Utf8 {
        TolerantNote::NotText
    } else if search.once {
        TolerantNote::NotEither
    } else {
        untolerated(base, search, call)
    };
    EditMiss {
        diagnosis,
        ..miss(
            search.index,
            (pre, edit.said),
            ErrorCode::SEARCH_BLOCK_NOT_FOUND,
            EditWhy::NotFound { tolerant },
        )
    }
}

/// `SEARCH_BLOCK_AMBIGUOUS` of an edit that must match once, with the
/// unique-context hints when asked.
fn ambiguous(base: &[u8], search: &Search<'_>, call: &Call<'_>) -> EditMiss {
    let (edit, pre, found) = (search.edit, search.pre, search.found);
    let lines = line_numbers(base, &search.positions);
    let diagnosis = call.opts.diagnose.then(|| {
        Box::new(diagnose::ambiguous(
            base,
            edit.search.as_bytes(),
            call.budget,
        ))
    });
    let hint = diagnosis
        .as_ref()
        .is_some_and(|d| !d.unique_context_hint.is_empty());
    EditMiss {
        match_count: found,
        match_lines: lines,
        diagnosis,
        ..miss(
            search.index,
            (pre, edit.said),
            ErrorCode::SEARCH_BLOCK_AMBIGUOUS,
            EditWhy::Ambiguous { hint },
        )
    }
}

/// `REPLACEMENT_COUNT_MISMATCH` of an edit expecting `n` occurrences.
fn count_mismatch(base: &[u8], search: &Search<'_>, n: usize, call: &Call<'_>) -> EditMiss {
    let (edit, pre, found) = (search.edit, search.pre, search.found);
    let shown = search.positions.len().min(MAX_REPORTED_MATCHES);
    let lines = line_numbers(base, &search.positions[..shown]);
    let tolerant = untolerated(base, search, call);
    let diagnosis = (call.opts.diagnose && n == 1 && found > 1).then(|| {
        Box::new(diagnose::ambiguous(
            base,
            edit.search.as_bytes(),
            call.budget,
        ))
    });
    EditMiss {
        match_count: found,
        match_lines: lines,
        diagnosis,
        ..miss(
            search.index,
            (pre, edit.said),
            ErrorCode::REPLACEMENT_COUNT_MISMATCH,
            EditWhy::CountMismatch {
                expected: n,
                tolerant,
            },
        )
    }
}

/// The tolerant match of `edit` (not found exactly) in `base`: `Ok(None)`
/// when there is none, an error when there is one that must not be
/// written. A unique match is written only when the replacement does not
/// already stand elsewhere in the file (the edit may have landed there:
/// applying it again would make it twice) and its plan passes
/// [`crate::matching::verify::verify`].
fn tolerant_match_of(
    base: &[u8],
    edit: &Edit,
    index: usize,
    pre: &str,
    opts: &MatchOptions,
    budget: &Budget,
) -> Result<Option<TolerantMatch>, Box<EditMiss>> {
    let m = match tolerant::find(base, &edit.search, &edit.replace, opts.mode) {
        Reading::None => return Ok(None),
        Reading::Unique(m) => m,
        Reading::Many(offsets, n) => {
            return Err(Box::new(EditMiss {
                match_count: n,
                match_lines: line_numbers(base, &offsets),
                ..miss(
                    index,
                    (pre, edit.said),
                    ErrorCode::SEARCH_BLOCK_AMBIGUOUS,
                    EditWhy::TolerantAmbiguous,
                )
            }));
        }
        Reading::Uncertain(u) => {
            let span = span_lines(base, u.start, u.end);
            return Err(Box::new(miss(
                index,
                (pre, edit.said),
                ErrorCode::SEARCH_BLOCK_NOT_FOUND,
                EditWhy::TolerantUncertain { span, why: u.why },
            )));
        }
    };
    let Some(r) = guard::refusal(base, edit, &m, budget) else {
        return Ok(Some(m));
    };
    let d = opts.diagnose.then(|| {
        Box::new(diagnose::not_found(
            base,
            &edit.search,
            &edit.replace,
            pre,
            edit.said,
            budget,
            &tolerant::forgiven(opts.mode),
        ))
    });
    Err(Box::new(EditMiss {
        match_count: r.lines.len(),
        match_lines: r.lines,
        diagnosis: d,
        ..miss(
            index,
            (pre, edit.said),
            r.code,
            EditWhy::Withheld {
                why: r.why,
                applied: r.applied,
            },
        )
    }))
}

fn spans_for(ranges: &[(usize, usize)], total: usize, edit: usize) -> Vec<Span> {
    let mut spans = Vec::with_capacity(ranges.len() * 2 + 1);
    let mut at = 0;
    for &(s, e) in ranges {
        spans.push(Span::Keep(at, s));
        spans.push(Span::Insert(edit));
        at = e;
    }
    spans.push(Span::Keep(at, total));
    spans
}

/// A buffer for `len` bytes, or `Err(Some(len))` when the memory cannot be
/// had (an error, never an abort of the process).
fn buffer(len: Option<usize>) -> Result<Vec<u8>, Option<usize>> {
    let len = len.ok_or(None)?;
    let mut out = Vec::new();
    out.try_reserve_exact(len).map_err(|_| Some(len))?;
    Ok(out)
}

/// `base` with `ranges` replaced by `with`. `Err` carries the size that
/// could not be allocated (`None`: more than the address space).
fn splice(base: &[u8], ranges: &[(usize, usize)], with: &[u8]) -> Result<Vec<u8>, Option<usize>> {
    let removed: usize = ranges.iter().map(|&(s, e)| e - s).sum();
    let len = ranges
        .len()
        .checked_mul(with.len())
        .and_then(|added| (base.len() - removed).checked_add(added));
    let mut out = buffer(len)?;
    let mut at = 0;
    for &(s, e) in ranges {
        out.extend_from_slice(&base[at..s]);
        out.extend_from_slice(with);
        at = e;
    }
    out.extend_from_slice(&base[at..]);
    Ok(out)
}

/// `base` with all `found` occurrences of `needle` replaced by `with`,
/// found again as they are written: one buffer of the exact new size, and no
/// memory per occurrence.
fn splice_all(
    base: &[u8],
    needle: &[u8],
    with: &[u8],
    found: usize,
) -> Result<Vec<u8>, Option<usize>> {
    let len = found
        .checked_mul(with.len())
        .and_then(|added| (base.len() - found * needle.len()).checked_add(added));
    let mut out = buffer(len)?;
    let mut at = 0;
    if needle.len() == 1 && with.len() == 1 {
        // One byte for another (the densest case): a byte map, not a
        // search per occurrence.
        let (n, w) = (needle[0], with[0]);
        out.extend(base.iter().map(|&b| if b == n { w } else { b }));
        return Ok(out);
    }
    for s in memmem::find_iter(base, needle) {
        out.extend_from_slice(&base[at..s]);
        out.extend_from_slice(with);
        at = s + needle.len();
    }
    out.extend_from_slice(&base[at..]);
    debug_assert_eq!(Some(out.len()), len);
    Ok(out)
}

/// The failure of an edit whose new text could not be allocated.
fn out_of_memory(index: usize, pre: &str, size: Option<usize>, hits: usize) -> EditMiss {
    EditMiss {
        match_count: hits,
        ..miss(
            index,
            (pre, Said::CANONICAL),
            ErrorCode::FILE_TOO_LARGE,
            EditWhy::OutOfMemory { size },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn e(s: &str, r: &str) -> Edit {
        Edit {
            search: s.into(),
            replace: r.into(),
            count: Count::One,
            said: crate::model::Said::CANONICAL,
        }
    }

    fn apply(text: &str, edits: &[Edit]) -> Result<String, Vec<EditMiss>> {
        let p = match_exact(text.as_bytes(), edits, TextKind::Utf8)?;
        Ok(String::from_utf8(p.pieces(edits).concat()).unwrap())
    }

    #[test]
    fn single_edit_and_line() {
        let edits = [e("retries = 2;", "retries = 3;")];
        let p = match_exact(b"a\nb\nexport const retries = 2;\n", &edits, TextKind::Utf8).unwrap();
        assert_eq!(p.edits[0].line_number, 3);
        assert_eq!(
            p.pieces(&edits).concat(),
            b"a\nb\nexport const retries = 3;\n"
        );
    }

    #[test]
    fn non_overlapping_count() {
        assert_eq!(find_all(b"aaa", b"aa", 10).1, 1);
        assert_eq!(find_all(b"aaaa", b"aa", 10).1, 2);
        assert_eq!(apply("aaa", &[e("aa", "b")]).unwrap(), "ba");
    }

    #[test]
    fn not_found_and_ambiguous() {
        let f = apply("x\ny\nx\n", &[e("x", "z")]).unwrap_err();
        assert_eq!(f[0].code, ErrorCode::SEARCH_BLOCK_AMBIGUOUS);
        assert_eq!(f[0].match_count, 2);
        assert_eq!(f[0].match_lines, vec![1, 3]);
        let f = apply("x", &[e("q", "z")]).unwrap_err();
        assert_eq!(
            (f[0].code, f[0].match_count),
            (ErrorCode::SEARCH_BLOCK_NOT_FOUND, 0)
        );
    }

    /// The last of `edits` over `text` is refused with `PLAN_CHECK_FAILED`
    /// for `why`, its message saying `words`.
    fn refused_last(text: &str, edits: &[Edit], why: EditWhy, words: &str) {
        let f = apply(text, edits).unwrap_err();
        assert_eq!(
            (f[0].index, f[0].code),
            (edits.len() - 1, ErrorCode::PLAN_CHECK_FAILED),
            "{edits:?}"
        );
        assert_eq!(f[0].why, why);
        assert!(f[0].message().contains(words), "{}", f[0].message());
    }

    /// An edit whose search text ends with a line break and whose
    /// replacement, not empty, does not, is refused where the line after
    /// its occurrence has text: written, that line would be joined to the
    /// replacement's last line (a model that left out the last line break).
    /// Every other shape near it is written as sent.
    #[test]
    fn a_line_break_the_search_ends_with_never_joins_the_next_line() {
        let text = "a();\nb();\n    c();\n\nd();";
        for edits in [
            vec![e("b();\n", "x();")],
            vec![e("a();\nb();\n", "a();\nx();\n  ")],
            // Several edits (the one-pass planner leaves it to this check).
            vec![e("d();", "e();"), e("b();\n", "x();")],
        ] {
            refused_last(
                text,
                &edits,
                EditWhy::JoinsNextLine { line: 3 },
                "line 3 would be joined",
            );
        }
        let crlf = text.replace('\n', "\r\n");
        let f = apply(&crlf, &[e("b();\r\n", "x();")]).unwrap_err();
        assert_eq!(f[0].why, EditWhy::JoinsNextLine { line: 3 });
        // The replacement ends with the break too, or is empty (the lines
        // deleted); the next line is blank or there is none; the search
        // does not end with a break: written as sent.
        for (search, replace, want) in [
            ("b();\n", "x();\n", "a();\nx();\n    c();\n\nd();"),
            ("b();\n", "", "a();\n    c();\n\nd();"),
            ("    c();\n", "x();", "a();\nb();\nx();\nd();"),
            ("\nd();", "", "a();\nb();\n    c();\n"),
            ("b();", "x();", "a();\nx();\n    c();\n\nd();"),
        ] {
            assert_eq!(
                apply(text, &[e(search, replace)]).unwrap(),
                want,
                "{search:?}"
            );
        }
        assert_eq!(apply("a\nb\n", &[e("b\n", "c")]).unwrap(), "a\nc");
    }

    /// An edit whose search text ends inside the next line's indentation
    /// (copied up to that line's first characters) and whose replacement,
    /// not empty, does not end with a line break and the same spaces is
    /// refused where that line has text: written, the line would lose its
    /// indentation (or be joined to the replacement's last line). Every
    /// other shape near it is written as sent.
    #[test]
    fn a_search_ending_inside_an_indentation_never_changes_it() {
        let text = "def f():\n    a()\n    b()\n\n    \nc()";
        for edits in [
            vec![e("a()\n    ", "x()\n")],
            vec![e("    a()\n  ", "    x()\n")],
            vec![e("a()\n    ", "x()\n  ")],
            vec![e("a()\n    ", "x() ")],
            // Several edits (the one-pass planner leaves it to this check).
            vec![e("c()", "d()"), e("a()\n    ", "x()\n")],
        ] {
            refused_last(
                text,
                &edits,
                EditWhy::ReindentsLine { line: 3 },
                "line 3 would lose its indentation",
            );
        }
        let crlf = text.replace('\n', "\r\n");
        let f = apply(&crlf, &[e("a()\r\n    ", "x()\r\n")]).unwrap_err();
        assert_eq!(f[0].why, EditWhy::ReindentsLine { line: 3 });
        // The replacement ends with a break and the same spaces; the line
        // the search ends in is blank; the replacement is empty: written as
        // sent.
        for (search, replace, want) in [
            (
                "a()\n    ",
                "x()\n    ",
                "def f():\n    x()\n    b()\n\n    \nc()",
            ),
            (
                "a()\n  ",
                "x()\r\n  ",
                "def f():\n    x()\r\n    b()\n\n    \nc()",
            ),
            ("b()\n\n  ", "y()\n", "def f():\n    a()\n    y()\n  \nc()"),
            ("a()\n    ", "", "def f():\n    b()\n\n    \nc()"),
        ] {
            assert_eq!(
                apply(text, &[e(search, replace)]).unwrap(),
                want,
                "{search:?}"
            );
        }
        // An edit of every place is about all of them: written as sent.
        let mut all = e("()\n    ", "()\n");
        all.count = Count::All;
        assert_eq!(
            apply(text, &[all]).unwrap(),
            "def f():\n    a()\nb()\n\n    \nc()"
        );
    }

    /// A search that starts with the line break ending a line of only
    /// whitespace, with a replacement that starts indented, is refused:
    /// written, the line's whitespace would be joined to the replacement's
    /// indentation. So is one whose LF is that of a CRLF, with a
    /// replacement that does not start with an LF (a lone CR would be
    /// left). Every other shape near them is written as sent.
    #[test]
    fn a_line_break_the_search_starts_with_is_never_left_half_or_joined() {
        let text = "f() {\n    x();\n    \n    y();\n}\n";
        for edits in [
            vec![e("\n    y();\n", "    z();\n")],
            vec![e("\r\n    y();", "\tz();")],
            // Several edits (the one-pass planner leaves it to this check).
            vec![e("x();", "w();"), e("\n    y();\n", "    z();\n")],
        ] {
            let text = if edits.iter().any(|e| e.search.starts_with('\r')) {
                text.replace('\n', "\r\n")
            } else {
                text.to_string()
            };
            refused_last(
                &text,
                &edits,
                EditWhy::JoinsWhitespace { line: 3 },
                "ends line 3, a line of only spaces or tabs",
            );
        }
        // The replacement starts with the break too, the line is empty, the
        // search starts the line, or the replacement is not indented:
        // written as sent.
        for (search, replace, want) in [
            (
                "\n    y();\n",
                "\n    z();\n",
                "f() {\n    x();\n    \n    z();\n}\n",
            ),
            (
                "    \n    y();\n",
                "    z();\n",
                "f() {\n    x();\n    z();\n}\n",
            ),
            ("\n    y();\n", "z();\n", "f() {\n    x();\n    z();\n}\n"),
            ("\n}", "    }", "f() {\n    x();\n    \n    y();    }\n"),
        ] {
            assert_eq!(
                apply(text, &[e(search, replace)]).unwrap(),
                want,
                "{search:?}"
            );
        }
        // An LF that is the LF of a CRLF, the replacement not starting with
        // one: the CR would be left alone.
        let crlf = "a();\r\n    y();\r\n";
        for replace in ["    z();", "", "\r\n    z();"] {
            let f = apply(crlf, &[e("\n    y();", replace)]).unwrap_err();
            assert_eq!(f[0].why, EditWhy::SplitsCrlf { line: 1 }, "{replace:?}");
            assert!(
                f[0].message().contains("a lone CR would be left"),
                "{}",
                f[0].message()
            );
        }
        assert_eq!(
            apply(crlf, &[e("\n    y();", "\n    z();")]).unwrap(),
            "a();\r\n    z();\r\n"
        );
        let blank = "f() {\n    x();\n\n    y();\n}\n";
        assert_eq!(
            apply(blank, &[e("\n    y();\n", "    z();\n")]).unwrap(),
            "f() {\n    x();\n    z();\n}\n"
        );
    }

    /// A search that ends with the CR of a CRLF, its replacement not ending
    /// with one: the LF would be left alone, the line's CRLF made LF in a
    /// CRLF file (`a\r` -> `x` wrote `x\nb\r\n`).
    #[test]
    fn a_crlf_split_at_the_end_is_refused() {
        let crlf = "a\r\nb\r\n";
        for replace in ["x", "", "x\n", "x\r\n"] {
            let f = apply(crlf, &[e("a\r", replace)]).unwrap_err();
            assert_eq!(f[0].why, EditWhy::SplitsCrlfEnd { line: 1 }, "{replace:?}");
            assert!(
                f[0].message().contains("a lone LF would be left"),
                "{}",
                f[0].message()
            );
        }
        // Its replacement ending with the CR keeps the CRLF; the whole break
        // in the search, or none of it, is as before; a search of breaks
        // alone (converting them) too.
        assert_eq!(apply(crlf, &[e("a\r", "x\r")]).unwrap(), "x\r\nb\r\n");
        assert_eq!(apply(crlf, &[e("a\r\n", "x\n")]).unwrap(), "x\nb\r\n");
        assert_eq!(apply(crlf, &[e("a", "x")]).unwrap(), "x\r\nb\r\n");
        assert_eq!(apply("a\r\nb\n", &[e("\r", "")]).unwrap(), "a\nb\n");
        // Every place of a search replacing several is checked.
        let mut all = e("a\r", "x");
        all.count = Count::All;
        let f = apply("a\r\nb\r\na\r\n", &[all.clone()]).unwrap_err();
        assert_eq!(f[0].why, EditWhy::SplitsCrlfEnd { line: 1 });
        // In an LF (or mixed) file, taking a stray CR off is how it is removed.
        assert_eq!(
            apply("x;\r\ny;\nz;\n", &[e("x;\r", "x;")]).unwrap(),
            "x;\ny;\nz;\n"
        );
        assert_eq!(apply("a\r\nb\na\r\n", &[all]).unwrap(), "x\nb\nx\n");
    }

    #[test]
    fn crlf_is_strict() {
        assert_eq!(
            apply("a\r\nb", &[e("a\nb", "c")]).unwrap_err()[0].code,
            ErrorCode::SEARCH_BLOCK_NOT_FOUND
        );
        assert_eq!(apply("a\r\nb", &[e("a\r\nb", "c")]).unwrap(), "c");
    }

    #[test]
    fn counts() {
        let ex = |n| Edit {
            search: "x".into(),
            replace: "y".into(),
            count: Count::Exactly(n),
            said: crate::model::Said::CANONICAL,
        };
        assert_eq!(apply("x x x", &[ex(3)]).unwrap(), "y y y");
        let f = apply("x x x", &[ex(2)]).unwrap_err();
        assert_eq!(
            (f[0].code, f[0].match_count),
            (ErrorCode::REPLACEMENT_COUNT_MISMATCH, 3)
        );
        let all = Edit {
            search: "x".into(),
            replace: "".into(),
            count: Count::All,
            said: crate::model::Said::CANONICAL,
        };
        assert_eq!(apply("x x x", std::slice::from_ref(&all)).unwrap(), "  ");
        assert_eq!(
            apply("q", &[all]).unwrap_err()[0].code,
            ErrorCode::SEARCH_BLOCK_NOT_FOUND
        );
    }

    #[test]
    fn multi_edit_sequential_and_all_failures_reported() {
        let out = apply(
            "one two three",
            &[e("one", "1"), e("1 two", "12"), e("three", "3")],
        )
        .unwrap();
        assert_eq!(out, "12 3");
        let f = apply(
            "a b c d e",
            &[
                e("a", "A"),
                e("zz", ""),
                e("c", "C"),
                e("yy", ""),
                e("e", "E"),
            ],
        )
        .unwrap_err();
        assert_eq!(f.iter().map(|f| f.index).collect::<Vec<_>>(), vec![1, 3]);
        assert!(f[0].message().starts_with("edits[1]"));
    }

    #[test]
    fn bytes_mode_refuses_non_ascii() {
        let f = match_exact(b"caf\xE9 ok", &[e("é", "e")], TextKind::Bytes).unwrap_err();
        assert_eq!(f[0].code, ErrorCode::UNSUPPORTED_ENCODING);
        let edits = [e("ok", "fine")];
        let p = match_exact(b"caf\xE9 ok", &edits, TextKind::Bytes).unwrap();
        assert_eq!(p.pieces(&edits).concat(), b"caf\xE9 fine");
    }

    #[test]
    fn utf16_delta_counts_units() {
        let edits = [e("a", "😀")];
        let p = match_exact("xay".as_bytes(), &edits, TextKind::Utf8).unwrap();
        assert_eq!(p.utf16_delta, 1);
    }

    fn tolerant(ts: &[Tolerance]) -> MatchOptions {
        MatchOptions {
            mode: MatchMode::with(ts),
            ..Default::default()
        }
    }

    #[test]
    fn tolerant_match_after_exact() {
        let text = "a = 1\r\nb = 2\r\nc = 3\r\n";
        let edits = [e("a = 1\nb = 2\n", "a = 1\nb = 20\n")];
        let opts = tolerant(&[Tolerance::LineEndings]);
        let p = match_edits(text.as_bytes(), &edits, TextKind::Utf8, &opts).unwrap();
        assert_eq!(p.pieces(&edits).concat(), b"a = 1\r\nb = 20\r\nc = 3\r\n");
        assert_eq!(
            p.tolerated,
            vec![Some(Tolerated {
                matched_with: vec![Tolerance::LineEndings],
                original_text: "a = 1\r\nb = 2\r\n".into()
            })]
        );
        assert_eq!(p.utf16_delta, 1);
        assert_eq!(p.edits[0].line_number, 1);
        // Exact when possible: nothing tolerated.
        let edits = [e("b = 2", "b = 3")];
        let p = match_edits(text.as_bytes(), &edits, TextKind::Utf8, &opts).unwrap();
        assert_eq!(p.tolerated, vec![None]);
        assert!(p.tolerant_mode);
        // Default mode stays exact.
        let edits = [e("a = 1\nb = 2\n", "x")];
        let f = match_exact(text.as_bytes(), &edits, TextKind::Utf8).unwrap_err();
        assert_eq!(f[0].code, ErrorCode::SEARCH_BLOCK_NOT_FOUND);
    }

    #[test]
    fn tolerant_in_multi_edit_and_ambiguity() {
        let text = "x = “a”\ny = “b”\nz = 1\n";
        let edits = [e("x = \"a\"", "x = \"A\""), e("z = 1", "z = 2")];
        let opts = tolerant(&[Tolerance::UnicodePunctuation]);
        let p = match_edits(text.as_bytes(), &edits, TextKind::Utf8, &opts).unwrap();
        assert_eq!(
            String::from_utf8(p.pieces(&edits).concat()).unwrap(),
            "x = “A”\ny = “b”\nz = 2\n"
        );
        let text = "q = “a”\nq = \"a\"\n";
        // Exact finds one: applied exactly.
        let edits = [e("q = \"a\"", "q = 1")];
        let p = match_edits(text.as_bytes(), &edits, TextKind::Utf8, &opts).unwrap();
        assert_eq!(p.tolerated, vec![None]);
        // Exact finds none, tolerant finds two: ambiguous, nothing planned.
        let text = "q = “a”\nq = ‘a’\nq = “a”\n";
        let edits = [e("q = \"a\"", "q = 1")];
        let f = match_edits(text.as_bytes(), &edits, TextKind::Utf8, &opts).unwrap_err();
        assert_eq!(f[0].code, ErrorCode::SEARCH_BLOCK_AMBIGUOUS);
        assert_eq!(
            (f[0].match_count, f[0].match_lines.clone()),
            (2, vec![1, 3])
        );
    }

    #[test]
    fn tolerances_do_not_apply_to_counts() {
        let text = "a = 1  \na = 1  \n";
        let all = Edit {
            search: "a = 1\n".into(),
            replace: "b\n".into(),
            count: Count::All,
            said: crate::model::Said::CANONICAL,
        };
        let opts = tolerant(&[Tolerance::TrailingWhitespace]);
        let f = match_edits(text.as_bytes(), &[all], TextKind::Utf8, &opts).unwrap_err();
        assert_eq!(f[0].code, ErrorCode::SEARCH_BLOCK_NOT_FOUND);
    }

    #[test]
    fn a_tolerant_match_counts_as_the_one_expected_replacement() {
        let text = "a = 1\r\nb = 2\r\n";
        let opts = tolerant(&[Tolerance::LineEndings]);
        let with = |count| {
            let edits = [Edit {
                search: "a = 1\nb = 2\n".into(),
                replace: "a = 1\nb = 3\n".into(),
                count,
                said: crate::model::Said::CANONICAL,
            }];
            match_edits(text.as_bytes(), &edits, TextKind::Utf8, &opts).map(|p| {
                (
                    p.pieces(&edits).concat(),
                    p.tolerated.clone(),
                    p.edits.clone(),
                )
            })
        };
        let one = with(Count::One).unwrap();
        assert_eq!(one.0, b"a = 1\r\nb = 3\r\n");
        assert_eq!(with(Count::Exactly(1)).unwrap(), one);
        // Above 1: refused, saying that `match` does not apply and what it
        // would have found.
        let f = with(Count::Exactly(2)).unwrap_err();
        assert_eq!(f[0].code, ErrorCode::SEARCH_BLOCK_NOT_FOUND);
        assert!(
            f[0].message()
                .contains("apply only to an edit of one occurrence")
                && f[0].message().contains("would occur once (line 1)"),
            "{}",
            f[0].message()
        );
    }

    #[test]
    fn failures_carry_diagnosis_only_when_asked() {
        let text = "fn main() {\n    run(1);\n}\nfn b() {\n    run(1);\n}\n";
        let edits = [e("    Run(1);\n}\nfn b", "x")];
        let f = match_exact(text.as_bytes(), &edits, TextKind::Utf8).unwrap_err();
        let d = f[0].diagnosis.as_ref().expect("diagnosed");
        let c = d.closest_match.as_ref().unwrap();
        assert_eq!((c.line_number, c.end_line), (2, 4));
        assert!(f[0].message().contains("letter case"), "{}", f[0].message());
        let edits = [e("    run(1);\n", "x")];
        let f = match_exact(text.as_bytes(), &edits, TextKind::Utf8).unwrap_err();
        assert_eq!(f[0].code, ErrorCode::SEARCH_BLOCK_AMBIGUOUS);
        let hints = &f[0].diagnosis.as_ref().unwrap().unique_context_hint;
        assert_eq!(hints.len(), 2);
        assert!(f[0].message().contains("unique_context_hint"));
        let quiet = MatchOptions {
            diagnose: false,
            ..Default::default()
        };
        let f = match_edits(text.as_bytes(), &edits, TextKind::Utf8, &quiet).unwrap_err();
        assert_eq!(f[0].diagnosis, None);
    }

    /// Applies `edits` with `str::replace` in turn (every edit of all its
    /// occurrences), for edits whose count is right.
    fn replaced_in_turn(text: &str, edits: &[Edit]) -> String {
        edits
            .iter()
            .fold(text.to_string(), |t, e| t.replace(&e.search, &e.replace))
    }

    #[test]
    fn edits_past_the_span_limit_are_written_in_one_buffer() {
        // 12,000 occurrences, past span_limit (4,096 for small texts).
        let n = 12_000;
        assert!(n > span_limit(n * 8));
        let text = "ab\né😀 x\n".repeat(n / 2) + "ab";
        let all = |s: &str, r: &str| Edit {
            search: s.into(),
            replace: r.into(),
            count: Count::All,
            said: crate::model::Said::CANONICAL,
        };
        for edits in [
            vec![all("a", "b")],          // one byte for one: a byte map
            vec![all("b", "")],           // one byte for none
            vec![all("\n", "\r\n")],      // one byte for two
            vec![all("é😀", "e")],        // multi-byte, shorter
            vec![all("ab\n", "xyz😀\n")], // longer
            vec![all("ab", "AB"), all("x\n", "y\n"), all("AB\n", "ab")], // in turn
        ] {
            let p = match_exact(text.as_bytes(), &edits, TextKind::Utf8).unwrap();
            let out = String::from_utf8(p.pieces(&edits).concat()).unwrap();
            let want = replaced_in_turn(&text, &edits);
            assert_eq!(out, want, "{edits:?}");
            // One span: the new text, not a span per occurrence.
            assert!(p.pieces(&edits).len() <= 1, "{edits:?}");
            let d = want.encode_utf16().count() as isize - text.encode_utf16().count() as isize;
            assert_eq!(p.utf16_delta, d, "{edits:?}");
            let mut t = text.clone();
            for (e, r) in edits.iter().zip(&p.edits) {
                let at = t.find(&e.search).unwrap();
                assert_eq!(r.offset, at);
                assert_eq!(r.line_number, t[..at].matches('\n').count() + 1);
                assert_eq!(r.replacements, t.matches(&e.search).count());
                t = t.replace(&e.search, &e.replace);
            }
        }
        // A count of many, right and wrong.
        let ex = |k| Edit {
            search: "é😀".into(),
            replace: "E".into(),
            count: Count::Exactly(k),
            said: crate::model::Said::CANONICAL,
        };
        let p = match_exact(text.as_bytes(), &[ex(n / 2)], TextKind::Utf8).unwrap();
        assert_eq!(p.edits[0].replacements, n / 2);
        let f = match_exact(text.as_bytes(), &[ex(n)], TextKind::Utf8).unwrap_err();
        assert_eq!(
            (f[0].code, f[0].match_count, f[0].match_lines.len()),
            (
                ErrorCode::REPLACEMENT_COUNT_MISMATCH,
                n / 2,
                MAX_REPORTED_MATCHES
            )
        );
        assert_eq!(f[0].match_lines[..3], [2, 4, 6]);
        // Ambiguous: the count and the first lines, as before.
        let f = match_exact(text.as_bytes(), &[e("ab", "x")], TextKind::Utf8).unwrap_err();
        assert_eq!(
            (f[0].code, f[0].match_count, f[0].match_lines.len()),
            (
                ErrorCode::SEARCH_BLOCK_AMBIGUOUS,
                n / 2 + 1,
                MAX_REPORTED_MATCHES
            )
        );
    }

    #[test]
    fn find_all_counts_past_what_it_keeps() {
        let hay = b"aXaaXa";
        for keep in 0..6 {
            let (pos, n) = find_all(hay, b"a", keep);
            assert_eq!((pos.as_slice(), n), (&[0, 2, 3, 5][..keep.min(4)], 4));
            let (pos, n) = find_all(hay, b"aX", keep);
            assert_eq!((pos.as_slice(), n), (&[0, 3][..keep.min(2)], 2));
        }
    }

    proptest! {
        #![proptest_config(crate::text::test_seeds::config(2000))]
        // Bytes outside the replaced span never change, and the result equals
        // an obviously-correct reference built with `str::find`.
        #[test]
        fn matches_reference(
            prefix in "[ab\n]{0,20}", mid in "[abc\n]{1,6}", suffix in "[ab\n]{0,20}", rep in "[xyz\n]{0,5}"
        ) {
            let text = format!("{prefix}{mid}{suffix}");
            let r = apply(&text, &[e(&mid, &rep)]);
            let n = text.matches(mid.as_str()).count();
            match r {
                Ok(out) => {
                    prop_assert_eq!(n, 1);
                    let at = text.find(mid.as_str()).unwrap();
                    let joins = may_join(&e(&mid, &rep)) && joins_at(text.as_bytes(), at + mid.len());
                    prop_assert!(!joins, "a joined line was written");
                    prop_assert_eq!(&out[..at], &text[..at]);
                    prop_assert_eq!(&out[at + rep.len()..], &text[at + mid.len()..]);
                    prop_assert_eq!(&out[at..at + rep.len()], rep.as_str());
                }
                // Found once, refused only where the line after it would be
                // joined to the replacement's last line.
                Err(f) if f[0].code == ErrorCode::PLAN_CHECK_FAILED => {
                    prop_assert_eq!(n, 1);
                    let end = text.find(mid.as_str()).unwrap() + mid.len();
                    prop_assert!(may_join(&e(&mid, &rep)) && joins_at(text.as_bytes(), end));
                }
                Err(f) => {
                    prop_assert_ne!(n, 1);
                    prop_assert_eq!(f[0].match_count, n);
                }
            }
        }

        // An edit written never changes the indentation of a line with text
        // whose indentation its search ended in: in the result, that line
        // starts with what it started with before the rest the search left.
        #[test]
        fn a_line_keeps_the_indentation_a_search_ends_in(
            lines in proptest::collection::vec(("[ \t]{0,4}", "[ab]{1,3}"), 2..8),
            from in 0usize..8, cut in 1usize..5, rep in "[xy \t\n]{1,8}",
        ) {
            let text: String = lines.iter().map(|(i, w)| format!("{i}{w}\n")).collect();
            let k = from % (lines.len() - 1);
            let indent = lines[k + 1].0.len();
            prop_assume!(indent > 0);
            // Line k's text, its break, and part of line k+1's indentation.
            let start = lines[..k].iter().map(|(i, w)| i.len() + w.len() + 1).sum::<usize>();
            let end = start + lines[k].0.len() + lines[k].1.len() + 1 + cut.min(indent);
            let search = &text[start + lines[k].0.len()..end];
            prop_assume!(text.matches(search).count() == 1);
            if let Ok(out) = apply(&text, &[e(search, &rep)]) {
                let at = start + lines[k].0.len();
                let q = at + rep.len();
                let head_before = &text[crate::text::lines::line_start(text.as_bytes(), end)..end];
                let head_after = &out[crate::text::lines::line_start(out.as_bytes(), q)..q];
                prop_assert_eq!(head_after, head_before, "{:?} -> {:?}", search, rep);
            }
        }
    }
}
