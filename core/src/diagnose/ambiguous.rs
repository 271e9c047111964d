//! Ambiguous blocks: for each occurrence, the smallest extension by
//! neighbouring lines that occurs only once.

use memchr::{memchr, memmem};

use super::report::Diagnosis;
use crate::likeness::nearest::lines_of;
use crate::likeness::Budget;
use crate::result::diagnosis::ContextHint;
use crate::text::lines::line_start;

/// Most occurrences that get a `unique_context_hint`.
pub const MAX_HINTS: usize = 10;
/// Most neighbouring lines (before + after) a hint may add.
const MAX_HINT_LINES: usize = 20;
/// Occurrences beyond which uniqueness hints are not computed.
const MAX_OCCURRENCES: usize = 10_000;

/// Start of the line `up` lines above the line containing `pos`.
fn line_start_above(text: &[u8], pos: usize, up: usize) -> Option<usize> {
    let mut s = line_start(text, pos);
    for _ in 0..up {
        if s == 0 {
            return None;
        }
        s = line_start(text, s - 1);
    }
    Some(s)
}

/// End (before its `\n`) of the line `down` lines below the line containing
/// `pos`; lines must have content start before the end of the text.
fn line_end_below(text: &[u8], pos: usize, down: usize) -> Option<usize> {
    let mut e = memchr(b'\n', &text[pos..]).map_or(text.len(), |k| pos + k);
    for _ in 0..down {
        if e + 1 >= text.len() {
            return None;
        }
        e = memchr(b'\n', &text[e + 1..]).map_or(text.len(), |k| e + 1 + k);
    }
    Some(e)
}

/// For each of the first [`MAX_HINTS`] (non-overlapping) occurrences of
/// `search`, the smallest extension by neighbouring lines that occurs only
/// once. An extended block contains the search block at a fixed offset, so
/// it can only recur where the block recurs: comparing the context around
/// every occurrence decides uniqueness without rescanning the file.
pub fn ambiguous(text: &[u8], search: &[u8], budget: &Budget) -> Diagnosis {
    #[cfg(test)]
    super::testutil::ran();
    let mut d = Diagnosis::default();
    if search.is_empty() {
        return d;
    }
    let Some(all) = occurrences(text, search, budget) else {
        d.incomplete = true;
        return d;
    };
    let mut found: Vec<Found> = Vec::new();
    for p in picks(&all, search.len()) {
        match unique_extension(text, search, &all, p, budget) {
            Some(Some(f)) => found.push(f),
            Some(None) => {}
            None => {
                d.incomplete = true;
                break;
            }
        }
    }
    d.unique_context_hint = hints(text, search.len(), &found);
    d
}

/// Every occurrence of `search` (overlapping ones included); `None` when
/// there are more than [`MAX_OCCURRENCES`] or the budget runs out.
fn occurrences(text: &[u8], search: &[u8], budget: &Budget) -> Option<Vec<usize>> {
    let finder = memmem::Finder::new(search);
    let mut all = Vec::new();
    let (mut at, mut paid) = (0, 0);
    while let Some(k) = finder.find(&text[at..]) {
        all.push(at + k);
        at += k + 1;
        let mut spent = all.len() > MAX_OCCURRENCES;
        if all.len() % 256 == 0 {
            // One unit per KiB searched.
            spent |= budget.spend(((at - paid) / 1024) as u64);
            paid = at;
        }
        if spent {
            return None;
        }
    }
    Some(all)
}

/// The first [`MAX_HINTS`] occurrences that do not overlap one another.
fn picks(all: &[usize], len: usize) -> Vec<usize> {
    let mut picks = Vec::new();
    let mut free = 0;
    for &p in all {
        if p >= free {
            picks.push(p);
            free = p + len;
            if picks.len() == MAX_HINTS {
                break;
            }
        }
    }
    picks
}

/// A unique extension of the occurrence at `p`: (p, bytes added before,
/// bytes added after, lines before, lines after).
type Found = (usize, usize, usize, usize, usize);

