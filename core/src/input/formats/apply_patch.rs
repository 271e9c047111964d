//! The Codex `apply_patch` envelope:
//!
//! ```text
//! *** Begin Patch
//! *** Add File: docs/new.md
//! +text of the new file
//! *** Delete File: old.txt
//! *** Update File: src/app.py
//! *** Move to: src/main.py
//! @@ def main():
//!      print("hi")
//! -    return 1
//! +    return 0
//! *** End of File
//! *** End Patch
//! ```
//!
//! Marker and header lines may be padded with whitespace. A hunk starts at
//! `@@` or `@@ context` (several `@@ context` lines in a row narrow the
//! search one after another); the first hunk of a file may omit it. An empty
//! line inside a hunk is an empty context line; empty lines at the end of a
//! hunk are dropped, but for a hunk that ends with `*** End of File`, which
//! anchors it at the end of the file (there they are the file's last
//! lines). A `*** Move to:` with no hunks is a plain rename. A `@@ -l,n
//! +l,n @@` header (unified style) is read as a bare `@@` with a line hint.
//!
//! [`parse`] also accepts a unified / `git diff`, handing it to
//! [`super::unified_diff`], and a heredoc wrapper (`<<'EOF'` … `EOF`).

use super::{text_lines, unified_diff, ParseError, TextLine};
use crate::model::{
    Base, Changes, FileAction, FileOp, Format, Hunk, HunkLine, HunkStyle, LineKind, OpPlan,
};
use crate::printer;

const BEGIN: &str = "*** Begin Patch";
const END: &str = "*** End Patch";
const ADD: &str = "*** Add File:";
const DELETE: &str = "*** Delete File:";
const UPDATE: &str = "*** Update File:";
const MOVE: &str = "*** Move to:";
const EOF_MARK: &str = "*** End of File";
const HEADERS: &str = "`*** Add File: <path>`, `*** Delete File: <path>`, `*** Update File: <path>` or `*** End Patch`";

/// Parses a Codex patch or a unified diff.
pub fn parse(text: &str) -> Result<OpPlan, ParseError> {
    let lines = text_lines(text);
    let body = strip_heredoc(&lines);
    let first = body.iter().find(|l| !l.text.trim().is_empty());
    match first {
        Some(l) if l.text.trim() == BEGIN => parse_envelope(body),
        _ if unified_diff::looks_like(&lines) => unified_diff::parse(text),
        Some(l) => Err(ParseError::new(
            l.no,
            "`*** Begin Patch` (a Codex patch) or a unified diff (`--- a/file`, `+++ b/file`, `@@ -l,n +l,n @@`)",
            l.text,
        )),
        None => Err(ParseError::other(
            1,
            "`*** Begin Patch`",
            "the patch is empty: expected `*** Begin Patch` (a Codex patch) or a unified diff",
        )),
    }
}

/// Drops a heredoc wrapper: a first line `<<'EOF'` (optionally after
/// `apply_patch`) and a last line `EOF`.
fn strip_heredoc<'a, 'b>(lines: &'b [TextLine<'a>]) -> &'b [TextLine<'a>] {
    let first = lines.iter().position(|l| !l.text.trim().is_empty());
    let last = lines.iter().rposition(|l| !l.text.trim().is_empty());
    let (Some(f), Some(z)) = (first, last) else {
        return lines;
    };
    if f >= z {
        return lines;
    }
    let head = lines[f].text.trim();
    let head = head
        .strip_prefix("apply_patch")
        .map(str::trim_start)
        .unwrap_or(head);
    let Some(word) = head.strip_prefix("<<") else {
        return lines;
    };
    let word = word
        .trim_start_matches('-')
        .trim()
        .trim_matches(|c| c == '\'' || c == '"');
    if !word.is_empty()
        && word.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && lines[z].text.trim() == word
    {
        &lines[f + 1..z]
    } else {
        lines
    }
}

/// The path of a header line `prefix <path>`. Only ASCII blanks are
/// trimmed: a path ending in another Unicode space (U+0085, U+00A0) names
/// that file, not a shorter one.
fn header<'a>(line: &'a str, prefix: &str) -> Option<&'a str> {
    line.trim_ascii().strip_prefix(prefix).map(str::trim_ascii)
}

