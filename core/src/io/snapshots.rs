//! What a read with anchors showed, kept so that an edit naming lines by
//! those anchors can be checked against it (see `matching::anchors`).
//!
//! A snapshot is the file's identity (its real absolute path: an atomic
//! write gives the file a new inode, so the path is what stays), the
//! sha256 of the bytes read, and a 64-bit key per line (not the text: the
//! relocation compares keys only). It is kept in this process and in the
//! private state (`anchors/` beneath the per-user state directory, reached
//! only through [`Private`]: owner-checked, no link followed, files 0600),
//! so that another process of the same user (a second MCP server, the CLI)
//! can check an edit against a read it did not make.
//!
//! The disk is off the read's path: a thread of its own writes each
//! snapshot a few milliseconds after the read (a burst of reads in one go;
//! the process waits for it at exit), in place into one of [`SLOTS`] files
//! of the path, unsynced. A snapshot on disk is a hint,
//! never trusted blindly: it is used only when it reads back whole (its
//! trailing sha256 covers every byte before it), its path is the one asked
//! for, and it has not expired; a lost, torn or half-written one is no
//! snapshot (the edit is then checked at line numbers only, and says so),
//! never a wrong one.
//!
//! The store is bounded and expiring: at most [`MAX_KEPT`] snapshots of
//! at most [`MAX_BYTES`] in all on each side (on disk, checked every eighth
//! store, so a few more may sit there between two checks), each read for
//! [`TTL`].
//!
//! A read of a file over [`MAX_LINES`] lines is not kept (its keys alone
//! would be 8 MiB a read), and it leaves a mark ([`mark_too_large`]): the
//! reads of that file kept before it are no longer used, here or in another
//! process, for as long as they could be. An anchor names no read, so
//! without the mark the anchor of the read not kept would be judged against
//! an older read that showed a line with the same number and ID (a `}`) and
//! moved through the diff onto the line that read's line became. Its
//! anchors are then checked at their line numbers, and the read and the
//! edit say so.

use std::collections::VecDeque;
use std::ffi::OsStr;
use std::io::{Read as _, Write};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use sha2::{Digest, Sha256};

use crate::io::state::Private;

/// How long a snapshot is kept.
pub(crate) const TTL: Duration = Duration::from_secs(3600);
/// Most snapshots kept (in the process, and on disk): enough for a
/// session that reads a few hundred files with anchors before editing the
/// first again (at 64, reading 64 others put an edit of it back on line
/// numbers, where a shifted `}` takes another's place).
pub(crate) const MAX_KEPT: usize = 1024;
/// Most contents of one file kept in the process (on disk, [`SLOTS`]).
pub(crate) const PER_PATH: usize = 8;
/// Most bytes of snapshots kept (in the process, and on disk).
pub(crate) const MAX_BYTES: usize = 64 << 20;
/// Lines above which a file's snapshot is not kept.
pub(crate) const MAX_LINES: usize = 1 << 20;

/// Lines above which a file's read is not kept: [`MAX_LINES`]. A test may
/// lower it on its own thread ([`limit::set`]), so that a file that large
/// is a few lines, not a million.
pub(crate) fn max_lines() -> usize {
    #[cfg(test)]
    if let Some(n) = limit::get() {
        return n;
    }
    MAX_LINES
}

/// [`max_lines`] lowered on the calling thread (tests).
#[cfg(test)]
pub(crate) mod limit {
    use std::cell::Cell;

    thread_local! {
        static LIMIT: Cell<Option<usize>> = const { Cell::new(None) };
    }

    /// Lowers (or with `None` restores) [`super::max_lines`] on this thread.
    pub(crate) fn set(n: Option<usize>) {
        LIMIT.with(|l| l.set(n));
    }

    pub(super) fn get() -> Option<usize> {
        LIMIT.with(Cell::get)
    }
}

/// What a mark ([`mark_too_large`]) carries instead of a content's sha256
/// (no sha256 is spelled so).
const TOO_LARGE: &str = "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz";

const MAGIC: &[u8; 8] = b"PFTANCH2";
const SUBDIR: &str = "anchors";

/// What one read with anchors showed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Snapshot {
    /// The file's real absolute path.
    pub(crate) path: String,
    /// sha256 (hex) of the bytes read.
    pub(crate) sha256: String,
    /// One key per line (`matching::anchors::line_key`).
    pub(crate) keys: Arc<Vec<u64>>,
    /// Seconds since the epoch when it was last taken.
    pub(crate) taken: u64,
    /// The lines the reads of this content showed, 0-based `from..to`,
    /// each with when the newest of them that showed it was made (a stamp:
    /// nanoseconds since the epoch, above every stamp this process gave
    /// before): disjoint ranges in line order ([`normalized`]), at most one
    /// a line, so every line a kept read showed stays (a bound on the reads
    /// lost the first pages of a file read in more than 32, whose anchors
    /// were then checked at line numbers). A read of part of the file keeps
    /// every line's key, but only what it showed can have given the caller
    /// an anchor, and a newer read that showed a line is the caller's view
    /// of it.
    pub(crate) shown: Vec<(u64, u64, u64)>,
}

/// What one read with anchors showed: lines `shown` (0-based `from..to`
/// ranges: one for `readFile`, one per refused anchor for a refusal that
/// shows the lines around each) of the content `sha256` of the file `path`.
pub(crate) struct Read<'a> {
    pub(crate) path: &'a str,
    pub(crate) sha256: &'a str,
    pub(crate) shown: &'a [(u64, u64)],
}

impl Snapshot {
    fn weight(&self) -> usize {
        self.keys.len() * 8 + self.shown.len() * 24 + self.path.len() + 128
    }

    /// The stamp of its newest read.
    pub(crate) fn newest(&self) -> u64 {
        self.shown.iter().map(|s| s.2).max().unwrap_or(0)
    }

    fn fresh(&self, now: u64) -> bool {
        self.taken <= now + 60 && now < self.taken.saturating_add(TTL.as_secs())
    }

