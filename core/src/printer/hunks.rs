//! The failures of patch hunks that did not land (`crate::matching`'s
//! locating of hunks): an `@@` line or a hunk's old lines not found, or
//! found in several places, or the lines it would write refused.

use super::misses::lines_list;
use super::quote::plural;
use crate::result::formats::HunkLevel;

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
pub(crate) fn hunk_label(index: usize, patch_line: usize) -> String {
    format!("hunk {} (patch line {patch_line})", index + 1)
}

/// A header's line `s` (0-based `q` after the previous hunk's `shift`).
pub(crate) fn shifted_line(s: usize, q: isize, shift: isize) -> String {
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
pub(crate) fn hunk_not_ascii(label: &str) -> String {
    format!(
        "{label}: the file is not valid UTF-8, so only ASCII lines can be added at byte level; \
         keep the added lines ASCII"
    )
}

/// Hunk `label` only adds lines, after its header's line (`after`, as
/// [`shifted_line`] names it), which is past the end of a file of `past`
/// lines (`Some`) or covered by an earlier hunk (`None`).
pub(crate) fn addition_misplaced(label: &str, after: &str, past: Option<usize>) -> String {
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
pub(crate) fn anchor_ambiguous(
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
pub(crate) fn anchor_not_found(label: &str, anchor: &str, pos: usize) -> String {
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
pub(crate) fn hunk_ambiguous(
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

/// Hunk `label`'s `old` lines (context and removed) are nowhere after line
/// `after` (0: from the start; `at_eof`: only at the end of the file);
/// `hint` is the header's line, `summary` the diagnosis's, if any.
pub(crate) fn hunk_not_found(
    label: &str,
    old: &[&str],
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
        old.len(),
        plural(old.len()),
        show(old[0]),
        if old.len() == 1 { "was" } else { "were" },
        if at_eof {
            " at the end of the file"
        } else {
            ""
        },
    )
}

/// Hunk `label`'s lines failed the check made before writing (`reason`).
pub(crate) fn hunk_failed_check(label: &str, reason: &str) -> String {
    format!(
        "{label}: the lines it would write failed the check made before writing ({reason}); \
         nothing was written. Reread the file and make the hunk's context lines its exact current lines"
    )
}
