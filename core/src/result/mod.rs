//! The result contract: a typed value for every result, failure, diagnosis
//! and preview the engine answers with.
//!
//! The layers below `api` return these values; only `api` turns them into
//! JSON (`serde_json::to_value`), once, at the edge. What the published
//! contract says a result looks like — the output schemas in
//! `schemas/results.json` and the result types of `index.d.ts` — is
//! generated from these types ([`contract()`]), and the test suite fails when
//! a generated file is out of date, so the contract is written once.
//!
//! A result is a success (`ok: true` and the entry point's figures) or a
//! [`Failed`] (`ok: false`, a stable code, a message, the details that help
//! a retry); [`Answer`] is either, as JSON has them.

mod answer;
mod contract;
pub mod diagnosis;
pub mod edits;
pub mod failure;
pub mod files;
pub mod formats;
pub mod history;
pub mod lines;
pub mod marks;
pub mod syntax;
pub mod text_editor;
pub mod view;
pub mod written;

pub use answer::{Answer, Outcome};
pub use contract::{contract, ResultOf};
pub use failure::Failed;
