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
//!   when lines with content are shared on both sides (they then stand next
//!   to each other, the deleted lines no longer between them), or on one
//!   side when the lines on the other side of them are not the deleted
//!   ones (still there, perhaps changed since: a stale view, not a
//!   deletion that landed);
//! - an edit without shared lines has nothing of its own to anchor it: it
//!   is proved when the search block is nowhere near the file any more (no
//!   region even 80 % like it; the block has text enough to be looked for)
//!   and the replacement is long enough ([`LONG_REPLACEMENT`] visible
//!   characters) not to stand there by chance.
//!
//! Above all: when the search block's first and last lines stand close
//! together somewhere else (its own place, with lines added inside since),
//! nothing is claimed; when the region the diagnosis found for the search
//! block is that occurrence of the replacement, or lies inside it (the line
//! the edit changed, as it changed it), the edit is there; when it is a near
//! miss elsewhere (80 % alike or more), the block still has its place
//! there, whatever the edit's context lines say, and nothing is claimed.
//! A claim proved by that region alone stands only while the block has no
//! near miss outside the replacement's occurrence as like it as the
//! replacement is (looked for with that occurrence blanked out, in
//! `report.rs`): the region found for a block
//! can be the replacement itself (a line the edit extends holds the
//! block's text; a change of whitespace alone keeps its keys) while the
//! block's own place, changed since, is elsewhere.

use super::align::char_ratio;
use crate::text::fold::punct_ascii;
use crate::text::lines::line_start;

/// Replacement texts shorter than this (non-whitespace bytes) are too
/// common to prove an edit was already applied.
const MIN_APPLIED_LEN: usize = 6;

/// The forms of `replace` that would show the edit `search` -> `replace`
/// was already made: as written, and with CRLF line endings (that form can
/// only occur in a file that has them) when neither side has any. A block
/// sent with CRLF endings and a replacement with LF ones convert them: the
/// replacement's CRLF form is then the text the edit changes, not its
/// result. None for a replacement too short to prove anything.
pub(crate) fn needles(search: &str, replace: &str) -> Vec<Vec<u8>> {
    let visible = replace.bytes().filter(|b| !b.is_ascii_whitespace()).count();
    if visible < MIN_APPLIED_LEN {
        return Vec::new();
    }
    let mut needles = vec![replace.as_bytes().to_vec()];
    if replace.contains('\n') && !replace.contains("\r\n") && !search.contains("\r\n") {
        needles.push(replace.replace('\n', "\r\n").into_bytes());
    }
    needles
}

