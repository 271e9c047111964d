//! Blocks copied from a *view* of the file rather than from the file: a
//! read tool's output with its line-number prefixes (`     6→`, `6\t`,
//! `6: `), or a shortened copy whose middle is replaced by an elision marker
//! (`...`, `// ... existing code ...`). Neither is a formatting difference
//! a tolerance could forgive (the prefixes are not in the file, the elided
//! lines are), so diagnosis names them as kinds of their own, finds the
//! region without the prefixes or from the parts around the elision, and
//! gives back the exact current text of the whole region.
//!
//! Detection is strict, because a real line can look like either: every
//! line must carry a prefix of one style with consecutive numbers, and a
//! marker line must hold nothing but dots and a few words inside an
//! optional comment. Diagnosis still prefers the block as sent when it
//! explains the region as well.

/// The separator after a pasted line number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sep {
    /// `→` (U+2192), as read tools of coding agents print.
    Arrow,
    /// A tab (`cat -n`, `nl`).
    Tab,
    /// `:` (`grep -n`), maybe followed by a space.
    Colon,
    /// `|`, maybe between spaces.
    Bar,
}

/// A block whose lines carried line-number prefixes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Numbered {
    /// The block without the prefixes (for `:` and `|`, without one space
    /// after the separator when every line has one).
    pub(crate) text: String,
    /// The block without the prefixes, keeping that space (a second
    /// reading, for `:` and `|` only).
    pub(crate) alt: Option<String>,
    /// The number on the first line.
    pub(crate) first: usize,
    /// The first line's prefix as pasted, for the message.
    pub(crate) sample: String,
}

/// The number, separator and content of one prefixed line.
fn prefixed(line: &str) -> Option<(usize, Sep, &str, usize)> {
    let lead = line.len() - line.trim_start_matches(' ').len();
    if lead > 10 {
        return None;
    }
    let rest = &line[lead..];
    let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if digits == 0 || digits > 7 {
        return None;
    }
    let n: usize = rest[..digits].parse().ok()?;
    let after = &rest[digits..];
    let (sep, body) = if let Some(b) = after.strip_prefix('→') {
        (Sep::Arrow, b)
    } else if let Some(b) = after.strip_prefix('\t') {
        (Sep::Tab, b)
    } else if let Some(b) = after.strip_prefix(':') {
        (Sep::Colon, b)
    } else if let Some(b) = after.trim_start_matches(' ').strip_prefix('|') {
        (Sep::Bar, b)
    } else {
        return None;
    };
    Some((n, sep, body, line.len() - body.len()))
}

/// The block without its pasted line-number prefixes, when every line
/// has one of the same style with consecutive numbers (at least two lines
/// for `:` and `|`, which real text also uses).
pub(super) fn strip_line_numbers(search: &str) -> Option<Numbered> {
    let ends_nl = search.ends_with('\n');
    let body = search.strip_suffix('\n').unwrap_or(search);
    let lines: Vec<&str> = body.split('\n').collect();
    let mut parts = Vec::with_capacity(lines.len());
    for l in &lines {
        let (l, cr) = match l.strip_suffix('\r') {
            Some(x) => (x, "\r"),
            None => (*l, ""),
        };
        let (n, sep, rest, cut) = prefixed(l)?;
        parts.push((n, sep, rest, cr, &l[..cut]));
    }
    let (first, sep) = (parts[0].0, parts[0].1);
    let consecutive = parts
        .iter()
        .enumerate()
        .all(|(k, p)| p.0 == first + k && p.1 == sep);
    let loose = matches!(sep, Sep::Colon | Sep::Bar);
    if !consecutive || (loose && parts.len() < 2) {
        return None;
    }
    let join = |skip_space: bool| {
        let mut out = String::with_capacity(search.len());
        for (k, (_, _, rest, cr, _)) in parts.iter().enumerate() {
            let rest = if skip_space {
                rest.strip_prefix(' ').unwrap_or(rest)
            } else {
                rest
            };
            out.push_str(rest);
            out.push_str(cr);
            if k + 1 < parts.len() || ends_nl {
                out.push('\n');
            }
        }
        out
    };
    let spaced = loose && parts.iter().all(|p| p.2.is_empty() || p.2.starts_with(' '));
    Some(Numbered {
        text: join(spaced),
        alt: spaced.then(|| join(false)),
        first,
        sample: parts[0].4.to_string(),
    })
}

