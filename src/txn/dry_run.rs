//! The dry-run cache: planned content kept in memory so that an agent can
//! apply what it previewed by sending only a short `run_id`.
//!
//! Entries expire after their time to live, are used at most once (taking an
//! entry removes it, under the cache's lock, so two concurrent applies of one
//! id cannot both succeed), and the cache is bounded by entry count and total
//! bytes of planned content: storing evicts expired entries, then the oldest,
//! until the new entry fits. An entry larger than the whole byte budget is
//! not stored at all (the caller is told, rather than handed an id that can
//! never work). Applying re-checks that every file still has the sha256 the
//! dry run saw; that check lives in the engine.

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

impl Entry {
    /// Bytes this entry counts against [`MAX_BYTES`].
    fn weight(&self) -> usize {
        self.files
            .iter()
            .map(|f| f.new_bytes.len() + f.rel_path.len() + 64)
            .sum()
    }
}

/// What an id stands for: a plain set of files, or another module's plan
/// (edit formats keep removals and moves too), in the same bounded cache and
/// id space.
enum Payload {
    Files(Entry),
    Other(Box<dyn std::any::Any + Send>),
}

struct Stored {
    id: String,
    expires: Instant,
    bytes: usize,
    entry: Payload,
}

/// A bounded, expiring, take-once store (one global instance; tests make
/// their own with small bounds).
struct Cache {
    max_entries: usize,
    max_bytes: usize,
    items: VecDeque<Stored>,
    total: usize,
}

impl Cache {
    const fn new(max_entries: usize, max_bytes: usize) -> Cache {
        Cache {
            max_entries,
            max_bytes,
            items: VecDeque::new(),
            total: 0,
        }
    }

    fn store(&mut self, entry: Entry, ttl: Duration, now: Instant) -> Option<String> {
        let bytes = entry.weight();
        self.store_payload(Payload::Files(entry), bytes, ttl, now)
    }

    fn store_payload(
        &mut self,
        entry: Payload,
        bytes: usize,
        ttl: Duration,
        now: Instant,
    ) -> Option<String> {
        if bytes > self.max_bytes || self.max_entries == 0 {
            return None;
        }
        let mut total = 0;
        self.items.retain(|s| {
            let keep = s.expires > now;
            if keep {
                total += s.bytes;
            }
            keep
        });
        self.total = total;
        while self.items.len() >= self.max_entries || self.total + bytes > self.max_bytes {
            match self.items.pop_front() {
                Some(old) => self.total -= old.bytes,
                None => break,
            }
        }
        let id = new_id();
        self.items.push_back(Stored {
            id: id.clone(),
            expires: now
                .checked_add(ttl)
                .unwrap_or(now + Duration::from_secs(86_400)),
            bytes,
            entry,
        });
        self.total += bytes;
        Some(id)
    }

    fn take(&mut self, id: &str, now: Instant) -> Option<Entry> {
        match self.take_if(id, now, |p| matches!(p, Payload::Files(_)))? {
            Payload::Files(e) => Some(e),
            Payload::Other(_) => None,
        }
    }

    /// Removes the entry `id` if `kind` accepts its payload (an entry of
    /// another kind stays, so each taker only ever consumes its own).
    fn take_if(
        &mut self,
        id: &str,
        now: Instant,
        kind: impl Fn(&Payload) -> bool,
    ) -> Option<Payload> {
        let pos = self
            .items
            .iter()
            .position(|s| s.id == id && kind(&s.entry))?;
        let s = self.items.remove(pos)?;
        self.total -= s.bytes;
        (s.expires > now).then_some(s.entry)
    }
}

fn cache() -> &'static Mutex<Cache> {
    static C: OnceLock<Mutex<Cache>> = OnceLock::new();
    C.get_or_init(|| Mutex::new(Cache::new(MAX_ENTRIES, MAX_BYTES)))
}

/// A short random id: `dr_` and 16 URL-safe characters (96 random bits).
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

/// Stores a dry run; returns its id, or `None` if the planned content alone
/// is larger than the cache's byte budget ([`MAX_BYTES`]).
pub fn store(entry: Entry, ttl: Duration) -> Option<String> {
    cache()
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .store(entry, ttl, Instant::now())
}

