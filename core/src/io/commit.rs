//! Atomic commit of one or many files.
//!
//! For each file: create a temp file exclusively in the same directory, write
//! the new content from slices, give it the original's permission bits (and
//! owner, where allowed), fsync it. Only when every temp file is ready are
//! they renamed over their targets, then each directory is fsync'd. If a
//! rename fails part-way, the files already replaced get their original
//! bytes back the same way, and the caller is told. On any failure every
//! temp file is removed. A reader therefore sees the old or the new content
//! of each file, never a mix.
//!
//! Just before the renames every target is checked to still be the file
//! that was read: it is re-opened (without following a link), locked with an
//! exclusive `flock`, its identity (device, inode, size, modification and
//! change times) compared with what was read, its bytes re-read and compared
//! byte for byte with the original (stronger than comparing hashes, and
//! cheaper), and the name checked to still refer to the locked inode. If
//! anything differs nothing is renamed and the result is `FILE_CHANGED`.
//! The locks are held until the renames are done, so two patch-file-tool
//! processes can never both replace the same version of a file: the second
//! finds the name pointing at the first one's new inode. That new inode (a
//! temp file, locked since it was made) and a file written in place stay
//! locked after the commit until the caller is done with it ([`Kept`]): the
//! next process's commit of the file waits for them, so the edit journal
//! records the commits of one file in the order they were made. A writer that takes
//! no lock (an editor, `git`) can still slip in between the check and the
//! rename, a window of a few system calls; `docs/security.md` says so.
//! A new file is renamed into place with `RENAME_NOREPLACE` where the kernel
//! has it, so a file created meanwhile by someone else is never replaced.
//!
//! # Keeping everything but the bytes: the write strategy
//!
//! A replacement by rename gives the name a new inode, so before the rename
//! the temp file gets everything of the original's that belongs to the
//! inode: mode bits, owner and group, extended attributes (ACLs included)
//! and `chattr` flags ([`crate::io::meta`]). When that cannot be done — a
//! second hard link, a bind-mounted file, another user's file in a sticky
//! directory, a directory we may not write, an owner or attribute we may not
//! set — the file is written **in place** instead: its inode, and with it
//! everything else, stays. In-place writing is made crash-safe by a record
//! holding a verified copy of the original, kept in the user's private state
//! directory (never beside the file, where others could plant or remove one)
//! until the new content is durable; the record is locked while its writer
//! lives. After a crash, reads see the content before the interrupted write
//! and the next write puts it back, only when the file is provably torn by
//! that very write ([`crate::io::recovery`]). Each committed file reports
//! its strategy.
//!
//! # Rollback without new resources
//!
//! An existing file is replaced with `RENAME_EXCHANGE` where the kernel and
//! file system have it: the temp name then holds the original inode until
//! the commit is done, and undoing the replacement is one more exchange —
//! no descriptor, no disk space. In-place writes are undone from the
//! original bytes in memory through the descriptor already open. Only where
//! exchange is missing does a rollback write the original through a new
//! temp file, as a plain rename commit must.
//!
//! # Originals kept for the journal
//!
//! With `RENAME_EXCHANGE` the replaced inode, and with a removal the removed
//! one, sit under a temp name until the commit is done. Instead of
//! unlinking them there, [`commit_keeping`] hands them to the caller, still
//! locked ([`Aside`]): the edit journal links such an inode into its own
//! directory, which keeps the previous content without copying a byte.
//! Dropping an `Aside` removes the temp name.
//!
//! A failure to flush the directory after the renames is not a failure of
//! the edit: the new content is in place and visible, only its survival of
//! a power loss is unconfirmed. It is reported as a warning on success.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::{self, Seek, Write};
use std::time::Duration;

use crate::error::{ErrorCode, Failure};
use crate::io::dir::{check_fault, same_bytes, Dir, Kind, Meta, Step};
use crate::io::intents;
use crate::io::meta;
use crate::io::recovery::Record;
use crate::io::temps;
use crate::printer;
use crate::result::written::{Strategy, WriteStrategy};

/// One file to write.
pub(crate) struct WriteJob<'a> {
    pub(crate) dir: &'a Dir,
    pub(crate) name: &'a std::ffi::OsStr,
    /// Path for messages.
    pub(crate) display: &'a str,
    pub(crate) content: Vec<&'a [u8]>,
    /// The file as it was read (`None`: the file is new and must not exist).
    pub(crate) original: Option<Original<'a>>,
    /// A file with other hard links may be replaced by rename (this name
    /// only); otherwise it is written in place.
    pub(crate) split_links: bool,
}

/// What was read, to restore on rollback and to detect concurrent change.
pub(crate) struct Original<'a> {
    pub(crate) meta: Meta,
    pub(crate) bytes: &'a [u8],
}

/// A file removed in the same transaction as the writes (a deleted file, or
/// the source of a move). It is checked like a replaced file (still the
/// version that was read), then renamed aside to a temp name; only when
/// every write and removal is done are the set-aside files unlinked, so a
/// failure can rename them back.
pub(crate) struct DeleteJob<'a> {
    pub(crate) dir: &'a Dir,
    pub(crate) name: &'a std::ffi::OsStr,
    /// Path for messages.
    pub(crate) display: &'a str,
    pub(crate) original: Original<'a>,
}

impl<'a> DeleteJob<'a> {
    /// The same target seen as a write job, for the shared checks.
    fn as_write(&self) -> WriteJob<'a> {
        WriteJob {
            dir: self.dir,
            name: self.name,
            display: self.display,
            content: Vec::new(),
            original: Some(Original {
                meta: self.original.meta,
                bytes: self.original.bytes,
            }),
            split_links: true,
        }
    }
}

/// What a commit does besides writing its jobs.
#[derive(Default)]
pub(crate) struct Extra<'a> {
    /// Files removed in the same transaction; in a [`CommitError`] they are
    /// numbered after the write jobs (`jobs.len() + i`).
    pub(crate) deletes: &'a [DeleteJob<'a>],
    /// Per write job (same index; may be shorter): metadata whose permission
    /// bits and owner a *new* file takes (a moved file keeps its mode, also
    /// over an existing file, whose own it then does not take).
    pub(crate) perms_from: &'a [Option<Meta>],
    /// Per write job (same index; may be shorter): extended attributes and
    /// flags a *new* file takes (an undone deletion gets its own back, a
    /// moved file its source's, also over an existing file); each
    /// one this process may not set is reported in the commit's warnings.
    pub(crate) attrs_from: &'a [Option<meta::Extras>],
}

