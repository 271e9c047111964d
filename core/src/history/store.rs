//! The journal on disk: where a workspace's journal lives, its files, its
//! lock, its running totals, and the removal of what it wrote.
//!
//! # Trust
//!
//! Undo writes back what the journal holds, so the journal trusts only
//! files that nobody but its own user could have put there:
//!
//! - the base directory (`options.journal`, `PATCH_FILE_JOURNAL`, or the
//!   state directory's `journal/`) and each workspace's directory are
//!   opened through [`Private`] handles: not through a symlink, owned by the
//!   effective user, made 0700. Run as root over another user's directory
//!   (`sudo -E`), nothing in it is used;
//! - every file in them is opened beneath that handle with `O_NOFOLLOW`,
//!   non-blocking (a FIFO cannot hang anything) and used only if it is a
//!   regular file owned by the user. The one exception is a *kept inode*
//!   (see `record`): a user's replaced file the journal linked in, which
//!   still belongs to that file's owner; it is checked against the identity
//!   recorded for it, and its content against its sha256;
//! - nothing is deleted that the journal did not create: only names of its
//!   own patterns, only regular files, owned by the user (or the kept inodes
//!   it recorded), never a recursive delete; a workspace directory is
//!   removed only when it held nothing else.
//!
//! # The key of a workspace
//!
//! `<key>` is 32 hex digits of the sha256 of the root's path — its exact
//! bytes, whatever their encoding — and of the root directory's identity
//! (device, inode, and creation time where the file system records one). A
//! project deleted and created again at the same path is another directory,
//! so it starts a new journal instead of inheriting the old one's entries.
//! The `workspace` marker file inside records all of it (the path as hex),
//! which is what the pruning of gone workspaces reads.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::{self, Read, Write as _};
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::codec::source::{hex, sha256_hex};
use crate::io::dir::{Dir, Meta};
use crate::io::state::{state_path, untrusted, Private};
use crate::io::workspace::Workspace;
use crate::model::JournalConfig;
use crate::printer;

/// Journals of workspaces not written for this long are removed.
pub(crate) const WORKSPACE_RETENTION: Duration = Duration::from_secs(30 * 24 * 3600);

/// The marker file naming a workspace journal's workspace.
pub(crate) const MARKER: &str = "workspace";
/// First line of the marker.
const MARKER_MAGIC: &str = "PFT-JOURNAL 2";
/// Largest marker read (a root path is at most a few KiB, twice in hex).
const MARKER_MAX: u64 = 64 << 10;
const LOCK: &str = "lock";
const STATE: &str = "state";
const NEXT: &str = "next";

/// Entry file name of `id`, `size` bytes long (the size in the name lets
/// the caps be enforced from one directory listing, without a `stat` per
/// entry).
pub(crate) fn entry_name(id: u64, size: u64) -> String {
    // data: an entry file name
    format!("{id:010}-{size}.entry")
}

/// Name of the kept inode of file `k` of entry `id`: its size (for the
/// caps) and inode number (so that a link the journal holds can be
/// recognised from a listing).
pub(crate) fn kept_name(id: u64, k: usize, size: u64, ino: u64) -> String {
    // data: a kept file name
    format!("{id:010}-{k}-{size}-{ino}.kept")
}

/// One of the journal's own names, parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Name {
    Entry {
        id: u64,
        size: u64,
    },
    Kept {
        id: u64,
        k: usize,
        size: u64,
        ino: u64,
    },
}

fn digits(s: &str) -> Option<u64> {
    (!s.is_empty() && s.len() <= 20 && s.bytes().all(|b| b.is_ascii_digit()))
        .then(|| s.parse().ok())
        .flatten()
}

/// An id as the journal spells it: ten digits, or more without a leading
/// zero.
fn id_digits(s: &str) -> Option<u64> {
    (s.len() == 10 || (s.len() > 10 && !s.starts_with('0')))
        .then(|| digits(s))
        .flatten()
}

/// Parses `name` if it is an entry or a kept inode of the journal's own
/// spelling (anything else is not the journal's).
pub(crate) fn parse_name(name: &OsStr) -> Option<Name> {
    let s = name.to_str()?;
    if let Some(body) = s.strip_suffix(".entry") {
        let (id, size) = body.split_once('-')?;
        return Some(Name::Entry {
            id: id_digits(id)?,
            size: digits(size)?,
        });
    }
    let body = s.strip_suffix(".kept")?;
    let mut it = body.split('-');
    let (id, k, size, ino) = (it.next()?, it.next()?, it.next()?, it.next()?);
    if it.next().is_some() {
        return None;
    }
    Some(Name::Kept {
        id: id_digits(id)?,
        k: usize::try_from(digits(k)?).ok()?,
        size: digits(size)?,
        ino: digits(ino)?,
    })
}