/// Byte range of the one occurrence of the first of `needles` that occurs
/// exactly once, given each one's occurrences (`None`: too many).
pub(crate) fn once(
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

/// Visible characters from which a replacement standing once, with the
/// search block nowhere near, proves the edit was applied.
const LONG_REPLACEMENT: usize = 20;
/// A region at least this like the search block is a near miss: the block
/// still has a place in the file.
pub(crate) const NEAR_MISS: f64 = 0.8;

/// Characters of `lines` other than whitespace.
fn visible(lines: &[&str]) -> usize {
    lines
        .iter()
        .flat_map(|l| l.chars())
        .filter(|c| !c.is_whitespace())
        .count()
}

fn has_content(lines: &[&str]) -> bool {
    lines.iter().any(|l| l.trim().len() >= 2)
}

/// Lines looked at beyond the deleted ones' own count, for lines added
/// between them and the edit's context since it was read.
const NEAR_LINES: usize = 3;
/// Lines next to a deletion's context at least this like the deleted
/// lines are those lines, still there (perhaps changed since).
const STILL_THERE: f64 = 0.8;

/// A deleted line this long (trimmed) found as it was next to the
/// deletion's context says the deletion did not land.
const STILL_LINE: usize = 8;

/// Whether the lines of `text` just after `at` (or just before it,
/// `before`) hold something like `deleted`: still there, perhaps changed or
/// moved down a line or two since the block was read.
fn still_there(text: &[u8], at: usize, deleted: &str, before: bool) -> bool {
    // Compared without indentation and trailing whitespace (a block sent
    // at another depth is still the same lines).
    // data: the deleted lines trimmed, for comparison
    let deleted: String = deleted.lines().map(|l| format!("{}\n", l.trim())).collect();
    let deleted = deleted.as_str();
    let want = deleted.split_inclusive('\n').count();
    let span = want + NEAR_LINES;
    let near: Vec<&[u8]> = if before {
        // The start of the line `span` lines above `at`.
        let mut from = at;
        for _ in 0..span {
            if from == 0 {
                break;
            }
            from = line_start(text, from - 1);
        }
        text[from..at].split_inclusive(|&b| b == b'\n').collect()
    } else {
        text[at..]
            .split_inclusive(|&b| b == b'\n')
            .take(span)
            .collect()
    };
    // A deleted line with text of its own standing there as it was: the
    // deletion has not landed (the block lost other lines since).
    let kept = |l: &&str| {
        l.len() >= STILL_LINE && near.iter().any(|n| String::from_utf8_lossy(n).trim() == *l)
    };
    if deleted.lines().any(|l| kept(&l)) {
        return true;
    }
    (0..=near.len().saturating_sub(want)).any(|k| {
        let window: String = near[k..(k + want).min(near.len())]
            .iter()
            // data: the window's lines trimmed, for comparison
            .map(|l| format!("{}\n", String::from_utf8_lossy(l).trim()))
            .collect();
        char_ratio(deleted, &window) >= STILL_THERE
    })
}

/// Whether the search block's first and last lines with content stand
/// verbatim (indentation aside) close together somewhere outside `at`: the
/// block's own place, still there with lines added or changed inside it
/// since it was read, which makes a copy of the replacement elsewhere no
/// proof of anything.
fn block_elsewhere(text: &[u8], search: &str, at: (usize, usize)) -> bool {
    let content: Vec<&[u8]> = search
        .lines()
        .map(|l| l.as_bytes().trim_ascii())
        .filter(|l| l.len() >= 2)
        .collect();
    let (Some(&first), Some(&last)) = (content.first(), content.last()) else {
        return false;
    };
    if content.len() < 2 {
        return false;
    }
    let reach = search.lines().count() + NEAR_LINES;
    let outside = |a: usize, b: usize| b <= at.0 || a >= at.1;
    // The line holding byte `pos`: (start, end without its line break).
    let line_of = |pos: usize| {
        let a = line_start(text, pos);
        let b = memchr::memchr(b'\n', &text[pos..]).map_or(text.len(), |k| pos + k);
        (a, b)
    };
    for p in memchr::memmem::find_iter(text, first) {
        let (a, b) = line_of(p);
        if !outside(a, b) || text[a..b].trim_ascii() != first {
            continue;
        }
        let mut q = b + 1;
        for _ in 0..reach {
            if q >= text.len() {
                break;
            }
            let (c, d) = line_of(q);
            if outside(c, d) && text[c..d].trim_ascii() == last {
                return true;
            }
            q = d + 1;
        }
    }
    // Typographic punctuation aside too (the file's quotes curled, or the
    // block's): its place is still there, as a near miss in formatting only.
    !text.is_ascii() && folded_elsewhere(text, first, last, reach, outside)
}

/// `line` without surrounding whitespace, its typographic punctuation as
/// the ASCII it stands for.
fn folded(line: &[u8]) -> String {
    String::from_utf8_lossy(line.trim_ascii())
        .chars()
        .map(|c| punct_ascii(c).map_or_else(|| c.to_string(), str::to_string))
        .collect()
}

/// [`block_elsewhere`]'s search with both sides folded ([`folded`]): a line
/// like `first` outside `at` with a line like `last` within `reach` lines
/// after it.
fn folded_elsewhere(
    text: &[u8],
    first: &[u8],
    last: &[u8],
    reach: usize,
    outside: impl Fn(usize, usize) -> bool,
) -> bool {
    let (first, last) = (folded(first), folded(last));
    let mut lines = Vec::new();
    let mut a = 0;
    for b in memchr::memchr_iter(b'\n', text).chain(std::iter::once(text.len())) {
        lines.push((a, b));
        a = b + 1;
    }
    lines.iter().enumerate().any(|(k, &(a, b))| {
        outside(a, b)
            && folded(&text[a..b]) == first
            && lines[k + 1..]
                .iter()
                .take(reach)
                .any(|&(c, d)| outside(c, d) && folded(&text[c..d]) == last)
    })
}

/// A line without its CR, its typographic punctuation as the ASCII it
/// stands for.
fn plain(line: &[u8]) -> String {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    String::from_utf8_lossy(line)
        .chars()
        .map(|c| punct_ascii(c).map_or_else(|| c.to_string(), str::to_string))
        .collect()
}

/// Whether `search` stands in `text` outside `at` (byte range), line
/// endings and typographic punctuation aside (read [`plain`] on both
/// sides): the block's own place, still there in other formatting.
fn stands_but_for_format(text: &[u8], search: &str, at: (usize, usize)) -> bool {
    let mut parts: Vec<String> = search.split('\n').map(|l| plain(l.as_bytes())).collect();
    let whole_last = search.ends_with('\n');
    if whole_last {
        parts.pop();
    }
    if parts.is_empty() {
        return false;
    }
    let mut lines = Vec::new();
    let mut a = 0;
    for b in memchr::memchr_iter(b'\n', text).chain(std::iter::once(text.len())) {
        lines.push((a, b, plain(&text[a..b])));
        a = b + 1;
    }
    let k = parts.len();
    let fits = |i: usize, j: usize| {
        let (line, part) = (&lines[i + j].2, &parts[j]);
        match (j == 0, j + 1 == k) {
            (true, true) if !whole_last => line.contains(part.as_str()),
            (true, _) if k > 1 => line.ends_with(part.as_str()),
            (_, true) if !whole_last => line.starts_with(part.as_str()),
            _ => line == part,
        }
    };
    (0..lines.len().saturating_sub(k - 1)).any(|i| {
        let (start, end) = (lines[i].0, lines[i + k - 1].1);
        (end <= at.0 || start >= at.1) && (0..k).all(|j| fits(i, j))
    })
}

/// Whether the replacement's occurrence (`found`, the file's text there)
/// is at least as like `search`, character for character, as the region
/// of similarity `sim` (in thousandths, as the diagnosis reports it).
fn as_like(search: &str, found: &[u8], sim: f64) -> bool {
    let like = char_ratio(search, &String::from_utf8_lossy(found));
    (like * 1000.0).round() / 1000.0 >= sim - 1e-9
}

/// Whether `search` without its final line break, text enough to place
/// it ([`MIN_APPLIED_LEN`] visible characters), starts a line of `text`
/// exactly while the replacement does not hold it: the block's place, its
/// last line run on since it was read (a line the edit deletes, still
/// there with text added to it).
fn runs_on(text: &[u8], search: &str, replace: &str) -> bool {
    let Some(body) = search.strip_suffix('\n') else {
        return false;
    };
    let body = body.strip_suffix('\r').unwrap_or(body);
    let visible = body.bytes().filter(|b| !b.is_ascii_whitespace()).count();
    if visible < MIN_APPLIED_LEN || replace.contains(body) {
        return false;
    }
    memchr::memmem::find_iter(text, body.as_bytes()).any(|p| p == 0 || text[p - 1] == b'\n')
}

/// Whether two byte ranges are one place: they share at least half of
/// what they cover together.
fn same_place(a: (usize, usize), b: (usize, usize)) -> bool {
    let shared = a.1.min(b.1).saturating_sub(a.0.max(b.0));
    let covered = a.1.max(b.1) - a.0.min(b.0);
    covered > 0 && shared * 2 >= covered
}

/// Where the diagnosis found the search block: byte range, character
/// similarity, and the first lines (0-based) of the regions as close to it.
pub(super) type Region = (usize, usize, f64, Vec<usize>);

/// What proves an edit applied: its own lines around the change (context
/// lines, a deletion's neighbours, a long replacement with the block
/// nowhere near), or the region the diagnosis found for the block being the
/// replacement's occurrence, which holds only while the block has no other
/// place (the caller looks for one with that occurrence blanked out).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Proof {
    Context,
    Region,
}