/// How a commit failed.
#[derive(Debug)]
pub(crate) struct CommitError {
    pub(crate) failure: Failure,
    /// Index of the job that failed.
    pub(crate) index: usize,
    /// Whether files already renamed were restored (multi-file only).
    pub(crate) rolled_back: Vec<usize>,
    /// Files that could not be restored (should be empty; reported loudly).
    pub(crate) rollback_failed: Vec<usize>,
}

fn write_err(display: &str, what: &str, e: &io::Error) -> Failure {
    Failure::new(
        ErrorCode::FILE_WRITE_ERROR,
        printer::cannot_write(display, what, e),
    )
}

/// `writev` of every slice, resuming after short writes.
fn write_all_vectored(file: &mut File, content: &[&[u8]]) -> io::Result<()> {
    let mut bufs: Vec<io::IoSlice<'_>> = content
        .iter()
        .filter(|s| !s.is_empty())
        .map(|s| io::IoSlice::new(s))
        .collect();
    let mut slices: &mut [io::IoSlice<'_>] = &mut bufs;
    while !slices.is_empty() {
        // At most IOV_MAX-ish slices per call.
        let take = slices.len().min(512);
        match file.write_vectored(&slices[..take]) {
            Ok(0) => {
                return Err(io::Error::new(
                    io::ErrorKind::WriteZero,
                    "failed to write whole buffer",
                ))
            }
            Ok(n) => io::IoSlice::advance_slices(&mut slices, n),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// How long a commit waits for another process's lock on one of its files.
pub(crate) const LOCK_TIMEOUT: Duration = Duration::from_secs(10);

/// What a successful commit reports besides success.
#[derive(Debug, Default)]
pub(crate) struct Committed {
    /// Set when the new content is in place but could not be confirmed
    /// durable (a directory fsync failed after the renames).
    pub(crate) warnings: Vec<String>,
    /// How each write job was committed.
    pub(crate) strategies: Vec<Strategy>,
    /// sha256 of each write job's new content (same index), where the
    /// pipeline computed it; empty here.
    pub(crate) sha256: Vec<String>,
}

/// Whether `now` is the same version of the same file as `then`.
fn same_version(now: &Meta, then: &Meta) -> bool {
    now.kind == then.kind
        && now.dev == then.dev
        && now.ino == then.ino
        && now.size == then.size
        && now.mtime_ns == then.mtime_ns
        && now.ctime_ns == then.ctime_ns
}

/// Whether the open `file`, whose metadata is `now`, is still the version
/// read (`then`, its bytes `bytes`): its identity and times, its bytes
/// compared one for one, and its identity and times again after the
/// comparison, which reads the whole file (33 ms for 64 MiB): a write in
/// place, a new hard link, a `chmod` or an attribute set meanwhile moves
/// its ctime, and would otherwise be written over by the rename with `ok:
/// true`. (`between` runs after the comparison: a test's way in.)
fn unchanged(
    file: &File,
    now: &Meta,
    (then, bytes): (&Meta, &[u8]),
    between: impl FnOnce(),
) -> io::Result<bool> {
    if !same_version(now, then) || !same_bytes(file, bytes)? {
        return Ok(false);
    }
    between();
    Ok(same_version(&Dir::meta_of_file(file)?, now))
}

fn changed(display: &str, why: &str) -> Failure {
    Failure::new(
        ErrorCode::FILE_CHANGED,
        printer::changed_while_editing(display, why),
    )
}

/// Checks, just before the rename, that the job's target is still what was
/// read (or still absent). Returns the locked file, held until the rename.
fn verify(job: &WriteJob<'_>) -> Result<Option<File>, Failure> {
    let inspect = |e: &io::Error| {
        write_err(
            job.display,
            "cannot inspect the file before replacing it",
            e,
        )
    };
    let Some(o) = &job.original else {
        return match job.dir.stat(job.name) {
            Ok(None) => Ok(None),
            Ok(Some(_)) => Err(changed(job.display, "was created by another process")),
            Err(e) => Err(inspect(&e)),
        };
    };
    let Some((file, _)) = job.dir.open_current(job.name).map_err(|e| inspect(&e))? else {
        return Err(changed(
            job.display,
            "was deleted or replaced by another process",
        ));
    };
    let nonblocking = crate::io::locks::is_nonblocking();
    let wait = if nonblocking {
        Duration::ZERO
    } else {
        LOCK_TIMEOUT
    };
    if !Dir::lock_exclusive(&file, wait).map_err(|e| inspect(&e))? {
        if nonblocking {
            return Err(Failure::new(
                ErrorCode::FILE_LOCKED,
                printer::lock_held(job.display),
            ));
        }
        return Err(changed(job.display, "is being written by another process"));
    }
    let now = Dir::meta_of_file(&file).map_err(|e| inspect(&e))?;
    if !unchanged(&file, &now, (&o.meta, o.bytes), || {}).map_err(|e| inspect(&e))? {
        return Err(changed(job.display, "was changed by another process"));
    }
    match job.dir.stat(job.name).map_err(|e| inspect(&e))? {
        Some(m) if m.dev == now.dev && m.ino == now.ino => Ok(Some(file)),
        _ => Err(changed(job.display, "was replaced by another process")),
    }
}

/// A temp file that is removed when dropped unless it was renamed into
/// place; also on a panic, so that unwinding leaves nothing behind. Its
/// descriptor stays open, holding an `flock` that tells the stale-temp
/// sweep of any other process that its writer is alive.
struct Temp<'a> {
    dir: &'a Dir,
    name: OsString,
    live: bool,
    _lock: Option<File>,
    /// Attributes a new file was meant to take but may not have.
    lost: Vec<String>,
}

impl Temp<'_> {
    /// Renames the temp file over `to` (or to a new name `to`).
    fn rename_over(&mut self, to: &OsStr, must_be_new: bool) -> io::Result<()> {
        if must_be_new {
            self.dir.rename_noreplace(&self.name, to)?;
        } else {
            self.dir.rename(&self.name, to)?;
        }
        self.live = false;
        Ok(())
    }
}

impl Drop for Temp<'_> {
    fn drop(&mut self) {
        if self.live {
            let _ = self.dir.unlink(&self.name);
        }
    }
}

/// What step 1 made of a job.
enum Prepared<'a> {
    /// A filled temp file, to be renamed over the target.
    Temp(Temp<'a>),
    /// The target is written in place (why a rename would lose something).
    InPlace(&'static str),
}

/// Whether an error creating a file in a directory means we may not write
/// the directory (so the file must be written in place).
fn dir_not_writable(e: &io::Error) -> bool {
    matches!(e.kind(), io::ErrorKind::PermissionDenied) || e.raw_os_error() == Some(1)
}

/// Gives the temp file `f` of `job` the owner, group and mode of `m`; what
/// a new file standing for another one (moved, or brought back by undo)
/// could not take (`owner`, `group`), for the commit's warnings. `None`:
/// the owner could not be given to the replacement of an existing file
/// (written in place instead).
fn take_perms(job: &WriteJob<'_>, f: &File, m: &Meta) -> Result<Option<Vec<String>>, Failure> {
    let err = |e: &io::Error| write_err(job.display, "cannot set its permissions", e);
    check_fault(Step::Chmod).map_err(|e| err(&e))?;
    let now = Dir::meta_of_file(f).map_err(|e| err(&e))?;
    let mut mode = m.mode;
    let mut lost = Vec::new();
    if (m.uid, m.gid) != (now.uid, now.gid) {
        let uid = m.uid.filter(|u| Some(*u) != now.uid);
        let gid = m.gid.filter(|g| Some(*g) != now.gid);
        if Dir::set_owner(f, uid, gid).is_err() {
            if job.original.is_some() {
                return Ok(None);
            }
            // May not take its owner: the group alone, if permitted, and
            // set-id bits only with the owner or group they were set for.
            if uid.is_some() && gid.is_some() {
                let _ = Dir::set_owner(f, None, gid);
            }
            let got = Dir::meta_of_file(f).map_err(|e| err(&e))?;
            mode = mode.map(|md| meta::set_id_kept(md, m, &got));
            if uid.is_some() {
                lost.push("owner".to_string());
            }
            if gid.is_some() && got.gid != m.gid {
                lost.push("group".to_string());
            }
        }
    }
    // After the owner: changing the owner clears set-id bits.
    if let Some(mode) = mode {
        Dir::set_mode(f, mode).map_err(|e| err(&e))?;
    }
    Ok(Some(lost))
}

/// Makes the temp file for `job` (step 1), or decides to write in place.
/// `perms` is the metadata the new file takes: the original's, or a moved
/// file's for a new one.
fn prepare<'a>(
    job: &WriteJob<'a>,
    content: &[&[u8]],
    perms: Option<&Meta>,
    attrs: Option<&meta::Extras>,
    durable: bool,
) -> Result<Prepared<'a>, Failure> {
    let inspect = |e: &io::Error| {
        write_err(
            job.display,
            "cannot read its attributes before replacing it",
            e,
        )
    };
    let mut extras = meta::Extras::default();
    if let Some(o) = &job.original {
        check_fault(Step::Prepare)
            .map_err(|e| write_err(job.display, "cannot prepare the write", &e))?;
        job.dir.check_writable(job.name).map_err(|e| {
            // Gone since it was read: another process deleted or moved it.
            if e.kind() == io::ErrorKind::NotFound {
                return changed(job.display, "was deleted or replaced by another process");
            }
            write_err(
                job.display,
                "the file is read-only (no write permission, immutable, or on a read-only file system)",
                &e,
            )
        })?;
        if let Some(why) = meta::rename_loses(job.dir, job.name, &o.meta, job.split_links) {
            return Ok(Prepared::InPlace(why));
        }
        #[cfg(unix)]
        if let (Some(uid), Some(gid)) = (o.meta.uid, o.meta.gid) {
            if !meta::may_own(uid, gid) {
                return Ok(Prepared::InPlace(
                    "it belongs to another user or group, which a new file could not keep",
                ));
            }
        }
        if let Some((f, _)) = job.dir.open_current(job.name).map_err(|e| inspect(&e))? {
            extras = meta::capture(&f).map_err(|e| inspect(&e))?;
        }
    }
    if job.dir.append_only() {
        // No name in it can be renamed over or removed: not even a temp
        // file that failed.
        return match job.original {
            Some(_) => Ok(Prepared::InPlace(
                "its directory is append-only (chattr +a), where no file can be renamed over",
            )),
            None => Err(write_err(
                job.display,
                "its directory is append-only (chattr +a): a new file could neither be renamed into it nor \
                 removed if its write failed",
                &io::Error::from_raw_os_error(1),
            )),
        };
    }
    let mode = if perms.is_some() { 0o600 } else { 0o666 };
    let (mut f, name) = match temps::create(job.dir, job.name, mode) {
        Ok(t) => t,
        Err(e) if job.original.is_some() && dir_not_writable(&e) => {
            return Ok(Prepared::InPlace("its directory is not writable"))
        }
        Err(e) => {
            return Err(write_err(
                job.display,
                "cannot create a temp file in its directory",
                &e,
            ))
        }
    };
    let _ = Dir::lock_exclusive(&f, Duration::ZERO);
    let mut tmp = Temp {
        dir: job.dir,
        name,
        live: true,
        _lock: None,
        lost: Vec::new(),
    };
    let fill = |f: &mut File| -> io::Result<()> {
        check_fault(Step::Write)?;
        write_all_vectored(f, content)
    };
    fill(&mut f).map_err(|e| write_err(job.display, "cannot write the new content", &e))?;
    let owner_lost = match perms {
        Some(m) => match take_perms(job, &f, m)? {
            Some(lost) => lost,
            None => {
                return Ok(Prepared::InPlace(
                    "its owner or group could not be given to a new file",
                ))
            }
        },
        None => Vec::new(),
    };
    tmp.lost = owner_lost;
    match attrs {
        Some(want) => tmp.lost.extend(meta::apply_permitted(&f, want)),
        // A new file keeps what its directory gives any new file (the
        // access ACL of a default ACL, inherited flags).
        None if job.original.is_none() => {}
        None => {
            if meta::apply(&f, &extras).is_err() {
                return Ok(Prepared::InPlace(
                    "an extended attribute, ACL or flag of it could not be given to a new file",
                ));
            }
        }
    }
    if durable {
        check_fault(Step::Fsync)
            .and_then(|()| f.sync_all())
            .map_err(|e| write_err(job.display, "cannot write the new content", &e))?;
    }
    tmp._lock = Some(f);
    Ok(Prepared::Temp(tmp))
}

