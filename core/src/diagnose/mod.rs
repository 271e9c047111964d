//! Near-miss diagnosis: why an edit's search block did not match, and what
//! the file holds instead. Pure and in memory. Its searches run only after
//! an exact match has failed, never for an edit that matched exactly. A
//! tolerant match (`match` tolerances, tried once the exact match failed)
//! uses three parts before it is written: [`classify()`] on the one region
//! it matched, to name the differences it forgave; `replacement_at` and
//! `replacement_outside`, whether the edit already stands in the file; and
//! [`rival()`], whether another place looks more like the block's own
//! (`matching::guard`).
//!
//! * **Not found** — [`not_found`] looks for the region of the file most
//!   like the search block (`closest_match`), names each kind of difference
//!   (line endings, indentation, trailing whitespace, invisible characters,
//!   typographic punctuation, escaping, letter case, content) and hands back
//!   the exact current text of that region, so one retry can succeed. It
//!   also notices when the replacement is already present exactly once
//!   (`already_applied`), so an agent stops retrying an edit that was made.
//! * **Ambiguous** — [`ambiguous()`] finds, for each occurrence, the smallest
//!   extension of the block by neighbouring lines that occurs only once
//!   (`unique_context_hint`).
//!
//! # Cost
//!
//! Lines are compared by *key* (whitespace, backslashes, invisible
//! characters and case dropped, typographic punctuation folded to ASCII).
//! Keying every line of a file runs at about 0.5 GB/s, several times the
//! cost of reading it, so candidates are first found by *anchors*: pieces
//! of the block that a near miss usually leaves intact (each line without
//! its surrounding whitespace, then single words), searched verbatim with
//! `memmem` over 64 KiB chunks (all needles of a pass run over a chunk while
//! it is in cache, and the first pass also counts lines, so hits get line
//! numbers for free). Each file line a piece hits votes for the block start
//! it implies; the best starts are scored precisely, with windows a couple
//! of lines longer or shorter. Usually the first pass (one needle, the
//! longest intact line) settles it, and the `already_applied` search rides
//! along with that pass. Only when no piece leads to a plausible region
//! does the full scan key every line (with a bigram pass for blocks whose
//! lines all changed). Every step spends units of a [`Budget`] of work
//! (anchor passes per chunk, the scan every `CHECK_EVERY` lines, each
//! window scored), so a huge file makes the diagnosis give up
//! (`diagnosis_incomplete: true`) instead of stalling, at the same point
//! of the work however busy the machine is.

mod align;
mod ambiguous;
mod anchors;
mod applied;
mod budget;
mod classify;
mod closest;
mod elision;
mod keys;
mod readings;
mod report;
mod rival;
mod search;
mod stale;
#[cfg(test)]
mod testutil;
mod views;
mod windows;

pub use self::ambiguous::{ambiguous, MAX_HINTS};
pub use self::budget::{Budget, DEFAULT_BUDGET};
pub(crate) use self::classify::classify;
pub use self::report::not_found;
pub(crate) use self::report::{replacement_at, replacement_outside, Diagnosis};
pub(crate) use self::rival::rival;
