//! Intents of multi-file commits, and putting back one whose writer died.
//!
//! A commit of several files ([`crate::io::commit`]) renames them into
//! place one by one. Each file is whole at every moment, but a writer
//! killed half-way (or a machine that stopped) leaves some files new and
//! the others old: a call that never answered, yet partly written. Before
//! its first rename such a commit therefore keeps an **intent**: one file
//! in the user's private state (`<state>/intents/<random>`, reached only
//! through [`Private`]: owner-checked, 0600, never through a link), locked
//! while its writer lives, naming each step it is about to take:
//!
//! - a replacement: the directory (device, inode and path), the name, the
//!   temp name, the new inode (the temp file) and the original. With
//!   `RENAME_EXCHANGE` the original stays whole under the temp name until
//!   the commit is done;
//! - a new file: the name, the temp name, the new inode;
//! - a removal: the name, the temp name it is set aside under, the file.
//!
//! An inode is known by device, inode number, size, modification time and
//! birth time: what a rename keeps, and what a later write, or a new file
//! that reuses the inode number, changes. The intent and its directory are
//! flushed before the first rename (unless the commit is not durable); the
//! commit removes the intent once every step is done and the directories
//! flushed, before it answers.
//!
//! # Putting back
//!
//! Each call that may write starts with [`recover`]: every intent whose
//! writer is gone (its `flock` is free) is undone step by step, newest
//! first, and each step only where the file system holds exactly what that
//! step left: a replaced name holding the new inode, with the original
//! under the temp name, is exchanged back; a new file is removed; a file
//! set aside is renamed back; a temp file never renamed is removed. A name
//! holding anything else — a file changed or replaced since — is not the
//! intent's to touch and stays as it is. All old is what a failed call
//! leaves, and the killed call never answered. The intent then goes, and
//! the call's result says what was put back (a warning). A file the intent
//! names that another process holds locked (an edit of it in progress)
//! keeps the intent for the next call, and a sweep of stale temp files
//! leaves the temp names of every intent kept (see [`Pending`]). Where the state directory's file
//! system has no `flock`, an intent is taken for a dead writer's only once
//! it is 15 minutes old (as stale temp files are).
//!
//! Not covered: a file replaced by a plain rename (a file system without
//! `RENAME_EXCHANGE`: the original is gone) keeps its new content, and so
//! does a file written in place, whose own record puts it back only when
//! it is torn ([`crate::io::recovery`]).

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::{self, Read, Write};
use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::io::dir::{Dir, Kind, Step as IoStep};
use crate::io::recovery::{birth_time, hex, name_bytes, unhex};
use crate::io::state::Private;
use crate::printer;

/// First line of every intent.
const MAGIC: &[u8] = b"PFT-INTENT 1\n";
/// The private subdirectory holding intents.
const SUBDIR: &str = "intents";
/// Longest intent read back.
const MAX_INTENT: u64 = 64 << 20;
/// Age past which an intent is taken for its dead writer's where the file
/// system has no locks to tell.
const UNLOCKED_AGE: Duration = Duration::from_secs(15 * 60);
/// How long putting a file back waits for a lock on it.
const LOCK_WAIT: Duration = Duration::from_millis(200);

/// An inode as a commit left it.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
struct Inode {
    dev: u64,
    ino: u64,
    size: u64,
    /// Modification time, nanoseconds.
    mtime: String,
    /// Birth time, nanoseconds, where the file system keeps one.
    btime: Option<String>,
}

impl Inode {
    fn of(file: &File) -> io::Result<Inode> {
        let m = Dir::meta_of_file(file)?;
        Ok(Inode {
            dev: m.dev,
            ino: m.ino,
            size: m.size,
            mtime: m.mtime_ns.to_string(),
            btime: birth_time(file).map(|b| b.to_string()),
        })
    }
}

/// What a step does to its name.
#[derive(Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
enum What {
    /// `new` (at the temp name) takes the name; `old` goes to the temp name.
    Replace { new: Inode, old: Inode },
    /// `new` (at the temp name) takes the free name.
    Create { new: Inode },
    /// `old` goes from the name to the temp name.
    Remove { old: Inode },
}