/// What identifies a workspace: its root's exact path and directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Identity {
    pub(crate) root: Vec<u8>,
    pub(crate) dev: u64,
    pub(crate) ino: u64,
    pub(crate) btime: Option<i128>,
}

/// A path's exact bytes.
#[cfg(unix)]
pub(crate) fn path_bytes(p: &Path) -> Vec<u8> {
    use std::os::unix::ffi::OsStrExt;
    p.as_os_str().as_bytes().to_vec()
}

#[cfg(not(unix))]
pub(crate) fn path_bytes(p: &Path) -> Vec<u8> {
    p.to_string_lossy().into_owned().into_bytes()
}

/// The bytes a hex string spells.
pub(crate) fn unhex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}

impl Identity {
    fn of_dir(root: &Path, dir: &Dir) -> io::Result<Identity> {
        let m = dir.meta()?;
        Ok(Identity {
            root: path_bytes(root),
            dev: m.dev,
            ino: m.ino,
            btime: dir.birth_time(),
        })
    }

    /// The identity of the workspace `ws`.
    pub(crate) fn of(ws: &Workspace) -> io::Result<Identity> {
        Self::of_dir(ws.root(), ws.root_dir())
    }

    /// The journal directory's name.
    pub(crate) fn key(&self) -> String {
        // data: a workspace key
        let id = format!(
            "\0{}\0{}\0{}",
            self.dev,
            self.ino,
            self.btime.map_or("-".into(), |b| b.to_string())
        );
        sha256_hex([b"pft-journal-2\0".as_slice(), &self.root, id.as_bytes()])[..32].to_string()
    }

    /// The marker file's text.
    fn marker(&self) -> String {
        // data: the marker file's text
        format!(
            "{MARKER_MAGIC}\nroot {}\ndev {}\nino {}\nbtime {}\npath {}\n",
            hex(&self.root),
            self.dev,
            self.ino,
            self.btime.map_or("-".into(), |b| b.to_string()),
            String::from_utf8_lossy(&self.root).replace('\n', "\\n"),
        )
    }

    fn parse_marker(text: &[u8]) -> Option<Identity> {
        let text = std::str::from_utf8(text).ok()?;
        let mut lines = text.lines();
        if lines.next()? != MARKER_MAGIC {
            return None;
        }
        let mut field = |name: &str| -> Option<&str> { lines.next()?.strip_prefix(name) };
        let root = unhex(field("root ")?)?;
        let dev = field("dev ")?.parse().ok()?;
        let ino = field("ino ")?.parse().ok()?;
        let btime = match field("btime ")? {
            "-" => None,
            b => Some(b.parse().ok()?),
        };
        Some(Identity {
            root,
            dev,
            ino,
            btime,
        })
    }
}

/// The path of the journal of `ws` under `cfg` (for results; nothing is
/// opened but the root's identity): `None` when there is no per-user state
/// directory to put it in.
pub(crate) fn path_for(cfg: &JournalConfig, ws: &Workspace) -> Option<PathBuf> {
    let base = match &cfg.dir {
        Some(d) if d.is_absolute() => d.clone(),
        Some(d) => std::env::current_dir().ok()?.join(d),
        None => state_path()?.join("journal"),
    };
    Some(base.join(Identity::of(ws).ok()?.key()))
}

/// The journal base directory for `cfg`, created (0700) when `create`.
fn base(cfg: &JournalConfig, create: bool) -> io::Result<Private> {
    match &cfg.dir {
        Some(d) => {
            let abs = if d.is_absolute() {
                d.clone()
            } else {
                std::env::current_dir()?.join(d)
            };
            Private::open(&abs, create)
        }
        None => Private::state(create)?.subdir(OsStr::new("journal"), create),
    }
}

/// A workspace's journal directory, locked for writing while `lock` holds.
pub(crate) struct Store {
    dir: Private,
    lock: Option<File>,
}

