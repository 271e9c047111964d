//! The failures of edits and blocks that did not land (`crate::matching`):
//! not found, ambiguous, the wrong count, a tolerant match refused, a plan
//! that failed the check made before writing.

use super::quote::plural;
use crate::model::{
    EditWhy, PlanSide, Said, Tolerance, TolerantNote, Unfitted, Unplaced, Unverified, Withheld,
};

/// The first ten line numbers as `a, b, c, …` (`total` of them in all).
pub(super) fn lines_list(lines: &[usize], total: usize) -> String {
    let mut s = lines
        .iter()
        .take(10)
        .map(|l| l.to_string())
        .collect::<Vec<_>>()
        .join(", ");
    if total > 10 {
        s.push_str(", …");
    }
    s
}

/// ` (lines a, b, …)`, or nothing when no line is known.
fn at_lines(lines: &[usize], total: usize) -> String {
    if lines.is_empty() {
        String::new()
    } else {
        format!(" (lines {})", lines_list(lines, total))
    }
}

/// `line a`, or `lines a-b` for a range of lines from `first` to `last`.
pub(crate) fn line_span(first: usize, last: usize) -> String {
    if first == last {
        format!("line {first}")
    } else {
        format!("lines {first}-{last}")
    }
}

/// The message of an edit that failed to plan, from its facts: `pre`, its
/// label (`edits[2]: `, or nothing when it is the only one), and `said`,
/// the caller's spellings; `why`; the places found (`found`, the first at
/// `lines`); the diagnosis's own message where it says more
/// (`diagnosed`); and what was not checked after the last failure
/// (`unchecked`: at most this many failures, what they are, how many
/// were not checked).
pub(crate) fn edit_miss(
    (pre, said): (&str, Said),
    why: &EditWhy,
    (found, lines): (usize, &[usize]),
    diagnosed: Option<&str>,
    unchecked: Option<(usize, &str, usize)>,
) -> String {
    let mut m = match why {
        EditWhy::NotAscii => edit_not_ascii(pre),
        EditWhy::NotFound { tolerant } => {
            let mut m = diagnosed.map_or_else(|| edit_not_found(pre, said), str::to_string);
            m.push_str(&tolerant_note(said, tolerant));
            m
        }
        EditWhy::Ambiguous { hint } => {
            let mut m = edit_ambiguous(pre, said, found, lines);
            if *hint {
                m.push_str(&unique_context_hint_given());
            }
            m
        }
        EditWhy::CountMismatch { expected, tolerant } => count_mismatch(
            pre,
            said,
            (*expected, found),
            lines,
            &tolerant_note(said, tolerant),
        ),
        EditWhy::TolerantAmbiguous => tolerant_ambiguous(pre, said, found, lines),
        EditWhy::TolerantUncertain { span, why } => {
            tolerant_uncertain(pre, said, &line_span(span.0, span.1), &unfitted(why, said))
        }
        EditWhy::Withheld { why, .. } => match diagnosed {
            Some(d) => d.to_string(),
            None => [pre, withheld(why, said).as_str()].concat(),
        },
        EditWhy::OutOfMemory { size } => edit_out_of_memory(pre, found, *size),
        EditWhy::Unverified(why) => block_failed_check(&unverified(why)),
        EditWhy::BlocksTooLarge { n, len } => blocks_too_large(*n, *len),
        EditWhy::Stopped(s) => super::writes::cancelled(s.timeout_ms).message,
        EditWhy::JoinsWhitespace { line } => joins_whitespace(pre, said, *line),
        EditWhy::SplitsCrlf { line } => splits_crlf(pre, said, *line),
        EditWhy::SplitsCrlfEnd { line } => splits_crlf_end(pre, said, *line),
        EditWhy::JoinsNextLine { line } => joins_next_line(pre, said, *line),
        EditWhy::ReindentsLine { line } => reindents_line(pre, said, *line),
    };
    if let Some((max, what, n)) = unchecked {
        m.push_str(&not_checked_after(max, what, n));
    }
    m
}

