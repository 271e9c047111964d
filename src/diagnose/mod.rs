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
//! Lines are compared by *key* (whitespace, backslashes, invisible
//! characters and case dropped, typographic punctuation folded to ASCII).
//! Keying every line of a file runs at about 0.5 GB/s, several times the
//! cost of reading it, so candidates are first found by *anchors*: pieces
//! of the block that a near miss usually leaves intact (each line without
//! its surrounding whitespace, then single words), searched verbatim with
//! `memmem` over 64 KiB chunks (all needles of a pass run over a chunk while
//! it is in cache, and the first pass also counts lines, so hits get line
//! numbers for free). Each file line a piece hits votes for the block start
//! it implies; the best starts are scored precisely, with windows a couple
//! of lines longer or shorter. Usually the first pass (one needle, the
//! longest intact line) settles it, and the `already_applied` search rides
//! along with that pass. Only when no piece leads to a plausible region
//! does the full scan key every line (with a bigram pass for blocks whose
//! lines all changed). Anchor passes check a [`Budget`] every chunk and the
//! scan every [`CHECK_EVERY`] lines, so a huge file makes the diagnosis give
//! up (`diagnosis_incomplete: true`) instead of stalling.

use std::cell::Cell;
use std::collections::HashMap;
use std::time::{Duration, Instant};

use memchr::{memchr, memmem, memrchr};
use serde_json::{json, Map, Value};
use similar::{capture_diff_slices_deadline, get_diff_ratio, Algorithm, DiffTag};

pub use crate::text::fold::Kind;
use crate::text::fold::{char_name, invisible, punct_ascii};
use crate::text::indent::nesting_agrees;

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
// Characters

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

/// Line starts of a run of a text's lines, `lo()..hi()` (0-based line
/// numbers of the whole text): the whole text after a full scan, or a few
/// lines around a candidate found by anchors.
struct FileLines<'a> {
    text: &'a [u8],
    /// Line number of `starts[0]`.
    first: usize,
    /// Byte offset of each line's start, then of the line after the last
    /// (`text.len() + 1` when the last is the text's last line).
    starts: Vec<usize>,
}

impl<'a> FileLines<'a> {
    /// First line held.
    fn lo(&self) -> usize {
        self.first
    }

    /// One past the last line held.
    fn hi(&self) -> usize {
        self.first + self.starts.len() - 1
    }

    /// Byte offset where line `j` starts.
    fn start(&self, j: usize) -> usize {
        self.starts[j - self.first]
    }

