//! `true` and `false` as types: the `ok` of a success and of a failure, and
//! flags that are either `true` or absent (`dry_run`, `already_applied`).
//! Their schemas are the constants, so the generated contract tells a
//! success from a failure by `ok` alone.

use std::borrow::Cow;

use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::{Serialize, Serializer};

/// The JSON literal `true`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct True;

/// The JSON literal `false`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct False;

impl Serialize for True {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bool(true)
    }
}

impl Serialize for False {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bool(false)
    }
}

impl JsonSchema for True {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> Cow<'static, str> {
        "True".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "type": "boolean", "const": true })
    }
}

impl JsonSchema for False {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> Cow<'static, str> {
        "False".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "type": "boolean", "const": false })
    }
}

/// `Some(True)` when `b`: a flag shown only when set.
pub fn flag(b: bool) -> Option<True> {
    b.then_some(True)
}
