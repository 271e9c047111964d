//! The lines of an edit format's text, each with its number and whether
//! it ended with CRLF, and the text of lines joined back.

/// One line of a text: 1-based number, content without its line break, and
/// whether it ended with CRLF.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TextLine<'a> {
    pub(crate) no: usize,
    pub(crate) text: &'a str,
    pub(crate) cr: bool,
}

/// Splits a text into lines (a final line break does not start another line).
pub(crate) fn text_lines(text: &str) -> Vec<TextLine<'_>> {
    let mut out = Vec::new();
    let mut rest = text;
    let mut no = 0;
    while !rest.is_empty() {
        no += 1;
        let (line, next) = match rest.find('\n') {
            Some(i) => (&rest[..i], &rest[i + 1..]),
            None => (rest, ""),
        };
        let (line, cr) = match line.strip_suffix('\r') {
            Some(l) => (l, true),
            None => (line, false),
        };
        out.push(TextLine { no, text: line, cr });
        rest = next;
    }
    out
}

/// Text of lines joined with `\n` (each line's own CR kept when it had one).
pub(crate) fn join_lines(lines: &[TextLine<'_>], trailing_newline: bool) -> String {
    let mut s = String::new();
    for (i, l) in lines.iter().enumerate() {
        s.push_str(l.text);
        if i + 1 < lines.len() || trailing_newline {
            if l.cr {
                s.push('\r');
            }
            s.push('\n');
        }
    }
    s
}
