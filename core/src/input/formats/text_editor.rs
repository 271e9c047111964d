//! The command object of Anthropic's text editor tool
//! (`str_replace_based_edit_tool`): `view`, `create`, `str_replace`, `insert`,
//! `undo_edit`, with its parameter names (`path`, `file_text`, `old_str`,
//! `new_str`, `insert_line`, `insert_text`, `view_range`).
//!
//! This module only validates and types the command; [`crate::api::text_editor`] runs
//! it. `null` fields count as absent (some clients send every parameter);
//! unknown fields are refused.

use serde_json::{Map, Value};

use crate::error::Failure;
use crate::input::fields::list_unknown;
use crate::input::request::closest_name;
use crate::model::{Base, Block, Changes, FileAction, FileOp, Format, OpPlan, Said};
use crate::printer;
use crate::result::text_editor::Command;

/// A validated command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EditorCommand {
    /// Show a file (optionally lines `start..=end`, 1-based; `end: None` = to
    /// the end) or list a directory.
    View {
        path: String,
        range: Option<(usize, Option<usize>)>,
        max_chars: Option<usize>,
    },
    /// Create a new file (it must not exist).
    Create { path: String, text: String },
    /// Replace the one occurrence of `old` with `new`.
    StrReplace {
        path: String,
        old: String,
        new: String,
        /// The spellings of `old` and `new` the caller used.
        said: Said,
    },
    /// Insert `text` after line `after_line` (0: at the top).
    Insert {
        path: String,
        after_line: usize,
        text: String,
    },
    /// Undo the last edit made to `path` through this tool in this process.
    Undo { path: String },
}

impl EditorCommand {
    /// The command as results name it.
    pub(crate) fn command(&self) -> Command {
        match self {
            EditorCommand::View { .. } => Command::View,
            EditorCommand::Create { .. } => Command::Create,
            EditorCommand::StrReplace { .. } => Command::StrReplace,
            EditorCommand::Insert { .. } => Command::Insert,
            EditorCommand::Undo { .. } => Command::UndoEdit,
        }
    }

    /// The edit plan of a writing command (`None` for view and undo).
    pub(crate) fn plan(&self) -> Option<OpPlan> {
        let (path, action) = match self {
            EditorCommand::Create { path, text } => (
                path,
                FileAction::Write {
                    base: Base::New {
                        text: text.clone(),
                        replace: false,
                    },
                    changes: Changes::None,
                    move_to: None,
                },
            ),
            EditorCommand::StrReplace {
                path,
                old,
                new,
                said,
            } => (
                path,
                FileAction::Write {
                    base: Base::Existing,
                    changes: Changes::Blocks(vec![Block {
                        search: old.clone(),
                        replace: new.clone(),
                        line: 0,
                        said: *said,
                    }]),
                    move_to: None,
                },
            ),
            EditorCommand::Insert {
                path,
                after_line,
                text,
            } => (
                path,
                FileAction::Write {
                    base: Base::Existing,
                    changes: Changes::Insert {
                        after_line: *after_line,
                        text: text.clone(),
                    },
                    move_to: None,
                },
            ),
            EditorCommand::View { .. } | EditorCommand::Undo { .. } => return None,
        };
        Some(OpPlan {
            format: Format::TextEditor,
            ops: vec![FileOp {
                path: path.clone(),
                line: 0,
                action,
            }],
        })
    }
}

/// Fields read so far, so that leftovers can be refused, and every name
/// looked for, to suggest the one a leftover misspells.
struct Obj<'a> {
    m: &'a Map<String, Value>,
    used: Vec<&'a str>,
    asked: Vec<&'a str>,
}

