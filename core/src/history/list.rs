//! Reading the journal as a whole: `history`, which lists every entry
//! (damaged ones as damaged), and `journalClear`.

use std::collections::{BTreeMap, HashMap};
use std::ffi::OsString;
use std::io;
use std::path::PathBuf;

use super::entry::{self, Entry, EntryDamage, FileRec};
use super::store::{self, Name, State, Store};
use crate::error::{ErrorCode, Failure};
use crate::io::workspace::{Intent, Workspace};
use crate::model::Options;
use crate::printer;
use crate::result::history::{
    self as shown, Cleared, DamagedEntry, FileKind, HistoryDone, HistoryFile, Transaction,
};
use crate::result::marks::True;
use crate::result::{Failed, Outcome};
use crate::txn::{Added, Txn};

/// One entry as read from the journal: whole, or damaged (never acted
/// on).
pub(crate) enum Stored {
    Whole(Box<Entry>),
    Damaged { id: u64, damage: EntryDamage },
}

impl Stored {
    pub(crate) fn id(&self) -> u64 {
        match self {
            Stored::Whole(e) => e.id,
            Stored::Damaged { id, .. } => *id,
        }
    }
}

/// Every entry of `store`, oldest first.
pub(crate) fn entries(store: &Store) -> io::Result<Vec<Stored>> {
    let mut by_id: BTreeMap<u64, Vec<OsString>> = BTreeMap::new();
    for (name, n) in store.names()? {
        if let Name::Entry { id, .. } = n {
            by_id.entry(id).or_default().push(name);
        }
    }
    // The newest entry may be one being written, under its final name, by
    // a holder of the journal's lock: not damaged but not there yet. Read
    // without the lock, an entry that does not read whole while the lock is
    // held is left out; once the lock is free, it is read again (it may
    // have been completed between the two).
    let newest = by_id.keys().next_back().copied();
    Ok(by_id
        .into_iter()
        .filter_map(|(id, names)| match names.as_slice() {
            [one] => match entry::read(store, id, one) {
                Ok(e) => Some(Stored::Whole(Box::new(e))),
                Err(_) if Some(id) == newest && store.busy() => None,
                Err(damage) if Some(id) == newest => Some(match entry::read(store, id, one) {
                    Ok(e) => Stored::Whole(Box::new(e)),
                    Err(_) => Stored::Damaged { id, damage },
                }),
                Err(damage) => Some(Stored::Damaged { id, damage }),
            },
            _ => Some(Stored::Damaged {
                id,
                damage: EntryDamage {
                    kind: shown::Damage::BadFields,
                    why: printer::ids_shared(names.len()),
                },
            }),
        })
        .collect())
}

/// id -> the id of the entry that undid it (the newest such).
pub(crate) fn undone_by(all: &[Stored]) -> HashMap<u64, u64> {
    let mut m = HashMap::new();
    for l in all {
        if let Stored::Whole(e) = l {
            if let Some(t) = e.undoes() {
                m.insert(t, e.id);
            }
        }
    }
    m
}

/// The workspace's journal directory's path (for results), whether or not
/// it exists; `None` when there is no per-user state directory.
pub(crate) fn journal_path(ws: &Workspace, opts: &Options) -> Option<PathBuf> {
    store::path_for(&opts.journal, ws)
}

/// The workspace's journal for reading or changing: `Ok(None)` when there
/// is none yet; a failure result when there can be none (no state
/// directory) or it fails a trust check.
pub(crate) fn open_existing(ws: &Workspace, opts: &Options) -> Result<Option<Store>, Failure> {
    let path = journal_path(ws, opts)
        .ok_or_else(|| Failure::invalid(printer::no_journal_no_state_dir()))?;
    store::open(&opts.journal, ws, false).map_err(|e| {
        Failure::new(
            ErrorCode::FILE_READ_ERROR,
            printer::journal_unusable("use", &path.display().to_string(), &e.to_string()),
        )
    })
}

