//! The edit journal: every successful write transaction, recorded per
//! workspace outside it, listed by `history` and undone by `undo`
//! (`docs/journal.md` has the whole story).
//!
//! # On disk
//!
//! `<base>/<key>/` where `<base>` is `options.journal`'s directory, else
//! `PATCH_FILE_JOURNAL`'s, else the per-user state directory's `journal/`,
//! and `<key>` the first 32 hex digits of the sha256 of the workspace
//! root's canonical path. Directories are 0700, files 0600. Inside:
//!
//! - `lock`: `flock`ed while an entry is written, the journal evicted or
//!   cleared, so several processes share one journal;
//! - `root`: the workspace root's path, for people (and pruning);
//! - `state`: the next id and the entries' count and bytes (see [`State`]);
//! - `next`: written by a clear, so ids keep counting after it;
//! - `<id:010>-<bytes>.entry`: one transaction: a JSON header line, then
//!   the previous content of its changed files back to back (`blob` in the
//!   header is each file's `[offset, length]` after the header line,
//!   `body_bytes` their sum).
//!
//! # Crash safety
//!
//! An entry is recorded *after* its commit succeeded, while the
//! transaction's files are still locked by this process, written once
//! under its final name. A reader acts only on a whole entry (its header
//! line parses and the file is exactly as long as the header says; one cut
//! short by a crash is skipped), and every entry describes a commit that
//! completed: its "after" hashes
//! were on disk when it was written. A crash between the commit and the
//! record loses only that history line, never a file.
//!
//! Entries are not fsync'd (two more flushes per edit would triple the cost
//! of a small durable edit); a power loss may therefore drop the newest
//! entries or leave one damaged. Neither is ever acted on: an entry whose
//! length is not its header's is not listed, and undo checks each saved
//! content against its recorded sha256 before writing. Undo never trusts an
//! entry alone either: it rereads each file under the pipeline's locks and
//! acts only when every file still has the sha256 the transaction wrote.

use std::fs::{self, File, OpenOptions};
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom, Write as _};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::{json, Map, Value};

use super::{preview, put_all_preview, put_preview, Added, Kept, Txn, Write};
use crate::error::{fail_value, ErrorCode, Failure};
use crate::io::dir::Dir;
use crate::io::state::state_path;
use crate::io::workspace::{Intent, Workspace};
use crate::model::{JournalConfig, Options};
use crate::text::source::{sha256_hex, Source};

/// How long a writer waits for another process's journal lock.
pub const LOCK_WAIT: Duration = Duration::from_secs(10);

/// What an undo transaction records about the transaction it undoes.
#[derive(Debug, Clone)]
pub struct UndoOf {
    pub id: u64,
    /// 1 for an undo, 2 for a redo (an undo of an undo), and so on.
    pub depth: u64,
}

/// The journal directory of the workspace at `root` (not created).
pub fn dir_for(cfg: &JournalConfig, root: &Path) -> Option<PathBuf> {
    let base = match &cfg.dir {
        Some(d) => d.clone(),
        None => state_path()?.join("journal"),
    };
    Some(base.join(key(root)))
}

/// The key of a workspace: its root's path, hashed.
fn key(root: &Path) -> String {
    #[cfg(unix)]
    let bytes = {
        use std::os::unix::ffi::OsStrExt;
        root.as_os_str().as_bytes().to_vec()
    };
    #[cfg(not(unix))]
    let bytes = root.to_string_lossy().into_owned().into_bytes();
    sha256_hex([bytes.as_slice()])[..32].to_string()
}

fn private_dir(p: &Path) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
        fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(p)?;
        let m = fs::metadata(p)?;
        if m.permissions().mode() & 0o077 != 0 {
            fs::set_permissions(p, fs::Permissions::from_mode(0o700))?;
        }
        Ok(())
    }
    #[cfg(not(unix))]
    fs::create_dir_all(p)
}

fn private_file(p: &Path, truncate: bool) -> io::Result<File> {
    let mut o = OpenOptions::new();
    o.read(true).write(true).create(true).truncate(truncate);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.mode(0o600);
    }
    o.open(p)
}

fn sync_dir(p: &Path) {
    if let Ok(d) = File::open(p) {
        let _ = d.sync_all();
    }
}

/// A workspace's journal, locked for writing while this lives.
struct Locked {
    dir: PathBuf,
    _lock: File,
}

fn open_locked(dir: &Path, root: &Path) -> io::Result<Locked> {
    let lock = match private_file(&dir.join("lock"), false) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            // A new workspace's journal.
            private_dir(dir)?;
            if let Some(base) = dir.parent() {
                prune_workspaces(base, dir);
            }
            let mut f = private_file(&dir.join("root"), true)?;
            f.write_all(root.to_string_lossy().as_bytes())?;
            private_file(&dir.join("lock"), false)?
        }
        Err(e) => return Err(e),
    };
    if !Dir::lock_exclusive(&lock, LOCK_WAIT)? {
        return Err(io::Error::new(
            io::ErrorKind::WouldBlock,
            "another process holds the journal's lock",
        ));
    }
    Ok(Locked {
        dir: dir.to_path_buf(),
        _lock: lock,
    })
}

