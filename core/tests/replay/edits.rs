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
                // A search of blank lines (or of a byte order mark alone: the
                // text an agent reads is then empty) names no place.
                if search.trim_start_matches('\u{feff}').trim().is_empty()
                    || count(&text, &search) != 1
                {
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
                // reads (the engine matches the text after it): the search
                // must be unique in the text without it.
                let seen = text.strip_prefix('\u{feff}').unwrap_or(&text);
                let (search, replace, at) = match (
                    search.strip_prefix('\u{feff}'),
                    replace.strip_prefix('\u{feff}'),
                ) {
                    (Some(s), Some(r)) if at == 0 && !s.trim().is_empty() => {
                        if count(seen, s) != 1 {
                            continue;
                        }
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

/// A line as the engine compares a hunk's lines: without its line break.
fn bare(l: &str) -> &str {
    l.trim_end_matches(['\n', '\r'])
}

/// The end of the lines `ol[lo..hi]` of a hunk as the parser keeps them:
/// empty context lines that end a hunk are dropped unless `*** End of File`
/// follows.
fn visible_end(ol: &[&str], lo: usize, mut hi: usize) -> usize {
    while hi > lo && bare(ol[hi - 1]).is_empty() {
        hi -= 1;
    }
    hi
}

/// How many places of the file's lines `ol` hold the lines `side`, compared
/// as the engine compares them (without line breaks).
fn places(ol: &[&str], side: &[&str]) -> usize {
    (0..=ol.len().saturating_sub(side.len()))
        .filter(|&p| {
            ol[p..p + side.len()]
                .iter()
                .zip(side)
                .all(|(a, b)| bare(a) == bare(b))
        })
        .count()
}

fn unique(ol: &[&str], t: &str) -> bool {
    ol.iter().filter(|m| m.trim() == t).count() == 1
}

fn indent(l: &str) -> usize {
    l.len() - l.trim_start_matches([' ', '\t']).len()
}

/// The nearest line of `ol[cursor..lo]` the file has once.
fn nearest_unique<'a>(ol: &[&'a str], cursor: usize, lo: usize) -> Option<&'a str> {
    ol[cursor..lo].iter().rev().copied().find(|l| {
        let t = l.trim();
        !t.is_empty() && unique(ol, t)
    })
}

/// The header of the block `ol[lo..hi]` is in, found once in the file (its
/// index): walking up from `lo`, each line shallower than the deepest level
/// seen so far (a brace alone on its line aside), until one is unique.
fn enclosing(ol: &[&str], cursor: usize, lo: usize, hi: usize) -> Option<usize> {
    // Directives (`#if` at the start of the line) and comments of `#`
    // stand anywhere: not the block's depth.
    let mut depth = ol[lo..hi]
        .iter()
        .filter(|l| !l.trim().is_empty() && !l.trim().starts_with('#'))
        .map(|l| indent(l))
        .min()?;
    for i in (cursor..lo).rev() {
        let (l, t) = (ol[i], ol[i].trim());
        if t.is_empty()
            || indent(l) >= depth
            || matches!(t.as_bytes()[0], b'{' | b'}' | b')' | b']' | b'#')
        {
            continue;
        }
        if unique(ol, t) {
            return Some(i);
        }
        depth = indent(l);
    }
    None
}

/// The end of the block line `at` opens, read from indentation (what a
/// reader takes for the function or class an `@@` line names).
fn block_end(ol: &[&str], at: usize) -> usize {
    let head = indent(ol[at]);
    for (i, l) in ol.iter().enumerate().skip(at + 1) {
        let t = l.trim();
        if t.is_empty() || indent(l) > head || t == "{" || t.starts_with('#') {
            continue;
        }
        let closes =
            matches!(t.as_bytes()[0], b'}' | b')' | b']') || t == "end" || t.starts_with("</");
        return if closes { i + 1 } else { i };
    }
    ol.len()
}

/// Whether `side` starts once inside the block of line `a`.
fn once_in_block(ol: &[&str], a: usize, side: &[&str]) -> bool {
    let end = block_end(ol, a);
    (a..end)
        .filter(|&p| {
            p + side.len() <= ol.len()
                && ol[p..p + side.len()]
                    .iter()
                    .zip(side)
                    .all(|(x, y)| bare(x) == bare(y))
        })
        .count()
        == 1
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
        // An `@@` line naming the function or class the lines are in, when
        // the lines are once in its block.
        let mut named = None;
        loop {
            let lo = o.start.saturating_sub(ctx).max(cursor);
            let hi = (o.end + ctx).min(ol.len());
            // Unique in the whole file, as the engine wants it (Codex's own
            // tool looks only after the previous hunk; a model adds context
            // or an `@@` line until the place is unique).
            if places(&ol, &ol[lo..visible_end(&ol, lo, hi)]) == 1
                || ctx >= MAX_CONTEXT
                || (lo == cursor && hi == ol.len())
            {
                break;
            }
            // As Codex's instructions ask: three lines, and the enclosing
            // function or class in an `@@` line where they are not unique.
            if let Some(a) =
                enclosing(&ol, cursor, lo, hi).filter(|&a| once_in_block(&ol, a, &ol[lo..hi]))
            {
                named = Some(a);
                break;
            }
            // Lines that reach the end of the file: `*** End of File`.
            if hi == ol.len() {
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
        // Context that stays ambiguous gets an `@@` line naming the
        // function or class it is in, as Codex's instructions ask (the
        // nearest line above, shallower than the hunk's lines, that the file
        // has once, walking out through enclosing blocks), when the lines
        // are once in its block; else the nearest line above that the file
        // has once.
        let seen = visible_end(&ol, lo, hi);
        let at_eof = hi == ol.len() && (places(&ol, &ol[lo..seen]) > 1 || seen < hi);
        let ambiguous = !at_eof && places(&ol, &ol[lo..seen]) > 1;
        let anchor = ambiguous
            .then(|| {
                named
                    .filter(|&a| once_in_block(&ol, a, &ol[lo..seen]))
                    .map(|a| ol[a])
                    .or_else(|| nearest_unique(&ol, cursor, lo))
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
        if at_eof {
            s.push_str("*** End of File\n");
        }
        cursor = hi;
        k += 1;
    }
    Some(s)
}
