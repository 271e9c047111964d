//! Whether a YAML text nests too deep for its grammar to read safely.
//!
//! The YAML grammar's external scanner keeps a stack of the block
//! indentations open at the cursor (a column and a kind, four bytes each)
//! and writes it into tree-sitter's 1,024-byte serialization buffer at every
//! token, checking the size only before each pair: past about 250 open
//! levels it writes beyond the buffer, and the runtime's assertion aborts the
//! whole process (a Node.js host, an MCP server with it). A line such as
//! `- - - … x` with 255 dashes, 512 bytes, is enough. Such a text is not
//! parsed at all: the check says `unchecked: too_deep`.
//!
//! The estimate here counts at least the levels the scanner can open: a
//! block opens at a line's first character (its indentation) and after each
//! `- `, `? ` and `: ` on the line (compact sequences and mappings); the
//! stack keeps the columns of the open blocks, in increasing order, and a
//! line closes those deeper than its indentation. The scanner may open two
//! blocks at one column (a mapping and a sequence under it), so the limit
//! below is a quarter of what the buffer holds. Quoted and flow text is not
//! told apart: an indicator inside a string counts too, which errs towards
//! leaving a text unchecked, never towards parsing one too deep.

/// Most block columns open at once before a text is too deep to parse (the
/// buffer holds about 250 levels; the scanner may open two at a column).
pub(crate) const MOST_OPEN: usize = 60;

/// Whether the YAML text `pieces` (in order) may open more than
/// [`MOST_OPEN`] block columns at once.
pub(crate) fn too_deep(pieces: &[&[u8]]) -> bool {
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
        assert!(too_deep(&[dashes.as_bytes()]));
        let mut keys = String::new();
        for k in 0..300 {
            keys.push_str(&format!("{}k{k}:\n", " ".repeat(k)));
        }
        keys.push_str(&format!("{}v: 1\n", " ".repeat(300)));
        assert!(too_deep(&[keys.as_bytes()]));
        // Split anywhere, the same.
        let (a, b) = keys.as_bytes().split_at(keys.len() / 3);
        assert!(too_deep(&[a, b]));
    }

    #[test]
    fn real_yaml_is_not() {
        let ci = "name: ci\non:\n  push:\n    branches: [main]\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - name: Test\n        run: |\n          npm ci\n          npm test\n";
        assert!(!too_deep(&[ci.as_bytes()]));
        // Long lines, many keys, comments full of dashes and colons.
        let mut long = String::new();
        for k in 0..2000 {
            long.push_str(&format!(
                "key{k}: \"{}\"  # - a: - b: - c\n",
                "x: - ".repeat(3)
            ));
        }
        assert!(!too_deep(&[long.as_bytes()]));
        // Fifty levels, each a key a line deeper: within the limit.
        let mut nested = String::new();
        for k in 0..50 {
            nested.push_str(&format!("{}k{k}:\n", " ".repeat(2 * k)));
        }
        assert!(!too_deep(&[nested.as_bytes()]));
    }
}