/// Journals of workspaces not written for this long are removed.
pub const WORKSPACE_RETENTION: Duration = Duration::from_secs(30 * 24 * 3600);

/// Removes the journals under `base` whose workspace root is gone, or that
/// were not written for [`WORKSPACE_RETENTION`] (run when a new
/// workspace's journal is made, so its cost is paid rarely).
fn prune_workspaces(base: &Path, keep: &Path) {
    let Ok(rd) = fs::read_dir(base) else { return };
    for e in rd.flatten() {
        let p = e.path();
        if p == keep || !e.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        let Ok(root) = fs::read_to_string(p.join("root")) else {
            continue;
        };
        let old = fs::metadata(&p)
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age > WORKSPACE_RETENTION);
        if !Path::new(&root).exists() || old {
            // Only if no writer holds it.
            if let Ok(lock) = private_file(&p.join("lock"), false) {
                if Dir::try_lock(&lock) != Some(false) {
                    let _ = fs::remove_dir_all(&p);
                }
            }
        }
    }
}

/// Entry file name of `id`, `size` bytes long (the size in the name lets
/// the caps be enforced from one directory listing, without a `stat` per
/// entry).
fn entry_name(id: u64, size: u64) -> String {
    format!("{id:010}-{size}.entry")
}

/// Every entry of the journal at `dir`: (id, path, bytes), oldest first.
fn list(dir: &Path) -> Vec<(u64, PathBuf, u64)> {
    let mut v = Vec::new();
    let Ok(rd) = fs::read_dir(dir) else {
        return v;
    };
    for e in rd.flatten() {
        let name = e.file_name();
        let Some(n) = name.to_str() else { continue };
        let Some((id, size)) = n.strip_suffix(".entry").and_then(|s| s.split_once('-')) else {
            continue;
        };
        let (Ok(id), Ok(size)) = (id.parse::<u64>(), size.parse::<u64>()) else {
            continue;
        };
        v.push((id, e.path(), size));
    }
    v.sort_by_key(|x| x.0);
    v
}

/// Removes temp files of crashed writers (the caller holds the lock, so no
/// writer is alive).
fn sweep_temps(dir: &Path) {
    if let Ok(rd) = fs::read_dir(dir) {
        for e in rd.flatten() {
            if e.file_name().to_str().is_some_and(|n| n.ends_with(".tmp")) {
                let _ = fs::remove_file(e.path());
            }
        }
    }
}

/// UTC time as RFC 3339 (`2026-11-24T08:01:59.123Z`).
fn rfc3339(ms: u128) -> String {
    let secs = (ms / 1000) as i64;
    let days = secs.div_euclid(86_400);
    let tod = secs.rem_euclid(86_400);
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = if m <= 2 { y + 1 } else { y };
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
        tod / 3600,
        tod % 3600 / 60,
        tod % 60,
        ms % 1000
    )
}

/// Lines added and removed between `a` and `b`: the lines between their
/// common first and last lines (exact for one changed region, an upper
/// bound otherwise). Byte comparisons only, no allocation.
fn line_delta(a: &[u8], b: &[u8]) -> (usize, usize) {
    let p = common_prefix(a, b);
    // Back to the start of the line.
    let p = a[..p]
        .iter()
        .rposition(|&c| c == b'\n')
        .map_or(0, |i| i + 1);
    let (ra, rb) = (&a[p..], &b[p..]);
    let mut s = common_suffix(ra, rb);
    // The common end must start at a line start on both sides.
    let starts_line = |r: &[u8], s: usize| s == r.len() || r[r.len() - s - 1] == b'\n';
    if !(starts_line(ra, s) && starts_line(rb, s)) {
        let tail = &ra[ra.len() - s..];
        s = tail
            .iter()
            .position(|&c| c == b'\n')
            .map_or(0, |i| s - i - 1);
    }
    let lines = |m: &[u8]| {
        m.iter().filter(|&&c| c == b'\n').count()
            + usize::from(m.last().is_some_and(|&c| c != b'\n'))
    };
    (lines(&rb[..rb.len() - s]), lines(&ra[..ra.len() - s]))
}

/// Length of the common start of `a` and `b` (compared a page at a time).
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let mut i = 0;
    while i + 4096 <= n && a[i..i + 4096] == b[i..i + 4096] {
        i += 4096;
    }
    while i < n && a[i] == b[i] {
        i += 1;
    }
    i
}

/// Length of the common end of `a` and `b`.
fn common_suffix(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let (la, lb) = (a.len(), b.len());
    let mut i = 0;
    while i + 4096 <= n && a[la - i - 4096..la - i] == b[lb - i - 4096..lb - i] {
        i += 4096;
    }
    while i < n && a[la - i - 1] == b[lb - i - 1] {
        i += 1;
    }
    i
}

