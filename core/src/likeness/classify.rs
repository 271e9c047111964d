//! Classifying differences: which kinds separate the block from the
//! region found, line by line, each with a sentence (worded by the
//! printer) about where it shows.

use similar::DiffTag;

use super::align::align;
use super::keys::key_vec;
use crate::printer;
use crate::result::diagnosis::Difference;
use crate::text::fold::{invisible, punct_ascii};

/// Differing line pairs examined one by one for their kinds.
const MAX_CLASSIFIED_LINES: usize = 512;

const MASK_KINDS: [Difference; 6] = [
    Difference::TrailingWhitespace,
    Difference::Indentation,
    Difference::InvisibleCharacters,
    Difference::UnicodePunctuation,
    Difference::Escaping,
    Difference::Case,
];

/// `line` with the differences of the kinds in `mask` (bits of
/// [`MASK_KINDS`]) normalized away.
fn normalize(line: &str, mask: u8) -> String {
    let has =
        |k: Difference| mask & (1 << MASK_KINDS.iter().position(|&m| m == k).unwrap_or(0)) != 0;
    let mut out = String::with_capacity(line.len());
    for c in line.chars() {
        if has(Difference::InvisibleCharacters) {
            match invisible(c) {
                Some(true) => {
                    out.push(' ');
                    continue;
                }
                Some(false) => continue,
                None => {}
            }
        }
        if has(Difference::UnicodePunctuation) {
            if let Some(s) = punct_ascii(c) {
                out.push_str(s);
                continue;
            }
        }
        if has(Difference::Escaping) && c == '\\' {
            continue;
        }
        if has(Difference::Case) {
            out.extend(c.to_lowercase());
        } else {
            out.push(c);
        }
    }
    let ws = |c: char| c == ' ' || c == '\t';
    let mut s: &str = &out;
    if has(Difference::TrailingWhitespace) {
        s = s.trim_end_matches(ws);
    }
    if has(Difference::Indentation) {
        s = s.trim_start_matches(ws);
    }
    s.to_string()
}

/// The smallest set of kinds (bits of [`MASK_KINDS`]) that explains the
/// difference between two lines, or `None` when only content explains it.
fn line_kinds(a: &str, b: &str) -> Option<u8> {
    let mut masks: Vec<u8> = (1..64).collect();
    masks.sort_by_key(|m| (m.count_ones(), *m));
    masks
        .into_iter()
        .find(|&m| normalize(a, m) == normalize(b, m))
}

/// A kind found, with a sentence about the first place it shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seen {
    pub kind: Difference,
    pub(crate) detail: String,
}

fn lead(s: &str) -> &str {
    &s[..s.len() - s.trim_start_matches([' ', '\t']).len()]
}

fn trail(s: &str) -> &str {
    &s[s.trim_end_matches([' ', '\t']).len()..]
}

/// The sentence on where `kind` shows between the block's line `s` and the
/// file's line `f` (line `line`), the block named `block`.
fn detail_for(kind: Difference, s: &str, f: &str, line: usize, block: &str) -> String {
    match kind {
        Difference::Indentation => printer::indented_differently(line, lead(f), lead(s), block),
        Difference::TrailingWhitespace => {
            printer::trailing_differently(line, trail(f), trail(s), block)
        }
        Difference::InvisibleCharacters => {
            let pick = |t: &str| t.chars().find(|&c| invisible(c).is_some());
            match (pick(f), pick(s)) {
                (Some(c), _) => {
                    printer::invisible_in_file(line, c, invisible(c) == Some(true), block)
                }
                (None, Some(c)) => printer::invisible_in_block(line, c, block),
                (None, None) => printer::invisible_differs(line),
            }
        }
        Difference::UnicodePunctuation => {
            let pick = |t: &str| t.chars().find(|&c| punct_ascii(c).is_some());
            match (pick(f), pick(s)) {
                (Some(c), _) => {
                    printer::typographic_in_file(line, c, punct_ascii(c).unwrap_or("?"), block)
                }
                (None, Some(c)) => {
                    printer::typographic_in_block(line, c, punct_ascii(c).unwrap_or("?"), block)
                }
                (None, None) => printer::punctuation_differs(line),
            }
        }
        Difference::Escaping => {
            let (nf, ns) = (f.matches('\\').count(), s.matches('\\').count());
            if ns > nf {
                printer::more_backslashes(block, ns - nf, line)
            } else {
                printer::fewer_backslashes(block, nf - ns, line)
            }
        }
        Difference::Case => printer::case_differs(line),
        Difference::LineEndings
        | Difference::LineNumbers
        | Difference::Elision
        | Difference::Content => String::new(),
    }
}

/// Every kind of difference between the block `s` and the file text `f`
/// (which starts at 1-based line `first_line`), in report order, each with
/// a detail sentence.
pub(crate) fn classify(s: &str, f: &str, first_line: usize, block: &str) -> Vec<Seen> {
    let split = |t: &str| -> Vec<(String, bool)> {
        let ends = t.ends_with('\n');
        let body = if ends { &t[..t.len() - 1] } else { t };
        let parts: Vec<&str> = body.split('\n').collect();
        let n = parts.len();
        parts
            .into_iter()
            .enumerate()
            .map(|(i, p)| {
                let followed = i + 1 < n || ends;
                match p.strip_suffix('\r') {
                    Some(q) if followed => (q.to_string(), true),
                    _ => (p.to_string(), false),
                }
            })
            .collect()
    };
    let (sl, fl) = (split(s), split(f));
    let skeys: Vec<Vec<u8>> = sl.iter().map(|(l, _)| key_vec(l.as_bytes())).collect();
    let fkeys: Vec<Vec<u8>> = fl.iter().map(|(l, _)| key_vec(l.as_bytes())).collect();
    let mut found: Vec<Seen> = Vec::new();
    let mut add = |kind: Difference, detail: String| {
        if !found.iter().any(|d| d.kind == kind) {
            found.push(Seen { kind, detail });
        }
    };
    let s_ends = s.ends_with('\n');
    let f_ends = f.ends_with('\n');
    let mut examined = 0usize;
    for op in align(&skeys, &fkeys) {
        let (tag, r1, r2) = op.as_tag_tuple();
        if tag != DiffTag::Equal {
            let at = first_line + r2.start.min(fl.len().saturating_sub(1));
            add(Difference::Content, printer::content_differs(at));
            continue;
        }
        for (i, j) in r1.zip(r2) {
            let ((sa, scr), (fa, fcr)) = (&sl[i], &fl[j]);
            let line = first_line + j;
            let s_followed = i + 1 < sl.len() || s_ends;
            let f_followed = j + 1 < fl.len() || f_ends;
            if s_followed && f_followed && scr != fcr {
                add(
                    Difference::LineEndings,
                    printer::line_endings_differ(*fcr, block),
                );
            }
            if sa == fa {
                continue;
            }
            // Bounded work on huge blocks: the first differing lines show
            // the kinds.
            examined += 1;
            if examined > MAX_CLASSIFIED_LINES {
                continue;
            }
            match line_kinds(sa, fa) {
                Some(mask) => {
                    for (b, &k) in MASK_KINDS.iter().enumerate() {
                        if mask & (1 << b) != 0 {
                            add(k, detail_for(k, sa, fa, line, block));
                        }
                    }
                }
                None => add(Difference::Content, printer::content_differs(line)),
            }
        }
    }
    found.sort_by_key(|d| d.kind);
    found
}