/// An edit whose search text starts with the line break that ends `line`,
/// a line of only whitespace, and whose replacement starts indented.
fn joins_whitespace(pre: &str, said: Said, line: usize) -> String {
    format!(
        "{pre}{s} starts with a line break, which ends line {line}, a line of only spaces or tabs; {r} starts \
         with indentation, not a line break, so that line's whitespace and {r}'s indentation would make one \
         line (indented twice). Start {r} with a line break too, or start {s} at the start of a line",
        s = said.search,
        r = said.replace
    )
}

/// An edit whose search text starts with the LF of line `line`'s CRLF,
/// and whose replacement does not start with an LF.
fn splits_crlf(pre: &str, said: Said, line: usize) -> String {
    format!(
        "{pre}{s} starts with an LF, found as the LF of line {line}'s CRLF line break; {r} does not start with \
         one, so a lone CR would be left in the file. Start {s} at the start of a line (with the file's CRLF \
         line breaks), or start {r} with an LF too",
        s = said.search,
        r = said.replace
    )
}

/// An edit whose search text ends with the CR of line `line`'s CRLF, and
/// whose replacement does not end with a CR.
fn splits_crlf_end(pre: &str, said: Said, line: usize) -> String {
    format!(
        "{pre}{s} ends with a CR, found as the CR of line {line}'s CRLF line break; {r} does not end with one, \
         so a lone LF would be left in the file (line {line} ending in LF among CRLF lines). End {s} before \
         the CR, or with the whole CRLF and {r} with the line break it should have",
        s = said.search,
        r = said.replace
    )
}

/// An edit whose search text ends with a line break, and whose replacement
/// does not, found where line `line` after it has text.
fn joins_next_line(pre: &str, said: Said, line: usize) -> String {
    format!(
        "{pre}{s} ends with a line break but {r} does not, so line {line} would be joined to the last line of \
         {r}. End {r} with a line break too, or leave the break out of {s}",
        s = said.search,
        r = said.replace
    )
}

fn reindents_line(pre: &str, said: Said, line: usize) -> String {
    format!(
        "{pre}{s} ends inside the indentation of line {line} and {r} does not end with the same line break and \
         spaces, so line {line} would lose its indentation. End {s} and {r} at the line break, or end {r} with the \
         same spaces",
        s = said.search,
        r = said.replace
    )
}

/// What follows a failed edit's message about the tolerances of `match`.
fn tolerant_note(said: Said, note: &TolerantNote) -> String {
    match note {
        TolerantNote::Nothing => String::new(),
        TolerantNote::NotEither => not_found_tolerant_either(),
        TolerantNote::NotText => {
            " (the tolerances of `match` read text, and this file is not valid UTF-8: send its exact bytes, \
             line endings included)"
                .to_string()
        }
        TolerantNote::WouldFind { n, lines } => {
            tolerances_not_applied(said, &tolerant_would_find(*n, lines))
        }
    }
}

/// The label of edit `index` of several, before its message (`edits[2]: `).
pub(crate) fn edit_prefix(index: usize) -> String {
    format!("{}: ", super::request::item_label("edits", index))
}

/// What follows the first failure when `max` edits or blocks (`what`)
/// failed and the `unchecked` after the last of them were not checked.
fn not_checked_after(max: usize, what: &str, unchecked: usize) -> String {
    format!(" ({max} {what}s failed; the {unchecked} after the last of them were not checked)")
}

/// What the tolerances of `match` would find for an edit of several
/// occurrences: `n` places (0, 1 or more), starting at `lines`.
fn tolerant_would_find(n: usize, lines: &[usize]) -> String {
    match n {
        0 => "no match with them either".to_string(),
        1 => format!("with them it would occur once (line {})", lines[0]),
        _ => format!("with them it would occur {n} times{}", at_lines(lines, n)),
    }
}

/// The tolerances of `match` were not applied to an edit of several
/// occurrences; with them, it would find `found` (from
/// [`tolerant_would_find`]).
fn tolerances_not_applied(said: Said, found: &str) -> String {
    format!(
        " (the tolerances of `match` apply only to an edit of one occurrence, not to {} above 1 or {}, so this edit \
         was matched exactly; {found})",
        said.expected, said.all
    )
}

