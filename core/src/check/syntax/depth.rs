//! Whether a text nests too deep for its grammar's scanner to read safely.
//!
//! An external scanner writes its state into tree-sitter's 1,024-byte
//! serialization buffer at every token, and the runtime asserts the size it
//! returns: a scanner that overruns the buffer aborts the whole process (a
//! Node.js host, an MCP server with it). Two of the grammars can be made to
//! overrun it by nesting alone; such a text is not parsed at all, and the
//! check says `unchecked: too_deep`.
//!
//! **YAML.** The scanner keeps a stack of the block indentations open at the
//! cursor (a column and a kind, four bytes each) and checks the size only
//! before each pair: past about 250 open levels it writes beyond the buffer.
//! A line such as `- - - … x` with 255 dashes, 512 bytes, is enough. The
//! estimate here counts at least the levels the scanner can open: a block
//! opens at a line's first character (its indentation) and after each `- `,
//! `? ` and `: ` on the line (compact sequences and mappings); the stack
//! keeps the columns of the open blocks, in increasing order, and a line
//! closes those deeper than its indentation. The scanner may open two blocks
//! at one column (a mapping and a sequence under it), so the limit below is
//! a quarter of what the buffer holds. Quoted and flow text is not told
//! apart: an indicator inside a string counts too, which errs towards
//! leaving a text unchecked, never towards parsing one too deep.
//!
//! **Python.** The scanner writes a flag, the open string delimiters (at most
//! 255, one byte each) and then its stack of indentations, two bytes each,
//! while the size is under 1,024: after an odd number of delimiters (inside a
//! string) it ends at 1,025, past the buffer, from about 510 open
//! indentations. Its stack is strictly increasing, so it never holds more
//! indentations than the text has distinct ones; those are counted here as
//! the scanner measures them (a space 1, a tab 8, a carriage return or form
//! feed back to 0, a backslash and line break continuing the count on the
//! next line; 16 bits, wrapping), for every line, also those inside strings
//! and brackets, which can only count more.

use super::grammar::Grammar;

/// Whether `grammar` may overrun its scanner's buffer on the text `pieces`
/// (in order): see the module docs.
pub(crate) fn too_deep(grammar: Grammar, pieces: &[&[u8]]) -> bool {
    match grammar {
        Grammar::Yaml => yaml_too_deep(pieces),
        Grammar::Python => python_too_deep(pieces),
        _ => false,
    }
}

/// Most distinct indentations a Python text may have (the scanner's buffer
/// holds 383 after 255 delimiters; real code has a few dozen).
pub(crate) const PYTHON_MOST_INDENTS: usize = 300;

/// Whether the Python text `pieces` has more than [`PYTHON_MOST_INDENTS`]
/// distinct indentations other than none.
fn python_too_deep(pieces: &[&[u8]]) -> bool {
    /// Where the cursor is: in a line's indentation (its count so far),
    /// just after a backslash there (and a carriage return after it), or
    /// past the indentation.
    #[derive(Clone, Copy)]
    enum At {
        Indent(u16),
        Backslash(u16, bool),
        Rest,
    }
    let mut seen = vec![0u64; 1 << 10];
    let mut distinct = 0usize;
    let mut at = At::Indent(0);
    for &b in pieces.iter().flat_map(|p| p.iter()) {
        at = match (at, b) {
            (At::Rest, b'\n') => At::Indent(0),
            (At::Rest, _) => At::Rest,
            (At::Indent(n), b' ') => At::Indent(n.wrapping_add(1)),
            (At::Indent(n), b'\t') => At::Indent(n.wrapping_add(8)),
            (At::Indent(_), b'\n' | b'\r' | 0x0c) => At::Indent(0),
            (At::Indent(n), b'\\') => At::Backslash(n, false),
            (At::Backslash(n, false), b'\r') => At::Backslash(n, true),
            (At::Backslash(n, _), b'\n') => At::Indent(n),
            (At::Backslash(..), _) => At::Rest,
            (At::Indent(n), _) => {
                let (word, bit) = (usize::from(n) / 64, 1u64 << (n % 64));
                if n != 0 && seen[word] & bit == 0 {
                    seen[word] |= bit;
                    distinct += 1;
                    if distinct > PYTHON_MOST_INDENTS {
                        return true;
                    }
                }
                At::Rest
            }
        };
    }
    false
}

/// Most block columns open at once before a text is too deep to parse (the
/// buffer holds about 250 levels; the scanner may open two at a column).
pub(crate) const MOST_OPEN: usize = 60;