// ---------------------------------------------------------------------------
// In-place writes and their records

/// An in-place write in progress: the target open for writing, the
/// original bytes, and the record holding a verified copy of them
/// ([`Record`], locked while we live). Dropped before it is finished — an
/// error, a panic — it writes the original back (through the descriptor it
/// holds) and removes the record; only if that fails does the record stay,
/// for the next write of the file to restore from.
struct InPlace<'a> {
    file: File,
    original: &'a [u8],
    durable: bool,
    record: Option<Record>,
    /// The target may hold other bytes than the original.
    dirty: bool,
    /// The original's permission bits and capability set, which the kernel
    /// takes off a file written to (set-id bits for a writer without
    /// `CAP_FSETID`).
    mode: Option<u32>,
    cap: Option<Vec<u8>>,
    /// What could not be put back after the write, for the warnings.
    lost: Vec<String>,
}

impl<'a> InPlace<'a> {
    /// Opens the target for writing and keeps the record of this write
    /// (the original, and digests of `content`, which is about to be
    /// written) in the private state before the file is touched.
    fn begin(
        job: &WriteJob<'a>,
        locked: &Meta,
        content: &[&[u8]],
        durable: bool,
    ) -> Result<Self, Failure> {
        let o = job.original.as_ref().expect("in place needs an original");
        let (file, m) = job
            .dir
            .open_write(job.name)
            .map_err(|e| write_err(job.display, "cannot open it for writing in place", &e))?;
        if (m.dev, m.ino) != (locked.dev, locked.ino) {
            return Err(changed(job.display, "was replaced by another process"));
        }
        let record = check_fault(Step::Write)
            .and_then(|()| Record::create(job.dir, job.name, &file, &m, o.bytes, content, durable))
            .map_err(|e| {
                if e.kind() == io::ErrorKind::WouldBlock {
                    return Failure::new(
                        ErrorCode::FILE_LOCKED,
                        printer::record_held(job.display),
                    );
                }
                write_err(
                    job.display,
                    "cannot keep a verified copy of it in the private state directory before writing it in place",
                    &e,
                )
            })?;
        let cap = meta::capability(&file);
        Ok(InPlace {
            file,
            original: o.bytes,
            durable,
            record: Some(record),
            dirty: false,
            mode: m.mode,
            cap,
            lost: Vec::new(),
        })
    }

