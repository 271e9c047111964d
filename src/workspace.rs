//! The workspace sandbox: the only place that turns a user-supplied path into
//! an open directory handle plus a final name beneath the workspace root.
//!
//! Resolution walks the path one component at a time from an open handle on
//! the root, opening each directory with `O_NOFOLLOW` and following symlinks
//! itself: a symlink's target is spliced into the remaining components and
//! walked the same way, so a link may point anywhere *inside* the root but a
//! step out of it (by `..` above the root, or an absolute target elsewhere)
//! is refused. `..` pops a handle we already hold instead of asking the kernel
//! for the parent, so moving a directory mid-walk cannot lead outside. The
//! final component is never followed by the kernel either: the caller opens
//! it relative to the returned parent handle with `O_NOFOLLOW`.

use std::collections::VecDeque;
use std::ffi::{OsStr, OsString};
use std::path::{Component, Path, PathBuf};

use crate::error::{ErrorCode, Failure};
use crate::fsys::{Dir, Kind, Meta};

/// Symlinks followed in one resolution before giving up (as Linux's ELOOP).
const MAX_SYMLINKS: usize = 40;
/// Longest path accepted, in bytes.
pub const MAX_PATH_BYTES: usize = 4096;

/// An open workspace root.
#[derive(Debug)]
pub struct Workspace {
    root: Dir,
    /// The root with symlinks resolved, used for absolute-path checks.
    canonical: PathBuf,
    /// The root as given (made absolute), also accepted as a prefix.
    given: PathBuf,
}

/// What the caller intends to do with the final component.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Intent {
    /// It must exist as a regular file.
    Existing,
    /// It may be missing (will be created); missing parent directories are
    /// created when `create_dirs` is set.
    Create { create_dirs: bool },
}

/// A path resolved beneath the root.
#[derive(Debug)]
pub struct Resolved {
    /// Handle on the directory that holds the file.
    pub dir: Dir,
    /// The file's name in `dir` (never a symlink when it exists).
    pub name: OsString,
    /// Absolute path of the real file (after following in-workspace links).
    pub abs_path: PathBuf,
    /// The same path relative to the root, with `/` separators.
    pub rel_path: String,
    /// The file's metadata, if it exists.
    pub meta: Option<Meta>,
}

fn outside(path: &str) -> Failure {
    Failure::new(
        ErrorCode::PATH_OUTSIDE_WORKSPACE,
        format!("`{path}` resolves outside the workspace root; only files inside the workspace can be edited"),
    )
}

fn read_err(path: &str, what: &str, e: &std::io::Error) -> Failure {
    Failure::new(
        ErrorCode::FILE_READ_ERROR,
        format!("cannot read `{path}`: {what}: {e}"),
    )
}

/// Lexically drops `.` components (never `..`: that needs the file system).
fn strip_dots(p: &Path) -> PathBuf {
    p.components()
        .filter(|c| !matches!(c, Component::CurDir))
        .collect()
}

impl Workspace {
    /// Opens the workspace root (which must be an existing directory).
    pub fn open(root: &Path) -> Result<Workspace, Failure> {
        let given = if root.is_absolute() {
            strip_dots(root)
        } else {
            let cwd = std::env::current_dir().map_err(|e| {
                Failure::invalid(format!("workspace root `{}`: {e}", root.display()))
            })?;
            strip_dots(&cwd.join(root))
        };
        let canonical = std::fs::canonicalize(&given).map_err(|e| {
            Failure::invalid(format!(
                "workspace root `{}` is not an accessible directory: {e}",
                root.display()
            ))
        })?;
        let root_dir = Dir::open_root(&canonical).map_err(|e| {
            Failure::invalid(format!(
                "workspace root `{}` is not an accessible directory: {e}",
                root.display()
            ))
        })?;
        Ok(Workspace {
            root: root_dir,
            canonical,
            given,
        })
    }

    /// The canonical root path.
    pub fn root(&self) -> &Path {
        &self.canonical
    }

