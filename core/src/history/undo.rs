//! `undo`: one transaction's files put back, as a write like any other.
//!
//! Undo never trusts an entry alone. The entry must read back whole (see
//! `entry`), and each saved content must have its recorded sha256; all of
//! that is read under the journal's lock, before anything is written. Then
//! every file is resolved through the workspace sandbox, locked and read
//! like any edit, and the undo goes on only when every file still has the
//! sha256 the transaction wrote (and every file it deleted is still
//! absent). The writes go through the pipeline's one commit, with its
//! metadata rules: a restored file keeps what it has now (owner, mode,
//! ACLs, attributes), a file brought back from deletion gets back what it
//! had — its owner and group, its mode, its extended attributes and flags —
//! as far as this process may give them, and never a set-id bit under
//! another owner. The undo is itself journaled (and can be undone: a redo).

use std::collections::HashMap;

use super::entry::{self, Entry, FileRec};
use super::list::{damaged_why, entries, lock_for_call, open_existing, undone_by, Stored};
use super::record::{Journal, UndoOf};
use super::store::{unhex, Store};
use crate::codec::source::{sha256_hex, Source};
use crate::error::{ErrorCode, Failure};
use crate::io::dir::{Kind, Meta};
use crate::io::meta::{self, Extras, Like};
use crate::io::workspace::{Intent, Workspace};
use crate::model::Options;
use crate::printer::{self, shown};
use crate::result::history::{UndoAction, UndoFile, Undone};
use crate::result::marks::True;
use crate::result::{Failed, Outcome};
use crate::txn::{file_diff, preview, whole_diff, Added, Kept, Txn, Write};

/// One file of an undo: its path, the sha256 the transaction left it
/// with, and what the undo does to it.
type FileStep = (String, String, Step);

/// What the undo does to one file.
enum Step {
    /// Write the previous content over the file; with the metadata it had
    /// when a file moved onto it replaced it (its own went with its inode).
    Restore(Vec<u8>, Option<Like>),
    /// Remove the file the transaction created.
    Remove,
    /// Bring back the file the transaction deleted, as it was.
    Recreate(Vec<u8>, Option<Like>),
}

fn damaged(id: u64, d: &entry::EntryDamage) -> Failure {
    Failure::new(
        ErrorCode::JOURNAL_DAMAGED,
        printer::damaged_refused(&damaged_why(id, d)),
    )
}

/// The entry `undo` acts on: `id`, or the newest undoable one that is not
/// an undo itself (so repeated undos walk back; undoing an undo by its id
/// is a redo). Damaged entries are never chosen.
fn target<'a>(all: &'a [Stored], id: Option<&str>) -> Result<&'a Entry, Failure> {
    let undone = undone_by(all);
    let check = |e: &'a Entry| -> Result<&'a Entry, Failure> {
        if let Some(by) = undone.get(&e.id) {
            return Err(Failure::invalid(printer::already_undone(e.id, *by)));
        }
        if !e.undoable() {
            return Err(Failure::invalid(printer::not_undoable(
                e.id,
                e.header.why_not_undoable.as_deref(),
            )));
        }
        Ok(e)
    };
    match id {
        Some(s) => {
            let n: u64 = s
                .trim()
                .parse()
                .map_err(|_| Failure::invalid(printer::not_an_id(&shown(s))))?;
            match all.iter().find(|l| l.id() == n) {
                Some(Stored::Whole(e)) => check(e),
                Some(Stored::Damaged { id, damage }) => Err(damaged(*id, damage)),
                None => Err(Failure::invalid(printer::no_transaction(n))),
            }
        }
        None => newest_to_undo(all, &undone, u64::MAX).ok_or_else(|| nothing_left(all, &undone)),
    }
}

/// The newest transaction older than `before` that undo without id takes:
/// undoable, not undone, not an undo itself (an undo of an undo is).
fn newest_to_undo<'a>(
    all: &'a [Stored],
    undone: &HashMap<u64, u64>,
    before: u64,
) -> Option<&'a Entry> {
    all.iter()
        .rev()
        .filter_map(|l| match l {
            Stored::Whole(e) => Some(e.as_ref()),
            Stored::Damaged { .. } => None,
        })
        .find(|e| {
            e.id < before && e.undoable() && !undone.contains_key(&e.id) && e.depth() % 2 == 0
        })
}

