//! The workspace sandbox: the only place that turns a user-supplied path into
//! an open directory handle plus a final name beneath the workspace root.
//!
//! # How a path is resolved
//!
//! 1. **Syntax.** Empty paths, NUL bytes, paths over [`MAX_PATH_BYTES`] and a
//!    trailing `/` (a directory) are refused. Windows-style input is checked
//!    for what Windows would treat specially: alternate data streams
//!    (`name:stream`), reserved device names (`CON`, `NUL`, `COM1`…), drive
//!    and UNC prefixes. On Unix a backslash is refused outright: it is not a
//!    separator there, so `..\x` would silently name a file called `..\x`.
//!    An absolute path must lie (lexically) under the root, as given or
//!    canonical; anything else is `PATH_OUTSIDE_WORKSPACE`.
//! 2. **Fast path (Linux ≥ 5.6).** A relative path of plain names (no `.`,
//!    `..`) has its parent opened in one `openat2` call with `RESOLVE_BENEATH
//!    | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS` relative to the root
//!    handle: the kernel itself guarantees nothing outside the root and no
//!    symlink was used. Any failure of that call (a symlink on the way, a
//!    missing directory, an old kernel, a seccomp filter) just falls through
//!    to the walk, which gives the authoritative answer. Using
//!    `RESOLVE_BENEATH` alone (letting the kernel follow links) would not do:
//!    an absolute link that points back inside the root, which users do
//!    create, is refused by `RESOLVE_BENEATH`, and the walk already handles
//!    every link.
//! 3. **Walk.** Otherwise the path is walked one component at a time from an
//!    open handle on the root, opening each directory with `O_NOFOLLOW` and
//!    following symlinks itself: a symlink's target is spliced into the
//!    remaining components and walked the same way, so a link may point
//!    anywhere *inside* the root but a step out of it (by `..` above the
//!    root, or an absolute target elsewhere, `/proc/self/...` included) is
//!    refused. `..` pops a handle we already hold instead of asking the
//!    kernel for the parent, so moving a directory mid-walk cannot lead
//!    outside. At most [`MAX_SYMLINKS`] links and [`MAX_DEPTH`] open
//!    directories per resolution.
//!
//! The final component is never followed by the kernel: it is inspected
//! with `lstat` relative to the parent handle, and the caller opens it with
//! `O_NOFOLLOW` and checks with `fstat` that it is a regular file, so a
//! device, FIFO or socket (or a symlink swapped in after the check) is never
//! read or written. Reads, temp files and renames then all happen relative to
//! the returned parent handle.
//!
//! # Limits (documented in `docs/security.md`)
//! - A directory that is *moved* (renamed) out of the workspace by someone
//!   who can write both places while an edit of a file inside it is in
//!   flight takes the edit with it: the handle follows the directory.
//! - Bind mounts inside the workspace are followed like directories.
//! - The portable fallback (non-Unix) works on full paths: containment is
//!   checked at resolution time but a concurrent swap of an ancestor for a
//!   link or junction between resolution and write is not defended against.

use std::collections::VecDeque;
use std::ffi::{OsStr, OsString};
use std::path::{Component, Path, PathBuf};

use crate::error::{ErrorCode, Failure};
use crate::io::dir::{Dir, Kind, Meta};
use crate::printer;

/// Symlinks followed in one resolution before giving up (as Linux's ELOOP).
pub(crate) const MAX_SYMLINKS: usize = 40;
/// Longest path accepted, in bytes.
pub(crate) const MAX_PATH_BYTES: usize = 4096;
// A failure sends back any path the engine took, joined to its root.
const _: () = assert!(crate::result::failure::SHOWN_PATH_BYTES >= 2 * MAX_PATH_BYTES);
/// Deepest directory nesting walked (each level holds an open handle).
pub(crate) const MAX_DEPTH: usize = 256;

/// An open workspace root.
#[derive(Debug)]
pub struct Workspace {
    root: Dir,
    /// The root with symlinks resolved, used for absolute-path checks.
    canonical: PathBuf,
    /// The root as given (made absolute), also accepted as a prefix.
    given: PathBuf,
    /// Whether to try the one-call `openat2` fast path first.
    fast_path: bool,
    /// Where relative paths start, relative to the root (empty: the root).
    base: PathBuf,
}