/// An edit (labelled `pre`) that is not ASCII in a file that is not valid
/// UTF-8.
fn edit_not_ascii(pre: &str) -> String {
    format!(
        "{pre}the file is not valid UTF-8, so only ASCII search and replacement text can be applied at byte level; \
         narrow the block to ASCII-only text"
    )
}

/// An edit's search text was not found (before any diagnosis).
fn edit_not_found(pre: &str, said: Said) -> String {
    format!(
        "{pre}{} was not found. Reread the file and copy the exact current text \
         (whitespace, indentation and line endings must match byte for byte), then retry",
        said.search
    )
}

/// What follows a not-found edit of one occurrence that the tolerances of
/// `match` did not find either.
fn not_found_tolerant_either() -> String {
    " (no match with the tolerances of `match` either)".to_string()
}

/// An edit's search text occurs `found` times, at `lines`.
fn edit_ambiguous(pre: &str, said: Said, found: usize, lines: &[usize]) -> String {
    format!(
        "{pre}{} occurs {found} times (lines {}); include neighbouring lines to make it unique, \
         or set {}: {found} / {}: true to change every occurrence",
        said.search,
        lines_list(lines, found),
        said.expected,
        said.all
    )
}

/// What follows an ambiguous edit that has unique-context hints.
fn unique_context_hint_given() -> String {
    "; unique_context_hint gives, for each occurrence, the smallest block with neighbouring \
     lines that occurs only once"
        .to_string()
}

/// An edit expecting `n` occurrences found `found` (the first at
/// `lines`); `untolerated` is what the tolerances of `match` would do, or
/// nothing.
fn count_mismatch(
    pre: &str,
    said: Said,
    (n, found): (usize, usize),
    lines: &[usize],
    untolerated: &str,
) -> String {
    format!(
        "{pre}expected {n} occurrence{} of {} but found {found}{}; reread the file, then \
         fix the block or {}{untolerated}",
        plural(n),
        said.search,
        at_lines(lines, found),
        said.expected,
    )
}

/// An edit not found exactly occurs `n` times (at `lines`) with the
/// tolerances of `match`.
fn tolerant_ambiguous(pre: &str, said: Said, n: usize, lines: &[usize]) -> String {
    format!(
        "{pre}{} was not found exactly, and with the tolerances of `match` it occurs {n} times{}; \
         include neighbouring lines to make it unique",
        said.search,
        at_lines(lines, n)
    )
}

/// An edit not found exactly matches `span` with the tolerances of
/// `match`, but its replacement cannot be fitted (`reason`).
fn tolerant_uncertain(pre: &str, said: Said, span: &str, reason: &str) -> String {
    format!(
        "{pre}{s} was not found exactly; with the tolerances of `match` it matches {span}, but {reason}, so \
         the replacement cannot be fitted to the file with certainty and nothing was applied. Reread {span} \
         and send {s} and {r} with the file's exact indentation",
        s = said.search,
        r = said.replace
    )
}

/// The text after an edit of `hits` replacements would be `size` bytes
/// (`None`: more than the machine can address), which could not be
/// allocated.
fn edit_out_of_memory(pre: &str, hits: usize, size: Option<usize>) -> String {
    let size = match size {
        Some(n) => format!("{n} bytes"),
        None => "more bytes than this machine can address".to_string(),
    };
    format!(
        "{pre}the text after this edit ({hits} replacement{}) would be {size}, and that much memory could \
         not be allocated; nothing was written. Free memory, or make the change in smaller parts",
        plural(hits)
    )
}

/// A tolerant match at `span` refused: the replacement already stands
/// exactly at `at`, outside it.
fn applied_elsewhere(said: Said, span: &str, at: &str) -> String {
    format!(
        "{s} was not found exactly; with the tolerances of `match` it matches {span}, but {r} already stands \
         exactly at {at}, so the edit may have been applied there already; nothing was applied. Reread both \
         places; if the edit is still needed, resend it with the exact current text of {span} as {s}",
        s = said.search,
        r = said.replace
    )
}

/// A tolerant match at `span` refused: the replacement already stands
/// exactly at `at`, inside it.
fn applied_inside(said: Said, span: &str, at: &str) -> String {
    format!(
        "{s} was not found exactly; with the tolerances of `match` it matches {span}, but {r} already stands \
         exactly at {at}, inside that region, so the edit may have been applied there already; nothing was \
         applied. Reread {span}; if the edit is still needed, resend it with the exact current text of {span} \
         as {s}",
        s = said.search,
        r = said.replace
    )
}

