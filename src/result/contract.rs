//! The published contract, generated from the result types: one JSON Schema
//! document whose `$defs` hold every result type and whose `results` name,
//! for each entry point, the type it answers with.

use schemars::generate::{Contract, SchemaSettings};
use schemars::{JsonSchema, SchemaGenerator};
use serde_json::{Map, Value};

use super::answer::Answer;
use super::edits::{AppliedRun, BatchDone, PatchDone, WriteDone};
use super::files::ReadDone;
use super::formats::FormatDone;
use super::history::{Cleared, HistoryDone, UndoDone};

/// Adds `T`'s schema to `g` and returns a reference to it.
fn add<T: JsonSchema>(g: &mut SchemaGenerator) -> Value {
    g.subschema_for::<T>().to_value()
}

/// The contract document: `{ "$defs": {...}, "results": { entry: schema } }`.
pub fn contract() -> Value {
    let settings = SchemaSettings::draft2020_12().with(|s| {
        s.contract = Contract::Serialize;
        s.definitions_path = "/$defs/".into();
    });
    let mut g = SchemaGenerator::new(settings);
    let mut results = Map::new();
    results.insert("patchFile".into(), add::<Answer<PatchDone>>(&mut g));
    results.insert("batchPatchFiles".into(), add::<Answer<BatchDone>>(&mut g));
    results.insert("readFile".into(), add::<Answer<ReadDone>>(&mut g));
    results.insert("writeFile".into(), add::<Answer<WriteDone>>(&mut g));
    results.insert("applyDryRun".into(), add::<Answer<AppliedRun>>(&mut g));
    results.insert("applyFormat".into(), add::<Answer<FormatDone>>(&mut g));
    results.insert("history".into(), add::<Answer<HistoryDone>>(&mut g));
    results.insert("undo".into(), add::<Answer<UndoDone>>(&mut g));
    results.insert("clearJournal".into(), add::<Answer<Cleared>>(&mut g));
    let defs: Map<String, Value> = g.take_definitions(true).into_iter().collect();
    let mut doc = Map::new();
    doc.insert(
        "$schema".into(),
        Value::String("https://json-schema.org/draft/2020-12/schema".into()),
    );
    doc.insert("results".into(), Value::Object(results));
    doc.insert("$defs".into(), Value::Object(defs));
    Value::Object(doc)
}