fn is_header(line: &str) -> bool {
    let t = line.trim_ascii();
    t.starts_with("*** ")
        && (t.starts_with(ADD) || t.starts_with(DELETE) || t.starts_with(UPDATE) || t == END)
}

/// Whether `line` is a hunk line by its first character (` `, `-`, `+`):
/// such a line is the file's text, never a header or a marker, whatever
/// follows (` *** Delete File: x` is a context line, as in Codex).
fn is_hunk_line(line: &str) -> bool {
    matches!(line.as_bytes().first(), Some(b' ' | b'-' | b'+'))
}

fn need_path(l: &TextLine<'_>, p: &str, what: &str) -> Result<String, ParseError> {
    if p.is_empty() {
        Err(ParseError::new(l.no, printer::path_after(what), l.text))
    } else {
        Ok(p.to_string())
    }
}

/// Parses `@@`, `@@ context`, or a unified `@@ -l,n +l,n @@` header.
enum At {
    Bare,
    Anchor(String),
    Hint(usize),
}

fn at_line(line: &str) -> Option<At> {
    // Only at the start of the line: ` @@` is a context line.
    let t = line;
    if t.trim_end() == "@@" {
        return Some(At::Bare);
    }
    let rest = t.strip_prefix("@@ ")?;
    if let Some(h) = unified_diff::range_header(t) {
        return Some(At::Hint(h.old_start));
    }
    Some(At::Anchor(rest.trim_end().to_string()))
}

struct Cursor<'a, 'b> {
    lines: &'b [TextLine<'a>],
    i: usize,
    /// The lines are one operation's body handed over as a field (see
    /// [`parse_operation`]): a `*** ` header among them is refused, never
    /// obeyed.
    body_only: bool,
}

impl<'a> Cursor<'a, '_> {
    fn peek(&self) -> Option<TextLine<'a>> {
        self.lines.get(self.i).copied()
    }
    /// Skips blank lines if only blank lines stand before the next header
    /// (or the end); returns whether it did.
    fn skip_blank_before_header(&mut self) -> bool {
        let mut j = self.i;
        while j < self.lines.len() && self.lines[j].text.trim().is_empty() {
            j += 1;
        }
        if j == self.i
            || (j < self.lines.len()
                && (is_hunk_line(self.lines[j].text) || !is_header(self.lines[j].text)))
        {
            return false;
        }
        self.i = j;
        true
    }
}

fn parse_envelope(lines: &[TextLine<'_>]) -> Result<OpPlan, ParseError> {
    let start = lines
        .iter()
        .position(|l| l.text.trim() == BEGIN)
        .expect("checked by caller");
    // The last line that is not blank closes the patch, padded or not (as
    // in Codex); before it, a line that reads ` *** End Patch` inside a
    // hunk is a context line like any other.
    let closed = lines
        .iter()
        .rposition(|l| !l.text.trim_ascii().is_empty())
        .filter(|&z| z > start && lines[z].text.trim_ascii() == END);
    let mut c = Cursor {
        lines: closed.map_or(lines, |z| &lines[..z]),
        i: start + 1,
        body_only: false,
    };
    let mut ops = Vec::new();
    loop {
        c.skip_blank_before_header();
        let Some(l) = c.peek() else {
            if closed.is_some() {
                break;
            }
            let at = lines.last().map(|l| l.no + 1).unwrap_or(1);
            return Err(ParseError::other(
                at,
                "`*** End Patch`",
                "the patch ends without `*** End Patch`",
            ));
        };
        c.i += 1;
        if l.text.trim() == END {
            if let Some(extra) = lines[c.i..].iter().find(|l| !l.text.trim().is_empty()) {
                return Err(ParseError::new(
                    extra.no,
                    "nothing after `*** End Patch`",
                    extra.text,
                ));
            }
            break;
        }
        if let Some(p) = header(l.text, ADD) {
            ops.push(add_file(&mut c, &l, p)?);
        } else if let Some(p) = header(l.text, DELETE) {
            ops.push(delete_file(&mut c, &l, p)?);
        } else if let Some(p) = header(l.text, UPDATE) {
            ops.push(update_file(&mut c, &l, p)?);
        } else {
            return Err(ParseError::new(l.no, HEADERS, l.text));
        }
    }
    if ops.is_empty() {
        let at = lines[start..]
            .iter()
            .find(|l| l.text.trim() == END)
            .map(|l| l.no)
            .unwrap_or(start + 1);
        return Err(ParseError::other(
            at,
            HEADERS,
            "the patch has no file operations: expected `*** Add File:`, `*** Delete File:` or `*** Update File:` \
             before `*** End Patch`",
        ));
    }
    Ok(OpPlan {
        format: Format::ApplyPatch,
        ops,
    })
}

/// What an operation of OpenAI's `apply_patch` tool does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum OperationKind {
    /// `create_file`: `diff` is the new file's lines, each after a `+`.
    Create,
    /// `update_file`: `diff` is `@@` sections of ` `, `-` and `+` lines.
    Update,
    /// `delete_file`: no diff.
    Delete,
}

