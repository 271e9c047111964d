//! Records of in-place writes, and recovery from a write that died.
//!
//! An in-place write rewrites a file's own inode (see [`crate::io::commit`]):
//! a process killed half-way leaves the file torn. Before it touches the
//! file, the writer therefore keeps a **record**: one file in the user's
//! private state (`<state>/recovery/<dev>-<ino>`, reached only through
//! [`Private`], so owner-checked, 0600, never through a link), holding
//!
//! - the file's identity: device and inode, the birth time where the file
//!   system has one (`statx`), and the directory (device, inode) and name it
//!   was written under. A file replaced by another one, or an inode number
//!   reused by a new file, has another birth time (or, without birth times,
//!   another name or directory);
//! - the record's own identity (device and inode), so that a record copied
//!   or restored from elsewhere is refused, and a random token naming the
//!   write;
//! - the original content (the copy) with its length and sha256;
//! - the new content's length and a digest of each of its 4 KiB blocks.
//!
//! The copy lives inside the record, not beside the file: in a directory
//! shared with other users nobody else can plant, replace or remove it, and
//! the copy and its record cannot be separated or mixed up. It costs what
//! a copy beside the file cost (one write and one flush of the original),
//! plus one directory flush.
//!
//! # Acting on a record
//!
//! A record is acted on only when everything in it holds: its writer is
//! gone (its `flock` is free), it is whole (lengths, own identity, the
//! copy's sha256), it names this very file (identity above), and the file's
//! bytes are what a torn write of exactly this record leaves: every 4 KiB
//! block holds either the original's bytes or the new content's (checked
//! against the copy and the digests), at a length between the two. A file
//! holding exactly the old or the new content is whole; a file that is
//! neither — changed since by someone else, restored another way — is not
//! ours to touch. Only a torn file is put back, and only by a real write.
//!
//! # The rule for reading a torn file
//!
//! A read never writes, and neither does a dry run or a refused edit. A
//! read of a torn file ([`inspect`]) returns the content from before the
//! interrupted write — the verified copy — with a note saying so, so that
//! what the caller sees, plans and hashes is what the file will hold once
//! restored. The next write of the file ([`settle`], at the start of a
//! commit) puts that content back and then writes its own; a record that
//! no longer applies is discarded there, never applied. Files named like
//! the copies older versions kept beside a file (`.<name>.pft-backup`)
//! are never read or removed.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::{self, Read, Seek, Write};
use std::time::Duration;

use serde::Serialize;
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::io::dir::{same_bytes, Dir, Meta};
use crate::io::state::Private;
use crate::printer;

/// Size of the blocks whose digests a record keeps.
pub(crate) const BLOCK: usize = 4096;
/// Bytes kept of each block's sha256.
const DIGEST: usize = 16;
/// First line of every record.
const MAGIC: &[u8] = b"PFT-RECOVERY 2\n";
/// Longest header line read back (the header holds no content).
const MAX_HEADER: usize = 16 * 1024;
/// The private subdirectory holding records.
const SUBDIR: &str = "recovery";

/// The header line of a record, after [`MAGIC`]: what [`parse`] checks
/// the record and the file against.
#[derive(Serialize)]
struct Header {
    /// Random, naming the write.
    token: String,
    /// The file written.
    target: Target,
    /// The directory it was written in.
    dir: Place,
    /// Its name there, hex-encoded bytes.
    name: String,
    /// The record's own identity.
    record: Identity,
    /// The copy of the original content, after the block digests.
    old: Old,
    /// The new content.
    new: New,
}

/// The file's identity: device, inode and birth time (nanoseconds, as a
/// string; null without one).
#[derive(Serialize)]
struct Target {
    dev: u64,
    ino: u64,
    btime: Option<String>,
}

/// A directory's identity and its path when written.
#[derive(Serialize)]
struct Place {
    dev: u64,
    ino: u64,
    path: String,
}

/// A device and inode.
#[derive(Serialize)]
struct Identity {
    dev: u64,
    ino: u64,
}

/// The original content's length and sha256.
#[derive(Serialize)]
struct Old {
    len: usize,
    sha256: String,
}

