//! The failures of patch hunks that did not land (`crate::matching`'s
//! locating of hunks): an `@@` line or a hunk's old lines not found, or
//! found in several places, or the lines it would write refused.

use super::misses::lines_list;
use super::quote::plural;
use crate::model::{Said, Stopped, Unfitted, Unverified};
use crate::result::formats::HunkLevel;

/// Why a hunk did not land: the facts `matching::locate` finds, which
/// [`hunk_miss`] words. Lines are 1-based unless said otherwise.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum HunkWhy {
    /// It adds lines that are not ASCII, and the file is not valid UTF-8.
    NotAscii,
    /// It only adds lines, after its header's line (`after`), which is
    /// past the end of a file of `past` lines (`Some`), or covered by an
    /// earlier hunk (`None`).
    AdditionMisplaced {
        after: HeaderLine,
        past: Option<usize>,
    },
    /// Its `@@ anchor` line occurs several times after line `from` (at
    /// `level`).
    AnchorAmbiguous {
        anchor: String,
        from: usize,
        level: HunkLevel,
    },
    /// Its `@@ anchor` line is nowhere after line `from`.
    AnchorNotFound { anchor: String, from: usize },
    /// Its old lines match several places (at `level`), none of which
    /// starts at a unified header's line (`header`); `hint`: the header's
    /// line of a diff that is not unified, which chooses nothing.
    Ambiguous {
        level: HunkLevel,
        header: Option<HeaderLine>,
        hint: Option<usize>,
    },
    /// Its old lines fit one place only under a tolerance (`level`), and
    /// another place is much like them too: more of its lines as they are,
    /// or at their own indentation (`lines`: the fit, the other).
    Rival { level: HunkLevel },
    /// Its `count` old lines, the first `first`, are nowhere after line
    /// `after` (0: from the start; `at_eof`: at the end of the file);
    /// `hint`: its header's line.
    NotFound {
        first: String,
        count: usize,
        after: usize,
        at_eof: bool,
        hint: Option<usize>,
    },
    /// The lines it would write failed the check made before writing.
    Unverified(Unverified),
    /// Its old lines were found with their indentation forgiven, and one
    /// of its new lines has no certain indentation in the file.
    Unfitted(Unfitted),
    /// Its first line carries the file's byte order mark, but it matches
    /// at `line`, not line 1.
    BomNotFirst { line: usize },
    /// The call was cancelled or ran out of time before it.
    Stopped(Stopped),
}

/// A header's line `said`, 0-based `line` once shifted by `shift` (how far
/// the previous hunk was found from its own header's line).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct HeaderLine {
    pub(crate) said: usize,
    pub(crate) line: isize,
    pub(crate) shift: isize,
}

/// The message of hunk `index` (0-based), from patch line `patch_line`,
/// that failed for `why`; its places `(count, lines)` when it matched
/// several, and the diagnosis's summary of the closest place when there
/// is one (`summary`).
pub(crate) fn hunk_miss(
    (index, patch_line): (usize, usize),
    why: &HunkWhy,
    (count, lines): (usize, &[usize]),
    summary: Option<&str>,
) -> String {
    let label = hunk_label(index, patch_line);
    let shifted = |h: &HeaderLine| shifted_line(h.said, h.line, h.shift);
    match why {
        HunkWhy::NotAscii => hunk_not_ascii(&label),
        HunkWhy::AdditionMisplaced { after, past } => {
            addition_misplaced(&label, &shifted(after), *past)
        }
        HunkWhy::AnchorAmbiguous {
            anchor,
            from,
            level,
        } => anchor_ambiguous(&label, anchor, (count, *from), *level, lines),
        HunkWhy::AnchorNotFound { anchor, from } => anchor_not_found(&label, anchor, *from),
        HunkWhy::Rival { level } => hunk_rival(&label, *level, lines),
        HunkWhy::Ambiguous {
            level,
            header,
            hint,
        } => hunk_ambiguous(
            &label,
            (count, *level),
            lines,
            header.as_ref().map(shifted).as_deref(),
            *hint,
        ),
        HunkWhy::NotFound {
            first,
            count,
            after,
            at_eof,
            hint,
        } => hunk_not_found(&label, (first, *count), (*after, *at_eof), *hint, summary),
        HunkWhy::Unverified(why) => hunk_failed_check(&label, &super::misses::unverified(why)),
        HunkWhy::Unfitted(why) => hunk_unfitted(&label, &super::misses::unfitted(why, Said::HUNK)),
        HunkWhy::BomNotFirst { line } => bom_hunk_not_first(index, patch_line, *line),
        HunkWhy::Stopped(s) => format!(
            "{label}: {}",
            super::writes::cancelled(s.timeout_ms).message
        ),
    }
}

