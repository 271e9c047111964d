//! JS values to JSON and back, and running an engine call on the libuv
//! thread pool.

use napi::bindgen_prelude::*;
use patch_file_core::api::js::{self, Segment, Unreadable};
use patch_file_core::api::EntryPoint;
use patch_file_core::{api, error};
use serde_json::Value;

/// Deepest nesting accepted in an input (requests are a few levels deep); it
/// also stops a cyclic object, which would otherwise recurse forever.
const MAX_DEPTH: usize = 64;
/// Most values accepted in one input (bounds huge or sparse arrays).
const MAX_VALUES: usize = 4_000_000;

/// Why a JS value could not become JSON: where (path segments, innermost
/// last) and what was found there.
/// A value that cannot be read, and where: the words are the core's
/// (`api::js`).
struct Unconvertible {
    /// Innermost segment first.
    at: Vec<Segment>,
    what: Unreadable,
}

impl Unconvertible {
    fn new(what: Unreadable) -> Self {
        Unconvertible {
            at: Vec::new(),
            what,
        }
    }

    fn inside(mut self, segment: Segment) -> Self {
        self.at.push(segment);
        self
    }
}

struct Converter {
    env: napi::sys::napi_env,
    budget: usize,
}

impl Converter {
    fn ok(&self, status: napi::sys::napi_status) -> std::result::Result<(), Unconvertible> {
        if status == napi::sys::Status::napi_ok {
            return Ok(());
        }
        let mut pending = false;
        // SAFETY: `self.env` is the live env of the current call; both calls
        // are allowed while an exception is pending.
        unsafe {
            napi::sys::napi_is_exception_pending(self.env, &mut pending);
            if pending {
                let mut ex = std::ptr::null_mut();
                napi::sys::napi_get_and_clear_last_exception(self.env, &mut ex);
            }
        }
        Err(Unconvertible::new(if pending {
            Unreadable::Threw
        } else {
            Unreadable::NotRead
        }))
    }

    fn string(&mut self, v: napi::sys::napi_value) -> std::result::Result<String, Unconvertible> {
        let mut len = 0usize;
        // SAFETY: a null buffer asks for the length only.
        let s = unsafe {
            napi::sys::napi_get_value_string_utf8(self.env, v, std::ptr::null_mut(), 0, &mut len)
        };
        self.ok(s)?;
        let mut buf = vec![0u8; len + 1];
        let mut got = 0usize;
        // SAFETY: `buf` has room for `len` bytes plus the terminating NUL.
        let s = unsafe {
            napi::sys::napi_get_value_string_utf8(
                self.env,
                v,
                buf.as_mut_ptr().cast(),
                buf.len(),
                &mut got,
            )
        };
        self.ok(s)?;
        buf.truncate(got);
        // Node-API writes a lone surrogate as U+FFFD, which would then match
        // (or become) a real U+FFFD in a file or a path. Only a string that
        // shows a U+FFFD (rare, found with one SIMD scan) is read again as
        // UTF-16, where a lone surrogate and a real U+FFFD differ.
        let text = match String::from_utf8(buf) {
            Ok(t) if memchr::memmem::find(t.as_bytes(), "\u{FFFD}".as_bytes()).is_none() => {
                return Ok(t)
            }
            Ok(t) => t,
            Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
        };
        match self.lone_surrogate(v)? {
            None => Ok(text),
            Some((index, unit)) => Err(Unconvertible::new(Unreadable::LoneSurrogate {
                unit,
                index,
            })),
        }
    }

    /// The first unpaired surrogate of a string (its UTF-16 index and code
    /// unit), read as UTF-16.
    fn lone_surrogate(
        &mut self,
        v: napi::sys::napi_value,
    ) -> std::result::Result<Option<(usize, u16)>, Unconvertible> {
        let mut len = 0usize;
        // SAFETY: a null buffer asks for the length only.
        let s = unsafe {
            napi::sys::napi_get_value_string_utf16(self.env, v, std::ptr::null_mut(), 0, &mut len)
        };
        self.ok(s)?;
        let mut buf = vec![0u16; len + 1];
        let mut got = 0usize;
        // SAFETY: `buf` has room for `len` code units plus the terminating NUL.
        let s = unsafe {
            napi::sys::napi_get_value_string_utf16(
                self.env,
                v,
                buf.as_mut_ptr(),
                buf.len(),
                &mut got,
            )
        };
        self.ok(s)?;
        buf.truncate(got);
        Ok(first_lone_surrogate(&buf))
    }

