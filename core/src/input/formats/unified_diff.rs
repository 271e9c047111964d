//! Unified diffs: `git diff`, `git format-patch`, `diff -u` output.
//!
//! A file section is `--- old` and `+++ new` (either may be `/dev/null` for
//! a created or deleted file) followed by `@@ -l,n +l,n @@` hunks. `git`
//! extended headers (`diff --git`, `rename from/to`, `new file mode`,
//! `deleted file mode`) are read, so renames and empty files work; mode
//! changes are ignored; binary patches and copies are refused. `a/` and `b/`
//! prefixes are stripped. Text outside file sections (a commit message, a
//! format-patch signature) is skipped.
//!
//! Hunk line counts end a hunk as `git apply` reads them; a hunk cut short
//! by the next header or the end of the text is accepted (counts written by
//! hand are often off). Line numbers are only hints: hunks are located by
//! their lines; a header's line places a hunk without old lines, and picks
//! among several equal places only the one starting exactly there (see
//! [`crate::matching::locate`]).

use super::{text_lines, ParseError, TextLine};
use crate::model::{
    Base, Changes, FileAction, FileOp, Format, Hunk, HunkLine, HunkStyle, LineKind, OpPlan,
};
use crate::printer;

/// A parsed `@@ -a,b +c,d @@` header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RangeHeader {
    pub(crate) old_start: usize,
    pub(crate) old_len: usize,
    pub(crate) new_start: usize,
    pub(crate) new_len: usize,
}

fn range(s: &str) -> Option<(usize, usize)> {
    match s.split_once(',') {
        Some((a, b)) => Some((a.parse().ok()?, b.parse().ok()?)),
        None => Some((s.parse().ok()?, 1)),
    }
}

/// Parses `@@ -a[,b] +c[,d] @@[ section]`.
pub(crate) fn range_header(line: &str) -> Option<RangeHeader> {
    let rest = line.strip_prefix("@@ -")?;
    let (old, rest) = rest.split_once(' ')?;
    let rest = rest.strip_prefix('+')?;
    let (new, rest) = rest.split_once(' ').unwrap_or((rest, ""));
    if !(rest.starts_with("@@") || (rest.is_empty() && new.ends_with("@@"))) {
        return None;
    }
    let (old_start, old_len) = range(old)?;
    let (new_start, new_len) = range(new.trim_end_matches('@'))?;
    Some(RangeHeader {
        old_start,
        old_len,
        new_start,
        new_len,
    })
}

/// Whether the text looks like a unified diff: a file header, a
/// `diff --git` line, or a `@@ -l,n +l,n @@` hunk header (so that a diff
/// missing a header is reported by this parser, at the right line).
pub(crate) fn looks_like(lines: &[TextLine<'_>]) -> bool {
    lines.windows(2).any(|w| {
        w[0].text.starts_with("--- ")
            && (w[1].text.starts_with("+++ ") || w[1].text.starts_with("@@ -"))
    }) || lines
        .iter()
        .any(|l| l.text.starts_with("diff --git ") || range_header(l.text).is_some())
}

/// Undoes git's C-style quoting of a path (`"a/caf\303\251.txt"`).
fn unquote(s: &str) -> Option<String> {
    let inner = s.strip_prefix('"')?.strip_suffix('"')?;
    let mut out: Vec<u8> = Vec::new();
    let b = inner.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' {
            out.push(b[i]);
            i += 1;
            continue;
        }
        let c = *b.get(i + 1)?;
        i += 2;
        out.push(match c {
            b'n' => b'\n',
            b't' => b'\t',
            b'r' => b'\r',
            b'a' => 7,
            b'b' => 8,
            b'f' => 12,
            b'v' => 11,
            b'0'..=b'7' => {
                let digits = &b[i - 1..(i + 2).min(b.len())];
                if digits.len() != 3 || !digits.iter().all(|d| (b'0'..=b'7').contains(d)) {
                    return None;
                }
                i += 2;
                let v = u32::from(digits[0] - b'0') * 64
                    + u32::from(digits[1] - b'0') * 8
                    + u32::from(digits[2] - b'0');
                u8::try_from(v).ok()?
            }
            other => other,
        });
    }
    String::from_utf8(out).ok()
}

/// The path of a `---`/`+++` line (`None` for `/dev/null`).
fn header_path(raw: &str) -> Option<String> {
    let raw = raw.trim_end();
    let p = if raw.starts_with('"') {
        match raw
            .find("\"\t")
            .map(|i| &raw[..=i])
            .or(Some(raw))
            .and_then(unquote)
        {
            Some(p) => p,
            None => raw.to_string(),
        }
    } else {
        // A tab starts the timestamp of `diff -u`.
        raw.split('\t').next().unwrap_or(raw).to_string()
    };
    (p != "/dev/null").then_some(p)
}

