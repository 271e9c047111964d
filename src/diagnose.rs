//! Near-miss diagnosis: why an edit's search block did not match, and what
//! the file holds instead. Pure and in memory; it runs only after an edit
//! has failed, never on the success path.
//!
//! * **Not found** — [`not_found`] looks for the region of the file most
//!   like the search block (`closest_match`), names each kind of difference
//!   (line endings, indentation, trailing whitespace, invisible characters,
//!   typographic punctuation, escaping, letter case, content) and hands back
//!   the exact current text of that region, so one retry can succeed. It
//!   also notices when the replacement is already present exactly once
//!   (`already_applied`), so an agent stops retrying an edit that was made.
//! * **Ambiguous** — [`ambiguous`] finds, for each occurrence, the smallest
//!   extension of the block by neighbouring lines that occurs only once
//!   (`unique_context_hint`).
//!
//! # Cost
//!
//! Candidates are found without comparing the block against every position:
//! each file line is reduced to a *key* (whitespace, backslashes, invisible
//! characters and case dropped, typographic punctuation folded to ASCII) and
//! hashed once; lines whose key equals a search line's key vote for the
//! block start they imply. Only when those anchors are weak (every line was
//! edited, or a one-line block) does a second pass compare character
//! bigrams against at most three probe lines. The few best-voted starts are
//! then scored precisely. The scan is linear in the file and checks a
//! [`Budget`] every [`CHECK_EVERY`] lines, so a huge file makes the
//! diagnosis give up (`diagnosis_incomplete: true`) instead of stalling.

use std::cell::Cell;
use std::collections::HashMap;
use std::time::{Duration, Instant};

use memchr::{memchr, memmem, memrchr};
use serde_json::{json, Map, Value};
use similar::{capture_diff_slices_deadline, get_diff_ratio, Algorithm, DiffTag};

/// Time a failed call may spend on diagnosis (shared by its failing edits).
pub const DEFAULT_BUDGET: Duration = Duration::from_millis(150);
/// Below this score no region is offered as `closest_match`.
pub const MIN_SIMILARITY: f64 = 0.5;
/// Most occurrences that get a `unique_context_hint`.
pub const MAX_HINTS: usize = 10;
/// Most neighbouring lines (before + after) a hint may add.
pub const MAX_HINT_LINES: usize = 20;
/// Lines scanned between two budget checks.
pub const CHECK_EVERY: usize = 1024;
/// Occurrences beyond which uniqueness hints are not computed.
const MAX_OCCURRENCES: usize = 10_000;
/// Best-voted block starts that are scored precisely.
const CANDIDATES: usize = 12;
/// Shortest key a line needs to serve as an anchor.
const MIN_ANCHOR_KEY: usize = 3;
/// Differing line pairs examined one by one for their kinds.
const MAX_CLASSIFIED_LINES: usize = 512;
/// Replacement texts shorter than this (non-whitespace bytes) are too
/// common to prove an edit was already applied.
const MIN_APPLIED_LEN: usize = 6;

// ---------------------------------------------------------------------------
// Budget

/// How long diagnosis may run. A deadline in production; a count of checks
/// in tests, so the give-up path is exercised deterministically.
#[derive(Debug)]
pub struct Budget {
    kind: BudgetKind,
}

#[derive(Debug)]
enum BudgetKind {
    Deadline(Instant),
    Checks(Cell<u64>),
}

impl Budget {
    /// A budget that expires `limit` from now.
    pub fn new(limit: Duration) -> Self {
        Budget {
            kind: BudgetKind::Deadline(Instant::now() + limit),
        }
    }

    /// A budget that expires after `n` checks (for tests).
    pub fn checks(n: u64) -> Self {
        Budget {
            kind: BudgetKind::Checks(Cell::new(n)),
        }
    }

    /// Whether the budget is spent. Each call counts as one check.
    pub fn expired(&self) -> bool {
        match &self.kind {
            BudgetKind::Deadline(d) => Instant::now() >= *d,
            BudgetKind::Checks(c) => {
                let left = c.get();
                c.set(left.saturating_sub(1));
                left == 0
            }
        }
    }

    /// A deadline for one bounded sub-computation (a small diff).
    fn step_deadline(&self) -> Instant {
        let cap = Instant::now() + Duration::from_millis(10);
        match &self.kind {
            BudgetKind::Deadline(d) => cap.min(*d),
            BudgetKind::Checks(_) => cap,
        }
    }
}

// ---------------------------------------------------------------------------
// Kinds

/// A kind of difference between a search block and the file's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// CRLF vs LF.
    LineEndings,
    /// Tabs vs spaces, or a different depth.
    Indentation,
    /// Spaces or tabs at line ends.
    TrailingWhitespace,
    /// No-break spaces, zero-width characters, a BOM inside the text.
    InvisibleCharacters,
    /// Curly quotes, typographic dashes, ellipsis.
    UnicodePunctuation,
    /// Doubled, added or missing backslashes; literal `\n` for a newline.
    Escaping,
    /// Letter case.
    Case,
    /// Anything else: the text itself differs.
    Content,
}

impl Kind {
    /// Every kind, in the order they are reported.
    pub const ALL: [Kind; 8] = [
        Kind::LineEndings,
        Kind::Indentation,
        Kind::TrailingWhitespace,
        Kind::InvisibleCharacters,
        Kind::UnicodePunctuation,
        Kind::Escaping,
        Kind::Case,
        Kind::Content,
    ];

    /// The name agents see in `differences`.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::LineEndings => "line_endings",
            Kind::Indentation => "indentation",
            Kind::TrailingWhitespace => "trailing_whitespace",
            Kind::InvisibleCharacters => "invisible_characters",
            Kind::UnicodePunctuation => "unicode_punctuation",
            Kind::Escaping => "escaping",
            Kind::Case => "case",
            Kind::Content => "content",
        }
    }

    /// The kind named `s`.
    pub fn parse(s: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.as_str() == s)
    }

    fn words(self) -> &'static str {
        match self {
            Kind::LineEndings => "line endings",
            Kind::Indentation => "indentation",
            Kind::TrailingWhitespace => "trailing whitespace",
            Kind::InvisibleCharacters => "invisible characters",
            Kind::UnicodePunctuation => "typographic punctuation",
            Kind::Escaping => "backslash escaping",
            Kind::Case => "letter case",
            Kind::Content => "content",
        }
    }
}

// ---------------------------------------------------------------------------
// Characters

/// The ASCII spelling of a typographic punctuation character.
pub(crate) fn punct_ascii(c: char) -> Option<&'static str> {
    Some(match c {
        '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' | '\u{2032}' | '\u{2035}'
        | '\u{FF07}' => "'",
        '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{201F}' | '\u{2033}' | '\u{2036}'
        | '\u{00AB}' | '\u{00BB}' | '\u{FF02}' => "\"",
        '\u{2010}' | '\u{2011}' | '\u{2012}' | '\u{2013}' | '\u{2014}' | '\u{2015}'
        | '\u{2212}' | '\u{FE58}' | '\u{FE63}' | '\u{FF0D}' => "-",
        '\u{2026}' => "...",
        _ => return None,
    })
}

/// What an invisible character stands for: `Some(true)` a space (no-break
/// and other fixed-width spaces), `Some(false)` nothing (zero-width
/// characters, a BOM, bidi marks, soft hyphen).
fn invisible(c: char) -> Option<bool> {
    match c {
        '\u{00A0}'
        | '\u{1680}'
        | '\u{2000}'..='\u{200A}'
        | '\u{202F}'
        | '\u{205F}'
        | '\u{3000}' => Some(true),
        '\u{200B}'
        | '\u{200C}'
        | '\u{200D}'
        | '\u{200E}'
        | '\u{200F}'
        | '\u{2060}'
        | '\u{FEFF}'
        | '\u{00AD}'
        | '\u{180E}'
        | '\u{202A}'..='\u{202E}'
        | '\u{2066}'..='\u{2069}' => Some(false),
        _ => None,
    }
}