/// Opens the journal of `ws`, creating it when `create`. `Ok(None)`: there
/// is none (and `create` is false). `PermissionDenied`: a directory or file
/// on the way failed a trust check (the message says which and why).
pub(crate) fn open(cfg: &JournalConfig, ws: &Workspace, create: bool) -> io::Result<Option<Store>> {
    let id = Identity::of(ws)?;
    let key = id.key();
    // Opened as they are first (the usual case tries no mkdir), created
    // only when missing.
    let dirs = |create: bool| -> io::Result<(Private, Private)> {
        let b = base(cfg, create)?;
        let d = b.subdir(OsStr::new(&key), create)?;
        Ok((b, d))
    };
    let (base, dir) = match dirs(false) {
        Ok(x) => x,
        Err(e) if e.kind() == io::ErrorKind::NotFound && create => dirs(true)?,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let store = Store { dir, lock: None };
    // Only the journal's user can write here, so the marker is not read
    // back on every call (the pruning reads it); a new workspace's journal
    // gets it first — whole or not at all: written aside, then linked into
    // place — and then the journals of workspaces that are gone go. A
    // marker lost is made again by the next record.
    if create && store.dir.dir().stat(OsStr::new(MARKER))?.is_none() && store.make_marker(&id)? {
        prune(&base, &key);
    }
    Ok(Some(store))
}

impl Store {
    /// Writes the marker naming `id`, atomically: `false` when another
    /// process made it first (then it is checked like any marker).
    fn make_marker(&self, id: &Identity) -> io::Result<bool> {
        let mut rnd = [0u8; 8];
        let _ = getrandom::fill(&mut rnd);
        // data: the marker temp file name
        let temp = format!("{MARKER}.{}.new", hex(&rnd));
        let (temp, marker) = (OsStr::new(&temp), OsStr::new(MARKER));
        let mut f = self.dir.create_new(temp)?;
        let linked = f.write_all(id.marker().as_bytes()).and_then(|()| {
            match self.dir.dir().link_to(temp, self.dir.dir(), marker) {
                // A file system without hard links: moved into place instead
                // (without replacing, where the kernel can tell).
                Err(e) if e.kind() != io::ErrorKind::AlreadyExists => {
                    self.dir.dir().rename_noreplace(temp, marker)
                }
                r => r,
            }
        });
        let _ = self.dir.remove_own(temp);
        match linked {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                match self.read_small(MARKER, MARKER_MAX)? {
                    Some(t) if Identity::parse_marker(&t).as_ref() == Some(id) => Ok(false),
                    _ => Err(untrusted(
                        &self.path().join(MARKER),
                        "it does not name this workspace",
                    )),
                }
            }
            Err(e) => Err(e),
        }
    }

    /// The directory's path (for messages and results).
    pub(crate) fn path(&self) -> &Path {
        self.dir.path()
    }

    pub(crate) fn private(&self) -> &Private {
        &self.dir
    }

    /// Takes the journal's lock (an exclusive `flock` on `lock`), waiting
    /// up to `wait` for another process (the call's `lockWaitMs`).
    pub(crate) fn lock(&mut self, wait: Duration) -> io::Result<()> {
        if self.lock.is_some() {
            return Ok(());
        }
        let (f, _) = self.dir.open_rw(OsStr::new(LOCK), true)?;
        if !Dir::lock_exclusive(&f, wait)? {
            return Err(io::Error::new(
                io::ErrorKind::WouldBlock,
                "another process holds the journal's lock",
            ));
        }
        self.lock = Some(f);
        Ok(())
    }

    /// Whether another holder has the journal's lock now (a write in
    /// progress: its entry may be on disk only in part). Never waits.
    pub(crate) fn busy(&self) -> bool {
        if self.lock.is_some() {
            return false;
        }
        match self.dir.open_rw(OsStr::new(LOCK), false) {
            Ok((f, _)) => !Dir::lock_exclusive(&f, Duration::ZERO).unwrap_or(true),
            Err(_) => false,
        }
    }

    /// Releases the lock (also when dropped).
    pub(crate) fn unlock(&mut self) {
        self.lock = None;
    }

    /// The whole of the small file `name` of ours, if it is at most `max`
    /// bytes (`None`: missing; an error: untrusted or too large).
    pub(crate) fn read_small(&self, name: &str, max: u64) -> io::Result<Option<Vec<u8>>> {
        let Some((f, m)) = self.dir.open_read(OsStr::new(name))? else {
            return Ok(None);
        };
        if m.size > max {
            return Err(untrusted(
                &self.path().join(name),
                &printer::longer_than_written(m.size),
            ));
        }
        let mut buf = Vec::new();
        f.take(max).read_to_end(&mut buf)?;
        Ok(Some(buf))
    }

    /// The journal's own names in its directory, parsed, in no order.
    pub(crate) fn names(&self) -> io::Result<Vec<(OsString, Name)>> {
        Ok(self
            .dir
            .dir()
            .entries()?
            .into_iter()
            .filter_map(|n| parse_name(&n).map(|p| (n, p)))
            .collect())
    }

    /// How many links of the file `meta` are kept inodes of this journal.
    pub(crate) fn links_to(&self, meta: &Meta) -> u64 {
        let Ok(names) = self.names() else { return 0 };
        names
            .iter()
            .filter(|(_, n)| matches!(n, Name::Kept { ino, .. } if *ino == meta.ino))
            .filter(|(name, _)| {
                self.dir
                    .dir()
                    .stat(name)
                    .ok()
                    .flatten()
                    .is_some_and(|m| (m.dev, m.ino) == (meta.dev, meta.ino))
            })
            .count() as u64
    }

    /// Removes one of the journal's own files: an entry or the marker only
    /// when a regular file owned by the user, a kept inode when a regular
    /// file (whoever owns it: see the module docs).
    pub(crate) fn remove(&self, name: &OsStr) -> bool {
        let r = match parse_name(name) {
            Some(Name::Kept { .. }) => self.dir.remove_linked(name),
            _ => self.dir.remove_own(name),
        };
        r.unwrap_or(false)
    }

    /// The `state` file, open (created when missing) for the caller's later
    /// [`Store::put_state`], and the totals it holds (`None`: none yet, or
    /// unreadable: rebuild them). An error: `state` is not a file of ours
    /// (a link, a FIFO, another user's).
    pub(crate) fn open_state(&self) -> io::Result<(File, Option<State>)> {
        let (f, m) = self.dir.open_rw(OsStr::new(STATE), true)?;
        let mut b = [0u8; 128];
        let n = if m.size <= 128 {
            read_at(&f, &mut b).unwrap_or(0)
        } else {
            0
        };
        Ok((f, State::parse(&b[..n])))
    }

    /// Rewrites the totals in `f` (from [`Store::open_state`]) in place:
    /// one fixed-width line, no truncation, so no block is freed or
    /// allocated and the edit's own flush carries nothing more of ours.
    pub(crate) fn put_state(&self, f: &File, st: &State) -> io::Result<()> {
        // data: the state file line
        let line = format!("{} {} {}", st.next, st.count, st.bytes);
        // data: the state file line, padded
        write_at(f, format!("{line:<63}\n").as_bytes())
    }

    /// The running totals, or `None` when there are none yet or they are
    /// unreadable (rebuilt then from a listing). An error: `state` is there
    /// but is not a file of ours (a link, a FIFO, another user's).
    pub(crate) fn state(&self) -> io::Result<Option<State>> {
        let Some((f, m)) = self.dir.open_read(OsStr::new(STATE))? else {
            return Ok(None);
        };
        let mut b = Vec::new();
        if m.size > 128 || f.take(128).read_to_end(&mut b).is_err() {
            return Ok(None);
        }
        Ok(State::parse(&b))
    }

    /// Rewrites the totals (see [`Store::put_state`]).
    pub(crate) fn write_state(&self, st: &State) -> io::Result<()> {
        let (f, _) = self.dir.open_rw(OsStr::new(STATE), true)?;
        self.put_state(&f, st)
    }

    /// The totals from a listing (the caller holds the lock). Kept inodes
    /// whose entry is missing — a writer died between linking them and
    /// writing its entry — are removed.
    pub(crate) fn rebuild(&self) -> io::Result<State> {
        let names = self.names()?;
        let hint = self
            .read_small(NEXT, 64)
            .ok()
            .flatten()
            .and_then(|b| String::from_utf8_lossy(&b).trim().parse::<u64>().ok())
            .unwrap_or(1);
        let entries: std::collections::HashSet<u64> = names
            .iter()
            .filter_map(|(_, n)| match n {
                Name::Entry { id, .. } => Some(*id),
                _ => None,
            })
            .collect();
        let mut st = State {
            next: hint.max(1),
            count: 0,
            bytes: 0,
        };
        for (name, n) in &names {
            match *n {
                Name::Entry { id, size } => {
                    st.next = st.next.max(id.saturating_add(1));
                    st.count += 1;
                    st.bytes = st.bytes.saturating_add(size);
                }
                Name::Kept { id, size, .. } => {
                    st.next = st.next.max(id.saturating_add(1));
                    if entries.contains(&id) {
                        st.bytes = st.bytes.saturating_add(size);
                    } else {
                        self.remove(name);
                    }
                }
            }
        }
        Ok(st)
    }

    /// Removes entry `id` and its kept inodes (the caller holds the lock).
    /// Returns the bytes freed, `None` when its entry file could not be
    /// removed.
    pub(crate) fn remove_entry(&self, names: &[(OsString, Name)], id: u64) -> Option<u64> {
        let mut freed = 0u64;
        let mut gone = false;
        for (name, n) in names {
            if let Name::Entry { id: i, size } = n {
                if *i == id && self.remove(name) {
                    freed = freed.saturating_add(*size);
                    gone = true;
                }
            }
        }
        if !gone {
            return None;
        }
        for (name, n) in names {
            if let Name::Kept { id: i, size, .. } = n {
                if *i == id && self.remove(name) {
                    freed = freed.saturating_add(*size);
                }
            }
        }
        Some(freed)
    }

    /// Writes `next` (after a clear, ids keep counting from it).
    pub(crate) fn write_next(&self, next: u64) -> io::Result<()> {
        let (mut f, _) = self.dir.open_rw(OsStr::new(NEXT), true)?;
        f.set_len(0)?;
        // data: the next id file
        f.write_all(format!("{next}\n").as_bytes())
    }

    /// Removes the oldest entries until a tenth of each cap is free again
    /// (so the listing this takes is paid once per many edits), never
    /// `newest` (the caller holds the lock).
    pub(crate) fn evict(&self, cfg: &JournalConfig, newest: u64) {
        let Ok(mut st) = self.rebuild() else { return };
        let (max_n, max_b) = (
            cfg.max_entries - cfg.max_entries / 10,
            cfg.max_bytes - cfg.max_bytes / 10,
        );
        let Ok(names) = self.names() else { return };
        let mut ids: Vec<u64> = names
            .iter()
            .filter_map(|(_, n)| match n {
                Name::Entry { id, .. } => Some(*id),
                _ => None,
            })
            .collect();
        ids.sort_unstable();
        ids.dedup();
        for id in ids {
            if id >= newest || (st.count <= max_n && st.bytes <= max_b) {
                break;
            }
            if let Some(freed) = self.remove_entry(&names, id) {
                st.count = st.count.saturating_sub(1);
                st.bytes = st.bytes.saturating_sub(freed);
            }
        }
        let _ = self.write_state(&st);
    }

    /// Flushes the directory (after a clear).
    pub(crate) fn sync(&self) {
        let _ = self.dir.dir().sync();
    }
}

