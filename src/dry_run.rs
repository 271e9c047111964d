//! The dry-run cache: planned content kept in memory so that an agent can
//! apply what it previewed by sending only a short `run_id`.
//!
//! Entries expire after their time to live, are used at most once, and the
//! cache is bounded by entry count and total bytes (oldest evicted first).
//! Applying re-checks that every file still has the sha256 the dry run saw.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// Most entries kept.
pub const MAX_ENTRIES: usize = 256;
/// Most bytes of planned content kept in all.
pub const MAX_BYTES: usize = 512 << 20;

/// One file of a dry run.
#[derive(Debug, Clone)]
pub struct PlannedFile {
    /// Path relative to the workspace root.
    pub rel_path: String,
    /// sha256 of the bytes the dry run read; `None` if the file did not exist.
    pub sha256_before: Option<String>,
    /// The complete new bytes, encoded as they will be written.
    pub new_bytes: Vec<u8>,
}

/// A stored dry run.
#[derive(Debug, Clone)]
pub struct Entry {
    pub root: PathBuf,
    pub files: Vec<PlannedFile>,
}

struct Stored {
    id: String,
    expires: Instant,
    bytes: usize,
    entry: Entry,
}

fn cache() -> &'static Mutex<VecDeque<Stored>> {
    static C: OnceLock<Mutex<VecDeque<Stored>>> = OnceLock::new();
    C.get_or_init(Default::default)
}

/// A short random id (96 bits, URL-safe).
fn new_id() -> String {
    let mut b = [0u8; 12];
    getrandom::fill(&mut b).expect("the OS random source is available");
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut s = String::from("dr_");
    for chunk in b.chunks(3) {
        let n = (chunk[0] as u32) << 16 | (chunk[1] as u32) << 8 | chunk[2] as u32;
        for k in (0..4).rev() {
            s.push(A[((n >> (6 * k)) & 63) as usize] as char);
        }
    }
    s
}

/// Stores a dry run; returns its id.
pub fn store(entry: Entry, ttl: Duration) -> String {
    let bytes: usize = entry
        .files
        .iter()
        .map(|f| f.new_bytes.len() + f.rel_path.len())
        .sum();
    let id = new_id();
    let now = Instant::now();
    let mut c = cache().lock().unwrap_or_else(|p| p.into_inner());
    c.retain(|s| s.expires > now);
    let mut total: usize = c.iter().map(|s| s.bytes).sum();
    while !c.is_empty() && (c.len() >= MAX_ENTRIES || total + bytes > MAX_BYTES) {
        if let Some(old) = c.pop_front() {
            total -= old.bytes;
        }
    }
    if bytes <= MAX_BYTES {
        c.push_back(Stored {
            id: id.clone(),
            expires: now + ttl,
            bytes,
            entry,
        });
    }
    id
}

/// Removes and returns the entry for `id`, if it exists and has not expired.
pub fn take(id: &str) -> Option<Entry> {
    let now = Instant::now();
    let mut c = cache().lock().unwrap_or_else(|p| p.into_inner());
    let pos = c.iter().position(|s| s.id == id)?;
    let s = c.remove(pos)?;
    (s.expires > now).then_some(s.entry)
}

#[cfg(test)]
fn len() -> usize {
    cache().lock().unwrap().len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(n: usize) -> Entry {
        Entry {
            root: "/r".into(),
            files: vec![PlannedFile {
                rel_path: "f".into(),
                sha256_before: None,
                new_bytes: vec![0; n],
            }],
        }
    }

    #[test]
    fn once_expiry_and_bounds() {
        let id = store(entry(1), Duration::from_secs(60));
        assert!(id.starts_with("dr_") && id.len() == 19);
        assert!(take(&id).is_some());
        assert!(take(&id).is_none(), "an id is used once");
        let id = store(entry(1), Duration::from_millis(1));
        std::thread::sleep(Duration::from_millis(5));
        assert!(take(&id).is_none(), "expired");
        assert!(take("dr_unknown").is_none());

        let ids: Vec<String> = (0..MAX_ENTRIES + 10)
            .map(|_| store(entry(1), Duration::from_secs(60)))
            .collect();
        assert!(len() <= MAX_ENTRIES);
        assert!(take(ids.last().unwrap()).is_some(), "newest kept");
    }
}
