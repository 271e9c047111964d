//! Finding the region of the file most like the block: anchors first
//! ([`super::anchors`]), else the full scan (every line keyed, anchor votes,
//! a bigram pass when anchors are weak), each candidate scored by
//! [`super::windows`]; and the byte range of the region found.

use std::collections::HashMap;

use memchr::{memchr, memmem};

use super::anchors::{anchored, Anchored, Scanner};
use super::budget::{window_cost, Budget, CHECK_EVERY};
use super::keys::{
    block_lines, key_bytes, key_hash, key_with_offsets, FileLines, SLine, MIN_ANCHOR_KEY,
};
use super::windows::{best_window, pick, Closest, FKeys, Found, GaveUp, CANDIDATES};

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
    let (mut pos, mut paid) = (0, 0);
    loop {
        if starts.len() % CHECK_EVERY == 0 {
            // The lines keyed since the last check.
            if budget.spend(Budget::keying(pos - paid)) {
                return Err(GaveUp);
            }
            paid = pos;
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
    let mut paid = lines.start(lines.lo());
    for j in lines.lo()..lines.hi() {
        if j % CHECK_EVERY == 0 {
            let at = lines.start(j);
            if budget.spend(Budget::keying(at - paid) * probes.len() as u64) {
                return Err(GaveUp);
            }
            paid = at;
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

/// The region most like `search`, and whether the search was cut short by
/// the budget (a region found before that is still returned). Anchors are
/// tried first; only when they find nothing plausible is every line of the
/// file compared.
pub(super) fn closest<'a>(
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
pub(super) fn closest_by_scan<'a>(
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
        if budget.spend(window_cost(s.len())) {
            break;
        }
        bests.extend(best_window(s, start, &lines, &mut keys));
    }
    Ok(pick(&bests).map(|(at, equally)| (bests[at], equally, lines)))
}

/// Byte range of the found lines, narrowed on the first and last line when
/// the block covers only part of them (a block that starts mid-line or
/// ends mid-line), and including the final newline when the block has one.
pub(super) fn region(lines: &FileLines<'_>, found: Found, search: &[u8]) -> (usize, usize) {
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
    // The first and last lines of the window stand for the block's only
    // when the window has as many lines (else lines were added or removed
    // since, and the window's ends are other lines).
    let aligned = found.len == slines.len();
    // First line: the block may start inside it.
    let (sk, _) = key_with_offsets(s_first);
    let fl = lines.line(first);
    let (fk, fo) = key_with_offsets(fl);
    if aligned && !sk.is_empty() && sk != fk {
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
    if aligned && !single && !ends_nl && found.len > 1 {
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
