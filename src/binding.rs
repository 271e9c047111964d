//! The Node-API layer: converts JS values to the engine's JSON input and the
//! engine's JSON result back to JS objects. No logic lives here.
//!
//! Async variants run the engine on the libuv thread pool (`AsyncTask`), so
//! the event loop never waits on disk I/O or matching. Input that cannot
//! even be converted (a function, a BigInt, a cycle) becomes `null`, which
//! the engine reports as `INVALID_INPUT`: no call ever throws or rejects for
//! bad input.

use napi::bindgen_prelude::*;
use napi_derive::napi;
use serde_json::Value;

use crate::engine;

/// Converts a JS value to JSON, or `null` if it cannot be.
fn to_json(env: &Env, v: Option<Unknown<'_>>) -> Option<Value> {
    let v = v?;
    match v.get_type() {
        Ok(ValueType::Undefined) | Err(_) => None,
        Ok(_) => env.from_js_value::<Value, _>(v).ok().or(Some(Value::Null)),
    }
}

type EngineFn = fn(&Value, Option<&Value>) -> Value;

/// A result object on its way to JS.
pub struct JsonOut(Value);

impl TypeName for JsonOut {
    fn type_name() -> &'static str {
        "Object"
    }

    fn value_type() -> ValueType {
        ValueType::Object
    }
}

impl ToNapiValue for JsonOut {
    unsafe fn to_napi_value(env: napi::sys::napi_env, val: Self) -> Result<napi::sys::napi_value> {
        // SAFETY: forwarded unchanged from napi's own call.
        unsafe { Value::to_napi_value(env, val.0) }
    }
}

/// One engine call, run off the event loop.
pub struct EngineTask {
    f: EngineFn,
    input: Value,
    options: Option<Value>,
}

impl Task for EngineTask {
    type Output = Value;
    type JsValue = JsonOut;

    fn compute(&mut self) -> Result<Self::Output> {
        Ok((self.f)(&self.input, self.options.as_ref()))
    }

    fn resolve(&mut self, _env: Env, output: Self::Output) -> Result<Self::JsValue> {
        Ok(JsonOut(output))
    }
}

fn task(
    env: &Env,
    f: EngineFn,
    input: Option<Unknown<'_>>,
    options: Option<Unknown<'_>>,
) -> AsyncTask<EngineTask> {
    let input = to_json(env, input).unwrap_or(Value::Null);
    let options = to_json(env, options);
    AsyncTask::new(EngineTask { f, input, options })
}

fn sync(env: &Env, f: EngineFn, input: Option<Unknown<'_>>, options: Option<Unknown<'_>>) -> Value {
    let input = to_json(env, input).unwrap_or(Value::Null);
    let options = to_json(env, options);
    f(&input, options.as_ref())
}

/// Applies one exact-once edit (or `edits`) to one file. Never rejects.
#[napi(
    ts_args_type = "input: PatchFileInput, options?: PatchFileOptions",
    ts_return_type = "Promise<PatchFileResult>"
)]
pub fn patch_file(
    env: Env,
    input: Option<Unknown<'_>>,
    options: Option<Unknown<'_>>,
) -> AsyncTask<EngineTask> {
    task(&env, engine::patch_file, input, options)
}

/// Synchronous `patchFile` (blocks the event loop; for scripts and CLIs).
#[napi(
    ts_args_type = "input: PatchFileInput, options?: PatchFileOptions",
    ts_return_type = "PatchFileResult"
)]
pub fn patch_file_sync(
    env: Env,
    input: Option<Unknown<'_>>,
    options: Option<Unknown<'_>>,
) -> Value {
    sync(&env, engine::patch_file, input, options)
}

/// Edits many files in one all-or-nothing transaction. Never rejects.
#[napi(
    ts_args_type = "input: BatchPatchFilesInput, options?: PatchFileOptions",
    ts_return_type = "Promise<BatchPatchFilesResult>"
)]
pub fn batch_patch_files(
    env: Env,
    input: Option<Unknown<'_>>,
    options: Option<Unknown<'_>>,
) -> AsyncTask<EngineTask> {
    task(&env, engine::batch_patch_files, input, options)
}

/// Writes exactly what a dry run previewed, once. Never rejects.
#[napi(
    ts_args_type = "input: ApplyDryRunInput | string, options?: PatchFileOptions",
    ts_return_type = "Promise<ApplyDryRunResult>"
)]
pub fn apply_dry_run(
    env: Env,
    input: Option<Unknown<'_>>,
    options: Option<Unknown<'_>>,
) -> AsyncTask<EngineTask> {
    task(&env, engine::apply_dry_run, input, options)
}

/// Reads a file (or a line range of it) with its sha256 and encoding facts.
#[napi(
    ts_args_type = "input: ReadFileInput, options?: PatchFileOptions",
    ts_return_type = "Promise<ReadFileResult>"
)]
pub fn read_file(
    env: Env,
    input: Option<Unknown<'_>>,
    options: Option<Unknown<'_>>,
) -> AsyncTask<EngineTask> {
    task(&env, engine::read_file, input, options)
}

/// Atomically creates or replaces a whole file. Never rejects.
#[napi(
    ts_args_type = "input: WriteFileInput, options?: PatchFileOptions",
    ts_return_type = "Promise<WriteFileResult>"
)]
pub fn write_file(
    env: Env,
    input: Option<Unknown<'_>>,
    options: Option<Unknown<'_>>,
) -> AsyncTask<EngineTask> {
    task(&env, engine::write_file, input, options)
}

/// Every error code, in declaration order (the JS wrapper freezes them).
#[napi(ts_return_type = "PatchFileErrorCode[]")]
pub fn error_codes() -> Vec<&'static str> {
    crate::error::ErrorCode::ALL
        .iter()
        .map(|c| c.as_str())
        .collect()
}