fn char_name(c: char) -> &'static str {
    match c {
        '\u{00A0}' => "no-break space",
        '\u{202F}' => "narrow no-break space",
        '\u{2009}' => "thin space",
        '\u{3000}' => "ideographic space",
        '\u{200B}' => "zero-width space",
        '\u{200C}' => "zero-width non-joiner",
        '\u{200D}' => "zero-width joiner",
        '\u{2060}' => "word joiner",
        '\u{FEFF}' => "byte order mark",
        '\u{00AD}' => "soft hyphen",
        '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' => {
            "bidirectional control"
        }
        _ => "invisible space",
    }
}

/// Decodes the character at `b[i..]`; an invalid byte reads as U+FFFD of
/// length 1 (byte-level files are diagnosed too).
fn char_at(b: &[u8], i: usize) -> (char, usize) {
    let x = b[i];
    if x < 0x80 {
        return (x as char, 1);
    }
    let n = match x {
        0xC2..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF4 => 4,
        _ => return ('\u{FFFD}', 1),
    };
    match b.get(i..i + n).and_then(|s| std::str::from_utf8(s).ok()) {
        Some(s) => (s.chars().next().unwrap_or('\u{FFFD}'), n),
        None => ('\u{FFFD}', 1),
    }
}

/// Visits the key bytes of `line` with the byte range of the character each
/// came from. The key drops whitespace (including `\r`), backslashes and
/// invisible characters, folds typographic punctuation to ASCII and lowers
/// letter case: two lines with equal keys differ at most in the kinds the
/// diagnosis can name.
fn key_bytes(line: &[u8], mut f: impl FnMut(u8, usize, usize)) {
    let mut i = 0;
    while i < line.len() {
        let b = line[i];
        if b < 0x80 {
            if !matches!(b, b' ' | b'\t' | b'\r' | 0x0b | 0x0c | b'\\') {
                f(b.to_ascii_lowercase(), i, i + 1);
            }
            i += 1;
            continue;
        }
        let (c, n) = char_at(line, i);
        if let Some(s) = punct_ascii(c) {
            for &x in s.as_bytes() {
                f(x, i, i + n);
            }
        } else if invisible(c).is_none() && !c.is_whitespace() {
            let lc = if c.is_uppercase() {
                c.to_lowercase().next().unwrap_or(c)
            } else {
                c
            };
            let mut buf = [0u8; 4];
            for &x in lc.encode_utf8(&mut buf).as_bytes() {
                f(x, i, i + n);
            }
        }
        i += n;
    }
}

#[inline]
fn mix(h: u64, b: u8) -> u64 {
    (h.rotate_left(5) ^ b as u64).wrapping_mul(0x517c_c1b7_2722_0a95)
}

fn hash_of(key: &[u8]) -> u64 {
    key.iter().fold(0, |h, &b| mix(h, b))
}

/// The key hash and key length of a line, without allocating.
fn key_hash(line: &[u8]) -> (u64, usize) {
    let (mut h, mut n) = (0u64, 0usize);
    key_bytes(line, |b, _, _| {
        h = mix(h, b);
        n += 1;
    });
    (h, n)
}

fn key_vec(line: &[u8]) -> Vec<u8> {
    let mut v = Vec::with_capacity(line.len());
    key_bytes(line, |b, _, _| v.push(b));
    v
}

/// Key bytes with, for each, the source byte range it came from.
fn key_with_offsets(line: &[u8]) -> (Vec<u8>, Vec<(usize, usize)>) {
    let mut k = Vec::with_capacity(line.len());
    let mut o = Vec::with_capacity(line.len());
    key_bytes(line, |b, s, e| {
        k.push(b);
        o.push((s, e));
    });
    (k, o)
}

fn weight(key_len: usize) -> f64 {
    key_len.min(60) as f64 + 1.0
}

/// Sørensen–Dice coefficient over byte bigrams (multiset).
fn dice(a: &[u8], b: &[u8]) -> f64 {
    if a.len() < 2 || b.len() < 2 {
        return if a == b { 1.0 } else { 0.0 };
    }
    let grams = |s: &[u8]| {
        let mut v: Vec<u16> = s
            .windows(2)
            .map(|w| u16::from(w[0]) << 8 | u16::from(w[1]))
            .collect();
        v.sort_unstable();
        v
    };
    let (x, y) = (grams(a), grams(b));
    let (mut i, mut j, mut common) = (0, 0, 0usize);
    while i < x.len() && j < y.len() {
        match x[i].cmp(&y[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                common += 1;
                i += 1;
                j += 1;
            }
        }
    }
    2.0 * common as f64 / (x.len() + y.len()) as f64
}

/// Similarity of a search line's key to a file line's key, where a search
/// line may be part of a file line (first, last or only line of a block).
fn line_sim(s: &[u8], f: &[u8]) -> f64 {
    if s.len() >= MIN_ANCHOR_KEY && f.len() > s.len() && memmem::find(f, s).is_some() {
        0.95
    } else {
        dice(s, f)
    }
}

// ---------------------------------------------------------------------------
// Lines

/// The lines of a block: split on `\n` (a final `\n` ends the last line
/// rather than opening an empty one). Lines keep a trailing `\r`.
fn block_lines(s: &[u8]) -> (Vec<&[u8]>, bool) {
    let ends_nl = s.ends_with(b"\n");
    let body = if ends_nl { &s[..s.len() - 1] } else { s };
    (body.split(|&b| b == b'\n').collect(), ends_nl)
}

/// Line starts of a text, built incrementally under a budget.
struct FileLines<'a> {
    text: &'a [u8],
    starts: Vec<usize>,
}

impl<'a> FileLines<'a> {
    fn count(&self) -> usize {
        self.starts.len()
    }

    /// Line `j` without its `\n` (a `\r` stays).
    fn line(&self, j: usize) -> &'a [u8] {
        &self.text[self.starts[j]..self.end(j)]
    }

    /// Byte offset where line `j`'s content ends (its `\n`, or the end).
    fn end(&self, j: usize) -> usize {
        if j + 1 < self.starts.len() {
            self.starts[j + 1] - 1
        } else {
            self.text.len()
        }
    }
}

/// A search line with its key.
struct SLine {
    key: Vec<u8>,
    hash: u64,
    w: f64,
}

impl SLine {
    fn new(line: &[u8]) -> Self {
        let key = key_vec(line);
        SLine {
            hash: hash_of(&key),
            w: weight(key.len()),
            key,
        }
    }
}

// ---------------------------------------------------------------------------
// Finding the closest region

/// The best region found: `len` lines from line `start` (0-based).
#[derive(Debug, Clone, Copy)]
struct Found {
    start: usize,
    len: usize,
    score: f64,
}

struct GaveUp;

/// Scans `text` once: line starts, plus anchor votes for block starts.
fn scan<'a>(
    text: &'a [u8],
    s: &[SLine],
    votes: &mut HashMap<isize, f64>,
    budget: &Budget,
) -> Result<FileLines<'a>, GaveUp> {
    let mut anchors: HashMap<u64, Vec<usize>> = HashMap::new();
    for (i, l) in s.iter().enumerate() {
        if l.key.len() >= MIN_ANCHOR_KEY {
            let v = anchors.entry(l.hash).or_default();
            if v.len() < 8 {
                v.push(i);
            }
        }
    }
    let mut starts = Vec::new();
    let mut pos = 0;
    loop {
        if starts.len() % CHECK_EVERY == 0 && budget.expired() {
            return Err(GaveUp);
        }
        let j = starts.len();
        starts.push(pos);
        let end = memchr(b'\n', &text[pos..]).map_or(text.len(), |k| pos + k);
        if !anchors.is_empty() {
            let (h, n) = key_hash(&text[pos..end]);
            if n >= MIN_ANCHOR_KEY {
                if let Some(idx) = anchors.get(&h) {
                    for &i in idx {
                        *votes.entry(j as isize - i as isize).or_default() += s[i].w;
                    }
                }
            }
        }
        if end == text.len() {
            break;
        }
        pos = end + 1;
    }
    Ok(FileLines { text, starts })
}

