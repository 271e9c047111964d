//! Small pure helpers of the journal: lines added and removed by a change,
//! and timestamps.
//!
//! A commit describes new content as slices, most of them borrowed from
//! the bytes read (the unchanged spans). Counting the lines a change added
//! and removed must not copy the new content into one buffer nor compare
//! the unchanged spans byte by byte: on a 200 MiB file either would cost
//! more than the journal may add to an edit. So the comparison recognises
//! a slice that *is* the old bytes at the same place (same address) and
//! skips it, and compares bytes only where the content really differs.

/// The concatenation of `pieces`, read in place.
struct Joined<'a> {
    pieces: &'a [&'a [u8]],
    len: usize,
}

impl<'a> Joined<'a> {
    fn new(pieces: &'a [&'a [u8]]) -> Self {
        Joined {
            pieces,
            len: pieces.iter().map(|p| p.len()).sum(),
        }
    }

    /// The byte at `i` (`i < len`).
    fn byte(&self, mut i: usize) -> u8 {
        for p in self.pieces {
            if i < p.len() {
                return p[i];
            }
            i -= p.len();
        }
        unreachable!("index within the joined length")
    }

    /// The parts of `from..to`, in order.
    fn range(&self, from: usize, to: usize) -> impl Iterator<Item = &'a [u8]> + '_ {
        let mut at = 0usize;
        self.pieces.iter().filter_map(move |p| {
            let (s, e) = (at, at + p.len());
            at = e;
            let (a, b) = (s.max(from), e.min(to));
            (a < b).then(|| &p[a - s..b - s])
        })
    }
}

/// Length of the common start of `a` and `b[..]` from the start.
fn common_prefix(a: &[u8], b: &Joined<'_>) -> usize {
    let mut y = 0usize;
    for p in b.pieces {
        if y >= a.len() {
            return a.len();
        }
        let n = p.len().min(a.len() - y);
        let same_place = std::ptr::eq(p.as_ptr(), a[y..].as_ptr());
        if !same_place {
            let m = mismatch(&a[y..y + n], &p[..n]);
            if m < n {
                return y + m;
            }
        }
        y += n;
        if n < p.len() {
            return y;
        }
    }
    y
}

/// Length of the common end of `a` and `b` (at most `limit`).
fn common_suffix(a: &[u8], b: &Joined<'_>, limit: usize) -> usize {
    let mut k = 0usize; // bytes matched from the end
    let mut end = b.len; // end of the current piece in b
    for p in b.pieces.iter().rev() {
        let start = end - p.len();
        end = start;
        if k >= limit {
            return limit;
        }
        // The piece's bytes that lie within the limit, from its end.
        let n = p.len().min(limit - k);
        let (pa, pb) = (&a[a.len() - k - n..a.len() - k], &p[p.len() - n..]);
        if !std::ptr::eq(pa.as_ptr(), pb.as_ptr()) {
            let m = mismatch_rev(pa, pb);
            if m < n {
                return k + m;
            }
        }
        k += n;
        if n < p.len() {
            return k;
        }
    }
    k
}

/// Index of the first difference of two equally long slices (their length
/// if none), compared a page at a time.
fn mismatch(a: &[u8], b: &[u8]) -> usize {
    let n = a.len();
    let mut i = 0;
    while i + 4096 <= n && a[i..i + 4096] == b[i..i + 4096] {
        i += 4096;
    }
    while i < n && a[i] == b[i] {
        i += 1;
    }
    i
}

/// How many bytes at the end of two equally long slices are equal.
fn mismatch_rev(a: &[u8], b: &[u8]) -> usize {
    let n = a.len();
    let mut i = 0;
    while i + 4096 <= n && a[n - i - 4096..n - i] == b[n - i - 4096..n - i] {
        i += 4096;
    }
    while i < n && a[n - i - 1] == b[n - i - 1] {
        i += 1;
    }
    i
}

/// Lines in a region given as parts: its newlines, plus one for a last
/// line without one.
fn lines<'x>(parts: impl Iterator<Item = &'x [u8]>) -> usize {
    let mut n = 0;
    let mut last = None;
    for p in parts {
        n += memchr::memchr_iter(b'\n', p).count();
        if let Some(&c) = p.last() {
            last = Some(c);
        }
    }
    n + usize::from(last.is_some_and(|c| c != b'\n'))
}

/// Lines added and removed from `a` to the concatenation of `b`: the lines
/// between their common first and last lines (exact for one changed
/// region, an upper bound otherwise).
pub(crate) fn line_delta(a: &[u8], b: &[&[u8]]) -> (usize, usize) {
    let b = Joined::new(b);
    let p = common_prefix(a, &b);
    // Back to the start of the line.
    let p = a[..p]
        .iter()
        .rposition(|&c| c == b'\n')
        .map_or(0, |i| i + 1);
    let (la, lb) = (a.len() - p, b.len - p);
    let mut s = common_suffix(a, &b, la.min(lb));
    // The common end must start at a line start on both sides.
    let starts_line_a = s == la || a[a.len() - s - 1] == b'\n';
    let starts_line_b = s == lb || b.byte(b.len - s - 1) == b'\n';
    if !(starts_line_a && starts_line_b) {
        let tail = &a[a.len() - s..];
        s = tail
            .iter()
            .position(|&c| c == b'\n')
            .map_or(0, |i| s - i - 1);
    }
    let added = lines(b.range(p, b.len - s));
    let removed = lines(std::iter::once(&a[p..a.len() - s]));
    (added, removed)
}