    /// Splits an absolute path into components relative to the root, if it
    /// lies lexically beneath the root (as given or canonical).
    fn relative_to_root<'p>(&self, p: &'p Path) -> Option<&'p Path> {
        p.strip_prefix(&self.canonical)
            .ok()
            .or_else(|| p.strip_prefix(&self.given).ok())
    }

    /// Resolves `user_path` beneath the root.
    pub fn resolve(&self, user_path: &str, intent: Intent) -> Result<Resolved, Failure> {
        if user_path.is_empty() {
            return Err(Failure::invalid("`file_path` is empty"));
        }
        if user_path.contains('\0') {
            return Err(Failure::invalid("`file_path` contains a NUL byte"));
        }
        if user_path.len() > MAX_PATH_BYTES {
            return Err(Failure::invalid(format!(
                "`file_path` is longer than {MAX_PATH_BYTES} bytes"
            )));
        }
        check_windows_forms(user_path)?;
        let p = Path::new(user_path);
        let rel = if p.is_absolute() {
            let p = strip_dots(p);
            match self.relative_to_root(&p) {
                Some(r) => r.to_path_buf(),
                None => return Err(outside(user_path)),
            }
        } else {
            p.to_path_buf()
        };

        let mut todo: VecDeque<OsString> = VecDeque::new();
        push_components(&mut todo, &rel, user_path)?;
        // The chain of open directories from the root: (handle, name in parent).
        let mut stack: Vec<(Dir, OsString)> = Vec::new();
        let mut links = 0usize;

        loop {
            let Some(name) = todo.pop_front() else {
                // The path named the root itself (or a directory).
                return Err(Failure::new(
                    ErrorCode::TARGET_IS_DIRECTORY,
                    format!("`{user_path}` is a directory; name a file inside it"),
                ));
            };
            if name == ".." {
                if stack.pop().is_none() {
                    return Err(outside(user_path));
                }
                continue;
            }
            let cur = stack.last().map(|(d, _)| d).unwrap_or(&self.root);
            let last = todo.is_empty();
            let meta = cur
                .stat(&name)
                .map_err(|e| read_err(user_path, "cannot inspect a path component", &e))?;
            match meta.map(|m| m.kind) {
                Some(Kind::Symlink) => {
                    links += 1;
                    if links > MAX_SYMLINKS {
                        return Err(Failure::new(
                            ErrorCode::FILE_READ_ERROR,
                            format!("`{user_path}`: too many levels of symbolic links"),
                        ));
                    }
                    let target = cur.read_link(&name).map_err(|e| read_err(user_path, "cannot read a symlink", &e))?;
                    if target.is_absolute() {
                        let t = strip_dots(&target);
                        let Some(r) = self.relative_to_root(&t) else {
                            return Err(outside(user_path));
                        };
                        let r = r.to_path_buf();
                        stack.clear();
                        let mut front = VecDeque::new();
                        push_components(&mut front, &r, user_path)?;
                        front.extend(todo.drain(..));
                        todo = front;
                    } else {
                        let mut front = VecDeque::new();
                        push_components(&mut front, &target, user_path)?;
                        front.extend(todo.drain(..));
                        todo = front;
                    }
                    if todo.is_empty() {
                        // A link to "." or similar: names a directory.
                        return Err(Failure::new(
                            ErrorCode::TARGET_IS_DIRECTORY,
                            format!("`{user_path}` is a directory; name a file inside it"),
                        ));
                    }
                }
                Some(Kind::Dir) if !last => {
                    let d = cur.open_dir(&name).map_err(|e| read_err(user_path, "cannot open a directory", &e))?;
                    stack.push((d, name));
                }
                Some(Kind::Dir) => {
                    return Err(Failure::new(
                        ErrorCode::TARGET_IS_DIRECTORY,
                        format!("`{user_path}` is a directory; name a file inside it"),
                    ))
                }
                Some(Kind::Special) => {
                    return Err(Failure::invalid(format!(
                        "`{user_path}` is a device, FIFO or socket, not a regular file"
                    )))
                }
                Some(Kind::File) if !last => {
                    return Err(Failure::new(
                        ErrorCode::FILE_READ_ERROR,
                        format!("cannot read `{user_path}`: a parent component is a file, not a directory"),
                    ))
                }
                Some(Kind::File) => return Ok(self.finish(stack, name, meta)),
                None if last => match intent {
                    Intent::Existing => {
                        return Err(Failure::new(
                            ErrorCode::FILE_READ_ERROR,
                            format!("cannot read `{user_path}`: no such file; check the path (relative to the workspace root)"),
                        ))
                    }
                    Intent::Create { .. } => return Ok(self.finish(stack, name, None)),
                },
                None => match intent {
                    Intent::Create { create_dirs: true } => {
                        match cur.mkdir(&name) {
                            Ok(()) => {}
                            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                            Err(e) => {
                                return Err(Failure::new(
                                    ErrorCode::FILE_WRITE_ERROR,
                                    format!("cannot create a parent directory of `{user_path}`: {e}"),
                                ))
                            }
                        }
                        todo.push_front(name);
                    }
                    _ => {
                        return Err(Failure::new(
                            ErrorCode::FILE_READ_ERROR,
                            format!("cannot read `{user_path}`: a parent directory does not exist"),
                        ))
                    }
                },
            }
        }
    }

    fn finish(&self, stack: Vec<(Dir, OsString)>, name: OsString, meta: Option<Meta>) -> Resolved {
        let mut rel = PathBuf::new();
        for (_, n) in &stack {
            rel.push(n);
        }
        rel.push(&name);
        let rel_path = rel.to_string_lossy().replace('\\', "/");
        let abs_path = self.canonical.join(&rel);
        let dir = match stack.into_iter().last() {
            Some((d, _)) => d,
            None => self.reopen_root(),
        };
        Resolved {
            dir,
            name,
            abs_path,
            rel_path,
            meta,
        }
    }

    fn reopen_root(&self) -> Dir {
        // A fresh handle so the returned value owns its directory.
        Dir::open_root(&self.canonical)
            .unwrap_or_else(|_| self.root.open_dir(OsStr::new(".")).expect("root handle"))
    }
}