/// A tolerant match at `span` refused: the deletion's kept lines stand
/// there, beside another blank line.
fn deleted_blank_elsewhere(said: Said, span: &str) -> String {
    format!(
        "{s} was not found exactly; with the tolerances of `match` it matches {span}, but {r} already stands \
         exactly there and the blank line {s} deletes is another blank line in the file, so the edit may have \
         been applied already; nothing was applied. Reread {span}; if the edit is still needed, resend it with \
         the exact current text of {span} as {s}",
        s = said.search,
        r = said.replace
    )
}

/// A tolerant match at `span` refused: the edit's two texts differ only in
/// what the tolerances it needed (`with`) forgive.
fn own_replacement(said: Said, span: &str, with: &[Tolerance]) -> String {
    let names: Vec<&str> = with.iter().map(|t| t.as_str()).collect();
    format!(
        "{s} was not found exactly; with the tolerances of `match` it matches {span}, but {s} and {r} differ \
         only in what those tolerances forgive ({}), so {span} may already be {r} (the edit applied) as much as \
         {s}: nothing was applied. Reread {span}; if the edit is still needed, resend it with the exact current \
         text of {span} as {s}",
        names.join(", "),
        s = said.search,
        r = said.replace
    )
}

/// A tolerant match at `span` refused: the block has only `chars`
/// characters besides whitespace (`alphanumeric`: some a letter or digit).
fn too_little_text(said: Said, span: &str, chars: usize, alphanumeric: bool) -> String {
    let words = if alphanumeric {
        ""
    } else {
        ", no letter or digit"
    };
    format!(
        "{} was not found exactly; with the tolerances of `match` it matches {span}, but it has too \
         little text ({chars} characters besides whitespace{words}) to tell its place at another indentation, so \
         the replacement cannot be fitted to the file with certainty and nothing was applied. Send the exact \
         current text of {span} with its indentation, or include neighbouring lines",
        said.search,
    )
}

/// A tolerant match at `span` refused: `other` (`one_line`: a single
/// line) is much like the block too, `milli` thousandths similar.
fn rival(said: Said, span: &str, other: &str, one_line: bool, milli: u32) -> String {
    format!(
        "{} matches {span} with the tolerances of `match`, but {other} {} much like it too ({}% similar, \
         with more of its lines as sent, or the lines the edit changes): the block may have been meant for either, so \
         nothing was applied. Reread both places and send the exact current text of the one meant, with enough \
         neighbouring lines to tell them apart",
        said.search,
        if one_line { "is" } else { "are" },
        milli / 10
    )
}

/// A tolerant match at `span` whose fitted replacement failed the plan
/// check (`reason`).
fn fitted_failed_check(said: Said, span: &str, reason: &str) -> String {
    format!(
        "{s} matches {span} with the tolerances of `match`, but the replacement fitted to those lines \
         failed the check made before writing ({reason}); nothing was written. Resend the edit with the exact current \
         text of {span} as {s} (closest_match.text)",
        s = said.search
    )
}

/// A block's replacement, fitted to the file's line breaks, failed the
/// plan check (`why`).
fn block_failed_check(why: &str) -> String {
    format!(
        "the block's replacement, fitted to the file's line breaks, failed the check made before writing ({why}); \
         nothing was written"
    )
}

/// The text after `n` blocks would be `len` bytes, which could not be
/// allocated.
fn blocks_too_large(n: usize, len: usize) -> String {
    format!(
        "the text after {n} blocks would be {len} bytes, and that much memory could not be allocated; \
         nothing was written. Free memory, or make the change in smaller parts"
    )
}

/// A caller's line for a message: trimmed, its first 60 characters, in
/// backticks.
fn show_line(s: &str) -> String {
    let t: String = s.trim().chars().take(60).collect();
    if t.len() < s.trim().len() {
        format!("`{t}…`")
    } else {
        format!("`{t}`")
    }
}

/// Why a caller's line has no certain indentation in the file: it is
/// indented like block lines that the file indents in `n` different ways.
fn indented_like_several(n: usize) -> String {
    format!("is indented like block lines that the file indents in {n} different ways")
}

