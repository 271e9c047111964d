//! What the disk layer (`crate::io`) tells about files and paths: the
//! sandbox refusing a path, the read path failing or reading a torn file,
//! the commit failing, warning or finding a file changed under it.

use std::fmt::Display;
use std::io::Error;

use super::reads::{cannot_open, over_max_file_bytes};

// ---------------------------------------------------------------------------
// The sandbox (`io::workspace`)

/// `path` leads out of the workspace root.
pub(crate) fn outside_workspace(path: &str) -> String {
    format!(
        "`{path}` resolves outside the workspace root; only files inside it can be read or written"
    )
}

/// The absolute `path` reaches the file `real` inside the workspace root
/// through a link outside it.
pub(crate) fn outside_through_link(path: &str, real: &str) -> String {
    format!(
        "`{path}` reaches `{real}` through a symlink outside the workspace root, which is not followed; send \
         `{real}` (or the path relative to the root)"
    )
}

/// Resolving `path` failed at a step (`what`) with `e`.
pub(crate) fn path_unreadable(path: &str, what: &str, e: &Error) -> String {
    format!("cannot read `{path}`: {what}: {e}")
}

/// `path` names a directory.
pub(crate) fn is_directory(path: &str) -> String {
    format!("`{path}` is a directory; name a file inside it")
}

/// `path` is a device, FIFO or socket.
pub(crate) fn not_regular_file(path: &str) -> String {
    format!(
        "`{path}` is a device, FIFO or socket, not a regular file; only regular files can be read or edited"
    )
}

/// The workspace root `root` is not a directory (`e`).
pub(crate) fn root_not_directory(root: impl Display, e: &Error) -> String {
    format!("workspace root `{root}` is not a directory: {e}")
}

/// The workspace root `root` cannot be opened (`e`).
pub(crate) fn root_unopened(root: impl Display, e: &Error) -> String {
    format!("cannot open the workspace root `{root}`: {e}")
}

/// `path` ends with a separator or `.`.
pub(crate) fn names_directory(path: &str) -> String {
    format!("`{path}` ends with a path separator or `.`, so it names a directory; name a file")
}

/// Resolving `path` followed too many symbolic links.
pub(crate) fn too_many_links(path: &str) -> String {
    format!("`{path}`: too many levels of symbolic links")
}

/// `path` is nested deeper than `max` directories.
pub(crate) fn nested_too_deep(path: &str, max: usize) -> String {
    format!("`{path}` is nested more than {max} directories deep")
}

/// A parent component of `path` is a file.
pub(crate) fn parent_is_file(path: &str) -> String {
    format!("cannot read `{path}`: a parent component is a file, not a directory")
}

/// A missing parent directory of `path` could not be created (`e`).
pub(crate) fn parent_uncreated(path: &str, e: &Error) -> String {
    format!("cannot create a parent directory of `{path}`: {e}")
}

/// A parent directory of `path` does not exist.
pub(crate) fn parent_missing(path: &str) -> String {
    format!("cannot read `{path}`: a parent directory does not exist")
}

/// `path` climbs (`..`) out of a directory that does not exist.
pub(crate) fn up_from_missing(path: &str) -> String {
    format!("`{path}`: `..` after a directory that does not exist; give the path without it")
}

/// `path` names no file; it is relative to `from` (empty: the root).
pub(crate) fn no_such_file(path: &str, from: &std::path::Path) -> String {
    if from.as_os_str().is_empty() {
        format!(
            "cannot read `{path}`: no such file; check the path (relative to the workspace root)"
        )
    } else {
        format!(
            "cannot read `{path}`: no such file; check the path (relative to `{}`, the directory it is read from)",
            from.display()
        )
    }
}

/// An empty `file_path`.
pub(crate) fn file_path_empty() -> &'static str {
    "`file_path` is empty"
}

/// A `file_path` with a NUL byte.
pub(crate) fn path_has_nul() -> &'static str {
    "`file_path` contains a NUL byte"
}

/// A `file_path` over `max` bytes.
pub(crate) fn path_too_long(max: usize) -> String {
    format!("`file_path` is longer than {max} bytes")
}

/// `path` holds a backslash where it is no separator.
pub(crate) fn backslash(path: &str) -> String {
    format!(
        "`{path}` contains a backslash; on this platform paths use `/` (a backslash would be part of \
         a file name)"
    )
}

/// `path` names an alternate data stream (Windows).
pub(crate) fn data_stream(path: &str) -> String {
    format!("`{path}`: alternate data streams (`name:stream`) are not allowed")
}

/// The component `part` of `path` ends with a dot or space (Windows).
pub(crate) fn dot_or_space_end(path: &str, part: &str) -> String {
    format!(
        "`{path}`: `{part}` ends with a dot or space, which Windows drops (it would name another file)"
    )
}

/// The component `part` of `path` is a reserved device name (Windows).
pub(crate) fn reserved_device(path: &str, part: &str) -> String {
    format!("`{path}`: `{part}` is a reserved device name")
}

