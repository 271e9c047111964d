//! Recording a commit: the journal as the pipeline's [`Recorder`].
//!
//! The pipeline calls [`Journal::record`] after its commit succeeded, while
//! the transaction's files are still locked and the replaced inodes still
//! set aside; the entry is written once, under its final name, while this
//! process holds the journal's lock. So every entry describes a commit that
//! completed, and a crash between the commit and the record loses only that
//! history line, never a file.
//!
//! # Keeping the replaced inode instead of a copy
//!
//! A file replaced by rename leaves its old inode behind, whole: the commit
//! sets it aside under a temp name (`io::commit::Aside`) instead of
//! unlinking it, and the journal links that inode into its directory as
//! `<id>-<k>-<size>-<ino>.kept`. The previous content is then kept without
//! reading or writing a byte of it. An undone deletion gets back the owner, mode
//! and attributes recorded at the commit, not the kept inode's, which
//! whoever still holds it open can change. A copy
//! into the entry is made only where that is impossible or not worth it:
//!
//! - the file was written in place or by a plain rename (no inode was set
//!   aside), or its inode has other names (linking would let the journal's
//!   "previous content" change through them, and count as one more link of
//!   a live file);
//! - the journal is on another file system (`EXDEV`), or the kernel refuses
//!   the link (`protected_hardlinks`, another user's file);
//! - the content is smaller than [`KEEP_INODE_BYTES`]: writing it along
//!   with the header costs less than a link and its check.
//!
//! # Durability
//!
//! Entries are not fsync'd (two more flushes per edit would triple the cost
//! of a small durable edit); a power loss may therefore drop the newest
//! entries or leave one damaged. Neither is ever acted on: an entry is read
//! back only when its header checks out against its own check and against
//! the file's length, and undo checks each saved content against its
//! recorded sha256 before writing.

use std::ffi::OsStr;
use std::io::{self, Write as _};
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

use super::entry::{self, FileRec, Header, KeptRec};
use super::lines::{line_delta, rfc3339};
use super::store::{self, entry_name, kept_name, State, Store};
use crate::codec::source::hex;
use crate::io::dir::Dir;
use crate::io::dir::Meta;
use crate::io::meta;
use crate::io::workspace::Workspace;
use crate::model::{JournalConfig, Options};
use crate::printer;
use crate::txn::changes::{Before, Commit, Kind, Recorder};

/// Previous contents smaller than this are copied into the entry rather
/// than kept as their inode (see the module docs; measured in
/// `docs/journal.md`).
pub(crate) const KEEP_INODE_BYTES: u64 = 64 << 10;

/// What an undo transaction records about the transaction it undoes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct UndoOf {
    pub(crate) id: u64,
    /// 1 for an undo, 2 for a redo (an undo of an undo), and so on.
    pub(crate) depth: u64,
}

/// The journal of one call, as the pipeline's recorder.
pub(crate) struct Journal {
    cfg: JournalConfig,
    /// How long the journal's lock is waited for (the call's `lockWaitMs`).
    lock_wait: std::time::Duration,
    entry: &'static str,
    undoes: Option<UndoOf>,
    recorded: Mutex<Option<u64>>,
}

impl Journal {
    /// The journal of a call made with `opts` (records nothing when the
    /// journal is off).
    pub(crate) fn for_call(opts: &Options) -> Journal {
        Journal {
            cfg: opts.journal.clone(),
            lock_wait: std::time::Duration::from_millis(opts.lock_wait_ms),
            entry: opts.entry.unwrap_or("write"),
            undoes: None,
            recorded: Mutex::new(None),
        }
    }

    /// The journal of an undo of `of`, recorded under the entry point
    /// named `entry`.
    pub(crate) fn undoing(opts: &Options, entry: &'static str, of: UndoOf) -> Journal {
        Journal {
            entry,
            undoes: Some(of),
            ..Journal::for_call(opts)
        }
    }