/// … indented relative to block lines that the file indents in `n`
/// different ways.
fn indented_relative_to_several(n: usize) -> String {
    format!("is indented relative to block lines that the file indents in {n} different ways")
}

/// … indented `cols` columns from a block line, not a whole number of the
/// block's `block_step`-column steps, where the file's are `file_step`.
fn indented_part_of_step(cols: usize, block_step: usize, file_step: usize) -> String {
    format!(
        "is indented {cols} columns from a block line, not a whole number of the block's {block_step}-column \
         indentation steps, and the file indents in {file_step}-column steps"
    )
}

/// … indented left of the file's first column.
fn indented_left_of_file() -> String {
    "is indented left of the file's first column once mapped to the file's indentation".to_string()
}

/// … at a depth the search text's lines do not show, which show one
/// depth only.
fn indented_without_step(said: Said) -> String {
    format!(
        "is at a depth the lines of {} do not show, and they show one depth only, so the file's step for it is \
         not known",
        said.search
    )
}

/// … placed among lines of the search text that the file nests
/// otherwise.
fn nested_otherwise(said: Said) -> String {
    format!(
        "has no certain indentation: the lines of {} nest otherwise than the file's (one steps in \
         where the other stays level)",
        said.search
    )
}

/// … indented like the first line of the search text, which was sent
/// without the file's indentation, where the other lines disagree.
fn indented_like_stripped_first(said: Said) -> String {
    format!(
        "is indented like the first line of {}, which was sent without the indentation the file \
         gives it, and the block's other lines put that column at another depth in the file",
        said.search
    )
}

/// Line `j` (0-based) of the replacement, `line`, has no certain
/// indentation in the file (`why`, from the functions above).
fn replacement_line_unplaced(said: Said, j: usize, line: &str, why: &str) -> String {
    format!(
        "line {} of {} ({}) {why}",
        j + 1,
        said.replace,
        show_line(line)
    )
}

/// Line `j` (0-based) of the replacement, `line`, keeps the text of line
/// `i` of the search text but indents it in another style (`styles`: the
/// replacement line's, then the search line's: tabs, spaces, or both).
fn converts_indentation(
    said: Said,
    (j, line): (usize, &str),
    i: usize,
    styles: (&str, &str),
) -> String {
    format!(
        "line {} of {} ({}) keeps the text of line {} of {} but indents it with {} where that line has {}: \
         the edit converts the block's indentation, so its lines cannot be re-indented in the file's \
         style with certainty",
        j + 1,
        said.replace,
        show_line(line),
        i + 1,
        said.search,
        styles.0,
        styles.1
    )
}

/// Line `j` (0-based) of the replacement, `line`, repeats line `i` of the
/// search text where the match starts inside a line.
fn repeats_line_inside(said: Said, (j, line): (usize, &str), i: usize) -> String {
    format!(
        "line {} of {} ({}) repeats line {} of {} where the match starts inside a \
         line, so it cannot be kept as the file has it",
        j + 1,
        said.replace,
        show_line(line),
        i + 1,
        said.search
    )
}

/// A line's bytes for a message: its first 60 characters, escaped, in
/// backticks.
fn show_bytes(b: &[u8]) -> String {
    let s = String::from_utf8_lossy(b);
    let t: String = s.chars().take(60).collect();
    if t.len() < s.len() {
        format!("`{}…`", t.escape_debug())
    } else {
        format!("`{}`", t.escape_debug())
    }
}

/// Why a unique tolerant match is not written, in the caller's spellings
/// `said` (without the edit's label).
pub(crate) fn withheld(why: &Withheld, said: Said) -> String {
    let lines = |(a, b): (usize, usize)| line_span(a, b);
    match why {
        Withheld::AppliedElsewhere { span, at } => {
            applied_elsewhere(said, &lines(*span), &lines(*at))
        }
        Withheld::AppliedInside { span, at } => applied_inside(said, &lines(*span), &lines(*at)),
        Withheld::DeletedBlankElsewhere { span } => deleted_blank_elsewhere(said, &lines(*span)),
        Withheld::OwnReplacement { span, matched_with } => {
            own_replacement(said, &lines(*span), matched_with)
        }
        Withheld::TooLittleText {
            span,
            chars,
            alphanumeric,
        } => too_little_text(said, &lines(*span), *chars, *alphanumeric),
        Withheld::Rival {
            span,
            other,
            one_line,
            similarity_milli,
        } => rival(
            said,
            &lines(*span),
            &lines(*other),
            *one_line,
            *similarity_milli,
        ),
        Withheld::Unverified { span, why } => {
            fitted_failed_check(said, &lines(*span), &unverified(why))
        }
    }
}

