//! Files in a legacy encoding (Shift_JIS, GBK, Big5, EUC-KR, EUC-JP, the
//! single-byte code pages): detected, decoded for matching, and written
//! back only where the engine can prove that every character outside the
//! edit keeps its bytes.
//!
//! # Why not edit the bytes
//!
//! In the double-byte encodings of East Asia the second byte of a character
//! may be an ASCII byte: Shift_JIS `ア` is `83 41`, and `41` is `A`. An
//! ASCII search over the raw bytes therefore finds an `A` that is half of a
//! character, and replacing it turns `ア` into `イ` (`83 42`) — or deletes
//! half a character. So a file that is not UTF-8 is decoded and matched as
//! text, like a UTF-16 file.
//!
//! # Detection, and what a wrong guess can do
//!
//! The encoding is guessed by `chardetng` (Firefox's detector) from the
//! file's bytes, then the whole file must decode under the guess without a
//! single error; otherwise the file is edited at byte level
//! ([`check_byte_seams`]). A guess can still be wrong in a way decoding
//! does not show (every byte is valid windows-1252, and most Shift_JIS
//! text is also valid GBK). Two checks make sure a wrong guess never
//! writes a wrong byte outside what the caller replaced:
//!
//! - **round trip**: the new content is written from slices of the bytes
//!   read wherever the text is unchanged, and every such slice, and every
//!   replaced span, is re-encoded and compared with the bytes it stands
//!   for: the file round-trips exactly through the guessed encoding, or
//!   the edit is refused;
//! - **seams**: at both ends of every replaced span, for each double-byte
//!   encoding under whose structure (lead and trail byte ranges) the line
//!   is valid, the span must begin and end between two characters, before
//!   and after the edit. A line break is a character boundary in all of
//!   them, so each check reads one line. An edit that would split or merge
//!   a character under any encoding the line plausibly is in is refused
//!   (`UNSUPPORTED_ENCODING`, naming the encodings);
//! - **UTF-8 inside a single-byte file**: a windows-1252 (or other
//!   single-byte) file can hold a line that is really UTF-8, where `日`
//!   (`E6 97 A5`) reads as `æ—¥`. A byte sequence of such a file that is one
//!   valid multi-byte UTF-8 character is edited whole or not at all: an
//!   edit that cuts one and keeps bytes of it that are not part of a whole
//!   UTF-8 character afterwards is refused (`UNSUPPORTED_ENCODING`, naming
//!   the character; [`embedded_utf8`]). The double-byte encodings are not
//!   held to it: their own characters often pair up as valid UTF-8 by
//!   chance.
//!
//! The cost: a legacy file is decoded once on read (one UTF-8 copy, as for
//! UTF-16) and the unchanged text re-encoded once on write into a small
//! scratch buffer for the comparison; the content written is slices of the
//! bytes read plus the encoded replacements, never a second copy of the
//! file.

use encoding_rs::Encoding as Enc;

use crate::error::{ErrorCode, Failure};
use crate::printer;
use crate::text::embedded_utf8;
use crate::text::lines::line_start;

/// Bytes of non-ASCII lines the detector is fed (about 5 ms of its time;
/// the whole file is then decoded under its guess, which is the real
/// test).
pub(crate) const DETECT_BYTES: usize = 64 << 10;

/// The encoding of a non-UTF-8 file, when it is one the engine edits as
/// text: the detector's guess, if the file decodes under it without error.
/// Returns the decoded text too. `None`: edit it at byte level — it decodes
/// under no guess, or it is mostly UTF-8 (at least as many valid non-ASCII
/// UTF-8 characters as invalid sequences: a UTF-8 file with a few stray
/// bytes, whose text byte-level reading shows as it is).
pub(crate) fn detect(raw: &[u8]) -> Option<(&'static Enc, String)> {
    if mostly_utf8(raw) {
        return None;
    }
    // Only lines with non-ASCII bytes tell encodings apart: those are fed,
    // so that a long ASCII head does not hide the rest.
    let mut d = chardetng::EncodingDetector::new();
    let mut fed = 0usize;
    for line in raw.split_inclusive(|&b| b == b'\n') {
        if line.is_ascii() {
            continue;
        }
        d.feed(line, false);
        fed += line.len();
        if fed >= DETECT_BYTES {
            break;
        }
    }
    d.feed(b"", true);
    let enc = d.guess(None, false);
    if !supported(enc) {
        return None;
    }
    let text = enc.decode_without_bom_handling_and_without_replacement(raw)?;
    Some((enc, text.into_owned()))
}

