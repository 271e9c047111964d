//! The `INVALID_INPUT` messages of the requests (`crate::input::request`):
//! a field of the wrong kind or value, a rule between fields broken, each
//! under the label of the object it is in (`input`, `edits[2]`, `options`)
//! and in the caller's spelling of the field.

use std::fmt::Display;

use super::quote::shown;
use crate::model::{BadMatch, Tolerance};

/// The label of item `i` of the list `list` (`edits[2]`).
pub(crate) fn item_label(list: &str, i: usize) -> String {
    format!("{list}[{i}]")
}

/// A problem `e` with a field, under the label `what`.
pub(crate) fn under(what: &str, e: impl Display) -> String {
    format!("{what}: {e}")
}

/// An edit gives a count (`e`) and `all: true` (`a`) both.
pub(crate) fn count_and_all(what: &str, e: &str, a: &str) -> String {
    format!("{what}: give either `{e}` or `{a}: true`, not both")
}

/// An edit's count `e` is 0.
pub(crate) fn count_zero(what: &str, e: &str) -> String {
    format!("{what}: `{e}` must be at least 1")
}

/// An edit has no search text (spelt `search`).
pub(crate) fn search_missing(what: &str, search: &str) -> String {
    format!("{what}: `{search}` is required (the exact current text to replace)")
}

/// An edit's search text (spelt `search`) is empty.
pub(crate) fn search_empty(what: &str, search: &str) -> String {
    format!(
        "{what}: `{search}` is empty; send the smallest exact block of current text that occurs once"
    )
}

/// An edit has no replacement (spelt `replace`).
pub(crate) fn replace_missing(what: &str, replace: &str) -> String {
    format!("{what}: `{replace}` is required (use \"\" to delete the text)")
}

/// `edits` is not an array but a `kind`.
pub(crate) fn edits_not_array(what: &str, kind: &str) -> String {
    format!("{what}: `edits` must be an array, got {kind}")
}

/// `edits` is an empty array.
pub(crate) fn edits_empty(what: &str) -> String {
    format!("{what}: `edits` is empty; send at least one edit")
}

/// `edits` holds more than `max` edits.
pub(crate) fn too_many_edits(what: &str, max: usize) -> String {
    format!("{what}: at most {max} edits per file")
}

/// A file gives `edits` and a single pair both.
pub(crate) fn edits_and_pair(what: &str) -> String {
    format!(
        "{what}: give either `edits` or a single `search_block`/`replace_block` pair, not both (a field sent as \
         null counts: leave it out)"
    )
}

/// A batch's `files` is not an array but a `kind`.
pub(crate) fn files_not_array(kind: &str) -> String {
    format!("input: `files` must be an array, got {kind}")
}

/// A batch holds more than `max` files.
pub(crate) fn too_many_files(max: usize) -> String {
    format!("input: at most {max} files per batch")
}

/// `encoding` is `got`, not `"utf-8"`.
pub(crate) fn encoding_not_utf8(got: &str) -> String {
    format!(
        "input: `encoding` can only be \"utf-8\" (write the file as UTF-8 text, replacing a file that is not valid UTF-8 knowingly), got {got}; omit it to keep the file's encoding"
    )
}

/// `line_endings` is `got`, not `"as_sent"`.
pub(crate) fn line_endings_not_as_sent(got: &str) -> String {
    format!(
        "input: `line_endings` can only be \"as_sent\" (write the content's line breaks as sent), got {got}; omit it to keep the line breaks of an existing LF or CRLF file"
    )
}

/// The option `field` is `got`, none of `choices` (`"a", "b" or "c"`).
pub(crate) fn not_a_choice(field: &str, choices: &str, got: &str) -> String {
    format!("`{field}` must be {choices}, got \"{got}\"")
}

/// `lockWaitMs` is over `max`.
pub(crate) fn lock_wait_over(max: u64) -> String {
    format!("`lockWaitMs` must be at most {max} (ten minutes)")
}

/// `dryRunTtlSeconds` is 0 or over `max`.
pub(crate) fn dry_run_ttl_out_of_range(max: u64) -> String {
    format!("`dryRunTtlSeconds` must be from 1 to {max} (one day)")
}