/// UTC time as RFC 3339 (`2026-11-24T08:01:59.123Z`).
pub(crate) fn rfc3339(ms: u128) -> String {
    let secs = (ms / 1000) as i64;
    let days = secs.div_euclid(86_400);
    let tod = secs.rem_euclid(86_400);
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = if m <= 2 { y + 1 } else { y };
    // data: an RFC 3339 time stamp
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
        tod / 3600,
        tod % 3600 / 60,
        tod % 60,
        ms % 1000
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The reference: the same rule on one buffer, byte by byte.
    fn naive(a: &[u8], b: &[u8]) -> (usize, usize) {
        let n = a.len().min(b.len());
        let mut p = 0;
        while p < n && a[p] == b[p] {
            p += 1;
        }
        let p = a[..p]
            .iter()
            .rposition(|&c| c == b'\n')
            .map_or(0, |i| i + 1);
        let (ra, rb) = (&a[p..], &b[p..]);
        let m = ra.len().min(rb.len());
        let mut s = 0;
        while s < m && ra[ra.len() - s - 1] == rb[rb.len() - s - 1] {
            s += 1;
        }
        let starts = |r: &[u8], s: usize| s == r.len() || r[r.len() - s - 1] == b'\n';
        if !(starts(ra, s) && starts(rb, s)) {
            let tail = &ra[ra.len() - s..];
            s = tail
                .iter()
                .position(|&c| c == b'\n')
                .map_or(0, |i| s - i - 1);
        }
        let lines = |m: &[u8]| {
            m.iter().filter(|&&c| c == b'\n').count()
                + usize::from(m.last().is_some_and(|&c| c != b'\n'))
        };
        (lines(&rb[..rb.len() - s]), lines(&ra[..ra.len() - s]))
    }

    #[test]
    fn counts_the_changed_region() {
        let one = |a: &[u8], b: &[u8]| line_delta(a, &[b]);
        assert_eq!(
            one(b"one\ntwo\nthree\n", b"one\nTWO\nand more\nthree\n"),
            (2, 1)
        );
        assert_eq!(one(b"", b"a\nb\n"), (2, 0));
        assert_eq!(one(b"a\nb", b""), (0, 2));
        assert_eq!(one(b"a\nb\n", b"a\nb\n"), (0, 0));
        assert_eq!(one(b"x\n", b"x\nx\n"), (1, 0));
        assert_eq!(one(b"ab\n", b"abc\n"), (1, 1));
        assert_eq!(one(b"a\r\nb\r\n", b"a\r\nB\r\n"), (1, 1));
        // Long inputs (compared a page at a time).
        let a: String = (0..10_000).map(|i| format!("line {i}\n")).collect();
        let b = a.replace("line 5000\n", "line 5000\nnew\nnewer\n");
        assert_eq!(one(a.as_bytes(), b.as_bytes()), (2, 0));
        let c = a.replace("line 9999\n", "");
        assert_eq!(one(a.as_bytes(), c.as_bytes()), (0, 1));
    }

    #[test]
    fn slices_of_the_old_bytes_are_not_compared_but_count() {
        let a: Vec<u8> = (0..50_000)
            .flat_map(|i| format!("row {i}\n").into_bytes())
            .collect();
        let at = a.len() / 2;
        let end = at + a[at..].iter().position(|&c| c == b'\n').unwrap() + 1;
        let pieces: [&[u8]; 3] = [&a[..at], b"new\nlines\n", &a[end..]];
        assert_eq!(line_delta(&a, &pieces), naive(&a, &pieces.concat()));
        assert_eq!(line_delta(&a, &pieces), (2, 1));
    }

    proptest! {
        /// Whatever the pieces (borrowed from the old bytes or not, in any
        /// order), the count is the naive one on the joined bytes.
        #[test]
        fn equals_the_naive_count(
            a in proptest::collection::vec(prop_oneof![Just(b'\n'), Just(b'a'), Just(b'b')], 0..200),
            cuts in proptest::collection::vec((0usize..200, 0usize..200, proptest::collection::vec(prop_oneof![Just(b'\n'), Just(b'a'), Just(b'c')], 0..8)), 0..5),
        ) {
            // Pieces: spans of `a` (borrowed) and new bytes, interleaved.
            let mut owned: Vec<Vec<u8>> = Vec::new();
            let mut spans: Vec<(usize, usize, usize)> = Vec::new(); // (kind 0 span / 1 owned, x, y)
            for (x, y, new) in &cuts {
                let (x, y) = ((*x).min(a.len()), (*y).min(a.len()));
                spans.push((0, x.min(y), x.max(y)));
                owned.push(new.clone());
                spans.push((1, owned.len() - 1, 0));
            }
            let pieces: Vec<&[u8]> = spans
                .iter()
                .map(|&(k, x, y)| if k == 0 { &a[x..y] } else { owned[x].as_slice() })
                .collect();
            prop_assert_eq!(line_delta(&a, &pieces), naive(&a, &pieces.concat()));
            // The usual shape: the old bytes with one region replaced.
            if let Some((x, y, new)) = cuts.first() {
                let (x, y) = ((*x).min(a.len()), (*y).min(a.len()));
                let (x, y) = (x.min(y), x.max(y));
                let one: [&[u8]; 3] = [&a[..x], new, &a[y..]];
                prop_assert_eq!(line_delta(&a, &one), naive(&a, &one.concat()));
            }
        }
    }
}
