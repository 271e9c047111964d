//! NUL bytes in new text. A text file holds none; one sent by mistake (a
//! `\u0000` where the caller meant an escape, or bytes pasted from a
//! binary) makes the file read as binary: to this tool (a NUL in its first
//! 8 KiB), to git, editors and grep, so no later edit here reaches it.
//! Refused, unless the old text already holds one (the caller's file, as
//! it is).
//!
//! Only the pieces of the new text that are the caller's own are scanned
//! (not those borrowed from the old text), and the old text only when one
//! of them holds a NUL: an edit of a large file pays a scan of its
//! replacement.

use super::elision::borrowed;

/// The 1-based line of the first NUL byte of `new` (pieces, in order) that
/// the caller sent, when `old` (`None`: a new file) holds none.
pub(crate) fn first_nul(old: Option<&[u8]>, new: &[&[u8]]) -> Option<usize> {
    let own = |p: &&[u8]| old.is_none_or(|o| !borrowed(o, p));
    let (k, at) = new
        .iter()
        .enumerate()
        .filter(|(_, p)| own(p))
        .find_map(|(k, p)| memchr::memchr(0, p).map(|at| (k, at)))?;
    if old.is_some_and(|o| memchr::memchr(0, o).is_some()) {
        return None;
    }
    let breaks: usize = new[..k]
        .iter()
        .chain(std::iter::once(&&new[k][..at]))
        .map(|p| memchr::memchr_iter(b'\n', p).count())
        .sum();
    Some(breaks + 1)
}

#[cfg(test)]
mod tests {
    use super::first_nul;

    #[test]
    fn a_nul_the_caller_sends_is_found_with_its_line_unless_the_old_text_has_one() {
        let old = b"a\nb\nc\n".as_slice();
        assert_eq!(
            first_nul(Some(old), &[&old[..2], b"x\0y\n", &old[4..]]),
            Some(2)
        );
        assert_eq!(first_nul(None, &[b"one\ntwo\n", b"th\0ree\n"]), Some(3));
        assert_eq!(first_nul(Some(old), &[&old[..2], b"x\n", &old[4..]]), None);
        // The old text has one: the file is the caller's as it is.
        let odd = b"a\0\nb\n".as_slice();
        assert_eq!(first_nul(Some(odd), &[b"z\0\n"]), None);
        // Borrowed pieces are the file's own, not scanned.
        assert_eq!(first_nul(Some(odd), &[&odd[..3], b"c\n"]), None);
    }
}
