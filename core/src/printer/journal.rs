//! The edit journal's words (`crate::history`): why a transaction cannot
//! be undone, what undo does next, and a journal that cannot be used.

/// A damaged entry's refusal, `why` the damage's own words.
pub(crate) fn damaged_refused(why: &str) -> String {
    format!("{why}; nothing was written")
}

/// Transaction `id` was undone by transaction `by` already.
pub(crate) fn already_undone(id: u64, by: u64) -> String {
    format!("transaction {id} was already undone by transaction {by}; undo {by} to redo it")
}

/// Transaction `id` cannot be undone, `why` (its header's reason, if any).
pub(crate) fn not_undoable(id: u64, why: Option<&str>) -> String {
    format!(
        "transaction {id} cannot be undone: {}",
        why.unwrap_or("its content was not kept")
    )
}

/// `shown` (the caller's id, cut to show) is not a transaction id.
pub(crate) fn not_an_id(shown: &str) -> String {
    format!("`{shown}` is not a transaction id (see history)")
}

/// No transaction `n` in this workspace's journal.
pub(crate) fn no_transaction(n: u64) -> String {
    format!("no transaction {n} in this workspace's journal (it may have been evicted or cleared); see history")
}

/// Every transaction is undone; undoing `redo` (the undo that undid the
/// last) would redo it.
pub(crate) fn all_undone(redo: u64) -> String {
    format!(
        "there is nothing to undo: every transaction in this workspace's journal is undone. To redo the last one \
         undone, undo transaction {redo} (the undo that undid it): undo with id \"{redo}\""
    )
}

/// Undo without id stopped at transaction `id` (its files changed): its
/// failure's `head`, and the way on (the next older transaction, if any).
pub(crate) fn undo_stops_at(head: &str, id: u64, older: Option<u64>) -> String {
    let next = match older {
        Some(n) => format!(
            "or undo an older transaction by id (the next one: \"{n}\"; refused too if its files changed since)"
        ),
        None => "there is no older transaction to undo".to_string(),
    };
    format!(
        "{head} Undo without id stops at transaction {id} while its files differ from what it wrote: put them \
         back by hand to undo it, {next}."
    )
}

/// Transaction `id` lacks the previous content of `path`.
pub(crate) fn lacks_previous(id: u64, path: &str) -> String {
    format!("transaction {id} lacks the previous content of `{path}`; it cannot be undone")
}

/// The journal at `path` cannot be used (`what`: lock, list, …) for
/// `error`.
pub(crate) fn journal_unusable(what: &str, path: &str, error: &str) -> String {
    format!("cannot {what} the journal `{path}`: {error}")
}

/// The journal's entries cannot be listed (`error`).
pub(crate) fn journal_unlisted(error: &str) -> String {
    format!("cannot list the journal: {error}")
}

/// Transaction `id` names `rel` twice.
pub(crate) fn names_twice(id: u64, rel: &str) -> String {
    format!("transaction {id} names `{rel}` twice; it cannot be undone")
}

/// Transaction `id` cannot be undone: `names` changed since it wrote them.
pub(crate) fn changed_since_written(id: u64, names: &[&str]) -> String {
    format!(
        "transaction {id} cannot be undone: {} changed since it was written ({}); nothing was written. If a \
         later transaction changed them, undo it first (see history); a change made outside this tool is undone by \
         hand",
        if names.len() == 1 { "this file" } else { "these files" },
        names.join(", ")
    )
}

/// `n` entry files share one id.
pub(crate) fn ids_shared(n: usize) -> String {
    format!("{n} entry files have this id")
}

/// Transaction `id` is damaged: `kind` of damage, `why`.
pub(crate) fn damaged_entry(id: u64, kind: &str, why: &str) -> String {
    format!("transaction {id} is damaged in the journal ({kind}: {why}); it is never acted on")
}

/// Why a transaction undone by `by` is not undoable (the history's note).
pub(crate) fn undone_by(by: u64) -> String {
    format!("already undone by transaction {by} (undo {by} to redo)")
}

/// Why a transaction whose `rel` changed since is not undoable now.
pub(crate) fn changed_since(rel: &str) -> String {
    format!("`{rel}` changed since this transaction wrote it: undo answers FILE_CHANGED until the file is put back")
}

/// What is wrong with file `k` of an entry, as its header records it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FileFlaw {
    NoPathOrKind,
    MalformedSha,
    ContentOutside,
    KeptMisnamed,
    ImpossibleContent,
    LacksUndo,
}

/// Why entry file `k` (`path`) is damaged.
pub(crate) fn file_flaw(k: usize, path: &str, flaw: FileFlaw) -> String {
    let what = format!("file {k} (`{path}`)");
    match flaw {
        FileFlaw::NoPathOrKind => format!("{what} has no path or an unknown kind"),
        FileFlaw::MalformedSha => format!("{what} has a malformed sha256"),
        FileFlaw::ContentOutside => format!("{what}'s saved content lies outside the entry"),
        FileFlaw::KeptMisnamed => format!("{what}'s kept inode is misnamed"),
        FileFlaw::ImpossibleContent => format!("{what} has content it cannot have"),
        FileFlaw::LacksUndo => format!("{what} lacks what its undo needs"),
    }
}

