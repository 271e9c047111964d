//! Python's indentation, which tree-sitter-python does not judge: its
//! scanner reads an unexpected indent, a dedent to no outer level, a block
//! left empty or a line indented with tabs where its block uses spaces
//! without an error, while Python refuses each (`IndentationError`,
//! `TabError`). An edit that re-indents lines wrongly (a patch typed at
//! another depth, a tab among spaces) would pass the guard.
//!
//! The scan follows Python's tokenizer as far as indentation needs: the
//! logical lines (outside brackets, strings and backslash continuations),
//! blank and comment-only lines skipped, each indentation compared with the
//! stack of open blocks both as columns with tabs to the next multiple of
//! 8 and with a tab as one column: Python calls the two disagreeing a
//! `TabError`. A line that ends a header (`:` outside brackets and
//! comments) must be followed by a deeper one.

/// A line Python would refuse for its indentation: the byte offset where
/// its text starts, its 0-based row and its indentation's length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct BadIndent {
    pub(crate) start: usize,
    pub(crate) row: usize,
    pub(crate) col: usize,
}

/// Most lines reported.
pub(crate) const MOST: usize = 16;

/// The lines of Python source `text` whose indentation Python refuses.
pub(crate) fn errors(text: &[u8]) -> Vec<BadIndent> {
    let mut out = Vec::new();
    // Open blocks' indentations, as (columns with tabs of 8, of 1).
    let mut stack: Vec<(usize, usize)> = vec![(0, 0)];
    let mut scan = Scan::default();
    let mut header = false;
    let (mut at, mut row) = (0, 0);
    while at < text.len() && out.len() < MOST {
        let end = memchr::memchr(b'\n', &text[at..]).map_or(text.len(), |k| at + k);
        let line = &text[at..end];
        let starts_logical = scan.depth == 0 && scan.quote.is_none() && !scan.continued;
        let ind = line
            .iter()
            .take_while(|b| matches!(b, b' ' | b'\t' | b'\x0c'))
            .count();
        let body = line[ind..].strip_suffix(b"\r").unwrap_or(&line[ind..]);
        // Blank and comment-only lines say nothing of blocks.
        let quiet = starts_logical && (body.is_empty() || body[0] == b'#');
        if starts_logical && !quiet {
            let cols = columns(&line[..ind]);
            let top = *stack.last().expect("the outermost level stays");
            let good = if header {
                // A block must be deeper than its header's level.
                cols.0 > top.0 && cols.1 > top.1
            } else if cols.0 > top.0 || cols.1 > top.1 {
                // Deeper than its block, or tabs and columns disagree.
                cols == top
            } else {
                while stack.last().is_some_and(|t| t.0 > cols.0) {
                    stack.pop();
                }
                stack.last() == Some(&cols)
            };
            if !good {
                out.push(BadIndent {
                    start: at + ind,
                    row,
                    col: ind,
                });
                // Read on from the line as it stands.
                while stack.len() > 1 && stack.last().is_some_and(|t| t.0 >= cols.0) {
                    stack.pop();
                }
            }
            if stack.last() != Some(&cols) {
                stack.push(cols);
            }
        }
        let ends_header = scan.line(body);
        if !quiet {
            header = ends_header && scan.depth == 0 && scan.quote.is_none() && !scan.continued;
        }
        at = end + 1;
        row += 1;
    }
    out
}

/// Columns of an indentation: tabs to the next multiple of 8, and a tab
/// as one column. A form feed starts the count again (as Python's
/// tokenizer does: a page break before an indented line).
fn columns(ind: &[u8]) -> (usize, usize) {
    let (mut c8, mut c1) = (0, 0);
    for &b in ind {
        (c8, c1) = match b {
            b'\t' => ((c8 / 8 + 1) * 8, c1 + 1),
            b'\x0c' => (0, 0),
            _ => (c8 + 1, c1 + 1),
        };
    }
    (c8, c1)
}

/// Where the tokenizer stands at the end of a line.
#[derive(Default)]
struct Scan {
    /// Open brackets.
    depth: usize,
    /// The open string: its quote and whether it is triple.
    quote: Option<(u8, bool)>,
    /// The line ended with a backslash outside a string.
    continued: bool,
}

