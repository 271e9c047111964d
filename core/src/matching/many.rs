//! Many edits in one pass.
//!
//! Edits apply in turn: each searches the text the previous ones left
//! (`exact::match_in_turn`, the reference the tests hold this to), which costs a search and a
//! copy of the text per edit (a thousand edits over 100 MB: a minute). But
//! edits usually do not interact: each search text is found the required
//! number of times in the original text, the places of different edits do
//! not overlap, and no replacement creates or destroys an occurrence of a
//! later edit's search text. Then applying them in turn replaces exactly the
//! occurrences found in the original, and `plan` gives that result from
//! one pass over the text: every search text at once (Aho-Corasick,
//! overlapping), then a look at a small window around each replaced place.
//! Its plan is the one applying in turn gives (the same bytes, line numbers,
//! counts and UTF-16 change); when the edits do interact, or any edit would
//! fail, it answers `None` and the edits are applied in turn, so failures and
//! their messages never come from here.
//!
//! ## Why the windows suffice
//!
//! Let `T0` be the text and `Tk` the text after edits `0..=k`. The edits are
//! independent when, for every edit `i`:
//!
//! 1. no occurrence of its search text in `T0` (overlapping ones included)
//!    intersects a place replaced by an earlier edit (none is destroyed), and
//! 2. no occurrence of it in `T(i-1)` touches a replacement an earlier edit
//!    inserted (covers one of its bytes, or straddles the point where an
//!    empty one was), so none is created.
//!
//! Then the occurrences in `T(i-1)` are the images of those in `T0`, with the
//! same order and overlaps, so the same ones are chosen (leftmost, not
//! overlapping, as `memmem` scans) and they are replaced where they were in
//! `T0`. Condition 1 concerns bytes within `L - 1` of a replaced place (`L`
//! the longest later search text), so a window of `T0` around each place
//! shows it. For condition 2, take the replacement with the highest edit
//! index `k < i` that an occurrence touches: no edit between `k` and `i`
//! touched the occurrence's bytes, so it is already there in `Tk`, touching
//! `k`'s replacement. So it suffices to look, around each replacement, at the
//! text just after its own edit (the neighbours of earlier edits replaced,
//! the others not), for any later edit's search text touching it; one such
//! window per place. The first edit to break a condition is found this way
//! (the texts before it are modelled exactly), so if no window shows
//! anything, no edit breaks one.

use std::collections::HashSet;

use aho_corasick::{AhoCorasick, MatchKind};
use memchr::memmem;

use crate::codec::source::utf16_len;
use crate::matching::plan::{
    may_damage_seam, may_join, may_reindent, seam_at, span_limit, Landing, Plan, Span,
};
use crate::model::{Cancel, Count, Edit};
use crate::text::lines::count_newlines;

/// Fewer edits than this are applied in turn.
pub(crate) const MIN_EDITS: usize = 2;

/// Below this much searching in turn (text size times edits), edits are
/// applied in turn: each costs a search and a copy of the text, next to the
/// one pass's automaton and windows, so from a few MiB on the one pass is
/// faster (2 edits over 100 MB: 38 ms against 118 ms; 32: 54 ms against 2.8 s).
pub(crate) const MIN_WORK: usize = 4 << 20;

/// Up to this many edits, each search text is found on its own with `memmem`;
/// above, all at once with Aho-Corasick (see `find_places`).
pub(crate) const MEMMEM_EDITS: usize = 8;

/// Neighbouring places a window may cross (places replaced by nothing add no
/// bytes to it); past this the edits are applied in turn.
const MAX_NEIGHBOURS: usize = 64;

/// Whether the one-pass planner is worth trying for `edits` edits over a
/// text of `len` bytes.
pub(crate) fn worth_it(len: usize, edits: usize) -> bool {
    edits >= MIN_EDITS && len.saturating_mul(edits) >= MIN_WORK
}

/// One occurrence to replace: where it starts in the original text, how
/// many bytes of it are replaced (the search text, and for an edit block
/// that deletes whole lines the line break after them), and whose it is.
#[derive(Debug, Clone, Copy)]
struct Place {
    start: usize,
    len: usize,
    edit: usize,
}

impl Place {
    fn end(&self) -> usize {
        self.start + self.len
    }
}

/// Plans `edits` over `text` in one pass, if they are independent and all
/// succeed (see the module docs); `None` means: apply them in turn.
pub(crate) fn plan(text: &[u8], edits: &[Edit]) -> Option<Plan> {
    plan_by(text, edits, &[], edits.len() > MEMMEM_EDITS)
}

/// [`plan`] for edit blocks: edit `i` with `take_break[i]` (an empty
/// replacement, matched once) also removes the line break (`\r\n` or `\n`)
/// right after its occurrence when that occurrence starts a line, in the
/// text the earlier edits left (see [`take_breaks`]).
pub(crate) fn plan_blocks(text: &[u8], edits: &[Edit], take_break: &[bool]) -> Option<Plan> {
    plan_by(text, edits, take_break, edits.len() > MEMMEM_EDITS)
}

/// The longest prefix of `edits` (at least two) that [`plan_by`] plans
/// over `text`, and its plan; `None` if not even two edits are planned.
///
/// Used while edits are applied in turn (some fail or interact): the run of
/// edits up to the next failing or interacting one is still planned in one
/// pass, so one failure among 10,000 edits costs a few passes over the
/// text, not 10,000. A prefix of edits that is planned is itself planned
/// (its conditions are a subset), so the longest one is found by bisection:
/// about log2(edits) passes. `cancel` stops the search early (the caller
/// sees the cancellation next).
pub(crate) fn plan_prefix(
    text: &[u8],
    edits: &[Edit],
    take_break: &[bool],
    cancel: &Cancel,
) -> Option<(usize, Plan)> {
    let n = edits.len();
    let attempt = |m: usize| {
        let takes = &take_break[..take_break.len().min(m)];
        plan_by(text, &edits[..m], takes, m > MEMMEM_EDITS)
    };
    if n < 2 || !found_as_counted(text, &edits[0]) {
        // The first edit fails here (not found, or not as often as its
        // count says): no run starts with it. One `memmem` pass, not the
        // whole passes of a search for a run.
        return None;
    }
    if let Some(p) = attempt(n) {
        return Some((n, p));
    }
    // Not even the first two (the first edit fails, or the next one
    // interacts with it): one cheap look (two `memmem` passes) instead of a
    // bisection of whole passes.
    let two = attempt(2)?;
    // `lo`: planned; `hi`: not planned.
    let (mut lo, mut hi, mut best) = (2, n, Some(two));
    while hi - lo > 1 && cancel.stopped().is_none() {
        let mid = lo + (hi - lo) / 2;
        match attempt(mid) {
            Some(p) => {
                lo = mid;
                best = Some(p);
            }
            None => hi = mid,
        }
    }
    best.map(|p| (lo, p))
}

