//! `applyEditBlocks` and `applyPatch`: a text in an edit format, parsed by
//! [`crate::input::formats`] into one operation plan and run by
//! [`crate::txn::ops`].

use serde_json::Value;

use super::entry::{answer, cwd};
use crate::history::Journal;
use crate::input::formats::{self, ParseError};
use crate::input::request;
use crate::io::workspace::Workspace;
use crate::model::{Format, OpPlan};
use crate::result::formats::FormatDone;
use crate::result::{Failed, Outcome};
use crate::txn::ops;

/// A parse failure.
pub(crate) fn parse_failure(e: ParseError, format: Format) -> Box<Failed> {
    let mut v = Failed::new(&e.failure(), None);
    v.format = Some(format);
    v.line = Some(e.line);
    v.expected = Some(e.expected);
    Box::new(v)
}

fn run_text(
    input: &Value,
    options: Option<&Value>,
    keys: &[&str],
    what: &str,
    (entry, format): (&'static str, Format),
    parse: fn(&str) -> Result<OpPlan, ParseError>,
) -> Outcome<FormatDone> {
    let (opts, dry_opt) = request::options_and_dry_run(options, cwd)?;
    let opts = crate::model::Options {
        entry: Some(entry),
        ..opts
    };
    let (text, dry_in) = request::text_input(input, keys, what)?;
    let dry = request::pick_dry(dry_in, dry_opt)?;
    let plan = parse(text).map_err(|e| parse_failure(e, format))?;
    let ws = Workspace::open(&opts.workspace_root)?.from_dir(opts.cwd.as_deref())?;
    ops::execute(&ws, &plan, &opts, &Journal::for_call(&opts), dry)
}

/// `applyEditBlocks`: applies SEARCH/REPLACE blocks (see
/// `input::formats::edit_block`).
pub(super) fn apply_edit_blocks(
    entry: &'static str,
    input: &Value,
    options: Option<&Value>,
) -> Value {
    answer(options, || {
        run_text(
            input,
            options,
            &["blockContent", "block_content", "text"],
            "SEARCH/REPLACE block text",
            (entry, Format::EditBlocks),
            formats::edit_block::parse,
        )
    })
}

/// `applyPatch`: applies a Codex `*** Begin Patch` envelope or a unified
/// diff (see `input::formats::apply_patch`), or one operation of OpenAI's
/// `apply_patch` tool given as structure (`{ operation: { type, path, diff,
/// move_to } }`), which is never turned into patch text.
pub(super) fn apply_patch(entry: &'static str, input: &Value, options: Option<&Value>) -> Value {
    answer(options, || {
        if let Some((op, dry_in)) = request::operation_request(input)? {
            let (opts, dry_opt) = request::options_and_dry_run(options, cwd)?;
            let opts = crate::model::Options {
                entry: Some(entry),
                ..opts
            };
            let dry = request::pick_dry(dry_in, dry_opt)?;
            let plan = formats::apply_patch::parse_operation(&op)
                .map_err(|e| parse_failure(e, Format::ApplyPatch))?;
            let ws = Workspace::open(&opts.workspace_root)?.from_dir(opts.cwd.as_deref())?;
            return ops::execute(&ws, &plan, &opts, &Journal::for_call(&opts), dry);
        }
        run_text(
            input,
            options,
            &["patch", "input", "text"],
            "patch text",
            (entry, Format::ApplyPatch),
            formats::apply_patch::parse,
        )
    })
}

#[cfg(test)]
mod tests {
    use std::fs;

    use serde_json::json;

    use crate::api::apply_patch;

    /// Every file a patch writes says how it was written, whatever the
    /// operations before it (a delete writes nothing).
    #[test]
    fn each_written_file_reports_its_write_strategy_after_a_delete() {
        let t = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(t.path()).unwrap();
        fs::write(root.join("a.txt"), "one\ntwo\n").unwrap();
        fs::write(root.join("b.txt"), "x\n").unwrap();
        fs::write(root.join("gone.txt"), "old\n").unwrap();
        let patch = "*** Begin Patch\n*** Update File: a.txt\n@@\n one\n-two\n+2\n*** Delete File: gone.txt\n\
                     *** Update File: b.txt\n@@\n-x\n+y\n*** End Patch\n";
        let r = apply_patch(
            &json!(patch),
            Some(&json!({ "workspaceRoot": root, "durable": false })),
        );
        assert_eq!(r["ok"], true, "{r}");
        let files = r["files"].as_array().unwrap();
        let strategy = |i: usize| files[i].get("write_strategy").cloned();
        assert_eq!(strategy(0), Some(json!("rename")), "{r}");
        assert_eq!(strategy(1), None, "a delete writes nothing: {r}");
        assert_eq!(strategy(2), Some(json!("rename")), "{r}");
        assert_eq!(fs::read_to_string(root.join("b.txt")).unwrap(), "y\n");
    }
}