/// The journal's running totals (`state`, rewritten under the lock with
/// every entry), so that an edit costs no directory listing: only when a cap
/// is exceeded is the directory listed (and the totals made exact again).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct State {
    pub(crate) next: u64,
    pub(crate) count: u64,
    pub(crate) bytes: u64,
}

impl State {
    fn parse(b: &[u8]) -> Option<State> {
        let s = String::from_utf8_lossy(b);
        let mut it = s.split_whitespace().map(|x| x.parse::<u64>().ok());
        let mut next = || it.next().flatten();
        match (next(), next(), next()) {
            (Some(next), Some(count), Some(bytes)) => Some(State { next, count, bytes }),
            _ => None,
        }
    }
}

#[cfg(unix)]
fn read_at(f: &File, b: &mut [u8]) -> io::Result<usize> {
    std::os::unix::fs::FileExt::read_at(f, b, 0)
}

#[cfg(not(unix))]
fn read_at(mut f: &File, b: &mut [u8]) -> io::Result<usize> {
    use std::io::Seek;
    f.seek(io::SeekFrom::Start(0))?;
    f.read(b)
}

#[cfg(unix)]
fn write_at(f: &File, b: &[u8]) -> io::Result<()> {
    std::os::unix::fs::FileExt::write_all_at(f, b, 0)
}