/// What the `diff --git` extended headers said.
#[derive(Debug, Default)]
struct Git {
    line: usize,
    a: Option<String>,
    b: Option<String>,
    rename_from: Option<String>,
    rename_to: Option<String>,
    new_file: bool,
    deleted: bool,
    /// The line of a mode that is not a regular file's (a symbolic link,
    /// `120000`, or a submodule, `160000`): such a section is refused.
    not_regular: Option<usize>,
}

fn strip(p: String, prefix: &str, git: bool, other_has: bool) -> String {
    if git || other_has {
        p.strip_prefix(prefix).map(str::to_string).unwrap_or(p)
    } else {
        p
    }
}

/// `diff --git a/x b/y`: the two paths (without their `a/` and `b/`), when
/// they can be split unambiguously.
fn git_paths(rest: &str) -> (Option<String>, Option<String>) {
    let bare = |p: &str, pre: &str| p.strip_prefix(pre).unwrap_or(p).to_string();
    if let Some(inner) = rest.strip_prefix('"') {
        if let Some(end) = inner.find("\" ").map(|i| i + 2) {
            let a = unquote(&rest[..end]);
            let b = rest[end + 1..].trim();
            let b = if b.starts_with('"') {
                unquote(b)
            } else {
                Some(b.to_string())
            };
            return (a.map(|a| bare(&a, "a/")), b.map(|b| bare(&b, "b/")));
        }
        return (None, None);
    }
    // Unquoted, the names may hold spaces and ` b/`: as git does, the
    // split is where the two names are the same (`a/x b/y b/x b/y` names
    // `x b/y`, not `x`); with different names (a rename), only a header
    // with one place to split names them. Without prefixes
    // (`--no-prefix`), the one space between two equal halves, the names
    // whole (`a/x a/x` names `a/x`).
    let splits: Vec<usize> = rest.match_indices(" b/").map(|(i, _)| i).collect();
    let same = |i: usize, pre: (&str, &str)| {
        rest[..i].strip_prefix(pre.0) == rest[i + 1..].strip_prefix(pre.1)
            && rest[..i].starts_with(pre.0)
    };
    let prefixed = splits
        .iter()
        .copied()
        .find(|&i| same(i, ("a/", "b/")))
        .or_else(|| (splits.len() == 1).then(|| splits[0]));
    if let Some(i) = prefixed {
        return (
            Some(bare(&rest[..i], "a/")),
            Some(bare(&rest[i + 1..], "b/")),
        );
    }
    let i = rest.len() / 2;
    match splits.is_empty()
        && rest.len() % 2 == 1
        && rest.as_bytes()[i] == b' '
        && same(i, ("", ""))
    {
        true => (Some(rest[..i].to_string()), Some(rest[i + 1..].to_string())),
        false => (None, None),
    }
}

/// Which of two differing names a non-git diff means: fewest components,
/// then shortest base name, then shortest (as `patch` chooses).
fn pick_name(old: String, new: String) -> String {
    let key = |p: &str| {
        (
            p.split('/').count(),
            p.rsplit('/').next().unwrap_or(p).len(),
            p.len(),
        )
    };
    if key(&new) <= key(&old) {
        new
    } else {
        old
    }
}

struct Parser<'a, 'b> {
    lines: &'b [TextLine<'a>],
    i: usize,
}

impl Parser<'_, '_> {
    fn at(&self, j: usize) -> Option<&str> {
        self.lines.get(j).map(|l| l.text)
    }

    fn is_file_header(&self, j: usize) -> bool {
        self.at(j).is_some_and(|t| t.starts_with("--- "))
            && self.at(j + 1).is_some_and(|t| t.starts_with("+++ "))
    }

    fn is_boundary(&self, j: usize) -> bool {
        self.at(j)
            .is_some_and(|t| t.starts_with("@@ ") || t.starts_with("diff --git "))
            || self.is_file_header(j)
    }

    /// Whether the lines from the parser's line on, read as hunk lines,
    /// supply exactly `old_left` old and `new_left` new lines before an
    /// `@@`, a `diff --git` line, a line that is no hunk line, or the end.
    fn counts_hold(&self, mut old_left: usize, mut new_left: usize) -> bool {
        let mut j = self.i;
        while old_left > 0 || new_left > 0 {
            let Some(t) = self.at(j) else {
                return false;
            };
            match t.as_bytes().first() {
                None | Some(b' ') => {
                    old_left = old_left.saturating_sub(1);
                    new_left = new_left.saturating_sub(1);
                }
                Some(b'-') => old_left = old_left.saturating_sub(1),
                Some(b'+') => new_left = new_left.saturating_sub(1),
                Some(b'\\') => {}
                _ => return false,
            }
            j += 1;
        }
        true
    }

