//! The last check before a plan is written: the new text must be what the
//! caller asked for, judged from the caller's own texts, whatever planner
//! found the place and built the bytes.
//!
//! Exact matching needs no second opinion (the bytes written are the
//! caller's replacement, at the one place its search block occurs). Every
//! other planner adapts something: tolerant matching re-indents lines and
//! keeps file bytes the caller's copy lost, hunks keep the file's context
//! lines and give added lines the file's line endings, blocks follow the
//! file's line breaks. Adapting is where a wrong byte can slip in (a line
//! ending split in two, a context line given another ending), and a wrong
//! byte written is worse than a refusal. So each change a plan makes is
//! checked here, with code that shares nothing with the planners:
//!
//! 1. the changes are in bounds and in order, so every byte outside them
//!    is the file's (the writer composes the new text from exactly these
//!    changes);
//! 2. the text replaced equals the caller's search text, line by line,
//!    under exactly the differences the plan says it tolerated ([`Fold`]);
//! 3. the text written equals the caller's replacement the same way;
//! 4. every line the caller did not change (a line of its replacement equal
//!    to a line of its search text, ending included) is written as the file
//!    has that line, byte for byte;
//! 5. every line ending written is one the file already uses (or, when the
//!    plan does not tolerate line-ending differences, the one the caller
//!    wrote for that line), and a plan that adapted the caller's text leaves
//!    no carriage return without its line feed (a lone CR, or CR CR LF)
//!    unless the caller's replacement has it or the file has such endings.
//!
//! A change that fails is refused ([`Refused`]: which change, and why as
//! facts, a [`Unverified`] naming the line, which the printer words where
//! the refusal becomes a failure) and nothing is written.

use std::borrow::Cow;

use crate::model::{MatchMode, PlanSide, Tolerance, Unverified};
use crate::text::fold::{punct_ascii, unicode_space};
use crate::text::lines::line_start;

/// Which whitespace a fold trims from one end of each line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Trim {
    No,
    /// Spaces and tabs (the `match` tolerances).
    SpacesTabs,
    /// Any Unicode whitespace (hunk locating).
    Whitespace,
}

/// The differences a plan tolerated between the caller's text and the
/// file's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Fold {
    /// CRLF against LF.
    pub(crate) line_endings: bool,
    /// Whether the last line has a line break (hunks compare lines
    /// without their breaks).
    pub(crate) final_break: bool,
    pub(crate) trailing: Trim,
    pub(crate) leading: Trim,
    /// Typographic punctuation against ASCII.
    pub(crate) punctuation: bool,
    /// Unicode spaces against a plain space.
    pub(crate) unicode_spaces: bool,
}

impl Fold {
    /// No difference tolerated.
    pub(crate) const EXACT: Fold = Fold {
        line_endings: false,
        final_break: false,
        trailing: Trim::No,
        leading: Trim::No,
        punctuation: false,
        unicode_spaces: false,
    };

    /// The differences the tolerances `ts` forgive.
    pub(crate) fn tolerances(ts: &[Tolerance]) -> Fold {
        let m = MatchMode::with(ts);
        let trim = |t| if m.has(t) { Trim::SpacesTabs } else { Trim::No };
        Fold {
            line_endings: m.has(Tolerance::LineEndings),
            trailing: trim(Tolerance::TrailingWhitespace),
            leading: trim(Tolerance::Indentation),
            punctuation: m.has(Tolerance::UnicodePunctuation),
            ..Fold::EXACT
        }
    }

    fn is_exact(self) -> bool {
        self == Fold::EXACT
    }
}

/// One change of a plan: `text[start..end]` becomes `new`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Change<'a> {
    pub(crate) start: usize,
    pub(crate) end: usize,
    pub(crate) new: &'a [u8],
    /// The caller's text that named the place (search block, a hunk's old
    /// side) and the text it wants there.
    pub(crate) search: &'a str,
    pub(crate) replace: &'a str,
    /// What the plan tolerated between them and the file.
    pub(crate) fold: Fold,
    /// An empty replacement that also removes the line break after the
    /// block (SEARCH/REPLACE, `str_replace`).
    pub(crate) takes_break: bool,
    /// `new` starts with the line break the file's last line lacked (lines
    /// appended after it).
    pub(crate) adds_break: bool,
}