#[cfg(not(unix))]
fn write_at(mut f: &File, b: &[u8]) -> io::Result<()> {
    use std::io::Seek;
    f.seek(io::SeekFrom::Start(0))?;
    f.write_all(b)
}

/// Whether `name` is spelled like a workspace key.
fn is_key(name: &OsStr) -> bool {
    name.to_str()
        .is_some_and(|s| s.len() == 32 && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')))
}

/// Removes the journals under `base` that were not written for
/// [`WORKSPACE_RETENTION`] (run when a new workspace's journal is made, so
/// its cost is paid rarely). Not sooner for a workspace whose root this
/// process cannot open, or finds another directory: a sandbox with its own
/// mounts, a drive not mounted, a project renamed for a moment see the same
/// state directory, and the journal is the only copy of what undo brings
/// back (a journal was pruned so, its workspace there all along). Only a directory whose
/// marker names the workspace its key was made from is the journal's; of
/// it, only the journal's own files go, and the directory only if nothing
/// else was in it.
fn prune(base: &Private, keep: &str) {
    let Ok(names) = base.dir().entries() else {
        return;
    };
    for name in names {
        if name == OsStr::new(keep) || !is_key(&name) {
            continue;
        }
        let Ok(sub) = base.subdir(&name, false) else {
            continue;
        };
        let store = Store {
            dir: sub,
            lock: None,
        };
        let Some(id) = store
            .read_small(MARKER, MARKER_MAX)
            .ok()
            .flatten()
            .and_then(|t| Identity::parse_marker(&t))
        else {
            continue;
        };
        if id.key() != name.to_string_lossy() {
            continue;
        }
        let stale = store
            .dir
            .open_read(OsStr::new(STATE))
            .ok()
            .flatten()
            .and_then(|(f, _)| f.metadata().ok()?.modified().ok()?.elapsed().ok())
            .is_some_and(|age| age > WORKSPACE_RETENTION);
        if !stale {
            continue;
        }
        // Only if no writer holds it.
        let Ok((lock, _)) = store.dir.open_rw(OsStr::new(LOCK), true) else {
            continue;
        };
        if Dir::try_lock(&lock) == Some(false) {
            continue;
        }
        if let Ok(ours) = store.names() {
            for (n, _) in ours {
                store.remove(&n);
            }
        }
        // A marker a crashed writer left half made.
        for n in store.dir.dir().entries().unwrap_or_default() {
            let s = n.to_string_lossy();
            // data: a marker temp file prefix
            if s.starts_with(&format!("{MARKER}.")) && s.ends_with(".new") {
                let _ = store.dir.remove_own(&n);
            }
        }
        for n in [STATE, NEXT, MARKER, LOCK] {
            let _ = store.dir.remove_own(OsStr::new(n));
        }
        drop(lock);
        let _ = base.dir().rmdir(&name);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_nothing_else_is_ours() {
        assert_eq!(
            parse_name(OsStr::new(&entry_name(7, 123))),
            Some(Name::Entry { id: 7, size: 123 })
        );
        assert_eq!(
            parse_name(OsStr::new(&kept_name(12, 3, 4096, 99))),
            Some(Name::Kept {
                id: 12,
                k: 3,
                size: 4096,
                ino: 99
            })
        );
        for not in [
            "7-123.entry",
            "0000000007-.entry",
            "0000000007-12x.entry",
            "0000000007-1-2.kept",
            "0000000007-1-2-3-4.kept",
            "notes.txt",
            "state",
            "0000000007-123.entry.tmp",
        ] {
            assert_eq!(parse_name(OsStr::new(not)), None, "{not}");
        }
    }

    #[test]
    fn the_marker_round_trips_and_keys_differ_by_identity() {
        let id = Identity {
            root: b"/home/u/caf\xe9".to_vec(),
            dev: 1,
            ino: 2,
            btime: Some(3),
        };
        assert_eq!(
            Identity::parse_marker(id.marker().as_bytes()),
            Some(id.clone())
        );
        let other = Identity {
            btime: Some(4),
            ..id.clone()
        };
        assert_ne!(id.key(), other.key());
        let none = Identity {
            btime: None,
            ..id.clone()
        };
        assert_eq!(Identity::parse_marker(none.marker().as_bytes()), Some(none));
        assert_eq!(Identity::parse_marker(b"PFT-JOURNAL 1\nroot 00\n"), None);
        assert_eq!(Identity::parse_marker(b"\xff\xfe"), None);
    }
}