/// Whether `raw` has at least as many valid non-ASCII UTF-8 characters as
/// invalid sequences (and at least one).
fn mostly_utf8(raw: &[u8]) -> bool {
    let (mut valid, mut bad) = (0usize, 0usize);
    for c in raw.utf8_chunks() {
        valid += c.valid().bytes().filter(|&b| b >= 0xC0).count();
        bad += usize::from(!c.invalid().is_empty());
    }
    valid > 0 && valid >= bad
}

/// Whether `enc` is one this module edits: ASCII-compatible, stateless,
/// not UTF-8 or UTF-16.
fn supported(enc: &'static Enc) -> bool {
    enc.is_ascii_compatible()
        && enc != encoding_rs::UTF_8
        && enc != encoding_rs::ISO_2022_JP
        && enc != encoding_rs::REPLACEMENT
        && enc != encoding_rs::X_USER_DEFINED
}

/// The name results use: the WHATWG name in lower case.
pub(crate) fn name(enc: &'static Enc) -> &'static str {
    match enc.name() {
        "Big5" => "big5",
        "EUC-JP" => "euc-jp",
        "EUC-KR" => "euc-kr",
        "GBK" => "gbk",
        "IBM866" => "ibm866",
        "ISO-8859-2" => "iso-8859-2",
        "ISO-8859-3" => "iso-8859-3",
        "ISO-8859-4" => "iso-8859-4",
        "ISO-8859-5" => "iso-8859-5",
        "ISO-8859-6" => "iso-8859-6",
        "ISO-8859-7" => "iso-8859-7",
        "ISO-8859-8" => "iso-8859-8",
        "ISO-8859-8-I" => "iso-8859-8-i",
        "ISO-8859-10" => "iso-8859-10",
        "ISO-8859-13" => "iso-8859-13",
        "ISO-8859-14" => "iso-8859-14",
        "ISO-8859-15" => "iso-8859-15",
        "ISO-8859-16" => "iso-8859-16",
        "KOI8-R" => "koi8-r",
        "KOI8-U" => "koi8-u",
        "Shift_JIS" => "shift_jis",
        other => other,
    }
}

// ---------------------------------------------------------------------------
// Character structure of the double-byte encodings

/// The double-byte families whose characters can hide an ASCII byte or
/// pair up with a neighbour. Only their structure (which bytes lead, which
/// follow) matters here, not their tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Family {
    ShiftJis,
    Gb18030,
    Big5,
    Uhc,
    EucJp,
}

const FAMILIES: [Family; 5] = [
    Family::ShiftJis,
    Family::Gb18030,
    Family::Big5,
    Family::Uhc,
    Family::EucJp,
];

