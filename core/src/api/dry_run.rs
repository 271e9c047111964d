//! `applyDryRun`.

use serde_json::Value;

use super::entry::{answer, cwd};
use crate::history::Journal;
use crate::input::request;
use crate::model::Options;
use crate::txn::dry_run;

/// `applyDryRun`: writes exactly what a dry run previewed, once.
pub(super) fn apply_dry_run(entry: &'static str, input: &Value, options: Option<&Value>) -> Value {
    answer(options, || {
        let opts = Options {
            entry: Some(entry),
            ..request::options(options, cwd)?
        };
        let req = request::apply_request(input)?;
        dry_run::apply(&req.run_id, &opts, &Journal::for_call(&opts))
    })
}
