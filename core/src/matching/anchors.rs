//! Hash-anchored lines: the `LINE#ID|` tags a read with anchors shows, and
//! how an edit that names lines by those tags is placed in the file as it
//! is now.
//!
//! Why it exists. A search/replace edit makes the model copy the old text
//! byte for byte, and most failed edits are a copy that is not exact. An
//! anchored edit names lines by a tag instead (`42#gk`: line 42, whose
//! content hashes to `gk`), which costs a few tokens and cannot be
//! mistyped into a near miss.
//!
//! Why the tag alone is not trusted. Two letters from 16 are 256 values:
//! unrelated lines collide one time in 256, and lines such as `}` or a
//! blank line have the same ID everywhere. "The ID at line 42 still
//! matches" therefore proves little once the file has shifted. So a read
//! with anchors keeps what it showed (a 64-bit key per line, see
//! [`line_key`]; kept by `io::snapshots`), and an edit maps each anchor
//! from that snapshot to the current file ([`map_line_in`]): through a line
//! diff, accepted only when the anchored line is unchanged and its
//! surrounding unchanged lines tie it to one place, on both sides. A line
//! that changed, vanished or could sit in several places is refused, never
//! guessed. Without a snapshot the IDs are checked at their line numbers
//! only (`line_numbers`), and the result says so.
//!
//! The ID of a line (its text without the line break; a `\r` before the
//! `\n` is part of the break) is the top byte of [`line_key`], written as
//! two letters of [`ALPHABET`], high nibble first. It does not depend on
//! the line number. [`line_key`] is a fixed 64-bit hash (a folded
//! multiply over 16 bytes a step, see its doc), the same on every
//! platform.
//!
//! Everything here is pure: bytes in, positions out.

/// The 16 letters an ID is written with: nibble `n` is the `n`-th letter
/// of the alphabet. Chosen for the tokens a read costs (o200k_base, the
/// search in `benchmark/anchor-alphabet.mjs`): with these letters `#` and an
/// ID are two tokens, never three, and the most IDs possible are one
/// (`#aa`..`#af`, `#do`, `#ga`, `#if`).
pub(crate) const ALPHABET: &[u8; 16] = b"abcdefghijklmnop";

/// How far the agreement around an anchored line is followed each way when
/// telling candidate places apart (a longer tie is refused, not guessed).
pub(crate) const CONTEXT: usize = 32;

/// The 64-bit key of a line's content (without its line break).
///
/// Each step multiplies two 64-bit words into 128 bits and folds the
/// halves together (xor), so 16 bytes cost one multiplication: a line of
/// 45 bytes is four steps in a chain, against eight for a multiply per
/// 8-byte word and a finisher. Every byte is covered: a line of 16 bytes
/// or fewer is read as two words that may overlap (two 4-byte halves below
/// 8 bytes, three sampled bytes below 4, which are then all of them), a
/// longer one 16 bytes a step, its last 16 bytes as the two final words.
/// The length is folded in at the start and at the end.
pub(crate) fn line_key(line: &[u8]) -> u64 {
    let n = line.len();
    let len = n as u64;
    let word = |i: usize| u64::from_le_bytes(line[i..i + 8].try_into().expect("8 bytes"));
    let half = |i: usize| {
        u64::from(u32::from_le_bytes(
            line[i..i + 4].try_into().expect("4 bytes"),
        ))
    };
    let mut seed = SEED ^ len;
    let (a, b) = match n {
        0 => (0, 0),
        1..=3 => {
            let (x, y, z) = (line[0], line[n / 2], line[n - 1]);
            (u64::from(x) << 16 | u64::from(y) << 8 | u64::from(z), 0)
        }
        4..=7 => (half(0), half(n - 4)),
        8..=16 => (word(0), word(n - 8)),
        _ => {
            let mut i = 0;
            while n - i > 16 {
                seed = fold(word(i) ^ MIX_A, word(i + 8) ^ seed);
                i += 16;
            }
            (word(n - 16), word(n - 8))
        }
    };
    fold(fold(a ^ MIX_A, b ^ seed) ^ MIX_B, MIX_A ^ len)
}

/// The start of [`line_key`]'s chain, and the constants mixed into each
/// step (odd, with bits spread over every byte).
const SEED: u64 = 0x2d35_8dcc_aa6c_78a5;
const MIX_A: u64 = 0x8bb8_4b93_962e_acc9;
const MIX_B: u64 = 0x4b33_a62e_d433_d4a3;

/// The 128-bit product of `a` and `b`, its two halves folded by xor.
fn fold(a: u64, b: u64) -> u64 {
    let r = u128::from(a) * u128::from(b);
    (r as u64) ^ ((r >> 64) as u64)
}

/// The two-letter ID of a line's key.
pub(crate) fn id_of(key: u64) -> [u8; 2] {
    let top = (key >> 56) as usize;
    [ALPHABET[top >> 4], ALPHABET[top & 15]]
}

/// One line of a text: its content `start..end` and where its line break
/// ends (`next`; equal to `end` for a last line without one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Line {
    pub(crate) start: usize,
    pub(crate) end: usize,
    pub(crate) next: usize,
}

/// The lines of `text` (a final line break ends the last line; it does not
/// start an empty one).
pub(crate) fn lines(text: &[u8]) -> Vec<Line> {
    let mut out = Vec::with_capacity(text.len() / 32 + 1);
    let mut start = 0;
    for nl in memchr::memchr_iter(b'\n', text) {
        let end = if nl > start && text[nl - 1] == b'\r' {
            nl - 1
        } else {
            nl
        };
        out.push(Line {
            start,
            end,
            next: nl + 1,
        });
        start = nl + 1;
    }
    if start < text.len() {
        out.push(Line {
            start,
            end: text.len(),
            next: text.len(),
        });
    }
    out
}

/// The keys of `lines` of `text`.
pub(crate) fn keys(text: &[u8], lines: &[Line]) -> Vec<u64> {
    lines
        .iter()
        .map(|l| line_key(&text[l.start..l.end]))
        .collect()
}

/// `text`'s lines `from..to` (0-based), each as `LINE#ID|content` with its
/// own line break (`keys`: every line's key).
pub(crate) fn tagged(text: &[u8], lines: &[Line], keys: &[u64], from: usize, to: usize) -> Vec<u8> {
    let to = to.min(lines.len());
    let from = from.min(to);
    let shown: usize = lines[from..to].iter().map(|l| l.next - l.start + 12).sum();
    let mut out = Vec::with_capacity(shown);
    for (i, l) in lines[from..to].iter().enumerate() {
        push_tag(&mut out, from + i + 1, keys[from + i]);
        out.extend_from_slice(&text[l.start..l.next]);
    }
    out
}