/// Whether the YAML text `pieces` (in order) may open more than
/// [`MOST_OPEN`] block columns at once.
fn yaml_too_deep(pieces: &[&[u8]]) -> bool {
    let mut open: Vec<usize> = Vec::new();
    let mut col = 0usize;
    let mut indent = true;
    let mut comment = false;
    let mut prev = b'\n';
    for &b in pieces.iter().flat_map(|p| p.iter()) {
        if b == b'\n' || b == b'\r' {
            (col, indent, comment, prev) = (0, true, false, b'\n');
            continue;
        }
        if comment {
            continue;
        }
        if indent {
            if b == b' ' || b == b'\t' {
                col += 1;
                continue;
            }
            indent = false;
            if b == b'#' {
                comment = true;
                continue;
            }
            while open.last().is_some_and(|&c| c > col) {
                open.pop();
            }
            if open.last() != Some(&col) {
                open.push(col);
            }
        } else if b == b' ' || b == b'\t' {
            if matches!(prev, b'-' | b'?' | b':') && open.last().is_none_or(|&c| c < col) {
                open.push(col);
            }
        } else if b == b'#' && matches!(prev, b' ' | b'\t') {
            comment = true;
            continue;
        }
        if open.len() > MOST_OPEN {
            return true;
        }
        col += 1;
        prev = b;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deep_compact_sequences_and_indented_keys_are_too_deep() {
        let dashes = format!("name: a\nlist:\n{}x\n", "- ".repeat(255));
        assert!(yaml_too_deep(&[dashes.as_bytes()]));
        let mut keys = String::new();
        for k in 0..300 {
            keys.push_str(&format!("{}k{k}:\n", " ".repeat(k)));
        }
        keys.push_str(&format!("{}v: 1\n", " ".repeat(300)));
        assert!(yaml_too_deep(&[keys.as_bytes()]));
        // Split anywhere, the same.
        let (a, b) = keys.as_bytes().split_at(keys.len() / 3);
        assert!(yaml_too_deep(&[a, b]));
    }

    #[test]
    fn real_yaml_is_not() {
        let ci = "name: ci\non:\n  push:\n    branches: [main]\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - name: Test\n        run: |\n          npm ci\n          npm test\n";
        assert!(!yaml_too_deep(&[ci.as_bytes()]));
        // Long lines, many keys, comments full of dashes and colons.
        let mut long = String::new();
        for k in 0..2000 {
            long.push_str(&format!(
                "key{k}: \"{}\"  # - a: - b: - c\n",
                "x: - ".repeat(3)
            ));
        }
        assert!(!yaml_too_deep(&[long.as_bytes()]));
        // Fifty levels, each a key a line deeper: within the limit.
        let mut nested = String::new();
        for k in 0..50 {
            nested.push_str(&format!("{}k{k}:\n", " ".repeat(2 * k)));
        }
        assert!(!yaml_too_deep(&[nested.as_bytes()]));
    }

    /// `depth` lines, each one space deeper, the last a string.
    fn nested_python(depth: usize, unit: &str) -> String {
        let mut t = String::new();
        for i in 0..depth {
            t.push_str(&unit.repeat(i));
            t.push_str("if 1:\n");
        }
        t.push_str(&unit.repeat(depth));
        t.push_str("x = \"abc\"\n");
        t
    }

    #[test]
    fn deep_python_is_too_deep_in_every_measure() {
        // The abort needed about 510 levels; the estimate stops at 300.
        assert!(python_too_deep(&[nested_python(301, " ").as_bytes()]));
        assert!(!python_too_deep(&[nested_python(300, " ").as_bytes()]));
        assert!(python_too_deep(&[nested_python(301, "\t").as_bytes()]));
        // A form feed or carriage return in the indentation starts it again;
        // a backslash and a line break continue it on the next line.
        let ff = nested_python(400, " ").replace("if 1:", "\x0cif 1:");
        assert!(!python_too_deep(&[ff.as_bytes()]));
        let mut joined = String::new();
        for i in 0..301 {
            joined.push_str(&" ".repeat(i));
            joined.push_str("\\\n ");
            joined.push_str(&" ".repeat(i));
            joined.push_str("if 1:\n");
        }
        assert!(python_too_deep(&[joined.as_bytes()]));
        // Split anywhere, the same.
        let t = nested_python(301, " ");
        let (a, b) = t.as_bytes().split_at(t.len() / 2);
        assert!(python_too_deep(&[a, b]));
        assert!(too_deep(Grammar::Python, &[a, b]));
        assert!(!too_deep(Grammar::Rust, &[a, b]));
    }

    #[test]
    fn real_python_is_not() {
        // Many lines at a few indentations, long lines, dedents and back.
        let mut t = String::new();
        for k in 0..5000 {
            t.push_str(&" ".repeat(4 * (k % 12)));
            t.push_str(&format!("x{k} = f(\"{}\")  # \\\n", "y".repeat(k % 300)));
        }
        assert!(!python_too_deep(&[t.as_bytes()]));
        // Sixteen bits of indentation wrap as the scanner's count does: one
        // line at 65,536 spaces counts as none.
        let wrapped = format!("{}x = 1\n", " ".repeat(65536));
        assert!(!python_too_deep(&[wrapped.as_bytes()]));
    }
}
