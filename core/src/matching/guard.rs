//! The checks a unique tolerant match must pass before it is written.
//!
//! A tolerant match is found by relaxing the comparison, so it can be
//! unique and still wrong: the edit may already have landed elsewhere (the
//! replacement stands exactly there, and writing it again would make it
//! twice), a block of lone braces or punctuation alone matches at any depth
//! once indentation is tolerated, another place may hold more of the block's lines verbatim
//! than the place the tolerances chose, and the fitted replacement may
//! touch bytes the caller did not mean to change. Each of these is refused
//! here, with the error code and the facts (a [`Withheld`]: which lines,
//! which other place) from which the printer words what the caller needs to
//! resend the edit; nothing reaches the file unless the plan passes
//! [`verify::verify`], however it was found.

use crate::error::ErrorCode;
use crate::likeness::{self, Budget};
use crate::matching::tolerant::{self, TolerantMatch};
use crate::matching::verify::{self, Change, Fold};
use crate::model::{Edit, Tolerance, Withheld};
use crate::text::lines::{line_numbers, span_lines};

/// Why a unique tolerant match is not written.
#[derive(Debug)]
pub(crate) struct Refusal {
    pub(crate) code: ErrorCode,
    /// The 1-based lines reported as matches (empty when none is claimed).
    pub(crate) lines: Vec<usize>,
    /// Why, as facts (the printer words them, without the edit's prefix).
    pub(crate) why: Withheld,
    /// The refusal says the edit may already have been applied: the
    /// diagnosis's own message is used when it proves so.
    pub(crate) applied: bool,
}

/// The refusal of the tolerant match `m` of `edit` in `base`, if any (see
/// the module docs), the checks in the order their messages are most
/// useful.
pub(crate) fn refusal(
    base: &[u8],
    edit: &Edit,
    m: &TolerantMatch,
    budget: &Budget,
) -> Option<Refusal> {
    let span = span_lines(base, m.start, m.end);
    applied_elsewhere(base, edit, m, span)
        .or_else(|| own_replacement(edit, m, span))
        .or_else(|| replacement_inside(base, edit, m, span))
        .or_else(|| too_little_text(edit, m, span))
        .or_else(|| rival(base, edit, m, span, budget))
        .or_else(|| unverified(base, edit, m, span))
}

/// The replacement already stands exactly outside the matched region, once
/// or more (an edit sent again whose block, re-indented, still matches a
/// twin at another depth). (One inside it is no sign of it: a deletion
/// leaves part of its block.)
fn applied_elsewhere(
    base: &[u8],
    edit: &Edit,
    m: &TolerantMatch,
    span: (usize, usize),
) -> Option<Refusal> {
    let (a, b) = likeness::replacement_at(base, &edit.search, &edit.replace)
        .filter(|&(a, b)| a < m.start || b > m.end)
        .or_else(|| {
            likeness::replacement_outside(base, &edit.search, &edit.replace, (m.start, m.end))
        })?;
    Some(Refusal {
        code: ErrorCode::SEARCH_BLOCK_NOT_FOUND,
        lines: Vec::new(),
        why: Withheld::AppliedElsewhere {
            span,
            at: span_lines(base, a, b),
        },
        applied: true,
    })
}

/// The replacement stands exactly inside the matched region, and it is not
/// text of the block as sent (what a deletion leaves of its block): the
/// region holds the edit's result, so the edit may have landed there (sent
/// again, an edit that re-indents lines and drops a blank line above them
/// matches the blank line left and the lines it moved, and would drop that
/// one too).
fn replacement_inside(
    base: &[u8],
    edit: &Edit,
    m: &TolerantMatch,
    span: (usize, usize),
) -> Option<Refusal> {
    // (Whole lines of the block: `        a();` is no part of `            a();`.)
    let lf = |t: &str| t.replace("\r\n", "\n");
    let (search, replace) = (lf(&edit.search), lf(&edit.replace));
    if search
        .match_indices(replace.as_str())
        .any(|(k, _)| k == 0 || search.as_bytes()[k - 1] == b'\n')
    {
        return deleted_blank_elsewhere(base, edit, m, span);
    }
    let (a, b) = likeness::replacement_at(base, &edit.search, &edit.replace)
        .filter(|&(a, b)| a >= m.start && b <= m.end)?;
    Some(Refusal {
        code: ErrorCode::SEARCH_BLOCK_NOT_FOUND,
        lines: Vec::new(),
        why: Withheld::AppliedInside {
            span,
            at: span_lines(base, a, b),
        },
        applied: true,
    })
}

