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
//! finds the name pointing at the first one's new inode. A writer that takes
//! no lock (an editor, `git`) can still slip in between the check and the
//! rename, a window of a few system calls; `docs/security.md` says so.
//! A new file is renamed into place with `RENAME_NOREPLACE` where the kernel
//! has it, so a file created meanwhile by someone else is never replaced.
//!
//! A failure to flush the directory after the renames is not a failure of
//! the edit: the new content is in place and visible, only its survival of
//! a power loss is unconfirmed. It is reported as a warning on success.

use std::ffi::OsString;
use std::fs::File;
use std::io::{self, Read, Write};
use std::time::Duration;

use crate::error::{ErrorCode, Failure};
use crate::io::dir::{check_fault, Dir, Meta, Step};

/// One file to write.
pub struct WriteJob<'a> {
    pub dir: &'a Dir,
    pub name: &'a std::ffi::OsStr,
    /// Path for messages.
    pub display: &'a str,
    pub content: Vec<&'a [u8]>,
    /// The file as it was read (`None`: the file is new and must not exist).
    pub original: Option<Original<'a>>,
}

/// What was read, to restore on rollback and to detect concurrent change.
pub struct Original<'a> {
    pub meta: Meta,
    pub bytes: &'a [u8],
}

/// A file removed in the same transaction as the writes (a deleted file, or
/// the source of a move). It is checked like a replaced file (still the
/// version that was read), then renamed aside to a temp name; only when
/// every write and removal is done are the set-aside files unlinked, so a
/// failure can rename them back.
pub struct DeleteJob<'a> {
    pub dir: &'a Dir,
    pub name: &'a std::ffi::OsStr,
    /// Path for messages.
    pub display: &'a str,
    pub original: Original<'a>,
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
        }
    }
}

/// What a commit does besides writing its jobs.
#[derive(Default)]
pub struct Extra<'a> {
    /// Files removed in the same transaction; in a [`CommitError`] they are
    /// numbered after the write jobs (`jobs.len() + i`).
    pub deletes: &'a [DeleteJob<'a>],
    /// Per write job (same index; may be shorter): metadata whose permission
    /// bits and owner a *new* file takes (a moved file keeps its mode).
    pub perms_from: &'a [Option<Meta>],
}

/// How a commit failed.
#[derive(Debug)]
pub struct CommitError {
    pub failure: Failure,
    /// Index of the job that failed.
    pub index: usize,
    /// Whether files already renamed were restored (multi-file only).
    pub rolled_back: Vec<usize>,
    /// Files that could not be restored (should be empty; reported loudly).
    pub rollback_failed: Vec<usize>,
}

fn write_err(display: &str, what: &str, e: &io::Error) -> Failure {
    Failure::new(
        ErrorCode::FILE_WRITE_ERROR,
        format!("cannot write `{display}`: {what}: {e}; the file was left unchanged"),
    )
}

