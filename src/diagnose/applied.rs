//! Whether an edit that was not found is already in the file.
//!
//! An agent told "already applied" stops, so a wrong claim silently loses
//! the edit; the claim is made only when the file proves it. Finding the
//! replacement somewhere is not proof (a common line, or the untouched
//! context of a deletion, is found anywhere). The replacement must stand
//! exactly once, and where the search block would have been:
//!
//! - the edit's unchanged lines (those the search and the replacement
//!   share at their start and end) are part of the replacement, so when
//!   the edit has such context lines with content, finding the whole
//!   replacement finds them in place around the new lines;
//! - a deletion (the replacement is only those shared lines) is proved
//!   only when lines with content are shared on both sides: then they stand
//!   next to each other, and the deleted lines are no longer between them;
//! - an edit without shared lines has nothing of its own to anchor it, so
//!   the region the diagnosis found for the search block must be that
//!   occurrence of the replacement (a block that matches elsewhere, even
//!   only up to formatting, is not proof of anything).

use super::MIN_APPLIED_LEN;

/// The forms of `replace` that would show the edit was already made: as
/// written, and with CRLF line endings (that form can only occur in a file
/// that has them). None for a replacement too short to prove anything.
pub(super) fn needles(replace: &str) -> Vec<Vec<u8>> {
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

/// Byte range of the one occurrence of the first of `needles` that occurs
/// exactly once, given each one's occurrences (`None`: too many).
pub(super) fn once(
    needles: &[Vec<u8>],
    hits: &[Option<Vec<(usize, usize)>>],
) -> Option<(usize, usize)> {
    hits.iter()
        .zip(needles)
        .find_map(|(hits, needle)| match hits.as_deref() {
            Some(&[(p, _)]) => Some((p, p + needle.len())),
            _ => None,
        })
}

fn has_content(lines: &[&str]) -> bool {
    lines.iter().any(|l| l.trim().len() >= 2)
}

/// Whether the edit `search` -> `replace`, whose replacement stands once at
/// `at` (byte range), is proved applied there. `region`: where the
/// diagnosis found the search block (byte range), if anywhere.
pub(super) fn proved(
    search: &str,
    replace: &str,
    at: (usize, usize),
    region: Option<(usize, usize)>,
) -> bool {
    let s: Vec<&str> = search.split_inclusive('\n').collect();
    let r: Vec<&str> = replace.split_inclusive('\n').collect();
    let pre = s.iter().zip(&r).take_while(|(a, b)| a == b).count();
    let suf = s[pre..]
        .iter()
        .rev()
        .zip(r[pre..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    let (head, tail) = (&r[..pre], &r[r.len() - suf..]);
    let middle = &r[pre..r.len() - suf];
    if middle.iter().all(|l| l.trim().is_empty()) {
        // A deletion: the lines around it must both be there, together.
        return has_content(head) && has_content(tail);
    }
    if has_content(head) || has_content(tail) {
        return true;
    }
    region.is_some_and(|(a, b)| a < at.1 && at.0 < b.max(a + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proof_needs_the_edits_own_context_or_its_region() {
        let at = (100, 130);
        // Context lines around new lines: proved wherever the diagnosis
        // pointed.
        assert!(proved(
            "a();\nb(1);\nc();\n",
            "a();\nb(2);\nc();\n",
            at,
            None
        ));
        // A deletion with context on both sides: proved; on one side: not.
        assert!(proved("a();\nb();\nc();\n", "a();\nc();\n", at, None));
        assert!(!proved("a();\nb();\nc();\n", "a();\n", at, Some(at)));
        assert!(!proved("b();\nc();\n", "c();\n", at, Some(at)));
        // No shared lines: only where the search block's region is.
        assert!(proved(
            "retries = 2;\n",
            "retries = 3;\n",
            at,
            Some((90, 120))
        ));
        assert!(!proved(
            "retries = 2;\n",
            "retries = 3;\n",
            at,
            Some((10, 20))
        ));
        assert!(!proved("retries = 2;\n", "retries = 3;\n", at, None));
    }
}
