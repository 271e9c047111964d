//! `applyDryRun`.

use serde_json::Value;

use super::entry::{answer, cwd};
use crate::error::fail_value;
use crate::history::Journal;
use crate::input::request;
use crate::txn::dry_run;

/// `applyDryRun`: writes exactly what a dry run previewed, once.
pub fn apply_dry_run(input: &Value, options: Option<&Value>) -> Value {
    answer(options, || {
        let opts = match request::options(options, cwd) {
            Ok(o) => crate::model::Options {
                entry: "applyDryRun",
                ..o
            },
            Err(f) => return fail_value(&f, None),
        };
        let req = match request::apply_request(input) {
            Ok(r) => r,
            Err(f) => return fail_value(&f, None),
        };
        dry_run::apply(&req.run_id, &opts, &Journal::for_call(&opts))
    })
}