    /// Its bytes on disk: magic, time, path, sha256, keys, the reads'
    /// lines and stamps, then the sha256 of all of that.
    fn encode(&self) -> Vec<u8> {
        let mut b = Vec::with_capacity(self.weight());
        b.extend_from_slice(MAGIC);
        b.extend_from_slice(&self.taken.to_le_bytes());
        b.extend_from_slice(&(self.path.len() as u32).to_le_bytes());
        b.extend_from_slice(self.path.as_bytes());
        b.extend_from_slice(self.sha256.as_bytes());
        b.extend_from_slice(&(self.keys.len() as u64).to_le_bytes());
        for k in self.keys.iter() {
            b.extend_from_slice(&k.to_le_bytes());
        }
        b.extend_from_slice(&(self.shown.len() as u64).to_le_bytes());
        for &(from, to, stamp) in &self.shown {
            for n in [from, to, stamp] {
                b.extend_from_slice(&n.to_le_bytes());
            }
        }
        let sum = Sha256::digest(&b);
        b.extend_from_slice(&sum);
        b
    }

    /// Reads back what [`Snapshot::encode`] wrote; `None` for anything else.
    fn decode(b: &[u8]) -> Option<Snapshot> {
        let body_len = b.len().checked_sub(32)?;
        let (body, sum) = b.split_at(body_len);
        if Sha256::digest(body).as_slice() != sum {
            return None;
        }
        let (taken, path, sha256, mut at) = head(body)?;
        let (path, sha256) = (
            String::from_utf8(path.to_vec()).ok()?,
            String::from_utf8(sha256.to_vec()).ok()?,
        );
        let mut take = |n: usize| -> Option<&[u8]> {
            let s = body.get(at..at.checked_add(n)?)?;
            at += n;
            Some(s)
        };
        let u64_at = |b: &[u8]| u64::from_le_bytes(b.try_into().expect("8 bytes"));
        let n = usize::try_from(u64_at(take(8)?)).ok()?;
        if n > MAX_LINES {
            return None;
        }
        let keys: Arc<Vec<u64>> = Arc::new(
            take(n.checked_mul(8)?)?
                .chunks_exact(8)
                .map(u64_at)
                .collect(),
        );
        let reads = usize::try_from(u64_at(take(8)?)).ok()?;
        let shown = take(reads.checked_mul(24)?)?
            .chunks_exact(24)
            .map(|c| (u64_at(&c[..8]), u64_at(&c[8..16]), u64_at(&c[16..])))
            .collect();
        (at == body.len()).then_some(Snapshot {
            path,
            sha256,
            keys,
            taken,
            shown,
        })
    }
}

/// The head of an encoded snapshot (what [`Snapshot::encode`] writes
/// first): when it was taken, its path, its content's sha256 (hex), and
/// where the rest starts; `None` when the bytes are no such head.
fn head(b: &[u8]) -> Option<(u64, &[u8], &[u8], usize)> {
    let rest = b.strip_prefix(MAGIC)?;
    let taken = u64::from_le_bytes(rest.get(..8)?.try_into().ok()?);
    let plen = u32::from_le_bytes(rest.get(8..12)?.try_into().ok()?) as usize;
    let path = rest.get(12..12usize.checked_add(plen)?)?;
    let sha256 = rest.get(12 + plen..12 + plen + 64)?;
    Some((taken, path, sha256, MAGIC.len() + 12 + plen + 64))
}

/// Seconds since the epoch.
pub(crate) fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// Nanoseconds since the epoch (the clock of the reads' stamps).
fn now_ns() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
}

/// Whether a read stamped `stamp` is still kept at `ns` ([`TTL`] from it).
fn alive(stamp: u64, ns: u64) -> bool {
    stamp.saturating_add(TTL.as_nanos() as u64) > ns
}

fn memory() -> &'static Mutex<VecDeque<Arc<Snapshot>>> {
    static M: OnceLock<Mutex<VecDeque<Arc<Snapshot>>>> = OnceLock::new();
    M.get_or_init(Default::default)
}

/// The marks of this process ([`mark_too_large`]): a path, and the stamp
/// of its read not kept.
fn marks() -> std::sync::MutexGuard<'static, Vec<(String, u64)>> {
    static M: OnceLock<Mutex<Vec<(String, u64)>>> = OnceLock::new();
    M.get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner())
}

/// The file-name prefix of a path's snapshots.
fn prefix(path: &str) -> String {
    let h = Sha256::digest(path.as_bytes());
    // data: the path's hash as hex, the snapshots' file-name prefix
    h[..8].iter().map(|b| format!("{b:02x}")).collect()
}

/// The slots of one path on disk, each rewritten in place, so that reading
/// a file that keeps changing creates no new files (creating a file, on
/// ext4 after many removals, can cost more than the read itself). A
/// snapshot goes to the slot that holds its content, else to an empty one,
/// else to the one written longest ago ([`slot_for`]): the last [`SLOTS`]
/// contents read stay. (A slot chosen by the content's hash let a read of a
/// third content take the place of the latest read while an older one
/// stayed, and an edit from the latest read was then judged against the
/// older one: its `}` placed on another `}`.)
const SLOTS: u32 = 4;

fn slot_name(path: &str, slot: u32) -> String {
    // data: a snapshot slot's file name, `<prefix>-<slot>`
    format!("{}-{slot}", prefix(path))
}

/// The slot file `snap` is written to in `d`: the one that holds its
/// content, else an empty one, else the one written longest ago.
fn slot_for(d: &Private, snap: &Snapshot) -> String {
    let slots: Vec<(String, Option<i128>)> = (0..SLOTS)
        .map(|slot| {
            let name = slot_name(&snap.path, slot);
            let at = d.dir().stat(OsStr::new(&name)).ok().flatten();
            (name, at.map(|m| m.mtime_ns))
        })
        .collect();
    if let Some((name, _)) = slots
        .iter()
        .find(|(name, at)| at.is_some() && holds(d, name, snap))
    {
        return name.clone();
    }
    slots
        .into_iter()
        .min_by_key(|(_, at)| at.unwrap_or(i128::MIN))
        .map(|(name, _)| name)
        .expect("SLOTS > 0")
}

