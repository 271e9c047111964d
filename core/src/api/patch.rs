//! `patchFile` and `batchPatchFiles`.

use serde_json::Value;

use super::entry::{answer_typed, begin};
use crate::history::Journal;
use crate::input::request;
use crate::model::EntryPoint;
use crate::txn::edits;

/// `patchFile`: edits one file.
pub fn patch_file(input: &Value, options: Option<&Value>) -> Value {
    answer_typed(options, || {
        let (opts, req, ws) = begin(
            EntryPoint::PatchFile,
            input,
            options,
            request::patch_request,
        )?;
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
pub fn batch_patch_files(input: &Value, options: Option<&Value>) -> Value {
    answer_typed(options, || {
        let (opts, req, ws) = begin(
            EntryPoint::BatchPatchFiles,
            input,
            options,
            request::batch_request,
        )?;
        edits::batch(
            &ws,
            &req.files,
            &opts,
            &Journal::for_call(&opts),
            req.dry_run,
        )
    })
}
