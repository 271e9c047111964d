//! Line keys and lines: the key of a line drops what diagnosis can name
//! (whitespace, backslashes, invisible characters, letter case) and folds
//! typographic punctuation, so lines are compared by key; and the lines of
//! a block or of a run of the file.

use memchr::{memchr, memmem};

use crate::text::fold::{invisible, punct_ascii};
use crate::text::lines::line_start;

/// Shortest key a line needs to serve as an anchor.
pub(super) const MIN_ANCHOR_KEY: usize = 3;

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
pub(super) fn key_bytes(line: &[u8], mut f: impl FnMut(u8, usize, usize)) {
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

pub(super) fn hash_of(key: &[u8]) -> u64 {
    key.iter().fold(0, |h, &b| mix(h, b))
}

/// The key hash and key length of a line, without allocating.
pub(super) fn key_hash(line: &[u8]) -> (u64, usize) {
    let (mut h, mut n) = (0u64, 0usize);
    key_bytes(line, |b, _, _| {
        h = mix(h, b);
        n += 1;
    });
    (h, n)
}

pub(super) fn key_vec(line: &[u8]) -> Vec<u8> {
    let mut v = Vec::with_capacity(line.len());
    key_bytes(line, |b, _, _| v.push(b));
    v
}

/// Key bytes with, for each, the source byte range it came from.
pub(super) fn key_with_offsets(line: &[u8]) -> (Vec<u8>, Vec<(usize, usize)>) {
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
pub(super) fn line_sim(s: &[u8], f: &[u8]) -> f64 {
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
pub(super) fn block_lines(s: &[u8]) -> (Vec<&[u8]>, bool) {
    let ends_nl = s.ends_with(b"\n");
    let body = if ends_nl { &s[..s.len() - 1] } else { s };
    (body.split(|&b| b == b'\n').collect(), ends_nl)
}

/// Line starts of a run of a text's lines, `lo()..hi()` (0-based line
/// numbers of the whole text): the whole text after a full scan, or a few
/// lines around a candidate found by anchors.
pub(super) struct FileLines<'a> {
    pub(super) text: &'a [u8],
    /// Line number of `starts[0]`.
    pub(super) first: usize,
    /// Byte offset of each line's start, then of the line after the last
    /// (`text.len() + 1` when the last is the text's last line).
    pub(super) starts: Vec<usize>,
}

impl<'a> FileLines<'a> {
    /// First line held.
    pub(super) fn lo(&self) -> usize {
        self.first
    }

    /// One past the last line held.
    pub(super) fn hi(&self) -> usize {
        self.first + self.starts.len() - 1
    }

    /// Byte offset where line `j` starts.
    pub(super) fn start(&self, j: usize) -> usize {
        self.starts[j - self.first]
    }

    /// Line `j` without its `\n` (a `\r` stays).
    pub(super) fn line(&self, j: usize) -> &'a [u8] {
        &self.text[self.start(j)..self.end(j)]
    }

    /// Byte offset where line `j`'s content ends (its `\n`, or the end).
    pub(super) fn end(&self, j: usize) -> usize {
        self.starts[j - self.first + 1] - 1
    }

    /// The lines `line - before .. line + after` (clamped to the text)
    /// around line `line`, which starts at byte `at`.
    pub(super) fn around(
        text: &'a [u8],
        at: usize,
        line: usize,
        before: usize,
        after: usize,
    ) -> Self {
        let mut back = Vec::new();
        let mut s = at;
        while back.len() < before && s > 0 {
            s = line_start(text, s - 1);
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
pub(super) struct SLine {
    pub(super) key: Vec<u8>,
    pub(super) hash: u64,
    pub(super) w: f64,
}

impl SLine {
    pub(super) fn new(line: &[u8]) -> Self {
        let key = key_vec(line);
        SLine {
            hash: hash_of(&key),
            w: weight(key.len()),
            key,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
