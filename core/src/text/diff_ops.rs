//! Diffs of two sequences, with every op's indices true.
//!
//! `similar`'s captured ops come in sequence with the right lengths, but
//! after its `Compact` pass (which slides insertions and deletions) the
//! index of the side an op does not cover can name another place: a
//! deletion of old lines 1..4 reported at new line 3 where it happens at
//! new line 1, the insertion after it at old line 3 instead of 6. Code that
//! reads both ranges of every op (the narrowing of a legacy file's write,
//! a diff's hunk headers) then wrote lines in another order, or panicked.
//! [`diff`] renumbers each op from the lengths of the ops before it, which
//! are right; the unit tests hold it to an edit script that turns the old
//! sequence into the new one.

use std::hash::Hash;
use std::time::Instant;

use similar::{Algorithm, DiffOp};

/// The Myers diff of `old` and `new` (given up at `deadline`, then
/// coarser), each op numbered where it is.
pub(crate) fn diff<T: Eq + Hash + Ord>(
    old: &[T],
    new: &[T],
    deadline: Option<Instant>,
) -> Vec<DiffOp> {
    in_sequence(similar::capture_diff_slices_deadline(
        Algorithm::Myers,
        old,
        new,
        deadline,
    ))
}

/// `ops` numbered from their lengths, in the order given.
pub(crate) fn in_sequence(ops: Vec<DiffOp>) -> Vec<DiffOp> {
    let (mut o, mut n) = (0, 0);
    ops.into_iter()
        .map(|op| {
            let out = match op {
                DiffOp::Equal { len, .. } => DiffOp::Equal {
                    old_index: o,
                    new_index: n,
                    len,
                },
                DiffOp::Delete { old_len, .. } => DiffOp::Delete {
                    old_index: o,
                    old_len,
                    new_index: n,
                },
                DiffOp::Insert { new_len, .. } => DiffOp::Insert {
                    old_index: o,
                    new_index: n,
                    new_len,
                },
                DiffOp::Replace {
                    old_len, new_len, ..
                } => DiffOp::Replace {
                    old_index: o,
                    old_len,
                    new_index: n,
                    new_len,
                },
            };
            o += out.old_range().len();
            n += out.new_range().len();
            out
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The case `similar` numbered wrong: its deletion's new index and its
    /// insertion's old index.
    #[test]
    fn a_deletion_and_an_insertion_are_numbered_where_they_are() {
        let old = ["L", "", "x", "x", "c", "a"];
        let new = ["L", "c", "a", "c", "a", "a", "a", "a."];
        let ops = diff(&old, &new, None);
        for op in &ops {
            if let DiffOp::Delete {
                old_index,
                new_index,
                ..
            } = op
            {
                assert_eq!((*old_index, *new_index), (1, 1), "{ops:?}");
            }
            if let DiffOp::Insert { old_index, .. } = op {
                assert_eq!(*old_index, 6, "{ops:?}");
            }
        }
    }

    proptest! {
        #![proptest_config(crate::text::test_seeds::config(2000))]
        /// The ops are an edit script: walked in order, each starts where
        /// the one before ended, an equal run is equal, and the new
        /// sequence is what they make of the old one.
        #[test]
        fn the_ops_turn_the_old_sequence_into_the_new_one(
            old in prop::collection::vec(0u8..4, 0..24),
            new in prop::collection::vec(0u8..4, 0..24),
        ) {
            let ops = diff(&old, &new, None);
            let (mut o, mut n) = (0, 0);
            let mut made = Vec::new();
            for op in &ops {
                prop_assert_eq!(op.old_range().start, o);
                prop_assert_eq!(op.new_range().start, n);
                match op {
                    DiffOp::Equal { .. } => {
                        prop_assert_eq!(&old[op.old_range()], &new[op.new_range()]);
                        made.extend_from_slice(&old[op.old_range()]);
                    }
                    _ => made.extend_from_slice(&new[op.new_range()]),
                }
                o = op.old_range().end;
                n = op.new_range().end;
            }
            prop_assert_eq!((o, n), (old.len(), new.len()));
            prop_assert_eq!(made, new);
        }
    }
}