/// What a read with anchors gives: the lines shown, tagged; how many; how
/// many the text has; and the key of every line (for the snapshot; empty
/// when the keys were known).
#[derive(Debug)]
pub(crate) struct Tagged {
    pub(crate) keys: Vec<u64>,
    pub(crate) out: Vec<u8>,
    pub(crate) shown: usize,
    pub(crate) total: usize,
}

/// A read with anchors over `text`: the lines that start in `range` (byte
/// offsets; `range.start` is where line `from`, 0-based, starts, or the
/// end) tagged as [`tagged`] tags them, how many they are and how many
/// lines the text has, and the key of every line (for the snapshot).
/// `known`: the keys of every line, from a snapshot of the same bytes
/// (so as many as `text` has lines), used instead of hashing again: the
/// pass then starts at the range and ends with it, and counts nothing
/// else.
///
/// It is on the path of every read with anchors, so it is built for speed
/// (the goal: a read with anchors costs at most a tenth more than a plain
/// read, which hashes the file with sha256 and counts its lines): one pass
/// that also counts the lines (a plain read counts them apart; without
/// known keys, one count of the line breaks first sizes the keys and the
/// answer, which are then reserved once), the line
/// breaks found 32 bytes at a time ([`Breaks`]) and nothing allocated but
/// the keys and the answer (fresh memory is a page fault a page); each tag
/// and each short line copied with one fixed-size copy into the answer,
/// reserved once (a copy of a known size compiles to a few vector moves,
/// one of a varying size is a call); the line number counted up in decimal
/// instead of divided out.
pub(crate) fn read_tagged(
    text: &[u8],
    from: usize,
    range: std::ops::Range<usize>,
    known: Option<&[u64]>,
) -> Tagged {
    // At most this many lines in the text: exact when the keys are known.
    let most = match known {
        Some(k) => k.len(),
        None => crate::text::lines::count_newlines(text) + 1,
    };
    let mut keys = Vec::with_capacity(if known.is_some() { 0 } else { most });
    let shown_most = most.saturating_sub(from).min(range.len() + 1);
    let digits = most.checked_ilog10().unwrap_or(0) as usize + 1;
    let mut out = Sink::with_capacity(range.len() + shown_most * (digits + 4) + 2 * COPY);
    let mut number = Decimal::new(from + 1);
    // With the keys known, the pass covers the range alone.
    let (mut i, mut start) = match known {
        Some(_) => (from, range.start),
        None => (0, 0),
    };
    let mut breaks = breaks_from(text, start);
    let mut shown = 0;
    while known.is_none() || start < range.end {
        let (end, next) = match breaks.next() {
            Some(nl) if nl > start && text[nl - 1] == b'\r' => (nl - 1, nl + 1),
            Some(nl) => (nl, nl + 1),
            None if start < text.len() => (text.len(), text.len()),
            None => break,
        };
        let show = range.start <= start && start < range.end;
        let key = match known {
            Some(k) => match k.get(i) {
                Some(&key) => key,
                None => line_key(&text[start..end]),
            },
            None => {
                let key = line_key(&text[start..end]);
                keys.push(key);
                key
            }
        };
        if show {
            number.put_tag(&mut out, i + 1, key);
            match text.get(start..start + COPY) {
                Some(block) if next - start <= COPY => {
                    out.put::<COPY>(block.try_into().expect("COPY bytes"), next - start)
                }
                _ => out.put_slice(&text[start..next]),
            }
            shown += 1;
        }
        i += 1;
        start = next;
    }
    let total = match known {
        Some(k) => k.len(),
        None => keys.len(),
    };
    Tagged {
        keys,
        out: out.finish(),
        shown,
        total,
    }
}

/// The length of the fixed-size copies of [`read_tagged`]'s lines.
const COPY: usize = 64;

/// The answer of a read with anchors as it is written: bytes go past
/// `len`, within the capacity reserved once, each write checked to fit (a
/// branch never taken; a wrong reservation panics, it never writes out of
/// bounds), with no length kept in the vector until the end. Each tag and
/// each short line is one copy of a fixed size cut back to its length,
/// which compiles to a few vector moves; `Vec::extend_from_slice` and
/// `truncate` per piece cost a fifth more of the read (2,000 lines of 45
/// bytes: 18 µs against 14).
struct Sink {
    buf: Vec<u8>,
    len: usize,
}

impl Sink {
    fn with_capacity(n: usize) -> Sink {
        Sink {
            buf: Vec::with_capacity(n),
            len: 0,
        }
    }

    /// Writes the `N` bytes of `bytes`, of which the first `keep` count.
    #[inline(always)]
    fn put<const N: usize>(&mut self, bytes: &[u8; N], keep: usize) {
        assert!(N <= self.buf.capacity() - self.len && keep <= N);
        // SAFETY: `N` bytes fit in the capacity past `len` (checked above),
        // and `bytes` cannot overlap the vector's spare capacity.
        unsafe {
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), self.buf.as_mut_ptr().add(self.len), N);
        }
        self.len += keep;
    }

    #[inline(always)]
    fn put_slice(&mut self, bytes: &[u8]) {
        assert!(bytes.len() <= self.buf.capacity() - self.len);
        // SAFETY: as in `put`.
        unsafe {
            std::ptr::copy_nonoverlapping(
                bytes.as_ptr(),
                self.buf.as_mut_ptr().add(self.len),
                bytes.len(),
            );
        }
        self.len += bytes.len();
    }

    fn finish(mut self) -> Vec<u8> {
        // SAFETY: every byte below `len` was written by `put` or
        // `put_slice`, and `len` is within the capacity.
        unsafe { self.buf.set_len(self.len) };
        self.buf
    }
}

/// A 1-based line number as its decimal digits, counted up line by line,
/// held in a register: the digits are the low bytes of `digits`, first
/// digit lowest (as they lie in memory, little-endian).
struct Decimal {
    digits: u64,
    len: usize,
    /// 1 in the byte of the last digit.
    last: u64,
}

impl Decimal {
    /// Most digits held: lines up to 10^8 (beyond, each tag is written
    /// digit by digit).
    const MAX: usize = 8;

