//! One runner for every entry point: [`run`] takes the entry point by
//! name ([`EntryPoint`]), so the binding, the tests and anything else that
//! calls the engine go through one door.
//!
//! The table below is the one place an entry point is declared: its
//! variant of [`EntryPoint`], its JavaScript name, the function that
//! answers it and the result type it answers with, whose schema is
//! its entry in the published contract ([`contract`]: the schema generated
//! from the result types by [`crate::result::contract`], and what the
//! compact view (`options.results: "compact"`) may leave out, which only
//! this layer knows). `schemas/results.json` is that document; the test
//! suite fails when it is out of date (`tests/suite/contract.rs`), and the
//! MCP output schemas and the d.ts result types are made from the file.

use serde_json::Value;

// The files of the entry points, as modules alone (`{self}`): the names of
// some are also the names of the functions below.
use super::edit_file::{self};
use super::history::{self};
use super::text_editor::{self};
use super::{dry_run, files, formats, lines, patch};
use crate::result::edits::{AppliedRun, BatchDone, PatchDone, WriteDone};
use crate::result::files::ReadDone;
use crate::result::formats::FormatDone;
use crate::result::history::{Cleared, HistoryDone, Undone};
use crate::result::lines::LinesDone;
use crate::result::text_editor::TextEditorDone;
use crate::result::{Answer, ResultOf};

/// Each entry point: its variant of [`EntryPoint`], the function that runs
/// it, the result it answers (its success type; a failure is `Failed` for
/// all) and its name, as JavaScript calls it and the journal records it.
macro_rules! entry_points {
    ($(EntryPoint::$entry:ident => $file:ident::$run:ident, $done:ty, $name:literal;)*) => {
        /// The engine's entry points. [`run`] runs one; the binding exports
        /// each as a function of the same name.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum EntryPoint {
            $($entry,)*
        }

        impl EntryPoint {
            /// Every entry point.
            pub const ALL: [EntryPoint; [$($name),*].len()] = [$(EntryPoint::$entry,)*];

            /// Its JavaScript name (the journal records it).
            pub fn name(self) -> &'static str {
                match self {
                    $(EntryPoint::$entry => $name,)*
                }
            }
        }

        /// The function that answers `entry` (given its name).
        fn runner(entry: EntryPoint) -> fn(&'static str, &Value, Option<&Value>) -> Value {
            match entry {
                $(EntryPoint::$entry => $file::$run,)*
            }
        }

        $(
            #[doc = concat!("`", $name, "`: [`run`] of `EntryPoint::", stringify!($entry), "`.")]
            pub fn $run(input: &Value, options: Option<&Value>) -> Value {
                run(EntryPoint::$entry, input, options)
            }
        )*

        /// Each entry point's name, and how to add the schema of what it
        /// answers to a generator.
        const RESULTS: [(&str, ResultOf); [$($name),*].len()] = [
            $(($name, |g| g.subschema_for::<Answer<$done>>().to_value()),)*
        ];
    };
}

entry_points! {
    EntryPoint::PatchFile => patch::patch_file, PatchDone, "patchFile";
    EntryPoint::BatchPatchFiles => patch::batch_patch_files, BatchDone, "batchPatchFiles";
    EntryPoint::ReadFile => files::read_file, ReadDone, "readFile";
    EntryPoint::WriteFile => files::write_file, WriteDone, "writeFile";
    EntryPoint::ApplyDryRun => dry_run::apply_dry_run, AppliedRun, "applyDryRun";
    EntryPoint::ApplyEditBlocks => formats::apply_edit_blocks, FormatDone, "applyEditBlocks";
    EntryPoint::ApplyPatch => formats::apply_patch, FormatDone, "applyPatch";
    // editFile is patchFile under the filesystem server's input shape.
    EntryPoint::EditFile => edit_file::edit_file, PatchDone, "editFile";
    EntryPoint::TextEditor => text_editor::text_editor, TextEditorDone, "textEditor";
    EntryPoint::EditLines => lines::edit_lines, LinesDone, "editLines";
    EntryPoint::History => history::history, HistoryDone, "history";
    EntryPoint::Undo => history::undo, Undone, "undo";
    EntryPoint::JournalClear => history::journal_clear, Cleared, "journalClear";
}

/// The contract document: `$defs` (every result type), `results` (each
/// entry point's result), and `compact.optional` (the fields a compact
/// result may omit although the full one has them).
pub fn contract() -> Value {
    crate::result::contract(&RESULTS)
}

/// [`run`] with locks that fail at once (`FILE_LOCKED`) instead of waiting,
/// for a caller on a shared thread pool (the addon's async calls run on
/// libuv's): no pool thread ever waits on a lock; the caller retries.
pub fn run_nonblocking(entry: EntryPoint, input: &Value, options: Option<&Value>) -> Value {
    crate::io::locks::nonblocking(|| run(entry, input, options))
}

/// Runs the entry point `entry` on the caller's JSON `input` and `options`,
/// answering its result as JSON (never panicking outward: each entry point
/// is guarded).
pub fn run(entry: EntryPoint, input: &Value, options: Option<&Value>) -> Value {
    runner(entry)(entry.name(), input, options)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every entry point answers a result object through the runner, and a
    /// bad input is a failure, never a panic (journalClear reads no input).
    #[test]
    fn every_entry_point_runs_and_answers_a_result() {
        let t = tempfile::tempdir().unwrap();
        let options = serde_json::json!({ "workspaceRoot": t.path(), "journal": false });
        for e in EntryPoint::ALL {
            let v = run(
                e,
                &serde_json::json!({ "no_such_field": 1 }),
                Some(&options),
            );
            if e == EntryPoint::JournalClear {
                assert_eq!(v["ok"], true, "{v}");
                continue;
            }
            assert_eq!(v["ok"], false, "{}: {v}", e.name());
            assert_eq!(v["code"], "INVALID_INPUT", "{}: {v}", e.name());
        }
    }

    #[test]
    fn the_contract_lists_the_text_editor_result() {
        let c = contract();
        assert!(c["results"]["textEditor"].is_object());
        for t in [
            "FileView",
            "DirView",
            "EditDone",
            "UndoEdit",
            "Command",
            "LineEnding",
        ] {
            assert!(c["$defs"][t].is_object(), "{t} is defined");
        }
    }
}
