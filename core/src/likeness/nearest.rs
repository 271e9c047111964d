//! The region of a text most like a block, as a closest match: its lines,
//! how alike the two are, each kind of difference between them and whether
//! the tolerances would forgive them; and where an edit's replacement
//! already stands. Diagnosis reports these for an edit that failed; the
//! tolerant guard uses them before a tolerant match is written.

use super::align::char_ratio;
use super::anchors::Hits;
use super::applied;
use super::classify::{classify, Seen};
use super::search::{Located, Reading};
use super::windows::MIN_SIMILARITY;
use crate::model::Said;
use crate::printer;
use crate::result::diagnosis::Difference;
use crate::text::indent::nesting_agrees;

/// The region of the file most like a search block that was not found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Closest {
    /// 1-based first and last line of the region.
    pub line_number: usize,
    pub(crate) end_line: usize,
    /// Character similarity of the block to the region, in thousandths.
    pub(crate) similarity_milli: u32,
    /// The exact current text of the region (decoded; invalid bytes as U+FFFD).
    pub(crate) text: String,
    pub differences: Vec<Seen>,
    /// 1-based start lines of other regions exactly as close (the block
    /// does not tell them apart).
    pub(crate) equally_close: Vec<usize>,
    /// Whether resending the edit with `match` tolerances would match this
    /// region: every difference is tolerable and the lines nest alike.
    pub(crate) tolerable: bool,
    /// Byte range of the region in the text that was searched.
    pub(crate) start: usize,
    pub(crate) end: usize,
}

impl Closest {
    /// The kinds of difference, in report order.
    pub(crate) fn kinds(&self) -> Vec<Difference> {
        self.differences.iter().map(|d| d.kind).collect()
    }

    /// Whether only `kind`s other than content separate block and region.
    pub(crate) fn only_formatting(&self) -> bool {
        !self.differences.is_empty()
            && self
                .differences
                .iter()
                .all(|d| d.kind != Difference::Content)
    }
}

/// 1-based line numbers of ascending byte offsets.
pub(crate) fn lines_of(text: &[u8], offsets: &[usize]) -> Vec<usize> {
    let (mut line, mut at) = (1usize, 0usize);
    offsets
        .iter()
        .map(|&o| {
            line += memchr::memchr_iter(b'\n', &text[at..o]).count();
            at = o;
            line
        })
        .collect()
}

const TOLERABLE: [Difference; 4] = [
    Difference::LineEndings,
    Difference::TrailingWhitespace,
    Difference::Indentation,
    Difference::UnicodePunctuation,
];

/// The kind a reading of the block adds, with its detail sentence.
fn reading_kind(reading: &Reading, said: Said) -> Option<Seen> {
    let s = said.search;
    match reading {
        Reading::AsSent => None,
        Reading::Unescaped => Some(Seen {
            kind: Difference::Escaping,
            detail: printer::escaped_twice(s),
        }),
        Reading::Numbered(sample) => Some(Seen {
            kind: Difference::LineNumbers,
            detail: printer::line_number_prefixes(s, sample.trim_start()),
        }),
        Reading::Elided(marker) => Some(Seen {
            kind: Difference::Elision,
            detail: printer::leaves_lines_out(s, marker),
        }),
    }
}

/// The closest match for a region found, if it is close enough to help: a
/// region that differs in content must be at least [`MIN_SIMILARITY`]
/// similar.
pub(crate) fn closest_match(text: &[u8], l: &Located, said: Said) -> Option<Closest> {
    let ftext = String::from_utf8_lossy(&text[l.start..l.end]).into_owned();
    let mut differences: Vec<Seen> = Vec::new();
    let (mut block, mut found) = (String::new(), String::new());
    for p in &l.parts {
        let ptext = String::from_utf8_lossy(&text[p.start..p.end]);
        for d in classify(&p.text, &ptext, p.line + 1, said.search) {
            if !differences.iter().any(|x| x.kind == d.kind) {
                differences.push(d);
            }
        }
        block.push_str(&p.text);
        found.push_str(&ptext);
    }
    if let Some(k) = reading_kind(&l.reading, said) {
        differences.retain(|x| x.kind != k.kind);
        differences.push(k);
    }
    differences.sort_by_key(|x| x.kind);
    let sim = char_ratio(&block, &found);
    let content = differences.iter().any(|x| x.kind == Difference::Content);
    if differences.is_empty() || (content && sim < MIN_SIMILARITY) {
        return None;
    }
    let starts_line = l.start == 0 || text[l.start - 1] == b'\n';
    let tolerable = l.reading == Reading::AsSent
        && differences.iter().all(|x| TOLERABLE.contains(&x.kind))
        && nesting_agrees(&block, &ftext, starts_line);
    let first = l.line + 1;
    Some(Closest {
        line_number: first,
        end_line: end_line(text, l.start, l.end, first),
        similarity_milli: (sim.clamp(0.0, 1.0) * 1000.0).round() as u32,
        text: ftext,
        differences,
        equally_close: l.equally.iter().map(|x| x + 1).collect(),
        tolerable,
        start: l.start,
        end: l.end,
    })
}

/// The last line of the region `start..end` that starts at line `first`.
fn end_line(text: &[u8], start: usize, end: usize, first: usize) -> usize {
    first + memchr::memchr_iter(b'\n', &text[start..end]).count()
        - usize::from(end > start && text[end - 1] == b'\n')
}

/// A region of `text` (byte range) as a closest match for `search`.
pub(crate) fn match_at(
    text: &[u8],
    search: &str,
    (start, end): (usize, usize),
    said: Said,
) -> Closest {
    let first = lines_of(text, &[start])[0];
    let ftext = String::from_utf8_lossy(&text[start..end]).into_owned();
    Closest {
        line_number: first,
        end_line: end_line(text, start, end, first),
        similarity_milli: (char_ratio(search, &ftext).clamp(0.0, 1.0) * 1000.0).round() as u32,
        differences: classify(search, &ftext, first, said.search),
        text: ftext,
        equally_close: Vec::new(),
        tolerable: false,
        start,
        end,
    }
}

/// Byte range of the one exact occurrence of `replace` (as sent, or with
/// CRLF line endings when the edit `search` -> `replace` does not convert
/// them) in `text`, when it is long enough to say anything: where the edit
/// may already stand.
pub(crate) fn replacement_at(text: &[u8], search: &str, replace: &str) -> Option<(usize, usize)> {
    let needles = applied::needles(search, replace);
    let hits: Vec<Hits> = needles
        .iter()
        .map(|n| {
            let mut it = memchr::memmem::find_iter(text, n);
            match (it.next(), it.next()) {
                (Some(p), None) => Some(vec![(p, 0)]),
                (None, _) => Some(Vec::new()),
                _ => None,
            }
        })
        .collect();
    applied::once(&needles, &hits)
}

/// Byte range of the first occurrence of `replace` (in the forms of
/// [`replacement_at`]) outside `region`, however many there are: a
/// replacement long enough to prove anything that already stands elsewhere.
pub(crate) fn replacement_outside(
    text: &[u8],
    search: &str,
    replace: &str,
    region: (usize, usize),
) -> Option<(usize, usize)> {
    applied::needles(search, replace).iter().find_map(|n| {
        memchr::memmem::find_iter(text, n)
            .map(|p| (p, p + n.len()))
            .find(|&(a, b)| a < region.0 || b > region.1)
    })
}