    fn new(number: usize) -> Decimal {
        let s = number.to_string();
        let mut bytes = [0u8; 8];
        let len = s.len().min(Self::MAX);
        bytes[..len].copy_from_slice(&s.as_bytes()[..len]);
        Decimal {
            digits: u64::from_le_bytes(bytes),
            len: s.len(),
            last: 1 << (8 * (len - 1)),
        }
    }

    /// Appends `NUMBER#ID|` (`key`: the line's; `number`, the line number
    /// this counts), then counts up one: a copy of 8 bytes cut back to the
    /// digits, and one of 4, both from registers.
    fn put_tag(&mut self, out: &mut Sink, number: usize, key: u64) {
        let n = self.len;
        if n > Self::MAX {
            let mut tag = Vec::with_capacity(32);
            push_tag(&mut tag, number, key);
            out.put_slice(&tag);
            return;
        }
        let id = id_of(key);
        out.put(&self.digits.to_le_bytes(), n);
        out.put(&[b'#', id[0], id[1], b'|'], 4);
        if (self.digits >> (8 * (n - 1))) as u8 != b'9' {
            self.digits += self.last;
            return;
        }
        // A carry (one line in ten).
        let mut i = n;
        loop {
            if i == 0 {
                // 9..9 + 1: a 1 and as many zeros, one digit more.
                self.digits = u64::from(b'1') | (self.digits << 8);
                self.len += 1;
                self.last <<= 8;
                break;
            }
            i -= 1;
            let shift = 8 * i;
            if (self.digits >> shift) as u8 == b'9' {
                self.digits ^= u64::from(b'9' ^ b'0') << shift;
            } else {
                self.digits += 1 << shift;
                break;
            }
        }
    }
}

/// The places of the line breaks of `text` from byte `at` on, in order.
#[cfg(target_arch = "x86_64")]
fn breaks_from(text: &[u8], at: usize) -> impl Iterator<Item = usize> + '_ {
    Breaks::new(text, at)
}

/// The places of the line breaks of `text` from byte `at` on, in order.
#[cfg(not(target_arch = "x86_64"))]
fn breaks_from(text: &[u8], at: usize) -> impl Iterator<Item = usize> + '_ {
    memchr::memchr_iter(b'\n', &text[at.min(text.len())..]).map(move |i| i + at)
}

/// The places of the line breaks of a text, in order, found 32 bytes at a
/// time with SSE2 (part of every x86-64 CPU): two compares give a mask, and
/// each break is then a bit. For lines of a few dozen bytes this is about 4
/// times faster than a `memchr` call for each (2.1 µs against 9.5 for 2,000
/// lines, 80 KB; the rest of a read with anchors costs about as much as
/// that `memchr`).
#[cfg(target_arch = "x86_64")]
struct Breaks<'a> {
    text: &'a [u8],
    /// Where the block of `mask` starts.
    base: usize,
    /// The breaks of that block not yet given, one bit each.
    mask: u32,
    /// Where the next block starts.
    next: usize,
}

#[cfg(target_arch = "x86_64")]
impl<'a> Breaks<'a> {
    fn new(text: &'a [u8], at: usize) -> Breaks<'a> {
        Breaks {
            text,
            base: at,
            mask: 0,
            next: at,
        }
    }

    /// The breaks of `block` (at most 32 bytes), bit `i` for byte `i`.
    fn mask_of(block: &[u8]) -> u32 {
        if let Ok(block) = <&[u8; 32]>::try_from(block) {
            use std::arch::x86_64::{
                _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_set1_epi8,
            };
            // SAFETY: SSE2 is part of the x86-64 baseline, and both loads
            // read 16 bytes within `block`, 32 bytes long (unaligned loads).
            return unsafe {
                let nl = _mm_set1_epi8(b'\n' as i8);
                let lo = _mm_loadu_si128(block.as_ptr().cast());
                let hi = _mm_loadu_si128(block.as_ptr().add(16).cast());
                u32::from(_mm_movemask_epi8(_mm_cmpeq_epi8(lo, nl)) as u16)
                    | u32::from(_mm_movemask_epi8(_mm_cmpeq_epi8(hi, nl)) as u16) << 16
            };
        }
        block
            .iter()
            .enumerate()
            .filter(|&(_, &b)| b == b'\n')
            .fold(0, |m, (i, _)| m | 1 << i)
    }
}

#[cfg(target_arch = "x86_64")]
impl Iterator for Breaks<'_> {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        while self.mask == 0 {
            if self.next >= self.text.len() {
                return None;
            }
            let end = (self.next + 32).min(self.text.len());
            self.mask = Self::mask_of(&self.text[self.next..end]);
            self.base = self.next;
            self.next = end;
        }
        let at = self.base + self.mask.trailing_zeros() as usize;
        self.mask &= self.mask - 1;
        Some(at)
    }
}

/// Appends `LINE#ID|` for the 1-based line `number` whose key is `key`.
fn push_tag(out: &mut Vec<u8>, number: usize, key: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut n = number;
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[at..]);
    let id = id_of(key);
    out.extend_from_slice(&[b'#', id[0], id[1], b'|']);
}

/// The length of the `LINE#ID|` tag a read with anchors put at the start
/// of `line`, if it has one (the ID in either case): a model that copies
/// read lines into an edit's new lines copies their tags too.
pub(crate) fn tag_len(line: &str) -> Option<usize> {
    let b = line.as_bytes();
    let digits = b.iter().take_while(|c| c.is_ascii_digit()).count();
    let tag = b.get(digits..digits + 4)?;
    let id = |c: u8| ALPHABET.contains(&c.to_ascii_lowercase());
    (digits > 0 && tag[0] == b'#' && id(tag[1]) && id(tag[2]) && tag[3] == b'|')
        .then_some(digits + 4)
}

/// Whether `line` starts with a tag a read gave, not text of that shape:
/// its ID is the ID of the rest of the line (a line copied as read), or
/// it is one of `own`, the anchors of the edit it is sent with (a line
/// copied, then edited after its tag). An example of the format written
/// into a file (`41#ab|` in a Markdown file) has an ID of its own one time
/// in 256.
pub(crate) fn read_tag(line: &str, own: &[Anchor]) -> bool {
    let Some(n) = tag_len(line) else {
        return false;
    };
    let Some(tag) = Anchor::parse(&line[..n - 1]) else {
        return false;
    };
    tag.id == id_of(line_key(&line.as_bytes()[n..])) || own.contains(&tag)
}

