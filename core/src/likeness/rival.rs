//! Rivals of a tolerant match: another place the block may have been meant
//! for, which makes the match untrustworthy.
//!
//! A tolerant match is unique under its tolerances, but a stale view can
//! make a wrong place unique: the block's own place changed since it was
//! read, so it no longer matches, while a twin elsewhere (the same lines
//! at another depth, or with other trailing whitespace) does. Such a twin
//! is written only if nothing in the file looks more like the block's own
//! place than it does:
//!
//! - more of the block's lines stand somewhere else verbatim (whole lines,
//!   line endings aside) than in the match: the block was copied from
//!   there, and that place has changed since;
//! - or, for a match that needed the indentation tolerance, the region
//!   most like the block elsewhere differs from it in content but is
//!   indented as the block is, while the match is not;
//! - or the lines the edit changes stand verbatim in the region most like
//!   the block elsewhere (a stale view whose own place lost a line since,
//!   while a twin's bare `-` line ends in whitespace the block lacks): the
//!   edit may have been meant for either;
//! - or, for a one-line block matched at another depth, a line at the
//!   block's own depth is much like it (80 % and more) but changed: its
//!   own line, changed since it was read, beside a generic twin;
//! - or the block as sent, whitespace included, starts a line elsewhere,
//!   its last line continued there since it was read, while the match
//!   lacks the whitespace that shows where it was copied from (the last
//!   line's trailing whitespace, or the block's indentation): a twin that
//!   differs from the block only in that whitespace is not its place.

use super::anchors::Scanner;
use super::budget::Budget;
use super::nearest::{closest_match, match_at, Closest};
use super::readings;
use super::stale::{outnumbers, verbatim_lines, verbatim_place};
use super::windows::MIN_SIMILARITY;
use crate::model::Said;
use crate::result::diagnosis::Difference;

/// The indentation of the first line with content.
fn first_lead(t: &str) -> &str {
    t.lines().find(|l| !l.trim().is_empty()).map_or("", |l| {
        &l[..l.len() - l.trim_start_matches([' ', '\t']).len()]
    })
}

/// A rival of the tolerant match of `search` at `exclude` (byte range of
/// `text`), if there is one (see the module docs). `indentation`: the match
/// needed the indentation tolerance.
/// Visible characters the lines an edit changes must have for their
/// standing verbatim elsewhere to make a rival (a lone `}` proves nothing).
const CHANGED_CHARS: usize = 8;

/// The block's lines with content that the replacement does not keep (line
/// endings aside), if they have [`CHANGED_CHARS`] visible characters.
fn changed_lines<'a>(search: &'a str, replace: &str) -> Vec<&'a str> {
    let body = |l: &'a str| l.strip_suffix('\r').unwrap_or(l);
    let kept: std::collections::HashSet<&str> = replace
        .lines()
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect();
    let changed: Vec<&str> = search
        .lines()
        .map(body)
        .filter(|l| l.trim().len() >= 2 && !kept.contains(l))
        .collect();
    let visible = changed
        .iter()
        .flat_map(|l| l.chars())
        .filter(|c| !c.is_whitespace())
        .count();
    if visible >= CHANGED_CHARS {
        changed
    } else {
        Vec::new()
    }
}

/// The last line of `search`, without its line break, ends in whitespace.
fn ends_in_blank(search: &str) -> bool {
    let t = search.strip_suffix('\n').unwrap_or(search);
    let t = t.strip_suffix('\r').unwrap_or(t);
    t.ends_with([' ', '\t'])
}