/// Stores another module's planned change (`weight`: bytes it holds) under a
/// new id, with the same bounds as [`store`].
pub fn store_other<T: std::any::Any + Send>(
    value: T,
    weight: usize,
    ttl: Duration,
) -> Option<String> {
    cache()
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .store_payload(Payload::Other(Box::new(value)), weight, ttl, Instant::now())
}

/// Removes and returns the value of type `T` stored under `id` with
/// [`store_other`], if it exists and has not expired.
pub fn take_other<T: std::any::Any + Send>(id: &str) -> Option<T> {
    let p = cache().lock().unwrap_or_else(|p| p.into_inner()).take_if(
        id,
        Instant::now(),
        |p| matches!(p, Payload::Other(v) if v.is::<T>()),
    )?;
    match p {
        Payload::Other(v) => v.downcast::<T>().ok().map(|b| *b),
        Payload::Files(_) => None,
    }
}

/// Removes and returns the entry for `id`, if it exists and has not expired.
pub fn take(id: &str) -> Option<Entry> {
    cache()
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .take(id, Instant::now())
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

    const W: usize = 1 + 64; // weight of entry(0)

    #[test]
    fn global_once_and_unknown() {
        let id = store(entry(1), Duration::from_secs(60)).unwrap();
        assert!(id.starts_with("dr_") && id.len() == 19, "{id}");
        assert!(id[3..]
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'));
        assert_eq!(take(&id).unwrap().files[0].new_bytes, vec![0]);
        assert!(take(&id).is_none(), "an id is used once");
        assert!(take("dr_unknown").is_none());
        let other = store(entry(1), Duration::from_secs(60)).unwrap();
        assert_ne!(id, other, "ids are random");
        assert!(take(&other).is_some());
    }

    #[test]
    fn expiry() {
        let mut c = Cache::new(8, 1 << 20);
        let t0 = Instant::now();
        let id = c.store(entry(1), Duration::from_secs(5), t0).unwrap();
        assert!(
            c.take(&id, t0 + Duration::from_secs(6)).is_none(),
            "expired"
        );
        assert_eq!(c.total, 0);
        let id = c.store(entry(1), Duration::from_secs(5), t0).unwrap();
        assert!(c.take(&id, t0 + Duration::from_secs(4)).is_some());
        // Expired entries are dropped when something new is stored.
        c.store(entry(1), Duration::from_secs(1), t0).unwrap();
        c.store(
            entry(1),
            Duration::from_secs(100),
            t0 + Duration::from_secs(2),
        )
        .unwrap();
        assert_eq!(c.items.len(), 1);
    }

    #[test]
    fn entry_bound_evicts_oldest_first() {
        let mut c = Cache::new(3, 1 << 20);
        let t0 = Instant::now();
        let ttl = Duration::from_secs(60);
        let ids: Vec<String> = (0..5)
            .map(|_| c.store(entry(0), ttl, t0).unwrap())
            .collect();
        assert_eq!(c.items.len(), 3);
        assert!(c.take(&ids[0], t0).is_none());
        assert!(c.take(&ids[1], t0).is_none());
        for id in &ids[2..] {
            assert!(c.take(id, t0).is_some(), "newest kept");
        }
        assert_eq!(c.total, 0);
    }

    #[test]
    fn byte_bound_evicts_oldest_first_and_refuses_oversized() {
        let mut c = Cache::new(100, 3 * (W + 100));
        let t0 = Instant::now();
        let ttl = Duration::from_secs(60);
        let a = c.store(entry(100), ttl, t0).unwrap();
        let b = c.store(entry(100), ttl, t0).unwrap();
        let d = c.store(entry(100), ttl, t0).unwrap();
        assert_eq!(c.total, 3 * (W + 100));
        // Needs two slots' worth: the two oldest go.
        let e = c.store(entry(150), ttl, t0).unwrap();
        assert!(c.total <= c.max_bytes);
        assert!(c.take(&a, t0).is_none());
        assert!(c.take(&b, t0).is_none());
        assert!(c.take(&d, t0).is_some());
        assert!(c.take(&e, t0).is_some());
        // Larger than the whole budget: not stored, and nothing evicted.
        let keep = c.store(entry(1), ttl, t0).unwrap();
        assert!(c.store(entry(3 * (W + 100)), ttl, t0).is_none());
        assert!(c.take(&keep, t0).is_some());
    }
}