/// An anchor as an edit gives it: `LINE#ID` (1-based line), optionally
/// followed by `|` and anything (a copied read line).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Anchor {
    /// 0-based line.
    pub(crate) line: usize,
    pub(crate) id: [u8; 2],
}

impl Anchor {
    /// Parses `s`; `None` when it is not `LINE#ID`.
    pub(crate) fn parse(s: &str) -> Option<Anchor> {
        let s = s.trim_start();
        let head = s.split('|').next()?.trim_end();
        let (n, id) = head.split_once('#')?;
        let n: usize = n.trim().parse().ok()?;
        let id = id.trim().as_bytes();
        if n == 0 || id.len() != 2 {
            return None;
        }
        let low = [id[0].to_ascii_lowercase(), id[1].to_ascii_lowercase()];
        if !low.iter().all(|b| ALPHABET.contains(b)) {
            return None;
        }
        Some(Anchor {
            line: n - 1,
            id: low,
        })
    }

    /// As the caller writes it.
    pub(crate) fn show(&self) -> String {
        // data: an anchor, `LINE#ID`
        format!("{}#{}", self.line + 1, String::from_utf8_lossy(&self.id))
    }
}

/// Where a line of the snapshot is in the current file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Mapped {
    /// Unchanged, at this 0-based line, and nowhere else as well.
    At(usize),
    /// Changed or removed: the diff keeps it nowhere.
    Changed,
    /// Unchanged, but the lines around it fit as well at these places.
    Several(Vec<usize>),
}

/// The line diff of a snapshot against the current file: for each line of
/// `old`, the line of `new` it is kept as (`None`: removed or changed).
/// `None` when the diff did not end by `deadline` (a file rewritten all
/// over costs a diff quadratic in its lines; a diff cut short is not a
/// smallest one, and no anchor is placed by it).
pub(crate) fn diff_map(
    old: &[u64],
    new: &[u64],
    deadline: Option<std::time::Instant>,
) -> Option<Vec<Option<usize>>> {
    if old == new {
        return Some((0..old.len()).map(Some).collect());
    }
    let mut map = vec![None; old.len()];
    let ops = crate::text::diff_ops::diff(old, new, deadline);
    if deadline.is_some_and(|d| std::time::Instant::now() >= d) {
        return None;
    }
    for op in ops {
        if let similar::DiffOp::Equal {
            old_index,
            new_index,
            len,
        } = op
        {
            for k in 0..len {
                map[old_index + k] = Some(new_index + k);
            }
        }
    }
    Some(map)
}

/// Most lines a window around an anchored line grows to, to see both ends
/// of a run of lines that repeats (`}` / blank / a record of a list); a
/// longer run is refused, not guessed.
pub(crate) const MAX_WINDOW: usize = 1024;

/// Where the snapshot's line `i` is now, given the diff's `map` (see
/// [`diff_map`]). Kept by the diff at `j`, it is placed there only when
/// every longest common subsequence of the two files, within [`CONTEXT`]
/// lines of `i` and `j`, keeps line `i` as line `j`: then no other
/// alignment explains the change as well (a line in a run of equal lines
/// next to a removal, which could be any of them, is refused). When line
/// `i` (or `j`) lies in a stretch that repeats and reaches past that
/// window (a list of equal records, a block written twice in a row), the
/// window grows to the whole stretch and [`CONTEXT`] lines beyond it, where
/// the lines that end the repetition pin it (a removed record could have
/// been any of them, and a block copied next to itself either copy): a
/// window of the repeated lines alone would find one place where there
/// are many.
#[cfg(test)]
pub(crate) fn map_line(old: &[u64], new: &[u64], map: &[Option<usize>], i: usize) -> Mapped {
    map_line_in(old, new, map, i, (&positions(old), &positions(new)))
}

/// `map_line`, with where each key is in `old` and `new`
/// ([`positions`]), made once for many lines.
pub(crate) fn map_line_in(
    old: &[u64],
    new: &[u64],
    map: &[Option<usize>],
    i: usize,
    (at_old, at_new): (&Positions, &Positions),
) -> Mapped {
    let Some(j) = map[i] else {
        return Mapped::Changed;
    };
    // How far the window reaches before and after the line, on each side.
    let (mut before, mut after) = (0, 0);
    for (lines, at, k) in [(old, at_old, i), (new, at_new, j)] {
        if let Some((a, b)) = repeated_stretch(lines, at, k) {
            before = before.max(k - a);
            after = after.max(b - 1 - k);
        }
    }
    if before + after + 2 * CONTEXT > MAX_WINDOW {
        return Mapped::Several(vec![j]);
    }
    let ((i0, i1), (j0, j1)) = windows((i, j), (before, after), (old.len(), new.len()));
    forced(&old[i0..i1], &new[j0..j1], i - i0, j - j0)
        .map(|()| Mapped::At(j))
        .unwrap_or_else(|mut at| {
            at.iter_mut().for_each(|x| *x += j0);
            Mapped::Several(at)
        })
}

/// The windows of the snapshot and of the file compared around snapshot
/// line `i`, kept as line `j`: [`CONTEXT`] lines beyond `before` and
/// `after` on the snapshot's side (lines `i0..i1` of `old` lines); on the
/// file's side as far from `j` as the snapshot's side reaches from `i`,
/// and where the snapshot's side reaches its edge, toward the file's edge
/// too, [`MAX_WINDOW`] lines further at most ([`forced`]'s tables are the
/// product of both sides: a window as long as a file of a million lines
/// would cost gigabytes).
fn windows(
    (i, j): (usize, usize),
    (before, after): (usize, usize),
    (old, new): (usize, usize),
) -> ((usize, usize), (usize, usize)) {
    let i0 = i.saturating_sub(before + CONTEXT);
    let i1 = (i + after + CONTEXT + 1).min(old);
    let j0 = match i0 {
        0 => j.saturating_sub(i + MAX_WINDOW),
        _ => j.saturating_sub(i - i0),
    };
    let j1 = match i1 == old {
        true => (j + (i1 - i) + MAX_WINDOW).min(new),
        false => (j + (i1 - i)).min(new),
    };
    ((i0, i1), (j0, j1))
}