/// Records a committed transaction (see the module docs). Returns the new
/// entry's id; a failure to record is a warning, the change stands.
pub(super) fn record(
    txn: &Txn<'_>,
    writes: &[Write<'_>],
    removes: &[usize],
    opts: &Options,
) -> Result<Option<u64>, String> {
    let cfg = &opts.journal;
    if !cfg.enabled || (writes.is_empty() && removes.is_empty()) {
        return Ok(None);
    }
    let root = txn.workspace().root();
    let Some(dir) = dir_for(cfg, root) else {
        return Err(
            "the change was made but not journaled (no per-user state directory: set \
                    PATCH_FILE_STATE_DIR or options.journal)"
                .into(),
        );
    };
    let cap = cfg.max_file_bytes;
    let mut files: Vec<Value> = Vec::new();
    let mut blobs: Vec<&[u8]> = Vec::new();
    let mut offset: u64 = 0;
    let mut why_not: Option<String> = None;
    let moved_to = |k: usize| {
        writes
            .iter()
            .find(|w| w.perms_from == Some(k))
            .map(|w| txn.slots[w.slot].res.rel_path.clone())
    };
    for w in writes {
        let s = &txn.slots[w.slot];
        let after_len: u64 = w.content.iter().map(|c| c.len() as u64).sum();
        let before = s.cur.as_ref().map(|(src, m)| (src.raw(), m));
        let big = after_len > cap || before.is_some_and(|(b, _)| b.len() as u64 > cap);
        let mut f = Map::new();
        f.insert("path".into(), json!(s.res.rel_path));
        f.insert("size_after".into(), json!(after_len));
        if big {
            why_not.get_or_insert_with(|| {
                format!(
                    "`{}` is larger than the journal keeps ({cap} bytes, options.journal.maxFileBytes)",
                    s.res.rel_path
                )
            });
            f.insert("sha256_after".into(), Value::Null);
        } else {
            f.insert(
                "sha256_after".into(),
                json!(sha256_hex(w.content.iter().copied())),
            );
        }
        match before {
            None => {
                f.insert("kind".into(), json!("created"));
                if let Some(k) = w.perms_from.filter(|k| removes.contains(k)) {
                    f.insert("moved_from".into(), json!(txn.slots[k].res.rel_path));
                }
                if !big {
                    let new: Vec<u8> = w.content.concat();
                    f.insert("added".into(), json!(line_delta(b"", &new).0));
                    f.insert("removed".into(), json!(0));
                }
            }
            Some((b, m)) => {
                f.insert("kind".into(), json!("modified"));
                f.insert("size_before".into(), json!(b.len()));
                if let Some(mode) = m.mode {
                    f.insert("mode".into(), json!(mode));
                }
                if !big {
                    f.insert("sha256_before".into(), json!(s.sha256()));
                    let new: Vec<u8> = w.content.concat();
                    let (a, r) = line_delta(b, &new);
                    f.insert("added".into(), json!(a));
                    f.insert("removed".into(), json!(r));
                    f.insert("blob".into(), json!([offset, b.len()]));
                    offset += b.len() as u64;
                    blobs.push(b);
                }
            }
        }
        files.push(Value::Object(f));
    }
    for &k in removes {
        let s = &txn.slots[k];
        let Some((src, m)) = s.cur.as_ref() else {
            continue;
        };
        let b = src.raw();
        let mut f = Map::new();
        f.insert("path".into(), json!(s.res.rel_path));
        f.insert("kind".into(), json!("deleted"));
        f.insert("size_before".into(), json!(b.len()));
        if let Some(mode) = m.mode {
            f.insert("mode".into(), json!(mode));
        }
        if let Some(to) = moved_to(k) {
            f.insert("moved_to".into(), json!(to));
        }
        if b.len() as u64 > cap {
            why_not.get_or_insert_with(|| {
                format!(
                    "`{}` is larger than the journal keeps ({cap} bytes, options.journal.maxFileBytes)",
                    s.res.rel_path
                )
            });
        } else {
            f.insert("sha256_before".into(), json!(s.sha256()));
            f.insert("added".into(), json!(0));
            f.insert("removed".into(), json!(line_delta(b, b"").1));
            f.insert("blob".into(), json!([offset, b.len()]));
            offset += b.len() as u64;
            blobs.push(b);
        }
        files.push(Value::Object(f));
    }
    if why_not.is_none() && offset > cfg.max_bytes {
        why_not = Some(format!(
            "its previous content ({offset} bytes) is more than the journal keeps ({} bytes, \
             options.journal.maxBytes)",
            cfg.max_bytes
        ));
    }
    if why_not.is_some() {
        // Recorded without content: listed, not undoable.
        blobs.clear();
        for f in &mut files {
            if let Some(m) = f.as_object_mut() {
                m.remove("blob");
            }
        }
    }
    let ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    let undo_of = txn.journal_undoes.clone();
    let fail = |what: &str, e: io::Error| {
        format!(
            "the change was made but not journaled ({what} in `{}`: {e}); it cannot be undone with `undo`",
            dir.display()
        )
    };
    let j = open_locked(&dir, root).map_err(|e| fail("cannot open the journal", e))?;
    let st = State::read(&j.dir).unwrap_or_else(|| State::rebuild(&j.dir));
    let id = st.next;
    let header = json!({
        "v": 1,
        "id": id.to_string(),
        "time": rfc3339(ms),
        "time_ms": ms as u64,
        "root": root.to_string_lossy(),
        "entry": if opts.entry.is_empty() { "write" } else { opts.entry },
        "undoable": why_not.is_none(),
        "why_not_undoable": why_not,
        "undoes": undo_of.as_ref().map(|u| u.id.to_string()),
        "depth": undo_of.as_ref().map_or(0, |u| u.depth),
        "body_bytes": offset,
        "files": files,
    });
    let mut line = serde_json::to_vec(&header).map_err(|e| fail("cannot encode", e.into()))?;
    line.push(b'\n');
    let size = line.len() as u64 + offset;
    let path = j.dir.join(entry_name(id, size));
    // Written under its own name, once, and not fsync'd (see the module
    // docs): a reader checks the header parses and the length is the
    // header's, undo checks each previous content's sha256, so an entry cut
    // short by a crash, or damaged by a power loss, is never acted on.
    let write = || -> io::Result<()> {
        let mut o = OpenOptions::new();
        o.write(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            o.mode(0o600);
        }
        let mut f = o.open(&path)?;
        f.write_all(&line)?;
        for b in &blobs {
            f.write_all(b)?;
        }
        Ok(())
    };
    // The id is taken before the entry appears, so a crash in between
    // leaves a gap, never two entries with one id.
    let st = State {
        next: id + 1,
        count: st.count + 1,
        bytes: st.bytes + size,
    };
    if let Err(e) = st.write(&j.dir).and_then(|()| write()) {
        let _ = fs::remove_file(&path);
        return Err(fail("cannot write its entry", e));
    }
    if st.count > cfg.max_entries || st.bytes > cfg.max_bytes {
        evict(&j.dir, cfg, id);
    }
    Ok(Some(id))
}

/// The journal's running totals (`state`, rewritten under the lock with
/// every entry), so that an edit costs no directory listing: only when a cap
/// is exceeded is the directory listed (and the totals made exact again).
struct State {
    next: u64,
    count: u64,
    bytes: u64,
}

impl State {
    fn read(dir: &Path) -> Option<State> {
        let s = fs::read_to_string(dir.join("state")).ok()?;
        let mut it = s.split_whitespace().map(|x| x.parse::<u64>().ok());
        Some(State {
            next: it.next()??,
            count: it.next()??,
            bytes: it.next()??,
        })
    }

    /// The totals from a listing (also removing crashed writers' temp
    /// files; the caller holds the lock).
    fn rebuild(dir: &Path) -> State {
        sweep_temps(dir);
        let all = list(dir);
        let hint = fs::read_to_string(dir.join("next"))
            .ok()
            .and_then(|s| s.trim().parse::<u64>().ok())
            .unwrap_or(1);
        State {
            next: hint.max(all.last().map_or(1, |e| e.0 + 1)),
            count: all.len() as u64,
            bytes: all.iter().map(|e| e.2).sum(),
        }
    }

    /// Rewrites the totals in place (one fixed-width line, no truncation:
    /// no block is freed or allocated, so the edit's own flush carries
    /// nothing more of ours than this block).
    fn write(&self, dir: &Path) -> io::Result<()> {
        let mut f = private_file(&dir.join("state"), false)?;
        let line = format!("{} {} {}", self.next, self.count, self.bytes);
        f.write_all(format!("{line:<63}\n").as_bytes())
    }
}

/// Removes the oldest entries until a tenth of each cap is free again (so
/// the listing this takes is paid once per many edits), never `newest`.
fn evict(dir: &Path, cfg: &JournalConfig, newest: u64) {
    let mut st = State::rebuild(dir);
    let (max_n, max_b) = (
        cfg.max_entries - cfg.max_entries / 10,
        cfg.max_bytes - cfg.max_bytes / 10,
    );
    for (id, p, sz) in list(dir) {
        if id >= newest || (st.count <= max_n && st.bytes <= max_b) {
            break;
        }
        if fs::remove_file(p).is_ok() {
            st.count -= 1;
            st.bytes = st.bytes.saturating_sub(sz);
        }
    }
    let _ = st.write(dir);
}

/// One entry's header, with where it lives.
struct Entry {
    id: u64,
    path: PathBuf,
    header: Value,
    /// Where the previous contents start in the file.
    body_at: u64,
}

impl Entry {
    fn undoes(&self) -> Option<u64> {
        self.header["undoes"].as_str().and_then(|s| s.parse().ok())
    }
    fn depth(&self) -> u64 {
        self.header["depth"].as_u64().unwrap_or(0)
    }
    fn undoable(&self) -> bool {
        self.header["undoable"].as_bool().unwrap_or(false)
    }
    fn files(&self) -> &[Value] {
        self.header["files"].as_array().map_or(&[], Vec::as_slice)
    }
}

fn read_header(id: u64, path: &Path) -> Option<Entry> {
    let f = File::open(path).ok()?;
    let mut r = BufReader::new(f);
    let mut line = Vec::new();
    r.read_until(b'\n', &mut line).ok()?;
    if line.last() != Some(&b'\n') {
        return None;
    }
    let header: Value = serde_json::from_slice(&line).ok()?;
    // A whole entry or none: the body must be exactly as long as recorded.
    let len = r.get_ref().metadata().ok()?.len();
    if len != line.len() as u64 + header["body_bytes"].as_u64()? {
        return None;
    }
    Some(Entry {
        id,
        path: path.to_path_buf(),
        header,
        body_at: line.len() as u64,
    })
}

/// Every readable entry, oldest first.
fn entries(dir: &Path) -> Vec<Entry> {
    list(dir)
        .into_iter()
        .filter_map(|(id, p, _)| read_header(id, &p))
        .collect()
}

/// id -> the id of the entry that undid it (the newest such).
fn undone_by(all: &[Entry]) -> std::collections::HashMap<u64, u64> {
    let mut m = std::collections::HashMap::new();
    for e in all {
        if let Some(t) = e.undoes() {
            m.insert(t, e.id);
        }
    }
    m
}

fn journal_dir(ws: &Workspace, opts: &Options) -> Result<PathBuf, Failure> {
    dir_for(&opts.journal, ws.root()).ok_or_else(|| {
        Failure::invalid(
            "there is no journal: no per-user state directory (set PATCH_FILE_STATE_DIR, PATCH_FILE_JOURNAL or \
             options.journal)",
        )
    })
}

/// `history`: the workspace's transactions, newest first.
pub fn history(ws: &Workspace, opts: &Options, limit: usize, file: Option<&str>) -> Value {
    let dir = match journal_dir(ws, opts) {
        Ok(d) => d,
        Err(f) => return fail_value(&f, None),
    };
    let all = entries(&dir);
    let undone = undone_by(&all);
    let want = file.map(|p| {
        ws.resolve(p, Intent::Plan { create_dirs: false })
            .map(|r| r.rel_path)
            .unwrap_or_else(|_| p.trim_start_matches("./").to_string())
    });
    let mut out = Vec::new();
    for e in all.iter().rev() {
        if out.len() >= limit {
            break;
        }
        let files = e.files();
        if let Some(w) = &want {
            let hit = files
                .iter()
                .any(|f| f["path"].as_str() == Some(w) || f["moved_from"].as_str() == Some(w));
            if !hit {
                continue;
            }
        }
        let shown: Vec<Value> = files
            .iter()
            .filter(|f| f["moved_to"].is_null())
            .map(|f| {
                let mut o = json!({
                    "file_path": f["path"],
                    "kind": if f["moved_from"].is_string() { json!("moved") } else { f["kind"].clone() },
                    "added": f["added"],
                    "removed": f["removed"],
                });
                if let Some(from) = f["moved_from"].as_str() {
                    o["from"] = json!(from);
                }
                o
            })
            .collect();
        let mut v = json!({
            "id": e.id.to_string(),
            "time": e.header["time"],
            "entry_point": e.header["entry"],
            "files": shown,
            "undoable": e.undoable() && !undone.contains_key(&e.id),
        });
        if let Some(w) = e.header["why_not_undoable"].as_str() {
            v["why_not_undoable"] = json!(w);
        }
        if let Some(by) = undone.get(&e.id) {
            v["undone_by"] = json!(by.to_string());
            v["why_not_undoable"] = json!(format!(
                "already undone by transaction {by} (undo {by} to redo)"
            ));
        }
        if let Some(t) = e.undoes() {
            v["undoes"] = json!(t.to_string());
            v["redo"] = json!(e.depth() % 2 == 0);
        }
        out.push(v);
    }
    json!({
        "ok": true,
        "workspace_root": ws.root().to_string_lossy(),
        "journal": dir.to_string_lossy(),
        "enabled": opts.journal.enabled,
        "transactions": out,
    })
}

/// The entry `undo` acts on: `id`, or the newest undoable one that is not
/// an undo itself (so repeated undos walk back; undoing an undo by its id
/// is a redo).
fn target<'a>(all: &'a [Entry], id: Option<&str>) -> Result<&'a Entry, Failure> {
    let undone = undone_by(all);
    let check = |e: &'a Entry| -> Result<&'a Entry, Failure> {
        if let Some(by) = undone.get(&e.id) {
            return Err(Failure::invalid(format!(
                "transaction {} was already undone by transaction {by}; undo {by} to redo it",
                e.id
            )));
        }
        if !e.undoable() {
            return Err(Failure::invalid(format!(
                "transaction {} cannot be undone: {}",
                e.id,
                e.header["why_not_undoable"]
                    .as_str()
                    .unwrap_or("its content was not kept")
            )));
        }
        Ok(e)
    };
    match id {
        Some(s) => {
            let n: u64 = s.trim().parse().map_err(|_| {
                Failure::invalid(format!("`{s}` is not a transaction id (see history)"))
            })?;
            let e = all.iter().find(|e| e.id == n).ok_or_else(|| {
                Failure::invalid(format!(
                    "no transaction {n} in this workspace's journal (it may have been evicted or cleared); see history"
                ))
            })?;
            check(e)
        }
        None => all
            .iter()
            .rev()
            .find(|e| e.undoable() && !undone.contains_key(&e.id) && e.depth() % 2 == 0)
            .ok_or_else(|| {
                Failure::invalid(
                    "there is nothing to undo: no undoable transaction in this workspace's journal",
                )
            }),
    }
}