/// The transactions newer than `taken` that undo without id passed over,
/// said rather than skipped in silence: the damaged ones, and the ones it
/// would have taken but for their content not kept (a file over the
/// journal's size limit).
fn passed_over(all: &[Stored], undone: &HashMap<u64, u64>, taken: u64) -> (Vec<u64>, Vec<u64>) {
    let mut passed = (Vec::new(), Vec::new());
    for s in all {
        match s {
            Stored::Damaged { id, .. } if *id > taken => passed.0.push(*id),
            Stored::Whole(e)
                if e.id > taken
                    && !e.undoable()
                    && !undone.contains_key(&e.id)
                    && e.depth() % 2 == 0 =>
            {
                passed.1.push(e.id)
            }
            _ => {}
        }
    }
    passed
}

/// Why undo without id has nothing to take: every transaction is undone
/// (then the undo to undo for a redo is named) or none can be.
fn nothing_left(all: &[Stored], undone: &HashMap<u64, u64>) -> Failure {
    let redo = all
        .iter()
        .rev()
        .filter_map(|l| match l {
            Stored::Whole(e) => Some(e.as_ref()),
            Stored::Damaged { .. } => None,
        })
        .find(|e| e.undoable() && !undone.contains_key(&e.id) && e.depth() % 2 == 1);
    match redo {
        Some(u) => Failure::invalid(printer::all_undone(u.id)),
        None => nothing_to_undo(),
    }
}

/// A `FILE_CHANGED` failure of undo without id, with the way forward: undo
/// without id stops at `e` while its files differ, so the message says how
/// to go on (put them back, or undo `older` by id, itself refused if its
/// files changed since). Other failures as they are.
fn way_forward(mut failed: Box<Failed>, e: &Entry, older: Option<u64>) -> Box<Failed> {
    if failed.code != ErrorCode::FILE_CHANGED {
        return failed;
    }
    let said = "nothing was written.";
    let head = match failed.message.find(said) {
        Some(at) => &failed.message[..at + said.len()],
        None => failed.message.as_str(),
    };
    failed.message = printer::undo_stops_at(head, e.id, older);
    failed
}

/// A recorded file's metadata, for a file brought back without a kept
/// inode to take it from.
fn recorded_like(f: &FileRec) -> Option<Like> {
    let extras = f.xattrs.as_ref().map(|xs| Extras {
        xattrs: xs
            .iter()
            .filter_map(|[n, v]| {
                let name = std::ffi::CString::new(unhex(n)?).ok()?;
                Some((name, unhex(v)?))
            })
            .collect(),
        flags: f.flags.unwrap_or(0),
    });
    f.mode?;
    Some(Like {
        meta: Meta {
            kind: Kind::File,
            dev: 0,
            ino: 0,
            size: f.size_before.unwrap_or(0),
            mode: f.mode,
            uid: f.uid,
            gid: f.gid,
            nlink: 1,
            mtime_ns: 0,
            ctime_ns: 0,
        },
        extras,
    })
}

/// A deleted file's metadata as recorded when it was deleted: its owner,
/// group and mode, its attributes and flags. Never the kept inode's as they
/// are now: whoever held the file open when it was deleted can still
/// `fchmod` or `fsetxattr` that inode (its content is checked against the
/// recorded sha256, and a change refused as damage). Only an entry of an
/// earlier version, which recorded no attributes beside a kept inode, takes
/// them from the kept inode.
fn like_of(store: &Store, f: &FileRec) -> Option<Like> {
    let mut like = recorded_like(f)?;
    if like.extras.is_none() {
        if let Some(kr) = &f.kept {
            let name = std::ffi::OsStr::new(&kr.name);
            if let Ok(Some((file, m))) = store.private().open_linked(name) {
                if (m.dev, m.ino) == (kr.dev, kr.ino) {
                    like.extras = meta::capture(&file).ok();
                }
            }
        }
    }
    Some(like)
}