    /// The id of the entry this journal recorded, if it did.
    pub(crate) fn recorded(&self) -> Option<u64> {
        *self.recorded.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl Recorder for Journal {
    fn record(&self, c: &Commit<'_>) -> Vec<String> {
        if !self.cfg.enabled || c.files.is_empty() {
            return Vec::new();
        }
        match self.write(c) {
            Ok(id) => {
                *self.recorded.lock().unwrap_or_else(|p| p.into_inner()) = Some(id);
                Vec::new()
            }
            Err(e) => vec![printer::not_journaled(&e.to_string())],
        }
    }

    fn links_held(&self, ws: &Workspace, meta: &Meta) -> u64 {
        match store::open(&self.cfg, ws, false) {
            Ok(Some(s)) => s.links_to(meta),
            _ => 0,
        }
    }
}

fn kind_name(k: Kind) -> &'static str {
    match k {
        Kind::Modified => "modified",
        Kind::Created => "created",
        Kind::Deleted => "deleted",
    }
}

/// What the entry says of one file (its content decided later).
fn file_rec(c: &Commit<'_>, k: usize) -> FileRec {
    let ch = &c.files[k];
    let mut f = FileRec {
        path: ch.rel_path.to_string(),
        kind: kind_name(ch.kind).into(),
        ..FileRec::default()
    };
    match ch.kind {
        // (A modified file with `moved_from`: one moved onto it replaced it.)
        Kind::Created | Kind::Modified => f.moved_from = ch.moved.map(str::to_string),
        Kind::Deleted => f.moved_to = ch.moved.map(str::to_string),
    }
    if let Some(b) = &ch.before {
        f.size_before = Some(b.bytes.len() as u64);
        f.sha256_before = Some(b.sha256.to_string());
        f.mode = b.meta.mode;
        f.uid = b.meta.uid;
        f.gid = b.meta.gid;
    }
    if let Some(a) = &ch.after {
        f.size_after = Some(a.len);
        f.sha256_after = Some(a.sha256.to_string());
    }
    let before: &[u8] = ch.before.as_ref().map_or(b"", |b| b.bytes);
    let (added, removed) = match &ch.after {
        Some(a) => line_delta(before, a.content),
        None => line_delta(before, &[]),
    };
    f.added = added as u64;
    f.removed = removed as u64;
    f
}

/// Why the transaction is recorded without content, if it is.
fn why_not(c: &Commit<'_>, cfg: &JournalConfig) -> Option<String> {
    let mut total = 0u64;
    for ch in &c.files {
        // Undo names a file by its path as a string: one that is not UTF-8
        // could not be named again.
        if c.ws.root().join(ch.rel_path) != ch.abs_path {
            return Some(printer::path_not_utf8(ch.rel_path));
        }
        let len = ch.before.as_ref().map_or(0, |b| b.bytes.len() as u64);
        if len > cfg.max_file_bytes {
            return Some(printer::file_over_journal(ch.rel_path, cfg.max_file_bytes));
        }
        total = total.saturating_add(len);
    }
    (total > cfg.max_bytes).then(|| printer::change_over_journal(total, cfg.max_bytes))
}

/// Links the set-aside inode of `b` into the journal as file `k` of entry
/// `id`, where that is possible and worth it (see the module docs).
fn keep_inode(store: &Store, id: u64, k: usize, b: &Before<'_>) -> Option<KeptRec> {
    let aside = b.aside?;
    let len = b.bytes.len() as u64;
    if len < KEEP_INODE_BYTES {
        return None;
    }
    let m = Dir::meta_of_file(aside.file()).ok()?;
    if m.nlink != 1 || m.size != len {
        return None;
    }
    let name = kept_name(id, k, len, m.ino);
    let linked = aside
        .link_into(store.private().dir(), OsStr::new(&name))
        .ok()?;
    Some(KeptRec {
        name,
        dev: linked.dev,
        ino: linked.ino,
        size: len,
    })
}

/// A deleted (or moved-over) file's extended attributes and flags as the commit removed
/// it, recorded whether its content is copied or its inode kept: undo gives
/// a file it brings back what was recorded, never what a kept inode has by
/// then (whoever held the file open can still `fchmod` or `fsetxattr` it).
/// Its owner, group and mode are recorded for every file ([`file_rec`]).
fn attributes(f: &mut FileRec, b: &Before<'_>) {
    let Some(extras) = b.aside.and_then(|a| meta::capture(a.file()).ok()) else {
        return;
    };
    f.xattrs = Some(
        extras
            .xattrs
            .iter()
            .map(|(n, v)| [hex(n.as_bytes()), hex(v)])
            .collect(),
    );
    f.flags = Some(extras.flags);
}

/// Undoes what a write that failed with `e` made: its entry file `name`
/// and its kept inodes. An entry of that name that was there already is
/// not this write's to remove (the totals were behind the entries: a state
/// file restored or edited); they are counted again for the next write.
fn abandon(st: &store::Store, state: &std::fs::File, name: &str, kept: &[String], e: &io::Error) {
    if e.kind() == io::ErrorKind::AlreadyExists {
        if let Ok(t) = st.rebuild() {
            let _ = st.put_state(state, &t);
        }
    } else {
        st.remove(OsStr::new(name));
    }
    for n in kept {
        st.remove(OsStr::new(n));
    }
}

impl Journal {
    /// Writes the entry of `c` (see the module docs); its id, or why not.
    fn write(&self, c: &Commit<'_>) -> Result<u64, String> {
        let cfg = &self.cfg;
        let mut files: Vec<FileRec> = (0..c.files.len()).map(|k| file_rec(c, k)).collect();
        let why_not = why_not(c, cfg);
        let mut st = store::open(cfg, c.ws, true)
            .map_err(|e| printer::journal_unopened(&e.to_string()))?
            .ok_or("the journal could not be made")?;
        let path = st.path().to_path_buf();
        let at = |what: &str, e: io::Error| {
            printer::journal_step(what, &path.display().to_string(), &e.to_string())
        };
        st.lock(self.lock_wait)
            .map_err(|e| at("cannot lock the journal", e))?;
        let (state, totals) = st
            .open_state()
            .map_err(|e| at("cannot read its totals", e))?;
        let totals = match totals {
            Some(t) => t,
            None => st.rebuild().map_err(|e| at("cannot list it", e))?,
        };
        let id = totals.next;
        // A `next` at the end of the id space was not written by this
        // journal (a state file edited or restored): nothing is written.
        let Some(after) = id.checked_add(1) else {
            return Err(at(
                "cannot take an id",
                io::Error::other("its next id is out of range"),
            ));
        };
        // The id is taken before anything of the entry exists, so a crash
        // in between leaves a gap, never two entries with one id.
        let taken = State {
            next: after,
            ..totals
        };
        st.put_state(&state, &taken)
            .map_err(|e| at("cannot write its totals", e))?;
        let mut blobs: Vec<&[u8]> = Vec::new();
        let mut body = 0u64;
        let mut kept: Vec<String> = Vec::new();
        let mut kept_bytes = 0u64;
        if why_not.is_none() {
            for (k, (ch, f)) in c.files.iter().zip(&mut files).enumerate() {
                let Some(b) = &ch.before else { continue };
                // A file removed, or replaced by one moved onto it: undo
                // brings back its attributes too.
                if ch.kind == Kind::Deleted || ch.moved.is_some() {
                    attributes(f, b);
                }
                if let Some(kr) = keep_inode(&st, id, k, b) {
                    kept_bytes += kr.size;
                    kept.push(kr.name.clone());
                    f.kept = Some(kr);
                    continue;
                }
                let len = b.bytes.len() as u64;
                f.blob = Some([body, len]);
                body += len;
                blobs.push(b.bytes);
            }
        }
        let ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_millis());
        let root = c.ws.root();
        let root_text = root.to_str();
        let header = Header {
            v: entry::VERSION,
            id: id.to_string(),
            time: rfc3339(ms),
            time_ms: ms as u64,
            root: root.to_string_lossy().into_owned(),
            root_hex: root_text.is_none().then(|| hex(&store::path_bytes(root))),
            entry: self.entry.to_string(),
            undoable: why_not.is_none(),
            why_not_undoable: why_not,
            undoes: self.undoes.map(|u| u.id.to_string()),
            depth: self.undoes.map_or(0, |u| u.depth),
            body_bytes: body,
            files,
        };
        let line = entry::encode(&header);
        let size = line.len() as u64 + body;
        if line.len() as u64 > entry::MAX_HEADER_BYTES {
            for n in &kept {
                st.remove(OsStr::new(n));
            }
            return Err("the transaction names more files than one journal entry holds".into());
        }
        let name = entry_name(id, size);
        // Written under its final name, once (see the module docs).
        let written = st
            .private()
            .create_new(OsStr::new(&name))
            .and_then(|mut f| {
                f.write_all(&line)?;
                for b in &blobs {
                    f.write_all(b)?;
                }
                Ok(())
            });
        if let Err(e) = written {
            abandon(&st, &state, &name, &kept, &e);
            return Err(at("cannot write its entry", e));
        }
        let totals = State {
            next: after,
            count: totals.count + 1,
            bytes: totals.bytes.saturating_add(size + kept_bytes),
        };
        let _ = st.put_state(&state, &totals);
        drop(state);
        if totals.count > cfg.max_entries || totals.bytes > cfg.max_bytes {
            st.evict(cfg, id);
        }
        Ok(id)
    }
}