/// What the caller intends to do with the final component.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Intent {
    /// It must exist as a regular file.
    Existing,
    /// It may be missing (will be created); missing parent directories are
    /// created when `create_dirs` is set.
    Create { create_dirs: bool },
    /// As `Create`, but nothing is created (a dry run, or a write whose
    /// precondition may still fail): a missing parent directory, allowed
    /// when `create_dirs` is set, is only named. The returned `dir` is then
    /// the deepest existing ancestor, `meta` is `None`, and the result must
    /// not be written through; resolve again with `Create` to write.
    Plan { create_dirs: bool },
}

/// A path resolved beneath the root.
#[derive(Debug)]
pub struct Resolved {
    /// Handle on the directory that holds the file.
    pub(crate) dir: Dir,
    /// The file's name in `dir` (never a symlink when it exists).
    pub(crate) name: OsString,
    /// Absolute path of the real file (after following in-workspace links).
    pub abs_path: PathBuf,
    /// The same path relative to the root, with `/` separators.
    pub rel_path: String,
    /// The file's metadata, if it exists.
    pub(crate) meta: Option<Meta>,
}

fn outside(path: &str) -> Failure {
    Failure::new(
        ErrorCode::PATH_OUTSIDE_WORKSPACE,
        printer::outside_workspace(path),
    )
}

fn read_err(path: &str, what: &str, e: &std::io::Error) -> Failure {
    Failure::new(
        ErrorCode::FILE_READ_ERROR,
        printer::path_unreadable(path, what, e),
    )
}

fn is_directory(path: &str) -> Failure {
    Failure::new(ErrorCode::TARGET_IS_DIRECTORY, printer::is_directory(path))
}

fn special(path: &str) -> Failure {
    Failure::invalid(printer::not_regular_file(path))
}

/// Lexically drops `.` components (never `..`: that needs the file system).
fn strip_dots(p: &Path) -> PathBuf {
    p.components()
        .filter(|c| !matches!(c, Component::CurDir))
        .collect()
}

/// The failure for an error opening the workspace root: `INVALID_INPUT` when
/// the root (or a component of it) is not a directory, which no retry can
/// change; otherwise the I/O error it is (`FILE_READ_ERROR` with the OS error:
/// missing or deleted root, permissions, too many open files, a symlink
/// loop...).
fn root_err(root: &Path, e: &std::io::Error) -> Failure {
    // InvalidInput: the portable fallback's "not a directory".
    if matches!(
        e.kind(),
        std::io::ErrorKind::NotADirectory | std::io::ErrorKind::InvalidInput
    ) {
        Failure::invalid(printer::root_not_directory(root.display(), e))
    } else {
        Failure::new(
            ErrorCode::FILE_READ_ERROR,
            printer::root_unopened(root.display(), e),
        )
    }
}

impl Workspace {
    /// Opens the workspace root (which must be an existing directory).
    pub fn open(root: &Path) -> Result<Workspace, Failure> {
        let given = if root.is_absolute() {
            strip_dots(root)
        } else {
            let cwd = std::env::current_dir().map_err(|e| root_err(root, &e))?;
            strip_dots(&cwd.join(root))
        };
        let canonical = std::fs::canonicalize(&given).map_err(|e| root_err(root, &e))?;
        let root_dir = Dir::open_root(&canonical).map_err(|e| root_err(root, &e))?;
        Ok(Workspace {
            root: root_dir,
            canonical,
            given,
            fast_path: true,
            base: PathBuf::new(),
        })
    }