/// Second pass when anchors are weak: character-bigram similarity of each
/// file line to up to three probe lines of the block.
fn probe_votes(
    lines: &FileLines<'_>,
    s: &[SLine],
    votes: &mut HashMap<isize, f64>,
    budget: &Budget,
) -> Result<(), GaveUp> {
    let mut order: Vec<usize> = (0..s.len())
        .filter(|&i| s[i].key.len() >= MIN_ANCHOR_KEY)
        .collect();
    order.sort_by_key(|&i| std::cmp::Reverse(s[i].key.len()));
    order.truncate(3);
    if order.is_empty() {
        return Ok(());
    }
    struct Probe {
        idx: usize,
        bits: Vec<u64>,
        grams: usize,
    }
    let probes: Vec<Probe> = order
        .iter()
        .map(|&i| {
            let mut bits = vec![0u64; 1024];
            for w in s[i].key.windows(2) {
                let g = (w[0] as usize) << 8 | w[1] as usize;
                bits[g >> 6] |= 1 << (g & 63);
            }
            Probe {
                idx: i,
                bits,
                grams: s[i].key.len() - 1,
            }
        })
        .collect();
    let mut buf = Vec::new();
    for j in 0..lines.count() {
        if j % CHECK_EVERY == 0 && budget.expired() {
            return Err(GaveUp);
        }
        buf.clear();
        key_bytes(lines.line(j), |b, _, _| buf.push(b));
        if buf.len() < 2 {
            continue;
        }
        let m = buf.len() - 1;
        for p in &probes {
            if m * 4 < p.grams || m > p.grams * 6 + 16 {
                continue;
            }
            let hits = buf
                .windows(2)
                .filter(|w| {
                    let g = (w[0] as usize) << 8 | w[1] as usize;
                    p.bits[g >> 6] & (1 << (g & 63)) != 0
                })
                .count()
                .min(p.grams);
            let sim = 2.0 * hits as f64 / (p.grams + m.min(2 * p.grams)) as f64;
            if sim >= 0.4 {
                *votes.entry(j as isize - p.idx as isize).or_default() += sim * s[p.idx].w;
            }
        }
    }
    Ok(())
}

/// Cached keys of file lines.
struct FKeys<'a, 'l> {
    lines: &'l FileLines<'a>,
    cache: HashMap<usize, SLine>,
}

impl FKeys<'_, '_> {
    fn get(&mut self, j: usize) -> &SLine {
        let lines = self.lines;
        self.cache
            .entry(j)
            .or_insert_with(|| SLine::new(lines.line(j)))
    }
}

/// Score of a window of file lines against the block: weighted share of
/// lines aligned with an equal key, partial credit for changed lines.
fn window_score(s: &[SLine], f: &[&SLine], deadline: Instant) -> f64 {
    let a: Vec<u64> = s.iter().map(|l| l.hash).collect();
    let b: Vec<u64> = f.iter().map(|l| l.hash).collect();
    let total: f64 = s.iter().map(|l| l.w).sum::<f64>() + f.iter().map(|l| l.w).sum::<f64>();
    let mut got = 0.0;
    for op in capture_diff_slices_deadline(Algorithm::Myers, &a, &b, Some(deadline)) {
        let (tag, r1, r2) = op.as_tag_tuple();
        match tag {
            DiffTag::Equal => {
                got += r1.clone().map(|i| s[i].w).sum::<f64>() + r2.map(|j| f[j].w).sum::<f64>()
            }
            DiffTag::Replace => {
                for (i, j) in r1.zip(r2) {
                    got += line_sim(&s[i].key, &f[j].key) * (s[i].w + f[j].w);
                }
            }
            _ => {}
        }
    }
    if total == 0.0 {
        0.0
    } else {
        got / total
    }
}

/// The region most like the block, if any scores at least [`MIN_SIMILARITY`].
type Closest<'a> = (Found, Vec<usize>, FileLines<'a>);

fn closest<'a>(
    text: &'a [u8],
    search: &[u8],
    budget: &Budget,
) -> Result<Option<Closest<'a>>, GaveUp> {
    let (slines, _) = block_lines(search);
    let s: Vec<SLine> = slines.iter().map(|l| SLine::new(l)).collect();
    let n = s.len();
    let mut votes: HashMap<isize, f64> = HashMap::new();
    let lines = scan(text, &s, &mut votes, budget)?;
    let total: f64 = s.iter().map(|l| l.w).sum();
    let best = votes.values().copied().fold(0.0, f64::max);
    if best < 0.5 * total {
        probe_votes(&lines, &s, &mut votes, budget)?;
    }
    let mut cands: Vec<(isize, f64)> = votes.into_iter().collect();
    cands.sort_by(|x, y| y.1.total_cmp(&x.1).then(x.0.cmp(&y.0)));
    cands.truncate(CANDIDATES);

    let count = lines.count() as isize;
    let mut keys = FKeys {
        lines: &lines,
        cache: HashMap::new(),
    };
    let shifts: &[isize] = if n <= 200 { &[0, -1, 1, -2, 2] } else { &[0] };
    // The best window around each candidate start.
    let mut bests: Vec<Found> = Vec::with_capacity(cands.len());
    for &(start, _) in &cands {
        if budget.expired() {
            break;
        }
        let deadline = budget.step_deadline();
        let mut best: Option<Found> = None;
        for &ds in shifts {
            for &dl in shifts {
                let (st, len) = (start + ds, n as isize + dl);
                if st < 0 || len < 1 || st + len > count {
                    continue;
                }
                let (st, len) = (st as usize, len as usize);
                for j in st..st + len {
                    keys.get(j);
                }
                let f: Vec<&SLine> = (st..st + len).map(|j| &keys.cache[&j]).collect();
                let score = window_score(&s, &f, deadline);
                if best.is_none_or(|b| score > b.score + 1e-9) {
                    best = Some(Found {
                        start: st,
                        len,
                        score,
                    });
                }
            }
        }
        bests.extend(best);
    }
    let Some(best) = bests
        .iter()
        .copied()
        .reduce(|a, b| if b.score > a.score + 1e-9 { b } else { a })
        .filter(|b| b.score >= MIN_SIMILARITY)
    else {
        return Ok(None);
    };
    // Other regions just as close: the block does not tell them apart.
    let mut equally: Vec<usize> = bests
        .iter()
        .filter(|b| {
            (b.score - best.score).abs() <= 1e-9
                && (b.start + b.len <= best.start || b.start >= best.start + best.len)
        })
        .map(|b| b.start)
        .collect();
    equally.sort_unstable();
    equally.dedup();
    Ok(Some((best, equally, lines)))
}