    /// Parses one hunk starting at its `@@` line.
    fn hunk(&mut self) -> Result<(Hunk, RangeHeader), ParseError> {
        let hl = self.lines[self.i];
        let h = range_header(hl.text).ok_or_else(|| {
            ParseError::new(
                hl.no,
                "a hunk header `@@ -<line>,<count> +<line>,<count> @@`",
                hl.text,
            )
        })?;
        self.i += 1;
        let (mut old_left, mut new_left) = (h.old_len, h.new_len);
        let mut lines: Vec<HunkLine> = Vec::new();
        let marker = |lines: &mut Vec<HunkLine>, l: &TextLine<'_>| -> Result<(), ParseError> {
            match lines.last_mut() {
                Some(last) => {
                    last.no_eol = true;
                    Ok(())
                }
                None => Err(ParseError::new(
                    l.no,
                    "a hunk line before `\\ No newline at end of file`",
                    l.text,
                )),
            }
        };
        // Whether the header's counts were found to hold to their end.
        let mut counts_hold = false;
        while old_left > 0 || new_left > 0 {
            if self.i >= self.lines.len() {
                break;
            }
            if self.is_boundary(self.i) {
                // `--- x` / `+++ y` inside a hunk whose counts hold to their
                // end are a removed and an added line, as git reads them: a
                // diff line never becomes a file header. Only a hunk whose
                // counts cannot hold (a model miscounted) ends at them.
                counts_hold = counts_hold
                    || (self.is_file_header(self.i) && self.counts_hold(old_left, new_left));
                if !counts_hold {
                    break;
                }
            }
            let l = self.lines[self.i];
            let (kind, text) = match l.text.as_bytes().first() {
                None => (LineKind::Context, ""),
                Some(b' ') => (LineKind::Context, &l.text[1..]),
                Some(b'-') => (LineKind::Remove, &l.text[1..]),
                Some(b'+') => (LineKind::Add, &l.text[1..]),
                Some(b'\\') => {
                    marker(&mut lines, &l)?;
                    self.i += 1;
                    continue;
                }
                _ => {
                    return Err(ParseError::new(
                        l.no,
                        printer::hunk_line_expected(hl.no, old_left, new_left),
                        l.text,
                    ))
                }
            };
            if kind != LineKind::Add {
                old_left = old_left.saturating_sub(1);
            }
            if kind != LineKind::Remove {
                new_left = new_left.saturating_sub(1);
            }
            lines.push(HunkLine {
                kind,
                text: text.to_string(),
                cr: l.cr,
                no_eol: false,
            });
            self.i += 1;
        }
        if let Some(l) = self.lines.get(self.i) {
            if l.text.starts_with('\\') {
                marker(&mut lines, l)?;
                self.i += 1;
            }
        }
        if lines.is_empty() {
            return Err(ParseError::other(
                hl.no,
                "hunk lines after the `@@` header",
                "this hunk has no lines",
            ));
        }
        let at_eof = lines.iter().any(|l| l.kind != LineKind::Add && l.no_eol);
        Ok((
            Hunk {
                anchors: Vec::new(),
                lines,
                at_eof,
                old_start: Some(h.old_start),
                line: hl.no,
                style: HunkStyle::Unified,
            },
            h,
        ))
    }
}

