//! `applyEditBlocks` and `applyPatch`: a text in an edit format, parsed by
//! [`crate::input::formats`] into one operation plan and run by
//! [`crate::txn::ops`].

use serde_json::{json, Value};

use super::entry::{answer, cwd};
use crate::error::fail_value;
use crate::history::Journal;
use crate::input::formats::{self, ParseError};
use crate::input::request;
use crate::io::workspace::Workspace;
use crate::model::OpPlan;
use crate::txn::ops;

/// A parse failure as a result object.
pub(crate) fn parse_failure(e: &ParseError, format: &str) -> Value {
    let mut v = fail_value(&e.failure(), None);
    v["format"] = json!(format);
    v["line"] = json!(e.line);
    v["expected"] = json!(e.expected);
    v
}

fn run_text(
    input: &Value,
    options: Option<&Value>,
    keys: &[&str],
    what: &str,
    guess: &str,
    parse: fn(&str) -> Result<OpPlan, ParseError>,
) -> Value {
    let (opts, dry_opt) = match request::options_and_dry_run(options, cwd) {
        Ok((o, d)) => (
            crate::model::Options {
                entry: if guess == "edit_blocks" {
                    "applyEditBlocks"
                } else {
                    "applyPatch"
                },
                ..o
            },
            d,
        ),
        Err(f) => return fail_value(&f, None),
    };
    let (text, dry_in) = match request::text_input(input, keys, what) {
        Ok(t) => t,
        Err(f) => return fail_value(&f, None),
    };
    let dry = match request::pick_dry(dry_in, dry_opt) {
        Ok(d) => d,
        Err(f) => return fail_value(&f, None),
    };
    let plan = match parse(text) {
        Ok(p) => p,
        Err(e) => return parse_failure(&e, guess),
    };
    let ws = match Workspace::open(&opts.workspace_root) {
        Ok(w) => w,
        Err(f) => return fail_value(&f, None),
    };
    ops::execute(&ws, &plan, &opts, &Journal::for_call(&opts), dry).unwrap_or_else(|v| v)
}

/// `applyEditBlocks`: applies SEARCH/REPLACE blocks (see
/// [`formats::edit_block`]).
pub fn apply_edit_blocks(input: &Value, options: Option<&Value>) -> Value {
    answer(options, || {
        run_text(
            input,
            options,
            &["blockContent", "block_content", "text"],
            "SEARCH/REPLACE block text",
            "edit_blocks",
            formats::edit_block::parse,
        )
    })
}

/// `applyPatch`: applies a Codex `*** Begin Patch` envelope or a unified
/// diff (see [`formats::apply_patch`]).
pub fn apply_patch(input: &Value, options: Option<&Value>) -> Value {
    answer(options, || {
        run_text(
            input,
            options,
            &["patch", "input", "text"],
            "patch text",
            "apply_patch",
            formats::apply_patch::parse,
        )
    })
}
