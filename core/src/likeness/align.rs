//! Aligning two sequences (lines of a block and of a region, characters of
//! two lines) with a cost bounded by their lengths alone.
//!
//! Myers' diff costs O((n + m) · d) for d differences: cheap for a near
//! miss, quadratic for two unrelated inputs. A deadline would bound it, but
//! then the alignment, and every score built on it, would depend on how
//! busy the machine is. Here the bound is on the input instead: after the
//! common prefix and suffix are set aside, a middle of at most
//! [`MAX_MIDDLE`] items is diffed exactly; a longer middle is aligned as one
//! replaced run (its items paired in order), which is what the exact diff
//! says anyway for inputs that different. The same inputs always give the
//! same alignment.

use std::hash::Hash;

use similar::{get_diff_ratio, DiffOp};

/// Longest changed middle (items of both sides together) diffed exactly:
/// at most about 4 million steps of Myers' algorithm.
pub(crate) const MAX_MIDDLE: usize = 2048;

/// The alignment of `a` and `b`: exact when the part between their common
/// prefix and suffix is at most [`MAX_MIDDLE`] items long, else that part as
/// one replaced run.
pub(crate) fn align<T: Hash + Eq + Ord>(a: &[T], b: &[T]) -> Vec<DiffOp> {
    let pre = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let suf = a[pre..]
        .iter()
        .rev()
        .zip(b[pre..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (ma, mb) = (a.len() - pre - suf, b.len() - pre - suf);
    if ma + mb <= MAX_MIDDLE {
        return crate::text::diff_ops::diff(a, b, None);
    }
    let mut ops = Vec::with_capacity(3);
    if pre > 0 {
        ops.push(DiffOp::Equal {
            old_index: 0,
            new_index: 0,
            len: pre,
        });
    }
    ops.push(DiffOp::Replace {
        old_index: pre,
        old_len: ma,
        new_index: pre,
        new_len: mb,
    });
    if suf > 0 {
        ops.push(DiffOp::Equal {
            old_index: pre + ma,
            new_index: pre + mb,
            len: suf,
        });
    }
    ops
}

/// Characters an alignment of `a` and `b` keeps.
fn kept_chars(a: &str, b: &str) -> usize {
    let x: Vec<char> = a.chars().collect();
    let y: Vec<char> = b.chars().collect();
    align(&x, &y)
        .iter()
        .filter_map(|o| match o {
            DiffOp::Equal { len, .. } => Some(*len),
            _ => None,
        })
        .sum()
}

/// Character similarity of two texts, 0..1 (twice the characters an
/// alignment keeps over both lengths). Texts short enough are aligned
/// character by character; longer ones line by line, with the characters
/// of each pair of changed lines aligned in turn, so a long block that
/// differs a little on every line still scores as close as it is.
pub(crate) fn char_ratio(a: &str, b: &str) -> f64 {
    let (n, m) = (a.chars().count(), b.chars().count());
    if n + m == 0 {
        return 1.0;
    }
    if n + m <= MAX_MIDDLE {
        let x: Vec<char> = a.chars().collect();
        let y: Vec<char> = b.chars().collect();
        return f64::from(get_diff_ratio(&align(&x, &y), n, m));
    }
    let la: Vec<&str> = a.split_inclusive('\n').collect();
    let lb: Vec<&str> = b.split_inclusive('\n').collect();
    let mut kept = 0usize;
    for op in align(&la, &lb) {
        match op {
            DiffOp::Equal { old_index, len, .. } => {
                kept += la[old_index..old_index + len]
                    .iter()
                    .map(|l| l.chars().count())
                    .sum::<usize>();
            }
            DiffOp::Replace { .. } => {
                for (x, y) in la[op.old_range()].iter().zip(&lb[op.new_range()]) {
                    kept += kept_chars(x, y);
                }
            }
            _ => {}
        }
    }
    2.0 * kept as f64 / (n + m) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_for_near_misses_coarse_for_long_unrelated_middles() {
        let a: Vec<u32> = (0..3000).collect();
        let mut b = a.clone();
        b[1500] = 7;
        // A near miss: the exact diff, one replaced item.
        let ops = align(&a, &b);
        let replaced: usize = ops
            .iter()
            .filter(|o| matches!(o, DiffOp::Replace { .. }))
            .map(|o| o.old_range().len())
            .sum();
        assert_eq!(replaced, 1);
        // Unrelated middles longer than the bound: one replaced run.
        let c: Vec<u32> = (5000..8000).collect();
        let ops = align(&a, &c);
        assert_eq!(ops.len(), 1);
        assert_eq!(ops[0].old_range(), 0..3000);
        // The same input, the same alignment.
        assert_eq!(align(&a, &c), ops);
        assert!((char_ratio("retries = 3", "retries = 5") - 10.0 / 11.0).abs() < 1e-6);
        assert_eq!(char_ratio("", ""), 1.0);
    }
}