/// Why a tolerant match's replacement cannot be fitted, in the caller's
/// spellings `said`.
pub(crate) fn unfitted(why: &Unfitted, said: Said) -> String {
    match why {
        Unfitted::Unplaced { j, line, why } => {
            let why = match *why {
                Unplaced::LikeSeveral(n) => indented_like_several(n),
                Unplaced::RelativeToSeveral(n) => indented_relative_to_several(n),
                Unplaced::PartOfStep {
                    cols,
                    block_step,
                    file_step,
                } => indented_part_of_step(cols, block_step, file_step),
                Unplaced::LeftOfFile => indented_left_of_file(),
                Unplaced::NoStep => indented_without_step(said),
                Unplaced::NestedOtherwise => nested_otherwise(said),
                Unplaced::LikeStrippedFirst => indented_like_stripped_first(said),
            };
            replacement_line_unplaced(said, *j, line, &why)
        }
        Unfitted::Restyled { j, line, i, styles } => {
            converts_indentation(said, (*j, line), *i, *styles)
        }
        Unfitted::RepeatsInside { j, line, i } => repeats_line_inside(said, (*j, line), *i),
        Unfitted::TooLarge { lines } => format!(
            "{} and {} ({lines} lines) differ too much to pair their lines in time; send the \
             exact text, or smaller edits",
            said.search, said.replace
        ),
    }
}

/// The plan check's words for why a change failed it.
pub(crate) fn unverified(why: &Unverified) -> String {
    let side = |s: &PlanSide| match s {
        PlanSide::Replaced => "the text replaced",
        PlanSide::Written => "the text written",
    };
    match why {
        Unverified::LineCount {
            side: s,
            lines,
            callers,
        } => format!(
            "{} has {lines} line{} where the caller's text has {callers}",
            side(s),
            plural(*lines),
        ),
        Unverified::LineText {
            side: s,
            i,
            line,
            callers,
        } => format!(
            "line {} of {} ({}) is not the caller's line ({}) under the tolerated differences",
            i + 1,
            side(s),
            show_bytes(line),
            show_bytes(callers)
        ),
        Unverified::LineEnd {
            side: s,
            i,
            end,
            callers,
        } => format!(
            "line {} of {} ends with {end} where the caller's line ends with {callers}",
            i + 1,
            side(s),
        ),
        Unverified::TakesBreakWrites => {
            "a change that takes the line break after it must write nothing".to_string()
        }
        Unverified::TakesBreakMidLine => {
            "a block that takes its line break must start a line".to_string()
        }
        Unverified::TakesBreakNone => {
            "a change that takes the line break after it does not end with one after the caller's text"
                .to_string()
        }
        Unverified::AddsBreakNotLast => {
            "a line break is added only after a last line that has none".to_string()
        }
        Unverified::AddedBreakMissing => {
            "the line break added after the last line is missing".to_string()
        }
        Unverified::KeptLine {
            j,
            written: (line, end),
            file: (file, file_end),
        } => format!(
            "line {} of the text written ({} with {end}) is a line the caller did not change, but it is not the \
             file's line ({} with {file_end})",
            j + 1,
            show_bytes(line),
            show_bytes(file),
        ),
        Unverified::EndingNotUsed { j, end } => format!(
            "line {} of the text written ends with {end}, which the file does not use",
            j + 1,
        ),
        Unverified::LoneCr => {
            "the text written leaves a carriage return without its line feed (a lone CR or CR CR LF)"
                .to_string()
        }
        Unverified::OutOfBounds { start, end } => {
            format!("the change of bytes {start}..{end} is out of order or out of bounds")
        }
    }
}