/// What each file of `e` must become, its content read and verified.
fn steps(store: &Store, e: &Entry, limit: u64) -> Result<Vec<FileStep>, Failure> {
    let mut out = Vec::with_capacity(e.files().len());
    for (k, f) in e.files().iter().enumerate() {
        // Larger than this call may write: a limit of the call, not damage.
        if f.size_before.is_some_and(|n| n > limit) {
            return Err(Failure::new(
                ErrorCode::FILE_TOO_LARGE,
                printer::undo_over_limit(e.id, &f.path, limit),
            ));
        }
        let bytes = entry::content(store, e, k, limit).map_err(|d| damaged(e.id, &d))?;
        let after = f.sha256_after.clone().unwrap_or_default();
        let step = match (f.kind.as_str(), bytes) {
            ("modified", Some(b)) => {
                let like = f.moved_from.as_ref().and_then(|_| like_of(store, f));
                Step::Restore(b, like)
            }
            ("created", _) => Step::Remove,
            ("deleted", Some(b)) => Step::Recreate(b, like_of(store, f)),
            _ => return Err(Failure::invalid(printer::lacks_previous(e.id, &f.path))),
        };
        out.push((f.path.clone(), after, step));
    }
    Ok(out)
}

/// The entry to undo and its steps, read under the journal's lock (so an
/// eviction or clear cannot pull it away half read).
fn load(
    store: &mut Store,
    opts: &Options,
    pick: impl FnOnce(&[Stored]) -> Result<Option<Entry>, Failure>,
) -> Result<Option<(Entry, Vec<FileStep>)>, Failure> {
    let limit = opts.max_file_bytes;
    lock_for_call(store, opts, ErrorCode::FILE_READ_ERROR)?;
    let all = entries(store).map_err(|e| {
        Failure::new(
            ErrorCode::FILE_READ_ERROR,
            printer::journal_unlisted(&e.to_string()),
        )
    })?;
    let Some(e) = pick(&all)? else {
        return Ok(None);
    };
    let s = steps(store, &e, limit)?;
    store.unlock();
    Ok(Some((e, s)))
}

fn nothing_to_undo() -> Failure {
    Failure::invalid(printer::nothing_to_undo())
}

/// `undo`: restores every file of a transaction to its bytes before it,
/// all or nothing, through the one pipeline.
pub(crate) fn undo(
    ws: &Workspace,
    opts: &Options,
    id: Option<&str>,
    dry_run: bool,
) -> Outcome<Undone> {
    let Some(mut store) = open_existing(ws, opts)? else {
        return Err(nothing_to_undo().into());
    };
    let mut older = None;
    let mut passed = (Vec::new(), Vec::new());
    let picked = load(&mut store, opts, |all| {
        let e = target(all, id)?;
        if id.is_none() {
            let undone = undone_by(all);
            older = newest_to_undo(all, &undone, e.id).map(|o| o.id);
            passed = passed_over(all, &undone, e.id);
        }
        Ok(Some(e.clone()))
    })?;
    match picked {
        Some((e, steps)) => undo_entry(ws, opts, &e, steps, dry_run, opts.entry.unwrap_or("undo"))
            .map(|mut done| {
                for (ids, damaged) in [(&passed.0, true), (&passed.1, false)] {
                    if !ids.is_empty() {
                        done.warnings
                            .push(printer::newer_skipped(ids, damaged, e.id));
                    }
                }
                done
            })
            .map_err(|f| {
                if id.is_none() {
                    way_forward(f, &e, older)
                } else {
                    f
                }
            }),
        None => Err(nothing_to_undo().into()),
    }
}

/// What the text editor's `undo_edit` did (see [`undo_file`]).
pub(crate) struct FileUndo {
    /// The undo's result.
    pub(crate) outcome: Outcome<Undone>,
    /// How many of the file's transactions remain to undo.
    pub(crate) remaining: usize,
    /// Whether the undone transaction had created the file.
    pub(crate) created: bool,
}

