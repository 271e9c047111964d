//! The dry-run cache: planned content kept in memory so that an agent can
//! apply what it previewed by sending only a short `run_id`.
//!
//! Entries expire after their time to live, are used at most once (taking an
//! entry removes it, under the cache's lock, so two concurrent applies of one
//! id cannot both succeed), and the cache is bounded by entry count and total
//! bytes of planned content: storing evicts expired entries, then the oldest,
//! until the new entry fits. An entry larger than the whole byte budget is
//! not stored at all (the caller is told, rather than handed an id that can
//! never work). [`apply`] re-checks that every file still has the sha256 the
//! dry run saw, then commits through the same [`Txn`] as every other write.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use crate::error::{ErrorCode, Failure};
use crate::io::commit::Committed;
use crate::io::meta::Like;
use crate::io::workspace::{Intent, Workspace};
use crate::model::Options;
use crate::printer;
use crate::result::edits::{AppliedFile, AppliedOne, AppliedRun};
use crate::result::marks::True;
use crate::result::written::{Diff, Preview};
use crate::result::{Failed, Outcome};
use crate::txn::changes::Recorder;
use crate::txn::{Added, Kept, Txn, Write};

/// Most entries kept.
pub(crate) const MAX_ENTRIES: usize = 256;
/// Most bytes of planned content kept in all.
pub(crate) const MAX_BYTES: usize = 512 << 20;

/// One file a dry run writes.
#[derive(Debug, Clone)]
pub(crate) struct PlannedFile {
    /// Path relative to the workspace root.
    pub(crate) rel_path: String,
    /// sha256 of the bytes the dry run read; `None` if the file did not exist.
    pub(crate) sha256_before: Option<String>,
    /// The complete new bytes, encoded as they will be written.
    pub(crate) new_bytes: Vec<u8>,
    /// Index into [`Entry::deletes`] of the moved file whose mode a new file
    /// takes.
    pub(crate) perms_from: Option<usize>,
    /// What a new file takes from the file it stands for (an undone
    /// deletion), as [`Write::like`].
    pub(crate) like: Option<Like>,
}

/// One file a dry run removes (a deleted file, or the source of a move).
#[derive(Debug, Clone)]
pub(crate) struct PlannedDelete {
    pub(crate) rel_path: String,
    pub(crate) sha256_before: String,
}

/// A stored dry run: every entry point keeps this one shape.
#[derive(Debug, Clone)]
pub(crate) struct Entry {
    pub(crate) root: PathBuf,
    pub(crate) files: Vec<PlannedFile>,
    pub(crate) deletes: Vec<PlannedDelete>,
    /// Kept by a transaction that [`restores`](Txn::restores) (an undo's
    /// dry run): applying it restores too.
    pub(crate) restores: bool,
}

impl Entry {
    /// Bytes this entry counts against [`MAX_BYTES`].
    fn weight(&self) -> usize {
        self.files
            .iter()
            .map(|f| f.new_bytes.len() + f.rel_path.len() + 64)
            .sum::<usize>()
            + self
                .deletes
                .iter()
                .map(|d| d.rel_path.len() + 64)
                .sum::<usize>()
    }
}

struct Stored {
    id: String,
    expires: Instant,
    bytes: usize,
    entry: Entry,
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

    #[cfg(test)]
    fn take(&mut self, id: &str, now: Instant) -> Option<Entry> {
        self.take_expiring(id, now, |_| true).map(|(e, _)| e)
    }

    /// Puts back an entry taken with [`Cache::take_expiring`] (a call that
    /// had to give up before writing), under its id and expiry.
    fn put_back(&mut self, id: String, entry: Entry, expires: Instant) {
        let bytes = entry.weight();
        self.total += bytes;
        self.items.push_back(Stored {
            id,
            expires,
            bytes,
            entry,
        });
    }