/// Whether slot file `name` holds a snapshot of `snap`'s path and content,
/// by its head alone (unchecked: it only chooses the slot; what is read
/// back is checked whole).
fn holds(d: &Private, name: &str, snap: &Snapshot) -> bool {
    let Ok(Some((f, _))) = d.open_read(OsStr::new(name)) else {
        return false;
    };
    let want = MAGIC.len() + 8 + 4 + snap.path.len() + 64;
    let mut b = Vec::with_capacity(want);
    if f.take(want as u64).read_to_end(&mut b).is_err() {
        return false;
    }
    head(&b).is_some_and(|(_, path, sha256, _)| {
        path == snap.path.as_bytes() && sha256 == snap.sha256.as_bytes()
    })
}

/// The snapshot this process keeps of the content `sha256` of the file
/// `path`. Its keys are those of the same bytes: a read again need not hash
/// its lines again.
pub(crate) fn recent(path: &str, sha256: &str) -> Option<Arc<Snapshot>> {
    let t = now();
    let m = memory().lock().unwrap_or_else(|p| p.into_inner());
    m.iter()
        .rev()
        .find(|s| s.path == path && s.sha256 == sha256 && s.fresh(t))
        .cloned()
}

/// The next order stamp: nanoseconds since the epoch, above every stamp
/// this process gave before.
fn next_order() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
    static LAST: AtomicU64 = AtomicU64::new(0);
    let now = now_ns();
    let mut prev = LAST.load(Relaxed);
    loop {
        let next = now.max(prev + 1);
        match LAST.compare_exchange(prev, next, Relaxed, Relaxed) {
            Ok(_) => return next,
            Err(p) => prev = p,
        }
    }
}

/// Keeps `read`, the newest read of its file: `keys`, its lines' keys, or
/// `None` when this process keeps the same content already (its keys are
/// shared). The lines it showed are added to those of earlier reads of the
/// same content, with a new stamp. It is kept in this process at once, and
/// written to disk by a thread of its own ([`flush`] waits for it), so that
/// the read does not wait on the disk. A failure to keep it on disk is not
/// an error: the snapshot is still kept in this process, and another
/// process then finds none (its edit is checked at line numbers only, and
/// says so). `false`: not kept (no keys, or over [`max_lines`]: then the
/// file is marked, [`mark_too_large`]). The same read again within
/// [`QUIET`] of the newest kept content keeps nothing new.
pub(crate) fn keep(read: &Read<'_>, keys: Option<Vec<u64>>) -> bool {
    let t = now();
    if keys.as_ref().is_some_and(|k| k.len() > max_lines()) {
        mark_too_large(read.path, t);
        return false;
    }
    let snap = {
        let mut m = memory().lock().unwrap_or_else(|p| p.into_inner());
        let of_path = |s: &&Arc<Snapshot>| s.path == read.path && s.fresh(t);
        let same = m.iter().find(|s| of_path(s) && s.sha256 == read.sha256);
        let keys: Arc<Vec<u64>> = match (keys, same) {
            (Some(k), _) => Arc::new(k),
            (None, Some(s)) => Arc::clone(&s.keys),
            (None, None) => return false,
        };
        let stamp = next_order();
        let same_lines = |s: &Snapshot| match read.shown {
            [one] => s.shown.iter().position(|x| (x.0, x.1) == *one),
            _ => None,
        };
        // The same lines of the newest content read again just now: the
        // view is what it was, nothing to keep anew.
        let again = same.and_then(|s| Some((s, same_lines(s)?)));
        if again.is_some_and(|(s, i)| {
            stamp.saturating_sub(s.shown[i].2) < QUIET.as_nanos() as u64
                && m.iter().filter(of_path).all(|o| o.newest() <= s.newest())
        }) {
            return true;
        }
        // The lines shown before, this read's over them.
        let before = same.map_or(&[][..], |s| &s.shown[..]).iter().copied();
        let new = read.shown.iter().map(|&(from, to)| (from, to, stamp));
        let shown = normalized(before.chain(new), expired(stamp));
        let snap = Arc::new(Snapshot {
            path: read.path.to_string(),
            sha256: read.sha256.to_string(),
            keys,
            taken: t,
            shown,
        });
        store(&mut m, Arc::clone(&snap), t);
        snap
    };
    writer::send(snap);
    true
}

/// Stamps at or below this one, at `ns`, are of reads kept no longer.
fn expired(ns: u64) -> u64 {
    ns.saturating_sub(TTL.as_nanos() as u64)
}

/// The lines shown by `ranges` (0-based `from..to`, each with its read's
/// stamp; any order, overlapping or not), each with the newest stamp of a
/// read that showed it: as few disjoint ranges as that takes, in line
/// order, none stamped `since` or before. A read that showed no line (an
/// offset past the end) stays, after them, when it is the newest: a newer
/// read of the content is looked for in every read of the file
/// (`line_edits`).
fn normalized(
    ranges: impl IntoIterator<Item = (u64, u64, u64)>,
    since: u64,
) -> Vec<(u64, u64, u64)> {
    // Each range's start and end, then a sweep over the lines: at each
    // edge, the newest stamp of the ranges open there.
    let mut edges: Vec<(u64, bool, u64)> = Vec::new();
    let mut none: Option<(u64, u64, u64)> = None;
    for r in ranges.into_iter().filter(|r| r.2 > since) {
        if r.0 < r.1 {
            edges.extend([(r.0, true, r.2), (r.1, false, r.2)]);
        } else if none.is_none_or(|n| n.2 < r.2) {
            none = Some(r);
        }
    }
    edges.sort_unstable();
    let mut open: std::collections::BTreeMap<u64, usize> = Default::default();
    let mut out: Vec<(u64, u64, u64)> = Vec::new();
    let mut k = 0;
    while let Some(&(at, _, _)) = edges.get(k) {
        while let Some(&(_, starts, stamp)) = edges.get(k).filter(|e| e.0 == at) {
            let n = open.entry(stamp).or_default();
            match starts {
                true => *n += 1,
                false if *n > 1 => *n -= 1,
                false => {
                    open.remove(&stamp);
                }
            }
            k += 1;
        }
        let (Some((&stamp, _)), Some(&(to, _, _))) = (open.last_key_value(), edges.get(k)) else {
            continue;
        };
        match out.last_mut() {
            Some(last) if last.1 == at && last.2 == stamp => last.1 = to,
            _ => out.push((at, to, stamp)),
        }
    }
    out.extend(none.filter(|n| out.iter().all(|r| r.2 < n.2)));
    out
}