/// The text editor's `undo_edit`: undoes the newest transaction made by
/// `entry` (e.g. `textEditor`) that touched `rel` and is not undone yet,
/// journaling the undo as `entry` too. `None`: there is none.
pub(crate) fn undo_file(
    ws: &Workspace,
    opts: &Options,
    rel: &str,
    entry: &'static str,
    dry_run: bool,
) -> Option<FileUndo> {
    let failed = |f: Failure| FileUndo {
        outcome: Err(f.into()),
        remaining: 0,
        created: false,
    };
    let mut store = match open_existing(ws, opts) {
        Ok(Some(s)) => s,
        Ok(None) => return None,
        Err(f) => return Some(failed(f)),
    };
    let mut count = 0;
    let picked = load(&mut store, opts, |all| {
        let undone = undone_by(all);
        let cands: Vec<&Entry> = all
            .iter()
            .filter_map(|l| match l {
                Stored::Whole(e) => Some(e.as_ref()),
                Stored::Damaged { .. } => None,
            })
            .filter(|e| {
                e.header.entry == entry
                    && e.depth() == 0
                    && e.undoable()
                    && !undone.contains_key(&e.id)
                    && e.files().iter().any(|f| f.path == rel)
            })
            .collect();
        count = cands.len();
        Ok(cands.last().map(|e| (*e).clone()))
    });
    let (last, steps) = match picked {
        Ok(Some(x)) => x,
        Ok(None) => return None,
        Err(f) => return Some(failed(f)),
    };
    let created = last
        .files()
        .iter()
        .any(|f| f.path == rel && f.kind == "created");
    let outcome = undo_entry(ws, opts, &last, steps, dry_run, entry);
    let remaining = if outcome.is_ok() && !dry_run {
        count - 1
    } else {
        count
    };
    Some(FileUndo {
        outcome,
        remaining,
        created,
    })
}

/// One file an undo writes: its slot, its bytes, what a new file takes
/// (an undone deletion), and the slot of the file it takes that from now
/// (an undone move).
type UndoWrite<'b> = (usize, &'b [u8], Option<Like>, Option<usize>);

/// Undoes entry `e` with its `steps` (see [`undo`]); the undo is journaled
/// under `entry`.
fn undo_entry(
    ws: &Workspace,
    opts: &Options,
    e: &Entry,
    steps: Vec<FileStep>,
    dry_run: bool,
    entry: &'static str,
) -> Outcome<Undone> {
    // 1. Resolve, lock, read: every file must be as the transaction left it.
    let (txn, slots) = open_unchanged(ws, opts, e, &steps)?;
    // 2. Plan the writes and removals.
    let mut removes: Vec<usize> = Vec::new();
    // (slot, bytes, what a new file takes, the slot of the file it takes it
    // from now): a file moved away comes back with the owner, mode and
    // attributes the moved file has now (as an undone edit keeps what the
    // file has now), not those it had when it moved.
    let mut writes: Vec<UndoWrite<'_>> = Vec::new();
    for (n, ((_, _, step), k)) in steps.iter().zip(&slots).enumerate() {
        let k = k.expect("every slot resolved");
        match step {
            Step::Remove => removes.push(k),
            Step::Restore(b, like) => writes.push((k, b, like.clone(), None)),
            Step::Recreate(b, like) => {
                let moved = e.files()[n].moved_to.as_deref().and_then(|to| {
                    let m = steps
                        .iter()
                        .position(|(p, _, s)| p == to && matches!(s, Step::Remove))?;
                    slots[m]
                });
                match moved {
                    Some(from) => writes.push((k, b, None, Some(from))),
                    None => writes.push((k, b, like.clone(), None)),
                }
            }
        }
    }
    let (files, all_diff) = file_results(&txn, &steps, &slots, dry_run);
    let mut done = Undone {
        ok: True,
        undone: e.id.to_string(),
        redo: e.depth() % 2 == 1,
        files,
        id: None,
        warnings: Vec::new(),
        preview: None,
    };
    if dry_run {
        let kept: Vec<Kept> = writes
            .iter()
            .map(|(k, b, like, from)| Kept {
                slot: *k,
                bytes: b.to_vec(),
                perms_from: *from,
                like: like.clone(),
            })
            .collect();
        let (preview, warnings) = txn.keep_preview(whole_diff(all_diff), kept, &removes, opts);
        done.preview = Some(preview);
        done.warnings = warnings;
        return Ok(done);
    }
    // 3. Commit, journaled as an undo of `e`.
    let ws_writes: Vec<Write<'_>> = writes
        .iter()
        .map(|(k, b, like, from)| Write {
            slot: *k,
            content: vec![*b],
            perms_from: *from,
            sha256: slots
                .iter()
                .position(|s| *s == Some(*k))
                .and_then(|i| done.files[i].sha256.clone()),
            like: like.clone(),
        })
        .collect();
    let rec = Journal::undoing(
        opts,
        entry,
        UndoOf {
            id: e.id,
            depth: e.depth() + 1,
        },
    );
    let committed = txn
        .commit(&ws_writes, &removes, opts, &rec)
        .map_err(|f| f.to_failed())?;
    done.id = rec.recorded().map(|id| id.to_string());
    done.warnings = committed.warnings;
    Ok(done)
}