    /// The same workspace resolving relative paths from `cwd` (absolute,
    /// or relative to the root; a directory inside the root) instead of
    /// from the root: a command-line tool run in a project's subdirectory
    /// names files from there, and journals in the project's one journal.
    /// `None`: unchanged.
    pub fn from_dir(mut self, cwd: Option<&Path>) -> Result<Workspace, Failure> {
        let Some(cwd) = cwd else { return Ok(self) };
        let real = std::fs::canonicalize(self.canonical.join(cwd))
            .map_err(|e| Failure::invalid(printer::cwd_unusable(cwd, &e)))?;
        let Ok(rel) = real.strip_prefix(&self.canonical) else {
            return Err(Failure::new(
                ErrorCode::PATH_OUTSIDE_WORKSPACE,
                printer::cwd_outside(cwd, &self.canonical),
            ));
        };
        if !real.is_dir() {
            return Err(Failure::invalid(printer::cwd_unusable(
                cwd,
                &std::io::Error::from(std::io::ErrorKind::NotADirectory),
            )));
        }
        self.base = rel.to_path_buf();
        Ok(self)
    }

    /// The same workspace resolving every path by the walk alone (no
    /// `openat2` fast path); for tests that must exercise the walk.
    #[doc(hidden)]
    pub fn walk_only(mut self) -> Workspace {
        self.fast_path = false;
        self
    }

    /// Where `user_path` lies, lexically, as [`Workspace::resolve`] reads it
    /// (relative to the root, or to `from_dir`'s directory): the path a
    /// failure names when the file could not be resolved.
    pub(crate) fn lexical_abs(&self, user_path: &str) -> String {
        self.canonical
            .join(&self.base)
            .join(user_path)
            .to_string_lossy()
            .into_owned()
    }

    /// The canonical root path.
    pub(crate) fn root(&self) -> &Path {
        &self.canonical
    }

    /// The open root directory (its identity keys the workspace's journal).
    pub(crate) fn root_dir(&self) -> &Dir {
        &self.root
    }

    /// Splits an absolute path into components relative to the root, if it
    /// lies lexically beneath the root (as given or canonical).
    /// The refusal of an absolute `user_path` (`p`) not written beneath the
    /// root. One whose directory is, through a link outside the root, a
    /// directory inside it (a shell's `$PWD` under a symlinked directory)
    /// is not followed either, but the answer says so and names the file
    /// as it can be sent: "resolves outside" would be false. (Resolved for
    /// the message only; nothing is opened through it.)
    fn absolute_outside(&self, user_path: &str, p: &Path) -> Failure {
        let inside = (|| {
            let dir = std::fs::canonicalize(p.parent()?).ok()?;
            let rel = dir.strip_prefix(&self.canonical).ok()?;
            Some(self.canonical.join(rel).join(p.file_name()?))
        })();
        match inside {
            Some(real) => Failure::new(
                ErrorCode::PATH_OUTSIDE_WORKSPACE,
                printer::outside_through_link(user_path, &real.to_string_lossy()),
            ),
            None => outside(user_path),
        }
    }

