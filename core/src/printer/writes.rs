//! The failures of a write as the pipeline (`crate::txn`) meets them: a
//! file that changed or appeared since it was read, one another call is
//! writing, one with other hard links, a file or batch that failed as a
//! whole (all-or-nothing), a rollback, and a diff too large to show.

use crate::error::{ErrorCode, Failure};
use crate::model::Cancel;

/// `display` no longer has the `expected_sha256` it was read with;
/// `anchors`: it was read with anchors (editLines).
pub(crate) fn changed_since_read(display: &str, anchors: bool) -> String {
    let again = if anchors {
        "Reread it with anchors and retry"
    } else {
        "Reread the file and retry with its current content and sha256"
    };
    format!(
        "`{display}` changed since it was read (its sha256 is no longer expected_sha256); nothing was written. \
         {again}"
    )
}

/// A whole-file write's `expected_sha256` does not match `display`.
pub(crate) fn not_expected_sha(display: &str) -> String {
    format!("`{display}` does not have expected_sha256 (it changed or does not exist); nothing was written")
}

/// A write took away the line break `display` ended with.
pub(crate) fn final_break_lost(display: &str) -> String {
    format!(
        "`{display}` no longer ends with a line break (the new text's last line has none); if that was not meant, \
         end the new text with one"
    )
}

/// `display` appeared (made by another process) while this call was
/// creating it.
pub(crate) fn created_meanwhile(display: &str) -> String {
    format!("`{display}` was created by another process meanwhile; nothing was written. Retry")
}

/// `display` holds an interrupted in-place write that could not be put
/// back (`error`).
pub(crate) fn interrupted_write(display: &str, error: &str) -> String {
    format!(
        "`{display}` holds an interrupted in-place write that could not be put back before writing ({error}); \
         nothing was written. Retry"
    )
}

/// `display` has `names` names (hard links), with `hardLinks: "refuse"`.
pub(crate) fn hard_linked(display: &str, names: u64) -> String {
    format!(
        "`{display}` has {names} hard links (other names of the same file, perhaps outside the workspace); \
         nothing was written. Retry with options.hardLinks: \"split\" to give only this name the new content (the \
         others keep the old), or \"keep\" to write the file in place so that every name sees it"
    )
}

/// A move of `display`, which has `names` hard links.
pub(crate) fn hard_linked_move(display: &str, names: u64) -> String {
    format!(
        "`{display}` has {names} hard links (other names of the same file, perhaps outside the workspace); \
         nothing was written. Moved, it becomes a new file under its new name and the other names keep the old \
         one: retry with options.hardLinks: \"split\" if that is meant"
    )
}

/// `path` is being written by another call or process.
pub(crate) fn locked(path: &str) -> String {
    format!(
        "`{path}` is being written by another call or process; nothing was written. Retry shortly"
    )
}

/// `display` does not exist.
pub(crate) fn missing(display: &str) -> String {
    format!("`{display}` does not exist; check the path and retry")
}

/// What a commit that failed adds to its failure: the failures `settled`
/// before it, and the files it restored (`rolled_back`) or could not
/// restore (`rollback_failed`).
pub(crate) fn commit_aftermath(
    settled: &[String],
    rolled_back: usize,
    rollback_failed: &[String],
) -> String {
    let mut out = String::new();
    for n in settled {
        out.push_str(&format!("; before that, {n}"));
    }
    if !rollback_failed.is_empty() {
        out.push_str(&format!(
            "; WARNING: {} already-replaced file(s) could not be restored (each keeps its original content beside \
             it as `<name>.orig` where that could be made): {}",
            rollback_failed.len(),
            rollback_failed.join(", ")
        ));
    } else if rolled_back > 0 {
        out.push_str(&format!(
            "; {rolled_back} file(s) already replaced were restored to their original bytes"
        ));
    }
    out
}

/// The failure of a file whose edits failed: `failed` of them, the first
/// with `first` (its message); `multi`: the call sent a list of edits.
pub(crate) fn edits_failed(failed: usize, first: &str, multi: bool) -> String {
    if multi && failed > 1 {
        format!(
            "{failed} of the edits failed, so nothing was written (all-or-nothing). First: {first}"
        )
    } else if multi {
        format!("{first}; nothing was written (all-or-nothing)")
    } else {
        first.to_string()
    }
}

/// Entries `a` and `b` of a batch name one file, `file`.
pub(crate) fn batch_same_file(a: usize, b: usize, file: &str) -> String {
    format!(
        "files[{a}] and files[{b}] name the same file `{file}`; merge their edits into one entry"
    )
}

/// The failure of a batch when `failed` of its `n` files failed.
pub(crate) fn batch_failed(failed: usize, n: usize) -> String {
    format!("{failed} of {n} files failed, so no file was written (all-or-nothing); see `files` for each")
}