/// The transaction over every file `e` touched, resolved, locked and read,
/// with each step's slot; the failure when a file is not as `e` left it
/// (`FILE_CHANGED`, naming every such file) or cannot be opened.
fn open_unchanged<'w>(
    ws: &'w Workspace,
    opts: &Options,
    e: &Entry,
    steps: &[FileStep],
) -> Result<(Txn<'w>, Vec<Option<usize>>), Box<Failed>> {
    let mut txn = Txn::new(ws);
    txn.restores = true;
    let mut changed: Vec<String> = Vec::new();
    let mut names: Vec<&str> = Vec::new();
    let mut slots: Vec<Option<usize>> = Vec::new();
    for (rel, _, step) in steps {
        let intent = match step {
            Step::Recreate(..) => Intent::Plan { create_dirs: true },
            _ => Intent::Existing,
        };
        match txn.add(rel, intent) {
            Ok(Added::New(k)) => slots.push(Some(k)),
            Ok(Added::Again { .. }) => {
                return Err(Failure::invalid(printer::names_twice(e.id, rel)).into());
            }
            Err(f)
                if matches!(
                    f.code,
                    ErrorCode::PATH_OUTSIDE_WORKSPACE | ErrorCode::FILE_LOCKED
                ) =>
            {
                return Err(f.into())
            }
            Err(_) => {
                changed.push(ws.root().join(rel).to_string_lossy().into_owned());
                names.push(rel);
                slots.push(None);
            }
        }
    }
    txn.lock_and_read(opts)?;
    // A file another process holds is busy, not changed: the caller waits
    // and calls again (`FILE_LOCKED`), as for any write.
    if let Some(f) = slots
        .iter()
        .flatten()
        .filter_map(|&k| txn.slots[k].read_failure.as_ref())
        .find(|f| f.code == ErrorCode::FILE_LOCKED)
    {
        return Err(f.clone().into());
    }
    for ((rel, after, step), k) in steps.iter().zip(&slots) {
        let Some(k) = *k else { continue };
        let s = &txn.slots[k];
        // The path must still lead to the file the transaction wrote: a
        // link put in its place leads to another file, whatever it holds.
        let ok = s.res.rel_path == *rel
            && match step {
                Step::Recreate(..) => {
                    s.cur.is_none() && s.read_failure.is_none() && s.res.meta.is_none()
                }
                _ => s.sha256() == Some(after.as_str()),
            };
        if !ok {
            changed.push(s.abs());
            names.push(rel);
        }
    }
    if changed.is_empty() {
        return Ok((txn, slots));
    }
    let fl = Failure::new(
        ErrorCode::FILE_CHANGED,
        printer::changed_since_written(e.id, &names),
    );
    let mut failed = Failed::new(&fl, changed.first().map(String::as_str));
    failed.id = Some(e.id.to_string());
    failed.files_changed = Some(changed);
    Err(Box::new(failed))
}

/// Each file's entry of the result (what the undo does to it, its sha256
/// after; on a dry run its preview), and the diff of them all.
fn file_results(
    txn: &Txn<'_>,
    steps: &[FileStep],
    slots: &[Option<usize>],
    dry_run: bool,
) -> (Vec<UndoFile>, Option<String>) {
    let mut files = Vec::with_capacity(steps.len());
    let mut all_diff = Some(String::new());
    for ((rel, _, step), k) in steps.iter().zip(slots) {
        let s = &txn.slots[k.expect("resolved")];
        let (action, new) = match step {
            Step::Restore(b, _) => (UndoAction::Restored, Some(b.as_slice())),
            Step::Remove => (UndoAction::Removed, None),
            Step::Recreate(b, _) => (UndoAction::Recreated, Some(b.as_slice())),
        };
        let diff = dry_run.then(|| {
            let new_src = new.and_then(|b| Source::from_bytes(b.to_vec(), rel).ok());
            let d = preview(rel, s.source(), new_src.as_ref().map(|n| n.text()), new);
            file_diff(d, &mut all_diff)
        });
        files.push(UndoFile {
            file_path: s.abs(),
            action,
            sha256: new.map(|b| sha256_hex([b])),
            diff,
        });
    }
    (files, all_diff)
}
