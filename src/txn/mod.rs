pub mod diff;
pub mod dry_run;
pub mod engine;
pub mod ops;
