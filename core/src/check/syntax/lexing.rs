//! The lexical steps the second readings of C-like texts share (`reading`,
//! `scripts`): white space and comments skipped.

/// The first byte at or after `at` that is not white space.
pub(super) fn skip_space(text: &[u8], mut at: usize) -> usize {
    while text.get(at).is_some_and(u8::is_ascii_whitespace) {
        at += 1;
    }
    at
}

/// The end of the comment starting at `at`, if one does.
pub(super) fn comment_end(text: &[u8], at: usize) -> Option<usize> {
    match text.get(at..at + 2)? {
        b"//" => Some(memchr::memchr(b'\n', &text[at..]).map_or(text.len(), |k| at + k)),
        b"/*" => Some(
            memchr::memmem::find(&text[at + 2..], b"*/").map_or(text.len(), |k| at + 2 + k + 2),
        ),
        _ => None,
    }
}
