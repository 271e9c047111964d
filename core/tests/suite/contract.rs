//! `schemas/results.json` is the result contract the result types
//! generate (`patch_file_core::api::contract`): the MCP output schemas and
//! the d.ts result types are made from that file, so a result type changed
//! without regenerating it fails here. `npm run contract` rewrites it (and
//! the d.ts made from it).

use crate::common;

const FILE: &str = "schemas/results.json";

/// The file's text as the types generate it.
fn generated() -> String {
    let doc = patch_file_core::api::contract();
    serde_json::to_string_pretty(&doc).expect("a schema serializes") + "\n"
}

#[test]
fn results_schema_is_what_the_result_types_generate() {
    let path = common::repo_root().join(FILE);
    let want = generated();
    if std::env::var_os("PATCH_FILE_WRITE_CONTRACT").is_some() {
        std::fs::write(&path, &want).expect("write the contract");
        return;
    }
    let have = std::fs::read_to_string(&path)
        .unwrap_or_default()
        .replace("\r\n", "\n");
    assert!(
        have == want,
        "{FILE} is not what the result types generate: run `npm run contract`"
    );
}

#[test]
fn the_contract_names_every_error_code() {
    let doc = patch_file_core::api::contract();
    let listed: Vec<&str> = doc["$defs"]["ErrorCode"]["enum"]
        .as_array()
        .expect("ErrorCode is an enum of names")
        .iter()
        .filter_map(|v| v.as_str())
        .collect();
    let all: Vec<&str> = patch_file_core::error::ErrorCode::ALL
        .iter()
        .map(|c| c.as_str())
        .collect();
    assert_eq!(listed, all);
}

#[test]
fn every_schema_has_one_type_and_no_rust_formats() {
    fn walk(v: &serde_json::Value, at: &str) {
        match v {
            serde_json::Value::Object(m) => {
                assert!(
                    !m.get("type").is_some_and(|t| t.is_array()),
                    "{at}: a list of types"
                );
                if let Some(f) = m.get("format").and_then(|f| f.as_str()) {
                    assert!(
                        !f.starts_with("uint") && !f.starts_with("int") && f != "double",
                        "{at}: format {f}"
                    );
                }
                for (k, c) in m {
                    walk(c, &format!("{at}/{k}"));
                }
            }
            serde_json::Value::Array(a) => a
                .iter()
                .enumerate()
                .for_each(|(i, c)| walk(c, &format!("{at}/{i}"))),
            _ => {}
        }
    }
    walk(&patch_file_core::api::contract(), "");
}
