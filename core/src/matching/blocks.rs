//! Edit blocks: SEARCH/REPLACE text and the text editor's `str_replace`.
//!
//! Each block must occur exactly once in the text the earlier blocks left,
//! and is applied in turn. One rule sets blocks apart from `edits`: a block
//! whose replacement is empty and whose occurrence starts a line also
//! removes the line break (`\r\n` or `\n`) right after it, so deleting whole
//! lines does not leave blank ones.
//!
//! Applying in turn searches and copies the whole text once per block
//! (10,000 blocks over 100 MB: hours). Many blocks over a big text are
//! therefore first planned in one pass (`many::plan_blocks`, the planner of
//! `edits`, told which blocks take their line break); whenever it answers,
//! its result is the one applying in turn gives. When it does not (a block
//! fails, or the blocks interact), they are applied in turn, so failures and
//! their messages come from one place, and the caller's cancellation or
//! time budget is checked between blocks.

use std::borrow::Cow;

use crate::error::ErrorCode;
use crate::matching::exact::{self, EditMiss, RunFinder, Runs, TextKind};
use crate::matching::many;
use crate::matching::plan::{Landing, Plan, Span};
use crate::matching::verify::{self, Change, Fold};
use crate::model::{Cancel, Edit, EditWhy, Unverified};

/// The new text of blocks applied.
#[derive(Debug)]
pub(crate) enum NewText {
    /// Written out (blocks applied in turn).
    Owned(Vec<u8>),
    /// Spans over the text the blocks were applied to and their
    /// replacements (all planned in one pass): written from those slices,
    /// never copied.
    Planned(Plan),
}

impl NewText {
    /// The new text as ordered slices of `text` (the text the blocks were
    /// applied to) and of the blocks' replacements.
    pub(crate) fn pieces<'a>(&'a self, text: &'a [u8], edits: &'a [Edit]) -> Vec<&'a [u8]> {
        match self {
            NewText::Owned(v) => vec![v.as_slice()],
            NewText::Planned(plan) => many::pieces(text, plan, edits),
        }
    }

    /// The new text in one buffer (`Err`: the size that could not be
    /// allocated).
    pub(crate) fn into_bytes(self, text: &[u8], edits: &[Edit]) -> Result<Vec<u8>, usize> {
        match self {
            NewText::Owned(v) => Ok(v),
            NewText::Planned(plan) => many::materialize(text, &plan, edits),
        }
    }
}

/// Blocks applied.
#[derive(Debug)]
pub(crate) struct Applied {
    /// The new text.
    pub(crate) text: NewText,
    /// Per block: line and offset of its occurrence in the text the earlier
    /// blocks left.
    pub(crate) reports: Vec<Landing>,
    /// Planned in one pass: every replacement is in the new text as given
    /// (no later block touched it), so none needs looking for afterwards.
    pub(crate) one_pass: bool,
}

/// The blocks applied, or every failing block. `callers`: each block as
/// the caller wrote it, before its line breaks followed the file's (the
/// texts every application is checked against, [`verify`]).
pub(crate) fn apply(
    text: &[u8],
    edits: &[Edit],
    callers: &[Caller<'_>],
    kind: TextKind,
    cancel: &Cancel,
) -> Result<Applied, Vec<EditMiss>> {
    in_turn_with(text, edits, callers, kind, cancel, Runs::WhenWorthIt)
}

/// A block's search and replacement texts as the caller wrote them.
pub(crate) type Caller<'a> = (&'a str, &'a str);

/// The blocks' own texts, for blocks that were not adapted (tests).
#[cfg(test)]
pub(crate) fn as_sent(edits: &[Edit]) -> Vec<Caller<'_>> {
    edits
        .iter()
        .map(|e| (e.search.as_str(), e.replace.as_str()))
        .collect()
}

/// Whether `edits` over `text` are planned in one pass (for the tests that
/// hold blocks to their bound).
pub fn in_one_pass(text: &[u8], edits: &[Edit]) -> bool {
    many::plan_blocks(text, edits, &takes_break(edits)).is_some()
}

