//! The mixed line-endings mode of the replay (`PFT_REPLAY_EOL=mixed`, and
//! a slice in the suite): this repository's real history, with chosen
//! files given mixed endings, as C# projects and files edited on several
//! systems have them, without committing anyone else's code.
//!
//! The transform is deterministic and consistent across commits: a line's
//! ending is chosen from its file's path and its text, so a line keeps its
//! ending while it is unchanged, a changed line may change its ending (as
//! real mixed files do), and added lines get theirs the same way. Each
//! commit's diff is then made from the transformed texts (each line with
//! its own bytes, as `git diff` shows them). Two shapes of real history are
//! added as changes of their own, from every few real ones: a commit that
//! converts a CRLF file to LF along with its change, and a commit that
//! only re-indents the lines another one added (whose edits, sent again,
//! must not be indented a second time).

use super::edits::lines;
use super::git::Changed;

/// FNV-1a, enough to spread paths and lines.
fn hash(parts: &[&str]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in parts {
        for b in p.bytes().chain([0xff]) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

/// Whether the mode gives `path` mixed endings (two files in three).
fn chosen(path: &str) -> bool {
    !hash(&[path]).is_multiple_of(3)
}

/// `text` with mixed endings: each line CRLF or LF by its path and text.
fn mixed(path: &str, text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 40);
    for l in lines(text) {
        match l.strip_suffix('\n') {
            Some(body) if hash(&[path, body]) % 5 < 2 => {
                out.push_str(body);
                out.push_str("\r\n");
            }
            _ => out.push_str(l),
        }
    }
    out
}

/// The commit's changes with chosen files given mixed endings (files that
/// have a CR already are left as they are).
pub fn transform(files: &[Changed]) -> Vec<Changed> {
    files
        .iter()
        .map(|c| {
            let has_cr = [&c.old, &c.new]
                .iter()
                .any(|t| t.as_deref().is_some_and(|t| t.contains('\r')));
            if has_cr || !chosen(&c.path) {
                return c.clone();
            }
            let m = |t: &Option<String>| t.as_deref().map(|t| mixed(&c.path, t));
            Changed {
                old: m(&c.old),
                new: m(&c.new),
                ..c.clone()
            }
        })
        .collect()
}

/// The changes' diff as `git diff` prints it (three lines of context,
/// every line with its own bytes).
pub fn diff(files: &[&Changed]) -> String {
    let mut out = String::new();
    for c in files {
        let (old, new) = (
            c.old.as_deref().unwrap_or(""),
            c.new.as_deref().unwrap_or(""),
        );
        if old == new && c.status == 'M' {
            continue;
        }
        let (a, b) = match c.status {
            'A' => ("/dev/null".to_string(), format!("b/{}", c.path)),
            'D' => (format!("a/{}", c.path), "/dev/null".to_string()),
            _ => (format!("a/{}", c.path), format!("b/{}", c.path)),
        };
        out.push_str(&format!("diff --git a/{0} b/{0}\n", c.path));
        match c.status {
            'A' => out.push_str("new file mode 100644\n"),
            'D' => out.push_str("deleted file mode 100644\n"),
            _ => {}
        }
        out.push_str(&format!("--- {a}\n+++ {b}\n"));
        out.push_str(&hunks_of(old, new));
    }
    out
}

/// The hunks of `old` to `new` as `git diff` prints them: lines end at LF
/// alone (a lone CR is a byte of its line, where `similar`'s own line split
/// would end it), three lines of context, `\ No newline at end of file`
/// after a last line without one.
fn hunks_of(old: &str, new: &str) -> String {
    let (ol, nl): (Vec<&str>, Vec<&str>) = (
        old.split_inclusive('\n').collect(),
        new.split_inclusive('\n').collect(),
    );
    let ops = similar::capture_diff_slices(similar::Algorithm::Myers, &ol, &nl);
    let mut out = String::new();
    let line = |out: &mut String, mark: char, l: &str| {
        out.push(mark);
        out.push_str(l);
        if !l.ends_with('\n') {
            out.push_str("\n\\ No newline at end of file\n");
        }
    };
    for group in similar::group_diff_ops(ops, 3) {
        let (first, last) = (&group[0], &group[group.len() - 1]);
        let (o, n) = (
            first.old_range().start..last.old_range().end,
            first.new_range().start..last.new_range().end,
        );
        let at = |r: &std::ops::Range<usize>| match r.len() {
            0 => format!("{},0", r.start),
            1 => format!("{}", r.start + 1),
            k => format!("{},{k}", r.start + 1),
        };
        out.push_str(&format!("@@ -{} +{} @@\n", at(&o), at(&n)));
        for op in &group {
            match op {
                similar::DiffOp::Equal { .. } => {
                    op.old_range().for_each(|i| line(&mut out, ' ', ol[i]))
                }
                _ => {
                    op.old_range().for_each(|i| line(&mut out, '-', ol[i]));
                    op.new_range().for_each(|i| line(&mut out, '+', nl[i]));
                }
            }
        }
    }
    out
}

/// The shapes added from a real change of a text file (`M`): the file
/// converted from CRLF to LF by the commit, and the lines the commit added
/// re-indented by a later one. `k` counts the real changes seen.
pub fn shapes(c: &Changed, k: usize) -> Vec<Changed> {
    let (Some(old), Some(new)) = (c.old.as_deref(), c.new.as_deref()) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    if k.is_multiple_of(4) && !old.contains('\r') && old.ends_with('\n') {
        // Before: the file with CRLF throughout; after: the commit's
        // change, LF throughout.
        out.push(Changed {
            old: Some(old.replace('\n', "\r\n")),
            new: Some(new.replace("\r\n", "\n")),
            path: format!("{}.crlf-to-lf", c.path),
            ..c.clone()
        });
    }
    if k % 4 == 2 {
        if let Some(reindented) = reindent_added(old, new) {
            out.push(Changed {
                old: Some(new.to_string()),
                new: Some(reindented),
                path: format!("{}.reindent", c.path),
                ..c.clone()
            });
        }
    }
    out
}

/// `new` with the first run of indented lines the change from `old` added
/// moved 4 columns right (a commit that only re-indents them), if any.
fn reindent_added(old: &str, new: &str) -> Option<String> {
    let (ol, nl) = (lines(old), lines(new));
    let hunks = super::edits::hunks(&ol, &nl);
    let (_, n) = hunks.into_iter().find(|(_, n)| {
        nl[n.clone()]
            .iter()
            .any(|l| l.starts_with([' ', '\t']) && !l.trim().is_empty())
    })?;
    let mut out: Vec<String> = nl.iter().map(|l| l.to_string()).collect();
    for l in &mut out[n] {
        if l.starts_with([' ', '\t']) && !l.trim().is_empty() {
            let pad = if l.starts_with('\t') { "\t" } else { "    " };
            *l = format!("{pad}{l}");
        }
    }
    let s = out.concat();
    (s != new).then_some(s)
}