/// Parses a unified diff into a plan.
pub fn parse(text: &str) -> Result<OpPlan, ParseError> {
    let lines = text_lines(text);
    let mut p = Parser {
        lines: &lines,
        i: 0,
    };
    let mut ops: Vec<FileOp> = Vec::new();
    let mut git: Option<Git> = None;
    // The last hunk's header line, to explain stray hunk lines after it.
    let mut after_hunk: Option<(usize, RangeHeader)> = None;

    let flush_git = |git: &mut Option<Git>, ops: &mut Vec<FileOp>| -> Result<(), ParseError> {
        if let Some(g) = git.take() {
            if let Some(op) = git_only_op(g)? {
                ops.push(op);
            }
        }
        Ok(())
    };

    while p.i < lines.len() {
        let l = lines[p.i];
        let t = l.text;
        if let Some(rest) = t.strip_prefix("diff --git ") {
            flush_git(&mut git, &mut ops)?;
            let (a, b) = git_paths(rest);
            git = Some(Git {
                line: l.no,
                a,
                b,
                ..Git::default()
            });
            after_hunk = None;
            p.i += 1;
            continue;
        }
        if t == "-- " {
            // A format-patch signature: the rest is not part of the diff.
            break;
        }
        if let Some(g) = git.as_mut() {
            git_header_line(g, l)?;
        }
        refuse_binary(l)?;
        if p.is_file_header(p.i) {
            let (op, last) = file_section(&mut p, git.take())?;
            after_hunk = last.or(after_hunk);
            ops.push(op);
            continue;
        }
        stray_line(&p, after_hunk)?;
        after_hunk = None;
        p.i += 1;
    }
    flush_git(&mut git, &mut ops)?;
    if ops.is_empty() {
        return Err(ParseError::other(
            1,
            "a file header `--- a/<path>`, `+++ b/<path>` and `@@` hunks",
            "the diff changes no file",
        ));
    }
    Ok(OpPlan {
        format: Format::UnifiedDiff,
        ops,
    })
}

/// A line of a `diff --git` section's extended header: renames, new and
/// deleted files noted in `g`; copies refused.
fn git_header_line(g: &mut Git, l: TextLine<'_>) -> Result<(), ParseError> {
    let t = l.text;
    if let Some(v) = t.strip_prefix("rename from ") {
        g.rename_from = Some(v.to_string());
    } else if let Some(v) = t.strip_prefix("rename to ") {
        g.rename_to = Some(v.to_string());
    } else if let Some(m) = t.strip_prefix("new file mode ") {
        g.new_file = true;
        note_mode(g, l.no, m);
    } else if let Some(m) = t.strip_prefix("deleted file mode ") {
        g.deleted = true;
        note_mode(g, l.no, m);
    } else if let Some(m) = t
        .strip_prefix("old mode ")
        .or_else(|| t.strip_prefix("new mode "))
    {
        note_mode(g, l.no, m);
    } else if let Some(rest) = t.strip_prefix("index ") {
        if let Some((_, m)) = rest.split_once(' ') {
            note_mode(g, l.no, m);
        }
    } else if t.starts_with("copy from ") || t.starts_with("copy to ") {
        return Err(ParseError::other(
            l.no,
            "a change, rename, creation or deletion",
            "file copies are not supported; add the new file with `--- /dev/null`",
        ));
    }
    Ok(())
}

/// Git writes a symbolic link as a file whose text is the link's target,
/// and a submodule as a commit: applied as text, either would become a
/// regular file holding that text (or edit the file a link points to), so
/// a section with such a mode is refused.
fn note_mode(g: &mut Git, no: usize, mode: &str) {
    let m = mode.trim();
    if m == "120000" || m == "160000" {
        g.not_regular.get_or_insert(no);
    }
}

/// A section whose extended header the engine cannot follow: a symbolic
/// link or a submodule, or headers that contradict each other or the
/// section's `---`/`+++` lines (a file both created and deleted or renamed,
/// a new file whose old side is not `/dev/null`). `sides` says which of the
/// `---`/`+++` names are present, when the section has them.
fn refuse_odd_header(g: &Git, sides: Option<(bool, bool)>) -> Result<(), ParseError> {
    if let Some(no) = g.not_regular {
        return Err(ParseError::other(
            no,
            "a regular file's mode (100644 or 100755)",
            "symbolic links (mode 120000) and submodules (160000) are not supported",
        ));
    }
    let renamed = g.rename_from.is_some() || g.rename_to.is_some();
    let contradicts = (g.new_file && (g.deleted || renamed))
        || (g.deleted && renamed)
        || sides.is_some_and(|(old, new)| (g.new_file && old) || (g.deleted && new));
    if contradicts {
        return Err(ParseError::other(
            g.line,
            "one of `new file mode`, `deleted file mode` or `rename from`/`rename to`, matching the `---`/`+++` lines",
            "the section's headers contradict each other",
        ));
    }
    Ok(())
}

/// Binary patches are refused.
fn refuse_binary(l: TextLine<'_>) -> Result<(), ParseError> {
    let t = l.text;
    if t.starts_with("GIT binary patch")
        || (t.starts_with("Binary files ") && t.ends_with(" differ"))
    {
        return Err(ParseError::other(
            l.no,
            "a text hunk",
            "binary patches are not supported",
        ));
    }
    Ok(())
}

