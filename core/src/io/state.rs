//! The engine's private state on disk, and why it may be trusted.
//!
//! The engine reads back some files it wrote earlier and acts on them: the
//! journal's entries (undo writes their saved contents back) and the records
//! of in-place writes (recovery puts a copy back). Acting on such a file is
//! only safe when nobody but this user could have written it: not another
//! user sharing a directory, not a link planted to redirect a write, not a
//! file another program made. So every such file lives beneath one private
//! directory — the per-user state directory, or a journal directory the
//! caller names — and is reached only through a [`Private`] handle:
//!
//! - the private directory is opened without following a symlink in its
//!   last component and must be owned by the effective user; if the user's
//!   own directory lets the group or others in, those bits are taken away
//!   (0700) before anything in it is used;
//! - every directory and file beneath it is opened relative to its parent's
//!   handle, never through a symlink (`O_NOFOLLOW`), never a FIFO, socket or
//!   device (opened non-blocking, then checked to be a regular file or a
//!   directory), and must be owned by the effective user;
//! - what the engine creates there is created exclusively (files 0600,
//!   directories 0700).
//!
//! A directory or file that fails a check is not used. The error (kind
//! `PermissionDenied`, from [`untrusted`]) says what was wrong; callers
//! report it as a warning and go on without the state, never follow it.
//!
//! The components above the private directory (the user's home,
//! `~/.local/state`) are resolved by the kernel as usual: whoever controls
//! them controls the user's files already. Run as root over another user's
//! state directory (`sudo -E`), the owner check fails and root's process
//! uses nothing in it.
//!
//! Off Unix there is no owner or mode to check; the handles there are the
//! portable fallback of [`crate::io::dir`], which does not follow links
//! either.

use std::ffi::OsStr;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

use crate::io::dir::{Dir, Kind, Meta};
use crate::printer;

/// Mode of the directories the engine creates in its state.
pub(crate) const DIR_MODE: u32 = 0o700;
/// Mode of the files the engine creates in its state.
pub(crate) const FILE_MODE: u32 = 0o600;

/// The per-user state directory's path (not opened, not created):
/// `$PATCH_FILE_STATE_DIR`, else the platform's (`$XDG_STATE_HOME` or
/// `~/.local/state` on Linux, `~/Library/Application Support` on macOS,
/// `%LOCALAPPDATA%` on Windows) joined with `patch-file-tool`.
///
/// Only absolute paths are taken: a relative one would be read under the
/// process's working directory, often the project being edited, which would
/// then hold the journal (files' earlier contents, readable and forgeable
/// by the agent). A relative `PATCH_FILE_STATE_DIR` names no state
/// directory (calls refuse it: `input::request::state_dir_from_env`); a
/// relative `XDG_STATE_HOME` is ignored, as its specification says, and so
/// are a relative `HOME` and `LOCALAPPDATA`.
pub(crate) fn state_path() -> Option<PathBuf> {
    let absolute = |v: std::ffi::OsString| Some(PathBuf::from(v)).filter(|p| p.is_absolute());
    if let Some(d) = std::env::var_os("PATCH_FILE_STATE_DIR").filter(|d| !d.is_empty()) {
        return absolute(d);
    }
    let var = |name: &str| std::env::var_os(name).and_then(absolute);
    let home = || var("HOME");
    let base = if cfg!(windows) {
        var("LOCALAPPDATA")
    } else if cfg!(target_vendor = "apple") {
        home().map(|h| h.join("Library/Application Support"))
    } else {
        var("XDG_STATE_HOME").or_else(|| home().map(|h| h.join(".local/state")))
    }?;
    Some(base.join("patch-file-tool"))
}

/// The error for a state file or directory that fails a trust check.
pub(crate) fn untrusted(path: &Path, why: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::PermissionDenied,
        printer::state_not_used(path.display(), why),
    )
}

