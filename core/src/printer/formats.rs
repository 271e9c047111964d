//! The parse errors of the edit formats (`crate::input::formats`):
//! SEARCH/REPLACE blocks and unified diffs, as `PATCH_PARSE_ERROR`
//! messages with the line of the problem.

/// Line `line` holds `found` where `expected` was expected.
pub(crate) fn parse_unexpected(line: usize, expected: &str, found: &str) -> String {
    let shown: String = found.chars().take(80).collect();
    let found = if found.is_empty() {
        "an empty line".to_string()
    } else if shown.len() < found.len() {
        format!("`{shown}…`")
    } else {
        format!("`{shown}`")
    };
    format!("line {line}: expected {expected}, found {found}; nothing was written")
}

/// A problem at line `line` that is not about one unexpected line.
pub(crate) fn parse_other(line: usize, problem: &str) -> String {
    format!("line {line}: {problem}; nothing was written")
}

/// What ends the SEARCH section opened at line `open`.
pub(crate) fn search_end_expected(open: usize) -> String {
    format!("`=======` to end the SEARCH section opened at line {open}")
}

/// What ends the block opened at line `open`.
pub(crate) fn block_end_expected(open: usize) -> String {
    format!("`>>>>>>> REPLACE` to end the block opened at line {open}")
}

/// A block with no file path: `prev` is the line before it (its text and
/// number), if any.
pub(crate) fn no_block_path(prev: Option<(&str, usize)>) -> String {
    let seen = match prev {
        Some((t, n)) if !t.trim().is_empty() => {
            let shown: String = t.trim().chars().take(60).collect();
            format!("line {n} (`{shown}`) is prose, not a file path")
        }
        Some((_, n)) => format!("line {n} is blank"),
        None => "no line comes before it".to_string(),
    };
    format!(
        "expected a file path alone on the line right before `<<<<<<< SEARCH` (or before its code fence), but \
         {seen}, and no earlier block names a file"
    )
}

/// An empty SEARCH section for `path` that is not its first block.
pub(crate) fn empty_search_not_first(path: &str) -> String {
    format!(
        "an empty SEARCH section creates `{path}`, so it must be that file's first block; put the exact text to \
         replace in SEARCH"
    )
}

/// What a hunk line may start with, the header at line `header` still
/// announcing `old_left` old and `new_left` new lines.
pub(crate) fn hunk_line_expected(header: usize, old_left: usize, new_left: usize) -> String {
    format!(
        "a hunk line starting with ` `, `-` or `+` (the header at line {header} announces {old_left} more old and \
         {new_left} more new lines)"
    )
}

/// A hunk line after the hunk at line `header` (`-a,b +c,d`) is full.
pub(crate) fn hunk_overfull(header: usize, old: (usize, usize), new: (usize, usize)) -> String {
    format!(
        "this looks like a hunk line, but the hunk at line {header} (`-{},{} +{},{}`) already has all the lines its \
         header counts; fix the counts in that header",
        old.0, old.1, new.0, new.1
    )
}

/// A hunk of the new file `path` that does more than add.
pub(crate) fn created_only_adds(path: &str) -> String {
    format!("`{path}` is created (`--- /dev/null`), so its hunks can only add lines")
}

/// A hunk of the deleted file `path` that does more than remove.
pub(crate) fn deleted_only_removes(path: &str) -> String {
    format!("`{path}` is deleted (`+++ /dev/null`), so its hunks can only remove lines")
}

/// The section for `path` has no hunks.
pub(crate) fn no_hunks(path: &str) -> String {
    format!("the section for `{path}` has no hunks")
}

/// What the path header `marker` (`*** Add File:` …) lacks: a path.
pub(crate) fn path_after(marker: &str) -> String {
    format!("a path after `{marker}`")
}

/// A parse error `message` of an `apply_patch` operation's diff field.
pub(crate) fn in_operation_diff(message: &str) -> String {
    format!("diff {message}")
}

/// What a created file's diff holds: `+` lines, the text of `path`.
pub(crate) fn plus_line_expected(path: &str) -> String {
    format!("a line starting with `+` (the text of `{path}`)")
}

/// What follows a line of the new file `path`: a `+` line or a header.
pub(crate) fn plus_line_or_header_expected(path: &str) -> String {
    format!("a line starting with `+` (the text of `{path}`) or a `*** ` header")
}

/// What follows `*** Delete File: path`: a header.
pub(crate) fn header_after_delete(path: &str) -> String {
    format!("a `*** ` header after `*** Delete File: {path}`")
}

/// An `update_file` operation of `path` with no hunks and no move.
pub(crate) fn update_no_hunks(path: &str) -> String {
    format!("the update of `{path}` has no hunks; add `@@` and the lines to change")
}

/// An `*** Update File: path` section with no hunks and no move.
pub(crate) fn update_file_no_hunks(path: &str) -> String {
    format!("`*** Update File: {path}` has no hunks; add `@@` and the lines to change")
}

/// A hunk of `path` with no lines after its `@@`.
pub(crate) fn hunk_no_lines(path: &str) -> String {
    format!("this hunk of `{path}` has no lines; add the lines to change after `@@`")
}