/// Marks the reads of `path` kept so far as not to be used: a read of it
/// could not be kept (over [`max_lines`] lines), and an anchor that read
/// gave, judged against an older read that showed a line with the same
/// number and ID, would be moved through the diff onto the line that
/// read's line became (or refused `changed` for good, where the line is
/// unique). The file's snapshots in this process go; the mark, stamped
/// after every read before it, is kept here and on disk ([`mark_on_disk`]),
/// where another process finds it ([`of`] leaves out every read older than
/// a mark). A mark lasts [`TTL`] from its stamp, as long as any read before
/// it ([`of`] leaves out a read older than that too).
fn mark_too_large(path: &str, t: u64) {
    let stamp = {
        let mut m = memory().lock().unwrap_or_else(|p| p.into_inner());
        m.retain(|s| s.path != path);
        // Stamped under the store's lock: no read of the file is kept
        // between the drop above and the mark.
        let stamp = next_order();
        let mut marks = marks();
        marks.retain(|(p, s)| p != path && alive(*s, stamp));
        if marks.len() >= MAX_KEPT {
            marks.remove(0);
        }
        marks.push((path.to_string(), stamp));
        stamp
    };
    writer::send(Arc::new(Snapshot {
        path: path.to_string(),
        sha256: TOO_LARGE.to_string(),
        keys: Arc::new(Vec::new()),
        taken: t,
        shown: vec![(0, 0, stamp)],
    }));
}

/// The stamp of the newest mark of `path` ([`mark_too_large`]) still in
/// force at `ns`, this process's or one on disk.
fn marked(path: &str, ns: u64) -> Option<u64> {
    let here = marks()
        .iter()
        .filter(|(p, s)| p == path && alive(*s, ns))
        .map(|m| m.1)
        .max();
    let there = dir(false)
        .ok()
        .and_then(|d| {
            let (mut f, meta) = d.open_read(OsStr::new(&mark_name(path))).ok()??;
            read_back(&mut f, meta.size, path)
        })
        .filter(|m| m.path == path && m.sha256 == TOO_LARGE)
        .map(|m| m.newest())
        .filter(|&s| alive(s, ns));
    here.max(there)
}

/// The file name of a path's mark on disk, `<prefix>-large`.
fn mark_name(path: &str) -> String {
    // data: a mark's file name
    format!("{}-large", prefix(path))
}

/// Puts `snap` in this process's store in place of a snapshot of the same
/// file and content, within the bounds (the oldest go first; of one file,
/// the [`PER_PATH`] newest contents: a file rewritten and read again and
/// again would fill the store with its past).
fn store(m: &mut VecDeque<Arc<Snapshot>>, snap: Arc<Snapshot>, t: u64) {
    // The file's other contents kept, the oldest dropped while there are
    // as many as the bound (this one is the newest).
    let other = |s: &Snapshot| s.path == snap.path && s.sha256 != snap.sha256;
    let mut others = m.iter().filter(|s| other(s)).count();
    m.retain(|s| {
        if s.path == snap.path && s.sha256 == snap.sha256 {
            return false;
        }
        let drop = !s.fresh(t) || (other(s) && others >= PER_PATH);
        if other(s) && drop {
            others -= 1;
        }
        !drop
    });
    m.push_back(snap);
    let mut total: usize = m.iter().map(|s| s.weight()).sum();
    while m.len() > MAX_KEPT || total > MAX_BYTES {
        match m.pop_front() {
            Some(old) => total -= old.weight(),
            None => break,
        }
    }
}

/// Keeps `snap` as it is (tests: a snapshot of a given age).
#[cfg(test)]
fn keep_as(snap: Snapshot) -> bool {
    let snap = Arc::new(snap);
    store(
        &mut memory().lock().unwrap_or_else(|p| p.into_inner()),
        Arc::clone(&snap),
        now(),
    );
    writer::send(snap);
    true
}

/// Writes snapshots to disk (on the writer thread, or on the thread that
/// flushes), oldest first; of several that go to one file, the newest.
/// `create`: the state directory is created when missing (else, as when
/// flushing at exit, a state directory that is gone stays gone: a caller
/// that removes its own at exit is not given a new one behind its back).
fn write_all(snaps: &[Arc<Snapshot>], create: bool) {
    if snaps.is_empty() {
        return;
    }
    let Ok(d) = Private::state(create).and_then(|p| p.subdir(OsStr::new(SUBDIR), true)) else {
        return;
    };
    for (i, snap) in snaps.iter().enumerate() {
        let same = |s: &Arc<Snapshot>| s.path == snap.path && s.sha256 == snap.sha256;
        if snaps[i + 1..].iter().any(same) {
            continue;
        }
        if snap.sha256 == TOO_LARGE {
            let _ = mark_on_disk(&d, snap);
            continue;
        }
        let _ = keep_on_disk(&d, &slot_for(&d, snap), snap, now());
    }
}

/// `snap` with the reads of `there` (what the file on disk holds) when it
/// is a snapshot of the same path and content still fresh at `t`: another
/// process that read the same bytes showed its caller those lines, and its
/// anchors must still find them. Per line the newest stamp
/// ([`normalized`]).
fn merged(snap: &Snapshot, there: Option<Snapshot>, t: u64) -> Option<Snapshot> {
    let there = there.filter(|o| {
        o.path == snap.path && o.sha256 == snap.sha256 && o.keys == snap.keys && o.fresh(t)
    })?;
    let both = snap.shown.iter().chain(&there.shown).copied();
    let shown = normalized(both, expired(now_ns()));
    if shown == snap.shown {
        return None;
    }
    Some(Snapshot {
        shown,
        ..Snapshot::clone(snap)
    })
}

