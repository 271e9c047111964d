//! `applyDryRun`.

use serde_json::Value;

use super::entry::{answer_typed, cwd};
use crate::history::Journal;
use crate::input::request;
use crate::model::{EntryPoint, Options};
use crate::txn::dry_run;

/// `applyDryRun`: writes exactly what a dry run previewed, once.
pub fn apply_dry_run(input: &Value, options: Option<&Value>) -> Value {
    answer_typed(options, || {
        let opts = Options {
            entry: Some(EntryPoint::ApplyDryRun),
            ..request::options(options, cwd)?
        };
        let req = request::apply_request(input)?;
        dry_run::apply(&req.run_id, &opts, &Journal::for_call(&opts))
    })
}
