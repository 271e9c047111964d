//! The engine's integration tests, built as one binary.
//!
//! Each test crate links the whole engine and its compiled grammars: with
//! one crate per topic a one-line change relinked 29 binaries. The topics
//! are modules of `suite` instead. Three files stay binaries of their own
//! because they set process-wide state every thread of a binary shares:
//! `journal.rs` chooses the per-user state directory through the
//! environment, `metadata.rs` switches it (and thread credentials) per
//! user, and `journal_fuzz.rs` installs a global allocator that measures
//! the largest allocation. (`replay/` is the benchmarks' harness.) Tests that
//! run a child process re-run this binary with the child's full test name
//! ([`common::test_name`]).

mod common;
mod suite;