    /// Line `j` without its `\n` (a `\r` stays).
    fn line(&self, j: usize) -> &'a [u8] {
        &self.text[self.start(j)..self.end(j)]
    }

    /// Byte offset where line `j`'s content ends (its `\n`, or the end).
    fn end(&self, j: usize) -> usize {
        self.starts[j - self.first + 1] - 1
    }

    /// The lines `line - before .. line + after` (clamped to the text)
    /// around line `line`, which starts at byte `at`.
    fn around(text: &'a [u8], at: usize, line: usize, before: usize, after: usize) -> Self {
        let mut back = Vec::new();
        let mut s = at;
        while back.len() < before && s > 0 {
            s = memrchr(b'\n', &text[..s - 1]).map_or(0, |k| k + 1);
            back.push(s);
        }
        let first = line - back.len();
        let mut starts: Vec<usize> = back.into_iter().rev().collect();
        starts.push(at);
        let mut p = at;
        for _ in 0..after.max(1) {
            match memchr(b'\n', &text[p.min(text.len())..]) {
                Some(k) => {
                    p += k + 1;
                    starts.push(p);
                }
                None => {
                    starts.push(text.len() + 1);
                    break;
                }
            }
        }
        FileLines {
            text,
            first,
            starts,
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
    starts.push(text.len() + 1);
    Ok(FileLines {
        text,
        first: 0,
        starts,
    })
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
    for j in lines.lo()..lines.hi() {
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

/// Cached keys of file lines, by line number.
#[derive(Default)]
struct FKeys {
    cache: HashMap<usize, SLine>,
}

impl FKeys {
    fn get(&mut self, j: usize, lines: &FileLines<'_>) -> &SLine {
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

/// The best window for a block that would start at line `start`: the
/// window itself, or one shifted by up to two lines, or up to two lines
/// longer or shorter (lines added or removed since). Only lines `lines`
/// holds are considered.
fn best_window(
    s: &[SLine],
    start: isize,
    lines: &FileLines<'_>,
    keys: &mut FKeys,
    deadline: Instant,
) -> Option<Found> {
    let n = s.len() as isize;
    let shifts: &[isize] = if n <= 200 { &[0, -1, 1, -2, 2] } else { &[0] };
    let mut best: Option<Found> = None;
    for &ds in shifts {
        for &dl in shifts {
            let (st, len) = (start + ds, n + dl);
            if st < lines.lo() as isize || len < 1 || st + len > lines.hi() as isize {
                continue;
            }
            let (st, len) = (st as usize, len as usize);
            for j in st..st + len {
                keys.get(j, lines);
            }
            let f: Vec<&SLine> = (st..st + len).map(|j| &keys.cache[&j]).collect();
            let score = window_score(s, &f, deadline);
            if best.is_none_or(|b| score > b.score + 1e-9) {
                best = Some(Found {
                    start: st,
                    len,
                    score,
                });
            }
        }
    }
    best
}

/// The best of the windows found (the first one among equals) if it scores
/// at least [`MIN_SIMILARITY`], with its index and the start lines of the
/// other regions exactly as close (the block does not tell them apart).
fn pick(bests: &[Found]) -> Option<(usize, Vec<usize>)> {
    let (at, best) = bests
        .iter()
        .copied()
        .enumerate()
        .reduce(|a, b| if b.1.score > a.1.score + 1e-9 { b } else { a })
        .filter(|(_, b)| b.score >= MIN_SIMILARITY)?;
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
    Some((at, equally))
}

/// The region most like the block, if any scores at least [`MIN_SIMILARITY`].
type Closest<'a> = (Found, Vec<usize>, FileLines<'a>);

/// The region most like `search`, and whether the search was cut short by
/// the budget (a region found before that is still returned). Anchors are
/// tried first; only when they find nothing plausible is every line of the
/// file compared.
fn closest<'a>(
    scanner: &mut Scanner<'a>,
    search: &[u8],
    budget: &Budget,
) -> (Option<Closest<'a>>, bool) {
    let (slines, _) = block_lines(search);
    let s: Vec<SLine> = slines.iter().map(|l| SLine::new(l)).collect();
    match anchored(scanner, &slines, &s, budget) {
        Anchored::Found(c, incomplete) => (Some(c), incomplete),
        Anchored::GaveUp => (None, true),
        Anchored::Nothing => match closest_by_scan(scanner.text, &s, budget) {
            Ok(c) => (c, false),
            Err(GaveUp) => (None, true),
        },
    }
}

/// The full scan: every line of the file keyed and compared with the
/// block's lines (linear, but about 0.5 GB/s; checks the budget every
/// [`CHECK_EVERY`] lines).
fn closest_by_scan<'a>(
    text: &'a [u8],
    s: &[SLine],
    budget: &Budget,
) -> Result<Option<Closest<'a>>, GaveUp> {
    let mut votes: HashMap<isize, f64> = HashMap::new();
    let lines = scan(text, s, &mut votes, budget)?;
    let total: f64 = s.iter().map(|l| l.w).sum();
    let best = votes.values().copied().fold(0.0, f64::max);
    if best < 0.5 * total {
        probe_votes(&lines, s, &mut votes, budget)?;
    }
    let mut cands: Vec<(isize, f64)> = votes.into_iter().collect();
    cands.sort_by(|x, y| y.1.total_cmp(&x.1).then(x.0.cmp(&y.0)));
    cands.truncate(CANDIDATES);
    let mut keys = FKeys::default();
    // The best window around each candidate start.
    let mut bests: Vec<Found> = Vec::with_capacity(cands.len());
    for &(start, _) in &cands {
        if budget.expired() {
            break;
        }
        let deadline = budget.step_deadline();
        bests.extend(best_window(s, start, &lines, &mut keys, deadline));
    }
    Ok(pick(&bests).map(|(at, equally)| (bests[at], equally, lines)))
}

// ---------------------------------------------------------------------------
// Anchors

/// Bytes of the text searched per step of an anchor pass (the needles of a
/// pass all run over one chunk while it is in cache; the budget is checked
/// once per chunk).
const CHUNK: usize = 64 << 10;
/// Shortest piece of the block searched for.
const MIN_PIECE: usize = 4;
/// A piece that occurs more often than this tells regions apart too poorly
/// to be worth its votes.
const MAX_PIECE_HITS: usize = 10_000;
/// Most whole-line and most word pieces searched.
const MAX_PIECES: usize = 16;
/// Line pieces searched together in each pass: the first pass takes one
/// (and a word), later passes more, so the common case (the first line
/// piece is intact) costs one pass.
const LINE_ROUNDS: [usize; 4] = [1, 3, 4, 8];
/// Word pieces searched together in each pass.
const WORD_ROUNDS: [usize; 3] = [2, 6, 8];
/// A region scoring at least this ends the search for anchors (once every
/// start the pieces point at was ranked).
const CONFIDENT: f64 = 0.9;
/// Most candidate starts ranked by how the whole block lines up there.
const MAX_RANKED: usize = 2048;
/// File lines longer than this get no vote when a piece hits them (keying
/// a minified megabyte line per hit would cost more than the pass).
const LONG_LINE: usize = 64 << 10;

/// The text, searched for exact pieces in passes of a few needles each.
/// The line number at the start of every chunk is counted during the first
/// pass and reused after.
struct Scanner<'a> {
    text: &'a [u8],
    chunk_lines: Vec<usize>,
    counted: bool,
    /// Needles (with their caps) that ride along with the next pass, and
    /// what that pass found for them.
    riders: Vec<(Vec<u8>, usize)>,
    rider_hits: Option<Vec<Hits>>,
}