/// How the lines around snapshot line `i`, kept by the diff as line `j`,
/// tie it there (see [`tie`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tie {
    /// On one side the lines next to it lead, each kept at the same
    /// distance from `j`, to a line whose text occurs once in each file; or
    /// neither side leaves a line behind and its own text occurs once in
    /// each file.
    Pinned,
    /// Not pinned, and on one side the lines next to it lead so to a line
    /// the diff keeps somewhere else: it may be another line with its text
    /// (the anchored line changed or was removed, a copy stands elsewhere).
    LeftBehind,
    /// A line whose text occurs more than once (a `}`, a blank line), with
    /// changed lines on both sides and nothing that pins it, while another
    /// copy is free (not pinned in the snapshot, or left over in the file):
    /// it may be that copy.
    Loose,
}

/// How snapshot line `i`, kept by the diff as line `j`, is tied there.
///
/// Why the diff alone is not enough. The longest common subsequence keeps
/// the most lines, not the right ones. `return total` edited in place and
/// a new function ending with `return total` added below, or a loop's `}`
/// removed and an inner `}` dedented to its depth: it keeps the copy, one
/// line more than the truth ([`Tie::LeftBehind`]). Two functions swapped
/// by another writer: their unique lines moved, so the subsequence is
/// made of the blank and `}` lines alone, and a `}` of one function is
/// kept as the other's ([`Tie::Loose`]). A line that moved with its block,
/// or shifted with the file, has its neighbours beside it up to a line
/// found once in each file, or its text's other copies are each pinned
/// where they went (the last `}` of a file whose last function changed).
/// The walk looks [`MAX_WINDOW`] lines each way at most.
pub(crate) fn tie(
    map: &[Option<usize>],
    (i, j): (usize, usize),
    (old, new): (&[u64], &[u64]),
    (at_old, at_new): (&Positions, &Positions),
) -> Tie {
    let once = |k: u64| {
        at_old.get(&k).is_some_and(|v| v.len() == 1) && at_new.get(&k).is_some_and(|v| v.len() == 1)
    };
    // Whether file line `p` is new: no snapshot line is kept as it.
    let new_line = |p: usize| {
        at_old
            .get(&new[p])
            .is_none_or(|cs| cs.iter().all(|&c| map[c] != Some(p)))
    };
    // A snapshot line the diff did not keep moved when its text stands in
    // the file on a new line (among the first copies looked at; a text
    // found once in each file, not kept, always does).
    let moved = |k: u64| {
        at_new
            .get(&k)
            .is_some_and(|ps| ps.iter().take(MAX_MOVED_COPIES).any(|&p| new_line(p)))
    };
    let sides = |i: usize, j: usize| {
        [false, true].map(|down| side(map, (i, j), (old, new.len()), (once, moved), down))
    };
    let here = sides(i, j);
    let key = old[i];
    // A line of repeated text (a `}`) whose unique neighbour moved away: it
    // may have moved with it (two functions swapped; the `}` kept is the
    // other function's).
    if !once(key) && here.contains(&Side::Moved) {
        return Tie::Loose;
    }
    if here.contains(&Side::Unique) {
        return Tie::Pinned;
    }
    if here.contains(&Side::Elsewhere) {
        return Tie::LeftBehind;
    }
    if once(key) {
        return Tie::Pinned;
    }
    // A line of repeated text with nothing unique beside it is where the
    // diff kept it only when every other copy is accounted for: each other
    // copy in the snapshot kept somewhere and pinned there, and no copy in
    // the file left over but line `j` (then no other pairing of the
    // copies exists). Else one of the free copies may be it.
    let copies = at_old.get(&key).map_or(&[][..], Vec::as_slice);
    let there = at_new.get(&key).map_or(0, Vec::len);
    // As many copies in both, or one is left over: no walk needed.
    if copies.len() > MAX_COPIES || there != copies.len() {
        return Tie::Loose;
    }
    let pinned = copies
        .iter()
        .filter(|&&c| c != i)
        .filter(|&&c| map[c].is_some_and(|y| sides(c, y).contains(&Side::Unique)))
        .count();
    match pinned + 1 == copies.len() {
        true => Tie::Pinned,
        false => Tie::Loose,
    }
}

/// Most copies of a neighbour's text looked at to see whether it moved.
const MAX_MOVED_COPIES: usize = 64;

/// Most copies of an anchored line's text looked at to see whether each
/// is accounted for ([`tie`]); with more, a line not pinned by its own
/// neighbours is refused.
const MAX_COPIES: usize = 4096;

/// Where the lines on one side (`down`, or up) of snapshot line `i`, kept
/// as line `j`, lead, each kept at the same distance from it ([`tie`]):
/// `once(key)` says whether a text occurs once in each file; `new` is the
/// file's length in lines.
fn side(
    map: &[Option<usize>],
    (i, j): (usize, usize),
    (old, new): (&[u64], usize),
    (once, moved): (impl Fn(u64) -> bool, impl Fn(u64) -> bool),
    down: bool,
) -> Side {
    for d in 1..=MAX_WINDOW {
        let (a, b) = if down {
            (i + d, j + d)
        } else {
            match (i.checked_sub(d), j.checked_sub(d)) {
                (Some(a), Some(b)) => (a, b),
                _ => return Side::Nothing,
            }
        };
        if a >= old.len() || b >= new {
            return Side::Nothing;
        }
        match map[a] {
            None if moved(old[a]) => return Side::Moved,
            None => return Side::Nothing,
            Some(x) if x != b => return Side::Elsewhere,
            Some(_) if once(old[a]) => return Side::Unique,
            Some(_) => {}
        }
    }
    Side::Nothing
}

/// Where the lines on one side of an anchored line lead, each kept at the
/// same distance from it ([`tie`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    /// To a line whose text occurs once in each file.
    Unique,
    /// To a line the diff keeps somewhere else.
    Elsewhere,
    /// To a line the diff does not keep whose text stands on a new line of
    /// the file: it moved.
    Moved,
    /// To a changed line, a file's edge, or [`MAX_WINDOW`] lines of
    /// repeated text. The edges of both files reached at once do not pin
    /// a line: a function moved to the end of the file ends it as the
    /// function that ended it before did (`}` and blank lines), and its
    /// `}` would be taken for the other's.
    Nothing,
}

/// Where each key is in a file's lines.
pub(crate) type Positions = std::collections::HashMap<u64, Vec<usize>>;

