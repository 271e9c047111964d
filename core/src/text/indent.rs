//! Indentation shape: whether two blocks nest their lines alike. Tolerant
//! matching (`match: ["indentation"]`) accepts a block only when it does,
//! and diagnosis offers that tolerance only when it would; both ask here, so
//! the offer and the match cannot disagree.
//!
//! Pure: nothing here depends on the rest of the crate.

/// Columns a tab counts for when comparing indentation depths.
pub(crate) const TAB_WIDTH: usize = 4;

/// Lines of a block: split on `\n`, a final `\n` ending the last line.
pub(crate) fn lines_of(s: &str) -> Vec<&str> {
    let body = s.strip_suffix('\n').unwrap_or(s);
    body.split('\n').collect()
}

/// The leading spaces and tabs of a line.
pub(crate) fn lead(s: &str) -> &str {
    &s[..s.len() - s.trim_start_matches([' ', '\t']).len()]
}

/// The length in bytes of the leading spaces and tabs of a line.
pub(crate) fn lead_len(line: &[u8]) -> usize {
    line.iter()
        .take_while(|b| **b == b' ' || **b == b'\t')
        .count()
}

/// The depth of an indentation in columns (a tab counts [`TAB_WIDTH`]).
pub(crate) fn width(indent: &str) -> usize {
    indent
        .chars()
        .map(|c| if c == '\t' { TAB_WIDTH } else { 1 })
        .sum()
}

/// Pairs (block indentation, file indentation) of the lines that start a
/// line in the file and have content on both sides.
pub(crate) fn indent_pairs<'a>(
    search: &'a str,
    region: &'a str,
    starts_line: bool,
) -> Vec<(&'a str, &'a str)> {
    lines_of(search)
        .into_iter()
        .zip(lines_of(region))
        .enumerate()
        .filter(|(i, (s, r))| {
            (*i > 0 || starts_line) && !s.trim().is_empty() && !r.trim().is_empty()
        })
        .map(|(_, (s, r))| (lead(s), lead(r)))
        .collect()
}

/// Whether the block's lines are nested the way the file's are: each step
/// from one line to the next goes in, out or stays level on both sides.
pub(crate) fn same_shape(pairs: &[(&str, &str)]) -> bool {
    pairs.windows(2).all(|w| {
        let ds = width(w[1].0) as isize - width(w[0].0) as isize;
        let df = width(w[1].1) as isize - width(w[0].1) as isize;
        ds.signum() == df.signum()
    })
}

/// Whether `search` and the file text `region` (starting at a line start
/// or not) nest their lines alike, so the indentation tolerance could
/// match one to the other.
pub(crate) fn nesting_agrees(search: &str, region: &str, starts_line: bool) -> bool {
    same_shape(&indent_pairs(search, region, starts_line))
}