/// A whole-file write over `display`, which is not valid UTF-8.
pub(crate) fn write_over_bytes(display: &str) -> String {
    format!(
        "`{display}` is not valid UTF-8 (encoding binary-safe-bytes, e.g. UTF-8 with stray bytes): readFile shows its non-UTF-8 bytes as U+FFFD, so writing text over it would replace bytes nobody saw; nothing was written. To change part of it, use patchFile with ASCII search/replace blocks (every other byte is kept exactly); to replace the whole file with UTF-8 text knowingly, pass encoding: \"utf-8\"."
    )
}

/// A new file's text (a patch's Add File, a create) over the byte-level
/// file `display`.
pub(crate) fn add_over_bytes(display: &str) -> String {
    format!(
        "`{display}` exists and is not valid UTF-8 (encoding binary-safe-bytes): a new text in its place would replace bytes nobody saw; nothing was written. To change part of it, update it with a hunk (every other byte is kept exactly); to replace it with UTF-8 text knowingly, delete it in one call, then add it in the next."
    )
}

/// The same over `display` in the legacy encoding `encoding` (a guess).
pub(crate) fn add_over_legacy(display: &str, encoding: &str) -> String {
    format!(
        "`{display}` exists and is not UTF-8: it is in {encoding} (detected from its bytes, a guess); a new text in its place could change every character if the guess is wrong, so nothing was written. To change part of it, update it with a hunk (every other byte is kept exactly); to replace it with UTF-8 text knowingly, delete it in one call, then add it in the next."
    )
}

/// A whole-file write over `display`, in the legacy encoding `encoding`
/// (a guess).
pub(crate) fn write_over_legacy(display: &str, encoding: &str) -> String {
    format!(
        "`{display}` is not UTF-8: it is in {encoding} (detected from its bytes, a guess); writing a whole new text over it could change every character if the guess is wrong, so nothing was written. To change part of it, use patchFile (every other byte is kept exactly); to replace the whole file with UTF-8 text knowingly, pass encoding: \"utf-8\"."
    )
}

/// Edits `a` and `b` of an editLines call touch the same lines of
/// `display`.
pub(crate) fn anchored_overlap(a: usize, b: usize, display: &str) -> String {
    format!("input: edits[{a}] and edits[{b}] touch the same lines of `{display}`; merge them into one edit")
}

/// `n` anchors of an editLines call no longer name the lines read; the
/// first is `anchor` of edits[`edit`], with `problem`. `shown`: every
/// refused anchor has current lines in `anchors` (none are shown where
/// each line near it bears an anchor an earlier read gave another line).
pub(crate) fn anchors_mismatch(
    n: usize,
    edit: usize,
    anchor: &str,
    problem: &str,
    shown: Shown,
) -> String {
    let retry = match shown {
        Shown::All => "The current lines around it are in `anchors`: retry with those anchors".to_string(),
        Shown::Some => "The current lines around it are in `anchors` where they can be shown; where they are not \
             (lines an earlier read numbered alike), read the file again with anchors and retry with the new anchors"
            .to_string(),
        Shown::First(k) => format!(
            "The current lines around the first {k} are in `anchors`; for the others, read the file again with \
             anchors and retry with the new anchors"
        ),
    };
    format!(
        "{n} anchor{} of edits[{edit}] ({anchor}: {problem}) no longer name{} the line read; nothing was written. \
         {retry}",
        if n == 1 { "" } else { "s, the first" },
        if n == 1 { "s" } else { "" },
    )
}

/// Which refused anchors a refusal shows the current lines around.
#[derive(Clone, Copy)]
pub(crate) enum Shown {
    All,
    /// Not those an earlier read numbered alike.
    Some,
    /// The first so many only.
    First(usize),
}

/// What an editLines result checked at line numbers says when its file
/// has, or was read with, over `max` lines.
pub(crate) fn anchors_too_large(max: usize) -> String {
    format!(
        "this file has, or was read with anchors while it had, more than {max} lines: reads of a file that large \
         are not kept, and those before such a read are not used, so each anchor's ID was checked at its line \
         number only, nothing relocated. Edit right after reading, and pass the read's sha256 as expected_sha256"
    )
}

/// An anchor (`anchor`, of `edits[edit]`) into `file`, which is empty.
pub(crate) fn anchored_in_empty_file(file: &str, edit: usize, anchor: &str) -> String {
    format!(
        "`{file}` is empty: it has no line for {anchor} (edits[{edit}]) to name, and a read shows none; nothing \
         was written. To write into it, send the edit without `pos`: `op: \"append\"` (or `\"prepend\"`) \
         with no `pos` inserts at the end (or start) of the file"
    )
}

/// The anchors of an edit of `file` could not be followed in time: the file
/// changed all over since the read.
pub(crate) fn anchors_out_of_time(file: &str, secs: u64) -> String {
    format!(
        "`{file}` changed so much since the read with anchors that its lines could not be followed in {secs} s; \
         nothing was written. Read it again with anchors and retry with the new anchors"
    )
}