/// Where each key is, line by line (for [`map_line_in`]).
pub(crate) fn positions(keys: &[u64]) -> Positions {
    let mut at = Positions::new();
    for (k, &key) in keys.iter().enumerate() {
        at.entry(key).or_default().push(k);
    }
    at
}

/// The stretch `from..to` of `lines` around line `i` that repeats with the
/// smallest period (`lines[x] == lines[x + p]` all through it, over one
/// period at least), when it reaches past [`CONTEXT`] lines on either side
/// of `i`. Periods up to [`CONTEXT`] are tried in turn (a run of `}` or
/// blank lines, short records); longer ones, up to [`MAX_WINDOW`], only
/// from the other places of line `i`'s own text (`at`): a period is the
/// distance to one of them.
fn repeated_stretch(lines: &[u64], at: &Positions, i: usize) -> Option<(usize, usize)> {
    let n = lines.len();
    // The stretch repeating with period `p` that holds `i` and its copy
    // at `base + p` (`base` is `i` or `i - p`).
    let stretch = |p: usize, base: usize| {
        let (mut lo, mut hi) = (base, base);
        while lo > 0 && lo - 1 + p < n && lines[lo - 1] == lines[lo - 1 + p] {
            lo -= 1;
        }
        while hi + p < n && lines[hi] == lines[hi + p] {
            hi += 1;
        }
        (lo, hi, (lo, (hi + p).min(n)))
    };
    let reaches = |(a, b): (usize, usize)| a + CONTEXT < i || b > i + CONTEXT + 1;
    for p in 1..=CONTEXT.min(n) {
        let (lo, hi, s) = stretch(p, i);
        if hi > lo && reaches(s) {
            return Some(s);
        }
    }
    let mut periods: Vec<usize> = at
        .get(&lines[i])
        .map_or(&[][..], Vec::as_slice)
        .iter()
        .map(|&x| x.abs_diff(i))
        .filter(|&p| p > CONTEXT && p <= MAX_WINDOW)
        .collect();
    periods.sort_unstable();
    periods.dedup();
    // A copy `p` lines away whose lines equal those around `i` all through
    // `i`'s window, with fewer than CONTEXT lines between the copies (a
    // block written twice with a line between), is a repeat too: where the
    // copy went cannot be told. Copies further apart have lines of their
    // own between them, and a window's diff tells them apart.
    let covers = |lo: usize, hi: usize, base: usize, p: usize| {
        lo <= base.saturating_sub(CONTEXT)
            && hi >= (base + CONTEXT + 1).min(n - p)
            && (lo + p).saturating_sub(hi) <= CONTEXT
    };
    periods.into_iter().find_map(|p| {
        [i.checked_sub(p), (i + p < n).then_some(i)]
            .into_iter()
            .flatten()
            .map(|base| (base, stretch(p, base)))
            .find(|&(base, (lo, hi, s))| {
                (hi - lo >= p && reaches(s)) || (hi > lo && covers(lo, hi, base, p))
            })
            .map(|(_, (_, _, s))| s)
    })
}