/// The new content's length and number of block digests.
#[derive(Serialize)]
struct New {
    len: usize,
    blocks: usize,
}

/// Digests of the 4 KiB blocks of `content` (the last one may be short).
pub(crate) fn block_digests(content: &[&[u8]]) -> Vec<[u8; DIGEST]> {
    let total: usize = content.iter().map(|s| s.len()).sum();
    let mut out = Vec::with_capacity(total.div_ceil(BLOCK));
    let mut h = Sha256::new();
    let mut fill = 0usize;
    for mut s in content.iter().copied() {
        while !s.is_empty() {
            let take = (BLOCK - fill).min(s.len());
            h.update(&s[..take]);
            fill += take;
            s = &s[take..];
            if fill == BLOCK {
                out.push(truncate(h.finalize_reset()));
                fill = 0;
            }
        }
    }
    if fill > 0 {
        out.push(truncate(h.finalize()));
    }
    out
}

fn truncate(d: impl AsRef<[u8]>) -> [u8; DIGEST] {
    let mut b = [0u8; DIGEST];
    b.copy_from_slice(&d.as_ref()[..DIGEST]);
    b
}

fn digest(block: &[u8]) -> [u8; DIGEST] {
    truncate(Sha256::digest(block))
}

/// What a torn in-place write can have left: whether `cur` is, block by
/// block, the old content or the new one (known by its length and block
/// digests), at a length between the two. Exactly old or exactly new is
/// also such a mix; callers test those first.
pub(crate) fn is_torn_mix(
    cur: &[u8],
    old: &[u8],
    new_len: usize,
    new_blocks: &[[u8; DIGEST]],
) -> bool {
    let (lo, hi) = (old.len().min(new_len), old.len().max(new_len));
    if cur.len() < lo || cur.len() > hi || new_blocks.len() != new_len.div_ceil(BLOCK) {
        return false;
    }
    let mut o = 0usize;
    while o < cur.len() {
        let end = (o + BLOCK).min(cur.len());
        let is_old = end <= old.len() && cur[o..end] == old[o..end];
        let is_new = o < new_len && {
            let ne = (o + BLOCK).min(new_len);
            ne <= cur.len()
                && digest(&cur[o..ne]) == new_blocks[o / BLOCK]
                // Past the new content's end (not yet cut to length), the
                // rest of the block is still the old content.
                && (ne == end || (end <= old.len() && cur[ne..end] == old[ne..end]))
        };
        if !is_old && !is_new {
            return false;
        }
        o = end;
    }
    true
}

/// What identifies a file beyond its inode number: its birth time where the
/// file system keeps one (nanoseconds).
pub(crate) fn birth_time(file: &File) -> Option<i128> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        use rustix::fs::{AtFlags, StatxFlags};
        let x = rustix::fs::statx(file, "", AtFlags::EMPTY_PATH, StatxFlags::BTIME).ok()?;
        if x.stx_mask & StatxFlags::BTIME.bits() == 0 {
            return None;
        }
        Some(x.stx_btime.tv_sec as i128 * 1_000_000_000 + x.stx_btime.tv_nsec as i128)
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    {
        let _ = file;
        None
    }
}

pub(crate) fn hex(b: &[u8]) -> String {
    crate::codec::source::hex(b)
}

pub(crate) fn unhex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}

pub(crate) fn name_bytes(name: &OsStr) -> Vec<u8> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        name.as_bytes().to_vec()
    }
    #[cfg(not(unix))]
    {
        name.to_string_lossy().into_owned().into_bytes()
    }
}

/// The record's file name for the file `meta`.
fn record_name(meta: &Meta) -> OsString {
    // data: the record's file name, `<dev>-<ino>`
    OsString::from(format!("{}-{}", meta.dev, meta.ino))
}

/// The recovery directory, created (0700) when `create`.
fn records(create: bool) -> io::Result<Private> {
    Private::state(create)?.subdir(OsStr::new(SUBDIR), create)
}

/// Whether a record may exist for `meta`: one `stat` by path, so that the
/// common case (none) costs one system call. A hit is then opened through
/// the checked handles.
fn may_exist(meta: &Meta) -> bool {
    let Some(p) = crate::io::state::state_path() else {
        return false;
    };
    std::fs::symlink_metadata(p.join(SUBDIR).join(record_name(meta))).is_ok()
}