/// Drops `n` bytes of the text right after the (first) replacement of
/// `plan`, and counts them in its UTF-16 change (line breaks: one unit a
/// byte).
pub(crate) fn skip_after_insert(plan: &mut Plan, n: usize) {
    if n == 0 {
        return;
    }
    if let Some(k) = plan.spans.iter().position(|s| matches!(s, Span::Insert(_))) {
        if let Some(Span::Keep(a, b)) = plan.spans.get_mut(k + 1) {
            *a = (*a + n).min(*b);
            plan.utf16_delta -= n as isize;
        }
    }
}

/// The text a plan over `text` gives, as ordered non-empty slices of
/// `text` and of the replacements of `edits` (the plan's).
pub(crate) fn pieces<'a>(text: &'a [u8], plan: &Plan, edits: &'a [Edit]) -> Vec<&'a [u8]> {
    plan.spans
        .iter()
        .map(|s| match *s {
            Span::Keep(a, b) => &text[a..b],
            Span::Insert(i) => edits[i].replace.as_bytes(),
        })
        .filter(|p| !p.is_empty())
        .collect()
}

/// Whether `edit`'s search text occurs in `text` as often as its count
/// requires (leftmost, not overlapping, as applying it finds them).
fn found_as_counted(text: &[u8], edit: &Edit) -> bool {
    if edit.search.is_empty() {
        return false;
    }
    let hits = memmem::find_iter(text, edit.search.as_bytes());
    match edit.count {
        Count::One => hits.take(2).count() == 1,
        Count::Exactly(k) => hits.take(k.saturating_add(1)).count() == k,
        Count::All => hits.take(1).count() == 1,
    }
}

/// The text a plan over `text` gives, in one buffer of the exact size
/// (`Err`: the size that could not be allocated). `edits` are the plan's.
pub(crate) fn materialize(text: &[u8], plan: &Plan, edits: &[Edit]) -> Result<Vec<u8>, usize> {
    let pieces = pieces(text, plan, edits);
    let len: usize = pieces.iter().map(|p| p.len()).sum();
    let mut out = Vec::new();
    out.try_reserve_exact(len).map_err(|_| len)?;
    for p in pieces {
        out.extend_from_slice(p);
    }
    Ok(out)
}

/// [`plan`], finding the places with Aho-Corasick (`together`) or `memmem`.
fn plan_by(text: &[u8], edits: &[Edit], take_break: &[bool], together: bool) -> Option<Plan> {
    let n = edits.len();
    // (An edit that may join the line after it to its replacement, change
    // the indentation of the line it ends in, or end between the CR and the
    // LF of a line break, is left to applying in turn, which checks that
    // line as it then stands.)
    if n < 2
        || edits.iter().any(|e| {
            e.search.is_empty() || may_join(e) || may_reindent(e) || e.search.ends_with('\r')
        })
    {
        return None;
    }
    let takes = |e: usize| take_break.get(e).copied().unwrap_or(false);
    if (0..n).any(|e| takes(e) && (!edits[e].replace.is_empty() || edits[e].count != Count::One)) {
        return None;
    }
    // The same search text twice: the later edit searches the earlier one's
    // results, which this planner does not model.
    let mut seen = HashSet::with_capacity(n);
    if !edits.iter().all(|e| seen.insert(e.search.as_bytes())) {
        return None;
    }
    drop(seen);
    let ac = AhoCorasick::builder()
        .match_kind(MatchKind::Standard)
        .build(edits.iter().map(|e| e.search.as_bytes()))
        .ok()?;
    let mut places = find_places(text, edits, &ac, together)?;
    if !take_break.is_empty() && !take_breaks(text, edits, &mut places, take_break) {
        return None;
    }
    if !independent(text, edits, &ac, &places) || !seams_intact(text, edits, &places) {
        return None;
    }
    Some(build(text, edits, &places))
}

/// Whether `plan` plans `edits` over `text` in one pass (for the tests
/// that hold it to its bound).
pub fn in_one_pass(text: &[u8], edits: &[Edit]) -> bool {
    plan(text, edits).is_some()
}

/// Every edit's occurrences in `text` (leftmost, not overlapping), sorted by
/// position; `None` if an edit has the wrong count, places of different
/// edits overlap, or there are more than a bounded number of them.
///
/// Up to [`MEMMEM_EDITS`] edits (`!together`), each search text is found with `memmem` (a
/// pass each, about 10 GB/s, the very search applying in turn makes); more
/// are found together in one overlapping Aho-Corasick pass (all search texts
/// at once, several hundred MB/s whatever their number).
fn find_places(
    text: &[u8],
    edits: &[Edit],
    ac: &AhoCorasick,
    together: bool,
) -> Option<Vec<Place>> {
    let n = edits.len();
    let cap = span_limit(text.len()).saturating_add(2 * n);
    let wanted = |e: &Edit| match e.count {
        Count::One => Some(1),
        Count::Exactly(k) => Some(k),
        Count::All => None,
    };
    let mut count = vec![0usize; n];
    let mut places = Vec::new();
    // One more occurrence of edit `e` at `start`: `false` past its count or
    // the cap.
    let mut add = |e: usize, start: usize| {
        count[e] += 1;
        if wanted(&edits[e]).is_some_and(|k| count[e] > k) || places.len() == cap {
            return false;
        }
        places.push(Place {
            start,
            len: edits[e].search.len(),
            edit: e,
        });
        true
    };
    if !together {
        for (e, edit) in edits.iter().enumerate() {
            for start in memmem::find_iter(text, edit.search.as_bytes()) {
                if !add(e, start) {
                    return None;
                }
            }
        }
    } else {
        // Overlapping occurrences seen (chosen or not), bounded so that
        // adversarial texts (`aaaa…` with `a`, `aa`, `aaa`) stay linear.
        let mut budget = cap.saturating_mul(4);
        let mut last_end = vec![0usize; n];
        for m in ac.try_find_overlapping_iter(text).ok()? {
            budget = budget.checked_sub(1)?;
            let e = m.pattern().as_usize();
            // Overlapping matches come by end: for one search text, by
            // start; the leftmost that does not overlap the last one chosen
            // is the one `memmem` would find next.
            if m.start() < last_end[e] {
                continue;
            }
            last_end[e] = m.end();
            if !add(e, m.start()) {
                return None;
            }
        }
    }
    let counts_ok = edits
        .iter()
        .zip(&count)
        .all(|(e, &c)| c > 0 && wanted(e).is_none_or(|k| c == k));
    if !counts_ok {
        return None;
    }
    places.sort_unstable_by_key(|p| p.start);
    if places.windows(2).any(|w| w[0].end() > w[1].start) {
        return None;
    }
    Some(places)
}

