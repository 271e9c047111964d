//! The Node-API layer: converts JS values to the engine's JSON input and the
//! engine's JSON result back to JS objects. No logic lives here.
//!
//! Async variants run the engine on the libuv thread pool (`AsyncTask`), so
//! the event loop never waits on disk I/O or matching. Input that cannot
//! even be converted to JSON (a function, a BigInt, a cycle, a getter that
//! throws, a string or key with a lone surrogate) is answered with an
//! `INVALID_INPUT` result naming where it was: no call ever throws or
//! rejects for bad input.

mod convert;
mod exports;
