//! Hashing beside the commit's I/O.
//!
//! Results and the journal report the sha256 of what a commit wrote and of
//! what it replaced. For big content that hash runs on a second thread
//! while the commit writes, flushes and checks the file (about 1.2 GB/s
//! with the SHA extensions, so it overlaps the I/O instead of adding to
//! it); below [`PARALLEL_HASH_BYTES`] a thread costs more than it saves,
//! and many small edits in flight already keep every core busy.

/// Content at least this big is hashed on a second thread.
pub(crate) const PARALLEL_HASH_BYTES: usize = 4 << 20;

/// Runs `side` on a scoped thread while `main` runs on this one (when
/// `parallel`), else after `main`. If no thread can be started, `side` runs
/// here. A panic in `side` is carried over to this thread.
pub(crate) fn beside<M, S: Send>(
    parallel: bool,
    side: impl Fn() -> S + Sync,
    main: impl FnOnce() -> M,
) -> (M, S) {
    if !parallel {
        let m = main();
        return (m, side());
    }
    std::thread::scope(|scope| {
        let spawned = std::thread::Builder::new()
            .name("pft-hash".into())
            .spawn_scoped(scope, &side);
        let m = main();
        let s = match spawned {
            Ok(h) => h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)),
            Err(_) => side(),
        };
        (m, s)
    })
}