/// The thread that writes snapshots to disk, off the read's path.
///
/// Snapshots wait in a bounded queue (the oldest are dropped beyond
/// [`MAX_KEPT`]: a snapshot missing on disk only means another process
/// checks that read's anchors at line numbers); once woken, the writer
/// lets [`SETTLE`](writer::SETTLE) pass, then writes all that waits.
/// [`flush`] writes what still waits on the calling thread and waits for
/// what the writer is writing; the process calls it at exit (`atexit`), so a short-lived process (the
/// CLI's `read --anchors`) leaves its snapshot behind for the next one.
mod writer {
    use std::collections::VecDeque;
    use std::sync::{Condvar, Mutex, MutexGuard, OnceLock};
    use std::time::{Duration, Instant};

    use super::{write_all, Private, Snapshot, MAX_KEPT};
    use std::sync::Arc;

    /// How long the writer waits once woken, so that the read that woke it
    /// answers first and a burst of reads is written in one go.
    pub(super) const SETTLE: Duration = Duration::from_millis(5);

    #[derive(Default)]
    struct Queue {
        waiting: VecDeque<Arc<Snapshot>>,
        /// The writer thread is writing one.
        busy: bool,
        /// The writer thread waits to be woken (else it is settling or
        /// writing, and takes what waits when it is done: a read need not
        /// pay for a futex wake, a system call, each time).
        idle: bool,
    }

    fn queue() -> &'static (Mutex<Queue>, Condvar) {
        static Q: OnceLock<(Mutex<Queue>, Condvar)> = OnceLock::new();
        Q.get_or_init(Default::default)
    }

    fn lock() -> MutexGuard<'static, Queue> {
        queue().0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Whether the writer thread runs (started on first use; `false` when
    /// it could not be started: snapshots are then written by the caller).
    fn started() -> bool {
        static STARTED: OnceLock<bool> = OnceLock::new();
        *STARTED.get_or_init(|| {
            // The state directory exists from the first snapshot on, so
            // that the flush at exit (which creates none) has one even in
            // a process that exits at once (the CLI's `read --anchors`).
            let _ = Private::state(true);
            let spawned = std::thread::Builder::new()
                .name("patch-file-tool-snapshots".into())
                .spawn(run)
                .is_ok();
            if spawned {
                at_exit::register();
            }
            spawned
        })
    }

    /// Queues `snap` for the disk.
    pub(super) fn send(snap: Arc<Snapshot>) {
        if !started() {
            write_all(&[snap], true);
            return;
        }
        let mut q = lock();
        q.waiting.push_back(snap);
        while q.waiting.len() > MAX_KEPT {
            q.waiting.pop_front();
        }
        let wake = q.idle;
        drop(q);
        if wake {
            queue().1.notify_all();
        }
    }

    fn run() {
        let (_, cv) = queue();
        loop {
            {
                let mut q = lock();
                while q.waiting.is_empty() {
                    q.idle = true;
                    q = cv.wait(q).unwrap_or_else(|p| p.into_inner());
                }
                q.idle = false;
            }
            std::thread::sleep(SETTLE);
            let snaps: Vec<Arc<Snapshot>> = {
                let mut q = lock();
                q.busy = true;
                q.waiting.drain(..).collect()
            };
            // Into the state directory made when the writer started, never
            // a new one: a process that removes its own at exit (between
            // the drain above and this write) is not given it back.
            write_all(&snaps, false);
            lock().busy = false;
            cv.notify_all();
        }
    }

    /// Writes every snapshot still waiting (into a state directory that
    /// exists), then waits (at most `limit`)
    /// for the one the writer thread is writing.
    pub(crate) fn flush(limit: Duration) {
        let (_, cv) = queue();
        let waiting: Vec<Arc<Snapshot>> = lock().waiting.drain(..).collect();
        write_all(&waiting, false);
        let until = Instant::now() + limit;
        let mut q = lock();
        while q.busy {
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return;
            }
            q = cv
                .wait_timeout(q, left)
                .map(|(q, _)| q)
                .unwrap_or_else(|p| p.into_inner().0);
        }
    }

    /// The process's exit writes the snapshots still waiting.
    mod at_exit {
        use std::time::Duration;

        extern "C" {
            fn atexit(callback: extern "C" fn()) -> std::ffi::c_int;
        }

        extern "C" fn flush_at_exit() {
            super::flush(Duration::from_millis(500));
        }

        pub(super) fn register() {
            // SAFETY: `atexit` is the C library's, given a function that
            // lives as long as the process (this library is never
            // unloaded before exit) and does not unwind (`flush` does not
            // panic: every lock it takes tolerates poisoning).
            unsafe {
                atexit(flush_at_exit);
            }
        }
    }
}

#[cfg(test)]
pub(crate) use writer::flush;

/// Within this time, the same read again of the newest kept content keeps
/// nothing new.
const QUIET: Duration = Duration::from_secs(1);

fn dir(create: bool) -> std::io::Result<Private> {
    Private::state(create)?.subdir(OsStr::new(SUBDIR), create)
}

/// How long the writer waits for a slot another process is writing.
const SLOT_WAIT: Duration = Duration::from_millis(200);

