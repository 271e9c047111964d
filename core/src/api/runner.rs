//! One runner for every entry point: [`run`] takes the entry point by
//! name ([`EntryPoint`]), so the binding, the tests and anything else that
//! calls the engine go through one door, and a new entry point that is not
//! wired here does not compile.
//!
//! The table below is the one place an entry point is wired: the function
//! that answers it and the result type it answers with, whose schema is
//! its entry in the published contract ([`contract`]: the schema generated
//! from the result types by [`crate::result::contract`], and what the
//! compact view (`options.results: "compact"`) may leave out, which only
//! this layer knows). `schemas/results.json` is that document; the test
//! suite fails when it is out of date (`tests/suite/contract.rs`), and the
//! MCP output schemas and the d.ts result types are made from the file.

use schemars::SchemaGenerator;
use serde_json::Value;

use crate::model::EntryPoint;
use crate::result::edits::{AppliedRun, BatchDone, PatchDone, WriteDone};
use crate::result::files::ReadDone;
use crate::result::formats::FormatDone;
use crate::result::history::{Cleared, HistoryDone, Undone};
use crate::result::lines::LinesDone;
use crate::result::text_editor::TextEditorDone;
use crate::result::Answer;

/// Each entry point: the function that runs it and the result it answers
/// (its success type; a failure is `Failed` for all).
macro_rules! entry_points {
    ($(EntryPoint::$entry:ident => $run:path, $done:ty;)*) => {
        /// The function that answers `entry`.
        fn runner(entry: EntryPoint) -> fn(&Value, Option<&Value>) -> Value {
            match entry {
                $(EntryPoint::$entry => $run,)*
            }
        }

        /// The schema of what `entry` answers, added to `g`.
        fn result_schema(entry: EntryPoint, g: &mut SchemaGenerator) -> Value {
            match entry {
                $(EntryPoint::$entry => g.subschema_for::<Answer<$done>>().to_value(),)*
            }
        }
    };
}

entry_points! {
    EntryPoint::PatchFile => super::patch::patch_file, PatchDone;
    EntryPoint::BatchPatchFiles => super::patch::batch_patch_files, BatchDone;
    EntryPoint::ReadFile => super::files::read_file, ReadDone;
    EntryPoint::WriteFile => super::files::write_file, WriteDone;
    EntryPoint::ApplyDryRun => super::dry_run::apply_dry_run, AppliedRun;
    EntryPoint::ApplyEditBlocks => super::formats::apply_edit_blocks, FormatDone;
    EntryPoint::ApplyPatch => super::formats::apply_patch, FormatDone;
    // editFile is patchFile under the filesystem server's input shape.
    EntryPoint::EditFile => super::edit_file::edit_file, PatchDone;
    EntryPoint::TextEditor => super::text_editor::text_editor, TextEditorDone;
    EntryPoint::EditLines => super::lines::edit_lines, LinesDone;
    EntryPoint::History => super::history::history, HistoryDone;
    EntryPoint::Undo => super::history::undo, Undone;
    EntryPoint::JournalClear => super::history::journal_clear, Cleared;
}

/// The contract document: `$defs` (every result type), `results` (each
/// entry point's result), and `compact.optional` (the fields a compact
/// result may omit although the full one has them).
pub fn contract() -> Value {
    let mut doc = crate::result::contract(result_schema);
    doc["compact"] = serde_json::json!({ "optional": super::view::MAY_DROP });
    doc
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
    runner(entry)(input, options)
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