/// One operation of OpenAI's `apply_patch` tool, as its SDKs hand it over:
/// structure, kept as structure. The path is a field and is used as given;
/// the diff is the body of that one operation, so a line in it can change
/// only that file's text — a `*** ` header among its lines is refused,
/// never obeyed. (Wrapping the fields into a `*** Begin Patch` text to parse
/// again would let a line or a path step out of its operation.)
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Operation {
    pub(crate) kind: OperationKind,
    pub(crate) path: String,
    pub(crate) diff: Option<String>,
    pub(crate) move_to: Option<String>,
}

/// The plan of one [`Operation`]. Line numbers in errors are the diff's.
pub(crate) fn parse_operation(op: &Operation) -> Result<OpPlan, ParseError> {
    let at_diff = |mut e: ParseError| {
        e.message = printer::in_operation_diff(&e.message);
        e
    };
    let diff = op.diff.as_deref().unwrap_or("");
    let lines = text_lines(diff);
    let mut c = Cursor {
        lines: &lines,
        i: 0,
        body_only: true,
    };
    let action = match op.kind {
        OperationKind::Delete if !diff.is_empty() => {
            return Err(at_diff(ParseError::other(
                1,
                "no diff",
                "a delete_file operation takes no diff",
            )))
        }
        OperationKind::Delete => FileAction::Delete { verify: None },
        OperationKind::Create => {
            let text = plus_lines(&mut c, &op.path).map_err(at_diff)?;
            if let Some(n) = c.peek() {
                return Err(at_diff(ParseError::new(
                    n.no,
                    printer::plus_line_expected(&op.path),
                    n.text,
                )));
            }
            FileAction::Write {
                base: Base::New {
                    text,
                    replace: true,
                },
                changes: Changes::None,
                move_to: None,
            }
        }
        OperationKind::Update => {
            let hunks = parse_hunks(&mut c, &op.path).map_err(at_diff)?;
            if let Some(n) = c.peek() {
                return Err(at_diff(ParseError::new(
                    n.no,
                    "an update's own lines, without `*** ` header lines",
                    n.text,
                )));
            }
            if hunks.is_empty() && op.move_to.is_none() {
                return Err(at_diff(ParseError::other(
                    1,
                    "at least one hunk (`@@` and ` `, `-`, `+` lines)",
                    printer::update_no_hunks(&op.path),
                )));
            }
            FileAction::Write {
                base: Base::Existing,
                changes: if hunks.is_empty() {
                    Changes::None
                } else {
                    Changes::Hunks(hunks)
                },
                move_to: op.move_to.clone(),
            }
        }
    };
    Ok(OpPlan {
        format: Format::ApplyPatch,
        ops: vec![FileOp {
            path: op.path.clone(),
            line: 1,
            action,
        }],
    })
}

/// An `*** Add File:` section (header `l`, path `p`): its `+` lines are
/// the new file's text.
fn add_file(c: &mut Cursor<'_, '_>, l: &TextLine<'_>, p: &str) -> Result<FileOp, ParseError> {
    let path = need_path(l, p, ADD)?;
    let text = plus_lines(c, &path)?;
    Ok(FileOp {
        path,
        line: l.no,
        action: FileAction::Write {
            base: Base::New {
                text,
                replace: true,
            },
            changes: Changes::None,
            move_to: None,
        },
    })
}