/// Writes `snap` over the file `name` in place, with the reads the file
/// holds of the same content ([`merged`]). A reader that meets it half
/// written finds a sum that does not match and ignores it, as it does a
/// file a crash cut short (the writes are not synced: a snapshot is a hint,
/// checked when used). Two processes never write one at once: the writer
/// holds an exclusive `flock`, waits [`SLOT_WAIT`] for another holder, and
/// skips the write when it holds on.
fn keep_on_disk(d: &Private, name: &str, snap: &Snapshot, t: u64) -> std::io::Result<()> {
    static STORES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let (mut f, meta) = d.open_rw(OsStr::new(name), true)?;
    // Another process writing this slot: wait a little for it (this thread
    // is off every read's path), then merge with what it wrote; a slot held
    // longer is left to it.
    if !held(&f) {
        return Ok(());
    }
    let there = read_back(&mut f, meta.size, &snap.path);
    let bytes = merged(snap, there, t).map_or_else(|| snap.encode(), |m| m.encode());
    write_over(&mut f, &bytes)?;
    drop(f);
    // The bounds are kept every few stores (each lists the directory).
    if STORES
        .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        .is_multiple_of(8)
    {
        prune(d, t);
    }
    Ok(())
}

/// Whether this thread holds `f`'s exclusive lock, taken at once or after
/// waiting up to [`SLOT_WAIT`] for another process that holds it.
fn held(f: &std::fs::File) -> bool {
    use crate::io::dir::Dir;
    Dir::try_lock(f) != Some(false) || Dir::lock_exclusive(f, SLOT_WAIT).unwrap_or(false)
}

/// Writes `bytes` over the whole of `f`, in place.
fn write_over(f: &mut std::fs::File, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::{Seek, SeekFrom};
    f.seek(SeekFrom::Start(0))?;
    f.write_all(bytes)?;
    f.set_len(bytes.len() as u64)
}

/// Writes `mark` ([`mark_too_large`]) over its file's mark on disk, unless
/// that one is newer, then removes the file's slots whose reads are all
/// older than it: they are not used any more, and with them gone a mark
/// lost later (a torn write) leaves none of them to judge an anchor.
fn mark_on_disk(d: &Private, mark: &Snapshot) -> std::io::Result<()> {
    let (mut f, meta) = d.open_rw(OsStr::new(&mark_name(&mark.path)), true)?;
    if !held(&f) {
        return Ok(());
    }
    let newer = read_back(&mut f, meta.size, &mark.path)
        .is_some_and(|m| m.sha256 == TOO_LARGE && m.newest() >= mark.newest());
    if !newer {
        write_over(&mut f, &mark.encode())?;
    }
    drop(f);
    for slot in 0..SLOTS {
        let name = slot_name(&mark.path, slot);
        let Ok((mut f, meta)) = d.open_rw(OsStr::new(&name), false) else {
            continue;
        };
        // A slot another process is writing is left to it: [`of`] leaves
        // out the older reads it holds.
        if held(&f)
            && read_back(&mut f, meta.size, &mark.path).is_none_or(|s| s.newest() < mark.newest())
        {
            let _ = d.remove_own(OsStr::new(&name));
        }
    }
    Ok(())
}

/// Removes expired snapshots, then the oldest beyond the bounds.
fn prune(d: &Private, t: u64) {
    let Ok(names) = d.dir().entries() else { return };
    let mut files: Vec<(i128, u64, std::ffi::OsString)> = Vec::new();
    for n in names {
        let Ok(Some(m)) = d.dir().stat(&n) else {
            continue;
        };
        // A mark is written after its stamp: it outlives, by a second or
        // two, every read older than it, and it is not dropped for the
        // bounds (it lasts as long as those reads could).
        let mark = n.to_str().is_some_and(|n| n.ends_with("-large"));
        let secs = u64::try_from(m.mtime_ns / 1_000_000_000).unwrap_or(0);
        if secs.saturating_add(TTL.as_secs() + 2 * u64::from(mark)) <= t {
            let _ = d.remove_own(&n);
            continue;
        }
        if !mark {
            files.push((m.mtime_ns, m.size, n));
        }
    }
    files.sort();
    let mut total: u64 = files.iter().map(|f| f.1).sum();
    let mut count = files.len();
    for (_, size, n) in files {
        if count <= MAX_KEPT && total <= MAX_BYTES as u64 {
            break;
        }
        let _ = d.remove_own(&n);
        count -= 1;
        total = total.saturating_sub(size);
    }
}

/// The reads with anchors of one file still kept.
pub(crate) struct Kept {
    /// Its snapshots, newest read first, each with the reads of it still
    /// kept.
    pub(crate) reads: Vec<Arc<Snapshot>>,
    /// A read of the file could not be kept (over [`max_lines`] lines) in
    /// the last [`TTL`]: no read before it is in `reads`.
    pub(crate) too_large: bool,
}

/// The reads of `path` still kept ([`Kept`]): this process's, and those on
/// disk that it does not hold; none older than [`TTL`] or than a mark of
/// the file ([`mark_too_large`]).
pub(crate) fn of(path: &str) -> Kept {
    let ns = now_ns();
    let mark = marked(path, ns);
    let since = expired(ns).max(mark.unwrap_or(0));
    let mut reads: Vec<Arc<Snapshot>> = snapshots_of(path)
        .into_iter()
        .filter_map(|s| after(s, since))
        .collect();
    reads.sort_by_key(|s| std::cmp::Reverse(s.newest()));
    Kept {
        reads,
        too_large: mark.is_some(),
    }
}

/// `s` with its reads made after `since` only ([`normalized`]); `None`
/// when none is.
fn after(s: Arc<Snapshot>, since: u64) -> Option<Arc<Snapshot>> {
    let shown = normalized(s.shown.iter().copied(), since);
    if shown == s.shown {
        return (!shown.is_empty()).then_some(s);
    }
    (!shown.is_empty()).then(|| {
        Arc::new(Snapshot {
            shown,
            ..Snapshot::clone(&s)
        })
    })
}

