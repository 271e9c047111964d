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
        "transaction {id} cannot be undone: {} changed since it was written ({}); nothing was written. Undo the \
         later transactions first (see history) or restore by hand",
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