impl<'a> Obj<'a> {
    /// The value of the first present (non-null) key among `keys`.
    fn get(&mut self, keys: &[&'a str]) -> Result<Option<(&'a str, &'a Value)>, Failure> {
        let mut found: Option<(&'a str, &'a Value)> = None;
        self.asked.extend_from_slice(keys);
        for k in keys {
            if let Some((key, v)) = self.m.get_key_value(*k) {
                self.used.push(key.as_str());
                if v.is_null() {
                    continue;
                }
                if let Some((fk, fv)) = found {
                    if fv != v {
                        return Err(Failure::invalid(printer::same_parameter_twice(fk, k)));
                    }
                }
                found = Some((key.as_str(), v));
            }
        }
        Ok(found)
    }

    fn string(&mut self, keys: &[&'a str]) -> Result<Option<String>, Failure> {
        match self.get(keys)? {
            None => Ok(None),
            Some((_, Value::String(s))) => Ok(Some(s.clone())),
            Some((k, _)) => Err(Failure::invalid(printer::not_a_string(k))),
        }
    }

    fn required(&mut self, keys: &[&'a str], cmd: &str) -> Result<String, Failure> {
        self.required_spelt(keys, cmd).map(|(s, _)| s)
    }

    /// A required string and the spelling it came under.
    fn required_spelt(
        &mut self,
        keys: &[&'a str],
        cmd: &str,
    ) -> Result<(String, &'a str), Failure> {
        match self.get(keys)? {
            // A parameter not read yet that misspells this one: named as sent.
            None => Err(
                match self.m.iter().find_map(|(k, v)| {
                    let near = closest_name(k, keys)?;
                    (!self.used.contains(&k.as_str()) && !v.is_null()).then_some((k, near))
                }) {
                    Some((k, near)) => {
                        Failure::invalid(printer::not_a_parameter(k, cmd, Some(near)))
                    }
                    None => Failure::invalid(printer::required_for(keys[0], cmd)),
                },
            ),
            Some((k, Value::String(s))) => Ok((s.clone(), k)),
            Some((k, _)) => Err(Failure::invalid(printer::not_a_string(k))),
        }
    }

    fn uint(&mut self, keys: &[&'a str]) -> Result<Option<u64>, Failure> {
        match self.get(keys)? {
            None => Ok(None),
            Some((k, v)) => v
                .as_u64()
                .map(Some)
                .ok_or_else(|| Failure::invalid(printer::not_a_uint(k))),
        }
    }
}

/// Validates a command object; returns it and its `dry_run` flag.
pub fn parse(input: &Value) -> Result<(EditorCommand, bool), Failure> {
    let Value::Object(m) = input else {
        return Err(Failure::invalid(printer::command_not_object()));
    };
    let mut o = Obj {
        m,
        used: Vec::new(),
        asked: Vec::new(),
    };
    let command = o
        .string(&["command"])?
        .ok_or_else(|| Failure::invalid(printer::command_missing()))?;
    let path = o.string(&["path", "file_path", "filePath"])?;
    let dry_run = match o.get(&["dry_run", "dryRun"])? {
        None => false,
        Some((_, Value::Bool(b))) => *b,
        Some((k, _)) => return Err(Failure::invalid(printer::not_a_boolean(k))),
    };
    let path = path.ok_or_else(|| Failure::invalid(printer::required_for("path", &command)))?;
    if path.is_empty() {
        return Err(Failure::invalid(printer::path_empty()));
    }
    let cmd = match command.as_str() {
        "view" => view(&mut o, path)?,
        "create" => {
            let text = o.required(&["file_text", "fileText", "content"], "create")?;
            EditorCommand::Create { path, text }
        }
        "str_replace" => str_replace(&mut o, path)?,
        "insert" => {
            let after_line = o
                .uint(&["insert_line", "insertLine"])?
                .ok_or_else(|| Failure::invalid(printer::insert_line_missing()))?;
            let text = o
                .string(&["insert_text", "insertText", "new_str", "newStr"])?
                .ok_or_else(|| Failure::invalid(printer::insert_text_missing()))?;
            EditorCommand::Insert {
                path,
                after_line: after_line as usize,
                text,
            }
        }
        "undo_edit" => EditorCommand::Undo { path },
        other => return Err(Failure::invalid(printer::unknown_command(other))),
    };
    refuse_unknown(m, &o, &cmd)?;
    Ok((cmd, dry_run))
}

/// `view`: an optional `[start, end]` line range and character cap.
fn view(o: &mut Obj<'_>, path: String) -> Result<EditorCommand, Failure> {
    let range = match o.get(&["view_range", "viewRange"])? {
        None => None,
        Some((k, Value::Array(a))) if a.len() == 2 => {
            let start = a[0].as_u64().filter(|&s| s >= 1);
            let end = match &a[1] {
                v if v.as_i64() == Some(-1) => Some(None),
                v => v.as_u64().map(|e| Some(e as usize)),
            };
            match (start, end) {
                (Some(s), Some(e)) if e.is_none_or(|e| e >= s as usize) => Some((s as usize, e)),
                _ => return Err(Failure::invalid(printer::view_range_invalid(k))),
            }
        }
        Some((k, _)) => return Err(Failure::invalid(printer::view_range_not_array(k))),
    };
    let max_chars = o
        .uint(&["max_characters", "maxCharacters"])?
        .map(|n| n as usize);
    Ok(EditorCommand::View {
        path,
        range,
        max_chars,
    })
}

/// `str_replace`: a non-empty `old_str` and an optional `new_str`, with
/// the spelling the caller used for its messages.
fn str_replace(o: &mut Obj<'_>, path: String) -> Result<EditorCommand, Failure> {
    let (old, old_key) = o.required_spelt(&["old_str", "oldStr"], "str_replace")?;
    if old.is_empty() {
        return Err(Failure::invalid(printer::old_str_empty(old_key)));
    }
    let new = o.string(&["new_str", "newStr"])?.unwrap_or_default();
    // `new_str` is optional: named like `old_str` was.
    let said = if old_key == "oldStr" {
        Said::STR_REPLACE_CAMEL
    } else {
        Said::STR_REPLACE
    };
    Ok(EditorCommand::StrReplace {
        path,
        old,
        new,
        said,
    })
}

/// Refuses parameters the command does not take, naming each with the
/// nearest one it does take.
fn refuse_unknown(m: &Map<String, Value>, o: &Obj<'_>, cmd: &EditorCommand) -> Result<(), Failure> {
    let unknown: Vec<&str> = m
        .iter()
        .filter(|(k, v)| !o.used.contains(&k.as_str()) && !v.is_null())
        .map(|(k, _)| k.as_str())
        .collect();
    match unknown[..] {
        [] => Ok(()),
        [k] => Err(Failure::invalid(printer::not_a_parameter(
            k,
            cmd.command().as_str(),
            closest_name(k, &o.asked),
        ))),
        _ => Err(Failure::invalid(printer::not_parameters(
            &list_unknown(&unknown, &o.asked),
            cmd.command().as_str(),
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;
    use serde_json::json;

    #[test]
    fn a_misspelt_parameter_is_named_with_the_nearest_one() {
        let msg = |v: Value| parse(&v).unwrap_err().message;
        assert_eq!(
            msg(json!({"command": "str_replace", "path": "a", "old_sr": "x", "new_str": "y"})),
            "`old_sr` is not a parameter of `str_replace` (did you mean `old_str`?)"
        );
        assert_eq!(
            msg(json!({"command": "view", "path": "a", "view_rnage": [1, 2]})),
            "`view_rnage` is not a parameter of `view` (did you mean `view_range`?)"
        );
        assert_eq!(
            msg(json!({"command": "view", "path": "a", "colour": 1, "flavour": 2})),
            "`colour`, `flavour` are not parameters of `view`"
        );
        assert_eq!(
            msg(json!({"command": "str_replace", "path": "a", "new_str": "y"})),
            "`old_str` is required for `str_replace`"
        );
    }

    #[test]
    fn parses_each_command() {
        let (c, d) =
            parse(&json!({"command": "view", "path": "a", "view_range": [2, -1]})).unwrap();
        assert_eq!(
            c,
            EditorCommand::View {
                path: "a".into(),
                range: Some((2, None)),
                max_chars: None
            }
        );
        assert!(!d);
        let (c, _) = parse(&json!({"command": "str_replace", "path": "a", "old_str": "x", "new_str": null, "insert_line": null})).unwrap();
        assert_eq!(
            c,
            EditorCommand::StrReplace {
                path: "a".into(),
                old: "x".into(),
                new: "".into(),
                said: Said {
                    search: "old_str",
                    replace: "new_str",
                    ..Said::CANONICAL
                }
            }
        );
        let (c, _) =
            parse(&json!({"command": "insert", "path": "a", "insert_line": 0, "insert_text": "t"}))
                .unwrap();
        assert_eq!(
            c,
            EditorCommand::Insert {
                path: "a".into(),
                after_line: 0,
                text: "t".into()
            }
        );
        let (c, d) =
            parse(&json!({"command": "create", "path": "n", "file_text": "", "dry_run": true}))
                .unwrap();
        assert_eq!(
            c,
            EditorCommand::Create {
                path: "n".into(),
                text: "".into()
            }
        );
        assert!(d);
        assert_eq!(
            parse(&json!({"command": "undo_edit", "path": "a"}))
                .unwrap()
                .0,
            EditorCommand::Undo { path: "a".into() }
        );
        assert!(matches!(
            c.plan().unwrap().ops[0].action,
            FileAction::Write {
                base: Base::New { replace: false, .. },
                ..
            }
        ));
    }

    #[test]
    fn refuses_bad_commands() {
        for v in [
            json!("view"),
            json!({"path": "a"}),
            json!({"command": "view"}),
            json!({"command": "delete", "path": "a"}),
            json!({"command": "str_replace", "path": "a", "old_str": ""}),
            json!({"command": "str_replace", "path": "a", "new_str": "x"}),
            json!({"command": "insert", "path": "a", "insert_text": "x"}),
            json!({"command": "insert", "path": "a", "insert_line": -1, "insert_text": "x"}),
            json!({"command": "view", "path": "a", "view_range": [3, 2]}),
            json!({"command": "view", "path": "a", "view_range": [0, 2]}),
            json!({"command": "view", "path": "a", "old_str": "x"}),
            json!({"command": "create", "path": "a"}),
            json!({"command": "insert", "path": "a", "insert_line": 1, "insert_text": "x", "new_str": "y"}),
        ] {
            assert_eq!(parse(&v).unwrap_err().code, ErrorCode::INVALID_INPUT, "{v}");
        }
    }
}