    /// Puts back the capability set and set-id bits the write took off,
    /// where this process may; what it may not (a capability, for an
    /// unprivileged writer; set-id bits, for one not the owner).
    fn reinstate(&self) -> Vec<String> {
        let mut lost = Vec::new();
        if let Some(cap) = &self.cap {
            if meta::capability(&self.file).as_ref() != Some(cap)
                && meta::set_capability(&self.file, cap).is_err()
            {
                lost.push("security.capability".to_string());
            }
        }
        let Some(mode) = self.mode.filter(|m| m & 0o6000 != 0) else {
            return lost;
        };
        let now = || {
            Dir::meta_of_file(&self.file)
                .ok()
                .and_then(|m| m.mode)
                .unwrap_or(0)
        };
        if now() != mode {
            let _ = Dir::set_mode(&self.file, mode);
            let gone = mode & !now();
            for (bit, name) in [(0o4000, "set-user-id bit"), (0o2000, "set-group-id bit")] {
                if gone & bit != 0 {
                    lost.push(name.to_string());
                }
            }
        }
        lost
    }

    /// Writes `content` over the file and cuts it to length.
    fn write(&mut self, content: &[&[u8]]) -> io::Result<()> {
        self.dirty = true;
        self.file.seek(io::SeekFrom::Start(0))?;
        check_fault(Step::Write)?;
        write_all_vectored(&mut self.file, content)?;
        let len: usize = content.iter().map(|s| s.len()).sum();
        self.file.set_len(len as u64)?;
        self.lost = self.reinstate();
        if self.durable {
            check_fault(Step::Fsync)?;
            self.file.sync_all()?;
        }
        Ok(())
    }

    /// Puts the original bytes back (no new descriptor, no new space).
    fn restore(&mut self) -> io::Result<()> {
        check_fault(Step::Restore)?;
        self.file.seek(io::SeekFrom::Start(0))?;
        write_all_vectored(&mut self.file, &[self.original])?;
        self.file.set_len(self.original.len() as u64)?;
        let _ = self.reinstate();
        if self.durable {
            self.file.sync_all()?;
        }
        self.dirty = false;
        Ok(())
    }

    /// The new content is durable: the record goes.
    fn finish(mut self) {
        self.dirty = false;
        if let Some(r) = self.record.take() {
            r.finish();
        }
    }
}

impl Drop for InPlace<'_> {
    fn drop(&mut self) {
        if self.dirty && self.restore().is_err() {
            // The record stays (unlocked once we are gone), so that the
            // next write of the file restores from it.
            if let Some(r) = self.record.take() {
                r.keep();
            }
            return;
        }
        if let Some(r) = self.record.take() {
            r.finish();
        }
    }
}
// ---------------------------------------------------------------------------
// The commit

/// Commits every job atomically (all files or none; for the tests of the
/// commit alone).
#[cfg(test)]
pub(crate) fn commit(jobs: &[WriteJob<'_>], durable: bool) -> Result<Committed, CommitError> {
    commit_keeping(jobs, &Extra::default(), durable).map(|(done, _)| done)
}

/// What happened to a job, for rollback.
enum Done<'a> {
    /// Renamed into place; `swapped`: the original now sits at `temp`.
    Renamed { swapped: bool, temp: OsString },
    /// Written in place.
    Written(InPlace<'a>),
}

/// An original file a commit replaced or removed, still whole under a temp
/// name in its directory and still locked (so no stale-temp sweep takes
/// it), handed to the caller instead of being unlinked at once: the
/// journal links this inode into its own directory rather than copying the
/// bytes ([`Aside::link_into`]). Dropping it removes the temp name.
///
/// Only a file replaced with `RENAME_EXCHANGE`, or removed, is set aside;
/// one replaced by a plain rename is gone, one written in place is the file
/// itself.
#[cfg_attr(not(unix), allow(dead_code))]
pub(crate) struct Aside<'a> {
    dir: &'a Dir,
    name: OsString,
    /// The original inode, open (and `flock`ed) since the pre-rename check.
    file: File,
}

impl Aside<'_> {
    /// The original inode.
    pub(crate) fn file(&self) -> &File {
        &self.file
    }

    /// Gives the original inode the name `name` in `dest` (same file
    /// system only: `EXDEV` otherwise) and checks that the new name is that
    /// inode (the temp name lives in the user's directory, where another
    /// user might have swapped it): a name for anything else is removed
    /// again and the call fails. Returns the linked file's metadata.
    pub(crate) fn link_into(&self, dest: &Dir, name: &OsStr) -> io::Result<Meta> {
        self.dir.link_to(&self.name, dest, name)?;
        let ours = Dir::meta_of_file(&self.file)?;
        match dest.stat(name)? {
            Some(m) if (m.dev, m.ino) == (ours.dev, ours.ino) && m.kind == Kind::File => Ok(m),
            _ => {
                let _ = dest.unlink(name);
                Err(io::Error::other(
                    "the set-aside original was replaced meanwhile",
                ))
            }
        }
    }
}

