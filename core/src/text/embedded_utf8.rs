//! UTF-8 characters inside a file read in a single-byte encoding.
//!
//! A file whose bytes are mostly Latin-1 can hold a line that is really
//! UTF-8 (`price = "日"` pasted into a windows-1252 file): decoded as
//! windows-1252, `日` (`E6 97 A5`) shows as `æ—¥`, three characters, and
//! an edit of one of them would leave the others behind as bytes that are
//! neither the caller's text nor UTF-8. Every byte of a single-byte file
//! is valid, so nothing but UTF-8's own structure tells such a character
//! apart: a byte sequence of the file that is one valid multi-byte UTF-8
//! character is treated as one character, which an edit replaces whole or
//! leaves alone.
//!
//! The rule, over the bytes: an edit replacing `[start, end)` of the file
//! by `with` is refused when it cuts such a character (`start` or `end`
//! strictly inside it) and a byte of the character it keeps is not part of
//! a valid multi-byte UTF-8 character of the new bytes. So deleting or
//! changing part of `日` is refused, while a line diff that narrowed a
//! whole-character replacement to the bytes that differ (`æ—¥` -> `æœˆ`,
//! UTF-8 `月`, written as `—¥` -> `œˆ`) is allowed: the kept `E6` begins a
//! whole character again.

/// Whether `b` is a UTF-8 continuation byte (`10xxxxxx`).
fn is_cont(b: u8) -> bool {
    (b as i8) < -0x40
}

/// The valid multi-byte UTF-8 character of `b` that holds the byte at `p`:
/// its span, or `None` (an ASCII byte, or bytes that are not UTF-8 there).
fn char_at(b: &[u8], p: usize) -> Option<(usize, usize)> {
    let mut q = p;
    while is_cont(*b.get(q)?) {
        if p - q == 3 || q == 0 {
            return None;
        }
        q -= 1;
    }
    let len = match b[q] {
        0xC2..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF4 => 4,
        _ => return None,
    };
    let e = q + len;
    (e > p && e <= b.len() && std::str::from_utf8(&b[q..e]).is_ok()).then_some((q, e))
}

/// The multi-byte UTF-8 character of `raw` that offset `p` falls strictly
/// inside of.
fn cut_at(raw: &[u8], p: usize) -> Option<(usize, usize)> {
    char_at(raw, p).filter(|&(s, _)| s < p)
}

/// Where replacing `[start, end)` of `raw` by `with` would break a valid
/// multi-byte UTF-8 character of `raw`: the span of the first character
/// cut whose kept bytes are not part of a whole UTF-8 character in the new
/// bytes, or `None` (the edit cuts no such character, or completes every
/// one it cuts).
pub(crate) fn split_char(
    raw: &[u8],
    start: usize,
    end: usize,
    with: &[u8],
) -> Option<(usize, usize)> {
    let (at_start, at_end) = (cut_at(raw, start), cut_at(raw, end));
    if at_start.is_none() && at_end.is_none() {
        return None;
    }
    // A character is at most 4 bytes: 3 bytes either side of the edit hold
    // every kept byte of a cut character and the lead byte before it.
    let l0 = start.saturating_sub(3);
    let r1 = (end + 3).min(raw.len());
    let local = [&raw[l0..start], with, &raw[end..r1]].concat();
    // A kept run `[a, b)` of `local` must lie inside one whole character.
    let whole = |a: usize, b: usize| char_at(&local, a).is_some_and(|(_, e)| e >= b);
    if let Some((s, e)) = at_start {
        if !whole(s - l0, start - l0) {
            return Some((s, e));
        }
    }
    if let Some((s, e)) = at_end {
        let a = start - l0 + with.len();
        if !whole(a, a + (e - end)) {
            return Some((s, e));
        }
    }
    None
}