/// One step of the commit.
#[derive(Serialize, Deserialize)]
struct Entry {
    /// The directory's device and inode.
    dev: u64,
    ino: u64,
    /// Its path, hex-encoded bytes.
    path: String,
    /// The name and the temp name, hex-encoded bytes.
    name: String,
    temp: String,
    #[serde(flatten)]
    what: What,
}

/// The intent's content after [`MAGIC`].
#[derive(Serialize, Deserialize)]
struct Header {
    /// The intent file's own device and inode: a copy restored from
    /// elsewhere is not this file.
    own: (u64, u64),
    entries: Vec<Entry>,
}

/// One step a commit is about to take, as it tells [`begin`].
pub(crate) struct Planned<'a> {
    pub(crate) dir: &'a Dir,
    pub(crate) name: &'a OsStr,
    pub(crate) temp: &'a OsStr,
    /// The new inode (the temp file), for a replacement or a new file.
    pub(crate) new: Option<&'a File>,
    /// The original, for a replacement or a removal.
    pub(crate) old: Option<&'a File>,
}

/// An intent kept while its commit runs. [`Intent::finish`] removes it
/// (the commit is done, or failed and put everything back itself); dropped
/// otherwise (a panic), it stays, unlocked, for the next call to undo.
pub(crate) struct Intent {
    dir: Private,
    name: OsString,
    /// Holds the lock while the writer lives.
    lock: File,
    durable: bool,
}

fn os(b: Vec<u8>) -> OsString {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStringExt;
        OsString::from_vec(b)
    }
    #[cfg(not(unix))]
    {
        OsString::from(String::from_utf8_lossy(&b).into_owned())
    }
}