/// Why a plan was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Refused {
    /// Index of the change.
    pub(crate) change: usize,
    pub(crate) why: Unverified,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ending {
    None,
    Lf,
    Crlf,
}

impl Ending {
    fn name(self) -> &'static str {
        match self {
            Ending::None => "no line break",
            Ending::Lf => "LF",
            Ending::Crlf => "CRLF",
        }
    }
}

/// A line: its content (a lone CR stays in it) and its ending.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Ln<'a> {
    body: &'a [u8],
    end: Ending,
}

fn lines(t: &[u8]) -> Vec<Ln<'_>> {
    let mut out = Vec::new();
    let mut at = 0;
    for i in memchr::memchr_iter(b'\n', t) {
        let (body, end) = if i > at && t[i - 1] == b'\r' {
            (&t[at..i - 1], Ending::Crlf)
        } else {
            (&t[at..i], Ending::Lf)
        };
        out.push(Ln { body, end });
        at = i + 1;
    }
    if at < t.len() {
        out.push(Ln {
            body: &t[at..],
            end: Ending::None,
        });
    }
    out
}

fn trim(s: &str, t: Trim, start: bool) -> &str {
    let ws = |c: char| match t {
        Trim::No => false,
        Trim::SpacesTabs => c == ' ' || c == '\t',
        Trim::Whitespace => c.is_whitespace(),
    };
    if start {
        s.trim_start_matches(ws)
    } else {
        s.trim_end_matches(ws)
    }
}

/// A line's content with the differences of `f` folded away.
fn folded(body: &[u8], f: Fold) -> Cow<'_, [u8]> {
    if f.is_exact() {
        return Cow::Borrowed(body);
    }
    let Ok(s) = std::str::from_utf8(body) else {
        // Not text: only ASCII whitespace can be trimmed.
        let mut b = body;
        if f.trailing != Trim::No {
            b = b.trim_ascii_end();
        }
        if f.leading != Trim::No {
            b = b.trim_ascii_start();
        }
        return Cow::Borrowed(b);
    };
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match punct_ascii(c) {
            Some(a) if f.punctuation => out.push_str(a),
            _ if f.unicode_spaces && unicode_space(c) => out.push(' '),
            _ => out.push(c),
        }
    }
    let t = trim(trim(&out, f.trailing, false), f.leading, true);
    Cow::Owned(t.as_bytes().to_vec())
}

/// `lines` without a last line that has no break and nothing left once
/// folded (whitespace a tolerance drops), which a text ending with a break
/// matches.
fn trimmed<'a, 'b>(lines: &'b [Ln<'a>], f: Fold) -> &'b [Ln<'a>] {
    match lines.split_last() {
        Some((l, rest))
            if l.end == Ending::None && !f.is_exact() && folded(l.body, f).is_empty() =>
        {
            rest
        }
        _ => lines,
    }
}

/// Whether two texts' lines are the same under `f` (rules 2 and 3).
fn same_under(a: &[Ln<'_>], b: &[Ln<'_>], f: Fold, side: PlanSide) -> Result<(), Unverified> {
    let (a, b) = if a.len() != b.len() {
        (trimmed(a, f), trimmed(b, f))
    } else {
        (a, b)
    };
    if a.len() != b.len() {
        return Err(Unverified::LineCount {
            side,
            lines: a.len(),
            callers: b.len(),
        });
    }
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        if folded(x.body, f) != folded(y.body, f) {
            return Err(Unverified::LineText {
                side,
                i,
                line: x.body.to_vec(),
                callers: y.body.to_vec(),
            });
        }
        let last = i + 1 == a.len();
        let ends_agree = if last && f.final_break {
            true
        } else if f.line_endings {
            (x.end == Ending::None) == (y.end == Ending::None)
        } else {
            x.end == y.end
        };
        if !ends_agree {
            return Err(Unverified::LineEnd {
                side,
                i,
                end: x.end.name(),
                callers: y.end.name(),
            });
        }
    }
    Ok(())
}

