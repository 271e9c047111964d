//! Serialization of calls that touch the same file within one process.
//!
//! Two concurrent edits of one file would otherwise both read the old
//! content and the second rename would silently drop the first edit. Each
//! call holds a lock per real file path (after following in-workspace
//! symlinks) from read to commit. Batches take their locks in sorted order
//! so that two batches cannot deadlock.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, OnceLock};

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
pub struct FileLock {
    path: PathBuf,
    slot: Arc<Slot>,
}

impl FileLock {
    /// Blocks until no other call in this process holds `path`.
    pub fn acquire(path: &Path) -> FileLock {
        let slot = {
            let mut t = table().lock().unwrap_or_else(|p| p.into_inner());
            t.entry(path.to_path_buf()).or_default().clone()
        };
        let mut busy = slot.busy.lock().unwrap_or_else(|p| p.into_inner());
        while *busy {
            busy = slot.cv.wait(busy).unwrap_or_else(|p| p.into_inner());
        }
        *busy = true;
        drop(busy);
        FileLock {
            path: path.to_path_buf(),
            slot,
        }
    }

    /// Locks every path, in sorted order, without duplicates.
    pub fn acquire_all(paths: &[&Path]) -> Vec<FileLock> {
        let mut sorted: Vec<&Path> = paths.to_vec();
        sorted.sort();
        sorted.dedup();
        sorted.into_iter().map(FileLock::acquire).collect()
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