/// The effective user id (`None` off Unix).
fn euid() -> Option<u32> {
    #[cfg(unix)]
    {
        Some(rustix::process::geteuid().as_raw())
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// Checks that `meta` (of `path`) is of `kind` and owned by the effective
/// user.
fn check_owned(meta: &Meta, kind: Kind, path: &Path) -> io::Result<()> {
    if meta.kind != kind {
        let what = match kind {
            Kind::Dir => "it is not a directory",
            _ => "it is not a regular file",
        };
        return Err(untrusted(path, what));
    }
    if let (Some(me), Some(owner)) = (euid(), meta.uid) {
        if owner != me {
            return Err(untrusted(path, &printer::owned_by_other(owner, me)));
        }
    }
    Ok(())
}

/// Takes group and other permission bits off a directory of ours.
fn make_private(dir: &Dir, meta: &Meta) -> io::Result<()> {
    match meta.mode {
        Some(mode) if mode & 0o077 != 0 => dir.set_own_mode(DIR_MODE),
        _ => Ok(()),
    }
}

/// Whether an error means the name exists already.
fn exists(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::AlreadyExists
}

/// A directory of the engine's private state, checked as the module docs
/// say. Everything beneath it is reached through it.
#[derive(Debug)]
pub(crate) struct Private {
    dir: Dir,
}

impl Private {
    /// Opens the private directory at `path` (absolute), creating it (0700,
    /// with any missing parents) when `create`. `NotFound` when it is
    /// missing and not created; `PermissionDenied` when it fails a check.
    pub(crate) fn open(path: &Path, create: bool) -> io::Result<Private> {
        let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
            return Err(untrusted(path, "it has no parent directory"));
        };
        if create {
            #[cfg(unix)]
            {
                use std::os::unix::fs::DirBuilderExt;
                std::fs::DirBuilder::new()
                    .recursive(true)
                    .mode(DIR_MODE)
                    .create(parent)?;
            }
            #[cfg(not(unix))]
            std::fs::create_dir_all(parent)?;
        }
        let parent = Dir::open_root(parent)?;
        Self::child(&parent, name, create)
    }

    /// The per-user state directory ([`state_path`]), opened as [`open`]
    /// does. `NotFound` when the platform names none.
    ///
    /// [`open`]: Private::open
    pub(crate) fn state(create: bool) -> io::Result<Private> {
        let path = state_path().ok_or_else(|| {
            io::Error::new(io::ErrorKind::NotFound, "no per-user state directory")
        })?;
        Self::open(&path, create)
    }

    /// The directory `name` of `parent`, created (0700) when `create` and
    /// missing, opened without following a link, and checked.
    fn child(parent: &Dir, name: &OsStr, create: bool) -> io::Result<Private> {
        if create {
            match parent.mkdir_mode(name, DIR_MODE) {
                Ok(()) => {}
                Err(e) if exists(&e) => {}
                Err(e) => return Err(e),
            }
        }
        let path = parent.path().join(name);
        let dir = parent.open_dir(name).map_err(|e| match e.raw_os_error() {
            // ELOOP, ENOTDIR: a symlink or something else in its place.
            #[cfg(unix)]
            Some(code) if code == libc_eloop() || code == libc_enotdir() => {
                untrusted(&path, "it is a symlink or not a directory")
            }
            _ => e,
        })?;
        let meta = dir.meta()?;
        check_owned(&meta, Kind::Dir, &path)?;
        make_private(&dir, &meta)?;
        Ok(Private { dir })
    }

    /// The private subdirectory `name`, created (0700) when `create`.
    pub(crate) fn subdir(&self, name: &OsStr, create: bool) -> io::Result<Private> {
        Self::child(&self.dir, name, create)
    }

    /// The directory handle, for operations the checks above do not cover
    /// (listing, renaming, removing the engine's own names).
    pub(crate) fn dir(&self) -> &Dir {
        &self.dir
    }

    /// The path this directory was reached by (for messages).
    pub(crate) fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Opens the existing file `name` for reading; `None` when it is
    /// missing. A symlink, a FIFO or anything but a regular file owned by
    /// the effective user is refused (`PermissionDenied`).
    pub(crate) fn open_read(&self, name: &OsStr) -> io::Result<Option<(File, Meta)>> {
        let (f, meta) = match self.dir.open_file(name) {
            Ok(x) => x,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(self.refused(name, e)),
        };
        check_owned(&meta, Kind::File, &self.dir.path().join(name))?;
        Ok(Some((f, meta)))
    }

    /// Opens the existing file `name` for reading like [`open_read`] (no
    /// link followed, nothing but a regular file, `None` when missing), but
    /// whoever owns it: for an inode the engine itself linked here from a
    /// user's directory (the journal keeps a replaced file's inode instead
    /// of a copy), which still belongs to that file's owner. Such a file is
    /// trusted for being here, where only this user can add a name, not for
    /// what it holds: its owner may still write it through a descriptor
    /// opened before. The caller checks its identity against its own record
    /// and its content against a recorded sha256 before using it.
    ///
    /// [`open_read`]: Private::open_read
    pub(crate) fn open_linked(&self, name: &OsStr) -> io::Result<Option<(File, Meta)>> {
        match self.dir.open_file(name) {
            Ok(x) => Ok(Some(x)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(self.refused(name, e)),
        }
    }

    /// Removes `name` if it is a regular file owned by the effective user,
    /// one of the engine's own; anything else (a link, a FIFO, another
    /// user's file, a directory) is left alone. `Ok(false)`: nothing was
    /// removed.
    pub(crate) fn remove_own(&self, name: &OsStr) -> io::Result<bool> {
        let Some(meta) = self.dir.stat(name)? else {
            return Ok(false);
        };
        if check_owned(&meta, Kind::File, &self.dir.path().join(name)).is_err() {
            return Ok(false);
        }
        self.dir.unlink(name)?;
        Ok(true)
    }

    /// Removes `name` if it is a regular file, whoever owns it: for an
    /// inode the engine linked here ([`open_linked`]). A link, a FIFO or a
    /// directory is left alone.
    ///
    /// [`open_linked`]: Private::open_linked
    pub(crate) fn remove_linked(&self, name: &OsStr) -> io::Result<bool> {
        match self.dir.stat(name)? {
            Some(m) if m.kind == Kind::File => {
                self.dir.unlink(name)?;
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    /// Opens the file `name` for reading and writing, creating it (0600)
    /// when `create` and missing; checked like [`open_read`].
    ///
    /// [`open_read`]: Private::open_read
    pub(crate) fn open_rw(&self, name: &OsStr, create: bool) -> io::Result<(File, Meta)> {
        let (f, meta) = self
            .dir
            .open_rw(name, create.then_some(FILE_MODE))
            .map_err(|e| self.refused(name, e))?;
        check_owned(&meta, Kind::File, &self.dir.path().join(name))?;
        Ok((f, meta))
    }

    /// Creates the new file `name` (0600) exclusively: an existing name,
    /// a symlink included, is `AlreadyExists`.
    pub(crate) fn create_new(&self, name: &OsStr) -> io::Result<File> {
        self.dir.create_new(name, FILE_MODE)
    }

    /// A refusal by the kernel (a link or special file in place of
    /// `name`) as an untrusted error; other errors as they are.
    fn refused(&self, name: &OsStr, e: io::Error) -> io::Error {
        let path = self.dir.path().join(name);
        #[cfg(unix)]
        if e.raw_os_error() == Some(libc_eloop()) {
            return untrusted(&path, "it is a symlink");
        }
        if e.kind() == io::ErrorKind::InvalidInput {
            return untrusted(&path, "it is not a regular file");
        }
        e
    }
}

#[cfg(unix)]
fn libc_eloop() -> i32 {
    rustix::io::Errno::LOOP.raw_os_error()
}

#[cfg(unix)]
fn libc_enotdir() -> i32 {
    rustix::io::Errno::NOTDIR.raw_os_error()
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::{symlink, PermissionsExt};

    fn mode(p: &Path) -> u32 {
        std::fs::metadata(p).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn creates_private_directories_and_files() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("a/b/state");
        let s = Private::open(&p, true).unwrap();
        assert_eq!(mode(&p), 0o700);
        let j = s.subdir(OsStr::new("journal"), true).unwrap();
        assert_eq!(mode(&p.join("journal")), 0o700);
        let (mut f, _) = j.open_rw(OsStr::new("state"), true).unwrap();
        io::Write::write_all(&mut f, b"x").unwrap();
        assert_eq!(mode(&p.join("journal/state")), 0o600);
        assert!(j.open_read(OsStr::new("state")).unwrap().is_some());
        assert!(j.open_read(OsStr::new("missing")).unwrap().is_none());
        let e = j.create_new(OsStr::new("state")).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::AlreadyExists);
        // Not created when not asked.
        let e = Private::open(&t.path().join("none"), false).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::NotFound);
    }

    #[test]
    fn a_loose_directory_of_ours_is_made_private() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("state");
        std::fs::create_dir(&p).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o777)).unwrap();
        Private::open(&p, false).unwrap();
        assert_eq!(mode(&p), 0o700);
    }

    #[test]
    fn links_and_special_files_are_refused() {
        let t = tempfile::tempdir().unwrap();
        let real = t.path().join("real");
        std::fs::create_dir(&real).unwrap();
        let link = t.path().join("link");
        symlink(&real, &link).unwrap();
        let e = Private::open(&link, true).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::PermissionDenied, "{e}");

        let s = Private::open(&real, false).unwrap();
        let outside = t.path().join("outside");
        std::fs::write(&outside, "secret").unwrap();
        symlink(&outside, real.join("state")).unwrap();
        for r in [
            s.open_rw(OsStr::new("state"), true).map(|_| ()),
            s.open_rw(OsStr::new("state"), false).map(|_| ()),
            s.open_read(OsStr::new("state")).map(|_| ()),
        ] {
            assert_eq!(r.unwrap_err().kind(), io::ErrorKind::PermissionDenied);
        }
        assert_eq!(std::fs::read(&outside).unwrap(), b"secret");
        symlink(&real, real.join("sub")).unwrap();
        let e = s.subdir(OsStr::new("sub"), true).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::PermissionDenied, "{e}");

        let fifo = real.join("fifo");
        rustix::fs::mknodat(
            rustix::fs::CWD,
            &fifo,
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
        for r in [
            s.open_rw(OsStr::new("fifo"), true).map(|_| ()),
            s.open_read(OsStr::new("fifo")).map(|_| ()),
        ] {
            assert_eq!(r.unwrap_err().kind(), io::ErrorKind::PermissionDenied);
        }
    }

    #[test]
    fn another_users_directory_is_refused() {
        if rustix::process::geteuid().as_raw() != 0 {
            eprintln!("skipped: needs root to give a directory to another user");
            return;
        }
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("state");
        std::fs::create_dir(&p).unwrap();
        std::os::unix::fs::chown(&p, Some(65534), Some(65534)).unwrap();
        let e = Private::open(&p, true).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::PermissionDenied);
        assert!(e.to_string().contains("uid 65534"), "{e}");

        let mine = t.path().join("mine");
        let s = Private::open(&mine, true).unwrap();
        std::fs::write(mine.join("planted"), "x").unwrap();
        std::os::unix::fs::chown(mine.join("planted"), Some(65534), None).unwrap();
        let e = s.open_read(OsStr::new("planted")).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::PermissionDenied);
        let e = s.open_rw(OsStr::new("planted"), true).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::PermissionDenied);
    }
}