/// Whether each edit's occurrence, at a line start, also takes the line
/// break after it: an empty replacement deletes whole lines with their
/// breaks. A `str_replace` whose `old_str` ends in its own break has taken
/// it already (the break after it ends the next line).
fn takes_break(edits: &[Edit]) -> Vec<bool> {
    edits.iter().map(takes_its_break).collect()
}

fn takes_its_break(e: &Edit) -> bool {
    e.replace.is_empty() && !(e.said.is_str_replace() && e.search.ends_with('\n'))
}

/// Every block searched in the text as the earlier ones left it. Failing
/// blocks are all reported (later blocks still search the text the
/// successful ones left).
#[cfg(test)]
pub(crate) fn in_turn(
    text: &[u8],
    edits: &[Edit],
    kind: TextKind,
    cancel: &Cancel,
) -> Result<Applied, Vec<EditMiss>> {
    in_turn_with(text, edits, &as_sent(edits), kind, cancel, Runs::Never)
}

/// `in_turn` (the tests' reference), with runs of blocks that neither fail nor interact planned
/// in one pass as `runs` says ([`exact::RunFinder`]). The first run tried is
/// all the blocks: `one_pass` when it is planned.
pub(crate) fn in_turn_with(
    text: &[u8],
    edits: &[Edit],
    callers: &[Caller<'_>],
    kind: TextKind,
    cancel: &Cancel,
    runs: Runs,
) -> Result<Applied, Vec<EditMiss>> {
    // The text as the blocks so far left it (the caller's until one lands).
    let mut cur: Cow<'_, [u8]> = Cow::Borrowed(text);
    let mut reports = Vec::with_capacity(edits.len());
    let mut failures = Vec::new();
    let takes = takes_break(edits);
    let mut runs = RunFinder::new(runs);
    // Diagnoses of failing blocks share one budget of work per call (each
    // block is matched on its own, and would otherwise get a whole one).
    let budget = crate::likeness::Budget::new(crate::likeness::DEFAULT_BUDGET);
    for (bi, edit) in edits.iter().enumerate() {
        if runs.covered(bi) {
            continue;
        }
        if failures.len() >= exact::MAX_REPORTED_FAILURES {
            exact::note_unchecked(&mut failures, edits.len() - bi, "block");
            break;
        }
        if let Some(s) = cancel.stopped() {
            return Err(vec![exact::cancelled(bi, s)]);
        }
        // A run whose plan fails the check is not taken: its blocks are
        // applied one by one, and the one that fails says so as itself.
        let run = runs
            .find(&cur, edits, bi, &takes, kind, cancel)
            .filter(|(m, plan)| {
                let changes = plan_changes(plan, &edits[bi..bi + m], &callers[bi..bi + m]);
                verify::verify(&cur, &changes).is_ok()
            });
        if run.is_none() {
            runs.forget(bi);
        }
        if let Some((m, plan)) = run {
            if bi == 0 && m == edits.len() {
                let reports = plan.reports.clone();
                return Ok(Applied {
                    text: NewText::Planned(plan),
                    reports,
                    one_pass: true,
                });
            }
            match many::materialize(&cur, &plan, &edits[bi..]) {
                Ok(next) => cur = Cow::Owned(next),
                Err(len) => return Err(vec![too_large(bi, len, m)]),
            }
            reports.extend_from_slice(&plan.reports);
            continue;
        }
        let opts = exact::MatchOptions::default();
        let matched =
            exact::match_edits_sharing(&cur, std::slice::from_ref(edit), kind, &opts, &budget);
        match matched {
            Ok(p) => {
                let r = p.edits[0];
                let change = block_change(&cur, r.offset, edit, callers[bi]);
                if let Err(why) = verify::verify(&cur, &[change]) {
                    failures.push(refused(bi, why.why));
                    continue;
                }
                // A single block (the text editor's `str_replace`, one
                // SEARCH/REPLACE): spans over the caller's text, not a copy.
                let p = if edits.len() == 1 {
                    match p.into_plan() {
                        Ok(plan) => {
                            return Ok(Applied {
                                text: NewText::Planned(take_break_after(text, plan, edit)),
                                reports: vec![r],
                                one_pass: true,
                            })
                        }
                        Err(p) => *p,
                    }
                } else {
                    p
                };
                let mut next = p.pieces(std::slice::from_ref(edit)).concat();
                let at = r.offset;
                if takes_its_break(edit) && (at == 0 || next[at - 1] == b'\n') {
                    if next[at..].starts_with(b"\r\n") {
                        next.drain(at..at + 2);
                    } else if next[at..].starts_with(b"\n") {
                        next.remove(at);
                    }
                }
                reports.push(r);
                cur = Cow::Owned(next);
            }
            Err(mut f) => {
                for e in &mut f {
                    e.index = bi;
                }
                failures.extend(f);
            }
        }
    }
    if failures.is_empty() {
        Ok(Applied {
            text: NewText::Owned(cur.into_owned()),
            reports,
            one_pass: false,
        })
    } else {
        Err(failures)
    }
}

/// Which of `needles` occur in `text`: one Aho-Corasick pass for all of
/// them (stopping once every one was seen), so that checking 10,000
/// replacements costs a pass over the text, not 10,000. Overlapping matches
/// are counted against a budget proportional to the text (texts like
/// `aaaa…` against `a`, `aa`, `aaa` report a match per needle per byte);
/// past it the needles not yet seen are looked for one by one.
pub(crate) fn present(text: &[u8], needles: &[&[u8]]) -> Vec<bool> {
    let mut seen = vec![false; needles.len()];
    let mut left = needles.iter().filter(|n| !n.is_empty()).count();
    for (k, n) in needles.iter().enumerate() {
        seen[k] = n.is_empty();
    }
    if left == 0 {
        return seen;
    }
    if needles.len() > 8 {
        if let Ok(ac) = aho_corasick::AhoCorasick::new(needles) {
            let mut budget = text.len().saturating_mul(4).saturating_add(needles.len());
            if let Ok(iter) = ac.try_find_overlapping_iter(text) {
                for m in iter {
                    let k = m.pattern().as_usize();
                    if !seen[k] {
                        seen[k] = true;
                        left -= 1;
                        if left == 0 {
                            return seen;
                        }
                    }
                    budget = match budget.checked_sub(1) {
                        Some(b) => b,
                        None => break,
                    };
                }
            }
        }
    }
    for (k, n) in needles.iter().enumerate() {
        if !seen[k] {
            seen[k] = memchr::memmem::find(text, n).is_some();
        }
    }
    seen
}

/// A single exact block's plan over `text` with the line-break rule
/// applied: an empty replacement at a line start also drops the `\r\n` or
/// `\n` that follows (the start of the span after it).
fn take_break_after(text: &[u8], mut plan: Plan, edit: &Edit) -> Plan {
    let at = plan.reports[0].offset;
    if takes_its_break(edit) && (at == 0 || text[at - 1] == b'\n') {
        let rest = &text[at + edit.search.len()..];
        let taken = if rest.starts_with(b"\r\n") {
            2
        } else {
            usize::from(rest.starts_with(b"\n"))
        };
        many::skip_after_insert(&mut plan, taken);
    }
    plan
}

/// What a block's line breaks tolerate: those of the file, when they were
/// made to follow it.
fn fold_of(edit: &Edit, caller: Caller<'_>) -> Fold {
    if edit.search == caller.0 && edit.replace == caller.1 {
        Fold::EXACT
    } else {
        Fold {
            line_endings: true,
            ..Fold::EXACT
        }
    }
}

/// The change block `edit` (as written by the caller: `caller`) makes at
/// `at` in `text`: its search text, and the line break after it when the
/// block deletes whole lines.
fn block_change<'a>(text: &[u8], at: usize, edit: &'a Edit, caller: Caller<'a>) -> Change<'a> {
    let end = at + edit.search.len();
    let rest = &text[end..];
    let taken = if takes_its_break(edit) && (at == 0 || text[at - 1] == b'\n') {
        if rest.starts_with(b"\r\n") {
            2
        } else {
            usize::from(rest.starts_with(b"\n"))
        }
    } else {
        0
    };
    Change {
        start: at,
        end: end + taken,
        new: edit.replace.as_bytes(),
        search: caller.0,
        replace: caller.1,
        fold: fold_of(edit, caller),
        takes_break: taken > 0,
        adds_break: false,
    }
}

/// The changes a plan of blocks makes to the text it is over: each
/// replacement stands between two kept spans, and replaces what lies
/// between them.
fn plan_changes<'a>(plan: &Plan, edits: &'a [Edit], callers: &[Caller<'a>]) -> Vec<Change<'a>> {
    let mut out = Vec::new();
    for (k, span) in plan.spans.iter().enumerate() {
        let Span::Insert(e) = *span else { continue };
        let start = match k.checked_sub(1).map(|j| plan.spans[j]) {
            Some(Span::Keep(_, b)) => b,
            _ => 0,
        };
        let end = match plan.spans.get(k + 1) {
            Some(&Span::Keep(a, _)) => a,
            _ => start,
        };
        let (edit, caller) = (&edits[e], callers[e]);
        out.push(Change {
            start,
            end,
            new: edit.replace.as_bytes(),
            search: caller.0,
            replace: caller.1,
            fold: fold_of(edit, caller),
            takes_break: takes_its_break(edit) && end - start > edit.search.len(),
            adds_break: false,
        });
    }
    out
}

/// The failure of block `index`, whose plan failed the check before
/// writing.
fn refused(index: usize, why: Unverified) -> EditMiss {
    EditMiss {
        match_count: 1,
        ..EditMiss::new(
            index,
            ErrorCode::PLAN_CHECK_FAILED,
            EditWhy::Unverified(why),
        )
    }
}

/// Blocks from `index` on (`n` of them) whose text could not be allocated.
fn too_large(index: usize, len: usize, n: usize) -> EditMiss {
    EditMiss::new(
        index,
        ErrorCode::FILE_TOO_LARGE,
        EditWhy::BlocksTooLarge { n, len },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Count;

    fn one(text: &str, search: &str, replace: &str) -> String {
        let edits = [Edit {
            search: search.into(),
            replace: replace.into(),
            count: Count::One,
            said: crate::model::Said::CANONICAL,
        }];
        let a = apply(
            text.as_bytes(),
            &edits,
            &as_sent(&edits),
            TextKind::Utf8,
            &Cancel::default(),
        )
        .unwrap();
        assert!(
            matches!(a.text, NewText::Planned(_)),
            "a single block is planned as slices"
        );
        String::from_utf8(a.text.into_bytes(text.as_bytes(), &edits).unwrap()).unwrap()
    }

    #[test]
    fn a_single_block_is_written_from_slices_with_the_line_break_rule() {
        assert_eq!(one("a\nb\nc\n", "b", "B"), "a\nB\nc\n");
        // Whole lines deleted take their break (LF, CRLF, first, last).
        assert_eq!(one("a\nb\nc\n", "b", ""), "a\nc\n");
        assert_eq!(one("a\r\nb\r\nc\r\n", "b", ""), "a\r\nc\r\n");
        assert_eq!(one("a\nb\n", "a", ""), "b\n");
        assert_eq!(one("a\nb", "b", ""), "a\n");
        // A block that holds its break takes the blank line after it too.
        assert_eq!(one("a\n\nb\n", "a\n", ""), "b\n");
        // Not at a line start, or not followed by a break: only the text.
        assert_eq!(one("x b\nc\n", "b", ""), "x \nc\n");
        assert_eq!(one("a\nbc\n", "b", ""), "a\nc\n");
    }
}
