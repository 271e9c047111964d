//! `history`, `undo` and `journalClear`: the workspace's edit journal
//! (see [`crate::history`] and `docs/journal.md`).

use serde_json::Value;

use super::entry::{answer, cwd};
use crate::history as journal;
use crate::input::request;
use crate::io::workspace::Workspace;
use crate::model::Options;
use crate::result::Failed;

/// Options and workspace of a journal call.
fn open(options: Option<&Value>, entry: &'static str) -> Result<(Options, Workspace), Box<Failed>> {
    let opts = Options {
        entry: Some(entry),
        ..request::options(options, cwd)?
    };
    let ws = Workspace::open(&opts.workspace_root)?;
    Ok((opts, ws))
}

/// `history`: the workspace's journaled transactions, newest first.
pub(super) fn history(entry: &'static str, input: &Value, options: Option<&Value>) -> Value {
    answer(options, || {
        let req = request::history_request(input)?;
        let (opts, ws) = open(options, entry)?;
        journal::history(&ws, &opts, req.limit, req.file_path.as_deref())
    })
}

/// `undo`: restores every file of a journaled transaction (default: the
/// newest one not yet undone) to its bytes before it, all or nothing.
pub(super) fn undo(entry: &'static str, input: &Value, options: Option<&Value>) -> Value {
    answer(options, || {
        let req = request::undo_request(input)?;
        let (opts, ws) = open(options, entry)?;
        journal::undo(&ws, &opts, req.id.as_deref(), req.dry_run)
    })
}

/// `journalClear`: removes every entry of the workspace's journal.
pub(super) fn journal_clear(entry: &'static str, _input: &Value, options: Option<&Value>) -> Value {
    answer(options, || {
        let (opts, ws) = open(options, entry)?;
        journal::clear(&ws, &opts)
    })
}
