//! Unified diffs of planned changes (for dry runs).
//!
//! The common prefix and suffix lines are skipped before diffing, so the cost
//! is proportional to the changed region, not the file: a one-line edit in a
//! 200 MB file diffs a few lines. Over the changed region the Myers diff
//! costs its length times the differences, the square of the region when
//! every line changed (a whole file rewritten: 29 s at 40,000 lines where
//! the write took 14 ms); past [`BUDGET`] it is given up for a coarser
//! diff, still one that turns the old text into the new. Hunks carry three lines of context and the
//! `\ No newline at end of file` marker, in the form `git apply` accepts.

use similar::{group_diff_ops, DiffOp};

/// Context lines around each change.
pub(crate) const CONTEXT: usize = 3;

/// Time the line diff of one file's preview may take before it settles for
/// a coarser one.
pub(crate) const BUDGET: std::time::Duration = std::time::Duration::from_millis(200);

/// Splits into lines, each keeping its `\n` (the last may lack one).
fn lines(text: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let mut at = 0;
    for i in memchr::memchr_iter(b'\n', text) {
        out.push(&text[at..=i]);
        at = i + 1;
    }
    if at < text.len() {
        out.push(&text[at..]);
    }
    out
}

/// A unified diff from `old` to `new`, with `a/<path>` and `b/<path>`
/// headers (`/dev/null` for a created or deleted file). Empty if equal.
pub(crate) fn unified(path: &str, old: Option<&[u8]>, new: Option<&[u8]>) -> String {
    unified_by(path, old, new, std::time::Instant::now() + BUDGET)
}

/// [`unified`], its line diff given up at `deadline` for a coarser one.
fn unified_by(
    path: &str,
    old: Option<&[u8]>,
    new: Option<&[u8]>,
    deadline: std::time::Instant,
) -> String {
    let o = old.unwrap_or(b"");
    let n = new.unwrap_or(b"");
    if old.is_some() == new.is_some() && o == n {
        return String::new();
    }
    // Skip whole common lines at both ends, keeping CONTEXT of them.
    let prefix = common_prefix_lines(o, n);
    let suffix = common_suffix_lines(&o[prefix.0..], &n[prefix.0..]);
    let (pre_bytes, pre_lines) = prefix;
    let (suf_bytes, _) = suffix;
    let o_mid = &o[pre_bytes..o.len() - suf_bytes];
    let n_mid = &n[pre_bytes..n.len() - suf_bytes];
    // Re-include up to CONTEXT lines on each side for the hunk context.
    let before = lines(&o[..pre_bytes]);
    let keep_before = before.len().min(CONTEXT);
    let ctx_before: Vec<&[u8]> = before[before.len() - keep_before..].to_vec();
    let after_o = lines(&o[o.len() - suf_bytes..]);
    let ctx_after: Vec<&[u8]> = after_o.iter().take(CONTEXT).copied().collect();

    let mut ol: Vec<&[u8]> = ctx_before.clone();
    ol.extend(lines(o_mid));
    ol.extend(ctx_after.iter().copied());
    let mut nl: Vec<&[u8]> = ctx_before;
    nl.extend(lines(n_mid));
    nl.extend(ctx_after.iter().copied());
    let offset = pre_lines - keep_before;

    let ops = crate::text::diff_ops::diff(&ol, &nl, Some(deadline));
    let mut out = String::new();
    // data: the --- header
    out.push_str(&format!(
        "--- {}\n",
        if old.is_some() {
            // data: the old path as the diff names it
            format!("a/{path}")
        } else {
            "/dev/null".into()
        }
    ));
    // data: the +++ header
    out.push_str(&format!(
        "+++ {}\n",
        if new.is_some() {
            // data: the new path as the diff names it
            format!("b/{path}")
        } else {
            "/dev/null".into()
        }
    ));
    for group in group_diff_ops(ops, CONTEXT) {
        let (first, last) = (&group[0], &group[group.len() - 1]);
        let os = first.old_range().start;
        let oe = last.old_range().end;
        let ns = first.new_range().start;
        let ne = last.new_range().end;
        // data: a hunk header
        out.push_str(&format!(
            "@@ -{} +{} @@\n",
            range(offset + os, oe - os),
            range(offset + ns, ne - ns)
        ));
        for op in &group {
            match *op {
                DiffOp::Equal { old_index, len, .. } => {
                    for l in &ol[old_index..old_index + len] {
                        push_line(&mut out, ' ', l);
                    }
                }
                DiffOp::Delete {
                    old_index, old_len, ..
                } => {
                    for l in &ol[old_index..old_index + old_len] {
                        push_line(&mut out, '-', l);
                    }
                }
                DiffOp::Insert {
                    new_index, new_len, ..
                } => {
                    for l in &nl[new_index..new_index + new_len] {
                        push_line(&mut out, '+', l);
                    }
                }
                DiffOp::Replace {
                    old_index,
                    old_len,
                    new_index,
                    new_len,
                } => {
                    for l in &ol[old_index..old_index + old_len] {
                        push_line(&mut out, '-', l);
                    }
                    for l in &nl[new_index..new_index + new_len] {
                        push_line(&mut out, '+', l);
                    }
                }
            }
        }
    }
    out
}

/// `start,len` in unified-diff form (1-based; `start` is the line before an
/// empty range).
fn range(start0: usize, len: usize) -> String {
    if len == 0 {
        // data: a hunk range
        format!("{start0},0")
    } else if len == 1 {
        // data: a hunk range
        format!("{}", start0 + 1)
    } else {
        // data: a hunk range
        format!("{},{len}", start0 + 1)
    }
}