/// The snapshots of `path` kept, in this process and on disk (one for a
/// content kept on both sides).
fn snapshots_of(path: &str) -> Vec<Arc<Snapshot>> {
    let t = now();
    let mut out: Vec<Arc<Snapshot>> = {
        let m = memory().lock().unwrap_or_else(|p| p.into_inner());
        m.iter()
            .rev()
            .filter(|s| s.path == path && s.fresh(t))
            .cloned()
            .collect()
    };
    // The same content kept here and on disk (read by this process and by
    // another): one snapshot with the reads of both.
    for s in on_disk(path, t) {
        match out.iter_mut().find(|o| o.sha256 == s.sha256) {
            Some(o) => {
                let both = o.shown.iter().chain(&s.shown).copied();
                let shown = normalized(both, 0);
                *o = Arc::new(Snapshot {
                    shown,
                    ..Snapshot::clone(o)
                });
            }
            None => out.push(Arc::new(s)),
        }
    }
    out
}

fn on_disk(path: &str, t: u64) -> Vec<Snapshot> {
    let Ok(d) = dir(false) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for slot in 0..SLOTS {
        let name = slot_name(path, slot);
        let Ok(Some((mut f, meta))) = d.open_read(OsStr::new(&name)) else {
            continue;
        };
        // A file that does not read back whole may be being written: it is
        // ignored, not removed (expired ones go in `prune`).
        match read_back(&mut f, meta.size, path) {
            Some(snap) if snap.path == path && snap.fresh(t) => out.push(snap),
            _ => {}
        }
    }
    out
}

/// The snapshot a slot file of `size` bytes holds for `path`, if it is no
/// larger than one can be and reads back whole.
fn read_back(f: &mut std::fs::File, size: u64, path: &str) -> Option<Snapshot> {
    // Its keys, and at most one range of 24 bytes a line.
    if size > (MAX_LINES as u64) * 32 + 4096 + path.len() as u64 {
        return None;
    }
    let mut b = Vec::with_capacity(size as usize);
    f.read_to_end(&mut b).ok()?;
    Snapshot::decode(&b)
}