/// Splits `p` into components onto the back of `out`; refuses prefixes
/// (Windows drive letters) that cannot be relative to the root.
fn push_components(out: &mut VecDeque<OsString>, p: &Path, user_path: &str) -> Result<(), Failure> {
    for c in p.components() {
        match c {
            Component::Normal(n) => out.push_back(n.to_os_string()),
            Component::ParentDir => out.push_back(OsString::from("..")),
            Component::CurDir | Component::RootDir => {}
            Component::Prefix(_) => return Err(outside(user_path)),
        }
    }
    Ok(())
}

/// Refuses Windows alternate data streams (`file:stream`) and reserved
/// device names (`CON`, `NUL`, `COM1`…) on Windows, where they would reach
/// something other than an ordinary file.
fn check_windows_forms(user_path: &str) -> Result<(), Failure> {
    if !cfg!(windows) {
        return Ok(());
    }
    let body = user_path
        .get(2..)
        .filter(|_| user_path.as_bytes().get(1) == Some(&b':'))
        .unwrap_or(user_path);
    if body.contains(':') {
        return Err(Failure::invalid(format!(
            "`{user_path}`: alternate data streams (`name:stream`) are not allowed"
        )));
    }
    for part in body.split(['/', '\\']) {
        let stem = part
            .split('.')
            .next()
            .unwrap_or("")
            .trim_end()
            .to_ascii_uppercase();
        let reserved = matches!(
            stem.as_str(),
            "CON" | "PRN" | "AUX" | "NUL" | "CONIN$" | "CONOUT$"
        ) || ((stem.starts_with("COM") || stem.starts_with("LPT"))
            && stem.len() == 4
            && stem.as_bytes()[3].is_ascii_digit());
        if reserved {
            return Err(Failure::invalid(format!(
                "`{user_path}`: `{part}` is a reserved device name"
            )));
        }
    }
    Ok(())
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn ws() -> (tempfile::TempDir, Workspace) {
        let t = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(t.path().join("root/sub")).unwrap();
        std::fs::write(t.path().join("root/a.txt"), "a").unwrap();
        std::fs::write(t.path().join("root/sub/b.txt"), "b").unwrap();
        std::fs::write(t.path().join("outside.txt"), "o").unwrap();
        let w = Workspace::open(&t.path().join("root")).unwrap();
        (t, w)
    }

    fn code(r: Result<Resolved, Failure>) -> ErrorCode {
        r.unwrap_err().code
    }

    #[test]
    fn plain_and_absolute_inside() {
        let (t, w) = ws();
        let r = w.resolve("sub/b.txt", Intent::Existing).unwrap();
        assert_eq!(r.rel_path, "sub/b.txt");
        assert_eq!(
            r.abs_path,
            std::fs::canonicalize(t.path().join("root/sub/b.txt")).unwrap()
        );
        let abs = t.path().join("root/./sub/../a.txt");
        let r = w.resolve(abs.to_str().unwrap(), Intent::Existing).unwrap();
        assert_eq!(r.rel_path, "a.txt");
    }

    #[test]
    fn traversal_and_absolute_outside() {
        let (t, w) = ws();
        assert_eq!(
            code(w.resolve("../outside.txt", Intent::Existing)),
            ErrorCode::PATH_OUTSIDE_WORKSPACE
        );
        assert_eq!(
            code(w.resolve("sub/../../outside.txt", Intent::Existing)),
            ErrorCode::PATH_OUTSIDE_WORKSPACE
        );
        let abs = t.path().join("outside.txt");
        assert_eq!(
            code(w.resolve(abs.to_str().unwrap(), Intent::Existing)),
            ErrorCode::PATH_OUTSIDE_WORKSPACE
        );
        assert_eq!(
            code(w.resolve("/etc/passwd", Intent::Existing)),
            ErrorCode::PATH_OUTSIDE_WORKSPACE
        );
    }

    #[test]
    fn symlinks() {
        let (t, w) = ws();
        let root = t.path().join("root");
        symlink("a.txt", root.join("link_in")).unwrap();
        symlink(t.path().join("outside.txt"), root.join("link_out")).unwrap();
        symlink(t.path(), root.join("dir_out")).unwrap();
        symlink("sub", root.join("dir_in")).unwrap();
        symlink(root.join("sub/b.txt"), root.join("abs_in")).unwrap();
        symlink("loop2", root.join("loop1")).unwrap();
        symlink("loop1", root.join("loop2")).unwrap();
        let r = w.resolve("link_in", Intent::Existing).unwrap();
        assert_eq!(r.rel_path, "a.txt");
        assert_eq!(
            w.resolve("dir_in/b.txt", Intent::Existing)
                .unwrap()
                .rel_path,
            "sub/b.txt"
        );
        assert_eq!(
            w.resolve("abs_in", Intent::Existing).unwrap().rel_path,
            "sub/b.txt"
        );
        assert_eq!(
            code(w.resolve("link_out", Intent::Existing)),
            ErrorCode::PATH_OUTSIDE_WORKSPACE
        );
        assert_eq!(
            code(w.resolve("dir_out/outside.txt", Intent::Existing)),
            ErrorCode::PATH_OUTSIDE_WORKSPACE
        );
        assert_eq!(
            code(w.resolve("loop1", Intent::Existing)),
            ErrorCode::FILE_READ_ERROR
        );
    }

    #[test]
    fn directories_missing_and_create() {
        let (t, w) = ws();
        assert_eq!(
            code(w.resolve("sub", Intent::Existing)),
            ErrorCode::TARGET_IS_DIRECTORY
        );
        assert_eq!(
            code(w.resolve(".", Intent::Existing)),
            ErrorCode::TARGET_IS_DIRECTORY
        );
        assert_eq!(
            code(w.resolve("nope.txt", Intent::Existing)),
            ErrorCode::FILE_READ_ERROR
        );
        assert_eq!(
            code(w.resolve("a.txt/x", Intent::Existing)),
            ErrorCode::FILE_READ_ERROR
        );
        assert_eq!(
            code(w.resolve("", Intent::Existing)),
            ErrorCode::INVALID_INPUT
        );
        assert_eq!(
            code(w.resolve("a\0b", Intent::Existing)),
            ErrorCode::INVALID_INPUT
        );
        let r = w
            .resolve("new/deep/c.txt", Intent::Create { create_dirs: true })
            .unwrap();
        assert!(r.meta.is_none());
        assert!(t.path().join("root/new/deep").is_dir());
        assert_eq!(
            code(w.resolve("x/y.txt", Intent::Create { create_dirs: false })),
            ErrorCode::FILE_READ_ERROR
        );
    }

    #[test]
    fn special_files_refused() {
        let (t, w) = ws();
        let fifo = t.path().join("root/fifo");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        rustix::fs::mkfifoat(
            rustix::fs::CWD,
            c.as_c_str(),
            rustix::fs::Mode::from_raw_mode(0o600),
        )
        .unwrap();
        assert_eq!(
            code(w.resolve("fifo", Intent::Existing)),
            ErrorCode::INVALID_INPUT
        );
    }
}