/// Byte range of the found lines, narrowed on the first and last line when
/// the block covers only part of them (a block that starts mid-line or
/// ends mid-line), and including the final newline when the block has one.
fn region(lines: &FileLines<'_>, found: Found, search: &[u8]) -> (usize, usize) {
    let (slines, ends_nl) = block_lines(search);
    let first = found.start;
    let last = found.start + found.len - 1;
    let mut start = lines.starts[first];
    let mut end = lines.end(last);
    if ends_nl && end < lines.text.len() {
        end += 1;
    } else if !ends_nl
        && end > start
        && end - 1 > lines.starts[last]
        && lines.text[end - 1] == b'\r'
        && !search.ends_with(b"\r")
    {
        // A CRLF line's `\r` belongs to its line ending, which a block that
        // stops at the end of the line does not include.
        end -= 1;
    }
    let is_ws = |c: u8| c == b' ' || c == b'\t';
    let s_first = slines[0];
    let s_last = slines[slines.len() - 1];
    let single = slines.len() == 1 && found.len == 1 && !ends_nl;
    // First line: the block may start inside it.
    let (sk, _) = key_with_offsets(s_first);
    let fl = lines.line(first);
    let (fk, fo) = key_with_offsets(fl);
    if !sk.is_empty() && sk != fk {
        let at = if single {
            memmem::find(&fk, &sk)
        } else if fk.ends_with(&sk) {
            Some(fk.len() - sk.len())
        } else {
            None
        };
        if let Some(at) = at {
            let base = lines.starts[first];
            let mut st = base + fo[at].0;
            if s_first.first().is_some_and(|&c| is_ws(c)) {
                while st > base && is_ws(lines.text[st - 1]) {
                    st -= 1;
                }
            }
            start = st;
            if single {
                let mut en = base + fo[at + sk.len() - 1].1;
                let line_end = lines.end(first);
                if s_first.last().is_some_and(|&c| is_ws(c)) {
                    while en < line_end && is_ws(lines.text[en]) {
                        en += 1;
                    }
                }
                end = en;
            }
        }
    }
    // Last line: the block may end inside it.
    if !single && !ends_nl && found.len > 1 {
        let (sk, _) = key_with_offsets(s_last);
        let ll = lines.line(last);
        let (lk, lo) = key_with_offsets(ll);
        if !sk.is_empty() && sk != lk && lk.starts_with(&sk) {
            let base = lines.starts[last];
            let mut en = base + lo[sk.len() - 1].1;
            if s_last.last().is_some_and(|&c| is_ws(c)) {
                while en < lines.end(last) && is_ws(lines.text[en]) {
                    en += 1;
                }
            }
            end = en;
        }
    }
    (start, end.max(start))
}

// ---------------------------------------------------------------------------
// Classifying differences

const MASK_KINDS: [Kind; 6] = [
    Kind::TrailingWhitespace,
    Kind::Indentation,
    Kind::InvisibleCharacters,
    Kind::UnicodePunctuation,
    Kind::Escaping,
    Kind::Case,
];

/// `line` with the differences of the kinds in `mask` (bits of
/// [`MASK_KINDS`]) normalized away.
fn normalize(line: &str, mask: u8) -> String {
    let has = |k: Kind| mask & (1 << MASK_KINDS.iter().position(|&m| m == k).unwrap_or(0)) != 0;
    let mut out = String::with_capacity(line.len());
    for c in line.chars() {
        if has(Kind::InvisibleCharacters) {
            match invisible(c) {
                Some(true) => {
                    out.push(' ');
                    continue;
                }
                Some(false) => continue,
                None => {}
            }
        }
        if has(Kind::UnicodePunctuation) {
            if let Some(s) = punct_ascii(c) {
                out.push_str(s);
                continue;
            }
        }
        if has(Kind::Escaping) && c == '\\' {
            continue;
        }
        if has(Kind::Case) {
            out.extend(c.to_lowercase());
        } else {
            out.push(c);
        }
    }
    let ws = |c: char| c == ' ' || c == '\t';
    let mut s: &str = &out;
    if has(Kind::TrailingWhitespace) {
        s = s.trim_end_matches(ws);
    }
    if has(Kind::Indentation) {
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
pub struct Difference {
    pub kind: Kind,
    pub detail: String,
}

fn lead(s: &str) -> &str {
    &s[..s.len() - s.trim_start_matches([' ', '\t']).len()]
}

fn trail(s: &str) -> &str {
    &s[s.trim_end_matches([' ', '\t']).len()..]
}

fn describe_ws(s: &str) -> String {
    if s.is_empty() {
        return "none".into();
    }
    let tabs = s.chars().filter(|&c| c == '\t').count();
    let spaces = s.chars().count() - tabs;
    let p = |n: usize, w: &str| format!("{n} {w}{}", if n == 1 { "" } else { "s" });
    match (tabs, spaces) {
        (0, n) => p(n, "space"),
        (n, 0) => p(n, "tab"),
        (t, n) => format!("{} and {}", p(t, "tab"), p(n, "space")),
    }
}

fn detail_for(kind: Kind, s: &str, f: &str, line: usize) -> String {
    match kind {
        Kind::Indentation => format!(
            "line {line} is indented with {} in the file but {} in search_block",
            describe_ws(lead(f)),
            describe_ws(lead(s))
        ),
        Kind::TrailingWhitespace => format!(
            "line {line} ends with {} of trailing whitespace in the file but {} in search_block",
            describe_ws(trail(f)),
            describe_ws(trail(s))
        ),
        Kind::InvisibleCharacters => {
            let pick = |t: &str| t.chars().find(|&c| invisible(c).is_some());
            match (pick(f), pick(s)) {
                (Some(c), _) => format!(
                    "line {line} of the file contains U+{:04X} ({}) where search_block has {}",
                    c as u32,
                    char_name(c),
                    if invisible(c) == Some(true) {
                        "a plain space"
                    } else {
                        "nothing"
                    }
                ),
                (None, Some(c)) => format!(
                    "search_block contains U+{:04X} ({}) that line {line} of the file does not have",
                    c as u32,
                    char_name(c)
                ),
                (None, None) => format!("line {line} differs in invisible characters"),
            }
        }
        Kind::UnicodePunctuation => {
            let pick = |t: &str| t.chars().find(|&c| punct_ascii(c).is_some());
            match (pick(f), pick(s)) {
                (Some(c), _) => format!(
                    "line {line} of the file has the typographic character '{c}' (U+{:04X}) where search_block has '{}'",
                    c as u32,
                    punct_ascii(c).unwrap_or("?")
                ),
                (None, Some(c)) => format!(
                    "search_block has the typographic character '{c}' (U+{:04X}) where line {line} of the file has plain '{}'",
                    c as u32,
                    punct_ascii(c).unwrap_or("?")
                ),
                (None, None) => format!("line {line} differs in punctuation"),
            }
        }
        Kind::Escaping => {
            let (nf, ns) = (f.matches('\\').count(), s.matches('\\').count());
            if ns > nf {
                format!(
                    "search_block has {} more backslash{} than line {line} of the file (over-escaped, e.g. \\\\ or \\\" where the file has \\ or \")",
                    ns - nf,
                    if ns - nf == 1 { "" } else { "es" }
                )
            } else {
                format!(
                    "search_block has {} fewer backslash{} than line {line} of the file (an escape was lost)",
                    nf - ns,
                    if nf - ns == 1 { "" } else { "es" }
                )
            }
        }
        Kind::Case => format!("line {line} differs only in letter case"),
        Kind::LineEndings | Kind::Content => String::new(),
    }
}

/// Every kind of difference between the block `s` and the file text `f`
/// (which starts at 1-based line `first_line`), in report order, each with
/// a detail sentence.
pub fn classify(s: &str, f: &str, first_line: usize) -> Vec<Difference> {
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
    let deadline = Instant::now() + Duration::from_millis(10);
    let mut found: Vec<Difference> = Vec::new();
    let mut add = |kind: Kind, detail: String| {
        if !found.iter().any(|d| d.kind == kind) {
            found.push(Difference { kind, detail });
        }
    };
    let s_ends = s.ends_with('\n');
    let f_ends = f.ends_with('\n');
    let mut examined = 0usize;
    for op in capture_diff_slices_deadline(Algorithm::Myers, &skeys, &fkeys, Some(deadline)) {
        let (tag, r1, r2) = op.as_tag_tuple();
        if tag != DiffTag::Equal {
            let at = first_line + r2.start.min(fl.len().saturating_sub(1));
            add(
                Kind::Content,
                format!("line {at} of the file has different content"),
            );
            continue;
        }
        for (i, j) in r1.zip(r2) {
            let ((sa, scr), (fa, fcr)) = (&sl[i], &fl[j]);
            let line = first_line + j;
            let s_followed = i + 1 < sl.len() || s_ends;
            let f_followed = j + 1 < fl.len() || f_ends;
            if s_followed && f_followed && scr != fcr {
                add(
                    Kind::LineEndings,
                    if *fcr {
                        "the file uses CRLF (\\r\\n) line endings but search_block uses LF (\\n)"
                            .into()
                    } else {
                        "the file uses LF (\\n) line endings but search_block uses CRLF (\\r\\n)"
                            .into()
                    },
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
                            add(k, detail_for(k, sa, fa, line));
                        }
                    }
                }
                None => add(
                    Kind::Content,
                    format!("line {line} of the file has different content"),
                ),
            }
        }
    }
    found.sort_by_key(|d| d.kind);
    found
}

