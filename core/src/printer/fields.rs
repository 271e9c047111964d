//! The input adapter's words (`crate::input::fields`): a request that is
//! not an object, a field missing, unknown, spelt twice or of the wrong type.

use super::quote::{plural, shown};

/// Request part `what` is missing (`null` or absent).
pub(crate) fn input_missing(what: &str) -> String {
    format!("{what} is missing: pass an object")
}

/// Request part `what` is not an object but `kind` (a JSON kind, worded).
pub(crate) fn input_not_object(what: &str, kind: &str) -> String {
    format!("{what} must be an object, got {kind}")
}

/// A fault of request part `what` that a field's own type words (`fault`).
pub(crate) fn field_fault(what: &str, fault: &str) -> String {
    format!("{what}: {fault}")
}

/// Field spellings `first` and `second` of `what` carry different values.
pub(crate) fn spelt_twice(what: &str, first: &str, second: &str) -> String {
    format!(
        "{what}: `{first}` and `{second}` are the same field with different values; send it once"
    )
}

/// `what` has `count` unknown fields, `listed` as [`unknown_listed`] lists them.
pub(crate) fn unknown_fields(what: &str, count: usize, listed: &str) -> String {
    format!("{what}: unknown field{} {listed}", plural(count))
}

/// Unknown field names, each with the name it likely misspells, then how
/// many `more` were not named.
pub(crate) fn unknown_listed(named: &[(&str, Option<&str>)], more: usize) -> String {
    let mut out = named
        .iter()
        .map(|&(k, near)| match near {
            Some(near) => format!("`{}` (did you mean `{near}`?)", shown(k)),
            None => format!("`{}`", shown(k)),
        })
        .collect::<Vec<_>>()
        .join(", ");
    if more > 0 {
        out.push_str(&format!(" and {more} more"));
    }
    out
}

/// Field `key` of `what` must be `expected` but is `got`.
pub(crate) fn field_wrong_type(what: &str, key: &str, expected: &str, got: &str) -> String {
    format!("{what}: `{key}` must be {expected}, got {got}")
}

/// Required field `field` of `what`, which holds `holds`, was not given.
pub(crate) fn field_required(what: &str, field: &str, holds: &str) -> String {
    format!("{what}: `{field}` is required ({holds})")
}

/// A value as sent (`json`, its JSON text), cut at 40 characters.
pub(crate) fn sent_value(json: String) -> String {
    if json.chars().count() > 40 {
        format!("{}…", json.chars().take(40).collect::<String>())
    } else {
        json
    }
}