    /// Removes the entry `id` if `accept` agrees (else it stays), with its
    /// expiry.
    fn take_expiring(
        &mut self,
        id: &str,
        now: Instant,
        accept: impl FnOnce(&Entry) -> bool,
    ) -> Option<(Entry, Instant)> {
        let pos = self.items.iter().position(|s| s.id == id)?;
        if !accept(&self.items[pos].entry) {
            return None;
        }
        let s = self.items.remove(pos)?;
        self.total -= s.bytes;
        (s.expires > now).then_some((s.entry, s.expires))
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
pub(crate) fn store(entry: Entry, ttl: Duration) -> Option<String> {
    cache()
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .store(entry, ttl, Instant::now())
}

/// Removes and returns the entry for `id`, if it exists and has not expired.
#[cfg(test)]
pub(crate) fn take(id: &str) -> Option<Entry> {
    cache()
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .take(id, Instant::now())
}

/// Applies the dry run `run_id` once: every file must still have the
/// sha256 the dry run read (a file it created must still be missing), or
/// nothing is written (`FILE_CHANGED`). An unknown, used or expired id is
/// `RUN_ID_NOT_FOUND`.
pub(crate) fn apply(run_id: &str, opts: &Options, rec: &dyn Recorder) -> Outcome<AppliedRun> {
    // The run applies only in the workspace it was planned for: one
    // workspace's id never writes into another (and is not used up by a
    // call from the wrong one).
    let ws = Workspace::open(&opts.workspace_root)?.from_dir(opts.cwd.as_deref())?;
    let mut other_root = None;
    let taken = cache()
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .take_expiring(run_id, Instant::now(), |e| {
            let same = e.root == ws.root();
            if !same {
                other_root = Some(e.root.clone());
            }
            same
        });
    if let Some(planned_in) = other_root {
        return Err(Failure::invalid(printer::run_id_other_root(
            run_id,
            &planned_in.display().to_string(),
            &ws.root().display().to_string(),
        ))
        .into());
    }
    let Some((entry, expires)) = taken else {
        return Err(
            Failure::new(ErrorCode::RUN_ID_NOT_FOUND, printer::run_id_unknown(run_id)).into(),
        );
    };
    let out = apply_entry(&entry, run_id, opts, rec);
    // Given up before writing because a file was busy: the run stays
    // applicable, so the retry can use it.
    if out
        .as_ref()
        .is_err_and(|f| f.code == ErrorCode::FILE_LOCKED)
    {
        cache().lock().unwrap_or_else(|p| p.into_inner()).put_back(
            run_id.to_string(),
            entry,
            expires,
        );
    }
    out
}

fn apply_entry(
    entry: &Entry,
    run_id: &str,
    opts: &Options,
    rec: &dyn Recorder,
) -> Outcome<AppliedRun> {
    let ws = Workspace::open(&entry.root)?;
    let mut txn = Txn::new(&ws);
    txn.restores = entry.restores;
    let plan = Intent::Plan { create_dirs: true };
    let paths = entry.files.iter().map(|f| (&f.rel_path, plan)).chain(
        entry
            .deletes
            .iter()
            .map(|d| (&d.rel_path, Intent::Existing)),
    );
    for (rel, intent) in paths {
        match txn.add(rel, intent) {
            Ok(Added::New(_)) => {}
            Ok(Added::Again { .. }) => unreachable!("a dry run names each file once"),
            Err(f) => {
                let abs = ws.lexical_abs(rel);
                // A file the dry run would delete, gone since: changed.
                let f = if intent == Intent::Existing && gone(&abs) {
                    Failure::new(ErrorCode::FILE_CHANGED, printer::changed_after_dry_run(rel))
                } else {
                    f
                };
                return Err(Box::new(Failed::new(&f, Some(&abs))));
            }
        }
    }
    txn.lock_and_read(opts)?;
    let expected = entry
        .files
        .iter()
        .map(|f| f.sha256_before.as_deref())
        .chain(entry.deletes.iter().map(|d| Some(d.sha256_before.as_str())));
    let planned = entry
        .files
        .iter()
        .map(|f| &f.rel_path)
        .chain(entry.deletes.iter().map(|d| &d.rel_path));
    for ((s, want), rel) in txn.slots.iter().zip(expected).zip(planned) {
        // A file the dry run read, gone since (one it would delete cannot
        // be read now): changed, as when its content changed.
        if let Some(f) = s
            .read_failure
            .as_ref()
            .filter(|_| !(want.is_some() && gone(&s.abs())))
        {
            return Err(Box::new(Failed::new(f, Some(&s.abs()))));
        }
        let now = s.sha256();
        // The path must still lead to the file the dry run read: a link put
        // in its place leads to another file, whatever it holds.
        if now != want || s.res.rel_path != *rel {
            let f = Failure::new(
                ErrorCode::FILE_CHANGED,
                printer::changed_after_dry_run(&s.display),
            );
            let mut out = Failed::new(&f, Some(&s.abs()));
            out.sha256 = now.map(str::to_string);
            return Err(Box::new(out));
        }
    }
    let nw = entry.files.len();
    let writes: Vec<Write<'_>> = entry
        .files
        .iter()
        .enumerate()
        .map(|(k, f)| Write {
            slot: k,
            content: vec![f.new_bytes.as_slice()],
            perms_from: f.perms_from.map(|d| nw + d),
            sha256: None,
            like: f.like.clone(),
        })
        .collect();
    let removes: Vec<usize> = (nw..nw + entry.deletes.len()).collect();
    let done = txn
        .commit(&writes, &removes, opts, rec)
        .map_err(|e| e.to_failed())?;
    Ok(applied(entry, &txn, done, run_id))
}

/// What an applied run reports: each file written or removed, and the one
/// file again at the top when it wrote exactly one.
fn applied(entry: &Entry, txn: &Txn<'_>, done: Committed, run_id: &str) -> AppliedRun {
    let nw = entry.files.len();
    let mut files: Vec<AppliedFile> = entry
        .files
        .iter()
        .zip(&txn.slots)
        .zip(done.strategies.iter().zip(&done.sha256))
        .map(|((f, s), (how, sha))| AppliedFile {
            file_path: s.abs(),
            created: Some(f.sha256_before.is_none()),
            deleted: None,
            after_bytes: Some(f.new_bytes.len()),
            sha256_before: f.sha256_before.clone(),
            sha256: Some(sha.clone()),
            strategy: how.clone(),
        })
        .collect();
    files.extend(
        txn.slots[nw..]
            .iter()
            .zip(&entry.deletes)
            .map(|(s, d)| AppliedFile {
                file_path: s.abs(),
                created: None,
                deleted: Some(True),
                after_bytes: None,
                sha256_before: Some(d.sha256_before.clone()),
                sha256: None,
                strategy: Default::default(),
            }),
    );
    let one = (nw == 1 && entry.deletes.is_empty()).then(|| {
        let f = &files[0];
        AppliedOne {
            file_path: f.file_path.clone(),
            created: f.created.unwrap_or_default(),
            after_bytes: f.after_bytes.unwrap_or_default(),
            sha256_before: f.sha256_before.clone(),
            sha256: f.sha256.clone().unwrap_or_default(),
        }
    });
    AppliedRun {
        ok: True,
        run_id: run_id.to_string(),
        one,
        files,
        warnings: done.warnings,
    }
}

impl Txn<'_> {
    /// Keeps `writes` and `removes` as a dry run for [`apply`]: the preview
    /// (`diff` as given, `dry_run`, `run_id`, `expires_in`) and the
    /// warnings: what reading found, and each file the writes would leave
    /// without the line break it ends with. Content too large for the cache gets `run_id:
    /// null` and a `message` saying to apply by repeating the call without
    /// `dry_run`.
    pub(crate) fn keep_preview(
        &self,
        diff: Diff,
        writes: Vec<Kept>,
        removes: &[usize],
        opts: &Options,
    ) -> (Preview, Vec<String>) {
        let mut warnings = self.recovered.clone();
        warnings.extend(self.notes.iter().cloned());
        let lost = writes
            .iter()
            .filter_map(|w| self.final_break_lost(w.slot, &[&w.bytes]));
        warnings.extend(lost);
        let planned = self.planned(writes, removes);
        let (run_id, expires_in, message) =
            match store(planned, Duration::from_secs(opts.dry_run_ttl_secs)) {
                Some(id) => (Some(id), opts.dry_run_ttl_secs, None),
                None => (None, 0, Some(not_kept_note())),
            };
        let preview = Preview {
            dry_run: True,
            diff,
            run_id,
            expires_in,
            message,
        };
        (preview, warnings)
    }

    /// The entry that keeps `writes` and `removes`.
    fn planned(&self, writes: Vec<Kept>, removes: &[usize]) -> Entry {
        let deletes: Vec<PlannedDelete> = removes
            .iter()
            .map(|&k| PlannedDelete {
                rel_path: self.slots[k].res.rel_path.clone(),
                sha256_before: self.slots[k].sha256().unwrap_or_default().to_string(),
            })
            .collect();
        Entry {
            root: self.ws.root().to_path_buf(),
            files: writes
                .into_iter()
                .map(|w| PlannedFile {
                    rel_path: self.slots[w.slot].res.rel_path.clone(),
                    sha256_before: self.slots[w.slot].sha256().map(str::to_string),
                    new_bytes: w.bytes,
                    perms_from: w
                        .perms_from
                        .and_then(|k| removes.iter().position(|&r| r == k)),
                    like: w.like,
                })
                .collect(),
            deletes,
            restores: self.restores,
        }
    }
}

/// Why a dry run was not kept, and how to apply it.
fn not_kept_note() -> String {
    printer::dry_run_not_kept(MAX_BYTES)
}

/// Whether nothing stands at `abs` now (a file the dry run saw, deleted
/// since).
fn gone(abs: &str) -> bool {
    std::fs::symlink_metadata(abs).is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound)
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
                perms_from: None,
                like: None,
            }],
            deletes: Vec::new(),
            restores: false,
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