fn read_blob(e: &Entry, f: &Value) -> io::Result<Option<Vec<u8>>> {
    let Some(b) = f["blob"].as_array() else {
        return Ok(None);
    };
    let (off, len) = (
        b.first().and_then(Value::as_u64).unwrap_or(0),
        b.get(1).and_then(Value::as_u64).unwrap_or(0),
    );
    let mut file = File::open(&e.path)?;
    file.seek(SeekFrom::Start(e.body_at + off))?;
    let mut buf = vec![0u8; len as usize];
    file.read_exact(&mut buf)?;
    Ok(Some(buf))
}

/// What the undo does to one file.
enum Step {
    /// Write the previous content over the file.
    Restore(Vec<u8>),
    /// Remove the file the transaction created.
    Remove,
    /// Recreate the file the transaction deleted (with its mode).
    Recreate(Vec<u8>, Option<u32>, Option<String>),
}

/// `undo`: restores every file of a transaction to its bytes before it,
/// all or nothing, through the one pipeline.
pub fn undo(ws: &Workspace, opts: &Options, id: Option<&str>, dry_run: bool) -> Value {
    let dir = match journal_dir(ws, opts) {
        Ok(d) => d,
        Err(f) => return fail_value(&f, None),
    };
    let all = entries(&dir);
    let e = match target(&all, id) {
        Ok(e) => e,
        Err(f) => return fail_value(&f, None),
    };
    undo_entry(ws, opts, e, dry_run, "undo")
}