/// The reason a damaged entry is not undoable.
pub(crate) fn damaged_why(id: u64, d: &EntryDamage) -> String {
    printer::damaged_entry(id, d.kind.as_str(), &d.why)
}

/// What a journaled file shows as: moved (its move's new path), or the
/// kind its entry records (checked when the entry was read).
fn file_kind(f: &FileRec) -> FileKind {
    match (f.moved_from.is_some(), f.kind.as_str()) {
        (true, _) => FileKind::Moved,
        (false, "created") => FileKind::Created,
        (false, "deleted") => FileKind::Deleted,
        _ => FileKind::Modified,
    }
}

/// One entry of `history`.
fn listed_result(l: &Stored, undone: &HashMap<u64, u64>) -> shown::Listed {
    let e = match l {
        Stored::Whole(e) => e,
        Stored::Damaged { id, damage } => {
            return shown::Listed::Damaged(DamagedEntry {
                id: id.to_string(),
                files: [],
                undoable: false,
                damaged: True,
                damage: damage.kind,
                why_not_undoable: damaged_why(*id, damage),
            });
        }
    };
    let files = e
        .files()
        .iter()
        .filter(|f| f.moved_to.is_none())
        .map(|f| HistoryFile {
            file_path: f.path.clone(),
            kind: file_kind(f),
            from: f.moved_from.clone(),
            added: f.added,
            removed: f.removed,
        })
        .collect();
    let by = undone.get(&e.id);
    let why_not_undoable = match by {
        Some(by) => Some(printer::undone_by(*by)),
        None => e.header.why_not_undoable.clone(),
    };
    shown::Listed::Whole(Transaction {
        id: e.id.to_string(),
        time: e.header.time.clone(),
        entry_point: e.header.entry.clone(),
        files,
        undoable: e.undoable() && by.is_none(),
        why_not_undoable,
        undone_by: by.map(u64::to_string),
        undoes: e.undoes().map(|t| t.to_string()),
        redo: e.undoes().map(|_| e.depth() % 2 == 0),
    })
}

/// The sha256 of the workspace file `rel` as it is now (`Some(None)`: it
/// does not exist), read as undo reads it; `None` when it cannot be read.
fn current_sha256(ws: &Workspace, opts: &Options, rel: &str) -> Option<Option<String>> {
    let mut txn = Txn::new(ws);
    let Ok(Added::New(k)) = txn.add(rel, Intent::Plan { create_dirs: false }) else {
        return None;
    };
    txn.lock_and_read(opts).ok()?;
    let s = &txn.slots[k];
    if s.read_failure.is_some() {
        return None;
    }
    Some(s.sha256().map(str::to_string))
}

/// Marks `t` (the listing of `e`) not undoable when the file `rel` is no
/// longer as `e` left it (`now`: its sha256, `None` when absent): undo
/// would answer FILE_CHANGED until the file is put back.
fn blocked(t: &mut shown::Listed, e: &Entry, rel: &str, now: Option<&str>) {
    let shown::Listed::Whole(t) = t else { return };
    if !t.undoable {
        return;
    }
    let Some(f) = e
        .files()
        .iter()
        .find(|f| f.path == rel && f.moved_to.is_none())
    else {
        return;
    };
    let left = if f.kind == "deleted" {
        None
    } else {
        f.sha256_after.as_deref()
    };
    if left != now {
        t.undoable = false;
        t.why_not_undoable = Some(printer::changed_since(rel));
    }
}

fn read_failed(e: io::Error) -> Box<Failed> {
    Failure::new(
        ErrorCode::FILE_READ_ERROR,
        printer::journal_unlisted(&e.to_string()),
    )
    .into()
}

