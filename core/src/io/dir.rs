//! File operations relative to an open directory handle.
//!
//! Every read, temp-file creation, rename and unlink the engine performs goes
//! through a [`Dir`]: on Unix an open directory file descriptor used with the
//! `*at` system calls, so that once a directory has been resolved beneath the
//! workspace root, swapping one of its ancestors for a symlink cannot redirect
//! the operation elsewhere. Other platforms get a portable fallback that works
//! on full paths (documented in README as weaker under races).
//!
//! Test builds can inject a failure at each I/O step (the `fault` module,
//! with the `fault-injection` feature).

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

/// What kind of object a name refers to (symlinks are not followed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    File,
    Dir,
    Symlink,
    /// FIFO, socket, device: never edited.
    Special,
}

/// Identity and permissions of a file, taken without following symlinks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Meta {
    pub(crate) kind: Kind,
    pub(crate) dev: u64,
    pub(crate) ino: u64,
    pub(crate) size: u64,
    /// Permission bits (`0o7777` mask); `None` where the platform has none.
    pub(crate) mode: Option<u32>,
    pub(crate) uid: Option<u32>,
    pub(crate) gid: Option<u32>,
    /// Number of hard links (1 where the platform does not say).
    pub(crate) nlink: u64,
    pub(crate) mtime_ns: i128,
    pub(crate) ctime_ns: i128,
}

/// The I/O steps at which tests may inject a failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Step {
    Open,
    Read,
    /// A write's checks of the file it replaces, before its temp file.
    Prepare,
    TempCreate,
    Write,
    Fsync,
    Chmod,
    Rename,
    DirFsync,
    /// Putting an original back during a rollback.
    Restore,
    /// A sweep of stale temp files, before it lists the directory.
    Sweep,
}

/// Fault injection for tests: `arm(step, n)` makes the `n`-th (0-based) call
/// to `step` on this thread fail with an I/O error; [`fault::arm_panic`]
/// makes it panic and [`fault::arm_hook`] runs a closure there instead (to
/// change the file system at an exact moment). In these builds the
/// environment variable `PFT_FAULT_PANIC=<step>` (e.g. `read`) makes every
/// call of that step panic on any thread, so that a JavaScript test can
/// prove a panic never takes Node down. Compiled only for unit tests and the
/// `fault-injection` feature, never into release builds.
#[cfg(any(test, feature = "fault-injection"))]
pub mod fault {
    use super::Step;
    use std::cell::RefCell;
    use std::collections::HashMap;

    /// What happens at an armed step.
    pub(crate) enum Fault {
        Fail,
        Panic,
        Hook(Box<dyn FnOnce()>),
        HookFail(Box<dyn FnOnce()>),
    }

    thread_local! {
        static ARMED: RefCell<HashMap<Step, (u64, Fault)>> = RefCell::new(HashMap::new());
    }

    /// Fail the `nth` next call of `step` on this thread.
    pub fn arm(step: Step, nth: u64) {
        arm_action(step, nth, Fault::Fail);
    }

    /// Panic at the `nth` next call of `step` on this thread.
    pub fn arm_panic(step: Step, nth: u64) {
        arm_action(step, nth, Fault::Panic);
    }

    /// Run `f` just before the `nth` next call of `step` on this thread
    /// (the step itself then proceeds).
    pub fn arm_hook(step: Step, nth: u64, f: impl FnOnce() + 'static) {
        arm_action(step, nth, Fault::Hook(Box::new(f)));
    }

    /// Run `f` at the `nth` next call of `step`, then fail that call (to
    /// change the world at the moment of a failure, e.g. use up every
    /// descriptor before a rollback).
    pub fn arm_hook_fail(step: Step, nth: u64, f: impl FnOnce() + 'static) {
        arm_action(step, nth, Fault::HookFail(Box::new(f)));
    }

    fn arm_action(step: Step, nth: u64, action: Fault) {
        ARMED.with(|a| a.borrow_mut().insert(step, (nth, action)));
    }

    /// Clear every armed fault on this thread.
    pub fn disarm() {
        ARMED.with(|a| a.borrow_mut().clear());
    }

    fn env_panic(step: Step) -> bool {
        // data: the step's name, as PFT_FAULT_PANIC spells it
        std::env::var("PFT_FAULT_PANIC").is_ok_and(|v| v.eq_ignore_ascii_case(&format!("{step:?}")))
    }

    pub(crate) fn check(step: Step) -> std::io::Result<()> {
        if env_panic(step) {
            panic!("injected panic at {step:?} (PFT_FAULT_PANIC)");
        }
        let fired = ARMED.with(|a| {
            let mut a = a.borrow_mut();
            match a.get_mut(&step) {
                Some((0, _)) => a.remove(&step).map(|(_, act)| act),
                Some((n, _)) => {
                    *n -= 1;
                    None
                }
                None => None,
            }
        });
        match fired {
            None => Ok(()),
            Some(Fault::Fail) => Err(std::io::Error::other(crate::printer::injected_fault(step))),
            Some(Fault::Panic) => panic!("injected panic at {step:?}"),
            Some(Fault::Hook(f)) => {
                f();
                Ok(())
            }
            Some(Fault::HookFail(f)) => {
                f();
                Err(std::io::Error::other(crate::printer::injected_fault(step)))
            }
        }
    }
}

