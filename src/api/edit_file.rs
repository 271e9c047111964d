//! Drop-in parameter sets of other tools' contracts, so that a user can
//! swap servers without changing prompts.
//!
//! - [`edit_file`]: the input shape of the MCP reference filesystem server's
//!   `edit_file` tool, `{ path, edits: [{ oldText, newText }], dryRun }`, run
//!   as a `patchFile` multi-edit. Unlike that server, every `oldText` must
//!   occur exactly once (it applies the first occurrence), and all edits
//!   apply together or not at all.

use serde_json::{Map, Value};

use crate::error::Failure;
use crate::txn::engine::{fail_value, guarded, patch_file};

/// `editFile`: server-filesystem's `edit_file` input, exact-once.
pub fn edit_file(input: &Value, options: Option<&Value>) -> Value {
    guarded(|| match translate(input) {
        Ok(v) => patch_file(&v, options),
        Err(f) => fail_value(&f, None),
    })
}

/// `{path, edits, dryRun}` → the `patchFile` input.
fn translate(input: &Value) -> Result<Value, Failure> {
    let Value::Object(m) = input else {
        return Err(Failure::invalid(
            "input must be an object: { path, edits: [{ oldText, newText }], dryRun? }",
        ));
    };
    let mut out = Map::new();
    for (k, v) in m {
        match k.as_str() {
            "path" => {
                out.insert("file_path".into(), v.clone());
            }
            "edits" => {
                let Value::Array(edits) = v else {
                    return Err(Failure::invalid(
                        "`edits` must be an array of { oldText, newText }",
                    ));
                };
                for (i, e) in edits.iter().enumerate() {
                    let ok = e.as_object().is_some_and(|o| {
                        o.keys().all(|k| k == "oldText" || k == "newText")
                            && o.contains_key("oldText")
                            && o.contains_key("newText")
                    });
                    if !ok {
                        return Err(Failure::invalid(format!(
                            "edits[{i}] must be {{ oldText, newText }} (exactly these two fields)"
                        )));
                    }
                }
                out.insert("edits".into(), v.clone());
            }
            "dryRun" => {
                out.insert("dry_run".into(), v.clone());
            }
            other => {
                return Err(Failure::invalid(format!(
                    "unknown field `{other}`; edit_file takes `path`, `edits` and `dryRun`"
                )))
            }
        }
    }
    if !out.contains_key("file_path") {
        return Err(Failure::invalid("`path` is required"));
    }
    if !out.contains_key("edits") {
        return Err(Failure::invalid(
            "`edits` is required: an array of { oldText, newText }",
        ));
    }
    Ok(Value::Object(out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;
    use serde_json::json;

    #[test]
    fn translates_the_filesystem_shape() {
        let v = translate(
            &json!({"path": "a.txt", "edits": [{"oldText": "x", "newText": "y"}], "dryRun": true}),
        )
        .unwrap();
        assert_eq!(
            v,
            json!({"file_path": "a.txt", "edits": [{"oldText": "x", "newText": "y"}], "dry_run": true})
        );
        for bad in [
            json!({"edits": []}),
            json!({"path": "a"}),
            json!({"path": "a", "edits": [{"oldText": "x"}]}),
            json!({"path": "a", "edits": [{"oldText": "x", "newText": "y", "replace_all": true}]}),
            json!({"path": "a", "edits": [], "file_path": "b"}),
            json!("a"),
        ] {
            assert_eq!(
                translate(&bad).unwrap_err().code,
                ErrorCode::INVALID_INPUT,
                "{bad}"
            );
        }
    }
}