/// The text editor's `undo_edit`: undoes the newest transaction made by
/// `entry` (e.g. `textEditor`) that touched `rel` and is not undone yet,
/// journaling the undo as `entry` too. `None`: there is none. Otherwise the
/// result, how many such transactions remain, and whether the undone one
/// had created the file.
pub fn undo_last_of_file(
    ws: &Workspace,
    opts: &Options,
    rel: &str,
    entry: &'static str,
    dry_run: bool,
) -> Option<(Value, usize, bool)> {
    let dir = dir_for(&opts.journal, ws.root())?;
    let all = entries(&dir);
    let undone = undone_by(&all);
    let cands: Vec<&Entry> = all
        .iter()
        .filter(|e| {
            e.header["entry"] == entry
                && e.depth() == 0
                && e.undoable()
                && !undone.contains_key(&e.id)
                && e.files().iter().any(|f| f["path"] == rel)
        })
        .collect();
    let last = *cands.last()?;
    let created = last
        .files()
        .iter()
        .any(|f| f["path"] == rel && f["kind"] == "created");
    let v = undo_entry(ws, opts, last, dry_run, entry);
    let left = if v["ok"] == true && !dry_run {
        cands.len() - 1
    } else {
        cands.len()
    };
    Some((v, left, created))
}

/// Undoes entry `e` (see [`undo`]); the undo is journaled under `entry`.
fn undo_entry(
    ws: &Workspace,
    opts: &Options,
    e: &Entry,
    dry_run: bool,
    entry: &'static str,
) -> Value {
    // 1. What each file must become.
    let mut steps: Vec<(String, String, Step)> = Vec::new(); // (rel, sha after, step)
    for f in e.files() {
        let rel = f["path"].as_str().unwrap_or_default().to_string();
        let after = f["sha256_after"].as_str().unwrap_or_default().to_string();
        let blob = match read_blob(e, f) {
            Ok(b) => b,
            Err(err) => {
                let fl = Failure::new(
                    ErrorCode::FILE_READ_ERROR,
                    format!(
                        "cannot read transaction {} from the journal: {err}; nothing was written",
                        e.id
                    ),
                );
                return fail_value(&fl, Some(&e.path.to_string_lossy()));
            }
        };
        if let Some(b) = &blob {
            if f["sha256_before"].as_str() != Some(sha256_hex([b.as_slice()]).as_str()) {
                let fl = Failure::new(
                    ErrorCode::FILE_READ_ERROR,
                    format!(
                        "transaction {} is damaged in the journal (the saved content of `{rel}` does not have its \
                         recorded sha256); it cannot be undone, nothing was written",
                        e.id
                    ),
                );
                return fail_value(&fl, Some(&e.path.to_string_lossy()));
            }
        }
        let mode = f["mode"].as_u64().map(|m| m as u32);
        let step = match (f["kind"].as_str(), blob) {
            (Some("modified"), Some(b)) => Step::Restore(b),
            (Some("created"), _) => Step::Remove,
            (Some("deleted"), Some(b)) => {
                Step::Recreate(b, mode, f["moved_to"].as_str().map(str::to_string))
            }
            _ => {
                let fl = Failure::invalid(format!(
                    "transaction {} lacks the previous content of `{rel}`; it cannot be undone",
                    e.id
                ));
                return fail_value(&fl, None);
            }
        };
        steps.push((rel, after, step));
    }
    // 2. Resolve, lock, read: every file must be as the transaction left it.
    let mut txn = Txn::new(ws);
    let mut changed: Vec<String> = Vec::new();
    let mut slots: Vec<Option<usize>> = Vec::new();
    for (rel, _, step) in &steps {
        let intent = match step {
            Step::Recreate(..) => Intent::Plan { create_dirs: true },
            _ => Intent::Existing,
        };
        match txn.add(rel, intent) {
            Ok(Added::New(k)) => slots.push(Some(k)),
            Ok(Added::Again { .. }) => {
                let fl = Failure::invalid(format!(
                    "transaction {} names `{rel}` twice; it cannot be undone",
                    e.id
                ));
                return fail_value(&fl, None);
            }
            Err(f) if f.code == ErrorCode::PATH_OUTSIDE_WORKSPACE => return fail_value(&f, None),
            Err(_) => {
                changed.push(ws.root().join(rel).to_string_lossy().into_owned());
                slots.push(None);
            }
        }
    }
    if let Err(f) = txn.lock_and_read(opts) {
        return fail_value(&f, None);
    }
    for ((_, after, step), k) in steps.iter().zip(&slots) {
        let Some(k) = *k else { continue };
        let s = &txn.slots[k];
        let ok = match step {
            Step::Recreate(..) => {
                s.cur.is_none() && s.read_failure.is_none() && s.res.meta.is_none()
            }
            _ => s.sha256() == Some(after.as_str()),
        };
        if !ok {
            changed.push(s.abs());
        }
    }
    if !changed.is_empty() {
        let fl = Failure::new(
            ErrorCode::FILE_CHANGED,
            format!(
                "transaction {} cannot be undone: {} changed since it was written ({}); nothing was written. \
                 Undo the later transactions first (see history) or restore by hand",
                e.id,
                if changed.len() == 1 { "this file" } else { "these files" },
                changed.join(", ")
            ),
        );
        let mut v = fail_value(&fl, changed.first().map(String::as_str));
        v["files_changed"] = json!(changed);
        v["id"] = json!(e.id.to_string());
        return v;
    }
    // 3. Plan the writes and removals.
    let slot_of = |rel: &str| {
        steps
            .iter()
            .zip(&slots)
            .find(|((r, _, _), _)| r == rel)
            .and_then(|(_, k)| *k)
    };
    let mut removes: Vec<usize> = Vec::new();
    let mut writes: Vec<(usize, &[u8], Option<usize>)> = Vec::new();
    for ((_, _, step), k) in steps.iter().zip(&slots) {
        let k = k.expect("every slot resolved");
        match step {
            Step::Remove => removes.push(k),
            Step::Restore(b) => writes.push((k, b, None)),
            Step::Recreate(b, _, to) => {
                let from = to.as_deref().and_then(slot_of);
                writes.push((k, b, from));
            }
        }
    }
    let mut m = Map::new();
    m.insert("ok".into(), json!(true));
    m.insert("undone".into(), json!(e.id.to_string()));
    m.insert("redo".into(), json!(e.depth() % 2 == 1));
    let mut files: Vec<Value> = Vec::new();
    let mut all_diff = Some(String::new());
    for ((rel, _, step), k) in steps.iter().zip(&slots) {
        let s = &txn.slots[k.expect("resolved")];
        let (action, new) = match step {
            Step::Restore(b) => ("restored", Some(b.as_slice())),
            Step::Remove => ("removed", None),
            Step::Recreate(b, ..) => ("recreated", Some(b.as_slice())),
        };
        let mut f = Map::new();
        f.insert("file_path".into(), json!(s.abs()));
        f.insert("action".into(), json!(action));
        f.insert(
            "sha256".into(),
            new.map_or(Value::Null, |b| json!(sha256_hex([b]))),
        );
        if dry_run {
            let new_src = new.and_then(|b| Source::from_bytes(b.to_vec(), rel).ok());
            let d = preview(rel, s.source(), new_src.as_ref().map(|n| n.text()), new);
            put_preview(&mut f, d, &mut all_diff);
        }
        files.push(Value::Object(f));
    }
    m.insert("files".into(), json!(files));
    if dry_run {
        put_all_preview(&mut m, all_diff);
        let kept: Vec<Kept> = writes
            .iter()
            .map(|(k, b, from)| Kept {
                slot: *k,
                bytes: b.to_vec(),
                perms_from: *from,
            })
            .collect();
        txn.keep(&mut m, kept, &removes, opts);
        return Value::Object(m);
    }
    // 4. Commit, journaled as an undo of `e`.
    txn.journal_undoes = Some(UndoOf {
        id: e.id,
        depth: e.depth() + 1,
    });
    let ws_writes: Vec<Write<'_>> = writes
        .iter()
        .map(|(k, b, from)| Write {
            slot: *k,
            content: vec![*b],
            perms_from: *from,
        })
        .collect();
    let mut undo_opts = opts.clone();
    undo_opts.entry = entry;
    let done = match txn.commit(&ws_writes, &removes, &undo_opts) {
        Ok(d) => d,
        Err(f) => return f.to_value(),
    };
    // A recreated file gets back its mode (a moved one took it from its
    // other name already).
    let mut warnings = done.warnings.clone();
    for ((rel, _, step), k) in steps.iter().zip(&slots) {
        if let Step::Recreate(_, Some(mode), None) = step {
            let s = &txn.slots[k.expect("resolved")];
            let set = ws
                .resolve(rel, Intent::Existing)
                .and_then(|r| {
                    r.dir
                        .open_file(&r.name)
                        .map_err(|e| Failure::new(ErrorCode::FILE_WRITE_ERROR, e.to_string()))
                })
                .and_then(|(f, _)| {
                    Dir::set_mode(&f, *mode)
                        .map_err(|e| Failure::new(ErrorCode::FILE_WRITE_ERROR, e.to_string()))
                });
            if let Err(f) = set {
                warnings.push(format!(
                    "`{}` was recreated but its mode {mode:o} could not be restored: {}",
                    s.abs(),
                    f.message
                ));
            }
        }
    }
    if let Some(id) = txn.journal_id.get() {
        m.insert("id".into(), json!(id.to_string()));
    }
    let mut v = Value::Object(m);
    if !warnings.is_empty() {
        v["warnings"] = json!(warnings);
    }
    v
}