impl Family {
    fn name(self) -> &'static str {
        match self {
            Family::ShiftJis => "Shift_JIS",
            Family::Gb18030 => "GBK/GB18030",
            Family::Big5 => "Big5",
            Family::Uhc => "EUC-KR",
            Family::EucJp => "EUC-JP",
        }
    }

    /// Length of the character starting `b`, or `None` if `b` does not
    /// start one (invalid or cut short).
    fn char_len(self, b: &[u8]) -> Option<usize> {
        let at = |i: usize| b.get(i).copied();
        let lead = at(0)?;
        if lead < 0x80 {
            return Some(1);
        }
        let in_ = |i, r: &[std::ops::RangeInclusive<u8>]| {
            at(i).is_some_and(|x| r.iter().any(|r| r.contains(&x)))
        };
        match self {
            Family::ShiftJis => match lead {
                0x80 | 0xA1..=0xDF => Some(1),
                0x81..=0x9F | 0xE0..=0xFC => in_(1, &[0x40..=0x7E, 0x80..=0xFC]).then_some(2),
                _ => None,
            },
            Family::Gb18030 => match lead {
                0x80 => Some(1),
                0x81..=0xFE => {
                    if in_(1, &[0x30..=0x39]) {
                        (in_(2, &[0x81..=0xFE]) && in_(3, &[0x30..=0x39])).then_some(4)
                    } else {
                        in_(1, &[0x40..=0x7E, 0x80..=0xFE]).then_some(2)
                    }
                }
                _ => None,
            },
            Family::Big5 => match lead {
                0x81..=0xFE => in_(1, &[0x40..=0x7E, 0xA1..=0xFE]).then_some(2),
                _ => None,
            },
            Family::Uhc => match lead {
                0x81..=0xFE => in_(1, &[0x41..=0x5A, 0x61..=0x7A, 0x81..=0xFE]).then_some(2),
                _ => None,
            },
            Family::EucJp => match lead {
                0x8E => in_(1, &[0xA1..=0xDF]).then_some(2),
                0x8F => (in_(1, &[0xA1..=0xFE]) && in_(2, &[0xA1..=0xFE])).then_some(3),
                0xA1..=0xFE => in_(1, &[0xA1..=0xFE]).then_some(2),
                _ => None,
            },
        }
    }

    /// Whether every offset of `cuts` falls between two characters of
    /// `line`; `None` when `line` is not valid in this family at all.
    fn cuts_are_boundaries(self, line: &[u8], cuts: &[usize]) -> Option<bool> {
        let mut i = 0usize;
        let mut ok = true;
        let mut next_cut = cuts.iter().copied().peekable();
        while i < line.len() {
            let n = self.char_len(&line[i..])?;
            while let Some(&c) = next_cut.peek() {
                if c > i && c < i + n {
                    ok = false;
                }
                if c >= i + n {
                    break;
                }
                next_cut.next();
            }
            i += n;
        }
        Some(ok)
    }
}

/// The line of `bytes` around `[start, end)`: from after the last line
/// break before `start` to the first line break at or after `end`.
fn line_around(bytes: &[u8], start: usize, end: usize) -> (usize, usize) {
    let ls = line_start(bytes, start);
    let le = memchr::memchr(b'\n', &bytes[end..]).map_or(bytes.len(), |i| end + i);
    (ls, le)
}

/// The stretch of `raw` around `[start, end)` whose ends are character
/// boundaries in every double-byte family: after the last byte below
/// `0x30` before `start`, up to the first at or after `end`. No family uses such a byte (a space, a quote, a line
/// break, ...) inside a character (GB18030's four-byte ones hold digits,
/// `0x30`..`0x39`), so decoding from there is in step; and the check of
/// each edit reads a few bytes around it, not its whole line (5,000 edits
/// of one 2 MB line read 10 GB).
fn sync_around(raw: &[u8], start: usize, end: usize) -> (usize, usize) {
    // A line break is such a byte: the stretch never leaves the line.
    let from = raw[..start]
        .iter()
        .rposition(|&b| b < 0x30)
        .map_or(0, |k| k + 1);
    let to = raw[end..]
        .iter()
        .position(|&b| b < 0x30)
        .map_or(raw.len(), |k| end + k);
    (from, to)
}

/// Checks one replaced span `[start, end)` of `raw`, replaced by `with`:
/// under every double-byte family in which the old line is valid, both
/// ends fall between characters before and after the edit, and the new
/// line stays valid. Returns the families it would break.
fn seam_breaks(
    raw: &[u8],
    (start, end): (usize, usize),
    with: &[u8],
    families: &[Family],
) -> Vec<&'static str> {
    let (ls, le) = sync_around(raw, start, end);
    let old_line = &raw[ls..le];
    let new_line = [&raw[ls..start], with, &raw[end..le]].concat();
    let (a, b) = (start - ls, end - ls);
    let mut broken = Vec::new();
    for &f in families {
        let Some(old_ok) = f.cuts_are_boundaries(old_line, &[a, b]) else {
            continue;
        };
        // The new line is checked per line break it may now contain.
        let new_ok = new_line
            .split(|&c| c == b'\n')
            .scan(0usize, |at, l| {
                let from = *at;
                *at += l.len() + 1;
                let cuts: Vec<usize> = [a, a + with.len()]
                    .into_iter()
                    .filter(|&c| c >= from && c <= from + l.len())
                    .map(|c| c - from)
                    .collect();
                Some(f.cuts_are_boundaries(l, &cuts))
            })
            .all(|r| r == Some(true));
        if !old_ok || !new_ok {
            broken.push(f.name());
        }
    }
    broken
}

