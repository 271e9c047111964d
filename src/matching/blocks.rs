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
//! therefore first planned in one pass ([`many::plan_blocks`], the planner of
//! `edits`, told which blocks take their line break); whenever it answers,
//! its result is the one applying in turn gives. When it does not (a block
//! fails, or the blocks interact), they are applied in turn, so failures and
//! their messages come from one place, and the caller's cancellation or
//! time budget is checked between blocks.

use std::borrow::Cow;

use crate::error::{ErrorCode, Failure};
use crate::matching::exact::{self, EditFailure, EditReport, TextKind};
use crate::matching::many;
use crate::model::{Cancel, Edit};

/// Blocks applied.
#[derive(Debug)]
pub struct Applied {
    /// The new text.
    pub text: Vec<u8>,
    /// Per block: line and offset of its occurrence in the text the earlier
    /// blocks left.
    pub reports: Vec<EditReport>,
    /// Planned in one pass: every replacement is in the new text as given
    /// (no later block touched it), so none needs looking for afterwards.
    pub one_pass: bool,
}

/// The blocks applied, or every failing block.
pub fn apply(
    text: &[u8],
    edits: &[Edit],
    kind: TextKind,
    cancel: &Cancel,
) -> Result<Applied, Vec<EditFailure>> {
    if kind == TextKind::Utf8 && many::worth_it(text.len(), edits.len()) {
        if let Some(done) = one_pass(text, edits) {
            return done;
        }
    }
    in_turn(text, edits, kind, cancel)
}

/// Whether `edits` over `text` are planned in one pass (for the tests that
/// hold blocks to their bound).
pub fn in_one_pass(text: &[u8], edits: &[Edit]) -> bool {
    many::plan_blocks(text, edits, &takes_break(edits)).is_some()
}

fn takes_break(edits: &[Edit]) -> Vec<bool> {
    edits.iter().map(|e| e.replace.is_empty()).collect()
}

/// The one-pass plan written into one buffer of the exact new size; `None`
/// when the planner does not answer.
fn one_pass(text: &[u8], edits: &[Edit]) -> Option<Result<Applied, Vec<EditFailure>>> {
    let plan = many::plan_blocks(text, edits, &takes_break(edits))?;
    let m = exact::Matched::from_plan(text, plan, false);
    let pieces = m.pieces(edits);
    let len: usize = pieces.iter().map(|p| p.len()).sum();
    let mut out = Vec::new();
    if out.try_reserve_exact(len).is_err() {
        return Some(Err(vec![EditFailure {
            index: 0,
            code: ErrorCode::FILE_TOO_LARGE,
            match_count: 0,
            match_lines: Vec::new(),
            message: format!(
                "the text after these {} blocks would be {len} bytes, and that much memory could not be \
                 allocated; nothing was written. Free memory, or make the change in smaller parts",
                edits.len()
            ),
            diagnosis: None,
        }]));
    }
    for p in pieces {
        out.extend_from_slice(p);
    }
    Some(Ok(Applied {
        text: out,
        reports: m.edits,
        one_pass: true,
    }))
}

/// Every block searched in the text as the earlier ones left it. Failing
/// blocks are all reported (later blocks still search the text the
/// successful ones left).
pub(crate) fn in_turn(
    text: &[u8],
    edits: &[Edit],
    kind: TextKind,
    cancel: &Cancel,
) -> Result<Applied, Vec<EditFailure>> {
    // The text as the blocks so far left it (the caller's until one lands).
    let mut cur: Cow<'_, [u8]> = Cow::Borrowed(text);
    let mut reports = Vec::with_capacity(edits.len());
    let mut failures = Vec::new();
    for (bi, edit) in edits.iter().enumerate() {
        if let Err(f) = cancel.check() {
            // The call's answer is the cancellation, not what was found so far.
            return Err(vec![cancelled(bi, f)]);
        }
        match exact::match_exact(&cur, std::slice::from_ref(edit), kind) {
            Ok(p) => {
                let r = p.edits[0];
                let mut next = p.pieces(std::slice::from_ref(edit)).concat();
                let at = r.offset;
                if edit.replace.is_empty() && (at == 0 || next[at - 1] == b'\n') {
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
            text: cur.into_owned(),
            reports,
            one_pass: false,
        })
    } else {
        Err(failures)
    }
}

/// A cancellation (or spent time budget) noticed before block `index`.
pub(crate) fn cancelled(index: usize, f: Failure) -> EditFailure {
    EditFailure {
        index,
        code: f.code,
        match_count: 0,
        match_lines: Vec::new(),
        message: f.message,
        diagnosis: None,
    }
}