/// `options.cwd` is empty or holds a NUL byte.
pub(crate) fn cwd_invalid() -> &'static str {
    "options: `cwd` must be a directory path inside the workspace root"
}

/// `options.cwd` (`cwd`) cannot be opened (`e`).
pub(crate) fn cwd_unusable(cwd: &std::path::Path, e: &std::io::Error) -> String {
    format!("options: `cwd` {} cannot be used: {e}", cwd.display())
}

/// `options.cwd` (`cwd`) is not inside the workspace root `root`.
pub(crate) fn cwd_outside(cwd: &std::path::Path, root: &std::path::Path) -> String {
    format!(
        "options: `cwd` {} is not inside the workspace root {}",
        cwd.display(),
        root.display()
    )
}

/// No workspace root was given and the current directory is unknown (`e`).
pub(crate) fn no_current_directory(e: &std::io::Error) -> String {
    format!("options: no `workspaceRoot` and no current directory: {e}")
}

/// `options.journal` is a `kind`.
pub(crate) fn journal_option_kind(kind: &str) -> String {
    format!("options: `journal` must be false, true, a directory or an object, got {kind}")
}

/// `undo`'s `id` is a `kind`.
pub(crate) fn undo_id_kind(kind: &str) -> String {
    format!("input: `id` must be a string (a transaction id from history), got {kind}")
}

/// The field `k` of the object labelled `what` is not a boolean.
pub(crate) fn not_boolean(what: &str, k: &str) -> String {
    format!("{what}: `{k}` must be a boolean")
}

/// The input's field `k` is not a string.
pub(crate) fn not_string(k: &str) -> String {
    format!("input: `{k}` must be a string")
}

/// The text (`what`) is given twice, differently, under `keys`.
pub(crate) fn text_twice(what: &str, keys: &[&str]) -> String {
    format!("input: give the {what} once (`{}`)", keys.join("` or `"))
}

/// An unknown field `k` beside the text field `key`.
pub(crate) fn text_unknown_field(k: &str, key: &str) -> String {
    format!("input: unknown field `{k}`; expected `{key}` and optionally `dry_run`")
}

/// No text (`what`) under `key`.
pub(crate) fn text_missing(key: &str, what: &str) -> String {
    format!("input: `{key}` (the {what}) is required")
}

/// The input is neither the text (`what`) nor an object holding it under
/// `key`.
pub(crate) fn text_input_shape(what: &str, key: &str) -> String {
    format!("input must be the {what} as a string, or {{ {key}: string }}")
}

/// An `apply_patch` operation's `type` is `got`.
pub(crate) fn operation_type(got: &str) -> String {
    format!(
        "input.operation: `type` must be \"create_file\", \"update_file\" or \"delete_file\", got {got}"
    )
}

/// `edit_file`'s edit `i` is not `{ oldText, newText }`.
pub(crate) fn edit_file_item(i: usize) -> String {
    format!("edits[{i}] must be {{ oldText, newText }} (exactly these two fields)")
}

/// `edit_file` given the unknown field `k`.
pub(crate) fn edit_file_unknown(k: &str) -> String {
    format!("unknown field `{k}`; edit_file takes `path`, `edits` and `dryRun`")
}

/// `editLines`'s `edits` is a `kind`.
pub(crate) fn line_edits_kind(kind: &str) -> String {
    format!("input: `edits` must be an array of {{ op, pos, end, lines }}, got {kind}")
}

/// `editLines`'s `edits` holds none or more than `max`.
pub(crate) fn line_edits_count(max: usize) -> String {
    format!("input: `edits` must hold 1 to {max} edits")
}

/// An anchored edit's `op` is `got`.
pub(crate) fn line_op(what: &str, got: &str) -> String {
    format!("{what}: `op` must be \"replace\", \"append\" or \"prepend\", got \"{got}\"")
}