/// Writes (and, when `durable`, flushes) the intent of a commit about to
/// take `steps`, locked until it is finished or dropped.
pub(crate) fn begin(steps: &[Planned<'_>], durable: bool) -> io::Result<Intent> {
    let dir = Private::state(true)?.subdir(OsStr::new(SUBDIR), true)?;
    let name = OsString::from(hex(&crate::io::temps::random8()));
    let mut file = dir.create_new(&name)?;
    let own = Dir::meta_of_file(&file)?;
    let mut intent = Intent {
        dir,
        name,
        lock: file.try_clone()?,
        durable,
    };
    let _ = Dir::lock_exclusive(&intent.lock, Duration::ZERO);
    let mut entries = Vec::with_capacity(steps.len());
    for s in steps {
        let d = s.dir.meta()?;
        let what = match (s.new, s.old) {
            (Some(n), Some(o)) => What::Replace {
                new: Inode::of(n)?,
                old: Inode::of(o)?,
            },
            (Some(n), None) => What::Create { new: Inode::of(n)? },
            (None, Some(o)) => What::Remove { old: Inode::of(o)? },
            (None, None) => continue,
        };
        entries.push(Entry {
            dev: d.dev,
            ino: d.ino,
            path: hex(&name_bytes(s.dir.path().as_os_str())),
            name: hex(&name_bytes(s.name)),
            temp: hex(&name_bytes(s.temp)),
            what,
        });
    }
    let header = Header {
        own: (own.dev, own.ino),
        entries,
    };
    let mut out = MAGIC.to_vec();
    serde_json::to_writer(&mut out, &header).map_err(io::Error::other)?;
    let written = file.write_all(&out).and_then(|()| {
        if durable {
            file.sync_all()?;
            intent.dir.dir().sync()?;
        }
        Ok(())
    });
    if let Err(e) = written {
        intent.remove();
        return Err(e);
    }
    Ok(intent)
}

impl Intent {
    /// The commit is over (done, or put back by itself): the intent goes,
    /// durably when the commit was.
    pub(crate) fn finish(mut self) {
        self.remove();
        if self.durable {
            let _ = self.dir.dir().sync();
        }
    }

    fn remove(&mut self) {
        let _ = self.dir.remove_own(&self.name);
    }
}

/// What undoing one step did.
enum Undoing {
    /// The name is as before the commit again.
    PutBack(PathBuf),
    /// The step had not been taken (its temp file, if any, removed).
    NotTaken,
    /// The name holds something else: left as it is.
    Left(PathBuf),
    /// Another process holds the file: the intent stays for later.
    Busy,
}

/// What [`recover`] did and left.
#[derive(Default)]
pub(crate) struct Recovered {
    /// What the caller's result should say.
    pub(crate) notes: Vec<String>,
    /// The temp names of the intents left in place.
    pub(crate) pending: Pending,
}

/// The temp names of intents left in place — their writer alive, a file
/// of theirs held by another process, or no lock to tell — by directory
/// (device, inode). A sweep of stale temp files must leave these: some
/// hold the originals the intent puts back, unlocked once their writer
/// died, and on a file system without locks old enough to look stale.
#[derive(Default)]
pub(crate) struct Pending(Vec<(u64, u64, OsString)>);

impl Pending {
    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether `name` in the directory `(dev, ino)` is a kept temp name.
    pub(crate) fn holds(&self, dir: (u64, u64), name: &OsStr) -> bool {
        self.0
            .iter()
            .any(|(dev, ino, n)| (*dev, *ino) == dir && n == name)
    }

    fn keep(&mut self, header: &Header) {
        let temps = header.entries.iter().filter_map(|e| {
            let temp = unhex(&e.temp)?;
            Some((e.dev, e.ino, os(temp)))
        });
        self.0.extend(temps);
    }
}

/// Undoes the commits whose writers died (see the module docs). Errors
/// mean only that nothing was done, and are not the call's.
pub(crate) fn recover() -> Recovered {
    let mut out = Recovered::default();
    let Some(p) = crate::io::state::state_path() else {
        return out;
    };
    // The common case, nothing kept, costs one directory read by path.
    let any = std::fs::read_dir(p.join(SUBDIR)).is_ok_and(|mut it| it.next().is_some());
    if !any {
        return out;
    }
    let Ok(dir) = Private::state(false).and_then(|s| s.subdir(OsStr::new(SUBDIR), false)) else {
        return out;
    };
    let Ok(names) = dir.dir().entries() else {
        return out;
    };
    for n in &names {
        if let Some(note) = recover_one(&dir, n, &mut out.pending) {
            out.notes.push(note);
        }
    }
    out
}

/// Undoes the intent `name` if its writer is gone, the note to give; an
/// intent left in place has its temp names put in `pending`.
fn recover_one(dir: &Private, name: &OsStr, pending: &mut Pending) -> Option<String> {
    let (mut f, meta) = dir.open_read(name).ok()??;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as i128);
    if !writer_gone(Dir::try_lock(&f), now - meta.mtime_ns) {
        // (Being written, it may not parse yet: then nothing of it has
        // been renamed, and its writer holds its temp files locked.)
        if let Some(h) = read(&mut f).filter(|h| h.own == (meta.dev, meta.ino)) {
            pending.keep(&h);
        }
        return None;
    }
    // Still the intent at that name (not removed by its writer between
    // the open and the lock).
    let named = dir.dir().stat(name).ok()??;
    if (named.dev, named.ino) != (meta.dev, meta.ino) {
        return None;
    }
    let Some(header) = read(&mut f).filter(|h| h.own == (meta.dev, meta.ino)) else {
        // Torn before its first rename, or not written here: nothing of
        // it was done.
        let _ = dir.remove_own(name);
        return None;
    };
    let (mut put, mut left) = (Vec::new(), Vec::new());
    for e in header.entries.iter().rev() {
        match undo(e) {
            Undoing::PutBack(p) => put.push(p),
            Undoing::Left(p) => left.push(p),
            Undoing::NotTaken => {}
            Undoing::Busy => {
                pending.keep(&header);
                return None;
            }
        }
    }
    let _ = dir.remove_own(name);
    (!put.is_empty() || !left.is_empty()).then(|| printer::interrupted_commit(&put, &left))
}

/// Whether an intent's writer is gone: its lock was free (`lock`, now
/// ours), or, where the file system has no locks (`None`), the intent is
/// `age` nanoseconds old, older than any commit runs.
fn writer_gone(lock: Option<bool>, age: i128) -> bool {
    match lock {
        Some(free) => free,
        None => age > UNLOCKED_AGE.as_nanos() as i128,
    }
}

