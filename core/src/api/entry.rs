//! What every entry point shares: the panic guard, the start-up (options,
//! the request, the open workspace) and the result of a cancelled call.
//! The entry points sit beside each other and use only this, never one
//! another's module root: no entry point calls another (`tests/suite/layers.rs`,
//! `no_entry_point_calls_another`, fails on a file of `api/` that uses
//! another file of entry points or the runner, or names an entry point
//! outside its own `fn`).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use crate::error::{ErrorCode, Failure};
use crate::input::request;
use crate::io::workspace::Workspace;
use crate::model::{Options, ResultView};
use crate::printer;
use crate::result::view::{self, Compact, Roots};
use crate::result::{Answer, Failed, Outcome};

/// The `CANCELLED` result of a call stopped before it wrote anything, by its
/// caller (`timeout_ms` None) or by its time budget (see
/// [`printer::cancelled`]).
pub fn cancelled(timeout_ms: Option<u64>) -> Value {
    failure(&printer::cancelled(timeout_ms))
}

/// A failure about no file in particular, as JSON.
pub fn failure(f: &Failure) -> Value {
    to_json::<()>(Err(Box::new(Failed::new(f, None))))
}

/// Runs `f`, turning a panic into an `INTERNAL_ERROR` result, and gives its
/// outcome as JSON, once, in the view the caller's `options` ask for (see
/// [`crate::result::view`]).
pub(super) fn answer<T: Serialize + Compact>(
    options: Option<&Value>,
    f: impl FnOnce() -> Outcome<T>,
) -> Value {
    guarded(|| {
        let mut answer = Answer::from(f());
        let Some(root) = compact_root(options) else {
            return serde_json::to_value(&answer).expect("a result serializes");
        };
        let roots = roots_of(&root);
        let roots: Vec<&str> = roots.iter().map(String::as_str).collect();
        answer.compact(&Roots(&roots));
        view::compactly(|| serde_json::to_value(&answer)).expect("a result serializes")
    })
}

/// The roots a compact view's paths are made relative to: the workspace
/// root as the caller gave it and its real path (a root given through a
/// link), each without a trailing `/`.
fn roots_of(root: &Path) -> Vec<String> {
    let real = std::fs::canonicalize(root).ok();
    [Some(root), real.as_deref()]
        .into_iter()
        .flatten()
        .filter_map(Path::to_str)
        .map(|r| r.trim_end_matches('/').to_string())
        .collect()
}

/// The workspace root when the caller's `options` ask for the compact view.
/// The full view (the default) needs nothing more: the options are read
/// again only when they ask for the compact one, for its root.
fn compact_root(options: Option<&Value>) -> Option<PathBuf> {
    options
        .and_then(|o| o.get("results"))
        .and_then(Value::as_str)
        .filter(|v| *v == "compact")?;
    match request::options(options, cwd) {
        Ok(o) if o.results == ResultView::Compact => Some(o.workspace_root),
        _ => None,
    }
}

/// An outcome as the entry points answer it.
pub(super) fn to_json<T: Serialize>(o: Outcome<T>) -> Value {
    serde_json::to_value(Answer::from(o)).expect("a result serializes")
}

/// Runs `f`, turning a panic into an `INTERNAL_ERROR` result.
pub fn guarded(f: impl FnOnce() -> Value) -> Value {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|p| {
        let what = p
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| p.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into());
        failure(&Failure::new(
            ErrorCode::INTERNAL_ERROR,
            printer::internal_error(&what),
        ))
    })
}

/// The process's working directory: the default workspace root.
pub(super) fn cwd() -> std::io::Result<PathBuf> {
    std::env::current_dir()
}

/// The start of every entry point (`entry`, its JS name): the options,
/// the request as `parse` reads it, and the open workspace; or the failure.
pub(super) fn begin<R>(
    entry: &'static str,
    input: &Value,
    options: Option<&Value>,
    parse: fn(&Value) -> Result<R, Failure>,
) -> Result<(Options, R, Workspace), Box<Failed>> {
    let opts = request::options(options, cwd)?;
    // The entry point's name, for the journal.
    let opts = Options {
        entry: Some(entry),
        ..opts
    };
    let req = parse(input)?;
    let ws = Workspace::open(&opts.workspace_root)?.from_dir(opts.cwd.as_deref())?;
    Ok((opts, req, ws))
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn the_real_root_is_tried_when_the_given_one_is_a_link() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real");
        std::fs::create_dir(&real).unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let real = std::fs::canonicalize(&real).unwrap();
        let given = format!("{}/", link.display());
        assert_eq!(
            roots_of(Path::new(&given)),
            [link.to_str().unwrap(), real.to_str().unwrap()]
        );
    }
}
