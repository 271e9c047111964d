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
//! keeps the intent for the next call. A sweep of stale temp files leaves
//! the temp names of every intent kept ([`pending`], read when it is about
//! to remove one). An intent is written under a name of its own and named
//! only once locked and whole ([`begin`]). Where the state directory's file
//! system has no `flock`, an intent is taken for a dead writer's only once
//! it is 15 minutes old (as stale temp files are).
//!
//! Not covered: a file replaced by a plain rename (a file system without
//! `RENAME_EXCHANGE`: the original is gone) keeps its new content, and so
//! does a file written in place, whose own record puts it back only when
//! it is torn ([`crate::io::recovery`]).

// Off Unix no commit keeps an intent (`io::commit::intend` is Unix-only):
// what writes one is unused there; what puts one back still runs.
#![cfg_attr(not(unix), allow(dead_code))]

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
/// How long putting a file back waits for a lock on it (and a new intent
/// for its own, which a recovery looking at it may hold a moment).
const LOCK_WAIT: Duration = Duration::from_millis(200);
/// The suffix of an intent being written, before it takes its name.
const UNNAMED: &str = ".new";
/// Age past which an unnamed intent nobody holds is a dead writer's, which
/// died before its commit's first rename (younger, its writer may not have
/// locked it yet).
const UNNAMED_AGE: Duration = Duration::from_secs(60);

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
    /// The new inode's change time (nanoseconds, [`AFTER_WIDTH`] digits)
    /// once it took the name, written in place by the writer just after
    /// that rename, unflushed; all zeros until then (or where a power loss
    /// took the write). A file changed since (written in place with its
    /// size and modification time put back, as `rsync --inplace -t` does)
    /// has another change time: not the step's to undo.
    #[serde(default)]
    after: String,
    #[serde(flatten)]
    what: What,
}

/// The digits of [`Entry::after`]: fixed, so that the writer can fill it in
/// where the intent holds it.
const AFTER_WIDTH: usize = 20;

/// The field [`Entry::after`] as serialized, up to its value.
const AFTER_KEY: &[u8] = b"\"after\":\"";

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
    /// Holds the lock while the writer lives; [`Intent::renamed`] writes
    /// through it.
    file: File,
    durable: bool,
    /// Where each entry's [`Entry::after`] value starts in the file.
    after_at: Vec<u64>,
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
///
/// It is made under a name of its own (`<id>.new`) and takes its final
/// name only once locked and whole: a recovery that lists the directory
/// never sees an intent its live writer does not hold yet (it would have
/// taken it for a dead writer's, torn, and removed it; the commit then
/// went on with no intent at all).
pub(crate) fn begin(steps: &[Planned<'_>], durable: bool) -> io::Result<Intent> {
    let dir = Private::state(true)?.subdir(OsStr::new(SUBDIR), true)?;
    let id = hex(&crate::io::temps::random8());
    let name = OsString::from(&id);
    // data: the intent's name while it is written
    let unnamed = OsString::from(format!("{id}{UNNAMED}"));
    let mut file = dir.create_new(&unnamed)?;
    let own = Dir::meta_of_file(&file)?;
    let lock = file.try_clone()?;
    let mut after_at = Vec::new();
    let written = (|| {
        if !Dir::lock_exclusive(&lock, LOCK_WAIT)? {
            return Err(io::Error::from(io::ErrorKind::WouldBlock));
        }
        let header = Header {
            own: (own.dev, own.ino),
            entries: entries(steps)?,
        };
        let mut out = MAGIC.to_vec();
        serde_json::to_writer(&mut out, &header).map_err(io::Error::other)?;
        // (No name or path holds the key: they are hex.)
        after_at = memchr::memmem::find_iter(&out, AFTER_KEY)
            .map(|i| (i + AFTER_KEY.len()) as u64)
            .collect();
        file.write_all(&out)?;
        if durable {
            file.sync_all()?;
        }
        dir.dir().rename_unhooked(&unnamed, &name)?;
        if durable {
            dir.dir().sync()?;
        }
        Ok(())
    })();
    if let Err(e) = written {
        let _ = dir.remove_own(&unnamed);
        let _ = dir.remove_own(&name);
        return Err(e);
    }
    Ok(Intent {
        dir,
        name,
        file: lock,
        durable,
        after_at,
    })
}

/// The intent's entries for `steps`.
fn entries(steps: &[Planned<'_>]) -> io::Result<Vec<Entry>> {
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
            after: "0".repeat(AFTER_WIDTH),
            what,
        });
    }
    Ok(entries)
}

