//! The printer: the sentences an agent reads, made from facts. A check, a
//! match or a write says *what* happened (which marker, which lines, which
//! parse error, which spelling the caller used) as values; the words, and
//! the published detail that goes with them, are made here, in one place,
//! so a message is changed, checked for tone and measured for tokens where
//! the others are.
//!
//! It sits low in the stack (above `check`, whose verdicts it words, and
//! the vocabulary; below `diagnose`, `matching`, `io` and everything over
//! them), so that every layer that meets a failure names its facts and calls
//! it, instead of carrying them up to a layer that may word them.
//!
//! No other production code formats words or builds a failure from a
//! string literal: `core/tests/suite/structure.rs` fails on a `format!`
//! outside the printer that no `// data:` comment declares data
//! (`no_words_are_formatted_outside_the_printer`) and on a
//! `Failure::invalid("...")` or `Failure::new(code, "...")` there
//! (`no_failure_is_worded_with_a_literal_outside_the_printer`). Short
//! fixed phrases handed to the printer as facts (what a parser expected,
//! the name of a JSON kind or of a line ending) stay where they are
//! decided. Here: the refusals of the checks on new text ([`check`]), the
//! failures of file operations ([`ops`]), the pipeline's own failures
//! ([`writes`]), the journal's and its store's ([`journal`]), the input
//! adapter's refusals of a request's fields ([`fields`]), what
//! a read tells and the text editor's refusals ([`reads`]), the parse
//! errors of blocks, diffs and Codex patches ([`formats`]), the refusals of
//! a text editor command object ([`commands`]), the requests' `INVALID_INPUT`
//! messages ([`request`]), the addon's values that are not JSON ([`js`]),
//! the near-miss diagnosis: the closest match, its differences, an edit
//! already applied ([`diagnosis`]),
//! what the disk layer tells about files and paths: the sandbox, the read
//! path and the commit ([`disk`]),
//! the failures of edits and blocks that did not land ([`misses`]) and of
//! patch hunks ([`hunks`]), what is said of a file not in plain UTF-8
//! ([`encodings`]).

mod check;
mod commands;
mod diagnosis;
mod disk;
mod encodings;
mod fields;
mod formats;
mod hunks;
mod journal;
pub mod js;
mod misses;
mod ops;
mod quote;
mod reads;
mod request;
mod writes;

pub(crate) use self::check::*;
pub(crate) use self::commands::*;
pub(crate) use self::diagnosis::*;
pub(crate) use self::disk::*;
pub(crate) use self::encodings::*;
pub(crate) use self::fields::*;
pub(crate) use self::formats::*;
pub(crate) use self::hunks::*;
pub(crate) use self::journal::*;
pub(crate) use self::misses::*;
pub(crate) use self::ops::*;
pub(crate) use self::quote::*;
pub(crate) use self::reads::*;
pub(crate) use self::request::*;
pub(crate) use self::writes::*;