impl Drop for Aside<'_> {
    fn drop(&mut self) {
        // Only our inode's name goes (a leftover is a temp name the
        // stale-temp sweep removes).
        let ours = Dir::meta_of_file(&self.file);
        if let (Ok(o), Ok(Some(m))) = (ours, self.dir.stat(&self.name)) {
            if (m.dev, m.ino) == (o.dev, o.ino) {
                let _ = self.dir.unlink(&self.name);
            }
        }
    }
}

/// The originals a commit set aside: per write job, per removal (same
/// indexes as the jobs and `Extra::deletes`), and the locks it still holds.
#[derive(Default)]
pub(crate) struct Kept<'a> {
    pub(crate) writes: Vec<Option<Aside<'a>>>,
    pub(crate) deletes: Vec<Option<Aside<'a>>>,
    /// The `flock`s on what now stands at each written name — the new
    /// inode renamed into place (its temp file's lock), or the file written
    /// in place — held until the caller drops this. Another process's
    /// commit of the same file locks what stands at the name before it
    /// checks and replaces it, so it waits until the caller has recorded
    /// this commit: the edit journal takes its ids in commit order.
    held: Vec<File>,
}

/// Keeps the lock `f` in `held` (off Unix, where a handle left open makes
/// another rename over the file fail and there are no cross-process locks,
/// it is closed).
fn hold(held: &mut Vec<File>, f: Option<File>) {
    #[cfg(unix)]
    held.extend(f);
    #[cfg(not(unix))]
    let _ = (held, f);
}

/// The set-aside original at `name` for the caller, or removed now when
/// there is no locked handle on it to keep.
#[cfg(unix)]
fn set_aside<'a>(dir: &'a Dir, name: OsString, guard: Option<Guard>) -> Option<Aside<'a>> {
    match guard {
        Some((file, _)) => Some(Aside { dir, name, file }),
        None => {
            let _ = dir.unlink(&name);
            None
        }
    }
}

#[cfg(not(unix))]
fn set_aside<'a>(dir: &'a Dir, name: OsString, _guard: Option<Guard>) -> Option<Aside<'a>> {
    let _ = dir.unlink(&name);
    None
}

/// Commits every job and every removal of `extra` atomically (all or
/// none), handing the caller the originals it replaced or removed
/// ([`Aside`]) instead of unlinking them.
pub(crate) fn commit_keeping<'a>(
    jobs: &[WriteJob<'a>],
    extra: &Extra<'a>,
    durable: bool,
) -> Result<(Committed, Kept<'a>), CommitError> {
    // 1. Every temp file written and flushed (or the job marked in place).
    //    Any early return (or panic) from here on drops the temp files that
    //    were not renamed.
    let prepared = prepare_all(jobs, extra, durable)?;
    // 2. Every target checked and locked.
    let removed: Vec<WriteJob<'_>> = extra.deletes.iter().map(DeleteJob::as_write).collect();
    let all: Vec<&WriteJob<'_>> = jobs.iter().chain(&removed).collect();
    let guards = lock_all(&all)?;
    drop(all);
    // 3. Renames, then in-place writes, behind the commit's intent (undone
    //    by the next call should this process die half-way).
    let (strategies, temps, in_place) = split_prepared(prepared);
    let backups: Vec<OsString> = removed.iter().map(|j| temps::name(j.dir, j.name)).collect();
    let mut warnings = Vec::new();
    let intent = intend(
        jobs,
        &temps,
        (&removed, &backups),
        &guards,
        durable,
        &mut warnings,
    );
    let out = steps(
        jobs,
        extra,
        (&removed, &backups),
        (temps, in_place),
        guards,
        (durable, intent.as_ref()),
    );
    if let Some(i) = intent {
        i.finish();
    }
    let (mut out, kept) = out?;
    out.warnings.splice(0..0, warnings);
    out.strategies = strategies;
    Ok((out, kept))
}