impl Intent {
    /// Step `k`'s new inode `new` has just taken its name: its change time
    /// now goes in the intent (unflushed: a kill cannot lose it; a power
    /// loss that does leaves zeros, which check nothing).
    pub(crate) fn renamed(&self, k: usize, new: &File) {
        let (Some(&at), Ok(m)) = (self.after_at.get(k), Dir::meta_of_file(new)) else {
            return;
        };
        // data: the change time as the intent spells it
        let digits = format!("{:0width$}", m.ctime_ns.max(0), width = AFTER_WIDTH);
        if digits.len() == AFTER_WIDTH {
            #[cfg(unix)]
            {
                use std::os::unix::fs::FileExt;
                let _ = self.file.write_all_at(digits.as_bytes(), at);
            }
            #[cfg(not(unix))]
            let _ = at;
        }
    }

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

/// The temp names the intents kept now name, by directory (device,
/// inode): whatever their writers' state (alive, dead and not yet put back
/// because a file of theirs is held, or no lock to tell). A sweep of stale
/// temp files must leave these: some hold originals an intent puts back,
/// unlocked once their writer died, and (an original's modification time)
/// old enough to look stale.
#[derive(Default)]
pub(crate) struct Pending(Vec<(u64, u64, OsString)>);

impl Pending {
    /// Whether `name` in the directory `(dev, ino)` is a pending temp name.
    pub(crate) fn holds(&self, dir: (u64, u64), name: &OsStr) -> bool {
        self.0
            .iter()
            .any(|(dev, ino, n)| (*dev, *ino) == dir && n == name)
    }
}

/// The temp names of every intent kept now (read when a sweep is about to
/// remove a temp file, so that an intent kept since the sweep began counts).
pub(crate) fn pending() -> Pending {
    let mut out = Pending::default();
    let Some(dir) = intents_dir() else {
        return out;
    };
    for n in dir.dir().entries().unwrap_or_default() {
        let Ok(Some((mut f, meta))) = dir.open_read(&n) else {
            continue;
        };
        if let Some(h) = read_own(&mut f, &meta) {
            let temps = h.entries.iter().filter_map(|e| {
                let temp = unhex(&e.temp)?;
                Some((e.dev, e.ino, os(temp)))
            });
            out.0.extend(temps);
        }
    }
    out
}

/// The intents directory, if it exists and holds anything (the common
/// case, nothing kept, costs one directory read by path).
fn intents_dir() -> Option<Private> {
    let p = crate::io::state::state_path()?;
    let any = std::fs::read_dir(p.join(SUBDIR)).is_ok_and(|mut it| it.next().is_some());
    if !any {
        return None;
    }
    Private::state(false)
        .and_then(|s| s.subdir(OsStr::new(SUBDIR), false))
        .ok()
}

/// Undoes the commits whose writers died (see the module docs). Returns
/// what the caller's result should say; errors mean only that nothing was
/// done, and are not the call's.
pub(crate) fn recover() -> Vec<String> {
    let Some(dir) = intents_dir() else {
        return Vec::new();
    };
    let Ok(names) = dir.dir().entries() else {
        return Vec::new();
    };
    names.iter().filter_map(|n| recover_one(&dir, n)).collect()
}

/// Undoes the intent `name` if its writer is gone; the note to give.
fn recover_one(dir: &Private, name: &OsStr) -> Option<String> {
    let (mut f, meta) = dir.open_read(name).ok()??;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as i128);
    let age = now - meta.mtime_ns;
    if name_bytes(name).ends_with(UNNAMED.as_bytes()) {
        // Its writer died before naming it, so before its first rename:
        // nothing of it was done.
        if unnamed_gone(Dir::try_lock(&f), age) {
            let _ = dir.remove_own(name);
        }
        return None;
    }
    if !writer_gone(Dir::try_lock(&f), age) {
        return None;
    }
    // Still the intent at that name (not removed by its writer between
    // the open and the lock).
    let named = dir.dir().stat(name).ok()??;
    if (named.dev, named.ino) != (meta.dev, meta.ino) {
        return None;
    }
    let Some(header) = read_own(&mut f, &meta) else {
        // Not whole (a power loss of a commit that was not durable), or
        // not written here: nothing of it is known to have been done.
        let _ = dir.remove_own(name);
        return None;
    };
    let (mut put, mut left) = (Vec::new(), Vec::new());
    for e in header.entries.iter().rev() {
        match undo(e) {
            Undoing::PutBack(p) => put.push(p),
            Undoing::Left(p) => left.push(p),
            Undoing::NotTaken => {}
            Undoing::Busy => return None,
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

/// Whether an unnamed intent's writer is gone: its lock free (or no locks
/// to tell) and the intent older than any writer takes to name it.
fn unnamed_gone(lock: Option<bool>, age: i128) -> bool {
    matches!(lock, Some(true) | None) && age > UNNAMED_AGE.as_nanos() as i128
}

/// The intent in `f` (metadata `meta`), if it is whole and was written as
/// this very file (a copy restored from elsewhere is not).
fn read_own(f: &mut File, meta: &crate::io::dir::Meta) -> Option<Header> {
    read(f).filter(|h| h.own == (meta.dev, meta.ino))
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
    // The new inode at the name, and whether it is as the step left it.
    let new_at_name = |id: &Inode| holds(&d, &name, id).map(|f| (as_left(e, &f), f));
    match &e.what {
        What::Replace { new, old } => {
            if let Some((true, f)) = new_at_name(new) {
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
        What::Create { new } => match new_at_name(new) {
            Some((true, f)) => {
                if !Dir::lock_exclusive(&f, LOCK_WAIT).unwrap_or(false) {
                    return Undoing::Busy;
                }
                match remove_if(&d, &name, new) {
                    true => Undoing::PutBack(shown),
                    false => Undoing::Left(shown),
                }
            }
            // Written to since it was created.
            Some((false, _)) => Undoing::Left(shown),
            None => {
                remove_if(&d, &temp, new);
                Undoing::NotTaken
            }
        },
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

/// Whether `f`, the new inode of step `e` at its name, is as the step left
/// it: the change time the writer noted after its rename, when it noted one.
fn as_left(e: &Entry, f: &File) -> bool {
    let after: i128 = e.after.parse().unwrap_or(0);
    after == 0 || Dir::meta_of_file(f).is_ok_and(|m| m.ctime_ns == after)
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

    /// An intent under its unnamed name may be a live writer's that has not
    /// locked it yet: left while young, removed once old and free. (A
    /// recovery that took it for a dead writer's, torn, removed it; the
    /// writer then committed with no intent.) A named one that nobody holds
    /// and that does not parse is removed at once: intents are named only
    /// whole.
    #[cfg(unix)]
    #[test]
    fn an_unnamed_intent_is_left_to_its_writer_until_it_is_old() {
        let t = tempfile::tempdir().unwrap();
        let path = t.path().join("intents");
        let dir = Private::open(&path, true).unwrap();
        let unnamed = OsString::from(format!("00ff{UNNAMED}"));
        std::fs::write(path.join(&unnamed), b"").unwrap();
        assert!(recover_one(&dir, &unnamed).is_none());
        assert!(
            path.join(&unnamed).exists(),
            "a young unnamed intent was removed"
        );
        let old = std::time::SystemTime::now() - UNNAMED_AGE - Duration::from_secs(5);
        let f = File::options()
            .write(true)
            .open(path.join(&unnamed))
            .unwrap();
        f.set_modified(old).unwrap();
        assert!(recover_one(&dir, &unnamed).is_none());
        assert!(
            !path.join(&unnamed).exists(),
            "an old unnamed intent stayed"
        );
        let named = OsString::from("00fe");
        std::fs::write(path.join(&named), b"PFT-INTENT 1\n{").unwrap();
        assert!(recover_one(&dir, &named).is_none());
        assert!(!path.join(&named).exists());
    }

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
        // An unnamed one: free (or no locks) and old only.
        let old = UNNAMED_AGE.as_nanos() as i128 + 1;
        assert!(unnamed_gone(Some(true), old) && unnamed_gone(None, old));
        assert!(!unnamed_gone(Some(false), old));
        assert!(!unnamed_gone(Some(true), 0) && !unnamed_gone(None, 0));
    }
}