/// Extends the places of edits that take a line break (edit blocks that
/// delete whole lines) over the break after them, when applying in turn
/// would remove it: the occurrence starts a line and a `\r\n` or `\n`
/// follows it, both in the text the earlier edits left.
///
/// That text differs from the original only inside other places, so the
/// bytes around a place are the original ones unless they belong to a
/// neighbouring place. Before the occurrence, a neighbouring place shows
/// its replacement if its edit came earlier (an empty one shows what was
/// before it), else its original bytes. After it, the break must lie
/// outside every place; when the bytes that decide are another place's,
/// `false`: the edits are applied in turn.
fn take_breaks(text: &[u8], edits: &[Edit], places: &mut [Place], take_break: &[bool]) -> bool {
    for k in 0..places.len() {
        let p = places[k];
        if take_break.get(p.edit) != Some(&true) {
            continue;
        }
        match starts_line(text, edits, places, k) {
            Some(true) => {}
            Some(false) => continue,
            None => return false,
        }
        let next = places.get(k + 1).map_or(text.len(), |q| q.start);
        let gap = &text[p.end()..next];
        let taken = if gap.starts_with(b"\r\n") {
            2
        } else if gap.starts_with(b"\n") {
            1
        } else if next == text.len() || gap.len() >= 2 || gap.first().is_some_and(|&b| b != b'\r') {
            0
        } else {
            return false;
        };
        places[k].len += taken;
    }
    true
}

/// Whether `places[k]` starts a line in the text just before its edit
/// (`None`: too many neighbours to tell).
fn starts_line(text: &[u8], edits: &[Edit], places: &[Place], k: usize) -> Option<bool> {
    let edit = places[k].edit;
    let mut at = places[k].start;
    let mut j = k;
    for _ in 0..=MAX_NEIGHBOURS {
        if at == 0 {
            return Some(true);
        }
        if j == 0 || places[j - 1].end() < at {
            return Some(text[at - 1] == b'\n');
        }
        j -= 1;
        let before = &places[j];
        if before.edit > edit {
            return Some(text[at - 1] == b'\n');
        }
        if let Some(&b) = edits[before.edit].replace.as_bytes().last() {
            return Some(b == b'\n');
        }
        at = before.start;
    }
    None
}

/// Whether no place damages the line its search text's first line break
/// ends (which applying in turn refuses: `exact::damaged_seam`), as
/// applying in turn would see the line: `false` also when the place before
/// reaches into that line or takes the line break before it, whose bytes
/// applying in turn would then see changed. Each look goes back to the
/// line break before a place, and the places looked at start with one, so
/// the looks cover the text once.
fn seams_intact(text: &[u8], edits: &[Edit], places: &[Place]) -> bool {
    places.iter().enumerate().all(|(k, place)| {
        let edit = &edits[place.edit];
        if !may_damage_seam(edit) {
            return true;
        }
        let (start, seam) = seam_at(text, place.start, edit);
        // The line break before the line must not be another place's either.
        seam.is_none() && (k == 0 || places[k - 1].end() < start)
    })
}

/// Conditions 1 and 2 of the module docs, checked in a window around each
/// place.
fn independent(text: &[u8], edits: &[Edit], ac: &AhoCorasick, places: &[Place]) -> bool {
    let n = edits.len();
    // reach[e]: how far a later edit's search text can extend beyond a
    // place of edit `e` (its length minus one; `None`: no later edit).
    let mut reach: Vec<Option<usize>> = vec![None; n];
    let mut longest: Option<usize> = None;
    for e in (0..n).rev() {
        reach[e] = longest.map(|l| l - 1);
        longest = Some(longest.unwrap_or(0).max(edits[e].search.len()));
    }
    // Bytes looked at, bounded by the text and the edits (many places each
    // with a very long later search text around it: applied in turn).
    let blocks: usize = edits.iter().map(|e| e.search.len() + e.replace.len()).sum();
    let mut budget = text
        .len()
        .saturating_add(blocks.saturating_mul(4))
        .saturating_add(1 << 20);
    let mut window = Vec::new();
    for (k, p) in places.iter().enumerate() {
        let Some(w) = reach[p.edit] else { continue };
        let r = &edits[p.edit].replace;
        let end = p.end();
        // 1. No later search text in the original intersects this place.
        let from = p.start.saturating_sub(w);
        let to = end.saturating_add(w).min(text.len());
        budget = match budget.checked_sub(to - from) {
            Some(b) => b,
            None => return false,
        };
        let Ok(iter) = ac.try_find_overlapping_iter(&text[from..to]) else {
            return false;
        };
        for m in iter {
            let (q, l) = (from + m.start(), m.len());
            if m.pattern().as_usize() > p.edit && q < end && q + l > p.start {
                return false;
            }
        }
        // 2. No later search text touches its replacement in the text just
        // after this edit.
        window.clear();
        if !left_context(text, edits, places, k, w, &mut window) {
            return false;
        }
        window.reverse();
        let a = window.len();
        window.extend_from_slice(r.as_bytes());
        let b = window.len();
        if !right_context(text, edits, places, k, w, &mut window) {
            return false;
        }
        budget = match budget.checked_sub(window.len()) {
            Some(x) => x,
            None => return false,
        };
        let Ok(iter) = ac.try_find_overlapping_iter(&window[..]) else {
            return false;
        };
        for m in iter {
            if m.pattern().as_usize() > p.edit && m.start() < b && m.end() > a {
                return false;
            }
        }
    }
    true
}

/// The content of `place` in the text just after edit `edit`: its
/// replacement if its edit came first, else the original bytes.
fn content<'e>(text: &'e [u8], edits: &'e [Edit], place: &Place, edit: usize) -> &'e [u8] {
    if place.edit <= edit {
        edits[place.edit].replace.as_bytes()
    } else {
        &text[place.start..place.end()]
    }
}

/// Pushes, reversed, up to `w` bytes that precede `places[k]` in the text
/// just after its edit. `false` if that crosses too many neighbours.
fn left_context(
    text: &[u8],
    edits: &[Edit],
    places: &[Place],
    k: usize,
    w: usize,
    out: &mut Vec<u8>,
) -> bool {
    let edit = places[k].edit;
    let mut at = places[k].start;
    let mut j = k;
    for _ in 0..=MAX_NEIGHBOURS {
        let gap_from = if j == 0 { 0 } else { places[j - 1].end() };
        let take = (at - gap_from).min(w - out.len());
        out.extend(text[at - take..at].iter().rev());
        if out.len() >= w || j == 0 {
            return true;
        }
        j -= 1;
        let c = content(text, edits, &places[j], edit);
        let take = c.len().min(w - out.len());
        out.extend(c[c.len() - take..].iter().rev());
        if out.len() >= w {
            return true;
        }
        at = places[j].start;
    }
    false
}