/// `journal clear`: removes every entry of the workspace's journal.
pub fn clear(ws: &Workspace, opts: &Options) -> Value {
    let dir = match journal_dir(ws, opts) {
        Ok(d) => d,
        Err(f) => return fail_value(&f, None),
    };
    if !dir.exists() {
        return json!({"ok": true, "removed": 0, "journal": dir.to_string_lossy()});
    }
    let j = match open_locked(&dir, ws.root()) {
        Ok(j) => j,
        Err(e) => {
            let f = Failure::new(
                ErrorCode::FILE_WRITE_ERROR,
                format!("cannot lock the journal `{}`: {e}", dir.display()),
            );
            return fail_value(&f, None);
        }
    };
    sweep_temps(&j.dir);
    let entries = list(&j.dir);
    // Ids keep counting after a clear (an old id never names a new entry).
    let next = State::read(&j.dir)
        .unwrap_or_else(|| State::rebuild(&j.dir))
        .next;
    if let Ok(mut f) = private_file(&j.dir.join("next"), true) {
        let _ = f.write_all(format!("{next}\n").as_bytes());
    }
    let _ = State {
        next,
        count: 0,
        bytes: 0,
    }
    .write(&j.dir);
    let mut n = 0;
    for (_, p, _) in entries {
        if fs::remove_file(p).is_ok() {
            n += 1;
        }
    }
    sync_dir(&j.dir);
    json!({"ok": true, "removed": n, "journal": dir.to_string_lossy()})
}