/// Why a dry run's diff is missing: the content is over `mib` MiB.
pub(crate) fn diff_omitted(mib: usize) -> String {
    format!(
        "the change is too large to show as a diff (old and new content over {mib} MiB); the planned change is \
         kept: apply it with applyDryRun, or review the file after writing"
    )
}

/// A run id as the caller sent it, cut at 64 characters: ours are short,
/// and a long one sent back whole would cost the caller its length again.
fn shown_run_id(run_id: &str) -> String {
    match run_id.char_indices().nth(64) {
        Some((end, _)) => format!("{}…", &run_id[..end]),
        None => run_id.to_string(),
    }
}

/// `run_id` was made in the workspace `made_in`, not in `root`.
pub(crate) fn run_id_other_root(run_id: &str, made_in: &str, root: &str) -> String {
    let run_id = shown_run_id(run_id);
    format!(
        "run_id `{run_id}` was made in the workspace `{made_in}`, not in `{root}`; apply it with the workspaceRoot \
         it was made with (it was not used up)"
    )
}

/// `run_id` names no dry run kept here.
pub(crate) fn run_id_unknown(run_id: &str) -> String {
    let run_id = shown_run_id(run_id);
    format!(
        "run_id `{run_id}` is unknown, already applied or expired; run the edit again with dry_run: true (or \
         without it to apply directly)"
    )
}

/// `display` changed between the dry run and its apply.
pub(crate) fn changed_after_dry_run(display: &str) -> String {
    format!("`{display}` changed after the dry run; nothing was written. Reread it and make a new dry run")
}

/// A dry run's content is over the cache's `max_bytes`.
pub(crate) fn dry_run_not_kept(max_bytes: usize) -> String {
    format!(
        "the planned content is larger than the dry-run cache ({max_bytes} bytes), so it was not kept for \
         applyDryRun; to apply, repeat the call without dry_run"
    )
}

/// The `CANCELLED` failure of a call stopped before it wrote anything: by
/// its caller (`timeout_ms` None), or by its time budget of `timeout_ms`.
/// The one wording of both, also for the JS wrapper, which stops calls
/// between its retries of a busy file (`cancelledResult` in the binding).
pub(crate) fn cancelled(timeout_ms: Option<u64>) -> Failure {
    let message = match timeout_ms {
        None => "the call was cancelled by its caller before anything was written; nothing was written".into(),
        Some(ms) => format!(
            "the call took longer than its timeoutMs ({ms} ms) before anything was written; nothing \
             was written. Retry with a larger timeoutMs or less work per call"
        ),
    };
    Failure::new(ErrorCode::CANCELLED, message)
}

/// `CANCELLED` once the caller gave up or the time of `cancel` is spent.
pub(crate) fn go_on(cancel: &Cancel) -> Result<(), Failure> {
    match cancel.stopped() {
        None => Ok(()),
        Some(s) => Err(cancelled(s.timeout_ms)),
    }
}

/// An editLines call whose new lines carried a read's `LINE#ID|` tags.
pub(crate) fn untagged_lines() -> String {
    "the new lines started with a read's `LINE#ID|` tags; they were written without them (send lines' text only)"
        .to_string()
}

/// A whole-file write of `display` in the encoding `now`, over the file in
/// `was`.
pub(crate) fn recoded(display: &str, was: &str, now: &str) -> String {
    format!(
        "`{display}` is written in {now}, not {was} as it was: every byte of a character outside ASCII changes, which \
         the diff of its text does not show"
    )
}

/// A file moved onto `display`, which existed.
pub(crate) fn moved_over(display: &str) -> String {
    format!("`{display}` existed and was replaced by the file moved onto it (undo brings it back)")
}

/// A commit of several files whose writer died half-way was undone at the
/// start of this call: the files `put` back as before it, those `left` as
/// they are (changed since).
pub(crate) fn interrupted_commit(
    put: &[std::path::PathBuf],
    left: &[std::path::PathBuf],
) -> String {
    let list = |ps: &[std::path::PathBuf]| {
        ps.iter()
            .map(|p| format!("`{}`", p.display()))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut s = String::from(
        "an earlier write of several files was interrupted half-way (its process was killed)",
    );
    if !put.is_empty() {
        s.push_str(&format!("; put back as they were before it: {}", list(put)));
    }
    if !left.is_empty() {
        s.push_str(&format!(
            "; changed since, so left as they are: {}",
            list(left)
        ));
    }
    s
}

/// The intent of a commit of several files could not be kept (`e`).
#[cfg_attr(not(unix), allow(dead_code))]
pub(crate) fn intent_not_kept(e: &std::io::Error) -> String {
    format!(
        "the files were written, but without the record that puts them back should this process be killed half-way \
         through a write of several files ({e}): check the state directory (PATCH_FILE_STATE_DIR)"
    )
}