/// For 0..=[`MAX_HINT_LINES`] lines, the bytes an extension of the
/// occurrence `p..e` adds before it and after it (`None` past the text).
#[allow(clippy::type_complexity)]
fn extents(
    text: &[u8],
    p: usize,
    e: usize,
    ends_nl: bool,
) -> (Vec<Option<usize>>, Vec<Option<usize>>) {
    // Whole lines: with no line added, an extension still runs from the
    // start of the occurrence's first line to the end of its last one.
    let pre: Vec<Option<usize>> = (0..=MAX_HINT_LINES)
        .map(|a| line_start_above(text, p, a).map(|s| p - s))
        .collect();
    let post: Vec<Option<usize>> = (0..=MAX_HINT_LINES)
        .map(|b| {
            if b == 0 && ends_nl {
                Some(0)
            } else {
                let down = if ends_nl { b - 1 } else { b };
                // b == 0 here only for a block ending mid-line: to the end of that line.
                if ends_nl && e >= text.len() {
                    return None;
                }
                line_end_below(text, e, down).map(|x| x - e)
            }
        })
        .collect();
    (pre, post)
}

/// The smallest extension by neighbouring lines of the occurrence at `p`
/// that no other occurrence shares: `Some(None)` when none within
/// [`MAX_HINT_LINES`] is, `None` when the budget runs out.
fn unique_extension(
    text: &[u8],
    search: &[u8],
    all: &[usize],
    p: usize,
    budget: &Budget,
) -> Option<Option<Found>> {
    let e = p + search.len();
    // pre[a]: bytes before p for `a` lines above; post[b] after e.
    let (pre, post) = extents(text, p, e, search.ends_with(b"\n"));
    let max_pre = pre.iter().flatten().copied().max().unwrap_or(0);
    let max_post = post.iter().flatten().copied().max().unwrap_or(0);
    // For every other occurrence, how many bytes before and after it equal
    // those around `p`.
    let mut common: Vec<(usize, usize)> = Vec::with_capacity(all.len());
    for (n, &q) in all.iter().enumerate() {
        // One unit per KiB of context compared.
        if n % 256 == 0 && budget.spend((256 * (max_pre + max_post) / 1024) as u64) {
            return None;
        }
        if q == p {
            continue;
        }
        let cb = (1..=max_pre.min(q).min(p))
            .take_while(|&i| text[p - i] == text[q - i])
            .count();
        let qe = q + search.len();
        let cf = (0..max_post.min(text.len() - qe).min(text.len() - e))
            .take_while(|&i| text[e + i] == text[qe + i])
            .count();
        common.push((cb, cf));
    }
    let mut best: Option<(usize, usize, usize)> = None;
    // k = 0: the occurrence's own lines, unique when their rest differs.
    for k in 0..=MAX_HINT_LINES {
        for (a, pa) in pre.iter().enumerate().take(k + 1) {
            let (Some(pa), Some(pb)) = (*pa, post[k - a]) else {
                continue;
            };
            if common.iter().all(|&(cb, cf)| pa > cb || pb > cf)
                && best.is_none_or(|x| pa + pb < x.0 + x.1)
            {
                best = Some((pa, pb, a));
            }
        }
        if let Some((pa, pb, a)) = best {
            return Some(Some((p, pa, pb, a, k - a)));
        }
    }
    Some(None)
}

