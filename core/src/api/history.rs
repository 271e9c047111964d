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
    // (The journal's paths are relative to the root: `cwd` is for the
    // caller's own path, which `history` resolves apart.)
    let ws = Workspace::open(&opts.workspace_root)?;
    Ok((opts, ws))
}

/// `history`: the workspace's journaled transactions, newest first.
pub(super) fn history(entry: &'static str, input: &Value, options: Option<&Value>) -> Value {
    answer(options, || {
        let req = request::history_request(input)?;
        let (opts, ws) = open(options, entry)?;
        // The caller's path (from `cwd`), as the root-relative path the
        // journal names; as it is when it does not resolve (a file deleted
        // since, with its directory), but never one outside the root or
        // not a path at all (those are refused as by every other call).
        let file = match &req.file_path {
            Some(p) => {
                // (From the root, the journal's workspace; from `cwd`, one
                // opened for it.)
                let from_cwd = match &opts.cwd {
                    Some(cwd) => Some(Workspace::open(&opts.workspace_root)?.from_dir(Some(cwd))?),
                    None => None,
                };
                let here = from_cwd.as_ref().unwrap_or(&ws);
                let plan = crate::io::workspace::Intent::Plan { create_dirs: false };
                match here.resolve(p, plan) {
                    Ok(r) => Some(r.rel_path),
                    Err(f)
                        if matches!(
                            f.code,
                            crate::error::ErrorCode::PATH_OUTSIDE_WORKSPACE
                                | crate::error::ErrorCode::INVALID_INPUT
                        ) =>
                    {
                        return Err(f.into())
                    }
                    Err(_) => Some(p.clone()),
                }
            }
            None => None,
        };
        journal::history(&ws, &opts, req.limit, file.as_deref())
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