/// Whether a line is an elision marker: dots (`...`, `…`) and at most a
/// few words, inside an optional comment (`// ... existing code ...`,
/// `# ...`, `<!-- ... -->`, `/* ... */`).
pub(super) fn is_marker(line: &str) -> bool {
    let mut t = line.trim();
    for open in ["<!--", "/*", "//", "--", "#", ";", "*", "%"] {
        if let Some(r) = t.strip_prefix(open) {
            t = r.trim_start();
            break;
        }
    }
    for close in ["-->", "*/"] {
        if let Some(r) = t.strip_suffix(close) {
            t = r.trim_end();
            break;
        }
    }
    let dots = |w: &str| (w.len() >= 3 && w.bytes().all(|b| b == b'.')) || w == "…";
    let words: Vec<&str> = t
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| matches!(c, '(' | ')' | '[' | ']' | '{' | '}')))
        .filter(|w| !w.is_empty())
        .collect();
    let (Some(first), Some(last)) = (words.first(), words.last()) else {
        return false;
    };
    (dots(first) || dots(last))
        && words.len() <= 8
        && words
            .iter()
            .all(|w| dots(w) || w.chars().all(|c| c.is_alphabetic() || "-'’:,.".contains(c)))
}

/// A block that leaves lines out: the runs of lines between its marker
/// lines (each with its final line break), and the first marker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Elided {
    pub(crate) parts: Vec<String>,
    pub(crate) marker: String,
}

/// The parts of a block around its elision markers, when it has a marker
/// and something else.
pub(super) fn split_elisions(search: &str) -> Option<Elided> {
    let mut parts: Vec<String> = Vec::new();
    let mut cur = String::new();
    let mut marker: Option<String> = None;
    for l in search.split_inclusive('\n') {
        let content = l.trim_end_matches(['\n', '\r']);
        if is_marker(content) {
            marker.get_or_insert_with(|| content.trim().to_string());
            if !cur.trim().is_empty() {
                parts.push(std::mem::take(&mut cur));
            }
            cur.clear();
        } else {
            cur.push_str(l);
        }
    }
    if !cur.trim().is_empty() {
        parts.push(cur);
    }
    let marker = marker?;
    (!parts.is_empty()).then_some(Elided { parts, marker })
}

/// Unescapes a block that arrived with literal `\n` (and friends) instead of
/// real newlines, or `None` when it does not look like one.
pub(super) fn unescape_literal(search: &str) -> Option<String> {
    if search.contains('\n') || !search.contains("\\n") {
        return None;
    }
    let mut out = String::with_capacity(search.len());
    let mut it = search.chars().peekable();
    while let Some(c) = it.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match it.next() {
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('t') => out.push('\t'),
            Some('"') => out.push('"'),
            Some('\'') => out.push('\''),
            Some('\\') => out.push('\\'),
            Some(o) => {
                out.push('\\');
                out.push(o);
            }
            None => out.push('\\'),
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_number_prefixes_of_every_style() {
        let n =
            strip_line_numbers("     6→    if x {\n     7→        y();\n     8→    }\n").unwrap();
        assert_eq!(n.text, "    if x {\n        y();\n    }\n");
        assert_eq!((n.first, n.sample.as_str(), n.alt), (6, "     6→", None));
        let n = strip_line_numbers("    12\ta\r\n    13\t\r\n    14\tb").unwrap();
        assert_eq!(n.text, "a\r\n\r\nb");
        let n = strip_line_numbers("6: a\n7:   b\n").unwrap();
        assert_eq!(n.text, "a\n  b\n");
        assert_eq!(n.alt.as_deref(), Some(" a\n   b\n"));
        let n = strip_line_numbers("6 | a\n7 | b\n").unwrap();
        assert_eq!(n.text, "a\nb\n");
        // Not prefixes: numbers out of order, mixed styles, one loose line,
        // lines without a number.
        for t in ["6→a\n8→b\n", "6→a\n7\tb\n", "6: a\n", "a\n7→b\n", "x = 1\n"] {
            assert_eq!(strip_line_numbers(t), None, "{t:?}");
        }
    }

    #[test]
    fn elision_markers_and_real_code() {
        for m in [
            "...",
            "    ...",
            "…",
            "// ... existing code ...",
            "# ... rest of the function",
            "<!-- ... -->",
            "/* ... */",
            "    // ...",
            "(...)",
        ] {
            assert!(is_marker(m), "{m:?}");
        }
        for code in [
            "f(...args)",
            "...spread,",
            "x = 1 ...",
            "// see docs",
            "",
            "print('...')",
        ] {
            assert!(!is_marker(code), "{code:?}");
        }
        let e = split_elisions("a\nb\n    // ...\nc\n").unwrap();
        assert_eq!(e.parts, vec!["a\nb\n", "c\n"]);
        assert_eq!(e.marker, "// ...");
        assert_eq!(split_elisions("a\nb\n"), None);
        assert_eq!(split_elisions("...\n"), None);
    }
}
