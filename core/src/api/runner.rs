//! One runner for every entry point: [`run`] takes the entry point by
//! name ([`EntryPoint`]), so the binding, the tests and anything else that
//! calls the engine go through one door, and a new entry point that is not
//! wired here does not compile.

use serde_json::Value;

use crate::model::EntryPoint;

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
    let f: fn(&Value, Option<&Value>) -> Value = match entry {
        EntryPoint::PatchFile => super::patch::patch_file,
        EntryPoint::BatchPatchFiles => super::patch::batch_patch_files,
        EntryPoint::ReadFile => super::files::read_file,
        EntryPoint::WriteFile => super::files::write_file,
        EntryPoint::ApplyDryRun => super::dry_run::apply_dry_run,
        EntryPoint::ApplyEditBlocks => super::formats::apply_edit_blocks,
        EntryPoint::ApplyPatch => super::formats::apply_patch,
        EntryPoint::EditFile => super::edit_file::edit_file,
        EntryPoint::TextEditor => super::text_editor::text_editor,
        EntryPoint::EditLines => super::lines::edit_lines,
        EntryPoint::History => super::history::history,
        EntryPoint::Undo => super::history::undo,
        EntryPoint::JournalClear => super::history::journal_clear,
    };
    f(input, options)
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
}