/// Where a needle occurs: byte offset and 0-based line number of each
/// occurrence, or `None` when it occurs more than the cap.
type Hits = Option<Vec<(usize, usize)>>;

impl<'a> Scanner<'a> {
    fn new(text: &'a [u8]) -> Self {
        Scanner {
            text,
            chunk_lines: Vec::new(),
            counted: false,
            riders: Vec::new(),
            rider_hits: None,
        }
    }

    /// Every occurrence of each needle (non-empty; at most `cap` of them),
    /// in one pass over the text that also looks for the riders, if any.
    fn find(
        &mut self,
        needles: &[&[u8]],
        cap: usize,
        budget: &Budget,
    ) -> Result<Vec<Hits>, GaveUp> {
        let riders = std::mem::take(&mut self.riders);
        let mut all: Vec<(&[u8], usize)> = needles.iter().map(|&n| (n, cap)).collect();
        all.extend(riders.iter().map(|(n, c)| (n.as_slice(), *c)));
        let mut out = self.find_all(&all, budget)?;
        if !riders.is_empty() {
            self.rider_hits = Some(out.split_off(needles.len()));
        }
        Ok(out)
    }

    fn find_all(
        &mut self,
        needles: &[(&[u8], usize)],
        budget: &Budget,
    ) -> Result<Vec<Hits>, GaveUp> {
        let text = self.text;
        let finders: Vec<memmem::Finder<'_>> =
            needles.iter().map(|n| memmem::Finder::new(n.0)).collect();
        let reach = needles.iter().map(|n| n.0.len()).max().unwrap_or(1).max(1) - 1;
        let mut out: Vec<Hits> = needles.iter().map(|_| Some(Vec::new())).collect();
        let mut counts = vec![0usize; needles.len()];
        let mut local: Vec<(usize, usize)> = Vec::new();
        let (mut c, mut chunk, mut line) = (0usize, 0usize, 0usize);
        while c < text.len() {
            if budget.expired() {
                if !self.counted {
                    self.chunk_lines.clear();
                }
                return Err(GaveUp);
            }
            let e = (c + CHUNK).min(text.len());
            let window = &text[c..(e + reach).min(text.len())];
            local.clear();
            for (k, f) in finders.iter().enumerate() {
                if out[k].is_none() {
                    continue;
                }
                for p in f.find_iter(window) {
                    if c + p >= e {
                        break;
                    }
                    counts[k] += 1;
                    if counts[k] > needles[k].1 {
                        out[k] = None;
                        local.retain(|&(_, x)| x != k);
                        break;
                    }
                    local.push((c + p, k));
                }
            }
            let base = if self.counted {
                self.chunk_lines[chunk]
            } else {
                line
            };
            local.sort_unstable();
            let (mut at, mut l) = (c, base);
            for &(p, k) in &local {
                l += memchr::memchr_iter(b'\n', &text[at..p]).count();
                at = p;
                if let Some(v) = &mut out[k] {
                    v.push((p, l));
                }
            }
            if !self.counted {
                self.chunk_lines.push(base);
                line = l + memchr::memchr_iter(b'\n', &text[at..e]).count();
            }
            c = e;
            chunk += 1;
        }
        self.counted = true;
        Ok(out)
    }
}

/// A piece of the block searched for verbatim, and the block lines it
/// comes from.
struct Piece {
    bytes: Vec<u8>,
    lines: Vec<usize>,
}

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | 0x0b | 0x0c)
}

/// Bytes a near miss often changes inside a line: quotes and backslashes
/// (escaping, typographic quotes) and anything non-ASCII (typographic
/// punctuation, invisible characters).
fn is_fragile(b: u8) -> bool {
    matches!(b, b'\'' | b'"' | b'`' | b'\\') || b >= 0x80
}

fn trim_space(mut l: &[u8]) -> &[u8] {
    while let [first, rest @ ..] = l {
        if !is_space(*first) {
            break;
        }
        l = rest;
    }
    while let [rest @ .., last] = l {
        if !is_space(*last) {
            break;
        }
        l = rest;
    }
    l
}