/// The UTF-8 characters of a single-byte file, for readFile to name: the
/// first one's span and how many there are.
pub(crate) fn find(raw: &[u8]) -> Option<((usize, usize), usize)> {
    let mut first = None;
    let mut count = 0usize;
    let mut at = 0usize;
    for chunk in raw.utf8_chunks() {
        let valid = chunk.valid();
        for (i, c) in valid.char_indices().filter(|(_, c)| !c.is_ascii()) {
            first.get_or_insert((at + i, at + i + c.len_utf8()));
            count += 1;
        }
        at += valid.len() + chunk.invalid().len();
    }
    first.map(|f| (f, count))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Every valid multi-byte UTF-8 character of `b`, by trying every span.
    fn all_chars(b: &[u8]) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        for i in 0..b.len() {
            for n in 2..=4 {
                let ok = b
                    .get(i..i + n)
                    .and_then(|s| std::str::from_utf8(s).ok())
                    .is_some_and(|s| s.chars().count() == 1);
                if ok {
                    out.push((i, i + n));
                }
            }
        }
        out
    }

    /// The naive rule: build the new bytes, list the characters of both
    /// sides by brute force, and refuse when a cut character's kept bytes
    /// lie inside no character of the new bytes.
    fn naive_split(raw: &[u8], start: usize, end: usize, with: &[u8]) -> bool {
        let new = [&raw[..start], with, &raw[end..]].concat();
        let now = all_chars(&new);
        let inside = |a: usize, b: usize| now.iter().any(|&(s, e)| s <= a && b <= e);
        let moved = |p: usize| p - end + start + with.len();
        all_chars(raw).into_iter().any(|(s, e)| {
            let head = s < start && start < e && !inside(s, start);
            let tail = s < end && end < e && !inside(moved(end), moved(e));
            head || tail
        })
    }

    #[test]
    fn splitting_nichi() {
        let raw = b"p = \"\xE6\x97\xA5\"\n";
        let (s, e) = (5, 8);
        // Deleting `¥`, `æ—` or `—`; replacing `æ`; inserting inside.
        assert_eq!(split_char(raw, 7, 8, b""), Some((s, e)));
        assert_eq!(split_char(raw, 5, 7, b""), Some((s, e)));
        assert_eq!(split_char(raw, 6, 7, b""), Some((s, e)));
        assert_eq!(split_char(raw, 4, 6, b"\"a"), Some((s, e)));
        assert_eq!(split_char(raw, 6, 6, b"X"), Some((s, e)));
        assert_eq!(split_char(raw, 7, 9, b"\xA5\xA5"), None);
        // Whole: replaced, or completed again (`—¥` -> `œˆ`: UTF-8 月).
        assert_eq!(split_char(raw, 5, 8, b"x"), None);
        assert_eq!(split_char(raw, 6, 8, b"\x9C\x88"), None);
        assert_eq!(split_char(raw, 0, 1, b"q"), None);
        assert_eq!(split_char(raw, 8, 8, b"\xE9"), None);
        assert_eq!(split_char(raw, 5, 5, b"\xE9"), None);
        // Latin-1 bytes that are not UTF-8 are single characters.
        assert_eq!(split_char(b"caf\xE9\xE9", 4, 5, b""), None);
    }

    #[test]
    fn finds_the_utf8_characters() {
        let raw = b"caf\xE9\np = \"\xE6\x97\xA5\xC3\xA9\"\n\xE6\x97";
        assert_eq!(find(raw), Some(((10, 13), 2)));
        assert_eq!(find(b"caf\xE9 \xFF"), None);
    }

    /// Bytes that make characters, halves of them and Latin-1 bytes.
    fn piece() -> impl Strategy<Value = Vec<u8>> {
        prop::sample::select(vec![
            b"a".to_vec(),
            b"\"".to_vec(),
            b"\n".to_vec(),
            b"\xE6\x97\xA5".to_vec(),
            b"\xC3\xA9".to_vec(),
            b"\xF0\x9F\x98\x80".to_vec(),
            b"\xE6".to_vec(),
            b"\x97".to_vec(),
            b"\xA5".to_vec(),
            b"\x9C\x88".to_vec(),
            b"\xE9".to_vec(),
            b"\xC3".to_vec(),
            b"\xF0\x9F".to_vec(),
            b"\x80".to_vec(),
        ])
    }

    proptest! {
        #![proptest_config(crate::text::test_seeds::config(2000))]

        /// The fast rule is the naive one, and what it names is a
        /// character of the file the edit cuts.
        #[test]
        fn split_char_is_the_naive_rule(
            raw in prop::collection::vec(piece(), 0..12),
            with in prop::collection::vec(piece(), 0..3),
            a in 0usize..64,
            b in 0usize..64,
        ) {
            let raw = raw.concat();
            let with = with.concat();
            let (start, end) = (a.min(b) % (raw.len() + 1), a.max(b) % (raw.len() + 1));
            let (start, end) = (start.min(end), start.max(end));
            let got = split_char(&raw, start, end, &with);
            prop_assert_eq!(got.is_some(), naive_split(&raw, start, end, &with),
                "{:?} [{}, {}) <- {:?}", raw, start, end, with);
            if let Some((s, e)) = got {
                prop_assert!(all_chars(&raw).contains(&(s, e)));
                prop_assert!((s < start && start < e) || (s < end && end < e));
            }
        }
    }
}
