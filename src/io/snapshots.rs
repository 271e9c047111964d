//! What a read with anchors showed, kept so that an edit naming lines by
//! those anchors can be checked against it (see `matching::anchors`).
//!
//! A snapshot is the file's identity (its real absolute path: an atomic
//! write gives the file a new inode, so the path is what stays), the
//! sha256 of the bytes read, and a 64-bit key per line. It is kept in this
//! process and in the private state (`anchors/` beneath the per-user state
//! directory, reached only through [`Private`]: owner-checked, no link
//! followed, files 0600), so that another process of the same user (a
//! second MCP server, the CLI) can check an edit against a read it did not
//! make.
//!
//! The store is bounded and expiring: at most [`MAX_KEPT`] snapshots of
//! at most [`MAX_BYTES`] in all on each side (on disk, checked every eighth
//! store, so a few more may sit there between two checks), each for
//! [`TTL`]; a file
//! over [`MAX_LINES`] lines is not kept (its anchors are then checked at
//! their line numbers). A snapshot read back from disk is used only when
//! it is whole and the engine's own: its trailing sha256 covers every byte
//! before it, its path is the one asked for, and it has not expired.
//! Anything else is ignored (and removed when it is a file of ours).

use std::collections::VecDeque;
use std::ffi::OsStr;
use std::io::{Read, Write};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use sha2::{Digest, Sha256};

use crate::io::state::Private;

/// How long a snapshot is kept.
pub(crate) const TTL: Duration = Duration::from_secs(3600);
/// Most snapshots kept (in the process, and on disk).
pub(crate) const MAX_KEPT: usize = 64;
/// Most bytes of snapshots kept (in the process, and on disk).
pub(crate) const MAX_BYTES: usize = 64 << 20;
/// Lines above which a file's snapshot is not kept.
pub(crate) const MAX_LINES: usize = 1 << 20;

const MAGIC: &[u8; 8] = b"PFTANCH1";
const SUBDIR: &str = "anchors";

/// What one read with anchors showed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Snapshot {
    /// The file's real absolute path.
    pub(crate) path: String,
    /// sha256 (hex) of the bytes read.
    pub(crate) sha256: String,
    /// One key per line (`matching::anchors::line_key`).
    pub(crate) keys: Vec<u64>,
    /// Seconds since the epoch when it was taken.
    pub(crate) taken: u64,
}

impl Snapshot {
    fn weight(&self) -> usize {
        self.keys.len() * 8 + self.path.len() + 128
    }

    fn fresh(&self, now: u64) -> bool {
        self.taken <= now + 60 && now < self.taken.saturating_add(TTL.as_secs())
    }

    /// Its bytes on disk: magic, time, path, sha256, keys, then the sha256
    /// of all of that.
    fn encode(&self) -> Vec<u8> {
        let mut b = Vec::with_capacity(self.weight());
        b.extend_from_slice(MAGIC);
        b.extend_from_slice(&self.taken.to_le_bytes());
        b.extend_from_slice(&(self.path.len() as u32).to_le_bytes());
        b.extend_from_slice(self.path.as_bytes());
        b.extend_from_slice(self.sha256.as_bytes());
        b.extend_from_slice(&(self.keys.len() as u64).to_le_bytes());
        for k in &self.keys {
            b.extend_from_slice(&k.to_le_bytes());
        }
        let sum = Sha256::digest(&b);
        b.extend_from_slice(&sum);
        b
    }