/// Adds `bytes` (from block line `i`) to `pieces`, merging equal pieces.
fn add_piece(pieces: &mut Vec<Piece>, bytes: &[u8], i: usize) {
    if bytes.len() < MIN_PIECE {
        return;
    }
    match pieces.iter_mut().find(|p| p.bytes == bytes) {
        Some(p) => {
            if p.lines.len() < 8 && !p.lines.contains(&i) {
                p.lines.push(i);
            }
        }
        None => pieces.push(Piece {
            bytes: bytes.to_vec(),
            lines: vec![i],
        }),
    }
}

/// Each block line without its surrounding whitespace (indentation,
/// trailing whitespace and line endings are the commonest differences):
/// lines without fragile bytes first, then longest first (the longest
/// lines are the likeliest to be unique).
fn line_pieces(slines: &[&[u8]]) -> Vec<Piece> {
    let mut pieces = Vec::new();
    for (i, l) in slines.iter().enumerate() {
        add_piece(&mut pieces, trim_space(l), i);
    }
    pieces.sort_by_key(|p| {
        (
            p.bytes.iter().any(|&b| is_fragile(b)),
            std::cmp::Reverse(p.bytes.len()),
            p.lines[0],
        )
    });
    pieces.truncate(MAX_PIECES);
    pieces
}

/// The words of the block lines, split at whitespace, fragile bytes and
/// dashes, longest first: for lines that differ inside (letter case, a
/// quote, a no-break space), some word usually survives intact.
fn word_pieces(slines: &[&[u8]], lines: &[Piece]) -> Vec<Piece> {
    let mut pieces = Vec::new();
    for (i, l) in slines.iter().enumerate() {
        for w in l.split(|&b| is_space(b) || is_fragile(b) || b == b'-') {
            if !lines.iter().any(|p| p.bytes == w) {
                add_piece(&mut pieces, w, i);
            }
        }
    }
    pieces.sort_by_key(|p| (std::cmp::Reverse(p.bytes.len()), p.lines[0]));
    pieces.truncate(MAX_PIECES);
    pieces
}

/// Votes for a block start: their weight, and a line they came from (its
/// number and byte offset) to find the region from.
struct Vote {
    w: f64,
    line: usize,
    at: usize,
}

/// How well the block lines up with the file's lines from line `start`
/// (no shifts): the weight of lines with an equal key, plus partial credit
/// for similar ones. Cheap enough to rank many candidates.
fn aligned_score(text: &[u8], s: &[SLine], start: isize, v: &Vote, keys: &mut FKeys) -> f64 {
    if start < 0 {
        return 0.0;
    }
    let lines = FileLines::around(
        text,
        v.at,
        v.line,
        v.line - start as usize,
        (start + s.len() as isize - v.line as isize).max(1) as usize,
    );
    let mut got = 0.0;
    for (i, l) in s.iter().enumerate() {
        let j = start as usize + i;
        if j >= lines.hi() {
            break;
        }
        let f = keys.get(j, &lines);
        got += if f.hash == l.hash {
            l.w
        } else {
            let sim = line_sim(&l.key, &f.key);
            if sim >= 0.4 {
                sim * l.w
            } else {
                0.0
            }
        };
    }
    got
}

enum Anchored<'a> {
    /// A plausible region (and whether the budget ran out before the
    /// search was done).
    Found(Closest<'a>, bool),
    /// No piece led to a plausible region.
    Nothing,
    /// The budget ran out before any plausible region was found.
    GaveUp,
}

/// What the anchored search has learned so far.
struct Anchors<'a, 's> {
    text: &'a [u8],
    s: &'s [SLine],
    votes: HashMap<isize, Vote>,
    /// (file line, block line) pairs that voted already.
    seen: std::collections::HashSet<(usize, usize)>,
    keys: FKeys,
    /// Starts scored so far; the best window of each, and the lines
    /// around it; the best score.
    scored: std::collections::HashSet<isize>,
    bests: Vec<Found>,
    windows: Vec<FileLines<'a>>,
    best: f64,
    incomplete: bool,
}

