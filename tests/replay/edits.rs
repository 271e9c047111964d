//! From a file's change in a commit to the edits an agent would send: each
//! hunk of the line diff becomes a search/replace pair with the least
//! context (lines above first) that makes the search text occur once in
//! the file as the earlier hunks left it; and the whole change as a Codex
//! patch.

use similar::{capture_diff_slices, Algorithm, DiffOp};

/// Most context lines added to make a block unique.
const MAX_CONTEXT: usize = 20;

/// One agent-like edit of a file, with the text it applies to.
#[derive(Debug, Clone)]
pub struct AgentEdit {
    /// The file as the earlier edits of the change left it.
    pub before: String,
    pub search: String,
    pub replace: String,
    /// The file after this edit.
    pub after: String,
    /// Byte offset of `search` in `before`.
    pub at: usize,
    /// Lines of context above and below the changed lines.
    pub above: usize,
    pub below: usize,
    /// Lines the hunk removes and adds.
    pub removed: Vec<String>,
    pub added: Vec<String>,
    /// Where the commit and file come from, for reports.
    pub origin: String,
}

/// The lines of a text, each with its line break.
pub fn lines(t: &str) -> Vec<&str> {
    t.split_inclusive('\n').collect()
}

/// The hunks of the line diff of `old` and `new`: (old lines, new lines),
/// the gaps between the runs of equal lines.
pub fn hunks(old: &[&str], new: &[&str]) -> Vec<(std::ops::Range<usize>, std::ops::Range<usize>)> {
    let mut out = Vec::new();
    let (mut o, mut n) = (0usize, 0usize);
    let equal = capture_diff_slices(Algorithm::Myers, old, new)
        .into_iter()
        .filter_map(|op| match op {
            DiffOp::Equal {
                old_index,
                new_index,
                len,
            } => Some((old_index, new_index, len)),
            _ => None,
        })
        .chain(std::iter::once((old.len(), new.len(), 0)));
    for (oi, ni, len) in equal {
        if oi > o || ni > n {
            out.push((o..oi, n..ni));
        }
        o = oi + len;
        n = ni + len;
    }
    out
}

fn count(hay: &str, needle: &str) -> usize {
    memchr::memmem::find_iter(hay.as_bytes(), needle.as_bytes()).count()
}

/// The edits that turn `old` into `new`, one per hunk, applied in turn;
/// `None` for a hunk no context up to [`MAX_CONTEXT`] lines makes unique.
pub fn agent_edits(old: &str, new: &str, origin: &str) -> Vec<Option<AgentEdit>> {
    let new_lines = lines(new);
    let mut cur: Vec<String> = lines(old).into_iter().map(str::to_string).collect();
    let mut out = Vec::new();
    let mut delta: isize = 0;
    for (o, n) in hunks(&lines(old), &new_lines) {
        let a = (o.start as isize + delta) as usize;
        let b = a + o.len();
        let text: String = cur.concat();
        let added: Vec<String> = new_lines[n.clone()].iter().map(|s| s.to_string()).collect();
        let removed: Vec<String> = cur[a..b].to_vec();
        let mut found = None;
        'k: for k in 0..=MAX_CONTEXT {
            for below in 0..=k {
                let above = k - below;
                if above > a || b + below > cur.len() {
                    continue;
                }
                let search: String = cur[a - above..b + below].concat();
                if search.trim().is_empty() || count(&text, &search) != 1 {
                    continue;
                }
                let replace = [
                    cur[a - above..a].concat(),
                    added.concat(),
                    cur[b..b + below].concat(),
                ]
                .concat();
                let at =
                    memchr::memmem::find(text.as_bytes(), search.as_bytes()).expect("found once");
                // A file's byte order mark is not part of the text an agent
                // reads (the engine matches the text after it).
                let (search, replace, at) = match (
                    search.strip_prefix('\u{feff}'),
                    replace.strip_prefix('\u{feff}'),
                ) {
                    (Some(s), Some(r)) if at == 0 && !s.trim().is_empty() => {
                        (s.to_string(), r.to_string(), 3)
                    }
                    // A commit that adds or removes the byte order mark
                    // changes what no text edit can name (the file's
                    // encoding: `writeFile` does that): not an agent's edit.
                    (Some(_), None) | (None, Some(_)) if at == 0 => break 'k,
                    _ => (search, replace, at),
                };
                found = Some((search, replace, at, above, below));
                break 'k;
            }
        }
        let next: Vec<String> = cur[..a]
            .iter()
            .cloned()
            .chain(added.iter().cloned())
            .chain(cur[b..].iter().cloned())
            .collect();
        let after = next.concat();
        out.push(found.map(|(search, replace, at, above, below)| AgentEdit {
            before: text,
            search,
            replace,
            after: after.clone(),
            at,
            above,
            below,
            removed,
            added,
            origin: origin.to_string(),
        }));
        delta += n.len() as isize - o.len() as isize;
        cur = next;
    }
    out
}

