//! The narrow door the crate's own integration tests (`tests/*.rs`) and
//! its measuring example (`examples/verify_cost.rs`) use to reach inside
//! the engine, and nothing else may use.
//!
//! The interface is [`api`](crate::api) with its vocabulary (`model`,
//! `result`, `error`); every other module is private to the crate, so that
//! what the engine exposes is decided here and not by habit. Some
//! guarantees are only testable below that interface: an I/O step made to
//! fail or panic at an exact moment (fault injection), the walk that
//! resolves paths where `openat2` is missing, temp files made exactly as
//! the engine makes them, the parsers and the diagnosis run alone under
//! property tests and budgets, the cost of one check timed alone. This
//! module re-exports exactly the items those callers use, each under a
//! short path of its own, and no more: a test that needs another internal
//! item adds it here, visibly.
//!
//! It is compiled into every build (a cargo feature would make the same
//! items `pub` in one build and unreachable in the other), hidden from the
//! documentation, and no part of the supported interface: the Node.js
//! binding does not use it and its paths may change with any release.

/// Directory handles (opened, locked and read as the engine does) and the
/// I/O steps fault injection can stop.
pub mod dir {
    #[cfg(any(test, feature = "fault-injection"))]
    pub use crate::io::dir::{fault, set_openat2};
    pub use crate::io::dir::{is_temp_name, Dir, Step};
}

/// Temp files made as the engine makes them (name tag included).
pub mod temps {
    pub use crate::io::temps::create;
    /// The age after which a leftover temp file is swept.
    pub use crate::txn::STALE_TEMP_AGE;
}

/// The checks on new text, alone (the lazy-edit benchmark).
pub mod check {
    pub use crate::check::elision::{lazy_outcome, Lazy};
    /// The syntax guard on one file: `check(path, old, new_pieces)`.
    pub use crate::check::syntax::{
        check as syntax, language as syntax_language, parse_errors as syntax_parse_errors,
        BUDGET as SYNTAX_BUDGET, MAX_BYTES as SYNTAX_MAX_BYTES,
    };
}

/// The workspace sandbox's path resolution.
pub mod workspace {
    pub use crate::io::workspace::{Intent, Workspace};
}

/// The request parsers of the entry points.
pub mod request {
    pub use crate::input::request::{
        apply_request, batch_request, options, patch_request, read_request, write_request,
    };
}

/// The text edit formats' parsers.
pub mod formats {
    pub use crate::input::formats::ParseError;
    /// SEARCH/REPLACE blocks.
    pub mod edit_block {
        pub use crate::input::formats::edit_block::parse;
    }
    /// Codex's `*** Begin Patch` format.
    pub mod apply_patch {
        pub use crate::input::formats::apply_patch::parse;
    }
    /// Unified diffs.
    pub mod unified_diff {
        pub use crate::input::formats::unified_diff::parse;
    }
    /// The text editor's commands.
    pub mod text_editor {
        pub use crate::input::formats::text_editor::parse;
    }
}

/// Why an edit did not land, run alone under a budget.
pub mod diagnose {
    pub use crate::diagnose::{ambiguous, not_found, MAX_HINTS};
    pub use crate::likeness::{Budget, DEFAULT_BUDGET};
}

/// Many edits planned in one pass.
pub mod matching {
    /// Search/replace edits.
    pub mod many {
        pub use crate::matching::many::in_one_pass;
    }
    /// SEARCH/REPLACE blocks.
    pub mod blocks {
        pub use crate::matching::blocks::in_one_pass;
    }
}

/// Hashes and the tolerant match's character folds.
pub mod text {
    pub use crate::codec::source::sha256_hex;
    pub use crate::text::fold::{punct_ascii, PUNCTUATION, UNICODE_SPACES};
}