/// Writes all slices, then permissions, then fsync.
fn fill_temp(
    file: &mut File,
    content: &[&[u8]],
    original: Option<&Meta>,
    durable: bool,
) -> io::Result<()> {
    check_fault(Step::Write)?;
    write_all_vectored(file, content)?;
    if let Some(m) = original {
        Dir::set_perms(file, m.mode, m.uid, m.gid)?;
    }
    if durable {
        check_fault(Step::Fsync)?;
        file.sync_all()?;
    }
    Ok(())
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
pub const LOCK_TIMEOUT: Duration = Duration::from_secs(10);

/// What a successful commit reports besides success.
#[derive(Debug, Default)]
pub struct Committed {
    /// Set when the new content is in place but could not be confirmed
    /// durable (a directory fsync failed after the renames).
    pub warnings: Vec<String>,
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

/// Whether `file` (read from its start) holds exactly `expected`.
fn same_bytes(mut file: &File, expected: &[u8]) -> io::Result<bool> {
    let mut buf = vec![0u8; 64 * 1024];
    let mut at = 0usize;
    loop {
        let n = match file.read(&mut buf) {
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if n == 0 {
            return Ok(at == expected.len());
        }
        if at + n > expected.len() || buf[..n] != expected[at..at + n] {
            return Ok(false);
        }
        at += n;
    }
}

fn changed(display: &str, why: &str) -> Failure {
    Failure::new(
        ErrorCode::FILE_CHANGED,
        format!(
            "`{display}` {why} while it was being edited; nothing was written. Reread it and retry"
        ),
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
    if !Dir::lock_exclusive(&file, LOCK_TIMEOUT).map_err(|e| inspect(&e))? {
        return Err(changed(job.display, "is being written by another process"));
    }
    let now = Dir::meta_of_file(&file).map_err(|e| inspect(&e))?;
    if !same_version(&now, &o.meta) || !same_bytes(&file, o.bytes).map_err(|e| inspect(&e))? {
        return Err(changed(job.display, "was changed by another process"));
    }
    match job.dir.stat(job.name).map_err(|e| inspect(&e))? {
        Some(m) if m.dev == now.dev && m.ino == now.ino => Ok(Some(file)),
        _ => Err(changed(job.display, "was replaced by another process")),
    }
}

/// Creates and fills a temp file beside `job`'s target.
/// A temp file that is removed when dropped unless it was renamed into
/// place; also on a panic, so that unwinding leaves nothing behind.
struct Temp<'a> {
    dir: &'a Dir,
    name: OsString,
    live: bool,
}

impl Temp<'_> {
    /// Renames the temp file over `to` (or to a new name `to`).
    fn rename_over(&mut self, to: &std::ffi::OsStr, must_be_new: bool) -> io::Result<()> {
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

fn prepare<'a>(
    job: &WriteJob<'a>,
    content: &[&[u8]],
    perms: Option<&Meta>,
    durable: bool,
) -> Result<Temp<'a>, Failure> {
    if job.original.is_some() {
        job.dir.check_writable(job.name).map_err(|e| {
            write_err(
                job.display,
                "the file is read-only (no write permission, immutable, or on a read-only file system)",
                &e,
            )
        })?;
    }
    let mode = if perms.is_some() { 0o600 } else { 0o666 };
    let (mut f, name) = job.dir.create_temp(job.name, mode).map_err(|e| {
        write_err(
            job.display,
            "cannot create a temp file in its directory",
            &e,
        )
    })?;
    let tmp = Temp {
        dir: job.dir,
        name,
        live: true,
    };
    fill_temp(&mut f, content, perms, durable)
        .map_err(|e| write_err(job.display, "cannot write the new content", &e))?;
    Ok(tmp)
}

/// Commits every job atomically (all files or none).
pub fn commit(jobs: &[WriteJob<'_>], durable: bool) -> Result<Committed, CommitError> {
    commit_extra(jobs, &Extra::default(), durable)
}

/// Commits every job and every removal of `extra` atomically (all or none).
pub fn commit_extra(
    jobs: &[WriteJob<'_>],
    extra: &Extra<'_>,
    durable: bool,
) -> Result<Committed, CommitError> {
    let fail = |index, failure| CommitError {
        failure,
        index,
        rolled_back: Vec::new(),
        rollback_failed: Vec::new(),
    };
    // 1. Every temp file written and flushed. Any early return (or panic)
    //    from here on drops the temp files that were not renamed.
    let mut temps: Vec<Temp<'_>> = Vec::with_capacity(jobs.len());
    for (i, job) in jobs.iter().enumerate() {
        let perms = job
            .original
            .as_ref()
            .map(|o| &o.meta)
            .or_else(|| extra.perms_from.get(i).and_then(Option::as_ref));
        temps.push(prepare(job, &job.content, perms, durable).map_err(|f| fail(i, f))?);
    }
    // 2. Every target checked and locked, in one global order (device,
    //    inode) so that two processes' batches cannot wait on each other.
    let removed: Vec<WriteJob<'_>> = extra.deletes.iter().map(DeleteJob::as_write).collect();
    let all: Vec<&WriteJob<'_>> = jobs.iter().chain(&removed).collect();
    let mut order: Vec<usize> = (0..all.len()).collect();
    order.sort_by_key(|&i| all[i].original.as_ref().map(|o| (o.meta.dev, o.meta.ino)));
    let mut guards: Vec<File> = Vec::with_capacity(all.len());
    for &i in &order {
        guards.extend(verify(all[i]).map_err(|f| fail(i, f))?);
    }
    // 3. Renames.
    let mut done: Vec<usize> = Vec::with_capacity(jobs.len());
    for (i, job) in jobs.iter().enumerate() {
        if let Err(e) = temps[i].rename_over(job.name, job.original.is_none()) {
            let failure = if e.kind() == io::ErrorKind::AlreadyExists && job.original.is_none() {
                changed(job.display, "was created by another process")
            } else {
                write_err(job.display, "cannot replace the file", &e)
            };
            drop(temps);
            let (rolled_back, rollback_failed) = rollback(jobs, &done, durable);
            return Err(CommitError {
                failure,
                index: i,
                rolled_back,
                rollback_failed,
            });
        }
        done.push(i);
    }
    // 4. Removals: each file renamed aside, so that it can come back.
    let mut aside: Vec<(usize, OsString)> = Vec::with_capacity(removed.len());
    for (d, job) in removed.iter().enumerate() {
        let backup = crate::io::dir::temp_name(job.name);
        if let Err(e) = job.dir.rename_noreplace(job.name, &backup) {
            let failure = write_err(job.display, "cannot remove the file", &e);
            drop(temps);
            let (mut rolled_back, mut rollback_failed) = (Vec::new(), Vec::new());
            for (k, b) in aside.iter().rev() {
                match removed[*k].dir.rename_noreplace(b, removed[*k].name) {
                    Ok(()) => rolled_back.push(jobs.len() + k),
                    Err(_) => rollback_failed.push(jobs.len() + k),
                }
            }
            let (ok, bad) = rollback(jobs, &done, durable);
            rolled_back.extend(ok);
            rollback_failed.extend(bad);
            return Err(CommitError {
                failure,
                index: jobs.len() + d,
                rolled_back,
                rollback_failed,
            });
        }
        aside.push((d, backup));
    }
    for (k, b) in &aside {
        // A leftover (unlink failed) is a temp-named file the stale sweep removes.
        let _ = removed[*k].dir.unlink(b);
    }
    drop(guards);
    // 5. Directory entries made durable.
    let mut out = Committed::default();
    if durable {
        let mut synced: Vec<&Dir> = Vec::new();
        for job in all {
            if synced.iter().any(|d| d.same_as(job.dir)) {
                continue;
            }
            if let Err(e) = job.dir.sync() {
                out.warnings.push(format!(
                    "`{}` was written, but its directory could not be flushed to disk ({e}); the new content is \
                     in place but may not survive a power loss",
                    job.display
                ));
            }
            synced.push(job.dir);
        }
    }
    Ok(out)
}

/// Puts the original bytes (or absence) back for the jobs already renamed.
fn rollback(jobs: &[WriteJob<'_>], done: &[usize], durable: bool) -> (Vec<usize>, Vec<usize>) {
    let mut ok = Vec::new();
    let mut bad = Vec::new();
    for &j in done.iter().rev() {
        let job = &jobs[j];
        let restored = match &job.original {
            Some(o) => prepare(job, &[o.bytes], Some(&o.meta), durable).and_then(|mut t| {
                t.rename_over(job.name, false)
                    .map_err(|e| write_err(job.display, "restore", &e))
            }),
            None => job
                .dir
                .unlink(job.name)
                .map_err(|e| write_err(job.display, "remove", &e)),
        };
        match restored {
            Ok(()) => ok.push(j),
            Err(_) => bad.push(j),
        }
    }
    (ok, bad)
}

/// Removes stale temp files (ours, by name) older than `min_age` from `dir`.
/// Called opportunistically; errors are ignored.
pub fn clean_stale_temps(dir: &Dir, min_age: std::time::Duration) {
    let Ok(names) = dir.entries() else { return };
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as i128)
        .unwrap_or(0);
    for n in names {
        if !crate::io::dir::is_temp_name(&n) {
            continue;
        }
        if let Ok(Some(m)) = dir.stat(&n) {
            if m.kind == crate::io::dir::Kind::File && now - m.mtime_ns > min_age.as_nanos() as i128
            {
                let _ = dir.unlink(&n);
            }
        }
    }
}
