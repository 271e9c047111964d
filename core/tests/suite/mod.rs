//! The integration tests of the engine, one module a topic (see each
//! module's doc).

mod agent_mistakes;
mod batch_recovery;
mod bounded;
mod concurrency;
mod containment;
mod contract;
mod diagnose_bench;
mod elisions;
mod encodings;
mod engine_props;
mod eol_kept;
mod exact_edits;
mod faults;
mod folds;
mod formats;
mod formats_corpus;
mod fuzz;
mod input_bounds;
mod journal_trust;
mod layers;
mod mixed_eol;
mod near_miss;
mod race;
mod recovery;
mod refusals;
mod rollback;
mod structure;
mod tolerance_props;