/// The place where `search` as sent, without its final line break, starts
/// a line outside `exclude` (its last line running on there), when the
/// match at `exclude` lacks the whitespace that place holds: the trailing
/// whitespace of the block's last line, or the block's indentation.
/// Byte range of the place's lines.
fn continued_elsewhere(
    text: &[u8],
    search: &str,
    exclude: (usize, usize),
) -> Option<(usize, usize)> {
    let body = search.strip_suffix('\n').unwrap_or(search);
    let body = body.strip_suffix('\r').unwrap_or(body);
    let visible = body.chars().filter(|c| !c.is_whitespace()).count();
    if visible < CHANGED_CHARS {
        return None;
    }
    let matched = String::from_utf8_lossy(&text[exclude.0..exclude.1]);
    let shows = (ends_in_blank(search) && !matched.contains(body))
        || first_lead(&matched) != first_lead(search);
    if !shows {
        return None;
    }
    let mut forms = vec![body.to_string()];
    if body.contains('\n') && !body.contains("\r\n") {
        forms.push(body.replace('\n', "\r\n"));
    }
    forms.iter().find_map(|f| {
        memchr::memmem::find_iter(text, f.as_bytes())
            .map(|p| (p, p + f.len()))
            .find(|&(a, b)| (a == 0 || text[a - 1] == b'\n') && (b <= exclude.0 || a >= exclude.1))
            .map(|(a, b)| {
                (
                    a,
                    memchr::memchr(b'\n', &text[b..]).map_or(text.len(), |k| b + k + 1),
                )
            })
    })
}

/// How like a one-line block a line at its own depth must be to be its
/// place, changed since it was read.
const SAME_DEPTH_LIKE: f64 = 0.8;
/// Texts up to this size are scanned line by line for it.
const SAME_DEPTH_BYTES: usize = 8 << 20;

/// For a one-line block matched at another depth: a line outside `exclude`
/// indented exactly as the block is, much like it but not it (`j + 2,` for
/// `j + 1,`): the block's own line, changed since it was read, while the
/// match is a twin at another depth (a generic line such as an argument
/// list's `j + 1,` has twins at every depth). Byte range of that line.
fn same_depth_line(
    text: &[u8],
    search: &str,
    exclude: (usize, usize),
    budget: &Budget,
) -> Option<(usize, usize)> {
    let body = search.strip_suffix('\n').unwrap_or(search);
    let body = body.strip_suffix('\r').unwrap_or(body);
    let lead = first_lead(body);
    if body.contains('\n') || lead.is_empty() || body.trim().is_empty() {
        return None;
    }
    if text.len() > SAME_DEPTH_BYTES || budget.spend(text.len() as u64 / 1024 + 1) {
        return None;
    }
    let want = body.trim();
    let mut at = 0;
    for line in text.split_inclusive(|&b| b == b'\n') {
        let range = (at, at + line.len());
        at += line.len();
        if range.1 > exclude.0 && range.0 < exclude.1 {
            continue;
        }
        let Ok(l) = std::str::from_utf8(line) else {
            continue;
        };
        let l = l.trim_end_matches(['\r', '\n']);
        let t = l.trim_start_matches([' ', '\t']);
        if &l[..l.len() - t.len()] != lead
            || t == want
            || t.len().abs_diff(want.len()) * 5 > want.len()
        {
            continue;
        }
        if super::align::char_ratio(want, t.trim_end()) >= SAME_DEPTH_LIKE {
            return Some(range);
        }
    }
    None
}