    /// The JSON for `v`; `None` for `undefined` (dropped from objects, `null`
    /// in arrays, as `JSON.stringify` does).
    fn value(
        &mut self,
        v: napi::sys::napi_value,
        depth: usize,
    ) -> std::result::Result<Option<Value>, Unconvertible> {
        use napi::sys::{self, ValueType as T};
        if self.budget == 0 {
            return Err(Unconvertible::new(Unreadable::TooMany { max: MAX_VALUES }));
        }
        self.budget -= 1;
        let mut t = 0;
        // SAFETY: `v` is a handle from the current call's scope.
        self.ok(unsafe { sys::napi_typeof(self.env, v, &mut t) })?;
        Ok(Some(match t {
            T::napi_undefined => return Ok(None),
            T::napi_null => Value::Null,
            T::napi_boolean => {
                let mut b = false;
                // SAFETY: `v` is a boolean.
                self.ok(unsafe { sys::napi_get_value_bool(self.env, v, &mut b) })?;
                Value::Bool(b)
            }
            T::napi_number => {
                let mut f = 0f64;
                // SAFETY: `v` is a number.
                self.ok(unsafe { sys::napi_get_value_double(self.env, v, &mut f) })?;
                if f.is_finite() && f.fract() == 0.0 && f.abs() < 9_007_199_254_740_992.0 {
                    Value::from(f as i64)
                } else {
                    Value::Number(
                        serde_json::Number::from_f64(f)
                            .ok_or_else(|| Unconvertible::new(Unreadable::Number(f)))?,
                    )
                }
            }
            T::napi_string => Value::String(self.string(v)?),
            T::napi_object => {
                if depth >= MAX_DEPTH {
                    return Err(Unconvertible::new(Unreadable::TooDeep { max: MAX_DEPTH }));
                }
                let mut is_array = false;
                // SAFETY: `v` is an object.
                self.ok(unsafe { sys::napi_is_array(self.env, v, &mut is_array) })?;
                if is_array {
                    self.array(v, depth)?
                } else {
                    self.object(v, depth)?
                }
            }
            T::napi_function => return Err(Unconvertible::new(Unreadable::Function)),
            T::napi_symbol => return Err(Unconvertible::new(Unreadable::Symbol)),
            T::napi_external => return Err(Unconvertible::new(Unreadable::External)),
            _ => return Err(Unconvertible::new(Unreadable::BigInt)),
        }))
    }

    fn array(
        &mut self,
        v: napi::sys::napi_value,
        depth: usize,
    ) -> std::result::Result<Value, Unconvertible> {
        use napi::sys;
        let mut len = 0u32;
        // SAFETY: `v` is an array.
        self.ok(unsafe { sys::napi_get_array_length(self.env, v, &mut len) })?;
        if len as usize > self.budget {
            return Err(Unconvertible::new(Unreadable::LongArray { len }));
        }
        let mut out = Vec::with_capacity(len as usize);
        for i in 0..len {
            let mut e = std::ptr::null_mut();
            // SAFETY: reading an element of an array handle.
            self.ok(unsafe { sys::napi_get_element(self.env, v, i, &mut e) })
                .and_then(|()| self.value(e, depth + 1))
                .map(|x| out.push(x.unwrap_or(Value::Null)))
                .map_err(|u| u.inside(Segment::Index(i)))?;
        }
        Ok(Value::Array(out))
    }

    fn object(
        &mut self,
        v: napi::sys::napi_value,
        depth: usize,
    ) -> std::result::Result<Value, Unconvertible> {
        use napi::sys;
        let mut keys = std::ptr::null_mut();
        // SAFETY: `v` is an object; the result is an array of string keys.
        self.ok(unsafe { sys::napi_get_property_names(self.env, v, &mut keys) })?;
        let mut n = 0u32;
        // SAFETY: `keys` is an array.
        self.ok(unsafe { sys::napi_get_array_length(self.env, keys, &mut n) })?;
        if n as usize > self.budget {
            return Err(Unconvertible::new(Unreadable::ManyKeys { keys: n }));
        }
        let mut out = serde_json::Map::new();
        for i in 0..n {
            let mut k = std::ptr::null_mut();
            // SAFETY: reading an element of the key array.
            self.ok(unsafe { sys::napi_get_element(self.env, keys, i, &mut k) })?;
            let key = self.string(k).map_err(|u| Unconvertible {
                what: Unreadable::Key(Box::new(u.what)),
                ..u
            })?;
            let mut own = false;
            // SAFETY: `k` is a string key of `v`.
            self.ok(unsafe { sys::napi_has_own_property(self.env, v, k, &mut own) })
                .map_err(|u| u.inside(Segment::Key(key.clone())))?;
            if !own {
                continue;
            }
            let mut p = std::ptr::null_mut();
            // SAFETY: reading a property of an object handle (may run a getter).
            let got = self
                .ok(unsafe { sys::napi_get_property(self.env, v, k, &mut p) })
                .and_then(|()| self.value(p, depth + 1))
                .map_err(|u| u.inside(Segment::Key(key.clone())))?;
            if let Some(x) = got {
                out.insert(key, x);
            }
        }
        Ok(Value::Object(out))
    }
}