/// `history`: the workspace's transactions, newest first.
pub(crate) fn history(
    ws: &Workspace,
    opts: &Options,
    limit: usize,
    file: Option<&str>,
) -> Outcome<HistoryDone> {
    let store = open_existing(ws, opts)?;
    let all = store
        .as_ref()
        .map(entries)
        .transpose()
        .map_err(read_failed)?
        .unwrap_or_default();
    let undone = undone_by(&all);
    let want = file.map(|p| {
        ws.resolve(p, Intent::Plan { create_dirs: false })
            .map(|r| r.rel_path)
            .unwrap_or_else(|_| p.trim_start_matches("./").to_string())
    });
    let touches = |l: &Stored| match (&want, l) {
        (None, _) => true,
        (Some(w), Stored::Whole(e)) => e
            .files()
            .iter()
            .any(|f| f.path == *w || f.moved_from.as_deref() == Some(w)),
        (Some(_), Stored::Damaged { .. }) => false,
    };
    let now = want.as_deref().and_then(|w| current_sha256(ws, opts, w));
    let transactions = all
        .iter()
        .rev()
        .filter(|l| touches(l))
        .take(limit)
        .map(|l| {
            let mut t = listed_result(l, &undone);
            if let (Some(w), Some(now), Stored::Whole(e)) = (&want, &now, l) {
                blocked(&mut t, e, w, now.as_deref());
            }
            t
        })
        .collect();
    Ok(HistoryDone {
        ok: True,
        workspace_root: ws.root().to_string_lossy().into_owned(),
        journal: journal_path(ws, opts)
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_default(),
        enabled: opts.journal.enabled,
        transactions,
    })
}

/// Takes the journal's lock for a call made with `opts` that reads or
/// changes the journal as its whole work (undo, clear): in non-blocking mode
/// (the JS API's async calls) not waiting at all, so that the JS wrapper
/// tries again on the event loop within `lockWaitMs` (as for a busy file,
/// see `io::locks`), else waiting `lockWaitMs`. Held past that:
/// `FILE_LOCKED`; the lock file unusable: `otherwise`.
pub(crate) fn lock_for_call(
    store: &mut Store,
    opts: &Options,
    otherwise: ErrorCode,
) -> Result<(), Failure> {
    let wait = match crate::io::locks::is_nonblocking() {
        true => std::time::Duration::ZERO,
        false => std::time::Duration::from_millis(opts.lock_wait_ms),
    };
    store.lock(wait).map_err(|e| {
        let path = store.path().display().to_string();
        match e.kind() {
            io::ErrorKind::WouldBlock => {
                Failure::new(ErrorCode::FILE_LOCKED, printer::journal_locked(&path))
            }
            _ => Failure::new(
                otherwise,
                printer::journal_unusable("lock", &path, &e.to_string()),
            ),
        }
    })
}

/// `journal clear`: removes every entry of the workspace's journal (the
/// journal's own files only).
pub(crate) fn clear(ws: &Workspace, opts: &Options) -> Outcome<Cleared> {
    let path = journal_path(ws, opts)
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_default();
    let Some(mut store) = open_existing(ws, opts)? else {
        return Ok(Cleared {
            ok: True,
            removed: 0,
            journal: path,
        });
    };
    let fail = |what: &str, e: io::Error| -> Box<Failed> {
        Failure::new(
            ErrorCode::FILE_WRITE_ERROR,
            printer::journal_unusable(what, &path.to_string(), &e.to_string()),
        )
        .into()
    };
    lock_for_call(&mut store, opts, ErrorCode::FILE_WRITE_ERROR)?;
    let names = store.names().map_err(|e| fail("list", e))?;
    // Ids keep counting after a clear (an old id never names a new entry).
    let next = match store.state() {
        Ok(Some(s)) => s.next,
        _ => store.rebuild().map_or(1, |s| s.next),
    };
    let _ = store.write_next(next);
    let _ = store.write_state(&State {
        next,
        count: 0,
        bytes: 0,
    });
    let mut removed = 0;
    for (name, kind) in &names {
        if store.remove(name) && matches!(kind, Name::Entry { .. }) {
            removed += 1;
        }
    }
    store.sync();
    Ok(Cleared {
        ok: True,
        removed,
        journal: path,
    })
}
