//! Anchors: candidate regions from exact occurrences of pieces of the
//! block (whole lines without their surrounding whitespace, then words),
//! searched with `memmem` over the text in chunks, instead of keying every
//! line of the file.

use std::collections::HashMap;

use memchr::{memchr, memmem};

use super::budget::{window_cost, Budget, LINE_COST};
use super::keys::{hash_of, key_vec, line_sim, FileLines, SLine, MIN_ANCHOR_KEY};
use super::windows::{
    best_window, pick, Closest, FKeys, Found, GaveUp, CANDIDATES, MIN_SIMILARITY,
};
use crate::text::lines::line_start;

/// Bytes of the text searched per step of an anchor pass (the needles of a
/// pass all run over one chunk while it is in cache; the budget is checked
/// once per chunk).
pub(crate) const CHUNK: usize = 64 << 10;
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
pub(crate) struct Scanner<'a> {
    pub(super) text: &'a [u8],
    chunk_lines: Vec<usize>,
    counted: bool,
    /// Needles (with their caps) that ride along with the next pass, and
    /// what that pass found for them.
    pub(crate) riders: Vec<(Vec<u8>, usize)>,
    pub(crate) rider_hits: Option<Vec<Hits>>,
}

/// Where a needle occurs: byte offset and 0-based line number of each
/// occurrence, or `None` when it occurs more than the cap.
pub(crate) type Hits = Option<Vec<(usize, usize)>>;

impl<'a> Scanner<'a> {
    pub(crate) fn new(text: &'a [u8]) -> Self {
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
    pub(crate) fn find(
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
            // One unit per KiB searched for each needle.
            let cost = (needles.len() * CHUNK.min(text.len() - c) / 1024) as u64;
            if budget.spend(cost) {
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

/// Adds `bytes` (from block line `i`) to `pieces`, merging equal pieces
/// (`at`: where each piece's bytes are in `pieces`; a scan of the pieces
/// for each line cost the block's lines squared: 48,000 lines, 4 s).
fn add_piece<'b>(
    (pieces, at): (&mut Vec<Piece>, &mut HashMap<&'b [u8], usize>),
    bytes: &'b [u8],
    i: usize,
) {
    if bytes.len() < MIN_PIECE {
        return;
    }
    match at.get(bytes) {
        Some(&k) => {
            let p = &mut pieces[k];
            if p.lines.len() < 8 && !p.lines.contains(&i) {
                p.lines.push(i);
            }
        }
        None => {
            at.insert(bytes, pieces.len());
            pieces.push(Piece {
                bytes: bytes.to_vec(),
                lines: vec![i],
            })
        }
    }
}

/// Each block line without its surrounding whitespace (indentation,
/// trailing whitespace and line endings are the commonest differences):
/// lines without fragile bytes first, then longest first (the longest
/// lines are the likeliest to be unique).
fn line_pieces(slines: &[&[u8]]) -> Vec<Piece> {
    let (mut pieces, mut at) = (Vec::new(), HashMap::new());
    for (i, l) in slines.iter().enumerate() {
        add_piece((&mut pieces, &mut at), trim_space(l), i);
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
    let (mut pieces, mut at) = (Vec::new(), HashMap::new());
    let whole: std::collections::HashSet<&[u8]> = lines.iter().map(|p| &p.bytes[..]).collect();
    for (i, l) in slines.iter().enumerate() {
        for w in l.split(|&b| is_space(b) || is_fragile(b) || b == b'-') {
            if !whole.contains(w) {
                add_piece((&mut pieces, &mut at), w, i);
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

pub(super) enum Anchored<'a> {
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
                    let ls = line_start(text, p);
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
                if k % 64 == 0 && budget.spend(64 * s.len() as u64 * LINE_COST) {
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
            if budget.spend(window_cost(s.len())) {
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
            self.scored.insert(start);
            if let Some(f) = best_window(s, start, &lines, &mut self.keys) {
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
pub(super) fn anchored<'a>(
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

#[cfg(test)]
mod tests {
    use super::*;

    use crate::likeness::closest::{closest, closest_by_scan};
    use crate::likeness::keys::block_lines;

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
        let budget = Budget::new(u64::MAX);
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
        let budget = Budget::new(u64::MAX);
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
            .parent()
            .unwrap()
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