/// The `+` lines of a new file's text, up to the next header.
fn plus_lines(c: &mut Cursor<'_, '_>, path: &str) -> Result<String, ParseError> {
    let mut text = String::new();
    while let Some(n) = c.peek() {
        if is_header(n.text) || c.skip_blank_before_header() {
            break;
        }
        let Some(content) = n.text.strip_prefix('+') else {
            return Err(ParseError::new(
                n.no,
                printer::plus_line_or_header_expected(path),
                n.text,
            ));
        };
        text.push_str(content);
        text.push_str(if n.cr { "\r\n" } else { "\n" });
        c.i += 1;
    }
    Ok(text)
}

/// A `*** Delete File:` section: the header alone.
fn delete_file(c: &mut Cursor<'_, '_>, l: &TextLine<'_>, p: &str) -> Result<FileOp, ParseError> {
    let path = need_path(l, p, DELETE)?;
    if let Some(n) = c.peek() {
        if !is_header(n.text) && !c.skip_blank_before_header() {
            return Err(ParseError::new(
                n.no,
                printer::header_after_delete(&path),
                n.text,
            ));
        }
    }
    Ok(FileOp {
        path,
        line: l.no,
        action: FileAction::Delete { verify: None },
    })
}

/// An `*** Update File:` section: an optional `*** Move to:`, then hunks
/// (at least one unless the file moves).
fn update_file(c: &mut Cursor<'_, '_>, l: &TextLine<'_>, p: &str) -> Result<FileOp, ParseError> {
    let path = need_path(l, p, UPDATE)?;
    let mut move_to = None;
    if let Some(n) = c.peek() {
        // At the start of the line only: ` *** Move to: x` is the first
        // hunk's first context line.
        if let Some(q) = n.text.strip_prefix(MOVE).map(str::trim_ascii) {
            move_to = Some(need_path(&n, q, MOVE)?);
            c.i += 1;
        }
    }
    let hunks = parse_hunks(c, &path)?;
    if hunks.is_empty() && move_to.is_none() {
        return Err(ParseError::other(
            l.no,
            "at least one hunk (`@@` and ` `, `-`, `+` lines)",
            printer::update_file_no_hunks(&path),
        ));
    }
    let changes = if hunks.is_empty() {
        Changes::None
    } else {
        Changes::Hunks(hunks)
    };
    Ok(FileOp {
        path,
        line: l.no,
        action: FileAction::Write {
            base: Base::Existing,
            changes,
            move_to,
        },
    })
}