/// Set once `openat2` proved unavailable (or, in test builds, on request):
/// every resolution then uses the walk.
#[cfg_attr(not(any(target_os = "linux", target_os = "android")), allow(dead_code))]
static OPENAT2_OFF: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Test builds: turn the `openat2` fast path off (or back on) for the whole
/// process, so that the walk alone can be put under the same tests.
#[cfg(any(test, feature = "fault-injection"))]
pub fn set_openat2(enabled: bool) {
    OPENAT2_OFF.store(!enabled, std::sync::atomic::Ordering::Relaxed);
}

#[inline]
pub(crate) fn check_fault(_step: Step) -> io::Result<()> {
    #[cfg(any(test, feature = "fault-injection"))]
    fault::check(_step)?;
    Ok(())
}

/// Marks of every temp file the engine creates:
/// `.<name>.pft-<16 hex random><16 hex tag>.tmp` ([`crate::io::temps`]
/// makes and checks the tag).
pub(crate) const TEMP_MARK: &str = ".pft-";
pub(crate) const TEMP_SUFFIX: &str = ".tmp";
/// Hex digits between [`TEMP_MARK`] and [`TEMP_SUFFIX`].
pub(crate) const TEMP_HEX: usize = 32;

/// Whether `name` has the shape of one of our temp names
/// (`.<name>.pft-<32 lowercase hex>.tmp`). The shape proves nothing: only
/// the tag `crate::io::temps::is_ours` checks does.
pub fn is_temp_name(name: &OsStr) -> bool {
    let Some(s) = name.to_str() else {
        return false;
    };
    let Some(body) = s.strip_suffix(TEMP_SUFFIX) else {
        return false;
    };
    let Some(at) = body.rfind(TEMP_MARK) else {
        return false;
    };
    let hex = &body[at + TEMP_MARK.len()..];
    s.starts_with('.')
        && at >= 1
        && hex.len() == TEMP_HEX
        && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

#[cfg(unix)]
mod imp {
    use super::*;
    use rustix::fs::{AtFlags, FileType, Mode, OFlags};
    use std::os::fd::{AsFd, OwnedFd};

    /// How a file is opened for reading: never through a symlink, never as a
    /// controlling terminal, and non-blocking so that a FIFO swapped in after
    /// the check cannot hang the call.
    const READ_FLAGS: OFlags = OFlags::RDONLY
        .union(OFlags::NOFOLLOW)
        .union(OFlags::CLOEXEC)
        .union(OFlags::NONBLOCK)
        .union(OFlags::NOCTTY);

    /// An open directory.
    #[derive(Debug)]
    pub struct Dir {
        fd: OwnedFd,
        path: PathBuf,
    }

    // The casts are no-ops on Linux but not on every Unix (e.g. macOS).
    #[allow(clippy::unnecessary_cast)]
    fn meta_of(st: &rustix::fs::Stat) -> Meta {
        let kind = match FileType::from_raw_mode(st.st_mode as _) {
            FileType::RegularFile => Kind::File,
            FileType::Directory => Kind::Dir,
            FileType::Symlink => Kind::Symlink,
            _ => Kind::Special,
        };
        Meta {
            kind,
            dev: st.st_dev as u64,
            ino: st.st_ino as u64,
            size: st.st_size as u64,
            mode: Some(st.st_mode as u32 & 0o7777),
            uid: Some(st.st_uid as u32),
            gid: Some(st.st_gid as u32),
            nlink: st.st_nlink as u64,
            mtime_ns: st.st_mtime as i128 * 1_000_000_000 + st.st_mtime_nsec as i128,
            ctime_ns: st.st_ctime as i128 * 1_000_000_000 + st.st_ctime_nsec as i128,
        }
    }

    impl Dir {
        /// Opens a directory by absolute path (the workspace root).
        pub fn open_root(path: &Path) -> io::Result<Dir> {
            let fd = rustix::fs::openat(
                rustix::fs::CWD,
                path,
                OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
                Mode::empty(),
            )?;
            Ok(Dir {
                fd,
                path: path.to_path_buf(),
            })
        }

        /// The absolute path this handle was reached by (for messages and results).
        pub(crate) fn path(&self) -> &Path {
            &self.path
        }

        /// Whether the directory is append-only (`chattr +a`): names may be
        /// added to it, none renamed over or removed.
        pub(crate) fn append_only(&self) -> bool {
            #[cfg(any(target_os = "linux", target_os = "android"))]
            {
                rustix::fs::ioctl_getflags(&self.fd)
                    .is_ok_and(|f| f.contains(rustix::fs::IFlags::APPEND))
            }
            #[cfg(not(any(target_os = "linux", target_os = "android")))]
            {
                false
            }
        }

        /// A second handle on the same open directory (`dup`), so that a
        /// caller can own it without reopening anything by path.
        pub(crate) fn try_clone(&self) -> io::Result<Dir> {
            Ok(Dir {
                fd: rustix::io::fcntl_dupfd_cloexec(&self.fd, 0)?,
                path: self.path.clone(),
            })
        }

        /// Opens the directory `rel` (normal components only, no `.`/`..`)
        /// beneath this one in one kernel call that refuses every symlink and
        /// anything outside: `openat2` with `RESOLVE_BENEATH |
        /// RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS`. An error means only
        /// that this fast path does not apply (a symlink on the way, a
        /// missing component, an old kernel, a seccomp filter): the caller
        /// then walks the path itself. Where the kernel lacks `openat2` the
        /// first such failure turns the fast path off for the process.
        pub(crate) fn open_beneath(&self, rel: &Path) -> io::Result<Dir> {
            #[cfg(any(target_os = "linux", target_os = "android"))]
            {
                use rustix::fs::ResolveFlags;
                use rustix::io::Errno;
                use std::sync::atomic::Ordering;
                if OPENAT2_OFF.load(Ordering::Relaxed) {
                    return Err(io::ErrorKind::Unsupported.into());
                }
                match rustix::fs::openat2(
                    &self.fd,
                    rel,
                    OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
                    Mode::empty(),
                    ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS,
                ) {
                    Ok(fd) => Ok(Dir {
                        fd,
                        path: self.path.join(rel),
                    }),
                    Err(e) => {
                        if matches!(e, Errno::NOSYS | Errno::INVAL | Errno::PERM | Errno::TOOBIG) {
                            OPENAT2_OFF.store(true, Ordering::Relaxed);
                        }
                        Err(e.into())
                    }
                }
            }
            #[cfg(not(any(target_os = "linux", target_os = "android")))]
            {
                let _ = rel;
                Err(io::ErrorKind::Unsupported.into())
            }
        }

        /// Opens the child directory `name` without following a symlink.
        pub(crate) fn open_dir(&self, name: &OsStr) -> io::Result<Dir> {
            let fd = rustix::fs::openat(
                &self.fd,
                name,
                OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
                Mode::empty(),
            )?;
            Ok(Dir {
                fd,
                path: self.path.join(name),
            })
        }

        /// Creates the child directory `name` (mode 0777 less umask).
        pub(crate) fn mkdir(&self, name: &OsStr) -> io::Result<()> {
            rustix::fs::mkdirat(&self.fd, name, Mode::from_raw_mode(0o777))?;
            Ok(())
        }

        /// Metadata of `name`, not following a symlink; `None` if it does not exist.
        pub(crate) fn stat(&self, name: &OsStr) -> io::Result<Option<Meta>> {
            match rustix::fs::statat(&self.fd, name, AtFlags::SYMLINK_NOFOLLOW) {
                Ok(st) => Ok(Some(meta_of(&st))),
                Err(rustix::io::Errno::NOENT) => Ok(None),
                Err(e) => Err(e.into()),
            }
        }

        /// The target of the symlink `name`.
        pub(crate) fn read_link(&self, name: &OsStr) -> io::Result<PathBuf> {
            use std::os::unix::ffi::OsStringExt;
            let c = rustix::fs::readlinkat(&self.fd, name, Vec::new())?;
            Ok(PathBuf::from(OsString::from_vec(c.into_bytes())))
        }

        /// Opens the regular file `name` for reading; refuses symlinks and
        /// special files (opened non-blocking so a FIFO cannot hang us).
        pub(crate) fn open_file(&self, name: &OsStr) -> io::Result<(File, Meta)> {
            check_fault(Step::Open)?;
            self.open_regular(name, READ_FLAGS)
        }

        /// Opens `name` with `flags` (which include `NONBLOCK`, so that a
        /// FIFO swapped in cannot hang the call), refuses anything but a
        /// regular file, then returns to blocking mode for ordinary I/O.
        fn open_regular(&self, name: &OsStr, flags: OFlags) -> io::Result<(File, Meta)> {
            let fd = rustix::fs::openat(&self.fd, name, flags, Mode::empty())?;
            let meta = meta_of(&rustix::fs::fstat(&fd)?);
            if meta.kind != Kind::File {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    "not a regular file",
                ));
            }
            rustix::fs::fcntl_setfl(&fd, OFlags::empty())?;
            Ok((File::from(fd), meta))
        }

        /// Creates the new file `tmp` exclusively, for writing, never
        /// through a link. `mode` is the creation mode (umask applies); the
        /// caller sets exact bits later.
        pub(crate) fn create_exclusive(&self, tmp: &OsStr, mode: u32) -> io::Result<File> {
            let fd = rustix::fs::openat(
                &self.fd,
                tmp,
                OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
                Mode::from_raw_mode(mode as _),
            )?;
            Ok(File::from(fd))
        }

        /// Sets `file`'s owner and group (`None`: unchanged). Only root may
        /// give a file away; anyone else gets an error, which the caller
        /// decides about.
        pub(crate) fn set_owner(file: &File, uid: Option<u32>, gid: Option<u32>) -> io::Result<()> {
            rustix::fs::fchown(
                file.as_fd(),
                uid.map(rustix::fs::Uid::from_raw),
                gid.map(rustix::fs::Gid::from_raw),
            )?;
            Ok(())
        }

        /// Sets `file`'s exact permission bits (set-id bits included).
        pub(crate) fn set_mode(file: &File, mode: u32) -> io::Result<()> {
            rustix::fs::fchmod(file.as_fd(), Mode::from_raw_mode(mode as _))?;
            Ok(())
        }

        /// Atomically replaces `to` with `from` (both in this directory).
        pub(crate) fn rename(&self, from: &OsStr, to: &OsStr) -> io::Result<()> {
            check_fault(Step::Rename)?;
            rustix::fs::renameat(&self.fd, from, &self.fd, to)?;
            Ok(())
        }

        /// Renames `from` to `to` only if `to` does not exist, atomically
        /// where the kernel and file system can (`renameat2` with
        /// `RENAME_NOREPLACE` on Linux). Elsewhere the caller's check that
        /// `to` is absent, made just before, is all there is.
        pub(crate) fn rename_noreplace(&self, from: &OsStr, to: &OsStr) -> io::Result<()> {
            check_fault(Step::Rename)?;
            self.rename_unhooked(from, to)
        }

        /// [`Dir::rename_noreplace`] without its fault hook: a rename of the
        /// engine's own state (an intent taking its name), not a step of a
        /// commit, which the hooks count.
        pub(crate) fn rename_unhooked(&self, from: &OsStr, to: &OsStr) -> io::Result<()> {
            #[cfg(any(target_os = "linux", target_os = "android"))]
            {
                use rustix::io::Errno;
                match rustix::fs::renameat_with(
                    &self.fd,
                    from,
                    &self.fd,
                    to,
                    rustix::fs::RenameFlags::NOREPLACE,
                ) {
                    Ok(()) => return Ok(()),
                    // Kernel or file system without the flag: plain rename.
                    Err(Errno::INVAL | Errno::NOSYS | Errno::PERM) => {}
                    Err(e) => return Err(e.into()),
                }
            }
            rustix::fs::renameat(&self.fd, from, &self.fd, to)?;
            Ok(())
        }

        /// Opens `name` again just before it is replaced, to check that it is
        /// still the file that was read; `None` if it is gone or is no longer
        /// a regular file. No fault injection here: this is a check, not a
        /// step of the write.
        pub fn open_current(&self, name: &OsStr) -> io::Result<Option<(File, Meta)>> {
            let fd = match rustix::fs::openat(&self.fd, name, READ_FLAGS, Mode::empty()) {
                Ok(fd) => fd,
                Err(rustix::io::Errno::NOENT | rustix::io::Errno::LOOP) => return Ok(None),
                Err(e) => return Err(e.into()),
            };
            let meta = meta_of(&rustix::fs::fstat(&fd)?);
            if meta.kind != Kind::File {
                return Ok(None);
            }
            rustix::fs::fcntl_setfl(&fd, OFlags::empty())?;
            Ok(Some((File::from(fd), meta)))
        }

        /// Takes an exclusive advisory lock (`flock`) on `file`, waiting up
        /// to `timeout`; `false` if another holder kept it that long. Every
        /// patch-file-tool process locks a file this way from its final
        /// check until its rename, so two of them cannot both replace the
        /// same version of a file. The lock is released when `file` closes.
        pub fn lock_exclusive(file: &File, timeout: std::time::Duration) -> io::Result<bool> {
            Self::lock(
                file,
                rustix::fs::FlockOperation::NonBlockingLockExclusive,
                timeout,
            )
        }

        /// Takes a shared advisory lock (`flock`) on `file`, waiting up to
        /// `timeout`; `false` if an exclusive holder kept it that long.
        /// Readers hold it while they read a file and judge its recovery
        /// record, so that no in-place writer (which holds the exclusive
        /// lock from its final check to its last byte) is half-way through
        /// the bytes they read ([`crate::io::recovery`] has the protocol).
        pub(crate) fn lock_shared(file: &File, timeout: std::time::Duration) -> io::Result<bool> {
            Self::lock(
                file,
                rustix::fs::FlockOperation::NonBlockingLockShared,
                timeout,
            )
        }

        fn lock(
            file: &File,
            op: rustix::fs::FlockOperation,
            timeout: std::time::Duration,
        ) -> io::Result<bool> {
            let start = std::time::Instant::now();
            let mut pause = std::time::Duration::from_micros(50);
            loop {
                match rustix::fs::flock(file.as_fd(), op) {
                    Ok(()) => return Ok(true),
                    Err(rustix::io::Errno::WOULDBLOCK) => {}
                    Err(rustix::io::Errno::INTR) => continue,
                    // File systems without flock support: no lock, still checked.
                    Err(rustix::io::Errno::NOLCK | rustix::io::Errno::NOTSUP) => return Ok(true),
                    Err(e) => return Err(e.into()),
                }
                if start.elapsed() >= timeout {
                    return Ok(false);
                }
                std::thread::sleep(pause);
                pause = (pause * 2).min(std::time::Duration::from_millis(5));
            }
        }

        /// One attempt at an exclusive `flock` on `file`: `Some(true)` taken,
        /// `Some(false)` someone else holds it, `None` the file system has no
        /// locks.
        pub(crate) fn try_lock(file: &File) -> Option<bool> {
            use rustix::fs::FlockOperation;
            loop {
                match rustix::fs::flock(file.as_fd(), FlockOperation::NonBlockingLockExclusive) {
                    Ok(()) => return Some(true),
                    Err(rustix::io::Errno::WOULDBLOCK) => return Some(false),
                    Err(rustix::io::Errno::INTR) => continue,
                    Err(_) => return None,
                }
            }
        }

        /// Metadata of an open file.
        pub fn meta_of_file(file: &File) -> io::Result<Meta> {
            Ok(meta_of(&rustix::fs::fstat(file.as_fd())?))
        }

        /// Whether the caller could write `name` in place (`access(W_OK)`):
        /// a read-only file, an immutable one or a read-only mount says no.
        /// Replacing a file by rename needs only the directory's permission,
        /// so without this check a file the user made read-only would be
        /// rewritten anyway. (Root passes permission bits, as for any write.)
        pub(crate) fn check_writable(&self, name: &OsStr) -> io::Result<()> {
            rustix::fs::accessat(
                &self.fd,
                name,
                rustix::fs::Access::WRITE_OK,
                AtFlags::empty(),
            )?;
            Ok(())
        }

        /// Gives the file `from` of this directory a second name `to` in
        /// `dest` (`linkat`, not following a symlink at `from`; `to` must not
        /// exist). Fails across file systems (`EXDEV`).
        pub(crate) fn link_to(&self, from: &OsStr, dest: &Dir, to: &OsStr) -> io::Result<()> {
            rustix::fs::linkat(&self.fd, from, &dest.fd, to, AtFlags::empty())?;
            Ok(())
        }

        /// The directory's creation time in nanoseconds, where the file
        /// system records one (`statx` birth time); `None` elsewhere.
        pub(crate) fn birth_time(&self) -> Option<i128> {
            #[cfg(any(target_os = "linux", target_os = "android"))]
            {
                use rustix::fs::StatxFlags;
                let x =
                    rustix::fs::statx(&self.fd, "", AtFlags::EMPTY_PATH, StatxFlags::BTIME).ok()?;
                if x.stx_mask & StatxFlags::BTIME.bits() == 0 {
                    return None;
                }
                Some(x.stx_btime.tv_sec as i128 * 1_000_000_000 + x.stx_btime.tv_nsec as i128)
            }
            #[cfg(not(any(target_os = "linux", target_os = "android")))]
            None
        }

        /// Removes the file `name`.
        pub(crate) fn unlink(&self, name: &OsStr) -> io::Result<()> {
            rustix::fs::unlinkat(&self.fd, name, AtFlags::empty())?;
            Ok(())
        }

        /// Flushes the directory entry changes to disk.
        pub(crate) fn sync(&self) -> io::Result<()> {
            check_fault(Step::DirFsync)?;
            // macOS's fsync stops at the drive's cache; F_FULLFSYNC does not
            // (as `File::sync_all` does for the temp file itself).
            #[cfg(target_vendor = "apple")]
            if rustix::fs::fcntl_fullfsync(&self.fd).is_ok() {
                return Ok(());
            }
            rustix::fs::fsync(&self.fd)?;
            Ok(())
        }

        /// Names in this directory (for temp-file cleanup and listings).
        pub(crate) fn entries(&self) -> io::Result<Vec<OsString>> {
            let fd = rustix::fs::openat(
                &self.fd,
                ".",
                OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
                Mode::empty(),
            )?;
            let mut dir = rustix::fs::Dir::read_from(&fd)?;
            let mut out = Vec::new();
            while let Some(ent) = dir.read() {
                use std::os::unix::ffi::OsStrExt;
                let ent = ent?;
                let n = ent.file_name().to_bytes();
                if n != b"." && n != b".." {
                    out.push(OsStr::from_bytes(n).to_os_string());
                }
            }
            Ok(out)
        }

        /// Opens `name` for writing in place: no creation, no truncation,
        /// never through a symlink, and only a regular file.
        pub(crate) fn open_write(&self, name: &OsStr) -> io::Result<(File, Meta)> {
            check_fault(Step::Open)?;
            self.open_regular(
                name,
                OFlags::WRONLY
                    | OFlags::NOFOLLOW
                    | OFlags::CLOEXEC
                    | OFlags::NONBLOCK
                    | OFlags::NOCTTY,
            )
        }

        /// Creates `name` exclusively (never following a link), for writing.
        pub(crate) fn create_new(&self, name: &OsStr, mode: u32) -> io::Result<File> {
            let fd = rustix::fs::openat(
                &self.fd,
                name,
                OFlags::RDWR | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
                Mode::from_raw_mode(mode as _),
            )?;
            Ok(File::from(fd))
        }

        /// The directory's own metadata.
        pub(crate) fn meta(&self) -> io::Result<Meta> {
            Ok(meta_of(&rustix::fs::fstat(&self.fd)?))
        }

        /// Creates the child directory `name` with exactly `mode` less the
        /// umask (the engine's private directories: 0700).
        pub(crate) fn mkdir_mode(&self, name: &OsStr, mode: u32) -> io::Result<()> {
            rustix::fs::mkdirat(&self.fd, name, Mode::from_raw_mode(mode as _))?;
            Ok(())
        }

        /// Opens the regular file `name` for reading and writing, creating it
        /// with `create` (its mode) when given and missing; never through a
        /// symlink, never a FIFO or device (opened non-blocking, then
        /// checked), no truncation.
        pub(crate) fn open_rw(
            &self,
            name: &OsStr,
            create: Option<u32>,
        ) -> io::Result<(File, Meta)> {
            let flags = OFlags::RDWR
                | OFlags::NOFOLLOW
                | OFlags::CLOEXEC
                | OFlags::NONBLOCK
                | OFlags::NOCTTY;
            match create {
                None => self.open_regular(name, flags),
                Some(mode) => {
                    let fd = rustix::fs::openat(
                        &self.fd,
                        name,
                        flags | OFlags::CREATE,
                        Mode::from_raw_mode(mode as _),
                    )?;
                    let meta = meta_of(&rustix::fs::fstat(&fd)?);
                    if meta.kind != Kind::File {
                        return Err(io::Error::new(
                            io::ErrorKind::InvalidInput,
                            "not a regular file",
                        ));
                    }
                    rustix::fs::fcntl_setfl(&fd, OFlags::empty())?;
                    Ok((File::from(fd), meta))
                }
            }
        }

        /// Sets this directory's own permission bits.
        pub(crate) fn set_own_mode(&self, mode: u32) -> io::Result<()> {
            rustix::fs::fchmod(&self.fd, Mode::from_raw_mode(mode as _))?;
            Ok(())
        }

        /// Removes the empty child directory `name`.
        pub(crate) fn rmdir(&self, name: &OsStr) -> io::Result<()> {
            rustix::fs::unlinkat(&self.fd, name, AtFlags::REMOVEDIR)?;
            Ok(())
        }

        /// Atomically swaps the names `a` and `b` (Linux `RENAME_EXCHANGE`).
        /// `Unsupported` where the kernel or file system cannot.
        pub(crate) fn exchange(&self, a: &OsStr, b: &OsStr, step: Step) -> io::Result<()> {
            check_fault(step)?;
            #[cfg(any(target_os = "linux", target_os = "android"))]
            {
                use rustix::io::Errno;
                return match rustix::fs::renameat_with(
                    &self.fd,
                    a,
                    &self.fd,
                    b,
                    rustix::fs::RenameFlags::EXCHANGE,
                ) {
                    Ok(()) => Ok(()),
                    Err(Errno::INVAL | Errno::NOSYS) => Err(io::ErrorKind::Unsupported.into()),
                    Err(e) => Err(e.into()),
                };
            }
            #[allow(unreachable_code)]
            {
                let _ = (a, b);
                Err(io::ErrorKind::Unsupported.into())
            }
        }

        /// Whether `name` is the root of a mount of its own (a bind-mounted
        /// single file), which no rename can replace.
        pub(crate) fn is_mount_point(&self, name: &OsStr) -> bool {
            #[cfg(any(target_os = "linux", target_os = "android"))]
            {
                use rustix::fs::{StatxAttributes, StatxFlags};
                if let Ok(x) = rustix::fs::statx(
                    &self.fd,
                    name,
                    AtFlags::SYMLINK_NOFOLLOW,
                    StatxFlags::BASIC_STATS,
                ) {
                    let mask = x.stx_attributes_mask;
                    let attrs = x.stx_attributes;
                    if mask.contains(StatxAttributes::MOUNT_ROOT) {
                        return attrs.contains(StatxAttributes::MOUNT_ROOT);
                    }
                }
                // Older kernels: a mount point lives on another device than
                // its directory, or has another mount id.
                if let (Ok(d), Ok(Some(f))) = (self.meta(), self.stat(name)) {
                    return d.dev != f.dev;
                }
            }
            let _ = name;
            false
        }

        /// Whether two handles are the same directory.
        pub(crate) fn same_as(&self, other: &Dir) -> bool {
            match (rustix::fs::fstat(&self.fd), rustix::fs::fstat(&other.fd)) {
                (Ok(a), Ok(b)) => a.st_dev == b.st_dev && a.st_ino == b.st_ino,
                _ => false,
            }
        }
    }
}