impl Scan {
    /// Reads one line; whether its last token outside brackets, strings and
    /// comments is `:` (it ends a header).
    fn line(&mut self, line: &[u8]) -> bool {
        self.continued = false;
        let mut last = 0u8;
        let mut k = 0;
        // A backslash ends the line inside a one-quote string: it goes on.
        let mut goes_on = false;
        while k < line.len() {
            let b = line[k];
            if let Some((q, triple)) = self.quote {
                if b == b'\\' {
                    goes_on = k + 1 == line.len();
                    k += 2;
                    continue;
                }
                if b == q && (!triple || line[k..].starts_with(&[q, q, q])) {
                    self.quote = None;
                    k += if triple { 3 } else { 1 };
                    last = q;
                    continue;
                }
                k += 1;
                continue;
            }
            match b {
                b'#' => break,
                b'\'' | b'"' => {
                    let triple = line[k..].starts_with(&[b, b, b]);
                    self.quote = Some((b, triple));
                    k += if triple { 3 } else { 1 };
                    continue;
                }
                b'(' | b'[' | b'{' => self.depth += 1,
                b')' | b']' | b'}' => self.depth = self.depth.saturating_sub(1),
                b'\\' if line[k + 1..].iter().all(u8::is_ascii_whitespace) => {
                    self.continued = true;
                    break;
                }
                _ => {}
            }
            if !b.is_ascii_whitespace() {
                last = b;
            }
            k += 1;
        }
        // A one-quote string does not run past its line (an error of its
        // own, which the grammar reports).
        if matches!(self.quote, Some((_, false))) && !goes_on {
            self.quote = None;
        }
        last == b':'
    }
}

#[cfg(test)]
mod tests {
    use super::errors;

    fn rows(t: &str) -> Vec<usize> {
        errors(t.as_bytes()).iter().map(|e| e.row).collect()
    }

    #[test]
    fn python_refuses_these_indentations() {
        // Unexpected indent; a dedent to no outer level; a tab in a block of
        // spaces (TabError); a block left empty.
        assert_eq!(rows("def f():\n    x = 1\n        y = 2\n"), [2]);
        assert_eq!(rows("def f():\n    if x:\n        y()\n  z()\n"), [3]);
        assert_eq!(rows("def f():\n        x = 1\n\treturn x\n"), [2]);
        assert_eq!(rows("def f():\nx = 1\n"), [1]);
        assert_eq!(rows("class A:\n    def f(self):\n    return 1\n"), [2]);
        // After a form feed, two columns: a dedent to no outer level.
        assert_eq!(
            rows("class A:\n    x = 1\n    \x0c  def f(self):\n        pass\n"),
            [2]
        );
    }

    #[test]
    fn valid_python_is_not_refused() {
        for t in [
            "def f():\n    x = (1,\n  2)\n    return x\n",
            "def f():\n    s = '''\nnot code\n        at all\n'''\n    return s\n",
            "def f():\n    x = 1 + \\\n            2\n    return x\n",
            "if a:\n    pass\n# a comment\n        # indented comment\nelse:\n    pass\n",
            "def f():\n\tif x:\n\t\treturn 1\n\treturn 2\n",
            "d = {\n    'a': 1,\n}\nif d: print(d)\n",
            "def f(x: int,\n      y: str) -> dict:\n    return {'k': x}\n",
            "s = \"a # not a comment:\"\nt = 'it''s'\n",
            "x = f'{a}:'\nif x:\n    pass\n",
            "\n\n\nclass A:\n    \"\"\"Doc.\n\n    More.\n    \"\"\"\n\n    def f(self):\n        return r'\\'\n",
            "try:\n    x()\nexcept (A,\n        B):\n    pass\n",
            "if x:\r\n    y()\r\nz()\r\n",
            "if a:\n    m = \"one \\\ntwo \\\nthree\"\n\n    w(m)\n",
            // A page break (form feed) before a line: its count starts again.
            "def f():\n    pass\n\x0c\ndef g():\n\x0c    return 1\n",
            "class A:\n    x = 1\n    \x0cdef f(self):\n        pass\n",
        ] {
            assert_eq!(rows(t), Vec::<usize>::new(), "{t:?}");
        }
    }
}