/// Whether the replacement standing at `at` can prove nothing, whatever
/// the edit's context and region say: the block as read is the
/// replacement, drops the file's BOM, or still stands (exactly, run on, or
/// but for its format); or the replacement is found inside another line's
/// indentation.
fn proves_nothing(text: &[u8], search: &str, replace: &str, at: (usize, usize)) -> bool {
    // A block read as the replacement itself (a line-number prefix taken
    // with the space after it, or not) changes nothing as read: its
    // replacement standing somewhere is the block standing there.
    if search == replace {
        return true;
    }
    // A block that drops a byte order mark: the text matched never has the
    // file's BOM, so its replacement standing there says nothing of
    // whether the BOM is still in the file.
    if search.matches('\u{feff}').count() > replace.matches('\u{feff}').count() {
        return true;
    }
    // A replacement that starts with indentation names whole lines: found
    // inside another line's indentation (8 spaces holding the 4 of a
    // re-indented line), it is that line, not the replacement.
    if replace.starts_with([' ', '\t']) && at.0 > 0 && text[at.0 - 1] != b'\n' {
        return true;
    }
    // The block as read standing exactly is the edit not applied (a block
    // read without its line numbers, whose place is still there), unless
    // the replacement keeps it whole (an insertion next to it).
    if !replace.contains(search) && memchr::memmem::find(text, search.as_bytes()).is_some() {
        return true;
    }
    // So is the block standing up to the end of its last line, which has
    // run on since (text added after it), unless the replacement keeps
    // that much (an edit that extends the line).
    if runs_on(text, search, replace) {
        return true;
    }
    // So is the block standing, line endings and typographic punctuation
    // aside, outside that occurrence (its place in a mixed file, one of its
    // lines ending in CRLF where the block has LF; its quotes curled).
    !replace.contains(search) && stands_but_for_format(text, search, at)
}