/// Keeps the intent of a commit of two steps or more (renames, removals):
/// its steps as [`intents::begin`] takes them. Without one (the private
/// state cannot be written), the commit goes on, and says so.
#[cfg(unix)]
fn intend(
    jobs: &[WriteJob<'_>],
    temps: &[Option<Temp<'_>>],
    (removed, backups): (&[WriteJob<'_>], &[OsString]),
    guards: &[Option<Guard>],
    durable: bool,
    warnings: &mut Vec<String>,
) -> Option<intents::Intent> {
    let old = |k: usize| guards[k].as_ref().map(|(f, _)| f);
    let mut planned = Vec::with_capacity(jobs.len() + removed.len());
    for (i, job) in jobs.iter().enumerate() {
        let Some((t, new)) = temps[i].as_ref().and_then(|t| Some((t, t._lock.as_ref()?))) else {
            continue;
        };
        planned.push(intents::Planned {
            dir: job.dir,
            name: job.name,
            temp: &t.name,
            new: Some(new),
            old: old(i),
        });
    }
    for (d, job) in removed.iter().enumerate() {
        planned.push(intents::Planned {
            dir: job.dir,
            name: job.name,
            temp: &backups[d],
            new: None,
            old: old(jobs.len() + d),
        });
    }
    if planned.len() < 2 {
        return None;
    }
    match intents::begin(&planned, durable) {
        Ok(i) => Some(i),
        Err(e) => {
            warnings.push(printer::intent_not_kept(&e));
            None
        }
    }
}

#[cfg(not(unix))]
fn intend(
    _: &[WriteJob<'_>],
    _: &[Option<Temp<'_>>],
    _: (&[WriteJob<'_>], &[OsString]),
    _: &[Option<Guard>],
    _: bool,
    _: &mut Vec<String>,
) -> Option<intents::Intent> {
    None
}

/// Steps 3 to 6 of [`commit_keeping`] (its strategies left for the caller
/// to fill in).
fn steps<'a>(
    jobs: &[WriteJob<'a>],
    extra: &Extra<'a>,
    (removed, backups): (&[WriteJob<'_>], &[OsString]),
    (mut temps, in_place): (Vec<Option<Temp<'_>>>, Vec<usize>),
    mut guards: Vec<Option<Guard>>,
    (durable, intent): (bool, Option<&intents::Intent>),
) -> Result<(Committed, Kept<'a>), CommitError> {
    let all: Vec<&WriteJob<'_>> = jobs.iter().chain(removed).collect();
    let mut done = rename_all(jobs, &mut temps, &guards, (durable, intent))?;
    let mut lost = lost_attributes(jobs, &temps);
    let mut kept = Kept {
        writes: (0..jobs.len()).map(|_| None).collect(),
        deletes: (0..removed.len()).map(|_| None).collect(),
        held: Vec::new(),
    };
    // The new inodes now in place stay locked for the caller (see
    // [`Kept::held`]).
    for t in temps.iter_mut().flatten().filter(|t| !t.live) {
        hold(&mut kept.held, t._lock.take());
    }
    drop(temps);
    write_in_place(jobs, &in_place, &guards, &mut done, durable)?;
    // 4. Removals: each file renamed aside, so that it can come back.
    let (done, aside) = remove_aside(jobs, removed, backups, &guards[jobs.len()..], done, durable)?;
    // 5. Done: in-place copies go; the originals set aside go to the
    //    caller with their locks (removed when it drops them), and so do
    //    the locks of the files written in place.
    for (k, b) in aside {
        kept.deletes[k] = set_aside(extra.deletes[k].dir, b, guards[jobs.len() + k].take());
    }
    for (i, d) in done {
        match d {
            Done::Renamed {
                swapped: true,
                temp,
            } => kept.writes[i] = set_aside(jobs[i].dir, temp, guards[i].take()),
            Done::Renamed { .. } => {}
            Done::Written(w) => {
                if !w.lost.is_empty() {
                    lost.push(printer::attributes_lost(jobs[i].display, &w.lost));
                }
                w.finish();
                #[cfg(unix)]
                hold(&mut kept.held, guards[i].take().map(|(f, _)| f));
            }
        }
    }
    drop(guards);
    // 6. Directory entries made durable.
    let mut out = Committed {
        warnings: lost,
        ..Committed::default()
    };
    if durable {
        sync_dirs(&all, &mut out.warnings);
    }
    Ok((out, kept))
}

/// A failure of job `index`, before anything was renamed.
fn failed_at(index: usize, failure: Failure) -> CommitError {
    CommitError {
        failure,
        index,
        rolled_back: Vec::new(),
        rollback_failed: Vec::new(),
    }
}

/// A failure of job `index` after `done` were committed: they are rolled
/// back first.
fn failed_after(
    jobs: &[WriteJob<'_>],
    done: Vec<(usize, Done<'_>)>,
    durable: bool,
    index: usize,
    failure: Failure,
) -> CommitError {
    let (rolled_back, rollback_failed) = rollback(jobs, done, durable);
    CommitError {
        failure,
        index,
        rolled_back,
        rollback_failed,
    }
}

/// Step 1: every job's temp file written and flushed, or the job marked to
/// be written in place.
fn prepare_all<'j>(
    jobs: &'j [WriteJob<'_>],
    extra: &Extra<'_>,
    durable: bool,
) -> Result<Vec<Prepared<'j>>, CommitError> {
    let mut prepared: Vec<Prepared<'_>> = Vec::with_capacity(jobs.len());
    for (i, job) in jobs.iter().enumerate() {
        // A file moved onto an existing one takes the moved file's
        // metadata, not that of the file it replaces.
        let perms = extra
            .perms_from
            .get(i)
            .and_then(Option::as_ref)
            .or_else(|| job.original.as_ref().map(|o| &o.meta));
        let attrs = extra.attrs_from.get(i).and_then(Option::as_ref);
        prepared
            .push(prepare(job, &job.content, perms, attrs, durable).map_err(|f| failed_at(i, f))?);
    }
    Ok(prepared)
}

/// An open, locked target and its metadata (off Unix, the metadata only).
#[cfg(unix)]
type Guard = (File, Meta);
#[cfg(not(unix))]
type Guard = ((), Meta);

/// Step 2: every existing target checked and locked, in one global order
/// (device, inode) so that two processes' batches cannot wait on each
/// other.
fn lock_all(all: &[&WriteJob<'_>]) -> Result<Vec<Option<Guard>>, CommitError> {
    let mut order: Vec<usize> = (0..all.len()).collect();
    order.sort_by_key(|&i| all[i].original.as_ref().map(|o| (o.meta.dev, o.meta.ino)));
    let mut guards: Vec<Option<(File, Meta)>> = (0..all.len()).map(|_| None).collect();
    for &i in &order {
        if let Some(f) = verify(all[i]).map_err(|f| failed_at(i, f))? {
            let m = Dir::meta_of_file(&f)
                .map_err(|e| failed_at(i, write_err(all[i].display, "cannot inspect it", &e)))?;
            guards[i] = Some((f, m));
        }
    }
    // Off Unix (the portable fallback, which has no cross-process locks) the
    // handles only served the check above. On Windows a rename over a file
    // that still has an open handle fails with "Access is denied" (os error
    // 5) unless the rename has POSIX semantics and every handle allows delete
    // sharing, so they are closed before the renames; the in-place writes
    // need only the metadata.
    #[cfg(not(unix))]
    let guards: Vec<Option<Guard>> = guards
        .into_iter()
        .map(|g| g.map(|(file, m)| (drop(file), m)))
        .collect();
    Ok(guards)
}

/// The prepared jobs as each job's strategy, its temp file (none when
/// written in place) and the indexes of the jobs written in place.
#[allow(clippy::type_complexity)]
fn split_prepared(
    prepared: Vec<Prepared<'_>>,
) -> (Vec<Strategy>, Vec<Option<Temp<'_>>>, Vec<usize>) {
    let mut strategies = vec![Strategy::of(WriteStrategy::Rename, None); prepared.len()];
    let mut temps: Vec<Option<Temp<'_>>> = Vec::with_capacity(prepared.len());
    let mut in_place: Vec<usize> = Vec::new();
    for (i, p) in prepared.into_iter().enumerate() {
        match p {
            Prepared::Temp(t) => temps.push(Some(t)),
            Prepared::InPlace(why) => {
                temps.push(None);
                in_place.push(i);
                strategies[i] = Strategy::of(WriteStrategy::InPlace, Some(why));
            }
        }
    }
    (strategies, temps, in_place)
}

/// Step 3, renames: each temp file over its target (exchanged with an
/// existing one, so the original stays whole under the temp name). On a
/// failure the jobs already renamed are rolled back.
///
/// Between the check of a target and the exchange, another process may
/// rename a file of its own over the target (no lock stops a rename). The
/// exchange hands back whatever stood at the name: when that is not the
/// inode checked and locked, it is exchanged back at once (their file at
/// the name again, untouched) and the commit fails as `FILE_CHANGED`,
/// instead of that file being unlinked as the original.
fn rename_all<'j>(
    jobs: &'j [WriteJob<'_>],
    temps: &mut [Option<Temp<'_>>],
    guards: &[Option<Guard>],
    (durable, intent): (bool, Option<&intents::Intent>),
) -> Result<Vec<(usize, Done<'j>)>, CommitError> {
    let mut done: Vec<(usize, Done<'_>)> = Vec::with_capacity(jobs.len());
    // The intent's step of each temp file: they come first, in job order.
    let mut step_of = 0;
    for (i, job) in jobs.iter().enumerate() {
        let Some(t) = temps[i].as_mut() else { continue };
        let k = step_of;
        step_of += 1;
        let step = if job.original.is_some() {
            match job.dir.exchange(&t.name, job.name, Step::Rename) {
                Ok(()) if !displaced_is_locked(job.dir, &t.name, guards.get(i)) => {
                    // Theirs back at the name; ours, under the temp name,
                    // goes with the temp file.
                    let failure = match job.dir.exchange(&t.name, job.name, Step::Rename) {
                        Ok(()) => changed(job.display, "was replaced by another process"),
                        Err(e) => {
                            // Theirs is under the temp name: never removed.
                            t.live = false;
                            write_err(
                                job.display,
                                "cannot put back the file another process renamed there",
                                &e,
                            )
                        }
                    };
                    for t in temps.iter_mut() {
                        drop(t.take());
                    }
                    return Err(failed_after(jobs, done, durable, i, failure));
                }
                Ok(()) => {
                    t.live = false;
                    Ok(true)
                }
                Err(e) if e.kind() == io::ErrorKind::Unsupported => {
                    t.rename_over(job.name, false).map(|()| false)
                }
                Err(e) => Err(e),
            }
        } else {
            t.rename_over(job.name, true).map(|()| false)
        };
        match step {
            Ok(swapped) => {
                if let (Some(intent), Some(f)) = (intent, t._lock.as_ref()) {
                    intent.renamed(k, f);
                }
                done.push((
                    i,
                    Done::Renamed {
                        swapped,
                        temp: t.name.clone(),
                    },
                ))
            }
            Err(e) => {
                let failure = if e.kind() == io::ErrorKind::AlreadyExists && job.original.is_none()
                {
                    changed(job.display, "was created by another process")
                } else {
                    write_err(job.display, "cannot replace the file", &e)
                };
                // The temp files not renamed go before the rollback.
                for t in temps.iter_mut() {
                    drop(t.take());
                }
                return Err(failed_after(jobs, done, durable, i, failure));
            }
        }
    }
    Ok(done)
}

/// Whether the file now at `name` in `dir` (what an exchange displaced) is
/// the inode locked before the renames (`guard`; none to compare with off
/// Unix, or for a target that was not locked: taken as it is).
fn displaced_is_locked(dir: &Dir, name: &OsStr, guard: Option<&Option<Guard>>) -> bool {
    let Some(Some((_, locked))) = guard else {
        return true;
    };
    match dir.stat(name) {
        Ok(Some(m)) => (m.dev, m.ino) == (locked.dev, locked.ino),
        _ => false,
    }
}

/// The warnings for files written without attributes they were to take.
fn lost_attributes(jobs: &[WriteJob<'_>], temps: &[Option<Temp<'_>>]) -> Vec<String> {
    temps
        .iter()
        .zip(jobs)
        .filter_map(|(t, job)| {
            let t = t.as_ref().filter(|t| !t.lost.is_empty())?;
            Some(printer::attributes_lost(job.display, &t.lost))
        })
        .collect()
}

/// Step 3, in-place writes, behind their verified copies. On a failure
/// every job done is rolled back.
fn write_in_place<'j>(
    jobs: &'j [WriteJob<'_>],
    in_place: &[usize],
    guards: &[Option<Guard>],
    done: &mut Vec<(usize, Done<'j>)>,
    durable: bool,
) -> Result<(), CommitError> {
    for &i in in_place {
        let job = &jobs[i];
        let locked = guards[i]
            .as_ref()
            .map(|(_, m)| *m)
            .expect("an existing file was locked");
        let started = InPlace::begin(job, &locked, &job.content, durable).and_then(|mut w| {
            w.write(&job.content)
                .map_err(|e| write_err(job.display, "cannot write the new content in place", &e))?;
            Ok(w)
        });
        match started {
            Ok(w) => done.push((i, Done::Written(w))),
            Err(failure) => {
                return Err(failed_after(
                    jobs,
                    std::mem::take(done),
                    durable,
                    i,
                    failure,
                ));
            }
        }
    }
    Ok(())
}

/// The jobs done, and each removal's temp name (by index of the removal).
type Removed<'j> = (Vec<(usize, Done<'j>)>, Vec<(usize, OsString)>);

/// Step 4: each file to remove renamed aside (to a temp name), so that it
/// can come back. On a failure the removals and every job done are rolled
/// back.
///
/// A file another process renamed over one to remove after the check is
/// not the file checked: renamed back, and the commit fails (`FILE_CHANGED`).
fn remove_aside<'j>(
    jobs: &'j [WriteJob<'_>],
    removed: &[WriteJob<'_>],
    backups: &[OsString],
    guards: &[Option<Guard>],
    done: Vec<(usize, Done<'j>)>,
    durable: bool,
) -> Result<Removed<'j>, CommitError> {
    let mut aside: Vec<(usize, OsString)> = Vec::with_capacity(removed.len());
    for (d, job) in removed.iter().enumerate() {
        let backup = backups[d].clone();
        let moved = match job.dir.rename_noreplace(job.name, &backup) {
            Err(e) => Err(write_err(job.display, "cannot remove the file", &e)),
            Ok(()) if displaced_is_locked(job.dir, &backup, guards.get(d)) => Ok(()),
            Ok(()) => match job.dir.rename_noreplace(&backup, job.name) {
                Ok(()) => Err(changed(job.display, "was replaced by another process")),
                Err(e) => Err(write_err(
                    job.display,
                    "cannot put back the file another process renamed there",
                    &e,
                )),
            },
        };
        if let Err(failure) = moved {
            let (mut rolled_back, mut rollback_failed) = (Vec::new(), Vec::new());
            for (k, b) in aside.iter().rev() {
                match removed[*k].dir.rename_noreplace(b, removed[*k].name) {
                    Ok(()) => rolled_back.push(jobs.len() + k),
                    Err(_) => rollback_failed.push(jobs.len() + k),
                }
            }
            let mut err = failed_after(jobs, done, durable, jobs.len() + d, failure);
            rolled_back.append(&mut err.rolled_back);
            rollback_failed.append(&mut err.rollback_failed);
            err.rolled_back = rolled_back;
            err.rollback_failed = rollback_failed;
            return Err(err);
        }
        aside.push((d, backup));
    }
    Ok((done, aside))
}

/// Step 6: every directory written in flushed once; a failure is a warning
/// (the new content is in place).
fn sync_dirs(all: &[&WriteJob<'_>], warnings: &mut Vec<String>) {
    let mut synced: Vec<&Dir> = Vec::new();
    for job in all {
        if synced.iter().any(|d| d.same_as(job.dir)) {
            continue;
        }
        if let Err(e) = job.dir.sync() {
            warnings.push(printer::directory_not_flushed(job.display, &e));
        }
        synced.push(job.dir);
    }
}

/// Puts the original bytes (or absence) back for the jobs already done,
/// newest first. An exchanged file comes back by exchanging again, an
/// in-place one from memory through its open descriptor: neither needs a
/// descriptor or disk space. Only a file replaced by a plain rename (a
/// file system without exchange) needs a new temp file.
fn rollback(
    jobs: &[WriteJob<'_>],
    done: Vec<(usize, Done<'_>)>,
    durable: bool,
) -> (Vec<usize>, Vec<usize>) {
    let mut ok = Vec::new();
    let mut bad = Vec::new();
    for (j, d) in done.into_iter().rev() {
        let job = &jobs[j];
        let restored = match d {
            Done::Written(mut w) => w.restore().is_ok(),
            Done::Renamed {
                swapped: true,
                temp,
            } => {
                let back = job.dir.exchange(&temp, job.name, Step::Restore).is_ok();
                if back {
                    let _ = job.dir.unlink(&temp);
                } else {
                    keep_original(job, &temp);
                }
                back
            }
            Done::Renamed { swapped: false, .. } => match &job.original {
                Some(o) => {
                    check_fault(Step::Restore).is_ok()
                        && match prepare(job, &[o.bytes], Some(&o.meta), None, durable) {
                            Ok(Prepared::Temp(mut t)) => t.rename_over(job.name, false).is_ok(),
                            _ => false,
                        }
                }
                None => check_fault(Step::Restore).is_ok() && job.dir.unlink(job.name).is_ok(),
            },
        };
        if restored {
            ok.push(j);
        } else {
            bad.push(j);
        }
    }
    (ok, bad)
}

/// After a failed rollback the original content sits at the temp name
/// `temp`, where the stale-temp sweep would remove it: it is kept as
/// `<name>.orig` (as `patch` does), or `<name>.orig.N`.
fn keep_original(job: &WriteJob<'_>, temp: &OsStr) {
    for n in 0..100 {
        let mut kept = job.name.to_os_string();
        kept.push(if n == 0 {
            ".orig".to_string()
        } else {
            // data: the kept original's file name
            format!(".orig.{n}")
        });
        match job.dir.rename_noreplace(temp, &kept) {
            Ok(()) => return,
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(_) => return,
        }
    }
}

/// Age below which an unlocked temp file is left alone (it may have been
/// created a moment ago and not be locked yet).
const UNLOCKED_TEMP_GRACE: Duration = Duration::from_secs(2);

/// Removes temp files left by writers that are gone: only files this
/// user's engine provably created ([`temps::is_ours`]: a keyed tag in the
/// name, this user's regular file), never a user's file that merely looks
/// like one. One nobody holds locked is removed once it is a couple of
/// seconds old; on a file system without `flock`, one older than
/// `min_age`. A temp name an intent kept names is never removed (it may
/// hold an original to put back). Called opportunistically; errors are
/// ignored. Whether it
/// left an unlocked one for being too young (a writer killed a moment
/// ago): the next sweep should look again.
pub(crate) fn clean_stale_temps(dir: &Dir, min_age: Duration) -> bool {
    if check_fault(Step::Sweep).is_err() {
        return false;
    }
    let Ok(names) = dir.entries() else {
        return false;
    };
    let mut young = false;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as i128)
        .unwrap_or(0);
    let mut stale = Vec::new();
    for n in names {
        if !crate::io::dir::is_temp_name(&n) {
            continue;
        }
        let Ok(Some((f, m))) = dir.open_current(&n) else {
            continue;
        };
        if !temps::is_ours(dir, &n, &m) {
            continue;
        }
        let age = now - m.mtime_ns;
        let old = match Dir::try_lock(&f) {
            Some(unlocked) => {
                let old = age > UNLOCKED_TEMP_GRACE.as_nanos() as i128;
                young |= unlocked && !old;
                unlocked && old
            }
            None => age > min_age.as_nanos() as i128,
        };
        if old {
            stale.push(n);
        }
    }
    if stale.is_empty() {
        return young;
    }
    // Read now, after the listing: a batch that set an original aside
    // under one of these names, then died, kept its intent first.
    let (pending, here) = (intents::pending(), dir.meta().map(|m| (m.dev, m.ino)));
    for n in stale {
        if here.as_ref().is_ok_and(|d| !pending.holds(*d, &n)) {
            let _ = dir.unlink(&n);
        }
    }
    young
}

#[cfg(test)]
#[cfg(unix)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    /// A change made while the pre-rename check compares the bytes (a
    /// `chmod`, a write in place, a hard link) is seen: the check took the
    /// file's times before the comparison only, so on a large file a
    /// concurrent change was written over with `ok: true`.
    #[test]
    fn a_change_during_the_comparison_is_seen() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("f.txt");
        std::fs::write(&p, b"hello\n").unwrap();
        let read = |p: &std::path::Path| {
            let f = File::open(p).unwrap();
            let m = Dir::meta_of_file(&f).unwrap();
            (f, m)
        };
        let (f, m) = read(&p);
        assert!(unchanged(&f, &m, (&m, b"hello\n"), || {}).unwrap());
        let (f, m) = read(&p);
        assert!(!unchanged(&f, &m, (&m, b"other\n"), || {}).unwrap());
        type Change = fn(&std::path::Path);
        let changes: [(&str, Change); 3] = [
            ("chmod", |p| {
                std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o604)).unwrap()
            }),
            ("write in place", |p| {
                use std::os::unix::fs::FileExt;
                let f = std::fs::OpenOptions::new().write(true).open(p).unwrap();
                f.write_all_at(b"j", 0).unwrap();
            }),
            ("hard link", |p| {
                std::fs::hard_link(p, p.with_extension("link")).unwrap()
            }),
        ];
        for (what, change) in changes {
            std::fs::write(&p, b"hello\n").unwrap();
            let (f, m) = read(&p);
            // (ctime moves at the kernel's clock tick: let it.)
            std::thread::sleep(std::time::Duration::from_millis(20));
            assert!(
                !unchanged(&f, &m, (&m, b"hello\n"), || change(&p)).unwrap(),
                "{what}"
            );
        }
    }
}