// ---------------------------------------------------------------------------
// Results

/// The region of the file most like a search block that was not found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClosestMatch {
    /// 1-based first and last line of the region.
    pub line_number: usize,
    pub end_line: usize,
    /// Character similarity of the block to the region, in thousandths.
    pub similarity_milli: u32,
    /// The exact current text of the region (decoded; invalid bytes as U+FFFD).
    pub text: String,
    pub differences: Vec<Difference>,
    /// 1-based start lines of other regions exactly as close (the block
    /// does not tell them apart).
    pub equally_close: Vec<usize>,
    /// Whether resending the edit with `match` tolerances would match this
    /// region: every difference is tolerable and the lines nest alike.
    pub tolerable: bool,
    /// Byte range of the region in the text that was searched.
    pub start: usize,
    pub end: usize,
}

impl ClosestMatch {
    /// Whether only `kind`s other than content separate block and region.
    pub fn only_formatting(&self) -> bool {
        !self.differences.is_empty() && self.differences.iter().all(|d| d.kind != Kind::Content)
    }
}

/// A `unique_context_hint` entry: occurrence `match_line` made unique by
/// `lines_before` lines above and `lines_after` below.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContextHint {
    pub match_line: usize,
    pub line_number: usize,
    pub end_line: usize,
    pub lines_before: usize,
    pub lines_after: usize,
    pub search_block: String,
}

/// What diagnosis learned about one failed edit.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Diagnosis {
    pub closest_match: Option<ClosestMatch>,
    /// 1-based line range where the replacement text already stands.
    pub already_applied: Option<(usize, usize)>,
    pub unique_context_hint: Vec<ContextHint>,
    /// The diagnosis ran out of budget (very large file) and is partial.
    pub incomplete: bool,
    /// A message naming the problem and the next step, replacing the
    /// generic one when set.
    pub message: Option<String>,
}

impl Diagnosis {
    /// Adds the diagnosis fields to a failure object.
    pub fn write_json(&self, m: &mut Map<String, Value>) {
        if let Some(c) = &self.closest_match {
            m.insert(
                "closest_match".into(),
                json!({
                    "line_number": c.line_number,
                    "end_line": c.end_line,
                    "similarity": f64::from(c.similarity_milli) / 1000.0,
                    "text": c.text,
                    "differences": c.differences.iter().map(|d| d.kind.as_str()).collect::<Vec<_>>(),
                    "details": c.differences.iter().filter(|d| !d.detail.is_empty()).map(|d| d.detail.clone()).collect::<Vec<_>>(),
                }),
            );
            if !c.equally_close.is_empty() {
                m["closest_match"]["equally_close"] = json!(c.equally_close);
            }
        }
        if let Some((a, b)) = self.already_applied {
            m.insert("already_applied".into(), Value::Bool(true));
            m.insert(
                "applied_at".into(),
                json!({"line_number": a, "end_line": b}),
            );
        }
        if !self.unique_context_hint.is_empty() {
            m.insert(
                "unique_context_hint".into(),
                Value::Array(
                    self.unique_context_hint
                        .iter()
                        .map(|h| {
                            json!({
                                "match_line": h.match_line,
                                "line_number": h.line_number,
                                "end_line": h.end_line,
                                "lines_before": h.lines_before,
                                "lines_after": h.lines_after,
                                "search_block": h.search_block,
                            })
                        })
                        .collect(),
                ),
            );
        }
        if self.incomplete {
            m.insert("diagnosis_incomplete".into(), Value::Bool(true));
        }
    }
}

/// 1-based line numbers of ascending byte offsets.
fn lines_of(text: &[u8], offsets: &[usize]) -> Vec<usize> {
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

/// Where `replace` already stands exactly once (as written, or with the
/// file's CRLF line endings), as a byte range.
fn applied_at(text: &[u8], replace: &str) -> Option<(usize, usize)> {
    let visible = replace.bytes().filter(|b| !b.is_ascii_whitespace()).count();
    if visible < MIN_APPLIED_LEN {
        return None;
    }
    let once = |needle: &[u8]| {
        let mut it = memmem::find_iter(text, needle);
        match (it.next(), it.next()) {
            (Some(p), None) => Some((p, p + needle.len())),
            _ => None,
        }
    };
    once(replace.as_bytes()).or_else(|| {
        if replace.contains('\n')
            && !replace.contains("\r\n")
            && memmem::find(text, b"\r\n").is_some()
        {
            once(replace.replace('\n', "\r\n").as_bytes())
        } else {
            None
        }
    })
}

/// Unescapes a block that arrived with literal `\n` (and friends) instead of
/// real newlines, or `None` when it does not look like one.
fn unescape_literal(search: &str) -> Option<String> {
    if search.contains('\n') || !search.contains("\\n") {
        return None;
    }
    let mut out = String::with_capacity(search.len());
    let mut it = search.chars().peekable();
    while let Some(c) = it.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match it.next() {
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('t') => out.push('\t'),
            Some('"') => out.push('"'),
            Some('\'') => out.push('\''),
            Some('\\') => out.push('\\'),
            Some(o) => {
                out.push('\\');
                out.push(o);
            }
            None => out.push('\\'),
        }
    }
    Some(out)
}

fn range_text(from: usize, to: usize) -> String {
    if from == to {
        format!("line {from}")
    } else {
        format!("lines {from}-{to}")
    }
}

const TOLERABLE: [Kind; 4] = [
    Kind::LineEndings,
    Kind::TrailingWhitespace,
    Kind::Indentation,
    Kind::UnicodePunctuation,
];

