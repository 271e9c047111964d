//! # patch-file-tool
pub mod api;
pub mod diagnose;
pub mod error;
pub mod input;
pub mod io;
pub mod matching;
pub mod model;
pub mod text;
pub mod txn;

#[cfg(not(test))]
mod binding;
