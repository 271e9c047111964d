//! Drop-in parameter sets of other tools' contracts, so that a user can
//! swap servers without changing prompts.
//!
//! - [`edit_file`]: the input shape of the MCP reference filesystem server's
//!   `edit_file` tool, `{ path, edits: [{ oldText, newText }], dryRun }`, run
//!   as a `patchFile` multi-edit. Unlike that server, every `oldText` must
//!   occur exactly once (it applies the first occurrence), and all edits
//!   apply together or not at all.

use serde_json::Value;

use super::entry::{answer, failure};
use super::patch::patch_file;
use crate::input::request;

/// `editFile`: server-filesystem's `edit_file` input, exact-once. It
/// answers as `patchFile` does; an input it cannot translate is refused
/// before that.
pub fn edit_file(input: &Value, options: Option<&Value>) -> Value {
    answer(options, || match request::edit_file_input(input) {
        Ok(v) => patch_file(&v, options),
        Err(f) => failure(&f),
    })
}