/// An entry that cannot be read (`error`).
pub(crate) fn entry_unreadable(error: &str) -> String {
    format!("it cannot be read: {error}")
}

/// An entry of format version `v`, this engine's being `ours`.
pub(crate) fn other_version(v: u32, ours: u32) -> String {
    format!("format version {v} is not this engine's ({ours})")
}

/// An entry whose header says id `said`, its name `id`.
pub(crate) fn id_mismatch(said: &str, id: u64) -> String {
    format!("its header says id {said}, its name {id}")
}

/// An entry `size` bytes long whose header says `says`.
pub(crate) fn wrong_length(size: u64, says: u64) -> String {
    format!("it is {size} bytes long, its header says {says}")
}

/// An entry whose header is not the journal's (`error`).
pub(crate) fn foreign_header(error: &str) -> String {
    format!("its header is not the journal's: {error}")
}

/// The kept previous content of `path` is missing or was replaced.
pub(crate) fn kept_missing(path: &str) -> String {
    format!("the kept previous content of `{path}` is missing or was replaced")
}

/// The saved content of `path` is over this call's `limit`.
pub(crate) fn saved_over_limit(path: &str, limit: u64) -> String {
    format!("the saved content of `{path}` is larger than any file this call may write (maxFileBytes {limit})")
}

/// Transaction `id` saved a previous content of `path` larger than the
/// call's `maxFileBytes` (`limit`).
pub(crate) fn undo_over_limit(id: u64, path: &str, limit: u64) -> String {
    format!(
        "transaction {id} cannot be undone by this call: {}; nothing was written. Retry with a larger maxFileBytes",
        saved_over_limit(path, limit)
    )
}

/// The kept previous content of `path` was replaced or changed length.
pub(crate) fn kept_replaced(path: &str) -> String {
    format!("the kept previous content of `{path}` was replaced or changed length")
}

/// The previous content of `path` no longer has its recorded sha256
/// (`kept`: an inode the journal keeps; else content saved in the entry).
pub(crate) fn content_changed(path: &str, kept: bool) -> String {
    if kept {
        format!("the kept previous content of `{path}` was written to since (it no longer has its recorded sha256)")
    } else {
        format!("the saved content of `{path}` does not have its recorded sha256")
    }
}

/// A change made but not journaled (`error`).
pub(crate) fn not_journaled(error: &str) -> String {
    format!("the change was made but not journaled ({error}); it cannot be undone with `undo`")
}

/// Why a change is not undoable: the path `rel` is not valid UTF-8.
pub(crate) fn path_not_utf8(rel: &str) -> String {
    format!("the path of `{rel}` is not valid UTF-8, so undo could not name it")
}

/// Why a change is not undoable: `rel` is over the journal's `max` bytes
/// a file.
pub(crate) fn file_over_journal(rel: &str, max: u64) -> String {
    format!("`{rel}` is larger than the journal keeps ({max} bytes, options.journal.maxFileBytes)")
}

/// Why a change is not undoable: its previous content (`total` bytes) is
/// over the journal's `max`.
pub(crate) fn change_over_journal(total: u64, max: u64) -> String {
    format!("its previous content ({total} bytes) is more than the journal keeps ({max} bytes, options.journal.maxBytes)")
}

/// The journal cannot be opened (`error`).
pub(crate) fn journal_unopened(error: &str) -> String {
    format!("cannot open the journal: {error}")
}

/// A step of journaling (`what`) failed in the journal at `path`.
pub(crate) fn journal_step(what: &str, path: &str, error: &str) -> String {
    format!("{what} in `{path}`: {error}")
}

/// A journal file `size` bytes long, longer than the journal writes it.
pub(crate) fn longer_than_written(size: u64) -> String {
    format!("it is {size} bytes long, more than the journal writes")
}

/// `undo` found no undoable transaction.
pub(crate) fn nothing_to_undo() -> &'static str {
    "there is nothing to undo: no undoable transaction in this workspace's journal"
}

/// There is no journal because there is no per-user state directory.
pub(crate) fn no_journal_no_state_dir() -> &'static str {
    "there is no journal: no per-user state directory (set PATCH_FILE_STATE_DIR, PATCH_FILE_JOURNAL or \
     options.journal)"
}

/// Another process holds the journal at `path`'s lock past the call's wait.
pub(crate) fn journal_locked(path: &str) -> String {
    format!(
        "the journal `{path}` is being written by another process (it held the journal's lock past the wait for \
         it); nothing was done. Retry shortly"
    )
}

/// An undo without an id went past the newer transactions `ids`, each
/// `damaged` or else not undoable (its content not kept), to transaction
/// `undone`.
pub(crate) fn newer_skipped(ids: &[u64], damaged: bool, undone: u64) -> String {
    let list: Vec<String> = ids.iter().map(u64::to_string).collect();
    let (which, is) = match ids.len() {
        1 => ("transaction", "is"),
        _ => ("transactions", "are"),
    };
    let but = if damaged { "damaged" } else { "not undoable" };
    format!(
        "{which} {} {is} newer but {but} (see history) and cannot be undone; transaction {undone} was undone \
         instead",
        list.join(", ")
    )
}