/// The words for a level in a message.
fn words(l: HunkLevel) -> &'static str {
    match l {
        HunkLevel::Exact => "exactly",
        HunkLevel::TrailingWhitespace => "ignoring trailing whitespace",
        HunkLevel::SurroundingWhitespace => "ignoring surrounding whitespace",
        HunkLevel::UnicodePunctuation => "ignoring whitespace and Unicode punctuation",
    }
}

/// A patch line for a message: its first 80 characters.
fn show(s: &str) -> String {
    let t: String = s.chars().take(80).collect();
    if t.len() < s.len() {
        format!("{t}…")
    } else {
        t
    }
}

/// The label of hunk `index` (0-based) from patch line `patch_line`.
fn hunk_label(index: usize, patch_line: usize) -> String {
    format!("hunk {} (patch line {patch_line})", index + 1)
}

/// A header's line `s` (0-based `q` after the previous hunk's `shift`).
fn shifted_line(s: usize, q: isize, shift: isize) -> String {
    if shift == 0 {
        format!("line {s}")
    } else {
        format!(
            "line {s} (line {} after the {:+} line shift at which the previous hunk was found)",
            q + 1,
            shift
        )
    }
}

/// Hunk `label` adds lines that are not ASCII to a file that is not valid
/// UTF-8.
fn hunk_not_ascii(label: &str) -> String {
    format!(
        "{label}: the file is not valid UTF-8, so only ASCII lines can be added at byte level; \
         keep the added lines ASCII"
    )
}

/// Hunk `label` only adds lines, after its header's line (`after`, as
/// [`shifted_line`] names it), which is past the end of a file of `past`
/// lines (`Some`) or covered by an earlier hunk (`None`).
fn addition_misplaced(label: &str, after: &str, past: Option<usize>) -> String {
    let why = match past {
        Some(n) => format!("the file has {n} lines"),
        None => "an earlier hunk already covers that line".to_string(),
    };
    format!(
        "{label}: the hunk only adds lines, after {after}, but {why}; a hunk without context is \
         placed by its line number, so regenerate the diff against the current file",
    )
}

/// Hunk `label`'s `@@ anchor` line occurs `count` times after line `pos`
/// (at `level`, on `lines`).
fn anchor_ambiguous(
    label: &str,
    anchor: &str,
    (count, pos): (usize, usize),
    level: HunkLevel,
    lines: &[usize],
) -> String {
    format!(
        "{label}: the `@@ {}` line occurs {count} times after line {pos} ({}, lines {}); add an \
         outer `@@` line or more context to make it unique",
        show(anchor),
        words(level),
        lines_list(lines, count)
    )
}

/// Hunk `label`'s `@@ anchor` line is nowhere after line `pos`.
fn anchor_not_found(label: &str, anchor: &str, pos: usize) -> String {
    format!(
        "{label}: the `@@ {}` line was not found after line {pos}, even ignoring whitespace \
         and Unicode punctuation; reread the file and fix the `@@` line",
        show(anchor)
    )
}