impl<'a> Anchors<'a, '_> {
    /// Votes of the file lines that `hits` (byte offset, line number, and
    /// index in `pieces`, in offset order) fall on.
    fn vote(&mut self, hits: &[(usize, usize, usize)], pieces: &[&Piece]) {
        let (text, s) = (self.text, self.s);
        let mut cur: Option<(usize, usize, usize)> = None;
        let mut fkey: Option<(u64, usize, Vec<u8>)> = None;
        for &(p, h, k) in hits {
            let (ls, le) = match cur {
                Some((ch, ls, le)) if ch == h => (ls, le),
                _ => {
                    let ls = memrchr(b'\n', &text[..p]).map_or(0, |x| x + 1);
                    let le = memchr(b'\n', &text[p..]).map_or(text.len(), |x| p + x);
                    cur = Some((h, ls, le));
                    fkey = None;
                    (ls, le)
                }
            };
            if le - ls > LONG_LINE {
                continue;
            }
            let fl = &text[ls..le];
            for &i in &pieces[k].lines {
                if !self.seen.insert((h, i)) {
                    continue;
                }
                let (fh, flen, fk) = fkey.get_or_insert_with(|| {
                    let k = key_vec(fl);
                    (hash_of(&k), k.len(), k)
                });
                let v = if *fh == s[i].hash
                    && *flen >= MIN_ANCHOR_KEY
                    && s[i].key.len() >= MIN_ANCHOR_KEY
                {
                    s[i].w
                } else {
                    let sim = line_sim(&s[i].key, fk);
                    if sim >= 0.4 {
                        sim * s[i].w
                    } else {
                        0.0
                    }
                };
                if v > 0.0 {
                    self.votes
                        .entry(h as isize - i as isize)
                        .or_insert(Vote {
                            w: 0.0,
                            line: h,
                            at: ls,
                        })
                        .w += v;
                }
            }
        }
    }

    /// Scores the best-voted starts not scored yet. When the votes point at
    /// more than [`CANDIDATES`] starts (common lines), the starts are first
    /// ranked by how the whole block lines up there.
    fn score(&mut self, budget: &Budget) {
        let (text, s) = (self.text, self.s);
        let mut cands: Vec<(isize, f64)> = self.votes.iter().map(|(&st, v)| (st, v.w)).collect();
        cands.sort_by(|x, y| y.1.total_cmp(&x.1).then(x.0.cmp(&y.0)));
        if cands.len() > CANDIDATES {
            cands.truncate(MAX_RANKED);
            let mut ranked = Vec::with_capacity(cands.len());
            for (k, &(start, _)) in cands.iter().enumerate() {
                if k % 64 == 0 && budget.expired() {
                    self.incomplete = true;
                    return;
                }
                let v = &self.votes[&start];
                ranked.push((start, aligned_score(text, s, start, v, &mut self.keys)));
            }
            ranked.sort_by(|x, y| y.1.total_cmp(&x.1).then(x.0.cmp(&y.0)));
            cands = ranked;
        }
        cands.truncate(CANDIDATES);
        for (start, _) in cands {
            if self.scored.contains(&start) {
                continue;
            }
            if budget.expired() {
                self.incomplete = true;
                return;
            }
            let v = &self.votes[&start];
            let lo = (start - 2).max(0) as usize;
            let hi = start + s.len() as isize + 4;
            let lines = FileLines::around(
                text,
                v.at,
                v.line,
                v.line - lo,
                (hi - v.line as isize) as usize,
            );
            let deadline = budget.step_deadline();
            self.scored.insert(start);
            if let Some(f) = best_window(s, start, &lines, &mut self.keys, deadline) {
                self.best = self.best.max(f.score);
                self.bests.push(f);
                self.windows.push(lines);
            }
        }
    }

    /// Whether to stop: the budget ran out, or every start the pieces
    /// searched so far point at was ranked and the best is close.
    fn done(&self) -> bool {
        self.incomplete || (self.votes.len() <= MAX_RANKED && self.best >= CONFIDENT)
    }
}