#[cfg(not(unix))]
mod imp {
    //! Portable fallback: operations on full paths. Containment is checked at
    //! resolution time; a concurrent swap of an ancestor directory between
    //! resolution and write is not defended against here.
    use super::*;

    #[derive(Debug)]
    pub struct Dir {
        path: PathBuf,
    }

    fn meta_of(m: &std::fs::Metadata) -> Meta {
        let ft = m.file_type();
        let kind = if ft.is_symlink() {
            Kind::Symlink
        } else if ft.is_dir() {
            Kind::Dir
        } else if ft.is_file() {
            Kind::File
        } else {
            Kind::Special
        };
        let t = |r: io::Result<std::time::SystemTime>| {
            r.ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map(|d| d.as_nanos() as i128)
                .unwrap_or(0)
        };
        Meta {
            kind,
            dev: 0,
            ino: 0,
            size: m.len(),
            mode: None,
            uid: None,
            gid: None,
            nlink: 1,
            mtime_ns: t(m.modified()),
            ctime_ns: t(m.created()),
        }
    }

    impl Dir {
        pub fn open_root(path: &Path) -> io::Result<Dir> {
            if !std::fs::metadata(path)?.is_dir() {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    "not a directory",
                ));
            }
            Ok(Dir {
                path: path.to_path_buf(),
            })
        }
        pub(crate) fn path(&self) -> &Path {
            &self.path
        }
        pub(crate) fn try_clone(&self) -> io::Result<Dir> {
            Ok(Dir {
                path: self.path.clone(),
            })
        }
        pub(crate) fn append_only(&self) -> bool {
            false
        }
        /// No `openat2` here: the caller always walks.
        pub(crate) fn open_beneath(&self, _rel: &Path) -> io::Result<Dir> {
            Err(io::ErrorKind::Unsupported.into())
        }
        pub(crate) fn open_dir(&self, name: &OsStr) -> io::Result<Dir> {
            let p = self.path.join(name);
            let m = std::fs::symlink_metadata(&p)?;
            if m.file_type().is_symlink() {
                return Err(io::Error::new(io::ErrorKind::InvalidInput, "symlink"));
            }
            if !m.is_dir() {
                return Err(io::Error::new(
                    io::ErrorKind::NotADirectory,
                    "not a directory",
                ));
            }
            Ok(Dir { path: p })
        }
        pub(crate) fn mkdir(&self, name: &OsStr) -> io::Result<()> {
            std::fs::create_dir(self.path.join(name))
        }
        pub(crate) fn stat(&self, name: &OsStr) -> io::Result<Option<Meta>> {
            match std::fs::symlink_metadata(self.path.join(name)) {
                Ok(m) => Ok(Some(meta_of(&m))),
                Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
                Err(e) => Err(e),
            }
        }
        pub(crate) fn read_link(&self, name: &OsStr) -> io::Result<PathBuf> {
            std::fs::read_link(self.path.join(name))
        }
        pub(crate) fn open_file(&self, name: &OsStr) -> io::Result<(File, Meta)> {
            check_fault(Step::Open)?;
            let p = self.path.join(name);
            let m = std::fs::symlink_metadata(&p)?;
            let meta = meta_of(&m);
            if meta.kind != Kind::File {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    "not a regular file",
                ));
            }
            Ok((File::open(&p)?, meta))
        }
        pub(crate) fn create_exclusive(&self, tmp: &OsStr, _mode: u32) -> io::Result<File> {
            std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(self.path.join(tmp))
        }
        pub(crate) fn set_owner(
            _file: &File,
            _uid: Option<u32>,
            _gid: Option<u32>,
        ) -> io::Result<()> {
            Ok(())
        }
        pub(crate) fn set_mode(_file: &File, _mode: u32) -> io::Result<()> {
            Ok(())
        }
        pub(crate) fn rename(&self, from: &OsStr, to: &OsStr) -> io::Result<()> {
            check_fault(Step::Rename)?;
            std::fs::rename(self.path.join(from), self.path.join(to))
        }

        pub(crate) fn link_to(&self, from: &OsStr, dest: &Dir, to: &OsStr) -> io::Result<()> {
            std::fs::hard_link(self.path.join(from), dest.path.join(to))
        }

        pub(crate) fn birth_time(&self) -> Option<i128> {
            let t = std::fs::metadata(&self.path).ok()?.created().ok()?;
            let d = t.duration_since(std::time::UNIX_EPOCH).ok()?;
            Some(d.as_nanos() as i128)
        }
        /// Plain rename after the caller's absence check (no atomic
        /// no-replace rename in the portable fallback).
        pub(crate) fn rename_noreplace(&self, from: &OsStr, to: &OsStr) -> io::Result<()> {
            check_fault(Step::Rename)?;
            self.rename_unhooked(from, to)
        }
        pub(crate) fn rename_unhooked(&self, from: &OsStr, to: &OsStr) -> io::Result<()> {
            std::fs::rename(self.path.join(from), self.path.join(to))
        }
        pub fn open_current(&self, name: &OsStr) -> io::Result<Option<(File, Meta)>> {
            let p = self.path.join(name);
            let m = match std::fs::symlink_metadata(&p) {
                Ok(m) => m,
                Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
                Err(e) => return Err(e),
            };
            let meta = meta_of(&m);
            if meta.kind != Kind::File {
                return Ok(None);
            }
            Ok(Some((File::open(&p)?, meta)))
        }
        /// No cross-process lock in the portable fallback.
        pub(crate) fn try_lock(_file: &File) -> Option<bool> {
            None
        }
        /// No cross-process lock in the portable fallback.
        pub fn lock_exclusive(_file: &File, _timeout: std::time::Duration) -> io::Result<bool> {
            Ok(true)
        }
        /// No cross-process lock in the portable fallback.
        pub(crate) fn lock_shared(_file: &File, _timeout: std::time::Duration) -> io::Result<bool> {
            Ok(true)
        }
        pub fn meta_of_file(file: &File) -> io::Result<Meta> {
            Ok(meta_of(&file.metadata()?))
        }
        pub(crate) fn check_writable(&self, name: &OsStr) -> io::Result<()> {
            if std::fs::symlink_metadata(self.path.join(name))?
                .permissions()
                .readonly()
            {
                return Err(io::ErrorKind::PermissionDenied.into());
            }
            Ok(())
        }
        pub(crate) fn unlink(&self, name: &OsStr) -> io::Result<()> {
            std::fs::remove_file(self.path.join(name))
        }
        pub(crate) fn sync(&self) -> io::Result<()> {
            check_fault(Step::DirFsync)?;
            Ok(())
        }
        pub(crate) fn entries(&self) -> io::Result<Vec<OsString>> {
            std::fs::read_dir(&self.path)?
                .map(|e| e.map(|e| e.file_name()))
                .collect()
        }
        pub(crate) fn open_write(&self, name: &OsStr) -> io::Result<(File, Meta)> {
            check_fault(Step::Open)?;
            let p = self.path.join(name);
            let m = std::fs::symlink_metadata(&p)?;
            let meta = meta_of(&m);
            if meta.kind != Kind::File {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    "not a regular file",
                ));
            }
            Ok((std::fs::OpenOptions::new().write(true).open(&p)?, meta))
        }
        pub(crate) fn create_new(&self, name: &OsStr, _mode: u32) -> io::Result<File> {
            std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .create_new(true)
                .open(self.path.join(name))
        }
        pub(crate) fn meta(&self) -> io::Result<Meta> {
            Ok(meta_of(&std::fs::metadata(&self.path)?))
        }
        pub(crate) fn mkdir_mode(&self, name: &OsStr, _mode: u32) -> io::Result<()> {
            std::fs::create_dir(self.path.join(name))
        }
        pub(crate) fn open_rw(
            &self,
            name: &OsStr,
            create: Option<u32>,
        ) -> io::Result<(File, Meta)> {
            let p = self.path.join(name);
            match std::fs::symlink_metadata(&p) {
                Ok(m) if meta_of(&m).kind != Kind::File => {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidInput,
                        "not a regular file",
                    ))
                }
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::NotFound && create.is_some() => {}
                Err(e) => return Err(e),
            }
            let f = std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .create(create.is_some())
                .open(&p)?;
            let meta = meta_of(&f.metadata()?);
            Ok((f, meta))
        }
        pub(crate) fn set_own_mode(&self, _mode: u32) -> io::Result<()> {
            Ok(())
        }
        pub(crate) fn rmdir(&self, name: &OsStr) -> io::Result<()> {
            std::fs::remove_dir(self.path.join(name))
        }
        pub(crate) fn exchange(&self, _a: &OsStr, _b: &OsStr, step: Step) -> io::Result<()> {
            check_fault(step)?;
            Err(io::ErrorKind::Unsupported.into())
        }
        pub(crate) fn is_mount_point(&self, _name: &OsStr) -> bool {
            false
        }
        pub(crate) fn same_as(&self, other: &Dir) -> bool {
            self.path == other.path
        }
    }
}