/// Whether `text` has a line ending `e` somewhere (searched only when the
/// region and the caller's texts did not show it already).
fn file_uses(text: &[u8], e: Ending) -> bool {
    memchr::memchr_iter(b'\n', text).any(|i| {
        let crlf = i > 0 && text[i - 1] == b'\r';
        (e == Ending::Crlf) == crlf
    })
}

/// Carriage returns not followed by a line feed.
fn lone_crs(t: &[u8]) -> usize {
    memchr::memchr_iter(b'\r', t)
        .filter(|&i| t.get(i + 1) != Some(&b'\n'))
        .count()
}

/// The text a change replaces and the text it writes, without the line
/// break a block takes with it or the one added after a last line.
fn bodies<'a>(text: &'a [u8], c: &Change<'a>) -> Result<(&'a [u8], &'a [u8]), Unverified> {
    let mut region = &text[c.start..c.end];
    if c.takes_break {
        if !c.new.is_empty() || !c.replace.is_empty() {
            return Err(Unverified::TakesBreakWrites);
        }
        if c.start > 0 && text[c.start - 1] != b'\n' {
            return Err(Unverified::TakesBreakMidLine);
        }
        // The break taken is a CRLF or an LF (after a search text that
        // itself ends with the CR): whichever leaves the caller's text.
        let search = lines(c.search.as_bytes());
        region = [&b"\r\n"[..], b"\n"]
            .into_iter()
            .filter_map(|b| region.strip_suffix(b))
            .find(|r| same_under(&lines(r), &search, c.fold, PlanSide::Replaced).is_ok())
            .ok_or(Unverified::TakesBreakNone)?;
    }
    let mut new = c.new;
    if c.adds_break {
        if c.start != text.len() || text.last().is_none_or(|&b| b == b'\n') {
            return Err(Unverified::AddsBreakNotLast);
        }
        new = new
            .strip_prefix(b"\r\n")
            .or_else(|| new.strip_prefix(b"\n"))
            .ok_or(Unverified::AddedBreakMissing)?;
    }
    Ok((region, new))
}

fn is_last(ls: &[Ln<'_>], k: usize) -> bool {
    k + 1 == ls.len()
}

/// Two line endings agree: the same, or one of them none at the end of its
/// text (it stops where the text stops).
fn ends_agree(a: Ending, b: Ending, at_end: bool) -> bool {
    a == b || (at_end && (a == Ending::None || b == Ending::None))
}

/// For each line of the caller's replacement, the line of its search text
/// it keeps: an alignment of the two by their text (a line that recurs
/// among new lines is not taken for the kept one), the endings agreeing.
/// A line whose ending the caller changed (CRLF in its search text, LF in
/// its replacement: a line converted) is a changed line, even where the
/// plan tolerates line-ending differences between the caller and the file.
fn kept_lines(s: &[Ln<'_>], p: &[Ln<'_>]) -> Vec<Option<usize>> {
    let mut kept_at: Vec<Option<usize>> = vec![None; p.len()];
    let (sb, pb): (Vec<&[u8]>, Vec<&[u8]>) = (
        s.iter().map(|l| l.body).collect(),
        p.iter().map(|l| l.body).collect(),
    );
    for op in crate::text::diff_ops::diff(&sb, &pb, None) {
        if let similar::DiffOp::Equal {
            old_index,
            new_index,
            len,
        } = op
        {
            for k in 0..len {
                let (i, j) = (old_index + k, new_index + k);
                if ends_agree(s[i].end, p[j].end, is_last(s, i) || is_last(p, j)) {
                    kept_at[j] = Some(i);
                }
            }
        }
    }
    kept_at
}

/// Rule 4: lines the caller kept are the file's, byte for byte (a line that
/// was the file's last, without a break, may gain one when lines are added
/// after it). Lines are compared whole: the first line of a change that
/// starts inside a line continues the text before it, the last of one that
/// ends inside a line goes on with the text after it.
fn check_kept(text: &[u8], c: &Change<'_>, [r, s, n, p]: [&[Ln<'_>]; 4]) -> Result<(), Unverified> {
    let line_start = line_start(text, c.start);
    let line_end = memchr::memchr(b'\n', &text[c.end..]).map_or(text.len(), |k| c.end + k);
    let after = &text[c.end..line_end];
    let (before, after) = (
        &text[line_start..c.start],
        after.strip_suffix(b"\r").unwrap_or(after),
    );
    let whole = |ls: &[Ln<'_>], k: usize| -> Vec<u8> {
        let l = &ls[k];
        let mut v = Vec::with_capacity(l.body.len() + before.len() + after.len());
        if k == 0 {
            v.extend_from_slice(before);
        }
        v.extend_from_slice(l.body);
        if is_last(ls, k) && l.end == Ending::None {
            v.extend_from_slice(after);
        }
        v
    };
    for (j, kept) in kept_lines(s, p).into_iter().enumerate().take(n.len()) {
        let Some(i) = kept.filter(|&i| i < r.len()) else {
            continue;
        };
        let (w, we) = (whole(n, j), n[j].end);
        // Where the file's line differs from the caller's (in what the plan
        // tolerated), it is written as the file has it, whole; where it does
        // not, the two are the same text. (Its text after the change, when
        // the change ends inside a line, is whatever that line goes on with:
        // compared without it where the line starts where the file's does.)
        let text_ok = whole(r, i) == w
            || ((i == 0) == (j == 0) && n[j].body == r[i].body)
            || (r[i].body == s[i].body && n[j].body == p[j].body);
        let fe = r[i].end;
        let gains = fe == Ending::None && c.end == text.len() && !is_last(n, j);
        if !(text_ok && (ends_agree(fe, we, is_last(r, i) || is_last(n, j)) || gains)) {
            return Err(Unverified::KeptLine {
                j,
                written: (w, we.name()),
                file: (whole(r, i), fe.name()),
            });
        }
    }
    Ok(())
}