/// Finds candidate regions from exact occurrences of pieces of the block
/// (memmem, over 10 GB/s) instead of keying every line of the file: whole
/// lines without their surrounding whitespace first, then words. Each file
/// line a piece hits votes, like in the full scan, for the block start it
/// implies (fully when its key equals the block line's, partly when it is
/// only similar); the best starts are scored precisely ([`Anchors::score`]).
/// Passes stop once every start was ranked and one scores [`CONFIDENT`];
/// words are searched only while no plausible region was found.
fn anchored<'a>(
    scanner: &mut Scanner<'a>,
    slines: &[&[u8]],
    s: &[SLine],
    budget: &Budget,
) -> Anchored<'a> {
    let lp = line_pieces(slines);
    let wp = word_pieces(slines, &lp);
    // The first pass looks for the first line piece and, riding along, for
    // the longest word it does not contain (so one pass also covers a block
    // whose lines all changed a little; its hits are used only when the
    // line piece's do not settle it); then the other line pieces, then
    // words (only while nothing plausible was found).
    let first_word = wp.iter().position(|w| {
        lp.first()
            .is_none_or(|l| memmem::find(&l.bytes, &w.bytes).is_none())
    });
    let all: Vec<&Piece> = lp.iter().chain(&wp).collect();
    let word_index = |k: usize| lp.len() + k;
    // Each round: pieces searched in one pass, how many of them are used
    // first (the rest only if those do not settle it), whether words.
    let mut rounds: Vec<(Vec<usize>, usize, bool)> = Vec::new();
    let mut at = 0;
    for size in LINE_ROUNDS {
        if at < lp.len() {
            let end = (at + size).min(lp.len());
            let mut round: Vec<usize> = (at..end).collect();
            if at == 0 {
                round.extend(first_word.map(word_index));
            }
            rounds.push((round, end - at, false));
            at = end;
        }
    }
    let words: Vec<usize> = (0..wp.len())
        .filter(|&k| lp.is_empty() || Some(k) != first_word)
        .map(word_index)
        .collect();
    let mut at = 0;
    for size in WORD_ROUNDS {
        if at < words.len() {
            let end = (at + size).min(words.len());
            rounds.push((words[at..end].to_vec(), end - at, true));
            at = end;
        }
    }
    let mut st = Anchors {
        text: scanner.text,
        s,
        votes: HashMap::new(),
        seen: Default::default(),
        keys: FKeys::default(),
        scored: Default::default(),
        bests: Vec::new(),
        windows: Vec::new(),
        best: 0.0,
        incomplete: false,
    };
    'rounds: for (round, first, words) in rounds {
        if words && st.best >= MIN_SIMILARITY {
            break;
        }
        let pieces: Vec<&Piece> = round.iter().map(|&k| all[k]).collect();
        let needles: Vec<&[u8]> = pieces.iter().map(|p| p.bytes.as_slice()).collect();
        let found = match scanner.find(&needles, MAX_PIECE_HITS, budget) {
            Ok(f) => f,
            Err(GaveUp) => {
                st.incomplete = true;
                break;
            }
        };
        for stage in [0..first, first..pieces.len()] {
            let mut hits: Vec<(usize, usize, usize)> = stage
                .flat_map(|k| found[k].iter().flatten().map(move |&(p, l)| (p, l, k)))
                .collect();
            if hits.is_empty() {
                continue;
            }
            hits.sort_unstable();
            st.vote(&hits, &pieces);
            st.score(budget);
            if st.done() {
                break 'rounds;
            }
        }
    }
    match pick(&st.bests) {
        Some((at, equally)) => {
            let lines = st.windows.swap_remove(at);
            Anchored::Found((st.bests[at], equally, lines), st.incomplete)
        }
        None if st.incomplete => Anchored::GaveUp,
        None => Anchored::Nothing,
    }
}