fn seam_failure(path: &str, enc: &str, line_at: usize, broken: &[&str]) -> Failure {
    Failure::new(
        ErrorCode::UNSUPPORTED_ENCODING,
        printer::splits_a_character(path, enc, line_at, broken),
    )
}

/// The refusal of an edit that would break `ch`, bytes of a single-byte
/// file that are one valid UTF-8 character.
fn utf8_split_failure(path: &str, enc: &'static Enc, line_at: usize, ch: &[u8]) -> Failure {
    let shown = enc.decode_without_bom_handling(ch).0;
    let utf8 = String::from_utf8_lossy(ch);
    Failure::new(
        ErrorCode::UNSUPPORTED_ENCODING,
        printer::splits_utf8_character(path, name(enc), line_at, (ch, &shown, &utf8)),
    )
}

/// A byte-level file (mostly UTF-8, or valid in no encoding the engine
/// could determine): on a line that is valid UTF-8 every seam of an ASCII
/// block is between characters; on another line every seam must pass the
/// double-byte check of a legacy file (`seam_breaks`); and on a line
/// valid in no double-byte family either, where nothing tells where characters begin, a
/// seam must have an ASCII byte before it that cannot be part of a longer
/// character in any ASCII-compatible encoding (in GB18030 a digit can be
/// the second byte of four, when a byte of 0x81 or more follows), before
/// and after the edit. `pieces` are the new content, as slices of `raw`
/// where it is unchanged.
pub(crate) fn check_byte_seams(raw: &[u8], pieces: &[&[u8]], path: &str) -> Result<(), Failure> {
    let safe = |left: Option<u8>, right: Option<u8>| match left {
        None => true,
        Some(l) => l < 0x80 && !(l.is_ascii_digit() && right.is_some_and(|r| r >= 0x81)),
    };
    for (start, end, with) in spans(raw, pieces) {
        let line_no = || crate::text::lines::count_newlines(&raw[..start]) + 1;
        let (ls, le) = line_around(raw, start, end);
        let line = &raw[ls..le];
        // A byte-level file is mostly UTF-8 or in no known encoding; on a
        // line that is UTF-8, an ASCII block cannot split a character.
        if std::str::from_utf8(line).is_ok() {
            continue;
        }
        let broken = seam_breaks(raw, (start, end), &with, &FAMILIES);
        if !broken.is_empty() {
            return Err(seam_failure(
                path,
                "bytes (binary-safe-bytes)",
                line_no(),
                &broken,
            ));
        }
        if FAMILIES
            .iter()
            .any(|f| f.cuts_are_boundaries(line, &[]).is_some())
        {
            continue;
        }
        let before = start.checked_sub(1).map(|i| raw[i]);
        let last = end
            .checked_sub(1)
            .filter(|&e| e >= start)
            .map(|i| raw[i])
            .or(before);
        let new_first = with.first().copied().or(raw.get(end).copied());
        let new_last = with.last().copied().or(before);
        let ok = safe(before, raw.get(start).copied())
            && safe(last, raw.get(end).copied())
            && safe(before, new_first)
            && safe(new_last, raw.get(end).copied());
        if !ok {
            return Err(Failure::new(
                ErrorCode::UNSUPPORTED_ENCODING,
                printer::beside_non_ascii(path, line_no()),
            ));
        }
    }
    Ok(())
}

/// The replaced spans of `raw` given the new content as `pieces` (slices
/// of `raw` where unchanged, in order): `(start, end, replacement)`.
fn spans(raw: &[u8], pieces: &[&[u8]]) -> Vec<(usize, usize, Vec<u8>)> {
    let base = raw.as_ptr() as usize;
    let within = |p: &[u8]| {
        let a = p.as_ptr() as usize;
        (a >= base && a + p.len() <= base + raw.len()).then(|| a - base)
    };
    let mut out = Vec::new();
    let mut at = 0usize;
    let mut with: Vec<u8> = Vec::new();
    let mut open = false;
    for p in pieces.iter().filter(|p| !p.is_empty()) {
        match within(p).filter(|&o| o >= at) {
            Some(o) => {
                if o > at || open {
                    out.push((at, o, std::mem::take(&mut with)));
                }
                open = false;
                at = o + p.len();
            }
            None => {
                with.extend_from_slice(p);
                open = true;
            }
        }
    }
    if at < raw.len() || open {
        out.push((at, raw.len(), with));
    }
    out
}