/// Forgets the snapshots and marks of this process of the files under
/// `root`, once those waiting are on disk (tests: an edit as another
/// process would see it). Only those: the tests running beside it keep
/// theirs (forgetting all of them had another test's edit fall back to
/// line numbers now and then).
#[cfg(test)]
pub(crate) fn forget_in_process(root: &std::path::Path) {
    flush(std::time::Duration::from_secs(10));
    let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let under = |p: &str| std::path::Path::new(p).starts_with(&root);
    memory()
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .retain(|s| !under(&s.path));
    marks().retain(|(p, _)| !under(p));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snap(path: &str, sha: char, n: usize) -> Snapshot {
        Snapshot {
            path: path.into(),
            sha256: sha.to_string().repeat(64),
            keys: Arc::new((0..n as u64).collect()),
            taken: now(),
            shown: vec![(0, n as u64, next_order())],
        }
    }

    #[test]
    fn a_snapshot_round_trips_and_anything_altered_is_refused() {
        let s = snap("/w/a.txt", 'a', 5);
        let b = s.encode();
        assert_eq!(Snapshot::decode(&b), Some(s));
        for i in [0, 9, 20, b.len() - 40, b.len() - 1] {
            let mut bad = b.clone();
            bad[i] ^= 1;
            assert_eq!(Snapshot::decode(&bad), None, "byte {i}");
        }
        assert_eq!(Snapshot::decode(&b[..b.len() - 1]), None);
        assert_eq!(Snapshot::decode(b""), None);
    }

    /// A snapshot on disk that does not read back whole (torn, or being
    /// written) is not used; the next snapshot of its slot writes over it.
    #[test]
    fn an_altered_file_on_disk_is_ignored_then_written_over() {
        let path = format!("/w/{}/altered.txt", std::process::id());
        let s = snap(&path, 'e', 3);
        assert!(keep_as(s.clone()));
        flush(std::time::Duration::from_secs(10));
        assert_eq!(on_disk(&path, now()), vec![s.clone()]);
        let d = dir(false).unwrap();
        let name = slot_for(&d, &s);
        let (mut f, _) = d.open_rw(OsStr::new(&name), false).unwrap();
        f.write_all(b"X").unwrap();
        drop(f);
        assert!(on_disk(&path, now()).is_empty());
        // A longer snapshot written over a shorter one, and a shorter over a
        // longer: each reads back whole.
        for n in [40, 2] {
            forget_in_process(std::path::Path::new(&path));
            let mut again = snap(&path, 'e', n);
            again.taken = now() - n as u64;
            assert!(keep_as(again.clone()));
            flush(std::time::Duration::from_secs(10));
            assert_eq!(on_disk(&path, now()), vec![again]);
        }
    }

    /// Two processes read the same content, one all of it, one a part: the
    /// second one's snapshot on disk keeps the first one's lines too.
    #[test]
    fn reads_of_one_content_by_two_processes_are_both_kept_on_disk() {
        let path = format!("/w/{}/both.txt", std::process::id());
        let whole = snap(&path, 'f', 6);
        assert!(keep_as(whole.clone()));
        forget_in_process(std::path::Path::new(&path));
        let mut part = whole.clone();
        part.shown = vec![(0, 2, next_order())];
        assert!(keep_as(part.clone()));
        forget_in_process(std::path::Path::new(&path));
        let got = on_disk(&path, now());
        assert_eq!(got.len(), 1, "{got:?}");
        let (w, p) = (whole.shown[0].2, part.shown[0].2);
        assert_eq!(got[0].shown, vec![(0, 2, p), (2, 6, w)]);
        // Another content in the same slot is written over, not merged.
        let mut other = snap(&path, 'f', 6);
        other.keys = Arc::new(vec![9; 6]);
        assert!(keep_as(other.clone()));
        forget_in_process(std::path::Path::new(&path));
        assert_eq!(on_disk(&path, now()), vec![other]);
    }

    /// A slot another process is writing (its lock held for a moment) is
    /// waited for, then written with both reads.
    #[test]
    fn a_slot_held_for_a_moment_is_waited_for() {
        let path = format!("/w/{}/held.txt", std::process::id());
        let whole = snap(&path, 'a', 4);
        assert!(keep_as(whole.clone()));
        forget_in_process(std::path::Path::new(&path));
        let d = dir(false).unwrap();
        let (held, _) = d.open_rw(OsStr::new(&slot_for(&d, &whole)), false).unwrap();
        assert!(crate::io::dir::Dir::lock_exclusive(&held, Duration::from_secs(1)).unwrap());
        let release = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(50));
            drop(held);
        });
        let mut part = whole.clone();
        part.shown = vec![(1, 2, next_order())];
        assert!(keep_as(part.clone()));
        forget_in_process(std::path::Path::new(&path));
        release.join().unwrap();
        let got = on_disk(&path, now());
        assert_eq!(got.len(), 1, "{got:?}");
        let (w, p) = (whole.shown[0].2, part.shown[0].2);
        assert_eq!(got[0].shown, vec![(0, 1, w), (1, 2, p), (2, 4, w)]);
    }

    /// A file rewritten and read again and again keeps its newest
    /// contents only: each read of a new content scanned and kept all the
    /// older ones, up to the store's bound (a first read cost 1.3 times a
    /// plain read instead of 1.17 at 1,024).
    #[test]
    fn the_store_keeps_the_newest_contents_of_a_file_and_the_other_files() {
        let mut m = VecDeque::new();
        let t = now();
        store(&mut m, Arc::new(snap("/w/b.txt", 'b', 1)), t);
        let shas: Vec<char> = "ghijklmnopqrstuvwxyz".chars().collect();
        for &c in &shas {
            store(&mut m, Arc::new(snap("/w/a.txt", c, 2)), t);
        }
        store(&mut m, Arc::new(snap("/w/c.txt", 'c', 1)), t);
        let of_a: Vec<char> = m
            .iter()
            .filter(|s| s.path == "/w/a.txt")
            .map(|s| s.sha256.chars().next().unwrap())
            .collect();
        assert_eq!(of_a, shas[shas.len() - PER_PATH..].to_vec());
        assert_eq!(m.iter().filter(|s| s.path != "/w/a.txt").count(), 2);
        // The same content again takes its old place's slot, not another.
        store(&mut m, Arc::new(snap("/w/a.txt", 'z', 2)), t);
        assert_eq!(m.iter().filter(|s| s.path == "/w/a.txt").count(), PER_PATH);
    }

    /// The lines of a content's reads are kept as disjoint ranges, each
    /// line with its newest read: pages next to each other stay apart
    /// (their reads differ), one read over others takes their lines, an
    /// expired read goes, and a read that showed nothing stays only when
    /// it is the newest.
    #[test]
    fn the_lines_of_reads_are_kept_per_line_with_their_newest_read() {
        let pages: Vec<(u64, u64, u64)> = (0..40).map(|p| (p * 10, p * 10 + 10, 100 + p)).collect();
        assert_eq!(normalized(pages.iter().copied(), 0), pages);
        let mut over = pages.clone();
        over.push((5, 25, 200));
        over.push((0, 3, 50));
        let got = normalized(over.iter().rev().copied(), 0);
        assert_eq!(got[..3], [(0, 5, 100), (5, 25, 200), (25, 30, 102)]);
        assert_eq!(
            got.len(),
            40,
            "page 1 under the new read, pages 0 and 2 cut"
        );
        assert_eq!(
            normalized([(0, 4, 7), (2, 6, 7), (6, 8, 7)], 0),
            [(0, 8, 7)]
        );
        assert_eq!(normalized([(0, 4, 7), (2, 6, 9)], 7), [(2, 6, 9)]);
        assert_eq!(
            normalized([(0, 4, 7), (9, 9, 8)], 0),
            [(0, 4, 7), (9, 9, 8)]
        );
        assert_eq!(normalized([(0, 4, 7), (9, 9, 6)], 0), [(0, 4, 7)]);
        assert_eq!(normalized([(3, 3, 6)], 0), [(3, 3, 6)]);
    }

    /// A mark another process wrote (only on disk) leaves out this
    /// process's reads of the file older than it, not those made after;
    /// a read older than [`TTL`] is left out too, though its content was
    /// read again since.
    #[test]
    fn a_mark_on_disk_leaves_out_the_older_reads_kept_here() {
        let path = format!("/w/{}/marked.txt", std::process::id());
        let old = snap(&path, 'a', 3);
        assert!(keep_as(old.clone()));
        flush(Duration::from_secs(10));
        let mark = Snapshot {
            path: path.clone(),
            sha256: TOO_LARGE.to_string(),
            keys: Arc::new(Vec::new()),
            taken: now(),
            shown: vec![(0, 0, next_order())],
        };
        write_all(&[Arc::new(mark)], true);
        let got = of(&path);
        assert!(got.too_large && got.reads.is_empty(), "{:?}", got.reads);
        let new = snap(&path, 'b', 3);
        assert!(keep_as(new.clone()));
        let got = of(&path);
        assert_eq!(got.reads, vec![Arc::new(new)]);
        // A read of a content more than TTL ago, and one just now.
        let path = format!("{path}.ttl");
        let mut s = snap(&path, 'c', 4);
        s.shown = vec![
            (0, 2, next_order() - TTL.as_nanos() as u64 - 1),
            (2, 4, next_order()),
        ];
        assert!(keep_as(s));
        assert_eq!(of(&path).reads[0].shown.len(), 1);
    }

    #[test]
    fn kept_in_process_and_on_disk_newest_first() {
        let path = format!("/w/{}/kept.txt", std::process::id());
        let mut old = snap(&path, 'b', 3);
        old.taken -= 10;
        assert!(keep_as(old.clone()));
        assert!(keep_as(snap(&path, 'c', 4)));
        let got = of(&path).reads;
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].sha256.as_bytes()[0], b'c');
        // Another process sees them through the private state.
        forget_in_process(std::path::Path::new(&path));
        let got = of(&path).reads;
        assert_eq!(got.len(), 2, "{got:?}");
        assert_eq!(*got[1], old);
        // Expired ones are not used.
        let mut gone = snap(&format!("{path}.2"), 'd', 1);
        gone.taken -= TTL.as_secs() + 1;
        keep_as(gone);
        assert!(of(&format!("{path}.2")).reads.is_empty());
    }
}