/// Pushes up to `w` bytes that follow `places[k]` in the text just after its
/// edit. `false` if that crosses too many neighbours.
fn right_context(
    text: &[u8],
    edits: &[Edit],
    places: &[Place],
    k: usize,
    w: usize,
    out: &mut Vec<u8>,
) -> bool {
    let edit = places[k].edit;
    let limit = out.len() + w;
    let mut at = places[k].end();
    for j in (k + 1..).take(MAX_NEIGHBOURS + 1) {
        let gap_to = places.get(j).map_or(text.len(), |p| p.start);
        let take = (gap_to - at).min(limit - out.len());
        out.extend_from_slice(&text[at..at + take]);
        if out.len() >= limit || j == places.len() {
            return true;
        }
        let c = content(text, edits, &places[j], edit);
        let take = c.len().min(limit - out.len());
        out.extend_from_slice(&c[..take]);
        if out.len() >= limit {
            return true;
        }
        at = places[j].end();
    }
    false
}

/// The plan of independent edits: spans over `text`, and each edit's report
/// as applying in turn would give it (line and offset of its first
/// occurrence in the text the earlier edits left).
fn build(text: &[u8], edits: &[Edit], places: &[Place]) -> Plan {
    let n = edits.len();
    // Each edit's first place (places are sorted, so the first seen) and count.
    let mut first = vec![usize::MAX; n];
    let mut count = vec![0usize; n];
    for (rank, p) in places.iter().enumerate() {
        if first[p.edit] == usize::MAX {
            first[p.edit] = rank;
        }
        count[p.edit] += 1;
    }
    // Newlines of the original before each first place, in one sweep.
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_unstable_by_key(|&e| first[e]);
    let mut newlines_before = vec![0usize; n];
    let (mut at, mut lines) = (0usize, 0usize);
    for &e in &order {
        let start = places[first[e]].start;
        lines += count_newlines(&text[at..start]);
        at = start;
        newlines_before[e] = lines;
    }
    // Places grouped by edit (a counting sort of their ranks).
    let mut group_start = vec![0usize; n + 1];
    for e in 0..n {
        group_start[e + 1] = group_start[e] + count[e];
    }
    let mut fill = group_start.clone();
    let mut by_edit = vec![0usize; places.len()];
    for (rank, p) in places.iter().enumerate() {
        by_edit[fill[p.edit]] = rank;
        fill[p.edit] += 1;
    }
    // In edit order: the change in lines and bytes that earlier edits made
    // before this edit's first place (a Fenwick tree over ranks).
    let mut tree = Fenwick::new(places.len());
    let mut reports = Vec::with_capacity(n);
    let mut utf16_delta = 0isize;
    for (e, edit) in edits.iter().enumerate() {
        let (s, r) = (edit.search.as_bytes(), edit.replace.as_bytes());
        let (dl, db) = tree.before(first[e]);
        let start = places[first[e]].start;
        reports.push(Landing {
            line_number: (1 + newlines_before[e] as isize + dl) as usize,
            replacements: count[e],
            offset: (start as isize + db) as usize,
        });
        let lines = count_newlines(r) as isize - count_newlines(s) as isize;
        let bytes = r.len() as isize - s.len() as isize;
        for &rank in &by_edit[group_start[e]..group_start[e + 1]] {
            // A line break taken with the search text (ASCII: one UTF-16
            // unit a byte).
            let taken = (places[rank].len - s.len()) as isize;
            tree.add(rank, lines - isize::from(taken > 0), bytes - taken);
            utf16_delta -= taken;
        }
        utf16_delta += count[e] as isize * (utf16_len(r) as isize - utf16_len(s) as isize);
    }
    let mut spans = Vec::with_capacity(places.len() * 2 + 1);
    let mut at = 0;
    for p in places {
        spans.push(Span::Keep(at, p.start));
        spans.push(Span::Insert(p.edit));
        at = p.end();
    }
    spans.push(Span::Keep(at, text.len()));
    Plan {
        spans,
        reports,
        utf16_delta,
    }
}

/// Prefix sums of (lines, bytes) changes over place ranks.
struct Fenwick(Vec<(isize, isize)>);

impl Fenwick {
    fn new(n: usize) -> Self {
        Fenwick(vec![(0, 0); n + 1])
    }

    fn add(&mut self, rank: usize, lines: isize, bytes: isize) {
        let mut i = rank + 1;
        while i < self.0.len() {
            self.0[i].0 += lines;
            self.0[i].1 += bytes;
            i += i & i.wrapping_neg();
        }
    }