/// An anchored edit's `field` (`pos`, `end`) is `got`, not an anchor.
pub(crate) fn not_an_anchor(what: &str, field: &str, got: &str) -> String {
    format!(
        "{what}: `{field}` must be an anchor `LINE#ID` as a read with anchors shows it (e.g. \"12#gk\"), \
         got \"{got}\""
    )
}

/// An anchored edit's `lines` is an array holding a `kind`.
pub(crate) fn lines_item_kind(what: &str, kind: &str) -> String {
    format!(
        "{what}: `lines` must be a string, an array of strings or null, got an array holding {kind}"
    )
}

/// An anchored edit's `lines` holds a CR that ends no line.
pub(crate) fn lines_lone_cr(what: &str) -> String {
    format!(
        "{what}: a line of `lines` holds a CR (`\\r`) that is not part of a line break; send each line as an item of \
         its own (or break the string with `\\n`), without lone CRs"
    )
}

/// Line `n` of an anchored edit's `lines` ends with a CR that no LF
/// follows.
pub(crate) fn lines_trailing_cr(what: &str, n: usize) -> String {
    format!(
        "{what}: line {n} of `lines` ends with a CR (`\\r`) that no LF follows, a lone CR: no line break the file \
         uses. Send each line without its line break (the file's own is written: a CRLF file stays CRLF), so drop \
         that CR; a CR that is the line's own last character (a line ending CR CR LF) cannot be written by an \
         anchored edit: leave that line out of the edit, or change it with a search and replace edit"
    )
}

/// Some lines of an anchored edit carry a read's `LINE#ID|` tag, others
/// not.
pub(crate) fn lines_partly_tagged(what: &str) -> String {
    format!(
        "{what}: some lines of `lines` start with a read's `LINE#ID|` tag and some do not; send each line's text \
         without the tag"
    )
}

/// An anchored edit's `lines` is a `kind`.
pub(crate) fn lines_kind(what: &str, kind: &str) -> String {
    format!("{what}: `lines` must be a string, an array of strings or null, got {kind}")
}

/// A `replace` without `pos`.
pub(crate) fn replace_needs_pos(what: &str) -> String {
    format!("{what}: `replace` needs `pos` (the anchor of the first line to replace)")
}

/// An `append` or `prepend` with `end`.
pub(crate) fn end_for_replace_only(what: &str) -> String {
    format!("{what}: `end` is for `replace` only")
}

/// An `append` or `prepend` with no lines.
pub(crate) fn nothing_to_insert(what: &str) -> String {
    format!("{what}: `lines` is empty: nothing to insert")
}

/// A range whose `end` (shown `end`) is above its `pos` (shown `pos`).
pub(crate) fn end_before_pos(what: &str, end: &str, pos: &str) -> String {
    format!("{what}: `end` ({end}) comes before `pos` ({pos})")
}

/// A `match` value that is not `"exact"` or a list of tolerances.
pub(crate) fn bad_match(bad: &BadMatch) -> String {
    let names = Tolerance::ALL
        .iter()
        .map(|t| format!("\"{}\"", t.as_str()))
        .collect::<Vec<_>>()
        .join(", ");
    match bad {
        BadMatch::UnknownTolerance(item) => format!(
            "`match` lists an unknown tolerance {}; allowed: {names}",
            shown(item)
        ),
        BadMatch::NotAList(value) => format!(
            "`match` must be \"exact\" or a list of tolerances among {names}, got {}",
            shown(value)
        ),
    }
}

/// `files` is missing.
pub(crate) fn files_missing() -> &'static str {
    "input: `files` is required (an array of per-file edits)"
}

/// `files` is empty.
pub(crate) fn files_empty() -> &'static str {
    "input: `files` is empty; send at least one file"
}

/// `readFile`'s `limit` is 0.
pub(crate) fn read_limit_zero() -> &'static str {
    "input: `limit` must be at least 1 (omit it to read to the end)"
}

/// `workspaceRoot` is empty.
pub(crate) fn workspace_root_empty() -> &'static str {
    "options: `workspaceRoot` is empty"
}

/// `workspaceRoot` holds a NUL byte.
pub(crate) fn workspace_root_nul() -> &'static str {
    "options: `workspaceRoot` contains a NUL byte"
}