    fn relative_to_root<'p>(&self, p: &'p Path) -> Option<&'p Path> {
        p.strip_prefix(&self.canonical)
            .ok()
            .or_else(|| p.strip_prefix(&self.given).ok())
    }

    /// Resolves `user_path` beneath the root (a relative one from the
    /// workspace's [`from_dir`](Workspace::from_dir)).
    pub fn resolve(&self, user_path: &str, intent: Intent) -> Result<Resolved, Failure> {
        self.resolve_from(&self.base, user_path, intent)
    }

    /// Resolves `rel_path`, relative to the root (a [`Resolved::rel_path`]
    /// resolved again, a journal's path), beneath the root.
    pub(crate) fn resolve_rel(&self, rel_path: &str, intent: Intent) -> Result<Resolved, Failure> {
        self.resolve_from(Path::new(""), rel_path, intent)
    }

    fn resolve_from(
        &self,
        base: &Path,
        user_path: &str,
        intent: Intent,
    ) -> Result<Resolved, Failure> {
        check_syntax(user_path)?;
        let p = Path::new(user_path);
        let (rel, from) = if p.is_absolute() || p.has_root() {
            let p = strip_dots(p);
            match self.relative_to_root(&p) {
                Some(r) => (r.to_path_buf(), Path::new("")),
                None => return Err(self.absolute_outside(user_path, &p)),
            }
        } else {
            (base.join(p), base)
        };
        if names_directory(user_path) {
            // Resolved only to say what it is: a directory, a path outside
            // the root, or (missing or not) a misuse.
            return Err(match self.walk(&rel, (user_path, from), Intent::Existing) {
                Err(f) if f.code != ErrorCode::FILE_READ_ERROR => f,
                _ => Failure::invalid(printer::names_directory(user_path)),
            });
        }
        if self.fast_path {
            if let Some(done) = self.resolve_fast(&rel, (user_path, from), intent) {
                return done;
            }
        }
        self.walk(&rel, (user_path, from), intent)
    }

    /// The `openat2` fast path: `None` when it does not apply and the walk
    /// must decide.
    fn resolve_fast(
        &self,
        rel: &Path,
        (user_path, from): (&str, &Path),
        intent: Intent,
    ) -> Option<Result<Resolved, Failure>> {
        let mut names: Vec<&OsStr> = Vec::new();
        for c in rel.components() {
            match c {
                Component::Normal(n) => names.push(n),
                _ => return None,
            }
        }
        let (name, parents) = names.split_last()?;
        if parents.len() > MAX_DEPTH {
            return None;
        }
        let parent: PathBuf = parents.iter().collect();
        let dir = if parents.is_empty() {
            self.root.try_clone().ok()?
        } else {
            self.root.open_beneath(&parent).ok()?
        };
        let meta = dir.stat(name).ok()?;
        let name = name.to_os_string();
        Some(match meta.map(|m| m.kind) {
            Some(Kind::Symlink) => return None,
            Some(Kind::Dir) => Err(is_directory(user_path)),
            Some(Kind::Special) => Err(special(user_path)),
            Some(Kind::File) => Ok(self.finish(dir, parent, name, meta)),
            None => match intent {
                Intent::Existing => Err(not_found(user_path, from)),
                Intent::Create { .. } | Intent::Plan { .. } => {
                    Ok(self.finish(dir, parent, name, None))
                }
            },
        })
    }

    /// The component-by-component walk (see the module docs).
    /// `user_path` is the caller's path, relative to `from` (empty: the
    /// root) when it is relative, for messages.
    fn walk(
        &self,
        rel: &Path,
        (user_path, from): (&str, &Path),
        intent: Intent,
    ) -> Result<Resolved, Failure> {
        let mut todo: VecDeque<OsString> = VecDeque::new();
        push_components(&mut todo, rel, user_path)?;
        // The chain of open directories from the root: (handle, name in parent).
        let mut stack: Vec<(Dir, OsString)> = Vec::new();
        let mut links = 0usize;

        loop {
            let Some(name) = todo.pop_front() else {
                // The path named the root itself (or a directory).
                return Err(is_directory(user_path));
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
                            printer::too_many_links(user_path),
                        ));
                    }
                    let target = cur
                        .read_link(&name)
                        .map_err(|e| read_err(user_path, "cannot read a symlink", &e))?;
                    let mut front = VecDeque::new();
                    if target.is_absolute() || target.has_root() {
                        let t = strip_dots(&target);
                        let Some(r) = self.relative_to_root(&t) else {
                            return Err(outside(user_path));
                        };
                        stack.clear();
                        push_components(&mut front, r, user_path)?;
                    } else {
                        push_components(&mut front, &target, user_path)?;
                    }
                    front.extend(todo.drain(..));
                    todo = front;
                    if todo.is_empty() {
                        // A link to "." or to the root: names a directory.
                        return Err(is_directory(user_path));
                    }
                }
                Some(Kind::Dir) if !last => {
                    if stack.len() >= MAX_DEPTH {
                        return Err(Failure::invalid(printer::nested_too_deep(
                            user_path, MAX_DEPTH,
                        )));
                    }
                    let d = cur
                        .open_dir(&name)
                        .map_err(|e| read_err(user_path, "cannot open a directory", &e))?;
                    stack.push((d, name));
                }
                Some(Kind::Dir) => return Err(is_directory(user_path)),
                Some(Kind::Special) => return Err(special(user_path)),
                Some(Kind::File) if !last => {
                    return Err(Failure::new(
                        ErrorCode::FILE_READ_ERROR,
                        printer::parent_is_file(user_path),
                    ))
                }
                Some(Kind::File) => return self.finish_walk(stack, name, meta),
                None if last => match intent {
                    Intent::Existing => return Err(not_found(user_path, from)),
                    Intent::Create { .. } | Intent::Plan { .. } => {
                        return self.finish_walk(stack, name, None)
                    }
                },
                // A missing directory: what follows is named lexically, and
                // a path that climbs above the root from here is outside,
                // whatever the intent (checked before anything is created).
                None if escapes(stack.len() + 1, &todo) => return Err(outside(user_path)),
                None => match intent {
                    Intent::Create { create_dirs: true } => {
                        match cur.mkdir(&name) {
                            Ok(()) => {}
                            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                            Err(e) => {
                                return Err(Failure::new(
                                    ErrorCode::FILE_WRITE_ERROR,
                                    printer::parent_uncreated(user_path, &e),
                                ))
                            }
                        }
                        todo.push_front(name);
                    }
                    Intent::Plan { create_dirs: true } => {
                        return self.plan_missing(stack, name, todo, user_path)
                    }
                    _ => {
                        return Err(Failure::new(
                            ErrorCode::FILE_READ_ERROR,
                            printer::parent_missing(user_path),
                        ))
                    }
                },
            }
        }
    }

    /// `Intent::Plan` met a missing directory `name` with `todo` left: the
    /// rest is named lexically (nothing below a missing directory can be a
    /// link), beneath the deepest existing directory.
    fn plan_missing(
        &self,
        mut stack: Vec<(Dir, OsString)>,
        name: OsString,
        todo: VecDeque<OsString>,
        user_path: &str,
    ) -> Result<Resolved, Failure> {
        let mut missing = vec![name];
        for c in todo {
            if c == ".." {
                return Err(Failure::invalid(printer::up_from_missing(user_path)));
            }
            missing.push(c);
        }
        let Some(file) = missing.pop() else {
            return Err(is_directory(user_path));
        };
        let mut parent: PathBuf = stack.iter().map(|(_, n)| n.as_os_str()).collect();
        parent.extend(&missing);
        let dir = match stack.pop() {
            Some((d, _)) => d,
            None => self
                .root
                .try_clone()
                .map_err(|e| read_err(user_path, "cannot use the workspace root", &e))?,
        };
        Ok(self.finish(dir, parent, file, None))
    }

    fn finish_walk(
        &self,
        stack: Vec<(Dir, OsString)>,
        name: OsString,
        meta: Option<Meta>,
    ) -> Result<Resolved, Failure> {
        let parent: PathBuf = stack.iter().map(|(_, n)| n.as_os_str()).collect();
        let dir = match stack.into_iter().last() {
            Some((d, _)) => d,
            // A duplicate of the root handle: never reopened by path, so a
            // root swapped meanwhile cannot substitute another directory.
            None => self.root.try_clone().map_err(|e| {
                read_err(
                    &self.canonical.to_string_lossy(),
                    "cannot use the workspace root",
                    &e,
                )
            })?,
        };
        Ok(self.finish(dir, parent, name, meta))
    }

    fn finish(&self, dir: Dir, parent: PathBuf, name: OsString, meta: Option<Meta>) -> Resolved {
        let rel = parent.join(&name);
        let rel_path = rel.to_string_lossy().replace('\\', "/");
        let abs_path = self.canonical.join(&rel);
        Resolved {
            dir,
            name,
            abs_path,
            rel_path,
            meta,
        }
    }
}

