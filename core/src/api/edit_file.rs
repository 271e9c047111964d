//! Drop-in parameter sets of other tools' contracts, so that a user can
//! swap servers without changing prompts.
//!
//! - [`edit_file`]: the input shape of the MCP reference filesystem server's
//!   `edit_file` tool, `{ path, edits: [{ oldText, newText }], dryRun }`, run
//!   as a `patchFile` multi-edit. Unlike that server, every `oldText` must
//!   occur exactly once (it applies the first occurrence), and all edits
//!   apply together or not at all.

use serde_json::Value;

use super::entry::{answer, begin};
use crate::history::Journal;
use crate::input::request;
use crate::txn::edits;

/// `editFile`: server-filesystem's `edit_file` input, exact-once. Its input
/// is translated to a `patchFile` request and run through the same layer
/// below (`txn::edits::patch`), so it answers as `patchFile` does; an input
/// it cannot translate is refused before the options are read.
pub(super) fn edit_file(entry: &'static str, input: &Value, options: Option<&Value>) -> Value {
    answer(options, || {
        let translated = request::edit_file_input(input)?;
        // Journaled as what the caller called.
        let (opts, req, ws) = begin(entry, &translated, options, request::patch_request)?;
        edits::patch(
            &ws,
            &req.file,
            &opts,
            &Journal::for_call(&opts),
            req.dry_run,
        )
    })
}