/// Whether every longest common subsequence of `a` and `b` pairs `a[i]`
/// with `b[j]`; `Err`: the lines of `b` that `a[i]` could pair with (or
/// `[j]` alone when `a[i]` or `b[j]` may be left out).
pub(crate) fn forced(a: &[u64], b: &[u64], i: usize, j: usize) -> Result<(), Vec<usize>> {
    let (n, m) = (a.len(), b.len());
    let w = m + 1;
    // pre[x*w+y]: LCS of a[..x], b[..y]; suf[x*w+y]: LCS of a[x..], b[y..].
    let mut pre = vec![0u32; (n + 1) * w];
    for x in 1..=n {
        for y in 1..=m {
            pre[x * w + y] = if a[x - 1] == b[y - 1] {
                pre[(x - 1) * w + y - 1] + 1
            } else {
                pre[(x - 1) * w + y].max(pre[x * w + y - 1])
            };
        }
    }
    let mut suf = vec![0u32; (n + 1) * w];
    for x in (0..n).rev() {
        for y in (0..m).rev() {
            suf[x * w + y] = if a[x] == b[y] {
                suf[(x + 1) * w + y + 1] + 1
            } else {
                suf[(x + 1) * w + y].max(suf[x * w + y + 1])
            };
        }
    }
    let total = pre[n * w + m];
    let pairs =
        |x: usize, y: usize| a[x] == b[y] && pre[x * w + y] + 1 + suf[(x + 1) * w + y + 1] == total;
    let partners: Vec<usize> = (0..m).filter(|&y| pairs(i, y)).collect();
    let rivals = (0..n).any(|x| x != i && pairs(x, j));
    // Some longest subsequence leaves a[i] out, or b[j].
    let skip_a = (0..=m).any(|y| pre[i * w + y] + suf[(i + 1) * w + y] == total);
    let skip_b = (0..=n).any(|x| pre[x * w + j] + suf[x * w + j + 1] == total);
    if partners == [j] && !rivals && !skip_a && !skip_b {
        Ok(())
    } else if partners.is_empty() {
        Err(vec![j])
    } else {
        Err(partners)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn ids_depend_on_content_only_and_use_the_alphabet() {
        let a = id_of(line_key(b"  function hello() {"));
        assert!(a.iter().all(|b| ALPHABET.contains(b)));
        assert_eq!(a, id_of(line_key(b"  function hello() {")));
        let t = b"x\r\ny\n}\n}";
        let ls = lines(t);
        assert_eq!(ls.len(), 4);
        assert_eq!(&t[ls[0].start..ls[0].end], b"x");
        assert_eq!(ls[3].next, t.len());
        let shown = String::from_utf8(tagged(t, &ls, &keys(t, &ls), 0, 4)).unwrap();
        let rows: Vec<&str> = shown.split_inclusive('\n').collect();
        assert!(
            rows[0].starts_with("1#") && rows[0].ends_with("|x\r\n"),
            "{shown}"
        );
        // The same content has the same ID at any line.
        assert_eq!(rows[2][1..5], rows[3][1..5]);
        assert!(lines(b"").is_empty());
        assert_eq!(lines(b"\n").len(), 1);
    }

    #[test]
    fn the_key_counts_every_byte_and_spreads_the_ids() {
        // Any one byte changed, or one byte more or fewer, is another key,
        // for every length class of `line_key` (up to 3, 7, 16, more).
        for n in 0..=48usize {
            let line: Vec<u8> = (0..n).map(|i| b'a' + (i % 26) as u8).collect();
            let k = line_key(&line);
            for i in 0..n {
                let mut c = line.clone();
                c[i] ^= 1;
                assert_ne!(line_key(&c), k, "length {n}, byte {i}");
            }
            let mut longer = line.clone();
            longer.push(0);
            assert_ne!(line_key(&longer), k, "length {n}");
        }
        // The top byte (the ID) of distinct lines is spread evenly: each of
        // the 256 IDs near its share of 65,536 lines (256; a fair hash
        // stays within 60 % to 140 % of it by a wide margin).
        let mut count = [0u32; 256];
        for i in 0..65_536 {
            // data: distinct lines to hash.
            let line = format!("    let value{i} = compute({i});");
            count[(line_key(line.as_bytes()) >> 56) as usize] += 1;
        }
        assert!(count.iter().all(|&c| (154..=358).contains(&c)), "{count:?}");
        // The hash is fixed: these keys are the same on every platform
        // (and `benchmark/anchor-alphabet.mjs` computes the same).
        assert_eq!(line_key(b""), PINNED[0]);
        assert_eq!(line_key(b"}"), PINNED[1]);
        assert_eq!(line_key(b"  function hello() {"), PINNED[2]);
        assert_eq!(
            line_key(b"    const value1 = compute(1, \"text 1\");"),
            PINNED[3]
        );
    }

    const PINNED: [u64; 4] = [
        0x62db_e5f5_0730_84d8,
        0xcd73_9f3b_99b2_9387,
        0xf758_0e23_8c41_34b9,
        0x3233_98b5_3173_e00e,
    ];

    /// The bytes of lines `from..from + n` of `t` (`ls`: its lines).
    fn span(t: &[u8], ls: &[Line], from: usize, n: usize) -> std::ops::Range<usize> {
        let at = |i: usize| ls.get(i).map_or(t.len(), |l| l.start);
        at(from)..at(from.saturating_add(n))
    }

    /// The one pass of a read tags, keys and counts exactly as `lines`,
    /// `keys` and `tagged` do, for every range.
    #[test]
    fn the_read_pass_tags_as_the_parts_do() {
        for t in [
            &b""[..],
            b"\n",
            b"x",
            b"a\r\nb\n\n}\r\n}",
            b"one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\neleven\n",
        ] {
            let ls = lines(t);
            let ks = keys(t, &ls);
            for from in 0..=ls.len() + 1 {
                for n in 0..=ls.len() + 1 {
                    let want = tagged(t, &ls, &ks, from, from + n);
                    let range = span(t, &ls, from, n);
                    let shown = n.min(ls.len().saturating_sub(from));
                    let got = read_tagged(t, from, range.clone(), None);
                    assert_eq!(got.keys, ks);
                    assert_eq!(got.out, want, "{from} {n}");
                    assert_eq!((got.shown, got.total), (shown, ls.len()), "{from} {n}");
                    let again = read_tagged(t, from, range, Some(&ks));
                    assert!(again.keys.is_empty());
                    assert_eq!(again.out, want, "{from} {n}, keys known");
                    assert_eq!((again.shown, again.total), (shown, ls.len()));
                }
            }
        }
        let t = read_tagged(b"a\nb\n", 0, 0..4, None).out;
        assert_eq!(t.len(), 4 + 2 * 5);
        assert!(t.starts_with(b"1#") && t[4] == b'|', "{t:?}");
    }

    /// The same over a longer text: line numbers that gain a digit (9, 99,
    /// 999), lines longer than one fixed-size copy, line breaks at every
    /// place of the 32-byte blocks the breaks are found in, a last line
    /// with and without its break.
    #[test]
    fn the_read_pass_tags_long_texts_as_the_parts_do() {
        let mut t = Vec::new();
        for i in 0..1_205usize {
            let len = (i * 37 + i / 7) % 151;
            t.extend((0..len).map(|j| b"ab cd{}();\t"[(i + j) % 11]));
            if i % 11 == 3 {
                t.push(b'\r');
            }
            t.push(b'\n');
        }
        for t in [&t[..], &t[..t.len() - 1], &t[..t.len() - 40]] {
            let ls = lines(t);
            let ks = keys(t, &ls);
            for (from, n) in [
                (0, usize::MAX),
                (0, 9),
                (5, 100),
                (95, 10),
                (990, 20),
                (1_100, 500),
                (3, 0),
            ] {
                let want = tagged(t, &ls, &ks, from, from.saturating_add(n));
                let range = span(t, &ls, from, n);
                let got = read_tagged(t, from, range.clone(), None);
                assert_eq!(got.keys, ks);
                assert!(got.out == want, "{from} {n}");
                assert_eq!(got.total, ls.len());
                let again = read_tagged(t, from, range, Some(&ks));
                assert!(again.out == want, "{from} {n}, keys known");
                assert_eq!((again.shown, again.total), (got.shown, got.total));
            }
        }
        let mut d = Decimal::new(99_999_998);
        let mut out = Sink::with_capacity(256);
        for i in 0..4 {
            d.put_tag(&mut out, 99_999_998 + i, 0);
        }
        assert_eq!(
            out.finish(),
            b"99999998#aa|99999999#aa|100000000#aa|100000001#aa|"
        );
    }

    /// The breaks found 32 bytes at a time are memchr's, wherever they fall
    /// in or across the blocks, and in a last block shorter than 32.
    #[test]
    fn breaks_are_found_in_every_place_of_a_block() {
        for len in 0..100usize {
            for step in [1usize, 2, 3, 5, 16, 31, 32, 33, 64] {
                let t: Vec<u8> = (0..len)
                    .map(|i| {
                        if i % step == step - 1 {
                            b'\n'
                        } else {
                            b'a' + (i % 7) as u8
                        }
                    })
                    .collect();
                let want: Vec<usize> = memchr::memchr_iter(b'\n', &t).collect();
                assert_eq!(breaks_from(&t, 0).collect::<Vec<_>>(), want, "{len} {step}");
                for at in [1, 17, 32, 33, 70] {
                    let after: Vec<usize> = want.iter().copied().filter(|&i| i >= at).collect();
                    assert_eq!(
                        breaks_from(&t, at).collect::<Vec<_>>(),
                        after,
                        "{len} {step} {at}"
                    );
                }
            }
        }
    }

    #[test]
    fn anchors_parse_leniently_and_refuse_what_is_not_one() {
        let a = Anchor::parse("42#gk").unwrap();
        assert_eq!((a.line, &a.id), (41, b"gk"));
        assert_eq!(Anchor::parse(" 42#GK|  function").unwrap(), a);
        assert_eq!(a.show(), "42#gk");
        for bad in ["", "42", "0#gk", "42#g", "42#zz", "42#qa", "x#gk", "42#gkk"] {
            assert!(Anchor::parse(bad).is_none(), "{bad}");
        }
    }

    /// The naive reference of [`map_line`]: every alignment of the whole
    /// files, enumerated; the diff's placement is taken only when every
    /// longest one keeps it.
    fn naive_map(old: &[u64], new: &[u64], map: &[Option<usize>], i: usize) -> Mapped {
        let Some(j) = map[i] else {
            return Mapped::Changed;
        };
        // Every longest common subsequence, as its pairs.
        type Memo = std::collections::HashMap<(usize, usize), Vec<Vec<(usize, usize)>>>;
        fn all(
            a: &[u64],
            b: &[u64],
            x: usize,
            y: usize,
            memo: &mut Memo,
        ) -> Vec<Vec<(usize, usize)>> {
            if x == a.len() || y == b.len() {
                return vec![Vec::new()];
            }
            if let Some(v) = memo.get(&(x, y)) {
                return v.clone();
            }
            let mut out = all(a, b, x + 1, y, memo);
            out.extend(all(a, b, x, y + 1, memo));
            if a[x] == b[y] {
                for mut p in all(a, b, x + 1, y + 1, memo) {
                    p.insert(0, (x, y));
                    out.push(p);
                }
            }
            let best = out.iter().map(Vec::len).max().unwrap_or(0);
            out.retain(|p| p.len() == best);
            out.sort();
            out.dedup();
            memo.insert((x, y), out.clone());
            out
        }
        let subs = all(old, new, 0, 0, &mut Memo::new());
        if subs.iter().all(|p| p.contains(&(i, j))) {
            Mapped::At(j)
        } else {
            Mapped::Several(Vec::new())
        }
    }

    /// A snapshot and the file it became by random insertions, removals and
    /// changes, with where each snapshot line truly went. New and changed
    /// lines are fresh (keys never in the snapshot); the snapshot repeats a
    /// few contents (`}`, blank lines) a lot.
    fn shifted() -> impl Strategy<Value = (Vec<u64>, Vec<u64>, Vec<Option<usize>>)> {
        (
            proptest::collection::vec(0u64..4, 0..12),
            proptest::collection::vec((0u8..4, 0usize..12), 0..4),
        )
            .prop_map(|(old, ops)| {
                let mut cur: Vec<(u64, Option<usize>)> =
                    old.iter().enumerate().map(|(i, &k)| (k, Some(i))).collect();
                let mut fresh = 1000u64;
                for (op, at) in ops {
                    let at = if cur.is_empty() { 0 } else { at % cur.len() };
                    fresh += 1;
                    match op {
                        0 => cur.insert(at, (fresh, None)),
                        1 if !cur.is_empty() => {
                            cur.remove(at);
                        }
                        2 if !cur.is_empty() => cur[at] = (fresh, None),
                        _ => cur.insert(at.min(cur.len()), (fresh, None)),
                    }
                }
                let mut truth = vec![None; old.len()];
                for (j, (_, from)) in cur.iter().enumerate() {
                    if let Some(i) = from {
                        truth[*i] = Some(j);
                    }
                }
                (old, cur.into_iter().map(|(k, _)| k).collect(), truth)
            })
    }

    proptest! {
        #![proptest_config(crate::text::test_seeds::config(512))]

        /// The mapping agrees with its naive reference, and never places a
        /// line anywhere but where it truly went: a changed or removed line
        /// is never placed, a line placed is the one that moved there.
        #[test]
        fn mapping_matches_the_reference_and_is_never_wrong((old, new, truth) in shifted()) {
            let map = diff_map(&old, &new, None).unwrap();
            for (i, &truth_i) in truth.iter().enumerate() {
                let m = map_line(&old, &new, &map, i);
                let placed = |m: &Mapped| match m { Mapped::At(j) => Some(*j), _ => None };
                prop_assert_eq!(placed(&m), placed(&naive_map(&old, &new, &map, i)));
                if let Mapped::At(j) = m {
                    prop_assert_eq!(truth_i, Some(j), "line {} placed at {}", i, j);
                }
            }
        }
    }

    /// The file's window is as long as the snapshot's and [`MAX_WINDOW`]
    /// lines more toward each edge at most, however long the file grew: a
    /// read of 950 lines and a million lines added after it compared a
    /// window of the whole file (two tables of 950 x 1,000,000 cells).
    #[test]
    fn the_windows_compared_are_bounded_by_the_snapshots() {
        for (i, j, old, new) in [
            (10, 10, 950, 1_000_000),
            (940, 999_000, 950, 1_000_000),
            (5, 500_000, 20, 1_000_000),
        ] {
            let ((i0, i1), (j0, j1)) = windows((i, j), (0, 0), (old, new));
            assert!(i0 <= i && i < i1 && i1 <= old);
            assert!(j0 <= j && j < j1 && j1 <= new);
            assert!(j1 - j0 <= i1 - i0 + 2 * MAX_WINDOW, "{:?}", (j0, j1));
        }
        // Near the edges: the file's side reaches them too.
        assert_eq!(windows((3, 5), (0, 0), (10, 12)), ((0, 10), (0, 12)));
    }

    #[test]
    fn a_moved_line_is_found_and_a_repeated_one_is_not_guessed() {
        // 0:a 1:} 2:b 3:} -> two lines inserted at the top.
        let old = [1, 9, 2, 9];
        let new = [7, 8, 1, 9, 2, 9];
        let map = diff_map(&old, &new, None).unwrap();
        assert_eq!(map_line(&old, &new, &map, 1), Mapped::At(3));
        assert_eq!(map_line(&old, &new, &map, 3), Mapped::At(5));
        // [a, a] -> [a]: which one is left cannot be told.
        let (old, new) = ([1, 1], [1]);
        let map = diff_map(&old, &new, None).unwrap();
        assert!(matches!(
            map_line(&old, &new, &map, 0),
            Mapped::Several(_) | Mapped::Changed
        ));
        assert!(matches!(
            map_line(&old, &new, &map, 1),
            Mapped::Several(_) | Mapped::Changed
        ));
    }
}