/// The change of one file as a Codex `*** Update File` section: each hunk
/// with three lines of context (more where three leave its old lines
/// ambiguous after the previous hunk), `@@` before each; `None` when the
/// file does not end with a line break (the envelope cannot say so).
pub fn codex_section(path: &str, old: &str, new: &str) -> Option<String> {
    if (!old.is_empty() && !old.ends_with('\n')) || (!new.is_empty() && !new.ends_with('\n')) {
        return None;
    }
    let (ol, nl) = (lines(old), lines(new));
    let mut s = format!("*** Update File: {path}\n");
    let mut cursor = 0usize;
    let hs = hunks(&ol, &nl);
    let mut k = 0;
    while k < hs.len() {
        // Hunks whose contexts touch are one.
        let (mut o, mut n) = hs[k].clone();
        let mut ctx = 3;
        loop {
            let lo = o.start.saturating_sub(ctx).max(cursor);
            let hi = (o.end + ctx).min(ol.len());
            let old_side: String = ol[lo..hi].concat();
            // Unique in the whole file, as the engine wants it (Codex's own
            // tool looks only after the previous hunk; a model adds context
            // or an `@@` line until the place is unique).
            if count(old, &old_side) == 1 || ctx >= MAX_CONTEXT || (lo == cursor && hi == ol.len())
            {
                break;
            }
            ctx += 1;
        }
        while k + 1 < hs.len() && hs[k + 1].0.start <= o.end + 2 * ctx {
            k += 1;
            o.end = hs[k].0.end;
            n.end = hs[k].1.end;
        }
        let lo = o.start.saturating_sub(ctx).max(cursor);
        let hi = (o.end + ctx).min(ol.len());
        // Context that stays ambiguous gets an `@@` line naming a line
        // above it that the file has once, as Codex's instructions ask.
        let ambiguous = count(old, &ol[lo..hi].concat()) > 1;
        let anchor = ambiguous
            .then(|| {
                ol[cursor..lo].iter().rev().find(|l| {
                    let t = l.trim();
                    !t.is_empty() && ol.iter().filter(|m| m.trim() == t).count() == 1
                })
            })
            .flatten();
        match anchor {
            Some(l) => s.push_str(&format!("@@ {}\n", l.trim())),
            None => s.push_str("@@\n"),
        }
        for l in &ol[lo..o.start] {
            s.push_str(&format!(" {l}"));
        }
        for op in capture_diff_slices(Algorithm::Myers, &ol[o.clone()], &nl[n.clone()]) {
            for i in op.old_range() {
                let l = ol[o.start + i];
                s.push_str(&format!(
                    "{}{l}",
                    if matches!(op, DiffOp::Equal { .. }) {
                        ' '
                    } else {
                        '-'
                    }
                ));
            }
            if !matches!(op, DiffOp::Equal { .. }) {
                for i in op.new_range() {
                    s.push_str(&format!("+{}", nl[n.start + i]));
                }
            }
        }
        for l in &ol[o.end..hi] {
            s.push_str(&format!(" {l}"));
        }
        cursor = hi;
        k += 1;
    }
    Some(s)
}
