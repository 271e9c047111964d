//! The refusals of a text editor command object
//! (`crate::input::formats::text_editor`): a parameter or command missing,
//! misspelt, mistyped or unknown, as `INVALID_INPUT` messages.

use super::quote::shown;

/// The commands the text editor takes, as the refusals list them.
const COMMANDS: &str = "`view`, `create`, `str_replace`, `insert` or `undo_edit`";

/// The command is not a JSON object.
pub(crate) fn command_not_object() -> String {
    "the text editor command must be an object like {\"command\": \"view\", \"path\": \"src/a.ts\"}"
        .to_string()
}

/// No `command` was sent.
pub(crate) fn command_missing() -> String {
    format!("`command` is required: one of {COMMANDS}")
}

/// `name` is not one of the commands.
pub(crate) fn unknown_command(name: &str) -> String {
    format!("unknown command `{}`; use one of {COMMANDS}", shown(name))
}

/// `first` and `second` spell one parameter, sent with different values.
pub(crate) fn same_parameter_twice(first: &str, second: &str) -> String {
    format!("`{first}` and `{second}` are the same parameter with different values; send one")
}

/// The parameter `key` is not a string.
pub(crate) fn not_a_string(key: &str) -> String {
    format!("`{key}` must be a string")
}

/// The parameter `key` is not a boolean.
pub(crate) fn not_a_boolean(key: &str) -> String {
    format!("`{key}` must be a boolean")
}

/// The parameter `key` is not a non-negative integer.
pub(crate) fn not_a_uint(key: &str) -> String {
    format!("`{key}` must be a non-negative integer")
}

/// The parameter `key`, which `command` needs, is missing.
pub(crate) fn required_for(key: &str, command: &str) -> String {
    format!("`{key}` is required for `{command}`")
}

/// The `path` sent is empty.
pub(crate) fn path_empty() -> String {
    "`path` is empty".to_string()
}

/// `insert` was sent without `insert_line`.
pub(crate) fn insert_line_missing() -> String {
    "`insert_line` is required for `insert` (0 inserts at the top)".to_string()
}

/// `insert` was sent without `insert_text` (or `new_str`).
pub(crate) fn insert_text_missing() -> String {
    "`insert_text` (or `new_str`) is required for `insert`".to_string()
}

/// The array `key` is not a valid `[start, end]` line range.
pub(crate) fn view_range_invalid(key: &str) -> String {
    format!(
        "`{key}` must be [start, end] with 1 <= start <= end, or end = -1 for the end of the file"
    )
}

/// The parameter `key` is not an array `[start, end]`.
pub(crate) fn view_range_not_array(key: &str) -> String {
    format!("`{key}` must be an array [start, end]")
}

/// The text to replace, sent as `key`, is empty.
pub(crate) fn old_str_empty(key: &str) -> String {
    format!("`{key}` is empty; send the exact text to replace (it must occur exactly once)")
}

/// `key` is not a parameter of `command`; `near` is the one it may misspell.
pub(crate) fn not_a_parameter(key: &str, command: &str, near: Option<&str>) -> String {
    let near = near
        .map(|n| format!(" (did you mean `{n}`?)"))
        .unwrap_or_default();
    format!("`{}` is not a parameter of `{command}`{near}", shown(key))
}

/// The parameters `listed` (already worded as a list) are not parameters of
/// `command`.
pub(crate) fn not_parameters(listed: &str, command: &str) -> String {
    format!("{listed} are not parameters of `{command}`")
}