/// `options.journal` names an empty directory or one with a NUL byte.
pub(crate) fn journal_dir_invalid() -> &'static str {
    "options: `journal` directory must be a non-empty path without NUL bytes"
}

/// An anchored edit names no `lines`.
pub(crate) fn lines_missing(what: &str) -> String {
    format!("{what}: `lines` is required (the new lines; `null` or `[]` deletes)")
}

/// `PATCH_FILE_JOURNAL` is neither a switch nor an absolute directory.
pub(crate) fn journal_env_invalid(given: &str) -> String {
    format!(
        "PATCH_FILE_JOURNAL must be off, on or an absolute directory, not {given:?}; nothing was run"
    )
}

/// `PATCH_FILE_STATE_DIR` is not an absolute directory.
pub(crate) fn state_dir_env_invalid(given: &str) -> String {
    format!("PATCH_FILE_STATE_DIR must be an absolute directory, not {given:?}; nothing was run")
}

/// `history`'s `limit` is 0.
pub(crate) fn history_limit_zero() -> &'static str {
    "input: `limit` must be at least 1"
}

/// `dry_run` and `dryRun` in the options differ.
pub(crate) fn dry_run_spellings_differ() -> &'static str {
    "options: `dry_run` and `dryRun` differ; send one"
}

/// An `apply_patch` operation's `path` is empty.
pub(crate) fn operation_path_empty() -> &'static str {
    "input.operation: `path` must be a non-empty path relative to the workspace root"
}

/// A create or update operation without `diff`.
pub(crate) fn operation_needs_diff() -> &'static str {
    "input.operation: a create_file or update_file operation needs `diff` (a string)"
}

/// `move_to` on an operation that is not an update.
pub(crate) fn operation_move_not_update() -> &'static str {
    "input.operation: `move_to` goes with an update_file operation only"
}

/// `dry_run` given in input and options, differently.
pub(crate) fn dry_run_both_differ() -> &'static str {
    "`dry_run` is given in both input and options with different values"
}

/// `edit_file`'s input is not an object.
pub(crate) fn edit_file_not_object() -> &'static str {
    "input must be an object: { path, edits: [{ oldText, newText }], dryRun? }"
}

/// `edit_file`'s `edits` is not an array.
pub(crate) fn edit_file_edits_not_array() -> &'static str {
    "`edits` must be an array of { oldText, newText }"
}

/// `edit_file` without `path`.
pub(crate) fn edit_file_path_missing() -> &'static str {
    "`path` is required"
}

/// `edit_file` without `edits`.
pub(crate) fn edit_file_edits_missing() -> &'static str {
    "`edits` is required: an array of { oldText, newText }"
}

/// `options.signal` reached the engine: not an AbortSignal, or given to a
/// synchronous call (the JS API watches a real one and never hands it on).
pub(crate) fn signal_not_abort_signal() -> String {
    "options: `signal` must be an AbortSignal, and only the async functions take one".to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::MatchMode;
    use serde_json::json;

    #[test]
    fn a_bad_match_is_worded_with_the_value_sent_and_every_tolerance() {
        let names =
            "\"line_endings\", \"trailing_whitespace\", \"indentation\", \"unicode_punctuation\"";
        let e = MatchMode::from_json(&json!(["indentation", "case"])).unwrap_err();
        assert_eq!(e, BadMatch::UnknownTolerance("\"case\"".into()));
        assert_eq!(
            bad_match(&e),
            format!("`match` lists an unknown tolerance \"case\"; allowed: {names}")
        );
        let e = MatchMode::from_json(&json!("fuzzy")).unwrap_err();
        assert_eq!(
            bad_match(&e),
            format!(
                "`match` must be \"exact\" or a list of tolerances among {names}, got \"fuzzy\""
            )
        );
        // A long value is quoted cut short, not echoed whole.
        let long = "x".repeat(10_000);
        let m = bad_match(&MatchMode::from_json(&json!(long)).unwrap_err());
        assert!(m.ends_with("… (10002 characters)"), "{m}");
    }
}