// ---------------------------------------------------------------------------
// Writing a record

/// The record of an in-place write in progress: locked while its writer
/// lives. [`Record::finish`] removes it; dropped otherwise (the writer is
/// failing), it stays only if [`Record::keep`] was called.
pub(crate) struct Record {
    dir: Private,
    name: OsString,
    /// Holds the lock while the writer lives.
    file: Option<File>,
    keep: bool,
    removed: bool,
}

impl Record {
    /// Writes the record for an in-place write of `target` (the open file
    /// `meta`, named `name` in `dir`) from `old` to `new`, flushes it (when
    /// `durable`), reads the copy back and compares it. Only then may the
    /// file be touched.
    pub(crate) fn create(
        dir: &Dir,
        name: &OsStr,
        target: &File,
        meta: &Meta,
        old: &[u8],
        new: &[&[u8]],
        durable: bool,
    ) -> io::Result<Record> {
        let rec = records(true)?;
        let rname = record_name(meta);
        let mut f = match rec.create_new(&rname) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                // A record left for this inode number. We hold the file's
                // exclusive lock and checked it holds `old`; the record is
                // judged against that before it goes: one that says these
                // bytes are torn is never discarded (the write stops).
                let (old_rec, own) = rec.open_rw(&rname, false)?;
                if !Dir::lock_exclusive(&old_rec, wait())? {
                    return Err(busy(
                        "another process holds this file's in-place write record; retry shortly",
                    ));
                }
                if let Verdict::Torn(_) = judge(old_rec, &own, dir, name, target, old) {
                    return Err(io::Error::other(
                        "the file holds an interrupted in-place write that was not put back first",
                    ));
                }
                rec.dir().unlink(&rname)?;
                rec.create_new(&rname)?
            }
            Err(e) => return Err(e),
        };
        let mut r = Record {
            dir: rec,
            name: rname,
            file: None,
            keep: false,
            removed: false,
        };
        let _ = Dir::lock_exclusive(&f, Duration::ZERO);
        let own = Dir::meta_of_file(&f)?;
        let dmeta = dir.meta()?;
        let mut token = [0u8; 16];
        getrandom::fill(&mut token).map_err(|e| io::Error::other(e.to_string()))?;
        let new_len: usize = new.iter().map(|s| s.len()).sum();
        let blocks = block_digests(new);
        let header = Header {
            token: hex(&token),
            target: Target {
                dev: meta.dev,
                ino: meta.ino,
                btime: birth_time(target).map(|t| t.to_string()),
            },
            dir: Place {
                dev: dmeta.dev,
                ino: dmeta.ino,
                path: dir.path().to_string_lossy().into_owned(),
            },
            name: hex(&name_bytes(name)),
            record: Identity {
                dev: own.dev,
                ino: own.ino,
            },
            old: Old {
                len: old.len(),
                sha256: crate::codec::source::sha256_hex([old]),
            },
            new: New {
                len: new_len,
                blocks: blocks.len(),
            },
        };
        let mut line = serde_json::to_vec(&header).map_err(io::Error::other)?;
        line.push(b'\n');
        let flat: Vec<u8> = blocks.concat();
        let body = [MAGIC, &line, &flat];
        let at = body.iter().map(|s| s.len()).sum::<usize>() as u64;
        r.file = Some(f.try_clone()?);
        write_all(&mut f, &[MAGIC, &line, &flat, old])?;
        if durable {
            f.sync_all()?;
            r.dir.dir().sync()?;
        }
        f.seek(io::SeekFrom::Start(at))?;
        if !same_bytes(&f, old)? {
            return Err(io::Error::other("the copy read back differs"));
        }
        Ok(r)
    }

    /// The write completed: the record goes.
    pub(crate) fn finish(mut self) {
        self.keep = false;
        self.remove();
    }

    /// The file may be torn and could not be put back: the record stays
    /// for the next write of the file to restore from.
    pub(crate) fn keep(mut self) {
        self.keep = true;
        self.file.take();
    }

    fn remove(&mut self) {
        if !self.removed {
            let _ = self.dir.dir().unlink(&self.name);
            self.removed = true;
        }
        self.file.take();
    }
}

