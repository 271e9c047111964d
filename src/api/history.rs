//! `history`, `undo` and `journalClear`: the workspace's edit journal
//! (see [`crate::history`] and `docs/journal.md`).

use serde::Serialize;
use serde_json::Value;

use super::entry::{answer, cwd};
use crate::error::{fail_value, ErrorCode, Failure};
use crate::history as journal;
use crate::input::request;
use crate::io::workspace::Workspace;
use crate::model::Options;
use crate::result::{Answer, Outcome};

/// Options and workspace of a journal call.
fn open(options: Option<&Value>, entry: &'static str) -> Result<(Options, Workspace), Value> {
    let opts = match request::options(options, cwd) {
        Ok(o) => Options { entry, ..o },
        Err(f) => return Err(fail_value(&f, None)),
    };
    let ws = Workspace::open(&opts.workspace_root).map_err(|f| fail_value(&f, None))?;
    Ok((opts, ws))
}

/// The result of a journal call as JSON: the one place it is serialized.
fn json<T: Serialize>(outcome: Outcome<T>) -> Value {
    serde_json::to_value(Answer::from(outcome)).unwrap_or_else(|e| {
        let f = Failure::new(
            ErrorCode::INTERNAL_ERROR,
            format!("internal error (the result cannot be shown: {e}); nothing was written"),
        );
        fail_value(&f, None)
    })
}

/// `history`: the workspace's journaled transactions, newest first.
pub fn history(input: &Value, options: Option<&Value>) -> Value {
    answer(options, || {
        let req = match request::history_request(input) {
            Ok(r) => r,
            Err(f) => return fail_value(&f, None),
        };
        let (opts, ws) = match open(options, "history") {
            Ok(x) => x,
            Err(v) => return v,
        };
        json(journal::history(
            &ws,
            &opts,
            req.limit,
            req.file_path.as_deref(),
        ))
    })
}

/// `undo`: restores every file of a journaled transaction (default: the
/// newest one not yet undone) to its bytes before it, all or nothing.
pub fn undo(input: &Value, options: Option<&Value>) -> Value {
    answer(options, || {
        let req = match request::undo_request(input) {
            Ok(r) => r,
            Err(f) => return fail_value(&f, None),
        };
        let (opts, ws) = match open(options, "undo") {
            Ok(x) => x,
            Err(v) => return v,
        };
        json(journal::undo(&ws, &opts, req.id.as_deref(), req.dry_run))
    })
}

/// `journalClear`: removes every entry of the workspace's journal.
pub fn journal_clear(_input: &Value, options: Option<&Value>) -> Value {
    answer(options, || {
        let (opts, ws) = match open(options, "journalClear") {
            Ok(x) => x,
            Err(v) => return v,
        };
        json(journal::clear(&ws, &opts))
    })
}