    /// Reads back what [`Snapshot::encode`] wrote; `None` for anything else.
    fn decode(b: &[u8]) -> Option<Snapshot> {
        let body_len = b.len().checked_sub(32)?;
        let (body, sum) = b.split_at(body_len);
        if Sha256::digest(body).as_slice() != sum || !body.starts_with(MAGIC) {
            return None;
        }
        let mut at = MAGIC.len();
        let mut take = |n: usize| -> Option<&[u8]> {
            let s = body.get(at..at.checked_add(n)?)?;
            at += n;
            Some(s)
        };
        let taken = u64::from_le_bytes(take(8)?.try_into().ok()?);
        let plen = u32::from_le_bytes(take(4)?.try_into().ok()?) as usize;
        let path = String::from_utf8(take(plen)?.to_vec()).ok()?;
        let sha256 = String::from_utf8(take(64)?.to_vec()).ok()?;
        let n = usize::try_from(u64::from_le_bytes(take(8)?.try_into().ok()?)).ok()?;
        if n > MAX_LINES {
            return None;
        }
        let keys = take(n.checked_mul(8)?)?
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
            .collect();
        (at == body.len()).then_some(Snapshot {
            path,
            sha256,
            keys,
            taken,
        })
    }
}

/// Seconds since the epoch.
pub(crate) fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

fn memory() -> &'static Mutex<VecDeque<Snapshot>> {
    static M: OnceLock<Mutex<VecDeque<Snapshot>>> = OnceLock::new();
    M.get_or_init(Default::default)
}

/// The file-name prefix of a path's snapshots.
fn prefix(path: &str) -> String {
    let h = Sha256::digest(path.as_bytes());
    h[..8].iter().map(|b| format!("{b:02x}")).collect()
}

fn file_name(s: &Snapshot) -> String {
    format!(
        "{}-{}",
        prefix(&s.path),
        &s.sha256[..16.min(s.sha256.len())]
    )
}

/// Keeps `snap` (replacing an earlier one of the same path and content).
/// A failure to keep it on disk is not an error: the snapshot is still
/// kept in this process. `false`: too large to keep at all. The same
/// content of the same file read again within [`FRESH_AGAIN`] is kept
/// already: nothing is written.
pub(crate) fn keep(snap: Snapshot) -> bool {
    if snap.keys.len() > MAX_LINES {
        return false;
    }
    let t = now();
    let (name, bytes) = {
        let mut m = memory().lock().unwrap_or_else(|p| p.into_inner());
        let again = m.iter().any(|s| {
            s.path == snap.path
                && s.sha256 == snap.sha256
                && t.saturating_sub(s.taken) < FRESH_AGAIN
        });
        if again {
            return true;
        }
        let out = (file_name(&snap), snap.encode());
        m.retain(|s| s.fresh(t) && !(s.path == snap.path && s.sha256 == snap.sha256));
        m.push_back(snap);
        let mut total: usize = m.iter().map(Snapshot::weight).sum();
        while m.len() > MAX_KEPT || total > MAX_BYTES {
            match m.pop_front() {
                Some(old) => total -= old.weight(),
                None => break,
            }
        }
        out
    };
    let _ = keep_on_disk(&name, &bytes, t);
    true
}

/// Seconds within which reading the same content again keeps nothing new.
const FRESH_AGAIN: u64 = 60;

fn dir(create: bool) -> std::io::Result<Private> {
    Private::state(create)?.subdir(OsStr::new(SUBDIR), create)
}

