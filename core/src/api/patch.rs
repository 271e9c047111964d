//! `patchFile` and `batchPatchFiles`.

use serde_json::Value;

use super::entry::{answer, begin};
use crate::history::Journal;
use crate::input::request;
use crate::txn::edits;

/// `patchFile`: edits one file.
pub(super) fn patch_file(entry: &'static str, input: &Value, options: Option<&Value>) -> Value {
    answer(options, || {
        let (opts, req, ws) = begin(entry, input, options, request::patch_request)?;
        edits::patch(
            &ws,
            &req.file,
            &opts,
            &Journal::for_call(&opts),
            req.dry_run,
        )
    })
}

/// `batchPatchFiles`: edits many files in one all-or-nothing transaction.
pub(super) fn batch_patch_files(
    entry: &'static str,
    input: &Value,
    options: Option<&Value>,
) -> Value {
    answer(options, || {
        let (opts, req, ws) = begin(entry, input, options, request::batch_request)?;
        edits::batch(
            &ws,
            &req.files,
            &opts,
            &Journal::for_call(&opts),
            req.dry_run,
        )
    })
}