pub use imp::Dir;

/// Whether `file`, read from its current position to its end, holds exactly
/// `expected` (compared 64 KiB at a time, stopping at the first difference).
pub(crate) fn same_bytes(mut file: &File, expected: &[u8]) -> io::Result<bool> {
    use std::io::Read;
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

#[cfg(test)]
#[cfg(unix)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn temp_names_are_recognised_strictly() {
        let hex32 = "0123456789abcdef".repeat(2);
        assert!(is_temp_name(OsStr::new(&format!(
            ".main.rs.pft-{hex32}.tmp"
        ))));
        for n in [
            "main.rs".to_string(),
            ".main.rs.pft-.tmp".to_string(),
            ".main.rs.pft-0123456789abcdef.tmp".to_string(),
            format!(".main.rs.pft-{}g.tmp", &hex32[1..]),
            format!(".main.rs.pft-{}.tmp", hex32.to_uppercase()),
            format!("main.rs.pft-{hex32}.tmp"),
            format!(".pft-{hex32}.tmp"),
            format!(".a.pft-{hex32}.tmp.bak"),
        ] {
            assert!(!is_temp_name(OsStr::new(&n)), "{n}");
        }
    }

    #[test]
    fn open_beneath_refuses_links_and_escapes() {
        let t = tempfile::tempdir().unwrap();
        let r = t.path().join("root");
        std::fs::create_dir_all(r.join("a/b")).unwrap();
        std::os::unix::fs::symlink("a", r.join("l")).unwrap();
        std::os::unix::fs::symlink(t.path(), r.join("out")).unwrap();
        let root = Dir::open_root(&r).unwrap();
        match root.open_beneath(Path::new("a/b")) {
            Ok(d) => assert_eq!(d.path(), r.join("a/b")),
            // A kernel without openat2: the walk handles everything.
            Err(e) if e.kind() == io::ErrorKind::Unsupported => return,
            Err(e) => panic!("{e}"),
        }
        for bad in [
            "l/b",
            "out",
            "../root/a",
            "/tmp",
            "a/../../root/a",
            "/proc/self/cwd",
        ] {
            assert!(root.open_beneath(Path::new(bad)).is_err(), "{bad}");
        }
    }

    #[test]
    fn noreplace_rename_and_lock() {
        let t = tempfile::tempdir().unwrap();
        let d = Dir::open_root(t.path()).unwrap();
        std::fs::write(t.path().join("a"), "a").unwrap();
        std::fs::write(t.path().join("b"), "b").unwrap();
        let e = d
            .rename_noreplace(OsStr::new("a"), OsStr::new("b"))
            .unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::AlreadyExists);
        assert_eq!(std::fs::read(t.path().join("b")).unwrap(), b"b");
        d.rename_noreplace(OsStr::new("a"), OsStr::new("c"))
            .unwrap();
        assert_eq!(std::fs::read(t.path().join("c")).unwrap(), b"a");

        let (f1, m) = d.open_current(OsStr::new("b")).unwrap().unwrap();
        assert_eq!(m.kind, Kind::File);
        let (f2, _) = d.open_current(OsStr::new("b")).unwrap().unwrap();
        assert!(Dir::lock_exclusive(&f1, Duration::from_secs(1)).unwrap());
        assert!(!Dir::lock_exclusive(&f2, Duration::from_millis(20)).unwrap());
        drop(f1);
        assert!(Dir::lock_exclusive(&f2, Duration::from_secs(1)).unwrap());
        assert!(d.open_current(OsStr::new("missing")).unwrap().is_none());
        std::os::unix::fs::symlink("c", t.path().join("l")).unwrap();
        assert!(d.open_current(OsStr::new("l")).unwrap().is_none());
    }
}
