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
//! hunk are dropped. `*** End of File` anchors the hunk at the end of the
//! file. A `*** Move to:` with no hunks is a plain rename. A `@@ -l,n +l,n @@`
//! header (unified style) is read as a bare `@@` with a line hint.
//!
//! [`parse`] also accepts a unified / `git diff`, handing it to
//! [`super::unified_diff`], and a heredoc wrapper (`<<'EOF'` … `EOF`).

use super::{text_lines, unified_diff, ParseError, TextLine};
use crate::model::{
    Action, Base, Changes, FileOp, Format, Hunk, HunkLine, HunkStyle, LineKind, OpPlan,
};

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

fn header<'a>(line: &'a str, prefix: &str) -> Option<&'a str> {
    line.trim().strip_prefix(prefix).map(str::trim)
}

fn is_header(line: &str) -> bool {
    let t = line.trim();
    t.starts_with("*** ")
        && (t.starts_with(ADD) || t.starts_with(DELETE) || t.starts_with(UPDATE) || t == END)
}

fn need_path(l: &TextLine<'_>, p: &str, what: &str) -> Result<String, ParseError> {
    if p.is_empty() {
        Err(ParseError::new(
            l.no,
            format!("a path after `{what}`"),
            l.text,
        ))
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
        if j == self.i || (j < self.lines.len() && !is_header(self.lines[j].text)) {
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
    let mut c = Cursor {
        lines,
        i: start + 1,
    };
    let mut ops = Vec::new();
    loop {
        c.skip_blank_before_header();
        let Some(l) = c.peek() else {
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

/// An `*** Add File:` section (header `l`, path `p`): its `+` lines are
/// the new file's text.
fn add_file(c: &mut Cursor<'_, '_>, l: &TextLine<'_>, p: &str) -> Result<FileOp, ParseError> {
    let path = need_path(l, p, ADD)?;
    let mut text = String::new();
    while let Some(n) = c.peek() {
        if is_header(n.text) || c.skip_blank_before_header() {
            break;
        }
        let Some(content) = n.text.strip_prefix('+') else {
            return Err(ParseError::new(
                n.no,
                format!("a line starting with `+` (the text of `{path}`) or a `*** ` header"),
                n.text,
            ));
        };
        text.push_str(content);
        text.push_str(if n.cr { "\r\n" } else { "\n" });
        c.i += 1;
    }
    Ok(FileOp {
        path,
        line: l.no,
        action: Action::Write {
            base: Base::New {
                text,
                replace: true,
            },
            changes: Changes::None,
            move_to: None,
        },
    })
}

/// A `*** Delete File:` section: the header alone.
fn delete_file(c: &mut Cursor<'_, '_>, l: &TextLine<'_>, p: &str) -> Result<FileOp, ParseError> {
    let path = need_path(l, p, DELETE)?;
    if let Some(n) = c.peek() {
        if !is_header(n.text) && !c.skip_blank_before_header() {
            return Err(ParseError::new(
                n.no,
                format!("a `*** ` header after `*** Delete File: {path}`"),
                n.text,
            ));
        }
    }
    Ok(FileOp {
        path,
        line: l.no,
        action: Action::Delete { verify: None },
    })
}

/// An `*** Update File:` section: an optional `*** Move to:`, then hunks
/// (at least one unless the file moves).
fn update_file(c: &mut Cursor<'_, '_>, l: &TextLine<'_>, p: &str) -> Result<FileOp, ParseError> {
    let path = need_path(l, p, UPDATE)?;
    let mut move_to = None;
    if let Some(n) = c.peek() {
        if let Some(q) = header(n.text, MOVE) {
            move_to = Some(need_path(&n, q, MOVE)?);
            c.i += 1;
        }
    }
    let hunks = parse_hunks(c, &path)?;
    if hunks.is_empty() && move_to.is_none() {
        return Err(ParseError::other(
            l.no,
            "at least one hunk (`@@` and ` `, `-`, `+` lines)",
            format!("`*** Update File: {path}` has no hunks; add `@@` and the lines to change"),
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
        action: Action::Write {
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
            while h
                .lines
                .last()
                .is_some_and(|l| l.kind == LineKind::Context && l.text.is_empty())
            {
                h.lines.pop();
            }
            if h.lines.is_empty() {
                return Err(ParseError::other(
                    h.line,
                    "hunk lines (` `, `-`, `+`) after `@@`",
                    format!(
                        "this hunk of `{path}` has no lines; add the lines to change after `@@`"
                    ),
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
        if is_header(l.text) {
            break;
        }
        if l.text.trim() == EOF_MARK {
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

    fn hunks(p: &OpPlan, i: usize) -> &Vec<Hunk> {
        match &p.ops[i].action {
            Action::Write {
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
            Action::Write {
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
                action: Action::Delete { verify: None }
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
            matches!(&p.ops[2].action, Action::Write { move_to: Some(m), .. } if m == "src/y.py")
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
            Action::Write {
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
