//! What the C, C++ and C# grammars read of a file: its text with the
//! preprocessor's lines blanked.
//!
//! A grammar parses one text; the preprocessor makes several of it. Its
//! directives may stand anywhere — between an `if` and its `else`, inside
//! an expression, between a class's header and its base list — and a file
//! whose `#if` and `#else` branches each hold half a construct reads, to a
//! grammar that keeps both, as broken: the replay of real C# history found
//! such files (`#if NETSTANDARD` around a `using` list, a base list or an
//! attribute) reported as broken by edits that were not. So before a parse
//! the directive lines (with their `\` continuations) and every branch but
//! the first of each conditional (`#elif`, `#else` up to the `#endif`) are
//! replaced by spaces: the grammar reads one configuration of the file, the
//! first, which is what a reader sees first too. Line breaks and every
//! other byte stay where they were, so every offset, line and column of the
//! parse is the file's own. An edit inside a later branch is not checked.

use crate::text::lines::line_start;

/// Whether `grammar`'s files go through a preprocessor.
pub(crate) fn applies(grammar: super::grammar::Grammar) -> bool {
    use super::grammar::Grammar::{CSharp, Cpp, C};
    matches!(grammar, C | Cpp | CSharp)
}

/// `text` with its directive lines and later branches blanked, or `None`
/// when it has no directive (the text is read as it is).
pub(crate) fn masked(text: &[u8]) -> Option<Vec<u8>> {
    if !has_directive(text) {
        return None;
    }
    let mut out = text.to_vec();
    // A byte order mark before the first line's `#` is not text.
    let text = &bom_as_space(text)[..];
    // For each open conditional: whether its current branch is blanked.
    let mut stack: Vec<bool> = Vec::new();
    let mut continued = false;
    let mut at = 0;
    while at < text.len() {
        let end = memchr::memchr(b'\n', &text[at..]).map_or(text.len(), |k| at + k);
        let line = &text[at..end];
        let body = line.trim_ascii_start();
        let directive = continued || body.first() == Some(&b'#');
        let skipping = stack.last().copied().unwrap_or(false);
        if directive && !continued {
            let word = directive_word(body);
            match word {
                b"if" | b"ifdef" | b"ifndef" => stack.push(skipping),
                // Every branch after the first is blanked.
                b"elif" | b"else" | b"elifdef" | b"elifndef" => {
                    if let Some(top) = stack.last_mut() {
                        *top = true;
                    }
                }
                b"endif" => {
                    stack.pop();
                }
                _ => {}
            }
        }
        if directive || skipping {
            blank(&mut out[at..end]);
        }
        continued = directive && line.trim_ascii_end().ends_with(b"\\");
        at = end + 1;
    }
    Some(out)
}

/// `text` with a leading UTF-8 byte order mark read as three spaces (the
/// engine's text never has one; a caller's may).
fn bom_as_space(text: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    match text.strip_prefix(b"\xEF\xBB\xBF") {
        Some(rest) => [b"   ", rest].concat().into(),
        None => text.into(),
    }
}

/// Whether some line of `text` starts (after its indentation) with `#`.
fn has_directive(text: &[u8]) -> bool {
    let text = &bom_as_space(text)[..];
    memchr::memchr_iter(b'#', text).any(|k| {
        let start = line_start(text, k);
        text[start..k].iter().all(|b| *b == b' ' || *b == b'\t')
    })
}

/// The directive's name (`if`, `else`, …) of a line starting with `#`.
fn directive_word(body: &[u8]) -> &[u8] {
    let rest = body[1..].trim_ascii_start();
    let n = rest
        .iter()
        .position(|b| !b.is_ascii_alphabetic())
        .unwrap_or(rest.len());
    &rest[..n]
}

/// Spaces for every byte but a line break's.
pub(super) fn blank(bytes: &mut [u8]) {
    for b in bytes {
        if *b != b'\r' && *b != b'\n' {
            *b = b' ';
        }
    }
}

#[cfg(test)]
mod tests {
    use super::masked;

    fn show(text: &str) -> String {
        String::from_utf8(masked(text.as_bytes()).unwrap()).unwrap()
    }

    #[test]
    fn directives_and_later_branches_are_blanked_offsets_kept() {
        let text = "using A;\n#if NET\nusing B;\n#else\nusing C;\n#endif\nclass T { }\n";
        let out = show(text);
        assert_eq!(out.len(), text.len());
        assert_eq!(
            out,
            "using A;\n       \nusing B;\n     \n        \n      \nclass T { }\n"
        );
        // Nested: the inner conditional of a kept branch keeps its first
        // branch; of a blanked branch, all of it.
        let text = "#if A\na\n#if B\nb\n#else\nc\n#endif\n#else\n#if D\nd\n#endif\ne\n#endif\nz\n";
        let out = show(text);
        let kept: Vec<&str> = out
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect();
        assert_eq!(kept, ["a", "b", "z"]);
        // Continuations of a directive, CRLF kept, indented directives.
        let text = "#define M(a) \\\r\n  (a + 1)\r\nint x = M(1);\r\n  #pragma once\r\n";
        let out = show(text);
        assert_eq!(out.len(), text.len());
        let lines: Vec<&str> = out.split('\n').collect();
        assert!(
            lines[0].trim().is_empty() && lines[0].ends_with('\r'),
            "{out:?}"
        );
        assert!(
            lines[1].trim().is_empty() && lines[1].ends_with('\r'),
            "{out:?}"
        );
        assert_eq!(lines[2], "int x = M(1);\r");
        assert!(lines[3].trim().is_empty(), "{out:?}");
        assert_eq!(masked(b"int x;\nx = a # b;\n"), None);
        // A byte order mark before the first directive.
        let out = masked(b"\xEF\xBB\xBF#if A\nclass T { }\n#endif").unwrap();
        assert_eq!(out, b"        \nclass T { }\n      ");
    }
}
