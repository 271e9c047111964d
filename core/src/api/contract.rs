//! The published result contract: the schema generated from the result
//! types ([`crate::result::contract`]) and what the compact view
//! (`options.results: "compact"`) may leave out, which only this layer
//! knows. `schemas/results.json` is this document; the test suite
//! fails when it is out of date (`tests/suite/contract.rs`), and the MCP output
//! schemas and the d.ts result types are made from the file.

use serde_json::Value;

/// The contract document: `$defs` (every result type), `results` (each
/// entry point's result), and `compact.optional` (the fields a compact
/// result may omit although the full one has them).
pub fn contract() -> Value {
    let mut doc = crate::result::contract();
    doc["compact"] = serde_json::json!({ "optional": super::view::MAY_DROP });
    doc
}