/// A deletion whose kept lines stand in the region exactly while a blank
/// line it deletes (with whitespace in it) is another blank line there: the
/// region is the edit's result beside a neighbouring blank line, so the edit
/// may have landed (sent again, an edit that dropped a whitespace-only line
/// above `if (…)` matches the empty line above it under
/// `trailing_whitespace`, and would drop that one too). A model that lost
/// the whitespace of the line it deletes sends it empty: not this.
fn deleted_blank_elsewhere(
    base: &[u8],
    edit: &Edit,
    m: &TolerantMatch,
    span: (usize, usize),
) -> Option<Refusal> {
    fn lines(t: &str) -> Vec<&str> {
        t.split_inclusive('\n')
            .map(|l| l.trim_end_matches(['\n', '\r']))
            .collect()
    }
    let (search, replace) = (lines(&edit.search), lines(&edit.replace));
    let region = lines(std::str::from_utf8(base.get(m.start..m.end)?).ok()?);
    let r = replace.len();
    if r == 0 || region.len() != search.len() || r >= search.len() {
        return None;
    }
    let blank = |l: &str| l.trim().is_empty();
    let k = (0..=search.len() - r)
        .find(|&k| search[k..k + r] == replace[..] && region[k..k + r] == replace[..])?;
    let differs: Vec<usize> = (0..search.len())
        .filter(|&i| (i < k || i >= k + r) && region[i] != search[i])
        .collect();
    if differs.is_empty()
        || !differs
            .iter()
            .all(|&i| blank(region[i]) && blank(search[i]) && !search[i].is_empty())
    {
        return None;
    }
    Some(Refusal {
        code: ErrorCode::SEARCH_BLOCK_NOT_FOUND,
        lines: Vec::new(),
        why: Withheld::DeletedBlankElsewhere { span },
        applied: true,
    })
}

/// The edit changes nothing but what the tolerances it needed forgive (a
/// re-indentation matched with `indentation`, trailing whitespace dropped
/// matched with `trailing_whitespace`, a line's ending converted matched
/// with `line_endings`): the region it matched is then its replacement as
/// much as its search text, so the edit may well have landed there already
/// (sent again, it would be applied a second time: two lines re-indented
/// from 4 to 8 spaces, matched on the lines it moved, would go to 12). A
/// tolerant match never lands on text that is the edit's own replacement.
fn own_replacement(edit: &Edit, m: &TolerantMatch, span: (usize, usize)) -> Option<Refusal> {
    // (An edit that changes nothing lands the same anywhere.)
    if edit.search == edit.replace
        || !tolerant::same_under(&edit.search, &edit.replace, &m.matched_with)
    {
        return None;
    }
    Some(Refusal {
        code: ErrorCode::SEARCH_BLOCK_NOT_FOUND,
        lines: Vec::new(),
        why: Withheld::OwnReplacement {
            span,
            matched_with: m.matched_with.clone(),
        },
        applied: true,
    })
}

/// A block of lone characters or of punctuation alone (closing braces and
/// the like: `}`, `},`, `});`) matches at any depth: too little to be
/// placed at another indentation with certainty (a stale view's `},` finds
/// the one `},` left at another depth).
fn too_little_text(edit: &Edit, m: &TolerantMatch, span: (usize, usize)) -> Option<Refusal> {
    let indentation = m.matched_with.contains(&Tolerance::Indentation);
    let bare = |l: &str| {
        let t = l.trim();
        t.chars().count() <= 1 || !t.chars().any(char::is_alphanumeric)
    };
    if !(indentation && edit.search.lines().all(bare)) {
        return None;
    }
    let text: Vec<char> = edit.search.chars().filter(|c| !c.is_whitespace()).collect();
    let alphanumeric = text.iter().any(|c| c.is_alphanumeric());
    Some(Refusal {
        code: ErrorCode::SEARCH_BLOCK_NOT_FOUND,
        lines: Vec::new(),
        why: Withheld::TooLittleText {
            span,
            chars: text.len(),
            alphanumeric,
        },
        applied: false,
    })
}

/// Another place is much like the block too, with more of its lines as
/// sent: the block may have been meant for either.
fn rival(
    base: &[u8],
    edit: &Edit,
    m: &TolerantMatch,
    span: (usize, usize),
    budget: &Budget,
) -> Option<Refusal> {
    let indentation = m.matched_with.contains(&Tolerance::Indentation);
    let r = likeness::rival(
        base,
        &edit.search,
        &edit.replace,
        (m.start, m.end),
        indentation,
        budget,
    )?;
    let mut lines = vec![line_numbers(base, &[m.start])[0], r.line_number];
    lines.sort_unstable();
    Some(Refusal {
        code: ErrorCode::SEARCH_BLOCK_AMBIGUOUS,
        lines,
        why: Withheld::Rival {
            span,
            other: span_lines(base, r.start, r.end),
            one_line: r.line_number == r.end_line,
            similarity_milli: r.similarity_milli,
        },
        applied: false,
    })
}

/// The fitted replacement fails the plan check.
fn unverified(
    base: &[u8],
    edit: &Edit,
    m: &TolerantMatch,
    span: (usize, usize),
) -> Option<Refusal> {
    let change = Change {
        start: m.start,
        end: m.end,
        new: m.replacement.as_bytes(),
        search: &edit.search,
        replace: &edit.replace,
        fold: Fold::tolerances(&m.matched_with),
        takes_break: false,
        adds_break: false,
    };
    let r = verify::verify(base, &[change]).err()?;
    Some(Refusal {
        code: ErrorCode::PLAN_CHECK_FAILED,
        lines: Vec::new(),
        why: Withheld::Unverified { span, why: r.why },
        applied: false,
    })
}