impl Drop for Record {
    fn drop(&mut self) {
        if !self.keep {
            self.remove();
        }
    }
}

fn write_all(f: &mut File, parts: &[&[u8]]) -> io::Result<()> {
    for p in parts {
        f.write_all(p)?;
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Reading a record back

/// A record read back and checked in itself (whole, its own identity).
struct Parsed {
    file: File,
    btime: Option<i128>,
    dir: (u64, u64),
    name: Vec<u8>,
    old: Vec<u8>,
    new_len: usize,
    blocks: Vec<[u8; DIGEST]>,
}

/// How a record relates to the file it is keyed by.
enum Verdict {
    /// Not this file's (another file with that inode number): discarded
    /// by the next write, silently.
    Foreign,
    /// Damaged or incomplete (a writer that died while keeping it, before
    /// touching the file; or a damaged disk): discarded, with a note.
    Damaged,
    /// This file's, but the file is whole (the write completed, or never
    /// started): discarded by the next write, silently.
    Whole,
    /// This file's, but the file is neither old, new nor a torn mix:
    /// discarded by the next write, with a note.
    Changed,
    /// This file is torn by that write; `old` is its content before.
    Torn(Parsed),
}

/// Reads the record `rname` (opened and unlocked by the caller) and checks
/// it in itself; `None` when it is damaged or incomplete.
fn parse(file: File, own: &Meta) -> Option<Parsed> {
    let size = own.size as usize;
    let mut head = vec![0u8; (MAGIC.len() + MAX_HEADER).min(size)];
    (&file).read_exact(&mut head).ok()?;
    let rest = head.strip_prefix(MAGIC)?;
    let nl = memchr::memchr(b'\n', rest)?;
    let h: Value = serde_json::from_slice(&rest[..nl]).ok()?;
    let num = |v: &Value| v.as_u64();
    let rec = &h["record"];
    if (num(&rec["dev"])?, num(&rec["ino"])?) != (own.dev, own.ino) {
        return None;
    }
    let old_len = usize::try_from(num(&h["old"]["len"])?).ok()?;
    let new_len = usize::try_from(num(&h["new"]["len"])?).ok()?;
    let nblocks = usize::try_from(num(&h["new"]["blocks"])?).ok()?;
    let at = MAGIC.len() + nl + 1;
    let want = at
        .checked_add(nblocks.checked_mul(DIGEST)?)?
        .checked_add(old_len)?;
    if want != size || nblocks != new_len.div_ceil(BLOCK) {
        return None;
    }
    let mut rest = Vec::new();
    rest.try_reserve_exact(size - at).ok()?;
    (&file).seek(io::SeekFrom::Start(at as u64)).ok()?;
    (&file).read_to_end(&mut rest).ok()?;
    if rest.len() != size - at {
        return None;
    }
    let old = rest.split_off(nblocks * DIGEST);
    if crate::codec::source::sha256_hex([old.as_slice()]) != h["old"]["sha256"].as_str()? {
        return None;
    }
    let blocks = rest.chunks_exact(DIGEST).map(truncate).collect();
    let btime = match &h["target"]["btime"] {
        Value::Null => None,
        v => Some(v.as_str()?.parse().ok()?),
    };
    Some(Parsed {
        file,
        btime,
        dir: (num(&h["dir"]["dev"])?, num(&h["dir"]["ino"])?),
        name: unhex(h["name"].as_str()?)?,
        old,
        new_len,
        blocks,
    })
}

/// How long a reader or writer waits for a record another process holds.
fn wait() -> Duration {
    crate::io::locks::process_wait()
}

/// The error for a record, or a file, that another process holds longer
/// than we wait: never to be read as "no record".
fn busy(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::WouldBlock, what.to_string())
}

/// Opens the record keyed by `meta`, if any, and locks it (`shared` for a
/// reader that only judges it; exclusive for one that restores, discards
/// or replaces it). The caller already holds the file's own lock (shared
/// or exclusive), so no in-place writer of the file is alive and at work:
/// a record lock still held is another reader's, or a process that broke
/// the lock order. `Ok(None)` only when there is no record (or no private
/// state to hold one); a record locked past the wait is `WouldBlock`, never
/// "absent".
fn open_record(meta: &Meta, shared: bool) -> io::Result<Option<(Private, OsString, File, Meta)>> {
    if !may_exist(meta) {
        return Ok(None);
    }
    let Ok(rec) = records(false) else {
        return Ok(None);
    };
    let rname = record_name(meta);
    let (f, own) = match rec.open_rw(&rname, false) {
        Ok(x) => x,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let locked = if shared {
        Dir::lock_shared(&f, wait())?
    } else {
        Dir::lock_exclusive(&f, wait())?
    };
    if !locked {
        return Err(busy(
            "another process holds the file's in-place write record; retry shortly",
        ));
    }
    Ok(Some((rec, rname, f, own)))
}

/// Judges the record `f` against the file `name` in `dir` (open as
/// `target`, of identity `meta`) holding `cur`.
fn judge(f: File, own: &Meta, dir: &Dir, name: &OsStr, target: &File, cur: &[u8]) -> Verdict {
    let Some(p) = parse(f, own) else {
        return Verdict::Damaged;
    };
    let now = birth_time(target);
    let same_place =
        dir.meta().is_ok_and(|d| (d.dev, d.ino) == p.dir) && p.name == name_bytes(name);
    let same_file = match (p.btime, now) {
        (Some(a), Some(b)) => a == b,
        // Without birth times the name and directory must match too.
        _ => p.btime.is_none() && now.is_none() && same_place,
    };
    if !same_file {
        return Verdict::Foreign;
    }
    let new_whole = cur.len() == p.new_len && block_digests(&[cur]) == p.blocks;
    if cur == p.old.as_slice() || new_whole {
        return Verdict::Whole;
    }
    if is_torn_mix(cur, &p.old, p.new_len, &p.blocks) {
        Verdict::Torn(p)
    } else {
        Verdict::Changed
    }
}

/// What a read of a file finds: `Some((content, note))` when the file is
/// torn by an in-place write whose writer died — `content` is the file's
/// content before that write (what the next write restores), `note` says
/// so. Never writes anything. `cur` is what was read from `file`, which the
/// caller holds a shared lock on (see [`crate::io::source::read_existing`]);
/// `WouldBlock` when the record stays locked past the wait.
pub(crate) fn inspect(
    dir: &Dir,
    name: &OsStr,
    file: &File,
    meta: &Meta,
    cur: &[u8],
    display: &str,
) -> io::Result<Option<(Vec<u8>, String)>> {
    // A record we cannot open as ours (another user's, a damaged state
    // directory) is not trusted, so the bytes are read as they are; one
    // that is ours but locked is waited for, or the read refused.
    let (f, own) = match open_record(meta, true) {
        Ok(Some((_, _, f, own))) => (f, own),
        Ok(None) => return Ok(None),
        Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Err(e),
        Err(_) => return Ok(None),
    };
    Ok(match judge(f, &own, dir, name, file, cur) {
        Verdict::Torn(p) => Some((p.old, printer::torn_read(display))),
        _ => None,
    })
}

/// What [`settle`] did.
#[derive(Debug, Default)]
pub(crate) struct Settled {
    /// A sentence for the result, when something worth saying was done.
    pub(crate) note: Option<String>,
    /// The file's metadata after it was restored (its bytes are then the
    /// content before the interrupted write).
    pub(crate) restored: Option<Meta>,
}

/// At the start of a write of the file `name` in `dir` (identity `meta`):
/// restores it from its record when it is torn, and discards a record that
/// does not apply. `Err` when a torn file could not be restored, or when
/// the file or its record stays locked by another process past the wait
/// (`WouldBlock`): the write must not go on.
///
/// Locks are taken in one order by every process, the file's own lock
/// first and then its record's, so readers (shared, shared) and writers
/// (exclusive, exclusive) never wait on each other in a circle.
pub(crate) fn settle(dir: &Dir, name: &OsStr, meta: &Meta, display: &str) -> io::Result<Settled> {
    if !may_exist(meta) {
        return Ok(Settled::default());
    }
    // The file locked against other engine processes while it is judged
    // and restored (a lock on a read handle; it goes with `reader` before
    // the commit takes its own).
    let Some((reader, m)) = dir.open_current(name)? else {
        return Ok(Settled::default());
    };
    if (m.dev, m.ino) != (meta.dev, meta.ino) {
        return Ok(Settled::default());
    }
    if !Dir::lock_exclusive(&reader, wait())? {
        return Err(busy("the file is locked by another process"));
    }
    let Some((rec, rname, f, own)) = open_record(meta, false)? else {
        return Ok(Settled::default());
    };
    let mut cur = Vec::new();
    (&reader).read_to_end(&mut cur)?;
    let discard = |note: Option<String>| {
        let _ = rec.dir().unlink(&rname);
        Ok(Settled {
            note,
            restored: None,
        })
    };
    match judge(f, &own, dir, name, &reader, &cur) {
        Verdict::Foreign | Verdict::Whole => discard(None),
        Verdict::Damaged => discard(Some(printer::record_damaged(display))),
        Verdict::Changed => discard(Some(printer::record_outdated(display))),
        Verdict::Torn(p) => {
            let (mut target, m) = dir.open_write(name)?;
            if (m.dev, m.ino) != (meta.dev, meta.ino) {
                return Ok(Settled::default());
            }
            target.seek(io::SeekFrom::Start(0))?;
            target.write_all(&p.old)?;
            target.set_len(p.old.len() as u64)?;
            target.sync_all()?;
            let after = Dir::meta_of_file(&target)?;
            drop(target);
            let _ = rec.dir().unlink(&rname);
            drop(p.file);
            drop(reader);
            Ok(Settled {
                note: Some(printer::restored_then_written(display)),
                restored: Some(after),
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digests_do_not_depend_on_slicing() {
        let data: Vec<u8> = (0..3 * BLOCK + 123).map(|i| (i % 251) as u8).collect();
        let whole = block_digests(&[&data]);
        assert_eq!(whole.len(), 4);
        let parts = block_digests(&[&data[..7], &data[7..BLOCK + 1], &[], &data[BLOCK + 1..]]);
        assert_eq!(whole, parts);
        assert!(block_digests(&[]).is_empty());
    }

    fn mix(cur: &[u8], old: &[u8], new: &[u8]) -> bool {
        is_torn_mix(cur, old, new.len(), &block_digests(&[new]))
    }

    #[test]
    fn torn_mixes_are_recognised_and_nothing_else() {
        let old: Vec<u8> = (0..3 * BLOCK + 10).map(|i| b'a' + (i % 26) as u8).collect();
        let mut new = old.clone();
        new.iter_mut().for_each(|b| *b = b.to_ascii_uppercase());
        // Killed after one block: new block, then old blocks.
        let torn = [&new[..BLOCK], &old[BLOCK..]].concat();
        assert!(mix(&torn, &old, &new));
        // Blocks flushed out of order (a power loss).
        let torn = [&old[..BLOCK], &new[BLOCK..2 * BLOCK], &old[2 * BLOCK..]].concat();
        assert!(mix(&torn, &old, &new));
        // A growing write: new content, longer than old, written in part.
        let longer = [new.as_slice(), &new[..2 * BLOCK]].concat();
        let grown = [&longer[..4 * BLOCK]].concat();
        assert!(mix(&grown, &old, &longer));
        // A shrinking write, before the cut: new content, then old's tail.
        let shorter = &new[..BLOCK + 100];
        let uncut = [shorter, &old[BLOCK + 100..]].concat();
        assert!(mix(&uncut, &old, shorter));
        // Someone else's bytes in one block; another length; empty.
        let mut other = torn.clone();
        other[5] = b'#';
        assert!(!mix(&other, &old, &new));
        assert!(!mix(&old[..old.len() - 1], &old, &new));
        assert!(!mix(b"", &old, &new));
        assert!(!mix(b"unrelated 17 bytes", &old, &new));
        // A small file rewritten by hand is never a mix of ours.
        assert!(!mix(b"hello world", b"hello there", b"HELLO THERE"));
    }
}