// ---------------------------------------------------------------------------
// The read path (`io::source`, `io::recovery`)

/// Reading `path` failed (`e`).
pub(crate) fn cannot_read(path: &str, e: &Error) -> String {
    format!("cannot read `{path}`: {e}")
}

/// No memory for the `len` bytes of `path`.
pub(crate) fn no_memory_to_read(path: &str, len: u64) -> String {
    format!("cannot read `{path}`: not enough memory for its {len} bytes; nothing was written")
}

/// `path` (`size` bytes) is over `options.maxFileBytes` (`max`), so it
/// was not read.
pub(crate) fn too_large_unread(path: &str, size: u64, max: u64) -> String {
    over_max_file_bytes(path, size, max) + "; it was not read"
}

/// `path` cannot be opened (`e`) for the read.
pub(crate) fn unopened_retry(path: &str, e: &Error) -> String {
    cannot_open(path, &e.to_string()) + "; check the path and retry"
}

/// `display` is being written by another process: it holds `what`; the
/// call did `nothing`.
fn being_written(display: &str, what: &str, nothing: &str) -> String {
    format!(
        "`{display}` is being written by another process (it holds {what}); {nothing}. Retry shortly"
    )
}

/// Another process holds `display`'s lock, past the wait of a read.
pub(crate) fn lock_held_on_read(display: &str) -> String {
    being_written(display, "the file's lock", "nothing was read or written")
}

/// Another process holds `display`'s lock, at the commit.
pub(crate) fn lock_held(display: &str) -> String {
    being_written(display, "the file's lock", "nothing was written")
}

/// Another process holds `display`'s in-place write record.
pub(crate) fn record_held(display: &str) -> String {
    being_written(
        display,
        "the file's in-place write record",
        "nothing was written",
    )
}

/// `display` is torn by a dead in-place writer; what was read is its
/// content from before that write.
pub(crate) fn torn_read(display: &str) -> String {
    format!(
        "`{display}` holds an in-place write that was interrupted (its writer died half-way), so its bytes \
         on disk are torn; this is its content from before that write, from the verified copy the engine \
         kept in its private state. Nothing was written now: the next write of the file puts this content \
         back first"
    )
}

/// A damaged record of an earlier in-place write of `display` was
/// discarded.
pub(crate) fn record_damaged(display: &str) -> String {
    format!(
        "`{display}`: a damaged or incomplete record of an earlier in-place write of it was discarded, not \
         applied"
    )
}

/// The record of an interrupted in-place write of `display`, changed
/// since, was discarded.
pub(crate) fn record_outdated(display: &str) -> String {
    format!(
        "`{display}`: the copy kept by an earlier in-place write of it that was interrupted was discarded, not \
         applied: the file was changed since (it holds neither the content before that write, nor the content \
         it was writing, nor a mix of the two)"
    )
}

/// `display` was restored from an interrupted in-place write, then
/// written.
pub(crate) fn restored_then_written(display: &str) -> String {
    format!(
        "`{display}` was restored to its content before an interrupted in-place write (from the \
         verified copy that write kept), then written"
    )
}

// ---------------------------------------------------------------------------
// The commit (`io::commit`) and the private state (`io::state`)

/// Writing `display` failed at a step (`what`) with `e`.
pub(crate) fn cannot_write(display: &str, what: &str, e: &Error) -> String {
    format!("cannot write `{display}`: {what}: {e}; the file was left unchanged")
}

/// `display` `why` (was created, changed, ...) during the edit.
pub(crate) fn changed_while_editing(display: &str, why: &str) -> String {
    format!("`{display}` {why} while it was being edited; nothing was written. Reread it and retry")
}

/// `display` was written without the attributes `lost`.
pub(crate) fn attributes_lost(display: &str, lost: &[String]) -> String {
    format!(
        "`{display}` was written without attributes it was to take, which this process may not set: {}",
        lost.join(", ")
    )
}

/// `display` was written, but its directory was not flushed (`e`).
pub(crate) fn directory_not_flushed(display: &str, e: &Error) -> String {
    format!(
        "`{display}` was written, but its directory could not be flushed to disk ({e}); the new content is \
         in place but may not survive a power loss"
    )
}

/// The state file or directory `path` fails a trust check (`why`).
pub(crate) fn state_not_used(path: impl Display, why: &str) -> String {
    format!("`{path}` is not used: {why}")
}

/// A state file or directory belongs to `owner`, not to `me`.
pub(crate) fn owned_by_other(owner: u32, me: u32) -> String {
    format!("it belongs to uid {owner}, not to uid {me}, which runs the engine")
}

/// An I/O error injected at `step` (test builds and the `fault-injection`
/// feature only).
#[cfg(any(test, feature = "fault-injection"))]
pub(crate) fn injected_fault(step: impl std::fmt::Debug) -> String {
    format!("injected fault at {step:?}")
}