/// The file section whose `---`/`+++` header starts at the parser's line
/// (with its `diff --git` header, if any): its operation, and its last
/// hunk's header line and ranges.
fn file_section(
    p: &mut Parser<'_, '_>,
    git: Option<Git>,
) -> Result<(FileOp, Option<(usize, RangeHeader)>), ParseError> {
    let (l, plus) = (p.lines[p.i], p.lines[p.i + 1]);
    let old = header_path(&l.text[4..]);
    let new = header_path(&plus.text[4..]);
    let is_git = git.is_some();
    let (old_has, new_has) = (
        old.as_deref().is_none_or(|s| s.starts_with("a/")),
        new.as_deref().is_none_or(|s| s.starts_with("b/")),
    );
    let both = old_has && new_has;
    let old = old.map(|s| strip(s, "a/", is_git, both));
    let new = new.map(|s| strip(s, "b/", is_git, both));
    p.i += 2;
    let mut hunks = Vec::new();
    let mut last = None;
    while p.at(p.i).is_some_and(|t| t.starts_with("@@")) {
        let (h, r) = p.hunk()?;
        last = Some((h.line, r));
        hunks.push(h);
    }
    if let Some(g) = &git {
        refuse_odd_header(g, Some((old.is_some(), new.is_some())))?;
        same_names(g, (old.as_deref(), new.as_deref()), l.no)?;
    }
    let op = file_op(old, new, hunks, git.as_ref(), l.no, plus.no)?;
    Ok((op, last))
}

/// A `---`/`+++` name that contradicts its `diff --git` header (a section
/// headed `a/x b/x` whose lines say `--- a/y`): the diff names two files
/// for one change, and which is meant is not certain (`git apply` refuses
/// it too). Renames name theirs in `rename from`/`rename to`.
fn same_names(
    g: &Git,
    (old, new): (Option<&str>, Option<&str>),
    line: usize,
) -> Result<(), ParseError> {
    let from = g.rename_from.as_deref().or(g.a.as_deref());
    let to = g.rename_to.as_deref().or(g.b.as_deref());
    let differs = |header: Option<&str>, named: Option<&str>| matches!((header, named), (Some(h), Some(n)) if h != n);
    if differs(from, old) || differs(to, new) {
        return Err(ParseError::other(
            line,
            "`---` and `+++` naming the files of their `diff --git` header",
            "the `---`/`+++` lines name another file than the `diff --git` header above them",
        ));
    }
    Ok(())
}

/// A line outside any file section that belongs in one: a `---` line
/// without its `+++`, a hunk without a file header, or a hunk line after a
/// hunk that already has every line its header counts.
fn stray_line(
    p: &Parser<'_, '_>,
    after_hunk: Option<(usize, RangeHeader)>,
) -> Result<(), ParseError> {
    let l = p.lines[p.i];
    let t = l.text;
    if t.starts_with("--- ") && p.at(p.i + 1).is_some_and(|n| n.starts_with("@@")) {
        let n = p.lines[p.i + 1];
        return Err(ParseError::new(
            n.no,
            "`+++ b/<path>` after the `---` line",
            n.text,
        ));
    }
    if t.starts_with("@@") {
        return Err(ParseError::new(
            l.no,
            "a file header (`--- a/<path>` and `+++ b/<path>`) before the hunk",
            t,
        ));
    }
    if let Some((hl, r)) = after_hunk {
        if t.starts_with(' ') || t.starts_with('+') || t.starts_with('-') {
            return Err(ParseError::other(
                l.no,
                "`@@`, a file header or the end of the diff",
                printer::hunk_overfull(hl, (r.old_start, r.old_len), (r.new_start, r.new_len)),
            ));
        }
    }
    Ok(())
}

/// The operation of a `diff --git` section without `---`/`+++` lines
/// (`None`: none, as for a mode change alone). A file created or deleted
/// whose name the header does not give for certain is an error, not a
/// section left out.
fn git_only_op(g: Git) -> Result<Option<FileOp>, ParseError> {
    refuse_odd_header(&g, None)?;
    let unnamed = || {
        ParseError::other(
            g.line,
            "`diff --git a/<path> b/<path>` with the same path twice",
            "the header's two paths cannot be told apart; add `--- a/<path>` and `+++ b/<path>` lines",
        )
    };
    if let (Some(from), Some(to)) = (g.rename_from.clone(), g.rename_to.clone()) {
        return Ok(Some(FileOp {
            path: from,
            line: g.line,
            action: FileAction::Write {
                base: Base::Existing,
                changes: Changes::None,
                move_to: Some(to),
            },
        }));
    }
    if g.new_file {
        return Ok(Some(FileOp {
            path: g.b.clone().ok_or_else(unnamed)?,
            line: g.line,
            action: FileAction::Write {
                base: Base::New {
                    text: String::new(),
                    replace: false,
                },
                changes: Changes::None,
                move_to: None,
            },
        }));
    }
    if g.deleted {
        return Ok(Some(FileOp {
            path: g.a.clone().ok_or_else(unnamed)?,
            line: g.line,
            action: FileAction::Delete {
                verify: Some(Vec::new()),
            },
        }));
    }
    Ok(None)
}