/// Rule 5: every line ending written is one the file uses (or, for a plan
/// that does not tolerate line endings, the caller's own), and an adapted
/// plan leaves no lone CR.
fn check_endings(
    text: &[u8],
    c: &Change<'_>,
    r: &[Ln<'_>],
    n: &[Ln<'_>],
    p: &[Ln<'_>],
) -> Result<(), Unverified> {
    let seen = |e: Ending| r.iter().any(|l| l.end == e);
    for (j, w) in n.iter().enumerate() {
        if w.end == Ending::None {
            continue;
        }
        let callers = !c.fold.line_endings && p.get(j).is_some_and(|l| l.end == w.end);
        // A file without any line break takes the default, LF.
        let default = w.end == Ending::Lf && memchr::memchr(b'\n', text).is_none();
        if !(callers || default || seen(w.end) || file_uses(text, w.end)) {
            return Err(Unverified::EndingNotUsed {
                j,
                end: w.end.name(),
            });
        }
    }
    // A lone CR: an exact change writes the caller's bytes as asked (its
    // search text may end inside a CRLF); an adapted one must not leave a
    // CR the caller did not write, unless the file has such line endings.
    let lo = c.start.saturating_sub(1);
    let hi = (c.end + 1).min(text.len());
    let window = [&text[lo..c.start], c.new, &text[c.end..hi]].concat();
    if !c.fold.is_exact()
        && lone_crs(&window) > lone_crs(&text[lo..hi]) + lone_crs(c.replace.as_bytes())
        && lone_crs(text) == 0
    {
        return Err(Unverified::LoneCr);
    }
    Ok(())
}

/// Checks one change (rules 2 to 5).
fn check(text: &[u8], c: &Change<'_>) -> Result<(), Unverified> {
    let (region, new) = bodies(text, c)?;
    let (r, s, n, p) = (
        lines(region),
        lines(c.search.as_bytes()),
        lines(new),
        lines(c.replace.as_bytes()),
    );
    same_under(&r, &s, c.fold, PlanSide::Replaced)?;
    same_under(&n, &p, c.fold, PlanSide::Written)?;
    check_kept(text, c, [&r, &s, &n, &p])?;
    check_endings(text, c, &r, &n, &p)
}

/// Checks every change of a plan over `text` (see the module docs).
pub(crate) fn verify(text: &[u8], changes: &[Change<'_>]) -> Result<(), Refused> {
    let mut at = 0;
    for (k, c) in changes.iter().enumerate() {
        if c.start < at || c.end < c.start || c.end > text.len() {
            return Err(Refused {
                change: k,
                why: Unverified::OutOfBounds {
                    start: c.start,
                    end: c.end,
                },
            });
        }
        check(text, c).map_err(|why| Refused { change: k, why })?;
        at = c.end;
    }
    Ok(())
}

/// `text` with `changes` (checked by [`verify`]) applied.
pub(crate) fn compose(text: &[u8], changes: &[Change<'_>]) -> Vec<u8> {
    let added: usize = changes.iter().map(|c| c.new.len()).sum();
    let mut out = Vec::with_capacity(text.len() + added);
    let mut at = 0;
    for c in changes {
        out.extend_from_slice(&text[at..c.start]);
        out.extend_from_slice(c.new);
        at = c.end;
    }
    out.extend_from_slice(&text[at..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change<'a>(
        text: &'a str,
        region: &str,
        new: &'a str,
        search: &'a str,
        replace: &'a str,
        fold: Fold,
    ) -> (usize, Change<'a>) {
        let start = text.find(region).expect("region in text");
        (
            start,
            Change {
                start,
                end: start + region.len(),
                new: new.as_bytes(),
                search,
                replace,
                fold,
                takes_break: false,
                adds_break: false,
            },
        )
    }

    fn verdict(text: &str, c: Change<'_>) -> Result<(), String> {
        verify(text.as_bytes(), &[c]).map_err(|r| crate::printer::unverified(&r.why))
    }

    const LE: Fold = Fold {
        line_endings: true,
        ..Fold::EXACT
    };

    #[test]
    fn a_crlf_split_in_two_is_refused() {
        // The region starts between the CR and the LF of line 2.
        let text = "a;\r\n\r\nb\r\nc\r\n";
        let c = Change {
            start: 5,
            end: 9,
            new: b"\r\nB\r\n",
            search: "\nb\n",
            replace: "\nB\n",
            fold: LE,
            takes_break: false,
            adds_break: false,
        };
        assert_eq!(&text.as_bytes()[5..9], b"\nb\r\n");
        assert!(verdict(text, c).is_err());
        // The whole line endings: accepted.
        let (_, c) = change(text, "\r\nb\r\n", "\r\nB\r\n", "\nb\n", "\nB\n", LE);
        assert_eq!(verdict(text, c), Ok(()));
    }

    #[test]
    fn kept_lines_keep_the_file_bytes() {
        let text = "a\r\nb\nc\r\nd\n";
        // Line `b` kept but given CRLF: refused.
        let (_, c) = change(text, "b\nc\r\n", "b\r\nC\r\n", "b\nc\n", "b\nC\n", LE);
        let why = verdict(text, c).unwrap_err();
        assert!(why.contains("did not change"), "{why}");
        let (_, c) = change(text, "b\nc\r\n", "b\nC\r\n", "b\nc\n", "b\nC\n", LE);
        assert_eq!(verdict(text, c), Ok(()));
    }

    #[test]
    fn a_line_whose_ending_the_caller_converts_is_a_changed_line() {
        // A hunk of a mixed file converting `{` from CRLF to LF: the caller
        // changed that line (its ending), even where the plan tolerates
        // line-ending differences between the caller and the file.
        let text = "a\r\n{\r\nb\n";
        let (_, c) = change(text, "{\r\nb\n", "{\nB\n", "{\r\nb\n", "{\nB\n", LE);
        assert_eq!(verdict(text, c), Ok(()));
        // A line kept as the caller's texts have it is still the file's.
        let (_, c) = change(text, "{\r\nb\n", "{\nB\n", "{\r\nb\n", "{\r\nB\n", LE);
        assert!(verdict(text, c).unwrap_err().contains("did not change"));
    }

    #[test]
    fn the_text_written_must_be_the_callers_under_the_tolerances() {
        let text = "x = “a”  \ny = 1\n";
        let f = Fold::tolerances(&[Tolerance::TrailingWhitespace, Tolerance::UnicodePunctuation]);
        let region = "x = “a”  \ny = 1\n";
        // The kept line as the file has it, the changed one as sent.
        let (_, c) = change(
            text,
            region,
            "x = “a”  \ny = 2\n",
            "x = \"a\"\ny = 1\n",
            "x = \"a\"\ny = 2\n",
            f,
        );
        assert_eq!(verdict(text, c), Ok(()));
        // A line other than the caller's.
        let (_, c) = change(
            text,
            region,
            "x = “a”  \ny = 3\n",
            "x = \"a\"\ny = 1\n",
            "x = \"a\"\ny = 2\n",
            f,
        );
        assert!(verdict(text, c)
            .unwrap_err()
            .contains("not the caller's line"));
        // Only the tolerances used: without punctuation, the curly line is
        // not the block's.
        let f2 = Fold::tolerances(&[Tolerance::TrailingWhitespace]);
        let (_, c) = change(
            text,
            region,
            "x = “a”  \ny = 2\n",
            "x = \"a\"\ny = 1\n",
            "x = \"a\"\ny = 2\n",
            f2,
        );
        assert!(verdict(text, c).unwrap_err().contains("text replaced"));
        // A line dropped.
        let (_, c) = change(
            text,
            region,
            "y = 2\n",
            "x = \"a\"\ny = 1\n",
            "x = \"a\"\ny = 2\n",
            f,
        );
        assert!(verdict(text, c).is_err());
    }

    #[test]
    fn line_endings_must_be_the_files_or_the_callers() {
        // An LF line written into a CRLF file under the line-ending
        // tolerance: refused; the caller's own CRLF in an exact plan: kept.
        let text = "a\r\nb\r\n";
        let (_, c) = change(text, "b\r\n", "B\n", "b\n", "B\n", LE);
        assert!(verdict(text, c).unwrap_err().contains("does not use"));
        let (_, c) = change(text, "a\r\n", "a\n", "a\r\n", "a\n", Fold::EXACT);
        assert_eq!(verdict(text, c), Ok(()));
        // A lone CR the caller did not write: refused from an adapted plan;
        // an exact one writes what the caller's block says.
        let (_, c) = change(text, "\nb", "", "\nb", "", LE);
        assert!(verdict(text, c).unwrap_err().contains("lone CR"));
        let (_, c) = change(text, "\nb", "", "\nb", "", Fold::EXACT);
        assert_eq!(verdict(text, c), Ok(()));
        // ...and so does an adapted one in a file that has lone CRs.
        let lone = "a\rb\r\nc\r\n";
        let (_, c) = change(lone, "\nc", "", "\nc", "", LE);
        assert_eq!(verdict(lone, c), Ok(()));
    }

    #[test]
    fn blocks_that_take_their_break_and_appends_after_a_last_line() {
        let text = "a\nb\nc";
        let c = Change {
            start: 2,
            end: 4,
            new: b"",
            search: "b",
            replace: "",
            fold: Fold::EXACT,
            takes_break: true,
            adds_break: false,
        };
        assert_eq!(verify(text.as_bytes(), &[c]), Ok(()));
        assert!(verify(
            text.as_bytes(),
            &[Change {
                start: 1,
                end: 4,
                ..c
            }]
        )
        .is_err());
        let c = Change {
            start: 5,
            end: 5,
            new: b"\nd\n",
            search: "",
            replace: "d\n",
            fold: Fold::EXACT,
            takes_break: false,
            adds_break: true,
        };
        assert_eq!(verify(text.as_bytes(), &[c]), Ok(()));
        assert_eq!(compose(text.as_bytes(), &[c]), b"a\nb\nc\nd\n");
        // Out of order.
        let d = Change {
            start: 0,
            end: 1,
            new: b"A",
            search: "a",
            replace: "A",
            ..c
        };
        let d = Change {
            adds_break: false,
            ..d
        };
        assert!(verify(text.as_bytes(), &[c, d]).is_err());
    }
}