/// Parses the hunks of one `*** Update File:` section.
fn parse_hunks(c: &mut Cursor<'_, '_>, path: &str) -> Result<Vec<Hunk>, ParseError> {
    let mut hunks: Vec<Hunk> = Vec::new();
    let mut cur: Option<Hunk> = None;
    // Whether the current hunk is only `@@` lines so far.
    let finish = |h: Option<Hunk>, hunks: &mut Vec<Hunk>| -> Result<(), ParseError> {
        if let Some(mut h) = h {
            // Empty context lines at the end are padding, not text: but
            // before `*** End of File` they are the file's last lines.
            while !h.at_eof
                && h.lines
                    .last()
                    .is_some_and(|l| l.kind == LineKind::Context && l.text.is_empty())
            {
                h.lines.pop();
            }
            if h.lines.is_empty() {
                return Err(ParseError::other(
                    h.line,
                    "hunk lines (` `, `-`, `+`) after `@@`",
                    printer::hunk_no_lines(path),
                ));
            }
            hunks.push(h);
        }
        Ok(())
    };
    let new_hunk = |line: usize| Hunk {
        anchors: Vec::new(),
        lines: Vec::new(),
        at_eof: false,
        old_start: None,
        line,
        style: HunkStyle::Codex,
    };
    while let Some(l) = c.peek() {
        if !is_hunk_line(l.text) && is_header(l.text) {
            if c.body_only {
                return Err(ParseError::new(
                    l.no,
                    "an update's own lines (`@@` sections of ` `, `-` and `+` lines, optionally ending with \
                     `*** End of File`), without `*** ` header lines",
                    l.text,
                ));
            }
            break;
        }
        if !is_hunk_line(l.text) && l.text.trim_ascii() == EOF_MARK {
            match cur.as_mut() {
                Some(h) if !h.lines.is_empty() => h.at_eof = true,
                _ => {
                    return Err(ParseError::new(
                        l.no,
                        "hunk lines before `*** End of File`",
                        l.text,
                    ))
                }
            }
            finish(cur.take(), &mut hunks)?;
            c.i += 1;
            if let Some(n) = c.peek() {
                if !is_header(n.text) && at_line(n.text).is_none() && !c.skip_blank_before_header()
                {
                    return Err(ParseError::new(
                        n.no,
                        "`@@` or a `*** ` header after `*** End of File`",
                        n.text,
                    ));
                }
            }
            continue;
        }
        if let Some(at) = at_line(l.text) {
            // `@@` lines in a row belong to one hunk.
            if cur.as_ref().is_some_and(|h| !h.lines.is_empty()) || cur.is_none() {
                finish(cur.take(), &mut hunks)?;
                cur = Some(new_hunk(l.no));
            }
            let h = cur.as_mut().expect("just set");
            match at {
                At::Bare => {}
                At::Anchor(a) => h.anchors.push(a),
                At::Hint(n) => h.old_start = Some(n),
            }
            c.i += 1;
            continue;
        }
        let (kind, text) = match l.text.chars().next() {
            None => (LineKind::Context, ""),
            Some(' ') => (LineKind::Context, &l.text[1..]),
            Some('-') => (LineKind::Remove, &l.text[1..]),
            Some('+') => (LineKind::Add, &l.text[1..]),
            _ => {
                if l.text.trim().is_empty() && c.skip_blank_before_header() {
                    break;
                }
                return Err(ParseError::new(
                    l.no,
                    "a hunk line starting with ` `, `-` or `+`, `@@`, `*** End of File` or a `*** ` header",
                    l.text,
                ));
            }
        };
        if l.text.is_empty() && c.skip_blank_before_header() {
            break;
        }
        let h = cur.get_or_insert_with(|| new_hunk(l.no));
        h.lines.push(HunkLine {
            kind,
            text: text.to_string(),
            cr: l.cr,
            no_eol: false,
        });
        c.i += 1;
    }
    finish(cur.take(), &mut hunks)?;
    Ok(hunks)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The paths and moves a plan touches.
    fn touched(p: &OpPlan) -> Vec<(String, Option<String>)> {
        p.ops
            .iter()
            .map(|o| match &o.action {
                FileAction::Write { move_to, .. } => (o.path.clone(), move_to.clone()),
                FileAction::Delete { .. } => (o.path.clone(), None),
            })
            .collect()
    }

    /// A context line never becomes a header, a move, the end of the file
    /// or of the patch, whatever it says after its leading space.
    #[test]
    fn a_context_line_is_never_a_header() {
        for line in [
            " *** Delete File: victim.txt",
            " *** Add File: planted.sh",
            " *** Update File: other.txt",
            " *** End of File",
            " *** End Patch",
        ] {
            let t = format!("*** Begin Patch\n*** Update File: x.txt\n@@\n keep\n{line}\n-old\n+new\n*** End Patch\n");
            let p = parse(&t).unwrap();
            assert_eq!(touched(&p), [("x.txt".to_string(), None)], "{line}");
            let h = hunks(&p, 0);
            assert_eq!(h[0].lines[1].text, &line[1..], "{line}");
            assert!(!h[0].at_eof, "{line}");
        }
        // The first line of a first hunk without `@@`.
        let t = "*** Begin Patch\n*** Update File: x.txt\n *** Move to: y.txt\n-old\n+new\n*** End Patch\n";
        let p = parse(t).unwrap();
        assert_eq!(touched(&p), [("x.txt".to_string(), None)]);
        // Padded markers where no hunk line can stand still work (Codex's
        // conformance: a padded header after `*** Begin Patch`, a padded last
        // `*** End Patch`).
        let t = "*** Begin Patch\n  *** Update File: x.txt\n@@\n-one\n+two\n *** End Patch\n";
        assert_eq!(touched(&parse(t).unwrap()), [("x.txt".to_string(), None)]);
    }

    /// A header's path is cut of ASCII blanks only: `v.txt` followed by
    /// U+0085 (which `str::trim` removes) names that file, not `v.txt`.
    #[test]
    fn a_path_keeps_its_unicode_spaces() {
        for end in ["\u{85}", "\u{a0}", "\u{2028}", "\u{3000}"] {
            let t = format!("*** Begin Patch\n*** Delete File: v.txt{end}\n*** End Patch\n");
            assert_eq!(
                touched(&parse(&t).unwrap()),
                [(format!("v.txt{end}"), None)]
            );
        }
    }

    /// An operation handed over as structure plans exactly that operation:
    /// its diff's `*** ` lines are refused, never obeyed.
    #[test]
    fn an_operation_is_one_operation() {
        let op = |kind, diff: &str| Operation {
            kind,
            path: "x.txt".into(),
            diff: Some(diff.into()),
            move_to: None,
        };
        for diff in [
            "@@\n-a\n+b\n*** Delete File: victim.txt\n",
            "@@\n-a\n+b\n\n*** Add File: planted.sh\n+x\n",
            "*** Update File: other.txt\n@@\n-a\n+b\n",
            "@@\n-a\n+b\n*** End Patch\n",
        ] {
            let e = parse_operation(&op(OperationKind::Update, diff)).unwrap_err();
            assert!(e.message.starts_with("diff line "), "{}", e.message);
        }
        let e = parse_operation(&op(
            OperationKind::Create,
            "+a\n*** Delete File: victim.txt\n",
        ))
        .unwrap_err();
        assert_eq!(e.line, 2, "{}", e.message);
        let p = parse_operation(&op(
            OperationKind::Update,
            "@@\n *** Delete File: v\n-a\n+b\n",
        ))
        .unwrap();
        assert_eq!(touched(&p), [("x.txt".to_string(), None)]);
        let p = parse_operation(&op(OperationKind::Create, "+*** Delete File: v\n")).unwrap();
        assert_eq!(touched(&p), [("x.txt".to_string(), None)]);
    }

    fn line_body() -> impl Strategy<Value = String> {
        // Headers, markers and their parts, padding, Unicode spaces, CRs.
        let piece = prop_oneof![
            Just("*** ".to_string()),
            Just("Delete File: ".to_string()),
            Just("Add File: ".to_string()),
            Just("Update File: ".to_string()),
            Just("Move to: ".to_string()),
            Just("End Patch".to_string()),
            Just("End of File".to_string()),
            Just("Begin Patch".to_string()),
            Just("@@".to_string()),
            Just(" ".to_string()),
            Just("\t".to_string()),
            Just("\r".to_string()),
            Just("\u{85}".to_string()),
            Just("\u{a0}".to_string()),
            "[a-z./]{1,6}",
        ];
        proptest::collection::vec(piece, 0..6).prop_map(|v| v.concat())
    }

    proptest! {
        #![proptest_config(crate::text::test_seeds::config(2000))]

        /// No byte sequence inside a diff line or a path changes which files
        /// an operation touches: given as structure, it plans that one path
        /// (and move) or is refused; inside an envelope's update section, a
        /// hunk line (` `, `-` or `+` first) never adds, drops or redirects
        /// an operation.
        #[test]
        fn no_line_or_path_changes_the_files_touched(
            lines in proptest::collection::vec((0..3usize, line_body()), 1..8),
            path in "[a-z]{1,4}(\\.txt)?",
            tail in prop_oneof![Just(String::new()), Just("\u{85}".to_string()), Just("\u{a0}".to_string()), Just(" x".to_string())],
            mv in proptest::option::of("[a-z]{1,4}"),
        ) {
            let path = format!("{path}{tail}");
            let diff: String = lines.iter().map(|(k, b)| format!("{}{b}\n", [' ', '-', '+'][*k])).collect();
            for kind in [OperationKind::Update, OperationKind::Create] {
                let diff = if kind == OperationKind::Create {
                    lines.iter().map(|(_, b)| format!("+{b}\n")).collect()
                } else {
                    format!("@@\n{diff}")
                };
                let op = Operation { kind, path: path.clone(), diff: Some(diff), move_to: mv.clone().filter(|_| kind == OperationKind::Update) };
                if let Ok(p) = parse_operation(&op) {
                    prop_assert_eq!(touched(&p), vec![(path.clone(), op.move_to.clone())]);
                }
            }
            let t = format!("*** Begin Patch\n*** Update File: {path}\n@@\n{diff}*** End Patch\n");
            if let Ok(p) = parse(&t) {
                prop_assert_eq!(touched(&p), vec![(path.trim_ascii().to_string(), None)]);
            }
        }
    }

    fn hunks(p: &OpPlan, i: usize) -> &Vec<Hunk> {
        match &p.ops[i].action {
            FileAction::Write {
                changes: Changes::Hunks(h),
                ..
            } => h,
            other => panic!("no hunks: {other:?}"),
        }
    }

    #[test]
    fn parses_every_operation() {
        let t = "*** Begin Patch\n*** Add File: a/new.txt\n+one\n+two\n*** Delete File: gone.txt\n\
                 *** Update File: src/x.py\n*** Move to: src/y.py\n@@ class A\n@@ def f():\n     keep\n-    old\n+    new\n\
                 *** End of File\n*** End Patch\n";
        let p = parse(t).unwrap();
        assert_eq!(p.format, Format::ApplyPatch);
        assert_eq!(
            p.ops[0].action,
            FileAction::Write {
                base: Base::New {
                    text: "one\ntwo\n".into(),
                    replace: true
                },
                changes: Changes::None,
                move_to: None
            }
        );
        assert_eq!(
            p.ops[1],
            FileOp {
                path: "gone.txt".into(),
                line: 5,
                action: FileAction::Delete { verify: None }
            }
        );
        let h = &hunks(&p, 2)[0];
        assert_eq!(h.anchors, ["class A", "def f():"]);
        assert!(h.at_eof);
        assert_eq!(h.lines.len(), 3);
        assert_eq!(
            h.lines[1],
            HunkLine {
                kind: LineKind::Remove,
                text: "    old".into(),
                cr: false,
                no_eol: false
            }
        );
        assert!(
            matches!(&p.ops[2].action, FileAction::Write { move_to: Some(m), .. } if m == "src/y.py")
        );
    }

    #[test]
    fn padded_markers_heredoc_and_missing_first_at() {
        let t = "<<'EOF'\n *** Begin Patch \n  *** Update File: f\n-a\n+b\n@@ -3,2 +3,2 @@\n c\n-d\n+e\n\n*** End Patch \nEOF\n";
        let p = parse(t).unwrap();
        let h = hunks(&p, 0);
        assert_eq!(h.len(), 2);
        assert_eq!(h[1].old_start, Some(3));
        assert!(h[1].anchors.is_empty());
        assert_eq!(
            h[1].lines.len(),
            3,
            "the blank line before End Patch is dropped"
        );
    }

    #[test]
    fn pure_rename() {
        let p =
            parse("*** Begin Patch\n*** Update File: a\n*** Move to: b\n*** End Patch\n").unwrap();
        assert_eq!(
            p.ops[0].action,
            FileAction::Write {
                base: Base::Existing,
                changes: Changes::None,
                move_to: Some("b".into())
            }
        );
    }

    #[test]
    fn malformed_inputs_name_the_line() {
        let cases: &[(&str, usize)] = &[
            ("", 1),
            ("hello\n", 1),
            ("*** Begin Patch\n*** End Patch\n", 2),
            (
                "*** Begin Patch\n*** Frobnicate File: foo\n*** End Patch\n",
                2,
            ),
            (
                "*** Begin Patch\n*** Update File: foo.txt\n*** End Patch\n",
                2,
            ),
            ("*** Begin Patch\n*** Add File: x\n+a\n*** End Patch", 0),
            (
                "*** Begin Patch\n*** Add File: x\n+a\nb\n*** End Patch\n",
                4,
            ),
            ("*** Begin Patch\n*** Add File: x\n+a\n", 4),
            (
                "*** Begin Patch\n*** Update File: x\n@@\n*** End Patch\n",
                3,
            ),
            (
                "*** Begin Patch\n*** Update File: x\n@@\n a\nzzz\n*** End Patch\n",
                5,
            ),
            (
                "*** Begin Patch\n*** Delete File: x\n+a\n*** End Patch\n",
                3,
            ),
            ("*** Begin Patch\n*** Add File: \n*** End Patch\n", 2),
            (
                "*** Begin Patch\n*** Delete File: x\n*** End Patch\ntrailing\n",
                4,
            ),
            (
                "*** Begin Patch\n*** Update File: x\n*** End of File\n*** End Patch\n",
                3,
            ),
        ];
        for (t, line) in cases {
            match parse(t) {
                Ok(_) if *line == 0 => {}
                Ok(p) => panic!("{t:?} parsed: {p:?}"),
                Err(e) => assert_eq!(e.line, *line, "{t:?}: {}", e.message),
            }
        }
    }
}