/// Hunk `label`'s old lines match `count` places (at `level`, on `lines`):
/// none starts at a unified header's line (`header`, as [`shifted_line`]
/// names it), or the header's line `hint` of a diff that is not unified
/// chose nothing.
/// A hunk whose old lines fit `lines[0]` only `level`, while `lines[1]`
/// is much like them as they are.
fn hunk_rival(label: &str, level: HunkLevel, lines: &[usize]) -> String {
    let (fit, other) = (
        lines.first().copied().unwrap_or(0),
        lines.get(1).copied().unwrap_or(0),
    );
    format!(
        "{label}: its context and removed lines fit line {fit} only {}, but line {other} is much like them too: \
         the hunk may have been meant for either, so nothing was applied. Reread both places and send the exact current lines of the one meant, with enough \
         context to tell them apart",
        words(level)
    )
}

fn hunk_ambiguous(
    label: &str,
    (count, level): (usize, HunkLevel),
    lines: &[usize],
    header: Option<&str>,
    hint: Option<usize>,
) -> String {
    let fix = if header.is_some() {
        "Add context lines to make it unique, or give the line number where the intended place starts"
    } else {
        "Add context lines (or an `@@` line naming the enclosing function) to make it unique"
    };
    let why = match (header, hint) {
        (Some(line), _) => format!(
            ", and none of them starts at the header's {line}, so the line number cannot choose"
        ),
        (None, Some(s)) => {
            format!("; the header's line {s} is only a hint and does not choose between them")
        }
        (None, None) => String::new(),
    };
    format!(
        "{label}: its context and removed lines match {count} places ({}, lines {}){why}; nothing \
         was applied. {fix}",
        words(level),
        lines_list(lines, count),
    )
}

/// Hunk `label`'s old lines (context and removed; `lines` of them, the
/// first `first`) are nowhere after line `after` (0: from the start;
/// `at_eof`: only at the end of the file);
/// `hint` is the header's line, `summary` the diagnosis's, if any.
fn hunk_not_found(
    label: &str,
    (first, lines): (&str, usize),
    (after, at_eof): (usize, bool),
    hint: Option<usize>,
    summary: Option<&str>,
) -> String {
    let hint = match hint {
        Some(s) => format!(" (the header says line {s})"),
        None => String::new(),
    };
    let after = if after > 0 {
        format!(" after line {after}")
    } else {
        String::new()
    };
    let closest = match summary {
        Some(sum) => format!("; {sum}"),
        None => ". Reread the file and copy the current lines".to_string(),
    };
    format!(
        "{label}: the {} context/removed line{} starting with `{}` {} not found{after}{hint}{}, \
         even ignoring whitespace and Unicode punctuation{closest}",
        lines,
        plural(lines),
        show(first),
        if lines == 1 { "was" } else { "were" },
        if at_eof {
            " at the end of the file"
        } else {
            ""
        },
    )
}

/// Hunk `label`'s lines failed the check made before writing (`reason`).
fn hunk_failed_check(label: &str, reason: &str) -> String {
    format!(
        "{label}: the lines it would write failed the check made before writing ({reason}); \
         nothing was written. Reread the file and make the hunk's context lines its exact current lines"
    )
}

/// Hunk `label` was found with its indentation forgiven, and a new line of
/// it has no certain indentation (`reason`).
fn hunk_unfitted(label: &str, reason: &str) -> String {
    format!(
        "{label}: its lines match the file only with their indentation forgiven, and {reason}; \
         nothing was written. Reread the file and send the hunk's lines at the file's indentation"
    )
}

/// Hunk `index` (0-based; from patch line `patch_line`) starts with the
/// byte order mark but matched at line `line`.
fn bom_hunk_not_first(index: usize, patch_line: usize, line: usize) -> String {
    format!(
        "hunk {} (patch line {patch_line}): its first line carries the file's byte order mark, so it must be line \
         1, but the hunk matches at line {line}; reread the file and regenerate the diff",
        index + 1,
    )
}