fn push_line(out: &mut String, tag: char, line: &[u8]) {
    out.push(tag);
    out.push_str(&String::from_utf8_lossy(line));
    if !line.ends_with(b"\n") {
        out.push_str("\n\\ No newline at end of file\n");
    }
}

/// Bytes and lines of the longest common prefix made of whole lines.
fn common_prefix_lines(a: &[u8], b: &[u8]) -> (usize, usize) {
    let n = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    if n == a.len() && n == b.len() {
        return (n, crate::text::lines::count_newlines(&a[..n]));
    }
    // Back up to just after the last newline within the common part.
    let cut = match memchr::memrchr(b'\n', &a[..n]) {
        Some(i) => i + 1,
        None => 0,
    };
    (cut, crate::text::lines::count_newlines(&a[..cut]))
}

/// Bytes and lines of the longest common suffix made of whole lines (it
/// must start at a line start in both texts).
fn common_suffix_lines(a: &[u8], b: &[u8]) -> (usize, usize) {
    let n = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let starts_line = |t: &[u8], k: usize| t.len() == k || t[t.len() - k - 1] == b'\n';
    let cut = if starts_line(a, n) && starts_line(b, n) {
        n
    } else {
        match memchr::memchr(b'\n', &a[a.len() - n..]) {
            Some(i) => n - (i + 1),
            None => 0,
        }
    };
    (cut, crate::text::lines::count_newlines(&a[a.len() - cut..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_change() {
        let d = unified(
            "f.txt",
            Some(b"a\nb\nc\nd\ne\nf\ng\nh\n"),
            Some(b"a\nb\nc\nd\nE\nf\ng\nh\n"),
        );
        assert_eq!(
            d,
            "--- a/f.txt\n+++ b/f.txt\n@@ -2,7 +2,7 @@\n b\n c\n d\n-e\n+E\n f\n g\n h\n"
        );
    }

    #[test]
    fn no_newline_at_end_and_creation() {
        let d = unified("f", Some(b"x"), Some(b"y"));
        assert_eq!(d, "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-x\n\\ No newline at end of file\n+y\n\\ No newline at end of file\n");
        let d = unified("n", None, Some(b"hi\n"));
        assert_eq!(d, "--- /dev/null\n+++ b/n\n@@ -0,0 +1 @@\n+hi\n");
        assert_eq!(unified("f", Some(b"same"), Some(b"same")), "");
    }

    #[test]
    fn far_apart_changes_make_two_hunks() {
        let old: String = (1..=30).map(|i| format!("{i}\n")).collect();
        let new: String = (1..=30)
            .map(|i| match i {
                3 => "three\n".to_string(),
                27 => "twenty-seven\n".to_string(),
                _ => format!("{i}\n"),
            })
            .collect();
        let d = unified("f", Some(old.as_bytes()), Some(new.as_bytes()));
        assert_eq!(d.matches("@@ -").count(), 2, "{d}");
        assert!(d.contains("@@ -1,6 +1,6 @@"), "{d}");
        assert!(d.contains("@@ -24,7 +24,7 @@"), "{d}");
    }

    /// The new text a unified diff of `old` makes (a naive reader: hunks in
    /// order, every context and removed line checked).
    fn applied(old: &str, diff: &str) -> String {
        let old: Vec<&str> = old.split_inclusive('\n').collect();
        let (mut out, mut at) = (String::new(), 0usize);
        let mut last: Option<char> = None;
        for line in diff.lines().skip(2) {
            if let Some(h) = line.strip_prefix("@@ -") {
                let start: usize = h.split([',', ' ']).next().unwrap().parse().unwrap();
                let to = start.saturating_sub(1).max(at);
                out.extend(old[at..to].iter().copied());
                at = to;
                continue;
            }
            if line.starts_with('\\') {
                // The line before has no line break.
                if last != Some('+') {
                    assert!(!old[at - 1].ends_with('\n'));
                } else {
                    assert_eq!(out.pop(), Some('\n'));
                }
                continue;
            }
            let (kind, text) = line.split_at(1);
            last = kind.chars().next();
            match kind {
                " " | "-" => {
                    assert_eq!(old[at].trim_end_matches('\n'), text, "{diff}");
                    if kind == " " {
                        out.push_str(old[at]);
                    }
                    at += 1;
                }
                _ => {
                    out.push_str(text);
                    out.push('\n');
                }
            }
        }
        out.extend(old[at..].iter().copied());
        out
    }

    use proptest::prelude::*;

    proptest! {
        #![proptest_config(crate::text::test_seeds::config(500))]
        /// The preview turns the old text into the new, with its full
        /// budget and with none (the coarser diff a large rewrite gets).
        #[test]
        fn the_preview_applies_with_or_without_time(
            old in prop::collection::vec(prop_oneof![Just("a\n"), Just("b\n"), Just("}\n"), Just("\n")], 0..40),
            new in prop::collection::vec(prop_oneof![Just("a\n"), Just("c\n"), Just("}\n"), Just("\n")], 0..40),
        ) {
            let (o, n) = (old.concat(), new.concat());
            for deadline in [std::time::Instant::now() + BUDGET, std::time::Instant::now()] {
                let d = unified_by("f", Some(o.as_bytes()), Some(n.as_bytes()), deadline);
                prop_assert_eq!(applied(&o, &d), n.clone(), "{}", d);
            }
        }
    }
}
