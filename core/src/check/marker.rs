//! What counts as an elision marker: a line an agent writes to mean "keep
//! the lines that were here" (`// ... existing code ...`, `# ... rest
//! unchanged`, `<!-- ... -->`, `/* ... */`, `// existing code here`).
//!
//! A line is a marker when, after removing one comment opener and closer
//! of any common language (the file's language is not needed: a marker in
//! another language's comment syntax means the same) and the dots around
//! it, it is either
//! - dots (`...`, `…`) inside a comment with nothing else (`// ...`,
//!   `# …`, `/* ... */`), or
//! - dots and at most [`MAX_WORDS`] words, one of them a word of keeping
//!   ([`KEEP_WORDS`]: `existing`, `unchanged`, `rest`, `remaining`, …) and
//!   none a word of work left to do ([`TODO_WORDS`]), or
//! - without dots, a phrase of keeping ([`PHRASES`]: `existing code`,
//!   `rest of the file`, `remains unchanged`, …) and at most
//!   [`MAX_WORDS`] words in all.
//!
//! Bare dots without a comment (`...`) are not markers: they are code in
//! Python (`Ellipsis`), YAML (the end of a document) and prose.

/// Most words a marker line holds (dots aside).
pub(crate) const MAX_WORDS: usize = 8;

/// Words that say lines are kept (with dots).
pub(crate) const KEEP_WORDS: &[&str] = &[
    "existing",
    "unchanged",
    "rest",
    "remaining",
    "remainder",
    "same",
    "previous",
    "prior",
    "other",
    "others",
    "omitted",
    "elided",
    "original",
    "untouched",
    "unmodified",
    "kept",
    "keep",
    "more",
    "etc",
    "code",
    "content",
    "contents",
    "lines",
    "implementation",
    "body",
    "skipped",
    "snip",
];

/// Words that say work is left to do: a comment holding one is a note, not
/// a marker.
pub(crate) const TODO_WORDS: &[&str] =
    &["todo", "fixme", "hack", "xxx", "note", "bug", "implement"];

/// Phrases that make a marker without dots.
pub(crate) const PHRASES: &[&str] = &[
    "existing code",
    "existing content",
    "existing implementation",
    "existing methods",
    "existing imports",
    "existing tests",
    "rest of the code",
    "rest of code",
    "rest of the file",
    "rest of file",
    "rest of the function",
    "rest of function",
    "rest of the class",
    "rest of the method",
    "rest of the implementation",
    "rest of the module",
    "rest unchanged",
    "remains unchanged",
    "remain unchanged",
    "unchanged code",
    "code unchanged",
    "code omitted",
    "lines omitted",
    "omitted for brevity",
    "keep existing",
    "same as before",
];

/// Comment openers, longest first.
const OPENERS: &[&str] = &[
    "{/*", "<!--", "/*", "//", "--", "#", ";", "*", "%", "'", "\"", "rem ",
];
/// Comment closers, longest first.
const CLOSERS: &[&str] = &["*/}", "-->", "*/"];

/// Byte patterns a marker line holds at least one of (ASCII, any case): the
/// prefilter looks for them before any line is split.
pub(crate) const KEYWORDS: &[&str] = &[
    "...",
    "\u{2026}",
    "existing",
    "unchanged",
    "rest of",
    "remain",
    "omitted",
    "same as before",
];

fn is_dots(w: &str) -> bool {
    !w.is_empty()
        && (w.chars().all(|c| c == '\u{2026}') || (w.len() >= 3 && w.bytes().all(|b| b == b'.')))
}

/// Whether `line` (without its line break) is an elision marker (see the
/// module docs).
pub(crate) fn is_marker(line: &str) -> bool {
    let t = line.trim();
    if t.is_empty() || t.len() > 120 {
        return false;
    }
    let lower = t.to_ascii_lowercase();
    let mut body = lower.as_str();
    let mut commented = false;
    for open in OPENERS {
        if let Some(r) = body.strip_prefix(open) {
            body = r.trim_start_matches(['/', '#', '*', '-', ';']).trim_start();
            commented = true;
            break;
        }
    }
    for close in CLOSERS {
        if let Some(r) = body.strip_suffix(close) {
            body = r.trim_end();
            break;
        }
    }
    let has_dots = body.contains("...") || body.contains('\u{2026}');
    // Words, their dots and brackets taken off.
    let words: Vec<&str> = body
        .split(|c: char| c.is_whitespace() || c == '\u{2026}')
        .map(|w| {
            w.trim_matches(|c: char| {
                matches!(c, '.' | '(' | ')' | '[' | ']' | '{' | '}' | ',' | ':' | '!')
            })
        })
        .filter(|w| !w.is_empty())
        .collect();
    if words.len() > MAX_WORDS || words.iter().any(|w| TODO_WORDS.contains(w)) {
        return false;
    }
    let wordy = words
        .iter()
        .all(|w| w.chars().all(|c| c.is_alphabetic() || "-'’/".contains(c)));
    if has_dots {
        // Dots open the line (`// ... existing code`), or close a line that
        // opens with a word of keeping (`// existing code ...`): a comment of
        // prose that trails off (`// line beyond it, reached through kept
        // lines ...`, a real edit of this repository) is no marker.
        let starts_with_dots = body
            .split_whitespace()
            .next()
            .is_some_and(|w| w.starts_with("...") || w.starts_with('\u{2026}'));
        let ends_with_dots = body.ends_with("...") || body.ends_with('\u{2026}');
        let opens_keeping = words.first().is_some_and(|w| KEEP_WORDS.contains(w));
        let dots_edge = starts_with_dots || (ends_with_dots && opens_keeping);
        if words.is_empty() {
            return commented && body.split_whitespace().all(is_dots);
        }
        return dots_edge && wordy && words.iter().any(|w| KEEP_WORDS.contains(w));
    }
    wordy && PHRASES.iter().any(|p| body.contains(p))
}