// ---------------------------------------------------------------------------
// Writing a legacy file back

/// One part of a spliced file: a span of the bytes read, or of the encoded
/// replacements.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Part {
    Raw(usize, usize),
    Owned(usize, usize),
}

/// Appends `s` encoded in `enc` to `out`; `Err`: the first character the
/// encoding cannot hold, or holds one way only (`¥` to `\`, `‾` to `~` and
/// `−` to `－` in Shift_JIS and EUC-JP: what is written would read back as
/// another character).
fn encode_new(enc: &'static Enc, s: &str, out: &mut Vec<u8>) -> Result<(), char> {
    let start = out.len();
    let mut e = enc.new_encoder();
    let need = e
        .max_buffer_length_from_utf8_without_replacement(s.len())
        .unwrap_or(usize::MAX);
    out.reserve(need);
    let (res, _) = e.encode_from_utf8_to_vec_without_replacement(s, out, true);
    if let encoding_rs::EncoderResult::Unmappable(c) = res {
        return Err(c);
    }
    one_way(enc, s, &out[start..]).map_or(Ok(()), Err)
}

/// The first character of `s` that its encoding in `enc`, `bytes`, does
/// not read back as (`None`: every one comes back).
fn one_way(enc: &'static Enc, s: &str, bytes: &[u8]) -> Option<char> {
    let back = enc.decode_without_bom_handling(bytes).0;
    if back == s {
        return None;
    }
    let mut b = back.chars();
    s.chars().find(|&c| b.next() != Some(c))
}

