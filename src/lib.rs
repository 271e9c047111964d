//! # patch-file-tool (the Node.js addon)
//!
//! The Node-API binding of the engine in `core/` (the `patch-file-core`
//! crate): it converts JS values to the engine's JSON input and the
//! engine's JSON result back to JS objects, and nothing else. No logic
//! lives here; everything an edit does is the core's.
//!
//! - `exports.rs`: the functions the addon exports, one `#[napi]` one-liner
//!   each;
//! - `convert.rs`: JS value -> JSON (bounded, never throwing), JSON -> JS,
//!   and the task that runs an engine call on the libuv thread pool.
//!
//! Async variants run the engine on the libuv thread pool (`AsyncTask`), so
//! the event loop never waits on disk I/O or matching. Input that cannot
//! even be converted to JSON (a function, a BigInt, a cycle, a getter that
//! throws, a string or key with a lone surrogate) is answered with an
//! `INVALID_INPUT` result naming where it was: no call ever throws or
//! rejects for bad input.
//!
//! The engine's tests live with the engine (`core/tests`, one binary); this
//! crate is tested from JavaScript (`__test__/`), through the built addon.

// Left out of test builds (`cargo clippy --all-targets` makes one): there
// `#[napi]` registers nothing, so every item would be unused.
#[cfg(not(test))]
mod convert;
#[cfg(not(test))]
mod exports;