/// Byte range of the found lines, narrowed on the first and last line when
/// the block covers only part of them (a block that starts mid-line or
/// ends mid-line), and including the final newline when the block has one.
fn region(lines: &FileLines<'_>, found: Found, search: &[u8]) -> (usize, usize) {
    let (slines, ends_nl) = block_lines(search);
    let first = found.start;
    let last = found.start + found.len - 1;
    let mut start = lines.start(first);
    let mut end = lines.end(last);
    if ends_nl && end < lines.text.len() {
        end += 1;
    } else if !ends_nl
        && end > start
        && end - 1 > lines.start(last)
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
            let base = lines.start(first);
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
            let base = lines.start(last);
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

/// The forms of `replace` that would show the edit was already made: as
/// written, and with CRLF line endings (that form can only occur in a file
/// that has them). None for a replacement too short to prove anything.
fn applied_needles(replace: &str) -> Vec<Vec<u8>> {
    let visible = replace.bytes().filter(|b| !b.is_ascii_whitespace()).count();
    if visible < MIN_APPLIED_LEN {
        return Vec::new();
    }
    let mut needles = vec![replace.as_bytes().to_vec()];
    if replace.contains('\n') && !replace.contains("\r\n") {
        needles.push(replace.replace('\n', "\r\n").into_bytes());
    }
    needles
}

/// 1-based first and last line of the first of `needles` that occurs
/// exactly once, given where each occurs.
fn applied_at(text: &[u8], needles: &[Vec<u8>], hits: &[Hits]) -> Option<(usize, usize)> {
    hits.iter()
        .zip(needles)
        .find_map(|(hits, needle)| match hits.as_deref() {
            Some(&[(p, line)]) => {
                let last = (p + needle.len() - 1).max(p);
                let inner = memchr::memchr_iter(b'\n', &text[p..last]).count();
                Some((line + 1, line + 1 + inner))
            }
            _ => None,
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
    let mut scanner = Scanner::new(text);
    // The replacement is looked for along with the first anchor pass.
    let applied = applied_needles(replace);
    scanner.riders = applied.iter().map(|n| (n.clone(), 1)).collect();
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
            let (found, incomplete) = closest(&mut scanner, s.as_bytes(), budget);
            if let Some((found, equally, lines)) = found {
                if best.as_ref().is_none_or(|b| found.score > b.0.score) {
                    let r = region(&lines, found, s.as_bytes());
                    best = Some((found, equally, r, s, literal));
                }
            }
            if incomplete {
                d.incomplete = true;
                break;
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
                && nesting_agrees(s, &ftext, start == 0 || text[start - 1] == b'\n');
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
    if !applied.is_empty() {
        // Found by the first anchor pass, or (when there was none) by a
        // pass of its own.
        let hits = match scanner.rider_hits.take() {
            Some(h) => Some(h),
            None if d.incomplete => None,
            None => {
                let needles: Vec<&[u8]> = applied.iter().map(Vec::as_slice).collect();
                scanner.riders.clear();
                match scanner.find(&needles, 1, budget) {
                    Ok(h) => Some(h),
                    Err(GaveUp) => {
                        d.incomplete = true;
                        None
                    }
                }
            }
        };
        d.already_applied = hits.and_then(|h| applied_at(text, &applied, &h));
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

    #[test]
    fn scanner_finds_across_chunks_with_line_numbers() {
        let mut text = Vec::new();
        let mut i = 0;
        while text.len() < 3 * CHUNK + 100 {
            text.extend_from_slice(format!("line {i:08} of the generated text\n").as_bytes());
            i += 1;
        }
        // Occurrences straddling chunk boundaries, starting right at one,
        // and ending the text.
        let end = text.len() - 10;
        for at in [CHUNK - 3, 2 * CHUNK - 9, 2 * CHUNK + 20, 3 * CHUNK, end] {
            text[at..at + 10].copy_from_slice(b"NEEDLE-xyz");
        }
        let line_of = |p: usize| memchr::memchr_iter(b'\n', &text[..p]).count();
        let expect: Vec<(usize, usize)> = memmem::find_iter(&text, b"NEEDLE-xyz")
            .map(|p| (p, line_of(p)))
            .collect();
        assert_eq!(expect.len(), 5);
        let budget = Budget::new(Duration::from_secs(5));
        let mut sc = Scanner::new(&text);
        let found = sc
            .find(&[b"NEEDLE-xyz", b"line 0000"], 100, &budget)
            .ok()
            .unwrap();
        assert_eq!(found[0].as_ref(), Some(&expect));
        // Over the cap: no occurrences at all.
        assert_eq!(found[1], None);
        // Later passes reuse the line counts of the first.
        assert!(sc.counted);
        let found = sc.find(&[b"xyz\nline"], 100, &budget).ok().unwrap();
        let again: Vec<(usize, usize)> = memmem::find_iter(&text, b"xyz\nline")
            .map(|p| (p, line_of(p)))
            .collect();
        assert_eq!(found[0].as_ref(), Some(&again));
        // Riders are looked for along with the next pass.
        sc.riders = vec![(b"NEEDLE-xyz".to_vec(), 1), (b"line 00000007 ".to_vec(), 1)];
        let found = sc.find(&[b"the generated"], 1, &budget).ok().unwrap();
        assert_eq!(found, vec![None]);
        let riders = sc.rider_hits.take().unwrap();
        assert_eq!(riders[0], None);
        let p = memmem::find(&text, b"line 00000007 ").unwrap();
        assert_eq!(riders[1], Some(vec![(p, 7)]));
        assert!(sc.riders.is_empty());
    }

    /// A 6 MB text with `RUST` at its end.
    fn big_text() -> String {
        let mut text = "let value = compute(item, 42);\n".repeat(200_000);
        text.push_str(RUST);
        text
    }

    #[test]
    fn anchored_search_costs_one_pass_not_a_scan() {
        let text = big_text();
        let chunks = text.len().div_ceil(CHUNK) as u64;
        let scan_checks = (200_000 / CHECK_EVERY) as u64;
        // Budget checks: one before the search, one per chunk of the
        // anchor pass, a few while scoring; the full scan alone would need
        // one per CHECK_EVERY lines, more than this budget allows.
        let checks = 1 + chunks + CANDIDATES as u64;
        assert!(checks < scan_checks);
        // The longest line is intact (only indentation differs): one pass.
        // The replacement, present once, is found in that same pass.
        let d = not_found(
            text.as_bytes(),
            "  let total = compute(1, 2);\n  println!(\"{total}\");",
            "    let name = \"world\";",
            "",
            &Budget::checks(checks),
        );
        assert!(!d.incomplete);
        let c = d.closest_match.as_ref().unwrap();
        assert_eq!((c.line_number, c.end_line), (200_009, 200_010));
        assert_eq!(kinds(&d), vec!["indentation"]);
        assert_eq!(d.already_applied, Some((200_004, 200_004)));
        // A one-line block that differs in letter case: its words anchor it.
        let d = not_found(
            text.as_bytes(),
            "fn Compute(a: i32, b: i32) -> i32 {",
            "x",
            "",
            &Budget::checks(1 + 2 * chunks + CANDIDATES as u64),
        );
        assert!(!d.incomplete);
        assert_eq!(d.closest_match.as_ref().unwrap().line_number, 200_013);
        assert_eq!(kinds(&d), vec!["case"]);
        // Nothing anchors: the full scan runs, and does not fit.
        let search = "SELECT * FROM accounts WHERE id = 7";
        let d = not_found(
            text.as_bytes(),
            search,
            "x",
            "",
            &Budget::checks(1 + 3 * chunks + scan_checks / 2),
        );
        assert!(d.incomplete);
        let d = diag(&text, search, "x");
        assert!(!d.incomplete && d.closest_match.is_none());
    }

    fn xorshift(seed: &mut u64) -> u64 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed
    }

    /// Near misses of every kind made from random regions of `text`:
    /// (cases, cases where the anchored search found a region scoring less
    /// than the full scan's).
    fn compare_with_scan(text: &str, cases: usize, seed: &mut u64) -> (usize, usize) {
        let lines: Vec<&str> = text.split_inclusive('\n').collect();
        let (mut total, mut worse) = (0, 0);
        let budget = Budget::new(Duration::from_secs(60));
        for _ in 0..cases {
            let n = 1 + (xorshift(seed) % 6) as usize;
            let a = (xorshift(seed) as usize) % (lines.len() - n);
            let mut block: Vec<String> = lines[a..a + n].iter().map(|s| s.to_string()).collect();
            let li = (xorshift(seed) as usize) % n;
            match xorshift(seed) % 9 {
                0 => block.iter_mut().for_each(|l| l.insert_str(0, "  ")),
                1 => block
                    .iter_mut()
                    .for_each(|l| *l = l.replace("\r\n", "\n").replace('\n', "\r\n")),
                2 => block[li] = block[li].replace('\n', "  \n"),
                3 => block[li] = block[li].replace('"', "\u{201c}").replace('\'', "\u{2019}"),
                4 => block[li] = block[li].to_uppercase(),
                5 => {
                    let k = (0..=block[li].len() / 2)
                        .rev()
                        .find(|&k| block[li].is_char_boundary(k))
                        .unwrap_or(0);
                    block[li].insert_str(k, "zq");
                }
                6 => block[li] = block[li].replacen(' ', "\u{a0}", 2),
                7 => block[li] = block[li].replace('"', "\\\""),
                _ => {
                    if n > 2 {
                        block.remove(li);
                    }
                }
            }
            let search = block.concat();
            if search.trim().len() < 3 || text.contains(&search) {
                continue;
            }
            total += 1;
            let (slines, _) = block_lines(search.as_bytes());
            let s: Vec<SLine> = slines.iter().map(|l| SLine::new(l)).collect();
            let anchored = closest(
                &mut Scanner::new(text.as_bytes()),
                search.as_bytes(),
                &budget,
            )
            .0
            .map(|c| c.0);
            let scanned = closest_by_scan(text.as_bytes(), &s, &budget)
                .ok()
                .flatten()
                .map(|c| c.0);
            let score = |f: Option<Found>| f.map_or(0.0, |f| f.score);
            if score(anchored) < score(scanned) - 1e-9 {
                worse += 1;
            }
        }
        (total, worse)
    }

    /// Anchors must not cost quality: on near misses made from the corpus
    /// files, the anchored search finds a region as close as the full scan
    /// of every line does; on a file of near-identical functions (where the
    /// pieces of a block occur hundreds of times) at least 99 % of the time.
    /// `PFT_DIAG_CASES` sets the cases per file (default 40).
    #[test]
    fn anchors_find_what_the_full_scan_finds() {
        let per: usize = std::env::var("PFT_DIAG_CASES")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(40);
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("__test__/fixtures/near-miss/files");
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        let (mut total, mut worse) = (0, 0);
        for f in files {
            let text = String::from_utf8(std::fs::read(&f).unwrap()).unwrap();
            if text.lines().count() < 10 {
                continue;
            }
            let (t, w) = compare_with_scan(&text, per, &mut seed);
            total += t;
            worse += w;
        }
        println!(
            "corpus files: {total} near misses, anchored search worse than the full scan: {worse}"
        );
        assert!(total >= per * 5);
        assert_eq!(worse, 0);
        let mut handlers = String::new();
        for i in 0..900 {
            handlers.push_str(&format!(
                "export async function handler{i}(req: Request, res: Response) {{\n  const id = Number(req.params.id ?? {i});\n  if (!Number.isFinite(id)) {{\n    return res.status(400).json({{ error: 'bad id for handler {i}' }});\n  }}\n  const rows = await db.query('SELECT * FROM t{} WHERE id = $1', [id]);\n  return res.json(rows[0]);\n}}\n\n",
                i % 37
            ));
        }
        let (total, worse) = compare_with_scan(&handlers, per * 5, &mut seed);
        println!("near-identical functions: {total} near misses, anchored search worse: {worse}");
        assert!(total >= per * 2);
        assert!(worse * 100 <= total, "{worse} of {total}");
    }
}
