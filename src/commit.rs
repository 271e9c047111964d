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
//! Just before each rename the target is checked to still be the file that
//! was read (same device/inode, size and change time): if another process
//! replaced or rewrote it meanwhile, nothing is renamed and the result is
//! `FILE_CHANGED`. The window between that check and the rename is a few
//! system calls wide; README documents it.

use std::ffi::OsString;
use std::fs::File;
use std::io::{self, Write};

use crate::error::{ErrorCode, Failure};
use crate::fsys::{check_fault, Dir, Meta, Step};

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

/// Whether the file at `dir/name` is still the one described by `meta`.
fn unchanged(dir: &Dir, name: &std::ffi::OsStr, meta: &Meta) -> io::Result<bool> {
    Ok(match dir.stat(name)? {
        Some(now) => {
            now.kind == meta.kind
                && now.dev == meta.dev
                && now.ino == meta.ino
                && now.size == meta.size
                && now.mtime_ns == meta.mtime_ns
                && now.ctime_ns == meta.ctime_ns
        }
        None => false,
    })
}

/// Creates and fills a temp file beside `job`'s target.
fn prepare(job: &WriteJob<'_>, content: &[&[u8]], durable: bool) -> Result<OsString, Failure> {
    let mode = if job.original.is_some() { 0o600 } else { 0o666 };
    let (mut f, tmp) = job.dir.create_temp(job.name, mode).map_err(|e| {
        write_err(
            job.display,
            "cannot create a temp file in its directory",
            &e,
        )
    })?;
    if let Err(e) = fill_temp(
        &mut f,
        content,
        job.original.as_ref().map(|o| &o.meta),
        durable,
    ) {
        drop(f);
        let _ = job.dir.unlink(&tmp);
        return Err(write_err(job.display, "cannot write the new content", &e));
    }
    Ok(tmp)
}

/// Commits every job atomically (all files or none). Returns the jobs'
/// indices in the order renamed.
pub fn commit(jobs: &[WriteJob<'_>], durable: bool) -> Result<(), CommitError> {
    let fail = |index, failure| CommitError {
        failure,
        index,
        rolled_back: Vec::new(),
        rollback_failed: Vec::new(),
    };
    // 1. Every temp file written and flushed.
    let mut temps: Vec<OsString> = Vec::with_capacity(jobs.len());
    for (i, job) in jobs.iter().enumerate() {
        match prepare(job, &job.content, durable) {
            Ok(t) => temps.push(t),
            Err(f) => {
                for (j, t) in temps.iter().enumerate() {
                    let _ = jobs[j].dir.unlink(t);
                }
                return Err(fail(i, f));
            }
        }
    }
    // 2. Renames, each after checking the target is still what was read.
    let mut done: Vec<usize> = Vec::with_capacity(jobs.len());
    for (i, job) in jobs.iter().enumerate() {
        let still = match &job.original {
            Some(o) => unchanged(job.dir, job.name, &o.meta),
            None => job.dir.stat(job.name).map(|m| m.is_none()),
        };
        let step = match still {
            Ok(true) => job.dir.rename(&temps[i], job.name).map_err(|e| write_err(job.display, "cannot replace the file", &e)),
            Ok(false) => Err(Failure::new(
                ErrorCode::FILE_CHANGED,
                format!(
                    "`{}` changed on disk while it was being edited (another process wrote it); nothing was written. \
                     Reread it and retry",
                    job.display
                ),
            )),
            Err(e) => Err(write_err(job.display, "cannot inspect the file before replacing it", &e)),
        };
        if let Err(failure) = step {
            for (j, t) in temps.iter().enumerate().skip(i) {
                let _ = jobs[j].dir.unlink(t);
            }
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
    // 3. Directory entries made durable.
    if durable {
        let mut synced: Vec<&Dir> = Vec::new();
        for job in jobs {
            if synced.iter().any(|d| d.same_as(job.dir)) {
                continue;
            }
            if let Err(e) = job.dir.sync() {
                // The renames happened; only durability is in doubt.
                return Err(fail(
                    0,
                    Failure::new(
                        ErrorCode::FILE_WRITE_ERROR,
                        format!(
                            "`{}` was replaced but its directory could not be flushed to disk ({e}); \
                             the new content is in place but may not survive a power loss",
                            job.display
                        ),
                    ),
                ));
            }
            synced.push(job.dir);
        }
    }
    Ok(())
}

/// Puts the original bytes (or absence) back for the jobs already renamed.
fn rollback(jobs: &[WriteJob<'_>], done: &[usize], durable: bool) -> (Vec<usize>, Vec<usize>) {
    let mut ok = Vec::new();
    let mut bad = Vec::new();
    for &j in done.iter().rev() {
        let job = &jobs[j];
        let restored = match &job.original {
            Some(o) => prepare(job, &[o.bytes], durable).and_then(|t| {
                job.dir
                    .rename(&t, job.name)
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
        let s = n.to_string_lossy();
        if !(s.starts_with('.')
            && s.contains(crate::fsys::TEMP_MARK)
            && s.ends_with(crate::fsys::TEMP_SUFFIX))
        {
            continue;
        }
        if let Ok(Some(m)) = dir.stat(&n) {
            if m.kind == crate::fsys::Kind::File && now - m.mtime_ns > min_age.as_nanos() as i128 {
                let _ = dir.unlink(&n);
            }
        }
    }
}