/// The hints for the extensions found, with their line numbers (counted in
/// one pass).
fn hints(text: &[u8], len: usize, found: &[Found]) -> Vec<ContextHint> {
    let mut offs: Vec<usize> = Vec::new();
    for &(p, pa, pb, _, _) in found {
        let e = p + len + pb;
        offs.extend([p - pa, p, e.saturating_sub(1).max(p - pa)]);
    }
    let mut sorted = offs;
    sorted.sort_unstable();
    let nums = lines_of(text, &sorted);
    let line_of = |o: usize| nums[sorted.binary_search(&o).unwrap_or(0)];
    found
        .iter()
        .map(|&(p, pa, pb, a, b)| {
            let s = p - pa;
            let e = p + len + pb;
            ContextHint {
                match_line: line_of(p),
                line_number: line_of(s),
                end_line: line_of(e.saturating_sub(1).max(s)),
                lines_before: a,
                lines_after: b,
                search_block: String::from_utf8_lossy(&text[s..e]).into_owned(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::diagnose::testutil::texty;

    #[test]
    fn ambiguous_hints_are_minimal_and_unique() {
        let text = "fn a() {\n    x += 1;\n}\nfn b() {\n    x += 1;\n}\nfn c() {\n    y();\n    x += 1;\n}\n";
        let d = ambiguous(text.as_bytes(), b"    x += 1;\n", &Budget::new(u64::MAX));
        assert!(!d.incomplete);
        assert_eq!(d.unique_context_hint.len(), 3);
        for h in &d.unique_context_hint {
            assert_eq!(text.matches(h.search_block.as_str()).count(), 1, "{h:?}");
            assert!(h.search_block.contains("    x += 1;\n"));
        }
        let h = &d.unique_context_hint[0];
        assert_eq!(
            (h.match_line, h.line_number, h.lines_before, h.lines_after),
            (2, 1, 1, 0)
        );
        assert_eq!(h.search_block, "fn a() {\n    x += 1;\n");
        let h = &d.unique_context_hint[2];
        assert_eq!((h.match_line, h.lines_before, h.lines_after), (9, 1, 0));
        assert_eq!(h.search_block, "    y();\n    x += 1;\n");
    }

    #[test]
    fn ambiguous_hint_after_and_none_when_identical() {
        let text = "start\nlog();\nalpha\nlog();\nbeta\n";
        let d = ambiguous(text.as_bytes(), b"log();", &Budget::new(u64::MAX));
        let h = &d.unique_context_hint[0];
        assert_eq!(text.matches(h.search_block.as_str()).count(), 1);
        assert_eq!(h.lines_before + h.lines_after, 1);
        // Two identical 50-line halves, block in the middle of each: no
        // extension within MAX_HINT_LINES reaches a line that differs.
        let half: String = (0..50).map(|i| format!("line {i}\n")).collect();
        let twin = format!("{half}{half}");
        let d = ambiguous(twin.as_bytes(), b"line 25\n", &Budget::new(u64::MAX));
        assert!(d.unique_context_hint.is_empty());
    }

    #[test]
    fn hints_are_whole_lines_for_a_one_character_block() {
        let text = "let a = x + 1;\nlet b = x + 2;\nlet c = 3;\n";
        let d = ambiguous(text.as_bytes(), b"x", &Budget::new(u64::MAX));
        let blocks: Vec<&str> = d
            .unique_context_hint
            .iter()
            .map(|h| h.search_block.as_str())
            .collect();
        assert_eq!(blocks, ["let a = x + 1;", "let b = x + 2;"]);
        for h in &d.unique_context_hint {
            assert_eq!((h.lines_before, h.lines_after), (0, 0));
            assert_eq!(h.line_number, h.match_line);
        }
        // The same line twice: a neighbouring line, still whole.
        let text = "a {\n  x\n}\nb {\n  x\n}\n";
        let d = ambiguous(text.as_bytes(), b"x", &Budget::new(u64::MAX));
        assert_eq!(d.unique_context_hint[0].search_block, "a {\n  x");
        assert_eq!(d.unique_context_hint[1].search_block, "b {\n  x");
    }

    use proptest::prelude::*;

    proptest! {
        #![proptest_config(crate::text::test_seeds::config(400))]
        // Every hint occurs exactly once and contains the block.
        #[test]
        fn hints_are_unique(text in texty(), a in 0usize..60, len in 1usize..6) {
            let chars: Vec<char> = text.chars().collect();
            prop_assume!(!chars.is_empty());
            let a = a.min(chars.len() - 1);
            let block: String = chars[a..(a + len).min(chars.len())].iter().collect();
            let d = ambiguous(text.as_bytes(), block.as_bytes(), &Budget::new(u64::MAX));
            for h in &d.unique_context_hint {
                prop_assert!(h.search_block.contains(&block));
                // Whole lines: it starts where a line starts and ends where one ends.
                let at = memmem::find(text.as_bytes(), h.search_block.as_bytes()).unwrap_or(0);
                let end = at + h.search_block.len();
                prop_assert!(at == 0 || text.as_bytes()[at - 1] == b'\n', "{:?}", h);
                prop_assert!(end == text.len() || text.as_bytes()[end - 1] == b'\n' || text.as_bytes()[end] == b'\n', "{:?}", h);
                prop_assert_eq!(memmem::find_iter(text.as_bytes(), h.search_block.as_bytes()).count(), 1);
                prop_assert_eq!(text.matches(&h.search_block).count(), 1, "{:?}", h);
            }
        }
    }
}