/// Whether the edit `search` -> `replace`, whose replacement stands once at
/// `at` (byte range) in `text`, is proved applied there, and how.
pub(crate) fn proof(
    text: &[u8],
    search: &str,
    replace: &str,
    at: (usize, usize),
    region: Option<Region>,
) -> Option<Proof> {
    if proves_nothing(text, search, replace, at) {
        return None;
    }
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
    if block_elsewhere(text, search, at) {
        return None;
    }
    // An insertion with context on one side only: the new lines standing
    // next to that context may have stood there before (a closing brace
    // above the line the edit inserts another before); only new lines with
    // enough text of their own say the edit put them there.
    let inserted = s.len() == pre + suf;
    if inserted && (pre == 0 || suf == 0) && visible(middle) < LONG_REPLACEMENT {
        return None;
    }
    if middle.iter().all(|l| l.trim().is_empty()) {
        // A deletion: the lines around it are both there, together; or one
        // side is, and what follows it is not the deleted text.
        let deleted: String = s[pre..s.len() - suf].concat();
        // (Blank lines whose whitespace changed: nothing was deleted, and
        // whitespace alone proves nothing.)
        if s[pre..s.len() - suf].iter().all(|l| l.trim().is_empty()) {
            return None;
        }
        let proved = match (has_content(head), has_content(tail)) {
            (true, true) => true,
            (true, false) => !still_there(text, at.1, &deleted, false),
            (false, true) => !still_there(text, at.0, &deleted, true),
            (false, false) => false,
        };
        return proved.then_some(Proof::Context);
    }
    // The region the diagnosis found for the search block: that occurrence
    // of the replacement (proved), or a near miss elsewhere (the block
    // still has its place there, whatever the edit's context says).
    // (The block matching several places as closely, that occurrence among
    // them, counts as its region too, but only when it is as like the block
    // character for character as the region picked among them: a place more
    // like the block, a line of it changed since it was read, is the
    // block's own, still there, and the replacement's occurrence, which
    // only scored as well under the diagnosis's keys, is another line.)
    let at_line = memchr::memchr_iter(b'\n', &text[..at.0]).count();
    let at_lines =
        at_line..=at_line + memchr::memchr_iter(b'\n', &text[at.0..at.1.saturating_sub(1)]).count();
    match region {
        Some((a, b, _, _)) if same_place((a, b), at) => return Some(Proof::Region),
        // A region inside that occurrence, the block like no other place as
        // much: the line the edit changed, as it changed it.
        Some((a, b, _, ref also))
            if a >= at.0 && b <= at.1 && also.iter().all(|l| at_lines.contains(l)) =>
        {
            return Some(Proof::Region)
        }
        Some((_, _, sim, also))
            if also.contains(&at_line) && as_like(search, &text[at.0..at.1], sim) =>
        {
            return Some(Proof::Region)
        }
        Some((_, _, sim, _)) if sim >= NEAR_MISS => return None,
        _ => {}
    }
    // (A block with next to no text, `]` say, is found nowhere near by no
    // search: that says nothing of whether its place is gone.)
    (has_content(head)
        || has_content(tail)
        || (visible(&r) >= LONG_REPLACEMENT && visible(&s) >= MIN_APPLIED_LEN))
        .then_some(Proof::Context)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn proved(
        text: &[u8],
        search: &str,
        replace: &str,
        at: (usize, usize),
        region: Option<Region>,
    ) -> bool {
        proof(text, search, replace, at, region).is_some()
    }

    /// The replacement standing once elsewhere (another struct with the same
    /// lines) is no proof while the search block's own place is still there
    /// with its quotes curled: the edit has not landed, its block only
    /// differs from the file in formatting.
    #[test]
    fn a_copy_elsewhere_is_no_proof_while_the_block_stands_with_curled_quotes() {
        let applied = "\"const\": true\n},\n\"command\": {\n\"$ref\": \"#/$defs/ViewCommand\"\n";
        let curled = "\u{201c}const\u{201d}: true\n},\n\u{201c}command\u{201d}: {\n\u{201c}$ref\u{201d}: \u{201c}#/$defs/Command\u{201d}\n";
        let text = format!("{applied}x\ny\n{curled}");
        let search = "\"const\": true\n},\n\"command\": {\n\"$ref\": \"#/$defs/Command\"\n";
        let at = (0, applied.len());
        assert!(!proved(
            text.as_bytes(),
            search,
            applied,
            at,
            Some((0, applied.len(), 0.97, vec![]))
        ));
        // With the block's place gone (the curled copy removed), the copy is the edit.
        assert!(proved(
            applied.as_bytes(),
            search,
            applied,
            at,
            Some((0, applied.len(), 0.97, vec![]))
        ));
    }

    #[test]
    fn proof_needs_the_edits_own_context_or_its_region() {
        let text = b"0123456789 a();\nc();\nother();\n";
        let at = (11, 22);
        // Context lines around new lines: proved wherever the diagnosis
        // pointed.
        assert!(proved(
            text,
            "a();\nb(1);\nc();\n",
            "a();\nb(2);\nc();\n",
            at,
            None
        ));
        // A deletion with context on both sides: proved.
        assert!(proved(text, "a();\nb();\nc();\n", "a();\nc();\n", at, None));
        // On one side: proved only when the deleted lines are not what
        // follows (or precedes) it.
        let stale = b"a();\nb(1);\nc();\n";
        assert!(!proved(stale, "a();\nb(2);\n", "a();\n", (0, 5), None));
        assert!(proved(stale, "a();\nzzzzzz();\n", "a();\n", (0, 5), None));
        // (A line of the deleted ones still there, others gone since: not
        // the deletion either.)
        let stale = b"head_line();\n\nexport function batch(input, options) {\nnext();\n";
        let search = "head_line();\n\n/** Edits many files in one transaction. */\nexport function batch(input, options) {\n";
        assert!(!proved(stale, search, "head_line();\n", (0, 13), None));
        // No shared lines: where the search block's region is...
        let r = |a, b, sim| Some((a, b, sim, Vec::new()));
        assert!(proved(
            text,
            "retries = 2;\n",
            "retries = 3;\n",
            at,
            r(10, 20, 0.9)
        ));
        // ...not where a near miss of it is elsewhere...
        assert!(!proved(
            text,
            "retries = 2;\n",
            "retries = 3;\n",
            at,
            r(0, 5, 0.9)
        ));
        // ...or inside that occurrence (the line the edit changed), when no
        // place outside it is as close...
        let text2 = b"0123456789 take(chunk);\nlog(1);\nlog(2);\nother(chunk);\n";
        let (search, replace) = ("take(chunk, 0);\n", "take(chunk);\nlog(1);\nlog(2);\n");
        assert!(proved(text2, search, replace, (11, 40), r(11, 24, 0.85)));
        let also = Some((11, 24, 0.85, vec![3]));
        assert!(!proved(text2, search, replace, (11, 40), also));
        // ...and with the block nowhere near, only for a long replacement.
        assert!(!proved(text, "retries = 2;\n", "retries = 3;\n", at, None));
        let long = "let retries = configured_retries(3);\n";
        assert!(proved(text, "retries = 2;\n", long, at, None));
        assert!(proved(text, "retries = 2;\n", long, at, r(0, 5, 0.6)));
    }

    #[test]
    fn lines_inserted_beside_one_sided_context_need_text_of_their_own() {
        // A closing brace inserted above a line: the file already has one
        // there, so the replacement stands whether or not the edit landed.
        let text = b"        }\n}\n\n    fn reopen(&self) {\n";
        let (search, replace) = (
            "\n    fn reopen(&self) {\n",
            "}\n\n    fn reopen(&self) {\n",
        );
        let at = (10, text.len());
        let region = Some((12, text.len(), 0.9, Vec::new()));
        assert!(!proved(text, search, replace, at, region.clone()));
        // New lines with text of their own were put there by the edit.
        let text = b"        }\n/// Reopens the root directory.\n\n    fn reopen(&self) {\n";
        let replace = "/// Reopens the root directory.\n\n    fn reopen(&self) {\n";
        let region = Some((42, text.len(), 0.9, Vec::new()));
        assert!(proved(text, search, replace, (10, text.len()), region));
    }

    #[test]
    fn the_blocks_own_place_still_there_vetoes_a_copy_of_the_replacement() {
        // Lines 4-6: the block's place, a line added inside it since; lines
        // 1-3 (another function) happen to hold the replacement.
        let text =
            b"    message: msg,\n    diagnosis,\n});\n    message: msg,\n    added();\n});\n";
        let (search, replace) = (
            "    message: msg,\n});\n",
            "    message: msg,\n    diagnosis,\n});\n",
        );
        assert!(!proved(text, search, replace, (0, 34), None));
        // Without that place, the replacement with its context proves it.
        let text = b"    message: msg,\n    diagnosis,\n});\nother();\n";
        assert!(proved(text, search, replace, (0, 34), None));
    }
}