fn keep_on_disk(name: &str, bytes: &[u8], t: u64) -> std::io::Result<()> {
    static STORES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let d = dir(true)?;
    let tmp = format!("{name}.{}.tmp", std::process::id());
    let _ = d.remove_own(OsStr::new(&tmp));
    let mut f = d.create_new(OsStr::new(&tmp))?;
    f.write_all(bytes)?;
    drop(f);
    d.dir().rename(OsStr::new(&tmp), OsStr::new(name))?;
    // The bounds are kept every few stores (each lists the directory).
    if STORES
        .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        .is_multiple_of(8)
    {
        prune(&d, t);
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
        let secs = u64::try_from(m.mtime_ns / 1_000_000_000).unwrap_or(0);
        if secs.saturating_add(TTL.as_secs()) <= t {
            let _ = d.remove_own(&n);
            continue;
        }
        files.push((m.mtime_ns, m.size, n));
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

/// The snapshots of `path` still kept, newest first (this process's, then
/// those on disk that it does not hold).
pub(crate) fn of(path: &str) -> Vec<Snapshot> {
    let t = now();
    let mut out: Vec<Snapshot> = {
        let m = memory().lock().unwrap_or_else(|p| p.into_inner());
        m.iter()
            .rev()
            .filter(|s| s.path == path && s.fresh(t))
            .cloned()
            .collect()
    };
    for s in on_disk(path, t) {
        if !out.iter().any(|o| o.sha256 == s.sha256) {
            out.push(s);
        }
    }
    out.sort_by_key(|s| std::cmp::Reverse(s.taken));
    out
}

fn on_disk(path: &str, t: u64) -> Vec<Snapshot> {
    let Ok(d) = dir(false) else {
        return Vec::new();
    };
    let Ok(names) = d.dir().entries() else {
        return Vec::new();
    };
    let want = format!("{}-", prefix(path));
    let mut out = Vec::new();
    for n in names {
        let Some(s) = n.to_str() else { continue };
        if !s.starts_with(&want) || s.ends_with(".tmp") {
            continue;
        }
        let Ok(Some((mut f, meta))) = d.open_read(&n) else {
            continue;
        };
        if meta.size > (MAX_LINES as u64) * 8 + 4096 + path.len() as u64 {
            continue;
        }
        let mut b = Vec::with_capacity(meta.size as usize);
        if f.read_to_end(&mut b).is_err() {
            continue;
        }
        match Snapshot::decode(&b) {
            Some(snap) if snap.path == path && snap.fresh(t) => out.push(snap),
            Some(snap) if snap.path == path => {
                let _ = d.remove_own(&n);
            }
            Some(_) => {}
            None => {
                let _ = d.remove_own(&n);
            }
        }
    }
    out
}

/// Forgets every snapshot of this process (tests: an edit as another
/// process would see it).
#[cfg(test)]
pub(crate) fn forget_in_process() {
    memory().lock().unwrap_or_else(|p| p.into_inner()).clear();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snap(path: &str, sha: char, n: usize) -> Snapshot {
        Snapshot {
            path: path.into(),
            sha256: sha.to_string().repeat(64),
            keys: (0..n as u64).collect(),
            taken: now(),
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

    /// A snapshot on disk that does not read back whole is not used, and is
    /// removed.
    #[test]
    fn an_altered_file_on_disk_is_ignored_and_removed() {
        let path = format!("/w/{}/altered.txt", std::process::id());
        let s = snap(&path, 'e', 3);
        assert!(keep(s.clone()));
        assert_eq!(on_disk(&path, now()), vec![s.clone()]);
        let d = dir(false).unwrap();
        let name = file_name(&s);
        let (mut f, _) = d.open_rw(OsStr::new(&name), false).unwrap();
        f.write_all(b"X").unwrap();
        drop(f);
        assert!(on_disk(&path, now()).is_empty());
        assert!(
            d.dir().stat(OsStr::new(&name)).unwrap().is_none(),
            "removed"
        );
    }

    #[test]
    fn kept_in_process_and_on_disk_newest_first() {
        let path = format!("/w/{}/kept.txt", std::process::id());
        let mut old = snap(&path, 'b', 3);
        old.taken -= 10;
        assert!(keep(old.clone()));
        assert!(keep(snap(&path, 'c', 4)));
        let got = of(&path);
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].sha256.as_bytes()[0], b'c');
        // Another process sees them through the private state.
        forget_in_process();
        let got = of(&path);
        assert_eq!(got.len(), 2, "{got:?}");
        assert_eq!(got[1], old);
        // Expired ones are not used.
        let mut gone = snap(&format!("{path}.2"), 'd', 1);
        gone.taken -= TTL.as_secs() + 1;
        keep(gone);
        assert!(of(&format!("{path}.2")).is_empty());
    }
}