/// The first UTF-16 code unit that is a surrogate without its partner: its
/// index and value.
fn first_lone_surrogate(units: &[u16]) -> Option<(usize, u16)> {
    let mut i = 0;
    while i < units.len() {
        match units[i] {
            0xD800..=0xDBFF if matches!(units.get(i + 1), Some(0xDC00..=0xDFFF)) => i += 2,
            u @ 0xD800..=0xDFFF => return Some((i, u)),
            _ => i += 1,
        }
    }
    None
}

/// Converts a JS argument to JSON: `Ok(None)` when it is absent or
/// `undefined`, `Err` with an `INVALID_INPUT` result when it cannot be
/// represented as JSON (functions, symbols, BigInts, cycles, throwing
/// getters) or as text (a string or key with a lone surrogate), so that no
/// call ever throws for bad input and no lone surrogate becomes U+FFFD.
fn to_json(
    env: &Env,
    v: Option<Unknown<'_>>,
    what: &str,
) -> std::result::Result<Option<Value>, Value> {
    let Some(v) = v else { return Ok(None) };
    let mut c = Converter {
        env: env.raw(),
        budget: MAX_VALUES,
    };
    c.value(v.raw(), 0).map_err(|u| {
        api::failure(&error::Failure::invalid(js::unreadable(
            what, &u.at, &u.what,
        )))
    })
}

/// A result object on its way to JS.
pub struct JsonOut(pub(crate) Value);

impl TypeName for JsonOut {
    fn type_name() -> &'static str {
        "Object"
    }

    fn value_type() -> ValueType {
        ValueType::Object
    }
}

impl ToNapiValue for JsonOut {
    /// A result too large for JavaScript (a string over V8's limit of about
    /// 512 MiB) becomes a `RESULT_TOO_LARGE` failure instead of an
    /// exception: no call ever throws or rejects.
    unsafe fn to_napi_value(env: napi::sys::napi_env, val: Self) -> Result<napi::sys::napi_value> {
        // SAFETY: forwarded unchanged from napi's own call.
        match unsafe { Value::to_napi_value(env, val.0) } {
            Ok(v) => Ok(v),
            Err(e) => {
                // SAFETY: `env` is the live env of this call; clearing a
                // pending exception is allowed at any time.
                unsafe {
                    let mut pending = false;
                    napi::sys::napi_is_exception_pending(env, &mut pending);
                    if pending {
                        let mut ex = std::ptr::null_mut();
                        napi::sys::napi_get_and_clear_last_exception(env, &mut ex);
                    }
                }
                let failure = api::failure(&error::Failure::new(
                    error::ErrorCode::RESULT_TOO_LARGE,
                    js::result_too_large(&e.reason),
                ));
                // SAFETY: as above.
                unsafe { Value::to_napi_value(env, failure) }
            }
        }
    }
}

/// One engine call, run off the event loop.
pub struct EngineTask {
    entry: EntryPoint,
    input: Value,
    options: Option<Value>,
    /// The result already known (input that could not be converted).
    done: Option<Value>,
}

impl Task for EngineTask {
    type Output = Value;
    type JsValue = JsonOut;

    fn compute(&mut self) -> Result<Self::Output> {
        if let Some(v) = self.done.take() {
            return Ok(v);
        }
        // On the libuv pool: a busy file fails at once (FILE_LOCKED) and the
        // JS wrapper retries, so that no pool thread waits on a lock.
        Ok(api::run_nonblocking(
            self.entry,
            &self.input,
            self.options.as_ref(),
        ))
    }

    fn resolve(&mut self, _env: Env, output: Self::Output) -> Result<Self::JsValue> {
        Ok(JsonOut(output))
    }
}

pub(crate) fn task(
    env: &Env,
    entry: EntryPoint,
    input: Option<Unknown<'_>>,
    options: Option<Unknown<'_>>,
) -> AsyncTask<EngineTask> {
    let task = match convert_args(env, input, options) {
        Ok((input, options)) => EngineTask {
            entry,
            input,
            options,
            done: None,
        },
        Err(failure) => EngineTask {
            entry,
            input: Value::Null,
            options: None,
            done: Some(failure),
        },
    };
    AsyncTask::new(task)
}

pub(crate) fn sync(
    env: &Env,
    entry: EntryPoint,
    input: Option<Unknown<'_>>,
    options: Option<Unknown<'_>>,
) -> Value {
    match convert_args(env, input, options) {
        Ok((input, options)) => api::run(entry, &input, options.as_ref()),
        Err(failure) => failure,
    }
}

/// The input (`null` when absent) and options as JSON, or the
/// `INVALID_INPUT` result for arguments that cannot be converted.
fn convert_args(
    env: &Env,
    input: Option<Unknown<'_>>,
    options: Option<Unknown<'_>>,
) -> std::result::Result<(Value, Option<Value>), Value> {
    let input = to_json(env, input, "input")?.unwrap_or(Value::Null);
    let options = to_json(env, options, "options")?;
    Ok((input, options))
}