fn read(f: &mut File) -> Option<Header> {
    let mut buf = Vec::new();
    f.take(MAX_INTENT).read_to_end(&mut buf).ok()?;
    serde_json::from_slice(buf.strip_prefix(MAGIC)?).ok()
}

/// Whether `name` in `d` is the regular file `id` (opened, not followed).
fn holds(d: &Dir, name: &OsStr, id: &Inode) -> Option<File> {
    let (f, m) = d.open_current(name).ok()??;
    (m.kind == Kind::File && Inode::of(&f).ok()? == *id).then_some(f)
}

/// Undoes one step, only where it left exactly what it would have.
fn undo(e: &Entry) -> Undoing {
    let (Some(path), Some(name), Some(temp)) = (unhex(&e.path), unhex(&e.name), unhex(&e.temp))
    else {
        return Undoing::NotTaken;
    };
    let path = PathBuf::from(os(path));
    let (name, temp) = (os(name), os(temp));
    let shown = path.join(&name);
    let d = match Dir::open_root(&path) {
        Ok(d) => d,
        Err(_) => return Undoing::Left(shown),
    };
    if d.meta().map(|m| (m.dev, m.ino)).ok() != Some((e.dev, e.ino)) {
        return Undoing::Left(shown);
    }
    match &e.what {
        What::Replace { new, old } => {
            if let Some(f) = holds(&d, &name, new) {
                if holds(&d, &temp, old).is_none() {
                    return Undoing::Left(shown);
                }
                if !Dir::lock_exclusive(&f, LOCK_WAIT).unwrap_or(false) {
                    return Undoing::Busy;
                }
                if d.exchange(&temp, &name, IoStep::Restore).is_err() {
                    return Undoing::Left(shown);
                }
                // What the exchange took from the name must be the new
                // inode checked and locked; anything else goes back.
                if holds(&d, &temp, new).is_some() {
                    let _ = d.unlink(&temp);
                    return Undoing::PutBack(shown);
                }
                let _ = d.exchange(&temp, &name, IoStep::Restore);
                return Undoing::Left(shown);
            }
            if holds(&d, &name, old).is_some() {
                remove_if(&d, &temp, new);
                return Undoing::NotTaken;
            }
            Undoing::Left(shown)
        }
        What::Create { new } => {
            if let Some(f) = holds(&d, &name, new) {
                if !Dir::lock_exclusive(&f, LOCK_WAIT).unwrap_or(false) {
                    return Undoing::Busy;
                }
                return match remove_if(&d, &name, new) {
                    true => Undoing::PutBack(shown),
                    false => Undoing::Left(shown),
                };
            }
            remove_if(&d, &temp, new);
            Undoing::NotTaken
        }
        What::Remove { old } => {
            if holds(&d, &name, old).is_some() {
                return Undoing::NotTaken;
            }
            match holds(&d, &temp, old) {
                Some(_) if d.rename_noreplace(&temp, &name).is_ok() => Undoing::PutBack(shown),
                _ => Undoing::Left(shown),
            }
        }
    }
}

/// Removes `name` from `d` if it is the inode `id`: renamed aside to a
/// fresh temp name first and checked there, so that a file another
/// process put at the name meanwhile is put back, never removed.
fn remove_if(d: &Dir, name: &OsStr, id: &Inode) -> bool {
    if holds(d, name, id).is_none() {
        return false;
    }
    let aside = crate::io::temps::name(d, name);
    if d.rename_noreplace(name, &aside).is_err() {
        return false;
    }
    if holds(d, &aside, id).is_some() {
        return d.unlink(&aside).is_ok();
    }
    let _ = d.rename_noreplace(&aside, name);
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A held lock means a live writer, whatever the age; without locks
    /// only an intent older than [`UNLOCKED_AGE`] is a dead writer's (a
    /// lock that cannot be taken is not a free one).
    #[test]
    fn an_intent_is_a_dead_writers_only_when_its_lock_is_free_or_it_is_stale() {
        let stale = UNLOCKED_AGE.as_nanos() as i128 + 1;
        assert!(writer_gone(Some(true), 0));
        assert!(!writer_gone(Some(false), stale));
        assert!(!writer_gone(None, 1_000_000_000));
        assert!(writer_gone(None, stale));
    }
}