fn file_op(
    old: Option<String>,
    new: Option<String>,
    hunks: Vec<Hunk>,
    git: Option<&Git>,
    line: usize,
    plus_line: usize,
) -> Result<FileOp, ParseError> {
    match (old, new) {
        (None, None) => Err(ParseError::other(
            line,
            "a path on `---` or `+++`",
            "both sides are /dev/null",
        )),
        (None, Some(path)) => {
            let mut text = String::new();
            for h in &hunks {
                for l in &h.lines {
                    if l.kind != LineKind::Add {
                        return Err(ParseError::other(
                            h.line,
                            "only `+` lines in a new file's hunk",
                            printer::created_only_adds(&path),
                        ));
                    }
                    text.push_str(&l.text);
                    if !l.no_eol {
                        text.push_str(if l.cr { "\r\n" } else { "\n" });
                    }
                }
            }
            Ok(FileOp {
                path,
                line,
                action: FileAction::Write {
                    base: Base::New {
                        text,
                        replace: false,
                    },
                    changes: Changes::None,
                    move_to: None,
                },
            })
        }
        (Some(path), None) => {
            if let Some(h) = hunks
                .iter()
                .find(|h| h.lines.iter().any(|l| l.kind == LineKind::Add))
            {
                return Err(ParseError::other(
                    h.line,
                    "only `-` lines in a deleted file's hunk",
                    printer::deleted_only_removes(&path),
                ));
            }
            Ok(FileOp {
                path,
                line,
                action: FileAction::Delete {
                    verify: Some(hunks),
                },
            })
        }
        (Some(old), Some(new)) => {
            let renamed = git.is_some() && old != new;
            let path = if renamed || git.is_some() {
                old.clone()
            } else {
                pick_name(old.clone(), new.clone())
            };
            if hunks.is_empty() && !renamed {
                return Err(ParseError::other(
                    plus_line + 1,
                    "a hunk header `@@ -<line>,<count> +<line>,<count> @@`",
                    printer::no_hunks(&path),
                ));
            }
            let changes = if hunks.is_empty() {
                Changes::None
            } else {
                Changes::Hunks(hunks)
            };
            Ok(FileOp {
                path,
                line,
                action: FileAction::Write {
                    base: Base::Existing,
                    changes,
                    move_to: renamed.then_some(new),
                },
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hunk lines that read like file headers (`--- a/x` is a removed line
    /// `-- a/x`, `+++ b/y` an added `++ b/y`, ` diff --git` a context line)
    /// stay the file's lines: the counts in `@@` say where a hunk ends.
    #[test]
    fn hunk_lines_never_become_file_headers() {
        let t = "--- a/x.txt\n+++ b/x.txt\n@@ -1,3 +1,3 @@\n keep\n--- a/victim.txt\n+++ b/planted.sh\n diff --git a/v b/v\n";
        let p = parse(t).unwrap();
        assert_eq!(p.ops.len(), 1, "{p:?}");
        assert_eq!(p.ops[0].path, "x.txt");
        let FileAction::Write {
            changes: Changes::Hunks(h),
            move_to: None,
            ..
        } = &p.ops[0].action
        else {
            panic!("{p:?}")
        };
        let kinds: Vec<(LineKind, &str)> = h[0]
            .lines
            .iter()
            .map(|l| (l.kind, l.text.as_str()))
            .collect();
        assert_eq!(
            kinds,
            [
                (LineKind::Context, "keep"),
                (LineKind::Remove, "-- a/victim.txt"),
                (LineKind::Add, "++ b/planted.sh"),
                (LineKind::Context, "diff --git a/v b/v"),
            ]
        );
    }

    #[test]
    fn range_headers() {
        assert_eq!(
            range_header("@@ -1,3 +1,4 @@ fn x()"),
            Some(RangeHeader {
                old_start: 1,
                old_len: 3,
                new_start: 1,
                new_len: 4
            })
        );
        assert_eq!(
            range_header("@@ -5 +5,0 @@"),
            Some(RangeHeader {
                old_start: 5,
                old_len: 1,
                new_start: 5,
                new_len: 0
            })
        );
        assert_eq!(
            range_header("@@ -0,0 +1 @@"),
            Some(RangeHeader {
                old_start: 0,
                old_len: 0,
                new_start: 1,
                new_len: 1
            })
        );
        assert_eq!(range_header("@@ def f():"), None);
        assert_eq!(range_header("@@ -x +1 @@"), None);
    }

    #[test]
    fn git_diff_with_add_delete_rename_and_no_newline() {
        let t = "commit message line\n\
diff --git a/src/a.txt b/src/a.txt\nindex 1..2 100644\n--- a/src/a.txt\n+++ b/src/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n\\ No newline at end of file\n+TWO\n\
diff --git a/new.txt b/new.txt\nnew file mode 100644\n--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+hi\n\
diff --git a/gone.txt b/gone.txt\ndeleted file mode 100644\n--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n\
diff --git a/old.txt b/moved/new.txt\nsimilarity index 100%\nrename from old.txt\nrename to moved/new.txt\n\
diff --git a/empty b/empty\nnew file mode 100644\nindex 0000000..e69de29\n";
        let p = parse(t).unwrap();
        assert_eq!(p.format, Format::UnifiedDiff);
        assert_eq!(p.ops.len(), 5, "{p:#?}");
        let FileAction::Write {
            changes: Changes::Hunks(h),
            ..
        } = &p.ops[0].action
        else {
            panic!()
        };
        assert!(h[0].at_eof);
        assert!(h[0].lines[1].no_eol && !h[0].lines[2].no_eol);
        assert_eq!(h[0].old_start, Some(1));
        assert_eq!(
            p.ops[1].action,
            FileAction::Write {
                base: Base::New {
                    text: "hi\n".into(),
                    replace: false
                },
                changes: Changes::None,
                move_to: None
            }
        );
        assert!(matches!(&p.ops[2].action, FileAction::Delete { verify: Some(h) } if h.len() == 1));
        assert_eq!(p.ops[3].path, "old.txt");
        assert!(
            matches!(&p.ops[3].action, FileAction::Write { move_to: Some(m), changes: Changes::None, .. } if m == "moved/new.txt")
        );
        assert_eq!(p.ops[4].path, "empty");
    }

    /// A header-only section (an empty file added or deleted) is named by
    /// its `diff --git` line alone: a name holding ` b/` is split where the
    /// two halves are the same, as git splits it (`x b/y`, not `x`, whose
    /// deletion would remove another file); a header that cannot be split
    /// is an error, not a section left out.
    #[test]
    fn header_only_sections_name_the_file_git_names() {
        let name = |t: &str| -> Vec<(String, bool)> {
            parse(t)
                .unwrap()
                .ops
                .iter()
                .map(|o| {
                    (
                        o.path.clone(),
                        matches!(o.action, FileAction::Delete { .. }),
                    )
                })
                .collect()
        };
        let del = "diff --git a/x b/y b/x b/y\ndeleted file mode 100644\nindex e69de29..0000000\n";
        assert_eq!(name(del), [("x b/y".to_string(), true)]);
        let add = "diff --git a/x b/y b/x b/y\nnew file mode 100644\nindex 0000000..e69de29\n";
        assert_eq!(name(add), [("x b/y".to_string(), false)]);
        let no_prefix = "diff --git my file my file\nnew file mode 100644\n";
        assert_eq!(name(no_prefix), [("my file".to_string(), false)]);
        // Without prefixes a name is whole, `a/` or `b/` and all.
        let del = "diff --git a/x a/x\ndeleted file mode 100644\n";
        assert_eq!(name(del), [("a/x".to_string(), true)]);
        // `---`/`+++` lines naming another file than their header: refused.
        let e = parse("diff --git a/x b/x\ndeleted file mode 100644\n--- a/y\n+++ /dev/null\n@@ -1 +0,0 @@\n-y\n")
            .unwrap_err();
        assert!(e.message.contains("another file"), "{}", e.message);
        // Two different names and two places to split: no name is certain.
        let e = parse("diff --git a/x b/y b/z\ndeleted file mode 100644\n").unwrap_err();
        assert!(e.message.contains("cannot be told apart"), "{}", e.message);
        // A mode change alone changes no content: nothing to do, as before.
        assert!(parse("diff --git a/x b/x\nold mode 100644\nnew mode 100755\n").is_err());
    }

    /// A symbolic link or a submodule is not text to write: `git diff`
    /// shows a link as a file holding its target, and applied as text that
    /// became a regular file named `l` holding `x.txt`.
    #[test]
    fn links_and_submodules_are_refused() {
        let add = "diff --git a/l b/l\nnew file mode 120000\nindex 0000000..1111111\n--- /dev/null\n+++ b/l\n@@ -0,0 +1 @@\n+x.txt\n\\ No newline at end of file\n";
        let retarget = "diff --git a/l b/l\nindex 1111111..2222222 120000\n--- a/l\n+++ b/l\n@@ -1 +1 @@\n-x.txt\n\\ No newline at end of file\n+y.txt\n\\ No newline at end of file\n";
        let delete = "diff --git a/l b/l\ndeleted file mode 120000\nindex 1111111..0000000\n";
        let sub = "diff --git a/m b/m\nnew file mode 160000\nindex 0000000..abc\n--- /dev/null\n+++ b/m\n@@ -0,0 +1 @@\n+Subproject commit abc\n";
        let to_link = "diff --git a/l b/l\nold mode 100644\nnew mode 120000\n--- a/l\n+++ b/l\n@@ -1 +1 @@\n-hi\n+x.txt\n";
        for (d, line) in [(add, 2), (retarget, 2), (delete, 2), (sub, 2), (to_link, 3)] {
            let e = parse(d).unwrap_err();
            assert_eq!(e.line, line, "{d}");
            assert!(e.message.contains("120000"), "{}", e.message);
        }
        // A regular file's modes are not refused (a mode change is ignored).
        let exec = "diff --git a/x b/x\nold mode 100644\nnew mode 100755\nindex 1..2 100755\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n";
        assert_eq!(parse(exec).unwrap().ops.len(), 1);
    }

    /// Headers that contradict each other name no one change: a file both
    /// deleted and renamed, created and deleted, or created while its old
    /// side names a file.
    #[test]
    fn contradicting_headers_are_refused() {
        for d in [
            "diff --git a/x b/y\ndeleted file mode 100644\nrename from x\nrename to y\n",
            "diff --git a/x b/x\nnew file mode 100644\ndeleted file mode 100644\n",
            "diff --git a/x b/y\nnew file mode 100644\nrename from x\nrename to y\n--- a/x\n+++ b/y\n@@ -1 +1 @@\n-a\n+b\n",
            "diff --git a/x b/x\nnew file mode 100644\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n",
            "diff --git a/x b/x\ndeleted file mode 100644\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n",
        ] {
            let e = parse(d).unwrap_err();
            assert_eq!(e.line, 1, "{d}");
            assert!(e.message.contains("contradict"), "{}", e.message);
        }
    }

    #[test]
    fn plain_diff_u_with_timestamps_and_quoted_paths() {
        let t = "--- f.txt.orig\t2024-01-01 00:00:00\n+++ f.txt\t2024-01-02 00:00:00\n@@ -1 +1 @@\n-a\n+b\n\
--- \"a/caf\\303\\251.txt\"\n+++ \"b/caf\\303\\251.txt\"\n@@ -1 +1 @@\n-x\n+y\n";
        let p = parse(t).unwrap();
        assert_eq!(p.ops[0].path, "f.txt");
        assert_eq!(p.ops[1].path, "café.txt");
        // An octal escape above \377 is not a byte: the path is taken as written.
        assert_eq!(header_path("\"a/\\777\""), Some("\"a/\\777\"".to_string()));
    }

    #[test]
    fn short_counts_are_hints_long_counts_are_errors() {
        // Counts too large: cut short by the next file header.
        let t =
            "--- a/x\n+++ b/x\n@@ -1,9 +1,9 @@\n-a\n+b\n--- a/y\n+++ b/y\n@@ -1 +1 @@\n-c\n+d\n";
        assert_eq!(parse(t).unwrap().ops.len(), 2);
        // Counts too small: a stray hunk line.
        let t = "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n+c\n";
        let e = parse(t).unwrap_err();
        assert_eq!(e.line, 6, "{}", e.message);
    }

    #[test]
    fn malformed() {
        let cases: &[(&str, usize)] = &[
            ("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\ntrailing words\n", 0),
            ("--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-a\n*b\n", 5),
            ("--- a/x\n+++ b/x\n@@ bogus @@\n-a\n", 3),
            ("--- a/x\n+++ b/x\n", 3),
            ("--- a/x\n@@ -1 +1 @@\n-a\n+b\n", 2),
            ("@@ -1 +1 @@\n-a\n+b\n", 1),
            ("--- /dev/null\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n", 3),
            ("diff --git a/x b/y\ncopy from x\ncopy to y\n", 2),
            ("diff --git a/x b/x\nBinary files a/x and b/x differ\n", 2),
            ("nothing here\n", 1),
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
