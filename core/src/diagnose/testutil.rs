//! Helpers shared by the diagnosis tests.

use proptest::prelude::*;

use super::report::{not_found, Diagnosis};
use crate::likeness::Budget;

thread_local! {
    /// Diagnoses run on this thread (each entry point runs on its caller's).
    static RUNS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Counts one diagnosis run on this thread.
pub(crate) fn ran() {
    RUNS.with(|r| r.set(r.get() + 1));
}

/// Diagnoses run on this thread so far.
pub(crate) fn runs() -> usize {
    RUNS.with(std::cell::Cell::get)
}

pub(crate) fn diag(text: &str, search: &str, replace: &str) -> Diagnosis {
    not_found(
        text.as_bytes(),
        search,
        replace,
        "",
        crate::model::Said::CANONICAL,
        &Budget::new(u64::MAX),
        &[],
    )
}

pub(crate) fn kinds(d: &Diagnosis) -> Vec<&'static str> {
    d.closest_match
        .as_ref()
        .expect("closest_match")
        .differences
        .iter()
        .map(|x| x.kind.as_str())
        .collect()
}

pub(crate) const RUST: &str = "use std::io;\n\nfn main() {\n    let name = \"world\";\n    println!(\"hello {name}\");\n    if name.is_empty() {\n        return;\n    }\n    let total = compute(1, 2);\n    println!(\"{total}\");\n}\n\nfn compute(a: i32, b: i32) -> i32 {\n    a + b\n}\n";

/// Texts over the characters diagnosis cares about.
pub(crate) fn texty() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            Just("a"),
            Just("b"),
            Just("if x"),
            Just(" "),
            Just("\t"),
            Just("\n"),
            Just("\r\n"),
            Just("\\"),
            Just("\""),
            Just("“"),
            Just("—"),
            Just("\u{a0}"),
            Just("\u{200b}"),
            Just("B"),
            Just("…"),
        ],
        0..60,
    )
    .prop_map(|v| v.concat())
}
