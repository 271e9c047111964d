'use strict'
// How the async engine functions are called from JavaScript: waiting for a
// busy file on the event loop, and cancellation.
//
// Busy files. The native async functions run on libuv's thread pool (four
// threads by default). A call that finds its file being written by another
// call (or holding another process's lock) does not wait there: it answers
// FILE_LOCKED at once, having written nothing, and is called again after a
// short pause (1 ms, doubling to 50 ms) until it gets another answer or the
// wait budget is spent: options.lockWaitMs, by default the engine's
// DEFAULT_LOCK_WAIT_MS (10,000 ms). Meanwhile unrelated calls, and every other
// use of the pool (fs, crypto, zlib), go on.
//
// Cancellation. options.signal (an AbortSignal) cancels a call: the engine
// checks between its steps and a last time just before the commit; a call
// stopped there answers CANCELLED and wrote nothing, while a commit already
// under way completes (a file is never left half edited). options.timeoutMs
// is a budget for the whole call, waits for busy files included. A call
// stopped here, between its tries, answers with the engine's own CANCELLED
// result (the binding's cancelledResult), worded as when the engine stops it.

const MAX_PAUSE_MS = 50

/** Reads a field of the caller's options; a hostile object reads as absent. */
function field(options, ...names) {
  try {
    if (!options || typeof options !== 'object') return undefined
    for (const n of names) if (options[n] !== undefined) return options[n]
  } catch {
    // The engine answers such options with INVALID_INPUT.
  }
  return undefined
}

/** The caller's wait budget for busy files, in ms (`native`: the binding, for the default). */
function lockWait(options, native) {
  const v = field(options, 'lockWaitMs', 'lock_wait_ms')
  return Number.isSafeInteger(v) && v >= 0 ? v : native.DEFAULT_LOCK_WAIT_MS
}

function isAbortSignal(s) {
  return typeof AbortSignal !== 'undefined' && s instanceof AbortSignal
}

/**
 * `fn` (a native async engine function) with busy-file retries and
 * cancellation; `native` is the binding (for the cancellation tokens).
 */
function asyncCall(fn, native) {
  const wrapped = async function (input, options) {
    const signal = field(options, 'signal')
    const timeoutMs = field(options, 'timeoutMs', 'timeout_ms')
    const timed = Number.isSafeInteger(timeoutMs) && timeoutMs > 0
    if (!isAbortSignal(signal) && !timed) return retry(fn, native, input, options, undefined, lockWait(options, native))
    if (isAbortSignal(signal) && signal.aborted) return native.cancelledResult()
    let base
    try {
      base = { ...options }
    } catch {
      return fn(input, options)
    }
    const token = isAbortSignal(signal) ? native.cancelToken() : undefined
    const onAbort = () => native.cancelCall(token)
    if (token !== undefined) {
      // An AbortSignal is this wrapper's to watch; anything else under
      // `signal` goes on to the engine, which refuses it (INVALID_INPUT).
      delete base.signal
      base.cancelToken = token
      signal.addEventListener('abort', onAbort, { once: true })
    }
    const deadline = timed ? Date.now() + timeoutMs : undefined
    try {
      return await retry(fn, native, input, base, { signal, deadline, timeoutMs }, lockWait(options, native))
    } finally {
      if (token !== undefined) {
        signal.removeEventListener('abort', onAbort)
        native.releaseCancelToken(token)
      }
    }
  }
  Object.defineProperty(wrapped, 'name', { value: fn.name })
  Object.defineProperty(wrapped, 'native', { value: fn })
  return wrapped
}

/** Calls `fn` until it answers something other than FILE_LOCKED, within the budgets. */
async function retry(fn, native, input, options, limits, waitMs) {
  const lockDeadline = Date.now() + waitMs
  let pause = 1
  for (;;) {
    let opts = options
    if (limits && limits.deadline !== undefined) {
      const left = limits.deadline - Date.now()
      if (left <= 0) return native.cancelledResult(limits.timeoutMs)
      opts = { ...options, timeoutMs: left }
    }
    const r = await fn(input, opts)
    if (!r || r.ok !== false || r.code !== 'FILE_LOCKED') return r
    if (limits && isAbortSignal(limits.signal) && limits.signal.aborted) return native.cancelledResult()
    // The call's time budget spent while the file was busy is a timeout (CANCELLED); the wait budget
    // for busy files spent first leaves the engine's FILE_LOCKED as the answer.
    let left = lockDeadline - Date.now()
    if (limits && limits.deadline !== undefined) {
      const budget = limits.deadline - Date.now()
      if (budget <= 0) return native.cancelledResult(limits.timeoutMs)
      left = Math.min(left, budget)
    }
    if (left <= 0) return r
    await new Promise((resolve) => setTimeout(resolve, Math.min(pause, left)))
    pause = Math.min(pause * 2, MAX_PAUSE_MS)
  }
}

module.exports = { asyncCall, lockWait }