pub(crate) fn rival(
    text: &[u8],
    search: &str,
    replace: &str,
    exclude: (usize, usize),
    indentation: bool,
    budget: &Budget,
) -> Option<Closest> {
    if let Some(range) = continued_elsewhere(text, search, exclude) {
        return Some(match_at(text, search, range, Said::CANONICAL));
    }
    if let Some(range) = indentation
        .then(|| same_depth_line(text, search, exclude, budget))
        .flatten()
    {
        return Some(match_at(text, search, range, Said::CANONICAL));
    }
    let own = verbatim_lines(search, &text[exclude.0..exclude.1]);
    let content = search.lines().filter(|l| l.trim().len() >= 2).count();
    if let Some((range, _, n)) = verbatim_place(text, search, exclude, budget) {
        let place = match_at(text, search, range, Said::CANONICAL);
        let close = f64::from(place.similarity_milli) >= MIN_SIMILARITY * 1000.0;
        if outnumbers(n, own, content) && close {
            return Some(place);
        }
    }
    let changed = changed_lines(search, replace);
    if !indentation && changed.is_empty() {
        return None;
    }
    // The region most like the block elsewhere, found with the match
    // blanked out.
    let mut blanked = text.to_vec();
    for b in &mut blanked[exclude.0..exclude.1] {
        if *b != b'\n' {
            *b = b' ';
        }
    }
    let mut scanner = Scanner::new(&blanked);
    let (found, _) = readings::best(&mut scanner, search, budget);
    let c = closest_match(&blanked, &found?, Said::CANONICAL)?;
    let content = c.differences.iter().any(|d| d.kind == Difference::Content);
    let close = f64::from(c.similarity_milli) >= MIN_SIMILARITY * 1000.0;
    let matched = String::from_utf8_lossy(&text[exclude.0..exclude.1]);
    let indented_as_block = indentation
        && first_lead(&c.text) == first_lead(search)
        && first_lead(&matched) != first_lead(search);
    let region: std::collections::HashSet<&str> = c
        .text
        .lines()
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect();
    let holds_changed = !changed.is_empty() && changed.iter().all(|l| region.contains(l));
    (close && ((content && indented_as_block) || holds_changed))
        .then(|| match_at(text, search, (c.start, c.end), Said::CANONICAL))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stale_blocks_own_place_is_a_rival_of_a_twin() {
        // The block was copied from lines 5-7 at 8 spaces, whose middle line
        // has changed since; lines 1-3 are the same code at 4 spaces.
        let text = "    a();\n    b();\n    c();\n\n        a();\n        b2();\n        c();\n";
        let block = "        a();\n        b();\n        c();\n";
        let twin = (0, 27);
        let r = rival(
            text.as_bytes(),
            block,
            block,
            twin,
            true,
            &Budget::new(u64::MAX),
        )
        .expect("a rival");
        assert_eq!((r.line_number, r.end_line), (5, 7));
        // No rival when the match is the place most like the block's own.
        let text = "    a();\n    b();\n    c();\n\n        a();\n        b();\n        c();\n";
        let block = "        a();\n        b();\n        c(); \n";
        let own = (28, text.len());
        assert!(rival(
            text.as_bytes(),
            block,
            block,
            own,
            false,
            &Budget::new(u64::MAX)
        )
        .is_none());
    }

    #[test]
    fn a_changed_line_at_the_blocks_own_depth_is_a_rival_of_a_twin() {
        // This repository's stale view: `j + 1,` at 24 spaces became
        // `j + 2,` since it was read; `j + 1,` stands at 20 spaces too.
        let text = "            f(\n                    j + 1,\n            );\n                g(\n                        j + 2,\n                );\n                    h(\n                            j + 1,\n                    );\n";
        let block = "                        j + 1,\n";
        let twin_at = text.find("                    j + 1,").unwrap();
        let twin = (twin_at, twin_at + "                    j + 1,\n".len());
        let r = rival(
            text.as_bytes(),
            block,
            "                        j + 3,\n",
            twin,
            true,
            &Budget::new(u64::MAX),
        )
        .expect("its own line is a rival");
        assert_eq!(r.line_number, 5);
        // Without such a line, no rival.
        let text = "            f(\n                    j + 1,\n            );\n";
        let twin = (14, 14 + "                    j + 1,\n".len());
        assert!(rival(
            text.as_bytes(),
            block,
            "                        j + 3,\n",
            twin,
            true,
            &Budget::new(u64::MAX)
        )
        .is_none());
    }

    #[test]
    fn a_stale_place_with_a_line_inserted_since_is_a_rival() {
        // A public project's stale view: the block's place (4 spaces) had a
        // line inserted between its lines since it was read; the same
        // three generic lines stand 4 spaces deeper elsewhere.
        let own = "    else\n    added();\n    {\n        next_index++;\n    }\n";
        let twin = "        else\n        {\n            next_index++;\n        }\n";
        let deeper =
            "            else\n            {\n                next_index++;\n            }\n";
        let text = format!("{own}\n{twin}\n{deeper}");
        let block = "    else\n    {\n        next_index++;\n";
        let at = own.len() + 1;
        let matched = (
            at,
            at + "        else\n        {\n            next_index++;\n".len(),
        );
        let r = rival(
            text.as_bytes(),
            block,
            "    else\n    {\n        other_index();\n",
            matched,
            true,
            &Budget::new(u64::MAX),
        )
        .expect("its own place is a rival");
        assert_eq!(r.line_number, 1);
    }
}