#[cfg(test)]
mod tests {
    use super::line_delta;

    #[test]
    fn line_delta_counts_the_changed_region() {
        assert_eq!(
            line_delta(b"one\ntwo\nthree\n", b"one\nTWO\nand more\nthree\n"),
            (2, 1)
        );
        assert_eq!(line_delta(b"", b"a\nb\n"), (2, 0));
        assert_eq!(line_delta(b"a\nb", b""), (0, 2));
        assert_eq!(line_delta(b"a\nb\n", b"a\nb\n"), (0, 0));
        assert_eq!(line_delta(b"x\n", b"x\nx\n"), (1, 0));
        assert_eq!(line_delta(b"ab\n", b"abc\n"), (1, 1));
        assert_eq!(line_delta(b"a\r\nb\r\n", b"a\r\nB\r\n"), (1, 1));
        // Long inputs (compared a page at a time).
        let a: String = (0..10_000).map(|i| format!("line {i}\n")).collect();
        let b = a.replace("line 5000\n", "line 5000\nnew\nnewer\n");
        assert_eq!(line_delta(a.as_bytes(), b.as_bytes()), (2, 0));
        let c = a.replace("line 9999\n", "");
        assert_eq!(line_delta(a.as_bytes(), c.as_bytes()), (0, 1));
    }
}
