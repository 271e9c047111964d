//! `patchFile` and `batchPatchFiles`.

use serde_json::Value;

use super::{cwd, guarded};
use crate::error::fail_value;
use crate::input::request;
use crate::io::workspace::Workspace;
use crate::model::Options;
use crate::txn::edits;

/// `patchFile`: edits one file.
pub fn patch_file(input: &Value, options: Option<&Value>) -> Value {
    guarded(|| {
        let opts = match request::options(options, cwd) {
            Ok(o) => Options {
                entry: "patchFile",
                ..o
            },
            Err(f) => return fail_value(&f, None),
        };
        let req = match request::patch_request(input) {
            Ok(r) => r,
            Err(f) => return fail_value(&f, None),
        };
        let ws = match Workspace::open(&opts.workspace_root) {
            Ok(w) => w,
            Err(f) => return fail_value(&f, None),
        };
        edits::patch(&ws, &req.file, &opts, req.dry_run)
    })
}

/// `batchPatchFiles`: edits many files in one all-or-nothing transaction.
pub fn batch_patch_files(input: &Value, options: Option<&Value>) -> Value {
    guarded(|| {
        let opts = match request::options(options, cwd) {
            Ok(o) => Options {
                entry: "batchPatchFiles",
                ..o
            },
            Err(f) => return fail_value(&f, None),
        };
        let req = match request::batch_request(input) {
            Ok(r) => r,
            Err(f) => return fail_value(&f, None),
        };
        let ws = match Workspace::open(&opts.workspace_root) {
            Ok(w) => w,
            Err(f) => return fail_value(&f, None),
        };
        edits::batch(&ws, &req.files, &opts, req.dry_run)
    })
}
