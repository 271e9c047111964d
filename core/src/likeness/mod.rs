//! How a text resembles a block: the region most like it, how alike the
//! two are and each kind of difference between them (`nearest`,
//! `classify`), whether an edit's replacement already stands in it
//! (`applied`), and whether another place looks more like the block's own
//! than a tolerant match does (`rival`). Pure and in memory; it words
//! nothing but the details of a difference. Two callers above it: the
//! tolerant guard (`matching::guard`, `matching::tolerant`), which asks
//! before a tolerant match is written (`classify` on the one region it
//! matched, `replacement_at` / `replacement_outside`, `rival`), and
//! diagnosis (`crate::diagnose`), which reports it for an edit that failed.
//! Its searches never run for an edit found exactly.
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

pub(crate) mod align;
pub(crate) mod anchors;
pub(crate) mod applied;
pub(crate) mod budget;
pub(crate) mod classify;
mod closest;
mod elision;
mod keys;
pub(crate) mod nearest;
pub(crate) mod readings;
mod rival;
pub(crate) mod search;
mod stale;
mod views;
pub(crate) mod windows;

pub use self::budget::{Budget, DEFAULT_BUDGET};
pub(crate) use self::classify::classify;
pub(crate) use self::nearest::{replacement_at, replacement_outside};
pub(crate) use self::rival::rival;
