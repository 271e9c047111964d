//! Serialization of calls that touch the same file within one process.
//!
//! Waiting for a lock must not hold one of Node's few thread-pool threads
//! (four by default: four calls waiting would stall every other file
//! operation of the process). So a call run for the JS API's async
//! functions runs [`nonblocking`]: a lock another call holds (here, or a
//! `flock` another process holds at commit) fails the call at once with
//! `FILE_LOCKED`, nothing written, and the JS wrapper retries it after a
//! short pause on the event loop, within a bounded time. Direct Rust
//! callers and the sync JS API wait as before.
//!
//! Two concurrent edits of one file would otherwise both read the old
//! content and the second rename would silently drop the first edit. Each
//! call holds a lock per real file path (after following in-workspace
//! symlinks) from read to commit. Batches take their locks in sorted order
//! so that two batches cannot deadlock.

use std::cell::Cell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, OnceLock};

thread_local! {
    static NONBLOCKING: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f` with locks that fail instead of waiting (see the module docs).
pub(crate) fn nonblocking<T>(f: impl FnOnce() -> T) -> T {
    struct Reset(bool);
    impl Drop for Reset {
        fn drop(&mut self) {
            NONBLOCKING.with(|n| n.set(self.0));
        }
    }
    let _reset = Reset(NONBLOCKING.with(|n| n.replace(true)));
    f()
}

/// Whether this thread's locks fail instead of waiting.
pub(crate) fn is_nonblocking() -> bool {
    NONBLOCKING.with(|n| n.get())
}

/// How long to wait for a lock another process holds (a `flock` on a file
/// or on its in-place write record): not at all in non-blocking mode (the
/// caller answers `FILE_LOCKED` and the JS wrapper tries again), else up to
/// ten seconds.
pub(crate) fn process_wait() -> std::time::Duration {
    if is_nonblocking() {
        std::time::Duration::ZERO
    } else {
        std::time::Duration::from_secs(10)
    }
}

/// A lock another call holds (non-blocking mode only).
#[derive(Debug)]
pub(crate) struct Busy {
    pub(crate) path: PathBuf,
}

#[derive(Default)]
struct Slot {
    busy: Mutex<bool>,
    cv: Condvar,
}

fn table() -> &'static Mutex<HashMap<PathBuf, Arc<Slot>>> {
    static T: OnceLock<Mutex<HashMap<PathBuf, Arc<Slot>>>> = OnceLock::new();
    T.get_or_init(Default::default)
}

/// Held while a file is being edited; released on drop.
pub(crate) struct FileLock {
    path: PathBuf,
    slot: Arc<Slot>,
}

impl FileLock {
    /// Blocks until no other call in this process holds `path`.
    #[cfg(test)]
    pub(crate) fn acquire(path: &Path) -> FileLock {
        Self::acquire_if(path, true).expect("a blocking acquire always succeeds")
    }

    /// Takes `path`'s lock, waiting for it when `wait`; `None` when another
    /// call holds it and `wait` is false.
    fn acquire_if(path: &Path, wait: bool) -> Option<FileLock> {
        let slot = {
            let mut t = table().lock().unwrap_or_else(|p| p.into_inner());
            t.entry(path.to_path_buf()).or_default().clone()
        };
        let mut busy = slot.busy.lock().unwrap_or_else(|p| p.into_inner());
        if *busy && !wait {
            drop(busy);
            // Forget the slot if this attempt was its only other user.
            let mut t = table().lock().unwrap_or_else(|p| p.into_inner());
            if Arc::strong_count(&slot) == 2 {
                t.remove(path);
            }
            return None;
        }
        while *busy {
            busy = slot.cv.wait(busy).unwrap_or_else(|p| p.into_inner());
        }
        *busy = true;
        drop(busy);
        Some(FileLock {
            path: path.to_path_buf(),
            slot,
        })
    }

    /// Locks every path, in sorted order, without duplicates; in
    /// non-blocking mode, fails (releasing what it took) at the first path
    /// another call holds.
    pub(crate) fn acquire_all(paths: &[&Path]) -> Result<Vec<FileLock>, Busy> {
        let mut sorted: Vec<&Path> = paths.to_vec();
        sorted.sort();
        sorted.dedup();
        let wait = !is_nonblocking();
        let mut out = Vec::with_capacity(sorted.len());
        for p in sorted {
            match FileLock::acquire_if(p, wait) {
                Some(l) => out.push(l),
                None => {
                    return Err(Busy {
                        path: p.to_path_buf(),
                    })
                }
            }
        }
        Ok(out)
    }
}

impl Drop for FileLock {
    fn drop(&mut self) {
        let mut busy = self.slot.busy.lock().unwrap_or_else(|p| p.into_inner());
        *busy = false;
        drop(busy);
        self.slot.cv.notify_one();
        // Forget the slot when nobody else refers to it.
        let mut t = table().lock().unwrap_or_else(|p| p.into_inner());
        if Arc::strong_count(&self.slot) == 2 {
            t.remove(&self.path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn serializes_holders_of_one_path() {
        let inside = Arc::new(AtomicUsize::new(0));
        let max = Arc::new(AtomicUsize::new(0));
        let hs: Vec<_> = (0..8)
            .map(|_| {
                let (inside, max) = (inside.clone(), max.clone());
                std::thread::spawn(move || {
                    for _ in 0..50 {
                        let _g = FileLock::acquire(Path::new("/x/same"));
                        let n = inside.fetch_add(1, Ordering::SeqCst) + 1;
                        max.fetch_max(n, Ordering::SeqCst);
                        std::thread::yield_now();
                        inside.fetch_sub(1, Ordering::SeqCst);
                    }
                })
            })
            .collect();
        for h in hs {
            h.join().unwrap();
        }
        assert_eq!(max.load(Ordering::SeqCst), 1);
        assert!(table().lock().unwrap().get(Path::new("/x/same")).is_none());
    }
}