/// The message for a block that was not found, given what was learned.
fn not_found_message(
    pre: &str,
    c: Option<&ClosestMatch>,
    applied: Option<(usize, usize)>,
) -> Option<String> {
    if let Some((a, b)) = applied {
        return Some(format!(
            "{pre}search_block was not found, but replace_block is already present exactly once ({}): the edit \
             appears to be applied already. Do not retry it; reread {} if unsure",
            range_text(a, b),
            range_text(a, b)
        ));
    }
    let c = c?;
    let where_ = range_text(c.line_number, c.end_line);
    let twins = if c.equally_close.is_empty() {
        String::new()
    } else {
        format!(
            " The block matches line{} {} just as closely: include neighbouring lines so the retry is unique.",
            if c.equally_close.len() == 1 { "" } else { "s" },
            c.equally_close
                .iter()
                .map(|l| l.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    let details: Vec<&str> = c
        .differences
        .iter()
        .filter(|d| !d.detail.is_empty() && d.kind != Kind::Content)
        .map(|d| d.detail.as_str())
        .collect();
    let detail = if details.is_empty() {
        String::new()
    } else {
        format!(" ({})", details.join("; "))
    };
    if c.only_formatting() {
        let kinds: Vec<&str> = c.differences.iter().map(|d| d.kind.words()).collect();
        let mut next =
            "Retry with closest_match.text (the exact current text) as search_block".to_string();
        if c.tolerable {
            let list: Vec<String> = c
                .differences
                .iter()
                .map(|d| format!("\"{}\"", d.kind.as_str()))
                .collect();
            next.push_str(&format!(
                ", or resend the same edit with match: [{}]",
                list.join(", ")
            ));
        }
        Some(format!(
            "{pre}search_block was not found exactly: {where_} match it except for {}{detail}. {next}.{twins}",
            join_words(&kinds)
        ))
    } else {
        let others: Vec<&str> = c
            .differences
            .iter()
            .filter(|d| d.kind != Kind::Content)
            .map(|d| d.kind.words())
            .collect();
        let also = if others.is_empty() {
            String::new()
        } else {
            format!(", and also in {}{detail}", join_words(&others))
        };
        Some(format!(
            "{pre}search_block was not found; the closest text is {where_} ({}% similar), which differs in \
             content{also}: the file has probably changed since it was read, or the block was mistyped. \
             closest_match.text is the current text of {where_}: base search_block on it (reread the file if \
             unsure), then retry.{twins}",
            c.similarity_milli / 10
        ))
    }
}

fn join_words(w: &[&str]) -> String {
    match w {
        [] => String::new(),
        [a] => a.to_string(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// Diagnoses a block that was not found in `text`. `label` prefixes the
/// message (e.g. `edits[2]: `).
pub fn not_found(
    text: &[u8],
    search: &str,
    replace: &str,
    label: &str,
    budget: &Budget,
) -> Diagnosis {
    let mut d = Diagnosis::default();
    let applied = applied_at(text, replace);
    if let Some((a, b)) = applied {
        let ls = lines_of(text, &[a, b.saturating_sub(1).max(a)]);
        d.already_applied = Some((ls[0], ls[1]));
    }
    if budget.expired() {
        d.incomplete = true;
    } else {
        let alt = unescape_literal(search);
        let mut tries: Vec<(&str, bool)> = vec![(search, false)];
        if let Some(a) = &alt {
            tries.push((a.as_str(), true));
        }
        type Best<'s> = (Found, Vec<usize>, (usize, usize), &'s str, bool);
        let mut best: Option<Best<'_>> = None;
        for (s, literal) in tries {
            match closest(text, s.as_bytes(), budget) {
                Err(GaveUp) => {
                    d.incomplete = true;
                    break;
                }
                Ok(None) => {}
                Ok(Some((found, equally, lines))) => {
                    if best.as_ref().is_none_or(|b| found.score > b.0.score) {
                        let r = region(&lines, found, s.as_bytes());
                        best = Some((found, equally, r, s, literal));
                    }
                }
            }
        }
        if let Some((found, equally, (start, end), s, literal)) = best {
            let ftext = String::from_utf8_lossy(&text[start..end]).into_owned();
            let first = found.start + 1;
            let mut differences = classify(s, &ftext, first);
            if literal && !differences.iter().any(|x| x.kind == Kind::Escaping) {
                differences.push(Difference {
                    kind: Kind::Escaping,
                    detail: "search_block has literal \\n sequences where the file has real line breaks (it was escaped twice)".into(),
                });
                differences.sort_by_key(|x| x.kind);
            }
            let sim = char_ratio(search, &ftext, budget).unwrap_or(found.score);
            let tolerable = !literal
                && !differences.is_empty()
                && differences.iter().all(|x| TOLERABLE.contains(&x.kind))
                && crate::tolerant::nesting_agrees(
                    s,
                    &ftext,
                    start == 0 || text[start - 1] == b'\n',
                );
            d.closest_match = Some(ClosestMatch {
                line_number: first,
                end_line: first + memchr::memchr_iter(b'\n', &text[start..end]).count()
                    - usize::from(end > start && text[end - 1] == b'\n'),
                similarity_milli: (sim.clamp(0.0, 1.0) * 1000.0).round() as u32,
                text: ftext,
                differences,
                equally_close: equally.iter().map(|l| l + 1).collect(),
                tolerable,
                start,
                end,
            });
        }
    }
    d.message = not_found_message(label, d.closest_match.as_ref(), d.already_applied);
    if d.incomplete && d.message.is_none() {
        d.message = Some(format!(
            "{label}search_block was not found. The file is too large to look for a near match within the time \
             budget; reread the relevant lines and copy the exact current text (whitespace, indentation and line \
             endings must match byte for byte), then retry"
        ));
    }
    d
}

/// Character-level similarity, for blocks small enough to diff quickly.
fn char_ratio(a: &str, b: &str, budget: &Budget) -> Option<f64> {
    if a.len() + b.len() > 40_000 {
        return None;
    }
    let x: Vec<char> = a.chars().collect();
    let y: Vec<char> = b.chars().collect();
    let ops = capture_diff_slices_deadline(Algorithm::Myers, &x, &y, Some(budget.step_deadline()));
    Some(f64::from(get_diff_ratio(&ops, x.len(), y.len())))
}

// ---------------------------------------------------------------------------
// Ambiguous blocks

/// Start of the line `up` lines above the line containing `pos`.
fn line_start_above(text: &[u8], pos: usize, up: usize) -> Option<usize> {
    let mut s = memrchr(b'\n', &text[..pos]).map_or(0, |k| k + 1);
    for _ in 0..up {
        if s == 0 {
            return None;
        }
        s = memrchr(b'\n', &text[..s - 1]).map_or(0, |k| k + 1);
    }
    Some(s)
}

/// End (before its `\n`) of the line `down` lines below the line containing
/// `pos`; lines must have content start before the end of the text.
fn line_end_below(text: &[u8], pos: usize, down: usize) -> Option<usize> {
    let mut e = memchr(b'\n', &text[pos..]).map_or(text.len(), |k| pos + k);
    for _ in 0..down {
        if e + 1 >= text.len() {
            return None;
        }
        e = memchr(b'\n', &text[e + 1..]).map_or(text.len(), |k| e + 1 + k);
    }
    Some(e)
}

/// For each of the first [`MAX_HINTS`] (non-overlapping) occurrences of
/// `search`, the smallest extension by neighbouring lines that occurs only
/// once. An extended block contains the search block at a fixed offset, so
/// it can only recur where the block recurs: comparing the context around
/// every occurrence decides uniqueness without rescanning the file.
pub fn ambiguous(text: &[u8], search: &[u8], budget: &Budget) -> Diagnosis {
    let mut d = Diagnosis::default();
    if search.is_empty() {
        return d;
    }
    let finder = memmem::Finder::new(search);
    let mut all = Vec::new();
    let mut at = 0;
    while let Some(k) = finder.find(&text[at..]) {
        all.push(at + k);
        at += k + 1;
        if all.len() > MAX_OCCURRENCES || (all.len() % 256 == 0 && budget.expired()) {
            d.incomplete = true;
            return d;
        }
    }
    let mut picks = Vec::new();
    let mut free = 0;
    for &p in &all {
        if p >= free {
            picks.push(p);
            free = p + search.len();
            if picks.len() == MAX_HINTS {
                break;
            }
        }
    }
    let ends_nl = search.ends_with(b"\n");
    let mut found: Vec<(usize, usize, usize, usize, usize)> = Vec::new();
    for &p in &picks {
        let e = p + search.len();
        // pre[a]: bytes before p for `a` lines above; post[b] after e.
        let pre: Vec<Option<usize>> = (0..=MAX_HINT_LINES)
            .map(|a| {
                if a == 0 {
                    Some(0)
                } else {
                    line_start_above(text, p, a).map(|s| p - s)
                }
            })
            .collect();
        let post: Vec<Option<usize>> = (0..=MAX_HINT_LINES)
            .map(|b| {
                if b == 0 {
                    Some(0)
                } else {
                    let down = if ends_nl { b - 1 } else { b };
                    if ends_nl && e >= text.len() {
                        return None;
                    }
                    line_end_below(text, e, down).map(|x| x - e)
                }
            })
            .collect();
        let max_pre = pre.iter().flatten().copied().max().unwrap_or(0);
        let max_post = post.iter().flatten().copied().max().unwrap_or(0);
        let mut common: Vec<(usize, usize)> = Vec::with_capacity(all.len());
        for (n, &q) in all.iter().enumerate() {
            if n % 256 == 0 && budget.expired() {
                d.incomplete = true;
                break;
            }
            if q == p {
                continue;
            }
            let cb = (1..=max_pre.min(q).min(p))
                .take_while(|&i| text[p - i] == text[q - i])
                .count();
            let qe = q + search.len();
            let cf = (0..max_post.min(text.len() - qe).min(text.len() - e))
                .take_while(|&i| text[e + i] == text[qe + i])
                .count();
            common.push((cb, cf));
        }
        if d.incomplete {
            break;
        }
        let mut best: Option<(usize, usize, usize)> = None;
        'k: for k in 1..=MAX_HINT_LINES {
            for (a, pa) in pre.iter().enumerate().take(k + 1) {
                let (Some(pa), Some(pb)) = (*pa, post[k - a]) else {
                    continue;
                };
                if common.iter().all(|&(cb, cf)| pa > cb || pb > cf)
                    && best.is_none_or(|x| pa + pb < x.0 + x.1)
                {
                    best = Some((pa, pb, a));
                }
            }
            if let Some((pa, pb, a)) = best {
                found.push((p, pa, pb, a, k - a));
                break 'k;
            }
        }
    }
    let mut offs: Vec<usize> = Vec::new();
    for &(p, pa, pb, _, _) in &found {
        let e = p + search.len() + pb;
        offs.extend([p - pa, p, e.saturating_sub(1).max(p - pa)]);
    }
    let mut sorted = offs.clone();
    sorted.sort_unstable();
    let nums = lines_of(text, &sorted);
    let line_of = |o: usize| nums[sorted.binary_search(&o).unwrap_or(0)];
    for &(p, pa, pb, a, b) in &found {
        let s = p - pa;
        let e = p + search.len() + pb;
        d.unique_context_hint.push(ContextHint {
            match_line: line_of(p),
            line_number: line_of(s),
            end_line: line_of(e.saturating_sub(1).max(s)),
            lines_before: a,
            lines_after: b,
            search_block: String::from_utf8_lossy(&text[s..e]).into_owned(),
        });
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    fn diag(text: &str, search: &str, replace: &str) -> Diagnosis {
        not_found(
            text.as_bytes(),
            search,
            replace,
            "",
            &Budget::new(Duration::from_secs(5)),
        )
    }

    fn kinds(d: &Diagnosis) -> Vec<&'static str> {
        d.closest_match
            .as_ref()
            .expect("closest_match")
            .differences
            .iter()
            .map(|x| x.kind.as_str())
            .collect()
    }

    const RUST: &str = "use std::io;\n\nfn main() {\n    let name = \"world\";\n    println!(\"hello {name}\");\n    if name.is_empty() {\n        return;\n    }\n    let total = compute(1, 2);\n    println!(\"{total}\");\n}\n\nfn compute(a: i32, b: i32) -> i32 {\n    a + b\n}\n";

    #[test]
    fn line_endings() {
        let text = RUST.replace('\n', "\r\n");
        let d = diag(
            &text,
            "    if name.is_empty() {\n        return;\n    }",
            "x",
        );
        let c = d.closest_match.as_ref().unwrap();
        assert_eq!((c.line_number, c.end_line), (6, 8));
        assert_eq!(kinds(&d), vec!["line_endings"]);
        assert_eq!(
            c.text,
            "    if name.is_empty() {\r\n        return;\r\n    }"
        );
        assert_eq!(&text.as_bytes()[c.start..c.end], c.text.as_bytes());
        let m = d.message.unwrap();
        assert!(m.contains("line endings") && m.contains("CRLF"), "{m}");
        assert!(m.contains("match: [\"line_endings\"]"), "{m}");
    }

    #[test]
    fn indentation_tabs_vs_spaces_and_depth() {
        let text = RUST.replace("    ", "\t");
        let d = diag(
            &text,
            "    let total = compute(1, 2);\n    println!(\"{total}\");",
            "x",
        );
        let c = d.closest_match.as_ref().unwrap();
        assert_eq!((c.line_number, c.end_line), (9, 10));
        assert_eq!(kinds(&d), vec!["indentation"]);
        assert!(
            c.differences[0].detail.contains("1 tab"),
            "{:?}",
            c.differences
        );
        assert!(c.differences[0].detail.contains("4 spaces"));
        let d = diag(RUST, "  a + b\n", "x");
        assert_eq!(kinds(&d), vec!["indentation"]);
        assert_eq!(d.closest_match.unwrap().text, "    a + b\n");
    }

    #[test]
    fn trailing_whitespace() {
        let text = RUST.replace("return;\n", "return;  \n");
        let d = diag(&text, "        return;\n    }\n", "x");
        let c = d.closest_match.as_ref().unwrap();
        assert_eq!((c.line_number, c.end_line), (7, 8));
        assert_eq!(kinds(&d), vec!["trailing_whitespace"]);
        assert_eq!(c.text, "        return;  \n    }\n");
    }

    #[test]
    fn invisible_characters() {
        let text = RUST.replace("let total =", "let total\u{a0}=");
        let d = diag(&text, "    let total = compute(1, 2);", "x");
        let c = d.closest_match.as_ref().unwrap();
        assert_eq!(c.line_number, 9);
        assert_eq!(kinds(&d), vec!["invisible_characters"]);
        assert!(c.differences[0].detail.contains("U+00A0"));
        let d = diag(RUST, "fn compute(a: i32,\u{200b} b: i32) -> i32 {", "x");
        assert_eq!(kinds(&d), vec!["invisible_characters"]);
        assert!(d.message.unwrap().contains("U+200B"));
    }

    #[test]
    fn unicode_punctuation() {
        let d = diag(RUST, "    let name = “world”;", "x");
        let c = d.closest_match.as_ref().unwrap();
        assert_eq!(c.line_number, 4);
        assert_eq!(kinds(&d), vec!["unicode_punctuation"]);
        assert_eq!(c.text, "    let name = \"world\";");
        // Part of a line: the region narrows to the matching part.
        let d = diag(RUST, "name = “world”", "x");
        assert_eq!(d.closest_match.as_ref().unwrap().text, "name = \"world\"");
        assert_eq!(kinds(&d), vec!["unicode_punctuation"]);
    }

    #[test]
    fn escaping() {
        let d = diag(RUST, "    println!(\\\"hello {name}\\\");", "x");
        assert_eq!(d.closest_match.as_ref().unwrap().line_number, 5);
        assert_eq!(kinds(&d), vec!["escaping"]);
        // Literal \n instead of line breaks.
        let d = diag(
            RUST,
            "fn compute(a: i32, b: i32) -> i32 {\\n    a + b\\n}",
            "x",
        );
        let c = d.closest_match.as_ref().unwrap();
        assert_eq!((c.line_number, c.end_line), (13, 15));
        assert_eq!(kinds(&d), vec!["escaping"]);
    }

    #[test]
    fn case() {
        let d = diag(RUST, "fn Compute(a: i32, b: i32) -> i32 {", "x");
        assert_eq!(d.closest_match.as_ref().unwrap().line_number, 13);
        assert_eq!(kinds(&d), vec!["case"]);
    }

    #[test]
    fn content_and_combined() {
        let d = diag(
            RUST,
            "    let total = compute(1, 3);\n    println!(\"{total}\");",
            "x",
        );
        let c = d.closest_match.as_ref().unwrap();
        assert_eq!((c.line_number, c.end_line), (9, 10));
        assert_eq!(kinds(&d), vec!["content"]);
        assert!(d.message.unwrap().contains("changed since it was read"));
        let text = RUST.replace('\n', "\r\n");
        let d = diag(
            &text,
            "    let total = compute(1, 3);\n    println!(\"{total}\");\n",
            "x",
        );
        assert_eq!(kinds(&d), vec!["line_endings", "content"]);
    }

    #[test]
    fn nothing_similar_gives_no_candidate() {
        let d = diag(RUST, "SELECT * FROM accounts WHERE id = 7", "x");
        assert_eq!(d.closest_match, None);
        assert_eq!(d.message, None);
    }

    #[test]
    fn already_applied() {
        let d = diag(
            RUST,
            "let total = compute(1, 1);",
            "let total = compute(1, 2);",
        );
        assert_eq!(d.already_applied, Some((9, 9)));
        let m = d.message.unwrap();
        assert!(m.contains("already") && m.contains("line 9"), "{m}");
        // Too short to prove anything.
        assert_eq!(diag(RUST, "a + c", "a + b").already_applied, None);
        // Not unique: no claim.
        let text = format!("{RUST}{RUST}");
        assert_eq!(
            diag(&text, "zzz", "let name = \"world\";").already_applied,
            None
        );
        // CRLF file, LF replacement.
        let text = RUST.replace('\n', "\r\n");
        let d = diag(
            &text,
            "q",
            "fn compute(a: i32, b: i32) -> i32 {\n    a + b\n",
        );
        assert_eq!(d.already_applied, Some((13, 14)));
    }

    #[test]
    fn ambiguous_hints_are_minimal_and_unique() {
        let text = "fn a() {\n    x += 1;\n}\nfn b() {\n    x += 1;\n}\nfn c() {\n    y();\n    x += 1;\n}\n";
        let d = ambiguous(
            text.as_bytes(),
            b"    x += 1;\n",
            &Budget::new(Duration::from_secs(5)),
        );
        assert!(!d.incomplete);
        assert_eq!(d.unique_context_hint.len(), 3);
        for h in &d.unique_context_hint {
            assert_eq!(text.matches(h.search_block.as_str()).count(), 1, "{h:?}");
            assert!(h.search_block.contains("    x += 1;\n"));
        }
        let h = &d.unique_context_hint[0];
        assert_eq!(
            (h.match_line, h.line_number, h.lines_before, h.lines_after),
            (2, 1, 1, 0)
        );
        assert_eq!(h.search_block, "fn a() {\n    x += 1;\n");
        let h = &d.unique_context_hint[2];
        assert_eq!((h.match_line, h.lines_before, h.lines_after), (9, 1, 0));
        assert_eq!(h.search_block, "    y();\n    x += 1;\n");
    }

    #[test]
    fn ambiguous_hint_after_and_none_when_identical() {
        let text = "start\nlog();\nalpha\nlog();\nbeta\n";
        let d = ambiguous(
            text.as_bytes(),
            b"log();",
            &Budget::new(Duration::from_secs(5)),
        );
        let h = &d.unique_context_hint[0];
        assert_eq!(text.matches(h.search_block.as_str()).count(), 1);
        assert_eq!(h.lines_before + h.lines_after, 1);
        // Two identical 50-line halves, block in the middle of each: no
        // extension within MAX_HINT_LINES reaches a line that differs.
        let half: String = (0..50).map(|i| format!("line {i}\n")).collect();
        let twin = format!("{half}{half}");
        let d = ambiguous(
            twin.as_bytes(),
            b"line 25\n",
            &Budget::new(Duration::from_secs(5)),
        );
        assert!(d.unique_context_hint.is_empty());
    }

    #[test]
    fn budget_gives_up_on_huge_input() {
        // ~6 MB, with the search block's lines near the end.
        let mut text = "let value = compute(item, 42);\n".repeat(200_000);
        text.push_str(RUST);
        let search = "    let total = compute(1, 3);\n    println!(\"{total}\");";
        // Two checks allow the start; the scan checks every CHECK_EVERY
        // lines and must stop long before its end.
        let d = not_found(text.as_bytes(), search, "x", "", &Budget::checks(2));
        assert!(d.incomplete);
        assert_eq!(d.closest_match, None);
        assert!(d.message.unwrap().contains("too large"));
        // An expired budget is honoured before any scanning.
        let d = not_found(text.as_bytes(), search, "x", "", &Budget::checks(0));
        assert!(d.incomplete);
        // With budget, the same input is diagnosed.
        let d = not_found(
            text.as_bytes(),
            search,
            "x",
            "",
            &Budget::new(Duration::from_secs(60)),
        );
        assert!(!d.incomplete);
        assert_eq!(d.closest_match.unwrap().line_number, 200_009);
        let d = ambiguous(text.as_bytes(), b"compute(item", &Budget::checks(1));
        assert!(d.incomplete);
    }

    #[test]
    fn scan_checks_budget_per_chunk_of_lines() {
        // The scan checks once per CHECK_EVERY lines: with n checks it gives
        // up after about n chunks, before the last line.
        let text = "x = 1\n".repeat(CHECK_EVERY * 10);
        let s = [SLine::new(b"y = 2")];
        let mut votes = HashMap::new();
        assert!(scan(text.as_bytes(), &s, &mut votes, &Budget::checks(5)).is_err());
        assert!(scan(text.as_bytes(), &s, &mut votes, &Budget::checks(11)).is_ok());
    }

    use proptest::prelude::*;

    /// Texts over the characters diagnosis cares about.
    fn texty() -> impl Strategy<Value = String> {
        proptest::collection::vec(
            prop_oneof![
                Just("a"),
                Just("b"),
                Just("if x"),
                Just(" "),
                Just("\t"),
                Just("\n"),
                Just("\r\n"),
                Just("\\"),
                Just("\""),
                Just("“"),
                Just("—"),
                Just("\u{a0}"),
                Just("\u{200b}"),
                Just("B"),
                Just("…"),
            ],
            0..60,
        )
        .prop_map(|v| v.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]
        // Whatever the input: no panic, and a closest match is a real region
        // whose text and line numbers agree with its byte range.
        #[test]
        fn closest_match_is_consistent(text in texty(), search in texty(), cut in 0usize..60, len in 1usize..30) {
            // Half the time, search a mutated piece of the text.
            let chars: Vec<char> = text.chars().collect();
            let search = if cut % 2 == 0 && !chars.is_empty() {
                let a = cut.min(chars.len() - 1);
                let b = (a + len).min(chars.len());
                let piece: String = chars[a..b].iter().collect();
                piece.replace(' ', "  ").replace('“', "\"")
            } else {
                search
            };
            prop_assume!(!search.is_empty() && !text.contains(&search));
            let d = not_found(text.as_bytes(), &search, "r", "", &Budget::new(Duration::from_secs(5)));
            if let Some(c) = d.closest_match {
                prop_assert!(c.start <= c.end && c.end <= text.len());
                prop_assert_eq!(&c.text, &text[c.start..c.end]);
                prop_assert_eq!(c.line_number, 1 + text[..c.start].matches('\n').count());
                // The last line is the one the region's final newline ends,
                // or the one it stops inside.
                let newlines = memchr::memchr_iter(b'\n', &text.as_bytes()[..c.end]).count();
                let ends_line = c.end > c.start && text.as_bytes()[c.end - 1] == b'\n';
                prop_assert_eq!(c.end_line, newlines + usize::from(!ends_line));
                prop_assert!(!c.differences.is_empty());
            }
        }

        // Every hint occurs exactly once and contains the block.
        #[test]
        fn hints_are_unique(text in texty(), a in 0usize..60, len in 1usize..6) {
            let chars: Vec<char> = text.chars().collect();
            prop_assume!(!chars.is_empty());
            let a = a.min(chars.len() - 1);
            let block: String = chars[a..(a + len).min(chars.len())].iter().collect();
            let d = ambiguous(text.as_bytes(), block.as_bytes(), &Budget::new(Duration::from_secs(5)));
            for h in &d.unique_context_hint {
                prop_assert!(h.search_block.contains(&block));
                prop_assert_eq!(memmem::find_iter(text.as_bytes(), h.search_block.as_bytes()).count(), 1);
                prop_assert_eq!(text.matches(&h.search_block).count(), 1, "{:?}", h);
            }
        }
    }

    #[test]
    fn key_folds_what_diagnosis_can_name() {
        assert_eq!(
            key_vec("  Say(“hi”) \\\u{a0}\u{200b}\r".as_bytes()),
            b"say(\"hi\")"
        );
        assert_eq!(key_vec("a—b…".as_bytes()), b"a-b...");
        assert_eq!(key_vec(b"caf\xE9"), "caf\u{FFFD}".as_bytes());
    }
}
