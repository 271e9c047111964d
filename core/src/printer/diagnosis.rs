//! The words of a near-miss diagnosis (`crate::diagnose`): the closest
//! match and its kinds of difference, each with a sentence on where it
//! shows, an edit already applied, and the hint on what to send next.

use super::misses::line_span;
use super::quote::plural;
use crate::model::Said;
use crate::result::diagnosis::Difference;
use crate::text::fold::char_name;

/// A kind of difference in plain words.
fn difference_words(d: Difference) -> &'static str {
    match d {
        Difference::LineEndings => "line endings",
        Difference::Indentation => "indentation",
        Difference::TrailingWhitespace => "trailing whitespace",
        Difference::InvisibleCharacters => "invisible characters",
        Difference::UnicodePunctuation => "typographic punctuation",
        Difference::Escaping => "backslash escaping",
        Difference::Case => "letter case",
        Difference::LineNumbers => "pasted line-number prefixes",
        Difference::Elision => "an elided middle",
        Difference::Content => "content",
    }
}

/// The kinds `kinds` in words, joined: `a`, `a and b`, `a, b and c`.
fn kinds_words(kinds: &[Difference]) -> String {
    let w: Vec<&str> = kinds.iter().map(|&d| difference_words(d)).collect();
    match w.as_slice() {
        [] => String::new(),
        [a] => a.to_string(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// Whitespace `s` (a line's indentation or its trailing whitespace) in
/// words: `none`, `4 spaces`, `1 tab and 2 spaces`.
fn whitespace_words(s: &str) -> String {
    if s.is_empty() {
        return "none".into();
    }
    let tabs = s.chars().filter(|&c| c == '\t').count();
    let spaces = s.chars().count() - tabs;
    let p = |n: usize, w: &str| format!("{n} {w}{}", plural(n));
    match (tabs, spaces) {
        (0, n) => p(n, "space"),
        (n, 0) => p(n, "tab"),
        (t, n) => format!("{} and {}", p(t, "tab"), p(n, "space")),
    }
}

/// Line `line` of the file differs from the block in content.
pub(crate) fn content_differs(line: usize) -> String {
    format!("line {line} of the file has different content")
}

/// The file's line endings are CRLF (`file_crlf`) or LF, the block's
/// (named `block`) the other.
pub(crate) fn line_endings_differ(file_crlf: bool, block: &str) -> String {
    if file_crlf {
        format!("the file uses CRLF (\\r\\n) line endings but {block} uses LF (\\n)")
    } else {
        format!("the file uses LF (\\n) line endings but {block} uses CRLF (\\r\\n)")
    }
}

/// Line `line` is indented with `file` in the file, `sent` in `block`.
pub(crate) fn indented_differently(line: usize, file: &str, sent: &str, block: &str) -> String {
    format!(
        "line {line} is indented with {} in the file but {} in {block}",
        whitespace_words(file),
        whitespace_words(sent)
    )
}

/// Line `line` ends with the whitespace `file` in the file, `sent` in
/// `block`.
pub(crate) fn trailing_differently(line: usize, file: &str, sent: &str, block: &str) -> String {
    format!(
        "line {line} ends with {} of trailing whitespace in the file but {} in {block}",
        whitespace_words(file),
        whitespace_words(sent)
    )
}

/// Line `line` of the file holds the invisible `c` where `block` has a
/// plain space (`space`) or nothing.
pub(crate) fn invisible_in_file(line: usize, c: char, space: bool, block: &str) -> String {
    format!(
        "line {line} of the file contains U+{:04X} ({}) where {block} has {}",
        c as u32,
        char_name(c),
        if space { "a plain space" } else { "nothing" }
    )
}

/// `block` holds the invisible `c`, which line `line` of the file lacks.
pub(crate) fn invisible_in_block(line: usize, c: char, block: &str) -> String {
    format!(
        "{block} contains U+{:04X} ({}) that line {line} of the file does not have",
        c as u32,
        char_name(c)
    )
}

/// Line `line` differs in invisible characters, none of them singled out.
pub(crate) fn invisible_differs(line: usize) -> String {
    format!("line {line} differs in invisible characters")
}

/// Line `line` of the file has the typographic `c` where `block` has the
/// plain `plain`.
pub(crate) fn typographic_in_file(line: usize, c: char, plain: &str, block: &str) -> String {
    format!(
        "line {line} of the file has the typographic character '{c}' (U+{:04X}) where {block} has '{}'",
        c as u32, plain
    )
}

/// `block` has the typographic `c` where line `line` of the file has the
/// plain `plain`.
pub(crate) fn typographic_in_block(line: usize, c: char, plain: &str, block: &str) -> String {
    format!(
        "{block} has the typographic character '{c}' (U+{:04X}) where line {line} of the file has plain '{}'",
        c as u32, plain
    )
}

/// Line `line` differs in punctuation, no character singled out.
pub(crate) fn punctuation_differs(line: usize) -> String {
    format!("line {line} differs in punctuation")
}

/// `block` has `n` more backslashes than line `line` of the file.
pub(crate) fn more_backslashes(block: &str, n: usize, line: usize) -> String {
    format!(
        "{block} has {} more backslash{} than line {line} of the file (over-escaped, e.g. \\\\ or \\\" where the file has \\ or \")",
        n,
        if n == 1 { "" } else { "es" }
    )
}

/// `block` has `n` fewer backslashes than line `line` of the file.
pub(crate) fn fewer_backslashes(block: &str, n: usize, line: usize) -> String {
    format!(
        "{block} has {} fewer backslash{} than line {line} of the file (an escape was lost)",
        n,
        if n == 1 { "" } else { "es" }
    )
}

/// Line `line` differs only in letter case.
pub(crate) fn case_differs(line: usize) -> String {
    format!("line {line} differs only in letter case")
}

/// The search text (named `search`) has literal `\n` where the file has
/// line breaks.
pub(crate) fn escaped_twice(search: &str) -> String {
    format!(
        "{search} has literal \\n sequences where the file has real line breaks (it was escaped twice)"
    )
}

/// The search text (named `search`) carries line-number prefixes, `prefix`
/// on its first line.
pub(crate) fn line_number_prefixes(search: &str, prefix: &str) -> String {
    format!(
        "{search} carries line-number prefixes pasted from a read tool (`{prefix}` on its first line), which are \
         not part of the file"
    )
}

/// The search text (named `search`) leaves lines out, marked `marker`.
pub(crate) fn leaves_lines_out(search: &str, marker: &str) -> String {
    format!(
        "{search} leaves lines out (`{marker}`), but the file has them: closest_match.text is the whole \
         region, elided lines included"
    )
}

/// The clause on an edit whose new text stands at lines `from`-`to`, for
/// formats that word their own failure.
pub(crate) fn applied_summary(from: usize, to: usize) -> String {
    format!(
        "its new text already stands at {} where its old text would be: it appears to be applied already, \
         do not retry it",
        line_span(from, to)
    )
}

/// The clause on the closest text, lines `from`-`to`, `percent` similar,
/// differing in `kinds`, for formats that word their own failure.
pub(crate) fn closest_summary(
    from: usize,
    to: usize,
    percent: u32,
    kinds: &[Difference],
) -> String {
    format!(
        "the closest text is {} ({}% similar), which differs in {}; closest_match.text is its exact current text",
        line_span(from, to),
        percent,
        kinds_words(kinds)
    )
}

/// A block (`pre` its label) not found whose replacement stands exactly
/// once, at lines `from`-`to`.
pub(crate) fn not_found_applied(pre: &str, said: Said, from: usize, to: usize) -> String {
    let (s, r) = (said.search, said.replace);
    format!(
        "{pre}{s} was not found, but {r} already stands exactly once ({}), where \
         {s} would have been: the edit appears to be applied already. Do not retry it; reread {} if \
         unsure",
        line_span(from, to),
        line_span(from, to)
    )
}

/// The region most like a block that was not found, as its message tells
/// it.
pub(crate) struct Near<'a> {
    /// 1-based first and last line.
    pub(crate) from: usize,
    pub(crate) to: usize,
    /// Character similarity, in percent.
    pub(crate) percent: u32,
    /// Each kind of difference, in report order.
    pub(crate) kinds: &'a [Difference],
    /// The detail sentences of the kinds other than content, in order.
    pub(crate) details: &'a [&'a str],
    /// 1-based start lines of other regions exactly as close.
    pub(crate) equally_close: &'a [usize],
    /// Whether resending the edit with `match` tolerances would match it.
    pub(crate) tolerable: bool,
}

/// The sentence on other regions as close, or nothing.
fn equally_close(lines: &[usize]) -> String {
    if lines.is_empty() {
        String::new()
    } else {
        format!(
            " The block matches line{} {} just as closely: include neighbouring lines so the retry is unique.",
            plural(lines.len()),
            lines
                .iter()
                .map(|l| l.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )
    }
}

/// The detail sentences, in parentheses, or nothing.
fn details_clause(details: &[&str]) -> String {
    if details.is_empty() {
        String::new()
    } else {
        format!(" ({})", details.join("; "))
    }
}

/// A block (`pre` its label) not found that `near` matches except for
/// formatting.
pub(crate) fn not_found_formatting(pre: &str, said: Said, near: &Near<'_>) -> String {
    let (s, r) = (said.search, said.replace);
    let where_ = line_span(near.from, near.to);
    let twins = equally_close(near.equally_close);
    let detail = details_clause(near.details);
    let mut next = if near.kinds.contains(&Difference::Elision) {
        format!(
            "An edit replaces exact text and cannot skip lines: retry with closest_match.text (the exact current \
             text of the whole region) as {s} and the same lines, changed, as {r}, or make one edit per part"
        )
    } else {
        format!("Retry with closest_match.text (the exact current text) as {s}")
    };
    if near.tolerable {
        let list: Vec<String> = near
            .kinds
            .iter()
            .map(|d| format!("\"{}\"", d.as_str()))
            .collect();
        next.push_str(&format!(
            ", or resend the same edit with match: [{}]",
            list.join(", ")
        ));
    }
    format!(
        "{pre}{s} was not found exactly: {where_} {} it except for {}{detail}. {next}.{twins}",
        if near.from == near.to {
            "matches"
        } else {
            "match"
        },
        kinds_words(near.kinds)
    )
}

/// A block (`pre` its label) not found that `near` matches only in part:
/// its content differs.
pub(crate) fn not_found_content(pre: &str, said: Said, near: &Near<'_>) -> String {
    let s = said.search;
    let where_ = line_span(near.from, near.to);
    let twins = equally_close(near.equally_close);
    let detail = details_clause(near.details);
    let others: Vec<Difference> = near
        .kinds
        .iter()
        .copied()
        .filter(|&d| d != Difference::Content)
        .collect();
    let also = if others.is_empty() {
        String::new()
    } else {
        format!(", and also in {}{detail}", kinds_words(&others))
    };
    format!(
        "{pre}{s} was not found; the closest text is {where_} ({}% similar), which differs in \
         content{also}: the file has probably changed since it was read, or the block was mistyped. \
         closest_match.text is the current text of {where_}: base {s} on it (reread the file if \
         unsure), then retry.{twins}",
        near.percent
    )
}

/// A block (`label` its label, named `search`) not found in a file too
/// large to look for a near match in.
pub(crate) fn not_found_too_large(label: &str, search: &str) -> String {
    format!(
        "{label}{search} was not found. The file is too large to look for a near match within the \
         diagnosis budget; reread the relevant lines and copy the exact current text (whitespace, indentation \
         and line endings must match byte for byte), then retry"
    )
}
