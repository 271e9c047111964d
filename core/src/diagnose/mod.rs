//! Near-miss diagnosis: why an edit's search block did not land, and what
//! the file holds instead. Pure and in memory, and run **only for an edit
//! that failed** (not found, ambiguous, or a tolerant match held back);
//! never for an edit that landed, exactly or under tolerances (a test
//! counts its runs over landed edits of every kind). The analysis it
//! reports, which region of the file is most like the block and how they
//! differ, is [`crate::likeness`], a layer below it that the tolerant guard
//! also asks before it lets a tolerant match be written.
//!
//! * **Not found** — [`not_found`] reports the region of the file most
//!   like the search block (`closest_match`) with each kind of difference
//!   (line endings, indentation, trailing whitespace, invisible characters,
//!   typographic punctuation, escaping, letter case, content) and the exact
//!   current text of that region, so one retry can succeed. It also notices
//!   when the replacement is already present exactly once
//!   (`already_applied`), so an agent stops retrying an edit that was made.
//! * **Ambiguous** — [`ambiguous()`] finds, for each occurrence, the smallest
//!   extension of the block by neighbouring lines that occurs only once
//!   (`unique_context_hint`).
//!
//! What a diagnosis costs, and how a budget of work bounds it on a huge
//! file, is told in [`crate::likeness`].

mod ambiguous;
#[cfg(test)]
mod differences;
mod report;
#[cfg(test)]
pub(crate) mod testutil;

pub use self::ambiguous::{ambiguous, MAX_HINTS};
pub use self::report::not_found;
pub(crate) use self::report::Diagnosis;