/// Whether `todo`, followed from a directory `depth` levels below the root
/// (names counted lexically), climbs above the root.
fn escapes(mut depth: usize, todo: &VecDeque<OsString>) -> bool {
    for c in todo {
        if c == ".." {
            match depth.checked_sub(1) {
                Some(d) => depth = d,
                None => return true,
            }
        } else if c != "." {
            depth += 1;
        }
    }
    false
}

fn not_found(user_path: &str, from: &Path) -> Failure {
    Failure::new(
        ErrorCode::FILE_READ_ERROR,
        printer::no_such_file(user_path, from),
    )
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

/// Checks that need no file system: emptiness, NUL, length, a trailing
/// separator, and the Windows-specific forms.
fn check_syntax(user_path: &str) -> Result<(), Failure> {
    if user_path.is_empty() {
        return Err(Failure::invalid(printer::file_path_empty()));
    }
    if user_path.contains('\0') {
        return Err(Failure::invalid(printer::path_has_nul()));
    }
    if user_path.len() > MAX_PATH_BYTES {
        return Err(Failure::invalid(printer::path_too_long(MAX_PATH_BYTES)));
    }
    check_windows_forms(user_path, cfg!(windows))?;
    Ok(())
}

/// Whether the path ends in a separator or `.` and so can only name a
/// directory (`a.txt/` must not quietly mean `a.txt`).
fn names_directory(user_path: &str) -> bool {
    let last = user_path
        .rsplit(|c| c == '/' || (cfg!(windows) && c == '\\'))
        .next()
        .unwrap_or("");
    last.is_empty() || last == "."
}

/// Refuses what Windows would treat as something other than an ordinary
/// file: alternate data streams (`file:stream`) and reserved device names
/// (`CON`, `NUL`, `COM1`…, with any extension). On other platforms
/// (`windows == false`) a backslash is refused (it is not a separator there,
/// so a Windows-style path would silently name an odd file at the root) and
/// a drive prefix (`C:`) names a location outside any Unix workspace.
fn check_windows_forms(user_path: &str, windows: bool) -> Result<(), Failure> {
    let b = user_path.as_bytes();
    let drive = b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':';
    if !windows {
        if user_path.contains('\\') {
            return Err(Failure::invalid(printer::backslash(user_path)));
        }
        if drive {
            return Err(outside(user_path));
        }
        return Ok(());
    }
    let body = if drive { &user_path[2..] } else { user_path };
    if body.contains(':') {
        return Err(Failure::invalid(printer::data_stream(user_path)));
    }
    for part in body.split(['/', '\\']) {
        if part != "." && part != ".." && (part.ends_with('.') || part.ends_with(' ')) {
            return Err(Failure::invalid(printer::dot_or_space_end(user_path, part)));
        }
        let stem = part
            .split('.')
            .next()
            .unwrap_or("")
            .trim_end_matches([' ', '.'])
            .to_ascii_uppercase();
        let digit = |c: u8| c.is_ascii_digit() || matches!(c, 0xB9 | 0xB2 | 0xB3);
        let numbered = (stem.starts_with("COM") || stem.starts_with("LPT"))
            && (stem.len() == 4 && digit(stem.as_bytes()[3])
                || ["\u{b9}", "\u{b2}", "\u{b3}"]
                    .iter()
                    .any(|s| stem.len() == 3 + s.len() && stem.ends_with(s)));
        let reserved = matches!(
            stem.as_str(),
            "CON" | "PRN" | "AUX" | "NUL" | "CONIN$" | "CONOUT$" | "CLOCK$"
        ) || numbered;
        if reserved {
            return Err(Failure::invalid(printer::reserved_device(user_path, part)));
        }
    }
    Ok(())
}

#[cfg(test)]
mod form_tests {
    use super::*;

    fn code(p: &str, windows: bool) -> Option<ErrorCode> {
        check_windows_forms(p, windows).err().map(|f| f.code)
    }

    #[test]
    fn windows_streams_and_devices() {
        let bad = [
            "a.txt:secret",
            "a.txt::$DATA",
            "dir\\a.txt:zone.identifier",
            "CON",
            "con.txt",
            "sub\\NUL",
            "sub/aux.c",
            "COM1",
            "lpt9.log",
            "COM\u{b9}",
            "CONIN$",
            "nul .txt",
            "C:\\x\\prn",
            "a.txt.",
            "a.txt ",
            "sub. \\a.txt",
        ];
        for p in bad {
            assert_eq!(code(p, true), Some(ErrorCode::INVALID_INPUT), "{p}");
        }
        for p in [
            "a.txt",
            "C:\\ws\\a.txt",
            "console.txt",
            "com10",
            "nullish/x",
            "sub\\lpt.txt",
        ] {
            assert_eq!(code(p, true), None, "{p}");
        }
    }

    #[test]
    fn unix_backslash_and_drive() {
        assert_eq!(
            code("..\\..\\etc\\passwd", false),
            Some(ErrorCode::INVALID_INPUT)
        );
        assert_eq!(code("sub\\a.txt", false), Some(ErrorCode::INVALID_INPUT));
        assert_eq!(
            code("C:/Windows/x", false),
            Some(ErrorCode::PATH_OUTSIDE_WORKSPACE)
        );
        assert_eq!(code("c:x", false), Some(ErrorCode::PATH_OUTSIDE_WORKSPACE));
        // Colons and device-like names are ordinary on Unix.
        assert_eq!(code("notes:2024.txt", false), None);
        assert_eq!(code("CON", false), None);
    }

    #[test]
    fn trailing_separator_names_a_directory() {
        for p in ["a.txt/", "sub/.", ".", "./", "sub//", "x/"] {
            assert!(names_directory(p), "{p}");
        }
        for p in ["sub/a.txt", "a", "./a", ".a", "a."] {
            assert!(!names_directory(p), "{p}");
        }
    }
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

    /// An absolute path through a symlink outside the root to a directory
    /// inside it (a symlinked `$PWD`) is refused, saying where it leads and
    /// what to send instead, not that it "resolves outside".
    #[test]
    fn an_absolute_path_through_a_link_outside_names_the_file_to_send() {
        let (t, w) = ws();
        let root = std::fs::canonicalize(t.path().join("root")).unwrap();
        symlink(&root, t.path().join("alias")).unwrap();
        let via = t.path().join("alias").join("a.txt");
        let f = w
            .resolve(via.to_str().unwrap(), Intent::Existing)
            .map(|_| ())
            .unwrap_err();
        assert_eq!(f.code, ErrorCode::PATH_OUTSIDE_WORKSPACE);
        let want = format!("send `{}`", root.join("a.txt").display());
        assert!(f.message.contains(&want), "{}", f.message);
        assert!(!f.message.contains("resolves outside"), "{}", f.message);
        let f = w
            .resolve(
                t.path().join("outside.txt").to_str().unwrap(),
                Intent::Existing,
            )
            .map(|_| ())
            .unwrap_err();
        assert!(f.message.contains("resolves outside"), "{}", f.message);
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
        // The mkfifo tool rather than mkfifoat(2), which rustix does not
        // offer on every Unix (macOS lacks it).
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        assert_eq!(
            code(w.resolve("fifo", Intent::Existing)),
            ErrorCode::INVALID_INPUT
        );
    }
}

#[cfg(all(test, unix))]
mod more_tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn ws(fast: bool) -> (tempfile::TempDir, Workspace) {
        let t = tempfile::tempdir().unwrap();
        let r = t.path().join("root");
        std::fs::create_dir_all(r.join("sub/deep")).unwrap();
        std::fs::write(r.join("a.txt"), "a").unwrap();
        std::fs::write(r.join("sub/deep/c.txt"), "c").unwrap();
        symlink("sub", r.join("s")).unwrap();
        let w = Workspace::open(&r).unwrap();
        (t, if fast { w } else { w.walk_only() })
    }

    /// The fast path and the walk agree on every outcome.
    #[test]
    fn fast_path_and_walk_agree() {
        let (_t, fast) = ws(true);
        let (_u, walk) = ws(false);
        let cases = [
            ("a.txt", Intent::Existing),
            ("sub/deep/c.txt", Intent::Existing),
            ("s/deep/c.txt", Intent::Existing),
            ("sub/deep", Intent::Existing),
            ("sub/missing.txt", Intent::Existing),
            ("sub/missing.txt", Intent::Create { create_dirs: false }),
            ("nodir/x.txt", Intent::Existing),
            ("nodir/x.txt", Intent::Plan { create_dirs: true }),
            ("nodir/x.txt", Intent::Plan { create_dirs: false }),
            ("a.txt/x", Intent::Existing),
            ("a.txt/", Intent::Existing),
            ("sub/", Intent::Existing),
            ("../x", Intent::Existing),
        ];
        for (p, i) in cases {
            let a = fast.resolve(p, i);
            let b = walk.resolve(p, i);
            match (&a, &b) {
                (Ok(x), Ok(y)) => {
                    assert_eq!(
                        (&x.rel_path, &x.name, x.meta.is_some()),
                        (&y.rel_path, &y.name, y.meta.is_some()),
                        "{p}"
                    );
                }
                (Err(x), Err(y)) => assert_eq!(x.code, y.code, "{p}"),
                _ => panic!("{p}: fast {a:?} vs walk {b:?}"),
            }
        }
    }

    #[test]
    fn trailing_separator() {
        let (_t, w) = ws(true);
        assert_eq!(
            w.resolve("a.txt/", Intent::Existing).unwrap_err().code,
            ErrorCode::INVALID_INPUT
        );
        assert_eq!(
            w.resolve("sub/deep/", Intent::Existing).unwrap_err().code,
            ErrorCode::TARGET_IS_DIRECTORY
        );
        // A missing one is no file to read: it names a directory, which is
        // bad input for a write.
        assert_eq!(
            w.resolve("new/", Intent::Create { create_dirs: true })
                .unwrap_err()
                .code,
            ErrorCode::INVALID_INPUT
        );
    }

    #[test]
    fn plan_creates_nothing() {
        let (t, w) = ws(true);
        let r = w
            .resolve("n1/n2/f.txt", Intent::Plan { create_dirs: true })
            .unwrap();
        assert_eq!(r.rel_path, "n1/n2/f.txt");
        assert!(r.meta.is_none());
        assert!(!t.path().join("root/n1").exists());
        assert_eq!(
            w.resolve("n1/f.txt", Intent::Plan { create_dirs: false })
                .unwrap_err()
                .code,
            ErrorCode::FILE_READ_ERROR
        );
        assert_eq!(
            w.resolve("n1/../a.txt", Intent::Plan { create_dirs: true })
                .unwrap_err()
                .code,
            ErrorCode::INVALID_INPUT
        );
    }

    #[test]
    fn depth_is_bounded() {
        let (t, w) = ws(false);
        let mut p = t.path().join("root");
        for _ in 0..(MAX_DEPTH + 2) {
            p.push("d");
        }
        std::fs::create_dir_all(&p).unwrap();
        std::fs::write(p.join("f"), "x").unwrap();
        let rel = "d/".repeat(MAX_DEPTH + 2) + "f";
        assert_eq!(
            w.resolve(&rel, Intent::Existing).unwrap_err().code,
            ErrorCode::INVALID_INPUT
        );
        let ok = "d/".repeat(MAX_DEPTH - 1) + "x";
        assert_eq!(
            w.resolve(&ok, Intent::Create { create_dirs: false })
                .unwrap()
                .rel_path,
            ok
        );
    }

    /// The returned root handle is a duplicate of the one opened at first,
    /// not a reopening by path: replacing the root directory afterwards
    /// does not redirect it.
    #[test]
    fn root_handle_is_not_reopened_by_path() {
        let t = tempfile::tempdir().unwrap();
        let r = t.path().join("root");
        std::fs::create_dir(&r).unwrap();
        let w = Workspace::open(&r).unwrap().walk_only();
        std::fs::rename(&r, t.path().join("moved")).unwrap();
        std::fs::create_dir(&r).unwrap();
        let res = w
            .resolve("new.txt", Intent::Create { create_dirs: false })
            .unwrap();
        let (mut f, tmp) = crate::io::temps::create(&res.dir, &res.name, 0o644).unwrap();
        std::io::Write::write_all(&mut f, b"x").unwrap();
        res.dir.rename(&tmp, &res.name).unwrap();
        assert!(t.path().join("moved/new.txt").exists());
        assert!(!r.join("new.txt").exists());
    }
}
