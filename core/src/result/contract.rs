//! The published contract, generated from the result types: one JSON Schema
//! document whose `$defs` hold every result type and whose `results` name,
//! for each entry point, the type it answers with, and `compact.optional`:
//! the fields a compact result may leave out although the full one has
//! them (declared on the fields: [`super::view`]), with `compact.fields`
//! naming them for each result type that has any.

use schemars::generate::{Contract, SchemaSettings};
use schemars::SchemaGenerator;
use serde_json::{Map, Value};

/// Adds to a generator the schema of what an entry point answers.
pub type ResultOf = fn(&mut SchemaGenerator) -> Value;

/// The contract document: `{ "$defs": {...}, "results": { entry: schema } }`,
/// for each entry point of `entries` its name and a function adding to a
/// generator the schema of what it answers (the entry points are declared
/// above this layer: `api::runner`).
pub fn contract(entries: &[(&str, ResultOf)]) -> Value {
    let settings = SchemaSettings::draft2020_12().with(|s| {
        s.contract = Contract::Serialize;
        s.definitions_path = "/$defs/".into();
    });
    let mut g = SchemaGenerator::new(settings);
    let mut results = Map::new();
    for (name, result_of) in entries {
        results.insert((*name).into(), result_of(&mut g));
    }
    let mut defs: Map<String, Value> = g.take_definitions(true).into_iter().collect();
    let mut compact_optional: Vec<String> = Vec::new();
    let mut compact_fields = Map::new();
    for (name, v) in defs.iter_mut() {
        let mut marked = Vec::new();
        full_requires(v, &mut marked);
        tidy(v);
        for m in &marked {
            if !compact_optional.contains(m) {
                compact_optional.push(m.clone());
            }
        }
        if !marked.is_empty() {
            let marked = marked.into_iter().map(Value::String).collect();
            compact_fields.insert(name.clone(), Value::Array(marked));
        }
    }
    for v in results.values_mut() {
        full_requires(v, &mut compact_optional);
        tidy(v);
    }
    let mut doc = Map::new();
    doc.insert(
        "$schema".into(),
        Value::String("https://json-schema.org/draft/2020-12/schema".into()),
    );
    doc.insert("results".into(), Value::Object(results));
    doc.insert("$defs".into(), Value::Object(defs));
    let optional = compact_optional.into_iter().map(Value::String).collect();
    let mut compact = Map::new();
    compact.insert("optional".into(), Value::Array(optional));
    compact.insert("fields".into(), Value::Object(compact_fields));
    doc.insert("compact".into(), Value::Object(compact));
    Value::Object(doc)
}

/// Makes each field marked `x-compact` (one the full result always has and
/// the compact view may leave out: [`super::view`]) required again, and adds
/// its name to `names` (once). Its `skip_serializing_if`, which serves the
/// compact view, made the generator call it optional.
fn full_requires(v: &mut Value, names: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            let mut marked = Vec::new();
            if let Some(Value::Object(props)) = m.get_mut("properties") {
                for (name, p) in props.iter_mut() {
                    let Value::Object(p) = p else { continue };
                    if p.remove("x-compact").is_some() {
                        marked.push(name.clone());
                    }
                }
            }
            if !marked.is_empty() {
                // In the order of the properties, as the generator lists them.
                let was = match m.get_mut("required") {
                    Some(Value::Array(r)) => std::mem::take(r),
                    _ => Vec::new(),
                };
                let required = match m.get("properties") {
                    Some(Value::Object(props)) => props
                        .keys()
                        .filter(|k| marked.contains(k) || was.iter().any(|r| r == k.as_str()))
                        .map(|k| Value::String(k.clone()))
                        .collect(),
                    _ => Vec::new(),
                };
                m.insert("required".into(), Value::Array(required));
                for name in marked {
                    if !names.contains(&name) {
                        names.push(name);
                    }
                }
            }
            m.values_mut().for_each(|c| full_requires(c, names));
        }
        Value::Array(a) => a.iter_mut().for_each(|c| full_requires(c, names)),
        _ => {}
    }
}

/// Makes a generated schema what clients read best: descriptions as
/// sentences (a doc comment's line breaks joined), no `format` of Rust's
/// integer and float widths (`uint`, `double`, …: not JSON Schema formats,
/// which clients warn about), one type per schema (a list of types becomes
/// an `anyOf`), and an optional field that is never `null` described
/// without `null`.
///
/// A field that results leave out when it has nothing to say is an
/// `Option` skipped when `None`, so it is absent or a value, never `null`;
/// the generator still calls it nullable. A field that is `null` when
/// present (a dry run's `run_id` that was not kept) says so with
/// `#[schemars(extend("x-null" = true))]`, and keeps its `null`.
fn tidy(v: &mut Value) {
    match v {
        Value::Object(m) => {
            if let Some(Value::String(d)) = m.get_mut("description") {
                *d = d.split('\n').map(str::trim).collect::<Vec<_>>().join(" ");
            }
            if m.get("format")
                .and_then(Value::as_str)
                .is_some_and(is_rust_width)
            {
                m.remove("format");
            }
            if let Some(Value::Array(types)) = m.get("type").cloned() {
                m.remove("type");
                let each = types.into_iter().map(|t| {
                    let mut one = Map::new();
                    one.insert("type".into(), t);
                    Value::Object(one)
                });
                m.insert("anyOf".into(), Value::Array(each.collect()));
            }
            m.values_mut().for_each(tidy);
            let required: Vec<Value> = match m.get("required") {
                Some(Value::Array(r)) => r.clone(),
                _ => Vec::new(),
            };
            if let Some(Value::Object(props)) = m.get_mut("properties") {
                for (name, p) in props.iter_mut() {
                    let Value::Object(p) = p else { continue };
                    let keep = p.remove("x-null").is_some();
                    if !keep && !required.iter().any(|r| r == name.as_str()) {
                        never_null(p);
                    }
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(tidy),
        _ => {}
    }
}

/// Whether `f` is a `format` naming a Rust number width.
fn is_rust_width(f: &str) -> bool {
    f.starts_with("int") || f.starts_with("uint") || f == "double" || f == "float"
}

/// `p` without its `null` alternative.
fn never_null(p: &mut Map<String, Value>) {
    let is_null = |v: &Value| v.get("type").and_then(Value::as_str) == Some("null");
    if let Some(Value::Array(alts)) = p.get("anyOf") {
        if alts.len() == 2 && alts.iter().any(is_null) {
            let Some(Value::Object(other)) = alts.iter().find(|a| !is_null(a)).cloned() else {
                return;
            };
            p.remove("anyOf");
            for (k, v) in other {
                p.entry(k).or_insert(v);
            }
        }
    }
    if let Some(Value::Array(names)) = p.get_mut("enum") {
        names.retain(|n| !n.is_null());
        if names.len() == 1 {
            let only = names[0].clone();
            p.remove("enum");
            p.insert("const".into(), only);
        }
    }
}