/// The comment opener `line` starts with (after its indentation), if any.
fn opener(line: &str) -> Option<&'static str> {
    let t = line.trim_start();
    OPENERS.iter().copied().find(|o| {
        t.as_bytes()
            .get(..o.len())
            .is_some_and(|b| b.eq_ignore_ascii_case(o.as_bytes()))
    })
}

/// Whether `line`, a marker of dots alone (`// ...`, `# …`), is prose: the
/// lines above and below it are comment lines with the same opener that
/// hold words (`// ...` in a quoted specification, between two of its
/// sentences). An ellipsis there leaves out words of the comment, not
/// lines of the file. A marker with words (`// ... existing code ...`) is
/// never prose.
pub(crate) fn in_prose(above: &str, line: &str, below: &str) -> bool {
    let Some(o) = opener(line) else {
        return false;
    };
    let body = line.trim()[o.len()..].trim();
    let dots = !body.is_empty() && body.split_whitespace().all(is_dots);
    let worded = |l: &str| {
        opener(l) == Some(o)
            && !is_marker(l)
            && l.trim()[o.len()..].chars().any(char::is_alphanumeric)
    };
    dots && worded(above) && worded(below)
}

#[cfg(test)]
mod tests {
    use super::{in_prose, is_marker};

    #[test]
    fn dots_between_two_sentences_of_a_comment_are_prose() {
        let above = "            // Generic Syntax,\" .) section 2.3) MUST be encoded.";
        let below = "            // unreserved = ALPHA, DIGIT, '-', '.', '_', '~'";
        assert!(in_prose(above, "            // ...", below));
        assert!(in_prose("# first", "# …", "# second"));
        // Not prose: words in the marker, code or another comment style
        // beside it, a blank line, another marker.
        assert!(!in_prose(
            above,
            "            // ... existing code ...",
            below
        ));
        assert!(!in_prose("    let x = 1;", "    // ...", below));
        assert!(!in_prose(above, "    // ...", "    # next"));
        assert!(!in_prose(above, "    // ...", ""));
        assert!(!in_prose(above, "    // ...", "    // ... rest unchanged"));
        assert!(!in_prose("    //", "    // ...", below));
        assert!(
            !in_prose("…", "…", "…"),
            "no opener, no prose (and no panic)"
        );
    }

    #[test]
    fn markers_of_every_comment_style() {
        for l in [
            "// ... existing code ...",
            "  // ...existing code...",
            "# ... rest unchanged",
            "# ...",
            "    # ... (rest of the function unchanged) ...",
            "/* ... */",
            "<!-- ... -->",
            "<!-- ... rest of the page ... -->",
            "-- ... existing queries ...",
            "{/* ... existing JSX ... */}",
            "// existing code here",
            "// rest of the file unchanged",
            "# Rest of the code remains unchanged",
            "    // … other methods …",
            "; ... existing settings ...",
            "' ... existing code ...",
            "... existing code ...",
            "// ... etc",
        ] {
            assert!(is_marker(l), "{l:?} is a marker");
        }
    }

    #[test]
    fn code_and_notes_are_not_markers() {
        for l in [
            "...",
            "    ...",
            "foo(...args);",
            "return [...a, ...b];",
            "// TODO: ...",
            "// line beyond it, reached through kept lines ...",
            "// ... TODO implement",
            "# Returns the value unchanged when empty, otherwise the parsed form",
            "console.log('...');",
            "// loading...",
            "x = 1  # ...",
            "// see the existing code in lib.rs for how the cache is cleared on shutdown",
            "",
            "}",
        ] {
            assert!(!is_marker(l), "{l:?} is not a marker");
        }
    }
}