/// Encodes the new text `pieces` (slices of `text`, the decoded file, where
/// unchanged; other slices are replacements) of the file `raw` in `enc`:
/// unchanged text as slices of `raw`, each one verified by re-encoding it,
/// replacements encoded. Returns the parts and the encoded replacements.
/// `cr`: the file's line breaks are lone CRs, read as LF in `text` (a CR
/// and an LF are one byte each in every encoding read here, never part of
/// another character, so offsets agree): the text's LFs stand for the
/// file's CRs, and every break of a replacement is written a CR.
pub(crate) fn splice(
    enc: &'static Enc,
    raw: &[u8],
    (text, cr): (&[u8], bool),
    pieces: &[&[u8]],
    path: &str,
) -> Result<(Vec<Part>, Vec<u8>), Failure> {
    let ename = name(enc);
    let mut encoder = enc.new_encoder();
    let mut scratch = vec![0u8; 64 * 1024];
    let base = text.as_ptr() as usize;
    let within = |p: &[u8]| {
        let a = p.as_ptr() as usize;
        (a >= base && a + p.len() <= base + text.len()).then(|| a - base)
    };
    let not_exact = |at: usize| {
        Failure::new(
            ErrorCode::UNSUPPORTED_ENCODING,
            printer::no_round_trip(path, ename, at),
        )
    };
    // Re-encodes `text[from..to]` and checks it is `raw[*r..]`; advances `*r`.
    let mut verify = |from: usize, to: usize, r: &mut usize| -> Result<(), Failure> {
        let s = std::str::from_utf8(&text[from..to]).map_err(|_| not_exact(*r))?;
        let mut rest = s;
        loop {
            let (res, read, written) =
                encoder.encode_from_utf8_without_replacement(rest, &mut scratch, false);
            if cr {
                crate::text::lines::swap_breaks(&mut scratch[..written], b'\n', b'\r');
            }
            if raw.get(*r..*r + written) != Some(&scratch[..written]) {
                return Err(not_exact(*r));
            }
            *r += written;
            rest = &rest[read..];
            match res {
                encoding_rs::EncoderResult::InputEmpty => return Ok(()),
                encoding_rs::EncoderResult::OutputFull => {}
                encoding_rs::EncoderResult::Unmappable(_) => return Err(not_exact(*r)),
            }
        }
    };
    let mut parts = Vec::with_capacity(pieces.len());
    let mut owned: Vec<u8> = Vec::new();
    let mut edits: Vec<(usize, usize, usize, usize)> = Vec::new(); // raw span, owned span
    let (mut d, mut r) = (0usize, 0usize);
    let mut pending: Option<usize> = None; // owned start of the current replacement
    for p in pieces.iter().filter(|p| !p.is_empty()) {
        match within(p).filter(|&o| o >= d) {
            Some(o) => {
                let rs = r;
                verify(d, o, &mut r)?;
                if o > d || pending.is_some() {
                    edits.push((rs, r, pending.take().unwrap_or(owned.len()), owned.len()));
                }
                let us = r;
                verify(o, o + p.len(), &mut r)?;
                parts.push(Part::Raw(us, r));
                d = o + p.len();
            }
            None => {
                let p = if cr {
                    crate::text::lines::cr_text(&[p])
                } else {
                    p.to_vec()
                };
                let s = std::str::from_utf8(&p).map_err(|_| not_exact(r))?;
                let start = owned.len();
                encode_new(enc, s, &mut owned).map_err(|c| {
                    Failure::new(
                        ErrorCode::UNSUPPORTED_ENCODING,
                        printer::unencodable(path, ename, c),
                    )
                })?;
                parts.push(Part::Owned(start, owned.len()));
                pending.get_or_insert(start);
            }
        }
    }
    let rs = r;
    verify(d, text.len(), &mut r)?;
    if text.len() > d || pending.is_some() {
        edits.push((rs, r, pending.unwrap_or(owned.len()), owned.len()));
    }
    if r != raw.len() {
        return Err(not_exact(r));
    }
    // The double-byte families the file could be in: a file that is not
    // valid in one (a French windows-1252 file whose `é` is followed by a
    // space) is not in it, and an edit need not keep its characters whole
    // in it.
    let families: Vec<Family> = if edits.is_empty() {
        Vec::new()
    } else {
        FAMILIES
            .into_iter()
            .filter(|f| f.cuts_are_boundaries(raw, &[]).is_some())
            .collect()
    };
    for (rs, re, os, oe) in edits {
        let line = || {
            let brk = if cr { b'\r' } else { b'\n' };
            memchr::memchr_iter(brk, &raw[..rs]).count() + 1
        };
        if enc.is_single_byte() {
            if let Some((s, e)) = embedded_utf8::split_char(raw, rs, re, &owned[os..oe]) {
                return Err(utf8_split_failure(path, enc, line(), &raw[s..e]));
            }
        }
        let broken = seam_breaks(raw, (rs, re), &owned[os..oe], &families);
        if !broken.is_empty() {
            return Err(seam_failure(path, ename, line(), &broken));
        }
    }
    Ok((parts, owned))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Shift_JIS and EUC-JP encode `¥`, `‾` and `−` as bytes that read back
    /// as `\`, `~` and `－`: `"¥100"` was written as `"\100"`, a backslash
    /// escape in code. Refused as a character the encoding cannot hold.
    #[test]
    fn a_character_that_does_not_come_back_is_refused() {
        for enc in [encoding_rs::SHIFT_JIS, encoding_rs::EUC_JP] {
            let (raw, _, _) = enc.encode("価格 = \"100\"\n");
            let text = enc.decode_without_bom_handling(&raw).0.into_owned();
            let at = text.find("100").unwrap();
            for (with, c) in [("¥100", '¥'), ("‾", '‾'), ("a−b", '−')] {
                let pieces: [&[u8]; 3] = [
                    &text.as_bytes()[..at],
                    with.as_bytes(),
                    &text.as_bytes()[at + 3..],
                ];
                let f = splice(enc, &raw, (text.as_bytes(), false), &pieces, "p.txt").unwrap_err();
                assert_eq!(f.code, ErrorCode::UNSUPPORTED_ENCODING);
                assert!(f.message.contains(c), "{}", f.message);
            }
            // Characters that come back are written.
            assert_eq!(one_way(enc, "価格円\\~", &enc.encode("価格円\\~").0), None);
            let pieces: [&[u8]; 3] = [&text.as_bytes()[..at], b"200", &text.as_bytes()[at + 3..]];
            let r = splice(enc, &raw, (text.as_bytes(), false), &pieces, "p.txt");
            assert!(r.is_ok(), "{:?}", r.err().map(|f| f.message));
        }
    }

    #[test]
    fn structure_finds_hidden_ascii() {
        // Shift_JIS ア = 83 41: an `A` inside it is not a boundary.
        let line = b"x\x83\x41y";
        assert_eq!(
            Family::ShiftJis.cuts_are_boundaries(line, &[1, 3]),
            Some(true)
        );
        assert_eq!(
            Family::ShiftJis.cuts_are_boundaries(line, &[2]),
            Some(false)
        );
        // GB18030 four-byte: 81 30 81 30.
        assert_eq!(Family::Gb18030.char_len(b"\x81\x30\x81\x30"), Some(4));
        assert_eq!(
            Family::Gb18030.cuts_are_boundaries(b"\x81\x30\x81\x30", &[2]),
            Some(false)
        );
        // Not valid in a family at all.
        assert_eq!(Family::Big5.cuts_are_boundaries(b"\x80", &[0]), None);
        assert_eq!(
            Family::EucJp.cuts_are_boundaries(b"\xA4\xA2a", &[2]),
            Some(true)
        );
    }

    /// A Shift_JIS file taken for windows-1252 (every byte is valid there):
    /// the decoded text shows `ƒA` for `ア` (83 41), and an edit of that
    /// `A` is refused, because under Shift_JIS it splits a character.
    #[test]
    fn a_wrong_guess_never_splits_a_character() {
        let raw = encoding_rs::SHIFT_JIS
            .encode("設定 ア = 1\n")
            .0
            .into_owned();
        let enc = encoding_rs::WINDOWS_1252;
        let text = enc
            .decode_without_bom_handling_and_without_replacement(&raw)
            .unwrap();
        let t = text.as_bytes();
        let a = t.iter().position(|&b| b == b'A').unwrap();
        let pieces = [&t[..a], b"B".as_slice(), &t[a + 1..]];
        let f = splice(enc, &raw, (t, false), &pieces, "f").unwrap_err();
        assert_eq!(f.code, ErrorCode::UNSUPPORTED_ENCODING);
        assert!(f.message.contains("Shift_JIS"), "{}", f.message);
        // The `1` is between characters under every structure: written,
        // every other byte kept.
        let one = t.iter().position(|&b| b == b'1').unwrap();
        let pieces = [&t[..one], b"2".as_slice(), &t[one + 1..]];
        let (parts, owned) = splice(enc, &raw, (t, false), &pieces, "f").unwrap();
        let out: Vec<u8> = parts
            .iter()
            .flat_map(|p| match *p {
                Part::Raw(a, b) => raw[a..b].to_vec(),
                Part::Owned(a, b) => owned[a..b].to_vec(),
            })
            .collect();
        let mut want = raw.clone();
        let i = want.iter().position(|&b| b == b'1').unwrap();
        want[i] = b'2';
        assert_eq!(out, want);
    }

    #[test]
    fn byte_level_seams() {
        // A line valid in no encoding: seams need ASCII around them.
        let raw = b"x = \xFF\xFFA;\n";
        let a = 6;
        let e = check_byte_seams(raw, &[&raw[..a], b"B", &raw[a + 1..]], "f").unwrap_err();
        assert_eq!(e.code, ErrorCode::UNSUPPORTED_ENCODING);
        check_byte_seams(raw, &[&raw[..2], b"==", &raw[3..]], "f").unwrap();
        // Shift_JIS-valid line: the structure decides.
        let raw = b"\x83\x41 A\n";
        check_byte_seams(raw, &[&raw[..3], b"B", &raw[4..]], "f").unwrap();
        assert!(check_byte_seams(raw, &[&raw[..1], b"B", &raw[2..]], "f").is_err());
    }

    #[test]
    fn spans_between_unchanged_slices() {
        let raw = b"hello world";
        let s = spans(raw, &[&raw[..6], b"there", &raw[11..]]);
        assert_eq!(s, vec![(6, 11, b"there".to_vec())]);
        let s = spans(raw, &[b"say ", &raw[..]]);
        assert_eq!(s, vec![(0, 0, b"say ".to_vec())]);
        let s = spans(raw, &[&raw[..5]]);
        assert_eq!(s, vec![(5, 11, Vec::new())]);
    }
}