    /// The sums over ranks below `rank`.
    fn before(&self, rank: usize) -> (isize, isize) {
        let (mut l, mut b) = (0, 0);
        let mut i = rank;
        while i > 0 {
            l += self.0[i].0;
            b += self.0[i].1;
            i -= i & i.wrapping_neg();
        }
        (l, b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matching::blocks;
    use crate::matching::exact::{match_in_turn, MatchOptions, TextKind};
    use proptest::prelude::*;

    fn edit(s: &str, r: &str, count: Count) -> Edit {
        Edit {
            search: s.into(),
            replace: r.into(),
            count,
            said: crate::model::Said::CANONICAL,
        }
    }

    fn one(s: &str, r: &str) -> Edit {
        edit(s, r, Count::One)
    }

    /// The one-pass plan, if any, as (new text, reports, utf16 delta).
    fn fast(text: &str, edits: &[Edit]) -> Option<(Vec<u8>, Vec<Landing>, isize)> {
        // Both ways of finding the places give the same plan.
        let p = plan_by(text.as_bytes(), edits, &[], true);
        let q = plan_by(text.as_bytes(), edits, &[], false);
        assert_eq!(p.is_some(), q.is_some(), "{text:?} {edits:?}");
        let (p, q) = (p?, q?);
        assert_eq!(
            (&p.spans, &p.reports, p.utf16_delta),
            (&q.spans, &q.reports, q.utf16_delta)
        );
        let mut out = Vec::new();
        for s in &p.spans {
            match *s {
                Span::Keep(a, b) => out.extend_from_slice(&text.as_bytes()[a..b]),
                Span::Insert(i) => out.extend_from_slice(edits[i].replace.as_bytes()),
            }
        }
        Some((out, p.reports, p.utf16_delta))
    }

    /// Applying in turn, as (new text, reports, utf16 delta), or `None` on failure.
    fn in_turn(text: &str, edits: &[Edit]) -> Option<(Vec<u8>, Vec<Landing>, isize)> {
        let opts = MatchOptions {
            diagnose: false,
            ..Default::default()
        };
        let m = match_in_turn(text.as_bytes(), edits, TextKind::Utf8, &opts).ok()?;
        Some((m.pieces(edits).concat(), m.edits.clone(), m.utf16_delta))
    }

    /// Whenever the one pass answers, it answers as applying in turn does.
    fn agrees(text: &str, edits: &[Edit]) -> bool {
        match fast(text, edits) {
            Some(f) => {
                assert_eq!(
                    Some(&f),
                    in_turn(text, edits).as_ref(),
                    "{text:?} {edits:?}"
                );
                true
            }
            None => false,
        }
    }

    /// The one-pass plan of edit blocks, if any, as (new text, reports);
    /// its UTF-16 change is checked against the text.
    fn fast_blocks(text: &str, edits: &[Edit]) -> Option<(Vec<u8>, Vec<Landing>)> {
        let takes: Vec<bool> = edits.iter().map(|e| e.replace.is_empty()).collect();
        let p = plan_by(text.as_bytes(), edits, &takes, true);
        let q = plan_by(text.as_bytes(), edits, &takes, false);
        assert_eq!(p.is_some(), q.is_some(), "{text:?} {edits:?}");
        let (p, q) = (p?, q?);
        assert_eq!((&p.spans, &p.reports), (&q.spans, &q.reports));
        let m = crate::matching::exact::Matched::from_plan(text.as_bytes(), p, false);
        let out = m.pieces(edits).concat();
        assert_eq!(
            utf16_len(&out) as isize - utf16_len(text.as_bytes()) as isize,
            m.utf16_delta,
            "{text:?} {edits:?}"
        );
        Some((out, m.edits))
    }

    /// Whenever the one pass answers for blocks, it answers as applying
    /// them in turn (line-break rule included) does.
    fn blocks_agree(text: &str, edits: &[Edit]) -> bool {
        match fast_blocks(text, edits) {
            Some(f) => {
                let slow = blocks::in_turn(
                    text.as_bytes(),
                    edits,
                    TextKind::Utf8,
                    &crate::model::Cancel::default(),
                )
                .ok()
                .map(|a| {
                    (
                        a.text.into_bytes(text.as_bytes(), edits).unwrap(),
                        a.reports,
                    )
                });
                assert_eq!(Some(&f), slow.as_ref(), "{text:?} {edits:?}");
                true
            }
            None => false,
        }
    }

    #[test]
    fn blocks_that_delete_lines_take_their_breaks_in_one_pass() {
        let lines: Vec<String> = (0..300).map(|i| format!("v{i} = {i};")).collect();
        for eol in ["\n", "\r\n"] {
            let text = lines.join(eol) + eol;
            // Blocks as SEARCH/REPLACE gives them (no final line break):
            // deletions of single lines, of neighbouring lines (in either
            // order), of the first and the last line, next to changed lines.
            let edits = [
                one(&lines[10], ""),
                one(&lines[11], ""),
                one(&lines[13], ""),
                one(&lines[12], "twelve"),
                one(&lines[0], ""),
                one(&lines[299], ""),
                one(&format!("{}{eol}{}", lines[50], lines[51]), ""),
                one(&lines[53], "x"),
                one(&lines[52], ""),
                // Not at a line start: only the text goes.
                one(" = 200;", ""),
            ];
            assert!(blocks_agree(&text, &edits), "{eol:?}");
            let (out, _) = fast_blocks(&text, &edits).unwrap();
            let out = String::from_utf8(out).unwrap();
            assert!(out.starts_with(&format!("v1 = 1;{eol}")), "{out:?}");
            assert!(
                out.contains(&format!("v9 = 9;{eol}twelve{eol}v14")),
                "{out:?}"
            );
            assert!(out.contains(&format!("v49 = 49;{eol}x{eol}v54")), "{out:?}");
            assert!(out.contains(&format!("{eol}v200{eol}")), "{out:?}");
            assert!(out.ends_with(&format!("v298 = 298;{eol}")), "{out:?}");
        }
        // A file without a final line break loses its last line whole.
        assert!(blocks_agree("a\nb\nc", &[one("c", ""), one("a", "")]));
        // Whole lines with their break in the block: the blank line after
        // goes too, as applying in turn does.
        assert!(blocks_agree(
            "a\n\nb\nc\n",
            &[one("a\n", ""), one("c", "C")]
        ));
    }

    #[test]
    fn blocks_that_could_interact_through_a_break_are_left_to_applying_in_turn() {
        let cases: &[(&str, &[Edit])] = &[
            // Removing the line `X` joins `a` and `b` into the later block's
            // search text, which then occurs twice.
            ("a\nX\nbc\n--\na\nb\n", &[one("X", ""), one("a\nb", "Q")]),
            // The break a later block needs is removed.
            ("p\nX\nq\n", &[one("X", ""), one("\nq", "Q")]),
            // What follows the deleted text is another block's (the break
            // is decided by it).
            ("a\nX\nb\n", &[one("X\n", ""), one("b", "")]),
        ];
        for (text, edits) in cases {
            assert!(fast_blocks(text, edits).is_none(), "{text:?} {edits:?}");
            // And applying in turn is what decides.
            let _ = blocks::in_turn(
                text.as_bytes(),
                edits,
                TextKind::Utf8,
                &crate::model::Cancel::default(),
            );
        }
    }

    /// Edits whose search starts with a line break and whose replacement
    /// starts indented take one pass where no place follows a line of only
    /// whitespace, and are left to applying in turn (which refuses the
    /// join) where one does, or where the place before reaches into its
    /// line. (The CRLF seam shares the same look, `plan::seam_at`.)
    #[test]
    fn a_place_after_a_line_of_whitespace_is_left_to_applying_in_turn() {
        let text: String = (0..40).map(|i| format!("    f{i}();\n")).collect();
        let edits: Vec<Edit> = (0..10)
            .map(|k| one(&format!("\n    f{}();", 3 * k + 1), &format!("    g{k}();")))
            .collect();
        assert!(in_one_pass(text.as_bytes(), &edits));
        assert!(agrees(&text, &edits));
        // Not planned in one pass; applying in turn refuses, naming line 10.
        let refused = |text: &str, edits: &[Edit]| {
            assert!(!in_one_pass(text.as_bytes(), edits), "{edits:?}");
            let f = crate::matching::exact::match_edits(
                text.as_bytes(),
                edits,
                TextKind::Utf8,
                &Default::default(),
            )
            .map(drop)
            .expect_err("refused");
            assert_eq!(
                f[0].why,
                crate::model::EditWhy::JoinsWhitespace { line: 10 }
            );
        };
        let blank = text.replace("    f9();\n", "  \t\n    f9();\n");
        refused(
            &blank,
            &[one("\n    f9();", "    g();"), one("f1();", "h1();")],
        );
        // The place before ends inside the line (which it leaves blank):
        // applying in turn decides.
        refused(&text, &[one("f9();", ""), one("\n    f10();", "    g();")]);
    }

    #[test]
    fn independent_edits_take_one_pass() {
        let text: String = (0..200).map(|i| format!("line {i};\r\n")).collect();
        let edits: Vec<Edit> = (0..40)
            .map(|k| {
                let i = 199 - 5 * k; // out of text order
                one(&format!("line {i};\r\n"), &format!("L{i}\nx\n"))
            })
            .collect();
        assert!(agrees(&text, &edits));
        let (_, reports, _) = fast(&text, &edits).unwrap();
        // Edit 0 is at line 200; edit 1 (line 195) sees no earlier change
        // before it; the later ones see the extra lines of earlier edits
        // only where these were before them: none, as they go upwards.
        assert_eq!(reports[0].line_number, 200);
        assert_eq!(reports[1].line_number, 195);
        // In text order, each earlier edit before adds one line.
        let up: Vec<Edit> = edits.iter().rev().cloned().collect();
        let (_, reports, _) = fast(&text, &up).unwrap();
        assert_eq!(reports[0].line_number, 5);
        assert_eq!(reports[1].line_number, 11);
        assert!(agrees(&text, &up));
        // Counts of several and replace_all, multi-byte text.
        let text = "é1 😀 é1 x2 é1\r\nx2 y\n".repeat(3) + "end";
        let edits = [
            edit("é1", "ü\n", Count::All),
            edit("x2", "", Count::Exactly(6)),
            one("end", "😀\r\n"),
        ];
        assert!(agrees(&text, &edits));
    }

    #[test]
    fn interacting_edits_are_left_to_applying_in_turn() {
        let cases: &[(&str, &[Edit])] = &[
            // Overlapping places.
            ("abcdef", &[one("abc", "x"), one("cde", "y")]),
            // A replacement creates a later search text.
            (
                "foo bar baz",
                &[one("foo", "qux"), one("qux", "z"), one("baz", "B")],
            ),
            // ... across its boundary.
            ("ab cd", &[one("ab", "xy"), one("y cd", "Q")]),
            // An empty replacement joins two halves.
            ("xa-by", &[one("-", ""), one("ab", "Q")]),
            // A replacement destroys an occurrence of a later one.
            (
                "p q r s",
                &[one("q r", "Q"), edit("r", "R", Count::All), one("s", "S")],
            ),
            // ... that was not chosen at first (non-overlapping scan).
            ("aaa", &[one("a", "b"), one("aa", "c")]),
            // Twice the same search text.
            ("m n m", &[one("n", "m"), edit("m", "k", Count::All)]),
            // A failing edit (not found, ambiguous, wrong count).
            ("a b", &[one("a", "x"), one("zz", "y")]),
            ("a b b", &[one("a", "x"), one("b", "y")]),
            ("a b b", &[one("a", "x"), edit("b", "y", Count::Exactly(3))]),
        ];
        for (text, edits) in cases {
            assert!(fast(text, edits).is_none(), "{text:?} {edits:?}");
        }
        // A replacement may hold an earlier edit's search text, or its own.
        assert!(agrees("foo bar", &[one("foo", "x"), one("bar", "foo bar")]));
        assert!(agrees("a b", &[one("a", "aa"), one("b", "bab")]));
    }

    #[test]
    fn match_edits_plans_big_calls_in_one_pass_with_the_same_result() {
        use crate::matching::exact::match_edits;
        use crate::model::{MatchMode, Tolerance};
        let lines: Vec<String> = (0..200_000).map(|i| format!("v{i} = {i};\n")).collect();
        let text = lines.concat();
        let edits: Vec<Edit> = (0..MEMMEM_EDITS * 2)
            .map(|k| one(&lines[k * 9973], &format!("w{k}\n")))
            .collect();
        for (edits, mode) in [
            (&edits[..], MatchMode::EXACT),
            (&edits[..3], MatchMode::EXACT),
            (&edits[..], MatchMode::with(&[Tolerance::LineEndings])),
        ] {
            assert!(worth_it(text.len(), edits.len()));
            assert!(in_one_pass(text.as_bytes(), edits));
            let opts = MatchOptions {
                mode,
                ..Default::default()
            };
            let a = match_edits(text.as_bytes(), edits, TextKind::Utf8, &opts).unwrap();
            let b = match_in_turn(text.as_bytes(), edits, TextKind::Utf8, &opts).unwrap();
            assert_eq!(a.pieces(edits).concat(), b.pieces(edits).concat());
            assert_eq!(
                (&a.edits, a.utf16_delta, &a.tolerated, a.tolerant_mode),
                (&b.edits, b.utf16_delta, &b.tolerated, b.tolerant_mode)
            );
        }
        // A failing edit among them: the failures applying in turn reports.
        let mut bad = edits.to_vec();
        bad[3].search = "not there".into();
        let f = match_edits(
            text.as_bytes(),
            &bad,
            TextKind::Utf8,
            &MatchOptions::default(),
        )
        .unwrap_err();
        assert_eq!((f.len(), f[0].index), (1, 3));
        assert!(
            f[0].message().starts_with("edits[3]: "),
            "{}",
            f[0].message()
        );
    }

    fn tokens() -> impl Strategy<Value = String> {
        prop::sample::select(vec![
            "a", "b", "ab", " ", "\n", "\r\n", "é", "😀", "k1", "k2",
        ])
        .prop_map(str::to_string)
    }

    proptest! {
        #![proptest_config(crate::text::test_seeds::config(3000))]
        /// Generated texts and edits, adversarial on purpose: search texts
        /// cut from the text (so they overlap, repeat, straddle lines), and
        /// replacements that are empty, hold other edits' search texts or
        /// parts of them, or their own. Whenever the one pass answers, its
        /// plan is the one applying in turn gives.
        #[test]
        fn one_pass_equals_applying_in_turn(
            toks in prop::collection::vec(tokens(), 1..60),
            specs in prop::collection::vec(
                (0usize..1000, 1usize..6, 0u8..8, prop::collection::vec(tokens(), 0..4), 0u8..8),
                2..9,
            ),
        ) {
            let text: String = toks.concat();
            let searches: Vec<String> = specs
                .iter()
                .map(|&(at, len, ..)| {
                    let a = at % toks.len();
                    toks[a..(a + len).min(toks.len())].concat()
                })
                .collect();
            let edits: Vec<Edit> = specs
                .iter()
                .enumerate()
                .map(|(i, (_, _, rk, rep, ck))| {
                    let other = &searches[(i + 1) % searches.len()];
                    let half = other.char_indices().nth(other.chars().count() / 2).map_or(0, |c| c.0);
                    let rep = rep.concat();
                    let replace = match rk {
                        0 => String::new(),
                        1 => format!("{rep}{other}{rep}"),
                        2 => format!("{}{rep}", &other[half..]),
                        3 => format!("{rep}{}", &other[..half]),
                        4 => format!("{}{rep}", searches[i]),
                        _ => rep,
                    };
                    let count = match ck {
                        0..=2 => Count::All,
                        3 | 4 => Count::Exactly(text.matches(searches[i].as_str()).count().max(1)),
                        5 => Count::Exactly(2),
                        _ => Count::One,
                    };
                    edit(&searches[i], &replace, count)
                })
                .collect();
            agrees(&text, &edits);
        }

        /// Mostly independent edits over texts of distinct lines (the one
        /// pass answers for most of them), with some replacements that
        /// create or straddle a later search text.
        #[test]
        fn one_pass_on_mostly_independent_edits(
            ids in prop::collection::vec(0u32..400, 5..80),
            specs in prop::collection::vec((0usize..1000, 0u8..12, tokens()), 2..12),
        ) {
            let lines: Vec<String> = ids.iter().map(|i| format!("v{i} = {i};\n")).collect();
            let text = lines.concat();
            // Distinct lines (duplicates are left to applying in turn).
            let mut specs = specs;
            let mut picked = HashSet::new();
            specs.retain(|&(at, ..)| picked.insert(at % lines.len()));
            let searches: Vec<String> = specs
                .iter()
                .map(|&(at, ..)| lines[at % lines.len()].clone())
                .collect();
            let edits: Vec<Edit> = specs
                .iter()
                .enumerate()
                .map(|(i, (_, rk, tok))| {
                    let next = &searches[(i + 1) % searches.len()];
                    let replace = match rk {
                        0 => String::new(),
                        1 => next.clone(),
                        2 => format!("{tok}{}", &next[..2]),
                        3 => format!("{}{tok}", &next[2..]),
                        _ => format!("{tok}{}", searches[i].replace(';', "!")),
                    };
                    edit(&searches[i], &replace, Count::One)
                })
                .collect();
            agrees(&text, &edits);
        }
    }

    /// A text of `toks` and edits whose search texts are cut from it (at,
    /// len); a replacement is empty when its kind is below `empty_below`,
    /// else the spec's tokens.
    fn cut_blocks(
        toks: &[String],
        specs: &[(usize, usize, u8, Vec<String>)],
        empty_below: u8,
    ) -> (String, Vec<Edit>) {
        let edits = specs
            .iter()
            .map(|(at, len, rk, rep)| {
                let a = at % toks.len();
                let search = toks[a..(a + len).min(toks.len())].concat();
                let replace = if *rk < empty_below {
                    String::new()
                } else {
                    rep.concat()
                };
                one(&search, &replace)
            })
            .collect();
        (toks.concat(), edits)
    }

    fn line_tokens() -> impl Strategy<Value = String> {
        prop::sample::select(vec!["a", "b", "ab", "x", "\n", "\n", "\r\n", "\r", "é"])
            .prop_map(str::to_string)
    }

    proptest! {
        #![proptest_config(crate::text::test_seeds::config(3000))]
        /// Edit blocks over generated texts full of line breaks (`\r`
        /// alone too): search texts cut from the text, replacements mostly
        /// empty (the line-break rule), neighbouring and overlapping on
        /// purpose. Whenever the one pass answers, it is applying in turn.
        #[test]
        fn blocks_one_pass_equals_applying_in_turn(
            toks in prop::collection::vec(line_tokens(), 1..60),
            specs in prop::collection::vec(
                (0usize..1000, 1usize..5, 0u8..6, prop::collection::vec(line_tokens(), 0..3)),
                2..10,
            ),
        ) {
            let (text, edits) = cut_blocks(&toks, &specs, 4);
            blocks_agree(&text, &edits);
        }

        /// Distinct lines, blocks deleting or changing some of them (the
        /// one pass answers for most): the same as applying in turn.
        #[test]
        fn blocks_one_pass_on_distinct_lines(
            ids in prop::collection::vec(0u32..400, 5..80),
            crlf in any::<bool>(),
            specs in prop::collection::vec((0usize..1000, 1usize..3, 0u8..4), 2..14),
        ) {
            let eol = if crlf { "\r\n" } else { "\n" };
            let lines: Vec<String> = ids.iter().map(|i| format!("v{i} = {i};")).collect();
            let text = lines.join(eol) + eol;
            let mut specs = specs;
            let mut picked = HashSet::new();
            specs.retain(|&(at, ..)| picked.insert(at % lines.len()));
            let edits: Vec<Edit> = specs
                .iter()
                .map(|&(at, len, rk)| {
                    let a = at % lines.len();
                    let search = lines[a..(a + len).min(lines.len())].join(eol);
                    let replace = match rk {
                        0 | 1 => String::new(),
                        2 => format!("w{a}"),
                        _ => format!("w{a}{eol}"),
                    };
                    one(&search, &replace)
                })
                .collect();
            blocks_agree(&text, &edits);
        }
    }

    /// Applying in turn with runs planned in one pass (always looked for)
    /// gives what applying every edit in turn gives, failures included.
    fn runs_agree(text: &str, edits: &[Edit]) {
        runs_agree_under(text, edits, crate::model::MatchMode::EXACT);
    }

    /// [`runs_agree`] with the edits matched under `mode`.
    fn runs_agree_under(text: &str, edits: &[Edit], mode: crate::model::MatchMode) {
        use crate::matching::exact::{in_turn_with, Runs};
        let opts = MatchOptions {
            diagnose: false,
            mode,
            ..Default::default()
        };
        let t = text.as_bytes();
        let a = in_turn_with(t, edits, TextKind::Utf8, &opts, Runs::Always);
        let b = in_turn_with(t, edits, TextKind::Utf8, &opts, Runs::Never);
        match (a, b) {
            (Ok(a), Ok(b)) => {
                assert_eq!(
                    a.pieces(edits).concat(),
                    b.pieces(edits).concat(),
                    "{text:?} {edits:?}"
                );
                assert_eq!(
                    (&a.edits, a.utf16_delta),
                    (&b.edits, b.utf16_delta),
                    "{text:?} {edits:?}"
                );
                assert_eq!(a.tolerated, b.tolerated);
            }
            (a, b) => assert_eq!(a.err(), b.err(), "{text:?} {edits:?}"),
        }
        let c = blocks::in_turn_with(
            t,
            edits,
            &blocks::as_sent(edits),
            TextKind::Utf8,
            &crate::model::Cancel::default(),
            Runs::Always,
        )
        .map(|x| (x.text.into_bytes(t, edits).unwrap(), x.reports));
        let d = blocks::in_turn(t, edits, TextKind::Utf8, &crate::model::Cancel::default())
            .map(|x| (x.text.into_bytes(t, edits).unwrap(), x.reports));
        match (c, d) {
            (Ok(c), Ok(d)) => assert_eq!(c, d, "{text:?} {edits:?}"),
            // Failures carry diagnoses; their blocks and codes agree.
            (c, d) => {
                let key = |f: Vec<crate::matching::exact::EditMiss>| {
                    f.into_iter()
                        .map(|e| (e.index, e.code, e.match_count, e.message(), e.match_lines))
                        .collect::<Vec<_>>()
                };
                assert_eq!(
                    c.map_err(key).err(),
                    d.map_err(key).err(),
                    "{text:?} {edits:?}"
                )
            }
        }
    }

    #[test]
    fn runs_leave_to_applying_in_turn_an_edit_after_ones_that_turn_every_break() {
        // Each file ends its lines one way and no replacement brings the
        // other, but the first edit turns the file's every break into the
        // other kind: a search ending in the CR of a CRLF, an empty
        // replacement joining a CR to an LF. Applying in turn then gives
        // the second edit's new line the file's new ending.
        let le = crate::model::MatchMode::with(&[crate::model::Tolerance::LineEndings]);
        let edits = [one("\r\na\r", ""), one("a\u{e9}", "\r\n")];
        runs_agree_under("a\r\na\r\na\u{e9}", &edits, le);
        let edits = [one("b", ""), one("c", "x\ny")];
        runs_agree_under("a\rb\nc", &edits, le);
        let opts = MatchOptions {
            mode: le,
            ..Default::default()
        };
        let m =
            crate::matching::exact::match_edits(b"a\rb\nc", &edits, TextKind::Utf8, &opts).unwrap();
        assert_eq!(m.pieces(&edits).concat(), b"a\r\nx\r\ny");
    }

    #[test]
    fn runs_leave_to_applying_in_turn_an_edit_whose_line_endings_an_earlier_one_changed() {
        // The first edit makes a CRLF file LF; the second, found exactly and
        // independent of it, brings CRLF lines, which applying in turn makes
        // LF (the file's ending by then).
        let le = crate::model::MatchMode::with(&[crate::model::Tolerance::LineEndings]);
        let edits = [one("p\r\n", "p\n"), one("q", "r\r\ns")];
        runs_agree_under("p\r\nq", &edits, le);
        let opts = MatchOptions {
            mode: le,
            ..Default::default()
        };
        let m =
            crate::matching::exact::match_edits(b"p\r\nq", &edits, TextKind::Utf8, &opts).unwrap();
        assert_eq!(m.pieces(&edits).concat(), b"p\nr\ns");
    }

    #[test]
    fn one_failing_edit_among_many_is_found_by_runs() {
        let lines: Vec<String> = (0..400).map(|i| format!("v{i} = {i};\n")).collect();
        let text = lines.concat();
        let mut edits: Vec<Edit> = (0..120)
            .map(|k| one(&lines[k * 3], &format!("w{k}\n")))
            .collect();
        runs_agree(&text, &edits);
        // One edit not found, one ambiguous, one pair that interacts.
        edits[40].search = "nowhere".into();
        runs_agree(&text, &edits);
        edits[77].search = " = ".into();
        runs_agree(&text, &edits);
        edits[90].replace = lines[300].clone() + "x";
        edits[91].search = lines[300].clone() + "x";
        runs_agree(&text, &edits);
        // Blocks deleting lines among them.
        for e in edits.iter_mut().step_by(2) {
            e.replace.clear();
            e.search = e.search.trim_end_matches('\n').to_string();
        }
        runs_agree(&text, &edits);
    }

    proptest! {
        #![proptest_config(crate::text::test_seeds::config(2000))]
        /// Runs planned while applying in turn, over texts and edits made to
        /// fail and interact (and blocks with their line-break rule).
        #[test]
        fn runs_equal_applying_in_turn(
            toks in prop::collection::vec(line_tokens(), 1..60),
            specs in prop::collection::vec(
                (0usize..1000, 1usize..5, 0u8..6, prop::collection::vec(line_tokens(), 0..3)),
                2..14,
            ),
        ) {
            let (text, edits) = cut_blocks(&toks, &specs, 3);
            runs_agree(&text, &edits);
        }

        /// The same under `line_endings`, where an edit found exactly may
        /// have its new lines made the file's (`tolerant::reended`): runs
        /// never take such an edit, whatever the edits before it did to the
        /// file's line endings.
        #[test]
        fn runs_equal_applying_in_turn_under_line_endings(
            toks in prop::collection::vec(line_tokens(), 1..60),
            specs in prop::collection::vec(
                (0usize..1000, 1usize..5, 0u8..6, prop::collection::vec(line_tokens(), 0..3)),
                2..14,
            ),
        ) {
            let (text, edits) = cut_blocks(&toks, &specs, 1);
            runs_agree_under(&text, &edits, crate::model::MatchMode::with(&[crate::model::Tolerance::LineEndings]));
        }

        #[test]
        fn runs_on_distinct_lines_with_failures(
            ids in prop::collection::vec(0u32..400, 5..80),
            specs in prop::collection::vec((0usize..1000, 0u8..6), 2..30),
        ) {
            let lines: Vec<String> = ids.iter().map(|i| format!("v{i} = {i};\n")).collect();
            let text = lines.concat();
            let edits: Vec<Edit> = specs
                .iter()
                .map(|&(at, rk)| {
                    let l = &lines[at % lines.len()];
                    match rk {
                        0 => one("absent", "x"),
                        1 => one(l.trim_end(), ""),
                        2 => one(l, &lines[(at + 1) % lines.len()]),
                        _ => one(l, &format!("w{at}\n")),
                    }
                })
                .collect();
            runs_agree(&text, &edits);
        }
    }

    #[test]
    fn one_pass_answers_for_most_distinct_lines() {
        // Not a proof, a guard that the property tests exercise the one
        // pass: with distinct lines and plain replacements it answers.
        let lines: Vec<String> = (0..500).map(|i| format!("v{i} = {i};\n")).collect();
        let text = lines.concat();
        let edits: Vec<Edit> = (0..100)
            .map(|k| one(&lines[(k * 37) % 500], &format!("w{k}\n")))
            .collect();
        assert!(agrees(&text, &edits));
        // Neighbouring lines, one replaced by nothing.
        let edits = [
            one(&lines[3], ""),
            one(&lines[4], "x\n"),
            one(&lines[2], "y\n"),
        ];
        assert!(agrees(&text, &edits));
    }
}
